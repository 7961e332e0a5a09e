/* load.c - tokenizer.json -> struct tok. The JSON tree and file text live in
 * a temporary arena; everything kept is copied into t->perm, which is then
 * read-only (and shared copy-on-write by forked workers).
 *
 * Only BPE models are implemented. Anything that would change the ids and is
 * not implemented (other models, dropout, truncation, padding, unknown
 * component types) fails the load with the JSON path and byte offset. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "tok_model.h"
#include "../base/os.h"
#include "../base/utf8.h"

enum { TOK_MAX_VOCAB = 1 << 24 };

typedef struct {
    tok        *t;
    arena      *tmp;
    const char *name;
    err        *e;
} loader;

static int fail_at(loader *L, const json *at, int code, const char *path, const char *fmt, ...) PRINTF_LIKE(5, 6);

static int fail_at(loader *L, const json *at, int code, const char *path, const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    iz off = at ? at->off : -1;
    if (off >= 0)
        err_set(L->e, code, off, "%s: %s (at byte %td)", path, msg, off);
    else
        err_set(L->e, code, off, "%s: %s", path, msg);
    return code;
}

/* Components report their JSON path; make sure the byte offset is there too
 * (the component's own offset when the parser gave none). */
static int component_failed(loader *L, const json *j)
{
    if (L->e && !strstr(L->e->msg, "at byte")) {
        size_t n = strlen(L->e->msg);
        snprintf(L->e->msg + n, sizeof(L->e->msg) - n, " (at byte %td)", (iz)j->off);
        if (L->e->off < 0)
            L->e->off = j->off;
    }
    return L->e ? L->e->code : ERR_INVALID;
}

static bool get_bool(const json *obj, const char *key, bool dflt)
{
    const json *v = json_get(obj, str_cstr(key));
    return v && v->type == JSON_BOOL ? v->u.b : dflt;
}

/* An optional string field: absent or null gives false. */
static int get_opt_str(loader *L, const json *obj, const char *key, const char *path, str *out, bool *present)
{
    const json *v = json_get(obj, str_cstr(key));
    *present = false;
    if (!v || v->type == JSON_NULL)
        return ERR_OK;
    if (v->type != JSON_STR)
        return fail_at(L, v, ERR_INVALID, path, "\"%s\" must be a string or null, not %s", key, json_type_name(v->type));
    *out = v->u.s;
    *present = true;
    return ERR_OK;
}

/* Maps a token string of a byte-level vocabulary to its raw bytes. Returns
 * false when some character is not one of the 256 byte characters. */
static bool to_raw_bytes(arena *a, str s, str *out)
{
    u8 *p = NEW_NZ(a, u8, s.len + 1);
    iz n = 0, i = 0;
    while (i < s.len) {
        int b = tok_cp_to_byte(utf8_next(s.s, &i));
        if (b < 0)
            return false;
        p[n++] = (u8)b;
    }
    *out = str_from(p, n);
    return true;
}

