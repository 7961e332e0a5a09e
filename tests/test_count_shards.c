/* test_count_shards.c - `tally count --shards N` gives, byte for byte, what
 * counting in one process gives: the same lines in the same order for a
 * mix of every kind, skips and errors spanning several chunks and more
 * than one batch of the sharded path, and the same summary. (The counts
 * themselves are checked against the oracle by test_count_cli and
 * test_count_golden; here the lanes are compared with each other.) Also
 * the drain budget and the progress lines. */
#include "test_proc.h"


/* Runs tally count with `args` on the file `in`; stdout and the last
 * stderr line (the summary, without its timing) are returned. */
static char *run(const char *args, const char *in, char **summary, int *status)
{
    char out_path[] = "/tmp/tally-shards-out-XXXXXX", err_path[] = "/tmp/tally-shards-err-XXXXXX";
    int fo = mkstemp(out_path), fe = mkstemp(err_path);
    if (fo < 0 || fe < 0)
        return NULL;
    close(fo);
    close(fe);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "timeout 300 %s count --now 2025-01-15T12:00:00 %s < %s > %s 2> %s", test_bin(),
             args, in, out_path, err_path);
    int st = system(cmd);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    char *out = test_slurp(out_path, NULL);
    char *err = test_slurp(err_path, NULL);
    /* the summary: from "tally: count: N lines" up to where it says where
     * the lines were counted (the time follows) */
    char *s = strstr(err, "tally: count: ");
    char *t = s ? strstr(s, ", on ") : NULL;
    if (!t && s)
        t = strstr(s, ", in this process");
    if (t)
        *t = 0;
    *summary = strdup(s ? s : "");
    free(err);
    remove(out_path);
    remove(err_path);
    return out;
}

static void write_input(const char *path, int copies)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    for (int k = 0; k < copies; k++) {
        fprintf(f, "{\"id\": %d, \"text\": \"Hello world, copy %d\"}\n", 10 * k, k);
        fprintf(f, "{\"id\": %d, \"token_ids\": [1, 2, %d]}\n", 10 * k + 1, k);
        fprintf(f, "{\"id\": %d, \"messages\": [{\"role\": \"user\", \"content\": \"Question %d?\"}], "
                   "\"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": "
                   "{\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"number\", \"default\": 0.0}}}}}]}\n",
                10 * k + 2, k);
        fprintf(f, "{\"id\": %d, \"content\": \"Answer %d\", \"reasoning\": \"think\", \"tool_calls\": "
                   "[{\"id\": \"c\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": "
                   "\"{\\\"x\\\": %d}\"}}]}\n",
                10 * k + 3, k, k);
        /* qwen3's template fails on a null assistant content: a fallback (TypeError) */
        fprintf(f, "{\"id\": %d, \"messages\": [{\"role\": \"user\", \"content\": \"q\"}, {\"role\": "
                   "\"assistant\", \"content\": null, \"tool_calls\": [{\"function\": {\"name\": \"g\", "
                   "\"arguments\": \"{}\"}}]}, {\"role\": \"user\", \"content\": \"r\"}]}\n",
                10 * k + 4);
        fprintf(f, "[\"TextModelOutput\", [\"Hel\", \"lo %d\"], null, null]\n", k);
        fprintf(f, "{\"event_type\": \"session.started\", \"timestamp_ns\": 1, \"sample_uuid\": \"\", "
                   "\"conversation_id\": \"\", \"turn\": null, \"data\": null}\n");
        fprintf(f, "not json %d\n", k);
        fprintf(f, "{\"id\": %d, \"token_ids\": \"nope\"}\n", 10 * k + 8);
    }
    fclose(f);
}

static void test_shards_equal_in_process(void)
{
    char in[] = "/tmp/tally-shards-in-XXXXXX";
    int fd = mkstemp(in);
    REQUIRE(fd >= 0);
    close(fd);
    write_input(in, 150);   /* 1,350 lines: prompts and messages in many chunks of 64 */
    int st0, st1, st2;
    char *sum0, *sum1, *sum2;
    char *o0 = run("--shards 0", in, &sum0, &st0);
    char *o1 = run("--shards 1", in, &sum1, &st1);
    char *o2 = run("--shards 2", in, &sum2, &st2);
    REQUIRE(o0 && o1 && o2);
    EXPECT_EQ(st0, 4);   /* some lines are errors */
    EXPECT_EQ(st1, 4);
    EXPECT_EQ(st2, 4);
    int lines = 0;
    for (const char *p = o0; *p; p++)
        lines += *p == '\n';
    EXPECT_EQ(lines, 1350);
    EXPECT(strstr(o0, "\"fallback\":\"TypeError\"") != NULL);
    EXPECT(strstr(o0, "\"skipped\"") != NULL);
    EXPECT(strstr(o0, "\"error\"") != NULL);
    EXPECT_STR(str_cstr(o1), str_cstr(o0));
    EXPECT_STR(str_cstr(o2), str_cstr(o0));
    EXPECT(strlen(sum0) > 20);
    EXPECT_STR(str_cstr(sum1), str_cstr(sum0));
    EXPECT_STR(str_cstr(sum2), str_cstr(sum0));
    free(o0); free(o1); free(o2);
    free(sum0); free(sum1); free(sum2);
    remove(in);
}

