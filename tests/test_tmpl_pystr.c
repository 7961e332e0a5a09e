/* test_tmpl_pystr.c - Python str semantics (src/tmpl/tmpl_pystr.h) against
 * Python 3.11 itself: every code point's predicates and case mappings
 * (tests/data/tmpl_methods/ucd.jsonl) and string operations on chosen and
 * random strings (pystr.jsonl), both made by gen_pystr.py there. */
#include "test.h"
#include "test_util.h"
#include "../src/base/os.h"
#include "../src/base/utf8.h"
#include "../src/json/json.h"
#include "../src/tmpl/tmpl_pystr.h"

#define DATA "tests/data/tmpl_methods/"

static arena A;   /* data files and long-lived tables */
static arena T;   /* results of one case, reset after each */

/* The lines of a JSON lines file, parsed into the test arena. */
static int reported;
static void report(const char *what, u32 cp, str got, str want)
{
    if (reported++ < 20)
        printf("#   %s U+%04X: got \"%.*s\" want \"%.*s\"\n", what, cp, (int)got.len,
               (const char *)got.s, (int)want.len, (const char *)want.s);
}

static str one_char(u8 tmp[4], u32 c)
{
    return str_from(tmp, utf8_encode(c, tmp));
}

/* ---- every code point ---------------------------------------------------- */

/* The predicate `name` of code point c, asked both ways where both exist:
 * the per-code-point function (*per) and pystr_is of the one-character
 * string (*whole). Each is -1 where it does not exist; returns false for
 * an unknown name. */
static bool pred_of(const char *name, u32 c, int *per, int *whole)
{
    static const struct { const char *name; bool (*fn)(u32); int cls; } P[] = {
        {"isspace", pystr_isspace, PYSTR_SPACE}, {"isalpha", pystr_isalpha, PYSTR_ALPHA},
        {"isalnum", pystr_isalnum, PYSTR_ALNUM}, {"isdecimal", pystr_isdecimal, PYSTR_DECIMAL},
        {"isdigit", pystr_isdigit, PYSTR_DIGIT}, {"isnumeric", pystr_isnumeric, PYSTR_NUMERIC},
        {"isprintable", pystr_isprintable, PYSTR_PRINTABLE}, {"isword", pystr_isword, -1},
        {"islower", NULL, PYSTR_LOWER}, {"isupper", NULL, PYSTR_UPPER},
        {"istitle", NULL, PYSTR_TITLE}, {"isidentifier", NULL, PYSTR_IDENTIFIER},
        {"isascii", NULL, PYSTR_ASCII},
    };
    for (iz k = 0; k < countof(P); k++) {
        if (strcmp(name, P[k].name))
            continue;
        u8 tmp[4];
        *per = P[k].fn ? P[k].fn(c) : -1;
        *whole = P[k].cls >= 0 ? pystr_is(one_char(tmp, c), (pystr_class)P[k].cls) : -1;
        return true;
    }
    return false;
}

static json **ucd;
static iz nucd;

static void test_predicates_every_code_point(void)
{
    REQUIRE(nucd > 0);
    u8 *want = NEW(&A, u8, 0x110000);
    int preds = 0;
    for (iz k = 0; k < nucd; k++) {
        const json *name = json_get_type(ucd[k], S("pred"), JSON_STR);
        if (!name)
            continue;
        char cname[32];
        snprintf(cname, sizeof(cname), "%.*s", (int)name->u.s.len, (const char *)name->u.s.s);
        const json *rs = json_get_type(ucd[k], S("ranges"), JSON_ARR);
        REQUIRE(rs);
        memset(want, 0, 0x110000);
        for (iz r = 0; r < rs->u.arr.n; r++) {
            const json *p = &rs->u.arr.items[r];
            for (i64 c = p->u.arr.items[0].u.i; c < p->u.arr.items[1].u.i; c++)
                want[c] = 1;
        }
        int per, whole;
        REQUIRE(pred_of(cname, 'a', &per, &whole));
        preds++;
        iz bad = 0;
        for (u32 c = 0; c < 0x110000; c++) {
            if (c == 0xd800)
                c = 0xe000;
            pred_of(cname, c, &per, &whole);
            if ((per >= 0 && per != want[c]) || (whole >= 0 && whole != want[c])) {
                if (bad++ < 5)
                    printf("#   %s(U+%04X): got %d (code point) %d (string), want %d\n", cname, c,
                           per, whole, want[c]);
            }
        }
        EXPECT_EQ(bad, 0);
    }
    EXPECT_EQ(preds, 13);
}

