/* test_agg_report_upstream.c - upstream's unit tests of the report builder
 * (tests/unit/metrics/test_report_builder.py, mlcommons/endpoints at
 * ea33275) ported to src/agg/report.h: one C test per Python test, named
 * after it, on the same inputs. Where upstream fills a MetricsRegistry,
 * these fill tally's (agg_registry); where it writes a snapshot dict, these
 * write the same dict as JSON text. agg_report_build then stands for
 * Report.from_snapshot + to_json + display, and each test asserts what the
 * Python test asserts, through result_summary.json (every Report attribute
 * but accuracy is serialized there) or through report.txt. Not ported (33
 * of upstream's 37): the accuracy tests (test_from_snapshot_leaves_accuracy_
 * empty, test_display_accuracy_section, test_to_json_excludes_accuracy), as
 * tally has no accuracy section, and test_to_json_save (agg_report_build
 * writes buffers; the files are io_report's). */
#include <math.h>
#include "test.h"
#include "../src/agg/registry.h"
#include "../src/agg/report.h"
#include "../src/base/arena.h"
#include "../src/json/json.h"

/* ---- the report and what is read from it --------------------------------------- */

/* One build: result_summary.json parsed (`j`), report.txt (`text`) and its
 * summary block (`head`, the lines `tally report` prints: upstream's
 * display(summary_only=True) without the closing "End of Summary" line). */
typedef struct built {
    arena a;
    int   rc;
    err   e;
    buf   summary, text, head, snap;
    json *j;
} built;

static void built_free(built *b)
{
    buf_free(&b->summary);
    buf_free(&b->text);
    buf_free(&b->head);
    buf_free(&b->snap);
    arena_fini(&b->a);
}

/* Report.from_snapshot(json.loads(snap), run_config=..., use_legacy_...)
 * with to_json and display. b->j is NULL when the build fails. */
static void build_text(built *b, str snap, const agg_report_opts *o)
{
    b->rc = agg_report_build(snap, o, &b->summary, &b->text, &b->e);
    if (b->rc != ERR_OK) {
        printf("#   agg_report_build: %s\n", b->e.msg);
        return;
    }
    err e = {0};
    b->j = json_parse(&b->a, buf_view(&b->summary), NULL, &e);
    if (!b->j)
        printf("#   result_summary.json: %s\n", e.msg);
    agg_report_summary_lines(buf_view(&b->text), &b->head);
}

static void built_init(built *b)
{
    memset(b, 0, sizeof *b);
    arena_init(&b->a, 0);
}

/* Builds from a snapshot dict written as JSON text, with Report's defaults
 * (use_legacy_loadgen_qps_metrics=True, run_config=None). */
static void from_dict(built *b, const char *snap)
{
    built_init(b);
    agg_report_opts o = {.legacy_loadgen_qps = true};
    build_text(b, str_cstr(snap), &o);
}

static const json *get(const json *obj, const char *k)
{
    return obj ? json_get(obj, str_cstr(k)) : NULL;
}

static const json *field(const built *b, const char *k)
{
    return get(b->j, k);
}

static bool is_num(const json *v)
{
    return v && (v->type == JSON_INT || v->type == JSON_FLOAT) && !v->big;
}

static double num(const json *v)
{
    return v->type == JSON_INT ? (double)v->u.i : v->u.f;
}

/* Python's `v == want` for a number (an int and a float compare by value). */
static bool num_eq(const json *v, double want)
{
    return is_num(v) && num(v) == want;
}

/* pytest.approx(want): relative 1e-6, absolute 1e-12. */
static bool approx(const json *v, double want)
{
    return is_num(v) && fabs(num(v) - want) <= fmax(1e-6 * fabs(want), 1e-12);
}

static bool is_none(const json *v)
{
    return v && v->type == JSON_NULL;
}

/* `d == {}` */
static bool is_empty_dict(const json *v)
{
    return v && v->type == JSON_OBJ && v->u.obj.n == 0;
}

static bool is_bool(const json *v, bool want)
{
    return v && v->type == JSON_BOOL && v->u.b == want;
}

/* Python's == on json.loads values: dicts by key set (any order), numbers
 * by value. */
static bool same(const json *a, const json *b)
{
    if (is_num(a) && is_num(b))
        return num(a) == num(b);
    if (!a || !b || a->type != b->type)
        return false;
    switch ((json_type)a->type) {
    case JSON_NULL: return true;
    case JSON_BOOL: return a->u.b == b->u.b;
    case JSON_INT:
    case JSON_FLOAT: return str_eq(a->u.num, b->u.num);   /* ints past 64 bits */
    case JSON_STR: return str_eq(a->u.s, b->u.s);
    case JSON_ARR:
        if (a->u.arr.n != b->u.arr.n)
            return false;
        for (iz k = 0; k < a->u.arr.n; k++)
            if (!same(&a->u.arr.items[k], &b->u.arr.items[k]))
                return false;
        return true;
    case JSON_OBJ:
        if (a->u.obj.n != b->u.obj.n)
            return false;
        for (iz k = 0; k < a->u.obj.n; k++)
            if (!same(&a->u.obj.members[k].val, json_get(b, a->u.obj.members[k].key)))
                return false;
        return true;
    }
    return false;
}

/* `set(a) == set(b)` for two dicts. */
static bool same_keys(const json *a, const json *b)
{
    if (!a || !b || a->type != JSON_OBJ || b->type != JSON_OBJ || a->u.obj.n != b->u.obj.n)
        return false;
    for (iz k = 0; k < a->u.obj.n; k++)
        if (!json_get(b, a->u.obj.members[k].key))
            return false;
    return true;
}

/* A value written as JSON text, parsed into b's arena (the expected side). */
static const json *lit(built *b, const char *text)
{
    err e = {0};
    const json *v = json_parse(&b->a, str_cstr(text), NULL, &e);
    if (!v)
        printf("#   bad literal: %s\n", e.msg);
    return v;
}

