/* os.h - the few OS services the library needs: reading a whole file,
 * writing one atomically, making folders, the monotonic clock. */
#ifndef TALLY_OS_H
#define TALLY_OS_H

#include "arena.h"
#include "err.h"

/* Reads the whole file at `path` (NUL-terminated) into `a`. The slice gets a
 * trailing NUL byte not counted in len. On failure returns {0} with
 * s == NULL and fills `e` with the OS's reason. */
str os_read_file(arena *a, const char *path, err *e);
bool os_is_dir(const char *path);
bool os_is_file(const char *path);
/* Monotonic clock in seconds. */
double os_now(void);
/* Number of CPUs this process may run on (affinity mask, cgroup v2 quota). */
int    os_cpus(void);
/* The same clock in nanoseconds (Python's time.monotonic_ns()). */
i64    os_monotonic_ns(void);
/* Writes `data` to `path` atomically: a temporary file beside it, fsync,
 * rename over `path`, fsync of the folder. ERR_OK or ERR_IO with `e`
 * naming the file and the OS's reason (the temporary file is removed). */
int    os_write_file_atomic(const char *path, str data, err *e);
/* mkdir -p: every missing folder of `path`. ERR_OK or ERR_IO. */
int    os_mkdirs(const char *path, err *e);

#endif
