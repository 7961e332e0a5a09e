/* fuzz_json.c - libFuzzer target for the JSON reader: any bytes either
 * parse or fail with an error inside the input; what parses writes out and
 * reads back to the same text (write -> read -> write is a fixed point). */
#include <stdio.h>
#include <stdlib.h>
#include "../src/json/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena a;
    arena_init(&a, 64 << 20);
    err e = {0};
    json_opts o = {64};
    json *v = json_parse(&a, str_from(data, (iz)size), &o, &e);
    if (!v) {
        if (e.code == ERR_OK || e.off < 0 || e.off > (iz)size)
            __builtin_trap();
    } else {
        buf b1 = {0}, b2 = {0};
        json_write(&b1, v);
        json *w = json_parse(&a, buf_view(&b1), &o, &e);
        if (!w)
            __builtin_trap();
        json_write(&b2, w);
        if (!str_eq(buf_view(&b1), buf_view(&b2)))
            __builtin_trap();
        buf_free(&b1);
        buf_free(&b2);
    }
    arena_fini(&a);
    return 0;
}
