/* tmpl_eval.c - the evaluator: runs a compiled template (tmpl_ast.h) over
 * render variables the way Jinja2 3.1's generated code runs in the
 * immutable sandbox transformers uses, writing the output into a buffer.
 * Values are tmpl_value.h's; the operators (tmpl_arith.c), the globals
 * (tmpl_globals.c), filters, tests and methods live in their own files.
 * Errors longjmp out of any depth to tmpl_render (tmpl_raise).
 *
 * Variables are those of Jinja's generated Python, resolved at compile
 * time (tmpl_frames.c, "frames" in tmpl_ast.h): each call of one of the
 * template's functions (the template, a macro, a caller, ...) is an
 * activation with a slot per variable; a name reads its slot, in its own
 * activation or one its function is nested in; entering a frame (a loop
 * iteration, a with, filter or set block) runs its loads, leaving it makes
 * its variables missing. */
#include "tmpl_value.h"

#include <stdio.h>

#include "tmpl_pystr.h"

/* ---- activations --------------------------------------------------------
 * A call of one of the template's functions (tmpl_frames, tmpl_ast.h): the
 * template itself, a macro or caller, a generation body, a recursive
 * loop's body, a loop filter. Its slots are that function's variables
 * (TV_MISSING until set); `up` is the activation of the function it is
 * defined in, whose variables it reads as they are when it reads them. */
typedef struct act act;
struct act {
    act *up;
    tv  *slot;
};

typedef struct ev {
    tmpl_rt          rt;
    const tmpl_prog *p;
    buf             *out;
    iz               max_output;
    /* the captured body a FILTER with a NULL arg filters (filter and set blocks) */
    tv               body_arg;
    /* Jinja's context: the render variables by symbol; context.vars (what
     * the top level assigns, kept only when a block may read it); a scoped
     * block's locals while it runs */
    tv              *vars;
    u8              *has_var;
    tv              *exported;
    u8              *has_exported;
    const tv        *block_locals;
    const tmpl_frame *block_frame;
    /* the last attribute ev_attr_name found in a dict of the context (which
     * nothing changes during a render): the dict, the name's symbol, the
     * value; so an elif chain testing message.role searches once */
    const tv_dict   *ac_dict;
    i32              ac_sym;
    tv               ac_val;
} ev;

_Static_assert(offsetof(ev, rt) == 0, "an ev is found from its tmpl_rt (loop_more)");

enum { X_OK = 0, X_BREAK, X_CONTINUE };

static act *act_new(ev *e, act *up, const tmpl_frame *fr)
{
    act *a = NEW_NZ(e->rt.a, act, 1);
    a->up = up;
    a->slot = fr->nslots ? NEW_NZ(e->rt.a, tv, fr->nslots) : NULL;
    for (i32 i = 0; i < fr->nslots; i++)
        a->slot[i] = tv_missing();
    return a;
}

static NOINLINE const act *act_up_far(const act *a, u8 up)
{
    for (; up; up--)
        a = a->up;
    return a;
}

static ALWAYS_INLINE const act *act_up(const act *a, u8 up)
{
    return likely(up == 0) ? a : act_up_far(a, up);
}

static NOINLINE tv resolve_block(ev *e, i32 sym)
{
    if (e->block_locals) {
        const tmpl_frame *fr = e->block_frame;
        for (i32 i = 0; i < fr->nlocals; i++)
            if (fr->locals[i].arg == sym && e->block_locals[i].kind != TV_MISSING)
                return e->block_locals[i];
    }
    if (e->exported && e->has_exported[sym])
        return e->exported[sym];
    return e->has_var[sym] ? e->vars[sym] : tv_missing();
}

/* Jinja's Context.resolve_or_missing: a scoped block's locals, what the
 * top level assigned so far, the render variables and the globals
 * (tmpl_render puts the globals among the variables). */
static ALWAYS_INLINE tv resolve(ev *e, i32 sym)
{
    if (unlikely(e->block_locals || e->exported))
        return resolve_block(e, sym);
    return e->has_var[sym] ? e->vars[sym] : tv_missing();
}

/* enter_frame: the frame's loads, in activation s. */
static ALWAYS_INLINE void frame_enter(ev *e, act *s, const tmpl_frame *fr)
{
    for (i32 i = 0; i < fr->nenter; i++) {
        const tmpl_load *l = &fr->loads[i];
        switch ((tmpl_load_action)l->action) {
        case TMPL_LOAD_PARAM: break;
        case TMPL_LOAD_RESOLVE: s->slot[l->slot] = resolve(e, l->arg); break;
        case TMPL_LOAD_ALIAS: s->slot[l->slot] = act_up(s, l->up)->slot[l->arg]; break;
        case TMPL_LOAD_UNDEFINED: s->slot[l->slot] = tv_missing(); break;
        }
    }
}

/* leave_frame: what the frame loaded is missing again. */
static void frame_leave(act *s, const tmpl_frame *fr)
{
    if (fr->keep)
        return;
    for (i32 i = 0; i < fr->nloads; i++)
        s->slot[fr->loads[i].slot] = tv_missing();
}

static NOINLINE tv undefined_name(ev *e, const tmpl_node *n)
{
    str name = n->kind == TMPL_NAME ? n->u.name.s : n->u.nsref.name.s;
    return tv_undef_name(&e->rt, name);
}

/* A NAME (or NSREF's name) node's variable; missing reads as an Undefined
 * where Jinja's code checks for it. */
static ALWAYS_INLINE tv load_var(ev *e, const act *s, const tmpl_node *n)
{
    tv v = act_up(s, n->up)->slot[n->slot];
    if (unlikely(v.kind == TV_MISSING) && (n->flags & TMPL_NAME_CHECK))
        return undefined_name(e, n);
    return v;
}

/* A store into a NAME node's variable (always the current function's). */
static ALWAYS_INLINE void store_var(ev *e, act *s, const tmpl_node *n, i32 sym, tv v)
{
    ASSERT(n->up == 0);
    s->slot[n->slot] = v;
    if (unlikely(n->flags & TMPL_NAME_EXPORT) && e->exported) {
        e->exported[sym] = v;
        e->has_exported[sym] = 1;
    }
}

/* ---- output ------------------------------------------------------------ */

static void emit(ev *e, str s)
{
    buf_str(e->out, s);
    if (e->out->failed)
        tmpl_fail(&e->rt, ERR_NOMEM, "out of memory writing the output");
    if (e->out->len > e->max_output)
        tmpl_fail(&e->rt, ERR_LIMIT, "the output grew past %lld bytes", (long long)e->max_output);
}

static void emit_value(ev *e, tv v)
{
    if (v.kind == TV_STR) {
        emit(e, tv_s(v));
        return;
    }
    if (v.kind == TV_UNDEF)
        return;
    tv_write_str(&e->rt, e->out, v);
    if (e->out->failed)
        tmpl_fail(&e->rt, ERR_NOMEM, "out of memory writing the output");
    if (e->out->len > e->max_output)
        tmpl_fail(&e->rt, ERR_LIMIT, "the output grew past %lld bytes", (long long)e->max_output);
}

static int exec_body(ev *e, act *s, const tmpl_list *body);
static tv eval_node(ev *e, act *s, const tmpl_node *n);

/* The bytes of b from `start` on, copied into the arena (b->data may still
 * be NULL when nothing was written). Checked: the caller's max_output may
 * let a captured body grow past TV_MAX_STR. */
static tv tail_copy(ev *e, const buf *b, iz start)
{
    if (b->len == start)
        return tv_str(S(""));
    tmpl_work(&e->rt, tmpl_bytes_steps(b->len - start));
    return tv_str_checked(&e->rt, arena_strdup(e->rt.a, str_from(b->data + start, b->len - start)));
}

/* Runs a body into a string instead of the output; or, when a break or
 * continue leaves the loop around it from inside (a set or filter block's
 * body: Jinja compiles it inline), into nothing, *x saying which (x may be
 * NULL where none can: a macro's body). */
static tv capture(ev *e, act *s, const tmpl_list *body, int *x)
{
    iz start = e->out->len;
    int r = exec_body(e, s, body);
    tmpl_work(&e->rt, tmpl_bytes_steps(e->out->len - start));   /* written, and then taken back */
    tv v = r == X_OK ? tail_copy(e, e->out, start) : tv_str(S(""));
    e->out->len = start;
    if (x)
        *x = r;
    return v;
}

/* ---- names ------------------------------------------------------------- */

static tv ev_attr_name(ev *e, act *s, const tmpl_node *n);
static tv ev_loop_attr(ev *e, act *s, const tmpl_node *n);

/* An expression's value. Names and string literals, a third of what a
 * template evaluates, are taken here without a call. */
static inline tv eval(ev *e, act *s, const tmpl_node *n)
{
    switch ((tmpl_kind)n->kind) {
    case TMPL_STR:  return tv_str(n->u.text);
    case TMPL_NAME: return load_var(e, s, n);
    case TMPL_INT:  return likely(!n->u.i.big) ? tv_int(n->u.i.v) : eval_node(e, s, n);
    case TMPL_GETATTR:   /* message.content, loop.index0: to their own functions directly */
        return n->op == 2 ? ev_attr_name(e, s, n) : n->op == 1 ? ev_loop_attr(e, s, n) : eval_node(e, s, n);
    default:        return eval_node(e, s, n);
    }
}

