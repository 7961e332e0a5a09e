/* test_agg.c - the aggregator (src/agg/agg.c, table.c, registry.c), ported
 * from upstream's unit tests (../shared/docs/upstream-spec.md §13.1
 * test_aggregator.py, §13.2 test_aggregator_error_handler.py, §13.6
 * test_metrics_table.py): the same events, the same assertions. Events are
 * written as upstream's JSONL lines and decoded with agg_event_decode; token
 * counts come from the stand-in of upstream's conftest (MockBatchTokenizer:
 * whitespace words) run as the queue's work, so the values are upstream's.
 * The aggregator is streaming unless a test says otherwise, with 10
 * histogram buckets, as upstream's make_aggregator builds it. */
#include <math.h>
#include "test.h"
#include "../src/agg/agg.h"
#include "../src/agg/inputs.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/json/pyfmt.h"

/* ---- MockBatchTokenizer ---------------------------------------------------- */

static i64 words(str s)
{
    i64 n = 0;
    bool in = false;
    for (iz k = 0; k < s.len; k++) {
        u8 c = s.s[k];
        bool ws = c == ' ' || (c >= '\t' && c <= '\r');
        n += !ws && !in;
        in = !ws;
    }
    return n;
}

/* str(v) of a message value, as Python prints it (only its whitespace
 * matters here: json.dumps's separators are Python's repr's). */
static void py_str(buf *b, const json *v)
{
    if (v->type == JSON_STR) {
        buf_str(b, v->u.s);
        return;
    }
    pyfmt_dumps_opts o = {0};
    err e = {0};
    pyfmt_json_dumps(b, v, &o, NULL, &e);
}

static void *mock_new(void *ctx)
{
    (void)ctx;
    arena *a = malloc(sizeof *a);
    arena_init(a, 0);
    return a;
}

static void mock_free(void *ctx, void *p)
{
    (void)ctx;
    arena_fini(p);
    free(p);
}

static bool mock_fail;   /* every count fails, as a broken tokenizer */
static int  mock_sleep_ms;

static void mock_work(void *ctx, void *scratch, const pool_item *it, double deadline, pool_result *r)
{
    (void)ctx;
    arena *a = scratch;
    arena_mark m = arena_save(a);
    pool_result_clear(r);
    if (mock_sleep_ms) {
        test_sleep_ms(mock_sleep_ms);
        if (deadline > 0 && os_now() >= deadline) {
            arena_restore(a, m);
            return;   /* pending */
        }
    }
    r->state = POOL_ERROR;
    err e = {0};
    json *v = json_parse(a, it->payload, NULL, &e);
    shapes_item si;
    if (mock_fail || !v || agg_input(a, v, SHAPES_AUTO, it->op, &si, &e) != SHAPES_COUNT) {
        snprintf(r->msg, sizeof r->msg, "mock tokenizer failed");
        arena_restore(a, m);
        return;
    }
    buf b = {0};
    const count_input *in = &si.in;
    switch (in->kind) {
    case COUNT_IDS: r->n = in->token_ids->u.arr.n; break;
    case COUNT_TEXT: r->n = words(in->text); break;
    case COUNT_MESSAGE:
        if (in->content && in->content->type == JSON_STR)
            buf_str(&b, in->content->u.s);
        buf_byte(&b, ' ');
        if (in->reasoning && in->reasoning->type == JSON_STR)
            buf_str(&b, in->reasoning->u.s);
        buf_byte(&b, ' ');
        if (in->tool_calls) {
            pyfmt_dumps_opts o = {.msgspec = true};
            pyfmt_json_dumps(&b, in->tool_calls, &o, NULL, &e);
        }
        r->n = words(buf_view(&b));
        break;
    case COUNT_PROMPT:
        for (iz k = 0; k < in->messages->u.arr.n; k++) {
            const json *msg = &in->messages->u.arr.items[k];
            static const char *const keys[3] = {"content", "reasoning_content", "tool_calls"};
            for (int j = 0; j < 3; j++) {
                const json *x = json_get(msg, str_cstr(keys[j]));
                if (x && json_truthy(x)) {
                    buf_byte(&b, ' ');
                    py_str(&b, x);
                }
            }
        }
        for (iz k = 0; in->tools && k < in->tools->u.arr.n; k++) {
            buf_byte(&b, ' ');
            py_str(&b, &in->tools->u.arr.items[k]);
        }
        r->n = words(buf_view(&b));
        break;
    }
    r->state = POOL_DONE;
    r->kind = (u8)in->kind;
    buf_free(&b);
    arena_restore(a, m);
}

