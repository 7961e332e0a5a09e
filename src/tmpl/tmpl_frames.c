/* tmpl_frames.c - which variable each name of a template is, decided at
 * compile time the way Jinja2 3.1's compiler decides it, so that a render
 * reads and writes the same variables Jinja's generated Python does (see
 * "frames" in tmpl_ast.h).
 *
 * Two passes over the tree, as Jinja makes them:
 *  - analysis (jinja2/idtracking.py: Symbols, FrameSymbolVisitor,
 *    RootVisitor): for each frame, the names it defines (refs), the
 *    instruction that sets each on entry (loads) and the names it assigns
 *    (stores). Order matters: a name read before its first assignment in a
 *    frame comes from outside; one assigned first starts out missing; one
 *    assigned in only some branches of an if is taken from outside.
 *  - resolution (jinja2/compiler.py's frames): every NAME gets the ref the
 *    frame it is compiled in resolves it to, every function the slots of
 *    the refs that live in it.
 * Everything here is small and searched linearly; a work budget turns a
 * pathological template into a limit error instead of a long compile. */
#include "tmpl_front.h"

#include <stdarg.h>
#include <stdio.h>

enum { WORK_BUDGET = 200 * 1000 * 1000 };

typedef struct fn fn;
struct fn {
    fn         *parent;
    str         qualname;     /* the Python function's __qualname__ */
    i32         depth;        /* functions out to the template's own */
    i32        *key_level;    /* slot k holds l_<key_level[k]>_<syms[key_sym[k]]> */
    i32        *key_sym;
    u8         *cell;         /* read by a function nested in this one (a Python cell) */
    i32         n, cap;
    tmpl_frame *frame;        /* where nslots goes */
};

typedef struct sload {
    i32 sym;         /* the ref l_<level>_<sym> of this frame */
    u8  action;      /* tmpl_load_action */
    i32 from_level;  /* ALIAS: the ref l_<from_level>_<sym> */
} sload;

typedef struct syms syms;
struct syms {
    syms  *parent;
    i32    level;
    fn    *f;
    i32   *refs;   i32 nrefs, caprefs;
    sload *loads;  i32 nloads, caploads;
    i32   *stores; i32 nstores, capstores;
};

typedef struct set_cand { tmpl_node *n; fn *f; } set_cand;

typedef struct fx {
    arena            *scratch;
    arena            *a;        /* the program's */
    i64               work;
    jmp_buf           jb;
    const tmpl_node  *bad;
    int               code;     /* err_code of the failure */
    fn              **fns;      /* every function, for their slot counts */
    i32               nfns, capfns;
    set_cand         *sets;     /* {% set a, b = x, y %} that may store backwards */
    i32               nsets, capsets;
    char             *msg;
    iz                msgcap;
    /* Jinja's _param_def_block: while a macro's defaults are compiled,
     * the refs (levels fixed: the macro's frame) of its parameters not
     * yet assigned */
    i32              *undeclared;
    i32               nundeclared;
    i32               undeclared_level;
    i32               sym_loop, sym_caller, sym_kwargs, sym_varargs;
} fx;

static _Noreturn void fail(fx *x, const tmpl_node *n, int code, const char *fmt, ...)
{
    x->bad = n;
    x->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->msg, (size_t)x->msgcap, fmt, ap);
    va_end(ap);
    longjmp(x->jb, 1);
}

static void work(fx *x, const tmpl_node *n, i64 units)
{
    x->work += units;
    if (x->work > WORK_BUDGET)
        fail(x, n, ERR_LIMIT, "the template has too many names and branches to resolve");
}

/* Grows an array of `size`-byte items to hold one more. */
static void *grow(fx *x, void *v, i32 n, i32 *cap, iz size)
{
    if (n < *cap)
        return v;
    i32 ncap = *cap ? *cap * 2 : 8;
    void *nv = arena_alloc_nz(x->scratch, size, 8, ncap);
    if (n)
        memcpy(nv, v, (size_t)size * (size_t)n);
    *cap = ncap;
    return nv;
}

/* ---- Symbols ------------------------------------------------------------ */

static syms *syms_new(fx *x, syms *parent, fn *f)
{
    syms *s = NEW(x->scratch, syms, 1);
    s->parent = parent;
    s->level = parent ? parent->level + 1 : 0;
    s->f = f;
    return s;
}

static syms *syms_copy(fx *x, const syms *o)
{
    syms *s = NEW(x->scratch, syms, 1);
    *s = *o;
    s->refs = NEW_NZ(x->scratch, i32, o->nrefs + 1);
    s->loads = NEW_NZ(x->scratch, sload, o->nloads + 1);
    s->stores = NEW_NZ(x->scratch, i32, o->nstores + 1);
    s->caprefs = o->nrefs + 1;
    s->caploads = o->nloads + 1;
    s->capstores = o->nstores + 1;
    if (o->nrefs) memcpy(s->refs, o->refs, sizeof(i32) * (size_t)o->nrefs);
    if (o->nloads) memcpy(s->loads, o->loads, sizeof(sload) * (size_t)o->nloads);
    if (o->nstores) memcpy(s->stores, o->stores, sizeof(i32) * (size_t)o->nstores);
    work(x, NULL, o->nrefs + o->nloads + o->nstores + 1);
    return s;
}

