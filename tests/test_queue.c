/* test_queue.c - the queue of pending counts (src/drain/queue.c): the live
 * lane (threads, the per-class cap, failed and cancelled items back at the
 * front, never a worker process), the drain (worker processes, input order,
 * failures that stay pending, the budget, a killed worker, more than one
 * batch), items enqueued while the lane runs, and the real counting work
 * (count_ops) giving the same count in every lane. Synthetic items are
 * driven by their payloads as in test_pool: "n:K" counts K, "err" is an
 * error, "pid" counts the process id, "tid" the thread id, "sleep:MS"
 * sleeps, "die-once:PATH" kills its worker unless PATH exists. In every
 * test: recorded + failed + expired + buffered + inflight == enqueued, and
 * every item is recorded at most once. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "test.h"
#include "test_util.h"
#include "../src/base/os.h"
#include "../src/chat/count.h"
#include "../src/chat/shapes.h"
#include "../src/drain/count_ops.h"
#include "../src/drain/queue.h"


/* ---- synthetic work ----------------------------------------------------------- */

static int scratch_made;   /* scratch_new calls in this process */
static pthread_mutex_t scratch_mu = PTHREAD_MUTEX_INITIALIZER;

static void *syn_scratch_new(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&scratch_mu);
    scratch_made++;
    pthread_mutex_unlock(&scratch_mu);
    return malloc(16);
}

static void syn_scratch_free(void *ctx, void *s)
{
    (void)ctx;
    free(s);
}

static void syn_work(void *ctx, void *scratch, const pool_item *it, double deadline, pool_result *r)
{
    (void)ctx;
    (void)scratch;
    (void)deadline;
    str s = it->payload;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%.*s", (int)MIN(s.len, 255), (const char *)s.s);
    pool_result_clear(r);
    r->state = POOL_DONE;
    if (test_starts(s, "n:")) {
        r->n = atoll(tmp + 2);
    } else if (str_eq(s, S("err"))) {
        r->state = POOL_ERROR;
        snprintf(r->msg, sizeof r->msg, "bad item");
    } else if (str_eq(s, S("pid"))) {
        r->n = getpid();
    } else if (str_eq(s, S("tid"))) {
        r->n = (i64)syscall(SYS_gettid);
    } else if (test_starts(s, "sleep:")) {
        test_sleep_ms(atoi(tmp + 6));
        r->n = 1;
    } else if (test_starts(s, "die-once:")) {
        struct stat sb;
        if (stat(tmp + 9, &sb) != 0) {
            FILE *f = fopen(tmp + 9, "w");
            if (f)
                fclose(f);
            kill(getpid(), SIGKILL);
        }
        r->n = 1;
    } else {
        r->state = POOL_ERROR;
        snprintf(r->msg, sizeof r->msg, "unknown payload");
    }
}

/* What the recorder saw: per tag, the count and how often it was recorded
 * or failed; the order of recording. */
enum { MAX_TAGS = 40000 };

typedef struct seen {
    pthread_mutex_t mu;
    i64  n[MAX_TAGS];
    int  recorded[MAX_TAGS], failed[MAX_TAGS];
    u64  order[MAX_TAGS * 2];
    iz   norder, nrec, nfail;
    char last_fail[POOL_MSG_MAX];
} seen;

static seen *seen_new(void)
{
    seen *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    return s;
}

static void on_record(void *rctx, u64 tag, const pool_item *it, const pool_result *r)
{
    (void)it;
    seen *s = rctx;
    pthread_mutex_lock(&s->mu);
    if (tag < MAX_TAGS) {
        s->n[tag] = r->n;
        s->recorded[tag]++;
    }
    if (s->norder < MAX_TAGS * 2)
        s->order[s->norder++] = tag;
    s->nrec++;
    pthread_mutex_unlock(&s->mu);
}

static void on_fail(void *rctx, u64 tag, const pool_item *it, const pool_result *r)
{
    (void)it;
    seen *s = rctx;
    pthread_mutex_lock(&s->mu);
    if (tag < MAX_TAGS)
        s->failed[tag]++;
    s->nfail++;
    snprintf(s->last_fail, sizeof s->last_fail, "%s", r->msg);
    pthread_mutex_unlock(&s->mu);
}

