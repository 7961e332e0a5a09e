/* err.c - filling and decorating error structs. */
#include <stdarg.h>
#include <stdio.h>
#include "err.h"

int err_set(err *e, int code, iz off, const char *fmt, ...)
{
    if (!e)
        return code;
    e->code = code;
    e->off = off;
    e->line = e->col = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return code;
}

void err_prefix(err *e, const char *fmt, ...)
{
    if (!e)
        return;
    char head[ERR_MSG_MAX], old[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof(head), fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof(old));
    /* Concatenate by hand: the result is cut at ERR_MSG_MAX - 1 bytes. */
    size_t n = 0;
    for (const char *parts[3] = {head, ": ", old}, **q = parts; q < parts + 3; q++)
        for (const char *c = *q; *c && n < sizeof(e->msg) - 1; c++)
            e->msg[n++] = *c;
    e->msg[n] = 0;
}

const char *err_code_name(int code)
{
    switch (code) {
    case ERR_OK:          return "ok";
    case ERR_NOMEM:       return "out of memory";
    case ERR_IO:          return "i/o error";
    case ERR_SYNTAX:      return "syntax error";
    case ERR_UTF8:        return "invalid UTF-8";
    case ERR_UNSUPPORTED: return "unsupported";
    case ERR_INVALID:     return "invalid";
    case ERR_LIMIT:       return "limit reached";
    case ERR_TEMPLATE:    return "template error";
    case ERR_STOPPED:     return "stopped";
    }
    return "unknown error";
}
