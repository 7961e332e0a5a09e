/* fuzz_bpe_linear.c - libFuzzer target for the linear encoder
 * (src/tok/bpe_linear.c): the input is one word, through the linear encoder
 * and through the merge loop (bpe.c) of one of the real tokenizers (from
 * $TALLY_ASSETS or assets/): byte-level ones (qwen3, llama3_1, gpt4o) and
 * byte-fallback ones (gemma3, llama2). The first byte picks the tokenizer
 * and how many times the rest is repeated (1 to 8: long words of one unit
 * are the backtracking's hard case). Checks: when the linear encoder
 * answers, its ids are the merge loop's; bpe_word with the linear encoder
 * on gives the merge loop's ids; a work area keeps its memory of pairs from
 * one input to the next, so a stale answer there shows too. For gemma3 and
 * llama2, bpe_word without the encoder cuts the word at runs of U+2581
 * (bpe.c, seg_word): its ids are the merge loop's on the whole word. */
#include <stdio.h>
#include <stdlib.h>
#include "../src/base/arena.h"
#include "../src/base/utf8.h"
#include "../src/tok/tok.h"
#include "../src/tok/tok_model.h"
#include "../src/tok/tok_internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NTOK = 5, MAX_REPEAT = 8 };
static const char *const names[NTOK] = {"qwen3", "llama3_1", "gpt4o", "gemma3", "llama2"};
static tok      *toks[NTOK];
static tok_work *lin_w[NTOK], *loop_w[NTOK];   /* linear encoder on, off */
static tok_work *seg_w[NTOK];                   /* off, with the cuts (loop_w has none) */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv("TALLY_ASSETS");
    for (int k = 0; k < NTOK; k++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "assets", names[k]);
        err e = {0};
        toks[k] = tok_load(path, &e);
        if (!toks[k]) {
            fprintf(stderr, "fuzz_bpe_linear: %s\n", e.msg);
            exit(1);
        }
        /* The property is only worth fuzzing where the encoder is on. */
        if (!bpe_lin_get(toks[k])) {
            fprintf(stderr, "fuzz_bpe_linear: %s: the linear encoder is off\n", names[k]);
            exit(1);
        }
        lin_w[k] = tok_work_new(toks[k]);
        loop_w[k] = tok_work_new(toks[k]);
        seg_w[k] = tok_work_new(toks[k]);
        if (!lin_w[k] || !loop_w[k] || !seg_w[k])
            exit(1);
        loop_w[k]->bpe_no_linear = true;
        loop_w[k]->bpe_no_seg = true;
        seg_w[k]->bpe_no_linear = true;
    }
    return 0;
}

/* bpe_word's ids of `word` in w (from w->ids, w->nids of them). */
static void word_ids(const tok *t, tok_work *w, str word)
{
    err e = {0};
    i64 cnt = 0;
    arena_mark m = arena_save(&w->scratch);
    w->nids = 0;
    if (setjmp(w->oom))
        __builtin_trap();   /* a few KB words: never out of memory */
    if (bpe_word(t, w, word, &cnt, true, &e) || cnt != w->nids)
        __builtin_trap();
    arena_restore(&w->scratch, m);
}

static bool same_ids(const tok_work *a, const tok_work *b)
{
    return a->nids == b->nids && (a->nids == 0 || memcmp(a->ids, b->ids, (size_t)a->nids * sizeof(u32)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int k = data[0] % NTOK;
    int repeat = 1 + (data[0] / NTOK) % MAX_REPEAT;
    const tok *t = toks[k];
    str unit = str_from(data + 1, (iz)size - 1);
    /* The byte-fallback tokenizers work on characters of valid UTF-8 (as
     * the pre-tokenizer hands them over): invalid bytes are dropped. */
    u8 *word = malloc((size_t)unit.len * (size_t)repeat);
    if (!word)
        return 0;
    iz n = 0;
    for (iz i = 0; i < unit.len;) {
        int len = t->byte_level ? 1 : utf8_valid_seq(unit.s + i, unit.len - i);
        if (len == 0) {
            i++;
            continue;
        }
        memcpy(word + n, unit.s + i, (size_t)len);
        n += len;
        i += len;
    }
    for (int r = 1; r < repeat; r++)
        memcpy(word + n * r, word, (size_t)n);
    str s = str_from(word, n * repeat);
    if (s.len == 0) {
        free(word);
        return 0;
    }
    tok_work *wl = lin_w[k], *wm = loop_w[k];

    /* The merge loop's ids. */
    word_ids(t, wm, s);

    /* The linear encoder alone (bpe_word looks the whole word up first
     * under ignore_merges: such a word is not its to answer). */
    if (!(t->ignore_merges && vocab_find(&t->vocab, s.s, s.len) >= 0)) {
        wl->nids = 0;
        if (setjmp(wl->oom))
            __builtin_trap();
        iz got = bpe_lin_encode(bpe_lin_get(t), t, wl, s);
        if (got >= 0 && (got != wl->nids || !same_ids(wl, wm)))
            __builtin_trap();
    }

    /* bpe_word with the encoder on (words of BPE_LIN_USE bytes or more). */
    word_ids(t, wl, s);
    if (!same_ids(wl, wm))
        __builtin_trap();

    /* The merge loop on the parts of the word (when it has cuts). */
    word_ids(t, seg_w[k], s);
    if (!same_ids(seg_w[k], wm))
        __builtin_trap();
    free(word);
    return 0;
}
