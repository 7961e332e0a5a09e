/* test_json.c - the JSON reader and writer: value model (int vs float, big
 * ints, key order, duplicate keys), escapes, UTF-8 checks, error offsets,
 * every truncation of valid documents, the depth limit and the writer. */
#include "test.h"
#include "../src/json/json.h"

static json *parse(arena *a, const char *s, err *e)
{
    return json_parse(a, str_cstr(s), NULL, e);
}

static void test_scalars(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    json *v = parse(&a, " [1, -0, 1.0, 1e5, -2.5E-3, 12345678901234567890, true, false, null, \"x\"] ", &e);
    REQUIRE(v);
    EXPECT_EQ(v->type, JSON_ARR);
    EXPECT_EQ(v->u.arr.n, 10);
    json *it = v->u.arr.items;
    EXPECT_EQ(it[0].type, JSON_INT);
    EXPECT_EQ(it[0].u.i, 1);
    EXPECT_EQ(it[1].type, JSON_INT);
    EXPECT_EQ(it[2].type, JSON_FLOAT);
    EXPECT(it[2].u.f == 1.0);
    EXPECT_EQ(it[3].type, JSON_FLOAT);
    EXPECT(it[3].u.f == 1e5);
    EXPECT(it[4].u.f == -2.5e-3);
    EXPECT_STR(it[4].u.num, S("-2.5E-3"));   /* a number's text, beside its value */
    EXPECT_STR(it[1].u.num, S("-0"));
    EXPECT_EQ(it[5].type, JSON_INT);
    EXPECT(it[5].big);
    EXPECT_STR(it[5].u.num, S("12345678901234567890"));
    EXPECT(it[6].type == JSON_BOOL && it[6].u.b);
    EXPECT(it[7].type == JSON_BOOL && !it[7].u.b);
    EXPECT_EQ(it[8].type, JSON_NULL);
    EXPECT_STR(it[9].u.s, S("x"));
    EXPECT_EQ(v->off, 1);       /* where each value starts */
    EXPECT_EQ(it[0].off, 2);
    EXPECT_EQ(it[9].off, 69);
    arena_fini(&a);
}

static void test_objects(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    json *v = parse(&a, "{\"b\": 1, \"a\": {\"z\": []}, \"b\": 2}", &e);
    REQUIRE(v);
    EXPECT_EQ(v->u.obj.n, 3);
    EXPECT_STR(v->u.obj.members[0].key, S("b"));     /* order kept */
    EXPECT_STR(v->u.obj.members[1].key, S("a"));
    EXPECT_EQ(json_get(v, S("b"))->u.i, 2);          /* last duplicate wins */
    EXPECT(json_get_type(v, S("a"), JSON_OBJ));
    EXPECT(!json_get_type(v, S("a"), JSON_ARR));
    EXPECT(!json_get(v, S("c")));
    arena_fini(&a);
}

/* Equal keys of one document share the bytes of their first occurrence
 * once the document has more than 16 keys (what keeps a history's lookups
 * in cache); keys that differ, escaped keys and keys too long to share keep
 * their own text. The first 16 keys stay where they are. */
static void test_shared_keys(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    json *small = parse(&a, "[{\"k\": 1}, {\"k\": 2}]", &e);
    REQUIRE(small);
    EXPECT(small->u.arr.items[0].u.obj.members[0].key.s != small->u.arr.items[1].u.obj.members[0].key.s);
    const char *doc = "[{\"a\":0,\"b\":0,\"c\":0,\"d\":0,\"e\":0,\"f\":0,\"g\":0,\"h\":0,"
                      "\"i\":0,\"j\":0,\"k\":0,\"l\":0,\"m\":0,\"n\":0,\"o\":0,\"p\":0},"
                      " {\"role\": \"user\", \"content\": \"a\"},"
                      " {\"role\": \"tool\", \"r\\u006fle\": 1, \"content\": \"b\"},"
                      " {\"a_key_longer_than_thirty_two_bytes\": 1},"
                      " {\"a_key_longer_than_thirty_two_bytes\": 2, \"rolf\": 3, \"\": 4, \"\": 5}]";
    json *v = parse(&a, doc, &e);
    REQUIRE(v);
    const json *it = v->u.arr.items + 1;
    const json_member *m0 = it[0].u.obj.members, *m1 = it[1].u.obj.members;
    const json_member *m2 = it[2].u.obj.members, *m3 = it[3].u.obj.members;
    EXPECT_STR(m1[0].key, S("role"));
    EXPECT(m1[0].key.s == m0[0].key.s);            /* shared */
    EXPECT_STR(m1[1].key, S("role"));              /* the escaped one */
    EXPECT(m1[1].key.s == m0[0].key.s);
    EXPECT_STR(m1[2].key, S("content"));
    EXPECT(m1[2].key.s == m0[1].key.s);
    EXPECT_STR(m3[0].key, S("a_key_longer_than_thirty_two_bytes"));
    EXPECT(m3[0].key.s != m2[0].key.s);            /* too long: its own */
    EXPECT_STR(m3[1].key, S("rolf"));              /* same length and ends */
    EXPECT_STR(m3[2].key, S(""));
    EXPECT_STR(m3[3].key, S(""));
    EXPECT_EQ(json_get(&it[3], S(""))->u.i, 5);
    EXPECT_EQ(json_get(&it[1], S("role"))->u.i, 1);   /* the last of the two */
    arena_fini(&a);
}

