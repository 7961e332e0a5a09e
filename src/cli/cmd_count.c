/* cmd_count.c - `tally count`: JSON lines in (the oracle's input objects,
 * upstream's PromptData / TextModelOutput payloads or whole events.jsonl
 * lines), one count line out per line in, same order, as upstream's
 * aggregator counts them (chat/count.h, chat/shapes.h). A bad line is an
 * error for that line only; a summary goes to stderr at the end. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "../base/arena.h"
#include "../base/os.h"
#include "../chat/count.h"
#include "../chat/shapes.h"
#include "../drain/pool.h"
#include "../json/json.h"

/* In two parts: C11 promises string literals of 4095 bytes only. */
static const char help[] =
    "usage: tally count [--tokenizer T] [--kind auto|ids|text|message|prompt]\n"
    "                   [--chat-template FILE] [--now ISO] [--shards N] [--max-line N]\n"
    "                   [--drain-timeout S] [--progress-interval S] [--quiet]\n"
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
    "  {\"id\": ..., \"pending\": \"why\"}                 not counted: --drain-timeout ran out\n"
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
    "  -s, --shards N         count on N worker processes forked after loading (default:\n"
    "                         one per CPU this process may use); 0 counts in this\n"
    "                         process. Lines go to the workers in batches (8192 lines\n"
    "                         or 64 MiB), in chunks of 64 (text: about 1 MiB); output\n"
    "                         keeps input order; a worker that dies is replaced and\n"
    "                         its lines retried one by one; progress every 30 s on\n"
    "                         stderr\n"
    "      --drain-timeout S  a budget in seconds for the whole run (default 0: none);\n"
    "                         when it runs out the workers are stopped at once and the\n"
    "                         lines not counted get {\"pending\": ...}; exit status 3\n"
    "      --progress-interval S  a progress line on stderr every S seconds (default\n"
    "                         30; 0: none): lines done, errors, fallbacks, lines/s and,\n"
    "                         when stdin is a file, the share done and an ETA\n"
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

/* One line's outcome: the output line, and what the summary needs. */
enum { OUT_COUNTED = 0, OUT_SKIPPED, OUT_ERROR, OUT_PENDING };

typedef struct outcome {
    int   state;
    int   kind;                 /* count_kind when counted */
    i64   n;
    char  fallback[CLASS_LEN];  /* the failure's class when a fallback was counted */
    char  fb_msg[ERR_MSG_MAX];  /* ... and the template's error */
    buf   line;                 /* the output line, with its newline */
} outcome;

/* The state of one run of the command. */
typedef struct counter {
    count_model *m;
    count_work  *w;             /* in this process (serial mode, worker side) */
    int          want;
    bool         quiet;
    arena        a;             /* per line */
    i64          items, errors, skipped, tokens, fallbacks, pending;
    double       deadline;      /* os_now() when the drain budget runs out; 0: none */
    double       progress_s;    /* progress lines every this many seconds; 0: none */
    i64          by_kind[COUNT_PROMPT + 1];
    classes      cls;
    double       t0;
    double       next_progress; /* os_now() of the next progress line */
    i64          bytes_done;    /* input bytes of the lines accounted */
    i64          in_size;       /* bytes stdin will give when it is a file; 0: unknown */
} counter;

