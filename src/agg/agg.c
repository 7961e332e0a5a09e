/* agg.c - the aggregator's event loop, triggers and finalize (agg.h),
 * after MetricsAggregatorService.process, MetricsTable.set_field and the
 * triggers of metrics_table.py, with the token counts of the ENDED drain
 * kept in enqueue order and recorded at the end. */
#include "agg.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/arena.h"
#include "../base/os.h"
#include "../drain/count_ops.h"
#include "inputs.h"
#include "report_num.h"

/* A count a trigger asked for, in enqueue order: which series it records
 * into and, for TPOT, the numerator of (complete - recv_first) / n. */
typedef struct entry {
    agg_i128 num;
    i64      n;
    u8       series;
    u8       state;      /* PENDING (0), COUNTED, FAILED */
} entry;

enum { E_PENDING = 0, E_COUNTED, E_FAILED };

struct agg {
    agg_opts     o;
    agg_registry reg;
    agg_table   *t;
    bool         ended, started;
    i64          start_ns;
    agg_state    state;
    dq          *q;             /* NULL without a tokenizer */
    count_ops_ctx cx;
    dq_drain_opts dopts;
    bool         pending_step;  /* something enqueued since the last drain step */
    entry       *ents;
    iz           nents, cents, counted, failed;
    arena        a;             /* per event: what agg_input makes */
    arena_mark   base;
    err          qe;            /* the queue's last error, said once */
    bool         warned_queue;
    /* the live lane (o.defer, o.live_threads): its flushing thread settles
     * entries while this one enqueues, under mu */
    pthread_mutex_t mu;
    bool         live;
    iz           recorded_upto; /* entries before it are recorded (or failed) into the series */
    iz           recorded;      /* of them: recorded */
};

