/* test_norm.c - the normalizers of src/tok/normalize.c, one test per type,
 * plus Unicode-version behaviour, fast paths, the crate's untagged loading
 * and load errors. Every expected output was checked against the Rust
 * library (the oracle: a tokenizer.json with the normalizer under test,
 * ids decoded back to text), not only against Python's unicodedata. */
#include <setjmp.h>
#include "test.h"
#include "../src/base/arena.h"
#include "../src/json/json.h"
#include "../src/tok/tok_internal.h"

static arena    perm;   /* parsed specs and normalizers, freed at the end */
static tok_work w;
static err      e;

/* Parses the normalizer JSON `spec`; NULL (and `e` filled) on failure. */
static tok_norm *load(const char *spec)
{
    e = (err){0};
    json *j = json_parse(&perm, str_cstr(spec), NULL, &e);
    if (!j) {
        printf("#   bad test JSON %s: %s\n", spec, e.msg);
        return NULL;
    }
    return tok_norm_parse(&perm, j, "normalizer", &e);
}

static void print_escaped(str s)
{
    for (iz i = 0; i < s.len; i++) {
        u8 c = s.s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            putchar(c);
        else
            printf("\\x%02x", c);
    }
}

/* EXPECT_NORM(spec, in, want): normalizer `spec` turns `in` into `want`. */
#define EXPECT_NORM(spec, in, want) expect_norm(__LINE__, spec, S(in), S(want))

static void expect_norm(int line, const char *spec, str in, str want)
{
    tok_norm *n = load(spec);
    if (!n) {
        printf("#   line %d: %s: load failed: %s\n", line, spec, e.msg);
        test_cur_failed = 1;
        return;
    }
    arena_mark m = arena_save(&w.scratch);
    str out;
    int rc = tok_norm_apply(n, &w, in, &out, &e);
    if (rc) {
        printf("#   line %d: %s: error %d: %s\n", line, spec, rc, e.msg);
        test_cur_failed = 1;
    } else if (!str_eq(out, want)) {
        printf("#   line %d: %s on \"", line, spec);
        print_escaped(in);
        printf("\"\n#     got      \"");
        print_escaped(out);
        printf("\"\n#     expected \"");
        print_escaped(want);
        printf("\"\n");
        test_cur_failed = 1;
    }
    arena_restore(&w.scratch, m);
}

/* Loading `spec` fails with `code` and a message starting with `msg`. */
#define EXPECT_LOAD_ERR(spec, code, msg) expect_load_err(__LINE__, spec, code, msg)

static void expect_load_err(int line, const char *spec, int code, const char *msg)
{
    tok_norm *n = load(spec);
    if (n || e.code != code || strncmp(e.msg, msg, strlen(msg)) != 0) {
        printf("#   line %d: %s: %s, code %d, message \"%s\"; expected code %d, \"%s...\"\n", line, spec,
               n ? "loaded" : "failed", e.code, e.msg, code, msg);
        test_cur_failed = 1;
    }
}

/* Whether applying `spec` to `in` returns `in` itself, allocating nothing. */
static bool returns_input(const char *spec, str in)
{
    tok_norm *n = load(spec);
    if (!n)
        return false;
    arena_mark m = arena_save(&w.scratch);
    iz used = arena_bytes(&w.scratch);
    u8 *beg = w.scratch.beg;
    str out = {0};
    int rc = tok_norm_apply(n, &w, in, &out, &e);
    bool same = rc == 0 && out.s == in.s && out.len == in.len && arena_bytes(&w.scratch) == used &&
                w.scratch.beg == beg;
    arena_restore(&w.scratch, m);
    return same;
}

static const char NFC[] = "{\"type\":\"NFC\"}";
static const char NFD[] = "{\"type\":\"NFD\"}";
static const char NFKC[] = "{\"type\":\"NFKC\"}";
static const char NFKD[] = "{\"type\":\"NFKD\"}";
static const char LOWER[] = "{\"type\":\"Lowercase\"}";