/* Counts one input line (line number `lineno`, 1-based) into `o`. */
static void process_line(counter *cn, str line, i64 lineno, bool too_long, iz max_line, outcome *o)
{
    char msg[ERR_MSG_MAX + 64];
    const json *id = NULL;
    o->state = OUT_ERROR;
    o->fallback[0] = 0;
    o->line.len = 0;
    if (too_long) {
        snprintf(msg, sizeof(msg), "line %lld: longer than %td bytes", (long long)lineno, max_line);
        goto error;
    }
    err je = {0};
    json *v = json_parse(&cn->a, line, NULL, &je);
    if (!v) {
        snprintf(msg, sizeof(msg), "line %lld: invalid JSON: %s at byte %td", (long long)lineno, je.msg,
                 je.off);
        goto error;
    }
    shapes_item it;
    int st = shapes_input(&cn->a, v, cn->want, &it, &je);
    id = it.id;
    if (st == SHAPES_ERROR) {
        snprintf(msg, sizeof(msg), "line %lld: %s", (long long)lineno, je.msg);
        goto error;
    }
    if (st == SHAPES_SKIP) {
        o->state = OUT_SKIPPED;
        write_msg(&o->line, id, "skipped", it.skip);
        return;
    }
    count_result r;
    if (count_item(cn->w, &it.in, &r) != ERR_OK) {
        snprintf(msg, sizeof(msg), "line %lld: %s", (long long)lineno, r.msg);
        goto error;
    }
    o->state = OUT_COUNTED;
    o->kind = it.in.kind;
    o->n = r.n;
    buf *b = &o->line;
    buf_byte(b, '{');
    write_id(b, id);
    if (cn->want == SHAPES_AUTO) {
        buf_cstr(b, "\"kind\":\"");
        buf_cstr(b, count_kind_name(it.in.kind));
        buf_cstr(b, "\",");
    }
    buf_cstr(b, "\"n\":");
    buf_i64(b, r.n);
    if (r.fallback) {
        buf_cstr(b, ",\"fallback\":");
        json_write_str(b, str_cstr(r.fallback));
        snprintf(o->fallback, sizeof o->fallback, "%s", r.fallback);
        snprintf(o->fb_msg, sizeof o->fb_msg, "%s", r.msg);
    }
    buf_cstr(b, "}\n");
    return;
error:
    write_msg(&o->line, id, "error", msg);
}

/* The outcome of a line the drain budget left uncounted: its id (the
 * line is parsed for it, nothing else) and "pending". */
static void pending_line(counter *cn, str line, outcome *o)
{
    o->state = OUT_PENDING;
    o->fallback[0] = 0;
    o->line.len = 0;
    arena_mark m = arena_save(&cn->a);
    err je;
    json *v = json_parse(&cn->a, line, NULL, &je);
    const json *id = v ? json_get(v, S("id")) : NULL;
    if (!id && v) {
        const json *u = json_get_type(v, S("sample_uuid"), JSON_STR);
        id = u && u->u.s.len ? u : NULL;
    }
    write_msg(&o->line, id, "pending", "not counted: the drain budget (--drain-timeout) ran out");
    arena_restore(&cn->a, m);
}

/* Adds an outcome to the summary and writes its line. */
static void account(counter *cn, const outcome *o, i64 lineno, iz bytes, buf *out)
{
    cn->items++;
    cn->bytes_done += bytes + 1;
    switch (o->state) {
    case OUT_ERROR:   cn->errors++; break;
    case OUT_SKIPPED: cn->skipped++; break;
    case OUT_PENDING: cn->pending++; break;
    default:
        cn->tokens += o->n;
        if (o->kind >= COUNT_IDS && o->kind <= COUNT_PROMPT)
            cn->by_kind[o->kind]++;
        if (o->fallback[0]) {
            cn->fallbacks++;
            /* Upstream warns once per failure class; so do we. */
            if (classes_add(&cn->cls, o->fallback) && !cn->quiet)
                cli_error("count: warning: line %lld: the chat template failed (%s); counted upstream's "
                          "fallback instead (%s); later %s fallbacks are only counted", (long long)lineno,
                          o->fb_msg, o->kind == COUNT_PROMPT ? "the compact JSON of the prompt"
                                                             : "the message's parts joined by newlines",
                          o->fallback);
        }
        break;
    }
    buf_str(out, buf_view(&o->line));
    if (out->len >= 1 << 16 || out->failed) {
        fwrite(out->data, 1, (size_t)out->len, stdout);
        out->len = 0;
    }
}

/* A progress line on stderr when one is due: what is done so far (the
 * lines written plus `batch`, the results of the batch in flight), the
 * rate, and for a file on stdin the share of its bytes and an ETA. */
