/* test_base.c - the bottom of the tree (src/base/): the arena (alignment,
 * zeroing, marks and restores across blocks, the limit with and without an
 * out-of-memory jump, cleanups, grow), UTF-8 (every code point encoded and
 * decoded back, the invalid sequences RFC 3629 names, the ASCII prefix,
 * the validator against the definition spelled out on every string of up
 * to three bytes and random mixes),
 * the byte buffer (growth, numbers, a failed buffer stays failed) and line
 * input (lines across read blocks, a last line without its newline, a line
 * too long skipped up to its newline, a byte-order mark skipped only at
 * the start, CR kept, the bytes consumed, a read error, the stop flag). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <setjmp.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"
#include "../src/base/arena.h"
#include "../src/base/lines.h"
#include "../src/base/utf8.h"

static void test_arena_alloc(void)
{
    arena a;
    arena_init(&a, 0);
    u8 *p = NEW(&a, u8, 3);
    u64 *q = NEW(&a, u64, 5);
    REQUIRE(p && q);
    EXPECT_EQ((uintptr_t)q % _Alignof(u64), 0);
    for (int k = 0; k < 5; k++)
        EXPECT_EQ(q[k], 0);   /* NEW zeroes */
    /* allocations bigger than a block get a block of their own */
    u8 *big = NEW(&a, u8, 10 << 20);
    REQUIRE(big);
    big[(10 << 20) - 1] = 7;
    EXPECT(arena_bytes(&a) >= (10 << 20));
    /* a negative or overflowing count is refused, not wrapped */
    EXPECT(arena_alloc(&a, 16, 8, -1) == NULL);
    EXPECT(arena_alloc(&a, (iz)1 << 40, 8, (iz)1 << 40) == NULL);
    arena_fini(&a);
}

static void test_arena_marks(void)
{
    arena a;
    arena_init(&a, 0);
    arena_mark base = arena_reserve(&a, 1 << 16);
    iz first = arena_bytes(&a);
    for (int round = 0; round < 3; round++) {
        arena_restore(&a, base);
        char *s = NEW(&a, char, 100);
        REQUIRE(s);
        for (int k = 0; k < 50; k++)   /* past the reserved block */
            REQUIRE(NEW(&a, u8, 1 << 15));
        EXPECT(arena_bytes(&a) > first);
    }
    arena_restore(&a, base);
    EXPECT_EQ(arena_bytes(&a), first);   /* the later blocks are freed, the first kept */
    str d = arena_strdup(&a, S("hello"));
    EXPECT_STR(d, S("hello"));
    EXPECT_EQ(d.s[5], 0);
    arena_fini(&a);
}

static void test_arena_limit(void)
{
    arena a;
    arena_init(&a, 1 << 20);
    EXPECT(NEW(&a, u8, 1 << 19) != NULL);
    EXPECT(NEW(&a, u8, 1 << 20) == NULL);   /* no jump set: NULL */
    jmp_buf jb;
    a.oom = &jb;
    volatile int jumped = 0;
    if (setjmp(jb) == 0)
        (void)NEW(&a, u8, 2 << 20);
    else
        jumped = 1;
    EXPECT_EQ(jumped, 1);
    a.oom = NULL;
    arena_fini(&a);
}

static int cleaned[4], ncleaned;

static void cleanup(void *p)
{
    cleaned[ncleaned++] = *(int *)p;
}

static void test_arena_cleanups_and_grow(void)
{
    arena a;
    arena_init(&a, 0);
    static int one = 1, two = 2, three = 3;
    ncleaned = 0;
    arena_on_free(&a, cleanup, &one);
    arena_mark m = arena_save(&a);
    arena_on_free(&a, cleanup, &two);
    arena_on_free(&a, cleanup, &three);
    arena_restore(&a, m);   /* runs the ones after the mark, newest first */
    EXPECT_EQ(ncleaned, 2);
    EXPECT_EQ(cleaned[0], 3);
    EXPECT_EQ(cleaned[1], 2);
    iz cap = 0;
    int *v = NULL;
    for (int k = 0; k < 1000; k++) {
        if (k == cap)
            v = arena_grow(&a, v, (iz)sizeof *v, (iz)_Alignof(int), k, &cap, k + 1);
        REQUIRE(v);
        v[k] = k;
    }
    int bad = 0;
    for (int k = 0; k < 1000; k++)
        bad += v[k] != k;
    EXPECT_EQ(bad, 0);
    arena_fini(&a);
    EXPECT_EQ(ncleaned, 3);
    EXPECT_EQ(cleaned[2], 1);
}