static int load_model(loader *L, const json *model, vocab_map *orig)
{
    tok *t = L->t;
    if (!model || model->type != JSON_OBJ)
        return fail_at(L, model, ERR_INVALID, "model", "missing or not an object");
    const json *type = json_get(model, S("type"));
    if (type && type->type == JSON_STR && !str_eq(type->u.s, S("BPE")))
        return fail_at(L, type, ERR_UNSUPPORTED, "model.type", "model type \"%.*s\" is not supported (only BPE)",
                       (int)type->u.s.len, (const char *)type->u.s.s);
    const json *dropout = json_get(model, S("dropout"));
    if (dropout && dropout->type != JSON_NULL) {
        if (dropout->type != JSON_INT && dropout->type != JSON_FLOAT)
            return fail_at(L, dropout, ERR_INVALID, "model.dropout", "expected a number or null, found %s",
                           json_type_name(dropout->type));
        double p = dropout->type == JSON_INT ? (double)dropout->u.i : dropout->u.f;
        /* 0.0 behaves as no dropout upstream; anything else is random. */
        if (p != 0.0)
            return fail_at(L, dropout, ERR_UNSUPPORTED, "model.dropout", "BPE dropout %.*s is not supported (it makes ids random)",
                           (int)dropout->u.num.len, (const char *)dropout->u.num.s);
    }
    const json *vocab = json_get(model, S("vocab"));
    const json *merges = json_get(model, S("merges"));
    if (!vocab || vocab->type != JSON_OBJ)
        return fail_at(L, vocab ? vocab : model, ERR_INVALID, "model.vocab", "missing or not an object");
    if (!merges || merges->type != JSON_ARR)
        return fail_at(L, merges ? merges : model, ERR_INVALID, "model.merges", "missing or not an array");
    if (vocab->u.obj.n > TOK_MAX_VOCAB)
        return fail_at(L, vocab, ERR_LIMIT, "model.vocab", "more than %d entries", TOK_MAX_VOCAB);

    bool present;
    int rc;
    if ((rc = get_opt_str(L, model, "unk_token", "model.unk_token", &t->unk, &present)))
        return rc;
    t->has_unk = present;
    if ((rc = get_opt_str(L, model, "continuing_subword_prefix", "model.continuing_subword_prefix", &t->prefix, &present)))
        return rc;
    t->has_prefix = present;
    if ((rc = get_opt_str(L, model, "end_of_word_suffix", "model.end_of_word_suffix", &t->suffix, &present)))
        return rc;
    t->has_suffix = present;
    t->byte_fallback = get_bool(model, "byte_fallback", false);
    t->fuse_unk = get_bool(model, "fuse_unk", false);
    t->ignore_merges = get_bool(model, "ignore_merges", false);

    /* vocab: the original-domain map. Tokenizers that are not byte-level
     * use it at run time too, so its keys go to perm right away; byte-level
     * ones need it only while loading. */
    iz nv = vocab->u.obj.n;
    vocab_init(t->byte_level ? L->tmp : &t->perm, orig, nv);
    u32 max_id = 0;
    for (iz k = 0; k < nv; k++) {
        const json_member *m = &vocab->u.obj.members[k];
        if (m->val.type != JSON_INT || m->val.big || m->val.u.i < 0 || m->val.u.i >= TOK_MAX_VOCAB) {
            char path[64];
            snprintf(path, sizeof(path), "model.vocab[%td]", k);
            return fail_at(L, &m->val, ERR_INVALID, path, "token id must be an integer in 0..%d", TOK_MAX_VOCAB - 1);
        }
        vocab_put(orig, t->byte_level ? m->key : arena_strdup(&t->perm, m->key), (u32)m->val.u.i);
        if ((u32)m->val.u.i > max_id)
            max_id = (u32)m->val.u.i;
    }
    t->model_size = orig->n;
    t->nids = nv ? max_id + 1 : 0;
    return ERR_OK;
}

