/* test_regex_fast.c - the hand-written matchers of regex.c (Llama 3 and
 * Qwen split patterns, on ASCII and with the classes of every code point)
 * against the PCRE2 translation of the same patterns: every match boundary
 * on many random strings, weighted towards the characters the patterns
 * care about (and non-ASCII ones, some of which must go to PCRE2), and on
 * every code point in a few contexts, must agree. */
#include "test.h"
#include "../src/tok/tok_internal.h"
#include "../src/base/utf8.h"

static const char *const patterns[] = {
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
};

static u64 rng = 0x9e3779b97f4a7c15u;
static u32 next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (u32)rng;
}

/* Appends one random character (UTF-8) to text; returns the new length. */
static iz random_char(u8 *text, iz len)
{
    static const char pool[] = "aZqStRlLvVeEmMdD'''   \t\n\n\r\v\f0123456789.,;:!?{}[]()<>\"#$%&*+-/=@\\^_`|~";
    /* non-ASCII that matters to the patterns: letters (also one that case
     * folds to s), digits, spaces, marks, symbols, CJK, emoji */
    static const char *const wide[] = {
        "\xc3\xa9", "\xc5\xbf", "\xc2\xa0", "\xc2\x85", "\xd9\xa3", "\xe4\xb8\xad", "\xe2\x80\x83",
        "\xcc\x81", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xe2\x80\x8b", "\xef\xbb\xbf", "\xe2\x85\xa0",
    };
    u32 r = next() % 100;
    if (r < 6) {   /* any code point: the BMP, or any plane */
        u32 c = next() % 3 ? next() % 0x10000 : next() % 0x110000;
        if (c < 0x80 || (c >= 0xd800 && c <= 0xdfff))
            c = 0x4e00 + c % 0x5200;
        return len + utf8_encode(c, text + len);
    }
    if (r < 80) {
        text[len] = (u8)pool[next() % lengthof(pool)];
        return len + 1;
    }
    if (r < 88) {
        text[len] = (u8)(next() % 128);   /* any ASCII, controls included */
        return len + 1;
    }
    const char *w = wide[next() % countof(wide)];
    iz n = (iz)strlen(w);
    memcpy(text + len, w, (size_t)n);
    return len + n;
}

/* Runs the split loop the pre-tokenizer runs and records the boundaries. */
static iz boundaries(const tok_regex *re, tok_work *w, str s, iz *out, iz cap)
{
    iz n = 0, pos = 0;
    err e = {0};
    while (pos <= s.len && n + 2 <= cap) {
        iz b, en;
        int m = tok_regex_find(re, w, s, pos, &b, &en, &e);
        if (m <= 0)
            break;
        out[n++] = b;
        out[n++] = en;
        pos = en > b ? en : en + 1;
    }
    return n;
}

/* The boundaries with the hand-written matchers (into fb, *nf) and with
 * PCRE2 alone (sb, *ns): whether they agree. */
static bool same_splits(const tok_regex *re, tok_work *w, str s, iz *fb, iz *sb, iz cap, iz *nf, iz *ns)
{
    w->re_no_fast = false;
    *nf = boundaries(re, w, s, fb, cap);
    w->re_no_fast = true;
    *ns = boundaries(re, w, s, sb, cap);
    return *nf == *ns && memcmp(fb, sb, (size_t)*nf * sizeof(iz)) == 0;
}

static void test_fast_equals_pcre(void)
{
    arena perm;
    arena_init(&perm, 0);
    tok_work w = {0};
    arena_init(&w.scratch, 0);
    iz fast_b[1024], slow_b[1024];
    int cases = 0, bad = 0;
    for (iz p = 0; p < countof(patterns); p++) {
        err e = {0};
        tok_regex *re = tok_regex_compile(&perm, str_cstr(patterns[p]), false, &e);
        REQUIRE(re);
        for (int k = 0; k < 20000; k++) {
            u8 text[400];
            iz want = next() % 60, len = 0;
            for (iz i = 0; i < want; i++)
                len = random_char(text, len);
            str s = str_from(text, len);
            iz nf, ns;
            cases++;
            if (!same_splits(re, &w, s, fast_b, slow_b, countof(fast_b), &nf, &ns)) {
                if (bad++ < 5) {
                    printf("#   pattern %td differs on \"", p);
                    for (iz i = 0; i < len; i++)
                        printf(text[i] >= 0x20 && text[i] < 0x7f ? "%c" : "\\x%02x", text[i]);
                    printf("\"\n#     fast:");
                    for (iz i = 0; i < nf; i += 2)
                        printf(" [%td,%td)", fast_b[i], fast_b[i + 1]);
                    printf("\n#     pcre:");
                    for (iz i = 0; i < ns; i += 2)
                        printf(" [%td,%td)", slow_b[i], slow_b[i + 1]);
                    printf("\n");
                }
            }
        }
    }
    printf("#   %d random strings, %d differ\n", cases, bad);
    EXPECT_EQ(bad, 0);
    tok_regex_work_fini(&w);
    arena_fini(&w.scratch);
    arena_fini(&perm);
}

/* Every code point, eight at a time, each after a letter, before a digit
 * and between spaces ("a" X "1 " X " " X "\n"), split both ways: the
 * classes the matcher keeps for characters beyond ASCII are PCRE2's. */
static void test_every_code_point(void)
{
    arena perm;
    arena_init(&perm, 0);
    tok_work w = {0};
    arena_init(&w.scratch, 0);
    static iz fast_b[512], slow_b[512];
    int cases = 0, bad = 0;
    for (iz p = 0; p < countof(patterns); p++) {
        err e = {0};
        tok_regex *re = tok_regex_compile(&perm, str_cstr(patterns[p]), false, &e);
        REQUIRE(re);
        for (u32 c = 0x80; c < 0x110000; c += 8) {
            if (c >= 0xd800 && c <= 0xdfff)
                continue;
            u8 text[8 * 20];
            iz len = 0;
            for (u32 k = c; k < c + 8; k++) {
                text[len++] = 'a';
                len += utf8_encode(k, text + len);
                text[len++] = '1';
                text[len++] = ' ';
                len += utf8_encode(k, text + len);
                text[len++] = ' ';
                len += utf8_encode(k, text + len);
                text[len++] = '\n';
            }
            iz nf, ns;
            cases++;
            if (!same_splits(re, &w, str_from(text, len), fast_b, slow_b, countof(fast_b), &nf, &ns) && bad++ < 5)
                printf("#   pattern %td differs on U+%04X..U+%04X\n", p, c, c + 7);
        }
    }
    printf("#   %d strings, %d differ\n", cases, bad);
    EXPECT_EQ(bad, 0);
    tok_regex_work_fini(&w);
    arena_fini(&w.scratch);
    arena_fini(&perm);
}

int main(void)
{
    RUN(test_fast_equals_pcre);
    RUN(test_every_code_point);
    return test_done();
}
