/* events.c - the event log's three storages as one stream of lines
 * (events.h). */
#include "events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../base/buf.h"
#include "../json/pyfmt.h"

enum { GZ_BLOCK = 1 << 20 };

struct io_events {
    io_events_kind kind;
    char   path[1024];
    int    fd;
    i64    size;
    iz     max_line;
    err    e;
    bool   failed;
    /* JSONL and gzip */
    lines  in;
    /* gzip */
    z_stream z;
    bool   z_init, z_member_done;
    u8    *zbuf;
    i64    z_read;        /* compressed bytes read from the file */
    /* SQLite */
    sqlite3      *db;
    sqlite3_stmt *rows;
    i64           row, max_id;
    buf           line;
};

/* Ends the stream with an error (the first one is kept). */
static int fail(io_events *s, int code, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fail(io_events *s, int code, const char *fmt, ...)
{
    if (!s->failed) {
        s->failed = true;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->e.msg, sizeof s->e.msg, fmt, ap);
        va_end(ap);
        s->e.code = code;
    }
    return LINES_END;
}

/* ---- gzip ------------------------------------------------------------------ */

/* lines' source: inflates into `out`; a member's end followed by more
 * bytes starts the next member, as gzip -d does. */
static iz gz_source(void *ctx, u8 *out, iz n)
{
    io_events *s = ctx;
    s->z.next_out = out;
    s->z.avail_out = (uInt)MIN(n, (iz)1 << 30);
    while (s->z.avail_out == (uInt)MIN(n, (iz)1 << 30)) {
        if (s->z.avail_in == 0) {
            ssize_t got;
            do
                got = read(s->fd, s->zbuf, GZ_BLOCK);
            while (got < 0 && errno == EINTR);
            if (got < 0) {
                fail(s, ERR_IO, "%s: reading failed after line %lld: %s", s->path, (long long)s->in.number,
                     strerror(errno));
                errno = 0;
                return -1;
            }
            if (got == 0) {
                if (!s->z_member_done) {
                    fail(s, ERR_SYNTAX, "%s: the gzip stream is truncated (it ends inside its data, after line %lld)",
                         s->path, (long long)s->in.number);
                    errno = 0;
                    return -1;
                }
                return 0;
            }
            s->z_read += got;
            s->z.next_in = s->zbuf;
            s->z.avail_in = (uInt)got;
        }
        if (s->z_member_done) {
            /* bytes after a member: another member (zeros padding a tape
             * block are not: gzip -d warns and stops there too) */
            if (inflateReset(&s->z) != Z_OK)
                return -1;
            s->z_member_done = false;
        }
        int rc = inflate(&s->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            s->z_member_done = true;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            fail(s, rc == Z_MEM_ERROR ? ERR_NOMEM : ERR_SYNTAX, "%s: the gzip stream is corrupt after line %lld: %s",
                 s->path, (long long)s->in.number, s->z.msg ? s->z.msg : "invalid data");
            errno = 0;
            return -1;
        }
    }
    return (iz)MIN(n, (iz)1 << 30) - (iz)s->z.avail_out;
}

/* ---- SQLite ---------------------------------------------------------------- */

/* A string as Python's json.dumps(ensure_ascii=False) writes it (and
 * msgspec: the same escapes); invalid UTF-8 is copied, for the decoder to
 * refuse. */
static void put_json_str(buf *out, str v) { pyfmt_json_str(out, v, false); }

enum { C_UUID, C_TYPE, C_TS, C_CONV, C_TURN, C_DATA };

/* A text column: a JSON string; NULL: null; anything else as a string of
 * its text (refused where the decoder wants one, so the line counts as
 * malformed only when the value matters). */
static void put_text_col(buf *out, int type, str v)
{
    if (type == SQLITE_NULL)
        buf_cstr(out, "null");
    else
        put_json_str(out, v);
}

/* An integer column: the integer; NULL: null (turn) ; else a string. */
static void put_int_col(buf *out, int type, str v, i64 i)
{
    if (type == SQLITE_INTEGER)
        buf_i64(out, i);
    else if (type == SQLITE_NULL)
        buf_cstr(out, "null");
    else
        put_json_str(out, v);
}

void io_events_row_line(buf *out, const int types[6], const str vals[6], const i64 ints[6])
{
    buf_cstr(out, "{\"event_type\":");
    put_text_col(out, types[C_TYPE], vals[C_TYPE]);
    buf_cstr(out, ",\"timestamp_ns\":");
    put_int_col(out, types[C_TS], vals[C_TS], ints[C_TS]);
    buf_cstr(out, ",\"sample_uuid\":");
    put_text_col(out, types[C_UUID], vals[C_UUID]);
    buf_cstr(out, ",\"conversation_id\":");
    put_text_col(out, types[C_CONV], vals[C_CONV]);
    buf_cstr(out, ",\"turn\":");
    put_int_col(out, types[C_TURN], vals[C_TURN], ints[C_TURN]);
    /* data: msgspec's JSON of the payload, verbatim, as the JSONL writer
     * puts it in the line; a NULL leaves the value out, which no decoder
     * takes */
    buf_cstr(out, ",\"data\":");
    if (types[C_DATA] != SQLITE_NULL)
        buf_str(out, vals[C_DATA]);
    buf_byte(out, '}');
}

