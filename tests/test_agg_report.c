/* test_agg_report.c - the report builder (src/agg/report.h) against
 * upstream's own bytes. The acceptance test: the 34 cases of
 * tests/data/agg (final snapshots made by upstream's real aggregator, with
 * the result_summary.json and report.txt its Report wrote; cases.tsv gives
 * each case's report options). Then the synthetic cases of
 * tests/data/agg_report (make_golden.py there ran upstream's Report on
 * them: edge cases it accepts, snapshots it refuses, the few it accepts and
 * tally refuses), Python's answers for the arithmetic under it
 * (numbers.jsonl), the summary lines, truncated texts and a text that ends
 * at a guard page. Paths are relative to the project root. */
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>
#include "test.h"
#include "test_util.h"
#include "../src/agg/report.h"
#include "../src/agg/report_num.h"
#include "../src/json/pyfmt.h"

#define AGG_DIR "tests/data/agg"
#define REP_DIR "tests/data/agg_report"

/* What a build is compared with: the text before the buffers (a build
 * appends), so a failed build must leave exactly this. */
static const char prefix[] = "<before>";

typedef struct built {
    int  rc;
    err  e;
    buf  summary, text;
} built;

static void build(str snap, const agg_report_opts *o, built *b)
{
    memset(b, 0, sizeof *b);
    buf_cstr(&b->summary, prefix);
    buf_cstr(&b->text, prefix);
    b->rc = agg_report_build(snap, o, &b->summary, &b->text, &b->e);
}

static void built_free(built *b)
{
    buf_free(&b->summary);
    buf_free(&b->text);
}

/* What the build appended. */
static str appended(const buf *x)
{
    str v = buf_view(x);
    return (str){v.s + lengthof(prefix), v.len - lengthof(prefix)};
}

/* Same bytes? Prints where they part when not. */
static bool same(const char *what, const char *name, str got, str want)
{
    if (str_eq(got, want))
        return true;
    iz i = 0;
    while (i < got.len && i < want.len && got.s[i] == want.s[i])
        i++;
    iz from = i > 60 ? i - 60 : 0;
    printf("#   %s %s: differs at byte %td (got %td bytes, want %td)\n#     got  ...%.*s\n#     want ...%.*s\n",
           name, what, i, got.len, want.len, (int)MIN(got.len - from, 120), (const char *)got.s + from,
           (int)MIN(want.len - from, 120), (const char *)want.s + from);
    return false;
}

static str read_or_empty(arena *a, const char *path)
{
    err e;
    str s = os_read_file(a, path, &e);
    return s.s ? s : (str){(const u8 *)"", 0};
}

static bool exists(const char *path)
{
    return access(path, R_OK) == 0;
}

/* ---- tests/data/agg: upstream's real runs --------------------------------------- */

typedef struct agg_case {
    char        name[128];
    bool        legacy;
    const char *git_sha;
    const json *run_config;
} agg_case;

/* One line of cases.tsv into the report's options, as the oracle's
 * replay.py derives them: the load pattern from --load-pattern, else the
 * run config's; legacy unless --no-legacy-loadgen-qps or the run config
 * turns use_legacy_loadgen_qps_metrics off. */
static bool parse_agg_case(arena *a, str line, agg_case *c)
{
    str f[5];
    iz nf = 0, b = 0;
    for (iz i = 0; i <= line.len && nf < 5; i++)
        if (i == line.len || line.s[i] == '\t') {
            f[nf++] = str_cut(line, b, i);
            b = i + 1;
        }
    if (nf != 5)
        return false;
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%.*s", (int)f[0].len, (const char *)f[0].s);
    str args = f[4];
    const char *lp = NULL;
    bool no_legacy = false;
    str tok[64];
    iz nt = 0;
    for (iz i = 0, s = 0; i <= args.len && nt < 64; i++)
        if (i == args.len || args.s[i] == ' ') {
            if (i > s)
                tok[nt++] = str_cut(args, s, i);
            s = i + 1;
        }
    for (iz k = 0; k < nt; k++) {
        if (str_eq(tok[k], S("--load-pattern")) && k + 1 < nt)
            lp = (const char *)arena_strdup(a, tok[++k]).s;
        else if (str_eq(tok[k], S("--no-legacy-loadgen-qps")))
            no_legacy = true;
        else if (str_eq(tok[k], S("--git-sha")) && k + 1 < nt)
            c->git_sha = (const char *)arena_strdup(a, tok[++k]).s;
        else if (str_eq(tok[k], S("--run-config")) && k + 1 < nt) {
            char path[512];
            k++;
            snprintf(path, sizeof path, AGG_DIR "/%.*s", (int)tok[k].len, (const char *)tok[k].s);
            err e;
            c->run_config = json_parse(a, read_or_empty(a, path), NULL, &e);
            if (!c->run_config)
                return false;
        }
    }
    const json *pat = c->run_config ? json_get_type(c->run_config, S("load_pattern"), JSON_OBJ) : NULL;
    bool flag = true;
    if (pat) {
        const json *t = json_get_type(pat, S("type"), JSON_STR);
        if (!lp && t)
            lp = (const char *)arena_strdup(a, t->u.s).s;
        const json *u = json_get(pat, S("use_legacy_loadgen_qps_metrics"));
        if (u && u->type == JSON_BOOL)
            flag = u->u.b;
    }
    c->legacy = lp && !strcmp(lp, "poisson") && !no_legacy && flag;
    return true;
}

