/* test_tok.c - tokenizer components, data-driven: each case of
 * tests/data/tok/synthetic/cases.jsonl is a small tokenizer.json aimed at
 * one component (merge order, pair-format merges, byte fallback, unknown
 * tokens, ignore_merges, subword prefix/suffix, added-token rules,
 * normalizers, pre-tokenizers) with the ids the Rust library gave
 * (make_expected.js). Cases named err-* must fail to load, naming the JSON
 * path. Also: load errors with byte offsets, count == length of encode,
 * decode round trips, invalid UTF-8 per item, the added-token splitter's
 * whole-pattern lookup against its trie walk. */
#include "test.h"
#include "../src/base/arena.h"
#include "../src/base/hash.h"
#include "../src/base/os.h"
#include "../src/base/utf8.h"
#include "../src/json/json.h"
#include "../src/tok/tok.h"
#include "../src/tok/tok_model.h"

static str case_file;

static void run_case(const json *c)
{
    const json *name = json_get_type(c, S("name"), JSON_STR);
    const json *tj = json_get(c, S("tokenizer"));
    const json *texts = json_get_type(c, S("texts"), JSON_ARR);
    const json *ids = json_get_type(c, S("ids"), JSON_ARR);
    if (!name || !tj || !texts || !ids) {
        printf("#   malformed case\n");
        test_cur_failed = 1;
        return;
    }
    buf src = {0};
    json_write(&src, tj);
    err e = {0};
    tok *t = tok_load_json(buf_view(&src), "case", &e);
    bool want_err = name->u.s.len > 4 && memcmp(name->u.s.s, "err-", 4) == 0;
    if (want_err) {
        if (t) {
            printf("#   %.*s: loaded, expected a load error\n", (int)name->u.s.len, (const char *)name->u.s.s);
            test_cur_failed = 1;
        } else if (!strstr(e.msg, "at byte")) {
            printf("#   %.*s: error without a byte offset: %s\n", (int)name->u.s.len, (const char *)name->u.s.s, e.msg);
            test_cur_failed = 1;
        }
        tok_free(t);
        buf_free(&src);
        return;
    }
    if (!t) {
        printf("#   %.*s: load failed: %s\n", (int)name->u.s.len, (const char *)name->u.s.s, e.msg);
        test_cur_failed = 1;
        buf_free(&src);
        return;
    }
    tok_work *w = tok_work_new(t);
    for (iz k = 0; k < texts->u.arr.n; k++) {
        str text = texts->u.arr.items[k].u.s;
        const json *exp = &ids->u.arr.items[k];
        const u32 *got;
        iz n;
        int rc = tok_encode(t, w, text, &got, &n, &e);
        bool same = !rc && exp->type == JSON_ARR && exp->u.arr.n == n;
        for (iz j = 0; same && j < n; j++)
            same = (u32)exp->u.arr.items[j].u.i == got[j];
        if (!same) {
            buf b = {0};
            json_write(&b, exp);
            printf("#   %.*s \"%.*s\": expected %.*s, got", (int)name->u.s.len, (const char *)name->u.s.s,
                   (int)text.len, (const char *)text.s, (int)b.len, (const char *)b.data);
            if (rc)
                printf(" error %s", e.msg);
            for (iz j = 0; !rc && j < n; j++)
                printf(" %u", got[j]);
            printf("\n");
            buf_free(&b);
            test_cur_failed = 1;
            continue;
        }
        i64 cnt = -1;
        EXPECT(tok_count(t, w, text, &cnt, &e) == 0 && cnt == n);
    }
    tok_work_free(w);
    tok_free(t);
    buf_free(&src);
}

static void test_synthetic(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str all = os_read_file(&a, (const char *)case_file.s, &e);
    REQUIRE(all.s);
    iz b = 0, ncases = 0;
    for (iz i = 0; i <= all.len; i++) {
        if (i < all.len && all.s[i] != '\n')
            continue;
        if (i > b) {
            json *c = json_parse(&a, str_cut(all, b, i), NULL, &e);
            REQUIRE(c);
            int before = test_cur_failed;
            test_cur_failed = 0;
            run_case(c);
            const json *name = json_get(c, S("name"));
            printf("#   case %.*s: %s\n", (int)name->u.s.len, (const char *)name->u.s.s, test_cur_failed ? "FAILED" : "ok");
            test_cur_failed |= before;
            ncases++;
        }
        b = i + 1;
    }
    EXPECT(ncases >= 20);
    arena_fini(&a);
}

static tok *load(const char *json_text, err *e)
{
    return tok_load_json(str_cstr(json_text), "t", e);
}

