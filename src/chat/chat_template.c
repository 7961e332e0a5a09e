/* chat_template.c - apply_chat_template's environment around the template
 * engine: finding and compiling a tokenizer's chat template(s), its
 * special-token map, and turning one prompt object into the variables of a
 * render. The reference is the oracle (../shared/oracle/oracle.py:
 * load_chat_templates, special_tokens_map, ChatRenderer, job_prompt). */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "chat_template.h"
#include "../base/os.h"

typedef struct chat_one {
    str        name;    /* empty for an unnamed template */
    tmpl_prog *prog;    /* NULL when it failed to compile */
    err        cerr;    /* the compile error then */
    tmpl_diag  diag;
    i32       *var_sym; /* tmpl_var.sym of the four fixed names, then of the
                           special tokens, in this program */
} chat_one;

struct chat_tmpl {
    chat_one   *t;
    i32         nt;
    bool        named;      /* a named set (Python: a dict of templates) */
    const char *source;
    tmpl_var   *special;
    i32         nspecial;
};

/* The four names apply_chat_template passes itself; a kwarg or special
 * token with one of these names collides with them in Template.render. */
static const str fixed_names[4] = {
    {(const u8 *)"messages", 8}, {(const u8 *)"tools", 5},
    {(const u8 *)"documents", 9}, {(const u8 *)"add_generation_prompt", 21},
};

/* apply_chat_template's own keyword parameters that are not taken out one
 * by one (oracle.py APPLY_PARAMS minus documents, chat_template,
 * add_generation_prompt and continue_final_message). */
static const char *const dropped_params[] = {
    "tools", "tokenize", "padding", "truncation", "max_length", "return_tensors",
    "return_dict", "return_assistant_tokens_mask", "tokenizer_kwargs",
};

static const char *const special_attrs[] = {
    "bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token",
};

static const json json_none = {.type = JSON_NULL};
static const json json_true = {.type = JSON_BOOL, .u.b = true};

/* ---- loading ------------------------------------------------------------ */

/* tokenizer_config.json stores a special token as a string or as a
 * serialized AddedToken {"__type": "AddedToken", "content": ...}; the
 * latter stands for its content (NULL when it has none). */
static const json *token_content(const json *v)
{
    if (v && v->type == JSON_OBJ)
        return json_get(v, S("content"));
    return v;
}

/* dir + "/" + name into out; false (ERR_LIMIT) when it does not fit. */
static bool join_path(char *out, iz cap, const char *dir, str name, err *e)
{
    int n = snprintf(out, (size_t)cap, "%s/%.*s", dir, (int)name.len, (const char *)name.s);
    if (n < 0 || n >= cap)
        return err_set(e, ERR_LIMIT, -1, "%s: path too long", dir), false;
    return true;
}

static void compile_one(arena *perm, chat_one *one, str name, str src)
{
    one->name = name;
    one->prog = tmpl_compile(perm, src, &one->cerr, &one->diag);
}

/* The 7 attributes, additional_special_tokens and the named extras. */
enum { MAX_EXTRA = 56, MAX_SPECIAL = 7 + 1 + MAX_EXTRA };

static void add_special(tmpl_var *v, i32 *n, str name, const json *value)
{
    ASSERT(*n < MAX_SPECIAL);
    v[*n].name = name;
    v[*n].value = value;
    (*n)++;
}

