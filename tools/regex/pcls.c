/* pcls.c - asks PCRE2 (the system's libpcre2-8, UTF + UCP) which code points
 * a class matches, for gen_tables.py.
 * usage: pcls CLASS...   prints "CLASS\tlo-hi,lo-hi,..." (hex) per CLASS, the
 * code points c for which ^(?:CLASS)$ matches c alone, or "CLASS\tERROR n".
 * build: cc -O2 -o pcls pcls.c $(pkg-config --cflags --libs libpcre2-8) */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

/* UTF-8 of c into o; returns the length. */
static int enc(unsigned c, unsigned char *o)
{
    typedef unsigned char u8;
    if (c < 0x80) { o[0] = (u8)c; return 1; }
    if (c < 0x800) { o[0] = (u8)(0xc0 | c >> 6); o[1] = (u8)(0x80 | (c & 63)); return 2; }
    if (c < 0x10000) {
        o[0] = (u8)(0xe0 | c >> 12); o[1] = (u8)(0x80 | ((c >> 6) & 63)); o[2] = (u8)(0x80 | (c & 63));
        return 3;
    }
    o[0] = (u8)(0xf0 | c >> 18); o[1] = (u8)(0x80 | ((c >> 12) & 63));
    o[2] = (u8)(0x80 | ((c >> 6) & 63)); o[3] = (u8)(0x80 | (c & 63));
    return 4;
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++) {
        char pat[4096];
        snprintf(pat, sizeof pat, "^(?:%s)$", argv[a]);
        int en;
        PCRE2_SIZE eo;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &en, &eo, NULL);
        if (!re) { printf("%s\tERROR %d\n", argv[a], en); continue; }
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
        printf("%s\t", argv[a]);
        int first = 1;
        long st = -1, prev = -1;
        for (unsigned c = 0; c <= 0x110000; c++) {   /* 0x110000 closes the last run */
            if (c >= 0xd800 && c <= 0xdfff) continue;
            int in = 0;
            if (c <= 0x10ffff) {
                unsigned char b[4];
                int n = enc(c, b);
                in = pcre2_match(re, b, (PCRE2_SIZE)n, 0, 0, md, NULL) >= 0;
            }
            if (in) { if (st < 0) st = c; prev = c; }
            else if (st >= 0) { printf("%s%lx-%lx", first ? "" : ",", st, prev); first = 0; st = -1; }
        }
        printf("\n");
        pcre2_match_data_free(md);
        pcre2_code_free(re);
    }
    return 0;
}
