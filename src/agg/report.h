/* report.h - upstream's report builder (metrics/report.py): from the text
 * of a final_snapshot.json to performance/result_summary.json and
 * report.txt, byte for byte as Report.from_snapshot, Report.to_json and
 * Report.display write them (docs/upstream-aggregator.md §13). Used by
 * `tally replay` (io/replay.c) and `tally report` (cli/cmd_replay.c).
 * Depends on json/, tmpl/tmpl_pystr.h (Python's repr of a str) and base/. */
#ifndef TALLY_AGG_REPORT_H
#define TALLY_AGG_REPORT_H

#include "../base/buf.h"
#include "../base/err.h"
#include "../json/json.h"

/* Upstream's own version (inference_endpoint/__init__.py), written when
 * agg_report_opts.version is NULL. */
#define AGG_REPORT_UPSTREAM_VERSION "0.1.0"

enum {
    AGG_REPORT_MAX_TEXT  = 1 << 30,   /* the longest snapshot text read (ERR_LIMIT past it) */
    AGG_REPORT_MAX_DEPTH = 512,       /* nesting of the snapshot and of run_config */
};

typedef struct agg_report_opts {
    bool legacy_loadgen_qps;     /* use_legacy_loadgen_qps_metrics (--load-pattern poisson) */
    const json *run_config;      /* the run_config dict, or NULL = None (a JSON null is None too) */
    const char *git_sha;         /* NULL = None */
    const char *version;         /* the version string written where upstream writes its own;
                                  * NULL = AGG_REPORT_UPSTREAM_VERSION */
} agg_report_opts;

/* Report.from_snapshot(json.loads(snapshot_json), run_config=...,
 * use_legacy_loadgen_qps_metrics=...) then to_json and display: appends
 * result_summary.json's bytes (msgspec.json.format(..., indent=2), no
 * trailing newline) to *summary and report.txt's (one line per display
 * call, each ending in "\n") to *text.
 *
 * Returns ERR_OK, or an error with `e` filled and both buffers back at
 * their old lengths when upstream's Report would not accept the snapshot:
 * the message names the key path ("metrics[4] \"isl\": histogram[2][0][1]:
 * ...") and the exception upstream raises there, and e->off/line/col point
 * at the value in the text. Codes: ERR_SYNTAX / ERR_UTF8 (not JSON),
 * ERR_INVALID (json.loads accepts it but Report raises), ERR_UNSUPPORTED
 * (upstream would accept it but tally does not: see below), ERR_LIMIT,
 * ERR_NOMEM.
 *
 * What upstream accepts and this does not (ERR_UNSUPPORTED or a JSON
 * error), each a snapshot upstream's own writer never produces:
 *   - NaN, Infinity, -Infinity literals, lone surrogate escapes, a BOM or
 *     UTF-16/32 text (json.loads takes them; json_parse does not);
 *   - nesting deeper than AGG_REPORT_MAX_DEPTH;
 *   - a counter's value a str with characters beyond ASCII (int() reads
 *     Unicode digits; tally reads ASCII ones, with Python's whitespace,
 *     sign and underscores);
 *   - "percentiles" as a non-empty list (dict() of pairs).
 * Everything else follows Python: a missing key takes report.py's default
 * (.get), a value is used only where report.py uses it (a count of 0
 * ignores the rest of its series), numbers mix ints of any size, floats
 * and bools with Python's rules, and an int of more than 4300 digits
 * anywhere is refused as json.loads refuses it.
 *
 * Pure: no globals; safe from any thread. Memory: a private arena, freed
 * before returning (its limit grows with the text). */
int agg_report_build(str snapshot_json, const agg_report_opts *o, buf *summary, buf *text, err *e);

/* The lines of report.txt that a command prints on stdout as the run's
 * summary: the headline block, from "----------------- Summary
 * -----------------" through the "TPS: ..." line (the warning, version,
 * Git SHA, run config, sample counts, duration, QPS and TPS lines), each
 * with its "\n": everything before the empty line that opens "Latency
 * Breakdowns". Appended to out; a text without that line gives all of it
 * up to its first empty line. */
void agg_report_summary_lines(str report_txt, buf *out);

#endif
