/* tmpl_methods.c - the Python methods a template can call (tmpl_value.h):
 * str methods with CPython 3.11's argument handling and messages (str.format
 * itself is tmpl_format.c's), dict get/items/keys/values/copy,
 * list and tuple index/count/copy, loop.cycle, the cycler's next/reset, and
 * Markup receivers as markupsafe 2.1 has them (string arguments escaped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tmpl_lib.h"
#include "tmpl_pystr.h"
#include "../base/utf8.h"

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

/* str.format and str.format_map (tmpl_format.c); the sandbox's wrapper of
 * format_map (wrap_str_format) takes the one argument as the keywords. */
static tv m_format(call *c)
{
    tmpl_rt *rt = c->rt;
    if (c->markup)
        tmpl_fail(rt, ERR_UNSUPPORTED, "Markup.format (the sandbox's escaping formatter)");
    if (c->meth != TVM_STR_FORMAT_MAP)
        return tmpl_str_format(rt, self_str(c), c->a, NULL);
    if (c->a->nkw)
        tmpl_raise(rt, "TypeError", "format_map() takes no keyword arguments");
    if (c->a->npos != 1)
        tmpl_raise(rt, "TypeError", "format_map() takes exactly one argument (%d given)",
                   (int)c->a->npos);
    return tmpl_str_format(rt, self_str(c), c->a, &c->a->pos[0]);
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
    sb out = sb_new(rt, s.len);
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
            sb_put(&out, s.s + at, i - at);
        } else if (v.kind == TV_NONE) {
            /* deleted */
        } else if (v.kind == TV_INT || v.kind == TV_BOOL) {
            i64 x = v.kind == TV_BOOL ? v.u.b : v.u.i;
            if (x < 0 || x > 0x10ffff)
                tmpl_raise(rt, "ValueError", "character mapping must be in range(0x110000)");
            if (x >= 0xd800 && x <= 0xdfff)
                tmpl_fail(rt, ERR_UNSUPPORTED, "a surrogate code point from str.translate");
            sb_cp(&out, (u32)x);
        } else if (v.kind == TV_BIGINT) {
            tmpl_raise(rt, "OverflowError", "Python int too large to convert to C long");
        } else if (v.kind == TV_STR) {
            sb_str(&out, tv_s(v));
        } else {
            tmpl_raise(rt, "TypeError", "character mapping must return integer, None or str");
        }
    }
    return str_result(c, out.len ? sb_view(&out) : S(""));
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
        ASSERT(!(c->self.flags & TVF_RANGE));   /* tv_list.arr is a range's bounds */
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
    str r = tmpl_repr(rt, x);
    char msg[ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%.*s", (int)MIN(r.len, (iz)ERR_MSG_MAX), (const char *)r.s);
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
