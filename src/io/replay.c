/* replay.c - `tally replay`'s job (io.h): an event log through the
 * aggregator (agg/agg.h) line by line, counting tokens on the workers as
 * it goes, then the final snapshot and upstream's report, each written
 * atomically. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../agg/agg.h"
#include "../agg/event.h"
#include "../agg/report.h"
#include "../base/arena.h"
#include "../base/lines.h"
#include "../base/os.h"
#include "events.h"
#include "io.h"

typedef struct replay {
    const io_replay_opts *o;
    io_replay_stats *st;
    io_events *src;
    double     t0, next_progress;
    char       paths[3][4300];
} replay;

static void say(replay *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void say(replay *r, const char *fmt, ...)
{
    if (!r->o->warn)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->o->warn(r->o->cb_ctx, msg);
}

static void progress_line(replay *r, bool force)
{
    if (!r->o->progress || r->o->progress_s <= 0)
        return;
    double now = os_now();
    if (!force && now < r->next_progress)
        return;
    r->next_progress = now + r->o->progress_s;
    double dt = now - r->t0;
    i64 done = io_events_bytes(r->src), size = io_events_size(r->src);
    char line[512];
    int n = snprintf(line, sizeof line, "replay: %lld lines, %lld events", (long long)r->st->lines,
                     (long long)r->st->events);
    if (size > 0 && done > 0 && n > 0 && n < (int)sizeof line) {
        double share = (double)done / (double)size;
        n += snprintf(line + n, sizeof line - (size_t)n, " (%.0f%% of the log)", MIN(share, 1.0) * 100);
        if (share > 0 && share < 1 && n < (int)sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n, ", ETA %.0f s", dt / share - dt);
    }
    if (n > 0 && n < (int)sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, ", %.0f lines/s", dt > 0 ? (double)r->st->lines / dt : 0.0);
    r->o->progress(r->o->cb_ctx, line);
}

static void drain_progress(void *ctx, const dq_progress *p)
{
    replay *r = ctx;
    if (!r->o->progress)
        return;
    char line[512];
    dq_progress_format(p, line, sizeof line);
    r->o->progress(r->o->cb_ctx, line);
}

static void agg_warn(void *ctx, const char *msg)
{
    replay *r = ctx;
    say(r, "replay: %s", msg);
}

/* The output folders exist and take a file: an error before any work. */
static int prepare_out(replay *r, err *e)
{
    static const char *const sub[3] = {"metrics", "performance", ""};
    static const char *const name[3] = {"final_snapshot.json", "result_summary.json", "report.txt"};
    if (strlen(r->o->out_dir) > 4000)
        return err_set(e, ERR_INVALID, -1, "the output folder's name is longer than 4000 bytes");
    for (int k = 0; k < 3; k++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s%s%s", r->o->out_dir, sub[k][0] ? "/" : "", sub[k]);
        if (os_mkdirs(dir, e) != ERR_OK)
            return e->code;
        snprintf(r->paths[k], sizeof r->paths[k], "%s/%s", dir, name[k]);
        char probe[4300];
        snprintf(probe, sizeof probe, "%s/.tally-probe", dir);
        if (os_write_file_atomic(probe, S(""), e) != ERR_OK)
            return err_set(e, ERR_IO, -1, "the output folder %s cannot be written: %s", dir, e->msg);
        remove(probe);
    }
    return ERR_OK;
}

/* Whether a line is blank (ASCII whitespace only): the oracle's reader
 * skips those. */
static bool blank(str line)
{
    for (iz k = 0; k < line.len; k++)
        if (!(line.s[k] == ' ' || (line.s[k] >= '\t' && line.s[k] <= '\r')))
            return false;
    return true;
}

/* use_legacy_loadgen_qps_metrics as upstream's benchmark passes it to the
 * report: the load pattern is poisson (the option, else the run_config's
 * load_pattern.type when truthy, else concurrency) and the run_config's
 * load_pattern.use_legacy_loadgen_qps_metrics is truthy (default true),
 * unless turned off. */
static bool legacy_qps(const json *run_config, const char *load_pattern, bool no_legacy)
{
    const json *lp = run_config ? json_get_type(run_config, S("load_pattern"), JSON_OBJ) : NULL;
    const json *type = lp ? json_get(lp, S("type")) : NULL;
    bool poisson = load_pattern && *load_pattern ? !strcmp(load_pattern, "poisson")
                                                 : json_is(type, JSON_STR) && str_eq(type->u.s, S("poisson"));
    const json *flag = lp ? json_get(lp, S("use_legacy_loadgen_qps_metrics")) : NULL;
    return poisson && !no_legacy && (!flag || json_truthy(flag));
}

/* The run_config dict of a --run-config file (NULL when none). */
static int read_run_config(arena *a, const char *path, const json **out, err *e)
{
    *out = NULL;
    if (!path)
        return ERR_OK;
    str text = os_read_file(a, path, e);
    json *v = text.s ? json_parse(a, text, NULL, e) : NULL;
    if (!v || v->type != JSON_OBJ) {
        if (v)
            return err_set(e, ERR_INVALID, -1, "--run-config %s: expected a JSON object (the run_config dict)", path);
        err_prefix(e, "--run-config %s", path);
        return e->code ? e->code : ERR_INVALID;
    }
    *out = v;
    return ERR_OK;
}

