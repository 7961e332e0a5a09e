/* tmpl_dump.c - the syntax tree as s-expressions (tmpl_dump, tmpl_ast.h),
 * for tests, fuzzers and debugging: one compact line per statement, the
 * same for equal trees, so that tests compare trees as strings. */
#include <stdio.h>
#include "tmpl_ast.h"

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
