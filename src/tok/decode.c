/* decode.c - ids back to text through the tokenizer.json decoder, for
 * debugging and round-trip tests. Each decoder step maps the list of token
 * strings to a new list (the Rust library's decode_chain); the result is
 * their concatenation. */
#include <stdio.h>
#include <stdlib.h>
#include "tok_model.h"
#include "../base/utf8.h"

static const char *const names[] = {
    [DEC_BYTELEVEL] = "ByteLevel", [DEC_REPLACE] = "Replace", [DEC_BYTEFALLBACK] = "ByteFallback",
    [DEC_FUSE] = "Fuse", [DEC_STRIP] = "Strip", [DEC_METASPACE] = "Metaspace",
    [DEC_WORDPIECE] = "WordPiece", [DEC_BPE] = "BPEDecoder", [DEC_CTC] = "CTC",
    [DEC_SEQUENCE] = "Sequence",
};

static str get_str(const json *o, const char *k)
{
    const json *v = json_get(o, str_cstr(k));
    return v && v->type == JSON_STR ? v->u.s : (str){0};
}

static i64 get_int(const json *o, const char *k, i64 dflt)
{
    const json *v = json_get(o, str_cstr(k));
    return v && v->type == JSON_INT ? v->u.i : dflt;
}

static bool parse_into(arena *perm, tok_decoder *d, const json *j, const char *path, err *e)
{
    const json *type = json_get(j, S("type"));
    if (!type || type->type != JSON_STR) {
        err_set(e, ERR_INVALID, j->off, "%s: a decoder needs a \"type\" (at byte %td)", path, (iz)j->off);
        return false;
    }
    d->type = DEC_NONE;
    for (int k = 1; k < countof(names); k++)
        if (names[k] && str_eq(type->u.s, str_cstr(names[k])))
            d->type = (dec_type)k;
    switch (d->type) {
    case DEC_NONE:
        err_set(e, ERR_UNSUPPORTED, type->off, "%s.type: unsupported decoder type \"%.*s\" (at byte %td)", path,
                (int)type->u.s.len, (const char *)type->u.s.s, (iz)type->off);
        return false;
    case DEC_REPLACE: {
        const json *pat = json_get(j, S("pattern"));
        str lit = get_str(pat, "String");
        if (!lit.s) {
            err_set(e, ERR_UNSUPPORTED, j->off, "%s: Replace decoder with a regex pattern is not supported (at byte %td)", path, (iz)j->off);
            return false;
        }
        d->pattern = arena_strdup(perm, lit);
        d->content = arena_strdup(perm, get_str(j, "content"));
        return true;
    }
    case DEC_STRIP:
        d->content = arena_strdup(perm, get_str(j, "content"));
        d->strip_start = (i32)get_int(j, "start", 0);
        d->strip_stop = (i32)get_int(j, "stop", 0);
        return true;
    case DEC_METASPACE: {
        str r = get_str(j, "replacement");
        iz i = 0;
        d->replacement = r.len ? utf8_next(r.s, &i) : 0x2581;
        str scheme = get_str(j, "prepend_scheme");
        const json *aps = json_get(j, S("add_prefix_space"));
        d->prepend = scheme.s ? !str_eq(scheme, S("never")) : !(aps && aps->type == JSON_BOOL && !aps->u.b);
        return true;
    }
    case DEC_WORDPIECE: {
        str p = get_str(j, "prefix");
        d->prefix = arena_strdup(perm, p.s ? p : S("##"));
        const json *c = json_get(j, S("cleanup"));
        d->cleanup = !(c && c->type == JSON_BOOL && !c->u.b);
        return true;
    }
    case DEC_BPE: {
        str sfx = get_str(j, "suffix");
        d->suffix = arena_strdup(perm, sfx.s ? sfx : S("</w>"));
        return true;
    }
    case DEC_SEQUENCE: {
        const json *arr = json_get(j, S("decoders"));
        if (!arr || arr->type != JSON_ARR) {
            err_set(e, ERR_INVALID, j->off, "%s: Sequence needs \"decoders\" (at byte %td)", path, (iz)j->off);
            return false;
        }
        d->nsteps = arr->u.arr.n;
        d->steps = NEW(perm, tok_decoder, d->nsteps + 1);
        for (iz k = 0; k < d->nsteps; k++) {
            char sub[256];
            snprintf(sub, sizeof(sub), "%.200s.decoders[%td]", path, k);
            if (!parse_into(perm, &d->steps[k], &arr->u.arr.items[k], sub, e))
                return false;
        }
        return true;
    }
    default:
        return true;
    }
}

