/* tmpl_num.c - Python's numbers as the filters and tests need them
 * (tmpl_lib.h): operator.index, ints of any size as decimal digits (sum,
 * abs, %), int and float conversions, int(s, base) and float(s) of a str
 * with Python's rules, and round() on the exact value. */
#include <math.h>
#include <stdlib.h>

#include "../base/utf8.h"
#include "../json/pyfmt.h"
#include "tmpl_lib.h"
#include "tmpl_pystr.h"

/* ---- ints and floats --------------------------------------------------------- */

/* operator.index(v) for a C ssize_t: Python's TypeError and OverflowError. */
i64 tv_index(tmpl_rt *rt, tv v)
{
    if (v.kind == TV_INT || v.kind == TV_BOOL)
        return int_of(v);
    if (v.kind == TV_BIGINT)
        tmpl_raise(rt, "OverflowError", "Python int too large to convert to C ssize_t");
    tmpl_raise(rt, "TypeError", "'%s' object cannot be interpreted as an integer", pytype(v));
}

/* An integer given as a sign and decimal digits (no leading zeros), as the
 * smallest value kind that holds it. */
tv tv_int_from_digits(tmpl_rt *rt, bool neg, str digits)
{
    iz i = 0;
    while (i < digits.len - 1 && digits.s[i] == '0')
        i++;
    digits = str_cut(digits, i, digits.len);
    if (digits.len == 1 && digits.s[0] == '0')
        return tv_int(0);
    if (digits.len <= 18) {
        i64 x = 0;
        for (iz k = 0; k < digits.len; k++)
            x = x * 10 + (digits.s[k] - '0');
        return tv_int(neg ? -x : x);
    }
    if (digits.len == 19) {
        /* 19 digits may or may not fit: compare with 9223372036854775807/8. */
        const char *lim = neg ? "9223372036854775808" : "9223372036854775807";
        if (memcmp(digits.s, lim, 19) <= 0) {
            u64 x = 0;
            for (iz k = 0; k < 19; k++)
                x = x * 10 + (u64)(digits.s[k] - '0');
            return tv_int(neg ? (i64)(0 - x) : (i64)x);
        }
    }
    u8 *p = NEW_NZ(rt->a, u8, digits.len + 1);
    iz n = 0;
    if (neg)
        p[n++] = '-';
    memcpy(p + n, digits.s, (size_t)digits.len);
    tv v = {.kind = TV_BIGINT};
    tv_set_s(&v, str_from(p, n + digits.len));
    return v;
}

/* Sign and magnitude digits of an int-like value. */
void tv_int_digits(tmpl_rt *rt, tv v, bool *neg, str *digits)
{
    if (v.kind == TV_BIGINT) {
        str d = tv_s(v);
        *neg = d.len && d.s[0] == '-';
        *digits = str_cut(d, *neg ? 1 : 0, d.len);
        return;
    }
    i64 x = int_of(v);
    *neg = x < 0;
    u64 m = x < 0 ? 0 - (u64)x : (u64)x;
    char tmp[24];
    int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)m);
    *digits = arena_strdup(rt->a, str_from(tmp, n));
}

/* |a| + |b| and |a| - |b| (|a| >= |b|) on decimal digit strings. */
static str digits_add(tmpl_rt *rt, str a, str b)
{
    iz n = MAX(a.len, b.len) + 1;
    u8 *p = NEW_NZ(rt->a, u8, n);
    int carry = 0;
    for (iz k = 0; k < n; k++) {
        int d = carry;
        if (k < a.len) d += a.s[a.len - 1 - k] - '0';
        if (k < b.len) d += b.s[b.len - 1 - k] - '0';
        p[n - 1 - k] = (u8)('0' + d % 10);
        carry = d / 10;
    }
    return str_from(p, n);
}

static int digits_cmp(str a, str b)
{
    if (a.len != b.len)
        return a.len < b.len ? -1 : 1;
    int c = memcmp(a.s, b.s, (size_t)a.len);
    return c < 0 ? -1 : c > 0;
}

static str digits_sub(tmpl_rt *rt, str a, str b)
{
    u8 *p = NEW_NZ(rt->a, u8, a.len);
    int borrow = 0;
    for (iz k = 0; k < a.len; k++) {
        int d = a.s[a.len - 1 - k] - '0' - borrow;
        if (k < b.len) d -= b.s[b.len - 1 - k] - '0';
        borrow = d < 0;
        p[a.len - 1 - k] = (u8)('0' + (d + 10) % 10);
    }
    return str_from(p, a.len);
}

