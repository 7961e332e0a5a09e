/* tmpl_methods.c - the Python methods a template can call (tmpl_value.h):
 * str methods with CPython 3.11's argument handling and messages, str.format
 * as Jinja's SandboxedFormatter runs it, dict get/items/keys/values/copy,
 * list and tuple index/count/copy, loop.cycle, the cycler's next/reset, and
 * Markup receivers as markupsafe 2.1 has them (string arguments escaped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tmpl_value.h"
#include "tmpl_pystr.h"
#include "../base/utf8.h"
#include "../json/pyfmt.h"

/* ---- the method table ---------------------------------------------------- */

/* Which kinds of receiver have a method. */
enum {
    K_STR = 1, K_DICT = 2, K_LIST = 4, K_TUPLE = 8, K_LOOP = 16, K_CYCLER = 32,
};

typedef struct method_def {
    const char *name;
    u8          len;       /* strlen(name) */
    u16         meth;
    u8          kinds;
} method_def;

#define M(name, meth, kinds) {name, sizeof(name) - 1, meth, kinds}

/* Sorted by name (strcmp order) for the binary search of lookup. */
static const method_def METHODS[] = {
    M("capitalize", TVM_STR_CAPITALIZE, K_STR),
    M("casefold", TVM_STR_CASEFOLD, K_STR),
    M("center", TVM_STR_CENTER, K_STR),
    M("changed", TVM_LOOP_CHANGED, K_LOOP),
    M("clear", TVM_LIST_CLEAR, K_LIST),
    M("copy", TVM_DICT_COPY, K_DICT | K_LIST),
    M("count", TVM_STR_COUNT, K_STR | K_LIST | K_TUPLE),
    M("current", TVM_CYCLER_CURRENT, K_CYCLER),
    M("cycle", TVM_LOOP_CYCLE, K_LOOP),
    M("endswith", TVM_STR_ENDSWITH, K_STR),
    M("expandtabs", TVM_STR_EXPANDTABS, K_STR),
    M("find", TVM_STR_FIND, K_STR),
    M("format", TVM_STR_FORMAT, K_STR),
    M("format_map", TVM_STR_FORMAT_MAP, K_STR),
    M("get", TVM_DICT_GET, K_DICT),
    M("index", TVM_STR_INDEX, K_STR | K_LIST | K_TUPLE),
    M("isalnum", TVM_STR_ISALNUM, K_STR),
    M("isalpha", TVM_STR_ISALPHA, K_STR),
    M("isascii", TVM_STR_ISASCII, K_STR),
    M("isdecimal", TVM_STR_ISDECIMAL, K_STR),
    M("isdigit", TVM_STR_ISDIGIT, K_STR),
    M("isidentifier", TVM_STR_ISIDENTIFIER, K_STR),
    M("islower", TVM_STR_ISLOWER, K_STR),
    M("isnumeric", TVM_STR_ISNUMERIC, K_STR),
    M("isprintable", TVM_STR_ISPRINTABLE, K_STR),
    M("isspace", TVM_STR_ISSPACE, K_STR),
    M("istitle", TVM_STR_ISTITLE, K_STR),
    M("isupper", TVM_STR_ISUPPER, K_STR),
    M("items", TVM_DICT_ITEMS, K_DICT),
    M("join", TVM_STR_JOIN, K_STR),
    M("keys", TVM_DICT_KEYS, K_DICT),
    M("ljust", TVM_STR_LJUST, K_STR),
    M("lower", TVM_STR_LOWER, K_STR),
    M("lstrip", TVM_STR_LSTRIP, K_STR),
    M("maketrans", TVM_STR_MAKETRANS, K_STR),
    M("next", TVM_CYCLER_NEXT, K_CYCLER),
    M("partition", TVM_STR_PARTITION, K_STR),
    M("pop", TVM_LIST_POP, K_LIST),
    M("removeprefix", TVM_STR_REMOVEPREFIX, K_STR),
    M("removesuffix", TVM_STR_REMOVESUFFIX, K_STR),
    M("replace", TVM_STR_REPLACE, K_STR),
    M("reset", TVM_CYCLER_RESET, K_CYCLER),
    M("rfind", TVM_STR_RFIND, K_STR),
    M("rindex", TVM_STR_RINDEX, K_STR),
    M("rjust", TVM_STR_RJUST, K_STR),
    M("rpartition", TVM_STR_RPARTITION, K_STR),
    M("rsplit", TVM_STR_RSPLIT, K_STR),
    M("rstrip", TVM_STR_RSTRIP, K_STR),
    M("split", TVM_STR_SPLIT, K_STR),
    M("splitlines", TVM_STR_SPLITLINES, K_STR),
    M("startswith", TVM_STR_STARTSWITH, K_STR),
    M("strip", TVM_STR_STRIP, K_STR),
    M("swapcase", TVM_STR_SWAPCASE, K_STR),
    M("title", TVM_STR_TITLE, K_STR),
    M("translate", TVM_STR_TRANSLATE, K_STR),
    M("upper", TVM_STR_UPPER, K_STR),
    M("values", TVM_DICT_VALUES, K_DICT),
    M("zfill", TVM_STR_ZFILL, K_STR),
};

static int kind_bit(int kind)
{
    switch (kind) {
    case TV_STR:    return K_STR;
    case TV_DICT:   return K_DICT;
    case TV_LIST:   return K_LIST;
    case TV_TUPLE:  return K_TUPLE;
    case TV_LOOP:   return K_LOOP;
    case TV_CYCLER: return K_CYCLER;
    default:        return 0;
    }
}

static int name_cmp(str a, const method_def *d)
{
    iz bl = d->len, n = MIN(a.len, bl);
    int c = n ? memcmp(a.s, d->name, (size_t)n) : 0;
    return c ? c : a.len < bl ? -1 : a.len > bl ? 1 : 0;
}

