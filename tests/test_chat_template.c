/* test_chat_template.c - the chat layer against the oracle: template choice
 * (a file, chat_template.jinja, additional_chat_templates/, a string or a
 * named list in tokenizer_config.json, a template given in the prompt),
 * the special-token map in all its shapes, and how a prompt's fields and
 * chat_template_kwargs become variables. Cases and the small tokenizer
 * folders they use are made by tests/data/chat/gen.py with the oracle's
 * own code; each must render the same text or raise the same exception
 * with the same message. Also: loading fails cleanly where it should. */
#include "test.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/chat/chat_template.h"
#include "../src/json/json.h"

/* Messages we word differently from the oracle on purpose: its text names
 * the oracle's own code. The class must still match. */
static const struct { const char *ours, *oracle; } reworded[] = {
    {"continue_final_message is not supported", "continue_final_message is not supported by the oracle"},
    {"jinja2.environment.Template.render() got multiple values for keyword argument 'messages'",
     "ChatRenderer.render() got multiple values for argument 'messages'"},
    {"apply_chat_template() got multiple values for argument 'self'",
     "ChatRenderer.render() got multiple values for argument 'self'"},
};

static bool same_message(str ours, str oracle)
{
    if (str_eq(ours, oracle))
        return true;
    for (iz k = 0; k < countof(reworded); k++)
        if (str_eq(ours, str_cstr(reworded[k].ours)) && str_eq(oracle, str_cstr(reworded[k].oracle)))
            return true;
    return false;
}

static void print_json_str(str s)
{
    buf b = {0};
    json_write_str(&b, s);
    printf("%.*s", (int)b.len, (const char *)b.data);
    buf_free(&b);
}

static void test_cases(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str src = os_read_file(&a, "tests/data/chat/cases.jsonl", &e);
    if (!src.s)
        printf("#   %s\n", e.msg);
    REQUIRE(src.s);
    /* 2025-01-15T12:00:00 UTC, the clock gen.py pins */
    tmpl_render_opts o = {.now = 1736942400};
    arena scratch;
    arena_init(&scratch, 0);
    buf out = {0};
    iz n = 0, bad = 0;
    for (iz b = 0, i = 0; i <= src.len; i++) {
        if (i < src.len && src.s[i] != '\n')
            continue;
        str line = str_cut(src, b, i);
        b = i + 1;
        if (!line.len)
            continue;
        n++;
        json *c = json_parse(&a, line, NULL, &e);
        const json *tok = json_get_type(c, S("tok"), JSON_STR), *tf = json_get(c, S("template_file"));
        const json *prompt = json_get(c, S("prompt")), *want = json_get_type(c, S("rendered"), JSON_STR);
        const json *wtype = json_get_type(c, S("error_type"), JSON_STR), *wmsg = json_get_type(c, S("error"), JSON_STR);
        if (!tok || !prompt || (!want && !(wtype && wmsg))) {
            printf("#   case %td: malformed\n", n);
            bad++;
            continue;
        }
        char dir[512], file[512];
        snprintf(dir, sizeof(dir), "tests/data/chat/tok/%.*s", (int)tok->u.s.len, (const char *)tok->u.s.s);
        if (json_is(tf, JSON_STR))
            snprintf(file, sizeof(file), "%.*s", (int)tf->u.s.len, (const char *)tf->u.s.s);
        arena perm;
        arena_init(&perm, 0);
        chat_tmpl *ct = chat_tmpl_load(&perm, dir, json_is(tf, JSON_STR) ? file : NULL, &e);
        if (!ct) {
            printf("#   case %td (%s): load failed: %s\n", n, dir, e.msg);
            bad++;
            arena_fini(&perm);
            continue;
        }
        out.len = 0;
        tmpl_error te;
        int rc = chat_render_prompt(ct, prompt, &o, &scratch, &out, &te);
        bool ok;
        if (want)
            ok = rc == ERR_OK && str_eq(buf_view(&out), want->u.s);
        else
            ok = rc != ERR_OK && te.exc && str_eq(str_cstr(te.exc), wtype->u.s)
              && same_message(str_cstr(te.msg), wmsg->u.s);
        if (!ok) {
            bad++;
            printf("#   case %td (%s): %.*s\n#     got      ", n, dir, (int)MIN(line.len, 300),
                   (const char *)line.s);
            if (rc == ERR_OK)
                print_json_str(buf_view(&out));
            else
                printf("%s: %s", te.exc ? te.exc : err_code_name(te.code), te.msg);
            printf("\n#     expected ");
            if (want)
                print_json_str(want->u.s);
            else
                printf("%.*s: %.*s", (int)wtype->u.s.len, (const char *)wtype->u.s.s, (int)wmsg->u.s.len,
                       (const char *)wmsg->u.s.s);
            printf("\n");
        }
        arena_fini(&perm);
    }
    printf("#   %td cases, %td differ\n", n, bad);
    EXPECT(n >= 40);
    EXPECT_EQ(bad, 0);
    buf_free(&out);
    arena_fini(&scratch);
    arena_fini(&a);
}

