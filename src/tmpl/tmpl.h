/* tmpl.h - the template front end: compile a chat template's source into a
 * syntax tree (tmpl_ast.h) exactly as Jinja2 3.1 does in the environment
 * transformers builds for apply_chat_template: {{ }} {% %} {# #},
 * trim_blocks and lstrip_blocks on, keep_trailing_newline off, `-`/`+`
 * whitespace control, the loopcontrols extension (break, continue) and
 * transformers' {% generation %} tag; line statements off, `do` unknown.
 * Depends on base/ only.
 *
 * A template compiles here exactly when Jinja2's Environment.from_string
 * succeeds, and fails with Jinja's message and line otherwise: lexer and
 * parser errors (TemplateSyntaxError), the code generator's checks
 * (TemplateAssertionError: unknown filter or test outside an if, assigning
 * `loop` in a for loop, a block defined twice, ...) and the errors Python
 * raises on the generated code (SyntaxError: break outside a loop, a
 * repeated keyword argument, a repeated macro parameter). Exceptions are
 * listed under "Differences" at the end of this file. */
#ifndef TALLY_TMPL_H
#define TALLY_TMPL_H

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/err.h"
#include "../json/json.h"
#include "tmpl_ast.h"

/* Input-driven limits, each with its own clean error (ERR_LIMIT). Jinja2
 * itself (CPython's recursion and nesting limits) gives up earlier on all
 * three nestings: about 80 nested parentheses, 20 nested for loops, 100
 * nested ifs, 200 chained binary operators or filters. */
enum {
    TMPL_MAX_SOURCE     = 4 << 20, /* bytes of template source */
    TMPL_MAX_NEST       = 100,     /* statements nested in statements */
    TMPL_MAX_EXPR_DEPTH = 256,     /* expression nesting and tree height */
};

/* Detail of a failed compile, for messages that match Jinja's. */
typedef struct tmpl_diag {
    /* The Python exception Jinja2 raises for this input:
     * "TemplateSyntaxError", "TemplateAssertionError", "SyntaxError" or
     * "AssertionError" (a name Jinja's compiler cannot resolve);
     * NULL when the failure is ours alone (ERR_LIMIT, ERR_UNSUPPORTED,
     * ERR_UTF8, ERR_NOMEM). mlcommons records "<kind>: <e.msg>". */
    const char *kind;
    /* The source text of the token the error was found at, cut at a line
     * end and to fit; "" at the end of the template. */
    char near[48];
} tmpl_diag;

/* Compiles `src` (UTF-8; CR LF and CR count as newlines, as in Jinja).
 * The tree and a normalized copy of the source go into `a`; `src` need not
 * outlive the call. Returns NULL on failure and fills `e` (may be NULL):
 * code ERR_SYNTAX for everything Jinja rejects, e->msg exactly Jinja's
 * message (e.g. "Encountered unknown tag 'foo'."), e->line Jinja's line
 * number, e->col (1-based, code points) and e->off (bytes into `src`) the
 * position of the token the error was found at. `d` (may be NULL) gets
 * the detail above. Out of memory in `a` (its limit) is ERR_NOMEM; a jump
 * target set in a->oom is left alone. Thread-safe; no global state. */
tmpl_prog *tmpl_compile(arena *a, str src, err *e, tmpl_diag *d);

/* "name:line:col: msg (near 'tok')", the house error form. */
void tmpl_format_error(buf *b, const char *name, const err *e, const tmpl_diag *d);

/* Filter and test names to ids (tmpl_ast.h), for the evaluator's lookups by
 * name at run time (select('equalto', x), map('upper')). */
tmpl_filter_id tmpl_filter_lookup(str name);
tmpl_test_id   tmpl_test_lookup(str name);
const char    *tmpl_kind_name(tmpl_kind k);
/* Symbol of an identifier in `p` (the evaluator's render variables), or -1
 * when the template never mentions it. */
i32 tmpl_sym_find(const tmpl_prog *p, str name);

/* The tree as one compact s-expression per statement, for tests and
 * debugging: names bare, strings quoted, an unknown filter or test marked
 * with "?", "_" for an omitted part; e.g.
 *   (if x (then (text "a\n")) (else (out (| y upper))))
 *   (for (tuple k v) (| d items) (do (out (~ k "=" v))))
 * With TMPL_DUMP_LINES every node also shows its line: (if@3 x@3 ...). */
