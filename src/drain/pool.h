/* pool.h - the drain's process pool: worker processes forked once, when
 * the pool is made (after the tokenizer and templates are loaded, so the
 * workers share them copy-on-write), that count the items the caller
 * submits, in chunks, for as long as the pool lives. Results come back in
 * submission order, whatever order the workers finish in; a worker that
 * dies costs only the items it held (they are retried one at a time); a
 * deadline stops everything at once; memory is bounded by a window of
 * items in flight, not by how many are submitted.
 *
 * Payloads travel through memory shared with the workers (a ring mapped
 * before the fork): the caller's bytes are copied into it once and the
 * workers read them in place; only small descriptors go down the pipes.
 * A payload too large for the ring goes down its worker's pipe instead.
 *
 * Generic over the work: the caller passes a function that turns one item
 * into one pool_result; it runs in the workers (and in the caller for
 * in-process counting and for POOL_KIND_SMALL items).
 * Depends on base/ only. POSIX (fork, pipes, poll, mmap). Not thread-safe:
 * one thread drives a pool. */
#ifndef TALLY_POOL_H
#define TALLY_POOL_H

#include <signal.h>
#include "../base/base.h"
#include "../base/err.h"

/* One item: an opaque payload (a JSON value, say) and a kind that steers
 * chunking (the work function sees it too). */
typedef struct pool_item {
    str payload;
    u8  kind;       /* POOL_KIND_* */
    u8  op;         /* the work's own selector (what to count the payload as),
                       passed through untouched; 0 when it has none */
} pool_item;

enum {
    POOL_KIND_SMALL = 0,   /* cheap: counted in the caller at once (token ids) */
    POOL_KIND_TEXT  = 1,   /* chunked by bytes */
    POOL_KIND_HEAVY = 2,   /* chunked by count (message, prompt) */
};

/* What counting one item gave: `state` says which of the fields mean
 * something. This is the one result encoding of the drain: the same
 * struct leaves the work function, crosses the pipe field by field and
 * reaches the caller's callback. */
enum {
    POOL_PENDING = 0,  /* not counted: the deadline came first */
    POOL_DONE,         /* counted: kind, n; cls when the count is a fallback */
    POOL_SKIPPED,      /* nothing to count in it (not an error): msg says why */
    POOL_ERROR,        /* it cannot be counted: msg says why */
};

enum {
    POOL_CLS_MAX   = 64,     /* bytes of cls, with its NUL */
    POOL_MSG_MAX   = 1024,   /* bytes of msg, with its NUL */
    POOL_LABEL_MAX = 1024,   /* bytes of label, with its NUL */
};

typedef struct pool_result {
    u8   state;
    u8   kind;                  /* what the work counted it as (its own codes) */
    u8   op;                    /* what the work took it for (its own codes: the item's op, or
                                   what it found the payload asks for) */
    u8   flags;                 /* facts the work found about it (its own named bits) */
    i64  n;                     /* POOL_DONE: the count */
    char cls[POOL_CLS_MAX];     /* POOL_DONE: "" or a class (a fallback's Python class) */
    char msg[POOL_MSG_MAX];     /* why (SKIPPED, ERROR), or the detail of cls */
    char label[POOL_LABEL_MAX]; /* "" or a name of the item the work found in it
                                   (tally count: the line's id, as JSON text) */
} pool_result;

/* Resets r to an empty POOL_PENDING result (cheap: no clearing of the
 * text fields beyond their first byte). */
void pool_result_clear(pool_result *r);

/* Runs in a worker (or in the caller): fills r with state POOL_DONE,
 * POOL_SKIPPED or POOL_ERROR, or POOL_PENDING when it stopped because
 * `deadline` (os_now() clock; 0 = none) passed. Must not print or exit;
 * may crash (that is what the pool survives). */
typedef void (*pool_work_fn)(void *ctx, const pool_item *it, double deadline, pool_result *r);

/* Receives each result in submission order: `tag` as submitted, `it` the
 * item (its payload valid during the call only). Runs on the thread that
 * drives the pool, inside pool_submit, pool_pump or pool_flush; it must
 * not call into the pool. */
typedef void (*pool_deliver_fn)(void *ctx, u64 tag, const pool_item *it, const pool_result *r);