static dq *syn_queue(seen *s, int threads, int live_max)
{
    dq_ops ops = {.scratch_new = syn_scratch_new, .scratch_free = syn_scratch_free, .work = syn_work,
                  .record = on_record, .fail = on_fail, .rctx = s};
    dq_opts o = {.threads = threads, .live_max = live_max};
    err e = {0};
    dq *q = dq_new(&ops, &o, &e);
    return q;
}

static void check_invariant(dq *q)
{
    dq_stats st;
    dq_stats_get(q, &st);
    EXPECT_EQ(st.recorded + st.failed + st.expired + st.buffered + st.inflight, st.enqueued);
    EXPECT_EQ(dq_pending(q), st.enqueued - st.recorded);
}

/* Every tag in [0, n) recorded exactly once, none failed. */
static void check_all_once(const seen *s, iz n)
{
    iz bad = 0;
    for (iz t = 0; t < n; t++)
        bad += s->recorded[t] != 1 || s->failed[t] != 0;
    EXPECT_EQ(bad, 0);
}

/* Strings that live as long as the test binary: "n:0" ... */
static char numbers[MAX_TAGS][16];

static str num(iz k)
{
    snprintf(numbers[k], sizeof numbers[k], "n:%td", k);
    return str_cstr(numbers[k]);
}

/* ---- the live lane ------------------------------------------------------------ */

static void test_live_threads_not_workers(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 2, 0);
    REQUIRE(q);
    for (iz k = 0; k < 200; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, S("pid"), (u64)k, false));
    for (iz k = 200; k < 400; k++)
        REQUIRE(dq_enqueue(q, 1, POOL_KIND_HEAVY, S("tid"), (u64)k, false));
    err e = {0};
    EXPECT_EQ(dq_flush_live(q, &e), 400);
    check_invariant(q);
    iz other_pid = 0, main_tid = 0;
    i64 me = (i64)syscall(SYS_gettid);
    for (iz k = 0; k < 200; k++)
        other_pid += s->n[k] != getpid();
    for (iz k = 200; k < 400; k++)
        main_tid += s->n[k] == me;
    EXPECT_EQ(other_pid, 0);   /* the live lane never uses another process */
    EXPECT_EQ(main_tid, 0);    /* nor the caller's thread: its own threads */
    EXPECT_EQ(dq_pending(q), 0);
    check_all_once(s, 400);
    /* in recording order = input order */
    iz out_of_order = 0;
    for (iz k = 0; k < s->norder; k++)
        out_of_order += s->order[k] != (u64)k;
    EXPECT_EQ(out_of_order, 0);
    dq_free(q);
    free(s);
}

/* At most live_max of each class per flush, FIFO; the rest keep order. */
static void test_live_cap_per_class(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 2, 100);
    REQUIRE(q);
    /* class of item k: 0 for k < 250, 1 for 250..259, 2 after */
    for (iz k = 0; k < 500; k++)
        REQUIRE(dq_enqueue(q, k < 250 ? 0 : k < 260 ? 1 : 2, POOL_KIND_HEAVY, num(k), (u64)k, true));
    err e = {0};
    EXPECT_EQ(dq_flush_live(q, &e), 100 + 10 + 100);
    check_invariant(q);
    for (iz k = 0; k < 500; k++) {
        bool want = k < 100 || (k >= 250 && k < 260) || (k >= 260 && k < 360);
        if (s->recorded[k] != (want ? 1 : 0)) {
            printf("#   item %td recorded %d times after one flush\n", k, s->recorded[k]);
            test_cur_failed = 1;
            break;
        }
    }
    /* what is left drains in its original order */
    iz before = s->norder;
    dq_drain_opts o = {.workers = 0};
    EXPECT_EQ(dq_drain(q, &o, &e), 0);
    check_invariant(q);
    u64 prev = 0;
    iz bad = 0;
    for (iz k = before; k < s->norder; k++) {
        bad += k > before && s->order[k] <= prev;
        prev = s->order[k];
    }
    EXPECT_EQ(bad, 0);
    check_all_once(s, 500);
    EXPECT_EQ(s->n[499], 499);
    dq_free(q);
    free(s);
}

