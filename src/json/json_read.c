/* json_read.c - recursive-descent JSON parser (RFC 8259, strict: no NaN,
 * no comments, no trailing commas, no raw control characters in strings,
 * no lone surrogate escapes, valid UTF-8 only).
 *
 * Containers are collected on a growable stack in the parser and copied into
 * the arena when they close, so each array or object is one contiguous block. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "../base/hash.h"
#include "../base/utf8.h"

typedef struct {
    arena     *a;
    const u8  *s;
    iz         n, i;
    int        depth, max_depth;
    err       *e;
    jmp_buf    fail;
    /* scratch stacks for open containers: first in json_parse's frame
     * (vals0, mems0: a small document needs no heap), then on the heap */
    json       *vals, *vals0;
    iz          nvals, capvals;
    json_member *mems, *mems0;
    iz          nmems, capmems;
    str         *keys;       /* intern_key's table (KEY_SLOTS), once in use */
    str         *keys0;      /* its room in json_parse's frame, not zeroed */
    i32          nkeys;      /* keys read so far, up to KEY_FEW */
} parser;

enum { STACK0 = 16 };   /* entries of the stacks in json_parse's frame */

static void describe(const parser *p, iz at, char *out, size_t cap)
{
    if (at >= p->n) {
        snprintf(out, cap, "end of input");
        return;
    }
    u8 c = p->s[at];
    if (c >= 0x20 && c < 0x7f)
        snprintf(out, cap, "'%c'", c);
    else
        snprintf(out, cap, "byte 0x%02X", c);
}

static _Noreturn void fail(parser *p, iz at, int code, const char *what)
{
    char found[32];
    describe(p, at, found, sizeof(found));
    err_set(p->e, code, at, "%s, found %s", what, found);
    if (p->e) {
        i32 line = 1, col = 1;
        for (iz k = 0; k < at && k < p->n; k++) {
            if (p->s[k] == '\n') {
                line++;
                col = 1;
            } else if ((p->s[k] & 0xc0) != 0x80) {
                col++;
            }
        }
        p->e->line = line;
        p->e->col = col;
    }
    longjmp(p->fail, 1);
}

static void skip_ws(parser *p)
{
    while (p->i < p->n) {
        u8 c = p->s[p->i];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            break;
        p->i++;
    }
}

static void *stack_grow(parser *p, void *base, const void *frame, iz size, iz n, iz *cap)
{
    iz c = *cap < 64 ? 64 : *cap * 2;
    void *q = base == frame ? malloc((size_t)(c * size)) : realloc(base, (size_t)(c * size));
    if (!q) {
        err_set(p->e, ERR_NOMEM, p->i, "out of memory");
        longjmp(p->fail, 1);
    }
    if (base == frame && n)
        memcpy(q, base, (size_t)(n * size));
    *cap = c;
    return q;
}

static void stacks_free(parser *p)
{
    if (p->vals != p->vals0)
        free(p->vals);
    if (p->mems != p->mems0)
        free(p->mems);
}

