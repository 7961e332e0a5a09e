/* test_pool.c - the drain's process pool (src/drain/pool.c) with a work
 * function driven by the payloads: "n:K" counts K, "fb:K" counts K with a
 * class, "err" is an error, "skip" is skipped, "pid" counts the worker's
 * process id, "sleep:MS" sleeps, "die" kills its worker every time,
 * "die-once:PATH" kills its worker unless PATH exists (and creates it),
 * "wait-for:PATH" waits until PATH exists, "create:PATH" creates it,
 * "len:..." counts the payload's length, "label:X" labels with X.
 * Covers the ports of upstream's TestStructuredDrainFanOut (shard counts
 * equal in-process counts over several chunks and every worker gets
 * chunks; a mixed batch keeps its order; a failed chunk costs only its own
 * items; the in-process lane never forks; per-item errors do not fail a
 * chunk) and what a persistent process pool adds: results in submission
 * order, workers forked once for many flushes, payloads through a small
 * ring and inline, a worker killed mid-chunk, an item that kills every
 * worker, the deadline, the stop flag, no orphans when the caller dies,
 * SIGINT ignored by workers. In every test the delivered results come in
 * submission order, each exactly once. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "test.h"
#include "../src/base/os.h"
#include "../src/drain/pool.h"

extern char **environ;

static void work(void *ctx, const pool_item *it, double deadline, pool_result *r)
{
    (void)ctx;
    str s = it->payload;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%.*s", (int)MIN(s.len, 255), (const char *)s.s);
    r->kind = 1;
    if (test_starts(s, "n:")) {
        r->state = POOL_DONE;
        r->n = atoll(tmp + 2);
    } else if (test_starts(s, "fb:")) {
        r->state = POOL_DONE;
        r->n = atoll(tmp + 3);
        snprintf(r->cls, sizeof r->cls, "TypeError");
        snprintf(r->msg, sizeof r->msg, "TypeError: why");
    } else if (str_eq(s, S("err"))) {
        r->state = POOL_ERROR;
        snprintf(r->msg, sizeof r->msg, "bad item");
    } else if (str_eq(s, S("skip"))) {
        r->state = POOL_SKIPPED;
        snprintf(r->msg, sizeof r->msg, "nothing here");
    } else if (str_eq(s, S("pid"))) {
        r->state = POOL_DONE;
        r->n = getpid();
    } else if (test_starts(s, "sleep:")) {
        test_sleep_ms(atoi(tmp + 6));
        r->state = deadline > 0 && os_now() >= deadline ? POOL_PENDING : POOL_DONE;
        r->n = getpid();
    } else if (str_eq(s, S("die"))) {
        kill(getpid(), SIGKILL);
    } else if (test_starts(s, "die-once:")) {
        struct stat sb;
        if (stat(tmp + 9, &sb) != 0) {
            FILE *f = fopen(tmp + 9, "w");
            if (f)
                fclose(f);
            kill(getpid(), SIGKILL);
        }
        r->state = POOL_DONE;
        r->n = 1;
    } else if (test_starts(s, "wait-for:")) {
        struct stat sb;
        for (int t = 0; t < 60000 && stat(tmp + 9, &sb) != 0; t++)   /* a minute at most */
            test_sleep_ms(1);
        r->state = POOL_DONE;
        r->n = getpid();
    } else if (test_starts(s, "create:")) {
        FILE *f = fopen(tmp + 7, "w");
        if (f)
            fclose(f);
        r->state = POOL_DONE;
        r->n = getpid();
    } else if (test_starts(s, "len:")) {
        r->state = POOL_DONE;
        r->n = s.len;
        r->flags = (u8)(s.s[s.len - 1]);
    } else if (test_starts(s, "label:")) {
        r->state = POOL_DONE;
        snprintf(r->label, sizeof r->label, "%.*s", (int)(s.len - 6), (const char *)s.s + 6);
    }
}

/* What the deliver callback saw. */
typedef struct seen {
    pool_result *r;       /* by tag */
    iz   n, count;
    u64  next_tag;        /* the tag expected next (submission order) */
    bool order_ok;
} seen;

static void deliver(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    seen *s = ctx;
    (void)it;
    s->order_ok = s->order_ok && tag == s->next_tag && (iz)tag < s->n;
    s->next_tag = tag + 1;
    if ((iz)tag < s->n)
        s->r[tag] = *r;
    s->count++;
}

