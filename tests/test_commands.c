/* test_commands.c - what every command of tally (tokenize, render, count
 * in this process and on workers) does the same way, as a user sees it:
 * the exit statuses, an output that cannot be written (/dev/full, a closed
 * pipe), SIGINT and SIGTERM (whole lines, the summary, 130 and 143), an
 * input that is a folder, input files as arguments and -o FILE, a UTF-8
 * byte-order mark, one line for an unknown option, the help's word on
 * where short tokenizer names are found, and the table of `tally help`
 * (which short names' templates read tools) against what `tally count`
 * reports. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include "test_proc.h"

/* One command line per command, each taking lines of `good` input. */
typedef struct cmd {
    const char *name;      /* for messages */
    const char *args;      /* tally ARGS */
    const char *good;      /* a line it answers without error */
} cmd;

static const cmd cmds[] = {
    {"tokenize", "tokenize -t qwen3", "{\"id\": 1, \"text\": \"Hello world\"}"},
    {"render", "render -t qwen3 --now 2025-01-15T12:00:00",
     "{\"id\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}"},
    {"count", "count -t qwen3 --shards 0", "{\"id\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}"},
    {"count", "count -t qwen3 --shards 2", "{\"id\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}"},
};

/* n copies of line, each with its newline. */
static char *repeat(const char *line, int n, iz *len)
{
    buf b = {0};
    for (int k = 0; k < n; k++) {
        buf_cstr(&b, line);
        buf_byte(&b, '\n');
    }
    *len = b.len;
    buf_byte(&b, 0);
    return (char *)b.data;
}