static void test_nfc(void)
{
    EXPECT_NORM(NFC, "e\u0301", "\u00e9");
    EXPECT_NORM(NFC, "caf\u00e9 cafe\u0301", "caf\u00e9 caf\u00e9");
    EXPECT_NORM(NFC, "\u212b \u2126", "\u00c5 \u03a9");              /* singletons */
    EXPECT_NORM(NFC, "\u1100\u1161\u11a8", "\uac01");                 /* Hangul L V T */
    EXPECT_NORM(NFC, "\uac00\u11a8x", "\uac01x");                     /* LV + T */
    EXPECT_NORM(NFC, "a\u0301\u0323", "\u1ea1\u0301");                /* reordered, then composed */
    EXPECT_NORM(NFC, "\u0344", "\u0308\u0301");                       /* excluded from composition */
    EXPECT_NORM(NFC, "\u0958", "\u0915\u093c");                       /* composition exclusion */
    EXPECT_NORM(NFC, "\ufb01 \u2460", "\ufb01 \u2460");               /* compatibility kept */
    EXPECT_NORM(NFC, "\uf900", "\u8c48");                             /* CJK compatibility ideograph */
    EXPECT_NORM(NFC, "\U0001d15e", "\U0001d157\U0001d165");            /* excluded, astral */
    EXPECT_NORM(NFC, "\u0b47\u0b3e \u0cc6\u0cc2\u0cd5", "\u0b4b \u0ccb");
    EXPECT_NORM(NFC, "\u00e9\u0323x\u1e9b", "\u1eb9\u0301x\u1e9b");   /* a composite, then a mark */
    EXPECT_NORM(NFC, "\u0cca\u0cd5", "\u0ccb");                       /* composite + second half */
    EXPECT_NORM(NFC, "", "");
}

static void test_nfd(void)
{
    EXPECT_NORM(NFD, "\u00e9", "e\u0301");
    EXPECT_NORM(NFD, "\uac01", "\u1100\u1161\u11a8");
    EXPECT_NORM(NFD, "\u1e69", "s\u0323\u0307");
    EXPECT_NORM(NFD, "a\u0301\u0323b", "a\u0323\u0301b");             /* canonical order */
    EXPECT_NORM(NFD, "\ufb01\u00c5", "\ufb01A\u030a");
    EXPECT_NORM(NFD, "plain ascii", "plain ascii");
}

static void test_nfkc(void)
{
    EXPECT_NORM(NFKC, "\ufb01", "fi");
    EXPECT_NORM(NFKC, "\u2460 x\u00b2 \uff28\uff49", "1 x2 Hi");
    EXPECT_NORM(NFKC, "\u337b", "\u5e73\u6210");
    EXPECT_NORM(NFKC, "\u1e9b\u0323", "\u1e69");
    EXPECT_NORM(NFKC, "\u1e9b \u0385 \u00e9", "\u1e61  \u0308\u0301 \u00e9");   /* composites with compat parts */
    EXPECT_NORM(NFKC, "\u2126\u00b5", "\u03a9\u03bc");
    EXPECT_NORM(NFKC, "\ufdfa", "\u0635\u0644\u0649 \u0627\u0644\u0644\u0647 \u0639\u0644\u064a\u0647 "
                                "\u0648\u0633\u0644\u0645");
}

static void test_nfkd(void)
{
    EXPECT_NORM(NFKD, "\ufb01", "fi");
    EXPECT_NORM(NFKD, "\u01c5", "Dz\u030c");
    EXPECT_NORM(NFKD, "\u1e9b\u0323", "s\u0323\u0307");
    EXPECT_NORM(NFKD, "\uac00\u2460", "\u1100\u1161" "1");
}

/* The crate normalizes with Unicode 9.0 tables: characters assigned later
 * are left alone, where utf8proc's newer data would change them. */
static void test_unicode9(void)
{
    EXPECT_NORM(NFKC, "\U0001fbf1", "\U0001fbf1");           /* SEGMENTED DIGIT ONE (13.0): not "1" */
    EXPECT_NORM(NFKC, "\u32ff", "\u32ff");                   /* SQUARE ERA NAME REIWA (12.1) */
    EXPECT_NORM(NFKD, "\ua7f2", "\ua7f2");                   /* MODIFIER LETTER CAPITAL C (14.0) */
    EXPECT_NORM(NFC, "a\u1df6\u0323", "a\u1df6\u0323");      /* U+1DF6 (10.0) is class 0 then */
    EXPECT_NORM(NFD, "a\u1df6\u0323", "a\u1df6\u0323");
    EXPECT_NORM(NFC, "\U00011935\U00011930", "\U00011935\U00011930");   /* not U+11938 (13.0) */
    EXPECT_NORM(NFD, "\U00011938", "\U00011938");
    /* Later characters inside runs that do change come back in order. */
    EXPECT_NORM(NFKC, "e\u0301\U0001fbf1e\u0301\U0001fbf2\ufb01", "\u00e9\U0001fbf1\u00e9\U0001fbf2fi");
    EXPECT_NORM(NFC, "\u1df6e\u0301\u1df7\u0323a\u0301", "\u1df6\u00e9\u1df7\u0323\u00e1");
    /* Characters of 9.0 are normalized as usual next to them. */
    EXPECT_NORM(NFC, "a\u0323\u1df6", "\u1ea1\u1df6");
}

