/* msgpack_event.h - upstream's ZeroMQ frames and their msgpack payloads
 * (../shared/docs/upstream-spec.md §2.5, §3.2, §9.1): a frame split into
 * its record payloads (the 40-byte topic prefix, batches of bin items), a
 * msgpack EventRecord decoded by the one event decoder (agg/event.h), and
 * the MetricsSnapshot encoded as upstream's msgspec encodes it. No socket
 * here: src/io/aggregate.c moves the bytes.
 * Depends on agg/, json/ and base/; msgpack-c. Pure and thread-safe. */
#ifndef TALLY_IO_MSGPACK_EVENT_H
#define TALLY_IO_MSGPACK_EVENT_H

#include "../agg/event.h"
#include "../agg/registry.h"
#include "../base/buf.h"

enum {
    IO_TOPIC_SIZE = 40,      /* TOPIC_FRAME_SIZE: the NUL-padded topic before a payload */
    /* Nesting msgpack-c's unpacker takes (MSGPACK_EMBED_STACK_SIZE): a
     * record nested deeper is refused (msgspec takes up to about 1000
     * levels; no producer nests past ten). */
    IO_MP_MAX_DEPTH = 32,
};

/* What a frame is. */
typedef enum {
    IO_FRAME_RECORD,      /* topic || payload: one record */
    IO_FRAME_BATCH,       /* "batch" topic || msgpack list of bin items */
    IO_FRAME_SHORT,       /* 40 bytes or fewer, not a batch: dropped (upstream drops it) */
    IO_FRAME_BAD_BATCH,   /* a batch whose list does not decode: dropped whole (upstream logs and drops it) */
} io_frame_kind;

/* Splits one frame as upstream's subscriber does (§3.4): calls
 * item(ctx, payload) for each record payload, in order (the payloads point
 * into `frame`); a batch's empty items are skipped, as upstream skips
 * them. A batch is checked whole before any item is handed over, so a
 * bad one hands over none: then `why` (at least 128 bytes, may be NULL)
 * says what is wrong and where. Returns the frame's kind. */
io_frame_kind io_frame_split(str frame, void (*item)(void *ctx, str payload), void *ctx, char *why, iz why_cap);

/* What io_mp_event_decode keeps from one record to the next (its text
 * buffer and msgpack-c's zone), so that a stream of records allocates
 * nothing once warm. Zero-initialized; io_mp_decoder_free releases it. */
typedef struct io_mp_decoder {
    buf   text;
    void *zone;    /* msgpack_zone */
} io_mp_decoder;

void io_mp_decoder_free(io_mp_decoder *d);

/* Decodes one msgpack EventRecord payload into *ev, as upstream's
 * EventRecordCodec.decode (msgspec.msgpack.Decoder(type=EventRecord)) does:
 * the msgpack value becomes its JSON text (map order, int vs float,
 * uint64 kept) in `a`, which agg_event_decode_deferred then judges with
 * the very rules of a JSONL line (the one decoder of records; a payload it
 * leaves for later is made by agg_event_data). What JSON cannot carry is
 * refused here, with de->cls naming why: bad msgpack or bytes after the
 * value ("DecodeError", as msgspec), invalid UTF-8 in a string
 * ("UnicodeDecodeError"), and, where upstream would go on (a tally limit,
 * "tally.Unsupported"): a bin or ext value, a map key that is not a
 * string, a float that is not finite, nesting past IO_MP_MAX_DEPTH.
 * `d` may be NULL (a one-off). Returns agg_event_decode's codes; ev's
 * strings live in `a` (and in `payload`). */
int io_mp_event_decode(io_mp_decoder *d, arena *a, str payload, i64 now_ns, agg_event *ev, agg_decode_error *de);

/* The JSON text of a msgpack value, as io_mp_event_decode makes it
 * (appended to out). ERR_OK, or an error with `de` filled as above. */
int io_mp_to_json(str payload, buf *out, agg_decode_error *de);

/* The MetricsSnapshot's msgpack payload (§9.1) of `snap`, as msgspec
 * encodes MetricsSnapshot: array-like structs, the counters then the
 * series, smallest int forms, floats as float64 (NaN and infinities as
 * they are: the dict form, not the wire, turns them into null), the
 * early-stopping map or nil. Appended to out (out->failed when out of
 * memory). */
void io_mp_snapshot(const agg_snapshot *snap, buf *out);

/* msgspec's encoding of an int (the readiness message): its smallest
 * msgpack form, appended to out. */
void io_mp_int(buf *out, i64 v);

/* The 40-byte topic of snapshot frames ("MET" and NUL bytes). */
extern const u8 io_snapshot_topic[IO_TOPIC_SIZE];

#endif
