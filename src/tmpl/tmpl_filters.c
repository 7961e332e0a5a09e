/* tmpl_filters.c - Jinja2 3.1.2's built-in filters as they run in the
 * sandboxed environment transformers builds for chat templates (with
 * transformers' json.dumps `tojson`): tmpl_filter_apply (tmpl_value.h),
 * the filters on values, sequences and mappings, and the argument binding
 * filters and tests share (tmpl_lib.h); the text filters are in
 * tmpl_filters_text.c. Each filter follows jinja2/filters.py and the
 * Python builtins it calls, error messages included. */
#include <math.h>

#include "../base/utf8.h"
#include "../json/pyfmt.h"
#include "tmpl_lib.h"
#include "tmpl_pystr.h"

/* The message an Undefined raises, as a slice. */
static str undef_msg(tmpl_rt *rt, tv v)
{
    iz mark = rt->tmp.len;
    tv_undef_message(rt, &rt->tmp, v);
    if (rt->tmp.failed)
        tmpl_fail(rt, ERR_NOMEM, "out of memory");
    str r = arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark));
    rt->tmp.len = mark;
    return r;
}

/* ---- argument binding as CPython does it --------------------------------- */

static void missing_args(tmpl_rt *rt, const tmpl_sig *g, const tmpl_bound *b)
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

void tmpl_bind(tmpl_rt *rt, const tmpl_sig *g, tv v, const tv_args *a, tmpl_bound *b)
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
                           g->name, tmpl_cstr(rt, a->kwname[k]));
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

