/* fuzz_events_db.c - libFuzzer target for the SQLite reader's row decoding
 * (io_events_row_line, src/io/events.c): the input is six column values,
 * each a type byte (SQLite's five types) and a length byte, then its bytes.
 * Properties: the line is written whatever the values; when every text and
 * blob is valid UTF-8, no column is NULL and the data blob is a JSON value,
 * the line is a JSON object whose event_type, sample_uuid and
 * conversation_id are the column texts, byte for byte (the escapes round
 * trip) and whose timestamp_ns and turn are the integers or the strings
 * the rule says. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include "../src/base/arena.h"
#include "../src/base/utf8.h"
#include "../src/io/events.h"
#include "../src/json/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool valid_utf8(str s)
{
    for (iz i = 0; i < s.len;) {
        int n = utf8_valid_seq(s.s + i, s.len - i);
        if (n <= 0)
            return false;
        i += n;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int kinds[5] = {SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL};
    int types[6];
    str vals[6];
    i64 ints[6] = {0};
    iz at = 0, n = (iz)size;
    for (int k = 0; k < 6; k++) {
        if (at + 2 > n)
            return 0;
        types[k] = kinds[data[at] % 5];
        iz len = data[at + 1];
        at += 2;
        if (at + len > n)
            len = n - at;
        vals[k] = str_from(data + at, len);
        at += len;
        if (types[k] == SQLITE_INTEGER) {
            for (iz i = 0; i < len && i < 8; i++)
                ints[k] = (i64)(((u64)ints[k] << 8) | data[at - len + i]);
        }
    }
    buf out = {0};
    io_events_row_line(&out, types, vals, ints);
    if (out.failed)
        __builtin_trap();
    bool clean = true;
    for (int k = 0; k < 6; k++)
        clean = clean && types[k] != SQLITE_NULL && valid_utf8(vals[k]);
    arena a;
    arena_init(&a, 0);
    err e = {0};
    if (clean && json_parse(&a, vals[5], NULL, &e)) {
        json_opts deeper = {.max_depth = 2 * JSON_MAX_DEPTH};   /* the line nests the data once more */
        json *v = json_parse(&a, buf_view(&out), &deeper, &e);
        if (!v || v->type != JSON_OBJ)
            __builtin_trap();
        static const char *const keys[4] = {"sample_uuid", "event_type", NULL, "conversation_id"};
        for (int k = 0; k < 4; k++) {
            if (!keys[k])
                continue;
            const json *s = json_get(v, str_cstr(keys[k]));
            if (!s || s->type != JSON_STR || !str_eq(s->u.s, vals[k]))
                __builtin_trap();
        }
        for (int k = 2; k <= 4; k += 2) {
            const json *s = json_get(v, str_cstr(k == 2 ? "timestamp_ns" : "turn"));
            if (!s)
                __builtin_trap();
            if (types[k] == SQLITE_INTEGER ? !(s->type == JSON_INT && s->u.i == ints[k])
                                           : !(s->type == JSON_STR && str_eq(s->u.s, vals[k])))
                __builtin_trap();
        }
    }
    arena_fini(&a);
    buf_free(&out);
    return 0;
}
