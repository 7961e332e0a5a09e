/* tmpl_filters_text.c - the filters on text that follow Python libraries
 * (tmpl_filter_text, tmpl_lib.h): center, filesizeformat, indent, pprint,
 * striptags (html.unescape), title, truncate, urlencode (urllib's quote),
 * urlize, wordcount and wordwrap (textwrap), as jinja2/filters.py runs
 * them in the sandbox, error messages included. */
#include <math.h>

#include "../base/utf8.h"
#include "../json/pyfmt.h"
#include "tmpl_lib.h"
#include "tmpl_pystr.h"

/* A digit's value in bases up to 36 (99 for a non-digit). */
static int digit_in_base(u8 c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return 99;
}

SIG(SG_CENTER, "do_center", 2, 0, 1, 0, "value", "width");
SIG(SG_FILESIZE, "do_filesizeformat", 2, 0, 1, 0, "value", "binary");
SIG(SG_INDENT, "do_indent", 4, 0, 1, 0, "s", "width", "first", "blank");
SIG(SG_PPRINT, "do_pprint", 1, 0, 1, 0, "value");
SIG(SG_STRIPTAGS, "do_striptags", 1, 0, 1, 0, "value");
SIG(SG_TITLE, "do_title", 1, 0, 1, 0, "s");
SIG(SG_TRUNCATE, "do_truncate", 6, 1, 2, 0, "env", "s", "length", "killwords", "end", "leeway");
SIG(SG_URLENCODE, "do_urlencode", 1, 0, 1, 0, "value");
SIG(SG_URLIZE, "do_urlize", 7, 1, 2, 0, "eval_ctx", "value", "trim_url_limit", "nofollow", "target",
    "rel", "extra_schemes");
SIG(SG_WORDCOUNT, "do_wordcount", 1, 0, 1, 0, "s");
SIG(SG_WORDWRAP, "do_wordwrap", 6, 1, 2, 0, "environment", "s", "width", "break_long_words",
    "wrapstring", "break_on_hyphens");

static tv f_center(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_CENTER, v, a, &b);
    tv s = soft_str(rt, v);
    i64 width = given(&b, 1) ? tv_index(rt, b.v[1]) : 80;
    if (width > TMPL_MAX_OUTPUT)
        tmpl_fail(rt, ERR_LIMIT, "center to %lld characters", (long long)width);
    return mkstr(rt, pystr_center(rt->a, tv_s(s), (iz)width, ' '), is_safe(s));
}


/* f"{x:.1f}" */
static void sb_fixed1(sb *b, double x)
{
    if (isnan(x)) {
        sb_cstr(b, "nan");
        return;
    }
    if (isinf(x)) {
        sb_cstr(b, x < 0 ? "-inf" : "inf");
        return;
    }
    sb_printf(b, "%.1f", x);
}

