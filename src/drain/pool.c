/* pool.c - the drain's process pool (pool.h): workers forked once, items
 * copied into a ring shared with them, chunks dealt over socket pairs to
 * the first worker with room (work-conserving), results read back as they
 * come and delivered in submission order, dead workers replaced and their
 * items retried one at a time.
 *
 * Wire format (native byte order; both ends are the same binary):
 *   parent -> worker, one chunk:  u32 count, f64 deadline, then per item
 *                                 u64 seq, u8 kind, u8 inline, u8 op, u64 off,
 *                                 u64 len (and, inline, len bytes)
 *   worker -> parent, per item:   u64 seq, u8 state, u8 kind, u8 op, u8 flags, i64 n,
 *                                 u16 cls, msg and label lengths, their bytes
 * An item's payload lies in the ring at `off` (a ring offset) unless it is
 * inline. The parent writes the ring before it sends the descriptor, and
 * reuses those bytes only after the item is delivered, which needs its
 * result (or the workers killed): a worker never reads bytes being changed.
 * The parent never blocks on a socket: its ends are non-blocking and
 * polled, so a worker busy writing results can never deadlock with a
 * parent busy writing a chunk. */
#define _GNU_SOURCE
#include "pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/os.h"

#define POOL_PUMP_S 0.0005

enum { MAX_IN_FLIGHT = 8, TEXT_CHUNK_MAX_ITEMS = 4096, RESULT_HEAD = 8 + 1 + 1 + 1 + 1 + 8 + 2 + 2 + 2,
       ITEM_HEAD = 8 + 1 + 1 + 1 + 8 + 8, CHUNK_HEAD = 4 + 8 };

typedef struct chunk chunk;

/* An item submitted and not yet delivered. */
typedef struct slot {
    u64    tag;
    u64    vpos;          /* the ring position of its payload (see ring_alloc) */
    iz     len;
    u8    *copy;          /* an inline item's bytes (ours), else NULL */
    const u8 *borrowed;   /* the caller's bytes, while pool_submit runs (in-process) */
    const u8 *shared;     /* the caller's bytes, at the same address in the workers */
    chunk *ch;            /* the chunk that holds it now, while it waits */
    u8     kind, op;
    bool   have;          /* its result is in */
    bool   retried;       /* it is (or was) in a one-item retry chunk */
    u8     state, rkind, rop, flags;
    i64    n;
    char  *text;          /* "cls\0msg\0label\0" when any is non-empty (malloc) */
} slot;

struct chunk {
    chunk *next;          /* in the ready list */
    iz     n, left;       /* items, and items without a result */
    iz     bytes;
    bool   retry;
    u64    seq[];
};

typedef struct worker {
    pid_t  pid;
    int    fd;            /* the parent's end of the socket pair */
    buf    out;           /* bytes not yet sent */
    iz     out_off;
    buf    in;            /* bytes received, not yet parsed */
    chunk *flight[MAX_IN_FLIGHT];   /* oldest first */
    int    nflight;
    bool   alive;
} worker;

struct pool {
    pool_opts o;
    int    in_flight;
    iz     chunk_items, chunk_bytes;
    /* the ring: positions grow without bound; byte vpos is ring[vpos % cap] */
    u8    *ring;
    iz     ring_cap;
    u64    head_v, tail_v;
    /* the window of slots: seq s is slots[s & mask] */
    slot  *slots;
    u64    mask;
    u64    seq_base, seq_next;   /* undelivered items are [seq_base, seq_next) */
    chunk *open[3];              /* being filled, by kind (TEXT, HEAVY) */
    chunk *ready, *ready_tail;   /* waiting for a worker, a FIFO */
    worker w[POOL_MAX_WORKERS];
    int    nw;
    bool   in_process;           /* count here (no workers, or they failed) */
    bool   expired, stopped;
    double deadline;
    double last_step;            /* os_now() of pool_submit's last look at the sockets */
    pool_stats st;
    pid_t  parent;
    pool_result r;               /* scratch for a result being made or delivered */
};

/* ---- small helpers -------------------------------------------------------- */

void pool_result_clear(pool_result *r)
{
    r->state = POOL_PENDING;
    r->kind = r->op = r->flags = 0;
    r->n = 0;
    r->cls[0] = r->msg[0] = r->label[0] = 0;
}

