/* series.h - one of upstream's metric series (SeriesSampler,
 * metrics_aggregator/registry.py; docs/upstream-aggregator.md §10.2-10.5):
 * the exact rollups, the HDR view (hdr.h) and the raw values, and the
 * statistics a snapshot reports from them: exact for the COMPLETE
 * snapshot, HDR-derived otherwise, with early stopping (es.h) on the
 * exact path. Depends on agg/hdr.h, agg/es.h and base/. */
#ifndef TALLY_AGG_SERIES_H
#define TALLY_AGG_SERIES_H

#include "../base/base.h"
#include "../base/err.h"

__extension__ typedef __int128 agg_i128;

enum {
    AGG_NPCT = 12,           /* DEFAULT_PERCENTILES */
    AGG_NES = 8,             /* its entries with 50 <= p < 100: the first eight */
    AGG_MAX_BUCKETS = 1000,  /* the most --n-histogram-buckets we take (upstream has no cap) */
};

/* The snapshot's percentile keys, str(p) of DEFAULT_PERCENTILES in its
 * order ("99.9", "99.0", ..., "1.0"); the early-stopping map has the first
 * AGG_NES of them (es_targets_from_grid keeps the grid's order). */
extern const char *const agg_pct_keys[AGG_NPCT];

typedef struct agg_series agg_series;

typedef struct agg_series_opts {
    bool is_float;         /* dtype float (tpot_ns); else int */
    i64  hdr_low, hdr_high;/* low below 1 is 1, as upstream clamps it */
    int  sig_figs;         /* 1..5 */
    int  n_buckets;        /* 1..AGG_MAX_BUCKETS */
    bool early_stopping;   /* an EarlyStoppingSpec() for this series */
} agg_series_opts;

/* A new empty series, or NULL with `e` filled: ERR_INVALID for opts
 * upstream refuses (sig_figs outside 1..5, hdr_high < 2 * hdr_low) and
 * for n_buckets outside 1..AGG_MAX_BUCKETS (upstream takes any number
 * and fails at the first snapshot of a non-empty series when it is
 * below 1); ERR_NOMEM. The series owns its memory: the HDR counts (see
 * hdr.h, 270 KB for the nanosecond series) and the raw values. Not
 * thread-safe; a forked copy is independent. */
agg_series *agg_series_new(const agg_series_opts *o, err *e);
void        agg_series_free(agg_series *s);

/* SeriesSampler.record(value). Every value is kept (8 bytes a sample, in
 * an array that grows by half when full: at most 12 bytes a sample in
 * all), as upstream keeps them for the exact statistics. Returns ERR_OK,
 * or ERR_NOMEM with the series unchanged. agg_series_record_float also
 * returns ERR_INVALID, with the series unchanged, for a value that is not
 * finite or not below 2^64 in magnitude: upstream's tpot_ns, an int64
 * difference over a positive count, is always inside that range, and
 * outside it upstream either raises (NaN) or builds NaN histogram edges
 * that numpy orders in its own way. Each function is for its kind of
 * series only: the other kind's is a programmer error (ASSERT in debug
 * builds, ERR_INVALID with the series unchanged otherwise). */
int agg_series_record_int(agg_series *s, i64 v);
int agg_series_record_float(agg_series *s, double v);
i64 agg_series_count(const agg_series *s);

/* A series' statistics, field for field what upstream's snapshot dict
 * holds (_metric_to_dict(build_stat(exact=...))):
 *   total     int series: the exact sum (total_i; 128 bits cannot
 *             overflow below 2^64 samples); float: the sum in record
 *             order (total_f); is_float says which.
 *   min, max  ints (minmax_int) for an int series and for every empty
 *             series (0, 0); else the float series' doubles.
 *   sum_sq    float(sum of squares) whenever count > 0, the int sum
 *             being exact (kept in 192 bits) and rounded once;
 *             sum_sq_int only for an empty int series (the int 0).
 *   pct       the AGG_NPCT percentiles, as floats (0.0 when empty).
 *   es        has_es when early stopping is on and the snapshot is
 *             exact (also when empty); es_null[k]: None (too few
 *             samples for that percentile).
 *   histogram nbuckets (0 when empty, else opts.n_buckets) buckets:
 *             [edges[k], edges[k + 1]) holds counts[k].
 * A non-finite double here is what the consumer writes as null. */
typedef struct agg_stat {
    i64 count; bool is_float;
    agg_i128 total_i; double total_f;
    bool minmax_int; i64 min_i, max_i; double min_f, max_f;
    bool sum_sq_int; agg_i128 sum_sq_i; double sum_sq_f;
    double pct[AGG_NPCT];
    bool has_es; bool es_null[AGG_NES]; double es[AGG_NES];
    int nbuckets; double edges[AGG_MAX_BUCKETS + 1]; i64 counts[AGG_MAX_BUCKETS];
} agg_stat;

/* build_stat(exact=complete) into *out. The exact path sorts the raw
 * values in place, as upstream does (recording may go on afterwards:
 * nothing depends on their order but the float total, which is summed at
 * record time). Returns ERR_OK; `e` is for errors this cannot have yet. */
int agg_series_stat(agg_series *s, bool complete, agg_stat *out, err *e);

#endif