/* Python's unpacking of `v` into n targets. */
static const tv *unpack(ev *e, tv v, iz n)
{
    if (v.kind != TV_LIST && v.kind != TV_TUPLE && v.kind != TV_STR && v.kind != TV_DICT &&
        v.kind != TV_UNDEF)
        tmpl_raise(&e->rt, "TypeError", "cannot unpack non-iterable %s object", tv_type_name(v));
    iz have;
    const tv *items = tv_iterate(&e->rt, v, &have);
    if (have > n)
        tmpl_raise(&e->rt, "ValueError", "too many values to unpack (expected %lld)", (long long)n);
    if (have < n)
        tmpl_raise(&e->rt, "ValueError", "not enough values to unpack (expected %lld, got %lld)",
                   (long long)n, (long long)have);
    return items;
}

static void assign(ev *e, act *s, const tmpl_node *target, tv v)
{
    switch (target->kind) {
    case TMPL_NAME:
        store_var(e, s, target, target->u.name.sym, v);
        return;
    case TMPL_TUPLE: {
        const tv *items = unpack(e, v, target->u.items.n);
        for (i32 i = 0; i < target->u.items.n; i++)
            assign(e, s, target->u.items.v[i], items[i]);
        return;
    }
    case TMPL_NSREF: {
        tv ns = act_up(s, target->up)->slot[target->slot];
        if (ns.kind != TV_NS)
            tmpl_raise(&e->rt, "TemplateRuntimeError", "cannot assign attribute on non-namespace object");
        tv_dict_set(&e->rt, ns.u.dict, tv_str(target->u.nsref.attr.s), v);
        ns.u.dict->origin = NULL;
        e->rt.escapes++;
        return;
    }
    default:
        tmpl_fail(&e->rt, ERR_UNSUPPORTED, "cannot assign to a %s", tmpl_kind_name((tmpl_kind)target->kind));
    }
}

/* ---- calls ------------------------------------------------------------- */

/* The arguments of a call being evaluated, positional then keyword: the
 * first few positional ones in the struct itself (it lives in the caller's
 * frame for the call), the rest in the arena. */
enum { ARGV_INLINE = 4 };

typedef struct argv {
    tv  *pos;
    i32  npos, cpos;
    str *kwname;
    tv  *kw;
    i32  nkw, ckw;
    tv   ipos[ARGV_INLINE];
} argv;

static void argv_pos(ev *e, argv *a, tv v)
{
    if (a->npos == a->cpos) {
        if (!a->cpos) {
            a->pos = a->ipos;
            a->cpos = ARGV_INLINE;
            a->pos[a->npos++] = v;
            return;
        }
        i32 cap = a->cpos * 2;
        tv *p = NEW_NZ(e->rt.a, tv, cap);
        if (a->npos) memcpy(p, a->pos, sizeof *p * (size_t)a->npos);
        a->pos = p;
        a->cpos = cap;
    }
    a->pos[a->npos++] = v;
}

static void argv_kw(ev *e, argv *a, str name, tv v)
{
    for (i32 i = 0; i < a->nkw; i++)
        if (str_eq(a->kwname[i], name))
            tmpl_raise(&e->rt, "TypeError", "got multiple values for keyword argument '%.*s'",
                       (int)name.len, (const char *)name.s);
    if (a->nkw == a->ckw) {
        i32 cap = a->ckw ? a->ckw * 2 : 4;
        str *n = NEW_NZ(e->rt.a, str, cap);
        tv *p = NEW_NZ(e->rt.a, tv, cap);
        if (a->nkw) {
            memcpy(n, a->kwname, sizeof *n * (size_t)a->nkw);
            memcpy(p, a->kw, sizeof *p * (size_t)a->nkw);
        }
        a->kwname = n;
        a->kw = p;
        a->ckw = cap;
    }
    a->kwname[a->nkw] = name;
    a->kw[a->nkw++] = v;
}

static void eval_args(ev *e, act *s, const tmpl_args *in, argv *out)
{
    for (i32 i = 0; i < in->pos.n; i++)
        argv_pos(e, out, eval(e, s, in->pos.v[i]));
    for (i32 i = 0; i < in->nkw; i++)
        argv_kw(e, out, in->kw[i].key.s, eval(e, s, in->kw[i].value));
    if (in->star) {
        tv v = eval(e, s, in->star);
        iz n;
        const tv *items = tv_iterate(&e->rt, v, &n);
        tmpl_work(&e->rt, n);
        for (iz i = 0; i < n; i++)
            argv_pos(e, out, items[i]);
    }
    if (in->dstar) {
        tv v = eval(e, s, in->dstar);
        if (v.kind != TV_DICT)
            tmpl_raise(&e->rt, "TypeError", "argument after ** must be a mapping, not %s",
                       tv_type_name(v));
        for (iz i = 0; i < tv_dict_n(v.u.dict); i++) {
            tv k = tv_dict_e(v.u.dict)[i].key;
            if (k.kind != TV_STR)
                tmpl_raise(&e->rt, "TypeError", "keywords must be strings");
            argv_kw(e, out, tv_s(k), tv_dict_e(v.u.dict)[i].val);
        }
    }
}

static tv_args args_view(const argv *a)
{
    tv_args r = {a->pos, a->npos, a->kwname, a->kw, a->nkw};
    return r;
}

static tv call_value(ev *e, tv callee, const tv_args *args);

static tv macro_value(ev *e, act *closure, const tmpl_node *n, str name, u8 uses)
{
    tv_macro *m = NEW(e->rt.a, tv_macro, 1);
    e->rt.escapes++;
    m->node = n;
    m->closure = closure;
    m->name = name;
    m->uses = uses;
    tv v = {.kind = TV_MACRO};
    v.u.macro = m;
    return v;
}

/* repr(Macro.name) into out (a call block's is None), for messages. */
static const char *macro_repr(const tv_macro *m, char out[static 160])
{
    if (m->name.len)
        snprintf(out, 160, "'%.*s'", (int)MIN(m->name.len, 120), (const char *)m->name.s);
    else
        snprintf(out, 160, "None");
    return out;
}

/* Jinja's Macro.__call__ and _invoke. */
static tv call_macro(ev *e, const tv_macro *m, const tv_args *args)
{
    const tmpl_node *n = m->node;
    const tmpl_list *params = &n->u.macro.params;
    const tmpl_list *defaults = &n->u.macro.defaults;
    i32 np = params->n;
    bool uses_caller = m->uses & TVM_USES_CALLER;
    bool uses_varargs = m->uses & TVM_USES_VARARGS;
    bool uses_kwargs = m->uses & TVM_USES_KWARGS;
    if (++e->rt.depth > TMPL_MAX_CALL_DEPTH)
        tmpl_raise(&e->rt, "RecursionError", "maximum recursion depth exceeded");

    const tmpl_frame *fr = n->u.macro.frame;
    tmpl_work(&e->rt, fr->steps);   /* the nodes the body may run (tmpl_runtime_bind) */
    act *s = act_new(e, (act *)m->closure, fr);
    u8 *used_kw = args->nkw ? NEW(e->rt.a, u8, args->nkw) : NULL;
    bool found_caller = false;
    /* Macro.__call__: the arguments given (a missing one stays missing) */
    for (i32 i = 0; i < np; i++) {
        const tmpl_node *p = params->v[i];
        if (i < args->npos) {
            s->slot[p->slot] = args->pos[i];
            continue;
        }
        for (i32 k = 0; k < args->nkw; k++)
            if (!used_kw[k] && str_eq(args->kwname[k], p->u.name.s)) {
                s->slot[p->slot] = args->kw[k];
                used_kw[k] = 1;
                break;
            }
        if (str_eq(p->u.name.s, S("caller")))
            found_caller = true;
    }
    if (args->npos >= np && np > 0)
        found_caller = false;   /* Jinja's explicit_caller: a `caller` parameter */
    for (i32 i = 0; i < np; i++)
        if (args->npos >= np && str_eq(params->v[i]->u.name.s, S("caller")))
            found_caller = true;
    if (uses_caller && !found_caller) {
        tv caller = tv_undef_hint(&e->rt, "UndefinedError", "No caller defined");
        for (i32 k = 0; k < args->nkw; k++)
            if (!used_kw[k] && str_eq(args->kwname[k], S("caller"))) {
                if (args->kw[k].kind != TV_NONE)   /* kwargs.pop("caller", None) */
                    caller = args->kw[k];
                used_kw[k] = 1;
                break;
            }
        if (fr->caller_slot >= 0)
            s->slot[fr->caller_slot] = caller;
    }
    char mname[160];   /* macro_repr, only for a message */
    if (uses_kwargs) {
        tv d = tv_dict_new(&e->rt, 0);
        for (i32 k = 0; k < args->nkw; k++)
            if (!used_kw[k])
                tv_dict_set(&e->rt, d.u.dict, tv_str(args->kwname[k]), args->kw[k]);
        if (fr->kwargs_slot >= 0)
            s->slot[fr->kwargs_slot] = d;
    } else {
        /* a leftover `caller` is reported before the first other keyword */
        for (i32 k = 0; k < args->nkw; k++)
            if (!used_kw[k] && str_eq(args->kwname[k], S("caller")))
                tmpl_raise(&e->rt, "TypeError",
                           "macro %s was invoked with two values for the special caller "
                           "argument. This is most likely a bug.", macro_repr(m, mname));
        for (i32 k = 0; k < args->nkw; k++)
            if (!used_kw[k])
                tmpl_raise(&e->rt, "TypeError", "macro %s takes no keyword argument '%.*s'", macro_repr(m, mname),
                           (int)args->kwname[k].len, (const char *)args->kwname[k].s);
    }
    if (uses_varargs) {
        iz extra = args->npos > np ? args->npos - np : 0;
        tv t = tv_tuple_new(&e->rt, extra);
        for (iz k = 0; k < extra; k++)
            t.u.list->v[k] = args->pos[np + k];
        if (fr->varargs_slot >= 0)
            s->slot[fr->varargs_slot] = t;
    } else if (args->npos > np) {
        tmpl_raise(&e->rt, "TypeError", "macro %s takes not more than %d argument(s)", macro_repr(m, mname),
                   (int)np);
    }
    if (uses_caller && !found_caller && fr->caller_slot < 0) {
        /* an explicit `caller` parameter filled by position, the others
         * not all: Jinja still appends a caller, one argument more than
         * its Python function takes */
        int takes = (int)np + (fr->kwargs_slot >= 0) + (fr->varargs_slot >= 0);
        int given = takes + 1;
        tmpl_raise(&e->rt, "TypeError", "%.*s() takes %d positional argument%s but %d %s given",
                   (int)fr->qualname.len, (const char *)fr->qualname.s, takes, takes == 1 ? "" : "s",
                   given, given == 1 ? "was" : "were");
    }
    /* the macro's function: its frame, then each parameter still missing
     * takes its default (evaluated in the macro) or an Undefined */
    frame_enter(e, s, fr);
    i32 first_default = np - defaults->n;
    for (i32 i = 0; i < np; i++) {
        const tmpl_node *p = params->v[i];
        if (s->slot[p->slot].kind != TV_MISSING)
            continue;
        if (i >= first_default) {
            s->slot[p->slot] = eval(e, s, defaults->v[i - first_default]);
        } else {
            char hint[160];
            snprintf(hint, sizeof hint, "parameter '%.*s' was not provided",
                     (int)MIN(p->u.name.s.len, 100), (const char *)p->u.name.s.s);
            s->slot[p->slot] = tv_undef_hint(&e->rt, "UndefinedError",
                                             (const char *)arena_strdup(e->rt.a, str_cstr(hint)).s);
        }
    }
    i32 line = e->rt.line;
    tv r = capture(e, s, &n->u.macro.body, NULL);
    e->rt.line = line;
    e->rt.depth--;
    return r;
}