tv_meth tmpl_method_lookup(int kind, str name)
{
    int bit = kind_bit(kind);
    if (!bit || name.len < 3 || name.len > 12)
        return TVM_NONE;
    iz lo = 0, hi = countof(METHODS);
    while (lo < hi) {
        iz mid = lo + (hi - lo) / 2;
        int c = name_cmp(name, &METHODS[mid]);
        if (c == 0) {
            const method_def *d = &METHODS[mid];
            if (!(d->kinds & bit))
                return TVM_NONE;
            /* One name, one enum value per receiver kind. */
            if (d->meth == TVM_DICT_COPY && kind == TV_LIST)
                return TVM_LIST_COPY;
            if (d->meth == TVM_STR_COUNT && kind != TV_STR)
                return TVM_LIST_COUNT;
            if (d->meth == TVM_STR_INDEX && kind != TV_STR)
                return TVM_LIST_INDEX;
            return (tv_meth)d->meth;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return TVM_NONE;
}

/* ---- a call in progress -------------------------------------------------- */

static const char *method_name(tv_meth m);

typedef struct call {
    tmpl_rt       *rt;
    const tv_args *a;
    const char    *type;   /* "str", "dict", "list", "tuple" */
    u16            meth;   /* tv_meth (its name, cname, only for messages) */
    tv             self;
    bool           markup; /* a Markup receiver */
} call;

static const char *cname(const call *c) { return method_name((tv_meth)c->meth); }

/* METH_NOARGS: "str.upper() takes no arguments (1 given)". */
static void no_args(call *c)
{
    if (c->a->nkw)
        tmpl_raise(c->rt, "TypeError", "%s.%s() takes no keyword arguments", c->type, cname(c));
    if (c->a->npos)
        tmpl_raise(c->rt, "TypeError", "%s.%s() takes no arguments (%d given)", c->type, cname(c),
                   (int)c->a->npos);
}

/* Positional-only functions refuse keywords with their qualified name. */
static void no_kw(call *c)
{
    if (c->a->nkw)
        tmpl_raise(c->rt, "TypeError", "%s.%s() takes no keyword arguments", c->type, cname(c));
}

/* METH_O: "str.join() takes exactly one argument (0 given)". */
static tv one_arg(call *c)
{
    no_kw(c);
    if (c->a->npos != 1)
        tmpl_raise(c->rt, "TypeError", "%s.%s() takes exactly one argument (%d given)", c->type,
                   cname(c), (int)c->a->npos);
    return c->a->pos[0];
}

/* Argument Clinic's _PyArg_CheckPositional: "center expected at least 1
 * argument, got 0". */
static void clinic_count(call *c, int min, int max)
{
    no_kw(c);
    int n = c->a->npos;
    if (n < min)
        tmpl_raise(c->rt, "TypeError", "%s expected %s%d argument%s, got %d", cname(c),
                   min == max ? "" : "at least ", min, min == 1 ? "" : "s", n);
    if (n > max)
        tmpl_raise(c->rt, "TypeError", "%s expected %s%d argument%s, got %d", cname(c),
                   min == max ? "" : "at most ", max, max == 1 ? "" : "s", n);
}

/* PyArg_ParseTuple's checks (METH_VARARGS): "find() takes no keyword
 * arguments", "find() takes at least 1 argument (0 given)". */
static void tuple_count(call *c, int min, int max)
{
    if (c->a->nkw)
        tmpl_raise(c->rt, "TypeError", "%s() takes no keyword arguments", cname(c));
    int n = c->a->npos;
    if (n < min || n > max) {
        int lim = n < min ? min : max;
        tmpl_raise(c->rt, "TypeError", "%s() takes %s %d argument%s (%d given)", cname(c),
                   min == max ? "exactly" : n < min ? "at least" : "at most", lim,
                   lim == 1 ? "" : "s", n);
    }
}

/* Argument Clinic with keywords (_PyArg_UnpackKeywords): fills out[i] with
 * parameter i (TV_KIND_COUNT as "absent"), checking the count, names and
 * duplicates with CPython's messages. */
static void clinic_kw(call *c, const char *const *params, int np, tv *out)
{
    const tv_args *a = c->a;
    int given = a->npos + a->nkw;
    if (given > np)
        tmpl_raise(c->rt, "TypeError", "%s() takes at most %d %sargument%s (%d given)", cname(c), np,
                   a->npos == 0 ? "keyword " : "", np == 1 ? "" : "s", given);
    for (int i = 0; i < np; i++)
        out[i].kind = TV_KIND_COUNT;
    for (int i = 0; i < a->npos; i++)
        out[i] = a->pos[i];
    int used = 0;
    for (int i = a->npos; i < np; i++)
        for (int k = 0; k < a->nkw; k++)
            if (str_eq(a->kwname[k], str_cstr(params[i]))) {
                out[i] = a->kw[k];
                used++;
            }
    if (used == a->nkw)
        return;
    for (int i = 0; i < a->npos; i++)
        for (int k = 0; k < a->nkw; k++)
            if (str_eq(a->kwname[k], str_cstr(params[i])))
                tmpl_raise(c->rt, "TypeError",
                           "argument for %s() given by name ('%s') and position (%d)", cname(c),
                           params[i], i + 1);
    for (int k = 0; k < a->nkw; k++) {
        bool known = false;
        for (int i = 0; i < np; i++)
            known |= str_eq(a->kwname[k], str_cstr(params[i]));
        if (!known)
            tmpl_raise(c->rt, "TypeError", "'%.*s' is an invalid keyword argument for %s()",
                       (int)a->kwname[k].len, (const char *)a->kwname[k].s, cname(c));
    }
}

static bool absent(tv v)
{
    return v.kind == TV_KIND_COUNT;
}

/* ---- argument conversions ------------------------------------------------ */

/* operator.index(v) into an i64; *big set (and the value saturated) for an
 * int beyond i64. */
static i64 index_of(call *c, tv v, bool *big)
{
    *big = false;
    switch (v.kind) {
    case TV_INT:  return v.u.i;
    case TV_BOOL: return v.u.b;
    case TV_BIGINT:
        *big = true;
        return tv_s(v).len && tv_s(v).s[0] == '-' ? INT64_MIN : INT64_MAX;
    default:
        tmpl_raise(c->rt, "TypeError", "'%s' object cannot be interpreted as an integer",
                   tv_type_name(v));
    }
}

/* A Py_ssize_t argument (widths, counts). */
static i64 ssize_arg(call *c, tv v)
{
    bool big;
    i64 i = index_of(c, v, &big);
    if (big)
        tmpl_raise(c->rt, "OverflowError", "Python int too large to convert to C ssize_t");
    return i;
}

/* A C int argument (_PyLong_AsInt: tabsize, keepends). */
static int int_arg(call *c, tv v)
{
    bool big;
    i64 i = index_of(c, v, &big);
    if (big || i > INT32_MAX || i < INT32_MIN)
        tmpl_raise(c->rt, "OverflowError", "Python int too large to convert to C int");
    return (int)i;
}

/* A slice index (_PyEval_SliceIndex): None keeps *out; big ints clamp. */
static void slice_arg(call *c, tv v, i64 *out, bool none_ok)
{
    if (v.kind == TV_NONE && none_ok)
        return;
    if (v.kind == TV_INT) { *out = v.u.i; return; }
    if (v.kind == TV_BOOL) { *out = v.u.b; return; }
    if (v.kind == TV_BIGINT) {
        *out = tv_s(v).len && tv_s(v).s[0] == '-' ? -PTRDIFF_MAX : PTRDIFF_MAX;
        return;
    }
    tmpl_raise(c->rt, "TypeError", none_ok
               ? "slice indices must be integers or None or have an __index__ method"
               : "slice indices must be integers or have an __index__ method");
}

/* CPython's ADJUST_INDICES for str methods: end clamped to len, negative
 * values counted from the end; start may stay beyond len. */
static void adjust(i64 *start, i64 *end, iz len)
{
    if (*end > len)
        *end = len;
    else if (*end < 0) {
        *end += len;
        if (*end < 0)
            *end = 0;
    }
    if (*start < 0) {
        *start += len;
        if (*start < 0)
            *start = 0;
    }
}

/* Strings past the output limit fail before they are built. */
static void check_size(call *c, i64 bytes)
{
    if (bytes > TMPL_MAX_OUTPUT)
        tmpl_fail(c->rt, ERR_LIMIT, "%s() would build a string of more than %d bytes", cname(c),
                  (int)TMPL_MAX_OUTPUT);
}

/* ---- results ------------------------------------------------------------- */

/* A method's string result. Checked: case mapping grows a context string,
 * which nothing bounds below TV_MAX_STR. */
static tv str_result(call *c, str s)
{
    tv v = tv_str_checked(c->rt, s);
    if (c->markup)
        v.flags = TVF_SAFE;
    return v;
}

static tv parts_list(call *c, const str *parts, iz n)
{
    tv l = tv_list_new(c->rt, n);
    for (iz i = 0; i < n; i++)
        l.u.list->v[i] = str_result(c, parts[i]);
    return l;
}

/* markupsafe.escape of a string: & < > " ' as entities. */
static str html_escape(arena *a, str s)
{
    iz extra = 0;
    for (iz i = 0; i < s.len; i++) {
        switch (s.s[i]) {
        case '&': extra += 4; break;
        case '<': case '>': extra += 3; break;
        case '"': case '\'': extra += 4; break;
        default: break;
        }
    }
    if (!extra)
        return s;
    u8 *p = NEW_NZ(a, u8, s.len + extra);
    iz k = 0;
    for (iz i = 0; i < s.len; i++) {
        const char *rep = NULL;
        switch (s.s[i]) {
        case '&':  rep = "&amp;"; break;
        case '<':  rep = "&lt;"; break;
        case '>':  rep = "&gt;"; break;
        case '"':  rep = "&#34;"; break;
        case '\'': rep = "&#39;"; break;
        default:   p[k++] = s.s[i]; continue;
        }
        iz n = (iz)strlen(rep);
        memcpy(p + k, rep, (size_t)n);
        k += n;
    }
    return (str){p, k};
}

/* Markup.escape(v) as a string: str(v) escaped unless v is Markup. */
static str markup_escape(call *c, tv v)
{
    if (v.kind == TV_STR && (v.flags & TVF_SAFE))
        return tv_s(v);
    return html_escape(c->rt->a, tv_s(tv_to_str(c->rt, v)));
}

/* A str argument of a Markup method's simple wrapper: strings escaped. */
static tv wrap_arg(call *c, tv v)
{
    if (c->markup && v.kind == TV_STR && !(v.flags & TVF_SAFE)) {
        tv r = tv_str_checked(c->rt, html_escape(c->rt->a, tv_s(v)));
        r.flags = TVF_SAFE;
        return r;
    }
    return v;
}

/* ---- str methods --------------------------------------------------------- */

static str self_str(call *c)
{
    return tv_s(c->self);
}

static tv m_case(call *c, str (*fn)(arena *, str))
{
    no_args(c);
    return str_result(c, fn(c->rt->a, self_str(c)));
}

static tv m_is(call *c, pystr_class cls)
{
    no_args(c);
    return tv_bool(pystr_is(self_str(c), cls));
}

/* strip/lstrip/rstrip(chars=None, /). */
static tv m_strip(call *c, int sides)
{
    clinic_count(c, 0, 1);
    str s = self_str(c);
    if (c->a->npos == 0 || c->a->pos[0].kind == TV_NONE)
        return str_result(c, pystr_strip(s, NULL, sides));
    tv ch = wrap_arg(c, c->a->pos[0]);
    if (ch.kind != TV_STR)
        tmpl_raise(c->rt, "TypeError", "%s arg must be None or str", cname(c));
    str chars = tv_s(ch);
    return str_result(c, pystr_strip(s, &chars, sides));
}

/* center/ljust/rjust(width, fillchar=' ', /). */
static tv m_pad(call *c, str (*fn)(arena *, str, iz, u32))
{
    clinic_count(c, 1, 2);
    i64 width = ssize_arg(c, c->a->pos[0]);
    u32 fill = ' ';
    if (c->a->npos > 1) {
        tv f = wrap_arg(c, c->a->pos[1]);
        if (f.kind != TV_STR)
            tmpl_raise(c->rt, "TypeError",
                       "The fill character must be a unicode character, not %s", tv_type_name(f));
        if (pystr_len(tv_s(f)) != 1)
            tmpl_raise(c->rt, "TypeError", "The fill character must be exactly one character long");
        iz i = 0;
        fill = utf8_next(tv_s(f).s, &i);
    }
    str s = self_str(c);
    check_size(c, width);
    check_size(c, s.len + width * 4);
    return str_result(c, fn(c->rt->a, s, (iz)width, fill));
}

static tv m_zfill(call *c)
{
    i64 width = ssize_arg(c, one_arg(c));
    str s = self_str(c);
    check_size(c, s.len + width);
    return str_result(c, pystr_zfill(c->rt->a, s, (iz)width));
}

/* The sub argument of find/count/index ("must be str, not int"). */
static str sub_arg(call *c, tv v)
{
    if (v.kind != TV_STR)
        tmpl_raise(c->rt, "TypeError", "must be str, not %s", tv_type_name(v));
    return tv_s(v);
}

/* find/rfind/index/rindex/count(sub[, start[, end]]): the arguments as
 * CPython's parse_args_finds takes them, then the slice. */
static void finds_args(call *c, str *sub, i64 *start, i64 *end, iz *len)
{
    tuple_count(c, 1, 3);
    *start = 0;
    *end = PTRDIFF_MAX;
    if (c->a->npos > 1)
        slice_arg(c, c->a->pos[1], start, true);
    if (c->a->npos > 2)
        slice_arg(c, c->a->pos[2], end, true);
    *sub = sub_arg(c, c->a->pos[0]);
    *len = pystr_len(self_str(c));
    adjust(start, end, *len);
}

static tv m_find(call *c, bool reverse, bool raise)
{
    str sub;
    i64 start, end;
    iz len;
    finds_args(c, &sub, &start, &end, &len);
    iz r = -1;
    if (start <= end)
        r = reverse ? pystr_rfind(self_str(c), sub, (iz)start, (iz)end)
                    : pystr_find(self_str(c), sub, (iz)start, (iz)end);
    if (r < 0 && raise)
        tmpl_raise(c->rt, "ValueError", "substring not found");
    return tv_int(r);
}

static tv m_count(call *c)
{
    str sub;
    i64 start, end;
    iz len;
    finds_args(c, &sub, &start, &end, &len);
    if (start > len)
        return tv_int(0);
    return tv_int(pystr_count(self_str(c), sub, (iz)start, (iz)end));
}

/* CPython's tailmatch: does s[start:end] start (or end) with sub? */
static bool tailmatch(str s, iz len, str sub, i64 start, i64 end, bool at_end)
{
    adjust(&start, &end, len);
    iz sublen = pystr_len(sub);
    end -= sublen;
    if (end < start)
        return false;
    if (sub.len == 0)
        return true;
    iz at = at_end ? (iz)end : (iz)start;
    iz b = pystr_offset(s, at);
    return b + sub.len <= s.len && memcmp(s.s + b, sub.s, (size_t)sub.len) == 0;
}

static tv m_startswith(call *c, bool at_end)
{
    tuple_count(c, 1, 3);
    i64 start = 0, end = PTRDIFF_MAX;
    if (c->a->npos > 1)
        slice_arg(c, c->a->pos[1], &start, true);
    if (c->a->npos > 2)
        slice_arg(c, c->a->pos[2], &end, true);
    str s = self_str(c);
    tv x = c->a->pos[0];
    if (c->a->npos == 1 && x.kind == TV_STR) {
        /* The common call, without a slice: a byte prefix (suffix) of
         * valid UTF-8 is a code point prefix (suffix). */
        str p = tv_s(x);
        return tv_bool(p.len <= s.len &&
                       (p.len == 0 || memcmp(at_end ? s.s + s.len - p.len : s.s, p.s,
                                             (size_t)p.len) == 0));
    }
    iz len = pystr_len(s);
    if (x.kind == TV_TUPLE) {
        for (iz i = 0; i < x.u.list->n; i++) {
            tv p = x.u.list->v[i];
            if (p.kind != TV_STR)
                tmpl_raise(c->rt, "TypeError", "tuple for %s must only contain str, not %s",
                           cname(c), tv_type_name(p));
            if (tailmatch(s, len, tv_s(p), start, end, at_end))
                return tv_bool(true);
        }
        return tv_bool(false);
    }
    if (x.kind != TV_STR)
        tmpl_raise(c->rt, "TypeError", "%s first arg must be str or a tuple of str, not %s",
                   cname(c), tv_type_name(x));
    return tv_bool(tailmatch(s, len, tv_s(x), start, end, at_end));
}

/* replace(old, new, count=-1, /). */
static tv m_replace(call *c)
{
    clinic_count(c, 2, 3);
    tv old = wrap_arg(c, c->a->pos[0]), rep = wrap_arg(c, c->a->pos[1]);
    /* _PyArg_BadArgument names None "None", other values by type */
    if (old.kind != TV_STR)
        tmpl_raise(c->rt, "TypeError", "replace() argument 1 must be str, not %s",
                   old.kind == TV_NONE ? "None" : tv_type_name(old));
    if (rep.kind != TV_STR)
        tmpl_raise(c->rt, "TypeError", "replace() argument 2 must be str, not %s",
                   rep.kind == TV_NONE ? "None" : tv_type_name(rep));
    i64 count = c->a->npos > 2 ? ssize_arg(c, c->a->pos[2]) : -1;
    str s = self_str(c), o = tv_s(old), r = tv_s(rep);
    if (r.len > o.len) {
        iz n = o.len ? pystr_count(s, o, 0, pystr_len(s)) : pystr_len(s) + 1;
        if (count >= 0 && count < n)
            n = (iz)count;
        check_size(c, s.len + (i64)n * (r.len - o.len));
    }
    return str_result(c, pystr_replace(c->rt->a, s, o, r, count < 0 ? -1 : (iz)count));
}

/* split/rsplit(sep=None, maxsplit=-1). */
static tv m_split(call *c, bool right)
{
    static const char *const params[] = {"sep", "maxsplit"};
    tv v[2];
    clinic_kw(c, params, 2, v);
    const str *sep = NULL;
    str sep_str;
    if (!absent(v[0]) && v[0].kind != TV_NONE) {
        if (v[0].kind != TV_STR)
            tmpl_raise(c->rt, "TypeError", "must be str or None, not %s", tv_type_name(v[0]));
        sep_str = tv_s(v[0]);
        sep = &sep_str;
    }
    i64 max = absent(v[1]) ? -1 : ssize_arg(c, v[1]);
    if (sep && sep->len == 0)
        tmpl_raise(c->rt, "ValueError", "empty separator");
    str *parts;
    iz n = (right ? pystr_rsplit : pystr_split)(c->rt->a, self_str(c), sep, max < 0 ? -1 : (iz)max,
                                                 &parts);
    return parts_list(c, parts, n);
}

static tv m_splitlines(call *c)
{
    static const char *const params[] = {"keepends"};
    tv v[1];
    clinic_kw(c, params, 1, v);
    bool keep = !absent(v[0]) && int_arg(c, v[0]) != 0;
    str *parts;
    iz n = pystr_splitlines(c->rt->a, self_str(c), keep, &parts);
    return parts_list(c, parts, n);
}

static tv m_expandtabs(call *c)
{
    static const char *const params[] = {"tabsize"};
    tv v[1];
    clinic_kw(c, params, 1, v);
    int tabsize = absent(v[0]) ? 8 : int_arg(c, v[0]);
    str s = self_str(c);
    if (tabsize > 1) {
        iz tabs = 0;
        for (iz i = 0; i < s.len; i++)
            tabs += s.s[i] == '\t';
        check_size(c, s.len + (i64)tabs * tabsize);
    }
    return str_result(c, pystr_expandtabs(c->rt->a, s, tabsize));
}

/* partition/rpartition(sep, /). */
static tv m_partition(call *c, bool right)
{
    tv sepv = one_arg(c);
    str sep;
    if (c->markup) {
        sep = markup_escape(c, sepv);
    } else {
        if (sepv.kind != TV_STR)
            tmpl_raise(c->rt, "TypeError", "must be str, not %s", tv_type_name(sepv));
        sep = tv_s(sepv);
    }
    if (sep.len == 0)
        tmpl_raise(c->rt, "ValueError", "empty separator");
    str s = self_str(c);
    iz len = pystr_len(s);
    iz at = right ? pystr_rfind(s, sep, 0, len) : pystr_find(s, sep, 0, len);
    str p[3];
    if (at < 0) {
        p[0] = right ? S("") : s;
        p[1] = S("");
        p[2] = right ? s : S("");
    } else {
        iz b = pystr_offset(s, at);
        p[0] = str_cut(s, 0, b);
        p[1] = str_cut(s, b, b + sep.len);
        p[2] = str_cut(s, b + sep.len, s.len);
    }
    tv t = tv_tuple_new(c->rt, 3);
    for (int i = 0; i < 3; i++)
        t.u.list->v[i] = str_result(c, p[i]);
    return t;
}

/* removeprefix/removesuffix(x, /): plain str results even for Markup. */
static tv m_remove(call *c, bool suffix)
{
    tv x = one_arg(c);
    if (x.kind != TV_STR)
        tmpl_raise(c->rt, "TypeError", "%s() argument must be str, not %s", cname(c),
                   tv_type_name(x));
    str s = self_str(c), p = tv_s(x);
    if (p.len <= s.len && p.len > 0) {
        if (!suffix && memcmp(s.s, p.s, (size_t)p.len) == 0)
            return tv_str(str_cut(s, p.len, s.len));
        if (suffix && memcmp(s.s + s.len - p.len, p.s, (size_t)p.len) == 0)
            return tv_str(str_cut(s, 0, s.len - p.len));
    }
    return tv_str(s);
}

/* join(iterable, /). */
static tv m_join(call *c)
{
    tv it = one_arg(c);
    tmpl_rt *rt = c->rt;
    switch (it.kind) {
    case TV_LIST: case TV_TUPLE: case TV_DICT: case TV_STR: case TV_UNDEF:
        break;
    default:
        tmpl_raise(rt, "TypeError", "can only join an iterable");
    }
    iz n;
    const tv *items = tv_iterate(rt, it, &n);
    str sep = self_str(c);
    str *parts = n ? NEW_NZ(rt->a, str, n) : NULL;
    i64 total = n > 1 ? (i64)sep.len * (n - 1) : 0;
    for (iz i = 0; i < n; i++) {
        if (c->markup) {
            parts[i] = markup_escape(c, items[i]);
        } else {
            if (items[i].kind != TV_STR)
                tmpl_raise(rt, "TypeError", "sequence item %td: expected str instance, %s found", i,
                           tv_type_name(items[i]));
            parts[i] = tv_s(items[i]);
        }
        total += parts[i].len;
    }
    check_size(c, total);
    if (n == 1 && !c->markup)
        return tv_str(parts[0]);
    u8 *p = total ? NEW_NZ(rt->a, u8, total) : NULL;
    iz k = 0;
    for (iz i = 0; i < n; i++) {
        if (i && sep.len) {
            memcpy(p + k, sep.s, (size_t)sep.len);
            k += sep.len;
        }
        if (parts[i].len) {
            memcpy(p + k, parts[i].s, (size_t)parts[i].len);
            k += parts[i].len;
        }
    }
    return str_result(c, p ? (str){p, k} : S(""));
}

/* ---- format(): Python's format mini-language ----------------------------- */

/* Output goes to rt->tmp (stack discipline: callers note its length first
 * and cut back to it). */
static void out_cp(tmpl_rt *rt, u32 c)
{
    u8 tmp[4];
    buf_put(&rt->tmp, tmp, utf8_encode(c, tmp));
}

static void out_fill(tmpl_rt *rt, u32 c, iz n)
{
    for (iz i = 0; i < n; i++)
        out_cp(rt, c);
}

static void out_check(tmpl_rt *rt)
{
    if (rt->tmp.failed)
        tmpl_fail(rt, ERR_NOMEM, "out of memory building a string");
    if (rt->tmp.len > TMPL_MAX_OUTPUT)
        tmpl_fail(rt, ERR_LIMIT, "a string grew past %d bytes", (int)TMPL_MAX_OUTPUT);
}

typedef struct fspec {
    u32  fill;
    u32  align;      /* '<' '>' '=' '^' */
    u32  sign;       /* 0 ' ' '+' '-' */
    bool no_neg_0;   /* 'z' */
    bool alt;        /* '#' */
    iz   width;      /* -1: none */
    u32  sep;        /* 0 ',' '_' */
    int  group;      /* digits per group with sep */
    iz   prec;       /* -1: none */
    u32  type;       /* 0 or the type code point */
} fspec;

static bool is_align(u32 c)
{
    return c == '<' || c == '>' || c == '=' || c == '^';
}

/* get_integer of formatter_unicode.c: a run of decimal digits. */
static iz spec_int(tmpl_rt *rt, const u32 *cp, iz n, iz *pos, iz *out)
{
    iz start = *pos, acc = 0;
    for (; *pos < n; ++*pos) {
        u32 ch = cp[*pos];
        if (ch - '0' >= 10) {
            if (ch >= 0x80 && pystr_isdecimal(ch))
                tmpl_fail(rt, ERR_UNSUPPORTED, "non-ASCII digits in a format specifier");
            break;
        }
        if (acc > (PTRDIFF_MAX - (iz)(ch - '0')) / 10)
            tmpl_raise(rt, "ValueError", "Too many decimal digits in format string");
        acc = acc * 10 + (iz)(ch - '0');
    }
    *out = acc;
    return *pos - start;
}

static _Noreturn void unknown_code(tmpl_rt *rt, u32 type, const char *tname)
{
    if (type > 32 && type < 128)
        tmpl_raise(rt, "ValueError", "Unknown format code '%c' for object of type '%s'", (char)type,
                   tname);
    tmpl_raise(rt, "ValueError", "Unknown format code '\\x%x' for object of type '%s'",
               (unsigned)type, tname);
}

/* parse_internal_render_format_spec of CPython 3.11. */
static void parse_spec(tmpl_rt *rt, str spec, u32 default_type, u32 default_align, const char *tname,
                       fspec *f)
{
    iz n = pystr_len(spec);
    u32 *cp = NEW_NZ(rt->a, u32, n + 1);
    for (iz i = 0, k = 0; i < spec.len; k++)
        cp[k] = utf8_next(spec.s, &i);
    *f = (fspec){.fill = ' ', .align = default_align, .width = -1, .prec = -1, .type = default_type};
    iz pos = 0;
    bool fill_given = false, align_given = false;
    if (n - pos >= 2 && is_align(cp[pos + 1])) {
        f->align = cp[pos + 1];
        f->fill = cp[pos];
        fill_given = align_given = true;
        pos += 2;
    } else if (n - pos >= 1 && is_align(cp[pos])) {
        f->align = cp[pos];
        align_given = true;
        pos++;
    }
    if (n - pos >= 1 && (cp[pos] == ' ' || cp[pos] == '+' || cp[pos] == '-'))
        f->sign = cp[pos++];
    if (n - pos >= 1 && cp[pos] == 'z') {
        f->no_neg_0 = true;
        pos++;
    }
    if (n - pos >= 1 && cp[pos] == '#') {
        f->alt = true;
        pos++;
    }
    if (!fill_given && n - pos >= 1 && cp[pos] == '0') {
        f->fill = '0';
        if (!align_given && default_align == '>')
            f->align = '=';
        pos++;
    }
    iz w;
    if (spec_int(rt, cp, n, &pos, &w))
        f->width = w;
    if (n - pos >= 1 && cp[pos] == ',') {
        f->sep = ',';
        pos++;
    }
    if (n - pos >= 1 && cp[pos] == '_') {
        if (f->sep)
            tmpl_raise(rt, "ValueError", "Cannot specify both ',' and '_'.");
        f->sep = '_';
        pos++;
    }
    if (n - pos >= 1 && cp[pos] == ',' && f->sep == '_')
        tmpl_raise(rt, "ValueError", "Cannot specify both ',' and '_'.");
    if (n - pos >= 1 && cp[pos] == '.') {
        pos++;
        iz p;
        if (!spec_int(rt, cp, n, &pos, &p))
            tmpl_raise(rt, "ValueError", "Format specifier missing precision");
        f->prec = p;
    }
    if (n - pos > 1)
        tmpl_raise(rt, "ValueError", "Invalid format specifier '%.*s' for object of type '%s'",
                   (int)spec.len, (const char *)spec.s, tname);
    if (n - pos == 1)
        f->type = cp[pos];
    if (f->sep) {
        /* Grouping goes with decimal types; '_' also with b, o, x, X
         * (every four digits there). */
        bool ok = false;
        f->group = 3;
        switch (f->type) {
        case 'd': case 'e': case 'f': case 'g': case 'E': case 'G': case '%': case 'F': case 0:
            ok = true;
            break;
        case 'b': case 'o': case 'x': case 'X':
            ok = f->sep == '_';
            f->group = 4;
            break;
        default:
            break;
        }
        if (!ok) {
            if (f->type > 32 && f->type < 128)
                tmpl_raise(rt, "ValueError", "Cannot specify '%c' with '%c'.", (char)f->sep,
                           (char)f->type);
            tmpl_raise(rt, "ValueError", "Cannot specify '%c' with '\\x%x'.", (char)f->sep,
                       (unsigned)f->type);
        }
    }
    if (f->width > TMPL_MAX_OUTPUT)
        tmpl_fail(rt, ERR_LIMIT, "a format width of %td", f->width);
}

/* format_string_internal: str.__format__ with a parsed spec. */
static void format_str(tmpl_rt *rt, str s, const fspec *f)
{
    if (f->sign == ' ')
        tmpl_raise(rt, "ValueError", "Space not allowed in string format specifier");
    if (f->sign)
        tmpl_raise(rt, "ValueError", "Sign not allowed in string format specifier");
    if (f->no_neg_0)
        tmpl_raise(rt, "ValueError",
                   "Negative zero coercion (z) not allowed in string format specifier");
    if (f->alt)
        tmpl_raise(rt, "ValueError", "Alternate form (#) not allowed in string format specifier");
    if (f->align == '=')
        tmpl_raise(rt, "ValueError", "'=' alignment not allowed in string format specifier");
    iz len = pystr_len(s);
    if (f->prec >= 0 && len > f->prec) {
        s = str_cut(s, 0, pystr_offset(s, f->prec));
        len = f->prec;
    }
    iz total = f->width > len ? f->width : len;
    iz left = f->align == '>' ? total - len : f->align == '^' ? (total - len) / 2 : 0;
    out_fill(rt, f->fill, left);
    buf_str(&rt->tmp, s);
    out_fill(rt, f->fill, total - len - left);
}

/* The parts of a formatted number, laid out by calc_number_widths and
 * fill_number of CPython's formatter_unicode.c:
 *   <lpad> <sign> <prefix> <spad> <grouped digits> <decimal> <remainder> <rpad> */
typedef struct number {
    u32  sign;      /* '-' or 0 from the value */
    str  prefix;    /* "0x" ... */
    str  digits;    /* the integer digits (grouped) */
    bool decimal;   /* a '.' follows the digits */
    str  rest;      /* after the '.', or after the digits */
    bool upper;     /* 'X': digits and prefix in upper case */
} number;

/* Digits grouped with `sep` every `group` (0: no grouping), zero-padded to
 * min_width as _PyUnicode_InsertThousandsGrouping does; count only when
 * emit is false. */
static iz grouped(tmpl_rt *rt, str digits, iz min_width, u32 sep, int group, bool upper, bool emit)
{
    /* Chunks come from the right; collect them, then emit in order. */
    iz remaining = digits.len, count = 0, nchunks = 0;
    iz cap = (MAX(remaining, min_width) + 1) / (group > 0 ? group : 1) + 2;
    iz *starts = NEW_NZ(rt->a, iz, cap), *lens = NEW_NZ(rt->a, iz, cap),
       *zeros = NEW_NZ(rt->a, iz, cap);
    bool use_sep = false, broken = false;
    iz pos = digits.len;
    if (group > 0) {
        for (;;) {
            iz len = MIN((iz)group, MAX(MAX(remaining, min_width), 1));
            iz nz = MAX(0, len - remaining), nc = MAX(0, MIN(remaining, len));
            count += (use_sep ? 1 : 0) + nz + nc;
            ASSERT(nchunks < cap);
            starts[nchunks] = pos - nc;
            lens[nchunks] = nc;
            zeros[nchunks] = nz;
            nchunks++;
            pos -= nc;
            use_sep = true;
            remaining -= nc;
            min_width -= len;
            if (remaining <= 0 && min_width <= 0) {
                broken = true;
                break;
            }
            min_width -= 1;
        }
    }
    if (!broken) {
        iz len = MAX(MAX(remaining, min_width), 1);
        iz nz = MAX(0, len - remaining), nc = MAX(0, MIN(remaining, len));
        count += (use_sep ? 1 : 0) + nz + nc;
        ASSERT(nchunks < cap);
        starts[nchunks] = pos - nc;
        lens[nchunks] = nc;
        zeros[nchunks] = nz;
        nchunks++;
    }
    if (emit) {
        for (iz k = nchunks - 1; k >= 0; k--) {
            out_fill(rt, '0', zeros[k]);
            for (iz i = 0; i < lens[k]; i++) {
                u8 ch = digits.s[starts[k] + i];
                buf_byte(&rt->tmp, upper && ch >= 'a' && ch <= 'f' ? (u8)(ch - 32) : ch);
            }
            if (k > 0)
                out_cp(rt, sep);
        }
    }
    return count;
}

static void format_number(tmpl_rt *rt, const number *num, const fspec *f)
{
    u32 sign = 0;
    if (f->sign == '+')
        sign = num->sign == '-' ? '-' : '+';
    else if (f->sign == ' ')
        sign = num->sign == '-' ? '-' : ' ';
    else if (num->sign == '-')
        sign = '-';
    iz n_rest = pystr_len(num->rest);
    iz non_digit = (sign ? 1 : 0) + num->prefix.len + (num->decimal ? 1 : 0) + n_rest;
    iz min_width = f->fill == '0' && f->align == '=' ? f->width - non_digit : 0;
    int group = f->sep ? f->group : 0;
    iz n_grouped = num->digits.len ? grouped(rt, num->digits, min_width, f->sep, group, false, false)
                                   : 0;
    iz pad = f->width - (non_digit + n_grouped);
    iz lpad = 0, spad = 0, rpad = 0;
    if (pad > 0) {
        switch (f->align) {
        case '<': rpad = pad; break;
        case '^': lpad = pad / 2; rpad = pad - lpad; break;
        case '=': spad = pad; break;
        default:  lpad = pad; break;
        }
    }
    out_fill(rt, f->fill, lpad);
    if (sign)
        buf_byte(&rt->tmp, (u8)sign);
    for (iz i = 0; i < num->prefix.len; i++) {
        u8 ch = num->prefix.s[i];
        buf_byte(&rt->tmp, num->upper && ch == 'x' ? 'X' : ch);
    }
    out_fill(rt, f->fill, spad);
    if (num->digits.len)
        grouped(rt, num->digits, min_width, f->sep, group, num->upper, true);
    if (num->decimal)
        buf_byte(&rt->tmp, '.');
    buf_str(&rt->tmp, num->rest);
    out_fill(rt, f->fill, rpad);
}

/* Digits of |x| (no trailing zeros; "0" with decpt 1 for zero) as David
 * Gay's dtoa gives them: mode 0 the shortest repr, mode 2 `n` significant
 * digits, mode 3 `n` digits after the point. glibc's printf rounds
 * correctly, as dtoa does, so the digits agree. */
static iz float_digits(tmpl_rt *rt, double x, int mode, iz n, char **digits)
{
    iz decpt;
    if (x == 0) {
        *digits = (char *)"0";
        return 1;
    }
    if (mode == 0) {
        pyfmt_dec d;
        pyfmt_shortest(x, &d);
        char *p = NEW_NZ(rt->a, char, 24);
        snprintf(p, 24, "%llu", (unsigned long long)d.digits);
        *digits = p;
        return d.ndigits + d.exp;
    }
    iz cap = mode == 2 ? n + 16 : n + 330;
    char *tmp = NEW_NZ(rt->a, char, cap);
    char *p = NEW_NZ(rt->a, char, cap);
    iz k = 0;
    if (mode == 2) {
        snprintf(tmp, (size_t)cap, "%.*e", (int)(n - 1), x);
        char *e = strchr(tmp, 'e');
        for (char *q = tmp; q < e; q++)
            if (*q != '.')
                p[k++] = *q;
        decpt = strtol(e + 1, NULL, 10) + 1;
    } else {
        snprintf(tmp, (size_t)cap, "%.*f", (int)n, x);
        char *dot = strchr(tmp, '.');
        decpt = dot ? dot - tmp : (iz)strlen(tmp);
        for (char *q = tmp; *q; q++)
            if (*q != '.')
                p[k++] = *q;
        iz lead = 0;
        while (lead < k && p[lead] == '0')
            lead++;
        memmove(p, p + lead, (size_t)(k - lead));
        k -= lead;
        decpt -= lead;
        if (k == 0) {
            *digits = (char *)"0";
            return 1;
        }
    }
    while (k > 1 && p[k - 1] == '0')
        k--;
    p[k] = 0;
    *digits = p;
    return decpt;
}

/* format_float_short of CPython's pystrtod.c, appending to rt->tmp:
 * code 'e', 'f', 'g' or 'r'. */
static void float_short(tmpl_rt *rt, double x, int code, iz prec, bool upper, bool add_dot_0,
                        bool alt, bool no_neg_0)
{
    bool neg = signbit(x) != 0;
    if (isnan(x) || isinf(x)) {
        if (isinf(x) && neg)
            buf_byte(&rt->tmp, '-');
        buf_cstr(&rt->tmp, isnan(x) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
        return;
    }
    int mode = code == 'r' ? 0 : code == 'f' ? 3 : 2;
    iz n = code == 'e' ? prec + 1 : code == 'g' && prec == 0 ? 1 : prec;
    if (n > 100000)
        tmpl_fail(rt, ERR_LIMIT, "a float format precision of %td", prec);
    char *digits;
    iz decpt = float_digits(rt, fabs(x), mode, n, &digits);
    iz dlen = (iz)strlen(digits);
    if (no_neg_0 && neg && dlen == 1 && digits[0] == '0')
        neg = false;
    bool use_exp = false;
    iz vend = dlen, exp = 0;
    switch (code) {
    case 'e': use_exp = true; vend = n; break;
    case 'f': vend = decpt + prec; break;
    case 'g':
        if (decpt <= -4 || decpt > (add_dot_0 ? n - 1 : n))
            use_exp = true;
        if (alt)
            vend = n;
        break;
    default:
        if (decpt <= -4 || decpt > 16)
            use_exp = true;
        break;
    }
    if (use_exp) {
        exp = decpt - 1;
        decpt = 1;
    }
    iz vstart = decpt <= 0 ? decpt - 1 : 0;
    if (!use_exp && add_dot_0)
        vend = vend > decpt ? vend : decpt + 1;
    else
        vend = vend > decpt ? vend : decpt;
    buf *b = &rt->tmp;
    if (neg)
        buf_byte(b, '-');
    if (decpt <= 0) {
        for (iz i = 0; i < decpt - vstart; i++)
            buf_byte(b, '0');
        buf_byte(b, '.');
        for (iz i = 0; i < -decpt; i++)
            buf_byte(b, '0');
    } else {
        for (iz i = 0; i < -vstart; i++)
            buf_byte(b, '0');
    }
    if (0 < decpt && decpt <= dlen) {
        buf_put(b, digits, decpt);
        buf_byte(b, '.');
        buf_put(b, digits + decpt, dlen - decpt);
    } else {
        buf_put(b, digits, dlen);
    }
    if (dlen < decpt) {
        for (iz i = 0; i < decpt - dlen; i++)
            buf_byte(b, '0');
        buf_byte(b, '.');
        for (iz i = 0; i < vend - decpt; i++)
            buf_byte(b, '0');
    } else {
        for (iz i = 0; i < vend - dlen; i++)
            buf_byte(b, '0');
    }
    if (b->len && b->data[b->len - 1] == '.' && !alt)
        b->len--;
    if (use_exp)
        buf_printf(b, "%c%+.02d", upper ? 'E' : 'e', (int)exp);
}

/* Splits formatted number text (in rt->tmp from `mark`) into a number and
 * lays it out with the spec, replacing the text. */
static void layout_number_text(tmpl_rt *rt, iz mark, const fspec *f, bool upper)
{
    iz len = rt->tmp.len - mark;
    char *text = NEW_NZ(rt->a, char, len + 1);
    memcpy(text, rt->tmp.data + mark, (size_t)len);
    rt->tmp.len = mark;
    number num = {0};
    iz i = 0;
    if (len && text[0] == '-') {
        num.sign = '-';
        i = 1;
    }
    iz d0 = i;
    while (i < len && text[i] >= '0' && text[i] <= '9')
        i++;
    num.digits = str_from(text + d0, i - d0);
    if (i < len && text[i] == '.') {
        num.decimal = true;
        i++;
    }
    num.rest = str_from(text + i, len - i);
    num.prefix = S("");
    num.upper = upper;
    format_number(rt, &num, f);
}

static void format_float(tmpl_rt *rt, double x, const fspec *f)
{
    u32 type = f->type;
    int code;
    iz prec = f->prec;
    bool add_dot_0 = false, pct = false, upper = false;
    switch (type) {
    case 0:   code = 'r'; add_dot_0 = true; break;
    case 'n': code = 'g'; break;
    case '%': code = 'f'; x *= 100; pct = true; break;
    case 'E': case 'F': case 'G': code = (int)type + 32; upper = true; break;
    default:  code = (int)type; break;
    }
    if (prec < 0)
        prec = code == 'r' ? 0 : 6;
    else if (code == 'r')
        code = 'g';
    iz mark = rt->tmp.len;
    float_short(rt, x, code, prec, upper, add_dot_0, f->alt, f->no_neg_0);
    if (pct)
        buf_byte(&rt->tmp, '%');
    layout_number_text(rt, mark, f, false);
}

/* The digits of a big non-negative decimal in base 2, 8 or 16 (lower
 * case): through 32-bit limbs, most significant digit first. */
static str big_to_base(tmpl_rt *rt, str dec, int base)
{
    iz nl = dec.len / 9 + 2, used = 0;
    u32 *limb = NEW(rt->a, u32, nl);
    for (iz i = 0; i < dec.len;) {
        iz take = MIN((iz)9, dec.len - i);
        u64 mul = 1, add = 0;
        for (iz k = 0; k < take; k++) {
            mul *= 10;
            add = add * 10 + (u64)(dec.s[i + k] - '0');
        }
        i += take;
        for (iz k = 0; k < used; k++) {
            u64 x = (u64)limb[k] * mul + add;
            limb[k] = (u32)x;
            add = x >> 32;
        }
        if (add)
            limb[used++] = (u32)add;
    }
    int bits = base == 2 ? 1 : base == 8 ? 3 : 4;
    iz nbits = used * 32;
    while (nbits > 0 && !(limb[(nbits - 1) / 32] >> ((nbits - 1) % 32) & 1))
        nbits--;
    iz nd = MAX((nbits + bits - 1) / bits, 1);
    char *p = NEW_NZ(rt->a, char, nd);
    for (iz d = 0; d < nd; d++) {
        unsigned val = 0;
        for (int b = bits - 1; b >= 0; b--) {
            iz bit = d * bits + b;
            val = val << 1 | (bit < nbits ? limb[bit / 32] >> (bit % 32) & 1 : 0);
        }
        p[nd - 1 - d] = "0123456789abcdef"[val];
    }
    return str_from(p, nd);
}

/* float(int) of a big int: correctly rounded, as strtod reads it. */
static double big_to_double(tmpl_rt *rt, str dec)
{
    char *z = NEW_NZ(rt->a, char, dec.len + 1);
    memcpy(z, dec.s, (size_t)dec.len);
    z[dec.len] = 0;
    double d = strtod(z, NULL);
    if (isinf(d))
        tmpl_raise(rt, "OverflowError", "int too large to convert to float");
    return d;
}

/* int.__format__ with a parsed spec whose type is an int type. */
static void format_int(tmpl_rt *rt, tv v, const fspec *f)
{
    if (f->prec >= 0)
        tmpl_raise(rt, "ValueError", "Precision not allowed in integer format specifier");
    if (f->no_neg_0)
        tmpl_raise(rt, "ValueError",
                   "Negative zero coercion (z) not allowed in integer format specifier");
    i64 i = v.kind == TV_BOOL ? v.u.b : v.u.i;
    number num = {.prefix = S(""), .rest = S("")};
    if (f->type == 'c') {
        if (f->sign)
            tmpl_raise(rt, "ValueError", "Sign not allowed with integer format specifier 'c'");
        if (f->alt)
            tmpl_raise(rt, "ValueError",
                       "Alternate form (#) not allowed with integer format specifier 'c'");
        if (v.kind == TV_BIGINT)
            tmpl_raise(rt, "OverflowError", "Python int too large to convert to C long");
        if (i < 0 || i > 0x10ffff)
            tmpl_raise(rt, "OverflowError", "%%c arg not in range(0x110000)");
        if (i >= 0xd800 && i <= 0xdfff)
            tmpl_fail(rt, ERR_UNSUPPORTED, "a lone surrogate from format code 'c'");
        u8 *p = NEW_NZ(rt->a, u8, 4);
        num.rest = str_from(p, utf8_encode((u32)i, p));
        format_number(rt, &num, f);
        return;
    }
    int base = f->type == 'b' ? 2 : f->type == 'o' ? 8 : f->type == 'x' || f->type == 'X' ? 16 : 10;
    if (f->alt && base != 10)
        num.prefix = base == 2 ? S("0b") : base == 8 ? S("0o") : S("0x");
    num.upper = f->type == 'X';
    if (v.kind == TV_BIGINT) {
        str t = tv_s(v);
        if (t.len && t.s[0] == '-') {
            num.sign = '-';
            t = str_cut(t, 1, t.len);
        }
        num.digits = base == 10 ? t : big_to_base(rt, t, base);
        format_number(rt, &num, f);
        return;
    }
    u64 mag = i < 0 ? (u64)0 - (u64)i : (u64)i;
    if (i < 0)
        num.sign = '-';
    char *p = NEW_NZ(rt->a, char, 65);
    iz k = 65;
    do {
        p[--k] = "0123456789abcdef"[mag % (u64)base];
        mag /= (u64)base;
    } while (mag);
    num.digits = str_from(p + k, 65 - k);
    format_number(rt, &num, f);
}

/* format(v, spec) appended to rt->tmp. */
static void format_value(tmpl_rt *rt, tv v, str spec)
{
    if (spec.len == 0) {
        tv_write_str(rt, &rt->tmp, v);
        return;
    }
    fspec f;
    switch (v.kind) {
    case TV_STR:
        parse_spec(rt, spec, 's', '<', v.flags & TVF_SAFE ? "Markup" : "str", &f);
        if (f.type != 's')
            unknown_code(rt, f.type, v.flags & TVF_SAFE ? "Markup" : "str");
        format_str(rt, tv_s(v), &f);
        return;
    case TV_INT: case TV_BOOL: case TV_BIGINT: {
        const char *tname = v.kind == TV_BOOL ? "bool" : "int";
        parse_spec(rt, spec, 'd', '>', tname, &f);
        switch (f.type) {
        case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'n':
            format_int(rt, v, &f);
            return;
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%':
            format_float(rt, v.kind == TV_BIGINT ? big_to_double(rt, tv_s(v))
                             : (double)(v.kind == TV_BOOL ? v.u.b : v.u.i), &f);
            return;
        default:
            unknown_code(rt, f.type, tname);
        }
    }
    case TV_FLOAT:
        parse_spec(rt, spec, 0, '>', "float", &f);
        switch (f.type) {
        case 0: case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'n': case '%':
            format_float(rt, v.u.f, &f);
            return;
        default:
            unknown_code(rt, f.type, "float");
        }
    default:
        tmpl_raise(rt, "TypeError", "unsupported format string passed to %s.__format__",
                   tv_type_name(v));
    }
}

/* ---- str.format through jinja2's SandboxedFormatter ---------------------- */

typedef struct fmt_ctx {
    call *c;
    const tv *args;
    iz nargs;
    const tv *map;   /* format_map's mapping: the keyword fields come from it */
} fmt_ctx;

/* The decimal value of a field name part (get_integer), or -1. */
static iz field_int(tmpl_rt *rt, str s)
{
    if (s.len == 0)
        return -1;
    iz acc = 0;
    for (iz i = 0; i < s.len;) {
        u32 ch = utf8_next(s.s, &i);
        if (ch - '0' >= 10) {
            if (ch >= 0x80 && pystr_isdecimal(ch))
                tmpl_fail(rt, ERR_UNSUPPORTED, "non-ASCII digits in a format field name");
            return -1;
        }
        if (acc > (PTRDIFF_MAX - (iz)(ch - '0')) / 10)
            tmpl_raise(rt, "ValueError", "Too many decimal digits in format string");
        acc = acc * 10 + (iz)(ch - '0');
    }
    return acc;
}

/* Formatter.get_field: the first part from args/kwargs, then the rest
 * through the sandbox's getattr and getitem. */
static tv get_field(fmt_ctx *fc, str name)
{
    tmpl_rt *rt = fc->c->rt;
    iz i = 0;
    while (i < name.len && name.s[i] != '.' && name.s[i] != '[')
        i++;
    str first = str_cut(name, 0, i);
    iz idx = field_int(rt, first);
    tv obj = tv_none();
    if (idx >= 0) {
        if (idx >= fc->nargs)
            tmpl_raise(rt, "IndexError", "tuple index out of range");
        obj = fc->args[idx];
    } else {
        const tv_args *a = fc->c->a;
        bool found = false;
        if (fc->map) {   /* kwargs[key] of the mapping itself */
            tv m = *fc->map;
            if (m.kind == TV_UNDEF)
                tv_undef_raise(rt, m);
            if (m.kind == TV_LIST)
                tmpl_raise(rt, "TypeError", "list indices must be integers or slices, not str");
            if (m.kind != TV_DICT)
                tmpl_raise(rt, "TypeError", "'%s' object is not subscriptable", tv_type_name(m));
            found = tv_dict_get_str(m.u.dict, first, &obj);
        } else {
            for (i32 k = a->nkw - 1; k >= 0 && !found; k--)
                if (str_eq(a->kwname[k], first)) {
                    obj = a->kw[k];
                    found = true;
                }
        }
        if (!found) {
            arena_mark m = arena_save(rt->a);
            str r = pystr_repr(rt->a, first);
            char msg[ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "%.*s", (int)r.len, (const char *)r.s);
            arena_restore(rt->a, m);
            tmpl_raise(rt, "KeyError", "%s", msg);
        }
    }
    /* FieldNameIterator */
    while (i < name.len) {
        u8 ch = name.s[i++];
        str part;
        bool attr;
        if (ch == '.') {
            attr = true;
            iz j = i;
            while (i < name.len && name.s[i] != '.' && name.s[i] != '[')
                i++;
            part = str_cut(name, j, i);
        } else if (ch == '[') {
            attr = false;
            iz j = i;
            while (i < name.len && name.s[i] != ']')
                i++;
            if (i >= name.len)
                tmpl_raise(rt, "ValueError", "Missing ']' in format string");
            part = str_cut(name, j, i);
            i++;
        } else {
            tmpl_raise(rt, "ValueError",
                       "Only '.' or '[' may follow ']' in format field specifier");
        }
        if (part.len == 0)
            tmpl_raise(rt, "ValueError", "Empty attribute in format string");
        if (attr) {
            obj = tv_getattr(rt, obj, part);
        } else {
            iz k = field_int(rt, part);
            obj = tv_getitem(rt, obj, k >= 0 ? tv_int(k) : tv_str(part));
        }
    }
    return obj;
}

/* ascii(): repr with every non-ASCII code point escaped. */
static void write_ascii(tmpl_rt *rt, tv v)
{
    iz mark = rt->tmp.len;
    tv_write_repr(rt, &rt->tmp, v);
    out_check(rt);
    str r = arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark));
    rt->tmp.len = mark;
    for (iz i = 0; i < r.len;) {
        iz at = i;
        u32 ch = utf8_next(r.s, &i);
        if (ch < 0x80)
            buf_byte(&rt->tmp, r.s[at]);
        else if (ch < 0x100)
            buf_printf(&rt->tmp, "\\x%02x", ch);
        else if (ch < 0x10000)
            buf_printf(&rt->tmp, "\\u%04x", ch);
        else
            buf_printf(&rt->tmp, "\\U%08x", ch);
    }
}

/* Formatter._vformat: appends the formatted text to rt->tmp. `autoidx` is
 * the automatic field number, or -1 once manual numbering was used (the
 * Python code's False). */
static iz vformat(fmt_ctx *fc, str s, int depth, iz autoidx)
{
    tmpl_rt *rt = fc->c->rt;
    if (depth < 0)
        tmpl_raise(rt, "ValueError", "Max string recursion exceeded");
    iz i = 0;
    while (i < s.len) {
        /* MarkupIterator_next: literal text up to a brace. */
        iz start = i;
        u8 c = 0;
        bool markup = false;
        while (i < s.len) {
            c = s.s[i++];
            if (c == '{' || c == '}') {
                markup = true;
                break;
            }
        }
        bool at_end = i >= s.len;
        iz len = i - start;
        if (markup && c == '}' && (at_end || s.s[i] != '}'))
            tmpl_raise(rt, "ValueError", "Single '}' encountered in format string");
        if (markup && at_end && c == '{')
            tmpl_raise(rt, "ValueError", "Single '{' encountered in format string");
        if (markup && !at_end) {
            if (s.s[i] == c) {
                i++;
                markup = false;
            } else {
                len--;
            }
        }
        buf_str(&rt->tmp, str_cut(s, start, start + len));
        if (!markup)
            continue;
        /* parse_field */
        iz fstart = i;
        u8 ch = 0;
        while (i < s.len) {
            ch = s.s[i++];
            if (ch == '{')
                tmpl_raise(rt, "ValueError", "unexpected '{' in field name");
            if (ch == '[') {
                while (i < s.len && s.s[i] != ']')
                    i++;
                continue;
            }
            if (ch == '}' || ch == ':' || ch == '!')
                break;
        }
        str field = str_cut(s, fstart, i - 1 < fstart ? fstart : i - 1);
        u32 conv = 0;
        str spec = S("");
        if (ch == '!' || ch == ':') {
            if (ch == '!') {
                if (i >= s.len)
                    tmpl_raise(rt, "ValueError", "end of string while looking for conversion specifier");
                conv = utf8_next(s.s, &i);
                if (i < s.len) {
                    u8 nx = s.s[i++];
                    if (nx != '}' && nx != ':')
                        tmpl_raise(rt, "ValueError", "expected ':' after conversion specifier");
                    if (nx == '}')
                        goto have_field;
                }
            }
            iz sstart = i;
            int count = 1;
            bool closed = false;
            while (i < s.len) {
                u8 sc = s.s[i++];
                if (sc == '{')
                    count++;
                else if (sc == '}' && --count == 0) {
                    spec = str_cut(s, sstart, i - 1);
                    closed = true;
                    break;
                }
            }
            if (!closed)
                tmpl_raise(rt, "ValueError", "unmatched '{' in format spec");
        } else if (ch != '}') {
            tmpl_raise(rt, "ValueError", "expected '}' before end of string");
        }
    have_field:;
        /* Formatter._vformat's numbering. */
        char numbuf[24];
        if (field.len == 0) {
            if (autoidx < 0)
                tmpl_raise(rt, "ValueError", "cannot switch from manual field specification to "
                                             "automatic field numbering");
            snprintf(numbuf, sizeof numbuf, "%td", autoidx);
            field = str_cstr(numbuf);
            autoidx++;
        } else if (pystr_is(field, PYSTR_DIGIT)) {
            if (autoidx > 0)
                tmpl_raise(rt, "ValueError", "cannot switch from manual field specification to "
                                             "automatic field numbering");
            autoidx = -1;
        }
        tv obj = get_field(fc, field);
        if (conv) {
            iz mark = rt->tmp.len;
            switch (conv) {
            case 'r': tv_write_repr(rt, &rt->tmp, obj); break;
            case 's': tv_write_str(rt, &rt->tmp, obj); break;
            case 'a': write_ascii(rt, obj); break;
            default:
                if (conv > 32 && conv < 127)
                    tmpl_raise(rt, "ValueError", "Unknown conversion specifier %c", (char)conv);
                tmpl_raise(rt, "ValueError", "Unknown conversion specifier \\x%x", (unsigned)conv);
            }
            out_check(rt);
            obj = tv_str(arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark)));
            rt->tmp.len = mark;
        }
        /* The spec is itself formatted, one level down. */
        iz mark = rt->tmp.len;
        autoidx = vformat(fc, spec, depth - 1, autoidx);
        out_check(rt);
        str xspec = arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark));
        rt->tmp.len = mark;
        format_value(rt, obj, xspec);
        out_check(rt);
    }
    return autoidx;
}