static seen seen_new(iz n)
{
    seen s = {.r = calloc((size_t)n, sizeof(pool_result)), .n = n, .order_ok = true};
    return s;
}

/* Submits items[0..n) (tags 0..n-1) and flushes; returns pool_flush's code. */
static int run(pool_opts o, const char **items, const u8 *kinds, iz n, seen *s, pool_stats *st)
{
    o.work = work;
    o.deliver = deliver;
    o.deliver_ctx = s;
    err e = {0};
    pool *p = pool_new(&o, &e);
    if (!p)
        return e.code ? e.code : ERR_IO;
    int rc = ERR_OK;
    for (iz i = 0; i < n && rc == ERR_OK; i++) {
        pool_item it = {str_cstr(items[i]), kinds ? kinds[i] : (u8)POOL_KIND_HEAVY, 0};
        rc = pool_submit(p, &it, (u64)i);
    }
    if (rc == ERR_OK)
        rc = pool_flush(p);
    pool_stats_get(p, st);
    pool_free(p);
    return rc;
}

static void check_counts(const seen *s, const pool_stats *st, iz n)
{
    EXPECT(s->order_ok);
    EXPECT_EQ(s->count, n);
    EXPECT_EQ(st->submitted, n);
    EXPECT_EQ(st->delivered, n);
    EXPECT_EQ(st->done + st->skipped + st->errors + st->pending, n);
}

/* Strings that live as long as the test: "n:0" ... */
static char numbers[2000][16];
static const char *items[2000];

static void test_workers_match_in_process(void)
{
    enum { N = 1000 };
    for (int i = 0; i < N; i++) {
        snprintf(numbers[i], sizeof numbers[i], "n:%d", i * 7);
        items[i] = numbers[i];
    }
    seen a = seen_new(N), b = seen_new(N);
    pool_stats sa, sb;
    EXPECT_EQ(run((pool_opts){0}, items, NULL, N, &a, &sa), ERR_OK);
    EXPECT_EQ(run((pool_opts){.workers = 2, .chunk_items = 64}, items, NULL, N, &b, &sb), ERR_OK);
    int same = 0;
    for (int i = 0; i < N; i++)
        same += a.r[i].state == POOL_DONE && b.r[i].state == POOL_DONE && a.r[i].n == b.r[i].n && a.r[i].n == i * 7;
    EXPECT_EQ(same, N);
    EXPECT_EQ(sb.chunks, (N + 63) / 64);
    EXPECT(sa.in_process);
    EXPECT(!sb.in_process);
    check_counts(&a, &sa, N);
    check_counts(&b, &sb, N);
    free(a.r);
    free(b.r);
}

static void test_every_worker_gets_chunks(void)
{
    /* The first chunk waits until a later chunk has run: the first worker
     * holds two chunks at most, so the third goes to the other worker,
     * which lets the first go on (whatever the machine's speed). */
    enum { N = 64 * 16 };
    static char wait_for[96], create[96];
    char flag[64];
    snprintf(flag, sizeof flag, "/tmp/tally-pool-go-%d", (int)getpid());
    unlink(flag);
    snprintf(wait_for, sizeof wait_for, "wait-for:%s", flag);
    snprintf(create, sizeof create, "create:%s", flag);
    for (int i = 0; i < N; i++)
        items[i] = i == 0 ? wait_for : i % 64 == 0 ? create : "pid";
    seen s = seen_new(N);
    pool_stats st;
    EXPECT_EQ(run((pool_opts){.workers = 2}, items, NULL, N, &s, &st), ERR_OK);
    i64 pids[2] = {0, 0};
    int distinct = 0;
    for (int i = 0; i < N; i++) {
        EXPECT(s.r[i].state == POOL_DONE);
        i64 pid = s.r[i].n;
        EXPECT(pid != getpid());
        if (pid != pids[0] && pid != pids[1] && distinct < 2)
            pids[distinct++] = pid;
    }
    EXPECT_EQ(distinct, 2);
    check_counts(&s, &st, N);
    free(s.r);
    unlink(flag);
}

static void test_in_process_never_forks(void)
{
    enum { N = 300 };
    u8 kinds[N];
    for (int i = 0; i < N; i++) {
        items[i] = "pid";
        kinds[i] = i % 3 == 0 ? POOL_KIND_TEXT : POOL_KIND_HEAVY;
    }
    seen s = seen_new(N);
    pool_stats st;
    EXPECT_EQ(run((pool_opts){.workers = 0}, items, kinds, N, &s, &st), ERR_OK);
    for (int i = 0; i < N; i++)
        EXPECT_EQ(s.r[i].n, getpid());
    EXPECT_EQ(st.workers, 0);
    EXPECT_EQ(st.chunks, 0);
    check_counts(&s, &st, N);
    free(s.r);
}

