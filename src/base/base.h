/* base.h - fixed-width types, slices and small macros shared by every module.
 * This is the bottom of the dependency graph: it includes only libc headers. */
#ifndef TALLY_BASE_H
#define TALLY_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

typedef uint8_t   u8;
typedef uint16_t  u16;
typedef int32_t   i32;
typedef uint32_t  u32;
typedef int64_t   i64;
typedef uint64_t  u64;
typedef ptrdiff_t iz;   /* signed sizes everywhere inside; size_t only at libc calls */

#define countof(a)   ((iz)(sizeof(a) / sizeof(*(a))))
#define lengthof(s)  (countof(s) - 1)
#define MIN(a, b)    ((a) < (b) ? (a) : (b))
#define MAX(a, b)    ((a) > (b) ? (a) : (b))

#if defined(__GNUC__)
#  define likely(x)   __builtin_expect(!!(x), 1)
#  define unlikely(x) __builtin_expect(!!(x), 0)
#  define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#  define ALWAYS_INLINE inline __attribute__((always_inline))
#  define NOINLINE __attribute__((noinline))
#  define PREFETCH(p) __builtin_prefetch(p)
#else
#  define likely(x)   (x)
#  define unlikely(x) (x)
#  define PRINTF_LIKE(f, a)
#  define ALWAYS_INLINE inline
#  define NOINLINE
#  define PREFETCH(p) ((void)(p))
#endif

/* A string is a slice: pointer plus length, not NUL-terminated. The bytes
 * belong to whoever owns the memory the pointer points into. */
typedef struct {
    const u8 *s;
    iz        len;
} str;

#define S(lit) ((str){(const u8 *)(lit), lengthof(lit)})

static inline str str_from(const void *p, iz len) { return (str){(const u8 *)p, len}; }
static inline str str_cstr(const char *c) { return (str){(const u8 *)c, (iz)strlen(c)}; }
static inline bool str_eq(str a, str b)
{
    if (a.len != b.len)
        return false;
    /* Short strings (names, keys, roles) compare inline: two overlapping
     * 8-byte (or 4-byte) loads instead of a call. */
    if (a.len >= 8 && a.len <= 16) {
        uint64_t x0, y0, x1, y1;
        memcpy(&x0, a.s, 8); memcpy(&y0, b.s, 8);
        memcpy(&x1, a.s + a.len - 8, 8); memcpy(&y1, b.s + b.len - 8, 8);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (a.len > 16 && a.len <= 32) {   /* "reasoning_content": the first and last 16 */
        uint64_t x0, y0, x1, y1, x2, y2, x3, y3;
        memcpy(&x0, a.s, 8); memcpy(&y0, b.s, 8);
        memcpy(&x1, a.s + 8, 8); memcpy(&y1, b.s + 8, 8);
        memcpy(&x2, a.s + a.len - 16, 8); memcpy(&y2, b.s + b.len - 16, 8);
        memcpy(&x3, a.s + a.len - 8, 8); memcpy(&y3, b.s + b.len - 8, 8);
        return ((x0 ^ y0) | (x1 ^ y1) | (x2 ^ y2) | (x3 ^ y3)) == 0;
    }
    if (a.len >= 4 && a.len < 8) {
        uint32_t x0, y0, x1, y1;
        memcpy(&x0, a.s, 4); memcpy(&y0, b.s, 4);
        memcpy(&x1, a.s + a.len - 4, 4); memcpy(&y1, b.s + b.len - 4, 4);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (a.len < 4) {
        for (iz i = 0; i < a.len; i++)
            if (a.s[i] != b.s[i])
                return false;
        return true;
    }
    return memcmp(a.s, b.s, (size_t)a.len) == 0;
}
static inline str str_cut(str a, iz beg, iz end) { return (str){a.s + beg, end - beg}; }

/* Programmer errors only, never input bytes. On in debug and test builds. */
#ifdef TALLY_DEBUG
#  define ASSERT(c) do { if (!(c)) __builtin_trap(); } while (0)
#else
#  define ASSERT(c) ((void)0)
#endif

#endif
