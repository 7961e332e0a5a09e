/* tok_model.h - the loaded tokenizer (struct tok) and the parts of src/tok/
 * that operate on it: vocabulary and merge tables (vocab.c), added-token
 * matching (added.c), BPE (bpe.c), loading (load.c), decoding (decode.c).
 * Everything here is built once at load time in t->perm and read-only after. */
#ifndef TALLY_TOK_MODEL_H
#define TALLY_TOK_MODEL_H

#include <pthread.h>
#include <stdatomic.h>
#include "tok_internal.h"

/* String -> id, open addressing. A slot holds the hash, the id and where
 * the key is, so a lookup touches one cache line plus the key bytes. */
typedef struct {
    u32 hash;     /* high half of the 64-bit hash */
    u32 id;
    u32 len;
    u32 used;     /* 0 = empty */
    const u8 *key;
} vocab_slot;

/* A blocked Bloom filter of a table's keys, for lookups that mostly miss:
 * two bits of one 64-bit word a key, about 7 bits a key (qwen3's merges:
 * 128 KiB beside 4 MiB of slots), so an absent key is told at one load
 * that mostly hits; about one absent key in 14 passes. It never stops a
 * key that is there. Keyed by a 64-bit hash whose high half is well mixed:
 * the word from its top bits (at most 20), the two bits from bits 32-43. */
typedef struct {
    u64 *w;
    u32  bits;     /* log2 of its words */
} tok_bloom;

/* vocab.c: room for n keys. */
void tok_bloom_init(arena *perm, tok_bloom *b, iz n);
static inline u64 tok_bloom_mask(u64 h) { return (u64)1 << (h >> 32 & 63) | (u64)1 << (h >> 38 & 63); }
static inline void tok_bloom_add(tok_bloom *b, u64 h) { b->w[h >> (64 - b->bits)] |= tok_bloom_mask(h); }
static inline bool tok_bloom_pass(const tok_bloom *b, u64 h)
{
    u64 m = tok_bloom_mask(h);
    return (b->w[h >> (64 - b->bits)] & m) == m;
}

typedef struct {
    vocab_slot *slots;
    iz          n, mask;
    tok_bloom   filter;    /* of the keys' hash_bytes, for vocab_maybe */
} vocab_map;

/* (left id, right id) -> rank, open addressing; the merged id is
 * rank_id[rank]. Packed when the two ids and the rank fit in 64 bits (ids
 * below 2^ib, 1 + rank below 2^rb, ib + ib + rb <= 64: every tokenizer we
 * know), one 8-byte slot an entry: (a << ib | b) << rb | (rank + 1), 0 =
 * empty; gemma3's 515k merges take 8 MB instead of 16. Otherwise (ids near
 * 2^24 with many merges) wide: one 16-byte slot an entry. */
typedef struct {
    u64 key;      /* (a << 32 | b) + 1, 0 = empty */
    u32 rank;
    u32 id;
} merge_slot;

typedef struct {
    u64        *packed;    /* the packed slots, or NULL */
    merge_slot *slots;     /* the wide slots, or NULL */
    u32        *rank_id;   /* rank -> merged id */
    iz          mask, nranks;
    u32         ib, rb;    /* packed: bits of an id, of 1 + a rank */
    tok_bloom   filter;    /* of the pairs' merge_filter_hash, for merge_maybe */
} merge_map;

/* Added tokens: a byte trie for leftmost-longest matching. */
typedef struct {
    u32  id;
    bool single_word, lstrip, rstrip, normalized, special;
    str  content;         /* as in tokenizer.json */
    str  pattern;         /* what is matched (normalized content if normalized) */
} added_token;

