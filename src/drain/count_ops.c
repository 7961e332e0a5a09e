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
    buf         label; /* the id's JSON text */
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
    buf_free(&s->label);
    free(s);
}

/* Writes the id into r->label; false when it does not fit. */
static bool set_label(scratch *s, const json *id, pool_result *r)
{
    r->label[0] = 0;
    if (!id)
        return true;
    s->label.len = 0;
    json_write(&s->label, id);
    if (s->label.failed || s->label.len >= POOL_LABEL_MAX)
        return false;
    memcpy(r->label, s->label.data, (size_t)s->label.len);
    r->label[s->label.len] = 0;
    return true;
}

static void ops_work(void *ctx, void *p, const pool_item *it, double deadline, pool_result *r)
{
    count_ops_ctx *c = ctx;
    scratch *s = p;
    pool_result_clear(r);
    r->state = POOL_ERROR;
    err je = {0};
    json *v = json_parse(&s->a, it->payload, NULL, &je);
    if (!v) {
        snprintf(r->msg, sizeof r->msg, "invalid JSON: %s at byte %td", je.msg, je.off);
        goto out;
    }
    shapes_item si;
    int st = c->resolve ? c->resolve(&s->a, v, c->want, it->op, &si, &je) : shapes_input(&s->a, v, c->want, &si, &je);
    if (!set_label(s, si.id, r)) {   /* shapes_input finds the id first */
        snprintf(r->msg, sizeof r->msg, "its id is longer than %d bytes of JSON", POOL_LABEL_MAX - 1);
        goto out;
    }
    if (st == SHAPES_ERROR) {
        snprintf(r->msg, sizeof r->msg, "%s", je.msg);
        goto out;
    }
    if (st == SHAPES_SKIP) {
        r->state = POOL_SKIPPED;
        snprintf(r->msg, sizeof r->msg, "%s", si.skip);
        goto out;
    }
    count_result cr;
    count_work_set_deadline(s->w, deadline);
    int rc = count_item(s->w, &si.in, &cr);
    if (rc == ERR_STOPPED) {
        r->state = POOL_PENDING;
        goto out;
    }
    if (rc != ERR_OK) {
        snprintf(r->msg, sizeof r->msg, "%s", cr.msg);
        goto out;
    }
    r->state = POOL_DONE;
    r->kind = (u8)si.in.kind;
    r->op = si.metric;
    r->flags = cr.tools_unread ? COUNT_OPS_TOOLS_UNREAD : 0;
    r->n = cr.n;
    if (cr.fallback) {
        snprintf(r->cls, sizeof r->cls, "%s", cr.fallback);
        snprintf(r->msg, sizeof r->msg, "%s", cr.msg);
    }
out:
    arena_restore(&s->a, s->base);
}

bool count_ops_label(const count_ops_ctx *c, str payload, buf *out)
{
    arena a;
    arena_init(&a, 0);
    err je = {0};
    json *v = json_parse(&a, payload, NULL, &je);
    shapes_item si = {0};
    if (v && c->resolve)
        c->resolve(&a, v, SHAPES_AUTO, 0, &si, &je);
    else if (v)
        shapes_input(&a, v, SHAPES_AUTO, &si, &je);
    bool found = si.id != NULL;
    if (found)
        json_write(out, si.id);
    arena_fini(&a);
    return found;
}

void count_ops_init(dq_ops *ops, count_ops_ctx *c)
{
    ops->ctx = c;
    ops->scratch_new = ops_scratch_new;
    ops->scratch_free = ops_scratch_free;
    ops->work = ops_work;
}