#define MINI_VOCAB "\"vocab\":{\"a\":0,\"b\":1,\"ab\":2}"

static void test_load_errors(void)
{
    static const struct {
        const char *doc;
        const char *needle;   /* must appear in the message */
    } cases[] = {
        {"{\"model\":{\"type\":\"WordPiece\"," MINI_VOCAB "}}", "model.type"},
        {"{\"model\":{\"type\":\"WordLevel\"," MINI_VOCAB "}}", "WordLevel"},
        {"{\"model\":{\"type\":\"BPE\",\"dropout\":0.5," MINI_VOCAB ",\"merges\":[]}}", "model.dropout: BPE dropout 0.5 is not"},
        {"{\"model\":{\"type\":\"BPE\"," MINI_VOCAB ",\"merges\":[\"a c\"]}}", "model.merges[0]"},
        {"{\"model\":{\"type\":\"BPE\"," MINI_VOCAB ",\"merges\":[\"a  b\"]}}", "model.merges[0]"},
        {"{\"model\":{\"type\":\"BPE\"," MINI_VOCAB "}}", "model.merges"},
        {"{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":-1},\"merges\":[]}}", "model.vocab[0]"},
        {"{\"truncation\":{\"max_length\":3},\"model\":{\"type\":\"BPE\"," MINI_VOCAB ",\"merges\":[]}}", "truncation"},
        {"{\"normalizer\":{\"type\":\"Precompiled\"},\"model\":{\"type\":\"BPE\"," MINI_VOCAB ",\"merges\":[]}}", "normalizer"},
        {"{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"UnicodeScripts\"}]},\"model\":{\"type\":\"BPE\"," MINI_VOCAB ",\"merges\":[]}}", "pre_tokenizer.pretokenizers[0]"},
        {"{\"decoder\":{\"type\":\"Nope\"},\"model\":{\"type\":\"BPE\"," MINI_VOCAB ",\"merges\":[]}}", "decoder"},
        {"{\"added_tokens\":[{\"id\":3}],\"model\":{\"type\":\"BPE\"," MINI_VOCAB ",\"merges\":[]}}", "added_tokens[0]"},
        {"{\"model\":{\"type\":\"BPE\"," MINI_VOCAB ",\"merges\":[\"a b\"", "end of input"},
        {"[1,2]", "object"},
        {"", "expected a JSON value"},
        {"{\"model\":{\"type\":\"BPE\",\"dropout\":\"0.5\"," MINI_VOCAB ",\"merges\":[]}}", "model.dropout: expected a number or null, found string"},
    };
    for (iz k = 0; k < countof(cases); k++) {
        err e = {0};
        tok *t = load(cases[k].doc, &e);
        if (t || !strstr(e.msg, cases[k].needle) || (!strstr(e.msg, "byte") && k != 7)) {
            printf("#   case %td: %s; message: %s\n", k, t ? "loaded" : "failed", e.msg);
            test_cur_failed = 1;
        }
        tok_free(t);
    }
    /* a missing file names the path */
    err e = {0};
    EXPECT(!tok_load("tests/data/no-such-folder", &e));
    EXPECT(strstr(e.msg, "no-such-folder") != NULL);
}

static void test_truncated_tokenizer_json(void)
{
    const char *doc = "{\"added_tokens\":[{\"id\":3,\"content\":\"<s>\",\"special\":true}],"
                      "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1,\"ab\":2},\"merges\":[[\"a\",\"b\"]]}}";
    iz n = (iz)strlen(doc);
    for (iz len = 0; len < n; len++) {
        char *copy = malloc((size_t)(len ? len : 1));
        memcpy(copy, doc, (size_t)len);
        err e = {0};
        tok *t = tok_load_json(str_from(copy, len), "t", &e);
        EXPECT(!t && e.code != ERR_OK);
        tok_free(t);
        free(copy);
    }
    err e = {0};
    tok *t = tok_load_json(str_cstr(doc), "t", &e);
    REQUIRE(t);
    tok_work *w = tok_work_new(t);
    const u32 *ids;
    iz cnt;
    EXPECT(tok_encode(t, w, S("ab<s>a"), &ids, &cnt, &e) == 0);
    EXPECT_EQ(cnt, 3);
    EXPECT(cnt == 3 && ids[0] == 2 && ids[1] == 3 && ids[2] == 0);
    /* invalid UTF-8 is an error naming the offset; the next call is fine */
    EXPECT(tok_encode(t, w, S("ab\xff"), &ids, &cnt, &e) == ERR_UTF8);
    EXPECT_EQ(e.off, 2);
    EXPECT(tok_encode(t, w, S("ab"), &ids, &cnt, &e) == 0 && cnt == 1);
    tok_work_free(w);
    tok_free(t);
}