static bool has_ref(fx *x, const syms *s, i32 sym)
{
    work(x, NULL, s->nrefs + 1);
    for (i32 i = 0; i < s->nrefs; i++)
        if (s->refs[i] == sym)
            return true;
    return false;
}

static bool has_store(fx *x, const syms *s, i32 sym)
{
    work(x, NULL, s->nstores + 1);
    for (i32 i = 0; i < s->nstores; i++)
        if (s->stores[i] == sym)
            return true;
    return false;
}

/* The symbols whose ref `sym` is: s or the nearest parent defining it. */
static syms *find_ref(fx *x, syms *s, i32 sym)
{
    for (; s; s = s->parent)
        if (has_ref(x, s, sym))
            return s;
    return NULL;
}

static sload *own_load(fx *x, syms *s, i32 sym)
{
    work(x, NULL, s->nloads + 1);
    for (i32 i = 0; i < s->nloads; i++)
        if (s->loads[i].sym == sym)
            return &s->loads[i];
    return NULL;
}

static void set_load(fx *x, syms *s, i32 sym, u8 action, i32 from_level)
{
    sload *l = own_load(x, s, sym);
    if (!l) {
        s->loads = grow(x, s->loads, s->nloads, &s->caploads, (iz)sizeof(sload));
        l = &s->loads[s->nloads++];
    }
    *l = (sload){sym, action, from_level};
}

static void add_store(fx *x, syms *s, i32 sym)
{
    if (has_store(x, s, sym))
        return;
    s->stores = grow(x, s->stores, s->nstores, &s->capstores, (iz)sizeof(i32));
    s->stores[s->nstores++] = sym;
}

/* _define_ref */
static void define_ref(fx *x, syms *s, i32 sym, u8 action, i32 from_level)
{
    if (!has_ref(x, s, sym)) {
        s->refs = grow(x, s->refs, s->nrefs, &s->caprefs, (iz)sizeof(i32));
        s->refs[s->nrefs++] = sym;
    }
    set_load(x, s, sym, action, from_level);
}

static void sym_store(fx *x, syms *s, i32 sym)
{
    add_store(x, s, sym);
    if (has_ref(x, s, sym))
        return;
    syms *outer = s->parent ? find_ref(x, s->parent, sym) : NULL;
    if (outer)
        define_ref(x, s, sym, TMPL_LOAD_ALIAS, outer->level);
    else
        define_ref(x, s, sym, TMPL_LOAD_UNDEFINED, 0);
}

static void declare_parameter(fx *x, syms *s, i32 sym)
{
    add_store(x, s, sym);
    define_ref(x, s, sym, TMPL_LOAD_PARAM, 0);
}

static void sym_load(fx *x, syms *s, i32 sym)
{
    if (!find_ref(x, s, sym))
        define_ref(x, s, sym, TMPL_LOAD_RESOLVE, 0);
}

static void branch_update(fx *x, syms *s, syms **br, int nbr)
{
    /* names some branch stores that s does not: how many branches do */
    i32 *names = NULL, *counts = NULL;
    i32 n = 0, cap = 0, capc = 0;
    for (int b = 0; b < nbr; b++)
        for (i32 i = 0; i < br[b]->nstores; i++) {
            i32 sym = br[b]->stores[i];
            if (has_store(x, s, sym))
                continue;
            i32 k = 0;
            while (k < n && names[k] != sym)
                k++;
            work(x, NULL, n + 1);
            if (k == n) {
                names = grow(x, names, n, &cap, (iz)sizeof(i32));
                counts = grow(x, counts, n, &capc, (iz)sizeof(i32));
                names[n] = sym;
                counts[n] = 0;
                n++;
            }
            counts[k]++;
        }
    for (int b = 0; b < nbr; b++) {
        for (i32 i = 0; i < br[b]->nrefs; i++)
            if (!has_ref(x, s, br[b]->refs[i])) {
                s->refs = grow(x, s->refs, s->nrefs, &s->caprefs, (iz)sizeof(i32));
                s->refs[s->nrefs++] = br[b]->refs[i];
            }
        for (i32 i = 0; i < br[b]->nloads; i++)
            set_load(x, s, br[b]->loads[i].sym, br[b]->loads[i].action, br[b]->loads[i].from_level);
        for (i32 i = 0; i < br[b]->nstores; i++)
            add_store(x, s, br[b]->stores[i]);
    }
    for (i32 k = 0; k < n; k++) {
        if (counts[k] == nbr)
            continue;
        syms *outer = s->parent ? find_ref(x, s->parent, names[k]) : NULL;
        if (outer)
            set_load(x, s, names[k], TMPL_LOAD_ALIAS, outer->level);
        else
            set_load(x, s, names[k], TMPL_LOAD_RESOLVE, 0);
    }
}

/* ---- analysis: FrameSymbolVisitor --------------------------------------- */

static void fsv_stmt(fx *x, syms *s, const tmpl_node *n);

static void fsv_list(fx *x, syms *s, const tmpl_list *l, bool param);

typedef struct fsv_ctx { fx *x; syms *s; bool param; } fsv_ctx;

static void fsv_child(void *ctx, const tmpl_node *n);

