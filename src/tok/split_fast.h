/* split_fast.h - the hand-written matcher of the split patterns of Llama 3
 * and Qwen 2/3 on ASCII text, inline for its two users: the regex layer
 * (regex.c, which falls back to PCRE2 where the matcher needs a non-ASCII
 * character) and the BPE's counting loop over all-ASCII text (bpe.c).
 * Internal to src/tok/. */
#ifndef TALLY_SPLIT_FAST_H
#define TALLY_SPLIT_FAST_H

#include "../base/base.h"

/* ---- hand-written matchers for ASCII subjects --------------------------
 *
 * The split patterns of Llama 3 and Qwen 2/3 run on almost every input; on
 * ASCII text their matches are simple enough to find without a regex
 * engine. The matcher below is the pattern read alternative by alternative
 * (leftmost-first, as PCRE2 and Oniguruma try them) with ASCII classes:
 * L = [A-Za-z], N = [0-9], \s = [\t\n\v\f\r ]. Where a decision needs a
 * non-ASCII character it gives up and PCRE2 matches from that position;
 * tests/test_regex_fast.c and fuzz/fuzz_split.c check it against the PCRE2
 * translation on random text. */

enum { C_L = 1, C_N = 2, C_WS = 4, C_NL = 8 };

/* The classes of the ASCII bytes (tok_split_fast_init fills it, once,
 * before the first split pattern with a hand-written matcher is compiled). */
extern u8 tok_ascii_cls[128];
void tok_split_fast_init(void);

/* The end of the match at `i`, or -1 when deciding it needs a non-ASCII
 * character (then PCRE2 decides, from the same position: every position
 * starts a match of these patterns, so the two never disagree on where). */
static ALWAYS_INLINE iz fast_match_in(const u8 *s, iz n, iz i, int max_digits, bool ascii)
{
    const u8 *k = tok_ascii_cls;
    enum { NA = 0x80 };   /* a non-ASCII byte: its class is unknown here */
#define CL(j) (ascii || s[j] < 0x80 ? k[s[j]] : NA)
#define NEED(c) do { if (!ascii && ((c) & NA)) return -1; } while (0)
    u8 c = s[i];
    u8 ci = CL(i);
    NEED(ci);
    /* (?i:'s|'t|'re|'ve|'m|'ll|'d) */
    if (c == '\'' && i + 1 < n) {
        NEED(CL(i + 1));
        u8 a = s[i + 1] | 0x20;
        if (a == 's' || a == 't' || a == 'm' || a == 'd')
            return i + 2;
        if (i + 2 < n && (a == 'r' || a == 'v' || a == 'l')) {
            NEED(CL(i + 2));
            u8 b = s[i + 2] | 0x20;
            if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
                return i + 3;
        }
    }
    /* [^\r\n\p{L}\p{N}]?\p{L}+ */
    iz j = -1;
    if (!(ci & (C_L | C_N | C_NL)) && i + 1 < n) {
        u8 c1 = CL(i + 1);
        NEED(c1);
        if (c1 & C_L)
            j = i + 1;
    }
    if (j < 0 && (ci & C_L))
        j = i;
    if (j >= 0) {
        for (; j < n; j++) {
            u8 cj = CL(j);
            NEED(cj);
            if (!(cj & C_L))
                break;
        }
        return j;
    }
    /* \p{N}{1,3} or \p{N} */
    if (ci & C_N) {
        for (j = i + 1; j < n && j - i < max_digits; j++) {
            u8 cj = CL(j);
            NEED(cj);
            if (!(cj & C_N))
                break;
        }
        return j;
    }
    /*  ?[^\s\p{L}\p{N}]+[\r\n]* */
    j = -1;
    if (c == ' ' && i + 1 < n) {
        u8 c1 = CL(i + 1);
        NEED(c1);
        if (c1 == 0)
            j = i + 1;
    }
    if (j < 0 && ci == 0)
        j = i;
    if (j >= 0) {
        for (; j < n; j++) {
            u8 cj = CL(j);
            NEED(cj);
            if (cj != 0)
                break;
        }
        /* [\r\n]* needs no class: a non-ASCII byte is neither */
        while (j < n && (s[j] == '\r' || s[j] == '\n'))
            j++;
        return j;
    }
    /* c is whitespace: W = s[i..w) is the whole run */
    iz w = i;
    iz last_nl = -1;
    for (; w < n; w++) {
        u8 cw = CL(w);
        NEED(cw);
        if (!(cw & C_WS))
            break;
        if (cw & C_NL)
            last_nl = w;
    }
    /* \s*[\r\n]+ : up to and including the last CR/LF of the run */
    if (last_nl >= 0)
        return last_nl + 1;
    /* \s+(?!\S) : the run, less its last character when text follows */
    if (w == n)
        return w;
    if (w - i >= 2)
        return w - 1;
    /* \s+ */
    return w;
#undef CL
#undef NEED
}

/* The same on a subject known to be all ASCII: no byte needs checking. */
static ALWAYS_INLINE iz fast_match_ascii(const u8 *s, iz n, iz i, int max_digits)
{
    return fast_match_in(s, n, i, max_digits, true);
}

#endif