static void test_strings(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    json *v = parse(&a, "\"a\\n\\t\\\"\\\\\\/\\u00e9\\u4e2d\\ud83d\\ude00\\u0000z\"", &e);
    REQUIRE(v);
    EXPECT_STR(v->u.s, str_from("a\n\t\"\\/\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\0z", 17));
    /* raw UTF-8 passes through untouched */
    v = parse(&a, "\"\xc3\xa9\xf0\x9f\x98\x80\"", &e);
    REQUIRE(v);
    EXPECT_EQ(v->u.s.len, 6);
    arena_fini(&a);
}

typedef struct {
    const char *doc;
    int         code;
    iz          off;
} bad_case;

/* The string scanner reads 8 bytes at a time: every special byte (a
 * quote, an escape, a control character, UTF-8, invalid UTF-8) at every
 * offset of a word must be seen, inside strings of every length around
 * the word size. The expected value is built byte by byte here. */
static void test_string_offsets(void)
{
    static const struct { const char *src; const char *want; int code; } sp[] = {
        {"\\n", "\n", ERR_OK},
        {"\\\"", "\"", ERR_OK},
        {"\\u00e9", "\xc3\xa9", ERR_OK},
        {"\xc3\xa9", "\xc3\xa9", ERR_OK},
        {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", ERR_OK},
        {"\x01", NULL, ERR_SYNTAX},
        {"\x1f", NULL, ERR_SYNTAX},
        {"\x7f", "\x7f", ERR_OK},
        {"\xff", NULL, ERR_UTF8},
        {"\xc3", NULL, ERR_UTF8},
        {" ", " ", ERR_OK},
    };
    int bad = 0;
    for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++)
        for (int before = 0; before <= 17; before++)
            for (int after = 0; after <= 17; after++) {
                char src[128], want[128];
                int n = 0, m = 0;
                src[n++] = '"';
                for (int i = 0; i < before; i++)
                    src[n++] = want[m++] = (char)('a' + i % 26);
                n += snprintf(src + n, sizeof src - (size_t)n, "%s", sp[k].src);
                if (sp[k].want)
                    m += snprintf(want + m, sizeof want - (size_t)m, "%s", sp[k].want);
                for (int i = 0; i < after; i++)
                    src[n++] = want[m++] = (char)('A' + i % 26);
                src[n++] = '"';
                arena a;
                arena_init(&a, 0);
                err e = {0};
                json *v = json_parse(&a, str_from(src, n), NULL, &e);
                if (sp[k].code != ERR_OK) {
                    bad += v != NULL || e.code != sp[k].code || e.off != 1 + before;
                } else {
                    bad += !v || v->type != JSON_STR || !str_eq(v->u.s, str_from(want, m));
                }
                arena_fini(&a);
            }
    EXPECT_EQ(bad, 0);
}

