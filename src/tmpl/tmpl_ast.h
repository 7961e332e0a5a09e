/* tmpl_ast.h - the syntax tree of a compiled chat template: the contract
 * between the compiler (tmpl_front.h) and the evaluator (tmpl_value.h),
 * with the helpers both use (tmpl_tree.c: children, names of kinds,
 * filters and tests; tmpl_dump.c: the s-expression dump). Internal to
 * src/tmpl/.
 * It mirrors Jinja2 3.1's nodes (jinja2/nodes.py) closely enough that the
 * evaluator can follow Jinja's semantics node by node; where it differs the
 * comment on the kind says so.
 *
 * Memory: every node, array and string of a tree lives in the arena given
 * to tmpl_compile, and strings are slices of the program's normalized source
 * (tmpl_prog.src) or of that arena. Trees are read-only once built: share
 * them between threads and forked workers freely.
 *
 * Shape: a body (tmpl_list of statement nodes) at the top; statements hold
 * expressions and nested bodies. Children are arrays of pointers with
 * counts; a missing optional child is NULL. Every node carries the line
 * Jinja2 itself would give it (what its runtime errors report as "line N")
 * and a 1-based column (in code points) of the token that line came from.
 * Recursion over a tree is bounded: expressions are at most
 * TMPL_MAX_EXPR_DEPTH high, statements at most TMPL_MAX_NEST deep.
 *
 * Notes for the evaluator (Jinja semantics the shape alone does not say):
 *  - TEXT is final: trim_blocks, lstrip_blocks and -/+ are already applied.
 *  - {{ a, b }} prints a TUPLE, i.e. Python's "(1, 2)".
 *  - FOR: the filter tests each item when the loop asks for the next one
 *    (a generator), so loop.index/length/last count only the items that
 *    pass; orelse runs when no iteration reached the end of the body;
 *    names set in the body do not leak out (see "frames" below); a
 *    recursive loop's body may call loop(x).
 *  - MACRO defaults are evaluated at call time, inside the macro; a macro
 *    body also sees `caller`, `varargs` and `kwargs` when it uses them.
 *    CALL_BLOCK and GENERATION bodies are macros too (own scope).
 *  - SET with an NSREF target fails at run time unless the name holds a
 *    namespace() ("cannot assign attribute on non-namespace object").
 *  - COND without orelse yields an Undefined when the test is false.
 *  - A TUPLE index holding a SLICE (x[1:2, 3]) only compiles where Jinja
 *    folds it away (a literal object): it evaluates to an Undefined.
 *  - INT with big set: Python ints are unbounded; `lit` is the literal as
 *    written (maybe 0x/0o/0b, with _), never negative (-5 is NEG(5)).
 *  - STR may contain NUL bytes (escapes like \x00). */
#ifndef TALLY_TMPL_AST_H
#define TALLY_TMPL_AST_H

#include "../base/base.h"
#include "../base/buf.h"

typedef struct tmpl_node tmpl_node;
typedef struct tmpl_prog tmpl_prog;
typedef struct tmpl_frame tmpl_frame;

