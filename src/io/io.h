/* io.h - the JSON-lines jobs behind `tally tokenize`, `render` and `count`:
 * input files (or standard input) read line by line, one output line per
 * input line, in order, written to a file or standard output. A bad line
 * is an error for that line only; a read or write failure, or a file that
 * cannot be opened, ends the job with an error. Each job is one call; the
 * caller (cli/) turns argv into these options, prints what the callbacks
 * hand it and chooses the exit status from the result.
 * Depends on drain/, chat/, tok/, json/ and base/. */
#ifndef TALLY_IO_H
#define TALLY_IO_H

#include <signal.h>
#include "../base/base.h"
#include "../base/err.h"
#include "../chat/chat_template.h"
#include "../chat/count.h"
#include "../tok/tok.h"

enum {
    IO_MAX_CLASSES = 16,   /* fallback classes told apart in the stats */
    IO_CLASS_LEN   = 64,
    IO_MAX_INPUTS  = 4096,
    IO_MAX_WORKERS = 256,  /* worker processes a job may ask for (pool.h's POOL_MAX_WORKERS) */
};

/* Where a job is, for progress lines and the summary. */
typedef struct io_stats {
    i64    lines;              /* input lines answered (an output line each) */
    i64    errors, skipped, pending;
    i64    counted[COUNT_PROMPT + 1];   /* count: lines counted, by count_kind */
    i64    tokens;             /* tokenize, count: tokens of the counted lines */
    i64    bytes_out;          /* render: bytes rendered */
    i64    fallbacks;          /* count: counts that are upstream's fallback */
    char   cls[IO_MAX_CLASSES][IO_CLASS_LEN];   /* ... by Python class, first seen first */
    i64    cls_n[IO_MAX_CLASSES];
    int    ncls;
    i64    cls_other;          /* classes past IO_MAX_CLASSES */
    i64    tools_unread;       /* count: prompts with tools their template never reads */
    i64    bytes_done;         /* input bytes of the lines answered */
    i64    bytes_total;        /* of all inputs, when every one is a regular file; else 0 */
    double elapsed_s;          /* since the first line was read */
    int    workers;            /* count: worker processes (0: counted in this process) */
    iz     worker_deaths;
    bool   final;              /* the last progress call */
} io_stats;

/* Options every job takes. */
typedef struct io_opts {
    const char *const *inputs;   /* file names, "-" = standard input; none = standard input */
    int         ninputs;
    const char *output;          /* created or truncated; NULL or "-" = standard output */
    iz          max_line;        /* bytes; 0 = LINES_MAX_DEFAULT; a longer line is an error */
    double      progress_s;      /* a progress call every this many seconds; 0 = none */
    /* Set (by a signal handler) to stop: the job ends after the last whole
     * output line and returns ERR_STOPPED. NULL = never. */
    volatile sig_atomic_t *stop;
    void (*progress)(void *ctx, const io_stats *s);
    /* A warning for a person (the first fallback of each class, ...). */
    void (*warn)(void *ctx, const char *msg);
    void  *cb_ctx;
} io_opts;

/* Every job returns ERR_OK when each input line got its output line;
 * ERR_STOPPED when *stop was set; else a fatal error, with `e` saying what
 * and where (an input that cannot be opened or read, the output that
 * cannot be written, out of memory). `st` is filled in every case. */

/* `tally tokenize`: lines {"text": ...} -> {"n": N} (with want_ids also
 * "ids"); an "id" is echoed. */
typedef struct io_tokenize_opts {
    io_opts io;
    bool    want_ids;
} io_tokenize_opts;
int io_tokenize_lines(const tok *t, const io_tokenize_opts *o, io_stats *st, err *e);

/* `tally render`: prompt objects -> {"rendered": ...} or {"error": ...,
 * "error_type": ...}. */
typedef struct io_render_opts {
    io_opts io;
    i64     now;              /* strftime_now's clock */
    double  render_budget_s;  /* seconds per render; 0 = COUNT_RENDER_BUDGET_S */
} io_render_opts;
int io_render_lines(const chat_tmpl *ct, const io_render_opts *o, io_stats *st, err *e);

/* `tally count`: any shape shapes.h reads -> {"kind": K, "n": N} and the
 * other outcomes of count.h, through the queue and its drain (queue.h,
 * count_ops.h): the lines go to `workers` worker processes forked once (0:
 * counted in this process), and come back in order. */
typedef struct io_count_opts {
    io_opts io;
    int     want;             /* a count_kind, or SHAPES_AUTO */
    int     workers;
    double  deadline;         /* os_now() time when counting stops (lines left: "pending"); 0 = none */
} io_count_opts;
int io_count_lines(const count_model *m, const io_count_opts *o, io_stats *st, err *e);

/* `tally replay`: upstream's aggregator over a run's event log (JSONL,
 * gzip-compressed JSONL or SQLite events.db: io/events.h), writing
 * OUT/metrics/final_snapshot.json, OUT/performance/result_summary.json and
 * OUT/report.txt (each atomically: a temporary file, fsync, rename) as
 * upstream's aggregator and report write them. A line that does not
 * decode is one synthetic error.generic record, as a bad frame is on
 * upstream's wire. A log without session.ended ends as upstream's SIGTERM
 * path: an INTERRUPTED snapshot, no drain, the queued counts pending. */