static u8 lower(u8 c)
{
    return c >= 'A' && c <= 'Z' ? (u8)(c + 32) : c;
}

/* `needle in hay`; with `fold`, `needle in hay.lower()` (ASCII needles). */
static bool has_in(str hay, const char *needle, bool fold)
{
    iz n = (iz)strlen(needle);
    for (iz i = 0; i + n <= hay.len; i++) {
        iz k = 0;
        while (k < n && (fold ? lower(hay.s[i + k]) : hay.s[i + k]) == (u8)needle[k])
            k++;
        if (k == n)
            return true;
    }
    return false;
}

static bool has(const buf *hay, const char *needle)
{
    return has_in(buf_view(hay), needle, false);
}

/* `any(a in ln and b in ln for ln in lines)` (b may be NULL). */
static bool any_line(const buf *text, const char *a, const char *b)
{
    str t = buf_view(text);
    for (iz beg = 0, i = 0; i <= t.len; i++)
        if (i == t.len || t.s[i] == '\n') {
            str ln = str_cut(t, beg, i);
            if (has_in(ln, a, false) && (!b || has_in(ln, b, false)))
                return true;
            beg = i + 1;
        }
    return false;
}

/* The section of report.txt from the line "<title>:" through the line
 * before the empty line that ends it (the empty lines inside a section are
 * followed by an indented line), or "" when there is none. */
static str section(const built *b, const char *title)
{
    str t = buf_view(&b->text);
    char head[64];
    snprintf(head, sizeof head, "\n%s:\n", title);
    iz n = (iz)strlen(head);
    for (iz i = 0; i + n <= t.len; i++) {
        if (memcmp(t.s + i, head, (size_t)n))
            continue;
        iz end = i + n;
        while (end + 2 < t.len && !(t.s[end] == '\n' && t.s[end + 1] == '\n' && t.s[end + 2] != ' '))
            end++;
        return str_cut(t, i + 1, MIN(end + 1, t.len));
    }
    return S("");
}

/* ---- _make_registry, _set_loadgen_window, _build_report ---------------------------- */

/* _make_registry(n_samples): every counter, the series latency, ttft, isl,
 * osl and tpot (float) with sig_figs 3 and 10 histogram buckets; then
 * n_samples of each series but tpot, and the tracked counters. Upstream's
 * fixture registers the series with percentiles (50, 90, 99); tally's
 * registry always has upstream's DEFAULT_PERCENTILES, which include 50.0,
 * the one Report reads (as the median): no test here depends on the grid.
 * It does not register chunk_delta_ns either, so neither do these. */
static bool make_registry(agg_registry *r, i64 n_samples)
{
    agg_registry_opts o = {.streaming = true, .sig_figs = 3, .n_buckets = 10};
    err e = {0};
    if (agg_registry_init(r, &o, &e) != ERR_OK) {
        printf("#   agg_registry_init: %s\n", e.msg);
        return false;
    }
    agg_series_free(r->series[AGG_S_CHUNK_DELTA]);
    r->series[AGG_S_CHUNK_DELTA] = NULL;
    if (n_samples > 0) {
        r->counter[AGG_TRACKED_ISSUED] += n_samples;
        r->counter[AGG_TRACKED_COMPLETED] += n_samples;
        r->counter[AGG_TRACKED_DURATION] = 10000000000;
        for (i64 i = 0; i < n_samples; i++) {
            if (agg_series_record_int(r->series[AGG_S_TTFT], 1000000 + i * 10000) != ERR_OK ||
                agg_series_record_int(r->series[AGG_S_LATENCY], 5000000 + i * 50000) != ERR_OK ||
                agg_series_record_int(r->series[AGG_S_ISL], 50 + i) != ERR_OK ||
                agg_series_record_int(r->series[AGG_S_OSL], 100 + i) != ERR_OK) {
                agg_registry_fini(r);
                return false;
            }
        }
    }
    return true;
}

/* _set_loadgen_window(registry, duration_ns=...) */
static void set_loadgen_window(agg_registry *r, i64 duration_ns)
{
    r->counter[AGG_LEGACY_WINDOW] = duration_ns;
}

/* snapshot_to_dict(registry.build_snapshot(state=..., n_pending_tasks=...))
 * as final_snapshot.json holds it, into b->snap; frees the registry. */
static bool snapshot(built *b, agg_registry *r, agg_state state, i64 n_pending)
{
    agg_snapshot *s = calloc(1, sizeof *s);
    err e = {0};
    bool ok = s && agg_registry_snapshot(r, state, 0, n_pending, s, &e) == ERR_OK;
    if (ok)
        agg_snapshot_json(s, &b->snap);
    else
        printf("#   agg_registry_snapshot: %s\n", s ? e.msg : "out of memory");
    free(s);
    agg_registry_fini(r);
    return ok;
}

/* _build_report(registry, state=..., n_pending_tasks=...,
 * use_legacy_loadgen_qps_metrics=...); frees the registry. */
static void build_report(built *b, agg_registry *r, agg_state state, i64 n_pending, bool legacy)
{
    built_init(b);
    if (!snapshot(b, r, state, n_pending))
        return;
    agg_report_opts o = {.legacy_loadgen_qps = legacy};
    build_text(b, buf_view(&b->snap), &o);
}

/* _build_report(_make_registry(n_samples)) with its defaults. */
static void default_report(built *b, i64 n_samples)
{
    agg_registry r;
    if (!make_registry(&r, n_samples)) {
        built_init(b);
        return;
    }
    build_report(b, &r, AGG_COMPLETE, 0, true);
}

