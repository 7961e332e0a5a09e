/* tmpl_format.c - Python's formatting of values (tmpl_lib.h): str % args
 * (tv_percent), format(v, spec) with the format mini-language, and
 * str.format / format_map as jinja2's SandboxedFormatter runs them; with
 * repr() and ascii() as strings. Everything is built in one string builder
 * (sb, tmpl_lib.h). */
#include <math.h>
#include <stdlib.h>

#include "../base/utf8.h"
#include "../json/pyfmt.h"
#include "tmpl_lib.h"
#include "tmpl_pystr.h"

/* ---- repr(), ascii() ------------------------------------------------------- */

str tmpl_repr(tmpl_rt *rt, tv v)
{
    /* rt->tmp is used as a stack: what we append we take back off. */
    iz mark = rt->tmp.len;
    tv_write_repr(rt, &rt->tmp, v);
    if (rt->tmp.failed)
        tmpl_fail(rt, ERR_NOMEM, "out of memory");
    str s = arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark));
    rt->tmp.len = mark;
    return s;
}

const char *tmpl_cstr(tmpl_rt *rt, str s)
{
    iz n = MIN(s.len, (iz)ERR_MSG_MAX);
    return (const char *)arena_strdup(rt->a, str_from(s.s, n)).s;
}

str tmpl_ascii(tmpl_rt *rt, tv v)
{
    str r = tmpl_repr(rt, v);
    if (utf8_ascii_prefix(r) == r.len)
        return r;
    sb b = sb_new(rt, r.len + 16);
    for (iz i = 0; i < r.len;) {
        u32 c = utf8_next(r.s, &i);
        if (c < 0x80)
            sb_byte(&b, (u8)c);
        else if (c < 0x100)
            sb_printf(&b, "\\x%02x", c);
        else if (c < 0x10000)
            sb_printf(&b, "\\u%04x", c);
        else
            sb_printf(&b, "\\U%08x", c);
    }
    return sb_view(&b);
}

/* ---- printf-style formatting: str % args ------------------------------------ */

enum { F_LJUST = 1, F_SIGN = 2, F_BLANK = 4, F_ALT = 8, F_ZERO = 16 };

/* Writes sign, prefix and body padded to width as PyUnicode_Format does:
 * zero fill goes between the sign/prefix and the body. */
static void pad_out(sb *out, int flags, iz width, bool numeric, const char *sign,
                    const char *prefix, str body)
{
    iz len = (iz)strlen(sign) + (iz)strlen(prefix) + pystr_len(body);
    iz padn = width > len ? width - len : 0;
    if (flags & F_LJUST) {
        sb_cstr(out, sign);
        sb_cstr(out, prefix);
        sb_str(out, body);
        sb_rep(out, S(" "), padn);
    } else if (numeric && (flags & F_ZERO)) {
        sb_cstr(out, sign);
        sb_cstr(out, prefix);
        sb_rep(out, S("0"), padn);
        sb_str(out, body);
    } else {
        sb_rep(out, S(" "), padn);
        sb_cstr(out, sign);
        sb_cstr(out, prefix);
        sb_str(out, body);
    }
}

/* The int a %d/%x/%o conversion formats: Python's int(v) for d/i/u of a
 * number, operator.index(v) for x/X/o. */
static tv pct_int_arg(tmpl_rt *rt, u32 conv, tv v)
{
    if (tv_is_int(v))
        return v.kind == TV_BOOL ? tv_int(v.u.b) : v;
    bool dec = conv == 'd' || conv == 'i' || conv == 'u';
    if (v.kind == TV_UNDEF && dec)
        tv_undef_raise(rt, v);   /* Undefined has __int__, which raises */
    if (v.kind == TV_FLOAT && dec)
        return tv_int_from_double(rt, v.u.f);
    tmpl_raise(rt, "TypeError", "%%%c format: %s is required, not %s", (int)conv,
               dec ? "a real number" : "an integer", pytype(v));
}

static void pct_int(tmpl_rt *rt, sb *out, u32 conv, int flags, iz width, iz prec, tv v)
{
    bool neg;
    str digits;
    tv_int_digits(rt, v, &neg, &digits);
    const char *prefix = "";
    if (conv == 'x' || conv == 'X' || conv == 'o') {
        if (v.kind == TV_BIGINT)
            tmpl_fail(rt, ERR_UNSUPPORTED, "%%%c of an integer beyond 64 bits", (int)conv);
        i64 x = int_of(v);
        u64 m = x < 0 ? 0 - (u64)x : (u64)x;
        char tmp[32];
        int n = snprintf(tmp, sizeof(tmp), conv == 'x' ? "%llx" : conv == 'X' ? "%llX" : "%llo",
                         (unsigned long long)m);
        digits = arena_strdup(rt->a, str_from(tmp, n));
        if (flags & F_ALT)
            prefix = conv == 'x' ? "0x" : conv == 'X' ? "0X" : "0o";
    }
    if (prec > digits.len) {
        sb z = sb_new(rt, prec);
        sb_rep(&z, S("0"), prec - digits.len);
        sb_str(&z, digits);
        digits = sb_view(&z);
    }
    const char *sign = neg ? "-" : (flags & F_SIGN) ? "+" : (flags & F_BLANK) ? " " : "";
    pad_out(out, flags, width, true, sign, prefix, digits);
}