typedef struct io_replay_opts {
    const char *events;            /* the log */
    const char *out_dir;           /* created when missing */
    int         streaming;         /* 1, 0, or -1: from the log (any sample.recv_first) */
    bool        early_stopping;
    int         sig_figs, n_buckets;
    const count_model *model;      /* NULL: no tokenizer */
    int         workers;
    double      drain_timeout_s;   /* from session.ended; 0 = unlimited */
    const char *load_pattern;      /* --load-pattern; NULL: run_config's load_pattern.type, else concurrency */
    bool        no_legacy_loadgen_qps;   /* poisson's QPS over the tracked duration, not the LoadGen window */
    const char *run_config;        /* a JSON file with the run_config dict, or NULL */
    const char *git_sha;           /* NULL: none */
    const char *version;
    bool        pin_timestamp;     /* the snapshot's timestamp_ns is `timestamp_ns` (tests) */
    i64         timestamp_ns;
    iz          max_line;
    double      progress_s;
    volatile sig_atomic_t *stop;
    void (*progress)(void *ctx, const char *line);   /* a progress line, for a person */
    void (*warn)(void *ctx, const char *msg);
    void  *cb_ctx;
} io_replay_opts;

typedef struct io_replay_stats {
    i64    lines, events, malformed, too_long;
    i64    malformed_at[5];            /* the first line numbers of malformed lines */
    /* records upstream's msgpack wire could not carry (agg_event.wire_error):
     * how many, the first's line number and exception */
    i64    wire_errors, wire_first;
    const char *wire_class;
    bool   ended, streaming;
    iz     counts_enqueued, counts_done, counts_failed, pending;
    double read_s, drain_s, total_s;
    char   summary[4096];              /* the report's summary block, for stdout */
} io_replay_stats;

int io_replay(const io_replay_opts *o, io_replay_stats *st, err *e);

/* `tally report`: OUT/performance/result_summary.json and OUT/report.txt
 * from a final_snapshot.json, as upstream's pipeline builds them after a
 * run (Report.from_snapshot, to_json, display); the report's summary block
 * in `summary`. The legacy LoadGen QPS window is used as upstream decides
 * it: load pattern poisson (--load-pattern, else the run_config's) and
 * use_legacy_loadgen_qps_metrics (the run_config's, default true) unless
 * no_legacy_loadgen_qps. */
typedef struct io_report_opts {
    const char *snapshot;          /* the final_snapshot.json */
    const char *out_dir;
    const char *load_pattern;
    bool        no_legacy_loadgen_qps;
    const char *run_config;
    const char *git_sha;
    const char *version;
} io_report_opts;

int io_report(const io_report_opts *o, char *summary, iz summary_cap, err *e);

/* `tally aggregate`: upstream's metrics aggregator process (its
 * metrics_aggregator/__main__.py, ../shared/docs/upstream-spec.md §3,
 * §9, §10): the startup checks (their FATAL messages in e->msg), the
 * tokenizer (load_model, after the checks, as upstream loads it), a SUB
 * socket connected to ipc://SOCKET_DIR/SOCKET_NAME (every topic, no
 * high-water mark), a PUB socket bound at ipc://SOCKET_DIR/METRICS_SOCKET
 * (IMMEDIATE, high-water mark 4, linger 10 s), the .ready file and the
 * readiness message; then the events through the aggregator (agg/agg.h)
 * frame by frame (msgpack_event.h), a live snapshot every
 * publish_interval_s while LIVE (from the first session.started) and
 * DRAINING (from session.ended), the drain under drain_timeout_s, and
 * METRICS_OUTPUT_DIR/final_snapshot.json written atomically, the terminal
 * snapshot published after it (also when the write failed: logged). When
 * *sigterm is set: the INTERRUPTED snapshot with every queued count
 * pending, no drain; *sigint is only logged (the parent's session.ended
 * decides). A bad frame is logged and counted, never fatal: a payload that
 * does not decode is upstream's synthetic error.generic record, a bad
 * batch is dropped whole.
 * Returns ERR_OK after session.ended or SIGTERM (the file written or
 * not), else an error before the loop began (a FATAL check, the
 * tokenizer, a socket that cannot be made). Not reentrant: one per
 * process. */
typedef struct io_aggregate_opts {
    const char *socket_dir, *socket_name, *metrics_socket, *metrics_output_dir;
    double      publish_interval_s;   /* --publish-interval (0.25); <= 0: no live snapshots */
    double      drain_timeout_s;      /* --drain-timeout; 0 = unlimited */
    int         sig_figs, n_buckets;
    int         tokenizer_workers;    /* --tokenizer-workers (checked >= 0 here, FATAL otherwise) */
    bool        streaming, early_stopping;
    const char *readiness_path;       /* NULL: no readiness message */
    i64         readiness_id;
    int         workers;              /* processes of the drain (0: in this process) */
    /* The tokenizer, loaded after the startup checks; NULL (the function
     * or its result, with e->code ERR_OK) when there is none. */
    const count_model *(*load_model)(void *ctx, err *e);
    volatile sig_atomic_t *sigterm, *sigint;
    void (*log)(void *ctx, const char *msg);   /* "INFO ...", "WARNING ...", "ERROR ..." for a person */
    void  *cb_ctx;
} io_aggregate_opts;

typedef struct io_aggregate_stats {
    i64  frames, records, batches, short_frames, bad_batches, malformed;
    i64  events;                    /* records given to the aggregator */
    i64  snapshots;                 /* live snapshots published */
    bool ended, interrupted, written;
    iz   counts_enqueued, pending;
    double run_s, drain_s;          /* first frame to session.ended; session.ended to the file */
} io_aggregate_stats;

int io_aggregate(const io_aggregate_opts *o, io_aggregate_stats *st, err *e);

/* One progress line ("count: 1200 lines, 35% of 2.0 GB, 0 errors, ...,
 * 2400 lines/s, ETA 7 s") and the summary ("count: 20000 lines: ...");
 * `what` names the job. No newline. */
void io_progress_format(const char *what, const io_stats *s, char *out, iz cap);
void io_summary_format(const char *what, const io_stats *s, char *out, iz cap);

#endif
