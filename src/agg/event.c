/* event.c - the decoder of one events.jsonl line (event.h): a reader that
 * walks the line as msgspec 0.20's JSON decoder walks it for upstream's
 * EventRecord (msgspec/_core.c: json_decode, json_skip and their helpers),
 * so that it takes and refuses the same lines and stops at the same first
 * error with the same exception and message; then the payload's tree is
 * built with json_parse. The Python-side pieces (the topic hook of
 * core/record.py, str() and repr() in its messages, CPython's UTF-8
 * decoder's errors) are in event_py.c.
 *
 * msgspec reads a value in one of two modes, and so does this file: a
 * value the struct keeps is *decoded* against its type (a wrong type is a
 * ValidationError at once, even before the value's own syntax is looked
 * at: '[' where an int is wanted); a value it drops (an unknown key, an
 * extra payload element) is *skipped*, checked only as JSON and with
 * slightly different messages and byte offsets. Both are ported branch by
 * branch; the comments name the msgspec function each one follows. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "event.h"
#include "event_py.h"
#include "../base/utf8.h"

/* ---- event types ------------------------------------------------------------ */

static const char *const topics[AGG_EV_COUNT] = {
    "session.started", "session.ended", "session.stop_loadgen", "session.start_performance_tracking",
    "session.stop_performance_tracking", "error.generic", "error.loadgen", "error.session", "error.client",
    "sample.issued", "sample.complete", "sample.recv_first", "sample.recv_non_first",
};

#define TOPIC(t) {(const u8 *)(t), lengthof(t)}
static const str topic_strs[AGG_EV_COUNT] = {
    TOPIC("session.started"), TOPIC("session.ended"), TOPIC("session.stop_loadgen"),
    TOPIC("session.start_performance_tracking"), TOPIC("session.stop_performance_tracking"), TOPIC("error.generic"),
    TOPIC("error.loadgen"), TOPIC("error.session"), TOPIC("error.client"), TOPIC("sample.issued"),
    TOPIC("sample.complete"), TOPIC("sample.recv_first"), TOPIC("sample.recv_non_first"),
};
#undef TOPIC

bool agg_ev_is_session(int type) { return type >= AGG_EV_SESSION_STARTED && type <= AGG_EV_SESSION_STOP_TRACKING; }
bool agg_ev_is_error(int type) { return type >= AGG_EV_ERROR_GENERIC && type <= AGG_EV_ERROR_CLIENT; }
bool agg_ev_is_sample(int type) { return type >= AGG_EV_SAMPLE_ISSUED && type <= AGG_EV_SAMPLE_RECV_NON_FIRST; }

const char *agg_ev_topic(int type)
{
    return type >= 0 && type < AGG_EV_COUNT ? topics[type] : "";
}

/* ---- types: msgspec's TypeNode, for the fields of EventRecord ---------------- */

enum {
    T_ANY = 1 << 0,
    T_INT = 1 << 1,
    T_STR = 1 << 2,
    T_DICT = 1 << 3,     /* dict[str, Any] */
    T_ARR = 1 << 4,      /* tuple[el, ...] */
    T_UNION = 1 << 5,    /* the tagged array-like union of the payloads */
    T_STRUCT = 1 << 6,   /* EventRecord (a map) */
    T_NULL = 1 << 7,
    T_CUSTOM = 1 << 8,   /* EventType: decoded as Any, then the hook */
};

typedef struct ty {
    u16 f;
    const struct ty *el;   /* T_ARR: the element type */
} ty;

static const ty t_any = {T_ANY, NULL};
static const ty t_topic = {T_ANY | T_CUSTOM, NULL};
static const ty t_int = {T_INT, NULL};
static const ty t_str = {T_STR, NULL};
static const ty t_int_null = {T_INT | T_NULL, NULL};
static const ty t_str_null = {T_STR | T_NULL, NULL};
static const ty t_data = {T_UNION | T_NULL, NULL};
static const ty t_record = {T_STRUCT, NULL};
static const ty t_ids = {T_ARR | T_NULL, &t_int};                 /* tuple[int, ...] | None */
static const ty t_dict = {T_DICT, NULL};                          /* dict[str, Any] */
static const ty t_dicts_null = {T_ARR | T_NULL, &t_dict};         /* tuple[dict[str, Any], ...] | None */
static const ty t_dict_null = {T_DICT | T_NULL, NULL};
static const ty t_str_dict_null = {T_STR | T_DICT | T_NULL, NULL};
static const ty t_output = {T_STR | T_ARR, &t_str};               /* str | tuple[str, ...] */
static const ty t_output_null = {T_STR | T_ARR | T_NULL, &t_str};
static const ty t_anys_null = {T_ARR | T_NULL, &t_any};           /* tuple[Any, ...] | None */

/* typenode_simple_repr: "int | null", "str | object | null", ... */
static void ty_repr(const ty *t, char *out, size_t cap)
{
    if (t->f & T_ANY) {
        snprintf(out, cap, "any");
        return;
    }
    static const struct { u16 f; const char *name; } parts[] = {
        {T_INT, "int"}, {T_STR, "str"}, {T_DICT | T_STRUCT, "object"}, {T_ARR | T_UNION, "array"}, {T_NULL, "null"},
    };
    size_t n = 0;
    out[0] = 0;
    for (iz k = 0; k < countof(parts); k++)
        if (t->f & parts[k].f) {
            int w = snprintf(out + n, cap - n, "%s%s", n ? " | " : "", parts[k].name);
            n += w > 0 ? (size_t)w : 0;
            if (n >= cap)
                break;
        }
}

/* The payload structs: tag, fields (types and names for paths), the
 * number of leading fields without a default. */
typedef struct payload {
    const char *tag;
    int kind;
    int nfields, nrequired;
    const ty *types[7];
} payload;

static const payload payloads[3] = {
    {"TextModelOutput", AGG_DATA_OUTPUT, 3, 0, {&t_output, &t_output_null, &t_anys_null}},
    {"PromptData", AGG_DATA_PROMPT, 7, 0,
     {&t_str_null, &t_ids, &t_dicts_null, &t_dicts_null, &t_dict_null, &t_str_null, &t_str_dict_null}},
    {"ErrorData", AGG_DATA_ERROR, 2, 1, {&t_str, &t_str}},
};

/* EventRecord's fields, in order. */
enum { F_EVENT_TYPE, F_TIMESTAMP, F_UUID, F_CONV, F_TURN, F_DATA, F_FINISH, F_WORKER, F_COUNT };
static const char *const field_names[F_COUNT] = {
    "event_type", "timestamp_ns", "sample_uuid", "conversation_id", "turn", "data", "finish_reason", "worker_id",
};
static const ty *const field_types[F_COUNT] = {
    &t_topic, &t_int, &t_str, &t_str, &t_int_null, &t_data, &t_str, &t_int,
};

/* ---- paths: msgspec's PathNode ---------------------------------------------- */

enum { P_FIELD, P_INDEX, P_ELLIPSIS };

typedef struct path {
    const struct path *up;
    int kind;
    iz index;
    const char *name;
} path;

/* The path from the root to p (at most AGG_EVENT_MAX_DEPTH deep). */
static void path_write(const path *p, buf *b)
{
    if (p->up)
        path_write(p->up, b);
    if (p->kind == P_FIELD) {
        buf_byte(b, '.');
        buf_cstr(b, p->name);
    } else if (p->kind == P_ELLIPSIS) {
        buf_cstr(b, "[...]");
    } else {
        buf_printf(b, "[%td]", p->index);
    }
}

/* PathNode_ErrSuffix: " - at `$.data[3][0][...]`", or "" at the top. */
static void path_suffix(const path *p, buf *b)
{
    if (!p)
        return;
    buf_cstr(b, " - at `$");
    path_write(p, b);
    buf_byte(b, '`');
}

/* ---- the reader ---------------------------------------------------------------- */

typedef struct dec {
    const u8 *beg, *p, *end;
    int depth;            /* Py_EnterRecursiveCall levels */
    int wire;             /* levels of the kept value being decoded, empty containers not counted */
    int wire_max;
    bool overflow;        /* a kept int outside [-2^63, 2^64 - 1] */
    arena *a;
    agg_decode_error *de;
    int code;             /* of the error, ERR_OK while none */
    buf msg;              /* the error's message being built */
    u8 *scratch;          /* unescaped strings */
    iz scap;
    struct record *rec;   /* what the record's fields decode to */
    bool in_payload;      /* decoding the payload: its strings need no copy */
    int tag;              /* the tree path: the payload walked last */
    str line;
} dec;

/* What a decoded value is, for the callers that keep something of it. */
typedef struct val {
    u8 kind;              /* V_* */
    bool neg;
    i64 i;                /* V_INT: the value (INT64_MAX when above) */
    u64 u;                /* V_INT: its magnitude */
    bool big;             /* V_INT beyond 64 bits */
    str s;                /* V_STR: the unescaped bytes (input or scratch) */
    bool in_scratch;
    const u8 *at, *to;    /* the value's bytes in the input */
    int tag;              /* V_PAYLOAD: index into payloads */
    const u8 *last;       /* V_PAYLOAD: the end of its last field (elements after it skipped) */
    bool extras;          /* V_PAYLOAD: elements were skipped */
    bool overflow;        /* a record field's value holds an int beyond 64 bits */
    int wire;             /* a record field's value: its levels for the wire */
    const json *node;     /* the tree path: the value's node */
} val;

