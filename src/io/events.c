/* events.c - opening an event log and telling its kind (events.h); the
 * JSONL source. gzip is events_gz.c, SQLite events_db.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events_src.h"

static const u8 gzip_magic[2] = {0x1f, 0x8b};
static const u8 sqlite_magic[16] = "SQLite format 3";   /* and its NUL */

iz ev_read_fd(void *ctx, u8 *p, iz cap)
{
    io_events *s = ctx;
    if (s->head_at < s->nhead) {
        iz n = MIN(cap, s->nhead - s->head_at);
        memcpy(p, s->head + s->head_at, (size_t)n);
        s->head_at += n;
        return n;
    }
    for (;;) {
        ssize_t n = read(s->fd, p, (size_t)cap);
        if (n < 0 && errno == EINTR)
            continue;
        return (iz)n;
    }
}

/* The first bytes, without consuming them: pread on a file, else read
 * into s->head (handed on later by ev_read_fd). */
static iz peek_head(io_events *s, bool regular)
{
    iz n = 0;
    while (n < (iz)sizeof s->head) {
        ssize_t k = regular ? pread(s->fd, s->head + n, sizeof s->head - (size_t)n, (off_t)n)
                            : read(s->fd, s->head + n, sizeof s->head - (size_t)n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += k;
    }
    s->nhead = regular ? 0 : n;   /* a file is read again from its start */
    return n;
}

io_events *io_events_open(const char *path, iz max_line, err *e)
{
    if (max_line <= 0)
        max_line = LINES_MAX_DEFAULT;
    io_events *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", path);
        return NULL;
    }
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (s->fd < 0) {
        err_set(e, ERR_IO, -1, "cannot open %s: %s", path, strerror(errno));
        goto fail;
    }
    if (fstat(s->fd, &sb) != 0) {
        err_set(e, ERR_IO, -1, "cannot read %s: %s", path, strerror(errno));
        goto fail;
    }
    if (S_ISDIR(sb.st_mode)) {
        err_set(e, ERR_IO, -1, "%s is a folder, not an event log (events.jsonl, .jsonl.gz or events.db)", path);
        goto fail;
    }
    bool regular = S_ISREG(sb.st_mode);
    s->size = regular ? (i64)sb.st_size : -1;
    u8 first[16];
    iz n = peek_head(s, regular);
    memcpy(first, s->head, sizeof first);
    if (n == 0) {
        err_set(e, ERR_IO, -1, "%s is empty (0 bytes): not an event log", path);
        goto fail;
    }
    if (n >= 2 && !memcmp(first, gzip_magic, 2)) {
        s->kind = IO_EVENTS_GZIP;
    } else if (n == 16 && !memcmp(first, sqlite_magic, 16)) {
        s->kind = IO_EVENTS_SQLITE;
        if (!regular) {
            err_set(e, ERR_UNSUPPORTED, -1, "%s: an SQLite database must be a file (not a pipe)", path);
            goto fail;
        }
        close(s->fd);
        s->fd = -1;
        if (!(s->db = ev_db_open(s, max_line, e)))
            goto fail;
        return s;
    } else {
        s->kind = IO_EVENTS_JSONL;
    }
    if (!lines_init(&s->in, s->fd, max_line)) {
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", path);
        goto fail;
    }
    s->in.keep_bom = true;   /* as the reference reads the file: bytes */
    s->in.source = ev_read_fd;
    s->in.source_ctx = s;
    if (s->kind == IO_EVENTS_GZIP) {
        if (!(s->gz = ev_gz_open(s, e)))
            goto fail;
        s->in.source = ev_gz_read;
        s->in.source_ctx = s;
    }
    return s;
fail:
    io_events_close(s);
    return NULL;
}

io_events_kind io_events_kind_of(const io_events *s)
{
    return (io_events_kind)s->kind;
}

const char *io_events_kind_name(io_events_kind k)
{
    return k == IO_EVENTS_SQLITE ? "SQLite" : k == IO_EVENTS_GZIP ? "gzip JSONL" : "JSONL";
}

int io_events_next(io_events *s, str *line)
{
    if (s->kind == IO_EVENTS_SQLITE)
        return ev_db_next(s, line);
    int r = lines_next(&s->in, line);
    if (s->in.failed && !s->e.code)
        err_set(&s->e, s->in.err_no == ENOMEM ? ERR_NOMEM : ERR_IO, -1, "%s: %s", s->path,
                s->in.err_no ? strerror(s->in.err_no) : "out of memory");
    return r;
}

const err *io_events_error(const io_events *s)
{
    return s->e.code ? &s->e : NULL;
}

i64 io_events_where(const io_events *s)
{
    return s->kind == IO_EVENTS_SQLITE ? ev_db_where(s->db) : s->in.number;
}

i64 io_events_bytes(const io_events *s)
{
    switch (s->kind) {
    case IO_EVENTS_SQLITE: return ev_db_done(s->db);
    case IO_EVENTS_GZIP: return ev_gz_consumed(s->gz);
    default: return s->in.consumed;
    }
}

i64 io_events_size(const io_events *s)
{
    return s->kind == IO_EVENTS_SQLITE ? ev_db_total(s->db) : s->size;
}

void io_events_close(io_events *s)
{
    if (!s)
        return;
    if (s->gz)
        ev_gz_close(s->gz);
    if (s->db)
        ev_db_close(s->db);
    lines_fini(&s->in);
    if (s->fd >= 0)
        close(s->fd);
    free(s->path);
    free(s);
}
