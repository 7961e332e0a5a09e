/* test_tmpl_eval.c - the template evaluator (src/tmpl/tmpl_eval.c and the
 * value model) against Jinja2 3.1.2 in transformers' environment: every
 * case of tests/data/tmpl_eval/cases.jsonl (written by gen.py with the
 * reference, see the README there) is compiled and rendered here, and the
 * output, or the exception class and message, must be Jinja's. On top: the
 * limits, the scratch arena's reuse, and errors leaving the output as it was. */
#include "test.h"
#include "../src/json/pyfmt.h"
#include "../src/base/arena.h"
#include "../src/base/buf.h"
#include "../src/base/os.h"
#include "../src/json/json.h"
#include "../src/tmpl/tmpl.h"

/* 2025-01-15T12:00:00 UTC, the clock the cases were made with. */
enum { CASES_NOW = 1736942400 };


/* Renders `src` with the members of the JSON object `vars` as variables.
 * A compile error Jinja raises too (its class in the diag: from_string
 * fails where the reference renders) comes back as that exception in te;
 * any other as -1. */
static int render(arena *perm, arena *scratch, str src, const json *vars, buf *out,
                  tmpl_error *te, err *ce)
{
    tmpl_diag d;
    tmpl_prog *p = tmpl_compile(perm, src, ce, &d);
    if (!p) {
        if (!d.kind)
            return -1;
        memset(te, 0, sizeof *te);
        te->exc = d.kind;
        te->code = ce->code;
        snprintf(te->msg, sizeof te->msg, "%s", ce->msg);
        return ce->code;
    }
    i32 n = vars ? (i32)vars->u.obj.n : 0;
    tmpl_var *v = n ? NEW(perm, tmpl_var, n) : NULL;
    for (i32 i = 0; i < n; i++) {
        v[i].name = vars->u.obj.members[i].key;
        v[i].value = &vars->u.obj.members[i].val;
    }
    tmpl_render_opts o = {.now = CASES_NOW};
    return tmpl_render(p, v, n, &o, scratch, out, te);
}

static void test_cases(void)
{
    iz flen;
    char *text = test_slurp("tests/data/tmpl_eval/cases.jsonl", &flen);
    str file = str_from(text, flen);
    REQUIRE(flen > 0);
    arena perm, scratch;
    arena_init(&perm, 0);
    arena_init(&scratch, 0);
    int cases = 0, bad = 0;
    iz i = 0;
    while (i < file.len) {
        iz j = i;
        while (j < file.len && file.s[j] != '\n')
            j++;
        str line = str_cut(file, i, j);
        i = j + 1;
        if (!line.len)
            continue;
        err e;
        json *c = json_parse(&perm, line, NULL, &e);
        REQUIRE(c);
        const json *name = json_get_type(c, S("name"), JSON_STR);
        const json *tsrc = json_get_type(c, S("template"), JSON_STR);
        const json *vars = json_get_type(c, S("vars"), JSON_OBJ);
        const json *want = json_get_type(c, S("out"), JSON_STR);
        const json *wtype = json_get_type(c, S("error_type"), JSON_STR);
        const json *wmsg = json_get_type(c, S("error"), JSON_STR);
        REQUIRE(name && tsrc && (want || (wtype && wmsg)));
        cases++;
        buf out = {0};
        tmpl_error te;
        err ce;
        int rc = render(&perm, &scratch, tsrc->u.s, vars, &out, &te, &ce);
        bool ok;
        if (want) {
            ok = rc == ERR_OK && str_eq(buf_view(&out), want->u.s);
            if (!ok) {
                printf("#   %.*s: expected \"%.*s\"\n", (int)name->u.s.len, (const char *)name->u.s.s,
                       (int)want->u.s.len, (const char *)want->u.s.s);
                if (rc == ERR_OK)
                    printf("#     got      \"%.*s\"\n", (int)out.len, (const char *)out.data);
                else if (rc < 0)
                    printf("#     compile error: %s\n", ce.msg);
                else
                    printf("#     got error %s: %s (line %d)\n", te.exc ? te.exc : err_code_name(te.code),
                           te.msg, (int)te.line);
            }
        } else {
            ok = rc > 0 && te.exc && str_eq(str_cstr(te.exc), wtype->u.s) &&
                 str_eq(str_cstr(te.msg), wmsg->u.s) && out.len == 0;
            if (!ok) {
                printf("#   %.*s: expected %.*s: %.*s\n", (int)name->u.s.len, (const char *)name->u.s.s,
                       (int)wtype->u.s.len, (const char *)wtype->u.s.s, (int)wmsg->u.s.len,
                       (const char *)wmsg->u.s.s);
                if (rc == ERR_OK)
                    printf("#     got output \"%.*s\"\n", (int)out.len, (const char *)out.data);
                else if (rc < 0)
                    printf("#     compile error: %s\n", ce.msg);
                else
                    printf("#     got %s: %s\n", te.exc ? te.exc : err_code_name(te.code), te.msg);
            }
        }
        bad += !ok;
        buf_free(&out);
    }
    printf("# %d cases, %d differ from Jinja2\n", cases, bad);
    EXPECT(cases > 100);
    EXPECT_EQ(bad, 0);
    arena_fini(&perm);
    arena_fini(&scratch);
    free(text);
}

