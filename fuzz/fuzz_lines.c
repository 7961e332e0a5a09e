/* fuzz_lines.c - libFuzzer target for the line reader (src/base/lines.c):
 * the first byte picks the longest line accepted (1..256), the rest is the
 * input, read from a file. Properties: no line holds a newline or is longer
 * than the limit; the lines and the too-long ones are exactly the input's
 * newline-separated pieces (one more when the last has no newline), with a
 * byte-order mark at the very start dropped; every byte is consumed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../src/base/lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    iz max = 1 + data[0];
    const u8 *in = data + 1;
    iz n = (iz)size - 1;
    int fd = memfd_create("fuzz_lines", 0);
    if (fd < 0)
        return 0;
    if (n && write(fd, in, (size_t)n) != n)
        __builtin_trap();
    lseek(fd, 0, SEEK_SET);
    lines r;
    if (!lines_init(&r, fd, max))
        __builtin_trap();
    /* the expected pieces */
    iz at = n >= 3 && in[0] == 0xEF && in[1] == 0xBB && in[2] == 0xBF ? 3 : 0;
    str l;
    int lr;
    i64 count = 0;
    while ((lr = lines_next(&r, &l)) != LINES_END) {
        const u8 *nl = memchr(in + at, '\n', (size_t)(n - at));
        iz end = nl ? nl - in : n;
        if (at >= n && !nl)
            __builtin_trap();   /* a line past the end */
        if (lr == LINES_OK) {
            if (l.len != end - at || l.len > max || (l.len && memcmp(l.s, in + at, (size_t)l.len)))
                __builtin_trap();
        } else if (end - at <= max) {
            __builtin_trap();   /* called too long but is not */
        }
        at = nl ? end + 1 : n;
        count++;
    }
    if (r.failed || at != n || r.consumed != n || r.number != count)
        __builtin_trap();
    lines_fini(&r);
    close(fd);
    return 0;
}