static iz agg_cases(arena *a, agg_case **out)
{
    str *lines;
    iz n = test_lines_of(a, read_or_empty(a, AGG_DIR "/cases.tsv"), &lines);
    agg_case *c = NEW(a, agg_case, n > 0 ? n : 1);
    iz k = 0;
    for (iz i = 1; i < n; i++)
        if (parse_agg_case(a, lines[i], &c[k]))
            k++;
        else
            printf("#   cases.tsv line %td does not parse\n", i + 1);
    *out = c;
    return k;
}

/* The acceptance test: every case, both files, byte for byte. Prints the
 * table. */
static void test_upstream_goldens(void)
{
    arena a;
    arena_init(&a, 0);
    agg_case *c;
    iz n = agg_cases(&a, &c), ok = 0;
    EXPECT_EQ(n, 34);
    for (iz i = 0; i < n; i++) {
        char p[512];
        snprintf(p, sizeof p, AGG_DIR "/golden/%s/final_snapshot.json", c[i].name);
        str snap = read_or_empty(&a, p);
        snprintf(p, sizeof p, AGG_DIR "/golden/%s/result_summary.json", c[i].name);
        str want_s = read_or_empty(&a, p);
        snprintf(p, sizeof p, AGG_DIR "/golden/%s/report.txt", c[i].name);
        str want_t = read_or_empty(&a, p);
        agg_report_opts o = {.legacy_loadgen_qps = c[i].legacy, .run_config = c[i].run_config,
                             .git_sha = c[i].git_sha, .version = "0.1.0"};
        built b;
        build(snap, &o, &b);
        bool s_ok = false, t_ok = false;
        if (b.rc != ERR_OK) {
            printf("#   %s: %s\n", c[i].name, b.e.msg);
        } else {
            s_ok = same("result_summary.json", c[i].name, appended(&b.summary), want_s);
            t_ok = same("report.txt", c[i].name, appended(&b.text), want_t);
        }
        printf("#   %-42s result_summary.json %-9s report.txt %s\n", c[i].name, s_ok ? "identical" : "DIFFERS",
               t_ok ? "identical" : "DIFFERS");
        EXPECT(want_s.len > 0 && want_t.len > 0);
        EXPECT(s_ok && t_ok);
        ok += s_ok && t_ok;
        built_free(&b);
    }
    printf("#   %td of %td cases identical in both files\n", ok, n);
    arena_fini(&a);
}

/* Replaces every `from` in s by `to` (into `a`). */
static str replace_all(arena *a, str s, const char *from, const char *to)
{
    buf b = {0};
    iz nf = (iz)strlen(from);
    for (iz i = 0; i < s.len;) {
        if (i + nf <= s.len && !memcmp(s.s + i, from, (size_t)nf)) {
            buf_cstr(&b, to);
            i += nf;
        } else {
            buf_byte(&b, s.s[i++]);
        }
    }
    str r = arena_strdup(a, buf_view(&b));
    buf_free(&b);
    return r;
}

/* With tally's own version, the goldens compare with the version fields
 * masked (tests/data/agg/README.md): "version" of result_summary.json and
 * the "Version:" line of report.txt, each once, nothing else. */