static const dq_ops mock_ops = {.scratch_new = mock_new, .scratch_free = mock_free, .work = mock_work};

/* ---- a test's aggregator --------------------------------------------------- */

typedef struct fixture {
    agg  *g;
    arena a;
    int   errors_logged;
    char  last_warning[600];
} fixture;

static void on_warn(void *ctx, const char *msg)
{
    fixture *f = ctx;
    f->errors_logged++;
    snprintf(f->last_warning, sizeof f->last_warning, "%s", msg);
}

static void setup_on(fixture *f, bool streaming, bool tokenizer, int workers)
{
    memset(f, 0, sizeof *f);
    arena_init(&f->a, 0);
    agg_opts o = {.streaming = streaming, .early_stopping = true, .sig_figs = 3, .n_buckets = 10,
                  .ops = tokenizer ? &mock_ops : NULL, .workers = workers, .warn = on_warn, .warn_ctx = f};
    err e = {0};
    f->g = agg_new(&o, &e);
}

/* Counting in this process: each count is made when it is enqueued. */
static void setup(fixture *f, bool streaming, bool tokenizer)
{
    setup_on(f, streaming, tokenizer, 0);
}

static void teardown(fixture *f)
{
    agg_free(f->g);
    arena_fini(&f->a);
}

/* Processes JSONL event lines (separated by newlines). */
static void process(fixture *f, const char *lines)
{
    const char *p = lines;
    while (*p) {
        const char *nl = strchr(p, '\n');
        str line = str_from(p, nl ? nl - p : (iz)strlen(p));
        p = nl ? nl + 1 : p + line.len;
        if (!line.len)
            continue;
        agg_event ev;
        agg_decode_error de;
        if (agg_event_decode(&f->a, line, 0, &ev, &de) != ERR_OK) {
            printf("#   test event does not decode: %.*s (%s: %s)\n", (int)line.len, (const char *)line.s, de.cls,
                   de.msg);
            test_cur_failed = 1;
            continue;
        }
        EXPECT_EQ(agg_process(f->g, &ev), ERR_OK);
    }
}

/* The drain (as drain_all or ENDED): records the token counts. */
static agg_snapshot *drain(fixture *f)
{
    static agg_snapshot snap;
    err e = {0};
    EXPECT_EQ(agg_finish(f->g, false, 0, 1, &snap, &e), ERR_OK);
    return &snap;
}

static i64 series_count(fixture *f, agg_series_id s)
{
    agg_series *x = agg_registry_of(f->g)->series[s];
    return x ? agg_series_count(x) : 0;
}

/* total of a series from a fresh (HDR) snapshot, as a double */
static double series_total(fixture *f, agg_series_id s)
{
    agg_series *x = agg_registry_of(f->g)->series[s];
    if (!x)
        return 0;
    static agg_stat st;
    err e = {0};
    agg_series_stat(x, false, &st, &e);
    return st.is_float ? st.total_f : (double)st.total_i;
}

static agg_i128 counter(fixture *f, agg_counter c)
{
    return agg_registry_of(f->g)->counter[c];
}

static bool has_row(fixture *f, const char *uuid)
{
    return agg_table_get(agg_table_of(f->g), str_cstr(uuid)) != NULL;
}

#define EV(t, ts) "{\"event_type\":\"" t "\",\"timestamp_ns\":" #ts "}\n"
#define SEV(t, uuid, ts) "{\"event_type\":\"" t "\",\"timestamp_ns\":" #ts ",\"sample_uuid\":\"" uuid "\"}\n"
#define SEVD(t, uuid, ts, data) \
    "{\"event_type\":\"" t "\",\"timestamp_ns\":" #ts ",\"sample_uuid\":\"" uuid "\",\"data\":" data "}\n"
