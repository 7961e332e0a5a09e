/* tmpl_json.c - json.dumps of a value as transformers' tojson does it
 * (tv_write_json, tmpl_value.h): Python's separators, indents, key
 * conversions and errors; a list or dict made from the context and
 * unchanged is written straight from its JSON tree. */
#include "../json/pyfmt.h"
#include "tmpl_lib.h"

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
        tmpl_sort(w->rt, order, idx, n, false, tmpl_lt_plain, NULL);
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

