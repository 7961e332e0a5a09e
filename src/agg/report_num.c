/* report_num.c - Python's int and float arithmetic for the report
 * (report_num.h): magnitudes as little-endian 32-bit limbs in an arena,
 * schoolbook add, subtract and multiply, and one rounding routine that
 * every int-to-float path goes through, rounding as CPython does. */
#include <math.h>

#include "../json/pyfmt.h"
#include "report_num.h"

const char *rnum_exc_text(rnum_exc x)
{
    switch (x) {
    case RNUM_OK:            return "no exception";
    case RNUM_INT_TOO_LARGE: return "OverflowError: int too large to convert to float";
    case RNUM_DIV_TOO_LARGE: return "OverflowError: integer division result too large for a float";
    case RNUM_ZERO_DIVISION: return "ZeroDivisionError: division by zero";
    case RNUM_NAN_TO_INT:    return "ValueError: cannot convert float NaN to integer";
    case RNUM_INF_TO_INT:    return "OverflowError: cannot convert float infinity to integer";
    case RNUM_DOMAIN:        return "ValueError: math domain error";
    }
    return "unknown exception";
}

/* ---- magnitudes --------------------------------------------------------- */

static iz trim(const u32 *d, iz n)
{
    while (n > 0 && d[n - 1] == 0)
        n--;
    return n;
}

