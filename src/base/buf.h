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
void buf_put(buf *b, const void *p, iz n);
void buf_str(buf *b, str s);
void buf_cstr(buf *b, const char *s);
void buf_byte(buf *b, u8 c);
void buf_i64(buf *b, i64 v);
void buf_u64(buf *b, u64 v);
void buf_printf(buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
static inline str buf_view(const buf *b) { return (str){b->data, b->len}; }

#endif
