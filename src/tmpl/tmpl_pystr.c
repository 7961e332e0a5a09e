/* tmpl_pystr.c - Python 3.11 str semantics on UTF-8 slices (tmpl_pystr.h):
 * character classes, full case mappings with final sigma, strip, find,
 * replace, split, padding and repr. The Unicode data is a table generated
 * from Python itself (tmpl_pystr_tables.h): utf8proc lacks Python's numeric
 * types, derived case properties and SpecialCasing, and has Unicode 15. */
#define _GNU_SOURCE   /* memmem (glibc; the BSDs and macOS have it anyway) */
#include <string.h>
#include "tmpl_pystr.h"
#include "tmpl_pystr_tables.h"
#include "../base/utf8.h"

enum { MAP_LOWER, MAP_UPPER, MAP_TITLE, MAP_FOLD };

static const urec *urec_of(u32 c)
{
    if (c >= U_TOP) {
        if (c - U_P14 >= 0x1000)
            return &U_RECS[0];
        c = c - U_P14 + U_TOP;
    }
    u32 b2 = U_L1[c >> (U_SHIFT3 + U_SHIFT2)];
    u32 b3 = U_L2[(b2 << U_SHIFT2) | ((c >> U_SHIFT3) & ((1u << U_SHIFT2) - 1))];
    return &U_RECS[U_L3[(b3 << U_SHIFT3) | (c & ((1u << U_SHIFT3) - 1))]];
}

static unsigned uflags(u32 c)
{
    return urec_of(c)->flags;
}

/* Python's ASCII whitespace: \t \n \v \f \r, \x1c-\x1f and space. */
static bool ascii_space(u32 c)
{
    return c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f);
}

/* Mapping k of c into out (1 to 3 code points); returns the count. */
static int map_cp(u32 c, int k, u32 out[3])
{
    if (c < 0x80) {
        if (k == MAP_UPPER || k == MAP_TITLE)
            out[0] = c - 'a' < 26 ? c - 32 : c;
        else
            out[0] = c - 'A' < 26 ? c + 32 : c;
        return 1;
    }
    const urec *r = urec_of(c);
    if (!(r->ext >> k & 1)) {
        out[0] = (u32)((i32)c + r->m[k]);
        return 1;
    }
    int n = r->m[k] & 3;
    const u32 *p = U_POOL + (r->m[k] >> 2);
    for (int j = 0; j < n; j++)
        out[j] = p[j];
    return n;
}

/* ---- code points and output ---------------------------------------------- */

iz pystr_len(str s)
{
    iz n = utf8_ascii_prefix(s);
    for (iz i = n; i < s.len; i++)
        n += (s.s[i] & 0xc0) != 0x80;
    return n;
}

iz pystr_offset(str s, iz i)
{
    iz a = utf8_ascii_prefix(s);
    if (i <= a)
        return i;
    iz off = a;
    for (i -= a; i > 0 && off < s.len; i--)
        off += utf8_len(s.s[off]);
    return off;
}

/* Code points of s between byte offsets a and b. */
static iz cps_between(str s, iz a, iz b)
{
    return pystr_len(str_cut(s, a, b));
}

