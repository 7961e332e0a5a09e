/* test_pool.c - the drain's process pool (src/drain/pool.c) with a work
 * function driven by the payloads: "n:K" counts K, "err" is an error,
 * "pid" counts the worker's process id, "sleep:MS" sleeps, "die" kills its
 * worker every time, "die-once:PATH" kills its worker unless PATH exists
 * (and creates it). Covers the ports of upstream's TestStructuredDrainFanOut
 * (shard counts equal in-process counts over several chunks and every
 * worker gets chunks; a mixed batch keeps its order; a failed chunk costs
 * only its own items; the in-process lane never forks; per-item errors do
 * not fail a chunk) and what a process pool adds: a worker killed mid-chunk,
 * an item that kills every worker, the time budget, no orphans when the
 * caller dies, SIGINT ignored by workers. In every test:
 * done + errors + pending == total. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "test.h"
#include "../src/drain/pool.h"

extern char **environ;


static void work(void *ctx, const pool_item *it, pool_result *r)
{
    (void)ctx;
    str s = it->payload;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%.*s", (int)MIN(s.len, 255), (const char *)s.s);
    if (test_starts(s, "n:")) {
        r->state = POOL_DONE;
        r->n = atoll(tmp + 2);
    } else if (test_starts(s, "fb:")) {
        r->state = POOL_DONE;
        r->n = atoll(tmp + 3);
        r->fallback = 7;
    } else if (str_eq(s, S("err"))) {
        r->state = POOL_ERROR;
        snprintf(r->msg, sizeof r->msg, "bad item");
    } else if (str_eq(s, S("pid"))) {
        r->state = POOL_DONE;
        r->n = getpid();
    } else if (test_starts(s, "sleep:")) {
        test_sleep_ms(atoi(tmp + 6));
        r->state = POOL_DONE;
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
    }
}

static pool_item item(const char *s, u8 kind)
{
    return (pool_item){str_cstr(s), kind};
}

static void check_invariant(const pool_stats *st, const pool_result *r, iz n)
{
    iz done = 0, errs = 0, pend = 0;
    for (iz i = 0; i < n; i++) {
        done += r[i].state == POOL_DONE;
        errs += r[i].state == POOL_ERROR;
        pend += r[i].state == POOL_PENDING;
    }
    EXPECT_EQ(done, st->done);
    EXPECT_EQ(errs, st->errors);
    EXPECT_EQ(pend, st->pending);
    EXPECT_EQ(st->done + st->errors + st->pending, st->total);
    EXPECT_EQ(st->total, n);
}

/* Strings that live as long as the test: "n:0" ... */
static char numbers[2000][16];

static void test_workers_match_in_process(void)
{
    enum { N = 1000 };
    static pool_item items[N];
    static pool_result a[N], b[N];
    for (int i = 0; i < N; i++) {
        snprintf(numbers[i], sizeof numbers[i], "n:%d", i * 7);
        items[i] = item(numbers[i], POOL_KIND_HEAVY);
    }
    pool_stats sa, sb;
    pool_opts in_proc = {0}, sharded = {.workers = 2, .chunk_items = 64};
    err e;
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    EXPECT_EQ(pool_run(items, N, a, work, NULL, &in_proc, &sa, &e), ERR_OK);
    EXPECT_EQ(pool_run(items, N, b, work, NULL, &sharded, &sb, &e), ERR_OK);
    int same = 0;
    for (int i = 0; i < N; i++)
        same += a[i].state == POOL_DONE && b[i].state == POOL_DONE && a[i].n == b[i].n && a[i].n == i * 7;
    EXPECT_EQ(same, N);
    EXPECT_EQ(sb.chunks, (N + 63) / 64);
    EXPECT_EQ(sb.workers, 2);
    check_invariant(&sa, a, N);
    check_invariant(&sb, b, N);
}

static void test_every_worker_gets_chunks(void)
{
    enum { N = 64 * 16 };
    static pool_item items[N];
    static pool_result r[N];
    for (int i = 0; i < N; i++)
        items[i] = item(i % 64 == 0 ? "sleep:20" : "pid", POOL_KIND_HEAVY);
    pool_opts o = {.workers = 2};
    pool_stats st;
    err e;
    memset(r, 0, sizeof r);
    EXPECT_EQ(pool_run(items, N, r, work, NULL, &o, &st, &e), ERR_OK);
    i64 pids[2] = {0, 0};
    int distinct = 0;
    for (int i = 0; i < N; i++) {
        EXPECT(r[i].state == POOL_DONE);
        i64 pid = r[i].n;
        EXPECT(pid != getpid());
        if (pid != pids[0] && pid != pids[1] && distinct < 2)
            pids[distinct++] = pid;
    }
    EXPECT_EQ(distinct, 2);
    check_invariant(&st, r, N);
}

