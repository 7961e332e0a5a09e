/* inputs.h - which count upstream's events and payloads ask for: the ISL,
 * OSL and TPOT triggers' choice of input (../shared/docs/upstream-spec.md
 * §6.2, docs/upstream-aggregator.md §8) and upstream's TextModelOutput
 * helpers (§2). This is the one place that knows the rule: the replay's
 * triggers, `tally count` on an events.jsonl line and the workers that
 * count both go through agg_input.
 * Depends on chat/shapes.h, chat/count.h, json/ and base/. */
#ifndef TALLY_AGG_INPUTS_H
#define TALLY_AGG_INPUTS_H

#include "../chat/shapes.h"

/* The metric a count is for (shapes_item.metric, pool_item.op). */
enum {
    AGG_ANY  = 0,     /* as the value says: an event's trigger, or a bare payload's kind */
    AGG_ISL  = 'I',   /* IslTrigger: a PromptData */
    AGG_OSL  = 'O',   /* OslTrigger: a TextModelOutput, whole */
    AGG_TPOT = 'T',   /* TpotTrigger: a TextModelOutput after its first chunk */
};
const char *agg_metric_name(int metric);   /* "isl", "osl", "tpot", or "" */

/* One JSON value into an item of kind `want` (a count_kind, or
 * SHAPES_AUTO), for `metric`:
 *   - an object with "event_type" (an events.jsonl line): with AGG_ANY and
 *     SHAPES_AUTO, upstream's triggers: only sample events with a non-empty
 *     "sample_uuid" count; sample.issued's PromptData as ISL,
 *     sample.complete's TextModelOutput as OSL; other events are skipped.
 *     With an explicit kind or metric, its "data" payload is read as below;
 *   - an array whose first element is "PromptData", "TextModelOutput" or
 *     "ErrorData" (upstream's array-like structs: the fields follow in
 *     declaration order; missing trailing ones take their defaults, extra
 *     ones are ignored, as msgspec decodes them):
 *       PromptData (ISL): token_ids not null -> ids; else text non-empty ->
 *       text; else messages not null -> prompt; else skipped;
 *       TextModelOutput (OSL): reasoning or tool_calls truthy -> message
 *       with as_message_parts(); else text = str(output), skipped when
 *       empty; (TPOT) the same with the after-first-chunk forms;
 *       ErrorData: skipped;
 *     an explicit kind takes that kind's fields (text of a TextModelOutput
 *     is str(output), message its parts);
 *   - any other object: shapes_input (the oracle's objects).
 * out->metric says which metric an event or payload counted for. Returns
 * SHAPES_COUNT, SHAPES_SKIP (out->skip says why) or SHAPES_ERROR (`e`).
 * New values (joined strings, merged tool calls, str() of an output) are
 * allocated in `a`; the rest points into `v`. Pure. */
int agg_input(arena *a, const json *v, int want, int metric, shapes_item *out, err *e);

/* Whether v is a payload array (a string tag first). */
bool agg_is_payload(const json *v);

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
int agg_merge_tool_calls(arena *a, const json *tool_calls, const json **merged, err *e);
/* str(output): reasoning, output and the msgspec JSON of the merged tool
 * calls, concatenated; with `after_first`, text_after_first_chunk(). */
int agg_tmo_text(arena *a, const json *output, const json *reasoning, const json *tool_calls, bool after_first,
                 str *text, err *e);
/* as_message_parts(): *content a string (output, or its chunks joined),
 * *reasoning a string or NULL when falsy, *tool_calls the merged calls
 * (NULL when merge_tool_calls gives None); with `after_first`,
 * as_message_parts_after_first_chunk(). The strings are new values in `a`
 * or the payload's own. */
int agg_tmo_message(arena *a, const json *output, const json *reasoning, const json *tool_calls,
                    bool after_first, const json **content, const json **reasoning_out,
                    const json **tool_calls_out, err *e);

#endif