static void test_version_masked(void)
{
    arena a;
    arena_init(&a, 0);
    agg_case *c;
    iz n = agg_cases(&a, &c);
    REQUIRE(n == 34);
    const char *v = "9.8.7-tally";
    for (iz i = 0; i < n; i++) {
        char p[512];
        snprintf(p, sizeof p, AGG_DIR "/golden/%s/final_snapshot.json", c[i].name);
        str snap = read_or_empty(&a, p);
        agg_report_opts o = {.legacy_loadgen_qps = c[i].legacy, .run_config = c[i].run_config,
                             .git_sha = c[i].git_sha, .version = v};
        built b;
        build(snap, &o, &b);
        REQUIRE(b.rc == ERR_OK);
        str s = replace_all(&a, appended(&b.summary), "\"version\": \"9.8.7-tally\"", "\"version\": \"0.1.0\"");
        str t = replace_all(&a, appended(&b.text), "\nVersion: 9.8.7-tally\n", "\nVersion: 0.1.0\n");
        EXPECT(s.len == appended(&b.summary).len - 6 && t.len == appended(&b.text).len - 6);   /* once each */
        snprintf(p, sizeof p, AGG_DIR "/golden/%s/result_summary.json", c[i].name);
        EXPECT(same("result_summary.json (masked)", c[i].name, s, read_or_empty(&a, p)));
        snprintf(p, sizeof p, AGG_DIR "/golden/%s/report.txt", c[i].name);
        EXPECT(same("report.txt (masked)", c[i].name, t, read_or_empty(&a, p)));
        built_free(&b);
    }
    /* NULL: upstream's own */
    agg_report_opts o = {0};
    built b;
    build(S("{}"), &o, &b);
    EXPECT(b.rc == ERR_OK);
    EXPECT(test_starts(appended(&b.summary), "{\n  \"version\": \"" AGG_REPORT_UPSTREAM_VERSION "\",\n"));
    built_free(&b);
    arena_fini(&a);
}

/* ---- tests/data/agg_report: synthetic cases ------------------------------------------ */

static bool contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

static void test_synthetic(void)
{
    arena a;
    arena_init(&a, 0);
    str *lines;
    iz n = test_lines_of(&a, read_or_empty(&a, REP_DIR "/cases.tsv"), &lines);
    iz counts[3] = {0}, passed = 0;
    EXPECT(n > 150);
    for (iz i = 1; i < n; i++) {
        str f[4];
        iz nf = 0, s = 0;
        for (iz k = 0; k <= lines[i].len && nf < 4; k++)
            if (k == lines[i].len || lines[i].s[k] == '\t') {
                f[nf++] = str_cut(lines[i], s, k);
                s = k + 1;
            }
        if (nf < 3) {
            printf("#   cases.tsv line %td does not parse\n", i + 1);
            EXPECT(0);
            continue;
        }
        char name[128], where[256], p[512];
        snprintf(name, sizeof name, "%.*s", (int)f[0].len, (const char *)f[0].s);
        snprintf(where, sizeof where, "%.*s", (int)f[2].len, (const char *)f[2].s);
        int expect = str_eq(f[1], S("ok")) ? 0 : str_eq(f[1], S("error")) ? 1 : 2;
        counts[expect]++;
        snprintf(p, sizeof p, REP_DIR "/golden/%s/opts.json", name);
        err e;
        const json *opts = json_parse(&a, read_or_empty(&a, p), NULL, &e);
        if (!opts || opts->type != JSON_OBJ) {
            printf("#   %s: opts.json does not parse: %s\n", name, opts ? "not an object" : e.msg);
            EXPECT(0);
            continue;
        }
        const json *rc = json_get(opts, S("run_config")), *sha = json_get(opts, S("git_sha"));
        const json *ver = json_get_type(opts, S("version"), JSON_STR), *leg = json_get(opts, S("legacy"));
        agg_report_opts o = {
            .legacy_loadgen_qps = leg && leg->type == JSON_BOOL && leg->u.b,
            .run_config = rc && rc->type != JSON_NULL ? rc : NULL,
            .git_sha = sha && sha->type == JSON_STR ? (const char *)arena_strdup(&a, sha->u.s).s : NULL,
            .version = ver ? (const char *)arena_strdup(&a, ver->u.s).s : NULL,
        };
        snprintf(p, sizeof p, REP_DIR "/golden/%s/final_snapshot.json", name);
        str snap = read_or_empty(&a, p);
        built b;
        build(snap, &o, &b);
        bool good;
        if (expect == 0) {
            if (b.rc != ERR_OK) {
                printf("#   %s: refused: %s\n", name, b.e.msg);
                good = false;
            } else {
                snprintf(p, sizeof p, REP_DIR "/golden/%s/result_summary.json", name);
                good = same("result_summary.json", name, appended(&b.summary), read_or_empty(&a, p));
                snprintf(p, sizeof p, REP_DIR "/golden/%s/report.txt", name);
                good = same("report.txt", name, appended(&b.text), read_or_empty(&a, p)) && good;
                snprintf(p, sizeof p, REP_DIR "/golden/%s/error.txt", name);
                good = good && !exists(p);
            }
        } else {
            snprintf(p, sizeof p, REP_DIR "/golden/%s/%s", name, expect == 1 ? "error.txt" : "report.txt");
            bool code_ok = expect == 1 ? b.rc != ERR_OK && b.rc != ERR_UNSUPPORTED && b.rc != ERR_NOMEM
                                       : b.rc == ERR_UNSUPPORTED || b.rc == ERR_SYNTAX || b.rc == ERR_UTF8;
            good = code_ok && contains(b.e.msg, where) && exists(p) &&
                   str_eq(buf_view(&b.summary), S(prefix)) && str_eq(buf_view(&b.text), S(prefix));
            if (!good)
                printf("#   %s: expected %s naming \"%s\"; got rc %d (%s) \"%s\"\n", name,
                       expect == 1 ? "a refusal (upstream raises)" : "a deviation (ERR_UNSUPPORTED or JSON)",
                       where, b.rc, err_code_name(b.rc), b.rc ? b.e.msg : "");
        }
        EXPECT(good);
        passed += good;
        built_free(&b);
    }
    printf("#   %td ok, %td error, %td deviation cases; %td as expected\n", counts[0], counts[1], counts[2], passed);
    EXPECT(counts[0] > 60 && counts[1] > 50 && counts[2] >= 5);
    arena_fini(&a);
}

