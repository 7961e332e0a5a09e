/* fuzz_events_db.c - libFuzzer target for the SQLite reader's row decoding
 * (io_events_row_line, src/io/events_db.c): the input is the six columns of
 * an events row, each a storage-class byte (SQLite's five), a two-byte
 * length and its bytes (8 for an INTEGER or REAL). Properties: the line
 * never holds a newline; a row refused is a line that starts with "events.db
 * row" and that the event decoder refuses as malformed JSON; a row taken
 * is a line that, when it parses, is an object of exactly the six keys in
 * the writer's order, whose event_type, sample_uuid and conversation_id are
 * the column texts byte for byte, whose timestamp_ns and turn are the
 * integers, and whose data is the column's bytes; and what the decoder
 * makes of it agrees with those columns. */
#include <stdio.h>
#include <stdlib.h>
#include "../src/agg/event.h"
#include "../src/base/arena.h"
#include "../src/base/utf8.h"
#include "../src/io/events.h"
#include "../src/json/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_str(const json *v, str s)
{
    return v->type == JSON_STR && str_eq(v->u.s, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    io_events_col cols[IO_ROW_NCOLS];
    iz at = 0, n = (iz)size;
    for (int k = 0; k < IO_ROW_NCOLS; k++) {
        if (at + 3 > n)
            return 0;
        io_events_col c = {.type = data[at] % 5};
        iz len = data[at + 1] | (iz)data[at + 2] << 8;
        at += 3;
        if (c.type == IO_COL_INT || c.type == IO_COL_REAL)
            len = 8;
        if (at + len > n)
            len = n - at;
        if (c.type == IO_COL_INT) {
            u64 w = 0;
            memcpy(&w, data + at, (size_t)len);
            c.i = (i64)w;
        } else if (c.type == IO_COL_REAL) {
            u64 w = 0;
            memcpy(&w, data + at, (size_t)len);
            memcpy(&c.f, &w, sizeof c.f);
        } else if (c.type != IO_COL_NULL) {
            c.s = str_from(data + at, len);
        }
        at += len;
        cols[k] = c;
    }
    buf out = {0};
    bool taken = io_events_row_line(&out, 1 + (i64)size, cols);
    str line = buf_view(&out);
    if (out.failed || !line.len || memchr(line.s, '\n', (size_t)line.len))
        __builtin_trap();
    arena a;
    arena_init(&a, 0);
    agg_event ev;
    agg_decode_error de;
    int rc = agg_event_decode(&a, line, 0, &ev, &de);
    if (!taken) {
        if (line.len < 14 || memcmp(line.s, "events.db row ", 14) || rc != ERR_SYNTAX)
            __builtin_trap();
    } else {
        static const char *const keys[6] = {"event_type", "timestamp_ns", "sample_uuid", "conversation_id", "turn",
                                             "data"};
        json_opts jo = {.max_depth = 100000};
        err e = {0};
        json *v = json_parse(&a, line, &jo, &e);
        if (v) {
            if (v->type != JSON_OBJ || v->u.obj.n != 6)
                __builtin_trap();   /* data reached outside its place */
            for (int k = 0; k < 6; k++)
                if (!str_eq(v->u.obj.members[k].key, str_cstr(keys[k])))
                    __builtin_trap();
            const json_member *m = v->u.obj.members;
            if (!same_str(&m[0].val, cols[IO_ROW_TOPIC].s) || !same_str(&m[2].val, cols[IO_ROW_UUID].s) ||
                !same_str(&m[3].val, cols[IO_ROW_CONV].s))
                __builtin_trap();
            if (m[1].val.type != JSON_INT || m[1].val.big || m[1].val.u.i != cols[IO_ROW_TS].i)
                __builtin_trap();
            if (cols[IO_ROW_TURN].type == IO_COL_NULL ? m[4].val.type != JSON_NULL
                                                      : m[4].val.type != JSON_INT || m[4].val.u.i != cols[IO_ROW_TURN].i)
                __builtin_trap();
        }
        if (rc == ERR_OK) {
            /* what the decoder took is what the columns hold */
            if (!str_eq(str_cstr(agg_ev_topic(ev.type)), cols[IO_ROW_TOPIC].s) ||
                !str_eq(ev.sample_uuid, cols[IO_ROW_UUID].s) || !str_eq(ev.conversation_id, cols[IO_ROW_CONV].s) ||
                ev.timestamp_ns != cols[IO_ROW_TS].i || ev.ts_from_clock ||
                ev.has_turn != (cols[IO_ROW_TURN].type == IO_COL_INT) ||
                (ev.has_turn && ev.turn != cols[IO_ROW_TURN].i) || ev.has_finish_reason || ev.has_worker_id)
                __builtin_trap();
        }
    }
    arena_fini(&a);
    buf_free(&out);
    return 0;
}