static void test_utf8_round_trip(void)
{
    iz bad = 0;
    for (u32 c = 0; c <= 0x10ffff; c++) {
        if (c >= 0xd800 && c <= 0xdfff)
            continue;
        u8 b[4];
        int n = utf8_encode(c, b);
        iz i = 0;
        bad += n != utf8_len(b[0]) || utf8_valid_seq(b, n) != n || utf8_next(b, &i) != c || i != n ||
               utf8_invalid_at(str_from(b, n)) != -1 || utf8_prev(b, n) != 0;
    }
    EXPECT_EQ(bad, 0);
}

static void test_utf8_invalid(void)
{
    static const struct { const char *s; iz at; } cases[] = {
        {"abc", -1},
        {"a\x80", 1},              /* a continuation byte alone */
        {"\xc0\xaf", 0},           /* overlong */
        {"\xc1\xbf", 0},
        {"\xe0\x80\xaf", 0},       /* overlong, three bytes */
        {"\xed\xa0\x80", 0},       /* a surrogate */
        {"\xf4\x90\x80\x80", 0},   /* above U+10FFFF */
        {"\xf5\x80\x80\x80", 0},
        {"ok\xe2\x82", 2},         /* cut short */
        {"\xe2\x82\xac\xff", 3},
        {"\xc3\xa9\xc3", 2},
    };
    for (iz k = 0; k < countof(cases); k++) {
        iz got = utf8_invalid_at(str_cstr(cases[k].s));
        if (got != cases[k].at) {
            printf("#   case %td: invalid at %td, want %td\n", k, got, cases[k].at);
            test_cur_failed = 1;
        }
    }
    EXPECT_EQ(utf8_ascii_prefix(S("0123456789abcdef\xc3\xa9z")), 16);
    EXPECT_EQ(utf8_ascii_prefix(S("abc")), 3);
    EXPECT_EQ(utf8_ascii_prefix(S("")), 0);
}

/* The definition, spelled out: decode the sequence the lead byte announces,
 * then check the code point (not overlong, no surrogate, at most U+10FFFF).
 * utf8_valid_seq takes the second byte's range from the lead byte instead. */