static void set_msg(pool_result *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void set_msg(pool_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
}

static inline slot *slot_of(pool *p, u64 seq) { return &p->slots[seq & p->mask]; }

static bool past_deadline(const pool *p)
{
    return p->deadline > 0 && os_now() >= p->deadline;
}

/* A result from the work function as the pool keeps it: a PENDING result
 * is one only when the deadline has passed. */
static void sanitize(pool *p, pool_result *r)
{
    if (r->state > POOL_ERROR || (r->state == POOL_PENDING && !past_deadline(p))) {
        r->state = POOL_ERROR;
        set_msg(r, "the work function left the item uncounted");
    }
}

/* Stores result r (its strings of the given lengths) in slot s. */
static void slot_set(pool *p, slot *s, u8 state, u8 kind, u8 op, u8 flags, i64 n, const char *cls, iz cl,
                     const char *msg, iz ml, const char *label, iz ll)
{
    s->have = true;
    s->state = state;
    s->rkind = kind;
    s->rop = op;
    s->flags = flags;
    s->n = n;
    free(s->text);
    s->text = NULL;
    if (cl || ml || ll) {
        s->text = malloc((size_t)(cl + ml + ll + 3));
        if (s->text) {
            char *t = s->text;
            memcpy(t, cls, (size_t)cl);
            t[cl] = 0;
            memcpy(t + cl + 1, msg, (size_t)ml);
            t[cl + 1 + ml] = 0;
            memcpy(t + cl + ml + 2, label, (size_t)ll);
            t[cl + ml + 2 + ll] = 0;
        } else if (state == POOL_DONE && cl) {
            /* no memory for its texts: a fallback must not pass for a plain count */
            s->state = POOL_ERROR;
        }
    }
    if (s->ch)
        s->ch->left--;   /* a chunk with none left is retired by its worker */
    s->ch = NULL;
    (void)p;
}

static void slot_set_result(pool *p, slot *s, const pool_result *r)
{
    slot_set(p, s, r->state, r->kind, r->op, r->flags, r->n, r->cls, (iz)strnlen(r->cls, POOL_CLS_MAX - 1), r->msg,
             (iz)strnlen(r->msg, POOL_MSG_MAX - 1), r->label, (iz)strnlen(r->label, POOL_LABEL_MAX - 1));
}

static str slot_payload(const pool *p, const slot *s)
{
    if (s->borrowed)
        return str_from(s->borrowed, s->len);
    if (s->shared)
        return str_from(s->shared, s->len);
    if (s->copy || s->len == 0)
        return str_from(s->copy, s->len);
    return str_from(p->ring + (s->vpos % (u64)p->ring_cap), s->len);
}

/* ---- the ring ------------------------------------------------------------- */

/* Room for len bytes in one piece: a piece never wraps, so the end of the
 * ring is skipped when it is too short. Returns false when full. */
static bool ring_alloc(pool *p, iz len, u64 *vpos)
{
    u64 cap = (u64)p->ring_cap;
    u64 used = p->head_v - p->tail_v;
    u64 phys = p->head_v % cap;
    u64 skip = phys + (u64)len > cap ? cap - phys : 0;
    if (used + skip + (u64)len > cap)
        return false;
    p->head_v += skip;
    *vpos = p->head_v;
    p->head_v += (u64)len;
    return true;
}

/* After deliveries: the ring's tail is the oldest payload still held. */
static void ring_release(pool *p)
{
    for (u64 s = p->seq_base; s < p->seq_next; s++) {
        const slot *x = slot_of(p, s);
        if (!x->copy && x->len > 0) {
            p->tail_v = x->vpos;
            return;
        }
    }
    p->tail_v = p->head_v;
}

static bool goes_inline(const pool *p, iz len)
{
    return len > p->ring_cap / 4;
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

static void put_result(buf *out, u64 seq, const pool_result *r)
{
    u16 cl = (u16)strnlen(r->cls, POOL_CLS_MAX - 1);
    u16 ml = (u16)strnlen(r->msg, POOL_MSG_MAX - 1);
    u16 ll = (u16)strnlen(r->label, POOL_LABEL_MAX - 1);
    buf_put(out, &seq, 8);
    buf_put(out, &r->state, 1);
    buf_put(out, &r->kind, 1);
    buf_put(out, &r->op, 1);
    buf_put(out, &r->flags, 1);
    buf_put(out, &r->n, 8);
    buf_put(out, &cl, 2);
    buf_put(out, &ml, 2);
    buf_put(out, &ll, 2);
    buf_put(out, r->cls, cl);
    buf_put(out, r->msg, ml);
    buf_put(out, r->label, ll);
}

_Noreturn static void worker_main(pool *p, int fd)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != p->parent)
        _exit(0);   /* the parent died before prctl took effect */
    if (p->o.worker_init)
        p->o.worker_init(p->o.work_ctx);
    buf out = {0}, big = {0};
    pool_result *r = &p->r;
    for (;;) {
        u8 head[CHUNK_HEAD];
        if (!read_full(fd, head, sizeof head))
            _exit(0);   /* the parent closed our socket: done */
        u32 count;
        double deadline;
        memcpy(&count, head, 4);
        memcpy(&deadline, head + 4, 8);
        out.len = 0;
        for (u32 k = 0; k < count; k++) {
            u8 d[ITEM_HEAD];
            if (!read_full(fd, d, sizeof d))
                _exit(3);
            u64 seq, off, len;
            memcpy(&seq, d, 8);
            memcpy(&off, d + 11, 8);
            memcpy(&len, d + 19, 8);
            pool_item it = {.kind = d[8], .op = d[10]};
            if (d[9] == 2) {   /* in this process's copy of the caller's memory */
                it.payload = str_from((const u8 *)(uintptr_t)off, (iz)len);
            } else if (d[9]) {
                big.len = 0;
                if (!buf_reserve(&big, (iz)len + 1) || !read_full(fd, big.data, (size_t)len))
                    _exit(4);
                it.payload = str_from(big.data, (iz)len);
            } else {
                if (off + len > (u64)p->ring_cap)
                    _exit(3);
                it.payload = str_from(p->ring + off, (iz)len);
            }
            pool_result_clear(r);
            p->o.work(p->o.work_ctx, &it, deadline, r);
            put_result(&out, seq, r);
            /* results go back as they are made, 64 KiB at a time */
            if (out.len >= (1 << 16)) {
                if (out.failed || !write_full(fd, out.data, (size_t)out.len))
                    _exit(5);
                out.len = 0;
            }
        }
        if (out.len && (out.failed || !write_full(fd, out.data, (size_t)out.len)))
            _exit(5);
    }
}