/* An expression, or a target (NAME/TUPLE/NSREF) with its own context;
 * `param` is RootVisitor's store_as_param, which a tuple passes on. */
static void fsv_expr(fx *x, syms *s, const tmpl_node *n, bool param)
{
    if (!n)
        return;
    work(x, n, 1);
    switch ((tmpl_kind)n->kind) {
    case TMPL_NAME:
        if (param || n->op == TMPL_CTX_PARAM)
            declare_parameter(x, s, n->u.name.sym);
        else if (n->op == TMPL_CTX_STORE)
            sym_store(x, s, n->u.name.sym);
        else
            sym_load(x, s, n->u.name.sym);
        return;
    case TMPL_NSREF:
        sym_load(x, s, n->u.nsref.name.sym);
        return;
    default: {
        fsv_ctx c = {x, s, param && n->kind == TMPL_TUPLE};
        tmpl_children(n, fsv_child, &c);
        return;
    }
    }
}

static void fsv_child(void *ctx, const tmpl_node *n)
{
    const fsv_ctx *c = ctx;
    fsv_expr(c->x, c->s, n, c->param);
}

static void fsv_list(fx *x, syms *s, const tmpl_list *l, bool param)
{
    for (i32 i = 0; i < l->n; i++)
        fsv_expr(x, s, l->v[i], param);
}

static void fsv_body(fx *x, syms *s, const tmpl_list *body)
{
    for (i32 i = 0; i < body->n; i++)
        fsv_stmt(x, s, body->v[i]);
}

static void fsv_if(fx *x, syms *s, const tmpl_node *n)
{
    fsv_expr(x, s, n->u.if_.test, false);
    syms *br[3];
    br[0] = syms_copy(x, s);
    fsv_body(x, br[0], &n->u.if_.body);
    br[1] = syms_copy(x, s);
    for (i32 i = 0; i < n->u.if_.elifs.n; i++)
        fsv_if(x, br[1], n->u.if_.elifs.v[i]);
    br[2] = syms_copy(x, s);
    fsv_body(x, br[2], &n->u.if_.orelse);
    branch_update(x, s, br, 3);
}

static void fsv_stmt(fx *x, syms *s, const tmpl_node *n)
{
    work(x, n, 1);
    switch ((tmpl_kind)n->kind) {
    case TMPL_OUTPUT: fsv_expr(x, s, n->u.expr, false); return;
    case TMPL_IF: fsv_if(x, s, n); return;
    case TMPL_FOR: fsv_expr(x, s, n->u.for_.iter, false); return;   /* the rest is its frames' */
    case TMPL_SET:
        fsv_expr(x, s, n->u.set.value, false);
        fsv_expr(x, s, n->u.set.target, false);
        return;
    case TMPL_SET_BLOCK: fsv_expr(x, s, n->u.setblock.target, false); return;
    case TMPL_MACRO: sym_store(x, s, n->u.macro.name.sym); return;
    case TMPL_CALL_BLOCK: fsv_expr(x, s, n->u.macro.call, false); return;
    case TMPL_FILTER_BLOCK: fsv_expr(x, s, n->u.fblock.filter, false); return;
    case TMPL_WITH: fsv_list(x, s, &n->u.with.values, false); return;
    case TMPL_EXTENDS: case TMPL_INCLUDE:
        fsv_expr(x, s, n->u.load.tmpl, false);
        return;
    case TMPL_IMPORT:
        fsv_expr(x, s, n->u.load.tmpl, false);
        sym_store(x, s, n->u.load.target.sym);
        return;
    case TMPL_FROM_IMPORT:
        fsv_expr(x, s, n->u.load.tmpl, false);
        for (i32 i = 0; i < n->u.load.nnames; i++)
            sym_store(x, s, n->u.load.aliases[i].sym);
        return;
    default:
        /* TEXT, BREAK, CONTINUE; GENERATION (a call block whose call names
         * nothing), AUTOESCAPE (a Scope) and BLOCK stop here */
        return;
    }
}

/* ---- find_undeclared --------------------------------------------------- */

/* Jinja's UndeclaredNameVisitor over a body: which of `names` (bit i for
 * names[i]) is read before anything else named so. Visits nodes in Jinja's
 * field order, into nested macros and loops, not into blocks. */
typedef struct undecl {
    const i32 *names;
    int        n;
    unsigned   live, found;
} undecl;

static void und_body(fx *x, undecl *u, const tmpl_list *l);

typedef struct und_ctx { fx *x; undecl *u; } und_ctx;

static void und_child(void *ctx, const tmpl_node *n);

static void und_node(fx *x, undecl *u, const tmpl_node *n)
{
    if (!n || !u->live)
        return;
    work(x, n, 1);
    if (n->kind == TMPL_NAME) {
        for (int i = 0; i < u->n; i++)
            if (u->names[i] == n->u.name.sym && (u->live >> i & 1)) {
                if (n->op == TMPL_CTX_LOAD)
                    u->found |= 1u << i;
                else
                    u->live &= ~(1u << i);
            }
        return;
    }
    if (n->kind == TMPL_BLOCK)   /* visit_Block stops */
        return;
    und_ctx c = {x, u};
    tmpl_children(n, und_child, &c);   /* an NSREF is a Name only where loaded */
}