/* A failed render leaves the output as it was and the arena reusable. */
static void test_error_keeps_output(void)
{
    arena perm, scratch;
    arena_init(&perm, 0);
    arena_init(&scratch, 0);
    buf out = {0};
    buf_cstr(&out, "before|");
    tmpl_error te;
    err ce;
    int rc = render(&perm, &scratch, S("partial {{ 1 + 'a' }}"), NULL, &out, &te, &ce);
    EXPECT_EQ(rc, ERR_TEMPLATE);
    EXPECT_STR(buf_view(&out), S("before|"));
    EXPECT_STR(str_cstr(te.exc), S("TypeError"));
    EXPECT_EQ(te.line, 1);
    iz used = arena_bytes(&scratch);
    for (int k = 0; k < 100; k++) {
        out.len = 0;
        rc = render(&perm, &scratch, S("{% for x in range(50) %}{{ x ~ 'y' }}{% endfor %}"), NULL, &out,
                    &te, &ce);
        EXPECT_EQ(rc, ERR_OK);
    }
    /* everything a render allocates goes back: the arena does not grow */
    EXPECT(arena_bytes(&scratch) <= used + (1 << 16));
    buf_free(&out);
    arena_fini(&perm);
    arena_fini(&scratch);
}

/* list.pop and list.clear on a list a for loop runs over: Python's loop
 * would see the change, tally's iterates what it started with, so the
 * render fails cleanly (ERR_UNSUPPORTED) instead of differing. After the
 * loop, and inside a loop over another list, they work. */
static void test_list_changed_in_loop(void)
{
    arena perm, scratch;
    arena_init(&perm, 0);
    arena_init(&scratch, 0);
    buf out = {0};
    tmpl_error te;
    err ce;
    const char *refused[] = {
        "{% set l = [1, 2, 3] %}{% for x in l %}{{ l.pop() }}{% endfor %}",
        "{% set l = [1, 2, 3] %}{% for x in l %}{% for y in [1] %}{{ l.clear() }}{% endfor %}{% endfor %}",
        "{% set l = [1, 2, 3] %}{% for x in l if l.pop() %}{{ x }}{% endfor %}",
    };
    for (size_t k = 0; k < countof(refused); k++) {
        out.len = 0;
        EXPECT_EQ(render(&perm, &scratch, str_cstr(refused[k]), NULL, &out, &te, &ce), ERR_UNSUPPORTED);
        EXPECT(te.exc == NULL);
        EXPECT(strstr(te.msg, "a for loop is running over") != NULL);
    }
    out.len = 0;
    EXPECT_EQ(render(&perm, &scratch,
                     S("{% set l = [1, 2, 3] %}{% for x in l %}{{ x }}{% endfor %}{{ l.pop() }}"
                       "{% for x in [7, 8] %}{{ l.pop(0) }}{% endfor %}{{ l }}"),
                     NULL, &out, &te, &ce), ERR_OK);
    EXPECT_STR(buf_view(&out), S("123312[]"));
    buf_free(&out);
    arena_fini(&perm);
    arena_fini(&scratch);
}

