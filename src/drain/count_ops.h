/* count_ops.h - the queue's work (queue.h) for token counts: a payload is
 * one JSON value in any shape shapes.h accepts (an oracle object, an event
 * line, a PromptData or TextModelOutput array), counted with count_item on
 * a loaded model. The same function serves the live lane's threads, the
 * drain's worker processes and the caller, so counts cannot differ
 * between lanes. Depends on chat/count.h, chat/shapes.h, drain/queue.h. */
#ifndef TALLY_COUNT_OPS_H
#define TALLY_COUNT_OPS_H

#include "../chat/count.h"
#include "queue.h"

/* A pool_result of these ops:
 *   POOL_DONE:  n = the count; fallback = COUNT_OPS_FALLBACK when it is
 *               upstream's fallback, and msg = "<Class>\t<render error>";
 *               else fallback = 0 and msg empty.
 *   POOL_ERROR: msg = why the item cannot be counted (invalid JSON, a
 *               field of the wrong type, a value with nothing to count). */
enum { COUNT_OPS_FALLBACK = 1 };

typedef struct count_ops_ctx {
    const count_model *model;
    int                want;    /* a count_kind, or SHAPES_AUTO (0) */
} count_ops_ctx;

/* Fills ops->ctx, scratch_new, scratch_free and work; the caller sets
 * record, fail and rctx. `c` must outlive the queue. */
void count_ops_init(dq_ops *ops, count_ops_ctx *c);

/* The fallback class of a POOL_DONE result into `cls` (size `cap`), or ""
 * when it is not a fallback. */
void count_ops_fallback_class(const pool_result *r, char *cls, iz cap);

#endif
