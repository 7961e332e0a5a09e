/* test_tmpl_parse.c - the template front end (src/tmpl: lexer, parser,
 * compile-time checks) against Jinja2 3.1.2 as transformers configures it.
 * Expected trees, token streams and errors come from Jinja itself
 * (tests/data/tmpl_parse/gen.py writes them, see the README there); a few
 * readable cases are spelled out here too. Also: every truncation of real
 * templates behind a guard page, the limits, out-of-memory paths and the
 * API around the tree (symbols, positions, filter ids).
 *
 * Reads ../shared/data/templates (TALLY_SHARED overrides ../shared) and
 * assets/ (TALLY_ASSETS), relative to the project root. */
#include <sys/mman.h>
#include <unistd.h>
#include "test.h"
#include "../src/base/arena.h"
#include "../src/base/buf.h"
#include "../src/base/utf8.h"
#include "../src/tmpl/tmpl.h"
#include "../src/tmpl/tmpl_ast.h"
#include "../src/tmpl/tmpl_front.h"
#include "../src/tmpl/tmpl_lex.h"

/* ---- files and a minimal JSON reader (the test links base/ and tmpl/ only) ---- */

/* Frees a string this file allocated (read_file, repeat, nested). */
static void free_str(str s)
{
    free((void *)(uintptr_t)s.s);
}

static str read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return (str){0};
    buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        buf_put(&b, chunk, (iz)n);
    fclose(f);
    buf_byte(&b, 0);   /* keeps data non-NULL for empty files */
    return (str){b.data, b.len - 1};
}

static const char *shared_dir(void)
{
    const char *d = getenv("TALLY_SHARED");
    return d && *d ? d : "../shared";
}

static const char *assets_dir(void)
{
    const char *d = getenv("TALLY_ASSETS");
    return d && *d ? d : "assets";
}

static iz jws(str s, iz i)
{
    while (i < s.len && (s.s[i] == ' ' || s.s[i] == '\t' || s.s[i] == '\n' || s.s[i] == '\r'))
        i++;
    return i;
}

