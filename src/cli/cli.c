/* cli.c - what the subcommands share (cli.h): common options, messages,
 * the tokenizer lookup, times, signals, the end of a job. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include "cli.h"
#include "../base/lines.h"
#include "../base/os.h"
#include "../chat/hfcache.h"

const char cli_common_help[] =
    "  -t, --tokenizer T      the tokenizer (see \"Tokenizers\" below; default " TALLY_DEFAULT_TOKENIZER ")\n"
    "  -o, --output FILE      write the output lines to FILE (default: standard output)\n"
    "  -q, --quiet            no summary, progress or warnings on stderr (errors still)\n"
    "      --summary          the summary line on stderr at the end (the default)\n"
    "      --progress-interval S  a progress line on stderr every S seconds (default 30;\n"
    "                         0: none): lines done, errors, lines/s and, when every\n"
    "                         input is a file, the share done and an ETA\n"
    "      --max-line N       longest input line in bytes (default 1 GiB); a longer line\n"
    "                         is an error for that line\n"
    "  -h, --help             this text\n";

const char cli_tokenizer_help[] =
    "Tokenizers: T is a folder holding tokenizer.json (and tokenizer_config.json),\n"
    "a path to a tokenizer.json, a short name of the assets that\n"
    "scripts/fetch-assets.sh fetches (qwen3, llama3_1, llama3, llama2, deepseek_v3,\n"
    "gemma3, gpt4o, gptoss, claude), looked up in $TALLY_ASSETS, else in assets/\n"
    "of the source tree the binary was built in, else in ./assets; or a Hugging\n"
    "Face model name (Qwen/Qwen3-8B) found offline in the local Hugging Face cache\n"
    "($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub).\n";

const char cli_status_help[] =
    "Exit status: 0 every line answered and none an error; 1 the job could not\n"
    "run or was cut short (a load, open, read or write failed); 2 bad arguments;\n"
    "3 --drain-timeout left lines pending; 4 some lines were errors (every other\n"
    "line was written); 130 or 143 stopped by SIGINT or SIGTERM (after the last\n"
    "whole output line, with the summary of what was done).\n";

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tally: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static bool exe_dir(char *out, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    if (n <= 0)
        return false;
    out[n] = 0;
    char *slash = strrchr(out, '/');
    if (!slash)
        return false;
    *slash = 0;
    return true;
}

const char *cli_git_sha(void)
{
    static char sha[128];
    char dir[1024], root[PATH_MAX], cmd[PATH_MAX + 128], top[PATH_MAX + 8], line[128];
    if (!exe_dir(dir, sizeof dir) || strlen(dir) + 8 > sizeof dir)
        return NULL;
    strcat(dir, "/../..");
    if (!realpath(dir, root) || strchr(root, '\''))
        return NULL;
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse --show-toplevel --short=7 HEAD 2>/dev/null", root);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    bool ok = fgets(top, sizeof top, p) && fgets(line, sizeof line, p);
    if (pclose(p) != 0 || !ok)
        return NULL;
    top[strcspn(top, "\n")] = 0;
    line[strcspn(line, "\n")] = 0;
    char real_top[PATH_MAX];
    if (!realpath(top, real_top) || strcmp(real_top, root) || !line[0])
        return NULL;
    snprintf(sha, sizeof sha, "%s", line);
    return sha;
}

count_model *cli_load_model(const cli_common *c, const count_model_opts *mo, bool framing)
{
    char path[4096], why[8192];
    if (!cli_find_tokenizer(c->tokenizer, path, sizeof(path), why, sizeof(why))) {
        cli_error("%s: %s", c->cmd, why);
        return NULL;
    }
    err e = {0};
    count_model *m = count_model_load(path, mo, &e);
    if (!m) {
        cli_error("%s: %s", c->cmd, e.msg);
        return NULL;
    }
    const char *berr = count_model_baseline_error(m);
    if (berr && framing && !c->quiet)
        cli_error("%s: warning: the message framing does not render (%s): messages are counted "
                  "with prefix_len = baseline = 0, as upstream does", c->cmd, berr);
    return m;
}

int cli_workers(int asked)
{
    return asked < 0 || asked > os_cpus() ? os_cpus() : asked;
}

/* Tries the Hugging Face cache for a model name; on failure appends what
 * it looked at to why (after `lead`). */