static tv f_filesizeformat(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_FILESIZE, v, a, &b);
    double bytes = tv_float_or_raise(rt, v);
    bool binary = tv_truthy(arg_or(&b, 1, tv_bool(false)));
    int base = binary ? 1024 : 1000;
    static const char *const dec[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    static const char *const bin[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    sb out = sb_new(rt, 32);
    if (bytes == 1) {
        sb_cstr(&out, "1 Byte");
    } else if (bytes < base) {
        sb_str(&out, to_s(rt, tv_int_from_double(rt, bytes)));
        sb_cstr(&out, " Bytes");
    } else {
        /* unit = base ** (i + 2), an exact int in Python: long double holds
         * 1000**9 exactly (64-bit mantissa) for the comparison, and the
         * division converts it to the nearest double as Python does. */
        long double unit = 0;
        int i;
        for (i = 0; i < 8; i++) {
            unit = 1;
            for (int k = 0; k < i + 2; k++)
                unit *= base;
            if ((long double)bytes < unit)
                break;
        }
        if (i == 8)
            i = 7;
        sb_fixed1(&out, (double)base * bytes / (double)unit);
        sb_byte(&out, ' ');
        sb_cstr(&out, binary ? bin[i] : dec[i]);
    }
    return sb_tv(&out, false);
}


static tv f_indent(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_INDENT, v, a, &b);
    tv width = arg_or(&b, 1, tv_int(4));
    bool first = tv_truthy(arg_or(&b, 2, tv_bool(false)));
    bool blank = tv_truthy(arg_or(&b, 3, tv_bool(false)));
    str ind;
    if (width.kind == TV_STR) {
        ind = tv_s(width);
    } else if (width.kind == TV_INT || width.kind == TV_BOOL) {
        i64 w = int_of(width);
        if (w > TMPL_MAX_OUTPUT)
            tmpl_fail(rt, ERR_LIMIT, "indent of %lld spaces", (long long)w);
        sb s = sb_new(rt, w > 0 ? w : 0);
        sb_rep(&s, S(" "), w);
        ind = sb_view(&s);
    } else if (width.kind == TV_UNDEF) {
        tv_undef_raise(rt, width);
    } else if (width.kind == TV_BIGINT) {
        tmpl_raise(rt, "OverflowError", "cannot fit 'int' into an index-sized integer");
    } else {
        tmpl_raise(rt, "TypeError", "can't multiply sequence by non-int of type '%s'", pytype(width));
    }
    switch (v.kind) {
    case TV_STR:
        break;
    case TV_UNDEF:
        tv_undef_raise(rt, v);
    case TV_LIST:
        tmpl_raise(rt, "AttributeError", "'list' object has no attribute 'splitlines'");
    case TV_TUPLE:
        tmpl_raise(rt, "TypeError", "can only concatenate tuple (not \"str\") to tuple");
    default:
        tmpl_raise(rt, "TypeError", "unsupported operand type(s) for +=: '%s' and 'str'", pytype(v));
    }
    /* s += "\n"; lines = s.splitlines() */
    sb s = sb_new(rt, tv_s(v).len + 1);
    sb_str(&s, tv_s(v));
    sb_byte(&s, '\n');
    str *lines;
    iz nl = pystr_splitlines(rt->a, sb_view(&s), false, &lines);
    sb out = sb_new(rt, tv_s(v).len + nl * ind.len + 8);
    if (first)
        sb_str(&out, ind);
    for (iz i = 0; i < nl; i++) {
        if (i) {
            sb_byte(&out, '\n');
            if (blank || lines[i].len)
                sb_str(&out, ind);
        }
        sb_str(&out, lines[i]);
    }
    return sb_tv(&out, is_safe(v));
}


/* pprint.pformat(v) where it is repr(v) with dict keys sorted: a str, list,
 * tuple or dict whose repr passes 80 columns is broken over lines by
 * pprint, which we do not do. */
static void pp_repr(tmpl_rt *rt, sb *out, tv v, int depth)
{
    if (depth > PYFMT_MAX_DEPTH)
        tmpl_fail(rt, ERR_LIMIT, "pprint of values nested deeper than %d", (int)PYFMT_MAX_DEPTH);
    switch (v.kind == TV_LIST && (v.flags & (TVF_ITER | TVF_RANGE)) ? TV_NONE : v.kind) {   /* those: their repr */
    case TV_LIST: case TV_TUPLE: {
        const tv_list *l = v.u.list;
        sb_byte(out, v.kind == TV_LIST ? '[' : '(');
        for (iz i = 0; i < l->n; i++) {
            if (i)
                sb_cstr(out, ", ");
            pp_repr(rt, out, l->v[i], depth + 1);
        }
        if (v.kind == TV_TUPLE && l->n == 1)
            sb_byte(out, ',');
        sb_byte(out, v.kind == TV_LIST ? ']' : ')');
        return;
    }
    case TV_DICT: {
        const tv_dict *d = v.u.dict;
        iz n = tv_dict_n(d);
        bool all_str = true, all_num = true;
        for (iz i = 0; i < n; i++) {
            tv k = tv_dict_e(d)[i].key;
            all_str &= k.kind == TV_STR;
            all_num &= (tv_is_number(k) && !(k.kind == TV_FLOAT && isnan(k.u.f)));
        }
        if (!all_str && !all_num)
            tmpl_fail(rt, ERR_UNSUPPORTED, "pprint of a dict with keys of mixed types");
        tv *keys = NEW_NZ(rt->a, tv, n), *idx = NEW_NZ(rt->a, tv, n);
        for (iz i = 0; i < n; i++) {
            keys[i] = tv_dict_e(d)[i].key;
            idx[i] = tv_int(i);
        }
        tmpl_sort(rt, keys, idx, n, false, tmpl_lt_plain, NULL);
        sb_byte(out, '{');
        for (iz i = 0; i < n; i++) {
            if (i)
                sb_cstr(out, ", ");
            const tv_entry *e = &tv_dict_e(d)[idx[i].u.i];
            pp_repr(rt, out, e->key, depth + 1);
            sb_cstr(out, ": ");
            pp_repr(rt, out, e->val, depth + 1);
        }
        sb_byte(out, '}');
        return;
    }
    default:
        sb_str(out, tmpl_repr(rt, v));
    }
}

