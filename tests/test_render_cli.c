/* test_render_cli.c - `tally render` as a user runs it: one output line per
 * input line in order, ids echoed, a bad line an error for that line only,
 * --now, --chat-template and --max-line, clean failures for bad options.
 * Renderings are compared with the oracle's: the edge contexts with qwen3
 * (tests/data/tmpl/golden/qwen3.edge.full.jsonl) and the chat-layer cases
 * (tests/data/chat/cases.jsonl). A line that is an error makes the exit
 * status 4. */
#define _POSIX_C_SOURCE 200809L
#include "test_proc.h"
#include "../src/base/arena.h"
#include "../src/base/buf.h"
#include "../src/base/os.h"
#include "../src/json/json.h"

/* `tally ARGS < input`: its whole stdout and exit status. */
static char *run(const char *args, const char *input, iz input_len, int *status)
{
    return test_tally(NULL, args, input, input_len, status, NULL);
}

/* The next line of *p (without its newline), advancing *p. */
static str next_line(const char **p)
{
    const char *nl = strchr(*p, '\n');
    str s = str_from(*p, nl ? nl - *p : (iz)strlen(*p));
    *p = nl ? nl + 1 : *p + s.len;
    return s;
}

static void test_render_lines(void)
{
    static const char input[] =
        "{\"id\": 1, \"messages\": [], \"chat_template\": \"x\", \"other\": {\"a\": 1}}\n"
        "not json\n"
        "{\"id\": \"x\", \"chat_template\": \"x\"}\n"
        "[1, 2]\n"
        "{\"id\": [3], \"messages\": [], \"chat_template\": \"{% if %}\"}\n"
        "{\"messages\": [], \"chat_template\": \"a\\\"b\\n\\u0001\xc3\xa9\\t\"}\n"
        "\n"
        "{\"id\": null, \"messages\": [], \"chat_template\": \"{{ strftime_now('%Y-%m-%d %H:%M:%S') }}\"}";
    int st;
    char *out = run("render -t qwen3 --now 2024-02-29T23:59:58", input, lengthof(input), &st);
    REQUIRE(out);
    EXPECT_EQ(st, 4);
    const char *want[] = {
        "{\"id\":1,\"rendered\":\"x\"}",
        "{\"error\":\"line 2: invalid JSON:",
        "{\"id\":\"x\",\"error\":\"'messages'\",\"error_type\":\"KeyError\"}",
        "{\"error\":\"line 4: expected a JSON object\"}",
        "{\"id\":[3],\"error\":\"Expected an expression, got 'end of statement block'\",\"error_type\":\"TemplateSyntaxError\"}",
        "{\"rendered\":\"a\\\"b\\n\\u0001\xc3\xa9\\t\"}",
        "{\"error\":\"line 7: invalid JSON:",
        "{\"id\":null,\"rendered\":\"2024-02-29 23:59:58\"}",
    };
    const char *p = out;
    for (iz k = 0; k < countof(want); k++) {
        str line = next_line(&p);
        if (line.len < (iz)strlen(want[k]) || memcmp(line.s, want[k], strlen(want[k])) != 0
            || (want[k][strlen(want[k]) - 1] == '}' && line.len != (iz)strlen(want[k]))) {
            printf("#   line %td: got %.*s\n#            want %s\n", k + 1, (int)line.len, (const char *)line.s, want[k]);
            test_cur_failed = 1;
        }
    }
    EXPECT(*p == 0);   /* one output line per input line */
    free(out);
}

static void test_render_options(void)
{
    int st;
    char *out = run("render --help", "", 0, &st);
    REQUIRE(out);
    EXPECT(st == 0 && strstr(out, "--chat-template") && strstr(out, "error_type"));
    free(out);
    out = run("render --now 2025-13-01", "", 0, &st);
    EXPECT_EQ(st, 2);
    free(out);
    out = run("render --now 2025-01-15T12:00:00.5", "", 0, &st);
    EXPECT_EQ(st, 2);
    free(out);
    out = run("render -t no-such-model", "", 0, &st);
    EXPECT_EQ(st, 1);
    free(out);
    out = run("render -t qwen3 --chat-template no-such-file.jinja", "", 0, &st);
    EXPECT_EQ(st, 1);
    free(out);
    out = run("render stray-argument", "", 0, &st);
    EXPECT_EQ(st, 1);   /* an input file that does not exist */
    free(out);
    /* a line over --max-line is an error for it alone */
    static const char input[] = "{\"messages\": [], \"chat_template\": \"ok\"}\n"
                                "{\"messages\": [], \"chat_template\": \"this line is much too long\"}\n"
                                "{\"messages\": [], \"chat_template\": \"ok\"}";
    out = run("render --max-line 48", input, lengthof(input), &st);
    REQUIRE(out);
    EXPECT_EQ(st, 4);
    EXPECT(strcmp(out, "{\"rendered\":\"ok\"}\n{\"error\":\"line 2: longer than 48 bytes\"}\n{\"rendered\":\"ok\"}\n") == 0);
    if (test_cur_failed)
        printf("#   got: %s", out);
    free(out);
}