static void und_child(void *ctx, const tmpl_node *n)
{
    const und_ctx *c = ctx;
    und_node(c->x, c->u, n);
}

static void und_body(fx *x, undecl *u, const tmpl_list *l)
{
    for (i32 i = 0; i < l->n; i++)
        und_node(x, u, l->v[i]);
}

/* ---- resolution ---------------------------------------------------------- */

/* A function nested in parent (NULL: one of the template's own, `name`
 * being "root" or "block_<name>"), called `name` in Python. */
static fn *fn_new(fx *x, fn *parent, tmpl_frame *frame, str name)
{
    fn *f = NEW(x->scratch, fn, 1);
    f->parent = parent;
    if (parent) {
        str mid = S(".<locals>.");
        iz len = parent->qualname.len + mid.len + name.len;
        u8 *q = NEW_NZ(x->a, u8, len);
        memcpy(q, parent->qualname.s, (size_t)parent->qualname.len);
        memcpy(q + parent->qualname.len, mid.s, (size_t)mid.len);
        memcpy(q + parent->qualname.len + mid.len, name.s, (size_t)name.len);
        f->qualname = str_from(q, len);
    } else {
        f->qualname = name;
    }
    frame->qualname = f->qualname;
    f->depth = parent ? parent->depth + 1 : 0;
    f->frame = frame;
    x->fns = grow(x, x->fns, x->nfns, &x->capfns, (iz)sizeof(fn *));
    x->fns[x->nfns++] = f;
    return f;
}

static i32 fn_slot(fx *x, fn *f, i32 level, i32 sym, const tmpl_node *at)
{
    work(x, at, f->n + 1);
    for (i32 k = 0; k < f->n; k++)
        if (f->key_sym[k] == sym && f->key_level[k] == level)
            return k;
    if (f->n >= TMPL_MAX_SLOTS)
        fail(x, at, ERR_LIMIT, "more than %d variables in one function of the template", TMPL_MAX_SLOTS);
    i32 cap = f->cap;
    f->key_level = grow(x, f->key_level, f->n, &cap, (iz)sizeof(i32));
    cap = f->cap;
    f->key_sym = grow(x, f->key_sym, f->n, &cap, (iz)sizeof(i32));
    cap = f->cap;
    f->cell = grow(x, f->cell, f->n, &cap, 1);
    f->cap = cap;
    f->key_level[f->n] = level;
    f->key_sym[f->n] = sym;
    f->cell[f->n] = 0;
    return f->n++;
}

/* A variable of f that a nested function reads. */
static void mark_cell(fn *f, i32 slot)
{
    f->cell[slot] = 1;
}

static tmpl_frame *frame_new(fx *x)
{
    tmpl_frame *fr = NEW(x->a, tmpl_frame, 1);
    fr->loop_slot = fr->caller_slot = fr->kwargs_slot = fr->varargs_slot = -1;
    return fr;
}

/* The symbols of level `level` on s's chain. */
static syms *at_level(syms *s, i32 level)
{
    while (s && s->level != level)
        s = s->parent;
    return s;
}

/* The frame's loads, as enter_frame and leave_frame run them. */
static void frame_loads(fx *x, tmpl_frame *fr, syms *s, const tmpl_node *at)
{
    fr->nloads = s->nloads;
    fr->loads = s->nloads ? NEW(x->a, tmpl_load, s->nloads) : NULL;
    /* the order of a frame's loads does not matter (each sets its own
     * variable from the context or a frame further out): those entering
     * runs first, the parameters after */
    fr->nenter = 0;
    for (i32 i = 0; i < s->nloads; i++)
        fr->nenter += s->loads[i].action != TMPL_LOAD_PARAM;
    i32 next_enter = 0, next_param = fr->nenter;
    for (i32 i = 0; i < s->nloads; i++) {
        const sload *l = &s->loads[i];
        tmpl_load *o = &fr->loads[l->action == TMPL_LOAD_PARAM ? next_param++ : next_enter++];
        o->slot = (u16)fn_slot(x, s->f, s->level, l->sym, at);
        o->action = l->action;
        if (l->action == TMPL_LOAD_RESOLVE) {
            o->arg = l->sym;
        } else if (l->action == TMPL_LOAD_ALIAS) {
            syms *from = at_level(s->parent, l->from_level);
            if (!from)
                fail(x, at, ERR_SYNTAX, "internal: an alias to no frame");
            o->up = (u8)(s->f->depth - from->f->depth);
            o->arg = fn_slot(x, from->f, from->level, l->sym, at);
            if (o->up)
                mark_cell(from->f, o->arg);
        }
    }
}

static bool undeclared_param(const fx *x, i32 level, i32 sym)
{
    if (level != x->undeclared_level)
        return false;
    for (i32 i = 0; i < x->nundeclared; i++)
        if (x->undeclared[i] == sym)
            return true;
    return false;
}

static void res_expr(fx *x, syms *s, tmpl_node *n);

