/* main.c - the tally command: subcommand dispatch and the help text. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include "cli.h"
#include "../base/os.h"
#include "../chat/hfcache.h"

static const char usage[] =
    "usage: tally <command> [options]\n"
    "\n"
    "Counts LLM tokens exactly as the model's Hugging Face tokenizer does.\n"
    "\n"
    "commands:\n"
    "  tokenize   count (and list) the tokens of JSON-lines texts on stdin\n"
    "  render     render the chat template over JSON-lines prompts on stdin\n"
    "  count      count prompts, outputs, texts or token ids as upstream's\n"
    "             aggregator does (JSON lines or an events.jsonl on stdin)\n"
    "  help       this text; `tally <command> --help` for a command's options\n"
    "  version    print the version\n"
    "\n"
    "Tokenizers: --tokenizer takes a folder holding tokenizer.json, a path to a\n"
    "tokenizer.json, a short name (qwen3, llama3_1, llama3, llama2,\n"
    "deepseek_v3, gemma3, gpt4o, gptoss, claude) of the assets fetched by\n"
    "scripts/fetch-assets.sh, or a Hugging Face model name (Qwen/Qwen3-8B) found\n"
    "offline in the local Hugging Face cache ($HF_HUB_CACHE, else $HF_HOME/hub,\n"
    "else ~/.cache/huggingface/hub: models--ORG--NAME/refs/main names the\n"
    "snapshot). The default is " TALLY_DEFAULT_TOKENIZER ".\n";

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

bool cli_parse_max_line(const char *cmd, const char *s, iz *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end || v < 1 || end == s) {
        cli_error("%s: --max-line needs a positive number of bytes, not \"%s\"", cmd, s);
        return false;
    }
    *out = (iz)v;
    return true;
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        puts("tally " TALLY_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "tokenize"))
        return cmd_tokenize(argc - 1, argv + 1);
    if (!strcmp(cmd, "render"))
        return cmd_render(argc - 1, argv + 1);
    if (!strcmp(cmd, "count"))
        return cmd_count(argc - 1, argv + 1);
    cli_error("unknown command \"%s\" (try: tally help)", cmd);
    return 2;
}
