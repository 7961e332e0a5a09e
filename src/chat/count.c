/* count.c - the four counting kinds (count.h): token ids, text, assistant
 * message and full prompt, exactly as upstream's BatchTokenizer and the
 * oracle's `text`, `message` and `prompt --mlcommons` modes count them
 * (../shared/docs/upstream-spec.md §6.3-6.7), fallbacks included. New JSON
 * (the message turn, normalized tool calls, the prompt passed to the chat
 * layer) is built as nodes in the work's scratch arena. */
#include "count.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/os.h"
#include "../json/pyfmt.h"

struct count_model {
    arena      perm;
    tok       *t;
    chat_tmpl *ct;
    i64        prefix_len, baseline;
    const char *baseline_error;
    i64        now;
    bool       no_piece_cache;
    double     render_budget_s;
    double     load_deadline;
};

struct count_work {
    const count_model *m;
    tok_work *tw;
    arena     scratch;
    buf       text;     /* a rendering or a fallback text */
    buf       tmpl_tmp; /* the renders' string buffer (tmpl_render_opts.tmp) */
    double    deadline; /* the caller's (count_work_set_deadline), 0 = none */
};

const char *count_kind_name(count_kind k)
{
    switch (k) {
    case COUNT_IDS:     return "ids";
    case COUNT_TEXT:    return "text";
    case COUNT_MESSAGE: return "message";
    case COUNT_PROMPT:  return "prompt";
    }
    return "?";
}

/* ---- JSON nodes built here ------------------------------------------------ */

static json *jnew(arena *a, json_type t)
{
    json *j = NEW(a, json, 1);
    j->type = (u8)t;
    j->off = -1;
    return j;
}

static json *jstr(arena *a, str s)
{
    json *j = jnew(a, JSON_STR);
    j->u.s = s;
    return j;
}

static json *jbool(arena *a, bool b)
{
    json *j = jnew(a, JSON_BOOL);
    j->u.b = b;
    return j;
}

/* An object with room for `cap` members (fill members[k], set u.obj.n). */
static json *jobj(arena *a, iz cap)
{
    json *j = jnew(a, JSON_OBJ);
    j->u.obj.members = cap ? NEW(a, json_member, cap) : NULL;
    return j;
}

static void jset(json *obj, str key, const json *val)
{
    json_member *m = &obj->u.obj.members[obj->u.obj.n++];
    m->key = key;
    m->val = *val;
}

static json *jarr(arena *a, iz n)
{
    json *j = jnew(a, JSON_ARR);
    j->u.arr.items = n ? NEW(a, json, n) : NULL;
    j->u.arr.n = n;
    return j;
}

/* Python's dict.get on a JSON object: the last member with that key. */
static const json *jget(const json *obj, str key)
{
    return obj && obj->type == JSON_OBJ ? json_get(obj, key) : NULL;
}

/* ---- errors --------------------------------------------------------------- */

