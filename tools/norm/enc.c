/* enc.c - tally side of the end-to-end comparison (e2e.py): the whole
 * pipeline of a tokenizer folder, through tok_load/tok_encode.
 * usage: enc DIR < lines     (DIR holds tokenizer.json)
 * stdin: one text per line, as hex of its UTF-8
 * stdout: one line per text: its ids separated by commas, or "ERR msg";
 * a single "LOADERR msg" line when the tokenizer does not load.
 * Built by lib.sh's build_tally with src/{base,json,tok}. */
#include <stdio.h>
#include <stdlib.h>
#include "../../src/tok/tok.h"

static int hexv(int c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

static char          line[1 << 22];
static unsigned char bytes[1 << 21];

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: enc DIR < hex lines\n");
        return 2;
    }
    err e = {0};
    tok *t = tok_load(argv[1], &e);
    if (!t) {
        printf("LOADERR %s\n", e.msg);
        return 0;
    }
    tok_work *w = tok_work_new(t);
    if (!w) {
        fprintf(stderr, "enc: out of memory\n");
        return 1;
    }
    while (fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        size_t nb = len / 2;
        for (size_t i = 0; i < nb; i++)
            bytes[i] = (unsigned char)(hexv(line[2 * i]) * 16 + hexv(line[2 * i + 1]));
        const u32 *ids;
        iz n;
        e = (err){0};
        if (tok_encode(t, w, (str){bytes, (iz)nb}, &ids, &n, &e)) {
            printf("ERR %s\n", e.msg);
            continue;
        }
        for (iz i = 0; i < n; i++)
            printf(i ? ",%u" : "%u", ids[i]);
        putchar('\n');
    }
    tok_work_free(w);
    tok_free(t);
    return 0;
}
