/* aggregate.c - `tally aggregate`'s job (io.h): upstream's aggregator
 * process. The startup sequence of its __main__.py, the ZeroMQ sockets
 * (libzmq), the loop that takes frames into the aggregator (agg/agg.h)
 * and publishes live snapshots, and the lifecycle INITIALIZE -> LIVE ->
 * DRAINING -> COMPLETE, or INTERRUPTED on SIGTERM. One thread: the drain
 * publishes its DRAINING snapshots from the aggregator's progress calls. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <zmq.h>

#include "../agg/agg.h"
#include "../base/arena.h"
#include "../base/os.h"
#include "io.h"
#include "msgpack_event.h"

enum {
    BURST_MAX = 4096,      /* frames taken before the socket is polled again */
    TICK_EVERY = 64,       /* records between two looks at the clock inside a burst */
    SAY_MALFORMED = 5,     /* bad frames told one by one; the rest are counted */
};

/* The logging cadence of the drain's progress, as upstream's (30 s). */
#define DRAIN_LOG_S 30.0

typedef struct aggr {
    const io_aggregate_opts *o;
    io_aggregate_stats *st;
    void *zctx, *sub, *pub;
    agg  *g;
    agg_state state;
    agg_snapshot *snap;
    buf   text, wire;
    io_mp_decoder dec;
    arena a;
    arena_mark base;
    double next_tick, next_drain_log;
    i64   said_malformed;
    bool  sigint_said;
} aggr;

static void say(aggr *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void say(aggr *r, const char *fmt, ...)
{
    if (!r->o->log)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->o->log(r->o->cb_ctx, msg);
}

/* ipc://DIR/NAME, refused as upstream refuses a path past the socket
 * address' limit (zmq.IPC_PATH_MAX_LEN). */
static int address(const char *dir, const char *name, char *out, size_t cap, err *e)
{
    char path[4200];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path || (size_t)n > sizeof(((struct sockaddr_un *)0)->sun_path) - 1)
        return err_set(e, ERR_INVALID, -1, "IPC socket path too long (%d > %zu): %s", n,
                       sizeof(((struct sockaddr_un *)0)->sun_path) - 1, path);
    snprintf(out, cap, "ipc://%s", path);
    return ERR_OK;
}

static int zerr(err *e, const char *what, const char *addr)
{
    return err_set(e, ERR_IO, -1, "%s %s: %s", what, addr, zmq_strerror(zmq_errno()));
}

static void set_int(void *s, int opt, int v)
{
    zmq_setsockopt(s, opt, &v, sizeof v);
}

/* ---- snapshots ------------------------------------------------------------ */

/* Publishes `snap` on the metrics socket (a frame a subscriber that is
 * too slow has no room for is dropped, as upstream's SNDHWM=4 drops it). */
static void publish(aggr *r, const agg_snapshot *snap)
{
    r->wire.len = 0;
    buf_put(&r->wire, io_snapshot_topic, IO_TOPIC_SIZE);
    io_mp_snapshot(snap, &r->wire);
    if (r->wire.failed) {
        say(r, "ERROR metrics snapshot: out of memory encoding it");
        r->wire = (buf){0};
        return;
    }
    if (zmq_send(r->pub, r->wire.data, (size_t)r->wire.len, ZMQ_DONTWAIT) < 0 && zmq_errno() != EAGAIN)
        say(r, "ERROR metrics snapshot: publish failed: %s", zmq_strerror(zmq_errno()));
}

/* The counts the live lane (or the drain) has made so far go into their
 * series, in enqueue order; what is left is upstream's pending. */
static iz pending_now(aggr *r)
{
    agg_record_ready(r->g);
    return agg_pending(r->g);
}

/* A live tick: the HDR snapshot in the current state (LIVE or DRAINING). */
static void tick(aggr *r)
{
    err e = {0};
    if (agg_registry_snapshot(agg_registry_of(r->g), r->state, os_monotonic_ns(), (i64)pending_now(r), r->snap,
                              &e) != ERR_OK) {
        say(r, "ERROR live snapshot failed: %s", e.msg);
        return;
    }
    publish(r, r->snap);
    r->st->snapshots++;
}

