/* queue.c - the queue of pending token counts (queue.h): a FIFO buffer
 * under one lock, a live lane of persistent threads fed one flush batch at
 * a time, and the drain over one pool.h pool made at its first step.
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
    bool      pre_fork;     /* buffered when the workers were forked: they see its payload */
    bool      lent;         /* DQ_LEND: the payload lives until the next drain step only */
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
    void *caller_scratch;        /* the drain's work here (and, in a worker, its own) */
    dq_entry    *live_b;         /* a live flush's items and results, made once */
    pool_result *live_res;

    /* The drain (under flush_mu). The items handed to the pool and not yet
     * delivered are fl[fl_head..fl_head+fl_len) (a ring), in their order;
     * pending ones with no expire callback wait in kept[0..nkept) to go
     * back to the buffer at the end of the step. */
    pool     *pool;
    bool      drain_on;          /* begun: the live lane is off for good */
    dq_entry *fl;
    iz        fl_head, fl_len, fl_cap;
    dq_entry *kept;
    iz        nkept, ckept;
    dq_drain_opts dopts;         /* of the step running */
    double    drain_start, next_progress;
    iz        base_done, base_errors, base_fallbacks, base_deaths;

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
static dq_entry fl_pop(dq *q);

void dq_free(dq *q)
{
    if (!q)
        return;
    dq_live_stop(q);
    threads_stop(q);
    pool_free(q->pool);
    for (iz i = q->head; i < q->tail; i++)
        entry_free(&q->e[i]);
    free(q->e);
    while (q->fl_len) {
        dq_entry x = fl_pop(q);
        entry_free(&x);
    }
    free(q->fl);
    for (iz k = 0; k < q->nkept; k++)
        entry_free(&q->kept[k]);
    free(q->kept);
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
    return dq_enqueue_op(q, cls, kind, 0, payload, tag, borrow ? DQ_BORROW : DQ_COPY);
}