/* The summary block of a report text into summary[cap]. */
static void keep_summary(str report, char *summary, iz cap)
{
    buf head = {0};
    agg_report_summary_lines(report, &head);
    snprintf(summary, (size_t)cap, "%.*s", (int)head.len, head.data ? (const char *)head.data : "");
    buf_free(&head);
}

int io_report(const io_report_opts *o, char *summary, iz summary_cap, err *e)
{
    arena a;
    arena_init(&a, 0);
    buf js = {0}, text = {0};
    const json *run_config;
    char dir[4200], path[4300];
    int rc = read_run_config(&a, o->run_config, &run_config, e);
    if (rc != ERR_OK)
        goto done;
    str snap = os_read_file(&a, o->snapshot, e);
    if (!snap.s) {
        rc = e->code;
        goto done;
    }
    agg_report_opts ro = {
        .legacy_loadgen_qps = legacy_qps(run_config, o->load_pattern, o->no_legacy_loadgen_qps),
        .run_config = run_config,
        .git_sha = o->git_sha,
        .version = o->version,
    };
    if ((rc = agg_report_build(snap, &ro, &js, &text, e)) != ERR_OK) {
        err_prefix(e, "%s", o->snapshot);
        goto done;
    }
    if (strlen(o->out_dir) > 4000) {
        rc = err_set(e, ERR_INVALID, -1, "the output folder's name is longer than 4000 bytes");
        goto done;
    }
    snprintf(dir, sizeof dir, "%s/performance", o->out_dir);
    if ((rc = os_mkdirs(dir, e)) != ERR_OK)
        goto done;
    snprintf(path, sizeof path, "%s/result_summary.json", dir);
    if ((rc = os_write_file_atomic(path, buf_view(&js), e)) != ERR_OK)
        goto done;
    snprintf(path, sizeof path, "%s/report.txt", o->out_dir);
    if ((rc = os_write_file_atomic(path, buf_view(&text), e)) != ERR_OK)
        goto done;
    keep_summary(buf_view(&text), summary, summary_cap);
done:
    buf_free(&js);
    buf_free(&text);
    arena_fini(&a);
    return rc;
}