/* A variable's symbol given by the caller (tmpl_var.sym): used when it
 * names the variable, looked up again when it does not, and -1 means the
 * template never names it. */
static void test_var_sym_hints(void)
{
    arena perm, scratch;
    arena_init(&perm, 0);
    arena_init(&scratch, 0);
    err ce = {0};
    tmpl_prog *p = tmpl_compile(&perm, S("{{ a }}-{{ b }}-{{ c is defined }}"), &ce, NULL);
    REQUIRE(p);
    i32 sa = tmpl_sym_find(p, S("a")), sb = tmpl_sym_find(p, S("b")), sc = tmpl_sym_find(p, S("c"));
    REQUIRE(sa >= 0 && sb >= 0 && sc >= 0);
    err e = {0};
    json *one = json_parse(&perm, S("1"), NULL, &e), *two = json_parse(&perm, S("2"), NULL, &e),
         *three = json_parse(&perm, S("3"), NULL, &e);
    REQUIRE(one && two && three);
    struct {
        i32 ha, hb, hc;
        const char *want;
    } cases[] = {
        {0, 0, 0, "1-2-True"},                      /* looked up */
        {sa + 1, sb + 1, sc + 1, "1-2-True"},       /* right hints */
        {sb + 1, sa + 1, 0, "1-2-True"},            /* wrong ones: looked up */
        {1000, -5, 0, "1--True"},                   /* out of range: looked up; -5: absent */
        {0, 0, -1, "1-2-False"},                    /* c said absent */
    };
    buf out = {0};
    for (iz k = 0; k < countof(cases); k++) {
        tmpl_var v[3] = {{S("a"), one, cases[k].ha}, {S("b"), two, cases[k].hb}, {S("c"), three, cases[k].hc}};
        tmpl_error te;
        out.len = 0;
        EXPECT_EQ(tmpl_render(p, v, 3, NULL, &scratch, &out, &te), ERR_OK);
        EXPECT_STR(buf_view(&out), str_cstr(cases[k].want));
    }
    buf_free(&out);
    arena_fini(&scratch);
    arena_fini(&perm);
}

/* tmpl_render_opts.tmp: renders build their strings in the caller's
 * buffer and leave its memory there, after an error too; the output is the
 * same as without it. */
static void test_caller_tmp(void)
{
    arena perm, scratch;
    arena_init(&perm, 0);
    arena_init(&scratch, 0);
    err ce = {0};
    tmpl_prog *ok = tmpl_compile(&perm, S("{% set x = a ~ '-' ~ a %}{{ x }}|{{ [a, a] | tojson }}"), &ce, NULL);
    tmpl_prog *bad = tmpl_compile(&perm, S("{% set x = a ~ '!' %}{{ x }}{{ 1 + x }}"), &ce, NULL);
    REQUIRE(ok && bad);
    err e = {0};
    json *a = json_parse(&perm, S("\"abc\""), NULL, &e);
    REQUIRE(a);
    tmpl_var v[1] = {{S("a"), a, 0}};
    buf tmp = {0}, out = {0};
    tmpl_error te;
    for (int k = 0; k < 3; k++) {
        tmpl_render_opts o = {.tmp = k ? &tmp : NULL};
        out.len = 0;
        EXPECT_EQ(tmpl_render(ok, v, 1, &o, &scratch, &out, &te), ERR_OK);
        EXPECT_STR(buf_view(&out), S("abc-abc|[\"abc\", \"abc\"]"));
        if (k)
            EXPECT(tmp.cap > 0 && tmp.data != NULL);
        out.len = 0;
        EXPECT_EQ(tmpl_render(bad, v, 1, &o, &scratch, &out, &te), ERR_TEMPLATE);
        EXPECT_EQ(out.len, 0);
        if (k)
            EXPECT(tmp.cap > 0 && tmp.data != NULL);
    }
    buf_free(&tmp);
    buf_free(&out);
    arena_fini(&scratch);
    arena_fini(&perm);
}

