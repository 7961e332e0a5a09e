/* shapes.h - the input shapes of the counting kinds: one parsed JSON value
 * (a line of `tally count`) becomes one count_input, from the oracle's
 * objects ({"text"}, {"token_ids"}, {"content", "reasoning", "tool_calls"},
 * {"messages", ...}) or from upstream's event payloads (an events.jsonl
 * line, or a bare PromptData / TextModelOutput array), with upstream's
 * choice of kind (../shared/docs/upstream-spec.md §2.3, §2.4, §6.2).
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
    /* Why nothing is counted (status SHAPES_SKIP). */
    char skip[ERR_MSG_MAX];
} shapes_item;

enum {
    SHAPES_COUNT = 0,  /* out->in is an item to count */
    SHAPES_SKIP,       /* upstream counts nothing for this value (out->skip says why) */
    SHAPES_ERROR,      /* the value is not an input of the wanted kind (e says why) */
};

/* Turns one JSON value into an item of kind `want` (a count_kind, or
 * SHAPES_AUTO). Accepted values:
 *   - an object with "event_type" (an events.jsonl line): its "data";
 *   - an array whose first element is "PromptData", "TextModelOutput" or
 *     "ErrorData" (upstream's array-like structs: the fields follow in
 *     declaration order; missing trailing ones take their defaults, extra
 *     ones are ignored, as msgspec decodes them);
 *   - any other object: the oracle's shapes, by field name.
 * With SHAPES_AUTO the kind follows upstream's triggers (spec §6.2):
 *   - an event line: "sample.issued" counts its PromptData as the ISL
 *     trigger does, "sample.complete" its TextModelOutput as the OSL
 *     trigger does; other events, other payloads and an empty
 *     "sample_uuid" are skipped (upstream counts nothing for them);
 *   - PromptData: token_ids not null -> ids; else text non-empty -> text;
 *     else messages not null -> prompt; else skipped;
 *   - TextModelOutput: reasoning or tool_calls truthy -> message with
 *     as_message_parts(); else text = str(output), skipped when empty;
 *   - ErrorData: skipped;
 *   - an object: "token_ids" (not null) -> ids; else "text" (not null) ->
 *     text; else "messages" (not null) -> prompt; else any of "content",
 *     "reasoning", "tool_calls" present -> message; else an error.
 * With an explicit kind the fields that kind needs are taken (an event's
 * type is then not looked at): ids from "token_ids", text from "text" or
 * str() of a TextModelOutput, message from the oracle's fields or
 * as_message_parts(), prompt from "messages" and the optional fields; a
 * missing or mistyped field is an error.
 * Field types are checked as upstream's msgspec types (and count.h) say:
 * token_ids an array of integers, text a string, messages an array (of
 * objects in a PromptData), tools an array or null, tool_choice a string,
 * object or null, chat_template a string or null, chat_template_kwargs an
 * object or null, content and reasoning a string or null (in a
 * TextModelOutput: a string or an array of strings), tool_calls an array
 * or null (its elements are count_item's to check). Errors name the field
 * and what was found: "token_ids: expected an array of integers, found a
 * string" (the caller adds the line number). A TextModelOutput counted as
 * a message whose tool calls merge to an empty array passes NULL
 * (MessageInput treats an empty tuple as None).
 * New values (joined strings, merged tool calls, str() of an output) are
 * allocated in `a`; the rest of out->in points into `v`, which must
 * outlive the item. Out of memory in `a` jumps to a->oom when set, else is
 * an error (ERR_NOMEM). Returns SHAPES_COUNT, SHAPES_SKIP or SHAPES_ERROR;
 * `e` is filled only for SHAPES_ERROR. Pure: no global state. */
int shapes_input(arena *a, const json *v, int want, shapes_item *out, err *e);

/* The helpers of upstream's TextModelOutput (spec §2.4), on the payload's
 * three fields (NULL = absent = the default: output "", reasoning and
 * tool_calls None). Each returns ERR_OK, or an error code with `e` filled
 * when the fields are not of their types or Python would raise. */

/* merge_tool_calls(tool_calls): NULL when tool_calls is falsy; the same
 * array when its first element is not an array (complete tool calls);
 * else the deltas of each chunk merged by "index" into new objects
 * {"type": "function", "function": {"arguments": "", "name"?}, "id"?}
 * (that key order), arguments concatenated, in index order. The result may
 * be an empty array. */
int shapes_merge_tool_calls(arena *a, const json *tool_calls, const json **merged, err *e);
/* str(output): reasoning, output and the msgspec JSON of the merged tool
 * calls, concatenated. */
int shapes_tmo_text(arena *a, const json *output, const json *reasoning, const json *tool_calls,
                    str *text, err *e);
/* as_message_parts(): *content a string (output, or its chunks joined),
 * *reasoning a string or NULL when falsy, *tool_calls the merged calls
 * (NULL when merge_tool_calls gives None). The strings are new values
 * in `a` or the payload's own. */
int shapes_tmo_message(arena *a, const json *output, const json *reasoning, const json *tool_calls,
                       const json **content, const json **reasoning_out, const json **tool_calls_out,
                       err *e);

#endif
