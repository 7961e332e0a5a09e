/* queue.h - the queue of pending token counts (../shared/docs/upstream-spec.md
 * §7): items are enqueued as a run goes, counted by a live lane of threads
 * while it runs and by the drain (worker processes, pool.h) at its end.
 *
 * Words, as the spec uses them:
 *   enqueued  items ever given to dq_enqueue;
 *   recorded  items counted and handed to the recorder;
 *   failed    items the drain could not count (an error for that item);
 *             they leave the buffer but are never recorded;
 *   buffered  items waiting in the buffer (not yet counted, or given back
 *             by the live lane, or left by an exhausted drain budget);
 *   inflight  items a flush has taken out of the buffer and not settled.
 * Invariant (dq_stats reads it under the lock):
 *   recorded + failed + buffered + inflight = enqueued.
 * Upstream's n_pending_tasks is enqueued - recorded: failed and timed-out
 * items stay pending, never silently dropped (§7.6).
 *
 * Live lane: dq_flush_live takes at most `live_max` items of each class
 * (FIFO) and counts them on `threads` threads of this process, never on
 * worker processes; an item that fails there, and an item a cancelled
 * flush did not reach, goes back to the front of the buffer for the drain
 * (a failed item is not tried again by the live lane). dq_live_start runs
 * dq_flush_live every `interval` seconds on a thread of its own.
 *
 * Drain: dq_drain stops the live lane, then counts the whole buffer on
 * worker processes forked from this one (pool.h), in batches so that the
 * memory of results does not grow with the number of items.
 *
 * The work function must be safe to call from several threads at once
 * given distinct scratch (the tokenizer and the templates are read-only
 * after loading). The recorder runs on the thread that flushes (the live
 * lane's thread, or the caller of dq_flush_live / dq_drain), never on two
 * threads at once, with no lock of the queue held (it may enqueue).
 * Depends on drain/pool.h and base/. POSIX threads. */
#ifndef TALLY_QUEUE_H
#define TALLY_QUEUE_H

#include "../base/base.h"
#include "../base/err.h"
#include "pool.h"

typedef struct dq dq;

enum {
    DQ_CLASSES       = 4,     /* classes of items for the live cap (e.g. count kinds) */
    DQ_LIVE_MAX      = 1024,  /* upstream's _LIVE_FLUSH_MAX_ITEMS, per class */
    DQ_MAX_THREADS   = 64,
    DQ_DRAIN_BATCH   = 8192,  /* items per pool_run of the drain */
    DQ_THREADS       = 2,     /* upstream's --tokenizer-workers default */
};

/* What counts an item, and where its result goes. */
typedef struct dq_ops {
    void *ctx;                              /* shared by every thread and worker */
    /* Per thread (and per worker process) scratch; NULL = out of memory. */
    void *(*scratch_new)(void *ctx);
    void  (*scratch_free)(void *ctx, void *scratch);
    /* Counts one item into r (state POOL_DONE or POOL_ERROR). */
    void  (*work)(void *ctx, void *scratch, const pool_item *it, pool_result *r);
    /* A counted item (r->state == POOL_DONE). */
    void  (*record)(void *rctx, u64 tag, const pool_item *it, const pool_result *r);
    /* An item the drain could not count (r->state == POOL_ERROR); may be NULL. */
    void  (*fail)(void *rctx, u64 tag, const pool_item *it, const pool_result *r);
    void *rctx;
} dq_ops;

typedef struct dq_opts {
    int threads;      /* live lane threads (--tokenizer-workers); 0 = no live lane */
    int live_max;     /* items of each class per live flush; 0 = DQ_LIVE_MAX */
} dq_opts;

/* NULL and `e` filled when out of memory. `ops` is copied. */
dq  *dq_new(const dq_ops *ops, const dq_opts *o, err *e);
/* Stops the live lane and frees the buffer (its items are never recorded). */
void dq_free(dq *q);

/* Adds an item at the back of the buffer. `cls` < DQ_CLASSES picks its
 * live cap; `kind` is the pool kind (POOL_KIND_*) that steers chunking in
 * the drain. The payload is copied, unless `borrow`: then the caller keeps
 * it alive and unchanged until the item is recorded or failed (or the
 * queue freed). Thread-safe. False when out of memory (nothing enqueued). */
bool dq_enqueue(dq *q, u8 cls, u8 kind, str payload, u64 tag, bool borrow);

typedef struct dq_stats {
    iz enqueued, recorded, failed, buffered, inflight;
    iz fallbacks;              /* recorded items with a fallback code */
    iz live_flushes, live_recorded, live_requeued;
    iz drain_recorded, drain_failed, worker_deaths;
} dq_stats;

void dq_stats_get(dq *q, dq_stats *s);
/* enqueued - recorded: upstream's n_pending_tasks. */
iz   dq_pending(dq *q);

/* One live flush (spec §7.4, live): returns the number recorded, or -1 when
 * the lane has no threads (threads = 0) or they could not start (`e`). */
iz   dq_flush_live(dq *q, err *e);
/* Runs dq_flush_live every `interval_s` seconds on a thread of its own.
 * ERR_OK, or an error when the thread could not start. */
int  dq_live_start(dq *q, double interval_s, err *e);
/* Cancels the live lane: a flush in progress stops taking items (the ones
 * it did not reach go back to the front), the lane thread ends. Idempotent. */
void dq_live_stop(dq *q);

/* Where a drain is, for its progress lines. */
typedef struct dq_progress {
    iz     total;          /* items this drain has to count (buffered at its start) */
    iz     done;           /* of them: recorded or failed */
    iz     errors, fallbacks, worker_deaths;
    double elapsed_s;
    double rate;           /* items per second so far */
    double eta_s;          /* seconds left at that rate; -1 when unknown */
    bool   final;          /* the last call, at the end of the drain */
} dq_progress;

/* One line for a person: "drain: 1200/20000 done, 0 errors, 3 fallbacks,
 * 2400 items/s, ETA 7 s" (the last: "drain: done: 20000 counted, ... in
 * 8.3 s"), without a newline. */
void dq_progress_format(const dq_progress *p, char *out, iz cap);

typedef struct dq_drain_opts {
    int    workers;        /* processes (pool_cpus() by the caller); 0 = in this process */
    int    chunk_items;    /* as pool_opts */
    iz     chunk_bytes;
    double timeout_s;      /* budget; 0 = none */
    double progress_s;     /* progress every this many seconds; 0 = never */
    /* Called every progress_s seconds and once at the end (final). */
    void (*progress)(void *ctx, const dq_progress *p);
    void  *progress_ctx;
} dq_drain_opts;

/* The drain (spec §7.3, §7.6, with the seed's sharding): stops the live
 * lane, counts every buffered item, records the counted ones and fails the
 * ones that could not be counted; when the budget runs out the workers are
 * stopped and the items not counted stay in the buffer (pending). Returns
 * the number still pending (dq_pending) and fills `e` when the process
 * pool could not run (then the rest is counted in this process). */
iz   dq_drain(dq *q, const dq_drain_opts *o, err *e);

#endif