/* Unchanged text comes back as the input itself, without allocation. */
static void test_unicode_fast_path(void)
{
    EXPECT(returns_input(NFC, S("plain ASCII text, nothing to do.")));
    EXPECT(returns_input(NFKC, S("plain ASCII text, nothing to do.")));
    EXPECT(returns_input(NFD, S("plain ASCII text, nothing to do.")));
    EXPECT(returns_input(NFC, S("\u4e2d\u6587 \u65e5\u672c\u8a9e \ud55c\uad6d\uc5b4 \U0001f600")));
    EXPECT(returns_input(NFKC, S("\u4e2d\u6587\u3001\u0416\u0437\u03b1")));
    EXPECT(returns_input(NFC, S("")));

    /* Precomposed letters need no work either. */
    EXPECT(returns_input(NFC, S("caf\u00e9 na\u00efve, Ti\u1ebfng Vi\u1ec7t, \u1f04\u03bb\u03c6\u03b1")));
    EXPECT(returns_input(NFKC, S("caf\u00e9 na\u00efve, Ti\u1ebfng Vi\u1ec7t, \u1f04\u03bb\u03c6\u03b1")));

    /* Already composed accents with marks: the same bytes come back. */
    tok_norm *n = load(NFC);
    REQUIRE(n);
    str in = S("caf\u00e9 na\u00efve \u1ea1\u0301"), out;
    REQUIRE(tok_norm_apply(n, &w, in, &out, &e) == 0);
    EXPECT(out.s == in.s && out.len == in.len);
    in = S("\uac01 \uac00\u11a8");   /* but LV + T still composes */
    REQUIRE(tok_norm_apply(n, &w, in, &out, &e) == 0);
    EXPECT_STR(out, S("\uac01 \uac01"));
    EXPECT(!returns_input(NFD, S("\uac01")));
    EXPECT(!returns_input(NFKC, S("\ufb01")));
}

/* Long inputs: a change deep inside ASCII, and a run of marks longer than
 * any buffer guess, in the worst order for a sort by swaps (utf8proc's
 * own ordering, swapping neighbours, takes tens of seconds on it). */
static void test_unicode_long(void)
{
    tok_norm *n = load(NFC);
    REQUIRE(n);
    arena_mark m = arena_save(&w.scratch);
    enum { N = 100000, M = 50000 };
    u8 *text = malloc(N + 3);
    for (iz i = 0; i < N + 3; i++)
        text[i] = (u8)('a' + i % 26);
    text[N / 2] = 'e';
    text[N / 2 + 1] = 0xcc;   /* U+0301 */
    text[N / 2 + 2] = 0x81;
    str out;
    REQUIRE(tok_norm_apply(n, &w, (str){text, N + 3}, &out, &e) == 0);
    EXPECT_EQ(out.len, N + 2);
    EXPECT(out.len == N + 2 && out.s[N / 2] == 0xc3 && out.s[N / 2 + 1] == 0xa9 &&
           memcmp(out.s, text, N / 2) == 0 && memcmp(out.s + N / 2 + 2, text + N / 2 + 3, N / 2) == 0);

    /* "a" + M x (U+0301 U+0323) -> U+1EA1, (M-1) x U+0323, M x U+0301. */
    u8 *marks = malloc(1 + 4 * M);
    marks[0] = 'a';
    for (iz i = 0; i < M; i++)
        memcpy(marks + 1 + 4 * i, "\xcc\x81\xcc\xa3", 4);
    REQUIRE(tok_norm_apply(n, &w, (str){marks, 1 + 4 * M}, &out, &e) == 0);
    bool ok = out.len == 3 + 4 * (M - 1) + 2 && memcmp(out.s, "\xe1\xba\xa1", 3) == 0;
    for (iz i = 0; ok && i < M - 1; i++)
        ok = memcmp(out.s + 3 + 2 * i, "\xcc\xa3", 2) == 0;
    for (iz i = 0; ok && i < M; i++)
        ok = memcmp(out.s + 3 + 2 * (M - 1) + 2 * i, "\xcc\x81", 2) == 0;
    EXPECT(ok);
    free(marks);
    free(text);
    arena_restore(&w.scratch, m);
}

