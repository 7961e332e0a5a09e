/* events.h - a benchmark run's event log, read as a stream of JSONL lines
 * whatever it is stored as (docs/upstream-aggregator.md §3, §4):
 *   - upstream's events.jsonl, read in blocks (base/lines.h);
 *   - the same compressed with gzip (events.jsonl.gz; one or more gzip
 *     members, as `gzip` and `cat a.gz b.gz` make them), inflated with zlib;
 *   - upstream's SQLite events.db (table `events`), each row in id order
 *     turned into the JSONL line it stands for: {"event_type", "timestamp_ns",
 *     "sample_uuid", "conversation_id", "turn", "data"} as upstream's JSONL
 *     writer writes a record, without "finish_reason" and "worker_id",
 *     which the table does not keep (tests/data/agg/gen_events.py db2jsonl
 *     writes the same bytes). A column of another type than the table
 *     declares gives a line the event decoder refuses, so that it counts
 *     as one malformed line: a NULL as null, a text where an integer
 *     belongs as a JSON string.
 * The kind is told by the first bytes (gzip's 1f 8b, "SQLite format 3"),
 * not by the name. Memory stays flat: one block, one line or one row.
 * Depends on base/, zlib and SQLite. */
#ifndef TALLY_IO_EVENTS_H
#define TALLY_IO_EVENTS_H

#include "../base/base.h"
#include "../base/buf.h"
#include "../base/err.h"
#include "../base/lines.h"

typedef struct io_events io_events;

typedef enum io_events_kind { IO_EVENTS_JSONL, IO_EVENTS_GZIP, IO_EVENTS_SQLITE } io_events_kind;

/* Opens the log at `path` (lines longer than max_line bytes are reported
 * as too long). NULL with `e` set for a missing or unreadable file, a
 * folder, an empty file, a database that SQLite cannot open or that has no
 * `events` table, or no memory; the message names the path. */
io_events *io_events_open(const char *path, iz max_line, err *e);
void       io_events_close(io_events *s);

io_events_kind io_events_kind_of(const io_events *s);
const char    *io_events_kind_name(io_events_kind k);   /* "JSONL", "gzip JSONL", "SQLite" */

/* The next line: LINES_OK with *line (valid until the next call),
 * LINES_TOO_LONG (skipped; it still counts as a line), or LINES_END: the
 * end of the log, or an error that ended it early (io_events_error). */
int io_events_next(io_events *s, str *line);

/* NULL when the log ended cleanly; else what ended it (a read error, a
 * truncated or corrupt gzip stream, a corrupt database page), with the
 * path and the line or row where it happened. */
const err *io_events_error(const io_events *s);

/* The 1-based number of the last line returned (the row's position for a
 * database). */
i64 io_events_where(const io_events *s);

/* Progress: how much of the log has been read, of how much. Bytes of the
 * file for JSONL and gzip (compressed bytes for gzip); rows for a
 * database (of its largest id: an estimate). */
i64 io_events_bytes(const io_events *s);
i64 io_events_size(const io_events *s);

/* The JSONL line of one events row (the columns in the table's order
 * after id: sample_uuid, event_type, timestamp_ns, conversation_id, turn,
 * data), appended to out; each value as a SQLite value of type `types[k]`
 * (SQLITE_INTEGER, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL, SQLITE_FLOAT)
 * with its bytes (text, blob: raw; integer: `ints[k]`; float: its text in
 * `vals[k]`). Pure; for the reader and its fuzz target. */
void io_events_row_line(buf *out, const int types[6], const str vals[6], const i64 ints[6]);

#endif
