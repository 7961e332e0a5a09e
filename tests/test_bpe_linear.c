/* test_bpe_linear.c - the linear encoder (src/tok/bpe_linear.c) against the
 * merge loop (bpe.c), word by word, on all nine tokenizers of the assets
 * folder ($TALLY_ASSETS or assets/): random bytes, random vocabulary tokens
 * run together, base64, repeats of 1-8-byte units, UTF-8 text without
 * spaces, CJK and Hangul runs, runs of whitespace, and the `long` and
 * `repeat` strings of tests/data/tok/inputs/gen.jsonl; and a small
 * tokenizer whose merge makes a token the matcher leaves out. Every word's
 * ids must be the merge loop's; the test prints per tokenizer whether the
 * encoder applies, its size and build time, and how many words it
 * answered itself. */
#include "test.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/base/utf8.h"
#include "../src/json/json.h"
#include "../src/tok/tok.h"
#include "../src/tok/tok_model.h"

static const char *const tokenizers[] = {"qwen3", "llama3_1", "llama2", "deepseek_v3", "gemma3", "gpt4o",
                                          "llama3", "gptoss", "claude"};

static const char *assets(void)
{
    const char *a = getenv("TALLY_ASSETS");
    return a && *a ? a : "assets";
}

static u64 rng = 0x9e3779b97f4a7c15u;

static u32 rnd(u32 n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (u32)((rng >> 11) % n);
}

static void put_cp(buf *b, u32 c)
{
    u8 tmp[4];
    int k = utf8_encode(c, tmp);
    buf_put(b, tmp, k);
}

typedef struct {
    const tok *t;
    tok_work  *wl, *wm;         /* linear, merge loop */
    iz         words, answered, skipped, failed;
    iz         bytes;
    bool       seg;             /* test_seg: wl is bpe_word with cuts, both without the linear encoder */
} diff;

static void report(diff *d, str word, const char *kind, iz n, const u32 *ids)
{
    bool same = n == d->wm->nids && memcmp(ids, d->wm->ids, (size_t)n * sizeof(u32)) == 0;
    if (same)
        return;
    if (d->failed++ < 3) {
        printf("#   %s (%td bytes \"%.*s\"...): %td ids, the merge loop %td\n", kind, word.len,
               (int)(word.len < 40 ? word.len : 40), (const char *)word.s, n, d->wm->nids);
        iz k = 0;
        while (k < n && k < d->wm->nids && ids[k] == d->wm->ids[k])
            k++;
        printf("#     first difference at id %td: %u vs %u\n", k, k < n ? ids[k] : 0,
               k < d->wm->nids ? d->wm->ids[k] : 0);
    }
    test_cur_failed = 1;
}

/* bpe_word's ids of `word` in w (w->ids, w->nids of them) and its count in
 * *count; false, with the failure printed, when it fails (`what` names w). */
static bool word_in(const tok *t, tok_work *w, str word, const char *kind, const char *what, i64 *count)
{
    err e = {0};
    *count = 0;
    w->nids = 0;
    if (setjmp(w->oom)) {
        printf("#   %s: out of memory\n", kind);
        test_cur_failed = 1;
        return false;
    }
    if (bpe_word(t, w, word, count, true, &e)) {
        printf("#   %s: %s failed: %s\n", kind, what, e.msg);
        test_cur_failed = 1;
        return false;
    }
    return true;
}

/* One word through both; a difference is printed (once per kind). */
static void compare(diff *d, str word, const char *kind)
{
    if (word.len == 0)
        return;
    const tok *t = d->t;
    /* ignore_merges looks the whole word up first, in bpe_word only */
    if (t->ignore_merges && vocab_find(&t->vocab, word.s, word.len) >= 0) {
        d->skipped++;
        return;
    }
    i64 cm;
    if (!word_in(t, d->wm, word, kind, "merge loop", &cm))
        return;
    d->words++;
    d->bytes += word.len;
    if (d->seg) {
        i64 cs;
        if (!word_in(t, d->wl, word, kind, "bpe_word", &cs))
            return;
        d->answered++;
        report(d, word, kind, d->wl->nids, d->wl->ids);
        EXPECT_EQ(cs, cm);
        return;
    }
    const bpe_lin *lin = bpe_lin_get(t);
    if (!lin)
        return;
    d->wl->nids = 0;
    if (setjmp(d->wl->oom)) {
        printf("#   %s: out of memory\n", kind);
        test_cur_failed = 1;
        return;
    }
    iz n = bpe_lin_encode(lin, t, d->wl, word);
    if (n < 0)
        return;
    d->answered++;
    report(d, word, kind, n, d->wl->ids);
}

