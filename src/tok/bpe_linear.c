/* bpe_linear.c - the BPE of a pre-token in time linear in its length,
 * giving the ids of the merge loop of bpe.c (the Rust library's merge_all)
 * exactly. bpe_word uses it for words of BPE_LIN_USE bytes or more; the
 * tables are built once BPE_LIN_BUILD_AFTER bytes of long words (shorter
 * ones weigh less) have come (bpe_lin_ready) and shared by all threads.
 *
 * The idea is the backtracking encoder of GitHub's `bpe` crate: tile the
 * word left to right with vocabulary tokens, longest first, keeping a token
 * only when it and the token before it are a pair the BPE itself would
 * leave as they are; otherwise the next shorter token that is a prefix
 * there, and when none is left, step back. What follows is our argument that
 * this gives the merge loop's ids under the Rust library's rules, and the
 * precondition a tokenizer must meet.
 *
 * The rules. Base symbols are the word's bytes (byte-level tokenizers) or
 * its characters (byte_fallback tokenizers; below). The merge loop applies,
 * while some adjacent pair of symbols is a merge, the pair with the lowest
 * key (rank, position), position being where its left symbol starts: the
 * lowest merge rank, leftmost among equal ranks (bpe.c's heap pops keys in
 * this order, and its stale check is exact: the span a pair at one position
 * covers only grows, so an entry whose merged id is still the pair's is the
 * same pair). Write BPE(s) for the result on bytes s, and call a sequence
 * of tokens t1..tk "valid" when BPE(t1 t2 .. tk as bytes) = t1..tk.
 *
 * (1) A run of tokens inside a valid sequence is valid, in particular each
 *     token alone. No merge ever crosses the run's outer edges (merges are
 *     never undone and the final symbols do not cross them), so the merges
 *     inside the run are the loop's on the run's bytes alone: each one was
 *     the lowest key of all pairs, so of the pairs inside; and positions
 *     keep their order when the run is cut out. Hence only "usable" tokens
 *     z, BPE(bytes of z) = z, ever appear in an output; the others are left
 *     out of the matcher.
 * (2) If a..x and x..b are valid (sharing the token x), so is a..x..b. Run
 *     the loop on the whole: no pair crosses a symbol edge of x's outer
 *     edges except inside the two parts; at each step the lowest key of all
 *     pairs lies in the left part or the right part, and is then that
 *     part's own next merge (it is lowest among that part's pairs, and that
 *     part's state is one of its own run's states), so the whole does what
 *     the parts do and ends where they end.
 * (3) So a tiling of the word in which every two adjacent tokens form a
 *     valid pair is valid (by (2), one token at a time), and it is the
 *     merge loop's output, the one valid tiling; and the output's prefixes
 *     are the valid tilings of the word's prefixes (1). The search below
 *     keeps a stack whose adjacent pairs are valid: the stack that reaches
 *     position p is the one valid tiling of bytes [0, p). When every token
 *     tried from p fails, p can never be part of the answer, whatever
 *     comes after, and is marked dead: each position is left at most once,
 *     and the work is the word's length times the tokens that are prefixes
 *     at a position (at most the longest token's length), not exponential.
 *
 * The pair test. For usable tokens a and b, is BPE(a b) = a b? Each token
 * has its own merge tree (its run on its bytes); call a token "monotone"
 * when the ranks of its tree grow toward the root. A monotone token's own
 * run applies its merges in increasing key order (a merge of lower rank
 * than one already applied could only become possible through a symbol
 * made later, of even lower rank, and so on down: impossible). On a b,
 * until a merge crosses the edge between them, the loop applies a's and b's
 * merges sorted together by key (by the argument of (2)); meanwhile the
 * pair at the edge is (x, y), x the rightmost symbol of a's state and y the
 * leftmost of b's: x runs up a's right spine (a, a.right, a.right.right,
 * ... down to a byte), y up b's left spine. A pair (x, y) that is adjacent
 * at some time and is a merge of rank r is applied (so a b is not kept)
 * exactly when r < the rank of the merge that replaces x (px, whose key
 * starts left of x's, wins a tie) and r <= the rank of the one that
 * replaces y (py starts right of x: the edge wins a tie); infinite for a
 * and b themselves, so a merge (a, b) itself fails the pair. The pairs
 * adjacent at some time are found from (a, b) backwards: the one made last
 * of the two (higher rank; on a tie, the same merge twice, the right one)
 * goes back to its child on the spine. That is pair_ok below, a few merge
 * lookups a pair; of two base symbols, one lookup in a 256 x 256 table
 * (most pairs on random text). The first lookup, of (a, b) itself, is
 * skipped when a b's bytes are no path of the trie: the trie holds every
 * merge's bytes (its token's, or a path that ends no token for a token not
 * in the matcher), and the search learns the depth of the trie at each
 * position when it looks for the longest token there. It is exact for
 * monotone usable tokens; a pair with a usable token that is not monotone
 * (runs of spaces in some vocabularies) is tested by its definition
 * instead, the merge loop on the pair's bytes (pair_slow), and remembered
 * like any pair. Tokens that are not usable are left out of the matcher.
 * A word whose answer needs a left-out token (any answer's tokens are
 * usable, by (1)) has no tiling the search accepts: then it gives up and
 * the merge loop decides, so leaving tokens out can cost time but never
 * change ids.
 *
 * The precondition (checked once per tokenizer, else the merge loop stays):
 * no subword prefix or word suffix (they change the symbols by position);
 * byte-level: every byte has a token (a missing one would be dropped,
 * joining its neighbours); otherwise byte_fallback with all 256 <0xNN>
 * tokens, none of which takes part in any merge, and every character of the
 * vocabulary usable: a character outside the vocabulary becomes <0xNN>
 * tokens that merge with nothing, so it is a wall that splits the word into
 * independent runs (as in (2)), and unk is never produced. ignore_merges
 * only looks the whole word up first (bpe_word_slow does that before), and
 * dropout fails the load. Every other setting is the same for both.
 */