/* ---- numbers.jsonl: Python's arithmetic --------------------------------------------------- */

static bool operand(arena *a, const json *v, rnum *out)
{
    if (v && v->type == JSON_STR)
        return rnum_parse(a, v->u.s, out);
    const json *f = v ? json_get_type(v, S("f"), JSON_STR) : NULL;
    if (!f)
        return false;
    char t[64];
    snprintf(t, sizeof t, "%.*s", (int)f->u.s.len, (const char *)f->u.s.s);
    *out = rnum_float(strtod(t, NULL));
    return true;
}

static const char *exc_class(rnum_exc x)
{
    switch (x) {
    case RNUM_OK:            return "";
    case RNUM_INT_TOO_LARGE:
    case RNUM_DIV_TOO_LARGE:
    case RNUM_INF_TO_INT:    return "OverflowError";
    case RNUM_ZERO_DIVISION: return "ZeroDivisionError";
    case RNUM_NAN_TO_INT:
    case RNUM_DOMAIN:        return "ValueError";
    }
    return "?";
}

static void test_numbers(void)
{
    arena a;
    arena_init(&a, 0);
    json **v;
    iz n = test_read_jsonl(&a, REP_DIR "/numbers.jsonl", &v), bad = 0;
    EXPECT(n > 5000);
    arena_mark m = arena_save(&a);
    for (iz i = 0; i < n; i++) {
        arena_restore(&a, m);
        const json *op = json_get_type(v[i], S("op"), JSON_STR), *want = json_get(v[i], S("r"));
        rnum x, y = {0}, r = {0};
        bool two = json_get_type(v[i], S("b"), JSON_NULL) == NULL;
        if (!op || !want || !operand(&a, json_get(v[i], S("a")), &x) ||
            (two && !operand(&a, json_get(v[i], S("b")), &y))) {
            printf("#   numbers.jsonl line %td does not parse\n", i + 1);
            bad++;
            continue;
        }
        rnum_exc ex = RNUM_OK;
        int cmp = 0;
        double d = 0;
        str o = op->u.s;
        if (str_eq(o, S("float"))) {
            ex = rnum_to_double(&x, &d);
            r = rnum_float(d);
        } else if (str_eq(o, S("div"))) {
            ex = rnum_div(&a, &x, &y, &r);
        } else if (str_eq(o, S("mul"))) {
            ex = rnum_mul(&a, &x, &y, &r);
        } else if (str_eq(o, S("add"))) {
            ex = rnum_add(&a, &x, &y, &r);
        } else if (str_eq(o, S("sub"))) {
            ex = rnum_sub(&a, &x, &y, &r);
        } else if (str_eq(o, S("int"))) {
            ex = rnum_to_int(&a, &x, &r);
        } else if (str_eq(o, S("cmp"))) {
            cmp = rnum_cmp(&a, &x, &y);
            r = rnum_int(&a, cmp);
        } else if (!str_eq(o, S("str"))) {
            bad++;
            continue;
        }
        buf got = {0}, exp = {0};
        const json *e = json_get_type(want, S("exc"), JSON_STR), *s = json_get_type(want, S("s"), JSON_STR);
        const json *f = json_get_type(want, S("f"), JSON_STR);
        if (e) {
            buf_cstr(&got, exc_class(ex));
            buf_str(&exp, e->u.s);
        } else if (ex != RNUM_OK) {
            buf_cstr(&got, rnum_exc_text(ex));
        } else if (s) {
            rnum_write(&a, &got, &x);
            buf_str(&exp, s->u.s);
        } else if (f) {
            /* the same double: its repr */
            if (!r.is_float)
                buf_cstr(&got, "an int");
            else
                pyfmt_float_repr(&got, r.f);
            buf_str(&exp, f->u.s);
        } else if (want->type == JSON_STR) {
            if (r.is_float)
                buf_cstr(&got, "a float");
            else
                rnum_write(&a, &got, &r);
            buf_str(&exp, want->u.s);
        }
        if (!str_eq(buf_view(&got), buf_view(&exp))) {
            if (bad < 10)
                printf("#   numbers.jsonl line %td (%.*s): got %.*s, want %.*s\n", i + 1, (int)o.len,
                       (const char *)o.s, (int)MIN(got.len, 200), (const char *)got.data, (int)MIN(exp.len, 200),
                       (const char *)exp.data);
            bad++;
        }
        buf_free(&got);
        buf_free(&exp);
    }
    printf("#   %td operations, %td differ from Python\n", n, bad);
    EXPECT(bad == 0);
    arena_fini(&a);
}

