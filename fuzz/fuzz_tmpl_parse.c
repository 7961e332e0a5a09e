/* fuzz_tmpl_parse.c - libFuzzer target for the template front end: any
 * bytes compile or fail with a clean error (a message, a position inside
 * the input, Jinja's exception kind for syntax errors); what compiles can
 * be dumped, and compiling is deterministic. The lexer also runs alone on
 * the raw bytes, invalid UTF-8 and unnormalized newlines included. */
#include <stdio.h>
#include <stdlib.h>
#include "../src/tmpl/tmpl.h"
#include "../src/tmpl/tmpl_ast.h"
#include "../src/tmpl/tmpl_lex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tokens(const tmpl_toks *t, iz size)
{
    if (t->n < 1)
        __builtin_trap();
    u8 last = t->v[t->n - 1].kind;
    if (last != TMPL_TOK_EOF && last != TMPL_TOK_ERROR)
        __builtin_trap();
    iz prev = 0;
    for (iz i = 0; i < t->n; i++) {
        const tmpl_tok *k = &t->v[i];
        if (k->off < prev || k->off > size || k->len < 0 || k->off + k->len > size || k->line < 1 || k->col < 1)
            __builtin_trap();
        if (k->kind == TMPL_TOK_ERROR && (t->error.code == ERR_OK || !t->error.msg[0]))
            __builtin_trap();
        prev = k->off;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena a;
    arena_init(&a, 64 << 20);
    str src = str_from(data, (iz)size);

    tmpl_toks t;
    if (tmpl_lex(&a, src, &t) == ERR_OK)
        check_tokens(&t, (iz)size);

    err e;
    tmpl_diag d;
    tmpl_prog *p = tmpl_compile(&a, src, &e, &d);
    if (!p) {
        if (e.code == ERR_OK || !e.msg[0] || e.off < -1 || e.off > (iz)size || e.line < 0)
            __builtin_trap();
        if (e.code == ERR_SYNTAX && !d.kind)
            __builtin_trap();
    } else {
        buf b1 = {0}, b2 = {0};
        tmpl_dump(&b1, &p->body, TMPL_DUMP_LINES);
        arena a2;
        arena_init(&a2, 64 << 20);
        tmpl_prog *q = tmpl_compile(&a2, src, &e, NULL);
        if (!q)
            __builtin_trap();
        tmpl_dump(&b2, &q->body, TMPL_DUMP_LINES);
        if (b1.failed || !str_eq(buf_view(&b1), buf_view(&b2)))
            __builtin_trap();
        buf_free(&b1);
        buf_free(&b2);
        arena_fini(&a2);
    }
    arena_fini(&a);
    return 0;
}
