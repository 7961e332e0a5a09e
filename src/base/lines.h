/* lines.h - line input from a file descriptor: blocks read with read(2)
 * (or from a reader the caller plugs in: a decompressor), lines found with
 * memchr, every line bounded (a longer one is reported as too long and
 * skipped up to its newline, so the next line is read as usual), a UTF-8
 * byte-order mark at the very start skipped unless asked not to. For
 * JSON-lines inputs and event logs. */
#ifndef TALLY_LINES_H
#define TALLY_LINES_H

#include <signal.h>
#include "base.h"

typedef struct lines {
    int  fd;
    u8  *buf;
    iz   cap, beg, end;
    iz   max;        /* longest line accepted, in bytes */
    i64  number;     /* 1-based number of the line returned last */
    i64  consumed;   /* input bytes consumed so far (lines, newlines, a BOM) */
    int  err_no;     /* errno of a failed read, 0 when none */
    bool eof, failed, started;
    /* Set by the caller after lines_init (both may stay NULL): a read
     * interrupted by a signal ends the input when *stop is non-zero; idle
     * is called before a read that would wait (nothing to read yet), so
     * that the caller can hand on what it holds. */
    volatile sig_atomic_t *stop;
    void (*idle)(void *ctx);
    void  *idle_ctx;
    /* Also set after lines_init, both optional: `source` replaces read(2)
     * on fd for input that is not a plain file descriptor (a decompressor;
     * fd and idle are then unused): it puts up to n bytes at buf and
     * returns how many, 0 at the end of the input, or -1 on an error
     * (errno set, or 0 when the source keeps its own message); stop is
     * looked at before each call. keep_bom hands a byte-order mark at the
     * start over as part of the first line. */
    iz   (*source)(void *ctx, u8 *buf, iz n);
    void  *source_ctx;
    bool   keep_bom;
} lines;

enum { LINES_OK, LINES_END, LINES_TOO_LONG };
#define LINES_MAX_DEFAULT ((iz)1 << 30)   /* 1 GiB: longer lines are errors */

/* False when out of memory. The fd stays the caller's. */
bool lines_init(lines *r, int fd, iz max_line);
void lines_fini(lines *r);
/* LINES_OK with *line (without its newline; a CR before it is kept),
 * LINES_TOO_LONG (the line was skipped; r->number counts it), or
 * LINES_END (end of input; a read error: then r->failed and r->err_no; or
 * *stop). A line is valid until the next call. */
int  lines_next(lines *r, str *line);

#endif
