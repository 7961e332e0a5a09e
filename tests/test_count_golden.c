/* test_count_golden.c - the exactness acceptance test of the four counting
 * kinds (src/chat/count.h): for qwen3, llama3_1, deepseek_v3 and gemma3,
 * count_item over the agentic prompts as given and the BFCL prompts (prompt
 * kind, upstream's rules), the agentic outputs (message kind), the message
 * texts (text kind) and hand-made edge cases of both chat kinds must give the
 * oracle's count and the same fallback class on every item (or fail where
 * the oracle failed); the message framing (prefix_len, baseline) must be the
 * oracle's too. Two more models, qwen3 with the failing templates of
 * tests/data/count/edge/, run the edge cases. Goldens: tests/data/count/
 * (README.md there); inputs: build/inputs/, rebuilt by `make test-build` and
 * checked against tests/data/count/INPUTS.sha256, and tests/data/count/edge/.
 *
 * Environment: COUNT_GOLDEN_ONLY=qwen3,qwen3@strict runs some models only,
 * COUNT_GOLDEN_SETS=agentic,bfcl,agentic_out,texts,edge_prompt,edge_msg some sets only,
 * COUNT_GOLDEN_SHOW=N prints up to N mismatching ids per cell (default 5);
 * tokenizers come from $TALLY_ASSETS (else assets/). */
#include <time.h>
#include "test.h"
#include "test_util.h"
#include "sha256.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/chat/count.h"
#include "../src/json/json.h"

enum { NTOKS = 6, NSETS = 6 };

/* A model: a tokenizer folder under assets/, and for the edge-only models a
 * chat template file that replaces the tokenizer's (the oracle's
 * --chat-template), named <tokenizer>@<file stem>. */
typedef struct model_def {
    const char *name, *tokenizer, *template_file;
} model_def;

static const model_def toks[NTOKS] = {
    {"qwen3", "qwen3", NULL},
    {"llama3_1", "llama3_1", NULL},
    {"deepseek_v3", "deepseek_v3", NULL},
    {"gemma3", "gemma3", NULL},
    {"qwen3@strict", "qwen3", "tests/data/count/edge/strict.jinja"},
    {"qwen3@nobaseline", "qwen3", "tests/data/count/edge/nobaseline.jinja"},
};

typedef struct set_def {
    const char *name;      /* as in COUNT_GOLDEN_SETS and the table */
    const char *input;     /* under build/inputs/ (checked), or a committed path */
    const char *variant;   /* golden/<model>.<name>.<variant>.jsonl */
    count_kind  kind;
    bool        edge;      /* committed input; run by every model */
} set_def;

static const set_def sets[NSETS] = {
    {"agentic", "agentic_prompts.jsonl", "mlc", COUNT_PROMPT, false},
    {"bfcl", "bfcl_prompts.jsonl", "mlc", COUNT_PROMPT, false},
    {"agentic_out", "agentic_outputs.jsonl", "msg", COUNT_MESSAGE, false},
    {"texts", "texts.jsonl", "text", COUNT_TEXT, false},
    {"edge_prompt", "tests/data/count/edge/prompts.jsonl", "mlc", COUNT_PROMPT, true},
    {"edge_msg", "tests/data/count/edge/messages.jsonl", "msg", COUNT_MESSAGE, true},
};

/* Whether model t runs set s: the edge-only models run the edge sets only. */
static bool runs_set(int t, int s)
{
    return sets[s].edge || !toks[t].template_file;
}

typedef struct cell {
    bool ran;
    bool broken;                 /* data missing or not lined up: fails */
    iz   items, mismatch;
    iz   fb_golden, fb_ours;     /* items that fell back, per side */
    iz   err_golden, err_ours;   /* items that could not be counted */
    i64  sum_golden, sum_ours;
    iz   shown;
} cell;

typedef struct model_case {
    const char  *name;
    count_model *m;
    char         load_error[ERR_MSG_MAX];
    cell         cells[NSETS];
} model_case;

static model_case models[NTOKS];
static int show_max = 5;
static int cur_tok, cur_set;

/* The sha256 that INPUTS.sha256 lists for `file`, or an empty slice. */
static str listed_sha(str sums, const char *file)
{
    str want = str_cstr(file);
    for (iz i = 0; i + 66 <= sums.len;) {
        iz e = i;
        while (e < sums.len && sums.s[e] != '\n')
            e++;
        /* "<64 hex>  <name>" as sha256sum writes it */
        str line = str_cut(sums, i, e);
        if (line.len == 66 + want.len && str_eq(str_cut(line, 66, line.len), want))
            return str_cut(line, 0, 64);
        i = e + 1;
    }
    return (str){0};
}