/* A live failure goes back to the front, is not retried live, and the
 * drain fails it for good; it stays pending (upstream's n_pending_tasks). */
static void test_live_failure_requeued_front(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 2, 0);
    REQUIRE(q);
    for (iz k = 0; k < 50; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, k % 10 == 3 ? S("err") : num(k), (u64)k, true));
    err e = {0};
    EXPECT_EQ(dq_flush_live(q, &e), 45);
    dq_stats st;
    dq_stats_get(q, &st);
    EXPECT_EQ(st.buffered, 5);
    EXPECT_EQ(st.live_requeued, 5);
    EXPECT_EQ(dq_pending(q), 5);
    check_invariant(q);
    /* new items go behind the failed ones; the live lane skips the failed */
    for (iz k = 50; k < 60; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, num(k), (u64)k, true));
    EXPECT_EQ(dq_flush_live(q, &e), 10);
    dq_stats_get(q, &st);
    EXPECT_EQ(st.buffered, 5);
    EXPECT_EQ(st.live_requeued, 5);   /* not taken again */
    /* the drain tries them again (workers) and fails them: still pending */
    dq_drain_opts o = {.workers = 2};
    EXPECT_EQ(dq_drain(q, &o, &e), 5);
    dq_stats_get(q, &st);
    EXPECT_EQ(st.failed, 5);
    EXPECT_EQ(st.drain_failed, 5);
    EXPECT_EQ(st.buffered, 0);
    EXPECT_EQ(s->nfail, 5);
    EXPECT_STR(str_cstr(s->last_fail), S("bad item"));
    for (iz k = 0; k < 60; k++)
        EXPECT_EQ(s->recorded[k] + s->failed[k], 1);
    check_invariant(q);
    dq_free(q);
    free(s);
}

/* Stopping the lane mid-flush: what was not reached goes back to the
 * front in order; nothing is lost or counted twice. */
static void test_live_cancel(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 2, 0);
    REQUIRE(q);
    for (iz k = 0; k < 60; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, S("sleep:20"), (u64)k, true));
    err e = {0};
    REQUIRE(dq_live_start(q, 0.01, &e) == ERR_OK);
    test_sleep_ms(150);
    dq_live_stop(q);
    dq_stats st;
    dq_stats_get(q, &st);
    check_invariant(q);
    EXPECT(st.recorded > 0);
    EXPECT(st.buffered > 0);   /* 60 items of 20 ms on 2 threads take 600 ms */
    EXPECT_EQ(st.inflight, 0);
    EXPECT_EQ(st.recorded + st.buffered, 60);
    iz live = st.recorded;
    dq_drain_opts o = {.workers = 0};
    EXPECT_EQ(dq_drain(q, &o, &e), 0);
    check_all_once(s, 60);
    /* the drain recorded the rest in tag order */
    iz bad = 0;
    for (iz k = live + 1; k < s->norder; k++)
        bad += s->order[k] <= s->order[k - 1];
    EXPECT_EQ(bad, 0);
    check_invariant(q);
    dq_free(q);
    free(s);
}

/* Two threads stop the lane at once (dq_drain on one and dq_free on
 * another can): both return, and nothing is lost. */
static void *stop_lane(void *arg)
{
    dq_live_stop(arg);
    return NULL;
}

static void test_live_stop_twice_at_once(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 2, 0);
    REQUIRE(q);
    for (iz k = 0; k < 40; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, S("sleep:20"), (u64)k, true));
    err e = {0};
    for (int round = 0; round < 3; round++) {
        REQUIRE(dq_live_start(q, 0.001, &e) == ERR_OK);
        test_sleep_ms(10);
        pthread_t a, b;
        REQUIRE(pthread_create(&a, NULL, stop_lane, q) == 0);
        REQUIRE(pthread_create(&b, NULL, stop_lane, q) == 0);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        check_invariant(q);
    }
    dq_drain_opts o = {.workers = 0};
    EXPECT_EQ(dq_drain(q, &o, &e), 0);
    check_all_once(s, 40);
    dq_free(q);
    free(s);
}

