/* uprops.c - what utf8proc (the one tally links) says about every code point,
 * for gen_tables.py and rand_cmp.py: one line per code point 0..10FFFF,
 *   CP CAT CCC DTYPE DEC COMB LOWER
 * CP and LOWER (utf8proc_tolower) in hex, the rest decimal: CAT the
 * utf8proc_category_t number, CCC the combining class, DTYPE the
 * decomposition type (0 canonical), DEC 1 when the character has a
 * decomposition in the table (Hangul syllables have none there: they
 * decompose by rule), COMB 0 (composes with nothing), 1 (first half of a
 * composition) or 2 (second half). Built by lib.sh's build_uprops. */
#include <stdio.h>
#include <utf8proc.h>

int main(void)
{
    for (utf8proc_int32_t c = 0; c < 0x110000; c++) {
        const utf8proc_property_t *p = utf8proc_get_property(c);
        int comb = p->comb_index == UINT16_MAX ? 0 : (p->comb_index & 0x8000) ? 2 : 1;
        printf("%x %d %d %d %d %d %x\n", (unsigned)c, (int)p->category, (int)p->combining_class,
               (int)p->decomp_type, p->decomp_seqindex != UINT16_MAX, comb, (unsigned)utf8proc_tolower(c));
    }
    return 0;
}