/* a + b for int-like values of any size. */
tv tv_int_add(tmpl_rt *rt, tv a, tv b)
{
    if (a.kind != TV_BIGINT && b.kind != TV_BIGINT) {
        i64 r;
        if (!__builtin_add_overflow(int_of(a), int_of(b), &r))
            return tv_int(r);
    }
    bool na, nb;
    str da, db;
    tv_int_digits(rt, a, &na, &da);
    tv_int_digits(rt, b, &nb, &db);
    if (na == nb)
        return tv_int_from_digits(rt, na, digits_add(rt, da, db));
    int c = digits_cmp(da, db);
    if (c == 0)
        return tv_int(0);
    return c > 0 ? tv_int_from_digits(rt, na, digits_sub(rt, da, db))
                 : tv_int_from_digits(rt, nb, digits_sub(rt, db, da));
}

/* float(v) of an int-like value (OverflowError past the double range). */
double tv_int_to_double(tmpl_rt *rt, tv v)
{
    if (v.kind != TV_BIGINT)
        return (double)int_of(v);
    str digits = tv_s(v);
    char *z = NEW_NZ(rt->a, char, digits.len + 1);
    memcpy(z, digits.s, (size_t)digits.len);
    z[digits.len] = 0;
    double d = strtod(z, NULL);
    if (isinf(d))
        tmpl_raise(rt, "OverflowError", "int too large to convert to float");
    return d;
}

/* The number as a double for arithmetic with floats. */
double tv_num_to_double(tmpl_rt *rt, tv v)
{
    return v.kind == TV_FLOAT ? v.u.f : tv_int_to_double(rt, v);
}

/* int(x) of a finite double, exactly (a big int when it does not fit). */
tv tv_int_from_double(tmpl_rt *rt, double x)
{
    if (isinf(x))
        tmpl_raise(rt, "OverflowError", "cannot convert float infinity to integer");
    if (isnan(x))
        tmpl_raise(rt, "ValueError", "cannot convert float NaN to integer");
    x = trunc(x);
    if (x >= -9223372036854775808.0 && x < 9223372036854775808.0)
        return tv_int((i64)x);
    /* glibc prints the exact decimal value of a double. */
    char tmp[400];
    int n = snprintf(tmp, sizeof(tmp), "%.0f", x);
    bool neg = tmp[0] == '-';
    return tv_int_from_digits(rt, neg, str_from(tmp + neg, n - neg));
}

/* Python's float % float. */
static double py_fmod(double x, double y)
{
    double m = fmod(x, y);
    if (m != 0) {
        if ((y < 0) != (m < 0))
            m += y;
    } else {
        m = copysign(0.0, y);
    }
    return m;
}

/* Remainder of a decimal digit string modulo m (m > 0). */
static u64 digits_mod(str d, u64 m)
{
    u64 r = 0;
    for (iz k = 0; k < d.len; k++) {
        /* r * 10 + digit mod m without overflow: add r ten times. */
        u64 t = 0;
        for (int j = 0; j < 10; j++) {
            t = t >= m - r ? t - (m - r) : t + r;
        }
        u64 dig = (u64)(d.s[k] - '0') % m;
        r = t >= m - dig ? t - (m - dig) : t + dig;
    }
    return r;
}

/* a % b as Python evaluates it for the odd/even/divisibleby tests. */
tv tv_mod(tmpl_rt *rt, tv a, tv b)
{
    if (a.kind == TV_UNDEF)
        tv_undef_raise(rt, a);
    if (a.kind == TV_STR)
        return tv_percent(rt, a, b);
    if (b.kind == TV_UNDEF && tv_is_number(a))
        tv_undef_raise(rt, b);
    if (tv_is_number(a) && tv_is_number(b)) {
        if (a.kind == TV_FLOAT || b.kind == TV_FLOAT) {
            double x = tv_num_to_double(rt, a), y = tv_num_to_double(rt, b);
            if (y == 0)
                tmpl_raise(rt, "ZeroDivisionError", "float modulo");
            return tv_float(py_fmod(x, y));
        }
        if (b.kind == TV_BIGINT)
            tmpl_fail(rt, ERR_UNSUPPORTED, "modulo by an integer beyond 64 bits");
        i64 y = int_of(b);
        if (y == 0)
            tmpl_raise(rt, "ZeroDivisionError", "integer modulo by zero");
        if (a.kind == TV_BIGINT) {
            bool neg;
            str d;
            tv_int_digits(rt, a, &neg, &d);
            u64 m = y < 0 ? 0 - (u64)y : (u64)y;
            u64 r = digits_mod(d, m);
            /* Python's result takes the divisor's sign. */
            i64 res;
            if (r == 0)
                res = 0;
            else if (neg == (y < 0))
                res = neg ? -(i64)r : (i64)r;
            else
                res = neg ? (i64)(m - r) : -(i64)(m - r);
            return tv_int(res);
        }
        i64 x = int_of(a);
        if (y == -1)
            return tv_int(0);
        i64 r = x % y;
        if (r != 0 && ((r < 0) != (y < 0)))
            r += y;
        return tv_int(r);
    }
    if (b.kind == TV_UNDEF)
        tv_undef_raise(rt, b);
    tmpl_raise(rt, "TypeError", "unsupported operand type(s) for %%: '%s' and '%s'",
               pytype(a), pytype(b));
}

