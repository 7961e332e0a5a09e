/* test_tmpl_golden.c - the exactness acceptance test of the template engine
 * and the chat layer: every template of tests/data/tmpl/templates.tsv over
 * every context set (edge, bfcl, agentic, agentic_nonull) must give the
 * rendering Jinja2 gave (same sha256 and length) or fail with the same
 * exception class (tests/data/tmpl/README.md has the formats). One test per
 * template x set; a mismatch prints the context id and what we produced.
 * An error of the right class with another message is counted and shown
 * but does not fail yet.
 *
 * Environment: TMPL_GOLDEN_ONLY=name,name runs some templates only,
 * TMPL_GOLDEN_SETS=edge,bfcl some sets only, TMPL_GOLDEN_SHOW=N prints up to
 * N mismatches per cell (default 3). Templates come from $TALLY_SHARED (else
 * ../shared)/data/templates, tokenizer configs from $TALLY_ASSETS (else
 * assets/). */
#include <time.h>
#include "test.h"
#include "test_util.h"
#include "sha256.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/chat/chat_template.h"
#include "../src/json/json.h"

enum { MAX_TEMPLATES = 64, NSETS = 4 };
static const char *const sets[NSETS] = {"edge", "bfcl", "agentic", "agentic_nonull"};

typedef struct cell {
    bool ran;
    bool broken;       /* the data could not be read or did not line up */
    iz   cases, match, mismatch, msgdiff;
    iz   shown, shown_msg;
} cell;

typedef struct tcase {
    char       name[128];
    char       source[256];
    char       tokenizer[64];
    arena      perm;       /* the loaded template's memory */
    chat_tmpl *ct;
    char       load_error[ERR_MSG_MAX + 64];
    cell       cells[NSETS];
} tcase;

static tcase cases[MAX_TEMPLATES];
static int ncases;
static int show_max = 3;
static const tcase *cur_case;
static int cur_set;

/* Prints s as a JSON string, cut to `max` bytes (at a UTF-8 boundary). */
static void print_snippet(str s, iz max)
{
    if (s.len > max) {
        s.len = max;
        while (s.len > 0 && (s.s[s.len] & 0xC0) == 0x80)
            s.len--;
    }
    buf b = {0};
    json_write_str(&b, s);
    printf("%.*s", (int)b.len, (const char *)b.data);
    buf_free(&b);
}

