/* test_aggregate.c - `tally aggregate` on its sockets: each case of
 * tests/aggregate/aggtest.py (a publisher and a subscriber of upstream's
 * frames in Python, with Debian's python3-zmq and python3-msgpack, on ipc
 * sockets in a temporary folder) in a process of its own, under a
 * timeout. The Python that has both modules is looked for: $TALLY_PYTHON,
 * python3 on the PATH, then /usr/bin/python3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "test.h"
#include "test_proc.h"

static char python[256];

static bool has_modules(const char *py)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -c 'import zmq, msgpack' >/dev/null 2>&1", py);
    return system(cmd) == 0;
}

static void find_python(void)
{
    const char *env = getenv("TALLY_PYTHON");
    const char *cands[] = {env && *env ? env : NULL, "python3", "/usr/bin/python3"};
    for (size_t k = 0; k < countof(cands); k++)
        if (cands[k] && has_modules(cands[k])) {
            snprintf(python, sizeof python, "%s", cands[k]);
            return;
        }
}

/* One case: its output shown when it fails. */
static void run_case(const char *name)
{
    if (!python[0]) {
        printf("#   no python3 with the zmq and msgpack modules (scripts/setup.sh installs python3-zmq and "
               "python3-msgpack)\n");
        test_cur_failed = 1;
        return;
    }
    char out[64];
    REQUIRE(test_temp_file(out, "", 0));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "TALLY_BIN=%s timeout -s KILL 600 %s tests/aggregate/aggtest.py %s > %s 2>&1",
             test_bin(), python, name, out);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (rc != 0) {
        char *text = test_slurp(out, NULL);
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            printf("#   %s\n", line);
        printf("#   %s exited with status %d\n", name, rc);
        free(text);
        test_cur_failed = 1;
    }
    remove(out);
}

#define CASE(name) static void test_##name(void) { run_case(#name); }
CASE(fatal)
CASE(readiness)
CASE(record_by_record)
CASE(batched)
CASE(generated)
CASE(live_snapshots)
CASE(sigterm)
CASE(live_lane)
CASE(sigint)
CASE(malformed)
CASE(vanish)
CASE(write_error)

int main(void)
{
    find_python();
    RUN(test_fatal);
    RUN(test_readiness);
    RUN(test_record_by_record);
    RUN(test_batched);
    RUN(test_generated);
    RUN(test_live_snapshots);
    RUN(test_sigterm);
    RUN(test_live_lane);
    RUN(test_sigint);
    RUN(test_malformed);
    RUN(test_vanish);
    RUN(test_write_error);
    return test_done();
}
