/* cmd_render.c - `tally render`: prompt objects (JSON lines) in, their chat
 * template renderings out, one line per line in, same order, as
 * transformers' apply_chat_template(tokenize=False) renders them. A bad line
 * or a failing template is an error for that line only. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "../base/arena.h"
#include "../base/os.h"
#include "../chat/chat_template.h"
#include "../json/json.h"

static const char help[] =
    "usage: tally render [--tokenizer T] [--chat-template FILE] [--now ISO]\n"
    "\n"
    "Renders the tokenizer's chat template over prompts, as Hugging Face\n"
    "transformers' apply_chat_template(tokenize=False) does. Reads JSON lines on\n"
    "stdin, each a prompt object:\n"
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
    "(invalid JSON, too long) or that reaches one of tally's own limits or\n"
    "unsupported features has an \"error\" without error_type.\n"
    "\n"
    "options:\n"
    "  -t, --tokenizer T      folder with tokenizer_config.json (and maybe\n"
    "                         chat_template.jinja), a tokenizer.json path, or a short\n"
    "                         name of the fetched assets (default " TALLY_DEFAULT_TOKENIZER ")\n"
    "  -c, --chat-template F  render with the Jinja file F instead of the tokenizer's\n"
    "                         template (its special tokens are still passed)\n"
    "      --now ISO          the clock strftime_now reads, as YYYY-MM-DD[THH:MM[:SS]]\n"
    "                         (e.g. 2025-01-15T12:00:00; no offset); default: the\n"
    "                         local time now, as Python's datetime.now()\n"
    "      --max-line N       longest input line in bytes (default 1 GiB); a longer line\n"
    "                         is an error for that line\n"
    "      --summary          print items, errors, bytes and time to stderr\n"
    "  -h, --help             this text\n";

static void write_id(buf *o, const json *id)
{
    if (!id)
        return;
    buf_cstr(o, "\"id\":");
    json_write(o, id);
    buf_byte(o, ',');
}

static void write_error(buf *o, const json *id, const char *msg, const char *type)
{
    buf_byte(o, '{');
    write_id(o, id);
    buf_cstr(o, "\"error\":");
    json_write_str(o, str_cstr(msg));
    if (type) {
        buf_cstr(o, ",\"error_type\":");
        json_write_str(o, str_cstr(type));
    }
    buf_cstr(o, "}\n");
}

int cmd_render(int argc, char **argv)
{
    const char *tok_arg = TALLY_DEFAULT_TOKENIZER, *tmpl_file = NULL;
    bool summary = false;
    iz max_line = CLI_MAX_LINE;
    tmpl_render_opts ro = {.now = cli_local_now()};   /* --now replaces it */
    static const struct option opts[] = {
        {"tokenizer", required_argument, 0, 't'},
        {"chat-template", required_argument, 0, 'c'},
        {"now", required_argument, 0, 'n'},
        {"max-line", required_argument, 0, 'm'},
        {"summary", no_argument, 0, 's'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "t:c:h", opts, NULL)) != -1) {
        switch (c) {
        case 't': tok_arg = optarg; break;
        case 'c': tmpl_file = optarg; break;
        case 'n':
            if (!cli_parse_now("render", optarg, &ro.now))
                return 2;
            break;
        case 's': summary = true; break;
        case 'm':
            if (!cli_parse_max_line("render", optarg, &max_line))
                return 2;
            break;
        case 'h': fputs(help, stdout); return 0;
        default: fputs(help, stderr); return 2;
        }
    }
    if (optind < argc) {
        cli_error("render: unexpected argument \"%s\"", argv[optind]);
        return 2;
    }
    char path[4096], why[8192];
    if (!cli_find_tokenizer(tok_arg, path, sizeof(path), why, sizeof(why))) {
        cli_error("render: %s", why);
        return 1;
    }
    arena perm;
    arena_init(&perm, 0);
    err e = {0};
    chat_tmpl *ct = chat_tmpl_load(&perm, path, tmpl_file, &e);
    if (!ct) {
        cli_error("render: %s", e.msg);
        arena_fini(&perm);
        return 1;
    }
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

    arena a;
    arena_init(&a, 0);
    arena_mark base = arena_reserve(&a, 1 << 20);
    buf o = {0}, text = {0};
    lines in;
    if (!lines_init(&in, 0, max_line)) {
        cli_error("render: out of memory");
        arena_fini(&a);
        arena_fini(&perm);
        return 1;
    }
    str line;
    int lr;
    i64 items = 0, errors = 0, bytes = 0;
    double t0 = os_now();
    while ((lr = lines_next(&in, &line)) != LINES_END) {
        arena_restore(&a, base);
        items++;
        char msg[ERR_MSG_MAX + 64];
        const json *id = NULL;
        const char *type = NULL;
        if (lr == LINES_TOO_LONG) {
            snprintf(msg, sizeof(msg), "line %lld: longer than %td bytes", (long long)items, max_line);
        } else {
            err je = {0};
            json *v = json_parse(&a, line, NULL, &je);
            id = v ? json_get(v, S("id")) : NULL;
            if (!v) {
                snprintf(msg, sizeof(msg), "line %lld: invalid JSON: %s at byte %td", (long long)items, je.msg,
                         je.off);
            } else if (v->type != JSON_OBJ) {
                snprintf(msg, sizeof(msg), "line %lld: expected a JSON object", (long long)items);
            } else {
                text.len = 0;
                text.failed = false;
                tmpl_error te;
                int rc = chat_render_prompt(ct, v, &ro, &a, &text, &te);
                if (rc == ERR_OK && !text.failed) {
                    buf_byte(&o, '{');
                    write_id(&o, id);
                    buf_cstr(&o, "\"rendered\":");
                    json_write_str(&o, buf_view(&text));
                    buf_cstr(&o, "}\n");
                    bytes += text.len;
                    goto flush;
                }
                if (rc == ERR_OK)
                    snprintf(msg, sizeof(msg), "out of memory");
                else if (te.exc)
                    snprintf(msg, sizeof(msg), "%s", te.msg), type = te.exc;
                else
                    snprintf(msg, sizeof(msg), "%s: %s", err_code_name(te.code), te.msg);
            }
        }
        errors++;
        write_error(&o, id, msg, type);
    flush:
        if (o.len >= 1 << 16 || o.failed) {
            fwrite(o.data, 1, (size_t)o.len, stdout);
            o.len = 0;
        }
    }
    fwrite(o.data, 1, (size_t)o.len, stdout);
    fflush(stdout);
    double dt = os_now() - t0;
    if (summary)
        fprintf(stderr, "tally: render: %lld items, %lld errors, %.1f MB rendered in %.3f s (%.0f renders/s)\n",
                (long long)items, (long long)errors, (double)bytes / 1e6, dt,
                dt > 0 ? (double)items / dt : 0.0);
    if (in.failed)
        cli_error("render: reading stdin failed");
    lines_fini(&in);
    buf_free(&o);
    buf_free(&text);
    arena_fini(&a);
    arena_fini(&perm);
    return ferror(stdout) ? 1 : 0;
}
