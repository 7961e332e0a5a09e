/* series.c - upstream's SeriesSampler (series.h): record() and
 * build_stat() with their exact path (sort, np.percentile "lower",
 * np.clip + np.histogram over log-spaced edges, early stopping) and their
 * HDR path (hdrh percentiles, the recorded iterator binned with
 * bisect_right). Python's arithmetic is kept where it shows: int sums are
 * exact, float sums in record order, ints meet floats in exact
 * comparisons and are rounded once when converted. */
#include "series.h"

#include <math.h>
#include <stdlib.h>

#include "es.h"
#include "hdr.h"

const char *const agg_pct_keys[AGG_NPCT] = {
    "99.9", "99.0", "97.0", "95.0", "90.0", "80.0", "75.0", "50.0", "25.0", "10.0", "5.0", "1.0",
};

/* DEFAULT_PERCENTILES (registry.py). */
static const double pct_grid[AGG_NPCT] = {
    99.9, 99.0, 97.0, 95.0, 90.0, 80.0, 75.0, 50.0, 25.0, 10.0, 5.0, 1.0,
};

__extension__ typedef unsigned __int128 u128;

struct agg_series {
    agg_series_opts o;       /* hdr_low clamped to >= 1 */
    agg_hdr  hdr;
    i64      count;
    /* int series: the sums Python keeps as unbounded ints. The total of
     * i64 values cannot leave 128 bits below 2^64 samples. A square is at
     * most 2^126, so fewer than 2^63 of them sum below 2^189: sq_hi, the
     * word above sq_lo, stays below 2^61. */
    agg_i128 total_i;
    u128     sq_lo;
    u64      sq_hi;
    i64      min_i, max_i;
    /* float series: doubles, summed in record order */
    double   total_f, sum_sq_f, min_f, max_f;
    /* the raw values (array('q') or array('d')), len of cap */
    union {
        i64    *i;
        double *f;
    } raw;
    iz       len, cap;
};

agg_series *agg_series_new(const agg_series_opts *o, err *e)
{
    if (o->n_buckets < 1 || o->n_buckets > AGG_MAX_BUCKETS) {
        err_set(e, ERR_INVALID, -1, "histogram buckets must be 1 to %d, not %d", AGG_MAX_BUCKETS, o->n_buckets);
        return NULL;
    }
    agg_series *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    s->o = *o;
    /* "HDR low must be >= 1": upstream raises the bound, it does not refuse it. */
    if (s->o.hdr_low < 1)
        s->o.hdr_low = 1;
    if (agg_hdr_init(&s->hdr, s->o.hdr_low, s->o.hdr_high, s->o.sig_figs, e) != ERR_OK) {
        free(s);
        return NULL;
    }
    s->min_f = INFINITY;
    s->max_f = -INFINITY;
    return s;
}

void agg_series_free(agg_series *s)
{
    if (!s)
        return;
    agg_hdr_fini(&s->hdr);
    free(s->raw.i);
    free(s);
}

i64 agg_series_count(const agg_series *s)
{
    return s->count;
}

/* Room for one more raw value: the array grows by half. */
static bool reserve_one(agg_series *s)
{
    if (s->len < s->cap)
        return true;
    iz cap = s->cap ? s->cap + s->cap / 2 : 256;
    if (cap > PTRDIFF_MAX / 8)
        return false;
    void *p = realloc(s->raw.i, (size_t)cap * 8);
    if (!p)
        return false;
    s->raw.i = p;
    s->cap = cap;
    return true;
}

int agg_series_record_int(agg_series *s, i64 v)
{
    ASSERT(!s->o.is_float);
    if (s->o.is_float)
        return ERR_INVALID;
    if (!reserve_one(s))
        return ERR_NOMEM;
    s->raw.i[s->len++] = v;
    s->count++;
    s->total_i += v;
    u64 m = v < 0 ? 0 - (u64)v : (u64)v;
    u128 sq = (u128)m * m;
    s->sq_lo += sq;
    s->sq_hi += s->sq_lo < sq;
    /* min and max start at +inf and -inf: the first value sets both. */
    if (s->count == 1 || v < s->min_i)
        s->min_i = v;
    if (s->count == 1 || v > s->max_i)
        s->max_i = v;
    /* The HDR view: max(int(value), low), then high at most. */
    i64 c = s->o.hdr_low > v ? s->o.hdr_low : v;
    if (c > s->o.hdr_high)
        c = s->o.hdr_high;
    agg_hdr_record(&s->hdr, c);
    return ERR_OK;
}

/* x > v as Python compares a float with an int: exactly (x finite). */
static bool float_gt_int(double x, i64 v)
{
    if (x >= 0x1p63)
        return true;
    if (x < -0x1p63)
        return false;
    double f = floor(x);
    i64 fi = (i64)f;
    return fi > v || (fi == v && x > f);
}