/* A recursive loop's loop(iterable). */
static tv call_loop(ev *e, tv_loop *l, const tv_args *a);

static tv call_value(ev *e, tv callee, const tv_args *args)
{
    switch ((tv_kind)callee.kind) {
    case TV_UNDEF:
        tv_undef_raise(&e->rt, callee);
    case TV_MACRO:
        return call_macro(e, callee.u.macro, args);
    case TV_METHOD:
        return tmpl_method_call(&e->rt, callee.u.method, args);
    case TV_LOOP:
        return call_loop(e, callee.u.loop, args);
    case TV_JOINER:
    case TV_FUNC:
        return tmpl_global_call(&e->rt, callee, args);
    default:
        tmpl_raise(&e->rt, "TypeError", "'%s' object is not callable", tv_type_name(callee));
    }
}

/* ---- expressions ------------------------------------------------------- */

static NOINLINE tv big_literal(ev *e, const tmpl_node *n)
{
    str lit = n->u.i.lit;
    buf digits = {0};
    for (iz i = 0; i < lit.len; i++)
        if (lit.s[i] != '_')
            buf_byte(&digits, lit.s[i]);
    if (digits.len > 1 && digits.data[0] == '0') {
        buf_free(&digits);
        tmpl_fail(&e->rt, ERR_UNSUPPORTED, "a non-decimal integer literal beyond 64 bits");
    }
    tv v = {.kind = TV_BIGINT};
    tv_set_s(&v, arena_strdup(e->rt.a, buf_view(&digits)));
    buf_free(&digits);
    return v;
}

/* Is `n` a constant Jinja's optimizer folds (literals and displays of
 * literals)? */
static bool is_literal(const tmpl_node *n)
{
    if (!n)
        return true;
    switch ((tmpl_kind)n->kind) {
    case TMPL_NONE: case TMPL_BOOL: case TMPL_INT: case TMPL_FLOAT: case TMPL_STR:
        return true;
    case TMPL_TUPLE: case TMPL_LIST:
        for (i32 i = 0; i < n->u.items.n; i++)
            if (!is_literal(n->u.items.v[i]))
                return false;
        return true;
    case TMPL_DICT:
        for (i32 i = 0; i < n->u.dict.n; i++)
            if (!is_literal(n->u.dict.keys[i]) || !is_literal(n->u.dict.vals[i]))
                return false;
        return true;
    case TMPL_NEG: case TMPL_POS:
        return is_literal(n->u.operand);
    default:
        return false;
    }
}

static bool slice_bound_ok(tv v)
{
    return v.kind == TV_NONE || v.kind == TV_INT || v.kind == TV_BOOL || v.kind == TV_BIGINT;
}

/* The arguments of a FILTER or TEST node, evaluated into a (in the
 * caller's frame); most filters and tests have none, and then nothing is
 * collected. */
static ALWAYS_INLINE tv_args filter_args(ev *e, act *s, const tmpl_node *n, argv *a)
{
    const tmpl_args *in = &n->u.filter.args;
    if (!in->pos.n && !in->nkw && !in->star && !in->dstar)
        return (tv_args){0};
    *a = (argv){0};
    eval_args(e, s, in, a);
    return args_view(a);
}

static tv eval_filter(ev *e, act *s, const tmpl_node *n)
{
    tv v = n->u.filter.arg ? eval(e, s, n->u.filter.arg) : e->body_arg;
    argv a;
    tv_args args = filter_args(e, s, n, &a);
    e->rt.line = n->line;
    if (n->u.filter.id == TMPL_FILTER_UNKNOWN)
        tmpl_raise(&e->rt, "TemplateRuntimeError", "No filter named '%.*s' found.",
                   (int)n->u.filter.name.s.len, (const char *)n->u.filter.name.s.s);
    return tmpl_filter_apply(&e->rt, n->u.filter.id, v, &args);
}

static bool eval_test(ev *e, act *s, const tmpl_node *n)
{
    tv v = eval(e, s, n->u.filter.arg);
    argv a;
    tv_args args = filter_args(e, s, n, &a);
    e->rt.line = n->line;
    bool r;
    if (!args.npos && !args.nkw && tmpl_test_kind(n->u.filter.id, v, &r))
        return r;
    if (n->u.filter.id == TMPL_TEST_UNKNOWN)
        tmpl_raise(&e->rt, "TemplateRuntimeError", "No test named '%.*s' found.",
                   (int)n->u.filter.name.s.len, (const char *)n->u.filter.name.s.s);
    return tmpl_test_apply(&e->rt, n->u.filter.id, v, &args);
}

/* A chain a + b + c + ... (left-deep BINOP ADD nodes): its operands in
 * order, at most ADD_CHAIN_MAX (a longer chain's leftmost "operand" is
 * the rest of the chain). Returns the index of the first in ops. */
enum { ADD_CHAIN_MAX = 64 };

static int chain_ops(const tmpl_node *n, const tmpl_node **ops)
{
    int k = ADD_CHAIN_MAX;
    const tmpl_node *p = n;
    while (p->kind == TMPL_BINOP && p->op == TMPL_OP_ADD && k > 1) {
        ops[--k] = p->u.bin.r;
        p = p->u.bin.l;
    }
    ops[--k] = p;
    return k;
}

/* The general + of operands i.. onto `cur`, in Python's order. */
static tv chain_rest(ev *e, act *s, const tmpl_node *n, const tmpl_node **ops, int i, tv cur)
{
    for (; i < ADD_CHAIN_MAX; i++) {
        tv b = eval(e, s, ops[i]);
        e->rt.line = n->line;
        cur = tmpl_binop(&e->rt, TMPL_OP_ADD, cur, b);
    }
    return cur;
}

/* Writes a chain of plain strings into `dst` in one pass instead of copying
 * the growing left side at every step: Python evaluates the operands and
 * the additions in the same order, and str + str cannot fail. Returns the
 * chain's value when it is not all plain strings (the text written so far
 * taken back out of dst); else an Undefined with no reason (u.undef NULL)
 * and the text in dst. */
static tv add_chain(ev *e, act *s, const tmpl_node *n, buf *dst)
{
    const tmpl_node *ops[ADD_CHAIN_MAX];
    int k = chain_ops(n, ops);
    tv v = eval(e, s, ops[k]);
    if (v.kind != TV_STR || (v.flags & TVF_SAFE))
        return chain_rest(e, s, n, ops, k + 1, v);
    iz start = dst->len;
    buf_str(dst, tv_s(v));
    for (int i = k + 1; i < ADD_CHAIN_MAX; i++) {
        tv r = eval(e, s, ops[i]);
        if (r.kind == TV_STR && !(r.flags & TVF_SAFE)) {
            buf_str(dst, tv_s(r));
            if (dst->failed)
                tmpl_fail(&e->rt, ERR_NOMEM, "out of memory");
            if (dst->len - start > TMPL_MAX_OUTPUT)
                tmpl_fail(&e->rt, ERR_LIMIT, "a string grew past %d bytes", (int)TMPL_MAX_OUTPUT);
            continue;
        }
        /* the general rules from here on, on the text so far */
        tv acc = tail_copy(e, dst, start);
        dst->len = start;
        e->rt.line = n->line;
        return chain_rest(e, s, n, ops, i + 1, tmpl_binop(&e->rt, TMPL_OP_ADD, acc, r));
    }
    return tv_undef_plain();
}