static int load_merges(loader *L, const json *merges, const vocab_map *orig)
{
    tok *t = L->t;
    iz nm = merges->u.arr.n;
    merge_init(&t->perm, &t->merges, nm, t->nids, false);
    iz prefix_len = t->has_prefix ? t->prefix.len : 0;
    u32 rank = 0;
    u8 *tmp = NULL;
    iz tmpcap = 0;
    for (iz k = 0; k < nm; k++) {
        const json *m = &merges->u.arr.items[k];
        str a, b;
        char path[64];
        snprintf(path, sizeof(path), "model.merges[%td]", k);
        if (m->type == JSON_STR) {
            str s = m->u.s;
            if (s.len >= 8 && memcmp(s.s, "#version", 8) == 0)
                continue;   /* a header line of merges.txt, skipped upstream */
            iz sp = -1, nsp = 0;
            for (iz i = 0; i < s.len; i++)
                if (s.s[i] == ' ') {
                    if (sp < 0)
                        sp = i;
                    nsp++;
                }
            if (nsp != 1)
                return fail_at(L, m, ERR_INVALID, path, "a merge must be two tokens separated by one space");
            a = str_cut(s, 0, sp);
            b = str_cut(s, sp + 1, s.len);
        } else if (m->type == JSON_ARR && m->u.arr.n == 2 && m->u.arr.items[0].type == JSON_STR &&
                   m->u.arr.items[1].type == JSON_STR) {
            a = m->u.arr.items[0].u.s;
            b = m->u.arr.items[1].u.s;
        } else {
            return fail_at(L, m, ERR_INVALID, path, "a merge must be \"a b\" or [\"a\", \"b\"]");
        }
        i32 ia = vocab_find(orig, a.s, a.len), ib = vocab_find(orig, b.s, b.len);
        if (ia < 0 || ib < 0) {
            str miss = ia < 0 ? a : b;
            return fail_at(L, m, ERR_INVALID, path, "merge token \"%.*s\" is not in the vocabulary", (int)miss.len, (const char *)miss.s);
        }
        if (prefix_len > b.len)
            return fail_at(L, m, ERR_INVALID, path, "merge token \"%.*s\" is shorter than the subword prefix", (int)b.len, (const char *)b.s);
        iz need = a.len + b.len - prefix_len;
        if (need > tmpcap) {
            tmpcap = need * 2 + 64;
            tmp = NEW_NZ(L->tmp, u8, tmpcap);
        }
        memcpy(tmp, a.s, (size_t)a.len);
        memcpy(tmp + a.len, b.s + prefix_len, (size_t)(b.len - prefix_len));
        i32 inew = vocab_find(orig, tmp, need);
        if (inew < 0)
            return fail_at(L, m, ERR_INVALID, path, "merged token \"%.*s\" is not in the vocabulary", (int)need, (const char *)tmp);
        merge_put(&t->merges, (u32)ia, (u32)ib, rank, (u32)inew);
        rank++;
    }
    return ERR_OK;
}

#define NO_RANK 0xffffffffu

static int cmp_u64(const void *a, const void *b)
{
    u64 x = *(const u64 *)a, y = *(const u64 *)b;
    return x < y ? -1 : x > y;
}

/* Character mode: the table of the merges of the 255 one-character tokens
 * that take part in the lowest-ranked merges (tok_model.h, char_pair), for
 * the merge loop's first lookups. */
static void build_char_pairs(loader *L)
{
    tok *t = L->t;
    const merge_map *m = &t->merges;
    u32 *first = NEW_NZ(L->tmp, u32, t->nids);   /* the lowest rank of a merge of the id, or none */
    for (u32 id = 0; id < t->nids; id++)
        first[id] = NO_RANK;
    for (iz i = 0; i <= m->mask; i++) {
        u32 a, b, rank;
        if (!merge_at(m, i, &a, &b, &rank))
            continue;
        if (rank < first[a])
            first[a] = rank;
        if (rank < first[b])
            first[b] = rank;
    }
    /* the one-character tokens, by that rank */
    u64 *cand = NEW_NZ(L->tmp, u64, t->nids);
    iz nc = 0;
    for (u32 id = 0; id < t->nids; id++) {
        str k = t->id_str[id];
        if (first[id] != NO_RANK && k.len && utf8_valid_seq(k.s, k.len) == (int)k.len)
            cand[nc++] = (u64)first[id] << 32 | id;
    }
    if (nc == 0)
        return;
    qsort(cand, (size_t)nc, sizeof(u64), cmp_u64);
    if (nc > 255)
        nc = 255;
    t->char_ix = NEW(&t->perm, u8, t->nids);
    t->char_pair = NEW(&t->perm, u32, 65536);
    u32 ids[256];
    for (iz k = 0; k < nc; k++) {
        ids[k + 1] = (u32)cand[k];
        t->char_ix[ids[k + 1]] = (u8)(k + 1);
    }
    for (iz x = 1; x <= nc; x++)
        for (iz y = 1; y <= nc; y++) {
            u32 rank;
            if (merge_find(m, ids[x], ids[y], &rank))
                t->char_pair[x << 8 | y] = rank + 1;
        }
}