tok_decoder *decoder_parse(arena *perm, const json *j, const char *path, err *e)
{
    if (j->type != JSON_OBJ) {
        err_set(e, ERR_INVALID, j->off, "%s: must be an object (at byte %td)", path, (iz)j->off);
        return NULL;
    }
    tok_decoder *d = NEW(perm, tok_decoder, 1);
    return parse_into(perm, d, j, path, e) ? d : NULL;
}

/* ---- running ------------------------------------------------------------ */

typedef struct {
    buf *v;   /* one buf per token */
    iz   n;
} toks;

static void set_tok(buf *b, str s)
{
    b->len = 0;
    buf_str(b, s);
}

static bool parse_fallback(str s, u8 *out)
{
    if (s.len != 6 || memcmp(s.s, "<0x", 3) != 0 || s.s[5] != '>')
        return false;
    int v = 0;
    for (int k = 3; k < 5; k++) {
        u8 c = s.s[k];
        int h = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (h < 0)
            return false;
        v = v * 16 + h;
    }
    *out = (u8)v;
    return true;
}

/* Replaces invalid UTF-8 by U+FFFD per bad byte, as from_utf8_lossy does
 * (close enough for a debugging aid). */
static void lossy(buf *out, str s)
{
    iz i = 0;
    while (i < s.len) {
        int len = utf8_valid_seq(s.s + i, s.len - i);
        if (len) {
            buf_put(out, s.s + i, len);
            i += len;
        } else {
            buf_put(out, "\xEF\xBF\xBD", 3);
            i++;
        }
    }
}

static void replace_all(buf *out, str s, str pat, str with)
{
    if (!pat.len) {
        buf_str(out, s);
        return;
    }
    iz i = 0;
    while (i < s.len) {
        if (i + pat.len <= s.len && memcmp(s.s + i, pat.s, (size_t)pat.len) == 0) {
            buf_str(out, with);
            i += pat.len;
        } else {
            buf_byte(out, s.s[i++]);
        }
    }
}