/* Every line of out is a whole JSON object line (and out ends with one). */
static bool whole_lines(const char *out)
{
    if (!*out)
        return true;
    iz n = (iz)strlen(out);
    if (out[n - 1] != '\n')
        return false;
    for (const char *p = out; *p;) {
        const char *nl = strchr(p, '\n');
        if (p[0] != '{' || nl[-1] != '}')
            return false;
        p = nl + 1;
    }
    return true;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* 0 all answered, 4 some lines were errors, 2 usage, 1 a missing input
 * file or tokenizer: the same in every command. */
static void test_exit_statuses(void)
{
    for (iz k = 0; k < countof(cmds); k++) {
        char args[512], in[4096];
        int st;
        snprintf(in, sizeof in, "%s\n%s\n", cmds[k].good, cmds[k].good);
        char *out = test_tally(NULL, cmds[k].args, in, (iz)strlen(in), &st, NULL);
        REQUIRE(out);
        EXPECT_EQ(st, 0);
        EXPECT_EQ(count_lines(out), 2);
        free(out);
        snprintf(in, sizeof in, "%s\nnot json\n%s\n", cmds[k].good, cmds[k].good);
        out = test_tally(NULL, cmds[k].args, in, (iz)strlen(in), &st, NULL);
        REQUIRE(out);
        EXPECT_EQ(st, 4);
        EXPECT_EQ(count_lines(out), 3);   /* every other line still written */
        free(out);
        snprintf(args, sizeof args, "%s --bogus", cmds[k].args);
        out = test_tally(NULL, args, "", 0, &st, NULL);
        EXPECT_EQ(st, 2);
        free(out);
        snprintf(args, sizeof args, "%s /nonexistent/input.jsonl", cmds[k].args);
        out = test_tally(NULL, args, "", 0, &st, NULL);
        EXPECT_EQ(st, 1);
        free(out);
        if (test_cur_failed) {
            printf("#   %s\n", cmds[k].args);
            return;
        }
    }
    /* 3: lines left pending by the budget */
    int st;
    char *out = test_tally(NULL, "count -t qwen3 --drain-timeout 0.000001", "{\"text\": \"a\"}\n", 14, &st, NULL);
    REQUIRE(out);
    EXPECT_EQ(st, 3);
    EXPECT(strstr(out, "\"pending\"") != NULL);
    free(out);
}

/* Output that cannot be written: an error with a message and status 1,
 * never a summary that looks like success (issue 17, defect 2). */
static void test_output_unwritable(void)
{
    iz len;
    for (iz k = 0; k < countof(cmds); k++) {
        char *in = repeat(cmds[k].good, 50, &len);
        char args[512];
        snprintf(args, sizeof args, "%s > /dev/full", cmds[k].args);
        int st;
        char *err;
        char *out = test_tally(NULL, args, in, len, &st, &err);
        REQUIRE(out && err);
        EXPECT_EQ(st, 1);
        EXPECT(strstr(err, "writing standard output failed: No space left on device") != NULL);
        EXPECT(strstr(err, " lines: ") == NULL && strstr(err, " lines, ") == NULL);   /* no summary */
        if (test_cur_failed)
            printf("#   tally %s: status %d, stderr %s\n", args, st, err);
        free(out);
        free(err);
        free(in);
        /* -o into a folder that does not exist: an error before any work */
        snprintf(args, sizeof args, "%s -o /nonexistent/out.jsonl", cmds[k].args);
        out = test_tally(NULL, args, "", 0, &st, &err);
        EXPECT_EQ(st, 1);
        EXPECT(strstr(err, "cannot write /nonexistent/out.jsonl") != NULL);
        free(out);
        free(err);
    }
}

/* A pipe closed by its reader (head): a write error, status 1, not a
 * death by SIGPIPE. */
static void test_output_closed_pipe(void)
{
    iz len;
    for (iz k = 0; k < countof(cmds); k++) {
        char *in = repeat(cmds[k].good, 20000, &len);   /* far more output than a pipe holds */
        char in_path[64], st_path[64], err_path[64];
        REQUIRE(test_temp_file(in_path, in, len) && test_temp_file(st_path, "", 0) &&
                test_temp_file(err_path, "", 0));
        char cmdline[4096];
        snprintf(cmdline, sizeof cmdline, "(timeout 300 %s %s < %s 2> %s; echo $? > %s) | head -c 10 > /dev/null",
                 test_bin(), cmds[k].args, in_path, err_path, st_path);
        EXPECT(system(cmdline) == 0);
        char *st = test_slurp(st_path, NULL);
        char *err = test_slurp(err_path, NULL);
        EXPECT_EQ(atoi(st), 1);
        EXPECT(strstr(err, "writing standard output failed: Broken pipe") != NULL);
        if (test_cur_failed)
            printf("#   tally %s: status %s, stderr %s\n", cmds[k].args, st, err);
        free(st);
        free(err);
        free(in);
        remove(in_path);
        remove(st_path);
        remove(err_path);
    }
}

/* Starts `tally ARGS` with pipes for its input and output; *in_fd and
 * *out_fd are our ends, its stderr goes to err_path. */
static pid_t start(const char *args, const char *err_path, int *in_fd, int *out_fd)
{
    int a[2], b[2];
    if (pipe(a) != 0 || pipe(b) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(a[0], 0);
        dup2(b[1], 1);
        int fe = open(err_path, O_WRONLY | O_TRUNC);
        dup2(fe, 2);
        close(a[0]); close(a[1]); close(b[0]); close(b[1]); close(fe);
        char line[4096];
        snprintf(line, sizeof line, "exec %s %s", test_bin(), args);
        execl("/bin/sh", "sh", "-c", line, (char *)NULL);
        _exit(127);
    }
    close(a[0]);
    close(b[1]);
    *in_fd = a[1];
    *out_fd = b[0];
    return pid;
}

/* Reads from fd into b until it holds `lines` newlines or the input ends. */
static void read_lines(int fd, buf *b, int lines)
{
    char chunk[4096];
    while (count_lines(b->data ? (const char *)b->data : "") < lines) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n <= 0)
            break;
        buf_put(b, chunk, (iz)n);
        buf_byte(b, 0);
        b->len--;
    }
}

/* SIGINT and SIGTERM while the input is still open: the command ends on a
 * whole output line, prints the summary of what was done and exits with
 * 130 and 143 (issue 17, defect 3). The signal comes once some lines are
 * answered, whatever the machine's speed. */
static void test_signals(void)
{
    const int sigs[2] = {SIGINT, SIGTERM};
    for (iz k = 0; k < countof(cmds); k++)
        for (int s = 0; s < 2; s++) {
            char err_path[64];
            REQUIRE(test_temp_file(err_path, "", 0));
            int in_fd, out_fd;
            pid_t pid = start(cmds[k].args, err_path, &in_fd, &out_fd);
            REQUIRE(pid > 0);
            iz len;
            char *in = repeat(cmds[k].good, 5, &len);
            EXPECT(write(in_fd, in, (size_t)len) == len);
            buf got = {0};
            read_lines(out_fd, &got, 5);   /* answered while the input stays open */
            kill(pid, sigs[s]);
            read_lines(out_fd, &got, 1 << 30);   /* to the end */
            int st;
            waitpid(pid, &st, 0);
            close(in_fd);
            close(out_fd);
            char *err = test_slurp(err_path, NULL);
            buf_byte(&got, 0);
            EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 128 + sigs[s]);
            EXPECT_EQ(count_lines((const char *)got.data), 5);
            EXPECT(whole_lines((const char *)got.data));
            EXPECT(strstr(err, s ? "stopped by SIGTERM after 5 lines" : "stopped by SIGINT after 5 lines") != NULL);
            EXPECT(strstr(err, " 5 lines") != NULL);   /* the summary */
            if (test_cur_failed) {
                printf("#   tally %s, signal %d: status %d, stderr %s\n", cmds[k].args, sigs[s], st, err);
                free(err);
                free(in);
                buf_free(&got);
                remove(err_path);
                return;
            }
            free(err);
            free(in);
            buf_free(&got);
            remove(err_path);
        }
}