/* The model vocabulary's keys (raw bytes). */
static iz vocab_keys(const tok *t, arena *a, str **out)
{
    str *v = NEW(a, str, t->vocab.n + 1);
    iz n = 0;
    for (iz i = 0; i <= t->vocab.mask; i++)
        if (t->vocab.slots[i].used)
            v[n++] = str_from(t->vocab.slots[i].key, t->vocab.slots[i].len);
    *out = v;
    return n;
}

static u32 word_len(void)
{
    static const u32 lens[] = {1, 2, 5, 17, 64, 65, 100, 255, 256, 300, 1000, 3000};
    u32 r = rnd(16);
    return r < 12 ? lens[r] : 64 + rnd(2000);
}

static const char *const latin[] = {"the", "quick", "brown", "fox", "Jalapeño", "café", "naïve", "über",
                                    "antidisestablishmentarianism", "XMLHttpRequest", "snake_case", "don't",
                                    "Ünïcödé", "straße", "ﬁne", "—", "…", "déjà", "vu", "Ωmega", "ok"};

static void gen_words(diff *d, str *keys, iz nkeys, iz per)
{
    bool chars = !d->t->byte_level;
    buf b = {0};
    for (iz k = 0; k < per; k++) {
        u32 len = word_len();
        /* random bytes (characters for character-level tokenizers) */
        b.len = 0;
        while (b.len < len) {
            if (chars) {
                u32 r = rnd(4);
                u32 c = r == 0 ? 0x20 + rnd(0x5f) : r == 1 ? 0xa0 + rnd(0x700) : r == 2 ? 0x3000 + rnd(0x7000) : 0x10000 + rnd(0x2000);
                put_cp(&b, c);
            } else {
                u8 c = (u8)rnd(256);
                buf_put(&b, &c, 1);
            }
        }
        compare(d, buf_view(&b), "random");
        /* vocabulary tokens run together */
        b.len = 0;
        while (b.len < len) {
            str s = keys[rnd((u32)nkeys)];
            if (!chars || utf8_invalid_at(s) < 0)
                buf_put(&b, s.s, s.len);
        }
        compare(d, buf_view(&b), "vocab");
        /* base64 */
        b.len = 0;
        static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        while (b.len < len)
            buf_put(&b, &b64[rnd(64)], 1);
        compare(d, buf_view(&b), "base64");
        /* a unit of 1-8 bytes repeated */
        static const char *const units[] = {"a", "ab", " ", "\n\n", "abc", "=", "-", "aab", " \n", "\t",
                                            "ab ", "01", "▁", "😀", "ab\n", "xyzw", "\r\n", "aaaaaaab"};
        b.len = 0;
        u8 unit[8];
        iz ulen;
        if (rnd(2)) {
            const char *u = units[rnd(sizeof(units) / sizeof(units[0]))];
            ulen = (iz)strlen(u);
            memcpy(unit, u, (size_t)ulen);
        } else {
            ulen = 1 + rnd(8);
            for (iz j = 0; j < ulen; j++)
                unit[j] = chars ? (u8)(0x21 + rnd(0x5e)) : (u8)rnd(256);
        }
        u32 reps = rnd(4) ? 1 + rnd(400) : 1 + rnd(3000);
        for (u32 j = 0; j < reps; j++)
            buf_put(&b, unit, ulen);
        compare(d, buf_view(&b), "repeat");
        /* text without spaces */
        b.len = 0;
        while (b.len < len) {
            const char *w = latin[rnd(sizeof(latin) / sizeof(latin[0]))];
            buf_put(&b, w, (iz)strlen(w));
        }
        compare(d, buf_view(&b), "text");
        /* CJK, Hangul */
        b.len = 0;
        while (b.len < len)
            put_cp(&b, rnd(3) ? 0x4e00 + rnd(0x5200) : 0xac00 + rnd(0x2ba4));
        compare(d, buf_view(&b), "cjk");
        /* CJK from a small set (repeats within the word) */
        b.len = 0;
        while (b.len < len)
            put_cp(&b, 0x4e00 + rnd(40));
        compare(d, buf_view(&b), "cjk-small");
        /* runs of whitespace of every length, a letter now and then (the
         * runs' tokens are often not monotone: the merge loop's pair test) */
        static const char *const ws[] = {" ", "\u2581", "\n", "\t", "\r\n", "a"};
        b.len = 0;
        while (b.len < len) {
            const char *u = ws[rnd(sizeof(ws) / sizeof(ws[0]))];
            for (u32 j = rnd(4) ? 1 + rnd(8) : 1 + rnd(80); j > 0; j--)
                buf_put(&b, u, (iz)strlen(u));
        }
        compare(d, buf_view(&b), "whitespace");
        /* Metaspace text: words and marks between runs of U+2581, the
         * characters before a run of every sort (the cuts of bpe.c's
         * seg_word: '>' has a merge with "▁</" in gemma3; a character
         * outside the vocabulary or beyond the BMP is no symbol of its own) */
        static const char *const ms[] = {"the", "quick", "Jalapeño", ">", "</", "<", "</s", ".", ",", "\n",
                                         "𠀡", "😀", "͸", "a>", "x", "é", "—", "’"};
        b.len = 0;
        while (b.len < len) {
            for (u32 j = rnd(5) ? 1 : 1 + rnd(4); j > 0; j--)
                buf_cstr(&b, "▁");
            for (u32 j = 1 + rnd(3); j > 0; j--) {
                const char *u = ms[rnd(sizeof(ms) / sizeof(ms[0]))];
                buf_put(&b, u, (iz)strlen(u));
            }
        }
        compare(d, buf_view(&b), "metaspace");
    }
    buf_free(&b);
}