static void test_lowercase(void)
{
    EXPECT_NORM(LOWER, "HeLLo, World!", "hello, world!");
    EXPECT_NORM(LOWER, "\u0130stanbul", "i\u0307stanbul");    /* the one full mapping */
    EXPECT_NORM(LOWER, "\u03a3\u0391\u03a3", "\u03c3\u03b1\u03c3");   /* no final sigma */
    EXPECT_NORM(LOWER, "\u1e9e\u212a\u2126\u01c5", "\u00df" "k\u03c9\u01c6");
    EXPECT_NORM(LOWER, "\u00c9\u0416\u10a0\U00010400", "\u00e9\u0436\u2d00\U00010428");
    EXPECT_NORM(LOWER, "\u13a0", "\uab70");                    /* Cherokee */
    /* Unicode 16 and 17 (Rust's tables; utf8proc 2.8 has 15). */
    EXPECT_NORM(LOWER, "\ua7cb\ua7dc\u1c89", "\u0264\u019b\u1c8a");
    EXPECT_NORM(LOWER, "\U00010d50\U00010d65", "\U00010d70\U00010d85");
    EXPECT_NORM(LOWER, "\ua7ce\ua7d2\ua7d4\U00016ea0\U00016eb8", "\ua7cf\ua7d3\ua7d5\U00016ebb\U00016ed3");
    EXPECT(returns_input(LOWER, S("already lower \u00e9\u4e2d")));
}

static void test_replace_string(void)
{
    static const char gemma[] = "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\u2581\"}";
    EXPECT_NORM(gemma, "a b  c ", "a\u2581b\u2581\u2581c\u2581");
    EXPECT_NORM(gemma, " ", "\u2581");
    EXPECT_NORM(gemma, "", "");
    EXPECT(returns_input(gemma, S("no-spaces-here")));
    static const char aa[] = "{\"type\":\"Replace\",\"pattern\":{\"String\":\"aa\"},\"content\":\"b\"}";
    EXPECT_NORM(aa, "aaa aaaa a", "ba bb a");                  /* leftmost, non-overlapping */
    static const char shrink[] = "{\"type\":\"Replace\",\"pattern\":{\"String\":\"\u00e9t\u00e9\"},"
                                 "\"content\":\"\"}";
    EXPECT_NORM(shrink, "\u00e9t\u00e9\u00e9t\u00e9x\u00e9t", "x\u00e9t");
    static const char meta[] = "{\"type\":\"Replace\",\"pattern\":{\"String\":\".*\"},\"content\":\"$0\"}";
    EXPECT_NORM(meta, "a.*b.c", "a$0b.c");                     /* a string, not a regex */
}

static void test_replace_regex(void)
{
    EXPECT_NORM("{\"type\":\"Replace\",\"pattern\":{\"Regex\":\" {2,}\"},\"content\":\" \"}",
                "a   b  c d", "a b c d");
    EXPECT_NORM("{\"type\":\"Replace\",\"pattern\":{\"Regex\":\"\\\\s+\"},\"content\":\"\u2581\"}",
                "a\u3000\u00a0b\t\nc", "a\u2581b\u2581c");
    EXPECT_NORM("{\"type\":\"Replace\",\"pattern\":{\"Regex\":\"(?<=\\\\p{L})\\\\d+\"},\"content\":\"#\"}",
                "a12 34 \u00e956", "a# 34 \u00e9#");
    EXPECT_NORM("{\"type\":\"Replace\",\"pattern\":{\"Regex\":\"(?i:ab)\"},\"content\":\"<$0>\"}",
                "xAbyab", "x<$0>y<$0>");
    /* An empty match has no right answer (the crate garbles the text). */
    tok_norm *n = load("{\"type\":\"Replace\",\"pattern\":{\"Regex\":\"x*\"},\"content\":\"-\"}");
    REQUIRE(n);
    str out;
    EXPECT_EQ(tok_norm_apply(n, &w, S("abc"), &out, &e), ERR_UNSUPPORTED);
    EXPECT_NORM("{\"type\":\"Replace\",\"pattern\":{\"Regex\":\"x*\"},\"content\":\"-\"}", "", "");
    EXPECT_LOAD_ERR("{\"type\":\"Replace\",\"pattern\":{\"Regex\":\"(\"},\"content\":\"-\"}", ERR_SYNTAX,
                    "normalizer.pattern.Regex: ");
}