static void pct_float(tmpl_rt *rt, sb *out, u32 conv, int flags, iz width, iz prec, double x)
{
    if (prec < 0)
        prec = 6;
    const char *sign = signbit(x) && !isnan(x) ? "-" : (flags & F_SIGN) ? "+" : (flags & F_BLANK) ? " " : "";
    bool upper = conv == 'E' || conv == 'F' || conv == 'G';
    str body;
    if (!isfinite(x)) {
        if (flags & F_ZERO)
            tmpl_fail(rt, ERR_UNSUPPORTED, "zero-padded %%-formatting of inf or nan");
        body = isnan(x) ? (upper ? S("NAN") : S("nan")) : (upper ? S("INF") : S("inf"));
    } else {
        /* snprintf with a literal format per conversion (and '#'). */
        double ax = fabs(x);
        int ip = (int)prec, n;
        char *p;
#define FMT1(lit) do { \
            n = snprintf(NULL, 0, lit, ip, ax); \
            p = NEW_NZ(rt->a, char, n + 1); \
            snprintf(p, (size_t)n + 1, lit, ip, ax); \
        } while (0)
        bool alt = flags & F_ALT;
        switch (conv) {
        case 'e': if (alt) FMT1("%#.*e"); else FMT1("%.*e"); break;
        case 'E': if (alt) FMT1("%#.*E"); else FMT1("%.*E"); break;
        case 'f': if (alt) FMT1("%#.*f"); else FMT1("%.*f"); break;
        case 'F': if (alt) FMT1("%#.*F"); else FMT1("%.*F"); break;
        case 'g': if (alt) FMT1("%#.*g"); else FMT1("%.*g"); break;
        default:  if (alt) FMT1("%#.*G"); else FMT1("%.*G"); break;
        }
#undef FMT1
        body = str_from(p, n);
    }
    pad_out(out, flags, width, true, sign, "", body);
}

/* `fmt % args` (PyUnicode_Format) for a str or Markup fmt: args a tuple
 * gives the arguments in order, a dict (or another mapping) also serves
 * %(key)s, anything else is the one argument. A Markup format escapes its
 * str arguments (Markup.__mod__). */
tv tv_percent(tmpl_rt *rt, tv fmtv, tv args)
{
    str f = tv_s(fmtv);
    bool safe = is_safe(fmtv);
    /* CPython's state: the current argument object, its length (-1: not a
     * tuple) and the next index (-2: the lone argument is still unused). */
    tv cur = args;
    iz arglen = -1, argidx = -2;
    if (args.kind == TV_TUPLE) {
        arglen = args.u.list->n;
        argidx = 0;
    }
    /* PyMapping_Check: dicts, and lists and Undefined too (they have
     * __getitem__): no "not all arguments converted" for them */
    bool mapping = args.kind == TV_DICT || args.kind == TV_LIST || args.kind == TV_UNDEF;
    sb out = sb_new(rt, f.len + 16);
    iz run = 0;
    for (iz i = 0; i < f.len;) {
        if (f.s[i] != '%') {
            i++;
            continue;
        }
        sb_put(&out, f.s + run, i - run);
        iz start = i++;
        tv v = {0};
        if (i < f.len && f.s[i] == '(') {
            iz depth = 1, kbeg = ++i;
            while (i < f.len && depth > 0) {
                if (f.s[i] == '(') depth++;
                else if (f.s[i] == ')') depth--;
                i++;
            }
            if (depth > 0)
                tmpl_raise(rt, "ValueError", "incomplete format key");
            str key = str_cut(f, kbeg, i - 1);
            if (!mapping)
                tmpl_raise(rt, "TypeError", "format requires a mapping");
            if (args.kind == TV_UNDEF)   /* Undefined.__getitem__ raises */
                tv_undef_raise(rt, args);
            if (args.kind != TV_DICT)   /* a list: list["key"] */
                tmpl_raise(rt, "TypeError", "list indices must be integers or slices, not str");
            if (!tv_dict_get_str(args.u.dict, key, &cur))
                tmpl_raise(rt, "KeyError", "%s", repr_cz(rt, mkstr(rt, key, false)));
            arglen = -1;
            argidx = -2;
        }
        int flags = 0;
        for (; i < f.len; i++) {
            u8 c = f.s[i];
            if (c == '-') flags |= F_LJUST;
            else if (c == '+') flags |= F_SIGN;
            else if (c == ' ') flags |= F_BLANK;
            else if (c == '#') flags |= F_ALT;
            else if (c == '0') flags |= F_ZERO;
            else break;
        }
        iz width = -1, prec = -1;
#define NEXTARG(dst) do { \
            if (argidx >= arglen) \
                tmpl_raise(rt, "TypeError", "not enough arguments for format string"); \
            argidx++; \
            dst = arglen < 0 ? cur : cur.u.list->v[argidx - 1]; \
        } while (0)
        if (i < f.len && f.s[i] == '*') {
            tv w;
            NEXTARG(w);
            if (!tv_is_int(w))
                tmpl_raise(rt, "TypeError", "* wants int");
            width = tv_index(rt, w);
            if (width < 0) {
                flags |= F_LJUST;
                width = -width;
            }
            i++;
        } else {
            while (i < f.len && f.s[i] >= '0' && f.s[i] <= '9') {
                width = (width < 0 ? 0 : width) * 10 + (f.s[i++] - '0');
                if (width > TMPL_MAX_OUTPUT)
                    tmpl_raise(rt, "ValueError", "width too big");
            }
        }
        if (i < f.len && f.s[i] == '.') {
            i++;
            prec = 0;
            if (i < f.len && f.s[i] == '*') {
                tv p;
                NEXTARG(p);
                if (!tv_is_int(p))
                    tmpl_raise(rt, "TypeError", "* wants int");
                prec = tv_index(rt, p);
                if (prec < 0)
                    prec = 0;
                i++;
            } else {
                while (i < f.len && f.s[i] >= '0' && f.s[i] <= '9') {
                    prec = prec * 10 + (f.s[i++] - '0');
                    if (prec > TMPL_MAX_OUTPUT)
                        tmpl_raise(rt, "ValueError", "precision too big");
                }
            }
        }
        if (i >= f.len)
            tmpl_raise(rt, "ValueError", "incomplete format");
        iz ci = i;
        u32 conv = utf8_next(f.s, &i);
        run = i;
        /* "%%" is a percent sign; a '%' after flags, width or a key is a
         * conversion like any other (and an unsupported one). */
        if (conv == '%' && ci == start + 1) {
            sb_byte(&out, '%');
            continue;
        }
        NEXTARG(v);
#undef NEXTARG
        switch (conv) {
        case 's': case 'r': case 'a': {
            str s;
            if (conv == 's') {
                s = safe && !is_safe(v) ? tv_s(escape_tv(rt, v)) : to_s(rt, v);
            } else {
                s = conv == 'r' ? tmpl_repr(rt, v) : tmpl_ascii(rt, v);
                if (safe)
                    s = tv_s(escape_tv(rt, mkstr(rt, s, false)));
            }
            if (prec >= 0 && pystr_len(s) > prec)
                s = str_cut(s, 0, pystr_offset(s, prec));
            pad_out(&out, flags, width, false, "", "", s);
            break;
        }
        case 'c': {
            if (safe)
                tmpl_fail(rt, ERR_UNSUPPORTED, "%%c in a Markup format");
            u32 cp;
            if (tv_is_int(v)) {
                if (v.kind == TV_BIGINT || int_of(v) < 0 || int_of(v) > 0x10ffff)
                    tmpl_raise(rt, "OverflowError", "%%c arg not in range(0x110000)");
                cp = (u32)int_of(v);
                if (cp >= 0xd800 && cp <= 0xdfff)
                    tmpl_fail(rt, ERR_UNSUPPORTED, "%%c of a surrogate");
            } else if (v.kind == TV_STR && pystr_len(tv_s(v)) == 1) {
                iz k = 0;
                cp = utf8_next(tv_s(v).s, &k);
            } else {
                tmpl_raise(rt, "TypeError", "%%c requires int or char");
            }
            sb one = sb_new(rt, 4);
            sb_cp(&one, cp);
            pad_out(&out, flags, width, false, "", "", sb_view(&one));
            break;
        }
        case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
            if (safe && conv != 'd' && conv != 'i' && conv != 'u')
                tmpl_fail(rt, ERR_UNSUPPORTED, "%%%c in a Markup format", (int)conv);
            pct_int(rt, &out, conv, flags, width, prec, pct_int_arg(rt, conv, v));
            break;
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': {
            double x;
            if (v.kind == TV_FLOAT)
                x = v.u.f;
            else if (tv_is_int(v))
                x = tv_int_to_double(rt, v);
            else if (v.kind == TV_UNDEF)
                tv_undef_raise(rt, v);   /* Undefined.__float__ raises */
            else
                tmpl_raise(rt, "TypeError", "must be real number, not %s", pytype(v));
            pct_float(rt, &out, conv, flags, width, prec, x);
            break;
        }
        default: {
            char ch[8];
            int n = 0;
            sb one = sb_new(rt, 4);
            sb_cp(&one, conv);
            n = (int)one.len;
            memcpy(ch, one.p, (size_t)n);
            ch[n] = 0;
            tmpl_raise(rt, "ValueError", "unsupported format character '%s' (0x%x) at index %lld",
                       ch, conv, (long long)pystr_len(str_cut(f, 0, ci)));
        }
        }
    }
    sb_put(&out, f.s + run, f.len - run);
    if (argidx < arglen && !mapping)
        tmpl_raise(rt, "TypeError", "not all arguments converted during string formatting");
    return sb_tv(&out, safe);
}

