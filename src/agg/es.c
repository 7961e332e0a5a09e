/* es.c - the early-stopping estimate (es.h): the regularized incomplete
 * beta of Numerical Recipes' continued fraction, LoadGen's odds, the two
 * searches and Python's lgamma, each evaluated in the order Python does
 * so that every double comes out the same. */
#include "es.h"

#include <math.h>

/* the same type as table.h and series.h give it */
__extension__ typedef __int128 agg_i128;

/* ---- Python's math.lgamma ------------------------------------------------
 *
 * CPython computes lgamma itself (Modules/mathmodule.c, m_lgamma) with
 * Lanczos' approximation, N = 13 and g = 6.0246800407767295837...: the
 * rational function below, whose constants come from Boost and Godfrey.
 * glibc's lgamma rounds differently in the last bits, and the odds near
 * the 0.01 threshold can see that. */

enum { LANCZOS_N = 13 };
static const double lanczos_g = 6.024680040776729583740234375;
static const double lanczos_num[LANCZOS_N] = {
    23531376880.410759688572007674451636754734846804940,
    42919803642.649098768957899047001988850926355848959,
    35711959237.355668049440185451547166705960488635843,
    17921034426.037209699919755754458931112671403265390,
    6039542586.3520280050642916443072979210699388420708,
    1439720407.3117216736632230727949123939715485786772,
    248874557.86205415651146038641322942321632125127801,
    31426415.585400194380614231628318205362874684987640,
    2876370.6289353724412254090516208496135991145378768,
    186056.26539522349504029498971604569928220784236328,
    8071.6720023658162106380029022722506138218516325024,
    210.82427775157934587250973392071336271166969580291,
    2.5066282746310002701649081771338373386264310793408,
};
/* The denominator is x (x+1) ... (x+11), as a polynomial. */
static const double lanczos_den[LANCZOS_N] = {
    0.0, 39916800.0, 120543840.0, 150917976.0, 105258076.0, 45995730.0,
    13339535.0, 2637558.0, 357423.0, 32670.0, 1925.0, 66.0, 1.0,
};

/* The rational function at x > 0: Horner in x below 5, in 1/x above (so
 * that large x cannot overflow), CPython's cut. */
static double lanczos_sum(double x)
{
    double num = 0.0, den = 0.0;
    if (x < 5.0) {
        for (int i = LANCZOS_N - 1; i >= 0; i--) {
            num = num * x + lanczos_num[i];
            den = den * x + lanczos_den[i];
        }
    } else {
        for (int i = 0; i < LANCZOS_N; i++) {
            num = num / x + lanczos_num[i];
            den = den / x + lanczos_den[i];
        }
    }
    return num / den;
}

/* Python's answer for every x > 0 (integers up to 2 are exactly 0.0, tiny
 * x is -log x). The test only ever passes positive integers, so the
 * reflection for negative x is left out: x <= 0 gives NaN (where Python
 * raises ValueError or reflects). */
double agg_py_lgamma(double x)
{
    if (isnan(x) || x <= 0.0)
        return NAN;
    if (isinf(x))
        return HUGE_VAL;
    if (x == floor(x) && x <= 2.0)
        return 0.0;
    if (x < 1e-20)
        return -log(x);
    double r = log(lanczos_sum(x)) - lanczos_g;
    /* (x + g) - 0.5, not x + (g - 0.5): CPython's order. */
    r += (x - 0.5) * (log(x + lanczos_g - 0.5) - 1.0);
    return r;
}

/* ---- the beta function ---------------------------------------------------
 *
 * In upstream, a and b are Python ints (the sample counts h and 1 + t):
 * every product of two of them is an exact integer before it meets a
 * double, where it is rounded once (float(int) is correctly rounded, and
 * so is GCC's __int128 to double). The products are formed in 128 bits so
 * that they stay exact for any count an i64 holds. */

/* _betacf: Lentz's evaluation of the continued fraction, two terms per
 * round, at most 399 rounds, eps 3e-16, fpmin 1e-300. */
static double betacf(i64 a, i64 b, double x)
{
    const double eps = 3e-16, fpmin = 1e-300;
    i64 qab = a + b;
    double qap = (double)a + 1.0, qam = (double)a - 1.0;
    double c = 1.0;
    double d = 1.0 - (double)qab * x / qap;
    if (fabs(d) < fpmin)
        d = fpmin;
    d = 1.0 / d;
    double h = d;
    for (i64 m = 1; m < 400; m++) {
        i64 m2 = 2 * m;
        double aa = (double)((agg_i128)m * (b - m)) * x / ((qam + (double)m2) * (double)(a + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < fpmin)
            d = fpmin;
        c = 1.0 + aa / c;
        if (fabs(c) < fpmin)
            c = fpmin;
        d = 1.0 / d;
        h *= d * c;
        aa = (double)(-(agg_i128)(a + m) * (qab + m)) * x / ((double)(a + m2) * (qap + (double)m2));
        d = 1.0 + aa * d;
        if (fabs(d) < fpmin)
            d = fpmin;
        c = 1.0 + aa / c;
        if (fabs(c) < fpmin)
            c = fpmin;
        d = 1.0 / d;
        double de = d * c;
        h *= de;
        if (fabs(de - 1.0) < eps)
            break;
    }
    return h;
}

/* _betai: I_x(a, b), the continued fraction on whichever side of the
 * symmetry I_x(a, b) = 1 - I_{1-x}(b, a) converges faster. */
static double betai(i64 a, i64 b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double ln_bt = agg_py_lgamma((double)(a + b)) - agg_py_lgamma((double)a) - agg_py_lgamma((double)b)
                   + (double)a * log(x) + (double)b * log(1.0 - x);
    double bt = exp(ln_bt);
    if (x < ((double)a + 1.0) / ((double)(a + b) + 2.0))
        return bt * betacf(a, b, x) / (double)a;
    return 1.0 - bt * betacf(b, a, 1.0 - x) / (double)b;
}

/* _odds(h, t, p, 0): P(at most t of h + t trials over the bound). */
static double odds(i64 h, i64 t, double p)
{
    return betai(h, 1 + t, p);
}

/* 1 - c for c = 0.99, as Python computes it (0.010000000000000009). */
static double target(void)
{
    return 1.0 - 0.99;
}

/* The odds fall as h grows: double h from 2 until they pass, then the
 * binary search over [1, hi] (h = 1 is never tried on its own). */
i64 agg_es_min_passing(i64 t, double p)
{
    i64 lo = 1, hi = 2;
    while (odds(hi, t, p) >= target())
        hi *= 2;
    while (lo < hi) {
        i64 mid = lo + (hi - lo) / 2;
        if (odds(mid, t, p) < target())
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* _discard_count: the largest t >= 1 with find_min_passing(t) + t <= n
 * (the margin is monotone in t), 0 below the floor. */
static i64 discard_count(i64 n, double p)
{
    if (agg_es_min_passing(1, p) + 1 > n)
        return 0;
    i64 lo = 1, hi = 2;
    while (agg_es_min_passing(hi, p) + hi <= n)
        hi *= 2;
    while (lo < hi - 1) {
        i64 mid = lo + (hi - lo) / 2;
        if (agg_es_min_passing(mid, p) + mid <= n)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

i64 agg_es_rank(i64 n, double percentile)
{
    /* The one conversion to a fraction, unrounded: 99.9 / 100.0 is
     * 0.9990000000000001, as np.percentile's own q / 100. */
    double p = percentile / 100.0;
    if (n < agg_es_min_passing(1, p) + 1)
        return 0;
    return discard_count(n, p);
}
