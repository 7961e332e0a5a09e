/* fuzz_tmpl.c - libFuzzer target for the template evaluator: the input is
 * a template source, a line "----", and a JSON object whose members become
 * the render's variables (no separator: the whole input is the template,
 * with no variables). Whatever compiles must render or fail cleanly: an
 * error with a code and a message (an exception class only for
 * ERR_TEMPLATE), the output within its limit and left empty on failure,
 * and the same result twice. Small limits keep every run short. */
#include <stdio.h>
#include <stdlib.h>
#include "../src/tmpl/tmpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
    FUZZ_ARENA_LIMIT = 64 << 20,   /* bytes of one arena (compile, render) */
    FUZZ_MAX_OUTPUT  = 1 << 20,    /* bytes of one rendering */
    FUZZ_MAX_VARS    = 64,
};

static const char sep[] = "\n----\n";

static void render(const tmpl_prog *p, const tmpl_var *vars, i32 n, buf *out, tmpl_error *te, int *rc)
{
    arena scratch;
    arena_init(&scratch, FUZZ_ARENA_LIMIT);
    /* A fixed clock keeps strftime_now deterministic. */
    tmpl_render_opts o = {.now = 1736942400, .max_output = FUZZ_MAX_OUTPUT};
    *rc = tmpl_render(p, vars, n, &o, &scratch, out, te);
    arena_fini(&scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    str in = str_from(data, (iz)size), src = in, ctx = {0};
    for (iz i = 0; i + lengthof(sep) <= in.len; i++)
        if (!memcmp(in.s + i, sep, (size_t)lengthof(sep))) {
            src = str_cut(in, 0, i);
            ctx = str_cut(in, i + lengthof(sep), in.len);
            break;
        }
    arena a;
    arena_init(&a, FUZZ_ARENA_LIMIT);
    err e;
    tmpl_prog *p = tmpl_compile(&a, src, &e, NULL);
    if (!p) {
        arena_fini(&a);
        return 0;
    }
    tmpl_var vars[FUZZ_MAX_VARS];
    i32 nv = 0;
    if (ctx.len) {
        json *v = json_parse(&a, ctx, NULL, &e);
        if (v && v->type == JSON_OBJ)
            for (iz k = 0; k < v->u.obj.n && nv < FUZZ_MAX_VARS; k++) {
                vars[nv].name = v->u.obj.members[k].key;
                vars[nv].value = &v->u.obj.members[k].val;
                vars[nv].sym = 0;
                nv++;
            }
    }
    buf o1 = {0}, o2 = {0};
    tmpl_error e1, e2;
    int rc1, rc2;
    render(p, vars, nv, &o1, &e1, &rc1);
    render(p, vars, nv, &o2, &e2, &rc2);
    if (rc1 != rc2 || o1.failed != o2.failed || !str_eq(buf_view(&o1), buf_view(&o2)))
        __builtin_trap();
    if (rc1 == ERR_OK) {
        if (o1.len > FUZZ_MAX_OUTPUT)
            __builtin_trap();
    } else {
        /* raise_exception('') is an exception with an empty message; our
         * own failures always say what happened. */
        if (o1.len != 0 || e1.code != rc1 || (!e1.exc && !e1.msg[0]))
            __builtin_trap();
        if ((e1.exc != NULL) != (rc1 == ERR_TEMPLATE))
            __builtin_trap();
        if (e1.exc && (!e2.exc || strcmp(e1.exc, e2.exc) || strcmp(e1.msg, e2.msg)))
            __builtin_trap();
    }
    buf_free(&o1);
    buf_free(&o2);
    arena_fini(&a);
    return 0;
}