/* The 139 edge contexts through qwen3's own template: every line renders
 * exactly what the oracle rendered, or fails with the same class. */
static void test_render_edge_golden(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str in = os_read_file(&a, "tests/data/tmpl/contexts/edge.jsonl", &e);
    str gold = os_read_file(&a, "tests/data/tmpl/golden/qwen3.edge.full.jsonl", &e);
    REQUIRE(in.s && gold.s);
    int st;
    char *out = run("render --tokenizer qwen3 --now 2025-01-15T12:00:00", (const char *)in.s, in.len, &st);
    REQUIRE(out);
    EXPECT_EQ(st, strstr((const char *)gold.s, "\"error_type\"") ? 4 : 0);
    const char *p = out, *g = (const char *)gold.s;
    iz n = 0, bad = 0;
    while (*g) {
        str gl = next_line(&g), ol = next_line(&p);
        if (!gl.len)
            continue;
        n++;
        json *gv = json_parse(&a, gl, NULL, &e), *ov = json_parse(&a, ol, NULL, &e);
        const json *gid = json_get(gv, S("id")), *oid = json_get(ov, S("id"));
        const json *grend = json_get_type(gv, S("rendered"), JSON_STR), *orend = json_get_type(ov, S("rendered"), JSON_STR);
        const json *gtype = json_get_type(gv, S("error_type"), JSON_STR), *otype = json_get_type(ov, S("error_type"), JSON_STR);
        bool ok = gid && oid && gid->type == JSON_STR && oid->type == JSON_STR && str_eq(gid->u.s, oid->u.s)
               && (grend ? orend && str_eq(grend->u.s, orend->u.s)
                         : gtype && otype && str_eq(gtype->u.s, otype->u.s));
        if (!ok && bad++ < 3)
            printf("#   edge line %td: got %.*s\n", n, (int)MIN(ol.len, 300), (const char *)ol.s);
    }
    EXPECT_EQ(n, 139);
    EXPECT(*p == 0);
    EXPECT_EQ(bad, 0);
    free(out);
    arena_fini(&a);
}

/* Every case of tests/data/chat/cases.jsonl through the command, with its
 * tokenizer folder and --chat-template file. */
static void test_render_chat_cases(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str src = os_read_file(&a, "tests/data/chat/cases.jsonl", &e);
    REQUIRE(src.s);
    const char *p = (const char *)src.s;
    iz n = 0, bad = 0;
    while (*p) {
        str line = next_line(&p);
        json *c = json_parse(&a, line, NULL, &e);
        const json *tok = json_get_type(c, S("tok"), JSON_STR), *tf = json_get_type(c, S("template_file"), JSON_STR);
        const json *prompt = json_get(c, S("prompt"));
        if (!tok || !prompt)
            continue;
        n++;
        buf in = {0};
        json_write(&in, prompt);
        buf_byte(&in, '\n');
        char args[1024];
        snprintf(args, sizeof(args), "render --now 2025-01-15T12:00:00 -t tests/data/chat/tok/%.*s%s%.*s",
                 (int)tok->u.s.len, (const char *)tok->u.s.s, tf ? " --chat-template " : "",
                 tf ? (int)tf->u.s.len : 0, tf ? (const char *)tf->u.s.s : "");
        int st;
        char *out = run(args, (const char *)in.data, in.len, &st);
        buf_free(&in);
        const char *q = out;
        str ol = next_line(&q);
        json *ov = json_parse(&a, ol, NULL, &e);
        const json *want = json_get_type(c, S("rendered"), JSON_STR), *got = json_get_type(ov, S("rendered"), JSON_STR);
        const json *wtype = json_get_type(c, S("error_type"), JSON_STR), *gtype = json_get_type(ov, S("error_type"), JSON_STR);
        bool ok = st == (want ? 0 : 4) && *q == 0
               && (want ? got && str_eq(want->u.s, got->u.s) : wtype && gtype && str_eq(wtype->u.s, gtype->u.s));
        if (!ok) {
            bad++;
            printf("#   case %td: tally %s\n#     got %.*s\n", n, args, (int)MIN(ol.len, 300), (const char *)ol.s);
        }
        free(out);
    }
    EXPECT(n >= 40);
    EXPECT_EQ(bad, 0);
    arena_fini(&a);
}

int main(void)
{
    RUN(test_render_lines);
    RUN(test_render_options);
    RUN(test_render_edge_golden);
    RUN(test_render_chat_cases);
    return test_done();
}
