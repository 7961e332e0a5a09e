/* tokenize_lines.c - `tally tokenize`'s job (io.h): {"text": ...} lines in,
 * {"n": N} (and the ids) out, in this process. */
#include <stdio.h>

#include "../base/arena.h"
#include "job.h"

int io_tokenize_lines(const tok *t, const io_tokenize_opts *o, io_stats *st, err *e)
{
    job j;
    int rc = job_open(&j, &o->io, st, e);
    if (rc != ERR_OK)
        return rc;
    tok_work *w = tok_work_new(t);
    arena a;
    arena_init(&a, CHAT_SCRATCH_MAX);
    arena_mark base = arena_reserve(&a, 1 << 20);
    buf line = {0}, idt = {0};
    if (!w)
        j.fatal = err_set(&j.e, ERR_NOMEM, -1, "out of memory");
    str in;
    int input, lr;
    i64 lineno;
    while (w && (lr = job_next(&j, &in, &input, &lineno)) != LINES_END) {
        arena_restore(&a, base);
        st->lines++;
        st->bytes_done = job_consumed(&j);
        char at[300], msg[ERR_MSG_MAX + 400];
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
        const json *text = v && v->type == JSON_OBJ ? json_get(v, S("text")) : NULL;
        if (!v) {
            snprintf(msg, sizeof msg, "%s: invalid JSON: %s at byte %td", at, je.msg, je.off);
            goto error;
        }
        if (v->type != JSON_OBJ) {
            snprintf(msg, sizeof msg, "%s: expected a JSON object", at);
            goto error;
        }
        if (!text || text->type != JSON_STR) {
            snprintf(msg, sizeof msg, "%s: expected a string field \"text\"", at);
            goto error;
        }
        const u32 *ids;
        iz n;
        err te = {0};
        if (tok_encode(t, w, text->u.s, &ids, &n, &te) != ERR_OK) {
            snprintf(msg, sizeof msg, "%s: %s", at, te.msg);
            goto error;
        }
        st->tokens += n;
        st->counted[COUNT_TEXT]++;
        job_put_id(&line, id);
        buf_cstr(&line, "\"n\":");
        buf_i64(&line, n);
        if (o->want_ids) {
            buf_cstr(&line, ",\"ids\":[");
            for (iz k = 0; k < n; k++) {
                if (k)
                    buf_byte(&line, ',');
                buf_u64(&line, ids[k]);
            }
            buf_byte(&line, ']');
        }
        buf_cstr(&line, "}\n");
        job_emit(&j, buf_view(&line));
        goto next;
    error:
        st->errors++;
        job_put_msg(&line, id, "error", msg, NULL);
        job_emit(&j, buf_view(&line));
    next:
        if ((lineno & 63) == 0)
            job_progress(&j, false);
    }
    buf_free(&line);
    buf_free(&idt);
    arena_fini(&a);
    tok_work_free(w);
    return job_close(&j, e);
}
