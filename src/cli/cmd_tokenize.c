/* cmd_tokenize.c - `tally tokenize`: JSON lines in, one result line out per
 * line in, same order. A bad line is an error for that line only. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "../base/arena.h"
#include "../base/os.h"
#include "../json/json.h"

static const char help[] =
    "usage: tally tokenize [--tokenizer T] [--ids] [--summary]\n"
    "\n"
    "Reads JSON lines on stdin, each {\"text\": \"...\"} (an \"id\" field is echoed,\n"
    "other fields are ignored), and writes one JSON line per input line, in order:\n"
    "  {\"n\": N}                  the number of tokens (add_special_tokens=false)\n"
    "  {\"n\": N, \"ids\": [...]}    with --ids\n"
    "  {\"error\": \"...\"}          when that line cannot be counted\n"
    "\n"
    "options:\n"
    "  -t, --tokenizer T   folder with tokenizer.json, a tokenizer.json path, or a\n"
    "                      short name of the fetched assets (default " TALLY_DEFAULT_TOKENIZER ")\n"
    "      --ids           also print the token ids\n"
    "      --summary       print items, errors, tokens, time and speed to stderr\n"
    "      --max-line N    longest input line in bytes (default 1 GiB); a longer line\n"
    "                      is an error for that line\n"
    "  -h, --help          this text\n";

static void write_id(buf *o, const json *id)
{
    if (!id)
        return;
    buf_cstr(o, "\"id\":");
    json_write(o, id);
    buf_byte(o, ',');
}

static void write_error(buf *o, const json *id, const char *msg)
{
    buf_byte(o, '{');
    write_id(o, id);
    buf_cstr(o, "\"error\":");
    json_write_str(o, str_cstr(msg));
    buf_cstr(o, "}\n");
}

int cmd_tokenize(int argc, char **argv)
{
    const char *tok_arg = TALLY_DEFAULT_TOKENIZER;
    bool want_ids = false, summary = false;
    iz max_line = CLI_MAX_LINE;
    static const struct option opts[] = {
        {"tokenizer", required_argument, 0, 't'},
        {"ids", no_argument, 0, 'i'},
        {"summary", no_argument, 0, 's'},
        {"max-line", required_argument, 0, 'm'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
        switch (c) {
        case 't': tok_arg = optarg; break;
        case 'i': want_ids = true; break;
        case 's': summary = true; break;
        case 'm':
            if (!cli_parse_max_line("tokenize", optarg, &max_line))
                return 2;
            break;
        case 'h': fputs(help, stdout); return 0;
        default: fputs(help, stderr); return 2;
        }
    }
    if (optind < argc) {
        cli_error("tokenize: unexpected argument \"%s\"", argv[optind]);
        return 2;
    }
    char path[4096], why[8192];
    if (!cli_find_tokenizer(tok_arg, path, sizeof(path), why, sizeof(why))) {
        cli_error("tokenize: %s", why);
        return 1;
    }
    err e = {0};
    double t0 = os_now();
    tok *t = tok_load(path, &e);
    if (!t) {
        cli_error("tokenize: %s", e.msg);
        return 1;
    }
    double t_load = os_now() - t0;
    tok_work *w = tok_work_new(t);
    if (!w) {
        cli_error("tokenize: out of memory");
        tok_free(t);
        return 1;
    }
    arena a;
    arena_init(&a, 0);
    arena_mark base = arena_reserve(&a, 1 << 20);
    buf o = {0};
    lines in;
    if (!lines_init(&in, 0, max_line)) {
        cli_error("tokenize: out of memory");
        return 1;
    }
    str line;
    int lr;
    i64 items = 0, errors = 0, tokens = 0, bytes = 0;
    t0 = os_now();
    while ((lr = lines_next(&in, &line)) != LINES_END) {
        arena_restore(&a, base);
        items++;
        if (lr == LINES_TOO_LONG) {
            char msg[128];
            snprintf(msg, sizeof(msg), "line %lld: longer than %td bytes", (long long)items, max_line);
            errors++;
            write_error(&o, NULL, msg);
            continue;
        }
        err je = {0};
        json *v = json_parse(&a, line, NULL, &je);
        const json *id = v ? json_get(v, S("id")) : NULL;
        const json *text = v ? json_get(v, S("text")) : NULL;
        char msg[ERR_MSG_MAX + 64];
        if (!v) {
            snprintf(msg, sizeof(msg), "line %lld: invalid JSON: %s at byte %td", (long long)items, je.msg, je.off);
        } else if (v->type != JSON_OBJ) {
            snprintf(msg, sizeof(msg), "line %lld: expected a JSON object", (long long)items);
        } else if (!text || text->type != JSON_STR) {
            snprintf(msg, sizeof(msg), "line %lld: expected a string field \"text\"", (long long)items);
        } else {
            const u32 *ids;
            iz n;
            int rc = tok_encode(t, w, text->u.s, &ids, &n, &e);
            if (!rc) {
                tokens += n;
                bytes += text->u.s.len;
                buf_byte(&o, '{');
                write_id(&o, id);
                buf_cstr(&o, "\"n\":");
                buf_i64(&o, n);
                if (want_ids) {
                    buf_cstr(&o, ",\"ids\":[");
                    for (iz k = 0; k < n; k++) {
                        if (k)
                            buf_byte(&o, ',');
                        buf_u64(&o, ids[k]);
                    }
                    buf_byte(&o, ']');
                }
                buf_cstr(&o, "}\n");
                goto flush;
            }
            snprintf(msg, sizeof(msg), "line %lld: %s", (long long)items, e.msg);
        }
        errors++;
        write_error(&o, id, msg);
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
        fprintf(stderr, "tally: tokenize: %lld items, %lld errors, %lld tokens, %.1f MB in %.3f s (%.1f MB/s), load %.3f s\n",
                (long long)items, (long long)errors, (long long)tokens, (double)bytes / 1e6, dt,
                dt > 0 ? (double)bytes / 1e6 / dt : 0.0, t_load);
    if (in.failed)
        cli_error("tokenize: reading stdin failed");
    lines_fini(&in);
    buf_free(&o);
    arena_fini(&a);
    tok_work_free(w);
    tok_free(t);
    return ferror(stdout) ? 1 : 0;
}