#include <stdlib.h>
#include "tok_model.h"
#include "../base/os.h"
#include "../base/utf8.h"

#define LIN_NONE 0xffffffffu
enum { LIN_DEP_MAX = 255 };
enum { LIN_MAX_NODES = 1 << 24, LIN_MAX_IDS = 1 << 24 };

/* One token of the matcher, by id: one aligned 32-byte load for all the
 * search and the pair test read of it. */
typedef struct {
    u32 rk;      /* 1 + rank of the last merge of its own BPE; 0 = a base symbol */
    u32 left;    /* that merge's two tokens */
    u32 right;
    u32 next;    /* the longest matcher token that is a proper prefix, or LIN_NONE */
    u16 len;     /* bytes; 0 = not in the matcher */
    u16 mono;    /* monotone: the pair test of its spines applies (else the merge loop's) */
    u32 minl;    /* 1 + the lowest rank of a merge with it on the left, LIN_NONE = none */
    u32 minr;    /* the same on the right */
    u32 bix;     /* a base symbol of the byte-pair table: its byte (or code point below 256), else LIN_NONE */
} lin_tok;

/* A node of the prefix trie over the matcher tokens' bytes, as a double
 * array: the child of node p by byte b is at dat[p].base + b when that
 * slot's check is p. One 16-byte load a byte, no hashing. */
typedef struct {
    u32 base;    /* 0 = no children (no slot's check is then this node) */
    u32 check;   /* the parent's index; LIN_NONE = a free slot */
    u32 term;    /* the token ending here, LIN_NONE */
    u32 pad;
} lin_node;

/* The build makes the trie first with hashed edges (an open-addressing
 * table of (node << 8 | byte) + 1 in the high half, child in the low half,
 * node 0 the root, whose children are a direct table), then lays it out as
 * the double array the search walks. */
struct bpe_lin {
    bool      chars;
    lin_tok  *tk;          /* by id, t->nids */
    u64      *mbits;       /* a bit per hash of (left, right) of every merge, LIN_MBITS of them */
    u64      *lbits;       /* the same of the merges of rank below LIN_LOW, LIN_LBITS of them */
    u32      *bp;          /* 1 + rank of the merge of base symbols (bix x, bix y) at x << 8 | y, 0 = none */
    lin_node *dat;         /* the trie, ndat slots (every base + 255 inside) */
    iz        ndat;
    u32       root[256];   /* slot of each first byte, LIN_NONE */
    u32      *root2;       /* slot of each first two bytes (b0 << 8 | b1), LIN_NONE */
    /* the build's hashed trie */
    u64      *edge;
    u32       emask, eshift;
    iz        nedges;
    u32      *term;        /* by node: the token ending there, LIN_NONE */
    iz        term_cap;
    iz        nnodes, ntokens, left_out, slow;
    double    build_s;
    iz        bytes;
    arena    tmp;          /* the build's own (here, to survive its longjmp) */
};

/* Two filters for the merge lookups, which mostly find nothing: a pair
 * whose bits are not all set is no merge, with no lookup in the merge table
 * (8-32 MB). Each is a blocked Bloom filter, three bits of one 64-bit word
 * a merge: one load a query. The first (512 KB, L2-sized) holds every merge:
 * under 1% false positives for qwen3's 151k merges, 3-4% for gemma3's 515k
 * (counted on random text).
 * The second (128 KB) holds only the merges of rank below LIN_LOW: most
 * limits in the pair test are the ranks of short tokens, and a pair that is
 * a merge of higher rank than its limit (two thirds of those found on
 * random text) needs no lookup either. */
enum { LIN_MBITS = 22, LIN_LBITS = 20, LIN_LOW = 1 << 15 };

static inline u64 bloom_hash(u32 a, u32 b) { return ((u64)a << 32 | b) * 0x9e3779b97f4a7c15u; }

static inline u64 bloom_mask(u64 h)
{
    return (u64)1 << (h >> 20 & 63) | (u64)1 << (h >> 26 & 63) | (u64)1 << (h >> 32 & 63);
}

static inline void bloom_add(u64 *f, int bits, u32 a, u32 b)
{
    u64 h = bloom_hash(a, b);
    f[h >> (64 - (bits - 6))] |= bloom_mask(h);
}

static inline bool bloom_has(const u64 *f, int bits, u32 a, u32 b)
{
    u64 h = bloom_hash(a, b), m = bloom_mask(h);
    return (f[h >> (64 - (bits - 6))] & m) == m;
}

static inline bool maybe_merge(const bpe_lin *L, u32 a, u32 b) { return bloom_has(L->mbits, LIN_MBITS, a, b); }

static inline bool maybe_low_merge(const bpe_lin *L, u32 a, u32 b) { return bloom_has(L->lbits, LIN_LBITS, a, b); }

static inline u32 edge_slot(const bpe_lin *L, u32 key)
{
    return (u32)(((u64)key * 0x9e3779b97f4a7c15u) >> L->eshift) & L->emask;
}