static void test_in_process_never_forks(void)
{
    enum { N = 300 };
    static pool_item items[N];
    static pool_result r[N];
    for (int i = 0; i < N; i++)
        items[i] = item("pid", i % 3 == 0 ? POOL_KIND_TEXT : POOL_KIND_HEAVY);
    pool_opts o = {.workers = 0};
    pool_stats st;
    err e;
    memset(r, 0, sizeof r);
    EXPECT_EQ(pool_run(items, N, r, work, NULL, &o, &st, &e), ERR_OK);
    for (int i = 0; i < N; i++)
        EXPECT_EQ(r[i].n, getpid());
    EXPECT_EQ(st.workers, 0);
    EXPECT_EQ(st.chunks, 0);
    check_invariant(&st, r, N);
}

static void test_mixed_order(void)
{
    enum { N = 700 };
    static pool_item items[N];
    static pool_result r[N];
    for (int i = 0; i < N; i++) {
        snprintf(numbers[i], sizeof numbers[i], "n:%d", i);
        items[i] = item(numbers[i], (u8)(i % 3));   /* SMALL, TEXT, HEAVY in turn */
    }
    pool_opts o = {.workers = 2, .chunk_items = 10, .chunk_bytes = 100};
    pool_stats st;
    err e;
    memset(r, 0, sizeof r);
    EXPECT_EQ(pool_run(items, N, r, work, NULL, &o, &st, &e), ERR_OK);
    int ok = 0;
    for (int i = 0; i < N; i++)
        ok += r[i].state == POOL_DONE && r[i].n == i;
    EXPECT_EQ(ok, N);
    check_invariant(&st, r, N);
}

static void test_per_item_errors(void)
{
    enum { N = 200 };
    static pool_item items[N];
    static pool_result r[N];
    for (int i = 0; i < N; i++)
        items[i] = item(i % 10 == 3 ? "err" : i % 10 == 5 ? "fb:2" : "n:1", POOL_KIND_HEAVY);
    pool_opts o = {.workers = 2};
    pool_stats st;
    err e;
    memset(r, 0, sizeof r);
    EXPECT_EQ(pool_run(items, N, r, work, NULL, &o, &st, &e), ERR_OK);
    for (int i = 0; i < N; i++) {
        if (i % 10 == 3) {
            EXPECT(r[i].state == POOL_ERROR);
            EXPECT_STR(str_cstr(r[i].msg), S("bad item"));
        } else {
            EXPECT(r[i].state == POOL_DONE);
            EXPECT_EQ(r[i].fallback, i % 10 == 5 ? 7 : 0);
        }
    }
    EXPECT_EQ(st.errors, N / 10);
    EXPECT_EQ(st.fallbacks, N / 10);
    EXPECT_EQ(st.worker_deaths, 0);
    check_invariant(&st, r, N);
}

static void test_worker_killed_mid_chunk(void)
{
    enum { N = 300 };
    static pool_item items[N];
    static pool_result r[N];
    char marker[64];
    snprintf(marker, sizeof marker, "/tmp/tally-pool-test-%d", (int)getpid());
    unlink(marker);
    static char once[80];
    snprintf(once, sizeof once, "die-once:%s", marker);
    for (int i = 0; i < N; i++)
        items[i] = item(i == 100 ? once : "n:1", POOL_KIND_HEAVY);
    pool_opts o = {.workers = 2, .chunk_items = 64};
    pool_stats st;
    err e;
    memset(r, 0, sizeof r);
    EXPECT_EQ(pool_run(items, N, r, work, NULL, &o, &st, &e), ERR_OK);
    int done = 0;
    for (int i = 0; i < N; i++)
        done += r[i].state == POOL_DONE && r[i].n == 1;
    EXPECT_EQ(done, N);          /* nothing lost */
    EXPECT_EQ(st.worker_deaths, 1);
    EXPECT(st.retried >= 1 && st.retried <= 64 * 2);   /* only the dead worker's chunks */
    check_invariant(&st, r, N);
    unlink(marker);
}

