/* tmpl_globals.c - the environment's global functions as the sandbox
 * gives them (tmpl_global_call, tmpl_value.h): range, dict, namespace,
 * cycler, joiner (and calling one), raise_exception, strftime_now; and the
 * binding of a compiled program to the runtime (tmpl_runtime_bind): the
 * globals' symbols and what its attribute names are on the built-in types. */
#include <stdio.h>
#include <time.h>

#include "tmpl_lib.h"

/* ---- binding a program ---- */

static const char *const global_names[TVFN_COUNT] = {
    [TVFN_RANGE] = "range", [TVFN_DICT] = "dict", [TVFN_LIPSUM] = "lipsum",
    [TVFN_CYCLER] = "cycler", [TVFN_JOINER] = "joiner", [TVFN_NAMESPACE] = "namespace",
    [TVFN_RAISE_EXCEPTION] = "raise_exception", [TVFN_STRFTIME_NOW] = "strftime_now",
};

_Static_assert((int)TVFN_COUNT <= (int)TMPL_NGLOBALS, "tmpl_prog.sym_global is too small");

_Static_assert((int)TVM_USES_CALLER == (int)TMPL_USES_CALLER &&
                   (int)TVM_USES_VARARGS == (int)TMPL_USES_VARARGS &&
                   (int)TVM_USES_KWARGS == (int)TMPL_USES_KWARGS, "tmpl_frame.uses is a tv_macro's");

static iz bind_node(const tmpl_node *cn);

static void bind_child(void *ctx, const tmpl_node *n) { *(iz *)ctx += bind_node(n); }
static void count_child(void *ctx, const tmpl_node *n);

/* The nodes of n's subtree. */
static iz count_nodes(const tmpl_node *n)
{
    iz k = 1;
    tmpl_children(n, count_child, &k);
    return k;
}

static void count_child(void *ctx, const tmpl_node *n) { *(iz *)ctx += count_nodes(n); }

static i32 steps_of(iz nodes) { return nodes < INT32_MAX ? (i32)nodes : INT32_MAX; }

/* Binds n's subtree and returns its number of nodes. For a GETATTR: what
 * its constant name is on the built-in types, and the shapes marked in its
 * op: `loop.index0` and the like (1), `name.attr` where attr can only be a
 * dict's key (2). For a loop, a macro and a call block: the steps one
 * iteration, filter test or call counts in the time budget (tmpl_frame.
 * steps), the nodes it may run, so that a render reads its work per
 * iteration and call instead of per statement. The tree is the compiler's
 * own still. */
static iz bind_node(const tmpl_node *cn)
{
    tmpl_node *n = (tmpl_node *)(uintptr_t)cn;
    if (n->kind == TMPL_GETATTR) {
        const tmpl_node *obj = n->u.getattr.obj;
        n->u.getattr.meths = tmpl_getattr_meths(n->u.getattr.attr.s);
        if (obj->kind == TMPL_NAME && str_eq(obj->u.name.s, S("loop")) && n->u.getattr.meths.loop)
            n->op = 1;
        else if (obj->kind == TMPL_NAME && n->u.getattr.meths.dict_key)
            n->op = 2;
    }
    iz nodes = 1;
    tmpl_children(n, bind_child, &nodes);
    if (n->kind == TMPL_FOR) {
        n->u.for_.frame->steps = steps_of(nodes);
        if (n->u.for_.filter && n->u.for_.frame->test)
            n->u.for_.frame->test->steps = steps_of(count_nodes(n->u.for_.filter));
    } else if ((n->kind == TMPL_MACRO || n->kind == TMPL_CALL_BLOCK) && n->u.macro.frame) {
        n->u.macro.frame->steps = steps_of(nodes);
    }
    return nodes;
}

void tmpl_runtime_bind(tmpl_prog *p)
{
    for (int f = 0; f < TMPL_NGLOBALS; f++)
        p->sym_global[f] = f > 0 && f < TVFN_COUNT ? tmpl_sym_find(p, str_cstr(global_names[f])) : -1;
    for (i32 i = 0; i < p->body.n; i++)
        bind_node(p->body.v[i]);
}

/* ---- the global functions ---- */

static void check_no_args(tmpl_rt *rt, const tv_args *a, const char *fn)
{
    if (a->npos || a->nkw)
        tmpl_raise(rt, "TypeError", "%s() takes no arguments", fn);
}