static int valid_seq_ref(const u8 *p, iz avail)
{
    static const u32 min[4] = {0, 0x80, 0x800, 0x10000};
    u8 c = p[0];
    int need = c < 0x80 ? 0 : c >= 0xc0 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf8 ? 3 : -1;
    if (need < 0 || need >= avail)
        return 0;
    u32 cp = need == 0 ? c : c & (0x3fu >> need);
    for (int k = 1; k <= need; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[k] & 0x3fu);
    }
    if (cp < min[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return need + 1;
}

static iz invalid_at_ref(const u8 *p, iz n)
{
    for (iz i = 0; i < n;) {
        int k = valid_seq_ref(p + i, n - i);
        if (!k)
            return i;
        i += k;
    }
    return -1;
}

/* utf8_valid_seq and utf8_invalid_at against the definition on every
 * string of up to three bytes and on four-byte strings whose last two
 * bytes are from the edges of the ranges; utf8_invalid_at on random mixes
 * of ASCII and sequences, valid and broken (the narrower second bytes
 * after E0 and F0 among them), at every offset from the 8-byte scan's
 * words. */
static void test_utf8_against_definition(void)
{
    u8 b[4];
    iz bad = 0;
    for (u32 x = 0; x < 1u << 24; x++) {
        b[0] = (u8)(x >> 16), b[1] = (u8)(x >> 8), b[2] = (u8)x;
        bad += utf8_invalid_at(str_from(b, 3)) != invalid_at_ref(b, 3);
        if ((x & 0xff) == 0)
            bad += utf8_invalid_at(str_from(b, 2)) != invalid_at_ref(b, 2);
        if ((x & 0xffff) == 0)
            bad += utf8_invalid_at(str_from(b, 1)) != invalid_at_ref(b, 1);
        if (x >> 16 < 0xc0 && (x & 0xffff))
            continue;   /* a one-byte sequence: its first byte decides */
        for (iz avail = 1; avail <= 3; avail++)
            bad += utf8_valid_seq(b, avail) != valid_seq_ref(b, avail);
    }
    static const u8 edge[] = {0x00, 0x7f, 0x80, 0x81, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
    for (u32 l = 0xf0; l <= 0xff; l++)
        for (u32 s1 = 0; s1 < 256; s1++)
            for (iz k = 0; k < countof(edge); k++)
                for (iz j = 0; j < countof(edge); j++) {
                    b[0] = (u8)l, b[1] = (u8)s1, b[2] = edge[k], b[3] = edge[j];
                    bad += utf8_valid_seq(b, 4) != valid_seq_ref(b, 4);
                    bad += utf8_invalid_at(str_from(b, 4)) != invalid_at_ref(b, 4);
                }
    EXPECT_EQ(bad, 0);
    static const char *const parts[] = {"a", " ", "\n", "abcdefgh", "\xc3\xa9", "\xe3\x80\x80", "\xf0\x9f\x98\x80",
                                        "\xed\x9f\xbf", "\xe0\xa0\x80", "\xf0\x90\x80\x80", "\xee\x80\x80",
                                        "\xf4\x8f\xbf\xbf", "\x80", "\xc3", "\xe3\x80", "\xed\xa0\x80",
                                        "\xf4\x90\x80\x80", "\xc1\xbf", "\xff", "\xe0\x9f\xbf", "\xf0\x8f\xbf\xbf"};
    u64 r = 0x9e3779b97f4a7c15u;
    u8 s[64];
    iz wrong = 0;
    for (int t = 0; t < 200000; t++) {
        iz n = 0;
        /* mostly valid parts, so that a broken one is found far in */
        while (n < 48) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            iz k = (iz)(r % 100) < 97 ? (iz)(r >> 32) % 12 : 12 + (iz)(r >> 32) % 9;
            iz len = (iz)strlen(parts[k]);
            memcpy(s + n, parts[k], (size_t)len);
            n += len;
            if (r >> 60 == 0)
                break;
        }
        wrong += utf8_invalid_at(str_from(s, n)) != invalid_at_ref(s, n);
    }
    EXPECT_EQ(wrong, 0);
}

static void test_buf(void)
{
    buf b = {0};
    for (int k = 0; k < 10000; k++)
        buf_byte(&b, (u8)('a' + k % 26));
    EXPECT_EQ(b.len, 10000);
    b.len = 0;
    buf_i64(&b, INT64_MIN);
    buf_byte(&b, ' ');
    buf_u64(&b, UINT64_MAX);
    buf_printf(&b, " %s-%d", "x", 42);
    EXPECT_STR(buf_view(&b), S("-9223372036854775808 18446744073709551615 x-42"));
    /* a failed buffer stays failed: appends are no-ops */
    b.failed = true;
    iz len = b.len;
    buf_cstr(&b, "more");
    EXPECT_EQ(b.len, len);
    buf_free(&b);
}

/* A pipe holding `data`, closed after it: its read end. */
static int pipe_of(const char *data, iz len)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    if (fork() == 0) {
        close(p[0]);
        /* in pieces, so that lines cross reads */
        for (iz off = 0; off < len; off += 7)
            if (write(p[1], data + off, (size_t)MIN((iz)7, len - off)) < 0)
                _exit(1);
        _exit(0);
    }
    close(p[1]);
    return p[0];
}

static void test_lines(void)
{
    static const char data[] = "\xEF\xBB\xBF{\"a\": 1}\n\nsecond\r\n\xEF\xBB\xBFnot a bom here\n"
                               "this one is far too long for the limit\nlast";
    int fd = pipe_of(data, lengthof(data));
    REQUIRE(fd >= 0);
    lines r;
    REQUIRE(lines_init(&r, fd, 20));
    str l;
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S("{\"a\": 1}"));   /* the mark is skipped */
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S(""));
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S("second\r"));
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S("\xEF\xBB\xBFnot a bom here"));   /* only at the start */
    EXPECT_EQ(lines_next(&r, &l), LINES_TOO_LONG);
    EXPECT_EQ(r.number, 5);
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S("last"));
    EXPECT_EQ(r.number, 6);
    EXPECT_EQ(lines_next(&r, &l), LINES_END);
    EXPECT(!r.failed);
    EXPECT_EQ(r.consumed, lengthof(data));
    lines_fini(&r);
    close(fd);
    while (wait(NULL) > 0) {
    }
}

/* A plugged-in reader: `data` in pieces of 1 to 7 bytes, then an error
 * when `fail` is set. */
typedef struct piece_reader {
    const char *data;
    iz len, at, calls;
    bool fail;
} piece_reader;

