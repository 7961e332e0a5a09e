/* inputs.c - which count upstream's events and payloads ask for (inputs.h):
 * the ISL, OSL and TPOT triggers' choice of input (spec §6.2), upstream's
 * TextModelOutput helpers (merge_tool_calls, str(), as_message_parts and
 * their after-first-chunk forms, spec §2.4) and the array-like payloads,
 * bare or in an event line. Field checks are shapes.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "inputs.h"
#include "../chat/chat_template.h"
#include "../json/pyfmt.h"

#define type_name shapes_type_name
#define nn shapes_nn

static const char *kind_label(int want)
{
    return count_kind_name((count_kind)want);
}

/* ---- small helpers ------------------------------------------------------- */

static json *new_str(arena *a, str s)
{
    json *v = NEW(a, json, 1);
    v->type = JSON_STR;
    v->off = -1;
    v->u.s = s;
    return v;
}

/* "".join(items) of an array of strings, as a new string in `a` (the
 * element itself when there is exactly one). */
static const json *join_strs(arena *a, const json *arr)
{
    if (arr->u.arr.n == 1)
        return &arr->u.arr.items[0];
    iz n = 0;
    for (iz k = 0; k < arr->u.arr.n; k++)
        n += arr->u.arr.items[k].u.s.len;
    u8 *p = NEW_NZ(a, u8, n + 1), *q = p;
    for (iz k = 0; k < arr->u.arr.n; k++) {
        str s = arr->u.arr.items[k].u.s;
        if (s.len)
            memcpy(q, s.s, (size_t)s.len);
        q += s.len;
    }
    *q = 0;
    return new_str(a, str_from(p, n));
}

/* "".join(items) of an array of strings, for any number of items. */
static const json *join_all(arena *a, const json *arr)
{
    return arr->u.arr.n == 0 ? new_str(a, S("")) : join_strs(a, arr);
}

/* Upstream's OUTPUT_ELEM_TYPE, str | tuple[str, ...] (msgspec rejects
 * anything else when it decodes the payload). */
static bool check_text_or_chunks(const json *v, const char *what, bool nullable, err *e)
{
    if (!v || (nullable && v->type == JSON_NULL) || v->type == JSON_STR)
        return true;
    if (v->type == JSON_ARR) {
        for (iz k = 0; k < v->u.arr.n; k++)
            if (v->u.arr.items[k].type != JSON_STR)
                return err_set(e, ERR_INVALID, v->u.arr.items[k].off,
                               "%s[%td]: expected a string, found %s", what, k,
                               type_name(&v->u.arr.items[k])), false;
        return true;
    }
    return err_set(e, ERR_INVALID, v->off, "%s: expected a string or an array of strings%s, found %s",
                   what, nullable ? " or null" : "", type_name(v)), false;
}

/* Runs fn(a, ctx, e) with out of memory in `a` turned into ERR_NOMEM when
 * the caller set no jump of its own. */
typedef int (*guarded_fn)(arena *a, void *ctx, err *e);

static int guarded(arena *a, guarded_fn fn, void *ctx, err *e)
{
    if (a->oom)
        return fn(a, ctx, e);
    jmp_buf jb;
    a->oom = &jb;
    int rc;
    if (setjmp(jb) == 0)
        rc = fn(a, ctx, e);
    else
        rc = err_set(e, ERR_NOMEM, -1, "out of memory");
    a->oom = NULL;
    return rc;
}

/* ---- merge_tool_calls ---------------------------------------------------- */

/* One delta of a streamed tool call, with the key it merges under. Python
 * uses partial.get("index", 0) as a dict key and sorts the keys: numbers
 * (bool, int and float compare by value), strings (by code point) and
 * None are keys; mixing kinds makes sorted() raise TypeError. */
enum { KEY_NUM, KEY_STR, KEY_NONE };

typedef struct {
    int         cls;
    bool        is_int;
    i64         i;
    double      f;
    str         s;
    iz          seq;       /* position among all deltas */
    const json *partial;
    const json *fn;        /* partial["function"] when truthy, else NULL */
} delta;