/* dict(*args, **kwargs) as Python builds it. */
static tv build_dict(tmpl_rt *rt, const tv_args *a, const char *fn)
{
    if (a->npos > 1)
        tmpl_raise(rt, "TypeError", "%s expected at most 1 argument, got %d", fn, (int)a->npos);
    tv d = tv_dict_new(rt, a->nkw);
    if (a->npos == 1) {
        tv src = a->pos[0];
        if (src.kind == TV_DICT || src.kind == TV_NS) {
            tmpl_work(rt, tv_steps(src));
            for (iz i = 0; i < tv_dict_n(src.u.dict); i++)
                tv_dict_set(rt, d.u.dict, tv_dict_e(src.u.dict)[i].key, tv_dict_e(src.u.dict)[i].val);
        } else {
            iz n;
            const tv *items = tv_iterate(rt, src, &n);
            tmpl_work(rt, n);
            for (iz i = 0; i < n; i++) {
                tv it = items[i];
                if (it.kind != TV_LIST && it.kind != TV_TUPLE && it.kind != TV_STR)
                    tmpl_raise(rt, "TypeError",
                               "cannot convert dictionary update sequence element #%lld to a sequence",
                               (long long)i);
                iz m;
                const tv *kv = tv_iterate(rt, it, &m);
                if (m != 2)
                    tmpl_raise(rt, "ValueError",
                               "dictionary update sequence element #%lld has length %lld; 2 is required",
                               (long long)i, (long long)m);
                tv_dict_set(rt, d.u.dict, kv[0], kv[1]);
            }
        }
    }
    for (i32 k = 0; k < a->nkw; k++)
        tv_dict_set(rt, d.u.dict, tv_str(a->kwname[k]), a->kw[k]);
    return d;
}

