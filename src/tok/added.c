/* added.c - added tokens: cut out of the text before anything else runs,
 * leftmost-longest and non-overlapping (what the Rust library's Aho-Corasick
 * in LeftmostLongest mode finds), with the single_word, lstrip and rstrip
 * rules applied per match. */
#include <utf8proc.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "tok_model.h"
#include "../base/hash.h"
#include "../base/utf8.h"

static iz edge_slot(const added_trie *tr, u64 key)
{
    iz i = (iz)((key * 0x9e3779b97f4a7c15u) >> 32) & tr->emask;
    while (tr->ekeys[i] && tr->ekeys[i] != key + 1)
        i = (i + 1) & tr->emask;
    return i;
}

static inline i64 child(const added_trie *tr, u32 node, u8 c)
{
    iz i = edge_slot(tr, (u64)node << 8 | c);
    return tr->ekeys[i] ? (i64)tr->evals[i] : -1;
}

/* The pattern of toks[k] equal to `s`, the first of equal ones (the one
 * the trie keeps), or -1. */
static i32 whole_find(const added_trie *tr, const added_token *toks, const u8 *s, iz n)
{
    for (iz i = (iz)hash_bytes(s, n) & tr->wmask;; i = (i + 1) & tr->wmask) {
        i32 k = tr->whole[i] - 1;
        if (k < 0)
            return -1;
        if (toks[k].pattern.len == n && memcmp(toks[k].pattern.s, s, (size_t)n) == 0)
            return k;
    }
}

/* Sets tr->closer (see tok_model.h) when the patterns allow it. */
static void closed_build(arena *perm, added_trie *tr, const added_token *toks, iz n, bool normalized)
{
    tr->closer = -1;
    if (tr->only_first < 0)
        return;
    int closer = -1;
    iz count = 0, max_len = 0;
    for (iz k = 0; k < n; k++) {
        str p = toks[k].pattern;
        if (toks[k].normalized != normalized || p.len == 0)
            continue;
        if (p.len < 2)
            return;
        int last = p.s[p.len - 1];
        if (closer < 0)
            closer = last;
        if (last != closer || last == tr->only_first || memchr(p.s, last, (size_t)p.len - 1))
            return;
        count++;
        max_len = MAX(max_len, p.len);
    }
    iz size = 16;
    while (size < 2 * count)
        size *= 2;
    tr->whole = NEW(perm, i32, size);
    tr->wmask = size - 1;
    for (iz k = 0; k < n; k++) {
        str p = toks[k].pattern;
        if (toks[k].normalized != normalized || p.len == 0 || whole_find(tr, toks, p.s, p.len) >= 0)
            continue;
        iz i = (iz)hash_bytes(p.s, p.len) & tr->wmask;
        while (tr->whole[i])
            i = (i + 1) & tr->wmask;
        tr->whole[i] = (i32)k + 1;
    }
    tr->closer = closer;
    tr->max_len = max_len;
}

void added_build(arena *perm, added_trie *tr, const added_token *toks, iz n, bool normalized)
{
    memset(tr, 0, sizeof(*tr));
    iz total = 1;
    for (iz k = 0; k < n; k++)
        if (toks[k].normalized == normalized)
            total += toks[k].pattern.len;
    iz size = 16;
    while (size < 2 * total)
        size *= 2;
    tr->ekeys = NEW(perm, u64, size);
    tr->evals = NEW_NZ(perm, u32, size);
    tr->emask = size - 1;
    tr->term = NEW_NZ(perm, i32, total);
    tr->term[0] = -1;
    tr->nnodes = 1;
    tr->empty = true;
    for (iz k = 0; k < n; k++) {
        const added_token *at = &toks[k];
        if (at->normalized != normalized || at->pattern.len == 0)
            continue;
        tr->empty = false;
        tr->first[at->pattern.s[0]] = true;
        u32 node = 0;
        for (iz j = 0; j < at->pattern.len; j++) {
            u64 key = (u64)node << 8 | at->pattern.s[j];
            iz i = edge_slot(tr, key);
            if (!tr->ekeys[i]) {
                tr->ekeys[i] = key + 1;
                tr->evals[i] = (u32)tr->nnodes;
                tr->term[tr->nnodes] = -1;
                tr->nnodes++;
            }
            node = tr->evals[i];
        }
        /* The same pattern twice keeps the first (it has the id the Rust
         * library's map gives; later duplicates were merged at load). */
        if (tr->term[node] < 0)
            tr->term[node] = (i32)k;
    }
    tr->only_first = -1;
    int firsts = 0;
    for (int c = 0; c < 256; c++)
        if (tr->first[c]) {
            if (firsts < (int)sizeof(tr->few))
                tr->few[firsts] = (u8)c;
            firsts++;
            tr->only_first = c;
        }
    if (firsts != 1)
        tr->only_first = -1;
    tr->nfew = firsts > 1 && firsts <= (int)sizeof(tr->few) ? firsts : 0;
    closed_build(perm, tr, toks, n, normalized);
}