/* Character mode: the cuts at runs of U+2581 (tok_model.h, seg_on), when
 * U+2581 is a token, merges are not ignored and the left tokens of the
 * merges that could join across a cut end in few characters. */
static void build_seg(tok *t)
{
    if (t->ignore_merges || !t->bmp_id || t->bmp_id[0x2581] < 0)
        return;
    const merge_map *m = &t->merges;
    for (iz i = 0; i <= m->mask; i++) {
        u32 a, b, rank;
        if (!merge_at(m, i, &a, &b, &rank))
            continue;
        str x = t->id_str[a], y = t->id_str[b];
        if (y.len < 3 || memcmp(y.s, "\xe2\x96\x81", 3) != 0)
            continue;
        if (x.len == 0)
            return;
        iz k = utf8_prev(x.s, x.len);
        u32 c = utf8_next(x.s, &k);
        if (c == 0x2581)
            continue;   /* within a run: no cut there */
        bool known = false;
        for (int j = 0; j < t->nseg_bad; j++)
            known |= t->seg_bad[j] == c;
        if (known)
            continue;
        if (t->nseg_bad == (int)countof(t->seg_bad)) {
            t->nseg_bad = 0;
            return;
        }
        t->seg_bad[t->nseg_bad++] = c;
    }
    t->seg_on = true;
}

/* The runtime vocabulary: raw-byte keys for byte-level tokenizers, the
 * original strings otherwise; and the id -> string table for decoding. */