static tv call_range(tmpl_rt *rt, const tv_args *a)
{
    if (a->nkw)
        tmpl_raise(rt, "TypeError", "range() takes no keyword arguments");
    if (a->npos < 1 || a->npos > 3)
        tmpl_raise(rt, "TypeError", "range expected at %s, got %d",
                   a->npos ? "most 3 arguments" : "least 1 argument", (int)a->npos);
    i64 v[3];
    for (i32 i = 0; i < a->npos; i++) {
        tv x = a->pos[i];   /* PyNumber_Index: an Undefined has no __index__ */
        if (x.kind == TV_BIGINT)
            tmpl_fail(rt, ERR_UNSUPPORTED, "range() of integers beyond 64 bits");
        if (x.kind != TV_INT && x.kind != TV_BOOL)
            tmpl_raise(rt, "TypeError", "'%s' object cannot be interpreted as an integer",
                       tv_type_name(x));
        v[i] = int_of(x);
    }
    i64 start = 0, stop, step = 1;
    if (a->npos == 1) {
        stop = v[0];
    } else {
        start = v[0];
        stop = v[1];
        if (a->npos == 3)
            step = v[2];
    }
    if (step == 0)
        tmpl_raise(rt, "ValueError", "range() arg 3 must not be zero");
    i64 n = 0;
    if (step > 0 && start < stop)
        n = (i64)(((unsigned long long)stop - (unsigned long long)start - 1) / (unsigned long long)step + 1);
    else if (step < 0 && start > stop)
        n = (i64)(((unsigned long long)start - (unsigned long long)stop - 1) / (0ull - (unsigned long long)step) + 1);
    if (n > 100000)
        tmpl_raise(rt, "OverflowError",
                   "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
    tmpl_work(rt, (iz)n);
    tv r = tv_list_new(rt, (iz)n);
    for (i64 i = 0; i < n; i++)
        r.u.list->v[i] = tv_int(start + i * step);
    r.flags = TVF_RANGE;
    r.u.list->range[0] = start;
    r.u.list->range[1] = stop;
    r.u.list->range[2] = step;
    return r;
}

static tv call_strftime(tmpl_rt *rt, const tv_args *a)
{
    if (a->npos != 1 || a->nkw)
        tmpl_raise(rt, "TypeError", "strftime_now() takes 1 positional argument");
    tv f = a->pos[0];
    if (f.kind != TV_STR)
        tmpl_raise(rt, "TypeError", "strftime() argument 1 must be str, not %s",
                   f.kind == TV_NONE ? "None" : tv_type_name(f));   /* getargs' converterr */
    time_t t = (time_t)rt->now;
    struct tm tm;
    if (!gmtime_r(&t, &tm))
        tmpl_fail(rt, ERR_INVALID, "the clock is out of range");
    /* Python passes the format to the C library, except %f, %z and %Z,
     * which it expands itself; a naive datetime gives "" for %z and %Z. */
    buf fmt = {0};
    str s = tv_s(f);
    for (iz i = 0; i < s.len; i++) {
        if (s.s[i] == '%' && i + 1 < s.len) {
            u8 c = s.s[i + 1];
            if (c == 'f') { buf_cstr(&fmt, "000000"); i++; continue; }
            if (c == 'z' || c == 'Z') { i++; continue; }
            buf_byte(&fmt, '%');
            buf_byte(&fmt, c);
            i++;
            continue;
        }
        buf_byte(&fmt, s.s[i]);
    }
    buf_byte(&fmt, 0);
    char out[1024];
    /* The format is the template's: strftime only reads it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    size_t n = fmt.failed ? 0 : strftime(out, sizeof out, (const char *)fmt.data, &tm);
#pragma GCC diagnostic pop
    bool empty_fmt = fmt.len <= 1;
    buf_free(&fmt);
    if (n == 0 && !empty_fmt)
        tmpl_fail(rt, ERR_UNSUPPORTED, "strftime_now: format too long or not supported");
    return tv_str_copy(rt, str_from(out, (iz)n));
}

/* A recursive loop's loop(iterable). */

tv tmpl_global_call(tmpl_rt *rt, tv callee, const tv_args *args)
{
    if (callee.kind == TV_JOINER) {
        check_no_args(rt, args, "__call__");
        tv_joiner *j = callee.u.joiner;
        if (!j->used) {
            j->used = true;
            return tv_str(S(""));
        }
        return tv_str(j->sep);
    }
    ASSERT(callee.kind == TV_FUNC);
    switch (callee.id) {
    case TVFN_RANGE:
        return call_range(rt, args);
    case TVFN_DICT:
        return build_dict(rt, args, "dict");
    case TVFN_NAMESPACE: {
        tv d = build_dict(rt, args, "Namespace");
        d.kind = TV_NS;
        return d;
    }
    case TVFN_RAISE_EXCEPTION: {
        if (args->npos != 1 || args->nkw)
            tmpl_raise(rt, "TypeError", "raise_exception() takes 1 positional argument but %d were given",
                       (int)args->npos);
        tv m = tv_to_str(rt, args->pos[0]);
        tmpl_raise(rt, "TemplateError", "%.*s", (int)MIN(tv_s(m).len, (iz)ERR_MSG_MAX),
                   (const char *)tv_s(m).s);
    }
    case TVFN_STRFTIME_NOW:
        return call_strftime(rt, args);
    case TVFN_CYCLER: {
        if (args->nkw)
            tmpl_raise(rt, "TypeError", "Cycler() got an unexpected keyword argument");
        if (!args->npos)
            tmpl_raise(rt, "RuntimeError", "at least one item has to be provided");
        tv_cycler *c = NEW(rt->a, tv_cycler, 1);
        tv *items = NEW_NZ(rt->a, tv, args->npos);
        memcpy(items, args->pos, sizeof *items * (size_t)args->npos);
        c->items = items;
        c->n = args->npos;
        tv v = {.kind = TV_CYCLER};
        v.u.cycler = c;
        return v;
    }
    case TVFN_JOINER: {
        tv sep = tv_str(S(", "));
        if (args->npos == 1 && !args->nkw)
            sep = args->pos[0];
        else if (args->npos == 0 && args->nkw == 1 && str_eq(args->kwname[0], S("sep")))
            sep = args->kw[0];
        else if (args->npos || args->nkw)
            tmpl_raise(rt, "TypeError", "Joiner() takes 1 argument");
        tv_joiner *j = NEW(rt->a, tv_joiner, 1);
        j->sep = tv_s(tv_to_str(rt, sep));
        tv v = {.kind = TV_JOINER};
        v.u.joiner = j;
        return v;
    }
    default:
        tmpl_fail(rt, ERR_UNSUPPORTED, "the global %s()", callee.id < TVFN_COUNT && global_names[callee.id]
                                                               ? global_names[callee.id] : "?");
    }
}
