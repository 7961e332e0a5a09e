/* tok_internal.h - the pieces of src/tok/ and how they meet. Not for use
 * outside src/tok/ (and its tests).
 *
 * Pipeline for one input (tok.c):
 *   raw text --added tokens (normalized=false)--> segments
 *   segment  --normalizer--> normalized text --added tokens (normalized=true)-->
 *   sub-segments --pre-tokenizer--> pieces --BPE--> ids
 * Everything per call lives in tok_work's scratch arena, reset at the start
 * of each tok_count/tok_encode. */
#ifndef TALLY_TOK_INTERNAL_H
#define TALLY_TOK_INTERNAL_H

#include "tok.h"
#include "../base/arena.h"
#include "../json/json.h"

/* ---- per-thread work memory (tok.c owns it) ---------------------------- */

typedef struct tok_cache tok_cache;
typedef struct tok_l1    tok_l1;

struct tok_work {
    const tok *t;
    arena      scratch;     /* reset per call */
    jmp_buf    oom;         /* scratch exhaustion lands at the call boundary */
    void      *re_md;       /* regex.c: pcre2_match_data *, created lazily */
    void      *re_jit;      /* regex.c: pcre2_jit_stack *, created lazily */
    void      *re_mctx;     /* regex.c: pcre2_match_context *, created lazily */
    const u8  *re_subj;     /* regex.c: the last subject checked for ... */
    iz         re_subj_len;
    bool       re_subj_plain; /* ... code points whose properties are newer than PCRE2's */
    bool       re_subj_checked; /* re_subj_plain is known for it */
    bool       re_no_fast;    /* tests: never use the hand-written matchers */
    /* bpe.c */
    void      *bpe_sym;     /* symbol array, grown as needed (heap) */
    iz         bpe_sym_cap;
    void      *bpe_heap;    /* merge queue (heap) */
    iz         bpe_heap_cap;
    tok_cache *cache;       /* word -> ids cache (bpe.c) */
    tok_l1    *l1;          /* its first level (bpe.c) */
    bool       bpe_no_linear; /* tests: never use the linear encoder (bpe_linear.c) */
    bool       bpe_no_seg;    /* tests: never cut words at runs of U+2581 (bpe.c, seg_word) */
    u64       *lin_dead;    /* bpe_linear.c: positions known to lead nowhere */
    iz         lin_dead_cap;  /* in u64 words */
    u8        *lin_dep;       /* bpe_linear.c: by position, the longest trie path there */
    iz         lin_dep_cap;
    u64       *lin_pairs;   /* bpe_linear.c: pairs tested, direct-mapped ... */
    const void *lin_pairs_for; /* ... for this tokenizer's tables */
    /* tok.c: output ids */
    u32       *ids;
    iz         nids, capids;
};

/* ---- regex.c: Oniguruma patterns (as tokenizer.json has them) run with
 * PCRE2 + JIT, translated so that the matches are Oniguruma's. ----------- */

typedef struct tok_regex tok_regex;

/* A consumer of pieces of text (tok_regex_each_ascii, tok_pretok_each):
 * a non-zero return stops the producer, which returns it. */
typedef int tok_piece_fn(void *ctx, str piece);

/* Compiles `pattern` (Oniguruma syntax as used by HF tokenizers). With
 * `literal`, the pattern is a plain string matched as is (the "String"
 * variant of a Split/Replace pattern). Lives in `perm`. */
tok_regex *tok_regex_compile(arena *perm, str pattern, bool literal, err *e);
/* Finds the leftmost match in s at or after byte `start` (s is valid UTF-8).
 * Returns 1 and sets [*mb, *me), 0 when there is none, or a negative error
 * code (-ERR_LIMIT when the regex engine gives up) with `e` filled. */
int tok_regex_find(const tok_regex *re, tok_work *w, str s, iz start, iz *mb, iz *me, err *e);
/* The same without the hand-written matcher, for a caller that tried it at
 * `start` (split_fast.h) and was told that PCRE2 must decide. */
int tok_regex_find_engine(const tok_regex *re, tok_work *w, str s, iz start, iz *mb, iz *me, err *e);
/* For a pattern with a hand-written matcher (Llama 3's and Qwen's split
 * patterns, where every position starts a match) and an all-ASCII `s`:
 * hands each match of s, in order, to `each` (the matches tile s) and sets
 * *rc to what it returned (stopping at the first non-zero). Returns false,
 * doing nothing, for other patterns and subjects: use tok_regex_find. */
bool tok_regex_each_ascii(const tok_regex *re, tok_work *w, str s, tok_piece_fn *each, void *ctx, int *rc);
/* For a pattern split_fast.h matches by hand: its \p{N}{1,k} (3 for Llama
 * 3's, 1 for Qwen's); 0 for the others (or when w turned the matchers off). */
int tok_regex_fast_digits(const tok_regex *re, const tok_work *w);
void tok_regex_work_fini(tok_work *w);

/* ---- normalize.c: the "normalizer" of tokenizer.json -------------------- */

typedef struct tok_norm tok_norm;

/* Parses a normalizer object `j` (not null); `path` names it in errors
 * (e.g. "normalizer.normalizers[2]"). Unknown or unsupported types fail
 * with ERR_UNSUPPORTED naming the type and the path. */
tok_norm *tok_norm_parse(arena *perm, const json *j, const char *path, err *e);
/* Normalizes `in` into *out (which may be `in` itself when nothing changes;
 * otherwise memory of w->scratch). Returns ERR_OK or an error code. */
int tok_norm_apply(const tok_norm *n, tok_work *w, str in, str *out, err *e);
/* Whether the normalizer can change text (false for an empty Sequence). */
bool tok_norm_changes_text(const tok_norm *n);
/* Whether it leaves every all-ASCII text as it is (Unicode normal forms,
 * and sequences of them): such a text skips it. */
bool tok_norm_keeps_ascii(const tok_norm *n);

/* ---- pretok.c: the "pre_tokenizer" of tokenizer.json -------------------- */

typedef struct tok_pretok tok_pretok;

tok_pretok *tok_pretok_parse(arena *perm, const json *j, const char *path, err *e);
/* Splits `in` into pieces and hands each to `each` as soon as it is found
 * (no list), in order; a non-zero return stops the run and is returned.
 * `at_origin` is true when `in` starts at offset 0 of the original input
 * (Metaspace's prepend_scheme "first"). Pieces are slices of `in` or
 * scratch memory. A chain that is one Isolated split runs as one loop.
 * Byte-level mapping is not done here: when the chain contains a ByteLevel
 * step the whole tokenizer works on raw bytes (see tok_pretok_byte_level). */
int tok_pretok_each(const tok_pretok *p, tok_work *w, str in, bool at_origin, tok_piece_fn *each, void *ctx,
                    err *e);
/* The regex of a chain that is one Isolated split (see tok_pretok_each), or
 * NULL. */
const tok_regex *tok_pretok_one_split(const tok_pretok *p);
/* Whether a ByteLevel step is part of the chain. */
bool tok_pretok_byte_level(const tok_pretok *p);
/* Whether the chain can change the text of the pieces (Metaspace replacing,
 * ByteLevel add_prefix_space, ...), as opposed to only splitting it. */
bool tok_pretok_changes_text(const tok_pretok *p);

/* GPT-2's byte <-> printable code point mapping used by ByteLevel. */
u32  tok_byte_to_cp(u8 b);
int  tok_cp_to_byte(u32 cp);   /* -1 when cp is not one of the 256 */

#endif
