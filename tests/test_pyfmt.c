/* test_pyfmt.c - Python-identical numbers and JSON text (src/json/pyfmt.h):
 * every line of the Python-made files in tests/data/pyfmt/ (floats.tsv,
 * dumps.jsonl), the msgspec cases derived from its source, properties on
 * random doubles (round trip; no shorter decimal reads back; the nearest of
 * the shortest, checked against an exhaustive printf/strtod search), ints,
 * string escapes and the limits of the dumps walker. */
#include <math.h>
#include "test.h"
#include "../src/base/os.h"
#include "../src/json/pyfmt.h"

#define DATA "tests/data/pyfmt/"

/* ---- helpers ------------------------------------------------------------ */

static u64 bits_of(double x)
{
    u64 b;
    memcpy(&b, &x, sizeof(b));
    return b;
}

static double of_bits(u64 b)
{
    double x;
    memcpy(&x, &b, sizeof(x));
    return x;
}

static u64 rng_state = 0x9e3779b97f4a7c15u;
static u64 rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

static str fmt(char *tmp, double x, pyfmt_style st)
{
    return str_from(tmp, pyfmt_float_to(tmp, x, st));
}

/* Next line of `*rest` (without the newline), or false at the end. */
static bool next_line(str *rest, str *line)
{
    if (rest->len == 0)
        return false;
    const u8 *nl = memchr(rest->s, '\n', (size_t)rest->len);
    iz n = nl ? nl - rest->s : rest->len;
    *line = str_from(rest->s, n);
    *rest = str_cut(*rest, MIN(n + 1, rest->len), rest->len);
    return true;
}

/* Splits at the first tab. */
static str cut_field(str *line)
{
    const u8 *t = memchr(line->s, '\t', (size_t)line->len);
    iz n = t ? t - line->s : line->len;
    str f = str_from(line->s, n);
    *line = str_cut(*line, MIN(n + 1, line->len), line->len);
    return f;
}

static int reported;
static void report(const char *what, str got, str want)
{
    if (reported++ < 12)
        printf("#   %s: got \"%.*s\" want \"%.*s\"\n", what, (int)got.len, (const char *)got.s,
               (int)want.len, (const char *)want.s);
}

/* ---- an independent reference for the shortest digits -------------------
 * glibc's printf rounds correctly at any precision and strtod reads
 * correctly, so "the decimal with p digits nearest to x" and "reads back as
 * x" are exact here; the search below is slow but obviously right. */

static double read_dec(u64 d, int e)
{
    char b[48];
    snprintf(b, sizeof(b), "%" PRIu64 "e%d", d, e);
    return strtod(b, NULL);
}

