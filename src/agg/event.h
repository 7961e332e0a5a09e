/* event.h - one upstream event record (docs/upstream-aggregator.md §1-§3):
 * the event types, and the decoder of one events.jsonl line, which takes
 * exactly the lines upstream's reader takes and refuses the others with the
 * exception upstream raises. No I/O: src/io/events.h reads the lines.
 * Depends on json/ and base/. */
#ifndef TALLY_AGG_EVENT_H
#define TALLY_AGG_EVENT_H

#include "../base/arena.h"
#include "../base/err.h"
#include "../json/json.h"

/* Every event type of upstream's core/record.py, by topic: session.*
 * first, then error.*, then sample.* (agg_ev_is_session/_error/_sample
 * test the ranges). */
typedef enum {
    AGG_EV_SESSION_STARTED,           /* session.started */
    AGG_EV_SESSION_ENDED,             /* session.ended */
    AGG_EV_SESSION_STOP_LOADGEN,      /* session.stop_loadgen */
    AGG_EV_SESSION_START_TRACKING,    /* session.start_performance_tracking */
    AGG_EV_SESSION_STOP_TRACKING,     /* session.stop_performance_tracking */
    AGG_EV_ERROR_GENERIC,             /* error.generic */
    AGG_EV_ERROR_LOADGEN,             /* error.loadgen */
    AGG_EV_ERROR_SESSION,             /* error.session */
    AGG_EV_ERROR_CLIENT,              /* error.client */
    AGG_EV_SAMPLE_ISSUED,             /* sample.issued */
    AGG_EV_SAMPLE_COMPLETE,           /* sample.complete */
    AGG_EV_SAMPLE_RECV_FIRST,         /* sample.recv_first */
    AGG_EV_SAMPLE_RECV_NON_FIRST,     /* sample.recv_non_first */
    AGG_EV_COUNT
} agg_event_type;

bool agg_ev_is_session(int type);
bool agg_ev_is_error(int type);
bool agg_ev_is_sample(int type);
/* The topic ("sample.issued"); "" for a value out of range. */
const char *agg_ev_topic(int type);

/* The payload's struct, by its tag (the first element of the array). */
enum {
    AGG_DATA_NONE,     /* data null or absent */
    AGG_DATA_PROMPT,   /* ["PromptData", text, token_ids, messages, tools, chat_template_kwargs, chat_template, tool_choice] */
    AGG_DATA_OUTPUT,   /* ["TextModelOutput", output, reasoning, tool_calls] */
    AGG_DATA_ERROR,    /* ["ErrorData", error_type, error_message] */
};

enum { AGG_ISL_NONE, AGG_ISL_IDS, AGG_ISL_TEXT, AGG_ISL_PROMPT };

/* A decoded record. Strings and `data` point into the line or into the
 * arena given to agg_event_decode; they live as long as both. */
typedef struct agg_event {
    int   type;                 /* agg_event_type */
    i64   timestamp_ns;
    bool  ts_from_clock;        /* the line had no timestamp_ns: the reader's clock (now_ns) */
    str   sample_uuid;          /* "" when absent */
    str   conversation_id;      /* "" when absent */
    bool  has_turn;             /* turn not null */
    i64   turn;                 /* clamped to int64 (upstream's ints have no bound; nothing reads it) */
    /* The payload as a JSON value: an array whose first element is the tag
     * string (upstream's array-like structs), what agg/inputs.h's
     * agg_input reads; NULL for none. data_text is its JSON text: the
     * payload's exact bytes within the line, except that elements past the
     * struct's fields (which upstream's decoder skips) are left out (a copy
     * in the arena then), so that json_parse(data_text) is what upstream
     * decoded. Workers re-parse data_text. */
    const json *data;
    str   data_text;
    int   data_kind;            /* AGG_DATA_* */
    /* agg_event_decode_deferred left the tree for later: data is NULL,
     * data_text is set; agg_event_data makes it. */
    bool  data_later;
    /* A PromptData's ISL as IslTrigger takes it (token ids first, then a
     * non-empty text, then messages): AGG_ISL_*, its token ids there and
     * not null, and how many. */
    int   data_isl;
    bool  data_ids;
    iz    data_nids;
    bool  has_finish_reason;    /* finish_reason present (UNSET otherwise) */
    str   finish_reason;
    bool  has_worker_id;
    i64   worker_id;            /* clamped as turn */
    /* Whether the record goes through upstream's msgpack wire (the
     * reference replay re-encodes every record as the aggregator receives
     * it): NULL when it does, else the exception the producer's encode
     * raises there, "OverflowError" for an int outside [-2^63, 2^64-1]
     * anywhere in the record, "RecursionError" for nesting deeper than its
     * encoder takes (AGG_EVENT_WIRE_DEPTH; to within one level, see
     * event.c). The reference replay stops at such a record; it is a valid
     * line all the same. */
    const char *wire_error;
} agg_event;