/* The processes whose parent is `pid` (from /proc), up to `max`. */
static int children_of(pid_t pid, pid_t *out, int max)
{
    int n = 0;
    char line[128];
    snprintf(line, sizeof line, "ps -o pid= --ppid %d", (int)pid);
    FILE *p = popen(line, "r");
    int x;
    while (p && n < max && fscanf(p, "%d", &x) == 1)
        out[n++] = x;
    if (p)
        pclose(p);
    return n;
}

/* A worker killed during a run: every line is still answered and the
 * summary says that a worker died. */
static void test_worker_death_in_summary(void)
{
    char err_path[64];
    REQUIRE(test_temp_file(err_path, "", 0));
    int in_fd, out_fd;
    pid_t pid = start("count -t qwen3 --shards 2 --kind text", err_path, &in_fd, &out_fd);
    REQUIRE(pid > 0);
    iz len;
    char *in = repeat("{\"text\": \"Hello world\"}", 5, &len);
    EXPECT(write(in_fd, in, (size_t)len) == len);
    buf got = {0};
    read_lines(out_fd, &got, 5);   /* the workers are up and have counted */
    pid_t kids[8];
    int nk = children_of(pid, kids, 8);
    EXPECT_EQ(nk, 2);
    if (nk > 0)
        kill(kids[0], SIGKILL);
    EXPECT(write(in_fd, in, (size_t)len) == len);
    close(in_fd);
    read_lines(out_fd, &got, 1 << 30);
    int st;
    waitpid(pid, &st, 0);
    close(out_fd);
    buf_byte(&got, 0);
    char *err = test_slurp(err_path, NULL);
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    EXPECT_EQ(count_lines((const char *)got.data), 10);
    EXPECT(strstr(err, "10 counted") != NULL);
    EXPECT(strstr(err, "on 2 worker processes (1 died; the lines each held were retried one at a time)") != NULL);
    if (test_cur_failed)
        printf("#   stderr: %s\n", err);
    free(err);
    free(in);
    buf_free(&got);
    remove(err_path);
}

/* Standard input (or an argument) that is a folder: a failure in every
 * command (issue 17, defect 4). */
static void test_input_folder(void)
{
    for (iz k = 0; k < countof(cmds); k++) {
        char args[512];
        int st;
        char *err;
        snprintf(args, sizeof args, "%s < /tmp", cmds[k].args);
        char *out = test_tally(NULL, args, "", 0, &st, &err);
        EXPECT_EQ(st, 1);
        EXPECT(strstr(err, "cannot read standard input: it is a folder") != NULL);
        free(out);
        free(err);
        snprintf(args, sizeof args, "%s /tmp", cmds[k].args);
        out = test_tally(NULL, args, "", 0, &st, &err);
        EXPECT_EQ(st, 1);
        EXPECT(strstr(err, "cannot read /tmp: it is a folder") != NULL);
        free(out);
        free(err);
    }
}

/* Files as arguments (in order, "-" is standard input), -o FILE, a
 * byte-order mark at the start of each input, and errors that name the
 * file and line. */
static void test_files_and_output(void)
{
    for (iz k = 0; k < countof(cmds); k++) {
        char a[64], b[64], o[64];
        char text[4096];
        snprintf(text, sizeof text, "\xEF\xBB\xBF%s\nnot json\n", cmds[k].good);
        REQUIRE(test_temp_file(a, text, (iz)strlen(text)));
        snprintf(text, sizeof text, "%s\n", cmds[k].good);
        REQUIRE(test_temp_file(b, text, (iz)strlen(text)));
        REQUIRE(test_temp_file(o, "", 0));
        char args[1024];
        snprintf(args, sizeof args, "%s -o %s %s - %s", cmds[k].args, o, a, b);
        int st;
        char *out = test_tally(NULL, args, text, (iz)strlen(text), &st, NULL);
        REQUIRE(out);
        EXPECT_EQ(st, 4);
        EXPECT_STR(str_cstr(out), S(""));   /* all of it went to -o */
        char *written = test_slurp(o, NULL);
        EXPECT_EQ(count_lines(written), 4);   /* a (2 lines), stdin, b */
        char want[256];
        snprintf(want, sizeof want, "\"error\":\"%s line 2: invalid JSON", a);
        EXPECT(strstr(written, want) != NULL);
        /* the line after the byte-order mark is read as any other */
        EXPECT(strncmp(written, "{\"id\":1,", 8) == 0);
        if (test_cur_failed)
            printf("#   tally %s:\n%s", args, written);
        free(written);
        free(out);
        remove(a);
        remove(b);
        remove(o);
    }
}