/* ---- TestSeriesMetricDict ----------------------------------------------------------
 * series_metric_dict(values) is _series_to_metric_dict(build_token_series_dict(
 * values)): an exact int series named "osl" with TOKEN_HDR_LOW/HIGH, 3 sig figs,
 * 30 buckets and DEFAULT_PERCENTILES, shaped as the report shapes a series.
 * tally has no such function (it serves upstream's accuracy OSL block), but that
 * is what its registry's osl series is in a COMPLETE snapshot (registered with
 * --n-histogram-buckets 30): its output_sequence_lengths is series_metric_dict
 * of the values recorded. */

static const json *series_metric_dict(built *b, const i64 *values, int n)
{
    built_init(b);
    agg_registry r;
    agg_registry_opts o = {.sig_figs = 3, .n_buckets = 30};
    err e = {0};
    if (agg_registry_init(&r, &o, &e) != ERR_OK) {
        printf("#   agg_registry_init: %s\n", e.msg);
        return NULL;
    }
    for (int k = 0; k < n; k++)
        if (agg_series_record_int(r.series[AGG_S_OSL], values[k]) != ERR_OK) {
            agg_registry_fini(&r);
            return NULL;
        }
    if (!snapshot(b, &r, AGG_COMPLETE, 0))
        return NULL;
    agg_report_opts ro = {.legacy_loadgen_qps = true};
    build_text(b, buf_view(&b->snap), &ro);
    return field(b, "output_sequence_lengths");
}

/* TestSeriesMetricDict::test_empty_returns_empty: series_metric_dict([]) == {}. */
static void test_empty_returns_empty(void)
{
    built b;
    const json *d = series_metric_dict(&b, NULL, 0);
    EXPECT(is_empty_dict(d));
    built_free(&b);
}

/* TestSeriesMetricDict::test_keys_match_perf_block: the perf block's keys
 * (avg, min, max, median, std_dev, total, percentiles, histogram) are all in
 * series_metric_dict([2, 4, 6]). */
static void test_keys_match_perf_block(void)
{
    static const char *const perf_keys[] = {"avg", "min", "max", "median", "std_dev", "total", "percentiles",
                                            "histogram"};
    built b;
    const json *d = series_metric_dict(&b, (const i64[]){2, 4, 6}, 3);
    REQUIRE(json_is(d, JSON_OBJ));
    for (int k = 0; k < countof(perf_keys); k++)
        EXPECT(get(d, perf_keys[k]) != NULL);
    built_free(&b);
}

/* TestSeriesMetricDict::test_basic_stats (not in docs/upstream-aggregator.md
 * §16's list, but it applies as its siblings do): series_metric_dict([2, 4, 6])
 * has avg 4.0, min 2, max 6, total 12, median 4. */
static void test_basic_stats(void)
{
    built b;
    const json *d = series_metric_dict(&b, (const i64[]){2, 4, 6}, 3);
    EXPECT(num_eq(get(d, "avg"), 4.0));
    EXPECT(num_eq(get(d, "min"), 2));
    EXPECT(num_eq(get(d, "max"), 6));
    EXPECT(num_eq(get(d, "total"), 12));
    EXPECT(num_eq(get(d, "median"), 4));
    built_free(&b);
}

/* TestSeriesMetricDict::test_single_value: series_metric_dict([7]) has avg
 * 7.0, min == max == 7, std_dev 0.0, median 7. */
static void test_single_value(void)
{
    built b;
    const json *d = series_metric_dict(&b, (const i64[]){7}, 1);
    EXPECT(num_eq(get(d, "avg"), 7.0));
    EXPECT(num_eq(get(d, "min"), 7));
    EXPECT(num_eq(get(d, "max"), 7));
    EXPECT(num_eq(get(d, "std_dev"), 0.0));
    EXPECT(num_eq(get(d, "median"), 7));
    built_free(&b);
}

/* TestSeriesMetricDict::test_all_equal_values: series_metric_dict([3, 3, 3])
 * (min == max, which must not degenerate the log-spaced edges) has
 * min == max == 3, avg 3.0, std_dev 0.0. */
static void test_all_equal_values(void)
{
    built b;
    const json *d = series_metric_dict(&b, (const i64[]){3, 3, 3}, 3);
    EXPECT(num_eq(get(d, "min"), 3));
    EXPECT(num_eq(get(d, "max"), 3));
    EXPECT(num_eq(get(d, "avg"), 3.0));
    EXPECT(num_eq(get(d, "std_dev"), 0.0));
    built_free(&b);
}

/* ---- TestFromSnapshot ------------------------------------------------------------- */

/* TestFromSnapshot::test_empty_registry: _make_registry(0) gives a report
 * with 0 issued / completed / failed, duration_ns, qps and tps None, and the
 * five series {} (their count is 0). */
static void test_empty_registry(void)
{
    built b;
    default_report(&b, 0);
    REQUIRE(b.j);
    EXPECT(num_eq(field(&b, "n_samples_issued"), 0));
    EXPECT(num_eq(field(&b, "n_samples_completed"), 0));
    EXPECT(num_eq(field(&b, "n_samples_failed"), 0));
    EXPECT(is_none(field(&b, "duration_ns")));
    EXPECT(is_none(field(&b, "qps")));
    EXPECT(is_none(field(&b, "tps")));
    EXPECT(is_empty_dict(field(&b, "ttft")));
    EXPECT(is_empty_dict(field(&b, "latency")));
    EXPECT(is_empty_dict(field(&b, "input_sequence_lengths")));
    EXPECT(is_empty_dict(field(&b, "output_sequence_lengths")));
    EXPECT(is_empty_dict(field(&b, "tpot")));
    built_free(&b);
}