static void test_errors(void)
{
    static const bad_case cases[] = {
        {"", ERR_SYNTAX, 0},
        {"[1,]", ERR_SYNTAX, 3},
        {"{\"a\" 1}", ERR_SYNTAX, 5},
        {"{\"a\":1,}", ERR_SYNTAX, 7},
        {"[01]", ERR_SYNTAX, 2},
        {"1.", ERR_SYNTAX, 2},
        {"-", ERR_SYNTAX, 1},
        {"NaN", ERR_SYNTAX, 0},
        {"tru", ERR_SYNTAX, 0},
        {"\"abc", ERR_SYNTAX, 4},
        {"\"a\x01\"", ERR_SYNTAX, 2},
        {"\"\\x\"", ERR_SYNTAX, 1},
        {"\"\\u12\"", ERR_SYNTAX, 5},
        {"\"\\ud800\"", ERR_UTF8, 1},
        {"\"\\udc00x\"", ERR_UTF8, 1},
        {"\"\xff\"", ERR_UTF8, 1},
        {"\"\xc3\"", ERR_UTF8, 1},
        {"\"\xed\xa0\x80\"", ERR_UTF8, 1},    /* encoded surrogate */
        {"\"\xc0\xaf\"", ERR_UTF8, 1},        /* overlong */
        {"1 2", ERR_SYNTAX, 2},
    };
    for (iz k = 0; k < countof(cases); k++) {
        arena a;
        arena_init(&a, 0);
        err e = {0};
        json *v = parse(&a, cases[k].doc, &e);
        if (v || e.code != cases[k].code || e.off != cases[k].off) {
            printf("#   case %td \"%s\": got %s code %d off %td (%s)\n", k, cases[k].doc, v ? "a value" : "NULL",
                   e.code, e.off, e.msg);
            test_cur_failed = 1;
        }
        arena_fini(&a);
    }
    /* line and column */
    arena a;
    arena_init(&a, 0);
    err e = {0};
    EXPECT(!parse(&a, "{\n  \"a\": 1,\n  \"b\": x\n}", &e));
    EXPECT_EQ(e.line, 3);
    EXPECT_EQ(e.col, 8);
    arena_fini(&a);
}

/* Every proper prefix of a valid document is an error, never a crash; the
 * copy is exactly as long as the prefix, so ASan sees any overread. */
static void test_truncations(void)
{
    const char *docs[] = {
        "{\"model\": {\"vocab\": {\"a\": 0, \"\\u00e9\": 1}, \"merges\": [\"a b\", [\"c\", \"d\"]]}, \"x\": [1.5e-3, -7, null, true]}",
        "[\"\xf0\x9f\x98\x80\\ud83d\\ude00\", 12345678901234567890123]",
    };
    for (iz d = 0; d < countof(docs); d++) {
        iz n = (iz)strlen(docs[d]);
        for (iz len = 0; len < n; len++) {
            char *copy = malloc((size_t)(len ? len : 1));
            memcpy(copy, docs[d], (size_t)len);
            arena a;
            arena_init(&a, 0);
            err e = {0};
            json *v = json_parse(&a, str_from(copy, len), NULL, &e);
            /* "[...] 1" style prefixes can be valid only at the very end */
            if (v && len != n) {
                /* a number prefix like "12" of "123" is valid JSON; only
                 * accept that when the whole prefix is a number */
                bool numeric = true;
                for (iz i = 0; i < len; i++)
                    numeric = numeric && ((copy[i] >= '0' && copy[i] <= '9') || copy[i] == '-');
                EXPECT(numeric);
            }
            if (!v && !(e.code != ERR_OK && e.off >= 0 && e.off <= len)) {
                printf("#   prefix %td of doc %td: code %d off %td (%s)\n", len, d, e.code, e.off, e.msg);
                test_cur_failed = 1;
            }
            arena_fini(&a);
            free(copy);
        }
        arena a;
        arena_init(&a, 0);
        err e = {0};
        EXPECT(json_parse(&a, str_cstr(docs[d]), NULL, &e));
        arena_fini(&a);
    }
}

static void test_depth(void)
{
    char doc[2100];
    for (int k = 0; k < 1000; k++) {
        doc[k] = '[';
        doc[1000 + k] = ']';
    }
    doc[2000] = 0;
    arena a;
    arena_init(&a, 0);
    err e = {0};
    json_opts deep = {1000}, shallow = {999};
    EXPECT(json_parse(&a, str_cstr(doc), &deep, &e));
    EXPECT(!json_parse(&a, str_cstr(doc), &shallow, &e));
    EXPECT_EQ(e.code, ERR_LIMIT);
    EXPECT(!json_parse(&a, str_cstr(doc), NULL, &e));   /* default 512 */
    arena_fini(&a);
}

/* A node keeps its offset in 32 bits: a longer text is refused before a
 * byte of it is read (so a length alone makes the case). */
static void test_text_limit(void)
{
#if PTRDIFF_MAX > INT32_MAX
    arena a;
    arena_init(&a, 0);
    err e = {0};
    const char *doc = "[1]";
    EXPECT(!json_parse(&a, str_from(doc, (iz)JSON_MAX_TEXT + 1), NULL, &e));
    EXPECT_EQ(e.code, ERR_LIMIT);
    EXPECT(strstr(e.msg, "2147483648 bytes") != NULL);
    arena_fini(&a);
#endif
}

