/* cmd_replay.c - `tally replay`: options, the model, then the job
 * (io_replay: the aggregator over an event log, and upstream's three
 * files); and `tally report` (agg_report_build over a final snapshot). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "../agg/series.h"
#include "../base/arena.h"
#include "../base/os.h"
#include "../chat/shapes.h"

static const char help[] =
    "usage: tally replay EVENTS --out DIR [--tokenizer T] [--streaming | --no-streaming]\n"
    "                    [--no-early-stopping] [--load-pattern concurrency|poisson]\n"
    "                    [--no-legacy-loadgen-qps] [--drain-timeout S] [--shards N]\n"
    "                    [--tokenizer-workers N] [--hdr-sig-figs N] [--n-histogram-buckets N]\n"
    "                    [--run-config FILE] [--git-sha SHA | --no-git-sha] [-q]\n"
    "\n"
    "Runs upstream's metrics aggregator (mlcommons/endpoints) over a benchmark run's\n"
    "event log and writes the three files a run writes at its end, as upstream's own\n"
    "code writes them:\n"
    "  DIR/metrics/final_snapshot.json       the aggregator's final snapshot\n"
    "  DIR/performance/result_summary.json   the report as JSON\n"
    "  DIR/report.txt                        the report as text\n"
    "and prints the report's summary. EVENTS is upstream's events.jsonl (also\n"
    "gzip-compressed) or its SQLite events.db (which keeps no finish_reason or\n"
    "worker_id). Token counts (ISL, OSL, TPOT) are made with the tokenizer and its\n"
    "chat template exactly as upstream's, on worker processes while the log is read,\n"
    "and recorded in upstream's order. A line that does not decode counts as one\n"
    "error.generic record, as a bad frame does on upstream's wire (stderr says how\n"
    "many and where). A log without session.ended ends as upstream's aggregator does\n"
    "on SIGTERM: an INTERRUPTED snapshot, no drain, the queued counts pending.\n"
    "\n"
    "options:\n"
    "      --out DIR           where the three files go (made when missing; an error\n"
    "                          before any work when it cannot be written)\n"
    "  -t, --tokenizer T       the tokenizer; without one, as upstream without one: only\n"
    "                          token ids give ISL\n"
    "      --streaming, --no-streaming  the streaming series (ttft, chunk delta, tpot);\n"
    "                          default: streaming when the log has a sample.recv_first\n"
    "      --no-early-stopping no early-stopping estimates (upstream's benchmark passes\n"
    "                          --early-stopping: on by default here too)\n"
    "      --load-pattern P    the run's load pattern: poisson uses the legacy LoadGen\n"
    "                          window for QPS and TPS (default: the run config's\n"
    "                          load_pattern.type, else concurrency)\n"
    "      --no-legacy-loadgen-qps  with poisson, QPS and TPS over the tracked duration\n"
    "                          (default: the run config's use_legacy_loadgen_qps_metrics,\n"
    "                          else the LoadGen window)\n"
    "      --drain-timeout S   seconds for the counts left at session.ended (default 0:\n"
    "                          unlimited); what is not counted stays pending\n"
    "  -s, --shards N          worker processes that count (default and most: one per\n"
    "                          CPU this process may use; 0: in this process)\n"
    "      --tokenizer-workers N  accepted as upstream's aggregator takes it (the live\n"
    "                          lane's threads; a replay has no live lane)\n"
    "      --hdr-sig-figs N    significant figures of the HDR histograms (default 3)\n"
    "      --n-histogram-buckets N  histogram buckets (default 30, at most 1000)\n"
    "      --run-config FILE   a JSON object: the run_config of the report\n"
    "      --git-sha SHA, --no-git-sha  the report's git_sha, or none (default: as\n"
    "                          upstream finds its own: the short SHA of the checkout\n"
    "                          this binary was built in, none when it is not in one)\n"
    "      --render-timeout S  the time budget of one render (default 5)\n"
    "      --snapshot-timestamp-ns N  the snapshot's timestamp_ns (for tests; default:\n"
    "                          the monotonic clock, as upstream's aggregator)\n";

enum {
    OPT_OUT = CLI_OPT_FIRST_OWN, OPT_STREAMING, OPT_NO_STREAMING, OPT_NO_ES, OPT_LOAD_PATTERN, OPT_NO_LEGACY,
    OPT_DRAIN_TIMEOUT, OPT_TOK_WORKERS, OPT_SIG_FIGS, OPT_BUCKETS, OPT_RUN_CONFIG, OPT_GIT_SHA, OPT_NO_GIT_SHA, OPT_RENDER_TIMEOUT,
    OPT_TIMESTAMP,
};

static bool int_arg(const char *cmd, const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi) {
        cli_error("%s: --%s needs a whole number from %ld to %ld, not \"%s\"", cmd, opt, lo, hi, s);
        return false;
    }
    *out = v;
    return true;
}

static void print_line(void *ctx, const char *line)
{
    (void)ctx;
    cli_error("%s", line);
}

int cmd_replay(int argc, char **argv)
{
    cli_common cc;
    cli_common_init(&cc, "replay");
    cc.tokenizer = NULL;   /* none unless given */
    io_replay_opts o = {.streaming = -1, .early_stopping = true, .sig_figs = 3, .n_buckets = 30, .workers = -1,
                        .version = TALLY_VERSION};
    count_model_opts mo = {.now = cli_local_now()};
    bool git_sha_given = false;
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        {"out", required_argument, 0, OPT_OUT},
        {"streaming", no_argument, 0, OPT_STREAMING},
        {"no-streaming", no_argument, 0, OPT_NO_STREAMING},
        {"no-early-stopping", no_argument, 0, OPT_NO_ES},
        {"load-pattern", required_argument, 0, OPT_LOAD_PATTERN},
        {"no-legacy-loadgen-qps", no_argument, 0, OPT_NO_LEGACY},
        {"drain-timeout", required_argument, 0, OPT_DRAIN_TIMEOUT},
        {"shards", required_argument, 0, 's'},
        {"tokenizer-workers", required_argument, 0, OPT_TOK_WORKERS},
        {"hdr-sig-figs", required_argument, 0, OPT_SIG_FIGS},
        {"n-histogram-buckets", required_argument, 0, OPT_BUCKETS},
        {"run-config", required_argument, 0, OPT_RUN_CONFIG},
        {"git-sha", required_argument, 0, OPT_GIT_SHA},
        {"no-git-sha", no_argument, 0, OPT_NO_GIT_SHA},
        {"render-timeout", required_argument, 0, OPT_RENDER_TIMEOUT},
        {"snapshot-timestamp-ns", required_argument, 0, OPT_TIMESTAMP},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int c;
    bool usage = false;
    long v;
    while ((c = getopt_long(argc, argv, ":" CLI_COMMON_SHORT "s:", opts, NULL)) != -1) {
        if (cli_common_opt(&cc, c, optarg, &usage))
            continue;
        switch (c) {
        case OPT_OUT: o.out_dir = optarg; break;
        case OPT_STREAMING: o.streaming = 1; break;
        case OPT_NO_STREAMING: o.streaming = 0; break;
        case OPT_NO_ES: o.early_stopping = false; break;
        case OPT_LOAD_PATTERN:
            if (strcmp(optarg, "poisson") && strcmp(optarg, "concurrency") && strcmp(optarg, "max_throughput")) {
                cli_error("replay: --load-pattern is concurrency, max_throughput or poisson, not \"%s\"", optarg);
                usage = true;
            }
            o.load_pattern = optarg;
            break;
        case OPT_NO_LEGACY: o.no_legacy_loadgen_qps = true; break;
        case OPT_DRAIN_TIMEOUT:
            if (!cli_parse_seconds("replay", "drain-timeout", optarg, &o.drain_timeout_s))
                usage = true;
            break;
        case OPT_RENDER_TIMEOUT:
            if (!cli_parse_seconds("replay", "render-timeout", optarg, &mo.render_budget_s))
                usage = true;
            break;
        case 's':
            if (int_arg("replay", "shards", optarg, 0, IO_MAX_WORKERS, &v))
                o.workers = (int)v;
            else
                usage = true;
            break;
        case OPT_TOK_WORKERS:
            if (!int_arg("replay", "tokenizer-workers", optarg, 0, 64, &v))
                usage = true;
            break;
        case OPT_SIG_FIGS:
            if (int_arg("replay", "hdr-sig-figs", optarg, 1, 5, &v))
                o.sig_figs = (int)v;
            else
                usage = true;
            break;
        case OPT_BUCKETS:
            if (int_arg("replay", "n-histogram-buckets", optarg, 1, AGG_MAX_BUCKETS, &v))
                o.n_buckets = (int)v;
            else
                usage = true;
            break;
        case OPT_RUN_CONFIG: o.run_config = optarg; break;
        case OPT_GIT_SHA: o.git_sha = optarg; git_sha_given = true; break;
        case OPT_NO_GIT_SHA: o.git_sha = NULL; git_sha_given = true; break;
        case OPT_TIMESTAMP: {
            char *end;
            long long t = strtoll(optarg, &end, 10);
            if (end == optarg || *end) {
                cli_error("replay: --snapshot-timestamp-ns needs a whole number, not \"%s\"", optarg);
                usage = true;
            }
            o.pin_timestamp = true;
            o.timestamp_ns = (i64)t;
            break;
        }
        case 'h':
            fputs(help, stdout);
            fputs(cli_common_help, stdout);
            fputs("\n", stdout);
            fputs(cli_tokenizer_help, stdout);
            fputs(cli_status_help, stdout);
            return CLI_OK;
        default: return cli_bad_option(cc.cmd, c, argv);
        }
    }
    if (usage)
        return CLI_USAGE;
    if (optind + 1 != argc || !o.out_dir) {
        cli_error("replay: %s; see tally replay --help", optind + 1 != argc ? "one event log is needed" :
                  "--out DIR is needed");
        return CLI_USAGE;
    }
    o.events = argv[optind];
    if (!git_sha_given)
        o.git_sha = cli_git_sha();
    double t0 = os_now();
    count_model *m = NULL;
    if (cc.tokenizer && !(m = cli_load_model(&cc, &mo, true)))
        return CLI_FATAL;
    double load_s = os_now() - t0;
    o.model = m;
    o.workers = cli_workers(o.workers);
    o.max_line = cc.max_line;
    o.progress_s = cc.quiet ? 0 : cc.progress_s;
    o.stop = cli_signals();
    o.progress = print_line;
    o.warn = cc.quiet ? NULL : print_line;
    io_replay_stats st;
    err e = {0};
    int rc = io_replay(&o, &st, &e);
    count_model_free(m);
    if (rc == ERR_STOPPED) {
        cli_error("replay: stopped by a signal after %lld lines; nothing was written", (long long)st.lines);
        return 128 + (*o.stop ? (int)*o.stop : 2);
    }
    if (rc != ERR_OK) {
        cli_error("replay: %s", e.msg);
        return CLI_FATAL;
    }
    fputs(st.summary, stdout);
    if (fflush(stdout) != 0) {
        cli_error("replay: writing standard output failed");
        return CLI_FATAL;
    }
    if (!cc.quiet)
        cli_error("replay: %lld lines, %lld events%s in %.2f s (%.2f s reading and counting, %.2f s draining%s), "
                  "load %.2f s; %td token counts, %td pending; wrote %s", (long long)st.lines,
                  (long long)st.events, st.ended ? "" : " (no session.ended)", st.total_s, st.read_s, st.drain_s,
                  m ? "" : ", no tokenizer", load_s, st.counts_enqueued, st.pending, o.out_dir);
    return st.pending ? CLI_PENDING : CLI_OK;
}

