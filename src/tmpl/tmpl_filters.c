/* tmpl_filters.c - Jinja2 3.1.2's built-in filters and tests as they run in
 * the sandboxed environment transformers builds for chat templates (with
 * transformers' json.dumps `tojson`), and tv_write_json (json.dumps of a
 * value). Part of src/tmpl/; the evaluator calls tmpl_filter_apply and
 * tmpl_test_apply (tmpl_value.h). Each filter follows jinja2/filters.py and
 * the Python builtins it calls, error messages included. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/utf8.h"
#include "../json/pyfmt.h"
#include "tmpl_pystr.h"
#include "tmpl_value.h"

/* ---- strings built in the arena ------------------------------------------ */

/* A growing string in the render's arena. The arena (not a heap buf) keeps
 * the error path simple: tmpl_raise may jump out at any point and nothing
 * needs freeing. */
typedef struct sb {
    tmpl_rt *rt;
    u8      *p;
    iz       len, cap;
} sb;

static sb sb_new(tmpl_rt *rt, iz cap)
{
    sb b = {rt, NULL, 0, 0};
    if (cap > 0) {
        b.p = NEW_NZ(rt->a, u8, cap);
        b.cap = cap;
    }
    return b;
}

static void sb_put(sb *b, const void *p, iz n)
{
    if (n <= 0)
        return;
    if (b->len + n > TMPL_MAX_OUTPUT)
        tmpl_fail(b->rt, ERR_LIMIT, "string longer than %d bytes", (int)TMPL_MAX_OUTPUT);
    if (b->len + n > b->cap)
        b->p = arena_grow(b->rt->a, b->p, 1, 1, b->len, &b->cap, b->len + n);
    memcpy(b->p + b->len, p, (size_t)n);
    b->len += n;
}

static void sb_str(sb *b, str s) { sb_put(b, s.s, s.len); }
static void sb_cstr(sb *b, const char *c) { sb_put(b, c, (iz)strlen(c)); }
static void sb_byte(sb *b, u8 c) { sb_put(b, &c, 1); }

static void sb_rep(sb *b, str s, iz times)
{
    for (iz i = 0; i < times; i++)
        sb_str(b, s);
}

static void sb_cp(sb *b, u32 c)
{
    u8 t[4];
    int n;
    if (c < 0x80) { t[0] = (u8)c; n = 1; }
    else if (c < 0x800) { t[0] = (u8)(0xc0 | (c >> 6)); t[1] = (u8)(0x80 | (c & 0x3f)); n = 2; }
    else if (c < 0x10000) {
        t[0] = (u8)(0xe0 | (c >> 12)); t[1] = (u8)(0x80 | ((c >> 6) & 0x3f));
        t[2] = (u8)(0x80 | (c & 0x3f)); n = 3;
    } else {
        t[0] = (u8)(0xf0 | (c >> 18)); t[1] = (u8)(0x80 | ((c >> 12) & 0x3f));
        t[2] = (u8)(0x80 | ((c >> 6) & 0x3f)); t[3] = (u8)(0x80 | (c & 0x3f)); n = 4;
    }
    sb_put(b, t, n);
}

static void sb_printf(sb *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void sb_printf(sb *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(tmp)) {
        sb_put(b, tmp, n);
        return;
    }
    char *big = NEW_NZ(b->rt->a, char, n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_put(b, big, n);
}

static str sb_view(const sb *b) { return (str){b->p, b->len}; }

/* memcpy of n values; n may be 0 with NULL arrays (empty lists). */
static void tvcpy(tv *dst, const tv *src, iz n)
{
    if (n > 0)
        memcpy(dst, src, sizeof(tv) * (size_t)n);
}

/* A filter's string result (Markup when `safe`). Checked: case mapping
 * grows a context string, which nothing bounds below TV_MAX_STR. */
static tv mkstr(tmpl_rt *rt, str s, bool safe)
{
    tv v = tv_str_checked(rt, s);
    if (safe)
        v.flags = TVF_SAFE;
    return v;
}

static tv sb_tv(const sb *b, bool safe) { return mkstr(b->rt, sb_view(b), safe); }

static bool is_safe(tv v) { return v.kind == TV_STR && (v.flags & TVF_SAFE); }

/* type(v).__name__, with markupsafe's Markup told apart from str. */
static const char *pytype(tv v)
{
    if (v.kind == TV_FUNC) {
        /* The sandbox's range is safe_range, a function; dict, cycler,
         * joiner and namespace are classes. */
        switch (v.id) {
        case TVFN_DICT: case TVFN_CYCLER: case TVFN_JOINER: case TVFN_NAMESPACE:
            return "type";
        default:
            return "function";
        }
    }
    return is_safe(v) ? "Markup" : tv_type_name(v);
}

/* str(v) as a slice (Undefined gives ""). */
static str to_s(tmpl_rt *rt, tv v)
{
    return v.kind == TV_STR ? tv_s(v) : tv_s(tv_to_str(rt, v));
}

/* markupsafe's soft_str: a str (or Markup) stays itself, the rest is str(). */
static tv soft_str(tmpl_rt *rt, tv v)
{
    return v.kind == TV_STR ? v : tv_to_str(rt, v);
}

/* repr(v) as a slice. */
static str repr_s(tmpl_rt *rt, tv v)
{
    /* rt->tmp is used as a stack: what we append we take back off. */
    iz mark = rt->tmp.len;
    tv_write_repr(rt, &rt->tmp, v);
    if (rt->tmp.failed)
        tmpl_fail(rt, ERR_NOMEM, "out of memory");
    str s = arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark));
    rt->tmp.len = mark;
    return s;
}

/* The message an Undefined raises, as a slice. */
static str undef_msg(tmpl_rt *rt, tv v)
{
    iz mark = rt->tmp.len;
    tv_undef_message(rt, &rt->tmp, v);
    if (rt->tmp.failed)
        tmpl_fail(rt, ERR_NOMEM, "out of memory");
    str s = arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark));
    rt->tmp.len = mark;
    return s;
}

/* A C string copy of s for messages (cut to fit them). */
static const char *cz(tmpl_rt *rt, str s)
{
    iz n = MIN(s.len, (iz)ERR_MSG_MAX);
    return (const char *)arena_strdup(rt->a, str_from(s.s, n)).s;
}

static const char *repr_cz(tmpl_rt *rt, tv v) { return cz(rt, repr_s(rt, v)); }

/* html escaping as markupsafe.escape does it. */
static void sb_escape(sb *b, str s)
{
    iz run = 0;
    for (iz i = 0; i < s.len; i++) {
        const char *rep;
        switch (s.s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&#34;"; break;
        case '\'': rep = "&#39;"; break;
        default: continue;
        }
        sb_put(b, s.s + run, i - run);
        sb_cstr(b, rep);
        run = i + 1;
    }
    sb_put(b, s.s + run, s.len - run);
}

/* markupsafe.escape(v): a Markup stays, anything else is str()'d and escaped. */
static tv escape_tv(tmpl_rt *rt, tv v)
{
    if (is_safe(v))
        return v;
    str s = to_s(rt, v);
    sb b = sb_new(rt, s.len + 16);
    sb_escape(&b, s);
    return sb_tv(&b, true);
}

/* ---- argument binding as CPython does it --------------------------------- */

enum { SIG_VARARGS = 1, SIG_VARKW = 2, SIG_MAXP = 8 };

/* A Python function's signature: all positional-or-keyword parameters,
 * the first `hidden` of which Jinja passes itself (environment, context,
 * eval_ctx), then the filtered value. `nreq` counts the parameters without
 * a default (hidden ones and the value included). */
typedef struct sig {
    const char *name;
    const char *params[SIG_MAXP];
    int np, hidden, nreq;
    unsigned flags;
} sig;

typedef struct bound {
    tv   v[SIG_MAXP];
    bool has[SIG_MAXP];
    const tv  *rest;        /* extra positional arguments (SIG_VARARGS) */
    i32        nrest;
    str       *kwname;      /* extra keyword arguments (SIG_VARKW) */
    tv        *kw;
    i32        nkw;
} bound;

static void missing_args(tmpl_rt *rt, const sig *g, const bound *b)
{
    const char *names[SIG_MAXP];
    int n = 0;
    for (int i = 0; i < g->nreq; i++)
        if (!b->has[i])
            names[n++] = g->params[i];
    char list[256];
    int len = 0;
    for (int i = 0; i < n; i++) {
        const char *sep = i == 0 ? "" : n == 2 ? " and " : i == n - 1 ? ", and " : ", ";
        len += snprintf(list + len, sizeof(list) - (size_t)len, "%s'%s'", sep, names[i]);
        if (len >= (int)sizeof(list))
            break;
    }
    tmpl_raise(rt, "TypeError", "%s() missing %d required positional argument%s: %s",
               g->name, n, n == 1 ? "" : "s", list);
}

/* Binds v and the call's arguments to g's parameters, raising Python's
 * TypeError for unknown or repeated keywords, too many positional
 * arguments or missing ones (in CPython's order of checks). */
static void bind(tmpl_rt *rt, const sig *g, tv v, const tv_args *a, bound *b)
{
    memset(b, 0, sizeof(*b));
    for (int i = 0; i < g->hidden; i++)
        b->has[i] = true;
    b->v[g->hidden] = v;
    b->has[g->hidden] = true;
    i32 given = g->hidden + 1 + a->npos;
    for (i32 i = 0; i < a->npos; i++) {
        i32 slot = g->hidden + 1 + i;
        if (slot < g->np) {
            b->v[slot] = a->pos[i];
            b->has[slot] = true;
        } else if (g->flags & SIG_VARARGS) {
            b->rest = a->pos + i;
            b->nrest = a->npos - i;
            break;
        }
    }
    for (i32 k = 0; k < a->nkw; k++) {
        int idx = -1;
        for (int i = 0; i < g->np; i++)
            if (str_eq(a->kwname[k], str_cstr(g->params[i])))
                idx = i;
        if (idx < 0) {
            if (!(g->flags & SIG_VARKW))
                tmpl_raise(rt, "TypeError", "%s() got an unexpected keyword argument '%s'",
                           g->name, cz(rt, a->kwname[k]));
            if (!b->kw) {
                b->kwname = NEW(rt->a, str, a->nkw);
                b->kw = NEW(rt->a, tv, a->nkw);
            }
            b->kwname[b->nkw] = a->kwname[k];
            b->kw[b->nkw++] = a->kw[k];
            continue;
        }
        if (b->has[idx])
            tmpl_raise(rt, "TypeError", "%s() got multiple values for argument '%s'",
                       g->name, g->params[idx]);
        b->v[idx] = a->kw[k];
        b->has[idx] = true;
    }
    if (given > g->np && !(g->flags & SIG_VARARGS)) {
        if (g->nreq < g->np)
            tmpl_raise(rt, "TypeError", "%s() takes from %d to %d positional arguments but %d were given",
                       g->name, g->nreq, g->np, given);
        tmpl_raise(rt, "TypeError", "%s() takes %d positional argument%s but %d were given",
                   g->name, g->np, g->np == 1 ? "" : "s", given);
    }
    for (int i = 0; i < g->nreq; i++)
        if (!b->has[i])
            missing_args(rt, g, b);
}

/* The argument in slot i, or `def` when it was not given. */
static tv arg_or(const bound *b, int i, tv def)
{
    return b->has[i] ? b->v[i] : def;
}

static bool given(const bound *b, int i) { return b->has[i]; }

/* A builtin taking exactly one argument (len, abs, markupsafe's escape). */
static void builtin1(tmpl_rt *rt, const char *name, const tv_args *a)
{
    if (a->nkw)
        tmpl_raise(rt, "TypeError", "%s() takes no keyword arguments", name);
    if (a->npos)
        tmpl_raise(rt, "TypeError", "%s() takes exactly one argument (%d given)", name, 1 + a->npos);
}

/* ---- numbers ------------------------------------------------------------- */

static bool is_none(tv v) { return v.kind == TV_NONE; }

static i64 int_of(tv v)   /* TV_INT or TV_BOOL */
{
    return v.kind == TV_BOOL ? (i64)v.u.b : v.u.i;
}

/* operator.index(v) for a C ssize_t: Python's TypeError and OverflowError. */
static i64 py_index(tmpl_rt *rt, tv v)
{
    if (v.kind == TV_INT || v.kind == TV_BOOL)
        return int_of(v);
    if (v.kind == TV_BIGINT)
        tmpl_raise(rt, "OverflowError", "Python int too large to convert to C ssize_t");
    tmpl_raise(rt, "TypeError", "'%s' object cannot be interpreted as an integer", pytype(v));
}

/* An integer given as a sign and decimal digits (no leading zeros), as the
 * smallest value kind that holds it. */
static tv int_from_digits(tmpl_rt *rt, bool neg, str digits)
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
static void int_digits(tmpl_rt *rt, tv v, bool *neg, str *digits)
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
static tv int_add(tmpl_rt *rt, tv a, tv b)
{
    if (a.kind != TV_BIGINT && b.kind != TV_BIGINT) {
        i64 r;
        if (!__builtin_add_overflow(int_of(a), int_of(b), &r))
            return tv_int(r);
    }
    bool na, nb;
    str da, db;
    int_digits(rt, a, &na, &da);
    int_digits(rt, b, &nb, &db);
    if (na == nb)
        return int_from_digits(rt, na, digits_add(rt, da, db));
    int c = digits_cmp(da, db);
    if (c == 0)
        return tv_int(0);
    return c > 0 ? int_from_digits(rt, na, digits_sub(rt, da, db))
                 : int_from_digits(rt, nb, digits_sub(rt, db, da));
}

/* float(v) of an int-like value (OverflowError past the double range). */
static double int_to_double(tmpl_rt *rt, tv v)
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
static double num_to_double(tmpl_rt *rt, tv v)
{
    return v.kind == TV_FLOAT ? v.u.f : int_to_double(rt, v);
}

/* int(x) of a finite double, exactly (a big int when it does not fit). */
static tv int_from_double(tmpl_rt *rt, double x)
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
    return int_from_digits(rt, neg, str_from(tmp + neg, n - neg));
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

static tv pct_format(tmpl_rt *rt, tv fmt, tv args);