/* ---- the parent side: workers --------------------------------------------- */

static int start_worker(pool *p, int slot_no, err *e)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return err_set(e, ERR_IO, -1, "socketpair: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return err_set(e, ERR_IO, -1, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* no sibling's socket may stay open here, or a sibling would never
         * see the end of its input */
        for (int k = 0; k < p->nw; k++)
            if (k != slot_no && p->w[k].alive)
                close(p->w[k].fd);
        close(sv[0]);
        worker_main(p, sv[1]);
    }
    close(sv[1]);
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    worker *w = &p->w[slot_no];
    w->pid = pid;
    w->fd = sv[0];
    w->out.len = 0;
    w->out_off = 0;
    w->in.len = 0;
    w->nflight = 0;
    w->alive = true;
    return ERR_OK;
}

static int workers_alive(const pool *p)
{
    int n = 0;
    for (int k = 0; k < p->nw; k++)
        n += p->w[k].alive;
    return n;
}

/* Kills and reaps worker w; returns its wait status. */
static int kill_worker(worker *w)
{
    int status = 0;
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    w->alive = false;
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    w->pid = 0;
    return status;
}

static void kill_all(pool *p)
{
    for (int k = 0; k < p->nw; k++)
        if (p->w[k].alive)
            kill_worker(&p->w[k]);
}

/* ---- chunks --------------------------------------------------------------- */

static chunk *chunk_new(iz cap, bool retry)
{
    chunk *c = malloc(sizeof *c + (size_t)cap * sizeof(u64));
    if (c)
        *c = (chunk){.retry = retry};
    return c;
}

