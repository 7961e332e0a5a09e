/* vocab.c - the two load-time hash tables of a BPE model: token string -> id
 * and (left id, right id) -> rank (tok_model.h). Open addressing with linear
 * probing at load factor <= 1/2; built once, then read-only. */
#include "tok_model.h"
#include "../base/hash.h"

static iz table_size(iz n)
{
    iz size = 16;
    while (size < 2 * n + 2)
        size *= 2;
    return size;
}

void tok_bloom_init(arena *perm, tok_bloom *b, iz n)
{
    b->bits = 6;
    while (b->bits < 20 && ((iz)1 << b->bits) * 64 < 7 * n)
        b->bits++;
    b->w = NEW(perm, u64, (iz)1 << b->bits);
}

void vocab_init(arena *perm, vocab_map *m, iz n)
{
    iz size = table_size(n);
    m->slots = NEW(perm, vocab_slot, size);
    m->n = 0;
    m->mask = size - 1;
    tok_bloom_init(perm, &m->filter, n);
}

void vocab_put(vocab_map *m, str key, u32 id)
{
    u64 h = hash_str(key);
    tok_bloom_add(&m->filter, h);
    iz i = (iz)h & m->mask;
    for (;;) {
        vocab_slot *s = &m->slots[i];
        if (!s->used)
            break;
        if (s->hash == (u32)(h >> 32) && s->len == (u32)key.len && memcmp(s->key, key.s, (size_t)key.len) == 0) {
            s->id = id;      /* a repeated key: the last one wins */
            return;
        }
        i = (i + 1) & m->mask;
    }
    vocab_slot *s = &m->slots[i];
    s->used = 1;
    s->hash = (u32)(h >> 32);
    s->id = id;
    s->len = (u32)key.len;
    s->key = key.s;
    m->n++;
}

static inline i32 find_hashed(const vocab_map *m, const u8 *p, iz n, u64 h)
{
    iz i = (iz)h & m->mask;
    u32 h32 = (u32)(h >> 32);
    for (;;) {
        const vocab_slot *s = &m->slots[i];
        if (!s->used)
            return -1;
        if (s->hash == h32 && s->len == (u32)n && (n == 0 || memcmp(s->key, p, (size_t)n) == 0))
            return (i32)s->id;
        i = (i + 1) & m->mask;
    }
}

i32 vocab_find(const vocab_map *m, const u8 *p, iz n) { return find_hashed(m, p, n, hash_bytes(p, n)); }

i32 vocab_maybe(const vocab_map *m, const u8 *p, iz n)
{
    u64 h = hash_bytes(p, n);
    return tok_bloom_pass(&m->filter, h) ? find_hashed(m, p, n, h) : -1;
}

static u32 bits_for(u64 v)
{
    u32 n = 0;
    while (v >> n)
        n++;
    return n;
}

void merge_init(arena *perm, merge_map *m, iz n, u32 nids, bool wide)
{
    iz size = table_size(n);
    *m = (merge_map){0};
    m->ib = bits_for(nids > 2 ? nids - 1 : 1);   /* at least 1: shifts stay below 64 */
    m->rb = bits_for((u64)n);   /* 1 + rank <= n */
    if (!wide && 2 * m->ib + m->rb <= 64) {
        m->rb = 64 - 2 * m->ib;
        m->packed = NEW(perm, u64, size);
    } else {
        m->slots = NEW(perm, merge_slot, size);
    }
    m->rank_id = NEW(perm, u32, n + 1);
    tok_bloom_init(perm, &m->filter, n);
    m->nranks = n;
    m->mask = size - 1;
}

void merge_put(merge_map *m, u32 a, u32 b, u32 rank, u32 id)
{
    /* A repeated pair: the later line wins, as collecting into a HashMap does. */
    if (m->packed) {
        u64 key = (u64)a << m->ib | b;
        iz i = (iz)merge_hash(key) & m->mask;
        while (m->packed[i] && m->packed[i] >> m->rb != key)
            i = (i + 1) & m->mask;
        m->packed[i] = key << m->rb | ((u64)rank + 1);
    } else {
        u64 key = ((u64)a << 32 | b) + 1;
        iz i = (iz)merge_hash(key - 1) & m->mask;
        while (m->slots[i].key && m->slots[i].key != key)
            i = (i + 1) & m->mask;
        m->slots[i] = (merge_slot){key, rank, id};
    }
    m->rank_id[rank] = id;
    tok_bloom_add(&m->filter, merge_filter_hash(a, b));
}

bool merge_at(const merge_map *m, iz i, u32 *a, u32 *b, u32 *rank)
{
    if (m->packed) {
        u64 s = m->packed[i];
        if (!s)
            return false;
        u64 key = s >> m->rb;
        *a = (u32)(key >> m->ib);
        *b = (u32)(key & (((u64)1 << m->ib) - 1));
        *rank = (u32)(s & (((u64)1 << m->rb) - 1)) - 1;
        return true;
    }
    const merge_slot *s = &m->slots[i];
    if (!s->key)
        return false;
    *a = (u32)((s->key - 1) >> 32);
    *b = (u32)(s->key - 1);
    *rank = s->rank;
    return true;
}
