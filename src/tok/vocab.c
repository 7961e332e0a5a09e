/* vocab.c - the two load-time hash tables of a BPE model: token string -> id
 * and (left id, right id) -> (rank, merged id). Open addressing with linear
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

void vocab_init(arena *perm, vocab_map *m, iz n)
{
    iz size = table_size(n);
    m->slots = NEW(perm, vocab_slot, size);
    m->n = 0;
    m->mask = size - 1;
}

void vocab_put(vocab_map *m, str key, u32 id)
{
    u64 h = hash_str(key);
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

i32 vocab_find(const vocab_map *m, const u8 *p, iz n)
{
    u64 h = hash_bytes(p, n);
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

void merge_init(arena *perm, merge_map *m, iz n)
{
    iz size = table_size(n);
    m->slots = NEW(perm, merge_slot, size);
    m->rank_id = NEW(perm, u32, n + 1);
    m->nranks = n;
    m->mask = size - 1;
}

void merge_put(merge_map *m, u32 a, u32 b, u32 rank, u32 id)
{
    u64 key = ((u64)a << 32 | b) + 1;
    u64 h = key * 0x9e3779b97f4a7c15u;
    iz i = (iz)(h >> 40) & m->mask;
    while (m->slots[i].key && m->slots[i].key != key)
        i = (i + 1) & m->mask;
    /* A repeated pair: the later line wins, as collecting into a HashMap does. */
    m->slots[i].key = key;
    m->slots[i].rank = rank;
    m->slots[i].id = id;
    m->rank_id[rank] = id;
}