static int jhex(const u8 *p)
{
    int v = 0;
    for (int k = 0; k < 4; k++) {
        u8 c = p[k];
        v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/* A JSON string at s[i] (the quote); decodes into out when not NULL.
 * Returns the index after it, or -1. */
static iz jstring(str s, iz i, buf *out)
{
    if (i >= s.len || s.s[i] != '"')
        return -1;
    for (i++; i < s.len; i++) {
        u8 c = s.s[i];
        if (c == '"')
            return i + 1;
        if (c != '\\') {
            if (out)
                buf_byte(out, c);
            continue;
        }
        if (++i >= s.len)
            return -1;
        c = s.s[i];
        u32 cp = c;
        switch (c) {
        case 'n': cp = '\n'; break;
        case 't': cp = '\t'; break;
        case 'r': cp = '\r'; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'u':
            if (i + 4 >= s.len)
                return -1;
            cp = (u32)jhex(s.s + i + 1);
            i += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < s.len && s.s[i + 1] == '\\') {
                u32 lo = (u32)jhex(s.s + i + 3);
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 6;
            }
            break;
        }
        if (out) {
            u8 tmp[4];
            buf_put(out, tmp, utf8_encode(cp, tmp));
        }
    }
    return -1;
}

/* Skips any JSON value at s[i]; returns the index after it, or -1. */
static iz jskip(str s, iz i)
{
    i = jws(s, i);
    if (i >= s.len)
        return -1;
    if (s.s[i] == '"')
        return jstring(s, i, NULL);
    if (s.s[i] == '{' || s.s[i] == '[') {
        int depth = 0;
        for (; i < s.len; i++) {
            u8 c = s.s[i];
            if (c == '"') {
                i = jstring(s, i, NULL);
                if (i < 0)
                    return -1;
                i--;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return -1;
    }
    while (i < s.len && s.s[i] != ',' && s.s[i] != '}' && s.s[i] != ']')
        i++;
    return i;
}

/* Member `key` of the object s: a string (decoded into out) or an integer. */
static bool jget(str s, const char *key, buf *out, i64 *num)
{
    iz i = jws(s, 0);
    if (i >= s.len || s.s[i] != '{')
        return false;
    i++;
    for (;;) {
        i = jws(s, i);
        if (i >= s.len || s.s[i] == '}')
            return false;
        buf k = {0};
        i = jstring(s, i, &k);
        bool hit = i >= 0 && str_eq(buf_view(&k), str_cstr(key));
        buf_free(&k);
        if (i < 0)
            return false;
        i = jws(s, i);
        if (i >= s.len || s.s[i] != ':')
            return false;
        i = jws(s, i + 1);
        if (hit) {
            if (i < s.len && s.s[i] == '"')
                return out && jstring(s, i, out) >= 0;
            if (num)
                *num = strtoll((const char *)s.s + i, NULL, 10);
            return num != NULL;
        }
        i = jskip(s, i);
        if (i < 0)
            return false;
        i = jws(s, i);
        if (i < s.len && s.s[i] == ',')
            i++;
    }
}

/* Calls fn(line) for each line of a JSONL file under tests/data/tmpl_parse. */
static int each_record(const char *file, void (*fn)(str rec, void *ctx), void *ctx)
{
    char path[512];
    snprintf(path, sizeof(path), "tests/data/tmpl_parse/%s", file);
    str all = read_file(path);
    if (!all.s) {
        printf("#   cannot read %s (run the tests from the project root)\n", path);
        test_cur_failed = 1;
        return 0;
    }
    int n = 0;
    for (iz i = 0; i < all.len;) {
        iz j = i;
        while (j < all.len && all.s[j] != '\n')
            j++;
        if (j > i) {
            fn(str_cut(all, i, j), ctx);
            n++;
        }
        i = j + 1;
    }
    free_str(all);
    return n;
}

static str field(str rec, const char *key, buf *b)
{
    b->len = 0;
    if (!jget(rec, key, b, NULL)) {
        printf("#   record without \"%s\"\n", key);
        test_cur_failed = 1;
    }
    buf_byte(b, 0);
    b->len--;
    return buf_view(b);
}

/* ---- helpers ---- */

typedef struct {
    arena     a;
    tmpl_prog *p;
    err       e;
    tmpl_diag d;
    buf       out;
} compiled;

static void compile_str(compiled *c, str src)
{
    arena_init(&c->a, 0);
    memset(&c->out, 0, sizeof(c->out));
    c->p = tmpl_compile(&c->a, src, &c->e, &c->d);
}

static void done(compiled *c)
{
    buf_free(&c->out);
    arena_fini(&c->a);
}

static str dump_of(compiled *c, unsigned flags)
{
    c->out.len = 0;
    if (c->p)
        tmpl_dump(&c->out, &c->p->body, flags);
    return buf_view(&c->out);
}

/* The s-expression of `src`, or "error: <kind> <line>: <msg>". */
static void expect_dump_at(const char *file, int line, const char *src, const char *want)
{
    compiled c;
    compile_str(&c, str_cstr(src));
    str got;
    char tmp[ERR_MSG_MAX + 64];
    if (c.p) {
        got = dump_of(&c, 0);
    } else {
        snprintf(tmp, sizeof(tmp), "error: %s %d: %s", c.d.kind ? c.d.kind : err_code_name(c.e.code),
                 (int)c.e.line, c.e.msg);
        got = str_cstr(tmp);
    }
    if (!str_eq(got, str_cstr(want))) {
        printf("#   %s:%d: template \"%s\"\n#     got      %.*s\n#     expected %s\n", file, line, src,
               (int)got.len, (const char *)got.s, want);
        test_cur_failed = 1;
    }
    done(&c);
}
#define EXPECT_DUMP(src, want) expect_dump_at(__FILE__, __LINE__, (src), (want))

/* Memory whose end is an inaccessible page: a string copied to end there
 * faults on any read past its end (with or without AddressSanitizer). */
typedef struct {
    u8    *map;
    size_t maplen, data;
} guarded;

static bool guard_init(guarded *g, iz max)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    g->data = ((size_t)max + page) / page * page;
    g->maplen = g->data + page;
    g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) {
        g->map = NULL;
        return false;
    }
    return mprotect(g->map + g->data, page, PROT_NONE) == 0;
}

static str guard_put(guarded *g, str s)
{
    u8 *at = g->map + g->data - (size_t)s.len;
    if (s.len)
        memcpy(at, s.s, (size_t)s.len);
    return (str){at, s.len};
}

static void guard_free(guarded *g)
{
    if (g->map)
        munmap(g->map, g->maplen);
}

static str repeat(const char *head, const char *unit, iz n, const char *tail)
{
    buf b = {0};
    buf_cstr(&b, head);
    for (iz i = 0; i < n; i++)
        buf_cstr(&b, unit);
    buf_cstr(&b, tail);
    return buf_view(&b);
}

/* ---- readable cases (each also verified against Jinja2) ---- */

static void test_whitespace(void)
{
    /* the brief's example: lstrip_blocks, trim_blocks, the dropped final newline */
    EXPECT_DUMP("  {%- if x %}\n  a\n{% endif %}\n", "(if x (then (text \"  a\\n\")))");
    EXPECT_DUMP("a\n  {% if x %}\n  b\n  {% endif %}\nc",
                "(text \"a\\n\")\n(if x (then (text \"  b\\n\")))\n(text \"c\")");
    EXPECT_DUMP("a  {% if x %}b{% endif %}  c",   /* not at a line start: kept */
                "(text \"a  \")\n(if x (then (text \"b\")))\n(text \"  c\")");
    EXPECT_DUMP("  {%+ if x %}b{% endif %}", "(text \"  \")\n(if x (then (text \"b\")))");
    EXPECT_DUMP("{% if x +%}\nb{% endif %}", "(if x (then (text \"\\nb\")))");
    EXPECT_DUMP("a  \n {%- if x -%} \n\n b \n{%- endif -%}\n c", "(text \"a\")\n(if x (then (text \"b\")))\n(text \"c\")");
    EXPECT_DUMP("{{ x }}\n{{ y }}\n", "(out x)\n(text \"\\n\")\n(out y)");   /* no trim after }} */
    EXPECT_DUMP("a \n {{- x -}} \n b", "(text \"a\")\n(out x)\n(text \"b\")");
    EXPECT_DUMP("{{+ 1 }}{{-1}}{{ -1 }}", "(out 1)\n(out 1)\n(out (neg 1))");   /* the sign is whitespace control */
    EXPECT_DUMP("a\n   {# note #}\nb", "(text \"a\\n\")\n(text \"b\")");
    EXPECT_DUMP("{% raw %}\n  {{ x }}\n  {% endraw %}\nafter", "(text \"\\n  {{ x }}\\n\")\n(text \"after\")");
    EXPECT_DUMP("{% if x %}\r\n  a\r\n{% endif %}\r\nb\r\n", "(if x (then (text \"  a\\n\")))\n(text \"b\")");
    EXPECT_DUMP("a\n\n", "(text \"a\\n\")");
    EXPECT_DUMP("", "");
}

static void test_expressions(void)
{
    EXPECT_DUMP("{{ a or b and not c }}", "(out (or a (and b (not c))))");
    EXPECT_DUMP("{{ 1 + 2 * 3 ** 2 }}", "(out (+ 1 (* 2 (** 3 2))))");
    EXPECT_DUMP("{{ 2 ** 3 ** 2 }}", "(out (** (** 2 3) 2))");   /* left-assoc in Jinja: 64 */
    EXPECT_DUMP("{{ -2 ** 2 }}", "(out (** (neg 2) 2))");        /* and unary first: 4 */
    EXPECT_DUMP("{{ a ~ b + c }}", "(out (+ (~ a b) c))");
    EXPECT_DUMP("{{ not a == b }}", "(out (not (cmp a == b)))");
    EXPECT_DUMP("{{ a < b <= c }}{{ a not in b }}", "(out (cmp a < b <= c))\n(out (cmp a notin b))");
    EXPECT_DUMP("{{ a if b else c if d }}", "(out (cond b a (cond d c _)))");
    EXPECT_DUMP("{{ -x|abs }}", "(out (| (neg x) abs))");
    EXPECT_DUMP("{{ x|default('a', true)|join(', ') }}", "(out (| (| x default \"a\" true) join \", \"))");
    EXPECT_DUMP("{{ x|tojson(indent=2) }}", "(out (| x tojson (= indent 2)))");
    EXPECT_DUMP("{{ x is divisibleby 3 }}{{ x is not none }}{{ x is sameas(y) }}",
                "(out (is x divisibleby 3))\n(out (not (is x none)))\n(out (is x sameas y))");
    EXPECT_DUMP("{{ x[1:2] }}{{ x[::-1] }}{{ x[a:] }}",
                "(out ([] x (slice 1 2 _)))\n(out ([] x (slice _ _ (neg 1))))\n(out ([] x (slice a _ _)))");
    EXPECT_DUMP("{{ f(a, b=1, *c, **d) }}", "(out (call f a (= b 1) (* c) (** d)))");
    EXPECT_DUMP("{{ x.y[0].1 }}", "(out ([] ([] (. x y) 0) 1))");
    EXPECT_DUMP("{{ 'a' \"b\" }}{{ (1,) }}{{ () }}{{ a, b }}",
                "(out \"ab\")\n(out (tuple 1))\n(out (tuple))\n(out (tuple a b))");
    EXPECT_DUMP("{{ {'k': [1, 2.5, none, True]} }}", "(out (dict (\"k\" (list 1 2.5 none true))))");
    EXPECT_DUMP("{{ 1_000 + 0x_ff + 0o17 + 0b11 + 1e3 }}", "(out (+ (+ (+ (+ 1000 255) 15) 3) 1000.0))");
    EXPECT_DUMP("{{ 99999999999999999999 }}", "(out (bigint 99999999999999999999))");
    EXPECT_DUMP("{{ '\\x41\\u00e9\\n\\q' }}{{ '\\é' }}", "(out \"Aé\\n\\\\q\")\n(out \"\\\\xe9\")");
}

static void test_statements(void)
{
    EXPECT_DUMP("{% for a, b in c if a recursive %}x{% else %}y{% endfor %}",
                "(for (tuple a b) c (if a) recursive (do (text \"x\")) (else (text \"y\")))");
    EXPECT_DUMP("{% if a %}1{% elif b %}2{% else %}3{% endif %}",
                "(if a (then (text \"1\")) (elif b (then (text \"2\"))) (else (text \"3\")))");
    EXPECT_DUMP("{% set ns.x = 1 %}{% set a, b = 1, 2 %}", "(set (nsref ns x) 1)\n(set (tuple a b) (tuple 1 2))");
    EXPECT_DUMP("{% set x | trim %} a {% endset %}", "(setblock x (| _ trim) (do (text \" a \")))");
    EXPECT_DUMP("{% macro m(a, b=1) %}{{ a }}{% endmacro %}", "(macro m (a (= b 1)) (do (out a)))");
    EXPECT_DUMP("{% call(x) m(1) %}{{ x }}{% endcall %}", "(callblock (x) (call m 1) (do (out x)))");
    EXPECT_DUMP("{% filter upper %}a{% endfilter %}", "(filterblock (| _ upper) (do (text \"a\")))");
    EXPECT_DUMP("{% generation %}a{% endgeneration %}", "(generation (do (text \"a\")))");
    EXPECT_DUMP("{% for x in y %}{% break %}{% continue %}{% endfor %}", "(for x y (do (break) (continue)))");
    EXPECT_DUMP("{% print a, b %}", "(out a)\n(out b)");
    EXPECT_DUMP("{% include 'x' %}", "(include \"x\" with-context)");
}

static void test_errors_inline(void)
{
    EXPECT_DUMP("{% foo %}", "error: TemplateSyntaxError 1: Encountered unknown tag 'foo'.");
    EXPECT_DUMP("{% do x %}", "error: TemplateSyntaxError 1: Encountered unknown tag 'do'.");
    EXPECT_DUMP("{% for x in y %}\n{% endif %}",
                "error: TemplateSyntaxError 2: Encountered unknown tag 'endif'. Jinja was looking for "
                "the following tags: 'endfor' or 'else'. The innermost block that needs to be closed is 'for'.");
    EXPECT_DUMP("{% for x in y %}\nabc\n\n",
                "error: TemplateSyntaxError 2: Unexpected end of template. Jinja was looking for the "
                "following tags: 'endfor' or 'else'. The innermost block that needs to be closed is 'for'.");
    EXPECT_DUMP("{% if x %}\n{{ a +* b }}", "error: TemplateSyntaxError 2: unexpected '*'");
    EXPECT_DUMP("{% if x\n%}", "error: TemplateSyntaxError 2: Unexpected end of template. Jinja was looking for "
                "the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'.");
    EXPECT_DUMP("{% set x = 1", "error: TemplateSyntaxError 1: unexpected end of template, expected 'end of statement block'.");
    EXPECT_DUMP("{{ x|nosuch }}", "error: TemplateAssertionError 1: No filter named 'nosuch'.");
    EXPECT_DUMP("{% if y %}{{ x|nosuch }}{% endif %}", "(if y (then (out (| x nosuch?))))");   /* only at run time */
    EXPECT_DUMP("{% break %}", "error: SyntaxError 1: 'break' outside loop");
    EXPECT_DUMP("{{ a ! b }}", "error: TemplateSyntaxError 1: unexpected char '!' at 5");
    EXPECT_DUMP("{{ 'é' ~ x ! y }}", "error: TemplateSyntaxError 1: unexpected char '!' at 11");   /* code points */
    EXPECT_DUMP("{{ é }}", "error: unsupported 1: non-ASCII character 'é' outside a string in a tag "
                "(identifiers are ASCII)");
    EXPECT_DUMP("{{ '\\N{DIGIT ONE}' }}", "error: unsupported 1: \\N{...} escapes (Unicode character names) are not supported");
    EXPECT_DUMP("{{ '\\ud800' }}", "error: unsupported 1: escapes of lone surrogates (\\ud800-\\udfff) are not supported");

    /* position, near text and the house format */
    compiled c;
    compile_str(&c, S("{% for m in messages %}\n  {{ m.content }\n{% endfor %}"));
    REQUIRE(!c.p);
    EXPECT_EQ(c.e.code, ERR_SYNTAX);
    EXPECT_EQ(c.e.line, 2);
    EXPECT_EQ(c.e.col, 16);
    EXPECT_EQ(c.e.off, 39);
    EXPECT_STR(str_cstr(c.d.near), S("}"));
    buf b = {0};
    tmpl_format_error(&b, "chat_template", &c.e, &c.d);
    EXPECT_STR(buf_view(&b), S("chat_template:2:16: unexpected '}' (near '}')"));
    buf_free(&b);
    done(&c);
    /* offsets are into the caller's source, CR LF and all */
    compile_str(&c, S("a\r\nb\r\n{% if %}"));
    REQUIRE(!c.p);
    EXPECT_EQ(c.e.line, 3);
    EXPECT_EQ(c.e.col, 7);
    EXPECT_EQ(c.e.off, 12);
    EXPECT_STR(str_cstr(c.d.near), S("%}"));
    done(&c);
    /* a message longer than err's buffer is cut, not overrun (found by fuzzing) */
    str longtag = repeat("{% for x in y %}{% ", "x", 4000, " %}");
    compile_str(&c, longtag);
    EXPECT(!c.p && c.e.code == ERR_SYNTAX && strlen(c.e.msg) == ERR_MSG_MAX - 1);
    EXPECT(!strncmp(c.e.msg, "Encountered unknown tag 'xxx", 28));
    done(&c);
    free_str(longtag);
    /* invalid UTF-8 is refused up front */
    compile_str(&c, S("ok\n\xff"));
    EXPECT(!c.p && c.e.code == ERR_UTF8 && c.e.off == 3 && c.e.line == 2 && !c.d.kind);
    done(&c);
}

/* ---- golden data from Jinja2 ---- */

static void check_construct(str rec, void *ctx)
{
    (void)ctx;
    buf bn = {0}, bs = {0}, ba = {0}, bl = {0};
    str name = field(rec, "name", &bn), src = field(rec, "src", &bs);
    str ast = field(rec, "ast", &ba), lines = field(rec, "lines", &bl);
    compiled c;
    compile_str(&c, src);
    if (!c.p) {
        printf("#   %.*s: %s\n", (int)name.len, (const char *)name.s, c.e.msg);
        test_cur_failed = 1;
    } else {
        str got = dump_of(&c, 0);
        if (!str_eq(got, ast)) {
            printf("#   %.*s:\n#     got      %.*s\n#     expected %.*s\n", (int)name.len, (const char *)name.s,
                   (int)got.len, (const char *)got.s, (int)ast.len, (const char *)ast.s);
            test_cur_failed = 1;
        }
        got = dump_of(&c, TMPL_DUMP_LINES);
        if (!str_eq(got, lines)) {
            printf("#   %.*s (lines):\n#     got      %.*s\n#     expected %.*s\n", (int)name.len,
                   (const char *)name.s, (int)got.len, (const char *)got.s, (int)lines.len, (const char *)lines.s);
            test_cur_failed = 1;
        }
    }
    done(&c);
    buf_free(&bn);
    buf_free(&bs);
    buf_free(&ba);
    buf_free(&bl);
}

static void test_constructs(void)
{
    int n = each_record("constructs.jsonl", check_construct, NULL);
    EXPECT(n >= 60);
}

/* Python names a macro's parameters l_1_a in its messages */
static str unmangle(str s, buf *b)
{
    b->len = 0;
    for (iz i = 0; i < s.len; i++) {
        if (s.s[i] == '\'' && i + 2 < s.len && s.s[i + 1] == 'l' && s.s[i + 2] == '_') {
            iz j = i + 3;
            while (j < s.len && s.s[j] >= '0' && s.s[j] <= '9')
                j++;
            if (j > i + 3 && j < s.len && s.s[j] == '_') {
                buf_byte(b, '\'');
                i = j;
                continue;
            }
        }
        buf_byte(b, s.s[i]);
    }
    return buf_view(b);
}

static void check_error(str rec, void *ctx)
{
    int *count = ctx;
    buf bs = {0}, bk = {0}, bm = {0}, bu = {0};
    str src = field(rec, "src", &bs), kind = field(rec, "kind", &bk), msg = field(rec, "msg", &bm);
    i64 line = 0;
    jget(rec, "line", NULL, &line);
    compiled c;
    compile_str(&c, src);
    bool ok;
    if (kind.len == 0) {
        ok = c.p != NULL;
    } else {
        str want = unmangle(msg, &bu);
        ok = !c.p && c.e.code == ERR_SYNTAX && c.d.kind && str_eq(str_cstr(c.d.kind), kind) &&
             str_eq(str_cstr(c.e.msg), want) && (line == 0 || c.e.line == line);
        (*count)++;
    }
    if (!ok) {
        printf("#   template \"%.*s\"\n#     got      %s %d: %s\n#     expected %.*s %d: %.*s\n", (int)src.len,
               (const char *)src.s, c.p ? "ok" : c.d.kind ? c.d.kind : err_code_name(c.e.code),
               (int)c.e.line, c.p ? "" : c.e.msg, (int)kind.len, (const char *)kind.s, (int)line,
               (int)msg.len, (const char *)msg.s);
        test_cur_failed = 1;
    }
    done(&c);
    buf_free(&bs);
    buf_free(&bk);
    buf_free(&bm);
    buf_free(&bu);
}

static void test_errors(void)
{
    int failing = 0;
    each_record("errors.jsonl", check_error, &failing);
    EXPECT(failing >= 40);
}

static void format_tokens(buf *b, const tmpl_toks *t)
{
    for (iz i = 0; i < t->n; i++) {
        const tmpl_tok *k = &t->v[i];
        if (k->kind == TMPL_TOK_EOF)
            break;
        if (b->len)
            buf_byte(b, '\n');
        if (k->kind == TMPL_TOK_ERROR) {
            buf_printf(b, "error %d %s", (int)t->error.line, t->error.msg);
            break;
        }
        buf_printf(b, "%d %s", (int)k->line, tmpl_tok_kind_name((tmpl_tok_kind)k->kind));
        if (k->kind == TMPL_TOK_DATA || k->kind == TMPL_TOK_NAME || k->kind == TMPL_TOK_STRING) {
            tmpl_node n = {0};   /* quoted as the dump quotes strings */
            n.kind = TMPL_STR;
            n.u.text = k->v.s;
            buf_byte(b, ' ');
            tmpl_dump_expr(b, &n, 0);
        } else if (k->kind == TMPL_TOK_INTEGER) {
            buf_printf(b, " %lld", (long long)k->v.i);
        } else if (k->kind == TMPL_TOK_FLOAT) {
            buf_printf(b, " %.17g", k->v.f);
        }
    }
}

static void check_tokens(str rec, void *ctx)
{
    (void)ctx;
    buf bs = {0}, bt = {0}, got = {0};
    str src = field(rec, "src", &bs), want = field(rec, "tokens", &bt);
    arena a;
    arena_init(&a, 0);
    tmpl_toks t;
    EXPECT(tmpl_lex(&a, tmpl_normalize(&a, src), &t) == ERR_OK);
    format_tokens(&got, &t);
    if (!str_eq(buf_view(&got), want)) {
        printf("#   template \"%.*s\"\n#     got\n%.*s\n#     expected\n%.*s\n", (int)src.len, (const char *)src.s,
               (int)got.len, (const char *)got.data, (int)want.len, (const char *)want.s);
        test_cur_failed = 1;
    }
    arena_fini(&a);
    buf_free(&bs);
    buf_free(&bt);
    buf_free(&got);
}

static void test_tokens(void)
{
    EXPECT(each_record("tokens.jsonl", check_tokens, NULL) >= 10);
}

/* The real templates' sources: ../shared/data/templates/NAME or the
 * chat_template of assets/NAME/tokenizer_config.json. */
static str real_source(str name)
{
    char path[1024];
    bool jinja = name.len > 6 && memcmp(name.s + name.len - 6, ".jinja", 6) == 0;
    if (jinja)
        snprintf(path, sizeof(path), "%s/data/templates/%.*s", shared_dir(), (int)name.len, (const char *)name.s);
    else
        snprintf(path, sizeof(path), "%s/%.*s/tokenizer_config.json", assets_dir(), (int)name.len,
                 (const char *)name.s);
    str f = read_file(path);
    if (!f.s) {
        printf("#   cannot read %s\n", path);
        test_cur_failed = 1;
        return f;
    }
    if (jinja)
        return f;
    buf b = {0};
    if (!jget(f, "chat_template", &b, NULL)) {
        printf("#   no chat_template in %s\n", path);
        test_cur_failed = 1;
    }
    free_str(f);
    buf_byte(&b, 0);
    return (str){b.data, b.len - 1};
}

typedef struct {
    int  n;
    str  srcs[32];
    char names[32][64];
} real_set;

static void check_real(str rec, void *ctx)
{
    real_set *rs = ctx;
    buf bn = {0}, bl = {0};
    str name = field(rec, "name", &bn), lines = field(rec, "lines", &bl);
    str src = real_source(name);
    if (src.s) {
        compiled c;
        compile_str(&c, src);
        if (!c.p) {
            printf("#   %.*s: %d: %s\n", (int)name.len, (const char *)name.s, (int)c.e.line, c.e.msg);
            test_cur_failed = 1;
        } else {
            str got = dump_of(&c, TMPL_DUMP_LINES);
            if (!str_eq(got, lines)) {
                iz k = 0;
                while (k < got.len && k < lines.len && got.s[k] == lines.s[k])
                    k++;
                iz from = MAX(0, k - 60);
                printf("#   %.*s: tree differs from Jinja's at byte %td:\n#     got      ...%.*s\n"
                       "#     expected ...%.*s\n", (int)name.len, (const char *)name.s, k,
                       (int)MIN(120, got.len - from), (const char *)got.s + from,
                       (int)MIN(120, lines.len - from), (const char *)lines.s + from);
                test_cur_failed = 1;
            }
        }
        done(&c);
        if (rs->n < 32) {
            rs->srcs[rs->n] = src;
            snprintf(rs->names[rs->n], sizeof(rs->names[0]), "%.*s", (int)name.len, (const char *)name.s);
            rs->n++;
        } else {
            free_str(src);
        }
    }
    buf_free(&bn);
    buf_free(&bl);
}

static real_set reals;

static void test_real_templates(void)
{
    each_record("real.jsonl", check_real, &reals);
    EXPECT_EQ(reals.n, 25);
}

/* ---- robustness ---- */

/* Every prefix of `src`, at the end of a guard page: the lexer on the
 * normalized prefix, then the whole compile; each parses or fails with a
 * Jinja-style error, never reading past the end. */
static int truncations(str src)
{
    int ok = 0;
    guarded g;
    if (!guard_init(&g, src.len)) {
        test_cur_failed = 1;
        return 0;
    }
    arena a;
    arena_init(&a, 0);
    arena_mark m = arena_reserve(&a, 1 << 20);   /* one block, reused by every prefix */
    for (iz len = 0; len <= src.len; len++) {
        str cut = guard_put(&g, (str){src.s, len});
        /* the lexer alone, straight on the guarded bytes (no normalization,
         * possibly cut inside a UTF-8 sequence) */
        tmpl_toks t;
        if (tmpl_lex(&a, cut, &t) != ERR_OK || t.n < 1 ||
            (t.v[t.n - 1].kind != TMPL_TOK_EOF && t.v[t.n - 1].kind != TMPL_TOK_ERROR))
            test_cur_failed = 1;
        err e;
        tmpl_diag d;
        tmpl_prog *p = tmpl_compile(&a, cut, &e, &d);
        if (p) {
            ok++;
        } else if (e.code == ERR_OK || e.msg[0] == 0 || e.line < 1 || e.off < -1 || e.off > len) {
            printf("#   prefix %td: bad error %d %d '%s'\n", len, e.code, (int)e.line, e.msg);
            test_cur_failed = 1;
        } else if (e.code == ERR_SYNTAX && !d.kind) {
            test_cur_failed = 1;
        }
        arena_restore(&a, m);
    }
    arena_fini(&a);
    guard_free(&g);
    return ok;
}

static void test_truncations(void)
{
    int total = 0, parsed = 0;
    for (int i = 0; i < reals.n; i++) {
        /* the packages' templates (qwen3 is the longest, 4 KB) and a Gemma 2 one */
        if (strcmp(reals.names[i], "qwen3") && strcmp(reals.names[i], "llama3_1") &&
            strcmp(reals.names[i], "gemma3") && strcmp(reals.names[i], "deepseek_v3") &&
            strcmp(reals.names[i], "gemma2-2b-it.jinja"))
            continue;
        parsed += truncations(reals.srcs[i]);
        total++;
    }
    EXPECT_EQ(total, 5);
    EXPECT(parsed > 0);
    /* and constructs dense in every token kind */
    truncations(S("{%- for a, b in c|items if a recursive -%}{{ '\\x41\\u00e9' ~ a[1:2:-1] }}"
                  "{% raw %}r{% endraw %}{# c #}{{ 1_0.5e-3 + 0x_f }}{% else %}é{% endfor %}\r\n"));
}

static int compile_code(str src, int *line)
{
    compiled c;
    compile_str(&c, src);
    int code = c.p ? ERR_OK : c.e.code;
    if (line)
        *line = c.e.line;
    done(&c);
    free_str(src);
    return code;
}

static str nested(const char *open, const char *close, iz n, const char *head, const char *mid,
                  const char *tail)
{
    buf b = {0};
    buf_cstr(&b, head);
    for (iz i = 0; i < n; i++)
        buf_cstr(&b, open);
    buf_cstr(&b, mid);
    for (iz i = 0; i < n; i++)
        buf_cstr(&b, close);
    buf_cstr(&b, tail);
    return buf_view(&b);
}

static void test_limits(void)
{
    /* nesting far beyond every limit fails cleanly (no stack overflow) */
    EXPECT_EQ(compile_code(nested("(", ")", 20000, "{{ ", "1", " }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(nested("[", "]", 20000, "{{ ", "1", " }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(nested("{'a': ", "}", 20000, "{{ ", "1", " }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(nested("f(", ")", 20000, "{{ ", "1", " }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(nested("x[", "]", 20000, "{{ ", "1", " }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(repeat("{{ ", "not ", 20000, "x }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(repeat("{{ ", "- ", 20000, "x }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(repeat("{{ ", "a if b else ", 20000, "x }}"), NULL), ERR_LIMIT);
    /* long left-leaning chains: no parser recursion, but a deep tree */
    EXPECT_EQ(compile_code(repeat("{{ x", " + x", 20000, " }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(repeat("{{ x", "|trim", 20000, " }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(repeat("{{ x", ".a", 20000, " }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(repeat("{{ x", " and x", 20000, " }}"), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(repeat("{{ x", "(1)", 20000, " }}"), NULL), ERR_LIMIT);
    /* flat lists are not deep */
    EXPECT_EQ(compile_code(repeat("{{ [1", ", 1", 20000, "] }}"), NULL), ERR_OK);
    EXPECT_EQ(compile_code(repeat("{{ x", " ~ x", 20000, " }}"), NULL), ERR_OK);
    EXPECT_EQ(compile_code(repeat("{{ x", " < x", 20000, " }}"), NULL), ERR_OK);
    EXPECT_EQ(compile_code(repeat("", "{{ x }} text ", 20000, ""), NULL), ERR_OK);
    /* within the limits */
    EXPECT_EQ(compile_code(nested("(", ")", 100, "{{ ", "1", " }}"), NULL), ERR_OK);
    EXPECT_EQ(compile_code(repeat("{{ x", " + x", TMPL_MAX_EXPR_DEPTH - 2, " }}"), NULL), ERR_OK);
    EXPECT_EQ(compile_code(repeat("{{ x", " + x", TMPL_MAX_EXPR_DEPTH, " }}"), NULL), ERR_LIMIT);
    /* statement nesting: exactly TMPL_MAX_NEST levels are fine */
    EXPECT_EQ(compile_code(nested("{% if x %}", "{% endif %}", TMPL_MAX_NEST, "", "a", ""), NULL), ERR_OK);
    int line = 0;
    EXPECT_EQ(compile_code(nested("{% if x %}\n", "{% endif %}", TMPL_MAX_NEST + 1, "", "a", ""), &line), ERR_LIMIT);
    EXPECT_EQ(line, TMPL_MAX_NEST + 1);
    EXPECT_EQ(compile_code(nested("{% for x in y %}", "{% endfor %}", 20000, "", "", ""), NULL), ERR_LIMIT);
    EXPECT_EQ(compile_code(nested("{% macro m() %}", "{% endmacro %}", 20000, "", "", ""), NULL), ERR_LIMIT);
    /* the source size */
    u8 *big = malloc(TMPL_MAX_SOURCE + 1);
    memset(big, 'x', TMPL_MAX_SOURCE + 1);
    compiled c;
    compile_str(&c, (str){big, TMPL_MAX_SOURCE + 1});
    EXPECT(!c.p && c.e.code == ERR_LIMIT);
    done(&c);
    free(big);
}

/* Out of memory at every stage: an arena limit too small for the template
 * gives ERR_NOMEM (never a crash), and the caller's oom target survives. */
static void test_out_of_memory(void)
{
    str src = S("{% for m in messages %}{{ m.role|upper ~ ': ' ~ m['content']|trim }}\n{% endfor %}");
    int nomem = 0, okc = 0;
    for (iz limit = 1; limit < (1 << 20); limit = limit * 5 / 4 + 1) {
        arena a;
        arena_init(&a, limit);
        jmp_buf mine;
        a.oom = &mine;
        err e;
        tmpl_prog *p = tmpl_compile(&a, src, &e, NULL);
        if (p)
            okc++;
        else if (e.code == ERR_NOMEM)
            nomem++;
        else
            test_cur_failed = 1;
        EXPECT(a.oom == &mine);
        arena_fini(&a);
    }
    EXPECT(nomem > 0 && okc > 0);
    /* a failed compile leaves nothing behind in the arena */
    arena a;
    arena_init(&a, 0);
    void *before = arena_alloc(&a, 1, 1, 1);
    iz used = arena_bytes(&a);
    err e;
    str big = repeat("", "{{ x.y[0] }} text ", 20000, "{{ (");
    EXPECT(!tmpl_compile(&a, big, &e, NULL));
    EXPECT_EQ(arena_bytes(&a), used);
    EXPECT(arena_alloc(&a, 1, 1, 1) == (u8 *)before + 1);
    free_str(big);
    arena_fini(&a);
}

/* ---- the tree's API ---- */

static void walk(const tmpl_prog *p, const tmpl_node *n, int *bad);

static void walk_list(const tmpl_prog *p, const tmpl_list *l, int *bad)
{
    for (i32 i = 0; i < l->n; i++)
        walk(p, l->v[i], bad);
}

static void check_ident(const tmpl_prog *p, tmpl_ident id, int *bad)
{
    if (id.sym < 0 || id.sym >= p->nsyms || !str_eq(p->syms[id.sym], id.s) || tmpl_sym_find(p, id.s) != id.sym)
        (*bad)++;
}

/* Structural invariants of every node: positions, heights, symbols. */
static void walk(const tmpl_prog *p, const tmpl_node *n, int *bad)
{
    if (!n)
        return;
    if (n->line < 1 || n->col < 1 || n->height > TMPL_MAX_EXPR_DEPTH || n->kind == 0 ||
        n->kind >= TMPL_KIND_COUNT)
        (*bad)++;
    switch (n->kind) {
    case TMPL_TEXT: if (n->u.text.len == 0) (*bad)++; break;
    case TMPL_OUTPUT: walk(p, n->u.expr, bad); break;
    case TMPL_IF:
        walk(p, n->u.if_.test, bad);
        walk_list(p, &n->u.if_.body, bad);
        walk_list(p, &n->u.if_.elifs, bad);
        walk_list(p, &n->u.if_.orelse, bad);
        break;
    case TMPL_FOR:
        walk(p, n->u.for_.target, bad);
        walk(p, n->u.for_.iter, bad);
        walk(p, n->u.for_.filter, bad);
        walk_list(p, &n->u.for_.body, bad);
        walk_list(p, &n->u.for_.orelse, bad);
        break;
    case TMPL_SET: walk(p, n->u.set.target, bad); walk(p, n->u.set.value, bad); break;
    case TMPL_SET_BLOCK:
        walk(p, n->u.setblock.target, bad);
        walk(p, n->u.setblock.filter, bad);
        walk_list(p, &n->u.setblock.body, bad);
        break;
    case TMPL_MACRO: case TMPL_CALL_BLOCK:
        if (n->kind == TMPL_MACRO)
            check_ident(p, n->u.macro.name, bad);
        walk_list(p, &n->u.macro.params, bad);
        walk_list(p, &n->u.macro.defaults, bad);
        walk(p, n->u.macro.call, bad);
        walk_list(p, &n->u.macro.body, bad);
        break;
    case TMPL_FILTER_BLOCK: case TMPL_GENERATION:
        walk(p, n->u.fblock.filter, bad);
        walk_list(p, &n->u.fblock.body, bad);
        break;
    case TMPL_NAME: check_ident(p, n->u.name, bad); break;
    case TMPL_GETATTR: check_ident(p, n->u.getattr.attr, bad); walk(p, n->u.getattr.obj, bad); break;
    case TMPL_GETITEM: walk(p, n->u.getitem.obj, bad); walk(p, n->u.getitem.index, bad); break;
    case TMPL_TUPLE: case TMPL_LIST: case TMPL_CONCAT: walk_list(p, &n->u.items, bad); break;
    case TMPL_CALL: case TMPL_FILTER: case TMPL_TEST: {
        const tmpl_args *a = n->kind == TMPL_CALL ? &n->u.call.args : &n->u.filter.args;
        walk(p, n->kind == TMPL_CALL ? n->u.call.callee : n->u.filter.arg, bad);
        walk_list(p, &a->pos, bad);
        for (i32 i = 0; i < a->nkw; i++) {
            check_ident(p, a->kw[i].key, bad);
            walk(p, a->kw[i].value, bad);
        }
        walk(p, a->star, bad);
        walk(p, a->dstar, bad);
        if (n->kind != TMPL_CALL)
            check_ident(p, n->u.filter.name, bad);
        break;
    }
    case TMPL_BINOP: case TMPL_AND: case TMPL_OR:
        walk(p, n->u.bin.l, bad);
        walk(p, n->u.bin.r, bad);
        if (n->height <= MAX(n->u.bin.l->height, n->u.bin.r->height))
            (*bad)++;
        break;
    case TMPL_COMPARE:
        walk(p, n->u.cmp.first, bad);
        for (i32 i = 0; i < n->u.cmp.n; i++)
            walk(p, n->u.cmp.rhs[i], bad);
        break;
    case TMPL_COND: walk(p, n->u.cond.test, bad); walk(p, n->u.cond.then, bad); walk(p, n->u.cond.orelse, bad); break;
    case TMPL_NOT: case TMPL_NEG: case TMPL_POS: walk(p, n->u.operand, bad); break;
    }
}

static void test_tree_api(void)
{
    for (int i = 0; i < reals.n; i++) {
        compiled c;
        compile_str(&c, reals.srcs[i]);
        REQUIRE(c.p);
        int bad = 0;
        walk_list(c.p, &c.p->body, &bad);
        if (bad) {
            printf("#   %s: %d nodes break the invariants\n", reals.names[i], bad);
            test_cur_failed = 1;
        }
        EXPECT(tmpl_sym_find(c.p, S("messages")) >= 0);
        EXPECT(tmpl_sym_find(c.p, S("no such variable here")) < 0);
        done(&c);
    }
    /* symbols, ids, columns on a small template */
    compiled c;
    compile_str(&c, S("{% for m in messages %}\n  {{- m.content|trim ~ m['x']|d('y') }}{{ m is equalto 1 }}{% endfor %}"));
    REQUIRE(c.p && c.p->body.n == 1);
    const tmpl_node *f = c.p->body.v[0];
    EXPECT(f->kind == TMPL_FOR && f->line == 1 && f->col == 4);
    EXPECT(f->u.for_.target->op == TMPL_CTX_STORE);
    EXPECT(f->u.for_.target->u.name.sym == tmpl_sym_find(c.p, S("m")));
    REQUIRE(f->u.for_.body.n == 2);
    const tmpl_node *out = f->u.for_.body.v[0];
    EXPECT(out->kind == TMPL_OUTPUT);
    const tmpl_node *cat = out->u.expr;
    REQUIRE(cat->kind == TMPL_CONCAT && cat->u.items.n == 2);
    EXPECT(cat->line == 2 && cat->col == 7);
    const tmpl_node *trim = cat->u.items.v[0];
    EXPECT(trim->kind == TMPL_FILTER && trim->u.filter.id == TMPL_FILTER_TRIM && trim->col == 17);
    EXPECT(cat->u.items.v[1]->u.filter.id == TMPL_FILTER_DEFAULT);   /* d is default */
    const tmpl_node *t = f->u.for_.body.v[1]->u.expr;
    EXPECT(t->kind == TMPL_TEST && t->u.filter.id == TMPL_TEST_EQ);
    EXPECT(trim->u.filter.arg->kind == TMPL_GETATTR && trim->u.filter.arg->height == 2 && cat->height == 4);
    done(&c);
    EXPECT(tmpl_filter_lookup(S("count")) == TMPL_FILTER_LENGTH);
    EXPECT(tmpl_filter_lookup(S("e")) == TMPL_FILTER_ESCAPE);
    EXPECT(tmpl_filter_lookup(S("from_json")) == TMPL_FILTER_UNKNOWN);
    EXPECT(tmpl_test_lookup(S("==")) == TMPL_TEST_EQ);
    EXPECT(tmpl_test_lookup(S("greaterthan")) == TMPL_TEST_GT);
    EXPECT(tmpl_test_lookup(S("none")) == TMPL_TEST_NONE);
    EXPECT(!strcmp(tmpl_kind_name(TMPL_CALL_BLOCK), "callblock"));
    /* strings: a plain literal is a slice of the program's source */
    compile_str(&c, S("{{ 'plain' }}{{ 'a' 'b' }}{{ 'x\\ty' }}"));
    REQUIRE(c.p && c.p->body.n == 3);
    str s0 = c.p->body.v[0]->u.expr->u.text;
    EXPECT(s0.s == c.p->src.s + 4 && s0.len == 5);
    EXPECT_STR(c.p->body.v[1]->u.expr->u.text, S("ab"));
    EXPECT_STR(c.p->body.v[2]->u.expr->u.text, S("x\ty"));
    done(&c);
}

int main(void)
{
    RUN(test_whitespace);
    RUN(test_expressions);
    RUN(test_statements);
    RUN(test_errors_inline);
    RUN(test_constructs);
    RUN(test_errors);
    RUN(test_tokens);
    RUN(test_real_templates);
    RUN(test_truncations);
    RUN(test_limits);
    RUN(test_out_of_memory);
    RUN(test_tree_api);
    for (int i = 0; i < reals.n; i++)
        free_str(reals.srcs[i]);
    return test_done();
}