/* a % b as Python evaluates it for the odd/even/divisibleby tests. */
static tv py_mod(tmpl_rt *rt, tv a, tv b)
{
    if (a.kind == TV_UNDEF)
        tv_undef_raise(rt, a);
    if (a.kind == TV_STR)
        return pct_format(rt, a, b);
    if (b.kind == TV_UNDEF && tv_is_number(a))
        tv_undef_raise(rt, b);
    if (tv_is_number(a) && tv_is_number(b)) {
        if (a.kind == TV_FLOAT || b.kind == TV_FLOAT) {
            double x = num_to_double(rt, a), y = num_to_double(rt, b);
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
            int_digits(rt, a, &neg, &d);
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
static tv py_add(tmpl_rt *rt, tv a, tv b)
{
    if (a.kind == TV_UNDEF)
        tv_undef_raise(rt, a);
    if (b.kind == TV_UNDEF)
        tv_undef_raise(rt, b);
    if (tv_is_int(a) && tv_is_int(b))
        return int_add(rt, a, b);
    if (tv_is_number(a) && tv_is_number(b))
        return tv_float(num_to_double(rt, a) + num_to_double(rt, b));
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

static bool parse_int(tmpl_rt *rt, str s, i64 base, tv *out)
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
        *out = int_from_digits(rt, neg, ds);
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
    *out = int_from_digits(rt, neg, acc);
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
static bool parse_float(tmpl_rt *rt, str s, double *out)
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

/* ---- iteration and attribute paths ----------------------------------------- */

/* for item in v: the items (an Undefined is empty; TypeError otherwise). */
static const tv *items_of(tmpl_rt *rt, tv v, iz *n)
{
    return tv_iterate(rt, v, n);
}

static tv list_of(tmpl_rt *rt, const tv *items, iz n)
{
    tv l = tv_list_new(rt, n);
    tvcpy(l.u.list->v, items, n);
    return l;
}

/* Jinja's _prepare_attribute_parts: None -> no parts, a str splits at dots
 * with all-digit parts as ints, anything else is one part. */
typedef struct attrpath {
    tv *parts;
    iz  n;
} attrpath;

static attrpath attr_parts(tmpl_rt *rt, tv attribute)
{
    attrpath p = {0};
    if (is_none(attribute))
        return p;
    if (attribute.kind != TV_STR) {
        p.parts = NEW(rt->a, tv, 1);
        p.parts[0] = attribute;
        p.n = 1;
        return p;
    }
    str s = tv_s(attribute);
    iz count = 1;
    for (iz i = 0; i < s.len; i++)
        count += s.s[i] == '.';
    p.parts = NEW(rt->a, tv, count);
    iz beg = 0;
    for (iz i = 0; i <= s.len; i++) {
        if (i < s.len && s.s[i] != '.')
            continue;
        str part = str_cut(s, beg, i);
        bool digits = part.len > 0;
        for (iz k = 0; k < part.len; k++)
            digits &= part.s[k] >= '0' && part.s[k] <= '9';
        if (digits)
            p.parts[p.n++] = int_from_digits(rt, false, part);
        else if (part.len && pystr_is(part, PYSTR_DIGIT))
            /* int('²') is a ValueError in Python; such paths are exotic. */
            tmpl_fail(rt, ERR_UNSUPPORTED, "attribute path part '%s' (digits that are not decimal)",
                      cz(rt, part));
        else
            p.parts[p.n++] = mkstr(rt, part, false);
        beg = i + 1;
    }
    return p;
}

/* str.lower() of a str (Jinja's ignore_case); other values unchanged. */
static tv ignore_case(tmpl_rt *rt, tv v)
{
    if (v.kind != TV_STR)
        return v;
    return mkstr(rt, pystr_lower(rt->a, tv_s(v)), is_safe(v));
}

/* make_attrgetter(environment, attribute, postprocess, default): the item
 * looked up part by part with environment.getitem (tv_getitem); an
 * Undefined along the way becomes `def` when that is not None. */
static tv attr_get(tmpl_rt *rt, const attrpath *p, tv item, bool lower, const tv *def)
{
    for (iz i = 0; i < p->n; i++) {
        item = tv_getitem(rt, item, p->parts[i]);
        if (def && !is_none(*def) && item.kind == TV_UNDEF)
            item = *def;
    }
    return lower ? ignore_case(rt, item) : item;
}

/* ---- sorting as CPython's list.sort ---------------------------------------- */

/* `a < b` of two sort keys. */
typedef bool (*lt_fn)(tmpl_rt *rt, const void *ctx, tv a, tv b);

static bool lt_plain(tmpl_rt *rt, const void *ctx, tv a, tv b)
{
    (void)ctx;
    return tv_compare(rt, TMPL_OP_LT, a, b);
}

/* Keys that are lists of values (make_multi_attrgetter): Python's list
 * comparison, == on the items until one differs, then < on that one. */
static bool lt_multi(tmpl_rt *rt, const void *ctx, tv a, tv b)
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
    lt_fn       lt;
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
static void py_sort(tmpl_rt *rt, tv *keys, tv *vals, iz n, bool reverse, lt_fn lt, const void *ctx)
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
static bool reverse_flag(tmpl_rt *rt, tv v)
{
    if (v.kind == TV_BIGINT)
        tmpl_raise(rt, "OverflowError", "Python int too large to convert to C int");
    if (v.kind != TV_INT && v.kind != TV_BOOL)
        tmpl_raise(rt, "TypeError", "'%s' object cannot be interpreted as an integer", pytype(v));
    i64 x = int_of(v);
    if (x > 2147483647 || x < -2147483647 - 1)
        tmpl_raise(rt, "OverflowError", "Python int too large to convert to C int");
    return x != 0;
}

/* ---- printf-style formatting: str % args ------------------------------------ */

enum { F_LJUST = 1, F_SIGN = 2, F_BLANK = 4, F_ALT = 8, F_ZERO = 16 };

/* ascii(v): repr with every non-ASCII character escaped. */
static str ascii_s(tmpl_rt *rt, tv v)
{
    str r = repr_s(rt, v);
    if (utf8_ascii_prefix(r) == r.len)
        return r;
    sb b = sb_new(rt, r.len + 16);
    for (iz i = 0; i < r.len;) {
        u32 c = utf8_next(r.s, &i);
        if (c < 0x80)
            sb_byte(&b, (u8)c);
        else if (c < 0x100)
            sb_printf(&b, "\\x%02x", c);
        else if (c < 0x10000)
            sb_printf(&b, "\\u%04x", c);
        else
            sb_printf(&b, "\\U%08x", c);
    }
    return sb_view(&b);
}

/* Writes sign, prefix and body padded to width as PyUnicode_Format does:
 * zero fill goes between the sign/prefix and the body. */
static void pad_out(sb *out, int flags, iz width, bool numeric, const char *sign,
                    const char *prefix, str body)
{
    iz len = (iz)strlen(sign) + (iz)strlen(prefix) + pystr_len(body);
    iz padn = width > len ? width - len : 0;
    if (flags & F_LJUST) {
        sb_cstr(out, sign);
        sb_cstr(out, prefix);
        sb_str(out, body);
        sb_rep(out, S(" "), padn);
    } else if (numeric && (flags & F_ZERO)) {
        sb_cstr(out, sign);
        sb_cstr(out, prefix);
        sb_rep(out, S("0"), padn);
        sb_str(out, body);
    } else {
        sb_rep(out, S(" "), padn);
        sb_cstr(out, sign);
        sb_cstr(out, prefix);
        sb_str(out, body);
    }
}

/* The int a %d/%x/%o conversion formats: Python's int(v) for d/i/u of a
 * number, operator.index(v) for x/X/o. */
static tv pct_int_arg(tmpl_rt *rt, u32 conv, tv v)
{
    if (tv_is_int(v))
        return v.kind == TV_BOOL ? tv_int(v.u.b) : v;
    bool dec = conv == 'd' || conv == 'i' || conv == 'u';
    if (v.kind == TV_UNDEF && dec)
        tv_undef_raise(rt, v);   /* Undefined has __int__, which raises */
    if (v.kind == TV_FLOAT && dec)
        return int_from_double(rt, v.u.f);
    tmpl_raise(rt, "TypeError", "%%%c format: %s is required, not %s", (int)conv,
               dec ? "a real number" : "an integer", pytype(v));
}

static void pct_int(tmpl_rt *rt, sb *out, u32 conv, int flags, iz width, iz prec, tv v)
{
    bool neg;
    str digits;
    int_digits(rt, v, &neg, &digits);
    const char *prefix = "";
    if (conv == 'x' || conv == 'X' || conv == 'o') {
        if (v.kind == TV_BIGINT)
            tmpl_fail(rt, ERR_UNSUPPORTED, "%%%c of an integer beyond 64 bits", (int)conv);
        i64 x = int_of(v);
        u64 m = x < 0 ? 0 - (u64)x : (u64)x;
        char tmp[32];
        int n = snprintf(tmp, sizeof(tmp), conv == 'x' ? "%llx" : conv == 'X' ? "%llX" : "%llo",
                         (unsigned long long)m);
        digits = arena_strdup(rt->a, str_from(tmp, n));
        if (flags & F_ALT)
            prefix = conv == 'x' ? "0x" : conv == 'X' ? "0X" : "0o";
    }
    if (prec > digits.len) {
        sb z = sb_new(rt, prec);
        sb_rep(&z, S("0"), prec - digits.len);
        sb_str(&z, digits);
        digits = sb_view(&z);
    }
    const char *sign = neg ? "-" : (flags & F_SIGN) ? "+" : (flags & F_BLANK) ? " " : "";
    pad_out(out, flags, width, true, sign, prefix, digits);
}

static void pct_float(tmpl_rt *rt, sb *out, u32 conv, int flags, iz width, iz prec, double x)
{
    if (prec < 0)
        prec = 6;
    const char *sign = signbit(x) && !isnan(x) ? "-" : (flags & F_SIGN) ? "+" : (flags & F_BLANK) ? " " : "";
    bool upper = conv == 'E' || conv == 'F' || conv == 'G';
    str body;
    if (!isfinite(x)) {
        if (flags & F_ZERO)
            tmpl_fail(rt, ERR_UNSUPPORTED, "zero-padded %%-formatting of inf or nan");
        body = isnan(x) ? (upper ? S("NAN") : S("nan")) : (upper ? S("INF") : S("inf"));
    } else {
        /* snprintf with a literal format per conversion (and '#'). */
        double ax = fabs(x);
        int ip = (int)prec, n;
        char *p;
#define FMT1(lit) do { \
            n = snprintf(NULL, 0, lit, ip, ax); \
            p = NEW_NZ(rt->a, char, n + 1); \
            snprintf(p, (size_t)n + 1, lit, ip, ax); \
        } while (0)
        bool alt = flags & F_ALT;
        switch (conv) {
        case 'e': if (alt) FMT1("%#.*e"); else FMT1("%.*e"); break;
        case 'E': if (alt) FMT1("%#.*E"); else FMT1("%.*E"); break;
        case 'f': if (alt) FMT1("%#.*f"); else FMT1("%.*f"); break;
        case 'F': if (alt) FMT1("%#.*F"); else FMT1("%.*F"); break;
        case 'g': if (alt) FMT1("%#.*g"); else FMT1("%.*g"); break;
        default:  if (alt) FMT1("%#.*G"); else FMT1("%.*G"); break;
        }
#undef FMT1
        body = str_from(p, n);
    }
    pad_out(out, flags, width, true, sign, "", body);
}

/* `fmt % args` (PyUnicode_Format): args a tuple gives the arguments in
 * order, a dict (or another mapping) also serves %(key)s, anything else is
 * the one argument. A Markup format escapes its str arguments (Markup.__mod__). */
static tv pct_format(tmpl_rt *rt, tv fmtv, tv args)
{
    str f = tv_s(fmtv);
    bool safe = is_safe(fmtv);
    /* CPython's state: the current argument object, its length (-1: not a
     * tuple) and the next index (-2: the lone argument is still unused). */
    tv cur = args;
    iz arglen = -1, argidx = -2;
    if (args.kind == TV_TUPLE) {
        arglen = args.u.list->n;
        argidx = 0;
    }
    /* PyMapping_Check: dicts, and lists and Undefined too (they have
     * __getitem__): no "not all arguments converted" for them */
    bool mapping = args.kind == TV_DICT || args.kind == TV_LIST || args.kind == TV_UNDEF;
    sb out = sb_new(rt, f.len + 16);
    iz run = 0;
    for (iz i = 0; i < f.len;) {
        if (f.s[i] != '%') {
            i++;
            continue;
        }
        sb_put(&out, f.s + run, i - run);
        iz start = i++;
        tv v = {0};
        if (i < f.len && f.s[i] == '(') {
            iz depth = 1, kbeg = ++i;
            while (i < f.len && depth > 0) {
                if (f.s[i] == '(') depth++;
                else if (f.s[i] == ')') depth--;
                i++;
            }
            if (depth > 0)
                tmpl_raise(rt, "ValueError", "incomplete format key");
            str key = str_cut(f, kbeg, i - 1);
            if (!mapping)
                tmpl_raise(rt, "TypeError", "format requires a mapping");
            if (args.kind == TV_UNDEF)   /* Undefined.__getitem__ raises */
                tv_undef_raise(rt, args);
            if (args.kind != TV_DICT)   /* a list: list["key"] */
                tmpl_raise(rt, "TypeError", "list indices must be integers or slices, not str");
            if (!tv_dict_get_str(args.u.dict, key, &cur))
                tmpl_raise(rt, "KeyError", "%s", repr_cz(rt, mkstr(rt, key, false)));
            arglen = -1;
            argidx = -2;
        }
        int flags = 0;
        for (; i < f.len; i++) {
            u8 c = f.s[i];
            if (c == '-') flags |= F_LJUST;
            else if (c == '+') flags |= F_SIGN;
            else if (c == ' ') flags |= F_BLANK;
            else if (c == '#') flags |= F_ALT;
            else if (c == '0') flags |= F_ZERO;
            else break;
        }
        iz width = -1, prec = -1;
#define NEXTARG(dst) do { \
            if (argidx >= arglen) \
                tmpl_raise(rt, "TypeError", "not enough arguments for format string"); \
            argidx++; \
            dst = arglen < 0 ? cur : cur.u.list->v[argidx - 1]; \
        } while (0)
        if (i < f.len && f.s[i] == '*') {
            tv w;
            NEXTARG(w);
            if (!tv_is_int(w))
                tmpl_raise(rt, "TypeError", "* wants int");
            width = py_index(rt, w);
            if (width < 0) {
                flags |= F_LJUST;
                width = -width;
            }
            i++;
        } else {
            while (i < f.len && f.s[i] >= '0' && f.s[i] <= '9') {
                width = (width < 0 ? 0 : width) * 10 + (f.s[i++] - '0');
                if (width > TMPL_MAX_OUTPUT)
                    tmpl_raise(rt, "ValueError", "width too big");
            }
        }
        if (i < f.len && f.s[i] == '.') {
            i++;
            prec = 0;
            if (i < f.len && f.s[i] == '*') {
                tv p;
                NEXTARG(p);
                if (!tv_is_int(p))
                    tmpl_raise(rt, "TypeError", "* wants int");
                prec = py_index(rt, p);
                if (prec < 0)
                    prec = 0;
                i++;
            } else {
                while (i < f.len && f.s[i] >= '0' && f.s[i] <= '9') {
                    prec = prec * 10 + (f.s[i++] - '0');
                    if (prec > TMPL_MAX_OUTPUT)
                        tmpl_raise(rt, "ValueError", "precision too big");
                }
            }
        }
        if (i >= f.len)
            tmpl_raise(rt, "ValueError", "incomplete format");
        iz ci = i;
        u32 conv = utf8_next(f.s, &i);
        run = i;
        /* "%%" is a percent sign; a '%' after flags, width or a key is a
         * conversion like any other (and an unsupported one). */
        if (conv == '%' && ci == start + 1) {
            sb_byte(&out, '%');
            continue;
        }
        NEXTARG(v);
#undef NEXTARG
        switch (conv) {
        case 's': case 'r': case 'a': {
            str s;
            if (conv == 's') {
                s = safe && !is_safe(v) ? tv_s(escape_tv(rt, v)) : to_s(rt, v);
            } else {
                s = conv == 'r' ? repr_s(rt, v) : ascii_s(rt, v);
                if (safe)
                    s = tv_s(escape_tv(rt, mkstr(rt, s, false)));
            }
            if (prec >= 0 && pystr_len(s) > prec)
                s = str_cut(s, 0, pystr_offset(s, prec));
            pad_out(&out, flags, width, false, "", "", s);
            break;
        }
        case 'c': {
            if (safe)
                tmpl_fail(rt, ERR_UNSUPPORTED, "%%c in a Markup format");
            u32 cp;
            if (tv_is_int(v)) {
                if (v.kind == TV_BIGINT || int_of(v) < 0 || int_of(v) > 0x10ffff)
                    tmpl_raise(rt, "OverflowError", "%%c arg not in range(0x110000)");
                cp = (u32)int_of(v);
                if (cp >= 0xd800 && cp <= 0xdfff)
                    tmpl_fail(rt, ERR_UNSUPPORTED, "%%c of a surrogate");
            } else if (v.kind == TV_STR && pystr_len(tv_s(v)) == 1) {
                iz k = 0;
                cp = utf8_next(tv_s(v).s, &k);
            } else {
                tmpl_raise(rt, "TypeError", "%%c requires int or char");
            }
            sb one = sb_new(rt, 4);
            sb_cp(&one, cp);
            pad_out(&out, flags, width, false, "", "", sb_view(&one));
            break;
        }
        case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
            if (safe && conv != 'd' && conv != 'i' && conv != 'u')
                tmpl_fail(rt, ERR_UNSUPPORTED, "%%%c in a Markup format", (int)conv);
            pct_int(rt, &out, conv, flags, width, prec, pct_int_arg(rt, conv, v));
            break;
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': {
            double x;
            if (v.kind == TV_FLOAT)
                x = v.u.f;
            else if (tv_is_int(v))
                x = int_to_double(rt, v);
            else if (v.kind == TV_UNDEF)
                tv_undef_raise(rt, v);   /* Undefined.__float__ raises */
            else
                tmpl_raise(rt, "TypeError", "must be real number, not %s", pytype(v));
            pct_float(rt, &out, conv, flags, width, prec, x);
            break;
        }
        default: {
            char ch[8];
            int n = 0;
            sb one = sb_new(rt, 4);
            sb_cp(&one, conv);
            n = (int)one.len;
            memcpy(ch, one.p, (size_t)n);
            ch[n] = 0;
            tmpl_raise(rt, "ValueError", "unsupported format character '%s' (0x%x) at index %lld",
                       ch, conv, (long long)pystr_len(str_cut(f, 0, ci)));
        }
        }
    }
    sb_put(&out, f.s + run, f.len - run);
    if (argidx < arglen && !mapping)
        tmpl_raise(rt, "TypeError", "not all arguments converted during string formatting");
    return sb_tv(&out, safe);
}

/* `fmt % args` for the evaluator's % operator on a str (fmt a TV_STR),
 * with Python's treatment of the right operand: a tuple gives the
 * arguments, a dict also serves %(key)s, anything else is the one argument.
 * Declared in tmpl_value.h. */
tv tv_percent(tmpl_rt *rt, tv fmt, tv args)
{
    return pct_format(rt, fmt, args);
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
static double round_double(tmpl_rt *rt, double x, i64 ndigits)
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
static tv round_int(tmpl_rt *rt, tv v, i64 ndigits)
{
    if (v.kind == TV_BOOL)
        v = tv_int(v.u.b);
    if (ndigits >= 0)
        return v;
    bool neg;
    str d;
    int_digits(rt, v, &neg, &d);
    if (ndigits < -(i64)d.len - 1)
        return tv_int(0);
    str kept = round_digits(rt, d, 0, (iz)ndigits);
    sb r = sb_new(rt, kept.len - ndigits);
    sb_str(&r, kept);
    sb_rep(&r, S("0"), -ndigits);
    return int_from_digits(rt, neg, sb_view(&r));
}

/* ---- json.dumps ------------------------------------------------------------ */

typedef struct jw {
    tmpl_rt *rt;
    buf     *b;
    const pyfmt_dumps_opts *o;
    iz       limit;     /* b->len may not pass this */
} jw;

static void jw_check(jw *w)
{
    if (w->b->failed)
        tmpl_fail(w->rt, ERR_NOMEM, "out of memory writing JSON");
    if (w->b->len > w->limit)
        tmpl_fail(w->rt, ERR_LIMIT, "JSON text longer than %d bytes", (int)TMPL_MAX_OUTPUT);
}

static void jw_newline(jw *w, int level)
{
    buf_byte(w->b, '\n');
    for (int i = 0; i < level; i++) {
        if (w->o->indent == PYFMT_INDENT_STR)
            buf_str(w->b, w->o->indent_str);
        else
            for (int k = 0; k < w->o->indent_spaces; k++)
                buf_byte(w->b, ' ');
    }
    jw_check(w);
}

static str jw_item_sep(const jw *w)
{
    if (w->o->separators)
        return w->o->item_sep;
    return w->o->indent == PYFMT_INDENT_NONE ? S(", ") : S(",");
}

static str jw_key_sep(const jw *w)
{
    return w->o->separators ? w->o->key_sep : S(": ");
}

static void jw_value(jw *w, tv v, int level);

static void jw_int(jw *w, tv v)
{
    if (v.kind == TV_BIGINT) {
        str d = tv_s(v);
        iz nd = d.len - (d.len && d.s[0] == '-');
        if (nd > PYFMT_INT_MAX_DIGITS)
            tmpl_raise(w->rt, "ValueError", "Exceeds the limit (%d digits) for integer string "
                       "conversion; use sys.set_int_max_str_digits() to increase the limit",
                       (int)PYFMT_INT_MAX_DIGITS);
        buf_str(w->b, d);
    } else {
        pyfmt_int(w->b, int_of(v));
    }
}

/* A dict key as json.dumps converts it to a string. */
static void jw_key(jw *w, tv k)
{
    switch (k.kind) {
    case TV_STR:
        pyfmt_json_str(w->b, tv_s(k), w->o->ensure_ascii);
        return;
    case TV_FLOAT: {
        char tmp[PYFMT_FLOAT_MAX];
        int n = pyfmt_float_to(tmp, k.u.f, PYFMT_JSON);
        buf_byte(w->b, '"');
        buf_put(w->b, tmp, n);
        buf_byte(w->b, '"');
        return;
    }
    case TV_BOOL:
        buf_cstr(w->b, k.u.b ? "\"true\"" : "\"false\"");
        return;
    case TV_NONE:
        buf_cstr(w->b, "\"null\"");
        return;
    case TV_INT: case TV_BIGINT:
        buf_byte(w->b, '"');
        jw_int(w, k);
        buf_byte(w->b, '"');
        return;
    default:
        tmpl_raise(w->rt, "TypeError", "keys must be str, int, float, bool or None, not %s",
                   pytype(k));
    }
}

static void jw_dict(jw *w, const tv_dict *d, int level)
{
    if (tv_dict_n(d) == 0) {
        buf_cstr(w->b, "{}");
        return;
    }
    iz n = tv_dict_n(d);
    tv *order = NEW_NZ(w->rt->a, tv, n);   /* keys, sorted when asked */
    tv *idx = NEW_NZ(w->rt->a, tv, n);     /* entry positions, permuted alike */
    for (iz i = 0; i < n; i++) {
        order[i] = tv_dict_e(d)[i].key;
        idx[i] = tv_int(i);
    }
    if (w->o->sort_keys)
        py_sort(w->rt, order, idx, n, false, lt_plain, NULL);
    buf_byte(w->b, '{');
    if (w->o->indent != PYFMT_INDENT_NONE)
        jw_newline(w, level + 1);
    for (iz i = 0; i < n; i++) {
        const tv_entry *e = &tv_dict_e(d)[idx[i].u.i];
        if (i) {
            buf_str(w->b, jw_item_sep(w));
            if (w->o->indent != PYFMT_INDENT_NONE)
                jw_newline(w, level + 1);
        }
        jw_key(w, e->key);
        buf_str(w->b, jw_key_sep(w));
        jw_value(w, e->val, level + 1);
    }
    if (w->o->indent != PYFMT_INDENT_NONE)
        jw_newline(w, level);
    buf_byte(w->b, '}');
}

static void jw_value(jw *w, tv v, int level)
{
    if (level > PYFMT_MAX_DEPTH)
        tmpl_fail(w->rt, ERR_LIMIT, "JSON nesting deeper than %d", (int)PYFMT_MAX_DEPTH);
    tmpl_work(w->rt, 1 + tv_steps(v));
    switch (v.kind) {
    case TV_NONE:
        buf_cstr(w->b, "null");
        break;
    case TV_BOOL:
        buf_cstr(w->b, v.u.b ? "true" : "false");
        break;
    case TV_INT: case TV_BIGINT:
        jw_int(w, v);
        break;
    case TV_FLOAT:
        pyfmt_float_json(w->b, v.u.f);
        break;
    case TV_STR:
        pyfmt_json_str(w->b, tv_s(v), w->o->ensure_ascii);
        break;
    case TV_LIST: case TV_TUPLE: {
        const tv_list *l = v.u.list;
        if (tv_is_iter(v) || (v.flags & TVF_RANGE))
            tmpl_raise(w->rt, "TypeError", "Object of type %s is not JSON serializable", pytype(v));
        /* A list made from JSON and unchanged (no list of the render has
         * changed): its tree prints the same, and faster (without indent
         * the nesting level does not matter). */
        if (l->origin && !w->rt->lists_changed && (w->o->indent == PYFMT_INDENT_NONE || level == 0)) {
            err e;
            if (!pyfmt_json_dumps(w->b, l->origin, w->o, w->rt->a, &e))
                tmpl_fail(w->rt, e.code, "%s", e.msg);
            break;
        }
        if (l->n == 0) {
            buf_cstr(w->b, "[]");
            break;
        }
        buf_byte(w->b, '[');
        if (w->o->indent != PYFMT_INDENT_NONE)
            jw_newline(w, level + 1);
        for (iz i = 0; i < l->n; i++) {
            if (i) {
                buf_str(w->b, jw_item_sep(w));
                if (w->o->indent != PYFMT_INDENT_NONE)
                    jw_newline(w, level + 1);
            }
            jw_value(w, l->v[i], level + 1);
        }
        if (w->o->indent != PYFMT_INDENT_NONE)
            jw_newline(w, level);
        buf_byte(w->b, ']');
        break;
    }
    case TV_DICT:
        if (v.u.dict->origin && !w->rt->lists_changed && (w->o->indent == PYFMT_INDENT_NONE || level == 0)) {
            err e;
            if (!pyfmt_json_dumps(w->b, v.u.dict->origin, w->o, w->rt->a, &e))
                tmpl_fail(w->rt, e.code, "%s", e.msg);
            break;
        }
        jw_dict(w, v.u.dict, level);
        break;
    default:
        tmpl_raise(w->rt, "TypeError", "Object of type %s is not JSON serializable",
                   pytype(v));
    }
    jw_check(w);
}

void tv_write_json(tmpl_rt *rt, buf *b, tv v, const void *pyfmt_opts)
{
    static const pyfmt_dumps_opts defaults = {0};
    const pyfmt_dumps_opts *o = pyfmt_opts ? pyfmt_opts : &defaults;
    iz limit = o->max_out > 0 ? b->len + o->max_out : b->len + (iz)TMPL_MAX_OUTPUT;
    jw w = {rt, b, o, limit};
    jw_value(&w, v, 0);
}

/* ---- the filters ------------------------------------------------------------- */

/* Python signatures of the filter functions (jinja2/filters.py and the
 * oracle's tojson), for binding arguments and for TypeError messages. */
#define SIG(var, fname, np, hidden, nreq, flags, ...) \
    static const sig var = {fname, {__VA_ARGS__}, np, hidden, nreq, flags}

SIG(SG_ATTR, "do_attr", 3, 1, 3, 0, "environment", "obj", "name");
SIG(SG_BATCH, "do_batch", 3, 0, 2, 0, "value", "linecount", "fill_with");
SIG(SG_CAPITALIZE, "do_capitalize", 1, 0, 1, 0, "s");
SIG(SG_CENTER, "do_center", 2, 0, 1, 0, "value", "width");
SIG(SG_DEFAULT, "do_default", 3, 0, 1, 0, "value", "default_value", "boolean");
SIG(SG_DICTSORT, "do_dictsort", 4, 0, 1, 0, "value", "case_sensitive", "by", "reverse");
SIG(SG_FILESIZE, "do_filesizeformat", 2, 0, 1, 0, "value", "binary");
SIG(SG_FIRST, "sync_do_first", 2, 1, 2, 0, "environment", "seq");
SIG(SG_FLOAT, "do_float", 2, 0, 1, 0, "value", "default");
SIG(SG_FORCEESCAPE, "do_forceescape", 1, 0, 1, 0, "value");
SIG(SG_FORMAT, "do_format", 1, 0, 1, SIG_VARARGS | SIG_VARKW, "value");
SIG(SG_GROUPBY, "sync_do_groupby", 5, 1, 3, 0, "environment", "value", "attribute", "default",
    "case_sensitive");
SIG(SG_INDENT, "do_indent", 4, 0, 1, 0, "s", "width", "first", "blank");
SIG(SG_INT, "do_int", 3, 0, 1, 0, "value", "default", "base");
SIG(SG_ITEMS, "do_items", 1, 0, 1, 0, "value");
SIG(SG_JOIN, "sync_do_join", 4, 1, 2, 0, "eval_ctx", "value", "d", "attribute");
SIG(SG_LAST, "do_last", 2, 1, 2, 0, "environment", "seq");
SIG(SG_LIST, "sync_do_list", 1, 0, 1, 0, "value");
SIG(SG_LOWER, "do_lower", 1, 0, 1, 0, "s");
SIG(SG_MAP, "sync_do_map", 2, 1, 2, SIG_VARARGS | SIG_VARKW, "context", "value");
SIG(SG_MAX, "do_max", 4, 1, 2, 0, "environment", "value", "case_sensitive", "attribute");
SIG(SG_MIN, "do_min", 4, 1, 2, 0, "environment", "value", "case_sensitive", "attribute");
SIG(SG_PPRINT, "do_pprint", 1, 0, 1, 0, "value");
SIG(SG_RANDOM, "do_random", 2, 1, 2, 0, "context", "seq");
SIG(SG_REJECT, "sync_do_reject", 2, 1, 2, SIG_VARARGS | SIG_VARKW, "context", "value");
SIG(SG_REJECTATTR, "sync_do_rejectattr", 2, 1, 2, SIG_VARARGS | SIG_VARKW, "context", "value");
SIG(SG_REPLACE, "do_replace", 5, 1, 4, 0, "eval_ctx", "s", "old", "new", "count");
SIG(SG_REVERSE, "do_reverse", 1, 0, 1, 0, "value");
SIG(SG_ROUND, "do_round", 3, 0, 1, 0, "value", "precision", "method");
SIG(SG_SAFE, "do_mark_safe", 1, 0, 1, 0, "value");
SIG(SG_SELECT, "sync_do_select", 2, 1, 2, SIG_VARARGS | SIG_VARKW, "context", "value");
SIG(SG_SELECTATTR, "sync_do_selectattr", 2, 1, 2, SIG_VARARGS | SIG_VARKW, "context", "value");
SIG(SG_SLICE, "sync_do_slice", 3, 0, 2, 0, "value", "slices", "fill_with");
SIG(SG_SORT, "do_sort", 5, 1, 2, 0, "environment", "value", "reverse", "case_sensitive", "attribute");
SIG(SG_STRIPTAGS, "do_striptags", 1, 0, 1, 0, "value");
SIG(SG_SUM, "sync_do_sum", 4, 1, 2, 0, "environment", "iterable", "attribute", "start");
SIG(SG_TITLE, "do_title", 1, 0, 1, 0, "s");
SIG(SG_TOJSON, "TemplateEnv.__init__.<locals>.tojson", 5, 0, 1, 0, "x", "ensure_ascii", "indent",
    "separators", "sort_keys");
SIG(SG_TRIM, "do_trim", 2, 0, 1, 0, "value", "chars");
SIG(SG_TRUNCATE, "do_truncate", 6, 1, 2, 0, "env", "s", "length", "killwords", "end", "leeway");
SIG(SG_UNIQUE, "do_unique", 4, 1, 2, 0, "environment", "value", "case_sensitive", "attribute");
SIG(SG_UPPER, "do_upper", 1, 0, 1, 0, "s");
SIG(SG_URLENCODE, "do_urlencode", 1, 0, 1, 0, "value");
SIG(SG_URLIZE, "do_urlize", 7, 1, 2, 0, "eval_ctx", "value", "trim_url_limit", "nofollow", "target",
    "rel", "extra_schemes");
SIG(SG_WORDCOUNT, "do_wordcount", 1, 0, 1, 0, "s");
SIG(SG_WORDWRAP, "do_wordwrap", 6, 1, 2, 0, "environment", "s", "width", "break_long_words",
    "wrapstring", "break_on_hyphens");
SIG(SG_XMLATTR, "do_xmlattr", 3, 1, 2, 0, "eval_ctx", "d", "autospace");

static tv f_abs(tmpl_rt *rt, tv v, const tv_args *a)
{
    builtin1(rt, "abs", a);
    switch (v.kind) {
    case TV_BOOL:
        return tv_int(v.u.b);
    case TV_INT:
        if (v.u.i == INT64_MIN)
            return int_from_digits(rt, false, S("9223372036854775808"));
        return tv_int(v.u.i < 0 ? -v.u.i : v.u.i);
    case TV_BIGINT:
        return tv_s(v).s[0] == '-' ? int_from_digits(rt, false, str_cut(tv_s(v), 1, tv_s(v).len)) : v;
    case TV_FLOAT:
        return tv_float(fabs(v.u.f));
    default:
        tmpl_raise(rt, "TypeError", "bad operand type for abs(): '%s'", pytype(v));
    }
}

static bool name_in(str name, const char *const *names)
{
    for (; *names; names++)
        if (str_eq(name, str_cstr(*names)))
            return true;
    return false;
}

/* `obj|attr(name)`: a Python attribute through the sandbox, never an item. */
static tv f_attr(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_ATTR, v, a, &b);
    tv obj = b.v[1], name = b.v[2];
    if (name.kind != TV_STR)
        tmpl_raise(rt, "TypeError", "attribute name must be string, not '%s'", pytype(name));
    str n = tv_s(name);
    if (obj.kind == TV_UNDEF)
        tv_undef_raise(rt, obj);
    if (n.len >= 2 && n.s[0] == '_' && n.s[1] == '_')
        /* Dunder attributes exist or not per type (dir()), and the sandbox
         * calls the existing ones unsafe; we do not list them. */
        tmpl_fail(rt, ERR_UNSUPPORTED, "attr filter with the special attribute '%s'", cz(rt, n));
    if (n.len && n.s[0] == '_') {
        /* No builtin type has a single-underscore attribute; a namespace
         * may, and then the sandbox calls it unsafe. */
        tv out;
        if (obj.kind == TV_NS && tv_dict_get_str(obj.u.dict, n, &out))
            return tv_getattr(rt, obj, n);
        if (obj.kind == TV_NS || (obj.kind >= TV_NONE && obj.kind <= TV_DICT))
            return tv_undef_attr(rt, obj, name);
        tmpl_fail(rt, ERR_UNSUPPORTED, "attr filter: attribute '%s' of a %s", cz(rt, n), pytype(obj));
    }
    static const char *const str_other[] = {"encode", "format_map", "maketrans", "translate", NULL};
    static const char *const dict_mut[] = {"clear", "pop", "popitem", "setdefault", "update", NULL};
    static const char *const list_mut[] = {"append", "clear", "extend", "insert", "pop", "remove",
                                           "reverse", "sort", NULL};
    static const char *const num_attrs[] = {"real", "imag", "numerator", "denominator", "conjugate",
                                            "bit_length", "bit_count", "to_bytes", "from_bytes",
                                            "as_integer_ratio", "is_integer", "hex", "fromhex", NULL};
    switch (obj.kind) {
    case TV_STR:
        if (tmpl_method_lookup(TV_STR, n) != TVM_NONE)
            return tv_getattr(rt, obj, n);
        if (name_in(n, str_other))
            break;
        return tv_undef_attr(rt, obj, name);
    case TV_DICT:
        if (tmpl_method_lookup(TV_DICT, n) != TVM_NONE || name_in(n, dict_mut))
            return tv_getattr(rt, obj, n);
        if (str_eq(n, S("fromkeys")))
            break;
        return tv_undef_attr(rt, obj, name);
    case TV_LIST: case TV_TUPLE:
        if (tmpl_method_lookup(obj.kind, n) != TVM_NONE || (obj.kind == TV_LIST && name_in(n, list_mut)))
            return tv_getattr(rt, obj, n);
        return tv_undef_attr(rt, obj, name);
    case TV_NS: {
        tv out;
        if (tv_dict_get_str(obj.u.dict, n, &out))
            return out;
        return tv_undef_attr(rt, obj, name);
    }
    case TV_NONE:
        return tv_undef_attr(rt, obj, name);
    case TV_BOOL: case TV_INT: case TV_BIGINT: case TV_FLOAT:
        if (name_in(n, num_attrs))
            break;
        return tv_undef_attr(rt, obj, name);
    case TV_LOOP: case TV_CYCLER: case TV_JOINER:
        return tv_getattr(rt, obj, n);
    default:
        break;
    }
    tmpl_fail(rt, ERR_UNSUPPORTED, "attr filter: attribute '%s' of a %s", cz(rt, n), pytype(obj));
}

static tv f_batch(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_BATCH, v, a, &b);
    tv lc = b.v[1], fill = arg_or(&b, 2, tv_none());
    iz n;
    const tv *items = items_of(rt, b.v[0], &n);
    tv out = tv_list_new(rt, n + 1);
    iz nout = 0;
    tv *tmp = NEW(rt->a, tv, n);
    iz ntmp = 0;
    for (iz i = 0; i < n; i++) {
        if (tv_eq(tv_int(ntmp), lc)) {
            out.u.list->v[nout++] = list_of(rt, tmp, ntmp);
            ntmp = 0;
        }
        tmp[ntmp++] = items[i];
    }
    if (ntmp) {
        tv last = list_of(rt, tmp, ntmp);
        if (!is_none(fill) && tv_compare(rt, TMPL_OP_LT, tv_int(ntmp), lc)) {
            if (lc.kind == TV_UNDEF)
                tv_undef_raise(rt, lc);
            if (lc.kind == TV_FLOAT)
                tmpl_raise(rt, "TypeError", "can't multiply sequence by non-int of type 'float'");
            if (lc.kind != TV_INT && lc.kind != TV_BOOL)
                tmpl_fail(rt, ERR_UNSUPPORTED, "batch with a %s line count", pytype(lc));
            i64 want = int_of(lc);
            if (want > TMPL_MAX_OUTPUT)
                tmpl_fail(rt, ERR_LIMIT, "batch of %lld items", (long long)want);
            last = tv_list_new(rt, want);
            tvcpy(last.u.list->v, tmp, ntmp);
            for (iz k = ntmp; k < want; k++)
                last.u.list->v[k] = fill;
        }
        out.u.list->v[nout++] = last;
    }
    out.u.list->n = nout;
    return tv_as_iter(out, TVI_GENERATOR);
}