enum { V_NULL, V_BOOL, V_INT, V_FLOAT, V_STR, V_ARR, V_OBJ, V_PAYLOAD, V_RECORD };

static bool fail_with(dec *d, int code, const char *cls)
{
    if (d->code == ERR_OK) {
        d->code = code;
        if (d->de)
            snprintf(d->de->cls, sizeof d->de->cls, "%s", cls);
    }
    return false;
}

/* json_err_invalid: "JSON is malformed: <what> (byte N)" at d->p. */
static bool malformed(dec *d, const char *what)
{
    d->msg.len = 0;
    buf_printf(&d->msg, "JSON is malformed: %s (byte %td)", what, d->p - d->beg);
    return fail_with(d, ERR_SYNTAX, "DecodeError");
}

/* ms_err_truncated */
static bool truncated(dec *d)
{
    d->msg.len = 0;
    buf_cstr(&d->msg, "Input data was truncated");
    return fail_with(d, ERR_SYNTAX, "DecodeError");
}

/* ms_raise_validation_error: the message, then the path's suffix. */
static bool invalid(dec *d, const path *pa, const char *fmt, ...) PRINTF_LIKE(3, 4);
static bool invalid(dec *d, const path *pa, const char *fmt, ...)
{
    d->msg.len = 0;
    char m[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    buf_cstr(&d->msg, m);
    path_suffix(pa, &d->msg);
    return fail_with(d, ERR_INVALID, "ValidationError");
}

/* ms_validation_error: "Expected `<type>`, got `<what>`". */
static bool wrong_type(dec *d, const ty *t, const path *pa, const char *got)
{
    char want[64];
    ty_repr(t, want, sizeof want);
    return invalid(d, pa, "Expected `%s`, got `%s`", want, got);
}

/* Py_EnterRecursiveCall(" while deserializing an object") */
static bool enter(dec *d)
{
    if (d->depth >= AGG_EVENT_MAX_DEPTH) {
        d->msg.len = 0;
        buf_cstr(&d->msg, "maximum recursion depth exceeded while deserializing an object");
        return fail_with(d, ERR_LIMIT, "RecursionError");
    }
    d->depth++;
    return true;
}

static inline void leave(dec *d) { d->depth--; }

/* json_peek_skip_ws: the next byte after JSON whitespace, or truncated. */
static inline bool peek(dec *d, u8 *c)
{
    while (d->p < d->end) {
        u8 x = *d->p;
        if (x != ' ' && x != '\n' && x != '\r' && x != '\t') {
            *c = x;
            return true;
        }
        d->p++;
    }
    return truncated(d);
}

static inline bool is_digit(u8 c) { return c >= '0' && c <= '9'; }

/* ---- strings ------------------------------------------------------------------- */

/* char_types: -1 for '"', '\\' and control bytes, 1 for non-ASCII, 0 else. */
static inline bool special(u8 c) { return c == '"' || c == '\\' || c < 0x20; }

static bool scratch_put(dec *d, iz *n, const u8 *p, iz len)
{
    if (*n + len + 4 > d->scap) {
        iz cap = d->scap ? d->scap : 256;
        while (cap < *n + len + 4)
            cap *= 2;
        u8 *s = arena_alloc_nz(d->a, 1, 1, cap);
        if (*n)
            memcpy(s, d->scratch, (size_t)*n);
        d->scratch = s;
        d->scap = cap;
    }
    memcpy(d->scratch + *n, p, (size_t)len);
    *n += len;
    return true;
}

/* json_read_codepoint: 4 hex digits (the position of an error is after
 * the bad digit, as msgspec advances before it looks). */
static bool read_cp(dec *d, u32 *out)
{
    if (d->end - d->p < 4)
        return truncated(d);
    u32 cp = 0;
    for (int k = 0; k < 4; k++) {
        u8 c = *d->p++;
        if (c >= '0' && c <= '9')
            c = (u8)(c - '0');
        else if (c >= 'a' && c <= 'f')
            c = (u8)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            c = (u8)(c - 'A' + 10);
        else
            return malformed(d, "invalid character in unicode escape");
        cp = (cp << 4) + c;
    }
    *out = cp;
    return true;
}

/* After "\u": one code point, a surrogate pair taken whole. `skip` picks
 * json_skip_string's message for a missing second half. */
static bool unicode_escape(dec *d, bool skip, u32 *out)
{
    u32 cp;
    if (!read_cp(d, &cp))
        return false;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return malformed(d, "invalid utf-16 surrogate pair");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (d->end - d->p < 6)
            return truncated(d);
        if (d->p[0] != '\\' || d->p[1] != 'u')
            return malformed(d, skip ? "unexpected end of hex escape"
                                     : "unexpected end of escaped utf-16 surrogate pair");
        d->p += 2;
        u32 lo;
        if (!read_cp(d, &lo))
            return false;
        if (lo < 0xdc00 || lo > 0xdfff)
            return malformed(d, "invalid utf-16 surrogate pair");
        cp = 0x10000 + (((cp - 0xd800) << 10) | (lo - 0xdc00));
    }
    *out = cp;
    return true;
}

static inline void scan_plain(dec *d, bool *na);

/* json_skip_string, at the opening quote. */
static bool skip_string(dec *d)
{
    d->p++;
    for (;;) {
        bool na = false;
        scan_plain(d, &na);
        if (d->p == d->end)
            return truncated(d);
        u8 c = *d->p;
        if (c == '"') {
            d->p++;
            return true;
        }
        if (c != '\\')
            return malformed(d, "invalid character");
        d->p++;
        if (d->p == d->end)
            return truncated(d);
        switch (*d->p) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            d->p++;
            break;
        case 'u': {
            d->p++;
            u32 cp;
            if (!unicode_escape(d, true, &cp))
                return false;
            break;
        }
        default:
            return malformed(d, "invalid escaped character");
        }
    }
}

/* Advances d->p to the next '"', '\\' or control byte, or to the end;
 * *na is set when a byte >= 0x80 was passed. Eight bytes at a time: the
 * tests flag a zero byte of w ^ '"' or w ^ '\\', or a byte below 0x20,
 * each exact for the lowest flagged byte (a borrow only runs upwards). */
static inline void scan_plain(dec *d, bool *na)
{
    const u64 ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    for (;;) {
#if defined(__SSE2__)
        /* sixteen at a time: quote, backslash, or below 0x20 (as signed
         * bytes: 0x00..0x1f, not the non-ASCII ones, which are negative) */
        const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'), v1f = _mm_set1_epi8(0x1f);
        while (d->end - d->p >= 16) {
            __m128i w = _mm_loadu_si128((const __m128i *)(const void *)d->p);
            __m128i ctl = _mm_and_si128(_mm_cmpgt_epi8(w, _mm_set1_epi8(-1)), _mm_cmplt_epi8(w, _mm_add_epi8(v1f, _mm_set1_epi8(1))));
            int m = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, vq), _mm_cmpeq_epi8(w, vb)), ctl));
            int hi = _mm_movemask_epi8(w);
            if (m) {
                int k = __builtin_ctz((unsigned)m);
                *na |= (hi & ((1 << k) - 1)) != 0;
                d->p += k;
                break;
            }
            *na |= hi != 0;
            d->p += 16;
        }
#endif
        while (d->end - d->p >= 8) {
            u64 w;
            memcpy(&w, d->p, 8);
            u64 q = w ^ (ones * '"'), b = w ^ (ones * '\\');
            u64 m = (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & high;
            if (m) {
                int k = json_swar_first(m);
                for (int j = 0; j < k; j++)
                    *na |= d->p[j] >= 0x80;
                d->p += k;
                break;
            }
            *na |= (w & high) != 0;
            d->p += 8;
        }
        if (d->p == d->end)
            return;
        u8 c = *d->p;
        if (special(c))
            return;
        *na |= c >= 0x80;
        d->p++;
    }
}

/* json_decode_string_view (and _copy), at the opening quote: the
 * unescaped bytes, in place when there is no escape, else in scratch.
 * *nonascii: some byte >= 0x80 or a \u escape (msgspec's !is_ascii), the
 * case where a str wanted is decoded as UTF-8 and may fail. */
