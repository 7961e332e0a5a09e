/* tmpl_lex.c - Jinja2 3.1's lexer (jinja2/lexer.py) for the configuration
 * transformers uses: default delimiters, trim_blocks, lstrip_blocks, no
 * line statements. It produces the stream Jinja's parser sees (after
 * Lexer.wrap: no whitespace, comments or raw markers, string escapes
 * decoded). Jinja expresses the lexer as regexes tried in order; each
 * function below says which rule it stands for. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "tmpl_lex.h"
#include "../base/utf8.h"

typedef struct {
    arena     *a;
    const u8  *s;
    iz         n;
    iz         pos;
    /* line/column cursor; positions are only ever asked for in order */
    iz         cur_off;
    i32        cur_line, cur_col;
    /* Jinja's `line_starting`: the previous match ended with "\n" */
    bool       line_starting;
    /* open brackets: the closer each expects (Jinja's balancing_stack) */
    u8        *bal;
    iz         nbal, capbal;
    tmpl_toks *out;
    iz         cap;
    i32        last_line;   /* line of the last token emitted, for EOF */
} lexer;

str tmpl_normalize(arena *a, str src)
{
    u8 *d = arena_alloc_nz(a, 1, 1, src.len + 1);
    if (!d)
        return (str){0};
    iz k = 0;
    for (iz i = 0; i < src.len; i++) {
        u8 c = src.s[i];
        if (c == '\r') {
            if (i + 1 < src.len && src.s[i + 1] == '\n')
                i++;
            c = '\n';
        }
        d[k++] = c;
    }
    if (k > 0 && d[k - 1] == '\n')
        k--;   /* keep_trailing_newline=False drops exactly one */
    d[k] = 0;
    return (str){d, k};
}

/* Python's str.isspace / re's \s: the width of the whitespace character at
 * s[i] (s has n bytes), or 0. */
static int space_at(const u8 *s, iz n, iz i)
{
    u8 c = s[i];
    if (c < 0x80)
        return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20);
    int w = utf8_valid_seq(s + i, n - i);
    if (!w)
        return 0;
    iz k = i;
    u32 cp = utf8_next(s, &k);
    bool sp = cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
              cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
    return sp ? w : 0;
}

static iz skip_space(const lexer *lx, iz i)
{
    int w;
    while (i < lx->n && (w = space_at(lx->s, lx->n, i)) > 0)
        i += w;
    return i;
}

/* str.rstrip(): the end of s[beg, end) without trailing whitespace. */
static iz rstrip_end(const lexer *lx, iz beg, iz end)
{
    while (end > beg) {
        iz k = end - 1;
        while (k > beg && (lx->s[k] & 0xc0) == 0x80 && end - k < 4)
            k--;
        int w = space_at(lx->s, end, k);
        if (w == 0 || k + w != end)
            break;
        end = k;
    }
    return end;
}

static void locate(lexer *lx, iz off, i32 *line, i32 *col)
{
    for (iz k = lx->cur_off; k < off; k++) {
        u8 c = lx->s[k];
        if (c == '\n') {
            lx->cur_line++;
            lx->cur_col = 1;
        } else if ((c & 0xc0) != 0x80) {
            lx->cur_col++;
        }
    }
    if (off > lx->cur_off)
        lx->cur_off = off;
    *line = lx->cur_line;
    *col = lx->cur_col;
}

static tmpl_tok *emit(lexer *lx, int kind, iz off, iz len)
{
    tmpl_toks *o = lx->out;
    if (o->n == lx->cap) {
        tmpl_tok *v = arena_grow(lx->a, o->v, (iz)sizeof(tmpl_tok), (iz)_Alignof(tmpl_tok),
                                 o->n, &lx->cap, o->n + 1);
        if (!v)
            return NULL;
        o->v = v;
    }
    tmpl_tok *t = &o->v[o->n++];
    memset(t, 0, sizeof(*t));
    t->kind = (u8)kind;
    t->off = off;
    t->len = len;
    t->v.s = (str){lx->s + off, len};
    locate(lx, off, &t->line, &t->col);
    if (kind != TMPL_TOK_EOF && kind != TMPL_TOK_ERROR)
        lx->last_line = t->line;
    return t;
}

