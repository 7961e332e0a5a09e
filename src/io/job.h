/* job.h - what the JSON-lines jobs of io.h share (internal to src/io/):
 * the inputs, one after another, line by line; the output, in whole lines;
 * the id and error fields of an output line; progress and stop checks. */
#ifndef TALLY_JOB_H
#define TALLY_JOB_H

#include "../base/buf.h"
#include "../base/lines.h"
#include "../json/json.h"
#include "io.h"

typedef struct job {
    const io_opts *o;
    io_stats *st;
    int      *fds;
    int       n;              /* inputs */
    int       cur;            /* the input being read */
    lines     in;
    bool      in_open;
    int       out_fd;
    bool      out_owned;
    buf       out;            /* whole lines not yet written */
    int       fatal;          /* ERR_OK, or why the job ended */
    err       e;              /* ... in words */
    double    t0, next_progress;
    i64       bytes_before;   /* input bytes of the inputs read before `cur` */
    void    (*idle)(void *ctx);   /* job_set_idle */
    void     *idle_ctx;
} job;

/* Opens every input and the output (an error before any work when one
 * cannot be). ERR_OK or the error, in `e`. */
int  job_open(job *j, const io_opts *o, io_stats *st, err *e);
/* The next line of the inputs: LINES_OK, LINES_TOO_LONG or LINES_END (the
 * end of the last input, or a read error: then job_failed). *input and
 * *lineno say where it is. */
int  job_next(job *j, str *line, int *input, i64 *lineno);
/* Before the input makes the job wait (nothing to read yet), `idle` runs
 * and what the job holds is written: a slow input (a pipe from a running
 * benchmark) gets its answers as soon as they are made. */
void job_set_idle(job *j, void (*idle)(void *ctx), void *ctx);
/* Input bytes read so far (all inputs). */
i64  job_consumed(const job *j);
/* Where a line is, for messages: "line 3", or "a.jsonl line 3" when the
 * inputs are named files. */
void job_where(const job *j, int input, i64 lineno, char *out, iz cap);
/* Appends one output line (with its newline) and writes when enough is
 * held; a write error ends the job (job_failed). */
void job_emit(job *j, str line);
/* True when the job must end now: a fatal error, or the stop flag. */
bool job_failed(const job *j);
bool job_stopped(const job *j);
/* A progress call when one is due (`force`: now). */
void job_progress(job *j, bool force);
/* Writes what is held, closes the files, fills the last stats; returns
 * the job's outcome (ERR_OK, ERR_STOPPED or the fatal error, into e). */
int  job_close(job *j, err *e);

/* The first fields of an output line: '{' and, when id_json is not
 * empty, "id":<id_json>, (one writer of ids for every job). */
void job_put_id(buf *b, str id_json);
/* A whole line {"id": ..., FIELD: MSG[, "error_type": TYPE]} with its
 * newline; `type` may be NULL (one writer of error lines). */
void job_put_msg(buf *b, str id_json, const char *field, const char *msg, const char *type);
/* The JSON text of id (NULL: none) in tmp (emptied first), as job_put_id
 * takes it. */
str  job_id_text(buf *tmp, const json *id);

/* Adds one fallback of class `cls`; true when it is the first of it. */
bool job_add_class(io_stats *st, const char *cls);

#endif
