/* tmpl_compile.c - the template compiler's driver (tmpl_compile, tmpl.h):
 * normalize the source, parse it (tmpl_parse.c), check it (tmpl_check.c),
 * resolve its variables (tmpl_frames.c) and bind it to the runtime's
 * globals and attribute tables (tmpl_runtime_bind); and the errors of a
 * compile in progress at Jinja's positions (tmpl_front.h). */
#include <stdarg.h>
#include <stdio.h>
#include "tmpl_front.h"
#include "tmpl_value.h"
#include "../base/utf8.h"

/* ---- errors ---- */

/* The near text: the token's source (or up to whitespace when len < 0),
 * cut at a line end, to fit, on a character boundary. */
static void set_near(tmpl_cc *c, iz off, iz len)
{
    if (!c->d)
        return;
    iz n = 0;
    if (off >= 0 && off < c->src.len) {
        const u8 *s = c->src.s + off;
        iz avail = c->src.len - off;
        iz max = MIN(len >= 0 ? len : avail, (iz)sizeof(c->d->near) - 1);
        max = MIN(max, avail);
        while (n < max && s[n] != '\n' && (len >= 0 || (s[n] != ' ' && s[n] != '\t')))
            n++;
        if (n < avail)
            while (n > 0 && (s[n] & 0xc0) == 0x80)
                n--;
        memcpy(c->d->near, s, (size_t)n);
    }
    c->d->near[n] = 0;
}

/* Offset in the caller's source of offset `off` in the normalized one. */
static iz orig_offset(const tmpl_cc *c, iz off)
{
    iz i = 0, k = 0;
    while (k < off && i < c->orig.len) {
        if (c->orig.s[i] == '\r' && i + 1 < c->orig.len && c->orig.s[i + 1] == '\n')
            i++;
        i++;
        k++;
    }
    return i;
}

void tmpl_cc_fail(tmpl_cc *c, int code, const char *kind, i32 line, i32 col, iz off, iz len,
                  const char *msg)
{
    if (c->e) {
        c->e->code = code;
        snprintf(c->e->msg, sizeof(c->e->msg), "%s", msg);
        c->e->line = line;
        c->e->col = col;
        c->e->off = off >= 0 ? orig_offset(c, off) : -1;
    }
    if (c->d)
        c->d->kind = kind;
    set_near(c, off, len);
    longjmp(c->fail, 1);
}

iz tmpl_cc_node_offset(const tmpl_cc *c, const tmpl_node *n)
{
    iz i = 0;
    for (i32 l = 1; l < n->line && i < c->src.len; i++)
        if (c->src.s[i] == '\n')
            l++;
    for (i32 k = 1; k < n->col && i < c->src.len; k++) {
        i++;
        while (i < c->src.len && (c->src.s[i] & 0xc0) == 0x80)
            i++;
    }
    return i;
}

void tmpl_cc_fail_node(tmpl_cc *c, const char *kind, const tmpl_node *n, const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    tmpl_cc_fail(c, ERR_SYNTAX, kind, n->line, n->col, tmpl_cc_node_offset(c, n), -1, msg);
}

void tmpl_cc_oom(tmpl_cc *c)
{
    tmpl_cc_fail(c, ERR_NOMEM, NULL, 0, 0, -1, 0, "out of memory compiling the template");
}

/* ---- the driver ---- */

/* Everything between the setjmp and a failure goes through `c`, so no
 * local of this function is read after the jump. */
static tmpl_prog *compile(tmpl_cc *c, str src)
{
    if (setjmp(c->fail))
        return NULL;
    c->a->oom = &c->fail;   /* running out in either arena lands here */
    c->scratch.oom = &c->fail;
    c->src = tmpl_normalize(c->a, src);
    tmpl_prog *prog = arena_alloc(c->a, (iz)sizeof(tmpl_prog), (iz)_Alignof(tmpl_prog), 1);
    if (!prog)
        tmpl_cc_oom(c);
    prog->src = c->src;
    tmpl_parse(c, prog);   /* Jinja's lexer and parser */
    tmpl_check(c, &prog->body);   /* its code generator's checks and Python's */
    /* which variable each name is (Jinja's compiler, tmpl_frames.c) */
    const tmpl_node *bad = NULL;
    char msg[ERR_MSG_MAX];
    switch (tmpl_frames(prog, c->a, &bad, msg, sizeof msg)) {
    case ERR_OK: break;
    case ERR_SYNTAX: tmpl_cc_fail_node(c, "AssertionError", bad, "%s", msg);
    case ERR_LIMIT:
        if (bad)
            tmpl_cc_fail(c, ERR_LIMIT, NULL, bad->line, bad->col, tmpl_cc_node_offset(c, bad), -1, msg);
        tmpl_cc_fail(c, ERR_LIMIT, NULL, 0, 0, -1, 0, msg);
    default: tmpl_cc_oom(c);
    }
    tmpl_runtime_bind(prog);
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
    tmpl_cc c;
    memset(&c, 0, sizeof(c));
    c.a = a;
    c.e = e;
    c.d = d;
    c.orig = src;
    arena_init(&c.scratch, 0);
    jmp_buf *saved = a->oom;
    arena_mark mark = arena_save(a);
    tmpl_prog *prog = compile(&c, src);
    a->oom = saved;
    if (!prog) {
        arena_restore(a, mark);   /* nothing of a failed compile stays */
        if (e && e->code == ERR_OK)
            err_set(e, ERR_NOMEM, -1, "out of memory compiling the template");
        if (d)
            d->kind = e && e->code == ERR_SYNTAX ? d->kind : NULL;
    }
    arena_fini(&c.scratch);
    return prog;
}

void tmpl_format_error(buf *b, const char *name, const err *e, const tmpl_diag *d)
{
    buf_printf(b, "%s:%d:%d: %s", name, (int)e->line, (int)e->col, e->msg);
    if (d && d->near[0])
        buf_printf(b, " (near '%s')", d->near);
}
