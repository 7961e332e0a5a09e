/* sha256.h - SHA-256 (FIPS 180-4) for tests and benchmarks: the golden files
 * of tests/data/tmpl/ identify each rendering by its sha256, as Python's
 * hashlib writes it. Test code only; the library has no use for it. */
#ifndef TALLY_TEST_SHA256_H
#define TALLY_TEST_SHA256_H

#include "../src/base/base.h"

typedef struct sha256_ctx {
    u32 h[8];
    u64 len;          /* bytes hashed so far */
    u8  block[64];
    iz  fill;         /* bytes waiting in block */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *p, iz n);
void sha256_final(sha256_ctx *c, u8 out[32]);
/* The digest of s as 64 lower-case hex digits and a NUL. */
void sha256_hex(str s, char out[65]);

#endif