static tv f_pprint(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_PPRINT, v, a, &b);
    sb out = sb_new(rt, 64);
    pp_repr(rt, &out, v, 0);
    bool wraps = (v.kind == TV_STR && !is_safe(v)) || (v.kind == TV_LIST && !(v.flags & (TVF_ITER | TVF_RANGE))) ||
                 v.kind == TV_TUPLE || v.kind == TV_DICT;
    if (wraps && pystr_len(sb_view(&out)) > 80)
        tmpl_fail(rt, ERR_UNSUPPORTED, "pprint of a value whose repr is wider than 80 columns");
    return sb_tv(&out, false);
}

/* html.unescape's replacements for numeric references to C1 controls and
 * other invalid code points (Python's html._invalid_charrefs). */
static u32 charref_fix(u32 c, bool *drop)
{
    static const u16 c1[32] = {
        0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8d, 0x017d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022,
        0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x9d, 0x017e, 0x0178};
    *drop = false;
    if (c == 0)
        return 0xfffd;
    if (c == 0x0d)
        return 0x0d;
    if (c >= 0x80 && c <= 0x9f)
        return c1[c - 0x80];
    if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
        return 0xfffd;
    if ((c >= 0x1 && c <= 0x8) || (c >= 0xe && c <= 0x1f) || (c >= 0x7f && c <= 0x9f) ||
        (c >= 0xfdd0 && c <= 0xfdef) || c == 0xb || (c & 0xfffe) == 0xfffe)
        *drop = true;
    return c;
}

/* html.unescape with numeric references and the few named ones templates
 * meet; any other named reference would need the HTML5 entity table. */
