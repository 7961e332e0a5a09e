/* test_proc.h - running the tally binary from a test as a user would: the
 * binary named by $TALLY_BIN (tests/run.sh sets it), in a child process
 * under `timeout`, its input from a temporary file, its output and its
 * error output captured. One runner for every command test. */
#ifndef TALLY_TEST_PROC_H
#define TALLY_TEST_PROC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"

static inline const char *test_bin(void)
{
    const char *b = getenv("TALLY_BIN");
    return b && *b ? b : "build/test/tally";
}

/* Writes `len` bytes to a new temporary file; its path goes to path (at
 * least 64 bytes). False when it cannot. */
static inline bool test_temp_file(char *path, const char *data, iz len)
{
    snprintf(path, 64, "/tmp/tally-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return false;
    FILE *f = fdopen(fd, "wb");
    if (!f)
        return false;
    if (len)
        fwrite(data, 1, (size_t)len, f);
    return fclose(f) == 0;
}

/* Runs `ENV timeout 300 tally ARGS < input > out 2> err` (input: `len`
 * bytes; `args` may redirect too: its redirections come last and win). Returns
 * the output (malloc'd, NUL-terminated, "" when none), the error output in
 * *err_out when not NULL (free it), and the exit status (-1 when killed by
 * a signal, 124 when the timeout ran out). */
static inline char *test_tally(const char *env, const char *args, const char *input, iz len, int *status,
                               char **err_out)
{
    char in_path[64], out_path[64], err_path[64];
    if (!test_temp_file(in_path, input, len) || !test_temp_file(out_path, "", 0) ||
        !test_temp_file(err_path, "", 0))
        return NULL;
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "%s timeout 300 %s < %s > %s 2> %s %s", env ? env : "", test_bin(), in_path,
             out_path, err_path, args);
    int st = system(cmd);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    char *out = test_slurp(out_path, NULL);
    if (err_out)
        *err_out = test_slurp(err_path, NULL);
    remove(in_path);
    remove(out_path);
    remove(err_path);
    return out;
}

#endif
