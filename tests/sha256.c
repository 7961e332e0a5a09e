/* sha256.c - SHA-256 as FIPS 180-4 specifies it (section 6.2), written from
 * the standard for the tests' golden comparisons. Byte-at-a-time padding,
 * one 64-byte block compressed at a time; fast enough for ~200 MB. */
#include "sha256.h"

static const u32 K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline u32 rotr(u32 x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(u32 h[8], const u8 *p)
{
    u32 w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (u32)p[4 * t] << 24 | (u32)p[4 * t + 1] << 16 | (u32)p[4 * t + 2] << 8 | p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        u32 s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        u32 s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    u32 a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        u32 t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
        u32 t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
    h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

void sha256_init(sha256_ctx *c)
{
    static const u32 h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, h0, sizeof(h0));
    c->len = 0;
    c->fill = 0;
}

void sha256_update(sha256_ctx *c, const void *data, iz n)
{
    const u8 *p = data;
    c->len += (u64)n;
    if (c->fill) {
        iz take = MIN(n, 64 - c->fill);
        memcpy(c->block + c->fill, p, (size_t)take);
        c->fill += take;
        p += take;
        n -= take;
        if (c->fill < 64)
            return;
        compress(c->h, c->block);
        c->fill = 0;
    }
    for (; n >= 64; p += 64, n -= 64)
        compress(c->h, p);
    if (n > 0)
        memcpy(c->block, p, (size_t)n);
    c->fill = n;
}

void sha256_final(sha256_ctx *c, u8 out[32])
{
    u64 bits = c->len * 8;
    /* 0x80, zeros up to 56 mod 64, then the length in bits, big-endian. */
    u8 pad[72] = {0x80};
    iz npad = (c->fill < 56 ? 56 : 120) - c->fill;
    for (int i = 0; i < 8; i++)
        pad[npad + i] = (u8)(bits >> (56 - 8 * i));
    u64 len = c->len;
    sha256_update(c, pad, npad + 8);
    c->len = len;
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (u8)(c->h[i] >> 24);
        out[4 * i + 1] = (u8)(c->h[i] >> 16);
        out[4 * i + 2] = (u8)(c->h[i] >> 8);
        out[4 * i + 3] = (u8)c->h[i];
    }
}

void sha256_hex(str s, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    sha256_ctx c;
    u8 d[32];
    sha256_init(&c);
    sha256_update(&c, s.s, s.len);
    sha256_final(&c, d);
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = 0;
}
