/* render_lines.c - `tally render`'s job (io.h): prompt objects in, their
 * chat template renderings out, in this process, each render with the
 * memory cap and the time budget of a count. */
#include <stdio.h>

#include "../base/arena.h"
#include "../base/os.h"
#include "job.h"

int io_render_lines(const chat_tmpl *ct, const io_render_opts *o, io_stats *st, err *e)
{
    job j;
    int rc = job_open(&j, &o->io, st, e);
    if (rc != ERR_OK)
        return rc;
    arena a;
    arena_init(&a, CHAT_SCRATCH_MAX);
    arena_mark base = arena_reserve(&a, 1 << 20);
    buf line = {0}, text = {0}, tmp = {0}, idt = {0};
    double budget = o->render_budget_s > 0 ? o->render_budget_s : COUNT_RENDER_BUDGET_S;
    str in;
    int input, lr;
    i64 lineno;
    while ((lr = job_next(&j, &in, &input, &lineno)) != LINES_END) {
        arena_restore(&a, base);
        st->lines++;
        st->bytes_done = job_consumed(&j);
        char at[300], msg[ERR_MSG_MAX + 400];
        const char *type = NULL;
        job_where(&j, input, lineno, at, sizeof at);
        line.len = 0;
        str id = {0};
        if (lr == LINES_TOO_LONG) {
            snprintf(msg, sizeof msg, "%s: longer than %td bytes", at, j.in.max);
            goto error;
        }
        err je = {0};
        json *v = json_parse(&a, in, NULL, &je);
        if (v && v->type == JSON_OBJ)
            id = job_id_text(&idt, json_get(v, S("id")));
        if (!v) {
            snprintf(msg, sizeof msg, "%s: invalid JSON: %s at byte %td", at, je.msg, je.off);
            goto error;
        }
        if (v->type != JSON_OBJ) {
            snprintf(msg, sizeof msg, "%s: expected a JSON object", at);
            goto error;
        }
        text.len = 0;
        text.failed = false;
        tmpl_error te;
        tmpl_render_opts ro = {.now = o->now, .tmp = &tmp, .deadline = os_now() + budget};
        rc = chat_render_prompt(ct, v, &ro, &a, &text, &te);
        if (rc == ERR_LIMIT && !te.exc && os_now() >= ro.deadline)
            snprintf(te.msg, sizeof te.msg, "the render ran past its time budget of %g s (--render-timeout)",
                     budget);
        if (rc == ERR_OK && !text.failed) {
            job_put_id(&line, id);
            buf_cstr(&line, "\"rendered\":");
            json_write_str(&line, buf_view(&text));
            buf_cstr(&line, "}\n");
            st->bytes_out += text.len;
            st->counted[COUNT_PROMPT]++;
            job_emit(&j, buf_view(&line));
            goto next;
        }
        if (rc == ERR_OK)
            snprintf(msg, sizeof msg, "%s: out of memory", at);
        else if (te.exc)
            snprintf(msg, sizeof msg, "%s", te.msg), type = te.exc;
        else
            snprintf(msg, sizeof msg, "%s: %s%s", at, te.code == ERR_UNSUPPORTED ? "unsupported: " : "", te.msg);
    error:
        st->errors++;
        job_put_msg(&line, id, "error", msg, type);
        job_emit(&j, buf_view(&line));
    next:
        if ((lineno & 63) == 0)
            job_progress(&j, false);
    }
    buf_free(&line);
    buf_free(&text);
    buf_free(&tmp);
    buf_free(&idt);
    arena_fini(&a);
    return job_close(&j, e);
}