/* transformers' special_tokens_map (oracle.py special_tokens_map). */
static bool load_special(chat_tmpl *ct, arena *perm, const json *cfg, err *e)
{
    const json *extra = json_get(cfg, S("extra_special_tokens"));
    iz nextra = json_is(extra, JSON_OBJ) ? extra->u.obj.n : 0;
    if (nextra > MAX_EXTRA)
        return err_set(e, ERR_LIMIT, -1, "tokenizer_config.json: more than %d extra_special_tokens",
                       MAX_EXTRA), false;
    tmpl_var *v = NEW(perm, tmpl_var, MAX_SPECIAL);
    if (!v)
        return err_set(e, ERR_NOMEM, -1, "out of memory"), false;
    i32 n = 0;
    for (iz k = 0; k < countof(special_attrs); k++) {
        str name = str_cstr(special_attrs[k]);
        const json *t = token_content(json_get(cfg, name));
        if (json_truthy(t))
            add_special(v, &n, name, t);
    }
    /* additional_special_tokens, then extra_special_tokens when it is a
     * list (transformers 5's name for the same list). A falsy value is an
     * empty list; other shapes would make Python iterate keys or
     * characters, which no real tokenizer does. */
    const json *add = json_get(cfg, S("additional_special_tokens"));
    if (json_truthy(add) && add->type != JSON_ARR)
        return err_set(e, ERR_UNSUPPORTED, -1,
                       "tokenizer_config.json: additional_special_tokens is a %s, not a list",
                       json_type_name(add->type)), false;
    iz nadd = json_truthy(add) ? add->u.arr.n : 0;
    iz nlist = json_is(extra, JSON_ARR) ? extra->u.arr.n : 0;
    if (nadd + nlist > 0) {
        json *arr = NEW(perm, json, 1);
        json *items = NEW(perm, json, nadd + nlist);
        if (!arr || !items)
            return err_set(e, ERR_NOMEM, -1, "out of memory"), false;
        for (iz k = 0; k < nadd + nlist; k++) {
            const json *t = token_content(k < nadd ? &add->u.arr.items[k] : &extra->u.arr.items[k - nadd]);
            items[k] = t ? *t : json_none;
        }
        arr->type = JSON_ARR;
        arr->off = -1;
        arr->u.arr.items = items;
        arr->u.arr.n = nadd + nlist;
        add_special(v, &n, S("additional_special_tokens"), arr);
    }
    for (iz k = 0; k < nextra; k++) {
        const json_member *m = &extra->u.obj.members[k];
        const json *t = token_content(&m->val);
        if (json_truthy(t))
            add_special(v, &n, m->key, t);
    }
    ct->special = v;
    ct->nspecial = n;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    const str *x = a, *y = b;
    iz n = MIN(x->len, y->len);
    int c = n ? memcmp(x->s, y->s, (size_t)n) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* chat_template.jinja plus additional_chat_templates/NAME.jinja: "default" and
 * one template per file, in sorted file-name order as the oracle lists
 * them (Python sorts str by code point, which is UTF-8 byte order). */
static bool load_additional(chat_tmpl *ct, arena *perm, const char *dir, str main_src, err *e)
{
    DIR *d = opendir(dir);
    if (!d)
        return err_set(e, ERR_IO, -1, "%s: cannot open the folder", dir), false;
    str names[CHAT_MAX_TEMPLATES];
    i32 n = 0;
    struct dirent *de;
    bool ok = true;
    while ((de = readdir(d))) {
        iz len = (iz)strlen(de->d_name);
        if (len < 6 || memcmp(de->d_name + len - 6, ".jinja", 6) != 0)
            continue;
        if (n == CHAT_MAX_TEMPLATES - 1) {
            err_set(e, ERR_LIMIT, -1, "%s: more than %d templates", dir, CHAT_MAX_TEMPLATES - 1);
            ok = false;
            break;
        }
        names[n++] = arena_strdup(perm, str_from(de->d_name, len));
    }
    closedir(d);
    if (!ok)
        return false;
    qsort(names, (size_t)n, sizeof(str), cmp_str);
    ct->t = NEW(perm, chat_one, n + 1);
    ct->named = true;
    compile_one(perm, &ct->t[0], S("default"), main_src);
    ct->nt = 1;
    for (i32 k = 0; k < n; k++) {
        char path[4096];
        if (!join_path(path, sizeof(path), dir, names[k], e))
            return false;
        str src = os_read_file(perm, path, e);
        if (!src.s)
            return false;
        str name = str_cut(names[k], 0, names[k].len - 6);
        /* A file named default.jinja replaces the main one in Python's
         * dict, keeping its first place. */
        i32 at = ct->nt;
        for (i32 j = 0; j < ct->nt; j++)
            if (str_eq(ct->t[j].name, name))
                at = j;
        compile_one(perm, &ct->t[at], name, src);
        if (at == ct->nt)
            ct->nt++;
    }
    return true;
}

/* "chat_template" of tokenizer_config.json as a list of {name, template}:
 * Python's {t["name"]: t["template"] for t in ct} (a repeated name keeps
 * its first place and its last template). */
static bool load_named_list(chat_tmpl *ct, arena *perm, const json *list, err *e)
{
    if (list->u.arr.n > CHAT_MAX_TEMPLATES)
        return err_set(e, ERR_LIMIT, -1, "tokenizer_config.json: more than %d chat templates",
                       CHAT_MAX_TEMPLATES), false;
    ct->t = NEW(perm, chat_one, list->u.arr.n);
    ct->named = true;
    for (iz k = 0; k < list->u.arr.n; k++) {
        const json *it = &list->u.arr.items[k];
        const json *name = json_get(it, S("name")), *src = json_get(it, S("template"));
        if (!name || !src)
            return err_set(e, ERR_INVALID, it->off,
                           "tokenizer_config.json: chat_template entry %td has no \"%s\"",
                           k, name ? "template" : "name"), false;
        if (name->type != JSON_STR || src->type != JSON_STR)
            return err_set(e, ERR_UNSUPPORTED, it->off,
                           "tokenizer_config.json: chat_template entry %td: name and template must be strings",
                           k), false;
        i32 at = ct->nt;
        for (i32 j = 0; j < ct->nt; j++)
            if (str_eq(ct->t[j].name, name->u.s))
                at = j;
        compile_one(perm, &ct->t[at], name->u.s, src->u.s);
        if (at == ct->nt)
            ct->nt++;
    }
    return true;
}

static chat_tmpl *load(arena *perm, const char *path, const char *template_file, err *e)
{
    char dir[3072];
    iz dlen;
    if (os_is_dir(path)) {
        dlen = (iz)strlen(path);
    } else if (os_is_file(path)) {
        const char *slash = strrchr(path, '/');
        dlen = slash ? slash - path : 0;
    } else {
        err_set(e, ERR_IO, -1, "%s: no such file or folder", path);
        return NULL;
    }
    if (dlen >= (iz)sizeof(dir)) {
        err_set(e, ERR_LIMIT, -1, "%s: path too long", path);
        return NULL;
    }
    if (dlen == 0 && path[0] != '/')
        memcpy(dir, ".", 2);
    else {
        memcpy(dir, path, (size_t)(dlen ? dlen : 1));
        dir[dlen ? dlen : 1] = 0;
    }
    chat_tmpl *ct = NEW(perm, chat_tmpl, 1);
    if (!ct) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }

    /* The config is optional, as in the oracle (an empty dict then). */
    char file[4096];
    if (!join_path(file, sizeof(file), dir, S("tokenizer_config.json"), e))
        return NULL;
    const json *cfg = NULL;
    if (os_is_file(file)) {
        str src = os_read_file(perm, file, e);
        if (!src.s)
            return NULL;
        json *v = json_parse(perm, src, NULL, e);
        if (!v) {
            err_prefix(e, "%s", file);
            return NULL;
        }
        cfg = v;
    }
    if (cfg && cfg->type != JSON_OBJ) {
        err_set(e, ERR_INVALID, 0, "%s: not a JSON object", file);
        return NULL;
    }
    if (!load_special(ct, perm, cfg, e)) {
        if (e && e->code != ERR_NOMEM)
            err_prefix(e, "%s", dir);
        return NULL;
    }

    if (template_file) {
        str src = os_read_file(perm, template_file, e);
        if (!src.s)
            return NULL;
        ct->t = NEW(perm, chat_one, 1);
        compile_one(perm, &ct->t[0], (str){0}, src);
        ct->nt = 1;
        ct->source = "FILE";
        return ct;
    }
    if (!join_path(file, sizeof(file), dir, S("chat_template.jinja"), e))
        return NULL;
    if (os_is_file(file)) {
        str src = os_read_file(perm, file, e);
        if (!src.s)
            return NULL;
        char extra[4096];
        if (!join_path(extra, sizeof(extra), dir, S("additional_chat_templates"), e))
            return NULL;
        if (os_is_dir(extra)) {
            if (!load_additional(ct, perm, extra, src, e))
                return NULL;
            ct->source = "chat_template.jinja + additional_chat_templates/";
            return ct;
        }
        ct->t = NEW(perm, chat_one, 1);
        compile_one(perm, &ct->t[0], (str){0}, src);
        ct->nt = 1;
        ct->source = "chat_template.jinja";
        return ct;
    }
    const json *tj = json_get(cfg, S("chat_template"));
    if (json_is(tj, JSON_ARR)) {
        if (!load_named_list(ct, perm, tj, e))
            return NULL;
        ct->source = "tokenizer_config.json (named list)";
    } else if (json_is(tj, JSON_STR)) {
        ct->t = NEW(perm, chat_one, 1);
        compile_one(perm, &ct->t[0], (str){0}, tj->u.s);
        ct->nt = 1;
        ct->source = "tokenizer_config.json";
    } else {
        ct->source = "none";
    }
    return ct;
}

