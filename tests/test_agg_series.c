/* test_agg_series.c - the series statistics (src/agg/series.h) against
 * upstream's own SeriesSampler: every case of
 * tests/data/agg_series/cases.jsonl (made by make_golden.py) is replayed
 * and each field of each statistic is compared as the text json.dumps
 * writes, byte for byte (each line, parsed and written again, is first
 * checked to give the file's bytes back). Then the early-stopping kernel and Python's
 * lgamma at known points, the options upstream refuses, the values
 * record_float refuses, and out of memory (in a child process whose
 * sanitizer allocator returns NULL past 1 MB). */
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "test_util.h"
#include "../src/agg/es.h"
#include "../src/agg/hdr.h"
#include "../src/agg/series.h"
#include "../src/json/pyfmt.h"

#define GOLDEN "tests/data/agg_series/cases.jsonl"

/* ---- a statistic as json.dumps writes its dict's values ------------------ */

/* _scrub_nonfinite turned non-finite floats into None. */
static void put_float(buf *b, double x)
{
    if (isfinite(x))
        pyfmt_float_repr(b, x);
    else
        buf_cstr(b, "null");
}

__extension__ typedef unsigned __int128 u128;

static void put_i128(buf *b, agg_i128 v)
{
    char d[48];
    int n = 0;
    u128 u = v < 0 ? (u128)0 - (u128)v : (u128)v;
    do {
        d[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0)
        buf_byte(b, '-');
    while (n)
        buf_byte(b, (u8)d[--n]);
}

enum { NFIELDS = 10 };

/* A dict's keys and its values' texts, in order. */
typedef struct fields {
    int n;
    str key[NFIELDS];
    buf text[NFIELDS];
} fields;

static buf *field(fields *f, const char *key)
{
    f->key[f->n] = str_cstr(key);
    return &f->text[f->n++];
}

static void fields_free(fields *f)
{
    for (int k = 0; k < f->n; k++)
        buf_free(&f->text[k]);
    f->n = 0;
}

/* The dict _metric_to_dict makes of the statistic, key by key. */
static void stat_fields(const agg_stat *s, fields *f)
{
    buf_cstr(field(f, "type"), "\"series\"");
    buf_cstr(field(f, "name"), "\"s\"");
    buf_i64(field(f, "count"), s->count);
    buf *b = field(f, "total");
    if (s->is_float)
        put_float(b, s->total_f);
    else
        put_i128(b, s->total_i);
    b = field(f, "min");
    if (s->minmax_int)
        buf_i64(b, s->min_i);
    else
        put_float(b, s->min_f);
    b = field(f, "max");
    if (s->minmax_int)
        buf_i64(b, s->max_i);
    else
        put_float(b, s->max_f);
    b = field(f, "sum_sq");
    if (s->sum_sq_int)
        put_i128(b, s->sum_sq_i);
    else
        put_float(b, s->sum_sq_f);
    b = field(f, "percentiles");
    buf_byte(b, '{');
    for (int k = 0; k < AGG_NPCT; k++) {
        buf_printf(b, "%s\"%s\": ", k ? ", " : "", agg_pct_keys[k]);
        put_float(b, s->pct[k]);
    }
    buf_byte(b, '}');
    if (s->has_es) {
        b = field(f, "early_stopping_percentiles");
        buf_byte(b, '{');
        for (int k = 0; k < AGG_NES; k++) {
            buf_printf(b, "%s\"%s\": ", k ? ", " : "", agg_pct_keys[k]);
            if (s->es_null[k])
                buf_cstr(b, "null");
            else
                put_float(b, s->es[k]);
        }
        buf_byte(b, '}');
    }
    b = field(f, "histogram");
    buf_byte(b, '[');
    for (int k = 0; k < s->nbuckets; k++) {
        buf_cstr(b, k ? ", [[" : "[[");
        put_float(b, s->edges[k]);
        buf_cstr(b, ", ");
        put_float(b, s->edges[k + 1]);
        buf_printf(b, "], %lld]", (long long)s->counts[k]);
    }
    buf_byte(b, ']');
}

/* The expected dict's members as json.dumps wrote them. */
static void json_fields(const json *obj, fields *f)
{
    pyfmt_dumps_opts o = {.ensure_ascii = true};
    for (iz k = 0; k < obj->u.obj.n && f->n < NFIELDS; k++) {
        const json_member *m = &obj->u.obj.members[k];
        f->key[f->n] = m->key;
        pyfmt_json_dumps(&f->text[f->n++], &m->val, &o, NULL, NULL);
    }
}

/* ---- the golden cases ---------------------------------------------------- */

/* Prints where two texts part: their first differing byte and the 80
 * bytes on each side. */
static void show_diff(const char *what, str got, str want)
{
    iz i = 0;
    while (i < got.len && i < want.len && got.s[i] == want.s[i])
        i++;
    iz from = i > 80 ? i - 80 : 0;
    printf("#   %s: differs at byte %td of %td/%td\n#     got      ...%.*s\n#     expected ...%.*s\n", what, i,
           got.len, want.len, (int)MIN(got.len - from, 160), (const char *)got.s + from,
           (int)MIN(want.len - from, 160), (const char *)want.s + from);
}

static iz n_cases, n_stats, n_mismatched;

/* Compares one statistic with its expected dict; prints each field that
 * differs. */
static void compare(const char *name, const char *which, const agg_stat *got, const json *want)
{
    fields g = {0}, w = {0};
    stat_fields(got, &g);
    json_fields(want, &w);
    n_stats++;
    bool bad = false;
    int n = MAX(g.n, w.n);
    for (int k = 0; k < n; k++) {
        str gk = k < g.n ? g.key[k] : S("(none)"), wk = k < w.n ? w.key[k] : S("(none)");
        str gt = k < g.n ? buf_view(&g.text[k]) : S(""), wt = k < w.n ? buf_view(&w.text[k]) : S("");
        if (!str_eq(gk, wk)) {
            printf("#   %s %s: key %d is %.*s, expected %.*s\n", name, which, k, (int)gk.len, (const char *)gk.s,
                   (int)wk.len, (const char *)wk.s);
            bad = true;
            break;
        }
        if (!str_eq(gt, wt)) {
            char what[256];
            snprintf(what, sizeof what, "%s %s.%.*s", name, which, (int)gk.len, (const char *)gk.s);
            show_diff(what, gt, wt);
            bad = true;
        }
    }
    n_mismatched += bad;
    if (bad)
        test_cur_failed = 1;
    fields_free(&g);
    fields_free(&w);
}

static bool record_all(agg_series *s, const json *vals, bool is_float, const char *name)
{
    for (iz k = 0; k < vals->u.arr.n; k++) {
        const json *v = &vals->u.arr.items[k];
        int rc;
        if (is_float)
            rc = agg_series_record_float(s, v->type == JSON_INT ? (double)v->u.i : v->u.f);
        else if (v->type == JSON_INT && !v->big)
            rc = agg_series_record_int(s, v->u.i);
        else
            rc = ERR_INVALID;
        if (rc != ERR_OK) {
            printf("#   %s: value %td not recorded (%s)\n", name, k, err_code_name(rc));
            return false;
        }
    }
    return true;
}

static void check_stat(agg_series *s, bool complete, const char *name, const char *which, const json *want)
{
    static agg_stat st;
    err e = {0};
    if (!want)
        return;
    if (agg_series_stat(s, complete, &st, &e) != ERR_OK) {
        printf("#   %s %s: %s\n", name, which, e.msg);
        test_cur_failed = 1;
        return;
    }
    compare(name, which, &st, want);
}

static void test_golden(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str src = os_read_file(&a, GOLDEN, &e);
    REQUIRE(src.s);
    str *lines;
    iz n = test_lines_of(&a, src, &lines);
    REQUIRE(n > 0);
    buf redump = {0};
    for (iz r = 0; r < n; r++) {
        const json *c = json_parse(&a, lines[r], NULL, &e);
        REQUIRE(c);
        /* The expected texts are the parsed values written again: that
         * gives Python's bytes back, the whole line. */
        pyfmt_dumps_opts dumps = {.ensure_ascii = true};
        redump.len = 0;
        REQUIRE(pyfmt_json_dumps(&redump, c, &dumps, NULL, &e));
        if (!str_eq(buf_view(&redump), lines[r])) {
            show_diff("golden line written again", buf_view(&redump), lines[r]);
            test_cur_failed = 1;
        }
        const json *jn = json_get_type(c, S("case"), JSON_STR);
        REQUIRE(jn);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)jn->u.s.len, (const char *)jn->u.s.s);
        const json *dt = json_get_type(c, S("dtype"), JSON_STR);
        agg_series_opts o = {
            .is_float = dt && str_eq(dt->u.s, S("float")),
            .hdr_low = json_get_type(c, S("hdr_low"), JSON_INT)->u.i,
            .hdr_high = json_get_type(c, S("hdr_high"), JSON_INT)->u.i,
            .sig_figs = (int)json_get_type(c, S("sig_figs"), JSON_INT)->u.i,
            .n_buckets = (int)json_get_type(c, S("n_buckets"), JSON_INT)->u.i,
            .early_stopping = json_get_type(c, S("early_stopping"), JSON_BOOL)->u.b,
        };
        agg_series *s = agg_series_new(&o, &e);
        if (!s) {
            printf("#   %s: agg_series_new: %s\n", name, e.msg);
            test_cur_failed = 1;
            continue;
        }
        n_cases++;
        if (record_all(s, json_get_type(c, S("values"), JSON_ARR), o.is_float, name)) {
            const json *live = json_get_type(c, S("live"), JSON_OBJ);
            const json *final = json_get_type(c, S("final"), JSON_OBJ);
            check_stat(s, false, name, "live", live);
            check_stat(s, true, name, "final", final);
            /* a second COMPLETE snapshot is the same, and the sort left
             * the HDR view alone */
            check_stat(s, true, name, "final again", final);
            check_stat(s, false, name, "live again", live);
            const json *more = json_get_type(c, S("more"), JSON_ARR);
            if (more && record_all(s, more, o.is_float, name)) {
                check_stat(s, false, name, "live2", json_get_type(c, S("live2"), JSON_OBJ));
                check_stat(s, true, name, "final2", json_get_type(c, S("final2"), JSON_OBJ));
            }
        } else {
            test_cur_failed = 1;
        }
        agg_series_free(s);
    }
    printf("# %td cases, %td statistics compared, %td mismatched\n", n_cases, n_stats, n_mismatched);
    EXPECT(n_cases == n);
    buf_free(&redump);
    arena_fini(&a);
}