static tv m_format(call *c)
{
    tmpl_rt *rt = c->rt;
    if (c->markup)
        tmpl_fail(rt, ERR_UNSUPPORTED, "Markup.format (the sandbox's escaping formatter)");
    fmt_ctx fc = {c, c->a->pos, c->a->npos, NULL};
    if (c->meth == TVM_STR_FORMAT_MAP) {
        /* the sandbox's wrapper (wrap_str_format): args (), kwargs the
         * one argument */
        if (c->a->nkw)
            tmpl_raise(rt, "TypeError", "format_map() takes no keyword arguments");
        if (c->a->npos != 1)
            tmpl_raise(rt, "TypeError", "format_map() takes exactly one argument (%d given)",
                       (int)c->a->npos);
        fc = (fmt_ctx){c, NULL, 0, &c->a->pos[0]};
    }
    iz mark = rt->tmp.len;
    vformat(&fc, self_str(c), 2, 0);
    out_check(rt);
    tv r = tv_str(arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark)));
    rt->tmp.len = mark;
    return r;
}

/* str.maketrans(x[, y[, z]]) (a static method, reached through a str):
 * the translation table as a dict of code points. */
static tv m_maketrans(call *c)
{
    tmpl_rt *rt = c->rt;
    clinic_count(c, 1, 3);
    const tv *a = c->a->pos;
    int n = c->a->npos;
    for (int k = 1; k < n; k++)   /* y and z are converted by the argument parser first */
        if (a[k].kind != TV_STR)
            tmpl_raise(rt, "TypeError", "maketrans() argument %d must be str, not %s", k + 1,
                       a[k].kind == TV_NONE ? "None" : tv_type_name(a[k]));
    tv r = tv_dict_new(rt, 8);
    if (n == 1) {
        if (a[0].kind != TV_DICT)
            tmpl_raise(rt, "TypeError", "if you give only one argument to maketrans it must be a dict");
        const tv_dict *d = a[0].u.dict;
        for (iz i = 0; i < tv_dict_n(d); i++) {
            tv key = tv_dict_e(d)[i].key;
            if (key.kind == TV_STR) {
                if (pystr_len(tv_s(key)) != 1)
                    tmpl_raise(rt, "ValueError", "string keys in translate table must be of length 1");
                iz at = 0;
                key = tv_int(utf8_next(tv_s(key).s, &at));
            } else if (key.kind != TV_INT && key.kind != TV_BOOL && key.kind != TV_BIGINT) {
                tmpl_raise(rt, "TypeError", "keys in translate table must be strings or integers");
            }
            tv_dict_set(rt, r.u.dict, key, tv_dict_e(d)[i].val);
        }
        return r;
    }
    if (a[0].kind != TV_STR)
        tmpl_raise(rt, "TypeError", "first maketrans argument must be a string if there is a second argument");
    str x = tv_s(a[0]), y = tv_s(a[1]);
    if (pystr_len(x) != pystr_len(y))
        tmpl_raise(rt, "ValueError", "the first two maketrans arguments must have equal length");
    for (iz i = 0, j = 0; i < x.len;) {
        u32 from = utf8_next(x.s, &i), to = utf8_next(y.s, &j);
        tv_dict_set(rt, r.u.dict, tv_int(from), tv_int(to));
    }
    if (n == 3)
        for (iz i = 0; i < tv_s(a[2]).len;)
            tv_dict_set(rt, r.u.dict, tv_int(utf8_next(tv_s(a[2]).s, &i)), tv_none());
    return r;
}