static void test_shards_option(void)
{
    char *sum;
    int st;
    char *o = run("--shards -1", "/dev/null", &sum, &st);
    EXPECT_EQ(st, 2);
    free(o);
    free(sum);
    o = run("--shards 2", "/dev/null", &sum, &st);   /* empty input */
    EXPECT_EQ(st, 0);
    EXPECT_STR(str_cstr(o), S(""));
    free(o);
    free(sum);
}

/* A budget that runs out at once leaves every line pending, each still
 * with its own output line and id, and the exit status says so. */
static void test_drain_timeout(void)
{
    char in[] = "/tmp/tally-shards-in-XXXXXX";
    int fd = mkstemp(in);
    REQUIRE(fd >= 0);
    close(fd);
    write_input(in, 20);
    const char *args[2] = {"--shards 0 --drain-timeout 0.000001", "--shards 2 --drain-timeout 0.000001"};
    for (int k = 0; k < 2; k++) {
        int st;
        char *sum;
        char *o = run(args[k], in, &sum, &st);
        REQUIRE(o);
        EXPECT_EQ(st, 3);
        int lines = 0, pending = 0;
        for (const char *p = o; *p; p++)
            lines += *p == '\n';
        for (const char *p = o; (p = strstr(p, "\"pending\":")); p++)
            pending++;
        EXPECT_EQ(lines, 180);
        EXPECT(pending >= 170);   /* too-long and such lines are answered anyway */
        EXPECT(strstr(o, "{\"id\":2,\"pending\":") != NULL);
        EXPECT(strstr(sum, "pending (the drain budget ran out)") != NULL);
        free(o);
        free(sum);
    }
    remove(in);
}

/* --progress-interval: progress lines on stderr while counting, in every
 * mode, with the share of the input; with an interval of a microsecond
 * every check prints (the job checks every 64 lines), so the test does not
 * depend on how fast the machine is; counting in this process, lines are
 * answered as they are read, so the share is between 0 and 1 at the first
 * check and an ETA is printed. */
static void test_progress(void)
{
    char in[] = "/tmp/tally-shards-in-XXXXXX", errp[] = "/tmp/tally-shards-err-XXXXXX";
    int fd = mkstemp(in), fe = mkstemp(errp);
    REQUIRE(fd >= 0 && fe >= 0);
    close(fd);
    close(fe);
    write_input(in, 150);
    const char *args[3] = {"--shards 0", "--shards 2", "--shards 2 -q"};
    for (int k = 0; k < 3; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "timeout 300 %s count --tokenizer qwen3 --progress-interval 0.000001 %s %s "
                 "> /dev/null 2> %s", test_bin(), args[k], in, errp);
        int st = system(cmd);
        EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 4);
        char *err = test_slurp(errp, NULL);
        if (k == 2) {
            EXPECT_STR(str_cstr(err), S(""));   /* quiet */
            free(err);
            continue;
        }
        /* progress lines read "tally: count: N lines (P% of S), ..." */
        int progress = 0;
        for (const char *p = err; (p = strstr(p, " lines (")) != NULL; p++)
            progress++;
        EXPECT(progress >= 10);   /* 1350 lines: 21 checks */
        EXPECT(strstr(err, "% of ") != NULL);
        EXPECT(strstr(err, " lines/s") != NULL);
        if (k == 0)
            EXPECT(strstr(err, ", ETA ") != NULL);
        EXPECT(strstr(err, "tally: count: 1350 lines: ") != NULL);   /* the summary */
        if (test_cur_failed)
            printf("#   %s: stderr %s\n", args[k], err);
        free(err);
    }
    remove(in);
    remove(errp);
}

int main(void)
{
    RUN(test_shards_equal_in_process);
    RUN(test_shards_option);
    RUN(test_drain_timeout);
    RUN(test_progress);
    return test_done();
}