static int hexval(u8 c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static u32 read_hex4(parser *p, iz at)
{
    u32 v = 0;
    for (iz k = 0; k < 4; k++) {
        if (at + k >= p->n)
            fail(p, p->n, ERR_SYNTAX, "truncated \\u escape");
        int h = hexval(p->s[at + k]);
        if (h < 0)
            fail(p, at + k, ERR_SYNTAX, "expected a hex digit in \\u escape");
        v = v << 4 | (u32)h;
    }
    return v;
}

/* string = '"' chars '"'; p->i is on the opening quote. */
static str parse_string(parser *p)
{
    iz start = ++p->i;
    const u8 *s = p->s;
    iz i = start;
    bool escapes = false;
    for (;;) {
        /* plain ASCII, 8 bytes at a time (a false alarm only sends a word
         * to the byte loop below) */
        while (i + 8 <= p->n) {
            u64 w;
            memcpy(&w, s + i, 8);
            u64 m = json_swar_mask(w);
            if (m) {
                i += json_swar_first(m);
                break;
            }
            i += 8;
        }
        if (i >= p->n)
            fail(p, p->n, ERR_SYNTAX, "unterminated string");
        u8 c = s[i];
        if (c == '"')
            break;
        if (c == '\\') {
            escapes = true;
            i += 2;
            continue;
        }
        if (c < 0x20)
            fail(p, i, ERR_SYNTAX, "control character in string");
        if (c >= 0x80) {
            int len = utf8_valid_seq(s + i, p->n - i);
            if (!len)
                fail(p, i, ERR_UTF8, "invalid UTF-8 in string");
            i += len;
            continue;
        }
        i++;
    }
    iz end = i;
    p->i = end + 1;
    if (!escapes)
        return str_from(s + start, end - start);

    u8 *out = arena_alloc_nz(p->a, 1, 1, end - start + 1);
    iz o = 0;
    for (i = start; i < end;) {
        u8 c = s[i];
        if (c != '\\') {
            /* the run up to the next escape, in one copy */
            const u8 *bs = memchr(s + i, '\\', (size_t)(end - i));
            iz run = bs ? (iz)(bs - (s + i)) : end - i;
            memcpy(out + o, s + i, (size_t)run);
            o += run;
            i += run;
            continue;
        }
        if (i + 1 >= end)
            fail(p, i, ERR_SYNTAX, "truncated escape");
        u8 x = s[i + 1];
        i += 2;
        switch (x) {
        case '"':  out[o++] = '"'; break;
        case '\\': out[o++] = '\\'; break;
        case '/':  out[o++] = '/'; break;
        case 'b':  out[o++] = '\b'; break;
        case 'f':  out[o++] = '\f'; break;
        case 'n':  out[o++] = '\n'; break;
        case 'r':  out[o++] = '\r'; break;
        case 't':  out[o++] = '\t'; break;
        case 'u': {
            u32 cp = read_hex4(p, i);
            iz at = i - 2;
            i += 4;
            if (cp >= 0xdc00 && cp <= 0xdfff)
                fail(p, at, ERR_UTF8, "lone low surrogate escape");
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (i + 6 > end || s[i] != '\\' || s[i + 1] != 'u')
                    fail(p, at, ERR_UTF8, "lone high surrogate escape");
                u32 lo = read_hex4(p, i + 2);
                if (lo < 0xdc00 || lo > 0xdfff)
                    fail(p, at, ERR_UTF8, "lone high surrogate escape");
                i += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            o += utf8_encode(cp, out + o);
            break;
        }
        default:
            fail(p, i - 2, ERR_SYNTAX, "invalid escape");
        }
    }
    out[o] = 0;
    return str_from(out, o);
}

/* number = '-'? int frac? exp?  with int = '0' | [1-9][0-9]* */
static void parse_number(parser *p, json *v)
{
    const u8 *s = p->s;
    iz start = p->i, i = start;
    bool is_float = false;
    if (i < p->n && s[i] == '-')
        i++;
    if (i >= p->n || s[i] < '0' || s[i] > '9')
        fail(p, i, ERR_SYNTAX, "expected a digit");
    if (s[i] == '0') {
        i++;
    } else {
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < p->n && s[i] == '.') {
        is_float = true;
        i++;
        if (i >= p->n || s[i] < '0' || s[i] > '9')
            fail(p, i, ERR_SYNTAX, "expected a digit after '.'");
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
        is_float = true;
        i++;
        if (i < p->n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= p->n || s[i] < '0' || s[i] > '9')
            fail(p, i, ERR_SYNTAX, "expected a digit in exponent");
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    p->i = i;
    v->u.num = str_from(s + start, i - start);
    char tmp[64];
    char *txt = tmp;
    iz len = i - start;
    if (len >= (iz)sizeof(tmp))
        txt = arena_alloc_nz(p->a, 1, 1, len + 1);
    memcpy(txt, s + start, (size_t)len);
    txt[len] = 0;
    if (is_float) {
        v->type = JSON_FLOAT;
        v->u.f = strtod(txt, NULL);   /* overflow gives inf, as Python's float() */
    } else {
        v->type = JSON_INT;
        errno = 0;
        long long x = strtoll(txt, NULL, 10);
        if (errno == ERANGE) {
            v->big = true;
            v->u.i = 0;
        } else {
            v->u.i = x;
        }
    }
}

static void expect_word(parser *p, const char *w, iz len)
{
    if (p->i + len > p->n || memcmp(p->s + p->i, w, (size_t)len) != 0)
        fail(p, p->i, ERR_SYNTAX, "expected a JSON value");
    p->i += len;
}

static void parse_value(parser *p, json *v);

/* A container's tree (json.u.arr.tree): what the arena allocated between
 * its opening (mark m) and its own block, when that is all in one arena
 * block. */
static u32 tree_size(const parser *p, arena_mark m, const void *block)
{
    uintptr_t b = (uintptr_t)block, s = (uintptr_t)m.beg;
    if (p->a->head != m.head || b < s || b - s > UINT32_MAX)
        return 0;
    return (u32)(b - s);
}

static void parse_array(parser *p, json *v)
{
    v->type = JSON_ARR;
    p->i++;
    iz base = p->nvals;
    arena_mark t0 = arena_save(p->a);
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == ']') {
        p->i++;
        return;
    }
    for (;;) {
        json item;
        parse_value(p, &item);
        if (p->nvals == p->capvals)
            p->vals = stack_grow(p, p->vals, p->vals0, sizeof(json), p->nvals, &p->capvals);
        p->vals[p->nvals++] = item;
        skip_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->s[p->i] == ']') {
            p->i++;
            break;
        }
        fail(p, p->i, ERR_SYNTAX, "expected ',' or ']' in array");
    }
    iz n = p->nvals - base;
    v->u.arr.items = NEW_NZ(p->a, json, n);
    memcpy(v->u.arr.items, p->vals + base, (size_t)n * sizeof(json));
    v->u.arr.n = n;
    v->u.arr.tree = tree_size(p, t0, v->u.arr.items);
    p->nvals = base;
}

