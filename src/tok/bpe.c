/* bpe.c - the BPE model on one pre-token, exactly as the Rust library's
 * BPE::merge_word and Word::merge_all do it: initial symbols per character
 * (per byte in byte-level tokenizers), byte fallback and unknown-token
 * fusing, then merges applied lowest rank first (leftmost among equal ranks)
 * from a binary heap, so a huge pre-token costs O(n log n), not O(n^2).
 * A per-thread cache maps short words to their ids. */
#include <stdlib.h>
#include "tok_model.h"
#include "split_fast.h"
#include "../base/hash.h"
#include "../base/utf8.h"

typedef struct {
    u32 id;
    u32 len;          /* bytes covered; 0 = merged into its left neighbour */
    i32 prev, next;   /* -1 = none */
    u32 pair;         /* merge_all: the rank of the merge of it and next, NO_PAIR = none */
} sym;

#define NO_PAIR 0xffffffffu

/* A queued merge: rank in the high half, position in the low half, so the
 * smallest value is the lowest rank, leftmost among equals (the order of the
 * Rust library's heap). The merged id is rank_id[rank]. */
typedef u64 mrg;
#define MRG(rank, pos) ((u64)(rank) << 32 | (u32)(pos))

/* ---- word caches -------------------------------------------------------
 *
 * Two levels. The first is direct-mapped, one 64-byte line per word, key
 * and ids inline, so the common case (a word seen before) costs one cache
 * line: most pre-tokens are short and give few ids. A colliding word simply
 * replaces the old one. The second holds longer words and longer id lists
 * in blobs and is cleared when full. Both hold final answers, so neither
 * can change a result. */

enum {
    L1_BITS  = 14,
    L1_SLOTS = 1 << L1_BITS,        /* x 64 bytes = 1 MiB */
    L1_KEY   = 32,
    L1_IDS   = 5,
};

typedef struct {
    u64 h;                          /* 0 = empty */
    u8  key[L1_KEY];
    u8  len, n;
    u16 pad;
    u32 ids[L1_IDS];
} l1_slot;

struct tok_l1 {
    l1_slot slots[L1_SLOTS];
};

/* a[0..n) == b[0..n) for 0 < n <= L1_KEY (bpe_word never looks up an empty
 * word), without a call: word-sized loads that stay inside both (the last
 * ones overlap the earlier ones). */
static inline bool key_eq(const u8 *a, const u8 *b, iz n)
{
    if (n >= 8) {
        for (iz i = 0; i + 8 < n; i += 8)
            if (hash_load8(a + i) != hash_load8(b + i))
                return false;
        return hash_load8(a + n - 8) == hash_load8(b + n - 8);
    }
    if (n >= 4)
        return hash_load4(a) == hash_load4(b) && hash_load4(a + n - 4) == hash_load4(b + n - 4);
    return a[0] == b[0] && a[n >> 1] == b[n >> 1] && a[n - 1] == b[n - 1];
}

/* The first level's own hash of a word of 1 to L1_KEY bytes, cheaper than
 * hash_str: word loads that cover every byte, one multiply; the slot is
 * taken from its high bits. A weak hash only costs misses: a hit compares
 * the key. Never 0 (an empty slot). */
static inline u64 l1_hash(str word)
{
    const u8 *p = word.s;
    iz n = word.len;
    u64 a, b;
    if (n >= 8) {
        a = hash_load8(p);
        b = hash_load8(p + n - 8);
        if (n > 16) {
            a ^= hash_load8(p + 8) * 0xc2b2ae3d27d4eb4fu;
            b ^= hash_load8(p + n - 16) * 0x165667b19e3779f9u;
        }
    } else if (n >= 4) {
        a = hash_load4(p);
        b = hash_load4(p + n - 4);
    } else {
        a = (u64)p[0] << 16 | (u64)p[n >> 1] << 8 | p[n - 1];
        b = 0;
    }
    u64 h = (a ^ (b << 29 | b >> 35) ^ (u64)n << 58) * 0x9e3779b97f4a7c15u;
    return (h ^ h >> 31) | 1;
}

static inline l1_slot *l1_slot_of(tok_work *w, u64 h)
{
    return &w->l1->slots[h >> (64 - L1_BITS)];
}