static void maybe_tick(aggr *r)
{
    if (r->o->publish_interval_s <= 0 || (r->state != AGG_LIVE && r->state != AGG_DRAINING))
        return;
    double now = os_now();
    if (now < r->next_tick)
        return;
    tick(r);
    r->next_tick += r->o->publish_interval_s;
    if (r->next_tick < now)   /* behind (a long burst): the next one an interval from now */
        r->next_tick = now + r->o->publish_interval_s;
}

/* The aggregator's progress calls: while the drain waits on its workers
 * (and while ingest waits on a full window), the ticks go on. */
static void on_progress(void *ctx, const dq_progress *p)
{
    aggr *r = ctx;
    maybe_tick(r);
    if (r->state == AGG_DRAINING && (p->final || os_now() >= r->next_drain_log)) {
        char line[512];
        dq_progress_format(p, line, sizeof line);
        say(r, "INFO tokenizer %s", line);
        r->next_drain_log = os_now() + DRAIN_LOG_S;
    }
}

static void on_warn(void *ctx, const char *msg)
{
    say(ctx, "WARNING %s", msg);
}

/* ---- frames ----------------------------------------------------------------- */

static void on_payload(void *ctx, str payload)
{
    aggr *r = ctx;
    if (agg_ended(r->g))
        return;   /* upstream's process() drops every record after session.ended */
    r->st->records++;
    arena_restore(&r->a, r->base);
    agg_event ev;
    agg_decode_error de;
    int rc = io_mp_event_decode(&r->dec, &r->a, payload, os_monotonic_ns(), &ev, &de);
    if (rc != ERR_OK) {
        /* on_decode_error: a synthetic error.generic record, timestamped now */
        r->st->malformed++;
        if (r->said_malformed++ < SAY_MALFORMED)
            say(r, "WARNING a record did not decode (%s: %.*s); it counts as one error.generic record, as upstream's "
                "subscriber makes of it%s", de.cls, (int)de.msg_len, de.msg,
                r->said_malformed == SAY_MALFORMED ? " (further ones are counted, not told)" : "");
        ev = (agg_event){.type = AGG_EV_ERROR_GENERIC, .timestamp_ns = os_monotonic_ns(),
                         .data_kind = AGG_DATA_ERROR};
    }
    r->st->events++;
    if (agg_process(r->g, &ev) != ERR_OK) {
        if (!(r->o->sigterm && *r->o->sigterm))
            say(r, "ERROR out of memory processing a record");
        return;
    }
    if (ev.type == AGG_EV_SESSION_STARTED && r->state == AGG_INITIALIZE) {
        r->state = AGG_LIVE;
        r->next_tick = os_now() + r->o->publish_interval_s;
        /* the live token lane, at the ticks' cadence, as upstream's */
        err e = {0};
        if (agg_live_start(r->g, r->o->publish_interval_s, &e) != ERR_OK)
            say(r, "ERROR live token flush failed to start (counts wait for the drain): %s", e.msg);
        say(r, "INFO session started: live");
    }
    if (agg_ended(r->g) && r->state != AGG_DRAINING) {
        r->state = AGG_DRAINING;
        r->st->ended = true;
    }
    /* a burst of frames (a batch is 1000 records; the socket may hold
     * thousands of batches) does not hold the live ticks back */
    else if (r->st->records % TICK_EVERY == 0)
        maybe_tick(r);
}