static tv f_case(tmpl_rt *rt, int id, tv v, const tv_args *a)
{
    bound b;
    bind(rt, id == TMPL_FILTER_CAPITALIZE ? &SG_CAPITALIZE : id == TMPL_FILTER_LOWER ? &SG_LOWER : &SG_UPPER,
         v, a, &b);
    tv s = soft_str(rt, v);
    str r = id == TMPL_FILTER_CAPITALIZE ? pystr_capitalize(rt->a, tv_s(s))
          : id == TMPL_FILTER_LOWER      ? pystr_lower(rt->a, tv_s(s))
                                         : pystr_upper(rt->a, tv_s(s));
    return mkstr(rt, r, is_safe(s));
}

static tv f_center(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_CENTER, v, a, &b);
    tv s = soft_str(rt, v);
    i64 width = given(&b, 1) ? py_index(rt, b.v[1]) : 80;
    if (width > TMPL_MAX_OUTPUT)
        tmpl_fail(rt, ERR_LIMIT, "center to %lld characters", (long long)width);
    return mkstr(rt, pystr_center(rt->a, tv_s(s), (iz)width, ' '), is_safe(s));
}

static tv f_default(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_DEFAULT, v, a, &b);
    tv def = arg_or(&b, 1, mkstr(rt, S(""), false));
    bool boolean = tv_truthy(arg_or(&b, 2, tv_bool(false)));
    if (v.kind == TV_UNDEF || (boolean && !tv_truthy(v)))
        return def;
    return v;
}