static void test_mixed_order(void)
{
    enum { N = 700 };
    u8 kinds[N];
    for (int i = 0; i < N; i++) {
        snprintf(numbers[i], sizeof numbers[i], "n:%d", i);
        items[i] = numbers[i];
        kinds[i] = (u8)(i % 3);   /* SMALL, TEXT, HEAVY in turn */
    }
    seen s = seen_new(N);
    pool_stats st;
    EXPECT_EQ(run((pool_opts){.workers = 2, .chunk_items = 10, .chunk_bytes = 100}, items, kinds, N, &s, &st),
              ERR_OK);
    int ok = 0;
    for (int i = 0; i < N; i++)
        ok += s.r[i].state == POOL_DONE && s.r[i].n == i;
    EXPECT_EQ(ok, N);
    check_counts(&s, &st, N);
    free(s.r);
}

static void test_per_item_outcomes(void)
{
    enum { N = 200 };
    for (int i = 0; i < N; i++)
        items[i] = i % 10 == 3 ? "err" : i % 10 == 5 ? "fb:2" : i % 10 == 7 ? "skip" : "n:1";
    seen s = seen_new(N);
    pool_stats st;
    EXPECT_EQ(run((pool_opts){.workers = 2}, items, NULL, N, &s, &st), ERR_OK);
    for (int i = 0; i < N; i++) {
        const pool_result *r = &s.r[i];
        if (i % 10 == 3) {
            EXPECT(r->state == POOL_ERROR);
            EXPECT_STR(str_cstr(r->msg), S("bad item"));
        } else if (i % 10 == 7) {
            EXPECT(r->state == POOL_SKIPPED);
            EXPECT_STR(str_cstr(r->msg), S("nothing here"));
        } else {
            EXPECT(r->state == POOL_DONE);
            EXPECT_EQ(r->kind, 1);
            EXPECT_STR(str_cstr(r->cls), i % 10 == 5 ? S("TypeError") : S(""));
            EXPECT_STR(str_cstr(r->msg), i % 10 == 5 ? S("TypeError: why") : S(""));
        }
    }
    EXPECT_EQ(st.errors, N / 10);
    EXPECT_EQ(st.skipped, N / 10);
    EXPECT_EQ(st.classed, N / 10);
    EXPECT_EQ(st.worker_deaths, 0);
    check_counts(&s, &st, N);
    free(s.r);
}

/* Payloads through a ring of 4 KiB: it fills and is reused many times,
 * payloads over a quarter of it go inline; every result (the length and
 * the last byte, echoed back) matches. */
static void test_small_ring_and_inline(void)
{
    enum { N = 600 };
    static char *big[N];
    for (int i = 0; i < N; i++) {
        iz len = 5 + (i * 37) % 1500;   /* up to 1504 bytes: some over 1 KiB */
        big[i] = malloc((size_t)len + 1);
        memcpy(big[i], "len:", 4);
        for (iz k = 4; k < len; k++)
            big[i][k] = (char)('a' + (i + k) % 26);
        big[i][len] = 0;
        items[i] = big[i];
    }
    u8 kinds[N];
    for (int i = 0; i < N; i++)
        kinds[i] = (u8)(1 + i % 2);
    seen s = seen_new(N);
    pool_stats st;
    EXPECT_EQ(run((pool_opts){.workers = 2, .chunk_items = 3, .chunk_bytes = 2000, .ring_bytes = 4096,
                              .window = 16}, items, kinds, N, &s, &st), ERR_OK);
    int ok = 0;
    for (int i = 0; i < N; i++) {
        iz len = (iz)strlen(big[i]);
        ok += s.r[i].state == POOL_DONE && s.r[i].n == len && s.r[i].flags == (u8)big[i][len - 1];
    }
    EXPECT_EQ(ok, N);
    EXPECT(st.inline_items > 0);
    EXPECT(st.inline_items < N);
    check_counts(&s, &st, N);
    for (int i = 0; i < N; i++)
        free(big[i]);
    free(s.r);
}

/* Labels and messages as long as they may be come back whole; longer
 * ones are cut at the field's size. */