/* TestFromSnapshot::test_with_metrics (not in §16's list; it applies):
 * _make_registry(50), native view: 50 issued and completed, duration 10 s,
 * qps 5.0; ttft has min (> 0), percentiles and histogram, latency's min > 0;
 * isl's rollups are those of 50..99 and osl's of 100..149 (total, min, max,
 * median, avg, std_dev sqrt(212.5)), the two have the same keys but their own
 * percentiles and bucket edges, 50 in each histogram; tpot {} (nothing
 * recorded); tps not None. */
static void test_with_metrics(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 50));
    built b;
    build_report(&b, &r, AGG_COMPLETE, 0, false);
    REQUIRE(b.j);
    EXPECT(num_eq(field(&b, "n_samples_issued"), 50));
    EXPECT(num_eq(field(&b, "n_samples_completed"), 50));
    EXPECT(num_eq(field(&b, "duration_ns"), 10000000000.0));
    EXPECT(approx(field(&b, "qps"), 5.0));

    const json *ttft = field(&b, "ttft");
    EXPECT(get(ttft, "min") && get(ttft, "percentiles") && get(ttft, "histogram"));
    EXPECT(is_num(get(ttft, "min")) && num(get(ttft, "min")) > 0);
    const json *lat_min = get(field(&b, "latency"), "min");
    EXPECT(is_num(lat_min) && num(lat_min) > 0);

    const json *isl = field(&b, "input_sequence_lengths"), *osl = field(&b, "output_sequence_lengths");
    EXPECT(num_eq(get(isl, "total"), 3725));   /* sum(range(50, 100)) */
    EXPECT(num_eq(get(isl, "min"), 50));
    EXPECT(num_eq(get(isl, "max"), 99));
    EXPECT(num_eq(get(isl, "median"), 74.0));
    EXPECT(num_eq(get(isl, "avg"), 74.5));
    EXPECT(approx(get(isl, "std_dev"), sqrt(212.5)));
    EXPECT(num_eq(get(osl, "total"), 6225));   /* sum(range(100, 150)) */
    EXPECT(num_eq(get(osl, "min"), 100));
    EXPECT(num_eq(get(osl, "max"), 149));
    EXPECT(num_eq(get(osl, "median"), 124.0));
    EXPECT(num_eq(get(osl, "avg"), 124.5));
    EXPECT(approx(get(osl, "std_dev"), sqrt(212.5)));

    EXPECT(same_keys(isl, osl));
    EXPECT(get(isl, "percentiles") && !same(get(isl, "percentiles"), get(osl, "percentiles")));
    const json *ib = get(get(isl, "histogram"), "buckets"), *ob = get(get(osl, "histogram"), "buckets");
    EXPECT(ib && !same(ib, ob));
    const json *hists[2] = {get(get(isl, "histogram"), "counts"), get(get(osl, "histogram"), "counts")};
    for (int h = 0; h < 2; h++) {
        double sum = 0;
        for (iz k = 0; json_is(hists[h], JSON_ARR) && k < hists[h]->u.arr.n; k++)
            sum += num(&hists[h]->u.arr.items[k]);
        EXPECT(sum == 50);
    }
    EXPECT(is_empty_dict(field(&b, "tpot")));
    EXPECT(field(&b, "tps") && !is_none(field(&b, "tps")));
    built_free(&b);
}

/* TestFromSnapshot::test_run_config_keyword_only_passthrough (not in §16's
 * list; it applies): run_config is None unless the caller supplies it, and
 * then it is carried verbatim. Report.run_config is read back from
 * result_summary.json, which serializes it. */
static void test_run_config_keyword_only_passthrough(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 5));
    built b;
    built_init(&b);
    REQUIRE(snapshot(&b, &r, AGG_COMPLETE, 0));
    str snap = buf_view(&b.snap);

    built none;
    built_init(&none);
    agg_report_opts o = {.legacy_loadgen_qps = true};
    build_text(&none, snap, &o);
    EXPECT(is_none(field(&none, "run_config")));
    built_free(&none);

    const json *run_config = lit(&b, "{\"load_pattern\": {\"type\": \"poisson\", \"target_qps\": 14.75},"
                                     " \"warmup\": {\"enabled\": false, \"warmup_random_seed\": 42},"
                                     " \"scheduler_random_seed\": 42, \"dataloader_random_seed\": 42}");
    REQUIRE(run_config);
    o.run_config = run_config;
    build_text(&b, snap, &o);
    EXPECT(same(field(&b, "run_config"), run_config));
    built_free(&b);
}

/* TestFromSnapshot::test_failed_uses_tracked_counter: with 3 total and 1
 * tracked failure (an ERROR for an untracked sample counts only in the
 * total), n_samples_failed is 1. */
static void test_failed_uses_tracked_counter(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 10));
    r.counter[AGG_TOTAL_FAILED] += 3;
    r.counter[AGG_TRACKED_FAILED] += 1;
    built b;
    build_report(&b, &r, AGG_COMPLETE, 0, true);
    EXPECT(num_eq(field(&b, "n_samples_failed"), 1));
    built_free(&b);
}

/* TestFromSnapshot::test_finish_reason_counts_include_zeros: one stop and one
 * length give finish_reason_counts {stop: 1, length: 1, tool_calls: 0,
 * content_filter: 0, function_call: 0, other: 0}, both on the Report and in
 * to_json (in tally the two are the one serialized dict). */
static void test_finish_reason_counts_include_zeros(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 2));
    r.counter[AGG_FR_STOP] += 1;
    r.counter[AGG_FR_LENGTH] += 1;
    built b;
    build_report(&b, &r, AGG_COMPLETE, 0, true);
    const json *want = lit(&b, "{\"stop\": 1, \"length\": 1, \"tool_calls\": 0, \"content_filter\": 0,"
                               " \"function_call\": 0, \"other\": 0}");
    EXPECT(want && same(field(&b, "finish_reason_counts"), want));
    built_free(&b);
}