static int build_runtime_vocab(loader *L, const vocab_map *orig)
{
    tok *t = L->t;
    if (t->byte_level)
        vocab_init(&t->perm, &t->vocab, orig->n);
    else
        t->vocab = *orig;   /* already in perm */
    /* One pass over the map's entries (a repeated key is there once, with
     * its last id). When two keys share an id, which one names the id is
     * arbitrary, as in the reference's reverse map: it matters to decode only. */
    for (iz i = 0; i <= orig->mask; i++) {
        const vocab_slot *sl = &orig->slots[i];
        if (!sl->used)
            continue;
        str key = str_from(sl->key, sl->len);
        if (!t->byte_level) {
            t->id_str[sl->id] = key;
            continue;
        }
        t->id_str[sl->id] = arena_strdup(&t->perm, key);
        str raw;
        if (to_raw_bytes(&t->perm, key, &raw))
            vocab_put(&t->vocab, raw, sl->id);
    }
    for (int b = 0; b < 256; b++) {
        u8 c = (u8)b;
        t->byte_id[b] = t->byte_level ? vocab_find(&t->vocab, &c, 1) : -1;
        char name[8];
        snprintf(name, sizeof(name), "<0x%02X>", b);
        t->fallback_id[b] = vocab_find(orig, (const u8 *)name, 6);
    }
    for (int c = 0; c < 128; c++) {
        u8 ch = (u8)c;
        t->ascii_id[c] = vocab_find(&t->vocab, &ch, 1);
    }
    if (!t->byte_level) {
        /* one lookup for a character of two or three bytes, the merge
         * loop's first step (a vocabulary probe is a cache miss) */
        t->bmp_id = NEW_NZ(&t->perm, i32, 0x10000);
        for (iz c = 0; c < 0x10000; c++)
            t->bmp_id[c] = -1;
        for (iz i = 0; i <= t->vocab.mask; i++) {
            const vocab_slot *sl = &t->vocab.slots[i];
            if (!sl->used || sl->len < 2 || sl->len > 3 || utf8_valid_seq(sl->key, sl->len) != (int)sl->len)
                continue;
            iz k = 0;
            t->bmp_id[utf8_next(sl->key, &k)] = (i32)sl->id;
        }
    }
    t->unk_id = t->has_unk ? vocab_find(orig, t->unk.s, t->unk.len) : -1;
    if (t->has_unk)
        t->unk = arena_strdup(&t->perm, t->unk);
    /* Prefix and suffix are matched in the runtime domain. */
    if (t->byte_level) {
        if (t->has_prefix && !to_raw_bytes(&t->perm, t->prefix, &t->prefix))
            return fail_at(L, NULL, ERR_UNSUPPORTED, "model.continuing_subword_prefix", "not made of byte-level characters");
        if (t->has_suffix && !to_raw_bytes(&t->perm, t->suffix, &t->suffix))
            return fail_at(L, NULL, ERR_UNSUPPORTED, "model.end_of_word_suffix", "not made of byte-level characters");
    } else {
        if (t->has_prefix)
            t->prefix = arena_strdup(&t->perm, t->prefix);
        if (t->has_suffix)
            t->suffix = arena_strdup(&t->perm, t->suffix);
    }
    /* An empty prefix or suffix changes nothing. */
    t->has_prefix = t->has_prefix && t->prefix.len > 0;
    t->has_suffix = t->has_suffix && t->suffix.len > 0;
    bool every_byte = t->byte_level && !t->has_prefix && !t->has_suffix;
    for (int b = 0; b < 256 && every_byte; b++)
        every_byte = t->byte_id[b] >= 0;
    if (every_byte) {
        /* the merge loop's first lookups, one per byte of a word, in an
         * L2-sized table instead of the merge table (a cache miss) */
        t->byte_pair = NEW(&t->perm, u32, 65536);
        for (u32 p = 0; p < 65536; p++) {
            u32 rank;
            if (merge_find(&t->merges, (u32)t->byte_id[p >> 8], (u32)t->byte_id[p & 255], &rank))
                t->byte_pair[p] = rank + 1;
        }
    }
    if (!t->byte_level && !t->has_prefix && !t->has_suffix && t->nids) {
        build_char_pairs(L);
        build_seg(t);
    }
    return ERR_OK;
}

typedef struct {
    str  content;
    bool single_word, lstrip, rstrip, normalized, special;
} raw_added;

static bool same_added(const raw_added *a, const raw_added *b)
{
    return str_eq(a->content, b->content) && a->single_word == b->single_word && a->lstrip == b->lstrip &&
           a->rstrip == b->rstrip && a->normalized == b->normalized && a->special == b->special;
}

/* Added tokens get their ids as the Rust library's add_tokens gives them:
 * the id of an earlier added token with that content, else the model's id
 * for it, else the next free id after the model vocabulary. */