static str html_unescape(tmpl_rt *rt, str s)
{
    if (s.len == 0 || !memchr(s.s, '&', (size_t)s.len))
        return s;
    static const struct { const char *name; u32 cp; } named[] = {
        {"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''},
        {"nbsp;", 0xa0}, {"AMP;", '&'}, {"LT;", '<'}, {"GT;", '>'}, {"QUOT;", '"'},
    };
    sb out = sb_new(rt, s.len);
    iz run = 0;
    for (iz i = 0; i < s.len; i++) {
        if (s.s[i] != '&')
            continue;
        iz j = i + 1;
        if (j < s.len && s.s[j] == '#') {
            j++;
            bool hex = j < s.len && (s.s[j] | 0x20) == 'x';
            if (hex)
                j++;
            iz d0 = j;
            u64 num = 0;
            bool big = false;
            while (j < s.len && (hex ? (s.s[j] < 0x80 && digit_in_base(s.s[j]) < 16)
                                     : (s.s[j] >= '0' && s.s[j] <= '9'))) {
                num = num * (hex ? 16 : 10) + (u64)digit_in_base(s.s[j]);
                big |= num > 0x10ffff;
                j++;
            }
            if (j == d0)
                continue;   /* "&#" or "&#x" without digits stays */
            if (j < s.len && s.s[j] == ';')
                j++;
            bool drop;
            u32 c = charref_fix(big ? 0x110000 : (u32)num, &drop);
            sb_put(&out, s.s + run, i - run);
            if (!drop)
                sb_cp(&out, c);
            run = j;
            i = j - 1;
            continue;
        }
        /* [^\t\n\f <&#;]{1,32};? */
        iz k = j;
        while (k < s.len && k - j < 32 && !strchr("\t\n\f <&#;", s.s[k]))
            k++;
        if (k == j)
            continue;
        iz end = k < s.len && s.s[k] == ';' ? k + 1 : k;
        str ref = str_cut(s, j, end);
        u32 cp = 0;
        for (iz t = 0; t < countof(named); t++)
            if (str_eq(ref, str_cstr(named[t].name)))
                cp = named[t].cp;
        if (!cp)
            tmpl_fail(rt, ERR_UNSUPPORTED, "striptags: the HTML entity '&%s'", tmpl_cstr(rt, ref));
        sb_put(&out, s.s + run, i - run);
        sb_cp(&out, cp);
        run = end;
        i = end - 1;
    }
    sb_put(&out, s.s + run, s.len - run);
    return sb_view(&out);
}

/* Removes every `open.*?close` (DOTALL) from s. */
static str strip_spans(tmpl_rt *rt, str s, str open, str close)
{
    sb out = sb_new(rt, s.len);
    iz i = 0;
    while (i < s.len) {
        const u8 *p = NULL;
        for (iz k = i; k + open.len <= s.len; k++)
            if (!memcmp(s.s + k, open.s, (size_t)open.len)) {
                p = s.s + k;
                break;
            }
        if (!p)
            break;
        iz at = p - s.s, e = -1;
        for (iz k = at + open.len; k + close.len <= s.len; k++)
            if (!memcmp(s.s + k, close.s, (size_t)close.len)) {
                e = k + close.len;
                break;
            }
        if (e < 0)
            break;
        sb_put(&out, s.s + i, at - i);
        i = e;
    }
    sb_put(&out, s.s + i, s.len - i);
    return sb_view(&out);
}

static tv f_striptags(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_STRIPTAGS, v, a, &b);
    str s = to_s(rt, v);
    s = strip_spans(rt, s, S("<!--"), S("-->"));
    s = strip_spans(rt, s, S("<"), S(">"));
    str *words;
    iz nw = pystr_split(rt->a, s, NULL, -1, &words);
    sb out = sb_new(rt, s.len);
    for (iz i = 0; i < nw; i++) {
        if (i)
            sb_byte(&out, ' ');
        sb_str(&out, words[i]);
    }
    return mkstr(rt, html_unescape(rt, sb_view(&out)), false);
}


/* Jinja's title: split at runs of [-\s({\[<]+, then each piece's first
 * character upper-cased and the rest lower-cased. */
static bool title_sep(u32 c)
{
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || pystr_isspace(c);
}

static tv f_title(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_TITLE, v, a, &b);
    str s = tv_s(soft_str(rt, v));
    sb out = sb_new(rt, s.len + 8);
    for (iz i = 0; i < s.len;) {
        iz k = i;
        u32 c = utf8_next(s.s, &k);
        bool sep = title_sep(c);
        iz j = k;
        while (j < s.len) {
            iz t = j;
            if (title_sep(utf8_next(s.s, &t)) != sep)
                break;
            j = t;
        }
        /* item[0].upper() + item[1:].lower() */
        sb_str(&out, pystr_upper(rt->a, str_cut(s, i, k)));
        sb_str(&out, pystr_lower(rt->a, str_cut(s, k, j)));
        i = j;
    }
    return sb_tv(&out, false);
}