/* The symbols of the variables every render passes, found once. */
static void find_var_syms(chat_tmpl *ct, arena *perm)
{
    for (i32 k = 0; k < ct->nt; k++) {
        chat_one *one = &ct->t[k];
        if (!one->prog)
            continue;
        one->var_sym = NEW(perm, i32, countof(fixed_names) + ct->nspecial);
        for (i32 j = 0; j < (i32)countof(fixed_names) + ct->nspecial; j++) {
            str name = j < (i32)countof(fixed_names) ? fixed_names[j] : ct->special[j - countof(fixed_names)].name;
            i32 sym = tmpl_sym_find(one->prog, name);
            one->var_sym[j] = sym >= 0 ? sym + 1 : -1;
        }
    }
}

static chat_tmpl *load_all(arena *perm, const char *path, const char *template_file, err *e)
{
    chat_tmpl *ct = load(perm, path, template_file, e);
    if (ct)
        find_var_syms(ct, perm);
    return ct;
}

chat_tmpl *chat_tmpl_load(arena *perm, const char *path, const char *template_file, err *e)
{
    /* Out of memory in perm: take the caller's jump when it set one, else
     * turn the arena's NULL into ERR_NOMEM with our own jump. */
    if (perm->oom)
        return load_all(perm, path, template_file, e);
    jmp_buf jb;
    perm->oom = &jb;
    chat_tmpl *ct = NULL;
    if (setjmp(jb) == 0)
        ct = load_all(perm, path, template_file, e);
    else
        err_set(e, ERR_NOMEM, -1, "out of memory loading the chat template of %s", path);
    perm->oom = NULL;
    return ct;
}