/* a + b as Python's sum() adds. */
tv tv_sum_add(tmpl_rt *rt, tv a, tv b)
{
    if (a.kind == TV_UNDEF)
        tv_undef_raise(rt, a);
    if (b.kind == TV_UNDEF)
        tv_undef_raise(rt, b);
    if (tv_is_int(a) && tv_is_int(b))
        return tv_int_add(rt, a, b);
    if (tv_is_number(a) && tv_is_number(b))
        return tv_float(tv_num_to_double(rt, a) + tv_num_to_double(rt, b));
    if (tv_repeatable(a) && (b.kind != a.kind || !tv_repeatable(b)))
        tv_concat_error(rt, a, b);
    if (tv_repeatable(a) && a.kind != TV_STR) {
        iz n = a.u.list->n + b.u.list->n;
        if (n > TMPL_MAX_ITERATIONS)
            tmpl_fail(rt, ERR_LIMIT, "a list of more than %d items", (int)TMPL_MAX_ITERATIONS);
        return tv_seq_concat(rt, a, b);
    }
    if (a.kind == TV_STR) {
        if (is_safe(a) || is_safe(b))
            tmpl_fail(rt, ERR_UNSUPPORTED, "adding Markup strings in sum");
        sb s = sb_new(rt, tv_s(a).len + tv_s(b).len);
        sb_str(&s, tv_s(a));
        sb_str(&s, tv_s(b));
        return sb_tv(&s, false);
    }
    tmpl_raise(rt, "TypeError", "unsupported operand type(s) for +: '%s' and '%s'",
               pytype(a), pytype(b));
}


/* ---- Python str parsing: int(s, base) and float(s) ------------------------ */

/* The value of a Unicode decimal digit (category Nd), or -1. Nd digits come
 * in aligned runs of ten, 0 to 9, so the digit is the position in its run. */
static int decimal_value(u32 c)
{
    if (c >= '0' && c <= '9')
        return (int)(c - '0');
    if (c < 0x80 || !pystr_isdecimal(c))
        return -1;
    int k = 0;
    while (k < 64 && pystr_isdecimal(c - (u32)k - 1))
        k++;
    return k % 10;
}

/* Python's first step in int() and float() of a str: whitespace stripped,
 * Unicode decimal digits made ASCII; false when something else non-ASCII
 * remains (then neither can parse it). */
static bool ascii_number_text(tmpl_rt *rt, str s, str *out)
{
    s = pystr_strip(s, NULL, PYSTR_BOTH);
    if (utf8_ascii_prefix(s) == s.len) {
        *out = s;
        return true;
    }
    sb b = sb_new(rt, s.len);
    for (iz i = 0; i < s.len;) {
        u32 c = utf8_next(s.s, &i);
        if (c < 0x80) {
            sb_byte(&b, (u8)c);
            continue;
        }
        int d = decimal_value(c);
        if (d < 0) {
            if (pystr_isspace(c)) {
                sb_byte(&b, ' ');
                continue;
            }
            return false;
        }
        sb_byte(&b, (u8)('0' + d));
    }
    *out = sb_view(&b);
    return true;
}

static int digit_in_base(u8 c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return 99;
}

/* int(s, base) of a str; false for Python's ValueError. */
/* Digits from t[*k] on, copied into d, with Python's underscores (one at a
 * time, between digits) skipped; *k moves past them. Returns the number of
 * digits. */
static int digit_run(str t, iz *k, sb *d)
{
    int n = 0;
    bool prev_digit = false;
    for (; *k < t.len; (*k)++) {
        u8 c = t.s[*k];
        if (c >= '0' && c <= '9') {
            sb_byte(d, c);
            n++;
            prev_digit = true;
            continue;
        }
        if (c == '_' && prev_digit && *k + 1 < t.len && t.s[*k + 1] >= '0' && t.s[*k + 1] <= '9') {
            prev_digit = false;
            continue;
        }
        break;
    }
    return n;
}

