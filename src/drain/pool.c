/* pool.c - the drain's process pool (pool.h): chunks dealt to forked
 * workers over pipes, the next chunk to the first worker with room
 * (work-conserving), results read back as they come, dead workers replaced
 * and their chunks retried one item at a time.
 *
 * Wire format (native byte order; both ends are the same binary):
 *   parent -> worker, one chunk:  u32 count, then count u64 item indexes
 *   worker -> parent, per item:   u64 index, u8 state, u8 fallback, i64 n,
 *                                 u16 msglen, msglen bytes
 * A worker is forked inside pool_run, after the caller filled `items`, and
 * nothing changes them until pool_run returns: the worker reads each item
 * (and its payload) from its copy-on-write copy of the caller's memory, so
 * only indexes go down the pipe, never the payloads.
 * The parent never blocks on a pipe: its ends are non-blocking and polled,
 * so a worker busy writing results can never deadlock with a parent busy
 * writing a chunk. */
#define _GNU_SOURCE
#include "pool.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/os.h"

enum { MAX_WORKERS = 256, MAX_IN_FLIGHT = 8 };

typedef struct chunk {
    iz   first;       /* into the pool's index array */
    iz   n;
    bool retry;       /* a one-item retry after a worker died */
} chunk;

typedef struct worker {
    pid_t pid;
    int   to_fd, from_fd;      /* parent's ends */
    buf   out;                 /* bytes not yet written */
    iz    out_off;
    buf   in;                  /* bytes read, not yet parsed */
    iz    flight[MAX_IN_FLIGHT];   /* chunk ids, oldest first */
    int   nflight;
    bool  alive;
} worker;

typedef struct pool {
    const pool_item *items;
    iz               stride;   /* bytes from one item to the next */
    pool_result     *res;      /* the window's results: item i at res[i - base] */
    iz               base, wn; /* the window: items [base, base + wn) */
    pool_work_fn     fn;
    void            *ctx;
    const pool_opts *o;
    pool_stats      *st;
    iz    *order;              /* item indexes, chunk by chunk */
    iz     norder, corder;
    chunk *chunks;
    iz     nchunks, cchunks;
    iz    *queue;              /* chunk ids waiting, a ring */
    iz     qhead, qlen, qcap;
    worker w[MAX_WORKERS];
    int    nw;
    double start, deadline, next_progress;
    pid_t  parent;
} pool;

static inline const pool_item *item_at(const pool *p, iz i)
{
    return (const pool_item *)(const void *)((const u8 *)p->items + i * p->stride);
}

static inline pool_result *res_at(const pool *p, iz i)
{
    return &p->res[i - p->base];
}

/* ---- small helpers -------------------------------------------------------- */

static void set_msg(pool_result *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void set_msg(pool_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
}

static bool grow(void **p, iz *cap, iz need, iz size)
{
    if (need <= *cap)
        return true;
    iz c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)(c * size));
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static void record(pool *p, iz idx, const pool_result *r)
{
    if (idx < p->base || idx >= p->base + p->wn)
        return;
    pool_result *dst = res_at(p, idx);
    if (dst->state != POOL_PENDING)
        return;
    *dst = *r;
    if (r->state == POOL_DONE) {
        p->st->done++;
        if (r->fallback)
            p->st->fallbacks++;
    } else {
        p->st->errors++;
    }
    p->st->pending--;
}

static void progress(pool *p, bool final)
{
    p->st->elapsed_s = os_now() - p->start;
    if (p->o->progress)
        p->o->progress(p->o->progress_ctx, p->st, final);
}

static void maybe_progress(pool *p)
{
    if (p->o->progress_s <= 0 || !p->o->progress)
        return;
    double now = os_now();
    if (now >= p->next_progress) {
        progress(p, false);
        p->next_progress = now + p->o->progress_s;
    }
}

static bool expired(const pool *p)
{
    return p->deadline > 0 && os_now() >= p->deadline;
}

/* ---- the worker side ------------------------------------------------------ */

