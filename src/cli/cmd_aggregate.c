/* cmd_aggregate.c - `tally aggregate`: upstream's metrics aggregator
 * process (python -m inference_endpoint.async_utils.services.metrics_aggregator)
 * with its flags; the signals; then the job (io_aggregate). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "../base/os.h"

static const char help[] =
    "usage: tally aggregate --socket-dir DIR --socket-name NAME --metrics-socket NAME\n"
    "                       --metrics-output-dir DIR [--publish-interval S]\n"
    "                       [--drain-timeout S] [--hdr-sig-figs N] [--n-histogram-buckets N]\n"
    "                       [--tokenizer T] [--tokenizer-workers N] [--streaming]\n"
    "                       [--readiness-path NAME] [--readiness-id N] [--early-stopping]\n"
    "                       [--shards N] [--render-timeout S] [-q]\n"
    "\n"
    "The live metrics aggregator of a benchmark run, in place of upstream's\n"
    "(mlcommons/endpoints) aggregator process: the same flags, sockets, frames and\n"
    "file. It subscribes to the run's events (ZeroMQ, msgpack EventRecords, one per\n"
    "frame or in batches), keeps the metrics as upstream's aggregator does, publishes\n"
    "a MetricsSnapshot every --publish-interval while the run is live and while it\n"
    "drains, and at session.ended counts what is left, writes\n"
    "METRICS_OUTPUT_DIR/final_snapshot.json (atomically) and publishes the terminal\n"
    "snapshot. SIGTERM: an INTERRUPTED snapshot at once (queued token counts pending,\n"
    "no drain), then exit. SIGINT is ignored: the run's session.ended decides. A frame\n"
    "that does not decode is logged and counts as one error.generic record, as on\n"
    "upstream's wire; a batch that does not decode is dropped whole.\n"
    "\n"
    "options (upstream's):\n"
    "      --socket-dir DIR    folder of the IPC sockets (required; made when missing)\n"
    "      --socket-name NAME  the events' PUB socket in it, to subscribe to (required)\n"
    "      --metrics-socket NAME  the snapshots' PUB socket in it, bound here (required)\n"
    "      --metrics-output-dir DIR  where final_snapshot.json and the .ready marker go;\n"
    "                          must exist (required; FATAL otherwise, exit status 1)\n"
    "      --publish-interval S  seconds between live snapshots (default 0.25); also the\n"
    "                          cadence of the live token lane\n"
    "      --drain-timeout S   seconds to count what is left at session.ended (default\n"
    "                          0: unlimited); what is not counted stays pending\n"
    "      --hdr-sig-figs N    significant figures of the HDR histograms (default 3)\n"
    "      --n-histogram-buckets N  histogram buckets per series (default 30)\n"
    "      --tokenizer T       the tokenizer for ISL, OSL and TPOT (a Hugging Face name in\n"
    "                          the local cache, a folder, or a short name); without it\n"
    "                          only token ids give ISL, as upstream\n"
    "      --tokenizer-workers N  live-lane threads (default 4; 0: everything is counted\n"
    "                          at session.ended; below 0: FATAL, as upstream)\n"
    "      --streaming         the streaming series: ttft, chunk delta, tpot\n"
    "      --readiness-path NAME  send the readiness message (the msgpack int\n"
    "                          --readiness-id) to this PULL socket in --socket-dir\n"
    "      --readiness-id N    the identity sent (default 0)\n"
    "      --early-stopping    early-stopping estimates on the COMPLETE snapshot\n"
    "\n"
    "options (tally's):\n"
    "  -s, --shards N          worker processes of the end-of-run drain (default and most:\n"
    "                          one per CPU this process may use; 0: in this process)\n"
    "      --render-timeout S  the time budget of one chat-template render (default 5)\n"
    "  -q, --quiet             no INFO lines (warnings and errors still)\n"
    "  -h, --help              this text\n"
    "\n"
    "Messages go to standard error, one line each: tally: aggregate: LEVEL message.\n"
    "Exit status: 0 after session.ended and after SIGTERM (the final snapshot written,\n"
    "or the failure to write it logged); 1 a FATAL startup error (the checks above, a\n"
    "tokenizer that does not load, a socket that cannot be made); 2 bad arguments.\n";

enum {
    OPT_SOCKET_DIR = CLI_OPT_FIRST_OWN, OPT_SOCKET_NAME, OPT_METRICS_SOCKET, OPT_OUTPUT_DIR, OPT_INTERVAL,
    OPT_DRAIN_TIMEOUT, OPT_SIG_FIGS, OPT_BUCKETS, OPT_TOKENIZER, OPT_TOK_WORKERS, OPT_STREAMING, OPT_READY_PATH,
    OPT_READY_ID, OPT_ES, OPT_RENDER_TIMEOUT,
};

static volatile sig_atomic_t got_term, got_int;

static void on_term(int sig)
{
    (void)sig;
    got_term = 1;
}

static void on_int(int sig)
{
    (void)sig;
    got_int = 1;
}

typedef struct ctx {
    cli_common cc;
    count_model_opts mo;
    count_model *model;
    bool quiet;
} ctx;

static void log_line(void *p, const char *msg)
{
    ctx *c = p;
    if (c->quiet && !strncmp(msg, "INFO ", 5))
        return;
    cli_error("aggregate: %s", msg);
}

static const count_model *load(void *p, err *e)
{
    ctx *c = p;
    if (!c->cc.tokenizer)
        return NULL;
    c->model = cli_load_model(&c->cc, &c->mo, true);
    if (!c->model)
        err_set(e, ERR_INVALID, -1, "FATAL: the tokenizer %s could not be loaded", c->cc.tokenizer);
    return c->model;
}

static bool num_arg(const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end) {
        cli_error("aggregate: argument --%s: invalid float value: '%s'", opt, s);
        return false;
    }
    *out = v;
    return true;
}

static bool int_arg(const char *opt, const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < -1000000000L || v > 1000000000L) {
        cli_error("aggregate: argument --%s: invalid int value: '%s'", opt, s);
        return false;
    }
    *out = v;
    return true;
}

int cmd_aggregate(int argc, char **argv)
{
    ctx c = {.mo = {.now = cli_local_now()}};
    cli_common_init(&c.cc, "aggregate");
    c.cc.tokenizer = NULL;
    io_aggregate_opts o = {.publish_interval_s = 0.25, .sig_figs = 3, .n_buckets = 30, .tokenizer_workers = 4,
                           .workers = -1};
    static const struct option opts[] = {
        {"socket-dir", required_argument, 0, OPT_SOCKET_DIR},
        {"socket-name", required_argument, 0, OPT_SOCKET_NAME},
        {"metrics-socket", required_argument, 0, OPT_METRICS_SOCKET},
        {"metrics-output-dir", required_argument, 0, OPT_OUTPUT_DIR},
        {"publish-interval", required_argument, 0, OPT_INTERVAL},
        {"drain-timeout", required_argument, 0, OPT_DRAIN_TIMEOUT},
        {"hdr-sig-figs", required_argument, 0, OPT_SIG_FIGS},
        {"n-histogram-buckets", required_argument, 0, OPT_BUCKETS},
        {"tokenizer", required_argument, 0, OPT_TOKENIZER},
        {"tokenizer-workers", required_argument, 0, OPT_TOK_WORKERS},
        {"streaming", no_argument, 0, OPT_STREAMING},
        {"readiness-path", required_argument, 0, OPT_READY_PATH},
        {"readiness-id", required_argument, 0, OPT_READY_ID},
        {"early-stopping", no_argument, 0, OPT_ES},
        {"shards", required_argument, 0, 's'},
        {"render-timeout", required_argument, 0, OPT_RENDER_TIMEOUT},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int ch;
    bool usage = false;
    long v;
    while ((ch = getopt_long(argc, argv, ":s:qh", opts, NULL)) != -1) {
        switch (ch) {
        case OPT_SOCKET_DIR: o.socket_dir = optarg; break;
        case OPT_SOCKET_NAME: o.socket_name = optarg; break;
        case OPT_METRICS_SOCKET: o.metrics_socket = optarg; break;
        case OPT_OUTPUT_DIR: o.metrics_output_dir = optarg; break;
        case OPT_INTERVAL: usage |= !num_arg("publish-interval", optarg, &o.publish_interval_s); break;
        case OPT_DRAIN_TIMEOUT: usage |= !num_arg("drain-timeout", optarg, &o.drain_timeout_s); break;
        case OPT_RENDER_TIMEOUT:
            if (!cli_parse_seconds("aggregate", "render-timeout", optarg, &c.mo.render_budget_s))
                usage = true;
            break;
        case OPT_SIG_FIGS:
            if (int_arg("hdr-sig-figs", optarg, &v))
                o.sig_figs = (int)v;
            else
                usage = true;
            break;
        case OPT_BUCKETS:
            if (int_arg("n-histogram-buckets", optarg, &v))
                o.n_buckets = (int)v;
            else
                usage = true;
            break;
        case OPT_TOKENIZER: c.cc.tokenizer = optarg; break;
        case OPT_TOK_WORKERS:
            if (int_arg("tokenizer-workers", optarg, &v))
                o.tokenizer_workers = (int)v;
            else
                usage = true;
            break;
        case OPT_STREAMING: o.streaming = true; break;
        case OPT_READY_PATH: o.readiness_path = optarg; break;
        case OPT_READY_ID:
            if (int_arg("readiness-id", optarg, &v))
                o.readiness_id = v;
            else
                usage = true;
            break;
        case OPT_ES: o.early_stopping = true; break;
        case 's':
            if (int_arg("shards", optarg, &v) && v >= 0 && v <= IO_MAX_WORKERS)
                o.workers = (int)v;
            else
                usage = true;
            break;
        case 'q': c.quiet = c.cc.quiet = true; break;
        case 'h': fputs(help, stdout); return CLI_OK;
        default: return cli_bad_option("aggregate", ch, argv);
        }
    }
    if (usage)
        return CLI_USAGE;
    if (optind != argc) {
        cli_error("aggregate: unrecognized arguments: %s; see tally aggregate --help", argv[optind]);
        return CLI_USAGE;
    }
    const char *missing[4];
    int nm = 0;
    if (!o.socket_dir)
        missing[nm++] = "--socket-dir";
    if (!o.socket_name)
        missing[nm++] = "--socket-name";
    if (!o.metrics_socket)
        missing[nm++] = "--metrics-socket";
    if (!o.metrics_output_dir)
        missing[nm++] = "--metrics-output-dir";
    if (nm) {
        char list[256] = "";
        for (int k = 0; k < nm; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", missing[k]);
        cli_error("aggregate: the following arguments are required: %s", list);
        return CLI_USAGE;
    }
    /* SIGTERM finalizes, SIGINT is only told; no SA_RESTART, so the
     * loop's poll returns and looks at the flags */
    struct sigaction st = {.sa_handler = on_term}, si = {.sa_handler = on_int};
    sigemptyset(&st.sa_mask);
    sigemptyset(&si.sa_mask);
    sigaction(SIGTERM, &st, NULL);
    sigaction(SIGINT, &si, NULL);
    signal(SIGPIPE, SIG_IGN);
    o.workers = cli_workers(o.workers);
    o.load_model = load;
    o.sigterm = &got_term;
    o.sigint = &got_int;
    o.log = log_line;
    o.cb_ctx = &c;
    io_aggregate_stats s;
    err e = {0};
    int rc = io_aggregate(&o, &s, &e);
    count_model_free(c.model);
    if (rc != ERR_OK) {
        cli_error("aggregate: %s", e.msg);
        return CLI_FATAL;
    }
    if (!c.quiet)
        cli_error("aggregate: INFO %lld frames (%lld batches), %lld records, %lld did not decode, %lld short frames, "
                  "%lld bad batches; %lld live snapshots; %td token counts, %td pending; %.3f s to session.ended, "
                  "%.3f s from it to the file",
                  (long long)s.frames, (long long)s.batches, (long long)s.records, (long long)s.malformed,
                  (long long)s.short_frames, (long long)s.bad_batches, (long long)s.snapshots, s.counts_enqueued,
                  s.pending, s.run_s, s.drain_s);
    return CLI_OK;
}