/* ---- the parts ----------------------------------------------------------- */

/* Python's math.lgamma at a few points (printed with repr). */
static void test_lgamma(void)
{
    static const struct { double x, want; } cases[] = {
        {1.0, 0.0}, {2.0, 0.0}, {3.0, 0.693147180559945}, {10.0, 12.801827480081467},
        {1000.0, 5905.220423209181}, {1e6, 12815504.569147611}, {6637.0, 51767.87530951201},
        {0.5, 0.5723649429247004}, {2.5, 0.2846828704729196}, {1e-25, 57.564627324851145},
        {123456789.0, 2176716239.22327},
    };
    for (iz k = 0; k < countof(cases); k++)
        EXPECT(agg_py_lgamma(cases[k].x) == cases[k].want);
    EXPECT(isnan(agg_py_lgamma(0.0)));
    EXPECT(isnan(agg_py_lgamma(-1.5)));
}

/* The numbers docs/upstream-aggregator.md §10.5 and early_stopping.py
 * quote (the floors, the discard counts at n = 10,000, LoadGen's 459 and
 * 661 for p99), and Python's answers where one bit of lgamma decides. */
static void test_es_reference(void)
{
    static const double grid[AGG_NES] = {99.9, 99.0, 97.0, 95.0, 90.0, 80.0, 75.0, 50.0};
    static const i64 floor_n[AGG_NES] = {6636, 662, 219, 130, 64, 31, 24, 11};
    static const i64 t10k[AGG_NES] = {2, 77, 260, 449, 930, 1906, 2399, 4883};
    for (int k = 0; k < AGG_NES; k++) {
        EXPECT_EQ(agg_es_min_passing(1, grid[k] / 100.0) + 1, floor_n[k]);
        EXPECT_EQ(agg_es_rank(floor_n[k] - 1, grid[k]), 0);
        EXPECT_EQ(agg_es_rank(floor_n[k], grid[k]), 1);
        EXPECT_EQ(agg_es_rank(10000, grid[k]), t10k[k]);
    }
    /* where libm's lgamma would give find_min_passing(5297) one less */
    EXPECT_EQ(agg_es_min_passing(5297, 0.999), 5463416);
    EXPECT_EQ(agg_es_rank(5468712, 99.9), 5296);
    EXPECT_EQ(agg_es_rank(5468713, 99.9), 5297);
    EXPECT_EQ(agg_es_min_passing(0, 0.99), 459);
    EXPECT_EQ(agg_es_min_passing(1, 0.99), 661);
    EXPECT_EQ(agg_es_rank(0, 50.0), 0);
    EXPECT_EQ(agg_es_rank(-3, 50.0), 0);
}