static bool read_full(int fd, void *dst, size_t n)
{
    u8 *d = dst;
    while (n) {
        ssize_t k = read(fd, d, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        d += k;
        n -= (size_t)k;
    }
    return true;
}

static bool write_full(int fd, const void *src, size_t n)
{
    const u8 *s = src;
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        s += k;
        n -= (size_t)k;
    }
    return true;
}

_Noreturn static void worker_main(pool *p, int in_fd, int out_fd)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGPIPE, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != p->parent)
        _exit(0);   /* the parent died before prctl took effect */
    if (p->o->worker_init)
        p->o->worker_init(p->ctx);
    buf out = {0};
    for (;;) {
        u32 count;
        if (!read_full(in_fd, &count, sizeof count))
            _exit(0);   /* the parent closed our pipe: done */
        out.len = 0;
        for (u32 k = 0; k < count; k++) {
            u64 index;
            if (!read_full(in_fd, &index, sizeof index) || index >= (u64)p->st->total)
                _exit(3);
            pool_result r = {0};
            p->fn(p->ctx, item_at(p, (iz)index), &r);
            if (r.state != POOL_DONE && r.state != POOL_ERROR) {
                r.state = POOL_ERROR;
                set_msg(&r, "the work function left the item uncounted");
            }
            u16 ml = (u16)strnlen(r.msg, sizeof r.msg - 1);
            buf_put(&out, &index, sizeof index);
            buf_put(&out, &r.state, 1);
            buf_put(&out, &r.fallback, 1);
            buf_put(&out, &r.n, sizeof r.n);
            buf_put(&out, &ml, sizeof ml);
            buf_put(&out, r.msg, ml);
            /* results go back as they are made, a chunk's worth at most */
            if (out.len >= (1 << 16)) {
                if (out.failed || !write_full(out_fd, out.data, (size_t)out.len))
                    _exit(5);
                out.len = 0;
            }
        }
        if (out.len && (out.failed || !write_full(out_fd, out.data, (size_t)out.len)))
            _exit(5);
    }
}

/* ---- the parent side ------------------------------------------------------ */

