/* report_num.h - Python's int and float as upstream's metrics/report.py
 * computes with them: ints of any size (json.loads makes them from the
 * snapshot's digits), int / int true division and float(int) correctly
 * rounded, exact comparison between an int and a float, int(float), and
 * the exceptions Python raises on the way. Internal to src/agg/report.c.
 * Depends on base/ and json/pyfmt.h.
 *
 * Values live in an arena (ints' limbs); every operation that can run out
 * of memory allocates there, so it jumps to a->oom as usual. Pure and
 * thread-safe otherwise. */
#ifndef TALLY_AGG_REPORT_NUM_H
#define TALLY_AGG_REPORT_NUM_H

#include "../base/arena.h"
#include "../base/buf.h"

enum {
    RNUM_MAX_DIGITS = 4300,   /* sys.get_int_max_str_digits(): json.loads and str(int) refuse more */
};

/* A Python int (any size) or float. bool is not a kind of its own: in
 * arithmetic True and False are the ints 1 and 0, and that is all this
 * layer sees of them. */
typedef struct rnum {
    bool       is_float;
    int8_t         sign;     /* ints: -1, 0 or 1 */
    iz         n;        /* ints: limbs in d (0 for zero) */
    const u32 *d;        /* ints: the magnitude, least significant limb first, d[n-1] != 0 */
    double     f;        /* floats */
} rnum;

/* What Python would raise instead of giving a result. */
typedef enum rnum_exc {
    RNUM_OK = 0,
    RNUM_INT_TOO_LARGE,      /* OverflowError: int too large to convert to float */
    RNUM_DIV_TOO_LARGE,      /* OverflowError: integer division result too large for a float */
    RNUM_ZERO_DIVISION,      /* ZeroDivisionError */
    RNUM_NAN_TO_INT,         /* ValueError: cannot convert float NaN to integer */
    RNUM_INF_TO_INT,         /* OverflowError: cannot convert float infinity to integer */
    RNUM_DOMAIN,             /* ValueError: math domain error */
} rnum_exc;

/* "OverflowError: int too large to convert to float", ... */
const char *rnum_exc_text(rnum_exc x);

rnum rnum_int(arena *a, i64 v);
static inline rnum rnum_float(double f) { return (rnum){.is_float = true, .f = f}; }
/* An int from decimal text: an optional '-' and one or more ASCII digits.
 * false when the text is not of that form or has more than
 * RNUM_MAX_DIGITS digits (json.loads raises ValueError then). */
bool rnum_parse(arena *a, str text, rnum *out);

/* a + b, a - b, a * b: ints give ints; a float on either side makes the
 * other a float first (float(int), which can raise), then IEEE
 * arithmetic (overflow gives inf, never an exception). */
rnum_exc rnum_add(arena *a, const rnum *x, const rnum *y, rnum *out);
rnum_exc rnum_sub(arena *a, const rnum *x, const rnum *y, rnum *out);
rnum_exc rnum_mul(arena *a, const rnum *x, const rnum *y, rnum *out);
/* x / y, always a float: int / int is the correctly rounded quotient
 * (CPython's long_true_divide); with a float, float(int) first. A zero
 * divisor raises ZeroDivisionError, for floats too. */
rnum_exc rnum_div(arena *a, const rnum *x, const rnum *y, rnum *out);
/* math.sqrt(x): float(x) first; negative raises ValueError. */
rnum_exc rnum_sqrt(const rnum *x, double *out);
/* float(x), correctly rounded (ties to even). */
rnum_exc rnum_to_double(const rnum *x, double *out);
/* int(x): ints as they are, floats truncated toward zero. */
rnum_exc rnum_to_int(arena *a, const rnum *x, rnum *out);

enum { RNUM_UNORDERED = 2 };
/* -1, 0 or 1 as x <, == or > y, exactly (2**53 + 1 > 2.0**53), or
 * RNUM_UNORDERED when either is a NaN. */
int rnum_cmp(arena *a, const rnum *x, const rnum *y);
bool rnum_is_zero(const rnum *x);

/* str(x): an int in decimal, a float as repr (scratch in `a`). */
void rnum_write(arena *a, buf *out, const rnum *x);

#endif