enum { TMPL_DUMP_LINES = 1 };
void tmpl_dump(buf *b, const tmpl_list *body, unsigned flags);
void tmpl_dump_expr(buf *b, const tmpl_node *n, unsigned flags);

/* ---- Rendering ---- */

/* A variable of a render: its name and a JSON value (objects become
 * dicts keeping key order, numbers keep int vs float and big ints). When a
 * name repeats, the later one wins (kwargs over special tokens). `sym` may
 * carry what tmpl_sym_find said of the name for this program, found once
 * by a caller that renders it many times: 1 + the symbol, or -1 when the
 * template never names it; 0 (the default) has tmpl_render look it up. */
typedef struct tmpl_var {
    str         name;
    const json *value;
    i32         sym;
} tmpl_var;

typedef struct tmpl_render_opts {
    i64 now;         /* strftime_now's clock, seconds since the epoch (UTC) */
    iz  max_output;  /* bytes; 0 = TMPL_MAX_OUTPUT */
    /* The render's time budget: an absolute time on os_now()'s clock
     * (src/base/os.h), 0 for none. The render counts its work (loop
     * iterations, statements, macro calls, and the items or bytes that
     * filters, methods and operators go through) and reads the clock
     * every few thousand steps, so no template runs for long past it;
     * then it fails with ERR_LIMIT, no exception class, and the message
     * "the render ran past its time budget" (the caller adds the
     * seconds). Without a deadline the clock is never read. */
    double deadline;
    buf *tmp;        /* NULL, or a buffer of the caller's that renders build
                        strings in and leave their memory to, so that the
                        next render needs no allocation for it (the caller
                        frees it); its contents mean nothing */
} tmpl_render_opts;

/* What a failed render raised. */
typedef struct tmpl_error {
    /* The Python exception class Jinja2 raises ("UndefinedError",
     * "TypeError", "TemplateError" from raise_exception, "SecurityError",
     * "TemplateRuntimeError", "RecursionError", "ValueError", ...), or NULL
     * when the failure is ours (a limit: ERR_LIMIT; something we do not
     * implement: ERR_UNSUPPORTED; out of memory: ERR_NOMEM). */
    const char *exc;
    int  code;       /* ERR_TEMPLATE with exc set, else the ERR_* above */
    i32  line;       /* template line being run, 0 if unknown */
    char msg[ERR_MSG_MAX];   /* the exception's message (Python's text) */
} tmpl_error;

/* Renders `p` with the variables `vars` into `out` (appended). Everything
 * temporary goes into `scratch`, which is restored before returning (the
 * caller may also reset it). Globals: range, dict, namespace, cycler,
 * joiner, lipsum, raise_exception, strftime_now. Returns ERR_OK or the
 * error's code with `e` filled; on error `out` is truncated back to its
 * length at the call. The limits (TMPL_MAX_OUTPUT and the others of the
 * evaluator, `o->deadline`, the scratch arena's own limit) fail with
 * ERR_LIMIT or ERR_NOMEM and a message naming the limit. Thread-safe: `p`
 * is only read. */
int tmpl_render(const tmpl_prog *p, const tmpl_var *vars, i32 nvars,
                const tmpl_render_opts *o, arena *scratch, buf *out,
                tmpl_error *e);

/* ---- The lexer, exposed for tests and tools ---- */

/* Jinja's source preparation: every "\r\n", "\r" and "\n" becomes "\n" and
 * the last one is dropped if the source ends with it. Allocates in `a`. */
str tmpl_normalize(arena *a, str src);

typedef enum tmpl_tok_kind {
    TMPL_TOK_EOF = 0,
    TMPL_TOK_ERROR,          /* a lexer error, raised when the parser reaches it */
    TMPL_TOK_DATA,
    TMPL_TOK_VAR_BEGIN, TMPL_TOK_VAR_END,
    TMPL_TOK_BLOCK_BEGIN, TMPL_TOK_BLOCK_END,
    TMPL_TOK_NAME, TMPL_TOK_STRING, TMPL_TOK_INTEGER, TMPL_TOK_FLOAT,
    /* operators */
    TMPL_TOK_ADD, TMPL_TOK_SUB, TMPL_TOK_MUL, TMPL_TOK_DIV, TMPL_TOK_FLOORDIV,
    TMPL_TOK_MOD, TMPL_TOK_POW, TMPL_TOK_TILDE,
    TMPL_TOK_LBRACKET, TMPL_TOK_RBRACKET, TMPL_TOK_LPAREN, TMPL_TOK_RPAREN,
    TMPL_TOK_LBRACE, TMPL_TOK_RBRACE,
    TMPL_TOK_EQ, TMPL_TOK_NE, TMPL_TOK_GT, TMPL_TOK_GTEQ, TMPL_TOK_LT, TMPL_TOK_LTEQ,
    TMPL_TOK_ASSIGN, TMPL_TOK_DOT, TMPL_TOK_COLON, TMPL_TOK_PIPE, TMPL_TOK_COMMA,
    TMPL_TOK_SEMICOLON,
    TMPL_TOK_KIND_COUNT
} tmpl_tok_kind;

