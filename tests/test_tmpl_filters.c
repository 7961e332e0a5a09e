/* test_tmpl_filters.c - Jinja2's built-in filters and tests
 * (src/tmpl/tmpl_filters.c: tmpl_filter_apply, tmpl_test_apply,
 * tv_write_json) against Jinja2 3.1.2 in the chat-template environment.
 * Every case of tests/data/tmpl_filters/cases.jsonl (written by gen.py
 * there, see its README) applies one filter or test to values read from
 * JSON and compares str() of the result, its type, the message of an
 * Undefined result, or the exception class and message.
 *
 * A case our code answers with ERR_UNSUPPORTED is not a pass: it counts as
 * a failure unless its filter is one of the documented gaps (GAPS below),
 * and those are listed in the output. */
#include <math.h>
#include <setjmp.h>
#include "test.h"
#include "../src/base/arena.h"
#include "../src/base/buf.h"
#include "../src/base/os.h"
#include "../src/json/json.h"
#include "../src/json/pyfmt.h"
#include "../src/tmpl/tmpl.h"
#include "../src/tmpl/tmpl_value.h"

#define CASES "tests/data/tmpl_filters/cases.jsonl"

/* `fmt % args` (tmpl_filters.c; to move to tmpl_value.h). */
tv tv_percent(tmpl_rt *rt, tv fmt, tv args);

/* Filters whose cases may be ERR_UNSUPPORTED (documented in
 * tmpl_filters.c and the README of the data). */
static const char *const GAPS[] = {
    "random", "urlize", "wordwrap", "striptags", "pprint", "attr", NULL,
};

static bool is_gap(str name)
{
    for (int i = 0; GAPS[i]; i++)
        if (str_eq(name, str_cstr(GAPS[i])))
            return true;
    return false;
}

/* ---- values from the JSON encoding of gen.py ------------------------------ */

static bool has_marker(const json *j)
{
    if (j->type == JSON_ARR) {
        for (iz i = 0; i < j->u.arr.n; i++)
            if (has_marker(&j->u.arr.items[i]))
                return true;
    } else if (j->type == JSON_OBJ) {
        for (iz i = 0; i < j->u.obj.n; i++) {
            str k = j->u.obj.members[i].key;
            if (k.len && k.s[0] == '$')
                return true;
            if (has_marker(&j->u.obj.members[i].val))
                return true;
        }
    }
    return false;
}

static const char *cstr(tmpl_rt *rt, str s)
{
    return (const char *)arena_strdup(rt->a, s).s;
}

static tv dec(tmpl_rt *rt, const json *j);

static tv dec_list(tmpl_rt *rt, const json *arr, bool tuple)
{
    iz n = arr->u.arr.n;
    tv l = tuple ? tv_tuple_new(rt, n) : tv_list_new(rt, n);
    for (iz i = 0; i < n; i++)
        l.u.list->v[i] = dec(rt, &arr->u.arr.items[i]);
    return l;
}