/* str.translate(table): each code point through table[cp] (a missing one
 * stays; None deletes it; an int or a str replaces it). */
static tv m_translate(call *c)
{
    tmpl_rt *rt = c->rt;
    tv table = one_arg(c);
    str s = self_str(c);
    if (s.len == 0)
        return str_result(c, s);
    iz mark = rt->tmp.len;
    for (iz i = 0; i < s.len;) {
        iz at = i;
        u32 cp = utf8_next(s.s, &i);
        tv v;
        bool found;
        switch ((tv_kind)table.kind) {
        case TV_UNDEF:
            tv_undef_raise(rt, table);
        case TV_DICT:
            found = tv_dict_get(table.u.dict, tv_int(cp), &v);
            break;
        case TV_LIST:
        case TV_TUPLE:
            if (table.flags & TVF_ITER)
                tmpl_raise(rt, "TypeError", "'%s' object is not subscriptable", tv_type_name(table));
            found = cp < (u32)table.u.list->n;
            if (found)
                v = table.u.list->v[cp];
            break;
        case TV_STR: {
            str t = tv_s(table);
            found = (iz)cp < pystr_len(t);
            if (found) {
                iz b = pystr_offset(t, (iz)cp), e = b;
                utf8_next(t.s, &e);
                v = tv_str(str_cut(t, b, e));
            }
            break;
        }
        default:
            tmpl_raise(rt, "TypeError", "'%s' object is not subscriptable", tv_type_name(table));
        }
        if (!found) {
            buf_put(&rt->tmp, s.s + at, i - at);
        } else if (v.kind == TV_NONE) {
            /* deleted */
        } else if (v.kind == TV_INT || v.kind == TV_BOOL) {
            i64 x = v.kind == TV_BOOL ? v.u.b : v.u.i;
            if (x < 0 || x > 0x10ffff)
                tmpl_raise(rt, "ValueError", "character mapping must be in range(0x110000)");
            if (x >= 0xd800 && x <= 0xdfff)
                tmpl_fail(rt, ERR_UNSUPPORTED, "a surrogate code point from str.translate");
            u8 enc[4];
            buf_put(&rt->tmp, enc, utf8_encode((u32)x, enc));
        } else if (v.kind == TV_BIGINT) {
            tmpl_raise(rt, "OverflowError", "Python int too large to convert to C long");
        } else if (v.kind == TV_STR) {
            buf_put(&rt->tmp, tv_s(v).s, tv_s(v).len);
        } else {
            tmpl_raise(rt, "TypeError", "character mapping must return integer, None or str");
        }
        out_check(rt);
    }
    tv r = str_result(c, arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark)));
    rt->tmp.len = mark;
    return r;
}

