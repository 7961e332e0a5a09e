/* count_lines.c - `tally count`'s job (io.h): every input line is enqueued
 * on the queue (drain/queue.h) with the counting work of count_ops.h and
 * drained while the input is read; the queue records in enqueue order, so
 * the output lines come in input order whether the lines are counted on
 * the worker processes or here. */
#include <stdio.h>
#include <string.h>

#include "../agg/inputs.h"
#include "../base/os.h"
#include "../chat/shapes.h"
#include "../drain/count_ops.h"
#include "job.h"

_Static_assert((int)IO_MAX_WORKERS == (int)POOL_MAX_WORKERS, "io.h's limit is the pool's");

/* A tag is where its line is: the input's index and the line number. */
enum { TAG_LINE_BITS = 44 };
#define TAG_TOO_LONG ((u64)1 << 63)

typedef struct counter {
    job   j;
    const io_count_opts *o;
    dq   *q;
    const count_ops_ctx *cx;
    const dq_drain_opts *dopts;
    buf   line;      /* an output line being made */
    buf   tmp;
} counter;

static u64 make_tag(int input, i64 lineno, bool too_long)
{
    return ((u64)input << TAG_LINE_BITS) | (u64)lineno | (too_long ? TAG_TOO_LONG : 0);
}

static void where(counter *c, u64 tag, char *out, iz cap)
{
    job_where(&c->j, (int)((tag & ~TAG_TOO_LONG) >> TAG_LINE_BITS), (i64)(tag & (((u64)1 << TAG_LINE_BITS) - 1)),
              out, cap);
}

/* A line answered: its bytes count as done. */
static void answered(counter *c, const pool_item *it)
{
    c->j.st->lines++;
    c->j.st->bytes_done += it->payload.len + 1;
}

static void on_record(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    counter *c = ctx;
    io_stats *st = c->j.st;
    (void)tag;
    answered(c, it);
    buf *b = &c->line;
    b->len = 0;
    job_put_id(b, str_cstr(r->label));
    if (r->op) {   /* an event or a payload: the metric it counts for */
        buf_cstr(b, "\"metric\":\"");
        buf_cstr(b, agg_metric_name(r->op));
        buf_cstr(b, "\",");
    }
    if (c->o->want == SHAPES_AUTO) {
        buf_cstr(b, "\"kind\":\"");
        buf_cstr(b, count_kind_name((count_kind)r->kind));
        buf_cstr(b, "\",");
    }
    buf_cstr(b, "\"n\":");
    buf_i64(b, r->n);
    if (r->cls[0]) {
        buf_cstr(b, ",\"fallback\":");
        json_write_str(b, str_cstr(r->cls));
    }
    buf_cstr(b, "}\n");
    job_emit(&c->j, buf_view(b));
    st->tokens += r->n;
    if (r->kind >= COUNT_IDS && r->kind <= COUNT_PROMPT)
        st->counted[r->kind]++;
    if (r->flags & COUNT_OPS_TOOLS_UNREAD)
        st->tools_unread++;
    if (r->cls[0]) {
        st->fallbacks++;
        /* upstream warns once per failure class; so do we */
        if (job_add_class(st, r->cls) && c->j.o->warn) {
            char w[POOL_MSG_MAX + 800], at[300];
            where(c, tag, at, sizeof at);
            snprintf(w, sizeof w, "count: warning: %s: the chat template failed (%s); counted upstream's "
                     "fallback instead (%s); later %s fallbacks are only counted", at, r->msg,
                     r->kind == COUNT_PROMPT ? "the compact JSON of the prompt"
                                             : "the message's parts joined by newlines", r->cls);
            c->j.o->warn(c->j.o->cb_ctx, w);
        }
    }
}

static void on_fail(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    counter *c = ctx;
    answered(c, it);
    c->line.len = 0;
    if (r->state == POOL_SKIPPED) {
        c->j.st->skipped++;
        job_put_msg(&c->line, str_cstr(r->label), "skipped", r->msg, NULL);
    } else {
        char msg[POOL_MSG_MAX + 320], at[300];
        where(c, tag, at, sizeof at);
        c->j.st->errors++;
        if (tag & TAG_TOO_LONG)
            snprintf(msg, sizeof msg, "%s: longer than %td bytes", at, c->j.in.max);
        else
            snprintf(msg, sizeof msg, "%s: %s", at, r->msg);
        job_put_msg(&c->line, str_cstr(r->label), "error", msg, NULL);
    }
    job_emit(&c->j, buf_view(&c->line));
}

