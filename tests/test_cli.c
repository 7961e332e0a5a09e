/* test_cli.c - the tally command as a user runs it: `tally tokenize` keeps
 * one output line per input line in order, echoes ids, reports a bad line
 * as an error for that line only, and fails clearly on a missing tokenizer.
 * Runs the binary named by $TALLY_BIN (tests/run.sh sets it) in a child
 * process with a timeout. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "test.h"

static const char *bin(void)
{
    const char *b = getenv("TALLY_BIN");
    return b && *b ? b : "build/test/tally";
}

/* Runs `tally ARGS < input`, captures stdout (and the exit status). */
static char *run(const char *args, const char *input, iz input_len, int *status)
{
    char in_path[] = "/tmp/tally-cli-in-XXXXXX";
    int fd = mkstemp(in_path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "wb");
    fwrite(input, 1, (size_t)input_len, f);
    fclose(f);
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "timeout 120 %s %s < %s 2>/dev/null", bin(), args, in_path);
    FILE *p = popen(cmd, "r");
    char *out = calloc(1, 1 << 20);
    size_t n = p ? fread(out, 1, (1 << 20) - 1, p) : 0;
    out[n] = 0;
    int st = p ? pclose(p) : -1;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    remove(in_path);
    return out;
}

static void test_tokenize_lines(void)
{
    static const char input[] =
        "{\"id\": 1, \"text\": \"Hello world\"}\n"
        "not json\n"
        "{\"id\": \"x\", \"other\": 5}\n"
        "{\"text\": \"bad \xff byte\"}\n"
        "[1, 2]\n"
        "{\"id\": [3], \"text\": \"\", \"extra\": {\"a\": 1}}\n"
        "{\"text\": \"Hello world\"}\n";
    int st;
    char *out = run("tokenize --tokenizer qwen3", input, lengthof(input), &st);
    REQUIRE(out);
    EXPECT_EQ(st, 0);
    const char *want[] = {
        "{\"id\":1,\"n\":2}",
        "{\"error\":",
        "{\"id\":\"x\",\"error\":",
        "{\"error\":",
        "{\"error\":",
        "{\"id\":[3],\"n\":0}",
        "{\"n\":2}",
    };
    char *line = out;
    for (iz k = 0; k < countof(want); k++) {
        char *nl = strchr(line, '\n');
        REQUIRE(nl);
        *nl = 0;
        if (strncmp(line, want[k], strlen(want[k])) != 0) {
            printf("#   line %td: got %s, want %s...\n", k + 1, line, want[k]);
            test_cur_failed = 1;
        }
        line = nl + 1;
    }
    EXPECT(*line == 0);   /* one output line per input line */
    free(out);
}

static void test_tokenize_ids_and_errors(void)
{
    int st;
    char *out = run("tokenize -t llama3_1 --ids", "{\"text\": \"Hello world\"}\n", 24, &st);
    REQUIRE(out);
    EXPECT(strcmp(out, "{\"n\":2,\"ids\":[9906,1917]}\n") == 0);
    free(out);
    /* the error names the byte offset of invalid UTF-8 */
    out = run("tokenize", "{\"text\": \"ab\xc3\"}\n", 15, &st);
    REQUIRE(out);
    EXPECT(strstr(out, "UTF-8") && strstr(out, "byte"));
    free(out);
    /* a missing tokenizer is an error of the command, saying where it looked */
    out = run("tokenize -t no-such-model", "", 0, &st);
    REQUIRE(out);
    EXPECT_EQ(st, 1);
    free(out);
    out = run("tokenize --help", "", 0, &st);
    REQUIRE(out);
    EXPECT(st == 0 && strstr(out, "--tokenizer"));
    free(out);
    out = run("frobnicate", "", 0, &st);
    REQUIRE(out);
    EXPECT_EQ(st, 2);
    free(out);
}

static void test_tokenize_long_line(void)
{
    /* a line over --max-line is an error for it alone; the next line is fine */
    static const char input[] = "{\"text\": \"short\"}\n{\"text\": \"this line is much too long\"}\n{\"text\": \"ok\"}";
    int st;
    char *out = run("tokenize --max-line 24", input, lengthof(input), &st);
    REQUIRE(out);
    EXPECT_EQ(st, 0);
    EXPECT(strcmp(out, "{\"n\":1}\n{\"error\":\"line 2: longer than 24 bytes\"}\n{\"n\":1}\n") == 0);
    if (test_cur_failed)
        printf("#   got: %s", out);
    free(out);
}

int main(void)
{
    RUN(test_tokenize_lines);
    RUN(test_tokenize_ids_and_errors);
    RUN(test_tokenize_long_line);
    return test_done();
}