static bool find_in_hf_cache(const char *arg, char *out, size_t cap, char *why, size_t whycap,
                             size_t used, const char *lead)
{
    err e = {0};
    if (hfcache_find(arg, out, (iz)cap, &e))
        return true;
    if (used < whycap)
        snprintf(why + used, whycap - used, "%s%s", lead, e.msg);
    return false;
}

bool cli_find_tokenizer(const char *arg, char *out, size_t cap, char *why, size_t whycap)
{
    if (os_is_dir(arg) || os_is_file(arg)) {
        snprintf(out, cap, "%s", arg);
        return true;
    }
    if (strchr(arg, '/')) {
        /* ORG/NAME that is not a path: a Hugging Face model name. */
        if (hfcache_is_model_id(arg)) {
            size_t used = (size_t)snprintf(why, whycap, "--tokenizer %s: ", arg);
            return find_in_hf_cache(arg, out, cap, why, whycap, used, "no such file or folder, and ");
        }
        snprintf(why, whycap, "no such file or folder: %s", arg);
        return false;
    }
    char places[3][2048];
    int np = 0;
    const char *env = getenv("TALLY_ASSETS");
    if (env && *env)
        snprintf(places[np++], sizeof(places[0]), "%s", env);
    char dir[1024];
    if (exe_dir(dir, sizeof(dir)))   /* build/release/tally -> assets/ */
        snprintf(places[np++], sizeof(places[0]), "%s/../../assets", dir);
    snprintf(places[np++], sizeof(places[0]), "assets");
    size_t used = (size_t)snprintf(why, whycap, "tokenizer \"%s\" not found; looked in:", arg);
    for (int k = 0; k < np; k++) {
        char cand[8192];
        snprintf(cand, sizeof(cand), "%s/%s/tokenizer.json", places[k], arg);
        if (os_is_file(cand) && strlen(places[k]) + strlen(arg) + 2 <= cap) {
            memcpy(out, places[k], strlen(places[k]));
            out[strlen(places[k])] = '/';
            strcpy(out + strlen(places[k]) + 1, arg);
            return true;
        }
        if (used < whycap)
            used += (size_t)snprintf(why + used, whycap - used, " %s/%s", places[k], arg);
    }
    if (used < whycap)
        used += (size_t)snprintf(why + used, whycap - used, " (run scripts/fetch-assets.sh, or give a path)");
    /* A bare model name (gpt2) may be in the Hugging Face cache too. */
    if (hfcache_is_model_id(arg))
        return find_in_hf_cache(arg, out, cap, why, whycap, used, "; ");
    return false;
}

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d. */
static i64 days_from_civil(i64 y, i64 m, i64 d)
{
    y -= m <= 2;
    i64 era = (y >= 0 ? y : y - 399) / 400;
    i64 yoe = y - era * 400;
    i64 doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    i64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

bool cli_parse_now(const char *cmd, const char *s, i64 *out)
{
    if (cli_parse_time(s, out))
        return true;
    cli_error("%s: --now needs a time as YYYY-MM-DD[THH:MM[:SS]], not \"%s\"", cmd, s);
    return false;
}


bool cli_parse_time(const char *s, i64 *out)
{
    int y, mo, d, h = 0, mi = 0, sec = 0;
    size_t n = strlen(s);
    if (n < 10 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-'
        || !digits(s + 8, 2, &d))
        return false;
    if (n > 10) {
        if ((s[10] != 'T' && s[10] != ' ') || n < 16 || !digits(s + 11, 2, &h) || s[13] != ':'
            || !digits(s + 14, 2, &mi))
            return false;
        if (n > 16 && (n != 19 || s[16] != ':' || !digits(s + 17, 2, &sec)))
            return false;
    }
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap)
        || h > 23 || mi > 59 || sec > 59)
        return false;
    *out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    return true;
}

i64 cli_local_now(void)
{
    time_t t = time(NULL);
    struct tm tm;
    if (!localtime_r(&t, &tm))
        return (i64)t;
    return (i64)t + (i64)tm.tm_gmtoff;
}

