/* events_db.c - upstream's SQLite event log (events.h;
 * docs/upstream-aggregator.md §4): the table `events` read row by row in
 * id order, each row re-encoded as the JSONL line of its record
 * (io_events_row_line). SQLite pages it in; memory holds one row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "events_src.h"
#include "../json/pyfmt.h"

struct ev_db {
    sqlite3 *db;
    sqlite3_stmt *rows;
    i64 total, done;
    iz max_line;
    buf line;
};

/* ---- a row, as its JSONL line -------------------------------------------------- */

static bool json_ws(u8 c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Whether s is one JSON value with at most JSON whitespace around it, as
 * far as the value's extent goes: strings closed (escapes stepped over),
 * brackets balanced, nothing after the first value. The decoder judges
 * the value itself; this only makes sure that it ends where the line's
 * "data" ends, so that a row cannot speak for keys of the record. */
static bool one_value(str s)
{
    iz i = 0, n = s.len;
    while (i < n && json_ws(s.s[i]))
        i++;
    if (i == n)
        return false;
    u8 c = s.s[i];
    if (c == '"' || c == '[' || c == '{') {
        int depth = 0;
        do {
            c = s.s[i];
            if (c == '"') {
                for (i++; i < n && s.s[i] != '"'; i++)
                    if (s.s[i] == '\\')
                        i++;
                if (i >= n)
                    return false;
            } else if (c == '[' || c == '{') {
                depth++;
            } else if (c == ']' || c == '}') {
                depth--;
            }
            i++;
        } while (depth > 0 && i < n);
        if (depth != 0)
            return false;
    } else {
        while (i < n && !json_ws(s.s[i]) && !strchr(",:[]{}\"", s.s[i]))
            i++;
    }
    while (i < n && json_ws(s.s[i]))
        i++;
    return i == n;
}

static const char *const col_names[IO_ROW_NCOLS] = {
    "sample_uuid", "event_type", "timestamp_ns", "conversation_id", "turn", "data",
};
static const char *const class_names[] = {"NULL", "INTEGER", "REAL", "TEXT", "BLOB"};

/* The line of a row upstream's writer could not have written. */
static bool refused(buf *out, iz mark, i64 id, int col, const io_events_col *c, const char *want)
{
    out->len = mark;
    buf_printf(out, "events.db row %lld: %s is %s", (long long)id, col_names[col],
               c->type >= 0 && c->type <= IO_COL_BLOB ? class_names[c->type] : "?");
    if (c->type == IO_COL_INT)
        buf_printf(out, " %lld", (long long)c->i);
    else if (c->type == IO_COL_REAL)
        buf_printf(out, " %.17g", c->f);
    buf_printf(out, ", not %s (not a record upstream's event logger writes)", want);
    return false;
}

bool io_events_row_line(buf *out, i64 id, const io_events_col cols[IO_ROW_NCOLS])
{
    iz mark = out->len;
    static const int text_cols[] = {IO_ROW_UUID, IO_ROW_TOPIC, IO_ROW_CONV};
    for (int k = 0; k < countof(text_cols); k++)
        if (cols[text_cols[k]].type != IO_COL_TEXT)
            return refused(out, mark, id, text_cols[k], &cols[text_cols[k]], "TEXT");
    if (cols[IO_ROW_TS].type != IO_COL_INT)
        return refused(out, mark, id, IO_ROW_TS, &cols[IO_ROW_TS], "an INTEGER");
    if (cols[IO_ROW_TURN].type != IO_COL_INT && cols[IO_ROW_TURN].type != IO_COL_NULL)
        return refused(out, mark, id, IO_ROW_TURN, &cols[IO_ROW_TURN], "an INTEGER or NULL");
    const io_events_col *data = &cols[IO_ROW_DATA];
    if (data->type != IO_COL_BLOB && data->type != IO_COL_TEXT)
        return refused(out, mark, id, IO_ROW_DATA, data, "a BLOB of JSON");
    if (memchr(data->s.s, '\n', (size_t)data->s.len) || !one_value(data->s)) {
        buf_printf(out, "events.db row %lld: data is not one JSON value on one line (%td bytes)", (long long)id,
                   data->s.len);
        return false;
    }
    /* sql_writer.py's row, back to JSONLWriter's line (msgspec's escapes are json.dumps's) */
    buf_cstr(out, "{\"event_type\":");
    pyfmt_json_str(out, cols[IO_ROW_TOPIC].s, false);
    buf_cstr(out, ",\"timestamp_ns\":");
    buf_i64(out, cols[IO_ROW_TS].i);
    buf_cstr(out, ",\"sample_uuid\":");
    pyfmt_json_str(out, cols[IO_ROW_UUID].s, false);
    buf_cstr(out, ",\"conversation_id\":");
    pyfmt_json_str(out, cols[IO_ROW_CONV].s, false);
    buf_cstr(out, ",\"turn\":");
    if (cols[IO_ROW_TURN].type == IO_COL_NULL)
        buf_cstr(out, "null");
    else
        buf_i64(out, cols[IO_ROW_TURN].i);
    buf_cstr(out, ",\"data\":");
    buf_str(out, data->s);
    buf_byte(out, '}');
    return true;
}

/* ---- the table ------------------------------------------------------------------ */

static const char select_rows[] =
    "SELECT id, sample_uuid, event_type, timestamp_ns, conversation_id, turn, data FROM events ORDER BY id";

ev_db *ev_db_open(io_events *s, iz max_line, err *e)
{
    ev_db *d = calloc(1, sizeof *d);
    if (!d) {
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", s->path);
        return NULL;
    }
    d->max_line = max_line;
    int rc = sqlite3_open_v2(s->path, &d->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        err_set(e, ERR_IO, -1, "cannot open %s as an SQLite database: %s", s->path,
                d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc));
        goto fail;
    }
    sqlite3_busy_timeout(d->db, 5000);   /* a run still writing it holds its lock briefly */
    sqlite3_stmt *count = NULL;
    rc = sqlite3_prepare_v2(d->db, "SELECT count(*) FROM events", -1, &count, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(count)) == SQLITE_ROW) {
        d->total = sqlite3_column_int64(count, 0);
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK) {
        const char *m = sqlite3_errmsg(d->db);
        if (!strncmp(m, "no such table", 13))
            err_set(e, ERR_INVALID, -1, "%s is an SQLite database without the table events (not upstream's "
                    "events.db)", s->path);
        else
            err_set(e, ERR_IO, -1, "%s: SQLite: %s", s->path, m);
        sqlite3_finalize(count);
        goto fail;
    }
    sqlite3_finalize(count);
    if (sqlite3_prepare_v2(d->db, select_rows, -1, &d->rows, NULL) != SQLITE_OK) {
        err_set(e, ERR_INVALID, -1, "%s: the table events lacks upstream's columns (id, sample_uuid, event_type, "
                "timestamp_ns, conversation_id, turn, data): %s", s->path, sqlite3_errmsg(d->db));
        goto fail;
    }
    return d;