static bool string_view(dec *d, str *out, bool *nonascii, bool *copied)
{
    d->p++;
    const u8 *start = d->p;
    bool na = false;
    scan_plain(d, &na);
    if (d->p == d->end)
        return truncated(d);
    if (*d->p == '"') {
        *out = str_from(start, d->p - start);
        d->p++;
        *nonascii = na;
        *copied = false;
        return true;
    }
    /* json_decode_string_view_copy: escapes (or a control byte) */
    iz n = 0;
    for (;;) {
        u8 c = *d->p;
        if (c == '\\') {
            scratch_put(d, &n, start, d->p - start);
            d->p++;
            if (d->p == d->end)
                return truncated(d);
            c = *d->p++;
            u8 one;
            switch (c) {
            case 'n': one = '\n'; break;
            case '"': one = '"'; break;
            case 't': one = '\t'; break;
            case 'r': one = '\r'; break;
            case '\\': one = '\\'; break;
            case '/': one = '/'; break;
            case 'b': one = '\b'; break;
            case 'f': one = '\f'; break;
            case 'u': {
                na = true;
                u32 cp;
                if (!unicode_escape(d, false, &cp))
                    return false;
                u8 enc[4];
                int k = utf8_encode(cp, enc);
                scratch_put(d, &n, enc, k);
                start = d->p;
                goto next;
            }
            default:
                return malformed(d, "invalid escape character in string");
            }
            scratch_put(d, &n, &one, 1);
            start = d->p;
        } else if (c == '"') {
            scratch_put(d, &n, start, d->p - start);
            d->p++;
            *out = str_from(d->scratch, n);
            *nonascii = na;
            *copied = true;
            return true;
        } else {
            return malformed(d, "invalid character");
        }
    next:
        scan_plain(d, &na);
        if (d->p == d->end)
            return truncated(d);
    }
}

/* string_view for a str whose bytes nobody keeps (Any strings, a dict's
 * keys): the same errors, in the same order, without the copy. The
 * unescaped string is valid UTF-8 exactly when every run between escapes
 * is (an escape writes whole characters, never a continuation byte); when
 * one is not, the string is read again with string_view for CPython's
 * message. */
static bool utf8_check(dec *d, str s);

static bool string_checked(dec *d)
{
    const u8 *quote = d->p;
    d->p++;
    const u8 *run = d->p;
    bool bad = false;
    for (;;) {
        bool na = false;
        scan_plain(d, &na);
        if (d->p == d->end)
            return truncated(d);
        if (na && !bad)
            bad = utf8_invalid_at(str_from(run, d->p - run)) >= 0;
        u8 c = *d->p;
        if (c == '"') {
            d->p++;
            break;
        }
        if (c != '\\')
            return malformed(d, "invalid character");
        d->p++;
        if (d->p == d->end)
            return truncated(d);
        c = *d->p++;
        switch (c) {
        case 'n': case '"': case 't': case 'r': case '\\': case '/': case 'b': case 'f':
            break;
        case 'u': {
            u32 cp;
            if (!unicode_escape(d, false, &cp))
                return false;
            break;
        }
        default:
            return malformed(d, "invalid escape character in string");
        }
        run = d->p;
    }
    if (!bad)
        return true;
    d->p = quote;
    str s;
    bool na, cp;
    if (!string_view(d, &s, &na, &cp))
        return false;
    return utf8_check(d, s);
}

/* PyUnicode_DecodeUTF8 of a decoded string: UnicodeDecodeError as CPython
 * words it, positions in the unescaped bytes. */
static bool utf8_check(dec *d, str s)
{
    if (utf8_invalid_at(s) < 0)
        return true;
    d->msg.len = 0;
    agg_py_utf8_error(s, &d->msg);
    return fail_with(d, ERR_UTF8, "UnicodeDecodeError");
}

/* ---- literals and numbers ----------------------------------------------------- */

/* json_decode_none/true/false: the word read whole, then compared. */
static bool literal(dec *d, const char *rest, iz n)
{
    d->p++;
    if (d->end - d->p < n)
        return truncated(d);
    bool same = !memcmp(d->p, rest, (size_t)n);
    d->p += n;
    return same ? true : malformed(d, "invalid character");
}

/* json_skip_ident: the first byte that differs is not skipped. */
static bool skip_literal(dec *d, const char *rest, iz n)
{
    d->p++;
    if (d->end - d->p < n)
        return truncated(d);
    if (memcmp(d->p, rest, (size_t)n))
        return malformed(d, "invalid character");
    d->p += n;
    return true;
}

/* json_maybe_skip_number */
static bool skip_number(dec *d)
{
#define PEEK() (d->p < d->end ? *d->p : 0)
    u8 c = *d->p;
    if (c == '-') {
        d->p++;
        c = PEEK();
    }
    if (c == '0') {
        d->p++;
        if (is_digit(PEEK()))
            return malformed(d, "invalid number");
    } else {
        const u8 *s = d->p;
        while (d->p < d->end && is_digit(*d->p))
            d->p++;
        if (s == d->p)
            return malformed(d, "invalid character");
    }
    c = PEEK();
    if (c == '.') {
        d->p++;
        const u8 *s = d->p;
        while (d->p < d->end && is_digit(*d->p))
            d->p++;
        if (s == d->p)
            return malformed(d, "invalid number");
        c = PEEK();
    }
    if (c == 'e' || c == 'E') {
        d->p++;
        c = PEEK();
        if (c == '+' || c == '-')
            d->p++;
        const u8 *s = d->p;
        while (d->p < d->end && is_digit(*d->p))
            d->p++;
        if (s == d->p)
            return malformed(d, "invalid number");
    }
#undef PEEK
    return true;
}

/* strtod of a number's text: the correctly rounded double, as msgspec's
 * (Eisel-Lemire, then its decimal fallback) is; only whether it is
 * infinite matters here. */
static double number_value(dec *d, const u8 *s, iz n)
{
    char small[64];
    char *t = small;
    if (n >= (iz)sizeof small)
        t = arena_alloc_nz(d->a, 1, 1, n + 1);
    memcpy(t, s, (size_t)n);
    t[n] = 0;
    return strtod(t, NULL);
}

/* parse_number_inline, then the type checks of ms_post_decode_* and
 * ms_decode_bigint. */
static bool number(dec *d, const ty *t, const path *pa, val *v)
{
    const u8 *start = d->p, *p = d->p, *pend = d->end;
    u64 mantissa = 0;
    bool neg = false, is_float = false, truncated_int = false;
    if (*p == '-') {
        p++;
        if (p == pend)
            goto invalid_number;
        neg = true;
    }
    const u8 *int_start = p;
    if (*p == '0') {
        p++;
        if (p != pend && is_digit(*p))
            goto invalid_number;
    } else {
        while (p != pend && is_digit(*p)) {
            mantissa = mantissa * 10 + (u64)(*p - '0');
            p++;
        }
        if (p == int_start)
            goto invalid_character;
    }
    const u8 *int_end = p;
    iz digits = int_end - int_start;
    if (p != pend && *p == '.') {
        is_float = true;
        p++;
        const u8 *f = p;
        while (p != pend && is_digit(*p))
            p++;
        if (p == f)
            goto invalid_number;
    }
    if (p != pend && (*p == 'e' || *p == 'E')) {
        is_float = true;
        p++;
        if (p == pend)
            goto invalid_number;
        if (*p == '+' || *p == '-')
            p++;
        const u8 *e = p;
        while (p != pend && is_digit(*p))
            p++;
        if (p == e)
            goto invalid_number;
    }
    d->p = p;
    v->at = start;
    v->to = p;
    if (!is_float) {
        /* more than 19 digits overflow, except 20 digits from 1e19 up to
         * 2^64 - 1 (the wrapped mantissa tells, as msgspec checks) */
        if (digits > 19 && (digits != 20 || *int_start != '1' || mantissa <= 9999999999999999999ull))
            truncated_int = true;
        if (neg && mantissa > (1ull << 63))
            truncated_int = true;
        if (truncated_int) {
            if (t->f & (T_ANY | T_INT)) {
                if (p - start > 4300)   /* ms_decode_bigint: int() refuses more digits */
                    return invalid(d, pa, "Integer value out of range");
                v->kind = V_INT;
                v->big = true;
                v->neg = neg;
                return true;
            }
            /* another type: msgspec goes on as for a float */
        } else {
            if (t->f & (T_ANY | T_INT)) {
                v->kind = V_INT;
                v->big = false;
                v->neg = neg;
                v->u = mantissa;   /* the magnitude */
                v->i = neg ? (i64)(0 - mantissa) : mantissa > (u64)INT64_MAX ? INT64_MAX : (i64)mantissa;
                return true;
            }
            return wrong_type(d, t, pa, "int");
        }
    }
    double x = number_value(d, start, p - start);
    if (isinf(x))
        return invalid(d, pa, "Number out of range");
    if (t->f & T_ANY) {
        v->kind = V_FLOAT;
        return true;
    }
    return wrong_type(d, t, pa, "float");
invalid_number:
    d->p = p;
    return malformed(d, "invalid number");
invalid_character:
    d->p = p;
    return malformed(d, "invalid character");
}

/* ---- skip ------------------------------------------------------------------------ */

static bool skip(dec *d);

/* json_skip_array */
static bool skip_array(dec *d)
{
    d->p++;
    if (!enter(d))
        return false;
    bool first = true;
    u8 c;
    for (;;) {
        if (!peek(d, &c))
            return false;
        if (c == ']') {
            d->p++;
            break;
        } else if (c == ',' && !first) {
            d->p++;
            if (!peek(d, &c))
                return false;
        } else if (first) {
            first = false;
        } else {
            return malformed(d, "expected ',' or ']'");
        }
        if (c == ']')
            return malformed(d, "trailing comma in array");
        if (!skip(d))
            return false;
    }
    leave(d);
    return true;
}