static void gen_file(diff *d)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str all = os_read_file(&a, "tests/data/tok/inputs/gen.jsonl", &e);
    if (!all.s) {
        printf("#   %s\n", e.msg);
        test_cur_failed = 1;
        arena_fini(&a);
        return;
    }
    iz b = 0;
    for (iz i = 0; i <= all.len; i++) {
        if (i < all.len && all.s[i] != '\n')
            continue;
        str line = str_cut(all, b, i);
        b = i + 1;
        if (!line.len)
            continue;
        json *j = json_parse(&a, line, NULL, &e);
        const json *id = j ? json_get_type(j, S("id"), JSON_STR) : NULL;
        const json *text = j ? json_get_type(j, S("text"), JSON_STR) : NULL;
        if (!id || !text)
            continue;
        str ids = id->u.s;
        bool pick = false;
        for (iz k = 0; k + 8 <= ids.len && !pick; k++)
            pick = memcmp(ids.s + k, ":repeat:", 8) == 0 || (k + 6 <= ids.len && memcmp(ids.s + k, ":long:", 6) == 0);
        if (pick)
            compare(d, text->u.s, "gen.jsonl");
    }
    arena_fini(&a);
}

static void test_against_merge_loop(void)
{
    iz total = 0, total_answered = 0;
    for (size_t k = 0; k < sizeof(tokenizers) / sizeof(tokenizers[0]); k++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", assets(), tokenizers[k]);
        err e = {0};
        tok *t = tok_load(path, &e);
        if (!t) {
            printf("#   %s: %s\n", tokenizers[k], e.msg);
            test_cur_failed = 1;
            continue;
        }
        bpe_lin_info info;
        bool on = bpe_lin_stats(t, &info);
        if (on)
            printf("#   %s: linear encoder on (%s): %td tokens (%td not monotone), %td left out, %td trie nodes, "
                   "%.1f MB, built in %.0f ms\n",
                   tokenizers[k], info.chars ? "characters" : "bytes", info.tokens, info.slow, info.left_out,
                   info.nodes, (double)info.bytes / 1e6, info.build_s * 1e3);
        else
            printf("#   %s: linear encoder off (precondition not met)\n", tokenizers[k]);
        diff d = {t, tok_work_new(t), tok_work_new(t), 0, 0, 0, 0, 0, false};
        REQUIRE(d.wl && d.wm);
        d.wm->bpe_no_linear = true;
        d.wm->bpe_no_seg = true;   /* the merge loop on whole words */
        arena a;
        arena_init(&a, 0);
        str *keys;
        iz nkeys = vocab_keys(t, &a, &keys);
        rng = 0x9e3779b97f4a7c15u ^ (u64)k;
        gen_words(&d, keys, nkeys, 120);
        gen_file(&d);
        printf("#   %s: %td words (%.1f MB) compared, %td answered by the linear encoder, %td skipped, %td differ\n",
               tokenizers[k], d.words, (double)d.bytes / 1e6, d.answered, d.skipped, d.failed);
        /* Left-out tokens are rare: the encoder answers nearly every word. */
        if (on)
            EXPECT(d.answered * 10 >= d.words * 9);
        total += d.words;
        total_answered += d.answered;
        arena_fini(&a);
        tok_work_free(d.wl);
        tok_work_free(d.wm);
        tok_free(t);
    }
    printf("#   all: %td words, %td answered by the linear encoder\n", total, total_answered);
}