/* A tokenizer of the assets ($TALLY_ASSETS, else assets/), or NULL and the
 * test failed. */
static tok *load_asset(const char *name)
{
    const char *dir = getenv("TALLY_ASSETS");
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "assets", name);
    err e = {0};
    tok *t = tok_load(path, &e);
    if (!t) {
        printf("#   %s\n", e.msg);
        test_cur_failed = 1;
    }
    return t;
}

/* Real tokenizers (from the assets): decode(encode(x)) == x where the
 * tokenizer is lossless, and count == length of encode. */
static void test_real_roundtrip(void)
{
    static const char *const names[] = {"llama3_1", "gpt4o", "qwen3"};
    static const char *const texts[] = {
        "Hello world", "  leading and trailing  ", "tabs\tand\r\nCRLF", "emoji 😀👩‍👩‍👧 flags 🇫🇷",
        "中文 日本語 한국어", "<|im_start|>user\nhi<|im_end|>", "x\xc2\x85y\xef\xbb\xbfz", "",
    };
    for (iz k = 0; k < countof(names); k++) {
        err e = {0};
        tok *t = load_asset(names[k]);
        if (!t)
            continue;
        tok_work *w = tok_work_new(t);
        for (iz j = 0; j < countof(texts); j++) {
            str x = str_cstr(texts[j]);
            const u32 *ids;
            iz n;
            REQUIRE(tok_encode(t, w, x, &ids, &n, &e) == 0);
            u32 *copy = malloc((size_t)(n + 1) * sizeof(u32));
            memcpy(copy, ids, (size_t)n * sizeof(u32));
            i64 cnt;
            EXPECT(tok_count(t, w, x, &cnt, &e) == 0 && cnt == n);
            buf b = {0};
            EXPECT(tok_decode(t, copy, n, &b, &e) == 0);
            if (tok_is_lossless(t))
                EXPECT_STR(buf_view(&b), x);
            buf_free(&b);
            free(copy);
        }
        EXPECT(tok_is_lossless(t) == (k < 2));   /* qwen3 has NFC */
        tok_work_free(w);
        tok_free(t);
    }
}

/* The tables of a word's first symbols: a character tokenizer's ids of
 * two- and three-byte characters (bmp_id) hold what the vocabulary does,
 * for every code point they cover, and its ranks of the merges of two
 * common characters (char_pair) what the merge table does, for every
 * pair; a byte-level one's ranks of the merges of two bytes (byte_pair,
 * the merge loop's first lookups) what the merge table does, for every
 * pair. */
static void test_symbol_tables(void)
{
    static const char *const names[] = {"gemma3", "llama2", "qwen3", "llama3_1"};
    for (iz k = 0; k < countof(names); k++) {
        tok *t = load_asset(names[k]);
        if (!t)
            continue;
        iz bad = 0, found = 0;
        if (t->byte_level) {
            EXPECT(t->bmp_id == NULL);
            REQUIRE(t->byte_pair != NULL);
            for (u32 p = 0; p < 65536; p++) {
                u32 rank;
                u32 want = merge_find(&t->merges, (u32)t->byte_id[p >> 8], (u32)t->byte_id[p & 255], &rank)
                               ? rank + 1
                               : 0;
                bad += t->byte_pair[p] != want;
                found += want != 0;
            }
        } else {
            EXPECT(t->byte_pair == NULL);
            REQUIRE(t->bmp_id != NULL);
            /* the merges of the common characters: every pair of them */
            REQUIRE(t->char_ix != NULL && t->char_pair != NULL);
            u32 ids[256] = {0};
            iz nix = 0;
            for (u32 id = 0; id < t->nids; id++)
                if (t->char_ix[id]) {
                    str key = tok_id_to_token(t, id);
                    bad += utf8_valid_seq(key.s, key.len) != (int)key.len || ids[t->char_ix[id]] != 0;
                    ids[t->char_ix[id]] = id;
                    nix++;
                }
            EXPECT_EQ(nix, 255);
            for (u32 p = 0; p < 65536; p++) {
                u32 x = p >> 8, y = p & 255, rank;
                u32 want = x && y && x <= nix && y <= nix && merge_find(&t->merges, ids[x], ids[y], &rank) ? rank + 1 : 0;
                bad += t->char_pair[p] != want;
                found += want != 0;
            }
            for (u32 c = 0x80; c < 0x10000; c++) {
                if (c >= 0xd800 && c <= 0xdfff)
                    continue;
                u8 u[4];
                int n = utf8_encode(c, u);
                i32 want = vocab_find(&t->vocab, u, n);
                bad += t->bmp_id[c] != want;
                found += want >= 0;
            }
        }
        EXPECT_EQ(bad, 0);
        EXPECT(found > 1000);   /* the test sees entries of the tables */
        tok_free(t);
    }
}

