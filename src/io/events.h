/* events.h - the event logs `tally replay` reads (docs/upstream-aggregator.md
 * §3-§4): upstream's events.jsonl, the same compressed with gzip, or its
 * SQLite events.db, each as a stream of JSONL lines for agg/event.h's
 * decoder. Streamed: memory holds a block of the file and the longest
 * line, never the log. Depends on base/ (lines), json/, zlib and SQLite. */
#ifndef TALLY_IO_EVENTS_H
#define TALLY_IO_EVENTS_H

#include "../base/buf.h"
#include "../base/err.h"
#include "../base/lines.h"

typedef struct io_events io_events;

typedef enum io_events_kind { IO_EVENTS_JSONL, IO_EVENTS_GZIP, IO_EVENTS_SQLITE } io_events_kind;

/* Opens the log at `path` (a file; a FIFO is read as JSONL or gzip). The
 * kind is told by the first bytes, whatever the name: gzip's magic 1f 8b,
 * SQLite's header "SQLite format 3\0", else JSONL. NULL with `e` filled
 * (naming the file) for a missing file, a folder, an empty file (0 bytes:
 * not a log; replay.py would take it as a run without events), a database
 * SQLite cannot open or that has no table `events` with upstream's
 * columns, and when out of memory. max_line bounds a line (0 =
 * LINES_MAX_DEFAULT); a longer one is LINES_TOO_LONG. Close with
 * io_events_close. Not thread-safe; do not share across fork. */
io_events *io_events_open(const char *path, iz max_line, err *e);
io_events_kind io_events_kind_of(const io_events *s);
const char    *io_events_kind_name(io_events_kind k);   /* "JSONL", "gzip JSONL", "SQLite" */

/* The next line: LINES_OK with *line (valid until the next call),
 * LINES_TOO_LONG (the line is skipped; it counts), or LINES_END.
 *   JSONL: the file's lines, as lines.h reads them (a CR before the
 *   newline kept; a byte-order mark at the start kept too: the reference
 *   replay reads bytes and so refuses that first line; a last line without
 *   its newline returned).
 *   gzip: the lines of the decompressed stream (zlib, block by block;
 *   concatenated members and zero padding after the last are taken, as
 *   Python's gzip module takes them).
 *   SQLite: one line per row of `events`, in id order: the JSONL line the
 *   row stands for (io_events_row_line).
 * LINES_END is also where a read error, a truncated or corrupt gzip stream
 * or a corrupt database page stops the log: io_events_error says which.
 * The lines before it are the log's. */
int  io_events_next(io_events *s, str *line);

/* NULL when the log ended cleanly (or has not ended yet), else why it
 * stopped early (ERR_IO: a read error, a truncated or corrupt gzip stream
 * or database; ERR_NOMEM). The message names the file. */
const err *io_events_error(const io_events *s);
/* The 1-based number of the line returned last (the row's position, not
 * its id, for a database); 0 before the first. */
i64  io_events_where(const io_events *s);
/* Progress: bytes of the file consumed so far (the compressed bytes for
 * gzip) out of its size (-1 when unknown: a FIFO); for a database, rows
 * done out of the rows the table had when it was opened. */
i64  io_events_bytes(const io_events *s);
i64  io_events_size(const io_events *s);
void io_events_close(io_events *s);

/* ---- one row of events.db ------------------------------------------------------ */

/* A column's value as SQLite stores it (its storage class). */
enum { IO_COL_NULL, IO_COL_INT, IO_COL_REAL, IO_COL_TEXT, IO_COL_BLOB };
typedef struct io_events_col {
    int    type;
    i64    i;
    double f;
    str    s;     /* TEXT and BLOB: its bytes */
} io_events_col;

/* The columns of upstream's table (sql_writer.py EventRowModel), in the
 * order io_events_row_line takes them. */
enum { IO_ROW_UUID, IO_ROW_TOPIC, IO_ROW_TS, IO_ROW_CONV, IO_ROW_TURN, IO_ROW_DATA, IO_ROW_NCOLS };

/* Appends the JSONL line row `id` stands for:
 *   {"event_type":<topic>,"timestamp_ns":<ts>,"sample_uuid":<uuid>,
 *    "conversation_id":<conv>,"turn":<turn|null>,"data":<data>}
 * the strings JSON-escaped as msgspec writes them and data's bytes as they
 * are, which is upstream's JSONL line of that record without
 * finish_reason and worker_id, which the table does not keep (the same
 * bytes as tests/data/agg/gen_events.py db2jsonl). Upstream's writer
 * stores TEXT in sample_uuid, event_type and conversation_id, an INTEGER in
 * timestamp_ns, an INTEGER or NULL in turn, and one JSON value in data as
 * a BLOB (TEXT is taken too). A row that holds anything else, or whose
 * data is not exactly one JSON value (it could not stand in the line
 * without changing the record around it), becomes a line that is not
 * JSON, "events.db row <id>: <what is wrong>", which agg_event_decode
 * refuses like any malformed line. Returns true for a line that stands for
 * a record. No line holds a newline. Pure. */
bool io_events_row_line(buf *out, i64 id, const io_events_col cols[IO_ROW_NCOLS]);

#endif
