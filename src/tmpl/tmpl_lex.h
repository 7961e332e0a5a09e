/* tmpl_lex.h - Jinja2 3.1's lexer (tmpl_lex.c) as the template compiler
 * (tmpl_compile.c, tmpl_parse.c) uses it, exposed for tests and fuzzers:
 * source normalization and the filtered token stream Jinja's parser sees.
 * Internal to src/tmpl/. Depends on base/ only. */
#ifndef TALLY_TMPL_LEX_H
#define TALLY_TMPL_LEX_H

#include "../base/arena.h"
#include "../base/err.h"

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

#endif