bool dq_enqueue_op(dq *q, u8 cls, u8 kind, u8 op, str payload, u64 tag, int how)
{
    dq_entry x = {.it = {payload, kind, op}, .tag = tag, .cls = cls < DQ_CLASSES ? cls : DQ_CLASSES - 1,
                  .lent = how == DQ_LEND};
    if (how == DQ_COPY) {
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
            q->ops.work(q->ops.ctx, scratch, &b[i].it, 0, &res[i]);
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

/* Settles a live flush's items b[0..n): the counted ones go to the
 * recorder, the ones with nothing to count to `fail`; the others (an
 * error, or not reached by a cancelled flush) go back to the front of the
 * buffer in their order, an error marked so that the live lane does not
 * take it again. Returns the number recorded. */
static iz settle_live(dq *q, dq_entry *b, const pool_result *res, iz n)
{
    iz rec = 0, fb = 0, failed = 0, back = 0;
    for (iz k = 0; k < n; k++) {
        const pool_result *r = &res[k];
        if (r->state == POOL_DONE) {
            if (q->ops.record)
                q->ops.record(q->ops.rctx, b[k].tag, &b[k].it, r);
            rec++;
            fb += r->cls[0] != 0;
            entry_free(&b[k]);
        } else if (r->state == POOL_SKIPPED) {
            if (q->ops.fail)
                q->ops.fail(q->ops.rctx, b[k].tag, &b[k].it, r);
            failed++;
            entry_free(&b[k]);
        } else {
            if (r->state == POOL_ERROR)
                b[k].live_failed = true;
            b[back++] = b[k];   /* in order, compacted to the front of b */
        }
    }
    pthread_mutex_lock(&q->mu);
    if (!push_front(q, b, back)) {
        /* no memory to put them back: they can only be failed */
        for (iz k = 0; k < back; k++) {
            pool_result r;
            pool_result_clear(&r);
            r.state = POOL_ERROR;
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
    q->st.inflight -= rec + failed + back;
    q->st.buffered += back;
    q->st.recorded += rec;
    q->st.fallbacks += fb;
    q->st.failed += failed;
    q->st.live_recorded += rec;
    q->st.live_requeued += back;
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
    if (q->drain_on) {
        pthread_mutex_unlock(&q->flush_mu);
        err_set(e, ERR_INVALID, -1, "the drain has begun: the live lane is off");
        return -1;
    }
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
    for (iz k = 0; k < n; k++)   /* a cancelled flush leaves the rest PENDING */
        pool_result_clear(&res[k]);
    if (n)
        threads_run(q, b, res, n);
    iz done = settle_live(q, b, res, n);
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

/* The pool's work: the queue's, with the scratch of the process it runs in. */
static void drain_work(void *ctx, const pool_item *it, double deadline, pool_result *r)
{
    dq *q = ctx;
    if (!q->caller_scratch && q->ops.scratch_new)
        q->caller_scratch = q->ops.scratch_new(q->ops.ctx);
    if (!q->caller_scratch && q->ops.scratch_new) {
        r->state = POOL_ERROR;
        snprintf(r->msg, sizeof r->msg, "out of memory");
        return;
    }
    q->ops.work(q->ops.ctx, q->caller_scratch, it, deadline, r);
}

/* In a new worker: its own scratch, made at its first item (the parent's,
 * if it had one, stays untouched in the worker's copy of memory). */
static void drain_worker_init(void *ctx)
{
    dq *q = ctx;
    q->caller_scratch = NULL;
}

static void drain_progress(dq *q, bool final)
{
    const dq_drain_opts *o = &q->dopts;
    if (!o->progress)
        return;
    double now = os_now();
    if (!final && (o->progress_s <= 0 || now < q->next_progress))
        return;
    q->next_progress = now + o->progress_s;
    dq_stats s;
    dq_stats_get(q, &s);
    dq_progress p = {.elapsed_s = now - q->drain_start, .final = final};
    iz errors = s.drain_failed - q->base_errors;
    p.done = s.drain_recorded + s.drain_failed + s.expired - q->base_done;
    p.total = p.done + s.inflight + s.buffered;
    p.errors = errors;
    p.fallbacks = s.fallbacks - q->base_fallbacks;
    if (q->pool) {
        pool_stats ps;
        pool_stats_get(q->pool, &ps);
        p.worker_deaths = ps.worker_deaths;
    }
    p.rate = p.elapsed_s > 0 ? (double)p.done / p.elapsed_s : 0;
    p.eta_s = p.rate > 0 ? (double)MAX(p.total - p.done, 0) / p.rate : -1;
    o->progress(o->progress_ctx, &p);
}

static void drain_tick(void *ctx)
{
    drain_progress(ctx, false);
}

void dq_progress_format(const dq_progress *p, char *out, iz cap)
{
    if (cap <= 0)
        return;
    char deaths[64] = "";
    if (p->worker_deaths)
        snprintf(deaths, sizeof deaths, ", %td worker deaths", p->worker_deaths);
    if (p->final) {
        snprintf(out, (size_t)cap, "drain: done: %td counted, %td errors, %td fallbacks%s%s in %.1f s (%.0f items/s)",
                 p->done - p->errors, p->errors, p->fallbacks, deaths,
                 p->done < p->total ? ", the rest not counted (budget)" : "", p->elapsed_s, p->rate);
        return;
    }
    char eta[48] = "";
    if (p->eta_s >= 0)
        snprintf(eta, sizeof eta, ", ETA %.0f s", p->eta_s);
    snprintf(out, (size_t)cap, "drain: %td/%td done, %td errors, %td fallbacks%s, %.0f items/s%s", p->done, p->total,
             p->errors, p->fallbacks, deaths, p->rate, eta);
}

static dq_entry fl_pop(dq *q)
{
    dq_entry x = q->fl[q->fl_head];
    q->fl_head = (q->fl_head + 1) % q->fl_cap;
    q->fl_len--;
    return x;
}

static bool fl_push(dq *q, const dq_entry *x)
{
    if (q->fl_len == q->fl_cap) {
        iz c = q->fl_cap ? q->fl_cap * 2 : 1024;
        dq_entry *f = malloc((size_t)c * sizeof *f);
        if (!f)
            return false;
        for (iz k = 0; k < q->fl_len; k++)
            f[k] = q->fl[(q->fl_head + k) % q->fl_cap];
        free(q->fl);
        q->fl = f;
        q->fl_head = 0;
        q->fl_cap = c;
    }
    q->fl[(q->fl_head + q->fl_len) % q->fl_cap] = *x;
    q->fl_len++;
    return true;
}

/* The pool's results, in submission order: the front of fl. */
static void drain_deliver(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    (void)tag;
    dq *q = ctx;
    dq_entry x = fl_pop(q);
    /* the pool's view of the payload: a lent one is gone from the caller */
    const pool_item *view = it;
    iz rec = 0, failed = 0, expired = 0, kept = 0;
    if (r->state == POOL_DONE) {
        if (q->ops.record)
            q->ops.record(q->ops.rctx, x.tag, view, r);
        rec = 1;
    } else if (r->state == POOL_ERROR || r->state == POOL_SKIPPED) {
        if (q->ops.fail)
            q->ops.fail(q->ops.rctx, x.tag, view, r);
        failed = 1;
    } else if (q->ops.expire) {
        q->ops.expire(q->ops.rctx, x.tag, view, r);
        expired = 1;
    } else {
        if (x.lent) {   /* back to the buffer: it needs bytes of its own now */
            u8 *p = malloc((size_t)view->payload.len + 1);
            if (p) {
                if (view->payload.len)
                    memcpy(p, view->payload.s, (size_t)view->payload.len);
                p[view->payload.len] = 0;
                x.it.payload = str_from(p, view->payload.len);
                x.owned = true;
                x.lent = false;
            }
        }
        if (q->nkept == q->ckept) {
            iz c = q->ckept ? q->ckept * 2 : 256;
            dq_entry *k = realloc(q->kept, (size_t)c * sizeof *k);
            if (k) {
                q->kept = k;
                q->ckept = c;
            }
        }
        if (q->nkept < q->ckept && !x.lent) {
            q->kept[q->nkept++] = x;
            kept = 1;
        } else {
            pool_result fr;
            pool_result_clear(&fr);
            fr.state = POOL_ERROR;
            snprintf(fr.msg, sizeof fr.msg, "out of memory putting the item back in the queue");
            if (q->ops.fail)
                q->ops.fail(q->ops.rctx, x.tag, view, &fr);
            failed = 1;
        }
    }
    if (!kept)
        entry_free(&x);
    pthread_mutex_lock(&q->mu);
    q->st.inflight -= rec + failed + expired;
    q->st.recorded += rec;
    q->st.drain_recorded += rec;
    q->st.fallbacks += rec && r->cls[0];
    q->st.failed += failed;
    q->st.drain_failed += failed;
    q->st.expired += expired;
    pthread_mutex_unlock(&q->mu);
}

/* Starts the drain (under flush_mu): the pool, once. */
static int drain_begin(dq *q, err *e)
{
    if (q->pool)
        return ERR_OK;
    q->drain_on = true;
    threads_stop(q);   /* fork below from a process with one thread of ours */
    const dq_drain_opts *o = &q->dopts;
    pool_opts po = {
        .workers = o->workers,
        .chunk_items = o->chunk_items,
        .chunk_bytes = o->chunk_bytes,
        .ring_bytes = o->ring_bytes,
        .window = o->window,
        .work = drain_work,
        .work_ctx = q,
        .deliver = drain_deliver,
        .deliver_ctx = q,
        .worker_init = drain_worker_init,
        .tick = drain_tick,
        .tick_ctx = q,
        .stop = o->stop,
    };
    /* what is buffered now is in the workers' copies of this process's
     * memory: those payloads go to them without a copy */
    pthread_mutex_lock(&q->mu);
    for (iz i = q->head; i < q->tail; i++)
        q->e[i].pre_fork = !q->e[i].lent;   /* a lent payload will not stay: it is copied */
    pthread_mutex_unlock(&q->mu);
    err pe = {0};
    q->pool = pool_new(&po, &pe);
    if (!q->pool && po.workers > 0) {
        err_set(e, pe.code ? pe.code : ERR_IO, -1, "the worker processes could not start (%s): counting in this process",
                pe.msg);
        po.workers = 0;
        q->pool = pool_new(&po, &pe);
    }
    if (!q->pool)
        return err_set(e, ERR_NOMEM, -1, "out of memory");
    dq_stats s;
    dq_stats_get(q, &s);
    q->drain_start = os_now();
    q->next_progress = q->drain_start + o->progress_s;
    q->base_done = s.drain_recorded + s.drain_failed + s.expired;
    q->base_errors = s.drain_failed;
    q->base_fallbacks = s.fallbacks;
    return ERR_OK;
}

/* Hands every buffered item to the pool, in order. */
static int drain_move(dq *q)
{
    enum { TAKE = 256 };
    dq_entry take[TAKE];
    for (;;) {
        pthread_mutex_lock(&q->mu);
        iz n = MIN((iz)TAKE, q->tail - q->head);
        if (n > 0)
            memcpy(take, q->e + q->head, (size_t)n * sizeof *take);
        q->head += n;
        q->st.buffered -= n;
        q->st.inflight += n;
        pthread_mutex_unlock(&q->mu);
        if (n == 0)
            return ERR_OK;
        for (iz k = 0; k < n; k++) {
            int rc = !fl_push(q, &take[k]) ? ERR_NOMEM
                   : take[k].pre_fork ? pool_submit_shared(q->pool, &take[k].it, take[k].tag)
                                      : pool_submit(q->pool, &take[k].it, take[k].tag);
            if (rc == ERR_OK)
                continue;
            if (rc == ERR_NOMEM) {
                /* not submitted (fl_push may have taken it: it is the last) */
                if (q->fl_len && q->fl[(q->fl_head + q->fl_len - 1) % q->fl_cap].it.payload.s == take[k].it.payload.s)
                    q->fl_len--;
                pool_result r;
                pool_result_clear(&r);
                r.state = POOL_ERROR;
                snprintf(r.msg, sizeof r.msg, "out of memory handing the item to the drain");
                if (q->ops.fail)
                    q->ops.fail(q->ops.rctx, take[k].tag, &take[k].it, &r);
                entry_free(&take[k]);
                pthread_mutex_lock(&q->mu);
                q->st.inflight--;
                q->st.failed++;
                q->st.drain_failed++;
                pthread_mutex_unlock(&q->mu);
                continue;
            }
            /* stopped: what was not handed over goes back to the buffer */
            pthread_mutex_lock(&q->mu);
            if (push_front(q, take + k + 1, n - k - 1)) {
                q->st.buffered += n - k - 1;
                q->st.inflight -= n - k - 1;
            } else {
                for (iz j = k + 1; j < n; j++)
                    entry_free(&take[j]);
            }
            pthread_mutex_unlock(&q->mu);
            return rc;
        }
    }
}

/* Puts the items the deadline left (kept) back at the front of the buffer. */
static void drain_unkeep(dq *q)
{
    if (!q->nkept)
        return;
    pthread_mutex_lock(&q->mu);
    bool ok = push_front(q, q->kept, q->nkept);
    if (ok) {
        q->st.buffered += q->nkept;
        q->st.inflight -= q->nkept;
    }
    pthread_mutex_unlock(&q->mu);
    if (!ok) {
        for (iz k = 0; k < q->nkept; k++) {
            pool_result r;
            pool_result_clear(&r);
            r.state = POOL_ERROR;
            snprintf(r.msg, sizeof r.msg, "out of memory putting the item back in the queue");
            if (q->ops.fail)
                q->ops.fail(q->ops.rctx, q->kept[k].tag, &q->kept[k].it, &r);
            entry_free(&q->kept[k]);
        }
        pthread_mutex_lock(&q->mu);
        q->st.inflight -= q->nkept;
        q->st.failed += q->nkept;
        q->st.drain_failed += q->nkept;
        pthread_mutex_unlock(&q->mu);
    }
    q->nkept = 0;
}

/* One step under flush_mu; `wait`: until everything is delivered; `partial`:
 * the partly filled chunks go out. */
static int drain_run(dq *q, const dq_drain_opts *o, bool wait, bool partial, int fd, err *e)
{
    static const dq_drain_opts none = {0};
    q->dopts = o ? *o : none;
    int rc = drain_begin(q, e);
    if (rc != ERR_OK && !q->pool)
        return rc;
    rc = ERR_OK;
    pool_set_deadline(q->pool, q->dopts.deadline);
    rc = drain_move(q);
    if (rc == ERR_OK)
        rc = wait ? pool_flush(q->pool) : partial ? pool_send_partial(q->pool, fd) : pool_pump(q->pool);
    drain_unkeep(q);
    pool_stats ps;
    pool_stats_get(q->pool, &ps);
    pthread_mutex_lock(&q->mu);
    q->st.worker_deaths = ps.worker_deaths;
    pthread_mutex_unlock(&q->mu);
    return rc;
}

int dq_drain_step(dq *q, const dq_drain_opts *o, err *e)
{
    dq_live_stop(q);   /* before flush_mu: the lane may be waiting for it */
    pthread_mutex_lock(&q->flush_mu);
    int rc = drain_run(q, o, false, false, -1, e);
    pthread_mutex_unlock(&q->flush_mu);
    return rc;
}

int dq_drain_idle(dq *q, const dq_drain_opts *o, int fd, err *e)
{
    dq_live_stop(q);
    pthread_mutex_lock(&q->flush_mu);
    int rc = drain_run(q, o, false, true, fd, e);
    pthread_mutex_unlock(&q->flush_mu);
    return rc;
}

iz dq_drain(dq *q, const dq_drain_opts *o, err *e)
{
    dq_live_stop(q);
    pthread_mutex_lock(&q->flush_mu);
    int rc = drain_run(q, o, true, false, -1, e);
    if (rc != ERR_STOPPED)
        drain_progress(q, true);
    pthread_mutex_unlock(&q->flush_mu);
    return rc == ERR_STOPPED ? -1 : dq_pending(q);
}