/* The keys of the snapshot's maps, as registry.py's str(p) writes them. */
static void test_keys(void)
{
    static const char *const want[AGG_NPCT] = {
        "99.9", "99.0", "97.0", "95.0", "90.0", "80.0", "75.0", "50.0", "25.0", "10.0", "5.0", "1.0",
    };
    for (int k = 0; k < AGG_NPCT; k++)
        EXPECT(strcmp(agg_pct_keys[k], want[k]) == 0);
}

static agg_series_opts ns_opts(void)
{
    return (agg_series_opts){.hdr_low = 1, .hdr_high = (i64)3600 * 1000 * 1000 * 1000, .sig_figs = 3,
                             .n_buckets = 30};
}

/* What upstream refuses is refused, with a message; what it clamps is
 * clamped. */
static void test_opts(void)
{
    agg_series_opts bad[] = {ns_opts(), ns_opts(), ns_opts(), ns_opts(), ns_opts(), ns_opts(), ns_opts()};
    bad[0].sig_figs = 0;
    bad[1].sig_figs = 6;
    bad[2].hdr_low = 10, bad[2].hdr_high = 19;
    bad[3].n_buckets = 0;
    bad[4].n_buckets = -1;
    bad[5].n_buckets = AGG_MAX_BUCKETS + 1;
    bad[6].hdr_low = (i64)1 << 62, bad[6].hdr_high = INT64_MAX;
    for (iz k = 0; k < countof(bad); k++) {
        err e = {0};
        EXPECT(agg_series_new(&bad[k], &e) == NULL);
        EXPECT_EQ(e.code, ERR_INVALID);
        EXPECT(e.msg[0] != 0);
    }
    /* NULL err is fine */
    EXPECT(agg_series_new(&bad[0], NULL) == NULL);
    agg_series_opts ok[] = {ns_opts(), ns_opts(), ns_opts(), ns_opts()};
    ok[0].hdr_low = 0;                      /* raised to 1 */
    ok[1].hdr_low = -7, ok[1].hdr_high = 2; /* raised to 1, and 2 >= 2 * 1 */
    ok[2].hdr_low = 10, ok[2].hdr_high = 20;
    ok[3].n_buckets = AGG_MAX_BUCKETS, ok[3].is_float = true;
    for (iz k = 0; k < countof(ok); k++) {
        err e = {0};
        agg_series *s = agg_series_new(&ok[k], &e);
        EXPECT(s != NULL);
        EXPECT_EQ(agg_series_count(s), 0);
        agg_series_free(s);
    }
    agg_series_free(NULL);
}

