/* fuzz_agg_event.c - libFuzzer target for the event decoder
 * (agg_event_decode, src/agg/event.c): the input is one line. Properties:
 * no crash and no read outside the line (ASan); the result is one of the
 * codes event.h lists; a refusal names a class and a message cut on a
 * character boundary, with its offset inside the line; an acceptance has a
 * known type, a payload tree exactly when it has a payload kind, a
 * data_text that json_parse reads to the same payload with its tag first,
 * and strings that are valid UTF-8; decoding is deterministic, a trailing
 * CR LF or leading whitespace changes no acceptance, and the two readers
 * (json_parse's tree first, and the byte reader alone) agree on every
 * field and every message. */
#include <stdio.h>
#include <stdlib.h>
#include "../src/agg/event.h"
#include "../src/agg/event_py.h"
#include "../src/agg/inputs.h"
#include "../src/base/arena.h"
#include "../src/base/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const tags[] = {"", "PromptData", "TextModelOutput", "ErrorData"};

static void check_accepted(arena *a, const agg_event *ev)
{
    if (ev->type < 0 || ev->type >= AGG_EV_COUNT || ev->data_kind < AGG_DATA_NONE || ev->data_kind > AGG_DATA_ERROR)
        __builtin_trap();
    if ((ev->data != NULL) != (ev->data_kind != AGG_DATA_NONE) || (ev->data_text.len > 0) != (ev->data != NULL))
        __builtin_trap();
    str ss[3] = {ev->sample_uuid, ev->conversation_id, ev->finish_reason};
    for (int k = 0; k < 3; k++)
        if (utf8_invalid_at(ss[k]) >= 0)
            __builtin_trap();
    if (!ev->data)
        return;
    const json *d = ev->data;
    if (d->type != JSON_ARR || d->u.arr.n < 1 || d->u.arr.items[0].type != JSON_STR ||
        !str_eq(d->u.arr.items[0].u.s, str_cstr(tags[ev->data_kind])))
        __builtin_trap();
    err e = {0};
    json_opts jo = {.max_depth = AGG_EVENT_MAX_DEPTH + 8};
    json *again = json_parse(a, ev->data_text, &jo, &e);
    if (!again || again->type != JSON_ARR || again->u.arr.n != d->u.arr.n)
        __builtin_trap();
    /* the consumers' reading of the payload must not crash either */
    shapes_item it;
    for (int m = 0; m < 3; m++) {
        static const int metrics[3] = {AGG_ISL, AGG_OSL, AGG_TPOT};
        e = (err){0};
        agg_input(a, d, SHAPES_AUTO, metrics[m], &it, &e);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena a;
    arena_init(&a, (iz)1 << 30);
    str line = str_from(data, (iz)size);
    agg_event ev, ev2;
    agg_decode_error de, de2;
    int rc = agg_event_decode(&a, line, 7, &ev, &de);
    if (rc != ERR_OK && rc != ERR_SYNTAX && rc != ERR_UTF8 && rc != ERR_INVALID && rc != ERR_LIMIT &&
        rc != ERR_UNSUPPORTED && rc != ERR_NOMEM)
        __builtin_trap();
    if (rc == ERR_OK) {
        check_accepted(&a, &ev);
    } else {
        if (!de.cls[0] || de.msg_len < 0 || de.msg_len > (iz)sizeof de.msg - 1 || de.msg_len > de.full_len ||
            de.off < 0 || de.off > line.len || de.msg[de.msg_len] != 0)
            __builtin_trap();
        if (utf8_invalid_at(str_from(de.msg, de.msg_len)) >= 0)
            __builtin_trap();   /* Python's messages are str, and cut between characters */
    }
    /* deterministic */
    int rc2 = agg_event_decode(&a, line, 7, &ev2, &de2);
    if (rc2 != rc || (rc == ERR_OK && (ev2.type != ev.type || ev2.timestamp_ns != ev.timestamp_ns ||
                                       !str_eq(ev2.data_text, ev.data_text))) ||
        (rc != ERR_OK && (strcmp(de.cls, de2.cls) || de.msg_len != de2.msg_len || memcmp(de.msg, de2.msg, (size_t)de.msg_len))))
        __builtin_trap();
    /* the fast path for canonical lines gives what the general reader gives */
    agg_event ev3;
    agg_decode_error de3;
    int rc3 = agg_event_decode_general(&a, line, 7, &ev3, &de3);
    if (rc3 != rc || (rc == ERR_OK && !agg_event_same(&ev, &ev3)) ||
        (rc != ERR_OK && (strcmp(de.cls, de3.cls) || de.msg_len != de3.msg_len)))
        __builtin_trap();
    /* the payload left for later: the same record, and its tree when parsed */
    agg_event ev5;
    agg_decode_error de5;
    int rc5 = agg_event_decode_deferred(&a, line, 7, &ev5, &de5);
    if (rc5 != rc || (rc == ERR_OK && (!agg_event_same(&ev5, &ev3) ||
                                       (agg_event_data(&a, &ev5, NULL) == NULL) != (ev3.data == NULL))))
        __builtin_trap();
    /* the byte reader alone: the same outcome, field by field */
    int rc4 = agg_event_decode_bytes(&a, line, 7, &ev2, &de2);
    if (rc4 != rc)
        __builtin_trap();
    if (rc == ERR_OK) {
        if (ev2.type != ev.type || ev2.timestamp_ns != ev.timestamp_ns || ev2.ts_from_clock != ev.ts_from_clock ||
            !str_eq(ev2.sample_uuid, ev.sample_uuid) || !str_eq(ev2.conversation_id, ev.conversation_id) ||
            ev2.has_turn != ev.has_turn || ev2.turn != ev.turn || ev2.has_finish_reason != ev.has_finish_reason ||
            !str_eq(ev2.finish_reason, ev.finish_reason) || ev2.has_worker_id != ev.has_worker_id ||
            ev2.worker_id != ev.worker_id || ev2.data_kind != ev.data_kind || !str_eq(ev2.data_text, ev.data_text) ||
            (ev2.wire_error == NULL) != (ev.wire_error == NULL) ||
            (ev.wire_error && strcmp(ev.wire_error, ev2.wire_error)) ||
            (ev.data && (ev2.data->u.arr.n != ev.data->u.arr.n)))
            __builtin_trap();
    } else if (strcmp(de.cls, de2.cls) || de.full_len != de2.full_len || de.msg_len != de2.msg_len ||
               memcmp(de.msg, de2.msg, (size_t)de.msg_len)) {
        __builtin_trap();
    }
    /* the reader strips CR LF; JSON takes whitespace first */
    if (rc == ERR_OK && size < 1 << 16) {
        u8 *v = malloc(size + 3);
        v[0] = ' ';
        memcpy(v + 1, data, size);
        v[size + 1] = '\r';
        v[size + 2] = '\n';
        if (agg_event_decode(&a, str_from(v, (iz)size + 3), 7, &ev2, &de2) != ERR_OK || ev2.type != ev.type)
            __builtin_trap();
        free(v);
    }
    arena_fini(&a);
    return 0;
}
