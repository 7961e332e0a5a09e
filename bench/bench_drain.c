/* bench_drain.c - speed and memory of the end-of-run drain (queue.h with
 * the counting work of count_ops.h): the distinct JSON-lines prompts of a
 * file, stored once, enqueued N times over (borrowed payloads, cycling over
 * the lines) and drained on WORKERS worker processes (0 = in this process).
 * Checks its own results: each distinct line is first counted once in this
 * process with the same ops, and every count the drain records must equal
 * the count of its line. One run per process, since peak RSS is a
 * high-water mark (lowered after the self-check, so that the parent's
 * peak is the drain's). Output: one "key value" line per measure
 * (bench/run.sh reads them).
 *   bench_drain MODEL_DIR PROMPTS.jsonl N_ITEMS WORKERS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/drain/count_ops.h"

enum { MAX_ITEMS = 100 * 1000 * 1000 };

/* The distinct lines and what counting each once in this process gave. */
typedef struct lines {
    str *s;
    i64 *n;          /* the count; -1 when the line is an error */
    u8  *fallback;   /* 1 when the result is a fallback */
    iz   len, bytes;
} lines;

/* What the recorder and the failure callback saw during the drain. */
typedef struct seen {
    const lines *want;
    i64 tokens;
    iz  recorded, fallbacks, errors, mismatches;
} seen;

static double maxrss_mb(int who)
{
    struct rusage ru;
    if (getrusage(who, &ru) != 0)
        return -1;
    return (double)ru.ru_maxrss / 1024.0;   /* Linux: kilobytes */
}

/* Lowers the high-water mark of this process's RSS (ru_maxrss) to its
 * RSS now (Linux 4.0 and later), so that the peak of the self-check does
 * not hide the drain's. False when the kernel refuses. */
static bool reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return false;
    bool ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

/* User plus system CPU seconds of `who`: on a shared machine the drain's
 * CPU time says what its wall time cannot. */
