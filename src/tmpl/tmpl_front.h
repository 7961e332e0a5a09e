/* tmpl_front.h - the template compiler's parts and what they share: a
 * compile in progress and its errors (tmpl_compile.c, the driver), the
 * parser (tmpl_parse.c), the checks of Jinja's code generator and Python's
 * compiler (tmpl_check.c) and the variables of the generated code
 * (tmpl_frames.c). Internal to src/tmpl/; none of it knows the runtime. */
#ifndef TALLY_TMPL_FRONT_H
#define TALLY_TMPL_FRONT_H

#include <setjmp.h>

#include "tmpl.h"
#include "tmpl_ast.h"
#include "tmpl_lex.h"

/* A compile in progress. Every failure of a part longjmps to `fail` with
 * the error in e and d (tmpl_cc_fail); running out of either arena does
 * too (their oom is `fail` while the compile runs). */
typedef struct tmpl_cc {
    arena     *a;          /* the tree */
    arena      scratch;    /* tokens, the parser's stacks, the checks' lists */
    str        src;        /* the normalized source */
    str        orig;       /* the caller's source, for error offsets */
    err       *e;          /* may be NULL */
    tmpl_diag *d;          /* may be NULL */
    jmp_buf    fail;
} tmpl_cc;

/* Fails the compile with `code`, Jinja's exception class `kind` (NULL for
 * ours), its message, and the position: line, column and offset `off`
 * into the normalized source (-1: none) of the token the error was found
 * at, `len` its bytes (the near text; -1: up to whitespace). */
_Noreturn void tmpl_cc_fail(tmpl_cc *c, int code, const char *kind, i32 line, i32 col, iz off,
                            iz len, const char *msg);
/* The same at a node of the tree (errors found after parsing), ERR_SYNTAX. */
_Noreturn void tmpl_cc_fail_node(tmpl_cc *c, const char *kind, const tmpl_node *n, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
_Noreturn void tmpl_cc_oom(tmpl_cc *c);
/* Offset of a node's (line, col) in the normalized source. */
iz tmpl_cc_node_offset(const tmpl_cc *c, const tmpl_node *n);

/* Parses c->src (tmpl_parse.c): the tree's body into p->body and its
 * identifiers numbered into p->syms, p->nsyms and the index p->symtab,
 * p->symcap; Jinja's lexer and parser errors fail the compile. */
void tmpl_parse(tmpl_cc *c, tmpl_prog *p);

/* What Jinja's code generator and Python's compiler reject in a parsed
 * template (tmpl_check.c): the first error as they would raise it fails
 * the compile. */
void tmpl_check(tmpl_cc *c, const tmpl_list *body);

/* Resolves every name of p ("frames" in tmpl_ast.h; tmpl_frames.c),
 * allocating in a. Returns ERR_OK, or with *bad the node (maybe NULL) and
 * msg the message: ERR_SYNTAX for a name Jinja's compiler cannot resolve
 * (its AssertionError), ERR_LIMIT past TMPL_MAX_SLOTS or the work budget,
 * ERR_NOMEM. */
int tmpl_frames(tmpl_prog *p, arena *a, const tmpl_node **bad, char *msg, iz msgcap);

/* "name:line:col: msg (near 'tok')", the house error form of a failed
 * compile (tmpl_compile.c). */
void tmpl_format_error(buf *b, const char *name, const err *e, const tmpl_diag *d);

#endif
