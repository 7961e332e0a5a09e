/* cli.h - what the subcommands of the tally command share (cli.c): the
 * options every command takes, messages, the tokenizer lookup, signals and
 * exit statuses. Only cli/ prints. */
#ifndef TALLY_CLI_H
#define TALLY_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include "../base/buf.h"
#include "../base/err.h"
#include "../io/io.h"

#define TALLY_VERSION "0.1.0"
#define TALLY_DEFAULT_TOKENIZER "qwen3"

/* Exit statuses, the same in every command (--help and the README list them). */
enum {
    CLI_OK      = 0,    /* every line answered, none an error */
    CLI_FATAL   = 1,    /* the job could not run or was cut short (a load, open, read or write failed) */
    CLI_USAGE   = 2,    /* bad arguments */
    CLI_PENDING = 3,    /* the budget (--drain-timeout) left lines pending */
    CLI_ERRORS  = 4,    /* some lines were errors; every other line was written */
    /* 128 + the signal (130 SIGINT, 143 SIGTERM): stopped, after the last whole output line */
};

/* Prints "tally: <fmt>" to stderr. */
void cli_error(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* The options every command takes, in one table (CLI_COMMON_OPTIONS) and
 * one parser (cli_common_opt). */
typedef struct cli_common {
    const char *cmd;            /* "count", for messages */
    const char *tokenizer;      /* --tokenizer */
    const char *output;         /* -o FILE */
    iz          max_line;       /* --max-line */
    double      progress_s;     /* --progress-interval (default 30) */
    bool        quiet;          /* -q: no summary, progress or warnings */
} cli_common;

enum {
    CLI_OPT_MAX_LINE = 1000,
    CLI_OPT_PROGRESS,
    CLI_OPT_SUMMARY,
    CLI_OPT_FIRST_OWN,          /* a command's own long-only options start here */
};

#define CLI_COMMON_OPTIONS \
    {"tokenizer", required_argument, 0, 't'}, \
    {"output", required_argument, 0, 'o'}, \
    {"quiet", no_argument, 0, 'q'}, \
    {"summary", no_argument, 0, CLI_OPT_SUMMARY}, \
    {"max-line", required_argument, 0, CLI_OPT_MAX_LINE}, \
    {"progress-interval", required_argument, 0, CLI_OPT_PROGRESS}, \
    {"help", no_argument, 0, 'h'}
#define CLI_COMMON_SHORT "t:o:qh"

/* The help text of the common options, for each command's --help. */
extern const char cli_common_help[];
/* Where --tokenizer looks, and the exit statuses, for each --help. */
extern const char cli_tokenizer_help[];
extern const char cli_status_help[];

void cli_common_init(cli_common *c, const char *cmd);
/* Handles one getopt_long result that is a common option (true), or says
 * it is not one (false). A bad value prints one line and sets *usage. */
bool cli_common_opt(cli_common *c, int opt, const char *arg, bool *usage);
/* For getopt's '?' and ':' results: one line naming the option and "see
 * tally CMD --help". Returns CLI_USAGE. */
int  cli_bad_option(const char *cmd, int opt, char **argv);

/* A non-negative number of seconds; else an error naming the command and
 * the option is printed and false returned. */
bool cli_parse_seconds(const char *cmd, const char *opt, const char *s, double *out);

/* Resolves --tokenizer: an existing folder or file, else a short name in
 * the assets folder ($TALLY_ASSETS, else assets/ of the source tree this
 * binary was built in, else ./assets), else a Hugging Face model name
 * (ORG/NAME, or a bare NAME not among the assets) in the local Hugging Face
 * cache (chat/hfcache.h: the snapshot folder refs/main names). Writes the
 * path to out. Returns false with a message naming the places it looked. */
bool cli_find_tokenizer(const char *arg, char *out, size_t cap, char *why, size_t whycap);
/* The report's git_sha as upstream finds its own (utils/version.py): the
 * short SHA of the source checkout the binary was built in (the folder
 * two above it, as for the assets), trusted only when git says that folder
 * is the top of the checkout; NULL otherwise (a copied binary, no git). */
const char *cli_git_sha(void);

/* The count model of c->tokenizer: found (cli_find_tokenizer) and loaded
 * with `mo`, or NULL after saying why. With `framing` and without -q, a
 * warning when the message framing does not render (messages are then
 * counted with prefix_len = baseline = 0, as upstream does). */
count_model *cli_load_model(const cli_common *c, const count_model_opts *mo, bool framing);

/* The worker processes to count on: --shards as asked (0: in this
 * process), at most one per CPU this process may use, which is also the
 * default (-1): more would only wait, each with caches of its own to fill
 * (issue 17: more shards than cores cost little). */
int cli_workers(int asked);

/* --now: YYYY-MM-DD[(T| )HH:MM[:SS]] as wall-clock seconds since the epoch
 * (the render's clock has no time zone: strftime_now prints these fields).
 * False when the text is not such a time. */
bool cli_parse_time(const char *s, i64 *out);
/* --now's argument (cli_parse_time); else an error naming the command `cmd`
 * is printed and false returned. */
bool cli_parse_now(const char *cmd, const char *s, i64 *out);
/* Python's datetime.now(): the local wall-clock time, as epoch seconds
 * shifted by the local UTC offset (reading them as UTC gives the local
 * fields). */
i64  cli_local_now(void);

/* SIGINT and SIGTERM set the returned flag (the signal's number) for the
 * jobs to stop at a whole line; SIGPIPE is ignored, so that a closed
 * output is a write error. */
volatile sig_atomic_t *cli_signals(void);

/* The job's io_opts from the common options and the arguments left. */
void cli_io_opts(io_opts *o, cli_common *c, int argc, char **argv, int first);
/* Prints the end of a job: its fatal error or interruption, the summary
 * (unless quiet), and returns the exit status. */
int  cli_finish(const cli_common *c, int rc, const err *e, const io_stats *st, double load_s);

int cmd_tokenize(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_aggregate(int argc, char **argv);

#endif