#define START EV("session.start_performance_tracking", 0)

/* ---- TestTrackingWindow ------------------------------------------------------ */

static void test_not_tracked_before_start(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, EV("session.started", 0) SEV("sample.issued", "s1", 100));
    EXPECT(!has_row(&f, "s1"));
    EXPECT_EQ(series_count(&f, AGG_S_TTFT), 0);
    EXPECT_EQ(series_count(&f, AGG_S_LATENCY), 0);
    teardown(&f);
}

static void test_tracked_after_start(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 100));
    EXPECT(has_row(&f, "s1"));
    teardown(&f);
}

static void test_not_tracked_after_stop(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START EV("session.stop_performance_tracking", 50) SEV("sample.issued", "s1", 100));
    EXPECT(!has_row(&f, "s1"));
    teardown(&f);
}

static void test_inflight_sample_continues_after_stop(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 100) EV("session.stop_performance_tracking", 200)
                SEV("sample.recv_first", "s1", 300) SEV("sample.complete", "s1", 500));
    EXPECT_EQ(series_total(&f, AGG_S_TTFT), 200);
    EXPECT_EQ(series_total(&f, AGG_S_LATENCY), 400);
    teardown(&f);
}

static void test_restart_tracking_window(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 100) EV("session.stop_performance_tracking", 200)
                SEV("sample.issued", "s2", 300) EV("session.start_performance_tracking", 400)
                SEV("sample.issued", "s3", 500) SEV("sample.complete", "s1", 600)
                SEV("sample.complete", "s3", 700));
    EXPECT(!has_row(&f, "s2"));
    EXPECT_EQ(series_count(&f, AGG_S_LATENCY), 2);
    teardown(&f);
}

static void test_tracked_block_durations(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 100) EV("session.stop_performance_tracking", 200)
                SEV("sample.complete", "s1", 700) EV("session.start_performance_tracking", 800)
                SEV("sample.issued", "s2", 900) SEV("sample.complete", "s2", 1000));
    EXPECT(agg_table_tracked_duration(agg_table_of(f.g)) == 900);   /* 700 + 200 */
    teardown(&f);
}

/* ---- TestTimingMetrics ------------------------------------------------------- */

static void test_ttft_and_sample_latency(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.recv_first", "s1", 2500)
                SEV("sample.complete", "s1", 5000));
    EXPECT_EQ(series_total(&f, AGG_S_TTFT), 1500);
    EXPECT_EQ(series_total(&f, AGG_S_LATENCY), 4000);
    teardown(&f);
}

static void test_chunk_deltas(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.recv_first", "s1", 2000)
                SEV("sample.recv_non_first", "s1", 3000) SEV("sample.recv_non_first", "s1", 4500)
                SEV("sample.complete", "s1", 5000));
    EXPECT_EQ(series_count(&f, AGG_S_CHUNK_DELTA), 2);
    EXPECT_EQ(series_total(&f, AGG_S_CHUNK_DELTA), 2500);
    teardown(&f);
}

static void test_non_streaming_latency_only(void)
{
    fixture f;
    setup(&f, false, true);
    process(&f, START SEV("sample.issued", "s1", 1000)
                SEVD("sample.complete", "s1", 3000, "[\"TextModelOutput\",\"hello world\",null,null]"));
    drain(&f);
    EXPECT_EQ(series_total(&f, AGG_S_LATENCY), 2000);
    EXPECT_EQ(series_total(&f, AGG_S_OSL), 2);
    EXPECT(agg_registry_of(f.g)->series[AGG_S_TTFT] == NULL);
    EXPECT(agg_registry_of(f.g)->series[AGG_S_CHUNK_DELTA] == NULL);
    EXPECT(agg_registry_of(f.g)->series[AGG_S_TPOT] == NULL);
    teardown(&f);
}

