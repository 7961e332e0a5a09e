/* count.h - the four counting kinds of the upstream aggregator (token ids,
 * text, assistant message, full prompt), one implementation for every
 * caller: the CLI, the live lane and the drain's workers. A model is a
 * tokenizer plus its chat template(s); counts follow
 * ../shared/docs/upstream-spec.md §6 and the oracle's `text`, `message`
 * and `prompt --mlcommons` modes exactly, fallbacks included.
 * Depends on tok/, tmpl/, chat/chat_template.h, json/ and base/. */
#ifndef TALLY_COUNT_H
#define TALLY_COUNT_H

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/err.h"
#include "../json/json.h"
#include "../tok/tok.h"
#include "chat_template.h"

/* A loaded model: read-only after count_model_load, shared by threads and
 * by worker processes forked after loading. */
typedef struct count_model count_model;

typedef struct count_model_opts {
    const char *chat_template_file;  /* render with this file, or NULL */
    i64         now;                 /* strftime_now's clock (seconds, UTC) */
    bool        no_piece_cache;      /* work areas without tok_count's piece cache */
    /* Seconds one render may take (0 = COUNT_RENDER_BUDGET_S): past it the
     * render stops and the item is an error saying so. */
    double      render_budget_s;
    /* os_now() time past which the framing renders at load stop (0 = none):
     * they then fail as a template failure does (prefix_len = baseline = 0). */
    double      load_deadline;
} count_model_opts;

enum { COUNT_RENDER_BUDGET_S = 5 };   /* no real template comes near it */

/* Loads `path` (a folder with tokenizer.json and tokenizer_config.json, or
 * a tokenizer.json path) and computes the message framing at load, as
 * upstream's BatchTokenizer does: prefix_len = tokens of
 * [{"role":"user","content":""}] rendered without generation prompt,
 * baseline = tokens of that plus {"role":"assistant","content":""} minus
 * prefix_len; both 0 when either render fails (count_model_baseline_error
 * then says why). NULL and `e` filled on failure. */
count_model *count_model_load(const char *path, const count_model_opts *o, err *e);
void         count_model_free(count_model *m);

const tok       *count_model_tok(const count_model *m);
const chat_tmpl *count_model_chat(const count_model *m);
i64              count_model_prefix_len(const count_model *m);
i64              count_model_baseline(const count_model *m);
/* "<Class>: <message>" of the failed baseline render, or NULL. */
const char      *count_model_baseline_error(const count_model *m);

/* Per-thread (or per-process) scratch: tokenizer work area, render arena,
 * text buffers. Not shared. */
typedef struct count_work count_work;
count_work *count_work_new(const count_model *m);
void        count_work_free(count_work *w);
/* Forgets what the tokenizer remembered of earlier items (tok_work_forget_pieces). */
void        count_work_forget_pieces(count_work *w);
/* From `deadline` on (os_now() clock; 0 = none) count_item stops a render
 * it is in and returns ERR_STOPPED: the caller's budget (a drain's) ran
 * out, which is not an error of the item. */
void        count_work_set_deadline(count_work *w, double deadline);

/* The kinds. */
typedef enum count_kind {
    COUNT_IDS = 1,   /* TokenIdsInput: len(token_ids) */
    COUNT_TEXT,      /* TextInput: encode(text, add_special_tokens=False) */
    COUNT_MESSAGE,   /* MessageInput: the assistant turn through the template */
    COUNT_PROMPT,    /* PromptInput: the whole prompt with the generation prompt */
} count_kind;

const char *count_kind_name(count_kind k);

/* One item to count. JSON fields point into a tree the caller owns (they
 * must outlive the call); NULL means absent (None). */
typedef struct count_input {
    count_kind  kind;
    /* COUNT_IDS */
    const json *token_ids;        /* an array of ints */
    /* COUNT_TEXT */
    str         text;
    /* COUNT_MESSAGE */
    const json *content;          /* str or null */
    const json *reasoning;        /* str or null */
    const json *tool_calls;       /* array or null (already merged from chunks) */
    /* COUNT_PROMPT */
    const json *messages;         /* array */
    const json *tools;            /* array or null */
    const json *tool_choice;      /* str, object or null */
    const json *chat_template;    /* str (a name of the named set, or a source) or null */
    const json *chat_template_kwargs; /* object or null */
} count_input;

/* What counting one item gave. */
typedef struct count_result {
    int  code;                 /* ERR_OK, or why there is no count */
    i64  n;                    /* the count when code == ERR_OK */
    /* The template render failed and the count is upstream's fallback
     * (compact JSON of the prompt; the joined message parts): the Python
     * class of the failure ("TypeError", ...), else NULL. */
    const char *fallback;
    /* A prompt with tools (not empty) whose template never reads `tools`,
     * or that has no template: the tools are not in a rendered count. */
    bool tools_unread;
    char msg[ERR_MSG_MAX];     /* the error, or with a fallback the render's error */
} count_result;

/* Counts one item; never affects another. Returns r->code. An item that
 * cannot be counted at all (invalid UTF-8 in a text, ids that are not an
 * array of ints, a limit such as the render's time budget, out of memory)
 * has code != ERR_OK and a message naming what and where; ERR_STOPPED
 * when the work's deadline stopped it. A failed render is not such an
 * error: the count is then upstream's fallback, with r->fallback set. */
int count_item(count_work *w, const count_input *in, count_result *r);

#endif
