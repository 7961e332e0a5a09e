/* cmd_count.c - `tally count`: options, the model, then the job
 * (io_count_lines: the queue and its drain). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "../base/os.h"
#include "../chat/shapes.h"

/* In two parts: C11 promises string literals of 4095 bytes only. */
static const char help[] =
    "usage: tally count [--tokenizer T] [--kind auto|ids|text|message|prompt]\n"
    "                   [--chat-template FILE] [--now ISO] [--shards N]\n"
    "                   [--drain-timeout S] [--render-timeout S] [-o FILE] [-q] [FILE...]\n"
    "\n"
    "Counts tokens as upstream's metrics aggregator (mlcommons/endpoints) does, one\n"
    "implementation for the four kinds:\n"
    "  ids      the number of token ids\n"
    "  text     the tokens of a text (add_special_tokens=false)\n"
    "  message  an assistant output through the chat template: [user \"\", assistant]\n"
    "           rendered without generation prompt, minus the tokens of [user \"\"] and\n"
    "           of an empty assistant turn; reasoning as reasoning_content, tool-call\n"
    "           arguments given as a JSON object string parsed into an object\n"
    "  prompt   a whole chat prompt rendered with the generation prompt forced on\n"
    "When the template fails to render, the count is upstream's fallback (the\n"
    "compact JSON of the prompt, or the message's parts joined by newlines) and\n"
    "the line says so with the Python class of the failure.\n"
    "\n"
    "Reads JSON lines, each one of:\n"
    "  {\"token_ids\": [...]}                                       ids\n"
    "  {\"text\": \"...\"}                                            text\n"
    "  {\"content\": ..., \"reasoning\": ..., \"tool_calls\": [...]}     message\n"
    "  {\"messages\": [...], \"tools\": [...], \"tool_choice\": ...,\n"
    "   \"chat_template\": NAME-OR-SOURCE, \"chat_template_kwargs\": {...}}  prompt\n"
    "  [\"PromptData\", text, token_ids, messages, tools, chat_template_kwargs,\n"
    "   chat_template, tool_choice]               upstream's prompt payload\n"
    "  [\"TextModelOutput\", output, reasoning, tool_calls]   upstream's output payload\n"
    "  {\"event_type\": ..., \"sample_uuid\": ..., \"data\": PAYLOAD, ...}  an events.jsonl line\n"
    "(missing trailing payload fields take their defaults; unknown fields are\n"
    "ignored). With --kind auto (the default) the kind follows upstream's triggers:\n"
    "a PromptData counts its token_ids if not null, else its text if not empty,\n"
    "else its messages if not null, else nothing; a TextModelOutput with reasoning\n"
    "or tool calls counts as a message (streamed chunks joined, tool-call deltas\n"
    "merged), else as the text of str(output), nothing when empty. In an\n"
    "events.jsonl only sample.issued (its PromptData) and sample.complete (its\n"
    "TextModelOutput) with a sample_uuid are counted; other lines are skipped. An\n"
    "object takes the kind of its first field among token_ids, text, messages (not\n"
    "null), else message when it has content, reasoning or tool_calls. With an\n"
    "explicit --kind the line must have what that kind needs (a TextModelOutput\n"
    "gives text as str(output) and message as its parts; the event type is not\n"
    "looked at).\n";

static const char help2[] =
    "\n"
    "Writes one JSON line per input line, in order:\n"
    "  {\"id\": ..., \"kind\": K, \"n\": N}                   counted (\"kind\" with --kind auto)\n"
    "  {\"id\": ..., \"metric\": \"isl\", \"kind\": K, \"n\": N}   an event or a payload: the metric the count\n"
    "                              is for (isl: a PromptData, osl: a TextModelOutput)\n"
    "  {\"id\": ..., \"kind\": K, \"n\": N, \"fallback\": \"TypeError\"}\n"
    "                              the template failed: N is upstream's fallback count\n"
    "  {\"id\": ..., \"skipped\": \"why\"}                 upstream counts nothing here\n"
    "  {\"id\": ..., \"error\": \"line L: why\"}            the line cannot be counted\n"
    "  {\"id\": ..., \"pending\": \"why\"}                 not counted: --drain-timeout ran out\n"
    "The id is the line's \"id\" field, else an event's \"sample_uuid\" (its JSON\n"
    "text may have up to 1023 bytes); it is left out when there is neither. At the\n"
    "end one summary line goes to stderr: lines, counted by kind, tokens, skipped,\n"
    "errors, fallbacks by class, workers (and how many died), time; and a note when\n"
    "prompts carried tools that their template never reads (see tally help). The\n"
    "first fallback of each class is also reported on stderr with the template's\n"
    "error.\n"
    "\n"
    "options:\n"
    "  -k, --kind K           auto (default), ids, text, message or prompt\n"
    "  -c, --chat-template F  render with the Jinja file F instead of the tokenizer's\n"
    "                         template (also for the message framing)\n"
    "      --now ISO          the clock strftime_now reads, as YYYY-MM-DD[THH:MM[:SS]];\n"
    "                         default: the local time now, as Python's datetime.now()\n"
    "  -s, --shards N         count on N worker processes forked once, after loading\n"
    "                         (default and most: one per CPU this process may use,\n"
    "                         as more would only wait); 0 counts in this process.\n"
    "                         Lines go to the workers in chunks of 64 (text: about\n"
    "                         1 MiB) as they are read, through memory shared with\n"
    "                         them; output keeps input order; a worker that dies is\n"
    "                         replaced and its lines retried one by one\n"
    "      --drain-timeout S  a budget in seconds for the whole run, loading included\n"
    "                         (default 0: none); when it runs out the workers are\n"
    "                         stopped at once (a line being counted in this process\n"
    "                         stops too) and the lines not counted get\n"
    "                         {\"pending\": ...}; exit status 3\n"
    "      --render-timeout S the time budget of one render in seconds (default 5): a\n"
    "                         render that runs longer is an error for its line\n";