static void test_chunk_delta_not_emitted_without_last_recv(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 1000));
    agg_row *row = agg_table_get(agg_table_of(f.g), S("s1"));
    REQUIRE(row);
    EXPECT(!row->has_last_recv);
    teardown(&f);
}

/* ---- TestIsl ------------------------------------------------------------------ */

static void test_issued_with_token_ids_emits_isl_directly(void)
{
    fixture f;
    setup(&f, true, false);   /* no tokenizer */
    process(&f, START SEVD("sample.issued", "s1", 1000, "[\"PromptData\",null,[101,202,303,404,505]]"));
    EXPECT_EQ(series_total(&f, AGG_S_ISL), 5);
    teardown(&f);
}

static void test_issued_without_data_no_isl(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, START SEV("sample.issued", "s1", 1000));
    drain(&f);
    EXPECT_EQ(series_count(&f, AGG_S_ISL), 0);
    teardown(&f);
}

/* ---- TestEdgeCases ------------------------------------------------------------- */

static void test_untracked_sample_events_ignored(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.recv_first", "unknown", 2000) SEV("sample.complete", "unknown", 5000));
    EXPECT_EQ(series_count(&f, AGG_S_TTFT), 0);
    EXPECT_EQ(series_count(&f, AGG_S_LATENCY), 0);
    teardown(&f);
}

static void test_duplicate_started_logs_error_and_preserves_state(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, EV("session.started", 1000) EV("session.started", 5000) START SEV("sample.issued", "s1", 6000)
                SEV("sample.complete", "s1", 7000));
    EXPECT_EQ(f.errors_logged, 1);
    EXPECT(strstr(f.last_warning, "1000") && strstr(f.last_warning, "5000"));
    /* the first start stands: the duration runs from 1000 */
    EXPECT(counter(&f, AGG_TOTAL_DURATION) == 6000);
    teardown(&f);
}

static void test_complete_removes_row(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.complete", "s1", 5000));
    EXPECT(!has_row(&f, "s1"));
    EXPECT_EQ(agg_table_len(agg_table_of(f.g)), 0);
    teardown(&f);
}

static void test_session_ended_finalizes(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, EV("session.started", 0));
    EXPECT(!agg_ended(f.g));
    process(&f, EV("session.ended", 100));   /* in a later batch too */
    EXPECT(agg_ended(f.g));
    agg_snapshot *s = drain(&f);
    EXPECT_EQ(s->state, AGG_COMPLETE);
    EXPECT_EQ(s->n_pending, 0);
    EXPECT_EQ(s->counter, 1);
    teardown(&f);
}

static void test_events_after_ended_are_dropped(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 100) EV("session.ended", 200) SEV("sample.recv_first", "s1", 300));
    EXPECT_EQ(series_count(&f, AGG_S_TTFT), 0);
    teardown(&f);
}

static void test_empty_sample_uuid_ignored(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "", 1000));
    EXPECT_EQ(agg_table_len(agg_table_of(f.g)), 0);
    EXPECT(counter(&f, AGG_TOTAL_ISSUED) == 0);   /* not counted at all */
    teardown(&f);
}

static void test_multiple_samples_independent(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.issued", "s2", 1500)
                SEV("sample.recv_first", "s1", 2000) SEV("sample.recv_first", "s2", 3000)
                SEV("sample.complete", "s1", 4000) SEV("sample.complete", "s2", 5000));
    EXPECT_EQ(series_count(&f, AGG_S_TTFT), 2);
    EXPECT_EQ(series_total(&f, AGG_S_TTFT), 1000 + 1500);
    EXPECT_EQ(series_count(&f, AGG_S_LATENCY), 2);
    EXPECT_EQ(series_total(&f, AGG_S_LATENCY), 3000 + 3500);
    teardown(&f);
}

static void test_error_event_increments_total_failed(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START "{\"event_type\":\"error.generic\",\"timestamp_ns\":500,\"data\":[\"ErrorData\",\"test\",\"boom\"]}\n"
                SEV("sample.issued", "s1", 1000) SEV("sample.complete", "s1", 2000));
    EXPECT_EQ(series_total(&f, AGG_S_LATENCY), 1000);
    EXPECT(counter(&f, AGG_TOTAL_FAILED) == 1);
    teardown(&f);
}

