/* tmpl_check.c - what Jinja's code generator and Python's compiler reject
 * in a parsed template (tmpl_check, tmpl_front.h): TemplateAssertionError
 * and the SyntaxErrors of the generated code, in the order they raise
 * them. Runs between the parser and the frames (tmpl_compile.c). */
#include <stdarg.h>
#include <stdio.h>
#include "tmpl_front.h"

/* Environment.from_string parses, then generates Python source
 * (compiler.py), then compiles that. The generator raises
 * TemplateAssertionError at the first of: a block defined twice (checked
 * first), then in generation order: an unknown filter or test outside an
 * if or inline if ("soft" frames), a for loop whose subtree assigns
 * `loop`, extends below the top level, an explicit `caller` parameter
 * without a default in a macro that uses caller. Python then rejects the
 * generated code for a repeated macro parameter (its symbol table pass,
 * so first) or, in code order, a repeated keyword argument or a
 * break/continue outside a loop. The walk below visits nodes in the
 * generator's order: the root body, then every block's body. */

typedef struct {
    bool soft;          /* inside an if / inline if: unknown names fail at run time */
    bool in_loop;       /* a Python for loop encloses (break/continue legal) */
    bool toplevel;      /* the root frame or a soft copy of it */
    bool rootlevel;     /* the root frame itself */
    bool output_check;  /* Jinja's require_output_check */
    bool optimized;     /* an enclosing expression already ran the optimizer */
} frame;

typedef struct {
    tmpl_cc         *cc;
    bool             known_extends;
    int              extends_so_far;
    bool             exit_body;       /* CompilerExit: stop the current body */
    const tmpl_node *dup_param;       /* first "duplicate argument" (symtable) */
    str              dup_name;
    const tmpl_node *invalid;         /* first parser-stage SyntaxError */
    const tmpl_node *late;            /* first compiler-stage SyntaxError */
    char             late_msg[96];
} checker;

static void each(const tmpl_list *l, tmpl_visit_fn f, void *ctx)
{
    for (i32 i = 0; i < l->n; i++)
        f(ctx, l->v[i]);
}

/* A depth-first search for the first node `match` accepts. */
typedef struct {
    bool (*match)(const tmpl_node *n, const void *arg);
    const void      *arg;
    bool             skip_blocks;
    const tmpl_node *found;
} finder;

static void find_visit(void *ctx, const tmpl_node *n)
{
    finder *fd = ctx;
    if (fd->found || (fd->skip_blocks && n->kind == TMPL_BLOCK))
        return;
    if (fd->match(n, fd->arg)) {
        fd->found = n;
        return;
    }
    tmpl_children(n, find_visit, fd);
}

static bool is_loop_store(const tmpl_node *n, const void *arg)
{
    (void)arg;
    return n->kind == TMPL_NAME && n->op == TMPL_CTX_STORE && str_eq(n->u.name.s, S("loop"));
}

static bool is_named(const tmpl_node *n, const void *arg)
{
    return n->kind == TMPL_NAME && str_eq(n->u.name.s, *(const str *)arg);
}

static bool is_kind(const tmpl_node *n, const void *arg) { return n->kind == *(const int *)arg; }

static void late_error(checker *c, const tmpl_node *n, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void late_error(checker *c, const tmpl_node *n, const char *fmt, ...)
{
    if (c->late)
        return;
    c->late = n;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->late_msg, sizeof(c->late_msg), fmt, ap);
    va_end(ap);
}

/* Truthiness of an expression Jinja's optimizer folds to a constant
 * before the code generator sees it: 1 true, 0 false, -1 not constant.
 * Only literals are recognized (Jinja also folds arithmetic, filters and
 * comparisons of constants). */
static int const_truth(const tmpl_node *n)
{
    switch (n->kind) {
    case TMPL_NONE: return 0;
    case TMPL_BOOL: return n->u.b;
    case TMPL_INT: return n->u.i.big || n->u.i.v != 0;
    case TMPL_FLOAT: return n->u.f != 0;
    case TMPL_STR: return n->u.text.len > 0;
    case TMPL_TUPLE: case TMPL_LIST:
        for (i32 i = 0; i < n->u.items.n; i++)
            if (const_truth(n->u.items.v[i]) < 0)
                return -1;
        return n->u.items.n > 0;
    case TMPL_DICT:
        for (i32 i = 0; i < n->u.dict.n; i++)
            if (const_truth(n->u.dict.keys[i]) < 0 || const_truth(n->u.dict.vals[i]) < 0)
                return -1;
        return n->u.dict.n > 0;
    case TMPL_NOT: {
        int t = const_truth(n->u.operand);
        return t < 0 ? -1 : !t;
    }
    case TMPL_AND: case TMPL_OR: {
        int l = const_truth(n->u.bin.l);
        if (l < 0)
            return -1;
        return l == (n->kind == TMPL_OR) ? l : const_truth(n->u.bin.r);
    }
    }
    return -1;
}

