/* os.c - POSIX implementation of os.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
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

i64 os_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (i64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int os_mkdirs(const char *path, err *e)
{
    char p[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof p)
        return err_set(e, ERR_IO, -1, "bad folder name \"%s\"", path);
    memcpy(p, path, n + 1);
    for (size_t k = 1; k <= n; k++) {
        if (p[k] != '/' && p[k] != 0)
            continue;
        char c = p[k];
        p[k] = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            return err_set(e, ERR_IO, -1, "cannot make the folder %s: %s", p, strerror(errno));
        p[k] = c;
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return err_set(e, ERR_IO, -1, "%s is not a folder", path);
    return ERR_OK;
}

int os_write_file_atomic(const char *path, str data, err *e)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof tmp)
        return err_set(e, ERR_IO, -1, "path too long: %s", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return err_set(e, ERR_IO, -1, "cannot write %s: %s", tmp, strerror(errno));
    const u8 *q = data.s;
    iz left = data.len;
    while (left > 0) {
        ssize_t k = write(fd, q, (size_t)left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int en = k < 0 ? errno : ENOSPC;
            close(fd);
            unlink(tmp);
            return err_set(e, ERR_IO, -1, "writing %s failed: %s", tmp, strerror(en));
        }
        q += k;
        left -= k;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int en = errno;
        unlink(tmp);
        return err_set(e, ERR_IO, -1, "writing %s failed: %s", tmp, strerror(en));
    }
    if (rename(tmp, path) != 0) {
        int en = errno;
        unlink(tmp);
        return err_set(e, ERR_IO, -1, "cannot rename %s to %s: %s", tmp, path, strerror(en));
    }
    /* the folder's entry too */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;   /* "/name": the root */
    else
        *slash = 0;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return ERR_OK;
}

int os_cpus(void)
{
    int n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    /* a cgroup v2 CPU quota ("max" or "QUOTA PERIOD") lowers it */
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        char q[32];
        long long period = 0;
        if (fscanf(f, "%31s %lld", q, &period) == 2 && strcmp(q, "max") != 0 && period > 0) {
            long long quota = atoll(q);
            int lim = (int)((quota + period - 1) / period);
            if (lim > 0 && lim < n)
                n = lim;
        }
        fclose(f);
    }
    return n > 0 ? n : 1;
}
