/* hdr.h - an HDR histogram with the arithmetic of Python's hdrh 0.10.3
 * (HdrHistogram_py hdrh/histogram.py and iterators.py,
 * docs/upstream-aggregator.md §11): the same bucket layout, the same
 * indices, the same percentile targets and the same recorded iteration,
 * so that every value upstream's live snapshot derives from it comes out
 * the same. Depends on base/ only. */
#ifndef TALLY_AGG_HDR_H
#define TALLY_AGG_HDR_H

#include "../base/base.h"
#include "../base/err.h"

/* The counts are one array of counts_len i64 (8 bytes each), allocated by
 * agg_hdr_init and never grown: 33,792 of them (270 KB) for 1 .. 3.6e12
 * at 3 significant figures, 15,360 for 1 .. 1e7; the most any bounds can
 * ask for is 6,160,384 (47 MB: 1 .. 2^63 - 1 at 5 figures). Fields are
 * read-only outside hdr.c. Not thread-safe; a forked copy is
 * independent. */
typedef struct agg_hdr {
    i64  low, high;
    int  unit_mag;         /* floor(log2(low)), as hdrh computes it in doubles */
    int  half_mag;         /* log2 of sub_half */
    i64  sub_count, sub_half;
    int  bucket_count;
    iz   counts_len;       /* (bucket_count + 1) * sub_half */
    i64 *counts;
    i64  total;            /* values recorded (total_count) */
    iz   top;              /* the highest index with a count; -1 when none */
} agg_hdr;

/* HdrHistogram(low, high, sig_figs). ERR_INVALID (and *h zeroed) when
 * hdrh or upstream's SeriesSampler would refuse the bounds: sig_figs
 * outside 1..5, low < 1 or high < 2 * low; ERR_NOMEM. */
int  agg_hdr_init(agg_hdr *h, i64 low, i64 high, int sig_figs, err *e);
void agg_hdr_fini(agg_hdr *h);

/* record_value(v): a negative v, or one whose index falls outside the
 * array, is ignored (false), as hdrh does. */
bool agg_hdr_record(agg_hdr *h, i64 v);

/* get_value_at_percentile(p) for each of the n percentiles (any order):
 * the highest value equivalent to the first index whose running count
 * reaches max(int(min(p, 100) * total / 100 + 0.5), 1) (the lowest one
 * for p = 0), or 0 when none does. */
void agg_hdr_percentiles(const agg_hdr *h, const double *p, int n, i64 *out);

/* The recorded iterator's histogram in one pass: each recorded step's
 * count goes to bins[j], j = (the number of thresholds <= its value) - 1,
 * clamped to [0, nbins - 1]; thr ascending. Adds to bins. */
void agg_hdr_bins(const agg_hdr *h, const i64 *thr, int nthr, i64 *bins, int nbins);

/* The recorded iterator: the next index at or after *i holding a count,
 * below counts_len - 1 (hdrh's iteration never reaches the last index),
 * with its value_iterated_to (the highest equivalent value) and count.
 * Returns false at the end. Start with *i = 0; each call moves *i past
 * the index it returns. */
bool agg_hdr_next_recorded(const agg_hdr *h, iz *i, i64 *value, i64 *count);

#endif