/* The hdrh layouts §11 gives. */
static void test_hdr_layout(void)
{
    static const struct { i64 low, high; int sig, half_mag, buckets; iz len; } cases[] = {
        {1, (i64)3600 * 1000 * 1000 * 1000, 3, 10, 32, 33792},
        {1, 10 * 1000 * 1000, 3, 10, 14, 15360},
        {1, (i64)3600 * 1000 * 1000 * 1000, 2, 7, 35, 36 * 128},
        {1, INT64_MAX, 5, 17, 46, 47 * 131072},
    };
    for (iz k = 0; k < countof(cases); k++) {
        agg_hdr h;
        err e = {0};
        REQUIRE(agg_hdr_init(&h, cases[k].low, cases[k].high, cases[k].sig, &e) == ERR_OK);
        EXPECT_EQ(h.half_mag, cases[k].half_mag);
        EXPECT_EQ(h.bucket_count, cases[k].buckets);
        EXPECT_EQ(h.counts_len, cases[k].len);
        agg_hdr_fini(&h);
    }
}

/* Values outside what upstream's tpot_ns can be are refused and change
 * nothing; the edges of the range are taken. */
static void test_float_range(void)
{
    agg_series_opts o = ns_opts();
    o.is_float = true;
    agg_series *s = agg_series_new(&o, NULL);
    REQUIRE(s);
    const double refused[] = {NAN, INFINITY, -INFINITY, 0x1p64, -0x1p64, 1e300};
    for (iz k = 0; k < countof(refused); k++)
        EXPECT_EQ(agg_series_record_float(s, refused[k]), ERR_INVALID);
    EXPECT_EQ(agg_series_count(s), 0);
    EXPECT_EQ(agg_series_record_float(s, 0x1p64 - 0x1p11), ERR_OK);
    EXPECT_EQ(agg_series_record_float(s, -(0x1p64 - 0x1p11)), ERR_OK);
    EXPECT_EQ(agg_series_count(s), 2);
    static agg_stat st;
    EXPECT_EQ(agg_series_stat(s, true, &st, NULL), ERR_OK);
    EXPECT(st.total_f == 0.0 && st.max_f == 0x1p64 - 0x1p11 && st.min_f == -(0x1p64 - 0x1p11));
    agg_series_free(s);
}

