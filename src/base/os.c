/* os.c - POSIX implementation of os.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "os.h"

str os_read_file(arena *a, const char *path, err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err_set(e, ERR_IO, -1, "%s: %s", path, strerror(errno));
        return (str){0};
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        err_set(e, ERR_IO, -1, "%s: not a regular file", path);
        close(fd);
        return (str){0};
    }
    iz size = (iz)st.st_size;
    u8 *p = arena_alloc_nz(a, 1, 1, size + 1);
    if (!p) {
        err_set(e, ERR_NOMEM, -1, "%s: out of memory reading %td bytes", path, size);
        close(fd);
        return (str){0};
    }
    iz got = 0;
    while (got < size) {
        ssize_t r = read(fd, p + got, (size_t)(size - got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            err_set(e, ERR_IO, -1, "%s: %s", path, r < 0 ? strerror(errno) : "file shrank while reading");
            close(fd);
            return (str){0};
        }
        got += r;
    }
    close(fd);
    p[size] = 0;
    return (str){p, size};
}

bool os_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool os_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

double os_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
