/* fuzz_split.c - libFuzzer target: the hand-written matchers of regex.c
 * (ASCII, and with the classes of every code point) against the PCRE2
 * translation of the same patterns. The input is taken as is when it is
 * valid UTF-8, else read as code points of the BMP; every match boundary
 * must agree. */
#include <stdio.h>
#include <stdlib.h>
#include "../src/base/utf8.h"
#include "../src/tok/tok_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const patterns[] = {
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
};

static iz run(const tok_regex *re, tok_work *w, str s, iz *out, iz cap)
{
    iz n = 0, pos = 0;
    err e = {0};
    while (pos <= s.len && n + 2 <= cap) {
        iz b, en;
        if (tok_regex_find(re, w, s, pos, &b, &en, &e) <= 0)
            break;
        out[n++] = b;
        out[n++] = en;
        pos = en > b ? en : en + 1;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static arena perm;
    static tok_regex *re[2];
    static tok_work w;
    if (!re[0]) {
        arena_init(&perm, 0);
        arena_init(&w.scratch, 0);
        for (int k = 0; k < 2; k++) {
            err e = {0};
            re[k] = tok_regex_compile(&perm, str_cstr(patterns[k]), false, &e);
            if (!re[k])
                __builtin_trap();
        }
    }
    if (size > 2048)
        size = 2048;
    u8 text[2048 * 2];
    iz len = (iz)size;
    memcpy(text, data, size);
    if (utf8_invalid_at(str_from(text, len)) >= 0) {
        /* not UTF-8: read as two-byte code points of the BMP (a first byte
         * below 0x20 makes it ASCII: the two classes meet often) */
        len = 0;
        for (size_t i = 0; i + 1 < size; i += 2) {
            u32 c = (u32)data[i] << 8 | data[i + 1];
            if (data[i] < 0x20 || (c >= 0xd800 && c <= 0xdfff))
                c = data[i + 1] & 0x7f;
            len += utf8_encode(c, text + len);
        }
    }
    str s = str_from(text, len);
    static iz a[4200], b[4200];
    for (int k = 0; k < 2; k++) {
        w.re_no_fast = false;
        iz na = run(re[k], &w, s, a, 4200);
        w.re_no_fast = true;
        iz nb = run(re[k], &w, s, b, 4200);
        if (na != nb || memcmp(a, b, (size_t)na * sizeof(iz)) != 0)
            __builtin_trap();
    }
    return 0;
}
