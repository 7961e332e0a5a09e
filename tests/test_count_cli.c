/* test_count_cli.c - `tally count` as a user runs it: every input shape
 * (the oracle's objects, PromptData and TextModelOutput payloads, events.jsonl
 * lines), each --kind, ids echoed, skips and errors one line each, in order,
 * against tests/data/shapes/cli.jsonl, whose counts come from the oracle
 * (tests/data/shapes/gen.py). Also the summary on stderr, --help, bad
 * options, --max-line, --quiet, an explicit --kind whose fields are all
 * missing, the note on tools no template reads, and a tokenizer found by
 * its Hugging Face name in a fake cache. */
#define _POSIX_C_SOURCE 200809L
#include <sys/stat.h>
#include "test_proc.h"
#include "../src/base/arena.h"
#include "../src/base/buf.h"
#include "../src/base/os.h"
#include "../src/json/json.h"

#define NOW "--now 2025-01-15T12:00:00"

/* Runs `ENV tally ARGS < input`; returns stdout, stderr in *err_out when
 * not NULL, and the exit status. */
static char *run(const char *env, const char *args, const char *input, iz input_len, int *status,
                 char **err_out)
{
    return test_tally(env, args, input, input_len, status, err_out);
}

static str next_line(const char **p)
{
    const char *nl = strchr(*p, '\n');
    str s = str_from(*p, nl ? nl - *p : (iz)strlen(*p));
    *p = nl ? nl + 1 : *p + s.len;
    return s;
}

static bool same_json(const json *a, const json *b)
{
    if (!a || !b)
        return a == b;
    buf x = {0}, y = {0};
    json_write(&x, a);
    json_write(&y, b);
    bool eq = str_eq(buf_view(&x), buf_view(&y));
    buf_free(&x);
    buf_free(&y);
    return eq;
}

/* The metric a counted line names: an event's (sample.issued: isl,
 * sample.complete: osl) or a payload's (PromptData: isl, TextModelOutput:
 * osl), none for the oracle's objects. */
static str metric_of(const json *in)
{
    const json *t = in && in->type == JSON_OBJ ? json_get(in, S("event_type")) : NULL;
    if (t && t->type == JSON_STR) {
        const json *d = json_get(in, S("data"));
        in = d && d->type == JSON_ARR ? d : NULL;
    }
    if (!in || in->type != JSON_ARR || !in->u.arr.n || in->u.arr.items[0].type != JSON_STR)
        return S("");
    str tag = in->u.arr.items[0].u.s;
    return str_eq(tag, S("PromptData")) ? S("isl") : str_eq(tag, S("TextModelOutput")) ? S("osl") : S("");
}

/* One output line against its case of cli.jsonl. */
static bool check_line(arena *a, const json *c, const json *got)
{
    if (!got || got->type != JSON_OBJ)
        return false;
    if (!same_json(json_get(c, S("id")), json_get(got, S("id"))))
        return false;
    const json *want = json_get(c, S("expect"));
    if (want->type == JSON_STR) {
        str key = str_eq(want->u.s, S("error")) ? S("error") : S("skipped");
        const json *v = json_get(got, key);
        /* exactly the id and the message */
        return v && v->type == JSON_STR && v->u.s.len > 0 && got->u.obj.n == (json_get(got, S("id")) ? 2 : 1);
    }
    const json *n = json_get_type(got, S("n"), JSON_INT), *wn = json_get(want, S("n"));
    if (!n || n->u.i != wn->u.i)
        return false;
    const json *fb = json_get(got, S("fallback")), *wfb = json_get(want, S("fallback"));
    if (!same_json(fb, wfb))
        return false;
    /* "kind" with --kind auto only */
    if (!same_json(json_get(got, S("kind")), json_get(c, S("kind"))))
        return false;
    err e = {0};
    const json *in = json_parse(a, json_get(c, S("line"))->u.s, NULL, &e);
    str metric = metric_of(in);
    const json *gm = json_get_type(got, S("metric"), JSON_STR);
    if (metric.len ? !gm || !str_eq(gm->u.s, metric) : gm != NULL)
        return false;
    iz keys = 1 + (fb != NULL) + (json_get(got, S("kind")) != NULL) + (json_get(got, S("id")) != NULL) +
              (gm != NULL);
    return got->u.obj.n == keys;
}