static iz read_pieces(void *ctx, u8 *p, iz cap)
{
    piece_reader *pr = ctx;
    if (pr->at == pr->len) {
        if (pr->fail) {
            errno = EIO;
            return -1;
        }
        return 0;
    }
    iz n = MIN(MIN(cap, pr->len - pr->at), 1 + pr->calls++ % 7);
    memcpy(p, pr->data + pr->at, (size_t)n);
    pr->at += n;
    return n;
}

static void test_lines_reader(void)
{
    static const char data[] = "\xEF\xBB\xBF{\"a\": 1}\nsecond\r\nthis one is far too long for the limit\nlast";
    piece_reader pr = {data, lengthof(data), 0, 0, false};
    lines r;
    REQUIRE(lines_init(&r, -1, 20));
    r.source = read_pieces;
    r.source_ctx = &pr;
    r.keep_bom = true;
    str l;
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S("\xEF\xBB\xBF{\"a\": 1}"));   /* kept: the caller asked */
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S("second\r"));
    EXPECT_EQ(lines_next(&r, &l), LINES_TOO_LONG);
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S("last"));
    EXPECT_EQ(lines_next(&r, &l), LINES_END);
    EXPECT(!r.failed);
    EXPECT_EQ(r.consumed, lengthof(data));
    EXPECT_EQ(r.number, 4);
    lines_fini(&r);
    /* a reader's error ends the input with its errno; the lines before it stay */
    piece_reader pf = {"one\ntw", 6, 0, 0, true};
    REQUIRE(lines_init(&r, -1, 20));
    r.source = read_pieces;
    r.source_ctx = &pf;
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S("one"));
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);   /* what came before the error */
    EXPECT_STR(l, S("tw"));
    EXPECT_EQ(lines_next(&r, &l), LINES_END);
    EXPECT(r.failed && r.err_no == EIO);
    lines_fini(&r);
}

static void test_lines_long_and_blocks(void)
{
    /* lines longer than the first read block, and one too long that spans
     * several blocks before its newline */
    enum { LONG = 3 << 20 };
    buf b = {0};
    for (int k = 0; k < LONG; k++)
        buf_byte(&b, 'x');
    buf_byte(&b, '\n');
    for (int k = 0; k < 2 * LONG; k++)
        buf_byte(&b, 'y');
    buf_cstr(&b, "\nshort\n");
    char path[] = "/tmp/tally-lines-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, b.data, (size_t)b.len) == b.len);
    lseek(fd, 0, SEEK_SET);
    lines r;
    REQUIRE(lines_init(&r, fd, LONG + 1));
    str l;
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_EQ(l.len, LONG);
    EXPECT_EQ(lines_next(&r, &l), LINES_TOO_LONG);
    EXPECT_EQ(lines_next(&r, &l), LINES_OK);
    EXPECT_STR(l, S("short"));
    EXPECT_EQ(lines_next(&r, &l), LINES_END);
    EXPECT_EQ(r.consumed, b.len);
    lines_fini(&r);
    close(fd);
    remove(path);
    buf_free(&b);
}

static void test_lines_errors_and_stop(void)
{
    /* a folder: the read fails and says why */
    int fd = open("/tmp", O_RDONLY);
    REQUIRE(fd >= 0);
    lines r;
    REQUIRE(lines_init(&r, fd, 100));
    str l;
    EXPECT_EQ(lines_next(&r, &l), LINES_END);
    EXPECT(r.failed);
    EXPECT(r.err_no != 0);
    lines_fini(&r);
    close(fd);
    /* the stop flag ends an input that would wait forever */
    int p[2];
    REQUIRE(pipe(p) == 0);
    static volatile sig_atomic_t stop = 1;
    REQUIRE(lines_init(&r, p[0], 100));
    r.stop = &stop;
    EXPECT_EQ(lines_next(&r, &l), LINES_END);
    EXPECT(!r.failed);
    lines_fini(&r);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    RUN(test_arena_alloc);
    RUN(test_arena_marks);
    RUN(test_arena_limit);
    RUN(test_arena_cleanups_and_grow);
    RUN(test_utf8_round_trip);
    RUN(test_utf8_invalid);
    RUN(test_utf8_against_definition);
    RUN(test_buf);
    RUN(test_lines);
    RUN(test_lines_reader);
    RUN(test_lines_long_and_blocks);
    RUN(test_lines_errors_and_stop);
    return test_done();
}