void tmpl_builtin1(tmpl_rt *rt, const char *name, const tv_args *a)
{
    if (a->nkw)
        tmpl_raise(rt, "TypeError", "%s() takes no keyword arguments", name);
    if (a->npos)
        tmpl_raise(rt, "TypeError", "%s() takes exactly one argument (%d given)", name, 1 + a->npos);
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
            p.parts[p.n++] = tv_int_from_digits(rt, false, part);
        else if (part.len && pystr_is(part, PYSTR_DIGIT))
            /* int('²') is a ValueError in Python; such paths are exotic. */
            tmpl_fail(rt, ERR_UNSUPPORTED, "attribute path part '%s' (digits that are not decimal)",
                      tmpl_cstr(rt, part));
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

/* ---- the filters ------------------------------------------------------------- */

/* Python signatures of the filter functions (jinja2/filters.py and the
 * oracle's tojson): SIG, tmpl_lib.h. */
SIG(SG_ATTR, "do_attr", 3, 1, 3, 0, "environment", "obj", "name");
SIG(SG_BATCH, "do_batch", 3, 0, 2, 0, "value", "linecount", "fill_with");
SIG(SG_CAPITALIZE, "do_capitalize", 1, 0, 1, 0, "s");
SIG(SG_DEFAULT, "do_default", 3, 0, 1, 0, "value", "default_value", "boolean");
SIG(SG_DICTSORT, "do_dictsort", 4, 0, 1, 0, "value", "case_sensitive", "by", "reverse");
SIG(SG_FIRST, "sync_do_first", 2, 1, 2, 0, "environment", "seq");
SIG(SG_FLOAT, "do_float", 2, 0, 1, 0, "value", "default");
SIG(SG_FORCEESCAPE, "do_forceescape", 1, 0, 1, 0, "value");
SIG(SG_FORMAT, "do_format", 1, 0, 1, SIG_VARARGS | SIG_VARKW, "value");
SIG(SG_GROUPBY, "sync_do_groupby", 5, 1, 3, 0, "environment", "value", "attribute", "default",
    "case_sensitive");
SIG(SG_INT, "do_int", 3, 0, 1, 0, "value", "default", "base");
SIG(SG_ITEMS, "do_items", 1, 0, 1, 0, "value");
SIG(SG_JOIN, "sync_do_join", 4, 1, 2, 0, "eval_ctx", "value", "d", "attribute");
SIG(SG_LAST, "do_last", 2, 1, 2, 0, "environment", "seq");
SIG(SG_LIST, "sync_do_list", 1, 0, 1, 0, "value");
SIG(SG_LOWER, "do_lower", 1, 0, 1, 0, "s");
SIG(SG_MAP, "sync_do_map", 2, 1, 2, SIG_VARARGS | SIG_VARKW, "context", "value");
SIG(SG_MAX, "do_max", 4, 1, 2, 0, "environment", "value", "case_sensitive", "attribute");
SIG(SG_MIN, "do_min", 4, 1, 2, 0, "environment", "value", "case_sensitive", "attribute");
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
SIG(SG_SUM, "sync_do_sum", 4, 1, 2, 0, "environment", "iterable", "attribute", "start");
SIG(SG_TOJSON, "TemplateEnv.__init__.<locals>.tojson", 5, 0, 1, 0, "x", "ensure_ascii", "indent",
    "separators", "sort_keys");
SIG(SG_TRIM, "do_trim", 2, 0, 1, 0, "value", "chars");
SIG(SG_UNIQUE, "do_unique", 4, 1, 2, 0, "environment", "value", "case_sensitive", "attribute");
SIG(SG_UPPER, "do_upper", 1, 0, 1, 0, "s");
SIG(SG_XMLATTR, "do_xmlattr", 3, 1, 2, 0, "eval_ctx", "d", "autospace");

static tv f_abs(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_builtin1(rt, "abs", a);
    switch (v.kind) {
    case TV_BOOL:
        return tv_int(v.u.b);
    case TV_INT:
        if (v.u.i == INT64_MIN)
            return tv_int_from_digits(rt, false, S("9223372036854775808"));
        return tv_int(v.u.i < 0 ? -v.u.i : v.u.i);
    case TV_BIGINT:
        return tv_s(v).s[0] == '-' ? tv_int_from_digits(rt, false, str_cut(tv_s(v), 1, tv_s(v).len)) : v;
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_ATTR, v, a, &b);
    tv obj = b.v[1], name = b.v[2];
    if (name.kind != TV_STR)
        tmpl_raise(rt, "TypeError", "attribute name must be string, not '%s'", pytype(name));
    str n = tv_s(name);
    if (obj.kind == TV_UNDEF)
        tv_undef_raise(rt, obj);
    if (n.len >= 2 && n.s[0] == '_' && n.s[1] == '_')
        /* Dunder attributes exist or not per type (dir()), and the sandbox
         * calls the existing ones unsafe; we do not list them. */
        tmpl_fail(rt, ERR_UNSUPPORTED, "attr filter with the special attribute '%s'", tmpl_cstr(rt, n));
    if (n.len && n.s[0] == '_') {
        /* No builtin type has a single-underscore attribute; a namespace
         * may, and then the sandbox calls it unsafe. */
        tv out;
        if (obj.kind == TV_NS && tv_dict_get_str(obj.u.dict, n, &out))
            return tv_getattr(rt, obj, n);
        if (obj.kind == TV_NS || (obj.kind >= TV_NONE && obj.kind <= TV_DICT))
            return tv_undef_attr(rt, obj, name);
        tmpl_fail(rt, ERR_UNSUPPORTED, "attr filter: attribute '%s' of a %s", tmpl_cstr(rt, n), pytype(obj));
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
    tmpl_fail(rt, ERR_UNSUPPORTED, "attr filter: attribute '%s' of a %s", tmpl_cstr(rt, n), pytype(obj));
}

static tv f_batch(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_BATCH, v, a, &b);
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
    tmpl_bound b;
    tmpl_bind(rt, id == TMPL_FILTER_CAPITALIZE ? &SG_CAPITALIZE : id == TMPL_FILTER_LOWER ? &SG_LOWER : &SG_UPPER,
         v, a, &b);
    tv s = soft_str(rt, v);
    str r = id == TMPL_FILTER_CAPITALIZE ? pystr_capitalize(rt->a, tv_s(s))
          : id == TMPL_FILTER_LOWER      ? pystr_lower(rt->a, tv_s(s))
                                         : pystr_upper(rt->a, tv_s(s));
    return mkstr(rt, r, is_safe(s));
}

static tv f_default(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_DEFAULT, v, a, &b);
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_DICTSORT, v, a, &b);
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
    tmpl_sort(rt, keys, vals, n, reverse, tmpl_lt_plain, NULL);
    return list_of(rt, vals, n);
}

static tv f_escape(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_builtin1(rt, "markupsafe._speedups.escape", a);
    return escape_tv(rt, v);
}

static tv f_forceescape(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_FORCEESCAPE, v, a, &b);
    return escape_tv(rt, mkstr(rt, to_s(rt, v), false));
}

static tv f_safe(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_SAFE, v, a, &b);
    return mkstr(rt, to_s(rt, v), true);
}

static tv f_first(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_FIRST, v, a, &b);
    iz n;
    const tv *items = items_of(rt, v, &n);
    if (!n)
        return tv_undef_hint(rt, "UndefinedError", "No first item, sequence was empty.");
    return items[0];
}

static tv f_last(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_LAST, v, a, &b);
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_FLOAT, v, a, &b);
    double d;
    if (tv_float_try(rt, v, &d) == 0)
        return tv_float(d);
    return arg_or(&b, 1, tv_float(0.0));
}