static void test_sha256_vectors(void)
{
    /* FIPS 180-4's examples (NIST CSRC "SHA256.pdf", "SHA256_2.pdf") and the
     * one-million-'a' vector of FIPS 180-2 appendix B.3. */
    char hex[65];
    sha256_hex(S(""), hex);
    EXPECT(!strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    sha256_hex(S("abc"), hex);
    EXPECT(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    sha256_hex(S("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"), hex);
    EXPECT(!strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    char *m = malloc(1000000);
    memset(m, 'a', 1000000);
    sha256_hex(str_from(m, 1000000), hex);
    EXPECT(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    /* fed in odd pieces, the same digest */
    sha256_ctx c;
    u8 d[32];
    sha256_init(&c);
    for (iz off = 0, step = 1; off < 1000000; off += step, step = step % 97 + 1)
        sha256_update(&c, m + off, MIN(step, 1000000 - off));
    sha256_final(&c, d);
    EXPECT(d[0] == 0xcd && d[1] == 0xc7 && d[31] == 0xd0);
    free(m);
}

static bool load_templates(void)
{
    const char *shared = test_env_or("TALLY_SHARED", "../shared");
    const char *assets = test_env_or("TALLY_ASSETS", "assets");
    const char *only = getenv("TMPL_GOLDEN_ONLY");
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str tsv = os_read_file(&a, "tests/data/tmpl/templates.tsv", &e);
    if (!tsv.s) {
        printf("#   %s\n", e.msg);
        arena_fini(&a);
        return false;
    }
    str *ln;
    iz n = test_lines_of(&a, tsv, &ln);
    for (iz k = 0; k < n; k++) {
        if (ln[k].s[0] == '#')
            continue;
        tcase *t = &cases[ncases];
        if (sscanf((const char *)ln[k].s, "%127[^\t]\t%255[^\t]\t%63[^\t\n]", t->name, t->source, t->tokenizer) != 3) {
            printf("#   templates.tsv line %td: expected name, source, tokenizer\n", k + 1);
            arena_fini(&a);
            return false;
        }
        if (!test_listed(only, t->name))
            continue;
        if (++ncases == MAX_TEMPLATES)
            break;
    }
    arena_fini(&a);
    for (int k = 0; k < ncases; k++) {
        tcase *t = &cases[k];
        char dir[512], file[512];
        snprintf(dir, sizeof(dir), "%s/%s", assets, t->tokenizer);
        snprintf(file, sizeof(file), "%s/%s", shared, t->source);
        arena_init(&t->perm, 0);
        t->ct = chat_tmpl_load(&t->perm, dir, strcmp(t->source, "package") ? file : NULL, &e);
        if (!t->ct)
            snprintf(t->load_error, sizeof(t->load_error), "%s", e.msg);
        else if (chat_tmpl_count(t->ct) != 1 || chat_tmpl_compile_error(t->ct, 0))
            snprintf(t->load_error, sizeof(t->load_error), "%s: %s", chat_tmpl_source(t->ct),
                     chat_tmpl_count(t->ct) != 1 ? "not one template" : chat_tmpl_compile_error(t->ct, 0)->msg);
    }
    return true;
}

typedef struct golden {
    const json *id;
    str sha, type, msg;    /* sha256 + len, or error_type + error */
    i64 len;
    str rendered;          /* edge.full only */
} golden;

static bool golden_parse(arena *a, str line, golden *g)
{
    memset(g, 0, sizeof(*g));
    err e;
    json *v = json_parse(a, line, NULL, &e);
    if (!v)
        return false;
    g->id = json_get(v, S("id"));
    const json *sha = json_get_type(v, S("sha256"), JSON_STR), *len = json_get_type(v, S("len"), JSON_INT);
    const json *type = json_get_type(v, S("error_type"), JSON_STR), *msg = json_get_type(v, S("error"), JSON_STR);
    const json *r = json_get_type(v, S("rendered"), JSON_STR);
    if (r)
        g->rendered = r->u.s;
    if (sha && len) {
        g->sha = sha->u.s;
        g->len = len->u.i;
        return true;
    }
    if (type && msg) {
        g->type = type->u.s;
        g->msg = msg->u.s;
        return true;
    }
    return false;
}

static void print_id(const json *id)
{
    if (id && id->type == JSON_STR)
        printf("%.*s", (int)id->u.s.len, (const char *)id->u.s.s);
    else
        printf("(no id)");
}

/* One context through one template: compares and counts. */
static void check_one(tcase *t, cell *c, const json *ctx, const golden *g, const tmpl_render_opts *o,
                      arena *scratch, buf *out)
{
    c->cases++;
    out->len = 0;
    out->failed = false;
    tmpl_error te;
    int rc = chat_render_prompt(t->ct, ctx, o, scratch, out, &te);
    bool same = false, msgdiff = false;
    if (g->sha.len) {
        if (rc == ERR_OK && !out->failed && out->len == g->len) {
            char hex[65];
            sha256_hex(buf_view(out), hex);
            same = str_eq(str_cstr(hex), g->sha);
        }
    } else if (rc != ERR_OK && te.exc && str_eq(str_cstr(te.exc), g->type)) {
        same = true;
        str m = str_cstr(te.msg);
        /* Python ends a RecursionError's message with where the limit hit;
         * the golden keeps the stem only. */
        if (str_eq(g->type, S("RecursionError")))
            m.len = MIN(m.len, g->msg.len);
        msgdiff = !str_eq(m, g->msg);
    }
    if (same) {
        c->match++;
        if (msgdiff) {
            c->msgdiff++;
            if (c->shown_msg++ < show_max) {
                printf("#   %s.%s ", t->name, sets[cur_set]);
                print_id(g->id);
                printf(": message differs (%.*s)\n#     got      ", (int)g->type.len, (const char *)g->type.s);
                print_snippet(str_cstr(te.msg), 300);
                printf("\n#     expected ");
                print_snippet(g->msg, 300);
                printf("\n");
            }
        }
        return;
    }
    c->mismatch++;
    if (c->shown++ >= show_max)
        return;
    printf("#   %s.%s ", t->name, sets[cur_set]);
    print_id(g->id);
    printf(": expected ");
    if (g->sha.len)
        printf("%lld bytes", (long long)g->len);
    else {
        printf("%.*s: ", (int)g->type.len, (const char *)g->type.s);
        print_snippet(g->msg, 200);
    }
    printf("\n#     got      ");
    if (rc != ERR_OK) {
        printf("%s: ", te.exc ? te.exc : err_code_name(te.code));
        print_snippet(str_cstr(te.msg), 300);
        printf(" (template line %d)\n", (int)te.line);
        return;
    }
    printf("%td bytes", out->len);
    str got = buf_view(out);
    if (g->rendered.s) {
        iz at = 0;
        while (at < got.len && at < g->rendered.len && got.s[at] == g->rendered.s[at])
            at++;
        while (at > 0 && at < got.len && (got.s[at] & 0xC0) == 0x80)
            at--;
        iz from = at > 40 ? at - 40 : 0;
        printf(", first difference at byte %td\n#     got      ...", at);
        print_snippet(str_cut(got, from, got.len), 200);
        printf("\n#     expected ...");
        print_snippet(str_cut(g->rendered, MIN(from, g->rendered.len), g->rendered.len), 200);
        printf("\n");
    } else {
        printf(": ");
        print_snippet(got, 200);
        printf("\n");
    }
}

static void run_set(int s, const tmpl_render_opts *o)
{
    cur_set = s;
    char path[512];
    arena a;
    arena_init(&a, 0);
    err e = {0};
    snprintf(path, sizeof(path), "tests/data/tmpl/contexts/%s.jsonl", sets[s]);
    str src = os_read_file(&a, path, &e);
    if (!src.s) {
        printf("#   %s (run `make test-build`, which rebuilds the agentic contexts)\n", e.msg);
        for (int t = 0; t < ncases; t++)
            cases[t].cells[s].ran = cases[t].cells[s].broken = true;
        arena_fini(&a);
        return;
    }
    str *ctx;
    iz nctx = test_lines_of(&a, src, &ctx);
    str *gl[MAX_TEMPLATES] = {0};
    for (int t = 0; t < ncases; t++) {
        cell *c = &cases[t].cells[s];
        c->ran = true;
        if (cases[t].load_error[0]) {
            c->broken = true;
            continue;
        }
        snprintf(path, sizeof(path), "tests/data/tmpl/golden/%.127s.%s%s.jsonl", cases[t].name, sets[s],
                 s == 0 ? ".full" : "");
        str g = os_read_file(&a, path, &e);
        if (!g.s || test_lines_of(&a, g, &gl[t]) != nctx) {
            printf("#   %s: %s\n", path, g.s ? "not one line per context" : e.msg);
            c->broken = true;
        }
    }
    arena scratch;
    arena_init(&scratch, 0);
    buf out = {0};
    for (iz k = 0; k < nctx; k++) {
        arena_mark m = arena_save(&scratch);
        json *v = json_parse(&scratch, ctx[k], NULL, &e);
        for (int t = 0; t < ncases; t++) {
            cell *c = &cases[t].cells[s];
            if (c->broken)
                continue;
            golden g;
            const json *id = json_get(v, S("id"));
            if (!v || !golden_parse(&scratch, gl[t][k], &g) || !id || !g.id || id->type != JSON_STR
                || g.id->type != JSON_STR || !str_eq(id->u.s, g.id->u.s)) {
                printf("#   %s.%s line %td: context and golden line do not match\n", cases[t].name, sets[s], k + 1);
                c->broken = true;
                continue;
            }
            check_one(&cases[t], c, v, &g, o, &scratch, &out);
        }
        arena_restore(&scratch, m);
    }
    buf_free(&out);
    arena_fini(&scratch);
    arena_fini(&a);
}

static void test_cell(void)
{
    const tcase *t = cur_case;
    const cell *c = &t->cells[cur_set];
    if (t->load_error[0])
        printf("#   %s: %s\n", t->name, t->load_error);
    REQUIRE(!c->broken);
    printf("#   %s.%s: %td cases, %td match, %td mismatch, %td message differs\n", t->name, sets[cur_set], c->cases,
           c->match, c->mismatch, c->msgdiff);
    EXPECT(c->cases > 0);
    EXPECT_EQ(c->mismatch, 0);
}

static void print_table(void)
{
    printf("#\n# Exactness (mismatches / cases; \"msg\": right class, other message):\n#\n");
    printf("# | template |");
    for (int s = 0; s < NSETS; s++)
        printf(" %s |", sets[s]);
    printf("\n# |---|");
    for (int s = 0; s < NSETS; s++)
        printf("---|");
    printf("\n");
    for (int t = 0; t < ncases; t++) {
        printf("# | %s |", cases[t].name);
        for (int s = 0; s < NSETS; s++) {
            const cell *c = &cases[t].cells[s];
            if (!c->ran)
                printf(" – |");
            else if (c->broken)
                printf(" no data |");
            else {
                printf(" %td / %td", c->mismatch, c->cases);
                if (c->msgdiff)
                    printf(" (%td msg)", c->msgdiff);
                printf(" |");
            }
        }
        printf("\n");
    }
}

int main(void)
{
    RUN(test_sha256_vectors);
    show_max = atoi(test_env_or("TMPL_GOLDEN_SHOW", "3"));
    if (!load_templates()) {
        test_count++;
        test_failed++;
        printf("not ok %d - load templates\n", test_count);
        return test_done();
    }
    /* The clock the goldens were made with: 2025-01-15T12:00:00. */
    struct tm tm = {.tm_year = 2025 - 1900, .tm_mon = 0, .tm_mday = 15, .tm_hour = 12};
    tmpl_render_opts o = {.now = (i64)timegm(&tm)};
    const char *only_sets = getenv("TMPL_GOLDEN_SETS");
    for (int s = 0; s < NSETS; s++) {
        if (!test_listed(only_sets, sets[s]))
            continue;
        run_set(s, &o);
        for (int t = 0; t < ncases; t++) {
            char name[256];
            snprintf(name, sizeof(name), "%.127s.%s", cases[t].name, sets[s]);
            cur_case = &cases[t];
            cur_set = s;
            test_run(name, test_cell);
        }
    }
    print_table();
    for (int t = 0; t < ncases; t++)
        arena_fini(&cases[t].perm);
    return test_done();
}