static void test_out_of_memory(void)
{
    const char *doc = "{\"a\": [1, 2, 3, \"\\u00e9\\n\", {\"b\": null}], \"c\": \"xyz\"}";
    /* Every arena limit either parses or fails cleanly with ERR_NOMEM. */
    bool parsed = false;
    for (iz limit = 1; limit < 200000 && !parsed; limit = limit * 3 / 2 + 1) {
        arena a;
        arena_init(&a, limit);
        err e = {0};
        json *v = json_parse(&a, str_cstr(doc), NULL, &e);
        if (v)
            parsed = true;
        else
            EXPECT_EQ(e.code, ERR_NOMEM);
        arena_fini(&a);
    }
    EXPECT(parsed);
}

static void test_writer(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    const char *doc = "{\"k\":[1,1.50,-0,1e5,\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\",true,null,{}],\"z\":[]}";
    json *v = parse(&a, doc, &e);
    REQUIRE(v);
    buf b = {0};
    json_write(&b, v);
    EXPECT_STR(buf_view(&b), str_cstr("{\"k\":[1,1.50,-0,1e5,\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\",true,null,{}],\"z\":[]}"));
    /* write then read gives the same tree again */
    json *w = json_parse(&a, buf_view(&b), NULL, &e);
    REQUIRE(w);
    buf b2 = {0};
    json_write(&b2, w);
    EXPECT_STR(buf_view(&b2), buf_view(&b));
    buf_free(&b);
    buf_free(&b2);
    arena_fini(&a);
}

/* A container's tree (u.arr.tree, u.obj.tree): the bytes just before its
 * block that hold its nested blocks and its copied (escaped) strings,
 * which json_prefetch_tree streams in; 0 when the parse crossed into a new
 * arena block. */
static bool in_tree(const json *v, const void *p)
{
    uintptr_t beg = v->type == JSON_ARR ? (uintptr_t)v->u.arr.items : (uintptr_t)v->u.obj.members;
    u32 tree = v->type == JSON_ARR ? v->u.arr.tree : v->u.obj.tree;
    return (uintptr_t)p >= beg - tree && (uintptr_t)p < beg;
}

static void test_tree(void)
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    json *v = parse(&a, "[{\"role\": \"user\", \"content\": \"a\\nb\", \"calls\": [{\"f\": {\"x\": 1}}]}, 2]", &e);
    REQUIRE(v);
    const json *m = &v->u.arr.items[0];
    const json *content = json_get(m, S("content")), *calls = json_get(m, S("calls"));
    REQUIRE(content && calls);
    EXPECT_STR(content->u.s, S("a\nb"));
    const json *call = &calls->u.arr.items[0], *f = json_get(call, S("f"));
    REQUIRE(f);
    /* the history's tree holds everything below it ... */
    EXPECT(in_tree(v, m->u.obj.members));
    EXPECT(in_tree(v, content->u.s.s));   /* an escaped string, copied */
    EXPECT(in_tree(v, calls->u.arr.items));
    EXPECT(in_tree(v, f->u.obj.members));
    /* ... and a message's tree its own nested blocks, not its parent's */
    EXPECT(in_tree(m, content->u.s.s));
    EXPECT(in_tree(m, calls->u.arr.items));
    EXPECT(in_tree(calls, call->u.obj.members));
    EXPECT(in_tree(call, f->u.obj.members));
    EXPECT(!in_tree(m, v->u.arr.items));
    EXPECT(f->u.obj.tree < _Alignof(json_member));   /* nothing nested or copied: padding only */
    /* an unescaped string stays in the source, outside every tree */
    const json *role = json_get(m, S("role"));
    EXPECT(!in_tree(v, role->u.s.s));
    arena_fini(&a);

    /* A parse that needs a new arena block on the way leaves the
     * containers that span two blocks without a tree. */
    arena_init(&a, 0);
    buf big = {0};
    buf_str(&big, S("[[\"\\t\"], \""));
    for (int i = 0; i < 200000; i++)
        buf_str(&big, S("\\n"));
    buf_str(&big, S("\"]"));
    v = json_parse(&a, buf_view(&big), NULL, &e);
    REQUIRE(v);
    EXPECT_EQ(v->u.arr.n, 2);
    EXPECT(v->u.arr.items[0].u.arr.tree > 0);   /* its copied "\t", in one block */
    EXPECT(in_tree(&v->u.arr.items[0], v->u.arr.items[0].u.arr.items[0].u.s.s));
    EXPECT_EQ(v->u.arr.tree, 0);                /* the long string took a new block */
    buf_free(&big);
    arena_fini(&a);
}

int main(void)
{
    RUN(test_scalars);
    RUN(test_objects);
    RUN(test_shared_keys);
    RUN(test_strings);
    RUN(test_string_offsets);
    RUN(test_errors);
    RUN(test_truncations);
    RUN(test_depth);
    RUN(test_text_limit);
    RUN(test_out_of_memory);
    RUN(test_writer);
    RUN(test_tree);
    return test_done();
}