static tv dec(tmpl_rt *rt, const json *j)
{
    if (!has_marker(j))
        return tv_from_json(rt, j);   /* keeps `origin`: tojson's fast path */
    if (j->type == JSON_ARR)
        return dec_list(rt, j, false);
    if (j->u.obj.n == 1 && j->u.obj.members[0].key.len && j->u.obj.members[0].key.s[0] == '$') {
        str k = j->u.obj.members[0].key;
        const json *x = &j->u.obj.members[0].val;
        if (str_eq(k, S("$u")))
            return x->type == JSON_NULL ? tv_undef_plain() : tv_undef_name(rt, x->u.s);
        if (str_eq(k, S("$uh")))
            return tv_undef_hint(rt, "UndefinedError", cstr(rt, x->u.s));
        if (str_eq(k, S("$ua")))
            return tv_undef_attr(rt, dec(rt, &x->u.arr.items[0]), dec(rt, &x->u.arr.items[1]));
        if (str_eq(k, S("$t")))
            return dec_list(rt, x, true);
        if (str_eq(k, S("$m"))) {
            tv s = tv_str(x->u.s);
            s.flags = TVF_SAFE;
            return s;
        }
        if (str_eq(k, S("$f"))) {
            str f = x->u.s;
            return tv_float(str_eq(f, S("nan")) ? NAN : str_eq(f, S("inf")) ? INFINITY : -INFINITY);
        }
        if (str_eq(k, S("$d")) || str_eq(k, S("$ns"))) {
            tv d = tv_dict_new(rt, 4);
            if (str_eq(k, S("$d"))) {
                for (iz i = 0; i < x->u.arr.n; i++) {
                    const json *kv = &x->u.arr.items[i];
                    tv_dict_set(rt, d.u.dict, dec(rt, &kv->u.arr.items[0]), dec(rt, &kv->u.arr.items[1]));
                }
            } else {
                for (iz i = 0; i < x->u.obj.n; i++)
                    tv_dict_set(rt, d.u.dict, tv_str(x->u.obj.members[i].key),
                                dec(rt, &x->u.obj.members[i].val));
                d.kind = TV_NS;
            }
            return d;
        }
        if (str_eq(k, S("$fn"))) {
            static const struct { const char *name; int id; } fns[] = {
                {"range", TVFN_RANGE}, {"dict", TVFN_DICT}, {"lipsum", TVFN_LIPSUM},
                {"cycler", TVFN_CYCLER}, {"joiner", TVFN_JOINER}, {"namespace", TVFN_NAMESPACE},
            };
            for (iz i = 0; i < countof(fns); i++)
                if (str_eq(x->u.s, str_cstr(fns[i].name))) {
                    tv f = {.kind = TV_FUNC, .id = (u16)fns[i].id};
                    return f;
                }
        }
        printf("# unknown marker %.*s\n", (int)k.len, (const char *)k.s);
        exit(2);
    }
    tv d = tv_dict_new(rt, j->u.obj.n);
    for (iz i = 0; i < j->u.obj.n; i++)
        tv_dict_set(rt, d.u.dict, tv_str(j->u.obj.members[i].key), dec(rt, &j->u.obj.members[i].val));
    return d;
}

/* ---- running the cases ------------------------------------------------------ */

typedef struct stats {
    int total, pass, fail, gap;
} stats;

static str jstr(const json *c, const char *key)
{
    const json *v = json_get_type(c, str_cstr(key), JSON_STR);
    return v ? v->u.s : (str){0};
}

static void show_case(const json *c)
{
    buf b = {0};
    json_write(&b, c);
    printf("#     case %.*s\n", (int)MIN(b.len, 600), (const char *)b.data);
    buf_free(&b);
}

