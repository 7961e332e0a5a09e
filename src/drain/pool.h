/* pool.h - the drain's process pool: counts a batch of items on worker
 * processes forked from the caller (so a loaded tokenizer and templates are
 * shared copy-on-write), in chunks, keeping results in input order,
 * surviving dead workers, honouring a time budget and reporting progress.
 * Generic over the work: the caller passes a function that turns one item
 * into one result; in the workers it runs on the forked copy of the
 * caller's memory: a chunk sent to a worker is a list of item indexes,
 * and the worker reads the items from its copy of that memory (the caller
 * must not change `items` while pool_run runs; it cannot, pool_run blocks).
 * Depends on base/ only. POSIX (fork, pipes, poll). */
#ifndef TALLY_POOL_H
#define TALLY_POOL_H

#include "../base/base.h"
#include "../base/err.h"

/* One item: an opaque payload (a JSON line, say) and a kind the work
 * function and the chunking understand. */
typedef struct pool_item {
    str payload;
    u8  kind;       /* POOL_KIND_* for chunking; the work function sees it too */
} pool_item;

enum {
    POOL_KIND_SMALL = 0,   /* cheap, counted in the parent (token ids) */
    POOL_KIND_TEXT  = 1,   /* chunked by bytes */
    POOL_KIND_HEAVY = 2,   /* chunked by count (message, prompt) */
};

/* What counting one item gave. `state` says whether it is done. */
enum {
    POOL_PENDING = 0,      /* not counted (yet, or the budget ran out) */
    POOL_DONE,             /* counted: n, fallback */
    POOL_ERROR,            /* an error for this item: msg */
};

/* A result's message: an error, or whatever the work function wants to
 * send back (the CLI sends its output line). */
enum { POOL_MSG_MAX = 1024 };

typedef struct pool_result {
    u8   state;
    u8   fallback;         /* a caller-defined code (0 = none) */
    i64  n;
    char msg[POOL_MSG_MAX];
} pool_result;

/* Runs in a worker (or in the caller for in-process counting and for
 * POOL_KIND_SMALL items): fills r (state DONE or ERROR). Must not print
 * or exit; may crash (that is what the pool survives). */
typedef void (*pool_work_fn)(void *ctx, const pool_item *it, pool_result *r);

typedef struct pool_stats {
    iz     total, done, errors, fallbacks, pending;
    iz     chunks, worker_deaths, retried;
    double elapsed_s;
    int    workers;
} pool_stats;

typedef void (*pool_progress_fn)(void *ctx, const pool_stats *s, bool final);

typedef struct pool_opts {
    int    workers;        /* processes; 0 = count in the caller, in order */
    int    chunk_items;    /* HEAVY items per chunk (0 = POOL_CHUNK_ITEMS) */
    iz     chunk_bytes;    /* TEXT bytes per chunk (0 = POOL_CHUNK_BYTES) */
    int    in_flight;      /* chunks in flight per worker (0 = 2) */
    double timeout_s;      /* budget for the whole run; 0 = none */
    double progress_s;     /* progress every this many seconds; 0 = never */
    pool_progress_fn progress;
    void  *progress_ctx;
    /* Called in each new worker right after fork (may be NULL), e.g. to
     * create the worker's own scratch state. */
    void (*worker_init)(void *ctx);
    /* Bytes from one item to the next in `items` (0 = sizeof(pool_item)):
     * items may be the first member of the caller's own records. */
    iz     item_size;
    /* Windows: with window > 0 the items are counted `window` at a time by
     * the same workers (so what they learn, a tokenizer's caches, stays;
     * on_window may change or free the items of its window, never later
     * ones, which workers forked later still read),
     * `results` holds one window (window entries, reset by the pool for
     * each), and on_window(window_ctx, first, n, results) is called with
     * each window's results in order, the last one possibly shorter. When
     * the budget runs out, the remaining windows are still reported, their
     * items PENDING. With window = 0 results holds all n items. */
    iz     window;
    void (*on_window)(void *ctx, iz first, iz n, pool_result *results);
    void  *window_ctx;
} pool_opts;

enum {
    POOL_CHUNK_ITEMS = 64,       /* upstream's structured chunk size */
    POOL_CHUNK_BYTES = 1 << 20,  /* about a few ms of tokenizing */
};

/* Counts items[0..n) into results[0..n) (same order; see `window` for
 * counting in windows). Without windows, items whose result is already
 * DONE or ERROR are skipped (a retry pass). Returns ERR_OK, or an error
 * when the workers could not be started or replaced (fork or pipe failed):
 * then the rest was counted in this process, in order (nothing is lost),
 * and the error says why; out of memory for the pool itself leaves every
 * item PENDING (and still reports each window). A worker that dies
 * costs its in-flight chunks only: a replacement is started and those
 * items are retried one at a time; an item on which a worker dies again is
 * an ERROR ("worker died on this item: signal N"). When the budget runs out
 * the workers are killed and what was not counted stays PENDING.
 * Workers ignore SIGINT and die with the caller. Not thread-safe (it forks
 * and waits for its own children). */
int pool_run(const pool_item *items, iz n, pool_result *results, pool_work_fn fn, void *ctx,
             const pool_opts *o, pool_stats *st, err *e);

/* Number of CPUs this process may run on (affinity mask, cgroup quota). */
int pool_cpus(void);

#endif
