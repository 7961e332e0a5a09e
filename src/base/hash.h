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

static inline u64 hash_load8(const u8 *p)
{
    u64 w;
    memcpy(&w, p, 8);
    return w;
}

static inline u64 hash_load4(const u8 *p)
{
    u32 w;
    memcpy(&w, p, 4);
    return w;
}

/* Hash of a byte string: 8 bytes at a time; the tail is read as one
 * overlapping 8-byte word (or, below 8 bytes, two overlapping 4-byte words
 * or three single bytes), so no read leaves the string and no loop runs
 * for short keys, which are most keys here. */
static inline u64 hash_bytes(const u8 *p, iz n)
{
    u64 h = 0x9e3779b97f4a7c15u ^ ((u64)n * 0xff51afd7ed558ccdu);
    u64 a, b;
    if (n >= 8) {
        while (n > 8) {
            h = (h ^ hash_load8(p)) * 0xbf58476d1ce4e5b9u;
            h ^= h >> 29;
            p += 8;
            n -= 8;
        }
        a = hash_load8(p + n - 8);
        b = 0;
    } else if (n >= 4) {
        a = hash_load4(p);
        b = hash_load4(p + n - 4);
    } else if (n > 0) {
        a = (u64)p[0] << 16 | (u64)p[n >> 1] << 8 | p[n - 1];
        b = 0;
    } else {
        a = b = 0;
    }
    h = (h ^ a ^ (b << 32)) * 0x94d049bb133111ebu;
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