bool tv_parse_int(tmpl_rt *rt, str s, i64 base, tv *out)
{
    if (base != 0 && (base < 2 || base > 36))
        return false;
    str t;
    if (!ascii_number_text(rt, s, &t))
        return false;
    iz i = 0;
    bool neg = false;
    if (i < t.len && (t.s[i] == '+' || t.s[i] == '-'))
        neg = t.s[i++] == '-';
    bool prefixed = false;
    if (i + 1 < t.len && t.s[i] == '0') {
        u8 c = (u8)(t.s[i + 1] | 0x20);
        i64 pb = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 0;
        if (pb && (base == 0 || base == pb)) {
            base = pb;
            i += 2;
            prefixed = true;
        }
    }
    bool base0_decimal = base == 0;
    if (base == 0)
        base = 10;
    /* Digits with single underscores between them (and after a prefix). */
    sb d = sb_new(rt, t.len);
    bool need_digit = true;
    if (prefixed && i < t.len && t.s[i] == '_')
        i++;
    for (; i < t.len; i++) {
        u8 c = t.s[i];
        if (c == '_') {
            if (need_digit)
                return false;
            need_digit = true;
            continue;
        }
        if (digit_in_base(c) >= base)
            return false;
        sb_byte(&d, c);
        need_digit = false;
    }
    if (need_digit || d.len == 0)
        return false;
    str ds = sb_view(&d);
    /* Base 0 rejects decimal literals with leading zeros ("010"), but not "0"/"00". */
    if (base0_decimal && base == 10 && ds.len > 1 && ds.s[0] == '0') {
        for (iz k = 0; k < ds.len; k++)
            if (ds.s[k] != '0')
                return false;
    }
    if (base == 10) {
        if (ds.len > PYFMT_INT_MAX_DIGITS)
            return false;
        *out = tv_int_from_digits(rt, neg, ds);
        return true;
    }
    /* Other bases: accumulate in base 10^9 limbs (little-endian), then
     * write the decimal digits. */
    if (ds.len > 20000)
        tmpl_fail(rt, ERR_UNSUPPORTED, "int() of a number with %lld digits", (long long)ds.len);
    /* a base-36 digit is worth < 1.6 decimal digits: ds.len / 2 limbs of 9 suffice */
    iz cap = ds.len / 2 + 2, nl = 1;
    u32 *limb = NEW(rt->a, u32, cap);
    for (iz k = 0; k < ds.len; k++) {
        u64 carry = (u64)digit_in_base(ds.s[k]);
        for (iz j = 0; j < nl; j++) {
            u64 x = (u64)limb[j] * (u64)base + carry;
            limb[j] = (u32)(x % 1000000000u);
            carry = x / 1000000000u;
        }
        while (carry) {
            limb[nl++] = (u32)(carry % 1000000000u);
            carry /= 1000000000u;
        }
    }
    sb dec = sb_new(rt, nl * 9 + 1);
    sb_printf(&dec, "%u", (unsigned)limb[nl - 1]);
    for (iz j = nl - 2; j >= 0; j--)
        sb_printf(&dec, "%09u", (unsigned)limb[j]);
    str acc = sb_view(&dec);
    *out = tv_int_from_digits(rt, neg, acc);
    return true;
}

static bool ieq(str s, const char *lit)
{
    iz n = (iz)strlen(lit);
    if (s.len != n)
        return false;
    for (iz i = 0; i < n; i++)
        if ((s.s[i] | 0x20) != lit[i])
            return false;
    return true;
}

/* float(s) of a str; false for Python's ValueError. */
bool tv_parse_float(tmpl_rt *rt, str s, double *out)
{
    str t;
    if (!ascii_number_text(rt, s, &t))
        return false;
    iz i = 0;
    bool neg = false;
    if (i < t.len && (t.s[i] == '+' || t.s[i] == '-'))
        neg = t.s[i++] == '-';
    str rest = str_cut(t, i, t.len);
    if (ieq(rest, "inf") || ieq(rest, "infinity")) {
        *out = neg ? -INFINITY : INFINITY;
        return true;
    }
    if (ieq(rest, "nan")) {
        *out = neg ? -NAN : NAN;
        return true;
    }
    /* digits [. digits] [e [sign] digits], underscores only between digits */
    sb d = sb_new(rt, t.len + 2);
    if (neg)
        sb_byte(&d, '-');
    iz k = i;
    int ndig = digit_run(t, &k, &d);
    if (k < t.len && t.s[k] == '.') {
        sb_byte(&d, '.');
        k++;
        ndig += digit_run(t, &k, &d);
    }
    if (ndig == 0)
        return false;
    if (k < t.len && (t.s[k] | 0x20) == 'e') {
        sb_byte(&d, 'e');
        k++;
        if (k < t.len && (t.s[k] == '+' || t.s[k] == '-'))
            sb_byte(&d, t.s[k++]);
        if (digit_run(t, &k, &d) == 0)
            return false;
    }
    if (k != t.len)
        return false;
    sb_byte(&d, 0);
    *out = strtod((const char *)d.p, NULL);
    return true;
}