/* value.items() of a dict, with Python's errors for other values. */
static const tv_dict *dict_items(tmpl_rt *rt, tv v)
{
    if (v.kind == TV_DICT)
        return v.u.dict;
    if (v.kind == TV_UNDEF)
        tv_undef_raise(rt, v);
    if (v.kind == TV_NS)
        tmpl_raise(rt, "AttributeError", "items");
    tmpl_raise(rt, "AttributeError", "'%s' object has no attribute 'items'", pytype(v));
}

static tv f_dictsort(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_DICTSORT, v, a, &b);
    bool cs = tv_truthy(arg_or(&b, 1, tv_bool(false)));
    tv by = arg_or(&b, 2, mkstr(rt, S("key"), false));
    int pos;
    if (tv_eq(by, mkstr(rt, S("key"), false)))
        pos = 0;
    else if (tv_eq(by, mkstr(rt, S("value"), false)))
        pos = 1;
    else
        tmpl_raise(rt, "FilterArgumentError", "You can only sort by either \"key\" or \"value\"");
    const tv_dict *d = dict_items(rt, v);
    bool reverse = reverse_flag(rt, arg_or(&b, 3, tv_bool(false)));
    iz n = tv_dict_n(d);
    tv *keys = NEW_NZ(rt->a, tv, n), *vals = NEW_NZ(rt->a, tv, n);
    for (iz i = 0; i < n; i++) {
        tv k = pos ? tv_dict_e(d)[i].val : tv_dict_e(d)[i].key;
        keys[i] = cs ? k : ignore_case(rt, k);
        vals[i] = tv_pair(rt, tv_dict_e(d)[i].key, tv_dict_e(d)[i].val);
    }
    py_sort(rt, keys, vals, n, reverse, lt_plain, NULL);
    return list_of(rt, vals, n);
}

static tv f_escape(tmpl_rt *rt, tv v, const tv_args *a)
{
    builtin1(rt, "markupsafe._speedups.escape", a);
    return escape_tv(rt, v);
}

static tv f_forceescape(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_FORCEESCAPE, v, a, &b);
    return escape_tv(rt, mkstr(rt, to_s(rt, v), false));
}

static tv f_safe(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_SAFE, v, a, &b);
    return mkstr(rt, to_s(rt, v), true);
}

/* float(v): 0 on success, else the exception do_float catches
 * (1 ValueError, 2 TypeError). Undefined and huge ints raise here. */
static int py_float(tmpl_rt *rt, tv v, double *out)
{
    switch (v.kind) {
    case TV_FLOAT:
        *out = v.u.f;
        return 0;
    case TV_INT: case TV_BOOL: case TV_BIGINT:
        *out = int_to_double(rt, v);
        return 0;
    case TV_STR:
        return parse_float(rt, tv_s(v), out) ? 0 : 1;
    case TV_UNDEF:
        tv_undef_raise(rt, v);
    default:
        return 2;
    }
}

static double float_or_raise(tmpl_rt *rt, tv v)
{
    double d;
    int r = py_float(rt, v, &d);
    if (r == 1)
        tmpl_raise(rt, "ValueError", "could not convert string to float: %s", repr_cz(rt, v));
    if (r == 2)
        tmpl_raise(rt, "TypeError", "float() argument must be a string or a real number, not '%s'",
                   pytype(v));
    return d;
}

/* f"{x:.1f}" */
static void sb_fixed1(sb *b, double x)
{
    if (isnan(x)) {
        sb_cstr(b, "nan");
        return;
    }
    if (isinf(x)) {
        sb_cstr(b, x < 0 ? "-inf" : "inf");
        return;
    }
    sb_printf(b, "%.1f", x);
}

static tv f_filesizeformat(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_FILESIZE, v, a, &b);
    double bytes = float_or_raise(rt, v);
    bool binary = tv_truthy(arg_or(&b, 1, tv_bool(false)));
    int base = binary ? 1024 : 1000;
    static const char *const dec[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    static const char *const bin[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    sb out = sb_new(rt, 32);
    if (bytes == 1) {
        sb_cstr(&out, "1 Byte");
    } else if (bytes < base) {
        sb_str(&out, to_s(rt, int_from_double(rt, bytes)));
        sb_cstr(&out, " Bytes");
    } else {
        /* unit = base ** (i + 2), an exact int in Python: long double holds
         * 1000**9 exactly (64-bit mantissa) for the comparison, and the
         * division converts it to the nearest double as Python does. */
        long double unit = 0;
        int i;
        for (i = 0; i < 8; i++) {
            unit = 1;
            for (int k = 0; k < i + 2; k++)
                unit *= base;
            if ((long double)bytes < unit)
                break;
        }
        if (i == 8)
            i = 7;
        sb_fixed1(&out, (double)base * bytes / (double)unit);
        sb_byte(&out, ' ');
        sb_cstr(&out, binary ? bin[i] : dec[i]);
    }
    return sb_tv(&out, false);
}

static tv f_first(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_FIRST, v, a, &b);
    iz n;
    const tv *items = items_of(rt, v, &n);
    if (!n)
        return tv_undef_hint(rt, "UndefinedError", "No first item, sequence was empty.");
    return items[0];
}

static tv f_last(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_LAST, v, a, &b);
    if (tv_is_iter(v))
        tmpl_raise(rt, "TypeError", "'%s' object is not reversible", tv_type_name(v));
    switch (v.kind) {
    case TV_STR: case TV_LIST: case TV_TUPLE: case TV_DICT: case TV_UNDEF: {
        iz n;
        const tv *items = items_of(rt, v, &n);
        if (!n)
            return tv_undef_hint(rt, "UndefinedError", "No last item, sequence was empty.");
        /* reversed() indexes the sequence, and Markup's __getitem__ gives Markup */
        return is_safe(v) ? mkstr(rt, tv_s(items[n - 1]), true) : items[n - 1];
    }
    default:
        tmpl_raise(rt, "TypeError", "'%s' object is not reversible", pytype(v));
    }
}

static tv f_float(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_FLOAT, v, a, &b);
    double d;
    if (py_float(rt, v, &d) == 0)
        return tv_float(d);
    return arg_or(&b, 1, tv_float(0.0));
}

static tv f_format(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_FORMAT, v, a, &b);
    if (b.nrest && b.nkw)
        tmpl_raise(rt, "FilterArgumentError",
                   "can't handle positional and keyword arguments at the same time");
    tv args;
    if (b.nkw) {
        args = tv_dict_new(rt, b.nkw);
        for (i32 i = 0; i < b.nkw; i++)
            tv_dict_set(rt, args.u.dict, mkstr(rt, b.kwname[i], false), b.kw[i]);
    } else {
        args = tv_tuple_new(rt, b.nrest);
        for (i32 i = 0; i < b.nrest; i++)
            args.u.list->v[i] = b.rest[i];
    }
    return pct_format(rt, soft_str(rt, v), args);
}

static tv f_groupby(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_GROUPBY, v, a, &b);
    attrpath p = attr_parts(rt, b.v[2]);
    tv def = arg_or(&b, 3, tv_none());
    bool cs = tv_truthy(arg_or(&b, 4, tv_bool(false)));
    iz n;
    const tv *items = items_of(rt, b.v[1], &n);
    tv *keys = NEW_NZ(rt->a, tv, n), *vals = NEW_NZ(rt->a, tv, n);
    for (iz i = 0; i < n; i++) {
        vals[i] = items[i];
        keys[i] = attr_get(rt, &p, items[i], !cs, &def);
    }
    py_sort(rt, keys, vals, n, false, lt_plain, NULL);
    tv out = tv_list_new(rt, n);
    iz nout = 0;
    for (iz i = 0; i < n;) {
        iz j = i + 1;
        while (j < n && tv_equal(rt, keys[i], keys[j]))
            j++;
        tv group = list_of(rt, vals + i, j - i);
        tv grouper = cs ? keys[i] : attr_get(rt, &p, vals[i], false, &def);
        tv g = tv_pair(rt, grouper, group);
        g.flags |= TVF_GROUP;
        out.u.list->v[nout++] = g;
        i = j;
    }
    out.u.list->n = nout;
    return out;
}

static tv f_indent(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_INDENT, v, a, &b);
    tv width = arg_or(&b, 1, tv_int(4));
    bool first = tv_truthy(arg_or(&b, 2, tv_bool(false)));
    bool blank = tv_truthy(arg_or(&b, 3, tv_bool(false)));
    str ind;
    if (width.kind == TV_STR) {
        ind = tv_s(width);
    } else if (width.kind == TV_INT || width.kind == TV_BOOL) {
        i64 w = int_of(width);
        if (w > TMPL_MAX_OUTPUT)
            tmpl_fail(rt, ERR_LIMIT, "indent of %lld spaces", (long long)w);
        sb s = sb_new(rt, w > 0 ? w : 0);
        sb_rep(&s, S(" "), w);
        ind = sb_view(&s);
    } else if (width.kind == TV_UNDEF) {
        tv_undef_raise(rt, width);
    } else if (width.kind == TV_BIGINT) {
        tmpl_raise(rt, "OverflowError", "cannot fit 'int' into an index-sized integer");
    } else {
        tmpl_raise(rt, "TypeError", "can't multiply sequence by non-int of type '%s'", pytype(width));
    }
    switch (v.kind) {
    case TV_STR:
        break;
    case TV_UNDEF:
        tv_undef_raise(rt, v);
    case TV_LIST:
        tmpl_raise(rt, "AttributeError", "'list' object has no attribute 'splitlines'");
    case TV_TUPLE:
        tmpl_raise(rt, "TypeError", "can only concatenate tuple (not \"str\") to tuple");
    default:
        tmpl_raise(rt, "TypeError", "unsupported operand type(s) for +=: '%s' and 'str'", pytype(v));
    }
    /* s += "\n"; lines = s.splitlines() */
    sb s = sb_new(rt, tv_s(v).len + 1);
    sb_str(&s, tv_s(v));
    sb_byte(&s, '\n');
    str *lines;
    iz nl = pystr_splitlines(rt->a, sb_view(&s), false, &lines);
    sb out = sb_new(rt, tv_s(v).len + nl * ind.len + 8);
    if (first)
        sb_str(&out, ind);
    for (iz i = 0; i < nl; i++) {
        if (i) {
            sb_byte(&out, '\n');
            if (blank || lines[i].len)
                sb_str(&out, ind);
        }
        sb_str(&out, lines[i]);
    }
    return sb_tv(&out, is_safe(v));
}