/* bpe_word builds the encoder only after BPE_LIN_BUILD_AFTER bytes of long
 * words, a short one weighing 1/BPE_LIN_SHORT_WEIGHT of its bytes: a
 * tokenizer that has counted less has none; past it, it has one; the counts
 * are the merge loop's on both sides of the switch. */
static void test_build_threshold(void)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/qwen3", assets());
    err e = {0};
    tok *t = tok_load(path, &e);
    REQUIRE(t);
    tok_work *w = tok_work_new(t), *wm = tok_work_new(t);
    REQUIRE(w && wm);
    wm->bpe_no_linear = true;
    buf b = {0};
    int differ = 0;
    /* Short words weigh 1/64: 512 KB of them (fresh words of 8 letters,
     * each its own piece with the space before it) build nothing. */
    iz shorts = 0;
    for (int r = 0; r < 64; r++) {
        b.len = 0;
        while (b.len < 8192) {
            if (b.len)
                buf_put(&b, " ", 1);
            for (int i = 0; i < 8; i++)
                buf_put(&b, &(u8){(u8)(0x61 + rnd(26))}, 1);
        }
        shorts += b.len;
        i64 n = 0, nm = 0;
        REQUIRE(tok_count(t, w, buf_view(&b), &n, &e) == ERR_OK);
        REQUIRE(tok_count(t, wm, buf_view(&b), &nm, &e) == ERR_OK);
        differ += n != nm;
    }
    EXPECT(atomic_load(&t->lin_state) == 0);
    /* Long words count in full: the build comes once the two reach the
     * threshold, not before. */
    iz word = 1000;
    int rounds = (int)(BPE_LIN_BUILD_AFTER / word) + 2;
    bool built_early = false;
    for (int r = 0; r < rounds; r++) {
        /* a fresh word each round (the cache would answer a repeat) */
        b.len = 0;
        for (iz i = 0; i < word; i++)
            buf_put(&b, &(u8){(u8)(0x61 + rnd(26))}, 1);
        if (atomic_load(&t->lin_state) != 0 &&
            (long long)r * word * BPE_LIN_SHORT_WEIGHT + shorts < (long long)BPE_LIN_BUILD_AFTER * BPE_LIN_SHORT_WEIGHT)
            built_early = true;
        i64 n = 0, nm = 0;
        REQUIRE(tok_count(t, w, buf_view(&b), &n, &e) == ERR_OK);
        REQUIRE(tok_count(t, wm, buf_view(&b), &nm, &e) == ERR_OK);
        differ += n != nm;
    }
    EXPECT(!built_early);
    EXPECT(atomic_load(&t->lin_state) == 1);
    EXPECT(differ == 0);
    buf_free(&b);
    tok_work_free(w);
    tok_work_free(wm);
    tok_free(t);
}