static tv f_format(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_FORMAT, v, a, &b);
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
    return tv_percent(rt, soft_str(rt, v), args);
}

static tv f_groupby(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_GROUPBY, v, a, &b);
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
    tmpl_sort(rt, keys, vals, n, false, tmpl_lt_plain, NULL);
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

static tv f_int(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_INT, v, a, &b);
    tv def = arg_or(&b, 1, tv_int(0));
    tv base = arg_or(&b, 2, tv_int(10));
    switch (v.kind) {
    case TV_STR: {
        tv out;
        /* int(value, base); a base that is no int is a TypeError, a bad one a
         * ValueError: both fall back to int(float(value)). */
        if ((base.kind == TV_INT || base.kind == TV_BOOL) && tv_parse_int(rt, tv_s(v), int_of(base), &out))
            return out;
        double d;
        if (!tv_parse_float(rt, tv_s(v), &d) || isnan(d))
            return def;
        return tv_int_from_double(rt, d);
    }
    case TV_INT: case TV_BIGINT:
        return v;
    case TV_BOOL:
        return tv_int(v.u.b);
    case TV_FLOAT:
        if (isnan(v.u.f))
            return def;
        return tv_int_from_double(rt, v.u.f);
    case TV_UNDEF:
        tv_undef_raise(rt, v);
    default:
        return def;
    }
}

static tv f_items(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_ITEMS, v, a, &b);
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_JOIN, v, a, &b);
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
    tmpl_builtin1(rt, "len", a);
    return tv_int(tv_len(rt, v));
}

static tv f_list(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_LIST, v, a, &b);
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
        const char *msg = tmpl_cstr(rt, undef_msg(rt, name));
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
        const char *msg = tmpl_cstr(rt, undef_msg(rt, name));
        tmpl_raise(rt, "TemplateRuntimeError",
                   "No test named Undefined. (%s; did you forget to quote the callable name?)", msg);
    }
    tmpl_raise(rt, "TemplateRuntimeError", "No test named %s.", repr_cz(rt, name));
}

static tv f_map(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_MAP, v, a, &b);
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
static tv f_select(tmpl_rt *rt, tv v, const tv_args *a, const tmpl_sig *g, bool keep, bool lookup_attr)
{
    tmpl_bound b;
    tmpl_bind(rt, g, v, a, &b);
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
    tmpl_bound b;
    tmpl_bind(rt, is_max ? &SG_MAX : &SG_MIN, v, a, &b);
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


/* random.choice: only the cases without a choice to make. */
static tv f_random(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_RANDOM, v, a, &b);
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_REPLACE, v, a, &b);
    str s = to_s(rt, b.v[1]), old = to_s(rt, b.v[2]), rep = to_s(rt, b.v[3]);
    tv count = arg_or(&b, 4, tv_none());
    i64 c = is_none(count) ? -1 : tv_index(rt, count);
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_REVERSE, v, a, &b);
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_ROUND, v, a, &b);
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
            return tv_int_from_double(rt, tv_round_double(rt, v.u.f, 0));
        }
        if (tv_is_int(v)) {
            if (prec.kind == TV_BIGINT)
                return tv_s(prec).s[0] == '-' ? tv_int(0) : (v.kind == TV_BOOL ? tv_int(v.u.b) : v);
            return tv_round_int(rt, v, tv_index(rt, prec));
        }
        i64 nd;
        if (prec.kind == TV_BIGINT)
            nd = tv_s(prec).s[0] == '-' ? INT64_MIN : INT64_MAX;   /* Python clamps */
        else
            nd = tv_index(rt, prec);
        return tv_float(tv_round_double(rt, v.u.f, nd));
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
        return tv_float(tv_int_to_double(rt, v));
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
    double x = tv_num_to_double(rt, v) * scale;
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_SLICE, v, a, &b);
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_SORT, v, a, &b);
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
    tmpl_sort(rt, keys, vals, n, reverse, tmpl_lt_multi, NULL);
    return list_of(rt, vals, n);
}

static tv f_string(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_builtin1(rt, "markupsafe._speedups.soft_str", a);
    return soft_str(rt, v);
}

static tv f_sum(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_SUM, v, a, &b);
    tv attribute = arg_or(&b, 2, tv_none());
    tv acc = arg_or(&b, 3, tv_int(0));
    iz n;
    const tv *items = items_of(rt, b.v[1], &n);
    if (acc.kind == TV_STR)
        tmpl_raise(rt, "TypeError", "sum() can't sum strings [use ''.join(seq) instead]");
    attrpath p = attr_parts(rt, attribute);
    for (iz i = 0; i < n; i++) {
        tv item = is_none(attribute) ? items[i] : attr_get(rt, &p, items[i], false, NULL);
        acc = tv_sum_add(rt, acc, item);
    }
    return acc;
}