/* ---- format(): Python's format mini-language ----------------------------- */

/* Everything below appends to a string builder `out`. */

typedef struct fspec {
    u32  fill;
    u32  align;      /* '<' '>' '=' '^' */
    u32  sign;       /* 0 ' ' '+' '-' */
    bool no_neg_0;   /* 'z' */
    bool alt;        /* '#' */
    iz   width;      /* -1: none */
    u32  sep;        /* 0 ',' '_' */
    int  group;      /* digits per group with sep */
    iz   prec;       /* -1: none */
    u32  type;       /* 0 or the type code point */
} fspec;

static bool is_align(u32 c)
{
    return c == '<' || c == '>' || c == '=' || c == '^';
}

/* get_integer of formatter_unicode.c: a run of decimal digits. */
static iz spec_int(tmpl_rt *rt, const u32 *cp, iz n, iz *pos, iz *out)
{
    iz start = *pos, acc = 0;
    for (; *pos < n; ++*pos) {
        u32 ch = cp[*pos];
        if (ch - '0' >= 10) {
            if (ch >= 0x80 && pystr_isdecimal(ch))
                tmpl_fail(rt, ERR_UNSUPPORTED, "non-ASCII digits in a format specifier");
            break;
        }
        if (acc > (PTRDIFF_MAX - (iz)(ch - '0')) / 10)
            tmpl_raise(rt, "ValueError", "Too many decimal digits in format string");
        acc = acc * 10 + (iz)(ch - '0');
    }
    *out = acc;
    return *pos - start;
}

static _Noreturn void unknown_code(tmpl_rt *rt, u32 type, const char *tname)
{
    if (type > 32 && type < 128)
        tmpl_raise(rt, "ValueError", "Unknown format code '%c' for object of type '%s'", (char)type,
                   tname);
    tmpl_raise(rt, "ValueError", "Unknown format code '\\x%x' for object of type '%s'",
               (unsigned)type, tname);
}