/* ---- out of memory --------------------------------------------------------
 *
 * The child runs with the sanitizer's allocator returning NULL for any
 * request over 1 MB: a series needing 27 MB of HDR counts is refused, and
 * a series whose raw array can no longer grow refuses the value, keeps
 * what it had and still reports it. */

static int oom_child(void)
{
    int bad = 0;
    agg_series_opts o = ns_opts();
    o.sig_figs = 5;
    err e = {0};
    if (agg_series_new(&o, &e) != NULL || e.code != ERR_NOMEM) {
        printf("#   oom: a series with 27 MB of counts was made\n");
        bad++;
    }
    o.sig_figs = 3;
    agg_series *s = agg_series_new(&o, &e);
    if (!s)
        return 2;
    i64 n = 0;
    int rc;
    while ((rc = agg_series_record_int(s, n + 1)) == ERR_OK && n < 1000000)
        n++;
    if (rc != ERR_NOMEM || agg_series_count(s) != n) {
        printf("#   oom: recording %lld values ended with %s, count %lld\n", (long long)n, err_code_name(rc),
               (long long)agg_series_count(s));
        bad++;
    }
    static agg_stat st;
    if (agg_series_stat(s, true, &st, &e) != ERR_OK || st.count != n || st.max_i != n || st.total_i != (agg_i128)n * (n + 1) / 2) {
        printf("#   oom: the statistics after a refused value are not those of the %lld values kept\n", (long long)n);
        bad++;
    }
    agg_series_free(s);
    return bad ? 1 : 0;
}

static void test_oom(void)
{
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        const char *old = getenv("ASAN_OPTIONS");
        char opts[1024];
        snprintf(opts, sizeof opts, "%s%sallocator_may_return_null=1:max_allocation_size_mb=1", old ? old : "",
                 old && *old ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
        char *argv[] = {(char *)"test_agg_series", (char *)"oom-child", NULL};
        execv("/proc/self/exe", argv);
        _exit(3);
    }
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    EXPECT(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "oom-child") == 0)
        return oom_child();
    RUN(test_golden);
    RUN(test_lgamma);
    RUN(test_es_reference);
    RUN(test_keys);
    RUN(test_opts);
    RUN(test_hdr_layout);
    RUN(test_float_range);
    RUN(test_oom);
    return test_done();
}
