/* fuzz_regex.c - libFuzzer target for regex.c: the input is a pattern and
 * a subject separated by the first NUL byte. Patterns the translator
 * rejects must fail cleanly; accepted ones are compiled by PCRE2 and run
 * over the subject with the onig crate's find_iter stepping, which must
 * terminate with matches inside the subject and on character boundaries. */
#include <stdlib.h>
#include "../src/tok/tok_internal.h"
#include "../src/base/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const u8 *nul = memchr(data, 0, size);
    str pat = str_from(data, nul ? nul - data : (iz)size);
    str subj = nul ? str_from(nul + 1, (iz)size - (nul + 1 - data)) : S("");
    if (utf8_invalid_at(pat) >= 0 || utf8_invalid_at(subj) >= 0)
        return 0;   /* tokenizer.json strings and inputs are valid UTF-8 */
    arena perm;
    arena_init(&perm, 1 << 26);
    tok_work w = {0};
    arena_init(&w.scratch, 0);
    for (int literal = 0; literal < 2; literal++) {
        err e = {0};
        tok_regex *re = tok_regex_compile(&perm, pat, literal, &e);
        if (!re) {
            if (e.code == ERR_OK || !e.msg[0])
                abort();   /* a failure must say why */
            continue;
        }
        iz pos = 0, last_end = -1;
        while (pos <= subj.len) {
            iz mb, me;
            int rc = tok_regex_find(re, &w, subj, pos, &mb, &me, &e);
            if (rc <= 0)
                break;
            if (mb < pos || me < mb || me > subj.len)
                abort();
            if ((mb < subj.len && (subj.s[mb] & 0xc0) == 0x80) || (me < subj.len && (subj.s[me] & 0xc0) == 0x80))
                abort();
            if (mb == me)
                pos = me < subj.len ? me + utf8_len(subj.s[me]) : me + 1;
            else
                pos = me;
            last_end = me;
        }
        (void)last_end;
    }
    tok_regex_work_fini(&w);
    arena_fini(&w.scratch);
    arena_fini(&perm);
    return 0;
}