static void test_item_that_always_kills(void)
{
    enum { N = 130 };
    static pool_item items[N];
    static pool_result r[N];
    for (int i = 0; i < N; i++)
        items[i] = item(i == 70 ? "die" : "n:2", POOL_KIND_HEAVY);
    pool_opts o = {.workers = 2, .chunk_items = 64};
    pool_stats st;
    err e;
    memset(r, 0, sizeof r);
    EXPECT_EQ(pool_run(items, N, r, work, NULL, &o, &st, &e), ERR_OK);
    for (int i = 0; i < N; i++) {
        if (i == 70) {
            EXPECT(r[i].state == POOL_ERROR);
            EXPECT_STR(str_cstr(r[i].msg), S("worker died on this item: signal 9"));
        } else {
            EXPECT(r[i].state == POOL_DONE && r[i].n == 2);
        }
    }
    EXPECT_EQ(st.worker_deaths, 2);   /* once in its chunk, once alone */
    check_invariant(&st, r, N);
}

static void test_timeout_leaves_pending(void)
{
    enum { N = 100 };
    static pool_item items[N];
    static pool_result r[N];
    for (int i = 0; i < N; i++)
        items[i] = item("sleep:30", POOL_KIND_HEAVY);
    pool_opts o = {.workers = 2, .chunk_items = 4, .timeout_s = 0.3};
    pool_stats st;
    err e;
    memset(r, 0, sizeof r);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    EXPECT_EQ(pool_run(items, N, r, work, NULL, &o, &st, &e), ERR_OK);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    EXPECT(st.done > 0);
    EXPECT(st.pending > 0);
    EXPECT_EQ(st.errors, 0);
    EXPECT(secs < 2.0);   /* stopped at the budget, not after all 3 s of work */
    check_invariant(&st, r, N);
    /* a second pass counts exactly what was left */
    pool_opts o2 = {.workers = 2, .chunk_items = 4};
    pool_stats st2;
    EXPECT_EQ(pool_run(items, N, r, work, NULL, &o2, &st2, &e), ERR_OK);
    EXPECT_EQ(st2.pending, 0);
    EXPECT_EQ(st2.done, st.pending);
}

/* Windows: items that are the first member of bigger records (item_size),
 * counted a window at a time by the same workers; each window reported in
 * order with its results; a worker killed in one window is replaced and
 * the window completes; after the budget runs out, the remaining windows
 * are still reported, all pending. */
typedef struct rec {
    pool_item it;
    int       extra;
} rec;

typedef struct seen_windows {
    iz   next_first, windows, done, pending;
    bool order_ok, values_ok;
    pid_t pids[8];
    int  npids;
} seen_windows;

static void on_window(void *ctx, iz first, iz n, pool_result *res)
{
    seen_windows *s = ctx;
    s->order_ok = s->order_ok && first == s->next_first;
    s->next_first = first + n;
    s->windows++;
    for (iz k = 0; k < n; k++) {
        if (res[k].state == POOL_PENDING) {
            s->pending++;
            continue;
        }
        s->done += res[k].state == POOL_DONE;
        iz i = first + k;
        if (i % 10 == 5) {   /* a "pid" item: which worker */
            bool known = false;
            for (int j = 0; j < s->npids; j++)
                known = known || s->pids[j] == (pid_t)res[k].n;
            if (!known && s->npids < 8)
                s->pids[s->npids++] = (pid_t)res[k].n;
        } else if (i != 77) {
            s->values_ok = s->values_ok && res[k].n == i * 3;
        }
    }
}

