/* test_replay_cli.c - `tally replay` and `tally report` as a user meets
 * them on bad input: a log that is missing, a folder, empty, not a
 * database, a database without the events table; an output folder that
 * cannot be made (an error before any work); lines that do not decode
 * (counted, said with their numbers, each one error.generic record); a log
 * without session.ended (INTERRUPTED); bad arguments. The outputs on good
 * logs are test_replay_golden's. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "test_proc.h"
#include "../src/base/arena.h"
#include "../src/json/json.h"

static char dir[64];

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* `tally replay LOG --out DIR ...`: the status, stderr in *errs. */
static int replay(const char *log, const char *out, const char *more, char **errs)
{
    char args[2048];
    snprintf(args, sizeof args, "replay %s --out %s --progress-interval 0 %s", log, out, more ? more : "");
    int st = -1;
    char *o = test_tally(NULL, args, "", 0, &st, errs);
    free(o);
    return st;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f);
    fputs(text, f);
    REQUIRE(fclose(f) == 0);
}

/* The value of counter `name` in a final_snapshot.json, -1 when absent. */
static long long counter(const char *snapshot, const char *name)
{
    iz len = 0;
    char *text = test_slurp(snapshot, &len);
    if (!text)
        return -1;
    arena a;
    arena_init(&a, 0);
    err e = {0};
    long long v = -1;
    json *root = json_parse(&a, str_from(text, len), NULL, &e);
    const json *m = root ? json_get_type(root, S("metrics"), JSON_ARR) : NULL;
    for (iz k = 0; m && k < m->u.arr.n; k++) {
        const json *name_v = json_get_type(&m->u.arr.items[k], S("name"), JSON_STR);
        const json *val = json_get_type(&m->u.arr.items[k], S("value"), JSON_INT);
        if (name_v && val && str_eq(name_v->u.s, str_cstr(name)))
            v = val->u.i;
    }
    arena_fini(&a);
    free(text);
    return v;
}

static void test_bad_logs(void)
{
    char p[256], out[256];
    snprintf(out, sizeof out, "%s/out-bad", dir);
    struct {
        const char *name, *what;
    } cases[] = {
        {"missing.jsonl", "No such file"},
        {"", "is a folder"},
        {"empty.jsonl", "is empty"},
        {"fake.db", "fake.db"},
        {"other.db", "without"},
    };
    snprintf(p, sizeof p, "%s/empty.jsonl", dir);
    write_file(p, "");
    snprintf(p, sizeof p, "%s/fake.db", dir);
    {
        static const char fake[] = "SQLite format 3\0not a database: only its magic, then this text ...........";
        FILE *f = fopen(p, "wb");
        REQUIRE(f && fwrite(fake, 1, sizeof fake - 1, f) == sizeof fake - 1 && fclose(f) == 0);
    }
    snprintf(p, sizeof p, "%s/other.db", dir);
    sqlite3 *db;
    REQUIRE(sqlite3_open(p, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE other (x INTEGER)", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    for (size_t k = 0; k < countof(cases); k++) {
        snprintf(p, sizeof p, "%s/%s", dir, cases[k].name);
        char *errs = NULL;
        int st = replay(p, out, NULL, &errs);
        EXPECT_EQ(st, 1);
        bool said = errs && strstr(errs, cases[k].what);
        if (!said)
            printf("#   %s: stderr: %s\n", p, errs ? errs : "");
        EXPECT(said);
        free(errs);
        char snap[300];
        snprintf(snap, sizeof snap, "%s/metrics/final_snapshot.json", out);
        EXPECT(!exists(snap));
    }
}

/* An output folder that cannot be made: the error comes before the log
 * is read (a log that would take long is not read at all). */
static void test_out_not_writable(void)
{
    char file[256], out[300], log[256];
    snprintf(file, sizeof file, "%s/a-file", dir);
    write_file(file, "x");
    snprintf(out, sizeof out, "%s/sub", file);
    snprintf(log, sizeof log, "%s/missing-too.jsonl", dir);
    char *errs = NULL;
    /* the log is missing as well: the folder is what must be said */
    int st = replay(log, out, NULL, &errs);
    EXPECT_EQ(st, 1);
    EXPECT(errs && strstr(errs, "a-file") && !strstr(errs, "missing-too"));
    free(errs);
}

/* The spec's example log (gen_events.py spec12), with or without its
 * session.ended line, with `bad` lines after line 2. */
static bool make_spec12(const char *path, bool ended, int bad)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 tests/data/agg/gen_events.py spec12 --out %s.src 2>/dev/null", path);
    if (system(cmd) != 0)
        return false;
    char src[300];
    snprintf(src, sizeof src, "%s.src", path);
    iz len = 0;
    char *text = test_slurp(src, &len);
    if (!text)
        return false;
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    int line = 0;
    for (char *p = text, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            nl = p + strlen(p) - 1;
        if (++line == 3)
            for (int k = 0; k < bad; k++)
                fputs(k % 2 ? "{\"event_type\": 12}\n" : "not json at all\n", f);
        char *ev = strstr(p, "\"session.ended\"");
        if (!ended && ev && ev < nl)
            continue;
        fwrite(p, 1, (size_t)(nl + 1 - p), f);
    }
    free(text);
    remove(src);
    return fclose(f) == 0;
}

