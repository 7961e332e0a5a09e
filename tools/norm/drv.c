/* drv.c - tally side of the normalizer comparisons (allcp.py, rand_cmp.py):
 * one normalizer, through tok_norm_parse/tok_norm_apply.
 * usage: drv 'NORMALIZER JSON' < lines
 * stdin: one text per line, as hex of its UTF-8
 * stdout: one line per text: the hex of the normalized text, or "ERR code msg"
 * when the normalizer fails on it; a single "LOADERR code msg" line (and
 * nothing else) when the normalizer does not load.
 * Built by lib.sh's build_tally with src/{base,json,tok}. */
#include <stdio.h>
#include <stdlib.h>
#include "../../src/tok/tok_internal.h"

static int hexv(int c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

static char line[1 << 22];
static u8   bytes[1 << 21];

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: drv 'NORMALIZER JSON' < hex lines\n");
        return 2;
    }
    arena perm;
    arena_init(&perm, 0);
    err e = {0};
    json *j = json_parse(&perm, str_cstr(argv[1]), NULL, &e);
    if (!j) {
        fprintf(stderr, "drv: bad JSON: %s\n", e.msg);
        return 2;
    }
    tok_norm *n = tok_norm_parse(&perm, j, "normalizer", &e);
    if (!n) {
        printf("LOADERR %d %s\n", e.code, e.msg);
        return 0;
    }
    tok_work w = {0};
    arena_init(&w.scratch, 0);
    while (fgets(line, sizeof line, stdin)) {
        iz len = (iz)strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        iz nb = len / 2;
        for (iz i = 0; i < nb; i++)
            bytes[i] = (u8)(hexv(line[2 * i]) * 16 + hexv(line[2 * i + 1]));
        str out;
        arena_mark m = arena_save(&w.scratch);
        e = (err){0};
        int rc = tok_norm_apply(n, &w, (str){bytes, nb}, &out, &e);
        if (rc) {
            printf("ERR %d %s\n", rc, e.msg);
        } else {
            for (iz i = 0; i < out.len; i++)
                printf("%02x", out.s[i]);
            putchar('\n');
        }
        arena_restore(&w.scratch, m);
    }
    tok_regex_work_fini(&w);
    arena_fini(&w.scratch);
    arena_fini(&perm);
    return 0;
}