/* A producer enqueues while the lane flushes every millisecond: every item
 * is recorded once, and the invariant holds at every moment sampled. */
typedef struct producer {
    dq *q;
    iz  n;
    iz  bad_invariant;
} producer;

static void *produce(void *arg)
{
    producer *p = arg;
    for (iz k = 0; k < p->n; k++) {
        dq_enqueue(p->q, (u8)(k % 3), POOL_KIND_HEAVY, num(k), (u64)k, true);
        if (k % 97 == 0) {
            dq_stats st;
            dq_stats_get(p->q, &st);
            p->bad_invariant += st.recorded + st.failed + st.buffered + st.inflight != st.enqueued;
        }
    }
    return NULL;
}

static void test_enqueue_while_live(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 2, 64);
    REQUIRE(q);
    err e = {0};
    REQUIRE(dq_live_start(q, 0.001, &e) == ERR_OK);
    producer p = {.q = q, .n = 20000};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, produce, &p) == 0);
    pthread_join(th, NULL);
    test_sleep_ms(20);
    dq_stats st;
    dq_stats_get(q, &st);
    EXPECT(st.live_flushes > 0);
    dq_drain_opts o = {.workers = 2};
    EXPECT_EQ(dq_drain(q, &o, &e), 0);
    EXPECT_EQ(p.bad_invariant, 0);
    check_all_once(s, 20000);
    iz wrong = 0;
    for (iz k = 0; k < 20000; k++)
        wrong += s->n[k] != k;
    EXPECT_EQ(wrong, 0);
    check_invariant(q);
    dq_free(q);
    free(s);
}

/* ---- the drain ---------------------------------------------------------------- */

/* More items than the pool's window, every kind: the workers count what
 * the caller would, in input order; heavy and text items on worker
 * processes, small ones in the caller. */
static void test_drain_order_and_lanes(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 0, 0);
    REQUIRE(q);
    iz n = POOL_WINDOW + 3000;
    for (iz k = 0; k < n; k++) {
        u8 kind = (u8)(k % 3);   /* SMALL, TEXT, HEAVY */
        bool pid = k % 100 < 3;
        REQUIRE(dq_enqueue(q, kind, kind, pid ? S("pid") : num(k), (u64)k, true));
    }
    err e = {0};
    dq_drain_opts o = {.workers = 2};
    EXPECT_EQ(dq_drain(q, &o, &e), 0);
    EXPECT_EQ(e.code, ERR_OK);
    check_all_once(s, n);
    iz wrong = 0, small_elsewhere = 0, heavy_here = 0;
    for (iz k = 0; k < n; k++) {
        if (k % 100 < 3) {
            small_elsewhere += k % 3 == POOL_KIND_SMALL && s->n[k] != getpid();
            heavy_here += k % 3 != POOL_KIND_SMALL && s->n[k] == getpid();
        } else {
            wrong += s->n[k] != k;
        }
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(small_elsewhere, 0);
    EXPECT_EQ(heavy_here, 0);
    iz out_of_order = 0;
    for (iz k = 0; k < s->norder; k++)
        out_of_order += s->order[k] != (u64)k;
    EXPECT_EQ(out_of_order, 0);
    dq_stats st;
    dq_stats_get(q, &st);
    EXPECT_EQ(st.drain_recorded, n);
    EXPECT_EQ(st.live_flushes, 0);
    check_invariant(q);
    dq_free(q);
    free(s);
}

static int progress_calls, progress_finals;
static dq_progress progress_last;

static void on_progress(void *ctx, const dq_progress *p)
{
    (void)ctx;
    progress_calls++;
    progress_finals += p->final;
    progress_last = *p;
}

/* The deadline comes (once something is counted): exactly the items not
 * counted stay buffered (in their order) and pending; a later drain counts
 * them. */
