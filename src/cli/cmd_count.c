/* cmd_count.c - `tally count`: JSON lines in (the oracle's input objects,
 * upstream's PromptData / TextModelOutput payloads or whole events.jsonl
 * lines), one count line out per line in, same order, as upstream's
 * aggregator counts them (chat/count.h, chat/shapes.h). A bad line is an
 * error for that line only; a summary goes to stderr at the end. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "../base/arena.h"
#include "../base/os.h"
#include "../chat/count.h"
#include "../chat/shapes.h"
#include "../json/json.h"

/* In two parts: C11 promises string literals of 4095 bytes only. */
static const char help[] =
    "usage: tally count [--tokenizer T] [--kind auto|ids|text|message|prompt]\n"
    "                   [--chat-template FILE] [--now ISO] [--max-line N] [--quiet]\n"
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
    "Reads JSON lines on stdin, each one of:\n"
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
    "  {\"id\": ..., \"kind\": K, \"n\": N, \"fallback\": \"TypeError\"}\n"
    "                              the template failed: N is upstream's fallback count\n"
    "  {\"id\": ..., \"skipped\": \"why\"}                 upstream counts nothing here\n"
    "  {\"id\": ..., \"error\": \"line L: why\"}            the line cannot be counted\n"
    "The id is the line's \"id\" field, else an event's \"sample_uuid\"; it is left\n"
    "out when there is neither. At the end one summary line goes to stderr: items,\n"
    "counted by kind, tokens, skipped, errors, fallbacks by class, time. The first\n"
    "fallback of each class is also reported on stderr with the template's error.\n"
    "\n"
    "options:\n"
    "  -t, --tokenizer T      folder with tokenizer.json and tokenizer_config.json, a\n"
    "                         tokenizer.json path, a short name of the fetched assets\n"
    "                         or a Hugging Face model name (ORG/NAME) in the local\n"
    "                         Hugging Face cache (default " TALLY_DEFAULT_TOKENIZER ")\n"
    "  -k, --kind K           auto (default), ids, text, message or prompt\n"
    "  -c, --chat-template F  render with the Jinja file F instead of the tokenizer's\n"
    "                         template (also for the message framing)\n"
    "      --now ISO          the clock strftime_now reads, as YYYY-MM-DD[THH:MM[:SS]];\n"
    "                         default: the local time now, as Python's datetime.now()\n"
    "      --max-line N       longest input line in bytes (default 1 GiB); a longer line\n"
    "                         is an error for that line\n"
    "  -q, --quiet            no summary and no fallback warnings on stderr\n"
    "  -h, --help             this text\n";

enum { MAX_CLASSES = 16, CLASS_LEN = 64 };

/* Fallbacks by Python class, in the order first seen. */
typedef struct {
    char name[MAX_CLASSES][CLASS_LEN];
    i64  n[MAX_CLASSES];
    int  count;
    i64  other;     /* classes past MAX_CLASSES */
} classes;

/* Adds one fallback of class `name`; true when it is the first of it. */
static bool classes_add(classes *c, const char *name)
{
    for (int k = 0; k < c->count; k++)
        if (!strcmp(c->name[k], name)) {
            c->n[k]++;
            return false;
        }
    if (c->count == MAX_CLASSES) {
        c->other++;
        return false;
    }
    snprintf(c->name[c->count], CLASS_LEN, "%s", name);
    c->n[c->count++] = 1;
    return true;
}

static void write_id(buf *o, const json *id)
{
    if (!id)
        return;
    buf_cstr(o, "\"id\":");
    json_write(o, id);
    buf_byte(o, ',');
}