static int fail(count_result *r, int code, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fail(count_result *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
    r->code = code;
    return code;
}

/* ---- tool-call argument normalisation (spec §6.7) -------------------------- */

/* normalize_tool_calls: `function.arguments` given as a JSON object string
 * becomes that object; anything else is kept. Python's AttributeError for a
 * tool call (or a truthy function) that is not a dict fails the item, as in
 * upstream, where it happens before the render. */
static const json *normalize_tool_calls(arena *a, const json *tcs, count_result *r, bool *failed)
{
    json *out = jarr(a, tcs->u.arr.n);
    for (iz i = 0; i < tcs->u.arr.n; i++) {
        const json *tc = &tcs->u.arr.items[i];
        out->u.arr.items[i] = *tc;
        if (tc->type != JSON_OBJ) {
            fail(r, ERR_INVALID, "AttributeError: '%s' object has no attribute 'get' (tool_calls[%lld])",
                 json_pytype(tc), (long long)i);
            *failed = true;
            return NULL;
        }
        const json *fn = jget(tc, S("function"));
        if (!json_truthy(fn))
            continue;   /* `tc.get("function") or {}` has no arguments */
        if (fn->type != JSON_OBJ) {
            fail(r, ERR_INVALID, "AttributeError: '%s' object has no attribute 'get' (tool_calls[%lld].function)",
                 json_pytype(fn), (long long)i);
            *failed = true;
            return NULL;
        }
        const json *args = jget(fn, S("arguments"));
        if (!args || args->type != JSON_STR)
            continue;
        err e;
        json *parsed = json_parse(a, args->u.s, NULL, &e);
        if (!parsed || parsed->type != JSON_OBJ)
            continue;   /* not JSON, or not an object: kept as the string */
        /* {**tc, "function": {**fn, "arguments": parsed}}: same keys, same
         * order; a repeated key collapses to its first place, last value, as
         * a dict does (the renderer and the JSON writer read it that way). */
        json *nfn = jobj(a, fn->u.obj.n);
        for (iz k = 0; k < fn->u.obj.n; k++) {
            const json_member *m = &fn->u.obj.members[k];
            jset(nfn, m->key, str_eq(m->key, S("arguments")) ? parsed : &m->val);
        }
        json *ntc = jobj(a, tc->u.obj.n);
        for (iz k = 0; k < tc->u.obj.n; k++) {
            const json_member *m = &tc->u.obj.members[k];
            jset(ntc, m->key, str_eq(m->key, S("function")) ? nfn : &m->val);
        }
        out->u.arr.items[i] = *ntc;
    }
    return out;
}

/* normalize_prompt_messages: messages whose tool_calls is a non-empty list
 * get them normalized; the rest pass through. */
static const json *normalize_messages(arena *a, const json *msgs, count_result *r, bool *failed)
{
    json *out = jarr(a, msgs->u.arr.n);
    for (iz i = 0; i < msgs->u.arr.n; i++) {
        const json *m = &msgs->u.arr.items[i];
        out->u.arr.items[i] = *m;
        const json *tcs = jget(m, S("tool_calls"));
        if (!tcs || tcs->type != JSON_ARR || tcs->u.arr.n == 0)
            continue;
        const json *ntcs = normalize_tool_calls(a, tcs, r, failed);
        if (*failed)
            return NULL;
        json *nm = jobj(a, m->u.obj.n);
        for (iz k = 0; k < m->u.obj.n; k++) {
            const json_member *mm = &m->u.obj.members[k];
            jset(nm, mm->key, str_eq(mm->key, S("tool_calls")) ? ntcs : &mm->val);
        }
        out->u.arr.items[i] = *nm;
    }
    return out;
}

/* ---- counting -------------------------------------------------------------- */

static int count_text_into(count_work *w, str text, count_result *r)
{
    err e = {0};
    i64 n = 0;
    int rc = tok_count(w->m->t, w->tw, text, &n, &e);
    if (rc != ERR_OK)
        return fail(r, rc, "%s", e.msg);
    r->n = n;
    r->code = ERR_OK;
    return ERR_OK;
}

/* Renders a prompt object through the chat layer into w->text. Returns
 * ERR_OK, ERR_TEMPLATE with te->exc set (a Python exception: the caller
 * falls back), or one of our own codes. */
static int render(count_work *w, const json *prompt, tmpl_error *te, chat_render_info *info)
{
    /* the render's own budget, or the caller's deadline when that comes first */
    double budget = os_now() + w->m->render_budget_s;
    bool caller = w->deadline > 0 && w->deadline < budget;
    tmpl_render_opts o = {.now = w->m->now, .tmp = &w->tmpl_tmp, .deadline = caller ? w->deadline : budget};
    w->text.len = 0;
    int rc = chat_render_prompt_info(w->m->ct, prompt, &o, &w->scratch, &w->text, te, info);
    if (rc != ERR_OK && te->exc)
        return ERR_TEMPLATE;
    if (rc == ERR_LIMIT && os_now() >= o.deadline) {
        if (caller) {
            snprintf(te->msg, sizeof te->msg, "stopped: the caller's deadline came first");
            return ERR_STOPPED;
        }
        snprintf(te->msg, sizeof te->msg, "the render ran past its time budget of %g s (--render-timeout)",
                 w->m->render_budget_s);
    }
    return rc;
}

static void copy_fallback(count_result *r, const tmpl_error *te)
{
    r->fallback = te->exc;
    snprintf(r->msg, sizeof r->msg, "%s: %.440s", te->exc, te->msg);
}

/* msgspec.json.encode(v) (compact, key order, msgspec floats) into b. */
static int mlc_json(count_work *w, buf *b, const json *v, count_result *r)
{
    pyfmt_dumps_opts o = {.msgspec = true};
    err e = {0};
    if (!pyfmt_json_dumps(b, v, &o, &w->scratch, &e))
        return fail(r, e.code ? e.code : ERR_NOMEM, "fallback JSON: %s", e.msg);
    return ERR_OK;
}

static int count_message(count_work *w, const count_input *in, count_result *r)
{
    arena *a = &w->scratch;
    const json *content = in->content, *reasoning = in->reasoning, *tcs = in->tool_calls;
    /* msg = {"role": "assistant", "content": content or ""} (+ reasoning_content, tool_calls) */
    json *msg = jobj(a, 4);
    jset(msg, S("role"), jstr(a, S("assistant")));
    jset(msg, S("content"), json_truthy(content) ? content : jstr(a, S("")));
    if (json_truthy(reasoning))
        jset(msg, S("reasoning_content"), reasoning);
    if (json_truthy(tcs)) {
        if (tcs->type != JSON_ARR)
            return fail(r, ERR_INVALID, "tool_calls: expected an array, found %s", json_pytype(tcs));
        bool failed = false;
        const json *ntcs = normalize_tool_calls(a, tcs, r, &failed);
        if (failed)
            return r->code;
        jset(msg, S("tool_calls"), ntcs);
    }
    json *user = jobj(a, 2);
    jset(user, S("role"), jstr(a, S("user")));
    jset(user, S("content"), jstr(a, S("")));
    json *msgs = jarr(a, 2);
    msgs->u.arr.items[0] = *user;
    msgs->u.arr.items[1] = *msg;
    json *prompt = jobj(a, 2);
    jset(prompt, S("messages"), msgs);
    jset(prompt, S("add_generation_prompt"), jbool(a, false));

    tmpl_error te;
    int rc = render(w, prompt, &te, NULL);
    if (rc == ERR_OK) {
        rc = count_text_into(w, buf_view(&w->text), r);
        if (rc != ERR_OK)
            return rc;
        i64 n = r->n - w->m->prefix_len - w->m->baseline;
        r->n = n > 0 ? n : 0;
        return ERR_OK;
    }
    if (rc != ERR_TEMPLATE)
        return fail(r, rc, "%s", te.msg);
    /* Fallback: "\n".join of content, reasoning and the compact JSON of the
     * tool calls as given (not normalized), the falsy ones left out. */
    w->text.len = 0;
    bool first = true;
    const json *parts[2] = {content, reasoning};
    for (int k = 0; k < 2; k++) {
        if (!json_truthy(parts[k]))
            continue;
        if (parts[k]->type != JSON_STR)
            return fail(r, ERR_INVALID, "TypeError: sequence item %d: expected str instance, %s found",
                        first ? 0 : 1, json_pytype(parts[k]));
        if (!first)
            buf_byte(&w->text, '\n');
        buf_str(&w->text, parts[k]->u.s);
        first = false;
    }
    if (json_truthy(tcs)) {
        if (!first)
            buf_byte(&w->text, '\n');
        if (mlc_json(w, &w->text, tcs, r) != ERR_OK)
            return r->code;
    }
    if (w->text.failed)
        return fail(r, ERR_NOMEM, "out of memory building the fallback text");
    rc = count_text_into(w, buf_view(&w->text), r);
    if (rc == ERR_OK)
        copy_fallback(r, &te);
    return rc;
}

/* upstream's PromptInput (spec §6.6) as the oracle's prompt --mlcommons
 * mode runs it: the chat layer (chat_render_prompt) applies transformers'
 * kwargs rules; this layer forces the generation prompt, adds tool_choice,
 * normalizes history tool calls and falls back on a failed render. */
static int count_prompt(count_work *w, const count_input *in, count_result *r)
{
    arena *a = &w->scratch;
    const json *msgs = in->messages;
    if (!msgs || msgs->type != JSON_ARR)
        return fail(r, ERR_INVALID, "messages: expected an array, found %s",
                    msgs ? json_pytype(msgs) : "nothing");
    const json *kw = in->chat_template_kwargs;
    if (kw && kw->type != JSON_NULL && kw->type != JSON_OBJ && json_truthy(kw))
        return fail(r, ERR_UNSUPPORTED, "chat_template_kwargs: expected an object, found %s",
                    json_pytype(kw));
    /* kwargs = dict(chat_template_kwargs or {}); the oracle takes out
     * add_generation_prompt (forced on) and refuses a true
     * continue_final_message before rendering; tool_choice is added. */
    iz nkw = kw && kw->type == JSON_OBJ ? kw->u.obj.n : 0;
    json *kwargs = jobj(a, nkw + 1);
    for (iz k = 0; k < nkw; k++) {
        const json_member *m = &kw->u.obj.members[k];
        if (str_eq(m->key, S("add_generation_prompt")))
            continue;
        if (str_eq(m->key, S("continue_final_message"))) {
            const json *last = json_get(kw, S("continue_final_message"));
            if (json_truthy(last))
                return fail(r, ERR_INVALID, "ValueError: continue_final_message is not supported");
            continue;
        }
        jset(kwargs, m->key, &m->val);
    }
    if (in->tool_choice && in->tool_choice->type != JSON_NULL) {
        /* kwargs["tool_choice"] = tool_choice: replaces an earlier one */
        bool replaced = false;
        for (iz k = 0; k < kwargs->u.obj.n; k++)
            if (str_eq(kwargs->u.obj.members[k].key, S("tool_choice"))) {
                kwargs->u.obj.members[k].val = *in->tool_choice;
                replaced = true;
            }
        if (!replaced)
            jset(kwargs, S("tool_choice"), in->tool_choice);
    }
    bool failed = false;
    const json *nmsgs = normalize_messages(a, msgs, r, &failed);
    if (failed)
        return r->code;
    const json *tools = in->tools && in->tools->type != JSON_NULL ? in->tools : NULL;
    if (tools && tools->type != JSON_ARR)
        return fail(r, ERR_INVALID, "tools: expected an array, found %s", json_pytype(tools));

    json *prompt = jobj(a, 5);
    jset(prompt, S("messages"), nmsgs);
    if (tools)
        jset(prompt, S("tools"), tools);
    jset(prompt, S("add_generation_prompt"), jbool(a, true));
    if (in->chat_template && in->chat_template->type != JSON_NULL)
        jset(prompt, S("chat_template"), in->chat_template);
    jset(prompt, S("chat_template_kwargs"), kwargs);

    tmpl_error te;
    chat_render_info info;
    int rc = render(w, prompt, &te, &info);
    r->tools_unread = json_truthy(tools) && !info.reads_tools;
    if (rc == ERR_OK)
        return count_text_into(w, buf_view(&w->text), r);
    if (rc != ERR_TEMPLATE)
        return fail(r, rc, "%s", te.msg);
    /* Fallback: the compact JSON of {"messages": msgs, "tools": tools}. */
    json *fb = jobj(a, 2);
    jset(fb, S("messages"), nmsgs);
    if (tools)
        jset(fb, S("tools"), tools);
    w->text.len = 0;
    if (mlc_json(w, &w->text, fb, r) != ERR_OK)
        return r->code;
    rc = count_text_into(w, buf_view(&w->text), r);
    if (rc == ERR_OK)
        copy_fallback(r, &te);
    return rc;
}

int count_item(count_work *w, const count_input *in, count_result *r)
{
    r->code = ERR_OK;
    r->n = 0;
    r->fallback = NULL;
    r->tools_unread = false;
    r->msg[0] = 0;
    arena_mark mark = arena_save(&w->scratch);
    jmp_buf jb;
    jmp_buf *old = w->scratch.oom;
    w->scratch.oom = &jb;
    int rc;
    if (setjmp(jb)) {
        rc = fail(r, ERR_NOMEM, "out of memory (the item's scratch arena is full)");
        goto done;
    }
    /* Only a prompt repeats text another item had (the history before its
     * last turns): the piece cache is for prompts. Messages and texts are
     * a model's outputs, new text every time, where it would only miss. */
    tok_work_set_piece_cache(w->tw, in->kind == COUNT_PROMPT && !w->m->no_piece_cache);
    switch (in->kind) {
    case COUNT_IDS:
        if (!in->token_ids || in->token_ids->type != JSON_ARR) {
            rc = fail(r, ERR_INVALID, "token_ids: expected an array, found %s",
                      in->token_ids ? json_pytype(in->token_ids) : "nothing");
            break;
        }
        r->n = in->token_ids->u.arr.n;
        rc = ERR_OK;
        break;
    case COUNT_TEXT:
        rc = count_text_into(w, in->text, r);
        break;
    case COUNT_MESSAGE:
        rc = count_message(w, in, r);
        break;
    case COUNT_PROMPT:
        rc = count_prompt(w, in, r);
        break;
    default:
        rc = fail(r, ERR_INVALID, "unknown kind %d", (int)in->kind);
        break;
    }
done:
    w->scratch.oom = old;
    arena_restore(&w->scratch, mark);
    r->code = rc;
    if (w->text.cap > (16 << 20)) {
        buf_free(&w->text);   /* do not keep one huge item's buffer */
        w->text = (buf){0};
    }
    return rc;
}

/* ---- model and work ------------------------------------------------------- */

/* Tokens of [{"role":"user","content":""}] (+ an empty assistant turn)
 * rendered without generation prompt: upstream's framing. */
static void compute_baseline(count_model *m)
{
    count_work *w = count_work_new(m);
    if (!w) {
        m->baseline_error = "out of memory";
        return;
    }
    count_work_set_deadline(w, m->load_deadline);
    static const char *const src[2] = {
        "{\"messages\":[{\"role\":\"user\",\"content\":\"\"}],\"add_generation_prompt\":false}",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"\"},{\"role\":\"assistant\",\"content\":\"\"}],"
        "\"add_generation_prompt\":false}",
    };
    i64 n[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        err e = {0};
        json *p = json_parse(&w->scratch, str_cstr(src[k]), NULL, &e);
        tmpl_error te;
        int rc = p ? render(w, p, &te, NULL) : ERR_NOMEM;
        count_result r = {0};
        if (rc == ERR_OK)
            rc = count_text_into(w, buf_view(&w->text), &r);
        if (rc != ERR_OK) {
            char msg[ERR_MSG_MAX + 64];
            if (rc == ERR_TEMPLATE)
                snprintf(msg, sizeof msg, "%s: %s", te.exc, te.msg);
            else
                snprintf(msg, sizeof msg, "%s", r.msg[0] ? r.msg : te.msg);
            m->baseline_error = (const char *)arena_strdup(&m->perm, str_cstr(msg)).s;
            m->prefix_len = m->baseline = 0;
            count_work_free(w);
            return;
        }
        n[k] = r.n;
    }
    m->prefix_len = n[0];
    m->baseline = n[1] - n[0];
    count_work_free(w);
}

/* chat_tmpl_load with out of memory in `perm` turned into an error. */
static chat_tmpl *load_chat(arena *perm, const char *path, const char *file, err *e)
{
    jmp_buf jb;
    jmp_buf *old = perm->oom;
    perm->oom = &jb;
    if (setjmp(jb)) {
        perm->oom = old;
        err_set(e, ERR_NOMEM, -1, "out of memory loading the chat template");
        return NULL;
    }
    chat_tmpl *ct = chat_tmpl_load(perm, path, file, e);
    perm->oom = old;
    return ct;
}

count_model *count_model_load(const char *path, const count_model_opts *o, err *e)
{
    count_model *m = calloc(1, sizeof *m);
    if (!m) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    arena_init(&m->perm, 0);
    m->now = o ? o->now : 0;
    m->no_piece_cache = o && o->no_piece_cache;
    m->render_budget_s = o && o->render_budget_s > 0 ? o->render_budget_s : COUNT_RENDER_BUDGET_S;
    m->load_deadline = o ? o->load_deadline : 0;
    m->t = tok_load(path, e);
    if (!m->t) {
        count_model_free(m);
        return NULL;
    }
    m->ct = load_chat(&m->perm, path, o ? o->chat_template_file : NULL, e);
    if (!m->ct) {
        count_model_free(m);
        return NULL;
    }
    compute_baseline(m);
    return m;
}

void count_model_free(count_model *m)
{
    if (!m)
        return;
    tok_free(m->t);
    arena_fini(&m->perm);
    free(m);
}

const tok       *count_model_tok(const count_model *m)          { return m->t; }
const chat_tmpl *count_model_chat(const count_model *m)         { return m->ct; }
i64              count_model_prefix_len(const count_model *m)   { return m->prefix_len; }
i64              count_model_baseline(const count_model *m)     { return m->baseline; }
const char      *count_model_baseline_error(const count_model *m) { return m->baseline_error; }

count_work *count_work_new(const count_model *m)
{
    count_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->m = m;
    w->tw = tok_work_new(m->t);
    if (!w->tw) {
        free(w);
        return NULL;
    }
    /* a generous cap: one item's renders and JSON, far above any real one */
    arena_init(&w->scratch, CHAT_SCRATCH_MAX);
    /* the first MiB stays across items (count_item restores to a mark in
     * it), so small items never go back to malloc */
    arena_reserve(&w->scratch, 1 << 20);
    return w;
}

void count_work_set_deadline(count_work *w, double deadline)
{
    w->deadline = deadline;
}

void count_work_forget_pieces(count_work *w)
{
    tok_work_forget_pieces(w->tw);
}

void count_work_free(count_work *w)
{
    if (!w)
        return;
    tok_work_free(w->tw);
    arena_fini(&w->scratch);
    buf_free(&w->text);
    buf_free(&w->tmpl_tmp);
    free(w);
}
