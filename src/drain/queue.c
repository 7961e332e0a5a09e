/* queue.c - the queue of pending token counts (queue.h): a FIFO buffer
 * under one lock, a live lane of persistent threads fed one flush batch at
 * a time, and the drain over pool.h in batches.
 *
 * Locks: `mu` guards the buffer and the statistics; `flush_mu` serialises
 * flushes (live and drain), so the recorder never runs on two threads at
 * once; `tp_mu` guards the thread pool's hand-off. Order: flush_mu, then
 * mu or tp_mu, never both of those. The recorder runs with only flush_mu
 * held, so it may enqueue. */
#define _GNU_SOURCE
#include "queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/os.h"

typedef struct dq_entry {
    pool_item it;
    u64       tag;
    u8        cls;
    bool      owned;        /* the payload is ours to free */
    bool      live_failed;  /* failed once in the live lane: left for the drain */
    bool      taken;        /* scratch mark of take_live */
} dq_entry;

struct dq {
    dq_ops ops;
    int    nthreads;
    int    live_max;

    pthread_mutex_t mu;          /* buffer and st */
    dq_entry *e;
    iz        head, tail, cap;   /* buffered items are e[head..tail) */
    dq_stats  st;

    pthread_mutex_t flush_mu;    /* one flush at a time */
    void *caller_scratch;        /* for the drain's in-process items */
    dq_entry    *live_b;         /* a live flush's items and results, made once */
    pool_result *live_res;

    /* The live lane's threads. */
    pthread_mutex_t tp_mu;
    pthread_cond_t  tp_go, tp_done;
    pthread_t       th[DQ_MAX_THREADS];
    int             nstarted;
    u64             gen;         /* batches handed out so far */
    u64             gen_base;    /* gen when the threads were started */
    int             busy;        /* threads still on the current batch */
    bool            quit;
    const dq_entry *batch;
    pool_result    *res;
    iz              bn;
    atomic_llong    next;        /* next index of the batch to take */
    atomic_bool     cancel;

    /* The live lane's own thread (dq_live_start). lane_ctl makes starts
     * and stops one at a time (a stop joins the thread). */
    pthread_mutex_t lane_ctl;
    pthread_mutex_t lane_mu;
    pthread_cond_t  lane_cv;
    pthread_t       lane;
    bool            lane_on, lane_stop;
    double          interval;
};

/* ---- the buffer (callers hold mu) ------------------------------------------- */

static bool reserve(dq *q, iz extra)
{
    iz n = q->tail - q->head;
    if (q->tail + extra <= q->cap)
        return true;
    if (q->head > 0 && n + extra <= q->cap - q->cap / 4) {
        memmove(q->e, q->e + q->head, (size_t)n * sizeof *q->e);
        q->head = 0;
        q->tail = n;
        return true;
    }
    iz c = q->cap ? q->cap : 256;
    while (c < n + extra + c / 4)
        c *= 2;
    dq_entry *e = malloc((size_t)c * sizeof *e);
    if (!e)
        return false;
    if (n)
        memcpy(e, q->e + q->head, (size_t)n * sizeof *e);
    free(q->e);
    q->e = e;
    q->cap = c;
    q->head = 0;
    q->tail = n;
    return true;
}

/* Puts b[0..n) back at the front, in their order. */
static bool push_front(dq *q, const dq_entry *b, iz n)
{
    if (n == 0)
        return true;
    if (q->head < n) {
        iz have = q->tail - q->head;
        if (q->cap < have + n) {
            iz c = q->cap ? q->cap : 256;
            while (c < have + n)
                c *= 2;
            dq_entry *e = realloc(q->e, (size_t)c * sizeof *e);
            if (!e)
                return false;
            q->e = e;
            q->cap = c;
        }
        memmove(q->e + n, q->e + q->head, (size_t)have * sizeof *q->e);
        q->head = n;
        q->tail = n + have;
    }
    q->head -= n;
    memcpy(q->e + q->head, b, (size_t)n * sizeof *b);
    return true;
}

static void entry_free(dq_entry *x)
{
    if (x->owned)
        free((void *)(uintptr_t)x->it.payload.s);
    x->owned = false;
}

/* ---- queue ------------------------------------------------------------------ */