/* ---- TestLoadgenWindowAggregation, TestCounterAccounting --------------------- */

static void test_loadgen_window_duration_emitted(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, EV("session.started", 0) EV("session.start_performance_tracking", 10)
                SEV("sample.issued", "s1", 100) SEV("sample.complete", "s1", 500) SEV("sample.issued", "s2", 200)
                SEV("sample.complete", "s2", 600) EV("session.stop_performance_tracking", 700));
    EXPECT(counter(&f, AGG_LEGACY_WINDOW) == 600 - 100);
    teardown(&f);
}

static void test_total_vs_tracked_counters(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, EV("session.started", 0) SEV("sample.issued", "warmup", 10) SEV("sample.complete", "warmup", 20)
                EV("session.start_performance_tracking", 30) SEV("sample.issued", "s1", 100)
                SEV("sample.complete", "s1", 200));
    EXPECT(counter(&f, AGG_TOTAL_ISSUED) == 2);
    EXPECT(counter(&f, AGG_TOTAL_COMPLETED) == 2);
    EXPECT(counter(&f, AGG_TRACKED_ISSUED) == 1);
    EXPECT(counter(&f, AGG_TRACKED_COMPLETED) == 1);
    teardown(&f);
}

static void test_finish_reason_counters_bucket_unknown_values(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 1)
                "{\"event_type\":\"sample.complete\",\"timestamp_ns\":2,\"sample_uuid\":\"s1\",\"finish_reason\":\"stop\"}\n"
                SEV("sample.issued", "s2", 3)
                "{\"event_type\":\"sample.complete\",\"timestamp_ns\":4,\"sample_uuid\":\"s2\",\"finish_reason\":\"weird\"}\n");
    EXPECT(counter(&f, AGG_FR_STOP) == 1);
    EXPECT(counter(&f, AGG_FR_OTHER) == 1);
    teardown(&f);
}

/* ---- TestAsyncTriggers ------------------------------------------------------------ */

static void test_isl_text_path_async(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, START SEVD("sample.issued", "s1", 1000, "[\"PromptData\",\"hello world foo bar\"]"));
    EXPECT_EQ(series_count(&f, AGG_S_ISL), 0);   /* queued until the drain */
    drain(&f);
    EXPECT_EQ(series_total(&f, AGG_S_ISL), 4);
    teardown(&f);
}

static void test_isl_structured_prompt_includes_reasoning_and_tools(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, START SEVD("sample.issued", "s1", 1000,
                           "[\"PromptData\",null,null,[{\"role\":\"user\",\"content\":\"hi there\"},"
                           "{\"role\":\"assistant\",\"content\":\"answer\",\"reasoning_content\":\"let me think\","
                           "\"tool_calls\":[{\"function\":{\"name\":\"lookup\"}}]}],"
                           "[{\"function\":{\"name\":\"lookup\"}}]]"));
    drain(&f);
    EXPECT_EQ(series_count(&f, AGG_S_ISL), 1);
    EXPECT(series_total(&f, AGG_S_ISL) > 5);
    teardown(&f);
}

static void test_osl_emitted_on_complete(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, START SEV("sample.issued", "s1", 1000)
                SEVD("sample.complete", "s1", 5000, "[\"TextModelOutput\",\"the quick brown fox\",null,null]"));
    drain(&f);
    EXPECT_EQ(series_total(&f, AGG_S_LATENCY), 4000);
    EXPECT_EQ(series_total(&f, AGG_S_OSL), 4);
    teardown(&f);
}

static void test_tpot_emitted_for_streaming(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.recv_first", "s1", 2000)
                SEVD("sample.complete", "s1", 5000, "[\"TextModelOutput\",[\"hello\",\" world\",\" foo\"],null,null]"));
    drain(&f);
    EXPECT_EQ(series_total(&f, AGG_S_OSL), 3);
    EXPECT(fabs(series_total(&f, AGG_S_TPOT) - 1500.0) < 1e-9);   /* (5000 - 2000) / 2 */
    teardown(&f);
}