/* An unknown option: one line, pointing at the command's help. */
static void test_unknown_option(void)
{
    static const char *const names[] = {"tokenize", "render", "count"};
    for (iz k = 0; k < countof(names); k++) {
        char args[128], want[256];
        snprintf(args, sizeof args, "%s --frobnicate", names[k]);
        snprintf(want, sizeof want, "tally: %s: unknown option --frobnicate; see tally %s --help\n", names[k],
                 names[k]);
        int st;
        char *err;
        char *out = test_tally(NULL, args, "", 0, &st, &err);
        EXPECT_EQ(st, 2);
        EXPECT_STR(str_cstr(err), str_cstr(want));
        free(out);
        free(err);
    }
}

/* Every --help, `tally help` and the README say where short names are
 * looked up, so that a copied binary can be pointed at its assets. */
static void test_help_says_assets(void)
{
    static const char *const args[] = {"help", "tokenize --help", "render --help", "count --help"};
    for (iz k = 0; k < countof(args); k++) {
        int st;
        char *out = test_tally(NULL, args[k], "", 0, &st, NULL);
        EXPECT_EQ(st, 0);
        EXPECT(strstr(out, "$TALLY_ASSETS") != NULL);
        EXPECT(strstr(out, "Exit status: 0") != NULL);
        free(out);
    }
    char *readme = test_slurp("README.md", NULL);
    EXPECT(strstr(readme, "TALLY_ASSETS") != NULL);
    free(readme);
}

/* The line of `help` that starts with `label`, as a string (static). */
static const char *help_row(const char *help, const char *label)
{
    static char row[512];
    const char *p = strstr(help, label);
    if (!p)
        return "";
    const char *nl = strchr(p, '\n');
    snprintf(row, sizeof row, "%.*s", (int)(nl ? nl - p : (iz)strlen(p)), p);
    return row;
}