/* Rust regex \w (Unicode): Alphabetic, marks, decimal digits, connector
 * punctuation, join controls. utf8proc has no Alphabetic property; letters
 * and letter numbers stand in for it. */
static bool is_word_cp(u32 c)
{
    if (c < 0x80)
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (c == 0x200c || c == 0x200d)
        return true;
    switch (utf8proc_category((utf8proc_int32_t)c)) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_PC:
        return true;
    default:
        return false;
    }
}

/* White_Space, as Rust's regex \s and char::is_whitespace. */
static bool is_space_cp(u32 c)
{
    return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
           c == 0x205f || c == 0x3000;
}

static bool ends_with_word(str s, iz end)
{
    if (end == 0)
        return false;
    iz i = utf8_prev(s.s, end);
    return is_word_cp(utf8_next(s.s, &i));
}

static bool starts_with_word(str s, iz at)
{
    if (at >= s.len)
        return false;
    return is_word_cp(utf8_next(s.s, &at));
}

/* The first i' >= i where a pattern may start (a byte of tr->first), or
 * s.len: past the first few, sixteen bytes at a time against each of the
 * few first bytes. */
static iz next_first(const added_trie *tr, str s, iz i)
{
    /* a few bytes one at a time first: in logs and markdown the next
     * newline is often near */
    for (iz stop = MIN(s.len, i + 8); i < stop; i++)
        if (tr->first[s.s[i]])
            return i;
#if defined(__SSE2__)
    if (tr->nfew) {
        __m128i f[sizeof(tr->few)];
        for (int k = 0; k < tr->nfew; k++)
            f[k] = _mm_set1_epi8((char)tr->few[k]);
        for (; s.len - i >= 16; i += 16) {
            __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s.s + i));
            __m128i m = _mm_cmpeq_epi8(w, f[0]);
            for (int k = 1; k < tr->nfew; k++)
                m = _mm_or_si128(m, _mm_cmpeq_epi8(w, f[k]));
            int bits = _mm_movemask_epi8(m);
            if (bits)
                return i + __builtin_ctz((unsigned)bits);
        }
    }
#endif
    while (i < s.len && !tr->first[s.s[i]])
        i++;
    return i;
}

int added_split(const tok *t, const added_trie *tr, str s, added_emit emit, void *ctx)
{
    int rc;
    if (tr->empty) {
        if (s.len)
            return emit(ctx, s, 0, -1);
        return 0;
    }
    iz start_offset = 0;
    iz i = 0;
    while (i < s.len) {
        if (tr->only_first >= 0) {   /* e.g. every special token starts with '<' */
            const u8 *at = memchr(s.s + i, tr->only_first, (size_t)(s.len - i));
            if (!at)
                break;
            i = at - s.s;
        } else if (!tr->first[s.s[i]]) {
            i = next_first(tr, s, i + 1);
            continue;
        }
        /* longest pattern starting at i */
        u32 node = 0;
        i32 best = -1;
        iz best_end = 0;
        if (tr->closer >= 0) {
            iz lim = MIN(s.len - i, tr->max_len);
            const u8 *end = memchr(s.s + i + 1, tr->closer, (size_t)(lim - 1));
            if (end) {
                best_end = end + 1 - s.s;
                best = whole_find(tr, t->added, s.s + i, best_end - i);
            }
        } else {
            for (iz j = i; j < s.len; j++) {
                i64 c = child(tr, node, s.s[j]);
                if (c < 0)
                    break;
                node = (u32)c;
                if (tr->term[node] >= 0) {
                    best = tr->term[node];
                    best_end = j + 1;
                }
            }
        }
        if (best < 0) {
            i++;
            continue;
        }
        const added_token *at = &t->added[best];
        iz start = i, stop = best_end;
        /* The matcher moves past this match whether or not it is kept. */
        i = best_end;
        if (at->single_word) {
            bool start_space = start == 0 || !ends_with_word(s, start);
            bool stop_space = stop == s.len || !starts_with_word(s, stop);
            if (!start_space || !stop_space)
                continue;
        }
        if (at->lstrip) {
            iz ns = start;
            while (ns > 0) {
                iz p = utf8_prev(s.s, ns), q = p;
                if (!is_space_cp(utf8_next(s.s, &q)))
                    break;
                ns = p;
            }
            start = MAX(ns, start_offset);
        }
        if (at->rstrip) {
            while (stop < s.len) {
                iz q = stop;
                if (!is_space_cp(utf8_next(s.s, &q)))
                    break;
                stop = q;
            }
        }
        if (start_offset < start && (rc = emit(ctx, str_cut(s, start_offset, start), start_offset, -1)))
            return rc;
        if ((rc = emit(ctx, str_cut(s, start, stop), start, (i32)at->id)))
            return rc;
        /* As in the Rust library, the search goes on from the end of the
         * match itself, not from the end of what rstrip took. */
        start_offset = stop;
    }
    if (start_offset < s.len)
        return emit(ctx, str_cut(s, start_offset, s.len), start_offset, -1);
    return 0;
}
