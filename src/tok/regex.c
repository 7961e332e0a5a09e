/* regex.c - the regex layer of src/tok/ (tok_internal.h): Oniguruma patterns,
 * as tokenizer.json writes them and HF tokenizers compiles them (onig crate,
 * Ruby syntax, ONIG_OPTION_NONE), translated to PCRE2 syntax and run with
 * PCRE2 (UTF + UCP, JIT). The translation makes PCRE2 find Oniguruma's
 * matches: character classes and properties are rebuilt from tables taken
 * from the reference Oniguruma, and Ruby-syntax quirks are rewritten. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include "tok_internal.h"
#include "../base/utf8.h"

enum {
    TOK_RE_MAX_PATTERN = 1 << 16,   /* bytes of one Oniguruma pattern */
    TOK_RE_MAX_NEST    = 100,       /* nested groups in one pattern */
    TOK_RE_MAX_TERMS   = 32,        /* escapes/properties in one [...] */
    TOK_RE_MAX_REPEAT  = 65535,     /* largest {n,m} bound PCRE2 takes */
    TOK_RE_MATCH_LIMIT = 100000000, /* backtracking steps of one search */
    TOK_RE_DEPTH_LIMIT = 1000000,   /* interpreter only (JIT failed) */
    TOK_RE_JIT_STACK   = 1 << 28,   /* bytes of JIT stack per tok_work (reserved, touched as used) */
    TOK_RE_HEAP_LIMIT  = 1 << 21,   /* KiB of interpreter heap when the JIT stack runs out */
};

/* A pattern with gates (see "Unicode sets") is compiled twice: exactly,
 * and "plain", without the gated additions. The plain code gives the same
 * matches on any subject that holds none of the code points of uni_ranges,
 * which is every text of the common scripts; it is what runs then, at the
 * speed of plain PCRE2 classes. */
typedef enum { FAST_NONE, FAST_L3, FAST_QWEN } fast_kind;

struct tok_regex {
    pcre2_code *code;   /* NULL in literal mode */
    bool        jit;    /* JIT-compiled */
    pcre2_code *plain;  /* NULL when the pattern has no gate */
    bool        plain_jit;
    fast_kind   fast;   /* a known pattern with a hand-written ASCII matcher */
    str         lit;    /* literal mode: the bytes to find */
};

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