static str apply_map(arena *a, const char *k, str s)
{
    if (!strcmp(k, "lower"))      return pystr_lower(a, s);
    if (!strcmp(k, "upper"))      return pystr_upper(a, s);
    if (!strcmp(k, "title"))      return pystr_title(a, s);
    if (!strcmp(k, "capitalize")) return pystr_capitalize(a, s);
    if (!strcmp(k, "swapcase"))   return pystr_swapcase(a, s);
    return pystr_casefold(a, s);
}

static void test_mappings_every_code_point(void)
{
    REQUIRE(nucd > 0);
    static const char *const maps[] = {"lower", "upper", "title", "capitalize", "swapcase", "casefold"};
    /* Expected results by code point; absent means unchanged. */
    const json **by_cp = NEW(&A, const json *, 0x110000);
    iz listed = 0;
    for (iz k = 0; k < nucd; k++) {
        const json *cp = json_get_type(ucd[k], S("cp"), JSON_INT);
        if (cp) {
            by_cp[cp->u.i] = ucd[k];
            listed++;
        }
    }
    EXPECT(listed > 2800);
    iz bad = 0;
    arena_mark m = arena_reserve(&T, 1 << 16);
    for (u32 c = 0; c < 0x110000; c++) {
        if (c == 0xd800)
            c = 0xe000;
        u8 tmp[4];
        str s = one_char(tmp, c);
        for (int k = 0; k < countof(maps); k++) {
            const json *w = by_cp[c] ? json_get_type(by_cp[c], str_cstr(maps[k]), JSON_STR) : NULL;
            str want = w ? w->u.s : s;
            str got = apply_map(&T, maps[k], s);
            if (!str_eq(got, want)) {
                bad++;
                report(maps[k], c, got, want);
            }
        }
        arena_restore(&T, m);
    }
    EXPECT_EQ(bad, 0);
}

/* ---- string operations --------------------------------------------------- */

static bool want_list(const json *r, const str *got, iz n)
{
    if (!json_is(r, JSON_ARR) || r->u.arr.n != n)
        return false;
    for (iz i = 0; i < n; i++)
        if (!str_eq(r->u.arr.items[i].u.s, got[i]))
            return false;
    return true;
}

static void show_list(const str *v, iz n)
{
    printf("#     got [");
    for (iz i = 0; i < n; i++)
        printf("%s\"%.*s\"", i ? ", " : "", (int)v[i].len, (const char *)v[i].s);
    printf("]\n");
}

static const struct { const char *name; pystr_class cls; } CLASSES[] = {
    {"isalnum", PYSTR_ALNUM}, {"isalpha", PYSTR_ALPHA}, {"isascii", PYSTR_ASCII},
    {"isdecimal", PYSTR_DECIMAL}, {"isdigit", PYSTR_DIGIT}, {"isidentifier", PYSTR_IDENTIFIER},
    {"islower", PYSTR_LOWER}, {"isnumeric", PYSTR_NUMERIC}, {"isprintable", PYSTR_PRINTABLE},
    {"isspace", PYSTR_SPACE}, {"istitle", PYSTR_TITLE}, {"isupper", PYSTR_UPPER},
};

static u32 first_cp(str s)
{
    iz i = 0;
    return utf8_next(s.s, &i);
}

/* A copy of s in a heap block of exactly its size, so that AddressSanitizer
 * sees any read past its end. */
