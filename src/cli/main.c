/* main.c - the tally command: subcommand dispatch and the help text. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "../base/os.h"

static const char usage[] =
    "usage: tally <command> [options]\n"
    "\n"
    "Counts LLM tokens exactly as the model's Hugging Face tokenizer does.\n"
    "\n"
    "commands:\n"
    "  tokenize   count (and list) the tokens of JSON-lines texts on stdin\n"
    "  render     render the chat template over JSON-lines prompts on stdin\n"
    "  help       this text; `tally <command> --help` for a command's options\n"
    "  version    print the version\n"
    "\n"
    "Tokenizers: --tokenizer takes a folder holding tokenizer.json, a path to a\n"
    "tokenizer.json, or a short name (qwen3, llama3_1, llama3, llama2,\n"
    "deepseek_v3, gemma3, gpt4o, gptoss, claude) of the assets fetched by\n"
    "scripts/fetch-assets.sh. The default is " TALLY_DEFAULT_TOKENIZER ".\n";

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

bool cli_find_tokenizer(const char *arg, char *out, size_t cap, char *why, size_t whycap)
{
    if (os_is_dir(arg) || os_is_file(arg)) {
        snprintf(out, cap, "%s", arg);
        return true;
    }
    if (strchr(arg, '/')) {
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
        snprintf(why + used, whycap - used, " (run scripts/fetch-assets.sh, or give a path)");
    return false;
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
    cli_error("unknown command \"%s\" (try: tally help)", cmd);
    return 2;
}
