/* split_fast.h - the hand-written matcher of the split patterns of Llama 3
 * and Qwen 2/3, inline for its two users: the regex layer (regex.c, which
 * falls back to PCRE2 where the matcher cannot decide) and the BPE's
 * counting loop over all-ASCII text (bpe.c). Internal to src/tok/. */
#ifndef TALLY_SPLIT_FAST_H
#define TALLY_SPLIT_FAST_H

#include <stdatomic.h>
#include "../base/base.h"
#include "../base/utf8.h"

/* ---- hand-written matchers ---------------------------------------------
 *
 * The split patterns of Llama 3 and Qwen 2/3 run on almost every input;
 * their matches are simple enough to find without a regex engine. The
 * matcher below is the pattern read alternative by alternative
 * (leftmost-first, as PCRE2 and Oniguruma try them), a character at a time,
 * with the classes L (letter), N (number), \s: a table for ASCII
 * (L = [A-Za-z], N = [0-9], \s = [\t\n\v\f\r ]) and, for a wider character,
 * tok_wide_cls (regex.c: Oniguruma's classes as the exact translation has
 * them). In a contraction next to a wide character (case folding) it gives
 * up and PCRE2 matches from that position; tests/test_regex_fast.c and
 * fuzz/fuzz_split.c check it against the PCRE2 translation. */

enum { C_L = 1, C_N = 2, C_WS = 4, C_NL = 8 };

/* The classes of the ASCII bytes (tok_split_fast_init fills it, once,
 * before the first split pattern with a hand-written matcher is compiled). */
extern u8 tok_ascii_cls[128];
void tok_split_fast_init(void);
/* The class (C_L, C_N, C_WS or 0) of the character of two bytes or more at
 * s[i] (valid UTF-8) and its length; false when its class is not known.
 * Inline (the block's flag and one word of its bits), as the matcher asks
 * it for every wide character; tok_wide_cls_fill (regex.c) classifies a
 * block the first time. */
enum { TOK_UCLS_BLOCKS = 0x110000 >> 7 };
extern _Atomic u8 tok_ucls_ready[TOK_UCLS_BLOCKS];      /* 1 = the block's bits are set */
extern _Atomic u64 tok_ucls_bits[TOK_UCLS_BLOCKS * 4];  /* 2 bits a code point: 0 none, 1 L, 2 N, 3 \s */
bool tok_wide_cls_fill(u32 block);

static ALWAYS_INLINE bool tok_wide_cls(const u8 *s, iz i, u8 *cls, iz *len)
{
    iz k = i;
    u32 c = utf8_next(s, &k);
    *len = k - i;
    u32 b = c >> 7;
    if (!atomic_load_explicit(&tok_ucls_ready[b], memory_order_acquire) && !tok_wide_cls_fill(b))
        return false;
    static const u8 map[4] = {0, C_L, C_N, C_WS};
    u64 w = atomic_load_explicit(&tok_ucls_bits[b * 4 + (c >> 5 & 3)], memory_order_relaxed);
    *cls = map[w >> ((c & 31) * 2) & 3];
    return true;
}

/* The end of the match at `i` (a character boundary of valid UTF-8, or of
 * an all-ASCII subject when `ascii`), or -1 when PCRE2 must decide, from
 * the same position: every position starts a match of these patterns, so
 * the two never disagree on where. */
static ALWAYS_INLINE iz fast_match_in(const u8 *s, iz n, iz i, int max_digits, bool ascii)
{
    const u8 *k = tok_ascii_cls;
#define CL(at, cl, ln)                                                  \
    do {                                                                \
        if (ascii || s[at] < 0x80) {                                    \
            (cl) = k[s[at]];                                            \
            (ln) = 1;                                                   \
        } else if (!tok_wide_cls(s, (at), &(cl), &(ln))) {              \
            return -1;                                                  \
        }                                                               \
    } while (0)
    u8 c = s[i], c0, cj;
    iz l0, l;
    CL(i, c0, l0);
    /* (?i:'s|'t|'re|'ve|'m|'ll|'d): next to a wide character, PCRE2 decides */
    if (c == '\'' && i + 1 < n) {
        if (!ascii && (s[i + 1] >= 0x80 || (i + 2 < n && s[i + 2] >= 0x80)))
            return -1;
        u8 a = s[i + 1] | 0x20;
        if (a == 's' || a == 't' || a == 'm' || a == 'd')
            return i + 2;
        if (i + 2 < n && (a == 'r' || a == 'v' || a == 'l')) {
            u8 b = s[i + 2] | 0x20;
            if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
                return i + 3;
        }
    }
    /* [^\r\n\p{L}\p{N}]?\p{L}+ */
    iz j = -1;
    if (!(c0 & (C_L | C_N | C_NL)) && i + l0 < n) {
        CL(i + l0, cj, l);
        if (cj & C_L)
            j = i + l0;
    }
    if (j < 0 && (c0 & C_L))
        j = i;
    if (j >= 0) {
        while (j < n) {
            CL(j, cj, l);
            if (!(cj & C_L))
                break;
            j += l;
        }
        return j;
    }
    /* \p{N}{1,3} or \p{N}: characters, not bytes */
    if (c0 & C_N) {
        j = i + l0;
        for (int d = 1; j < n && d < max_digits; d++) {
            CL(j, cj, l);
            if (!(cj & C_N))
                break;
            j += l;
        }
        return j;
    }
    /*  ?[^\s\p{L}\p{N}]+[\r\n]* */
    j = -1;
    if (c == ' ' && i + 1 < n) {
        CL(i + 1, cj, l);
        if (cj == 0)
            j = i + 1;
    }
    if (j < 0 && c0 == 0)
        j = i;
    if (j >= 0) {
        while (j < n) {
            CL(j, cj, l);
            if (cj != 0)
                break;
            j += l;
        }
        /* [\r\n]* needs no class */
        while (j < n && (s[j] == '\r' || s[j] == '\n'))
            j++;
        return j;
    }
    /* c is white space: W = s[i..w) is the whole run, of nch characters,
     * the last of `last` bytes */
    iz w = i, last_nl = -1, nch = 0, last = 0;
    while (w < n) {
        CL(w, cj, l);
        if (!(cj & C_WS))
            break;
        if (cj & C_NL)
            last_nl = w;
        w += l;
        nch++;
        last = l;
    }
#undef CL
    /* \s*[\r\n]+ : up to and including the last CR/LF of the run */
    if (last_nl >= 0)
        return last_nl + 1;
    /* \s+(?!\S) : the run, less its last character when text follows */
    if (w == n)
        return w;
    if (nch >= 2)
        return w - last;
    /* \s+ */
    return w;
}

/* The same on a subject known to be all ASCII: no byte needs checking. */
static ALWAYS_INLINE iz fast_match_ascii(const u8 *s, iz n, iz i, int max_digits)
{
    return fast_match_in(s, n, i, max_digits, true);
}

#endif