static void test_malformed_lines(void)
{
    char log[256], out[256], good_out[256], snap[300], good_snap[300];
    snprintf(log, sizeof log, "%s/bad-lines.jsonl", dir);
    snprintf(out, sizeof out, "%s/out-badlines", dir);
    snprintf(good_out, sizeof good_out, "%s/out-good", dir);
    REQUIRE(make_spec12(log, true, 7));
    char *errs = NULL;
    EXPECT_EQ(replay(log, out, NULL, &errs), 0);
    /* the first five line numbers, then "..." */
    bool said = errs && strstr(errs, "7 lines did not decode (lines 3, 4, 5, 6, 7, ...)");
    if (!said)
        printf("#   stderr: %s\n", errs ? errs : "");
    EXPECT(said);
    free(errs);
    char good[256];
    snprintf(good, sizeof good, "%s/good.jsonl", dir);
    REQUIRE(make_spec12(good, true, 0));
    EXPECT_EQ(replay(good, good_out, NULL, NULL), 0);
    snprintf(snap, sizeof snap, "%s/metrics/final_snapshot.json", out);
    snprintf(good_snap, sizeof good_snap, "%s/metrics/final_snapshot.json", good_out);
    /* each bad line is one error.generic record: a failure, not tracked */
    long long failed = counter(snap, "total_samples_failed"), base = counter(good_snap, "total_samples_failed");
    EXPECT(base >= 0);
    EXPECT_EQ(failed, base + 7);
    EXPECT_EQ(counter(snap, "tracked_samples_failed"), counter(good_snap, "tracked_samples_failed"));
}

static void test_no_session_ended(void)
{
    char log[256], out[256], snap[300];
    snprintf(log, sizeof log, "%s/no-end.jsonl", dir);
    snprintf(out, sizeof out, "%s/out-noend", dir);
    REQUIRE(make_spec12(log, false, 0));
    char *errs = NULL;
    EXPECT_EQ(replay(log, out, NULL, &errs), 0);
    EXPECT(errs && strstr(errs, "no session.ended"));
    free(errs);
    snprintf(snap, sizeof snap, "%s/metrics/final_snapshot.json", out);
    char *text = test_slurp(snap, NULL);
    EXPECT(text && strstr(text, "\"state\": \"interrupted\""));
    free(text);
}

/* A record upstream's msgpack wire could not carry (an int beyond 64
 * bits) is aggregated as decoded, and the replay says so, with its line:
 * the reference replay stops there. */
static void test_wire_errors(void)
{
    char log[256], out[256], snap[300];
    snprintf(log, sizeof log, "%s/wire.jsonl", dir);
    snprintf(out, sizeof out, "%s/out-wire", dir);
    write_file(log,
               "{\"event_type\":\"session.started\",\"timestamp_ns\":1,\"sample_uuid\":\"\",\"conversation_id\":\"\","
               "\"turn\":null,\"data\":null}\n"
               "{\"event_type\":\"session.start_performance_tracking\",\"timestamp_ns\":2,\"sample_uuid\":\"\","
               "\"conversation_id\":\"\",\"turn\":null,\"data\":null}\n"
               "{\"event_type\":\"sample.issued\",\"timestamp_ns\":3,\"sample_uuid\":\"u1\",\"conversation_id\":\"\","
               "\"turn\":null,\"data\":[\"PromptData\",null,[1,99999999999999999999999]]}\n"
               "{\"event_type\":\"session.ended\",\"timestamp_ns\":4,\"sample_uuid\":\"\",\"conversation_id\":\"\","
               "\"turn\":null,\"data\":null}\n");
    char *errs = NULL;
    EXPECT_EQ(replay(log, out, NULL, &errs), 0);
    bool said = errs && strstr(errs, "1 record could not cross upstream's msgpack wire (the first at line 3, "
                                     "OverflowError");
    if (!said)
        printf("#   stderr: %s\n", errs ? errs : "");
    EXPECT(said);
    free(errs);
    snprintf(snap, sizeof snap, "%s/metrics/final_snapshot.json", out);
    EXPECT_EQ(counter(snap, "tracked_samples_issued"), 1);
}