static bool is_chain_done(tv v) { return v.kind == TV_UNDEF && !v.u.undef; }

/* The n plain strings of parts (total bytes in all) as one string: a new
 * one, or the first one's bytes with the others appended (tv_str_sum). */
static tv join_parts(ev *e, const tv *parts, int n, iz total)
{
    return tv_str_sum(&e->rt, parts, n, total);
}

/* A chain a + b + ... as a value: its plain-string operands are kept as
 * they come and copied once, into a string of the size they add up to
 * (add_chain's rules otherwise, in the same order). add_chain writes as it
 * goes instead: one function for both, collecting the parts for the output
 * too, measured 2.7% slower on qwen3's template. */
static tv add_chain_value(ev *e, act *s, const tmpl_node *n)
{
    const tmpl_node *ops[ADD_CHAIN_MAX];
    tv parts[ADD_CHAIN_MAX];
    int k = chain_ops(n, ops);
    iz total = 0;
    for (int i = k; i < ADD_CHAIN_MAX; i++) {
        tv r = eval(e, s, ops[i]);
        if (r.kind != TV_STR || (r.flags & TVF_SAFE)) {
            if (i == k)
                return chain_rest(e, s, n, ops, k + 1, r);
            /* the general rules from here on, on the text so far */
            tv acc = join_parts(e, parts + k, i - k, total);
            e->rt.line = n->line;
            return chain_rest(e, s, n, ops, i + 1, tmpl_binop(&e->rt, TMPL_OP_ADD, acc, r));
        }
        parts[i] = r;
        total += r.len;
        if (total > TMPL_MAX_OUTPUT)
            tmpl_fail(&e->rt, ERR_LIMIT, "a string grew past %d bytes", (int)TMPL_MAX_OUTPUT);
    }
    return join_parts(e, parts + k, ADD_CHAIN_MAX - k, total);
}

/* obj.name of a GETATTR node n, obj evaluated: the common cases inline (a
 * dict's key: a name no attribute of dict has; a namespace attribute;
 * loop.index0 and the like), the rest by tv_getattr_known. */
static ALWAYS_INLINE tv getattr_of(ev *e, const tmpl_node *n, tv obj)
{
    e->rt.line = n->line;
    const tmpl_attr_meths *m = &n->u.getattr.meths;
    str name = n->u.getattr.attr.s;
    tv out;
    if ((obj.kind == TV_DICT && m->dict_key) || (obj.kind == TV_NS && name.s[0] != '_'))
        return tv_dict_get_str(obj.u.dict, name, &out) ? out : tv_undef_attr(&e->rt, obj, tv_str(name));
    if (obj.kind == TV_LOOP && m->loop)
        return tv_loop_attr_value(&e->rt, obj.u.loop, (tv_loop_attr)m->loop);
    return tv_getattr_known(&e->rt, obj, name, m);
}

/* `a if b` when b is false: Jinja's Undefined with its hint (out of
 * ev_cond, whose frame stays small without the message buffer). */
static NOINLINE tv cond_undefined(ev *e, const tmpl_node *n)
{
    char hint[160];
    snprintf(hint, sizeof hint,
             "the inline if-expression on line %d evaluated to false and no else section was defined.",
             (int)n->line);
    return tv_undef_hint(&e->rt, "UndefinedError", (const char *)arena_strdup(e->rt.a, str_cstr(hint)).s);
}

/* name.attr == 'str' (COMPARE's op, with op 2 on the GETATTR): the
 * attribute by ev_attr_name, the literal as it is; inline in eval_cond, so
 * that role tests make no call of their own. */
static ALWAYS_INLINE bool attr_cmp_str(const tmpl_node *n, tv a)
{
    str lit = n->u.cmp.rhs[0]->u.text;
    bool eq = a.kind == TV_STR ? str_eq(tv_s(a), lit) : tv_eq(a, tv_str(lit));   /* tv_eq never raises */
    return eq == (n->u.cmp.ops[0] == TMPL_OP_EQ);
}

static ALWAYS_INLINE bool compare_attr_str(ev *e, act *s, const tmpl_node *n)
{
    return attr_cmp_str(n, ev_attr_name(e, s, n->u.cmp.first));
}

/* A comparison chain a < b < c ...: Python's, each operand evaluated
 * once and only while the links hold. */
static bool compare(ev *e, act *s, const tmpl_node *n)
{
    const tmpl_node *first = n->u.cmp.first;
    if (n->op)   /* x.attr == "user": the attribute without a dispatch, the literal as it is */
        return attr_cmp_str(n, first->op == 2 ? ev_attr_name(e, s, first)
                                              : getattr_of(e, first, eval(e, s, first->u.getattr.obj)));
    tv a = eval(e, s, first);
    for (i32 i = 0; i < n->u.cmp.n; i++) {
        tv b = eval(e, s, n->u.cmp.rhs[i]);
        e->rt.line = n->line;
        bool ok;
        int op = n->u.cmp.ops[i];
        if ((op == TMPL_OP_EQ || op == TMPL_OP_NE) && a.kind == TV_STR && b.kind == TV_STR) {
            tmpl_work(&e->rt, tmpl_bytes_steps((iz)a.len));
            ok = str_eq(tv_s(a), tv_s(b)) == (op == TMPL_OP_EQ);   /* tv_eq's str case */
        } else if (a.kind == TV_INT && b.kind == TV_INT) {   /* loop.index0 > ns.last_query_index */
            switch (op) {
            case TMPL_OP_EQ: ok = a.u.i == b.u.i; break;
            case TMPL_OP_NE: ok = a.u.i != b.u.i; break;
            case TMPL_OP_LT: ok = a.u.i < b.u.i; break;
            case TMPL_OP_LE: ok = a.u.i <= b.u.i; break;
            case TMPL_OP_GT: ok = a.u.i > b.u.i; break;
            case TMPL_OP_GE: ok = a.u.i >= b.u.i; break;
            default:         ok = op == TMPL_OP_IN ? tv_contains(&e->rt, b, a) : !tv_contains(&e->rt, b, a); break;
            }
        } else {
            switch (op) {
            case TMPL_OP_EQ:    ok = tv_equal(&e->rt, a, b); break;
            case TMPL_OP_NE:    ok = !tv_equal(&e->rt, a, b); break;
            case TMPL_OP_IN:    ok = tv_contains(&e->rt, b, a); break;
            case TMPL_OP_NOTIN: ok = !tv_contains(&e->rt, b, a); break;
            default:            ok = tv_compare(&e->rt, op, a, b); break;
            }
        }
        if (!ok)
            return false;
        a = b;
    }
    return true;
}

/* The truth of a condition. `not`, `and`, `or`, tests and comparisons give
 * it without a bool value made and taken apart again: the truth of `a and
 * b` (a if a is false, else b) is truthy(a) && truthy(b), evaluated in the
 * same order; likewise for `or`. */
static bool eval_cond(ev *e, act *s, const tmpl_node *n)
{
    switch ((tmpl_kind)n->kind) {
    case TMPL_NOT:     return !eval_cond(e, s, n->u.operand);
    case TMPL_AND:     return eval_cond(e, s, n->u.bin.l) && eval_cond(e, s, n->u.bin.r);
    case TMPL_OR:      return eval_cond(e, s, n->u.bin.l) || eval_cond(e, s, n->u.bin.r);
    case TMPL_TEST:    return eval_test(e, s, n);
    case TMPL_COMPARE:
        return n->op && n->u.cmp.first->op == 2 ? compare_attr_str(e, s, n) : compare(e, s, n);
    default:           return tv_truthy(eval(e, s, n));
    }
}

/* The evaluation of each kind of expression node, one function each:
 * eval_node only dispatches (its calls are jumps), so a node pays for the
 * registers and stack of its own kind only. */
#define EVAL_FN(name) static NOINLINE tv name(ev *e, act *s, const tmpl_node *n)

EVAL_FN(ev_name) { return load_var(e, s, n); }

/* (a, b), [a, b] */
EVAL_FN(ev_seq)
{
    tv r = n->kind == TMPL_TUPLE ? tv_tuple_new(&e->rt, n->u.items.n)
                                 : tv_list_new(&e->rt, n->u.items.n);
    for (i32 i = 0; i < n->u.items.n; i++)
        r.u.list->v[i] = eval(e, s, n->u.items.v[i]);
    return r;
}

/* {k: v, ...} */
EVAL_FN(ev_dict)
{
    tv r = tv_dict_new(&e->rt, n->u.dict.n);
    for (i32 i = 0; i < n->u.dict.n; i++) {
        tv k = eval(e, s, n->u.dict.keys[i]);
        tv v = eval(e, s, n->u.dict.vals[i]);
        e->rt.line = n->line;
        tv_dict_set(&e->rt, r.u.dict, k, v);
    }
    return r;
}