static bool is_python_keyword(str s)
{
    static const char *const kw[] = {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
        "return", "try", "while", "with", "yield"};
    for (int i = 0; i < countof(kw); i++)
        if (str_eq(s, str_cstr(kw[i])))
            return true;
    return false;
}

static void check_expr(checker *c, const tmpl_node *n, frame f);

typedef struct {
    checker *c;
    frame    f;
} check_ctx;

static void check_child(void *ctx, const tmpl_node *n)
{
    check_ctx *k = ctx;
    check_expr(k->c, n, k->f);
}

/* CodeGenerator.signature: the arguments in its order, and Python's check
 * that no keyword is given twice (which Jinja sidesteps when a keyword is
 * a Python keyword by passing them all as **{...}). */
static void check_args(checker *c, const tmpl_node *owner, const tmpl_args *a, frame f)
{
    bool workaround = false;
    for (i32 i = 0; i < a->nkw; i++)
        workaround |= is_python_keyword(a->kw[i].key.s);
    for (i32 i = 0; i < a->pos.n; i++)
        check_expr(c, a->pos.v[i], f);
    if (!workaround) {
        for (i32 i = 0; i < a->nkw; i++) {
            for (i32 j = 0; j < i; j++)
                if (str_eq(a->kw[i].key.s, a->kw[j].key.s))
                    late_error(c, owner, "keyword argument repeated: %.*s",
                               (int)a->kw[i].key.s.len, (const char *)a->kw[i].key.s.s);
            check_expr(c, a->kw[i].value, f);
        }
    }
    check_expr(c, a->star, f);
    if (workaround)
        for (i32 i = 0; i < a->nkw; i++)
            check_expr(c, a->kw[i].value, f);
    check_expr(c, a->dstar, f);
}

/* Jinja's optimizer (run at each expression node the code generator
 * visits with @optimizeconst) folds constant subexpressions bottom-up and
 * lets any error other than Impossible escape: a dict literal whose
 * constant key is unhashable raises TypeError out of from_string. Returns
 * the type name of the first such key in post-order, or NULL. */
enum { FOLD_NO, FOLD_SAFE, FOLD_UNDEF };   /* see fold() */
static int fold(const tmpl_node *n);

static const char *unhashable(const tmpl_node *k)
{
    if (k->kind == TMPL_LIST)
        return "list";
    if (k->kind == TMPL_DICT)
        return "dict";
    if (k->kind == TMPL_TUPLE)
        for (i32 i = 0; i < k->u.items.n; i++) {
            const char *t = unhashable(k->u.items.v[i]);
            if (t)
                return t;
        }
    return NULL;
}

typedef struct {
    const tmpl_node *dict;
    const char      *type;
} dict_finder;

static void find_bad_dict(void *ctx, const tmpl_node *n)
{
    dict_finder *df = ctx;
    if (df->dict)
        return;
    tmpl_children(n, find_bad_dict, df);   /* children fold first */
    if (df->dict || n->kind != TMPL_DICT)
        return;
    for (i32 i = 0; i < n->u.dict.n; i++) {
        if (fold(n->u.dict.keys[i]) == FOLD_NO || fold(n->u.dict.vals[i]) == FOLD_NO)
            return;   /* Impossible: this dict is left alone */
        const char *t = unhashable(n->u.dict.keys[i]);
        if (t) {
            df->dict = n;
            df->type = t;
            return;
        }
    }
}

/* A model of Jinja's constant folding (Node.as_const), enough to know
 * which subtrees the code generator never sees. FOLD_NO: not constant
 * (names, calls, unknown filters). FOLD_SAFE: folds to a constant the
 * optimizer substitutes. FOLD_UNDEF: evaluates to an Undefined (a literal
 * subscripted by a tuple holding a slice), which is not substituted and
 * fails most further operations. Evaluation errors (1/0) are not
 * modelled: such constants count as FOLD_SAFE. */