/* parse_internal_render_format_spec of CPython 3.11. */
static void parse_spec(tmpl_rt *rt, str spec, u32 default_type, u32 default_align, const char *tname,
                       fspec *f)
{
    iz n = pystr_len(spec);
    u32 *cp = NEW_NZ(rt->a, u32, n + 1);
    for (iz i = 0, k = 0; i < spec.len; k++)
        cp[k] = utf8_next(spec.s, &i);
    *f = (fspec){.fill = ' ', .align = default_align, .width = -1, .prec = -1, .type = default_type};
    iz pos = 0;
    bool fill_given = false, align_given = false;
    if (n - pos >= 2 && is_align(cp[pos + 1])) {
        f->align = cp[pos + 1];
        f->fill = cp[pos];
        fill_given = align_given = true;
        pos += 2;
    } else if (n - pos >= 1 && is_align(cp[pos])) {
        f->align = cp[pos];
        align_given = true;
        pos++;
    }
    if (n - pos >= 1 && (cp[pos] == ' ' || cp[pos] == '+' || cp[pos] == '-'))
        f->sign = cp[pos++];
    if (n - pos >= 1 && cp[pos] == 'z') {
        f->no_neg_0 = true;
        pos++;
    }
    if (n - pos >= 1 && cp[pos] == '#') {
        f->alt = true;
        pos++;
    }
    if (!fill_given && n - pos >= 1 && cp[pos] == '0') {
        f->fill = '0';
        if (!align_given && default_align == '>')
            f->align = '=';
        pos++;
    }
    iz w;
    if (spec_int(rt, cp, n, &pos, &w))
        f->width = w;
    if (n - pos >= 1 && cp[pos] == ',') {
        f->sep = ',';
        pos++;
    }
    if (n - pos >= 1 && cp[pos] == '_') {
        if (f->sep)
            tmpl_raise(rt, "ValueError", "Cannot specify both ',' and '_'.");
        f->sep = '_';
        pos++;
    }
    if (n - pos >= 1 && cp[pos] == ',' && f->sep == '_')
        tmpl_raise(rt, "ValueError", "Cannot specify both ',' and '_'.");
    if (n - pos >= 1 && cp[pos] == '.') {
        pos++;
        iz p;
        if (!spec_int(rt, cp, n, &pos, &p))
            tmpl_raise(rt, "ValueError", "Format specifier missing precision");
        f->prec = p;
    }
    if (n - pos > 1)
        tmpl_raise(rt, "ValueError", "Invalid format specifier '%.*s' for object of type '%s'",
                   (int)spec.len, (const char *)spec.s, tname);
    if (n - pos == 1)
        f->type = cp[pos];
    if (f->sep) {
        /* Grouping goes with decimal types; '_' also with b, o, x, X
         * (every four digits there). */
        bool ok = false;
        f->group = 3;
        switch (f->type) {
        case 'd': case 'e': case 'f': case 'g': case 'E': case 'G': case '%': case 'F': case 0:
            ok = true;
            break;
        case 'b': case 'o': case 'x': case 'X':
            ok = f->sep == '_';
            f->group = 4;
            break;
        default:
            break;
        }
        if (!ok) {
            if (f->type > 32 && f->type < 128)
                tmpl_raise(rt, "ValueError", "Cannot specify '%c' with '%c'.", (char)f->sep,
                           (char)f->type);
            tmpl_raise(rt, "ValueError", "Cannot specify '%c' with '\\x%x'.", (char)f->sep,
                       (unsigned)f->type);
        }
    }
    if (f->width > TMPL_MAX_OUTPUT)
        tmpl_fail(rt, ERR_LIMIT, "a format width of %td", f->width);
}

/* format_string_internal: str.__format__ with a parsed spec. */
static void format_str(sb *out, str s, const fspec *f)
{
    tmpl_rt *rt = out->rt;
    if (f->sign == ' ')
        tmpl_raise(rt, "ValueError", "Space not allowed in string format specifier");
    if (f->sign)
        tmpl_raise(rt, "ValueError", "Sign not allowed in string format specifier");
    if (f->no_neg_0)
        tmpl_raise(rt, "ValueError",
                   "Negative zero coercion (z) not allowed in string format specifier");
    if (f->alt)
        tmpl_raise(rt, "ValueError", "Alternate form (#) not allowed in string format specifier");
    if (f->align == '=')
        tmpl_raise(rt, "ValueError", "'=' alignment not allowed in string format specifier");
    iz len = pystr_len(s);
    if (f->prec >= 0 && len > f->prec) {
        s = str_cut(s, 0, pystr_offset(s, f->prec));
        len = f->prec;
    }
    iz total = f->width > len ? f->width : len;
    iz left = f->align == '>' ? total - len : f->align == '^' ? (total - len) / 2 : 0;
    sb_fill(out, f->fill, left);
    sb_str(out, s);
    sb_fill(out, f->fill, total - len - left);
}

/* The parts of a formatted number, laid out by calc_number_widths and
 * fill_number of CPython's formatter_unicode.c:
 *   <lpad> <sign> <prefix> <spad> <grouped digits> <decimal> <remainder> <rpad> */
typedef struct number {
    u32  sign;      /* '-' or 0 from the value */
    str  prefix;    /* "0x" ... */
    str  digits;    /* the integer digits (grouped) */
    bool decimal;   /* a '.' follows the digits */
    str  rest;      /* after the '.', or after the digits */
    bool upper;     /* 'X': digits and prefix in upper case */
} number;

/* Digits grouped with `sep` every `group` (0: no grouping), zero-padded to
 * min_width as _PyUnicode_InsertThousandsGrouping does, appended to out;
 * counted only when out is NULL. */
static iz grouped(tmpl_rt *rt, sb *out, str digits, iz min_width, u32 sep, int group, bool upper)
{
    /* Chunks come from the right; collect them, then emit in order. */
    iz remaining = digits.len, count = 0, nchunks = 0;
    iz cap = (MAX(remaining, min_width) + 1) / (group > 0 ? group : 1) + 2;
    iz *starts = NEW_NZ(rt->a, iz, cap), *lens = NEW_NZ(rt->a, iz, cap),
       *zeros = NEW_NZ(rt->a, iz, cap);
    bool use_sep = false, broken = false;
    iz pos = digits.len;
    if (group > 0) {
        for (;;) {
            iz len = MIN((iz)group, MAX(MAX(remaining, min_width), 1));
            iz nz = MAX(0, len - remaining), nc = MAX(0, MIN(remaining, len));
            count += (use_sep ? 1 : 0) + nz + nc;
            ASSERT(nchunks < cap);
            starts[nchunks] = pos - nc;
            lens[nchunks] = nc;
            zeros[nchunks] = nz;
            nchunks++;
            pos -= nc;
            use_sep = true;
            remaining -= nc;
            min_width -= len;
            if (remaining <= 0 && min_width <= 0) {
                broken = true;
                break;
            }
            min_width -= 1;
        }
    }
    if (!broken) {
        iz len = MAX(MAX(remaining, min_width), 1);
        iz nz = MAX(0, len - remaining), nc = MAX(0, MIN(remaining, len));
        count += (use_sep ? 1 : 0) + nz + nc;
        ASSERT(nchunks < cap);
        starts[nchunks] = pos - nc;
        lens[nchunks] = nc;
        zeros[nchunks] = nz;
        nchunks++;
    }
    if (out) {
        for (iz k = nchunks - 1; k >= 0; k--) {
            sb_fill(out, '0', zeros[k]);
            for (iz i = 0; i < lens[k]; i++) {
                u8 ch = digits.s[starts[k] + i];
                sb_byte(out, upper && ch >= 'a' && ch <= 'f' ? (u8)(ch - 32) : ch);
            }
            if (k > 0)
                sb_cp(out, sep);
        }
    }
    return count;
}