/* json_skip_object */
static bool skip_object(dec *d)
{
    d->p++;
    if (!enter(d))
        return false;
    bool first = true;
    u8 c;
    for (;;) {
        if (!peek(d, &c))
            return false;
        if (c == '}') {
            d->p++;
            break;
        } else if (c == ',' && !first) {
            d->p++;
            if (!peek(d, &c))
                return false;
        } else if (first) {
            first = false;
        } else {
            return malformed(d, "expected ',' or '}'");
        }
        if (c == '"') {
            if (!skip_string(d))
                return false;
        } else if (c == '}') {
            return malformed(d, "trailing comma in object");
        } else {
            return malformed(d, "expected '\"'");
        }
        if (!peek(d, &c))
            return false;
        if (c != ':')
            return malformed(d, "expected ':'");
        d->p++;
        if (!skip(d))
            return false;
    }
    leave(d);
    return true;
}

/* json_skip */
static bool skip(dec *d)
{
    u8 c;
    if (!peek(d, &c))
        return false;
    switch (c) {
    case 'n': return skip_literal(d, "ull", 3);
    case 't': return skip_literal(d, "rue", 3);
    case 'f': return skip_literal(d, "alse", 4);
    case '"': return skip_string(d);
    case '[': return skip_array(d);
    case '{': return skip_object(d);
    default: return skip_number(d);
    }
}

/* ---- decode --------------------------------------------------------------------- */

static bool decode(dec *d, const ty *t, const path *pa, val *v);

/* A kept container's level for the wire (msgpack's encoder enters one
 * level per non-empty list, tuple or dict and per struct). */
static inline void wire_in(dec *d)
{
    d->wire++;
    if (d->wire > d->wire_max)
        d->wire_max = d->wire;
}

/* json_decode_list (and _vartuple): '[' of an Any or tuple value. */
static bool decode_list(dec *d, const ty *el, const path *pa, val *v)
{
    d->p++;
    if (!enter(d))
        return false;
    path ep = {pa, P_INDEX, 0, NULL};
    bool first = true, any = false;
    u8 c;
    for (;;) {
        if (!peek(d, &c))
            return false;
        if (c == ']') {
            d->p++;
            break;
        } else if (c == ',' && !first) {
            d->p++;
            if (!peek(d, &c))
                return false;
        } else if (first) {
            first = false;
        } else {
            return malformed(d, "expected ',' or ']'");
        }
        if (c == ']')
            return malformed(d, "trailing comma in array");
        if (!any) {
            any = true;
            wire_in(d);
        }
        val item;
        if (!decode(d, el, &ep, &item))
            return false;
        ep.index++;
    }
    if (any)
        d->wire--;
    leave(d);
    v->kind = V_ARR;
    return true;
}

/* json_decode_dict: '{' of an Any or dict[str, Any] value. */
static bool decode_dict(dec *d, const path *pa, val *v)
{
    d->p++;
    if (!enter(d))
        return false;
    path vp = {pa, P_ELLIPSIS, 0, NULL};
    bool first = true, any = false;
    u8 c;
    for (;;) {
        if (!peek(d, &c))
            return false;
        if (c == '}') {
            d->p++;
            break;
        } else if (c == ',' && !first) {
            d->p++;
            if (!peek(d, &c))
                return false;
        } else if (first) {
            first = false;
        } else {
            return malformed(d, "expected ',' or '}'");
        }
        if (c == '"') {
            if (!string_checked(d))   /* json_decode_dict_key: a str key */
                return false;
        } else if (c == '}') {
            return malformed(d, "trailing comma in object");
        } else {
            return malformed(d, "object keys must be strings");
        }
        if (!peek(d, &c))
            return false;
        if (c != ':')
            return malformed(d, "expected ':'");
        d->p++;
        if (!any) {
            any = true;
            wire_in(d);
        }
        val item;
        if (!decode(d, &t_any, &vp, &item))
            return false;
    }
    if (any)
        d->wire--;
    leave(d);
    v->kind = V_OBJ;
    return true;
}

/* json_decode_struct_array_union: '[' of the payload. */
static bool decode_payload(dec *d, const path *pa, val *v)
{
    d->p++;
    u8 c;
    /* json_ensure_array_nonempty */
    if (!peek(d, &c))
        return false;
    if (c == ']')
        return invalid(d, pa, "Expected `array` of at least length 1, got 0");
    /* json_decode_tag_and_lookup_type, through json_decode_cstr */
    path tp = {pa, P_INDEX, 0, NULL};
    if (c != '"') {
        if (!skip(d))   /* malformed JSON first */
            return false;
        return invalid(d, &tp, "Expected `str`");
    }
    str tag;
    bool na, cp;
    if (!string_view(d, &tag, &na, &cp))
        return false;
    int k = -1;
    for (int j = 0; j < countof(payloads); j++)
        if (str_eq(tag, str_cstr(payloads[j].tag)))
            k = j;
    if (k < 0) {
        /* ms_invalid_cstr_value: the tag as a str, which may not decode */
        if (na && !utf8_check(d, tag))
            return false;
        d->msg.len = 0;
        buf_cstr(&d->msg, "Invalid value '");
        buf_str(&d->msg, tag);
        buf_byte(&d->msg, '\'');
        path_suffix(&tp, &d->msg);
        return fail_with(d, ERR_INVALID, "ValidationError");
    }
    const payload *pl = &payloads[k];
    /* json_decode_struct_array_inner, from index 1 */
    if (!enter(d))
        return false;
    wire_in(d);
    path ip = {pa, P_INDEX, 1, NULL};
    int i = 0;
    bool extras = false;
    const u8 *last = d->p;
    for (;;) {
        if (!peek(d, &c))
            return false;
        if (c == ']') {
            d->p++;
            break;
        } else if (c == ',') {
            d->p++;
            if (!peek(d, &c))
                return false;
        } else {
            return malformed(d, "expected ',' or ']'");
        }
        if (c == ']')
            return malformed(d, "trailing comma in array");
        if (i < pl->nfields) {
            val f;
            d->in_payload = true;
            bool fine = decode(d, pl->types[i], &ip, &f);
            d->in_payload = false;
            if (!fine)
                return false;
            i++;
            ip.index++;
            last = d->p;
        } else {
            extras = true;
            if (!skip(d))
                return false;
        }
    }
    if (i < pl->nrequired)
        return invalid(d, pa, "Expected `array` of at least length %d, got %d", pl->nrequired + 1, i + 1);
    d->wire--;
    leave(d);
    v->kind = V_PAYLOAD;
    v->tag = k;
    v->last = last;
    v->extras = extras;
    return true;
}

typedef struct record {
    val f[F_COUNT];
    bool has[F_COUNT];
} record;

static bool decode_record(dec *d, record *r);

/* json_decode: one value of type t (the top-level record included). */
static bool decode(dec *d, const ty *t, const path *pa, val *v)
{
    u8 c;
    if (!peek(d, &c))
        return false;
    v->at = d->p;
    v->kind = V_NULL;
    bool ok;
    switch (c) {
    case 'n':
        if (!literal(d, "ull", 3))
            return false;
        ok = (t->f & (T_ANY | T_NULL)) ? true : wrong_type(d, t, pa, "null");
        v->kind = V_NULL;
        break;
    case 't':
    case 'f':
        if (!(c == 't' ? literal(d, "rue", 3) : literal(d, "alse", 4)))
            return false;
        ok = (t->f & T_ANY) ? true : wrong_type(d, t, pa, "bool");
        v->kind = V_BOOL;
        break;
    case '[':
        if (t->f & T_ANY)
            ok = decode_list(d, &t_any, pa, v);
        else if (t->f & T_ARR)
            ok = decode_list(d, t->el, pa, v);
        else if (t->f & T_UNION)
            ok = decode_payload(d, pa, v);
        else
            ok = wrong_type(d, t, pa, "array");
        break;
    case '{':
        if (t->f & (T_ANY | T_DICT))
            ok = decode_dict(d, pa, v);
        else if (t->f & T_STRUCT)
            ok = decode_record(d, d->rec);
        else
            ok = wrong_type(d, t, pa, "object");
        break;
    case '"': {
        if (d->in_payload && (t->f & (T_STR | T_ANY))) {   /* checked, not kept: json_parse makes the tree */
            if (!string_checked(d))
                return false;
            v->kind = V_STR;
            ok = true;
            break;
        }
        bool na, cp;
        if (!string_view(d, &v->s, &na, &cp))
            return false;
        v->kind = V_STR;
        v->in_scratch = cp;
        if (t->f & (T_STR | T_ANY))
            ok = !na || utf8_check(d, v->s);
        else
            ok = wrong_type(d, t, pa, "str");
        break;
    }
    default:
        ok = number(d, t, pa, v);
        if (ok && v->kind == V_INT && v->big)
            d->overflow = true;
        break;
    }
    v->to = d->p;
    return ok;
}

