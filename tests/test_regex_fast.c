/* test_regex_fast.c - the hand-written ASCII matchers of regex.c (Llama 3
 * and Qwen split patterns) against the PCRE2 translation of the same
 * patterns: every match boundary on many random ASCII strings, weighted
 * towards the characters the patterns care about, must agree. */
#include "test.h"
#include "../src/tok/tok_internal.h"

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

static u8 random_char(void)
{
    static const char pool[] = "aZqStRlLvVeEmMdD'''   \t\n\n\r\v\f0123456789.,;:!?{}[]()<>\"#$%&*+-/=@\\^_`|~";
    u32 r = next() % 100;
    if (r < 85)
        return (u8)pool[next() % lengthof(pool)];
    return (u8)(next() % 128);   /* any ASCII, controls included */
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
            u8 text[200];
            iz len = next() % 60;
            for (iz i = 0; i < len; i++)
                text[i] = random_char();
            str s = str_from(text, len);
            w.re_no_fast = false;
            iz nf = boundaries(re, &w, s, fast_b, countof(fast_b));
            w.re_no_fast = true;
            iz ns = boundaries(re, &w, s, slow_b, countof(slow_b));
            cases++;
            if (nf != ns || memcmp(fast_b, slow_b, (size_t)nf * sizeof(iz)) != 0) {
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

int main(void)
{
    RUN(test_fast_equals_pcre);
    return test_done();
}