EVAL_FN(ev_getattr) { return getattr_of(e, n, eval(e, s, n->u.getattr.obj)); }

static NOINLINE tv lazy_attr_missing(ev *e, const tmpl_node *n, tv obj)
{
    e->rt.line = n->line;
    return tv_undef_attr(&e->rt, obj, tv_str(n->u.getattr.attr.s));
}

/* name.attr of a GETATTR node whose obj is a NAME, out of line. */
static NOINLINE tv attr_of_name(ev *e, act *s, const tmpl_node *n)
{
    return getattr_of(e, n, load_var(e, s, n->u.getattr.obj));
}

/* ev_attr_name's search of a lazy dict's JSON members (tv_dict_lazy_get's,
 * written out: through it, its result by pointer, the template took 0.9%
 * more instructions, split into a find and a value 1.9% more). */
static NOINLINE tv lazy_attr_search(ev *e, const tmpl_node *n, tv obj)
{
    const tv_dict *d = obj.u.dict;
    str key = n->u.getattr.attr.s;
    const json_member *m = d->lazy->u.obj.members;
    for (iz i = d->lazy->u.obj.n - 1; i >= 0; i--)   /* a repeated key: its last value */
        if (str_eq(m[i].key, key)) {
            const json *j = &m[i].val;
            tv v;
            if (j->type == JSON_STR && j->u.s.len <= TV_MAX_STR) {
                v = tv_str(j->u.s);
            } else if (d->memo && d->memo[i].kind != TV_UNDEF) {
                v = d->memo[i];
            } else {
                e->rt.line = n->line;
                return tv_dict_lazy_member(d, i);
            }
            e->ac_dict = d;
            e->ac_sym = n->u.getattr.attr.sym;
            e->ac_val = v;
            return v;
        }
    return lazy_attr_missing(e, n, obj);
}

/* name.attr where attr can only be a dict's key (GETATTR's op 2): the last
 * attribute found again without a search; small enough to save no
 * register, leaving by tail calls only (a name of another function, a
 * value other than a lazy dict, or missing: attr_of_name). */
EVAL_FN(ev_attr_name)
{
    const tmpl_node *o = n->u.getattr.obj;
    if (unlikely(o->up))
        return attr_of_name(e, s, n);
    tv obj = s->slot[o->slot];
    if (obj.kind != TV_DICT || !obj.u.dict->lazy)
        return attr_of_name(e, s, n);
    if (e->ac_dict == obj.u.dict && e->ac_sym == n->u.getattr.attr.sym)
        return e->ac_val;
    return lazy_attr_search(e, n, obj);
}

/* loop.index0 and the like (GETATTR's op 1): when `loop` is a loop, its
 * common attributes inline; anything else by getattr_of. */
EVAL_FN(ev_loop_attr)
{
    const tmpl_node *o = n->u.getattr.obj;
    if (unlikely(o->up))
        return attr_of_name(e, s, n);
    tv lv = s->slot[o->slot];
    if (lv.kind == TV_LOOP) {
        tv_loop *l = lv.u.loop;
        switch ((tv_loop_attr)n->u.getattr.meths.loop) {
        case TVL_INDEX:  return tv_int(l->i + 1);
        case TVL_INDEX0: return tv_int(l->i);
        case TVL_FIRST:  return tv_bool(l->i == 0);
        case TVL_LAST:
            if (l->i + 1 < l->n)
                return tv_bool(false);
            if (!l->more)
                return tv_bool(true);
            break;
        case TVL_LENGTH:
            if (!l->more)
                return tv_int(l->n);
            break;
        default:
            e->rt.line = n->line;
            return tv_loop_attr_value(&e->rt, l, (tv_loop_attr)n->u.getattr.meths.loop);
        }
    }
    return attr_of_name(e, s, n);
}

/* obj[index], obj[a:b:c] */
EVAL_FN(ev_getitem)
{
    tv obj = eval(e, s, n->u.getitem.obj);
    const tmpl_node *ix = n->u.getitem.index;
    if (ix->kind == TMPL_SLICE) {
        tv a = ix->u.slice.start ? eval(e, s, ix->u.slice.start) : tv_none();
        tv b = ix->u.slice.stop ? eval(e, s, ix->u.slice.stop) : tv_none();
        tv c = ix->u.slice.step ? eval(e, s, ix->u.slice.step) : tv_none();
        e->rt.line = n->line;
        /* A slice of literals is folded at compile time through the
         * sandbox's getitem, where a TypeError becomes an Undefined. */
        if (is_literal(n->u.getitem.obj) && is_literal(ix->u.slice.start) &&
            is_literal(ix->u.slice.stop) && is_literal(ix->u.slice.step) &&
            (!(obj.kind == TV_LIST || obj.kind == TV_TUPLE || obj.kind == TV_STR) ||
             !slice_bound_ok(a) || !slice_bound_ok(b) || !slice_bound_ok(c)))
            return tv_undef_hint(&e->rt, "UndefinedError", "a slice that Python cannot take");
        return tv_slice(&e->rt, obj, a, b, c);
    }
    if (ix->kind == TMPL_TUPLE) {
        for (i32 i = 0; i < ix->u.items.n; i++)
            if (ix->u.items.v[i]->kind == TMPL_SLICE)
                return tv_undef_plain();
    }
    tv key = eval(e, s, ix);
    e->rt.line = n->line;
    tv out;   /* message['role']: a dict's str key found inline, the rest by tv_getitem */
    if (obj.kind == TV_DICT && key.kind == TV_STR && tv_dict_get_str(obj.u.dict, tv_s(key), &out))
        return out;
    if (key.kind == TV_INT && tv_is_seq(obj)) {   /* messages[loop.index0 - 1], in range */
        i64 i = key.u.i < 0 ? key.u.i + obj.u.list->n : key.u.i;
        if (i >= 0 && i < obj.u.list->n)
            return obj.u.list->v[i];
    }
    return tv_getitem(&e->rt, obj, key);
}

/* s.strip(), s.lstrip('\n') and rstrip on a plain str (not Markup, whose
 * methods escape their arguments), with no argument or one string literal:
 * true and *out set, computed here without the method call's machinery. */
static bool strip_literal(tv obj, const tmpl_node *n, tv *out)
{
    u8 m = n->u.call.callee->u.getattr.meths.str;
    const tmpl_args *a = &n->u.call.args;
    if ((m != TVM_STR_STRIP && m != TVM_STR_LSTRIP && m != TVM_STR_RSTRIP) || (obj.flags & TVF_SAFE) ||
        a->nkw || a->star || a->dstar || a->pos.n > 1 || (a->pos.n == 1 && a->pos.v[0]->kind != TMPL_STR))
        return false;
    int sides = m == TVM_STR_STRIP ? PYSTR_BOTH : m == TVM_STR_LSTRIP ? PYSTR_LEFT : PYSTR_RIGHT;
    const str *chars = a->pos.n ? &a->pos.v[0]->u.text : NULL;
    *out = tv_str(pystr_strip(tv_s(obj), chars, sides));
    return true;
}

/* f(args) */
EVAL_FN(ev_call)
{
    /* s.strip('\n') and the like: the method called without a bound
     * method made first (on a str, a name with a method is that
     * method, whatever else) */
    const tmpl_node *cn = n->u.call.callee;
    tv callee = tv_none();
    tv_method direct = {.meth = TVM_NONE};
    if (cn->kind == TMPL_GETATTR && cn->u.getattr.meths.str) {
        tv obj = eval(e, s, cn->u.getattr.obj);
        if (obj.kind == TV_STR) {
            tv r;
            if (strip_literal(obj, n, &r)) {
                tmpl_work(&e->rt, tmpl_bytes_steps((iz)(obj.len - r.len)));   /* what it went through */
                return r;
            }
            direct = (tv_method){obj, cn->u.getattr.meths.str};
        } else {
            callee = getattr_of(e, cn, obj);
        }
    } else {
        callee = eval(e, s, cn);
    }
    argv a = {0};
    eval_args(e, s, &n->u.call.args, &a);
    e->rt.line = n->line;
    tv_args args = args_view(&a);
    return direct.meth != TVM_NONE ? tmpl_method_call(&e->rt, &direct, &args) : call_value(e, callee, &args);
}

EVAL_FN(ev_filter) { return eval_filter(e, s, n); }

/* x|length without arguments (FILTER's op): a list's or tuple's length
 * here, without the filter's frame and dispatch; the rest by f_length. */
EVAL_FN(ev_length)
{
    tv v = eval(e, s, n->u.filter.arg);
    if (tv_is_seq(v))
        return tv_int(v.u.list->n);
    e->rt.line = n->line;
    return tmpl_filter_apply(&e->rt, TMPL_FILTER_LENGTH, v, NULL);
}
EVAL_FN(ev_test) { return tv_bool(eval_test(e, s, n)); }
EVAL_FN(ev_not) { return tv_bool(!eval_cond(e, s, n->u.operand)); }
EVAL_FN(ev_compare) { return tv_bool(compare(e, s, n)); }