static int db_next(io_events *s, str *line)
{
    if (!s->rows)
        return LINES_END;
    int rc = sqlite3_step(s->rows);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(s->rows);
        s->rows = NULL;
        return LINES_END;
    }
    if (rc != SQLITE_ROW) {
        fail(s, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_IO, "%s: the database cannot be read after row %lld: %s",
             s->path, (long long)s->row, sqlite3_errmsg(s->db));
        sqlite3_finalize(s->rows);
        s->rows = NULL;
        return LINES_END;
    }
    s->row++;
    int types[6];
    str vals[6];
    i64 ints[6] = {0};
    for (int k = 0; k < 6; k++) {
        types[k] = sqlite3_column_type(s->rows, k);
        ints[k] = types[k] == SQLITE_INTEGER ? sqlite3_column_int64(s->rows, k) : 0;
        const void *p = types[k] == SQLITE_BLOB ? sqlite3_column_blob(s->rows, k) : sqlite3_column_text(s->rows, k);
        vals[k] = str_from(p, p ? sqlite3_column_bytes(s->rows, k) : 0);
    }
    s->line.len = 0;
    io_events_row_line(&s->line, types, vals, ints);
    if (s->line.failed)
        return fail(s, ERR_NOMEM, "%s: out of memory at row %lld", s->path, (long long)s->row);
    *line = buf_view(&s->line);
    return line->len > s->max_line ? LINES_TOO_LONG : LINES_OK;
}

static bool db_open(io_events *s, err *e)
{
    int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        err_set(e, ERR_IO, -1, "%s: the SQLite database cannot be opened: %s", s->path,
                s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        return false;
    }
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(s->db, "SELECT max(id) FROM events", -1, &st, NULL);
    if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        s->max_id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db,
                                "SELECT sample_uuid, event_type, timestamp_ns, conversation_id, turn, data "
                                "FROM events ORDER BY id",
                                -1, &s->rows, NULL);
    if (rc != SQLITE_OK) {
        const char *why = sqlite3_errmsg(s->db);
        if (strstr(why, "no such table"))
            err_set(e, ERR_INVALID, -1, "%s: an SQLite database without upstream's events table", s->path);
        else
            err_set(e, ERR_INVALID, -1, "%s: not an events database: %s", s->path, why);
        return false;
    }
    return true;
}

/* ---- the stream -------------------------------------------------------------- */

io_events *io_events_open(const char *path, iz max_line, err *e)
{
    io_events *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    s->fd = -1;
    s->max_line = max_line > 0 ? max_line : LINES_MAX_DEFAULT;
    snprintf(s->path, sizeof s->path, "%s", path);
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (s->fd < 0 || fstat(s->fd, &sb) != 0) {
        err_set(e, ERR_IO, -1, "%s: %s", path, strerror(errno));
        goto fail;
    }
    if (S_ISDIR(sb.st_mode)) {
        err_set(e, ERR_IO, -1, "%s is a folder, not an event log", path);
        goto fail;
    }
    s->size = S_ISREG(sb.st_mode) ? (i64)sb.st_size : 0;
    u8 head[16] = {0};
    ssize_t got = pread(s->fd, head, sizeof head, 0);
    if (got == 0) {
        err_set(e, ERR_INVALID, -1, "%s is empty: no events", path);
        goto fail;
    }
    if (got == (ssize_t)sizeof head && !memcmp(head, "SQLite format 3", 16)) {
        s->kind = IO_EVENTS_SQLITE;
        close(s->fd);
        s->fd = -1;
        if (!db_open(s, e))
            goto fail;
        return s;
    }
    if (!lines_init(&s->in, s->fd, s->max_line)) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        goto fail;
    }
    if (got >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
        s->kind = IO_EVENTS_GZIP;
        s->zbuf = malloc(GZ_BLOCK);
        if (!s->zbuf || inflateInit2(&s->z, 15 + 16) != Z_OK) {
            err_set(e, ERR_NOMEM, -1, "out of memory");
            goto fail;
        }
        s->z_init = true;
        s->in.source = gz_source;
        s->in.source_ctx = s;
    }
    return s;
fail:
    io_events_close(s);
    return NULL;
}

void io_events_close(io_events *s)
{
    if (!s)
        return;
    if (s->rows)
        sqlite3_finalize(s->rows);
    if (s->db)
        sqlite3_close(s->db);
    if (s->z_init)
        inflateEnd(&s->z);
    free(s->zbuf);
    lines_fini(&s->in);
    buf_free(&s->line);
    if (s->fd >= 0)
        close(s->fd);
    free(s);
}

io_events_kind io_events_kind_of(const io_events *s) { return s->kind; }

const char *io_events_kind_name(io_events_kind k)
{
    return k == IO_EVENTS_SQLITE ? "SQLite" : k == IO_EVENTS_GZIP ? "gzip JSONL" : "JSONL";
}

int io_events_next(io_events *s, str *line)
{
    if (s->kind == IO_EVENTS_SQLITE)
        return db_next(s, line);
    if (s->failed)
        return LINES_END;
    int rc = lines_next(&s->in, line);
    if (rc == LINES_END && s->in.failed && !s->failed) {
        if (s->in.err_no)
            fail(s, ERR_IO, "%s: reading failed after line %lld: %s", s->path, (long long)s->in.number,
                 strerror(s->in.err_no));
        else
            fail(s, ERR_NOMEM, "%s: out of memory after line %lld", s->path, (long long)s->in.number);
    }
    return rc;
}

const err *io_events_error(const io_events *s) { return s->failed ? &s->e : NULL; }

i64 io_events_where(const io_events *s) { return s->kind == IO_EVENTS_SQLITE ? s->row : s->in.number; }

i64 io_events_bytes(const io_events *s)
{
    switch (s->kind) {
    case IO_EVENTS_SQLITE: return s->row;
    case IO_EVENTS_GZIP:   return s->z_read;
    default:               return s->in.consumed;
    }
}

i64 io_events_size(const io_events *s) { return s->kind == IO_EVENTS_SQLITE ? s->max_id : s->size; }
