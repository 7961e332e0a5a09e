/* test_replay_golden.c - the acceptance test of `tally replay`: every case
 * of tests/data/agg/cases.tsv (scenario x source JSONL/SQLite x streaming
 * or not x no tokenizer / qwen3 / llama3_1 x load pattern, ...): the log
 * is rebuilt with the committed generator (tests/data/agg/gen_events.py,
 * stdlib Python) and checked against SHA256SUMS, replayed with the case's
 * arguments, and the three files compared byte for byte with the goldens
 * upstream's own aggregator and report wrote (tests/data/agg/golden/).
 * The snapshot's clock is pinned as the goldens pinned it. Prints the
 * table of cases x files. Logs are kept in build/agg/logs between runs
 * (rebuilt when their checksum does not match). */
#define _POSIX_C_SOURCE 200809L
#include <sys/stat.h>
#include "test_proc.h"
#include "sha256.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"

enum { MAX_CASES = 128 };

static const char *const logs_dir = "build/agg/logs";
static const char *const out_dir = "build/agg/out";

typedef struct tcase {
    char name[128], scenario[64], gen[256], source[16], args[1024];
} tcase;

static char *field(char **p)
{
    char *s = *p, *t = strchr(s, '\t');
    if (t) {
        *t = 0;
        *p = t + 1;
    } else {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = 0;
        *p = s + strlen(s);
    }
    return s;
}

static int read_cases(tcase *c, int max)
{
    char *text = test_slurp("tests/data/agg/cases.tsv", NULL);
    int n = 0;
    char *p = text;
    char *nl = strchr(p, '\n');   /* the header */
    p = nl ? nl + 1 : p + strlen(p);
    while (*p && n < max) {
        char *line = p;
        nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        p = nl ? nl + 1 : p + strlen(p);
        if (!*line)
            continue;
        char *q = line;
        snprintf(c[n].name, sizeof c[n].name, "%s", field(&q));
        snprintf(c[n].scenario, sizeof c[n].scenario, "%s", field(&q));
        snprintf(c[n].gen, sizeof c[n].gen, "%s", field(&q));
        snprintf(c[n].source, sizeof c[n].source, "%s", field(&q));
        snprintf(c[n].args, sizeof c[n].args, "%s", field(&q));
        n++;
    }
    free(text);
    return n;
}

/* The sha256 SHA256SUMS gives for `name`, or "" when it lists none. */
static void want_sum(const char *name, char out[65])
{
    char *text = test_slurp("tests/data/agg/SHA256SUMS", NULL);
    out[0] = 0;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (strlen(line) > 66 && !strcmp(line + 66, name))
            snprintf(out, 65, "%.64s", line);
        if (!nl)
            break;
        line = nl + 1;
    }
    free(text);
}

static bool file_sum(const char *path, char out[65])
{
    arena a;
    arena_init(&a, 0);
    err e = {0};
    str s = os_read_file(&a, path, &e);
    if (s.s)
        sha256_hex(s, out);
    arena_fini(&a);
    return s.s != NULL;
}

/* Makes the case's log (and its .db and the .db's JSONL for a SQLite case)
 * unless it is there with the right checksum. False (and why) otherwise. */