static tv f_tojson(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_TOJSON, v, a, &b);
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
    tmpl_bound b;
    tmpl_bind(rt, &SG_TRIM, v, a, &b);
    tv s = soft_str(rt, v);
    tv chars = arg_or(&b, 1, tv_none());
    if (is_none(chars))
        return mkstr(rt, pystr_strip(tv_s(s), NULL, PYSTR_BOTH), is_safe(s));
    if (chars.kind != TV_STR)
        tmpl_raise(rt, "TypeError", "strip arg must be None or str");
    str cs = is_safe(s) ? tv_s(escape_tv(rt, chars)) : tv_s(chars);
    return mkstr(rt, pystr_strip(tv_s(s), &cs, PYSTR_BOTH), is_safe(s));
}

static tv f_unique(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_UNIQUE, v, a, &b);
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


static tv f_xmlattr(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_XMLATTR, v, a, &b);
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
 *    reverse: reverse iterators) return lists flagged TVF_ITER
 *    (tmpl_value.h): truthy, no len(), no subscripts, used up by one loop,
 *    as Python's are; only their repr ("<generator object ... at 0x...>",
 *    an address) is refused.
 *  - ERR_UNSUPPORTED: random with a choice to make, urlize, striptags with
 *    named character references other than amp/lt/gt/quot/apos/nbsp,
 *    pprint of a str/list/tuple/dict whose repr is wider than 80 columns
 *    or of a dict with keys of mixed types, attr with dunder names, a few
 *    exotic argument types (noted where they are refused).
 *  - sameas compares identities only as far as values built here have
 *    them (see sameas(), tmpl_tests.c).
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
    case TMPL_FILTER_DEFAULT:        return f_default(rt, v, a);
    case TMPL_FILTER_DICTSORT:       return f_dictsort(rt, v, a);
    case TMPL_FILTER_ESCAPE:         return f_escape(rt, v, a);
    case TMPL_FILTER_FIRST:          return f_first(rt, v, a);
    case TMPL_FILTER_FLOAT:          return f_float(rt, v, a);
    case TMPL_FILTER_FORCEESCAPE:    return f_forceescape(rt, v, a);
    case TMPL_FILTER_FORMAT:         return f_format(rt, v, a);
    case TMPL_FILTER_GROUPBY:        return f_groupby(rt, v, a);
    case TMPL_FILTER_INT:            return f_int(rt, v, a);
    case TMPL_FILTER_ITEMS:          return f_items(rt, v, a);
    case TMPL_FILTER_JOIN:           return f_join(rt, v, a);
    case TMPL_FILTER_LAST:           return f_last(rt, v, a);
    case TMPL_FILTER_LENGTH:         return f_length(rt, v, a);
    case TMPL_FILTER_LIST:           return f_list(rt, v, a);
    case TMPL_FILTER_MAP:            return f_map(rt, v, a);
    case TMPL_FILTER_MAX:            return f_minmax(rt, v, a, true);
    case TMPL_FILTER_MIN:            return f_minmax(rt, v, a, false);
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
    case TMPL_FILTER_SUM:            return f_sum(rt, v, a);
    case TMPL_FILTER_TOJSON:         return f_tojson(rt, v, a);
    case TMPL_FILTER_TRIM:           return f_trim(rt, v, a);
    case TMPL_FILTER_UNIQUE:         return f_unique(rt, v, a);
    case TMPL_FILTER_CENTER:
    case TMPL_FILTER_FILESIZEFORMAT:
    case TMPL_FILTER_INDENT:
    case TMPL_FILTER_PPRINT:
    case TMPL_FILTER_STRIPTAGS:
    case TMPL_FILTER_TITLE:
    case TMPL_FILTER_TRUNCATE:
    case TMPL_FILTER_URLENCODE:
    case TMPL_FILTER_URLIZE:
    case TMPL_FILTER_WORDCOUNT:
    case TMPL_FILTER_WORDWRAP:       return tmpl_filter_text(rt, id, v, a);
    case TMPL_FILTER_XMLATTR:        return f_xmlattr(rt, v, a);
    case TMPL_FILTER_UNKNOWN:
    case TMPL_FILTER_COUNT:
        break;
    }
    tmpl_fail(rt, ERR_UNSUPPORTED, "filter id %d", id);
}