/* The merge table's two layouts (vocab.c): the packed one every real
 * tokenizer loads with holds, entry by entry, what the wide one built from
 * the same merges does, and answers no pair the wide one lacks; at the
 * edges of the packing (ids of 24 bits, 1 + rank of the bits left, and
 * one merge more, which takes the wide layout) every entry put is found. */
static void check_layouts_agree(const merge_map *m, u32 nids)
{
    arena a;
    arena_init(&a, 0);
    merge_map wide;
    merge_init(&a, &wide, m->nranks, nids, true);
    EXPECT(wide.packed == NULL && wide.slots != NULL);
    iz n = 0, bad = 0;
    for (iz i = 0; i <= m->mask; i++) {
        u32 x, y, rank;
        if (merge_at(m, i, &x, &y, &rank)) {
            merge_put(&wide, x, y, rank, m->rank_id[rank]);
            n++;
        }
    }
    for (iz i = 0; i <= wide.mask; i++) {
        u32 x, y, rank, r2 = 0, r3 = 0;
        if (merge_at(&wide, i, &x, &y, &rank)) {
            bad += !merge_find(m, x, y, &r2) || r2 != rank;
            /* the filter passes every merge, in both layouts */
            bad += !merge_maybe(m, x, y, &r3) || r3 != rank;
            bad += !merge_maybe(&wide, x, y, &r3) || r3 != rank;
        }
    }
    u64 st = 88172645463325252u;   /* xorshift: pairs mostly not merges */
    iz stopped = 0;
    for (int k = 0; k < 200000; k++) {
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        u32 x = (u32)(st % nids), y = (u32)((st >> 32) % nids), r1 = 0, r2 = 0, r3 = 0;
        bool f1 = merge_find(m, x, y, &r1), f2 = merge_find(&wide, x, y, &r2), f3 = merge_maybe(m, x, y, &r3);
        bad += f1 != f2 || r1 != r2 || f1 != f3 || r1 != r3;
        stopped += !tok_bloom_pass(&m->filter, merge_filter_hash(x, y));
    }
    EXPECT_EQ(bad, 0);
    EXPECT(n > 1000);
    /* and stops most pairs that are none (about 13 in 14 at its size) */
    EXPECT(stopped > 160000);
    arena_fini(&a);
}

/* The vocabulary's filter (vocab.c) passes every key and gives vocab_find's
 * answers; it stops most strings that are no key. */
static void check_vocab_filter(const vocab_map *m)
{
    iz bad = 0, n = 0, stopped = 0;
    for (iz i = 0; i <= m->mask; i++) {
        const vocab_slot *s = &m->slots[i];
        if (s->used) {
            bad += vocab_maybe(m, s->key, s->len) != (i32)s->id;
            n++;
        }
    }
    u64 st = 0x2545f4914f6cdd1du;
    u8 b[12];
    for (int k = 0; k < 200000; k++) {
        iz len = 1 + k % 12;
        for (iz j = 0; j < len; j++) {
            st ^= st << 13, st ^= st >> 7, st ^= st << 17;
            b[j] = (u8)('a' + st % 26);
        }
        i32 want = vocab_find(m, b, len);
        bad += vocab_maybe(m, b, len) != want;
        stopped += want < 0 && !tok_bloom_pass(&m->filter, hash_bytes(b, len));
    }
    EXPECT_EQ(bad, 0);
    EXPECT(n > 1000);
    EXPECT(stopped > 150000);
}