static void step(const tok_decoder *d, toks *ts)
{
    buf tmp = {0};
    switch (d->type) {
    case DEC_BYTELEVEL: {
        buf all = {0};
        for (iz k = 0; k < ts->n; k++) {
            str s = buf_view(&ts->v[k]);
            iz i = 0;
            while (i < s.len) {
                iz b = i;
                int byte = tok_cp_to_byte(utf8_next(s.s, &i));
                if (byte >= 0)
                    buf_byte(&all, (u8)byte);
                else
                    buf_put(&all, s.s + b, i - b);
            }
        }
        lossy(&tmp, buf_view(&all));
        buf_free(&all);
        for (iz k = 0; k < ts->n; k++)
            buf_free(&ts->v[k]);
        ts->v[0] = tmp;
        ts->n = ts->n ? 1 : 0;
        if (!ts->n)
            buf_free(&tmp);
        return;
    }
    case DEC_REPLACE:
        for (iz k = 0; k < ts->n; k++) {
            tmp.len = 0;
            replace_all(&tmp, buf_view(&ts->v[k]), d->pattern, d->content);
            set_tok(&ts->v[k], buf_view(&tmp));
        }
        break;
    case DEC_BYTEFALLBACK: {
        iz o = 0;
        for (iz k = 0; k < ts->n;) {
            u8 byte;
            if (!parse_fallback(buf_view(&ts->v[k]), &byte)) {
                if (o != k) {
                    buf t2 = ts->v[o];
                    ts->v[o] = ts->v[k];
                    ts->v[k] = t2;
                }
                o++;
                k++;
                continue;
            }
            buf bytes = {0};
            while (k < ts->n && parse_fallback(buf_view(&ts->v[k]), &byte)) {
                buf_byte(&bytes, byte);
                k++;
            }
            tmp.len = 0;
            lossy(&tmp, buf_view(&bytes));
            buf_free(&bytes);
            set_tok(&ts->v[o], buf_view(&tmp));
            o++;
        }
        for (iz k = o; k < ts->n; k++)
            buf_free(&ts->v[k]);
        ts->n = o;
        break;
    }
    case DEC_FUSE:
        for (iz k = 1; k < ts->n; k++) {
            buf_str(&ts->v[0], buf_view(&ts->v[k]));
            buf_free(&ts->v[k]);
        }
        ts->n = ts->n ? 1 : 0;
        break;
    case DEC_STRIP:
        for (iz k = 0; k < ts->n; k++) {
            str s = buf_view(&ts->v[k]);
            iz b = 0, e = s.len;
            for (i32 c = 0; c < d->strip_start && d->content.len && b + d->content.len <= e &&
                            memcmp(s.s + b, d->content.s, (size_t)d->content.len) == 0; c++)
                b += d->content.len;
            for (i32 c = 0; c < d->strip_stop && d->content.len && e - d->content.len >= b &&
                            memcmp(s.s + e - d->content.len, d->content.s, (size_t)d->content.len) == 0; c++)
                e -= d->content.len;
            tmp.len = 0;
            buf_put(&tmp, s.s + b, e - b);
            set_tok(&ts->v[k], buf_view(&tmp));
        }
        break;
    case DEC_METASPACE: {
        u8 rep[4];
        int rl = utf8_encode(d->replacement, rep);
        for (iz k = 0; k < ts->n; k++) {
            tmp.len = 0;
            replace_all(&tmp, buf_view(&ts->v[k]), str_from(rep, rl), S(" "));
            str s = buf_view(&tmp);
            if (k == 0 && d->prepend && s.len && s.s[0] == ' ')
                s = str_cut(s, 1, s.len);
            set_tok(&ts->v[k], s);
        }
        break;
    }
    case DEC_WORDPIECE:
        for (iz k = 0; k < ts->n; k++) {
            str s = buf_view(&ts->v[k]);
            tmp.len = 0;
            if (k > 0 && s.len >= d->prefix.len && memcmp(s.s, d->prefix.s, (size_t)d->prefix.len) == 0)
                buf_put(&tmp, s.s + d->prefix.len, s.len - d->prefix.len);
            else {
                if (k > 0)
                    buf_byte(&tmp, ' ');
                buf_str(&tmp, s);
            }
            set_tok(&ts->v[k], buf_view(&tmp));
        }
        break;
    case DEC_BPE:
        for (iz k = 0; k < ts->n; k++) {
            tmp.len = 0;
            replace_all(&tmp, buf_view(&ts->v[k]), d->suffix, k + 1 < ts->n ? S(" ") : S(""));
            set_tok(&ts->v[k], buf_view(&tmp));
        }
        break;
    case DEC_SEQUENCE:
        for (iz k = 0; k < d->nsteps; k++)
            step(&d->steps[k], ts);
        break;
    case DEC_CTC:
    case DEC_NONE:
        break;
    }
    buf_free(&tmp);
}

int tok_decode(const tok *t, const u32 *ids, iz n, buf *out, err *e)
{
    toks ts = {calloc((size_t)(n ? n : 1), sizeof(buf)), 0};
    if (!ts.v)
        return err_set(e, ERR_NOMEM, -1, "out of memory");
    for (iz k = 0; k < n; k++) {
        if (ids[k] >= t->nids || !t->id_str[ids[k]].s) {
            for (iz j = 0; j < ts.n; j++)
                buf_free(&ts.v[j]);
            free(ts.v);
            return err_set(e, ERR_INVALID, k, "id %u at position %td is not in the vocabulary", ids[k], k);
        }
        buf_str(&ts.v[ts.n++], t->id_str[ids[k]]);
    }
    if (t->decoder)
        step(t->decoder, &ts);
    for (iz k = 0; k < ts.n; k++) {
        buf_str(out, buf_view(&ts.v[k]));
        buf_free(&ts.v[k]);
    }
    free(ts.v);
    return ERR_OK;
}