/* The child of node `node` of the build's trie by byte b, LIN_NONE. */
static u32 child(const bpe_lin *L, u32 node, u8 b)
{
    u32 key = (node << 8 | b) + 1;
    for (u32 i = edge_slot(L, key);; i = (i + 1) & L->emask) {
        u64 e = L->edge[i];
        if ((u32)(e >> 32) == key)
            return (u32)e;
        if (!e)
            return LIN_NONE;
    }
}

/* The longest matcher token that is a prefix of s[pos, n), or LIN_NONE;
 * *len its length (its depth in the trie: no load of its lin_tok); and
 * dep[pos] the length of the longest path of the trie that is a prefix
 * there, LIN_DEP_MAX for that or more (may_join). */
static inline u32 longest(const bpe_lin *L, const u8 *s, iz n, iz pos, iz *len, u8 *dep)
{
    u32 best = LIN_NONE;
    *len = 0;
    if (pos >= n)
        return best;
    u32 p = L->root[s[pos]];
    dep[pos] = 0;
    if (p == LIN_NONE)
        return best;
    const lin_node *dat = L->dat;
    best = dat[p].term;
    *len = 1;
    dep[pos] = 1;
    if (pos + 1 >= n)
        return best;
    p = L->root2[s[pos] << 8 | s[pos + 1]];
    iz i = pos + 2;   /* p is the node of s[pos, i) */
    for (; p != LIN_NONE; i++) {
        const lin_node *d = &dat[p];
        if (d->term != LIN_NONE) {
            best = d->term;
            *len = i - pos;
        }
        if (i >= n)
            break;
        u32 q = d->base + s[i];
        if (dat[q].check != p)
            break;
        p = q;
    }
    iz d = p == LIN_NONE ? 1 : i - pos;
    dep[pos] = d < LIN_DEP_MAX ? (u8)d : LIN_DEP_MAX;
    return best;
}

/* Whether BPE leaves the adjacent tokens a b as they are (the file's
 * comment, "The pair test"). Limits are ranks + 1, as lin_tok.rk. `ab`:
 * whether (a, b) itself may be a merge (false: their bytes are no path of
 * the trie, may_join), else its lookup is skipped. */
static bool pair_ok(const bpe_lin *L, const merge_map *m, u32 a, u32 b, bool ab)
{
    u32 lx = LIN_NONE, ly = LIN_NONE;
    u32 x = a, y = b;
    for (bool ask = ab;; ask = true) {
        /* A merge (x, y) has a rank at least x's lowest on the left and
         * y's lowest on the right: when either is past its limit, no
         * lookup. */
        u32 rank;
        const lin_tok *tx = &L->tk[x], *ty = &L->tk[y];
        if (ask && tx->minl < lx && ty->minr <= ly) {
            /* two base symbols (most pairs tested on random text): the
             * byte-pair table, L2-sized, instead of the merge table */
            if (tx->bix != LIN_NONE && ty->bix != LIN_NONE) {
                u32 r1 = L->bp[tx->bix << 8 | ty->bix];
                if (r1 && r1 < lx && r1 <= ly)
                    return false;
            } else if ((lx <= LIN_LOW || ly < LIN_LOW ? maybe_low_merge(L, x, y) : maybe_merge(L, x, y)) &&
                       merge_find(m, x, y, &rank) && rank + 1 < lx && rank + 1 <= ly) {
                return false;
            }
        }
        u32 rx = tx->rk, ry = ty->rk;
        if (rx > ry) {
            lx = rx;
            x = tx->right;
        } else if (ry) {
            ly = ry;
            y = ty->left;
        } else {
            return true;
        }
    }
}

/* ---- the search ------------------------------------------------------- */

/* The pair test through the work area's direct-mapped memory of pairs
 * tested: the pair (ids below LIN_MAX_IDS, checked at the build), a used
 * bit and the answer in 64 bits; an empty slot (0) matches no pair. */
enum { LIN_PAIR_BITS = 14 };

/* The merge loop on `bytes` (bpe_merge_word), its scratch given back:
 * false when it fails. */
static bool merge_word(const tok *t, tok_work *w, str bytes, iz *nsym, u32 *first, bpe_last *last)
{
    *nsym = 0;
    *first = LIN_NONE;
    err e = {0};
    arena_mark mk = arena_save(&w->scratch);
    int rc = bpe_merge_word(t, w, bytes, nsym, first, last, &e);
    arena_restore(&w->scratch, mk);
    return rc == ERR_OK;
}

static NOINLINE bool pair_slow(const tok *t, tok_work *w, str ab, u32 a);

static inline bool pair_cached(const bpe_lin *L, const tok *t, tok_work *w, u32 a, u32 b, str ab, bool maybe)
{
    u64 *pc = w->lin_pairs;
    u64 key = (u64)a << 24 | b;
    u64 h = (key * 0x9e3779b97f4a7c15u) >> (64 - LIN_PAIR_BITS);
    u64 e = pc[h];
    if ((e >> 1) == (key << 1 | 1))
        return e & 1;
    bool ok = L->tk[a].mono && L->tk[b].mono ? pair_ok(L, &t->merges, a, b, maybe) : pair_slow(t, w, ab, a);
    pc[h] = key << 2 | 2 | ok;
    return ok;
}

/* The pair test of a token that is not monotone: the merge loop on the
 * two tokens' bytes `ab` leaves two symbols, the first a (then the second
 * is the other token: the rest of the bytes, one token). */
static NOINLINE bool pair_slow(const tok *t, tok_work *w, str ab, u32 a)
{
    iz nsym;
    u32 first;
    bpe_last last;
    return merge_word(t, w, ab, &nsym, &first, &last) && nsym == 2 && first == a;
}

