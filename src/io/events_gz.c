/* events_gz.c - a gzip-compressed event log (events.h): the file read in
 * blocks, inflated with zlib into the line reader's buffer, so that the
 * lines are split as for a plain log. Members may follow each other (gzip
 * -c a >> log.gz) and zero bytes may pad the end, as Python's gzip module
 * allows; anything else after a member, a stream that stops before its
 * end, or a bad block or checksum ends the log with an error. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "events_src.h"

enum { GZ_BLOCK = 1 << 18 };

struct ev_gz {
    io_events *s;
    z_stream z;
    bool inited;
    u8 *in;
    bool in_eof;      /* the file has no more bytes */
    bool member_end;  /* between two members */
    bool done;        /* the stream ended cleanly */
    i64 read_total;   /* compressed bytes read from the file */
};

ev_gz *ev_gz_open(io_events *s, err *e)
{
    ev_gz *g = calloc(1, sizeof *g);
    if (!g || !(g->in = malloc(GZ_BLOCK))) {
        free(g);
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", s->path);
        return NULL;
    }
    g->s = s;
    /* 16 + 15: a gzip wrapper (header, CRC-32 and length checked), any window */
    if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
        err_set(e, ERR_NOMEM, -1, "%s: cannot start zlib: %s", s->path, g->z.msg ? g->z.msg : "out of memory");
        free(g->in);
        free(g);
        return NULL;
    }
    g->inited = true;
    return g;
}

/* More compressed bytes when the block is used up; false at the file's end
 * or on an error (then s->e). */
static bool refill(ev_gz *g)
{
    if (g->z.avail_in)
        return true;
    if (g->in_eof)
        return false;
    iz n = ev_read_fd(g->s, g->in, GZ_BLOCK);
    if (n < 0) {
        err_set(&g->s->e, ERR_IO, -1, "%s: %s", g->s->path, strerror(errno));
        return false;
    }
    if (n == 0) {
        g->in_eof = true;
        return false;
    }
    g->read_total += n;
    g->z.next_in = g->in;
    g->z.avail_in = (uInt)n;
    return true;
}

/* After a member: zero padding to the end, or another member. */
static bool next_member(ev_gz *g)
{
    for (;;) {
        if (!refill(g)) {
            if (!g->s->e.code)
                g->done = true;
            return false;
        }
        while (g->z.avail_in && *g->z.next_in == 0) {
            g->z.next_in++;
            g->z.avail_in--;
        }
        if (!g->z.avail_in)
            continue;
        if (*g->z.next_in != 0x1f) {
            err_set(&g->s->e, ERR_IO, -1, "%s: bytes after the end of the gzip stream (at byte %lld): not gzip",
                    g->s->path, (long long)ev_gz_consumed(g));
            return false;
        }
        /* zlib checks the rest of the next member's header */
        if (inflateReset(&g->z) != Z_OK) {
            err_set(&g->s->e, ERR_IO, -1, "%s: zlib: %s", g->s->path, g->z.msg ? g->z.msg : "reset failed");
            return false;
        }
        g->member_end = false;
        return true;
    }
}

iz ev_gz_read(void *ctx, u8 *p, iz cap)
{
    io_events *s = ctx;
    ev_gz *g = s->gz;
    if (g->done || s->e.code)
        return s->e.code ? (errno = EIO, -1) : 0;
    g->z.next_out = p;
    g->z.avail_out = (uInt)MIN(cap, (iz)UINT32_MAX);
    uInt want = g->z.avail_out;
    while (g->z.avail_out == want) {
        if (g->member_end && !next_member(g))
            break;
        if (!g->z.avail_in)
            refill(g);   /* zlib may still hold output without more input */
        if (s->e.code)
            break;
        uInt in0 = g->z.avail_in, out0 = g->z.avail_out;
        int zr = inflate(&g->z, Z_NO_FLUSH);
        if (zr == Z_BUF_ERROR && g->z.avail_in == in0 && g->z.avail_out == out0 && in0) {
            err_set(&s->e, ERR_IO, -1, "%s: zlib makes no progress at compressed byte %lld", s->path,
                    (long long)ev_gz_consumed(g));
            break;
        }
        if (zr == Z_STREAM_END) {
            g->member_end = true;
        } else if (zr == Z_BUF_ERROR && !g->z.avail_in && g->in_eof) {
            /* no progress, and no input left: the file stops inside the member */
            err_set(&s->e, ERR_IO, -1, "%s: truncated gzip stream: the file ends inside a member (after %lld "
                    "compressed bytes)", s->path, (long long)ev_gz_consumed(g));
            break;
        } else if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT) {
            err_set(&s->e, ERR_IO, -1, "%s: corrupt gzip stream at compressed byte %lld: %s", s->path,
                    (long long)ev_gz_consumed(g), g->z.msg ? g->z.msg : "invalid data");
            break;
        } else if (zr == Z_MEM_ERROR) {
            err_set(&s->e, ERR_NOMEM, -1, "%s: zlib: out of memory", s->path);
            break;
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            err_set(&s->e, ERR_IO, -1, "%s: zlib error %d", s->path, zr);
            break;
        }
    }
    iz n = (iz)(want - g->z.avail_out);
    if (n > 0)
        return n;   /* an error, if any, is reported at the next call */
    if (s->e.code) {
        errno = EIO;
        return -1;
    }
    return 0;
}

i64 ev_gz_consumed(const ev_gz *g)
{
    return g->read_total - (i64)g->z.avail_in;
}

void ev_gz_close(ev_gz *g)
{
    if (g->inited)
        inflateEnd(&g->z);
    free(g->in);
    free(g);
}