void cli_common_init(cli_common *c, const char *cmd)
{
    *c = (cli_common){.cmd = cmd, .tokenizer = TALLY_DEFAULT_TOKENIZER, .max_line = LINES_MAX_DEFAULT,
                      .progress_s = 30};
}

bool cli_parse_seconds(const char *cmd, const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0) || v > 1e9) {
        cli_error("%s: --%s needs a number of seconds (0 or more), not \"%s\"", cmd, opt, s);
        return false;
    }
    *out = v;
    return true;
}

bool cli_common_opt(cli_common *c, int opt, const char *arg, bool *usage)
{
    switch (opt) {
    case 't': c->tokenizer = arg; return true;
    case 'o': c->output = arg; return true;
    case 'q': c->quiet = true; return true;
    case CLI_OPT_SUMMARY: c->quiet = false; return true;
    case CLI_OPT_PROGRESS:
        if (!cli_parse_seconds(c->cmd, "progress-interval", arg, &c->progress_s))
            *usage = true;
        return true;
    case CLI_OPT_MAX_LINE: {
        char *end;
        long long v = strtoll(arg, &end, 10);
        if (end == arg || *end || v < 1) {
            cli_error("%s: --max-line needs a positive number of bytes, not \"%s\"", c->cmd, arg);
            *usage = true;
        } else {
            c->max_line = (iz)v;
        }
        return true;
    }
    }
    return false;
}

int cli_bad_option(const char *cmd, int opt, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    if (opt == ':')
        cli_error("%s: %s needs a value; see tally %s --help", cmd, arg, cmd);
    else if (optopt && !(arg[0] == '-' && arg[1] == '-'))
        cli_error("%s: unknown option -%c; see tally %s --help", cmd, optopt, cmd);
    else
        cli_error("%s: unknown option %s; see tally %s --help", cmd, arg, cmd);
    return CLI_USAGE;
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

volatile sig_atomic_t *cli_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    /* no SA_RESTART: a blocking read or poll returns, and the job looks */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return &stop_signal;
}

static void print_progress(void *ctx, const io_stats *s)
{
    const cli_common *c = ctx;
    char line[512];
    io_progress_format(c->cmd, s, line, sizeof line);
    cli_error("%s", line);
}

static void print_warning(void *ctx, const char *msg)
{
    (void)ctx;
    cli_error("%s", msg);
}

void cli_io_opts(io_opts *o, cli_common *c, int argc, char **argv, int first)
{
    *o = (io_opts){
        .inputs = (const char *const *)(argv + first),
        .ninputs = argc - first,
        .output = c->output,
        .max_line = c->max_line,
        .progress_s = c->quiet ? 0 : c->progress_s,
        .stop = cli_signals(),
        .progress = print_progress,
        .warn = c->quiet ? NULL : print_warning,
        .cb_ctx = c,
    };
}

int cli_finish(const cli_common *c, int rc, const err *e, const io_stats *st, double load_s)
{
    if (rc != ERR_OK && rc != ERR_STOPPED)
        cli_error("%s: %s", c->cmd, e->msg);
    if (rc == ERR_STOPPED)
        cli_error("%s: stopped by %s after %lld lines", c->cmd, stop_signal == SIGTERM ? "SIGTERM" : "SIGINT",
                  (long long)st->lines);
    /* a job that failed gets its error, not a summary that looks like success */
    if (!c->quiet && (rc == ERR_OK || rc == ERR_STOPPED)) {
        char line[2048];
        io_summary_format(c->cmd, st, line, sizeof line);
        for (char *p = line, *nl; p && *p; p = nl ? nl + 1 : NULL) {
            nl = strchr(p, '\n');
            if (nl)
                *nl = 0;
            if (p == line && load_s >= 0)
                cli_error("%s, load %.3f s", p, load_s);
            else
                cli_error("%s", p);
        }
    }
    if (rc == ERR_STOPPED)
        return 128 + (stop_signal ? (int)stop_signal : SIGINT);
    if (rc != ERR_OK)
        return CLI_FATAL;
    if (st->pending)
        return CLI_PENDING;
    if (st->errors)
        return CLI_ERRORS;
    return CLI_OK;
}