static int load_added(loader *L, const json *arr, const vocab_map *orig)
{
    tok *t = L->t;
    if (!arr || arr->type == JSON_NULL)
        return ERR_OK;
    if (arr->type != JSON_ARR)
        return fail_at(L, arr, ERR_INVALID, "added_tokens", "must be an array");
    iz n = arr->u.arr.n;
    raw_added *in = NEW(L->tmp, raw_added, n + 1);
    for (iz k = 0; k < n; k++) {
        const json *o = &arr->u.arr.items[k];
        char path[64];
        snprintf(path, sizeof(path), "added_tokens[%td]", k);
        const json *c = json_get(o, S("content"));
        if (!c || c->type != JSON_STR)
            return fail_at(L, o, ERR_INVALID, path, "needs a string \"content\"");
        in[k].content = c->u.s;
        in[k].special = get_bool(o, "special", false);
        in[k].single_word = get_bool(o, "single_word", false);
        in[k].lstrip = get_bool(o, "lstrip", false);
        in[k].rstrip = get_bool(o, "rstrip", false);
        in[k].normalized = get_bool(o, "normalized", !in[k].special);
    }
    /* ids */
    u32 *ids = NEW(L->tmp, u32, n + 1);
    vocab_map amap;               /* content -> id of added tokens so far */
    vocab_init(L->tmp, &amap, n);
    u32 next_id = (u32)t->model_size;
    bool *kept = NEW(L->tmp, bool, n + 1);
    iz nkept = 0;
    for (iz k = 0; k < n; k++) {
        if (in[k].content.len == 0)
            continue;
        bool dup = false;
        for (iz j = 0; j < k && !dup; j++)
            dup = kept[j] && same_added(&in[j], &in[k]);
        if (dup)
            continue;
        i32 id = vocab_find(&amap, in[k].content.s, in[k].content.len);
        if (id < 0)
            id = vocab_find(orig, in[k].content.s, in[k].content.len);
        if (id < 0)
            id = (i32)next_id++;
        vocab_put(&amap, in[k].content, (u32)id);
        ids[k] = (u32)id;
        kept[k] = true;
        nkept++;
    }
    if (next_id > t->nids)
        t->nids = next_id;
    /* Matching order: special tokens first, then the others (the Rust
     * library keeps two lists and chains them). */
    t->added = NEW(&t->perm, added_token, nkept + 1);
    t->nadded = 0;
    for (int pass = 0; pass < 2; pass++)
        for (iz k = 0; k < n; k++) {
            if (!kept[k] || in[k].special != (pass == 0))
                continue;
            added_token *at = &t->added[t->nadded++];
            at->id = ids[k];
            at->content = arena_strdup(&t->perm, in[k].content);
            at->single_word = in[k].single_word;
            at->lstrip = in[k].lstrip;
            at->rstrip = in[k].rstrip;
            at->normalized = in[k].normalized;
            at->special = in[k].special;
            at->pattern = at->content;
        }
    return ERR_OK;
}

/* Normalized added tokens are matched in normalized text: their patterns
 * are their contents run through the normalizer. */
static int normalize_patterns(loader *L)
{
    tok *t = L->t;
    if (!t->norm)
        return ERR_OK;
    tok_work *w = tok_work_new(t);
    if (!w)
        return err_set(L->e, ERR_NOMEM, -1, "out of memory");
    int rc = ERR_OK;
    if (setjmp(w->oom)) {
        tok_work_free(w);
        return err_set(L->e, ERR_NOMEM, -1, "out of memory");
    }
    w->scratch.oom = &w->oom;
    for (iz k = 0; k < t->nadded && !rc; k++) {
        added_token *at = &t->added[k];
        if (!at->normalized)
            continue;
        str out;
        rc = tok_norm_apply(t->norm, w, at->content, &out, L->e);
        if (!rc)
            at->pattern = arena_strdup(&t->perm, out);
    }
    w->scratch.oom = NULL;
    tok_work_free(w);
    if (rc)
        err_prefix(L->e, "added_tokens");
    return rc;
}