/* The entry of the word of 1 to L1_KEY bytes whose l1_hash is h. */
static inline l1_slot *l1_find(tok_work *w, str word, u64 h)
{
    l1_slot *s = l1_slot_of(w, h);
    if (s->h == h && s->len == word.len && key_eq(s->key, word.s, word.len))
        return s;
    return NULL;
}

/* h: the word's hash (word_hash) */
static inline void l1_put(tok_work *w, str word, u64 h, const u32 *ids, iz n)
{
    if (word.len > L1_KEY || n > L1_IDS)
        return;
    l1_slot *s = l1_slot_of(w, h);
    s->h = h;
    memcpy(s->key, word.s, (size_t)word.len);
    s->len = (u8)word.len;
    s->n = (u8)n;
    if (n)
        memcpy(s->ids, ids, (size_t)n * sizeof(u32));
}

enum {
    CACHE_SLOTS     = 1 << 16,
    CACHE_MAX_WORD  = 256,          /* longer words are not cached */
    CACHE_KEY_BYTES = 1 << 22,
    CACHE_IDS       = 1 << 19,
};

typedef struct {
    u64 h;            /* 0 = empty */
    u32 key_off, key_len;
    u32 ids_off, nids;
} cache_slot;

struct tok_cache {
    cache_slot *slots;
    u8         *keys;
    u32        *ids;
    iz          nslots, nkeys, nidsused;
};

/* A word's hash for both levels, for 1 to CACHE_MAX_WORD bytes: the first
 * level's where it can hold the word, else hash_str's. Never 0. */
static inline u64 word_hash(str word)
{
    return word.len <= L1_KEY ? l1_hash(word) : hash_str(word) | 1;
}

/* The second level's first slot of hash h (bits 1-16: bit 0 is always set). */
static inline iz cache_at(u64 h) { return (iz)(h >> 1 & (CACHE_SLOTS - 1)); }

static tok_cache *cache_new(tok_work *w)
{
    tok_cache *c = calloc(1, sizeof(*c));
    if (c) {
        c->slots = calloc(CACHE_SLOTS, sizeof(cache_slot));
        c->keys = malloc(CACHE_KEY_BYTES);
        c->ids = malloc(CACHE_IDS * sizeof(u32));
    }
    if (!c || !c->slots || !c->keys || !c->ids) {
        if (c) {
            free(c->slots);
            free(c->keys);
            free(c->ids);
            free(c);
        }
        longjmp(w->oom, 1);
    }
    return c;
}

static void cache_clear(tok_cache *c)
{
    memset(c->slots, 0, CACHE_SLOTS * sizeof(cache_slot));
    c->nslots = c->nkeys = c->nidsused = 0;
}

static const cache_slot *cache_get(const tok_cache *c, str word, u64 h)
{
    iz i = cache_at(h);
    for (;;) {
        const cache_slot *s = &c->slots[i];
        if (!s->h)
            return NULL;
        if (s->h == h && s->key_len == word.len && memcmp(c->keys + s->key_off, word.s, (size_t)word.len) == 0)
            return s;
        i = (i + 1) & (CACHE_SLOTS - 1);
    }
}

static void cache_put(tok_cache *c, str word, u64 h, const u32 *ids, iz n)
{
    if (c->nslots >= CACHE_SLOTS / 2 || c->nkeys + word.len > CACHE_KEY_BYTES || c->nidsused + n > CACHE_IDS)
        cache_clear(c);
    iz i = cache_at(h);
    while (c->slots[i].h)
        i = (i + 1) & (CACHE_SLOTS - 1);
    cache_slot *s = &c->slots[i];
    s->h = h;
    s->key_off = (u32)c->nkeys;
    s->key_len = (u32)word.len;
    s->ids_off = (u32)c->nidsused;
    s->nids = (u32)n;
    memcpy(c->keys + c->nkeys, word.s, (size_t)word.len);
    if (n)
        memcpy(c->ids + c->nidsused, ids, (size_t)n * sizeof(u32));
    c->nkeys += word.len;
    c->nidsused += n;
    c->nslots++;
}

