/* queue.h - the queue of pending token counts (../shared/docs/upstream-spec.md
 * §7): items are enqueued as a run goes, counted by a live lane of threads
 * while it runs and by the drain (worker processes, pool.h) at its end, or
 * while a log is read (dq_drain_step).
 *
 * Words, as the spec uses them:
 *   enqueued  items ever given to dq_enqueue;
 *   recorded  items counted and handed to the recorder;
 *   failed    items that cannot be counted (an error, or nothing to count
 *             in them); they leave the buffer but are never recorded;
 *   expired   items the drain's deadline left uncounted and handed to the
 *             `expire` callback (only when there is one);
 *   buffered  items waiting in the buffer (not yet counted, or given back
 *             by the live lane, or left by the deadline when there is no
 *             `expire` callback);
 *   inflight  items a flush or the drain has taken out of the buffer and
 *             not settled.
 * Invariant (dq_stats reads it under the lock):
 *   recorded + failed + expired + buffered + inflight = enqueued.
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
 * Drain: the first dq_drain_step or dq_drain stops the live lane for good
 * and forks the worker processes (pool.h), once; they stay until dq_free.
 * Items go to them in submission order and are recorded in that order
 * (enqueue order), whatever order the workers finish in; memory is bounded
 * by the pool's window, not by the number of items.
 *
 * The work function must be safe to call from several threads at once
 * given distinct scratch (the tokenizer and the templates are read-only
 * after loading). The callbacks (record, fail, expire) run on the thread
 * that flushes or drains, never on two threads at once, with no lock of
 * the queue held (they may enqueue).
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
    DQ_THREADS       = 2,     /* upstream's --tokenizer-workers default */
};

/* What counts an item, and where its result goes. */
typedef struct dq_ops {
    void *ctx;                              /* shared by every thread and worker */
    /* Per thread (and per worker process) scratch; NULL = out of memory. */
    void *(*scratch_new)(void *ctx);
    void  (*scratch_free)(void *ctx, void *scratch);
    /* Counts one item into r (pool_work_fn's contract; `deadline` is the
     * drain's, 0 in the live lane). */
    void  (*work)(void *ctx, void *scratch, const pool_item *it, double deadline, pool_result *r);
    /* A counted item (r->state == POOL_DONE). */
    void  (*record)(void *rctx, u64 tag, const pool_item *it, const pool_result *r);
    /* An item that cannot be counted (r->state POOL_ERROR, or POOL_SKIPPED:
     * nothing to count in it); may be NULL. */
    void  (*fail)(void *rctx, u64 tag, const pool_item *it, const pool_result *r);
    /* An item the drain's deadline left uncounted (r->state POOL_PENDING);
     * NULL keeps such items in the buffer. */
    void  (*expire)(void *rctx, u64 tag, const pool_item *it, const pool_result *r);
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

/* How dq_enqueue_op takes the payload. */
enum {
    DQ_COPY,     /* copied */
    DQ_BORROW,   /* the caller keeps it, unchanged, until it is recorded or failed */
    DQ_LEND,     /* the caller keeps it only until the next dq_drain_step (or dq_drain,
                    dq_drain_idle) returns: the drain must have begun (it copies the
                    payload to the workers then) */
};
/* dq_enqueue with the item's op (pool_item.op) for the work and a DQ_*
 * way of taking the payload. */
bool dq_enqueue_op(dq *q, u8 cls, u8 kind, u8 op, str payload, u64 tag, int how);

typedef struct dq_stats {
    iz enqueued, recorded, failed, expired, buffered, inflight;
    iz fallbacks;              /* recorded items with a fallback code */
    iz live_flushes, live_recorded, live_requeued;
    iz drain_recorded, drain_failed, worker_deaths;
} dq_stats;

void dq_stats_get(dq *q, dq_stats *s);
/* enqueued - recorded: upstream's n_pending_tasks. */
iz   dq_pending(dq *q);

/* One live flush (spec §7.4, live): returns the number recorded, or -1 when
 * the lane has no threads (threads = 0), they could not start, or the
 * drain has begun (`e`). */
iz   dq_flush_live(dq *q, err *e);
/* Runs dq_flush_live every `interval_s` seconds on a thread of its own.
 * ERR_OK, or an error when the thread could not start. */
int  dq_live_start(dq *q, double interval_s, err *e);
/* Cancels the live lane: a flush in progress stops taking items (the ones
 * it did not reach go back to the front), the lane thread ends. Idempotent. */
void dq_live_stop(dq *q);

/* Where a drain is, for its progress lines. */
typedef struct dq_progress {
    iz     total;          /* items the drain has taken so far, and those buffered */
    iz     done;           /* of them: recorded, failed or expired */
    iz     errors, fallbacks, worker_deaths;
    double elapsed_s;      /* since the drain began */
    double rate;           /* items per second so far */
    double eta_s;          /* seconds left at that rate; -1 when unknown */
    bool   final;          /* the last call, at the end of dq_drain */
} dq_progress;

/* One line for a person: "drain: 1200/20000 done, 0 errors, 3 fallbacks,
 * 2400 items/s, ETA 7 s" (the last: "drain: done: 20000 counted, ... in
 * 8.3 s"), without a newline. */
void dq_progress_format(const dq_progress *p, char *out, iz cap);

typedef struct dq_drain_opts {
    int    workers;        /* processes (pool_cpus() by the caller); 0 = in this process */
    int    chunk_items;    /* as pool_opts */
    iz     chunk_bytes;
    iz     ring_bytes;
    iz     window;
    /* Read by the first call only (the workers are made then). */
    double deadline;       /* os_now() time when counting stops; 0 = none (every call) */
    double progress_s;     /* progress every this many seconds; 0 = never (every call) */
    /* Called every progress_s seconds while the drain waits on its
     * workers, and once at the end of dq_drain (final). */
    void (*progress)(void *ctx, const dq_progress *p);
    void  *progress_ctx;
    volatile sig_atomic_t *stop;   /* as pool_opts (first call) */
} dq_drain_opts;

/* One step of a drain that goes on while items still come (a log being
 * read): the first call stops the live lane and starts the workers; each
 * call hands every buffered item to them and records, fails or expires the
 * results that are in, without waiting for the rest (it waits only when
 * the pool's window is full). Returns ERR_OK, ERR_STOPPED (the stop flag:
 * nothing more is recorded), or ERR_NOMEM. When the workers cannot start,
 * counting goes on in this process and `e` says why (the return is still
 * ERR_OK). */
int  dq_drain_step(dq *q, const dq_drain_opts *o, err *e);

/* dq_drain_step, and the partly filled chunks go to the workers at once,
 * for a caller that has nothing to enqueue for a while (its input is
 * slow): results are recorded as they come until everything is, or `fd`
 * (the caller's input, or -1) is readable. */
int  dq_drain_idle(dq *q, const dq_drain_opts *o, int fd, err *e);

/* The drain (spec §7.3, §7.6, with the seed's sharding): dq_drain_step,
 * then waits until every item is recorded, failed or, once the deadline
 * has passed, expired (or kept in the buffer: pending). Returns the number
 * still pending (dq_pending), or -1 when stopped; `e` as dq_drain_step. */
iz   dq_drain(dq *q, const dq_drain_opts *o, err *e);

#endif