/* Every case of cli.jsonl: consecutive cases with the same arguments run
 * as one input, so order and one-line-per-line are checked too. */
static void test_cases(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str src = os_read_file(&a, "tests/data/shapes/cli.jsonl", &e);
    REQUIRE(src.s);
    json *cases[256];
    iz ncases = 0;
    const char *p = (const char *)src.s;
    while (*p && ncases < countof(cases)) {
        str line = next_line(&p);
        if (line.len)
            cases[ncases++] = json_parse(&a, line, NULL, &e);
    }
    REQUIRE(ncases >= 60);
    iz bad = 0, runs = 0, kinds = 0;
    for (iz beg = 0, end; beg < ncases; beg = end) {
        str args = json_get(cases[beg], S("args"))->u.s;
        buf in = {0};
        for (end = beg; end < ncases && str_eq(json_get(cases[end], S("args"))->u.s, args); end++) {
            buf_str(&in, json_get(cases[end], S("line"))->u.s);
            buf_byte(&in, '\n');
        }
        char cmdargs[1024];
        snprintf(cmdargs, sizeof(cmdargs), "count --tokenizer qwen3 " NOW " %.*s", (int)args.len,
                 (const char *)args.s);
        int st;
        char *out = run(NULL, cmdargs, (const char *)in.data, in.len, &st, NULL);
        buf_free(&in);
        REQUIRE(out);
        runs++;
        bool errors = false;
        for (iz k = beg; k < end; k++) {
            const json *w = json_get(cases[k], S("expect"));
            errors = errors || (w->type == JSON_STR && str_eq(w->u.s, S("error")));
        }
        EXPECT_EQ(st, errors ? 4 : 0);
        const char *q = out;
        for (iz k = beg; k < end; k++) {
            str ol = next_line(&q);
            json *got = ol.len ? json_parse(&a, ol, NULL, &e) : NULL;
            if (json_get(cases[k], S("kind")))
                kinds++;
            if (!check_line(&a, cases[k], got)) {
                str line = json_get(cases[k], S("line"))->u.s;
                buf w = {0};
                json_write(&w, json_get(cases[k], S("expect")));
                printf("#   tally %s\n#     in   %.*s\n#     got  %.*s\n#     want %.*s\n", cmdargs,
                       (int)MIN(line.len, 200), (const char *)line.s, (int)ol.len, (const char *)ol.s,
                       (int)w.len, (const char *)w.data);
                buf_free(&w);
                bad++;
            }
        }
        EXPECT(*q == 0);   /* one output line per input line */
        free(out);
    }
    printf("# cli.jsonl: %td cases in %td runs, %td wrong\n", ncases, runs, bad);
    EXPECT(kinds >= 30);
    EXPECT_EQ(bad, 0);
    arena_fini(&a);
}

/* The summary line of the cases with no options, its numbers added up
 * from cli.jsonl, and the first fallback of each class reported once. */