static int load_tree(loader *L, const json *root)
{
    tok *t = L->t;
    int rc;
    if (root->type != JSON_OBJ)
        return fail_at(L, root, ERR_INVALID, "(root)", "tokenizer.json must hold an object");
    const json *trunc = json_get(root, S("truncation"));
    if (trunc && trunc->type != JSON_NULL)
        return fail_at(L, trunc, ERR_UNSUPPORTED, "truncation", "truncation is not supported (it would cut the ids)");
    const json *pad = json_get(root, S("padding"));
    if (pad && pad->type != JSON_NULL)
        return fail_at(L, pad, ERR_UNSUPPORTED, "padding", "padding is not supported (it would add ids)");

    const json *norm = json_get(root, S("normalizer"));
    if (norm && norm->type != JSON_NULL) {
        t->norm = tok_norm_parse(&t->perm, norm, "normalizer", L->e);
        if (!t->norm)
            return component_failed(L, norm);
        if (!tok_norm_changes_text(t->norm))
            t->norm = NULL;
        else
            t->norm_keeps_ascii = tok_norm_keeps_ascii(t->norm);
    }
    const json *pre = json_get(root, S("pre_tokenizer"));
    if (pre && pre->type != JSON_NULL) {
        t->pretok = tok_pretok_parse(&t->perm, pre, "pre_tokenizer", L->e);
        if (!t->pretok)
            return component_failed(L, pre);
        t->byte_level = tok_pretok_byte_level(t->pretok);
    }
    const json *dec = json_get(root, S("decoder"));
    if (dec && dec->type != JSON_NULL) {
        t->decoder = decoder_parse(&t->perm, dec, "decoder", L->e);
        if (!t->decoder)
            return component_failed(L, dec);
    }

    const json *model = json_get(root, S("model"));
    vocab_map orig;
    if ((rc = load_model(L, model, &orig)))
        return rc;
    if ((rc = load_merges(L, json_get(model, S("merges")), &orig)))
        return rc;
    if ((rc = load_added(L, json_get(root, S("added_tokens")), &orig)))
        return rc;
    /* id -> string covers model and added ids */
    t->id_str = NEW(&t->perm, str, (iz)t->nids + 1);
    if ((rc = build_runtime_vocab(L, &orig)))
        return rc;
    for (iz k = 0; k < t->nadded; k++)
        t->id_str[t->added[k].id] = t->added[k].content;
    if ((rc = normalize_patterns(L)))
        return rc;
    added_build(&t->perm, &t->raw_trie, t->added, t->nadded, false);
    added_build(&t->perm, &t->norm_trie, t->added, t->nadded, true);
    t->lossless = t->byte_level && !t->norm && !tok_pretok_changes_text(t->pretok) && !t->has_prefix && !t->has_suffix;
    return ERR_OK;
}

tok *tok_load_json(str text, const char *name, err *e)
{
    tok *volatile t = calloc(1, sizeof(*t));   /* read after longjmp */
    if (!t) {
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", name);
        return NULL;
    }
    t->lin_mu_ok = pthread_mutex_init(&t->lin_mu, NULL) == 0;
    arena tmp;
    arena_init(&t->perm, 0);
    arena_init(&tmp, 0);
    jmp_buf oom;
    if (setjmp(oom)) {
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", name);
        arena_fini(&tmp);
        tok_free(t);
        return NULL;
    }
    t->perm.oom = &oom;
    tmp.oom = &oom;
    json_opts opts = {128};  /* serde_json's recursion limit */
    err jerr = {0};
    json *root = json_parse(&tmp, text, &opts, &jerr);
    tmp.oom = &oom;          /* json_parse restores it; keep ours */
    if (!root) {
        err_set(e, jerr.code, jerr.off, "%s:%d:%d: %s (at byte %td)", name, jerr.line, jerr.col, jerr.msg, jerr.off);
        arena_fini(&tmp);
        tok_free(t);
        return NULL;
    }
    loader L = {t, &tmp, name, e};
    int rc = load_tree(&L, root);
    arena_fini(&tmp);
    t->perm.oom = NULL;
    if (rc) {
        if (e)
            err_prefix(e, "%s", name);
        tok_free(t);
        return NULL;
    }
    return t;
}

tok *tok_load(const char *path, err *e)
{
    char file[4096];
    if (os_is_dir(path))
        snprintf(file, sizeof(file), "%s/tokenizer.json", path);
    else
        snprintf(file, sizeof(file), "%s", path);
    arena a;
    arena_init(&a, 0);
    str text = os_read_file(&a, file, e);
    if (!text.s) {
        arena_fini(&a);
        return NULL;
    }
    tok *t = tok_load_json(text, file, e);
    arena_fini(&a);
    return t;
}