static tv f_int(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_INT, v, a, &b);
    tv def = arg_or(&b, 1, tv_int(0));
    tv base = arg_or(&b, 2, tv_int(10));
    switch (v.kind) {
    case TV_STR: {
        tv out;
        /* int(value, base); a base that is no int is a TypeError, a bad one a
         * ValueError: both fall back to int(float(value)). */
        if ((base.kind == TV_INT || base.kind == TV_BOOL) && parse_int(rt, tv_s(v), int_of(base), &out))
            return out;
        double d;
        if (!parse_float(rt, tv_s(v), &d) || isnan(d))
            return def;
        return int_from_double(rt, d);
    }
    case TV_INT: case TV_BIGINT:
        return v;
    case TV_BOOL:
        return tv_int(v.u.b);
    case TV_FLOAT:
        if (isnan(v.u.f))
            return def;
        return int_from_double(rt, v.u.f);
    case TV_UNDEF:
        tv_undef_raise(rt, v);
    default:
        return def;
    }
}

static tv f_items(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_ITEMS, v, a, &b);
    if (v.kind == TV_UNDEF)
        return tv_as_iter(tv_list_new(rt, 0), TVI_GENERATOR);
    if (v.kind != TV_DICT)
        tmpl_raise(rt, "TypeError", "Can only get item pairs from a mapping.");
    const tv_dict *d = v.u.dict;
    tv out = tv_list_new(rt, tv_dict_n(d));
    for (iz i = 0; i < tv_dict_n(d); i++)
        out.u.list->v[i] = tv_pair(rt, tv_dict_e(d)[i].key, tv_dict_e(d)[i].val);
    return tv_as_iter(out, TVI_GENERATOR);
}

static tv f_join(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_JOIN, v, a, &b);
    str d = given(&b, 2) ? to_s(rt, b.v[2]) : S("");
    tv attribute = arg_or(&b, 3, tv_none());
    iz n;
    const tv *items = items_of(rt, b.v[1], &n);
    attrpath p = attr_parts(rt, attribute);
    sb out = sb_new(rt, 64);
    for (iz i = 0; i < n; i++) {
        if (i)
            sb_str(&out, d);
        tv item = is_none(attribute) ? items[i] : attr_get(rt, &p, items[i], false, NULL);
        sb_str(&out, to_s(rt, item));
    }
    return sb_tv(&out, false);
}

static tv f_length(tmpl_rt *rt, tv v, const tv_args *a)
{
    builtin1(rt, "len", a);
    return tv_int(tv_len(rt, v));
}

static tv f_list(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_LIST, v, a, &b);
    iz n;
    const tv *items = items_of(rt, v, &n);
    tv out = list_of(rt, items, n);
    if (v.kind == TV_LIST || v.kind == TV_TUPLE)
        out.u.list->origin = v.u.list->origin;
    return out;
}

/* The filter called by name from map(): Jinja's call_filter. */
static int filter_by_name(tmpl_rt *rt, tv name)
{
    int id = TMPL_FILTER_UNKNOWN;
    if (name.kind == TV_STR)
        id = (int)tmpl_filter_lookup(tv_s(name));
    else if (name.kind != TV_UNDEF)
        (void)tv_hash(rt, name);   /* TypeError for an unhashable name */
    if (id != TMPL_FILTER_UNKNOWN)
        return id;
    if (name.kind == TV_UNDEF) {
        const char *msg = cz(rt, undef_msg(rt, name));
        tmpl_raise(rt, "TemplateRuntimeError",
                   "No filter named Undefined. (%s; did you forget to quote the callable name?)", msg);
    }
    tmpl_raise(rt, "TemplateRuntimeError", "No filter named %s.", repr_cz(rt, name));
}

static int test_by_name(tmpl_rt *rt, tv name)
{
    int id = TMPL_TEST_UNKNOWN;
    if (name.kind == TV_STR)
        id = (int)tmpl_test_lookup(tv_s(name));
    else if (name.kind != TV_UNDEF)
        (void)tv_hash(rt, name);
    if (id != TMPL_TEST_UNKNOWN)
        return id;
    if (name.kind == TV_UNDEF) {
        const char *msg = cz(rt, undef_msg(rt, name));
        tmpl_raise(rt, "TemplateRuntimeError",
                   "No test named Undefined. (%s; did you forget to quote the callable name?)", msg);
    }
    tmpl_raise(rt, "TemplateRuntimeError", "No test named %s.", repr_cz(rt, name));
}

static tv f_map(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_MAP, v, a, &b);
    if (!tv_truthy(b.v[1]))
        return tv_as_iter(tv_list_new(rt, 0), TVI_GENERATOR);
    int attr_kw = -1;
    for (i32 i = 0; i < b.nkw; i++)
        if (str_eq(b.kwname[i], S("attribute")))
            attr_kw = i;
    iz n;
    if (b.nrest == 0 && attr_kw >= 0) {
        tv attribute = b.kw[attr_kw], def = tv_none();
        for (i32 i = 0; i < b.nkw; i++)
            if (str_eq(b.kwname[i], S("default")))
                def = b.kw[i];
        for (i32 i = 0; i < b.nkw; i++)
            if (!str_eq(b.kwname[i], S("attribute")) && !str_eq(b.kwname[i], S("default")))
                tmpl_raise(rt, "FilterArgumentError", "Unexpected keyword argument %s",
                           repr_cz(rt, mkstr(rt, b.kwname[i], false)));
        attrpath p = attr_parts(rt, attribute);
        const tv *items = items_of(rt, b.v[1], &n);
        tv out = tv_list_new(rt, n);
        for (iz i = 0; i < n; i++)
            out.u.list->v[i] = attr_get(rt, &p, items[i], false, &def);
        return tv_as_iter(out, TVI_GENERATOR);
    }
    if (b.nrest == 0)
        tmpl_raise(rt, "FilterArgumentError", "map requires a filter argument");
    tv_args sub = {b.rest + 1, b.nrest - 1, b.kwname, b.kw, b.nkw};
    const tv *items = items_of(rt, b.v[1], &n);
    tv out = tv_list_new(rt, n);
    /* Jinja looks the name up per item: an unknown one fails only when
     * there is an item. */
    int id = n ? filter_by_name(rt, b.rest[0]) : 0;
    for (iz i = 0; i < n; i++)
        out.u.list->v[i] = tmpl_filter_apply(rt, id, items[i], &sub);
    return tv_as_iter(out, TVI_GENERATOR);
}

/* select, reject, selectattr, rejectattr (Jinja's select_or_reject). */
static tv f_select(tmpl_rt *rt, tv v, const tv_args *a, const sig *g, bool keep, bool lookup_attr)
{
    bound b;
    bind(rt, g, v, a, &b);
    if (!tv_truthy(b.v[1]))
        return tv_as_iter(tv_list_new(rt, 0), TVI_GENERATOR);
    attrpath p = {0};
    i32 off = 0;
    if (lookup_attr) {
        if (b.nrest == 0)
            tmpl_raise(rt, "FilterArgumentError", "Missing parameter for attribute name");
        p = attr_parts(rt, b.rest[0]);
        off = 1;
    }
    bool has_test = b.nrest > off;
    tv_args sub = {0};
    if (has_test)
        sub = (tv_args){b.rest + off + 1, b.nrest - off - 1, b.kwname, b.kw, b.nkw};
    iz n;
    const tv *items = items_of(rt, b.v[1], &n);
    tv out = tv_list_new(rt, n);
    iz nout = 0;
    int id = 0;
    for (iz i = 0; i < n; i++) {
        tv x = lookup_attr ? attr_get(rt, &p, items[i], false, NULL) : items[i];
        if (has_test && !id)
            id = test_by_name(rt, b.rest[off]);   /* looked up when first used, as Jinja */
        bool r = has_test ? tmpl_test_apply(rt, id, x, &sub) : tv_truthy(x);
        if (r == keep)
            out.u.list->v[nout++] = items[i];
    }
    out.u.list->n = nout;
    return tv_as_iter(out, TVI_GENERATOR);
}

static tv f_minmax(tmpl_rt *rt, tv v, const tv_args *a, bool is_max)
{
    bound b;
    bind(rt, is_max ? &SG_MAX : &SG_MIN, v, a, &b);
    iz n;
    const tv *items = items_of(rt, b.v[1], &n);
    if (!n)
        return tv_undef_hint(rt, "UndefinedError", "No aggregated item, sequence was empty.");
    bool cs = tv_truthy(arg_or(&b, 2, tv_bool(false)));
    attrpath p = attr_parts(rt, arg_or(&b, 3, tv_none()));
    tv best = items[0], bestkey = attr_get(rt, &p, items[0], !cs, NULL);
    for (iz i = 1; i < n; i++) {
        tv k = attr_get(rt, &p, items[i], !cs, NULL);
        if (tv_compare(rt, is_max ? TMPL_OP_GT : TMPL_OP_LT, k, bestkey)) {
            best = items[i];
            bestkey = k;
        }
    }
    return best;
}

/* pprint.pformat(v) where it is repr(v) with dict keys sorted: a str, list,
 * tuple or dict whose repr passes 80 columns is broken over lines by
 * pprint, which we do not do. */
static void pp_repr(tmpl_rt *rt, sb *out, tv v, int depth)
{
    if (depth > PYFMT_MAX_DEPTH)
        tmpl_fail(rt, ERR_LIMIT, "pprint of values nested deeper than %d", (int)PYFMT_MAX_DEPTH);
    switch (v.kind == TV_LIST && (v.flags & (TVF_ITER | TVF_RANGE)) ? TV_NONE : v.kind) {   /* those: their repr */
    case TV_LIST: case TV_TUPLE: {
        const tv_list *l = v.u.list;
        sb_byte(out, v.kind == TV_LIST ? '[' : '(');
        for (iz i = 0; i < l->n; i++) {
            if (i)
                sb_cstr(out, ", ");
            pp_repr(rt, out, l->v[i], depth + 1);
        }
        if (v.kind == TV_TUPLE && l->n == 1)
            sb_byte(out, ',');
        sb_byte(out, v.kind == TV_LIST ? ']' : ')');
        return;
    }
    case TV_DICT: {
        const tv_dict *d = v.u.dict;
        iz n = tv_dict_n(d);
        bool all_str = true, all_num = true;
        for (iz i = 0; i < n; i++) {
            tv k = tv_dict_e(d)[i].key;
            all_str &= k.kind == TV_STR;
            all_num &= (tv_is_number(k) && !(k.kind == TV_FLOAT && isnan(k.u.f)));
        }
        if (!all_str && !all_num)
            tmpl_fail(rt, ERR_UNSUPPORTED, "pprint of a dict with keys of mixed types");
        tv *keys = NEW_NZ(rt->a, tv, n), *idx = NEW_NZ(rt->a, tv, n);
        for (iz i = 0; i < n; i++) {
            keys[i] = tv_dict_e(d)[i].key;
            idx[i] = tv_int(i);
        }
        py_sort(rt, keys, idx, n, false, lt_plain, NULL);
        sb_byte(out, '{');
        for (iz i = 0; i < n; i++) {
            if (i)
                sb_cstr(out, ", ");
            const tv_entry *e = &tv_dict_e(d)[idx[i].u.i];
            pp_repr(rt, out, e->key, depth + 1);
            sb_cstr(out, ": ");
            pp_repr(rt, out, e->val, depth + 1);
        }
        sb_byte(out, '}');
        return;
    }
    default:
        sb_str(out, repr_s(rt, v));
    }
}

static tv f_pprint(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_PPRINT, v, a, &b);
    sb out = sb_new(rt, 64);
    pp_repr(rt, &out, v, 0);
    bool wraps = (v.kind == TV_STR && !is_safe(v)) || (v.kind == TV_LIST && !(v.flags & (TVF_ITER | TVF_RANGE))) ||
                 v.kind == TV_TUPLE || v.kind == TV_DICT;
    if (wraps && pystr_len(sb_view(&out)) > 80)
        tmpl_fail(rt, ERR_UNSUPPORTED, "pprint of a value whose repr is wider than 80 columns");
    return sb_tv(&out, false);
}

/* random.choice: only the cases without a choice to make. */
static tv f_random(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_RANDOM, v, a, &b);
    v = b.v[1];
    iz n = tv_len(rt, v);
    if (n == 0)
        return tv_undef_hint(rt, "UndefinedError", "No random item, sequence was empty.");
    if (n == 1 && v.kind != TV_DICT)
        return tv_getitem(rt, v, tv_int(0));
    tmpl_fail(rt, ERR_UNSUPPORTED, "the random filter");
}

static tv f_replace(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_REPLACE, v, a, &b);
    str s = to_s(rt, b.v[1]), old = to_s(rt, b.v[2]), rep = to_s(rt, b.v[3]);
    tv count = arg_or(&b, 4, tv_none());
    i64 c = is_none(count) ? -1 : py_index(rt, count);
    if (rep.len > old.len) {
        /* bound the result before building it */
        iz slots = old.len == 0 ? pystr_len(s) + 1 : pystr_count(s, old, 0, pystr_len(s));
        if (c >= 0 && c < slots)
            slots = (iz)c;
        if (s.len + slots * (rep.len - old.len) > TMPL_MAX_OUTPUT)
            tmpl_fail(rt, ERR_LIMIT, "replace result longer than %d bytes", (int)TMPL_MAX_OUTPUT);
    }
    return mkstr(rt, pystr_replace(rt->a, s, old, rep, (iz)c), false);
}

static tv f_reverse(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_REVERSE, v, a, &b);
    switch (v.kind) {
    case TV_STR: {
        str s = tv_s(v);
        sb out = sb_new(rt, s.len);
        for (iz i = s.len; i > 0;) {
            iz p = utf8_prev(s.s, i);
            sb_put(&out, s.s + p, i - p);
            i = p;
        }
        return sb_tv(&out, is_safe(v));
    }
    case TV_LIST: case TV_TUPLE: case TV_DICT: case TV_UNDEF: {
        /* reversed(value), else list(value) reversed: an iterator over a
         * list, tuple, dict or Undefined; a list for a generator */
        iz n;
        const tv *items = items_of(rt, v, &n);
        tv out = tv_list_new(rt, n);
        for (iz i = 0; i < n; i++)
            out.u.list->v[i] = items[n - 1 - i];
        if (tv_is_iter(v))
            return out;
        return tv_as_iter(out, v.kind == TV_LIST ? TVI_LIST_REVERSE
                             : v.kind == TV_DICT ? TVI_DICT_REVERSEKEY : TVI_REVERSED);
    }
    case TV_LOOP:
        tmpl_fail(rt, ERR_UNSUPPORTED, "reverse of a loop object");
    default:
        tmpl_raise(rt, "FilterArgumentError", "argument must be iterable");
    }
}