static void test_tpot_skipped_when_single_chunk(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.recv_first", "s1", 2000)
                SEVD("sample.complete", "s1", 5000, "[\"TextModelOutput\",[\"hello\"],null,null]"));
    drain(&f);
    EXPECT_EQ(series_total(&f, AGG_S_OSL), 1);
    EXPECT_EQ(series_count(&f, AGG_S_TPOT), 0);
    teardown(&f);
}

static void test_tpot_not_emitted_without_streaming_flag(void)
{
    fixture f;
    setup(&f, false, true);
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.recv_first", "s1", 2000)
                SEVD("sample.complete", "s1", 5000, "[\"TextModelOutput\",[\"a\",\" b\",\" c\"],null,null]"));
    drain(&f);
    EXPECT(agg_registry_of(f.g)->series[AGG_S_TPOT] == NULL);
    EXPECT(agg_registry_of(f.g)->series[AGG_S_TTFT] == NULL);
    EXPECT_EQ(series_total(&f, AGG_S_LATENCY), 4000);
    EXPECT_EQ(series_total(&f, AGG_S_OSL), 3);
    teardown(&f);
}

static void test_tpot_non_streaming_output_skipped(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.recv_first", "s1", 2000)
                SEVD("sample.complete", "s1", 5000, "[\"TextModelOutput\",\"hello world foo\",null,null]"));
    drain(&f);
    EXPECT_EQ(series_total(&f, AGG_S_OSL), 3);
    EXPECT_EQ(series_count(&f, AGG_S_TPOT), 0);
    teardown(&f);
}

static void test_tpot_osl_for_tool_call_complete(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.recv_first", "s1", 2000)
                SEVD("sample.complete", "s1", 5000,
                     "[\"TextModelOutput\",\"ok\",null,[{\"id\":\"c1\",\"type\":\"function\","
                     "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]]"));
    drain(&f);
    EXPECT_EQ(series_total(&f, AGG_S_OSL), 2);
    EXPECT(fabs(series_total(&f, AGG_S_TPOT) - 3000.0) < 1e-9);
    teardown(&f);
}

static void test_flush_records_buffered_tokenizations(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, START SEVD("sample.issued", "s1", 1000, "[\"PromptData\",\"a b c d e\"]"));
    iz enq, done, failed;
    agg_counts(f.g, &enq, &done, &failed);
    EXPECT_EQ(enq, 1);
    agg_snapshot *s = drain(&f);
    EXPECT_EQ(s->n_pending, 0);
    EXPECT_EQ(series_total(&f, AGG_S_ISL), 5);
    teardown(&f);
}

static void test_drain_failure_reports_pending_and_finalizes(void)
{
    fixture f;
    mock_fail = true;
    setup(&f, true, true);
    process(&f, START SEVD("sample.issued", "s1", 1000, "[\"PromptData\",\"a b c\"]") EV("session.ended", 2000));
    agg_snapshot *s = drain(&f);
    EXPECT_EQ(s->state, AGG_COMPLETE);
    EXPECT(s->n_pending > 0);
    mock_fail = false;
    teardown(&f);
}

static void test_drain_timeout_reports_pending_count(void)
{
    fixture f;
    mock_sleep_ms = 200;
    setup_on(&f, true, true, 2);   /* on workers: the counts wait in the queue */
    process(&f, START SEVD("sample.issued", "s1", 1000, "[\"PromptData\",\"a b c\"]")
                SEVD("sample.issued", "s2", 1100, "[\"PromptData\",\"a b c\"]") EV("session.ended", 2000));
    static agg_snapshot snap;
    err e = {0};
    /* a budget that has run out when the drain starts */
    EXPECT_EQ(agg_finish(f.g, false, os_now(), 1, &snap, &e), ERR_OK);
    EXPECT(snap.n_pending > 0);
    mock_sleep_ms = 0;
    teardown(&f);
}

/* The SIGTERM path: no drain, every queued count pending, the durations
 * refreshed (test_main_signal_handler's intent). */