typedef enum tmpl_kind {
    /* ---- statements: the items of a body ---- */
    TMPL_TEXT = 1,      /* u.text: literal template data, already stripped by
                           trim_blocks/lstrip_blocks/-/+ exactly as Jinja does;
                           never empty */
    TMPL_OUTPUT,        /* u.expr: {{ expr }}, and each expression of {% print a, b %} */
    TMPL_IF,            /* u.if_ */
    TMPL_FOR,           /* u.for_ */
    TMPL_SET,           /* u.set: {% set target = value %} */
    TMPL_SET_BLOCK,     /* u.setblock: {% set target | filter %}body{% endset %} */
    TMPL_MACRO,         /* u.macro (call is NULL) */
    TMPL_CALL_BLOCK,    /* u.macro (name empty): {% call(params) call %}body{% endcall %};
                           the body is an anonymous macro passed as `caller` */
    TMPL_FILTER_BLOCK,  /* u.fblock: {% filter f|g(x) %}body{% endfilter %} */
    TMPL_GENERATION,    /* u.fblock (filter NULL): transformers' {% generation %};
                           Jinja runs the body as a call block's caller, so it is
                           a macro scope: sets inside do not leak out and
                           break/continue inside cannot reach an outer loop */
    TMPL_BREAK,         /* loopcontrols extension */
    TMPL_CONTINUE,
    TMPL_WITH,          /* u.with: {% with a = 1, b = 2 %}body{% endwith %} */
    TMPL_AUTOESCAPE,    /* u.autoescape: {% autoescape expr %}body{% endautoescape %}
                           (a new scope, like with) */
    TMPL_BLOCK,         /* u.block: {% block name [scoped] [required] %} */
    TMPL_EXTENDS,       /* u.load: {% extends expr %} */
    TMPL_INCLUDE,       /* u.load: {% include expr [ignore missing] [with|without context] %} */
    TMPL_IMPORT,        /* u.load: {% import expr as name [with|without context] %} */
    TMPL_FROM_IMPORT,   /* u.load: {% from expr import a, b as c [with|without context] %} */

    /* ---- expressions ---- */
    TMPL_NONE,          /* none / None */
    TMPL_BOOL,          /* u.b: true/false/True/False */
    TMPL_INT,           /* u.i */
    TMPL_FLOAT,         /* u.f */
    TMPL_STR,           /* u.text: escapes decoded, adjacent literals joined */
    TMPL_NAME,          /* u.name; op = TMPL_CTX_LOAD/STORE/PARAM */
    TMPL_NSREF,         /* u.nsref: ns.attr as a {% set %} target */
    TMPL_TUPLE,         /* u.items; op = ctx as for NAME when a target */
    TMPL_LIST,          /* u.items */
    TMPL_DICT,          /* u.dict */
    TMPL_GETATTR,       /* u.getattr: obj.attr */
    TMPL_GETITEM,       /* u.getitem: obj[index]; obj.0 gives an INT index */
    TMPL_SLICE,         /* u.slice: only as a GETITEM index or an item of a
                           TUPLE index (x[a:b, c]); omitted parts are NULL */
    TMPL_CALL,          /* u.call: callee(args) */
    TMPL_FILTER,        /* u.filter: arg | name(args); arg NULL inside filter
                           blocks and set blocks (it is the captured body) */
    TMPL_TEST,          /* u.filter: arg is name(args); `is not` is NOT(TEST) */
    TMPL_NOT,           /* u.operand */
    TMPL_NEG,           /* u.operand: -x */
    TMPL_POS,           /* u.operand: +x */
    TMPL_BINOP,         /* u.bin; op = TMPL_OP_ADD..TMPL_OP_POW */
    TMPL_AND,           /* u.bin: short-circuit, value of the deciding operand */
    TMPL_OR,            /* u.bin */
    TMPL_CONCAT,        /* u.items: a ~ b ~ c (each converted to str) */
    TMPL_COMPARE,       /* u.cmp: a < b <= c chained as in Python */
    TMPL_COND,          /* u.cond: then if test else orelse (orelse may be NULL:
                           Jinja then yields an Undefined) */
    TMPL_KIND_COUNT
} tmpl_kind;

/* Operators: arithmetic in BINOP, comparisons in COMPARE. */
typedef enum tmpl_op {
    TMPL_OP_ADD = 1, TMPL_OP_SUB, TMPL_OP_MUL, TMPL_OP_DIV, TMPL_OP_FLOORDIV,
    TMPL_OP_MOD, TMPL_OP_POW,
    TMPL_OP_EQ, TMPL_OP_NE, TMPL_OP_LT, TMPL_OP_LE, TMPL_OP_GT, TMPL_OP_GE,
    TMPL_OP_IN, TMPL_OP_NOTIN,
} tmpl_op;

/* Context of a NAME or TUPLE (node.op): read, assigned ({% set %}, for
 * targets), or a macro / call-block / with parameter. */
enum { TMPL_CTX_LOAD = 0, TMPL_CTX_STORE = 1, TMPL_CTX_PARAM = 2 };

/* Jinja2 3.1.2's built-in filters (jinja2.filters.FILTERS; `tojson` is
 * transformers' json.dumps replacement). Aliases share an id: d = default,
 * e = escape, count = length. TMPL_FILTER_UNKNOWN marks a name Jinja does
 * not know: tmpl_compile has already rejected it where Jinja rejects it at
 * compile time, so where it survives the evaluator must fail when (and
 * only when) it runs, with Jinja's TemplateRuntimeError message
 * "No filter named 'NAME' found." */