/* ---- the summary lines ------------------------------------------------------------------- */

static void test_summary_lines(void)
{
    arena a;
    arena_init(&a, 0);
    agg_case *c;
    iz n = agg_cases(&a, &c);
    REQUIRE(n == 34);
    for (iz i = 0; i < n; i++) {
        char p[512];
        snprintf(p, sizeof p, AGG_DIR "/golden/%s/report.txt", c[i].name);
        str t = read_or_empty(&a, p);
        buf out = {0};
        buf_cstr(&out, "x");
        agg_report_summary_lines(t, &out);
        str got = buf_view(&out);
        EXPECT(got.len > 1 && got.s[0] == 'x');
        got = str_cut(got, 1, got.len);
        /* the headline block: the first line through "TPS: ...\n", then the empty line */
        EXPECT(test_starts(got, "----------------- Summary -----------------\n"));
        EXPECT(got.len < t.len && !memcmp(got.s, t.s, (size_t)got.len) && t.s[got.len] == '\n');
        iz last = got.len - 1;
        while (last > 0 && got.s[last - 1] != '\n')
            last--;
        EXPECT(test_starts(str_cut(got, last, got.len), "TPS: "));
        buf_free(&out);
    }
    buf out = {0};
    agg_report_summary_lines(S("a\nb\n\nc\n"), &out);
    EXPECT_STR(buf_view(&out), S("a\nb\n"));
    out.len = 0;
    agg_report_summary_lines(S("a\nb"), &out);
    EXPECT_STR(buf_view(&out), S("a\nb"));
    out.len = 0;
    agg_report_summary_lines(S(""), &out);
    EXPECT_EQ(out.len, 0);
    buf_free(&out);
    arena_fini(&a);
}

/* ---- robustness ------------------------------------------------------------------------------ */

/* Every proper prefix of a snapshot is refused as not JSON, and leaves the
 * buffers alone. */
