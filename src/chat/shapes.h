/* shapes.h - the oracle's input objects of the counting kinds: one parsed
 * JSON object ({"text"}, {"token_ids"}, {"content", "reasoning",
 * "tool_calls"}, {"messages", ...}) becomes one count_input. Upstream's
 * payloads and events, and which of them asks for which count, are the
 * aggregator's (src/agg/inputs.h), on these building blocks.
 * Depends on chat/count.h, json/ and base/. */
#ifndef TALLY_SHAPES_H
#define TALLY_SHAPES_H

#include "../base/arena.h"
#include "../base/err.h"
#include "../json/json.h"
#include "count.h"

enum {
    SHAPES_AUTO = 0,   /* the `want` of shapes_input: pick the kind from the shape */
    SHAPES_MAX_TOOL_CALLS = 1 << 16,   /* tool-call deltas merged from one output */
};

/* What shapes_input made of one value. */
typedef struct shapes_item {
    count_input in;    /* the item, when counted (status SHAPES_COUNT) */
    /* The "id" member of an object, else for an event line its
     * "sample_uuid" unless that is empty; NULL when neither (or not an
     * object). Points into the caller's tree. */
    const json *id;
    /* Where the item came from, for messages: "object", "PromptData",
     * "TextModelOutput", "ErrorData", "event". */
    const char *shape;
    /* What the item is counted as, for the aggregator's metrics: 0, or
     * AGG_ISL, AGG_OSL, AGG_TPOT of src/agg/inputs.h (an event line). */
    u8 metric;
    /* Why nothing is counted (status SHAPES_SKIP). */
    char skip[ERR_MSG_MAX];
} shapes_item;

enum {
    SHAPES_COUNT = 0,  /* out->in is an item to count */
    SHAPES_SKIP,       /* upstream counts nothing for this value (out->skip says why; payloads and events) */
    SHAPES_ERROR,      /* the value is not an input of the wanted kind (e says why) */
};

/* Turns one of the oracle's objects into an item of kind `want` (a
 * count_kind, or SHAPES_AUTO): with SHAPES_AUTO "token_ids" (not null) ->
 * ids; else "text" (not null) -> text; else "messages" (not null) ->
 * prompt; else any of "content", "reasoning", "tool_calls" present ->
 * message; else an error. With an explicit kind the fields that kind needs
 * are taken; a missing or mistyped field is an error (a message needs at
 * least one of its three fields, null or not).
 * Field types are checked as upstream's msgspec types (and count.h) say:
 * token_ids an array of integers, text a string, messages an array, tools
 * an array or null, tool_choice a string, object or null, chat_template a
 * string or null, chat_template_kwargs an object or null, content and
 * reasoning a string or null, tool_calls an array or null (its elements
 * are count_item's to check). Errors name the field and what was found:
 * "token_ids: expected an array of integers, found a string" (the caller
 * adds the line number). Upstream's payloads and event lines are not
 * objects of this kind: src/agg/inputs.h reads them (and hands objects on
 * to this function). out->in points into `v`, which must outlive the item.
 * Returns SHAPES_COUNT or SHAPES_ERROR (`e` filled). Pure: no global state. */
int shapes_input(arena *a, const json *v, int want, shapes_item *out, err *e);

/* The building blocks of a reader of inputs (shapes.c, src/agg/inputs.c):
 * each fills `o` and returns SHAPES_COUNT, or SHAPES_ERROR with `e` naming
 * `where` (a prefix: "" or "PromptData.") and the field. shapes_take_prompt
 * with `strict` (upstream's payloads) also wants objects as the elements of
 * messages and tools (tuple[dict, ...]). */
int shapes_take_ids(shapes_item *o, const json *v, const char *where, err *e);
int shapes_take_text(shapes_item *o, const json *v, const char *where, err *e);
int shapes_take_prompt(shapes_item *o, const json *messages, const json *tools, const json *kwargs,
                       const json *tmpl, const json *choice, const char *where, bool strict, err *e);
/* "WHEREFIELD: expected EXPECTED, found TYPE" into e; returns SHAPES_ERROR. */
int shapes_bad(err *e, const json *v, const char *where, const char *field, const char *expected);
/* The reason into o->skip; returns SHAPES_SKIP. */
int shapes_skip(shapes_item *o, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* v unless it is JSON null (Python's None, as an absent field), and the
 * name of a value's type for messages ("nothing" for NULL). */
const json *shapes_nn(const json *v);
const char *shapes_type_name(const json *v);

#endif