static void test_usage(void)
{
    const char *bad[] = {
        "replay",
        "replay examples/events.jsonl.gz",
        "replay examples/events.jsonl.gz --out x --n-histogram-buckets 0",
        "replay examples/events.jsonl.gz --out x --n-histogram-buckets 1001",
        "replay examples/events.jsonl.gz --out x --hdr-sig-figs 6",
        "replay examples/events.jsonl.gz --out x --load-pattern sometimes",
        "replay examples/events.jsonl.gz --out x --no-such-flag",
        "report",
        "report tests/data/agg/golden/spec12/final_snapshot.json",
    };
    for (size_t k = 0; k < countof(bad); k++) {
        int st = -1;
        char *errs = NULL;
        char *o = test_tally(NULL, bad[k], "", 0, &st, &errs);
        EXPECT_EQ(st, 2);
        /* one line that says what is wrong (a bad value names its option
         * and what it takes; a missing argument or an unknown option says
         * where to look), nothing on stdout */
        bool one = errs && test_starts(str_cstr(errs), "tally: ") && strchr(errs, '\n') == errs + strlen(errs) - 1;
        EXPECT(one);
        EXPECT(o && !*o);
        if (st != 2 || !one)
            printf("#   tally %s: status %d: %s\n", bad[k], st, errs ? errs : "");
        free(o);
        free(errs);
    }
}

/* tally report on a snapshot that is not one: an error naming the file. */
static void test_report_bad_snapshot(void)
{
    char p[256], out[256], args[700];
    snprintf(p, sizeof p, "%s/not-a-snapshot.json", dir);
    write_file(p, "{\"metrics\": 5}");
    snprintf(out, sizeof out, "%s/out-report", dir);
    snprintf(args, sizeof args, "report %s --out %s", p, out);
    int st = -1;
    char *errs = NULL;
    char *o = test_tally(NULL, args, "", 0, &st, &errs);
    EXPECT_EQ(st, 1);
    EXPECT(errs && strstr(errs, "not-a-snapshot.json") && strstr(errs, "metrics"));
    free(o);
    free(errs);
}

/* Without --git-sha the report has upstream's lookup applied to tally's
 * own checkout: the short SHA of the tree the binary was built in (the
 * tests' binary is build/test/tally of this tree), or null outside a git
 * checkout; --git-sha and --no-git-sha choose. */
static void test_git_sha(void)
{
    char want[64] = "";
    FILE *p = popen("git rev-parse --short=7 HEAD 2>/dev/null", "r");
    if (p) {
        if (!fgets(want, sizeof want, p))
            want[0] = 0;
        want[strcspn(want, "\n")] = 0;
        if (pclose(p) != 0)
            want[0] = 0;
    }
    const char *flags[3] = {"", "--git-sha 0123abc", "--no-git-sha"};
    char expect[3][80];
    if (want[0])
        snprintf(expect[0], sizeof expect[0], "\"git_sha\": \"%s\"", want);
    else
        snprintf(expect[0], sizeof expect[0], "\"git_sha\": null");
    snprintf(expect[1], sizeof expect[1], "\"git_sha\": \"0123abc\"");
    snprintf(expect[2], sizeof expect[2], "\"git_sha\": null");
    for (int k = 0; k < 3; k++) {
        char out[256], path[300];
        snprintf(out, sizeof out, "%s/out-sha%d", dir, k);
        EXPECT_EQ(replay("examples/events.jsonl.gz", out, flags[k], NULL), 0);
        snprintf(path, sizeof path, "%s/performance/result_summary.json", out);
        char *text = test_slurp(path, NULL);
        bool has = text && strstr(text, expect[k]);
        if (!has)
            printf("#   %s: no %s in %s\n", flags[k], expect[k], path);
        EXPECT(has);
        free(text);
    }
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tally-replay-XXXXXX");
    if (!mkdtemp(dir)) {
        printf("not ok 1 - mkdtemp %s\n", dir);
        return 1;
    }
    RUN(test_bad_logs);
    RUN(test_out_not_writable);
    RUN(test_malformed_lines);
    RUN(test_no_session_ended);
    RUN(test_wire_errors);
    RUN(test_usage);
    RUN(test_report_bad_snapshot);
    RUN(test_git_sha);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("#   could not remove %s\n", dir);
    return test_done();
}