static void test_merge_layouts(void)
{
    static const char *const names[] = {"gemma3", "llama2", "qwen3", "llama3_1"};
    for (iz k = 0; k < countof(names); k++) {
        tok *t = load_asset(names[k]);
        if (!t)
            continue;
        EXPECT(t->merges.packed != NULL);
        check_layouts_agree(&t->merges, t->nids);
        check_vocab_filter(&t->vocab);
        tok_free(t);
    }
    /* ids up to 2^24 - 1 take 24 bits each, which leaves 16 for 1 + a rank */
    static const struct { iz n; bool packed; } edges[] = {{65535, true}, {65536, false}, {1, true}};
    for (iz k = 0; k < countof(edges); k++) {
        arena a;
        arena_init(&a, 0);
        merge_map m;
        u32 nids = 1u << 24;
        merge_init(&a, &m, edges[k].n, nids, false);
        EXPECT((m.packed != NULL) == edges[k].packed);
        for (iz r = 0; r < edges[k].n; r++)
            merge_put(&m, nids - 1 - (u32)r, (u32)(r * 7919) % nids, (u32)r, (u32)r);
        iz bad = 0;
        for (iz r = 0; r < edges[k].n; r++) {
            u32 rank = 0;
            bad += !merge_find(&m, nids - 1 - (u32)r, (u32)(r * 7919) % nids, &rank) || rank != (u32)r;
            bad += !merge_maybe(&m, nids - 1 - (u32)r, (u32)(r * 7919) % nids, &rank) || rank != (u32)r;
            bad += merge_find(&m, nids - 1 - (u32)r, (u32)(r * 7919 + 1) % nids, &rank);   /* never put */
        }
        EXPECT_EQ(bad, 0);
        arena_fini(&a);
    }
}

/* tok_count remembers long pieces between added tokens (tok.c's piece
 * cache); tok_encode does not. Every text built from the same pieces in
 * other orders, at the start or after an added token (a Metaspace "first"
 * prepend sees the difference), counted cold and warm, must give the
 * length of its encoding, for every tokenizer of the assets. */
static void test_piece_cache(void)
{
    static const char *const names[] = {"qwen3", "llama3_1", "llama3", "llama2", "deepseek_v3",
                                        "gemma3", "gpt4o", "gptoss", "claude"};
    static const char *const specials[] = {"<|im_start|>", "<|begin_of_text|>", "<|eot_id|>", "<s>", "</s>",
                                           "<start_of_turn>", "<|endoftext|>", "<|start|>", "<bos>",
                                           "<\uff5cbegin\u2581of\u2581sentence\uff5c>", "<EOT>", "<META>"};
    static const char *const pieces[] = {
        " Hello, world! This piece is long enough to be remembered by the cache, surely. ",
        "user\nfor (int i = 0; i < n; i++) {\n    total += x[i];   // sum\n}\n\tdone\n",
        "\u4e2d\u6587 \u65e5\u672c\u8a9e and \U0001F600 emoji, plus    many   spaces and 12345 digits here",
    };
    int tested = 0;
    for (iz k = 0; k < countof(names); k++) {
        err e = {0};
        tok *t = load_asset(names[k]);
        if (!t)
            continue;
        tested++;
        const char *sp[2] = {NULL, NULL};
        int nsp = 0;
        for (iz j = 0; j < countof(specials) && nsp < 2; j++) {
            u32 id;
            if (tok_token_to_id(t, str_cstr(specials[j]), &id))
                sp[nsp++] = specials[j];
        }
        if (nsp == 0) {
            printf("#   %s: no special token to split on\n", names[k]);
            test_cur_failed = 1;
        }
        tok_work *w = tok_work_new(t);
        iz bad = 0;
        /* sequences of (piece index | special index + 10), -1 ends */
        static const int seqs[][8] = {
            {0, -1}, {10, 0, -1}, {0, 10, 0, -1}, {10, 0, 11, 1, 10, 0, -1}, {1, 10, 2, 10, 0, -1},
            {2, -1}, {11, 2, 11, 2, -1}, {0, 1, 2, -1}, {10, 1, 10, 1, 10, 1, -1},
        };
        for (int pass = 0; pass < 2; pass++)
            for (iz q = 0; q < countof(seqs); q++) {
                buf b = {0};
                for (int i = 0; seqs[q][i] >= 0; i++) {
                    int v = seqs[q][i];
                    const char *part = v >= 10 ? sp[(v - 10) % (nsp ? nsp : 1)] : pieces[v];
                    if (part)
                        buf_cstr(&b, part);
                }
                str x = buf_view(&b);
                const u32 *ids;
                iz n = -1;
                i64 cnt = -2;
                REQUIRE(tok_encode(t, w, x, &ids, &n, &e) == 0);
                REQUIRE(tok_count(t, w, x, &cnt, &e) == 0);
                if (cnt != n) {
                    printf("#   %s: pass %d, text %td: count %lld, encode %td\n", names[k], pass, q,
                           (long long)cnt, n);
                    bad++;
                }
                buf_free(&b);
            }
        EXPECT_EQ(bad, 0);
        tok_work_free(w);
        tok_free(t);
    }
    EXPECT_EQ(tested, (int)countof(names));
}