/* TestFromSnapshot::test_complete_flag_true_when_state_complete_and_no_pending */
static void test_complete_flag_true_when_state_complete_and_no_pending(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 5));
    built b;
    build_report(&b, &r, AGG_COMPLETE, 0, true);
    EXPECT(is_bool(field(&b, "complete"), true));
    built_free(&b);
}

/* TestFromSnapshot::test_complete_flag_false_when_drain_timeout: COMPLETE
 * with 2 pending tasks (the drain timed out) is complete=False. */
static void test_complete_flag_false_when_drain_timeout(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 5));
    built b;
    build_report(&b, &r, AGG_COMPLETE, 2, true);
    EXPECT(is_bool(field(&b, "complete"), false));
    built_free(&b);
}

/* TestFromSnapshot::test_complete_flag_false_when_state_live: a LIVE
 * snapshot with nothing pending is complete=False. */
static void test_complete_flag_false_when_state_live(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 5));
    built b;
    build_report(&b, &r, AGG_LIVE, 0, true);
    EXPECT(is_bool(field(&b, "complete"), false));
    built_free(&b);
}

/* ---- TestReportDisplayAndSerialize -------------------------------------------------- */

/* TestReportDisplayAndSerialize::test_display_summary: the summary display
 * (_make_registry(10)) has "Summary", "QPS:", "TPS:" and "End of Summary".
 * tally writes report.txt, upstream's full display, which has no End of
 * Summary line, and its summary block is the head of that text. So the last
 * assertion becomes: the block ends with the TPS line, where upstream's
 * summary_only display writes "End of Summary" (the accuracy lines between
 * them are not in tally). */
static void test_display_summary(void)
{
    built b;
    default_report(&b, 10);
    REQUIRE(b.rc == ERR_OK);
    EXPECT(has(&b.head, "Summary"));
    EXPECT(has(&b.head, "QPS:"));
    EXPECT(has(&b.head, "TPS:"));
    str h = buf_view(&b.head);
    iz last = h.len - 1;
    while (last > 0 && h.s[last - 1] != '\n')
        last--;
    EXPECT(h.len > 0 && h.s[h.len - 1] == '\n' && test_starts(str_cut(h, last, h.len), "TPS: "));
    built_free(&b);
}

/* TestReportDisplayAndSerialize::test_display_tps_na_when_unmeasured: with no
 * duration and no OSL (_make_registry(0)) the summary has "TPS: N/A". */
static void test_display_tps_na_when_unmeasured(void)
{
    built b;
    default_report(&b, 0);
    EXPECT(has(&b.head, "TPS: N/A"));
    built_free(&b);
}

/* TestReportDisplayAndSerialize::test_display_full: the full display
 * (_make_registry(10)) has "Latency Breakdowns", "TTFT", "Histogram" and
 * "Percentiles": report.txt is that display. */
static void test_display_full(void)
{
    built b;
    default_report(&b, 10);
    EXPECT(has(&b.text, "Latency Breakdowns"));
    EXPECT(has(&b.text, "TTFT"));
    EXPECT(has(&b.text, "Histogram"));
    EXPECT(has(&b.text, "Percentiles"));
    built_free(&b);
}

/* TestReportDisplayAndSerialize::test_to_json: to_json of _make_registry(5)
 * has n_samples_completed 5 and a "ttft" key. */
static void test_to_json(void)
{
    built b;
    default_report(&b, 5);
    EXPECT(num_eq(field(&b, "n_samples_completed"), 5));
    EXPECT(field(&b, "ttft") != NULL);
    built_free(&b);
}

/* TestReportDisplayAndSerialize::test_to_json_serializes_qps_and_tps (not in
 * §16's list; it applies): to_json of _make_registry(50) has qps 5.0 (50 /
 * 10 s), tps equal to Report.tps and > 0. Report.tps is not reachable from C
 * but through display, which prints it with 2 decimals: tps must be
 * 6225 / 10 s, and the TPS line must say so. */
static void test_to_json_serializes_qps_and_tps(void)
{
    built b;
    default_report(&b, 50);
    EXPECT(approx(field(&b, "qps"), 5.0));
    EXPECT(approx(field(&b, "tps"), 622.5));
    EXPECT(has(&b.head, "TPS: 622.50\n"));
    EXPECT(is_num(field(&b, "tps")) && num(field(&b, "tps")) > 0);
    built_free(&b);
}

/* TestReportDisplayAndSerialize::test_to_json_qps_tps_null_without_duration:
 * with no duration (_make_registry(0)) qps and tps are null, not omitted. */
static void test_to_json_qps_tps_null_without_duration(void)
{
    built b;
    default_report(&b, 0);
    EXPECT(is_none(field(&b, "qps")));
    EXPECT(is_none(field(&b, "tps")));
    built_free(&b);
}

/* TestReportDisplayAndSerialize::test_to_json_and_display_carry_run_config:
 * the run_config passed in is to_json's run_config; the summary display has
 * a line with "Run config:" and one with "load_pattern:" and "poisson"; with
 * no run_config, to_json has run_config null. */
static void test_to_json_and_display_carry_run_config(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 5));
    built b;
    built_init(&b);
    REQUIRE(snapshot(&b, &r, AGG_COMPLETE, 0));
    const json *run_config = lit(&b, "{\"load_pattern\": {\"type\": \"poisson\", \"target_qps\": 14.75},"
                                     " \"scheduler_random_seed\": 42, \"dataloader_random_seed\": 42}");
    REQUIRE(run_config);
    agg_report_opts o = {.legacy_loadgen_qps = true, .run_config = run_config};
    build_text(&b, buf_view(&b.snap), &o);
    EXPECT(same(field(&b, "run_config"), run_config));
    EXPECT(any_line(&b.head, "Run config:", NULL));
    EXPECT(any_line(&b.head, "load_pattern:", "poisson"));

    built none;
    built_init(&none);
    o.run_config = NULL;
    build_text(&none, buf_view(&b.snap), &o);
    EXPECT(is_none(field(&none, "run_config")));
    built_free(&none);
    built_free(&b);
}