/* bpe_word cuts a word of a Metaspace-style tokenizer at runs of U+2581
 * (tok_model.h, seg_on) and encodes the parts: the ids must be the merge
 * loop's on the whole word, for every tokenizer that has the cuts (gemma3
 * and llama2 at least), on the words of test_against_merge_loop and the
 * golden strings. */
static void test_seg(void)
{
    int on = 0;
    for (size_t k = 0; k < sizeof(tokenizers) / sizeof(tokenizers[0]); k++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", assets(), tokenizers[k]);
        err e = {0};
        tok *t = tok_load(path, &e);
        if (!t) {
            printf("#   %s: %s\n", tokenizers[k], e.msg);
            test_cur_failed = 1;
            continue;
        }
        if (!t->seg_on) {
            tok_free(t);
            continue;
        }
        on++;
        printf("#   %s: cuts at runs of U+2581, %d characters before a run keep it joined\n", tokenizers[k],
               t->nseg_bad);
        diff d = {t, tok_work_new(t), tok_work_new(t), 0, 0, 0, 0, 0, true};
        REQUIRE(d.wl && d.wm);
        d.wl->bpe_no_linear = d.wm->bpe_no_linear = true;
        d.wm->bpe_no_seg = true;
        arena a;
        arena_init(&a, 0);
        str *keys;
        iz nkeys = vocab_keys(t, &a, &keys);
        rng = 0x2545f4914f6cdd1du ^ (u64)k;
        gen_words(&d, keys, nkeys, 60);
        gen_file(&d);
        printf("#   %s: %td words (%.1f MB) compared, %td differ\n", tokenizers[k], d.words,
               (double)d.bytes / 1e6, d.failed);
        arena_fini(&a);
        tok_work_free(d.wl);
        tok_work_free(d.wm);
        tok_free(t);
    }
    EXPECT(on >= 2);
}

/* A merge whose token is no matcher token (here an id given to two
 * strings, "ab" and "zq") adds its bytes to the trie as a path: without it
 * the pair test of "a" "b" would skip the merge (a, b) and keep the two
 * tokens, where the merge loop makes one. A byte-level tokenizer of the
 * 256 bytes and that one merge. */
static void test_merge_to_left_out(void)
{
    buf j = {0};
    buf_cstr(&j, "{\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,"
                 "\"use_regex\":false},\"model\":{\"type\":\"BPE\",\"vocab\":{");
    /* the byte-level alphabet: printable bytes stand for themselves, the
     * others for U+0100 on, in byte order */
    u32 next = 256;
    for (u32 c = 0; c < 256; c++) {
        bool self = (c >= 33 && c <= 126) || (c >= 161 && c <= 172) || c >= 174;
        u32 cp = self ? c : next++;
        buf_cstr(&j, c ? ",\"" : "\"");
        if (cp == '"' || cp == '\\')
            buf_put(&j, "\\", 1);
        put_cp(&j, cp);
        char num[16];
        snprintf(num, sizeof(num), "\":%u", c);
        buf_cstr(&j, num);
    }
    buf_cstr(&j, ",\"ab\":256,\"zq\":256},\"merges\":[\"a b\"]}}");
    err e = {0};
    tok *t = tok_load_json(buf_view(&j), "two-strings", &e);
    buf_free(&j);
    if (!t) {
        printf("#   %s\n", e.msg);
        test_cur_failed = 1;
        return;
    }
    REQUIRE(bpe_lin_get(t));
    diff d = {t, tok_work_new(t), tok_work_new(t), 0, 0, 0, 0, 0, false};
    REQUIRE(d.wl && d.wm);
    d.wm->bpe_no_linear = true;
    static const char *const words[] = {"ab", "aab", "abb", "abab", "xaby", "ba", "zq", "azqb"};
    for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
        compare(&d, str_cstr(words[k]), words[k]);
    EXPECT_EQ(d.words, 8);
    EXPECT_EQ(d.failed, 0);
    tok_work_free(d.wl);
    tok_work_free(d.wm);
    tok_free(t);
}

int main(void)
{
    RUN(test_merge_to_left_out);
    RUN(test_build_threshold);
    RUN(test_against_merge_loop);
    RUN(test_seg);
    return test_done();
}