/* Whether `name` is one of the comma-separated names of `row`. */
static bool in_row(const char *row, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(row, name); p; p = strstr(p + 1, name))
        if ((p[-1] == ' ' || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return true;
    return false;
}

/* The table of `tally help` against what `tally count` says of a prompt
 * with tools under each short name (issue 17, defect 6). */
static void test_tools_table(void)
{
    int st;
    char *help = test_tally(NULL, "help", "", 0, &st, NULL);
    REQUIRE(help && st == 0);
    static const char *const names[] = {"qwen3", "llama3_1", "llama3", "deepseek_v3", "gemma3",
                                        "llama2", "gpt4o", "gptoss", "claude"};
    static const char prompt[] =
        "{\"messages\": [{\"role\": \"user\", \"content\": \"Weather?\"}], \"tools\": [{\"type\": \"function\", "
        "\"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\"}}}]}\n"
        "{\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}], \"tools\": []}\n";
    char reads[512], never[512], none[512];
    snprintf(reads, sizeof reads, "%s", help_row(help, "  reads tools:"));
    snprintf(never, sizeof never, "%s", help_row(help, "  never reads tools:"));
    snprintf(none, sizeof none, "%s", help_row(help, "  no template:"));
    for (iz k = 0; k < countof(names); k++) {
        int rows = in_row(reads, names[k]) + in_row(never, names[k]) + in_row(none, names[k]);
        EXPECT_EQ(rows, 1);
        bool says_reads = in_row(reads, names[k]);
        char args[128];
        snprintf(args, sizeof args, "count -t %s --now 2025-01-15T12:00:00", names[k]);
        char *err;
        char *out = test_tally(NULL, args, prompt, lengthof(prompt), &st, &err);
        REQUIRE(out && err);
        /* the second prompt's tools are empty: not counted in the note */
        bool noted = strstr(err, "note: 1 prompts carry tools that their chat template never reads") != NULL;
        if (noted == says_reads) {
            printf("#   %s: help says it %s, count %s the note: %s\n", names[k],
                   says_reads ? "reads tools" : "does not", noted ? "gives" : "does not give", err);
            test_cur_failed = 1;
        }
        free(out);
        free(err);
    }
    free(help);
}

/* A template that would run for minutes, and one whose list doubles 60
 * times (issue 17, defect 1): every render has a time budget and the
 * memory cap of a count; a drain budget also stops the framing renders
 * at load and a line counted in this process. The outcomes are checked,
 * never how long they took. */
static const char slow_template[] =
    "{% for i in range(2000) %}{% set x = range(100000)|list|sort|join(',') %}{% endfor %}x";
static const char doubling_template[] =
    "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = ns.l + ns.l %}{% endfor %}"
    "{{ ns.l|length }}";

static void test_render_limits(void)
{
    char slow[64], dbl[64];
    REQUIRE(test_temp_file(slow, slow_template, lengthof(slow_template)));
    REQUIRE(test_temp_file(dbl, doubling_template, lengthof(doubling_template)));
    static const char prompt[] = "{\"id\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}\n";
    char args[256];
    int st;
    snprintf(args, sizeof args, "render -q --chat-template %s --render-timeout 0.2", slow);
    char *out = test_tally(NULL, args, prompt, lengthof(prompt), &st, NULL);
    EXPECT_EQ(st, 4);
    EXPECT(strstr(out, "{\"id\":1,\"error\":\"line 1: the render ran past its time budget of 0.2 s") == out);
    free(out);
    /* only the memory cap may stop this one: under sanitizers on a busy
     * machine the doubling takes seconds, near the default time budget */
    snprintf(args, sizeof args, "render -q --chat-template %s --render-timeout 100000", dbl);
    out = test_tally(NULL, args, prompt, lengthof(prompt), &st, NULL);
    EXPECT_EQ(st, 4);
    EXPECT(strstr(out, "out of memory") != NULL);
    free(out);
    /* count: the render budget is an error for the line; the drain budget
     * leaves it pending, whether the line is counted here or on a worker */
    snprintf(args, sizeof args, "count -q --kind prompt --chat-template %s --render-timeout 0.2", slow);
    out = test_tally(NULL, args, prompt, lengthof(prompt), &st, NULL);
    EXPECT_EQ(st, 4);
    EXPECT(strstr(out, "the render ran past its time budget of 0.2 s (--render-timeout)") != NULL);
    free(out);
    static const char *const shards[] = {"0", "2"};
    for (iz k = 0; k < countof(shards); k++) {
        char *err;
        snprintf(args, sizeof args, "count --shards %s --chat-template %s --drain-timeout 1", shards[k], slow);
        out = test_tally(NULL, args, prompt, lengthof(prompt), &st, &err);
        EXPECT_EQ(st, 3);
        EXPECT_STR(str_cstr(out), S("{\"id\":1,\"pending\":\"not counted: the drain budget (--drain-timeout) ran out\"}\n"));
        EXPECT(strstr(err, "the message framing does not render (stopped: the caller's deadline came first)") != NULL);
        free(out);
        free(err);
    }
    /* the budget runs out during the line, not at load: a template slow
     * only past two messages (the framing renders one and two) */
    static const char late[] = "{% if messages|length > 2 %}{% for i in range(2000) %}"
                               "{% set x = range(100000)|list|sort|join(',') %}{% endfor %}{% endif %}x";
    static const char three[] = "{\"id\": 2, \"messages\": [{\"role\": \"user\", \"content\": \"a\"}, "
                                "{\"role\": \"assistant\", \"content\": \"b\"}, {\"role\": \"user\", \"content\": \"c\"}]}\n";
    char late_path[64];
    REQUIRE(test_temp_file(late_path, late, lengthof(late)));
    for (iz k = 0; k < countof(shards); k++) {
        char *err;
        snprintf(args, sizeof args, "count --shards %s --chat-template %s --drain-timeout 1", shards[k], late_path);
        out = test_tally(NULL, args, three, lengthof(three), &st, &err);
        EXPECT_EQ(st, 3);
        EXPECT_STR(str_cstr(out), S("{\"id\":2,\"pending\":\"not counted: the drain budget (--drain-timeout) ran out\"}\n"));
        EXPECT(strstr(err, "framing") == NULL);
        if (test_cur_failed)
            printf("#   %s: %s%s\n", args, out, err);
        free(out);
        free(err);
    }
    remove(late_path);
    remove(slow);
    remove(dbl);
}

int main(void)
{
    RUN(test_exit_statuses);
    RUN(test_output_unwritable);
    RUN(test_output_closed_pipe);
    RUN(test_signals);
    RUN(test_worker_death_in_summary);
    RUN(test_input_folder);
    RUN(test_files_and_output);
    RUN(test_unknown_option);
    RUN(test_help_says_assets);
    RUN(test_tools_table);
    RUN(test_render_limits);
    return test_done();
}
