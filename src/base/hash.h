/* hash.h - hashing for the hash tables of tok/ and friends. Not
 * cryptographic; tables bound their probe lengths themselves. */
#ifndef TALLY_HASH_H
#define TALLY_HASH_H

#include "base.h"

static inline u64 hash_mix(u64 h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93u;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93u;
    h ^= h >> 32;
    return h;
}

/* Hash of a byte string: 8 bytes at a time, then the tail. */
static inline u64 hash_bytes(const u8 *p, iz n)
{
    u64 h = 0x9e3779b97f4a7c15u ^ (u64)n;
    while (n >= 8) {
        u64 w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9u;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    u64 t = 0;
    memcpy(&t, p, (size_t)n);
    h = (h ^ t) * 0x94d049bb133111ebu;
    return hash_mix(h);
}

static inline u64 hash_str(str s) { return hash_bytes(s.s, s.len); }

/* FNV-1a 64 over ids as 4 little-endian bytes each: the golden files'
 * compact form of an id list (tests/data/tok/README.md). */
static inline u64 hash_ids_fnv1a(const u32 *ids, iz n)
{
    u64 h = 0xcbf29ce484222325u;
    for (iz i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) {
            h ^= (ids[i] >> (8 * k)) & 0xff;
            h *= 0x100000001b3u;
        }
    return h;
}

#endif