typedef enum tmpl_filter_id {
    TMPL_FILTER_UNKNOWN = 0,
    TMPL_FILTER_ABS, TMPL_FILTER_ATTR, TMPL_FILTER_BATCH, TMPL_FILTER_CAPITALIZE,
    TMPL_FILTER_CENTER, TMPL_FILTER_DEFAULT, TMPL_FILTER_DICTSORT,
    TMPL_FILTER_ESCAPE, TMPL_FILTER_FILESIZEFORMAT, TMPL_FILTER_FIRST,
    TMPL_FILTER_FLOAT, TMPL_FILTER_FORCEESCAPE, TMPL_FILTER_FORMAT,
    TMPL_FILTER_GROUPBY, TMPL_FILTER_INDENT, TMPL_FILTER_INT, TMPL_FILTER_ITEMS,
    TMPL_FILTER_JOIN, TMPL_FILTER_LAST, TMPL_FILTER_LENGTH, TMPL_FILTER_LIST,
    TMPL_FILTER_LOWER, TMPL_FILTER_MAP, TMPL_FILTER_MAX, TMPL_FILTER_MIN,
    TMPL_FILTER_PPRINT, TMPL_FILTER_RANDOM, TMPL_FILTER_REJECT,
    TMPL_FILTER_REJECTATTR, TMPL_FILTER_REPLACE, TMPL_FILTER_REVERSE,
    TMPL_FILTER_ROUND, TMPL_FILTER_SAFE, TMPL_FILTER_SELECT,
    TMPL_FILTER_SELECTATTR, TMPL_FILTER_SLICE, TMPL_FILTER_SORT,
    TMPL_FILTER_STRING, TMPL_FILTER_STRIPTAGS, TMPL_FILTER_SUM,
    TMPL_FILTER_TITLE, TMPL_FILTER_TOJSON, TMPL_FILTER_TRIM,
    TMPL_FILTER_TRUNCATE, TMPL_FILTER_UNIQUE, TMPL_FILTER_UPPER,
    TMPL_FILTER_URLENCODE, TMPL_FILTER_URLIZE, TMPL_FILTER_WORDCOUNT,
    TMPL_FILTER_WORDWRAP, TMPL_FILTER_XMLATTR,
    TMPL_FILTER_COUNT
} tmpl_filter_id;

/* Jinja2 3.1.2's built-in tests (jinja2.tests.TESTS). Aliases share an id:
 * == eq equalto; != ne; < lt lessthan; <= le; > gt greaterthan; >= ge.
 * TMPL_TEST_UNKNOWN: as for filters, "No test named 'NAME' found." */
typedef enum tmpl_test_id {
    TMPL_TEST_UNKNOWN = 0,
    TMPL_TEST_BOOLEAN, TMPL_TEST_CALLABLE, TMPL_TEST_DEFINED,
    TMPL_TEST_DIVISIBLEBY, TMPL_TEST_EQ, TMPL_TEST_ESCAPED, TMPL_TEST_EVEN,
    TMPL_TEST_FALSE, TMPL_TEST_FILTER, TMPL_TEST_FLOAT, TMPL_TEST_GE,
    TMPL_TEST_GT, TMPL_TEST_IN, TMPL_TEST_INTEGER, TMPL_TEST_ITERABLE,
    TMPL_TEST_LE, TMPL_TEST_LOWER, TMPL_TEST_LT, TMPL_TEST_MAPPING,
    TMPL_TEST_NE, TMPL_TEST_NONE, TMPL_TEST_NUMBER, TMPL_TEST_ODD,
    TMPL_TEST_SAMEAS, TMPL_TEST_SEQUENCE, TMPL_TEST_STRING, TMPL_TEST_TEST,
    TMPL_TEST_TRUE, TMPL_TEST_UNDEFINED, TMPL_TEST_UPPER,
    TMPL_TEST_COUNT
} tmpl_test_id;

/* A list of nodes: a body of statements, or expression items. */
typedef struct tmpl_list {
    tmpl_node **v;
    i32         n;
} tmpl_list;

/* An identifier with its symbol: every distinct identifier string of a
 * program gets a small integer (an index into tmpl_prog.syms), so the
 * evaluator can keep variables in arrays instead of hashing names. */