static int start_worker(pool *p, int slot, err *e)
{
    int down[2], up[2];
    /* close-on-exec: a program the caller runs meanwhile must not hold a
     * worker's input open (the worker would never see its end) */
    if (pipe2(down, O_CLOEXEC) != 0)
        return err_set(e, ERR_IO, -1, "pipe: %s", strerror(errno));
    if (pipe2(up, O_CLOEXEC) != 0) {
        close(down[0]);
        close(down[1]);
        return err_set(e, ERR_IO, -1, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(down[0]); close(down[1]); close(up[0]); close(up[1]);
        return err_set(e, ERR_IO, -1, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* no sibling's pipe ends may stay open here, or a sibling would
         * never see the end of its input */
        for (int k = 0; k < p->nw; k++)
            if (p->w[k].alive) {
                close(p->w[k].to_fd);
                close(p->w[k].from_fd);
            }
        close(down[1]);
        close(up[0]);
        worker_main(p, down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    fcntl(down[1], F_SETFL, fcntl(down[1], F_GETFL) | O_NONBLOCK);
    fcntl(up[0], F_SETFL, fcntl(up[0], F_GETFL) | O_NONBLOCK);
    worker *w = &p->w[slot];
    w->pid = pid;
    w->to_fd = down[1];
    w->from_fd = up[0];
    w->out.len = 0;
    w->out_off = 0;
    w->in.len = 0;
    w->nflight = 0;
    w->alive = true;
    return ERR_OK;
}

static bool queue_push(pool *p, iz c, bool front)
{
    if (p->qlen == p->qcap) {
        iz ncap = p->qcap ? p->qcap * 2 : 64;
        iz *q = malloc(sizeof *q * (size_t)ncap);
        if (!q)
            return false;
        for (iz k = 0; k < p->qlen; k++)
            q[k] = p->queue[(p->qhead + k) % p->qcap];
        free(p->queue);
        p->queue = q;
        p->qhead = 0;
        p->qcap = ncap;
    }
    if (front) {
        p->qhead = (p->qhead + p->qcap - 1) % p->qcap;
        p->queue[p->qhead] = c;
    } else {
        p->queue[(p->qhead + p->qlen) % p->qcap] = c;
    }
    p->qlen++;
    return true;
}

static iz queue_pop(pool *p)
{
    iz c = p->queue[p->qhead];
    p->qhead = (p->qhead + 1) % p->qcap;
    p->qlen--;
    return c;
}

static bool add_chunk(pool *p, iz first, iz n, bool retry)
{
    if (!grow((void **)&p->chunks, &p->cchunks, p->nchunks + 1, (iz)sizeof(chunk)))
        return false;
    p->chunks[p->nchunks] = (chunk){first, n, retry};
    if (!queue_push(p, p->nchunks, retry))
        return false;
    p->nchunks++;
    p->st->chunks++;
    return true;
}

static void encode_chunk(pool *p, worker *w, const chunk *c)
{
    /* drop what was written already, so the buffer holds at most the
     * unwritten rest of one chunk plus this one */
    if (w->out_off > 0) {
        memmove(w->out.data, w->out.data + w->out_off, (size_t)(w->out.len - w->out_off));
        w->out.len -= w->out_off;
        w->out_off = 0;
    }
    u32 count = (u32)c->n;
    buf_put(&w->out, &count, sizeof count);
    for (iz k = 0; k < c->n; k++) {
        u64 index = (u64)p->order[c->first + k];
        buf_put(&w->out, &index, sizeof index);
    }
}

/* Parses complete result records from w->in. */
static void parse_results(pool *p, worker *w)
{
    iz off = 0;
    const iz head = 8 + 1 + 1 + 8 + 2;
    while (w->in.len - off >= head) {
        const u8 *q = w->in.data + off;
        u16 ml;
        memcpy(&ml, q + 18, 2);
        if (w->in.len - off < head + ml)
            break;
        u64 index;
        pool_result r = {0};
        memcpy(&index, q, 8);
        r.state = q[8];
        r.fallback = q[9];
        memcpy(&r.n, q + 10, 8);
        memcpy(r.msg, q + head, ml < POOL_MSG_MAX ? ml : POOL_MSG_MAX - 1);
        if (index < (u64)(p->st->total))
            record(p, (iz)index, &r);   /* ignores an index outside the window */
        off += head + ml;
    }
    if (off) {
        memmove(w->in.data, w->in.data + off, (size_t)(w->in.len - off));
        w->in.len -= off;
    }
    /* retire the chunks whose items are all recorded */
    while (w->nflight) {
        const chunk *c = &p->chunks[w->flight[0]];
        bool all = true;
        for (iz k = 0; k < c->n && all; k++)
            all = res_at(p, p->order[c->first + k])->state != POOL_PENDING;
        if (!all)
            break;
        memmove(w->flight, w->flight + 1, sizeof w->flight[0] * (size_t)(w->nflight - 1));
        w->nflight--;
    }
}

static void close_worker(worker *w)
{
    if (w->to_fd >= 0)
        close(w->to_fd);
    if (w->from_fd >= 0)
        close(w->from_fd);
    w->to_fd = w->from_fd = -1;
    w->alive = false;
}

/* A worker is gone: its unfinished items are retried one at a time, or
 * become errors when they were a retry already. */
static bool worker_died(pool *p, worker *w)
{
    int status = 0;
    close_worker(w);
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    p->st->worker_deaths++;
    for (int f = 0; f < w->nflight; f++) {
        const chunk c = p->chunks[w->flight[f]];
        for (iz k = 0; k < c.n; k++) {
            iz idx = p->order[c.first + k];
            if (res_at(p, idx)->state != POOL_PENDING)
                continue;
            if (c.retry) {
                pool_result r = {.state = POOL_ERROR};
                if (WIFSIGNALED(status))
                    set_msg(&r, "worker died on this item: signal %d", WTERMSIG(status));
                else
                    set_msg(&r, "worker died on this item: exit status %d", WEXITSTATUS(status));
                record(p, idx, &r);
            } else {
                if (!grow((void **)&p->order, &p->corder, p->norder + 1, (iz)sizeof(iz)))
                    return false;
                p->order[p->norder] = idx;
                if (!add_chunk(p, p->norder, 1, true))
                    return false;
                p->norder++;
                p->st->retried++;
            }
        }
    }
    w->nflight = 0;
    return true;
}

static void stop_all(pool *p)
{
    for (int k = 0; k < p->nw; k++) {
        worker *w = &p->w[k];
        if (!w->alive)
            continue;
        close_worker(w);
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
}

static void finish_workers(pool *p)
{
    /* closing a worker's input ends it; wait for each */
    for (int k = 0; k < p->nw; k++) {
        worker *w = &p->w[k];
        if (!w->alive)
            continue;
        close_worker(w);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
}

/* Builds the chunks: HEAVY items by count, TEXT items by bytes, SMALL
 * items counted here at once. */
static bool plan(pool *p)
{
    p->norder = p->nchunks = 0;
    p->qhead = p->qlen = 0;
    if (!grow((void **)&p->order, &p->corder, p->wn + 1, (iz)sizeof(iz)))
        return false;
    iz per = p->o->chunk_items > 0 ? p->o->chunk_items : POOL_CHUNK_ITEMS;
    iz bytes = p->o->chunk_bytes > 0 ? p->o->chunk_bytes : POOL_CHUNK_BYTES;
    /* two passes, one per chunked kind, so each chunk is one kind; a
     * chunk's items are in input order, and results go by index anyway */
    for (int kind = POOL_KIND_TEXT; kind <= POOL_KIND_HEAVY; kind++) {
        iz first = p->norder, cnt = 0, b = 0;
        for (iz i = p->base; i < p->base + p->wn; i++) {
            if (res_at(p, i)->state != POOL_PENDING)
                continue;
            const pool_item *it = item_at(p, i);
            int k = it->kind == POOL_KIND_SMALL ? POOL_KIND_SMALL
                  : it->kind == POOL_KIND_TEXT  ? POOL_KIND_TEXT : POOL_KIND_HEAVY;
            if (k != kind)
                continue;
            p->order[p->norder++] = i;
            cnt++;
            b += it->payload.len;
            if ((kind == POOL_KIND_HEAVY && cnt == per) ||
                (kind == POOL_KIND_TEXT && (b >= bytes || cnt == 4096))) {
                if (!add_chunk(p, first, cnt, false))
                    return false;
                first = p->norder;
                cnt = b = 0;
            }
        }
        if (cnt && !add_chunk(p, first, cnt, false))
            return false;
    }
    return true;
}

static int run_in_process(pool *p)
{
    for (iz i = p->base; i < p->base + p->wn; i++) {
        if (res_at(p, i)->state != POOL_PENDING)
            continue;
        if (expired(p))
            break;
        pool_result r = {0};
        p->fn(p->ctx, item_at(p, i), &r);
        if (r.state != POOL_DONE && r.state != POOL_ERROR) {
            r.state = POOL_ERROR;
            set_msg(&r, "the work function left the item uncounted");
        }
        record(p, i, &r);
        maybe_progress(p);
    }
    return ERR_OK;
}

/* Reads what a worker has sent (non-blocking); *gone when its end of the
 * pipe is closed. False when out of memory. */
static bool read_results(worker *w, bool *gone)
{
    for (;;) {
        if (!buf_reserve(&w->in, 1 << 16))
            return false;
        ssize_t k = read(w->from_fd, w->in.data + w->in.len, (size_t)(w->in.cap - w->in.len));
        if (k > 0) {
            w->in.len += k;
            continue;
        }
        if (k == 0 || (errno != EAGAIN && errno != EINTR))
            *gone = true;
        return true;
    }
}

/* Counts the window's chunks on the workers, starting them the first time
 * (they stay for the next windows; finish_workers ends them). */
static int run_workers(pool *p, err *e)
{
    int want = p->o->workers;
    if (want > MAX_WORKERS)
        want = MAX_WORKERS;
    if (p->o->window <= 0 && (iz)want > p->nchunks)
        want = (int)(p->nchunks > 0 ? p->nchunks : 0);   /* no more workers than chunks */
    int in_flight = p->o->in_flight > 0 ? MIN(p->o->in_flight, MAX_IN_FLIGHT) : 2;
    if (p->nw == 0 && p->nchunks > 0) {
        for (int k = 0; k < want; k++) {
            if (start_worker(p, k, e) != ERR_OK) {
                if (k == 0)
                    return e ? e->code : ERR_IO;
                break;   /* run with the workers we have */
            }
            p->nw = k + 1;
        }
        p->st->workers = p->nw;
    }
    struct pollfd pfd[2 * MAX_WORKERS];
    int who[2 * MAX_WORKERS];
    for (;;) {
        if (expired(p)) {
            stop_all(p);
            return ERR_OK;
        }
        /* a dead slot gets a new worker while work remains (before the
         * deal, so the new worker gets chunks at once) */
        for (int k = 0; k < p->nw; k++)
            if (!p->w[k].alive && p->qlen) {
                if (start_worker(p, k, e) != ERR_OK) {
                    stop_all(p);
                    return e ? e->code : ERR_IO;
                }
            }
        /* deal chunks to workers with room */
        bool busy = false;
        for (int k = 0; k < p->nw; k++) {
            worker *w = &p->w[k];
            if (!w->alive)
                continue;
            while (p->qlen && w->nflight < in_flight) {
                iz c = queue_pop(p);
                /* a retry goes alone to a worker, so that a death names it */
                if (p->chunks[c].retry && w->nflight > 0) {
                    queue_push(p, c, true);
                    break;
                }
                w->flight[w->nflight++] = c;
                encode_chunk(p, w, &p->chunks[c]);
                if (w->out.failed) {
                    stop_all(p);
                    return err_set(e, ERR_NOMEM, -1, "out of memory queueing a chunk");
                }
                if (p->chunks[c].retry)
                    break;
            }
            if (w->nflight)
                busy = true;
        }
        if (!busy && p->qlen == 0)
            break;
        int np = 0;
        for (int k = 0; k < p->nw; k++) {
            worker *w = &p->w[k];
            if (!w->alive)
                continue;
            pfd[np] = (struct pollfd){.fd = w->from_fd, .events = POLLIN};
            who[np++] = k;
            if (w->out.len > w->out_off) {
                pfd[np] = (struct pollfd){.fd = w->to_fd, .events = POLLOUT};
                who[np++] = k;
            }
        }
        if (np == 0)
            continue;
        int wait_ms = 1000;
        if (p->deadline > 0) {
            double left = p->deadline - os_now();
            wait_ms = left <= 0 ? 0 : (int)MIN(1000.0, left * 1000 + 1);
        }
        int rc = poll(pfd, (nfds_t)np, wait_ms);
        if (rc < 0 && errno != EINTR) {
            stop_all(p);
            return err_set(e, ERR_IO, -1, "poll: %s", strerror(errno));
        }
        for (int q = 0; q < np && rc > 0; q++) {
            if (!pfd[q].revents)
                continue;
            worker *w = &p->w[who[q]];
            if (!w->alive)
                continue;
            bool gone = false;
            if (pfd[q].fd == w->to_fd) {
                ssize_t k = write(w->to_fd, w->out.data + w->out_off, (size_t)(w->out.len - w->out_off));
                if (k > 0) {
                    w->out_off += k;
                    if (w->out_off == w->out.len)
                        w->out.len = w->out_off = 0;
                    continue;
                }
                if (k == 0 || errno == EAGAIN || errno == EINTR)
                    continue;
                gone = true;   /* its input is closed: take what it sent before it went */
            }
            /* readable or hung up */
            if (!read_results(w, &gone)) {
                stop_all(p);
                return err_set(e, ERR_NOMEM, -1, "out of memory reading results");
            }
            parse_results(p, w);
            if (gone && !worker_died(p, w)) {
                stop_all(p);
                return err_set(e, ERR_NOMEM, -1, "out of memory");
            }
        }
        maybe_progress(p);
    }
    return ERR_OK;
}

/* Counts the window [base, base + wn): SMALL items here, the rest on the
 * workers (or here). */
static int run_window(pool *p, err *e)
{
    /* SMALL items are counted here, first (they cost nothing) */
    for (iz i = p->base; i < p->base + p->wn; i++) {
        const pool_item *it = item_at(p, i);
        if (res_at(p, i)->state != POOL_PENDING || it->kind != POOL_KIND_SMALL)
            continue;
        pool_result r = {0};
        p->fn(p->ctx, it, &r);
        if (r.state != POOL_DONE && r.state != POOL_ERROR) {
            r.state = POOL_ERROR;
            set_msg(&r, "the work function left the item uncounted");
        }
        record(p, i, &r);
    }
    if (p->o->workers <= 0)
        return run_in_process(p);
    if (!plan(p))
        return err_set(e, ERR_NOMEM, -1, "out of memory planning chunks");
    return run_workers(p, e);
}

int pool_run(const pool_item *items, iz n, pool_result *results, pool_work_fn fn, void *ctx,
             const pool_opts *o, pool_stats *st, err *e)
{
    static const pool_opts defaults = {0};
    pool_stats local = {0};
    if (!o)
        o = &defaults;
    if (!st)
        st = &local;
    *st = (pool_stats){0};
    pool *p = calloc(1, sizeof *p);
    if (!p) {
        /* every item stays pending, and with windows each is still reported */
        st->total = st->pending = n;
        for (iz first = 0; o->window > 0 && o->on_window && first < n; first += o->window) {
            iz wn = MIN(o->window, n - first);
            for (iz k = 0; k < wn; k++)
                results[k] = (pool_result){0};
            o->on_window(o->window_ctx, first, wn, results);
        }
        return err_set(e, ERR_NOMEM, -1, "out of memory");
    }
    p->items = items;
    p->stride = o->item_size > 0 ? o->item_size : (iz)sizeof(pool_item);
    p->res = results;
    p->fn = fn;
    p->ctx = ctx;
    p->o = o;
    p->st = st;
    p->parent = getpid();
    p->start = os_now();
    p->deadline = o->timeout_s > 0 ? p->start + o->timeout_s : 0;
    p->next_progress = p->start + o->progress_s;
    st->total = n;
    iz window = o->window > 0 ? o->window : n;
    if (o->window > 0)
        st->pending = n;   /* each window's results are reset below */
    else
        for (iz i = 0; i < n; i++)
            if (results[i].state == POOL_PENDING)
                st->pending++;

    int rc = ERR_OK;
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe;
    sigemptyset(&ign.sa_mask);
    /* a write to a dead worker must be an error, not the end of us */
    if (o->workers > 0)
        sigaction(SIGPIPE, &ign, &old_pipe);
    for (iz first = 0; first < n || (n == 0 && first == 0); first += window) {
        p->base = first;
        p->wn = MIN(window, n - first);
        if (o->window > 0)
            for (iz k = 0; k < p->wn; k++)
                results[k] = (pool_result){0};
        if (!expired(p)) {
            if (rc == ERR_OK) {
                rc = run_window(p, e);
                if (rc != ERR_OK) {
                    /* the workers could not be started or replaced: the
                     * rest is counted here, this window first, so results
                     * still come in order */
                    stop_all(p);
                    run_in_process(p);
                }
            } else {
                run_in_process(p);   /* SMALL items included */
            }
        }
        if (o->window > 0 && o->on_window)
            o->on_window(o->window_ctx, first, p->wn, results);
        if (n == 0)
            break;
    }
    if (rc == ERR_OK)
        finish_workers(p);
    if (o->workers > 0)
        sigaction(SIGPIPE, &old_pipe, NULL);
    progress(p, true);
    for (int k = 0; k < p->nw; k++) {
        buf_free(&p->w[k].out);
        buf_free(&p->w[k].in);
    }
    free(p->order);
    free(p->chunks);
    free(p->queue);
    free(p);
    return rc;
}

int pool_cpus(void)
{
    int n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    /* a cgroup v2 CPU quota ("max" or "QUOTA PERIOD") lowers it */
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        char q[32];
        long long period = 0;
        if (fscanf(f, "%31s %lld", q, &period) == 2 && strcmp(q, "max") != 0 && period > 0) {
            long long quota = atoll(q);
            int lim = (int)((quota + period - 1) / period);
            if (lim > 0 && lim < n)
                n = lim;
        }
        fclose(f);
    }
    return n > 0 ? n : 1;
}