/* tok_count remembers long texts with checkpoints (prefix.c) and counts a
 * text that begins as one of them from the last checkpoint inside the
 * common prefix. A base text of every kind of the generated golden strings
 * (whitespace runs, contractions, digits, emoji, CJK, controls, code), then
 * texts that are its first k bytes and a tail chosen to change how the
 * split near k falls (a space, a letter, a digit, an apostrophe, a
 * newline, a multi-byte character, the base's own next bytes), counted
 * warm, must each give the length of their encoding, for every tokenizer
 * of the assets; for those with a split the memory knows, the resumed
 * counts must really have started past the beginning. */
static bool is_space(u8 c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static void test_prefix_memory(void)
{
    static const char *const names[] = {"qwen3", "llama3_1", "llama3", "deepseek_v3", "gpt4o", "llama2",
                                        "gemma3", "gptoss", "claude"};
    static const char *const tails[] = {" ", "  ", "\n", "\n\n  x", "\t", "a", "Z'", "'re", "'ll", "7",
                                        "12345", "\xc3\xa9", "\xe4\xb8\xad\xe6\x96\x87", "\xf0\x9f\x98\x80",
                                        "\xc2\xa0", "\xe3\x80\x80", "", ".", "\"}", " x ", "\r\n"};
    static const char *const nl_tails[] = {"\n", "\n\n", "\n x", " \n", "\r\n", "\n", "x", "\t\n"};
    arena a;
    arena_init(&a, (iz)1 << 30);
    err e = {0};
    str src = os_read_file(&a, "tests/data/tok/inputs/gen.jsonl", &e);
    REQUIRE(src.s);
    /* the base: every 23rd string but those of added tokens, up to 40 KB */
    buf base = {0};
    iz line = 0;
    for (iz i = 0; i < src.len && base.len < 40000;) {
        iz j = i;
        while (j < src.len && src.s[j] != '\n')
            j++;
        if (line++ % 23 == 0) {
            json *v = json_parse(&a, str_cut(src, i, j), NULL, &e);
            const json *text = v ? json_get_type(v, S("text"), JSON_STR) : NULL;
            const json *id = v ? json_get_type(v, S("id"), JSON_STR) : NULL;
            /* not the added-token kinds: the base is one piece */
            bool special = id && id->u.s.len > 12 && !memcmp(id->u.s.s, "gen:special", 11);
            for (iz c = 0; text && !special && c + 1 < text->u.s.len; c++)
                special = text->u.s.s[c] == '<' && text->u.s.s[c + 1] == '|';
            if (text && !special && utf8_invalid_at(text->u.s) < 0) {
                buf_str(&base, text->u.s);
                buf_byte(&base, line % 3 ? ' ' : '\n');
            }
        }
        i = j + 1;
    }
    REQUIRE(base.len >= 40000);
    /* the second base: words between whitespace runs, many with a newline
     * and more whitespace after it (a checkpoint inside a run would be
     * wrong: where a run ends decides where its matches end) */
    static const char *const runs[] = {"\n                  ", "  \n\t\t\t\t\t\t\t\t\t ", "\r\n        \t      ",
                                       "            ", "\n\n\n", " ", "\t\t\t\t\t\t\t", " \n \n          ",
                                       "  ", "\n\t\t\t\t\t\t\t\t\t\t\t", "\n"};
    buf wsb = {0};
    for (int i = 0; wsb.len < 40000; i++) {
        char word[16];   /* letters: digits would put match starts in every word */
        int n = 0;
        if (i % 5 == 0)
            word[n++] = '\'';
        for (int v = i; n < 8 && (n == 0 || v > 0); v /= 26)
            word[n++] = (char)('a' + v % 26);
        word[n] = 0;
        buf_cstr(&wsb, word);
        buf_cstr(&wsb, runs[(i * 7) % countof(runs)]);
    }
    int tested = 0;
    for (iz k = 0; k < countof(names); k++) {
        tok *t = load_asset(names[k]);
        if (!t)
            continue;
        tested++;
        tok_work *w = tok_work_new(t);
        iz bad = 0, resumed = 0, tries = 0;
        for (int which = 0; which < 2; which++) {
            str b = which ? buf_view(&wsb) : buf_view(&base);
            i64 cnt;
            REQUIRE(tok_count(t, w, b, &cnt, &e) == 0);
            /* copies: counting the texts below changes the memory */
            const pfx_mark *m0;
            iz nm = tok_work_prefix_marks(w, b, &m0);
            iz *at = malloc((size_t)(nm + 1) * sizeof *at);
            for (iz j = 0; j < nm; j++)
                at[j] = m0[j].at;
            /* what the memory's exactness rests on: no checkpoint between
             * two whitespace characters */
            iz inside = 0;
            for (iz j = 0; j < nm; j++)
                inside += at[j] > 0 && is_space(b.s[at[j] - 1]) && is_space(b.s[at[j]]);
            EXPECT_EQ(inside, 0);
            if (k < 3 && which == 1)   /* (the first base is not NFC: qwen3 remembers its normal form) */
                EXPECT(nm >= 16);
            u64 seed = 0x9e3779b97f4a7c15u * (u64)(k + 1 + which * 16);
            /* random cuts, then one just past each checkpoint (4 bytes
             * past: the least the memory resumes from) */
            for (iz q = 0; q < 48 + 2 * nm; q++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                iz cut = q < 48 ? PFX_MIN + (iz)((seed >> 33) % (u64)(b.len - PFX_MIN))
                                : at[(q - 48) / 2] + 4 + (iz)(q % 3);
                if (cut > b.len)
                    cut = b.len;
                while (cut < b.len && (b.s[cut] & 0xc0) == 0x80)   /* a character boundary */
                    cut++;
                buf x = {0};
                buf_str(&x, str_cut(b, 0, cut));
                /* past a checkpoint, endings that move a whitespace run's
                 * last newline */
                const char *tail = q < 48 ? tails[(q * 5 + which) % countof(tails)] : nl_tails[q % countof(nl_tails)];
                if (q % 7 == 6)   /* the base's own next bytes, then a new ending */
                    buf_str(&x, str_cut(b, cut, cut + 16 < b.len ? cut + 16 : b.len));
                buf_cstr(&x, tail);
                str xs = buf_view(&x);
                if (utf8_invalid_at(xs) >= 0) {
                    buf_free(&x);
                    continue;
                }
                tries++;
                /* the base counted last: each text below takes its place */
                REQUIRE(tok_count(t, w, b, &cnt, &e) == 0);
                const u32 *ids;
                iz n = -1;
                REQUIRE(tok_encode(t, w, xs, &ids, &n, &e) == 0);
                i64 before = tok_work_prefix_resumed(w);
                REQUIRE(tok_count(t, w, xs, &cnt, &e) == 0);
                if (tok_work_prefix_resumed(w) > before)
                    resumed++;
                if (cnt != n) {
                    printf("#   %s: base %d, cut %td + \"%s\": count %lld, encode %td\n", names[k], which, cut,
                           tail, (long long)cnt, n);
                    bad++;
                }
                buf_free(&x);
            }
            free(at);
        }
        EXPECT_EQ(bad, 0);
        /* qwen3, llama3_1 and llama3 have the splits the memory knows */
        if (k < 3)
            EXPECT(resumed >= tries * 3 / 4);
        else
            EXPECT_EQ(resumed, 0);
        tok_work_free(w);
        tok_free(t);
    }
    EXPECT_EQ(tested, (int)countof(names));
    buf_free(&base);
    buf_free(&wsb);
    arena_fini(&a);
}

/* What added_split emitted: "offset:length:id;" per piece. */
static int collect(void *ctx, str piece, iz off, i32 id)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%td:%td:%d;", off, piece.len, (int)id);
    buf_cstr(ctx, tmp);
    return 0;
}