typedef struct tmpl_ident {
    str s;
    i32 sym;
} tmpl_ident;

/* What a constant attribute name is on the built-in types, found when the
 * template is compiled (tmpl_getattr_meths) so that a render does not
 * search for it: the method it names on a str, dict, list and tuple (a
 * tv_meth, or TVM_NONE); whether on a dict it can only be a key (no
 * attribute of dict has that name); which attribute of `loop` it is (a
 * tv_loop_attr, or 0). */
typedef struct tmpl_attr_meths {
    u8 str, dict, list, tuple;
    u8 dict_key;
    u8 loop;
} tmpl_attr_meths;

typedef struct tmpl_kwarg {
    tmpl_ident key;
    tmpl_node *value;
} tmpl_kwarg;

/* Arguments of a call, filter or test, in Jinja's order of evaluation:
 * positional, keyword (source order), *star, **dstar. Jinja's parser
 * guarantees positionals come before keywords and *args before **kwargs. */
typedef struct tmpl_args {
    tmpl_list   pos;
    tmpl_kwarg *kw;
    i32         nkw;
    tmpl_node  *star;    /* *expr or NULL */
    tmpl_node  *dstar;   /* **expr or NULL */
} tmpl_args;


/* ---- frames: where each name lives (tmpl_frames.c) ---------------------
 * Jinja compiles a template to Python functions: the template itself, each
 * macro and call block body (and transformers' {% generation %} body, a call
 * block's), a recursive loop's body, a loop filter. A name is one Python
 * variable of one of them, `l_<level>_<name>`, chosen at compile time
 * (jinja2/idtracking.py): a loop, with, filter, set block or autoescape body
 * is a frame one level deeper in the same function, and its variables live
 * on after it as `missing`; a nested function reads its enclosing
 * functions' variables as they are when it reads them (Python closures).
 * tmpl_frames gives every function an activation of `nslots` slots, every
 * NAME (and NSREF) node its slot (tmpl_node.slot, `up` functions out) and
 * whether a `missing` there reads as an Undefined (TMPL_NAME_CHECK), and
 * every frame the instructions Jinja runs on entering it (tmpl_load); on
 * leaving it (unless `keep`) all its loads' slots become `missing`. */
typedef enum tmpl_load_action {
    TMPL_LOAD_PARAM = 1,   /* assigned by the loop, macro or with itself */
    TMPL_LOAD_RESOLVE,     /* the render variable or global named `sym`, else missing */
    TMPL_LOAD_ALIAS,       /* the value of slot `from`, `up` functions out */
    TMPL_LOAD_UNDEFINED,   /* missing */
} tmpl_load_action;

typedef struct tmpl_load {
    u16 slot;    /* in this frame's function */
    u8  action;  /* tmpl_load_action */
    u8  up;      /* ALIAS */
    i32 arg;     /* RESOLVE: the name's sym; ALIAS: the slot read */
} tmpl_load;

struct tmpl_frame {
    tmpl_load  *loads;      /* those to run on entry first (nenter), then PARAMs */
    i32         nloads, nenter;
    i32         nslots;     /* a function's first frame: its activation's size */
    bool        keep;       /* leaving does not reset (a function's own frame) */
    /* FOR: `loop`'s slot (-1 when the body never names it); the else
     * branch's frame; the filter's function; the body is a function
     * (recursive) */
    i32         loop_slot;
    tmpl_frame *orelse, *test;
    bool        function;
    /* MACRO, CALL_BLOCK (GENERATION): the slots of caller, kwargs,
     * varargs when the body reads them as Jinja's special parameters, else
     * -1; which the macro takes (TMPL_USES_*: Jinja's MacroRef.accesses_*,
     * caller even when it is a parameter) */
    i32         caller_slot, kwargs_slot, varargs_slot;
    u8          uses;
    str         qualname;   /* a function's Python __qualname__ ("root.<locals>.macro") */
    /* FOR, MACRO, CALL_BLOCK and a FOR's filter function: the time
     * budget's steps of one iteration, call or test, the nodes of the
     * subtree (tmpl_runtime_bind) */
    i32         steps;
    /* scoped BLOCK: the names visible where it is (dump_stores) and
     * their slots there, for its derived context; a FOR's filter
     * function: the slot of each name of the target, in order */
    tmpl_load  *locals;
    i32         nlocals;
};