/* Runs one case; returns 1 pass, 0 fail, 2 documented gap. */
static int run_case(arena *a, const json *c, int *shown)
{
    volatile bool is_filter = str_eq(jstr(c, "kind"), S("filter"));
    str name = jstr(c, "name");
    jmp_buf jb;
    tmpl_rt rt = {.a = a, .jb = &jb};
    arena_mark mark = arena_save(a);
    tv result = {0};
    bool tresult = false;
    volatile int outcome = 0;
    buf got = {0};
    if (setjmp(jb) == 0) {
        tv x = dec(&rt, json_get(c, S("x")));
        const json *ja = json_get(c, S("a")), *jk = json_get(c, S("k"));
        tv *pos = NEW(a, tv, ja->u.arr.n + 1);
        for (iz i = 0; i < ja->u.arr.n; i++)
            pos[i] = dec(&rt, &ja->u.arr.items[i]);
        str *kwn = NEW(a, str, jk->u.obj.n + 1);
        tv *kwv = NEW(a, tv, jk->u.obj.n + 1);
        for (iz i = 0; i < jk->u.obj.n; i++) {
            kwn[i] = jk->u.obj.members[i].key;
            kwv[i] = dec(&rt, &jk->u.obj.members[i].val);
        }
        tv_args args = {pos, (i32)ja->u.arr.n, kwn, kwv, (i32)jk->u.obj.n};
        if (str_eq(jstr(c, "kind"), S("percent"))) {
            result = tv_percent(&rt, x, pos[0]);
            tv_write_str(&rt, &got, result);
            is_filter = true;   /* compared like a filter's result */
        } else if (is_filter) {
            int id = tmpl_filter_lookup(name);
            if (id == TMPL_FILTER_UNKNOWN) {
                printf("#   unknown filter %.*s\n", (int)name.len, (const char *)name.s);
                outcome = 0;
                goto done;
            }
            result = tmpl_filter_apply(&rt, id, x, &args);
            /* Python returns an iterator (a generator, reversed(...)) exactly
             * where the case says "iter"; compared through list() */
            bool want_iter = json_get(c, S("iter")) != NULL;
            if (tv_is_iter(result) != want_iter) {
                printf("#   %.*s: got %s, expected %s\n", (int)name.len, (const char *)name.s,
                       tv_type_name(result), want_iter ? "an iterator" : "no iterator");
                outcome = 0;
                goto done;
            }
            if (want_iter) {
                iz n;
                const tv *items = tv_iterate(&rt, result, &n);
                result = tv_list_new(&rt, n);
                for (iz i = 0; i < n; i++)
                    result.u.list->v[i] = items[i];
            }
            /* Python prints a bound method with its address: only its type
             * is compared */
            if (result.kind != TV_METHOD)
                tv_write_str(&rt, &got, result);
        } else {
            int id = tmpl_test_lookup(name);
            if (id == TMPL_TEST_UNKNOWN) {
                printf("#   unknown test %.*s\n", (int)name.len, (const char *)name.s);
                outcome = 0;
                goto done;
            }
            tresult = tmpl_test_apply(&rt, id, x, &args);
            buf_cstr(&got, tresult ? "True" : "False");
        }
        /* the result */
        str exc = jstr(c, "exc");
        if (exc.s) {
            printf("#   %.*s: expected %.*s: %.*s, got a result: %.*s\n", (int)name.len,
                   (const char *)name.s, (int)exc.len, (const char *)exc.s,
                   (int)jstr(c, "msg").len, (const char *)jstr(c, "msg").s,
                   (int)MIN(got.len, 300), (const char *)got.data);
            outcome = 0;
            goto done;
        }
        str want = jstr(c, "out"), type = jstr(c, "type");
        bool ok = true;
        if (!str_eq(type, S("builtin_function_or_method")) && !str_eq(buf_view(&got), want))
            ok = false;
        if (is_filter && !str_eq(str_cstr(tv_type_name(result)), type))
            ok = false;
        str um = jstr(c, "undef_msg");
        buf gm = {0};
        if (um.s) {
            if (result.kind == TV_UNDEF)
                tv_undef_message(&rt, &gm, result);
            if (!str_eq(buf_view(&gm), um))
                ok = false;
        }
        if (!ok) {
            printf("#   %.*s: got %s %.*s%s%.*s\n#     expected %.*s %.*s%s%.*s\n", (int)name.len,
                   (const char *)name.s, is_filter ? tv_type_name(result) : "bool",
                   (int)MIN(got.len, 400), (const char *)got.data, um.s ? " undef: " : "",
                   (int)gm.len, (const char *)gm.data, (int)type.len, (const char *)type.s,
                   (int)MIN(want.len, 400), (const char *)want.s, um.s ? " undef: " : "",
                   (int)um.len, (const char *)um.s);
        }
        buf_free(&gm);
        outcome = ok;
    } else {
        /* an exception, or one of our own failures */
        str exc = jstr(c, "exc"), msg = jstr(c, "msg");
        if (rt.code == ERR_UNSUPPORTED && is_gap(name)) {
            outcome = 2;
        } else if (!exc.s || !rt.exc || !str_eq(str_cstr(rt.exc), exc) ||
                   !str_eq(str_cstr(rt.msg), msg)) {
            printf("#   %.*s: got %s (%s): %s\n#     expected %.*s: %.*s\n", (int)name.len,
                   (const char *)name.s, rt.exc ? rt.exc : "-", err_code_name(rt.code), rt.msg,
                   (int)exc.len, (const char *)exc.s, (int)msg.len, (const char *)msg.s);
            if (!exc.s)
                printf("#     expected the result %.*s\n", (int)MIN(jstr(c, "out").len, 300),
                       (const char *)jstr(c, "out").s);
            outcome = 0;
        } else {
            outcome = 1;
        }
    }
done:
    if (outcome == 0 && (*shown)++ < 40)
        show_case(c);
    buf_free(&got);
    buf_free(&rt.tmp);
    arena_restore(a, mark);
    return outcome;
}

/* The cases of one filter or test, as one test of the harness. */
typedef struct group {
    char        label[64];
    str         kind, name;
    const json *cases;
    iz          ncases;
    int        *index;
    iz          n;
} group;

static group *cur_group;
static int total_gap, total_pass, total_cases;

static void run_group(void)
{
    arena a;
    arena_init(&a, 256 << 20);
    int pass = 0, gap = 0, shown = 0;
    for (iz i = 0; i < cur_group->n; i++) {
        int r = run_case(&a, &cur_group->cases[cur_group->index[i]], &shown);
        pass += r == 1;
        gap += r == 2;
        if (r == 2)
            printf("#   unsupported (documented gap): case %d\n", cur_group->index[i] + 1);
    }
    arena_fini(&a);
    total_pass += pass;
    total_gap += gap;
    total_cases += (int)cur_group->n;
    if (pass + gap != cur_group->n)
        printf("#   %s: %d of %lld cases pass, %d unsupported\n", cur_group->label, pass,
               (long long)cur_group->n, gap);
    EXPECT_EQ(pass + gap, cur_group->n);
}

