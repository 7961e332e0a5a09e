/* fuzz_prefix.c - libFuzzer target for the prefix memory of tok_count
 * (src/tok/prefix.c): a long text is counted, then texts that begin as it
 * does and end otherwise, with the same work area, and each count must be
 * the length of its encoding (tok_encode does not use the memory).
 *
 * Input: byte 0 picks the tokenizer (those with the splits the memory
 * knows), bytes 1-2 the cut (a fraction of the long text), byte 3 where the
 * rest divides into body and tail. The long text is the body repeated up to
 * 12 KB (the memory keeps texts of 8 KB and more); the other texts are its
 * first `cut` bytes followed by the tail, by the tail doubled, and by the
 * body again. Invalid UTF-8 must be the same error from count and encode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../src/base/utf8.h"
#include "../src/tok/tok.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"qwen3", "llama3_1", "llama3"};
enum { NTOK = 3, LONG = 12 << 10 };
static tok      *toks[NTOK];
static tok_work *works[NTOK];

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
            fprintf(stderr, "fuzz_prefix: %s\n", e.msg);
            exit(1);
        }
        works[k] = tok_work_new(toks[k]);
    }
    return 0;
}

static void check(const tok *t, tok_work *w, str text)
{
    err e = {0};
    const u32 *ids;
    iz n;
    int rc = tok_encode(t, w, text, &ids, &n, &e);
    i64 cnt = -1;
    int rc2 = tok_count(t, w, text, &cnt, &e);
    if (rc != rc2 || (!rc && cnt != n))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    int k = data[0] % NTOK;
    iz frac = (iz)(data[1] | data[2] << 8);
    iz rest = (iz)size - 4;
    iz split = 1 + (iz)data[3] % rest;   /* body: [4, 4 + split), tail: the rest */
    str body = str_from(data + 4, split);
    str tail = str_from(data + 4 + split, rest - split);
    tok *t = toks[k];
    tok_work *w = works[k];

    buf lng = {0};
    while (lng.len < LONG)
        buf_str(&lng, body);
    str l = buf_view(&lng);
    check(t, w, l);
    iz cut = 8192 + frac * (l.len - 8192) / 65536;
    for (int v = 0; v < 3; v++) {
        buf x = {0};
        buf_str(&x, str_cut(l, 0, cut));
        buf_str(&x, v == 2 ? body : tail);
        if (v == 1)
            buf_str(&x, tail);
        check(t, w, buf_view(&x));
        check(t, w, l);   /* the long text again: the next cut starts from it */
        buf_free(&x);
    }
    buf_free(&lng);
    return 0;
}