static int mag_cmp(const u32 *a, iz na, const u32 *b, iz nb)
{
    if (na != nb)
        return na < nb ? -1 : 1;
    for (iz i = na - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static rnum make(int8_t sign, u32 *d, iz n)
{
    n = trim(d, n);
    return (rnum){.sign = n ? sign : 0, .n = n, .d = d};
}

static rnum mag_add(arena *a, const u32 *x, iz nx, const u32 *y, iz ny, int8_t sign)
{
    if (nx < ny) {
        const u32 *t = x; x = y; y = t;
        iz tn = nx; nx = ny; ny = tn;
    }
    u32 *d = NEW_NZ(a, u32, nx + 1);
    u64 carry = 0;
    for (iz i = 0; i < nx; i++) {
        carry += (u64)x[i] + (i < ny ? y[i] : 0);
        d[i] = (u32)carry;
        carry >>= 32;
    }
    d[nx] = (u32)carry;
    return make(sign, d, nx + 1);
}

/* |x| - |y| with |x| >= |y|. */
static rnum mag_sub(arena *a, const u32 *x, iz nx, const u32 *y, iz ny, int8_t sign)
{
    u32 *d = NEW_NZ(a, u32, nx > 0 ? nx : 1);
    i64 borrow = 0;
    for (iz i = 0; i < nx; i++) {
        i64 t = (i64)x[i] - (i < ny ? y[i] : 0) - borrow;
        borrow = t < 0;
        d[i] = (u32)(t + (borrow ? (i64)1 << 32 : 0));
    }
    return make(sign, d, nx);
}

/* x + s*y for ints, s = +1 or -1. */
static rnum int_addsub(arena *a, const rnum *x, const rnum *y, int s)
{
    int ys = y->sign * s;
    if (y->sign == 0)
        return *x;
    if (x->sign == 0)
        return (rnum){.sign = (int8_t)ys, .n = y->n, .d = y->d};
    if (x->sign == ys)
        return mag_add(a, x->d, x->n, y->d, y->n, x->sign);
    int c = mag_cmp(x->d, x->n, y->d, y->n);
    if (c == 0)
        return (rnum){0};
    return c > 0 ? mag_sub(a, x->d, x->n, y->d, y->n, x->sign) : mag_sub(a, y->d, y->n, x->d, x->n, (int8_t)ys);
}

static rnum int_mul(arena *a, const rnum *x, const rnum *y)
{
    if (x->sign == 0 || y->sign == 0)
        return (rnum){0};
    iz n = x->n + y->n;
    u32 *d = NEW(a, u32, n);
    for (iz i = 0; i < x->n; i++) {
        u64 carry = 0, xi = x->d[i];
        for (iz j = 0; j < y->n; j++) {
            carry += xi * y->d[j] + d[i + j];
            d[i + j] = (u32)carry;
            carry >>= 32;
        }
        d[i + y->n] = (u32)carry;
    }
    return make((int8_t)(x->sign * y->sign), d, n);
}

static iz bitlen(const u32 *d, iz n)
{
    if (n == 0)
        return 0;
    u32 top = d[n - 1];
    int b = 0;
    while (top) {
        b++;
        top >>= 1;
    }
    return (n - 1) * 32 + b;
}

/* The magnitude shifted left by `bits`, in a new array with room for
 * `extra` more limbs (zeroed). */
static u32 *shl(arena *a, const u32 *d, iz n, iz bits, iz extra, iz *nout)
{
    iz limbs = bits / 32, rest = bits % 32;
    iz m = n + limbs + 1;
    u32 *r = NEW(a, u32, m + extra);
    for (iz i = 0; i < n; i++) {
        u64 v = (u64)d[i] << rest;
        r[i + limbs] |= (u32)v;
        r[i + limbs + 1] |= (u32)(v >> 32);
    }
    *nout = trim(r, m);
    return r;
}

/* In place: d >>= 1. */
static iz shr1(u32 *d, iz n)
{
    for (iz i = 0; i < n; i++)
        d[i] = (d[i] >> 1) | (i + 1 < n ? d[i + 1] << 31 : 0);
    return trim(d, n);
}

/* In place: x -= y, x >= y. */
static iz sub_in_place(u32 *x, iz nx, const u32 *y, iz ny)
{
    i64 borrow = 0;
    for (iz i = 0; i < nx; i++) {
        i64 t = (i64)x[i] - (i < ny ? y[i] : 0) - borrow;
        borrow = t < 0;
        x[i] = (u32)(t + (borrow ? (i64)1 << 32 : 0));
    }
    return trim(x, nx);
}

/* ---- rounding ------------------------------------------------------------ */

/* The double nearest to (v + s) * 2^e, where 0 <= s < 1 and s != 0 when
 * `sticky` (bits below v that are not all zero): ties to even, gradual
 * underflow, inf past the largest double. */
static double round_to_double(u64 v, bool sticky, iz e)
{
    if (v == 0)
        return 0.0;
    int len = 64 - __builtin_clzll(v);
    iz top = len - 1 + e;             /* exponent of the leading bit */
    if (top > 1100)
        return HUGE_VAL;
    iz keep = top >= -1022 ? 53 : 53 - (-1022 - top);
    if (keep <= 0) {
        /* Below half the smallest subnormal, or exactly at it (a tie, which
         * goes to the even zero), the result is zero. */
        if (keep < 0)
            return 0.0;
        bool exact_half = !sticky && (v & (v - 1)) == 0;
        return exact_half ? 0.0 : ldexp(1.0, -1074);
    }
    iz drop = len - keep;
    if (drop <= 0)
        return ldexp((double)v, (int)e);
    u64 kept = v >> drop, rem = v & ((drop >= 64 ? 0 : (u64)1 << drop) - 1), half = (u64)1 << (drop - 1);
    if (rem > half || (rem == half && (sticky || (kept & 1))))
        kept++;
    return ldexp((double)kept, (int)(e + drop));
}

/* float(magnitude) with its sign: the top 64 bits and a sticky bit. */
static rnum_exc mag_to_double(const u32 *d, iz n, int sign, double *out)
{
    iz bits = bitlen(d, n);
    u64 v;
    bool sticky = false;
    iz e = 0;
    if (bits <= 64) {
        v = 0;
        for (iz i = n - 1; i >= 0; i--)
            v = v << 32 | d[i];
    } else {
        e = bits - 64;
        iz limb = e / 32;
        int sh = (int)(e % 32);
        /* bits e .. e+63 span at most three limbs */
        u64 w0 = d[limb], w1 = limb + 1 < n ? d[limb + 1] : 0, w2 = limb + 2 < n ? d[limb + 2] : 0;
        if (sh == 0) {
            v = w0 | w1 << 32;
        } else {
            v = w0 >> sh | w1 << (32 - sh) | w2 << (64 - sh);
            sticky = (w0 & (((u64)1 << sh) - 1)) != 0;
        }
        for (iz i = 0; i < limb && !sticky; i++)
            sticky = d[i] != 0;
    }
    double r = round_to_double(v, sticky, e);
    if (isinf(r))
        return RNUM_INT_TOO_LARGE;
    *out = sign < 0 ? -r : r;
    return RNUM_OK;
}

/* ---- constructors ---------------------------------------------------------- */

rnum rnum_int(arena *a, i64 v)
{
    if (v == 0)
        return (rnum){0};
    u64 m = v < 0 ? (u64)0 - (u64)v : (u64)v;
    u32 *d = NEW_NZ(a, u32, 2);
    d[0] = (u32)m;
    d[1] = (u32)(m >> 32);
    return make(v < 0 ? -1 : 1, d, 2);
}

bool rnum_parse(arena *a, str t, rnum *out)
{
    iz i = 0;
    int8_t sign = 1;
    if (i < t.len && t.s[i] == '-') {
        sign = -1;
        i++;
    }
    iz ndig = t.len - i;
    if (ndig <= 0 || ndig > RNUM_MAX_DIGITS)
        return false;
    for (iz k = i; k < t.len; k++)
        if (t.s[k] < '0' || t.s[k] > '9')
            return false;
    /* 9 digits fit 30 bits: at most ndig/9 + 1 limbs of 32 bits suffice */
    iz cap = ndig / 9 + 2;
    u32 *d = NEW(a, u32, cap);
    iz n = 0;
    while (i < t.len) {
        iz take = MIN((iz)9, t.len - i);
        u32 chunk = 0, mul = 1;
        for (iz k = 0; k < take; k++) {
            chunk = chunk * 10 + (u32)(t.s[i + k] - '0');
            mul *= 10;
        }
        i += take;
        u64 carry = chunk;
        for (iz k = 0; k < n; k++) {
            carry += (u64)d[k] * mul;
            d[k] = (u32)carry;
            carry >>= 32;
        }
        if (carry)
            d[n++] = (u32)carry;
    }
    *out = make(sign, d, n);
    return true;
}

/* ---- arithmetic ------------------------------------------------------------ */

rnum_exc rnum_to_double(const rnum *x, double *out)
{
    if (x->is_float) {
        *out = x->f;
        return RNUM_OK;
    }
    return mag_to_double(x->d, x->n, x->sign, out);
}

/* Both operands as doubles, for an operation with a float on one side. */
static rnum_exc both_double(const rnum *x, const rnum *y, double *a, double *b)
{
    rnum_exc r = rnum_to_double(x, a);
    return r ? r : rnum_to_double(y, b);
}

rnum_exc rnum_add(arena *a, const rnum *x, const rnum *y, rnum *out)
{
    if (!x->is_float && !y->is_float) {
        *out = int_addsub(a, x, y, 1);
        return RNUM_OK;
    }
    double p, q;
    rnum_exc r = both_double(x, y, &p, &q);
    if (!r)
        *out = rnum_float(p + q);
    return r;
}

rnum_exc rnum_sub(arena *a, const rnum *x, const rnum *y, rnum *out)
{
    if (!x->is_float && !y->is_float) {
        *out = int_addsub(a, x, y, -1);
        return RNUM_OK;
    }
    double p, q;
    rnum_exc r = both_double(x, y, &p, &q);
    if (!r)
        *out = rnum_float(p - q);
    return r;
}

rnum_exc rnum_mul(arena *a, const rnum *x, const rnum *y, rnum *out)
{
    if (!x->is_float && !y->is_float) {
        *out = int_mul(a, x, y);
        return RNUM_OK;
    }
    double p, q;
    rnum_exc r = both_double(x, y, &p, &q);
    if (!r)
        *out = rnum_float(p * q);
    return r;
}

/* int / int, correctly rounded: a quotient of 56 or 57 bits by long
 * division, the remainder as the sticky bit, then the one rounding. */
static rnum_exc int_div(arena *a, const rnum *x, const rnum *y, double *out)
{
    bool neg = (x->sign < 0) != (y->sign < 0);
    if (y->sign == 0)
        return RNUM_ZERO_DIVISION;
    if (x->sign == 0) {
        *out = neg ? -0.0 : 0.0;
        return RNUM_OK;
    }
    iz la = bitlen(x->d, x->n), lb = bitlen(y->d, y->n);
    if (la <= 53 && lb <= 53) {
        double p, q;
        mag_to_double(x->d, x->n, x->sign, &p);
        mag_to_double(y->d, y->n, y->sign, &q);
        *out = p / q;
        return RNUM_OK;
    }
    iz shift = la - lb - 56;
    iz nr, nt;
    /* R = |x| << max(0, -shift); T = (|y| << max(0, shift)) << 56 */
    u32 *r = shl(a, x->d, x->n, shift < 0 ? -shift : 0, 0, &nr);
    u32 *t = shl(a, y->d, y->n, (shift > 0 ? shift : 0) + 56, 0, &nt);
    u64 q = 0;
    for (int i = 56; i >= 0; i--) {
        if (mag_cmp(r, nr, t, nt) >= 0) {
            nr = sub_in_place(r, nr, t, nt);
            q |= (u64)1 << i;
        }
        nt = shr1(t, nt);
    }
    double v = round_to_double(q, nr != 0, shift);
    if (isinf(v))
        return RNUM_DIV_TOO_LARGE;
    *out = neg ? -v : v;
    return RNUM_OK;
}

rnum_exc rnum_div(arena *a, const rnum *x, const rnum *y, rnum *out)
{
    double v;
    rnum_exc r;
    if (!x->is_float && !y->is_float) {
        r = int_div(a, x, y, &v);
    } else {
        double p, q;
        r = both_double(x, y, &p, &q);
        if (!r && fpclassify(q) == FP_ZERO)
            r = RNUM_ZERO_DIVISION;
        if (!r)
            v = p / q;
    }
    if (!r)
        *out = rnum_float(v);
    return r;
}

rnum_exc rnum_sqrt(const rnum *x, double *out)
{
    double v;
    rnum_exc r = rnum_to_double(x, &v);
    if (r)
        return r;
    if (v < 0)
        return RNUM_DOMAIN;
    *out = sqrt(v);
    return RNUM_OK;
}

rnum_exc rnum_to_int(arena *a, const rnum *x, rnum *out)
{
    if (!x->is_float) {
        *out = *x;
        return RNUM_OK;
    }
    double f = x->f;
    if (isnan(f))
        return RNUM_NAN_TO_INT;
    if (isinf(f))
        return RNUM_INF_TO_INT;
    f = trunc(f);
    if (fabs(f) < 9.2e18) {
        *out = rnum_int(a, (i64)f);
        return RNUM_OK;
    }
    /* |f| >= 2^63: an integer m * 2^e with a 53-bit m */
    int e;
    double m = frexp(fabs(f), &e);
    u64 mant = (u64)ldexp(m, 53);
    rnum mm = rnum_int(a, (i64)mant);
    iz n;
    u32 *d = shl(a, mm.d, mm.n, e - 53, 0, &n);
    *out = make(f < 0 ? -1 : 1, d, n);
    return RNUM_OK;
}

/* ---- comparison ------------------------------------------------------------- */

static int int_cmp(const rnum *x, const rnum *y)
{
    if (x->sign != y->sign)
        return x->sign < y->sign ? -1 : 1;
    int c = mag_cmp(x->d, x->n, y->d, y->n);
    return x->sign < 0 ? -c : c;
}

/* int x against float f, exactly: against trunc(f), then its fraction. */
static int int_float_cmp(arena *a, const rnum *x, double f)
{
    if (isnan(f))
        return RNUM_UNORDERED;
    if (isinf(f))
        return f > 0 ? -1 : 1;
    rnum t, ff = rnum_float(f);
    rnum_to_int(a, &ff, &t);
    int c = int_cmp(x, &t);
    if (c)
        return c;
    double frac = f - trunc(f);
    return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

int rnum_cmp(arena *a, const rnum *x, const rnum *y)
{
    if (!x->is_float && !y->is_float)
        return int_cmp(x, y);
    if (x->is_float && y->is_float) {
        if (isnan(x->f) || isnan(y->f))
            return RNUM_UNORDERED;
        return x->f < y->f ? -1 : x->f > y->f ? 1 : 0;
    }
    if (!x->is_float)
        return int_float_cmp(a, x, y->f);
    int c = int_float_cmp(a, y, x->f);
    return c == RNUM_UNORDERED ? c : -c;
}

bool rnum_is_zero(const rnum *x)
{
    return x->is_float ? fpclassify(x->f) == FP_ZERO : x->sign == 0;
}

/* ---- text -------------------------------------------------------------------- */

void rnum_write(arena *a, buf *out, const rnum *x)
{
    if (x->is_float) {
        pyfmt_float_repr(out, x->f);
        return;
    }
    if (x->sign == 0) {
        buf_byte(out, '0');
        return;
    }
    if (x->n <= 2) {
        u64 v = x->n == 2 ? (u64)x->d[1] << 32 | x->d[0] : x->d[0];
        if (x->sign < 0)
            buf_byte(out, '-');
        buf_u64(out, v);
        return;
    }
    /* Repeated division by 10^9 of a copy; the 9-digit groups come out
     * least significant first. */
    u32 *d = NEW_NZ(a, u32, x->n);
    memcpy(d, x->d, sizeof(u32) * (size_t)x->n);
    iz n = x->n, ng = 0;
    u32 *groups = NEW_NZ(a, u32, x->n * 32 / 29 + 2);
    while (n > 0) {
        u64 rem = 0;
        for (iz i = n - 1; i >= 0; i--) {
            u64 cur = rem << 32 | d[i];
            d[i] = (u32)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        groups[ng++] = (u32)rem;
        n = trim(d, n);
    }
    if (x->sign < 0)
        buf_byte(out, '-');
    buf_u64(out, groups[ng - 1]);
    for (iz g = ng - 2; g >= 0; g--) {
        char t[10];
        u32 v = groups[g];
        for (int k = 8; k >= 0; k--) {
            t[k] = (char)('0' + v % 10);
            v /= 10;
        }
        buf_put(out, t, 9);
    }
}
