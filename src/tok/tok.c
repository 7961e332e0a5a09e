/* tok.c - encode and count: the pipeline of tok_internal.h run over one
 * input, with per-thread work memory (tok_work). */
#include <stdlib.h>
#include <string.h>
#include "tok_model.h"
#include "../base/hash.h"
#include "../base/utf8.h"

#define TOK_SCRATCH_BLOCK ((iz)1 << 20)   /* kept between calls */
#define TOK_SCRATCH_LIMIT ((iz)1 << 32)   /* per call: 4 GiB */

/* ---- the piece cache ----------------------------------------------------
 * Counting only. The tokens of a raw piece (the text between two raw added
 * tokens, e.g. a chat message between <|im_start|> and <|im_end|>) are a
 * pure function of its bytes and of whether it starts the text (a
 * Metaspace "first" prepend or an anchored normalizer sees that): on_raw
 * below looks at nothing else. Chat prompts repeat whole pieces (the next
 * prompt of a multi-turn conversation holds every message of the last),
 * so a work area remembers long pieces with their counts and counts a
 * piece seen before with one hash and one memcmp. Bounded: a direct-mapped
 * table and a byte store; when the store is full the cache starts over.
 * Exact by construction: a hit compares every byte. */
enum {
    PC_SLOTS = 4096,          /* a power of two */
    PC_MIN   = 64,            /* shorter pieces are cheap to count again */
    PC_BYTES = 16 << 20,      /* the store */
};

typedef struct pc_slot {
    u64       h;              /* 0 = empty */
    const u8 *p;
    iz        len;
    i64       n;
    bool      origin;
} pc_slot;

typedef struct {
    arena_mark base;
    bool       pc_off;        /* tok_work_set_piece_cache(w, false) */
    pc_slot   *slots;         /* NULL until first needed */
    u8        *store;
    iz         used;
    i64        hits, misses;
    pfx_store *pfx;           /* the prefix memory (prefix.c); NULL until first needed */
} work_extra;

static const pc_slot *pc_find(work_extra *x, str piece, bool origin, u64 h)
{
    if (!x->slots)
        return NULL;
    const pc_slot *sl = &x->slots[h & (PC_SLOTS - 1)];
    if (sl->h == h && sl->len == piece.len && sl->origin == origin && !memcmp(sl->p, piece.s, (size_t)piece.len))
        return sl;
    return NULL;
}

void tok_work_set_piece_cache(tok_work *w, bool on)
{
    work_extra *x = (work_extra *)(w + 1);
    x->pc_off = !on;
}

void tok_work_forget_pieces(tok_work *w)
{
    work_extra *x = (work_extra *)(w + 1);
    if (x->slots)
        memset(x->slots, 0, PC_SLOTS * sizeof *x->slots);
    x->used = 0;
    pfx_clear(x->pfx);
}

i64 tok_work_prefix_resumed(const tok_work *w)
{
    return pfx_resumed(((const work_extra *)(w + 1))->pfx);
}

iz tok_work_prefix_marks(const tok_work *w, str text, const pfx_mark **marks)
{
    const tok_regex *split = tok_pretok_one_split(w->t->pretok);
    int digits = split ? tok_regex_fast_digits(split, w) : 0;
    return pfx_marks_of(((const work_extra *)(w + 1))->pfx, text, digits, marks);
}

static void pc_put(work_extra *x, str piece, bool origin, u64 h, i64 n)
{
    if (piece.len > PC_BYTES / 4)
        return;
    if (!x->slots) {
        x->slots = calloc(PC_SLOTS, sizeof *x->slots);
        x->store = malloc(PC_BYTES);
        if (!x->slots || !x->store) {
            free(x->slots);
            free(x->store);
            x->slots = NULL;
            x->store = NULL;
            return;
        }
    }
    if (x->used + piece.len > PC_BYTES) {   /* full: start over */
        memset(x->slots, 0, PC_SLOTS * sizeof *x->slots);
        x->used = 0;
    }
    u8 *p = x->store + x->used;
    memcpy(p, piece.s, (size_t)piece.len);
    x->used += piece.len;
    x->slots[h & (PC_SLOTS - 1)] = (pc_slot){h, p, piece.len, n, origin};
}

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
    work_extra *x = (work_extra *)(w + 1);
    free(x->slots);
    free(x->store);
    pfx_free(x->pfx);
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
    bool       ascii;   /* the text is all ASCII, and so is what the normalizer makes of it */
    int        digits;  /* counting with Llama 3's or Qwen's split: tok_regex_fast_digits, else 0 */
    const tok_regex *split;   /* that split, when digits */
    err       *e;
} run_ctx;

