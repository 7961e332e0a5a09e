/* registry.c - the counters and series of the aggregator, the snapshot
 * and its JSON text (registry.h). */
#include "registry.h"

#include <math.h>
#include <stdio.h>

#include "../json/pyfmt.h"

static const char *const counter_names[AGG_NCOUNTERS] = {
    "total_samples_issued", "total_samples_completed", "total_samples_failed",
    "tracked_samples_issued", "tracked_samples_completed", "tracked_samples_failed",
    "tracked_finish_reason_stop", "tracked_finish_reason_length", "tracked_finish_reason_tool_calls",
    "tracked_finish_reason_content_filter", "tracked_finish_reason_function_call",
    "tracked_finish_reason_other",
    "tracked_duration_ns", "legacy_loadgen_window_duration_ns", "total_duration_ns",
};

static const char *const series_names[AGG_NSERIES] = {
    "sample_latency_ns", "isl", "osl", "ttft_ns", "chunk_delta_ns", "tpot_ns",
};

/* HDR bounds (aggregator.py _NS_HDR_LOW/HIGH, registry.py TOKEN_HDR_LOW/HIGH). */
#define NS_HDR_HIGH ((i64)3600 * 1000 * 1000 * 1000)
#define TOKEN_HDR_HIGH ((i64)10 * 1000 * 1000)

const char *agg_counter_name(agg_counter c)
{
    return c < AGG_NCOUNTERS ? counter_names[c] : "?";
}

const char *agg_series_name(agg_series_id s)
{
    return s < AGG_NSERIES ? series_names[s] : "?";
}

const char *agg_state_name(agg_state s)
{
    switch (s) {
    case AGG_INITIALIZE:  return "initialize";
    case AGG_LIVE:        return "live";
    case AGG_DRAINING:    return "draining";
    case AGG_COMPLETE:    return "complete";
    case AGG_INTERRUPTED: return "interrupted";
    }
    return "?";
}

int agg_registry_init(agg_registry *r, const agg_registry_opts *o, err *e)
{
    *r = (agg_registry){0};
    int n = o->streaming ? AGG_NSERIES : AGG_S_OSL + 1;
    for (int k = 0; k < n; k++) {
        bool ns = k == AGG_S_LATENCY || k == AGG_S_TTFT || k == AGG_S_CHUNK_DELTA || k == AGG_S_TPOT;
        bool tail = k == AGG_S_LATENCY || k == AGG_S_TTFT || k == AGG_S_TPOT;
        agg_series_opts so = {
            .is_float = k == AGG_S_TPOT,
            .hdr_low = 1,
            .hdr_high = ns ? NS_HDR_HIGH : TOKEN_HDR_HIGH,
            .sig_figs = o->sig_figs,
            .n_buckets = o->n_buckets,
            .early_stopping = tail && o->early_stopping,
        };
        r->series[k] = agg_series_new(&so, e);
        if (!r->series[k]) {
            agg_registry_fini(r);
            return e && e->code ? e->code : ERR_NOMEM;
        }
    }
    return ERR_OK;
}

void agg_registry_fini(agg_registry *r)
{
    for (int k = 0; k < AGG_NSERIES; k++)
        agg_series_free(r->series[k]);
    *r = (agg_registry){0};
}

int agg_registry_snapshot(agg_registry *r, agg_state state, i64 timestamp_ns, i64 n_pending, agg_snapshot *snap,
                          err *e)
{
    r->snapshots++;
    snap->counter = r->snapshots;
    snap->timestamp_ns = timestamp_ns;
    snap->state = state;
    snap->n_pending = n_pending;
    for (int k = 0; k < AGG_NCOUNTERS; k++)
        snap->counters[k] = r->counter[k];
    for (int k = 0; k < AGG_NSERIES; k++) {
        snap->has[k] = r->series[k] != NULL;
        if (!snap->has[k])
            continue;
        int rc = agg_series_stat(r->series[k], state == AGG_COMPLETE, &snap->stats[k], e);
        if (rc != ERR_OK)
            return rc;
    }
    return ERR_OK;
}

/* ---- the JSON text: json.dumps(indent=2) ------------------------------- */

