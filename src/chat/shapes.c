/* shapes.c - the oracle's input objects of the counting kinds (shapes.h):
 * {"token_ids"}, {"text"}, {"messages", ...}, {"content", "reasoning",
 * "tool_calls"} into count_input, with the field checks that upstream's
 * payloads (src/agg/inputs.c) share. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "shapes.h"

/* ---- small helpers ------------------------------------------------------- */

const char *shapes_type_name(const json *v)
{
    return v ? json_type_name(v->type) : "nothing";
}

/* A JSON null stands for Python's None, as an absent field does: count.h
 * wants NULL for both. */
const json *shapes_nn(const json *v)
{
    return v && v->type != JSON_NULL ? v : NULL;
}

#define type_name shapes_type_name
#define nn shapes_nn

/* ---- field checks -------------------------------------------------------- */

/* `where` prefixes field names: "" for the oracle's objects,
 * "PromptData." for upstream's payloads. */
int shapes_bad(err *e, const json *v, const char *where, const char *field, const char *expected)
{
    err_set(e, ERR_INVALID, v ? v->off : -1, "%s%s: expected %s, found %s", where, field, expected,
            type_name(v));
    return SHAPES_ERROR;
}

static bool is_ids(const json *v, iz *bad_at)
{
    *bad_at = -1;
    if (!v || v->type != JSON_ARR)
        return false;
    for (iz k = 0; k < v->u.arr.n; k++)
        if (v->u.arr.items[k].type != JSON_INT) {
            *bad_at = k;
            return false;
        }
    return true;
}

int shapes_take_ids(shapes_item *o, const json *v, const char *where, err *e)
{
    iz at;
    if (!is_ids(v, &at)) {
        if (at >= 0) {
            err_set(e, ERR_INVALID, v->u.arr.items[at].off,
                    "%stoken_ids[%td]: expected an integer, found %s", where, at,
                    type_name(&v->u.arr.items[at]));
            return SHAPES_ERROR;
        }
        return shapes_bad(e, v, where, "token_ids", "an array of integers");
    }
    o->in.kind = COUNT_IDS;
    o->in.token_ids = v;
    return SHAPES_COUNT;
}

int shapes_take_text(shapes_item *o, const json *v, const char *where, err *e)
{
    if (!v || v->type != JSON_STR)
        return shapes_bad(e, v, where, "text", "a string");
    o->in.kind = COUNT_TEXT;
    o->in.text = v->u.s;
    return SHAPES_COUNT;
}

/* The prompt fields; `strict` (upstream's payloads) also wants objects as
 * the elements of messages and tools (tuple[dict, ...]). */
int shapes_take_prompt(shapes_item *o, const json *messages, const json *tools, const json *kwargs,
                       const json *tmpl, const json *choice, const char *where, bool strict, err *e)
{
    if (!messages || messages->type != JSON_ARR)
        return shapes_bad(e, messages, where, "messages", "an array");
    if (nn(tools) && tools->type != JSON_ARR)
        return shapes_bad(e, tools, where, "tools", "an array or null");
    if (strict) {
        for (int f = 0; f < 2; f++) {
            const json *arr = f ? nn(tools) : messages;
            for (iz k = 0; arr && k < arr->u.arr.n; k++)
                if (arr->u.arr.items[k].type != JSON_OBJ) {
                    err_set(e, ERR_INVALID, arr->u.arr.items[k].off, "%s%s[%td]: expected an object, "
                            "found %s", where, f ? "tools" : "messages", k,
                            type_name(&arr->u.arr.items[k]));
                    return SHAPES_ERROR;
                }
        }
    }
    if (nn(kwargs) && kwargs->type != JSON_OBJ)
        return shapes_bad(e, kwargs, where, "chat_template_kwargs", "an object or null");
    if (nn(tmpl) && tmpl->type != JSON_STR)
        return shapes_bad(e, tmpl, where, "chat_template", "a string or null");
    if (nn(choice) && choice->type != JSON_STR && choice->type != JSON_OBJ)
        return shapes_bad(e, choice, where, "tool_choice", "a string, an object or null");
    o->in.kind = COUNT_PROMPT;
    o->in.messages = messages;
    o->in.tools = nn(tools);
    o->in.chat_template_kwargs = nn(kwargs);
    o->in.chat_template = nn(tmpl);
    o->in.tool_choice = nn(choice);
    return SHAPES_COUNT;
}

