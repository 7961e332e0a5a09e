/* agg.h - upstream's MetricsAggregatorService.process and its finalize
 * (metrics_aggregator/aggregator.py, docs/upstream-aggregator.md §6-§9):
 * events in, one at a time, in order; the per-sample table and its
 * triggers; token counts through the queue (drain/queue.h) with the
 * counting work of drain/count_ops.h and the rule of agg/inputs.h; the
 * registry; the final snapshot. Knows no file, socket or argv: src/io/
 * feeds it and writes what it makes.
 *
 * Token counts: a count a trigger asks for (ISL of a text or prompt, OSL,
 * TPOT) is enqueued and counted on worker processes as the events come
 * (the caller lends the event's payload: it is copied before agg_process
 * returns); its result is kept and recorded into its series only at
 * agg_finish, in enqueue order, as upstream's end-of-run drain records
 * them, so that a float series' sums (tpot_ns) come out bit for bit
 * (with the live lane, agg_record_ready records the settled prefix of
 * that order as the run goes). A
 * run without session.ended records none of them (upstream's SIGTERM path
 * has no drain): they are the snapshot's pending tasks.
 * Depends on agg/, drain/, chat/ and base/. Not thread-safe: one thread
 * calls every function (the live lane's threads are the aggregator's own). */
#ifndef TALLY_AGG_H
#define TALLY_AGG_H

#include <signal.h>
#include "../chat/count.h"
#include "../drain/queue.h"
#include "event.h"
#include "registry.h"

typedef struct agg_opts {
    bool   streaming;         /* --streaming: ttft, chunk_delta, tpot */
    bool   early_stopping;    /* --early-stopping */
    int    sig_figs;          /* --hdr-sig-figs (3) */
    int    n_buckets;         /* --n-histogram-buckets (30) */
    const count_model *model; /* the tokenizer and templates; NULL: none (token ids still give ISL) */
    /* The counting work instead of count_ops over `model` (tests count
     * with a stand-in); its record/fail/expire and rctx are the
     * aggregator's. NULL: count_ops. */
    const dq_ops *ops;
    int    workers;           /* processes that count (0: in this process) */
    volatile sig_atomic_t *stop;   /* a signal's flag, or NULL */
    /* progress of the counting while the caller waits (agg_finish) */
    double progress_s;
    void (*progress)(void *ctx, const dq_progress *p);
    void  *progress_ctx;
    /* a warning for a person (a duplicate STARTED, the pool falling back
     * to this process, ...), or NULL */
    void (*warn)(void *ctx, const char *msg);
    void  *warn_ctx;
    /* A live run (tally aggregate) rather than a log: no worker process
     * during the run (the payloads are copied into the queue, the drain's
     * workers start at agg_finish); with live_threads, the live lane
     * (agg_live_start) counts on that many threads of this process as the
     * run goes, at most DQ_LIVE_MAX items of each input kind a flush. */
    bool   defer;
    int    live_threads;
} agg_opts;

typedef struct agg agg;

agg *agg_new(const agg_opts *o, err *e);
void agg_free(agg *g);

/* One event, as process() handles one record. After session.ended every
 * event is ignored. ERR_OK, ERR_STOPPED (the stop flag) or ERR_NOMEM. */
int  agg_process(agg *g, const agg_event *ev);
bool agg_ended(const agg *g);

/* The registry and the table, for inspection (tests). */
agg_registry *agg_registry_of(agg *g);
agg_table    *agg_table_of(agg *g);

/* Counting so far: items enqueued, counted, failed (they stay pending). */
void agg_counts(agg *g, iz *enqueued, iz *counted, iz *failed);

/* The live lane (defer and live_threads): a flush every interval_s on
 * threads of this process, until agg_finish. ERR_OK (also when there is
 * no lane to start), or the error of a thread that cannot start. */
int  agg_live_start(agg *g, double interval_s, err *e);
/* Records into their series the counts the live lane has made, in
 * enqueue order: the longest prefix of the queued counts that are all
 * settled (for a live snapshot; agg_finish records the rest, so the order
 * is the drain's whatever the lane's timing). Returns how many were
 * recorded now. With the lane running, the one call of this that may run
 * while another thread counts. */
iz   agg_record_ready(agg *g);
/* Upstream's n_pending_tasks now: counts queued and not recorded. */
iz   agg_pending(agg *g);

/* After session.ended: the drain (counting what is left, until
 * `deadline`, os_now() clock, 0 = none), the token counts recorded in
 * enqueue order, the two duration counters set; then the COMPLETE
 * snapshot. Without session.ended (`interrupted`): no drain, nothing
 * recorded, the INTERRUPTED snapshot with every enqueued count pending.
 * ERR_OK, ERR_STOPPED or ERR_NOMEM. */
int  agg_finish(agg *g, bool interrupted, double deadline, i64 timestamp_ns, agg_snapshot *snap, err *e);

#endif
