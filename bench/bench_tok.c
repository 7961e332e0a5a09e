/* bench_tok.c - tokenizer throughput on one core: load time, RSS of the
 * loaded tokenizer, count and encode MB/s and tokens/s over JSON-lines
 * inputs (median of several runs), cold (a fresh work area each run) before
 * and after the linear encoder's tables are built, and one pathological
 * input (1 MB without whitespace). Checks its own results: count equals encode's length on every
 * input, and the total is printed so runs can be compared with the
 * reference's. Output: one "key value" line per measure (bench/run.sh reads
 * them).
 *   bench_tok TOKENIZER_DIR INPUT.jsonl [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/json/json.h"
#include "../src/tok/tok.h"
#include "../src/tok/tok_model.h"


static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

/* Times `runs` passes over the texts, each through a fresh work area. */
static void cold_runs(const tok *t, const str *texts, iz n, int runs, double *times)
{
    err e = {0};
    for (int r = 0; r < runs; r++) {
        tok_work *fresh = tok_work_new(t);
        double t0 = os_now();
        for (iz k = 0; k < n; k++) {
            i64 c;
            tok_count(t, fresh, texts[k], &c, &e);
        }
        times[r] = os_now() - t0;
        tok_work_free(fresh);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_tok TOKENIZER INPUT.jsonl [RUNS]\n");
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    if (runs < 1 || runs > 100)
        runs = 5;
    err e = {0};

    /* inputs first, so the RSS delta is the tokenizer's */
    arena a;
    arena_init(&a, 0);
    str all = os_read_file(&a, argv[2], &e);
    if (!all.s) {
        fprintf(stderr, "bench_tok: %s\n", e.msg);
        return 1;
    }
    iz cap = 1024, n = 0;
    str *texts = malloc((size_t)cap * sizeof(str));
    iz bytes = 0;
    for (iz b = 0, i = 0; i <= all.len; i++) {
        if (i < all.len && all.s[i] != '\n')
            continue;
        if (i > b) {
            json *v = json_parse(&a, str_cut(all, b, i), NULL, &e);
            const json *t = json_get_type(v, S("text"), JSON_STR);
            if (t) {
                if (n == cap)
                    texts = realloc(texts, (size_t)(cap *= 2) * sizeof(str));
                texts[n++] = t->u.s;
                bytes += t->u.s.len;
            }
        }
        b = i + 1;
    }

    double loads[3];
    tok *t = NULL;
    long rss_before = rss_kb();
    for (int r = 0; r < 3; r++) {
        tok_free(t);
        double t0 = os_now();
        t = tok_load(argv[1], &e);
        loads[r] = os_now() - t0;
        if (!t) {
            fprintf(stderr, "bench_tok: %s\n", e.msg);
            return 1;
        }
    }
    long rss_after = rss_kb();
    tok_work *w = tok_work_new(t);

    double tc[100], te[100];
    i64 total = 0;
    for (int r = 0; r < runs; r++) {
        /* the word cache stays warm; the piece cache would answer whole
         * texts seen in the last pass, so it starts empty each pass */
        tok_work_forget_pieces(w);
        double t0 = os_now();
        i64 sum = 0;
        for (iz k = 0; k < n; k++) {
            i64 c;
            if (tok_count(t, w, texts[k], &c, &e)) {
                fprintf(stderr, "bench_tok: input %td: %s\n", k + 1, e.msg);
                return 1;
            }
            sum += c;
        }
        tc[r] = os_now() - t0;
        total = sum;
    }
    for (int r = 0; r < runs; r++) {
        double t0 = os_now();
        i64 sum = 0;
        for (iz k = 0; k < n; k++) {
            const u32 *ids;
            iz m;
            if (tok_encode(t, w, texts[k], &ids, &m, &e)) {
                fprintf(stderr, "bench_tok: input %td: %s\n", k + 1, e.msg);
                return 1;
            }
            sum += m;
        }
        te[r] = os_now() - t0;
        if (sum != total) {
            fprintf(stderr, "bench_tok: count total %lld != encode total %lld\n", (long long)total, (long long)sum);
            return 1;
        }
    }
    /* a cold cache: the same inputs through a fresh work area each run */
    double tcold[100];
    cold_runs(t, texts, n, runs, tcold);
    /* the same, the linear encoder's tables built first, as a process has
     * them once it has counted enough (bpe_lin_ready) */
    double tbuilt[100];
    bpe_lin_get(t);
    cold_runs(t, texts, n, runs, tbuilt);
    /* 1 MB without whitespace: one huge pre-token for most tokenizers */
    iz big = 1 << 20;
    u8 *huge = malloc((size_t)big);
    u64 x = 88172645463325252u;
    for (iz i = 0; i < big; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        huge[i] = (u8)('a' + x % 26);
    }
    double th[100];
    i64 hc = 0;
    for (int r = 0; r < 3; r++) {
        tok_work *fresh = tok_work_new(t);
        double t0 = os_now();
        tok_count(t, fresh, str_from(huge, big), &hc, &e);
        th[r] = os_now() - t0;
        tok_work_free(fresh);
    }
    double mc = median(tc, runs), me = median(te, runs), mcold = median(tcold, runs);
    printf("inputs %td\nbytes %td\ntokens %lld\n", n, bytes, (long long)total);
    printf("load_s %.4f\n", median(loads, 3));
    printf("rss_mb %.1f\n", (double)(rss_after - rss_before) / 1024.0);
    printf("tok_memory_mb %.1f\n", (double)tok_memory(t) / 1048576.0);
    printf("count_s %.4f\ncount_mbps %.2f\ncount_tokps %.0f\n", mc, (double)bytes / 1e6 / mc, (double)total / mc);
    printf("count_cold_s %.4f\ncount_cold_mbps %.2f\n", mcold, (double)bytes / 1e6 / mcold);
    double mbuilt = median(tbuilt, runs);
    printf("count_cold_built_s %.4f\ncount_cold_built_mbps %.2f\n", mbuilt, (double)bytes / 1e6 / mbuilt);
    printf("encode_s %.4f\nencode_mbps %.2f\nencode_tokps %.0f\n", me, (double)bytes / 1e6 / me, (double)total / me);
    printf("huge_1mb_s %.4f\nhuge_1mb_tokens %lld\n", median(th, 3), (long long)hc);
    free(huge);
    free(texts);
    tok_work_free(w);
    tok_free(t);
    arena_fini(&a);
    return 0;
}
