/* drv.c - tally side of the oracle comparison (compare.sh): the same input
 * and output format as orc.js, run through tok_pretok_parse/tok_pretok_run.
 * stdin: JSON lines {"pt": <pre_tokenizer object>, "s": [strings]}
 * stdout: one line per string, its pieces as hex of raw bytes separated by
 * spaces, or "ERR msg". Built by lib.sh's build_drv with src/{base,json,tok}. */
#include <stdio.h>
#include <stdlib.h>
#include "../../src/tok/tok_internal.h"

static char line[1 << 27];   /* one JSON line; the all-code-point lines are ~20 MB */

int main(void)
{
    while (fgets(line, sizeof line, stdin)) {
        arena perm;
        arena_init(&perm, 0);
        err e = {0};
        json *j = json_parse(&perm, str_cstr(line), NULL, &e);
        if (!j) { printf("ERR json %s\n", e.msg); arena_fini(&perm); continue; }
        const json *pt = json_get(j, S("pt")), *ss = json_get(j, S("s"));
        tok_pretok *p = tok_pretok_parse(&perm, pt, "pre_tokenizer", &e);
        if (!p) {
            for (iz k = 0; k < ss->u.arr.n; k++) printf("ERR %s\n", e.msg);
            arena_fini(&perm);
            continue;
        }
        tok_work w = {0};
        arena_init(&w.scratch, 0);
        for (iz k = 0; k < ss->u.arr.n; k++) {
            str s = ss->u.arr.items[k].u.s;
            tok_pieces out = {0};
            if (tok_pretok_run(p, &w, s, true, &out, &e)) { printf("ERR %s\n", e.msg); continue; }
            for (iz i = 0; i < out.n; i++) {
                if (i) putchar(' ');
                for (iz b = 0; b < out.v[i].len; b++) printf("%02x", out.v[i].s[b]);
            }
            putchar('\n');
            arena_fini(&w.scratch);   /* a fresh scratch per string */
            arena_init(&w.scratch, 0);
        }
        tok_regex_work_fini(&w);
        arena_fini(&w.scratch);
        arena_fini(&perm);
    }
    return 0;
}