/* Object keys repeat (every message of a history has "role" and
 * "content"): a key met before in the document takes the bytes of its
 * first occurrence, as Python's json module shares one key object, so a
 * reader looking keys up across many objects compares against a few bytes
 * that stay in cache instead of bytes spread over the whole document (the
 * template engine's attribute lookups). A small direct-mapped table; keys
 * over KEY_MAX bytes stay where they are. A document's first KEY_FEW keys
 * stay too: a small document (an event) is not worth clearing the table. */
enum { KEY_SLOTS = 64, KEY_MAX = 32, KEY_FEW = 16 };

static str intern_key(parser *p, str k)
{
    if (!p->keys) {
        if (++p->nkeys <= KEY_FEW)
            return k;
        p->keys = p->keys0;
        memset(p->keys, 0, KEY_SLOTS * sizeof *p->keys);
    }
    if (k.len == 0 || k.len > KEY_MAX)
        return k;
    u64 h = (u64)k.len * 0x9e3779b97f4a7c15ull ^ (u64)k.s[0] * 31 ^ (u64)k.s[k.len - 1] * 131 ^
            (u64)k.s[k.len / 2] * 8191;
    str *slot = &p->keys[hash_mix(h) & (KEY_SLOTS - 1)];
    if (str_eq(*slot, k))
        return *slot;
    *slot = k;
    return k;
}

