/* json_util.c - lookups on parsed trees and the compact JSON writer. */
#include "json.h"
#include "pyfmt.h"

const json *json_get(const json *obj, str key)
{
    if (!obj || obj->type != JSON_OBJ)
        return NULL;
    /* Python's dict keeps the last value of a duplicated key. */
    for (iz k = obj->u.obj.n - 1; k >= 0; k--)
        if (str_eq(obj->u.obj.members[k].key, key))
            return &obj->u.obj.members[k].val;
    return NULL;
}

const json *json_get_type(const json *obj, str key, json_type t)
{
    const json *v = json_get(obj, key);
    return v && v->type == t ? v : NULL;
}

/* Prefetches the lines of [lo, hi), at most max bytes from lo on. */
static void prefetch_range(uintptr_t lo, uintptr_t hi, iz max)
{
    if (hi - lo > (uintptr_t)max)
        hi = lo + (uintptr_t)max;
    for (uintptr_t q = lo & ~(uintptr_t)63; q < hi; q += 64)
        PREFETCH((const void *)q);
}

void json_prefetch_tree(const json *v, iz max)
{
    uintptr_t beg, end, tree;
    if (v->type == JSON_ARR && v->u.arr.n) {
        beg = (uintptr_t)v->u.arr.items;
        end = (uintptr_t)(v->u.arr.items + v->u.arr.n);
        tree = v->u.arr.tree;
    } else if (v->type == JSON_OBJ && v->u.obj.n) {
        beg = (uintptr_t)v->u.obj.members;
        end = (uintptr_t)(v->u.obj.members + v->u.obj.n);
        tree = v->u.obj.tree;
    } else {
        return;
    }
    /* addresses, not pointers: nothing here is read */
    prefetch_range(beg, end, max);
    prefetch_range(beg - tree, beg, max);
}

bool json_truthy(const json *v)
{
    if (!v)
        return false;
    switch ((json_type)v->type) {
    case JSON_NULL:  return false;
    case JSON_BOOL:  return v->u.b;
    case JSON_INT:   return v->big || v->u.i != 0;
    case JSON_FLOAT: return v->u.f != 0.0;   /* NaN is true, as in Python */
    case JSON_STR:   return v->u.s.len > 0;
    case JSON_ARR:   return v->u.arr.n > 0;
    case JSON_OBJ:   return v->u.obj.n > 0;
    }
    return false;
}

const char *json_pytype(const json *v)
{
    switch ((json_type)v->type) {
    case JSON_NULL:  return "NoneType";
    case JSON_BOOL:  return "bool";
    case JSON_INT:   return "int";
    case JSON_FLOAT: return "float";
    case JSON_STR:   return "str";
    case JSON_ARR:   return "list";
    case JSON_OBJ:   return "dict";
    }
    return "object";
}

const char *json_type_name(json_type t)
{
    switch (t) {
    case JSON_NULL:  return "null";
    case JSON_BOOL:  return "boolean";
    case JSON_INT:   return "integer";
    case JSON_FLOAT: return "number";
    case JSON_STR:   return "string";
    case JSON_ARR:   return "array";
    case JSON_OBJ:   return "object";
    }
    return "?";
}

void json_write_str(buf *b, str s)
{
    pyfmt_json_str(b, s, false);
}

void json_write(buf *b, const json *v)
{
    switch ((json_type)v->type) {
    case JSON_NULL:
        buf_put(b, "null", 4);
        return;
    case JSON_BOOL:
        if (v->u.b)
            buf_put(b, "true", 4);
        else
            buf_put(b, "false", 5);
        return;
    case JSON_INT:
    case JSON_FLOAT:
        if (v->u.num.len)
            buf_str(b, v->u.num);
        else if (v->type == JSON_INT)
            buf_i64(b, v->u.i);
        else
            buf_printf(b, "%.17g", v->u.f);
        return;
    case JSON_STR:
        json_write_str(b, v->u.s);
        return;
    case JSON_ARR:
        buf_byte(b, '[');
        for (iz k = 0; k < v->u.arr.n; k++) {
            if (k)
                buf_byte(b, ',');
            json_write(b, &v->u.arr.items[k]);
        }
        buf_byte(b, ']');
        return;
    case JSON_OBJ:
        buf_byte(b, '{');
        for (iz k = 0; k < v->u.obj.n; k++) {
            if (k)
                buf_byte(b, ',');
            json_write_str(b, v->u.obj.members[k].key);
            buf_byte(b, ':');
            json_write(b, &v->u.obj.members[k].val);
        }
        buf_byte(b, '}');
        return;
    }
}