/* TestReportDisplayAndSerialize::test_display_no_started_at (not in §16's
 * list; it applies): a Report with test_started_at=0 (version "test", no
 * samples, duration None, complete) displays no "Test started at". tally
 * builds no Report by hand: that Report is what the snapshot {"state":
 * "complete", "n_pending_tasks": 0, "metrics": []} gives with version
 * "test" (from_snapshot always sets test_started_at 0), as its JSON shows. */
static void test_display_no_started_at(void)
{
    built b;
    built_init(&b);
    agg_report_opts o = {.version = "test"};
    build_text(&b, S("{\"state\": \"complete\", \"n_pending_tasks\": 0, \"metrics\": []}"), &o);
    REQUIRE(b.j);
    EXPECT(num_eq(field(&b, "test_started_at"), 0));
    EXPECT(is_bool(field(&b, "complete"), true));
    EXPECT(!has(&b.head, "Test started at"));
    built_free(&b);
}

/* TestReportDisplayAndSerialize::test_display_warns_when_incomplete: a
 * Report with state "complete" but complete=False (the drain timed out) has
 * "WARNING" or "incomplete" (any case) in its summary display. Its Report
 * (10 issued, 10 completed, 1 s, version "test") comes from a snapshot with
 * those counters and a pending task; the JSON confirms state and flag. */
static void test_display_warns_when_incomplete(void)
{
    built b;
    built_init(&b);
    agg_report_opts o = {.version = "test"};
    build_text(&b, S("{\"state\": \"complete\", \"n_pending_tasks\": 1, \"metrics\": ["
                     "{\"type\": \"counter\", \"name\": \"tracked_samples_issued\", \"value\": 10},"
                     "{\"type\": \"counter\", \"name\": \"tracked_samples_completed\", \"value\": 10},"
                     "{\"type\": \"counter\", \"name\": \"tracked_duration_ns\", \"value\": 1000000000}]}"),
               &o);
    REQUIRE(b.j);
    EXPECT(is_bool(field(&b, "complete"), false));
    EXPECT(field(&b, "state") && str_eq(field(&b, "state")->u.s, S("complete")));
    EXPECT(has(&b.head, "WARNING") || has_in(buf_view(&b.head), "incomplete", true));
    built_free(&b);
}

/* TestReportDisplayAndSerialize::test_display_warns_when_interrupted: a
 * Report with state "interrupted" has "interrupted" (any case) and
 * "SIGTERM" or "signal" (any case) in its summary display. Its Report (10
 * issued, 5 completed, 1 s) comes from an interrupted snapshot. */
static void test_display_warns_when_interrupted(void)
{
    built b;
    built_init(&b);
    agg_report_opts o = {.version = "test"};
    build_text(&b, S("{\"state\": \"interrupted\", \"n_pending_tasks\": 0, \"metrics\": ["
                     "{\"type\": \"counter\", \"name\": \"tracked_samples_issued\", \"value\": 10},"
                     "{\"type\": \"counter\", \"name\": \"tracked_samples_completed\", \"value\": 5},"
                     "{\"type\": \"counter\", \"name\": \"tracked_duration_ns\", \"value\": 1000000000}]}"),
               &o);
    REQUIRE(b.j);
    EXPECT(is_bool(field(&b, "complete"), false));
    EXPECT(has_in(buf_view(&b.head), "interrupted", true));
    EXPECT(has(&b.head, "SIGTERM") || has_in(buf_view(&b.head), "signal", true));
    built_free(&b);
}

/* ---- TestFromSnapshotDict --------------------------------------------------------- */

/* TestFromSnapshotDict::test_minimal_dict_yields_empty_report: a dict with
 * no metrics gives 0 issued / completed / failed, duration_ns None (no
 * tracked_duration_ns), state "complete", complete True, ttft {}. */
static void test_minimal_dict_yields_empty_report(void)
{
    built b;
    from_dict(&b, "{\"counter\": 1, \"timestamp_ns\": 0, \"state\": \"complete\", \"n_pending_tasks\": 0,"
                  " \"metrics\": []}");
    REQUIRE(b.j);
    EXPECT(num_eq(field(&b, "n_samples_issued"), 0));
    EXPECT(num_eq(field(&b, "n_samples_completed"), 0));
    EXPECT(num_eq(field(&b, "n_samples_failed"), 0));
    EXPECT(is_none(field(&b, "duration_ns")));
    EXPECT(same(field(&b, "state"), lit(&b, "\"complete\"")));
    EXPECT(is_bool(field(&b, "complete"), true));
    EXPECT(is_empty_dict(field(&b, "ttft")));
    built_free(&b);
}

/* TestFromSnapshotDict::test_empty_dict_defaults_to_interrupted_incomplete:
 * {} gives state "interrupted", complete False, 0 issued, ttft {}. */
static void test_empty_dict_defaults_to_interrupted_incomplete(void)
{
    built b;
    from_dict(&b, "{}");
    REQUIRE(b.j);
    EXPECT(same(field(&b, "state"), lit(&b, "\"interrupted\"")));
    EXPECT(is_bool(field(&b, "complete"), false));
    EXPECT(num_eq(field(&b, "n_samples_issued"), 0));
    EXPECT(is_empty_dict(field(&b, "ttft")));
    built_free(&b);
}

/* TestFromSnapshotDict::test_interrupted_state_round_trips_to_report: an
 * interrupted dict with 5 pending and counters 100 issued / 80 completed
 * gives state "interrupted", complete False, 100 and 80. */
