/* bench_tmpl.c - chat-template rendering speed on one core: a tokenizer's
 * chat template (through the chat layer, as `tally render` runs it) over
 * JSON-lines prompt contexts, median of several runs, in two ways; only
 * rendering is timed in both:
 *   cold   all contexts parsed first, then rendered one after the other:
 *          their trees and texts (about twice the input) are out of cache
 *          when each render starts (render_s);
 *   fresh  each context parsed just before it is rendered, into an arena
 *          reused from one to the next, as `tally render` and the counting
 *          do: the context is in cache (fresh_render_s).
 * Checks its own results: every run must give the same renderings, and
 * their sha256 (with each failure as its exception class) is printed so
 * bench/run.sh can compare it with the reference's (bench/ref_tmpl.py).
 * Output: one "key value" line per measure.
 *   bench_tmpl TOKENIZER_DIR CONTEXTS.jsonl [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/chat/chat_template.h"
#include "../src/json/json.h"
#include "../tests/sha256.h"


int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_tmpl TOKENIZER_DIR CONTEXTS.jsonl [RUNS]\n");
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    if (runs < 1 || runs > 100)
        runs = 5;
    err e = {0};
    arena a;
    arena_init(&a, 0);
    str all = os_read_file(&a, argv[2], &e);
    if (!all.s) {
        fprintf(stderr, "bench_tmpl: %s\n", e.msg);
        return 1;
    }
    iz cap = 1024, n = 0, in_bytes = 0;
    json **ctx = malloc((size_t)cap * sizeof(json *));
    str *src = malloc((size_t)cap * sizeof(str));   /* each context's line, for the fresh runs */
    for (iz b = 0, i = 0; i <= all.len; i++) {
        if (i < all.len && all.s[i] != '\n')
            continue;
        if (i > b) {
            json *v = json_parse(&a, str_cut(all, b, i), NULL, &e);
            if (!v) {
                fprintf(stderr, "bench_tmpl: %s: %s\n", argv[2], e.msg);
                return 1;
            }
            if (n == cap) {
                cap *= 2;
                ctx = realloc(ctx, (size_t)cap * sizeof(json *));
                src = realloc(src, (size_t)cap * sizeof(str));
            }
            src[n] = str_cut(all, b, i);
            ctx[n++] = v;
            in_bytes += i - b;
        }
        b = i + 1;
    }

    arena perm;
    arena_init(&perm, 0);
    double t0 = os_now();
    chat_tmpl *ct = chat_tmpl_load(&perm, argv[1], NULL, &e);
    double load_s = os_now() - t0;
    if (!ct) {
        fprintf(stderr, "bench_tmpl: %s\n", e.msg);
        return 1;
    }
    /* 2025-01-15T12:00:00, the clock of the goldens */
    tmpl_render_opts o = {.now = 1736942400};
    arena scratch;
    arena_init(&scratch, 0);
    arena_reserve(&scratch, 1 << 20);   /* kept across renders, as `tally render` keeps it */
    buf out = {0};
    tmpl_error te;

    /* One checked pass first (not timed): the digest and the totals. */
    sha256_ctx h;
    sha256_init(&h);
    iz out_bytes = 0, errors = 0;
    for (iz k = 0; k < n; k++) {
        out.len = 0;
        if (chat_render_prompt(ct, ctx[k], &o, &scratch, &out, &te) == ERR_OK) {
            sha256_update(&h, out.data, out.len);
            out_bytes += out.len;
        } else {
            const char *cls = te.exc ? te.exc : err_code_name(te.code);
            sha256_update(&h, "\0ERROR ", 7);
            sha256_update(&h, cls, (iz)strlen(cls));
            sha256_update(&h, "\0", 1);
            errors++;
        }
    }
    u8 d[32];
    sha256_final(&h, d);

    double t[100];
    for (int r = 0; r < runs; r++) {
        iz bytes = 0;
        t0 = os_now();
        for (iz k = 0; k < n; k++) {
            out.len = 0;
            if (chat_render_prompt(ct, ctx[k], &o, &scratch, &out, &te) == ERR_OK)
                bytes += out.len;
        }
        t[r] = os_now() - t0;
        if (bytes != out_bytes) {
            fprintf(stderr, "bench_tmpl: run %d rendered %td bytes, the first %td\n", r + 1, bytes, out_bytes);
            return 1;
        }
    }
    double m = median(t, runs);

    /* The fresh runs: parse (not timed), then render (timed). */
    arena fresh;
    arena_init(&fresh, 0);
    arena_mark fresh0 = arena_reserve(&fresh, 1 << 20);
    for (int r = 0; r < runs; r++) {
        iz bytes = 0;
        t[r] = 0;
        for (iz k = 0; k < n; k++) {
            arena_restore(&fresh, fresh0);
            json *v = json_parse(&fresh, src[k], NULL, &e);
            if (!v) {
                fprintf(stderr, "bench_tmpl: %s: %s\n", argv[2], e.msg);
                return 1;
            }
            out.len = 0;
            t0 = os_now();
            if (chat_render_prompt(ct, v, &o, &scratch, &out, &te) == ERR_OK)
                bytes += out.len;
            t[r] += os_now() - t0;
        }
        if (bytes != out_bytes) {
            fprintf(stderr, "bench_tmpl: fresh run %d rendered %td bytes, the first %td\n", r + 1, bytes,
                    out_bytes);
            return 1;
        }
    }
    double mf = median(t, runs);
    printf("inputs %td\nin_bytes %td\nout_bytes %td\nerrors %td\nsha256 ", n, in_bytes, out_bytes, errors);
    for (int i = 0; i < 32; i++)
        printf("%02x", d[i]);
    printf("\nload_s %.4f\nrender_s %.4f\nrenders_per_s %.0f\nout_mbps %.2f\nin_mbps %.2f\n", load_s, m,
           (double)n / m, (double)out_bytes / 1e6 / m, (double)in_bytes / 1e6 / m);
    printf("fresh_render_s %.4f\nfresh_renders_per_s %.0f\nfresh_out_mbps %.2f\n", mf, (double)n / mf,
           (double)out_bytes / 1e6 / mf);
    buf_free(&out);
    arena_fini(&fresh);
    arena_fini(&scratch);
    arena_fini(&perm);
    free(src);
    free(ctx);
    arena_fini(&a);
    return 0;
}