static int cp_bytes(u32 c)
{
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/* Output that is first only measured (p NULL), then written. */
typedef struct sink {
    u8 *p;
    iz  n;
} sink;

static void put_cp(sink *k, u32 c)
{
    if (k->p)
        k->n += utf8_encode(c, k->p + k->n);
    else
        k->n += cp_bytes(c);
}

static void put_str(sink *k, str s)
{
    if (k->p && s.len)
        memcpy(k->p + k->n, s.s, (size_t)s.len);
    k->n += s.len;
}

static void put_fill(sink *k, u32 c, iz count)
{
    for (iz i = 0; i < count; i++)
        put_cp(k, c);
}

static const u8 empty_bytes[1];

/* Runs fn twice: once to measure, once to write into the arena. */
static str produce(arena *a, str s, const void *ctx, void (*fn)(str, const void *, sink *))
{
    sink k = {0};
    fn(s, ctx, &k);
    if (k.n == 0)
        return (str){empty_bytes, 0};
    u8 *p = NEW_NZ(a, u8, k.n);
    sink w = {p, 0};
    fn(s, ctx, &w);
    ASSERT(w.n == k.n);
    return (str){p, w.n};
}

/* ---- predicates ---------------------------------------------------------- */

bool pystr_isspace(u32 c)
{
    return c < 0x80 ? ascii_space(c) : (uflags(c) & U_SPACE) != 0;
}

bool pystr_isalnum(u32 c)
{
    return (uflags(c) & (U_ALPHA | U_DECIMAL | U_DIGIT | U_NUMERIC)) != 0;
}

bool pystr_isalpha(u32 c)     { return (uflags(c) & U_ALPHA) != 0; }
bool pystr_isdecimal(u32 c)   { return (uflags(c) & U_DECIMAL) != 0; }
bool pystr_isdigit(u32 c)     { return (uflags(c) & U_DIGIT) != 0; }
bool pystr_isnumeric(u32 c)   { return (uflags(c) & U_NUMERIC) != 0; }
bool pystr_isprintable(u32 c) { return (uflags(c) & U_PRINTABLE) != 0; }

bool pystr_isword(u32 c)
{
    if (c < 0x80)
        return c == '_' || (c - '0' < 10) || ((c | 0x20) - 'a' < 26);
    return pystr_isalnum(c);
}

/* str.islower/isupper/istitle: the loops of CPython's unicodeobject.c. A
 * single character is answered by its flag alone, as CPython does. */
static bool is_lower_upper(str s, unsigned want, unsigned reject)
{
    iz i = 0;
    u32 c = utf8_next(s.s, &i);
    if (i == s.len)
        return (uflags(c) & want) != 0;
    bool cased = false;
    for (i = 0; i < s.len;) {
        unsigned f = uflags(utf8_next(s.s, &i));
        if (f & reject)
            return false;
        if (f & want)
            cased = true;
    }
    return cased;
}

static bool is_title(str s)
{
    iz i = 0;
    u32 c = utf8_next(s.s, &i);
    if (i == s.len)
        return (uflags(c) & (U_TITLE | U_UPPER)) != 0;
    bool cased = false, prev = false;
    for (i = 0; i < s.len;) {
        unsigned f = uflags(utf8_next(s.s, &i));
        if (f & (U_UPPER | U_TITLE)) {
            if (prev)
                return false;
            prev = cased = true;
        } else if (f & U_LOWER) {
            if (!prev)
                return false;
            prev = cased = true;
        } else {
            prev = false;
        }
    }
    return cased;
}

static bool all_flag(str s, unsigned mask)
{
    for (iz i = 0; i < s.len;)
        if (!(uflags(utf8_next(s.s, &i)) & mask))
            return false;
    return true;
}

bool pystr_is(str s, pystr_class cls)
{
    /* "".isascii() and "".isprintable() are True; every other is False. */
    if (cls == PYSTR_ASCII)
        return utf8_ascii_prefix(s) == s.len;
    if (cls == PYSTR_PRINTABLE)
        return all_flag(s, U_PRINTABLE);
    if (s.len == 0)
        return false;
    switch (cls) {
    case PYSTR_ALNUM:   return all_flag(s, U_ALPHA | U_DECIMAL | U_DIGIT | U_NUMERIC);
    case PYSTR_ALPHA:   return all_flag(s, U_ALPHA);
    case PYSTR_DECIMAL: return all_flag(s, U_DECIMAL);
    case PYSTR_DIGIT:   return all_flag(s, U_DIGIT);
    case PYSTR_NUMERIC: return all_flag(s, U_NUMERIC);
    case PYSTR_SPACE:   return all_flag(s, U_SPACE);
    case PYSTR_LOWER:   return is_lower_upper(s, U_LOWER, U_UPPER | U_TITLE);
    case PYSTR_UPPER:   return is_lower_upper(s, U_UPPER, U_LOWER | U_TITLE);
    case PYSTR_TITLE:   return is_title(s);
    case PYSTR_IDENTIFIER: {
        /* The table's XID_START includes '_', as isidentifier() lets it
         * start a name. */
        iz i = 0;
        if (!(uflags(utf8_next(s.s, &i)) & U_XID_START))
            return false;
        return all_flag(str_cut(s, i, s.len), U_XID_CONTINUE);
    }
    case PYSTR_ASCII:
    case PYSTR_PRINTABLE:
        break;
    }
    return false;
}

/* ---- case mapping -------------------------------------------------------- */

/* CPython's handle_capital_sigma: U+03A3 at byte offset `at` lowers to final
 * sigma when a cased letter precedes it (skipping case-ignorables) and none
 * follows (likewise). */
static u32 lower_sigma(str s, iz at)
{
    iz j = at;
    u32 c = 0;
    bool found = false;
    while (j > 0) {
        j = utf8_prev(s.s, j);
        iz k = j;
        c = utf8_next(s.s, &k);
        if (!(uflags(c) & U_CASE_IGNORABLE)) {
            found = true;
            break;
        }
    }
    if (!found || !(uflags(c) & U_CASED))
        return 0x3c3;
    for (j = at + 2; j < s.len;) {
        c = utf8_next(s.s, &j);
        if (!(uflags(c) & U_CASE_IGNORABLE))
            return (uflags(c) & U_CASED) ? 0x3c3 : 0x3c2;
    }
    return 0x3c2;
}

static void put_map(sink *k, u32 c, int which)
{
    u32 m[3];
    int n = map_cp(c, which, m);
    for (int j = 0; j < n; j++)
        put_cp(k, m[j]);
}

/* lower_ucs4 of CPython: the lower mapping, with the final sigma rule. */
static void put_lower(sink *k, str s, iz at, u32 c)
{
    if (c == 0x3a3)
        put_cp(k, lower_sigma(s, at));
    else
        put_map(k, c, MAP_LOWER);
}

enum { CASE_LOWER, CASE_UPPER, CASE_FOLD, CASE_SWAP, CASE_TITLE, CASE_CAPITALIZE };

static void case_fn(str s, const void *ctx, sink *k)
{
    int how = *(const int *)ctx;
    bool prev_cased = false;
    for (iz i = 0; i < s.len;) {
        iz at = i;
        u32 c = utf8_next(s.s, &i);
        switch (how) {
        case CASE_LOWER:
            put_lower(k, s, at, c);
            break;
        case CASE_UPPER:
            put_map(k, c, MAP_UPPER);
            break;
        case CASE_FOLD:
            put_map(k, c, MAP_FOLD);
            break;
        case CASE_SWAP: {
            unsigned f = uflags(c);
            if (f & U_UPPER)
                put_lower(k, s, at, c);
            else if (f & U_LOWER)
                put_map(k, c, MAP_UPPER);
            else
                put_cp(k, c);
            break;
        }
        case CASE_TITLE:
            if (prev_cased)
                put_lower(k, s, at, c);
            else
                put_map(k, c, MAP_TITLE);
            prev_cased = (uflags(c) & U_CASED) != 0;
            break;
        case CASE_CAPITALIZE:
            if (at == 0)
                put_map(k, c, MAP_TITLE);
            else
                put_lower(k, s, at, c);
            break;
        }
    }
}

/* ASCII strings: the mappings are byte to byte, and a string that would
 * not change is returned as it is. */
static str ascii_case(arena *a, str s, int how)
{
    iz i = 0;
    bool prev = false;
    for (; i < s.len; i++) {
        u8 c = s.s[i];
        bool up = (unsigned)(c - 'A') < 26, lo = (unsigned)(c - 'a') < 26;
        bool change;
        switch (how) {
        case CASE_LOWER: case CASE_FOLD: change = up; break;
        case CASE_UPPER: change = lo; break;
        case CASE_SWAP:  change = up || lo; break;
        case CASE_TITLE: change = prev ? up : lo; break;
        default:         change = i == 0 ? lo : up; break;
        }
        if (change)
            break;
        prev = up || lo;
    }
    if (i == s.len)
        return s;
    u8 *p = NEW_NZ(a, u8, s.len);
    memcpy(p, s.s, (size_t)i);
    for (; i < s.len; i++) {
        u8 c = s.s[i];
        bool up = (unsigned)(c - 'A') < 26, lo = (unsigned)(c - 'a') < 26;
        bool to_up;
        switch (how) {
        case CASE_LOWER: case CASE_FOLD: to_up = false; break;
        case CASE_UPPER: to_up = true; break;
        case CASE_SWAP:  to_up = lo; break;
        case CASE_TITLE: to_up = !prev; break;
        default:         to_up = i == 0; break;
        }
        p[i] = (u8)(to_up ? (lo ? c - 32 : c) : (up ? c + 32 : c));
        prev = up || lo;
    }
    return (str){p, s.len};
}

static str change_case(arena *a, str s, int how)
{
    if (utf8_ascii_prefix(s) == s.len)
        return ascii_case(a, s, how);
    return produce(a, s, &how, case_fn);
}

str pystr_upper(arena *a, str s)      { return change_case(a, s, CASE_UPPER); }
str pystr_lower(arena *a, str s)      { return change_case(a, s, CASE_LOWER); }
str pystr_casefold(arena *a, str s)   { return change_case(a, s, CASE_FOLD); }
str pystr_swapcase(arena *a, str s)   { return change_case(a, s, CASE_SWAP); }
str pystr_title(arena *a, str s)      { return change_case(a, s, CASE_TITLE); }
str pystr_capitalize(arena *a, str s) { return change_case(a, s, CASE_CAPITALIZE); }

/* ---- strip --------------------------------------------------------------- */

/* The characters of a strip argument: an ASCII bitmap and the rest. */
typedef struct charset {
    u64 ascii[2];
    str rest;      /* the argument itself when it has non-ASCII code points */
} charset;

static bool in_set(const charset *cs, u32 c)
{
    if (c < 0x80)
        return cs->ascii[c >> 6] >> (c & 63) & 1;
    for (iz i = 0; i < cs->rest.len;)
        if (utf8_next(cs->rest.s, &i) == c)
            return true;
    return false;
}

static bool strip_this(const charset *cs, u32 c)
{
    return cs ? in_set(cs, c) : pystr_isspace(c);
}

str pystr_strip(str s, const str *chars, int sides)
{
    charset set, *cs = NULL;
    if (chars) {
        memset(&set, 0, sizeof(set));
        for (iz i = 0; i < chars->len; i++) {
            u8 c = chars->s[i];
            if (c < 0x80)
                set.ascii[c >> 6] |= (u64)1 << (c & 63);
            else
                set.rest = *chars;
        }
        cs = &set;
    }
    iz b = 0, e = s.len;
    if (sides & PYSTR_LEFT) {
        while (b < e) {
            iz j = b;
            if (!strip_this(cs, utf8_next(s.s, &j)))
                break;
            b = j;
        }
    }
    if (sides & PYSTR_RIGHT) {
        while (e > b) {
            iz j = utf8_prev(s.s, e), k = j;
            if (!strip_this(cs, utf8_next(s.s, &k)))
                break;
            e = j;
        }
    }
    return str_cut(s, b, e);
}

/* ---- searching ----------------------------------------------------------- */

static iz bfind(str h, str n)
{
    if (n.len == 0)
        return 0;
    if (n.len > h.len)
        return -1;
    const u8 *p = memmem(h.s, (size_t)h.len, n.s, (size_t)n.len);
    return p ? p - h.s : -1;
}

static iz brfind(str h, str n)
{
    if (n.len > h.len)
        return -1;
    if (n.len == 0)
        return h.len;
    for (iz i = h.len - n.len; i >= 0; i--)
        if (h.s[i] == n.s[0] && memcmp(h.s + i, n.s, (size_t)n.len) == 0)
            return i;
    return -1;
}

iz pystr_find(str s, str sub, iz start, iz end)
{
    if (start > end)
        return -1;
    iz b0 = pystr_offset(s, start), b1 = pystr_offset(str_cut(s, b0, s.len), end - start) + b0;
    iz p = bfind(str_cut(s, b0, b1), sub);
    return p < 0 ? -1 : start + cps_between(s, b0, b0 + p);
}

iz pystr_rfind(str s, str sub, iz start, iz end)
{
    if (start > end)
        return -1;
    iz b0 = pystr_offset(s, start), b1 = pystr_offset(str_cut(s, b0, s.len), end - start) + b0;
    iz p = brfind(str_cut(s, b0, b1), sub);
    return p < 0 ? -1 : start + cps_between(s, b0, b0 + p);
}

iz pystr_count(str s, str sub, iz start, iz end)
{
    if (start > end)
        return 0;
    if (sub.len == 0)
        return end - start + 1;
    iz b0 = pystr_offset(s, start), b1 = pystr_offset(str_cut(s, b0, s.len), end - start) + b0;
    str h = str_cut(s, b0, b1);
    iz n = 0;
    for (;;) {
        iz p = bfind(h, sub);
        if (p < 0)
            return n;
        n++;
        h = str_cut(h, p + sub.len, h.len);
    }
}

str pystr_replace(arena *a, str s, str old, str rep, iz count)
{
    if (count < 0)
        count = s.len + 1;  /* more than there can be */
    /* Count the replacements first to size the result exactly. */
    iz n = 0;
    if (old.len == 0) {
        n = MIN(count, pystr_len(s) + 1);
    } else {
        str h = s;
        while (n < count) {
            iz p = bfind(h, old);
            if (p < 0)
                break;
            n++;
            h = str_cut(h, p + old.len, h.len);
        }
    }
    if (n == 0)
        return s;
    iz len = s.len + n * (rep.len - old.len);
    if (len == 0)
        return (str){empty_bytes, 0};
    u8 *p = NEW_NZ(a, u8, len);
    sink k = {p, 0};
    iz i = 0;
    for (iz r = 0; r < n; r++) {
        if (old.len == 0) {
            put_str(&k, rep);
            if (i < s.len) {
                iz j = i + utf8_len(s.s[i]);
                put_str(&k, str_cut(s, i, j));
                i = j;
            }
        } else {
            iz q = bfind(str_cut(s, i, s.len), old) + i;
            put_str(&k, str_cut(s, i, q));
            put_str(&k, rep);
            i = q + old.len;
        }
    }
    put_str(&k, str_cut(s, i, s.len));
    ASSERT(k.n == len);
    return (str){p, len};
}

/* ---- splitting ----------------------------------------------------------- */

/* Parts are collected twice: counted with out NULL, then stored. */
typedef struct parts {
    str *v;
    iz   n;
} parts;

static void add_part(parts *ps, str s)
{
    if (ps->v)
        ps->v[ps->n] = s;
    ps->n++;
}

typedef struct split_args {
    const str *sep;
    iz         max;
    bool       keepends;
} split_args;

/* Decodes the code point at byte i, telling whether it is whitespace; *next
 * gets the offset after it. */
static bool space_at(str s, iz i, iz *next)
{
    u8 b = s.s[i];
    if (b < 0x80) {
        *next = i + 1;
        return ascii_space(b);
    }
    iz j = i;
    u32 c = utf8_next(s.s, &j);
    *next = j;
    return (uflags(c) & U_SPACE) != 0;
}

static bool space_before(str s, iz i, iz *prev)
{
    iz j = s.s[i - 1] < 0x80 ? i - 1 : utf8_prev(s.s, i);
    *prev = j;
    iz k = j;
    return (uflags(utf8_next(s.s, &k)) & U_SPACE) != 0;
}

static void split_fn(str s, const split_args *sa, parts *ps)
{
    iz max = sa->max;
    if (sa->sep) {
        str sep = *sa->sep;
        iz i = 0;
        while (max-- > 0) {
            iz p = bfind(str_cut(s, i, s.len), sep);
            if (p < 0)
                break;
            add_part(ps, str_cut(s, i, i + p));
            i += p + sep.len;
        }
        add_part(ps, str_cut(s, i, s.len));
        return;
    }
    /* CPython's split_whitespace. */
    iz i = 0, nx;
    while (max-- > 0) {
        while (i < s.len && space_at(s, i, &nx))
            i = nx;
        if (i == s.len)
            break;
        iz j = i;
        while (i < s.len && !space_at(s, i, &nx))
            i = nx;
        add_part(ps, str_cut(s, j, i));
    }
    if (i < s.len) {
        while (i < s.len && space_at(s, i, &nx))
            i = nx;
        if (i != s.len)
            add_part(ps, str_cut(s, i, s.len));
    }
}

/* rsplit collects from the right; the caller reverses. */
static void rsplit_fn(str s, const split_args *sa, parts *ps)
{
    iz max = sa->max;
    if (sa->sep) {
        str sep = *sa->sep;
        iz j = s.len;
        while (max-- > 0) {
            iz p = brfind(str_cut(s, 0, j), sep);
            if (p < 0)
                break;
            add_part(ps, str_cut(s, p + sep.len, j));
            j = p;
        }
        add_part(ps, str_cut(s, 0, j));
        return;
    }
    /* CPython's rsplit_whitespace, on byte offsets just past a code point. */
    iz i = s.len, pv;
    while (max-- > 0) {
        while (i > 0 && space_before(s, i, &pv))
            i = pv;
        if (i == 0)
            break;
        iz j = i;
        while (i > 0 && !space_before(s, i, &pv))
            i = pv;
        add_part(ps, str_cut(s, i, j));
    }
    if (i > 0) {
        while (i > 0 && space_before(s, i, &pv))
            i = pv;
        if (i > 0)
            add_part(ps, str_cut(s, 0, i));
    }
}

/* Python's line boundaries: \n \r \v \f \x1c \x1d \x1e \x85 U+2028 U+2029. */
static bool linebreak_at(str s, iz i, iz *next)
{
    u8 b = s.s[i];
    if (b < 0x80) {
        *next = i + 1;
        return (b >= 10 && b <= 13) || (b >= 0x1c && b <= 0x1e);
    }
    iz j = i;
    u32 c = utf8_next(s.s, &j);
    *next = j;
    return (uflags(c) & U_LINEBREAK) != 0;
}

static void splitlines_fn(str s, const split_args *sa, parts *ps)
{
    iz i = 0, j = 0, nx;
    while (i < s.len) {
        while (i < s.len && !linebreak_at(s, i, &nx))
            i = nx;
        iz eol = i;
        if (i < s.len) {
            if (s.s[i] == '\r' && i + 1 < s.len && s.s[i + 1] == '\n')
                i += 2;
            else
                i = nx;
            if (sa->keepends)
                eol = i;
        }
        add_part(ps, str_cut(s, j, eol));
        j = i;
    }
}

static iz collect(arena *a, str s, const split_args *sa, void (*fn)(str, const split_args *, parts *),
                  str **out)
{
    parts ps = {0};
    fn(s, sa, &ps);
    if (ps.n == 0) {
        *out = NULL;
        return 0;
    }
    ps.v = NEW_NZ(a, str, ps.n);
    ps.n = 0;
    fn(s, sa, &ps);
    *out = ps.v;
    return ps.n;
}

iz pystr_split(arena *a, str s, const str *sep, iz maxsplit, str **parts_out)
{
    split_args sa = {sep, maxsplit < 0 ? s.len + 1 : maxsplit, false};
    return collect(a, s, &sa, split_fn, parts_out);
}

iz pystr_rsplit(arena *a, str s, const str *sep, iz maxsplit, str **parts_out)
{
    split_args sa = {sep, maxsplit < 0 ? s.len + 1 : maxsplit, false};
    iz n = collect(a, s, &sa, rsplit_fn, parts_out);
    str *v = *parts_out;
    for (iz i = 0, j = n - 1; i < j; i++, j--) {
        str t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
    return n;
}

iz pystr_splitlines(arena *a, str s, bool keepends, str **parts_out)
{
    split_args sa = {NULL, 0, keepends};
    return collect(a, s, &sa, splitlines_fn, parts_out);
}

/* ---- padding ------------------------------------------------------------- */

static u8 *pad_to(arena *a, str s, iz left, iz right, u32 fill, iz *len)
{
    *len = s.len + (left + right) * cp_bytes(fill);
    u8 *p = NEW_NZ(a, u8, *len);
    sink k = {p, 0};
    put_fill(&k, fill, left);
    put_str(&k, s);
    put_fill(&k, fill, right);
    return p;
}

static str pad(arena *a, str s, iz left, iz right, u32 fill)
{
    iz len;
    u8 *p = pad_to(a, s, left, right, fill, &len);
    return (str){p, len};
}

str pystr_center(arena *a, str s, iz width, u32 fill)
{
    iz n = pystr_len(s);
    if (n >= width)
        return s;
    /* CPython: left = marg / 2 + (marg & width & 1). */
    iz marg = width - n, left = marg / 2 + (marg & width & 1);
    return pad(a, s, left, marg - left, fill);
}

str pystr_ljust(arena *a, str s, iz width, u32 fill)
{
    iz n = pystr_len(s);
    return n >= width ? s : pad(a, s, 0, width - n, fill);
}

str pystr_rjust(arena *a, str s, iz width, u32 fill)
{
    iz n = pystr_len(s);
    return n >= width ? s : pad(a, s, width - n, 0, fill);
}

str pystr_zfill(arena *a, str s, iz width)
{
    iz n = pystr_len(s);
    if (n >= width)
        return s;
    iz fill = width - n, len;
    u8 *p = pad_to(a, s, fill, 0, '0', &len);
    /* A sign moves to the front, as CPython does it. */
    if (s.len && (p[fill] == '+' || p[fill] == '-')) {
        p[0] = p[fill];
        p[fill] = '0';
    }
    return (str){p, len};
}

static void expandtabs_fn(str s, const void *ctx, sink *k)
{
    iz tabsize = *(const iz *)ctx, col = 0;
    for (iz i = 0; i < s.len;) {
        iz at = i;
        u32 c = utf8_next(s.s, &i);
        if (c == '\t') {
            if (tabsize > 0) {
                iz incr = tabsize - col % tabsize;
                col += incr;
                put_fill(k, ' ', incr);
            }
        } else {
            col++;
            put_str(k, str_cut(s, at, i));
            if (c == '\n' || c == '\r')
                col = 0;
        }
    }
}

str pystr_expandtabs(arena *a, str s, iz tabsize)
{
    if (s.len == 0 || !memchr(s.s, '\t', (size_t)s.len))
        return s;
    return produce(a, s, &tabsize, expandtabs_fn);
}

/* ---- repr ---------------------------------------------------------------- */

static void repr_fn(str s, const void *ctx, sink *k)
{
    static const char hex[] = "0123456789abcdef";
    u8 quote = *(const u8 *)ctx;
    put_cp(k, quote);
    for (iz i = 0; i < s.len;) {
        iz at = i;
        u32 c = utf8_next(s.s, &i);
        int digits = 0;
        if (c == quote || c == '\\') {
            put_cp(k, '\\');
            put_cp(k, c);
        } else if (c == '\t' || c == '\n' || c == '\r') {
            put_cp(k, '\\');
            put_cp(k, c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        } else if (c < ' ' || c == 0x7f) {
            digits = 2;
        } else if (c < 0x7f || (uflags(c) & U_PRINTABLE)) {
            put_str(k, str_cut(s, at, i));
        } else {
            digits = c < 0x100 ? 2 : c < 0x10000 ? 4 : 8;
        }
        if (digits) {
            put_cp(k, '\\');
            put_cp(k, digits == 2 ? 'x' : digits == 4 ? 'u' : 'U');
            for (int d = digits - 1; d >= 0; d--)
                put_cp(k, (u8)hex[c >> (4 * d) & 15]);
        }
    }
    put_cp(k, quote);
}

str pystr_repr(arena *a, str s)
{
    /* Single quotes unless the string has ' and no ". */
    bool sq = s.len && memchr(s.s, '\'', (size_t)s.len);
    bool dq = s.len && memchr(s.s, '"', (size_t)s.len);
    u8 quote = sq && !dq ? '"' : '\'';
    return produce(a, s, &quote, repr_fn);
}