static void progress_line(counter *cn, const pool_stats *batch, bool force)
{
    if (cn->quiet || cn->progress_s <= 0)
        return;
    double now = os_now();
    if (!force && now < cn->next_progress)
        return;
    cn->next_progress = now + cn->progress_s;
    i64 done = cn->items, errors = cn->errors, fallbacks = cn->fallbacks;
    if (batch) {   /* its fallbacks are known once its lines are written */
        done += batch->done + batch->errors;
        errors += batch->errors;
    }
    double dt = now - cn->t0, rate = dt > 0 ? (double)done / dt : 0;
    char eta[96] = "";
    if (cn->in_size > 0 && cn->bytes_done > 0 && dt > 0) {
        double share = (double)cn->bytes_done / (double)cn->in_size;
        double left = share > 0 ? dt / share - dt : 0;
        snprintf(eta, sizeof eta, ", %.0f%% of the input, ETA %.0f s", MIN(share, 1.0) * 100, MAX(left, 0.0));
    }
    cli_error("count: %lld lines done, %lld errors, %lld fallbacks, %.0f lines/s, %.0f s%s", (long long)done,
              (long long)errors, (long long)fallbacks, rate, dt, eta);
}

static int run_serial(counter *cn, iz max_line)
{
    cn->w = count_work_new(cn->m);
    lines in;
    if (!cn->w || !lines_init(&in, 0, max_line)) {
        cli_error("count: out of memory");
        count_work_free(cn->w);
        return 1;
    }
    arena_init(&cn->a, 0);
    arena_mark base = arena_reserve(&cn->a, 1 << 20);
    buf out = {0};
    outcome o = {0};
    str line;
    int lr;
    i64 lineno = 0;
    cn->t0 = os_now();
    cn->next_progress = cn->t0 + cn->progress_s;
    while ((lr = lines_next(&in, &line)) != LINES_END) {
        arena_restore(&cn->a, base);
        lineno++;
        if (cn->deadline > 0 && os_now() >= cn->deadline && lr != LINES_TOO_LONG)
            pending_line(cn, line, &o);
        else
            process_line(cn, line, lineno, lr == LINES_TOO_LONG, max_line, &o);
        account(cn, &o, lineno, line.len, &out);
        if ((lineno & 63) == 0)
            progress_line(cn, NULL, false);
    }
    if (out.len)
        fwrite(out.data, 1, (size_t)out.len, stdout);
    fflush(stdout);
    int rc = 0;
    if (in.failed) {
        cli_error("count: reading stdin failed");
        rc = 1;
    }
    lines_fini(&in);
    buf_free(&out);
    buf_free(&o.line);
    arena_fini(&cn->a);
    count_work_free(cn->w);
    cn->w = NULL;
    return rc;
}

/* ---- sharded: batches of lines through the drain's process pool ---------- */

/* Lines per pool run: bounds the parent's memory (the lines and their
 * outcomes) whatever the input's length. */
enum { SHARD_BATCH = 8192, SHARD_BATCH_BYTES = 64 << 20 };

/* A pool payload is the line number (8 bytes) followed by the line. A
 * result carries the outcome: n; fallback = the state, the kind and a flag
 * for a fallback count; msg = the output line, then for a fallback count
 * the class and the template's error after a newline and a tab. */
enum { FB_FLAG = 0x80 };

typedef struct shard_ctx {
    counter *cn;
    iz       max_line;
    outcome  o;
} shard_ctx;

static void shard_init(void *ctx)
{
    shard_ctx *sc = ctx;
    sc->cn->w = count_work_new(sc->cn->m);
    arena_init(&sc->cn->a, 0);
    arena_reserve(&sc->cn->a, 1 << 20);   /* kept across lines, as in run_serial */
}

