/* pretok.c - the "pre_tokenizer" of tokenizer.json (tok_internal.h): parses
 * the component tree into a flat list of steps and splits text into pieces
 * the way the Rust `tokenizers` crate (0.22) does. Every splitting rule is
 * a regex (regex.c) or a literal, searched with the onig crate's find_iter
 * semantics and folded with SplitDelimiterBehavior. Also GPT-2's
 * byte <-> code point mapping of ByteLevel. */
#include <stdio.h>
#include "tok_internal.h"
#include "../base/utf8.h"

enum {
    TOK_PRETOK_MAX_STEPS = 64,   /* steps after flattening Sequences */
};

typedef enum {
    B_REMOVED,
    B_ISOLATED,
    B_MERGED_PREV,
    B_MERGED_NEXT,
    B_CONTIGUOUS,
} behavior;

typedef enum {
    ST_SPLIT,       /* Split and every rule that is a split (see parse) */
    ST_BYTELEVEL,
    ST_METASPACE,
} step_kind;

enum { PREPEND_ALWAYS, PREPEND_FIRST, PREPEND_NEVER };

typedef struct {
    step_kind  kind;
    behavior   beh;
    bool       invert;
    tok_regex *re;          /* ST_SPLIT; ByteLevel with use_regex; Metaspace with split */
    bool       prefix;      /* ByteLevel add_prefix_space */
    int        prepend;     /* Metaspace prepend_scheme */
    u8         rep[4];      /* Metaspace replacement, UTF-8 */
    int        rep_len;
} step;

struct tok_pretok {
    step *steps;
    int   n;
    bool  byte_level;
    bool  changes;
    /* The chain is one Isolated, non-inverted split followed at most by a
     * ByteLevel step that passes pieces through (no prefix space, no regex
     * of its own): Llama 3's and Qwen's. Its pieces are then the matches
     * and the gaps between them, which tok_pretok_each finds in one loop. */
    const tok_regex *one_split;
};