/* Whether a piece is counted with the prefix memory (prefix.c): long
 * pieces, when counting with one of the splits it knows and the work
 * area's memory is on. The piece cache leaves such pieces to it. */
static bool remembers(const run_ctx *c, const work_extra *x, str piece)
{
    return c->digits && piece.len >= PFX_MIN && !c->want_ids && !x->pc_off;
}

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
    /* Counting with Llama 3's or Qwen's split: one loop */
    if (c->digits) {
        bool ascii = c->ascii || utf8_ascii_prefix(piece) == piece.len;
        work_extra *x = (work_extra *)(w + 1);
        if (remembers(c, x, piece) && (x->pfx || (x->pfx = pfx_new())))
            return bpe_count_split_remembered(t, w, x->pfx, c->split, piece, c->digits, ascii, &c->count, c->e);
        return bpe_count_split(t, w, c->split, piece, c->digits, ascii, &c->count, c->e);
    }
    arena_mark m = arena_save(&w->scratch);
    bpe_words bw = {t, w, &c->count, c->want_ids, c->e};
    int rc = tok_pretok_each(t->pretok, w, piece, c->seg_at_origin && off == 0, bpe_each_word, &bw, c->e);
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
    work_extra *x = (work_extra *)(c->w + 1);
    bool cache = !c->want_ids && piece.len >= PC_MIN && !x->pc_off && !remembers(c, x, piece);
    u64 h = 0;
    i64 before = c->count;
    if (cache) {
        h = (hash_str(piece) ^ (off == 0 ? 0x9e3779b97f4a7c15u : 0)) | 1;
        const pc_slot *hit = pc_find(x, piece, off == 0, h);
        if (hit) {
            x->hits++;
            c->count += hit->n;
            return 0;
        }
        x->misses++;
    }
    str ns = piece;
    arena_mark m = arena_save(&c->w->scratch);
    if (t->norm && !c->ascii) {
        int rc = tok_norm_apply(t->norm, c->w, piece, &ns, c->e);
        if (rc)
            return rc;
    }
    c->seg_at_origin = off == 0;
    int rc = added_split(t, &t->norm_trie, ns, on_normalized, c);
    arena_restore(&c->w->scratch, m);
    if (cache && rc == 0)
        pc_put(x, piece, off == 0, h, c->count - before);
    return rc;
}

static int run(const tok *t, tok_work *w, str text, bool want_ids, i64 *n, err *e)
{
    work_extra *x = (work_extra *)(w + 1);
    arena_restore(&w->scratch, x->base);
    w->nids = 0;
    if (e)
        e->code = ERR_OK;
    iz ascii = utf8_ascii_prefix(text);
    if (ascii < text.len) {
        iz bad = utf8_invalid_at(str_cut(text, ascii, text.len));
        if (bad >= 0)
            return err_set(e, ERR_UTF8, ascii + bad, "invalid UTF-8 at byte offset %td", ascii + bad);
    }
    const tok_regex *split = want_ids ? NULL : tok_pretok_one_split(t->pretok);
    run_ctx c = {t, w, 0, want_ids, false, ascii == text.len && (!t->norm || t->norm_keeps_ascii),
                 split ? tok_regex_fast_digits(split, w) : 0, split, e};
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
    bpe_lin_free(t);
    arena_fini(&t->perm);
    free(t);
}