/* -x, +x */
EVAL_FN(ev_unary)
{
    tv v = eval(e, s, n->u.operand);
    e->rt.line = n->line;
    bool neg = n->kind == TMPL_NEG;
    switch ((tv_kind)v.kind) {
    case TV_UNDEF: tv_undef_raise(&e->rt, v);
    case TV_BOOL:  return tv_int(neg ? -(i64)v.u.b : (i64)v.u.b);
    case TV_INT:
        if (neg && v.u.i == INT64_MIN) {   /* 2**63: a big int */
            tv r = {.kind = TV_BIGINT};
            tv_set_s(&r, S("9223372036854775808"));
            return r;
        }
        return tv_int(neg ? -v.u.i : v.u.i);
    case TV_FLOAT: return tv_float(neg ? -v.u.f : v.u.f);
    case TV_BIGINT: {
        if (!neg)
            return v;
        str d = tv_s(v);
        if (str_eq(d, S("9223372036854775808")))
            return tv_int(INT64_MIN);   /* -2**63 fits: an int again */
        if (d.s[0] == '-') {
            tv_set_s(&v, str_cut(d, 1, d.len));
        } else {
            u8 *p = NEW_NZ(e->rt.a, u8, d.len + 2);
            p[0] = '-';
            memcpy(p + 1, d.s, (size_t)d.len);
            tv_set_s(&v, str_from(p, d.len + 1));
        }
        return v;
    }
    default:
        tmpl_raise(&e->rt, "TypeError", "bad operand type for unary %c: '%s'", neg ? '-' : '+',
                   tv_type_name(v));
    }
}

EVAL_FN(ev_binop)
{
    if (n->op == TMPL_OP_ADD && n->u.bin.l->kind == TMPL_BINOP && n->u.bin.l->op == TMPL_OP_ADD) {
        /* three or more operands: one copy instead of one per + */
        return add_chain_value(e, s, n);
    }
    tv a = eval(e, s, n->u.bin.l);
    tv b = eval(e, s, n->u.bin.r);
    e->rt.line = n->line;
    i64 r;   /* int + int and int - int (index arithmetic) without binop's frame */
    if (a.kind == TV_INT && b.kind == TV_INT && (n->op == TMPL_OP_ADD || n->op == TMPL_OP_SUB) &&
        !(n->op == TMPL_OP_ADD ? __builtin_add_overflow(a.u.i, b.u.i, &r)
                               : __builtin_sub_overflow(a.u.i, b.u.i, &r)))
        return tv_int(r);
    return tmpl_binop(&e->rt, n->op, a, b);
}

/* `and` and `or` give an operand */
EVAL_FN(ev_and)
{
    tv a = eval(e, s, n->u.bin.l);
    return tv_truthy(a) ? eval(e, s, n->u.bin.r) : a;
}

EVAL_FN(ev_or)
{
    tv a = eval(e, s, n->u.bin.l);
    return tv_truthy(a) ? a : eval(e, s, n->u.bin.r);
}

/* a ~ b ~ ... */
EVAL_FN(ev_concat)
{
    buf *b = &e->rt.tmp;
    tv *parts = NEW_NZ(e->rt.a, tv, n->u.items.n);
    for (i32 i = 0; i < n->u.items.n; i++)
        parts[i] = eval(e, s, n->u.items.v[i]);
    iz mark = b->len;
    /* a sum grown again ({% set ns.s = ns.s ~ x %} in a loop): the rest
     * appended to it where it has room (tv_str_sum) */
    i32 first = parts[0].kind == TV_STR && parts[0].id ? 1 : 0;
    for (i32 i = first; i < n->u.items.n; i++)
        tv_write_str(&e->rt, b, parts[i]);
    if (b->failed)
        tmpl_fail(&e->rt, ERR_NOMEM, "out of memory");
    tv r;
    if (first) {
        iz total = (iz)parts[0].len + (b->len - mark);
        if (total > TMPL_MAX_OUTPUT)
            tmpl_fail(&e->rt, ERR_LIMIT, "a string grew past %d bytes", (int)TMPL_MAX_OUTPUT);
        tv two[2] = {parts[0], tv_str(str_from(b->data + mark, b->len - mark))};
        r = tv_str_sum(&e->rt, two, 2, total);
    } else {
        r = tail_copy(e, b, mark);
        if (r.len)
            r.id = TVS_SUM;
    }
    b->len = mark;
    return r;
}

/* x if c else y */
EVAL_FN(ev_cond)
{
    if (eval_cond(e, s, n->u.cond.test))
        return eval(e, s, n->u.cond.then);
    if (n->u.cond.orelse)
        return eval(e, s, n->u.cond.orelse);
    return cond_undefined(e, n);
}

EVAL_FN(ev_unsupported)
{
    (void)s;
    tmpl_fail(&e->rt, ERR_UNSUPPORTED, "the expression %s", tmpl_kind_name((tmpl_kind)n->kind));
}

static tv eval_node(ev *e, act *s, const tmpl_node *n)
{
    switch ((tmpl_kind)n->kind) {
    case TMPL_NONE:    return tv_none();
    case TMPL_BOOL:    return tv_bool(n->u.b);
    case TMPL_INT:     return n->u.i.big ? big_literal(e, n) : tv_int(n->u.i.v);
    case TMPL_FLOAT:   return tv_float(n->u.f);
    case TMPL_STR:     return tv_str(n->u.text);
    case TMPL_NAME:    return ev_name(e, s, n);
    case TMPL_TUPLE:
    case TMPL_LIST:    return ev_seq(e, s, n);
    case TMPL_DICT:    return ev_dict(e, s, n);
    case TMPL_GETATTR: return ev_getattr(e, s, n);   /* eval() takes the shapes marked in op */
    case TMPL_GETITEM: return ev_getitem(e, s, n);
    case TMPL_CALL:    return ev_call(e, s, n);
    case TMPL_FILTER:  return n->op ? ev_length(e, s, n) : ev_filter(e, s, n);
    case TMPL_TEST:    return ev_test(e, s, n);
    case TMPL_NOT:     return ev_not(e, s, n);
    case TMPL_NEG:
    case TMPL_POS:     return ev_unary(e, s, n);
    case TMPL_BINOP:   return ev_binop(e, s, n);
    case TMPL_AND:     return ev_and(e, s, n);
    case TMPL_OR:      return ev_or(e, s, n);
    case TMPL_CONCAT:  return ev_concat(e, s, n);
    case TMPL_COMPARE: return ev_compare(e, s, n);
    case TMPL_COND:    return ev_cond(e, s, n);
    default:           return ev_unsupported(e, s, n);
    }
}

/* ---- statements -------------------------------------------------------- */

/* A loop filter's target, its names into slots in order (the filter's
 * function, tmpl_frame.locals). */
static void assign_filter_target(ev *e, act *s, const tmpl_frame *tf, const tmpl_node *target,
                                 tv v, i32 *k)
{
    if (target->kind == TMPL_NAME) {
        s->slot[tf->locals[(*k)++].slot] = v;
        return;
    }
    const tv *items = unpack(e, v, target->u.items.n);
    for (i32 i = 0; i < target->u.items.n; i++)
        assign_filter_target(e, s, tf, target->u.items.v[i], items[i], k);
}

/* What the filter yields for an item that passes: the target as assigned,
 * a tuple target packed again (Jinja's generator yields `a, b`). */
static tv filter_target_value(ev *e, act *s, const tmpl_frame *tf, const tmpl_node *target, i32 *k)
{
    if (target->kind == TMPL_NAME)
        return s->slot[tf->locals[(*k)++].slot];
    tv t = tv_tuple_new(&e->rt, target->u.items.n);
    for (i32 i = 0; i < target->u.items.n; i++)
        t.u.list->v[i] = filter_target_value(e, s, tf, target->u.items.v[i], k);
    return t;
}

/* A filtered loop's generator (Jinja's loop filter function): the
 * iterable's items, the next one to test, the filter's activation. */
typedef struct loop_filter {
    const tmpl_node *node;
    const tv        *src;
    iz               nsrc, next;
    act             *ts;
    tv              *kept;
} loop_filter;

/* tv_loop.more of a filtered loop: tests items until one passes (appended
 * to the loop's items) or none is left (more cleared). Each test's
 * allocations go after it unless something escaped. */
static bool loop_more(tmpl_rt *rt, tv_loop *l)
{
    ev *e = (ev *)rt;   /* rt is ev's first member */
    loop_filter *f = l->more_state;
    const tmpl_node *n = f->node;
    const tmpl_frame *tf = n->u.for_.frame->test;
    i32 line = e->rt.line;
    while (f->next < f->nsrc) {
        tv item = f->src[f->next++];
        tmpl_work(&e->rt, tf->steps);
        e->rt.line = n->line;
        arena_mark m = arena_save(e->rt.a);
        u64 esc = e->rt.escapes;
        i32 k = 0;
        assign_filter_target(e, f->ts, tf, n->u.for_.target, item, &k);
        bool pass = eval_cond(e, f->ts, n->u.for_.filter);
        if (pass && n->u.for_.target->kind == TMPL_TUPLE) {
            k = 0;
            item = filter_target_value(e, f->ts, tf, n->u.for_.target, &k);
            e->rt.escapes++;   /* the tuple outlives the test */
        }
        if (e->rt.escapes == esc)
            arena_restore(e->rt.a, m);
        if (pass) {
            f->kept[l->n++] = item;
            e->rt.line = line;
            return true;
        }
    }
    l->more = NULL;
    e->rt.line = line;
    return false;
}

