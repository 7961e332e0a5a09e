/* tmpl_parse.c - Jinja2 3.1's parser (jinja2/parser.py) over tmpl_lex's
 * token stream, building the tree of tmpl_ast.h; then the checks Jinja's
 * code generator and Python's compiler make on a parsed template (see
 * check_* below); and the s-expression dump.
 *
 * Each parse_* function follows the Jinja method of the same name, so its
 * error (message, line, and which one comes first) is Jinja's. Errors
 * longjmp to tmpl_compile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include "tmpl.h"
#include "tmpl_value.h"
#include "../base/hash.h"
#include "../base/utf8.h"

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
    arena     *a;          /* the tree */
    arena      scratch;    /* tokens and build stacks */
    tmpl_toks  toks;
    iz         pos;        /* index of the current token */
    str        src;        /* normalized source */
    str        orig;       /* the caller's source, for error offsets */
    err       *e;
    tmpl_diag *d;
    jmp_buf    fail;
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

/* The near text: the token's source (or up to whitespace when len < 0),
 * cut at a line end, to fit, on a character boundary. */
static void set_near(parser *p, iz off, iz len)
{
    if (!p->d)
        return;
    iz n = 0;
    if (off >= 0 && off < p->src.len) {
        const u8 *s = p->src.s + off;
        iz avail = p->src.len - off;
        iz max = MIN(len >= 0 ? len : avail, (iz)sizeof(p->d->near) - 1);
        max = MIN(max, avail);
        while (n < max && s[n] != '\n' && (len >= 0 || (s[n] != ' ' && s[n] != '\t')))
            n++;
        if (n < avail)
            while (n > 0 && (s[n] & 0xc0) == 0x80)
                n--;
        memcpy(p->d->near, s, (size_t)n);
    }
    p->d->near[n] = 0;
}

/* Offset in the caller's source of offset `off` in the normalized one. */
static iz orig_offset(const parser *p, iz off)
{
    iz i = 0, k = 0;
    while (k < off && i < p->orig.len) {
        if (p->orig.s[i] == '\r' && i + 1 < p->orig.len && p->orig.s[i + 1] == '\n')
            i++;
        i++;
        k++;
    }
    return i;
}

static _Noreturn void fail_msg(parser *p, int code, const char *kind, i32 line, i32 col, iz off,
                               iz len, const char *msg)
{
    if (p->e) {
        p->e->code = code;
        snprintf(p->e->msg, sizeof(p->e->msg), "%s", msg);
        p->e->line = line;
        p->e->col = col;
        p->e->off = off >= 0 ? orig_offset(p, off) : -1;
    }
    if (p->d)
        p->d->kind = kind;
    set_near(p, off, len);
    longjmp(p->fail, 1);
}

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
    fail_msg(p, code, kind, line, t->col, t->off, t->kind == TMPL_TOK_EOF ? 0 : t->len, msg);
}

/* Offset of a node's (line, col) in the normalized source. */
static iz node_offset(const parser *p, const tmpl_node *n)
{
    iz i = 0;
    for (i32 l = 1; l < n->line && i < p->src.len; i++)
        if (p->src.s[i] == '\n')
            l++;
    for (i32 c = 1; c < n->col && i < p->src.len; c++) {
        i++;
        while (i < p->src.len && (p->src.s[i] & 0xc0) == 0x80)
            i++;
    }
    return i;
}

/* Fails at node n (errors found after parsing). */
static _Noreturn void fail_node(parser *p, const char *kind, const tmpl_node *n, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
static _Noreturn void fail_node(parser *p, const char *kind, const tmpl_node *n, const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fail_msg(p, ERR_SYNTAX, kind, n->line, n->col, node_offset(p, n), -1, msg);
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

static _Noreturn void oom(parser *p)
{
    fail_msg(p, ERR_NOMEM, NULL, 0, 0, -1, 0, "out of memory compiling the template");
}

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
        void *q = arena_grow(&p->scratch, v->p, size, 16, v->n, &v->cap, v->n + 1);
        if (!q)
            oom(p);
        v->p = q;
    }
    return (u8 *)v->p + size * v->n++;
}