/* ---- rounding ---------------------------------------------------------------- */

/* Rounds the decimal number `digits` * 10^(-nfrac) (digits: ASCII, no sign)
 * half to even at `ndigits` places after the point, the rounding Python's
 * round() does on the exact value. Returns the kept digits; the value is
 * kept * 10^(-ndigits). */
static str round_digits(tmpl_rt *rt, str digits, iz nfrac, iz ndigits)
{
    iz p = digits.len - nfrac + ndigits;   /* digits kept */
    if (p < 0)
        return S("0");
    if (p >= digits.len)
        return digits;
    str kept = str_cut(digits, 0, p);
    u8 first = digits.s[p];
    bool up;
    if (first != '5') {
        up = first > '5';
    } else {
        bool more = false;
        for (iz k = p + 1; k < digits.len; k++)
            more |= digits.s[k] != '0';
        up = more || (p > 0 && ((digits.s[p - 1] - '0') & 1));
    }
    if (!up)
        return p ? kept : S("0");
    return digits_add(rt, p ? kept : S("0"), S("1"));
}

/* round(x, ndigits) of a float, as CPython's double_round. */
double tv_round_double(tmpl_rt *rt, double x, i64 ndigits)
{
    if (!isfinite(x) || x == 0)
        return x;
    if (ndigits > 323)
        return x;
    if (ndigits < -308)
        return 0.0 * x;
    /* The exact decimal expansion of |x| (glibc prints doubles exactly). */
    enum { FRAC = 1074 };
    char *txt = NEW_NZ(rt->a, char, 1500);
    int n = snprintf(txt, 1500, "%.*f", FRAC, fabs(x));
    sb d = sb_new(rt, n);
    for (int i = 0; i < n; i++)
        if (txt[i] != '.')
            sb_byte(&d, (u8)txt[i]);
    str kept = round_digits(rt, sb_view(&d), FRAC, (iz)ndigits);
    char *num = NEW_NZ(rt->a, char, kept.len + 32);
    snprintf(num, (size_t)kept.len + 32, "%s%.*se%lld", signbit(x) ? "-" : "", (int)kept.len,
             (const char *)kept.s, (long long)-ndigits);
    double r = strtod(num, NULL);
    if (isinf(r))
        tmpl_raise(rt, "OverflowError", "rounded value too large to represent");
    return r;
}

/* round(i, ndigits) of an int. */
tv tv_round_int(tmpl_rt *rt, tv v, i64 ndigits)
{
    if (v.kind == TV_BOOL)
        v = tv_int(v.u.b);
    if (ndigits >= 0)
        return v;
    bool neg;
    str d;
    tv_int_digits(rt, v, &neg, &d);
    if (ndigits < -(i64)d.len - 1)
        return tv_int(0);
    str kept = round_digits(rt, d, 0, (iz)ndigits);
    sb r = sb_new(rt, kept.len - ndigits);
    sb_str(&r, kept);
    sb_rep(&r, S("0"), -ndigits);
    return tv_int_from_digits(rt, neg, sb_view(&r));
}

/* ---- float(v) ------------------------------------------------------------------ */

int tv_float_try(tmpl_rt *rt, tv v, double *out)
{
    switch (v.kind) {
    case TV_FLOAT:
        *out = v.u.f;
        return 0;
    case TV_INT: case TV_BOOL: case TV_BIGINT:
        *out = tv_int_to_double(rt, v);
        return 0;
    case TV_STR:
        return tv_parse_float(rt, tv_s(v), out) ? 0 : 1;
    case TV_UNDEF:
        tv_undef_raise(rt, v);
    default:
        return 2;
    }
}

double tv_float_or_raise(tmpl_rt *rt, tv v)
{
    double d;
    int r = tv_float_try(rt, v, &d);
    if (r == 1)
        tmpl_raise(rt, "ValueError", "could not convert string to float: %s", repr_cz(rt, v));
    if (r == 2)
        tmpl_raise(rt, "TypeError", "float() argument must be a string or a real number, not '%s'",
                   pytype(v));
    return d;
}
