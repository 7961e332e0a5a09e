/* count_ops.h - the queue's work (queue.h) for token counts: a payload is
 * one JSON value in any shape shapes.h accepts (an oracle object, an event
 * line, a PromptData or TextModelOutput array), counted with count_item on
 * a loaded model. The same function serves the live lane's threads, the
 * drain's worker processes and the caller, so counts cannot differ
 * between lanes. Depends on chat/count.h, chat/shapes.h, drain/queue.h. */
#ifndef TALLY_COUNT_OPS_H
#define TALLY_COUNT_OPS_H

#include "../chat/count.h"
#include "../chat/shapes.h"
#include "queue.h"

/* What a pool_result of these ops holds:
 *   POOL_DONE:    kind = the count_kind counted, n = the count; when the
 *                 count is upstream's fallback, cls = the Python class of
 *                 the failed render and msg = "<Class>: <its message>";
 *   POOL_SKIPPED: msg = why upstream counts nothing in it (an event that
 *                 triggers no count, an empty text, ...);
 *   POOL_ERROR:   msg = why it cannot be counted (invalid JSON, a field of
 *                 the wrong type, a limit, ...);
 *   POOL_PENDING: the deadline passed while it was being counted;
 * op = shapes_item.metric (what the resolver took the item for),
 * flags COUNT_OPS_TOOLS_UNREAD when count.h's tools_unread holds,
 * and in every state label = the item's id as JSON text (its "id" field,
 * else an event's "sample_uuid"), "" when it has none. An id longer than
 * POOL_LABEL_MAX - 1 bytes of JSON makes the item an error. */
enum { COUNT_OPS_TOOLS_UNREAD = 1 };

/* What turns a parsed payload into an item: shapes_input's signature
 * plus the item's op (pool_item.op). src/agg/inputs.h's agg_input reads
 * upstream's events and payloads too. */
typedef int (*count_ops_resolve_fn)(arena *a, const json *v, int want, int op, shapes_item *out, err *e);

typedef struct count_ops_ctx {
    const count_model *model;
    int                want;    /* a count_kind, or SHAPES_AUTO (0) */
    count_ops_resolve_fn resolve;   /* NULL: the oracle's objects only (shapes_input) */
} count_ops_ctx;

/* Fills ops->ctx, scratch_new, scratch_free and work; the caller sets
 * record, fail, expire and rctx. `c` must outlive the queue. */
void count_ops_init(dq_ops *ops, count_ops_ctx *c);

/* Appends the id of `payload` (as the work of `c` finds it) to `out` as
 * JSON text, for an item the work never saw (expired); false when it has
 * none. */
bool count_ops_label(const count_ops_ctx *c, str payload, buf *out);

#endif