/* Python's repr() of the one character at s[i], as "unexpected char"
 * shows it. */
static void char_repr(const lexer *lx, iz i, char *out, size_t cap)
{
    u8 c = lx->s[i];
    if (c == '\'')
        snprintf(out, cap, "\"'\"");
    else if (c == '\\')
        snprintf(out, cap, "'\\\\'");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(out, cap, "'%c'", c);
    else if (c == '\t')
        snprintf(out, cap, "'\\t'");
    else if (c == '\n')
        snprintf(out, cap, "'\\n'");
    else if (c == '\r')
        snprintf(out, cap, "'\\r'");
    else if (c < 0x80)
        snprintf(out, cap, "'\\x%02x'", c);
    else {
        int w = utf8_valid_seq(lx->s + i, lx->n - i);
        if (w)
            snprintf(out, cap, "'%.*s'", w, (const char *)lx->s + i);
        else
            snprintf(out, cap, "byte 0x%02X", c);
    }
}

/* Ends the stream with an ERROR token standing for a lexer error at the
 * `len` bytes at `at` (what the error message calls "near"). */
static bool fail(lexer *lx, iz at, iz len, int code, const char *fmt, ...) PRINTF_LIKE(5, 6);
static bool fail(lexer *lx, iz at, iz len, int code, const char *fmt, ...)
{
    tmpl_tok *t = emit(lx, TMPL_TOK_ERROR, at, len);
    if (!t)
        return false;
    err *e = &lx->out->error;
    e->code = code;
    e->off = at;
    e->line = t->line;
    e->col = t->col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return true;
}

static bool fail_char(lexer *lx, iz at)
{
    char rep[32];
    char_repr(lx, at, rep, sizeof(rep));
    int w = utf8_valid_seq(lx->s + at, lx->n - at);
    if (lx->s[at] >= 0x80) {
        if (!w)
            return fail(lx, at, 1, ERR_UTF8, "invalid UTF-8 (%s)", rep);
        return fail(lx, at, w, ERR_UNSUPPORTED,
                    "non-ASCII character %s outside a string in a tag (identifiers are ASCII)",
                    rep);
    }
    iz cp = 0;   /* Jinja gives the position in code points */
    for (iz k = 0; k < at; k++)
        cp += (lx->s[k] & 0xc0) != 0x80;
    return fail(lx, at, 1, ERR_SYNTAX, "unexpected char %s at %td", rep, cp);
}

/* ---- numbers: Jinja's float_re and integer_re ---- */