static void test_prepend(void)
{
    static const char p[] = "{\"type\":\"Prepend\",\"prepend\":\"\u2581\"}";
    EXPECT_NORM(p, "Hello", "\u2581Hello");
    EXPECT_NORM(p, " x", "\u2581 x");
    EXPECT_NORM(p, "", "");                                     /* only non-empty text */
    EXPECT(returns_input("{\"type\":\"Prepend\",\"prepend\":\"\"}", S("abc")));
}

static void test_strip(void)
{
    static const char both[] = "{\"type\":\"Strip\",\"strip_left\":true,\"strip_right\":true}";
    static const char left[] = "{\"type\":\"Strip\",\"strip_left\":true,\"strip_right\":false}";
    static const char right[] = "{\"type\":\"Strip\",\"strip_left\":false,\"strip_right\":true}";
    EXPECT_NORM(both, " \t\na b\r\n ", "a b");
    EXPECT_NORM(left, " \t\na b\r\n ", "a b\r\n ");
    EXPECT_NORM(right, " \t\na b\r\n ", " \t\na b");
    /* White_Space: U+3000, U+00A0, U+0085, U+2028 are; U+200B, U+FEFF, U+180E are not. */
    EXPECT_NORM(both, "\u3000\u00a0\xc2\x85" "x\u2028\u205f", "x");
    EXPECT_NORM(both, "\u200bx\ufeff", "\u200bx\ufeff");
    EXPECT_NORM(both, "\u180ex", "\u180ex");
    EXPECT_NORM(both, " \u3000 ", "");
    EXPECT_NORM(right, " \u3000 ", "");
    EXPECT_NORM(both, "", "");
    /* The result is a slice of the input. */
    tok_norm *n = load(both);
    REQUIRE(n);
    str in = S("  abc  "), out;
    REQUIRE(tok_norm_apply(n, &w, in, &out, &e) == 0);
    EXPECT(out.s == in.s + 2 && out.len == 3);
}

static void test_strip_accents(void)
{
    static const char sa[] = "{\"type\":\"StripAccents\"}";
    EXPECT_NORM(sa, "e\u0301a\u0323\u0302", "ea");
    EXPECT_NORM(sa, "caf\u00e9", "caf\u00e9");                  /* no decomposition of its own */
    /* All marks (Mn, Mc, Me) of Unicode 9.0. */
    EXPECT_NORM(sa, "\u0915\u0903\u20dd\u0bbe|", "\u0915|");
    EXPECT_NORM(sa, "\u1cf2\u1cf3x", "x");                      /* Mc in 9.0, Lo now */
    EXPECT_NORM(sa, "x\U000111c9", "x\U000111c9");              /* Po in 9.0, Mn now */
    EXPECT_NORM(sa, "x\u1df6\U00011f00", "x\u1df6\U00011f00");  /* marks of 10.0 and 15.0 */
    EXPECT(returns_input(sa, S("nothing \u4e2d to strip")));
}

static void test_nmt(void)
{
    static const char nmt[] = "{\"type\":\"Nmt\"}";
    EXPECT_NORM(nmt, "a\x01\x08\x0b\x0e\x1f\x7f\xc2\x8f\xc2\x9f" "b", "ab");
    EXPECT_NORM(nmt, "a\tb\nc\x0c" "d\re\u1680f\u200bg\u200fh\u2028i\u2029j\u2581k\ufeffl\ufffdm",
                "a b c d e f g h i j k l m");
    EXPECT_NORM(nmt, "\x00" "a\xc2\x85", "\x00" "a\xc2\x85");   /* NUL and U+0085 stay */
    EXPECT(returns_input(nmt, S("plain text")));
}