/* Reads build/inputs/<file> and checks it is the very file the goldens were
 * made from; {0} (and a message) when it is missing or differs. */
static str read_input(arena *a, const char *file)
{
    err e = {0};
    str sums = os_read_file(a, "tests/data/count/INPUTS.sha256", &e);
    if (!sums.s) {
        printf("#   %s\n", e.msg);
        return (str){0};
    }
    char path[256];
    snprintf(path, sizeof(path), "build/inputs/%s", file);
    str src = os_read_file(a, path, &e);
    if (!src.s) {
        printf("#   %s (run `make test-build`, which rebuilds build/inputs)\n", e.msg);
        return (str){0};
    }
    char hex[65];
    sha256_hex(src, hex);
    str want = listed_sha(sums, file);
    if (!want.len || !str_eq(want, str_cstr(hex))) {
        printf("#   %s: sha256 %s, INPUTS.sha256 has %.*s\n", path, hex, (int)want.len,
               want.len ? (const char *)want.s : "nothing");
        return (str){0};
    }
    return src;
}

static void print_id(const json *id)
{
    if (id && id->type == JSON_STR)
        printf("%.*s", (int)id->u.s.len, (const char *)id->u.s.s);
    else
        printf("(no id)");
}

/* The count_input of one input line, taking the fields the kind needs as
 * the line has them (a JSON null stays a null node; an absent key is NULL). */
static bool input_of(const json *v, count_kind kind, count_input *in)
{
    memset(in, 0, sizeof(*in));
    in->kind = kind;
    switch (kind) {
    case COUNT_PROMPT:
        in->messages = json_get(v, S("messages"));
        in->tools = json_get(v, S("tools"));
        in->tool_choice = json_get(v, S("tool_choice"));
        in->chat_template = json_get(v, S("chat_template"));
        in->chat_template_kwargs = json_get(v, S("chat_template_kwargs"));
        return in->messages != NULL;
    case COUNT_MESSAGE:
        in->content = json_get(v, S("content"));
        in->reasoning = json_get(v, S("reasoning"));
        in->tool_calls = json_get(v, S("tool_calls"));
        return true;
    case COUNT_TEXT: {
        const json *t = json_get_type(v, S("text"), JSON_STR);
        if (t)
            in->text = t->u.s;
        return t != NULL;
    }
    case COUNT_IDS:
        break;
    }
    return false;
}

/* One item: compares count_item's result with the golden line. */
static void check_one(model_case *mc, cell *c, count_work *w, const json *v, const json *g)
{
    const json *gid = json_get(g, S("id")), *gn = json_get_type(g, S("n"), JSON_INT);
    const json *gfb = json_get_type(g, S("fallback"), JSON_STR), *gerr = json_get(g, S("error"));
    count_input in;
    count_result r;
    memset(&r, 0, sizeof(r));
    c->items++;
    if (!input_of(v, sets[cur_set].kind, &in)) {
        r.code = ERR_INVALID;
        snprintf(r.msg, sizeof(r.msg), "the input line lacks the fields of its kind");
    } else
        count_item(w, &in, &r);
    bool ok_ours = r.code == ERR_OK;
    c->fb_golden += gfb != NULL;
    c->err_golden += gerr != NULL;
    c->fb_ours += ok_ours && r.fallback;
    c->err_ours += !ok_ours;
    if (gn)
        c->sum_golden += gn->u.i;
    if (ok_ours)
        c->sum_ours += r.n;
    bool same;
    if (gerr)
        same = !ok_ours;
    else
        same = ok_ours && gn && r.n == gn->u.i && (gfb ? r.fallback && str_eq(str_cstr(r.fallback), gfb->u.s)
                                                      : r.fallback == NULL);
    if (same)
        return;
    c->mismatch++;
    if (c->shown++ >= show_max)
        return;
    printf("#   %s.%s ", mc->name, sets[cur_set].name);
    print_id(gid);
    printf(": expected ");
    if (gerr)
        printf("an error");
    else {
        printf("n=%lld", gn ? (long long)gn->u.i : -1LL);
        if (gfb)
            printf(" (fallback %.*s)", (int)gfb->u.s.len, (const char *)gfb->u.s.s);
    }
    printf(", got ");
    if (!ok_ours)
        printf("%s: %s\n", err_code_name(r.code), r.msg);
    else if (r.fallback)
        printf("n=%lld (fallback %s; the render said: %.200s)\n", (long long)r.n, r.fallback, r.msg);
    else
        printf("n=%lld\n", (long long)r.n);
}

