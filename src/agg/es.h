/* es.h - upstream's early-stopping estimate (metrics/early_stopping.py,
 * docs/upstream-aggregator.md §10.5): MLPerf LoadGen's binomial test at
 * confidence 0.99 and tolerance 0, which says how far below the top of n
 * sorted samples a conservative estimate of a percentile sits. Pure
 * arithmetic: no state, no memory, safe from any thread and across fork.
 * Depends on base/ only. */
#ifndef TALLY_AGG_ES_H
#define TALLY_AGG_ES_H

#include "../base/base.h"

/* es_percentile_estimate's order statistic for n ascending samples and a
 * percentile of the report grid (1 <= percentile < 100, as 99.9): t >= 1
 * such that the estimate is sorted[n - t], or 0 when n is below the test's
 * floor (find_min_passing(1) + 1 samples) and upstream's estimate is None.
 * n < 0 counts as 0. */
i64 agg_es_rank(i64 n, double percentile);

/* find_min_passing(t, p): the fewest samples under the bound that, with t
 * over it, pass the test; p a fraction (0 < p < 1), t >= 0. */
i64 agg_es_min_passing(i64 t, double p);

/* Python's math.lgamma (CPython's own Lanczos formula, not libm's): the
 * test's beta function goes through it, and libm's differs in the last
 * bits. */
double agg_py_lgamma(double x);

#endif