/* Whether the bytes [from, to) may be a path of the trie (from longest's
 * dep at `from`): false means they are no merge's two tokens. */
static inline bool may_join(const u8 *dep, iz from, iz to)
{
    return dep[from] == LIN_DEP_MAX || dep[from] >= to - from;
}

/* Bit sets of u64 words (the search's dead positions, the build's ranks). */
static inline bool bit_get(const u64 *d, iz p) { return d[p >> 6] >> (p & 63) & 1; }
static inline void bit_set(u64 *d, iz p) { d[p >> 6] |= (u64)1 << (p & 63); }

iz bpe_lin_encode(const bpe_lin *L, const tok *t, tok_work *w, str word)
{
    const u8 *s = word.s;
    iz n = word.len;
    iz nw = (n >> 6) + 1;
    u64 *dead = w->lin_dead = tok_work_grow(w, w->lin_dead, &w->lin_dead_cap, nw, sizeof(u64));
    memset(dead, 0, (size_t)nw * sizeof(u64));
    u8 *dep = w->lin_dep = tok_work_grow(w, w->lin_dep, &w->lin_dep_cap, n, 1);
    /* The memory of pairs is the tokenizer's: a work area used with
     * another one starts it afresh. */
    if (!w->lin_pairs) {
        w->lin_pairs = calloc((size_t)1 << LIN_PAIR_BITS, sizeof(u64));
        if (!w->lin_pairs)
            longjmp(w->oom, 1);
        w->lin_pairs_for = L;
    } else if (w->lin_pairs_for != L) {
        memset(w->lin_pairs, 0, ((size_t)1 << LIN_PAIR_BITS) * sizeof(u64));
        w->lin_pairs_for = L;
    }
    /* The stack is the output itself: at most one token a byte. */
    iz base = w->nids;
    w->ids = tok_work_grow(w, w->ids, &w->capids, base + n, sizeof(u32));
    u32 *st = w->ids + base;
    iz sp = 0, floor = 0;   /* entries below floor are final (before a wall) */
    iz pos = 0;
    const lin_tok *tk = L->tk;
    iz clen;
    u32 c = longest(L, s, n, pos, &clen, dep);
    while (pos < n) {
        if (c == LIN_NONE) {
            if (!L->chars)
                return -1;   /* not reached: every byte is a token */
            /* Only in character mode: a character outside the vocabulary,
             * its <0xNN> tokens, a wall. */
            iz k = utf8_len(s[pos]);
            if (k > n - pos)
                k = n - pos;
            for (iz j = 0; j < k; j++)
                st[sp++] = (u32)t->fallback_id[s[pos + j]];
            pos += k;
            floor = sp;
            c = longest(L, s, n, pos, &clen, dep);
            continue;
        }
        /* The longest token, kept most of the time: the longest one at its
         * end is looked up before its pair test, so that the two chains of
         * loads overlap. */
        iz end = pos + clen;
        iz nlen;
        u32 nc = longest(L, s, n, end, &nlen, dep);
        if (!bit_get(dead, end) &&
            (sp == floor || pair_cached(L, t, w, st[sp - 1], c, str_cut(word, pos - tk[st[sp - 1]].len, end),
                                         may_join(dep, pos - tk[st[sp - 1]].len, end)))) {
            st[sp++] = c;
            pos = end;
            c = nc;
            clen = nlen;
            continue;
        }
        c = tk[c].next;
        for (;;) {
            while (c != LIN_NONE) {
                end = pos + tk[c].len;
                if (!bit_get(dead, end) &&
                    (sp == floor || pair_cached(L, t, w, st[sp - 1], c, str_cut(word, pos - tk[st[sp - 1]].len, end),
                                         may_join(dep, pos - tk[st[sp - 1]].len, end))))
                    break;
                c = tk[c].next;
            }
            if (c != LIN_NONE) {
                st[sp++] = c;
                pos += tk[c].len;
                break;
            }
            bit_set(dead, pos);
            if (sp == floor)
                return -1;   /* the answer needs a token left out */
            c = st[--sp];
            pos -= tk[c].len;
            c = tk[c].next;
        }
        c = longest(L, s, n, pos, &clen, dep);
    }
    w->nids = base + sp;
    return sp;
}

/* ---- the build -------------------------------------------------------- */

/* Sizes the edge table for `n` edges at load factor <= 2/3 (small, for
 * the cache: linear probing stays short), moving the old edges over.
 * False when out of memory. */
static bool edges_resize(bpe_lin *L, iz n)
{
    u32 bits = 10;
    while (((iz)1 << bits) * 2 < 3 * n)
        bits++;
    u64 *old = L->edge;
    iz oldn = old ? (iz)L->emask + 1 : 0;
    u64 *e = calloc((size_t)1 << bits, sizeof(u64));
    if (!e)
        return false;
    L->edge = e;
    L->emask = ((u32)1 << bits) - 1;
    L->eshift = 64 - bits;
    for (iz i = 0; i < oldn; i++) {
        if (!old[i])
            continue;
        u32 j = edge_slot(L, (u32)(old[i] >> 32));
        while (e[j])
            j = (j + 1) & L->emask;
        e[j] = old[i];
    }
    free(old);
    return true;
}