const char *chat_tmpl_source(const chat_tmpl *ct) { return ct->source; }
i32 chat_tmpl_count(const chat_tmpl *ct) { return ct->nt; }
str chat_tmpl_name(const chat_tmpl *ct, i32 k) { return ct->t[k].name; }

const err *chat_tmpl_compile_error(const chat_tmpl *ct, i32 k)
{
    return ct->t[k].prog ? NULL : &ct->t[k].cerr;
}

const tmpl_var *chat_tmpl_special(const chat_tmpl *ct, i32 *n)
{
    *n = ct->nspecial;
    return ct->special;
}

/* ---- rendering ---------------------------------------------------------- */

PRINTF_LIKE(4, 5)
static int fail_with(tmpl_error *te, const char *exc, int code, const char *fmt, ...)
{
    te->exc = exc;
    te->code = code;
    te->line = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(te->msg, sizeof(te->msg), fmt, ap);
    va_end(ap);
    return code;
}

/* A compile error as the exception Jinja raises from from_string: its
 * class, and str(e), which for a translated TemplateSyntaxError is the
 * bare message. Our own failures (limits, unsupported syntax) keep their
 * code with no class. */
static int compile_error(tmpl_error *te, const err *ce, const tmpl_diag *d)
{
    if (ce->code == ERR_SYNTAX && d->kind)
        return fail_with(te, d->kind, ERR_TEMPLATE, "%s", ce->msg);
    return fail_with(te, NULL, ce->code ? ce->code : ERR_INVALID, "chat template line %d: %s", (int)ce->line, ce->msg);
}

static int collision(tmpl_error *te, str name)
{
    return fail_with(te, "TypeError", ERR_TEMPLATE,
                     "jinja2.environment.Template.render() got multiple values for keyword argument '%.*s'",
                     (int)name.len, (const char *)name.s);
}

static bool is_dropped(str key)
{
    for (iz k = 0; k < countof(dropped_params); k++)
        if (str_eq(key, str_cstr(dropped_params[k])))
            return true;
    return str_eq(key, S("documents")) || str_eq(key, S("add_generation_prompt"))
        || str_eq(key, S("chat_template")) || str_eq(key, S("continue_final_message"));
}

