/* test.h - the test harness: each tests/test_*.c is one binary whose main
 * calls RUN() per test; a test fails if any EXPECT in it fails. Output is
 * one "ok N - name" / "not ok N - name" line per test (TAP-like); tests/run.sh
 * adds them up. Failures print both sides. */
#ifndef TALLY_TEST_H
#define TALLY_TEST_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../src/base/base.h"
#include "../src/base/buf.h"

static int test_count, test_failed, test_cur_failed;

#define EXPECT(c) do { if (!(c)) { \
        printf("#   %s:%d: expected %s\n", __FILE__, __LINE__, #c); \
        test_cur_failed = 1; } } while (0)

#define EXPECT_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
        if (a_ != b_) { printf("#   %s:%d: %s == %s: %lld != %lld\n", \
            __FILE__, __LINE__, #a, #b, a_, b_); test_cur_failed = 1; } } while (0)

#define EXPECT_STR(a, b) do { str a_ = (a), b_ = (b); \
        if (!str_eq(a_, b_)) { printf("#   %s:%d: %s == %s:\n#     got      \"%.*s\"\n#     expected \"%.*s\"\n", \
            __FILE__, __LINE__, #a, #b, (int)a_.len, (const char *)a_.s, (int)b_.len, (const char *)b_.s); \
            test_cur_failed = 1; } } while (0)

/* Stops the current test (use after a failed precondition). */
#define REQUIRE(c) do { if (!(c)) { \
        printf("#   %s:%d: required %s\n", __FILE__, __LINE__, #c); \
        test_cur_failed = 1; return; } } while (0)

static inline void test_run(const char *name, void (*fn)(void))
{
    test_cur_failed = 0;
    fflush(stdout);
    fn();
    test_count++;
    if (test_cur_failed)
        test_failed++;
    printf("%s %d - %s\n", test_cur_failed ? "not ok" : "ok", test_count, name);
    fflush(stdout);
}

#define RUN(fn) test_run(#fn, fn)

/* The whole file at `path` as a malloc'd, NUL-terminated string (free it);
 * "" when it cannot be read. *len (may be NULL) gets its length. */
static inline char *test_slurp(const char *path, iz *len)
{
    buf b = {0};
    FILE *f = fopen(path, "rb");
    char chunk[65536];
    size_t n;
    while (f && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        buf_put(&b, chunk, (iz)n);
    if (f)
        fclose(f);
    if (len)
        *len = b.len;
    buf_byte(&b, 0);
    return (char *)b.data;
}

/* Sleeps ms milliseconds, through signals. */
static inline void test_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Whether s begins with p. */
static inline bool test_starts(str s, const char *p)
{
    size_t n = strlen(p);
    return (size_t)s.len >= n && memcmp(s.s, p, n) == 0;
}

static inline int test_done(void)
{
    printf("# %d tests, %d failed\n", test_count, test_failed);
    return test_failed ? 1 : 0;
}

#endif
