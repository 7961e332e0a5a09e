/* pyfmt.h - numbers and JSON text byte-identical to Python: repr(float),
 * str(int), json.dumps(...) and msgspec.json.encode(...), for the template
 * engine's `{{ x }}` and `tojson` and the upstream fallback's serializer.
 * Depends on base/ and json/json.h. */

/* Everything here is pure: no global state, no locale, safe from any
 * thread and across fork. Output goes to a `buf`; when the buf's allocation
 * fails its `failed` flag is set and the text is incomplete (see buf.h). */
#ifndef TALLY_PYFMT_H
#define TALLY_PYFMT_H

#include "json.h"

enum {
    PYFMT_FLOAT_MAX = 32,           /* bytes of the longest float text (24 used) */
    PYFMT_INT_MAX_DIGITS = 4300,    /* Python's default sys.get_int_max_str_digits() */
    PYFMT_MAX_DEPTH = 1000,         /* json.dumps raises RecursionError near here */
};

/* ---- floats ------------------------------------------------------------ */

/* The shortest decimal that reads back as x (the digits of Python's repr,
 * float_repr_style 'short'): |x| == digits * 10^exp after rounding to the
 * nearest double, digits has no trailing zeros, and among the shortest such
 * decimals it is the one nearest to x. Returns false (and leaves *d alone)
 * for zero, infinities and NaN, which have no digits. */
typedef struct {
    u64 digits;     /* 1 .. 10^17 - 1 */
    int exp;
    int ndigits;    /* decimal digits in `digits`, 1..17 */
} pyfmt_dec;

bool pyfmt_shortest(double x, pyfmt_dec *d);

typedef enum {
    PYFMT_REPR,     /* repr(x) = str(x): 0.1, 1e-05, 1e+16, -0.0, inf, nan */
    PYFMT_JSON,     /* json.dumps(x): as repr but Infinity, -Infinity, NaN */
    PYFMT_MSGSPEC,  /* msgspec.json.encode(x): 1e-05 -> 0.00001, 1e16, null */
} pyfmt_style;

/* Writes x in `style` to out (not NUL-terminated), returns the length.
 *
 * repr and json (CPython Python/pystrtod.c, format_float_short with mode
 * 'r' and Py_DTSF_ADD_DOT_0): let e be the decimal exponent of the leading
 * digit. If e < -4 or e >= 16: d[.ddd]e<sign><at least two digits>
 * (1e-05, 1.5e+300, 5e-324). Otherwise fixed notation with at least one
 * digit after the point (0.0001, 0.1, 100.0, 1234567890123456.8).
 *
 * msgspec (jcrist/msgspec src/msgspec/ryu.h, write_f64; the same layout
 * since the JSON encoder appeared in 2021): the same shortest digits
 * (Ryu), plain decimal when -5 <= e <= 15 (0.00001, 100.0,
 * 1000000000000000.0), else d[.ddd]e<exp> with a bare exponent: no '+',
 * no zero padding (1e-6, 1e16, 2.5e-8, 1.5e300). Zero is 0.0 / -0.0, and
 * msgspec.json writes every infinity and NaN as null (json_encode_float
 * passes allow_nonfinite=false; documented in docs/supported-types.rst). */
int pyfmt_float_to(char out[PYFMT_FLOAT_MAX], double x, pyfmt_style style);

void pyfmt_float_repr(buf *out, double x);
void pyfmt_float_json(buf *out, double x);
void pyfmt_float_msgspec(buf *out, double x);

/* ---- integers ---------------------------------------------------------- */

/* str(v) for an int. */
void pyfmt_int(buf *out, i64 v);

/* str(int(text)) for an integer of any size given as decimal text:
 * an optional '+' or '-' and one or more ASCII digits, nothing else.
 * Leading zeros go, "-0" becomes "0". Returns false and writes nothing
 * when the text is not of that form, or has more than
 * PYFMT_INT_MAX_DIGITS digits (counting leading zeros), where Python's
 * int() raises ValueError. */