static void on_frame(aggr *r, str frame)
{
    r->st->frames++;
    char why[256];
    io_frame_kind k = io_frame_split(frame, on_payload, r, why, (iz)sizeof why);
    if (k == IO_FRAME_BATCH)
        r->st->batches++;
    else if (k == IO_FRAME_SHORT) {
        r->st->short_frames++;
        if (r->said_malformed++ < SAY_MALFORMED)
            say(r, "WARNING a frame of %td bytes, no longer than the 40-byte topic, was dropped", frame.len);
    } else if (k == IO_FRAME_BAD_BATCH) {
        r->st->bad_batches++;
        if (r->said_malformed++ < SAY_MALFORMED)
            say(r, "WARNING a batch frame of %td bytes did not decode (%s); it was dropped whole, as upstream drops it",
                frame.len, why);
    }
}

/* Every frame there is now (at most BURST_MAX); false on a receive error
 * other than "none left" or a signal. */
static bool take_frames(aggr *r)
{
    for (int n = 0; n < BURST_MAX && !agg_ended(r->g); n++) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        int k = zmq_msg_recv(&m, r->sub, ZMQ_DONTWAIT);
        if (k < 0) {
            int en = zmq_errno();
            zmq_msg_close(&m);
            if (en == EAGAIN || en == EINTR)
                return true;
            say(r, "ERROR receiving events: %s", zmq_strerror(en));
            return false;
        }
        on_frame(r, str_from(zmq_msg_data(&m), (iz)zmq_msg_size(&m)));
        zmq_msg_close(&m);
        if (r->o->sigterm && *r->o->sigterm)
            return true;
    }
    return true;
}

/* SIGINT: told once, nothing else (upstream's no-op handler). */
static void sigint_check(aggr *r)
{
    if (!r->o->sigint || !*r->o->sigint)
        return;
    *r->o->sigint = 0;
    if (!r->sigint_said)
        say(r, "INFO metrics aggregator received SIGINT - ignoring (parent's ENDED path is authoritative)");
    r->sigint_said = true;
}

/* ---- startup -------------------------------------------------------------- */

static int touch(const char *dir, const char *name, err *e)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "ab");
    if (!f || fclose(f) != 0)
        return err_set(e, ERR_IO, -1, "cannot touch %s: %s", path, strerror(errno));
    return ERR_OK;
}

/* send_ready_signal: a PUSH socket (linger 5 s) to the readiness path,
 * one frame: the msgpack int of the id. Waits for the peer as upstream's
 * awaited send does, unless SIGTERM comes. */
static int send_ready(aggr *r, err *e)
{
    char addr[4300];
    int rc = address(r->o->socket_dir, r->o->readiness_path, addr, sizeof addr, e);
    if (rc != ERR_OK)
        return rc;
    void *s = zmq_socket(r->zctx, ZMQ_PUSH);
    if (!s)
        return zerr(e, "cannot make the readiness socket for", addr);
    set_int(s, ZMQ_LINGER, 5000);
    if (zmq_connect(s, addr) != 0) {
        zmq_close(s);
        return zerr(e, "cannot connect to", addr);
    }
    buf b = {0};
    io_mp_int(&b, r->o->readiness_id);
    rc = ERR_OK;
    for (;;) {
        if (zmq_send(s, b.data, (size_t)b.len, ZMQ_DONTWAIT) >= 0)
            break;
        if (zmq_errno() != EAGAIN && zmq_errno() != EINTR) {
            rc = zerr(e, "cannot send the readiness message to", addr);
            break;
        }
        if (r->o->sigterm && *r->o->sigterm)
            break;
        zmq_pollitem_t it = {s, 0, ZMQ_POLLOUT, 0};
        zmq_poll(&it, 1, 100);
    }
    buf_free(&b);
    zmq_close(s);
    return rc;
}