static void test_bert(void)
{
    static const char bert[] = "{\"type\":\"BertNormalizer\",\"clean_text\":true,\"handle_chinese_chars\":true,"
                               "\"strip_accents\":null,\"lowercase\":true}";
    EXPECT_NORM(bert, " H\u00e9llo\tWORLD\x01\u4e2d\ufffd", " hello world \u4e2d ");
    EXPECT_NORM(bert, "\u0130\u00c5", "ia");                     /* accents go before lowercasing */
    EXPECT_NORM(bert, "\x00" "a\xc2\x85" "b\x0c" "c\u200bd\u3000e\ue000f", "abcd ef");
    EXPECT_NORM(bert, "\u3400\U00020000\uf900\u3041", " \u3400  \U00020000  \u8c48 \u3041");
    /* Categories of Unicode 8.0: U+08E2 was unassigned (kept, not Cf),
     * U+1734 was Mn (stripped), U+08D4 was unassigned (kept). */
    EXPECT_NORM(bert, "a\u08e2b\u1734c\u08d4", "a\u08e2bc\u08d4");
    static const char keep[] = "{\"type\":\"BertNormalizer\",\"clean_text\":false,\"handle_chinese_chars\":false,"
                               "\"strip_accents\":false,\"lowercase\":true}";
    EXPECT_NORM(keep, "\u00c9\u4e2d\x01\u0130", "\u00e9\u4e2d\x01i\u0307");
    static const char only_strip[] = "{\"type\":\"Bert\",\"clean_text\":false,\"handle_chinese_chars\":false,"
                                     "\"strip_accents\":true,\"lowercase\":false}";
    EXPECT_NORM(only_strip, "\u00c9\u0903x", "E\u0903x");        /* Mn only */
    /* strip_accents may be left out: it follows lowercase. */
    EXPECT_NORM("{\"type\":\"BertNormalizer\",\"clean_text\":false,\"handle_chinese_chars\":false,"
                "\"lowercase\":true}", "\u00c9", "e");
}

static void test_byte_level(void)
{
    static const char bl[] = "{\"type\":\"ByteLevel\"}";
    EXPECT_NORM(bl, "Hi there", "Hi\u0120there");
    EXPECT_NORM(bl, " \u00e9\n\x00", "\u0120\u00c3\u00a9\u010a\u0100");
    EXPECT_NORM(bl, "\u4e2d", "\u00e4\u00b8\u0143");
    EXPECT_NORM(bl, "", "");
}

static void test_sequence(void)
{
    static const char llama2[] = "{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\u2581\"},"
                                 "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\u2581\"}]}";
    EXPECT_NORM(llama2, "Hello world", "\u2581Hello\u2581world");
    EXPECT_NORM(llama2, " Hello", "\u2581\u2581Hello");
    EXPECT_NORM(llama2, "", "");
    static const char mix[] = "{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"NFKD\"},{\"type\":\"StripAccents\"},"
                              "{\"type\":\"Lowercase\"},{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Strip\","
                              "\"strip_left\":true,\"strip_right\":true}]},{\"type\":\"Prepend\",\"prepend\":\"<\"}]}";
    EXPECT_NORM(mix, "  \uff21\u00c9\ufb01  ", "<aefi");
    static const char empty[] = "{\"type\":\"Sequence\",\"normalizers\":[]}";
    EXPECT(returns_input(empty, S("anything \u00e9")));
}

static void test_changes_text(void)
{
    static const struct {
        const char *spec;
        bool        changes;
    } cases[] = {
        {"{\"type\":\"Sequence\",\"normalizers\":[]}", false},   /* deepseek_v3 */
        {"{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Sequence\",\"normalizers\":[]}]}", false},
        {"{\"type\":\"Strip\",\"strip_left\":false,\"strip_right\":false}", false},
        {"{\"type\":\"Prepend\",\"prepend\":\"\"}", false},
        {"{\"type\":\"Replace\",\"pattern\":{\"String\":\"a\"},\"content\":\"a\"}", false},
        {"{\"type\":\"BertNormalizer\",\"clean_text\":false,\"handle_chinese_chars\":false,\"strip_accents\":null,"
         "\"lowercase\":false}", false},
        {"{\"type\":\"NFC\"}", true},
        {"{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Sequence\",\"normalizers\":[]},{\"type\":\"NFKC\"}]}", true},
        {"{\"type\":\"Strip\",\"strip_left\":false,\"strip_right\":true}", true},
        {"{\"type\":\"Prepend\",\"prepend\":\"x\"}", true},
        {"{\"type\":\"Replace\",\"pattern\":{\"String\":\"a\"},\"content\":\"b\"}", true},
        {"{\"type\":\"BertNormalizer\",\"clean_text\":false,\"handle_chinese_chars\":false,\"strip_accents\":true,"
         "\"lowercase\":false}", true},
        {"{\"type\":\"Lowercase\"}", true},
        {"{\"type\":\"ByteLevel\"}", true},
    };
    for (iz k = 0; k < countof(cases); k++) {
        tok_norm *n = load(cases[k].spec);
        EXPECT(n != NULL);
        if (n && tok_norm_changes_text(n) != cases[k].changes) {
            printf("#   %s: changes_text should be %d\n", cases[k].spec, cases[k].changes);
            test_cur_failed = 1;
        }
    }
}