static void test_limits(void)
{
    arena perm, scratch;
    arena_init(&perm, 0);
    arena_init(&scratch, 0);
    buf out = {0};
    tmpl_error te;
    err ce;
    /* output size */
    tmpl_prog *p = tmpl_compile(&perm, S("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}"), &ce, NULL);
    REQUIRE(p);
    tmpl_render_opts o = {.max_output = 1 << 20};
    EXPECT_EQ(tmpl_render(p, NULL, 0, &o, &scratch, &out, &te), ERR_LIMIT);
    EXPECT(te.exc == NULL);
    EXPECT_EQ(out.len, 0);
    /* loop iterations: nested loops over the largest range the sandbox allows */
    p = tmpl_compile(&perm, S("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"),
                     &ce, NULL);
    REQUIRE(p);
    EXPECT_EQ(tmpl_render(p, NULL, 0, NULL, &scratch, &out, &te), ERR_LIMIT);
    /* names: 70,000 assigned at the top level are more than a function's
     * slots (or the resolver's work budget): a limit error at compile time,
     * with no Python class (Jinja would compile it, slowly) */
    {
        buf big = {0};
        for (int i = 0; i < 70000; i++)
            buf_printf(&big, "{%% set v%d = 1 %%}", i);
        REQUIRE(!big.failed);
        tmpl_diag d;
        p = tmpl_compile(&perm, buf_view(&big), &ce, &d);
        EXPECT(p == NULL);
        EXPECT_EQ(ce.code, ERR_LIMIT);
        EXPECT(d.kind == NULL);
        buf_free(&big);
    }
    /* a scratch arena with a limit: out of memory is an error, not a crash */
    arena small;
    arena_init(&small, 1 << 20);
    p = tmpl_compile(&perm, S("{% set ns = namespace(s='') %}{% for i in range(100000) %}{% set ns.s = ns.s ~ 'abcdefgh' %}{% endfor %}"),
                     &ce, NULL);
    REQUIRE(p);
    EXPECT_EQ(tmpl_render(p, NULL, 0, NULL, &small, &out, &te), ERR_NOMEM);
    /* and the arena still works afterwards */
    p = tmpl_compile(&perm, S("{{ 'ok' }}"), &ce, NULL);
    REQUIRE(p);
    EXPECT_EQ(tmpl_render(p, NULL, 0, NULL, &small, &out, &te), ERR_OK);
    EXPECT_STR(buf_view(&out), S("ok"));
    arena_fini(&small);
    /* a context string longer than a value holds (4 GiB), as a value and as
     * a key: an error, not a cut. The bytes are never read, so a short
     * buffer stands for them. */
    if (PTRDIFF_MAX > UINT32_MAX) {
        p = tmpl_compile(&perm, S("{{ x }}"), &ce, NULL);
        REQUIRE(p);
        str huge = {(const u8 *)"abc", (iz)UINT32_MAX + 1};
        json sv = {.type = JSON_STR};
        sv.u.s = huge;
        json_member m = {huge, {.type = JSON_NULL}};
        json ov = {.type = JSON_OBJ};
        ov.u.obj.members = &m;
        ov.u.obj.n = 1;
        const json *vals[] = {&sv, &ov};
        for (int k = 0; k < 2; k++) {
            tmpl_var v[1] = {{S("x"), vals[k], 0}};
            out.len = 0;
            EXPECT_EQ(tmpl_render(p, v, 1, NULL, &scratch, &out, &te), ERR_LIMIT);
            EXPECT(te.exc == NULL && strstr(te.msg, "4 GiB") != NULL);
            EXPECT_EQ(out.len, 0);
        }
    }
    /* a context nested deeper than json.dumps goes (PYFMT_MAX_DEPTH, past
     * the parser's own limit, so built by hand): a container at the
     * deepest level may be empty, a value below it is an error, whether it
     * is a scalar or a container, in a list or in an object. The error
     * comes when the render reaches the value (a dict of the context is
     * converted when it is first read): str() reaches every level. */
    {
        p = tmpl_compile(&perm, S("{{ x | string | length }}"), &ce, NULL);
        REQUIRE(p);
        enum { D = PYFMT_MAX_DEPTH };
        json *nodes = calloc(D + 2, sizeof *nodes);
        json_member *mem = calloc(D + 2, sizeof *mem);
        REQUIRE(nodes && mem);
        /* nodes[i] is at depth i, down to nodes[last]: an int or an empty
         * list; the ones above it lists or objects of one value */
        static const struct { int last; bool in_obj, empty_list; } cases[] = {
            {D, false, false}, {D, true, false}, {D, false, true},
            {D + 1, false, false}, {D + 1, true, false}, {D + 1, true, true},
        };
        for (int c = 0; c < (int)countof(cases); c++) {
            int last = cases[c].last;
            nodes[last] = (json){.type = cases[c].empty_list ? JSON_ARR : JSON_INT};
            for (int i = last - 1; i >= 0; i--) {   /* bottom up: a member holds a copy */
                json *n = &nodes[i];
                if (cases[c].in_obj) {
                    mem[i] = (json_member){S("k"), nodes[i + 1]};
                    *n = (json){.type = JSON_OBJ};
                    n->u.obj.members = &mem[i];
                    n->u.obj.n = 1;
                } else {
                    *n = (json){.type = JSON_ARR};
                    n->u.arr.items = &nodes[i + 1];
                    n->u.arr.n = 1;
                }
            }
            tmpl_var v[1] = {{S("x"), &nodes[0], 0}};
            out.len = 0;
            int want = last > D ? ERR_LIMIT : ERR_OK;
            int rc = tmpl_render(p, v, 1, NULL, &scratch, &out, &te);
            if (rc != want)
                printf("#   depth case %d: %d, expected %d (%s)\n", c, rc, want, te.msg);
            EXPECT_EQ(rc, want);
            if (want == ERR_LIMIT)
                EXPECT(strstr(te.msg, "nested deeper") != NULL);
        }
        free(nodes);
        free(mem);
    }
    buf_free(&out);
    arena_fini(&perm);
    arena_fini(&scratch);
}

