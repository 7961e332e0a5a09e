/* buf.h - a growable byte buffer on the heap, for output that outlives any
 * arena (the CLI's output lines, encode's id arrays). Owner calls buf_free.
 * Allocation failure sets `failed` and turns further appends into no-ops. */
#ifndef TALLY_BUF_H
#define TALLY_BUF_H

#include "base.h"

typedef struct buf {
    u8  *data;
    iz   len, cap;
    bool failed;
} buf;

void buf_free(buf *b);
bool buf_reserve(buf *b, iz extra);
/* buf_put when the room may have to grow (or the buffer has failed) */
void buf_put_grow(buf *b, const void *p, iz n);
void buf_cstr(buf *b, const char *s);
void buf_byte_grow(buf *b, u8 c);

/* Appends, inline while the room suffices (most appends). */
static inline void buf_put(buf *b, const void *p, iz n)
{
    if (n > 0 && n <= b->cap - b->len && !b->failed) {
        memcpy(b->data + b->len, p, (size_t)n);
        b->len += n;
        return;
    }
    buf_put_grow(b, p, n);
}

static inline void buf_str(buf *b, str s) { buf_put(b, s.s, s.len); }

static inline void buf_byte(buf *b, u8 c)
{
    if (b->len < b->cap) {
        b->data[b->len++] = c;
        return;
    }
    buf_byte_grow(b, c);
}

void buf_i64(buf *b, i64 v);
void buf_u64(buf *b, u64 v);
void buf_printf(buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
static inline str buf_view(const buf *b) { return (str){b->data, b->len}; }

#endif