static void run_set(int s)
{
    cur_set = s;
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str src = sets[s].edge ? os_read_file(&a, sets[s].input, &e) : read_input(&a, sets[s].input);
    if (sets[s].edge && !src.s)
        printf("#   %s\n", e.msg);
    str *inl = NULL;
    iz nin = src.s ? test_lines_of(&a, src, &inl) : 0;
    str *gl[NTOKS] = {0};
    for (int t = 0; t < NTOKS; t++) {
        cell *c = &models[t].cells[s];
        if (!models[t].name || !runs_set(t, s))
            continue;
        c->ran = true;
        if (!src.s || !models[t].m) {
            c->broken = true;
            continue;
        }
        char path[256];
        snprintf(path, sizeof(path), "tests/data/count/golden/%s.%s.%s.jsonl", models[t].name, sets[s].name,
                 sets[s].variant);
        str g = os_read_file(&a, path, &e);
        if (!g.s || test_lines_of(&a, g, &gl[t]) != nin) {
            printf("#   %s: %s\n", path, g.s ? "not one line per input line" : e.msg);
            c->broken = true;
        }
    }
    count_work *w[NTOKS] = {0};
    for (int t = 0; t < NTOKS; t++)
        if (models[t].name && models[t].cells[s].ran && !models[t].cells[s].broken)
            w[t] = count_work_new(models[t].m);
    arena scratch;
    arena_init(&scratch, 0);
    for (iz k = 0; k < nin; k++) {
        arena_mark mk = arena_save(&scratch);
        json *v = json_parse(&scratch, inl[k], NULL, &e);
        const json *id = v ? json_get_type(v, S("id"), JSON_STR) : NULL;
        for (int t = 0; t < NTOKS; t++) {
            cell *c = &models[t].cells[s];
            if (!c->ran || c->broken)
                continue;
            json *g = json_parse(&scratch, gl[t][k], NULL, &e);
            const json *gid = g ? json_get_type(g, S("id"), JSON_STR) : NULL;
            if (!v || !id || !gid || !str_eq(id->u.s, gid->u.s)) {
                printf("#   %s.%s line %td: input and golden line do not match\n", models[t].name, sets[s].name,
                       k + 1);
                c->broken = true;
                continue;
            }
            check_one(&models[t], c, w[t], v, g);
        }
        arena_restore(&scratch, mk);
    }
    for (int t = 0; t < NTOKS; t++)
        if (w[t])
            count_work_free(w[t]);
    arena_fini(&scratch);
    arena_fini(&a);
}

static void test_cell(void)
{
    const model_case *mc = &models[cur_tok];
    const cell *c = &mc->cells[cur_set];
    if (mc->load_error[0])
        printf("#   %s: %s\n", mc->name, mc->load_error);
    REQUIRE(!c->broken);
    printf("#   %s.%s: %td items, %td mismatches; fallbacks %td (oracle %td), errors %td (oracle %td),"
           " sum n %lld (oracle %lld)\n",
           mc->name, sets[cur_set].name, c->items, c->mismatch, c->fb_ours, c->fb_golden, c->err_ours, c->err_golden,
           (long long)c->sum_ours, (long long)c->sum_golden);
    EXPECT(c->items > 0);
    EXPECT_EQ(c->mismatch, 0);
}

/* The message framing: count_model_prefix_len/baseline against the oracle's
 * (golden/<tok>.framing.json), and a baseline error exactly when it had one,
 * of the same class. */