static str heap_copy(str s, void **block)
{
    u8 *p = malloc((size_t)s.len + (s.len == 0));
    if (s.len)
        memcpy(p, s.s, (size_t)s.len);
    *block = p;
    return (str){p, s.len};
}

/* Runs one case on s (the case's string); returns false (and prints) when
 * it differs. Unknown ops count as failures. */
static bool run_case_on(const json *c, str op, str s, str a0, str a1, iz *ops_seen)
{
    const json *args = json_get_type(c, S("a"), JSON_ARR);
    const json *a = args->u.arr.items;
    const json *r = json_get(c, S("r"));
    str got = {0};
    bool is_str = false, ok;
    iz num = 0;
    bool is_num = false;
    str *parts = NULL;
    iz np = -1;
    ++*ops_seen;
    if (str_eq(op, S("len"))) {
        num = pystr_len(s), is_num = true;
    } else if (str_eq(op, S("offset"))) {
        num = pystr_offset(s, a[0].u.i), is_num = true;
    } else if (str_eq(op, S("lower")) || str_eq(op, S("upper")) || str_eq(op, S("title")) ||
               str_eq(op, S("capitalize")) || str_eq(op, S("swapcase")) || str_eq(op, S("casefold"))) {
        char k[16];
        snprintf(k, sizeof(k), "%.*s", (int)op.len, (const char *)op.s);
        got = apply_map(&T, k, s), is_str = true;
    } else if (str_eq(op, S("repr"))) {
        got = pystr_repr(&T, s), is_str = true;
    } else if (str_eq(op, S("strip")) || str_eq(op, S("lstrip")) || str_eq(op, S("rstrip"))) {
        int sides = op.s[0] == 'l' ? PYSTR_LEFT : op.s[0] == 'r' ? PYSTR_RIGHT : PYSTR_BOTH;
        got = pystr_strip(s, a[0].type == JSON_NULL ? NULL : &a0, sides), is_str = true;
    } else if (str_eq(op, S("find"))) {
        num = pystr_find(s, a0, a[1].u.i, a[2].u.i), is_num = true;
    } else if (str_eq(op, S("rfind"))) {
        num = pystr_rfind(s, a0, a[1].u.i, a[2].u.i), is_num = true;
    } else if (str_eq(op, S("count"))) {
        num = pystr_count(s, a0, a[1].u.i, a[2].u.i), is_num = true;
    } else if (str_eq(op, S("replace"))) {
        got = pystr_replace(&T, s, a0, a1, a[2].u.i), is_str = true;
    } else if (str_eq(op, S("split"))) {
        np = pystr_split(&T, s, a[0].type == JSON_NULL ? NULL : &a0, a[1].u.i, &parts);
    } else if (str_eq(op, S("rsplit"))) {
        np = pystr_rsplit(&T, s, a[0].type == JSON_NULL ? NULL : &a0, a[1].u.i, &parts);
    } else if (str_eq(op, S("splitlines"))) {
        np = pystr_splitlines(&T, s, a[0].u.b, &parts);
    } else if (str_eq(op, S("center"))) {
        got = pystr_center(&T, s, a[0].u.i, first_cp(a1)), is_str = true;
    } else if (str_eq(op, S("ljust"))) {
        got = pystr_ljust(&T, s, a[0].u.i, first_cp(a1)), is_str = true;
    } else if (str_eq(op, S("rjust"))) {
        got = pystr_rjust(&T, s, a[0].u.i, first_cp(a1)), is_str = true;
    } else if (str_eq(op, S("zfill"))) {
        got = pystr_zfill(&T, s, a[0].u.i), is_str = true;
    } else if (str_eq(op, S("expandtabs"))) {
        got = pystr_expandtabs(&T, s, a[0].u.i), is_str = true;
    } else {
        iz k = 0;
        while (k < countof(CLASSES) && !str_eq(op, str_cstr(CLASSES[k].name)))
            k++;
        if (k == countof(CLASSES)) {
            printf("#   unknown op %.*s\n", (int)op.len, (const char *)op.s);
            --*ops_seen;
            return false;
        }
        bool b = pystr_is(s, CLASSES[k].cls);
        ok = json_is(r, JSON_BOOL) && r->u.b == b;
        if (!ok && reported++ < 20)
            printf("#   %.*s(\"%.*s\"): got %d\n", (int)op.len, (const char *)op.s, (int)s.len,
                   (const char *)s.s, b);
        return ok;
    }
    if (is_str)
        ok = json_is(r, JSON_STR) && str_eq(r->u.s, got);
    else if (is_num)
        ok = json_is(r, JSON_INT) && r->u.i == num;
    else
        ok = want_list(r, parts, np);
    if (!ok && reported++ < 20) {
        buf b = {0};
        json_write(&b, c);
        printf("#   case %.*s\n", (int)b.len, (const char *)b.data);
        buf_free(&b);
        if (is_str)
            printf("#     got \"%.*s\"\n", (int)got.len, (const char *)got.s);
        else if (is_num)
            printf("#     got %td\n", num);
        else
            show_list(parts, np);
    }
    return ok;
}