static u32 new_node(bpe_lin *L)
{
    if (L->nnodes >= LIN_MAX_NODES)
        return LIN_NONE;
    if (L->nnodes >= L->term_cap) {
        iz c = L->term_cap ? L->term_cap * 2 : 1 << 16;
        u32 *p = realloc(L->term, (size_t)c * sizeof(u32));
        if (!p)
            return LIN_NONE;
        L->term = p;
        L->term_cap = c;
    }
    L->term[L->nnodes] = LIN_NONE;
    return (u32)L->nnodes++;
}

/* Adds the bytes of token `id` to the trie. False when out of memory or
 * nodes. */
static bool trie_add(bpe_lin *L, str key, u32 id)
{
    u32 node = L->root[key.s[0]];
    if (node == LIN_NONE && (node = L->root[key.s[0]] = new_node(L)) == LIN_NONE)
        return false;
    for (iz i = 1; i < key.len; i++) {
        u32 k = (node << 8 | key.s[i]) + 1;
        u32 j = edge_slot(L, k);
        while (L->edge[j] && (u32)(L->edge[j] >> 32) != k)
            j = (j + 1) & L->emask;
        if (L->edge[j]) {
            node = (u32)L->edge[j];
            continue;
        }
        u32 fresh = new_node(L);
        if (fresh == LIN_NONE)
            return false;
        L->edge[j] = (u64)k << 32 | fresh;
        node = fresh;
        if (++L->nedges * 3 > ((iz)L->emask + 1) * 2 && !edges_resize(L, L->nedges * 2))
            return false;
    }
    if (id != LIN_NONE)
        L->term[node] = id;
    return true;
}

typedef struct {
    const u8 *s;   /* the token's bytes, NULL = none or given to two ids */
    u32       len;
} id_bytes;

/* Whether the tokenizer's settings are the ones the argument covers. */
static bool settings_ok(const tok *t, arena *tmp, bool *chars)
{
    if (t->has_prefix || t->has_suffix || t->nids == 0 || t->nids > LIN_MAX_IDS)
        return false;
    if (t->byte_level) {
        for (int b = 0; b < 256; b++)
            if (t->byte_id[b] < 0)
                return false;
        *chars = false;
        return true;
    }
    if (!t->byte_fallback)
        return false;
    for (int b = 0; b < 256; b++)
        if (t->fallback_id[b] < 0)
            return false;
    /* No <0xNN> token takes part in a merge. */
    u8 *fb = NEW(tmp, u8, t->nids);
    for (int j = 0; j < 256; j++)
        if ((u32)t->fallback_id[j] < t->nids)
            fb[t->fallback_id[j]] = 1;
    const merge_map *m = &t->merges;
    for (iz i = 0; i <= m->mask; i++) {
        u32 a, b, rank;
        if (merge_at(m, i, &a, &b, &rank) && ((a < t->nids && fb[a]) || (b < t->nids && fb[b])))
            return false;
    }
    *chars = true;
    return true;
}

/* The matcher tokens: each token's own BPE, shortest first so that a
 * token's two children are decided before it. False when a base symbol is
 * not usable (it would look like a wall). */
static bool pick_tokens(bpe_lin *L, const tok *t, tok_work *w, const id_bytes *ib, const u32 *order, iz norder,
                        iz *total)
{
    for (iz k = 0; k < norder; k++) {
        u32 id = order[k];
        str key = str_from(ib[id].s, ib[id].len);
        bool single = L->chars ? utf8_valid_seq(key.s, key.len) == key.len : key.len == 1;
        if (L->chars && utf8_invalid_at(key) >= 0) {
            L->left_out++;   /* input text is valid UTF-8: never needed */
            continue;
        }
        iz nsym;
        u32 first;
        bpe_last last;
        bool usable =
            merge_word(t, w, key, &nsym, &first, &last) && nsym == 1 && first == id && key.len <= UINT16_MAX;
        bool mono = usable;
        if (usable && last.merged) {
            /* monotone: its children are, and its rank is above theirs */
            const lin_tok *l = &L->tk[last.left], *r = &L->tk[last.right];
            mono = l->mono && r->mono && last.rank + 1 > l->rk && last.rank + 1 > r->rk;
        }
        if (!usable) {
            if (single)
                return false;
            L->left_out++;
            continue;
        }
        lin_tok *z = &L->tk[id];
        z->len = (u16)key.len;
        z->mono = mono;
        L->slow += !mono;
        z->next = LIN_NONE;
        if (last.merged) {
            z->rk = last.rank + 1;
            z->left = last.left;
            z->right = last.right;
        }
        L->ntokens++;
        *total += key.len;
    }
    return true;
}

/* The first free slot at or after i: nxt[j] is j for a free slot, else a
 * slot further on (a taken one points past itself), and the paths are
 * shortened as they are followed (nxt[cap] = cap stops every path). */
static iz free_from(u32 *nxt, iz i)
{
    iz r = i;
    while (nxt[r] != (u32)r)
        r = nxt[r];
    while (nxt[i] != (u32)i) {
        iz up = nxt[i];
        nxt[i] = (u32)r;
        i = up;
    }
    return r;
}

/* Lays the build's trie out as the double array (lin_node), breadth
 * first, each node's children at the first base whose slots are free, then
 * frees the hashed trie. False when out of memory. */