fail:
    ev_db_close(d);
    return NULL;
}

static io_events_col column(sqlite3_stmt *st, int k)
{
    io_events_col c = {0};
    switch (sqlite3_column_type(st, k)) {
    case SQLITE_INTEGER:
        c.type = IO_COL_INT;
        c.i = sqlite3_column_int64(st, k);
        break;
    case SQLITE_FLOAT:
        c.type = IO_COL_REAL;
        c.f = sqlite3_column_double(st, k);
        break;
    case SQLITE_TEXT:
    case SQLITE_BLOB:
        c.type = sqlite3_column_type(st, k) == SQLITE_TEXT ? IO_COL_TEXT : IO_COL_BLOB;
        /* the bytes as stored: column_blob converts nothing */
        c.s = str_from(sqlite3_column_blob(st, k), sqlite3_column_bytes(st, k));
        if (!c.s.s)
            c.s = S("");
        break;
    default:
        c.type = IO_COL_NULL;
        break;
    }
    return c;
}

int ev_db_next(io_events *s, str *line)
{
    ev_db *d = s->db;
    if (!d->rows || s->e.code)
        return LINES_END;
    int rc = sqlite3_step(d->rows);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(d->rows);
        d->rows = NULL;
        return LINES_END;
    }
    if (rc != SQLITE_ROW) {
        err_set(&s->e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_IO, -1, "%s: SQLite: %s (after %lld rows)", s->path,
                sqlite3_errmsg(d->db), (long long)d->done);
        return LINES_END;
    }
    d->done++;
    io_events_col cols[IO_ROW_NCOLS];
    for (int k = 0; k < IO_ROW_NCOLS; k++)
        cols[k] = column(d->rows, k + 1);
    i64 id = sqlite3_column_type(d->rows, 0) == SQLITE_INTEGER ? sqlite3_column_int64(d->rows, 0) : d->done;
    d->line.len = 0;
    io_events_row_line(&d->line, id, cols);
    if (d->line.failed) {
        err_set(&s->e, ERR_NOMEM, -1, "%s: out of memory at row %lld", s->path, (long long)id);
        return LINES_END;
    }
    *line = buf_view(&d->line);
    if (!line->s)
        *line = S("");
    return line->len > d->max_line ? LINES_TOO_LONG : LINES_OK;
}

i64 ev_db_where(const ev_db *d) { return d->done; }
i64 ev_db_done(const ev_db *d) { return d->done; }
i64 ev_db_total(const ev_db *d) { return d->total; }

void ev_db_close(ev_db *d)
{
    if (!d)
        return;
    sqlite3_finalize(d->rows);
    sqlite3_close(d->db);
    buf_free(&d->line);
    free(d);
}