static tv f_round(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_ROUND, v, a, &b);
    tv prec = arg_or(&b, 1, tv_int(0));
    tv method = arg_or(&b, 2, mkstr(rt, S("common"), false));
    int m = -1;
    if (method.kind == TV_STR) {
        if (str_eq(tv_s(method), S("common"))) m = 0;
        else if (str_eq(tv_s(method), S("ceil"))) m = 1;
        else if (str_eq(tv_s(method), S("floor"))) m = 2;
    } else if (method.kind != TV_UNDEF) {
        (void)tv_hash(rt, method);   /* `in` a set: TypeError when unhashable */
    }
    if (m < 0)
        tmpl_raise(rt, "FilterArgumentError", "method must be common, ceil or floor");
    if (m == 0) {
        if (!tv_is_number(v))
            tmpl_raise(rt, "TypeError", "type %s doesn't define __round__ method", pytype(v));
        if (is_none(prec)) {
            /* round(x, None): to an int */
            if (tv_is_int(v))
                return v.kind == TV_BOOL ? tv_int(v.u.b) : v;
            return int_from_double(rt, round_double(rt, v.u.f, 0));
        }
        if (tv_is_int(v)) {
            if (prec.kind == TV_BIGINT)
                return tv_s(prec).s[0] == '-' ? tv_int(0) : (v.kind == TV_BOOL ? tv_int(v.u.b) : v);
            return round_int(rt, v, py_index(rt, prec));
        }
        i64 nd;
        if (prec.kind == TV_BIGINT)
            nd = tv_s(prec).s[0] == '-' ? INT64_MIN : INT64_MAX;   /* Python clamps */
        else
            nd = py_index(rt, prec);
        return tv_float(round_double(rt, v.u.f, nd));
    }
    /* ceil/floor: func(value * 10**precision) / 10**precision */
    if (prec.kind != TV_INT && prec.kind != TV_BOOL)
        tmpl_fail(rt, ERR_UNSUPPORTED, "round(method='%s') with a %s precision",
                  m == 1 ? "ceil" : "floor", pytype(prec));
    i64 p = int_of(prec);
    if (v.kind == TV_UNDEF)
        tv_undef_raise(rt, v);
    if (!tv_is_number(v)) {
        if (v.kind == TV_STR || v.kind == TV_LIST || v.kind == TV_TUPLE) {
            if (p < 0)
                tmpl_raise(rt, "TypeError", "can't multiply sequence by non-int of type 'float'");
            tmpl_raise(rt, "TypeError", "must be real number, not %s", pytype(v));
        }
        tmpl_raise(rt, "TypeError", "unsupported operand type(s) for *: '%s' and '%s'", pytype(v),
                   p < 0 ? "float" : "int");
    }
    if (tv_is_int(v) && p >= 0) {
        /* value * 10**p is an exact int and ceil/floor keep it, so the
         * true division gives back float(value). */
        return tv_float(int_to_double(rt, v));
    }
    /* 10**p as Python has it: an exact int up to 10**22 (a double holds
     * it exactly, so the int / int division rounds as IEEE's does), a
     * float from pow() below zero. */
    if (p > 22 || p < -300)
        tmpl_fail(rt, ERR_UNSUPPORTED, "round(method='%s') with precision %lld",
                  m == 1 ? "ceil" : "floor", (long long)p);
    double scale = 1;
    if (p >= 0)
        for (i64 k = 0; k < p; k++)
            scale *= 10;
    else
        scale = pow(10.0, (double)p);
    double x = num_to_double(rt, v) * scale;
    if (isinf(x))
        tmpl_raise(rt, "OverflowError", "cannot convert float infinity to integer");
    if (isnan(x))
        tmpl_raise(rt, "ValueError", "cannot convert float NaN to integer");
    x = m == 1 ? ceil(x) : floor(x);
    if (x == 0)
        x = 0;   /* math.ceil/floor give an int, which has no -0 */
    return tv_float(x / scale);
}

static tv f_slice(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_SLICE, v, a, &b);
    iz n;
    const tv *seq = items_of(rt, b.v[0], &n);
    tv sl = b.v[1], fill = arg_or(&b, 2, tv_none());
    i64 slices;
    switch (sl.kind) {
    case TV_INT: case TV_BOOL:
        slices = int_of(sl);
        break;
    case TV_FLOAT:
        if (sl.u.f == 0)
            tmpl_raise(rt, "ZeroDivisionError", "float floor division by zero");
        tmpl_raise(rt, "TypeError", "'float' object cannot be interpreted as an integer");
    case TV_UNDEF:
        tv_undef_raise(rt, sl);
    case TV_BIGINT:
        tmpl_fail(rt, ERR_UNSUPPORTED, "slice into more than 2**63 parts");
    default:
        tmpl_raise(rt, "TypeError", "unsupported operand type(s) for //: 'int' and '%s'", pytype(sl));
    }
    if (slices == 0)
        tmpl_raise(rt, "ZeroDivisionError", "integer division or modulo by zero");
    if (slices > TMPL_MAX_ITERATIONS)
        tmpl_fail(rt, ERR_LIMIT, "slice into %lld parts", (long long)slices);
    if (slices < 0)
        return tv_as_iter(tv_list_new(rt, 0), TVI_GENERATOR);
    iz per = n / slices, extra = n % slices, offset = 0;
    tv out = tv_list_new(rt, slices);
    for (iz i = 0; i < slices; i++) {
        iz start = offset + i * per;
        if (i < extra)
            offset++;
        iz end = offset + (i + 1) * per;
        bool add = !is_none(fill) && i >= extra;
        tv part = tv_list_new(rt, end - start + add);
        if (end > start)
            tvcpy(part.u.list->v, seq + start, end - start);
        if (add)
            part.u.list->v[end - start] = fill;
        out.u.list->v[i] = part;
    }
    return tv_as_iter(out, TVI_GENERATOR);
}

static tv f_sort(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_SORT, v, a, &b);
    bool cs = tv_truthy(arg_or(&b, 3, tv_bool(false)));
    tv attribute = arg_or(&b, 4, tv_none());
    /* make_multi_attrgetter: comma-separated attribute paths; the key is
     * always a list, [item] without an attribute. */
    iz nattr = 1;
    attrpath *paths;
    if (attribute.kind == TV_STR) {
        str *parts;
        nattr = pystr_split(rt->a, tv_s(attribute), &(str){(const u8 *)",", 1}, -1, &parts);
        paths = NEW(rt->a, attrpath, nattr);
        for (iz i = 0; i < nattr; i++)
            paths[i] = attr_parts(rt, mkstr(rt, parts[i], false));
    } else {
        paths = NEW(rt->a, attrpath, 1);
        paths[0] = attr_parts(rt, attribute);
    }
    iz n;
    const tv *items = items_of(rt, b.v[1], &n);
    bool reverse = reverse_flag(rt, arg_or(&b, 2, tv_bool(false)));
    tv *keys = NEW_NZ(rt->a, tv, n), *vals = NEW_NZ(rt->a, tv, n);
    for (iz i = 0; i < n; i++) {
        vals[i] = items[i];
        keys[i] = tv_list_new(rt, nattr);
        for (iz k = 0; k < nattr; k++)
            keys[i].u.list->v[k] = attr_get(rt, &paths[k], items[i], !cs, NULL);
    }
    py_sort(rt, keys, vals, n, reverse, lt_multi, NULL);
    return list_of(rt, vals, n);
}

static tv f_string(tmpl_rt *rt, tv v, const tv_args *a)
{
    builtin1(rt, "markupsafe._speedups.soft_str", a);
    return soft_str(rt, v);
}

/* html.unescape's replacements for numeric references to C1 controls and
 * other invalid code points (Python's html._invalid_charrefs). */
static u32 charref_fix(u32 c, bool *drop)
{
    static const u16 c1[32] = {
        0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8d, 0x017d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022,
        0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x9d, 0x017e, 0x0178};
    *drop = false;
    if (c == 0)
        return 0xfffd;
    if (c == 0x0d)
        return 0x0d;
    if (c >= 0x80 && c <= 0x9f)
        return c1[c - 0x80];
    if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
        return 0xfffd;
    if ((c >= 0x1 && c <= 0x8) || (c >= 0xe && c <= 0x1f) || (c >= 0x7f && c <= 0x9f) ||
        (c >= 0xfdd0 && c <= 0xfdef) || c == 0xb || (c & 0xfffe) == 0xfffe)
        *drop = true;
    return c;
}

/* html.unescape with numeric references and the few named ones templates
 * meet; any other named reference would need the HTML5 entity table. */
static str html_unescape(tmpl_rt *rt, str s)
{
    if (s.len == 0 || !memchr(s.s, '&', (size_t)s.len))
        return s;
    static const struct { const char *name; u32 cp; } named[] = {
        {"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''},
        {"nbsp;", 0xa0}, {"AMP;", '&'}, {"LT;", '<'}, {"GT;", '>'}, {"QUOT;", '"'},
    };
    sb out = sb_new(rt, s.len);
    iz run = 0;
    for (iz i = 0; i < s.len; i++) {
        if (s.s[i] != '&')
            continue;
        iz j = i + 1;
        if (j < s.len && s.s[j] == '#') {
            j++;
            bool hex = j < s.len && (s.s[j] | 0x20) == 'x';
            if (hex)
                j++;
            iz d0 = j;
            u64 num = 0;
            bool big = false;
            while (j < s.len && (hex ? (s.s[j] < 0x80 && digit_in_base(s.s[j]) < 16)
                                     : (s.s[j] >= '0' && s.s[j] <= '9'))) {
                num = num * (hex ? 16 : 10) + (u64)digit_in_base(s.s[j]);
                big |= num > 0x10ffff;
                j++;
            }
            if (j == d0)
                continue;   /* "&#" or "&#x" without digits stays */
            if (j < s.len && s.s[j] == ';')
                j++;
            bool drop;
            u32 c = charref_fix(big ? 0x110000 : (u32)num, &drop);
            sb_put(&out, s.s + run, i - run);
            if (!drop)
                sb_cp(&out, c);
            run = j;
            i = j - 1;
            continue;
        }
        /* [^\t\n\f <&#;]{1,32};? */
        iz k = j;
        while (k < s.len && k - j < 32 && !strchr("\t\n\f <&#;", s.s[k]))
            k++;
        if (k == j)
            continue;
        iz end = k < s.len && s.s[k] == ';' ? k + 1 : k;
        str ref = str_cut(s, j, end);
        u32 cp = 0;
        for (iz t = 0; t < countof(named); t++)
            if (str_eq(ref, str_cstr(named[t].name)))
                cp = named[t].cp;
        if (!cp)
            tmpl_fail(rt, ERR_UNSUPPORTED, "striptags: the HTML entity '&%s'", cz(rt, ref));
        sb_put(&out, s.s + run, i - run);
        sb_cp(&out, cp);
        run = end;
        i = end - 1;
    }
    sb_put(&out, s.s + run, s.len - run);
    return sb_view(&out);
}

/* Removes every `open.*?close` (DOTALL) from s. */
static str strip_spans(tmpl_rt *rt, str s, str open, str close)
{
    sb out = sb_new(rt, s.len);
    iz i = 0;
    while (i < s.len) {
        const u8 *p = NULL;
        for (iz k = i; k + open.len <= s.len; k++)
            if (!memcmp(s.s + k, open.s, (size_t)open.len)) {
                p = s.s + k;
                break;
            }
        if (!p)
            break;
        iz at = p - s.s, e = -1;
        for (iz k = at + open.len; k + close.len <= s.len; k++)
            if (!memcmp(s.s + k, close.s, (size_t)close.len)) {
                e = k + close.len;
                break;
            }
        if (e < 0)
            break;
        sb_put(&out, s.s + i, at - i);
        i = e;
    }
    sb_put(&out, s.s + i, s.len - i);
    return sb_view(&out);
}

static tv f_striptags(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_STRIPTAGS, v, a, &b);
    str s = to_s(rt, v);
    s = strip_spans(rt, s, S("<!--"), S("-->"));
    s = strip_spans(rt, s, S("<"), S(">"));
    str *words;
    iz nw = pystr_split(rt->a, s, NULL, -1, &words);
    sb out = sb_new(rt, s.len);
    for (iz i = 0; i < nw; i++) {
        if (i)
            sb_byte(&out, ' ');
        sb_str(&out, words[i]);
    }
    return mkstr(rt, html_unescape(rt, sb_view(&out)), false);
}

static tv f_sum(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_SUM, v, a, &b);
    tv attribute = arg_or(&b, 2, tv_none());
    tv acc = arg_or(&b, 3, tv_int(0));
    iz n;
    const tv *items = items_of(rt, b.v[1], &n);
    if (acc.kind == TV_STR)
        tmpl_raise(rt, "TypeError", "sum() can't sum strings [use ''.join(seq) instead]");
    attrpath p = attr_parts(rt, attribute);
    for (iz i = 0; i < n; i++) {
        tv item = is_none(attribute) ? items[i] : attr_get(rt, &p, items[i], false, NULL);
        acc = py_add(rt, acc, item);
    }
    return acc;
}

/* Jinja's title: split at runs of [-\s({\[<]+, then each piece's first
 * character upper-cased and the rest lower-cased. */
static bool title_sep(u32 c)
{
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || pystr_isspace(c);
}

static tv f_title(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_TITLE, v, a, &b);
    str s = tv_s(soft_str(rt, v));
    sb out = sb_new(rt, s.len + 8);
    for (iz i = 0; i < s.len;) {
        iz k = i;
        u32 c = utf8_next(s.s, &k);
        bool sep = title_sep(c);
        iz j = k;
        while (j < s.len) {
            iz t = j;
            if (title_sep(utf8_next(s.s, &t)) != sep)
                break;
            j = t;
        }
        /* item[0].upper() + item[1:].lower() */
        sb_str(&out, pystr_upper(rt->a, str_cut(s, i, k)));
        sb_str(&out, pystr_lower(rt->a, str_cut(s, k, j)));
        i = j;
    }
    return sb_tv(&out, false);
}

static tv f_tojson(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_TOJSON, v, a, &b);
    pyfmt_dumps_opts o = {0};
    o.ensure_ascii = tv_truthy(arg_or(&b, 1, tv_bool(false)));
    o.sort_keys = tv_truthy(arg_or(&b, 4, tv_bool(false)));
    tv indent = arg_or(&b, 2, tv_none());
    tv seps = arg_or(&b, 3, tv_none());
    switch (indent.kind) {
    case TV_NONE:
        break;
    case TV_STR:
        o.indent = PYFMT_INDENT_STR;
        o.indent_str = tv_s(indent);
        break;
    case TV_INT: case TV_BOOL: {
        i64 k = int_of(indent);
        if (k > 10000)
            tmpl_fail(rt, ERR_LIMIT, "tojson indent of %lld", (long long)k);
        o.indent = PYFMT_INDENT_SPACES;
        o.indent_spaces = k > 0 ? (int)k : 0;
        break;
    }
    case TV_UNDEF:
        tv_undef_raise(rt, indent);
    default:
        tmpl_raise(rt, "TypeError", "can't multiply sequence by non-int of type '%s'", pytype(indent));
    }
    if (!is_none(seps)) {
        iz n;
        const tv *sv = items_of(rt, seps, &n);
        if (n != 2)
            tmpl_raise(rt, "ValueError", n < 2 ? "not enough values to unpack (expected 2, got %lld)"
                                              : "too many values to unpack (expected 2)", (long long)n);
        if (sv[0].kind != TV_STR || sv[1].kind != TV_STR)
            tmpl_fail(rt, ERR_UNSUPPORTED, "tojson separators that are not strings");
        o.separators = true;
        o.item_sep = tv_s(sv[0]);
        o.key_sep = tv_s(sv[1]);
    }
    buf *t = &rt->tmp;
    iz mark = t->len;
    tv_write_json(rt, t, v, &o);
    str s = arena_strdup(rt->a, str_from(t->data + mark, t->len - mark));
    t->len = mark;
    return mkstr(rt, s, false);
}

static tv f_trim(tmpl_rt *rt, tv v, const tv_args *a)
{
    if (!a->npos && !a->nkw && v.kind == TV_STR)   /* content|trim: nothing to bind */
        return mkstr(rt, pystr_strip(tv_s(v), NULL, PYSTR_BOTH), is_safe(v));
    bound b;
    bind(rt, &SG_TRIM, v, a, &b);
    tv s = soft_str(rt, v);
    tv chars = arg_or(&b, 1, tv_none());
    if (is_none(chars))
        return mkstr(rt, pystr_strip(tv_s(s), NULL, PYSTR_BOTH), is_safe(s));
    if (chars.kind != TV_STR)
        tmpl_raise(rt, "TypeError", "strip arg must be None or str");
    str cs = is_safe(s) ? tv_s(escape_tv(rt, chars)) : tv_s(chars);
    return mkstr(rt, pystr_strip(tv_s(s), &cs, PYSTR_BOTH), is_safe(s));
}