static void format_number(sb *out, const number *num, const fspec *f)
{
    tmpl_rt *rt = out->rt;
    u32 sign = 0;
    if (f->sign == '+')
        sign = num->sign == '-' ? '-' : '+';
    else if (f->sign == ' ')
        sign = num->sign == '-' ? '-' : ' ';
    else if (num->sign == '-')
        sign = '-';
    iz n_rest = pystr_len(num->rest);
    iz non_digit = (sign ? 1 : 0) + num->prefix.len + (num->decimal ? 1 : 0) + n_rest;
    iz min_width = f->fill == '0' && f->align == '=' ? f->width - non_digit : 0;
    int group = f->sep ? f->group : 0;
    iz n_grouped = num->digits.len ? grouped(rt, NULL, num->digits, min_width, f->sep, group, false) : 0;
    iz pad = f->width - (non_digit + n_grouped);
    iz lpad = 0, spad = 0, rpad = 0;
    if (pad > 0) {
        switch (f->align) {
        case '<': rpad = pad; break;
        case '^': lpad = pad / 2; rpad = pad - lpad; break;
        case '=': spad = pad; break;
        default:  lpad = pad; break;
        }
    }
    sb_fill(out, f->fill, lpad);
    if (sign)
        sb_byte(out, (u8)sign);
    for (iz i = 0; i < num->prefix.len; i++) {
        u8 ch = num->prefix.s[i];
        sb_byte(out, num->upper && ch == 'x' ? 'X' : ch);
    }
    sb_fill(out, f->fill, spad);
    if (num->digits.len)
        grouped(rt, out, num->digits, min_width, f->sep, group, num->upper);
    if (num->decimal)
        sb_byte(out, '.');
    sb_str(out, num->rest);
    sb_fill(out, f->fill, rpad);
}

/* Digits of |x| (no trailing zeros; "0" with decpt 1 for zero) as David
 * Gay's dtoa gives them: mode 0 the shortest repr, mode 2 `n` significant
 * digits, mode 3 `n` digits after the point. glibc's printf rounds
 * correctly, as dtoa does, so the digits agree. */
static iz float_digits(tmpl_rt *rt, double x, int mode, iz n, char **digits)
{
    iz decpt;
    if (x == 0) {
        *digits = (char *)"0";
        return 1;
    }
    if (mode == 0) {
        pyfmt_dec d;
        pyfmt_shortest(x, &d);
        char *p = NEW_NZ(rt->a, char, 24);
        snprintf(p, 24, "%llu", (unsigned long long)d.digits);
        *digits = p;
        return d.ndigits + d.exp;
    }
    iz cap = mode == 2 ? n + 16 : n + 330;
    char *tmp = NEW_NZ(rt->a, char, cap);
    char *p = NEW_NZ(rt->a, char, cap);
    iz k = 0;
    if (mode == 2) {
        snprintf(tmp, (size_t)cap, "%.*e", (int)(n - 1), x);
        char *e = strchr(tmp, 'e');
        for (char *q = tmp; q < e; q++)
            if (*q != '.')
                p[k++] = *q;
        decpt = strtol(e + 1, NULL, 10) + 1;
    } else {
        snprintf(tmp, (size_t)cap, "%.*f", (int)n, x);
        char *dot = strchr(tmp, '.');
        decpt = dot ? dot - tmp : (iz)strlen(tmp);
        for (char *q = tmp; *q; q++)
            if (*q != '.')
                p[k++] = *q;
        iz lead = 0;
        while (lead < k && p[lead] == '0')
            lead++;
        memmove(p, p + lead, (size_t)(k - lead));
        k -= lead;
        decpt -= lead;
        if (k == 0) {
            *digits = (char *)"0";
            return 1;
        }
    }
    while (k > 1 && p[k - 1] == '0')
        k--;
    p[k] = 0;
    *digits = p;
    return decpt;
}

/* format_float_short of CPython's pystrtod.c, appended to b: code 'e',
 * 'f', 'g' or 'r'. */