typedef struct {
    int worst;   /* FOLD_NO < FOLD_UNDEF < FOLD_SAFE in preference */
} fold_acc;

static void fold_child(void *ctx, const tmpl_node *n)
{
    fold_acc *acc = ctx;
    int r = fold(n);
    if (r == FOLD_NO || (r == FOLD_UNDEF && acc->worst == FOLD_SAFE))
        acc->worst = r;
}

static int fold_children(const tmpl_node *n)
{
    fold_acc acc = {FOLD_SAFE};
    tmpl_children(n, fold_child, &acc);
    return acc.worst;
}

static bool slice_tuple(const tmpl_node *idx)
{
    if (idx->kind == TMPL_TUPLE)
        for (i32 i = 0; i < idx->u.items.n; i++)
            if (idx->u.items.v[i]->kind == TMPL_SLICE)
                return true;
    return false;
}

static int fold(const tmpl_node *n)
{
    int r;
    switch (n->kind) {
    case TMPL_NONE: case TMPL_BOOL: case TMPL_INT: case TMPL_FLOAT: case TMPL_STR:
        return FOLD_SAFE;
    case TMPL_NAME: case TMPL_NSREF: case TMPL_CALL:
        return FOLD_NO;
    case TMPL_FILTER: case TMPL_TEST: {
        int id = n->u.filter.id;
        if (id == 0 || !n->u.filter.arg || (n->kind == TMPL_FILTER && id == TMPL_FILTER_RANDOM))
            return FOLD_NO;
        r = fold_children(n);
        if (r == FOLD_NO)
            return FOLD_NO;
        if (r == FOLD_UNDEF) {
            /* which take an Undefined (or generator) without raising */
            bool ok = n->kind == TMPL_FILTER
                ? id == TMPL_FILTER_LENGTH || id == TMPL_FILTER_DEFAULT || id == TMPL_FILTER_STRING ||
                  id == TMPL_FILTER_UPPER || id == TMPL_FILTER_LOWER || id == TMPL_FILTER_TRIM ||
                  id == TMPL_FILTER_LIST || id == TMPL_FILTER_JOIN
                : !(id == TMPL_TEST_DIVISIBLEBY || id == TMPL_TEST_EVEN || id == TMPL_TEST_ODD ||
                    id == TMPL_TEST_LT || id == TMPL_TEST_LE || id == TMPL_TEST_GT || id == TMPL_TEST_GE);
            if (!ok)
                return FOLD_NO;
        }
        /* generators are constants the optimizer cannot substitute */
        if (n->kind == TMPL_FILTER &&
            (id == TMPL_FILTER_MAP || id == TMPL_FILTER_SELECT || id == TMPL_FILTER_REJECT ||
             id == TMPL_FILTER_SELECTATTR || id == TMPL_FILTER_REJECTATTR ||
             id == TMPL_FILTER_ITEMS || id == TMPL_FILTER_BATCH || id == TMPL_FILTER_SLICE))
            return FOLD_UNDEF;
        return FOLD_SAFE;
    }
    case TMPL_GETATTR:
        return fold(n->u.getattr.obj) == FOLD_SAFE ? FOLD_SAFE : FOLD_NO;
    case TMPL_GETITEM:
        /* Undefined[...] raises (Impossible); a value subscripted by
         * something it does not take gives an Undefined */
        if (fold(n->u.getitem.obj) != FOLD_SAFE || (r = fold(n->u.getitem.index)) == FOLD_NO)
            return FOLD_NO;
        return r == FOLD_UNDEF || slice_tuple(n->u.getitem.index) ? FOLD_UNDEF : FOLD_SAFE;
    case TMPL_SLICE: case TMPL_TUPLE: case TMPL_LIST:
        return fold_children(n);
    case TMPL_DICT:
        for (i32 i = 0; i < n->u.dict.n; i++)
            if (unhashable(n->u.dict.keys[i]))
                return FOLD_NO;
        return fold_children(n);
    case TMPL_CONCAT: case TMPL_NOT:
        return fold_children(n) == FOLD_NO ? FOLD_NO : FOLD_SAFE;
    case TMPL_COMPARE:
        r = fold_children(n);
        if (r == FOLD_UNDEF)
            for (i32 i = 0; i < n->u.cmp.n; i++)
                if (n->u.cmp.ops[i] < TMPL_OP_EQ || n->u.cmp.ops[i] == TMPL_OP_LT ||
                    n->u.cmp.ops[i] == TMPL_OP_LE || n->u.cmp.ops[i] == TMPL_OP_GT ||
                    n->u.cmp.ops[i] == TMPL_OP_GE)
                    return FOLD_NO;   /* ordering an Undefined raises; ==, !=, in do not */
        return r == FOLD_NO ? FOLD_NO : FOLD_SAFE;
    case TMPL_AND: case TMPL_OR: {
        int l = const_truth(n->u.bin.l);
        if (l >= 0)
            return l == (n->kind == TMPL_OR) ? FOLD_SAFE : fold(n->u.bin.r);
        return fold_children(n);
    }
    case TMPL_COND: {
        int t = const_truth(n->u.cond.test);
        if (t == 1)
            return fold(n->u.cond.then);
        if (!n->u.cond.orelse)
            return FOLD_NO;
        if (t == 0)
            return fold(n->u.cond.orelse);
        return fold_children(n);
    }
    default:
        /* NEG, POS, BINOP: only numbers are sure not to raise (a constant
         * counted as FOLD_NO is merely checked needlessly) */
        r = fold_children(n);
        if (r != FOLD_SAFE)
            return FOLD_NO;
        if (n->kind == TMPL_BINOP) {
            int l = n->u.bin.l->kind, rk = n->u.bin.r->kind;
            bool num = (l == TMPL_INT || l == TMPL_FLOAT || l == TMPL_BOOL) &&
                       (rk == TMPL_INT || rk == TMPL_FLOAT || rk == TMPL_BOOL);
            return num ? FOLD_SAFE : FOLD_NO;
        }
        r = n->u.operand->kind;
        return r == TMPL_INT || r == TMPL_FLOAT || r == TMPL_BOOL ? FOLD_SAFE : FOLD_NO;
    }
}