static double cpu_s(int who)
{
    struct rusage ru;
    if (getrusage(who, &ru) != 0)
        return -1;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Reads the non-empty lines of `path` into `out` (slices of one buffer in
 * `a`); false and a message on stderr when the file cannot be read or has
 * no line. */
static bool read_lines(arena *a, const char *path, lines *out)
{
    err e = {0};
    str all = os_read_file(a, path, &e);
    if (!all.s) {
        fprintf(stderr, "bench_drain: %s\n", e.msg);
        return false;
    }
    iz cap = 1;
    for (iz i = 0; i < all.len; i++)
        cap += all.s[i] == '\n';
    out->s = NEW(a, str, cap);
    out->len = out->bytes = 0;
    for (iz b = 0, i = 0; i <= all.len; i++) {
        if (i < all.len && all.s[i] != '\n')
            continue;
        if (i > b) {
            out->s[out->len++] = str_cut(all, b, i);
            out->bytes += i - b;
        }
        b = i + 1;
    }
    if (out->len == 0) {
        fprintf(stderr, "bench_drain: %s: no lines\n", path);
        return false;
    }
    out->n = NEW(a, i64, out->len);
    out->fallback = NEW(a, u8, out->len);
    return true;
}

/* The self-check: each distinct line counted once here with the ops the
 * drain runs, as the reference for the drain's counts. Returns the
 * seconds it took, or -1 when the scratch could not be made. */
static double count_distinct(const dq_ops *ops, lines *l, i64 *tokens, iz *fallbacks, iz *errors)
{
    void *scratch = ops->scratch_new(ops->ctx);
    if (!scratch)
        return -1;
    *tokens = 0;
    *fallbacks = *errors = 0;
    double t0 = os_now();
    for (iz k = 0; k < l->len; k++) {
        pool_item it = {.payload = l->s[k], .kind = POOL_KIND_HEAVY};
        pool_result r;
        pool_result_clear(&r);
        ops->work(ops->ctx, scratch, &it, 0, &r);
        if (r.state == POOL_DONE) {
            l->n[k] = r.n;
            l->fallback[k] = r.cls[0] != 0;
            *tokens += r.n;
            *fallbacks += r.cls[0] != 0;
        } else {
            l->n[k] = -1;
            ++*errors;
            if (*errors == 1)
                fprintf(stderr, "bench_drain: line %td: %s\n", k + 1, r.msg);
        }
    }
    double s = os_now() - t0;
    ops->scratch_free(ops->ctx, scratch);
    return s;
}

static void on_record(void *rctx, u64 tag, const pool_item *it, const pool_result *r)
{
    (void)it;
    seen *s = rctx;
    s->recorded++;
    s->tokens += r->n;
    s->fallbacks += r->cls[0] != 0;
    if (tag >= (u64)s->want->len || s->want->n[tag] != r->n || s->want->fallback[tag] != (r->cls[0] != 0)) {
        if (s->mismatches++ == 0)
            fprintf(stderr, "bench_drain: line %llu: the drain counted %lld, in-process %lld\n",
                    (unsigned long long)tag + 1, (long long)r->n,
                    tag < (u64)s->want->len ? (long long)s->want->n[tag] : -1LL);
    }
}

/* A failed item is a mismatch too unless the line failed in-process. */
static void on_fail(void *rctx, u64 tag, const pool_item *it, const pool_result *r)
{
    (void)it;
    seen *s = rctx;
    if (s->errors++ == 0)
        fprintf(stderr, "bench_drain: line %llu: %s\n", (unsigned long long)tag + 1, r->msg);
    if (tag >= (u64)s->want->len || s->want->n[tag] != -1)
        s->mismatches++;
}

static bool parse_count(const char *arg, long long lo, long long hi, long long *out)
{
    char *end;
    long long v = strtoll(arg, &end, 10);
    if (end == arg || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    long long n_items, workers;
    bool no_cache = argc == 6 && !strcmp(argv[5], "nocache");
    if ((argc != 5 && !no_cache) || !parse_count(argv[3], 1, MAX_ITEMS, &n_items) ||
        !parse_count(argv[4], 0, 1024, &workers)) {
        fprintf(stderr, "usage: bench_drain MODEL_DIR PROMPTS.jsonl N_ITEMS WORKERS [nocache]\n"
                        "  WORKERS 0 = in-process; nocache = without the tokenizer's piece cache\n");
        return 2;
    }
    arena a;
    arena_init(&a, 0);
    lines l;
    if (!read_lines(&a, argv[2], &l))
        return 1;

    /* 2025-01-15T12:00:00 UTC, the clock of the goldens */
    count_model_opts mo = {.chat_template_file = NULL, .now = 1736942400, .no_piece_cache = no_cache};
    err e = {0};
    double t0 = os_now();
    count_model *m = count_model_load(argv[1], &mo, &e);
    double load_s = os_now() - t0;
    if (!m) {
        fprintf(stderr, "bench_drain: %s: %s\n", argv[1], e.msg);
        return 1;
    }

    count_ops_ctx cc = {.model = m, .want = COUNT_PROMPT};
    dq_ops ops;
    memset(&ops, 0, sizeof(ops));
    count_ops_init(&ops, &cc);
    i64 distinct_tokens;
    iz distinct_fallbacks, distinct_errors;
    double distinct_s = count_distinct(&ops, &l, &distinct_tokens, &distinct_fallbacks, &distinct_errors);
    if (distinct_s < 0) {
        fprintf(stderr, "bench_drain: out of memory for the scratch\n");
        return 1;
    }

    /* The scratch is freed: from here on the peak is the drain's. */
    double rss_selfcheck = maxrss_mb(RUSAGE_SELF);
    bool rss_reset = reset_peak_rss();

    seen s = {.want = &l};
    ops.record = on_record;
    ops.fail = on_fail;
    ops.rctx = &s;
    dq_opts qo = {.threads = 0, .live_max = 0};   /* no live lane: everything waits for the drain */
    dq *q = dq_new(&ops, &qo, &e);
    if (!q) {
        fprintf(stderr, "bench_drain: dq_new: %s\n", e.msg);
        return 1;
    }
    /* Borrowed payloads: the lines are stored once, whatever N_ITEMS is. */
    t0 = os_now();
    for (long long i = 0; i < n_items; i++) {
        iz k = (iz)(i % l.len);
        if (!dq_enqueue(q, 0, POOL_KIND_HEAVY, l.s[k], (u64)k, true)) {
            fprintf(stderr, "bench_drain: dq_enqueue: out of memory at item %lld\n", i + 1);
            return 1;
        }
    }
    double enqueue_s = os_now() - t0;
    double rss_before = maxrss_mb(RUSAGE_SELF);

    dq_drain_opts d = {.workers = (int)workers};   /* no timeout, no progress */
    double cpu_parent = cpu_s(RUSAGE_SELF), cpu_workers = cpu_s(RUSAGE_CHILDREN);
    t0 = os_now();
    iz pending = dq_drain(q, &d, &e);
    double drain_s = os_now() - t0;
    cpu_parent = cpu_s(RUSAGE_SELF) - cpu_parent;
    double rss_parent = maxrss_mb(RUSAGE_SELF);
    dq_stats st;
    dq_stats_get(q, &st);
    /* the workers stay until the queue is freed: their CPU time and peak
     * RSS are the children's once they are reaped */
    dq_free(q);
    q = NULL;
    cpu_workers = cpu_s(RUSAGE_CHILDREN) - cpu_workers;
    double rss_workers = maxrss_mb(RUSAGE_CHILDREN);

    printf("items %lld\ndistinct %td\ninput_mb %.2f\nworkers %lld\nload_s %.4f\n"
           "distinct_tokens %lld\ndistinct_fallbacks %td\ndistinct_errors %td\ndistinct_s %.4f\n"
           "enqueue_s %.4f\ntokens %lld\nrecorded %td\nfallbacks %td\nerrors %td\nmismatches %td\n"
           "pending %td\nworker_deaths %td\ndrain_s %.4f\nitems_per_s %.1f\ntokps %.0f\n"
           "parent_cpu_s %.4f\nworkers_cpu_s %.4f\n"
           "parent_rss_selfcheck_mb %.1f\nrss_reset %d\n"
           "parent_rss_before_mb %.1f\nparent_rss_mb %.1f\nworkers_rss_mb %.1f\n",
           n_items, l.len, (double)l.bytes / 1e6, workers, load_s, (long long)distinct_tokens,
           distinct_fallbacks, distinct_errors, distinct_s, enqueue_s, (long long)s.tokens, s.recorded,
           s.fallbacks, s.errors, s.mismatches, pending, st.worker_deaths, drain_s,
           (double)n_items / drain_s, (double)s.tokens / drain_s, cpu_parent, cpu_workers, rss_selfcheck,
           rss_reset, rss_before, rss_parent, rss_workers);

    bool ok = true;
    if (e.code != ERR_OK) {
        fprintf(stderr, "bench_drain: the pool could not run (counted in-process): %s\n", e.msg);
        ok = false;
    }
    if (s.mismatches || pending || s.recorded + s.errors != n_items || s.errors != st.failed) {
        fprintf(stderr, "bench_drain: %td mismatches, %td pending, %td recorded + %td failed of %lld items\n",
                s.mismatches, pending, s.recorded, s.errors, n_items);
        ok = false;
    }
    dq_free(q);
    count_model_free(m);
    arena_fini(&a);
    return ok ? 0 : 1;
}