void agg_put_i128(buf *out, agg_i128 v)
{
    char d[48];
    int n = 0;
    agg_u128 u = v < 0 ? (agg_u128)0 - (agg_u128)v : (agg_u128)v;
    do {
        d[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0)
        buf_byte(out, '-');
    while (n)
        buf_byte(out, (u8)d[--n]);
}

static void indent(buf *b, int level)
{
    buf_byte(b, '\n');
    for (int k = 0; k < level; k++)
        buf_cstr(b, "  ");
}

/* A key and its colon at `level`, after a comma when not the first. */
static void key(buf *b, int level, bool first, const char *name)
{
    if (!first)
        buf_byte(b, ',');
    indent(b, level);
    buf_byte(b, '"');
    buf_cstr(b, name);
    buf_cstr(b, "\": ");
}

/* A float as json.dumps writes it; a non-finite one was scrubbed to None. */
static void put_float(buf *b, double x)
{
    if (!isfinite(x))
        buf_cstr(b, "null");
    else
        pyfmt_float_repr(b, x);
}

static void put_stat(buf *b, const agg_stat *s, const char *name, int lv)
{
    buf_byte(b, '{');
    key(b, lv + 1, true, "type");
    buf_cstr(b, "\"series\"");
    key(b, lv + 1, false, "name");
    buf_printf(b, "\"%s\"", name);
    key(b, lv + 1, false, "count");
    buf_i64(b, s->count);
    key(b, lv + 1, false, "total");
    if (s->is_float)
        put_float(b, s->total_f);
    else
        agg_put_i128(b, s->total_i);
    key(b, lv + 1, false, "min");
    if (s->minmax_int)
        buf_i64(b, s->min_i);
    else
        put_float(b, s->min_f);
    key(b, lv + 1, false, "max");
    if (s->minmax_int)
        buf_i64(b, s->max_i);
    else
        put_float(b, s->max_f);
    key(b, lv + 1, false, "sum_sq");
    if (s->sum_sq_int)
        agg_put_i128(b, s->sum_sq_i);
    else
        put_float(b, s->sum_sq_f);
    key(b, lv + 1, false, "percentiles");
    buf_byte(b, '{');
    for (int k = 0; k < AGG_NPCT; k++) {
        key(b, lv + 2, k == 0, agg_pct_keys[k]);
        put_float(b, s->pct[k]);
    }
    indent(b, lv + 1);
    buf_byte(b, '}');
    if (s->has_es) {
        key(b, lv + 1, false, "early_stopping_percentiles");
        buf_byte(b, '{');
        for (int k = 0; k < AGG_NES; k++) {
            key(b, lv + 2, k == 0, agg_pct_keys[k]);
            if (s->es_null[k])
                buf_cstr(b, "null");
            else
                put_float(b, s->es[k]);
        }
        indent(b, lv + 1);
        buf_byte(b, '}');
    }
    key(b, lv + 1, false, "histogram");
    if (s->nbuckets == 0) {
        buf_cstr(b, "[]");
    } else {
        buf_byte(b, '[');
        for (int k = 0; k < s->nbuckets; k++) {
            if (k)
                buf_byte(b, ',');
            indent(b, lv + 2);
            buf_byte(b, '[');
            indent(b, lv + 3);
            buf_byte(b, '[');
            indent(b, lv + 4);
            put_float(b, s->edges[k]);
            buf_byte(b, ',');
            indent(b, lv + 4);
            put_float(b, s->edges[k + 1]);
            indent(b, lv + 3);
            buf_cstr(b, "],");
            indent(b, lv + 3);
            buf_i64(b, s->counts[k]);
            indent(b, lv + 2);
            buf_byte(b, ']');
        }
        indent(b, lv + 1);
        buf_byte(b, ']');
    }
    indent(b, lv);
    buf_byte(b, '}');
}

void agg_snapshot_json(const agg_snapshot *snap, buf *b)
{
    buf_byte(b, '{');
    key(b, 1, true, "counter");
    buf_i64(b, snap->counter);
    key(b, 1, false, "timestamp_ns");
    buf_i64(b, snap->timestamp_ns);
    key(b, 1, false, "state");
    buf_printf(b, "\"%s\"", agg_state_name(snap->state));
    key(b, 1, false, "n_pending_tasks");
    buf_i64(b, snap->n_pending);
    key(b, 1, false, "metrics");
    buf_byte(b, '[');
    bool first = true;
    for (int k = 0; k < AGG_NCOUNTERS; k++) {
        if (!first)
            buf_byte(b, ',');
        first = false;
        indent(b, 2);
        buf_byte(b, '{');
        key(b, 3, true, "type");
        buf_cstr(b, "\"counter\"");
        key(b, 3, false, "name");
        buf_printf(b, "\"%s\"", counter_names[k]);
        key(b, 3, false, "value");
        agg_put_i128(b, snap->counters[k]);
        indent(b, 2);
        buf_byte(b, '}');
    }
    for (int k = 0; k < AGG_NSERIES; k++) {
        if (!snap->has[k])
            continue;
        buf_byte(b, ',');
        indent(b, 2);
        put_stat(b, &snap->stats[k], series_names[k], 2);
    }
    indent(b, 1);
    buf_byte(b, ']');
    buf_cstr(b, "\n}");
}