/* GPT-2's pre-tokenization regex, built into ByteLevel (use_regex). */
static const char gpt2_re[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
/* Whitespace: `\w+|[^\w\s]+` of Rust's regex crate, whose \w is Unicode's
 * (Alphabetic, marks, decimal digits, connector punctuation, joiners). */
static const char ws_re[] =
    "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}]+"
    "|[^\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}\\s]+";
/* Punctuation and BertPreTokenizer: ASCII punctuation or a Unicode P*
 * category in the (older) tables of the crate's unicode_categories; regex.c
 * has that set as "@bertpunct". */
static const char punct_re[] = "\\p{@bertpunct}";

/* ---- parsing ---------------------------------------------------------- */

typedef struct {
    arena      *perm;
    err        *e;
    tok_pretok *p;
    int         cap;
} parser;

static step *add_step(parser *ps, const char *path)
{
    tok_pretok *p = ps->p;
    if (p->n == TOK_PRETOK_MAX_STEPS) {
        err_set(ps->e, ERR_LIMIT, -1, "%s: more than %d pre-tokenizer steps", path, TOK_PRETOK_MAX_STEPS);
        return NULL;
    }
    if (p->n == ps->cap) {
        iz cap = ps->cap;
        p->steps = arena_grow(ps->perm, p->steps, (iz)sizeof(step), (iz)_Alignof(step), p->n, &cap, p->n + 1);
        if (!p->steps) {
            err_set(ps->e, ERR_NOMEM, -1, "out of memory");
            return NULL;
        }
        ps->cap = (int)cap;
    }
    step *s = &p->steps[p->n++];
    memset(s, 0, sizeof(*s));
    return s;
}

/* A boolean member: required (no default) unless `def` >= 0. */
static bool get_bool(parser *ps, const json *j, const char *path, const char *key, int def, bool *out)
{
    const json *v = json_get(j, str_cstr(key));
    if (!v) {
        if (def < 0) {
            err_set(ps->e, ERR_INVALID, j->off, "%s: missing field `%s`", path, key);
            return false;
        }
        *out = def != 0;
        return true;
    }
    if (v->type != JSON_BOOL) {
        err_set(ps->e, ERR_INVALID, v->off, "%s.%s: expected a boolean, found %s", path, key,
                json_type_name(v->type));
        return false;
    }
    *out = v->u.b;
    return true;
}

/* A `char` member: a string of exactly one code point. */
static bool get_char(parser *ps, const json *j, const char *path, const char *key, str *out)
{
    const json *v = json_get(j, str_cstr(key));
    if (!v) {
        err_set(ps->e, ERR_INVALID, j->off, "%s: missing field `%s`", path, key);
        return false;
    }
    if (v->type != JSON_STR || v->u.s.len == 0 || utf8_len(v->u.s.s[0]) != v->u.s.len) {
        err_set(ps->e, ERR_INVALID, v->off, "%s.%s: expected a single character", path, key);
        return false;
    }
    *out = v->u.s;
    return true;
}

static bool get_behavior(parser *ps, const json *j, const char *path, bool required, behavior *out)
{
    static const struct { const char *name; behavior b; } names[] = {
        {"Removed", B_REMOVED}, {"Isolated", B_ISOLATED}, {"MergedWithPrevious", B_MERGED_PREV},
        {"MergedWithNext", B_MERGED_NEXT}, {"Contiguous", B_CONTIGUOUS},
    };
    const json *v = json_get(j, S("behavior"));
    if (!v) {
        if (required) {
            err_set(ps->e, ERR_INVALID, j->off, "%s: missing field `behavior`", path);
            return false;
        }
        *out = B_ISOLATED;
        return true;
    }
    if (v->type == JSON_STR)
        for (int k = 0; k < countof(names); k++)
            if (str_eq(v->u.s, str_cstr(names[k].name))) {
                *out = names[k].b;
                return true;
            }
    err_set(ps->e, ERR_INVALID, v->off, "%s.behavior: unknown split behavior", path);
    return false;
}

static tok_regex *compile(parser *ps, const char *path, str pattern, bool literal, iz off)
{
    tok_regex *re = tok_regex_compile(ps->perm, pattern, literal, ps->e);
    if (!re) {
        err_prefix(ps->e, "%s", path);
        if (ps->e)
            ps->e->off = off;
    }
    return re;
}

static bool add_split(parser *ps, const char *path, const char *pattern, bool literal, behavior b, bool invert)
{
    step *s = add_step(ps, path);
    if (!s)
        return false;
    s->kind = ST_SPLIT;
    s->beh = b;
    s->invert = invert;
    s->re = compile(ps, path, str_cstr(pattern), literal, -1);
    return s->re != NULL;
}

static bool parse_node(parser *ps, const json *j, const char *path);

static bool parse_split(parser *ps, const json *j, const char *path)
{
    const json *pat = json_get(j, S("pattern"));
    if (!pat) {
        err_set(ps->e, ERR_INVALID, j->off, "%s: missing field `pattern`", path);
        return false;
    }
    const json *ps_str = json_get_type(pat, S("String"), JSON_STR);
    const json *ps_re = json_get_type(pat, S("Regex"), JSON_STR);
    if (pat->type != JSON_OBJ || pat->u.obj.n != 1 || (!ps_str && !ps_re)) {
        err_set(ps->e, ERR_INVALID, pat->off, "%s.pattern: expected {\"String\": ...} or {\"Regex\": ...}", path);
        return false;
    }
    behavior b;
    bool invert;
    if (!get_behavior(ps, j, path, true, &b) || !get_bool(ps, j, path, "invert", -1, &invert))
        return false;
    step *s = add_step(ps, path);
    if (!s)
        return false;
    s->kind = ST_SPLIT;
    s->beh = b;
    s->invert = invert;
    const json *v = ps_str ? ps_str : ps_re;
    char sub[256];
    snprintf(sub, sizeof(sub), "%s.pattern", path);
    s->re = compile(ps, sub, v->u.s, ps_str != NULL, v->off);
    return s->re != NULL;
}

static bool parse_byte_level(parser *ps, const json *j, const char *path)
{
    bool prefix, trim, use_regex;
    if (!get_bool(ps, j, path, "add_prefix_space", -1, &prefix) ||
        !get_bool(ps, j, path, "trim_offsets", -1, &trim) ||
        !get_bool(ps, j, path, "use_regex", 1, &use_regex))
        return false;
    step *s = add_step(ps, path);
    if (!s)
        return false;
    s->kind = ST_BYTELEVEL;
    s->prefix = prefix;
    s->beh = B_ISOLATED;
    if (use_regex) {
        s->re = compile(ps, path, S(gpt2_re), false, -1);
        if (!s->re)
            return false;
    }
    ps->p->byte_level = true;
    if (prefix)
        ps->p->changes = true;
    return true;
}

static bool parse_metaspace(parser *ps, const json *j, const char *path)
{
    str rep;
    if (!get_char(ps, j, path, "replacement", &rep))
        return false;
    int scheme = PREPEND_ALWAYS;
    const json *v = json_get(j, S("prepend_scheme"));
    if (v) {
        if (v->type == JSON_STR && str_eq(v->u.s, S("always")))
            scheme = PREPEND_ALWAYS;
        else if (v->type == JSON_STR && str_eq(v->u.s, S("first")))
            scheme = PREPEND_FIRST;
        else if (v->type == JSON_STR && str_eq(v->u.s, S("never")))
            scheme = PREPEND_NEVER;
        else {
            err_set(ps->e, ERR_INVALID, v->off, "%s.prepend_scheme: expected \"always\", \"first\" or \"never\"", path);
            return false;
        }
    }
    /* The legacy add_prefix_space: false is accepted only with "never". */
    const json *aps = json_get(j, S("add_prefix_space"));
    if (aps && aps->type != JSON_NULL) {
        bool a;
        if (!get_bool(ps, j, path, "add_prefix_space", -1, &a))
            return false;
        if (!a && scheme != PREPEND_NEVER) {
            err_set(ps->e, ERR_INVALID, aps->off, "%s: add_prefix_space does not match declared prepend_scheme", path);
            return false;
        }
    }
    bool split = true;
    const json *sp = json_get(j, S("split"));
    if (sp && sp->type != JSON_NULL && !get_bool(ps, j, path, "split", -1, &split))
        return false;
    step *s = add_step(ps, path);
    if (!s)
        return false;
    s->kind = ST_METASPACE;
    s->prepend = scheme;
    memcpy(s->rep, rep.s, (size_t)rep.len);
    s->rep_len = (int)rep.len;
    s->beh = B_MERGED_NEXT;
    if (split) {
        s->re = compile(ps, path, rep, true, -1);
        if (!s->re)
            return false;
    }
    ps->p->changes = true;
    return true;
}

static bool parse_node(parser *ps, const json *j, const char *path)
{
    if (!j || j->type != JSON_OBJ) {
        err_set(ps->e, ERR_INVALID, j ? j->off : -1, "%s: expected an object, found %s", path,
                j ? json_type_name(j->type) : "nothing");
        return false;
    }
    const json *t = json_get(j, S("type"));
    if (!t || t->type != JSON_STR) {
        err_set(ps->e, ERR_UNSUPPORTED, j->off, "%s: pre-tokenizer without a \"type\"", path);
        return false;
    }
    str type = t->u.s;
    if (str_eq(type, S("Sequence"))) {
        const json *list = json_get(j, S("pretokenizers"));
        if (!list || list->type != JSON_ARR) {
            err_set(ps->e, ERR_INVALID, j->off, "%s: missing field `pretokenizers`", path);
            return false;
        }
        for (iz k = 0; k < list->u.arr.n; k++) {
            char sub[256];
            snprintf(sub, sizeof(sub), "%s.pretokenizers[%td]", path, k);
            if (!parse_node(ps, &list->u.arr.items[k], sub))
                return false;
        }
        return true;
    }
    if (str_eq(type, S("Split")))
        return parse_split(ps, j, path);
    if (str_eq(type, S("ByteLevel")))
        return parse_byte_level(ps, j, path);
    if (str_eq(type, S("Metaspace")))
        return parse_metaspace(ps, j, path);
    if (str_eq(type, S("Digits"))) {
        bool individual;
        if (!get_bool(ps, j, path, "individual_digits", -1, &individual))
            return false;
        /* char::is_numeric: Nd, Nl, No in Rust's (newer) Unicode tables. */
        return add_split(ps, path, "\\p{@rustnum}", false, individual ? B_ISOLATED : B_CONTIGUOUS, false);
    }
    if (str_eq(type, S("Whitespace")))
        return add_split(ps, path, ws_re, false, B_REMOVED, true);
    if (str_eq(type, S("WhitespaceSplit")))
        return add_split(ps, path, "\\s", false, B_REMOVED, false);
    if (str_eq(type, S("Punctuation"))) {
        behavior b;
        if (!get_behavior(ps, j, path, false, &b))
            return false;
        return add_split(ps, path, punct_re, false, b, false);
    }
    if (str_eq(type, S("BertPreTokenizer")))
        return add_split(ps, path, "\\s", false, B_REMOVED, false) &&
               add_split(ps, path, punct_re, false, B_ISOLATED, false);
    if (str_eq(type, S("CharDelimiterSplit"))) {
        str d;
        if (!get_char(ps, j, path, "delimiter", &d))
            return false;
        step *s = add_step(ps, path);
        if (!s)
            return false;
        s->kind = ST_SPLIT;
        s->beh = B_REMOVED;
        s->re = compile(ps, path, d, true, -1);
        return s->re != NULL;
    }
    err_set(ps->e, ERR_UNSUPPORTED, t->off, "%s: unsupported pre-tokenizer type \"%.*s\"", path,
            (int)MIN(type.len, 60), (const char *)type.s);
    return false;
}

tok_pretok *tok_pretok_parse(arena *perm, const json *j, const char *path, err *e)
{
    tok_pretok *p = NEW(perm, tok_pretok, 1);
    if (!p) {
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    if (!j || j->type == JSON_NULL)
        return p;
    parser ps = {perm, e, p, 0};
    if (!parse_node(&ps, j, path))
        return NULL;
    /* The tokenizer maps bytes to ByteLevel's alphabet after splitting, so
     * nothing may split after a ByteLevel step (it would see other text). */
    for (int k = 0; k + 1 < p->n; k++)
        if (p->steps[k].kind == ST_BYTELEVEL) {
            err_set(e, ERR_UNSUPPORTED, j->off, "%s: a pre-tokenizer after ByteLevel is not supported", path);
            return NULL;
        }
    if (p->n == 1 || p->n == 2) {
        const step *s0 = &p->steps[0], *s1 = &p->steps[p->n - 1];
        if (s0->kind == ST_SPLIT && s0->beh == B_ISOLATED && !s0->invert && s0->re &&
            (p->n == 1 || (s1->kind == ST_BYTELEVEL && !s1->prefix && !s1->re)))
            p->one_split = s0->re;
    }
    return p;
}

bool tok_pretok_byte_level(const tok_pretok *p) { return p && p->byte_level; }
const tok_regex *tok_pretok_one_split(const tok_pretok *p) { return p ? p->one_split : NULL; }
bool tok_pretok_changes_text(const tok_pretok *p) { return p && p->changes; }

/* ---- running ---------------------------------------------------------
 *
 * Depth first: each piece a step produces goes through the remaining steps
 * before the step goes on, which gives the same pieces in the same order as
 * the crate's step-by-step loop and needs no intermediate lists. */

typedef struct {
    const tok_pretok *p;
    tok_work         *w;
    tok_piece_fn     *each;    /* takes the pieces */
    void             *ctx;
    err              *e;
} runner;

static int run_from(runner *r, int k, str piece, bool origin);

/* The fold of SplitDelimiterBehavior over the (offsets, is_match) list of
 * one piece, fed one segment at a time. Pending pieces are flushed to the
 * next step; empty ones are dropped, as the crate drops empty splits. */
typedef struct {
    runner  *r;
    int      next;       /* index of the next step */
    str      text;
    bool     origin;
    behavior b;
    bool     has;        /* a pending piece [ps, pe) */
    iz       ps, pe;
    bool     prev_match;
    bool     lone_match; /* MergedWithNext: pending is one match segment */
    int      rc;
} fold;

static void emit(fold *f, iz s, iz e)
{
    if (e > s && f->rc == ERR_OK)
        f->rc = run_from(f->r, f->next, str_cut(f->text, s, e), f->origin && s == 0);
}

static void flush(fold *f)
{
    if (f->has)
        emit(f, f->ps, f->pe);
    f->has = false;
}

static void start(fold *f, iz s, iz e)
{
    flush(f);
    f->has = true;
    f->ps = s;
    f->pe = e;
}

static void fold_seg(fold *f, iz s, iz e, bool m)
{
    switch (f->b) {
    case B_REMOVED:
        if (!m)
            emit(f, s, e);
        break;
    case B_ISOLATED:
        emit(f, s, e);
        break;
    case B_CONTIGUOUS:
        if (f->has && m == f->prev_match)
            f->pe = e;
        else
            start(f, s, e);
        break;
    case B_MERGED_PREV:
        if (m && !f->prev_match && f->has)
            f->pe = e;
        else
            start(f, s, e);
        break;
    case B_MERGED_NEXT:
        if (f->has && f->lone_match && !m) {
            f->pe = e;
            f->lone_match = false;
        } else {
            start(f, s, e);
            f->lone_match = m;
        }
        break;
    }
    f->prev_match = m;
}

/* The onig crate's find_iter over `text`: the next match at or after *pos
 * in [*s, *e), skipping an empty match right where the previous match
 * ended and resuming one character further after an empty match. Returns
 * 1, 0 at the end, or a negative error code. *pos and *last_end carry the
 * iteration (start them at 0 and -1). */
static int next_match(const tok_regex *re, tok_work *w, str text, iz *pos, iz *last_end, iz *s, iz *e,
                      err *er)
{
    while (*pos <= text.len) {
        int m = tok_regex_find(re, w, text, *pos, s, e, er);
        if (m <= 0)
            return m;
        if (*s == *e) {
            *pos = *e < text.len ? *e + utf8_len(text.s[*e]) : *e + 1;
            if (*e == *last_end)
                continue;
        } else {
            *pos = *e;
        }
        *last_end = *e;
        return 1;
    }
    return 0;
}

/* Splits `text` with the step's pattern: next_match, then the crate's
 * find_matches (gaps become non-match segments) and the fold. */
static int split_text(runner *r, const step *st, int next, str text, bool origin, behavior b, bool invert)
{
    fold f = {r, next, text, origin, b, false, 0, 0, false, false, ERR_OK};
    iz pos = 0, prev = 0, last_end = -1, s, e;
    int m;
    while ((m = next_match(st->re, r->w, text, &pos, &last_end, &s, &e, r->e)) > 0) {
        if (prev != s)
            fold_seg(&f, prev, s, invert);
        fold_seg(&f, s, e, !invert);
        prev = e;
        if (f.rc != ERR_OK)
            return f.rc;
    }
    if (m < 0)
        return -m;
    if (prev != text.len)
        fold_seg(&f, prev, text.len, invert);
    flush(&f);
    return f.rc;
}

static int run_from(runner *r, int k, str piece, bool origin)
{
    if (k == r->p->n)
        return r->each(r->ctx, piece);
    const step *st = &r->p->steps[k];
    switch (st->kind) {
    case ST_SPLIT:
        return split_text(r, st, k + 1, piece, origin, st->beh, st->invert);
    case ST_BYTELEVEL:
        if (st->prefix && piece.s[0] != ' ') {
            u8 *t = NEW_NZ(&r->w->scratch, u8, piece.len + 1);
            t[0] = ' ';
            memcpy(t + 1, piece.s, (size_t)piece.len);
            piece = str_from(t, piece.len + 1);
        }
        if (st->re)
            return split_text(r, st, k + 1, piece, origin, B_ISOLATED, false);
        return run_from(r, k + 1, piece, origin);
    case ST_METASPACE: {
        iz spaces = 0;
        for (iz i = 0; i < piece.len; i++)
            spaces += piece.s[i] == ' ';
        str rep = str_from(st->rep, st->rep_len);
        bool starts = piece.s[0] == ' ' ||
                      (piece.len >= rep.len && memcmp(piece.s, rep.s, (size_t)rep.len) == 0);
        bool prepend = !starts && (st->prepend == PREPEND_ALWAYS || (st->prepend == PREPEND_FIRST && origin));
        if (spaces || prepend) {
            iz n = piece.len + spaces * (rep.len - 1) + (prepend ? rep.len : 0);
            u8 *t = NEW_NZ(&r->w->scratch, u8, n), *q = t;
            if (prepend) {
                memcpy(q, rep.s, (size_t)rep.len);
                q += rep.len;
            }
            for (iz i = 0; i < piece.len; i++) {
                if (piece.s[i] == ' ') {
                    memcpy(q, rep.s, (size_t)rep.len);
                    q += rep.len;
                } else {
                    *q++ = piece.s[i];
                }
            }
            piece = str_from(t, n);
        }
        if (st->re)
            return split_text(r, st, k + 1, piece, origin, B_MERGED_NEXT, false);
        return run_from(r, k + 1, piece, origin);
    }
    }
    return ERR_OK;
}

/* split_text for the chain of one Isolated split (tok_pretok.one_split):
 * every non-empty segment, match or gap, is a piece, in order. */
static int each_one_split(const tok_regex *re, tok_work *w, str text, tok_piece_fn *each, void *ctx, err *e)
{
    int rc;
    if (tok_regex_each_ascii(re, w, text, each, ctx, &rc))
        return rc;
    iz pos = 0, prev = 0, last_end = -1, s, t;
    int m;
    while ((m = next_match(re, w, text, &pos, &last_end, &s, &t, e)) > 0) {
        rc = ERR_OK;
        if (prev < s)
            rc = each(ctx, str_cut(text, prev, s));
        if (rc == ERR_OK && s < t)
            rc = each(ctx, str_cut(text, s, t));
        if (rc != ERR_OK)
            return rc;
        prev = t;
    }
    if (m < 0)
        return -m;
    return prev < text.len ? each(ctx, str_cut(text, prev, text.len)) : ERR_OK;
}

int tok_pretok_each(const tok_pretok *p, tok_work *w, str in, bool at_origin, tok_piece_fn *each, void *ctx,
                    err *e)
{
    /* The crate never pre-tokenizes an empty segment (it drops empty splits
     * before), so an empty input gives no piece. */
    if (in.len == 0)
        return ERR_OK;
    if (!p || p->n == 0)
        return each(ctx, in);
    if (p->one_split)
        return each_one_split(p->one_split, w, in, each, ctx, e);
    runner r = {p, w, each, ctx, e};
    return run_from(&r, 0, in, at_origin);
}

/* ---- GPT-2's byte <-> code point mapping ---------------------------------
 * Printable Latin-1 bytes ('!'..'~', 0xA1..0xAC, 0xAE..0xFF) stand for
 * themselves; the other 68 bytes, in increasing order, get U+0100.. . */

u32 tok_byte_to_cp(u8 b)
{
    if ((b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae)
        return b;
    if (b <= 0x20)
        return 0x100u + b;                 /* 0x00..0x20 -> U+0100..U+0120 */
    if (b <= 0xa0)
        return 0x100u + 33 + (b - 0x7fu);  /* 0x7F..0xA0 -> U+0121..U+0142 */
    return 0x143;                          /* 0xAD */
}

int tok_cp_to_byte(u32 cp)
{
    if ((cp >= 0x21 && cp <= 0x7e) || (cp >= 0xa1 && cp <= 0xac) || (cp >= 0xae && cp <= 0xff))
        return (int)cp;
    if (cp >= 0x100 && cp <= 0x120)
        return (int)(cp - 0x100);
    if (cp >= 0x121 && cp <= 0x142)
        return (int)(cp - 0x121 + 0x7f);
    if (cp == 0x143)
        return 0xad;
    return -1;
}
