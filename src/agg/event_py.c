/* event_py.c - upstream's topic hook and Python's messages for the event
 * decoder (event_py.h). */
#include "event_py.h"
#include "event.h"
#include "../base/utf8.h"
#include "../json/pyfmt.h"
#include "../tmpl/tmpl_pystr.h"

/* ---- the topic hook (core/record.py) ---------------------------------------- */

/* The enums' categories and values, in agg_event_type order. */
static const struct {
    const char *category, *cls;
    int first;
    const char *values[5];
} cats[3] = {
    {"session", "SessionEventType", AGG_EV_SESSION_STARTED,
     {"started", "ended", "stop_loadgen", "start_performance_tracking", "stop_performance_tracking"}},
    {"error", "ErrorEventType", AGG_EV_ERROR_GENERIC, {"generic", "loadgen", "session", "client", NULL}},
    {"sample", "SampleEventType", AGG_EV_SAMPLE_ISSUED, {"issued", "complete", "recv_first", "recv_non_first", NULL}},
};

int agg_py_topic_hook(arena *a, bool is_str, str s, str json_text, int *type, buf *msg)
{
    if (!is_str) {
        /* raise NotImplementedError(f"Decoding topic '{obj}' to type {type} is not supported") */
        err e = {0};
        json_opts jo = {.max_depth = AGG_EVENT_MAX_DEPTH + 8};
        json *v = json_parse(a, json_text, &jo, &e);
        iz mark = msg->len;
        buf_cstr(msg, "Decoding topic '");
        if (!v || !agg_py_str(a, v, msg)) {
            msg->len = mark;
            buf_cstr(msg, "maximum recursion depth exceeded while getting the repr of an object");
            return AGG_PY_RECURSION;
        }
        buf_cstr(msg, "' to type <enum 'EventType'> is not supported");
        return AGG_PY_NOT_IMPLEMENTED;
    }
    /* EventTypeMeta.from_topic: topic.split("."), exactly two parts */
    iz dots = 0, dot = -1;
    for (iz k = 0; k < s.len; k++)
        if (s.s[k] == '.') {
            dots++;
            dot = k;
        }
    if (dots != 1) {
        buf_cstr(msg, "Invalid topic '");
        buf_str(msg, s);
        buf_byte(msg, '\'');
        return AGG_PY_VALUE_ERROR;
    }
    str category = str_cut(s, 0, dot), value = str_cut(s, dot + 1, s.len);
    for (int c = 0; c < countof(cats); c++) {
        if (!str_eq(category, str_cstr(cats[c].category)))
            continue;
        for (int k = 0; k < 5 && cats[c].values[k]; k++)
            if (str_eq(value, str_cstr(cats[c].values[k]))) {
                *type = cats[c].first + k;
                return AGG_PY_OK;
            }
        /* Enum: ValueError("%r is not a valid %s" % (value, cls.__qualname__)) */
        buf_str(msg, pystr_repr(a, value));
        buf_cstr(msg, " is not a valid ");
        buf_cstr(msg, cats[c].cls);
        return AGG_PY_VALUE_ERROR;
    }
    buf_cstr(msg, "Unknown category '");
    buf_str(msg, category);
    buf_byte(msg, '\'');
    return AGG_PY_VALUE_ERROR;
}

/* ---- str() and repr() --------------------------------------------------------- */

/* How deep repr goes into v: each value it calls repr on is one level
 * (PyObject_Repr enters one), scalars and empty containers included. */
static int repr_depth(const json *v, int limit)
{
    if (limit <= 0)
        return 1;
    int d = 0;
    if (v->type == JSON_ARR) {
        for (iz k = 0; k < v->u.arr.n && d < limit; k++) {
            int c = repr_depth(&v->u.arr.items[k], limit - 1);
            d = MAX(d, c);
        }
    } else if (v->type == JSON_OBJ) {
        if (v->u.obj.n)
            d = 1;   /* the keys, strings */
        for (iz k = 0; k < v->u.obj.n && d < limit; k++) {
            int c = repr_depth(&v->u.obj.members[k].val, limit - 1);
            d = MAX(d, c);
        }
    }
    return d + 1;
}

static void repr_value(arena *a, const json *v, buf *out);

static void repr_str(arena *a, str s, buf *out)
{
    buf_str(out, pystr_repr(a, s));
}