/* Runs a for loop over `iterv` (already evaluated), defined in activation
 * `s`; depth0 counts recursive loop() calls. As Jinja's code runs it: the
 * target and `loop`, then the frame's loads, then the body, each
 * iteration; the frame's variables missing after the loop; the else
 * branch when no iteration reached the end of the body (a break or
 * continue does not). A filter tests each item when the loop asks for it
 * (the next iteration, loop.last, loop.length, ...), as Jinja's generator
 * does, so the body's effects on the filter count. */
static int run_for(ev *e, act *s, const tmpl_node *n, tv iterv, i32 depth0)
{
    const tmpl_frame *fr = n->u.for_.frame;
    e->rt.line = n->line;
    iz cnt;
    const tv *items = tv_iterate(&e->rt, iterv, &cnt);
    /* a list may not change while this runs over what it holds now */
    tv_list *src = iterv.kind == TV_LIST && !(iterv.flags & TVF_ITER) ? iterv.u.list : NULL;
    if (src)
        src->loops++;
    tv_loop *L = NEW_NZ(e->rt.a, tv_loop, 1);
    *L = (tv_loop){.items = items, .n = cnt, .depth0 = depth0,
                   .node = n->u.for_.recursive ? n : NULL, .frame = s};
    if (n->u.for_.filter && cnt) {
        loop_filter *f = NEW_NZ(e->rt.a, loop_filter, 1);
        *f = (loop_filter){.node = n, .src = items, .nsrc = cnt, .next = 0,
                           .ts = act_new(e, s, fr->test), .kept = NEW_NZ(e->rt.a, tv, cnt)};
        frame_enter(e, f->ts, fr->test);
        L->items = f->kept;
        L->n = 0;
        L->more = loop_more;
        L->more_state = f;
    }
    /* the body's activation: a function's own when the loop is recursive */
    act *b = fr->function ? act_new(e, s, fr) : s;
    if (fr->loop_slot >= 0)
        b->slot[fr->loop_slot] = tv_missing();
    bool completed = false;
    tv loopv = {.kind = TV_LOOP};
    loopv.u.loop = L;
    const tmpl_node *target = n->u.for_.target;
    for (iz i = 0; i < L->n || (L->more && L->more(&e->rt, L)); i++) {
        if (++e->rt.iterations > TMPL_MAX_ITERATIONS)
            tmpl_fail(&e->rt, ERR_LIMIT, "more than %d loop iterations", (int)TMPL_MAX_ITERATIONS);
        tmpl_work(&e->rt, fr->steps);   /* the nodes the body may run (tmpl_runtime_bind) */
        L->i = i;
        /* what the iteration allocates goes at its end, unless something
         * may hold it (an escape, see tmpl_rt.escapes); the frame's slots
         * are set again before they are read */
        arena_mark m = arena_save(e->rt.a);
        u64 esc = e->rt.escapes;
        if (target->kind == TMPL_NAME)
            b->slot[target->slot] = L->items[i];
        else
            assign(e, b, target, L->items[i]);
        if (fr->loop_slot >= 0)
            b->slot[fr->loop_slot] = loopv;
        frame_enter(e, b, fr);
        int x = exec_body(e, b, &n->u.for_.body);
        if (e->rt.escapes == esc)
            arena_restore(e->rt.a, m);
        if (x == X_OK)
            completed = true;
        if (x == X_BREAK)
            break;
    }
    frame_leave(b, fr);
    if (src)
        src->loops--;
    if (!completed && fr->orelse) {
        /* the else branch is code after the loop: a break or continue in
         * it is the enclosing loop's */
        frame_enter(e, b, fr->orelse);
        int x = exec_body(e, b, &n->u.for_.orelse);
        if (x != X_OK)
            return x;
        frame_leave(b, fr->orelse);
    }
    return X_OK;
}

/* loop(iterable): LoopContext.__call__(self, iterable), its arguments
 * bound as CPython 3.11 binds them (keywords first), then Jinja's check. */
static tv call_loop(ev *e, tv_loop *l, const tv_args *a)
{
    tv iterable = tv_missing();
    for (i32 k = 0; k < a->nkw; k++) {
        if (!str_eq(a->kwname[k], S("iterable")))
            tmpl_raise(&e->rt, "TypeError", "LoopContext.__call__() got an unexpected keyword argument '%.*s'",
                       (int)MIN(a->kwname[k].len, 200), (const char *)a->kwname[k].s);
        if (a->npos >= 1)
            tmpl_raise(&e->rt, "TypeError", "LoopContext.__call__() got multiple values for argument 'iterable'");
        iterable = a->kw[k];
    }
    if (a->npos > 1)
        tmpl_raise(&e->rt, "TypeError", "LoopContext.__call__() takes 2 positional arguments but %d were given",
                   (int)a->npos + 1);
    if (a->npos == 1)
        iterable = a->pos[0];
    if (iterable.kind == TV_MISSING)
        tmpl_raise(&e->rt, "TypeError", "LoopContext.__call__() missing 1 required positional argument: 'iterable'");
    if (!l->node)
        tmpl_raise(&e->rt, "TypeError", "The loop must have the 'recursive' marker to be called recursively.");
    if (++e->rt.depth > TMPL_MAX_CALL_DEPTH)
        tmpl_raise(&e->rt, "RecursionError", "maximum recursion depth exceeded");
    iz start = e->out->len;
    run_for(e, (act *)l->frame, (const tmpl_node *)l->node, iterable, l->depth0 + 1);
    tv r = tail_copy(e, e->out, start);
    e->out->len = start;
    e->rt.depth--;
    return r;
}

/* Applies a filter chain (FILTER nodes whose innermost arg is NULL) to the
 * captured body text. */
static tv apply_block_filter(ev *e, act *s, const tmpl_node *filter, tv body)
{
    tv saved = e->body_arg;
    e->body_arg = body;
    tv r = eval(e, s, filter);
    e->body_arg = saved;
    return r;
}

/* Each kind of statement is its own function, exec_stmt only dispatches
 * (as eval_node does for expressions). */
#define EXEC_FN(name) static NOINLINE int name(ev *e, act *s, const tmpl_node *n)

EXEC_FN(st_text)
{
    (void)s;
    emit(e, n->u.text);
    return X_OK;
}

EXEC_FN(st_output)
{
    const tmpl_node *x = n->u.expr;
    if (x->kind == TMPL_BINOP && x->op == TMPL_OP_ADD) {
        /* {{ a + b + ... }} of strings goes straight into the output */
        tv r = add_chain(e, s, x, e->out);
        if (e->out->len > e->max_output)
            tmpl_fail(&e->rt, ERR_LIMIT, "the output grew past %lld bytes", (long long)e->max_output);
        if (!is_chain_done(r))
            emit_value(e, r);
        return X_OK;
    }
    emit_value(e, eval(e, s, x));
    return X_OK;
}

EXEC_FN(st_if)
{
    if (eval_cond(e, s, n->u.if_.test))
        return exec_body(e, s, &n->u.if_.body);
    for (i32 i = 0; i < n->u.if_.elifs.n; i++) {
        const tmpl_node *el = n->u.if_.elifs.v[i];
        e->rt.line = el->line;
        if (eval_cond(e, s, el->u.if_.test))
            return exec_body(e, s, &el->u.if_.body);
    }
    return exec_body(e, s, &n->u.if_.orelse);
}

EXEC_FN(st_for) { return run_for(e, s, n, eval(e, s, n->u.for_.iter), 0); }

EXEC_FN(st_set)
{
    const tmpl_node *t = n->u.set.target;
    if (t->kind == TMPL_NSREF) {   /* Jinja checks the namespace before the value */
        tv ns = act_up(s, t->up)->slot[t->slot];
        if (ns.kind != TV_NS)
            tmpl_raise(&e->rt, "TemplateRuntimeError", "cannot assign attribute on non-namespace object");
    }
    tv v = eval(e, s, n->u.set.value);
    if (t->kind == TMPL_NAME)
        store_var(e, s, t, t->u.name.sym, v);
    else if (n->flags & TMPL_SET_REVERSED)   /* tmpl_frames: CPython's order */
        for (i32 i = t->u.items.n - 1; i >= 0; i--)
            store_var(e, s, t->u.items.v[i], t->u.items.v[i]->u.name.sym, v.u.list->v[i]);
    else
        assign(e, s, t, v);
    return X_OK;
}

/* The body in its own frame, then the filter there, then the target. */
EXEC_FN(st_set_block)
{
    const tmpl_frame *fr = n->u.setblock.frame;
    frame_enter(e, s, fr);
    int x;
    tv body = capture(e, s, &n->u.setblock.body, &x);
    if (x != X_OK)
        return x;
    if (n->u.setblock.filter)
        body = apply_block_filter(e, s, n->u.setblock.filter, body);
    e->rt.line = n->line;
    assign(e, s, n->u.setblock.target, body);
    frame_leave(s, fr);
    return X_OK;
}

EXEC_FN(st_macro)
{
    store_var(e, s, n, n->u.macro.name.sym, macro_value(e, s, n, n->u.macro.name.s, n->u.macro.frame->uses));
    return X_OK;
}