/* StructMeta_get_field_index: a key's bytes against the field names. */
static int field_index(str key)
{
    for (int k = 0; k < F_COUNT; k++)
        if (str_eq(key, str_cstr(field_names[k])))
            return k;
    return -1;
}

/* json_decode_struct_map_inner for EventRecord, after its '{'. The topic
 * hook runs as each event_type value is decoded (a duplicate's too). */
static bool decode_record(dec *d, record *r)
{
    d->p++;
    if (!enter(d))
        return false;
    wire_in(d);
    bool first = true;
    u8 c;
    for (;;) {
        if (!peek(d, &c))
            return false;
        if (c == '}') {
            d->p++;
            break;
        } else if (c == ',' && !first) {
            d->p++;
            if (!peek(d, &c))
                return false;
        } else if (first) {
            first = false;
        } else {
            return malformed(d, "expected ',' or '}'");
        }
        int k;
        if (c == '"') {
            str key;
            bool na, cp;
            if (!string_view(d, &key, &na, &cp))
                return false;
            k = field_index(key);
        } else if (c == '}') {
            return malformed(d, "trailing comma in object");
        } else {
            return malformed(d, "object keys must be strings");
        }
        if (!peek(d, &c))
            return false;
        if (c != ':')
            return malformed(d, "expected ':'");
        d->p++;
        if (k < 0) {
            if (!skip(d))
                return false;
            continue;
        }
        path fp = {NULL, P_FIELD, k, field_names[k]};
        val v = {0};
        /* what the wire meets is the field's last value (a duplicate key replaces it) */
        d->overflow = false;
        d->wire_max = d->wire;
        if (!decode(d, field_types[k], &fp, &v))
            return false;
        v.overflow = d->overflow;
        v.wire = d->wire_max;
        if (v.kind == V_STR && v.in_scratch) {
            v.s = arena_strdup(d->a, v.s);
            v.in_scratch = false;
        }
        if (k == F_EVENT_TYPE) {
            /* ms_decode_custom: EventType.decode_hook(EventType, value) */
            int type = 0;
            d->msg.len = 0;
            int rc = agg_py_topic_hook(d->a, v.kind == V_STR, v.s, str_from(v.at, v.to - v.at), &type, &d->msg);
            if (rc != AGG_PY_OK) {
                static const char *const cls[] = {"", "ValidationError", "NotImplementedError", "RecursionError"};
                if (rc == AGG_PY_VALUE_ERROR)
                    path_suffix(&fp, &d->msg);
                return fail_with(d, rc == AGG_PY_RECURSION ? ERR_LIMIT : ERR_INVALID, cls[rc]);
            }
            v.tag = type;
        }
        r->f[k] = v;
        r->has[k] = true;
    }
    /* Struct_fill_in_defaults */
    if (!r->has[F_EVENT_TYPE])
        return invalid(d, NULL, "Object missing required field `event_type`");
    d->wire--;
    leave(d);
    return true;
}


/* ---- the same rules on json_parse's tree ------------------------------------ */

/* Most lines are JSON (valid UTF-8, no lone surrogate, as deep as msgspec
 * goes at most): for them json_parse builds the whole tree in one pass,
 * and msgspec's verdict follows from the tree alone, since every error its
 * reader could still find is one of the values' types, found in document
 * order, with no byte offset in its message. A line json_parse refuses is
 * read again byte by byte (decode above), for msgspec's DecodeError,
 * UnicodeDecodeError or RecursionError and where it stops. */

/* Where msgspec puts an int's text: int64 (0), uint64 above it (1), or
 * beyond both, a Python int that the wire cannot carry (2). */
static int int_class(const json *v, u64 *mag)
{
    str t = v->u.num;
    if (!v->big) {
        *mag = v->u.i < 0 ? 0 - (u64)v->u.i : (u64)v->u.i;
        return 0;
    }
    if (!t.len || t.s[0] == '-' || t.len > 20)
        return 2;
    u64 x = 0;
    for (iz k = 0; k < t.len; k++) {
        u64 dgt = (u64)(t.s[k] - '0');
        if (x > (UINT64_MAX - dgt) / 10)
            return 2;
        x = x * 10 + dgt;
    }
    *mag = x;
    return 1;
}

static bool walk_number(dec *d, const json *v, const ty *t, const path *pa)
{
    if (v->type == JSON_INT) {
        u64 mag;
        if (int_class(v, &mag) < 2)
            return (t->f & (T_ANY | T_INT)) ? true : wrong_type(d, t, pa, "int");
        if (t->f & (T_ANY | T_INT)) {
            if (v->u.num.len > 4300)
                return invalid(d, pa, "Integer value out of range");
            d->overflow = true;
            return true;
        }
        if (isinf(number_value(d, v->u.num.s, v->u.num.len)))
            return invalid(d, pa, "Number out of range");
        return wrong_type(d, t, pa, "float");
    }
    if (isinf(v->u.f))
        return invalid(d, pa, "Number out of range");
    return (t->f & T_ANY) ? true : wrong_type(d, t, pa, "float");
}

static bool walk(dec *d, const json *v, const ty *t, const path *pa);
static bool walk_record(dec *d, const json *v, record *r);

/* json_decode_struct_array_union on the payload's array. */
static bool walk_payload(dec *d, const json *v, const path *pa)
{
    iz n = v->u.arr.n;
    const json *it = v->u.arr.items;
    if (n == 0)
        return invalid(d, pa, "Expected `array` of at least length 1, got 0");
    path tp = {pa, P_INDEX, 0, NULL};
    if (it[0].type != JSON_STR)
        return invalid(d, &tp, "Expected `str`");
    int k = -1;
    for (int j = 0; j < countof(payloads); j++)
        if (str_eq(it[0].u.s, str_cstr(payloads[j].tag)))
            k = j;
    if (k < 0) {
        d->msg.len = 0;
        buf_cstr(&d->msg, "Invalid value '");
        buf_str(&d->msg, it[0].u.s);
        buf_byte(&d->msg, '\'');
        path_suffix(&tp, &d->msg);
        return fail_with(d, ERR_INVALID, "ValidationError");
    }
    const payload *pl = &payloads[k];
    wire_in(d);
    path ip = {pa, P_INDEX, 1, NULL};
    int i = 0;
    for (; i < pl->nfields && i + 1 < n; i++) {
        ip.index = i + 1;
        if (!walk(d, &it[i + 1], pl->types[i], &ip))
            return false;
    }
    if (i < pl->nrequired)
        return invalid(d, pa, "Expected `array` of at least length %d, got %d", pl->nrequired + 1, i + 1);
    d->wire--;
    d->tag = k;
    return true;
}

/* json_decode for one node against t (the checks of decode, in the same order). */
static bool walk(dec *d, const json *v, const ty *t, const path *pa)
{
    d->p = d->line.s + v->off;   /* where an error is */
    switch ((json_type)v->type) {
    case JSON_NULL:
        return (t->f & (T_ANY | T_NULL)) ? true : wrong_type(d, t, pa, "null");
    case JSON_BOOL:
        return (t->f & T_ANY) ? true : wrong_type(d, t, pa, "bool");
    case JSON_INT:
    case JSON_FLOAT:
        return walk_number(d, v, t, pa);
    case JSON_STR:
        return (t->f & (T_STR | T_ANY)) ? true : wrong_type(d, t, pa, "str");
    case JSON_ARR:
        if (t->f & (T_ANY | T_ARR)) {
            const ty *el = (t->f & T_ANY) ? &t_any : t->el;
            path ep = {pa, P_INDEX, 0, NULL};
            if (v->u.arr.n)
                wire_in(d);
            for (iz k = 0; k < v->u.arr.n; k++) {
                ep.index = k;
                if (!walk(d, &v->u.arr.items[k], el, &ep))
                    return false;
            }
            if (v->u.arr.n)
                d->wire--;
            return true;
        }
        if (t->f & T_UNION)
            return walk_payload(d, v, pa);
        return wrong_type(d, t, pa, "array");
    case JSON_OBJ:
        if (t->f & (T_ANY | T_DICT)) {
            path vp = {pa, P_ELLIPSIS, 0, NULL};
            if (v->u.obj.n)
                wire_in(d);
            for (iz k = 0; k < v->u.obj.n; k++)
                if (!walk(d, &v->u.obj.members[k].val, &t_any, &vp))
                    return false;
            if (v->u.obj.n)
                d->wire--;
            return true;
        }
        if (t->f & T_STRUCT)
            return walk_record(d, v, d->rec);
        return wrong_type(d, t, pa, "object");
    }
    return false;
}