/* A NAME or NSREF node's variable, as frame s resolves it. */
static void res_name(fx *x, syms *s, tmpl_node *n, i32 sym, str name, bool load)
{
    syms *o = find_ref(x, s, sym);
    if (!o)
        fail(x, n, ERR_SYNTAX, "Tried to resolve a name to a reference that was unknown to the frame ('%.*s')",
             (int)MIN(name.len, 200), (const char *)name.s);
    n->slot = (u16)fn_slot(x, o->f, o->level, sym, n);
    n->up = (u8)(s->f->depth - o->f->depth);
    n->flags = 0;
    if (n->up)
        mark_cell(o->f, n->slot);
    if (load) {
        sload *l = own_load(x, o, sym);
        if (!(l && l->action == TMPL_LOAD_PARAM && !undeclared_param(x, o->level, sym)))
            n->flags |= TMPL_NAME_CHECK;
    }
}

typedef struct res_ctx { fx *x; syms *s; } res_ctx;

/* The tree is still being built: its nodes are the compiler's to write. */
static void res_child(void *ctx, const tmpl_node *n)
{
    const res_ctx *c = ctx;
    res_expr(c->x, c->s, (tmpl_node *)(uintptr_t)n);
}

static void res_expr(fx *x, syms *s, tmpl_node *n)
{
    if (!n)
        return;
    if (n->kind == TMPL_NAME) {
        res_name(x, s, n, n->u.name.sym, n->u.name.s, n->op == TMPL_CTX_LOAD);
        return;
    }
    if (n->kind == TMPL_NSREF) {
        res_name(x, s, n, n->u.nsref.name.sym, n->u.nsref.name.s, false);
        return;
    }
    res_ctx c = {x, s};
    tmpl_children(n, res_child, &c);
}

/* Whether Jinja writes a constant for the expression (a literal, or an
 * operation on constants its optimizer folds; filters, tests and calls are
 * taken as not folded), so that CPython folds a tuple of them into one. */
static bool const_node(const tmpl_node *n)
{
    switch ((tmpl_kind)n->kind) {
    case TMPL_NONE: case TMPL_BOOL: case TMPL_INT: case TMPL_FLOAT: case TMPL_STR: return true;
    case TMPL_TUPLE: case TMPL_CONCAT:
        for (i32 i = 0; i < n->u.items.n; i++)
            if (!const_node(n->u.items.v[i]))
                return false;
        return true;
    case TMPL_NOT: case TMPL_NEG: case TMPL_POS: return const_node(n->u.operand);
    case TMPL_BINOP: case TMPL_AND: case TMPL_OR: return const_node(n->u.bin.l) && const_node(n->u.bin.r);
    default: return false;
    }
}

/* `{% set a, b = x, y %}` is Python's `(l_0_a, l_0_b) = (x, y)`: for two or
 * three names that are plain locals (no nested function reads them) and a
 * tuple that is not a constant, CPython 3.11 stores the values last to
 * first, which shows when a name repeats (`{% set a, a = x, 1 %}` leaves
 * x). This is the shape; the locals are checked at the end. */
static bool stores_reversed(const tmpl_node *t, const tmpl_node *v)
{
    if (t->kind != TMPL_TUPLE || v->kind != TMPL_TUPLE || t->u.items.n != v->u.items.n ||
        t->u.items.n < 2 || t->u.items.n > 3 || const_node(v))
        return false;
    for (i32 i = 0; i < t->u.items.n; i++)
        if (t->u.items.v[i]->kind != TMPL_NAME)
            return false;
    return true;
}

/* A store target in s; NAMEs at the template's top level also go to
 * context.vars (`top`). */
static void res_target(fx *x, syms *s, tmpl_node *n, bool top)
{
    res_expr(x, s, n);
    if (top && n->kind == TMPL_NAME)
        n->flags |= TMPL_NAME_EXPORT;
    if (n->kind == TMPL_TUPLE)
        for (i32 i = 0; i < n->u.items.n; i++)
            res_target(x, s, n->u.items.v[i], top);
}

/* The target of a loop filter in its function: the slot of each of its
 * names in order, in tf->locals. */
static void filter_target_slots(fx *x, tmpl_frame *tf, fn *f, syms *ts, const tmpl_node *n)
{
    if (n->kind == TMPL_NAME) {
        tf->locals[tf->nlocals++].slot = (u16)fn_slot(x, f, ts->level, n->u.name.sym, n);
    } else if (n->kind == TMPL_TUPLE) {
        for (i32 i = 0; i < n->u.items.n; i++)
            filter_target_slots(x, tf, f, ts, n->u.items.v[i]);
    }
}

static i32 count_names(const tmpl_node *n)
{
    if (n->kind != TMPL_TUPLE)
        return 1;
    i32 k = 0;
    for (i32 i = 0; i < n->u.items.n; i++)
        k += count_names(n->u.items.v[i]);
    return k;
}

/* Whether a scoped block is anywhere under n (find_all). */
static void scoped_block_visit(void *ctx, const tmpl_node *n)
{
    bool *found = ctx;
    if (*found || (n->kind == TMPL_BLOCK && n->u.block.scoped))
        *found = true;
    else
        tmpl_children(n, scoped_block_visit, found);
}

static bool scoped_block_in(const tmpl_node *n)
{
    bool found = false;
    tmpl_children(n, scoped_block_visit, &found);
    return found;
}

static void res_body(fx *x, syms *s, const tmpl_list *body, bool top);