enum { TMPL_USES_CALLER = 1, TMPL_USES_VARARGS = 2, TMPL_USES_KWARGS = 4 };

enum { TMPL_NAME_CHECK = 1,    /* tmpl_node.flags of a NAME load: missing reads as Undefined */
       TMPL_NAME_EXPORT = 2,   /* of a NAME store at the top level: also context.vars */
       TMPL_SET_REVERSED = 4,  /* of a SET of 2 or 3 names: store them last to first (CPython) */
       TMPL_MAX_SLOTS = 65535 };

struct tmpl_node {
    u8  kind;     /* tmpl_kind */
    u8  op;       /* tmpl_op for BINOP; TMPL_CTX_* for NAME and TUPLE;
                     COMPARE: 1 for `x.attr == 'str'` (or !=); GETATTR:
                     1 for `loop.<a loop attribute>`, 2 for `name.attr`
                     where attr can only be a dict's key; FILTER: 1 for
                     `x|length` without arguments */
    u16 height;   /* expressions: 1 + the tallest child (at most
                     TMPL_MAX_EXPR_DEPTH); statements: 0 */
    i32 line;     /* as Jinja2 numbers it (see the top of this file) */
    i32 col;      /* 1-based, in code points */
    /* NAME, NSREF: the variable (tmpl_frames): slot `slot` of the function
     * `up` functions out from the one the node is in; flags TMPL_NAME_* */
    u16 slot;
    u8  up;
    u8  flags;
    union {
        str        text;      /* TEXT, STR (valid UTF-8) */
        bool       b;         /* BOOL */
        struct {
            i64  v;           /* the value unless big */
            bool big;         /* does not fit i64 (Python ints are unbounded) */
            str  lit;         /* source text, e.g. "0x_ff", "1_000" */
        } i;                  /* INT */
        double     f;         /* FLOAT */
        tmpl_ident name;      /* NAME */
        struct { tmpl_ident name, attr; } nsref;
        tmpl_list  items;     /* TUPLE, LIST, CONCAT */
        struct { tmpl_node **keys, **vals; i32 n; } dict;   /* source order */
        struct { tmpl_node *obj; tmpl_ident attr; tmpl_attr_meths meths; } getattr;
        struct { tmpl_node *obj, *index; } getitem;
        struct { tmpl_node *start, *stop, *step; } slice;
        struct { tmpl_node *callee; tmpl_args args; } call;
        struct {
            tmpl_node *arg;   /* the filtered / tested value (NULL: see FILTER) */
            tmpl_ident name;  /* as written, dotted names joined: "a.b" */
            i32        id;    /* tmpl_filter_id or tmpl_test_id */
            tmpl_args  args;  /* everything after the name */
        } filter;             /* FILTER, TEST */
        tmpl_node *operand;   /* NOT, NEG, POS */
        struct { tmpl_node *l, *r; } bin;  /* BINOP, AND, OR */
        struct {
            tmpl_node  *first;
            u8         *ops;  /* tmpl_op, n of them */
            tmpl_node **rhs;  /* n operands: first ops[0] rhs[0] ops[1] rhs[1] ... */
            i32         n;
        } cmp;
        struct { tmpl_node *test, *then, *orelse; } cond;