static void test_label_bounds(void)
{
    static char longest[POOL_LABEL_MAX + 100];
    memcpy(longest, "label:", 6);
    memset(longest + 6, 'x', POOL_LABEL_MAX + 50);
    longest[6 + POOL_LABEL_MAX + 50] = 0;
    items[0] = "label:\"abc\"";
    items[1] = longest;
    seen s = seen_new(2);
    pool_stats st;
    EXPECT_EQ(run((pool_opts){.workers = 1}, items, NULL, 2, &s, &st), ERR_OK);
    EXPECT_STR(str_cstr(s.r[0].label), S("\"abc\""));
    EXPECT_EQ((iz)strlen(s.r[1].label), POOL_LABEL_MAX - 1);
    check_counts(&s, &st, 2);
    free(s.r);
}

static void test_worker_killed_mid_chunk(void)
{
    enum { N = 300 };
    char marker[64];
    snprintf(marker, sizeof marker, "/tmp/tally-pool-test-%d", (int)getpid());
    unlink(marker);
    static char once[80];
    snprintf(once, sizeof once, "die-once:%s", marker);
    for (int i = 0; i < N; i++)
        items[i] = i == 100 ? once : "n:1";
    seen s = seen_new(N);
    pool_stats st;
    EXPECT_EQ(run((pool_opts){.workers = 2, .chunk_items = 64}, items, NULL, N, &s, &st), ERR_OK);
    int done = 0;
    for (int i = 0; i < N; i++)
        done += s.r[i].state == POOL_DONE && s.r[i].n == 1;
    EXPECT_EQ(done, N);          /* nothing lost */
    EXPECT_EQ(st.worker_deaths, 1);
    EXPECT(st.retried >= 1 && st.retried <= 64 * 2);   /* only the dead worker's chunks */
    check_counts(&s, &st, N);
    free(s.r);
    unlink(marker);
}

static void test_item_that_always_kills(void)
{
    enum { N = 130 };
    for (int i = 0; i < N; i++)
        items[i] = i == 70 ? "die" : "n:2";
    seen s = seen_new(N);
    pool_stats st;
    EXPECT_EQ(run((pool_opts){.workers = 2, .chunk_items = 64}, items, NULL, N, &s, &st), ERR_OK);
    for (int i = 0; i < N; i++) {
        if (i == 70) {
            EXPECT(s.r[i].state == POOL_ERROR);
            EXPECT_STR(str_cstr(s.r[i].msg), S("worker died on this item: signal 9"));
        } else {
            EXPECT(s.r[i].state == POOL_DONE && s.r[i].n == 2);
        }
    }
    EXPECT_EQ(st.worker_deaths, 2);   /* once in its chunk, once alone */
    check_counts(&s, &st, N);
    free(s.r);
}

/* Once the deadline has passed, what was not counted is delivered
 * PENDING, in order, and so is everything submitted later. */
static void test_deadline(void)
{
    enum { N = 100, LATE = 20 };
    for (int i = 0; i < N + LATE; i++)
        items[i] = "sleep:30";
    seen s = seen_new(N + LATE);
    pool_opts o = {.workers = 2, .chunk_items = 4, .work = work, .deliver = deliver, .deliver_ctx = &s};
    err e;
    pool *p = pool_new(&o, &e);
    REQUIRE(p);
    for (int i = 0; i < N; i++) {
        pool_item it = {str_cstr(items[i]), POOL_KIND_HEAVY, 0};
        EXPECT_EQ(pool_submit(p, &it, (u64)i), ERR_OK);
    }
    /* the deadline comes once something is counted (and 3 s of sleeping
     * are not) */
    while (s.count == 0)
        EXPECT_EQ(pool_pump(p), ERR_OK);
    pool_set_deadline(p, os_now());
    EXPECT_EQ(pool_flush(p), ERR_OK);
    pool_stats st;
    pool_stats_get(p, &st);
    EXPECT(st.done > 0);
    EXPECT(st.pending > 0);
    EXPECT_EQ(st.errors, 0);
    EXPECT_EQ(st.done + st.pending, N);
    EXPECT_EQ(st.workers, 0);   /* stopped at once */
    for (int i = N; i < N + LATE; i++) {
        pool_item it = {str_cstr(items[i]), POOL_KIND_HEAVY, 0};
        EXPECT_EQ(pool_submit(p, &it, (u64)i), ERR_OK);
    }
    EXPECT_EQ(pool_flush(p), ERR_OK);
    for (int i = N; i < N + LATE; i++)
        EXPECT_EQ(s.r[i].state, POOL_PENDING);
    pool_stats_get(p, &st);
    check_counts(&s, &st, N + LATE);
    pool_free(p);
    free(s.r);
}

