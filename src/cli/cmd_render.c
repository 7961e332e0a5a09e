/* cmd_render.c - `tally render`: options, the chat template, then the job
 * (io_render_lines). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "../base/arena.h"
#include "../base/os.h"

static const char help[] =
    "usage: tally render [--tokenizer T] [--chat-template FILE] [--now ISO]\n"
    "                    [--render-timeout S] [-o FILE] [-q] [FILE...]\n"
    "\n"
    "Renders the tokenizer's chat template over prompts, as Hugging Face\n"
    "transformers' apply_chat_template(tokenize=False) does. Reads JSON lines,\n"
    "each a prompt object:\n"
    "  {\"id\": ..., \"messages\": [...], \"tools\": [...] | null, \"documents\": [...] | null,\n"
    "   \"add_generation_prompt\": true | false, \"chat_template_kwargs\": {...} | null,\n"
    "   \"chat_template\": NAME-OR-SOURCE}\n"
    "Only \"messages\" is required; \"add_generation_prompt\" defaults to true; other\n"
    "fields are ignored. The template sees messages, tools, documents,\n"
    "add_generation_prompt, the tokenizer's special tokens (bos_token, eos_token, ...,\n"
    "additional_special_tokens) and the chat_template_kwargs on top of them (kwargs\n"
    "named documents, add_generation_prompt or chat_template replace those fields;\n"
    "continue_final_message=true is not supported; apply_chat_template's other\n"
    "parameters are dropped). Writes one JSON line per input line, in order:\n"
    "  {\"id\": ..., \"rendered\": \"...\"}\n"
    "  {\"id\": ..., \"error\": \"<message>\", \"error_type\": \"<Python class>\"}\n"
    "The id is echoed only when the input has one. error_type is the exception\n"
    "Jinja2 raises there (UndefinedError, TypeError, TemplateError from\n"
    "raise_exception, ...), with its message; a line that is not a valid prompt\n"
    "(invalid JSON, too long) or that reaches one of tally's own limits (2 GiB of\n"
    "memory, the time budget) or unsupported features has an \"error\" (\"line L:\n"
    "...\") without error_type. A summary goes to stderr at the end.\n"
    "\n"
    "options:\n"
    "  -c, --chat-template F  render with the Jinja file F instead of the tokenizer's\n"
    "                         template (its special tokens are still passed)\n"
    "      --now ISO          the clock strftime_now reads, as YYYY-MM-DD[THH:MM[:SS]]\n"
    "                         (e.g. 2025-01-15T12:00:00; no offset); default: the\n"
    "                         local time now, as Python's datetime.now()\n"
    "      --render-timeout S the time budget of one render in seconds (default 5):\n"
    "                         a render that runs longer is an error for its line\n";

int cmd_render(int argc, char **argv)
{
    cli_common cc;
    cli_common_init(&cc, "render");
    const char *tmpl_file = NULL;
    io_render_opts o = {.now = cli_local_now()};   /* --now replaces it */
    enum { OPT_NOW = CLI_OPT_FIRST_OWN, OPT_RENDER_TIMEOUT };
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        {"chat-template", required_argument, 0, 'c'},
        {"now", required_argument, 0, OPT_NOW},
        {"render-timeout", required_argument, 0, OPT_RENDER_TIMEOUT},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int c;
    bool usage = false;
    while ((c = getopt_long(argc, argv, ":" CLI_COMMON_SHORT "c:", opts, NULL)) != -1) {
        if (cli_common_opt(&cc, c, optarg, &usage))
            continue;
        switch (c) {
        case 'c': tmpl_file = optarg; break;
        case OPT_NOW:
            if (!cli_parse_now("render", optarg, &o.now))
                usage = true;
            break;
        case OPT_RENDER_TIMEOUT:
            if (!cli_parse_seconds("render", "render-timeout", optarg, &o.render_budget_s))
                usage = true;
            break;
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
        cli_error("render: %s", why);
        return CLI_FATAL;
    }
    arena perm;
    arena_init(&perm, 0);
    err e = {0};
    double t0 = os_now();
    chat_tmpl *ct = chat_tmpl_load(&perm, path, tmpl_file, &e);
    if (!ct) {
        cli_error("render: %s", e.msg);
        arena_fini(&perm);
        return CLI_FATAL;
    }
    double load_s = os_now() - t0;
    if (!cc.quiet) {
        /* Jinja would fail on every prompt; say so once up front as well. */
        if (chat_tmpl_count(ct) == 0)
            cli_error("render: warning: %s has no chat template (only prompts with their own "
                      "\"chat_template\" render)", path);
        for (i32 k = 0; k < chat_tmpl_count(ct); k++) {
            const err *ce = chat_tmpl_compile_error(ct, k);
            if (ce) {
                str name = chat_tmpl_name(ct, k);
                cli_error("render: warning: chat template%s%.*s does not compile: line %d: %s",
                          name.len ? " " : "", (int)name.len, (const char *)name.s, (int)ce->line, ce->msg);
            }
        }
    }
    cli_io_opts(&o.io, &cc, argc, argv, optind);
    io_stats st;
    int rc = io_render_lines(ct, &o, &st, &e);
    arena_fini(&perm);
    return cli_finish(&cc, rc, &e, &st, load_s);
}