/* Gives a stack its first storage, so its pointer is never NULL. */
static void vinit(parser *p, vec *v, iz size, iz cap)
{
    v->p = arena_alloc_nz(&p->scratch, size, 16, cap);
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
        i32 *tab = arena_alloc(&p->scratch, (iz)sizeof(i32), (iz)_Alignof(i32), cap);
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
            n->u.getattr.meths = tmpl_getattr_meths(attr->v.s);
            /* loop.index0 and the like: the evaluator's fast path */
            if (obj->kind == TMPL_NAME && str_eq(obj->u.name.s, S("loop")) && n->u.getattr.meths.loop)
                n->op = 1;
            else if (obj->kind == TMPL_NAME && n->u.getattr.meths.dict_key)
                n->op = 2;   /* message.role: a name's attribute that on a dict can only be a key */
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

/* ---- names of filters and tests ---- */

static const struct { const char *name; int id; } filter_names[] = {
    {"abs", TMPL_FILTER_ABS}, {"attr", TMPL_FILTER_ATTR}, {"batch", TMPL_FILTER_BATCH},
    {"capitalize", TMPL_FILTER_CAPITALIZE}, {"center", TMPL_FILTER_CENTER},
    {"count", TMPL_FILTER_LENGTH}, {"d", TMPL_FILTER_DEFAULT}, {"default", TMPL_FILTER_DEFAULT},
    {"dictsort", TMPL_FILTER_DICTSORT}, {"e", TMPL_FILTER_ESCAPE}, {"escape", TMPL_FILTER_ESCAPE},
    {"filesizeformat", TMPL_FILTER_FILESIZEFORMAT}, {"first", TMPL_FILTER_FIRST},
    {"float", TMPL_FILTER_FLOAT}, {"forceescape", TMPL_FILTER_FORCEESCAPE},
    {"format", TMPL_FILTER_FORMAT}, {"groupby", TMPL_FILTER_GROUPBY}, {"indent", TMPL_FILTER_INDENT},
    {"int", TMPL_FILTER_INT}, {"items", TMPL_FILTER_ITEMS}, {"join", TMPL_FILTER_JOIN},
    {"last", TMPL_FILTER_LAST}, {"length", TMPL_FILTER_LENGTH}, {"list", TMPL_FILTER_LIST},
    {"lower", TMPL_FILTER_LOWER}, {"map", TMPL_FILTER_MAP}, {"max", TMPL_FILTER_MAX},
    {"min", TMPL_FILTER_MIN}, {"pprint", TMPL_FILTER_PPRINT}, {"random", TMPL_FILTER_RANDOM},
    {"reject", TMPL_FILTER_REJECT}, {"rejectattr", TMPL_FILTER_REJECTATTR},
    {"replace", TMPL_FILTER_REPLACE}, {"reverse", TMPL_FILTER_REVERSE}, {"round", TMPL_FILTER_ROUND},
    {"safe", TMPL_FILTER_SAFE}, {"select", TMPL_FILTER_SELECT}, {"selectattr", TMPL_FILTER_SELECTATTR},
    {"slice", TMPL_FILTER_SLICE}, {"sort", TMPL_FILTER_SORT}, {"string", TMPL_FILTER_STRING},
    {"striptags", TMPL_FILTER_STRIPTAGS}, {"sum", TMPL_FILTER_SUM}, {"title", TMPL_FILTER_TITLE},
    {"tojson", TMPL_FILTER_TOJSON}, {"trim", TMPL_FILTER_TRIM}, {"truncate", TMPL_FILTER_TRUNCATE},
    {"unique", TMPL_FILTER_UNIQUE}, {"upper", TMPL_FILTER_UPPER}, {"urlencode", TMPL_FILTER_URLENCODE},
    {"urlize", TMPL_FILTER_URLIZE}, {"wordcount", TMPL_FILTER_WORDCOUNT},
    {"wordwrap", TMPL_FILTER_WORDWRAP}, {"xmlattr", TMPL_FILTER_XMLATTR},
};

static const struct { const char *name; int id; } test_names[] = {
    {"!=", TMPL_TEST_NE}, {"<", TMPL_TEST_LT}, {"<=", TMPL_TEST_LE}, {"==", TMPL_TEST_EQ},
    {">", TMPL_TEST_GT}, {">=", TMPL_TEST_GE}, {"boolean", TMPL_TEST_BOOLEAN},
    {"callable", TMPL_TEST_CALLABLE}, {"defined", TMPL_TEST_DEFINED},
    {"divisibleby", TMPL_TEST_DIVISIBLEBY}, {"eq", TMPL_TEST_EQ}, {"equalto", TMPL_TEST_EQ},
    {"escaped", TMPL_TEST_ESCAPED}, {"even", TMPL_TEST_EVEN}, {"false", TMPL_TEST_FALSE},
    {"filter", TMPL_TEST_FILTER}, {"float", TMPL_TEST_FLOAT}, {"ge", TMPL_TEST_GE},
    {"greaterthan", TMPL_TEST_GT}, {"gt", TMPL_TEST_GT}, {"in", TMPL_TEST_IN},
    {"integer", TMPL_TEST_INTEGER}, {"iterable", TMPL_TEST_ITERABLE}, {"le", TMPL_TEST_LE},
    {"lessthan", TMPL_TEST_LT}, {"lower", TMPL_TEST_LOWER}, {"lt", TMPL_TEST_LT},
    {"mapping", TMPL_TEST_MAPPING}, {"ne", TMPL_TEST_NE}, {"none", TMPL_TEST_NONE},
    {"number", TMPL_TEST_NUMBER}, {"odd", TMPL_TEST_ODD}, {"sameas", TMPL_TEST_SAMEAS},
    {"sequence", TMPL_TEST_SEQUENCE}, {"string", TMPL_TEST_STRING}, {"test", TMPL_TEST_TEST},
    {"true", TMPL_TEST_TRUE}, {"undefined", TMPL_TEST_UNDEFINED}, {"upper", TMPL_TEST_UPPER},
};

tmpl_filter_id tmpl_filter_lookup(str name)
{
    for (int i = 0; i < countof(filter_names); i++)
        if (str_eq(name, str_cstr(filter_names[i].name)))
            return (tmpl_filter_id)filter_names[i].id;
    return TMPL_FILTER_UNKNOWN;
}

tmpl_test_id tmpl_test_lookup(str name)
{
    for (int i = 0; i < countof(test_names); i++)
        if (str_eq(name, str_cstr(test_names[i].name)))
            return (tmpl_test_id)test_names[i].id;
    return TMPL_TEST_UNKNOWN;
}


/* ---- what Jinja's code generator and Python's compiler reject ----
 *
 * Environment.from_string parses, then generates Python source
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
    parser          *p;
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

static void each_args(const tmpl_args *a, tmpl_visit_fn f, void *ctx)
{
    each(&a->pos, f, ctx);
    for (i32 i = 0; i < a->nkw; i++)
        f(ctx, a->kw[i].value);
    if (a->star)
        f(ctx, a->star);
    if (a->dstar)
        f(ctx, a->dstar);
}

#define VISIT(x) do { if (x) f(ctx, (x)); } while (0)

void tmpl_children(const tmpl_node *n, tmpl_visit_fn f, void *ctx)
{
    switch (n->kind) {
    case TMPL_OUTPUT: case TMPL_EXTENDS: VISIT(n->u.expr); break;
    case TMPL_INCLUDE: case TMPL_IMPORT: case TMPL_FROM_IMPORT: VISIT(n->u.load.tmpl); break;
    case TMPL_IF:
        VISIT(n->u.if_.test);
        each(&n->u.if_.body, f, ctx);
        each(&n->u.if_.elifs, f, ctx);
        each(&n->u.if_.orelse, f, ctx);
        break;
    case TMPL_FOR:
        VISIT(n->u.for_.target);
        VISIT(n->u.for_.iter);
        each(&n->u.for_.body, f, ctx);
        each(&n->u.for_.orelse, f, ctx);
        VISIT(n->u.for_.filter);
        break;
    case TMPL_SET: VISIT(n->u.set.target); VISIT(n->u.set.value); break;
    case TMPL_SET_BLOCK:
        VISIT(n->u.setblock.target);
        VISIT(n->u.setblock.filter);
        each(&n->u.setblock.body, f, ctx);
        break;
    case TMPL_MACRO: case TMPL_CALL_BLOCK:
        VISIT(n->u.macro.call);
        each(&n->u.macro.params, f, ctx);
        each(&n->u.macro.defaults, f, ctx);
        each(&n->u.macro.body, f, ctx);
        break;
    case TMPL_FILTER_BLOCK: case TMPL_GENERATION:
        each(&n->u.fblock.body, f, ctx);
        VISIT(n->u.fblock.filter);
        break;
    case TMPL_WITH:
        each(&n->u.with.targets, f, ctx);
        each(&n->u.with.values, f, ctx);
        each(&n->u.with.body, f, ctx);
        break;
    case TMPL_AUTOESCAPE: VISIT(n->u.autoescape.value); each(&n->u.autoescape.body, f, ctx); break;
    case TMPL_BLOCK: each(&n->u.block.body, f, ctx); break;
    case TMPL_TUPLE: case TMPL_LIST: case TMPL_CONCAT: each(&n->u.items, f, ctx); break;
    case TMPL_DICT:
        for (i32 i = 0; i < n->u.dict.n; i++) {
            f(ctx, n->u.dict.keys[i]);
            f(ctx, n->u.dict.vals[i]);
        }
        break;
    case TMPL_GETATTR: VISIT(n->u.getattr.obj); break;
    case TMPL_GETITEM: VISIT(n->u.getitem.obj); VISIT(n->u.getitem.index); break;
    case TMPL_SLICE: VISIT(n->u.slice.start); VISIT(n->u.slice.stop); VISIT(n->u.slice.step); break;
    case TMPL_CALL: VISIT(n->u.call.callee); each_args(&n->u.call.args, f, ctx); break;
    case TMPL_FILTER: case TMPL_TEST: VISIT(n->u.filter.arg); each_args(&n->u.filter.args, f, ctx); break;
    case TMPL_NOT: case TMPL_NEG: case TMPL_POS: VISIT(n->u.operand); break;
    case TMPL_BINOP: case TMPL_AND: case TMPL_OR: VISIT(n->u.bin.l); VISIT(n->u.bin.r); break;
    case TMPL_COMPARE:
        VISIT(n->u.cmp.first);
        for (i32 i = 0; i < n->u.cmp.n; i++)
            f(ctx, n->u.cmp.rhs[i]);
        break;
    case TMPL_COND: VISIT(n->u.cond.test); VISIT(n->u.cond.then); VISIT(n->u.cond.orelse); break;
    default: break;
    }
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
            fail_node(c->p, "TypeError", df.dict, "unhashable type: '%s'", df.type);
        f.optimized = true;   /* the optimizer has run over this subtree */
    }
    if (f.optimized && fold(n) == FOLD_SAFE)
        return;   /* replaced by a constant: never generated */
    switch (n->kind) {
    case TMPL_FILTER: case TMPL_TEST:
        /* checked before the operand: the outer filter of x|a|b first */
        if (n->u.filter.id == 0 && !f.soft)
            fail_node(c->p, "TemplateAssertionError", n, "No %s named '%.*s'.",
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
                fail_node(c->p, "TemplateAssertionError", n,
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
            fail_node(c->p, "TemplateAssertionError", fd.found,
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
            fail_node(c->p, "TemplateAssertionError", n, "cannot use extend from a non top-level scope");
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

static void collect_block(void *ctx, const tmpl_node *n)
{
    parser *p = ctx;
    if (n->kind == TMPL_BLOCK)
        push_node(p, (tmpl_node *)(uintptr_t)n);
    tmpl_children(n, collect_block, p);
}

static void check_program(parser *p, const tmpl_list *body)
{
    checker c = {0};
    c.p = p;
    /* every block, in find_all order; a repeated name fails first */
    iz base = p->nodes.n;
    each(body, collect_block, p);
    tmpl_node **blocks = (tmpl_node **)p->nodes.p + base;
    iz nblocks = p->nodes.n - base;
    for (iz i = 0; i < nblocks; i++)
        for (iz j = 0; j < i; j++)
            if (str_eq(blocks[i]->u.block.name.s, blocks[j]->u.block.name.s))
                fail_node(p, "TemplateAssertionError", blocks[i], "block '%.*s' defined twice",
                          (int)blocks[i]->u.block.name.s.len, (const char *)blocks[i]->u.block.name.s.s);
    int ext = TMPL_EXTENDS;
    finder fd = {is_kind, &ext, false, NULL};
    each(body, find_visit, &fd);
    frame root = {false, false, true, true, fd.found != NULL, false};
    check_body(&c, body, root);
    frame bf = {false, false, false, false, false, false};
    for (iz i = 0; i < nblocks; i++) {
        blocks = (tmpl_node **)p->nodes.p + base;   /* the stack may have moved */
        check_body(&c, &blocks[i]->u.block.body, bf);
    }
    p->nodes.n = base;
    if (c.invalid)
        fail_node(p, "SyntaxError", c.invalid, "invalid syntax");
    if (c.dup_param)
        fail_node(p, "SyntaxError", c.dup_param, "duplicate argument '%.*s' in function definition",
                  (int)c.dup_name.len, (const char *)c.dup_name.s);
    if (c.late)
        fail_node(p, "SyntaxError", c.late, "%s", c.late_msg);
}

/* ---- entry points ---- */

/* Everything between the setjmp and a failure goes through `p`, so no
 * local of this function is read after the jump. */
static tmpl_prog *compile(parser *p, str src)
{
    if (setjmp(p->fail))
        return NULL;
    p->a->oom = &p->fail;   /* running out in either arena lands here */
    p->scratch.oom = &p->fail;
    vinit(p, &p->nodes, (iz)sizeof(tmpl_node *), 256);
    vinit(p, &p->kws, (iz)sizeof(tmpl_kwarg), 32);
    vinit(p, &p->ops, 1, 32);
    vinit(p, &p->chars, 1, 64);
    vinit(p, &p->syms, (iz)sizeof(str), 64);
    p->src = tmpl_normalize(p->a, src);
    tmpl_lex(&p->scratch, p->src, &p->toks);
    if (p->toks.v[0].kind == TMPL_TOK_ERROR)
        raise_lex_error(p, &p->toks.v[0]);   /* TokenStream reads one token ahead */
    tmpl_list body = subparse(p, NULL);
    check_program(p, &body);
    tmpl_prog *prog = alloc(p, (iz)sizeof(tmpl_prog), (iz)_Alignof(tmpl_prog), 1);
    prog->body = body;
    prog->src = p->src;
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
    /* which variable each name is (Jinja's compiler, tmpl_frames.c) */
    const tmpl_node *bad = NULL;
    char msg[ERR_MSG_MAX];
    switch (tmpl_frames(prog, p->a, &bad, msg, sizeof msg)) {
    case ERR_OK: break;
    case ERR_SYNTAX: fail_node(p, "AssertionError", bad, "%s", msg);
    case ERR_LIMIT:
        if (bad)
            fail_msg(p, ERR_LIMIT, NULL, bad->line, bad->col, node_offset(p, bad), -1, msg);
        fail_msg(p, ERR_LIMIT, NULL, 0, 0, -1, 0, msg);
    default: oom(p);
    }
    tmpl_eval_bind(prog);
    return prog;
}

tmpl_prog *tmpl_compile(arena *a, str src, err *e, tmpl_diag *d)
{
    if (e)
        memset(e, 0, sizeof(*e));
    if (d)
        memset(d, 0, sizeof(*d));
    if (src.len > TMPL_MAX_SOURCE) {
        err_set(e, ERR_LIMIT, 0, "template too large (%td bytes, limit %d)", src.len, TMPL_MAX_SOURCE);
        return NULL;
    }
    iz bad = utf8_invalid_at(src);
    if (bad >= 0) {
        err_set(e, ERR_UTF8, bad, "invalid UTF-8 in the template at byte %td", bad);
        if (e) {
            e->line = 1;
            for (iz i = 0; i < bad; i++)
                e->line += src.s[i] == '\n';
        }
        return NULL;
    }
    parser p;
    memset(&p, 0, sizeof(p));
    p.a = a;
    p.e = e;
    p.d = d;
    p.orig = src;
    arena_init(&p.scratch, 0);
    jmp_buf *saved = a->oom;
    arena_mark mark = arena_save(a);
    tmpl_prog *prog = compile(&p, src);
    a->oom = saved;
    if (!prog) {
        arena_restore(a, mark);   /* nothing of a failed compile stays */
        if (e && e->code == ERR_OK)
            err_set(e, ERR_NOMEM, -1, "out of memory compiling the template");
        if (d)
            d->kind = e && e->code == ERR_SYNTAX ? d->kind : NULL;
    }
    arena_fini(&p.scratch);
    return prog;
}

void tmpl_format_error(buf *b, const char *name, const err *e, const tmpl_diag *d)
{
    buf_printf(b, "%s:%d:%d: %s", name, (int)e->line, (int)e->col, e->msg);
    if (d && d->near[0])
        buf_printf(b, " (near '%s')", d->near);
}

i32 tmpl_sym_find(const tmpl_prog *p, str name)
{
    if (!p->symcap)
        return -1;
    for (iz i = (iz)(hash_str(name) & (u64)(p->symcap - 1));; i = (i + 1) & (p->symcap - 1)) {
        i32 k = p->symtab[i];
        if (!k)
            return -1;
        if (str_eq(p->syms[k - 1], name))
            return k - 1;
    }
}

const char *tmpl_kind_name(tmpl_kind k)
{
    static const char *const names[TMPL_KIND_COUNT] = {
        [TMPL_TEXT] = "text", [TMPL_OUTPUT] = "output", [TMPL_IF] = "if", [TMPL_FOR] = "for",
        [TMPL_SET] = "set", [TMPL_SET_BLOCK] = "setblock", [TMPL_MACRO] = "macro",
        [TMPL_CALL_BLOCK] = "callblock", [TMPL_FILTER_BLOCK] = "filterblock",
        [TMPL_GENERATION] = "generation", [TMPL_BREAK] = "break", [TMPL_CONTINUE] = "continue",
        [TMPL_WITH] = "with", [TMPL_AUTOESCAPE] = "autoescape", [TMPL_BLOCK] = "block",
        [TMPL_EXTENDS] = "extends", [TMPL_INCLUDE] = "include", [TMPL_IMPORT] = "import",
        [TMPL_FROM_IMPORT] = "from", [TMPL_NONE] = "none", [TMPL_BOOL] = "bool",
        [TMPL_INT] = "int", [TMPL_FLOAT] = "float", [TMPL_STR] = "str", [TMPL_NAME] = "name",
        [TMPL_NSREF] = "nsref", [TMPL_TUPLE] = "tuple", [TMPL_LIST] = "list",
        [TMPL_DICT] = "dict", [TMPL_GETATTR] = "getattr", [TMPL_GETITEM] = "getitem",
        [TMPL_SLICE] = "slice", [TMPL_CALL] = "call", [TMPL_FILTER] = "filter",
        [TMPL_TEST] = "test", [TMPL_NOT] = "not", [TMPL_NEG] = "neg", [TMPL_POS] = "pos",
        [TMPL_BINOP] = "binop", [TMPL_AND] = "and", [TMPL_OR] = "or", [TMPL_CONCAT] = "concat",
        [TMPL_COMPARE] = "compare", [TMPL_COND] = "cond",
    };
    return (unsigned)k < TMPL_KIND_COUNT && names[k] ? names[k] : "?";
}

/* ---- the s-expression dump ---- */

static void dump_str(buf *b, str s)
{
    buf_byte(b, '"');
    for (iz i = 0; i < s.len; i++) {
        u8 c = s.s[i];
        if (c == '"' || c == '\\')
            buf_printf(b, "\\%c", c);
        else if (c == '\n')
            buf_cstr(b, "\\n");
        else if (c == '\t')
            buf_cstr(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            buf_printf(b, "\\x%02x", c);
        else
            buf_byte(b, c);
    }
    buf_byte(b, '"');
}

static void dump(buf *b, const tmpl_node *n, bool L);

static void dump_list(buf *b, const tmpl_list *l, bool L)
{
    for (i32 i = 0; i < l->n; i++) {
        buf_byte(b, ' ');
        dump(b, l->v[i], L);
    }
}

static void dump_args(buf *b, const tmpl_args *a, bool L)
{
    dump_list(b, &a->pos, L);
    for (i32 i = 0; i < a->nkw; i++) {
        buf_printf(b, " (= %.*s ", (int)a->kw[i].key.s.len, (const char *)a->kw[i].key.s.s);
        dump(b, a->kw[i].value, L);
        buf_byte(b, ')');
    }
    if (a->star) {
        buf_cstr(b, " (* ");
        dump(b, a->star, L);
        buf_byte(b, ')');
    }
    if (a->dstar) {
        buf_cstr(b, " (** ");
        dump(b, a->dstar, L);
        buf_byte(b, ')');
    }
}

static void dump_opt(buf *b, const tmpl_node *n, bool L)
{
    buf_byte(b, ' ');
    if (n)
        dump(b, n, L);
    else
        buf_byte(b, '_');
}

static void dump_body(buf *b, const char *head, const tmpl_list *body, bool L)
{
    buf_printf(b, " (%s", head);
    for (i32 i = 0; i < body->n; i++) {
        buf_byte(b, ' ');
        dump(b, body->v[i], L);
    }
    buf_byte(b, ')');
}

#define ID(x) (int)(x).s.len, (const char *)(x).s.s

/* "(name" and, with L, "@line" */
static void head(buf *b, const char *name, const tmpl_node *n, bool L)
{
    buf_printf(b, "(%s", name);
    if (L)
        buf_printf(b, "@%d", (int)n->line);
}

static void at(buf *b, const tmpl_node *n, bool L)
{
    if (L)
        buf_printf(b, "@%d", (int)n->line);
}

static void dump_params(buf *b, const tmpl_node *n, bool L)
{
    const tmpl_list *ps = &n->u.macro.params;
    i32 first_default = ps->n - n->u.macro.defaults.n;
    buf_cstr(b, " (");
    for (i32 i = 0; i < ps->n; i++) {
        if (i)
            buf_byte(b, ' ');
        if (i >= first_default) {
            buf_printf(b, "(= %.*s", ID(ps->v[i]->u.name));
            at(b, ps->v[i], L);
            buf_byte(b, ' ');
            dump(b, n->u.macro.defaults.v[i - first_default], L);
            buf_byte(b, ')');
        } else {
            buf_printf(b, "%.*s", ID(ps->v[i]->u.name));
            at(b, ps->v[i], L);
        }
    }
    buf_byte(b, ')');
}

static void dump(buf *b, const tmpl_node *n, bool L)
{
    static const char *const ops[] = {"", "+", "-", "*", "/", "//", "%", "**",
                                      "==", "!=", "<", "<=", ">", ">=", "in", "notin"};
    switch (n->kind) {
    case TMPL_TEXT:
        head(b, "text", n, L);
        buf_byte(b, ' ');
        dump_str(b, n->u.text);
        buf_byte(b, ')');
        return;
    case TMPL_OUTPUT:
        buf_cstr(b, "(out ");
        dump(b, n->u.expr, L);
        buf_byte(b, ')');
        return;
    case TMPL_IF:
        head(b, "if", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.if_.test, L);
        dump_body(b, "then", &n->u.if_.body, L);
        for (i32 i = 0; i < n->u.if_.elifs.n; i++) {
            buf_byte(b, ' ');
            head(b, "elif", n->u.if_.elifs.v[i], L);
            buf_byte(b, ' ');
            dump(b, n->u.if_.elifs.v[i]->u.if_.test, L);
            dump_body(b, "then", &n->u.if_.elifs.v[i]->u.if_.body, L);
            buf_byte(b, ')');
        }
        if (n->u.if_.orelse.n)
            dump_body(b, "else", &n->u.if_.orelse, L);
        buf_byte(b, ')');
        return;
    case TMPL_FOR:
        head(b, "for", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.for_.target, L);
        buf_byte(b, ' ');
        dump(b, n->u.for_.iter, L);
        if (n->u.for_.filter) {
            buf_cstr(b, " (if ");
            dump(b, n->u.for_.filter, L);
            buf_byte(b, ')');
        }
        if (n->u.for_.recursive)
            buf_cstr(b, " recursive");
        dump_body(b, "do", &n->u.for_.body, L);
        if (n->u.for_.orelse.n)
            dump_body(b, "else", &n->u.for_.orelse, L);
        buf_byte(b, ')');
        return;
    case TMPL_SET:
        head(b, "set", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.set.target, L);
        buf_byte(b, ' ');
        dump(b, n->u.set.value, L);
        buf_byte(b, ')');
        return;
    case TMPL_SET_BLOCK:
        head(b, "setblock", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.setblock.target, L);
        dump_opt(b, n->u.setblock.filter, L);
        dump_body(b, "do", &n->u.setblock.body, L);
        buf_byte(b, ')');
        return;
    case TMPL_MACRO:
        head(b, "macro", n, L);
        buf_printf(b, " %.*s", ID(n->u.macro.name));
        dump_params(b, n, L);
        dump_body(b, "do", &n->u.macro.body, L);
        buf_byte(b, ')');
        return;
    case TMPL_CALL_BLOCK:
        head(b, "callblock", n, L);
        dump_params(b, n, L);
        buf_byte(b, ' ');
        dump(b, n->u.macro.call, L);
        dump_body(b, "do", &n->u.macro.body, L);
        buf_byte(b, ')');
        return;
    case TMPL_FILTER_BLOCK:
        head(b, "filterblock", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.fblock.filter, L);
        dump_body(b, "do", &n->u.fblock.body, L);
        buf_byte(b, ')');
        return;
    case TMPL_GENERATION:
        head(b, "generation", n, L);
        dump_body(b, "do", &n->u.fblock.body, L);
        buf_byte(b, ')');
        return;
    case TMPL_BREAK: case TMPL_CONTINUE:
        head(b, n->kind == TMPL_BREAK ? "break" : "continue", n, L);
        buf_byte(b, ')');
        return;
    case TMPL_WITH:
        head(b, "with", n, L);
        buf_cstr(b, " (");
        for (i32 i = 0; i < n->u.with.targets.n; i++) {
            buf_cstr(b, i ? " (" : "(");
            dump(b, n->u.with.targets.v[i], L);
            buf_byte(b, ' ');
            dump(b, n->u.with.values.v[i], L);
            buf_byte(b, ')');
        }
        buf_byte(b, ')');
        dump_body(b, "do", &n->u.with.body, L);
        buf_byte(b, ')');
        return;
    case TMPL_AUTOESCAPE:
        head(b, "autoescape", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.autoescape.value, L);
        dump_body(b, "do", &n->u.autoescape.body, L);
        buf_byte(b, ')');
        return;
    case TMPL_BLOCK:
        head(b, "block", n, L);
        buf_printf(b, " %.*s%s%s", ID(n->u.block.name), n->u.block.scoped ? " scoped" : "",
                   n->u.block.required ? " required" : "");
        dump_body(b, "do", &n->u.block.body, L);
        buf_byte(b, ')');
        return;
    case TMPL_EXTENDS:
        head(b, "extends", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.expr, L);
        buf_byte(b, ')');
        return;
    case TMPL_INCLUDE: case TMPL_IMPORT: case TMPL_FROM_IMPORT:
        head(b, tmpl_kind_name((tmpl_kind)n->kind), n, L);
        buf_byte(b, ' ');
        dump(b, n->u.load.tmpl, L);
        if (n->kind == TMPL_IMPORT)
            buf_printf(b, " (as %.*s)", ID(n->u.load.target));
        for (i32 i = 0; i < n->u.load.nnames; i++) {
            if (str_eq(n->u.load.names[i].s, n->u.load.aliases[i].s))
                buf_printf(b, " %.*s", ID(n->u.load.names[i]));
            else
                buf_printf(b, " (%.*s as %.*s)", ID(n->u.load.names[i]), ID(n->u.load.aliases[i]));
        }
        if (n->u.load.ignore_missing)
            buf_cstr(b, " ignore-missing");
        buf_cstr(b, n->u.load.with_context ? " with-context)" : " without-context)");
        return;
    case TMPL_NONE: buf_cstr(b, "none"); at(b, n, L); return;
    case TMPL_BOOL: buf_cstr(b, n->u.b ? "true" : "false"); at(b, n, L); return;
    case TMPL_INT:
        if (n->u.i.big)
            buf_printf(b, "(bigint %.*s)", (int)n->u.i.lit.len, (const char *)n->u.i.lit.s);
        else
            buf_i64(b, n->u.i.v);
        at(b, n, L);
        return;
    case TMPL_FLOAT: {
        char tmp[48];
        snprintf(tmp, sizeof(tmp), "%.17g", n->u.f);
        if (!strpbrk(tmp, ".eni"))
            strcat(tmp, ".0");
        buf_cstr(b, tmp);
        at(b, n, L);
        return;
    }
    case TMPL_STR: dump_str(b, n->u.text); at(b, n, L); return;
    case TMPL_NAME: buf_printf(b, "%.*s", ID(n->u.name)); at(b, n, L); return;
    case TMPL_NSREF:
        head(b, "nsref", n, L);
        buf_printf(b, " %.*s %.*s)", ID(n->u.nsref.name), ID(n->u.nsref.attr));
        return;
    case TMPL_TUPLE: case TMPL_LIST: case TMPL_CONCAT:
        head(b, n->kind == TMPL_TUPLE ? "tuple" : n->kind == TMPL_LIST ? "list" : "~", n, L);
        dump_list(b, &n->u.items, L);
        buf_byte(b, ')');
        return;
    case TMPL_DICT:
        head(b, "dict", n, L);
        for (i32 i = 0; i < n->u.dict.n; i++) {
            buf_cstr(b, " (");
            dump(b, n->u.dict.keys[i], L);
            buf_byte(b, ' ');
            dump(b, n->u.dict.vals[i], L);
            buf_byte(b, ')');
        }
        buf_byte(b, ')');
        return;
    case TMPL_GETATTR:
        head(b, ".", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.getattr.obj, L);
        buf_printf(b, " %.*s)", ID(n->u.getattr.attr));
        return;
    case TMPL_GETITEM:
        head(b, "[]", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.getitem.obj, L);
        buf_byte(b, ' ');
        dump(b, n->u.getitem.index, L);
        buf_byte(b, ')');
        return;
    case TMPL_SLICE:
        head(b, "slice", n, L);
        dump_opt(b, n->u.slice.start, L);
        dump_opt(b, n->u.slice.stop, L);
        dump_opt(b, n->u.slice.step, L);
        buf_byte(b, ')');
        return;
    case TMPL_CALL:
        head(b, "call", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.call.callee, L);
        dump_args(b, &n->u.call.args, L);
        buf_byte(b, ')');
        return;
    case TMPL_FILTER: case TMPL_TEST:
        head(b, n->kind == TMPL_FILTER ? "|" : "is", n, L);
        dump_opt(b, n->u.filter.arg, L);
        buf_printf(b, " %.*s%s", ID(n->u.filter.name), n->u.filter.id ? "" : "?");
        dump_args(b, &n->u.filter.args, L);
        buf_byte(b, ')');
        return;
    case TMPL_NOT: case TMPL_NEG: case TMPL_POS:
        head(b, n->kind == TMPL_NOT ? "not" : n->kind == TMPL_NEG ? "neg" : "pos", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.operand, L);
        buf_byte(b, ')');
        return;
    case TMPL_BINOP: case TMPL_AND: case TMPL_OR:
        head(b, n->kind == TMPL_AND ? "and" : n->kind == TMPL_OR ? "or"
                : n->op < countof(ops) ? ops[n->op] : "?", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.bin.l, L);
        buf_byte(b, ' ');
        dump(b, n->u.bin.r, L);
        buf_byte(b, ')');
        return;
    case TMPL_COMPARE:
        head(b, "cmp", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.cmp.first, L);
        for (i32 i = 0; i < n->u.cmp.n; i++) {
            u8 op = n->u.cmp.ops[i];
            buf_printf(b, " %s ", op < countof(ops) ? ops[op] : "?");
            dump(b, n->u.cmp.rhs[i], L);
        }
        buf_byte(b, ')');
        return;
    case TMPL_COND:
        head(b, "cond", n, L);
        buf_byte(b, ' ');
        dump(b, n->u.cond.test, L);
        buf_byte(b, ' ');
        dump(b, n->u.cond.then, L);
        dump_opt(b, n->u.cond.orelse, L);
        buf_byte(b, ')');
        return;
    }
    buf_cstr(b, "(?)");
}

void tmpl_dump_expr(buf *b, const tmpl_node *n, unsigned flags)
{
    dump(b, n, flags & TMPL_DUMP_LINES);
}

void tmpl_dump(buf *b, const tmpl_list *body, unsigned flags)
{
    for (i32 i = 0; i < body->n; i++) {
        if (i)
            buf_byte(b, '\n');
        dump(b, body->v[i], flags & TMPL_DUMP_LINES);
    }
}