static void ready_push(pool *p, chunk *c, bool front)
{
    c->next = NULL;
    if (!p->ready) {
        p->ready = p->ready_tail = c;
    } else if (front) {
        c->next = p->ready;
        p->ready = c;
    } else {
        p->ready_tail->next = c;
        p->ready_tail = c;
    }
    p->st.chunks++;
}

static chunk *ready_pop(pool *p)
{
    chunk *c = p->ready;
    if (c) {
        p->ready = c->next;
        if (!p->ready)
            p->ready_tail = NULL;
    }
    return c;
}

/* Sends the open chunks to the ready list. */
static void close_open(pool *p)
{
    for (int k = 0; k < 3; k++)
        if (p->open[k]) {
            ready_push(p, p->open[k], false);
            p->open[k] = NULL;
        }
}

static void free_chunks(pool *p)
{
    for (chunk *c = p->ready, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    p->ready = p->ready_tail = NULL;
    for (int k = 0; k < 3; k++) {
        free(p->open[k]);
        p->open[k] = NULL;
    }
    for (int k = 0; k < p->nw; k++) {
        worker *w = &p->w[k];
        for (int f = 0; f < w->nflight; f++)
            free(w->flight[f]);
        w->nflight = 0;
        w->out.len = w->out_off = 0;
        w->in.len = 0;
    }
}

/* Everything waiting goes to this process: no worker can take it. */
static void go_in_process(pool *p)
{
    kill_all(p);
    free_chunks(p);
    for (u64 s = p->seq_base; s < p->seq_next; s++)
        slot_of(p, s)->ch = NULL;
    p->in_process = true;
}

static bool encode_chunk(pool *p, worker *w, const chunk *c)
{
    if (w->out_off > 0) {   /* keep only the unsent rest */
        memmove(w->out.data, w->out.data + w->out_off, (size_t)(w->out.len - w->out_off));
        w->out.len -= w->out_off;
        w->out_off = 0;
    }
    u32 count = (u32)c->n;
    buf_put(&w->out, &count, 4);
    buf_put(&w->out, &p->deadline, 8);
    for (iz k = 0; k < c->n; k++) {
        const slot *s = slot_of(p, c->seq[k]);
        u8 d[ITEM_HEAD];
        u64 off = s->copy ? 0 : s->shared ? (u64)(uintptr_t)s->shared : s->vpos % (u64)p->ring_cap;
        u64 len = (u64)s->len;
        memcpy(d, &c->seq[k], 8);
        d[8] = s->kind;
        d[9] = s->shared ? 2 : s->copy != NULL;
        d[10] = s->op;
        memcpy(d + 11, &off, 8);
        memcpy(d + 19, &len, 8);
        buf_put(&w->out, d, sizeof d);
        if (s->copy)
            buf_put(&w->out, s->copy, s->len);
    }
    return !w->out.failed;
}

/* Drops the chunks at the front of w's flight that have every result. */
static void retire(worker *w)
{
    while (w->nflight && w->flight[0]->left == 0) {
        free(w->flight[0]);
        memmove(w->flight, w->flight + 1, sizeof w->flight[0] * (size_t)(w->nflight - 1));
        w->nflight--;
    }
}

/* Parses the complete result records in w->in. */
static void parse_results(pool *p, worker *w)
{
    iz off = 0;
    while (w->in.len - off >= RESULT_HEAD) {
        const u8 *q = w->in.data + off;
        u16 cl, ml, ll;
        memcpy(&cl, q + 20, 2);
        memcpy(&ml, q + 22, 2);
        memcpy(&ll, q + 24, 2);
        iz rec = RESULT_HEAD + cl + ml + ll;
        if (w->in.len - off < rec)
            break;
        u64 seq;
        i64 n;
        memcpy(&seq, q, 8);
        memcpy(&n, q + 12, 8);
        if (seq >= p->seq_base && seq < p->seq_next) {
            slot *s = slot_of(p, seq);
            if (!s->have) {
                u8 state = q[8];
                if (state > POOL_ERROR || (state == POOL_PENDING && !past_deadline(p))) {
                    pool_result *r = &p->r;
                    pool_result_clear(r);
                    r->state = state;
                    sanitize(p, r);
                    slot_set_result(p, s, r);
                } else {
                    const char *t = (const char *)q + RESULT_HEAD;
                    slot_set(p, s, state, q[9], q[10], q[11], n, t, cl, t + cl, ml, t + cl + ml, ll);
                }
            }
        }
        off += rec;
    }
    if (off) {
        memmove(w->in.data, w->in.data + off, (size_t)(w->in.len - off));
        w->in.len -= off;
    }
    retire(w);
}

/* A worker is gone: the items it held without a result are retried one at
 * a time, or become errors when they were a retry already. */
static bool worker_died(pool *p, worker *w)
{
    int status = kill_worker(w);
    p->st.worker_deaths++;
    bool ok = true;
    for (int f = 0; f < w->nflight; f++) {
        chunk *c = w->flight[f];
        for (iz k = 0; k < c->n; k++) {
            slot *s = slot_of(p, c->seq[k]);
            if (c->seq[k] < p->seq_base || s->have)
                continue;
            s->ch = NULL;
            if (s->retried) {
                pool_result *r = &p->r;
                pool_result_clear(r);
                r->state = POOL_ERROR;
                if (WIFSIGNALED(status))
                    set_msg(r, "worker died on this item: signal %d", WTERMSIG(status));
                else
                    set_msg(r, "worker died on this item: exit status %d", WEXITSTATUS(status));
                slot_set_result(p, s, r);
                continue;
            }
            chunk *one = chunk_new(1, true);
            if (!one) {
                ok = false;
                continue;
            }
            one->seq[0] = c->seq[k];
            one->n = one->left = 1;
            one->bytes = s->len;
            s->ch = one;
            s->retried = true;
            ready_push(p, one, true);
            p->st.retried++;
        }
        free(c);
    }
    w->nflight = 0;
    w->out.len = w->out_off = 0;
    w->in.len = 0;
    return ok;
}

/* Reads what a worker has sent (non-blocking); *gone when its end is
 * closed. False when out of memory. */
static bool read_results(worker *w, bool *gone)
{
    for (;;) {
        if (!buf_reserve(&w->in, 1 << 16))
            return false;
        ssize_t k = recv(w->fd, w->in.data + w->in.len, (size_t)(w->in.cap - w->in.len), MSG_DONTWAIT);
        if (k > 0) {
            w->in.len += k;
            continue;
        }
        if (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            *gone = true;
        return true;
    }
}

/* Gives chunks to the workers with room, replacing dead workers while work
 * remains. False when no worker can be had any more. */
static bool deal(pool *p)
{
    if (p->ready)
        for (int k = 0; k < p->nw; k++)
            if (!p->w[k].alive) {
                err e;
                start_worker(p, k, &e);   /* a failure leaves the slot dead */
            }
    if (workers_alive(p) == 0)
        return p->ready == NULL;
    for (int k = 0; k < p->nw && p->ready; k++) {
        worker *w = &p->w[k];
        if (!w->alive)
            continue;
        while (p->ready && w->nflight < p->in_flight) {
            /* a retry goes alone to a worker, so that a death names it */
            if (p->ready->retry && w->nflight > 0)
                break;
            chunk *c = ready_pop(p);
            w->flight[w->nflight++] = c;
            if (!encode_chunk(p, w, c))
                return false;
            if (c->retry)
                break;
        }
    }
    return true;
}

/* One round: deal, send, receive, wait at most wait_ms (or until `extra`,
 * when not -1, is readable: then *extra_ready). False when the workers can
 * no longer be used (the caller goes in-process). */
static bool step_fd(pool *p, int wait_ms, int extra, bool *extra_ready)
{
    if (!deal(p))
        return false;
    struct pollfd pfd[POOL_MAX_WORKERS + 1];
    int who[POOL_MAX_WORKERS + 1], np = 0;
    for (int k = 0; k < p->nw; k++) {
        worker *w = &p->w[k];
        if (!w->alive)
            continue;
        short ev = POLLIN;
        if (w->out.len > w->out_off)
            ev |= POLLOUT;
        pfd[np] = (struct pollfd){.fd = w->fd, .events = ev};
        who[np++] = k;
    }
    if (np == 0)
        return true;
    if (extra >= 0) {
        pfd[np] = (struct pollfd){.fd = extra, .events = POLLIN};
        who[np++] = -1;
    }
    if (p->deadline > 0 && wait_ms > 0) {
        double left = p->deadline - os_now();
        wait_ms = left <= 0 ? 0 : (int)MIN((double)wait_ms, left * 1000 + 1);
    }
    int rc = poll(pfd, (nfds_t)np, wait_ms);
    if (rc < 0)
        return true;   /* EINTR: the caller looks at its stop flag */
    for (int q = 0; q < np && rc > 0; q++) {
        if (!pfd[q].revents)
            continue;
        if (who[q] < 0) {
            *extra_ready = true;
            continue;
        }
        worker *w = &p->w[who[q]];
        bool gone = false;
        if ((pfd[q].revents & POLLOUT) && w->out.len > w->out_off) {
            ssize_t k = send(w->fd, w->out.data + w->out_off, (size_t)(w->out.len - w->out_off),
                             MSG_DONTWAIT | MSG_NOSIGNAL);
            if (k > 0) {
                w->out_off += k;
                if (w->out_off == w->out.len)
                    w->out.len = w->out_off = 0;
            } else if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                gone = true;   /* take what it sent before it went */
            }
        }
        if (pfd[q].revents & (POLLIN | POLLHUP | POLLERR) || gone) {
            if (!read_results(w, &gone))
                return false;
            parse_results(p, w);
        }
        if (gone && !worker_died(p, w))
            return false;
    }
    return true;
}

static bool step(pool *p, int wait_ms)
{
    return step_fd(p, wait_ms, -1, NULL);
}

/* ---- delivery ------------------------------------------------------------- */

/* Counts slot s here (in-process mode, SMALL items). */
static void count_here(pool *p, slot *s)
{
    pool_result *r = &p->r;
    pool_result_clear(r);
    if (past_deadline(p)) {
        slot_set_result(p, s, r);   /* PENDING */
        return;
    }
    pool_item it = {slot_payload(p, s), s->kind, s->op};
    p->o.work(p->o.work_ctx, &it, p->deadline, r);
    sanitize(p, r);
    slot_set_result(p, s, r);
}

/* Delivers the results at the front, in order. */
static void deliver(pool *p)
{
    bool moved = false;
    while (p->seq_base < p->seq_next && !p->stopped && !(p->o.stop && *p->o.stop)) {
        slot *s = slot_of(p, p->seq_base);
        if (!s->have) {
            if (p->in_process)
                count_here(p, s);
            else if (!p->expired)
                break;
        }
        pool_result *r = &p->r;
        r->state = s->have ? s->state : POOL_PENDING;
        r->kind = s->have ? s->rkind : 0;
        r->op = s->have ? s->rop : 0;
        r->flags = s->have ? s->flags : 0;
        r->n = s->have ? s->n : 0;
        r->cls[0] = r->msg[0] = r->label[0] = 0;
        if (s->text) {
            const char *t = s->text;
            iz cl = (iz)strlen(t), ml = (iz)strlen(t + cl + 1);
            snprintf(r->cls, sizeof r->cls, "%s", t);
            snprintf(r->msg, sizeof r->msg, "%s", t + cl + 1);
            snprintf(r->label, sizeof r->label, "%s", t + cl + ml + 2);
        }
        switch (r->state) {
        case POOL_DONE:    p->st.done++; p->st.classed += r->cls[0] != 0; break;
        case POOL_SKIPPED: p->st.skipped++; break;
        case POOL_ERROR:   p->st.errors++; break;
        default:           p->st.pending++; break;
        }
        pool_item it = {slot_payload(p, s), s->kind, s->op};
        if (p->o.deliver)
            p->o.deliver(p->o.deliver_ctx, s->tag, &it, r);
        free(s->text);
        free(s->copy);
        *s = (slot){0};
        p->seq_base++;
        p->st.delivered++;
        moved = true;
        if (p->in_process && p->o.tick)
            p->o.tick(p->o.tick_ctx);
    }
    if (moved)
        ring_release(p);
}

/* Checks the stop flag and the deadline; true when the pool may go on. */
static bool check(pool *p)
{
    if (p->stopped)
        return false;
    if (p->o.stop && *p->o.stop) {
        kill_all(p);
        free_chunks(p);
        p->stopped = true;
        return false;
    }
    if (!p->expired && past_deadline(p)) {
        kill_all(p);
        free_chunks(p);
        for (u64 s = p->seq_base; s < p->seq_next; s++)
            slot_of(p, s)->ch = NULL;
        p->expired = true;
    }
    return true;
}

/* Runs rounds until done(p) holds: delivers as results come. */
static int wait_until(pool *p, bool (*done)(pool *, iz), iz arg)
{
    for (;;) {
        if (!check(p))
            return ERR_STOPPED;
        deliver(p);
        if (p->stopped)
            return ERR_STOPPED;
        if (done(p, arg))
            return ERR_OK;
        if (p->in_process || p->expired)
            continue;   /* deliver() counts or settles everything */
        if (!step(p, 250))
            go_in_process(p);
        if (p->o.tick)
            p->o.tick(p->o.tick_ctx);
    }
}

static bool all_delivered(pool *p, iz unused)
{
    (void)unused;
    return p->seq_base == p->seq_next;
}

/* Room for one more item of `len` bytes: a slot, and ring space unless it
 * goes inline. */
static bool has_room(pool *p, iz len)
{
    if (p->seq_next - p->seq_base > p->mask)
        return false;
    if (len == 0 || goes_inline(p, len) || p->in_process || p->expired)
        return true;
    u64 save = p->head_v, v;
    bool ok = ring_alloc(p, len, &v);
    p->head_v = save;
    return ok;
}

/* ---- the API -------------------------------------------------------------- */

pool *pool_new(const pool_opts *o, err *e)
{
    pool *p = calloc(1, sizeof *p);
    if (!p) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    p->o = *o;
    p->in_flight = o->in_flight > 0 ? MIN(o->in_flight, MAX_IN_FLIGHT) : 2;
    p->chunk_items = o->chunk_items > 0 ? o->chunk_items : POOL_CHUNK_ITEMS;
    p->chunk_bytes = o->chunk_bytes > 0 ? o->chunk_bytes : POOL_CHUNK_BYTES;
    iz window = o->window > 0 ? o->window : POOL_WINDOW;
    u64 cap = 1;
    while (cap < (u64)window)
        cap *= 2;
    p->mask = cap - 1;
    p->slots = calloc((size_t)cap, sizeof *p->slots);
    p->parent = getpid();
    int want = MIN(MAX(o->workers, 0), POOL_MAX_WORKERS);
    p->in_process = want == 0;
    if (!p->slots) {
        free(p);
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    if (want > 0) {
        p->ring_cap = o->ring_bytes > 0 ? o->ring_bytes : POOL_RING_BYTES;
        p->ring = mmap(NULL, (size_t)p->ring_cap, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p->ring == MAP_FAILED) {
            err_set(e, ERR_NOMEM, -1, "cannot map %td bytes of memory shared with the workers: %s", p->ring_cap,
                    strerror(errno));
            free(p->slots);
            free(p);
            return NULL;
        }
        for (int k = 0; k < want; k++) {
            if (start_worker(p, k, e) != ERR_OK)
                break;   /* run with the workers we have */
            p->nw = k + 1;
        }
        if (p->nw == 0) {
            munmap(p->ring, (size_t)p->ring_cap);
            free(p->slots);
            free(p);
            return NULL;
        }
    }
    return p;
}

void pool_free(pool *p)
{
    if (!p)
        return;
    /* closing a worker's socket ends it; a worker still busy is killed */
    kill_all(p);
    free_chunks(p);
    for (u64 s = p->seq_base; s < p->seq_next; s++) {
        free(slot_of(p, s)->text);
        free(slot_of(p, s)->copy);
    }
    for (int k = 0; k < p->nw; k++) {
        buf_free(&p->w[k].out);
        buf_free(&p->w[k].in);
    }
    if (p->ring)
        munmap(p->ring, (size_t)p->ring_cap);
    free(p->slots);
    free(p);
}

static int submit(pool *p, const pool_item *it, u64 tag, bool shared)
{
    if (!check(p))
        return ERR_STOPPED;
    iz len = it->payload.len;
    if (!has_room(p, shared ? 0 : len)) {
        close_open(p);   /* the oldest item may sit in a chunk not sent yet */
        int rc = wait_until(p, has_room, len);
        if (rc != ERR_OK)
            return rc;
    }
    u64 seq = p->seq_next;
    slot *s = slot_of(p, seq);
    *s = (slot){.tag = tag, .len = len, .kind = it->kind, .op = it->op};
    if (shared && len > 0) {
        s->shared = it->payload.s;   /* nothing to copy: the workers see it */
    } else if (len > 0 && !p->in_process && !p->expired) {
        if (goes_inline(p, len)) {
            s->copy = malloc((size_t)len);
            if (!s->copy)
                return ERR_NOMEM;
            memcpy(s->copy, it->payload.s, (size_t)len);
            p->st.inline_items++;
        } else {
            if (!ring_alloc(p, len, &s->vpos))
                return ERR_NOMEM;   /* has_room said there is room: cannot happen */
            memcpy(p->ring + (s->vpos % (u64)p->ring_cap), it->payload.s, (size_t)len);
        }
    } else {
        /* counted (or given up) and delivered during this call: every
         * earlier item is delivered first, in order */
        s->borrowed = it->payload.s;
    }
    p->seq_next++;
    p->st.submitted++;
    if (p->expired) {
        deliver(p);
        return ERR_OK;
    }
    if (p->in_process || it->kind == POOL_KIND_SMALL) {
        count_here(p, s);
        deliver(p);
        return p->stopped ? ERR_STOPPED : ERR_OK;
    }
    int k = it->kind == POOL_KIND_TEXT ? POOL_KIND_TEXT : POOL_KIND_HEAVY;
    chunk *c = p->open[k];
    iz cap = k == POOL_KIND_TEXT ? TEXT_CHUNK_MAX_ITEMS : p->chunk_items;
    if (!c) {
        c = p->open[k] = chunk_new(cap, false);
        if (!c) {
            p->seq_next--;
            p->st.submitted--;
            free(s->copy);
            *s = (slot){0};
            return ERR_NOMEM;
        }
    }
    c->seq[c->n++] = seq;
    c->left++;
    c->bytes += len;
    s->ch = c;
    bool closed = c->n == cap || (k == POOL_KIND_TEXT && c->bytes >= p->chunk_bytes);
    if (closed) {
        ready_push(p, c, false);
        p->open[k] = NULL;
    }
    /* the sockets are looked at when a chunk is ready and otherwise at most
     * every POOL_PUMP_S (a poll per item would cost more than a small item);
     * results already in are delivered at every call */
    double now = closed ? 0 : os_now();
    if (closed || now - p->last_step >= POOL_PUMP_S) {
        p->last_step = closed ? os_now() : now;
        return pool_pump(p);
    }
    deliver(p);
    return p->stopped ? ERR_STOPPED : ERR_OK;
}

int pool_submit(pool *p, const pool_item *it, u64 tag)
{
    return submit(p, it, tag, false);
}

int pool_submit_shared(pool *p, const pool_item *it, u64 tag)
{
    return submit(p, it, tag, true);
}

int pool_pump(pool *p)
{
    if (!check(p))
        return ERR_STOPPED;
    if (!p->in_process && !p->expired && !step(p, 0))
        go_in_process(p);
    deliver(p);
    return p->stopped ? ERR_STOPPED : ERR_OK;
}

int pool_send_partial(pool *p, int fd)
{
    close_open(p);
    for (;;) {
        if (!check(p))
            return ERR_STOPPED;
        deliver(p);
        if (p->stopped)
            return ERR_STOPPED;
        if (fd < 0 || p->seq_base == p->seq_next || p->in_process || p->expired)
            return p->in_process || p->expired || fd < 0 ? pool_pump(p) : ERR_OK;
        bool ready = false;
        if (!step_fd(p, 250, fd, &ready))
            go_in_process(p);
        if (ready)
            return pool_pump(p);
        if (p->o.tick)
            p->o.tick(p->o.tick_ctx);
    }
}

int pool_flush(pool *p)
{
    close_open(p);
    return wait_until(p, all_delivered, 0);
}

void pool_set_deadline(pool *p, double deadline)
{
    p->deadline = deadline;
    if (p->expired && !past_deadline(p))
        p->expired = false;   /* deal() starts workers again for what comes */
}

void pool_stats_get(const pool *p, pool_stats *st)
{
    *st = p->st;
    st->workers = workers_alive(p);
    st->in_process = p->in_process;
}

int pool_cpus(void)
{
    return os_cpus();
}