bool pyfmt_int_text(buf *out, str text);

/* ---- JSON -------------------------------------------------------------- */

/* A string as json.dumps writes it. Always: \" \\ \n \r \t \b \f, the
 * other characters below U+0020 as \u00XX (lowercase hex); '/' is never
 * escaped. ensure_ascii=false leaves everything else raw, DEL and
 * U+2028/U+2029 included (this is also msgspec's escaping).
 * ensure_ascii=true escapes DEL and every non-ASCII character as \uXXXX,
 * above U+FFFF as a surrogate pair (\ud83d\ude00).
 * `s` should be valid UTF-8 (json strings are). An invalid byte is copied
 * as is when ensure_ascii is false and written as \ufffd when true; either
 * way nothing outside `s` is read. */
void pyfmt_json_str(buf *out, str s, bool ensure_ascii);

typedef enum {
    PYFMT_INDENT_NONE,    /* indent=None: one line */
    PYFMT_INDENT_SPACES,  /* indent=n: n spaces per level (n <= 0: newlines only) */
    PYFMT_INDENT_STR,     /* indent='...': that string per level */
} pyfmt_indent;

/* json.dumps(x, ensure_ascii=, indent=, separators=, sort_keys=).
 * A zeroed struct is json.dumps(x, ensure_ascii=False), the default of the
 * `tojson` filter transformers installs for chat templates, which is NOT
 * json.dumps's own default: set ensure_ascii for that.
 *
 * Python's defaults for separators: (", ", ": ") without indent, and
 * (",", ": ") with indent (so no trailing spaces). Explicit separators are
 * used as given, also with indent.
 *
 * With `msgspec` set the layout is msgspec.json.encode(x) instead: compact
 * ("," and ":"), keys in insertion order, msgspec floats, non-ASCII raw;
 * indent, separators and ensure_ascii are ignored, and sort_keys means
 * order="sorted" (which sorts the same way). */
typedef struct {
    pyfmt_indent indent;
    int  indent_spaces;   /* for PYFMT_INDENT_SPACES */
    str  indent_str;      /* for PYFMT_INDENT_STR */
    bool separators;      /* use item_sep and key_sep instead of the defaults */
    str  item_sep, key_sep;
    bool sort_keys;
    bool ensure_ascii;
    bool msgspec;
    iz   max_out;         /* fail with ERR_LIMIT once the output passes this many
                           * bytes (checked after each value and indentation
                           * chunk, so it may overshoot by one string or
                           * number); 0 = none */
} pyfmt_dumps_opts;

/* Appends the JSON text of v to out. The value is what json.loads would
 * have made of it: ints print as ints (big ones from their text), floats
 * from their double (1.50 prints 1.5, 1e400 prints Infinity), and an
 * object with a repeated key prints that key once, at its first position,
 * with its last value (Python's dict). sort_keys orders keys by code point
 * (= UTF-8 byte order).
 *
 * Returns true on success. Returns false and fills `e` (may be NULL) when
 * Python would have failed too or a limit is hit: an integer of more than
 * PYFMT_INT_MAX_DIGITS digits (ERR_LIMIT), nesting deeper than
 * PYFMT_MAX_DEPTH (ERR_LIMIT), output past max_out (ERR_LIMIT), or out of
 * memory (ERR_NOMEM, also when out->failed). On failure out holds a
 * partial text; truncate it to its old length if needed.
 *
 * `scratch` holds the key-order arrays of objects with sort_keys or a
 * repeated-key check (objects of more than a few members); it is restored
 * before returning. NULL uses a private arena freed before returning. If
 * scratch->oom is set, running out there jumps to it as usual. */
bool pyfmt_json_dumps(buf *out, const json *v, const pyfmt_dumps_opts *o,
                      arena *scratch, err *e);

#endif