dq *dq_new(const dq_ops *ops, const dq_opts *o, err *e)
{
    dq *q = calloc(1, sizeof *q);
    if (!q) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    q->ops = *ops;
    q->nthreads = o ? MIN(MAX(o->threads, 0), DQ_MAX_THREADS) : 0;
    q->live_max = o && o->live_max > 0 ? o->live_max : DQ_LIVE_MAX;
    pthread_mutex_init(&q->mu, NULL);
    pthread_mutex_init(&q->flush_mu, NULL);
    pthread_mutex_init(&q->tp_mu, NULL);
    pthread_cond_init(&q->tp_go, NULL);
    pthread_cond_init(&q->tp_done, NULL);
    pthread_mutex_init(&q->lane_ctl, NULL);
    pthread_mutex_init(&q->lane_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->lane_cv, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&q->next, 0);
    atomic_init(&q->cancel, false);
    return q;
}

static void threads_stop(dq *q);

void dq_free(dq *q)
{
    if (!q)
        return;
    dq_live_stop(q);
    threads_stop(q);
    for (iz i = q->head; i < q->tail; i++)
        entry_free(&q->e[i]);
    free(q->e);
    if (q->caller_scratch && q->ops.scratch_free)
        q->ops.scratch_free(q->ops.ctx, q->caller_scratch);
    free(q->live_b);
    free(q->live_res);
    pthread_mutex_destroy(&q->mu);
    pthread_mutex_destroy(&q->flush_mu);
    pthread_mutex_destroy(&q->tp_mu);
    pthread_cond_destroy(&q->tp_go);
    pthread_cond_destroy(&q->tp_done);
    pthread_mutex_destroy(&q->lane_ctl);
    pthread_mutex_destroy(&q->lane_mu);
    pthread_cond_destroy(&q->lane_cv);
    free(q);
}

bool dq_enqueue(dq *q, u8 cls, u8 kind, str payload, u64 tag, bool borrow)
{
    dq_entry x = {.it = {payload, kind}, .tag = tag, .cls = cls < DQ_CLASSES ? cls : DQ_CLASSES - 1};
    if (!borrow) {
        u8 *p = malloc((size_t)payload.len + 1);
        if (!p)
            return false;
        if (payload.len)
            memcpy(p, payload.s, (size_t)payload.len);
        p[payload.len] = 0;
        x.it.payload = str_from(p, payload.len);
        x.owned = true;
    }
    pthread_mutex_lock(&q->mu);
    bool ok = reserve(q, 1);
    if (ok) {
        q->e[q->tail++] = x;
        q->st.enqueued++;
        q->st.buffered++;
    }
    pthread_mutex_unlock(&q->mu);
    if (!ok)
        entry_free(&x);
    return ok;
}

void dq_stats_get(dq *q, dq_stats *s)
{
    pthread_mutex_lock(&q->mu);
    *s = q->st;
    pthread_mutex_unlock(&q->mu);
}

iz dq_pending(dq *q)
{
    pthread_mutex_lock(&q->mu);
    iz n = q->st.enqueued - q->st.recorded;
    pthread_mutex_unlock(&q->mu);
    return n;
}

/* ---- the live lane's threads ----------------------------------------------- */

static void *thread_main(void *arg)
{
    dq *q = arg;
    void *scratch = q->ops.scratch_new ? q->ops.scratch_new(q->ops.ctx) : NULL;
    pthread_mutex_lock(&q->tp_mu);
    u64 seen = q->gen_base;   /* not q->gen: a batch may be out before we get here */
    for (;;) {
        while (!q->quit && q->gen == seen)
            pthread_cond_wait(&q->tp_go, &q->tp_mu);
        if (q->quit)
            break;
        seen = q->gen;
        const dq_entry *b = q->batch;
        pool_result *res = q->res;
        iz n = q->bn;
        pthread_mutex_unlock(&q->tp_mu);
        while (!atomic_load(&q->cancel)) {
            iz i = (iz)atomic_fetch_add(&q->next, 1);
            if (i >= n)
                break;
            if (!scratch && q->ops.scratch_new) {
                res[i].state = POOL_ERROR;
                snprintf(res[i].msg, sizeof res[i].msg, "out of memory in a live-lane thread");
                continue;
            }
            q->ops.work(q->ops.ctx, scratch, &b[i].it, &res[i]);
        }
        pthread_mutex_lock(&q->tp_mu);
        if (--q->busy == 0)
            pthread_cond_signal(&q->tp_done);
    }
    pthread_mutex_unlock(&q->tp_mu);
    if (scratch && q->ops.scratch_free)
        q->ops.scratch_free(q->ops.ctx, scratch);
    return NULL;
}