/* tmpl_render_opts.deadline: templates that would run for minutes or
 * hours (a loop of 10**10 filter tests, exponential recursion of a macro
 * and of a recursive loop, string repetition, joining, sorting, comparing
 * and searching large values in a loop) stop with the budget's ERR_LIMIT,
 * the output as it was. How long they took is not asserted. A far
 * deadline changes nothing. */
static void test_deadline(void)
{
    static const char *const slow[] = {
        "{% for i in range(100000) %}{% for j in range(100000) if j < 0 %}{% endfor %}{% endfor %}",
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(60) }}",
        "{% for x in [1, 2] recursive %}{% if loop.depth < 60 %}{{ loop([1, 2]) }}{% endif %}{% endfor %}",
        "{% for i in range(100000) %}{% set n = ('x' * 10**7) | length %}{% endfor %}",
        "{% set l = range(100000) | list %}{% for i in range(100000) %}{% set s = l | join(',') %}"
        "{% set t = l | sort(reverse=true) %}{% endfor %}",
        "{% set a = 'x' * 10**7 %}{% set b = 'x' * 10**7 %}{{ [a] * 100000 == [b] * 100000 }}",
        "{% set l = range(100000) | list %}{% for i in range(100000) %}{% if -1 in l %}{% endif %}{% endfor %}",
        "{% set s = 'ab' * 10**6 %}{% for i in range(100000) %}{% set n = s.count('ba') + s.upper()|length %}{% endfor %}",
    };
    arena perm, scratch;
    arena_init(&perm, 0);
    arena_init(&scratch, (iz)1 << 30);   /* the recursions allocate as they go */
    buf out = {0};
    err ce;
    for (size_t k = 0; k < countof(slow); k++) {
        tmpl_prog *p = tmpl_compile(&perm, str_cstr(slow[k]), &ce, NULL);
        REQUIRE(p);
        tmpl_render_opts o = {.deadline = os_now() + 0.2};
        tmpl_error te;
        buf_cstr(&out, "before");
        int rc = tmpl_render(p, NULL, 0, &o, &scratch, &out, &te);
        if (rc != ERR_LIMIT || strcmp(te.msg, "the render ran past its time budget") != 0)
            printf("#   case %d: %s: %s\n", (int)k, err_code_name(rc), te.msg);
        EXPECT_EQ(rc, ERR_LIMIT);
        EXPECT(te.exc == NULL);
        EXPECT_STR(str_cstr(te.msg), S("the render ran past its time budget"));
        EXPECT_STR(buf_view(&out), S("before"));
        out.len = 0;
    }
    /* a loop of 10**9 iterations: the budget or the iteration limit */
    tmpl_prog *p = tmpl_compile(&perm, S("{% for i in range(100000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}"),
                                &ce, NULL);
    REQUIRE(p);
    tmpl_render_opts o = {.deadline = os_now() + 0.2};
    tmpl_error te;
    EXPECT_EQ(tmpl_render(p, NULL, 0, &o, &scratch, &out, &te), ERR_LIMIT);
    /* an hour away: the render as without */
    p = tmpl_compile(&perm, S("{% for i in range(3) %}{{ i }}{% endfor %}"), &ce, NULL);
    REQUIRE(p);
    o.deadline = os_now() + 3600;
    EXPECT_EQ(tmpl_render(p, NULL, 0, &o, &scratch, &out, &te), ERR_OK);
    EXPECT_STR(buf_view(&out), S("012"));
    buf_free(&out);
    arena_fini(&perm);
    arena_fini(&scratch);
}