int agg_series_record_float(agg_series *s, double v)
{
    ASSERT(s->o.is_float);
    if (!s->o.is_float || !(fabs(v) < 0x1p64))
        return ERR_INVALID;
    if (!reserve_one(s))
        return ERR_NOMEM;
    s->raw.f[s->len++] = v;
    s->count++;
    s->total_f += v;
    s->sum_sq_f += v * v;
    if (v < s->min_f)
        s->min_f = v;
    if (v > s->max_f)
        s->max_f = v;
    /* max(float(value), float(low)); compared with the int high exactly;
     * int() truncates what stays below it. */
    double low = (double)s->o.hdr_low;
    double c = low > v ? low : v;
    agg_hdr_record(&s->hdr, float_gt_int(c, s->o.hdr_high) ? s->o.hdr_high : (i64)c);
    return ERR_OK;
}

/* float(int) of hi * 2^128 + lo: correctly rounded, ties to even, as
 * Python converts an int. hi is below 2^61 (see struct agg_series). */
static double wide_to_double(u64 hi, u128 lo)
{
    if (!hi)
        return (double)lo;   /* GCC's conversion rounds correctly */
    /* The top 64 bits and whether any bit below them is set. */
    int shift = 64 + (64 - __builtin_clzll(hi));   /* 65 .. 125 */
    u64 top = (u64)(((u128)hi << (128 - shift)) | (lo >> shift));
    bool sticky = (lo & (((u128)1 << shift) - 1)) != 0;
    u64 mant = top >> 11;
    u64 rest = top & 0x7ff;
    if (rest > 0x400 || (rest == 0x400 && (sticky || (mant & 1))))
        mant++;
    return ldexp((double)mant, shift + 11);
}

/* _log_spaced_edges(min, max, n) in doubles: glibc's log and exp, as
 * Python's math module calls them. */
static void log_edges(double min, double max, int n, double *edges)
{
    double lo = 1.0 > min ? 1.0 : min;
    double hi = lo * 10.0 > max ? lo * 10.0 : max;
    double log_lo = log(lo), log_hi = log(hi);
    double step = (log_hi - log_lo) / (double)n;
    for (int i = 0; i <= n; i++)
        edges[i] = exp(log_lo + (double)i * step);
}

/* A key that orders as the value does: the sign bit flipped for an int;
 * for a double, all bits flipped when negative, the sign bit otherwise
 * (-0.0 then sorts before 0.0, which numpy leaves unspecified: they are
 * equal to it). */
static u64 key_of(const agg_series *s, iz i)
{
    if (!s->o.is_float)
        return (u64)s->raw.i[i] ^ ((u64)1 << 63);
    u64 b;
    memcpy(&b, &s->raw.f[i], 8);
    return b >> 63 ? ~b : b | ((u64)1 << 63);
}

static void set_value(agg_series *s, iz i, u64 k)
{
    if (!s->o.is_float) {
        s->raw.i[i] = (i64)(k ^ ((u64)1 << 63));
        return;
    }
    u64 b = k >> 63 ? k & ~((u64)1 << 63) : ~k;
    memcpy(&s->raw.f[i], &b, 8);
}

/* American flag sort: an MSD radix sort in place, a byte at a time from
 * the top (a byte all the keys of a range share costs two passes that
 * move nothing), insertion sort below 32 keys. Recursion depth at most 8.
 * 10 M latencies sort in a fifth of qsort's time. */
static void flag_sort(u64 *a, iz n, int shift)
{
    if (n < 32) {
        for (iz i = 1; i < n; i++) {
            u64 k = a[i];
            iz j = i;
            for (; j > 0 && a[j - 1] > k; j--)
                a[j] = a[j - 1];
            a[j] = k;
        }
        return;
    }
    iz count[256] = {0};
    for (iz i = 0; i < n; i++)
        count[(a[i] >> shift) & 0xff]++;
    iz next[256], end[256], at = 0;
    for (int c = 0; c < 256; c++) {
        next[c] = at;
        at += count[c];
        end[c] = at;
    }
    /* Each key goes straight to the next free slot of its bucket; the key
     * found there moves on in turn, until one belongs where the chain
     * began. */
    for (int c = 0; c < 256; c++) {
        while (next[c] < end[c]) {
            u64 k = a[next[c]];
            int d = (int)((k >> shift) & 0xff);
            while (d != c) {
                u64 t = a[next[d]];
                a[next[d]++] = k;
                k = t;
                d = (int)((k >> shift) & 0xff);
            }
            a[next[c]++] = k;
        }
    }
    if (shift == 0)
        return;
    for (int c = 0; c < 256; c++) {
        iz lo = end[c] - count[c];
        if (count[c] > 1)
            flag_sort(a + lo, count[c], shift - 8);
    }
}

