/* count_ops.c - token counts as the queue's work (count_ops.h). */
#include "count_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/arena.h"
#include "../chat/shapes.h"
#include "../json/json.h"

typedef struct scratch {
    count_work *w;
    arena       a;     /* the parsed payload and the shapes' values, per item */
    arena_mark  base;  /* a block kept across items: no malloc/free per item */
} scratch;

static void *ops_scratch_new(void *ctx)
{
    count_ops_ctx *c = ctx;
    scratch *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->w = count_work_new(c->model);
    if (!s->w) {
        free(s);
        return NULL;
    }
    arena_init(&s->a, 0);
    s->base = arena_reserve(&s->a, 1 << 20);
    return s;
}

static void ops_scratch_free(void *ctx, void *p)
{
    (void)ctx;
    scratch *s = p;
    if (!s)
        return;
    count_work_free(s->w);
    arena_fini(&s->a);
    free(s);
}

static void ops_work(void *ctx, void *p, const pool_item *it, pool_result *r)
{
    count_ops_ctx *c = ctx;
    scratch *s = p;
    r->state = POOL_ERROR;
    r->fallback = 0;
    r->n = 0;
    r->msg[0] = 0;
    err je = {0};
    json *v = json_parse(&s->a, it->payload, NULL, &je);
    if (!v) {
        snprintf(r->msg, sizeof r->msg, "invalid JSON: %s at byte %td", je.msg, je.off);
        goto out;
    }
    shapes_item si;
    int st = shapes_input(&s->a, v, c->want, &si, &je);
    if (st == SHAPES_ERROR) {
        snprintf(r->msg, sizeof r->msg, "%s", je.msg);
        goto out;
    }
    if (st == SHAPES_SKIP) {
        snprintf(r->msg, sizeof r->msg, "nothing to count: %s", si.skip);
        goto out;
    }
    count_result cr;
    if (count_item(s->w, &si.in, &cr) != ERR_OK) {
        snprintf(r->msg, sizeof r->msg, "%s", cr.msg);
        goto out;
    }
    r->state = POOL_DONE;
    r->n = cr.n;
    if (cr.fallback) {
        r->fallback = COUNT_OPS_FALLBACK;
        snprintf(r->msg, sizeof r->msg, "%s\t%s", cr.fallback, cr.msg);
    }
out:
    arena_restore(&s->a, s->base);
}

void count_ops_init(dq_ops *ops, count_ops_ctx *c)
{
    ops->ctx = c;
    ops->scratch_new = ops_scratch_new;
    ops->scratch_free = ops_scratch_free;
    ops->work = ops_work;
}

void count_ops_fallback_class(const pool_result *r, char *cls, iz cap)
{
    if (cap <= 0)
        return;
    cls[0] = 0;
    if (r->state != POOL_DONE || r->fallback != COUNT_OPS_FALLBACK)
        return;
    const char *tab = strchr(r->msg, '\t');
    iz n = tab ? (iz)(tab - r->msg) : (iz)strlen(r->msg);
    snprintf(cls, (size_t)cap, "%.*s", (int)n, r->msg);
}
