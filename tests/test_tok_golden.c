/* test_tok_golden.c - the exactness acceptance test of the tokenizer: for each
 * tokenizer and input set under tests/data/tok/, every input's ids must have
 * the count and FNV-1a hash the reference (Rust tokenizers 0.22.2) gave.
 * One test per (tokenizer, set), then each set again once the linear
 * encoder's tables are built (then it takes every word of two bytes or more
 * the caches do not answer: tok_model.h), whatever the process had counted;
 * a mismatch prints the input and, when the sample file has it, the
 * expected ids. Tokenizers come from the assets
 * folder ($TALLY_ASSETS or assets/); a missing one is a failure. */
#include "test.h"
#include "../src/base/arena.h"
#include "../src/base/hash.h"
#include "../src/base/os.h"
#include "../src/json/json.h"
#include "../src/tok/tok.h"
#include "../src/tok/tok_model.h"

static const char *const tokenizers[] = {"qwen3", "llama3_1", "llama2", "deepseek_v3", "gemma3", "gpt4o",
                                          "llama3", "gptoss", "claude"};
static const char *const sets[] = {"texts", "bfcl_qwen3", "bfcl_llama3_1", "gen"};

static const char *assets(void)
{
    const char *a = getenv("TALLY_ASSETS");
    return a && *a ? a : "assets";
}

/* Splits s into lines (the last may lack its newline). */
static iz lines_of(arena *a, str s, str **out)
{
    iz n = 0;
    for (iz i = 0; i < s.len; i++)
        n += s.s[i] == '\n';
    n += s.len && s.s[s.len - 1] != '\n';
    str *v = NEW(a, str, n + 1);
    iz k = 0, b = 0;
    for (iz i = 0; i < s.len; i++)
        if (s.s[i] == '\n') {
            v[k++] = str_cut(s, b, i);
            b = i + 1;
        }
    if (b < s.len)
        v[k++] = str_cut(s, b, s.len);
    *out = v;
    return k;
}

static iz last_cases;

static int check_set(tok *t, const char *name, const char *set)
{
    char path[512];
    arena a;
    arena_init(&a, 0);
    err e = {0};
    snprintf(path, sizeof(path), "tests/data/tok/inputs/%s.jsonl", set);
    str in = os_read_file(&a, path, &e);
    snprintf(path, sizeof(path), "tests/data/tok/golden/%s.%s.tsv", name, set);
    str gold = os_read_file(&a, path, &e);
    if (!in.s || !gold.s) {
        printf("#   %s\n", e.msg);
        arena_fini(&a);
        return -1;
    }
    str *il, *gl;
    iz ni = lines_of(&a, in, &il), ng = lines_of(&a, gold, &gl);
    if (ni != ng) {
        printf("#   %s: %td inputs but %td golden lines\n", set, ni, ng);
        arena_fini(&a);
        return -1;
    }
    tok_work *w = tok_work_new(t);
    int bad = 0;
    last_cases = ni;
    for (iz k = 0; k < ni; k++) {
        arena_mark m = arena_save(&a);
        json *v = json_parse(&a, il[k], NULL, &e);
        const json *text = json_get_type(v, S("text"), JSON_STR);
        if (!text) {
            printf("#   %s line %td: no text\n", set, k + 1);
            bad++;
            continue;
        }
        const u32 *ids;
        iz n;
        int rc = tok_encode(t, w, text->u.s, &ids, &n, &e);
        char got[64];
        if (rc)
            snprintf(got, sizeof(got), "err");
        else
            snprintf(got, sizeof(got), "%td\t%016llx", n, (unsigned long long)hash_ids_fnv1a(ids, n));
        /* counting takes other paths (count-only caches, the one-loop
         * ASCII split): it must give the golden length too, twice (the
         * second time from the caches the first one filled) */
        for (int again = 0; again < 2 && !rc; again++) {
            i64 cnt = -1;
            err ce = {0};
            int crc = tok_count(t, w, text->u.s, &cnt, &ce);
            if (crc || cnt != n) {
                if (bad < 5)
                    printf("#   %s %s line %td: tok_count gave %lld (rc %d), tok_encode %td ids\n", name, set,
                           k + 1, (long long)cnt, crc, n);
                bad++;
                break;
            }
        }
        if (!str_eq(str_cstr(got), gl[k])) {
            if (bad < 5) {
                printf("#   %s %s line %td: got %s%s%s, expected %.*s; text %.200s\n", name, set, k + 1, got,
                       rc ? ": " : "", rc ? e.msg : "", (int)gl[k].len, (const char *)gl[k].s, (const char *)il[k].s);
                if (!rc && n < 200) {
                    printf("#     ids:");
                    for (iz j = 0; j < n; j++)
                        printf(" %u", ids[j]);
                    printf("\n");
                }
            }
            bad++;
        }
        arena_restore(&a, m);
    }
    tok_work_free(w);
    arena_fini(&a);
    if (bad)
        printf("#   %s %s: %d of %td differ\n", name, set, bad, ni);
    return bad;
}

int main(void)
{
    for (iz k = 0; k < countof(tokenizers); k++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", assets(), tokenizers[k]);
        err e = {0};
        tok *t = tok_load(path, &e);
        for (int built = 0; built < 2; built++) {
            /* the second round with the linear encoder built (when the
             * tokenizer meets its precondition: all nine do) */
            bool lin = built && t && bpe_lin_get(t);
            if (built && !lin)
                break;
            for (iz s = 0; s < countof(sets); s++) {
                char name[160];
                test_cur_failed = 0;
                last_cases = 0;
                int bad = -1;
                if (!t)
                    printf("#   load %s: %s\n", path, e.msg);
                else if ((bad = check_set(t, tokenizers[k], sets[s])) != 0)
                    test_cur_failed = 1;
                snprintf(name, sizeof(name), "golden %s %s%s: %td cases, %d differ", tokenizers[k], sets[s],
                         lin ? " (linear encoder built)" : "", last_cases, bad);
                test_count++;
                if (test_cur_failed || !t)
                    test_failed++;
                printf("%s %d - %s\n", test_cur_failed || !t ? "not ok" : "ok", test_count, name);
                fflush(stdout);
            }
        }
        tok_free(t);
    }
    return test_done();
}
