/* hdr.c - hdrh's histogram (hdr.h). The layout is computed the way hdrh
 * computes it, in doubles where it uses math.log and math.pow, so that a
 * bound like 2^k gets the same unit magnitude; indices and values are
 * integers. Values that Python holds in unbounded ints stay below 2^63
 * here: a recorded value is at most high, and the highest value
 * equivalent to v is v with its low bits set. */
#include "hdr.h"

#include <math.h>
#include <stdlib.h>

__extension__ typedef unsigned __int128 u128;

/* sys.maxsize // 2: get_bucket_count stops doubling past it. */
#define MAXSIZE_HALF ((i64)(INT64_MAX / 2))

static int bitlen(u64 v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

/* get_bucket_count: buckets until sub_count << unit_mag, doubled, passes
 * high (the product can pass 2^63 for a large low, hence 128 bits). */
static int bucket_count(i64 high, i64 sub_count, int unit_mag)
{
    u128 smallest = (u128)sub_count << unit_mag;
    int n = 1;
    while (smallest <= (u128)high) {
        if (smallest > (u128)MAXSIZE_HALF)
            return n + 1;
        smallest <<= 1;
        n++;
    }
    return n;
}

int agg_hdr_init(agg_hdr *h, i64 low, i64 high, int sig_figs, err *e)
{
    *h = (agg_hdr){0};
    if (sig_figs < 1 || sig_figs > 5)
        return err_set(e, ERR_INVALID, -1, "HDR significant figures must be 1 to 5, not %d", sig_figs);
    if (low < 1)
        return err_set(e, ERR_INVALID, -1, "HDR low must be >= 1, not %lld", (long long)low);
    if (high / 2 < low)
        return err_set(e, ERR_INVALID, -1, "HDR high (%lld) must be >= 2 * low (%lld)", (long long)high,
                       (long long)low);
    h->low = low;
    h->high = high;
    h->unit_mag = (int)floor(log((double)low) / log(2.0));
    int sub_mag = (int)ceil(log(2.0 * pow(10.0, sig_figs)) / log(2.0));
    h->half_mag = sub_mag > 1 ? sub_mag - 1 : 0;
    h->sub_count = (i64)1 << (h->half_mag + 1);
    h->sub_half = h->sub_count / 2;
    h->bucket_count = bucket_count(high, h->sub_count, h->unit_mag);
    h->counts_len = (iz)(h->bucket_count + 1) * (iz)h->sub_half;
    h->counts = calloc((size_t)h->counts_len, sizeof *h->counts);
    h->top = -1;
    if (!h->counts) {
        *h = (agg_hdr){0};
        return err_set(e, ERR_NOMEM, -1, "out of memory");
    }
    return ERR_OK;
}

void agg_hdr_fini(agg_hdr *h)
{
    free(h->counts);
    *h = (agg_hdr){0};
}

/* _get_bucket_index: bit_length(v | mask) - unit_mag - (half_mag + 1),
 * where the mask (sub_count - 1) << unit_mag has unit_mag + half_mag + 1
 * bits, so the bit length of the OR is the larger of the two. */
static int bucket_of(const agg_hdr *h, u64 v)
{
    int mask_bits = h->unit_mag + h->half_mag + 1;
    int b = bitlen(v);
    return (b > mask_bits ? b : mask_bits) - mask_bits;
}

static u64 sub_of(const agg_hdr *h, u64 v, int bucket)
{
    return v >> (bucket + h->unit_mag);
}

static iz index_of(const agg_hdr *h, u64 v)
{
    int b = bucket_of(h, v);
    return ((iz)(b + 1) << h->half_mag) + (iz)sub_of(h, v, b) - (iz)h->sub_half;
}

/* get_value_from_index: the lowest value of index i. */
static u64 value_of(const agg_hdr *h, iz i)
{
    iz b = (i >> h->half_mag) - 1;
    u64 s = (u64)(i & (h->sub_half - 1)) + (u64)h->sub_half;
    if (b < 0) {
        s -= (u64)h->sub_half;
        b = 0;
    }
    return s << (b + h->unit_mag);
}

static u64 lowest_equivalent(const agg_hdr *h, u64 v)
{
    int b = bucket_of(h, v);
    return sub_of(h, v, b) << (b + h->unit_mag);
}

static u64 highest_equivalent(const agg_hdr *h, u64 v)
{
    int b = bucket_of(h, v);
    u64 s = sub_of(h, v, b);
    u64 lowest = s << (b + h->unit_mag);
    if (s >= (u64)h->sub_count)
        b++;
    return lowest + ((u64)1 << (h->unit_mag + b)) - 1;
}

bool agg_hdr_record(agg_hdr *h, i64 v)
{
    if (v < 0)
        return false;
    iz i = index_of(h, (u64)v);
    if (i < 0 || i >= h->counts_len)
        return false;
    h->counts[i]++;
    h->total++;
    if (i > h->top)
        h->top = i;
    return true;
}

/* get_target_count_at_percentile, in Python's order of operations. */
static i64 target_count(const agg_hdr *h, double p)
{
    double req = 100.0 < p ? 100.0 : p;
    i64 c = (i64)(req * (double)h->total / 100.0 + 0.5);
    return c > 1 ? c : 1;
}

void agg_hdr_percentiles(const agg_hdr *h, const double *p, int n, i64 *out)
{
    enum { MAXP = 64 };
    i64 want[MAXP];
    ASSERT(n <= MAXP);
    int left = 0;
    for (int k = 0; k < n; k++) {
        out[k] = 0;
        want[k] = target_count(h, p[k]);
        left++;
    }
    /* One pass instead of hdrh's scan per percentile: the running count
     * only changes at an index with a count, and every target is at least
     * 1, so the first index to reach a target is one of those. `next` is
     * the lowest target not reached: below it an index costs a compare. */
    i64 run = 0, next = INT64_MAX;
    for (int k = 0; k < n; k++)
        next = MIN(next, want[k]);
    for (iz i = 0; i <= h->top && left; i++) {
        run += h->counts[i];
        if (run < next)
            continue;
        next = INT64_MAX;
        for (int k = 0; k < n; k++) {
            if (want[k] < 0)
                continue;
            if (run < want[k]) {
                next = MIN(next, want[k]);
                continue;
            }
            u64 v = value_of(h, i);
            out[k] = (i64)(p[k] != 0.0 ? highest_equivalent(h, v) : lowest_equivalent(h, v));
            want[k] = -1;
            left--;
        }
    }
}

void agg_hdr_bins(const agg_hdr *h, const i64 *thr, int nthr, i64 *bins, int nbins)
{
    ASSERT(nbins >= 1);
    iz end = MIN(h->top + 1, h->counts_len - 1);
    int le = 0;   /* thresholds <= the value */
    for (iz i = 0; i < end; i++) {
        i64 c = h->counts[i];
        if (!c)
            continue;
        i64 v = (i64)highest_equivalent(h, value_of(h, i));
        while (le < nthr && thr[le] <= v)
            le++;
        int j = le - 1;
        bins[j < 0 ? 0 : j >= nbins ? nbins - 1 : j] += c;
    }
}

bool agg_hdr_next_recorded(const agg_hdr *h, iz *i, i64 *value, i64 *count)
{
    /* AllValuesIterator.has_next: current_index < counts_len - 1. */
    iz end = MIN(h->top + 1, h->counts_len - 1);
    for (iz k = *i; k < end; k++) {
        if (h->counts[k]) {
            *value = (i64)highest_equivalent(h, value_of(h, k));
            *count = h->counts[k];
            *i = k + 1;
            return true;
        }
    }
    *i = end;
    return false;
}
