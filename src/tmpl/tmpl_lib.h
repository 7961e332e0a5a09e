/* tmpl_lib.h - what the runtime's library files share (filters, tests,
 * methods, json.dumps): the one string builder (sb), small conversions of
 * values, Python's argument binding, numbers (tmpl_num.c), str(), repr()
 * and the three kinds of formatting (tmpl_format.c), and sorting
 * (tmpl_sort.c). Internal to src/tmpl/, above tmpl_value.h. */
#ifndef TALLY_TMPL_LIB_H
#define TALLY_TMPL_LIB_H

#include <stdarg.h>
#include <stdio.h>

#include "tmpl_value.h"

/* ---- the string builder ----
 * A growing string in the render's arena. The arena (not a heap buf) keeps
 * the error path simple: tmpl_raise may jump out at any point and nothing
 * needs freeing. Every string the library builds is one; a string past
 * TMPL_MAX_OUTPUT fails with ERR_LIMIT. */
typedef struct sb {
    tmpl_rt *rt;
    u8      *p;
    iz       len, cap;
} sb;

static inline sb sb_new(tmpl_rt *rt, iz cap)
{
    sb b = {rt, NULL, 0, 0};
    if (cap > 0) {
        b.p = NEW_NZ(rt->a, u8, cap);
        b.cap = cap;
    }
    return b;
}

static inline void sb_put(sb *b, const void *p, iz n)
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

static inline void sb_str(sb *b, str s) { sb_put(b, s.s, s.len); }
static inline void sb_cstr(sb *b, const char *c) { sb_put(b, c, (iz)strlen(c)); }
static inline void sb_byte(sb *b, u8 c) { sb_put(b, &c, 1); }
static inline str  sb_view(const sb *b) { return (str){b->p, b->len}; }

static inline void sb_rep(sb *b, str s, iz times)
{
    for (iz i = 0; i < times; i++)
        sb_str(b, s);
}

/* Code point c in UTF-8; n times (sb_fill). */
static inline void sb_cp(sb *b, u32 c)
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

static inline void sb_fill(sb *b, u32 c, iz n)
{
    for (iz i = 0; i < n; i++)
        sb_cp(b, c);
}