static void test_interrupted_state_round_trips_to_report(void)
{
    built b;
    from_dict(&b, "{\"counter\": 1, \"timestamp_ns\": 0, \"state\": \"interrupted\", \"n_pending_tasks\": 5,"
                  " \"metrics\": ["
                  "{\"type\": \"counter\", \"name\": \"tracked_samples_issued\", \"value\": 100},"
                  "{\"type\": \"counter\", \"name\": \"tracked_samples_completed\", \"value\": 80}]}");
    REQUIRE(b.j);
    EXPECT(same(field(&b, "state"), lit(&b, "\"interrupted\"")));
    EXPECT(is_bool(field(&b, "complete"), false));
    EXPECT(num_eq(field(&b, "n_samples_issued"), 100));
    EXPECT(num_eq(field(&b, "n_samples_completed"), 80));
    built_free(&b);
}

/* TestFromSnapshotDict::test_missing_metric_type_is_skipped_not_crashed: a
 * metric without "type" is skipped, and the counter after it still counts:
 * n_samples_issued 5. */
static void test_missing_metric_type_is_skipped_not_crashed(void)
{
    built b;
    from_dict(&b, "{\"state\": \"complete\", \"n_pending_tasks\": 0, \"metrics\": ["
                  "{\"name\": \"orphan_no_type\", \"value\": 99},"
                  "{\"type\": \"counter\", \"name\": \"tracked_samples_issued\", \"value\": 5}]}");
    EXPECT(b.rc == ERR_OK);
    EXPECT(num_eq(field(&b, "n_samples_issued"), 5));
    built_free(&b);
}

/* TestFromSnapshotDict::test_display_handles_scrubbed_nan_percentiles: a
 * ttft series whose percentiles were scrubbed to None displays (full) without
 * failing, with "TTFT" and "N/A" in it. upstream's "N/A" is met by the "TPS:
 * N/A" line too (no osl here), so this also checks that the N/A is the TTFT
 * section's: its median and its three percentile lines, as upstream's
 * display writes them for this dict. */
static void test_display_handles_scrubbed_nan_percentiles(void)
{
    built b;
    from_dict(&b, "{\"counter\": 1, \"timestamp_ns\": 0, \"state\": \"complete\", \"n_pending_tasks\": 0,"
                  " \"metrics\": ["
                  "{\"type\": \"counter\", \"name\": \"tracked_samples_issued\", \"value\": 5},"
                  "{\"type\": \"counter\", \"name\": \"tracked_samples_completed\", \"value\": 5},"
                  "{\"type\": \"counter\", \"name\": \"tracked_duration_ns\", \"value\": 1000000000},"
                  "{\"type\": \"series\", \"name\": \"ttft_ns\", \"count\": 5, \"total\": 5000000,"
                  " \"min\": 1000000, \"max\": 1500000, \"sum_sq\": 5005000000000,"
                  " \"percentiles\": {\"50.0\": null, \"90.0\": null, \"99.0\": null},"
                  " \"histogram\": [[[1000000.0, 1500000.0], 5]]}]}");
    REQUIRE(b.rc == ERR_OK);
    EXPECT(has(&b.text, "TTFT"));
    EXPECT(has(&b.text, "N/A"));
    str ttft = section(&b, "TTFT");
    EXPECT(has_in(ttft, "\n  Median: N/A ms\n", false));
    EXPECT(has_in(ttft, "\n    50.0: N/A ms\n", false));
    EXPECT(has_in(ttft, "\n    90.0: N/A ms\n", false));
    EXPECT(has_in(ttft, "\n    99.0: N/A ms\n", false));
    built_free(&b);
}

/* ---- TestLoadgenQpsMetrics ---------------------------------------------------------- */

/* TestLoadgenQpsMetrics::test_default_uses_loadgen_window: with the legacy
 * window of 8 s set (and the default legacy view), the report records it and
 * qps = (50 - 1) / 8, tps = osl total / 8 (total 6225 = sum(100..149):
 * upstream reads it back from the report, so this checks that too). */
static void test_default_uses_loadgen_window(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 50));
    set_loadgen_window(&r, 8000000000);
    built b;
    build_report(&b, &r, AGG_COMPLETE, 0, true);
    EXPECT(num_eq(field(&b, "legacy_loadgen_window_duration_ns"), 8000000000.0));
    EXPECT(approx(field(&b, "qps"), 49 / 8.0));
    EXPECT(num_eq(get(field(&b, "output_sequence_lengths"), "total"), 6225));
    EXPECT(approx(field(&b, "tps"), 6225 / 8.0));
    built_free(&b);
}

/* TestLoadgenQpsMetrics::test_disabled_uses_native: the window set but the
 * legacy view off: the window is not recorded (None), qps = 50 / 10 s, tps =
 * osl total / 10 s. */
static void test_disabled_uses_native(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 50));
    set_loadgen_window(&r, 8000000000);
    built b;
    build_report(&b, &r, AGG_COMPLETE, 0, false);
    EXPECT(is_none(field(&b, "legacy_loadgen_window_duration_ns")));
    EXPECT(approx(field(&b, "qps"), 5.0));
    EXPECT(num_eq(get(field(&b, "output_sequence_lengths"), "total"), 6225));
    EXPECT(approx(field(&b, "tps"), 6225 / 10.0));
    built_free(&b);
}

/* TestLoadgenQpsMetrics::test_falls_back_to_native_when_window_unavailable:
 * the legacy view with no window counter falls back to the native one
 * (window None, qps 5.0, tps total / 10 s) rather than to None. */
static void test_falls_back_to_native_when_window_unavailable(void)
{
    built b;
    default_report(&b, 50);
    EXPECT(is_none(field(&b, "legacy_loadgen_window_duration_ns")));
    EXPECT(approx(field(&b, "qps"), 5.0));
    EXPECT(num_eq(get(field(&b, "output_sequence_lengths"), "total"), 6225));
    EXPECT(approx(field(&b, "tps"), 6225 / 10.0));
    built_free(&b);
}

