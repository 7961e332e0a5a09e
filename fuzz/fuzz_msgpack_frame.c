/* fuzz_msgpack_frame.c - libFuzzer target for upstream's frames and their
 * msgpack records (src/io/msgpack_event.c): the input is one ZeroMQ frame.
 * Properties: no crash, no read outside the frame and no allocation past
 * a small multiple of its size (ASan, -rss_limit_mb); the splitter hands
 * over exactly the frame's payload for a record frame, only non-empty
 * payloads inside the frame for a batch, nothing for a short frame or a
 * bad batch; each payload (and the frame itself, taken as one) decodes to
 * one of the codes io_mp_event_decode lists, a refusal names its class,
 * an acceptance has a known type and valid UTF-8 strings; the JSON text
 * of an accepted payload parses, and the JSONL decoder gives the very same
 * record from it; decoding is deterministic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../src/agg/event.h"
#include "../src/base/arena.h"
#include "../src/base/utf8.h"
#include "../src/io/msgpack_event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct frame_ctx {
    const u8 *beg, *end;
    int n;
    bool empty;
} frame_ctx;

/* kept from input to input, as tally aggregate keeps it from record to record */
static io_mp_decoder dec;

static void payload(str p)
{
    arena a;
    arena_init(&a, 0);
    agg_event ev, ev2;
    agg_decode_error de, de2;
    int rc = io_mp_event_decode(&dec, &a, p, 9, &ev, &de);
    int rc2 = io_mp_event_decode(NULL, &a, p, 9, &ev2, &de2);
    if (rc != rc2)
        __builtin_trap();
    switch (rc) {
    case ERR_OK: case ERR_SYNTAX: case ERR_UTF8: case ERR_INVALID: case ERR_LIMIT: case ERR_UNSUPPORTED: case ERR_NOMEM:
        break;
    default:
        __builtin_trap();
    }
    if (rc != ERR_OK) {
        if (!de.cls[0] || strcmp(de.cls, de2.cls) || de.msg_len != de2.msg_len)
            __builtin_trap();
    } else {
        if (ev.type < 0 || ev.type >= AGG_EV_COUNT || !agg_event_same(&ev, &ev2))
            __builtin_trap();
        str ss[3] = {ev.sample_uuid, ev.conversation_id, ev.finish_reason};
        for (int k = 0; k < 3; k++)
            if (utf8_invalid_at(ss[k]) >= 0)
                __builtin_trap();
        buf text = {0};
        agg_decode_error de3;
        if (io_mp_to_json(p, &text, &de3) != ERR_OK)
            __builtin_trap();
        agg_event ev3;
        if (agg_event_decode(&a, buf_view(&text), 9, &ev3, NULL) != ERR_OK || !agg_event_same(&ev, &ev3))
            __builtin_trap();
        buf_free(&text);
    }
    arena_fini(&a);
}

static void item(void *ctx, str p)
{
    frame_ctx *c = ctx;
    if (p.s < c->beg || p.s + p.len > c->end)
        __builtin_trap();
    c->empty |= p.len == 0;
    c->n++;
    payload(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    str f = str_from(data, (iz)size);
    frame_ctx c = {data, data + size, 0, false};
    char why[256];
    io_frame_kind k = io_frame_split(f, item, &c, why, (iz)sizeof why);
    switch (k) {
    case IO_FRAME_RECORD:
        if (c.n != 1 || size <= IO_TOPIC_SIZE)
            __builtin_trap();
        break;
    case IO_FRAME_BATCH:
        if (c.empty)
            __builtin_trap();
        break;
    case IO_FRAME_SHORT:
    case IO_FRAME_BAD_BATCH:
        if (c.n != 0 || (k == IO_FRAME_BAD_BATCH && !why[0]))
            __builtin_trap();
        break;
    default:
        __builtin_trap();
    }
    /* the frame as one payload: msgpack-c on arbitrary bytes */
    payload(f);
    return 0;
}