static void test_drain_deadline(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 0, 0);
    REQUIRE(q);
    for (iz k = 0; k < 200; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, S("sleep:10"), (u64)k, false));
    err e = {0};
    progress_calls = progress_finals = 0;
    dq_drain_opts o = {.workers = 2, .chunk_items = 4, .progress = on_progress};
    while (s->nrec == 0)
        EXPECT_EQ(dq_drain_step(q, &o, &e), ERR_OK);
    o.deadline = os_now();
    iz left = dq_drain(q, &o, &e);
    dq_stats st;
    dq_stats_get(q, &st);
    EXPECT(left > 0);
    EXPECT(st.recorded > 0);
    EXPECT_EQ(left, st.buffered);
    EXPECT_EQ(st.recorded + st.buffered, 200);
    EXPECT_EQ(progress_finals, 1);
    EXPECT_EQ(progress_last.total, 200);
    EXPECT_EQ(progress_last.done, st.recorded);
    EXPECT(progress_last.final);
    check_invariant(q);
    /* recorded in enqueue order, whatever order the workers finished in
     * (the items a worker held at the deadline leave holes) */
    iz bad = 0;
    for (iz k = 1; k < s->norder; k++)
        bad += s->order[k] <= s->order[k - 1];
    EXPECT_EQ(bad, 0);
    iz first = s->norder;
    /* without a deadline a later drain counts the rest (on new workers),
     * in their order */
    o.deadline = 0;
    o.progress = NULL;
    EXPECT_EQ(dq_drain(q, &o, &e), 0);
    check_all_once(s, 200);
    bad = 0;
    for (iz k = first + 1; k < s->norder; k++)
        bad += s->order[k] <= s->order[k - 1];
    EXPECT_EQ(bad, 0);
    check_invariant(q);
    dq_free(q);
    free(s);
}

/* Items the deadline leaves go to `expire` when there is one, in order. */
static iz expired_n;
static u64 expired_last;
static bool expired_order = true;

static void on_expire(void *rctx, u64 tag, const pool_item *it, const pool_result *r)
{
    (void)rctx;
    (void)it;
    expired_order = expired_order && r->state == POOL_PENDING && (expired_n == 0 || tag > expired_last);
    expired_last = tag;
    expired_n++;
}

static void test_drain_expire(void)
{
    seen *s = seen_new();
    dq_ops ops = {.scratch_new = syn_scratch_new, .scratch_free = syn_scratch_free, .work = syn_work,
                  .record = on_record, .fail = on_fail, .expire = on_expire, .rctx = s};
    err e = {0};
    dq *q = dq_new(&ops, &(dq_opts){0}, &e);
    REQUIRE(q);
    for (iz k = 0; k < 100; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, S("sleep:10"), (u64)k, false));
    dq_drain_opts o = {.workers = 2, .chunk_items = 4};
    while (s->nrec == 0)
        EXPECT_EQ(dq_drain_step(q, &o, &e), ERR_OK);
    o.deadline = os_now();
    expired_n = 0;
    expired_order = true;
    EXPECT_EQ(dq_drain(q, &o, &e), 100 - s->nrec);
    dq_stats st;
    dq_stats_get(q, &st);
    EXPECT_EQ(st.expired, expired_n);
    EXPECT_EQ(st.recorded + st.expired, 100);
    EXPECT_EQ(st.buffered, 0);
    EXPECT(expired_order);
    EXPECT_EQ(expired_last, 99);
    check_invariant(q);
    dq_free(q);
    free(s);
}