static bool layout(bpe_lin *L)
{
    iz nn = L->nnodes;
    /* the edges by parent (counting sort), each list in byte order */
    u32 *cnt = calloc((size_t)nn + 1, sizeof(u32));
    u32 *kids = malloc((size_t)(nn ? nn : 1) * sizeof(u32));   /* the children, by parent */
    u8 *kb = malloc((size_t)(nn ? nn : 1));                     /* their bytes */
    u32 *queue = malloc((size_t)(nn ? nn : 1) * sizeof(u32));
    u32 *pos = malloc((size_t)(nn ? nn : 1) * sizeof(u32));
    u32 *nxt = NULL;   /* free_from's forest */
    bool ok = cnt && kids && kb && queue && pos;
    if (!ok)
        goto done;
    for (int b = 0; b < 256; b++)
        if (L->root[b] != LIN_NONE)
            cnt[1]++;
    for (iz i = 0; i <= (iz)L->emask; i++)
        if (L->edge[i])
            cnt[(((u32)(L->edge[i] >> 32) - 1) >> 8) + 1]++;
    for (iz i = 1; i <= nn; i++)
        cnt[i] += cnt[i - 1];
    for (int b = 0; b < 256; b++)
        if (L->root[b] != LIN_NONE) {
            kb[cnt[0]] = (u8)b;
            kids[cnt[0]++] = L->root[b];
        }
    for (iz i = 0; i <= (iz)L->emask; i++)
        if (L->edge[i]) {
            u32 key = (u32)(L->edge[i] >> 32) - 1, par = key >> 8;
            kb[cnt[par]] = (u8)key;
            kids[cnt[par]++] = (u32)L->edge[i];
        }
    /* cnt[par] is now the end of par's list, cnt[par - 1] its start */
    for (iz par = 1; par < nn; par++) {
        u32 lo = cnt[par - 1], hi = cnt[par];
        for (u32 i = lo + 1; i < hi; i++)   /* insertion sort by byte: lists are short */
            for (u32 j = i; j > lo && kb[j - 1] > kb[j]; j--) {
                u8 tb = kb[j];
                kb[j] = kb[j - 1];
                kb[j - 1] = tb;
                u32 tc = kids[j];
                kids[j] = kids[j - 1];
                kids[j - 1] = tc;
            }
    }
    iz cap = nn + nn / 4 + 512;
    L->dat = malloc((size_t)cap * sizeof(lin_node));
    nxt = malloc((size_t)(cap + 1) * sizeof(u32));
    if (!L->dat || !nxt) {
        ok = false;
        goto done;
    }
    for (iz i = 0; i < cap; i++) {
        L->dat[i] = (lin_node){0, LIN_NONE, LIN_NONE, 0};
        nxt[i] = (u32)i;
    }
    nxt[cap] = (u32)cap;
    L->dat[0].check = LIN_NONE - 1;   /* the root: taken, nobody's child */
    nxt[0] = 1;
    pos[0] = 0;
    iz qh = 0, qt = 0, top = 1;
    queue[qt++] = 0;
    while (qh < qt) {
        u32 node = queue[qh++], p = pos[node];
        u32 from = node ? cnt[node - 1] : 0, to = cnt[node];
        if (from == to)
            continue;
        /* the first base where every child's slot is free, trying the free
         * slots in order for the first child (nxt finds the next one); after
         * a few hundred, past everything taken */
        iz q = free_from(nxt, (iz)kb[from] + 1), tries = 0;
        for (;;) {
            iz b = q - kb[from];
            if (b + 256 > cap) {
                iz nc = cap * 2;
                lin_node *d = realloc(L->dat, (size_t)nc * sizeof(lin_node));
                u32 *nx = d ? realloc(nxt, (size_t)(nc + 1) * sizeof(u32)) : NULL;
                if (d)
                    L->dat = d;
                if (!nx) {
                    ok = false;
                    goto done;
                }
                nxt = nx;
                for (iz i = cap; i < nc; i++) {
                    d[i] = (lin_node){0, LIN_NONE, LIN_NONE, 0};
                    nxt[i] = (u32)i;
                }
                nxt[nc] = (u32)nc;
                cap = nc;
            }
            u32 i = from;
            while (i < to && L->dat[b + kb[i]].check == LIN_NONE)
                i++;
            if (i == to) {
                L->dat[p].base = (u32)b;
                for (i = from; i < to; i++) {
                    iz at = b + kb[i];
                    L->dat[at].check = p;
                    L->dat[at].term = L->term[kids[i]];
                    nxt[at] = (u32)at + 1;
                    pos[kids[i]] = (u32)at;
                    queue[qt++] = kids[i];
                    if (at + 1 > top)
                        top = at + 1;
                }
                break;
            }
            q = free_from(nxt, ++tries > 256 && q < top ? top : q + 1);
        }
    }
    for (int b = 0; b < 256; b++)
        L->root[b] = L->root[b] == LIN_NONE ? LIN_NONE : pos[L->root[b]];
    for (u32 i = 0; i < 65536; i++)
        L->root2[i] = L->root2[i] == LIN_NONE ? LIN_NONE : pos[L->root2[i]];
    /* every base + 255 inside */
    L->ndat = top + 256 <= cap ? top + 256 : cap;
    lin_node *d = realloc(L->dat, (size_t)L->ndat * sizeof(lin_node));
    if (d)
        L->dat = d;
done:
    free(cnt);
    free(kids);
    free(kb);
    free(queue);
    free(pos);
    free(nxt);
    free(L->edge);
    L->edge = NULL;
    free(L->term);
    L->term = NULL;
    return ok;
}

/* The trie of the matcher tokens, and of every merge's bytes (the two
 * tokens' one after the other): a pair (a, b) whose bytes are no path from
 * a's start (longest's dep) is no merge, and the pair test skips its first
 * lookup. */