/* A macro or call block body (macro_body): a function of its own. */
static tmpl_frame *res_macro(fx *x, syms *s, tmpl_node *n)
{
    tmpl_frame *fr = frame_new(x);
    fr->keep = true;
    fr->function = true;
    fn *f = fn_new(x, s->f, fr, S("macro"));
    syms *ms = syms_new(x, s, f);
    /* RootVisitor.visit_Macro / visit_CallBlock: args, defaults, body */
    fsv_list(x, ms, &n->u.macro.params, false);
    fsv_list(x, ms, &n->u.macro.defaults, false);
    fsv_body(x, ms, &n->u.macro.body);
    bool explicit_caller = false, skip_kwargs = false, skip_varargs = false;
    for (i32 i = 0; i < n->u.macro.params.n; i++) {
        i32 sym = n->u.macro.params.v[i]->u.name.sym;
        explicit_caller |= sym == x->sym_caller;
        skip_kwargs |= sym == x->sym_kwargs;
        skip_varargs |= sym == x->sym_varargs;
    }
    i32 want[3] = {x->sym_caller, x->sym_kwargs, x->sym_varargs};
    undecl u = {want, 3, 0, 0};
    for (int i = 0; i < 3; i++)
        if (want[i] >= 0)
            u.live |= 1u << i;
    und_body(x, &u, &n->u.macro.body);
    bool caller = (u.found & 1) && !explicit_caller;
    bool kwargs = (u.found & 2) && !skip_kwargs;
    bool varargs = (u.found & 4) && !skip_varargs;
    fr->uses = (u8)(((u.found & 1) ? TMPL_USES_CALLER : 0) | (kwargs ? TMPL_USES_KWARGS : 0) |
                    (varargs ? TMPL_USES_VARARGS : 0));
    if (caller)
        declare_parameter(x, ms, x->sym_caller);
    if (kwargs)
        declare_parameter(x, ms, x->sym_kwargs);
    if (varargs)
        declare_parameter(x, ms, x->sym_varargs);
    /* Jinja analyzes the frame a second time */
    fsv_list(x, ms, &n->u.macro.params, false);
    fsv_list(x, ms, &n->u.macro.defaults, false);
    fsv_body(x, ms, &n->u.macro.body);
    /* the parameters first, in order, so their slots are 0.. */
    for (i32 i = 0; i < n->u.macro.params.n; i++)
        res_expr(x, ms, n->u.macro.params.v[i]);
    if (caller)
        fr->caller_slot = fn_slot(x, f, ms->level, x->sym_caller, n);
    if (kwargs)
        fr->kwargs_slot = fn_slot(x, f, ms->level, x->sym_kwargs, n);
    if (varargs)
        fr->varargs_slot = fn_slot(x, f, ms->level, x->sym_varargs, n);
    frame_loads(x, fr, ms, n);
    /* the defaults, each with the parameters not yet assigned undeclared
     * (push_parameter_definitions: all of the frame's PARAM loads) */
    i32 *saved = x->undeclared, nsaved = x->nundeclared, lsaved = x->undeclared_level;
    i32 np = n->u.macro.params.n, nd = n->u.macro.defaults.n;
    x->undeclared = NEW_NZ(x->scratch, i32, ms->nloads + 1);
    x->nundeclared = 0;
    x->undeclared_level = ms->level;
    for (i32 i = 0; i < ms->nloads; i++)
        if (ms->loads[i].action == TMPL_LOAD_PARAM)
            x->undeclared[x->nundeclared++] = ms->loads[i].sym;
    for (i32 i = 0; i < np; i++) {
        if (i >= np - nd)
            res_expr(x, ms, n->u.macro.defaults.v[i - (np - nd)]);
        i32 sym = n->u.macro.params.v[i]->u.name.sym;
        for (i32 k = 0; k < x->nundeclared; k++)
            if (x->undeclared[k] == sym) {
                x->undeclared[k] = x->undeclared[--x->nundeclared];
                break;
            }
    }
    x->undeclared = saved;
    x->nundeclared = nsaved;
    x->undeclared_level = lsaved;
    res_body(x, ms, &n->u.macro.body, false);
    return fr;
}

/* A frame one level in (Frame.inner) in the same function, whose body and
 * expressions `fsv` analyses. */
static syms *inner(fx *x, syms *s)
{
    return syms_new(x, s, s->f);
}