static int threads_start(dq *q, err *e)
{
    if (q->nstarted == q->nthreads)
        return ERR_OK;
    pthread_mutex_lock(&q->tp_mu);
    q->quit = false;
    q->gen_base = q->gen;
    pthread_mutex_unlock(&q->tp_mu);
    while (q->nstarted < q->nthreads) {
        int rc = pthread_create(&q->th[q->nstarted], NULL, thread_main, q);
        if (rc) {
            threads_stop(q);
            return err_set(e, ERR_IO, -1, "cannot start a live-lane thread: %s", strerror(rc));
        }
        q->nstarted++;
    }
    return ERR_OK;
}

static void threads_stop(dq *q)
{
    pthread_mutex_lock(&q->tp_mu);
    q->quit = true;
    pthread_cond_broadcast(&q->tp_go);
    pthread_mutex_unlock(&q->tp_mu);
    for (int i = 0; i < q->nstarted; i++)
        pthread_join(q->th[i], NULL);
    q->nstarted = 0;
}

/* Counts b[0..n) on the threads; results left PENDING were not reached
 * (the lane was cancelled). */
static void threads_run(dq *q, const dq_entry *b, pool_result *res, iz n)
{
    pthread_mutex_lock(&q->tp_mu);
    q->batch = b;
    q->res = res;
    q->bn = n;
    atomic_store(&q->next, 0);
    q->busy = q->nstarted;
    q->gen++;
    pthread_cond_broadcast(&q->tp_go);
    while (q->busy > 0)
        pthread_cond_wait(&q->tp_done, &q->tp_mu);
    pthread_mutex_unlock(&q->tp_mu);
}

/* Takes at most live_max items of each class, FIFO, skipping items that
 * failed in the live lane before; the rest keep their order. */
static iz take_live(dq *q, dq_entry *out)
{
    iz cnt[DQ_CLASSES] = {0}, n = 0, i = q->head;
    int full = 0;
    for (; i < q->tail && full < DQ_CLASSES; i++) {
        dq_entry *x = &q->e[i];
        if (x->live_failed || cnt[x->cls] >= q->live_max)
            continue;
        if (++cnt[x->cls] == q->live_max)
            full++;
        x->taken = true;
        out[n++] = *x;
    }
    /* close the gaps: the kept items of e[head..i) move back to end at i */
    iz dst = i;
    for (iz j = i; j-- > q->head;)
        if (!q->e[j].taken)
            q->e[--dst] = q->e[j];
    q->head = dst;
    for (iz k = 0; k < n; k++)
        out[k].taken = false;
    q->st.buffered -= n;
    q->st.inflight += n;
    return n;
}

/* Hands the counted items of b[0..n) to the recorder; the others are
 * given back (requeue) or failed (drain). `live` selects the rules.
 * With `keep` (the drain), the items to give back are appended to
 * keep[*nkeep...] instead (in order; keep may be b itself or lie before
 * it) and stay counted in inflight. Returns the number recorded. */
static iz settle(dq *q, dq_entry *b, const pool_result *res, iz n, bool live, dq_entry *keep, iz *nkeep)
{
    iz rec = 0, fb = 0, failed = 0, back = 0;
    for (iz k = 0; k < n; k++) {
        const pool_result *r = &res[k];
        if (r->state == POOL_DONE) {
            if (q->ops.record)
                q->ops.record(q->ops.rctx, b[k].tag, &b[k].it, r);
            rec++;
            fb += r->fallback != 0;
            entry_free(&b[k]);
        } else if (r->state == POOL_ERROR && !live) {
            if (q->ops.fail)
                q->ops.fail(q->ops.rctx, b[k].tag, &b[k].it, r);
            failed++;
            entry_free(&b[k]);
        } else {
            if (r->state == POOL_ERROR)
                b[k].live_failed = true;
            if (keep)
                keep[(*nkeep)++] = b[k];
            else
                b[back++] = b[k];   /* in order, compacted to the front of b */
        }
    }
    pthread_mutex_lock(&q->mu);
    if (!push_front(q, b, back)) {
        /* no memory to put them back: they can only be failed */
        for (iz k = 0; k < back; k++) {
            pool_result r = {.state = POOL_ERROR};
            snprintf(r.msg, sizeof r.msg, "out of memory putting the item back in the queue");
            pthread_mutex_unlock(&q->mu);
            if (q->ops.fail)
                q->ops.fail(q->ops.rctx, b[k].tag, &b[k].it, &r);
            pthread_mutex_lock(&q->mu);
            entry_free(&b[k]);
        }
        failed += back;
        back = 0;
    }
    q->st.inflight -= rec + failed + back;   /* kept ones stay in flight */
    q->st.buffered += back;
    q->st.recorded += rec;
    q->st.fallbacks += fb;
    q->st.failed += failed;
    if (live) {
        q->st.live_recorded += rec;
        q->st.live_requeued += back;
    } else {
        q->st.drain_recorded += rec;
        q->st.drain_failed += failed;
    }
    pthread_mutex_unlock(&q->mu);
    return rec;
}