/* ---- growable work arrays ---------------------------------------------- */

void *tok_work_grow_slow(tok_work *w, void *p, iz *cap, iz need, iz size)
{
    iz c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, (size_t)(c * size));
    if (!q)
        longjmp(w->oom, 1);
    *cap = c;
    return q;
}

static void out_ids(tok_work *w, const u32 *ids, iz n)
{
    if (!n)
        return;
    w->ids = tok_work_grow(w, w->ids, &w->capids, w->nids + n, sizeof(u32));
    memcpy(w->ids + w->nids, ids, (size_t)n * sizeof(u32));
    w->nids += n;
}

void bpe_work_fini(tok_work *w)
{
    free(w->bpe_sym);
    free(w->bpe_heap);
    free(w->lin_dead);
    free(w->lin_dep);
    w->lin_dep = NULL;
    w->lin_dep_cap = 0;
    free(w->lin_pairs);
    w->lin_pairs = NULL;
    w->lin_pairs_for = NULL;
    w->lin_dead = NULL;
    w->lin_dead_cap = 0;
    free(w->l1);
    w->l1 = NULL;
    if (w->cache) {
        free(w->cache->slots);
        free(w->cache->keys);
        free(w->cache->ids);
        free(w->cache);
    }
    w->bpe_sym = w->bpe_heap = NULL;
    w->cache = NULL;
    w->bpe_sym_cap = w->bpe_heap_cap = 0;
}

/* ---- merge queue: min-heap on (rank, pos) ------------------------------- */

static inline bool before(mrg a, mrg b) { return a < b; }