/* The cases, loaded once by test_load. */
static arena   case_arena;
static json   *cases;
static iz      ncases;

static void test_load(void)
{
    err e;
    str text = os_read_file(&case_arena, CASES, &e);
    if (!text.s) {
        printf("#   cannot read %s: %s (run from the project root)\n", CASES, e.msg);
        test_cur_failed = 1;
        return;
    }
    /* one JSON value per line */
    iz nlines = 0;
    for (iz i = 0; i < text.len; i++)
        nlines += text.s[i] == '\n';
    cases = NEW(&case_arena, json, nlines + 1);
    for (iz i = 0; i < text.len;) {
        const u8 *nl = memchr(text.s + i, '\n', (size_t)(text.len - i));
        iz end = nl ? nl - text.s : text.len;
        if (end > i) {
            json *j = json_parse(&case_arena, str_cut(text, i, end), NULL, &e);
            if (!j) {
                printf("#   %s line %lld: %s\n", CASES, (long long)ncases + 1, e.msg);
                test_cur_failed = 1;
                ncases = 0;
                return;
            }
            cases[ncases++] = *j;
        }
        i = end + 1;
    }
    printf("#   %lld cases\n", (long long)ncases);
    EXPECT(ncases > 5000);
}

/* One test per filter and per test name, in order of first appearance. */
static void run_cases(void)
{
    group *groups = NEW(&case_arena, group, ncases + 1);
    iz ng = 0;
    for (iz i = 0; i < ncases; i++) {
        str kind = jstr(&cases[i], "kind"), name = jstr(&cases[i], "name");
        iz g = 0;
        while (g < ng && !(str_eq(groups[g].kind, kind) && str_eq(groups[g].name, name)))
            g++;
        if (g == ng) {
            groups[ng].kind = kind;
            groups[ng].name = name;
            groups[ng].cases = cases;
            groups[ng].index = NEW(&case_arena, int, ncases);
            snprintf(groups[ng].label, sizeof(groups[ng].label), "%.*s %.*s", (int)kind.len,
                     (const char *)kind.s, (int)name.len, (const char *)name.s);
            ng++;
        }
        groups[g].index[groups[g].n++] = (int)i;
    }
    for (iz g = 0; g < ng; g++) {
        cur_group = &groups[g];
        test_run(groups[g].label, run_group);
    }
}

/* Every filter and test id has cases. */
static void test_all_covered(void)
{
    for (int id = 1; id < TMPL_FILTER_COUNT; id++) {
        bool found = false;
        for (iz i = 0; i < ncases && !found; i++)
            found = str_eq(jstr(&cases[i], "kind"), S("filter")) &&
                    (int)tmpl_filter_lookup(jstr(&cases[i], "name")) == id;
        if (!found)
            printf("#   no case for filter id %d\n", id);
        EXPECT(found);
    }
    for (int id = 1; id < TMPL_TEST_COUNT; id++) {
        bool found = false;
        for (iz i = 0; i < ncases && !found; i++)
            found = str_eq(jstr(&cases[i], "kind"), S("test")) &&
                    (int)tmpl_test_lookup(jstr(&cases[i], "name")) == id;
        if (!found)
            printf("#   no case for test id %d\n", id);
        EXPECT(found);
    }
}

/* ---- a few properties of tv_write_json -------------------------------------- */

/* The fast path (a list or dict made from JSON) and the slow one (the same
 * values rebuilt without `origin`) write the same text, for every option. */