/* added_split's pieces of `text` by trie `tr` and by `ref` (the same
 * patterns, another way of finding them) must be the same: a difference is
 * printed (the first three) and counted in *bad. */
static void split_same(const tok *t, const added_trie *tr, const added_trie *ref, str text, const char *name,
                       iz *bad)
{
    buf a = {0}, b = {0};
    added_split(t, tr, text, collect, &a);
    added_split(t, ref, text, collect, &b);
    if (!str_eq(buf_view(&a), buf_view(&b)) && (*bad)++ < 3)
        printf("#   %s: \"%.*s\": %.*s vs %.*s\n", name, (int)text.len, (const char *)text.s, (int)a.len,
               (char *)a.data, (int)b.len, (char *)b.data);
    buf_free(&a);
    buf_free(&b);
}

/* Tokenizers whose added tokens all look like <...> (one opening byte, one
 * closing byte found nowhere else in them) find a match by its closing
 * byte and a whole-pattern lookup (tok_model.h, added_trie.closer); the
 * pieces must be the trie walk's on texts of every token, near misses,
 * unclosed and nested brackets. */
static void test_added_closer(void)
{
    static const char *const names[] = {"qwen3", "llama3_1", "llama3", "deepseek_v3", "gemma3", "gpt4o",
                                        "gptoss", "llama2", "claude"};
    static const char *const bits[] = {
        "<", ">", "<|", "|>", "<<", ">>", "<|im_start|", "<|im_start|>", "<|im_end|>", "<think>",
        "</think>", "<tool_call>", "x", " ", "\n", "<|eot_id|>", "<|begin_of_text|>", "<start_of_turn>",
        "<|reserved_special_token_3|>", "<\uff5cbegin\u2581of\u2581sentence\uff5c>", "<s>", "</s>",
        "<|endoftext|>", "<bos>", "<eos>", "<pad>", "<|start|>", "<|end|>", "<|message|>", "\u00e9",
    };
    int closed = 0;
    for (iz k = 0; k < countof(names); k++) {
        tok *t = load_asset(names[k]);
        if (!t)
            continue;
        const added_trie *tries[2] = {&t->raw_trie, &t->norm_trie};
        for (int which = 0; which < 2; which++) {
            const added_trie *tr = tries[which];
            if (tr->closer < 0)
                continue;
            closed++;
            added_trie walk = *tr;
            walk.closer = -1;
            u64 x = 0x9e3779b97f4a7c15ull;
            iz bad = 0;
            for (int n = 0; n < 3000; n++) {
                buf text = {0};
                int parts = 1 + n % 9;
                for (int i = 0; i < parts; i++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    buf_cstr(&text, bits[x % countof(bits)]);
                }
                /* the same tokens as the model has them, too */
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                if (t->nadded)
                    buf_str(&text, t->added[x % (u64)t->nadded].pattern);
                split_same(t, tr, &walk, buf_view(&text), names[k], &bad);
                buf_free(&text);
            }
            EXPECT(bad == 0);
        }
        if (k == 0)
            EXPECT(t->raw_trie.closer == '>');   /* qwen3's are all <...> */
        tok_free(t);
    }
    EXPECT(closed >= 2);
}