typedef struct {
    /* node 0 is the root; edges in a hash keyed by node*256+byte */
    u64 *ekeys;           /* key+1, 0 = empty */
    u32 *evals;           /* child node */
    iz   emask;
    i32 *term;            /* per node: index into tokens of the pattern ending here, or -1 */
    iz   nnodes;
    bool first[256];      /* bytes that start some pattern */
    int  only_first;      /* the one byte every pattern starts with (memchr), or -1 */
    /* otherwise, when they start with at most eight bytes (gemma3: '<',
     * '[', tab, newline and the lead byte of U+2581), those bytes, for a
     * scan of sixteen bytes at a time; nfew = 0 when there are more */
    u8   few[8];
    int  nfew;
    /* When every pattern starts with only_first, ends with `closer` (another
     * byte) and holds no other `closer` (Qwen's <|im_start|>, <think>, ...),
     * the one pattern that can start at i ends at the first `closer` after
     * i: looked up whole in `whole` (token index + 1 by hash_bytes, open
     * addressing), no walk of the trie. */
    int  closer;          /* that byte, or -1 */
    iz   max_len;         /* the longest pattern */
    i32 *whole;
    iz   wmask;
    bool empty;
} added_trie;

typedef enum { DEC_NONE, DEC_BYTELEVEL, DEC_REPLACE, DEC_BYTEFALLBACK, DEC_FUSE,
               DEC_STRIP, DEC_METASPACE, DEC_WORDPIECE, DEC_BPE, DEC_CTC, DEC_SEQUENCE } dec_type;

typedef struct tok_decoder tok_decoder;
typedef struct bpe_lin bpe_lin;
typedef struct pfx_store pfx_store;
struct tok_decoder {
    dec_type     type;
    str          pattern, content;        /* Replace (string pattern only) */
    i32          strip_start, strip_stop; /* Strip */
    u32          replacement;             /* Metaspace */
    bool         prepend;                 /* Metaspace: prepend_scheme != never */
    str          prefix;                  /* WordPiece */
    bool         cleanup;
    str          suffix;                  /* BPEDecoder */
    tok_decoder *steps;                   /* Sequence */
    iz           nsteps;
};

struct tok {
    arena        perm;
    /* model (BPE) */
    vocab_map    vocab;          /* model vocab; keys in raw bytes when byte_level */
    merge_map    merges;
    str         *id_str;         /* id -> token string as in tokenizer.json (model + added) */
    u32          nids;           /* 1 + largest id */
    iz           model_size;     /* entries of the model vocab (Rust get_vocab_size) */
    bool         byte_level;     /* pre-tokenizer has ByteLevel: work on raw bytes */
    i32          byte_id[256];   /* byte_level: id of the one-byte symbol, -1 = none */
    i32          ascii_id[128];  /* char mode: id of the one-char ASCII symbol, -1 = none */
    i32         *bmp_id;         /* char mode: the same for U+0080-U+FFFF by code point (NULL: byte_level) */
    /* byte_level, every byte a symbol, no prefix or suffix (each byte of a
     * word is then one initial symbol): 1 + the rank of the merge of the
     * symbols of bytes b0 b1 at b0 << 8 | b1, 0 = none; else NULL */
    u32         *byte_pair;
    /* character mode, no prefix or suffix: the same for the 255 one-character
     * tokens whose first merges rank lowest (the common characters of the
     * language, U+2581 among them): char_ix[id] is 1..255 for those, else 0,
     * and char_pair[char_ix[a] << 8 | char_ix[b]] 1 + the rank of the merge
     * of a and b, 0 = none (NULL when not built) */
    u8          *char_ix;
    u32         *char_pair;
    /* character mode, pieces cut at the runs of U+2581 (Metaspace-style
     * tokenizers whose pre-tokenizer leaves a whole segment one piece:
     * gemma3, llama2): a cut before a run of U+2581 whose character before
     * is a one-character token of the BMP (a symbol of its own) and none of seg_bad,
     * the last characters of the left tokens of the merges whose right
     * token starts with U+2581 (gemma3: '>', of "> </"). No merge joins the
     * two sides of such a cut, so the BPE of the piece is the BPE of its
     * parts, in order (bpe_linear.c's argument (2)), and the parts are short
     * words the caches know (bpe.c, seg_word). Off with ignore_merges. */
    bool         seg_on;
    int          nseg_bad;
    u32          seg_bad[8];
    bool         byte_fallback, fuse_unk, ignore_merges;
    bool         has_unk;
    str          unk;            /* unk_token, when set */
    i32          unk_id;         /* -1 when unk is not in the vocab */
    i32          fallback_id[256]; /* byte_fallback: id of <0xNN>, -1 = none */
    bool         fallback_all;   /* all 256 <0xNN> exist */
    bool         has_prefix, has_suffix;
    str          prefix, suffix; /* continuing_subword_prefix / end_of_word_suffix (raw domain) */
    /* added tokens */
    added_token *added;
    iz           nadded;
    added_trie   raw_trie, norm_trie;
    /* pipeline */
    tok_norm    *norm;           /* NULL when none or a no-op */
    bool         norm_keeps_ascii;  /* norm leaves all-ASCII text as it is */
    tok_pretok  *pretok;         /* NULL when none */
    tok_decoder *decoder;        /* NULL when none */
    bool         lossless;
    /* the linear encoder (bpe_linear.c), built after BPE_LIN_BUILD_AFTER bytes of long words */
    pthread_mutex_t lin_mu;
    _Atomic int  lin_state;      /* 0 not built, 1 ready (lin), 2 not applicable */
    _Atomic long long lin_seen;  /* words given the merge loop before the build, weighed (bpe_lin_ready) */
    bpe_lin     *lin;
    bool         lin_mu_ok;      /* lin_mu was initialized */
};