static void test_summary(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str src = os_read_file(&a, "tests/data/shapes/cli.jsonl", &e);
    REQUIRE(src.s);
    buf in = {0};
    i64 items = 0, errors = 0, skipped = 0, tokens = 0, fallbacks = 0, by_kind[4] = {0};
    static const char *const kinds[4] = {"ids", "text", "message", "prompt"};
    char classes[8][64];
    i64 nclass[8] = {0};
    int ncls = 0;
    const char *p = (const char *)src.s;
    while (*p) {
        str line = next_line(&p);
        json *c = line.len ? json_parse(&a, line, NULL, &e) : NULL;
        if (!c || json_get(c, S("args"))->u.s.len)
            continue;
        buf_str(&in, json_get(c, S("line"))->u.s);
        buf_byte(&in, '\n');
        items++;
        const json *want = json_get(c, S("expect")), *kind = json_get(c, S("kind"));
        if (want->type == JSON_STR) {
            if (str_eq(want->u.s, S("error")))
                errors++;
            else
                skipped++;
            continue;
        }
        tokens += json_get(want, S("n"))->u.i;
        for (int k = 0; k < 4; k++)
            if (str_eq(kind->u.s, str_cstr(kinds[k])))
                by_kind[k]++;
        const json *fb = json_get(want, S("fallback"));
        if (!fb)
            continue;
        fallbacks++;
        int k = 0;
        while (k < ncls && !str_eq(str_cstr(classes[k]), fb->u.s))
            k++;
        if (k == ncls && ncls < 8)
            snprintf(classes[ncls++], sizeof(classes[0]), "%.*s", (int)fb->u.s.len, (const char *)fb->u.s.s);
        if (k < 8)
            nclass[k]++;
    }
    REQUIRE(items >= 30 && fallbacks >= 1 && errors >= 1 && skipped >= 1);
    buf want = {0};
    buf_printf(&want, "tally: count: %lld lines: %lld counted (", (long long)items,
               (long long)(items - errors - skipped));
    bool first = true;
    for (int k = 0; k < 4; k++)
        if (by_kind[k]) {
            buf_printf(&want, "%s%s %lld", first ? "" : ", ", kinds[k], (long long)by_kind[k]);
            first = false;
        }
    buf_printf(&want, "; %lld tokens), %lld skipped, %lld errors, %lld fallbacks (", (long long)tokens,
               (long long)skipped, (long long)errors, (long long)fallbacks);
    for (int k = 0; k < ncls; k++)
        buf_printf(&want, "%s%s %lld", k ? ", " : "", classes[k], (long long)nclass[k]);
    buf_cstr(&want, "), on ");
    buf_byte(&want, 0);
    int st;
    char *err_text;
    char *out = run(NULL, "count -t qwen3 " NOW, (const char *)in.data, in.len, &st, &err_text);
    REQUIRE(out && err_text);
    EXPECT_EQ(st, 4);
    EXPECT(strstr(err_text, (const char *)want.data) != NULL);
    EXPECT(strstr(err_text, " lines/s), load ") != NULL);
    /* one warning per class */
    iz warnings = 0;
    for (const char *w = err_text; (w = strstr(w, "the chat template failed (")) != NULL; w++)
        warnings++;
    EXPECT_EQ(warnings, ncls);
    if (test_cur_failed)
        printf("#   stderr: %s#   want: %s\n", err_text, (const char *)want.data);
    /* --quiet: nothing on stderr, the same stdout */
    char *quiet_err;
    char *out2 = run(NULL, "count -t qwen3 " NOW " --quiet", (const char *)in.data, in.len, &st, &quiet_err);
    REQUIRE(out2 && quiet_err);
    EXPECT_EQ(st, 4);
    EXPECT(quiet_err[0] == 0);
    EXPECT(strcmp(out, out2) == 0);
    free(out);
    free(out2);
    free(err_text);
    free(quiet_err);
    buf_free(&in);
    buf_free(&want);
    arena_fini(&a);
}

static void test_options(void)
{
    int st;
    char *err_text;
    char *out = run(NULL, "count --help", "", 0, &st, NULL);
    REQUIRE(out);
    EXPECT(st == 0 && strstr(out, "--kind") && strstr(out, "TextModelOutput") && strstr(out, "events.jsonl")
           && strstr(out, "\"fallback\"") && strstr(out, "skipped") && strstr(out, "Hugging Face"));
    free(out);
    static const struct { const char *args; int status; const char *msg; } cases[] = {
        {"count --kind bogus", 2, "--kind is auto, ids, text, message or prompt"},
        {"count --now 2025-02-30", 2, "--now needs a time"},
        {"count --max-line 0", 2, "--max-line needs a positive number"},
        {"count stray", 1, "cannot open stray: No such file or directory"},
        {"count --frobnicate", 2, "unknown option --frobnicate; see tally count --help"},
        {"count -s", 2, "-s needs a value; see tally count --help"},
        {"count -Z", 2, "unknown option -Z; see tally count --help"},
        {"count -t no-such-model", 1, "tokenizer \"no-such-model\" not found"},
        {"count -t qwen3 --chat-template no-such-file.jinja", 1, "no-such-file.jinja"},
    };
    for (iz k = 0; k < countof(cases); k++) {
        out = run(NULL, cases[k].args, "", 0, &st, &err_text);
        REQUIRE(out && err_text);
        if (st != cases[k].status || !strstr(err_text, cases[k].msg)) {
            printf("#   tally %s: status %d, stderr %s", cases[k].args, st, err_text);
            test_cur_failed = 1;
        }
        free(out);
        free(err_text);
    }
    /* a line over --max-line is an error for it alone */
    static const char input[] = "{\"text\": \"ok\"}\n{\"text\": \"this line is much too long\"}\n{\"text\": \"ok\"}";
    out = run(NULL, "count -t qwen3 --kind text --max-line 20", input, lengthof(input), &st, NULL);
    REQUIRE(out);
    EXPECT_EQ(st, 4);
    EXPECT(strcmp(out, "{\"n\":1}\n{\"error\":\"line 2: longer than 20 bytes\"}\n{\"n\":1}\n") == 0);
    if (test_cur_failed)
        printf("#   got: %s", out);
    free(out);
}