typedef struct pool_stats {
    iz     submitted, delivered;   /* delivered: by the callback, in order */
    iz     done, skipped, errors, pending, classed;   /* of the delivered; classed: DONE with cls */
    iz     chunks, worker_deaths, retried, inline_items;
    int    workers;                /* worker processes running now */
    bool   in_process;             /* counting in the caller (asked for, or the workers failed) */
} pool_stats;

typedef struct pool_opts {
    int    workers;        /* processes; 0 = count in the caller, at submission */
    int    chunk_items;    /* HEAVY items per chunk (0 = POOL_CHUNK_ITEMS) */
    iz     chunk_bytes;    /* TEXT bytes per chunk (0 = POOL_CHUNK_BYTES) */
    int    in_flight;      /* chunks in flight per worker (0 = 2) */
    iz     ring_bytes;     /* shared payload memory (0 = POOL_RING_BYTES) */
    iz     window;         /* items submitted and not yet delivered (0 = POOL_WINDOW) */
    pool_work_fn    work;
    void           *work_ctx;
    pool_deliver_fn deliver;
    void           *deliver_ctx;
    /* Called in each new worker right after fork (may be NULL), e.g. to
     * make the worker's own scratch state in work_ctx. */
    void (*worker_init)(void *work_ctx);
    /* Called at least once a second while the pool waits on its workers
     * (may be NULL): the caller's chance to print progress. */
    void (*tick)(void *tick_ctx);
    void  *tick_ctx;
    /* The caller's stop flag (set by a signal handler), or NULL: when it is
     * non-zero the pool stops its workers and returns ERR_STOPPED, and
     * delivers nothing more. */
    volatile sig_atomic_t *stop;
} pool_opts;

enum {
    POOL_CHUNK_ITEMS = 64,         /* upstream's structured chunk size */
    POOL_CHUNK_BYTES = 1 << 20,    /* about a few ms of tokenizing */
    POOL_RING_BYTES  = 64 << 20,
    POOL_WINDOW      = 16384,
    POOL_MAX_WORKERS = 256,
};

typedef struct pool pool;

/* Makes a pool and forks its workers (none with workers = 0). NULL and `e`
 * filled when out of memory, or when no worker could be started (fork or
 * pipe failed: the caller may make an in-process pool instead). Workers
 * ignore SIGINT, die with the caller, and see the caller's memory as it
 * was at the fork (plus the ring). */
pool *pool_new(const pool_opts *o, err *e);

/* Ends the workers (what is not delivered is dropped) and frees the pool. */
void pool_free(pool *p);

/* Submits an item: its payload is copied (the caller may reuse it at once).
 * Delivers whatever results are ready; when the window or the ring is full
 * it waits for results first. With workers = 0 the item is counted here
 * and delivered before the call returns. Returns ERR_OK, ERR_STOPPED (the
 * stop flag; nothing more is delivered), or ERR_NOMEM (nothing was
 * submitted). Items submitted after the deadline are delivered PENDING. */
int pool_submit(pool *p, const pool_item *it, u64 tag);

/* pool_submit for a payload the workers already see at the same address:
 * it was in the caller's memory when the workers were forked (a worker
 * forked later to replace a dead one sees it too), and the caller keeps it
 * there, unchanged, until the item is delivered. Nothing is copied: the
 * drain of a queue filled before the pool was made (upstream's end-of-run
 * drain) costs no copy of its payloads. */
int pool_submit_shared(pool *p, const pool_item *it, u64 tag);

/* Delivers the results that are ready, without waiting. ERR_OK or ERR_STOPPED. */
int pool_pump(pool *p);

/* Sends the partly filled chunks to the workers now (the caller has
 * nothing more to submit for a while) and delivers results as they come,
 * until everything submitted is delivered or `fd` (when not -1: the
 * caller's input) is readable. ERR_OK or ERR_STOPPED. */
int pool_send_partial(pool *p, int fd);

/* Sends the partly filled chunks and waits until every submitted item is
 * delivered (or the deadline has passed: then what was not counted is
 * delivered PENDING). ERR_OK or ERR_STOPPED. */
int pool_flush(pool *p);

/* From `deadline` on (os_now() clock; 0 = none) the workers are stopped
 * and every item not counted is delivered PENDING; the workers also get it
 * with each chunk (the work sees it). A later call may move it, also after
 * it has passed: new workers are then forked for the items that follow. */
void pool_set_deadline(pool *p, double deadline);

void pool_stats_get(const pool *p, pool_stats *st);

/* Number of CPUs this process may run on (os_cpus). */
int pool_cpus(void);

#endif