/* vocab.c */
void vocab_init(arena *perm, vocab_map *m, iz n);
/* Inserts or replaces (last wins, as a Rust HashMap built from JSON). */
void vocab_put(vocab_map *m, str key, u32 id);
i32  vocab_find(const vocab_map *m, const u8 *p, iz n);
/* vocab_find, the filter first (for lookups that mostly miss: the
 * ignore_merges lookup of every word not cached). */
i32  vocab_maybe(const vocab_map *m, const u8 *p, iz n);
/* A table for n merges of ids below nids: packed when they fit, wide
 * when not or when `wide` (for tests of that layout). */
void merge_init(arena *perm, merge_map *m, iz n, u32 nids, bool wide);
void merge_put(merge_map *m, u32 a, u32 b, u32 rank, u32 id);
static inline u64 merge_hash(u64 key) { return (key + 1) * 0x9e3779b97f4a7c15u >> 40; }
/* The rank of the merge of a and b, when there is one. */
static inline bool merge_find(const merge_map *m, u32 a, u32 b, u32 *rank)
{
    if (m->packed) {
        u64 key = (u64)a << m->ib | b;
        for (iz i = (iz)merge_hash(key) & m->mask;; i = (i + 1) & m->mask) {
            u64 s = m->packed[i];
            if (!s)
                return false;
            if (s >> m->rb == key) {
                *rank = (u32)(s & (((u64)1 << m->rb) - 1)) - 1;
                return true;
            }
        }
    }
    u64 key = ((u64)a << 32 | b) + 1;
    for (iz i = (iz)merge_hash(key - 1) & m->mask;; i = (i + 1) & m->mask) {
        const merge_slot *s = &m->slots[i];
        if (s->key == key) {
            *rank = s->rank;
            return true;
        }
        if (!s->key)
            return false;
    }
}
/* The filter's hash of pair (a, b). */
static inline u64 merge_filter_hash(u32 a, u32 b) { return ((u64)a << 32 | b) * 0xd6e8feb86659fd93u; }
/* merge_find for pairs that are mostly no merge (the merge loop's): the
 * filter first. */
static inline bool merge_maybe(const merge_map *m, u32 a, u32 b, u32 *rank)
{
    return tok_bloom_pass(&m->filter, merge_filter_hash(a, b)) && merge_find(m, a, b, rank);
}
/* The entry of slot i (0 <= i <= mask), when it holds one. */
bool merge_at(const merge_map *m, iz i, u32 *a, u32 *b, u32 *rank);

/* added.c */
void added_build(arena *perm, added_trie *tr, const added_token *toks, iz n, bool normalized);
/* Calls `emit` for each split of s: a gap (id < 0) or an added token (id).
 * Empty gaps are not reported. Returns what emit returns if non-zero. */
typedef int (*added_emit)(void *ctx, str piece, iz off, i32 id);
int  added_split(const tok *t, const added_trie *tr, str s, added_emit emit, void *ctx);

/* bpe.c: ids of one pre-token (the piece is in the raw domain). Appends to
 * *ids (grown in w) or only counts when ids is NULL. Returns ERR_OK or an
 * error code (unk token missing from the vocab). */
