/* os.h - the few OS services the library needs: reading a whole file. */
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

#endif