/* Where a value's text ends in the line (json_parse keeps where it begins). */
static iz value_end(str line, const json *v)
{
    iz i;
    switch ((json_type)v->type) {
    case JSON_NULL:
        return v->off + 4;
    case JSON_BOOL:
        return v->off + (v->u.b ? 4 : 5);
    case JSON_INT:
    case JSON_FLOAT:
        return v->off + v->u.num.len;
    case JSON_STR:
        for (i = v->off + 1; i < line.len && line.s[i] != '"'; i++)
            if (line.s[i] == '\\')
                i++;
        return i + 1;
    case JSON_ARR:
        i = v->u.arr.n ? value_end(line, &v->u.arr.items[v->u.arr.n - 1]) : v->off + 1;
        break;
    case JSON_OBJ:
        i = v->u.obj.n ? value_end(line, &v->u.obj.members[v->u.obj.n - 1].val) : v->off + 1;
        break;
    default:
        return v->off;
    }
    while (i < line.len && line.s[i] != ']' && line.s[i] != '}')   /* whitespace only */
        i++;
    return i + 1;
}

/* A record field's value, for agg_event: what decode would have made. */
static val val_of(dec *d, const json *v)
{
    val out = {0};
    out.node = v;
    out.at = d->line.s + v->off;
    switch ((json_type)v->type) {
    case JSON_NULL: out.kind = V_NULL; break;
    case JSON_BOOL: out.kind = V_BOOL; break;
    case JSON_FLOAT: out.kind = V_FLOAT; break;
    case JSON_STR:
        out.kind = V_STR;
        out.s = v->u.s;
        break;
    case JSON_INT: {
        out.kind = V_INT;
        int c = int_class(v, &out.u);
        out.big = c == 2;
        out.neg = v->u.num.len && v->u.num.s[0] == '-';
        out.i = c == 0 ? v->u.i : INT64_MAX;
        out.to = out.at + v->u.num.len;
        break;
    }
    case JSON_ARR: out.kind = d->tag >= 0 ? V_PAYLOAD : V_ARR; out.tag = d->tag; break;
    case JSON_OBJ: out.kind = V_OBJ; break;
    }
    return out;
}

/* json_decode_struct_map_inner for EventRecord on the top object. */
static bool walk_record(dec *d, const json *v, record *r)
{
    wire_in(d);
    for (iz m = 0; m < v->u.obj.n; m++) {
        const json_member *mb = &v->u.obj.members[m];
        int k = field_index(mb->key);
        if (k < 0)
            continue;   /* skipped: json_parse has checked it as JSON, as skip does */
        path fp = {NULL, P_FIELD, k, field_names[k]};
        d->overflow = false;
        d->wire_max = d->wire;
        d->tag = -1;
        if (!walk(d, &mb->val, field_types[k], &fp))
            return false;
        val fv = val_of(d, &mb->val);
        fv.overflow = d->overflow;
        fv.wire = d->wire_max;
        if (k == F_EVENT_TYPE) {
            int type = 0;
            d->msg.len = 0;
            str text = str_from(d->line.s + mb->val.off, value_end(d->line, &mb->val) - mb->val.off);
            int rc = agg_py_topic_hook(d->a, fv.kind == V_STR, fv.s, text, &type, &d->msg);
            if (rc != AGG_PY_OK) {
                static const char *const cls[] = {"", "ValidationError", "NotImplementedError", "RecursionError"};
                if (rc == AGG_PY_VALUE_ERROR)
                    path_suffix(&fp, &d->msg);
                d->p = d->line.s + mb->val.off;
                return fail_with(d, rc == AGG_PY_RECURSION ? ERR_LIMIT : ERR_INVALID, cls[rc]);
            }
            fv.tag = type;
        }
        r->f[k] = fv;
        r->has[k] = true;
    }
    if (!r->has[F_EVENT_TYPE])
        return invalid(d, NULL, "Object missing required field `event_type`");
    d->wire--;
    return true;
}

/* ---- the entry point ---------------------------------------------------------- */

static void finish_error(dec *d, agg_decode_error *de)
{
    if (!de)
        return;
    de->off = d->p - d->beg;
    iz n = d->msg.len, cap = (iz)sizeof de->msg - 1;
    de->full_len = n;
    if (n > cap) {
        n = cap;
        while (n > 0 && (d->msg.data[n] & 0xc0) == 0x80)
            n--;
    }
    if (n)
        memcpy(de->msg, d->msg.data, (size_t)n);
    de->msg[n] = 0;
    de->msg_len = n;
}

static i64 clamp_int(const val *v)
{
    if (v->big)
        return v->neg ? INT64_MIN : INT64_MAX;
    return v->i;
}

/* ---- the canonical fast path ---------------------------------------------- */

/* Most lines of a streamed run are chunks without a payload, written by
 * upstream's JSONL writer in one form:
 *   {"event_type":"T","timestamp_ns":N,"sample_uuid":"U","conversation_id":"C","turn":null|N,"data":null}
 * A line in exactly that form, with T one of the topics, the ints of at
 * most 18 digits without leading zeros and U and C printable ASCII without
 * escapes, is decoded here without the general reader: what the reader
 * would make of it is fixed by the form (test_agg_event and fuzz_agg_event
 * check both ways give the same record). Anything else goes to the reader. */

typedef struct fcur {
    const u8 *p, *end;
} fcur;

static bool lit(fcur *c, const char *s, iz n)
{
    if (c->end - c->p < n || memcmp(c->p, s, (size_t)n))
        return false;
    c->p += n;
    return true;
}
#define LIT(c, s) lit((c), (s), (iz)sizeof(s) - 1)

/* An int of 1 to 18 digits (no leading zero but "0"), optionally negative. */
static bool fast_int(fcur *c, i64 *out)
{
    bool neg = c->p < c->end && *c->p == '-';
    const u8 *q = c->p + neg, *start = q;
    i64 v = 0;
    while (q < c->end && *q >= '0' && *q <= '9' && q - start < 18)
        v = v * 10 + (*q++ - '0');
    iz n = q - start;
    if (n == 0 || (n > 1 && *start == '0'))   /* a 19th digit is left for the caller to refuse */
        return false;
    *out = neg ? -v : v;
    c->p = q;
    return true;
}

/* A string of printable ASCII other than '"' and '\\', up to its quote:
 * 16 bytes at a time while they are all plain (no quote, backslash,
 * control, DEL or byte above 0x7f), then byte by byte to the quote. */
static bool fast_str(fcur *c, str *out)
{
    const u8 *q = c->p;
    const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'), v20 = _mm_set1_epi8(0x20),
                  v7f = _mm_set1_epi8(0x7f);
    while (c->end - q >= 16) {
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)q);
        /* signed: bytes above 0x7f are negative, so below 0x20 too */
        __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, vq), _mm_cmpeq_epi8(w, vb)),
                                   _mm_or_si128(_mm_cmplt_epi8(w, v20), _mm_cmpeq_epi8(w, v7f)));
        if (_mm_movemask_epi8(bad))
            break;
        q += 16;
    }
    while (q < c->end && *q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
        q++;
    if (q == c->end || *q != '"')
        return false;
    *out = str_from(c->p, q - c->p);
    c->p = q + 1;
    return true;
}

/* ---- payloads on the fast path ----
 * The payload lines (sample.issued's PromptData, sample.complete's
 * TextModelOutput) carry most of a log's bytes. Their canonical form is
 * compact JSON, which the reader takes when it is valid and typed as the
 * payload's fields want; json_parse would build a tree only for the
 * triggers to look at it (and, without a tokenizer, not even that). The
 * checks below accept a subset of what the reader accepts, with the same
 * verdict by construction: strings whose escapes are the simple ones or a
 * \u escape of a non-surrogate, valid UTF-8 in them, ints of at most 18
 * digits, decimals without an exponent, of at most 40 characters, no
 * whitespace, nesting at most FAST_DEPTH deep (the reader's limits are far
 * beyond), each field of the type its struct wants, no ErrorData and no
 * element past the struct's fields. Anything else goes to the reader.
 * The tree is then made when a trigger asks (agg_event_data). */

enum { FAST_DEPTH = 48 };

/* A JSON string at c->p (the opening quote), as the reader takes it. */
static bool fast_jstr(fcur *c)
{
    const u8 *q = c->p + 1;
    for (;;) {
#if defined(__SSE2__)
        /* to the next quote, backslash, control or non-ASCII byte */
        const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'), v20 = _mm_set1_epi8(0x20);
        while (c->end - q >= 16) {
            __m128i w = _mm_loadu_si128((const __m128i *)(const void *)q);
            /* signed: bytes above 0x7f are negative, so below 0x20 too */
            __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, vq), _mm_cmpeq_epi8(w, vb)),
                                       _mm_cmplt_epi8(w, v20));
            unsigned m = (unsigned)_mm_movemask_epi8(bad);
            if (m) {
                q += __builtin_ctz(m);
                break;
            }
            q += 16;
        }
#endif
        while (q < c->end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
            q++;
        if (q >= c->end)
            return false;
        u8 b = *q;
        if (b == '"') {
            c->p = q + 1;
            return true;
        }
        if (b == '\\') {
            if (c->end - q < 2)
                return false;
            u8 x = q[1];
            if (x == '"' || x == '\\' || x == '/' || x == 'b' || x == 'f' || x == 'n' || x == 'r' || x == 't') {
                q += 2;
                continue;
            }
            if (x != 'u' || c->end - q < 6)
                return false;
            u32 cp = 0;
            for (int k = 2; k < 6; k++) {
                u8 h = q[k];
                u32 d = h >= '0' && h <= '9' ? (u32)(h - '0')
                      : (h | 0x20) >= 'a' && (h | 0x20) <= 'f' ? (u32)((h | 0x20) - 'a' + 10) : 16;
                if (d > 15)
                    return false;
                cp = cp << 4 | d;
            }
            if (cp >= 0xd800 && cp <= 0xdfff)
                return false;
            q += 6;
            continue;
        }
        if (b < 0x20)
            return false;
        int n = utf8_valid_seq(q, c->end - q);
        if (!n)
            return false;
        q += n;
    }
}