static bool make_log(const tcase *c, char *log, size_t cap)
{
    int samples = 0, seed = 0;
    const char *s = strstr(c->gen, "--samples ");
    const char *d = strstr(c->gen, "--seed ");
    if (s)
        samples = atoi(s + 10);
    if (d)
        seed = atoi(d + 7);
    char base[512], jsonl[600], db[600], dbjsonl[600], name[256], dbname[300];
    snprintf(name, sizeof name, "%s-n%d-s%d.jsonl", c->scenario, samples, seed);
    snprintf(dbname, sizeof dbname, "%s-n%d-s%d.db.jsonl", c->scenario, samples, seed);
    snprintf(base, sizeof base, "%s/%s-n%d-s%d", logs_dir, c->scenario, samples, seed);
    snprintf(jsonl, sizeof jsonl, "%s.jsonl", base);
    snprintf(db, sizeof db, "%s.db", base);
    snprintf(dbjsonl, sizeof dbjsonl, "%s.db.jsonl", base);
    bool sqlite = !strcmp(c->source, "sqlite");
    char want[65], got[65];
    want_sum(name, want);
    if (!want[0]) {
        printf("#   %s: %s is not in SHA256SUMS\n", c->name, name);
        return false;
    }
    struct stat sb;
    bool have = file_sum(jsonl, got) && !strcmp(got, want) && (!sqlite || stat(db, &sb) == 0);
    if (!have) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "mkdir -p %s && python3 tests/data/agg/gen_events.py %s %s --out %s%s%s", logs_dir,
                 c->scenario, c->gen, jsonl, sqlite ? " --db " : "", sqlite ? db : "");
        if (system(cmd) != 0) {
            printf("#   %s: the generator failed: %s\n", c->name, cmd);
            return false;
        }
        if (!file_sum(jsonl, got) || strcmp(got, want)) {
            printf("#   %s: %s differs from SHA256SUMS: the shared data or the generator changed, not tally\n",
                   c->name, jsonl);
            return false;
        }
    }
    if (sqlite) {
        /* the rows the .db holds are the JSONL lines the goldens came from */
        char wantdb[65];
        want_sum(dbname, wantdb);
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "python3 tests/data/agg/gen_events.py db2jsonl %s --out %s", db, dbjsonl);
        if (system(cmd) != 0 || !file_sum(dbjsonl, got) || strcmp(got, wantdb)) {
            printf("#   %s: %s does not give the JSONL of SHA256SUMS\n", c->name, db);
            return false;
        }
    }
    snprintf(log, cap, "%s", sqlite ? db : jsonl);
    return true;
}

/* The case's replay.py flags as tally replay's. */
static void map_args(const tcase *c, char *out, size_t cap)
{
    char args[1024];
    snprintf(args, sizeof args, "%s", c->args);
    size_t n = 0;
    bool streaming = false;
    out[0] = 0;
    for (char *tok = strtok(args, " "); tok; tok = strtok(NULL, " ")) {
        if (!strcmp(tok, "--bad-lines")) {   /* tally's only way: one synthetic record per bad line */
            strtok(NULL, " ");
            continue;
        }
        if (!strcmp(tok, "--streaming"))
            streaming = true;
        if (!strcmp(tok, "--run-config")) {
            char *f = strtok(NULL, " ");
            n += (size_t)snprintf(out + n, cap - n, " --run-config tests/data/agg/%s", f ? f : "");
            continue;
        }
        n += (size_t)snprintf(out + n, cap - n, " %s", tok);
    }
    /* the reference is not streaming unless told: tally would detect it */
    if (!streaming)
        n += (size_t)snprintf(out + n, cap - n, " --no-streaming");
    /* nor does it find a git_sha of its own: tally finds its checkout's */
    if (!strstr(c->args, "--git-sha"))
        snprintf(out + n, cap - n, " --no-git-sha");
}

static int compare(const char *golden, const char *got)
{
    iz gl = 0, ol = 0;
    char *g = test_slurp(golden, &gl), *o = test_slurp(got, &ol);
    int same = gl > 0 && gl == ol && !memcmp(g, o, (size_t)gl);
    if (!same && gl > 0) {
        iz k = 0;
        while (k < gl && k < ol && g[k] == o[k])
            k++;
        iz from = k > 80 ? k - 80 : 0;
        printf("#     %s: first difference at byte %td:\n#       golden ...%.*s\n#       tally  ...%.*s\n", got, k,
               (int)MIN(160, gl - from), g + from, (int)MIN(160, ol - from), o + from);
    }
    free(g);
    free(o);
    return same;
}