static const char pat_l3[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char pat_qwen[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

enum { C_L = 1, C_N = 2, C_WS = 4, C_NL = 8 };

static u8 ascii_cls[128];
static pthread_once_t ascii_once = PTHREAD_ONCE_INIT;

static void init_cls(void)
{
    for (int c = 0; c < 128; c++) {
        u8 k = 0;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            k = C_L;
        else if (c >= '0' && c <= '9')
            k = C_N;
        else if ((c >= 0x09 && c <= 0x0d) || c == ' ')
            k = C_WS;
        if (c == '\r' || c == '\n')
            k |= C_NL;
        ascii_cls[c] = k;
    }
}

/* The end of the match at `i`, or -1 when deciding it needs a non-ASCII
 * character (then PCRE2 decides, from the same position: every position
 * starts a match of these patterns, so the two never disagree on where). */
static ALWAYS_INLINE iz fast_match_in(const u8 *s, iz n, iz i, int max_digits, bool ascii)
{
    const u8 *k = ascii_cls;
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

static iz fast_match(const u8 *s, iz n, iz i, int max_digits) { return fast_match_in(s, n, i, max_digits, false); }
/* The same on a subject known to be all ASCII: no byte needs checking. */
static iz fast_match_ascii(const u8 *s, iz n, iz i, int max_digits)
{
    return fast_match_in(s, n, i, max_digits, true);
}

/* ---- Unicode sets ------------------------------------------------------
 *
 * Oniguruma's properties are those of the Oniguruma inside the reference
 * (Unicode 16); PCRE2 10.42 has Unicode 14, and some classes differ in
 * definition too (PCRE2's \s has U+180E, its \w has every N, Oniguruma's \h
 * is a hex digit). Each Oniguruma set is therefore written as a PCRE2 base
 * (class items, possibly empty) plus code point ranges to add and to remove.
 * The table was generated by asking the reference Oniguruma for the members
 * of each set among all code points and PCRE2 10.42 for the members of the
 * base, and keeping the differences (the generator and its inputs are
 * in tools/regex/, whose check.sh regenerates it and compares).
 * PCRE2 tests the ranges of a class one by one, so long lists of additions
 * are slow; where all of them are code points PCRE2 takes as unassigned,
 * they are tested only behind (?=\p{Cn}) ("gate"), which keeps the common
 * characters at the speed of the plain property. Should PCRE2 learn those
 * code points, its property has them and the gate is merely never taken.
 * Names are Oniguruma's, normalized: lower case without ' ', '_' and '-';
 * "@s", "@d", "@w", "@h" are the escapes \s \d \w \h. */

typedef struct {
    const char *name;
    const char *pcre;        /* PCRE2 class items of the base */
    u32 add, nadd, sub, nsub; /* slices of uni_ranges */
    u32 gate;                 /* every added code point is unassigned for PCRE2 */
} uprop;

static const u32 uni_ranges[][2] = {
    {0x897, 0x897}, {0xcf3, 0xcf3}, {0xece, 0xece}, {0x1b4e, 0x1b4f},
    {0x1b7f, 0x1b7f}, {0x1c89, 0x1c8a}, {0x2427, 0x2429}, {0x2ffc, 0x2fff},
    {0x31e4, 0x31e5}, {0x31ef, 0x31ef}, {0xa7cb, 0xa7cd}, {0xa7da, 0xa7dc},
    {0x105c0, 0x105f3}, {0x10d40, 0x10d65}, {0x10d69, 0x10d85}, {0x10d8e, 0x10d8f},
    {0x10ec2, 0x10ec4}, {0x10efc, 0x10eff}, {0x1123f, 0x11241}, {0x11380, 0x11389},
    {0x1138b, 0x1138b}, {0x1138e, 0x1138e}, {0x11390, 0x113b5}, {0x113b7, 0x113c0},
    {0x113c2, 0x113c2}, {0x113c5, 0x113c5}, {0x113c7, 0x113ca}, {0x113cc, 0x113d5},
    {0x113d7, 0x113d8}, {0x113e1, 0x113e2}, {0x116d0, 0x116e3}, {0x11b00, 0x11b09},
    {0x11bc0, 0x11be1}, {0x11bf0, 0x11bf9}, {0x11f00, 0x11f10}, {0x11f12, 0x11f3a},
    {0x11f3e, 0x11f5a}, {0x1342f, 0x1342f}, {0x13440, 0x13455}, {0x13460, 0x143fa},
    {0x16100, 0x16139}, {0x16d40, 0x16d79}, {0x18cff, 0x18cff}, {0x1b132, 0x1b132},
    {0x1b155, 0x1b155}, {0x1cc00, 0x1ccf9}, {0x1cd00, 0x1ceb3}, {0x1d2c0, 0x1d2d3},
    {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d}, {0x1e08f, 0x1e08f}, {0x1e4d0, 0x1e4f9},
    {0x1e5d0, 0x1e5fa}, {0x1e5ff, 0x1e5ff}, {0x1f6dc, 0x1f6dc}, {0x1f774, 0x1f776},
    {0x1f77b, 0x1f77f}, {0x1f7d9, 0x1f7d9}, {0x1f8b2, 0x1f8bb}, {0x1f8c0, 0x1f8c1},
    {0x1fa75, 0x1fa77}, {0x1fa87, 0x1fa89}, {0x1fa8f, 0x1fa8f}, {0x1faad, 0x1faaf},
    {0x1fabb, 0x1fabf}, {0x1fac6, 0x1fac6}, {0x1face, 0x1facf}, {0x1fada, 0x1fadc},
    {0x1fadf, 0x1fadf}, {0x1fae8, 0x1fae9}, {0x1faf7, 0x1faf8}, {0x1fbcb, 0x1fbef},
    {0x2b739, 0x2b739}, {0x2ebf0, 0x2ee5d}, {0x31350, 0x323af}, {0x13430, 0x1343f},
    {0x897, 0x897}, {0xcf3, 0xcf3}, {0xece, 0xece}, {0x1b4e, 0x1b4f},
    {0x1b7f, 0x1b7f}, {0x1c89, 0x1c8a}, {0x2427, 0x2429}, {0x2ffc, 0x2fff},
    {0x31e4, 0x31e5}, {0x31ef, 0x31ef}, {0xa7cb, 0xa7cd}, {0xa7da, 0xa7dc},
    {0x105c0, 0x105f3}, {0x10d40, 0x10d65}, {0x10d69, 0x10d85}, {0x10d8e, 0x10d8f},
    {0x10ec2, 0x10ec4}, {0x10efc, 0x10eff}, {0x1123f, 0x11241}, {0x11380, 0x11389},
    {0x1138b, 0x1138b}, {0x1138e, 0x1138e}, {0x11390, 0x113b5}, {0x113b7, 0x113c0},
    {0x113c2, 0x113c2}, {0x113c5, 0x113c5}, {0x113c7, 0x113ca}, {0x113cc, 0x113d5},
    {0x113d7, 0x113d8}, {0x113e1, 0x113e2}, {0x116d0, 0x116e3}, {0x11b00, 0x11b09},
    {0x11bc0, 0x11be1}, {0x11bf0, 0x11bf9}, {0x11f00, 0x11f10}, {0x11f12, 0x11f3a},
    {0x11f3e, 0x11f5a}, {0x1342f, 0x1342f}, {0x13439, 0x13455}, {0x13460, 0x143fa},
    {0x16100, 0x16139}, {0x16d40, 0x16d79}, {0x18cff, 0x18cff}, {0x1b132, 0x1b132},
    {0x1b155, 0x1b155}, {0x1cc00, 0x1ccf9}, {0x1cd00, 0x1ceb3}, {0x1d2c0, 0x1d2d3},
    {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d}, {0x1e08f, 0x1e08f}, {0x1e4d0, 0x1e4f9},
    {0x1e5d0, 0x1e5fa}, {0x1e5ff, 0x1e5ff}, {0x1f6dc, 0x1f6dc}, {0x1f774, 0x1f776},
    {0x1f77b, 0x1f77f}, {0x1f7d9, 0x1f7d9}, {0x1f8b2, 0x1f8bb}, {0x1f8c0, 0x1f8c1},
    {0x1fa75, 0x1fa77}, {0x1fa87, 0x1fa89}, {0x1fa8f, 0x1fa8f}, {0x1faad, 0x1faaf},
    {0x1fabb, 0x1fabf}, {0x1fac6, 0x1fac6}, {0x1face, 0x1facf}, {0x1fada, 0x1fadc},
    {0x1fadf, 0x1fadf}, {0x1fae8, 0x1fae9}, {0x1faf7, 0x1faf8}, {0x1fbcb, 0x1fbef},
    {0x2b739, 0x2b739}, {0x2ebf0, 0x2ee5d}, {0x31350, 0x323af}, {0x1c80, 0x1c8a},
    {0xa78b, 0xa7cd}, {0xa7d5, 0xa7dc}, {0x105c0, 0x105f3}, {0x10d4a, 0x10d65},
    {0x10d6f, 0x10d85}, {0x10ec2, 0x10ec4}, {0x1123f, 0x11240}, {0x11380, 0x11389},
    {0x1138b, 0x1138b}, {0x1138e, 0x1138e}, {0x11390, 0x113b5}, {0x113b7, 0x113b7},
    {0x113d1, 0x113d1}, {0x113d3, 0x113d3}, {0x11bc0, 0x11be0}, {0x11f02, 0x11f02},
    {0x11f04, 0x11f10}, {0x11f12, 0x11f33}, {0x13000, 0x1342f}, {0x13441, 0x13446},
    {0x13460, 0x143fa}, {0x16100, 0x1611d}, {0x16d40, 0x16d6c}, {0x18cff, 0x18d08},
    {0x1b132, 0x1b132}, {0x1b155, 0x1b155}, {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d},
    {0x1e4d0, 0x1e4eb}, {0x1e5d0, 0x1e5ed}, {0x1e5f0, 0x1e5f0}, {0x2a700, 0x2b739},
    {0x2ebf0, 0x2ee5d}, {0x31350, 0x323af}, {0x1c80, 0x1c8a}, {0xa790, 0xa7cd},
    {0xa7d5, 0xa7dc}, {0x10d50, 0x10d65}, {0x10d70, 0x10d85}, {0x1df25, 0x1df2a},
    {0x1c8a, 0x1c8a}, {0xa7cd, 0xa7cd}, {0xa7db, 0xa7db}, {0x10d70, 0x10d85},
    {0x1df25, 0x1df2a}, {0x10d4e, 0x10d4e}, {0x10d6f, 0x10d6f}, {0x16d40, 0x16d42},
    {0x16d6b, 0x16d6c}, {0x1e030, 0x1e06d}, {0x1e4eb, 0x1e4eb}, {0x105c0, 0x105f3},
    {0x10d4a, 0x10d4d}, {0x10d4f, 0x10d4f}, {0x10ec2, 0x10ec4}, {0x1123f, 0x11240},
    {0x11380, 0x11389}, {0x1138b, 0x1138b}, {0x1138e, 0x1138e}, {0x11390, 0x113b5},
    {0x113b7, 0x113b7}, {0x113d1, 0x113d1}, {0x113d3, 0x113d3}, {0x11bc0, 0x11be0},
    {0x11f02, 0x11f02}, {0x11f04, 0x11f10}, {0x11f12, 0x11f33}, {0x13000, 0x1342f},
    {0x13441, 0x13446}, {0x13460, 0x143fa}, {0x16100, 0x1611d}, {0x16d43, 0x16d6a},
    {0x18cff, 0x18d08}, {0x1b132, 0x1b132}, {0x1b155, 0x1b155}, {0x1e4d0, 0x1e4ea},
    {0x1e5d0, 0x1e5ed}, {0x1e5f0, 0x1e5f0}, {0x2a700, 0x2b739}, {0x2ebf0, 0x2ee5d},
    {0x31350, 0x323af}, {0x1c89, 0x1c89}, {0xa7cb, 0xa7cc}, {0xa7da, 0xa7da},
    {0xa7dc, 0xa7dc}, {0x10d50, 0x10d65}, {0x897, 0x89f}, {0xcf3, 0xcf3},
    {0xec8, 0xece}, {0x10d69, 0x10d6d}, {0x10efc, 0x10eff}, {0x11241, 0x11241},
    {0x113b8, 0x113c0}, {0x113c2, 0x113c2}, {0x113c5, 0x113c5}, {0x113c7, 0x113ca},
    {0x113cc, 0x113d0}, {0x113d2, 0x113d2}, {0x113e1, 0x113e2}, {0x11f00, 0x11f01},
    {0x11f03, 0x11f03}, {0x11f34, 0x11f3a}, {0x11f3e, 0x11f42}, {0x11f5a, 0x11f5a},
    {0x13440, 0x13440}, {0x13447, 0x13455}, {0x1611e, 0x1612f}, {0x1e08f, 0x1e08f},
    {0x1e4ec, 0x1e4ef}, {0x1e5ee, 0x1e5ef}, {0xcf3, 0xcf3}, {0x113b8, 0x113ba},
    {0x113c2, 0x113c2}, {0x113c5, 0x113c5}, {0x113c7, 0x113ca}, {0x113cc, 0x113cd},
    {0x113cf, 0x113cf}, {0x1171e, 0x1171e}, {0x11f03, 0x11f03}, {0x11f34, 0x11f35},
    {0x11f3e, 0x11f3f}, {0x11f41, 0x11f41}, {0x1612a, 0x1612c}, {0x897, 0x89f},
    {0xec8, 0xece}, {0x10d69, 0x10d6d}, {0x10efc, 0x10eff}, {0x11241, 0x11241},
    {0x113bb, 0x113c0}, {0x113ce, 0x113ce}, {0x113d0, 0x113d0}, {0x113d2, 0x113d2},
    {0x113e1, 0x113e2}, {0x11f00, 0x11f01}, {0x11f36, 0x11f3a}, {0x11f40, 0x11f40},
    {0x11f42, 0x11f42}, {0x11f5a, 0x11f5a}, {0x13440, 0x13440}, {0x13447, 0x13455},
    {0x1611e, 0x16129}, {0x1612d, 0x1612f}, {0x1e08f, 0x1e08f}, {0x1e4ec, 0x1e4ef},
    {0x1e5ee, 0x1e5ef}, {0x1171e, 0x1171e}, {0x10d40, 0x10d49}, {0x116d0, 0x116e3},
    {0x11bf0, 0x11bf9}, {0x11f50, 0x11f59}, {0x16130, 0x16139}, {0x16d70, 0x16d79},
    {0x1ccf0, 0x1ccf9}, {0x1d2c0, 0x1d2d3}, {0x1e4f0, 0x1e4f9}, {0x1e5f1, 0x1e5fa},
    {0x10d40, 0x10d49}, {0x116d0, 0x116e3}, {0x11bf0, 0x11bf9}, {0x11f50, 0x11f59},
    {0x16130, 0x16139}, {0x16d70, 0x16d79}, {0x1ccf0, 0x1ccf9}, {0x1e4f0, 0x1e4f9},
    {0x1e5f1, 0x1e5fa}, {0x1d2c0, 0x1d2d3}, {0x1b4e, 0x1b4f}, {0x1b7d, 0x1b7f},
    {0x10d6e, 0x10d6e}, {0x113d4, 0x113d5}, {0x113d7, 0x113d8}, {0x11b00, 0x11b09},
    {0x11be1, 0x11be1}, {0x11f43, 0x11f4f}, {0x16d6d, 0x16d6f}, {0x1e5ff, 0x1e5ff},
    {0x10d6e, 0x10d6e}, {0x1b4e, 0x1b4f}, {0x1b7d, 0x1b7f}, {0x113d4, 0x113d5},
    {0x113d7, 0x113d8}, {0x11b00, 0x11b09}, {0x11be1, 0x11be1}, {0x11f43, 0x11f4f},
    {0x16d6d, 0x16d6f}, {0x1e5ff, 0x1e5ff}, {0x232b, 0x2429}, {0x2ff0, 0x2fff},
    {0x31c0, 0x31e5}, {0x31ef, 0x31ef}, {0x10d8e, 0x10d8f}, {0x1cc00, 0x1ccef},
    {0x1cd00, 0x1ceb3}, {0x1f6dc, 0x1f6ec}, {0x1f700, 0x1f776}, {0x1f77b, 0x1f7d9},
    {0x1f8b0, 0x1f8bb}, {0x1f8c0, 0x1f8c1}, {0x1fa70, 0x1fa7c}, {0x1fa80, 0x1fa89},
    {0x1fa8f, 0x1fac6}, {0x1face, 0x1fadc}, {0x1fadf, 0x1fae9}, {0x1faf0, 0x1faf8},
    {0x1fb94, 0x1fbef}, {0x10d8e, 0x10d8f}, {0x23e2, 0x2429}, {0x2ff0, 0x2fff},
    {0x31c0, 0x31e5}, {0x31ef, 0x31ef}, {0x1cc00, 0x1ccef}, {0x1cd00, 0x1ceb3},
    {0x1f6dc, 0x1f6ec}, {0x1f700, 0x1f776}, {0x1f77b, 0x1f7d9}, {0x1f8b0, 0x1f8bb},
    {0x1f8c0, 0x1f8c1}, {0x1fa70, 0x1fa7c}, {0x1fa80, 0x1fa89}, {0x1fa8f, 0x1fac6},
    {0x1face, 0x1fadc}, {0x1fadf, 0x1fae9}, {0x1faf0, 0x1faf8}, {0x1fb94, 0x1fbef},
    {0x9, 0xd}, {0x20, 0x20}, {0x85, 0x85}, {0xa0, 0xa0},
    {0x1680, 0x1680}, {0x2000, 0x200a}, {0x2028, 0x2029}, {0x202f, 0x202f},
    {0x205f, 0x205f}, {0x3000, 0x3000}, {0x10d40, 0x10d49}, {0x116d0, 0x116e3},
    {0x11bf0, 0x11bf9}, {0x11f50, 0x11f59}, {0x16130, 0x16139}, {0x16d70, 0x16d79},
    {0x1ccf0, 0x1ccf9}, {0x1e4f0, 0x1e4f9}, {0x1e5f1, 0x1e5fa}, {0xb2, 0xb3},
    {0xb9, 0xba}, {0xbc, 0xbe}, {0x897, 0x8e1}, {0xcf1, 0xcf3},
    {0xec8, 0xece}, {0x1c80, 0x1c8a}, {0xa78b, 0xa7cd}, {0xa7d5, 0xa7dc},
    {0x105c0, 0x105f3}, {0x10d40, 0x10d65}, {0x10d69, 0x10d6d}, {0x10d6f, 0x10d85},
    {0x10ec2, 0x10ec4}, {0x10efc, 0x10f1c}, {0x1123e, 0x11241}, {0x11380, 0x11389},
    {0x1138b, 0x1138b}, {0x1138e, 0x1138e}, {0x11390, 0x113b5}, {0x113b7, 0x113c0},
    {0x113c2, 0x113c2}, {0x113c5, 0x113c5}, {0x113c7, 0x113ca}, {0x113cc, 0x113d3},
    {0x113e1, 0x113e2}, {0x116d0, 0x116e3}, {0x11bc0, 0x11be0}, {0x11bf0, 0x11bf9},
    {0x11f00, 0x11f10}, {0x11f12, 0x11f3a}, {0x11f3e, 0x11f42}, {0x11f50, 0x11f5a},
    {0x13000, 0x1342f}, {0x13440, 0x13455}, {0x13460, 0x143fa}, {0x16100, 0x16139},
    {0x16d40, 0x16d6c}, {0x16d70, 0x16d79}, {0x18cff, 0x18d08}, {0x1b132, 0x1b132},
    {0x1b155, 0x1b155}, {0x1ccf0, 0x1ccf9}, {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d},
    {0x1e08f, 0x1e08f}, {0x1e4d0, 0x1e4f9}, {0x1e5d0, 0x1e5fa}, {0x2a700, 0x2b739},
    {0x2ebf0, 0x2ee5d}, {0x31350, 0x323af}, {0x30, 0x39}, {0x41, 0x46},
    {0x61, 0x66}, {0x363, 0x374}, {0x897, 0x897}, {0xc00, 0xc0c},
    {0xcf1, 0xcf3}, {0xf71, 0xf83}, {0x1c80, 0x1c8a}, {0x1dd3, 0x1df4},
    {0xa78b, 0xa7cd}, {0xa7d5, 0xa7dc}, {0x105c0, 0x105f3}, {0x10d4a, 0x10d65},
    {0x10d69, 0x10d69}, {0x10d6f, 0x10d85}, {0x10ec2, 0x10ec4}, {0x10efc, 0x10efc},
    {0x11080, 0x110b8}, {0x1123e, 0x11241}, {0x11380, 0x11389}, {0x1138b, 0x1138b},
    {0x1138e, 0x1138e}, {0x11390, 0x113b5}, {0x113b7, 0x113c0}, {0x113c2, 0x113c2},
    {0x113c5, 0x113c5}, {0x113c7, 0x113ca}, {0x113cc, 0x113cd}, {0x113d1, 0x113d1},
    {0x113d3, 0x113d3}, {0x11bc0, 0x11be0}, {0x11f00, 0x11f10}, {0x11f12, 0x11f3a},
    {0x11f3e, 0x11f40}, {0x13000, 0x1342f}, {0x13441, 0x13446}, {0x13460, 0x143fa},
    {0x16100, 0x1612e}, {0x16d40, 0x16d6c}, {0x18cff, 0x18d08}, {0x1b132, 0x1b132},
    {0x1b155, 0x1b155}, {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d}, {0x1e08f, 0x1e08f},
    {0x1e4d0, 0x1e4eb}, {0x1e5d0, 0x1e5ed}, {0x1e5f0, 0x1e5f0}, {0x2a700, 0x2b739},
    {0x2ebf0, 0x2ee5d}, {0x31350, 0x323af}, {0x363, 0x374}, {0x897, 0x897},
    {0xc00, 0xc0c}, {0xcf1, 0xcf3}, {0xf71, 0xf83}, {0x1c80, 0x1c8a},
    {0x1dd3, 0x1df4}, {0xa78b, 0xa7cd}, {0xa7d5, 0xa7dc}, {0x105c0, 0x105f3},
    {0x10d4a, 0x10d65}, {0x10d69, 0x10d69}, {0x10d6f, 0x10d85}, {0x10ec2, 0x10ec4},
    {0x10efc, 0x10efc}, {0x11080, 0x110b8}, {0x1123e, 0x11241}, {0x11380, 0x11389},
    {0x1138b, 0x1138b}, {0x1138e, 0x1138e}, {0x11390, 0x113b5}, {0x113b7, 0x113c0},
    {0x113c2, 0x113c2}, {0x113c5, 0x113c5}, {0x113c7, 0x113ca}, {0x113cc, 0x113cd},
    {0x113d1, 0x113d1}, {0x113d3, 0x113d3}, {0x11bc0, 0x11be0}, {0x11f00, 0x11f10},
    {0x11f12, 0x11f3a}, {0x11f3e, 0x11f40}, {0x13000, 0x1342f}, {0x13441, 0x13446},
    {0x13460, 0x143fa}, {0x16100, 0x1612e}, {0x16d40, 0x16d6c}, {0x18cff, 0x18d08},
    {0x1b132, 0x1b132}, {0x1b155, 0x1b155}, {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d},
    {0x1e08f, 0x1e08f}, {0x1e4d0, 0x1e4eb}, {0x1e5d0, 0x1e5ed}, {0x1e5f0, 0x1e5f0},
    {0x2a700, 0x2b739}, {0x2ebf0, 0x2ee5d}, {0x31350, 0x323af}, {0x10d40, 0x10d49},
    {0x116d0, 0x116e3}, {0x11bf0, 0x11bf9}, {0x11f50, 0x11f59}, {0x16130, 0x16139},
    {0x16d70, 0x16d79}, {0x1ccf0, 0x1ccf9}, {0x1e4f0, 0x1e4f9}, {0x1e5f1, 0x1e5fa},
    {0x9, 0xd}, {0x20, 0x20}, {0x85, 0x85}, {0xa0, 0xa0},
    {0x1680, 0x1680}, {0x2000, 0x200a}, {0x2028, 0x2029}, {0x202f, 0x202f},
    {0x205f, 0x205f}, {0x3000, 0x3000}, {0xb2, 0xb3}, {0xb9, 0xba},
    {0xbc, 0xbe}, {0x897, 0x8e1}, {0xcf1, 0xcf3}, {0xec8, 0xece},
    {0x1c80, 0x1c8a}, {0xa78b, 0xa7cd}, {0xa7d5, 0xa7dc}, {0x105c0, 0x105f3},
    {0x10d40, 0x10d65}, {0x10d69, 0x10d6d}, {0x10d6f, 0x10d85}, {0x10ec2, 0x10ec4},
    {0x10efc, 0x10f1c}, {0x1123e, 0x11241}, {0x11380, 0x11389}, {0x1138b, 0x1138b},
    {0x1138e, 0x1138e}, {0x11390, 0x113b5}, {0x113b7, 0x113c0}, {0x113c2, 0x113c2},
    {0x113c5, 0x113c5}, {0x113c7, 0x113ca}, {0x113cc, 0x113d3}, {0x113e1, 0x113e2},
    {0x116d0, 0x116e3}, {0x11bc0, 0x11be0}, {0x11bf0, 0x11bf9}, {0x11f00, 0x11f10},
    {0x11f12, 0x11f3a}, {0x11f3e, 0x11f42}, {0x11f50, 0x11f5a}, {0x13000, 0x1342f},
    {0x13440, 0x13455}, {0x13460, 0x143fa}, {0x16100, 0x16139}, {0x16d40, 0x16d6c},
    {0x16d70, 0x16d79}, {0x18cff, 0x18d08}, {0x1b132, 0x1b132}, {0x1b155, 0x1b155},
    {0x1ccf0, 0x1ccf9}, {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d}, {0x1e08f, 0x1e08f},
    {0x1e4d0, 0x1e4f9}, {0x1e5d0, 0x1e5fa}, {0x2a700, 0x2b739}, {0x2ebf0, 0x2ee5d},
    {0x31350, 0x323af}, {0x1c89, 0x1c89}, {0xa7cb, 0xa7cc}, {0xa7da, 0xa7da},
    {0xa7dc, 0xa7dc}, {0x10d50, 0x10d65}, {0x1c89, 0x1c89}, {0xa7cb, 0xa7cc},
    {0xa7da, 0xa7da}, {0xa7dc, 0xa7dc}, {0x10d50, 0x10d65}, {0x10fc, 0x10ff},
    {0x1c8a, 0x1c8a}, {0xa7cd, 0xa7cd}, {0xa7db, 0xa7db}, {0xa7f2, 0xa7f4},
    {0xab5c, 0xab69}, {0x10d70, 0x10d85}, {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d},
    {0x10fc, 0x10ff}, {0x1c8a, 0x1c8a}, {0xa7cd, 0xa7cd}, {0xa7db, 0xa7db},
    {0xa7f2, 0xa7f4}, {0xab5c, 0xab69}, {0x10d70, 0x10d85}, {0x1df25, 0x1df2a},
    {0x1e030, 0x1e06d}, {0x363, 0x374}, {0x897, 0x897}, {0xc00, 0xc0c},
    {0xcf1, 0xcf3}, {0xf71, 0xf83}, {0x1c80, 0x1c8a}, {0x1dd3, 0x1df4},
    {0xa78b, 0xa7cd}, {0xa7d5, 0xa7dc}, {0x105c0, 0x105f3}, {0x10d40, 0x10d65},
    {0x10d69, 0x10d69}, {0x10d6f, 0x10d85}, {0x10ec2, 0x10ec4}, {0x10efc, 0x10efc},
    {0x11080, 0x110b8}, {0x1123e, 0x11241}, {0x11380, 0x11389}, {0x1138b, 0x1138b},
    {0x1138e, 0x1138e}, {0x11390, 0x113b5}, {0x113b7, 0x113c0}, {0x113c2, 0x113c2},
    {0x113c5, 0x113c5}, {0x113c7, 0x113ca}, {0x113cc, 0x113cd}, {0x113d1, 0x113d1},
    {0x113d3, 0x113d3}, {0x116d0, 0x116e3}, {0x11bc0, 0x11be0}, {0x11bf0, 0x11bf9},
    {0x11f00, 0x11f10}, {0x11f12, 0x11f3a}, {0x11f3e, 0x11f40}, {0x11f50, 0x11f59},
    {0x13000, 0x1342f}, {0x13441, 0x13446}, {0x13460, 0x143fa}, {0x16100, 0x1612e},
    {0x16130, 0x16139}, {0x16d40, 0x16d6c}, {0x16d70, 0x16d79}, {0x18cff, 0x18d08},
    {0x1b132, 0x1b132}, {0x1b155, 0x1b155}, {0x1ccf0, 0x1ccf9}, {0x1df25, 0x1df2a},
    {0x1e030, 0x1e06d}, {0x1e08f, 0x1e08f}, {0x1e4d0, 0x1e4eb}, {0x1e4f0, 0x1e4f9},
    {0x1e5d0, 0x1e5ed}, {0x1e5f0, 0x1e5fa}, {0x2a700, 0x2b739}, {0x2ebf0, 0x2ee5d},
    {0x31350, 0x323af}, {0x30, 0x39}, {0x41, 0x46}, {0x61, 0x66},
    {0x0, 0x7f}, {0x0, 0x10ffff}, {0x1b4e, 0x1b4f}, {0x1b7d, 0x1b7f},
    {0x10d6e, 0x10d6e}, {0x113d4, 0x113d5}, {0x113d7, 0x113d8}, {0x11b00, 0x11b09},
    {0x11be1, 0x11be1}, {0x11f43, 0x11f4f}, {0x16d6d, 0x16d6f}, {0x1e5ff, 0x1e5ff},
    {0x166d, 0x166e}, {0x111c5, 0x111c9}, {0x61d, 0x61d}, {0x9fd, 0x9fd},
    {0xa76, 0xa76}, {0xc77, 0xc77}, {0xc84, 0xc84}, {0x1b7d, 0x1b7e},
    {0x2e43, 0x2e4f}, {0x2e52, 0x2e5d}, {0x10ead, 0x10ead}, {0x10f55, 0x10f59},
    {0x10f86, 0x10f89}, {0x1144b, 0x1144f}, {0x1145a, 0x1145b}, {0x1145d, 0x1145d},
    {0x11660, 0x1166c}, {0x116b9, 0x116b9}, {0x1183b, 0x1183b}, {0x11944, 0x11946},
    {0x119e2, 0x119e2}, {0x11a3f, 0x11a46}, {0x11a9a, 0x11a9c}, {0x11a9e, 0x11aa2},
    {0x11c41, 0x11c45}, {0x11c70, 0x11c71}, {0x11ef7, 0x11ef8}, {0x11fff, 0x11fff},
    {0x12ff1, 0x12ff2}, {0x16e97, 0x16e9a}, {0x16fe2, 0x16fe2}, {0x1e95e, 0x1e95f},
    {0x10d40, 0x10d49}, {0x116d0, 0x116e3}, {0x11bf0, 0x11bf9}, {0x11de0, 0x11de9},
    {0x11f50, 0x11f59}, {0x16130, 0x16139}, {0x16d70, 0x16d79}, {0x16ff4, 0x16ff6},
    {0x1ccf0, 0x1ccf9}, {0x1d2c0, 0x1d2d3}, {0x1e4f0, 0x1e4f9}, {0x1e5f1, 0x1e5fa},
    {0x897, 0x8e1}, {0xcf1, 0xcf3}, {0xec8, 0xece}, {0x1c80, 0x1c8a},
    {0xa78b, 0xa7cd}, {0xa7d5, 0xa7dc}, {0x105c0, 0x105f3}, {0x10d40, 0x10d65},
    {0x10d69, 0x10d6d}, {0x10d6f, 0x10d85}, {0x10ec2, 0x10ec4}, {0x10efc, 0x10f1c},
    {0x1123e, 0x11241}, {0x11380, 0x11389}, {0x1138b, 0x1138b}, {0x1138e, 0x1138e},
    {0x11390, 0x113b5}, {0x113b7, 0x113c0}, {0x113c2, 0x113c2}, {0x113c5, 0x113c5},
    {0x113c7, 0x113ca}, {0x113cc, 0x113d3}, {0x113e1, 0x113e2}, {0x116d0, 0x116e3},
    {0x11bc0, 0x11be0}, {0x11bf0, 0x11bf9}, {0x11f00, 0x11f10}, {0x11f12, 0x11f3a},
    {0x11f3e, 0x11f42}, {0x11f50, 0x11f5a}, {0x13000, 0x1342f}, {0x13440, 0x13455},
    {0x13460, 0x143fa}, {0x16100, 0x16139}, {0x16d40, 0x16d6c}, {0x16d70, 0x16d79},
    {0x18cff, 0x18d08}, {0x1b132, 0x1b132}, {0x1b155, 0x1b155}, {0x1ccf0, 0x1ccf9},
    {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d}, {0x1e08f, 0x1e08f}, {0x1e4d0, 0x1e4f9},
    {0x1e5d0, 0x1e5fa}, {0x2a700, 0x2b739}, {0x2ebf0, 0x2ee5d}, {0x31350, 0x323af},
    {0x897, 0x8e1}, {0xcf1, 0xcf3}, {0xec8, 0xece}, {0x1c80, 0x1c8a},
    {0xa78b, 0xa7cd}, {0xa7d5, 0xa7dc}, {0x105c0, 0x105f3}, {0x10d40, 0x10d65},
    {0x10d69, 0x10d6d}, {0x10d6f, 0x10d85}, {0x10ec2, 0x10ec4}, {0x10efc, 0x10f1c},
    {0x1123e, 0x11241}, {0x11380, 0x11389}, {0x1138b, 0x1138b}, {0x1138e, 0x1138e},
    {0x11390, 0x113b5}, {0x113b7, 0x113c0}, {0x113c2, 0x113c2}, {0x113c5, 0x113c5},
    {0x113c7, 0x113ca}, {0x113cc, 0x113d3}, {0x113e1, 0x113e2}, {0x116d0, 0x116e3},
    {0x11bc0, 0x11be0}, {0x11bf0, 0x11bf9}, {0x11f00, 0x11f10}, {0x11f12, 0x11f3a},
    {0x11f3e, 0x11f42}, {0x11f50, 0x11f5a}, {0x13000, 0x1342f}, {0x13440, 0x13455},
    {0x13460, 0x143fa}, {0x16100, 0x16139}, {0x16d40, 0x16d6c}, {0x16d70, 0x16d79},
    {0x18cff, 0x18d08}, {0x1b132, 0x1b132}, {0x1b155, 0x1b155}, {0x1ccf0, 0x1ccf9},
    {0x1df25, 0x1df2a}, {0x1e030, 0x1e06d}, {0x1e08f, 0x1e08f}, {0x1e4d0, 0x1e4f9},
    {0x1e5d0, 0x1e5fa}, {0x2a700, 0x2b739}, {0x2ebf0, 0x2ee5d}, {0x31350, 0x323af},
    {0x1b4e, 0x1b4f}, {0x1b74, 0x1b7f}, {0x2190, 0x2429}, {0x2ff0, 0x2fff},
    {0x31c0, 0x31e5}, {0x31ef, 0x31ef}, {0x10d6e, 0x10d6e}, {0x10d8e, 0x10d8f},
    {0x113d4, 0x113d5}, {0x113d7, 0x113d8}, {0x11b00, 0x11b09}, {0x11be1, 0x11be1},
    {0x11f43, 0x11f4f}, {0x16d6d, 0x16d6f}, {0x1cc00, 0x1ccef}, {0x1cd00, 0x1ceb3},
    {0x1e5ff, 0x1e5ff}, {0x1f6dc, 0x1f6ec}, {0x1f700, 0x1f776}, {0x1f77b, 0x1f7d9},
    {0x1f8b0, 0x1f8bb}, {0x1f8c0, 0x1f8c1}, {0x1fa70, 0x1fa7c}, {0x1fa80, 0x1fa89},
    {0x1fa8f, 0x1fac6}, {0x1face, 0x1fadc}, {0x1fadf, 0x1fae9}, {0x1faf0, 0x1faf8},
    {0x1fb94, 0x1fbef}, {0x1f6dc, 0x1f6e5}, {0x1fa70, 0x1fa7c}, {0x1fa80, 0x1fa89},
    {0x1fa8f, 0x1fac6}, {0x1face, 0x1fadc}, {0x1fadf, 0x1fae9}, {0x1faf0, 0x1faf8},
    {0x1f6dc, 0x1f6df}, {0x1fa70, 0x1fa7c}, {0x1fa80, 0x1fa89}, {0x1fa8f, 0x1fac6},
    {0x1face, 0x1fadc}, {0x1fadf, 0x1fae9}, {0x1faf0, 0x1faf8}, {0xa78b, 0xa7cd},
    {0xa7d5, 0xa7dc}, {0x1df25, 0x1df2a}, {0x1c80, 0x1c8a}, {0x1e030, 0x1e06d},
    {0x1e08f, 0x1e08f}, {0x2a700, 0x2b739}, {0x2ebf0, 0x2ee5d}, {0x31350, 0x323af},
    {0x1b132, 0x1b132}, {0x1b155, 0x1b155}, {0x897, 0x8e1}, {0x10ec2, 0x10ec4},
    {0x10efc, 0x10eff}, {0x11b00, 0x11b09}, {0x2190, 0x2429}, {0x2ff0, 0x3004},
    {0x31c0, 0x31e5}, {0x31ef, 0x31ef}, {0x1cc00, 0x1ccf9}, {0x1cd00, 0x1ceb3},
    {0x1d2c0, 0x1d2d3}, {0x1f6dc, 0x1f6ec}, {0x1f700, 0x1f776}, {0x1f77b, 0x1f7d9},
    {0x1f8b0, 0x1f8bb}, {0x1f8c0, 0x1f8c1}, {0x1fa70, 0x1fa7c}, {0x1fa80, 0x1fa89},
    {0x1fa8f, 0x1fac6}, {0x1face, 0x1fadc}, {0x1fadf, 0x1fae9}, {0x1faf0, 0x1faf8},
    {0x1fb94, 0x1fbf9}, {0xcf1, 0xcf3}, {0xec8, 0xece}, {0x116d0, 0x116e3},
};

static const uprop uni_props[] = {
    {"@bertpunct", "\\x{21}-\\x{2f}\\x{3a}-\\x{40}\\x{5b}-\\x{60}\\x{7b}-\\x{7e}\\p{P}", 716, 2, 718, 30, 0},
    {"@d", "\\p{Nd}", 386, 9, 395, 0, 1},
    {"@h", "", 446, 3, 449, 0, 0},
    {"@punctc", "\\p{P}\\p{S}", 856, 29, 885, 0, 1},
    {"@rustnum", "\\p{N}", 748, 12, 760, 0, 1},
    {"@s", "", 376, 10, 386, 0, 0},
    {"@w", "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}", 395, 51, 446, 0, 0},
    {"@wc", "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}", 760, 48, 808, 0, 1},
    {"@wordc", "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}", 808, 48, 856, 0, 1},
    {"alnum", "\\p{Alphabetic}\\p{Nd}", 645, 56, 701, 0, 0},
    {"alpha", "\\p{Alphabetic}", 449, 49, 498, 0, 0},
    {"alphabetic", "\\p{Alphabetic}", 498, 49, 547, 0, 0},
    {"any", "", 705, 1, 706, 0, 0},
    {"arabic", "\\p{sc:Arabic}", 910, 3, 913, 0, 1},
    {"armenian", "\\p{sc:Armenian}", 933, 0, 933, 0, 0},
    {"ascii", "", 704, 1, 705, 0, 0},
    {"bengali", "\\p{sc:Bengali}", 933, 0, 933, 0, 0},
    {"blank", "\\t\\p{Zs}", 705, 0, 705, 0, 0},
    {"bopomofo", "\\p{sc:Bopomofo}", 936, 0, 936, 0, 0},
    {"c", "\\p{C}", 0, 0, 0, 75, 0},
    {"casedletter", "\\p{LC}", 186, 6, 192, 0, 1},
    {"cc", "\\p{Cc}", 75, 0, 75, 0, 0},
    {"cf", "\\p{Cf}", 75, 1, 76, 0, 1},
    {"cherokee", "\\p{sc:Cherokee}", 936, 0, 936, 0, 0},
    {"closepunctuation", "\\p{Pe}", 329, 0, 329, 0, 0},
    {"cn", "\\p{Cn}", 76, 0, 76, 75, 0},
    {"cntrl", "\\p{Cc}", 705, 0, 705, 0, 0},
    {"co", "\\p{Co}", 151, 0, 151, 0, 0},
    {"combiningmark", "\\p{M}", 238, 24, 262, 0, 1},
    {"common", "\\p{sc:Common}", 914, 19, 933, 0, 1},
    {"connectorpunctuation", "\\p{Pc}", 328, 0, 328, 0, 0},
    {"control", "\\p{Cc}", 75, 0, 75, 0, 0},
    {"currencysymbol", "\\p{Sc}", 357, 0, 357, 0, 0},
    {"cyrillic", "\\p{sc:Cyrillic}", 902, 3, 905, 0, 1},
    {"dashpunctuation", "\\p{Pd}", 328, 1, 329, 0, 1},
    {"decimalnumber", "\\p{Nd}", 308, 9, 317, 0, 1},
    {"devanagari", "\\p{sc:Devanagari}", 913, 1, 914, 0, 1},
    {"digit", "\\p{Nd}", 547, 9, 556, 0, 1},
    {"emoji", "\\p{Emoji}", 885, 7, 892, 0, 1},
    {"emojipresentation", "\\p{Emoji_Presentation}", 892, 7, 899, 0, 1},
    {"enclosingmark", "\\p{Me}", 275, 0, 275, 0, 0},
    {"ethiopic", "\\p{sc:Ethiopic}", 936, 0, 936, 0, 0},
    {"extendedpictographic", "\\p{Extended_Pictographic}", 899, 0, 899, 0, 0},
    {"finalpunctuation", "\\p{Pf}", 329, 0, 329, 0, 0},
    {"format", "\\p{Cf}", 75, 1, 76, 0, 1},
    {"georgian", "\\p{sc:Georgian}", 936, 0, 936, 0, 0},
    {"greek", "\\p{sc:Greek}", 902, 0, 902, 0, 0},
    {"gujarati", "\\p{sc:Gujarati}", 933, 0, 933, 0, 0},
    {"gurmukhi", "\\p{sc:Gurmukhi}", 933, 0, 933, 0, 0},
    {"han", "\\p{sc:Han}", 905, 3, 908, 0, 1},
    {"hangul", "\\p{sc:Hangul}", 910, 0, 910, 0, 0},
    {"hebrew", "\\p{sc:Hebrew}", 913, 0, 913, 0, 0},
    {"hiragana", "\\p{sc:Hiragana}", 908, 1, 909, 0, 1},
    {"inherited", "\\p{sc:Inherited}", 933, 0, 933, 0, 0},
    {"initialpunctuation", "\\p{Pi}", 329, 0, 329, 0, 0},
    {"kannada", "\\p{sc:Kannada}", 933, 1, 934, 0, 1},
    {"katakana", "\\p{sc:Katakana}", 909, 1, 910, 0, 1},
    {"khmer", "\\p{sc:Khmer}", 936, 0, 936, 0, 0},
    {"l", "\\p{L}", 151, 35, 186, 0, 1},
    {"lao", "\\p{sc:Lao}", 934, 1, 935, 0, 1},
    {"latin", "\\p{sc:Latin}", 899, 3, 902, 0, 1},
    {"lc", "\\p{LC}", 186, 6, 192, 0, 1},
    {"letter", "\\p{L}", 151, 35, 186, 0, 1},
    {"letternumber", "\\p{Nl}", 317, 0, 317, 0, 0},
    {"lineseparator", "\\p{Zl}", 376, 0, 376, 0, 0},
    {"ll", "\\p{Ll}", 192, 5, 197, 0, 1},
    {"lm", "\\p{Lm}", 197, 6, 203, 0, 1},
    {"lo", "\\p{Lo}", 203, 30, 233, 0, 1},
    {"lower", "\\p{Lowercase}", 627, 9, 636, 0, 0},
    {"lowercase", "\\p{Lowercase}", 636, 9, 645, 0, 0},
    {"lowercaseletter", "\\p{Ll}", 192, 5, 197, 0, 1},
    {"lt", "\\p{Lt}", 233, 0, 233, 0, 0},
    {"lu", "\\p{Lu}", 233, 5, 238, 0, 1},
    {"m", "\\p{M}", 238, 24, 262, 0, 1},
    {"malayalam", "\\p{sc:Malayalam}", 934, 0, 934, 0, 0},
    {"mark", "\\p{M}", 238, 24, 262, 0, 1},
    {"mathsymbol", "\\p{Sm}", 357, 1, 358, 0, 1},
    {"mc", "\\p{Mc}", 262, 13, 275, 0, 0},
    {"me", "\\p{Me}", 275, 0, 275, 0, 0},
    {"mn", "\\p{Mn}", 275, 22, 297, 1, 1},
    {"modifierletter", "\\p{Lm}", 197, 6, 203, 0, 1},
    {"modifiersymbol", "\\p{Sk}", 357, 0, 357, 0, 0},
    {"mongolian", "\\p{sc:Mongolian}", 936, 0, 936, 0, 0},
    {"myanmar", "\\p{sc:Myanmar}", 935, 1, 936, 0, 1},
    {"n", "\\p{N}", 298, 10, 308, 0, 1},
    {"nd", "\\p{Nd}", 308, 9, 317, 0, 1},
    {"nl", "\\p{Nl}", 317, 0, 317, 0, 0},
    {"no", "\\p{No}", 317, 1, 318, 0, 1},
    {"nonspacingmark", "\\p{Mn}", 275, 22, 297, 1, 1},
    {"number", "\\p{N}", 298, 10, 308, 0, 1},
    {"openpunctuation", "\\p{Ps}", 338, 0, 338, 0, 0},
    {"oriya", "\\p{sc:Oriya}", 933, 0, 933, 0, 0},
    {"other", "\\p{C}", 0, 0, 0, 75, 0},
    {"otherletter", "\\p{Lo}", 203, 30, 233, 0, 1},
    {"othernumber", "\\p{No}", 317, 1, 318, 0, 1},
    {"otherpunctuation", "\\p{Po}", 329, 9, 338, 0, 1},
    {"othersymbol", "\\p{So}", 358, 18, 376, 0, 1},
    {"p", "\\p{P}", 318, 10, 328, 0, 1},
    {"paragraphseparator", "\\p{Zp}", 376, 0, 376, 0, 0},
    {"pc", "\\p{Pc}", 328, 0, 328, 0, 0},
    {"pd", "\\p{Pd}", 328, 1, 329, 0, 1},
    {"pe", "\\p{Pe}", 329, 0, 329, 0, 0},
    {"pf", "\\p{Pf}", 329, 0, 329, 0, 0},
    {"pi", "\\p{Pi}", 329, 0, 329, 0, 0},
    {"po", "\\p{Po}", 329, 9, 338, 0, 1},
    {"privateuse", "\\p{Co}", 151, 0, 151, 0, 0},
    {"ps", "\\p{Ps}", 338, 0, 338, 0, 0},
    {"punct", "\\p{P}", 706, 10, 716, 0, 1},
    {"punctuation", "\\p{P}", 318, 10, 328, 0, 1},
    {"s", "\\p{S}", 338, 19, 357, 0, 1},
    {"sc", "\\p{Sc}", 357, 0, 357, 0, 0},
    {"separator", "\\p{Z}", 376, 0, 376, 0, 0},
    {"sinhala", "\\p{sc:Sinhala}", 934, 0, 934, 0, 0},
    {"sk", "\\p{Sk}", 357, 0, 357, 0, 0},
    {"sm", "\\p{Sm}", 357, 1, 358, 0, 1},
    {"so", "\\p{So}", 358, 18, 376, 0, 1},
    {"space", "", 556, 10, 566, 0, 0},
    {"spaceseparator", "\\p{Zs}", 376, 0, 376, 0, 0},
    {"spacingmark", "\\p{Mc}", 262, 13, 275, 0, 0},
    {"symbol", "\\p{S}", 338, 19, 357, 0, 1},
    {"syriac", "\\p{sc:Syriac}", 933, 0, 933, 0, 0},
    {"tamil", "\\p{sc:Tamil}", 933, 0, 933, 0, 0},
    {"telugu", "\\p{sc:Telugu}", 933, 0, 933, 0, 0},
    {"thaana", "\\p{sc:Thaana}", 933, 0, 933, 0, 0},
    {"thai", "\\p{sc:Thai}", 913, 0, 913, 0, 0},
    {"tibetan", "\\p{sc:Tibetan}", 935, 0, 935, 0, 0},
    {"titlecaseletter", "\\p{Lt}", 233, 0, 233, 0, 0},
    {"unassigned", "\\p{Cn}", 76, 0, 76, 75, 0},
    {"upper", "\\p{Uppercase}", 617, 5, 622, 0, 1},
    {"uppercase", "\\p{Uppercase}", 622, 5, 627, 0, 1},
    {"uppercaseletter", "\\p{Lu}", 233, 5, 238, 0, 1},
    {"whitespace", "", 556, 10, 566, 0, 0},
    {"word", "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}", 566, 51, 617, 0, 0},
    {"xdigit", "", 701, 3, 704, 0, 0},
    {"yi", "\\p{sc:Yi}", 936, 0, 936, 0, 0},
    {"z", "\\p{Z}", 376, 0, 376, 0, 0},
    {"zl", "\\p{Zl}", 376, 0, 376, 0, 0},
    {"zp", "\\p{Zp}", 376, 0, 376, 0, 0},
    {"zs", "\\p{Zs}", 376, 0, 376, 0, 0},
};

static int uprop_cmp(const char *name, const uprop *p) { return strcmp(name, p->name); }

static const uprop *uprop_find(const char *name)
{
    iz lo = 0, hi = countof(uni_props);
    while (lo < hi) {
        iz mid = lo + (hi - lo) / 2;
        int c = uprop_cmp(name, &uni_props[mid]);
        if (c == 0)
            return &uni_props[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ---- translation: Oniguruma (Ruby syntax) -> PCRE2 ---------------------- */

typedef struct {
    const uprop *p;
    bool         neg;
} cterm;

/* A character class under construction: a union of terms and explicit
 * ranges, negated as a whole when `neg`. */
typedef struct {
    bool  neg;
    cterm t[TOK_RE_MAX_TERMS];
    int   nt;
    u32  (*r)[2];
    iz    nr, cap;
} cset;

typedef struct {
    iz   out_start;     /* where the group starts in the output */
    bool dotall;        /* the (?m) state outside the group */
    bool opt_only;      /* opened by (?i) etc. without ':'; closes with its parent */
} xgroup;

typedef struct {
    const u8 *src;
    iz        len, i;
    buf       out;
    err      *e;
    int       code;         /* first error, ERR_OK while fine */
    bool      dotall;       /* Ruby's (?m): '.' matches '\n' */
    iz        atom;         /* output offset of the last quantifiable atom, or -1 */
    xgroup    g[TOK_RE_MAX_NEST];
    int       ng;
    cset      cls;          /* the class being parsed (one at a time) */
    bool      plain;        /* leave the gated additions out (see tok_regex) */
    bool      gated;        /* a gate was written */
} xlat;

PRINTF_LIKE(3, 4)
static int fail(xlat *x, int code, const char *fmt, ...)
{
    if (x->code)
        return x->code;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    x->code = code;
    err_set(x->e, code, -1, "regex /%.*s/ at offset %td: %s",
            (int)MIN(x->len, 120), (const char *)x->src, x->i, msg);
    return code;
}

static void put(xlat *x, const char *s) { buf_cstr(&x->out, s); }

static void put_cp(xlat *x, u32 c)
{
    buf_printf(&x->out, "\\x{%x}", (unsigned)c);
}

static void put_ranges(xlat *x, const u32 (*r)[2], iz n)
{
    for (iz k = 0; k < n; k++) {
        put_cp(x, r[k][0]);
        if (r[k][1] != r[k][0]) {
            buf_byte(&x->out, '-');
            put_cp(x, r[k][1]);
        }
    }
}

/* The items of a term's set (base and additions), for inside [...]. */
static void put_term_items(xlat *x, const uprop *p)
{
    put(x, p->pcre);
    put_ranges(x, uni_ranges + p->add, p->nadd);
}

static void put_term_subs(xlat *x, const uprop *p)
{
    buf_byte(&x->out, '[');
    put_ranges(x, uni_ranges + p->sub, p->nsub);
    buf_byte(&x->out, ']');
}

static bool cset_add_range(xlat *x, cset *c, u32 lo, u32 hi)
{
    if (c->nr == c->cap) {
        iz cap = c->cap ? 2 * c->cap : 16;
        void *q = realloc(c->r, (size_t)cap * sizeof(*c->r));
        if (!q) {
            fail(x, ERR_NOMEM, "out of memory");
            return false;
        }
        c->r = q;
        c->cap = cap;
    }
    c->r[c->nr][0] = lo;
    c->r[c->nr][1] = hi;
    c->nr++;
    return true;
}

static bool cset_add_term(xlat *x, cset *c, const uprop *p, bool neg)
{
    if (c->nt == TOK_RE_MAX_TERMS) {
        fail(x, ERR_LIMIT, "more than %d escapes in one character class", TOK_RE_MAX_TERMS);
        return false;
    }
    c->t[c->nt++] = (cterm){p, neg};
    return true;
}

/* The items of a union of positive terms for inside [...]: without or with
 * the gated additions. */
static void put_union(xlat *x, const cset *c, bool gated)
{
    for (int k = 0; k < c->nt; k++) {
        const uprop *p = c->t[k].p;
        put(x, p->pcre);
        if (!p->gate || gated)
            put_ranges(x, uni_ranges + p->add, p->nadd);
    }
    put_ranges(x, (const u32 (*)[2])c->r, c->nr);
}

enum { TOK_RE_GATE_MIN = 4 };   /* gated ranges that make a gate worth it */

/* Writes the class as PCRE2. The common shapes (a union of positive sets,
 * possibly negated; one negated set) become one PCRE2 class, or two behind
 * a \p{Cn} gate; the rest (negated sets in a union, sets with removals)
 * become an alternation of classes with lookaheads, which matches the same
 * single code point. */
static void emit_cset(xlat *x, const cset *c)
{
    int npos_plain = 0, nneg = 0, nsub = 0;
    for (int k = 0; k < c->nt; k++) {
        if (c->t[k].p->nsub)
            nsub++;
        if (c->t[k].neg)
            nneg++;
        else if (!c->t[k].p->nsub)
            npos_plain++;
    }
    bool single_neg = c->nt == 1 && nneg == 1 && nsub == 0 && c->nr == 0;
    if ((nneg == 0 && nsub == 0) || single_neg) {
        /* [^\P{X}] is [\p{X}] and [\P{X}] is [^\p{X}]. */
        bool neg = single_neg ? !c->neg : c->neg;
        iz ngated = 0;
        for (int k = 0; k < c->nt; k++)
            if (c->t[k].p->gate)
                ngated += c->t[k].p->nadd;
        if (ngated < TOK_RE_GATE_MIN) {
            put(x, neg ? "[^" : "[");
            put_union(x, c, true);
            put(x, "]");
        } else if (x->plain) {
            /* For subjects without any gated code point, the additions
             * can never match: the class is the base alone. */
            put(x, neg ? "[^" : "[");
            put_union(x, c, false);
            put(x, "]");
            x->gated = true;
        } else if (!neg) {
            x->gated = true;
            put(x, "(?:[");
            put_union(x, c, false);
            put(x, "]|(?=\\p{Cn})[");
            for (int k = 0; k < c->nt; k++)
                if (c->t[k].p->gate)
                    put_ranges(x, uni_ranges + c->t[k].p->add, c->t[k].p->nadd);
            put(x, "])");
        } else {
            x->gated = true;
            put(x, "(?:(?!\\p{Cn})[^");
            put_union(x, c, false);
            put(x, "]|(?=\\p{Cn})[^");
            put_union(x, c, true);
            put(x, "])");
        }
        return;
    }
    put(x, c->neg ? "(?:(?!" : "");
    put(x, "(?:");
    bool first = true;
    if (npos_plain || c->nr) {
        put(x, "[");
        for (int k = 0; k < c->nt; k++)
            if (!c->t[k].neg && !c->t[k].p->nsub)
                put_term_items(x, c->t[k].p);
        put_ranges(x, (const u32 (*)[2])c->r, c->nr);
        put(x, "]");
        first = false;
    }
    for (int k = 0; k < c->nt; k++) {
        const uprop *p = c->t[k].p;
        if (!c->t[k].neg && !p->nsub)
            continue;
        if (!first)
            put(x, "|");
        first = false;
        if (!c->t[k].neg) {
            /* (base + adds) - subs */
            put(x, "(?!");
            put_term_subs(x, p);
            put(x, ")[");
            put_term_items(x, p);
            put(x, "]");
        } else {
            /* not ((base + adds) - subs) = not (base + adds), or subs */
            put(x, "[^");
            put_term_items(x, p);
            put(x, "]");
            if (p->nsub) {
                put(x, "|");
                put_term_subs(x, p);
            }
        }
    }
    put(x, ")");
    if (c->neg)
        put(x, ")(?s:.))");
}

static bool is_hex(u8 c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }
static u32 hex_val(u8 c) { return c <= '9' ? (u32)(c - '0') : (u32)((c | 0x20) - 'a' + 10); }

/* Looks a property up by its Oniguruma name. Inside a character class
 * Oniguruma's word set lacks U+00B2, U+00B3, U+00B9, U+00BC..U+00BE (its
 * Latin-1 bitmap for classes is built differently), and the POSIX bracket
 * [:punct:] is P and S, where \p{Punct} is P alone: those get their own
 * entries ("@..." names; pretok.c also uses "@bertpunct" and "@rustnum",
 * the sets of the crate's is_punc and of Rust's char::is_numeric). */
static const uprop *prop_by_name(xlat *x, const u8 *name, iz n, bool in_class, bool posix)
{
    static const char *const posix_names[] = {
        "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "lower",
        "punct", "space", "upper", "xdigit", "word",
    };
    char norm[64];
    iz k = 0;
    for (iz j = 0; j < n; j++) {
        u8 c = name[j];
        if (c == ' ' || c == '_' || c == '-')
            continue;
        if (c >= 0x80 || k == countof(norm) - 1) {
            k = -1;
            break;
        }
        norm[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    const uprop *p = NULL;
    if (k > 0) {
        norm[k] = 0;
        bool ok = !posix;
        for (int i = 0; posix && i < countof(posix_names); i++)
            ok |= strcmp(norm, posix_names[i]) == 0;
        if (ok && (posix || in_class) && strcmp(norm, "word") == 0)
            p = uprop_find("@wordc");
        else if (ok && posix && strcmp(norm, "punct") == 0)
            p = uprop_find("@punctc");
        else if (ok)
            p = uprop_find(norm);
    }
    if (!p)
        fail(x, ERR_UNSUPPORTED, "unsupported character property %s%.*s%s", posix ? "[:" : "{",
             (int)MIN(n, 60), (const char *)name, posix ? ":]" : "}");
    return p;
}

enum { ESC_CHAR = 1, ESC_SET = 2, ESC_OTHER = 3 };

/* Parses the escape whose letter is at x->i (after the backslash).
 * Returns ESC_CHAR with *cp, ESC_SET with *p and *neg, ESC_OTHER (cursor left
 * on the letter) for what only the caller knows, or 0 on error. */
static int parse_escape(xlat *x, bool in_class, u32 *cp, const uprop **p, bool *neg)
{
    if (x->i >= x->len) {
        fail(x, ERR_SYNTAX, "end pattern at escape");
        return 0;
    }
    u8 c = x->src[x->i];
    const char *set = NULL;
    *neg = false;
    switch (c) {
    case 't': *cp = 9; x->i++; return ESC_CHAR;
    case 'n': *cp = 10; x->i++; return ESC_CHAR;
    case 'r': *cp = 13; x->i++; return ESC_CHAR;
    case 'f': *cp = 12; x->i++; return ESC_CHAR;
    case 'v': *cp = 11; x->i++; return ESC_CHAR;
    case 'a': *cp = 7; x->i++; return ESC_CHAR;
    case 'e': *cp = 27; x->i++; return ESC_CHAR;
    case 's': case 'S': set = "@s"; break;
    case 'd': case 'D': set = "@d"; break;
    case 'w': case 'W': set = in_class ? "@wc" : "@w"; break;
    case 'h': case 'H': set = "@h"; break;
    case 'b':
        if (in_class) {
            *cp = 8;
            x->i++;
            return ESC_CHAR;
        }
        return ESC_OTHER;
    case 'x': {
        x->i++;
        u32 v = 0;
        if (x->i < x->len && x->src[x->i] == '{') {
            iz j = x->i + 1, nd = 0;
            while (j < x->len && is_hex(x->src[j]) && nd < 8) {
                v = v * 16 + hex_val(x->src[j]);
                j++;
                nd++;
            }
            if (j >= x->len || x->src[j] != '}' || nd == 0) {
                fail(x, ERR_SYNTAX, "invalid code point value");
                return 0;
            }
            x->i = j + 1;
        } else {
            int nd = 0;
            while (x->i < x->len && is_hex(x->src[x->i]) && nd < 2) {
                v = v * 16 + hex_val(x->src[x->i]);
                x->i++;
                nd++;
            }
            if (v >= 0x80) {
                /* A raw byte, not a code point, in Oniguruma's UTF-8. */
                fail(x, ERR_UNSUPPORTED, "byte escape \\x%02x above 0x7f", (unsigned)v);
                return 0;
            }
        }
        if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
            fail(x, ERR_SYNTAX, "invalid code point value");
            return 0;
        }
        *cp = v;
        return ESC_CHAR;
    }
    case 'u': {
        if (x->len - x->i < 5) {
            fail(x, ERR_SYNTAX, "too short \\u escape");
            return 0;
        }
        u32 v = 0;
        for (int k = 1; k <= 4; k++) {
            if (!is_hex(x->src[x->i + k])) {
                fail(x, ERR_SYNTAX, "invalid \\u escape");
                return 0;
            }
            v = v * 16 + hex_val(x->src[x->i + k]);
        }
        if (v >= 0xd800 && v <= 0xdfff) {
            fail(x, ERR_UNSUPPORTED, "surrogate \\u escape");
            return 0;
        }
        x->i += 5;
        *cp = v;
        return ESC_CHAR;
    }
    case 'o':
        if (x->i + 1 < x->len && x->src[x->i + 1] == '{') {
            iz j = x->i + 2;
            u32 v = 0;
            int nd = 0;
            while (j < x->len && x->src[j] >= '0' && x->src[j] <= '7' && nd < 11) {
                v = v * 8 + (u32)(x->src[j] - '0');
                j++;
                nd++;
            }
            if (j >= x->len || x->src[j] != '}' || nd == 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
                fail(x, ERR_SYNTAX, "invalid code point value");
                return 0;
            }
            x->i = j + 1;
            *cp = v;
            return ESC_CHAR;
        }
        *cp = 'o';
        x->i++;
        return ESC_CHAR;
    case 'p': case 'P': {
        if (x->i + 1 >= x->len || x->src[x->i + 1] != '{') {
            /* Oniguruma reads a \p without braces as the letter. */
            *cp = c;
            x->i++;
            return ESC_CHAR;
        }
        iz j = x->i + 2;
        bool n = c == 'P';
        if (j < x->len && x->src[j] == '^') {
            n = !n;
            j++;
        }
        iz b = j;
        while (j < x->len && x->src[j] != '}')
            j++;
        if (j >= x->len) {
            fail(x, ERR_SYNTAX, "invalid character property name");
            return 0;
        }
        *p = prop_by_name(x, x->src + b, j - b, in_class, false);
        if (!*p)
            return 0;
        *neg = n;
        x->i = j + 1;
        return ESC_SET;
    }
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        if (!in_class && c != '0')
            return ESC_OTHER;   /* a back reference */
        u32 v = 0;
        int nd = 0;
        while (x->i < x->len && x->src[x->i] >= '0' && x->src[x->i] <= '7' && nd < 3) {
            v = v * 8 + (u32)(x->src[x->i] - '0');
            x->i++;
            nd++;
        }
        if (v >= 0x80) {
            fail(x, ERR_UNSUPPORTED, "byte escape above 0x7f");
            return 0;
        }
        *cp = v;
        return ESC_CHAR;
    }
    case 'c': case 'C': case 'M':
        fail(x, ERR_UNSUPPORTED, "control/meta escape \\%c", c);
        return 0;
    default:
        break;
    }
    if (set) {
        *p = uprop_find(set);
        *neg = c >= 'A' && c <= 'Z';
        x->i++;
        return ESC_SET;
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '8' && c <= '9')) {
        if (!in_class)
            return ESC_OTHER;
        *cp = c;
        x->i++;
        return ESC_CHAR;
    }
    /* Any other character escapes itself. */
    iz k = x->i;
    if (c >= 0x80) {
        *cp = utf8_next(x->src, &k);
    } else {
        *cp = c;
        k++;
    }
    x->i = k;
    return ESC_CHAR;
}

/* Reads one class element: a character (ESC_CHAR) or a set (ESC_SET). */
static int class_elem(xlat *x, u32 *cp, const uprop **p, bool *neg)
{
    u8 c = x->src[x->i];
    if (c == '\\') {
        x->i++;
        int k = parse_escape(x, true, cp, p, neg);
        if (k == ESC_OTHER)
            k = 0;
        return k;
    }
    if (c == '[') {
        if (x->i + 1 < x->len && x->src[x->i + 1] == ':') {
            iz j = x->i + 2;
            bool n = false;
            if (j < x->len && x->src[j] == '^') {
                n = true;
                j++;
            }
            iz b = j;
            while (j + 1 < x->len && !(x->src[j] == ':' && x->src[j + 1] == ']') && x->src[j] != ']')
                j++;
            if (j + 1 < x->len && x->src[j] == ':' && x->src[j + 1] == ']') {
                *p = prop_by_name(x, x->src + b, j - b, true, true);
                if (!*p)
                    return 0;
                *neg = n;
                x->i = j + 2;
                return ESC_SET;
            }
        }
        fail(x, ERR_UNSUPPORTED, "nested character class");
        return 0;
    }
    if (c == '&' && x->i + 1 < x->len && x->src[x->i + 1] == '&') {
        fail(x, ERR_UNSUPPORTED, "character class intersection &&");
        return 0;
    }
    iz k = x->i;
    *cp = c < 0x80 ? (k++, c) : utf8_next(x->src, &k);
    x->i = k;
    return ESC_CHAR;
}

/* class := '[' '^'? item+ ']' ; item := elem | elem '-' elem */
static bool parse_class(xlat *x)
{
    cset *c = &x->cls;
    c->neg = false;
    c->nt = 0;
    c->nr = 0;
    x->i++;   /* '[' */
    if (x->i < x->len && x->src[x->i] == '^') {
        c->neg = true;
        x->i++;
    }
    bool first = true;
    for (;;) {
        if (x->i >= x->len) {
            fail(x, ERR_SYNTAX, "premature end of char-class");
            return false;
        }
        if (x->src[x->i] == ']' && !first) {
            x->i++;
            break;
        }
        first = false;
        u32 lo, hi;
        const uprop *p = NULL;
        bool neg;
        int k = class_elem(x, &lo, &p, &neg);
        if (!k)
            return false;
        bool range = x->i + 1 < x->len && x->src[x->i] == '-' && x->src[x->i + 1] != ']';
        if (k == ESC_SET) {
            if (range) {
                fail(x, ERR_SYNTAX, "unmatched range specifier in char-class");
                return false;
            }
            if (!cset_add_term(x, c, p, neg))
                return false;
            continue;
        }
        hi = lo;
        if (range) {
            x->i++;
            k = class_elem(x, &hi, &p, &neg);
            if (!k)
                return false;
            if (k == ESC_SET) {
                fail(x, ERR_SYNTAX, "unmatched range specifier in char-class");
                return false;
            }
            if (hi < lo) {
                fail(x, ERR_SYNTAX, "empty range in char class");
                return false;
            }
        }
        if (!cset_add_range(x, c, lo, hi))
            return false;
    }
    return true;
}

static void emit_set(xlat *x, const uprop *p, bool neg)
{
    cset c = {0};
    c.nt = 1;
    c.t[0] = (cterm){p, neg};
    emit_cset(x, &c);
}

static void emit_literal(xlat *x, u32 c)
{
    if ((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) {
        buf_byte(&x->out, (u8)c);
    } else if (c >= 0x80) {
        u8 b[4];
        buf_put(&x->out, b, utf8_encode(c, b));
    } else {
        put_cp(x, c);
    }
}

/* Oniguruma's word boundary, with its own \w. */
static void emit_boundary(xlat *x, bool at)
{
    const uprop *w = uprop_find("@w");
    put(x, "(?:(?<=");
    emit_set(x, w, false);
    put(x, at ? ")(?!" : ")(?=");
    emit_set(x, w, false);
    put(x, ")|(?<!");
    emit_set(x, w, false);
    put(x, at ? ")(?=" : ")(?!");
    emit_set(x, w, false);
    put(x, "))");
}

static void wrap_atom(xlat *x)
{
    /* Inserts "(?:" before the last atom (Ruby reads `a{1,2}+` as
     * `(?:a{1,2})+` and `a{2}?` as `(?:a{2})?`). */
    const char *open = "(?:";
    if (!buf_reserve(&x->out, 3))
        return;
    memmove(x->out.data + x->atom + 3, x->out.data + x->atom, (size_t)(x->out.len - x->atom));
    memcpy(x->out.data + x->atom, open, 3);
    x->out.len += 3;
    put(x, ")");
}

static bool parse_int(xlat *x, iz *j, iz *v)
{
    iz n = 0, k = *j;
    while (k < x->len && x->src[k] >= '0' && x->src[k] <= '9') {
        if (n <= TOK_RE_MAX_REPEAT * 10)
            n = n * 10 + (x->src[k] - '0');
        k++;
    }
    if (k == *j)
        return false;
    *v = n;
    *j = k;
    return true;
}

/* Tries a quantifier at x->i. Returns 1 when one was emitted, 0 when the
 * text there is not a quantifier, -1 on error. */
static int parse_quant(xlat *x)
{
    u8 c = x->src[x->i];
    if (c == '*' || c == '+' || c == '?') {
        if (x->atom < 0)
            return fail(x, ERR_SYNTAX, "target of repeat operator is not specified"), -1;
        buf_byte(&x->out, c);
        x->i++;
        if (x->i < x->len && (x->src[x->i] == '?' || x->src[x->i] == '+'))
            buf_byte(&x->out, x->src[x->i++]);
    } else if (c == '{') {
        /* {n} {n,} {,m} {n,m}; anything else is a literal '{'. */
        iz j = x->i + 1, lo = -1, hi = -1;
        bool has_lo = parse_int(x, &j, &lo), comma = false;
        if (j < x->len && x->src[j] == ',') {
            comma = true;
            j++;
            parse_int(x, &j, &hi);
        }
        if (j >= x->len || x->src[j] != '}' || (!has_lo && hi < 0))
            return 0;
        if (x->atom < 0)
            return fail(x, ERR_SYNTAX, "target of repeat operator is not specified"), -1;
        if (!has_lo)
            lo = 0;
        if (lo > TOK_RE_MAX_REPEAT || hi > TOK_RE_MAX_REPEAT)
            return fail(x, ERR_UNSUPPORTED, "repeat count above %d", TOK_RE_MAX_REPEAT), -1;
        if (hi >= 0 && hi < lo)
            return fail(x, ERR_SYNTAX, "upper bound below lower bound in repeat range"), -1;
        x->i = j + 1;
        if (!comma)
            buf_printf(&x->out, "{%td}", lo);
        else if (hi < 0)
            buf_printf(&x->out, "{%td,}", lo);
        else
            buf_printf(&x->out, "{%td,%td}", lo, hi);
        if (x->i < x->len && x->src[x->i] == '?') {
            x->i++;
            if (!comma) {
                wrap_atom(x);
                buf_byte(&x->out, '?');
            } else {
                buf_byte(&x->out, '?');
            }
        } else if (x->i < x->len && x->src[x->i] == '+') {
            x->i++;
            wrap_atom(x);
            buf_byte(&x->out, '+');
        }
    } else {
        return 0;
    }
    /* A quantifier on a quantifier is a different operator in Ruby. */
    if (x->i < x->len) {
        u8 d = x->src[x->i];
        iz save = x->i;
        bool more = d == '*' || d == '+' || d == '?';
        if (d == '{') {
            iz j = x->i + 1, v;
            bool a = parse_int(x, &j, &v);
            if (j < x->len && x->src[j] == ',') {
                j++;
                a = parse_int(x, &j, &v) || a;
            }
            more = a && j < x->len && x->src[j] == '}';
        }
        x->i = save;
        if (more)
            return fail(x, ERR_UNSUPPORTED, "nested repeat operator"), -1;
    }
    return 1;
}

static bool push_group(xlat *x, bool opt_only)
{
    if (x->ng == TOK_RE_MAX_NEST) {
        fail(x, ERR_LIMIT, "groups nested deeper than %d", TOK_RE_MAX_NEST);
        return false;
    }
    x->g[x->ng++] = (xgroup){x->out.len, x->dotall, opt_only};
    return true;
}

/* Closes the option-only groups at the top of the stack. */
static void close_opt_groups(xlat *x)
{
    while (x->ng > 0 && x->g[x->ng - 1].opt_only) {
        x->ng--;
        x->dotall = x->g[x->ng].dotall;
        put(x, ")");
    }
}

/* group := '(' ( '?:' | '?=' | '?!' | '?<=' | '?<!' | '?>' | '?<name>'
 *               | '?' flags ( ':' | ')' ) | '?#' ... ')' )? */
static bool parse_group_open(xlat *x)
{
    iz at = x->i;
    x->i++;
    if (x->i >= x->len || x->src[x->i] != '?') {
        if (!push_group(x, false))
            return false;
        put(x, "(");
        return true;
    }
    x->i++;
    if (x->i >= x->len)
        return fail(x, ERR_SYNTAX, "end pattern in group"), false;
    u8 c = x->src[x->i];
    const u8 *s = x->src + x->i;
    iz left = x->len - x->i;
    if (c == ':' || c == '=' || c == '!' || c == '>') {
        x->i++;
        if (!push_group(x, false))
            return false;
        buf_put(&x->out, "(?", 2);
        buf_byte(&x->out, c);
        return true;
    }
    if (c == '<' && left >= 2 && (s[1] == '=' || s[1] == '!')) {
        x->i += 2;
        if (!push_group(x, false))
            return false;
        buf_put(&x->out, "(?<", 3);
        buf_byte(&x->out, s[1]);
        return true;
    }
    if (c == '<' || c == '\'') {
        u8 close = c == '<' ? '>' : '\'';
        iz j = 1;
        while (j < left && s[j] != close) {
            u8 d = s[j];
            if (!((d >= '0' && d <= '9' && j > 1) || ((d | 0x20) >= 'a' && (d | 0x20) <= 'z') || d == '_'))
                return fail(x, ERR_UNSUPPORTED, "group name"), false;
            j++;
        }
        if (j >= left || j == 1)
            return fail(x, ERR_SYNTAX, "invalid group name"), false;
        if (!push_group(x, false))
            return false;
        put(x, "(?<");
        buf_put(&x->out, s + 1, j - 1);
        put(x, ">");
        x->i += j + 1;
        return true;
    }
    if (c == '#') {
        while (x->i < x->len && x->src[x->i] != ')')
            x->i++;
        if (x->i >= x->len)
            return fail(x, ERR_SYNTAX, "end pattern in group"), false;
        x->i++;
        return true;
    }
    /* Options: i (caseless, left to PCRE2), m (Ruby's dotall, done here). */
    bool on = true, dotall = x->dotall;
    char pflags[8];
    int np = 0;
    for (;;) {
        if (x->i >= x->len)
            return fail(x, ERR_SYNTAX, "end pattern in group"), false;
        c = x->src[x->i];
        if (c == '-' && on) {
            on = false;
            pflags[np++] = '-';
        } else if (c == 'i') {
            pflags[np++] = 'i';
        } else if (c == 'm') {
            dotall = on;
        } else if (c == ':' || c == ')') {
            break;
        } else {
            x->i = at;
            return fail(x, ERR_UNSUPPORTED, "group or option (?%c", c), false;
        }
        if (np >= 6)
            return fail(x, ERR_UNSUPPORTED, "too many options"), false;
        x->i++;
    }
    if (np && pflags[np - 1] == '-')
        np--;
    x->i++;
    /* (?i) without ':' reaches to the end of the enclosing group, across
     * '|': Oniguruma reads a(?i)b|c as a(?i:b|c). */
    if (!push_group(x, c == ')'))
        return false;
    x->dotall = dotall;
    put(x, "(?");
    buf_put(&x->out, pflags, np);
    put(x, ":");
    return true;
}

static bool translate(xlat *x)
{
    while (x->i < x->len && !x->code) {
        u8 c = x->src[x->i];
        iz start = x->out.len;
        switch (c) {
        case '(':
            if (!parse_group_open(x))
                return false;
            x->atom = -1;
            continue;
        case ')':
            close_opt_groups(x);
            if (x->ng == 0)
                return fail(x, ERR_SYNTAX, "unmatched close parenthesis"), false;
            x->ng--;
            x->dotall = x->g[x->ng].dotall;
            put(x, ")");
            x->i++;
            x->atom = x->g[x->ng].out_start;
            break;
        case '|':
            put(x, "|");
            x->i++;
            x->atom = -1;
            continue;
        case '^':
        case '$':
            buf_byte(&x->out, c);
            x->i++;
            x->atom = -1;
            continue;
        case '.':
            put(x, x->dotall ? "(?s:.)" : "[^\\n]");
            x->i++;
            x->atom = start;
            break;
        case '[':
            if (!parse_class(x))
                return false;
            emit_cset(x, &x->cls);
            x->atom = start;
            break;
        case '*': case '+': case '?': case '{': {
            int q = parse_quant(x);
            if (q < 0)
                return false;
            if (q > 0) {
                x->atom = -1;
                continue;
            }
            /* a literal '{' */
            put(x, "\\{");
            x->i++;
            x->atom = start;
            break;
        }
        case '\\': {
            x->i++;
            u32 cp;
            const uprop *p = NULL;
            bool neg;
            int k = parse_escape(x, false, &cp, &p, &neg);
            if (!k)
                return false;
            if (k == ESC_CHAR) {
                emit_literal(x, cp);
                x->atom = start;
            } else if (k == ESC_SET) {
                emit_set(x, p, neg);
                x->atom = start;
            } else {
                u8 d = x->src[x->i++];
                x->atom = -1;
                switch (d) {
                case 'b': emit_boundary(x, true); continue;
                case 'B': emit_boundary(x, false); continue;
                case 'A': put(x, "\\A"); continue;
                case 'z': put(x, "\\z"); continue;
                case 'Z': put(x, "\\Z"); continue;
                case 'G': put(x, "\\G"); continue;
                case 'K': put(x, "\\K"); continue;
                case 'R':
                    put(x, "(?>\\r\\n|[\\n\\x{b}\\f\\r\\x{85}\\x{2028}\\x{2029}])");
                    x->atom = start;
                    break;
                case 'N':
                    put(x, "[^\\n]");
                    x->atom = start;
                    break;
                case 'O':
                    put(x, "(?s:.)");
                    x->atom = start;
                    break;
                default:
                    if (d >= '1' && d <= '9') {
                        x->i--;
                        return fail(x, ERR_UNSUPPORTED, "back reference \\%c", d), false;
                    }
                    if (d == 'X' || d == 'k' || d == 'g' || d == 'y' || d == 'Y') {
                        x->i--;
                        return fail(x, ERR_UNSUPPORTED, "escape \\%c", d), false;
                    }
                    /* Oniguruma takes an unknown letter escape as the letter. */
                    emit_literal(x, d);
                    x->atom = start;
                    break;
                }
            }
            break;
        }
        default: {
            iz k = x->i;
            u32 cp = c < 0x80 ? (k++, c) : utf8_next(x->src, &k);
            x->i = k;
            emit_literal(x, cp);
            x->atom = start;
            break;
        }
        }
        if (x->out.failed)
            return fail(x, ERR_NOMEM, "out of memory"), false;
    }
    if (x->code)
        return false;
    close_opt_groups(x);
    if (x->ng > 0)
        return fail(x, ERR_SYNTAX, "end pattern with unmatched parenthesis"), false;
    buf_byte(&x->out, 0);
    if (x->out.failed)
        return fail(x, ERR_NOMEM, "out of memory"), false;
    return true;
}

/* ---- compile ------------------------------------------------------------ */

/* PCRE2 allocates the compiled pattern through these, so that it lives in
 * the tokenizer's arena (read-only after loading, shared by forks). */
static void *perm_malloc(PCRE2_SIZE size, void *data)
{
    return arena_alloc_nz((arena *)data, (iz)(size ? size : 1), 16, 1);
}

static void perm_free(void *p, void *data)
{
    (void)p;
    (void)data;
}

static void free_code(void *code) { pcre2_code_free(code); }

/* Translates and compiles one variant. */
static pcre2_code *compile_one(arena *perm, str pattern, bool plain, bool *gated, bool *jit, err *e)
{
    xlat x = {0};
    x.src = pattern.s;
    x.len = pattern.len;
    x.e = e;
    x.atom = -1;
    x.plain = plain;
    bool ok = translate(&x);
    free(x.cls.r);
    if (!ok) {
        buf_free(&x.out);
        return NULL;
    }
    *gated = x.gated;

    /* The compile-time memory of PCRE2 is arena memory that is never
     * returned (a few kB per pattern); the matcher never allocates there. */
    pcre2_general_context *gc = pcre2_general_context_create(perm_malloc, perm_free, perm);
    pcre2_compile_context *cc = gc ? pcre2_compile_context_create(gc) : NULL;
    if (!cc) {
        buf_free(&x.out);
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
    pcre2_set_bsr(cc, PCRE2_BSR_UNICODE);
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)x.out.data, (PCRE2_SIZE)(x.out.len - 1),
                                     PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE | PCRE2_NO_UTF_CHECK |
                                     PCRE2_NEVER_BACKSLASH_C,
                                     &ec, &eo, cc);
    if (!code) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(ec, msg, sizeof(msg));
        err_set(e, ERR_UNSUPPORTED, -1, "regex /%.*s/: not supported (PCRE2: %s at offset %zu of its translation)",
                (int)MIN(pattern.len, 120), (const char *)pattern.s, (const char *)msg, (size_t)eo);
        buf_free(&x.out);
        return NULL;
    }
    buf_free(&x.out);
    *jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
    /* The pattern's memory is arena memory, but its JIT code is not: free it
     * with the arena. */
    arena_on_free(perm, free_code, code);
    return code;
}

/* Blocks of 128 code points that hold some code point of uni_ranges. */
static u8 gated_block[0x110000 >> 7];
static pthread_once_t gated_once = PTHREAD_ONCE_INIT;

static void gated_init(void)
{
    for (iz k = 0; k < countof(uni_ranges); k++)
        for (u32 b = uni_ranges[k][0] >> 7; b <= uni_ranges[k][1] >> 7; b++)
            gated_block[b] = 1;
}

static bool in_uni_ranges(u32 c)
{
    for (iz k = 0; k < countof(uni_ranges); k++)
        if (c >= uni_ranges[k][0] && c <= uni_ranges[k][1])
            return true;
    return false;
}

/* Whether s (valid UTF-8) holds no code point of uni_ranges. All of them
 * are at U+0897 or above, so only 3- and 4-byte sequences are looked at. */
static bool subject_is_ascii(str s) { return utf8_ascii_prefix(s) == s.len; }

static bool subject_is_plain(str s)
{
    const u8 *p = s.s;
    iz i = 0, n = s.len;
    while (i < n) {
        while (i + 8 <= n) {
            u64 w;
            memcpy(&w, p + i, 8);
            /* any byte >= 0xE0 has its three top bits set */
            if (w & (w << 1) & (w << 2) & 0x8080808080808080u)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        if (p[i] < 0xe0) {
            i++;
            continue;
        }
        u32 c = utf8_next(p, &i);
        if (gated_block[c >> 7] && in_uni_ranges(c))
            return false;
    }
    return true;
}

tok_regex *tok_regex_compile(arena *perm, str pattern, bool literal, err *e)
{
    if (pattern.len > TOK_RE_MAX_PATTERN) {
        err_set(e, ERR_LIMIT, -1, "regex of %td bytes (more than %d)", pattern.len, TOK_RE_MAX_PATTERN);
        return NULL;
    }
    tok_regex *re = NEW(perm, tok_regex, 1);
    if (!re) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    if (literal) {
        re->lit = arena_strdup(perm, pattern);
        if (!re->lit.s) {
            err_set(e, ERR_NOMEM, -1, "out of memory");
            return NULL;
        }
        return re;
    }
    pthread_once(&gated_once, gated_init);
    pthread_once(&ascii_once, init_cls);
    if (str_eq(pattern, str_from(pat_l3, lengthof(pat_l3))))
        re->fast = FAST_L3;
    else if (str_eq(pattern, str_from(pat_qwen, lengthof(pat_qwen))))
        re->fast = FAST_QWEN;
    bool gated = false, unused;
    re->code = compile_one(perm, pattern, false, &gated, &re->jit, e);
    if (!re->code)
        return NULL;
    if (gated) {
        re->plain = compile_one(perm, pattern, true, &unused, &re->plain_jit, e);
        if (!re->plain)
            return NULL;
    }
    return re;
}

/* ---- match ---------------------------------------------------------------- */

static int work_init(tok_work *w)
{
    if (!w->re_md)
        w->re_md = pcre2_match_data_create(1, NULL);
    if (!w->re_jit)
        w->re_jit = pcre2_jit_stack_create(32 * 1024, TOK_RE_JIT_STACK, NULL);
    if (!w->re_mctx) {
        pcre2_match_context *m = pcre2_match_context_create(NULL);
        if (m) {
            pcre2_set_match_limit(m, TOK_RE_MATCH_LIMIT);
            pcre2_set_depth_limit(m, TOK_RE_DEPTH_LIMIT);
            pcre2_set_heap_limit(m, TOK_RE_HEAP_LIMIT);
            if (w->re_jit)
                pcre2_jit_stack_assign(m, NULL, w->re_jit);
        }
        w->re_mctx = m;
    }
    return w->re_md && w->re_jit && w->re_mctx ? ERR_OK : ERR_NOMEM;
}

void tok_regex_work_fini(tok_work *w)
{
    pcre2_match_data_free(w->re_md);
    pcre2_match_context_free(w->re_mctx);
    pcre2_jit_stack_free(w->re_jit);
    w->re_md = w->re_jit = w->re_mctx = NULL;
}

static iz find_lit(str s, iz start, str lit)
{
    if (lit.len == 0)
        return start;
    const u8 *p = s.s + start, *end = s.s + s.len;
    u8 first = lit.s[0];
    while (end - p >= lit.len) {
        p = memchr(p, first, (size_t)(end - p - lit.len + 1));
        if (!p)
            return -1;
        if (memcmp(p, lit.s, (size_t)lit.len) == 0)
            return p - s.s;
        p++;
    }
    return -1;
}

bool tok_regex_each_ascii(const tok_regex *re, tok_work *w, str s, tok_piece_fn *each, void *ctx, int *rc)
{
    if (!re->fast || w->re_no_fast || !subject_is_ascii(s))
        return false;   /* (re->fast: tok_regex_compile made the class table) */
    int digits = re->fast == FAST_L3 ? 3 : 1;
    *rc = ERR_OK;
    for (iz i = 0; i < s.len && *rc == ERR_OK;) {
        iz end = fast_match_ascii(s.s, s.len, i, digits);   /* > i: the subject is ASCII */
        *rc = each(ctx, str_cut(s, i, end));
        i = end;
    }
    return true;
}

int tok_regex_find(const tok_regex *re, tok_work *w, str s, iz start, iz *mb, iz *me, err *e)
{
    if (start > s.len)
        return 0;
    if (!re->code) {
        iz at = find_lit(s, start, re->lit);
        if (at < 0)
            return 0;
        *mb = at;
        *me = at + re->lit.len;
        return 1;
    }
    if (unlikely(!w->re_mctx) && work_init(w) != ERR_OK)
        return -err_set(e, ERR_NOMEM, start, "out of memory for regex match state");
    static const u8 empty[1];
    PCRE2_SPTR subj = s.s ? s.s : empty;
    const pcre2_code *code = re->code;
    bool jit = re->jit;
    if (re->plain || re->fast) {
        /* The same subject is searched again and again from later starts:
         * check it once. A search from 0 always checks afresh, since scratch
         * memory may hold another text of the same length at the same place. */
        if (start == 0 || w->re_subj != s.s || w->re_subj_len != s.len) {
            w->re_subj = s.s;
            w->re_subj_len = s.len;
            w->re_subj_ascii = subject_is_ascii(s);
            w->re_subj_plain = w->re_subj_ascii || subject_is_plain(s);
        }
        if (re->fast && !w->re_no_fast && start < s.len) {
            iz end = fast_match(s.s, s.len, start, re->fast == FAST_L3 ? 3 : 1);
            if (end >= 0) {
                *mb = start;
                *me = end;
                return 1;
            }
        }
        if (re->plain && w->re_subj_plain) {
            code = re->plain;
            jit = re->plain_jit;
        }
    }
    int rc;
    if (jit)
        rc = pcre2_jit_match(code, subj, (PCRE2_SIZE)s.len, (PCRE2_SIZE)start, 0,
                             w->re_md, w->re_mctx);
    else
        rc = PCRE2_ERROR_JIT_STACKLIMIT;
    /* A class with Unicode additions repeats as an alternation, which takes
     * JIT stack per character: a huge piece can exhaust even a large stack.
     * The interpreter keeps its frames on the heap, so it goes on. */
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = pcre2_match(code, subj, (PCRE2_SIZE)s.len, (PCRE2_SIZE)start, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT,
                         w->re_md, w->re_mctx);
    if (rc >= 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(w->re_md);
        *mb = (iz)ov[0];
        *me = (iz)ov[1];
        if (*mb > *me)   /* \K inside a lookahead */
            *mb = *me;
        return 1;
    }
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    PCRE2_UCHAR msg[120];
    pcre2_get_error_message(rc, msg, sizeof(msg));
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
        rc == PCRE2_ERROR_JIT_STACKLIMIT)
        return -err_set(e, ERR_LIMIT, start, "regex gave up searching from byte %td of a %td-byte piece (%s)",
                        start, s.len, (const char *)msg);
    if (rc == PCRE2_ERROR_NOMEMORY)
        return -err_set(e, ERR_NOMEM, start, "out of memory in regex match");
    return -err_set(e, ERR_INVALID, start, "regex match failed (%s)", (const char *)msg);
}
