/* registry.h - upstream's MetricsRegistry as the aggregator fills it
 * (metrics_aggregator/registry.py, aggregator.py:_register_metrics): the
 * fifteen counters and the three to six series, in registration order,
 * which is the snapshot's order; and the snapshot itself, with its JSON
 * text exactly as Python's json.dumps(snapshot_to_dict(snap), indent=2)
 * writes final_snapshot.json (docs/upstream-aggregator.md §10, §12).
 * Depends on agg/series.h, agg/table.h and base/. */
#ifndef TALLY_AGG_REGISTRY_H
#define TALLY_AGG_REGISTRY_H

#include "../base/buf.h"
#include "series.h"
#include "table.h"

/* MetricCounterKey, in order. */
typedef enum agg_counter {
    AGG_TOTAL_ISSUED, AGG_TOTAL_COMPLETED, AGG_TOTAL_FAILED,
    AGG_TRACKED_ISSUED, AGG_TRACKED_COMPLETED, AGG_TRACKED_FAILED,
    AGG_FR_STOP, AGG_FR_LENGTH, AGG_FR_TOOL_CALLS, AGG_FR_CONTENT_FILTER, AGG_FR_FUNCTION_CALL, AGG_FR_OTHER,
    AGG_TRACKED_DURATION, AGG_LEGACY_WINDOW, AGG_TOTAL_DURATION,
    AGG_NCOUNTERS
} agg_counter;

/* The series, in registration order (the last three with --streaming only). */
typedef enum agg_series_id {
    AGG_S_LATENCY, AGG_S_ISL, AGG_S_OSL, AGG_S_TTFT, AGG_S_CHUNK_DELTA, AGG_S_TPOT,
    AGG_NSERIES
} agg_series_id;

const char *agg_counter_name(agg_counter c);
const char *agg_series_name(agg_series_id s);

/* SessionState's values as the snapshot writes them. */
typedef enum agg_state {
    AGG_INITIALIZE, AGG_LIVE, AGG_DRAINING, AGG_COMPLETE, AGG_INTERRUPTED
} agg_state;
const char *agg_state_name(agg_state s);

typedef struct agg_registry_opts {
    bool streaming;        /* registers ttft_ns, chunk_delta_ns, tpot_ns */
    bool early_stopping;   /* for the tail-latency series (latency, ttft, tpot) */
    int  sig_figs;         /* --hdr-sig-figs */
    int  n_buckets;        /* --n-histogram-buckets */
} agg_registry_opts;

typedef struct agg_registry {
    agg_i128    counter[AGG_NCOUNTERS];
    agg_series *series[AGG_NSERIES];   /* NULL: not registered */
    i64         snapshots;             /* build_snapshot calls so far (the snapshot's "counter") */
} agg_registry;

int  agg_registry_init(agg_registry *r, const agg_registry_opts *o, err *e);
void agg_registry_fini(agg_registry *r);

/* One snapshot (MetricsSnapshot). */
typedef struct agg_snapshot {
    i64       counter, timestamp_ns, n_pending;
    agg_state state;
    agg_i128  counters[AGG_NCOUNTERS];
    bool      has[AGG_NSERIES];
    agg_stat  stats[AGG_NSERIES];
} agg_snapshot;

/* build_snapshot: counter + 1, the counters, every registered series'
 * statistics (exact for AGG_COMPLETE, the HDR path otherwise).
 * `snap` is large (histograms inline): the caller keeps one around. */
int  agg_registry_snapshot(agg_registry *r, agg_state state, i64 timestamp_ns, i64 n_pending,
                           agg_snapshot *snap, err *e);

/* The snapshot's JSON text, as final_snapshot.json holds it (no trailing
 * newline), appended to out. */
void agg_snapshot_json(const agg_snapshot *snap, buf *out);

/* Python's str(int) of a 128-bit value, appended to out. */
void agg_put_i128(buf *out, agg_i128 v);

#endif