static bool run_case(const json *c, iz *ops_seen)
{
    str op = json_get_type(c, S("op"), JSON_STR)->u.s;
    const json *args = json_get_type(c, S("a"), JSON_ARR);
    void *block[3];
    str s = heap_copy(json_get_type(c, S("s"), JSON_STR)->u.s, &block[0]);
    str a0 = heap_copy(args->u.arr.n > 0 && args->u.arr.items[0].type == JSON_STR
                           ? args->u.arr.items[0].u.s : S(""), &block[1]);
    str a1 = heap_copy(args->u.arr.n > 1 && args->u.arr.items[1].type == JSON_STR
                           ? args->u.arr.items[1].u.s : S(""), &block[2]);
    bool ok = run_case_on(c, op, s, a0, a1, ops_seen);
    for (int i = 0; i < 3; i++)
        free(block[i]);
    return ok;
}

static void test_string_operations(void)
{
    json **cases;
    iz n = test_read_jsonl(&A, DATA "pystr.jsonl", &cases);
    REQUIRE(n > 10000);
    iz bad = 0, seen = 0;
    arena_mark m = arena_reserve(&T, 1 << 16);
    for (iz i = 0; i < n; i++) {
        if (!run_case(cases[i], &seen))
            bad++;
        arena_restore(&T, m);
    }
    printf("#   %td string cases\n", seen);
    EXPECT_EQ(seen, n);
    EXPECT_EQ(bad, 0);
}

/* ---- properties that need no reference ----------------------------------- */

static void test_results_are_slices_or_arena(void)
{
    /* Unchanged ASCII strings come back as themselves (no copy). */
    str s = S("hello world");
    EXPECT(pystr_lower(&A, s).s == s.s);
    EXPECT(pystr_expandtabs(&A, s, 8).s == s.s);
    str t = pystr_strip(S("  x  "), NULL, PYSTR_BOTH);
    EXPECT_STR(t, S("x"));
    /* Empty inputs. */
    EXPECT_EQ(pystr_len(S("")), 0);
    EXPECT_STR(pystr_upper(&A, S("")), S(""));
    EXPECT_STR(pystr_repr(&A, S("")), S("''"));
    str *parts;
    EXPECT_EQ(pystr_split(&A, S(""), NULL, -1, &parts), 0);
    EXPECT_EQ(pystr_splitlines(&A, S(""), false, &parts), 0);
}

int main(void)
{
    arena_init(&A, 0);
    arena_init(&T, 0);
    nucd = test_read_jsonl(&A, DATA "ucd.jsonl", &ucd);
    RUN(test_predicates_every_code_point);
    RUN(test_mappings_every_code_point);
    RUN(test_string_operations);
    RUN(test_results_are_slices_or_arena);
    arena_fini(&T);
    arena_fini(&A);
    return test_done();
}