static void test_interrupted_keeps_counts_pending(void)
{
    fixture f;
    setup(&f, true, true);
    process(&f, EV("session.started", 0) START SEVD("sample.issued", "s1", 100, "[\"PromptData\",\"a b\"]")
                SEVD("sample.issued", "s2", 150, "[\"PromptData\",\"c d\"]") SEV("sample.complete", "s1", 400));
    static agg_snapshot snap;
    err e = {0};
    EXPECT_EQ(agg_finish(f.g, true, 0, 1, &snap, &e), ERR_OK);
    EXPECT_EQ(snap.state, AGG_INTERRUPTED);
    EXPECT_EQ(snap.n_pending, 2);
    EXPECT_EQ(snap.stats[AGG_S_ISL].count, 0);
    EXPECT(snap.counters[AGG_TRACKED_DURATION] == 400);
    EXPECT(snap.counters[AGG_LEGACY_WINDOW] == 300);
    teardown(&f);
}

/* ---- test_aggregator_error_handler.py ------------------------------------------- */

static void test_error_event_increments_tracked_failed_when_row_exists(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 100) SEV("error.generic", "s1", 150));
    EXPECT(counter(&f, AGG_TOTAL_FAILED) == 1);
    EXPECT(counter(&f, AGG_TRACKED_FAILED) == 1);
    teardown(&f);
}

static void test_error_after_complete_misses_tracked_failed(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("sample.issued", "s1", 100) SEV("sample.complete", "s1", 200) SEV("error.generic", "s1", 250));
    EXPECT(counter(&f, AGG_TOTAL_FAILED) == 1);
    EXPECT(counter(&f, AGG_TRACKED_FAILED) == 0);
    teardown(&f);
}

static void test_error_for_untracked_sample_only_increments_total(void)
{
    fixture f;
    setup(&f, true, false);
    process(&f, START SEV("error.generic", "nobody", 50));
    EXPECT(counter(&f, AGG_TOTAL_FAILED) == 1);
    EXPECT(counter(&f, AGG_TRACKED_FAILED) == 0);
    teardown(&f);
}

/* ---- test_metrics_table.py -------------------------------------------------------- */

static void test_table_rows(void)
{
    err e = {0};
    agg_table *t = agg_table_new(&e);
    REQUIRE(t);
    bool existed;
    EXPECT(agg_table_add(t, S("s1"), &existed) && !existed);
    agg_row *r1 = agg_table_get(t, S("s1"));
    EXPECT(r1 && r1->block == -1 && !r1->has_issued && !r1->has_recv_first && !r1->has_last_recv);
    EXPECT(agg_table_add(t, S("s1"), &existed) == r1 && existed);   /* a duplicate returns the row */
    EXPECT_EQ(agg_table_len(t), 1);
    /* many rows, removed in another order (the probe runs stay whole) */
    char name[32];
    for (int k = 0; k < 5000; k++) {
        snprintf(name, sizeof name, "u%d", k);
        REQUIRE(agg_table_add(t, str_cstr(name), &existed));
    }
    EXPECT_EQ(agg_table_len(t), 5001);
    for (int k = 0; k < 5000; k += 2) {
        snprintf(name, sizeof name, "u%d", k);
        agg_row *r = agg_table_get(t, str_cstr(name));
        REQUIRE(r);
        r->has_issued = true;
        agg_table_complete(t, r, 10);
    }
    int found = 0;
    for (int k = 0; k < 5000; k++) {
        snprintf(name, sizeof name, "u%d", k);
        found += (agg_table_get(t, str_cstr(name)) != NULL) == (k % 2 == 1);
    }
    EXPECT_EQ(found, 5000);
    EXPECT_EQ(agg_table_len(t), 2501);
    agg_table_free(t);
}