static void repr_value(arena *a, const json *v, buf *out)
{
    switch ((json_type)v->type) {
    case JSON_NULL:
        buf_cstr(out, "None");
        break;
    case JSON_BOOL:
        buf_cstr(out, v->u.b ? "True" : "False");
        break;
    case JSON_INT:
        if (v->big)
            pyfmt_int_text(out, v->u.num);
        else
            pyfmt_int(out, v->u.i);
        break;
    case JSON_FLOAT:
        pyfmt_float_repr(out, v->u.f);
        break;
    case JSON_STR:
        repr_str(a, v->u.s, out);
        break;
    case JSON_ARR:
        buf_byte(out, '[');
        for (iz k = 0; k < v->u.arr.n; k++) {
            if (k)
                buf_cstr(out, ", ");
            repr_value(a, &v->u.arr.items[k], out);
        }
        buf_byte(out, ']');
        break;
    case JSON_OBJ: {
        /* a dict: a repeated key stays at its first place with its last value */
        buf_byte(out, '{');
        bool first = true;
        for (iz k = 0; k < v->u.obj.n; k++) {
            const json_member *m = &v->u.obj.members[k];
            bool seen = false;
            for (iz j = 0; j < k && !seen; j++)
                seen = str_eq(v->u.obj.members[j].key, m->key);
            if (seen)
                continue;
            const json *last = &m->val;
            for (iz j = k + 1; j < v->u.obj.n; j++)
                if (str_eq(v->u.obj.members[j].key, m->key))
                    last = &v->u.obj.members[j].val;
            if (!first)
                buf_cstr(out, ", ");
            first = false;
            repr_str(a, m->key, out);
            buf_cstr(out, ": ");
            repr_value(a, last, out);
        }
        buf_byte(out, '}');
        break;
    }
    }
}

bool agg_py_str(arena *a, const json *v, buf *out)
{
    if (repr_depth(v, AGG_EVENT_REPR_DEPTH + 1) > AGG_EVENT_REPR_DEPTH)
        return false;
    if (v->type == JSON_STR)
        buf_str(out, v->u.s);   /* str() of a str is itself */
    else
        repr_value(a, v, out);
    return true;
}

/* ---- UnicodeDecodeError ------------------------------------------------------ */

static inline bool cont(u8 c) { return (c & 0xc0) == 0x80; }

void agg_py_utf8_error(str s, buf *out)
{
    /* CPython Objects/stringlib/codecs.h utf8_decode and the error
     * ranges of unicode_decode_utf8 (final decoding) */
    const u8 *p = s.s, *end = s.s + s.len;
    const char *why = NULL;
    iz start = 0, stop = 0;
    while (p < end) {
        u8 c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        iz left = end - p;
        int bad = 0;   /* 0 fine, 1 invalid start, 2..4 invalid continuation at that length, 5 end of data */
        int len = 0;
        if (c < 0xc2) {
            bad = 1;
        } else if (c < 0xe0) {
            if (left < 2)
                bad = 5;
            else if (!cont(p[1]))
                bad = 2;
            else
                len = 2;
        } else if (c < 0xf0) {
            if (left < 3) {
                if (left < 2)
                    bad = 5;
                else if (!cont(p[1]) || (p[1] < 0xa0 ? c == 0xe0 : c == 0xed))
                    bad = 2;
                else
                    bad = 5;
            } else if (!cont(p[1]) || (c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)) {
                bad = 2;
            } else if (!cont(p[2])) {
                bad = 3;
            } else {
                len = 3;
            }
        } else if (c < 0xf5) {
            if (left < 4) {
                if (left < 2)
                    bad = 5;
                else if (!cont(p[1]) || (p[1] < 0x90 ? c == 0xf0 : c == 0xf4))
                    bad = 2;
                else if (left < 3)
                    bad = 5;
                else if (!cont(p[2]))
                    bad = 3;
                else
                    bad = 5;
            } else if (!cont(p[1]) || (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)) {
                bad = 2;
            } else if (!cont(p[2])) {
                bad = 3;
            } else if (!cont(p[3])) {
                bad = 4;
            } else {
                len = 4;
            }
        } else {
            bad = 1;
        }
        if (!bad) {
            p += len;
            continue;
        }
        start = p - s.s;
        if (bad == 1) {
            why = "invalid start byte";
            stop = start + 1;
        } else if (bad == 5) {
            why = "unexpected end of data";
            stop = s.len;
        } else {
            why = "invalid continuation byte";
            stop = start + bad - 1;
        }
        break;
    }
    if (!why) {   /* valid after all: not a call this file expects */
        buf_cstr(out, "'utf-8' codec can't decode: (valid)");
        return;
    }
    if (stop - start == 1)
        buf_printf(out, "'utf-8' codec can't decode byte 0x%02x in position %td: %s", s.s[start], start, why);
    else
        buf_printf(out, "'utf-8' codec can't decode bytes in position %td-%td: %s", start, stop - 1, why);
}
