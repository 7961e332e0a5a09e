/* tmpl_sort.c - CPython's list.sort for the filters and json.dumps
 * (tmpl_lib.h): stable, with Python's comparisons, and for short lists
 * CPython's very sequence of comparisons (so a TypeError of incomparable
 * items names the same pair). */
#include "tmpl_lib.h"

/* `a < b` of two sort keys. */
typedef bool (*tmpl_lt_fn)(tmpl_rt *rt, const void *ctx, tv a, tv b);

bool tmpl_lt_plain(tmpl_rt *rt, const void *ctx, tv a, tv b)
{
    (void)ctx;
    return tv_compare(rt, TMPL_OP_LT, a, b);
}

/* Keys that are lists of values (make_multi_attrgetter): Python's list
 * comparison, == on the items until one differs, then < on that one. */
bool tmpl_lt_multi(tmpl_rt *rt, const void *ctx, tv a, tv b)
{
    (void)ctx;
    const tv_list *x = a.u.list, *y = b.u.list;
    iz n = MIN(x->n, y->n);
    for (iz i = 0; i < n; i++)
        if (!tv_equal(rt, x->v[i], y->v[i]))
            return tv_compare(rt, TMPL_OP_LT, x->v[i], y->v[i]);
    return x->n < y->n;
}

typedef struct sorter {
    tmpl_rt    *rt;
    tmpl_lt_fn       lt;
    const void *ctx;
    tv         *keys, *vals;
} sorter;

static void swap_tv(tv *a, tv *b) { tv t = *a; *a = *b; *b = t; }

static void reverse_range(tv *v, iz lo, iz hi)
{
    for (hi--; lo < hi; lo++, hi--)
        swap_tv(v + lo, v + hi);
}

/* CPython's binarysort: [lo, start) is sorted; insert start..hi-1. */
static void binarysort(sorter *s, iz lo, iz hi, iz start)
{
    for (; start < hi; start++) {
        iz l = lo, r = start;
        tv pk = s->keys[start], pv = s->vals[start];
        do {
            iz p = l + ((r - l) >> 1);
            if (s->lt(s->rt, s->ctx, pk, s->keys[p]))
                r = p;
            else
                l = p + 1;
        } while (l < r);
        for (iz p = start; p > l; p--) {
            s->keys[p] = s->keys[p - 1];
            s->vals[p] = s->vals[p - 1];
        }
        s->keys[l] = pk;
        s->vals[l] = pv;
    }
}

/* CPython's count_run: the length of the run at lo, made ascending. */
static iz count_run(sorter *s, iz lo, iz hi)
{
    if (lo + 1 >= hi)
        return hi - lo;
    iz n = 2;
    if (s->lt(s->rt, s->ctx, s->keys[lo + 1], s->keys[lo])) {
        for (iz k = lo + 2; k < hi; k++, n++)
            if (!s->lt(s->rt, s->ctx, s->keys[k], s->keys[k - 1]))
                break;
        reverse_range(s->keys, lo, lo + n);
        reverse_range(s->vals, lo, lo + n);
    } else {
        for (iz k = lo + 2; k < hi; k++, n++)
            if (s->lt(s->rt, s->ctx, s->keys[k], s->keys[k - 1]))
                break;
    }
    return n;
}

static iz merge_compute_minrun(iz n)
{
    iz r = 0;
    while (n >= 64) {
        r |= n & 1;
        n >>= 1;
    }
    return n + r;
}

/* Stable merge of the adjacent sorted ranges [lo, mid) and [mid, hi),
 * comparing an element of the right run with one of the left, as
 * CPython's merges do. */
static void merge_runs(sorter *s, iz lo, iz mid, iz hi, tv *tk, tv *tvv)
{
    iz na = mid - lo;
    memcpy(tk, s->keys + lo, sizeof(tv) * (size_t)na);
    memcpy(tvv, s->vals + lo, sizeof(tv) * (size_t)na);
    iz i = 0, j = mid, o = lo;
    while (i < na && j < hi) {
        if (s->lt(s->rt, s->ctx, s->keys[j], tk[i])) {
            s->keys[o] = s->keys[j];
            s->vals[o++] = s->vals[j++];
        } else {
            s->keys[o] = tk[i];
            s->vals[o++] = tvv[i++];
        }
    }
    while (i < na) {
        s->keys[o] = tk[i];
        s->vals[o++] = tvv[i++];
    }
}

/* Sorts vals by keys in place (both arrays permuted), stably, with
 * Python's sort(reverse=...) semantics. Lists shorter than 64 go exactly
 * through CPython's comparisons (count_run + binary insertion), so even the
 * TypeError of an incomparable pair names the same operands; longer ones
 * are split into the same runs and merged plainly (same result for any
 * consistent ordering). */
void tmpl_sort(tmpl_rt *rt, tv *keys, tv *vals, iz n, bool reverse, tmpl_lt_fn lt, const void *ctx)
{
    if (n < 2)
        return;
    tmpl_work(rt, n * (iz)(64 - __builtin_clzll((unsigned long long)n)));   /* n log n comparisons */
    sorter s = {rt, lt, ctx, keys, vals};
    if (reverse) {
        reverse_range(keys, 0, n);
        reverse_range(vals, 0, n);
    }
    iz minrun = merge_compute_minrun(n);
    iz *runs = NEW(rt->a, iz, n + 1);
    iz nruns = 0;
    for (iz lo = 0; lo < n;) {
        iz r = count_run(&s, lo, n);
        if (r < minrun) {
            iz force = MIN(minrun, n - lo);
            binarysort(&s, lo, lo + force, lo + r);
            r = force;
        }
        runs[nruns++] = lo;
        lo += r;
    }
    runs[nruns] = n;
    if (nruns > 1) {
        tv *tk = NEW(rt->a, tv, n), *tvv = NEW(rt->a, tv, n);
        while (nruns > 1) {
            iz w = 0;
            for (iz r = 0; r < nruns; r += 2) {
                if (r + 1 < nruns)
                    merge_runs(&s, runs[r], runs[r + 1], runs[r + 2], tk, tvv);
                runs[w++] = runs[r];
            }
            runs[w] = n;
            nruns = w;
        }
    }
    if (reverse) {
        reverse_range(keys, 0, n);
        reverse_range(vals, 0, n);
    }
}

/* sorted()'s reverse argument: an int (Python converts it with
 * _PyLong_AsInt). */