/* In-process counting with a deadline: nothing is counted after it. */
static void test_deadline_in_process(void)
{
    enum { N = 40 };
    for (int i = 0; i < N; i++)
        items[i] = "sleep:20";
    seen s = seen_new(N);
    pool_opts o = {.workers = 0, .work = work, .deliver = deliver, .deliver_ctx = &s};
    err e;
    pool *p = pool_new(&o, &e);
    REQUIRE(p);
    for (int i = 0; i < N; i++) {
        if (i == 1)
            pool_set_deadline(p, os_now());
        pool_item it = {str_cstr(items[i]), POOL_KIND_HEAVY, 0};
        EXPECT_EQ(pool_submit(p, &it, (u64)i), ERR_OK);
    }
    pool_stats st;
    pool_stats_get(p, &st);
    EXPECT_EQ(st.done, 1);
    EXPECT_EQ(st.pending, N - 1);
    EXPECT_EQ(s.r[N - 1].state, POOL_PENDING);
    check_counts(&s, &st, N);
    pool_free(p);
    free(s.r);
}

/* The same two workers count batch after batch (forked once). */
static void test_workers_forked_once(void)
{
    enum { ROUNDS = 6, PER = 256 };
    seen s = seen_new(ROUNDS * PER);
    pool_opts o = {.workers = 2, .chunk_items = 8, .work = work, .deliver = deliver, .deliver_ctx = &s};
    err e;
    pool *p = pool_new(&o, &e);
    REQUIRE(p);
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < PER; i++) {
            pool_item it = {S("pid"), POOL_KIND_HEAVY, 0};
            EXPECT_EQ(pool_submit(p, &it, (u64)(r * PER + i)), ERR_OK);
        }
        EXPECT_EQ(pool_flush(p), ERR_OK);
    }
    /* at most the two first workers in every round (a busy machine may let
     * one of them take every chunk), never the caller */
    i64 pids[3] = {0};
    int distinct = 0;
    for (int i = 0; i < ROUNDS * PER; i++) {
        bool known = false;
        for (int k = 0; k < distinct; k++)
            known = known || pids[k] == s.r[i].n;
        if (!known && distinct < 3)
            pids[distinct++] = s.r[i].n;
        EXPECT(s.r[i].n != getpid());
    }
    EXPECT(distinct >= 1 && distinct <= 2);
    pool_stats st;
    pool_stats_get(p, &st);
    EXPECT_EQ(st.worker_deaths, 0);
    check_counts(&s, &st, ROUNDS * PER);
    pool_free(p);
    free(s.r);
}

/* The stop flag: ERR_STOPPED, nothing more delivered, the workers gone. */
static volatile sig_atomic_t stop_flag;

static void stop_deliver(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    deliver(ctx, tag, it, r);
    if (tag == 50)
        stop_flag = 1;
}

static void test_stop_flag(void)
{
    enum { N = 400 };
    seen s = seen_new(N);
    stop_flag = 0;
    pool_opts o = {.workers = 2, .chunk_items = 4, .work = work, .deliver = stop_deliver, .deliver_ctx = &s,
                   .stop = &stop_flag};
    err e;
    pool *p = pool_new(&o, &e);
    REQUIRE(p);
    int rc = ERR_OK;
    for (int i = 0; i < N && rc == ERR_OK; i++) {
        pool_item it = {S("n:1"), POOL_KIND_HEAVY, 0};
        rc = pool_submit(p, &it, (u64)i);
    }
    if (rc == ERR_OK)
        rc = pool_flush(p);
    EXPECT_EQ(rc, ERR_STOPPED);
    EXPECT_EQ(s.count, 51);   /* tags 0..50, then nothing */
    EXPECT(s.order_ok);
    pool_stats st;
    pool_stats_get(p, &st);
    EXPECT_EQ(st.workers, 0);
    EXPECT_EQ(pool_flush(p), ERR_STOPPED);
    pool_free(p);
    free(s.r);
}

/* A program the caller starts while the pool runs (here from the deliver
 * callback) must not hold a worker's socket open: pool_free returns while
 * it still runs. */
static pid_t spawned;