static void res_for(fx *x, syms *s, tmpl_node *n)
{
    tmpl_frame *fr = frame_new(x);
    n->u.for_.frame = fr;
    i32 loop_sym[1] = {x->sym_loop};
    undecl u = {loop_sym, 1, x->sym_loop >= 0, 0};
    und_body(x, &u, &n->u.for_.body);
    bool extended = n->u.for_.recursive || (u.found & 1) || scoped_block_in(n);
    /* the body: a function of its own when recursive */
    fn *bf = s->f;
    if (n->u.for_.recursive) {
        bf = fn_new(x, s->f, fr, S("loop"));
        fr->function = true;
        fr->keep = !n->u.for_.orelse.n;
    }
    syms *ls = syms_new(x, s, bf);
    if (extended)
        declare_parameter(x, ls, x->sym_loop);
    fsv_expr(x, ls, n->u.for_.target, true);
    fsv_body(x, ls, &n->u.for_.body);
    syms *es = NULL;
    if (n->u.for_.orelse.n) {
        es = syms_new(x, s, bf);
        fsv_body(x, es, &n->u.for_.orelse);
    }
    if (n->u.for_.filter) {
        /* the filter: a generator function of its own */
        tmpl_frame *tf = frame_new(x);
        tf->keep = true;
        tf->function = true;
        fn *f = fn_new(x, s->f, tf, S("t"));
        syms *ts = syms_new(x, s, f);
        fsv_expr(x, ts, n->u.for_.target, true);
        fsv_expr(x, ts, n->u.for_.filter, false);
        tf->locals = NEW(x->a, tmpl_load, count_names(n->u.for_.target));
        filter_target_slots(x, tf, f, ts, n->u.for_.target);
        frame_loads(x, tf, ts, n);
        res_expr(x, ts, n->u.for_.filter);
        fr->test = tf;
    }
    res_expr(x, s, n->u.for_.iter);
    res_target(x, ls, n->u.for_.target, false);
    if (extended)
        fr->loop_slot = fn_slot(x, bf, ls->level, x->sym_loop, n);
    frame_loads(x, fr, ls, n);
    res_body(x, ls, &n->u.for_.body, false);
    if (es) {
        tmpl_frame *ef = frame_new(x);
        frame_loads(x, ef, es, n);
        res_body(x, es, &n->u.for_.orelse, false);
        fr->orelse = ef;
    }
}

static void res_stmt(fx *x, syms *s, tmpl_node *n, bool top)
{
    switch ((tmpl_kind)n->kind) {
    case TMPL_OUTPUT: res_expr(x, s, n->u.expr); return;
    case TMPL_IF:
        res_expr(x, s, n->u.if_.test);
        res_body(x, s, &n->u.if_.body, top);
        for (i32 i = 0; i < n->u.if_.elifs.n; i++)
            res_stmt(x, s, n->u.if_.elifs.v[i], top);
        res_body(x, s, &n->u.if_.orelse, top);
        return;
    case TMPL_FOR: res_for(x, s, n); return;
    case TMPL_SET:
        res_target(x, s, n->u.set.target, top);
        res_expr(x, s, n->u.set.value);
        if (stores_reversed(n->u.set.target, n->u.set.value)) {   /* decided at the end */
            x->sets = grow(x, x->sets, x->nsets, &x->capsets, (iz)sizeof(*x->sets));
            x->sets[x->nsets++] = (set_cand){n, s->f};
        }
        return;
    case TMPL_SET_BLOCK: {
        syms *bs = inner(x, s);
        fsv_body(x, bs, &n->u.setblock.body);
        tmpl_frame *fr = frame_new(x);
        frame_loads(x, fr, bs, n);
        n->u.setblock.frame = fr;
        res_body(x, bs, &n->u.setblock.body, false);
        res_target(x, s, n->u.setblock.target, top);
        res_expr(x, bs, n->u.setblock.filter);
        return;
    }
    case TMPL_MACRO: {
        n->u.macro.frame = res_macro(x, s, n);
        /* the name, a store in s: its variable in the MACRO node's own fields */
        syms *o = find_ref(x, s, n->u.macro.name.sym);
        ASSERT(o == s);
        n->slot = (u16)fn_slot(x, o->f, o->level, n->u.macro.name.sym, n);
        n->up = 0;
        n->flags = top ? TMPL_NAME_EXPORT : 0;
        return;
    }
    case TMPL_CALL_BLOCK:
        n->u.macro.frame = res_macro(x, s, n);
        res_expr(x, s, n->u.macro.call);
        return;
    case TMPL_GENERATION: {
        /* a call block without parameters: its body is a function */
        tmpl_frame *fr = frame_new(x);
        fr->keep = true;
        fr->function = true;
        fn *f = fn_new(x, s->f, fr, S("macro"));
        syms *gs = syms_new(x, s, f);
        fsv_body(x, gs, &n->u.fblock.body);
        fsv_body(x, gs, &n->u.fblock.body);
        frame_loads(x, fr, gs, n);
        res_body(x, gs, &n->u.fblock.body, false);
        n->u.fblock.frame = fr;
        return;
    }
    case TMPL_FILTER_BLOCK: {
        syms *bs = inner(x, s);
        fsv_body(x, bs, &n->u.fblock.body);
        fsv_expr(x, bs, n->u.fblock.filter, false);
        tmpl_frame *fr = frame_new(x);
        frame_loads(x, fr, bs, n);
        n->u.fblock.frame = fr;
        res_body(x, bs, &n->u.fblock.body, false);
        res_expr(x, bs, n->u.fblock.filter);
        return;
    }
    case TMPL_WITH: {
        syms *ws = inner(x, s);
        fsv_list(x, ws, &n->u.with.targets, false);
        fsv_body(x, ws, &n->u.with.body);
        tmpl_frame *fr = frame_new(x);
        frame_loads(x, fr, ws, n);
        n->u.with.frame = fr;
        for (i32 i = 0; i < n->u.with.targets.n; i++) {
            res_target(x, ws, n->u.with.targets.v[i], false);
            res_expr(x, s, n->u.with.values.v[i]);
        }
        res_body(x, ws, &n->u.with.body, false);
        return;
    }
    case TMPL_AUTOESCAPE: {
        syms *as = inner(x, s);
        fsv_expr(x, as, n->u.autoescape.value, false);
        fsv_body(x, as, &n->u.autoescape.body);
        tmpl_frame *fr = frame_new(x);
        frame_loads(x, fr, as, n);
        n->u.autoescape.frame = fr;
        res_expr(x, as, n->u.autoescape.value);
        res_body(x, as, &n->u.autoescape.body, false);
        return;
    }
    case TMPL_BLOCK: {
        /* a function of the template's, with no enclosing frame: its
         * names come from the context */
        tmpl_frame *fr = frame_new(x);
        fr->keep = true;
        fr->function = true;
        u8 *bn = NEW_NZ(x->a, u8, 6 + n->u.block.name.s.len);
        memcpy(bn, "block_", 6);
        memcpy(bn + 6, n->u.block.name.s.s, (size_t)n->u.block.name.s.len);
        fn *f = fn_new(x, NULL, fr, str_from(bn, 6 + n->u.block.name.s.len));
        f->depth = 0;
        syms *bs = syms_new(x, NULL, f);
        fsv_body(x, bs, &n->u.block.body);
        frame_loads(x, fr, bs, n);
        if (n->u.block.scoped) {
            /* dump_stores: every name stored on s's chain, nearest first */
            i32 cap = 0;
            for (syms *c = s; c; c = c->parent)
                cap += c->nstores;
            fr->locals = cap ? NEW(x->a, tmpl_load, cap) : NULL;
            for (syms *c = s; c; c = c->parent)
                for (i32 i = 0; i < c->nstores; i++) {
                    i32 sym = c->stores[i];
                    bool seen = false;
                    for (i32 k = 0; k < fr->nlocals && !seen; k++)
                        seen = fr->locals[k].arg == sym;
                    work(x, n, fr->nlocals + 1);
                    if (seen)
                        continue;
                    syms *o = find_ref(x, s, sym);
                    ASSERT(o);
                    tmpl_load *l = &fr->locals[fr->nlocals++];
                    l->slot = (u16)fn_slot(x, o->f, o->level, sym, n);
                    l->up = (u8)(s->f->depth - o->f->depth);
                    l->arg = sym;
                    if (l->up)
                        mark_cell(o->f, l->slot);
                }
        }
        res_body(x, bs, &n->u.block.body, false);
        n->u.block.frame = fr;
        return;
    }
    case TMPL_EXTENDS: case TMPL_INCLUDE:
        res_expr(x, s, n->u.load.tmpl);
        return;
    case TMPL_IMPORT: case TMPL_FROM_IMPORT:
        res_expr(x, s, n->u.load.tmpl);
        return;
    default:
        return;
    }
}