static void test_cases(void)
{
    static tcase cases[MAX_CASES];
    int n = read_cases(cases, MAX_CASES);
    REQUIRE(n >= 30);
    static const char *const files[3] = {"metrics/final_snapshot.json", "performance/result_summary.json",
                                         "report.txt"};
    static const char *const gfiles[3] = {"final_snapshot.json", "result_summary.json", "report.txt"};
    int cells = 0, same = 0;
    char table[MAX_CASES][160];
    for (int k = 0; k < n; k++) {
        const tcase *c = &cases[k];
        char log[700], args[1500], cmd[4200];
        int ok[3] = {0, 0, 0};
        if (make_log(c, log, sizeof log)) {
            map_args(c, args, sizeof args);
            snprintf(cmd, sizeof cmd, "replay %.690s --out %.400s/%.120s -q --progress-interval 0%.1500s", log, out_dir,
                     c->name, args);
            int st = -1;
            char *errs = NULL;
            char *out = test_tally(NULL, cmd, "", 0, &st, &errs);
            if (st != 0 && st != 3)
                printf("#   %s: tally %s: status %d: %s\n", c->name, cmd, st, errs ? errs : "");
            free(out);
            free(errs);
            for (int f = 0; f < 3; f++) {
                char gp[512], op[512];
                snprintf(gp, sizeof gp, "tests/data/agg/golden/%.120s/%s", c->name, gfiles[f]);
                snprintf(op, sizeof op, "%.300s/%.120s/%s", out_dir, c->name, files[f]);
                ok[f] = compare(gp, op);
            }
        }
        snprintf(table[k], sizeof table[k], "%-42.60s %-10s %-10s %-10s", c->name, ok[0] ? "identical" : "DIFFERS",
                 ok[1] ? "identical" : "DIFFERS", ok[2] ? "identical" : "DIFFERS");
        cells += 3;
        same += ok[0] + ok[1] + ok[2];
    }
    printf("# %-42s %-10s %-10s %-10s\n", "case", "snapshot", "summary", "report");
    for (int k = 0; k < n; k++)
        printf("# %s\n", table[k]);
    printf("# %d cases, %d of %d files identical\n", n, same, cells);
    EXPECT_EQ(same, cells);
}

/* The README's bundled run (examples/events.jsonl.gz: the log of case
 * stream_chat_tools-jsonl-s-qwen3, gzip-compressed) gives that case's
 * three files: the example is what the generator makes, and the gzip
 * source reads what the plain log holds. */
static void test_example(void)
{
    static const char *const files[3] = {"metrics/final_snapshot.json", "performance/result_summary.json",
                                         "report.txt"};
    static const char *const gfiles[3] = {"final_snapshot.json", "result_summary.json", "report.txt"};
    int st = -1;
    char *errs = NULL;
    char *out = test_tally(NULL,
                           "replay examples/events.jsonl.gz --tokenizer qwen3 --out build/agg/out/example -q "
                           "--progress-interval 0 --snapshot-timestamp-ns 123456789012345 --no-git-sha",
                           "", 0, &st, &errs);
    EXPECT_EQ(st, 0);
    if (st != 0)
        printf("#   tally replay examples/events.jsonl.gz: status %d: %s\n", st, errs ? errs : "");
    /* stdout: the report's summary block */
    EXPECT(out && test_starts(str_cstr(out), "----------------- Summary -----------------"));
    free(out);
    free(errs);
    for (int f = 0; f < 3; f++) {
        char gp[512], op[512];
        snprintf(gp, sizeof gp, "tests/data/agg/golden/stream_chat_tools-jsonl-s-qwen3/%s", gfiles[f]);
        snprintf(op, sizeof op, "build/agg/out/example/%s", files[f]);
        EXPECT(compare(gp, op));
    }
}

int main(void)
{
    RUN(test_cases);
    RUN(test_example);
    return test_done();
}
