/* tmpl_parse.c - Jinja2 3.1's parser (jinja2/parser.py) over tmpl_lex's
 * token stream, building the tree of tmpl_ast.h with every identifier
 * numbered (tmpl_parse, tmpl_front.h). The compile driver (tmpl_compile.c)
 * runs the checks and the frames on the tree afterwards.
 *
 * Each parse_* function follows the Jinja method of the same name, so its
 * error (message, line, and which one comes first) is Jinja's. Errors
 * longjmp to tmpl_compile (tmpl_cc_fail). */
#include <stdarg.h>
#include <stdio.h>
#include "tmpl_front.h"
#include "../base/hash.h"

/* ---- growable stacks in the scratch arena ---- */

typedef struct {
    void *p;
    iz    n, cap;
} vec;

/* ---- end-token sets: the `end_tokens` tuples of parse_statements ---- */

typedef struct {
    const char *const *names;
    int n;
} endset;

#define ENDSET(var, ...) \
    static const char *const var##_names[] = {__VA_ARGS__}; \
    static const endset var = {var##_names, (int)(sizeof(var##_names) / sizeof(var##_names[0]))}

ENDSET(END_IF, "elif", "else", "endif");
ENDSET(END_IF_ELSE, "endif");
ENDSET(END_FOR, "endfor", "else");
ENDSET(END_FOR_ELSE, "endfor");
ENDSET(END_SET, "endset");
ENDSET(END_MACRO, "endmacro");
ENDSET(END_CALL, "endcall");
ENDSET(END_FILTER, "endfilter");
ENDSET(END_WITH, "endwith");
ENDSET(END_AUTOESCAPE, "endautoescape");
ENDSET(END_BLOCK, "endblock");
ENDSET(END_GENERATION, "endgeneration");

typedef struct parser {
    tmpl_cc   *cc;         /* the compile: its arenas, source and errors */
    arena     *a;          /* the tree (cc->a) */
    arena     *scratch;    /* tokens and build stacks (&cc->scratch) */
    str        src;        /* normalized source (cc->src) */
    tmpl_toks  toks;
    iz         pos;        /* index of the current token */
    int        depth;      /* expression recursion */
    int        nest;       /* statement nesting */
    /* Jinja's _tag_stack and _end_token_stack, for its messages */
    str        tags[TMPL_MAX_NEST + 2];
    int        ntags;
    const endset *ends[TMPL_MAX_NEST + 2];
    int        nends;
    /* build stacks */
    vec        nodes, kws, ops, chars;
    /* symbols */
    vec        syms;       /* str */
    i32       *symtab;     /* open addressing: sym + 1, 0 empty */
    iz         symcap;
} parser;

/* ---- errors ---- */

/* Fails at token t (which gives the column, offset and near text). */
static _Noreturn void fail_at(parser *p, int code, const char *kind, i32 line, const tmpl_tok *t,
                              const char *fmt, ...) PRINTF_LIKE(6, 7);
static _Noreturn void fail_at(parser *p, int code, const char *kind, i32 line, const tmpl_tok *t,
                              const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    tmpl_cc_fail(p->cc, code, kind, line, t->col, t->off, t->kind == TMPL_TOK_EOF ? 0 : t->len, msg);
}

static tmpl_tok *cur(parser *p) { return &p->toks.v[p->pos]; }

/* Jinja's Parser.fail: TemplateSyntaxError at `line` (the current token's
 * when 0). */
#define FAIL(p, ln_, ...) \
    fail_at((p), ERR_SYNTAX, "TemplateSyntaxError", (ln_) ? (ln_) : cur(p)->line, cur(p), __VA_ARGS__)

static _Noreturn void raise_lex_error(parser *p, const tmpl_tok *t)
{
    const err *le = &p->toks.error;
    const char *kind = le->code == ERR_SYNTAX ? "TemplateSyntaxError" : NULL;
    fail_at(p, le->code, kind, le->line, t, "%s", le->msg);
}

static _Noreturn void oom(parser *p) { tmpl_cc_oom(p->cc); }

/* ---- the token stream (Jinja's TokenStream) ---- */

/* next(stream): returns the old current token. Reaching a lexer error
 * raises it, as Jinja's lazy lexer does at the same moment. */
static tmpl_tok *advance(parser *p)
{
    tmpl_tok *old = cur(p);
    if (old->kind != TMPL_TOK_EOF) {
        p->pos++;
        if (cur(p)->kind == TMPL_TOK_ERROR)
            raise_lex_error(p, cur(p));
    }
    return old;
}

static tmpl_tok *look(parser *p)
{
    tmpl_tok *t = cur(p);
    if (t->kind == TMPL_TOK_EOF)
        return t;
    t++;
    if (t->kind == TMPL_TOK_ERROR)
        raise_lex_error(p, t);
    return t;
}

static bool is_name(const tmpl_tok *t, const char *v)
{
    return t->kind == TMPL_TOK_NAME && str_eq(t->v.s, str_cstr(v));
}

static bool in_endset(const tmpl_tok *t, const endset *es)
{
    for (int i = 0; i < es->n; i++)
        if (is_name(t, es->names[i]))
            return true;
    return false;
}

/* _describe_token_type / describe_token */
static const char *describe_kind(int k)
{
    switch (k) {
    case TMPL_TOK_ADD: return "+";
    case TMPL_TOK_SUB: return "-";
    case TMPL_TOK_DIV: return "/";
    case TMPL_TOK_FLOORDIV: return "//";
    case TMPL_TOK_MUL: return "*";
    case TMPL_TOK_MOD: return "%";
    case TMPL_TOK_POW: return "**";
    case TMPL_TOK_TILDE: return "~";
    case TMPL_TOK_LBRACKET: return "[";
    case TMPL_TOK_RBRACKET: return "]";
    case TMPL_TOK_LPAREN: return "(";
    case TMPL_TOK_RPAREN: return ")";
    case TMPL_TOK_LBRACE: return "{";
    case TMPL_TOK_RBRACE: return "}";
    case TMPL_TOK_EQ: return "==";
    case TMPL_TOK_NE: return "!=";
    case TMPL_TOK_GT: return ">";
    case TMPL_TOK_GTEQ: return ">=";
    case TMPL_TOK_LT: return "<";
    case TMPL_TOK_LTEQ: return "<=";
    case TMPL_TOK_ASSIGN: return "=";
    case TMPL_TOK_DOT: return ".";
    case TMPL_TOK_COLON: return ":";
    case TMPL_TOK_PIPE: return "|";
    case TMPL_TOK_COMMA: return ",";
    case TMPL_TOK_SEMICOLON: return ";";
    case TMPL_TOK_BLOCK_BEGIN: return "begin of statement block";
    case TMPL_TOK_BLOCK_END: return "end of statement block";
    case TMPL_TOK_VAR_BEGIN: return "begin of print statement";
    case TMPL_TOK_VAR_END: return "end of print statement";
    case TMPL_TOK_DATA: return "template data / text";
    case TMPL_TOK_EOF: return "end of template";
    }
    return tmpl_tok_kind_name((tmpl_tok_kind)k);
}

/* describe_token as "%.*s" arguments */
#define DESC(t) (int)desc_len(t), desc_ptr(t)
static iz desc_len(const tmpl_tok *t)
{
    return t->kind == TMPL_TOK_NAME ? t->v.s.len : (iz)strlen(describe_kind(t->kind));
}
static const char *desc_ptr(const tmpl_tok *t)
{
    return t->kind == TMPL_TOK_NAME ? (const char *)t->v.s.s : describe_kind(t->kind);
}

/* stream.expect(type) and stream.expect("name:value") */
static tmpl_tok *expect(parser *p, int kind)
{
    tmpl_tok *t = cur(p);
    if (t->kind != kind) {
        if (t->kind == TMPL_TOK_EOF)
            FAIL(p, 0, "unexpected end of template, expected '%s'.", describe_kind(kind));
        FAIL(p, 0, "expected token '%s', got '%.*s'", describe_kind(kind), DESC(t));
    }
    return advance(p);
}

static tmpl_tok *expect_name(parser *p, const char *v)
{
    tmpl_tok *t = cur(p);
    if (!is_name(t, v)) {
        if (t->kind == TMPL_TOK_EOF)
            FAIL(p, 0, "unexpected end of template, expected '%s'.", v);
        FAIL(p, 0, "expected token '%s', got '%.*s'", v, DESC(t));
    }
    return advance(p);
}

static bool skip_if(parser *p, int kind)
{
    if (cur(p)->kind != kind)
        return false;
    advance(p);
    return true;
}

static bool skip_if_name(parser *p, const char *v)
{
    if (!is_name(cur(p), v))
        return false;
    advance(p);
    return true;
}

/* ---- allocation ---- */

static void *alloc(parser *p, iz size, iz align, iz count)
{
    void *r = arena_alloc(p->a, size, align, count);
    if (!r)
        oom(p);
    return r;
}

static void *vpush(parser *p, vec *v, iz size)
{
    if (v->n == v->cap) {
        void *q = arena_grow(p->scratch, v->p, size, 16, v->n, &v->cap, v->n + 1);
        if (!q)
            oom(p);
        v->p = q;
    }
    return (u8 *)v->p + size * v->n++;
}

/* Gives a stack its first storage, so its pointer is never NULL. */
static void vinit(parser *p, vec *v, iz size, iz cap)
{
    v->p = arena_alloc_nz(p->scratch, size, 16, cap);
    if (!v->p)
        oom(p);
    v->n = 0;
    v->cap = cap;
}

static void push_node(parser *p, tmpl_node *n) { *(tmpl_node **)vpush(p, &p->nodes, (iz)sizeof(n)) = n; }

/* Moves nodes[base..] into a list in the tree. */
static tmpl_list pop_list(parser *p, iz base)
{
    tmpl_list l = {NULL, (i32)(p->nodes.n - base)};
    if (l.n) {
        l.v = alloc(p, (iz)sizeof(tmpl_node *), (iz)_Alignof(tmpl_node *), l.n);
        memcpy(l.v, (tmpl_node **)p->nodes.p + base, sizeof(tmpl_node *) * (size_t)l.n);
    }
    p->nodes.n = base;
    return l;
}

static i32 intern(parser *p, str s)
{
    if (p->syms.n * 2 >= p->symcap) {
        iz cap = p->symcap ? p->symcap * 2 : 64;
        i32 *tab = arena_alloc(p->scratch, (iz)sizeof(i32), (iz)_Alignof(i32), cap);
        if (!tab)
            oom(p);
        for (iz k = 0; k < p->syms.n; k++) {
            u64 h = hash_str(((str *)p->syms.p)[k]);
            iz i = (iz)(h & (u64)(cap - 1));
            while (tab[i])
                i = (i + 1) & (cap - 1);
            tab[i] = (i32)k + 1;
        }
        p->symtab = tab;
        p->symcap = cap;
    }
    u64 h = hash_str(s);
    iz i = (iz)(h & (u64)(p->symcap - 1));
    while (p->symtab[i]) {
        if (str_eq(((str *)p->syms.p)[p->symtab[i] - 1], s))
            return p->symtab[i] - 1;
        i = (i + 1) & (p->symcap - 1);
    }
    *(str *)vpush(p, &p->syms, (iz)sizeof(str)) = s;
    p->symtab[i] = (i32)p->syms.n;
    return (i32)p->syms.n - 1;
}

static tmpl_ident ident(parser *p, str s) { return (tmpl_ident){s, intern(p, s)}; }

static tmpl_node *node_at(parser *p, int kind, i32 line, i32 col)
{
    tmpl_node *n = alloc(p, (iz)sizeof(tmpl_node), (iz)_Alignof(tmpl_node), 1);
    n->kind = (u8)kind;
    n->line = line;
    n->col = col;
    return n;
}

static tmpl_node *node(parser *p, int kind, const tmpl_tok *t) { return node_at(p, kind, t->line, t->col); }

static tmpl_node *expr_node(parser *p, int kind, const tmpl_tok *t)
{
    tmpl_node *n = node(p, kind, t);
    n->height = 1;
    return n;
}

/* Records child c of expression n: the tree height is bounded so that the
 * evaluator's recursion is (chains like a+b+c+... are deep without any
 * parser recursion). */
static void child(parser *p, tmpl_node *n, const tmpl_node *c)
{
    if (c && c->height >= n->height) {
        if (c->height >= TMPL_MAX_EXPR_DEPTH)
            fail_at(p, ERR_LIMIT, NULL, cur(p)->line, cur(p),
                    "expression nested too deeply (limit %d)", TMPL_MAX_EXPR_DEPTH);
        n->height = (u16)(c->height + 1);
    }
}

/* Makes nodes[base..] the children of n (tree height) and moves them into
 * a list in the tree. */
static tmpl_list adopt_list(parser *p, tmpl_node *n, iz base)
{
    for (iz i = base; i < p->nodes.n; i++)
        child(p, n, ((tmpl_node **)p->nodes.p)[i]);
    return pop_list(p, base);
}

static void enter(parser *p)
{
    if (++p->depth > TMPL_MAX_EXPR_DEPTH)
        fail_at(p, ERR_LIMIT, NULL, cur(p)->line, cur(p),
                "expression nested too deeply (limit %d)", TMPL_MAX_EXPR_DEPTH);
}

/* ---- expressions ---- */

static tmpl_node *parse_expression(parser *p, bool with_condexpr);
static tmpl_node *parse_tuple(parser *p, bool simplified, bool with_condexpr, bool explicit_parens);
static tmpl_node *parse_unary(parser *p, bool with_filter);
static tmpl_node *parse_primary(parser *p);
static tmpl_node *parse_postfix(parser *p, tmpl_node *n);
static tmpl_node *parse_filter(parser *p, tmpl_node *n, bool start_inline);

/* Jinja's class name of a node, lowercased, for "can't assign to 'x'". */
static const char *class_name(const tmpl_node *n)
{
    static const char *const ops[] = {"", "add", "sub", "mul", "div", "floordiv", "mod", "pow"};
    switch (n->kind) {
    case TMPL_NONE: case TMPL_BOOL: case TMPL_INT: case TMPL_FLOAT: case TMPL_STR: return "const";
    case TMPL_NAME: return "name";
    case TMPL_NSREF: return "nsref";
    case TMPL_TUPLE: return "tuple";
    case TMPL_LIST: return "list";
    case TMPL_DICT: return "dict";
    case TMPL_GETATTR: return "getattr";
    case TMPL_GETITEM: return "getitem";
    case TMPL_SLICE: return "slice";
    case TMPL_CALL: return "call";
    case TMPL_FILTER: return "filter";
    case TMPL_TEST: return "test";
    case TMPL_NOT: return "not";
    case TMPL_NEG: return "neg";
    case TMPL_POS: return "pos";
    case TMPL_BINOP: return n->op < countof(ops) ? ops[n->op] : "binop";
    case TMPL_AND: return "and";
    case TMPL_OR: return "or";
    case TMPL_CONCAT: return "concat";
    case TMPL_COMPARE: return "compare";
    case TMPL_COND: return "condexpr";
    }
    return "node";
}

/* Node.set_ctx: sets ctx on the target and every Name/Tuple inside it. */
static void set_ctx(tmpl_node *n, int ctx)
{
    if (n->kind == TMPL_NAME)
        n->op = (u8)ctx;
    else if (n->kind == TMPL_TUPLE) {
        n->op = (u8)ctx;
        for (i32 i = 0; i < n->u.items.n; i++)
            set_ctx(n->u.items.v[i], ctx);
    }
}

/* Node.can_assign */
static bool can_assign(const tmpl_node *n)
{
    if (n->kind == TMPL_NAME) {
        static const char *const reserved[] = {"true", "false", "none", "True", "False", "None"};
        for (int i = 0; i < countof(reserved); i++)
            if (str_eq(n->u.name.s, str_cstr(reserved[i])))
                return false;
        return true;
    }
    if (n->kind == TMPL_NSREF)
        return true;
    if (n->kind == TMPL_TUPLE) {
        for (i32 i = 0; i < n->u.items.n; i++)
            if (!can_assign(n->u.items.v[i]))
                return false;
        return true;
    }
    return false;
}

/* is_tuple_end. Jinja also takes "extra end rules" here (`in` for for
 * targets, `recursive` for for iterables) but tests them with
 * test_any(rules) instead of test_any(*rules), which never matches: so
 * `{% for x, in y %}` reads `in` as a second target name and fails at `y`.
 * We mirror that by having no extra rules. */
static bool is_tuple_end(parser *p)
{
    int k = cur(p)->kind;
    return k == TMPL_TOK_VAR_END || k == TMPL_TOK_BLOCK_END || k == TMPL_TOK_RPAREN;
}

/* assign_target: NSRef (name.attr) | Name | tuple of primaries | primary */
static tmpl_node *parse_assign_target(parser *p, bool with_tuple, bool name_only,
                                      bool with_namespace)
{
    tmpl_node *target;
    if (with_namespace && look(p)->kind == TMPL_TOK_DOT) {
        tmpl_tok *t = expect(p, TMPL_TOK_NAME);
        advance(p);
        tmpl_tok *attr = expect(p, TMPL_TOK_NAME);
        target = expr_node(p, TMPL_NSREF, t);
        target->u.nsref.name = ident(p, t->v.s);
        target->u.nsref.attr = ident(p, attr->v.s);
    } else if (name_only) {
        tmpl_tok *t = expect(p, TMPL_TOK_NAME);
        target = expr_node(p, TMPL_NAME, t);
        target->op = TMPL_CTX_STORE;
        target->u.name = ident(p, t->v.s);
    } else {
        target = with_tuple ? parse_tuple(p, true, true, false) : parse_primary(p);
        set_ctx(target, TMPL_CTX_STORE);
    }
    if (!can_assign(target))
        fail_at(p, ERR_SYNTAX, "TemplateSyntaxError", target->line, cur(p),
                "can't assign to '%s'", class_name(target));
    return target;
}

/* expression: condexpr | or */
static tmpl_node *parse_expression(parser *p, bool with_condexpr);

/* condexpr: or ("if" or ["else" condexpr])* */
static tmpl_node *parse_condexpr(parser *p)
{
    enter(p);
    tmpl_tok *lt = cur(p);
    tmpl_node *expr1 = parse_expression(p, false);
    while (skip_if_name(p, "if")) {
        tmpl_node *expr2 = parse_expression(p, false);
        tmpl_node *expr3 = skip_if_name(p, "else") ? parse_condexpr(p) : NULL;
        tmpl_node *n = expr_node(p, TMPL_COND, lt);
        n->u.cond.test = expr2;
        n->u.cond.then = expr1;
        n->u.cond.orelse = expr3;
        child(p, n, expr1);
        child(p, n, expr2);
        child(p, n, expr3);
        expr1 = n;
        lt = cur(p);
    }
    p->depth--;
    return expr1;
}

static tmpl_node *binary(parser *p, int kind, int op, const tmpl_tok *lt, tmpl_node *l, tmpl_node *r)
{
    tmpl_node *n = expr_node(p, kind, lt);
    n->op = (u8)op;
    n->u.bin.l = l;
    n->u.bin.r = r;
    child(p, n, l);
    child(p, n, r);
    return n;
}

static tmpl_node *parse_not(parser *p);

/* and: not ("and" not)* */
static tmpl_node *parse_and(parser *p)
{
    tmpl_tok *lt = cur(p);
    tmpl_node *left = parse_not(p);
    while (skip_if_name(p, "and")) {
        tmpl_node *right = parse_not(p);
        left = binary(p, TMPL_AND, 0, lt, left, right);
        lt = cur(p);
    }
    return left;
}

/* or: and ("or" and)* */
static tmpl_node *parse_or(parser *p)
{
    tmpl_tok *lt = cur(p);
    tmpl_node *left = parse_and(p);
    while (skip_if_name(p, "or")) {
        tmpl_node *right = parse_and(p);
        left = binary(p, TMPL_OR, 0, lt, left, right);
        lt = cur(p);
    }
    return left;
}

static tmpl_node *parse_expression(parser *p, bool with_condexpr)
{
    return with_condexpr ? parse_condexpr(p) : parse_or(p);
}

static tmpl_node *parse_compare(parser *p);

/* not: "not" not | compare */
static tmpl_node *parse_not(parser *p)
{
    if (is_name(cur(p), "not")) {
        enter(p);
        tmpl_tok *t = advance(p);
        tmpl_node *n = expr_node(p, TMPL_NOT, t);
        n->u.operand = parse_not(p);
        child(p, n, n->u.operand);
        p->depth--;
        return n;
    }
    return parse_compare(p);
}

static tmpl_node *parse_math1(parser *p);

/* compare: math1 ((== != < <= > >= | in | not in) math1)* */
static tmpl_node *parse_compare(parser *p)
{
    tmpl_tok *lt = cur(p);
    tmpl_node *expr = parse_math1(p);
    iz base = p->nodes.n, obase = p->ops.n;
    for (;;) {
        int k = cur(p)->kind, op;
        if (k == TMPL_TOK_EQ || k == TMPL_TOK_NE || k == TMPL_TOK_LT || k == TMPL_TOK_LTEQ ||
            k == TMPL_TOK_GT || k == TMPL_TOK_GTEQ) {
            advance(p);
            op = k == TMPL_TOK_EQ ? TMPL_OP_EQ : k == TMPL_TOK_NE ? TMPL_OP_NE
               : k == TMPL_TOK_LT ? TMPL_OP_LT : k == TMPL_TOK_LTEQ ? TMPL_OP_LE
               : k == TMPL_TOK_GT ? TMPL_OP_GT : TMPL_OP_GE;
        } else if (skip_if_name(p, "in")) {
            op = TMPL_OP_IN;
        } else if (is_name(cur(p), "not") && is_name(look(p), "in")) {
            advance(p);
            advance(p);
            op = TMPL_OP_NOTIN;
        } else {
            break;
        }
        tmpl_node *rhs = parse_math1(p);
        *(u8 *)vpush(p, &p->ops, 1) = (u8)op;
        push_node(p, rhs);
        lt = cur(p);
    }
    if (p->nodes.n == base)
        return expr;
    tmpl_node *n = expr_node(p, TMPL_COMPARE, lt);
    n->u.cmp.first = expr;
    child(p, n, expr);
    for (iz i = base; i < p->nodes.n; i++)
        child(p, n, ((tmpl_node **)p->nodes.p)[i]);
    i32 cnt = (i32)(p->ops.n - obase);
    n->u.cmp.ops = alloc(p, 1, 1, cnt);
    memcpy(n->u.cmp.ops, (u8 *)p->ops.p + obase, (size_t)cnt);
    p->ops.n = obase;
    tmpl_list l = pop_list(p, base);
    n->u.cmp.rhs = l.v;
    n->u.cmp.n = l.n;
    /* `x.attr == 'lit'` (or !=): the evaluator's fast path */
    n->op = l.n == 1 && expr->kind == TMPL_GETATTR && l.v[0]->kind == TMPL_STR &&
            (n->u.cmp.ops[0] == TMPL_OP_EQ || n->u.cmp.ops[0] == TMPL_OP_NE);
    return n;
}

static tmpl_node *parse_concat(parser *p);
static tmpl_node *parse_math2(parser *p);
static tmpl_node *parse_pow(parser *p);

/* math1: concat ((+ | -) concat)* */
static tmpl_node *parse_math1(parser *p)
{
    tmpl_tok *lt = cur(p);
    tmpl_node *left = parse_concat(p);
    while (cur(p)->kind == TMPL_TOK_ADD || cur(p)->kind == TMPL_TOK_SUB) {
        int op = advance(p)->kind == TMPL_TOK_ADD ? TMPL_OP_ADD : TMPL_OP_SUB;
        tmpl_node *right = parse_concat(p);
        left = binary(p, TMPL_BINOP, op, lt, left, right);
        lt = cur(p);
    }
    return left;
}

/* concat: math2 ("~" math2)* */
static tmpl_node *parse_concat(parser *p)
{
    tmpl_tok *lt = cur(p);
    tmpl_node *first = parse_math2(p);
    if (cur(p)->kind != TMPL_TOK_TILDE)
        return first;
    iz base = p->nodes.n;
    push_node(p, first);
    while (skip_if(p, TMPL_TOK_TILDE))
        push_node(p, parse_math2(p));
    tmpl_node *n = expr_node(p, TMPL_CONCAT, lt);
    n->u.items = adopt_list(p, n, base);
    return n;
}

/* math2: pow ((* | / | // | %) pow)* */
static tmpl_node *parse_math2(parser *p)
{
    tmpl_tok *lt = cur(p);
    tmpl_node *left = parse_pow(p);
    for (;;) {
        int k = cur(p)->kind;
        int op = k == TMPL_TOK_MUL ? TMPL_OP_MUL : k == TMPL_TOK_DIV ? TMPL_OP_DIV
               : k == TMPL_TOK_FLOORDIV ? TMPL_OP_FLOORDIV : k == TMPL_TOK_MOD ? TMPL_OP_MOD : 0;
        if (!op)
            return left;
        advance(p);
        tmpl_node *right = parse_pow(p);
        left = binary(p, TMPL_BINOP, op, lt, left, right);
        lt = cur(p);
    }
}

/* pow: unary ("**" unary)*  -- left-associative in Jinja: 2**3**2 == 64 */
static tmpl_node *parse_pow(parser *p)
{
    tmpl_tok *lt = cur(p);
    tmpl_node *left = parse_unary(p, true);
    while (skip_if(p, TMPL_TOK_POW)) {
        tmpl_node *right = parse_unary(p, true);
        left = binary(p, TMPL_BINOP, TMPL_OP_POW, lt, left, right);
        lt = cur(p);
    }
    return left;
}

static tmpl_node *parse_filter_expr(parser *p, tmpl_node *n);

/* unary: ("-" | "+") unary-without-filters postfix | primary postfix,
 * then filters and tests when with_filter: so -x|abs is (-x)|abs and
 * -2**2 is (-2)**2. */
static tmpl_node *parse_unary(parser *p, bool with_filter)
{
    enter(p);
    tmpl_tok *t = cur(p);
    tmpl_node *n;
    if (t->kind == TMPL_TOK_SUB || t->kind == TMPL_TOK_ADD) {
        advance(p);
        n = expr_node(p, t->kind == TMPL_TOK_SUB ? TMPL_NEG : TMPL_POS, t);
        n->u.operand = parse_unary(p, false);
        child(p, n, n->u.operand);
    } else {
        n = parse_primary(p);
    }
    n = parse_postfix(p, n);
    if (with_filter)
        n = parse_filter_expr(p, n);
    p->depth--;
    return n;
}

static tmpl_node *parse_list(parser *p);
static tmpl_node *parse_dict(parser *p);

/* primary: name | const | string+ | number | "(" tuple ")" | list | dict */
static tmpl_node *parse_primary(parser *p)
{
    tmpl_tok *t = cur(p);
    tmpl_node *n;
    switch (t->kind) {
    case TMPL_TOK_NAME: {
        str v = t->v.s;
        if (str_eq(v, S("true")) || str_eq(v, S("True")) || str_eq(v, S("false")) || str_eq(v, S("False"))) {
            n = expr_node(p, TMPL_BOOL, t);
            n->u.b = v.s[0] == 't' || v.s[0] == 'T';
        } else if (str_eq(v, S("none")) || str_eq(v, S("None"))) {
            n = expr_node(p, TMPL_NONE, t);
        } else {
            n = expr_node(p, TMPL_NAME, t);
            n->u.name = ident(p, v);
        }
        advance(p);
        return n;
    }
    case TMPL_TOK_STRING: {
        advance(p);
        n = expr_node(p, TMPL_STR, t);
        iz total = t->v.s.len, k = p->pos;
        for (; p->toks.v[k].kind == TMPL_TOK_STRING; k++)
            total += p->toks.v[k].v.s.len;
        if (k == p->pos && t->v.s.s == p->src.s + t->off + 1) {
            n->u.text = t->v.s;   /* a plain literal: a slice of the source */
        } else {
            u8 *d = alloc(p, 1, 1, total + 1);
            iz o = 0;
            memcpy(d, t->v.s.s, (size_t)t->v.s.len);
            o += t->v.s.len;
            while (cur(p)->kind == TMPL_TOK_STRING) {
                str v = advance(p)->v.s;
                if (v.len)
                    memcpy(d + o, v.s, (size_t)v.len);
                o += v.len;
            }
            n->u.text = (str){d, o};
        }
        return n;
    }
    case TMPL_TOK_INTEGER:
        advance(p);
        n = expr_node(p, TMPL_INT, t);
        n->u.i.v = t->v.i;
        n->u.i.big = t->big;
        n->u.i.lit = (str){p->src.s + t->off, t->len};
        return n;
    case TMPL_TOK_FLOAT:
        advance(p);
        n = expr_node(p, TMPL_FLOAT, t);
        n->u.f = t->v.f;
        return n;
    case TMPL_TOK_LPAREN:
        advance(p);
        n = parse_tuple(p, false, true, true);
        expect(p, TMPL_TOK_RPAREN);
        return n;
    case TMPL_TOK_LBRACKET:
        return parse_list(p);
    case TMPL_TOK_LBRACE:
        return parse_dict(p);
    }
    FAIL(p, t->line, "unexpected '%.*s'", DESC(t));
}

/* tuple: item ("," item)* [","] where item is a primary (simplified), an
 * expression, or an expression without conditionals. */
static tmpl_node *parse_tuple(parser *p, bool simplified, bool with_condexpr, bool explicit_parens)
{
    tmpl_tok *lt = cur(p);
    iz base = p->nodes.n;
    bool is_tuple = false;
    for (;;) {
        if (p->nodes.n > base)
            expect(p, TMPL_TOK_COMMA);
        if (is_tuple_end(p))
            break;
        push_node(p, simplified ? parse_primary(p) : parse_expression(p, with_condexpr));
        if (cur(p)->kind != TMPL_TOK_COMMA)
            break;
        is_tuple = true;
        lt = cur(p);
    }
    if (!is_tuple) {
        if (p->nodes.n > base) {
            tmpl_node *one = ((tmpl_node **)p->nodes.p)[base];
            p->nodes.n = base;
            return one;
        }
        if (!explicit_parens)
            FAIL(p, 0, "Expected an expression, got '%.*s'", DESC(cur(p)));
    }
    tmpl_node *n = expr_node(p, TMPL_TUPLE, lt);
    n->u.items = adopt_list(p, n, base);
    return n;
}

/* list: "[" [expression ("," expression)* [","]] "]" */
static tmpl_node *parse_list(parser *p)
{
    tmpl_tok *t = expect(p, TMPL_TOK_LBRACKET);
    iz base = p->nodes.n;
    while (cur(p)->kind != TMPL_TOK_RBRACKET) {
        if (p->nodes.n > base)
            expect(p, TMPL_TOK_COMMA);
        if (cur(p)->kind == TMPL_TOK_RBRACKET)
            break;
        push_node(p, parse_expression(p, true));
    }
    expect(p, TMPL_TOK_RBRACKET);
    tmpl_node *n = expr_node(p, TMPL_LIST, t);
    n->u.items = adopt_list(p, n, base);
    return n;
}

/* dict: "{" [expression ":" expression ("," ...)* [","]] "}" */
static tmpl_node *parse_dict(parser *p)
{
    tmpl_tok *t = expect(p, TMPL_TOK_LBRACE);
    iz base = p->nodes.n;
    while (cur(p)->kind != TMPL_TOK_RBRACE) {
        if (p->nodes.n > base)
            expect(p, TMPL_TOK_COMMA);
        if (cur(p)->kind == TMPL_TOK_RBRACE)
            break;
        push_node(p, parse_expression(p, true));
        expect(p, TMPL_TOK_COLON);
        push_node(p, parse_expression(p, true));
    }
    expect(p, TMPL_TOK_RBRACE);
    tmpl_node *n = expr_node(p, TMPL_DICT, t);
    i32 cnt = (i32)(p->nodes.n - base) / 2;
    tmpl_node **all = (tmpl_node **)p->nodes.p + base;
    n->u.dict.n = cnt;
    if (cnt) {
        n->u.dict.keys = alloc(p, (iz)sizeof(tmpl_node *), (iz)_Alignof(tmpl_node *), cnt);
        n->u.dict.vals = alloc(p, (iz)sizeof(tmpl_node *), (iz)_Alignof(tmpl_node *), cnt);
    }
    for (i32 i = 0; i < cnt; i++) {
        n->u.dict.keys[i] = all[2 * i];
        n->u.dict.vals[i] = all[2 * i + 1];
        child(p, n, all[2 * i]);
        child(p, n, all[2 * i + 1]);
    }
    p->nodes.n = base;
    return n;
}

/* call_args: "(" [arg ("," arg)* [","]] ")" with arg: expression |
 * name "=" expression | "*" expression | "**" expression */
static void parse_call_args(parser *p, tmpl_node *owner, tmpl_args *args)
{
    tmpl_tok *lp = expect(p, TMPL_TOK_LPAREN);
    iz base = p->nodes.n, kbase = p->kws.n;
    bool require_comma = false;
    memset(args, 0, sizeof(*args));
#define ENSURE(c) do { if (!(c)) FAIL(p, lp->line, "invalid syntax for function call expression"); } while (0)
    while (cur(p)->kind != TMPL_TOK_RPAREN) {
        if (require_comma) {
            expect(p, TMPL_TOK_COMMA);
            if (cur(p)->kind == TMPL_TOK_RPAREN)
                break;
        }
        if (cur(p)->kind == TMPL_TOK_MUL) {
            ENSURE(!args->star && !args->dstar);
            advance(p);
            args->star = parse_expression(p, true);
            child(p, owner, args->star);
        } else if (cur(p)->kind == TMPL_TOK_POW) {
            ENSURE(!args->dstar);
            advance(p);
            args->dstar = parse_expression(p, true);
            child(p, owner, args->dstar);
        } else if (cur(p)->kind == TMPL_TOK_NAME && look(p)->kind == TMPL_TOK_ASSIGN) {
            ENSURE(!args->dstar);
            tmpl_ident key = ident(p, cur(p)->v.s);
            advance(p);
            advance(p);
            tmpl_node *v = parse_expression(p, true);   /* may use the stack above us */
            tmpl_kwarg *kw = vpush(p, &p->kws, (iz)sizeof(tmpl_kwarg));
            kw->key = key;
            kw->value = v;
            child(p, owner, v);
        } else {
            ENSURE(!args->star && !args->dstar && p->kws.n == kbase);
            tmpl_node *v = parse_expression(p, true);
            push_node(p, v);
            child(p, owner, v);
        }
        require_comma = true;
    }
#undef ENSURE
    expect(p, TMPL_TOK_RPAREN);
    args->pos = pop_list(p, base);
    args->nkw = (i32)(p->kws.n - kbase);
    if (args->nkw) {
        args->kw = alloc(p, (iz)sizeof(tmpl_kwarg), (iz)_Alignof(tmpl_kwarg), args->nkw);
        memcpy(args->kw, (tmpl_kwarg *)p->kws.p + kbase, sizeof(tmpl_kwarg) * (size_t)args->nkw);
    }
    p->kws.n = kbase;
}

static tmpl_node *parse_call(parser *p, tmpl_node *callee)
{
    tmpl_node *n = expr_node(p, TMPL_CALL, cur(p));
    n->u.call.callee = callee;
    child(p, n, callee);
    parse_call_args(p, n, &n->u.call.args);
    return n;
}

/* subscribed: expression | [expression] ":" [expression] [":" [expression]] */
static tmpl_node *parse_subscribed(parser *p)
{
    tmpl_tok *lt = cur(p);
    tmpl_node *parts[3] = {0};
    if (cur(p)->kind == TMPL_TOK_COLON) {
        advance(p);
    } else {
        tmpl_node *n = parse_expression(p, true);
        if (cur(p)->kind != TMPL_TOK_COLON)
            return n;
        advance(p);
        parts[0] = n;
    }
    int k = cur(p)->kind;
    if (k != TMPL_TOK_COLON && k != TMPL_TOK_RBRACKET && k != TMPL_TOK_COMMA)
        parts[1] = parse_expression(p, true);
    if (cur(p)->kind == TMPL_TOK_COLON) {
        advance(p);
        k = cur(p)->kind;
        if (k != TMPL_TOK_RBRACKET && k != TMPL_TOK_COMMA)
            parts[2] = parse_expression(p, true);
    }
    tmpl_node *n = expr_node(p, TMPL_SLICE, lt);
    n->u.slice.start = parts[0];
    n->u.slice.stop = parts[1];
    n->u.slice.step = parts[2];
    for (int i = 0; i < 3; i++)
        child(p, n, parts[i]);
    return n;
}

/* subscript: "." (name | integer) | "[" subscribed ("," subscribed)* "]" */
static tmpl_node *parse_subscript(parser *p, tmpl_node *obj)
{
    tmpl_tok *t = advance(p);
    if (t->kind == TMPL_TOK_DOT) {
        tmpl_tok *attr = cur(p);
        advance(p);
        if (attr->kind == TMPL_TOK_NAME) {
            tmpl_node *n = expr_node(p, TMPL_GETATTR, t);
            n->u.getattr.obj = obj;
            n->u.getattr.attr = ident(p, attr->v.s);
            /* meths and the shapes marked in op: tmpl_runtime_bind */
            child(p, n, obj);
            return n;
        }
        if (attr->kind != TMPL_TOK_INTEGER)
            fail_at(p, ERR_SYNTAX, "TemplateSyntaxError", attr->line, attr, "expected name or number");
        tmpl_node *idx = expr_node(p, TMPL_INT, attr);
        idx->u.i.v = attr->v.i;
        idx->u.i.big = attr->big;
        idx->u.i.lit = (str){p->src.s + attr->off, attr->len};
        tmpl_node *n = expr_node(p, TMPL_GETITEM, t);
        n->u.getitem.obj = obj;
        n->u.getitem.index = idx;
        child(p, n, obj);
        child(p, n, idx);
        return n;
    }
    /* lbracket (parse_postfix only calls us on dot or lbracket) */
    iz base = p->nodes.n;
    while (cur(p)->kind != TMPL_TOK_RBRACKET) {
        if (p->nodes.n > base)
            expect(p, TMPL_TOK_COMMA);
        push_node(p, parse_subscribed(p));
    }
    expect(p, TMPL_TOK_RBRACKET);
    tmpl_node *idx;
    if (p->nodes.n - base == 1) {
        idx = ((tmpl_node **)p->nodes.p)[base];
        p->nodes.n = base;
    } else {
        idx = expr_node(p, TMPL_TUPLE, t);
        idx->u.items = adopt_list(p, idx, base);
    }
    tmpl_node *n = expr_node(p, TMPL_GETITEM, t);
    n->u.getitem.obj = obj;
    n->u.getitem.index = idx;
    child(p, n, obj);
    child(p, n, idx);
    return n;
}

/* postfix: (subscript | call_args)* */
static tmpl_node *parse_postfix(parser *p, tmpl_node *n)
{
    for (;;) {
        int k = cur(p)->kind;
        if (k == TMPL_TOK_DOT || k == TMPL_TOK_LBRACKET)
            n = parse_subscript(p, n);
        else if (k == TMPL_TOK_LPAREN)
            n = parse_call(p, n);
        else
            return n;
    }
}

/* A dotted filter or test name: name ("." name)*. The parts are joined
 * on the scratch stack (an error may jump out at any part). */
static tmpl_ident parse_dotted_name(parser *p, tmpl_tok *first)
{
    str name = first->v.s;
    if (cur(p)->kind == TMPL_TOK_DOT) {
        vec *v = &p->chars;
        v->n = 0;
        for (iz i = 0; i < name.len; i++)
            *(u8 *)vpush(p, v, 1) = name.s[i];
        while (skip_if(p, TMPL_TOK_DOT)) {
            str part = expect(p, TMPL_TOK_NAME)->v.s;
            *(u8 *)vpush(p, v, 1) = '.';
            for (iz i = 0; i < part.len; i++)
                *(u8 *)vpush(p, v, 1) = part.s[i];
        }
        u8 *d = alloc(p, 1, 1, v->n + 1);
        memcpy(d, v->p, (size_t)v->n);
        name = (str){d, v->n};
    }
    return ident(p, name);
}

/* filter: ("|" name ("." name)* [call_args])*, or one filter without the
 * "|" when start_inline ({% filter %} blocks). */
static tmpl_node *parse_filter(parser *p, tmpl_node *n, bool start_inline)
{
    while (cur(p)->kind == TMPL_TOK_PIPE || start_inline) {
        if (!start_inline)
            advance(p);
        tmpl_tok *t = expect(p, TMPL_TOK_NAME);
        tmpl_node *f = expr_node(p, TMPL_FILTER, t);
        f->u.filter.arg = n;
        child(p, f, n);
        f->u.filter.name = parse_dotted_name(p, t);
        f->u.filter.id = tmpl_filter_lookup(f->u.filter.name.s);
        if (cur(p)->kind == TMPL_TOK_LPAREN)
            parse_call_args(p, f, &f->u.filter.args);
        /* x|length without arguments: the evaluator's fast path */
        const tmpl_args *fa = &f->u.filter.args;
        f->op = f->u.filter.id == TMPL_FILTER_LENGTH && n && !fa->pos.n && !fa->nkw && !fa->star && !fa->dstar;
        n = f;
        start_inline = false;
    }
    return n;
}

/* test: "is" ["not"] name ("." name)* [call_args | primary postfix] */
static tmpl_node *parse_test(parser *p, tmpl_node *n)
{
    tmpl_tok *is = advance(p);
    bool negated = skip_if_name(p, "not");
    tmpl_tok *t = expect(p, TMPL_TOK_NAME);
    tmpl_node *tn = expr_node(p, TMPL_TEST, is);
    tn->u.filter.arg = n;
    child(p, tn, n);
    tn->u.filter.name = parse_dotted_name(p, t);
    tn->u.filter.id = tmpl_test_lookup(tn->u.filter.name.s);
    int k = cur(p)->kind;
    if (k == TMPL_TOK_LPAREN) {
        parse_call_args(p, tn, &tn->u.filter.args);
    } else if ((k == TMPL_TOK_NAME || k == TMPL_TOK_STRING || k == TMPL_TOK_INTEGER ||
                k == TMPL_TOK_FLOAT || k == TMPL_TOK_LBRACKET || k == TMPL_TOK_LBRACE) &&
               !is_name(cur(p), "else") && !is_name(cur(p), "or") && !is_name(cur(p), "and")) {
        if (is_name(cur(p), "is"))
            FAIL(p, 0, "You cannot chain multiple tests with is");
        tmpl_node *arg = parse_postfix(p, parse_primary(p));
        iz base = p->nodes.n;
        push_node(p, arg);
        child(p, tn, arg);
        tn->u.filter.args.pos = pop_list(p, base);
    }
    if (negated) {
        tmpl_node *nn = expr_node(p, TMPL_NOT, is);
        nn->u.operand = tn;
        child(p, nn, tn);
        return nn;
    }
    return tn;
}

/* filter_expr: ("|" filter | "is" test | call_args)* */
static tmpl_node *parse_filter_expr(parser *p, tmpl_node *n)
{
    for (;;) {
        tmpl_tok *t = cur(p);
        if (t->kind == TMPL_TOK_PIPE)
            n = parse_filter(p, n, false);
        else if (is_name(t, "is"))
            n = parse_test(p, n);
        else if (t->kind == TMPL_TOK_LPAREN)
            n = parse_call(p, n);
        else
            return n;
    }
}

/* ---- statements ---- */

static tmpl_list subparse(parser *p, const endset *ends);

/* Parser._fail_ut_eof: "Encountered unknown tag ..." (name) or "Unexpected
 * end of template." (no name), with what Jinja was looking for. */
/* Appends to a message buffer, cutting at its end (err messages are
 * bounded; a 4 KB tag name makes Jinja's message longer). */
typedef struct {
    char   s[ERR_MSG_MAX];
    size_t n;
} msgbuf;

static void put(msgbuf *m, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void put(msgbuf *m, const char *fmt, ...)
{
    if (m->n >= sizeof(m->s) - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(m->s + m->n, sizeof(m->s) - m->n, fmt, ap);
    va_end(ap);
    if (w > 0)
        m->n = MIN(m->n + (size_t)w, sizeof(m->s) - 1);
}

static _Noreturn void fail_ut_eof(parser *p, const tmpl_tok *name, const endset *extra, i32 line)
{
    msgbuf msg = {{0}, 0};
#define PUT(...) put(&msg, __VA_ARGS__)
    const endset *top = extra ? extra : p->nends ? p->ends[p->nends - 1] : NULL;
    bool expected = false;
    if (name) {
        for (int i = 0; i < p->nends && !expected; i++)
            expected = in_endset(name, p->ends[i]);
        if (extra && !expected)
            expected = in_endset(name, extra);
        PUT("Encountered unknown tag '%.*s'.", (int)name->v.s.len, (const char *)name->v.s.s);
    } else {
        PUT("Unexpected end of template.");
    }
    if (top) {
        PUT(" %s", name && expected
                       ? "You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for"
                       : "Jinja was looking for the following tags:");
        for (int i = 0; i < top->n; i++)
            PUT("%s '%s'", i ? " or" : "", top->names[i]);
        PUT(".");
    }
    if (p->ntags)
        PUT(" The innermost block that needs to be closed is '%.*s'.",
            (int)p->tags[p->ntags - 1].len, (const char *)p->tags[p->ntags - 1].s);
#undef PUT
    fail_at(p, ERR_SYNTAX, "TemplateSyntaxError", line, name ? name : cur(p), "%s", msg.s);
}

/* parse_statements: [":"] "%}" body up to one of `ends` (left current) */
static tmpl_list parse_statements(parser *p, const endset *ends, bool drop_needle)
{
    skip_if(p, TMPL_TOK_COLON);
    expect(p, TMPL_TOK_BLOCK_END);
    tmpl_list body = subparse(p, ends);
    if (cur(p)->kind == TMPL_TOK_EOF)
        fail_ut_eof(p, NULL, ends, cur(p)->line);
    if (drop_needle)
        advance(p);
    return body;
}

/* signature: "(" [name ["=" expression] ("," ...)*] ")" */
static void parse_signature(parser *p, tmpl_node *n)
{
    iz base = p->nodes.n;
    expect(p, TMPL_TOK_LPAREN);
    i32 nparams = 0;
    while (cur(p)->kind != TMPL_TOK_RPAREN) {
        if (nparams)
            expect(p, TMPL_TOK_COMMA);
        tmpl_node *arg = parse_assign_target(p, true, true, false);
        arg->op = TMPL_CTX_PARAM;
        if (skip_if(p, TMPL_TOK_ASSIGN))
            push_node(p, parse_expression(p, true));
        else if (p->nodes.n > base)
            FAIL(p, 0, "non-default argument follows default argument");
        /* params are kept apart from defaults: stash them in the kws stack */
        tmpl_kwarg *kw = vpush(p, &p->kws, (iz)sizeof(tmpl_kwarg));
        kw->value = arg;
        nparams++;
    }
    expect(p, TMPL_TOK_RPAREN);
    n->u.macro.defaults = pop_list(p, base);
    n->u.macro.params.n = nparams;
    if (nparams) {
        n->u.macro.params.v = alloc(p, (iz)sizeof(tmpl_node *), (iz)_Alignof(tmpl_node *), nparams);
        for (i32 i = 0; i < nparams; i++)
            n->u.macro.params.v[i] = ((tmpl_kwarg *)p->kws.p)[p->kws.n - nparams + i].value;
    }
    p->kws.n -= nparams;
}

static tmpl_node *parse_for(parser *p)
{
    tmpl_node *n = node(p, TMPL_FOR, advance(p));
    n->u.for_.target = parse_assign_target(p, true, false, false);
    expect_name(p, "in");
    n->u.for_.iter = parse_tuple(p, false, false, false);
    if (skip_if_name(p, "if"))
        n->u.for_.filter = parse_expression(p, true);
    n->u.for_.recursive = skip_if_name(p, "recursive");
    n->u.for_.body = parse_statements(p, &END_FOR, false);
    if (!is_name(advance(p), "endfor"))
        n->u.for_.orelse = parse_statements(p, &END_FOR_ELSE, true);
    return n;
}

static tmpl_node *parse_if(parser *p)
{
    tmpl_node *result = node(p, TMPL_IF, advance(p));
    tmpl_node *n = result;
    iz base = p->nodes.n;
    for (;;) {
        n->u.if_.test = parse_tuple(p, false, false, false);
        n->u.if_.body = parse_statements(p, &END_IF, false);
        tmpl_tok *t = advance(p);
        if (is_name(t, "elif")) {
            n = node(p, TMPL_IF, cur(p));
            push_node(p, n);
            continue;
        }
        if (is_name(t, "else"))
            result->u.if_.orelse = parse_statements(p, &END_IF_ELSE, true);
        break;
    }
    result->u.if_.elifs = pop_list(p, base);
    return result;
}

static tmpl_node *parse_set(parser *p)
{
    tmpl_tok *t = advance(p);
    tmpl_node *target = parse_assign_target(p, true, false, true);
    if (skip_if(p, TMPL_TOK_ASSIGN)) {
        tmpl_node *n = node(p, TMPL_SET, t);
        n->u.set.target = target;
        n->u.set.value = parse_tuple(p, false, true, false);
        return n;
    }
    tmpl_node *n = node(p, TMPL_SET_BLOCK, t);
    n->u.setblock.target = target;
    n->u.setblock.filter = parse_filter(p, NULL, false);
    n->u.setblock.body = parse_statements(p, &END_SET, true);
    return n;
}

static tmpl_node *parse_macro(parser *p)
{
    tmpl_node *n = node(p, TMPL_MACRO, advance(p));
    n->u.macro.name = parse_assign_target(p, true, true, false)->u.name;
    parse_signature(p, n);
    n->u.macro.body = parse_statements(p, &END_MACRO, true);
    return n;
}

static tmpl_node *parse_call_block(parser *p)
{
    tmpl_node *n = node(p, TMPL_CALL_BLOCK, advance(p));
    if (cur(p)->kind == TMPL_TOK_LPAREN)
        parse_signature(p, n);
    tmpl_node *call = parse_expression(p, true);
    if (call->kind != TMPL_CALL)
        FAIL(p, n->line, "expected call");
    n->u.macro.call = call;
    n->u.macro.body = parse_statements(p, &END_CALL, true);
    return n;
}

static tmpl_node *parse_filter_block(parser *p)
{
    tmpl_node *n = node(p, TMPL_FILTER_BLOCK, advance(p));
    n->u.fblock.filter = parse_filter(p, NULL, true);
    n->u.fblock.body = parse_statements(p, &END_FILTER, true);
    return n;
}

/* print: expression ("," expression)*  -- one OUTPUT statement each */
static void parse_print(parser *p)
{
    tmpl_tok *t = advance(p);
    bool first = true;
    while (cur(p)->kind != TMPL_TOK_BLOCK_END) {
        if (!first)
            expect(p, TMPL_TOK_COMMA);
        first = false;
        tmpl_node *n = node(p, TMPL_OUTPUT, t);
        n->u.expr = parse_expression(p, true);
        push_node(p, n);
    }
}

static tmpl_node *parse_with(parser *p)
{
    tmpl_node *n = node(p, TMPL_WITH, advance(p));
    iz base = p->nodes.n;
    while (cur(p)->kind != TMPL_TOK_BLOCK_END) {
        if (p->nodes.n > base)
            expect(p, TMPL_TOK_COMMA);
        tmpl_node *target = parse_assign_target(p, true, false, false);
        set_ctx(target, TMPL_CTX_PARAM);
        push_node(p, target);
        expect(p, TMPL_TOK_ASSIGN);
        push_node(p, parse_expression(p, true));
    }
    i32 cnt = (i32)(p->nodes.n - base) / 2;
    tmpl_node **all = (tmpl_node **)p->nodes.p + base;
    n->u.with.targets.n = n->u.with.values.n = cnt;
    if (cnt) {
        n->u.with.targets.v = alloc(p, (iz)sizeof(tmpl_node *), (iz)_Alignof(tmpl_node *), cnt);
        n->u.with.values.v = alloc(p, (iz)sizeof(tmpl_node *), (iz)_Alignof(tmpl_node *), cnt);
        for (i32 i = 0; i < cnt; i++) {
            n->u.with.targets.v[i] = all[2 * i];
            n->u.with.values.v[i] = all[2 * i + 1];
        }
    }
    p->nodes.n = base;
    n->u.with.body = parse_statements(p, &END_WITH, true);
    return n;
}

static tmpl_node *parse_autoescape(parser *p)
{
    tmpl_node *n = node(p, TMPL_AUTOESCAPE, advance(p));
    n->u.autoescape.value = parse_expression(p, true);
    n->u.autoescape.body = parse_statements(p, &END_AUTOESCAPE, true);
    return n;
}

static bool is_space_text(str s)
{
    /* str.isspace() of a data node: all whitespace (and non-empty) */
    if (s.len == 0)
        return false;
    for (iz i = 0; i < s.len;) {
        u8 c = s.s[i];
        if (c < 0x80) {
            if (!((c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20)))
                return false;
            i++;
            continue;
        }
        u32 cp = 0;
        int w = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        if (i + w > s.len)
            return false;
        cp = c & (0x3fu >> (w - 1));
        for (int k = 1; k < w; k++)
            cp = cp << 6 | (s.s[i + k] & 0x3fu);
        if (!(cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
              cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000))
            return false;
        i += w;
    }
    return true;
}

static tmpl_node *parse_block(parser *p)
{
    tmpl_node *n = node(p, TMPL_BLOCK, advance(p));
    n->u.block.name = ident(p, expect(p, TMPL_TOK_NAME)->v.s);
    n->u.block.scoped = skip_if_name(p, "scoped");
    n->u.block.required = skip_if_name(p, "required");
    if (cur(p)->kind == TMPL_TOK_SUB)
        FAIL(p, 0, "Block names in Jinja have to be valid Python identifiers and may not contain "
                   "hyphens, use an underscore instead.");
    n->u.block.body = parse_statements(p, &END_BLOCK, true);
    if (n->u.block.required) {
        /* Only whitespace text may remain. Jinja looks at the children of
         * each body node in turn, so a statement other than output raises
         * a raw AttributeError there (the first failure wins). */
        static const char *const classes[TMPL_KIND_COUNT] = {
            [TMPL_IF] = "If", [TMPL_FOR] = "For", [TMPL_SET] = "Assign",
            [TMPL_SET_BLOCK] = "AssignBlock", [TMPL_MACRO] = "Macro",
            [TMPL_CALL_BLOCK] = "CallBlock", [TMPL_GENERATION] = "CallBlock",
            [TMPL_FILTER_BLOCK] = "FilterBlock", [TMPL_BREAK] = "Break",
            [TMPL_CONTINUE] = "Continue", [TMPL_WITH] = "With", [TMPL_AUTOESCAPE] = "Scope",
            [TMPL_BLOCK] = "Block", [TMPL_EXTENDS] = "Extends", [TMPL_INCLUDE] = "Include",
            [TMPL_IMPORT] = "Import", [TMPL_FROM_IMPORT] = "FromImport",
        };
        for (i32 i = 0; i < n->u.block.body.n; i++) {
            const tmpl_node *c = n->u.block.body.v[i];
            if (c->kind == TMPL_OUTPUT || (c->kind == TMPL_TEXT && !is_space_text(c->u.text)))
                FAIL(p, 0, "Required blocks can only contain comments or whitespace");
            if (c->kind != TMPL_TEXT)
                fail_at(p, ERR_SYNTAX, "AttributeError", n->line, cur(p),
                        "'%s' object has no attribute 'nodes'", classes[c->kind] ? classes[c->kind] : "Node");
        }
    }
    if (cur(p)->kind == TMPL_TOK_NAME && str_eq(cur(p)->v.s, n->u.block.name.s))
        advance(p);
    return n;
}

static void parse_import_context(parser *p, tmpl_node *n, bool dflt)
{
    n->u.load.with_context = dflt;
    if ((is_name(cur(p), "with") || is_name(cur(p), "without")) && is_name(look(p), "context")) {
        n->u.load.with_context = is_name(advance(p), "with");
        advance(p);
    }
}

static tmpl_node *parse_include(parser *p)
{
    tmpl_node *n = node(p, TMPL_INCLUDE, advance(p));
    n->u.load.tmpl = parse_expression(p, true);
    if (is_name(cur(p), "ignore") && is_name(look(p), "missing")) {
        n->u.load.ignore_missing = true;
        advance(p);
        advance(p);
    }
    parse_import_context(p, n, true);
    return n;
}

static tmpl_node *parse_import(parser *p)
{
    tmpl_node *n = node(p, TMPL_IMPORT, advance(p));
    n->u.load.tmpl = parse_expression(p, true);
    expect_name(p, "as");
    n->u.load.target = parse_assign_target(p, true, true, false)->u.name;
    parse_import_context(p, n, false);
    return n;
}

/* from's parse_context: tests the token's value whatever its type */
static bool from_context(parser *p, tmpl_node *n)
{
    tmpl_tok *t = cur(p);
    if ((t->kind == TMPL_TOK_NAME || t->kind == TMPL_TOK_STRING) &&
        (str_eq(t->v.s, S("with")) || str_eq(t->v.s, S("without"))) && is_name(look(p), "context")) {
        n->u.load.with_context = str_eq(advance(p)->v.s, S("with"));
        advance(p);
        return true;
    }
    return false;
}

static tmpl_node *parse_from(parser *p)
{
    tmpl_node *n = node(p, TMPL_FROM_IMPORT, advance(p));
    n->u.load.tmpl = parse_expression(p, true);
    expect_name(p, "import");
    iz kbase = p->kws.n;
    for (;;) {
        if (p->kws.n > kbase)
            expect(p, TMPL_TOK_COMMA);
        if (cur(p)->kind != TMPL_TOK_NAME) {
            expect(p, TMPL_TOK_NAME);
            continue;   /* not reached: expect failed */
        }
        if (from_context(p, n))
            break;
        tmpl_node *target = parse_assign_target(p, true, true, false);
        if (target->u.name.s.len && target->u.name.s.s[0] == '_')
            fail_at(p, ERR_SYNTAX, "TemplateAssertionError", target->line, cur(p),
                    "names starting with an underline can not be imported");
        tmpl_kwarg *kw = vpush(p, &p->kws, (iz)sizeof(tmpl_kwarg));
        kw->key = target->u.name;
        kw->value = target;   /* its name is replaced by the alias below */
        if (skip_if_name(p, "as")) {
            tmpl_node *alias = parse_assign_target(p, true, true, false);
            ((tmpl_kwarg *)p->kws.p)[p->kws.n - 1].value = alias;
        }
        if (from_context(p, n) || cur(p)->kind != TMPL_TOK_COMMA)
            break;
    }
    i32 cnt = (i32)(p->kws.n - kbase);
    n->u.load.nnames = cnt;
    if (cnt) {
        n->u.load.names = alloc(p, (iz)sizeof(tmpl_ident), (iz)_Alignof(tmpl_ident), cnt);
        n->u.load.aliases = alloc(p, (iz)sizeof(tmpl_ident), (iz)_Alignof(tmpl_ident), cnt);
        for (i32 i = 0; i < cnt; i++) {
            const tmpl_kwarg *kw = (tmpl_kwarg *)p->kws.p + kbase + i;
            n->u.load.names[i] = kw->key;
            n->u.load.aliases[i] = kw->value->u.name;
        }
    }
    p->kws.n = kbase;
    return n;
}

static tmpl_node *parse_simple(parser *p, int kind, tmpl_node *(*expr)(parser *, bool))
{
    tmpl_node *n = node(p, kind, advance(p));
    n->u.load.tmpl = expr(p, true);
    return n;
}

/* statement: a tag name and what it takes. Pushes what it parsed onto the
 * node stack (print may give several OUTPUTs, or none). */
static void parse_statement(parser *p)
{
    tmpl_tok *t = cur(p);
    if (t->kind != TMPL_TOK_NAME)
        FAIL(p, t->line, "tag name expected");
    if (p->nest >= TMPL_MAX_NEST)
        fail_at(p, ERR_LIMIT, NULL, t->line, t, "statements nested too deeply (limit %d)", TMPL_MAX_NEST);
    p->nest++;
    p->tags[p->ntags++] = t->v.s;
    str v = t->v.s;
    tmpl_node *n = NULL;
    if (str_eq(v, S("for")))             n = parse_for(p);
    else if (str_eq(v, S("if")))         n = parse_if(p);
    else if (str_eq(v, S("block")))      n = parse_block(p);
    else if (str_eq(v, S("extends")))    n = parse_simple(p, TMPL_EXTENDS, parse_expression);
    else if (str_eq(v, S("print")))      parse_print(p);
    else if (str_eq(v, S("macro")))      n = parse_macro(p);
    else if (str_eq(v, S("include")))    n = parse_include(p);
    else if (str_eq(v, S("from")))       n = parse_from(p);
    else if (str_eq(v, S("import")))     n = parse_import(p);
    else if (str_eq(v, S("set")))        n = parse_set(p);
    else if (str_eq(v, S("with")))       n = parse_with(p);
    else if (str_eq(v, S("autoescape"))) n = parse_autoescape(p);
    else if (str_eq(v, S("call")))       n = parse_call_block(p);
    else if (str_eq(v, S("filter")))     n = parse_filter_block(p);
    else if (str_eq(v, S("generation"))) {
        n = node(p, TMPL_GENERATION, advance(p));
        n->u.fblock.body = parse_statements(p, &END_GENERATION, true);
    } else if (str_eq(v, S("break")) || str_eq(v, S("continue"))) {
        n = node(p, v.s[0] == 'b' ? TMPL_BREAK : TMPL_CONTINUE, advance(p));
    } else {
        p->ntags--;
        fail_ut_eof(p, t, NULL, t->line);
    }
    if (n)
        push_node(p, n);
    p->ntags--;
    p->nest--;
}

/* subparse: (data | "{{" tuple "}}" | "{%" statement "%}")* up to an
 * end tag of `ends` (NULL at the top) or the end of the template. */
static tmpl_list subparse(parser *p, const endset *ends)
{
    iz base = p->nodes.n;
    if (ends)
        p->ends[p->nends++] = ends;
    for (;;) {
        tmpl_tok *t = cur(p);
        if (t->kind == TMPL_TOK_EOF)
            break;
        if (t->kind == TMPL_TOK_DATA) {
            tmpl_node *n = node(p, TMPL_TEXT, t);
            n->u.text = t->v.s;
            push_node(p, n);
            advance(p);
        } else if (t->kind == TMPL_TOK_VAR_BEGIN) {
            advance(p);
            tmpl_node *n = node(p, TMPL_OUTPUT, cur(p));
            n->u.expr = parse_tuple(p, false, true, false);
            n->line = n->u.expr->line;
            n->col = n->u.expr->col;
            push_node(p, n);
            expect(p, TMPL_TOK_VAR_END);
        } else {
            /* block_begin (the lexer yields nothing else here) */
            advance(p);
            if (ends && in_endset(cur(p), ends))
                break;
            parse_statement(p);
            expect(p, TMPL_TOK_BLOCK_END);
        }
    }
    if (ends)
        p->nends--;
    return pop_list(p, base);
}

/* ---- entry ---- */

void tmpl_parse(tmpl_cc *c, tmpl_prog *prog)
{
    parser p0, *p = &p0;
    memset(p, 0, sizeof(*p));
    p->cc = c;
    p->a = c->a;
    p->scratch = &c->scratch;
    p->src = c->src;
    vinit(p, &p->nodes, (iz)sizeof(tmpl_node *), 256);
    vinit(p, &p->kws, (iz)sizeof(tmpl_kwarg), 32);
    vinit(p, &p->ops, 1, 32);
    vinit(p, &p->chars, 1, 64);
    vinit(p, &p->syms, (iz)sizeof(str), 64);
    tmpl_lex(p->scratch, p->src, &p->toks);
    if (p->toks.v[0].kind == TMPL_TOK_ERROR)
        raise_lex_error(p, &p->toks.v[0]);   /* TokenStream reads one token ahead */
    prog->body = subparse(p, NULL);
    prog->nsyms = (i32)p->syms.n;
    if (prog->nsyms) {
        prog->syms = alloc(p, (iz)sizeof(str), (iz)_Alignof(str), prog->nsyms);
        memcpy(prog->syms, p->syms.p, sizeof(str) * (size_t)prog->nsyms);
        /* the parser's index goes with the program, so that a render finds
         * its variables' symbols without a scan */
        prog->symtab = alloc(p, (iz)sizeof(i32), (iz)_Alignof(i32), p->symcap);
        memcpy(prog->symtab, p->symtab, sizeof(i32) * (size_t)p->symcap);
        prog->symcap = p->symcap;
    }
}