        tmpl_node *expr;      /* OUTPUT */
        struct {
            tmpl_node *test;
            tmpl_list  body;
            tmpl_list  elifs; /* IF nodes whose elifs and orelse are empty */
            tmpl_list  orelse;
        } if_;
        struct {
            tmpl_node *target;   /* NAME or TUPLE (of NAME/TUPLE), ctx store */
            tmpl_node *iter;
            tmpl_node *filter;   /* `for x in y if cond`, or NULL */
            tmpl_list  body;
            tmpl_list  orelse;   /* runs when no item passed the filter */
            bool       recursive;
            tmpl_frame *frame;
        } for_;
        struct {
            tmpl_node *target;   /* NAME, TUPLE or NSREF */
            tmpl_node *value;    /* SET: the value (a TUPLE for `set a = 1, 2`) */
        } set;
        struct {
            tmpl_node *target;
            tmpl_node *filter;   /* FILTER chain applied to the body, or NULL */
            tmpl_list  body;
            tmpl_frame *frame;
        } setblock;
        struct {
            tmpl_ident name;     /* MACRO only */
            tmpl_list  params;   /* NAME nodes, ctx param */
            tmpl_list  defaults; /* for the last defaults.n params */
            tmpl_node *call;     /* CALL_BLOCK only: a CALL node */
            tmpl_list  body;
            tmpl_frame *frame;
        } macro;
        struct {
            tmpl_node *filter;   /* FILTER chain; its innermost arg is NULL */
            tmpl_list  body;
            tmpl_frame *frame;
        } fblock;                /* FILTER_BLOCK, GENERATION */
        struct {
            tmpl_list targets;   /* NAME/TUPLE, ctx param */
            tmpl_list values;    /* evaluated in the outer scope */
            tmpl_list body;
            tmpl_frame *frame;
        } with;
        struct { tmpl_node *value; tmpl_list body; tmpl_frame *frame; } autoescape;
        struct {
            tmpl_ident name;
            bool       scoped, required;
            tmpl_list  body;
            tmpl_frame *frame;
        } block;
        struct {
            tmpl_node  *tmpl;         /* the template name expression */
            tmpl_ident  target;       /* IMPORT: `as` name */
            tmpl_ident *names;        /* FROM_IMPORT: imported names ... */
            tmpl_ident *aliases;      /* ... and their aliases (== name if none) */
            i32         nnames;
            bool        ignore_missing, with_context;
        } load;
    } u;
};

/* A compiled template. `src` is the normalized source (newlines as "\n",
 * the one trailing newline dropped), which TEXT/STR/NAME slices point into;
 * syms[k] is the identifier with symbol k. */
enum { TMPL_NGLOBALS = 16 };   /* room for the global functions (>= TVFN_COUNT) */

struct tmpl_prog {
    tmpl_list body;
    str       src;
    str      *syms;
    i32       nsyms;
    i32      *symtab;   /* hash index of syms (open addressing: sym + 1, 0
                           empty; symcap a power of two): tmpl_sym_find */
    iz        symcap;
    /* The symbols of the global functions (indexed by tv_func,
     * tmpl_value.h), found once by tmpl_runtime_bind (-1 when the template
     * never names them). */
    i32       sym_global[TMPL_NGLOBALS];
    tmpl_frame *frame;   /* the template's own function (tmpl_frames) */
    bool      has_blocks;
};

/* ---- helpers of the compiler and the evaluator (tmpl_tree.c) ---- */

/* Calls f on each direct child of n (expressions and statements, NULL
 * ones left out) in the order of Jinja's node fields, the order find_all
 * and NodeVisitor.generic_visit follow. */
typedef void (*tmpl_visit_fn)(void *ctx, const tmpl_node *n);
void tmpl_children(const tmpl_node *n, tmpl_visit_fn f, void *ctx);

/* Filter and test names to ids (the parser's, and the evaluator's lookups
 * by name at run time: select('equalto', x), map('upper')); UNKNOWN for a
 * name Jinja does not know. */
tmpl_filter_id tmpl_filter_lookup(str name);
tmpl_test_id   tmpl_test_lookup(str name);
/* A kind's name as the dump writes it ("callblock"), "?" for none. */
const char    *tmpl_kind_name(tmpl_kind k);

/* The tree as one compact s-expression per statement, for tests and
 * debugging (tmpl_dump.c): names bare, strings quoted, an unknown filter
 * or test marked with "?", "_" for an omitted part; e.g.
 *   (if x (then (text "a\n")) (else (out (| y upper))))
 *   (for (tuple k v) (| d items) (do (out (~ k "=" v))))
 * With TMPL_DUMP_LINES every node also shows its line: (if@3 x@3 ...). */
enum { TMPL_DUMP_LINES = 1 };
void tmpl_dump(buf *b, const tmpl_list *body, unsigned flags);
void tmpl_dump_expr(buf *b, const tmpl_node *n, unsigned flags);

/* Notes for the evaluator that the compiler's contract (tmpl.h) implies:
 *  - extends/include/import/from parse as in Jinja; with no loader
 *    configured Jinja fails when one runs ("no loader for this environment
 *    specified"), so the evaluator should fail there too.
 *  - A FILTER or TEST with id 0 (unknown) survived the compile-time check
 *    because it sits under an if or inline if: fail only when it runs. */

#endif
