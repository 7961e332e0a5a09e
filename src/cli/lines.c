/* lines.c - JSON-lines input for the subcommands: blocks read with read(2),
 * lines found with memchr, every line bounded (a longer one is reported as
 * too long and skipped up to its newline, so the next line is read as usual). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "cli.h"

enum { LINES_BLOCK = 1 << 20 };

bool lines_init(lines *r, int fd, iz max_line)
{
    memset(r, 0, sizeof(*r));
    r->fd = fd;
    r->max = max_line;
    r->cap = LINES_BLOCK;
    r->buf = malloc((size_t)r->cap);
    return r->buf != NULL;
}

void lines_fini(lines *r)
{
    free(r->buf);
    r->buf = NULL;
}

/* Reads more input after the unread part; false at end of input or error. */
static bool fill(lines *r)
{
    if (r->eof)
        return false;
    if (r->beg > 0) {
        memmove(r->buf, r->buf + r->beg, (size_t)(r->end - r->beg));
        r->end -= r->beg;
        r->beg = 0;
    }
    if (r->end == r->cap) {
        iz cap = r->cap * 2;
        u8 *p = realloc(r->buf, (size_t)cap);
        if (!p) {
            r->eof = true;
            r->failed = true;
            return false;
        }
        r->buf = p;
        r->cap = cap;
    }
    for (;;) {
        ssize_t n = read(r->fd, r->buf + r->end, (size_t)(r->cap - r->end));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r->eof = true;
            r->failed = n < 0;
            return false;
        }
        r->end += n;
        return true;
    }
}

int lines_next(lines *r, str *line)
{
    iz scanned = 0;
    for (;;) {
        u8 *nl = memchr(r->buf + r->beg + scanned, '\n', (size_t)(r->end - r->beg - scanned));
        if (nl) {
            *line = str_from(r->buf + r->beg, nl - (r->buf + r->beg));
            r->beg = nl + 1 - r->buf;
            r->number++;
            return line->len > r->max ? LINES_TOO_LONG : LINES_OK;
        }
        scanned = r->end - r->beg;
        if (scanned > r->max) {
            /* Too long: drop it up to its newline (or the end of input). */
            r->number++;
            for (;;) {
                r->beg = r->end;
                if (!fill(r))
                    return LINES_TOO_LONG;
                nl = memchr(r->buf + r->beg, '\n', (size_t)(r->end - r->beg));
                if (nl) {
                    r->beg = nl + 1 - r->buf;
                    return LINES_TOO_LONG;
                }
            }
        }
        if (!fill(r)) {
            if (r->end > r->beg) {   /* a last line without its newline */
                *line = str_from(r->buf + r->beg, r->end - r->beg);
                r->beg = r->end;
                r->number++;
                return line->len > r->max ? LINES_TOO_LONG : LINES_OK;
            }
            return LINES_END;
        }
    }
}