static bool optimizeconst(int kind)
{
    switch (kind) {
    case TMPL_CONCAT: case TMPL_COMPARE: case TMPL_GETATTR: case TMPL_GETITEM:
    case TMPL_FILTER: case TMPL_TEST: case TMPL_COND: case TMPL_CALL: case TMPL_BINOP:
    case TMPL_AND: case TMPL_OR: case TMPL_NOT: case TMPL_NEG: case TMPL_POS:
        return true;
    }
    return false;
}

static void check_expr(checker *c, const tmpl_node *n, frame f)
{
    if (!n)
        return;
    if (!f.optimized && optimizeconst(n->kind)) {
        dict_finder df = {NULL, NULL};
        find_bad_dict(&df, n);
        if (df.dict)
            tmpl_cc_fail_node(c->cc, "TypeError", df.dict, "unhashable type: '%s'", df.type);
        f.optimized = true;   /* the optimizer has run over this subtree */
    }
    if (f.optimized && fold(n) == FOLD_SAFE)
        return;   /* replaced by a constant: never generated */
    switch (n->kind) {
    case TMPL_FILTER: case TMPL_TEST:
        /* checked before the operand: the outer filter of x|a|b first */
        if (n->u.filter.id == 0 && !f.soft)
            tmpl_cc_fail_node(c->cc, "TemplateAssertionError", n, "No %s named '%.*s'.",
                      n->kind == TMPL_FILTER ? "filter" : "test",
                      (int)n->u.filter.name.s.len, (const char *)n->u.filter.name.s.s);
        check_expr(c, n->u.filter.arg, f);
        check_args(c, n, &n->u.filter.args, f);
        return;
    case TMPL_CALL:
        check_expr(c, n->u.call.callee, f);
        check_args(c, n, &n->u.call.args, f);
        return;
    case TMPL_COND:
        f.soft = true;
        f.rootlevel = false;
        check_expr(c, n->u.cond.then, f);
        check_expr(c, n->u.cond.test, f);
        check_expr(c, n->u.cond.orelse, f);
        return;
    case TMPL_GETITEM:
        /* x[a:b, c] becomes getitem(x, (a:b, c)): not Python */
        if (n->u.getitem.index->kind == TMPL_TUPLE && !c->invalid)
            for (i32 i = 0; i < n->u.getitem.index->u.items.n; i++)
                if (n->u.getitem.index->u.items.v[i]->kind == TMPL_SLICE)
                    c->invalid = n;
        check_expr(c, n->u.getitem.obj, f);
        check_expr(c, n->u.getitem.index, f);
        return;
    case TMPL_AND: case TMPL_OR:
        if (const_truth(n) >= 0)
            return;   /* folded: `true or x`, `false and x` */
        if (const_truth(n->u.bin.l) < 0)
            check_expr(c, n->u.bin.l, f);
        check_expr(c, n->u.bin.r, f);
        return;
    default: {
        check_ctx k = {c, f};
        tmpl_children(n, check_child, &k);
        return;
    }
    }
}