/* The normalizers of the nine reference tokenizers, as their
 * tokenizer.json files spell them. */
static void test_reference_tokenizers(void)
{
    EXPECT_NORM("{\"type\": \"NFC\"}", "Cafe\u0301 \u212b", "Caf\u00e9 \u00c5");           /* qwen3 */
    EXPECT_NORM("{\"type\": \"NFKC\"}", "\ufb01 \u2460 \uff21", "fi 1 A");               /* claude */
    EXPECT_NORM("{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Prepend\", \"prepend\": \"\u2581\"}, "
                "{\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\u2581\"}]}",
                " Hello  world", "\u2581\u2581Hello\u2581\u2581world");                       /* llama2 */
    EXPECT_NORM("{\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\u2581\"}",
                "a b\n c", "a\u2581b\n\u2581c");                                              /* gemma3 */
    tok_norm *n = load("{\"type\": \"Sequence\", \"normalizers\": []}");                     /* deepseek_v3 */
    EXPECT(n && !tok_norm_changes_text(n));
}

/* Objects without a known "type": the crate tries its variants by fields. */
static void test_untagged(void)
{
    EXPECT_NORM("{\"strip_left\":true,\"strip_right\":true}", " a ", "a");
    EXPECT_NORM("{\"type\":\"Foo\",\"strip_left\":false,\"strip_right\":true}", " a ", " a");
    EXPECT_NORM("{\"prepend\":\"X\"}", "a", "Xa");
    EXPECT_NORM("{\"normalizers\":[{\"type\":\"Lowercase\"}]}", "A", "a");
    EXPECT_NORM("{\"pattern\":{\"String\":\"a\"},\"content\":\"b\"}", "aa", "bb");
    EXPECT_NORM("{\"type\":\"NFC\",\"strip_left\":true,\"strip_right\":true}", " e\u0301 ", " \u00e9 ");
    EXPECT_NORM("{\"type\":\"Prepend\",\"prepend\":\"X\",\"strip_left\":true}", " a", "X a");
}