/* --tokenizer ORG/NAME through a fake Hugging Face cache whose snapshot
 * links to the qwen3 asset's files; counts as --tokenizer qwen3 does. */
static void test_hf_name(void)
{
    char root[] = "/tmp/tally-count-hf-XXXXXX";
    REQUIRE(mkdtemp(root));
    char assets[4096], p[8192], q[8192];
    REQUIRE(realpath("assets/qwen3", assets));
    snprintf(p, sizeof(p), "%s/hub/models--Qwen--Qwen3-8B/refs", root);
    char cmd[16384];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s/hub/models--Qwen--Qwen3-8B/snapshots/abc123'", p, root);
    REQUIRE(system(cmd) == 0);
    snprintf(p, sizeof(p), "%s/hub/models--Qwen--Qwen3-8B/refs/main", root);
    FILE *f = fopen(p, "wb");
    REQUIRE(f);
    fputs("abc123", f);
    fclose(f);
    static const char *const files[] = {"tokenizer.json", "tokenizer_config.json"};
    for (iz k = 0; k < countof(files); k++) {
        snprintf(p, sizeof(p), "%s/%s", assets, files[k]);
        snprintf(q, sizeof(q), "%s/hub/models--Qwen--Qwen3-8B/snapshots/abc123/%s", root, files[k]);
        REQUIRE(symlink(p, q) == 0);
    }
    static const char input[] = "{\"id\": 1, \"text\": \"Hello world\"}\n"
                                "{\"id\": 5, \"messages\": [{\"role\": \"user\", \"content\": \"What is 2+2?\"}]}\n";
    char env[8192];
    snprintf(env, sizeof(env), "HF_HUB_CACHE='%s/hub'", root);
    int st;
    char *err_text;
    char *out = run(env, "count -t Qwen/Qwen3-8B " NOW, input, lengthof(input), &st, &err_text);
    char *ref = run(NULL, "count -t qwen3 " NOW, input, lengthof(input), &st, NULL);
    REQUIRE(out && ref);
    EXPECT_EQ(st, 0);
    /* the same lines as with the asset (whose counts test_cases checks
     * against the oracle) */
    EXPECT(strcmp(out, ref) == 0);
    EXPECT(strstr(out, "\"n\":") != NULL);
    if (test_cur_failed)
        printf("#   got: %s#   stderr: %s\n", out, err_text);
    free(out);
    free(ref);
    free(err_text);
    /* not in the cache: the error names where it looked */
    out = run(env, "count -t Qwen/Qwen3-0.6B", "", 0, &st, &err_text);
    REQUIRE(out && err_text);
    EXPECT_EQ(st, 1);
    snprintf(p, sizeof(p), "tally: count: --tokenizer Qwen/Qwen3-0.6B: no such file or folder, and not found "
             "in the Hugging Face cache (looked in %s/hub/models--Qwen--Qwen3-0.6B: no such folder", root);
    if (!strstr(err_text, p)) {
        printf("#   got: %s#   want: %s\n", err_text, p);
        test_cur_failed = 1;
    }
    free(out);
    free(err_text);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    EXPECT(system(cmd) == 0);
}

int main(void)
{
    RUN(test_cases);
    RUN(test_summary);
    RUN(test_options);
    RUN(test_hf_name);
    return test_done();
}
