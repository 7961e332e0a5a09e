/* job.c - the inputs, the output and the line fields the JSON-lines jobs
 * share (job.h). */
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/os.h"

enum { OUT_HOLD = 1 << 16 };

static const char *input_name(const job *j, int k)
{
    return j->o->ninputs > 0 ? j->o->inputs[k] : "-";
}

static bool is_stdin(const char *name)
{
    return !strcmp(name, "-");
}

static const char *display_name(const char *name)
{
    return is_stdin(name) ? "standard input" : name;
}

static void write_out(job *j);

/* The input would wait: the job's own idle work, then what is held goes out. */
static void on_idle(void *ctx)
{
    job *j = ctx;
    if (j->idle)
        j->idle(j->idle_ctx);
    write_out(j);
}

static void lines_hooks(job *j)
{
    j->in.stop = j->o->stop;
    j->in.idle = on_idle;
    j->in.idle_ctx = j;
}

void job_set_idle(job *j, void (*idle)(void *ctx), void *ctx)
{
    j->idle = idle;
    j->idle_ctx = ctx;
}

int job_open(job *j, const io_opts *o, io_stats *st, err *e)
{
    memset(j, 0, sizeof *j);
    memset(st, 0, sizeof *st);
    j->o = o;
    j->st = st;
    j->out_fd = 1;
    j->n = o->ninputs > 0 ? o->ninputs : 1;
    if (j->n > IO_MAX_INPUTS)
        return err_set(e, ERR_LIMIT, -1, "more than %d input files", IO_MAX_INPUTS);
    j->fds = malloc((size_t)j->n * sizeof *j->fds);
    if (!j->fds)
        return err_set(e, ERR_NOMEM, -1, "out of memory");
    bool sizes = true;
    for (int k = 0; k < j->n; k++)
        j->fds[k] = -1;
    for (int k = 0; k < j->n; k++) {
        const char *name = input_name(j, k);
        int fd = is_stdin(name) ? 0 : open(name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            err_set(e, ERR_IO, -1, "cannot open %s: %s", name, strerror(errno));
            goto fail;
        }
        j->fds[k] = fd;
        struct stat sb;
        if (fstat(fd, &sb) != 0) {
            err_set(e, ERR_IO, -1, "cannot read %s: %s", display_name(name), strerror(errno));
            goto fail;
        }
        if (S_ISDIR(sb.st_mode)) {
            err_set(e, ERR_IO, -1, "cannot read %s: it is a folder", display_name(name));
            goto fail;
        }
        if (S_ISREG(sb.st_mode)) {
            off_t at = lseek(fd, 0, SEEK_CUR);
            st->bytes_total += (i64)sb.st_size - (at > 0 ? (i64)at : 0);
        } else {
            sizes = false;
        }
    }
    if (!sizes)
        st->bytes_total = 0;
    if (o->output && !is_stdin(o->output)) {
        int fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0) {
            err_set(e, ERR_IO, -1, "cannot write %s: %s", o->output, strerror(errno));
            goto fail;
        }
        j->out_fd = fd;
        j->out_owned = true;
    }
    if (!lines_init(&j->in, j->fds[0], o->max_line > 0 ? o->max_line : LINES_MAX_DEFAULT)) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        goto fail;
    }
    lines_hooks(j);
    j->in_open = true;
    j->t0 = os_now();
    j->next_progress = j->t0 + o->progress_s;
    return ERR_OK;
fail:
    for (int k = 0; k < j->n; k++)
        if (j->fds[k] > 0)
            close(j->fds[k]);
    if (j->out_owned)
        close(j->out_fd);
    free(j->fds);
    j->fds = NULL;
    return e->code;
}

int job_next(job *j, str *line, int *input, i64 *lineno)
{
    for (;;) {
        if (job_failed(j) || job_stopped(j))
            return LINES_END;
        int lr = lines_next(&j->in, line);
        if (lr != LINES_END) {
            *input = j->cur;
            *lineno = j->in.number;
            return lr;
        }
        if (j->in.failed) {
            j->fatal = err_set(&j->e, ERR_IO, -1, "reading %s failed: %s", display_name(input_name(j, j->cur)),
                               strerror(j->in.err_no));
            return LINES_END;
        }
        if (j->cur + 1 >= j->n)
            return LINES_END;
        j->bytes_before += j->in.consumed;
        iz max = j->in.max;
        lines_fini(&j->in);
        j->in_open = false;
        j->cur++;
        if (!lines_init(&j->in, j->fds[j->cur], max)) {
            j->fatal = err_set(&j->e, ERR_NOMEM, -1, "out of memory");
            return LINES_END;
        }
        lines_hooks(j);
        j->in_open = true;
    }
}