/* ---- dict, list, tuple --------------------------------------------------- */

static tv m_dict_get(call *c)
{
    clinic_count(c, 1, 2);
    tv key = c->a->pos[0], out;
    tv dflt = c->a->npos > 1 ? c->a->pos[1] : tv_none();
    tv_hash(c->rt, key);
    return tv_dict_get(c->self.u.dict, key, &out) ? out : dflt;
}

static tv m_dict_view(call *c, int which)
{
    no_args(c);
    const tv_dict *d = c->self.u.dict;
    tv l = tv_list_new(c->rt, tv_dict_n(d));
    for (iz i = 0; i < tv_dict_n(d); i++)
        l.u.list->v[i] = which == 0 ? tv_pair(c->rt, tv_dict_e(d)[i].key, tv_dict_e(d)[i].val)
                         : which == 1 ? tv_dict_e(d)[i].key : tv_dict_e(d)[i].val;
    return l;
}

static tv m_dict_copy(call *c)
{
    no_args(c);
    tv_dict *d = NEW(c->rt->a, tv_dict, 1);
    (void)tv_dict_e(c->self.u.dict);   /* a lazy dict converted first: the copy shares its values */
    *d = *c->self.u.dict;   /* entries are immutable: share them */
    tv v = {.kind = TV_DICT};
    v.u.dict = d;
    return v;
}

