/* fuzz_tok.c - libFuzzer target for the tokenizers: the first byte picks
 * one of the real tokenizers (from $TALLY_ASSETS or assets/), the rest is
 * the text. Checks: invalid UTF-8 is an ERR_UTF8 error at the first bad byte;
 * otherwise encode succeeds, count equals the length of encode, and for
 * lossless tokenizers decode(encode(x)) == x. */
#include <stdio.h>
#include <stdlib.h>
#include "../src/base/utf8.h"
#include "../src/tok/tok.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"qwen3", "llama3_1", "llama2", "deepseek_v3", "gemma3", "gpt4o"};
static tok      *toks[6];
static tok_work *works[6];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv("TALLY_ASSETS");
    for (int k = 0; k < 6; k++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "assets", names[k]);
        err e = {0};
        toks[k] = tok_load(path, &e);
        if (!toks[k]) {
            fprintf(stderr, "fuzz_tok: %s\n", e.msg);
            exit(1);
        }
        works[k] = tok_work_new(toks[k]);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int k = data[0] % 6;
    str text = str_from(data + 1, (iz)size - 1);
    tok *t = toks[k];
    tok_work *w = works[k];
    err e = {0};
    const u32 *ids;
    iz n;
    int rc = tok_encode(t, w, text, &ids, &n, &e);
    iz bad = utf8_invalid_at(text);
    if (bad >= 0) {
        if (rc != ERR_UTF8 || e.off != bad)
            __builtin_trap();
        return 0;
    }
    if (rc)
        __builtin_trap();
    u32 *copy = malloc((size_t)(n + 1) * sizeof(u32));
    if (n)   /* ids may be NULL when there are none */
        memcpy(copy, ids, (size_t)n * sizeof(u32));
    i64 cnt = -1;
    if (tok_count(t, w, text, &cnt, &e) || cnt != n)
        __builtin_trap();
    if (tok_is_lossless(t)) {
        buf b = {0};
        if (tok_decode(t, copy, n, &b, &e) || !str_eq(buf_view(&b), text))
            __builtin_trap();
        buf_free(&b);
    }
    free(copy);
    return 0;
}