static void test_table_blocks_and_window(void)
{
    err e = {0};
    agg_table *t = agg_table_new(&e);
    REQUIRE(t);
    EXPECT(!agg_table_tracking(t));
    agg_table_start_tracking(t, 100);
    agg_table_start_tracking(t, 150);   /* a START while tracking: no new block */
    EXPECT_EQ(agg_table_current_block(t), 0);
    bool existed;
    agg_row *r = agg_table_add(t, S("s1"), &existed);
    r->block = agg_table_current_block(t);
    r->has_issued = true;
    r->issued_ns = 200;
    agg_table_issued(t, 200);
    agg_table_complete(t, r, 600);
    EXPECT(agg_table_tracked_duration(t) == 500);
    agg_table_stop_tracking(t);
    agg_table_start_tracking(t, 1000);
    r = agg_table_add(t, S("s2"), &existed);
    r->block = agg_table_current_block(t);
    r->has_issued = true;
    r->issued_ns = 1100;
    agg_table_complete(t, r, 1200);
    EXPECT(agg_table_tracked_duration(t) == 500 + 200);
    EXPECT(agg_table_loadgen_window(t) == 1200 - 200);
    agg_table_free(t);
    /* no completion: a window of 0 */
    t = agg_table_new(&e);
    agg_table_start_tracking(t, 0);
    agg_table_issued(t, 100);
    EXPECT(agg_table_loadgen_window(t) == 0);
    agg_table_free(t);
}

static void test_tpot_uses_tool_call_deltas_after_first_chunk(void)
{
    fixture f;
    setup(&f, true, true);
    /* a pure tool-call response: its first chunk is dropped for TPOT */
    process(&f, START SEV("sample.issued", "s1", 1000) SEV("sample.recv_first", "s1", 2000)
                SEVD("sample.complete", "s1", 6000,
                     "[\"TextModelOutput\",\"\",null,[[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}],"
                     "[{\"index\":0,\"function\":{\"arguments\":\"{\\\"a\\\": 1}\"}}]]]"));
    drain(&f);
    EXPECT_EQ(series_count(&f, AGG_S_TPOT), 1);
    teardown(&f);
}

int main(void)
{
    RUN(test_not_tracked_before_start);
    RUN(test_tracked_after_start);
    RUN(test_not_tracked_after_stop);
    RUN(test_inflight_sample_continues_after_stop);
    RUN(test_restart_tracking_window);
    RUN(test_tracked_block_durations);
    RUN(test_ttft_and_sample_latency);
    RUN(test_chunk_deltas);
    RUN(test_non_streaming_latency_only);
    RUN(test_chunk_delta_not_emitted_without_last_recv);
    RUN(test_issued_with_token_ids_emits_isl_directly);
    RUN(test_issued_without_data_no_isl);
    RUN(test_untracked_sample_events_ignored);
    RUN(test_duplicate_started_logs_error_and_preserves_state);
    RUN(test_complete_removes_row);
    RUN(test_session_ended_finalizes);
    RUN(test_events_after_ended_are_dropped);
    RUN(test_empty_sample_uuid_ignored);
    RUN(test_multiple_samples_independent);
    RUN(test_error_event_increments_total_failed);
    RUN(test_loadgen_window_duration_emitted);
    RUN(test_total_vs_tracked_counters);
    RUN(test_finish_reason_counters_bucket_unknown_values);
    RUN(test_isl_text_path_async);
    RUN(test_isl_structured_prompt_includes_reasoning_and_tools);
    RUN(test_osl_emitted_on_complete);
    RUN(test_tpot_emitted_for_streaming);
    RUN(test_tpot_skipped_when_single_chunk);
    RUN(test_tpot_not_emitted_without_streaming_flag);
    RUN(test_tpot_non_streaming_output_skipped);
    RUN(test_tpot_osl_for_tool_call_complete);
    RUN(test_flush_records_buffered_tokenizations);
    RUN(test_drain_failure_reports_pending_and_finalizes);
    RUN(test_drain_timeout_reports_pending_count);
    RUN(test_interrupted_keeps_counts_pending);
    RUN(test_error_event_increments_tracked_failed_when_row_exists);
    RUN(test_error_after_complete_misses_tracked_failed);
    RUN(test_error_for_untracked_sample_only_increments_total);
    RUN(test_table_rows);
    RUN(test_table_blocks_and_window);
    RUN(test_tpot_uses_tool_call_deltas_after_first_chunk);
    return test_done();
}
