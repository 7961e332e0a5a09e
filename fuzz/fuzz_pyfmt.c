/* fuzz_pyfmt.c - libFuzzer target for src/json/pyfmt.c. The first 8 bytes
 * are a double: its repr must read back bit for bit, fit in 24 bytes, be
 * minimal (neither decimal of one digit less next to x reads back, so none
 * shorter does) and be the nearest of its length that reads back; the json
 * and msgspec texts must read back too. The bytes after the 9th, when they
 * parse as JSON, are written by pyfmt_json_dumps with options from the 9th
 * byte; the text must parse again and write out the same (write -> read ->
 * write is a fixed point), unless it holds Infinity or NaN, which are not
 * JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "../src/json/pyfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool reads_back(double x, u64 d, int e)
{
    char b[48];
    snprintf(b, sizeof(b), "%" PRIu64 "e%d", d, e);
    return d && strtod(b, NULL) == x;
}

/* x (> 0) correctly rounded to p significant digits (glibc's printf is
 * exact): D * 10^E with D of p digits. */
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

static u64 pow10u(int n)
{
    u64 p = 1;
    while (n-- > 0)
        p *= 10;
    return p;
}

static void check_float(double x)
{
    char t[PYFMT_FLOAT_MAX + 1];
    static const pyfmt_style styles[] = {PYFMT_REPR, PYFMT_JSON, PYFMT_MSGSPEC};
    pyfmt_dec d;
    bool finite = pyfmt_shortest(x, &d) || x == 0;
    for (int i = 0; i < 3; i++) {
        int n = pyfmt_float_to(t, x, styles[i]);
        if (n <= 0 || n > 24)
            __builtin_trap();
        t[n] = 0;
        double y = strtod(t, NULL);
        if (finite && memcmp(&x, &y, sizeof(x)) != 0)
            __builtin_trap();
    }
    if (!pyfmt_shortest(x, &d))
        return;
    double a = x < 0 ? -x : x;
    if (d.ndigits < 1 || d.ndigits > 17 || d.digits % 10 == 0 || !reads_back(a, d.digits, d.exp))
        __builtin_trap();
    int n = d.ndigits;
    u64 r;
    int e;
    if (n > 1) {
        /* Any shorter decimal that read back would make one of the two
         * (n-1)-digit decimals around x read back. */
        rounded(a, n - 1, &r, &e);
        u64 lo = r - 1;
        int elo = e;
        if (r == pow10u(n - 2)) {
            lo = pow10u(n - 1) - 1;
            elo = e - 1;
        }
        if (reads_back(a, r, e) || reads_back(a, r + 1, e) || reads_back(a, lo, elo))
            __builtin_trap();
    }
    /* The nearest n-digit decimal, when it reads back, is the answer. */
    rounded(a, n, &r, &e);
    if (reads_back(a, r, e)) {
        while (r % 10 == 0) {
            r /= 10;
            e++;
        }
        if (r != d.digits || e != d.exp)
            __builtin_trap();
    }
}

static void check_dumps(const uint8_t *data, size_t size, u8 flags)
{
    arena a;
    arena_init(&a, 64 << 20);
    err e = {0};
    json_opts jo = {64};
    json *v = json_parse(&a, str_from(data, (iz)size), &jo, &e);
    if (v) {
        static const char *const seps[][2] = {{", ", ": "}, {",", ":"}, {" ,\n", "\t: "}, {",", ": "}};
        pyfmt_dumps_opts o = {0};
        o.ensure_ascii = flags & 1;
        o.sort_keys = flags >> 1 & 1;
        o.msgspec = (flags >> 2 & 7) == 7;
        o.indent = (pyfmt_indent)((flags >> 2 & 3) % 3);
        o.indent_spaces = (flags >> 4 & 3) - 1;
        o.indent_str = S("\t ");
        o.separators = flags >> 6 != 0;
        o.item_sep = str_cstr(seps[flags >> 6][0]);
        o.key_sep = str_cstr(seps[flags >> 6][1]);
        o.max_out = 16 << 20;
        buf b1 = {0}, b2 = {0};
        bool ok = pyfmt_json_dumps(&b1, v, &o, flags & 8 ? &a : NULL, &e);
        if (!ok && e.code != ERR_LIMIT)
            __builtin_trap();
        json *w = ok ? json_parse(&a, buf_view(&b1), &jo, &e) : NULL;
        if (ok && !w) {
            str t = buf_view(&b1);
            bool nonfinite = false;
            for (iz i = 0; i + 3 <= t.len && !nonfinite; i++)
                nonfinite = !memcmp(t.s + i, "NaN", 3) || (i + 8 <= t.len && !memcmp(t.s + i, "Infinity", 8));
            if (!nonfinite)   /* (msgspec writes null for those) */
                __builtin_trap();
        }
        if (w) {
            if (!pyfmt_json_dumps(&b2, w, &o, NULL, &e) || !str_eq(buf_view(&b1), buf_view(&b2)))
                __builtin_trap();
        }
        buf_free(&b1);
        buf_free(&b2);
    }
    arena_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    double x;
    memcpy(&x, data, sizeof(x));
    check_float(x);
    if (size > 9)
        check_dumps(data + 9, size - 9, data[8]);
    return 0;
}