static void check_body(checker *c, const tmpl_list *body, frame f);

/* A frame's inner(): a new scope, not soft, not the top level. */
static frame inner(frame f)
{
    f.soft = f.toplevel = f.rootlevel = false;
    return f;
}

/* macro_body: the caller-parameter rule, repeated parameters, defaults,
 * then the body in a function of its own. */
static void check_macro(checker *c, const tmpl_node *n, frame f)
{
    const tmpl_list *params = &n->u.macro.params;
    i32 with_default = params->n - n->u.macro.defaults.n;
    for (i32 i = 0; i < params->n; i++) {
        str name = params->v[i]->u.name.s;
        if (str_eq(name, S("caller")) && i < with_default) {
            str caller = S("caller");
            finder fd = {is_named, &caller, true, NULL};
            each(&n->u.macro.body, find_visit, &fd);
            if (fd.found && fd.found->op == TMPL_CTX_LOAD)
                tmpl_cc_fail_node(c->cc, "TemplateAssertionError", n,
                          "When defining macros or call blocks the special \"caller\" argument "
                          "must be omitted or be given a default.");
        }
        for (i32 j = 0; j < i && !c->dup_param; j++)
            if (str_eq(name, params->v[j]->u.name.s)) {
                c->dup_param = n;
                c->dup_name = name;
            }
    }
    frame mf = inner(f);
    mf.in_loop = false;
    mf.output_check = false;
    each(&n->u.macro.defaults, check_child, &(check_ctx){c, mf});
    check_body(c, &n->u.macro.body, mf);
}

static void check_stmt(checker *c, const tmpl_node *n, frame f)
{
    switch (n->kind) {
    case TMPL_OUTPUT:
        if (!(f.output_check && c->known_extends) && fold(n->u.expr) == FOLD_NO)
            check_expr(c, n->u.expr, f);
        return;
    case TMPL_IF: {
        frame s = f;
        s.soft = true;
        s.rootlevel = false;
        check_expr(c, n->u.if_.test, s);
        check_body(c, &n->u.if_.body, s);
        for (i32 i = 0; i < n->u.if_.elifs.n; i++) {
            check_expr(c, n->u.if_.elifs.v[i]->u.if_.test, s);
            check_body(c, &n->u.if_.elifs.v[i]->u.if_.body, s);
        }
        check_body(c, &n->u.if_.orelse, s);
        return;
    }
    case TMPL_FOR: {
        frame lf = inner(f);
        check_expr(c, n->u.for_.filter, lf);   /* the filter function comes first */
        finder fd = {is_loop_store, NULL, false, NULL};
        find_visit(&fd, n);
        if (fd.found)
            tmpl_cc_fail_node(c->cc, "TemplateAssertionError", fd.found,
                      "Can't assign to special loop variable in for-loop target");
        if (!n->u.for_.recursive)
            check_expr(c, n->u.for_.iter, f);
        lf.in_loop = true;
        check_body(c, &n->u.for_.body, lf);
        frame ef = inner(f);
        if (n->u.for_.recursive)
            ef.in_loop = false;   /* still inside the loop function, after its for */
        check_body(c, &n->u.for_.orelse, ef);
        if (n->u.for_.recursive)
            check_expr(c, n->u.for_.iter, f);
        return;
    }
    case TMPL_SET:
        check_expr(c, n->u.set.value, f);
        return;
    case TMPL_SET_BLOCK: {
        frame bf = inner(f);
        bf.output_check = false;
        check_body(c, &n->u.setblock.body, bf);
        check_expr(c, n->u.setblock.filter, bf);
        return;
    }
    case TMPL_MACRO:
        check_macro(c, n, f);
        return;
    case TMPL_CALL_BLOCK:
        check_macro(c, n, f);
        check_expr(c, n->u.macro.call, f);
        return;
    case TMPL_GENERATION: {
        frame mf = inner(f);
        mf.in_loop = false;
        mf.output_check = false;
        check_body(c, &n->u.fblock.body, mf);
        return;
    }
    case TMPL_FILTER_BLOCK: {
        frame ff = inner(f);
        check_body(c, &n->u.fblock.body, ff);
        check_expr(c, n->u.fblock.filter, ff);
        return;
    }
    case TMPL_BREAK: case TMPL_CONTINUE:
        if (!f.in_loop)
            late_error(c, n, n->kind == TMPL_BREAK ? "'break' outside loop"
                                                    : "'continue' not properly in loop");
        return;
    case TMPL_WITH: {
        frame wf = inner(f);
        for (i32 i = 0; i < n->u.with.values.n; i++)
            check_expr(c, n->u.with.values.v[i], f);
        check_body(c, &n->u.with.body, wf);
        return;
    }
    case TMPL_AUTOESCAPE: {
        frame sf = inner(f);
        check_expr(c, n->u.autoescape.value, sf);
        check_body(c, &n->u.autoescape.body, sf);
        return;
    }
    case TMPL_EXTENDS:
        if (!f.toplevel)
            tmpl_cc_fail_node(c->cc, "TemplateAssertionError", n, "cannot use extend from a non top-level scope");
        if (c->extends_so_far > 0 && c->known_extends) {
            c->exit_body = true;   /* CompilerExit: the rest of this body is not generated */
            return;
        }
        check_expr(c, n->u.expr, f);
        if (f.rootlevel)
            c->known_extends = true;
        c->extends_so_far++;
        return;
    case TMPL_INCLUDE: case TMPL_IMPORT: case TMPL_FROM_IMPORT:
        check_expr(c, n->u.load.tmpl, f);
        return;
    default:   /* TEXT; BLOCK bodies come after the root */
        return;
    }
}