static tv f_truncate(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_TRUNCATE, v, a, &b);
    tv s = b.v[1];
    tv length = arg_or(&b, 2, tv_int(255));
    bool killwords = tv_truthy(arg_or(&b, 3, tv_bool(false)));
    tv end = arg_or(&b, 4, mkstr(rt, S("..."), false));
    tv leeway = arg_or(&b, 5, tv_none());
    if (is_none(leeway))
        leeway = tv_int(5);   /* env.policies["truncate.leeway"] */
    iz endlen = tv_len(rt, end);
    if (!tv_compare(rt, TMPL_OP_GE, length, tv_int(endlen)))
        tmpl_raise(rt, "AssertionError", "expected length >= %lld, got %s", (long long)endlen,
                   cz(rt, to_s(rt, length)));
    if (!tv_compare(rt, TMPL_OP_GE, leeway, tv_int(0)))
        tmpl_raise(rt, "AssertionError", "expected leeway >= 0, got %s", cz(rt, to_s(rt, leeway)));
    iz slen = tv_len(rt, s);
    if (!tv_is_number(length) || !tv_is_number(leeway) || length.kind == TV_BIGINT ||
        leeway.kind == TV_BIGINT)
        tmpl_fail(rt, ERR_UNSUPPORTED, "truncate with a %s length and a %s leeway", pytype(length),
                  pytype(leeway));
    double limit = num_to_double(rt, length) + num_to_double(rt, leeway);
    if ((double)slen <= limit)
        return s;
    if (length.kind == TV_FLOAT)
        tmpl_raise(rt, "TypeError", "slice indices must be integers or None or have an __index__ method");
    if (s.kind != TV_STR || end.kind != TV_STR)
        tmpl_fail(rt, ERR_UNSUPPORTED, "truncate of a %s", pytype(s));
    iz keep = (iz)int_of(length) - endlen;   /* >= 0 by the assertion */
    str head = str_cut(tv_s(s), 0, pystr_offset(tv_s(s), MIN(keep, slen)));
    if (!killwords) {
        /* .rsplit(" ", 1)[0] */
        iz sp = -1;
        for (iz i = head.len - 1; i >= 0; i--)
            if (head.s[i] == ' ') {
                sp = i;
                break;
            }
        if (sp >= 0)
            head = str_cut(head, 0, sp);
    }
    sb out = sb_new(rt, head.len + tv_s(end).len + 8);
    sb_str(&out, head);
    if (is_safe(s) && !is_safe(end))
        sb_escape(&out, tv_s(end));   /* Markup + str escapes the str */
    else
        sb_str(&out, tv_s(end));
    return sb_tv(&out, is_safe(s));
}

static tv f_unique(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_UNIQUE, v, a, &b);
    bool cs = tv_truthy(arg_or(&b, 2, tv_bool(false)));
    attrpath p = attr_parts(rt, arg_or(&b, 3, tv_none()));
    iz n;
    const tv *items = items_of(rt, b.v[1], &n);
    tv seen = tv_dict_new(rt, n);
    tv out = tv_list_new(rt, n);
    iz nout = 0;
    for (iz i = 0; i < n; i++) {
        tv key = attr_get(rt, &p, items[i], !cs, NULL);
        tv dummy;
        (void)tv_hash(rt, key);
        if (tv_dict_get(seen.u.dict, key, &dummy))
            continue;
        tv_dict_set(rt, seen.u.dict, key, tv_none());
        out.u.list->v[nout++] = items[i];
    }
    out.u.list->n = nout;
    return tv_as_iter(out, TVI_GENERATOR);
}

/* urllib.parse.quote of str(v) in UTF-8; for_qs: "/" quoted too and
 * spaces as "+" (Jinja's url_quote). */
static void url_quote(tmpl_rt *rt, sb *out, tv v, bool for_qs)
{
    str s = to_s(rt, v);
    for (iz i = 0; i < s.len; i++) {
        u8 c = s.s[i];
        bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-' || c == '~' || (c == '/' && !for_qs);
        if (safe)
            sb_byte(out, c);
        else if (c == ' ' && for_qs)
            sb_byte(out, '+');
        else
            sb_printf(out, "%%%02X", c);
    }
}

static tv f_urlencode(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_URLENCODE, v, a, &b);
    sb out = sb_new(rt, 64);
    switch (v.kind) {
    case TV_STR: case TV_NONE: case TV_BOOL: case TV_INT: case TV_BIGINT: case TV_FLOAT: case TV_NS:
        url_quote(rt, &out, v, false);
        return sb_tv(&out, false);
    case TV_DICT: {
        const tv_dict *d = v.u.dict;
        for (iz i = 0; i < tv_dict_n(d); i++) {
            if (i)
                sb_byte(&out, '&');
            url_quote(rt, &out, tv_dict_e(d)[i].key, true);
            sb_byte(&out, '=');
            url_quote(rt, &out, tv_dict_e(d)[i].val, true);
        }
        return sb_tv(&out, false);
    }
    case TV_LIST: case TV_TUPLE: case TV_UNDEF: {
        iz n;
        const tv *items = items_of(rt, v, &n);
        for (iz i = 0; i < n; i++) {
            /* for k, v in items: unpacking */
            tv it = items[i];
            if (it.kind == TV_UNDEF)   /* iterates as an empty sequence */
                tmpl_raise(rt, "ValueError", "not enough values to unpack (expected 2, got 0)");
            if (it.kind != TV_LIST && it.kind != TV_TUPLE && it.kind != TV_STR && it.kind != TV_DICT)
                tmpl_raise(rt, "TypeError", "cannot unpack non-iterable %s object", pytype(it));
            iz m;
            const tv *kv = items_of(rt, it, &m);
            if (m > 2)
                tmpl_raise(rt, "ValueError", "too many values to unpack (expected 2)");
            if (m < 2)
                tmpl_raise(rt, "ValueError", "not enough values to unpack (expected 2, got %lld)", (long long)m);
            if (i)
                sb_byte(&out, '&');
            url_quote(rt, &out, kv[0], true);
            sb_byte(&out, '=');
            url_quote(rt, &out, kv[1], true);
        }
        return sb_tv(&out, false);
    }
    default:
        tmpl_fail(rt, ERR_UNSUPPORTED, "urlencode of a %s", pytype(v));
    }
}

static tv f_urlize(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_URLIZE, v, a, &b);
    tmpl_fail(rt, ERR_UNSUPPORTED, "the urlize filter");
}

static tv f_wordcount(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_WORDCOUNT, v, a, &b);
    str s = to_s(rt, v);
    i64 words = 0;
    bool in = false;
    for (iz i = 0; i < s.len;) {
        u32 c = utf8_next(s.s, &i);
        bool w = pystr_isword(c);
        words += w && !in;
        in = w;
    }
    return tv_int(words);
}

