/* utf8.h - UTF-8 decoding, encoding and validation (RFC 3629: no surrogates,
 * no overlongs, nothing above U+10FFFF). */
#ifndef TALLY_UTF8_H
#define TALLY_UTF8_H

#include "base.h"

/* Length of the leading run of ASCII bytes of s (s.len when all of it is
 * ASCII), 8 bytes at a time. */
static inline iz utf8_ascii_prefix(str s)
{
    iz i = 0;
    for (; i + 8 <= s.len; i += 8) {
        u64 w;
        memcpy(&w, s.s + i, 8);
        u64 high = w & 0x8080808080808080u;
        if (high) {
            /* the first byte with its high bit set (where the byte order
             * is known; else the loop below finds it) */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return i + (__builtin_ctzll(high) >> 3);
#else
            break;
#endif
        }
    }
    while (i < s.len && s.s[i] < 0x80)
        i++;
    return i;
}

/* Returns the offset of the first byte that does not start a valid UTF-8
 * sequence, or -1 when all of `s` is valid. */
iz utf8_invalid_at(str s);

/* Decodes the code point at s[*i] of valid UTF-8 and advances *i. */
static inline u32 utf8_next(const u8 *s, iz *i)
{
    u32 c = s[*i];
    if (c < 0x80) {
        *i += 1;
        return c;
    }
    if (c < 0xe0) {
        c = ((c & 0x1f) << 6) | (s[*i + 1] & 0x3fu);
        *i += 2;
    } else if (c < 0xf0) {
        c = ((c & 0x0f) << 12) | ((s[*i + 1] & 0x3fu) << 6) | (s[*i + 2] & 0x3fu);
        *i += 3;
    } else {
        c = ((c & 0x07) << 18) | ((s[*i + 1] & 0x3fu) << 12) | ((s[*i + 2] & 0x3fu) << 6) | (s[*i + 3] & 0x3fu);
        *i += 4;
    }
    return c;
}

/* Length in bytes of the sequence starting with lead byte `c` (valid UTF-8). */
static inline int utf8_len(u8 c)
{
    return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/* Offset of the start of the code point before `i` in valid UTF-8. */
static inline iz utf8_prev(const u8 *s, iz i)
{
    do
        i--;
    while (i > 0 && (s[i] & 0xc0) == 0x80);
    return i;
}

/* Length of the valid UTF-8 sequence at p (avail bytes readable), or 0 when
 * the bytes there are not one. The lead byte gives the length and the range
 * of the second byte (the Unicode Standard's table of well-formed sequences,
 * 3-7): the ranges rule out overlong forms, surrogates and code points above
 * U+10FFFF with no decoding; later bytes are any continuation byte. */
static inline int utf8_valid_seq(const u8 *p, iz avail)
{
    u8 c = p[0];
    if (c < 0x80)
        return 1;
    int need;
    u8 lo = 0x80, hi = 0xbf;
    if (c < 0xc2) {
        return 0;   /* a continuation byte, or an overlong lead C0 C1 */
    } else if (c < 0xe0) {
        need = 1;
    } else if (c < 0xf0) {
        need = 2;
        if (c == 0xe0)
            lo = 0xa0;   /* below: overlong */
        else if (c == 0xed)
            hi = 0x9f;   /* above: surrogates */
    } else if (c < 0xf5) {
        need = 3;
        if (c == 0xf0)
            lo = 0x90;   /* below: overlong */
        else if (c == 0xf4)
            hi = 0x8f;   /* above: beyond U+10FFFF */
    } else {
        return 0;
    }
    if (need >= avail || p[1] < lo || p[1] > hi)
        return 0;
    for (int k = 2; k <= need; k++)
        if ((p[k] & 0xc0) != 0x80)
            return 0;
    return need + 1;
}

/* Writes code point c (<= 0x10FFFF) to out, returns the byte count (1..4). */
int utf8_encode(u32 c, u8 out[4]);

#endif
