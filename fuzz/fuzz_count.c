/* fuzz_count.c - libFuzzer target for the counting path of `tally count`:
 * one input line (a JSON value of any shape: oracle objects, upstream
 * payloads, event lines) through agg_input (with the kind picked from
 * the first byte: auto or one of the four) and count_item with qwen3 (from
 * $TALLY_ASSETS or assets/). Checks: nothing crashes or leaks; a counted
 * item has n >= 0; an item counted twice gives the same result (one
 * work area serves every item, so no state may leak between them). */
#include <stdio.h>
#include <stdlib.h>
#include "../src/chat/count.h"
#include "../src/agg/inputs.h"
#include "../src/chat/shapes.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static count_model *model;
static count_work  *work;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv("TALLY_ASSETS");
    char path[1024];
    snprintf(path, sizeof(path), "%s/qwen3", dir && *dir ? dir : "assets");
    err e = {0};
    count_model_opts o = {.now = 1736942400};
    model = count_model_load(path, &o, &e);
    if (!model) {
        fprintf(stderr, "fuzz_count: %s\n", e.msg);
        exit(1);
    }
    work = count_work_new(model);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const int kinds[5] = {SHAPES_AUTO, COUNT_IDS, COUNT_TEXT, COUNT_MESSAGE, COUNT_PROMPT};
    int want = kinds[data[0] % 5];
    arena a;
    arena_init(&a, 64 << 20);
    jmp_buf jb;
    a.oom = &jb;
    if (setjmp(jb)) {
        arena_fini(&a);
        return 0;
    }
    err e = {0};
    json *v = json_parse(&a, str_from(data + 1, (iz)size - 1), NULL, &e);
    if (v) {
        shapes_item it;
        if (agg_input(&a, v, want, AGG_ANY, &it, &e) == SHAPES_COUNT) {
            count_result r1, r2;
            int rc1 = count_item(work, &it.in, &r1);
            int rc2 = count_item(work, &it.in, &r2);
            if (rc1 != rc2 || (rc1 == ERR_OK && (r1.n < 0 || r1.n != r2.n || r1.fallback != r2.fallback)))
                __builtin_trap();
        }
    }
    arena_fini(&a);
    return 0;
}
