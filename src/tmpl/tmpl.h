/* tmpl.h - the template engine as src/chat/ uses it: compile a chat
 * template's source exactly as Jinja2 3.1 does in the environment
 * transformers builds for apply_chat_template ({{ }} {% %} {# #},
 * trim_blocks and lstrip_blocks on, keep_trailing_newline off, `-`/`+`
 * whitespace control, the loopcontrols extension (break, continue) and
 * transformers' {% generation %} tag; line statements off, `do` unknown),
 * then render it over JSON variables as Jinja's generated code runs in the
 * immutable sandbox. The tree (tmpl_ast.h), the lexer (tmpl_lex.h), the
 * compiler's parts (tmpl_front.h) and the runtime (tmpl_value.h) are
 * internal to src/tmpl/. Depends on base/ and json/ only.
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

/* Input-driven limits, each with its own clean error (ERR_LIMIT). Jinja2
 * itself (CPython's recursion and nesting limits) gives up earlier on all
 * three nestings: about 80 nested parentheses, 20 nested for loops, 100
 * nested ifs, 200 chained binary operators or filters. */
enum {
    TMPL_MAX_SOURCE     = 4 << 20, /* bytes of template source */
    TMPL_MAX_NEST       = 100,     /* statements nested in statements */
    TMPL_MAX_EXPR_DEPTH = 256,     /* expression nesting and tree height */
};

/* A render's limits: RecursionError past the call depth (as Python's own
 * limit gives on infinite recursion), ERR_LIMIT past the others; and the
 * time budget of tmpl_render_opts. */
enum {
    TMPL_MAX_CALL_DEPTH = 400,        /* nested macro calls / recursive loops */
    TMPL_MAX_ITERATIONS = 10000000,   /* loop iterations of one render */
    TMPL_MAX_OUTPUT     = 64 << 20,   /* bytes of one rendering and of any string */
};

/* A compiled template (its tree: tmpl_ast.h). Read-only once compiled:
 * share it between threads and forked workers freely. */
typedef struct tmpl_prog tmpl_prog;

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

/* Symbol of an identifier in `p` (the evaluator's render variables), or -1
 * when the template never mentions it. */
i32 tmpl_sym_find(const tmpl_prog *p, str name);

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
 *    "expected 'else' after 'if' expression"). */

#endif