static bool parse_kind(const char *s, int *kind)
{
    static const struct { const char *name; int kind; } kinds[] = {
        {"auto", SHAPES_AUTO}, {"ids", COUNT_IDS}, {"text", COUNT_TEXT},
        {"message", COUNT_MESSAGE}, {"prompt", COUNT_PROMPT},
    };
    for (int k = 0; k < (int)countof(kinds); k++)
        if (!strcmp(s, kinds[k].name)) {
            *kind = kinds[k].kind;
            return true;
        }
    return false;
}

int cmd_count(int argc, char **argv)
{
    cli_common cc;
    cli_common_init(&cc, "count");
    count_model_opts mo = {.now = cli_local_now()};   /* --now replaces it */
    io_count_opts o = {.want = SHAPES_AUTO, .workers = -1};   /* -1: every CPU this process may use */
    double drain_timeout = 0;
    enum { OPT_NOW = CLI_OPT_FIRST_OWN, OPT_DRAIN_TIMEOUT, OPT_RENDER_TIMEOUT };
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        {"kind", required_argument, 0, 'k'},
        {"chat-template", required_argument, 0, 'c'},
        {"now", required_argument, 0, OPT_NOW},
        {"shards", required_argument, 0, 's'},
        {"drain-timeout", required_argument, 0, OPT_DRAIN_TIMEOUT},
        {"render-timeout", required_argument, 0, OPT_RENDER_TIMEOUT},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int c;
    bool usage = false;
    while ((c = getopt_long(argc, argv, ":" CLI_COMMON_SHORT "k:c:s:", opts, NULL)) != -1) {
        if (cli_common_opt(&cc, c, optarg, &usage))
            continue;
        switch (c) {
        case 'c': mo.chat_template_file = optarg; break;
        case 'k':
            if (!parse_kind(optarg, &o.want)) {
                cli_error("count: --kind is auto, ids, text, message or prompt, not \"%s\"", optarg);
                usage = true;
            }
            break;
        case OPT_NOW:
            if (!cli_parse_now("count", optarg, &mo.now))
                usage = true;
            break;
        case OPT_DRAIN_TIMEOUT:
            if (!cli_parse_seconds("count", "drain-timeout", optarg, &drain_timeout))
                usage = true;
            break;
        case OPT_RENDER_TIMEOUT:
            if (!cli_parse_seconds("count", "render-timeout", optarg, &mo.render_budget_s))
                usage = true;
            break;
        case 's': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < 0 || v > IO_MAX_WORKERS) {
                cli_error("count: --shards needs a number of worker processes from 0 to %d, not \"%s\"",
                          IO_MAX_WORKERS, optarg);
                usage = true;
            } else {
                o.workers = (int)v;
            }
            break;
        }
        case 'h':
            fputs(help, stdout);
            fputs(help2, stdout);
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
    double t0 = os_now();
    if (drain_timeout > 0)
        o.deadline = mo.load_deadline = t0 + drain_timeout;
    count_model *m = cli_load_model(&cc, &mo, o.want == SHAPES_AUTO || o.want == COUNT_MESSAGE);
    if (!m)
        return CLI_FATAL;
    double load_s = os_now() - t0;
    err e = {0};
    o.workers = cli_workers(o.workers);
    cli_io_opts(&o.io, &cc, argc, argv, optind);
    io_stats st;
    int rc = io_count_lines(m, &o, &st, &e);
    count_model_free(m);
    return cli_finish(&cc, rc, &e, &st, load_s);
}
