/* cmd_tokenize.c - `tally tokenize`: options, the tokenizer, then the job
 * (io_tokenize_lines). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "../base/os.h"

static const char help[] =
    "usage: tally tokenize [--tokenizer T] [--ids] [-o FILE] [-q] [FILE...]\n"
    "\n"
    "Reads JSON lines, each {\"text\": \"...\"} (an \"id\" field is echoed, other\n"
    "fields are ignored), and writes one JSON line per input line, in order:\n"
    "  {\"id\": ..., \"n\": N}                  the number of tokens (add_special_tokens=false)\n"
    "  {\"id\": ..., \"n\": N, \"ids\": [...]}    with --ids\n"
    "  {\"id\": ..., \"error\": \"line L: ...\"}  when that line cannot be counted\n"
    "A summary goes to stderr at the end.\n"
    "\n"
    "options:\n"
    "      --ids              also print the token ids\n";

int cmd_tokenize(int argc, char **argv)
{
    cli_common cc;
    cli_common_init(&cc, "tokenize");
    io_tokenize_opts o = {0};
    enum { OPT_IDS = CLI_OPT_FIRST_OWN };
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        {"ids", no_argument, 0, OPT_IDS},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int c;
    bool usage = false;
    while ((c = getopt_long(argc, argv, ":" CLI_COMMON_SHORT, opts, NULL)) != -1) {
        if (cli_common_opt(&cc, c, optarg, &usage))
            continue;
        switch (c) {
        case OPT_IDS: o.want_ids = true; break;
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
    char path[4096], why[8192];
    if (!cli_find_tokenizer(cc.tokenizer, path, sizeof(path), why, sizeof(why))) {
        cli_error("tokenize: %s", why);
        return CLI_FATAL;
    }
    err e = {0};
    double t0 = os_now();
    tok *t = tok_load(path, &e);
    if (!t) {
        cli_error("tokenize: %s", e.msg);
        return CLI_FATAL;
    }
    double load_s = os_now() - t0;
    cli_io_opts(&o.io, &cc, argc, argv, optind);
    io_stats st;
    int rc = io_tokenize_lines(t, &o, &st, &e);
    tok_free(t);
    return cli_finish(&cc, rc, &e, &st, load_s);
}