/* The raw values ascending, as arr.sort() leaves them, in their own
 * memory as upstream sorts them (no second copy of millions of values):
 * the keys replace the values (heap memory takes the type it is written
 * with), are sorted, and turn back into values. */
static void sort_raw(agg_series *s)
{
    iz n = s->len;
    u64 *a = (u64 *)(void *)s->raw.i;
    for (iz i = 0; i < n; i++)
        a[i] = key_of(s, i);
    flag_sort(a, n, 56);
    for (iz i = 0; i < n; i++)
        set_value(s, i, a[i]);
}

static double raw_at(const agg_series *s, iz i)
{
    return s->o.is_float ? s->raw.f[i] : (double)s->raw.i[i];
}

/* _exact_stat on the sorted raw values. */
static void exact_stat(agg_series *s, agg_stat *out)
{
    iz n = s->len;
    sort_raw(s);
    /* np.percentile(method="lower"): q = p / 100, index floor((n-1) * q). */
    for (int k = 0; k < AGG_NPCT; k++) {
        double q = pct_grid[k] / 100.0;
        out->pct[k] = raw_at(s, (iz)floor((double)(n - 1) * q));
    }
    /* np.histogram(np.clip(arr, edges[0], edges[-1]), bins=edges): bin k
     * holds edges[k] <= x < edges[k+1], the last one also x == edges[n]
     * (searchsorted left on all edges but the last, right on it). The
     * values are doubles once clipped, and sorted, so one pointer walks
     * them against the edges. */
    int nb = out->nbuckets;
    double e0 = out->edges[0], en = out->edges[nb];
    iz at = 0, below = 0;
    for (int k = 0; k <= nb; k++) {
        double edge = out->edges[k];
        for (; at < n; at++) {
            double x = raw_at(s, at);
            x = x < e0 ? e0 : x > en ? en : x;
            if (k < nb ? !(x < edge) : !(x <= edge))
                break;
        }
        if (k > 0)
            out->counts[k - 1] = (i64)(at - below);
        below = at;
    }
    if (s->o.early_stopping) {
        out->has_es = true;
        for (int k = 0; k < AGG_NES; k++) {
            i64 t = agg_es_rank(n, pct_grid[k]);
            out->es_null[k] = t == 0;
            out->es[k] = t ? raw_at(s, n - t) : 0.0;
        }
    }
}

/* _hdr_stat's percentiles and histogram: each recorded step's value goes
 * to bucket bisect_right(edges, v) - 1, clamped to [0, n-1]. Python
 * compares the float edge with the int value exactly: edge <= v is
 * ceil(edge) <= v, and an edge of 2^63 or more is above every value. */
static void hdr_stat(const agg_series *s, agg_stat *out)
{
    i64 v[AGG_NPCT];
    agg_hdr_percentiles(&s->hdr, pct_grid, AGG_NPCT, v);
    for (int k = 0; k < AGG_NPCT; k++)
        out->pct[k] = (double)v[k];
    int nb = out->nbuckets;
    i64 thr[AGG_MAX_BUCKETS + 1];
    int nthr = 0;
    while (nthr <= nb && out->edges[nthr] < 0x1p63) {
        double e = out->edges[nthr];
        thr[nthr++] = e < -0x1p63 ? INT64_MIN : (i64)ceil(e);
    }
    agg_hdr_bins(&s->hdr, thr, nthr, out->counts, nb);
}

int agg_series_stat(agg_series *s, bool complete, agg_stat *out, err *e)
{
    (void)e;
    memset(out, 0, sizeof *out);
    out->count = s->count;
    out->is_float = s->o.is_float;
    if (s->count == 0) {
        /* build_stat's empty shape: int zeros for min and max whatever the
         * dtype; the early-stopping map (all None) on the exact path. */
        out->minmax_int = true;
        out->sum_sq_int = !s->o.is_float;
        out->has_es = complete && s->o.early_stopping;
        for (int k = 0; k < AGG_NES; k++)
            out->es_null[k] = true;
        return ERR_OK;
    }
    double min, max;
    if (s->o.is_float) {
        out->total_f = s->total_f;
        out->min_f = min = s->min_f;
        out->max_f = max = s->max_f;
        out->sum_sq_f = s->sum_sq_f;
    } else {
        out->total_i = s->total_i;
        out->minmax_int = true;
        out->min_i = s->min_i;
        out->max_i = s->max_i;
        min = (double)s->min_i;
        max = (double)s->max_i;
        out->sum_sq_f = wide_to_double(s->sq_hi, s->sq_lo);
    }
    out->nbuckets = s->o.n_buckets;
    log_edges(min, max, out->nbuckets, out->edges);
    if (complete)
        exact_stat(s, out);
    else
        hdr_stat(s, out);
    return ERR_OK;
}