static void shard_work(void *ctx, const pool_item *it, pool_result *r)
{
    shard_ctx *sc = ctx;
    counter *cn = sc->cn;
    i64 lineno;
    memcpy(&lineno, it->payload.s, 8);
    str line = str_cut(it->payload, 8, it->payload.len);
    arena_mark mark = arena_save(&cn->a);
    outcome *o = &sc->o;
    if (!cn->w) {
        r->state = POOL_ERROR;
        snprintf(r->msg, sizeof r->msg, "out of memory in a worker");
        return;
    }
    process_line(cn, line, lineno, false, sc->max_line, o);
    arena_restore(&cn->a, mark);
    buf msg = {0};
    buf_str(&msg, buf_view(&o->line));
    if (o->fallback[0]) {
        buf_cstr(&msg, o->fallback);
        buf_byte(&msg, '\t');
        buf_put(&msg, o->fb_msg, MIN((iz)strlen(o->fb_msg), 300));   /* for the warning only */
    }
    if (msg.failed || msg.len >= POOL_MSG_MAX) {
        /* does not fit a result: the parent counts this line itself */
        r->state = POOL_ERROR;
        r->fallback = 0xff;
        buf_free(&msg);
        return;
    }
    r->state = POOL_DONE;
    r->n = o->n;
    r->fallback = (u8)((o->state << 4) | (o->state == OUT_COUNTED ? o->kind : 0) |
                       (o->fallback[0] ? FB_FLAG : 0));
    memcpy(r->msg, msg.data, (size_t)msg.len);
    r->msg[msg.len] = 0;
    buf_free(&msg);
}

/* Turns a pool result back into an outcome. */
static void unpack(const pool_result *r, outcome *o)
{
    o->state = (r->fallback >> 4) & 7;
    o->kind = r->fallback & 7;
    o->n = r->n;
    o->fallback[0] = 0;
    o->line.len = 0;
    const char *nl = strchr(r->msg, '\n');
    iz linelen = nl ? (iz)(nl - r->msg) + 1 : (iz)strlen(r->msg);
    buf_put(&o->line, r->msg, linelen);
    if ((r->fallback & FB_FLAG) && nl) {
        const char *tab = strchr(nl + 1, '\t');
        if (tab) {
            snprintf(o->fallback, sizeof o->fallback, "%.*s", (int)(tab - nl - 1), nl + 1);
            snprintf(o->fb_msg, sizeof o->fb_msg, "%s", tab + 1);
        }
    }
}

/* The pool reports every second; progress_line says when a line is due. */
static void shard_progress(void *ctx, const pool_stats *s, bool final)
{
    if (!final)
        progress_line(ctx, s, false);
}