/* A worker killed mid-chunk costs nothing: the chunk is retried. */
static void test_drain_worker_killed(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 0, 0);
    REQUIRE(q);
    char flag[] = "/tmp/tally-queue-die-XXXXXX";
    int fd = mkstemp(flag);
    REQUIRE(fd >= 0);
    close(fd);
    remove(flag);
    char payload[128];
    snprintf(payload, sizeof payload, "die-once:%s", flag);
    for (iz k = 0; k < 300; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, k == 150 ? str_cstr(payload) : num(k), (u64)k, false));
    err e = {0};
    dq_drain_opts o = {.workers = 2};
    EXPECT_EQ(dq_drain(q, &o, &e), 0);
    dq_stats st;
    dq_stats_get(q, &st);
    EXPECT(st.worker_deaths >= 1);
    check_all_once(s, 300);
    EXPECT_EQ(s->n[150], 1);
    EXPECT_EQ(s->n[299], 299);
    check_invariant(q);
    remove(flag);
    dq_free(q);
    free(s);
}

static void test_progress_format(void)
{
    char line[256];
    dq_progress p = {.total = 20000, .done = 1200, .errors = 1, .fallbacks = 3, .elapsed_s = 0.5, .rate = 2400,
                     .eta_s = 7.83};
    dq_progress_format(&p, line, sizeof line);
    EXPECT_STR(str_cstr(line), S("drain: 1200/20000 done, 1 errors, 3 fallbacks, 2400 items/s, ETA 8 s"));
    p.eta_s = -1;
    dq_progress_format(&p, line, sizeof line);
    EXPECT_STR(str_cstr(line), S("drain: 1200/20000 done, 1 errors, 3 fallbacks, 2400 items/s"));
    p.final = true;
    dq_progress_format(&p, line, sizeof line);
    EXPECT_STR(str_cstr(line), S("drain: done: 1199 counted, 1 errors, 3 fallbacks, the rest not counted (budget) "
                                 "in 0.5 s (2400 items/s)"));
    p.done = 20000;
    dq_progress_format(&p, line, sizeof line);
    EXPECT_STR(str_cstr(line), S("drain: done: 19999 counted, 1 errors, 3 fallbacks in 0.5 s (2400 items/s)"));
    /* a drain with progress on: rate and ETA from what it counted */
    seen *s = seen_new();
    dq *q = syn_queue(s, 0, 0);
    REQUIRE(q);
    for (iz k = 0; k < 40; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, S("sleep:5"), (u64)k, true));
    progress_calls = progress_finals = 0;
    dq_drain_opts o = {.workers = 0, .progress_s = 0.02, .progress = on_progress};
    err e = {0};
    EXPECT_EQ(dq_drain(q, &o, &e), 0);
    EXPECT(progress_calls >= 2);
    EXPECT_EQ(progress_finals, 1);
    EXPECT_EQ(progress_last.done, 40);
    EXPECT(progress_last.rate > 0);
    dq_free(q);
    free(s);
}

static void test_no_live_threads(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 0, 0);
    REQUIRE(q);
    err e = {0};
    EXPECT_EQ(dq_flush_live(q, &e), -1);
    EXPECT(e.code != ERR_OK);
    EXPECT(dq_live_start(q, 0.1, &e) != ERR_OK);
    dq_live_stop(q);   /* harmless */
    dq_free(q);
    free(s);
}

/* Freeing a queue with items left frees them (the sanitizer checks). */
static void test_free_with_items(void)
{
    seen *s = seen_new();
    dq *q = syn_queue(s, 2, 0);
    REQUIRE(q);
    for (iz k = 0; k < 100; k++)
        REQUIRE(dq_enqueue(q, 0, POOL_KIND_HEAVY, num(k), (u64)k, false));
    err e = {0};
    REQUIRE(dq_live_start(q, 0.001, &e) == ERR_OK);
    dq_free(q);
    EXPECT(s->nrec <= 100);
    free(s);
}

/* ---- real counts: every lane gives the in-process count ------------------------- */