static void spawn_on_first(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    deliver(ctx, tag, it, r);
    if (tag == 0) {
        char *argv[] = {(char *)"sleep", (char *)"5", NULL};
        if (posix_spawnp(&spawned, "sleep", NULL, NULL, argv, environ) != 0)
            spawned = 0;
    }
}

static void test_spawned_program_does_not_hold_workers(void)
{
    enum { N = 64 };
    seen s = seen_new(N);
    spawned = 0;
    pool_opts o = {.workers = 2, .chunk_items = 4, .work = work, .deliver = spawn_on_first, .deliver_ctx = &s};
    err e;
    pool *p = pool_new(&o, &e);
    REQUIRE(p);
    for (int i = 0; i < N; i++) {
        pool_item it = {S("n:1"), POOL_KIND_HEAVY, 0};
        EXPECT_EQ(pool_submit(p, &it, (u64)i), ERR_OK);
    }
    EXPECT_EQ(pool_flush(p), ERR_OK);
    pool_free(p);
    REQUIRE(spawned > 0);
    EXPECT_EQ(s.count, N);
    /* the program is still running: nothing waited for it */
    EXPECT_EQ(waitpid(spawned, NULL, WNOHANG), 0);
    kill(spawned, SIGKILL);
    waitpid(spawned, NULL, 0);
    free(s.r);
}

static bool process_alive(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char text[256] = {0};
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *rp = strrchr(text, ')');
    return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

static void record_pid_work(void *ctx, const pool_item *it, double deadline, pool_result *r)
{
    /* each worker writes its pid once, then works slowly */
    const char *path = ctx;
    static bool written;
    (void)deadline;
    if (!written) {
        FILE *f = fopen(path, "a");
        if (f) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
        written = true;
    }
    (void)it;
    test_sleep_ms(50);
    r->state = POOL_DONE;
}

/* Reads up to 2 pids from path, waiting (a minute at most) for them. */
static int read_pids(const char *path, pid_t pids[2])
{
    int np = 0;
    for (int t = 0; t < 3000 && np < 2; t++) {
        test_sleep_ms(20);
        np = 0;
        FILE *f = fopen(path, "r");
        int x;
        while (f && np < 2 && fscanf(f, "%d", &x) == 1)
            pids[np++] = x;
        if (f)
            fclose(f);
    }
    return np;
}

static void test_no_orphans_and_sigint(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/tally-pool-pids-%d", (int)getpid());
    unlink(path);
    fflush(stdout);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        pool_opts o = {.workers = 2, .chunk_items = 1, .work = record_pid_work, .work_ctx = path};
        err e;
        pool *p = pool_new(&o, &e);
        for (int i = 0; p && i < 100000; i++) {
            pool_item it = {S("x"), POOL_KIND_HEAVY, 0};
            pool_submit(p, &it, (u64)i);
        }
        _exit(0);
    }
    pid_t pids[2] = {0, 0};
    int np = read_pids(path, pids);
    EXPECT_EQ(np, 2);
    /* SIGINT is for the parent to decide: workers ignore it */
    for (int k = 0; k < np; k++)
        kill(pids[k], SIGINT);
    test_sleep_ms(100);
    for (int k = 0; k < np; k++)
        EXPECT(process_alive(pids[k]));
    /* the caller dies: its workers follow */
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    bool gone = false;
    for (int t = 0; t < 3000 && !gone; t++) {
        test_sleep_ms(20);
        gone = true;
        for (int k = 0; k < np; k++)
            gone = gone && !process_alive(pids[k]);
    }
    EXPECT(gone);
    unlink(path);
}

static void test_cpus(void)
{
    int n = pool_cpus();
    EXPECT(n >= 1 && n <= 4096);
}

int main(void)
{
    RUN(test_workers_match_in_process);
    RUN(test_every_worker_gets_chunks);
    RUN(test_in_process_never_forks);
    RUN(test_mixed_order);
    RUN(test_per_item_outcomes);
    RUN(test_small_ring_and_inline);
    RUN(test_label_bounds);
    RUN(test_worker_killed_mid_chunk);
    RUN(test_item_that_always_kills);
    RUN(test_deadline);
    RUN(test_deadline_in_process);
    RUN(test_workers_forked_once);
    RUN(test_stop_flag);
    RUN(test_spawned_program_does_not_hold_workers);
    RUN(test_no_orphans_and_sigint);
    RUN(test_cpus);
    return test_done();
}