/* A number: an int of 1 to 18 digits, or with a fraction, at most 40
 * characters; no exponent. *is_int says which. */
static bool fast_num(fcur *c, bool *is_int)
{
    const u8 *q = c->p;
    if (q < c->end && *q == '-')
        q++;
    const u8 *d = q;
    while (q < c->end && *q >= '0' && *q <= '9')
        q++;
    iz nd = q - d;
    if (nd == 0 || (nd > 1 && *d == '0'))
        return false;
    *is_int = true;
    if (q < c->end && *q == '.') {
        const u8 *f = ++q;
        while (q < c->end && *q >= '0' && *q <= '9')
            q++;
        if (q == f)
            return false;
        *is_int = false;
    }
    if (q < c->end && (*q == 'e' || *q == 'E'))
        return false;
    if (*is_int ? nd > 18 : q - c->p > 40)
        return false;
    c->p = q;
    return true;
}

static bool fast_any(fcur *c, int depth);

/* [v, ...] with each element checked by `el` (fast_any when NULL);
 * *n (when not NULL) gets the number of elements. */
static bool fast_array_n(fcur *c, int depth, bool (*el)(fcur *, int), iz *n)
{
    if (depth > FAST_DEPTH)
        return false;
    c->p++;
    iz k = 0;
    if (c->p < c->end && *c->p == ']') {
        c->p++;
    } else {
        for (;;) {
            if (!(el ? el(c, depth + 1) : fast_any(c, depth + 1)))
                return false;
            k++;
            if (c->p >= c->end)
                return false;
            u8 b = *c->p++;
            if (b == ']')
                break;
            if (b != ',')
                return false;
        }
    }
    if (n)
        *n = k;
    return true;
}

static bool fast_array(fcur *c, int depth, bool (*el)(fcur *, int))
{
    return fast_array_n(c, depth, el, NULL);
}

/* {"key": any, ...} */
static bool fast_object(fcur *c, int depth)
{
    if (depth > FAST_DEPTH || c->p >= c->end || *c->p != '{')
        return false;
    c->p++;
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return true;
    }
    for (;;) {
        if (c->p >= c->end || *c->p != '"' || !fast_jstr(c) || c->p >= c->end || *c->p++ != ':' ||
            !fast_any(c, depth + 1) || c->p >= c->end)
            return false;
        u8 b = *c->p++;
        if (b == '}')
            return true;
        if (b != ',')
            return false;
    }
}

static bool fast_any(fcur *c, int depth)
{
    if (c->p >= c->end)
        return false;
    bool is_int;
    switch (*c->p) {
    case '"': return fast_jstr(c);
    case '{': return fast_object(c, depth);
    case '[': return fast_array(c, depth, NULL);
    case 'n': return LIT(c, "null");
    case 't': return LIT(c, "true");
    case 'f': return LIT(c, "false");
    default: return fast_num(c, &is_int);
    }
}

static bool fast_int_el(fcur *c, int depth)
{
    (void)depth;
    bool is_int;
    return c->p < c->end && *c->p != '"' && fast_num(c, &is_int) && is_int;
}

static bool fast_str_el(fcur *c, int depth)
{
    (void)depth;
    return c->p < c->end && *c->p == '"' && fast_jstr(c);
}

/* One field of a payload, by the letters of its type: s str, o object
 * (dict of Any), n null, and the element of an array: i int, S str,
 * O object, A any ("" for none). */
static bool fast_field(fcur *c, const char *types, char el, bool *null, iz *n)
{
    *null = false;
    if (c->p >= c->end)
        return false;
    switch (*c->p) {
    case 'n':
        *null = true;
        return strchr(types, 'n') && LIT(c, "null");
    case '"': return strchr(types, 's') && fast_jstr(c);
    case '{': return strchr(types, 'o') && fast_object(c, 3);
    case '[':
        switch (el) {
        case 'i': return fast_array_n(c, 3, fast_int_el, n);
        case 'S': return fast_array(c, 3, fast_str_el);
        case 'O': return fast_array(c, 3, fast_object);
        case 'A': return fast_array(c, 3, NULL);
        default: return false;
        }
    default: return false;
    }
}

/* ["PromptData", ...] or ["TextModelOutput", ...]: the kind and the text
 * in ev, and for a PromptData what IslTrigger takes from it. */
static bool fast_payload(fcur *c, agg_event *ev)
{
    static const struct {
        const char *types;
        char el;
    } prompt[7] = {{"sn", 0}, {"n", 'i'}, {"n", 'O'}, {"n", 'O'}, {"on", 0}, {"sn", 0}, {"son", 0}},
      output[3] = {{"s", 'S'}, {"sn", 'S'}, {"n", 'A'}};
    const u8 *at = c->p;
    int nf;
    bool prompt_data;
    if (LIT(c, "[\"PromptData\"")) {
        ev->data_kind = AGG_DATA_PROMPT;
        nf = 7;
        prompt_data = true;
    } else if (LIT(c, "[\"TextModelOutput\"")) {
        ev->data_kind = AGG_DATA_OUTPUT;
        nf = 3;
        prompt_data = false;
    } else {
        return false;
    }
    bool null[7] = {true, true, true, true, true, true, true}, text_truthy = false;
    iz nids = 0;
    for (int k = 0; k < nf; k++) {
        if (c->p < c->end && *c->p == ']')
            break;
        if (!LIT(c, ","))
            return false;
        const u8 *v = c->p;
        bool ok = prompt_data ? fast_field(c, prompt[k].types, prompt[k].el, &null[k], &nids)
                              : fast_field(c, output[k].types, output[k].el, &null[k], NULL);
        if (!ok)
            return false;
        if (k == 0)
            text_truthy = !null[0] && c->p - v > 2;   /* not "" */
    }
    if (!LIT(c, "]"))
        return false;
    ev->data_text = str_from(at, c->p - at);
    if (prompt_data) {
        ev->data_ids = !null[1];
        ev->data_nids = ev->data_ids ? nids : 0;
        ev->data_isl = !null[1] ? AGG_ISL_IDS : text_truthy ? AGG_ISL_TEXT : !null[2] ? AGG_ISL_PROMPT : AGG_ISL_NONE;
    }
    return true;
}

/* The same of a PromptData's tree (IslTrigger's precedence). */
static void isl_of_tree(agg_event *ev)
{
    const json *d = ev->data;
    iz n = d->u.arr.n;
    const json *text = n > 1 ? &d->u.arr.items[1] : NULL, *ids = n > 2 ? &d->u.arr.items[2] : NULL,
               *msgs = n > 3 ? &d->u.arr.items[3] : NULL;
    ev->data_ids = ids && ids->type != JSON_NULL;
    ev->data_nids = ev->data_ids && ids->type == JSON_ARR ? ids->u.arr.n : 0;
    ev->data_isl = ev->data_ids ? AGG_ISL_IDS
                 : text && text->type == JSON_STR && text->u.s.len ? AGG_ISL_TEXT
                 : msgs && msgs->type != JSON_NULL ? AGG_ISL_PROMPT : AGG_ISL_NONE;
}

static bool decode_fast(str line, agg_event *ev)
{
    fcur c = {line.s, line.s + line.len};
    if (!LIT(&c, "{\"event_type\":\""))
        return false;
    str topic;
    if (!fast_str(&c, &topic))
        return false;
    int type = -1;
    for (int k = AGG_EV_COUNT - 1; k >= 0; k--)   /* the sample topics, the most frequent, first */
        if (str_eq(topic, topic_strs[k])) {
            type = k;
            break;
        }
    agg_event e = {.type = type};
    if (type < 0 || !LIT(&c, ",\"timestamp_ns\":") || !fast_int(&c, &e.timestamp_ns) ||
        !LIT(&c, ",\"sample_uuid\":\"") || !fast_str(&c, &e.sample_uuid) || !LIT(&c, ",\"conversation_id\":\"") ||
        !fast_str(&c, &e.conversation_id) || !LIT(&c, ",\"turn\":"))
        return false;
    if (!LIT(&c, "null")) {
        if (!fast_int(&c, &e.turn))
            return false;
        e.has_turn = true;
    }
    if (!LIT(&c, ",\"data\":"))
        return false;
    if (!LIT(&c, "null")) {
        if (!fast_payload(&c, &e))
            return false;
        e.data_later = true;
    }
    if (LIT(&c, ",\"finish_reason\":\"")) {
        if (!fast_str(&c, &e.finish_reason))
            return false;
        e.has_finish_reason = true;
    }
    if (LIT(&c, ",\"worker_id\":")) {
        if (!fast_int(&c, &e.worker_id))
            return false;
        e.has_worker_id = true;
    }
    if (!LIT(&c, "}") || c.p != c.end)
        return false;
    *ev = e;
    return true;
}