static void test_counts_every_lane(void)
{
    const char *assets = test_env_or("TALLY_ASSETS", "assets");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/qwen3", assets);
    err e = {0};
    count_model_opts mo = {.now = 1736942400};
    count_model *m = count_model_load(dir, &mo, &e);
    if (!m) {
        printf("#   %s (scripts/fetch-assets.sh fetches the tokenizers)\n", e.msg);
        test_cur_failed = 1;
        return;
    }
    /* a mix: prompts (several fall back), assistant outputs, texts, a few bad lines */
    static const char *files[] = {"build/inputs/agentic_prompts.jsonl", "build/inputs/agentic_outputs.jsonl",
                                  "build/inputs/texts.jsonl"};
    static const int take[] = {150, 400, 300};
    char *data[3] = {0};
    str lines[1000];
    iz n = 0;
    for (int f = 0; f < 3; f++) {
        iz len = 0;
        data[f] = test_slurp(files[f], &len);
        if (!len) {
            printf("#   cannot read %s (run `make test-build`)\n", files[f]);
            test_cur_failed = 1;
            goto out;
        }
        char *p = data[f];
        for (int k = 0; k < take[f] && *p; k++) {
            char *nl = strchr(p, '\n');
            iz l = nl ? (iz)(nl - p) : (iz)strlen(p);
            lines[n++] = str_from(p, l);
            p += l + (nl != NULL);
        }
    }
    lines[n++] = S("{\"messages\": 7}");
    lines[n++] = S("not json");
    lines[n++] = S("{\"token_ids\": [1, 2, 3]}");

    count_ops_ctx c = {.model = m, .want = SHAPES_AUTO};
    dq_ops ops = {0};
    count_ops_init(&ops, &c);
    /* the reference: the work function called here, one item after another */
    void *scratch = ops.scratch_new(ops.ctx);
    REQUIRE(scratch);
    static pool_result want[1000];
    iz fallbacks = 0;
    for (iz k = 0; k < n; k++) {
        ops.work(ops.ctx, scratch, &(pool_item){lines[k], POOL_KIND_HEAVY, 0}, 0, &want[k]);
        fallbacks += want[k].state == POOL_DONE && want[k].cls[0];
    }
    ops.scratch_free(ops.ctx, scratch);
    EXPECT(fallbacks > 0);
    EXPECT_EQ(want[n - 3].state, POOL_ERROR);
    EXPECT_EQ(want[n - 2].state, POOL_ERROR);
    EXPECT_EQ(want[n - 1].n, 3);

    /* the live lane counts some (a small cap), the drain's workers the rest */
    seen *s = seen_new();
    ops.record = on_record;
    ops.fail = on_fail;
    ops.rctx = s;
    dq_opts qo = {.threads = 2, .live_max = 40};
    dq *q = dq_new(&ops, &qo, &e);
    REQUIRE(q);
    for (iz k = 0; k < n; k++)
        REQUIRE(dq_enqueue(q, (u8)(k % 3), POOL_KIND_HEAVY, lines[k], (u64)k, false));
    EXPECT(dq_flush_live(q, &e) > 0);
    dq_drain_opts o = {.workers = 2};
    iz left = dq_drain(q, &o, &e);
    iz errors = 0, bad = 0;
    for (iz k = 0; k < n; k++) {
        if (want[k].state == POOL_ERROR) {
            errors++;
            bad += s->failed[k] != 1 || s->recorded[k] != 0;
        } else {
            bad += s->recorded[k] != 1 || s->n[k] != want[k].n;
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(left, errors);
    dq_stats st;
    dq_stats_get(q, &st);
    EXPECT(st.live_recorded > 0);
    EXPECT(st.drain_recorded > 0);
    EXPECT_EQ(st.fallbacks, fallbacks);
    check_invariant(q);
    dq_free(q);
    free(s);
out:
    for (int f = 0; f < 3; f++)
        free(data[f]);
    count_model_free(m);
}

int main(void)
{
    RUN(test_live_threads_not_workers);
    RUN(test_live_cap_per_class);
    RUN(test_live_failure_requeued_front);
    RUN(test_live_cancel);
    RUN(test_live_stop_twice_at_once);
    RUN(test_enqueue_while_live);
    RUN(test_drain_order_and_lanes);
    RUN(test_drain_deadline);
    RUN(test_drain_expire);
    RUN(test_drain_worker_killed);
    RUN(test_progress_format);
    RUN(test_no_live_threads);
    RUN(test_free_with_items);
    RUN(test_counts_every_lane);
    return test_done();
}