static void warn(agg *g, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void warn(agg *g, const char *fmt, ...)
{
    if (!g->o.warn)
        return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g->o.warn(g->o.warn_ctx, msg);
}

/* ---- the queue's callbacks ------------------------------------------------ */

static void lock(agg *g)
{
    if (g->live)
        pthread_mutex_lock(&g->mu);
}

static void unlock(agg *g)
{
    if (g->live)
        pthread_mutex_unlock(&g->mu);
}

static void on_record(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    agg *g = ctx;
    (void)it;
    lock(g);
    if (tag < (u64)g->nents) {
        g->ents[tag].state = E_COUNTED;
        g->ents[tag].n = r->n;
        g->counted++;
    }
    unlock(g);
}

static void on_fail(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    agg *g = ctx;
    (void)it;
    lock(g);
    bool first = false;
    if (tag < (u64)g->nents && g->ents[tag].state == E_PENDING) {
        g->ents[tag].state = E_FAILED;
        first = ++g->failed == 1;
    }
    unlock(g);
    /* upstream logs a failed tokenization and keeps it pending */
    if (first)
        warn(g, "a token count failed (it stays pending): %s", r->msg);
}

static void on_expire(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    (void)ctx, (void)tag, (void)it, (void)r;   /* stays pending */
}

/* ---- making and freeing -------------------------------------------------- */

agg *agg_new(const agg_opts *o, err *e)
{
    agg *g = calloc(1, sizeof *g);
    if (!g) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    g->o = *o;
    agg_registry_opts ro = {
        .streaming = o->streaming,
        .early_stopping = o->early_stopping,
        .sig_figs = o->sig_figs > 0 ? o->sig_figs : 3,
        .n_buckets = o->n_buckets > 0 ? o->n_buckets : 30,
    };
    if (agg_registry_init(&g->reg, &ro, e) != ERR_OK) {
        free(g);
        return NULL;
    }
    g->t = agg_table_new(e);
    if (!g->t) {
        agg_free(g);
        return NULL;
    }
    arena_init(&g->a, CHAT_SCRATCH_MAX);
    g->base = arena_reserve(&g->a, 1 << 20);
    if (o->model || o->ops) {
        g->cx = (count_ops_ctx){.model = o->model, .want = SHAPES_AUTO, .resolve = agg_input};
        dq_ops ops = {0};
        if (o->ops)
            ops = *o->ops;
        else
            count_ops_init(&ops, &g->cx);
        ops.record = on_record;
        ops.fail = on_fail;
        ops.expire = on_expire;
        ops.rctx = g;
        g->live = o->defer && o->live_threads > 0;
        if (g->live)
            pthread_mutex_init(&g->mu, NULL);
        g->q = dq_new(&ops, &(dq_opts){.threads = g->live ? o->live_threads : 0}, e);
        if (!g->q) {
            agg_free(g);
            return NULL;
        }
        g->dopts = (dq_drain_opts){
            .workers = o->workers,
            .progress_s = o->progress_s,
            .progress = o->progress,
            .progress_ctx = o->progress_ctx,
            .stop = o->stop,
        };
    }
    return g;
}

void agg_free(agg *g)
{
    if (!g)
        return;
    dq_free(g->q);
    if (g->live)
        pthread_mutex_destroy(&g->mu);
    agg_table_free(g->t);
    agg_registry_fini(&g->reg);
    arena_fini(&g->a);
    free(g->ents);
    free(g);
}

agg_registry *agg_registry_of(agg *g)
{
    return &g->reg;
}

agg_table *agg_table_of(agg *g)
{
    return g->t;
}

bool agg_ended(const agg *g)
{
    return g->ended;
}

void agg_counts(agg *g, iz *enqueued, iz *counted, iz *failed)
{
    lock(g);
    *enqueued = g->nents;
    *counted = g->counted;
    *failed = g->failed;
    unlock(g);
}

/* ---- triggers ------------------------------------------------------------- */

static void count(agg *g, agg_counter c)
{
    g->reg.counter[c]++;
}

static int record_int(agg *g, agg_series_id s, i64 v)
{
    return g->reg.series[s] ? agg_series_record_int(g->reg.series[s], v) : ERR_OK;
}

/* A count for series `s` of the event's payload, counted by the queue's
 * workers: `op` says which metric (the worker applies agg_input again). */
static int enqueue(agg *g, const agg_event *ev, agg_series_id s, int op, agg_i128 num, int kind)
{
    if (!g->q)
        return ERR_OK;   /* no tokenizer: upstream drops text and structured counts */
    lock(g);
    if (g->nents == g->cents) {
        iz c = g->cents ? g->cents * 2 : 4096;
        entry *x = realloc(g->ents, (size_t)c * sizeof *x);
        if (!x) {
            unlock(g);
            return ERR_NOMEM;
        }
        g->ents = x;
        g->cents = c;
    }
    g->ents[g->nents] = (entry){.num = num, .series = (u8)s};
    iz tag = g->nents++;
    unlock(g);
    /* the payload is lent: the drain step after this event copies it;
     * deferred (a live run), the queue keeps a copy. The class is the
     * input's kind, for the live lane's cap of each. */
    u8 cls = (u8)(kind > 0 && kind <= DQ_CLASSES ? kind - 1 : 0);
    if (!dq_enqueue_op(g->q, cls, POOL_KIND_HEAVY, (u8)op, ev->data_text, (u64)tag, g->o.defer ? DQ_COPY : DQ_LEND)) {
        lock(g);
        g->nents--;
        unlock(g);
        return ERR_NOMEM;
    }
    g->pending_step = true;
    return ERR_OK;
}

/* What a trigger asks of the event's payload for `metric`: SHAPES_COUNT
 * with the item, or SHAPES_SKIP (nothing). */
static int input_of(agg *g, const agg_event *ev, int metric, shapes_item *it)
{
    err e = {0};
    const json *data = agg_event_data(&g->a, ev, &e);
    if (!data) {
        if (e.code)
            warn(g, "%s of sample %.*s: %s (nothing counted)", agg_metric_name(metric),
                 (int)MIN(ev->sample_uuid.len, 64), (const char *)ev->sample_uuid.s, e.msg);
        return SHAPES_SKIP;
    }
    int st = agg_input(&g->a, data, SHAPES_AUTO, metric, it, &e);
    if (st == SHAPES_ERROR) {
        /* a payload the decoder accepted always gives an input; where
         * Python would raise inside a trigger we count nothing, and say so */
        warn(g, "%s of sample %.*s: %s (nothing counted)", agg_metric_name(metric), (int)MIN(ev->sample_uuid.len, 64),
             (const char *)ev->sample_uuid.s, e.msg);
        return SHAPES_SKIP;
    }
    return st;
}

/* IslTrigger on ISSUED (tracking): token ids now, text or prompt queued. */
static int isl(agg *g, const agg_event *ev)
{
    if (ev->data_kind != AGG_DATA_PROMPT)
        return ERR_OK;
    /* without a tokenizer only token ids are counted (TokenTrigger.fire) */
    if (!g->q && !ev->data_ids)
        return ERR_OK;
    /* a payload the decoder's fast path took: its types are checked, so
     * the trigger's choice is known without the tree (test_agg_event
     * compares it with agg_input's) */
    if (ev->data_later) {
        if (ev->data_isl == AGG_ISL_IDS)
            return record_int(g, AGG_S_ISL, ev->data_nids);
        if (ev->data_isl == AGG_ISL_NONE)
            return ERR_OK;
        return enqueue(g, ev, AGG_S_ISL, AGG_ISL, 0, ev->data_isl == AGG_ISL_TEXT ? COUNT_TEXT : COUNT_PROMPT);
    }
    shapes_item it;
    if (input_of(g, ev, AGG_ISL, &it) != SHAPES_COUNT)
        return ERR_OK;
    if (it.in.kind == COUNT_IDS)
        return record_int(g, AGG_S_ISL, it.in.token_ids->u.arr.n);
    return enqueue(g, ev, AGG_S_ISL, AGG_ISL, 0, it.in.kind);
}

/* OslTrigger and TpotTrigger on COMPLETE. */
static int osl_tpot(agg *g, const agg_event *ev, const agg_row *pre)
{
    if (ev->data_kind != AGG_DATA_OUTPUT || !g->q)   /* without a tokenizer nothing is (TokenTrigger.fire) */
        return ERR_OK;
    shapes_item it;
    int rc = ERR_OK;
    if (input_of(g, ev, AGG_OSL, &it) == SHAPES_COUNT)
        rc = enqueue(g, ev, AGG_S_OSL, AGG_OSL, 0, it.in.kind);
    if (rc == ERR_OK && g->o.streaming && pre->has_recv_first && input_of(g, ev, AGG_TPOT, &it) == SHAPES_COUNT)
        rc = enqueue(g, ev, AGG_S_TPOT, AGG_TPOT, (agg_i128)ev->timestamp_ns - pre->recv_first_ns, it.in.kind);
    return rc;
}

/* set_field(LAST_RECV_NS): ChunkDeltaTrigger, then the field. */
static int last_recv(agg *g, agg_row *row, i64 ts)
{
    int rc = ERR_OK;
    if (g->o.streaming && row->has_last_recv)
        rc = record_int(g, AGG_S_CHUNK_DELTA, (i64)((agg_i128)ts - row->last_recv_ns));
    row->has_last_recv = true;
    row->last_recv_ns = ts;
    return rc;
}

/* set_field(uuid, field, ts) for each sample event (MetricsTable.set_field
 * with the triggers registered as the aggregator registers them). */
static int sample_event(agg *g, const agg_event *ev)
{
    str uuid = ev->sample_uuid;
    i64 ts = ev->timestamp_ns;
    int rc = ERR_OK;
    switch (ev->type) {
    case AGG_EV_SAMPLE_ISSUED: {
        if (agg_table_tracking(g->t)) {
            bool existed;
            agg_row *row = agg_table_add(g->t, uuid, &existed);
            if (!row)
                return ERR_NOMEM;
            row->block = agg_table_current_block(g->t);
            agg_table_issued(g->t, ts);
            rc = isl(g, ev);
            row = agg_table_get(g->t, uuid);
            row->has_issued = true;
            row->issued_ns = ts;
        }
        count(g, AGG_TOTAL_ISSUED);
        if (agg_table_get(g->t, uuid))
            count(g, AGG_TRACKED_ISSUED);
        return rc;
    }
    case AGG_EV_SAMPLE_RECV_FIRST: {
        agg_row *row = agg_table_get(g->t, uuid);
        if (!row)
            return ERR_OK;
        if (g->o.streaming && row->has_issued)   /* TtftTrigger */
            rc = record_int(g, AGG_S_TTFT, (i64)((agg_i128)ts - row->issued_ns));
        row->has_recv_first = true;
        row->recv_first_ns = ts;
        /* then set_field(LAST_RECV_NS) */
        return rc == ERR_OK ? last_recv(g, row, ts) : rc;
    }
    case AGG_EV_SAMPLE_RECV_NON_FIRST: {
        agg_row *row = agg_table_get(g->t, uuid);
        return row ? last_recv(g, row, ts) : ERR_OK;
    }
    case AGG_EV_SAMPLE_COMPLETE: {
        agg_row *row = agg_table_get(g->t, uuid);
        bool tracked = row != NULL;
        if (row) {
            agg_row pre = *row;
            if (pre.has_issued)   /* SampleLatencyTrigger */
                rc = record_int(g, AGG_S_LATENCY, (i64)((agg_i128)ts - pre.issued_ns));
            if (rc == ERR_OK)
                rc = osl_tpot(g, ev, &pre);
            agg_table_complete(g->t, agg_table_get(g->t, uuid), ts);
        }
        count(g, AGG_TOTAL_COMPLETED);
        if (tracked) {
            count(g, AGG_TRACKED_COMPLETED);
            if (ev->has_finish_reason) {
                static const struct { const char *name; agg_counter c; } fr[] = {
                    {"stop", AGG_FR_STOP}, {"length", AGG_FR_LENGTH}, {"tool_calls", AGG_FR_TOOL_CALLS},
                    {"content_filter", AGG_FR_CONTENT_FILTER}, {"function_call", AGG_FR_FUNCTION_CALL},
                };
                agg_counter c = AGG_FR_OTHER;
                for (iz k = 0; k < countof(fr); k++)
                    if (str_eq(ev->finish_reason, str_cstr(fr[k].name)))
                        c = fr[k].c;
                count(g, c);
            }
        }
        return rc;
    }
    default:
        return ERR_OK;
    }
}

/* ---- process -------------------------------------------------------------- */

static void set_durations(agg *g)
{
    g->reg.counter[AGG_TRACKED_DURATION] = agg_table_tracked_duration(g->t);
    g->reg.counter[AGG_LEGACY_WINDOW] = agg_table_loadgen_window(g->t);
}

int agg_process(agg *g, const agg_event *ev)
{
    if (g->ended)
        return ERR_OK;
    if (g->o.stop && *g->o.stop)
        return ERR_STOPPED;
    arena_restore(&g->a, g->base);
    /* total_duration_ns follows every record once the session started */
    if (g->started) {
        agg_i128 elapsed = (agg_i128)ev->timestamp_ns - g->start_ns;
        if (elapsed > g->reg.counter[AGG_TOTAL_DURATION])
            g->reg.counter[AGG_TOTAL_DURATION] = elapsed;
    }
    int rc = ERR_OK;
    if (agg_ev_is_session(ev->type)) {
        switch (ev->type) {
        case AGG_EV_SESSION_ENDED:
            g->ended = true;
            g->state = AGG_DRAINING;
            break;
        case AGG_EV_SESSION_STARTED:
            if (g->started) {
                warn(g, "duplicate session.started (the first at ts=%lld, this one at ts=%lld): ignored",
                     (long long)g->start_ns, (long long)ev->timestamp_ns);
            } else {
                g->started = true;
                g->start_ns = ev->timestamp_ns;
                g->state = AGG_LIVE;
            }
            break;
        case AGG_EV_SESSION_START_TRACKING:
            if (!agg_table_start_tracking(g->t, ev->timestamp_ns))
                return ERR_NOMEM;
            break;
        case AGG_EV_SESSION_STOP_TRACKING:
            agg_table_stop_tracking(g->t);
            set_durations(g);
            break;
        default:   /* stop_loadgen: nothing but the duration above */
            break;
        }
    } else if (agg_ev_is_error(ev->type)) {
        count(g, AGG_TOTAL_FAILED);
        if (ev->sample_uuid.len && agg_table_get(g->t, ev->sample_uuid))
            count(g, AGG_TRACKED_FAILED);
    } else if (ev->sample_uuid.len) {
        rc = sample_event(g, ev);
    }
    if (rc == ERR_OK && g->pending_step && !g->o.defer) {
        /* the payloads lent to the queue are copied to the workers now */
        g->pending_step = false;
        err e = {0};
        rc = dq_drain_step(g->q, &g->dopts, &e);
        if (e.code && !g->warned_queue) {
            warn(g, "%s", e.msg);
            g->warned_queue = true;
        }
    }
    return rc;
}

/* ---- finalize ------------------------------------------------------------- */

/* Python's int / int (true division, correctly rounded) for the TPOT
 * value, b > 0: exact in doubles while both fit in 53 bits (every real
 * run: 2^53 ns is 104 days); past that, CPython's long_true_divide as the
 * report computes it (report_num.h). */
static double true_div(agg *g, agg_i128 a, i64 b)
{
    const agg_i128 lim = (agg_i128)1 << 53;
    if (a > -lim && a < lim && b < ((i64)1 << 53))
        return (double)(i64)a / (double)b;
    agg_u128 u = a < 0 ? (agg_u128)0 - (agg_u128)a : (agg_u128)a;
    u32 limb[4];
    iz n = 0;
    for (; u; u >>= 32)
        limb[n++] = (u32)u;
    rnum x = {.sign = a < 0 ? -1 : 1, .n = n, .d = limb}, q;
    arena_mark m = arena_save(&g->a);
    rnum y = rnum_int(&g->a, b);
    double v = rnum_div(&g->a, &x, &y, &q) == RNUM_OK ? q.f : NAN;   /* b > 0: it cannot raise */
    arena_restore(&g->a, m);
    return v;
}

/* One settled entry into its series. */
static int record_entry(agg *g, const entry *x)
{
    agg_series *s = g->reg.series[x->series];
    if (x->series == AGG_S_TPOT) {
        if (x->n > 0 && s)   /* TpotTrigger._compute_value */
            return agg_series_record_float(s, true_div(g, x->num, x->n));
        return ERR_OK;
    }
    return s ? agg_series_record_int(s, x->n) : ERR_OK;
}

int agg_live_start(agg *g, double interval_s, err *e)
{
    if (!g->live || interval_s <= 0)
        return ERR_OK;
    return dq_live_start(g->q, interval_s, e);
}

iz agg_record_ready(agg *g)
{
    iz n = 0;
    for (;;) {
        lock(g);
        entry x = {0};
        bool ready = g->recorded_upto < g->nents && g->ents[g->recorded_upto].state != E_PENDING;
        if (ready)
            x = g->ents[g->recorded_upto];
        unlock(g);
        if (!ready)
            break;
        if (x.state == E_COUNTED) {
            if (record_entry(g, &x) != ERR_OK)
                break;   /* out of memory: tried again later (agg_finish says it) */
            g->recorded++;
            n++;
        }
        g->recorded_upto++;
    }
    return n;
}

iz agg_pending(agg *g)
{
    lock(g);
    iz n = g->nents - g->recorded;
    unlock(g);
    return n;
}

int agg_finish(agg *g, bool interrupted, double deadline, i64 timestamp_ns, agg_snapshot *snap, err *e)
{
    if (g->live && interrupted) {
        /* what the live lane counted is in the series, as upstream's */
        dq_live_stop(g->q);
        agg_record_ready(g);
    }
    iz pending = g->nents - g->recorded;
    if (!interrupted) {
        if (g->q) {
            dq_drain_opts d = g->dopts;
            d.deadline = deadline;
            err de = {0};
            if (dq_drain(g->q, &d, &de) < 0)
                return ERR_STOPPED;
            if (de.code && !g->warned_queue)
                warn(g, "%s", de.msg);
        }
        /* the drain's records, in enqueue order (after those the live
         * lane's prefix has recorded) */
        pending = 0;
        for (iz k = 0; k < g->nents; k++) {
            const entry *x = &g->ents[k];
            if (x->state != E_COUNTED) {
                pending++;
                continue;
            }
            if (k < g->recorded_upto)
                continue;
            int rc = record_entry(g, x);
            if (rc != ERR_OK)
                return err_set(e, rc, -1, "out of memory recording the token counts");
        }
        g->recorded_upto = g->nents;
        g->recorded = g->nents - pending;
    }
    set_durations(g);
    g->state = interrupted ? AGG_INTERRUPTED : AGG_COMPLETE;
    return agg_registry_snapshot(&g->reg, g->state, timestamp_ns, (i64)pending, snap, e);
}