const json *agg_event_data(arena *a, const agg_event *ev, err *e)
{
    if (ev->data || !ev->data_later)
        return ev->data;
    json_opts jo = {.max_depth = AGG_EVENT_MAX_DEPTH + 8};
    return json_parse(a, ev->data_text, &jo, e);
}

bool agg_event_same(const agg_event *x, const agg_event *y)
{
    bool wire = x->wire_error == y->wire_error ||
                (x->wire_error && y->wire_error && !strcmp(x->wire_error, y->wire_error));
    return x->type == y->type && x->timestamp_ns == y->timestamp_ns && x->ts_from_clock == y->ts_from_clock &&
           str_eq(x->sample_uuid, y->sample_uuid) && str_eq(x->conversation_id, y->conversation_id) &&
           x->has_turn == y->has_turn && x->turn == y->turn &&
           (x->data != NULL || x->data_later) == (y->data != NULL || y->data_later) && x->data_ids == y->data_ids &&
           x->data_nids == y->data_nids && x->data_isl == y->data_isl &&
           str_eq(x->data_text, y->data_text) && x->data_kind == y->data_kind &&
           x->has_finish_reason == y->has_finish_reason && str_eq(x->finish_reason, y->finish_reason) &&
           x->has_worker_id == y->has_worker_id && x->worker_id == y->worker_id && wire;
}

static int decode_line(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de, bool tree);

int agg_event_decode_deferred(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de)
{
    str t = line;
    while (t.len && (t.s[t.len - 1] == '\n' || t.s[t.len - 1] == '\r'))
        t.len--;
    if (decode_fast(t, ev)) {
        if (de)
            memset(de, 0, sizeof *de);
        return ERR_OK;
    }
    return decode_line(a, line, now_ns, ev, de, true);
}

int agg_event_decode(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de)
{
    int rc = agg_event_decode_deferred(a, line, now_ns, ev, de);
    if (rc != ERR_OK || !ev->data_later)
        return rc;
    err je = {0};
    const json *d = agg_event_data(a, ev, &je);
    if (!d)   /* out of memory: the general reader says so */
        return decode_line(a, line, now_ns, ev, de, true);
    ev->data = d;
    ev->data_later = false;
    return ERR_OK;
}

/* msgspec's reader: json_parse's tree when it takes the line, else the
 * bytes; `tree` false reads the bytes only. */
static int decode_line(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de, bool tree)
{
    while (line.len && (line.s[line.len - 1] == '\n' || line.s[line.len - 1] == '\r'))
        line.len--;
    if (de)
        memset(de, 0, sizeof *de);
    memset(ev, 0, sizeof *ev);
    dec d = {.beg = line.s, .p = line.s, .end = line.s + line.len, .a = a, .de = de, .line = line};
    jmp_buf jb, *old = a->oom;
    if (setjmp(jb)) {
        a->oom = old;
        buf_free(&d.msg);
        if (de) {
            snprintf(de->cls, sizeof de->cls, "MemoryError");
            snprintf(de->msg, sizeof de->msg, "out of memory");
            de->msg_len = de->full_len = (iz)strlen(de->msg);
        }
        return ERR_NOMEM;
    }
    a->oom = &jb;
    int rc = ERR_OK;
    record *r = NEW(a, record, 1);
    d.rec = r;
    /* JSONDecoder_decode: the record (a struct wants '{'), then nothing
     * but whitespace */
    bool ok;
    json *root = NULL;
    if (tree) {
        json_opts jo = {.max_depth = AGG_EVENT_MAX_DEPTH};
        err je = {0};
        root = json_parse(a, line, &jo, &je);
    }
    if (root) {
        ok = walk(&d, root, &t_record, NULL);
        d.p = d.end;
    } else {
        val top = {0};
        ok = decode(&d, &t_record, NULL, &top);
    }
    if (ok && !root) {
        while (d.p < d.end) {
            u8 c = *d.p++;
            if (!(c == ' ' || c == '\n' || c == '\t' || c == '\r')) {
                ok = malformed(&d, "trailing characters");
                break;
            }
        }
    }
    if (ok) {
        const val *ts = &r->f[F_TIMESTAMP];
        if (r->has[F_TIMESTAMP] && (ts->big || (!ts->neg && ts->u > (u64)INT64_MAX))) {
            d.msg.len = 0;
            buf_printf(&d.msg, "timestamp_ns %.*s does not fit in 64 bits (tally keeps int64 timestamps)",
                       (int)MIN(ts->to - ts->at, 60), (const char *)ts->at);
            ok = fail_with(&d, ERR_UNSUPPORTED, "tally.Unsupported");
        }
    }
    if (ok) {
        ev->type = r->f[F_EVENT_TYPE].tag;
        ev->ts_from_clock = !r->has[F_TIMESTAMP];
        ev->timestamp_ns = r->has[F_TIMESTAMP] ? r->f[F_TIMESTAMP].i : now_ns;
        if (r->has[F_UUID])
            ev->sample_uuid = r->f[F_UUID].s;
        if (r->has[F_CONV])
            ev->conversation_id = r->f[F_CONV].s;
        if (r->has[F_TURN] && r->f[F_TURN].kind == V_INT) {
            ev->has_turn = true;
            ev->turn = clamp_int(&r->f[F_TURN]);
        }
        if (r->has[F_FINISH]) {
            ev->has_finish_reason = true;
            ev->finish_reason = r->f[F_FINISH].s;
        }
        if (r->has[F_WORKER]) {
            ev->has_worker_id = true;
            ev->worker_id = clamp_int(&r->f[F_WORKER]);
        }
        const val *dv = &r->f[F_DATA];
        if (r->has[F_DATA] && dv->kind == V_PAYLOAD && dv->node) {
            /* the tree's own node: the text from its bytes, without what upstream skipped */
            const json *v = dv->node;
            const payload *pl = &payloads[dv->tag];
            ev->data_kind = pl->kind;
            if (v->u.arr.n > pl->nfields + 1) {
                iz end = value_end(line, &v->u.arr.items[pl->nfields]);
                u8 *t = arena_alloc_nz(a, 1, 1, end - v->off + 1);
                memcpy(t, line.s + v->off, (size_t)(end - v->off));
                t[end - v->off] = ']';
                ev->data_text = str_from(t, end - v->off + 1);
                json *c = NEW(a, json, 1);
                *c = *v;
                c->u.arr.n = pl->nfields + 1;
                ev->data = c;
            } else {
                ev->data_text = str_from(line.s + v->off, value_end(line, v) - v->off);
                ev->data = v;
            }
        } else if (r->has[F_DATA] && dv->kind == V_PAYLOAD) {
            ev->data_kind = payloads[dv->tag].kind;
            str text = str_from(dv->at, dv->to - dv->at);
            if (dv->extras) {
                /* the elements upstream skipped are left out */
                iz n = dv->last - dv->at;
                u8 *t = arena_alloc_nz(a, 1, 1, n + 1);
                memcpy(t, dv->at, (size_t)n);
                t[n] = ']';
                text = str_from(t, n + 1);
            }
            ev->data_text = text;
            err je = {0};
            json_opts jo = {.max_depth = AGG_EVENT_MAX_DEPTH + 8};
            json *v = json_parse(a, text, &jo, &je);
            if (!v && je.code == ERR_NOMEM) {
                d.msg.len = 0;
                buf_cstr(&d.msg, "out of memory");
                ok = fail_with(&d, ERR_NOMEM, "MemoryError");
            } else if (!v) {
                /* cannot happen for a line the reader took: a bug of ours */
                d.msg.len = 0;
                buf_printf(&d.msg, "the payload the reader took does not parse: %s", je.msg);
                d.p = dv->at + (je.off > 0 ? je.off : 0);
                ok = fail_with(&d, ERR_INVALID, "tally.InternalError");
            } else {
                ev->data = v;
            }
        }
        if (ok && ev->data && ev->data_kind == AGG_DATA_PROMPT)
            isl_of_tree(ev);
        bool overflow = false;
        int wire = 0;
        for (int k = 0; k < F_COUNT; k++)
            if (r->has[k]) {
                overflow |= r->f[k].overflow;
                wire = MAX(wire, r->f[k].wire);
            }
        if (overflow)
            ev->wire_error = "OverflowError";
        else if (wire > AGG_EVENT_WIRE_DEPTH)
            ev->wire_error = "RecursionError";
    }
    a->oom = old;
    if (!ok) {
        rc = d.code ? d.code : ERR_INVALID;
        finish_error(&d, de);
        memset(ev, 0, sizeof *ev);
    }
    buf_free(&d.msg);
    return rc;
}

int agg_event_decode_general(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de)
{
    return decode_line(a, line, now_ns, ev, de, true);
}

int agg_event_decode_bytes(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de)
{
    return decode_line(a, line, now_ns, ev, de, false);
}