int io_replay(const io_replay_opts *o, io_replay_stats *st, err *e)
{
    memset(st, 0, sizeof *st);
    replay r = {.o = o, .st = st};
    int rc = prepare_out(&r, e);
    if (rc != ERR_OK)
        return rc;
    arena perm;
    arena_init(&perm, 0);
    const json *run_config;
    rc = read_run_config(&perm, o->run_config, &run_config, e);
    if (rc != ERR_OK) {
        arena_fini(&perm);
        return rc;
    }
    r.src = io_events_open(o->events, o->max_line, e);
    if (!r.src) {
        arena_fini(&perm);
        return e->code;
    }
    agg_opts ao = {
        .streaming = o->streaming != 0,   /* -1: on until the log says otherwise */
        .early_stopping = o->early_stopping,
        .sig_figs = o->sig_figs,
        .n_buckets = o->n_buckets,
        .model = o->model,
        .workers = o->workers,
        .stop = o->stop,
        .progress_s = o->progress_s,
        .progress = drain_progress,
        .progress_ctx = &r,
        .warn = agg_warn,
        .warn_ctx = &r,
    };
    agg *g = agg_new(&ao, e);
    agg_snapshot *snap = calloc(1, sizeof *snap);
    buf text = {0}, summary = {0}, report = {0};
    arena a;
    arena_init(&a, CHAT_SCRATCH_MAX);
    arena_mark base = arena_reserve(&a, 1 << 20);
    if (!g || !snap) {
        rc = g ? err_set(e, ERR_NOMEM, -1, "out of memory") : e->code;
        goto done;
    }
    r.t0 = os_now();
    r.next_progress = r.t0 + o->progress_s;
    bool seen_recv_first = false;
    /* the clock of a line without timestamp_ns (upstream reads it as it
     * decodes): read every 1024 lines, not for each */
    i64 now = os_monotonic_ns();
    str line;
    int lr;
    while ((lr = io_events_next(r.src, &line)) != LINES_END) {
        if (o->stop && *o->stop) {
            rc = ERR_STOPPED;
            goto done;
        }
        st->lines++;
        arena_restore(&a, base);
        agg_event ev;
        agg_decode_error de;
        bool ok;
        if (lr == LINES_TOO_LONG) {
            st->too_long++;
            ok = false;
        } else if (blank(line)) {
            continue;
        } else {
            ok = agg_event_decode_deferred(&a, line, now, &ev, &de) == ERR_OK;
        }
        if (!ok) {
            /* as a bad frame on upstream's wire: one synthetic error record */
            if (st->malformed < (i64)countof(st->malformed_at))
                st->malformed_at[st->malformed] = io_events_where(r.src);
            st->malformed++;
            ev = (agg_event){.type = AGG_EV_ERROR_GENERIC, .timestamp_ns = os_monotonic_ns(),
                             .data_kind = AGG_DATA_ERROR};
        }
        st->events++;
        if (ok && ev.wire_error && st->wire_errors++ == 0) {
            st->wire_first = io_events_where(r.src);
            st->wire_class = ev.wire_error;
        }
        seen_recv_first = seen_recv_first || (ok && ev.type == AGG_EV_SAMPLE_RECV_FIRST);
        rc = agg_process(g, &ev);
        if (rc != ERR_OK) {
            if (rc != ERR_STOPPED)
                err_set(e, rc, -1, "out of memory at line %lld", (long long)io_events_where(r.src));
            goto done;
        }
        if (agg_ended(g))
            break;   /* upstream's aggregator stops at session.ended: the rest is not read */
        if ((st->lines & 1023) == 0) {
            now = os_monotonic_ns();
            progress_line(&r, false);
        }
    }
    const err *le = io_events_error(r.src);
    if (le)   /* a truncated or corrupt log: what was read so far counts */
        say(&r, "replay: %s: the log ends here: %s", o->events, le->msg);
    st->read_s = os_now() - r.t0;
    st->ended = agg_ended(g);
    st->streaming = o->streaming == 1 || (o->streaming < 0 && seen_recv_first);
    if (st->malformed) {
        char at[128] = "";
        int n = 0;
        for (i64 k = 0; k < MIN(st->malformed, (i64)countof(st->malformed_at)) && n < (int)sizeof at - 24; k++)
            n += snprintf(at + n, sizeof at - (size_t)n, "%s%lld", k ? ", " : "", (long long)st->malformed_at[k]);
        say(&r, "replay: %lld lines did not decode (line%s %s%s); each counts as one error.generic record, "
            "as upstream's aggregator makes of a bad frame", (long long)st->malformed, st->malformed > 1 ? "s" : "",
            at, st->malformed > (i64)countof(st->malformed_at) ? ", ..." : "");
    }
    if (st->wire_errors)
        say(&r, "replay: %lld record%s could not cross upstream's msgpack wire (the first at line %lld, %s: %s); "
            "upstream's publisher raises on such a record, so a live run never carries one, and the "
            "reference replay stops there; tally aggregates them as decoded", (long long)st->wire_errors,
            st->wire_errors > 1 ? "s" : "", (long long)st->wire_first, st->wire_class,
            !strcmp(st->wire_class, "OverflowError") ? "an int outside [-2^63, 2^64)" : "nesting deeper than its encoder goes");
    if (!st->ended)
        say(&r, "replay: the log has no session.ended: the snapshot is INTERRUPTED, as upstream's aggregator "
            "writes it on SIGTERM (no drain: the queued token counts are pending)");
    double t1 = os_now();
    double deadline = st->ended && o->drain_timeout_s > 0 ? t1 + o->drain_timeout_s : 0;
    i64 ts = o->pin_timestamp ? o->timestamp_ns : os_monotonic_ns();
    rc = agg_finish(g, !st->ended, deadline, ts, snap, e);
    if (rc != ERR_OK)
        goto done;
    if (o->pin_timestamp)
        snap->timestamp_ns = o->timestamp_ns;
    if (o->streaming < 0 && !seen_recv_first)   /* not a streamed log: as without --streaming */
        snap->has[AGG_S_TTFT] = snap->has[AGG_S_CHUNK_DELTA] = snap->has[AGG_S_TPOT] = false;
    st->drain_s = os_now() - t1;
    agg_counts(g, &st->counts_enqueued, &st->counts_done, &st->counts_failed);
    st->pending = snap->n_pending;
    agg_snapshot_json(snap, &text);
    if (text.failed) {
        rc = err_set(e, ERR_NOMEM, -1, "out of memory writing the snapshot");
        goto done;
    }
    /* the snapshot first: upstream's pipeline keeps it when the report
     * cannot be built from it (and writes no report files then) */
    if ((rc = os_write_file_atomic(r.paths[0], buf_view(&text), e)) != ERR_OK)
        goto done;
    agg_report_opts ro = {
        .legacy_loadgen_qps = legacy_qps(run_config, o->load_pattern, o->no_legacy_loadgen_qps),
        .run_config = run_config,
        .git_sha = o->git_sha,
        .version = o->version,
    };
    if ((rc = agg_report_build(buf_view(&text), &ro, &summary, &report, e)) != ERR_OK) {
        err_prefix(e, "the report cannot be built from the snapshot (%s is written, the report files are not)",
                   r.paths[0]);
        goto done;
    }
    if ((rc = os_write_file_atomic(r.paths[1], buf_view(&summary), e)) != ERR_OK ||
        (rc = os_write_file_atomic(r.paths[2], buf_view(&report), e)) != ERR_OK)
        goto done;
    keep_summary(buf_view(&report), st->summary, (iz)sizeof st->summary);
done:
    st->total_s = os_now() - r.t0;
    agg_free(g);
    free(snap);
    io_events_close(r.src);
    buf_free(&text);
    buf_free(&summary);
    buf_free(&report);
    arena_fini(&a);
    arena_fini(&perm);
    return rc;
}