/* x (> 0) correctly rounded to p significant digits: D * 10^E. */
static void rounded(double x, int p, u64 *d, int *e)
{
    char b[64];
    snprintf(b, sizeof(b), "%.*e", p - 1, x);
    u64 v = 0;
    const char *s = b;
    for (; *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            v = v * 10 + (u64)(*s - '0');
    *d = v;
    *e = atoi(s + 1) - (p - 1);
}

static void strip(u64 *d, int *e)
{
    while (*d && *d % 10 == 0) {
        *d /= 10;
        ++*e;
    }
}

static u64 pow10u(int n)
{
    u64 p = 1;
    while (n-- > 0)
        p *= 10;
    return p;
}

/* The n-digit decimals just below and above x: {lo, D, hi} around the
 * correctly rounded D. */
static bool reads_back(double x, u64 d, int e) { return d && read_dec(d, e) == x; }

/* Whether d is Python's answer for x > 0: it reads back as x, no decimal
 * with fewer digits does (if one did, one of the two (n-1)-digit decimals
 * around x would), and it is the nearest n-digit decimal that does. */
static bool reference_ok(double x, pyfmt_dec d)
{
    if (!reads_back(x, d.digits, d.exp))
        return false;
    int n = d.ndigits;
    if (n > 1) {
        u64 r;
        int e;
        rounded(x, n - 1, &r, &e);
        u64 lo = r - 1;
        int elo = e;
        if (r == pow10u(n - 2)) {
            lo = pow10u(n - 1) - 1;
            elo = e - 1;
        }
        if (reads_back(x, r, e) || reads_back(x, r + 1, e) || reads_back(x, lo, elo))
            return false;
    }
    u64 r;
    int e;
    rounded(x, n, &r, &e);
    u64 cand[3] = {r, r + 1, r - 1};
    int ce[3] = {e, e, e};
    if (r == pow10u(n - 1)) {
        cand[2] = pow10u(n) - 1;
        ce[2] = e - 1;
    }
    for (int i = 0; i < 3; i++) {
        strip(&cand[i], &ce[i]);
        if (cand[i] == d.digits && ce[i] == d.exp)
            return i == 0 || !reads_back(x, r, e);   /* the nearest unless it fails */
    }
    return false;
}

/* ---- floats ------------------------------------------------------------- */

static void test_float_examples(void)
{
    char t[PYFMT_FLOAT_MAX];
    static const struct { double x; const char *repr, *json, *msgspec; } cases[] = {
        {0.0, "0.0", "0.0", "0.0"},
        {-0.0, "-0.0", "-0.0", "-0.0"},
        {1.5, "1.5", "1.5", "1.5"},
        {100.0, "100.0", "100.0", "100.0"},
        {0.1, "0.1", "0.1", "0.1"},
        {1e-4, "0.0001", "0.0001", "0.0001"},
        {1e-5, "1e-05", "1e-05", "0.00001"},
        {1e-6, "1e-06", "1e-06", "1e-6"},
        {2.5e-8, "2.5e-08", "2.5e-08", "2.5e-8"},
        {1e15, "1000000000000000.0", "1000000000000000.0", "1000000000000000.0"},
        {1e16, "1e+16", "1e+16", "1e16"},
        {9999999999999998.0, "9999999999999998.0", "9999999999999998.0", "9999999999999998.0"},
        {1.5e300, "1.5e+300", "1.5e+300", "1.5e300"},
        {5e-324, "5e-324", "5e-324", "5e-324"},
        {-1.7976931348623157e308, "-1.7976931348623157e+308", "-1.7976931348623157e+308",
         "-1.7976931348623157e308"},
        {0.1 + 0.2, "0.30000000000000004", "0.30000000000000004", "0.30000000000000004"},
        {123.456, "123.456", "123.456", "123.456"},
        {1e22, "1e+22", "1e+22", "1e22"},
        {HUGE_VAL, "inf", "Infinity", "null"},
        {-HUGE_VAL, "-inf", "-Infinity", "null"},
        {NAN, "nan", "NaN", "null"},
        {-NAN, "nan", "NaN", "null"},
    };
    for (int i = 0; i < countof(cases); i++) {
        EXPECT_STR(fmt(t, cases[i].x, PYFMT_REPR), str_cstr(cases[i].repr));
        EXPECT_STR(fmt(t, cases[i].x, PYFMT_JSON), str_cstr(cases[i].json));
        EXPECT_STR(fmt(t, cases[i].x, PYFMT_MSGSPEC), str_cstr(cases[i].msgspec));
    }
    buf b = {0};
    pyfmt_float_repr(&b, 1e-5);
    buf_byte(&b, ' ');
    pyfmt_float_json(&b, -HUGE_VAL);
    buf_byte(&b, ' ');
    pyfmt_float_msgspec(&b, 1e-5);
    EXPECT_STR(buf_view(&b), S("1e-05 -Infinity 0.00001"));
    buf_free(&b);

    pyfmt_dec d = {0};
    EXPECT(!pyfmt_shortest(0.0, &d) && !pyfmt_shortest(-HUGE_VAL, &d) && !pyfmt_shortest(NAN, &d));
    EXPECT(pyfmt_shortest(-1234.5, &d));
    EXPECT(d.digits == 12345 && d.exp == -1 && d.ndigits == 5);
}

/* tests/data/pyfmt/floats.tsv: bits, repr(x), json.dumps(x) or '='. */
static void test_floats_tsv(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str rest = os_read_file(&a, DATA "floats.tsv", &e);
    REQUIRE(rest.s);
    iz lines = 0, bad = 0;
    char t[PYFMT_FLOAT_MAX];
    str line;
    reported = 0;
    while (next_line(&rest, &line)) {
        str hex = cut_field(&line), repr = cut_field(&line), js = line;
        char h[17] = {0};
        memcpy(h, hex.s, (size_t)MIN(hex.len, 16));
        double x = of_bits(strtoull(h, NULL, 16));
        str got = fmt(t, x, PYFMT_REPR);
        if (!str_eq(got, repr)) {
            bad++;
            report(h, got, repr);
        }
        if (str_eq(js, S("=")))
            js = repr;
        got = fmt(t, x, PYFMT_JSON);
        if (!str_eq(got, js)) {
            bad++;
            report(h, got, js);
        }
        lines++;
    }
    printf("# floats.tsv: %td doubles, %td mismatches\n", lines, bad);
    EXPECT(lines >= 200000);
    EXPECT_EQ(bad, 0);
    arena_fini(&a);
}

/* tests/data/pyfmt/msgspec_floats.tsv: literal, msgspec.json.encode(x). */
static void test_msgspec_floats(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str rest = os_read_file(&a, DATA "msgspec_floats.tsv", &e);
    REQUIRE(rest.s);
    iz lines = 0, bad = 0;
    char t[PYFMT_FLOAT_MAX];
    str line;
    reported = 0;
    while (next_line(&rest, &line)) {
        if (line.len == 0 || line.s[0] == '#')
            continue;
        str lit = cut_field(&line), want = line;
        char l[64] = {0};
        memcpy(l, lit.s, (size_t)MIN(lit.len, 63));
        str got = fmt(t, strtod(l, NULL), PYFMT_MSGSPEC);
        if (!str_eq(got, want)) {
            bad++;
            report(l, got, want);
        }
        lines++;
    }
    printf("# msgspec_floats.tsv: %td values\n", lines);
    EXPECT(lines >= 50);
    EXPECT_EQ(bad, 0);
    arena_fini(&a);
}

/* Reads back bit for bit, and layout rules that hold for every double. */
static void check_one(double x, iz *bad)
{
    char t[PYFMT_FLOAT_MAX + 1];
    int n = pyfmt_float_to(t, x, PYFMT_REPR);
    t[n] = 0;
    if (n > 24 || bits_of(strtod(t, NULL)) != bits_of(x)) {
        if ((*bad)++ < 10)
            printf("#   %a: repr %s does not read back\n", x, t);
    }
    n = pyfmt_float_to(t, x, PYFMT_MSGSPEC);
    t[n] = 0;
    if (n > 24 || bits_of(strtod(t, NULL)) != bits_of(x)) {
        if ((*bad)++ < 10)
            printf("#   %a: msgspec %s does not read back\n", x, t);
    }
}

static void test_roundtrip_random(void)
{
    iz bad = 0, count = 0;
    for (int i = 0; i < 1000000; i++) {
        double x = of_bits(rng());
        if (isfinite(x)) {
            check_one(x, &bad);
            count++;
        }
    }
    /* Doubles of every exponent with random, all-zero and all-one mantissas. */
    for (u64 be = 0; be < 2047; be++)
        for (int k = 0; k < 40; k++) {
            u64 m = k == 0 ? 0 : k == 1 ? ((u64)1 << 52) - 1 : k < 8 ? (u64)k : rng() >> 12;
            check_one(of_bits(be << 52 | m), &bad);
            count++;
        }
    printf("# %td doubles read back\n", count);
    EXPECT_EQ(bad, 0);
}

static void check_ref(double x, iz *bad)
{
    pyfmt_dec d;
    if (!pyfmt_shortest(x, &d))
        return;
    if (!reference_ok(fabs(x), d) && (*bad)++ < 10)
        printf("#   %a: digits %" PRIu64 " e%d not the shortest nearest\n", x, d.digits, d.exp);
}

static void test_shortest_reference(void)
{
    iz bad = 0, count = 0;
    for (int i = 0; i < 150000; i++, count++)
        check_ref(of_bits(rng() & ~((u64)1 << 63)), &bad);
    for (int i = 0; i < 50000; i++, count++) {                   /* short decimals */
        char b[40];
        snprintf(b, sizeof(b), "%" PRIu64 "e%d", rng() % pow10u(1 + (int)(rng() % 8)),
                 (int)(rng() % 640) - 330);
        check_ref(strtod(b, NULL), &bad);
    }
    for (u64 c = 1; c < 20000; c++, count++)                      /* subnormals */
        check_ref(of_bits(c), &bad);
    for (u64 be = 1; be < 2047; be++)                             /* asymmetric intervals */
        for (u64 m = 0; m < 3; m++, count++)
            check_ref(of_bits(be << 52 | m), &bad);
    printf("# %td doubles against the printf/strtod search\n", count);
    EXPECT_EQ(bad, 0);
}

/* ---- ints --------------------------------------------------------------- */

static void test_ints(void)
{
    buf b = {0};
    pyfmt_int(&b, 0);
    buf_byte(&b, ' ');
    pyfmt_int(&b, INT64_MIN);
    buf_byte(&b, ' ');
    pyfmt_int(&b, INT64_MAX);
    EXPECT_STR(buf_view(&b), S("0 -9223372036854775808 9223372036854775807"));
    static const struct { const char *in, *out; } ok[] = {
        {"0", "0"}, {"-0", "0"}, {"+0", "0"}, {"000", "0"}, {"-000", "0"}, {"7", "7"},
        {"+7", "7"}, {"-007", "-7"}, {"00100", "100"},
        {"123456789012345678901234567890", "123456789012345678901234567890"},
        {"-0000123456789012345678901234567890", "-123456789012345678901234567890"},
    };
    for (int i = 0; i < countof(ok); i++) {
        b.len = 0;
        EXPECT(pyfmt_int_text(&b, str_cstr(ok[i].in)));
        EXPECT_STR(buf_view(&b), str_cstr(ok[i].out));
    }
    static const char *const no[] = {"", "-", "+", "1.0", "1e5", " 1", "1 ", "--1", "0x10", "1_000"};
    for (int i = 0; i < countof(no); i++) {
        b.len = 0;
        EXPECT(!pyfmt_int_text(&b, str_cstr(no[i])));
        EXPECT_EQ(b.len, 0);
    }
    /* Python's int() takes 4300 digits, leading zeros included, and no more. */
    char big[PYFMT_INT_MAX_DIGITS + 2];
    memset(big, '9', sizeof(big));
    big[0] = '-';
    b.len = 0;
    EXPECT(pyfmt_int_text(&b, str_from(big, PYFMT_INT_MAX_DIGITS + 1)));
    EXPECT_EQ(b.len, PYFMT_INT_MAX_DIGITS + 1);
    b.len = 0;
    EXPECT(!pyfmt_int_text(&b, str_from(big, PYFMT_INT_MAX_DIGITS + 2)));
    big[1] = '0';
    EXPECT(!pyfmt_int_text(&b, str_from(big, PYFMT_INT_MAX_DIGITS + 2)));
    buf_free(&b);
}

/* ---- strings ------------------------------------------------------------ */

static str jstr(buf *b, const char *s, iz n, bool ascii)
{
    b->len = 0;
    pyfmt_json_str(b, str_from(s, n), ascii);
    return buf_view(b);
}

static void test_json_str(void)
{
    buf b = {0};
#define J(lit, ascii) jstr(&b, lit, lengthof(lit), ascii)
    EXPECT_STR(J("", true), S("\"\""));
    EXPECT_STR(J("a/b", true), S("\"a/b\""));
    EXPECT_STR(J("\"\\\n\r\t\b\f", false), S("\"\\\"\\\\\\n\\r\\t\\b\\f\""));
    EXPECT_STR(J("\x00\x01\x1f\x7f", false), S("\"\\u0000\\u0001\\u001f\x7f\""));
    EXPECT_STR(J("\x00\x01\x1f\x7f", true), S("\"\\u0000\\u0001\\u001f\\u007f\""));
    EXPECT_STR(J("caf\xc3\xa9 \xe2\x80\xa8", false), S("\"caf\xc3\xa9 \xe2\x80\xa8\""));
    EXPECT_STR(J("caf\xc3\xa9 \xe2\x80\xa8", true), S("\"caf\\u00e9 \\u2028\""));
    EXPECT_STR(J("\xf0\x9f\x98\x80", true), S("\"\\ud83d\\ude00\""));
    EXPECT_STR(J("\xf4\x8f\xbf\xbf\xef\xbf\xbf", true), S("\"\\udbff\\udfff\\uffff\""));
    EXPECT_STR(J("<&'>", true), S("\"<&'>\""));
    /* Invalid UTF-8: raw without ensure_ascii, U+FFFD per bad byte with it,
     * and never a read past the end (a truncated sequence at the end). */
    EXPECT_STR(J("a\xff" "b", false), S("\"a\xff" "b\""));
    EXPECT_STR(J("a\xff" "b", true), S("\"a\\ufffdb\""));
    EXPECT_STR(J("\xed\xa0\x80", true), S("\"\\ufffd\\ufffd\\ufffd\""));
    char *tail = malloc(2);
    memcpy(tail, "\xe2\x80", 2);
    EXPECT_STR(jstr(&b, tail, 2, true), S("\"\\ufffd\\ufffd\""));
    free(tail);
#undef J
    buf_free(&b);
}

/* Long strings are scanned 8 bytes at a time: a byte to escape (or a
 * non-ASCII one) at any position of a 24-byte run must come out the same
 * as alone, with the plain bytes around it untouched. */
static void test_json_str_every_position(void)
{
    static const struct {
        const char *in, *out_raw, *out_ascii;
    } special[] = {
        {"\"", "\\\"", "\\\""},
        {"\\", "\\\\", "\\\\"},
        {"\n", "\\n", "\\n"},
        {"\x01", "\\u0001", "\\u0001"},
        {"\x1f", "\\u001f", "\\u001f"},
        {"\x7f", "\x7f", "\\u007f"},
        {"\xc3\xa9", "\xc3\xa9", "\\u00e9"},
        {"\xff", "\xff", "\\ufffd"},
    };
    buf b = {0}, want = {0};
    for (iz k = 0; k < countof(special); k++)
        for (int pos = 0; pos < 24; pos++)
            for (int ascii = 0; ascii < 2; ascii++) {
                char in[40];
                iz n = 0;
                for (int i = 0; i < pos; i++)
                    in[n++] = (char)('a' + i % 26);
                iz sl = (iz)strlen(special[k].in);
                memcpy(in + n, special[k].in, (size_t)sl);
                n += sl;
                for (int i = pos; i < 24; i++)
                    in[n++] = (char)('A' + i % 26);
                want.len = 0;
                buf_byte(&want, '"');
                buf_put(&want, in, pos);
                buf_cstr(&want, ascii ? special[k].out_ascii : special[k].out_raw);
                buf_put(&want, in + pos + sl, n - pos - sl);
                buf_byte(&want, '"');
                EXPECT_STR(jstr(&b, in, n, ascii), buf_view(&want));
            }
    buf_free(&b);
    buf_free(&want);
}

/* Strings longer than the writer's 64 KiB step: a character that
 * straddles a step's end comes out whole, and invalid bytes one by one. */
static void test_json_str_long(void)
{
    static const struct {
        const char *ch, *out_raw, *out_ascii;
    } ch[] = {
        {"\xc3\xa9", "\xc3\xa9", "\\u00e9"},
        {"\xe2\x80\xa8", "\xe2\x80\xa8", "\\u2028"},
        {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "\\ud83d\\ude00"},
        {"\"", "\\\"", "\\\""},
    };
    enum { STEP = 1 << 16 };
    buf b = {0}, want = {0};
    for (iz k = 0; k < countof(ch); k++)
        for (int back = 0; back <= 4; back++)
            for (int ascii = 0; ascii < 2; ascii++) {
                iz cl = (iz)strlen(ch[k].ch), pre = STEP - back, n = pre + cl + 3;
                char *in = malloc((size_t)n);
                memset(in, 'a', (size_t)pre);
                memcpy(in + pre, ch[k].ch, (size_t)cl);
                memcpy(in + pre + cl, "xyz", 3);
                want.len = 0;
                buf_byte(&want, '"');
                buf_put(&want, in, pre);
                buf_cstr(&want, ascii ? ch[k].out_ascii : ch[k].out_raw);
                buf_cstr(&want, "xyz\"");
                EXPECT_STR(jstr(&b, in, n, ascii), buf_view(&want));
                free(in);
            }
    /* 70,000 continuation bytes: no character boundary in a whole step */
    iz n = 70000;
    char *in = malloc((size_t)n);
    memset(in, 0x80, (size_t)n);
    jstr(&b, in, n, true);
    EXPECT_EQ(b.len, 2 + 6 * n);
    iz bad = 0;
    for (iz i = 0; i < n; i++)
        bad += memcmp(b.data + 1 + 6 * i, "\\ufffd", 6) != 0;
    EXPECT_EQ(bad, 0);
    jstr(&b, in, n, false);
    EXPECT_EQ(b.len, 2 + n);
    free(in);
    buf_free(&b);
    buf_free(&want);
}

/* ---- dumps -------------------------------------------------------------- */

static void opts_from(const json *o, pyfmt_dumps_opts *opt)
{
    memset(opt, 0, sizeof(*opt));
    opt->ensure_ascii = true;   /* Python's default; the zero struct is false */
    const json *v;
    if ((v = json_get(o, S("indent")))) {
        if (v->type == JSON_INT) {
            opt->indent = PYFMT_INDENT_SPACES;
            opt->indent_spaces = (int)v->u.i;
        } else {
            opt->indent = PYFMT_INDENT_STR;
            opt->indent_str = v->u.s;
        }
    }
    if ((v = json_get_type(o, S("separators"), JSON_ARR))) {
        opt->separators = true;
        opt->item_sep = v->u.arr.items[0].u.s;
        opt->key_sep = v->u.arr.items[1].u.s;
    }
    if ((v = json_get_type(o, S("sort_keys"), JSON_BOOL)))
        opt->sort_keys = v->u.b;
    if ((v = json_get_type(o, S("ensure_ascii"), JSON_BOOL)))
        opt->ensure_ascii = v->u.b;
}

static void run_cases(const char *path, bool msgspec, iz min_cases)
{
    arena a, scratch;
    arena_init(&a, 0);
    arena_init(&scratch, 0);
    err e = {0};
    str rest = os_read_file(&a, path, &e);
    REQUIRE(rest.s);
    iz n = 0, bad = 0;
    str line;
    buf b = {0};
    reported = 0;
    while (next_line(&rest, &line)) {
        if (line.len == 0)
            continue;
        json *c = json_parse(&a, line, NULL, &e);
        REQUIRE(c);
        const json *text = json_get_type(c, S("value"), JSON_STR);
        const json *want = json_get_type(c, S("expect"), JSON_STR);
        REQUIRE(text && want);
        json *v = json_parse(&a, text->u.s, NULL, &e);
        REQUIRE(v);
        pyfmt_dumps_opts o;
        const json *oj = json_get_type(c, S("opts"), JSON_OBJ);
        opts_from(oj, &o);
        if (msgspec) {
            o.msgspec = true;
            const json *sk = json_get_type(c, S("sort_keys"), JSON_BOOL);
            o.sort_keys = sk && sk->u.b;
        }
        b.len = 0;
        /* Alternate between a caller's scratch arena and the private one. */
        bool ok = pyfmt_json_dumps(&b, v, &o, n % 2 ? &scratch : NULL, &e);
        if (!ok || !str_eq(buf_view(&b), want->u.s)) {
            bad++;
            char what[120];
            snprintf(what, sizeof(what), "case %td (%.60s)", n + 1, (const char *)text->u.s.s);
            report(what, buf_view(&b), want->u.s);
        }
        n++;
    }
    printf("# %s: %td cases\n", path, n);
    EXPECT(n >= min_cases);
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(arena_bytes(&scratch) <= 64 * 1024, true);
    buf_free(&b);
    arena_fini(&scratch);
    arena_fini(&a);
}

static void test_dumps_jsonl(void) { run_cases(DATA "dumps.jsonl", false, 1000); }
static void test_msgspec_dumps(void) { run_cases(DATA "msgspec_dumps.jsonl", true, 10); }

static json *parse(arena *a, const char *s)
{
    err e = {0};
    json_opts o = {2000};
    return json_parse(a, str_cstr(s), &o, &e);
}

static void test_dumps_small(void)
{
    arena a;
    arena_init(&a, 0);
    buf b = {0};
    err e = {0};
    pyfmt_dumps_opts o = {0};
    json *v = parse(&a, "{\"b\": [1, 2.0, \"\xc3\xa9\"], \"a\": {}}");
    REQUIRE(v);
    EXPECT(pyfmt_json_dumps(&b, v, &o, NULL, &e));
    EXPECT_STR(buf_view(&b), S("{\"b\": [1, 2.0, \"\xc3\xa9\"], \"a\": {}}"));
    b.len = 0;
    EXPECT(pyfmt_json_dumps(&b, v, NULL, NULL, &e));   /* NULL opts = zero struct */
    EXPECT_STR(buf_view(&b), S("{\"b\": [1, 2.0, \"\xc3\xa9\"], \"a\": {}}"));
    o.indent = PYFMT_INDENT_SPACES;
    o.indent_spaces = 2;
    o.sort_keys = true;
    o.ensure_ascii = true;
    b.len = 0;
    EXPECT(pyfmt_json_dumps(&b, v, &o, NULL, &e));
    EXPECT_STR(buf_view(&b), S("{\n  \"a\": {},\n  \"b\": [\n    1,\n    2.0,\n    \"\\u00e9\"\n  ]\n}"));
    /* Many repeated keys: first place, last value, without sort_keys. */
    b.len = 0;
    memset(&o, 0, sizeof(o));
    o.separators = true;
    o.item_sep = S(",");
    o.key_sep = S(":");
    v = parse(&a, "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"a\":10,\"e\":11}");
    REQUIRE(v);
    EXPECT(pyfmt_json_dumps(&b, v, &o, NULL, &e));
    EXPECT_STR(buf_view(&b), S("{\"a\":10,\"b\":2,\"c\":3,\"d\":4,\"e\":11,\"f\":6,\"g\":7,\"h\":8,\"i\":9}"));
    buf_free(&b);
    arena_fini(&a);
}

static void test_dumps_limits(void)
{
    arena a;
    arena_init(&a, 0);
    buf b = {0};
    err e = {0};
    pyfmt_dumps_opts o = {0};
    /* Depth: PYFMT_MAX_DEPTH containers print, one more does not. */
    char *deep = malloc(2 * PYFMT_MAX_DEPTH + 3);
    for (int ok = 1; ok >= 0; ok--) {
        int d = PYFMT_MAX_DEPTH + 1 - ok;
        memset(deep, '[', (size_t)d);
        memset(deep + d, ']', (size_t)d);
        deep[2 * d] = 0;
        json *v = parse(&a, deep);
        REQUIRE(v);
        b.len = 0;
        EXPECT_EQ(pyfmt_json_dumps(&b, v, &o, NULL, &e), ok);
        if (ok)
            EXPECT_STR(buf_view(&b), str_cstr(deep));
        else
            EXPECT_EQ(e.code, ERR_LIMIT);
    }
    free(deep);
    /* Output limit, also inside one enormous indentation. */
    json *v = parse(&a, "[[1, 2], {\"k\": \"some text\"}]");
    REQUIRE(v);
    o.max_out = 10;
    b.len = 0;
    e.code = 0;
    EXPECT(!pyfmt_json_dumps(&b, v, &o, NULL, &e));
    EXPECT_EQ(e.code, ERR_LIMIT);
    o.indent = PYFMT_INDENT_SPACES;
    o.indent_spaces = 1000000000;
    o.max_out = 1 << 20;
    b.len = 0;
    EXPECT(!pyfmt_json_dumps(&b, v, &o, NULL, &e));
    EXPECT(b.len <= (1 << 20) + 64);
    /* An integer Python's int() refuses. */
    char *big = malloc(PYFMT_INT_MAX_DIGITS + 3);
    memset(big, '1', PYFMT_INT_MAX_DIGITS + 1);
    big[PYFMT_INT_MAX_DIGITS + 1] = 0;
    memset(&o, 0, sizeof(o));
    v = parse(&a, big + 1);
    REQUIRE(v && v->big);
    b.len = 0;
    EXPECT(pyfmt_json_dumps(&b, v, &o, NULL, &e));
    EXPECT_EQ(b.len, PYFMT_INT_MAX_DIGITS);
    v = parse(&a, big);
    REQUIRE(v && v->big);
    e.code = 0;
    EXPECT(!pyfmt_json_dumps(&b, v, &o, NULL, &e));
    EXPECT_EQ(e.code, ERR_LIMIT);
    free(big);
    /* A failed buffer is reported as out of memory. */
    v = parse(&a, "[1]");
    b.failed = true;
    e.code = 0;
    EXPECT(!pyfmt_json_dumps(&b, v, &o, NULL, &e));
    EXPECT_EQ(e.code, ERR_NOMEM);
    b.failed = false;
    /* A scratch arena at its limit: out of memory, not a crash. */
    arena tiny;
    arena_init(&tiny, 16);
    v = parse(&a, "{\"b\": 1, \"a\": 2}");
    o.sort_keys = true;
    b.len = 0;
    e.code = 0;
    EXPECT(!pyfmt_json_dumps(&b, v, &o, &tiny, &e));
    EXPECT_EQ(e.code, ERR_NOMEM);
    arena_fini(&tiny);
    buf_free(&b);
    arena_fini(&a);
}

int main(void)
{
    RUN(test_float_examples);
    RUN(test_floats_tsv);
    RUN(test_msgspec_floats);
    RUN(test_roundtrip_random);
    RUN(test_shortest_reference);
    RUN(test_ints);
    RUN(test_json_str);
    RUN(test_json_str_every_position);
    RUN(test_json_str_long);
    RUN(test_dumps_jsonl);
    RUN(test_msgspec_dumps);
    RUN(test_dumps_small);
    RUN(test_dumps_limits);
    return test_done();
}
