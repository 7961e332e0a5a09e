/* event_py.h - the Python side of decoding an event line (event.c):
 * upstream's topic hook (core/record.py EventType.decode_hook and
 * from_topic) with the messages Python gives its exceptions, str() of a
 * JSON value as Python prints the object msgspec made of it, and
 * CPython's UnicodeDecodeError for UTF-8 it cannot decode. Internal to
 * src/agg/. Depends on json/, tmpl/tmpl_pystr.h (repr of a str) and base/. */
#ifndef TALLY_AGG_EVENT_PY_H
#define TALLY_AGG_EVENT_PY_H

#include "../base/buf.h"
#include "../json/json.h"

enum {
    AGG_PY_OK,
    AGG_PY_VALUE_ERROR,        /* ValueError of from_topic (msgspec wraps it in a ValidationError) */
    AGG_PY_NOT_IMPLEMENTED,    /* NotImplementedError: the value is not a str */
    AGG_PY_RECURSION,          /* RecursionError: str() of the value went too deep */
};

/* EventType.decode_hook(EventType, value) for the value msgspec decoded
 * (as Any) from event_type: `is_str` with its text `s`, or else the JSON
 * text of that value (valid for json_parse: the reader took it). AGG_PY_OK
 * with *type an agg_event_type, or an AGG_PY_* code with the exception's
 * message appended to msg (without msgspec's path suffix). */
int agg_py_topic_hook(arena *a, bool is_str, str s, str json_text, int *type, buf *msg);

/* str(x) of the Python object msgspec decodes from JSON value v (dict
 * keys once each, at their first place, with their last value), appended
 * to out. False when Python's recursion limit would stop it
 * (AGG_EVENT_REPR_DEPTH). */
bool agg_py_str(arena *a, const json *v, buf *out);

/* The message of the UnicodeDecodeError that bytes.decode('utf-8') raises
 * for s (which must not be valid UTF-8), appended to out:
 * "'utf-8' codec can't decode byte 0xff in position 3: invalid start byte". */
void agg_py_utf8_error(str s, buf *out);

/* agg_event_decode on the byte reader alone (neither the canonical fast
 * path nor json_parse's tree first): the same results, for the tests and
 * fuzz targets that check so. */
struct agg_event;
struct agg_decode_error;
int agg_event_decode_bytes(arena *a, str line, i64 now_ns, struct agg_event *ev, struct agg_decode_error *de);

#endif