static void on_expire(void *ctx, u64 tag, const pool_item *it, const pool_result *r)
{
    counter *c = ctx;
    (void)r;
    if (tag & TAG_TOO_LONG) {   /* still an error, budget or not */
        pool_result e;
        pool_result_clear(&e);
        e.state = POOL_ERROR;
        on_fail(ctx, tag, it, &e);
        return;
    }
    answered(c, it);
    c->j.st->pending++;
    c->tmp.len = 0;
    count_ops_label(c->cx, it->payload, &c->tmp);
    c->line.len = 0;
    job_put_msg(&c->line, buf_view(&c->tmp), "pending", "not counted: the drain budget (--drain-timeout) ran out",
                NULL);
    job_emit(&c->j, buf_view(&c->line));
}

/* The input would wait: what is enqueued goes to the workers now. */
static void on_idle(void *ctx)
{
    counter *c = ctx;
    err e = {0};
    dq_drain_idle(c->q, c->dopts, c->j.in.fd, &e);
}

/* The drain's progress calls (while it waits on its workers): ours. */
static void on_drain_progress(void *ctx, const dq_progress *p)
{
    counter *c = ctx;
    c->j.st->worker_deaths = p->worker_deaths;
    job_progress(&c->j, false);
}

int io_count_lines(const count_model *m, const io_count_opts *o, io_stats *st, err *e)
{
    counter c = {.o = o};
    int rc = job_open(&c.j, &o->io, st, e);
    if (rc != ERR_OK)
        return rc;
    count_ops_ctx cx = {.model = m, .want = o->want, .resolve = agg_input};
    c.cx = &cx;
    dq_ops ops = {.record = on_record, .fail = on_fail, .expire = on_expire, .rctx = &c};
    count_ops_init(&ops, &cx);
    c.q = dq_new(&ops, &(dq_opts){0}, e);
    if (!c.q) {
        job_close(&c.j, e);
        return ERR_NOMEM;
    }
    /* what steers chunking: with --kind ids or text the lines are texts (by
     * bytes); otherwise prompts and messages (64 at a time) */
    u8 kind = o->want == COUNT_IDS || o->want == COUNT_TEXT ? POOL_KIND_TEXT : POOL_KIND_HEAVY;
    dq_drain_opts dopts = {
        .workers = o->workers,
        .deadline = o->deadline,
        .progress_s = o->io.progress_s > 0 ? MIN(o->io.progress_s, 1.0) : 0,
        .progress = on_drain_progress,
        .progress_ctx = &c,
        .stop = o->io.stop,
    };
    c.dopts = &dopts;
    job_set_idle(&c.j, on_idle, &c);
    err de = {0};
    bool warned = false;
    str line;
    int input, lr;
    i64 lineno;
    while ((lr = job_next(&c.j, &line, &input, &lineno)) != LINES_END) {
        bool too_long = lr == LINES_TOO_LONG;
        /* a line too long is not kept: an empty item holds its place, and
         * its answer is the error (on_fail) */
        str payload = too_long ? (str){0} : line;
        u8 k = too_long ? POOL_KIND_SMALL : kind;
        if (!dq_enqueue_op(c.q, 0, k, 0, payload, make_tag(input, lineno, too_long), DQ_LEND)) {
            c.j.fatal = err_set(&c.j.e, ERR_NOMEM, -1, "out of memory");
            break;
        }
        /* handed to the workers (or counted) now: the line is borrowed */
        int sr = dq_drain_step(c.q, &dopts, &de);
        if (de.code && !warned && o->io.warn) {
            char w[ERR_MSG_MAX + 32];
            snprintf(w, sizeof w, "count: %s", de.msg);
            o->io.warn(o->io.cb_ctx, w);
            warned = true;
        }
        if (sr == ERR_STOPPED)
            break;
        if (sr != ERR_OK) {
            c.j.fatal = err_set(&c.j.e, sr, -1, "%s", de.msg[0] ? de.msg : "out of memory");
            break;
        }
        if ((lineno & 63) == 0)
            job_progress(&c.j, false);
    }
    if (!job_failed(&c.j) && !job_stopped(&c.j)) {
        dopts.progress = on_drain_progress;
        dq_drain(c.q, &dopts, &de);
    }
    dq_stats qs;
    dq_stats_get(c.q, &qs);
    st->worker_deaths = qs.worker_deaths;
    st->workers = o->workers;
    dq_free(c.q);
    buf_free(&c.line);
    buf_free(&c.tmp);
    rc = job_close(&c.j, e);
    return rc;
}