EXEC_FN(st_call_block)
{
    const tmpl_node *call = n->u.macro.call;
    tv callee = eval(e, s, call->u.call.callee);
    argv a = {0};
    eval_args(e, s, &call->u.call.args, &a);
    argv_kw(e, &a, S("caller"), macro_value(e, s, n, S(""), n->u.macro.frame->uses));
    e->rt.line = n->line;
    tv_args args = args_view(&a);
    emit_value(e, call_value(e, callee, &args));
    return X_OK;
}

EXEC_FN(st_filter_block)
{
    const tmpl_frame *fr = n->u.fblock.frame;
    frame_enter(e, s, fr);
    int x;
    tv body = capture(e, s, &n->u.fblock.body, &x);
    if (x != X_OK)
        return x;
    emit_value(e, apply_block_filter(e, s, n->u.fblock.filter, body));
    frame_leave(s, fr);
    return X_OK;
}

/* The body of a call block without parameters, called at once. */
EXEC_FN(st_generation)
{
    const tmpl_frame *fr = n->u.fblock.frame;
    act *g = act_new(e, s, fr);
    frame_enter(e, g, fr);
    exec_body(e, g, &n->u.fblock.body);
    return X_OK;
}

/* A break or continue in a with (or autoescape) body leaves the loop
 * before Jinja's code leaves the frame, so its variables stay. */
EXEC_FN(st_with)
{
    const tmpl_frame *fr = n->u.with.frame;
    frame_enter(e, s, fr);
    for (i32 i = 0; i < n->u.with.targets.n; i++)
        assign(e, s, n->u.with.targets.v[i], eval(e, s, n->u.with.values.v[i]));
    int x = exec_body(e, s, &n->u.with.body);
    if (x == X_OK)
        frame_leave(s, fr);
    return x;
}

EXEC_FN(st_autoescape)
{
    const tmpl_frame *fr = n->u.autoescape.frame;
    frame_enter(e, s, fr);
    if (tv_truthy(eval(e, s, n->u.autoescape.value)))
        tmpl_fail(&e->rt, ERR_UNSUPPORTED, "autoescape on");
    int x = exec_body(e, s, &n->u.autoescape.body);
    if (x == X_OK)
        frame_leave(s, fr);
    return x;
}

/* A block is a function of its own reading the context: what the top
 * level assigned so far and, when scoped, the names assigned where it is. */
EXEC_FN(st_block)
{
    const tmpl_frame *fr = n->u.block.frame;
    const tv *saved_locals = e->block_locals;
    const tmpl_frame *saved_frame = e->block_frame;
    if (n->u.block.scoped) {
        tv *lv = fr->nlocals ? NEW_NZ(e->rt.a, tv, fr->nlocals) : NULL;
        for (i32 i = 0; i < fr->nlocals; i++)
            lv[i] = act_up(s, fr->locals[i].up)->slot[fr->locals[i].slot];
        e->block_locals = lv;
        e->block_frame = fr;
    } else {
        e->block_locals = NULL;
    }
    act *b = act_new(e, NULL, fr);
    frame_enter(e, b, fr);
    exec_body(e, b, &n->u.block.body);
    e->block_locals = saved_locals;
    e->block_frame = saved_frame;
    return X_OK;
}

EXEC_FN(st_load)
{
    eval(e, s, n->u.load.tmpl);
    tmpl_raise(&e->rt, "TypeError", "no loader for this environment specified");
}

EXEC_FN(st_unsupported)
{
    (void)s;
    tmpl_fail(&e->rt, ERR_UNSUPPORTED, "the statement %s", tmpl_kind_name((tmpl_kind)n->kind));
}

static int exec_stmt(ev *e, act *s, const tmpl_node *n)
{
    e->rt.line = n->line;
    switch ((tmpl_kind)n->kind) {
    case TMPL_TEXT:         return st_text(e, s, n);
    case TMPL_OUTPUT:
        if (n->u.expr->kind == TMPL_STR) {   /* {{ 'literal' }}: its text, as TEXT */
            emit(e, n->u.expr->u.text);
            return X_OK;
        }
        return st_output(e, s, n);
    case TMPL_IF:           return st_if(e, s, n);
    case TMPL_FOR:          return st_for(e, s, n);
    case TMPL_SET:          return st_set(e, s, n);
    case TMPL_SET_BLOCK:    return st_set_block(e, s, n);
    case TMPL_MACRO:        return st_macro(e, s, n);
    case TMPL_CALL_BLOCK:   return st_call_block(e, s, n);
    case TMPL_FILTER_BLOCK: return st_filter_block(e, s, n);
    case TMPL_GENERATION:   return st_generation(e, s, n);
    case TMPL_BREAK:        return X_BREAK;
    case TMPL_CONTINUE:     return X_CONTINUE;
    case TMPL_WITH:         return st_with(e, s, n);
    case TMPL_AUTOESCAPE:   return st_autoescape(e, s, n);
    case TMPL_BLOCK:        return st_block(e, s, n);
    case TMPL_EXTENDS:
    case TMPL_INCLUDE:
    case TMPL_IMPORT:
    case TMPL_FROM_IMPORT:  return st_load(e, s, n);
    default:                return st_unsupported(e, s, n);
    }
}

static int exec_body(ev *e, act *s, const tmpl_list *body)
{
    for (i32 i = 0; i < body->n; i++) {
        int x = exec_stmt(e, s, body->v[i]);
        if (x != X_OK)
            return x;
    }
    return X_OK;
}

/* ---- entry ------------------------------------------------------------- */

/* The end of a render's use of its string buffer: back to the caller's
 * (unless it grew large), or freed. */
static void tmp_done(buf *tmp, buf *keep)
{
    if (keep && tmp->cap <= (1 << 20) && !tmp->failed) {
        tmp->len = 0;
        *keep = *tmp;
    } else {
        buf_free(tmp);
    }
}

int tmpl_render(const tmpl_prog *p, const tmpl_var *vars, i32 nvars,
                const tmpl_render_opts *o, arena *scratch, buf *out,
                tmpl_error *te)
{
    arena_mark mark = arena_save(scratch);
    jmp_buf jb;
    jmp_buf *old_oom = scratch->oom;
    iz out_start = out->len;
    /* volatile: read after a longjmp */
    ev *volatile ep = NULL;
    ev *e;

    if (te) {
        te->exc = NULL;
        te->code = ERR_OK;
        te->line = 0;
        te->msg[0] = 0;
    }
    scratch->oom = &jb;
    if (setjmp(jb)) {
        e = ep;
        int code = ERR_NOMEM;
        if (e && e->rt.code) {
            code = e->rt.code;
            if (te) {
                te->exc = e->rt.exc;
                te->code = code;
                te->line = e->rt.line;
                memcpy(te->msg, e->rt.msg, sizeof te->msg);
            }
        } else if (te) {
            te->code = ERR_NOMEM;
            snprintf(te->msg, sizeof te->msg, "out of memory (the render's scratch arena is full)");
        }
        if (e)
            tmp_done(&e->rt.tmp, o ? o->tmp : NULL);
        out->len = out_start;
        if (out->failed && out->len <= out->cap)
            out->failed = false;
        scratch->oom = old_oom;
        arena_restore(scratch, mark);
        return code;
    }
    e = NEW(scratch, ev, 1);
    ep = e;
    if (o && o->tmp) {   /* the caller's buffer is this render's now */
        e->rt.tmp = *o->tmp;
        e->rt.tmp.len = 0;
        *o->tmp = (buf){0};
    }
    e->rt.a = scratch;
    e->rt.jb = &jb;
    e->rt.now = o ? o->now : 0;
    e->rt.deadline = o ? o->deadline : 0;
    e->rt.steps = e->rt.deadline > 0 ? TMPL_CLOCK_STEPS : INT64_MAX / 2;
    e->p = p;
    e->out = out;
    e->max_output = out_start + (o && o->max_output ? o->max_output : TMPL_MAX_OUTPUT);
    e->vars = p->nsyms ? NEW_NZ(scratch, tv, p->nsyms) : NULL;
    e->has_var = p->nsyms ? NEW(scratch, u8, p->nsyms) : NULL;
    for (int f = 1; f < TVFN_COUNT; f++)   /* the globals, under the variables */
        if (p->sym_global[f] >= 0) {
            tv g = {.kind = TV_FUNC, .id = (u16)f};
            e->vars[p->sym_global[f]] = g;
            e->has_var[p->sym_global[f]] = 1;
        }
    if (p->has_blocks && p->nsyms) {
        e->exported = NEW_NZ(scratch, tv, p->nsyms);
        e->has_exported = NEW(scratch, u8, p->nsyms);
    }
    for (i32 i = 0; i < nvars; i++) {
        i32 sym = vars[i].sym;
        if (sym > 0 && sym <= p->nsyms && str_eq(p->syms[sym - 1], vars[i].name))
            sym--;                                   /* the caller's, checked */
        else if (sym >= 0)
            sym = tmpl_sym_find(p, vars[i].name);
        else
            sym = -1;                                /* the caller found it absent */
        if (sym < 0)
            continue;
        e->vars[sym] = tv_from_json(&e->rt, vars[i].value);
        e->has_var[sym] = 1;
    }
    act *root = act_new(e, NULL, p->frame);
    frame_enter(e, root, p->frame);
    exec_body(e, root, &p->body);
    tmp_done(&e->rt.tmp, o ? o->tmp : NULL);
    scratch->oom = old_oom;
    arena_restore(scratch, mark);
    return ERR_OK;
}
