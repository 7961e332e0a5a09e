/* test_util.h - helpers shared by the data-driven tests: environment
 * switches, subset lists, splitting a file into lines, reading a JSON-lines
 * file into trees. Everything lives in the arena the caller passes. */
#ifndef TALLY_TEST_UTIL_H
#define TALLY_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/json/json.h"

/* $name, or `def` when unset or empty. */
static inline const char *test_env_or(const char *name, const char *def)
{
    const char *v = getenv(name);
    return v && *v ? v : def;
}

/* Whether `name` is in the comma-separated list (a NULL list has all). */
static inline bool test_listed(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == n && !memcmp(p, name, n))
            return true;
        p += len + (q != NULL);
    }
    return false;
}

/* Splits s into lines, dropping empty ones (the last may lack its newline). */
static inline iz test_lines_of(arena *a, str s, str **out)
{
    iz n = 1;
    for (iz i = 0; i < s.len; i++)
        n += s.s[i] == '\n';
    str *v = NEW(a, str, n);
    iz k = 0, b = 0;
    for (iz i = 0; i <= s.len; i++)
        if (i == s.len || s.s[i] == '\n') {
            if (i > b)
                v[k++] = str_cut(s, b, i);
            b = i + 1;
        }
    *out = v;
    return k;
}

/* The non-empty lines of a JSON-lines file, parsed into `a`. Returns their
 * number, or -1 (after printing why) when the file cannot be read or a
 * line is not JSON. */
static inline iz test_read_jsonl(arena *a, const char *path, json ***out)
{
    err e;
    str src = os_read_file(a, path, &e);
    if (!src.s) {
        printf("#   cannot read %s: %s\n", path, e.msg);
        return -1;
    }
    str *lines;
    iz n = test_lines_of(a, src, &lines);
    json **v = NEW(a, json *, n + 1);
    for (iz k = 0; k < n; k++) {
        v[k] = json_parse(a, lines[k], NULL, &e);
        if (!v[k]) {
            printf("#   %s: bad line at byte %td: %s\n", path, lines[k].s - src.s, e.msg);
            return -1;
        }
    }
    *out = v;
    return n;
}

#endif