/* What upstream's decoder raised for a refused line, for diagnostics: the
 * Python exception class (type(exc).__name__: "DecodeError",
 * "ValidationError", "NotImplementedError" (the topic hook met a value that
 * is not a string), "UnicodeDecodeError", "RecursionError"), or
 * "tally.Unsupported" for what tally alone refuses (see agg_event_decode),
 * and str(exc), byte for byte: msg holds its longest prefix of at most
 * sizeof msg - 1 bytes that ends on a UTF-8 character boundary (it may hold
 * NUL bytes: a topic's "\u0000"), NUL-terminated; msg_len counts those
 * bytes, full_len the whole message. */
typedef struct agg_decode_error {
    char cls[64];
    char msg[256];
    iz   msg_len, full_len;
    iz   off;       /* byte offset in the line where the decoder stopped */
} agg_decode_error;

enum {
    /* Nesting msgspec's reader takes before Python's recursion limit (1000
     * frames) stops it with RecursionError, as the reference replay
     * (replay.py load_records) meets it: each object and array counts one,
     * so does the record itself; a line deeper than this is refused. See
     * event.c for how it was measured. */
    AGG_EVENT_MAX_DEPTH = 996,
    /* The same for upstream's msgpack encoder (one Python frame deeper). */
    AGG_EVENT_WIRE_DEPTH = 995,
    /* str() of a topic that is not a string (the hook's message) runs into
     * Python's limit this many values deep. */
    AGG_EVENT_REPR_DEPTH = 993,
};

/* Decodes one line of an events.jsonl as the reference replay does: the
 * line without its trailing CR and LF bytes, through
 * msgspec.json.Decoder(type=EventRecord, dec_hook=EventType.decode_hook)
 * (msgspec 0.20). What that decoder takes is taken: keys in any order,
 * unknown keys (their values checked as JSON only, not even for UTF-8),
 * duplicate keys (the last wins; every one is checked), whitespace, \u
 * escapes, negative and big ints (timestamp_ns, turn, worker_id: up to
 * 4300 digits), payload arrays shorter (defaults) or longer (the rest
 * skipped) than their struct. What it refuses is refused, with the same
 * exception and message, in the same order (the first error in the line
 * wins, as msgspec stops there): bad JSON, a float or bool for an int, a
 * null where a str is wanted, an unknown tag, a bad topic, invalid UTF-8 in
 * a string that is decoded, and so on.
 *
 * now_ns is the timestamp of a record without timestamp_ns (upstream's
 * default_factory=time.monotonic_ns runs at decode time); it is read
 * nowhere else.
 *
 * One refusal of tally's own (de.cls "tally.Unsupported", ERR_UNSUPPORTED):
 * a timestamp_ns outside int64 (upstream's Python int has no bound and its
 * wire carries up to 2^64-1; agg_event holds an i64).
 *
 * Returns ERR_OK with *ev filled, or, with *de filled: ERR_SYNTAX
 * (DecodeError), ERR_UTF8 (UnicodeDecodeError), ERR_INVALID
 * (ValidationError, NotImplementedError), ERR_LIMIT (RecursionError),
 * ERR_UNSUPPORTED, ERR_NOMEM (the arena's limit). `de` may be NULL.
 * Allocates in `a` only for strings with escapes, the payload's tree and
 * the messages of errors. Pure: no global state, thread-safe. */
int agg_event_decode(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de);

/* The same without the fast path for lines in upstream's canonical form
 * without a payload (event.c): json_parse's tree, else the byte reader,
 * for the tests that check both give the same record. */
/* agg_event_decode, but a payload the fast path takes is left as its text
 * (data_later; the tree costs more than the rest of the line): for readers
 * whose triggers ask for the tree only when they need it. */
int agg_event_decode_deferred(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de);
/* The payload's tree: ev->data, or, when the decoder left it for later,
 * json_parse of data_text into `a` (NULL and `e` filled only when out of
 * memory); NULL when the event has no payload. */
const json *agg_event_data(arena *a, const agg_event *ev, err *e);
int agg_event_decode_general(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de);
/* Whether two decoded records hold the same fields (data compared by its
 * text; the trees of both, when built, come from equal texts). */
bool agg_event_same(const agg_event *x, const agg_event *y);

#endif