static tv m_list_copy(call *c)
{
    no_args(c);
    tv_list *l = NEW(c->rt->a, tv_list, 1);
    *l = *c->self.u.list;
    tv v = {.kind = TV_LIST};
    v.u.list = l;
    return v;
}

/* list.pop and list.clear change the list (see tv_list): refused while a
 * loop runs over it. */
static tv_list *changing(call *c)
{
    tv_list *l = c->self.u.list;
    if (l->loops)
        tmpl_fail(c->rt, ERR_UNSUPPORTED, "list.%s() on a list a for loop is running over", cname(c));
    l->origin = NULL;
    c->rt->lists_changed = true;   /* and the containers holding it */
    return l;
}

static tv m_list_pop(call *c)
{
    clinic_count(c, 0, 1);
    i64 i = c->a->npos ? ssize_arg(c, c->a->pos[0]) : -1;
    tv_list *l = changing(c);
    if (l->n == 0)
        tmpl_raise(c->rt, "IndexError", "pop from empty list");
    if (i < 0)
        i += l->n;
    if (i < 0 || i >= l->n)
        tmpl_raise(c->rt, "IndexError", "pop index out of range");
    tv r = l->v[i];
    if (i == 0) {
        l->v++;
    } else if (i < l->n - 1) {
        tv *v = NEW_NZ(c->rt->a, tv, l->n - 1);
        memcpy(v, l->v, (size_t)i * sizeof *v);
        memcpy(v + i, l->v + i + 1, (size_t)(l->n - i - 1) * sizeof *v);
        l->v = v;
        l->arr = NULL;   /* v is an array of its own now */
        c->rt->escapes++;   /* new memory held by a list made earlier */
    }
    l->n--;
    return r;
}