iz dq_flush_live(dq *q, err *e)
{
    if (q->nthreads == 0) {
        err_set(e, ERR_INVALID, -1, "the live lane has no threads");
        return -1;
    }
    pthread_mutex_lock(&q->flush_mu);
    if (threads_start(q, e) != ERR_OK) {
        pthread_mutex_unlock(&q->flush_mu);
        return -1;
    }
    if (!q->live_b) {
        iz cap = (iz)q->live_max * DQ_CLASSES;
        q->live_b = malloc((size_t)cap * sizeof *q->live_b);
        q->live_res = malloc((size_t)cap * sizeof *q->live_res);
        if (!q->live_b || !q->live_res) {
            free(q->live_b);
            free(q->live_res);
            q->live_b = NULL;
            q->live_res = NULL;
            pthread_mutex_unlock(&q->flush_mu);
            err_set(e, ERR_NOMEM, -1, "out of memory");
            return -1;
        }
    }
    dq_entry *b = q->live_b;
    pool_result *res = q->live_res;
    pthread_mutex_lock(&q->mu);
    iz n = take_live(q, b);
    q->st.live_flushes++;
    pthread_mutex_unlock(&q->mu);
    for (iz k = 0; k < n; k++) {   /* a cancelled flush leaves the rest PENDING */
        res[k].state = POOL_PENDING;
        res[k].fallback = 0;
        res[k].n = 0;
        res[k].msg[0] = 0;
    }
    if (n)
        threads_run(q, b, res, n);
    iz done = settle(q, b, res, n, true, NULL, NULL);
    pthread_mutex_unlock(&q->flush_mu);
    return done;
}

/* ---- the live lane's own thread ------------------------------------------------ */

static void *lane_main(void *arg)
{
    dq *q = arg;
    struct timespec due;
    clock_gettime(CLOCK_MONOTONIC, &due);
    pthread_mutex_lock(&q->lane_mu);
    for (;;) {
        i64 ns = (i64)due.tv_nsec + (i64)(q->interval * 1e9);
        due.tv_sec += (time_t)(ns / 1000000000);
        due.tv_nsec = (long)(ns % 1000000000);
        while (!q->lane_stop) {
            if (pthread_cond_timedwait(&q->lane_cv, &q->lane_mu, &due) == ETIMEDOUT)
                break;
        }
        if (q->lane_stop)
            break;
        pthread_mutex_unlock(&q->lane_mu);
        err e = {0};
        dq_flush_live(q, &e);   /* an error (no memory) is tried again next time */
        clock_gettime(CLOCK_MONOTONIC, &due);
        pthread_mutex_lock(&q->lane_mu);
    }
    pthread_mutex_unlock(&q->lane_mu);
    return NULL;
}

int dq_live_start(dq *q, double interval_s, err *e)
{
    if (q->nthreads == 0)
        return err_set(e, ERR_INVALID, -1, "the live lane has no threads");
    pthread_mutex_lock(&q->lane_ctl);
    pthread_mutex_lock(&q->lane_mu);
    int rc = 0;
    if (!q->lane_on) {
        q->interval = interval_s > 0 ? interval_s : 0.25;
        q->lane_stop = false;
        rc = pthread_create(&q->lane, NULL, lane_main, q);
        q->lane_on = rc == 0;
    }
    pthread_mutex_unlock(&q->lane_mu);
    pthread_mutex_unlock(&q->lane_ctl);
    if (rc)
        return err_set(e, ERR_IO, -1, "cannot start the live lane: %s", strerror(rc));
    return ERR_OK;
}

void dq_live_stop(dq *q)
{
    pthread_mutex_lock(&q->lane_ctl);   /* one stop (one join) at a time */
    pthread_mutex_lock(&q->lane_mu);
    bool on = q->lane_on;
    q->lane_stop = true;
    pthread_cond_signal(&q->lane_cv);
    pthread_mutex_unlock(&q->lane_mu);
    if (on) {
        atomic_store(&q->cancel, true);   /* a flush in progress stops taking items */
        pthread_join(q->lane, NULL);
        atomic_store(&q->cancel, false);
        pthread_mutex_lock(&q->lane_mu);
        q->lane_on = false;
        pthread_mutex_unlock(&q->lane_mu);
    }
    pthread_mutex_unlock(&q->lane_ctl);
}