static int open_sockets(aggr *r, err *e)
{
    const io_aggregate_opts *o = r->o;
    char sub_addr[4300], pub_addr[4300];
    int rc;
    if ((rc = address(o->socket_dir, o->socket_name, sub_addr, sizeof sub_addr, e)) != ERR_OK ||
        (rc = address(o->socket_dir, o->metrics_socket, pub_addr, sizeof pub_addr, e)) != ERR_OK)
        return rc;
    /* the publisher's bind makes the folder (mkdir -p), as upstream's does */
    if ((rc = os_mkdirs(o->socket_dir, e)) != ERR_OK)
        return rc;
    r->zctx = zmq_ctx_new();
    if (!r->zctx)
        return zerr(e, "cannot make a ZeroMQ context for", sub_addr);
    r->pub = zmq_socket(r->zctx, ZMQ_PUB);
    if (!r->pub)
        return zerr(e, "cannot make the metrics socket", pub_addr);
    set_int(r->pub, ZMQ_SNDHWM, 4);
    set_int(r->pub, ZMQ_LINGER, 10000);
    set_int(r->pub, ZMQ_IMMEDIATE, 1);
    if (zmq_bind(r->pub, pub_addr) != 0)
        return zerr(e, "cannot bind the metrics socket", pub_addr);
    r->sub = zmq_socket(r->zctx, ZMQ_SUB);
    if (!r->sub)
        return zerr(e, "cannot make the event socket", sub_addr);
    set_int(r->sub, ZMQ_RCVHWM, 0);
    set_int(r->sub, ZMQ_LINGER, 0);
    zmq_setsockopt(r->sub, ZMQ_SUBSCRIBE, "", 0);
    if (zmq_connect(r->sub, sub_addr) != 0)
        return zerr(e, "cannot connect the event socket to", sub_addr);
    return ERR_OK;
}

/* ---- the end -------------------------------------------------------------- */

/* publish_final: the terminal snapshot (COMPLETE after the drain, or
 * INTERRUPTED), the file, then the frame. */
static void finish(aggr *r, bool interrupted)
{
    const io_aggregate_opts *o = r->o;
    err e = {0};
    double t0 = os_now();
    double deadline = !interrupted && o->drain_timeout_s != 0 ? t0 + o->drain_timeout_s : 0;
    int rc = agg_finish(r->g, interrupted, deadline, os_monotonic_ns(), r->snap, &e);
    if (rc == ERR_STOPPED && !interrupted) {
        /* SIGTERM during the drain: upstream's handler finalizes first */
        say(r, "WARNING metrics aggregator received SIGTERM; writing INTERRUPTED final snapshot");
        interrupted = true;
        rc = agg_finish(r->g, true, 0, os_monotonic_ns(), r->snap, &e);
    }
    r->st->drain_s = os_now() - t0;
    r->st->interrupted = interrupted;
    iz enq, done, failed;
    agg_counts(r->g, &enq, &done, &failed);
    r->st->counts_enqueued = enq;
    if (rc != ERR_OK) {
        say(r, "ERROR the final snapshot could not be built: %s", e.msg);
        return;
    }
    r->st->pending = (iz)r->snap->n_pending;
    if (!interrupted && r->snap->n_pending > 0)
        say(r, "WARNING tokenizer drain left %lld items not counted", (long long)r->snap->n_pending);
    r->text.len = 0;
    agg_snapshot_json(r->snap, &r->text);
    char path[4300];
    snprintf(path, sizeof path, "%s/final_snapshot.json", o->metrics_output_dir);
    if (r->text.failed)
        say(r, "ERROR final snapshot: out of memory writing it");
    else if (os_write_file_atomic(path, buf_view(&r->text), &e) != ERR_OK)
        say(r, "ERROR final snapshot could not be written: %s", e.msg);
    else
        r->st->written = true;
    publish(r, r->snap);
    say(r, "INFO final snapshot (%s, %lld pending) %s%s", agg_state_name(r->snap->state),
        (long long)r->snap->n_pending, r->st->written ? "written to " : "not written; published", r->st->written ? path : "");
}

static void close_all(aggr *r)
{
    if (r->sub)
        zmq_close(r->sub);
    if (r->pub)
        zmq_close(r->pub);
    if (r->zctx)
        zmq_ctx_term(r->zctx);   /* waits for the terminal frame (linger 10 s) */
    agg_free(r->g);
    free(r->snap);
    buf_free(&r->text);
    buf_free(&r->wire);
    io_mp_decoder_free(&r->dec);
    arena_fini(&r->a);
}