static void test_framing(void)
{
    const model_case *mc = &models[cur_tok];
    if (mc->load_error[0])
        printf("#   %s: %s\n", mc->name, mc->load_error);
    REQUIRE(mc->m);
    arena a;
    arena_init(&a, 0);
    char path[256];
    snprintf(path, sizeof(path), "tests/data/count/golden/%s.framing.json", mc->name);
    err e = {0};
    str src = os_read_file(&a, path, &e);
    json *v = src.s ? json_parse(&a, src, NULL, &e) : NULL;
    const json *p = v ? json_get_type(v, S("prefix_len"), JSON_INT) : NULL;
    const json *b = v ? json_get_type(v, S("baseline"), JSON_INT) : NULL;
    const json *be = v ? json_get(v, S("baseline_error")) : NULL;
    if (!p || !b || !be) {
        printf("#   %s: %s\n", path, v ? "expected prefix_len, baseline, baseline_error" : e.msg);
        arena_fini(&a);
        REQUIRE(false);
    }
    printf("#   %s: prefix_len %lld (oracle %lld), baseline %lld (oracle %lld)\n", mc->name,
           (long long)count_model_prefix_len(mc->m), (long long)p->u.i, (long long)count_model_baseline(mc->m),
           (long long)b->u.i);
    EXPECT_EQ(count_model_prefix_len(mc->m), p->u.i);
    EXPECT_EQ(count_model_baseline(mc->m), b->u.i);
    const char *ours = count_model_baseline_error(mc->m);
    if (be->type == JSON_STR) {
        /* "<Class>: <message>" on both sides; the classes must agree. */
        str theirs = be->u.s;
        iz colon = 0;
        while (colon < theirs.len && theirs.s[colon] != ':')
            colon++;
        EXPECT(ours != NULL);
        if (ours) {
            size_t n = strcspn(ours, ":");
            EXPECT_STR(str_from(ours, (iz)n), str_cut(theirs, 0, colon));
        }
    } else {
        if (ours)
            printf("#   unexpected baseline error: %s\n", ours);
        EXPECT(ours == NULL);
    }
    arena_fini(&a);
}

static void print_table(void)
{
    printf("#\n# Exactness of the counting kinds (mismatches / items; fallbacks, oracle's in parentheses):\n#\n");
    printf("# | model | set | kind | items | mismatches | fallbacks | errors |\n");
    printf("# |---|---|---|---:|---:|---:|---:|\n");
    for (int t = 0; t < NTOKS; t++) {
        if (!models[t].name)
            continue;
        for (int s = 0; s < NSETS; s++) {
            const cell *c = &models[t].cells[s];
            if (!c->ran)
                continue;
            printf("# | %s | %s | %s |", models[t].name, sets[s].name, count_kind_name(sets[s].kind));
            if (c->broken)
                printf(" no data | | | |\n");
            else
                printf(" %td | %td | %td (%td) | %td (%td) |\n", c->items, c->mismatch, c->fb_ours, c->fb_golden,
                       c->err_ours, c->err_golden);
        }
    }
}

int main(void)
{
    show_max = atoi(test_env_or("COUNT_GOLDEN_SHOW", "5"));
    const char *only = getenv("COUNT_GOLDEN_ONLY");
    const char *only_sets = getenv("COUNT_GOLDEN_SETS");
    const char *assets = test_env_or("TALLY_ASSETS", "assets");
    /* The clock the goldens were made with (ORACLE_NOW=2025-01-15T12:00:00). */
    struct tm tm = {.tm_year = 2025 - 1900, .tm_mon = 0, .tm_mday = 15, .tm_hour = 12};
    count_model_opts o = {.chat_template_file = NULL, .now = (i64)timegm(&tm)};
    for (int t = 0; t < NTOKS; t++) {
        if (!test_listed(only, toks[t].name))
            continue;
        model_case *mc = &models[t];
        mc->name = toks[t].name;
        char dir[512];
        snprintf(dir, sizeof(dir), "%s/%s", assets, toks[t].tokenizer);
        err e = {0};
        o.chat_template_file = toks[t].template_file;
        mc->m = count_model_load(dir, &o, &e);
        if (!mc->m)
            snprintf(mc->load_error, sizeof(mc->load_error), "%s", e.msg);
        cur_tok = t;
        char name[64];
        snprintf(name, sizeof(name), "%s.framing", toks[t].name);
        test_run(name, test_framing);
    }
    for (int s = 0; s < NSETS; s++) {
        if (!test_listed(only_sets, sets[s].name))
            continue;
        run_set(s);
        for (int t = 0; t < NTOKS; t++) {
            if (!models[t].name || !runs_set(t, s))
                continue;
            char name[64];
            snprintf(name, sizeof(name), "%s.%s", toks[t].name, sets[s].name);
            cur_tok = t;
            cur_set = s;
            test_run(name, test_cell);
        }
    }
    print_table();
    for (int t = 0; t < NTOKS; t++)
        if (models[t].m)
            count_model_free(models[t].m);
    return test_done();
}
