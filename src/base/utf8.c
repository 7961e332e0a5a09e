/* utf8.c - UTF-8 validation and encoding. */
#include "utf8.h"

iz utf8_invalid_at(str s)
{
    const u8 *p = s.s;
    iz i = 0, n = s.len;
    while (i < n) {
        if (p[i] < 0x80) {
            i += utf8_ascii_prefix(str_cut(s, i, n));   /* the common case */
            continue;
        }
        int len = utf8_valid_seq(p + i, n - i);
        if (!len)
            return i;
        i += len;
    }
    return -1;
}

int utf8_encode(u32 c, u8 out[4])
{
    if (c < 0x80) {
        out[0] = (u8)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (u8)(0xc0 | (c >> 6));
        out[1] = (u8)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (u8)(0xe0 | (c >> 12));
        out[1] = (u8)(0x80 | ((c >> 6) & 0x3f));
        out[2] = (u8)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (u8)(0xf0 | (c >> 18));
    out[1] = (u8)(0x80 | ((c >> 12) & 0x3f));
    out[2] = (u8)(0x80 | ((c >> 6) & 0x3f));
    out[3] = (u8)(0x80 | (c & 0x3f));
    return 4;
}