static void float_short(sb *b, double x, int code, iz prec, bool upper, bool add_dot_0,
                        bool alt, bool no_neg_0)
{
    tmpl_rt *rt = b->rt;
    bool neg = signbit(x) != 0;
    if (isnan(x) || isinf(x)) {
        if (isinf(x) && neg)
            sb_byte(b, '-');
        sb_cstr(b, isnan(x) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
        return;
    }
    int mode = code == 'r' ? 0 : code == 'f' ? 3 : 2;
    iz n = code == 'e' ? prec + 1 : code == 'g' && prec == 0 ? 1 : prec;
    if (n > 100000)
        tmpl_fail(rt, ERR_LIMIT, "a float format precision of %td", prec);
    char *digits;
    iz decpt = float_digits(rt, fabs(x), mode, n, &digits);
    iz dlen = (iz)strlen(digits);
    if (no_neg_0 && neg && dlen == 1 && digits[0] == '0')
        neg = false;
    bool use_exp = false;
    iz vend = dlen, exp = 0;
    switch (code) {
    case 'e': use_exp = true; vend = n; break;
    case 'f': vend = decpt + prec; break;
    case 'g':
        if (decpt <= -4 || decpt > (add_dot_0 ? n - 1 : n))
            use_exp = true;
        if (alt)
            vend = n;
        break;
    default:
        if (decpt <= -4 || decpt > 16)
            use_exp = true;
        break;
    }
    if (use_exp) {
        exp = decpt - 1;
        decpt = 1;
    }
    iz vstart = decpt <= 0 ? decpt - 1 : 0;
    if (!use_exp && add_dot_0)
        vend = vend > decpt ? vend : decpt + 1;
    else
        vend = vend > decpt ? vend : decpt;
    if (neg)
        sb_byte(b, '-');
    if (decpt <= 0) {
        for (iz i = 0; i < decpt - vstart; i++)
            sb_byte(b, '0');
        sb_byte(b, '.');
        for (iz i = 0; i < -decpt; i++)
            sb_byte(b, '0');
    } else {
        for (iz i = 0; i < -vstart; i++)
            sb_byte(b, '0');
    }
    if (0 < decpt && decpt <= dlen) {
        sb_put(b, digits, decpt);
        sb_byte(b, '.');
        sb_put(b, digits + decpt, dlen - decpt);
    } else {
        sb_put(b, digits, dlen);
    }
    if (dlen < decpt) {
        for (iz i = 0; i < decpt - dlen; i++)
            sb_byte(b, '0');
        sb_byte(b, '.');
        for (iz i = 0; i < vend - decpt; i++)
            sb_byte(b, '0');
    } else {
        for (iz i = 0; i < vend - dlen; i++)
            sb_byte(b, '0');
    }
    if (b->len && b->p[b->len - 1] == '.' && !alt)
        b->len--;
    if (use_exp)
        sb_printf(b, "%c%+.02d", upper ? 'E' : 'e', (int)exp);
}

/* Splits formatted number text into a number and lays it out with the
 * spec into out. */
static void layout_number_text(sb *out, str t, const fspec *f, bool upper)
{
    iz len = t.len;
    const char *text = (const char *)t.s;
    number num = {0};
    iz i = 0;
    if (len && text[0] == '-') {
        num.sign = '-';
        i = 1;
    }
    iz d0 = i;
    while (i < len && text[i] >= '0' && text[i] <= '9')
        i++;
    num.digits = str_from(text + d0, i - d0);
    if (i < len && text[i] == '.') {
        num.decimal = true;
        i++;
    }
    num.rest = str_from(text + i, len - i);
    num.prefix = S("");
    num.upper = upper;
    format_number(out, &num, f);
}

static void format_float(sb *out, double x, const fspec *f)
{
    u32 type = f->type;
    int code;
    iz prec = f->prec;
    bool add_dot_0 = false, pct = false, upper = false;
    switch (type) {
    case 0:   code = 'r'; add_dot_0 = true; break;
    case 'n': code = 'g'; break;
    case '%': code = 'f'; x *= 100; pct = true; break;
    case 'E': case 'F': case 'G': code = (int)type + 32; upper = true; break;
    default:  code = (int)type; break;
    }
    if (prec < 0)
        prec = code == 'r' ? 0 : 6;
    else if (code == 'r')
        code = 'g';
    sb t = sb_new(out->rt, 32);
    float_short(&t, x, code, prec, upper, add_dot_0, f->alt, f->no_neg_0);
    if (pct)
        sb_byte(&t, '%');
    layout_number_text(out, sb_view(&t), f, false);
}

/* The digits of a big non-negative decimal in base 2, 8 or 16 (lower
 * case): through 32-bit limbs, most significant digit first. */
static str big_to_base(tmpl_rt *rt, str dec, int base)
{
    iz nl = dec.len / 9 + 2, used = 0;
    u32 *limb = NEW(rt->a, u32, nl);
    for (iz i = 0; i < dec.len;) {
        iz take = MIN((iz)9, dec.len - i);
        u64 mul = 1, add = 0;
        for (iz k = 0; k < take; k++) {
            mul *= 10;
            add = add * 10 + (u64)(dec.s[i + k] - '0');
        }
        i += take;
        for (iz k = 0; k < used; k++) {
            u64 x = (u64)limb[k] * mul + add;
            limb[k] = (u32)x;
            add = x >> 32;
        }
        if (add)
            limb[used++] = (u32)add;
    }
    int bits = base == 2 ? 1 : base == 8 ? 3 : 4;
    iz nbits = used * 32;
    while (nbits > 0 && !(limb[(nbits - 1) / 32] >> ((nbits - 1) % 32) & 1))
        nbits--;
    iz nd = MAX((nbits + bits - 1) / bits, 1);
    char *p = NEW_NZ(rt->a, char, nd);
    for (iz d = 0; d < nd; d++) {
        unsigned val = 0;
        for (int b = bits - 1; b >= 0; b--) {
            iz bit = d * bits + b;
            val = val << 1 | (bit < nbits ? limb[bit / 32] >> (bit % 32) & 1 : 0);
        }
        p[nd - 1 - d] = "0123456789abcdef"[val];
    }
    return str_from(p, nd);
}

/* float(int) of a big int: correctly rounded, as strtod reads it. */
static double big_to_double(tmpl_rt *rt, str dec)
{
    char *z = NEW_NZ(rt->a, char, dec.len + 1);
    memcpy(z, dec.s, (size_t)dec.len);
    z[dec.len] = 0;
    double d = strtod(z, NULL);
    if (isinf(d))
        tmpl_raise(rt, "OverflowError", "int too large to convert to float");
    return d;
}

/* int.__format__ with a parsed spec whose type is an int type. */
static void format_int(sb *out, tv v, const fspec *f)
{
    tmpl_rt *rt = out->rt;
    if (f->prec >= 0)
        tmpl_raise(rt, "ValueError", "Precision not allowed in integer format specifier");
    if (f->no_neg_0)
        tmpl_raise(rt, "ValueError",
                   "Negative zero coercion (z) not allowed in integer format specifier");
    i64 i = v.kind == TV_BOOL ? v.u.b : v.u.i;
    number num = {.prefix = S(""), .rest = S("")};
    if (f->type == 'c') {
        if (f->sign)
            tmpl_raise(rt, "ValueError", "Sign not allowed with integer format specifier 'c'");
        if (f->alt)
            tmpl_raise(rt, "ValueError",
                       "Alternate form (#) not allowed with integer format specifier 'c'");
        if (v.kind == TV_BIGINT)
            tmpl_raise(rt, "OverflowError", "Python int too large to convert to C long");
        if (i < 0 || i > 0x10ffff)
            tmpl_raise(rt, "OverflowError", "%%c arg not in range(0x110000)");
        if (i >= 0xd800 && i <= 0xdfff)
            tmpl_fail(rt, ERR_UNSUPPORTED, "a lone surrogate from format code 'c'");
        u8 *p = NEW_NZ(rt->a, u8, 4);
        num.rest = str_from(p, utf8_encode((u32)i, p));
        format_number(out, &num, f);
        return;
    }
    int base = f->type == 'b' ? 2 : f->type == 'o' ? 8 : f->type == 'x' || f->type == 'X' ? 16 : 10;
    if (f->alt && base != 10)
        num.prefix = base == 2 ? S("0b") : base == 8 ? S("0o") : S("0x");
    num.upper = f->type == 'X';
    if (v.kind == TV_BIGINT) {
        str t = tv_s(v);
        if (t.len && t.s[0] == '-') {
            num.sign = '-';
            t = str_cut(t, 1, t.len);
        }
        num.digits = base == 10 ? t : big_to_base(rt, t, base);
        format_number(out, &num, f);
        return;
    }
    u64 mag = i < 0 ? (u64)0 - (u64)i : (u64)i;
    if (i < 0)
        num.sign = '-';
    char *p = NEW_NZ(rt->a, char, 65);
    iz k = 65;
    do {
        p[--k] = "0123456789abcdef"[mag % (u64)base];
        mag /= (u64)base;
    } while (mag);
    num.digits = str_from(p + k, 65 - k);
    format_number(out, &num, f);
}

/* format(v, spec) appended to out. */
static void format_value(sb *out, tv v, str spec)
{
    tmpl_rt *rt = out->rt;
    if (spec.len == 0) {
        sb_str(out, to_s(rt, v));
        return;
    }
    fspec f;
    switch (v.kind) {
    case TV_STR:
        parse_spec(rt, spec, 's', '<', v.flags & TVF_SAFE ? "Markup" : "str", &f);
        if (f.type != 's')
            unknown_code(rt, f.type, v.flags & TVF_SAFE ? "Markup" : "str");
        format_str(out, tv_s(v), &f);
        return;
    case TV_INT: case TV_BOOL: case TV_BIGINT: {
        const char *tname = v.kind == TV_BOOL ? "bool" : "int";
        parse_spec(rt, spec, 'd', '>', tname, &f);
        switch (f.type) {
        case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'n':
            format_int(out, v, &f);
            return;
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%':
            format_float(out, v.kind == TV_BIGINT ? big_to_double(rt, tv_s(v))
                             : (double)(v.kind == TV_BOOL ? v.u.b : v.u.i), &f);
            return;
        default:
            unknown_code(rt, f.type, tname);
        }
    }
    case TV_FLOAT:
        parse_spec(rt, spec, 0, '>', "float", &f);
        switch (f.type) {
        case 0: case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'n': case '%':
            format_float(out, v.u.f, &f);
            return;
        default:
            unknown_code(rt, f.type, "float");
        }
    default:
        tmpl_raise(rt, "TypeError", "unsupported format string passed to %s.__format__",
                   tv_type_name(v));
    }
}

/* ---- str.format through jinja2's SandboxedFormatter ---------------------- */

typedef struct fmt_ctx {
    tmpl_rt       *rt;
    const tv_args *a;      /* the call's arguments (the keyword fields) */
    const tv *args;
    iz nargs;
    const tv *map;   /* format_map's mapping: the keyword fields come from it */
} fmt_ctx;

/* The decimal value of a field name part (get_integer), or -1. */
static iz field_int(tmpl_rt *rt, str s)
{
    if (s.len == 0)
        return -1;
    iz acc = 0;
    for (iz i = 0; i < s.len;) {
        u32 ch = utf8_next(s.s, &i);
        if (ch - '0' >= 10) {
            if (ch >= 0x80 && pystr_isdecimal(ch))
                tmpl_fail(rt, ERR_UNSUPPORTED, "non-ASCII digits in a format field name");
            return -1;
        }
        if (acc > (PTRDIFF_MAX - (iz)(ch - '0')) / 10)
            tmpl_raise(rt, "ValueError", "Too many decimal digits in format string");
        acc = acc * 10 + (iz)(ch - '0');
    }
    return acc;
}

/* Formatter.get_field: the first part from args/kwargs, then the rest
 * through the sandbox's getattr and getitem. */
static tv get_field(fmt_ctx *fc, str name)
{
    tmpl_rt *rt = fc->rt;
    iz i = 0;
    while (i < name.len && name.s[i] != '.' && name.s[i] != '[')
        i++;
    str first = str_cut(name, 0, i);
    iz idx = field_int(rt, first);
    tv obj = tv_none();
    if (idx >= 0) {
        if (idx >= fc->nargs)
            tmpl_raise(rt, "IndexError", "tuple index out of range");
        obj = fc->args[idx];
    } else {
        const tv_args *a = fc->a;
        bool found = false;
        if (fc->map) {   /* kwargs[key] of the mapping itself */
            tv m = *fc->map;
            if (m.kind == TV_UNDEF)
                tv_undef_raise(rt, m);
            if (m.kind == TV_LIST)
                tmpl_raise(rt, "TypeError", "list indices must be integers or slices, not str");
            if (m.kind != TV_DICT)
                tmpl_raise(rt, "TypeError", "'%s' object is not subscriptable", tv_type_name(m));
            found = tv_dict_get_str(m.u.dict, first, &obj);
        } else {
            for (i32 k = a->nkw - 1; k >= 0 && !found; k--)
                if (str_eq(a->kwname[k], first)) {
                    obj = a->kw[k];
                    found = true;
                }
        }
        if (!found) {
            arena_mark m = arena_save(rt->a);
            str r = pystr_repr(rt->a, first);
            char msg[ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "%.*s", (int)r.len, (const char *)r.s);
            arena_restore(rt->a, m);
            tmpl_raise(rt, "KeyError", "%s", msg);
        }
    }
    /* FieldNameIterator */
    while (i < name.len) {
        u8 ch = name.s[i++];
        str part;
        bool attr;
        if (ch == '.') {
            attr = true;
            iz j = i;
            while (i < name.len && name.s[i] != '.' && name.s[i] != '[')
                i++;
            part = str_cut(name, j, i);
        } else if (ch == '[') {
            attr = false;
            iz j = i;
            while (i < name.len && name.s[i] != ']')
                i++;
            if (i >= name.len)
                tmpl_raise(rt, "ValueError", "Missing ']' in format string");
            part = str_cut(name, j, i);
            i++;
        } else {
            tmpl_raise(rt, "ValueError",
                       "Only '.' or '[' may follow ']' in format field specifier");
        }
        if (part.len == 0)
            tmpl_raise(rt, "ValueError", "Empty attribute in format string");
        if (attr) {
            obj = tv_getattr(rt, obj, part);
        } else {
            iz k = field_int(rt, part);
            obj = tv_getitem(rt, obj, k >= 0 ? tv_int(k) : tv_str(part));
        }
    }
    return obj;
}

/* Formatter._vformat: appends the formatted text to out. `autoidx` is the
 * automatic field number, or -1 once manual numbering was used (the Python
 * code's False). */
static iz vformat(fmt_ctx *fc, sb *out, str s, int depth, iz autoidx)
{
    tmpl_rt *rt = fc->rt;
    if (depth < 0)
        tmpl_raise(rt, "ValueError", "Max string recursion exceeded");
    iz i = 0;
    while (i < s.len) {
        /* MarkupIterator_next: literal text up to a brace. */
        iz start = i;
        u8 c = 0;
        bool markup = false;
        while (i < s.len) {
            c = s.s[i++];
            if (c == '{' || c == '}') {
                markup = true;
                break;
            }
        }
        bool at_end = i >= s.len;
        iz len = i - start;
        if (markup && c == '}' && (at_end || s.s[i] != '}'))
            tmpl_raise(rt, "ValueError", "Single '}' encountered in format string");
        if (markup && at_end && c == '{')
            tmpl_raise(rt, "ValueError", "Single '{' encountered in format string");
        if (markup && !at_end) {
            if (s.s[i] == c) {
                i++;
                markup = false;
            } else {
                len--;
            }
        }
        sb_str(out, str_cut(s, start, start + len));
        if (!markup)
            continue;
        /* parse_field */
        iz fstart = i;
        u8 ch = 0;
        while (i < s.len) {
            ch = s.s[i++];
            if (ch == '{')
                tmpl_raise(rt, "ValueError", "unexpected '{' in field name");
            if (ch == '[') {
                while (i < s.len && s.s[i] != ']')
                    i++;
                continue;
            }
            if (ch == '}' || ch == ':' || ch == '!')
                break;
        }
        str field = str_cut(s, fstart, i - 1 < fstart ? fstart : i - 1);
        u32 conv = 0;
        str spec = S("");
        if (ch == '!' || ch == ':') {
            if (ch == '!') {
                if (i >= s.len)
                    tmpl_raise(rt, "ValueError", "end of string while looking for conversion specifier");
                conv = utf8_next(s.s, &i);
                if (i < s.len) {
                    u8 nx = s.s[i++];
                    if (nx != '}' && nx != ':')
                        tmpl_raise(rt, "ValueError", "expected ':' after conversion specifier");
                    if (nx == '}')
                        goto have_field;
                }
            }
            iz sstart = i;
            int count = 1;
            bool closed = false;
            while (i < s.len) {
                u8 sc = s.s[i++];
                if (sc == '{')
                    count++;
                else if (sc == '}' && --count == 0) {
                    spec = str_cut(s, sstart, i - 1);
                    closed = true;
                    break;
                }
            }
            if (!closed)
                tmpl_raise(rt, "ValueError", "unmatched '{' in format spec");
        } else if (ch != '}') {
            tmpl_raise(rt, "ValueError", "expected '}' before end of string");
        }
    have_field:;
        /* Formatter._vformat's numbering. */
        char numbuf[24];
        if (field.len == 0) {
            if (autoidx < 0)
                tmpl_raise(rt, "ValueError", "cannot switch from manual field specification to "
                                             "automatic field numbering");
            snprintf(numbuf, sizeof numbuf, "%td", autoidx);
            field = str_cstr(numbuf);
            autoidx++;
        } else if (pystr_is(field, PYSTR_DIGIT)) {
            if (autoidx > 0)
                tmpl_raise(rt, "ValueError", "cannot switch from manual field specification to "
                                             "automatic field numbering");
            autoidx = -1;
        }
        tv obj = get_field(fc, field);
        if (conv) {
            str cs;
            switch (conv) {
            case 'r': cs = tmpl_repr(rt, obj); break;
            case 's': cs = to_s(rt, obj); break;
            case 'a': cs = tmpl_ascii(rt, obj); break;
            default:
                if (conv > 32 && conv < 127)
                    tmpl_raise(rt, "ValueError", "Unknown conversion specifier %c", (char)conv);
                tmpl_raise(rt, "ValueError", "Unknown conversion specifier \\x%x", (unsigned)conv);
            }
            obj = tv_str(cs);
        }
        /* The spec is itself formatted, one level down. */
        sb xspec = sb_new(rt, spec.len + 1);
        autoidx = vformat(fc, &xspec, spec, depth - 1, autoidx);
        format_value(out, obj, sb_view(&xspec));
    }
    return autoidx;
}

tv tmpl_str_format(tmpl_rt *rt, str fmt, const tv_args *args, const tv *map)
{
    fmt_ctx fc = {rt, args, map ? NULL : args->pos, map ? 0 : args->npos, map};
    sb out = sb_new(rt, fmt.len + 16);
    vformat(&fc, &out, fmt, 2, 0);
    return tv_str(sb_view(&out));
}