static const char report_help[] =
    "usage: tally report FINAL_SNAPSHOT.json --out DIR [--load-pattern P]\n"
    "                    [--no-legacy-loadgen-qps] [--run-config FILE]\n"
    "                    [--git-sha SHA | --no-git-sha]\n"
    "\n"
    "Writes DIR/performance/result_summary.json and DIR/report.txt from a final\n"
    "snapshot (one upstream's aggregator or `tally replay` wrote), as upstream's\n"
    "Report.from_snapshot, to_json and display do, and prints the summary.\n"
    "\n"
    "options:\n"
    "      --out DIR           where the files go (made when missing)\n"
    "      --load-pattern P    poisson uses the legacy LoadGen window for QPS and TPS\n"
    "                          (default: the run config's load_pattern.type, else\n"
    "                          concurrency)\n"
    "      --no-legacy-loadgen-qps  with poisson, QPS and TPS over the tracked duration\n"
    "      --run-config FILE   a JSON object: the run_config of the report\n"
    "      --git-sha SHA, --no-git-sha  the report's git_sha, or none (default: the\n"
    "                          short SHA of the checkout this binary was built in)\n"
    "  -h, --help              this text\n";

int cmd_report(int argc, char **argv)
{
    io_report_opts o = {.version = TALLY_VERSION};
    bool git_sha_given = false;
    static const struct option opts[] = {
        {"out", required_argument, 0, OPT_OUT},
        {"load-pattern", required_argument, 0, OPT_LOAD_PATTERN},
        {"no-legacy-loadgen-qps", no_argument, 0, OPT_NO_LEGACY},
        {"run-config", required_argument, 0, OPT_RUN_CONFIG},
        {"git-sha", required_argument, 0, OPT_GIT_SHA},
        {"no-git-sha", no_argument, 0, OPT_NO_GIT_SHA},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_OUT: o.out_dir = optarg; break;
        case OPT_LOAD_PATTERN: o.load_pattern = optarg; break;
        case OPT_NO_LEGACY: o.no_legacy_loadgen_qps = true; break;
        case OPT_RUN_CONFIG: o.run_config = optarg; break;
        case OPT_GIT_SHA: o.git_sha = optarg; git_sha_given = true; break;
        case OPT_NO_GIT_SHA: o.git_sha = NULL; git_sha_given = true; break;
        case 'h': fputs(report_help, stdout); return CLI_OK;
        default: return cli_bad_option("report", c, argv);
        }
    }
    if (optind + 1 != argc || !o.out_dir) {
        cli_error("report: %s; see tally report --help", optind + 1 != argc ? "one snapshot file is needed" :
                  "--out DIR is needed");
        return CLI_USAGE;
    }
    o.snapshot = argv[optind];
    if (!git_sha_given)
        o.git_sha = cli_git_sha();
    static char summary[4096];
    err e = {0};
    if (io_report(&o, summary, (iz)sizeof summary, &e) != ERR_OK) {
        cli_error("report: %s", e.msg);
        return CLI_FATAL;
    }
    fputs(summary, stdout);
    return fflush(stdout) == 0 ? CLI_OK : CLI_FATAL;
}