static tv m_list_clear(call *c)
{
    no_args(c);
    changing(c)->n = 0;
    return tv_none();
}

static tv m_list_count(call *c)
{
    tv x = one_arg(c);
    const tv_list *l = c->self.u.list;
    iz n = 0;
    for (iz i = 0; i < l->n; i++)
        n += tv_equal(c->rt, l->v[i], x);
    return tv_int(n);
}

/* ValueError "x is not in list" (or range), with repr(x). */
_Noreturn static void not_in(call *c, tv x, const char *what)
{
    tmpl_rt *rt = c->rt;
    iz mark = rt->tmp.len;
    tv_write_repr(rt, &rt->tmp, x);
    out_check(rt);
    char msg[ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%.*s", (int)(rt->tmp.len - mark), (const char *)rt->tmp.data + mark);
    rt->tmp.len = mark;
    tmpl_raise(rt, "ValueError", "%s is not in %s", msg, what);
}

static tv m_list_index(call *c)
{
    const tv_list *l = c->self.u.list;
    if (c->self.kind == TV_LIST && (c->self.flags & TVF_RANGE)) {
        /* range.index(x): one argument; an int searched as range_index
         * does, anything else by equality (_PySequence_IterSearch) */
        tv x = one_arg(c);
        for (iz i = 0; i < l->n; i++)
            if (tv_equal(c->rt, l->v[i], x))
                return tv_int(i);
        if (x.kind != TV_INT && x.kind != TV_BOOL)
            tmpl_raise(c->rt, "ValueError", "sequence.index(x): x not in sequence");
        not_in(c, x, "range");
    }
    clinic_count(c, 1, 3);
    i64 start = 0, stop = PTRDIFF_MAX;
    if (c->a->npos > 1)
        slice_arg(c, c->a->pos[1], &start, false);
    if (c->a->npos > 2)
        slice_arg(c, c->a->pos[2], &stop, false);
    if (start < 0) {
        start += l->n;
        if (start < 0)
            start = 0;
    }
    if (stop < 0) {
        stop += l->n;
        if (stop < 0)
            stop = 0;
    }
    tv x = c->a->pos[0];
    for (i64 i = start; i < stop && i < l->n; i++)
        if (tv_equal(c->rt, l->v[i], x))
            return tv_int(i);
    if (c->self.kind == TV_TUPLE)
        tmpl_raise(c->rt, "ValueError", "tuple.index(x): x not in tuple");
    not_in(c, x, "list");
}

/* ---- jinja objects ------------------------------------------------------- */

/* Python functions with *args only: the first keyword is unexpected. */
static void no_kw_py(call *c, const char *qualname)
{
    if (c->a->nkw)
        tmpl_raise(c->rt, "TypeError", "%s() got an unexpected keyword argument '%.*s'", qualname,
                   (int)c->a->kwname[0].len, (const char *)c->a->kwname[0].s);
}

static tv m_cycle(call *c)
{
    no_kw_py(c, "LoopContext.cycle");
    if (c->a->npos == 0)
        tmpl_raise(c->rt, "TypeError", "no items for cycling given");
    return c->a->pos[c->self.u.loop->i % c->a->npos];
}

/* Cycler.next(self) / reset(self): no arguments but self. */
static void cycler_args(call *c, const char *qualname)
{
    no_kw_py(c, qualname);
    if (c->a->npos)
        tmpl_raise(c->rt, "TypeError", "%s() takes 1 positional argument but %d were given",
                   qualname, (int)c->a->npos + 1);
}

static tv m_cycler(call *c, tv_meth m)
{
    tv_cycler *cy = c->self.u.cycler;
    /* cycler() refuses to be made without items; stay safe anyway. */
    if (cy->n <= 0)
        tmpl_raise(c->rt, "RuntimeError", "at least one item has to be provided");
    switch (m) {
    case TVM_CYCLER_NEXT: {
        cycler_args(c, "Cycler.next");
        tv r = cy->items[cy->pos];
        cy->pos = (cy->pos + 1) % cy->n;
        return r;
    }
    case TVM_CYCLER_RESET:
        cycler_args(c, "Cycler.reset");
        cy->pos = 0;
        return tv_none();
    default:
        /* `current` is a property; the attribute lookup answers it. */
        return cy->items[cy->pos];
    }
}

/* ---- dispatch ------------------------------------------------------------ */

static const char *method_name(tv_meth m)
{
    for (iz i = 0; i < countof(METHODS); i++)
        if (METHODS[i].meth == m)
            return METHODS[i].name;
    switch (m) {
    case TVM_LIST_INDEX: return "index";
    case TVM_LIST_COUNT: return "count";
    case TVM_LIST_COPY:  return "copy";
    case TVM_LIST_POP:   return "pop";
    case TVM_LIST_CLEAR: return "clear";
    default:             return "?";
    }
}

static tv method_run(tmpl_rt *rt, const tv_method *m, const tv_args *args);

/* A method goes through its receiver and arguments and makes its result:
 * their steps for the time budget. */
tv tmpl_method_call(tmpl_rt *rt, const tv_method *m, const tv_args *args)
{
    static const tv_args none = {0};
    const tv_args *a = args ? args : &none;
    tmpl_work(rt, 1 + tv_steps(m->self) + tv_args_steps(a));
    tv r = method_run(rt, m, a);
    tmpl_work(rt, tv_steps(r));
    return r;
}

static tv method_run(tmpl_rt *rt, const tv_method *m, const tv_args *args)
{
    call c = {rt, args, tv_type_name(m->self), m->meth, m->self,
              m->self.kind == TV_STR && (m->self.flags & TVF_SAFE)};
    if (c.markup)
        c.type = "str";
    switch ((tv_meth)m->meth) {
    case TVM_STR_CAPITALIZE:   return m_case(&c, pystr_capitalize);
    case TVM_STR_CASEFOLD:     c.markup = false; return m_case(&c, pystr_casefold);
    case TVM_STR_LOWER:        return m_case(&c, pystr_lower);
    case TVM_STR_UPPER:        return m_case(&c, pystr_upper);
    case TVM_STR_SWAPCASE:     return m_case(&c, pystr_swapcase);
    case TVM_STR_TITLE:        return m_case(&c, pystr_title);
    case TVM_STR_ISALNUM:      return m_is(&c, PYSTR_ALNUM);
    case TVM_STR_ISALPHA:      return m_is(&c, PYSTR_ALPHA);
    case TVM_STR_ISASCII:      return m_is(&c, PYSTR_ASCII);
    case TVM_STR_ISDECIMAL:    return m_is(&c, PYSTR_DECIMAL);
    case TVM_STR_ISDIGIT:      return m_is(&c, PYSTR_DIGIT);
    case TVM_STR_ISIDENTIFIER: return m_is(&c, PYSTR_IDENTIFIER);
    case TVM_STR_ISLOWER:      return m_is(&c, PYSTR_LOWER);
    case TVM_STR_ISNUMERIC:    return m_is(&c, PYSTR_NUMERIC);
    case TVM_STR_ISPRINTABLE:  return m_is(&c, PYSTR_PRINTABLE);
    case TVM_STR_ISSPACE:      return m_is(&c, PYSTR_SPACE);
    case TVM_STR_ISTITLE:      return m_is(&c, PYSTR_TITLE);
    case TVM_STR_ISUPPER:      return m_is(&c, PYSTR_UPPER);
    case TVM_STR_STRIP:        return m_strip(&c, PYSTR_BOTH);
    case TVM_STR_LSTRIP:       return m_strip(&c, PYSTR_LEFT);
    case TVM_STR_RSTRIP:       return m_strip(&c, PYSTR_RIGHT);
    case TVM_STR_CENTER:       return m_pad(&c, pystr_center);
    case TVM_STR_LJUST:        return m_pad(&c, pystr_ljust);
    case TVM_STR_RJUST:        return m_pad(&c, pystr_rjust);
    case TVM_STR_ZFILL:        return m_zfill(&c);
    case TVM_STR_FIND:         return m_find(&c, false, false);
    case TVM_STR_RFIND:        return m_find(&c, true, false);
    case TVM_STR_INDEX:        return m_find(&c, false, true);
    case TVM_STR_RINDEX:       return m_find(&c, true, true);
    case TVM_STR_COUNT:        return m_count(&c);
    case TVM_STR_STARTSWITH:   return m_startswith(&c, false);
    case TVM_STR_ENDSWITH:     return m_startswith(&c, true);
    case TVM_STR_REPLACE:      return m_replace(&c);
    case TVM_STR_SPLIT:        return m_split(&c, false);
    case TVM_STR_RSPLIT:       return m_split(&c, true);
    case TVM_STR_SPLITLINES:   return m_splitlines(&c);
    case TVM_STR_EXPANDTABS:   return m_expandtabs(&c);
    case TVM_STR_PARTITION:    return m_partition(&c, false);
    case TVM_STR_RPARTITION:   return m_partition(&c, true);
    case TVM_STR_REMOVEPREFIX: return m_remove(&c, false);
    case TVM_STR_REMOVESUFFIX: return m_remove(&c, true);
    case TVM_STR_JOIN:         return m_join(&c);
    case TVM_STR_FORMAT:       return m_format(&c);
    case TVM_STR_FORMAT_MAP:   return m_format(&c);
    case TVM_STR_MAKETRANS:    return m_maketrans(&c);
    case TVM_STR_TRANSLATE:    return m_translate(&c);
    case TVM_DICT_GET:         return m_dict_get(&c);
    case TVM_DICT_ITEMS:       return m_dict_view(&c, 0);
    case TVM_DICT_KEYS:        return m_dict_view(&c, 1);
    case TVM_DICT_VALUES:      return m_dict_view(&c, 2);
    case TVM_DICT_COPY:        return m_dict_copy(&c);
    case TVM_LIST_COPY:        return m_list_copy(&c);
    case TVM_LIST_POP:         return m_list_pop(&c);
    case TVM_LIST_CLEAR:       return m_list_clear(&c);
    case TVM_LIST_COUNT:       return m_list_count(&c);
    case TVM_LIST_INDEX:       return m_list_index(&c);
    case TVM_LOOP_CYCLE:       return m_cycle(&c);
    case TVM_LOOP_CHANGED: {
        /* LoopContext.changed(*value): true when the arguments differ from
         * the last call's (always on the first call). */
        no_kw_py(&c, "LoopContext.changed");
        tv_loop *l = m->self.u.loop;
        tv t = tv_tuple_new(rt, c.a->npos);
        for (i32 i = 0; i < c.a->npos; i++)
            t.u.list->v[i] = c.a->pos[i];
        if (l->changed_set && tv_equal(rt, t, l->changed_last))
            return tv_bool(false);
        l->changed_last = t;
        l->changed_set = true;
        rt->escapes++;   /* the tuple outlives this iteration */
        return tv_bool(true);
    }
    case TVM_CYCLER_NEXT:
    case TVM_CYCLER_RESET:
    case TVM_CYCLER_CURRENT:   return m_cycler(&c, (tv_meth)m->meth);
    case TVM_NONE:
    case TVM_COUNT:
        break;
    }
    tmpl_fail(rt, ERR_UNSUPPORTED, "method %d", (int)m->meth);
}