i64 job_consumed(const job *j)
{
    return j->bytes_before + j->in.consumed;
}

void job_where(const job *j, int input, i64 lineno, char *out, iz cap)
{
    if (j->o->ninputs > 0 && !is_stdin(input_name(j, input)))
        snprintf(out, (size_t)cap, "%s line %lld", input_name(j, input), (long long)lineno);
    else
        snprintf(out, (size_t)cap, "line %lld", (long long)lineno);
}

static void write_out(job *j)
{
    if (j->fatal || j->out.len == 0)
        return;
    if (j->out.failed) {
        j->fatal = err_set(&j->e, ERR_NOMEM, -1, "out of memory holding the output");
        return;
    }
    const u8 *p = j->out.data;
    iz left = j->out.len;
    while (left > 0) {
        ssize_t k = write(j->out_fd, p, (size_t)left);
        if (k < 0 && errno == EINTR)
            continue;   /* a signal: the line being written is finished first */
        if (k <= 0) {
            const char *name = j->out_owned ? j->o->output : "standard output";
            j->fatal = err_set(&j->e, ERR_IO, -1, "writing %s failed: %s", name,
                               k < 0 ? strerror(errno) : "nothing written");
            return;
        }
        p += k;
        left -= k;
    }
    j->out.len = 0;
}

void job_emit(job *j, str line)
{
    buf_str(&j->out, line);
    if (j->out.len >= OUT_HOLD || j->out.failed)
        write_out(j);
}

bool job_failed(const job *j)
{
    return j->fatal != ERR_OK;
}

bool job_stopped(const job *j)
{
    return j->o->stop && *j->o->stop;
}

void job_progress(job *j, bool force)
{
    if (!j->o->progress || j->o->progress_s <= 0)
        return;
    double now = os_now();
    if (!force && now < j->next_progress)
        return;
    j->next_progress = now + j->o->progress_s;
    j->st->elapsed_s = now - j->t0;
    j->o->progress(j->o->cb_ctx, j->st);
}

int job_close(job *j, err *e)
{
    write_out(j);
    if (j->out_owned && close(j->out_fd) != 0 && !j->fatal)
        j->fatal = err_set(&j->e, ERR_IO, -1, "writing %s failed: %s", j->o->output, strerror(errno));
    if (j->in_open)
        lines_fini(&j->in);
    for (int k = 0; k < j->n; k++)
        if (j->fds[k] > 0)
            close(j->fds[k]);
    free(j->fds);
    buf_free(&j->out);
    j->st->elapsed_s = os_now() - j->t0;
    j->st->final = true;
    if (j->fatal) {
        *e = j->e;
        return j->fatal;
    }
    return job_stopped(j) ? ERR_STOPPED : ERR_OK;
}

void job_put_id(buf *b, str id_json)
{
    buf_byte(b, '{');
    if (id_json.len) {
        buf_cstr(b, "\"id\":");
        buf_str(b, id_json);
        buf_byte(b, ',');
    }
}

void job_put_msg(buf *b, str id_json, const char *field, const char *msg, const char *type)
{
    job_put_id(b, id_json);
    buf_byte(b, '"');
    buf_cstr(b, field);
    buf_cstr(b, "\":");
    json_write_str(b, str_cstr(msg));
    if (type) {
        buf_cstr(b, ",\"error_type\":");
        json_write_str(b, str_cstr(type));
    }
    buf_cstr(b, "}\n");
}

str job_id_text(buf *tmp, const json *id)
{
    tmp->len = 0;
    if (id)
        json_write(tmp, id);
    return buf_view(tmp);
}

bool job_add_class(io_stats *st, const char *cls)
{
    for (int k = 0; k < st->ncls; k++)
        if (!strcmp(st->cls[k], cls)) {
            st->cls_n[k]++;
            return false;
        }
    if (st->ncls == IO_MAX_CLASSES) {
        st->cls_other++;
        return false;
    }
    snprintf(st->cls[st->ncls], IO_CLASS_LEN, "%s", cls);
    st->cls_n[st->ncls++] = 1;
    return true;
}