static void test_load_errors(void)
{
    EXPECT_LOAD_ERR("{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"NFC\"},"
                    "{\"type\":\"Precompiled\",\"precompiled_charsmap\":\"AAAA\"}]}",
                    ERR_UNSUPPORTED, "normalizer.normalizers[1]: unsupported normalizer type \"Precompiled\"");
    EXPECT_LOAD_ERR("{\"precompiled_charsmap\":\"AAAA\"}", ERR_UNSUPPORTED,
                    "normalizer: unsupported normalizer type \"Precompiled\"");
    EXPECT_LOAD_ERR("{\"type\":\"Fancy\"}", ERR_UNSUPPORTED, "normalizer: unsupported normalizer type \"Fancy\"");
    EXPECT_LOAD_ERR("{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Sequence\",\"normalizers\":"
                    "[{\"type\":\"nfc\"}]}]}",
                    ERR_UNSUPPORTED, "normalizer.normalizers[0].normalizers[0]: unsupported normalizer type \"nfc\"");
    EXPECT_LOAD_ERR("{}", ERR_INVALID, "normalizer: a normalizer needs a \"type\"");
    EXPECT_LOAD_ERR("{\"type\":7}", ERR_INVALID, "normalizer: a normalizer needs a \"type\"");
    EXPECT_LOAD_ERR("[]", ERR_INVALID, "normalizer: a normalizer must be an object");
    EXPECT_LOAD_ERR("{\"type\":\"Sequence\"}", ERR_INVALID, "normalizer: \"normalizers\" must be a list");
    EXPECT_LOAD_ERR("{\"type\":\"Sequence\",\"normalizers\":[1]}", ERR_INVALID,
                    "normalizer.normalizers[0]: a normalizer must be an object");
    EXPECT_LOAD_ERR("{\"type\":\"Strip\",\"strip_left\":true}", ERR_INVALID,
                    "normalizer: \"strip_right\" must be true or false");
    EXPECT_LOAD_ERR("{\"type\":\"Strip\",\"strip_left\":1,\"strip_right\":true}", ERR_INVALID,
                    "normalizer: \"strip_left\" must be true or false");
    EXPECT_LOAD_ERR("{\"type\":\"Prepend\"}", ERR_INVALID, "normalizer: \"prepend\" must be a string");
    EXPECT_LOAD_ERR("{\"type\":\"Bert\",\"clean_text\":true,\"lowercase\":true}", ERR_INVALID,
                    "normalizer: \"handle_chinese_chars\" must be true or false");
    EXPECT_LOAD_ERR("{\"type\":\"Bert\",\"clean_text\":true,\"handle_chinese_chars\":true,\"lowercase\":true,"
                    "\"strip_accents\":\"yes\"}", ERR_INVALID, "normalizer: \"strip_accents\" must be");
    EXPECT_LOAD_ERR("{\"type\":\"Replace\",\"pattern\":{\"String\":\"a\",\"Regex\":\"b\"},\"content\":\"x\"}",
                    ERR_INVALID, "normalizer: \"pattern\" must be");
    EXPECT_LOAD_ERR("{\"type\":\"Replace\",\"pattern\":{\"Glob\":\"a\"},\"content\":\"x\"}", ERR_INVALID,
                    "normalizer: \"pattern\" must be");
    EXPECT_LOAD_ERR("{\"type\":\"Replace\",\"pattern\":{\"String\":\"a\"}}", ERR_INVALID,
                    "normalizer: \"content\" must be a string");
    EXPECT_LOAD_ERR("{\"type\":\"Replace\",\"pattern\":{\"String\":\"\"},\"content\":\"x\"}", ERR_UNSUPPORTED,
                    "normalizer: a Replace with an empty pattern");
    /* The byte offset of the offending value is kept. */
    load("{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Fancy\"}]}");
    EXPECT_EQ(e.off, 42);
}

/* Whether applying n to s leaves through wk's landing point. */
static bool jumps(const tok_norm *n, tok_work *wk, str s)
{
    str out;
    if (setjmp(wk->oom))
        return true;
    tok_norm_apply(n, wk, s, &out, &e);
    return false;
}

/* Scratch exhaustion: a jump when the arena has a landing point, else
 * ERR_NOMEM; never a crash. */
static void test_out_of_memory(void)
{
    tok_norm *n = load(NFKD);
    REQUIRE(n);
    enum { N = 200000 };
    u8 *text = malloc(N * 3);
    for (iz i = 0; i < N; i++)
        memcpy(text + 3 * i, "\xef\xac\x81", 3);   /* U+FB01 */
    tok_work small = {0};
    arena_init(&small.scratch, 64 * 1024);
    str out;
    EXPECT_EQ(tok_norm_apply(n, &small, (str){text, N * 3}, &out, &e), ERR_NOMEM);
    arena_fini(&small.scratch);

    arena_init(&small.scratch, 64 * 1024);
    small.scratch.oom = &small.oom;
    EXPECT(jumps(n, &small, (str){text, N * 3}));
    arena_fini(&small.scratch);
    free(text);
}

int main(void)
{
    arena_init(&perm, 0);
    arena_init(&w.scratch, 0);
    RUN(test_nfc);
    RUN(test_nfd);
    RUN(test_nfkc);
    RUN(test_nfkd);
    RUN(test_unicode9);
    RUN(test_unicode_fast_path);
    RUN(test_unicode_long);
    RUN(test_lowercase);
    RUN(test_replace_string);
    RUN(test_replace_regex);
    RUN(test_prepend);
    RUN(test_strip);
    RUN(test_strip_accents);
    RUN(test_nmt);
    RUN(test_bert);
    RUN(test_byte_level);
    RUN(test_sequence);
    RUN(test_changes_text);
    RUN(test_reference_tokenizers);
    RUN(test_untagged);
    RUN(test_load_errors);
    RUN(test_out_of_memory);
    tok_regex_work_fini(&w);
    arena_fini(&w.scratch);
    arena_fini(&perm);
    return test_done();
}