/* The names of a named set as Python prints sorted(t): ['a', 'b']. */
static void write_sorted_names(const chat_tmpl *ct, char *out, iz cap)
{
    str names[CHAT_MAX_TEMPLATES];
    for (i32 k = 0; k < ct->nt; k++)
        names[k] = ct->t[k].name;
    qsort(names, (size_t)ct->nt, sizeof(str), cmp_str);
    iz n = snprintf(out, (size_t)cap, "[");
    for (i32 k = 0; k < ct->nt && n < cap; k++)
        n += snprintf(out + n, (size_t)(cap - n), "%s'%.*s'", k ? ", " : "", (int)names[k].len,
                      (const char *)names[k].s);
    if (n < cap)
        snprintf(out + n, (size_t)(cap - n), "]");
}

/* transformers' get_chat_template (oracle.py ChatRenderer.select): the
 * compiled template, or the source to compile when `chat_template` is a
 * template itself. */
static int select_template(const chat_tmpl *ct, const json *chat_template, bool has_tools,
                           const chat_one **one, str *adhoc, tmpl_error *te)
{
    *one = NULL;
    *adhoc = (str){0};
    bool given = chat_template && chat_template->type != JSON_NULL;
    if (given && chat_template->type != JSON_STR)
        return fail_with(te, NULL, ERR_UNSUPPORTED, "chat_template is a %s, not a name or a template",
                     json_type_name(chat_template->type));
    if (ct->named) {
        if (given) {
            for (i32 k = 0; k < ct->nt; k++)
                if (str_eq(ct->t[k].name, chat_template->u.s)) {
                    *one = &ct->t[k];
                    return ERR_OK;
                }
            *adhoc = chat_template->u.s;
            return ERR_OK;
        }
        const chat_one *def = NULL, *tool_use = NULL;
        for (i32 k = 0; k < ct->nt; k++) {
            if (str_eq(ct->t[k].name, S("default")))
                def = &ct->t[k];
            if (str_eq(ct->t[k].name, S("tool_use")))
                tool_use = &ct->t[k];
        }
        *one = has_tools && tool_use ? tool_use : def;
        if (*one)
            return ERR_OK;
        char names[400];
        write_sorted_names(ct, names, sizeof(names));
        return fail_with(te, "ValueError", ERR_TEMPLATE,
                     "tokenizer has several chat templates and none is named 'default': %s; pass chat_template",
                     names);
    }
    if (given) {
        *adhoc = chat_template->u.s;
        return ERR_OK;
    }
    if (ct->nt == 0)
        return fail_with(te, "ValueError", ERR_TEMPLATE, "tokenizer has no chat_template and none was given");
    *one = &ct->t[0];
    return ERR_OK;
}

/* The most of a prompt's tree streamed in before a render: a long history
 * stays within the core's own caches. */
enum { PREFETCH_TREE = 256 << 10 };