/* textwrap's whitespace: ASCII only. */
static bool tw_space(u8 c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Character classes of textwrap's word-splitting regex (re, str pattern):
 * \w, a letter [^\d\W], and word_punct [\w!"'&.,?]. */
static bool tw_word(u32 c) { return pystr_isword(c); }
static bool tw_letter(u32 c) { return pystr_isword(c) && !pystr_isdecimal(c); }
static bool tw_punct(u32 c)
{
    return pystr_isword(c) || (c != 0 && c < 0x80 && strchr("!\"'&.,?", (int)c));
}

/* Splits text into textwrap's chunks (TextWrapper._split, empty pieces
 * dropped): with break_on_hyphens, wordsep_re matched by hand -
 *   [ws]+
 *   | (?<=wp) -{2,} (?=\w)                                  em-dash
 *   | [^ws]+? ( -(?:(?<=L{2}-)|(?<=L-L-)) (?=L-?L)           hyphenated word
 *             | (?=[ws]|\Z)                                  end of word
 *             | (?<=wp) (?=-{2,}\w) )                        before an em-dash
 * (L a letter, wp word_punct, ws textwrap's ASCII whitespace); without it,
 * wordsep_simple_re: runs of whitespace and of the rest. */
static iz tw_chunks(tmpl_rt *rt, str text, bool hyphens, str **out)
{
    iz n = pystr_len(text);
    u32 *c = NEW_NZ(rt->a, u32, n + 4);
    iz *off = NEW_NZ(rt->a, iz, n + 1);
    for (iz i = 0, k = 0; i < text.len; k++) {
        off[k] = i;
        c[k] = utf8_next(text.s, &i);
    }
    off[n] = text.len;
    c[n] = c[n + 1] = c[n + 2] = c[n + 3] = 0;   /* sentinels: no class matches 0 */
    /* dash_end[k]: the end of the run of '-' starting at k (k itself if none),
     * so that each em-dash check is O(1) */
    iz *dash_end = NEW_NZ(rt->a, iz, n + 1);
    dash_end[n] = n;
    for (iz k = n - 1; k >= 0; k--)
        dash_end[k] = c[k] == '-' ? dash_end[k + 1] : k;
#define WS(k) ((k) < n && c[k] < 0x80 && tw_space((u8)c[k]))
    str *ch = NEW_NZ(rt->a, str, n + 1);
    iz nch = 0;
    for (iz p = 0; p < n;) {
        iz q;
        if (WS(p)) {
            q = p;
            while (WS(q))
                q++;
        } else if (!hyphens) {
            q = p;
            while (q < n && !WS(q))
                q++;
        } else {
            q = -1;
            /* em-dash between words */
            if (p > 0 && tw_punct(c[p - 1]) && c[p] == '-' && c[p + 1] == '-') {
                iz d = dash_end[p];
                if (d < n && tw_word(c[d]))
                    q = d;
            }
            for (iz e = p + 1; q < 0 && e <= n; e++) {
                /* the lazy part is [p, e); e may pass no whitespace */
                if (WS(e - 1))
                    break;
                if (e < n && c[e] == '-') {
                    bool lb = (e >= 2 && tw_letter(c[e - 2]) && tw_letter(c[e - 1])) ||
                              (e >= 3 && tw_letter(c[e - 3]) && c[e - 2] == '-' && tw_letter(c[e - 1]));
                    bool la = tw_letter(c[e + 1]) &&
                              (tw_letter(c[e + 2]) || (c[e + 2] == '-' && tw_letter(c[e + 3])));
                    if (lb && la) {
                        q = e + 1;
                        break;
                    }
                }
                if (e == n || WS(e)) {
                    q = e;
                    break;
                }
                if (tw_punct(c[e - 1]) && c[e] == '-' && c[e + 1] == '-') {
                    iz d = dash_end[e];
                    if (d < n && tw_word(c[d])) {
                        q = e;
                        break;
                    }
                }
            }
        }
        ch[nch++] = str_cut(text, off[p], off[q]);
        p = q;
    }
#undef WS
    *out = ch;
    return nch;
}

/* textwrap.TextWrapper(width, expand_tabs=False, replace_whitespace=False,
 * break_long_words, break_on_hyphens).wrap(text), lines appended to *lines. */
static void tw_wrap(tmpl_rt *rt, str text, iz width, bool break_long, bool break_hyphens,
                    str **lines, iz *nlines, iz *cap)
{
    str *inorder;
    iz nch = tw_chunks(rt, text, break_hyphens, &inorder);
    /* textwrap keeps the chunks reversed, as a stack */
    str *ch = NEW_NZ(rt->a, str, nch + 1);
    for (iz i = 0; i < nch; i++)
        ch[i] = inorder[nch - 1 - i];
    iz top = nch;   /* ch[0..top) is the stack, ch[top-1] the next chunk */
    iz nl0 = *nlines;
    str *cur = NEW(rt->a, str, nch + 1);   /* the line being built */
    while (top > 0) {
        if (*nlines > nl0 && pystr_strip(ch[top - 1], NULL, PYSTR_BOTH).len == 0)
            top--;
        iz ncur = 0, cur_len = 0;
        while (top > 0) {
            iz l = pystr_len(ch[top - 1]);
            if (cur_len + l <= width) {
                cur[ncur++] = ch[--top];
                cur_len += l;
            } else {
                break;
            }
        }
        if (top > 0 && pystr_len(ch[top - 1]) > width) {
            /* _handle_long_word */
            iz space_left = width < 1 ? 1 : width - cur_len;
            if (break_long) {
                str c = ch[top - 1];
                iz end = space_left;
                if (break_hyphens && pystr_len(c) > space_left) {
                    iz hy = pystr_rfind(c, S("-"), 0, space_left);
                    if (hy > 0) {
                        bool other = false;
                        str headp = str_cut(c, 0, pystr_offset(c, hy));
                        for (iz t = 0; t < headp.len; t++)
                            other |= headp.s[t] != '-';
                        if (other)
                            end = hy + 1;
                    }
                }
                iz off = pystr_offset(c, end);
                cur[ncur++] = str_cut(c, 0, off);
                ch[top - 1] = str_cut(c, off, c.len);
            } else if (ncur == 0) {
                cur[ncur++] = ch[--top];
            }
        }
        if (ncur && pystr_strip(cur[ncur - 1], NULL, PYSTR_BOTH).len == 0)
            ncur--;
        if (ncur) {
            sb line = sb_new(rt, 64);
            for (iz t = 0; t < ncur; t++)
                sb_str(&line, cur[t]);
            if (*nlines == *cap)
                *lines = arena_grow(rt->a, *lines, (iz)sizeof(str), (iz)_Alignof(str), *nlines, cap,
                                    *nlines + 1);
            (*lines)[(*nlines)++] = sb_view(&line);
        }
    }
}

static tv f_wordwrap(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_WORDWRAP, v, a, &b);
    tv s = b.v[1];
    tv width = arg_or(&b, 2, tv_int(79));
    bool break_long = tv_truthy(arg_or(&b, 3, tv_bool(true)));
    tv wrapstring = arg_or(&b, 4, tv_none());
    bool break_hyphens = tv_truthy(arg_or(&b, 5, tv_bool(true)));
    if (is_none(wrapstring))
        wrapstring = mkstr(rt, S("\n"), false);   /* environment.newline_sequence */
    /* wrapstring.join([... for line in s.splitlines()]): the method is
     * looked up before its argument is made */
    if (wrapstring.kind == TV_UNDEF)
        tv_undef_raise(rt, wrapstring);
    if (wrapstring.kind != TV_STR)
        tmpl_raise(rt, "AttributeError", "'%s' object has no attribute 'join'", pytype(wrapstring));
    if (s.kind == TV_UNDEF)
        tv_undef_raise(rt, s);
    if (s.kind != TV_STR)
        tmpl_raise(rt, "AttributeError", "'%s' object has no attribute 'splitlines'", pytype(s));
    if (width.kind != TV_INT && width.kind != TV_BOOL)
        tmpl_fail(rt, ERR_UNSUPPORTED, "wordwrap with a %s width", pytype(width));
    i64 w = int_of(width);
    str *paras;
    iz np = pystr_splitlines(rt->a, tv_s(s), false, &paras);
    sb out = sb_new(rt, tv_s(s).len + 16);
    for (iz p = 0; p < np; p++) {
        if (p)
            sb_str(&out, tv_s(wrapstring));
        if (w <= 0)
            tmpl_raise(rt, "ValueError", "invalid width %lld (must be > 0)", (long long)w);
        str *lines = NULL;
        iz nl = 0, cap = 0;
        tw_wrap(rt, paras[p], (iz)w, break_long, break_hyphens, &lines, &nl, &cap);
        for (iz i = 0; i < nl; i++) {
            if (i)
                sb_str(&out, tv_s(wrapstring));
            sb_str(&out, lines[i]);
        }
    }
    return sb_tv(&out, false);
}

static tv f_xmlattr(tmpl_rt *rt, tv v, const tv_args *a)
{
    bound b;
    bind(rt, &SG_XMLATTR, v, a, &b);
    const tv_dict *d = dict_items(rt, b.v[1]);
    bool autospace = tv_truthy(arg_or(&b, 2, tv_bool(true)));
    sb out = sb_new(rt, 64);
    bool any = false;
    for (iz i = 0; i < tv_dict_n(d); i++) {
        tv k = tv_dict_e(d)[i].key, val = tv_dict_e(d)[i].val;
        if (is_none(val) || val.kind == TV_UNDEF)
            continue;
        if (k.kind != TV_STR)
            tmpl_raise(rt, "TypeError", "expected string or bytes-like object, got '%s'", pytype(k));
        for (iz t = 0; t < tv_s(k).len; t++) {
            u8 c = tv_s(k).s[t];
            if (c == '/' || c == '>' || c == '=' || c == ' ' || (c >= '\t' && c <= '\r'))
                tmpl_raise(rt, "ValueError", "Invalid character in attribute name: %s", repr_cz(rt, k));
        }
        if (any || autospace)
            sb_byte(&out, ' ');
        any = true;
        sb_str(&out, tv_s(escape_tv(rt, k)));
        sb_cstr(&out, "=\"");
        sb_str(&out, tv_s(escape_tv(rt, val)));
        sb_byte(&out, '"');
    }
    return sb_tv(&out, false);
}

/* Differences from Jinja2, each failing cleanly where it shows:
 *  - Filters that return iterators in Jinja (map, select, reject,
 *    selectattr, rejectattr, unique, batch, slice, items: generators;
 *    reverse of a list, tuple or dict: reverse iterators) return lists here.
 *    Iterating, joining, `|list`, `|first` and the like agree; what differs
 *    is what Python does with a generator itself: it is always true, has no
 *    len() ("object of type 'generator' has no len()"), cannot be indexed
 *    or reversed (`|last`), prints as "<generator object ...>" and is used
 *    up by one loop. The value model has no flag for that (yet).
 *  - ERR_UNSUPPORTED: random with a choice to make, urlize, striptags with
 *    named character references other than amp/lt/gt/quot/apos/nbsp,
 *    pprint of a str/list/tuple/dict whose repr is wider than 80 columns
 *    or of a dict with keys of mixed types, attr with dunder names, a few
 *    exotic argument types (noted where they are refused).
 *  - sameas compares identities only as far as values built here have
 *    them (see sameas()).
 *  - Lists of 64 items or more are sorted with CPython's runs but plain
 *    merges: the same order for any consistent ordering, but with
 *    incomparable items the TypeError may name another pair of types. */
static tv filter_run(tmpl_rt *rt, int id, tv v, const tv_args *a);

/* A filter goes through its value and arguments and makes its result:
 * their steps for the time budget, the rest counted inside (sorting,
 * json.dumps, a map's filter calls). */
tv tmpl_filter_apply(tmpl_rt *rt, int id, tv v, const tv_args *args)
{
    static const tv_args none = {0};
    const tv_args *a = args ? args : &none;
    tmpl_work(rt, 1 + tv_steps(v) + tv_args_steps(a));
    tv r = filter_run(rt, id, v, a);
    tmpl_work(rt, tv_steps(r));
    return r;
}

static tv filter_run(tmpl_rt *rt, int id, tv v, const tv_args *a)
{
    switch ((tmpl_filter_id)id) {
    case TMPL_FILTER_ABS:            return f_abs(rt, v, a);
    case TMPL_FILTER_ATTR:           return f_attr(rt, v, a);
    case TMPL_FILTER_BATCH:          return f_batch(rt, v, a);
    case TMPL_FILTER_CAPITALIZE:
    case TMPL_FILTER_LOWER:
    case TMPL_FILTER_UPPER:          return f_case(rt, id, v, a);
    case TMPL_FILTER_CENTER:         return f_center(rt, v, a);
    case TMPL_FILTER_DEFAULT:        return f_default(rt, v, a);
    case TMPL_FILTER_DICTSORT:       return f_dictsort(rt, v, a);
    case TMPL_FILTER_ESCAPE:         return f_escape(rt, v, a);
    case TMPL_FILTER_FILESIZEFORMAT: return f_filesizeformat(rt, v, a);
    case TMPL_FILTER_FIRST:          return f_first(rt, v, a);
    case TMPL_FILTER_FLOAT:          return f_float(rt, v, a);
    case TMPL_FILTER_FORCEESCAPE:    return f_forceescape(rt, v, a);
    case TMPL_FILTER_FORMAT:         return f_format(rt, v, a);
    case TMPL_FILTER_GROUPBY:        return f_groupby(rt, v, a);
    case TMPL_FILTER_INDENT:         return f_indent(rt, v, a);
    case TMPL_FILTER_INT:            return f_int(rt, v, a);
    case TMPL_FILTER_ITEMS:          return f_items(rt, v, a);
    case TMPL_FILTER_JOIN:           return f_join(rt, v, a);
    case TMPL_FILTER_LAST:           return f_last(rt, v, a);
    case TMPL_FILTER_LENGTH:         return f_length(rt, v, a);
    case TMPL_FILTER_LIST:           return f_list(rt, v, a);
    case TMPL_FILTER_MAP:            return f_map(rt, v, a);
    case TMPL_FILTER_MAX:            return f_minmax(rt, v, a, true);
    case TMPL_FILTER_MIN:            return f_minmax(rt, v, a, false);
    case TMPL_FILTER_PPRINT:         return f_pprint(rt, v, a);
    case TMPL_FILTER_RANDOM:         return f_random(rt, v, a);
    case TMPL_FILTER_REJECT:         return f_select(rt, v, a, &SG_REJECT, false, false);
    case TMPL_FILTER_REJECTATTR:     return f_select(rt, v, a, &SG_REJECTATTR, false, true);
    case TMPL_FILTER_REPLACE:        return f_replace(rt, v, a);
    case TMPL_FILTER_REVERSE:        return f_reverse(rt, v, a);
    case TMPL_FILTER_ROUND:          return f_round(rt, v, a);
    case TMPL_FILTER_SAFE:           return f_safe(rt, v, a);
    case TMPL_FILTER_SELECT:         return f_select(rt, v, a, &SG_SELECT, true, false);
    case TMPL_FILTER_SELECTATTR:     return f_select(rt, v, a, &SG_SELECTATTR, true, true);
    case TMPL_FILTER_SLICE:          return f_slice(rt, v, a);
    case TMPL_FILTER_SORT:           return f_sort(rt, v, a);
    case TMPL_FILTER_STRING:         return f_string(rt, v, a);
    case TMPL_FILTER_STRIPTAGS:      return f_striptags(rt, v, a);
    case TMPL_FILTER_SUM:            return f_sum(rt, v, a);
    case TMPL_FILTER_TITLE:          return f_title(rt, v, a);
    case TMPL_FILTER_TOJSON:         return f_tojson(rt, v, a);
    case TMPL_FILTER_TRIM:           return f_trim(rt, v, a);
    case TMPL_FILTER_TRUNCATE:       return f_truncate(rt, v, a);
    case TMPL_FILTER_UNIQUE:         return f_unique(rt, v, a);
    case TMPL_FILTER_URLENCODE:      return f_urlencode(rt, v, a);
    case TMPL_FILTER_URLIZE:         return f_urlize(rt, v, a);
    case TMPL_FILTER_WORDCOUNT:      return f_wordcount(rt, v, a);
    case TMPL_FILTER_WORDWRAP:       return f_wordwrap(rt, v, a);
    case TMPL_FILTER_XMLATTR:        return f_xmlattr(rt, v, a);
    case TMPL_FILTER_UNKNOWN:
    case TMPL_FILTER_COUNT:
        break;
    }
    tmpl_fail(rt, ERR_UNSUPPORTED, "filter id %d", id);
}

/* ---- the tests ------------------------------------------------------------ */

SIG(ST_ODD, "test_odd", 1, 0, 1, 0, "value");
SIG(ST_EVEN, "test_even", 1, 0, 1, 0, "value");
SIG(ST_DIVISIBLEBY, "test_divisibleby", 2, 0, 2, 0, "value", "num");
SIG(ST_DEFINED, "test_defined", 1, 0, 1, 0, "value");
SIG(ST_UNDEFINED, "test_undefined", 1, 0, 1, 0, "value");
SIG(ST_FILTER, "test_filter", 2, 1, 2, 0, "env", "value");
SIG(ST_TEST, "test_test", 2, 1, 2, 0, "env", "value");
SIG(ST_NONE, "test_none", 1, 0, 1, 0, "value");
SIG(ST_BOOLEAN, "test_boolean", 1, 0, 1, 0, "value");
SIG(ST_FALSE, "test_false", 1, 0, 1, 0, "value");
SIG(ST_TRUE, "test_true", 1, 0, 1, 0, "value");
SIG(ST_INTEGER, "test_integer", 1, 0, 1, 0, "value");
SIG(ST_FLOAT, "test_float", 1, 0, 1, 0, "value");
SIG(ST_LOWER, "test_lower", 1, 0, 1, 0, "value");
SIG(ST_UPPER, "test_upper", 1, 0, 1, 0, "value");
SIG(ST_STRING, "test_string", 1, 0, 1, 0, "value");
SIG(ST_MAPPING, "test_mapping", 1, 0, 1, 0, "value");
SIG(ST_NUMBER, "test_number", 1, 0, 1, 0, "value");
SIG(ST_SEQUENCE, "test_sequence", 1, 0, 1, 0, "value");
SIG(ST_SAMEAS, "test_sameas", 2, 0, 2, 0, "value", "other");
SIG(ST_ITERABLE, "test_iterable", 1, 0, 1, 0, "value");
SIG(ST_ESCAPED, "test_escaped", 1, 0, 1, 0, "value");
SIG(ST_IN, "test_in", 2, 0, 2, 0, "value", "seq");

/* One of the operator module's functions (eq, ne, lt, ...). */
static tv op_other(tmpl_rt *rt, const char *name, const tv_args *a)
{
    if (a->nkw)
        tmpl_raise(rt, "TypeError", "_operator.%s() takes no keyword arguments", name);
    if (a->npos != 1)
        tmpl_raise(rt, "TypeError", "%s expected 2 arguments, got %d", name, 1 + a->npos);
    return a->pos[0];
}

/* `value is other`. Python compares identities, which values built here
 * do not have in general: singletons and small ints (cached by CPython)
 * compare by value, strings of at most one Latin-1 character likewise
 * (CPython caches those too), containers and longer strings by the storage
 * they share, floats by their bits. */
static bool sameas(tv x, tv y)
{
    if (x.kind != y.kind || x.flags != y.flags)
        return false;
    switch (x.kind) {
    case TV_NONE: return true;
    case TV_BOOL: return x.u.b == y.u.b;
    case TV_INT: return x.u.i == y.u.i && x.u.i >= -5 && x.u.i <= 256;
    case TV_FLOAT: return memcmp(&x.u.f, &y.u.f, sizeof(double)) == 0;
    case TV_STR: {
        str a = tv_s(x), b = tv_s(y);
        if (str_eq(a, b) && (a.len == 0 || (pystr_len(a) == 1 && a.s[0] < 0xc4)))
            return true;
        return a.s == b.s && a.len == b.len;
    }
    case TV_BIGINT:
        return tv_s(x).s == tv_s(y).s;
    case TV_FUNC:
        return x.id == y.id;
    default:
        return x.u.list == y.u.list;   /* the same object behind the pointer */
    }
}

bool tmpl_test_apply(tmpl_rt *rt, int id, tv v, const tv_args *args)
{
    static const tv_args none = {0};
    const tv_args *a = args ? args : &none;
    bool r;
    if (!a->npos && !a->nkw && tmpl_test_kind(id, v, &r))
        return r;
    tmpl_work(rt, 1 + tv_steps(v) + tv_args_steps(a));
    bound b;
    switch ((tmpl_test_id)id) {
    case TMPL_TEST_ODD:
        bind(rt, &ST_ODD, v, a, &b);
        return tv_eq(py_mod(rt, v, tv_int(2)), tv_int(1));
    case TMPL_TEST_EVEN:
        bind(rt, &ST_EVEN, v, a, &b);
        return tv_eq(py_mod(rt, v, tv_int(2)), tv_int(0));
    case TMPL_TEST_DIVISIBLEBY:
        bind(rt, &ST_DIVISIBLEBY, v, a, &b);
        return tv_eq(py_mod(rt, v, b.v[1]), tv_int(0));
    case TMPL_TEST_DEFINED:
        bind(rt, &ST_DEFINED, v, a, &b);
        return v.kind != TV_UNDEF;
    case TMPL_TEST_UNDEFINED:
        bind(rt, &ST_UNDEFINED, v, a, &b);
        return v.kind == TV_UNDEF;
    case TMPL_TEST_FILTER: case TMPL_TEST_TEST:
        bind(rt, id == TMPL_TEST_FILTER ? &ST_FILTER : &ST_TEST, v, a, &b);
        v = b.v[1];
        if (v.kind == TV_STR)
            return id == TMPL_TEST_FILTER ? tmpl_filter_lookup(tv_s(v)) != TMPL_FILTER_UNKNOWN
                                          : tmpl_test_lookup(tv_s(v)) != TMPL_TEST_UNKNOWN;
        if (v.kind != TV_UNDEF)
            (void)tv_hash(rt, v);   /* `in` a dict: TypeError when unhashable */
        return false;
    case TMPL_TEST_NONE:
        bind(rt, &ST_NONE, v, a, &b);
        return v.kind == TV_NONE;
    case TMPL_TEST_BOOLEAN:
        bind(rt, &ST_BOOLEAN, v, a, &b);
        return v.kind == TV_BOOL;
    case TMPL_TEST_FALSE:
        bind(rt, &ST_FALSE, v, a, &b);
        return v.kind == TV_BOOL && !v.u.b;
    case TMPL_TEST_TRUE:
        bind(rt, &ST_TRUE, v, a, &b);
        return v.kind == TV_BOOL && v.u.b;
    case TMPL_TEST_INTEGER:
        bind(rt, &ST_INTEGER, v, a, &b);
        return v.kind == TV_INT || v.kind == TV_BIGINT;
    case TMPL_TEST_FLOAT:
        bind(rt, &ST_FLOAT, v, a, &b);
        return v.kind == TV_FLOAT;
    case TMPL_TEST_LOWER: case TMPL_TEST_UPPER:
        bind(rt, id == TMPL_TEST_LOWER ? &ST_LOWER : &ST_UPPER, v, a, &b);
        return pystr_is(to_s(rt, v), id == TMPL_TEST_LOWER ? PYSTR_LOWER : PYSTR_UPPER);
    case TMPL_TEST_STRING:
        bind(rt, &ST_STRING, v, a, &b);
        return v.kind == TV_STR;
    case TMPL_TEST_MAPPING:
        bind(rt, &ST_MAPPING, v, a, &b);
        return v.kind == TV_DICT;
    case TMPL_TEST_NUMBER:
        bind(rt, &ST_NUMBER, v, a, &b);
        return tv_is_number(v);
    case TMPL_TEST_SEQUENCE:
        /* len(value) and value.__getitem__ both exist */
        bind(rt, &ST_SEQUENCE, v, a, &b);
        return v.kind == TV_STR || tv_is_seq(v) || v.kind == TV_DICT || v.kind == TV_UNDEF;
    case TMPL_TEST_ITERABLE:
        bind(rt, &ST_ITERABLE, v, a, &b);
        return v.kind == TV_STR || v.kind == TV_LIST || v.kind == TV_TUPLE || v.kind == TV_DICT ||
               v.kind == TV_UNDEF || v.kind == TV_LOOP;
    case TMPL_TEST_CALLABLE:
        builtin1(rt, "callable", a);
        return v.kind == TV_FUNC || v.kind == TV_MACRO || v.kind == TV_METHOD ||
               v.kind == TV_JOINER || v.kind == TV_LOOP || v.kind == TV_UNDEF;
    case TMPL_TEST_SAMEAS:
        bind(rt, &ST_SAMEAS, v, a, &b);
        return sameas(v, b.v[1]);
    case TMPL_TEST_ESCAPED:
        bind(rt, &ST_ESCAPED, v, a, &b);
        return is_safe(v);
    case TMPL_TEST_IN:
        bind(rt, &ST_IN, v, a, &b);
        if (b.v[1].kind == TV_UNDEF)
            return false;   /* iterating an Undefined finds nothing */
        return tv_contains(rt, b.v[1], v);
    case TMPL_TEST_EQ:
        return tv_equal(rt, v, op_other(rt, "eq", a));
    case TMPL_TEST_NE:
        return !tv_equal(rt, v, op_other(rt, "ne", a));
    case TMPL_TEST_LT:
        return tv_compare(rt, TMPL_OP_LT, v, op_other(rt, "lt", a));
    case TMPL_TEST_LE:
        return tv_compare(rt, TMPL_OP_LE, v, op_other(rt, "le", a));
    case TMPL_TEST_GT:
        return tv_compare(rt, TMPL_OP_GT, v, op_other(rt, "gt", a));
    case TMPL_TEST_GE:
        return tv_compare(rt, TMPL_OP_GE, v, op_other(rt, "ge", a));
    case TMPL_TEST_UNKNOWN:
    case TMPL_TEST_COUNT:
        break;
    }
    tmpl_fail(rt, ERR_UNSUPPORTED, "test id %d", id);
}
