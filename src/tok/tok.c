/* tok.c - encode and count: the pipeline of tok_internal.h run over one
 * input, with per-thread work memory (tok_work). */
#include <stdlib.h>
#include "tok_model.h"
#include "../base/utf8.h"

#define TOK_SCRATCH_BLOCK ((iz)1 << 20)   /* kept between calls */
#define TOK_SCRATCH_LIMIT ((iz)1 << 32)   /* per call: 4 GiB */

typedef struct {
    arena_mark base;
} work_extra;

tok_work *tok_work_new(const tok *t)
{
    tok_work *w = calloc(1, sizeof(*w) + sizeof(work_extra));
    if (!w)
        return NULL;
    w->t = t;
    arena_init(&w->scratch, TOK_SCRATCH_LIMIT);
    work_extra *x = (work_extra *)(w + 1);
    x->base = arena_reserve(&w->scratch, TOK_SCRATCH_BLOCK);
    return w;
}

void tok_work_free(tok_work *w)
{
    if (!w)
        return;
    tok_regex_work_fini(w);
    bpe_work_fini(w);
    free(w->ids);
    arena_fini(&w->scratch);
    free(w);
}

typedef struct {
    const tok *t;
    tok_work  *w;
    i64        count;
    bool       want_ids;
    bool       seg_at_origin;
    err       *e;
} run_ctx;

static void emit_id(run_ctx *c, u32 id)
{
    c->count++;
    if (c->want_ids) {
        tok_work *w = c->w;
        if (w->nids == w->capids) {
            iz cap = w->capids ? w->capids * 2 : 1024;
            u32 *p = realloc(w->ids, (size_t)cap * sizeof(u32));
            if (!p)
                longjmp(w->oom, 1);
            w->ids = p;
            w->capids = cap;
        }
        w->ids[w->nids++] = id;
    }
}

/* A piece of normalized text between normalized added tokens. */
static int on_normalized(void *ctx, str piece, iz off, i32 id)
{
    run_ctx *c = ctx;
    if (id >= 0) {
        emit_id(c, (u32)id);
        return 0;
    }
    const tok *t = c->t;
    tok_work *w = c->w;
    if (!t->pretok)
        return bpe_word(t, w, piece, &c->count, c->want_ids, c->e);
    arena_mark m = arena_save(&w->scratch);
    tok_pieces ps = {0};
    int rc = tok_pretok_run(t->pretok, w, piece, c->seg_at_origin && off == 0, &ps, c->e);
    for (iz k = 0; !rc && k < ps.n; k++)
        rc = bpe_word(t, w, ps.v[k], &c->count, c->want_ids, c->e);
    arena_restore(&w->scratch, m);
    return rc;
}

/* A piece of the raw text between raw (normalized=false) added tokens. */
static int on_raw(void *ctx, str piece, iz off, i32 id)
{
    run_ctx *c = ctx;
    if (id >= 0) {
        emit_id(c, (u32)id);
        return 0;
    }
    const tok *t = c->t;
    str ns = piece;
    arena_mark m = arena_save(&c->w->scratch);
    if (t->norm) {
        int rc = tok_norm_apply(t->norm, c->w, piece, &ns, c->e);
        if (rc)
            return rc;
    }
    c->seg_at_origin = off == 0;
    int rc = added_split(t, &t->norm_trie, ns, on_normalized, c);
    arena_restore(&c->w->scratch, m);
    return rc;
}

static int run(const tok *t, tok_work *w, str text, bool want_ids, i64 *n, err *e)
{
    work_extra *x = (work_extra *)(w + 1);
    arena_restore(&w->scratch, x->base);
    w->nids = 0;
    if (e)
        e->code = ERR_OK;
    iz bad = utf8_invalid_at(text);
    if (bad >= 0)
        return err_set(e, ERR_UTF8, bad, "invalid UTF-8 at byte offset %td", bad);
    run_ctx c = {t, w, 0, want_ids, false, e};
    w->scratch.oom = &w->oom;
    if (setjmp(w->oom)) {
        w->scratch.oom = NULL;
        arena_restore(&w->scratch, x->base);
        w->nids = 0;
        return err_set(e, ERR_NOMEM, -1, "out of memory");
    }
    int rc = added_split(t, &t->raw_trie, text, on_raw, &c);
    w->scratch.oom = NULL;
    if (rc)
        return rc;
    *n = c.count;
    return ERR_OK;
}

int tok_count(const tok *t, tok_work *w, str text, i64 *n, err *e)
{
    *n = 0;
    return run(t, w, text, false, n, e);
}

int tok_encode(const tok *t, tok_work *w, str text, const u32 **ids, iz *n, err *e)
{
    i64 cnt = 0;
    int rc = run(t, w, text, true, &cnt, e);
    *ids = w->ids;
    *n = rc ? 0 : w->nids;
    return rc;
}

u32 tok_vocab_size(const tok *t) { return t->nids; }

str tok_id_to_token(const tok *t, u32 id)
{
    return id < t->nids ? t->id_str[id] : (str){0};
}

bool tok_token_to_id(const tok *t, str token, u32 *id)
{
    for (iz k = 0; k < t->nadded; k++)
        if (str_eq(t->added[k].content, token)) {
            *id = t->added[k].id;
            return true;
        }
    /* The model vocabulary is keyed in the raw-byte domain for byte-level
     * tokenizers, so search the id table (debugging use only). */
    for (u32 i = 0; i < t->nids; i++)
        if (t->id_str[i].s && str_eq(t->id_str[i], token)) {
            *id = i;
            return true;
        }
    return false;
}

bool tok_is_lossless(const tok *t) { return t->lossless; }

iz tok_memory(const tok *t) { return arena_bytes(&t->perm); }

void tok_free(tok *t)
{
    if (!t)
        return;
    arena_fini(&t->perm);
    free(t);
}