int  bpe_word(const tok *t, tok_work *w, str piece, i64 *count, bool want_ids, err *e);
/* bpe_word as a consumer of pre-tokens (tok_piece_fn), ctx a bpe_words;
 * when only counting, a word the first-level cache has costs no more. */
typedef struct bpe_words {
    const tok *t;
    tok_work  *w;
    i64       *count;
    bool       want_ids;
    err       *e;
} bpe_words;
int  bpe_each_word(void *ctx, str word);
/* Adds to *count the tokens of `text` (all ASCII when `ascii`) whose
 * pre-tokenizer is one Isolated split by `split`, a pattern split_fast.h
 * matches (`digits` from tok_regex_fast_digits): the same as
 * tok_pretok_each with bpe_each_word, in one loop. */
int  bpe_count_split(const tok *t, tok_work *w, const tok_regex *split, str text, int digits, bool ascii, i64 *count,
                     err *e);
void bpe_work_fini(tok_work *w);
/* A work array of the work area grown to hold `need` items of `size`
 * bytes (capacity doubled from 64, in *cap); out of memory longjmps to
 * w->oom. Returns the array, perhaps moved. Inline when it fits (a call a
 * word saved: qwen3 soup_controls 0.988x instructions), the growth out of
 * line. */
void *tok_work_grow_slow(tok_work *w, void *p, iz *cap, iz need, iz size);
static inline void *tok_work_grow(tok_work *w, void *p, iz *cap, iz need, iz size)
{
    return need <= *cap ? p : tok_work_grow_slow(w, p, cap, need, size);
}
/* The merge loop alone on `word` (no caches, no ignore_merges, no linear
 * encoder), for bpe_linear.c's build: *nsym surviving symbols, the first
 * one's id in *first, the last merge applied in *last. */
typedef struct bpe_last {
    u32  left, right, rank;
    bool merged;      /* false: no merge was applied */
} bpe_last;
int  bpe_merge_word(const tok *t, tok_work *w, str word, iz *nsym, u32 *first, bpe_last *last, err *e);
/* Adds to *count the tokens of `text` (all ASCII when `ascii`) whose
 * pre-tokenizer is one Isolated split by `split`, a pattern split_fast.h
 * matches (`digits` from tok_regex_fast_digits), with the prefix memory
 * (prefix.c): a text that begins as one counted before is counted from the
 * last checkpoint of the common prefix, and remembered in turn. */
int  bpe_count_split_remembered(const tok *t, tok_work *w, pfx_store *p, const tok_regex *split, str text,
                                int digits, bool ascii, i64 *count, err *e);

/* prefix.c: the prefix memory of a work area. Counting only. Chat prompts
 * that a template could not render are counted as one long JSON text
 * (upstream's fallback), and the next turn's text begins with the last
 * one's: remembering long texts with checkpoints (a word start and the
 * count of the words before it) lets the next one start at the last
 * checkpoint inside the common prefix.
 *
 * Exact by construction, for the split patterns split_fast.h matches (Llama
 * 3's and Qwen's, whose matches tile the text, whether the hand-written
 * matcher or PCRE2 finds them): the split is memoryless (the matches after
 * a match start depend only on the text from there on), so a checkpoint
 * `at` of an old text is a match start of a new text, with the same count
 * before it, when every character the old text's matches before `at` read
 * is shared. A match whose first character is not whitespace reads no
 * further than the character after its end (or the text's end); one that
 * starts with whitespace reads its whole whitespace run and the character
 * after it. So a match start `at` where the characters before and at `at`
 * are not both whitespace (checkpoints are taken where one of them is an
 * ASCII non-space byte) has every earlier read in [0, at + 4): such
 * checkpoints are valid for a new text whose first at + 4 bytes are the old
 * text's (pfx_start takes the last one with at + 4 <= the common prefix's
 * length). The words' counts are those of the BPE, a function of each
 * word's bytes. Bounded: a ring of records, overwritten oldest first;
 * a set-associative index keyed by the first PFX_KEY bytes. */