static int run_sharded(counter *cn, int shards, iz max_line)
{
    lines in;
    if (!lines_init(&in, 0, max_line)) {
        cli_error("count: out of memory");
        return 1;
    }
    pool_item *items = calloc(SHARD_BATCH, sizeof *items);
    pool_result *res = calloc(SHARD_BATCH, sizeof *res);
    bool *too_long = calloc(SHARD_BATCH, sizeof *too_long);
    arena lines_a;
    arena_init(&lines_a, 0);
    shard_ctx sc = {.cn = cn, .max_line = max_line};
    counter local = *cn;   /* the parent's own work area, for lines it counts itself */
    local.w = count_work_new(cn->m);
    arena_init(&local.a, 0);
    buf out = {0};
    outcome o = {0};
    int rc = 0;
    if (!items || !res || !too_long || !local.w) {
        cli_error("count: out of memory");
        rc = 1;
        goto done;
    }
    /* a pool item's kind only steers chunking: ids lines are cheap */
    u8 kind = cn->want == COUNT_IDS ? POOL_KIND_TEXT : cn->want == COUNT_TEXT ? POOL_KIND_TEXT
                                                                                : POOL_KIND_HEAVY;
    pool_opts po = {.workers = shards, .worker_init = shard_init,
                    .progress_s = cn->quiet || cn->progress_s <= 0 ? 0 : MIN(cn->progress_s, 1.0),
                    .progress = shard_progress, .progress_ctx = cn};
    arena_mark lines_base = arena_reserve(&lines_a, SHARD_BATCH_BYTES + (SHARD_BATCH * 16));
    cn->t0 = os_now();
    cn->next_progress = cn->t0 + cn->progress_s;
    i64 lineno = 0;
    bool more = true;
    while (more) {
        arena_restore(&lines_a, lines_base);   /* the last batch's memory, reused */
        iz n = 0;
        str line;
        int lr;
        iz bytes = 0;
        more = false;
        while (n < SHARD_BATCH && bytes < SHARD_BATCH_BYTES) {
            if ((lr = lines_next(&in, &line)) == LINES_END)
                break;
            bytes += line.len;
            lineno++;
            u8 *p = NEW_NZ(&lines_a, u8, line.len + 8);
            memcpy(p, &lineno, 8);
            if (line.len)
                memcpy(p + 8, line.s, (size_t)line.len);
            items[n] = (pool_item){str_from(p, line.len + 8), kind};
            too_long[n] = lr == LINES_TOO_LONG;
            res[n] = (pool_result){0};
            if (too_long[n])
                res[n].state = POOL_ERROR;   /* answered below, not by a worker */
            n++;
            more = n == SHARD_BATCH || bytes >= SHARD_BATCH_BYTES;
        }
        if (!n)
            break;
        err e = {0};
        pool_stats st;
        fflush(stdout);
        bool out_of_time = false;
        if (cn->deadline > 0) {
            double left = cn->deadline - os_now();
            out_of_time = left <= 0;
            po.timeout_s = left > 0 ? left : 0;
        }
        if (out_of_time) {
            /* nothing is counted any more: every line stays pending */
        } else if (pool_run(items, n, res, shard_work, &sc, &po, &st, &e) != ERR_OK) {
            cli_error("count: the worker processes failed (%s); counting in this process", e.msg);
            pool_opts serial = {0};
            sc.cn = &local;
            pool_run(items, n, res, shard_work, &sc, &serial, &st, &e);
            sc.cn = cn;
        }
        bool budget_over = cn->deadline > 0 && os_now() >= cn->deadline;
        for (iz k = 0; k < n; k++) {
            i64 ln;
            memcpy(&ln, items[k].payload.s, 8);
            if (res[k].state == POOL_PENDING && !too_long[k] && budget_over) {
                arena_mark m = arena_save(&local.a);
                pending_line(&local, str_cut(items[k].payload, 8, items[k].payload.len), &o);
                arena_restore(&local.a, m);
            } else if (too_long[k] || res[k].state == POOL_PENDING || res[k].fallback == 0xff ||
                res[k].state == POOL_ERROR) {
                /* too long, or a result a worker could not send: count here */
                arena_mark m = arena_save(&local.a);
                if (res[k].state == POOL_ERROR && !too_long[k] && res[k].fallback != 0xff) {
                    o.state = OUT_ERROR;
                    o.fallback[0] = 0;
                    o.line.len = 0;
                    char msg[POOL_MSG_MAX + 32];
                    snprintf(msg, sizeof msg, "line %lld: %s", (long long)ln, res[k].msg);
                    write_msg(&o.line, NULL, "error", msg);
                } else {
                    process_line(&local, str_cut(items[k].payload, 8, items[k].payload.len), ln,
                                 too_long[k], max_line, &o);
                }
                arena_restore(&local.a, m);
            } else {
                unpack(&res[k], &o);
            }
            account(cn, &o, ln, items[k].payload.len - 8, &out);
        }
    }
    if (out.len)
        fwrite(out.data, 1, (size_t)out.len, stdout);
    fflush(stdout);
    if (in.failed) {
        cli_error("count: reading stdin failed");
        rc = 1;
    }
done:
    lines_fini(&in);
    free(items);
    free(res);
    free(too_long);
    arena_fini(&lines_a);
    arena_fini(&local.a);
    count_work_free(local.w);
    buf_free(&out);
    buf_free(&o.line);
    return rc;
}