/* What the loader reports about a tokenizer folder: special tokens in the
 * order they are passed, where the template came from, the names of a set. */
static void test_load_info(void)
{
    arena perm;
    arena_init(&perm, 0);
    err e = {0};
    chat_tmpl *ct = chat_tmpl_load(&perm, "tests/data/chat/tok/special", NULL, &e);
    REQUIRE(ct);
    i32 n;
    const tmpl_var *v = chat_tmpl_special(ct, &n);
    /* bos, eos, cls, the list, then the named extras (eos again: it wins) */
    static const char *const names[] = {"bos_token", "eos_token", "cls_token", "additional_special_tokens",
                                        "image_token", "eos_token"};
    EXPECT_EQ(n, countof(names));
    for (i32 k = 0; k < n && k < countof(names); k++)
        EXPECT_STR(v[k].name, str_cstr(names[k]));
    EXPECT(!strcmp(chat_tmpl_source(ct), "tokenizer_config.json"));
    EXPECT_EQ(chat_tmpl_count(ct), 1);

    /* a file inside the folder names the folder */
    ct = chat_tmpl_load(&perm, "tests/data/chat/tok/named/tokenizer.json", NULL, &e);
    REQUIRE(ct);
    EXPECT(!strcmp(chat_tmpl_source(ct), "tokenizer_config.json (named list)"));
    EXPECT_EQ(chat_tmpl_count(ct), 4);
    EXPECT_STR(chat_tmpl_name(ct, 1), S("tool_use"));
    EXPECT(chat_tmpl_compile_error(ct, 0) == NULL);
    EXPECT(chat_tmpl_compile_error(ct, 3) != NULL);

    ct = chat_tmpl_load(&perm, "tests/data/chat/tok/additional", NULL, &e);
    REQUIRE(ct);
    EXPECT(!strcmp(chat_tmpl_source(ct), "chat_template.jinja + additional_chat_templates/"));
    EXPECT_EQ(chat_tmpl_count(ct), 3);
    EXPECT_STR(chat_tmpl_name(ct, 0), S("default"));
    EXPECT_STR(chat_tmpl_name(ct, 2), S("zeta"));

    ct = chat_tmpl_load(&perm, "tests/data/chat/tok/none", NULL, &e);
    REQUIRE(ct);
    EXPECT(!strcmp(chat_tmpl_source(ct), "none"));
    EXPECT_EQ(chat_tmpl_count(ct), 0);
    arena_fini(&perm);
}

static void test_load_errors(void)
{
    arena perm;
    arena_init(&perm, 0);
    err e = {0};
    EXPECT(!chat_tmpl_load(&perm, "tests/data/chat/tok/no-such-folder", NULL, &e));
    EXPECT_EQ(e.code, ERR_IO);
    EXPECT(!chat_tmpl_load(&perm, "tests/data/chat/tok/special", "tests/data/chat/no-such.jinja", &e));
    EXPECT(e.msg[0] != 0);
    /* a tiny arena limit: out of memory is an error, not a crash */
    arena small;
    arena_init(&small, 4096);
    EXPECT(!chat_tmpl_load(&small, "tests/data/chat/tok/special", NULL, &e));
    EXPECT_EQ(e.code, ERR_NOMEM);
    arena_fini(&small);
    arena_fini(&perm);

    /* a prompt that is not an object is the oracle's TypeError */
    arena_init(&perm, 0);
    chat_tmpl *ct = chat_tmpl_load(&perm, "tests/data/chat/tok/special", NULL, &e);
    REQUIRE(ct);
    json *p = json_parse(&perm, S("[1]"), NULL, &e);
    buf out = {0};
    tmpl_error te;
    tmpl_render_opts o = {0};
    EXPECT_EQ(chat_render_prompt(ct, p, &o, &perm, &out, &te), ERR_TEMPLATE);
    EXPECT(te.exc && !strcmp(te.exc, "TypeError"));
    /* our own limits: kwargs of another shape are unsupported, cleanly */
    p = json_parse(&perm, S("{\"messages\": [], \"chat_template_kwargs\": [1]}"), NULL, &e);
    EXPECT_EQ(chat_render_prompt(ct, p, &o, &perm, &out, &te), ERR_UNSUPPORTED);
    EXPECT(te.exc == NULL && te.msg[0]);
    EXPECT_EQ(out.len, 0);
    buf_free(&out);
    arena_fini(&perm);
}

int main(void)
{
    RUN(test_cases);
    RUN(test_load_info);
    RUN(test_load_errors);
    return test_done();
}