/* {% set ns.l = ns.l + [x] %} and {% set ns.s = ns.s ~ x %} in a loop (as
 * command-r7b's and firefunction-v2's templates do): the render's memory
 * grows linearly with the appends (a scratch arena limited to a few
 * hundred bytes per append suffices; copying the list or string at each
 * append would need gigabytes), and the result is the full list or
 * string. What Jinja2 answers for small cases (sharing, pop, tuples,
 * Markup) is in tests/data/tmpl_eval/cases.jsonl (accumulate_*). */
static void test_linear_accumulation(void)
{
    static const struct {
        const char *tmpl;
        int         n;          /* appends */
        const char *want;
    } cases[] = {
        {"{% set ns = namespace(l=[]) %}{% for i in range(30000) %}{% set ns.l = ns.l + [i] %}{% endfor %}"
         "{{ ns.l | length }} {{ ns.l[0] }} {{ ns.l[-1] }} {{ ns.l | sum }}", 30000, "30000 0 29999 449985000"},
        {"{% set ns = namespace(l=[]) %}{% for j in range(2) %}{% for i in range(100000) %}"
         "{% set ns.l = ns.l + [i] %}{% endfor %}{% endfor %}{{ ns.l | length }} {{ ns.l | sum }}",
         200000, "200000 9999900000"},
        {"{% set ns = namespace(t=()) %}{% for i in range(30000) %}{% set ns.t = ns.t + (i,) %}{% endfor %}"
         "{{ ns.t | length }} {{ ns.t[-1] }}", 30000, "30000 29999"},
        {"{% set ns = namespace(s='') %}{% for i in range(30000) %}{% set ns.s = ns.s + 'abcdefgh' %}{% endfor %}"
         "{{ ns.s | length }}", 30000, "240000"},
        {"{% set ns = namespace(s='') %}{% for j in range(2) %}{% for i in range(100000) %}"
         "{% set ns.s = ns.s ~ i ~ ',' %}{% endfor %}{% endfor %}{{ ns.s | length }} {{ ns.s[-7:] }}",
         200000, "1177780 ,99999,"},
        {"{% set ns = namespace(s='') %}{% for i in range(30000) %}{% set ns.s = ns.s + '<' + i | string + '>' %}"
         "{% endfor %}{{ ns.s | length }} {{ ns.s[:6] }}", 30000, "198890 <0><1>"},
    };
    arena perm;
    arena_init(&perm, 0);
    buf out = {0};
    err ce;
    for (size_t k = 0; k < countof(cases); k++) {
        tmpl_prog *p = tmpl_compile(&perm, str_cstr(cases[k].tmpl), &ce, NULL);
        REQUIRE(p);
        arena scratch;
        arena_init(&scratch, (iz)cases[k].n * 400);
        tmpl_error te;
        out.len = 0;
        int rc = tmpl_render(p, NULL, 0, NULL, &scratch, &out, &te);
        if (rc != ERR_OK)
            printf("#   case %d: %s: %s\n", (int)k, err_code_name(rc), te.msg);
        EXPECT_EQ(rc, ERR_OK);
        EXPECT_STR(buf_view(&out), str_cstr(cases[k].want));
        arena_fini(&scratch);
    }
    buf_free(&out);
    arena_fini(&perm);
}