static void print_summary(counter *cn, double t_load)
{
    double dt = os_now() - cn->t0;
    buf s = {0};
    buf_printf(&s, "tally: count: %lld items: %lld counted (", (long long)cn->items,
               (long long)(cn->items - cn->errors - cn->skipped - cn->pending));
    bool first = true;
    for (int k = COUNT_IDS; k <= COUNT_PROMPT; k++) {
        if (!cn->by_kind[k])
            continue;
        buf_printf(&s, "%s%s %lld", first ? "" : ", ", count_kind_name((count_kind)k),
                   (long long)cn->by_kind[k]);
        first = false;
    }
    buf_printf(&s, "%s%lld tokens), %lld skipped, %lld errors, ", first ? "" : "; ",
               (long long)cn->tokens, (long long)cn->skipped, (long long)cn->errors);
    if (cn->pending)
        buf_printf(&s, "%lld pending (the drain budget ran out), ", (long long)cn->pending);
    buf_printf(&s, "%lld fallbacks", (long long)cn->fallbacks);
    if (cn->fallbacks) {
        buf_cstr(&s, " (");
        for (int k = 0; k < cn->cls.count; k++)
            buf_printf(&s, "%s%s %lld", k ? ", " : "", cn->cls.name[k], (long long)cn->cls.n[k]);
        if (cn->cls.other)
            buf_printf(&s, ", other %lld", (long long)cn->cls.other);
        buf_byte(&s, ')');
    }
    buf_printf(&s, " in %.3f s (%.0f items/s), load %.3f s\n", dt, dt > 0 ? (double)cn->items / dt : 0.0,
               t_load);
    fwrite(s.data, 1, (size_t)s.len, stderr);
    buf_free(&s);
}

int cmd_count(int argc, char **argv)
{
    const char *tok_arg = TALLY_DEFAULT_TOKENIZER;
    count_model_opts mo = {.now = cli_local_now()};   /* --now replaces it */
    int want = SHAPES_AUTO;
    bool quiet = false;
    int shards = -1;   /* -1: every CPU this process may use */
    double drain_timeout = 0, progress_s = 30;
    iz max_line = CLI_MAX_LINE;
    static const struct option opts[] = {
        {"tokenizer", required_argument, 0, 't'},
        {"kind", required_argument, 0, 'k'},
        {"chat-template", required_argument, 0, 'c'},
        {"now", required_argument, 0, 'n'},
        {"max-line", required_argument, 0, 'm'},
        {"quiet", no_argument, 0, 'q'},
        {"shards", required_argument, 0, 's'},
        {"drain-timeout", required_argument, 0, 'D'},
        {"progress-interval", required_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "t:k:c:s:qh", opts, NULL)) != -1) {
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
            if (!cli_parse_now("count", optarg, &mo.now))
                return 2;
            break;
        case 'm':
            if (!cli_parse_max_line("count", optarg, &max_line))
                return 2;
            break;
        case 'q': quiet = true; break;
        case 'D':
        case 'P': {
            char *end;
            double v = strtod(optarg, &end);
            if (*end || !(v >= 0) || v > 1e9) {
                cli_error("count: --%s needs a number of seconds (0 or more), not \"%s\"",
                          c == 'D' ? "drain-timeout" : "progress-interval", optarg);
                return 2;
            }
            if (c == 'D')
                drain_timeout = v;
            else
                progress_s = v;
            break;
        }
        case 's': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 0 || v > 256) {
                cli_error("count: --shards needs a number of worker processes from 0 to 256, not \"%s\"",
                          optarg);
                return 2;
            }
            shards = (int)v;
            break;
        }
        case 'h': fputs(help, stdout); fputs(help2, stdout); return 0;
        default: fputs(help, stderr); fputs(help2, stderr); return 2;
        }
    }
    if (optind < argc) {
        cli_error("count: unexpected argument \"%s\"", argv[optind]);
        return 2;
    }
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
    if (shards < 0)
        shards = pool_cpus();
    counter cn = {.m = m, .want = want, .quiet = quiet, .progress_s = progress_s};
    struct stat sb;
    if (fstat(0, &sb) == 0 && S_ISREG(sb.st_mode)) {
        off_t at = lseek(0, 0, SEEK_CUR);
        cn.in_size = (i64)sb.st_size - (at > 0 ? (i64)at : 0);
    }
    if (drain_timeout > 0)
        cn.deadline = os_now() + drain_timeout;
    int rc = shards > 0 ? run_sharded(&cn, shards, max_line) : run_serial(&cn, max_line);
    if (rc == 0 && !quiet)
        print_summary(&cn, t_load);
    count_model_free(m);
    if (rc)
        return rc;
    if (ferror(stdout))
        return 1;
    return cn.pending ? 3 : 0;
}
