/* events_src.h - what the parts of io/events.h share: the source object,
 * and the gzip reader (events_gz.c) and SQLite reader (events_db.c) that
 * events.c picks by the file's first bytes. Internal to src/io/. */
#ifndef TALLY_IO_EVENTS_SRC_H
#define TALLY_IO_EVENTS_SRC_H

#include "events.h"

typedef struct ev_gz ev_gz;   /* events_gz.c */
typedef struct ev_db ev_db;   /* events_db.c */

struct io_events {
    int    kind;         /* IO_EVENTS_* */
    char  *path;
    int    fd;
    i64    size;         /* bytes of the file, -1 unknown */
    lines  in;           /* JSONL and gzip */
    /* the first bytes of a file that cannot be read twice (a FIFO), read
     * to tell its kind, handed to the reader before the rest */
    u8     head[16];
    iz     nhead, head_at;
    ev_gz *gz;
    ev_db *db;
    err    e;            /* why the log stopped early; code 0 when it did not */
};

/* Reads from s->fd, the head first: the source of a plain file (lines.h's
 * `source` hook). */
iz ev_read_fd(void *ctx, u8 *p, iz cap);

/* gzip: a source for lines.h over s (through ev_read_fd); errors go to s->e. */
ev_gz *ev_gz_open(io_events *s, err *e);
iz     ev_gz_read(void *ctx, u8 *p, iz cap);
i64    ev_gz_consumed(const ev_gz *g);
void   ev_gz_close(ev_gz *g);

/* SQLite: the database at s->path. */
ev_db *ev_db_open(io_events *s, iz max_line, err *e);
int    ev_db_next(io_events *s, str *line);
i64    ev_db_where(const ev_db *d);
i64    ev_db_done(const ev_db *d);
i64    ev_db_total(const ev_db *d);
void   ev_db_close(ev_db *d);

#endif