static bool build_trie(bpe_lin *L, const tok *t, arena *tmp, const id_bytes *ib, const u32 *order, iz norder)
{
    for (int b = 0; b < 256; b++)
        L->root[b] = LIN_NONE;
    if (!edges_resize(L, 1 << 12) || new_node(L) == LIN_NONE)   /* node 0, the root */
        return false;
    for (iz k = 0; k < norder; k++) {
        u32 id = order[k];
        if (L->tk[id].len && !trie_add(L, str_from(ib[id].s, ib[id].len), id))
            return false;
    }
    /* A merge's token is its two tokens' strings one after the other (the
     * loader finds it so, by that string; an id of two strings is no
     * matcher token), and a matcher token's path is there: only merges
     * whose token is not in the matcher add a path. Most merges are the
     * last of a matcher token's own BPE: a bit by rank, from sequential
     * reads, keeps their tokens' lin_tok unread. */
    const merge_map *m = &t->merges;
    u64 *made = NEW(tmp, u64, (m->nranks >> 6) + 1);
    for (iz id = 0; id < t->nids; id++) {
        u32 rk = L->tk[id].rk;
        if (L->tk[id].len && rk && rk - 1 < (u32)m->nranks)
            bit_set(made, rk - 1);
    }
    u8 *cat = NULL;
    iz catcap = 0;
    for (iz i = 0; i <= m->mask; i++) {
        u32 a, b, rank;
        if (!merge_at(m, i, &a, &b, &rank) || rank >= (u32)m->nranks || bit_get(made, rank))
            continue;
        u32 ab = m->rank_id[rank];
        if ((ab < t->nids && L->tk[ab].len) || a >= t->nids || b >= t->nids || !L->tk[a].len || !L->tk[b].len)
            continue;
        iz la = ib[a].len, lb = ib[b].len;
        if (la + lb > catcap) {
            catcap = 2 * (la + lb) + 64;
            cat = NEW_NZ(tmp, u8, catcap);
        }
        memcpy(cat, ib[a].s, (size_t)la);
        memcpy(cat + la, ib[b].s, (size_t)lb);
        if (!trie_add(L, str_from(cat, la + lb), LIN_NONE))
            return false;
    }
    L->root2 = malloc(65536 * sizeof(u32));
    if (!L->root2)
        return false;
    for (u32 i = 0; i < 65536; i++)
        L->root2[i] = L->root[i >> 8] == LIN_NONE ? LIN_NONE : child(L, L->root[i >> 8], (u8)i);
    /* Each token's next shorter prefix token: the last token on its path
     * before its own node. */
    for (iz k = 0; k < norder; k++) {
        u32 id = order[k];
        lin_tok *z = &L->tk[id];
        if (!z->len)
            continue;
        const u8 *s = ib[id].s;
        u32 node = L->root[s[0]];
        for (u32 i = 1; i < z->len; i++) {
            if (L->term[node] != LIN_NONE)
                z->next = L->term[node];
            node = child(L, node, s[i]);
        }
    }
    return layout(L);
}

/* The byte-pair table: the base symbols of the matcher (byte-level: the
 * 256 bytes' tokens; otherwise the characters below U+0100) and the ranks
 * of their merges. False when out of memory. */
static bool build_pairs(bpe_lin *L, const tok *t)
{
    L->bp = calloc(65536, sizeof(u32));
    if (!L->bp)
        return false;
    for (u32 c = 0; c < 256; c++) {
        i32 id;
        if (L->chars) {
            u8 u[2];
            iz k = c < 0x80 ? (u[0] = (u8)c, 1) : (u[0] = (u8)(0xc0 | c >> 6), u[1] = (u8)(0x80 | (c & 0x3f)), 2);
            id = vocab_find(&t->vocab, u, k);
        } else {
            id = t->byte_id[c];
        }
        if (id < 0 || (u32)id >= t->nids)
            continue;
        lin_tok *z = &L->tk[id];
        if (z->len && !z->rk && z->bix == LIN_NONE)
            z->bix = c;
    }
    const merge_map *m = &t->merges;
    for (iz i = 0; i <= m->mask; i++) {
        u32 a, b, rank;
        if (merge_at(m, i, &a, &b, &rank) && a < t->nids && b < t->nids && L->tk[a].bix != LIN_NONE &&
            L->tk[b].bix != LIN_NONE)
            L->bp[L->tk[a].bix << 8 | L->tk[b].bix] = rank + 1;
    }
    return true;
}

static void lin_free(bpe_lin *L)
{
    if (!L)
        return;
    free(L->tk);
    free(L->mbits);
    free(L->lbits);
    free(L->bp);
    free(L->dat);
    free(L->root2);
    free(L->edge);
    free(L->term);
    free(L);
}

