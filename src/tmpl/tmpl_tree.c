/* tmpl_tree.c - helpers of the syntax tree that the compiler and the
 * evaluator share (tmpl_ast.h): a node's children in Jinja's order, the
 * names of Jinja's filters and tests and of the node kinds, and a
 * program's symbols (tmpl_sym_find, tmpl.h). */
#include "tmpl.h"
#include "tmpl_ast.h"
#include "../base/hash.h"

/* ---- children ---- */

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


/* ---- symbols and kinds ---- */

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