/* Values nested 300,000 deep (a template can build them in a loop): Jinja2
 * raises RecursionError when it compares them; recursing that far here would
 * overflow the C stack. Hashing a tuple that deep crashes CPython itself
 * (tuplehash has no recursion check): here it is the same RecursionError. */
static void test_deep_values(void)
{
    static const char pre[] =
        "{% set ns = namespace(l=[], m=[], t=(), u=()) %}{% for j in range(3) %}{% for i in range(100000) %}"
        "{% set ns.l = [ns.l] %}{% set ns.m = [ns.m] %}{% set ns.t = (ns.t,) %}{% set ns.u = (ns.u,) %}"
        "{% endfor %}{% endfor %}";
    static const struct {
        const char *expr, *msg;
    } cases[] = {
        {"{{ ns.l == ns.m }}", "maximum recursion depth exceeded in comparison"},
        {"{{ ns.l != ns.m }}", "maximum recursion depth exceeded in comparison"},
        {"{{ ns.l < ns.m }}", "maximum recursion depth exceeded in comparison"},
        {"{{ [ns.l, ns.m] | sort | length }}", "maximum recursion depth exceeded in comparison"},
        {"{{ ns.l in [ns.m] }}", "maximum recursion depth exceeded in comparison"},
        {"{{ ns.t == ns.u }}", "maximum recursion depth exceeded in comparison"},
        {"{{ {ns.t: 1} | length }}", "maximum recursion depth exceeded while calling a Python object"},
        {"{{ [ns.t, ns.u] | unique | list | length }}", "maximum recursion depth exceeded while calling a Python object"},
        {"{{ ns.t in {} }}", "maximum recursion depth exceeded while calling a Python object"},
    };
    arena perm;
    arena_init(&perm, 0);
    buf src = {0}, out = {0};
    err ce;
    for (size_t k = 0; k < countof(cases); k++) {
        src.len = 0;
        buf_cstr(&src, pre);
        buf_cstr(&src, cases[k].expr);
        tmpl_prog *p = tmpl_compile(&perm, buf_view(&src), &ce, NULL);
        REQUIRE(p);
        arena scratch;
        arena_init(&scratch, 0);
        tmpl_error te;
        out.len = 0;
        int rc = tmpl_render(p, NULL, 0, NULL, &scratch, &out, &te);
        EXPECT_EQ(rc, ERR_TEMPLATE);
        if (rc == ERR_TEMPLATE) {
            EXPECT_STR(str_cstr(te.exc), S("RecursionError"));
            EXPECT_STR(str_cstr(te.msg), str_cstr(cases[k].msg));
        } else {
            printf("#   case %s: %s\n", cases[k].expr, err_code_name(rc));
        }
        arena_fini(&scratch);
    }
    buf_free(&src);
    buf_free(&out);
    arena_fini(&perm);
}

int main(void)
{
    RUN(test_cases);
    RUN(test_error_keeps_output);
    RUN(test_limits);
    RUN(test_list_changed_in_loop);
    RUN(test_var_sym_hints);
    RUN(test_caller_tmp);
    RUN(test_deadline);
    RUN(test_linear_accumulation);
    RUN(test_deep_values);
    return test_done();
}