static int render(const chat_tmpl *ct, const json *prompt, const tmpl_render_opts *o, arena *scratch,
                  buf *out, tmpl_error *te, chat_render_info *info)
{
    if (!prompt || prompt->type != JSON_OBJ)
        return fail_with(te, "TypeError", ERR_TEMPLATE, "input line must be a JSON object");
    /* out of cache (a prompt parsed long before), its members, then the
     * history and the tools below them, streamed in before the lookups */
    json_prefetch_tree(prompt, PREFETCH_TREE);
    const json *messages = json_get(prompt, S("messages"));
    if (!messages)
        return fail_with(te, "KeyError", ERR_TEMPLATE, "'messages'");
    const json *tools = json_get(prompt, S("tools"));
    if (!tools)
        tools = &json_none;

    /* kwargs = dict(item.get("chat_template_kwargs") or {}) */
    const json *kw = json_get(prompt, S("chat_template_kwargs"));
    if (!json_truthy(kw))
        kw = NULL;
    else if (kw->type != JSON_OBJ)
        return fail_with(te, NULL, ERR_UNSUPPORTED, "chat_template_kwargs is a %s, not an object",
                     json_type_name(kw->type));
    const json *documents = json_get(kw, S("documents"));
    if (!documents)
        documents = json_get(prompt, S("documents"));
    if (!documents)
        documents = &json_none;
    const json *chat_template = json_get(kw, S("chat_template"));
    if (!chat_template)
        chat_template = json_get(prompt, S("chat_template"));
    const json *agp = json_get(kw, S("add_generation_prompt"));
    if (!agp)
        agp = json_get(prompt, S("add_generation_prompt"));
    if (!agp)
        agp = &json_true;
    if (json_truthy(json_get(kw, S("continue_final_message"))))
        return fail_with(te, "ValueError", ERR_TEMPLATE, "continue_final_message is not supported");

    /* A kwarg named "messages" or "self" collides with the parameters of
     * the oracle's ChatRenderer.render(self, messages, ..., **kwargs)
     * before any template is chosen. For "messages" transformers' wording
     * of that TypeError is used (it collides there one call later). */
    iz nkw = kw ? kw->u.obj.n : 0;
    for (iz k = 0; k < nkw; k++) {
        str key = kw->u.obj.members[k].key;
        if (str_eq(key, S("messages")))
            return collision(te, key);
        if (str_eq(key, S("self")))
            return fail_with(te, "TypeError", ERR_TEMPLATE,
                             "apply_chat_template() got multiple values for argument 'self'");
    }

    const chat_one *one;
    str adhoc;
    int rc = select_template(ct, chat_template, tools->type != JSON_NULL, &one, &adhoc, te);
    if (rc)
        return rc;
    const tmpl_prog *prog;
    if (one) {
        if (!one->prog)
            return compile_error(te, &one->cerr, &one->diag);
        prog = one->prog;
    } else {
        err ce = {0};
        tmpl_diag d = {0};
        prog = tmpl_compile(scratch, adhoc, &ce, &d);
        if (!prog)
            return compile_error(te, &ce, &d);
    }
    if (info)
        info->reads_tools = one ? one->var_sym[1] > 0 : tmpl_sym_find(prog, S("tools")) >= 0;

    /* render(messages=, tools=, documents=, add_generation_prompt=,
     * **{**special, **kwargs}): a special token named like one of the four
     * is Python's TypeError (the kwargs with those names are gone by now). */
    for (i32 k = 0; k < ct->nspecial; k++)
        for (iz j = 0; j < countof(fixed_names); j++)
            if (str_eq(ct->special[k].name, fixed_names[j]))
                return collision(te, ct->special[k].name);
    tmpl_var *vars = NEW(scratch, tmpl_var, 4 + ct->nspecial + nkw);
    if (!vars)
        return fail_with(te, NULL, ERR_NOMEM, "out of memory");
    i32 n = 0;
    const i32 *vs = one ? one->var_sym : NULL;
    vars[n++] = (tmpl_var){S("messages"), messages, vs ? vs[0] : 0};
    vars[n++] = (tmpl_var){S("tools"), tools, vs ? vs[1] : 0};
    vars[n++] = (tmpl_var){S("documents"), documents, vs ? vs[2] : 0};
    vars[n++] = (tmpl_var){S("add_generation_prompt"), agp, vs ? vs[3] : 0};
    for (i32 k = 0; k < ct->nspecial; k++) {
        vars[n] = ct->special[k];
        vars[n++].sym = vs ? vs[countof(fixed_names) + k] : 0;
    }
    for (iz k = 0; k < nkw; k++) {
        const json_member *m = &kw->u.obj.members[k];
        if (!is_dropped(m->key))
            vars[n++] = (tmpl_var){m->key, &m->val, 0};
    }
    return tmpl_render(prog, vars, n, o, scratch, out, te);
}

int chat_render_prompt(const chat_tmpl *ct, const json *prompt, const tmpl_render_opts *o,
                       arena *scratch, buf *out, tmpl_error *te)
{
    return chat_render_prompt_info(ct, prompt, o, scratch, out, te, NULL);
}

int chat_render_prompt_info(const chat_tmpl *ct, const json *prompt, const tmpl_render_opts *o,
                            arena *scratch, buf *out, tmpl_error *te, chat_render_info *info)
{
    if (info)
        info->reads_tools = false;
    arena_mark m = arena_save(scratch);
    iz len0 = out->len;
    memset(te, 0, sizeof(*te));
    int rc;
    jmp_buf jb, *prev = scratch->oom;
    /* Our own allocations (the variables, a template given in the prompt)
     * may run the scratch arena out: that is this item's ERR_NOMEM. */
    scratch->oom = &jb;
    if (setjmp(jb) == 0)
        rc = render(ct, prompt, o, scratch, out, te, info);
    else
        rc = fail_with(te, NULL, ERR_NOMEM, "out of memory rendering the chat template");
    scratch->oom = prev;
    if (rc != ERR_OK)
        out->len = len0;
    arena_restore(scratch, m);
    return rc;
}