static inline void sb_printf(sb *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
static inline void sb_printf(sb *b, const char *fmt, ...)
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

/* ---- small conversions ---- */

/* memcpy of n values; n may be 0 with NULL arrays (empty lists). */
static inline void tvcpy(tv *dst, const tv *src, iz n)
{
    if (n > 0)
        memcpy(dst, src, sizeof(tv) * (size_t)n);
}

static inline bool is_none(tv v) { return v.kind == TV_NONE; }
static inline i64  int_of(tv v) { return v.kind == TV_BOOL ? (i64)v.u.b : v.u.i; }   /* TV_INT or TV_BOOL */
static inline bool is_safe(tv v) { return v.kind == TV_STR && (v.flags & TVF_SAFE); }

/* A string result (Markup when `safe`). Checked: case mapping grows a
 * context string, which nothing bounds below TV_MAX_STR. */
static inline tv mkstr(tmpl_rt *rt, str s, bool safe)
{
    tv v = tv_str_checked(rt, s);
    if (safe)
        v.flags = TVF_SAFE;
    return v;
}

static inline tv sb_tv(const sb *b, bool safe) { return mkstr(b->rt, sb_view(b), safe); }

/* type(v).__name__, with markupsafe's Markup told apart from str. */
static inline const char *pytype(tv v)
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
static inline str to_s(tmpl_rt *rt, tv v)
{
    return v.kind == TV_STR ? tv_s(v) : tv_s(tv_to_str(rt, v));
}

/* markupsafe's soft_str: a str (or Markup) stays itself, the rest is str(). */
static inline tv soft_str(tmpl_rt *rt, tv v)
{
    return v.kind == TV_STR ? v : tv_to_str(rt, v);
}

/* html escaping as markupsafe.escape does it. */
static inline void sb_escape(sb *b, str s)
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
static inline tv escape_tv(tmpl_rt *rt, tv v)
{
    if (is_safe(v))
        return v;
    str s = to_s(rt, v);
    sb b = sb_new(rt, s.len + 16);
    sb_escape(&b, s);
    return sb_tv(&b, true);
}

/* ---- str(), repr() and formatting (tmpl_format.c) ---- */

/* repr(v) and ascii(v) (repr with every non-ASCII character escaped) as
 * strings in the arena. */
str tmpl_repr(tmpl_rt *rt, tv v);
str tmpl_ascii(tmpl_rt *rt, tv v);
/* A C string copy of s for messages (cut to fit them). */
const char *tmpl_cstr(tmpl_rt *rt, str s);
static inline const char *repr_cz(tmpl_rt *rt, tv v) { return tmpl_cstr(rt, tmpl_repr(rt, v)); }

/* fmt.format(*args, **kwargs), or fmt.format_map(*map) when map is not
 * NULL, as jinja2's SandboxedFormatter runs it (attributes and items of
 * the fields through the sandbox). */
tv tmpl_str_format(tmpl_rt *rt, str fmt, const tv_args *args, const tv *map);
/* (`fmt % args` is tv_percent, tmpl_value.h.) */

/* ---- Python's numbers (tmpl_num.c) ---- */

/* operator.index(v) for a C ssize_t: Python's TypeError and OverflowError. */
i64 tv_index(tmpl_rt *rt, tv v);
/* An integer given as a sign and decimal digits, as the smallest value
 * kind that holds it; the sign and magnitude digits of an int-like value. */
tv   tv_int_from_digits(tmpl_rt *rt, bool neg, str digits);
void tv_int_digits(tmpl_rt *rt, tv v, bool *neg, str *digits);
/* a + b of int-like values of any size. */
tv   tv_int_add(tmpl_rt *rt, tv a, tv b);
/* float(v) of an int-like value (OverflowError past the double range);
 * of any number; int(x) of a finite double, exactly (a big int when it
 * does not fit). */
double tv_int_to_double(tmpl_rt *rt, tv v);
double tv_num_to_double(tmpl_rt *rt, tv v);
tv     tv_int_from_double(tmpl_rt *rt, double x);
/* a % b as Python evaluates it (the odd/even/divisibleby tests), and
 * a + b as Python's sum() adds. */
tv tv_mod(tmpl_rt *rt, tv a, tv b);
tv tv_sum_add(tmpl_rt *rt, tv a, tv b);
/* int(s, base) and float(s) of a str; false for Python's ValueError. */
bool tv_parse_int(tmpl_rt *rt, str s, i64 base, tv *out);
bool tv_parse_float(tmpl_rt *rt, str s, double *out);
/* float(v): 0 on success, else the exception do_float catches (1
 * ValueError, 2 TypeError); Undefined and huge ints raise. And float(v)
 * raising those. */
int    tv_float_try(tmpl_rt *rt, tv v, double *out);
double tv_float_or_raise(tmpl_rt *rt, tv v);
/* round(x, ndigits) of a float (CPython's double_round) and of an int. */
double tv_round_double(tmpl_rt *rt, double x, i64 ndigits);
tv     tv_round_int(tmpl_rt *rt, tv v, i64 ndigits);

/* ---- sorting as CPython's list.sort (tmpl_sort.c) ---- */

/* `a < b` of two sort keys: Python's <, and for keys that are lists of
 * values (make_multi_attrgetter) Python's list comparison. */
typedef bool (*tmpl_lt_fn)(tmpl_rt *rt, const void *ctx, tv a, tv b);
bool tmpl_lt_plain(tmpl_rt *rt, const void *ctx, tv a, tv b);
bool tmpl_lt_multi(tmpl_rt *rt, const void *ctx, tv a, tv b);
/* Sorts vals by keys in place (both arrays permuted), stably, with
 * Python's sort(reverse=...) semantics (see tmpl_sort.c for the one
 * difference with incomparable items). */
void tmpl_sort(tmpl_rt *rt, tv *keys, tv *vals, iz n, bool reverse, tmpl_lt_fn lt, const void *ctx);

/* ---- argument binding as CPython does it (tmpl_filters.c) ---- */

enum { SIG_VARARGS = 1, SIG_VARKW = 2, SIG_MAXP = 8 };

/* A Python function's signature: all positional-or-keyword parameters,
 * the first `hidden` of which Jinja passes itself (environment, context,
 * eval_ctx), then the filtered value. `nreq` counts the parameters without
 * a default (hidden ones and the value included). */
typedef struct tmpl_sig {
    const char *name;
    const char *params[SIG_MAXP];
    int np, hidden, nreq;
    unsigned flags;
} tmpl_sig;

/* Python signatures of the filter and test functions (jinja2/filters.py,
 * jinja2/tests.py, the oracle's tojson), for binding arguments and for
 * TypeError messages. */
#define SIG(var, fname, np, hidden, nreq, flags, ...) \
    static const tmpl_sig var = {fname, {__VA_ARGS__}, np, hidden, nreq, flags}

typedef struct tmpl_bound {
    tv   v[SIG_MAXP];
    bool has[SIG_MAXP];
    const tv  *rest;        /* extra positional arguments (SIG_VARARGS) */
    i32        nrest;
    str       *kwname;      /* extra keyword arguments (SIG_VARKW) */
    tv        *kw;
    i32        nkw;
} tmpl_bound;

/* Binds v and the call's arguments to g's parameters, raising Python's
 * TypeError for unknown or repeated keywords, too many positional
 * arguments or missing ones (in CPython's order of checks). */
void tmpl_bind(tmpl_rt *rt, const tmpl_sig *g, tv v, const tv_args *a, tmpl_bound *b);
/* A builtin taking exactly one argument (len, abs, markupsafe's escape). */
void tmpl_builtin1(tmpl_rt *rt, const char *name, const tv_args *a);

/* The argument in slot i, or `def` when it was not given. */
static inline tv   arg_or(const tmpl_bound *b, int i, tv def) { return b->has[i] ? b->v[i] : def; }
static inline bool given(const tmpl_bound *b, int i) { return b->has[i]; }

/* The filters on text that follow Python libraries (textwrap, html,
 * urllib, pprint; tmpl_filters_text.c): center, filesizeformat, indent,
 * pprint, striptags, title, truncate, urlencode, urlize, wordcount and
 * wordwrap. tmpl_filter_apply hands them over. */
tv tmpl_filter_text(tmpl_rt *rt, int id, tv v, const tv_args *a);

#endif