/* One token of Jinja's filtered stream (what its parser sees: no
 * whitespace, comments or raw markers, no empty data). */
typedef struct tmpl_tok {
    u8   kind;
    bool big;       /* INTEGER beyond i64 */
    i32  line;      /* Jinja's lineno: the line the token starts on, except
                       that EOF takes the last token's (as Jinja's does) */
    i32  col;       /* 1-based, code points */
    iz   off, len;  /* span in the normalized source */
    union {
        str    s;   /* DATA, NAME: a slice of the source; STRING: the
                       decoded value (a source slice when nothing was
                       escaped, else in the lexer's arena) */
        i64    i;   /* INTEGER */
        double f;   /* FLOAT */
    } v;
} tmpl_tok;

typedef struct tmpl_toks {
    tmpl_tok *v;    /* ends with one EOF or ERROR token */
    iz        n;
    err       error;    /* the lexer error an ERROR token stands for: ERR_SYNTAX
                           (Jinja's), ERR_UNSUPPORTED or ERR_UTF8 (ours) */
} tmpl_toks;

/* Tokenizes normalized source (tmpl_normalize's output) into `a`. Lexer
 * errors do not fail the call: Jinja's lexer runs lazily, so a parse error
 * before the bad spot wins; the stream ends with an ERROR token instead.
 * Returns ERR_OK, or ERR_NOMEM when `a` runs out. */
int tmpl_lex(arena *a, str src, tmpl_toks *out);
const char *tmpl_tok_kind_name(tmpl_tok_kind k);

/* Differences from Jinja2. Everything here fails cleanly; nothing that
 * Jinja rejects is accepted except where a limit is named.
 *  - Identifiers are ASCII. A non-ASCII character outside strings in a tag
 *    is ERR_UNSUPPORTED (Jinja accepts Unicode letters in names and
 *    rejects other characters with "unexpected char").
 *  - "\N{NAME}" escapes in string literals and escapes of lone surrogates
 *    ("\ud800") are ERR_UNSUPPORTED (no name table; our strings are UTF-8).
 *  - Jinja's optimizer folds constant subexpressions before its checks, so
 *    e.g. `true or x|nosuch` compiles. We model that folding for literals,
 *    subscripts, known filters and tests and short-circuits; an expression
 *    of literals that Python fails to evaluate (`none is divisibleby 3`)
 *    can still decide differently whether an error hidden inside it (an
 *    unknown filter, a slice inside a tuple subscript, an unhashable dict
 *    key) is raised at compile time, or which of two such errors comes
 *    first. About 6 in 100,000 random templates disagree this way
 *    (tests/data/tmpl_parse/differential.py); no real template does.
 *  - The limits above (CPython's own recursion and nesting limits, which
 *    make Jinja fail somewhat earlier, are not emulated), and one CPython
 *    detail: `{% print %}` without arguments in a template with an extends
 *    below the top level makes Jinja generate an empty Python block.
 *  - Errors Python raises on the generated code (kind "SyntaxError" or
 *    "TypeError") carry the template line of the offending node and the
 *    parameter name as written, where Python reports a line of the
 *    generated code and a mangled name; the message text otherwise
 *    matches ("invalid syntax" may read differently in CPython, e.g.
 *    "expected 'else' after 'if' expression").
 *
 * For the evaluator (see also tmpl_ast.h):
 *  - extends/include/import/from parse as in Jinja; with no loader
 *    configured Jinja fails when one runs ("no loader for this environment
 *    specified"), so the evaluator should fail there too.
 *  - A FILTER or TEST with id 0 (unknown) survived the compile-time check
 *    because it sits under an if or inline if: fail only when it runs. */

#endif