static tv f_truncate(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_TRUNCATE, v, a, &b);
    tv s = b.v[1];
    tv length = arg_or(&b, 2, tv_int(255));
    bool killwords = tv_truthy(arg_or(&b, 3, tv_bool(false)));
    tv end = arg_or(&b, 4, mkstr(rt, S("..."), false));
    tv leeway = arg_or(&b, 5, tv_none());
    if (is_none(leeway))
        leeway = tv_int(5);   /* env.policies["truncate.leeway"] */
    iz endlen = tv_len(rt, end);
    if (!tv_compare(rt, TMPL_OP_GE, length, tv_int(endlen)))
        tmpl_raise(rt, "AssertionError", "expected length >= %lld, got %s", (long long)endlen,
                   tmpl_cstr(rt, to_s(rt, length)));
    if (!tv_compare(rt, TMPL_OP_GE, leeway, tv_int(0)))
        tmpl_raise(rt, "AssertionError", "expected leeway >= 0, got %s", tmpl_cstr(rt, to_s(rt, leeway)));
    iz slen = tv_len(rt, s);
    if (!tv_is_number(length) || !tv_is_number(leeway) || length.kind == TV_BIGINT ||
        leeway.kind == TV_BIGINT)
        tmpl_fail(rt, ERR_UNSUPPORTED, "truncate with a %s length and a %s leeway", pytype(length),
                  pytype(leeway));
    double limit = tv_num_to_double(rt, length) + tv_num_to_double(rt, leeway);
    if ((double)slen <= limit)
        return s;
    if (length.kind == TV_FLOAT)
        tmpl_raise(rt, "TypeError", "slice indices must be integers or None or have an __index__ method");
    if (s.kind != TV_STR || end.kind != TV_STR)
        tmpl_fail(rt, ERR_UNSUPPORTED, "truncate of a %s", pytype(s));
    iz keep = (iz)int_of(length) - endlen;   /* >= 0 by the assertion */
    str head = str_cut(tv_s(s), 0, pystr_offset(tv_s(s), MIN(keep, slen)));
    if (!killwords) {
        /* .rsplit(" ", 1)[0] */
        iz sp = -1;
        for (iz i = head.len - 1; i >= 0; i--)
            if (head.s[i] == ' ') {
                sp = i;
                break;
            }
        if (sp >= 0)
            head = str_cut(head, 0, sp);
    }
    sb out = sb_new(rt, head.len + tv_s(end).len + 8);
    sb_str(&out, head);
    if (is_safe(s) && !is_safe(end))
        sb_escape(&out, tv_s(end));   /* Markup + str escapes the str */
    else
        sb_str(&out, tv_s(end));
    return sb_tv(&out, is_safe(s));
}


/* urllib.parse.quote of str(v) in UTF-8; for_qs: "/" quoted too and
 * spaces as "+" (Jinja's url_quote). */
static void url_quote(tmpl_rt *rt, sb *out, tv v, bool for_qs)
{
    str s = to_s(rt, v);
    for (iz i = 0; i < s.len; i++) {
        u8 c = s.s[i];
        bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-' || c == '~' || (c == '/' && !for_qs);
        if (safe)
            sb_byte(out, c);
        else if (c == ' ' && for_qs)
            sb_byte(out, '+');
        else
            sb_printf(out, "%%%02X", c);
    }
}