static ALWAYS_INLINE void heap_push(tok_work *w, iz *n, mrg m)
{
    mrg *h = w->bpe_heap = tok_work_grow(w, w->bpe_heap, &w->bpe_heap_cap, *n + 1, sizeof(mrg));
    iz i = (*n)++;
    while (i > 0) {
        iz parent = (i - 1) / 2;
        if (!before(m, h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = m;
}

/* Floyd's pop: the hole goes down to a leaf along the smaller children
 * (a select, not a branch, each level), then the last entry climbs back
 * up from there, which is short: it was a leaf already. Keys are plain
 * integers, so any min-heap pops them in the same order. */
static mrg heap_pop(tok_work *w, iz *n)
{
    mrg *h = w->bpe_heap;
    mrg top = h[0];
    iz len = --(*n);
    if (len == 0)
        return top;
    mrg last = h[len];
    iz i = 0;
    for (;;) {
        iz l = 2 * i + 1;
        if (l + 1 < len) {
            iz m = l + (h[l + 1] < h[l]);
            h[i] = h[m];
            i = m;
        } else {
            if (l < len) {
                h[i] = h[l];
                i = l;
            }
            break;
        }
    }
    while (i > 0) {
        iz parent = (i - 1) / 2;
        if (!before(last, h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = last;
    return top;
}

/* ---- initial symbols ------------------------------------------------------ */

typedef struct {
    sym *v;
    iz   n;
} symbols;

/* A symbol more, in room initial_symbols made. */
static inline void add_sym(symbols *s, u32 id, iz len)
{
    sym *x = &s->v[s->n];
    x->id = id;
    x->len = (u32)len;
    x->prev = (i32)s->n - 1;
    x->next = (i32)s->n + 1;
    s->n++;
}

/* The vocab lookup of one character (or byte) with the subword prefix and
 * word suffix rules. Returns the id or -1; `key` receives the looked-up
 * string for byte fallback. */
static i32 lookup_char(const tok *t, str ch, bool first, bool last, u8 *tmp, str *key)
{
    if (!t->has_prefix && !t->has_suffix) {
        *key = ch;
        if (ch.len == 1) {
            if (t->byte_level)
                return t->byte_id[ch.s[0]];
            if (ch.s[0] < 0x80)
                return t->ascii_id[ch.s[0]];
        }
        if (t->bmp_id && (ch.len == 2 || ch.len == 3) && utf8_valid_seq(ch.s, ch.len) == ch.len) {
            iz k = 0;
            return t->bmp_id[utf8_next(ch.s, &k)];
        }
        return vocab_find(&t->vocab, ch.s, ch.len);
    }
    iz n = 0;
    if (!first && t->has_prefix) {
        memcpy(tmp, t->prefix.s, (size_t)t->prefix.len);
        n += t->prefix.len;
    }
    memcpy(tmp + n, ch.s, (size_t)ch.len);
    n += ch.len;
    if (last && t->has_suffix) {
        memcpy(tmp + n, t->suffix.s, (size_t)t->suffix.len);
        n += t->suffix.len;
    }
    *key = str_from(tmp, n);
    return vocab_find(&t->vocab, tmp, n);
}

static int initial_symbols(const tok *t, tok_work *w, str word, symbols *s, err *e)
{
    if (t->byte_pair) {
        /* every byte a symbol of its own, no prefix or suffix (tok_model.h):
         * nothing to look up but the byte's id */
        sym *v = s->v = w->bpe_sym = tok_work_grow(w, w->bpe_sym, &w->bpe_sym_cap, word.len, sizeof(sym));
        for (iz i = 0; i < word.len; i++)
            v[i] = (sym){(u32)t->byte_id[word.s[i]], 1, (i32)i - 1, (i32)i + 1, 0};
        s->n = word.len;
        if (s->n)
            v[s->n - 1].next = -1;
        return ERR_OK;
    }
    /* the most symbols a word can start with: one a byte of what is
     * looked up (byte fallback), prefix and suffix included */
    s->v = w->bpe_sym = tok_work_grow(w, w->bpe_sym, &w->bpe_sym_cap,
                                      word.len * (1 + t->prefix.len + t->suffix.len), sizeof(sym));
    u8 small[64];
    u8 *tmp = small;
    iz need = t->prefix.len + t->suffix.len + 4;
    if (need > (iz)sizeof(small))
        tmp = NEW_NZ(&w->scratch, u8, need);
    bool have_unk = false;
    u32 unk_id = 0;
    iz unk_len = 0;
    iz i = 0;
    while (i < word.len) {
        iz b = i;
        if (t->byte_level)
            i++;
        else
            i += utf8_len(word.s[i]);
        str ch = str_cut(word, b, i), key;
        i32 id = lookup_char(t, ch, b == 0, i == word.len, tmp, &key);
        if (id >= 0) {
            if (have_unk) {
                add_sym(s, unk_id, unk_len);
                have_unk = false;
            }
            add_sym(s, (u32)id, ch.len);
            continue;
        }
        if (t->byte_fallback) {
            bool all = true;
            for (iz k = 0; k < key.len && all; k++)
                all = t->fallback_id[key.s[k]] >= 0;
            if (all) {
                /* As in the Rust library, a pending unknown token is not
                 * flushed here: it goes after these bytes. */
                for (iz k = 0; k < key.len; k++)
                    add_sym(s, (u32)t->fallback_id[key.s[k]], 1);
                continue;
            }
        }
        if (!t->has_unk)
            continue;   /* no unk_token: the character is dropped, as upstream */
        if (t->unk_id < 0)
            return err_set(e, ERR_INVALID, -1, "unk_token \"%.*s\" is not in the vocabulary",
                           (int)t->unk.len, (const char *)t->unk.s);
        if (have_unk && t->fuse_unk) {
            unk_len += ch.len;
        } else {
            if (have_unk)
                add_sym(s, unk_id, unk_len);
            have_unk = true;
            unk_id = (u32)t->unk_id;
            unk_len = ch.len;
        }
    }
    if (have_unk)
        add_sym(s, unk_id, unk_len);
    if (s->n)
        s->v[s->n - 1].next = -1;
    return ERR_OK;
}

/* The merges, lowest rank first, leftmost among equals. `last` (may be
 * NULL) receives the last merge applied. `bytes`, when t->byte_pair is
 * there, is the word: its byte i is symbol i. */
static void merge_all(const tok *t, tok_work *w, symbols *s, bpe_last *last, const u8 *bytes)
{
    sym *v = s->v;
    iz hn = 0;
    /* Each symbol keeps the rank of its pair with the next one, set when
     * the pair is made: a queued entry is stale when the pair at its
     * position changed, that is when that rank's merged id is no longer
     * the entry's (the Rust library looks the pair up again and compares
     * the ids; the pair's merge cannot change while the pair stays). */
    if (s->n)
        v[s->n - 1].pair = NO_PAIR;
    if (t->byte_pair) {
        for (iz i = 0; i + 1 < s->n; i++) {
            u32 r1 = t->byte_pair[(u32)bytes[i] << 8 | bytes[i + 1]];
            v[i].pair = r1 - 1;   /* 0 - 1 = NO_PAIR */
            if (r1)
                heap_push(w, &hn, MRG(r1 - 1, i));
        }
    } else if (t->char_pair) {
        const u8 *ix = t->char_ix;
        for (iz i = 0; i + 1 < s->n; i++) {
            u32 xa = ix[v[i].id], xb = ix[v[i + 1].id], rank = NO_PAIR;
            bool found;
            if (xa && xb) {
                rank = t->char_pair[xa << 8 | xb] - 1;   /* 0 - 1 = NO_PAIR */
                found = rank != NO_PAIR;
            } else {
                found = merge_maybe(&t->merges, v[i].id, v[i + 1].id, &rank);
            }
            v[i].pair = found ? rank : NO_PAIR;
            if (found)
                heap_push(w, &hn, MRG(rank, i));
        }
    } else {
        for (iz i = 0; i + 1 < s->n; i++) {
            u32 rank;
            bool found = merge_maybe(&t->merges, v[i].id, v[i + 1].id, &rank);
            v[i].pair = found ? rank : NO_PAIR;
            if (found)
                heap_push(w, &hn, MRG(rank, i));
        }
    }
    const u32 *rank_id = t->merges.rank_id;
    while (hn) {
        mrg top = heap_pop(w, &hn);
        u32 top_pos = (u32)top, top_rank = (u32)(top >> 32), top_id = rank_id[top_rank];
        sym *cur = &v[top_pos];
        if (cur->len == 0 || cur->next < 0)
            continue;
        /* A stale entry: the pair at this position changed since it was queued. */
        if (cur->pair != top_rank && (cur->pair == NO_PAIR || rank_id[cur->pair] != top_id))
            continue;
        sym *right = &v[cur->next];
        u32 rank;
        if (last)
            *last = (bpe_last){cur->id, right->id, top_rank, true};
        cur->id = top_id;
        cur->len += right->len;
        right->len = 0;
        cur->next = right->next;
        if (right->next >= 0)
            v[right->next].prev = (i32)top_pos;
        if (cur->prev >= 0) {
            sym *p = &v[cur->prev];
            bool found = merge_maybe(&t->merges, p->id, cur->id, &rank);
            p->pair = found ? rank : NO_PAIR;
            if (found)
                heap_push(w, &hn, MRG(rank, cur->prev));
        }
        cur->pair = NO_PAIR;
        if (cur->next >= 0 && merge_maybe(&t->merges, cur->id, v[cur->next].id, &rank)) {
            cur->pair = rank;
            heap_push(w, &hn, MRG(rank, top_pos));
        }
    }
}

/* The next cut of `word` (tok_model.h, seg_on) at or after byte `from`
 * (>= 1), or word.len: the start of a run of U+2581 after a character of
 * the BMP that is a one-character token (a symbol of its own) and none of
 * t->seg_bad. */
static iz seg_cut(const tok *t, str word, iz from)
{
    const u8 *s = word.s;
    iz n = word.len;
    for (iz p = from; p + 3 <= n;) {
        const u8 *q = memchr(s + p, 0xe2, (size_t)(n - 2 - p));
        if (!q)
            break;
        p = q - s;
        if (q[1] != 0x96 || q[2] != 0x81) {
            p++;
            continue;
        }
        iz k = utf8_prev(s, p);
        u32 c = utf8_next(s, &k);
        /* lookup_char's tables, read directly (the call costs a tenth of
         * gemma3's cold natural text, one a word); beyond U+FFFF, no cut */
        i32 id = c < 0x80 ? t->ascii_id[c] : c < 0x10000 ? t->bmp_id[c] : -1;
        if (c != 0x2581 && id >= 0) {
            bool bad = false;
            for (int j = 0; j < t->nseg_bad; j++)
                bad |= t->seg_bad[j] == c;
            if (!bad)
                return p;
        }
        /* the rest of the run: no cut inside it */
        for (p += 3; p + 3 <= n && s[p] == 0xe2 && s[p + 1] == 0x96 && s[p + 2] == 0x81;)
            p += 3;
    }
    return n;
}

static int word_of(const tok *t, tok_work *w, str word, i64 *count, bool want_ids, bool seg, err *e);

/* The end of a word the caches missed, its n ids at w->ids + base: counted,
 * remembered (h, 0 when too long), and kept only when wanted. */
static int word_done(tok_work *w, str word, u64 h, iz base, iz n, i64 *count, bool want_ids)
{
    *count += n;
    if (h) {
        cache_put(w->cache, word, h, w->ids + base, n);
        l1_put(w, word, h, w->ids + base, n);
    }
    if (!want_ids)
        w->nids = base;
    return ERR_OK;
}

/* A word with a cut at `cut`, the caches having missed it: the parts one
 * after the other (each through the caches), then the whole remembered as
 * well (`h`, 0 when too long). */
static NOINLINE int seg_word(const tok *t, tok_work *w, str word, u64 h, iz cut, i64 *count, bool want_ids,
                             err *e)
{
    iz base = w->nids;
    i64 n = 0;
    for (iz from = 0; from < word.len;) {
        int rc = word_of(t, w, str_cut(word, from, cut), &n, want_ids || h, false, e);
        if (rc)
            return rc;
        from = cut;
        cut = seg_cut(t, word, from + 1);
    }
    return word_done(w, word, h, base, n, count, want_ids);
}

/* A word the first-level cache does not have: the second level, else its
 * parts when it has a cut (and `seg`), else the merges. `h` is the word's
 * hash, or 0 when it is too long to cache. Kept out of bpe_word so that a
 * first-level hit costs a small function. */
static NOINLINE int bpe_word_slow(const tok *t, tok_work *w, str word, u64 h, i64 *count, bool want_ids,
                                  bool seg, err *e)
{
    if (h) {
        if (!w->cache) {
            w->cache = cache_new(w);
            w->l1 = calloc(1, sizeof(*w->l1));
            if (!w->l1)
                longjmp(w->oom, 1);
        }
        const cache_slot *hit = cache_get(w->cache, word, h);
        if (hit) {
            *count += hit->nids;
            if (want_ids)
                out_ids(w, w->cache->ids + hit->ids_off, hit->nids);
            l1_put(w, word, h, w->cache->ids + hit->ids_off, hit->nids);
            return ERR_OK;
        }
    }
    if (t->ignore_merges) {
        i32 id = vocab_maybe(&t->vocab, word.s, word.len);
        if (id >= 0) {
            u32 u = (u32)id;
            *count += 1;
            if (want_ids)
                out_ids(w, &u, 1);
            if (h) {
                cache_put(w->cache, word, h, &u, 1);
                l1_put(w, word, h, &u, 1);
            }
            return ERR_OK;
        }
    }
    iz base = w->nids;
    iz n = -1;
    if (word.len >= BPE_LIN_USE && !w->bpe_no_linear) {
        /* the parts of a word with cuts were weighed with it */
        const bpe_lin *lin = seg ? bpe_lin_ready(t, word.len) : bpe_lin_built(t);
        if (lin)
            n = bpe_lin_encode(lin, t, w, word);   /* -1: the merge loop decides */
    }
    /* Before the linear encoder is built, a word with cuts goes to the
     * merge loop in parts: the parts are words the caches know (the whole
     * piece, a line of prose, seldom repeats). The linear encoder is as fast
     * on the whole as on the parts, which would add their cache traffic. */
    if (n < 0 && seg && t->seg_on && !w->bpe_no_seg) {
        iz cut = seg_cut(t, word, 1);
        if (cut < word.len)
            return seg_word(t, w, word, h, cut, count, want_ids, e);
    }
    if (n < 0) {
        symbols s = {w->bpe_sym, 0};
        int rc = initial_symbols(t, w, word, &s, e);
        if (rc)
            return rc;
        merge_all(t, w, &s, NULL, word.s);
        /* Collect the surviving symbols into the output (or a scratch list
         * for the cache): along the links, from the first symbol, which no
         * merge removes. */
        n = 0;
        for (iz i = 0; i >= 0 && i < s.n; i = s.v[i].next)
            n++;
        w->ids = tok_work_grow(w, w->ids, &w->capids, w->nids + n, sizeof(u32));
        u32 *out = w->ids + w->nids;
        for (iz i = 0; i >= 0 && i < s.n; i = s.v[i].next)
            *out++ = s.v[i].id;
        w->nids += n;
    }
    return word_done(w, word, h, base, n, count, want_ids);
}

int bpe_merge_word(const tok *t, tok_work *w, str word, iz *nsym, u32 *first, bpe_last *last, err *e)
{
    symbols s = {w->bpe_sym, 0};
    *last = (bpe_last){0, 0, 0, false};
    int rc = initial_symbols(t, w, word, &s, e);
    if (rc)
        return rc;
    merge_all(t, w, &s, last, word.s);
    *nsym = 0;
    for (iz i = 0; i < s.n; i++)
        if (s.v[i].len) {
            if (*nsym == 0)
                *first = s.v[i].id;
            ++*nsym;
        }
    return ERR_OK;
}

/* bpe_word; `seg` false for the parts of a word with cuts (they have none). */
static inline int word_of(const tok *t, tok_work *w, str word, i64 *count, bool want_ids, bool seg, err *e)
{
    if (word.len == 0)
        return ERR_OK;
    /* One byte of a byte-level tokenizer is one symbol and nothing to
     * merge; ignore_merges asks the vocabulary, which holds the same id. */
    if (word.len == 1 && t->byte_level && t->byte_id[word.s[0]] >= 0 && !t->has_prefix && !t->has_suffix) {
        u32 u = (u32)t->byte_id[word.s[0]];
        *count += 1;
        if (want_ids)
            out_ids(w, &u, 1);
        return ERR_OK;
    }
    /* The caches hold final answers, whichever rule produced them, so they
     * are asked first: they are small and hot, the vocabulary is not. */
    if (word.len > CACHE_MAX_WORD)
        return bpe_word_slow(t, w, word, 0, count, want_ids, seg, e);
    u64 h = word_hash(word);
    const l1_slot *l1 = word.len <= L1_KEY && w->l1 ? l1_find(w, word, h) : NULL;
    if (l1) {
        *count += l1->n;
        if (want_ids)
            out_ids(w, l1->ids, l1->n);
        return ERR_OK;
    }
    return bpe_word_slow(t, w, word, h, count, want_ids, seg, e);
}

int bpe_word(const tok *t, tok_work *w, str word, i64 *count, bool want_ids, err *e)
{
    return word_of(t, w, word, count, want_ids, true, e);
}

/* Counting only: adds the tokens of a word the first level has and says
 * so (one-byte words skip it: bpe_word answers those at once). `h`
 * receives the word's hash when the first level was asked, else 0. */
static ALWAYS_INLINE bool l1_count(tok_work *w, str word, i64 *count, u64 *h)
{
    *h = 0;
    if (word.len < 2 || word.len > L1_KEY || !w->l1)
        return false;
    *h = l1_hash(word);
    const l1_slot *l1 = l1_find(w, word, *h);
    if (!l1)
        return false;
    *count += l1->n;
    return true;
}

/* Counting a word l1_count lacks: past the first level when it was asked
 * (h, its hash; the word then has 2 to L1_KEY bytes), else bpe_word. */
static inline int count_missed(const tok *t, tok_work *w, str word, u64 h, i64 *count, err *e)
{
    return h ? bpe_word_slow(t, w, word, h, count, false, true, e) : word_of(t, w, word, count, false, true, e);
}

int bpe_each_word(void *ctx, str word)
{
    const bpe_words *c = ctx;
    if (c->want_ids)
        return bpe_word(c->t, c->w, word, c->count, true, c->e);
    u64 h;
    if (l1_count(c->w, word, c->count, &h))
        return ERR_OK;
    return count_missed(c->t, c->w, word, h, c->count, c->e);
}

/* The end of the split's match at i (> i: these patterns match at every
 * position): split_fast.h's, PCRE2's where that one cannot say (which is
 * not asked to try the hand-written matcher again: it may have read far). */
static NOINLINE int split_engine(const tok_regex *split, tok_work *w, str text, iz i, iz *end, err *e)
{
    iz mb, me;
    int r = tok_regex_find_engine(split, w, text, i, &mb, &me, e);
    if (r < 0)
        return -r;
    if (r == 0 || mb != i || me <= i)
        return err_set(e, ERR_INVALID, i, "the split pattern did not match at byte %td", i);
    *end = me;
    return ERR_OK;
}

/* Inline in the loops below, each made twice (`ascii` a constant). */
static ALWAYS_INLINE int split_end(const tok_regex *split, tok_work *w, str text, iz i, int digits, bool ascii,
                                   iz *end, err *e)
{
    iz fe = ascii ? fast_match_ascii(text.s, text.len, i, digits) : fast_match_in(text.s, text.len, i, digits, false);
    if (fe >= 0) {
        *end = fe;
        return ERR_OK;
    }
    return split_engine(split, w, text, i, end, e);
}

static ALWAYS_INLINE int count_split(const tok *t, tok_work *w, const tok_regex *split, str text, int digits,
                                    bool ascii, i64 *count, err *e)
{
    iz n = text.len;
    for (iz i = 0; i < n;) {
        iz end;
        int rc = split_end(split, w, text, i, digits, ascii, &end, e);
        if (rc)
            return rc;
        str word = str_cut(text, i, end);
        i = end;
        u64 h;
        if (l1_count(w, word, count, &h))
            continue;
        rc = count_missed(t, w, word, h, count, e);
        if (rc)
            return rc;
    }
    return ERR_OK;
}

int bpe_count_split(const tok *t, tok_work *w, const tok_regex *split, str text, int digits, bool ascii, i64 *count,
                    err *e)
{
    return ascii ? count_split(t, w, split, text, digits, true, count, e)
                 : count_split(t, w, split, text, digits, false, count, e);
}

/* Whether a checkpoint may sit at match start i > 0 (tok_model.h): the
 * bytes on either side are not both whitespace; only ASCII bytes are
 * judged, a byte of a longer character counting as possible whitespace. */
static inline bool mark_ok(const u8 *s, iz i)
{
    const u8 *cls = tok_ascii_cls;
    return (s[i - 1] < 0x80 && !(cls[s[i - 1]] & C_WS)) || (s[i] < 0x80 && !(cls[s[i]] & C_WS));
}

/* bpe_count_split_remembered from the checkpoint `from` on. */
static ALWAYS_INLINE int count_remembered(const tok *t, tok_work *w, pfx_store *p, const tok_regex *split, str text,
                                         int digits, bool ascii, pfx_mark from, i64 *count, err *e)
{
    const u8 *s = text.s;
    iz n = text.len;
    i64 c = from.count;                       /* the words before i */
    iz next = from.at + PFX_STRIDE;           /* the next checkpoint, at or after */
    for (iz i = from.at; i < n;) {
        if (i >= next && mark_ok(s, i)) {
            pfx_mark_at(p, i, c);
            next = i + PFX_STRIDE;
        }
        iz end;
        int rc = split_end(split, w, text, i, digits, ascii, &end, e);
        if (rc)
            return rc;
        str word = str_cut(text, i, end);
        i = end;
        u64 h;
        if (l1_count(w, word, &c, &h))
            continue;
        rc = count_missed(t, w, word, h, &c, e);
        if (rc)
            return rc;
    }
    pfx_commit(p, text, digits, c);
    *count += c;
    return ERR_OK;
}

int bpe_count_split_remembered(const tok *t, tok_work *w, pfx_store *p, const tok_regex *split, str text,
                               int digits, bool ascii, i64 *count, err *e)
{
    pfx_mark from;
    if (pfx_start(p, text, digits, &from) && from.at == text.len) {
        *count += from.count;
        return ERR_OK;
    }
    return ascii ? count_remembered(t, w, p, split, text, digits, true, from, count, e)
                 : count_remembered(t, w, p, split, text, digits, false, from, count, e);
}