/* ---- the drain ----------------------------------------------------------------- */

typedef struct drain {
    dq   *q;
    void *scratch;        /* the caller's; a forked worker uses its copy */
    const dq_drain_opts *o;
    iz    total;          /* items buffered when the drain started */
    iz    base_done, base_failed, base_fallbacks, base_deaths;   /* stats then */
    iz    prev_done, prev_errors, prev_fallbacks, prev_deaths;   /* of earlier pool runs */
    dq_entry *all;        /* the items taken, their pending ones compacted to the front */
    iz    nkeep;
    iz    settled;        /* items of `all` the pool reported (windows seen) */
    double start, next_progress;
} drain;

static void drain_work(void *ctx, const pool_item *it, pool_result *r)
{
    drain *d = ctx;
    if (!d->scratch && d->q->ops.scratch_new)
        d->scratch = d->q->ops.scratch_new(d->q->ops.ctx);
    if (!d->scratch && d->q->ops.scratch_new) {
        r->state = POOL_ERROR;
        snprintf(r->msg, sizeof r->msg, "out of memory");
        return;
    }
    d->q->ops.work(d->q->ops.ctx, d->scratch, it, r);
}

static void drain_progress(drain *d, const pool_stats *ps, bool final)
{
    if (!d->o->progress)
        return;
    double now = os_now();
    if (!final && now < d->next_progress)
        return;
    d->next_progress = now + d->o->progress_s;
    dq_progress p = {.total = d->total, .elapsed_s = now - d->start, .final = final};
    if (ps) {   /* the pool run in progress: its own totals so far */
        p.done = d->prev_done + ps->done + ps->errors;
        p.errors = d->prev_errors + ps->errors;
        p.fallbacks = d->prev_fallbacks + ps->fallbacks;
        p.worker_deaths = d->prev_deaths + ps->worker_deaths;
    } else {
        dq_stats s;
        dq_stats_get(d->q, &s);
        p.done = s.drain_recorded - d->base_done + s.drain_failed - d->base_failed;
        p.errors = s.drain_failed - d->base_failed;
        p.fallbacks = s.fallbacks - d->base_fallbacks;
        p.worker_deaths = s.worker_deaths - d->base_deaths;
    }
    p.rate = p.elapsed_s > 0 ? (double)p.done / p.elapsed_s : 0;
    p.eta_s = p.rate > 0 ? (double)MAX(p.total - p.done, 0) / p.rate : -1;
    d->o->progress(d->o->progress_ctx, &p);
}

void dq_progress_format(const dq_progress *p, char *out, iz cap)
{
    if (cap <= 0)
        return;
    if (p->final) {
        snprintf(out, (size_t)cap, "drain: done: %td counted, %td errors, %td fallbacks%s in %.1f s (%.0f items/s)",
                 p->done - p->errors, p->errors, p->fallbacks,
                 p->done < p->total ? ", the rest not counted (budget)" : "", p->elapsed_s, p->rate);
        return;
    }
    char eta[48] = "";
    if (p->eta_s >= 0)
        snprintf(eta, sizeof eta, ", ETA %.0f s", p->eta_s);
    snprintf(out, (size_t)cap, "drain: %td/%td done, %td errors, %td fallbacks, %.0f items/s%s", p->done, p->total,
             p->errors, p->fallbacks, p->rate, eta);
}

static void pool_progress_cb(void *ctx, const pool_stats *s, bool final)
{
    if (!final)
        drain_progress(ctx, s, false);
}

/* The pool's window callback: records, fails and keeps the pending. */
static void drain_window(void *ctx, iz first, iz n, pool_result *res)
{
    drain *d = ctx;
    settle(d->q, d->all + first, res, n, false, d->all, &d->nkeep);
    d->settled = first + n;
}

/* One pool run over all[0..n) in windows: its pending items end up in
 * all[0..d->nkeep). */
