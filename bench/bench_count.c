/* bench_count.c - speed of the counting kinds on one core: count_item (the
 * function `tally count` calls per line) over JSON-lines prompts (prompt
 * kind, upstream's rules) and assistant outputs (message kind), parsed
 * beforehand, median of several passes (at least RUNS, more while they add
 * up to less than a second). Checks its own results: every pass
 * must give the same totals, which bench/run.sh compares with the
 * reference's (bench/ref_count.py). Output: one "key value" line per measure.
 *   bench_count TOKENIZER_DIR PROMPTS.jsonl OUTPUTS.jsonl [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/chat/count.h"
#include "../src/json/json.h"

enum { MAX_RUNS = 100 };

typedef struct items {
    count_input *in;
    iz           n, bytes;
} items;

typedef struct totals {
    i64 tokens;
    iz  fallbacks, errors;
} totals;


/* Reads a JSON-lines file into count inputs of `kind` (the fields as the
 * oracle's prompt and message modes take them); false and a message on
 * stderr when a line is not what the kind needs. */
static bool load_items(arena *a, const char *path, count_kind kind, items *out)
{
    err e = {0};
    str all = os_read_file(a, path, &e);
    if (!all.s) {
        fprintf(stderr, "bench_count: %s\n", e.msg);
        return false;
    }
    iz cap = 1;
    for (iz i = 0; i < all.len; i++)
        cap += all.s[i] == '\n';
    out->in = NEW(a, count_input, cap);
    out->n = out->bytes = 0;
    for (iz b = 0, i = 0, line = 1; i <= all.len; i++) {
        if (i < all.len && all.s[i] != '\n')
            continue;
        if (i > b) {
            json *v = json_parse(a, str_cut(all, b, i), NULL, &e);
            count_input *in = &out->in[out->n];
            in->kind = kind;
            if (v && kind == COUNT_PROMPT) {
                in->messages = json_get(v, S("messages"));
                in->tools = json_get(v, S("tools"));
                in->tool_choice = json_get(v, S("tool_choice"));
                in->chat_template = json_get(v, S("chat_template"));
                in->chat_template_kwargs = json_get(v, S("chat_template_kwargs"));
            } else if (v) {
                in->content = json_get(v, S("content"));
                in->reasoning = json_get(v, S("reasoning"));
                in->tool_calls = json_get(v, S("tool_calls"));
            }
            if (!v || (kind == COUNT_PROMPT && !in->messages)) {
                fprintf(stderr, "bench_count: %s line %td: %s\n", path, line, v ? "no messages" : e.msg);
                return false;
            }
            out->n++;
            out->bytes += i - b;
        }
        b = i + 1;
        line++;
    }
    return true;
}

static totals count_all(count_work *w, const items *it)
{
    totals t = {0};
    count_result r;
    for (iz k = 0; k < it->n; k++) {
        if (count_item(w, &it->in[k], &r) != ERR_OK) {
            t.errors++;
            continue;
        }
        t.tokens += r.n;
        t.fallbacks += r.fallback != NULL;
    }
    return t;
}

/* Times `runs` passes over `it` with one warm work area (as a long-running
 * `tally count` keeps its own), its piece cache emptied before each pass so
 * that every pass counts each item as a first pass over the data does (the
 * word cache stays warm; pieces shared by items of one pass still hit);
 * the first pass with a fresh work area is reported as the cold time.
 * Prints the measures with keys prefixed by `kind`. */
static bool bench(const count_model *m, const items *it, int runs, const char *kind, const char *plural)
{
    count_work *w = count_work_new(m);
    double t0 = os_now();
    totals first = count_all(w, it);
    double cold = os_now() - t0;
    double t[MAX_RUNS], spent = 0;
    /* At least `runs` passes and, for a set counted in milliseconds (the
     * messages), more, up to a second in all: a median of a few short
     * passes is at the mercy of one pause of a shared machine. */
    int passes = 0;
    /* BENCH_COUNT_EXACT=1: exactly `runs` passes (to compare instruction
     * counts of two builds under a profiler, where time means nothing) */
    double min_spent = getenv("BENCH_COUNT_EXACT") ? 0 : 1.0;
    for (int r = 0; r < runs || (spent < min_spent && r < MAX_RUNS); r++) {
        count_work_forget_pieces(w);
        t0 = os_now();
        totals again = count_all(w, it);
        t[r] = os_now() - t0;
        spent += t[r];
        passes = r + 1;
        if (again.tokens != first.tokens || again.fallbacks != first.fallbacks || again.errors != first.errors) {
            fprintf(stderr, "bench_count: %s run %d counted %lld tokens, the first %lld\n", kind, r + 1,
                    (long long)again.tokens, (long long)first.tokens);
            count_work_free(w);
            return false;
        }
    }
    count_work_free(w);
    double med = median(t, passes);
    printf("%s_passes %d\n%s_items %td\n%s_in_bytes %td\n%s_tokens %lld\n%s_fallbacks %td\n%s_errors %td\n"
           "%s_s %.4f\n%s_cold_s %.4f\n%s_per_s %.0f\n%s_tokps %.0f\n",
           kind, passes, kind, it->n, kind, it->bytes, kind, (long long)first.tokens, kind, first.fallbacks, kind, first.errors,
           kind, med, kind, cold, plural, (double)it->n / med, kind, (double)first.tokens / med);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_count TOKENIZER_DIR PROMPTS.jsonl OUTPUTS.jsonl [RUNS]\n");
        return 2;
    }
    int runs = argc > 4 ? atoi(argv[4]) : 5;
    if (runs < 1 || runs > MAX_RUNS)
        runs = 5;
    arena a;
    arena_init(&a, 0);
    items prompts, outputs;
    if (!load_items(&a, argv[2], COUNT_PROMPT, &prompts) || !load_items(&a, argv[3], COUNT_MESSAGE, &outputs))
        return 1;

    /* 2025-01-15T12:00:00 UTC, the clock of the goldens */
    count_model_opts o = {.chat_template_file = NULL, .now = 1736942400};
    err e = {0};
    double t0 = os_now();
    count_model *m = count_model_load(argv[1], &o, &e);
    double load_s = os_now() - t0;
    if (!m) {
        fprintf(stderr, "bench_count: %s: %s\n", argv[1], e.msg);
        return 1;
    }
    printf("load_s %.4f\nprefix_len %lld\nbaseline %lld\n", load_s, (long long)count_model_prefix_len(m),
           (long long)count_model_baseline(m));
    bool ok = bench(m, &prompts, runs, "prompt", "prompts") && bench(m, &outputs, runs, "message", "messages");
    count_model_free(m);
    arena_fini(&a);
    return ok ? 0 : 1;
}