static void test_json_paths_agree(void)
{
    static const char *docs[] = {
        "{\"b\": [1, 2.5, null, true, {\"x\": []}], \"a\": \"\\u00e9\\n\", \"c\": {}}",
        "[1e400, -0.0, 12345678901234567890123, \"\\ud83d\\ude00\", [[[]]]]",
        "{\"k\": {\"k\": {\"k\": [1, {\"z\": 1, \"a\": 2}]}}}",
    };
    arena a;
    arena_init(&a, 0);
    jmp_buf jb;
    tmpl_rt rt = {.a = &a, .jb = &jb};
    if (setjmp(jb)) {
        printf("#   raised %s: %s\n", rt.exc ? rt.exc : "-", rt.msg);
        test_cur_failed = 1;
        buf_free(&rt.tmp);
        arena_fini(&a);
        return;
    }
    pyfmt_dumps_opts opts[5] = {{0}};
    opts[1].indent = PYFMT_INDENT_SPACES;
    opts[1].indent_spaces = 2;
    opts[2].sort_keys = true;
    opts[2].ensure_ascii = true;
    opts[3].indent = PYFMT_INDENT_STR;
    opts[3].indent_str = S("\t");
    opts[3].separators = true;
    opts[3].item_sep = S(";");
    opts[3].key_sep = S("=");
    opts[4].indent = PYFMT_INDENT_SPACES;
    opts[4].indent_spaces = 0;
    opts[4].sort_keys = true;
    for (iz d = 0; d < countof(docs); d++) {
        err e;
        json *j = json_parse(&a, str_cstr(docs[d]), NULL, &e);
        REQUIRE(j);
        tv fast = tv_from_json(&rt, j);
        /* the same values with every origin dropped */
        buf plain = {0};
        json_write(&plain, j);
        json *j2 = json_parse(&a, buf_view(&plain), NULL, &e);
        REQUIRE(j2);
        tv slow = tv_from_json(&rt, j2);
        tv stack[64];
        int sp = 0;
        stack[sp++] = slow;
        while (sp) {
            tv t = stack[--sp];
            if (t.kind == TV_LIST) {
                t.u.list->origin = NULL;
                for (iz i = 0; i < t.u.list->n && sp < 63; i++)
                    stack[sp++] = t.u.list->v[i];
            } else if (t.kind == TV_DICT) {
                t.u.dict->origin = NULL;
                for (iz i = 0; i < tv_dict_n(t.u.dict) && sp < 63; i++)
                    stack[sp++] = tv_dict_e(t.u.dict)[i].val;
            }
        }
        for (iz o = 0; o < countof(opts); o++) {
            buf x = {0}, y = {0}, z = {0};
            tv_write_json(&rt, &x, fast, &opts[o]);
            tv_write_json(&rt, &y, slow, &opts[o]);
            REQUIRE(pyfmt_json_dumps(&z, j, &opts[o], NULL, &e));
            EXPECT_STR(buf_view(&x), buf_view(&y));
            EXPECT_STR(buf_view(&x), buf_view(&z));
            buf_free(&x);
            buf_free(&y);
            buf_free(&z);
        }
        buf_free(&plain);
    }
    buf_free(&rt.tmp);
    arena_fini(&a);
}

/* Output limits and depth fail cleanly with our own codes. */
static void test_json_limits(void)
{
    arena a;
    arena_init(&a, 0);
    jmp_buf jb;
    tmpl_rt rt = {.a = &a, .jb = &jb};
    volatile int stage = 0;
    buf b = {0};
    if (setjmp(jb) == 0) {
        /* a list nested 1100 deep, built without origin */
        tv v = tv_int(1);
        for (int i = 0; i < 1100; i++) {
            tv l = tv_list_new(&rt, 1);
            l.u.list->v[0] = v;
            v = l;
        }
        stage = 1;
        tv_write_json(&rt, &b, v, NULL);
        stage = 2;
    }
    buf_free(&b);
    EXPECT_EQ(stage, 1);
    EXPECT_EQ(rt.code, ERR_LIMIT);
    buf_free(&rt.tmp);

    tmpl_rt rt2 = {.a = &a, .jb = &jb};
    stage = 0;
    buf b2 = {0};
    if (setjmp(jb) == 0) {
        tv l = tv_list_new(&rt2, 1000);
        for (int i = 0; i < 1000; i++)
            l.u.list->v[i] = tv_str(S("0123456789"));
        pyfmt_dumps_opts o = {0};
        o.max_out = 5000;
        stage = 1;
        tv_write_json(&rt2, &b2, l, &o);
        stage = 2;
    }
    EXPECT_EQ(stage, 1);
    EXPECT_EQ(rt2.code, ERR_LIMIT);
    buf_free(&b2);
    buf_free(&rt2.tmp);
    arena_fini(&a);
}

int main(void)
{
    arena_init(&case_arena, 0);
    RUN(test_load);
    RUN(test_all_covered);
    run_cases();
    printf("# %d cases: %d pass, %d unsupported (documented gaps), %d fail\n", total_cases,
           total_pass, total_gap, total_cases - total_pass - total_gap);
    RUN(test_json_paths_agree);
    RUN(test_json_limits);
    arena_fini(&case_arena);
    return test_done();
}