static void write_msg(buf *o, const json *id, const char *field, const char *msg)
{
    buf_byte(o, '{');
    write_id(o, id);
    buf_byte(o, '"');
    buf_cstr(o, field);
    buf_cstr(o, "\":");
    json_write_str(o, str_cstr(msg));
    buf_cstr(o, "}\n");
}

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
    const char *tok_arg = TALLY_DEFAULT_TOKENIZER;
    count_model_opts mo = {0};
    int want = SHAPES_AUTO;
    bool quiet = false, have_now = false;
    iz max_line = CLI_MAX_LINE;
    static const struct option opts[] = {
        {"tokenizer", required_argument, 0, 't'},
        {"kind", required_argument, 0, 'k'},
        {"chat-template", required_argument, 0, 'c'},
        {"now", required_argument, 0, 'n'},
        {"max-line", required_argument, 0, 'm'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "t:k:c:qh", opts, NULL)) != -1) {
        switch (c) {
        case 't': tok_arg = optarg; break;
        case 'c': mo.chat_template_file = optarg; break;
        case 'k':
            if (!parse_kind(optarg, &want)) {
                cli_error("count: --kind is auto, ids, text, message or prompt, not \"%s\"", optarg);
                return 2;
            }
            break;
        case 'n':
            if (!cli_parse_time(optarg, &mo.now)) {
                cli_error("count: --now needs a time as YYYY-MM-DD[THH:MM[:SS]], not \"%s\"", optarg);
                return 2;
            }
            have_now = true;
            break;
        case 'm': {
            char *end;
            long long v = strtoll(optarg, &end, 10);
            if (*end || v < 1) {
                cli_error("count: --max-line needs a positive number of bytes, not \"%s\"", optarg);
                return 2;
            }
            max_line = (iz)v;
            break;
        }
        case 'q': quiet = true; break;
        case 'h': fputs(help, stdout); fputs(help2, stdout); return 0;
        default: fputs(help, stderr); fputs(help2, stderr); return 2;
        }
    }
    if (optind < argc) {
        cli_error("count: unexpected argument \"%s\"", argv[optind]);
        return 2;
    }
    if (!have_now)
        mo.now = cli_local_now();
    char path[4096], why[8192];
    if (!cli_find_tokenizer(tok_arg, path, sizeof(path), why, sizeof(why))) {
        cli_error("count: %s", why);
        return 1;
    }
    err e = {0};
    double t0 = os_now();
    count_model *m = count_model_load(path, &mo, &e);
    if (!m) {
        cli_error("count: %s", e.msg);
        return 1;
    }
    double t_load = os_now() - t0;
    const char *berr = count_model_baseline_error(m);
    if (berr && !quiet && (want == SHAPES_AUTO || want == COUNT_MESSAGE))
        cli_error("count: warning: the message framing does not render (%s): messages are counted "
                  "with prefix_len = baseline = 0, as upstream does", berr);
    count_work *w = count_work_new(m);
    if (!w) {
        cli_error("count: out of memory");
        count_model_free(m);
        return 1;
    }
    arena a;
    arena_init(&a, 0);
    arena_mark base = arena_reserve(&a, 1 << 20);
    buf o = {0};
    lines in;
    if (!lines_init(&in, 0, max_line)) {
        cli_error("count: out of memory");
        arena_fini(&a);
        count_work_free(w);
        count_model_free(m);
        return 1;
    }
    str line;
    int lr;
    i64 items = 0, errors = 0, skipped = 0, tokens = 0, fallbacks = 0;
    i64 by_kind[COUNT_PROMPT + 1] = {0};
    classes cls = {0};
    t0 = os_now();
    while ((lr = lines_next(&in, &line)) != LINES_END) {
        arena_restore(&a, base);
        items++;
        char msg[ERR_MSG_MAX + 64];
        const json *id = NULL;
        if (lr == LINES_TOO_LONG) {
            snprintf(msg, sizeof(msg), "line %lld: longer than %td bytes", (long long)items, max_line);
            goto error;
        }
        err je = {0};
        json *v = json_parse(&a, line, NULL, &je);
        if (!v) {
            snprintf(msg, sizeof(msg), "line %lld: invalid JSON: %s at byte %td", (long long)items, je.msg,
                     je.off);
            goto error;
        }
        shapes_item it;
        int st = shapes_input(&a, v, want, &it, &je);
        id = it.id;
        if (st == SHAPES_ERROR) {
            snprintf(msg, sizeof(msg), "line %lld: %s", (long long)items, je.msg);
            goto error;
        }
        if (st == SHAPES_SKIP) {
            skipped++;
            write_msg(&o, id, "skipped", it.skip);
            goto flush;
        }
        count_result r;
        if (count_item(w, &it.in, &r) != ERR_OK) {
            snprintf(msg, sizeof(msg), "line %lld: %s", (long long)items, r.msg);
            goto error;
        }
        tokens += r.n;
        by_kind[it.in.kind]++;
        buf_byte(&o, '{');
        write_id(&o, id);
        if (want == SHAPES_AUTO) {
            buf_cstr(&o, "\"kind\":\"");
            buf_cstr(&o, count_kind_name(it.in.kind));
            buf_cstr(&o, "\",");
        }
        buf_cstr(&o, "\"n\":");
        buf_i64(&o, r.n);
        if (r.fallback) {
            buf_cstr(&o, ",\"fallback\":");
            json_write_str(&o, str_cstr(r.fallback));
            fallbacks++;
            /* Upstream warns once per failure class; so do we. */
            if (classes_add(&cls, r.fallback) && !quiet)
                cli_error("count: warning: line %lld: the chat template failed (%s); counted upstream's "
                          "fallback instead (%s); later %s fallbacks are only counted", (long long)items,
                          r.msg, it.in.kind == COUNT_PROMPT ? "the compact JSON of the prompt"
                                                            : "the message's parts joined by newlines",
                          r.fallback);
        }
        buf_cstr(&o, "}\n");
        goto flush;
    error:
        errors++;
        write_msg(&o, id, "error", msg);
    flush:
        if (o.len >= 1 << 16 || o.failed) {
            fwrite(o.data, 1, (size_t)o.len, stdout);
            o.len = 0;
        }
    }
    fwrite(o.data, 1, (size_t)o.len, stdout);
    fflush(stdout);
    double dt = os_now() - t0;
    if (!quiet) {
        buf s = {0};
        buf_printf(&s, "tally: count: %lld items: %lld counted (", (long long)items,
                   (long long)(items - errors - skipped));
        bool first = true;
        for (int k = COUNT_IDS; k <= COUNT_PROMPT; k++) {
            if (!by_kind[k])
                continue;
            buf_printf(&s, "%s%s %lld", first ? "" : ", ", count_kind_name((count_kind)k),
                       (long long)by_kind[k]);
            first = false;
        }
        buf_printf(&s, "%s%lld tokens), %lld skipped, %lld errors, %lld fallbacks", first ? "" : "; ",
                   (long long)tokens, (long long)skipped, (long long)errors, (long long)fallbacks);
        if (fallbacks) {
            buf_cstr(&s, " (");
            for (int k = 0; k < cls.count; k++)
                buf_printf(&s, "%s%s %lld", k ? ", " : "", cls.name[k], (long long)cls.n[k]);
            if (cls.other)
                buf_printf(&s, ", other %lld", (long long)cls.other);
            buf_byte(&s, ')');
        }
        buf_printf(&s, " in %.3f s (%.0f items/s), load %.3f s\n", dt, dt > 0 ? (double)items / dt : 0.0,
                   t_load);
        fwrite(s.data, 1, (size_t)s.len, stderr);
        buf_free(&s);
    }
    if (in.failed)
        cli_error("count: reading stdin failed");
    lines_fini(&in);
    buf_free(&o);
    arena_fini(&a);
    count_work_free(w);
    count_model_free(m);
    return ferror(stdout) ? 1 : 0;
}