static void test_truncated(void)
{
    arena a;
    arena_init(&a, 0);
    str snap = read_or_empty(&a, AGG_DIR "/golden/spec12/final_snapshot.json");
    REQUIRE(snap.len > 1000);
    agg_report_opts o = {.version = "0.1.0"};
    iz wrong = 0;
    for (iz n = 0; n < snap.len; n++) {
        u8 *copy = malloc((size_t)n + 1);   /* exactly n bytes are readable, for ASan */
        memcpy(copy, snap.s, (size_t)n);
        built b;
        build(str_from(copy, n), &o, &b);
        /* a prefix that ends after a complete number is still not a document */
        if (b.rc != ERR_SYNTAX || !str_eq(buf_view(&b.summary), S(prefix)) || !str_eq(buf_view(&b.text), S(prefix)))
            wrong++;
        built_free(&b);
        free(copy);
    }
    EXPECT_EQ(wrong, 0);
    arena_fini(&a);
}

/* A snapshot that ends where the mapping ends: nothing reads past it. */
static void test_guard_page(void)
{
    arena a;
    arena_init(&a, 0);
    str snap = read_or_empty(&a, AGG_DIR "/golden/mixed-jsonl-s-qwen3/final_snapshot.json");
    str want = read_or_empty(&a, AGG_DIR "/golden/mixed-jsonl-s-qwen3/result_summary.json");
    REQUIRE(snap.len > 0);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data = ((size_t)snap.len + page) / page * page;
    u8 *map = mmap(NULL, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    REQUIRE(mprotect(map + data, page, PROT_NONE) == 0);
    u8 *at = map + data - (size_t)snap.len;
    memcpy(at, snap.s, (size_t)snap.len);
    agg_report_opts o = {.version = "0.1.0"};
    built b;
    build(str_from(at, snap.len), &o, &b);
    EXPECT(b.rc == ERR_OK);
    EXPECT(str_eq(appended(&b.summary), want));
    built_free(&b);
    /* and every suffix cut short at the guard page */
    for (iz k = 1; k < 64; k++) {
        build(str_from(at, snap.len - k), &o, &b);
        EXPECT(b.rc == ERR_SYNTAX);
        built_free(&b);
    }
    munmap(map, data + page);
    arena_fini(&a);
}

/* Nesting past the limits is refused (Python would go to ~1000 levels). */
static void test_depth(void)
{
    arena a;
    arena_init(&a, 0);
    buf t = {0};
    buf_cstr(&t, "{\"state\": ");
    for (int i = 0; i < 600; i++)
        buf_byte(&t, '[');
    for (int i = 0; i < 600; i++)
        buf_byte(&t, ']');
    buf_byte(&t, '}');
    agg_report_opts o = {0};
    built b;
    build(buf_view(&t), &o, &b);
    EXPECT(b.rc == ERR_LIMIT || b.rc == ERR_SYNTAX);
    built_free(&b);
    /* run_config from a reader with a deeper limit */
    json_opts jo = {2000};
    err e;
    const json *rc = json_parse(&a, str_cut(buf_view(&t), 10, t.len - 1), &jo, &e);
    REQUIRE(rc);
    o.run_config = rc;
    build(S("{}"), &o, &b);
    EXPECT(b.rc == ERR_UNSUPPORTED && contains(b.e.msg, "run_config"));
    built_free(&b);
    buf_free(&t);
    arena_fini(&a);
}

/* Errors name the place: offset, line and column of the value. */
static void test_error_place(void)
{
    str snap = S("{\n  \"metrics\": [\n    {\"type\": \"series\", \"name\": \"isl\", \"count\": \"5\"}\n  ]\n}");
    agg_report_opts o = {0};
    built b;
    build(snap, &o, &b);
    EXPECT(b.rc == ERR_INVALID);
    EXPECT(contains(b.e.msg, "metrics[0] \"isl\": count"));
    EXPECT_EQ(b.e.line, 3);
    EXPECT_EQ(b.e.col, 48);
    EXPECT_EQ(b.e.off, 64);
    built_free(&b);
    /* no err struct at all: still refused, nothing written */
    buf s = {0}, t = {0};
    EXPECT(agg_report_build(snap, &o, &s, &t, NULL) == ERR_INVALID);
    EXPECT(s.len == 0 && t.len == 0);
    buf_free(&s);
    buf_free(&t);
}

int main(void)
{
    RUN(test_upstream_goldens);
    RUN(test_version_masked);
    RUN(test_synthetic);
    RUN(test_numbers);
    RUN(test_summary_lines);
    RUN(test_truncated);
    RUN(test_guard_page);
    RUN(test_depth);
    RUN(test_error_place);
    return test_done();
}