static void check_body(checker *c, const tmpl_list *body, frame f)
{
    for (i32 i = 0; i < body->n && !c->exit_body; i++)
        check_stmt(c, body->v[i], f);
    c->exit_body = false;
}

/* The blocks of a template, in find_all order. */
typedef struct blocks {
    tmpl_cc          *cc;
    const tmpl_node **v;
    iz                n, cap;
} blocks;

static void collect_block(void *ctx, const tmpl_node *n)
{
    blocks *bl = ctx;
    if (n->kind == TMPL_BLOCK) {
        if (bl->n == bl->cap) {
            bl->v = arena_grow(&bl->cc->scratch, bl->v, (iz)sizeof(*bl->v), (iz)_Alignof(const tmpl_node *),
                               bl->n, &bl->cap, bl->n + 1);
            if (!bl->v)
                tmpl_cc_oom(bl->cc);
        }
        bl->v[bl->n++] = n;
    }
    tmpl_children(n, collect_block, bl);
}

void tmpl_check(tmpl_cc *cc, const tmpl_list *body)
{
    checker c = {0};
    c.cc = cc;
    /* every block, in find_all order; a repeated name fails first */
    blocks bl = {cc, NULL, 0, 0};
    each(body, collect_block, &bl);
    for (iz i = 0; i < bl.n; i++)
        for (iz j = 0; j < i; j++)
            if (str_eq(bl.v[i]->u.block.name.s, bl.v[j]->u.block.name.s))
                tmpl_cc_fail_node(cc, "TemplateAssertionError", bl.v[i], "block '%.*s' defined twice",
                                  (int)bl.v[i]->u.block.name.s.len, (const char *)bl.v[i]->u.block.name.s.s);
    int ext = TMPL_EXTENDS;
    finder fd = {is_kind, &ext, false, NULL};
    each(body, find_visit, &fd);
    frame root = {false, false, true, true, fd.found != NULL, false};
    check_body(&c, body, root);
    frame bf = {false, false, false, false, false, false};
    for (iz i = 0; i < bl.n; i++)
        check_body(&c, &bl.v[i]->u.block.body, bf);
    if (c.invalid)
        tmpl_cc_fail_node(cc, "SyntaxError", c.invalid, "invalid syntax");
    if (c.dup_param)
        tmpl_cc_fail_node(cc, "SyntaxError", c.dup_param, "duplicate argument '%.*s' in function definition",
                          (int)c.dup_name.len, (const char *)c.dup_name.s);
    if (c.late)
        tmpl_cc_fail_node(cc, "SyntaxError", c.late, "%s", c.late_msg);
}