enum { PFX_MIN = 8192, PFX_KEY = 4096, PFX_STRIDE = 1024 };
typedef struct pfx_mark {
    iz  at;      /* a match start */
    i64 count;   /* the tokens of the words before it */
} pfx_mark;
pfx_store *pfx_new(void);
void pfx_free(pfx_store *p);
void pfx_clear(pfx_store *p);
/* Looks `text` up; true with *start the checkpoint to count from (at ==
 * text.len: the same text, count its total), false to count it all. Begins
 * the new text's checkpoints with those of the old before *start. */
bool pfx_start(pfx_store *p, str text, int digits, pfx_mark *start);
/* Adds a checkpoint of the text being counted (in increasing `at`). */
void pfx_mark_at(pfx_store *p, iz at, i64 count);
/* Remembers the text being counted, with its count. */
void pfx_commit(pfx_store *p, str text, int digits, i64 total);
/* Counts of texts counted from a checkpoint past their start, or found
 * whole (for tests: the memory was used). */
i64  pfx_resumed(const pfx_store *p);
i64  tok_work_prefix_resumed(const tok_work *w);
/* The checkpoints remembered for `text` (counted before, as it is), for
 * tests that cut texts just past them. */
iz   pfx_marks_of(const pfx_store *p, str text, int digits, const pfx_mark **marks);
iz   tok_work_prefix_marks(const tok_work *w, str text, const pfx_mark **marks);

/* bpe_linear.c: the BPE of pre-tokens in time linear in their length, with
 * the merge loop's ids (see the file for the argument). Once built, bpe_word
 * takes it for every word of BPE_LIN_USE bytes or more: it is at least as
 * fast as the merge loop from two bytes on (measured on bench/run.sh's kinds
 * of text, docs/performance.md), and much faster on long words (BPE_LIN_MIN
 * bytes or more). */
enum { BPE_LIN_MIN = 64, BPE_LIN_USE = 2 };
/* The encoder of t, built on the first call of this or of bpe_lin_ready past
 * its threshold (thread-safe: one thread builds, under t->lin_mu, and
 * publishes it; the others wait for it), or NULL when t does not meet its
 * precondition. Lives until tok_free. */
const bpe_lin *bpe_lin_get(const tok *t);
/* The encoder of t when it is built already, else NULL (no build, nothing
 * weighed). */
const bpe_lin *bpe_lin_built(const tok *t);
/* What bpe_word asks for a word of `len` bytes the caches did not answer:
 * the encoder, once this process has given the merge loop BPE_LIN_BUILD_AFTER
 * bytes of long words, a shorter word counting 1/64 of its bytes (this one
 * included); NULL before that and when t does not meet the precondition.
 * The build takes 0.02-0.7 s; 256 KB of long words cost the merge loop some
 * 30 ms (9 MB/s), 16 MB of short ones a few hundred (the linear encoder
 * gains less on them), so a run with little text to count never pays the
 * build and one with much pays it once. Each forked drain worker counts and
 * builds its own. */
enum { BPE_LIN_BUILD_AFTER = 256 * 1024, BPE_LIN_SHORT_WEIGHT = 64 };
const bpe_lin *bpe_lin_ready(const tok *t, iz len);
/* Appends the ids of `word` (a pre-token in the raw domain, non-empty) to
 * w->ids and returns how many, or -1 (nothing appended) when the word needs
 * a token the encoder left out: the merge loop decides then. */
iz   bpe_lin_encode(const bpe_lin *lin, const tok *t, tok_work *w, str word);
/* Tests and benchmarks: the encoder's numbers (NULL when not applicable). */
typedef struct bpe_lin_info {
    iz     tokens;    /* in the matcher */
    iz     left_out;  /* model tokens left out (not usable: their own BPE is not themselves) */
    iz     slow;      /* matcher tokens not monotone (their pairs take the merge loop's test) */
    iz     nodes;     /* trie nodes */
    iz     bytes;     /* memory */
    double build_s;   /* time to build */
    bool   chars;     /* character mode (byte fallback) rather than bytes */
} bpe_lin_info;
bool bpe_lin_stats(const tok *t, bpe_lin_info *info);
void bpe_lin_free(tok *t);

/* decode.c */
tok_decoder *decoder_parse(arena *perm, const json *j, const char *path, err *e);

#endif