static void res_body(fx *x, syms *s, const tmpl_list *body, bool top)
{
    for (i32 i = 0; i < body->n; i++)
        res_stmt(x, s, body->v[i], top);
}

int tmpl_frames(tmpl_prog *p, arena *a, const tmpl_node **bad, char *msg, iz msgcap)
{
    fx x;
    memset(&x, 0, sizeof x);
    arena scratch;
    arena_init(&scratch, 0);
    x.scratch = &scratch;
    x.a = a;
    x.msg = msg;
    x.msgcap = msgcap;
    x.sym_loop = tmpl_sym_find(p, S("loop"));
    x.sym_caller = tmpl_sym_find(p, S("caller"));
    x.sym_kwargs = tmpl_sym_find(p, S("kwargs"));
    x.sym_varargs = tmpl_sym_find(p, S("varargs"));
    jmp_buf *old = a->oom;
    if (setjmp(x.jb)) {
        a->oom = old;
        arena_fini(&scratch);
        *bad = x.bad;
        if (!x.code) {
            x.code = ERR_NOMEM;
            snprintf(msg, (size_t)msgcap, "out of memory resolving the template's names");
        }
        return x.code;
    }
    scratch.oom = &x.jb;
    a->oom = &x.jb;
    tmpl_frame *fr = frame_new(&x);
    fr->keep = true;
    fr->function = true;
    fn *root = fn_new(&x, NULL, fr, S("root"));
    syms *s = syms_new(&x, NULL, root);
    fsv_body(&x, s, &p->body);
    frame_loads(&x, fr, s, NULL);
    res_body(&x, s, &p->body, true);
    p->frame = fr;
    for (i32 i = 0; i < x.nsets; i++) {
        tmpl_node *n = x.sets[i].n;
        bool locals = true;
        for (i32 k = 0; k < n->u.set.target->u.items.n; k++)
            locals &= !x.sets[i].f->cell[n->u.set.target->u.items.v[k]->slot];
        if (locals)
            n->flags |= TMPL_SET_REVERSED;
    }
    p->has_blocks = false;
    for (i32 i = 0; i < x.nfns; i++) {
        x.fns[i]->frame->nslots = x.fns[i]->n;
        p->has_blocks |= x.fns[i]->parent == NULL && i > 0;
    }
    a->oom = old;
    arena_fini(&scratch);
    return ERR_OK;
}