static void parse_object(parser *p, json *v)
{
    v->type = JSON_OBJ;
    p->i++;
    iz base = p->nmems;
    arena_mark t0 = arena_save(p->a);
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
        return;
    }
    for (;;) {
        skip_ws(p);
        if (p->i >= p->n || p->s[p->i] != '"')
            fail(p, p->i, ERR_SYNTAX, "expected a string key in object");
        json_member m;
        m.key = intern_key(p, parse_string(p));
        skip_ws(p);
        if (p->i >= p->n || p->s[p->i] != ':')
            fail(p, p->i, ERR_SYNTAX, "expected ':' after object key");
        p->i++;
        parse_value(p, &m.val);
        if (p->nmems == p->capmems)
            p->mems = stack_grow(p, p->mems, p->mems0, sizeof(json_member), p->nmems, &p->capmems);
        p->mems[p->nmems++] = m;
        skip_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->s[p->i] == '}') {
            p->i++;
            break;
        }
        fail(p, p->i, ERR_SYNTAX, "expected ',' or '}' in object");
    }
    iz n = p->nmems - base;
    v->u.obj.members = NEW_NZ(p->a, json_member, n);
    memcpy(v->u.obj.members, p->mems + base, (size_t)n * sizeof(json_member));
    v->u.obj.n = n;
    v->u.obj.tree = tree_size(p, t0, v->u.obj.members);
    p->nmems = base;
}

/* value = object | array | string | number | true | false | null */
static void parse_value(parser *p, json *v)
{
    skip_ws(p);
    memset(v, 0, sizeof(*v));
    v->off = (i32)p->i;   /* json_parse bounds the text by JSON_MAX_TEXT */
    if (p->i >= p->n)
        fail(p, p->i, ERR_SYNTAX, "expected a JSON value");
    u8 c = p->s[p->i];
    switch (c) {
    case '{':
    case '[':
        if (++p->depth > p->max_depth)
            fail(p, p->i, ERR_LIMIT, "nesting deeper than the limit");
        if (c == '{')
            parse_object(p, v);
        else
            parse_array(p, v);
        p->depth--;
        return;
    case '"':
        v->type = JSON_STR;
        v->u.s = parse_string(p);
        return;
    case 't':
        expect_word(p, "true", 4);
        v->type = JSON_BOOL;
        v->u.b = true;
        return;
    case 'f':
        expect_word(p, "false", 5);
        v->type = JSON_BOOL;
        return;
    case 'n':
        expect_word(p, "null", 4);
        v->type = JSON_NULL;
        return;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            parse_number(p, v);
            return;
        }
        fail(p, p->i, ERR_SYNTAX, "expected a JSON value");
    }
}

json *json_parse(arena *a, str src, const json_opts *opt, err *e)
{
    /* A node keeps its offset in 32 bits. */
    if (src.len > JSON_MAX_TEXT) {
        err_set(e, ERR_LIMIT, 0, "JSON text of %td bytes, more than the limit of %d bytes", src.len,
                JSON_MAX_TEXT);
        return NULL;
    }
    parser p = {0};
    json vals0[STACK0];
    json_member mems0[STACK0];
    str keys0[KEY_SLOTS];
    p.keys0 = keys0;
    p.vals = p.vals0 = vals0;
    p.mems = p.mems0 = mems0;
    p.capvals = p.capmems = STACK0;
    p.a = a;
    p.s = src.s;
    p.n = src.len;
    p.e = e;
    p.max_depth = opt && opt->max_depth > 0 ? opt->max_depth : JSON_MAX_DEPTH;
    jmp_buf *saved = a->oom;
    json *root = NULL;
    /* Out of memory in the arena lands here too: one error path. */
    if (setjmp(p.fail)) {
        if (a->oom == &p.fail && (!e || e->code == ERR_OK || e->code == 0))
            err_set(e, ERR_NOMEM, p.i, "out of memory");
        a->oom = saved;
        stacks_free(&p);
        return NULL;
    }
    if (e)
        e->code = ERR_OK;
    a->oom = &p.fail;
    root = NEW(a, json, 1);
    parse_value(&p, root);
    skip_ws(&p);
    if (p.i != p.n)
        fail(&p, p.i, ERR_SYNTAX, "unexpected data after the JSON value");
    a->oom = saved;
    stacks_free(&p);
    return root;
}
