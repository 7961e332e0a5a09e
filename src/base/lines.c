/* lines.c - line input (lines.h). */
#include "lines.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

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
    if (r->source) {
        for (;;) {
            if (r->stop && *r->stop) {
                r->eof = true;
                return false;
            }
            iz n = r->source(r->source_ctx, r->buf + r->end, r->cap - r->end);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                r->eof = true;
                r->failed = n < 0;
                r->err_no = n < 0 ? errno : 0;
                return false;
            }
            r->end += n;
            return true;
        }
    }
    if (r->idle) {
        struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
        if (poll(&pfd, 1, 0) == 0)
            r->idle(r->idle_ctx);
    }
    for (;;) {
        if (r->stop && *r->stop) {
            r->eof = true;
            return false;
        }
        if (r->stop) {
            /* a signal that comes just before a read that waits would go
             * unseen: wait in steps, looking at the flag between them */
            struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
            if (poll(&pfd, 1, 200) <= 0)
                continue;   /* a timeout, or a signal: the flag again */
        }
        ssize_t n = read(r->fd, r->buf + r->end, (size_t)(r->cap - r->end));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r->eof = true;
            r->failed = n < 0;
            r->err_no = n < 0 ? errno : 0;
            return false;
        }
        r->end += n;
        return true;
    }
}

/* Skips a UTF-8 byte-order mark at the start of the input. */
static void skip_bom(lines *r)
{
    r->started = true;
    while (r->end - r->beg < 3 && fill(r)) {
    }
    if (r->end - r->beg >= 3 && !memcmp(r->buf + r->beg, "\xEF\xBB\xBF", 3)) {
        r->beg += 3;
        r->consumed += 3;
    }
}

int lines_next(lines *r, str *line)
{
    if (!r->started) {
        if (r->keep_bom)
            r->started = true;
        else
            skip_bom(r);
    }
    iz scanned = 0;
    for (;;) {
        u8 *nl = memchr(r->buf + r->beg + scanned, '\n', (size_t)(r->end - r->beg - scanned));
        if (nl) {
            *line = str_from(r->buf + r->beg, nl - (r->buf + r->beg));
            r->beg = nl + 1 - r->buf;
            r->number++;
            r->consumed += line->len + 1;
            return line->len > r->max ? LINES_TOO_LONG : LINES_OK;
        }
        scanned = r->end - r->beg;
        if (scanned > r->max) {
            /* Too long: drop it up to its newline (or the end of input). */
            r->number++;
            for (;;) {
                r->consumed += r->end - r->beg;
                r->beg = r->end;
                if (!fill(r))
                    return LINES_TOO_LONG;
                nl = memchr(r->buf + r->beg, '\n', (size_t)(r->end - r->beg));
                if (nl) {
                    r->consumed += nl + 1 - (r->buf + r->beg);
                    r->beg = nl + 1 - r->buf;
                    return LINES_TOO_LONG;
                }
            }
        }
        if (!fill(r)) {
            if (r->end > r->beg) {   /* a last line without its newline */
                *line = str_from(r->buf + r->beg, r->end - r->beg);
                r->consumed += line->len;
                r->beg = r->end;
                r->number++;
                return line->len > r->max ? LINES_TOO_LONG : LINES_OK;
            }
            return LINES_END;
        }
    }
}