static bool is_dec(u8 c) { return c >= '0' && c <= '9'; }
static bool is_hex(u8 c) { return is_dec(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }
static bool is_oct(u8 c) { return c >= '0' && c <= '7'; }
static bool is_bin(u8 c) { return c == '0' || c == '1'; }

/* (\d+_)*\d+ at i: its end, or -1. */
static iz digit_run(const lexer *lx, iz i)
{
    if (i >= lx->n || !is_dec(lx->s[i]))
        return -1;
    for (;;) {
        while (i < lx->n && is_dec(lx->s[i]))
            i++;
        if (i + 1 < lx->n && lx->s[i] == '_' && is_dec(lx->s[i + 1]))
            i++;
        else
            return i;
    }
}

/* e[+-]?(\d+_)*\d+ at i: its end, or -1. */
static iz exponent(const lexer *lx, iz i)
{
    if (i >= lx->n || (lx->s[i] | 0x20) != 'e')
        return -1;
    i++;
    if (i < lx->n && (lx->s[i] == '+' || lx->s[i] == '-'))
        i++;
    return digit_run(lx, i);
}

/* float_re: (?<!\.)(\d+_)*\d+((\.(\d+_)*\d+)?e[+\-]?(\d+_)*\d+|\.(\d+_)*\d+).
 * Every part is greedy and a shorter digit run can never be followed by
 * the '.' or 'e' the next part needs, so the longest match is the match. */
static iz float_end(const lexer *lx, iz i)
{
    if (i > 0 && lx->s[i - 1] == '.')
        return -1;
    iz m = digit_run(lx, i);
    if (m < 0)
        return -1;
    if (m < lx->n && lx->s[m] == '.') {
        iz f = digit_run(lx, m + 1);
        if (f >= 0) {
            iz x = exponent(lx, f);
            return x >= 0 ? x : f;
        }
    }
    return exponent(lx, m);
}

/* (_?D)+ at i for digit class D: its end, or -1 when there is none. */
static iz prefixed_run(const lexer *lx, iz i, bool (*dig)(u8))
{
    iz start = i;
    for (;;) {
        if (i + 1 < lx->n && lx->s[i] == '_' && dig(lx->s[i + 1]))
            i += 2;
        else if (i < lx->n && dig(lx->s[i]))
            i++;
        else
            break;
    }
    return i > start ? i : -1;
}

/* integer_re (case-insensitive): 0b(_?[01])+ | 0o(_?[0-7])+ | 0x(_?[\da-f])+
 * | [1-9](_?\d)* | 0(_?0)*. Sets *base. */
static iz integer_end(const lexer *lx, iz i, int *base)
{
    const u8 *s = lx->s;
    if (i >= lx->n || !is_dec(s[i]))
        return -1;
    if (s[i] == '0' && i + 1 < lx->n) {
        u8 p = s[i + 1] | 0x20;
        bool (*dig)(u8) = p == 'b' ? is_bin : p == 'o' ? is_oct : p == 'x' ? is_hex : NULL;
        if (dig) {
            iz e = prefixed_run(lx, i + 2, dig);
            if (e >= 0) {
                *base = p == 'b' ? 2 : p == 'o' ? 8 : 16;
                return e;
            }
        }
    }
    *base = 10;
    if (s[i] != '0') {
        iz e = prefixed_run(lx, i + 1, is_dec);
        return e >= 0 ? e : i + 1;
    }
    i++;
    for (;;) {
        if (i + 1 < lx->n && s[i] == '_' && s[i + 1] == '0')
            i += 2;
        else if (i < lx->n && s[i] == '0')
            i++;
        else
            return i;
    }
}

static void integer_value(tmpl_tok *t, const u8 *s, int base)
{
    iz i = base == 10 ? 0 : 2;
    u64 v = 0;
    for (; i < t->len; i++) {
        u8 c = s[i];
        if (c == '_')
            continue;
        u32 d = is_dec(c) ? (u32)(c - '0') : (u32)((c | 0x20) - 'a' + 10);
        if (v > (UINT64_MAX - d) / (u64)base) {
            t->big = true;
            return;
        }
        v = v * (u64)base + d;
    }
    if (v > (u64)INT64_MAX)
        t->big = true;
    else
        t->v.i = (i64)v;
}

static bool float_value(lexer *lx, tmpl_tok *t, const u8 *s)
{
    char small[64];
    char *d = small;
    if (t->len >= (iz)sizeof(small)) {
        d = arena_alloc_nz(lx->a, 1, 1, t->len + 1);
        if (!d)
            return false;
    }
    iz k = 0;
    for (iz i = 0; i < t->len; i++)
        if (s[i] != '_')
            d[k++] = (char)s[i];
    d[k] = 0;
    t->v.f = strtod(d, NULL);   /* correctly rounded, as Python's float() */
    return true;
}

/* ---- strings: string_re, then Jinja's
 *      value.encode("ascii", "backslashreplace").decode("unicode-escape") ---- */

static int hexval(u8 c) { return is_dec(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

/* Decodes the literal body s[beg, end) into t->v.s. Returns 0, or an error
 * code with *msg set to Python's message. */
static int decode_string(lexer *lx, tmpl_tok *t, iz beg, iz end, const char **msg)
{
    const u8 *s = lx->s;
    bool esc = false;
    for (iz i = beg; i < end && !esc; i++)
        esc = s[i] == '\\';
    if (!esc) {
        t->v.s = (str){s + beg, end - beg};
        return 0;
    }
    /* Phase 1: every non-ASCII character becomes \xNN, \uNNNN or
     * \UNNNNNNNN (so "\é" decodes to the four characters \xe9, as in
     * Jinja). Phase 2 decodes that ASCII text. */
    iz cap = (end - beg) * 4 + 1;   /* "é" (2 bytes) -> "\xe9"; 4 bytes -> \UXXXXXXXX */
    u8 *mid = arena_alloc_nz(lx->a, 1, 1, cap);
    if (!mid)
        return ERR_NOMEM;
    iz m = 0;
    for (iz i = beg; i < end;) {
        if (s[i] < 0x80) {
            mid[m++] = s[i++];
            continue;
        }
        int w = utf8_valid_seq(s + i, end - i);
        u32 cp = s[i];
        if (w) {
            iz k = i;
            cp = utf8_next(s, &k);
        } else {
            w = 1;   /* only reachable when tmpl_lex is given invalid UTF-8 */
        }
        i += w;
        int digits = cp < 0x100 ? 2 : cp < 0x10000 ? 4 : 8;
        mid[m++] = '\\';
        mid[m++] = digits == 2 ? 'x' : digits == 4 ? 'u' : 'U';
        for (int k = digits - 1; k >= 0; k--)
            mid[m++] = "0123456789abcdef"[(cp >> (4 * k)) & 15];
    }
    u8 *out = arena_alloc_nz(lx->a, 1, 1, m + 4);   /* no escape grows */
    if (!out)
        return ERR_NOMEM;
    iz o = 0;
    for (iz i = 0; i < m;) {
        u8 c = mid[i++];
        if (c != '\\') {
            out[o++] = c;
            continue;
        }
        if (i >= m) {
            *msg = "\\ at end of string";
            return ERR_SYNTAX;
        }
        c = mid[i++];
        u32 cp;
        int count = 0;
        switch (c) {
        case '\n': continue;
        case '\\': case '\'': case '"': out[o++] = c; continue;
        case 'a': out[o++] = 7; continue;
        case 'b': out[o++] = 8; continue;
        case 'f': out[o++] = 12; continue;
        case 't': out[o++] = 9; continue;
        case 'n': out[o++] = 10; continue;
        case 'r': out[o++] = 13; continue;
        case 'v': out[o++] = 11; continue;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
            cp = (u32)(c - '0');
            for (int k = 0; k < 2 && i < m && is_oct(mid[i]); k++)
                cp = cp * 8 + (u32)(mid[i++] - '0');
            break;
        case 'x': count = 2; *msg = "truncated \\xXX escape"; break;
        case 'u': count = 4; *msg = "truncated \\uXXXX escape"; break;
        case 'U': count = 8; *msg = "truncated \\UXXXXXXXX escape"; break;
        case 'N':
            *msg = "malformed \\N character escape";
            if (i < m && mid[i] == '{') {
                iz close = i + 1;
                while (close < m && mid[close] != '}')
                    close++;
                if (close < m && close > i + 1) {
                    *msg = "\\N{...} escapes (Unicode character names) are not supported";
                    return ERR_UNSUPPORTED;
                }
            }
            return ERR_SYNTAX;
        default:
            out[o++] = '\\';   /* unknown escapes stay as written */
            out[o++] = c;
            continue;
        }
        if (count) {
            cp = 0;
            for (int k = 0; k < count; k++, i++) {
                if (i >= m || !is_hex(mid[i]))
                    return ERR_SYNTAX;
                cp = cp << 4 | (u32)hexval(mid[i]);
            }
            if (cp > 0x10ffff) {
                *msg = "illegal Unicode character";
                return ERR_SYNTAX;
            }
        }
        if (cp >= 0xd800 && cp <= 0xdfff) {
            *msg = "escapes of lone surrogates (\\ud800-\\udfff) are not supported";
            return ERR_UNSUPPORTED;
        }
        o += utf8_encode(cp, out + o);
    }
    out[o] = 0;
    t->v.s = (str){out, o};
    return 0;
}

/* ---- the states ---- */

enum { ST_DONE, ST_ROOT, ST_VAR, ST_BLOCK, ST_COMMENT, ST_RAW };

/* Jinja's OptionalLStrip handling of the text before a tag: `sign` is the
 * tag's whitespace control ('-', '+' or 0); `lstrip` is false for {{.
 * Returns the end of the text to keep. */
static iz strip_text(const lexer *lx, iz beg, iz end, u8 sign, bool lstrip)
{
    if (sign == '-')
        return rstrip_end(lx, beg, end);
    if (sign == '+' || !lstrip)
        return end;
    iz l = end;
    while (l > beg && lx->s[l - 1] != '\n')
        l--;
    if ((l > beg || lx->line_starting) && l < end && rstrip_end(lx, l, end) == l)
        return l;
    return end;
}

/* The raw_begin alternative of the root rule at q ("{%"):
 * {%(-|+|)\s*raw\s*(?:-%}\s*|%}). Returns the match end or -1. */
static iz raw_begin_end(const lexer *lx, iz q)
{
    const u8 *s = lx->s;
    iz i = q + 2;
    if (i < lx->n && (s[i] == '-' || s[i] == '+'))
        i++;
    i = skip_space(lx, i);
    if (i + 3 > lx->n || memcmp(s + i, "raw", 3) != 0)
        return -1;
    i = skip_space(lx, i + 3);
    if (i + 3 <= lx->n && memcmp(s + i, "-%}", 3) == 0)
        return skip_space(lx, i + 3);
    if (i + 2 <= lx->n && memcmp(s + i, "%}", 2) == 0)
        return i + 2;
    return -1;
}

/* Block end at i: \+%}|\-%}\s*|%}\n? (trim_blocks). Returns end or -1. */
static iz block_end_at(const lexer *lx, iz i, u8 close)
{
    const u8 *s = lx->s;
    iz n = lx->n;
    if (i + 3 <= n && s[i] == '+' && s[i + 1] == close && s[i + 2] == '}')
        return i + 3;
    if (i + 3 <= n && s[i] == '-' && s[i + 1] == close && s[i + 2] == '}')
        return skip_space(lx, i + 3);
    if (i + 2 <= n && s[i] == close && s[i + 1] == '}')
        return i + 2 < n && s[i + 2] == '\n' ? i + 3 : i + 2;
    return -1;
}

static int lex_root(lexer *lx)
{
    const u8 *s = lx->s;
    iz n = lx->n, pos = lx->pos;
    iz q = pos;
    for (;; q++) {
        const u8 *p = q < n ? memchr(s + q, '{', (size_t)(n - q)) : NULL;
        if (!p) {
            q = n;
            break;
        }
        q = p - s;
        if (q + 1 < n && (s[q + 1] == '{' || s[q + 1] == '%' || s[q + 1] == '#'))
            break;
    }
    if (q >= n) {   /* the data rule: .+ */
        if (pos < n && !emit(lx, TMPL_TOK_DATA, pos, n - pos))
            return -1;
        lx->pos = n;
        return ST_DONE;
    }
    u8 t = s[q + 1];
    iz after = q + 2;
    u8 sign = after < n && (s[after] == '-' || s[after] == '+') ? s[after] : 0;
    iz raw = t == '%' ? raw_begin_end(lx, q) : -1;
    iz keep = strip_text(lx, pos, q, sign, t != '{');
    if (keep > pos) {
        if (!emit(lx, TMPL_TOK_DATA, pos, keep - pos))
            return -1;
    }
    if (raw >= 0) {
        lx->pos = raw;
        lx->line_starting = s[raw - 1] == '\n';
        return ST_RAW;
    }
    lx->line_starting = false;
    lx->pos = after + (sign != 0);
    if (t == '#')
        return ST_COMMENT;
    if (!emit(lx, t == '{' ? TMPL_TOK_VAR_BEGIN : TMPL_TOK_BLOCK_BEGIN, q, lx->pos - q))
        return -1;
    return t == '{' ? ST_VAR : ST_BLOCK;
}

/* (.*?)((?:\+#}|\-#}\s*|#}\n?)), else Failure("Missing end of comment tag")
 * when any character is left. */
static int lex_comment(lexer *lx)
{
    const u8 *s = lx->s;
    iz n = lx->n, pos = lx->pos;
    for (iz j = pos; j + 1 < n; j++) {
        if (s[j] != '#' || s[j + 1] != '}')
            continue;
        iz end;
        if (j > pos && s[j - 1] == '-')
            end = skip_space(lx, j + 2);
        else if (j > pos && s[j - 1] == '+')
            end = j + 2;
        else
            end = j + 2 < n && s[j + 2] == '\n' ? j + 3 : j + 2;
        lx->pos = end;
        lx->line_starting = s[end - 1] == '\n';
        return ST_ROOT;
    }
    if (pos < n)
        return fail(lx, pos, 0, ERR_SYNTAX, "Missing end of comment tag") ? ST_DONE : -1;
    return ST_DONE;
}

/* (.*?)((?:{%(-|+|))\s*endraw\s*(?:\+%}|\-%}\s*|%}\n?)) with lstrip, else
 * Failure("Missing end of raw directive") when any character is left. */
static int lex_raw(lexer *lx)
{
    const u8 *s = lx->s;
    iz n = lx->n, pos = lx->pos;
    for (iz q = pos; q + 1 < n; q++) {
        if (s[q] != '{' || s[q + 1] != '%')
            continue;
        iz i = q + 2;
        u8 sign = i < n && (s[i] == '-' || s[i] == '+') ? s[i] : 0;
        i = skip_space(lx, i + (sign != 0));
        if (i + 6 > n || memcmp(s + i, "endraw", 6) != 0)
            continue;
        iz end = block_end_at(lx, skip_space(lx, i + 6), '%');
        if (end < 0)
            continue;
        iz keep = strip_text(lx, pos, q, sign, true);
        if (keep > pos) {
            if (!emit(lx, TMPL_TOK_DATA, pos, keep - pos))
                return -1;
        }
        lx->pos = end;
        lx->line_starting = s[end - 1] == '\n';
        return ST_ROOT;
    }
    if (pos < n)
        return fail(lx, pos, 0, ERR_SYNTAX, "Missing end of raw directive") ? ST_DONE : -1;
    return ST_DONE;
}

static int op_kind(const u8 *s, iz i, iz n, iz *len)
{
    *len = 2;
    if (i + 1 < n) {
        u8 a = s[i], b = s[i + 1];
        if (a == '/' && b == '/') return TMPL_TOK_FLOORDIV;
        if (a == '*' && b == '*') return TMPL_TOK_POW;
        if (a == '=' && b == '=') return TMPL_TOK_EQ;
        if (a == '!' && b == '=') return TMPL_TOK_NE;
        if (a == '>' && b == '=') return TMPL_TOK_GTEQ;
        if (a == '<' && b == '=') return TMPL_TOK_LTEQ;
    }
    *len = 1;
    switch (s[i]) {
    case '+': return TMPL_TOK_ADD;
    case '-': return TMPL_TOK_SUB;
    case '/': return TMPL_TOK_DIV;
    case '*': return TMPL_TOK_MUL;
    case '%': return TMPL_TOK_MOD;
    case '~': return TMPL_TOK_TILDE;
    case '[': return TMPL_TOK_LBRACKET;
    case ']': return TMPL_TOK_RBRACKET;
    case '(': return TMPL_TOK_LPAREN;
    case ')': return TMPL_TOK_RPAREN;
    case '{': return TMPL_TOK_LBRACE;
    case '}': return TMPL_TOK_RBRACE;
    case '>': return TMPL_TOK_GT;
    case '<': return TMPL_TOK_LT;
    case '=': return TMPL_TOK_ASSIGN;
    case '.': return TMPL_TOK_DOT;
    case ':': return TMPL_TOK_COLON;
    case '|': return TMPL_TOK_PIPE;
    case ',': return TMPL_TOK_COMMA;
    case ';': return TMPL_TOK_SEMICOLON;
    }
    return -1;
}

/* Inside {{ }} or {% %}: the end rule (only while brackets are balanced),
 * then whitespace, float, integer, name, string, operator. */
static int lex_tag(lexer *lx, int state)
{
    const u8 *s = lx->s;
    iz n = lx->n;
    for (;;) {
        iz pos = lx->pos;
        if (lx->nbal == 0) {
            iz end = -1;
            if (state == ST_BLOCK)
                end = block_end_at(lx, pos, '%');
            else if (pos + 3 <= n && s[pos] == '-' && s[pos + 1] == '}' && s[pos + 2] == '}')
                end = skip_space(lx, pos + 3);
            else if (pos + 2 <= n && s[pos] == '}' && s[pos + 1] == '}')
                end = pos + 2;
            if (end >= 0) {
                if (!emit(lx, state == ST_BLOCK ? TMPL_TOK_BLOCK_END : TMPL_TOK_VAR_END, pos, end - pos))
                    return -1;
                lx->pos = end;
                lx->line_starting = s[end - 1] == '\n';
                return ST_ROOT;
            }
        }
        if (pos >= n)
            return ST_DONE;   /* Jinja's lexer just stops; the parser sees EOF */
        iz e = skip_space(lx, pos);
        if (e > pos) {
            lx->pos = e;
            continue;
        }
        int base;
        tmpl_tok *t;
        u8 c = s[pos];
        if ((e = float_end(lx, pos)) >= 0) {
            if (!(t = emit(lx, TMPL_TOK_FLOAT, pos, e - pos)) || !float_value(lx, t, s + pos))
                return -1;
        } else if ((e = integer_end(lx, pos, &base)) >= 0) {
            if (!(t = emit(lx, TMPL_TOK_INTEGER, pos, e - pos)))
                return -1;
            integer_value(t, s + pos, base);
        } else if (c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) {
            e = pos + 1;
            while (e < n && (s[e] == '_' || is_dec(s[e]) || ((s[e] | 0x20) >= 'a' && (s[e] | 0x20) <= 'z')))
                e++;
            if (!emit(lx, TMPL_TOK_NAME, pos, e - pos))
                return -1;
        } else if (c == '\'' || c == '"') {
            iz i = pos + 1;
            while (i < n && s[i] != c)
                i += s[i] == '\\' ? 2 : 1;
            if (i >= n)
                return fail_char(lx, pos) ? ST_DONE : -1;
            e = i + 1;
            if (!(t = emit(lx, TMPL_TOK_STRING, pos, e - pos)))
                return -1;
            const char *msg = "";
            int code = decode_string(lx, t, pos + 1, i, &msg);
            if (code == ERR_NOMEM)
                return -1;
            if (code) {
                lx->out->n--;   /* the token becomes the error */
                return fail(lx, pos, e - pos, code, "%s", msg) ? ST_DONE : -1;
            }
        } else {
            iz len;
            int k = op_kind(s, pos, n, &len);
            if (k < 0)
                return fail_char(lx, pos) ? ST_DONE : -1;
            if (c == '{' || c == '(' || c == '[') {
                if (lx->nbal == lx->capbal) {
                    u8 *b = arena_grow(lx->a, lx->bal, 1, 1, lx->nbal, &lx->capbal, lx->nbal + 1);
                    if (!b)
                        return -1;
                    lx->bal = b;
                }
                lx->bal[lx->nbal++] = c == '{' ? '}' : c == '(' ? ')' : ']';
            } else if (c == '}' || c == ')' || c == ']') {
                if (lx->nbal == 0)
                    return fail(lx, pos, 1, ERR_SYNTAX, "unexpected '%c'", c) ? ST_DONE : -1;
                u8 want = lx->bal[--lx->nbal];
                if (want != c)
                    return fail(lx, pos, 1, ERR_SYNTAX, "unexpected '%c', expected '%c'", c, want)
                               ? ST_DONE : -1;
            }
            e = pos + len;
            if (!emit(lx, k, pos, len))
                return -1;
        }
        lx->pos = e;
    }
}

int tmpl_lex(arena *a, str src, tmpl_toks *out)
{
    memset(out, 0, sizeof(*out));
    lexer lx = {0};
    lx.a = a;
    lx.s = src.s ? src.s : (const u8 *)"";   /* slices of it are never NULL-based */
    lx.n = src.len;
    lx.cur_line = lx.cur_col = 1;
    lx.line_starting = true;
    lx.out = out;
    lx.last_line = 1;
    /* templates run about one token per five bytes: size for that at once */
    lx.cap = src.len / 5 + 16;
    out->v = arena_alloc_nz(a, (iz)sizeof(tmpl_tok), (iz)_Alignof(tmpl_tok), lx.cap);
    if (!out->v)
        return ERR_NOMEM;
    int st = ST_ROOT;
    while (st != ST_DONE) {
        switch (st) {
        case ST_ROOT:    st = lex_root(&lx); break;
        case ST_COMMENT: st = lex_comment(&lx); break;
        case ST_RAW:     st = lex_raw(&lx); break;
        default:         st = lex_tag(&lx, st); break;
        }
        if (st < 0)
            return ERR_NOMEM;
    }
    if (out->n == 0 || out->v[out->n - 1].kind != TMPL_TOK_ERROR) {
        i32 line = lx.last_line;
        tmpl_tok *t = emit(&lx, TMPL_TOK_EOF, lx.n, 0);
        if (!t)
            return ERR_NOMEM;
        t->line = line;   /* Jinja's EOF token takes the last token's line */
    }
    return ERR_OK;
}

const char *tmpl_tok_kind_name(tmpl_tok_kind k)
{
    static const char *const names[TMPL_TOK_KIND_COUNT] = {
        [TMPL_TOK_EOF] = "eof", [TMPL_TOK_ERROR] = "error", [TMPL_TOK_DATA] = "data",
        [TMPL_TOK_VAR_BEGIN] = "variable_begin", [TMPL_TOK_VAR_END] = "variable_end",
        [TMPL_TOK_BLOCK_BEGIN] = "block_begin", [TMPL_TOK_BLOCK_END] = "block_end",
        [TMPL_TOK_NAME] = "name", [TMPL_TOK_STRING] = "string",
        [TMPL_TOK_INTEGER] = "integer", [TMPL_TOK_FLOAT] = "float",
        [TMPL_TOK_ADD] = "add", [TMPL_TOK_SUB] = "sub", [TMPL_TOK_MUL] = "mul",
        [TMPL_TOK_DIV] = "div", [TMPL_TOK_FLOORDIV] = "floordiv", [TMPL_TOK_MOD] = "mod",
        [TMPL_TOK_POW] = "pow", [TMPL_TOK_TILDE] = "tilde",
        [TMPL_TOK_LBRACKET] = "lbracket", [TMPL_TOK_RBRACKET] = "rbracket",
        [TMPL_TOK_LPAREN] = "lparen", [TMPL_TOK_RPAREN] = "rparen",
        [TMPL_TOK_LBRACE] = "lbrace", [TMPL_TOK_RBRACE] = "rbrace",
        [TMPL_TOK_EQ] = "eq", [TMPL_TOK_NE] = "ne", [TMPL_TOK_GT] = "gt",
        [TMPL_TOK_GTEQ] = "gteq", [TMPL_TOK_LT] = "lt", [TMPL_TOK_LTEQ] = "lteq",
        [TMPL_TOK_ASSIGN] = "assign", [TMPL_TOK_DOT] = "dot", [TMPL_TOK_COLON] = "colon",
        [TMPL_TOK_PIPE] = "pipe", [TMPL_TOK_COMMA] = "comma", [TMPL_TOK_SEMICOLON] = "semicolon",
    };
    return (unsigned)k < TMPL_TOK_KIND_COUNT && names[k] ? names[k] : "?";
}