static bpe_lin *build(const tok *t)
{
    double t0 = os_now();
    bpe_lin *volatile L = calloc(1, sizeof(*L));
    tok_work *volatile w = L ? tok_work_new(t) : NULL;
    if (!w) {
        free(L);
        return NULL;
    }
    arena_init(&L->tmp, 0);
    if (setjmp(w->oom)) {
        arena_fini(&L->tmp);
        lin_free(L);
        tok_work_free(w);
        return NULL;
    }
    arena *tmp = &L->tmp;
    tmp->oom = w->scratch.oom = &w->oom;
    bool chars = false, ok = settings_ok(t, tmp, &chars);
    L->chars = chars;
    iz nids = t->nids;
    id_bytes *ib = NEW(tmp, id_bytes, nids);
    u8 *seen = NEW(tmp, u8, nids);
    u32 *order = NEW(tmp, u32, nids);
    iz norder = 0, total = 0;
    if (ok) {
        /* id -> bytes; an id given to two strings is left out. */
        u32 maxlen = 0;
        for (iz i = 0; i <= t->vocab.mask; i++) {
            const vocab_slot *sl = &t->vocab.slots[i];
            if (!sl->used || sl->id >= (u32)nids)
                continue;
            if (seen[sl->id]++ == 0 && sl->len > 0) {
                ib[sl->id] = (id_bytes){sl->key, sl->len};
                if (sl->len > maxlen)
                    maxlen = sl->len;
            } else {
                ib[sl->id].s = NULL;
            }
        }
        /* by length (a counting sort) */
        iz *start = NEW(tmp, iz, (iz)maxlen + 2);
        for (iz id = 0; id < nids; id++)
            if (ib[id].s)
                start[ib[id].len + 1]++;
        for (u32 l = 1; l <= maxlen + 1; l++)
            start[l] += start[l - 1];
        for (iz id = 0; id < nids; id++)
            if (ib[id].s)
                order[start[ib[id].len]++] = (u32)id;
        norder = start[maxlen];
        L->tk = aligned_alloc(32, (size_t)nids * sizeof(lin_tok));
        L->mbits = calloc((size_t)1 << (LIN_MBITS - 6), sizeof(u64));
        L->lbits = calloc((size_t)1 << (LIN_LBITS - 6), sizeof(u64));
        if (L->tk && L->mbits && L->lbits) {
            memset(L->tk, 0, (size_t)nids * sizeof(lin_tok));
            for (iz id = 0; id < nids; id++)
                L->tk[id].minl = L->tk[id].minr = L->tk[id].bix = LIN_NONE;
            const merge_map *m = &t->merges;
            for (iz i = 0; i <= m->mask; i++) {
                u32 a, b, r1;
                if (!merge_at(m, i, &a, &b, &r1))
                    continue;
                r1++;
                bloom_add(L->mbits, LIN_MBITS, a, b);
                if (r1 <= LIN_LOW)
                    bloom_add(L->lbits, LIN_LBITS, a, b);
                if (a >= (u32)nids || b >= (u32)nids)
                    continue;
                if (r1 < L->tk[a].minl)
                    L->tk[a].minl = r1;
                if (r1 < L->tk[b].minr)
                    L->tk[b].minr = r1;
            }
        }
        ok = L->tk && L->mbits && L->lbits && pick_tokens(L, t, w, ib, order, norder, &total) &&
             build_trie(L, t, tmp, ib, order, norder) && build_pairs(L, t);
    }
    arena_fini(tmp);
    tok_work_free(w);
    if (!ok) {
        lin_free(L);
        return NULL;
    }
    L->bytes = (iz)sizeof(*L) + nids * (iz)sizeof(lin_tok) + L->ndat * (iz)sizeof(lin_node) + 65536 * 4 * 2 +
               ((iz)1 << LIN_MBITS) / 8 + ((iz)1 << LIN_LBITS) / 8;
    L->build_s = os_now() - t0;
    return L;
}

const bpe_lin *bpe_lin_get(const tok *t)
{
    int st = atomic_load_explicit(&t->lin_state, memory_order_acquire);
    if (st == 1)
        return t->lin;
    if (st == 2 || !t->lin_mu_ok)
        return NULL;
    /* The tokenizer is shared read-only; these fields are the one part
     * written after the load, once, under the mutex. */
    tok *mt = (tok *)(uintptr_t)t;
    pthread_mutex_lock(&mt->lin_mu);
    if (atomic_load_explicit(&mt->lin_state, memory_order_relaxed) == 0) {
        mt->lin = build(t);
        atomic_store_explicit(&mt->lin_state, mt->lin ? 1 : 2, memory_order_release);
    }
    pthread_mutex_unlock(&mt->lin_mu);
    return mt->lin;
}

const bpe_lin *bpe_lin_built(const tok *t)
{
    return atomic_load_explicit(&t->lin_state, memory_order_acquire) == 1 ? t->lin : NULL;
}

const bpe_lin *bpe_lin_ready(const tok *t, iz len)
{
    int st = atomic_load_explicit(&t->lin_state, memory_order_acquire);
    if (st == 1)
        return t->lin;
    if (st == 2)
        return NULL;
    tok *mt = (tok *)(uintptr_t)t;   /* the counter is written after the load, as lin */
    /* in 1/64 bytes: a long word counts 64 a byte, a short one 1 */
    long long add = len >= BPE_LIN_MIN ? (long long)len * BPE_LIN_SHORT_WEIGHT : len;
    if (atomic_fetch_add_explicit(&mt->lin_seen, add, memory_order_relaxed) + add <
        (long long)BPE_LIN_BUILD_AFTER * BPE_LIN_SHORT_WEIGHT)
        return NULL;
    return bpe_lin_get(t);
}

bool bpe_lin_stats(const tok *t, bpe_lin_info *info)
{
    const bpe_lin *L = bpe_lin_get(t);
    if (!L)
        return false;
    info->tokens = L->ntokens;
    info->left_out = L->left_out;
    info->slow = L->slow;
    info->nodes = L->nnodes;
    info->bytes = L->bytes;
    info->build_s = L->build_s;
    info->chars = L->chars;
    return true;
}

void bpe_lin_free(tok *t)
{
    lin_free(t->lin);
    t->lin = NULL;
    if (t->lin_mu_ok) {
        pthread_mutex_destroy(&t->lin_mu);
        t->lin_mu_ok = false;
    }
}