static tv f_urlencode(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_URLENCODE, v, a, &b);
    sb out = sb_new(rt, 64);
    switch (v.kind) {
    case TV_STR: case TV_NONE: case TV_BOOL: case TV_INT: case TV_BIGINT: case TV_FLOAT: case TV_NS:
        url_quote(rt, &out, v, false);
        return sb_tv(&out, false);
    case TV_DICT: {
        const tv_dict *d = v.u.dict;
        for (iz i = 0; i < tv_dict_n(d); i++) {
            if (i)
                sb_byte(&out, '&');
            url_quote(rt, &out, tv_dict_e(d)[i].key, true);
            sb_byte(&out, '=');
            url_quote(rt, &out, tv_dict_e(d)[i].val, true);
        }
        return sb_tv(&out, false);
    }
    case TV_LIST: case TV_TUPLE: case TV_UNDEF: {
        iz n;
        const tv *items = tv_iterate(rt, v, &n);
        for (iz i = 0; i < n; i++) {
            /* for k, v in items: unpacking */
            tv it = items[i];
            if (it.kind == TV_UNDEF)   /* iterates as an empty sequence */
                tmpl_raise(rt, "ValueError", "not enough values to unpack (expected 2, got 0)");
            if (it.kind != TV_LIST && it.kind != TV_TUPLE && it.kind != TV_STR && it.kind != TV_DICT)
                tmpl_raise(rt, "TypeError", "cannot unpack non-iterable %s object", pytype(it));
            iz m;
            const tv *kv = tv_iterate(rt, it, &m);
            if (m > 2)
                tmpl_raise(rt, "ValueError", "too many values to unpack (expected 2)");
            if (m < 2)
                tmpl_raise(rt, "ValueError", "not enough values to unpack (expected 2, got %lld)", (long long)m);
            if (i)
                sb_byte(&out, '&');
            url_quote(rt, &out, kv[0], true);
            sb_byte(&out, '=');
            url_quote(rt, &out, kv[1], true);
        }
        return sb_tv(&out, false);
    }
    default:
        tmpl_fail(rt, ERR_UNSUPPORTED, "urlencode of a %s", pytype(v));
    }
}

static tv f_urlize(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_URLIZE, v, a, &b);
    tmpl_fail(rt, ERR_UNSUPPORTED, "the urlize filter");
}

static tv f_wordcount(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_WORDCOUNT, v, a, &b);
    str s = to_s(rt, v);
    i64 words = 0;
    bool in = false;
    for (iz i = 0; i < s.len;) {
        u32 c = utf8_next(s.s, &i);
        bool w = pystr_isword(c);
        words += w && !in;
        in = w;
    }
    return tv_int(words);
}

/* textwrap's whitespace: ASCII only. */