static int key_cmp(const delta *x, const delta *y)
{
    if (x->cls == KEY_STR) {
        iz n = MIN(x->s.len, y->s.len);
        int c = n ? memcmp(x->s.s, y->s.s, (size_t)n) : 0;
        return c ? c : (x->s.len > y->s.len) - (x->s.len < y->s.len);
    }
    if (x->cls == KEY_NONE)
        return 0;
    if (x->is_int && y->is_int)
        return (x->i > y->i) - (x->i < y->i);
    /* An int against a float: long double holds every i64 exactly where
     * it is wider than double, and double's own range otherwise. */
    long double a = x->is_int ? (long double)x->i : (long double)x->f;
    long double b = y->is_int ? (long double)y->i : (long double)y->f;
    return (a > b) - (a < b);
}

static int delta_cmp(const void *p, const void *q)
{
    const delta *x = p, *y = q;
    int c = key_cmp(x, y);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static const char *key_class_name(int cls)
{
    return cls == KEY_NUM ? "number" : cls == KEY_STR ? "string" : "null";
}

typedef struct {
    const json  *tc;
    const json **merged;
} merge_ctx;

static int merge(arena *a, void *vctx, err *e)
{
    merge_ctx *c = vctx;
    const json *tc = c->tc;
    *c->merged = NULL;
    if (!json_truthy(tc))
        return ERR_OK;
    if (tc->type != JSON_ARR)
        return err_set(e, ERR_INVALID, tc->off, "tool_calls: expected an array or null, found %s",
                       type_name(tc));
    if (tc->u.arr.items[0].type != JSON_ARR) {
        *c->merged = tc;   /* already complete tool calls */
        return ERR_OK;
    }
    iz total = 0;
    for (iz k = 0; k < tc->u.arr.n; k++)
        if (tc->u.arr.items[k].type == JSON_ARR)
            total += tc->u.arr.items[k].u.arr.n;
    if (total > SHAPES_MAX_TOOL_CALLS)
        return err_set(e, ERR_LIMIT, tc->off, "tool_calls: more than %d tool-call deltas",
                       (int)SHAPES_MAX_TOOL_CALLS);
    delta *d = NEW(a, delta, total ? total : 1);
    iz nd = 0;
    /* Walk the deltas in order, failing where Python's loop would. */
    for (iz k = 0; k < tc->u.arr.n; k++) {
        const json *chunk = &tc->u.arr.items[k];
        if (chunk->type != JSON_ARR) {
            /* Python iterates a dict's keys and a string's characters: an
             * empty one does nothing, any other gives .get on a str. */
            if ((chunk->type == JSON_OBJ && chunk->u.obj.n == 0)
                || (chunk->type == JSON_STR && chunk->u.s.len == 0))
                continue;
            return err_set(e, ERR_INVALID, chunk->off,
                           "tool_calls[%td]: expected an array of tool-call deltas, found %s", k,
                           type_name(chunk));
        }
        for (iz j = 0; j < chunk->u.arr.n; j++) {
            const json *p = &chunk->u.arr.items[j];
            if (p->type != JSON_OBJ)
                return err_set(e, ERR_INVALID, p->off,
                               "tool_calls[%td][%td]: expected a tool-call delta object, found %s", k,
                               j, type_name(p));
            delta *x = &d[nd];
            x->seq = nd++;
            x->partial = p;
            const json *idx = json_get(p, S("index"));
            if (!idx) {
                x->cls = KEY_NUM, x->is_int = true, x->i = 0;
            } else if (idx->type == JSON_NULL) {
                x->cls = KEY_NONE;
            } else if (idx->type == JSON_STR) {
                x->cls = KEY_STR, x->s = idx->u.s;
            } else if (idx->type == JSON_BOOL) {
                x->cls = KEY_NUM, x->is_int = true, x->i = idx->u.b;
            } else if (idx->type == JSON_INT && !idx->big) {
                x->cls = KEY_NUM, x->is_int = true, x->i = idx->u.i;
            } else if (idx->type == JSON_FLOAT) {
                x->cls = KEY_NUM, x->f = idx->u.f;
            } else if (idx->type == JSON_INT) {
                return err_set(e, ERR_UNSUPPORTED, idx->off,
                               "tool_calls[%td][%td]: index: integers beyond 64 bits are not supported",
                               k, j);
            } else {
                /* A list or dict is unhashable: TypeError in Python. */
                return err_set(e, ERR_INVALID, idx->off,
                               "tool_calls[%td][%td]: index: expected an integer, found %s", k, j,
                               type_name(idx));
            }
            const json *fn = json_get(p, S("function"));
            if (json_truthy(fn)) {
                if (fn->type != JSON_OBJ)
                    return err_set(e, ERR_INVALID, fn->off,
                                   "tool_calls[%td][%td]: function: expected an object, found %s", k, j,
                                   type_name(fn));
                x->fn = fn;
                const json *args = json_get(fn, S("arguments"));
                if (json_truthy(args) && args->type != JSON_STR)
                    return err_set(e, ERR_INVALID, args->off,
                                   "tool_calls[%td][%td]: function.arguments: expected a string, "
                                   "found %s", k, j, type_name(args));
            }
        }
    }
    for (iz k = 1; k < nd; k++)
        if (d[k].cls != d[0].cls)
            return err_set(e, ERR_INVALID, d[k].partial->off,
                           "tool_calls: delta indexes of different types (%s and %s) cannot be "
                           "sorted", key_class_name(d[0].cls), key_class_name(d[k].cls));
    if (nd > 1)
        qsort(d, (size_t)nd, sizeof(*d), delta_cmp);
    /* One merged call per key, its deltas in their order. */
    iz ngroups = 0;
    for (iz k = 0; k < nd; k++)
        if (k == 0 || key_cmp(&d[k - 1], &d[k]) != 0)
            ngroups++;
    json *arr = NEW(a, json, 1);
    arr->type = JSON_ARR;
    arr->off = -1;
    arr->u.arr.items = NEW(a, json, ngroups ? ngroups : 1);
    arr->u.arr.n = ngroups;
    const json *function = new_str(a, S("function"));
    iz g = 0;
    for (iz k = 0; k < nd;) {
        iz end = k + 1;
        while (end < nd && key_cmp(&d[k], &d[end]) == 0)
            end++;
        const json *type = function, *id = NULL, *name = NULL;
        iz args_len = 0;
        for (iz j = k; j < end; j++) {
            const json *v = json_get(d[j].partial, S("id"));
            if (json_truthy(v))
                id = v;
            v = json_get(d[j].partial, S("type"));
            if (json_truthy(v))
                type = v;
            if (d[j].fn) {
                v = json_get(d[j].fn, S("name"));
                if (json_truthy(v))
                    name = v;
                v = json_get(d[j].fn, S("arguments"));
                if (json_truthy(v))
                    args_len += v->u.s.len;
            }
        }
        u8 *args = NEW_NZ(a, u8, args_len + 1), *q = args;
        for (iz j = k; j < end; j++) {
            const json *v = d[j].fn ? json_get(d[j].fn, S("arguments")) : NULL;
            if (json_truthy(v)) {
                memcpy(q, v->u.s.s, (size_t)v->u.s.len);
                q += v->u.s.len;
            }
        }
        *q = 0;
        /* {"type": ..., "function": {"arguments": ..., "name"?: ...}, "id"?: ...}:
         * the keys in the order the dicts gain them. */
        json_member *fm = NEW(a, json_member, 2);
        fm[0].key = S("arguments");
        fm[0].val = *new_str(a, str_from(args, args_len));
        if (name) {
            fm[1].key = S("name");
            fm[1].val = *name;
        }
        json_member *m = NEW(a, json_member, 3);
        m[0].key = S("type");
        m[0].val = *type;
        m[1].key = S("function");
        m[1].val.type = JSON_OBJ;
        m[1].val.off = -1;
        m[1].val.u.obj.members = fm;
        m[1].val.u.obj.n = name ? 2 : 1;
        if (id) {
            m[2].key = S("id");
            m[2].val = *id;
        }
        json *call = &arr->u.arr.items[g++];
        call->type = JSON_OBJ;
        call->off = -1;
        call->u.obj.members = m;
        call->u.obj.n = id ? 3 : 2;
        k = end;
    }
    *c->merged = arr;
    return ERR_OK;
}

int agg_merge_tool_calls(arena *a, const json *tool_calls, const json **merged, err *e)
{
    merge_ctx c = {tool_calls, merged};
    return guarded(a, merge, &c, e);
}

/* ---- str() and as_message_parts() ---------------------------------------- */

typedef struct {
    const json *output, *reasoning, *tool_calls;
    bool        after_first;    /* the forms after the first streamed chunk */
    str        *text;
    const json **content, **reasoning_out, **tool_calls_out;
} tmo_ctx;

/* v[from:] of an array, as a view (no copy). */
static json tail_of(const json *v, iz from)
{
    json t = *v;
    iz k = MIN(from, v->u.arr.n);
    t.u.arr.items = v->u.arr.items + k;
    t.u.arr.n = v->u.arr.n - k;
    return t;
}

static bool is_arr(const json *v)
{
    return v && v->type == JSON_ARR;
}

/* The tool calls that remain after the first chunk: a pure tool-call first
 * delta (no output, no reasoning) is dropped from streamed chunks. */
static const json *tool_calls_after_first(const tmo_ctx *c, json *tmp)
{
    const json *tc = c->tool_calls;
    if (json_truthy(tc) && is_arr(&tc->u.arr.items[0]) &&
        !(json_truthy(c->output) || json_truthy(c->reasoning))) {
        *tmp = tail_of(tc, 1);
        return tmp;
    }
    return tc;
}

static int check_tmo(const tmo_ctx *c, err *e)
{
    if (!check_text_or_chunks(c->output, "output", false, e)
        || !check_text_or_chunks(c->reasoning, "reasoning", true, e))
        return e->code;
    if (c->tool_calls && c->tool_calls->type != JSON_NULL && c->tool_calls->type != JSON_ARR)
        return err_set(e, ERR_INVALID, c->tool_calls->off,
                       "tool_calls: expected an array or null, found %s", type_name(c->tool_calls));
    return ERR_OK;
}

static void append_text(buf *b, const json *v)
{
    if (!json_truthy(v))
        return;
    if (v->type == JSON_STR) {
        buf_str(b, v->u.s);
        return;
    }
    for (iz k = 0; k < v->u.arr.n; k++)
        buf_str(b, v->u.arr.items[k].u.s);
}

/* text_after_first_chunk()'s text parts into b, before the tool calls. */
static void append_after_first(buf *b, const tmo_ctx *c)
{
    const json *r = c->reasoning, *o = c->output;
    bool parts = false;   /* Python's `parts` list is not empty */
    if (json_truthy(r) && is_arr(r) && r->u.arr.n > 1) {
        json t = tail_of(r, 1);
        append_text(b, &t);
        parts = true;
    }
    if (!json_truthy(o))
        return;
    bool r_tuple = json_truthy(r) && is_arr(r);
    if (o->type == JSON_STR) {
        if (parts || r_tuple)
            buf_str(b, o->u.s);
    } else if (parts || json_truthy(r)) {
        append_text(b, o);
    } else if (o->u.arr.n > 1) {
        json t = tail_of(o, 1);
        append_text(b, &t);
    }
}

static int tmo_text(arena *a, void *vctx, err *e)
{
    tmo_ctx *c = vctx;
    int rc = check_tmo(c, e);
    if (rc)
        return rc;
    const json *merged;
    json tail;
    merge_ctx mc = {c->after_first ? tool_calls_after_first(c, &tail) : c->tool_calls, &merged};
    if ((rc = merge(a, &mc, e)) != ERR_OK)
        return rc;
    /* The text is built on the heap (pyfmt writes to a buf) and copied
     * into `a` once, with the arena's jump switched off meanwhile so that
     * nothing can leave the heap buffer behind. */
    jmp_buf *saved = a->oom;
    a->oom = NULL;
    buf b = {0};
    if (c->after_first) {
        append_after_first(&b, c);
    } else {
        append_text(&b, c->reasoning);
        append_text(&b, c->output);
    }
    if (json_truthy(merged)) {
        pyfmt_dumps_opts o = {.msgspec = true};
        err je = {0};
        if (!pyfmt_json_dumps(&b, merged, &o, NULL, &je)) {
            buf_free(&b);
            a->oom = saved;
            return err_set(e, je.code ? je.code : ERR_NOMEM, -1, "tool_calls: %s", je.msg);
        }
    }
    u8 *p = b.failed ? NULL : arena_alloc_nz(a, 1, 1, b.len + 1);
    if (p) {
        if (b.len)
            memcpy(p, b.data, (size_t)b.len);
        p[b.len] = 0;
    }
    iz len = b.len;
    buf_free(&b);
    a->oom = saved;
    if (!p) {
        if (saved)
            longjmp(*saved, 1);
        return err_set(e, ERR_NOMEM, -1, "out of memory");
    }
    *c->text = str_from(p, len);
    return ERR_OK;
}

int agg_tmo_text(arena *a, const json *output, const json *reasoning, const json *tool_calls, bool after_first,
                 str *text, err *e)
{
    tmo_ctx c = {.output = output, .reasoning = reasoning, .tool_calls = tool_calls, .after_first = after_first,
                 .text = text};
    *text = (str){0};
    return guarded(a, tmo_text, &c, e);
}

/* as_message_parts_after_first_chunk(): content and reasoning. */
static void message_after_first(arena *a, const tmo_ctx *c)
{
    const json *r = c->reasoning, *o = c->output;
    *c->reasoning_out = NULL;
    if (is_arr(r) && r->u.arr.n > 1) {
        json t = tail_of(r, 1);
        *c->reasoning_out = join_all(a, &t);
    }
    bool tail = *c->reasoning_out != NULL;
    *c->content = new_str(a, S(""));
    if (!json_truthy(o))
        return;
    if (o->type == JSON_STR) {
        if (tail || (json_truthy(r) && is_arr(r)))
            *c->content = o;
    } else if (tail || json_truthy(r)) {
        *c->content = join_all(a, o);
    } else if (o->u.arr.n > 1) {
        json t = tail_of(o, 1);
        *c->content = join_all(a, &t);
    }
}

static int tmo_message(arena *a, void *vctx, err *e)
{
    tmo_ctx *c = vctx;
    int rc = check_tmo(c, e);
    if (rc)
        return rc;
    json tail;
    merge_ctx mc = {c->after_first ? tool_calls_after_first(c, &tail) : c->tool_calls, c->tool_calls_out};
    if ((rc = merge(a, &mc, e)) != ERR_OK)
        return rc;
    if (c->after_first) {
        message_after_first(a, c);
        return ERR_OK;
    }
    const json *out = c->output;
    if (!out)
        *c->content = new_str(a, S(""));
    else
        *c->content = out->type == JSON_STR ? out : join_strs(a, out);
    const json *r = c->reasoning;
    if (!json_truthy(r))
        *c->reasoning_out = NULL;
    else
        *c->reasoning_out = r->type == JSON_STR ? r : join_strs(a, r);
    return ERR_OK;
}

int agg_tmo_message(arena *a, const json *output, const json *reasoning, const json *tool_calls,
                    bool after_first, const json **content, const json **reasoning_out,
                    const json **tool_calls_out, err *e)
{
    tmo_ctx c = {.output = output, .reasoning = reasoning, .tool_calls = tool_calls, .after_first = after_first,
                 .content = content, .reasoning_out = reasoning_out, .tool_calls_out = tool_calls_out};
    *content = *reasoning_out = *tool_calls_out = NULL;
    return guarded(a, tmo_message, &c, e);
}

/* ---- upstream's payloads ------------------------------------------------- */

/* Element k (1-based after the tag) of an array-like struct, NULL when the
 * array is shorter (the field's default, None for every field read here
 * but TextModelOutput.output). */
static const json *field(const json *arr, iz k)
{
    return k < arr->u.arr.n ? &arr->u.arr.items[k] : NULL;
}

static int from_prompt_data(shapes_item *o, const json *d, int want, err *e)
{
    static const char where[] = "PromptData.";
    const json *text = field(d, 1), *ids = field(d, 2), *messages = field(d, 3);
    const json *tools = field(d, 4), *kwargs = field(d, 5), *tmpl = field(d, 6), *choice = field(d, 7);
    /* msgspec checks every field's type when it decodes the payload, so a
     * mistyped field spoils the whole payload whichever one is counted. */
    if (nn(text) && text->type != JSON_STR)
        return shapes_bad(e, text, where, "text", "a string or null");
    if (nn(ids) && shapes_take_ids(o, ids, where, e) != SHAPES_COUNT)
        return SHAPES_ERROR;
    if (nn(messages) && shapes_take_prompt(o, messages, tools, kwargs, tmpl, choice, where, true, e) != SHAPES_COUNT)
        return SHAPES_ERROR;
    if (!nn(messages) && shapes_take_prompt(o, &(json){.type = JSON_ARR}, tools, kwargs, tmpl, choice, where,
                                     true, e) != SHAPES_COUNT)
        return SHAPES_ERROR;
    memset(&o->in, 0, sizeof(o->in));
    switch (want) {
    case SHAPES_AUTO:
        /* IslTrigger's precedence. */
        if (nn(ids))
            return shapes_take_ids(o, ids, where, e);
        if (json_truthy(text))
            return shapes_take_text(o, text, where, e);
        if (nn(messages))
            return shapes_take_prompt(o, messages, tools, kwargs, tmpl, choice, where, true, e);
        return shapes_skip(o, "PromptData without token_ids, text or messages: nothing to count");
    case COUNT_IDS:
        return shapes_take_ids(o, nn(ids), where, e);
    case COUNT_TEXT:
        return shapes_take_text(o, nn(text), where, e);
    case COUNT_PROMPT:
        return shapes_take_prompt(o, nn(messages), tools, kwargs, tmpl, choice, where, true, e);
    default:
        err_set(e, ERR_INVALID, d->off, "a PromptData has no %s to count (it is a prompt)",
                kind_label(want));
        return SHAPES_ERROR;
    }
}

static int from_output(arena *a, shapes_item *o, const json *d, int want, int metric, err *e)
{
    const json *output = field(d, 1), *reasoning = field(d, 2), *tool_calls = field(d, 3);
    bool after = metric == AGG_TPOT;
    bool message;
    switch (want) {
    case SHAPES_AUTO:
        /* OslTrigger: the chat template when there is reasoning or a tool
         * call, the plain text otherwise. */
        message = json_truthy(reasoning) || json_truthy(tool_calls);
        break;
    case COUNT_MESSAGE: message = true; break;
    case COUNT_TEXT: message = false; break;
    default:
        err_set(e, ERR_INVALID, d->off, "a TextModelOutput has no %s to count (it is an output)",
                kind_label(want));
        return SHAPES_ERROR;
    }
    if (message) {
        const json *content, *r, *tc;
        if (agg_tmo_message(a, output, reasoning, tool_calls, after, &content, &r, &tc, e) != ERR_OK)
            return SHAPES_ERROR;
        o->in.kind = COUNT_MESSAGE;
        o->in.content = content;
        o->in.reasoning = r;
        /* MessageInput treats an empty tuple of tool calls as None. */
        o->in.tool_calls = json_truthy(tc) ? tc : NULL;
        return SHAPES_COUNT;
    }
    str text;
    if (agg_tmo_text(a, output, reasoning, tool_calls, after, &text, e) != ERR_OK)
        return SHAPES_ERROR;
    if (want == SHAPES_AUTO && text.len == 0)
        return shapes_skip(o, after ? "TextModelOutput with nothing after its first chunk: nothing to count"
                                    : "TextModelOutput with an empty output: nothing to count");
    o->in.kind = COUNT_TEXT;
    o->in.text = text;
    return SHAPES_COUNT;
}

/* A data array: [tag, field1, ...]. `event` is the event type of the line
 * it came from, or NULL for a bare array. */
static int from_payload(arena *a, shapes_item *o, const json *d, int want, int metric, err *e)
{
    str tag = d->u.arr.items[0].u.s;
    if (str_eq(tag, S("PromptData"))) {
        o->shape = "PromptData";
        if (metric != AGG_ANY && metric != AGG_ISL) {
            err_set(e, ERR_INVALID, d->off, "a PromptData has no %s to count (it is a prompt)",
                    agg_metric_name(metric));
            return SHAPES_ERROR;
        }
        o->metric = AGG_ISL;
        return from_prompt_data(o, d, want, e);
    }
    if (str_eq(tag, S("TextModelOutput"))) {
        o->shape = "TextModelOutput";
        if (metric == AGG_ISL) {
            err_set(e, ERR_INVALID, d->off, "a TextModelOutput has no isl to count (it is an output)");
            return SHAPES_ERROR;
        }
        o->metric = metric == AGG_TPOT ? AGG_TPOT : AGG_OSL;
        return from_output(a, o, d, want, metric, e);
    }
    if (str_eq(tag, S("ErrorData"))) {
        o->shape = "ErrorData";
        if (want == SHAPES_AUTO)
            return shapes_skip(o, "ErrorData: nothing to count");
        err_set(e, ERR_INVALID, d->off, "an ErrorData has no %s to count", kind_label(want));
        return SHAPES_ERROR;
    }
    err_set(e, ERR_INVALID, d->u.arr.items[0].off,
            "unknown payload \"%.*s\" (expected PromptData, TextModelOutput or ErrorData)",
            (int)MIN(tag.len, 64), (const char *)tag.s);
    return SHAPES_ERROR;
}

static bool is_payload(const json *v)
{
    return v && v->type == JSON_ARR && v->u.arr.n > 0 && v->u.arr.items[0].type == JSON_STR;
}

static int from_event(arena *a, shapes_item *o, const json *v, int want, int metric, err *e)
{
    const json *type = json_get(v, S("event_type")), *data = json_get(v, S("data"));
    const json *uuid = json_get(v, S("sample_uuid"));
    o->shape = "event";
    if (type->type != JSON_STR)
        return shapes_bad(e, type, "", "event_type", "a string");
    if (nn(data) && !is_payload(data))
        return shapes_bad(e, data, "", "data", "a payload array [\"PromptData\" | \"TextModelOutput\" | "
                   "\"ErrorData\", ...] or null");
    str t = type->u.s;
    int tl = (int)MIN(t.len, 64);
    if (want != SHAPES_AUTO || metric != AGG_ANY) {
        if (!nn(data)) {
            err_set(e, ERR_INVALID, v->off, "%.*s event without data: no %s to count", tl,
                    (const char *)t.s, want != SHAPES_AUTO ? kind_label(want) : agg_metric_name(metric));
            return SHAPES_ERROR;
        }
        return from_payload(a, o, data, want, metric, e);
    }
    /* Upstream's aggregator: only sample events with a uuid reach the
     * triggers; ISL fires on sample.issued, OSL on sample.complete. */
    bool issued = str_eq(t, S("sample.issued")), complete = str_eq(t, S("sample.complete"));
    if (!issued && !complete)
        return shapes_skip(o, "%.*s event: nothing to count (only sample.issued and sample.complete are)",
                    tl, (const char *)t.s);
    if (!uuid || uuid->type != JSON_STR || uuid->u.s.len == 0)
        return shapes_skip(o, "%.*s event without a sample_uuid: nothing to count", tl, (const char *)t.s);
    str want_tag = issued ? S("PromptData") : S("TextModelOutput");
    if (!nn(data) || !str_eq(data->u.arr.items[0].u.s, want_tag))
        return shapes_skip(o, "%.*s event without %.*s: nothing to count", tl, (const char *)t.s,
                    (int)want_tag.len, (const char *)want_tag.s);
    return from_payload(a, o, data, want, metric, e);
}

const char *agg_metric_name(int metric)
{
    switch (metric) {
    case AGG_ISL:  return "isl";
    case AGG_OSL:  return "osl";
    case AGG_TPOT: return "tpot";
    }
    return "";
}

bool agg_is_payload(const json *v)
{
    return is_payload(v);
}

int agg_input(arena *a, const json *v, int want, int metric, shapes_item *out, err *e)
{
    memset(out, 0, sizeof(*out));
    if (want != SHAPES_AUTO && (want < COUNT_IDS || want > COUNT_PROMPT)) {
        err_set(e, ERR_INVALID, -1, "unknown kind %d", want);
        return SHAPES_ERROR;
    }
    if (v->type == JSON_OBJ && json_get(v, S("event_type"))) {
        out->id = json_get(v, S("id"));
        /* Events are told apart by their sample; session events have an
         * empty uuid, which is no id. */
        const json *uuid = json_get(v, S("sample_uuid"));
        if (!out->id && uuid && (uuid->type != JSON_STR || uuid->u.s.len > 0))
            out->id = uuid;
        return from_event(a, out, v, want, metric, e);
    }
    if (is_payload(v))
        return from_payload(a, out, v, want, metric, e);
    if (v->type == JSON_OBJ)
        return shapes_input(a, v, want, out, e);
    err_set(e, ERR_INVALID, v->off, "expected an object or a payload array "
            "[\"PromptData\" | \"TextModelOutput\", ...], found %s", type_name(v));
    return SHAPES_ERROR;
}
