/* buf.c - growable heap buffer (see buf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "buf.h"

void buf_free(buf *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

bool buf_reserve(buf *b, iz extra)
{
    if (b->failed)
        return false;
    if (b->len + extra <= b->cap)
        return true;
    iz cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra) {
        if (cap > PTRDIFF_MAX / 2) {
            b->failed = true;
            return false;
        }
        cap *= 2;
    }
    u8 *p = realloc(b->data, (size_t)cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void buf_put_grow(buf *b, const void *p, iz n)
{
    if (n <= 0 || !buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, p, (size_t)n);
    b->len += n;
}

void buf_cstr(buf *b, const char *s) { buf_put(b, s, (iz)strlen(s)); }

void buf_byte_grow(buf *b, u8 c)
{
    buf_put_grow(b, &c, 1);
}

void buf_u64(buf *b, u64 v)
{
    u8 tmp[24];
    iz n = 0;
    do {
        tmp[countof(tmp) - 1 - n++] = (u8)('0' + v % 10);
        v /= 10;
    } while (v);
    buf_put(b, tmp + countof(tmp) - n, n);
}

void buf_i64(buf *b, i64 v)
{
    if (v < 0) {
        buf_byte(b, '-');
        buf_u64(b, (u64)0 - (u64)v);
    } else {
        buf_u64(b, (u64)v);
    }
}

void buf_printf(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(b, n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += n;
}