int io_aggregate(const io_aggregate_opts *o, io_aggregate_stats *st, err *e)
{
    memset(st, 0, sizeof *st);
    if (o->tokenizer_workers < 0)
        return err_set(e, ERR_INVALID, -1, "FATAL: --tokenizer-workers must be >= 0");
    if (!o->metrics_output_dir || !os_is_dir(o->metrics_output_dir))
        return err_set(e, ERR_INVALID, -1,
                       "FATAL: --metrics-output-dir %s does not exist or is not a directory. The parent process is "
                       "responsible for creating it before launching the aggregator subprocess.",
                       o->metrics_output_dir ? o->metrics_output_dir : "");
    const count_model *model = NULL;
    if (o->load_model) {
        model = o->load_model(o->cb_ctx, e);
        if (!model && e->code != ERR_OK)
            return e->code;
    }
    aggr r = {.o = o, .st = st, .state = AGG_INITIALIZE};
    arena_init(&r.a, CHAT_SCRATCH_MAX);
    r.base = arena_reserve(&r.a, 1 << 20);
    r.snap = calloc(1, sizeof *r.snap);
    int rc = r.snap ? ERR_OK : err_set(e, ERR_NOMEM, -1, "out of memory");
    if (rc == ERR_OK)
        rc = open_sockets(&r, e);
    if (rc == ERR_OK) {
        agg_opts ao = {
            .streaming = o->streaming,
            .early_stopping = o->early_stopping,
            .sig_figs = o->sig_figs,
            .n_buckets = o->n_buckets,
            .model = model,
            .workers = o->workers,
            .stop = o->sigterm,
            .progress_s = o->publish_interval_s > 0 ? MIN(o->publish_interval_s, DRAIN_LOG_S) : DRAIN_LOG_S,
            .progress = on_progress,
            .progress_ctx = &r,
            .warn = on_warn,
            .warn_ctx = &r,
            .defer = true,
            .live_threads = o->tokenizer_workers,
        };
        r.g = agg_new(&ao, e);
        if (!r.g)
            rc = e->code ? e->code : ERR_NOMEM;
    }
    /* the signal handlers are the caller's, set before this call; then
     * the startup marker and the readiness message, as upstream */
    if (rc == ERR_OK)
        rc = touch(o->metrics_output_dir, ".ready", e);
    if (rc == ERR_OK && o->readiness_path)
        rc = send_ready(&r, e);
    if (rc != ERR_OK) {
        close_all(&r);
        return rc;
    }
    say(&r, "INFO metrics aggregator ready (events from %s/%s, snapshots on %s/%s)", o->socket_dir, o->socket_name,
        o->socket_dir, o->metrics_socket);
    double t_first = 0;
    while (!agg_ended(r.g)) {
        if (o->sigterm && *o->sigterm)
            break;
        sigint_check(&r);
        long timeout = 1000;
        if (o->publish_interval_s > 0 && r.state == AGG_LIVE) {
            double left = r.next_tick - os_now();
            timeout = left <= 0 ? 0 : MIN(1000, (long)(left * 1000) + 1);
        }
        zmq_pollitem_t it = {r.sub, 0, ZMQ_POLLIN, 0};
        int n = zmq_poll(&it, 1, timeout);
        if (n < 0 && zmq_errno() != EINTR) {
            say(&r, "ERROR waiting for events: %s", zmq_strerror(zmq_errno()));
            break;
        }
        if (n > 0 && (it.revents & ZMQ_POLLIN)) {
            if (!t_first)
                t_first = os_now();
            if (!take_frames(&r))
                break;
        }
        maybe_tick(&r);
    }
    st->run_s = t_first ? os_now() - t_first : 0;
    sigint_check(&r);
    bool interrupted = !agg_ended(r.g);
    if (interrupted)
        say(&r, "WARNING metrics aggregator received SIGTERM; writing INTERRUPTED final snapshot");
    finish(&r, interrupted);
    close_all(&r);
    return ERR_OK;
}