/* TestLoadgenQpsMetrics::test_loadgen_qps_falls_back_when_completed_lt_2: one
 * completion and a 1 s window: QPS and TPS both take the native 10 s window
 * (qps 0.1, tps = osl total / 10 s, total 100) and the window is None. */
static void test_loadgen_qps_falls_back_when_completed_lt_2(void)
{
    agg_registry r;
    REQUIRE(make_registry(&r, 1));
    set_loadgen_window(&r, 1000000000);
    built b;
    build_report(&b, &r, AGG_COMPLETE, 0, true);
    EXPECT(approx(field(&b, "qps"), 0.1));
    EXPECT(num_eq(get(field(&b, "output_sequence_lengths"), "total"), 100));
    EXPECT(approx(field(&b, "tps"), 100 / 10.0));
    EXPECT(is_none(field(&b, "legacy_loadgen_window_duration_ns")));
    built_free(&b);
}

/* ---- test_scrub_nonfinite_round_trip_yields_none ---------------------------------- */

/* test_scrub_nonfinite_round_trip_yields_none: a snapshot whose ttft_ns
 * series (count 1, totals 0.0, no histogram) has percentiles NaN, +Inf and
 * -Inf writes them as null, and the text is strict JSON (json.dumps(...,
 * allow_nan=False) passes: json_parse takes no NaN or Infinity literal).
 * tally's stat always has the twelve DEFAULT_PERCENTILES rather than
 * upstream's three, so all twelve are non-finite here (NaN, +Inf, -Inf in
 * turn, the three of upstream at their keys) and all must be null. tally's
 * snapshot also always has its fifteen counters before the series, where
 * upstream's has only the series (metrics[0]). Upstream's last line checks
 * Python, not the code: it has no port. */
static void test_scrub_nonfinite_round_trip_yields_none(void)
{
    agg_snapshot *s = calloc(1, sizeof *s);
    REQUIRE(s);
    s->counter = 1;
    s->state = AGG_COMPLETE;
    s->has[AGG_S_TTFT] = true;
    agg_stat *st = &s->stats[AGG_S_TTFT];
    st->count = 1;
    st->is_float = true;   /* total, min, max, sum_sq 0.0 */
    static const char *const keys[3] = {"50.0", "90.0", "99.0"};
    static const double nonfinite[3] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < AGG_NPCT; k++) {
        st->pct[k] = nonfinite[k % 3];
        for (int j = 0; j < 3; j++)   /* upstream's three at their keys */
            if (!strcmp(agg_pct_keys[k], keys[j]))
                st->pct[k] = nonfinite[j];
    }
    buf text = {0};
    agg_snapshot_json(s, &text);
    free(s);

    arena a;
    arena_init(&a, 0);
    err e = {0};
    const json *d = json_parse(&a, buf_view(&text), NULL, &e);
    EXPECT(d != NULL);
    const json *metrics = get(d, "metrics"), *ttft = NULL;
    for (iz k = 0; json_is(metrics, JSON_ARR) && k < metrics->u.arr.n; k++) {
        const json *name = get(&metrics->u.arr.items[k], "name");
        if (json_is(name, JSON_STR) && str_eq(name->u.s, S("ttft_ns")))
            ttft = &metrics->u.arr.items[k];
    }
    const json *perc = get(ttft, "percentiles");
    EXPECT(is_none(get(perc, "50.0")));
    EXPECT(is_none(get(perc, "90.0")));
    EXPECT(is_none(get(perc, "99.0")));
    EXPECT(json_is(perc, JSON_OBJ) && perc->u.obj.n == AGG_NPCT);
    for (iz k = 0; json_is(perc, JSON_OBJ) && k < perc->u.obj.n; k++)
        EXPECT(is_none(&perc->u.obj.members[k].val));
    arena_fini(&a);
    buf_free(&text);
}

int main(void)
{
    RUN(test_empty_returns_empty);
    RUN(test_keys_match_perf_block);
    RUN(test_basic_stats);
    RUN(test_single_value);
    RUN(test_all_equal_values);
    RUN(test_empty_registry);
    RUN(test_with_metrics);
    RUN(test_run_config_keyword_only_passthrough);
    RUN(test_failed_uses_tracked_counter);
    RUN(test_finish_reason_counts_include_zeros);
    RUN(test_complete_flag_true_when_state_complete_and_no_pending);
    RUN(test_complete_flag_false_when_drain_timeout);
    RUN(test_complete_flag_false_when_state_live);
    RUN(test_display_summary);
    RUN(test_display_tps_na_when_unmeasured);
    RUN(test_display_full);
    RUN(test_to_json);
    RUN(test_to_json_serializes_qps_and_tps);
    RUN(test_to_json_qps_tps_null_without_duration);
    RUN(test_to_json_and_display_carry_run_config);
    RUN(test_display_no_started_at);
    RUN(test_display_warns_when_incomplete);
    RUN(test_display_warns_when_interrupted);
    RUN(test_minimal_dict_yields_empty_report);
    RUN(test_empty_dict_defaults_to_interrupted_incomplete);
    RUN(test_interrupted_state_round_trips_to_report);
    RUN(test_missing_metric_type_is_skipped_not_crashed);
    RUN(test_display_handles_scrubbed_nan_percentiles);
    RUN(test_default_uses_loadgen_window);
    RUN(test_disabled_uses_native);
    RUN(test_falls_back_to_native_when_window_unavailable);
    RUN(test_loadgen_qps_falls_back_when_completed_lt_2);
    RUN(test_scrub_nonfinite_round_trip_yields_none);
    return test_done();
}