/* Tokenizers whose added tokens start with a few different bytes (gemma3:
 * '<', '[', tab, newline, U+2581's lead byte) skip to the next of them
 * sixteen bytes at a time (added.c, next_first); the pieces must be the
 * byte-at-a-time scan's on texts with those bytes at every distance, near
 * the end and in multi-byte characters. */
static void test_added_few(void)
{
    static const char *const names[] = {"qwen3", "llama3_1", "llama3", "deepseek_v3", "gemma3", "gpt4o",
                                        "gptoss", "llama2", "claude"};
    static const char *const bits[] = {
        "<", ">", "[", "\n", "\t", "\n\n", "\t\t\t", "\u2581", "\u2581\u2581", "<start_of_turn>",
        "<end_of_turn>", "[multimodal]", "<bos>", "\u2580", "\u00e9", "x", " ",
    };
    int few = 0;
    for (iz k = 0; k < countof(names); k++) {
        tok *t = load_asset(names[k]);
        if (!t)
            continue;
        const added_trie *tries[2] = {&t->raw_trie, &t->norm_trie};
        for (int which = 0; which < 2; which++) {
            const added_trie *tr = tries[which];
            if (tr->nfew == 0)
                continue;
            few++;
            added_trie slow = *tr;
            slow.nfew = 0;
            u64 x = 0x2545f4914f6cdd1dull;
            iz bad = 0;
            for (int n = 0; n < 3000; n++) {
                buf text = {0};
                int parts = 1 + n % 7;
                for (int i = 0; i < parts; i++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    for (int f = (int)(x >> 40) % 40; f > 0; f--)   /* filler: 0 to 39 bytes */
                        buf_cstr(&text, f % 5 ? "a" : "Z");
                    buf_cstr(&text, bits[x % countof(bits)]);
                }
                if (n % 3 == 0) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    for (int f = (int)(x % 33); f > 0; f--)
                        buf_cstr(&text, "b");
                }
                split_same(t, tr, &slow, buf_view(&text), names[k], &bad);
                buf_free(&text);
            }
            EXPECT(bad == 0);
        }
        if (k == 4)
            EXPECT(t->raw_trie.nfew == 5);   /* gemma3's, the list above */
        tok_free(t);
    }
    EXPECT(few >= 1);
}

int main(int argc, char **argv)
{
    case_file = S("tests/data/tok/synthetic/cases.jsonl");
    if (argc > 1)
        case_file = str_cstr(argv[1]);
    RUN(test_synthetic);
    RUN(test_load_errors);
    RUN(test_truncated_tokenizer_json);
    RUN(test_real_roundtrip);
    RUN(test_symbol_tables);
    RUN(test_merge_layouts);
    RUN(test_piece_cache);
    RUN(test_prefix_memory);
    RUN(test_added_closer);
    RUN(test_added_few);
    return test_done();
}