static int drain_run(drain *d, iz n, int workers, double timeout_s, pool_result *res, err *pe)
{
    const dq_drain_opts *o = d->o;
    pool_opts po = {
        .workers = workers,
        .chunk_items = o->chunk_items,
        .chunk_bytes = o->chunk_bytes,
        .timeout_s = timeout_s,
        .progress_s = o->progress && o->progress_s > 0 ? MIN(o->progress_s, 1.0) : 0,
        .progress = pool_progress_cb,
        .progress_ctx = d,
        .item_size = (iz)sizeof(dq_entry),
        .window = DQ_DRAIN_BATCH,
        .on_window = drain_window,
        .window_ctx = d,
    };
    pool_stats ps;
    d->nkeep = 0;
    d->settled = 0;
    int rc = pool_run(&d->all[0].it, n, res, drain_work, d, &po, &ps, pe);
    /* items the pool never reported (it could not run at all) are kept */
    if (d->settled < n) {
        memmove(d->all + d->nkeep, d->all + d->settled, (size_t)(n - d->settled) * sizeof *d->all);
        d->nkeep += n - d->settled;
    }
    d->prev_done += ps.done + ps.errors;
    d->prev_errors += ps.errors;
    d->prev_fallbacks += ps.fallbacks;
    d->prev_deaths += ps.worker_deaths;
    pthread_mutex_lock(&d->q->mu);
    d->q->st.worker_deaths += ps.worker_deaths;
    pthread_mutex_unlock(&d->q->mu);
    return rc;
}

iz dq_drain(dq *q, const dq_drain_opts *o, err *e)
{
    static const dq_drain_opts none = {0};
    if (!o)
        o = &none;
    dq_live_stop(q);
    pthread_mutex_lock(&q->flush_mu);
    threads_stop(q);   /* fork below from a process with one thread */
    drain d = {.q = q, .o = o, .start = os_now()};
    d.next_progress = d.start + o->progress_s;
    if (!q->caller_scratch && q->ops.scratch_new)
        q->caller_scratch = q->ops.scratch_new(q->ops.ctx);
    d.scratch = q->caller_scratch;
    pool_result *res = malloc(DQ_DRAIN_BATCH * sizeof *res);
    if (!res) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        drain_progress(&d, NULL, true);
        pthread_mutex_unlock(&q->flush_mu);
        return dq_pending(q);
    }
    /* Take the whole buffer, without copying it: the workers, forked for
     * the first window, read the items from their copy of this array, and
     * enqueues meanwhile start a new one. */
    pthread_mutex_lock(&q->mu);
    dq_entry *block = q->e;
    iz n = q->tail - q->head;
    d.all = q->e + q->head;
    d.total = n;
    q->e = NULL;
    q->cap = q->head = q->tail = 0;
    q->st.buffered -= n;
    q->st.inflight += n;
    d.base_done = q->st.drain_recorded;
    d.base_failed = q->st.drain_failed;
    d.base_fallbacks = q->st.fallbacks;
    d.base_deaths = q->st.worker_deaths;
    pthread_mutex_unlock(&q->mu);

    if (n > 0) {
        err pe = {0};
        /* if the workers fail, the pool counts the rest here itself */
        if (drain_run(&d, n, o->workers, o->timeout_s, res, &pe) != ERR_OK)
            err_set(e, pe.code ? pe.code : ERR_IO, -1, "%s", pe.msg);
    }
    /* what the budget left goes back to the front, in order */
    pthread_mutex_lock(&q->mu);
    bool ok = push_front(q, d.all, d.nkeep);
    if (ok) {
        q->st.buffered += d.nkeep;
        q->st.inflight -= d.nkeep;
    }
    pthread_mutex_unlock(&q->mu);
    if (!ok) {
        for (iz k = 0; k < d.nkeep; k++) {
            pool_result r = {.state = POOL_ERROR};
            snprintf(r.msg, sizeof r.msg, "out of memory putting the item back in the queue");
            if (q->ops.fail)
                q->ops.fail(q->ops.rctx, d.all[k].tag, &d.all[k].it, &r);
            entry_free(&d.all[k]);
        }
        pthread_mutex_lock(&q->mu);
        q->st.inflight -= d.nkeep;
        q->st.failed += d.nkeep;
        q->st.drain_failed += d.nkeep;
        pthread_mutex_unlock(&q->mu);
    }
    free(block);
    free(res);
    /* a scratch the work made here (the first attempt had failed) is kept */
    if (d.scratch && d.scratch != q->caller_scratch) {
        if (!q->caller_scratch)
            q->caller_scratch = d.scratch;
        else if (q->ops.scratch_free)
            q->ops.scratch_free(q->ops.ctx, d.scratch);
    }
    drain_progress(&d, NULL, true);
    pthread_mutex_unlock(&q->flush_mu);
    return dq_pending(q);
}