static bool tw_space(u8 c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Character classes of textwrap's word-splitting regex (re, str pattern):
 * \w, a letter [^\d\W], and word_punct [\w!"'&.,?]. */
static bool tw_word(u32 c) { return pystr_isword(c); }
static bool tw_letter(u32 c) { return pystr_isword(c) && !pystr_isdecimal(c); }
static bool tw_punct(u32 c)
{
    return pystr_isword(c) || (c != 0 && c < 0x80 && strchr("!\"'&.,?", (int)c));
}

/* Splits text into textwrap's chunks (TextWrapper._split, empty pieces
 * dropped): with break_on_hyphens, wordsep_re matched by hand -
 *   [ws]+
 *   | (?<=wp) -{2,} (?=\w)                                  em-dash
 *   | [^ws]+? ( -(?:(?<=L{2}-)|(?<=L-L-)) (?=L-?L)           hyphenated word
 *             | (?=[ws]|\Z)                                  end of word
 *             | (?<=wp) (?=-{2,}\w) )                        before an em-dash
 * (L a letter, wp word_punct, ws textwrap's ASCII whitespace); without it,
 * wordsep_simple_re: runs of whitespace and of the rest. */
static iz tw_chunks(tmpl_rt *rt, str text, bool hyphens, str **out)
{
    iz n = pystr_len(text);
    u32 *c = NEW_NZ(rt->a, u32, n + 4);
    iz *off = NEW_NZ(rt->a, iz, n + 1);
    for (iz i = 0, k = 0; i < text.len; k++) {
        off[k] = i;
        c[k] = utf8_next(text.s, &i);
    }
    off[n] = text.len;
    c[n] = c[n + 1] = c[n + 2] = c[n + 3] = 0;   /* sentinels: no class matches 0 */
    /* dash_end[k]: the end of the run of '-' starting at k (k itself if none),
     * so that each em-dash check is O(1) */
    iz *dash_end = NEW_NZ(rt->a, iz, n + 1);
    dash_end[n] = n;
    for (iz k = n - 1; k >= 0; k--)
        dash_end[k] = c[k] == '-' ? dash_end[k + 1] : k;
#define WS(k) ((k) < n && c[k] < 0x80 && tw_space((u8)c[k]))
    str *ch = NEW_NZ(rt->a, str, n + 1);
    iz nch = 0;
    for (iz p = 0; p < n;) {
        iz q;
        if (WS(p)) {
            q = p;
            while (WS(q))
                q++;
        } else if (!hyphens) {
            q = p;
            while (q < n && !WS(q))
                q++;
        } else {
            q = -1;
            /* em-dash between words */
            if (p > 0 && tw_punct(c[p - 1]) && c[p] == '-' && c[p + 1] == '-') {
                iz d = dash_end[p];
                if (d < n && tw_word(c[d]))
                    q = d;
            }
            for (iz e = p + 1; q < 0 && e <= n; e++) {
                /* the lazy part is [p, e); e may pass no whitespace */
                if (WS(e - 1))
                    break;
                if (e < n && c[e] == '-') {
                    bool lb = (e >= 2 && tw_letter(c[e - 2]) && tw_letter(c[e - 1])) ||
                              (e >= 3 && tw_letter(c[e - 3]) && c[e - 2] == '-' && tw_letter(c[e - 1]));
                    bool la = tw_letter(c[e + 1]) &&
                              (tw_letter(c[e + 2]) || (c[e + 2] == '-' && tw_letter(c[e + 3])));
                    if (lb && la) {
                        q = e + 1;
                        break;
                    }
                }
                if (e == n || WS(e)) {
                    q = e;
                    break;
                }
                if (tw_punct(c[e - 1]) && c[e] == '-' && c[e + 1] == '-') {
                    iz d = dash_end[e];
                    if (d < n && tw_word(c[d])) {
                        q = e;
                        break;
                    }
                }
            }
        }
        ch[nch++] = str_cut(text, off[p], off[q]);
        p = q;
    }
#undef WS
    *out = ch;
    return nch;
}

/* textwrap.TextWrapper(width, expand_tabs=False, replace_whitespace=False,
 * break_long_words, break_on_hyphens).wrap(text), lines appended to *lines. */
static void tw_wrap(tmpl_rt *rt, str text, iz width, bool break_long, bool break_hyphens,
                    str **lines, iz *nlines, iz *cap)
{
    str *inorder;
    iz nch = tw_chunks(rt, text, break_hyphens, &inorder);
    /* textwrap keeps the chunks reversed, as a stack */
    str *ch = NEW_NZ(rt->a, str, nch + 1);
    for (iz i = 0; i < nch; i++)
        ch[i] = inorder[nch - 1 - i];
    iz top = nch;   /* ch[0..top) is the stack, ch[top-1] the next chunk */
    iz nl0 = *nlines;
    str *cur = NEW(rt->a, str, nch + 1);   /* the line being built */
    while (top > 0) {
        if (*nlines > nl0 && pystr_strip(ch[top - 1], NULL, PYSTR_BOTH).len == 0)
            top--;
        iz ncur = 0, cur_len = 0;
        while (top > 0) {
            iz l = pystr_len(ch[top - 1]);
            if (cur_len + l <= width) {
                cur[ncur++] = ch[--top];
                cur_len += l;
            } else {
                break;
            }
        }
        if (top > 0 && pystr_len(ch[top - 1]) > width) {
            /* _handle_long_word */
            iz space_left = width < 1 ? 1 : width - cur_len;
            if (break_long) {
                str c = ch[top - 1];
                iz end = space_left;
                if (break_hyphens && pystr_len(c) > space_left) {
                    iz hy = pystr_rfind(c, S("-"), 0, space_left);
                    if (hy > 0) {
                        bool other = false;
                        str headp = str_cut(c, 0, pystr_offset(c, hy));
                        for (iz t = 0; t < headp.len; t++)
                            other |= headp.s[t] != '-';
                        if (other)
                            end = hy + 1;
                    }
                }
                iz off = pystr_offset(c, end);
                cur[ncur++] = str_cut(c, 0, off);
                ch[top - 1] = str_cut(c, off, c.len);
            } else if (ncur == 0) {
                cur[ncur++] = ch[--top];
            }
        }
        if (ncur && pystr_strip(cur[ncur - 1], NULL, PYSTR_BOTH).len == 0)
            ncur--;
        if (ncur) {
            sb line = sb_new(rt, 64);
            for (iz t = 0; t < ncur; t++)
                sb_str(&line, cur[t]);
            if (*nlines == *cap)
                *lines = arena_grow(rt->a, *lines, (iz)sizeof(str), (iz)_Alignof(str), *nlines, cap,
                                    *nlines + 1);
            (*lines)[(*nlines)++] = sb_view(&line);
        }
    }
}

static tv f_wordwrap(tmpl_rt *rt, tv v, const tv_args *a)
{
    tmpl_bound b;
    tmpl_bind(rt, &SG_WORDWRAP, v, a, &b);
    tv s = b.v[1];
    tv width = arg_or(&b, 2, tv_int(79));
    bool break_long = tv_truthy(arg_or(&b, 3, tv_bool(true)));
    tv wrapstring = arg_or(&b, 4, tv_none());
    bool break_hyphens = tv_truthy(arg_or(&b, 5, tv_bool(true)));
    if (is_none(wrapstring))
        wrapstring = mkstr(rt, S("\n"), false);   /* environment.newline_sequence */
    /* wrapstring.join([... for line in s.splitlines()]): the method is
     * looked up before its argument is made */
    if (wrapstring.kind == TV_UNDEF)
        tv_undef_raise(rt, wrapstring);
    if (wrapstring.kind != TV_STR)
        tmpl_raise(rt, "AttributeError", "'%s' object has no attribute 'join'", pytype(wrapstring));
    if (s.kind == TV_UNDEF)
        tv_undef_raise(rt, s);
    if (s.kind != TV_STR)
        tmpl_raise(rt, "AttributeError", "'%s' object has no attribute 'splitlines'", pytype(s));
    if (width.kind != TV_INT && width.kind != TV_BOOL)
        tmpl_fail(rt, ERR_UNSUPPORTED, "wordwrap with a %s width", pytype(width));
    i64 w = int_of(width);
    str *paras;
    iz np = pystr_splitlines(rt->a, tv_s(s), false, &paras);
    sb out = sb_new(rt, tv_s(s).len + 16);
    for (iz p = 0; p < np; p++) {
        if (p)
            sb_str(&out, tv_s(wrapstring));
        if (w <= 0)
            tmpl_raise(rt, "ValueError", "invalid width %lld (must be > 0)", (long long)w);
        str *lines = NULL;
        iz nl = 0, cap = 0;
        tw_wrap(rt, paras[p], (iz)w, break_long, break_hyphens, &lines, &nl, &cap);
        for (iz i = 0; i < nl; i++) {
            if (i)
                sb_str(&out, tv_s(wrapstring));
            sb_str(&out, lines[i]);
        }
    }
    return sb_tv(&out, false);
}

tv tmpl_filter_text(tmpl_rt *rt, int id, tv v, const tv_args *a)
{
    switch ((tmpl_filter_id)id) {
    case TMPL_FILTER_CENTER:         return f_center(rt, v, a);
    case TMPL_FILTER_FILESIZEFORMAT: return f_filesizeformat(rt, v, a);
    case TMPL_FILTER_INDENT:         return f_indent(rt, v, a);
    case TMPL_FILTER_PPRINT:         return f_pprint(rt, v, a);
    case TMPL_FILTER_STRIPTAGS:      return f_striptags(rt, v, a);
    case TMPL_FILTER_TITLE:          return f_title(rt, v, a);
    case TMPL_FILTER_TRUNCATE:       return f_truncate(rt, v, a);
    case TMPL_FILTER_URLENCODE:      return f_urlencode(rt, v, a);
    case TMPL_FILTER_URLIZE:         return f_urlize(rt, v, a);
    case TMPL_FILTER_WORDCOUNT:      return f_wordcount(rt, v, a);
    case TMPL_FILTER_WORDWRAP:       return f_wordwrap(rt, v, a);
    default:                         break;
    }
    tmpl_fail(rt, ERR_UNSUPPORTED, "filter id %d", id);
}