static void test_windows(void)
{
    enum { N = 1000, W = 96 };
    static rec items[N];
    static pool_result res[W];
    char flag[] = "/tmp/tally-pool-win-XXXXXX";
    int fd = mkstemp(flag);
    REQUIRE(fd >= 0);
    close(fd);
    remove(flag);
    char die[128];
    snprintf(die, sizeof die, "die-once:%s", flag);
    for (int i = 0; i < N; i++) {
        snprintf(numbers[i], sizeof numbers[i], "n:%d", i * 3);
        items[i] = (rec){item(i % 10 == 5 ? "pid" : i == 77 ? die : numbers[i], POOL_KIND_HEAVY), -1};
    }
    seen_windows s = {.order_ok = true, .values_ok = true};
    pool_opts o = {.workers = 2, .chunk_items = 8, .item_size = (iz)sizeof(rec), .window = W,
                   .on_window = on_window, .window_ctx = &s};
    pool_stats st;
    err e;
    EXPECT_EQ(pool_run(&items[0].it, N, res, work, NULL, &o, &st, &e), ERR_OK);
    EXPECT(s.order_ok);
    EXPECT(s.values_ok);
    EXPECT_EQ(s.windows, (N + W - 1) / W);
    EXPECT_EQ(s.done, N);
    EXPECT_EQ(st.done, N);
    EXPECT_EQ(st.pending, 0);
    EXPECT_EQ(st.worker_deaths, 1);
    /* the workers stay from window to window: two, plus the one replacing
     * the killed worker */
    EXPECT(s.npids >= 2 && s.npids <= 3);
    remove(flag);

    /* the budget runs out: every window is reported, the rest pending */
    for (int i = 0; i < N; i++)
        items[i].it = item("sleep:5", POOL_KIND_HEAVY);
    seen_windows t = {.order_ok = true, .values_ok = true};
    o.window_ctx = &t;
    o.timeout_s = 0.2;
    EXPECT_EQ(pool_run(&items[0].it, N, res, work, NULL, &o, &st, &e), ERR_OK);
    EXPECT(t.order_ok);
    EXPECT_EQ(t.windows, (N + W - 1) / W);
    EXPECT(t.pending > 0);
    EXPECT_EQ(t.done + t.pending, N);
    EXPECT_EQ(st.done + st.errors + st.pending, N);
    EXPECT_EQ(st.pending, t.pending);
}

/* A program the caller starts while the pool runs (here from on_window)
 * must not hold a worker's input open: pool_run returns while it still
 * runs (before, the pipes were inherited and pool_run waited for it). */
static pid_t spawned;

static void spawn_on_first(void *ctx, iz first, iz n, pool_result *res)
{
    (void)ctx;
    (void)n;
    (void)res;
    if (first == 0) {
        char *argv[] = {(char *)"sleep", (char *)"5", NULL};
        if (posix_spawnp(&spawned, "sleep", NULL, NULL, argv, environ) != 0)
            spawned = 0;
    }
}

static void test_spawned_program_does_not_hold_workers(void)
{
    enum { N = 64 };
    static pool_item items[N];
    static pool_result res[16];
    for (int i = 0; i < N; i++)
        items[i] = item("n:1", POOL_KIND_HEAVY);
    pool_opts o = {.workers = 2, .chunk_items = 4, .window = 16, .on_window = spawn_on_first};
    pool_stats st;
    err e;
    spawned = 0;
    EXPECT_EQ(pool_run(items, N, res, work, NULL, &o, &st, &e), ERR_OK);
    REQUIRE(spawned > 0);
    EXPECT_EQ(st.done, N);
    /* the program is still running: pool_run did not wait for it */
    EXPECT_EQ(waitpid(spawned, NULL, WNOHANG), 0);
    kill(spawned, SIGKILL);
    waitpid(spawned, NULL, 0);
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

static void record_pid_work(void *ctx, const pool_item *it, pool_result *r)
{
    /* each worker writes its pid once, then works slowly */
    const char *path = ctx;
    static bool written;
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

static void test_no_orphans_and_sigint(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/tally-pool-pids-%d", (int)getpid());
    unlink(path);
    fflush(stdout);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        enum { N = 400 };
        static pool_item items[N];
        static pool_result r[N];
        for (int i = 0; i < N; i++)
            items[i] = item("x", POOL_KIND_HEAVY);
        pool_opts o = {.workers = 2, .chunk_items = 1};
        err e;
        pool_run(items, N, r, record_pid_work, path, &o, NULL, &e);
        _exit(0);
    }
    test_sleep_ms(400);
    pid_t pids[2] = {0, 0};
    int np = 0;
    FILE *f = fopen(path, "r");
    REQUIRE(f);
    int x;
    while (np < 2 && fscanf(f, "%d", &x) == 1)
        pids[np++] = x;
    fclose(f);
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
    for (int t = 0; t < 50 && !gone; t++) {
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
    RUN(test_per_item_errors);
    RUN(test_worker_killed_mid_chunk);
    RUN(test_item_that_always_kills);
    RUN(test_timeout_leaves_pending);
    RUN(test_windows);
    RUN(test_spawned_program_does_not_hold_workers);
    RUN(test_no_orphans_and_sigint);
    RUN(test_cpus);
    return test_done();
}
