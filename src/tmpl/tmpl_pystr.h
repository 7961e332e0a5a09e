/* tmpl_pystr.h - Python 3 str semantics on UTF-8 slices: case mapping,
 * character classes, stripping, searching and splitting exactly as
 * CPython's str methods do them (the reference renders with Python 3.11).
 * Used by the value model, the str methods, the filters and formatting.
 * Depends on base/ only (its Unicode tables, tmpl_pystr_tables.h, are
 * generated from Python's own str methods by tools/tmpl/pystr_tables.py).
 * Inputs are valid UTF-8; results that are
 * new strings go into the arena `a` (out of memory jumps to a->oom as
 * usual); results that are parts of the input are slices of it. Indexes
 * and counts are in code points where Python's are, bytes where named so. */
#ifndef TALLY_TMPL_PYSTR_H
#define TALLY_TMPL_PYSTR_H

#include "../base/arena.h"

/* Number of code points. */
iz pystr_len(str s);
/* Byte offset of code point index i (0 <= i <= pystr_len(s)). */
iz pystr_offset(str s, iz i);

/* Python's character predicates on one code point (str.isspace() of a
 * one-character string, and so on; `\w` of re is pystr_isword). */
bool pystr_isspace(u32 c);
bool pystr_isalnum(u32 c);
bool pystr_isalpha(u32 c);
bool pystr_isdecimal(u32 c);
bool pystr_isdigit(u32 c);
bool pystr_isnumeric(u32 c);
bool pystr_isprintable(u32 c);   /* what repr() leaves unescaped */
bool pystr_isword(u32 c);        /* re's \w for str patterns: isalnum or '_' */

/* Whole-string predicates as the str methods (false for "", except
 * isascii and isprintable, true for "" as in Python). */
typedef enum pystr_class {
    PYSTR_ALNUM, PYSTR_ALPHA, PYSTR_ASCII, PYSTR_DECIMAL, PYSTR_DIGIT,
    PYSTR_IDENTIFIER, PYSTR_LOWER, PYSTR_NUMERIC, PYSTR_PRINTABLE,
    PYSTR_SPACE, PYSTR_TITLE, PYSTR_UPPER,
} pystr_class;
bool pystr_is(str s, pystr_class cls);

/* Case mapping with Python's full mappings ('ß'.upper() == 'SS'). */
str pystr_upper(arena *a, str s);
str pystr_lower(arena *a, str s);
str pystr_casefold(arena *a, str s);
str pystr_swapcase(arena *a, str s);
str pystr_title(arena *a, str s);       /* str.title() */
str pystr_capitalize(arena *a, str s);  /* str.capitalize() */

/* strip/lstrip/rstrip: without chars (chars == NULL) Python whitespace,
 * else any code point of *chars. */
enum { PYSTR_LEFT = 1, PYSTR_RIGHT = 2, PYSTR_BOTH = 3 };
str pystr_strip(str s, const str *chars, int sides);

/* find/rfind/count of sub in s[start:end] (code point indexes, already
 * clamped like Python's slice indexes: 0 <= start, end <= len). find and
 * rfind return a code point index or -1. */
iz pystr_find(str s, str sub, iz start, iz end);
iz pystr_rfind(str s, str sub, iz start, iz end);
iz pystr_count(str s, str sub, iz start, iz end);
/* s.replace(old, new, count) (count < 0: all). */
str pystr_replace(arena *a, str s, str old, str rep, iz count);

/* s.split(sep, maxsplit) / s.rsplit(...): sep NULL splits on runs of
 * whitespace and drops empty ends, as Python. maxsplit < 0: no limit.
 * Returns the number of parts and *parts (in the arena), in order.
 * An empty sep is the caller's ValueError. */
iz pystr_split(arena *a, str s, const str *sep, iz maxsplit, str **parts);
iz pystr_rsplit(arena *a, str s, const str *sep, iz maxsplit, str **parts);
/* s.splitlines(keepends) with Python's line boundaries. */
iz pystr_splitlines(arena *a, str s, bool keepends, str **parts);

/* center/ljust/rjust/zfill to `width` code points with one fill code
 * point; expandtabs(tabsize). */
str pystr_center(arena *a, str s, iz width, u32 fill);
str pystr_ljust(arena *a, str s, iz width, u32 fill);
str pystr_rjust(arena *a, str s, iz width, u32 fill);
str pystr_zfill(arena *a, str s, iz width);
str pystr_expandtabs(arena *a, str s, iz tabsize);

/* repr() of a string: quotes as Python picks them, escapes as Python
 * writes them (\n \t \r \\ \' \xNN \uNNNN \UNNNNNNNN for non-printables).
 * Appended into the arena. */
str pystr_repr(arena *a, str s);

#endif
