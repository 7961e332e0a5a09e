/* test_tokenize_cli.c - `tally tokenize` as a user runs it: one output
 * line per input line in order, ids echoed, a bad line an error for that
 * line only (exit status 4), a clear failure on a missing tokenizer.
 * (What every command shares is in test_commands.c.) */
#define _POSIX_C_SOURCE 200809L
#include "test_proc.h"

/* `tally ARGS < input`: its output (and exit status). */
static char *run(const char *args, const char *input, iz input_len, int *status)
{
    return test_tally(NULL, args, input, input_len, status, NULL);
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
    EXPECT_EQ(st, 4);   /* some lines were errors */
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
    EXPECT_EQ(st, 4);
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