int shapes_skip(shapes_item *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->skip, sizeof(o->skip), fmt, ap);
    va_end(ap);
    return SHAPES_SKIP;
}

/* ---- the oracle's objects ------------------------------------------------ */

static int from_object(shapes_item *o, const json *v, int want, err *e)
{
    const json *ids = json_get(v, S("token_ids")), *text = json_get(v, S("text"));
    const json *messages = json_get(v, S("messages"));
    const json *content = json_get(v, S("content")), *reasoning = json_get(v, S("reasoning"));
    const json *tool_calls = json_get(v, S("tool_calls"));
    o->shape = "object";
    if (want == SHAPES_AUTO) {
        if (nn(ids))
            want = COUNT_IDS;
        else if (nn(text))
            want = COUNT_TEXT;
        else if (nn(messages))
            want = COUNT_PROMPT;
        else if (content || reasoning || tool_calls)
            want = COUNT_MESSAGE;
        else {
            err_set(e, ERR_INVALID, v->off, "nothing to count: expected \"token_ids\", \"text\", "
                    "\"messages\" or \"content\"/\"reasoning\"/\"tool_calls\", or an event");
            return SHAPES_ERROR;
        }
    }
    switch (want) {
    case COUNT_IDS:
        return shapes_take_ids(o, ids, "", e);
    case COUNT_TEXT:
        return shapes_take_text(o, text, "", e);
    case COUNT_PROMPT:
        return shapes_take_prompt(o, messages, json_get(v, S("tools")), json_get(v, S("chat_template_kwargs")),
                           json_get(v, S("chat_template")), json_get(v, S("tool_choice")), "", false, e);
    case COUNT_MESSAGE:
        /* none of the three at all is not an empty message but a line of
         * some other shape (null ones are an empty message, as upstream's) */
        if (!content && !reasoning && !tool_calls) {
            err_set(e, ERR_INVALID, v->off, "expected \"content\", \"reasoning\" or \"tool_calls\" "
                    "(an assistant message), found none of them");
            return SHAPES_ERROR;
        }
        if (nn(content) && content->type != JSON_STR)
            return shapes_bad(e, content, "", "content", "a string or null");
        if (nn(reasoning) && reasoning->type != JSON_STR)
            return shapes_bad(e, reasoning, "", "reasoning", "a string or null");
        /* The elements are the counting layer's to check (it fails a tool
         * call that is not an object as upstream's normalisation does). */
        if (nn(tool_calls) && tool_calls->type != JSON_ARR)
            return shapes_bad(e, tool_calls, "", "tool_calls", "an array or null");
        o->in.kind = COUNT_MESSAGE;
        o->in.content = nn(content);
        o->in.reasoning = nn(reasoning);
        o->in.tool_calls = nn(tool_calls);
        return SHAPES_COUNT;
    default:
        err_set(e, ERR_INVALID, -1, "unknown kind %d", want);
        return SHAPES_ERROR;
    }
}

int shapes_input(arena *a, const json *v, int want, shapes_item *out, err *e)
{
    (void)a;
    memset(out, 0, sizeof(*out));
    if (want != SHAPES_AUTO && (want < COUNT_IDS || want > COUNT_PROMPT)) {
        err_set(e, ERR_INVALID, -1, "unknown kind %d", want);
        return SHAPES_ERROR;
    }
    if (v->type == JSON_OBJ) {
        out->id = json_get(v, S("id"));
        return from_object(out, v, want, e);
    }
    err_set(e, ERR_INVALID, v->off, "expected an object, found %s", type_name(v));
    return SHAPES_ERROR;
}
