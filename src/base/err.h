/* err.h - the error struct every parser and loader fills: a code, a message
 * naming what was found, and where (byte offset; line and column when the
 * input has lines). Library code never prints; cli/ formats these. */
#ifndef TALLY_ERR_H
#define TALLY_ERR_H

#include "base.h"

enum {
    ERR_OK = 0,
    ERR_NOMEM,      /* an arena limit or malloc failed */
    ERR_IO,         /* the OS refused a read */
    ERR_SYNTAX,     /* malformed input (JSON, regex, template) */
    ERR_UTF8,       /* invalid UTF-8 */
    ERR_UNSUPPORTED,/* well-formed but not something we implement */
    ERR_INVALID,    /* well-formed but inconsistent (unknown token in a merge, ...) */
    ERR_LIMIT,      /* an input-driven limit was reached */
    ERR_TEMPLATE,   /* a template raised an exception (Jinja2 / Python class in hand) */
    ERR_STOPPED,    /* the caller asked to stop (a signal) */
};

enum { ERR_MSG_MAX = 512 };

typedef struct err {
    int  code;
    iz   off;        /* byte offset in the input, -1 when not applicable */
    i32  line, col;  /* 1-based; 0 when not applicable */
    char msg[ERR_MSG_MAX];
} err;

/* Sets code, offset and a printf-formatted message (truncated to fit).
 * `e` may be NULL, then nothing happens. Returns `code`. */
int err_set(err *e, int code, iz off, const char *fmt, ...) PRINTF_LIKE(4, 5);
/* Prepends "prefix: " to the message already in `e`. */
void err_prefix(err *e, const char *fmt, ...) PRINTF_LIKE(2, 3);
const char *err_code_name(int code);

#endif
