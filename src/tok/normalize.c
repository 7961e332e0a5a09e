/* normalize.c - the "normalizer" of tokenizer.json (tok_internal.h): NFC,
 * NFD, NFKC, NFKD, Lowercase, Replace, Prepend, Strip, StripAccents, Nmt,
 * ByteLevel, BertNormalizer and Sequence, with the semantics of the Rust
 * `tokenizers` crate 0.22. Unicode data comes from utf8proc, held back to
 * the Unicode versions the crate's own tables have (see "Unicode versions"). */
#include <stdatomic.h>
#include <stdio.h>
#include <utf8proc.h>
#include "tok_internal.h"
#include "../base/utf8.h"

typedef enum {
    NORM_SEQUENCE,
    NORM_NFC,
    NORM_NFD,
    NORM_NFKC,
    NORM_NFKD,
    NORM_LOWERCASE,
    NORM_REPLACE,
    NORM_PREPEND,
    NORM_STRIP,
    NORM_STRIP_ACCENTS,
    NORM_NMT,
    NORM_BYTE_LEVEL,
    NORM_BERT,
} norm_kind;

struct tok_norm {
    norm_kind kind;
    union {
        struct {
            tok_norm *v;
            iz        n;
        } seq;
        struct {
            str              pat;       /* the String pattern */
            str              content;
            const tok_regex *re;        /* the Regex pattern, or NULL */
        } rep;
        str prepend;
        struct {
            bool left, right;
        } strip;
        struct {
            bool clean_text, chinese, strip_accents, lowercase;
        } bert;
    } u;
};

/* ---- Unicode versions ----------------------------------------------------
 * The crate answers Unicode questions with three different tables:
 *   - NFC/NFD/NFKC/NFKD and StripAccents (is_combining_mark) come from
 *     unicode-normalization-alignments 0.1.12: Unicode 9.0.0;
 *   - BertNormalizer's categories (is_other, is_mark_nonspacing) come from
 *     unicode_categories 0.1.1: Unicode 8.0.0;
 *   - Lowercase and Strip use Rust's char::to_lowercase and is_whitespace:
 *     Unicode 17.0 in the build behind the oracle.
 * utf8proc 2.8 has Unicode 15.0. For every code point assigned in 9.0 its
 * combining classes, decompositions and compositions equal those of the
 * 9.0 tables (checked exhaustively), as Unicode's stability policy
 * promises; code points assigned later are, to the crate, unassigned:
 * class 0, no decomposition, composing with nothing, not a mark. So a
 * table of what was assigned in 9.0 is enough to hold utf8proc back.
 * Every generated table of this file is regenerated and compared with the
 * reference by tools/norm/ (check.sh, compare.sh). */

typedef struct {
    u32 lo, hi;   /* [lo, hi) */
} urange;

/* Code points assigned in Unicode 9.0, from Perl's Unicode::UCD:
 *   perl -MUnicode::UCD=prop_invlist -e 'print join(",", prop_invlist("In=9.0"))'
 * (pairs of that inversion list). */
static const urange UNI9[] = {
    {0x0, 0x378}, {0x37a, 0x380}, {0x384, 0x38b}, {0x38c, 0x38d}, {0x38e, 0x3a2},
    {0x3a3, 0x530}, {0x531, 0x557}, {0x559, 0x560}, {0x561, 0x588}, {0x589, 0x58b},
    {0x58d, 0x590}, {0x591, 0x5c8}, {0x5d0, 0x5eb}, {0x5f0, 0x5f5}, {0x600, 0x61d},
    {0x61e, 0x70e}, {0x70f, 0x74b}, {0x74d, 0x7b2}, {0x7c0, 0x7fb}, {0x800, 0x82e},
    {0x830, 0x83f}, {0x840, 0x85c}, {0x85e, 0x85f}, {0x8a0, 0x8b5}, {0x8b6, 0x8be},
    {0x8d4, 0x984}, {0x985, 0x98d}, {0x98f, 0x991}, {0x993, 0x9a9}, {0x9aa, 0x9b1},
    {0x9b2, 0x9b3}, {0x9b6, 0x9ba}, {0x9bc, 0x9c5}, {0x9c7, 0x9c9}, {0x9cb, 0x9cf},
    {0x9d7, 0x9d8}, {0x9dc, 0x9de}, {0x9df, 0x9e4}, {0x9e6, 0x9fc}, {0xa01, 0xa04},
    {0xa05, 0xa0b}, {0xa0f, 0xa11}, {0xa13, 0xa29}, {0xa2a, 0xa31}, {0xa32, 0xa34},
    {0xa35, 0xa37}, {0xa38, 0xa3a}, {0xa3c, 0xa3d}, {0xa3e, 0xa43}, {0xa47, 0xa49},
    {0xa4b, 0xa4e}, {0xa51, 0xa52}, {0xa59, 0xa5d}, {0xa5e, 0xa5f}, {0xa66, 0xa76},
    {0xa81, 0xa84}, {0xa85, 0xa8e}, {0xa8f, 0xa92}, {0xa93, 0xaa9}, {0xaaa, 0xab1},
    {0xab2, 0xab4}, {0xab5, 0xaba}, {0xabc, 0xac6}, {0xac7, 0xaca}, {0xacb, 0xace},
    {0xad0, 0xad1}, {0xae0, 0xae4}, {0xae6, 0xaf2}, {0xaf9, 0xafa}, {0xb01, 0xb04},
    {0xb05, 0xb0d}, {0xb0f, 0xb11}, {0xb13, 0xb29}, {0xb2a, 0xb31}, {0xb32, 0xb34},
    {0xb35, 0xb3a}, {0xb3c, 0xb45}, {0xb47, 0xb49}, {0xb4b, 0xb4e}, {0xb56, 0xb58},
    {0xb5c, 0xb5e}, {0xb5f, 0xb64}, {0xb66, 0xb78}, {0xb82, 0xb84}, {0xb85, 0xb8b},
    {0xb8e, 0xb91}, {0xb92, 0xb96}, {0xb99, 0xb9b}, {0xb9c, 0xb9d}, {0xb9e, 0xba0},
    {0xba3, 0xba5}, {0xba8, 0xbab}, {0xbae, 0xbba}, {0xbbe, 0xbc3}, {0xbc6, 0xbc9},
    {0xbca, 0xbce}, {0xbd0, 0xbd1}, {0xbd7, 0xbd8}, {0xbe6, 0xbfb}, {0xc00, 0xc04},
    {0xc05, 0xc0d}, {0xc0e, 0xc11}, {0xc12, 0xc29}, {0xc2a, 0xc3a}, {0xc3d, 0xc45},
    {0xc46, 0xc49}, {0xc4a, 0xc4e}, {0xc55, 0xc57}, {0xc58, 0xc5b}, {0xc60, 0xc64},
    {0xc66, 0xc70}, {0xc78, 0xc84}, {0xc85, 0xc8d}, {0xc8e, 0xc91}, {0xc92, 0xca9},
    {0xcaa, 0xcb4}, {0xcb5, 0xcba}, {0xcbc, 0xcc5}, {0xcc6, 0xcc9}, {0xcca, 0xcce},
    {0xcd5, 0xcd7}, {0xcde, 0xcdf}, {0xce0, 0xce4}, {0xce6, 0xcf0}, {0xcf1, 0xcf3},
    {0xd01, 0xd04}, {0xd05, 0xd0d}, {0xd0e, 0xd11}, {0xd12, 0xd3b}, {0xd3d, 0xd45},
    {0xd46, 0xd49}, {0xd4a, 0xd50}, {0xd54, 0xd64}, {0xd66, 0xd80}, {0xd82, 0xd84},
    {0xd85, 0xd97}, {0xd9a, 0xdb2}, {0xdb3, 0xdbc}, {0xdbd, 0xdbe}, {0xdc0, 0xdc7},
    {0xdca, 0xdcb}, {0xdcf, 0xdd5}, {0xdd6, 0xdd7}, {0xdd8, 0xde0}, {0xde6, 0xdf0},
    {0xdf2, 0xdf5}, {0xe01, 0xe3b}, {0xe3f, 0xe5c}, {0xe81, 0xe83}, {0xe84, 0xe85},
    {0xe87, 0xe89}, {0xe8a, 0xe8b}, {0xe8d, 0xe8e}, {0xe94, 0xe98}, {0xe99, 0xea0},
    {0xea1, 0xea4}, {0xea5, 0xea6}, {0xea7, 0xea8}, {0xeaa, 0xeac}, {0xead, 0xeba},
    {0xebb, 0xebe}, {0xec0, 0xec5}, {0xec6, 0xec7}, {0xec8, 0xece}, {0xed0, 0xeda},
    {0xedc, 0xee0}, {0xf00, 0xf48}, {0xf49, 0xf6d}, {0xf71, 0xf98}, {0xf99, 0xfbd},
    {0xfbe, 0xfcd}, {0xfce, 0xfdb}, {0x1000, 0x10c6}, {0x10c7, 0x10c8}, {0x10cd, 0x10ce},
    {0x10d0, 0x1249}, {0x124a, 0x124e}, {0x1250, 0x1257}, {0x1258, 0x1259}, {0x125a, 0x125e},
    {0x1260, 0x1289}, {0x128a, 0x128e}, {0x1290, 0x12b1}, {0x12b2, 0x12b6}, {0x12b8, 0x12bf},
    {0x12c0, 0x12c1}, {0x12c2, 0x12c6}, {0x12c8, 0x12d7}, {0x12d8, 0x1311}, {0x1312, 0x1316},
    {0x1318, 0x135b}, {0x135d, 0x137d}, {0x1380, 0x139a}, {0x13a0, 0x13f6}, {0x13f8, 0x13fe},
    {0x1400, 0x169d}, {0x16a0, 0x16f9}, {0x1700, 0x170d}, {0x170e, 0x1715}, {0x1720, 0x1737},
    {0x1740, 0x1754}, {0x1760, 0x176d}, {0x176e, 0x1771}, {0x1772, 0x1774}, {0x1780, 0x17de},
    {0x17e0, 0x17ea}, {0x17f0, 0x17fa}, {0x1800, 0x180f}, {0x1810, 0x181a}, {0x1820, 0x1878},
    {0x1880, 0x18ab}, {0x18b0, 0x18f6}, {0x1900, 0x191f}, {0x1920, 0x192c}, {0x1930, 0x193c},
    {0x1940, 0x1941}, {0x1944, 0x196e}, {0x1970, 0x1975}, {0x1980, 0x19ac}, {0x19b0, 0x19ca},
    {0x19d0, 0x19db}, {0x19de, 0x1a1c}, {0x1a1e, 0x1a5f}, {0x1a60, 0x1a7d}, {0x1a7f, 0x1a8a},
    {0x1a90, 0x1a9a}, {0x1aa0, 0x1aae}, {0x1ab0, 0x1abf}, {0x1b00, 0x1b4c}, {0x1b50, 0x1b7d},
    {0x1b80, 0x1bf4}, {0x1bfc, 0x1c38}, {0x1c3b, 0x1c4a}, {0x1c4d, 0x1c89}, {0x1cc0, 0x1cc8},
    {0x1cd0, 0x1cf7}, {0x1cf8, 0x1cfa}, {0x1d00, 0x1df6}, {0x1dfb, 0x1f16}, {0x1f18, 0x1f1e},
    {0x1f20, 0x1f46}, {0x1f48, 0x1f4e}, {0x1f50, 0x1f58}, {0x1f59, 0x1f5a}, {0x1f5b, 0x1f5c},
    {0x1f5d, 0x1f5e}, {0x1f5f, 0x1f7e}, {0x1f80, 0x1fb5}, {0x1fb6, 0x1fc5}, {0x1fc6, 0x1fd4},
    {0x1fd6, 0x1fdc}, {0x1fdd, 0x1ff0}, {0x1ff2, 0x1ff5}, {0x1ff6, 0x1fff}, {0x2000, 0x2065},
    {0x2066, 0x2072}, {0x2074, 0x208f}, {0x2090, 0x209d}, {0x20a0, 0x20bf}, {0x20d0, 0x20f1},
    {0x2100, 0x218c}, {0x2190, 0x23ff}, {0x2400, 0x2427}, {0x2440, 0x244b}, {0x2460, 0x2b74},
    {0x2b76, 0x2b96}, {0x2b98, 0x2bba}, {0x2bbd, 0x2bc9}, {0x2bca, 0x2bd2}, {0x2bec, 0x2bf0},
    {0x2c00, 0x2c2f}, {0x2c30, 0x2c5f}, {0x2c60, 0x2cf4}, {0x2cf9, 0x2d26}, {0x2d27, 0x2d28},
    {0x2d2d, 0x2d2e}, {0x2d30, 0x2d68}, {0x2d6f, 0x2d71}, {0x2d7f, 0x2d97}, {0x2da0, 0x2da7},
    {0x2da8, 0x2daf}, {0x2db0, 0x2db7}, {0x2db8, 0x2dbf}, {0x2dc0, 0x2dc7}, {0x2dc8, 0x2dcf},
    {0x2dd0, 0x2dd7}, {0x2dd8, 0x2ddf}, {0x2de0, 0x2e45}, {0x2e80, 0x2e9a}, {0x2e9b, 0x2ef4},
    {0x2f00, 0x2fd6}, {0x2ff0, 0x2ffc}, {0x3000, 0x3040}, {0x3041, 0x3097}, {0x3099, 0x3100},
    {0x3105, 0x312e}, {0x3131, 0x318f}, {0x3190, 0x31bb}, {0x31c0, 0x31e4}, {0x31f0, 0x321f},
    {0x3220, 0x32ff}, {0x3300, 0x4db6}, {0x4dc0, 0x9fd6}, {0xa000, 0xa48d}, {0xa490, 0xa4c7},
    {0xa4d0, 0xa62c}, {0xa640, 0xa6f8}, {0xa700, 0xa7af}, {0xa7b0, 0xa7b8}, {0xa7f7, 0xa82c},
    {0xa830, 0xa83a}, {0xa840, 0xa878}, {0xa880, 0xa8c6}, {0xa8ce, 0xa8da}, {0xa8e0, 0xa8fe},
    {0xa900, 0xa954}, {0xa95f, 0xa97d}, {0xa980, 0xa9ce}, {0xa9cf, 0xa9da}, {0xa9de, 0xa9ff},
    {0xaa00, 0xaa37}, {0xaa40, 0xaa4e}, {0xaa50, 0xaa5a}, {0xaa5c, 0xaac3}, {0xaadb, 0xaaf7},
    {0xab01, 0xab07}, {0xab09, 0xab0f}, {0xab11, 0xab17}, {0xab20, 0xab27}, {0xab28, 0xab2f},
    {0xab30, 0xab66}, {0xab70, 0xabee}, {0xabf0, 0xabfa}, {0xac00, 0xd7a4}, {0xd7b0, 0xd7c7},
    {0xd7cb, 0xd7fc}, {0xd800, 0xfa6e}, {0xfa70, 0xfada}, {0xfb00, 0xfb07}, {0xfb13, 0xfb18},
    {0xfb1d, 0xfb37}, {0xfb38, 0xfb3d}, {0xfb3e, 0xfb3f}, {0xfb40, 0xfb42}, {0xfb43, 0xfb45},
    {0xfb46, 0xfbc2}, {0xfbd3, 0xfd40}, {0xfd50, 0xfd90}, {0xfd92, 0xfdc8}, {0xfdd0, 0xfdfe},
    {0xfe00, 0xfe1a}, {0xfe20, 0xfe53}, {0xfe54, 0xfe67}, {0xfe68, 0xfe6c}, {0xfe70, 0xfe75},
    {0xfe76, 0xfefd}, {0xfeff, 0xff00}, {0xff01, 0xffbf}, {0xffc2, 0xffc8}, {0xffca, 0xffd0},
    {0xffd2, 0xffd8}, {0xffda, 0xffdd}, {0xffe0, 0xffe7}, {0xffe8, 0xffef}, {0xfff9, 0x1000c},
    {0x1000d, 0x10027}, {0x10028, 0x1003b}, {0x1003c, 0x1003e}, {0x1003f, 0x1004e}, {0x10050, 0x1005e},
    {0x10080, 0x100fb}, {0x10100, 0x10103}, {0x10107, 0x10134}, {0x10137, 0x1018f}, {0x10190, 0x1019c},
    {0x101a0, 0x101a1}, {0x101d0, 0x101fe}, {0x10280, 0x1029d}, {0x102a0, 0x102d1}, {0x102e0, 0x102fc},
    {0x10300, 0x10324}, {0x10330, 0x1034b}, {0x10350, 0x1037b}, {0x10380, 0x1039e}, {0x1039f, 0x103c4},
    {0x103c8, 0x103d6}, {0x10400, 0x1049e}, {0x104a0, 0x104aa}, {0x104b0, 0x104d4}, {0x104d8, 0x104fc},
    {0x10500, 0x10528}, {0x10530, 0x10564}, {0x1056f, 0x10570}, {0x10600, 0x10737}, {0x10740, 0x10756},
    {0x10760, 0x10768}, {0x10800, 0x10806}, {0x10808, 0x10809}, {0x1080a, 0x10836}, {0x10837, 0x10839},
    {0x1083c, 0x1083d}, {0x1083f, 0x10856}, {0x10857, 0x1089f}, {0x108a7, 0x108b0}, {0x108e0, 0x108f3},
    {0x108f4, 0x108f6}, {0x108fb, 0x1091c}, {0x1091f, 0x1093a}, {0x1093f, 0x10940}, {0x10980, 0x109b8},
    {0x109bc, 0x109d0}, {0x109d2, 0x10a04}, {0x10a05, 0x10a07}, {0x10a0c, 0x10a14}, {0x10a15, 0x10a18},
    {0x10a19, 0x10a34}, {0x10a38, 0x10a3b}, {0x10a3f, 0x10a48}, {0x10a50, 0x10a59}, {0x10a60, 0x10aa0},
    {0x10ac0, 0x10ae7}, {0x10aeb, 0x10af7}, {0x10b00, 0x10b36}, {0x10b39, 0x10b56}, {0x10b58, 0x10b73},
    {0x10b78, 0x10b92}, {0x10b99, 0x10b9d}, {0x10ba9, 0x10bb0}, {0x10c00, 0x10c49}, {0x10c80, 0x10cb3},
    {0x10cc0, 0x10cf3}, {0x10cfa, 0x10d00}, {0x10e60, 0x10e7f}, {0x11000, 0x1104e}, {0x11052, 0x11070},
    {0x1107f, 0x110c2}, {0x110d0, 0x110e9}, {0x110f0, 0x110fa}, {0x11100, 0x11135}, {0x11136, 0x11144},
    {0x11150, 0x11177}, {0x11180, 0x111ce}, {0x111d0, 0x111e0}, {0x111e1, 0x111f5}, {0x11200, 0x11212},
    {0x11213, 0x1123f}, {0x11280, 0x11287}, {0x11288, 0x11289}, {0x1128a, 0x1128e}, {0x1128f, 0x1129e},
    {0x1129f, 0x112aa}, {0x112b0, 0x112eb}, {0x112f0, 0x112fa}, {0x11300, 0x11304}, {0x11305, 0x1130d},
    {0x1130f, 0x11311}, {0x11313, 0x11329}, {0x1132a, 0x11331}, {0x11332, 0x11334}, {0x11335, 0x1133a},
    {0x1133c, 0x11345}, {0x11347, 0x11349}, {0x1134b, 0x1134e}, {0x11350, 0x11351}, {0x11357, 0x11358},
    {0x1135d, 0x11364}, {0x11366, 0x1136d}, {0x11370, 0x11375}, {0x11400, 0x1145a}, {0x1145b, 0x1145c},
    {0x1145d, 0x1145e}, {0x11480, 0x114c8}, {0x114d0, 0x114da}, {0x11580, 0x115b6}, {0x115b8, 0x115de},
    {0x11600, 0x11645}, {0x11650, 0x1165a}, {0x11660, 0x1166d}, {0x11680, 0x116b8}, {0x116c0, 0x116ca},
    {0x11700, 0x1171a}, {0x1171d, 0x1172c}, {0x11730, 0x11740}, {0x118a0, 0x118f3}, {0x118ff, 0x11900},
    {0x11ac0, 0x11af9}, {0x11c00, 0x11c09}, {0x11c0a, 0x11c37}, {0x11c38, 0x11c46}, {0x11c50, 0x11c6d},
    {0x11c70, 0x11c90}, {0x11c92, 0x11ca8}, {0x11ca9, 0x11cb7}, {0x12000, 0x1239a}, {0x12400, 0x1246f},
    {0x12470, 0x12475}, {0x12480, 0x12544}, {0x13000, 0x1342f}, {0x14400, 0x14647}, {0x16800, 0x16a39},
    {0x16a40, 0x16a5f}, {0x16a60, 0x16a6a}, {0x16a6e, 0x16a70}, {0x16ad0, 0x16aee}, {0x16af0, 0x16af6},
    {0x16b00, 0x16b46}, {0x16b50, 0x16b5a}, {0x16b5b, 0x16b62}, {0x16b63, 0x16b78}, {0x16b7d, 0x16b90},
    {0x16f00, 0x16f45}, {0x16f50, 0x16f7f}, {0x16f8f, 0x16fa0}, {0x16fe0, 0x16fe1}, {0x17000, 0x187ed},
    {0x18800, 0x18af3}, {0x1b000, 0x1b002}, {0x1bc00, 0x1bc6b}, {0x1bc70, 0x1bc7d}, {0x1bc80, 0x1bc89},
    {0x1bc90, 0x1bc9a}, {0x1bc9c, 0x1bca4}, {0x1d000, 0x1d0f6}, {0x1d100, 0x1d127}, {0x1d129, 0x1d1e9},
    {0x1d200, 0x1d246}, {0x1d300, 0x1d357}, {0x1d360, 0x1d372}, {0x1d400, 0x1d455}, {0x1d456, 0x1d49d},
    {0x1d49e, 0x1d4a0}, {0x1d4a2, 0x1d4a3}, {0x1d4a5, 0x1d4a7}, {0x1d4a9, 0x1d4ad}, {0x1d4ae, 0x1d4ba},
    {0x1d4bb, 0x1d4bc}, {0x1d4bd, 0x1d4c4}, {0x1d4c5, 0x1d506}, {0x1d507, 0x1d50b}, {0x1d50d, 0x1d515},
    {0x1d516, 0x1d51d}, {0x1d51e, 0x1d53a}, {0x1d53b, 0x1d53f}, {0x1d540, 0x1d545}, {0x1d546, 0x1d547},
    {0x1d54a, 0x1d551}, {0x1d552, 0x1d6a6}, {0x1d6a8, 0x1d7cc}, {0x1d7ce, 0x1da8c}, {0x1da9b, 0x1daa0},
    {0x1daa1, 0x1dab0}, {0x1e000, 0x1e007}, {0x1e008, 0x1e019}, {0x1e01b, 0x1e022}, {0x1e023, 0x1e025},
    {0x1e026, 0x1e02b}, {0x1e800, 0x1e8c5}, {0x1e8c7, 0x1e8d7}, {0x1e900, 0x1e94b}, {0x1e950, 0x1e95a},
    {0x1e95e, 0x1e960}, {0x1ee00, 0x1ee04}, {0x1ee05, 0x1ee20}, {0x1ee21, 0x1ee23}, {0x1ee24, 0x1ee25},
    {0x1ee27, 0x1ee28}, {0x1ee29, 0x1ee33}, {0x1ee34, 0x1ee38}, {0x1ee39, 0x1ee3a}, {0x1ee3b, 0x1ee3c},
    {0x1ee42, 0x1ee43}, {0x1ee47, 0x1ee48}, {0x1ee49, 0x1ee4a}, {0x1ee4b, 0x1ee4c}, {0x1ee4d, 0x1ee50},
    {0x1ee51, 0x1ee53}, {0x1ee54, 0x1ee55}, {0x1ee57, 0x1ee58}, {0x1ee59, 0x1ee5a}, {0x1ee5b, 0x1ee5c},
    {0x1ee5d, 0x1ee5e}, {0x1ee5f, 0x1ee60}, {0x1ee61, 0x1ee63}, {0x1ee64, 0x1ee65}, {0x1ee67, 0x1ee6b},
    {0x1ee6c, 0x1ee73}, {0x1ee74, 0x1ee78}, {0x1ee79, 0x1ee7d}, {0x1ee7e, 0x1ee7f}, {0x1ee80, 0x1ee8a},
    {0x1ee8b, 0x1ee9c}, {0x1eea1, 0x1eea4}, {0x1eea5, 0x1eeaa}, {0x1eeab, 0x1eebc}, {0x1eef0, 0x1eef2},
    {0x1f000, 0x1f02c}, {0x1f030, 0x1f094}, {0x1f0a0, 0x1f0af}, {0x1f0b1, 0x1f0c0}, {0x1f0c1, 0x1f0d0},
    {0x1f0d1, 0x1f0f6}, {0x1f100, 0x1f10d}, {0x1f110, 0x1f12f}, {0x1f130, 0x1f16c}, {0x1f170, 0x1f1ad},
    {0x1f1e6, 0x1f203}, {0x1f210, 0x1f23c}, {0x1f240, 0x1f249}, {0x1f250, 0x1f252}, {0x1f300, 0x1f6d3},
    {0x1f6e0, 0x1f6ed}, {0x1f6f0, 0x1f6f7}, {0x1f700, 0x1f774}, {0x1f780, 0x1f7d5}, {0x1f800, 0x1f80c},
    {0x1f810, 0x1f848}, {0x1f850, 0x1f85a}, {0x1f860, 0x1f888}, {0x1f890, 0x1f8ae}, {0x1f910, 0x1f91f},
    {0x1f920, 0x1f928}, {0x1f930, 0x1f931}, {0x1f933, 0x1f93f}, {0x1f940, 0x1f94c}, {0x1f950, 0x1f95f},
    {0x1f980, 0x1f992}, {0x1f9c0, 0x1f9c1}, {0x1fffe, 0x2a6d7}, {0x2a700, 0x2b735}, {0x2b740, 0x2b81e},
    {0x2b820, 0x2cea2}, {0x2f800, 0x2fa1e}, {0x2fffe, 0x30000}, {0x3fffe, 0x40000}, {0x4fffe, 0x50000},
    {0x5fffe, 0x60000}, {0x6fffe, 0x70000}, {0x7fffe, 0x80000}, {0x8fffe, 0x90000}, {0x9fffe, 0xa0000},
    {0xafffe, 0xb0000}, {0xbfffe, 0xc0000}, {0xcfffe, 0xd0000}, {0xdfffe, 0xe0000}, {0xe0001, 0xe0002},
    {0xe0020, 0xe0080}, {0xe0100, 0xe01f0}, {0xefffe, 0x110000},
};

/* Nonspacing marks assigned in Unicode 9.0 that were not nonspacing marks
 * in 8.0 (new, or another category then): BertNormalizer keeps them. From
 * a comparison of unicode_categories 0.1.1's table with utf8proc. */
static const urange MN_NOT8[] = {
    {0x8d4, 0x8e2}, {0x1885, 0x1887}, {0x1dfb, 0x1dfc}, {0xa8c5, 0xa8c6}, {0xa9bd, 0xa9be},
    {0x111c9, 0x111ca}, {0x1123e, 0x1123f}, {0x11438, 0x11440}, {0x11442, 0x11445},
    {0x11446, 0x11447}, {0x11c30, 0x11c37}, {0x11c38, 0x11c3e}, {0x11c3f, 0x11c40},
    {0x11c92, 0x11ca8}, {0x11caa, 0x11cb1}, {0x11cb2, 0x11cb4}, {0x11cb5, 0x11cb7},
    {0x1e000, 0x1e007}, {0x1e008, 0x1e019}, {0x1e01b, 0x1e022}, {0x1e023, 0x1e025},
    {0x1e026, 0x1e02b}, {0x1e944, 0x1e94b},
};

/* Primary composites of Unicode 9.0 (the results of its canonical
 * compositions), as ranges that may also hold characters without a
 * canonical decomposition; COMPOSED_K leaves out those whose compatibility
 * decomposition differs (U+0385, U+1E9B, ...). Alone, NFC and NFKC leave
 * them as they are. From the composition table of the crate. */
static const urange COMPOSED[] = {
    {0xc0, 0x234}, {0x385, 0x387}, {0x388, 0x478}, {0x4c1, 0x4fa}, {0x622, 0x627},
    {0x6c0, 0x6d4}, {0x929, 0x935}, {0x9cb, 0x9cd}, {0xb48, 0xb4d}, {0xb94, 0xbcd},
    {0xc48, 0xc49}, {0xcc0, 0xccc}, {0xd4a, 0xd4d}, {0xdda, 0xddf}, {0x1026, 0x1027},
    {0x1b06, 0x1b44}, {0x1e00, 0x1f71}, {0x1f72, 0x1f73}, {0x1f74, 0x1f75}, {0x1f76, 0x1f77},
    {0x1f78, 0x1f79}, {0x1f7a, 0x1f7b}, {0x1f7c, 0x1f7d}, {0x1f80, 0x1fbb}, {0x1fbc, 0x1fbd},
    {0x1fc1, 0x1fc9}, {0x1fca, 0x1fcb}, {0x1fcc, 0x1fd3}, {0x1fd6, 0x1fdb}, {0x1fdd, 0x1fe3},
    {0x1fe4, 0x1feb}, {0x1fec, 0x1fee}, {0x1ff2, 0x1ff9}, {0x1ffa, 0x1ffb}, {0x1ffc, 0x1ffd},
    {0x219a, 0x22ee}, {0x304c, 0x30ff}, {0x1109a, 0x110ac}, {0x1112e, 0x11130}, {0x1134b, 0x1134d},
    {0x114bb, 0x114bf}, {0x115ba, 0x115bc},
};

static const urange COMPOSED_K[] = {
    {0xc0, 0x234}, {0x386, 0x387}, {0x388, 0x3cf}, {0x400, 0x478}, {0x4c1, 0x4fa},
    {0x622, 0x627}, {0x6c0, 0x6d4}, {0x929, 0x935}, {0x9cb, 0x9cd}, {0xb48, 0xb4d},
    {0xb94, 0xbcd}, {0xc48, 0xc49}, {0xcc0, 0xccc}, {0xd4a, 0xd4d}, {0xdda, 0xddf},
    {0x1026, 0x1027}, {0x1b06, 0x1b44}, {0x1e00, 0x1e9a}, {0x1ea0, 0x1f71}, {0x1f72, 0x1f73},
    {0x1f74, 0x1f75}, {0x1f76, 0x1f77}, {0x1f78, 0x1f79}, {0x1f7a, 0x1f7b}, {0x1f7c, 0x1f7d},
    {0x1f80, 0x1fbb}, {0x1fbc, 0x1fbd}, {0x1fc2, 0x1fc9}, {0x1fca, 0x1fcb}, {0x1fcc, 0x1fcd},
    {0x1fd0, 0x1fd3}, {0x1fd6, 0x1fdb}, {0x1fe0, 0x1fe3}, {0x1fe4, 0x1feb}, {0x1fec, 0x1fed},
    {0x1ff2, 0x1ff9}, {0x1ffa, 0x1ffb}, {0x1ffc, 0x1ffd}, {0x219a, 0x22ee}, {0x304c, 0x30ff},
    {0x1109a, 0x110ac}, {0x1112e, 0x11130}, {0x1134b, 0x1134d}, {0x114bb, 0x114bf}, {0x115ba, 0x115bc},
};

/* Lowercase mappings of Unicode 16.0 and 17.0, which utf8proc 2.8 lacks
 * (from an exhaustive comparison with the oracle): [lo, hi) maps to c + d. */
static const struct {
    u32 lo, hi;
    i32 d;
} LOWER_NEW[] = {
    {0x1c89, 0x1c8a, 1}, {0xa7cb, 0xa7cc, 0x264 - 0xa7cb}, {0xa7cc, 0xa7cd, 1},
    {0xa7ce, 0xa7cf, 1}, {0xa7d2, 0xa7d3, 1}, {0xa7d4, 0xa7d5, 1}, {0xa7da, 0xa7db, 1},
    {0xa7dc, 0xa7dd, 0x19b - 0xa7dc}, {0x10d50, 0x10d66, 0x20}, {0x16ea0, 0x16eb9, 0x1b},
};

static bool in_ranges(const urange *r, iz n, u32 c)
{
    iz lo = 0, hi = n;
    while (lo < hi) {
        iz mid = lo + (hi - lo) / 2;
        if (c < r[mid].lo)
            hi = mid;
        else if (c >= r[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

static bool assigned9(u32 c)
{
    return c < 0x378 || in_ranges(UNI9, countof(UNI9), c);
}

static const utf8proc_property_t *uprop(u32 c)
{
    return utf8proc_get_property((utf8proc_int32_t)c);
}

/* General category Mark in Unicode 9.0 (the crate's is_combining_mark).
 * Three code points changed category since: U+1CF2/3 were Mc, U+111C9 Po. */
static bool is_mark9(u32 c)
{
    if (c < 0x300)
        return false;
    if (c == 0x1cf2 || c == 0x1cf3)
        return true;
    int cat = uprop(c)->category;
    if (cat != UTF8PROC_CATEGORY_MN && cat != UTF8PROC_CATEGORY_MC && cat != UTF8PROC_CATEGORY_ME)
        return false;
    return c != 0x111c9 && assigned9(c);
}

/* Rust's char::is_whitespace: the White_Space property. */
static bool is_ws(u32 c)
{
    if (c < 0x80)
        return c == ' ' || (c >= 9 && c <= 13);
    return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
           c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

/* Rust's char::to_lowercase: the simple mapping, except U+0130, the one
 * character with an unconditional full mapping of two code points. */
static int lower_cp(u32 c, u32 out[2])
{
    if (c < 0x80) {
        out[0] = c - 'A' < 26 ? c + 32 : c;
        return 1;
    }
    if (c == 0x130) {
        out[0] = 'i';
        out[1] = 0x307;
        return 2;
    }
    u32 l = (u32)utf8proc_tolower((utf8proc_int32_t)c);
    if (l == c && c >= LOWER_NEW[0].lo)
        for (iz k = 0; k < countof(LOWER_NEW); k++)
            if (c >= LOWER_NEW[k].lo && c < LOWER_NEW[k].hi) {
                l = (u32)((i32)c + LOWER_NEW[k].d);
                break;
            }
    out[0] = l;
    return 1;
}

/* ---- output buffer in scratch memory ------------------------------------ */

typedef struct {
    arena *a;
    u8    *p;
    iz     len, cap;
    bool   oom;   /* an allocation failed (only when the arena does not jump) */
} obuf;

static void ob_init(obuf *b, arena *a, iz cap)
{
    *b = (obuf){.a = a};
    b->p = arena_alloc_nz(a, 1, 1, cap > 16 ? cap : 16);
    if (b->p)
        b->cap = cap > 16 ? cap : 16;
    else
        b->oom = true;
}

static bool ob_reserve(obuf *b, iz extra)
{
    if (b->oom)
        return false;
    if (extra <= b->cap - b->len)
        return true;
    if (extra > PTRDIFF_MAX / 2 - b->len) {
        b->oom = true;
        return false;
    }
    u8 *p = arena_grow(b->a, b->p, 1, 1, b->len, &b->cap, b->len + extra);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    return true;
}

static void ob_put(obuf *b, const u8 *p, iz n)
{
    if (n > 0 && ob_reserve(b, n)) {
        memcpy(b->p + b->len, p, (size_t)n);
        b->len += n;
    }
}

static void ob_str(obuf *b, str s) { ob_put(b, s.s, s.len); }

static void ob_cp(obuf *b, u32 c)
{
    if (ob_reserve(b, 4))
        b->len += utf8_encode(c, b->p + b->len);
}

static int ob_done(obuf *b, str *out, err *e)
{
    if (b->oom)
        return err_set(e, ERR_NOMEM, -1, "normalizer: out of memory");
    *out = (str){b->p, b->len};
    return ERR_OK;
}

/* ---- character maps ------------------------------------------------------
 * Most normalizers replace each character by zero or more characters. A map
 * writes the replacement of c to out[] and returns its length; the text is
 * copied only from the first character that changes. */

enum { CMAP_MAX = 3 };
typedef int (*cmap_fn)(u32 c, u32 out[CMAP_MAX]);

static int map_chars(tok_work *w, str in, cmap_fn f, str *out, err *e)
{
    const u8 *s = in.s;
    iz i = 0, n = in.len;
    u32 r[CMAP_MAX];
    int k;
    for (;;) {
        if (i == n) {
            *out = in;
            return ERR_OK;
        }
        iz j = i;
        u32 c = utf8_next(s, &j);
        k = f(c, r);
        if (k != 1 || r[0] != c)
            break;
        i = j;
    }
    obuf b;
    ob_init(&b, &w->scratch, n + n / 2 + 16);
    ob_put(&b, s, i);
    for (;;) {
        for (int q = 0; q < k; q++)
            ob_cp(&b, r[q]);
        i += utf8_len(s[i]);
        if (i == n)
            break;
        iz j = i;
        u32 c = utf8_next(s, &j);
        k = f(c, r);
    }
    return ob_done(&b, out, e);
}

static int map_lower(u32 c, u32 out[CMAP_MAX]) { return lower_cp(c, out); }

static int map_strip_accents(u32 c, u32 out[CMAP_MAX])
{
    out[0] = c;
    return is_mark9(c) ? 0 : 1;
}

/* Nmt: drops some ASCII controls, turns other spaces and U+2581 into ' '. */
static int map_nmt(u32 c, u32 out[CMAP_MAX])
{
    if ((c >= 1 && c <= 8) || c == 0xb || (c >= 0xe && c <= 0x1f) || c == 0x7f || c == 0x8f || c == 0x9f)
        return 0;
    if (c == 9 || c == 0xa || c == 0xc || c == 0xd || c == 0x1680 || (c >= 0x200b && c <= 0x200f) ||
        c == 0x2028 || c == 0x2029 || c == 0x2581 || c == 0xfeff || c == 0xfffd)
        c = ' ';
    out[0] = c;
    return 1;
}

/* BertNormalizer's is_control: categories Cc, Cf and Co of Unicode 8.0,
 * tab, newline and carriage return excepted. */
static bool bert_is_control(u32 c)
{
    if (c == '\t' || c == '\n' || c == '\r')
        return false;
    if (c < 0x20 || (c >= 0x7f && c < 0xa0))
        return true;
    if (c < 0xa0)
        return false;
    if ((c >= 0xe000 && c <= 0xf8ff) || (c >= 0xf0000 && c <= 0xffffd) || (c >= 0x100000 && c <= 0x10fffd))
        return true;
    return uprop(c)->category == UTF8PROC_CATEGORY_CF && c != 0x8e2 && assigned9(c);
}

static int map_bert_clean(u32 c, u32 out[CMAP_MAX])
{
    if (c == 0 || c == 0xfffd || bert_is_control(c))
        return 0;
    out[0] = is_ws(c) ? ' ' : c;
    return 1;
}

static int map_bert_chinese(u32 c, u32 out[CMAP_MAX])
{
    if ((c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x20000 && c <= 0x2a6df) ||
        (c >= 0x2a700 && c <= 0x2b73f) || (c >= 0x2b740 && c <= 0x2b81f) || (c >= 0x2b920 && c <= 0x2ceaf) ||
        (c >= 0xf900 && c <= 0xfaff) || (c >= 0x2f800 && c <= 0x2fa1f)) {
        out[0] = ' ';
        out[1] = c;
        out[2] = ' ';
        return 3;
    }
    out[0] = c;
    return 1;
}

/* Nonspacing marks (Mn) of Unicode 8.0; U+1734 has been Mc since 14.0. */
static int map_bert_mn(u32 c, u32 out[CMAP_MAX])
{
    out[0] = c;
    if (c < 0x300)
        return 1;
    if (c == 0x1734)
        return 0;
    if (uprop(c)->category != UTF8PROC_CATEGORY_MN || !assigned9(c) || in_ranges(MN_NOT8, countof(MN_NOT8), c))
        return 1;
    return 0;
}

/* ---- NFC, NFD, NFKC, NFKD ------------------------------------------------
 * The text is cut into runs, each starting at a "stable" character: one
 * that nothing before it interacts with (class 0, never the second half of
 * a composition) and that the form leaves as it is when alone (no
 * decomposition, or, composing, a primary composite). A run that is its
 * stable character alone is kept as it is; any other goes through the
 * slow path and is copied only when it changes. ASCII, CJK and
 * precomposed Latin text never leave the first loop. */

enum { UN_COMPOSE = 1, UN_COMPAT = 2 };

/* Stands for a character assigned after Unicode 9.0 while utf8proc works:
 * a surrogate never occurs in valid UTF-8, has class 0, no decomposition
 * and composes with nothing, as such characters do in the crate. */
enum { UN_MASK = 0xd800 };

static bool un_stable(u32 c, int form)
{
    if (c >= 0x4e00 && c <= 0x9fff)   /* CJK ideographs, the common case after ASCII */
        return true;
    const utf8proc_property_t *p = uprop(c);
    if (p->combining_class)
        return false;
    if (!(form & UN_COMPOSE)) {
        if (c >= 0xac00 && c <= 0xd7a3)   /* Hangul syllables decompose by rule */
            return false;
        return p->decomp_seqindex == UINT16_MAX || (p->decomp_type != 0 && !(form & UN_COMPAT));
    }
    /* comb_index marks the second halves of compositions with bit 15; the
     * Hangul vowels and trailing consonants are composed by rule. */
    if (p->comb_index != UINT16_MAX && (p->comb_index & 0x8000))
        return false;
    if ((c >= 0x1161 && c <= 0x1175) || (c >= 0x11a8 && c <= 0x11c2))
        return false;
    if (p->decomp_seqindex == UINT16_MAX)
        return true;
    if (p->decomp_type != 0)   /* a compatibility decomposition */
        return !(form & UN_COMPAT);
    return form & UN_COMPAT ? in_ranges(COMPOSED_K, countof(COMPOSED_K), c)
                            : in_ranges(COMPOSED, countof(COMPOSED), c);
}

/* un_stable remembered, 64 code points at a time, per form: the first
 * look at a chunk works it out, later looks read a byte, or for a chunk of
 * both kinds a bit. On text of many scripts the property tables behind
 * un_stable are cache misses a character. The answers are a function of
 * the code point, so the memory is the process's, shared by every
 * tokenizer and thread: two threads that work out the same chunk at once
 * store the same values (atomics, the bits before the state). */
enum { STB_UNKNOWN, STB_ALL, STB_NONE, STB_MIXED, STB_CHUNKS = 0x110000 >> 6 };
static _Atomic unsigned char stb_state[4][STB_CHUNKS];
static _Atomic u64 stb_bits[4][STB_CHUNKS];

static NOINLINE int stb_fill(int form, u32 chunk)
{
    u64 bits = 0;
    for (u32 k = 0; k < 64; k++)
        bits |= (u64)un_stable(chunk << 6 | k, form) << k;
    atomic_store_explicit(&stb_bits[form][chunk], bits, memory_order_relaxed);
    int st = bits == ~(u64)0 ? STB_ALL : bits == 0 ? STB_NONE : STB_MIXED;
    atomic_store_explicit(&stb_state[form][chunk], (unsigned char)st, memory_order_release);
    return st;
}

static inline bool stable_at(u32 c, int form)
{
    u32 chunk = c >> 6;
    if (chunk >= STB_CHUNKS)
        return un_stable(c, form);
    int st = atomic_load_explicit(&stb_state[form][chunk], memory_order_acquire);
    if (st == STB_UNKNOWN)
        st = stb_fill(form, chunk);
    if (st != STB_MIXED)
        return st == STB_ALL;
    return atomic_load_explicit(&stb_bits[form][chunk], memory_order_relaxed) >> (c & 63) & 1;
}

typedef struct {
    tok_work         *w;
    utf8proc_option_t opt;
    utf8proc_int32_t *cp;     /* code points of the run being normalized */
    iz                cpcap;
    utf8proc_int32_t *sorted; /* room for sorting a long sequence of marks */
    iz                sortcap;
    u8               *tmp;    /* the UTF-8 of the result */
    iz                tmpcap;
} unorm;

/* Array p (of n items) grown to hold `need` items, in scratch; NULL when
 * out of memory. */
static void *un_grow(unorm *u, void *p, iz size, iz n, iz *cap, iz need)
{
    return need <= *cap ? p : arena_grow(&u->w->scratch, p, size, 4, n, cap, need);
}

static int ccc(utf8proc_int32_t c) { return uprop((u32)c)->combining_class; }

/* Canonical ordering of one sequence of marks (classes > 0): a stable sort
 * by class, as the crate's sort_by_key. Long sequences are counted rather
 * than swapped, so that no input takes quadratic time. */
static bool un_sort_marks(unorm *u, utf8proc_int32_t *m, iz n)
{
    if (n <= 16) {
        for (iz i = 1; i < n; i++) {
            utf8proc_int32_t c = m[i];
            int k = ccc(c);
            iz j = i;
            for (; j > 0 && ccc(m[j - 1]) > k; j--)
                m[j] = m[j - 1];
            m[j] = c;
        }
        return true;
    }
    u->sorted = un_grow(u, u->sorted, (iz)sizeof(*u->sorted), 0, &u->sortcap, n);
    if (!u->sorted)
        return false;
    iz at[257] = {0};
    for (iz i = 0; i < n; i++)
        at[ccc(m[i]) + 1]++;
    for (int k = 1; k < 257; k++)
        at[k] += at[k - 1];
    for (iz i = 0; i < n; i++)
        u->sorted[at[ccc(m[i])]++] = m[i];
    memcpy(m, u->sorted, (size_t)n * sizeof(*m));
    return true;
}

/* Normalizes one run; the result is in u->tmp until the next call. The
 * run is decomposed character by character (those assigned after 9.0
 * masked), its marks ordered here, and composed by utf8proc. */
static int un_run(unorm *u, str run, str *res, err *e)
{
    iz n = 0;
    u->cp = un_grow(u, u->cp, (iz)sizeof(*u->cp), 0, &u->cpcap, run.len + 16);
    if (!u->cp)
        goto nomem;
    for (iz i = 0; i < run.len;) {
        u32 c = utf8_next(run.s, &i);
        if (!assigned9(c))
            c = UN_MASK;
        for (;;) {
            utf8proc_ssize_t k = utf8proc_decompose_char((utf8proc_int32_t)c, u->cp + n, u->cpcap - n, u->opt, NULL);
            if (k < 0)
                return err_set(e, ERR_INVALID, -1, "normalizer: %s", utf8proc_errmsg(k));
            if (k <= u->cpcap - n) {
                n += k;
                break;
            }
            u->cp = un_grow(u, u->cp, (iz)sizeof(*u->cp), n, &u->cpcap, n + k + run.len - i);
            if (!u->cp)
                goto nomem;
        }
    }
    for (iz i = 0; i < n;) {
        if (!ccc(u->cp[i])) {
            i++;
            continue;
        }
        iz j = i + 1;
        while (j < n && ccc(u->cp[j]))
            j++;
        if (j - i > 1 && !un_sort_marks(u, u->cp + i, j - i))
            goto nomem;
        i = j;
    }
    if (u->opt & UTF8PROC_COMPOSE)
        n = utf8proc_normalize_utf32(u->cp, n, u->opt);
    u->tmp = un_grow(u, u->tmp, 1, 0, &u->tmpcap, n * 4);
    if (!u->tmp)
        goto nomem;
    /* Put the masked characters back: they keep their order, since nothing
     * moves a character of class 0 or merges it into another. */
    iz len = 0, k = 0;
    for (iz q = 0; q < n; q++) {
        u32 c = (u32)u->cp[q];
        if (c == UN_MASK)
            do
                c = utf8_next(run.s, &k);
            while (assigned9(c));
        len += utf8_encode(c, u->tmp + len);
    }
    *res = (str){u->tmp, len};
    return ERR_OK;
nomem:
    return err_set(e, ERR_NOMEM, -1, "normalizer: out of memory");
}

static int un_apply(tok_work *w, str in, int form, str *out, err *e)
{
    const u8 *s = in.s;
    iz n = in.len;
    iz i = 0;
    iz run = 0;       /* start of the current run */
    iz done = 0;      /* in[0, done) is in the output already */
    bool dirty = false, copying = false;
    unorm u = {.w = w};
    u.opt = UTF8PROC_STABLE | (form & UN_COMPOSE ? UTF8PROC_COMPOSE : UTF8PROC_DECOMPOSE) |
            (form & UN_COMPAT ? UTF8PROC_COMPAT : 0);
    obuf b = {0};
    for (;;) {
        /* The end of the text, or a stable character at i, ends the run. */
        bool at_end = i == n;
        bool stable = true;
        iz next = i;
        if (!at_end) {
            if (s[i] < 0x80) {
                /* Skip ASCII; its last character starts the next run. */
                next = i + 1;
                while (next + 8 <= n) {
                    u64 x;
                    memcpy(&x, s + next, 8);
                    if (x & 0x8080808080808080u)
                        break;
                    next += 8;
                }
                while (next < n && s[next] < 0x80)
                    next++;
            } else {
                stable = stable_at(utf8_next(s, &next), form);
            }
        }
        if ((at_end || stable) && dirty) {
            str r = {0}, orig = str_cut(in, run, i);
            int rc = un_run(&u, orig, &r, e);
            if (rc)
                return rc;
            if (!str_eq(r, orig)) {
                if (!copying) {
                    ob_init(&b, &w->scratch, n + n / 4 + r.len + 16);
                    copying = true;
                }
                ob_put(&b, s + done, run - done);
                ob_str(&b, r);
                done = i;
            }
            dirty = false;
        }
        if (at_end)
            break;
        if (stable)
            run = s[i] < 0x80 ? next - 1 : i;
        else
            dirty = true;
        i = next;
    }
    if (!copying) {
        *out = in;
        return ERR_OK;
    }
    ob_put(&b, s + done, n - done);
    return ob_done(&b, out, e);
}

/* ---- Replace, Prepend, Strip, ByteLevel ---------------------------------- */

/* The first occurrence of p (not empty) in s[from, n), or -1. */
static iz find_lit(str s, iz from, str p)
{
    const u8 *end = s.s + s.len;
    const u8 *q = s.s + from;
    while (end - q >= p.len) {
        q = memchr(q, p.s[0], (size_t)(end - q - p.len + 1));
        if (!q)
            return -1;
        if (memcmp(q + 1, p.s + 1, (size_t)(p.len - 1)) == 0)
            return q - s.s;
        q++;
    }
    return -1;
}

/* Replace with a String pattern: the crate compiles the escaped string as
 * an Oniguruma regex, so matches are leftmost and non-overlapping. (An
 * empty pattern is refused when loading.) */
static int replace_literal(const tok_norm *nm, tok_work *w, str in, str *out, err *e)
{
    str pat = nm->u.rep.pat, rep = nm->u.rep.content;
    iz at = find_lit(in, 0, pat);
    if (at < 0) {
        *out = in;
        return ERR_OK;
    }
    obuf b;
    if (pat.len == 1) {
        /* One byte (gemma3's and llama2's space): a plain loop beats a
         * memchr per short word. */
        u8 pc = pat.s[0];
        iz count = 0;
        for (iz i = at; i < in.len; i++)
            count += in.s[i] == pc;
        ob_init(&b, &w->scratch, in.len + count * rep.len);
        if (b.oom)
            return ob_done(&b, out, e);
        u8 *o = b.p;
        memcpy(o, in.s, (size_t)at);
        o += at;
        for (iz i = at; i < in.len; i++) {
            if (in.s[i] == pc) {
                if (rep.len)
                    memcpy(o, rep.s, (size_t)rep.len);
                o += rep.len;
            } else {
                *o++ = in.s[i];
            }
        }
        b.len = o - b.p;
        return ob_done(&b, out, e);
    }
    iz count = 0;
    for (iz q = at; q >= 0; q = find_lit(in, q + pat.len, pat))
        count++;
    ob_init(&b, &w->scratch, in.len + count * (rep.len > pat.len ? rep.len - pat.len : 0));
    iz last = 0;
    for (iz q = at; q >= 0; q = find_lit(in, q + pat.len, pat)) {
        ob_put(&b, in.s + last, q - last);
        ob_str(&b, rep);
        last = q + pat.len;
    }
    ob_put(&b, in.s + last, in.len - last);
    return ob_done(&b, out, e);
}

/* Replace with a Regex pattern: leftmost non-overlapping matches, each
 * search starting where the previous match ended. An empty match fails:
 * the crate's replace mishandles those (wrong text, or a panic later in
 * the pipeline), so there is no right answer to give. */
static int replace_regex(const tok_norm *nm, tok_work *w, str in, str *out, err *e)
{
    str rep = nm->u.rep.content;
    obuf b = {0};
    bool copying = false;
    iz from = 0;
    if (in.len == 0) {   /* the crate does not search an empty text */
        *out = in;
        return ERR_OK;
    }
    while (from <= in.len) {
        iz mb, me;
        int rc = tok_regex_find(nm->u.rep.re, w, in, from, &mb, &me, e);
        if (rc < 0)
            return -rc;
        if (rc == 0)
            break;
        if (mb == me)
            return err_set(e, ERR_UNSUPPORTED, mb,
                           "normalizer: the Replace pattern matches the empty string at byte %td", mb);
        if (!copying) {
            ob_init(&b, &w->scratch, in.len + rep.len + 16);
            copying = true;
        }
        ob_put(&b, in.s + from, mb - from);
        ob_str(&b, rep);
        from = me;
    }
    if (!copying) {
        *out = in;
        return ERR_OK;
    }
    ob_put(&b, in.s + from, in.len - from);
    return ob_done(&b, out, e);
}

static int prepend(const tok_norm *nm, tok_work *w, str in, str *out, err *e)
{
    str p = nm->u.prepend;
    if (in.len == 0 || p.len == 0) {
        *out = in;
        return ERR_OK;
    }
    obuf b;
    ob_init(&b, &w->scratch, p.len + in.len);
    ob_str(&b, p);
    ob_str(&b, in);
    return ob_done(&b, out, e);
}

/* Strip: a slice of the input, no copy. */
static str strip(str in, bool left, bool right)
{
    iz beg = 0, end = in.len;
    if (left)
        while (beg < end) {
            iz j = beg;
            if (!is_ws(utf8_next(in.s, &j)))
                break;
            beg = j;
        }
    if (right)
        while (end > beg) {
            iz p = utf8_prev(in.s, end), j = p;
            if (!is_ws(utf8_next(in.s, &j)))
                break;
            end = p;
        }
    return str_cut(in, beg, end);
}

/* ByteLevel: every byte of the UTF-8 becomes the character GPT-2's table
 * gives it. */
static int byte_level(tok_work *w, str in, str *out, err *e)
{
    if (in.len == 0) {
        *out = in;
        return ERR_OK;
    }
    obuf b;
    ob_init(&b, &w->scratch, in.len * 2);
    for (iz i = 0; i < in.len; i++)
        ob_cp(&b, tok_byte_to_cp(in.s[i]));
    return ob_done(&b, out, e);
}

static int bert(const tok_norm *nm, tok_work *w, str in, str *out, err *e)
{
    str s = in;
    int rc = ERR_OK;
    if (nm->u.bert.clean_text)
        rc = map_chars(w, s, map_bert_clean, &s, e);
    if (!rc && nm->u.bert.chinese)
        rc = map_chars(w, s, map_bert_chinese, &s, e);
    if (!rc && nm->u.bert.strip_accents) {
        rc = un_apply(w, s, 0, &s, e);
        if (!rc)
            rc = map_chars(w, s, map_bert_mn, &s, e);
    }
    if (!rc && nm->u.bert.lowercase)
        rc = map_chars(w, s, map_lower, &s, e);
    if (!rc)
        *out = s;
    return rc;
}

int tok_norm_apply(const tok_norm *n, tok_work *w, str in, str *out, err *e)
{
    switch (n->kind) {
    case NORM_SEQUENCE:
        for (iz k = 0; k < n->u.seq.n; k++) {
            int rc = tok_norm_apply(&n->u.seq.v[k], w, in, &in, e);
            if (rc)
                return rc;
        }
        *out = in;
        return ERR_OK;
    case NORM_NFC:           return un_apply(w, in, UN_COMPOSE, out, e);
    case NORM_NFD:           return un_apply(w, in, 0, out, e);
    case NORM_NFKC:          return un_apply(w, in, UN_COMPOSE | UN_COMPAT, out, e);
    case NORM_NFKD:          return un_apply(w, in, UN_COMPAT, out, e);
    case NORM_LOWERCASE:     return map_chars(w, in, map_lower, out, e);
    case NORM_STRIP_ACCENTS: return map_chars(w, in, map_strip_accents, out, e);
    case NORM_NMT:           return map_chars(w, in, map_nmt, out, e);
    case NORM_BYTE_LEVEL:    return byte_level(w, in, out, e);
    case NORM_BERT:          return bert(n, w, in, out, e);
    case NORM_PREPEND:       return prepend(n, w, in, out, e);
    case NORM_REPLACE:
        return n->u.rep.re ? replace_regex(n, w, in, out, e) : replace_literal(n, w, in, out, e);
    case NORM_STRIP:
        *out = strip(in, n->u.strip.left, n->u.strip.right);
        return ERR_OK;
    }
    return err_set(e, ERR_INVALID, -1, "normalizer: bad kind %d", (int)n->kind);
}

bool tok_norm_changes_text(const tok_norm *n)
{
    switch (n->kind) {
    case NORM_SEQUENCE:
        for (iz k = 0; k < n->u.seq.n; k++)
            if (tok_norm_changes_text(&n->u.seq.v[k]))
                return true;
        return false;
    case NORM_STRIP:
        return n->u.strip.left || n->u.strip.right;
    case NORM_PREPEND:
        return n->u.prepend.len > 0;
    case NORM_REPLACE:
        return n->u.rep.re || !str_eq(n->u.rep.pat, n->u.rep.content);
    case NORM_BERT:
        return n->u.bert.clean_text || n->u.bert.chinese || n->u.bert.strip_accents || n->u.bert.lowercase;
    default:
        return true;
    }
}

bool tok_norm_keeps_ascii(const tok_norm *n)
{
    switch (n->kind) {
    case NORM_SEQUENCE:
        for (iz k = 0; k < n->u.seq.n; k++)
            if (!tok_norm_keeps_ascii(&n->u.seq.v[k]))
                return false;
        return true;
    case NORM_NFC:
    case NORM_NFD:
    case NORM_NFKC:
    case NORM_NFKD:
        return true;   /* every ASCII character is its own normal form in all four */
    default:
        return false;
    }
}

/* ---- parsing ------------------------------------------------------------- */

static int bad(err *e, const json *at, int code, const char *path, const char *what)
{
    return err_set(e, code, at->off, "%s: %s (at byte %td)", path, what, (iz)at->off);
}

/* A field the crate requires (serde gives no default): a bool or a string. */
static bool need(const json *j, const char *key, json_type t, const char *path, const json **v, err *e)
{
    *v = json_get(j, str_cstr(key));
    if (*v && (*v)->type == t)
        return true;
    char what[128];
    snprintf(what, sizeof(what), "\"%s\" must be %s", key, t == JSON_BOOL ? "true or false" : "a string");
    bad(e, *v ? *v : j, ERR_INVALID, path, what);
    return false;
}

static bool parse_into(tok_norm *n, arena *perm, const json *j, const char *path, err *e);

static bool parse_sequence(tok_norm *n, arena *perm, const json *j, const char *path, err *e)
{
    const json *list = json_get(j, S("normalizers"));
    if (!json_is(list, JSON_ARR)) {
        bad(e, list ? list : j, ERR_INVALID, path, "\"normalizers\" must be a list");
        return false;
    }
    n->kind = NORM_SEQUENCE;
    n->u.seq.n = list->u.arr.n;
    if (list->u.arr.n == 0)
        return true;
    n->u.seq.v = NEW(perm, tok_norm, list->u.arr.n);
    if (!n->u.seq.v) {
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", path);
        return false;
    }
    for (iz k = 0; k < list->u.arr.n; k++) {
        char sub[256];
        snprintf(sub, sizeof(sub), "%s.normalizers[%td]", path, k);
        if (!parse_into(&n->u.seq.v[k], perm, &list->u.arr.items[k], sub, e))
            return false;
    }
    return true;
}

static bool parse_replace(tok_norm *n, arena *perm, const json *j, const char *path, err *e)
{
    const json *pat = json_get(j, S("pattern")), *content;
    if (!json_is(pat, JSON_OBJ) || pat->u.obj.n != 1 || pat->u.obj.members[0].val.type != JSON_STR) {
        bad(e, pat ? pat : j, ERR_INVALID, path, "\"pattern\" must be {\"String\": ...} or {\"Regex\": ...}");
        return false;
    }
    if (!need(j, "content", JSON_STR, path, &content, e))
        return false;
    str key = pat->u.obj.members[0].key;
    str val = pat->u.obj.members[0].val.u.s;
    n->kind = NORM_REPLACE;
    n->u.rep.content = arena_strdup(perm, content->u.s);
    if (str_eq(key, S("String"))) {
        if (val.len == 0) {
            bad(e, pat, ERR_UNSUPPORTED, path,
                "a Replace with an empty pattern is not supported (tokenizers 0.22 garbles its text)");
            return false;
        }
        n->u.rep.pat = arena_strdup(perm, val);
    } else if (str_eq(key, S("Regex"))) {
        n->u.rep.re = tok_regex_compile(perm, val, false, e);
        if (!n->u.rep.re) {
            err_prefix(e, "%s.pattern.Regex", path);
            return false;
        }
    } else {
        bad(e, pat, ERR_INVALID, path, "\"pattern\" must be {\"String\": ...} or {\"Regex\": ...}");
        return false;
    }
    if ((val.len && !n->u.rep.pat.s && !n->u.rep.re) || (content->u.s.len && !n->u.rep.content.s)) {
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", path);
        return false;
    }
    return true;
}

static bool parse_bert(tok_norm *n, const json *j, const char *path, err *e)
{
    const json *clean, *chinese, *lower;
    if (!need(j, "clean_text", JSON_BOOL, path, &clean, e) ||
        !need(j, "handle_chinese_chars", JSON_BOOL, path, &chinese, e) ||
        !need(j, "lowercase", JSON_BOOL, path, &lower, e))
        return false;
    const json *sa = json_get(j, S("strip_accents"));
    if (sa && sa->type != JSON_NULL && sa->type != JSON_BOOL) {
        bad(e, sa, ERR_INVALID, path, "\"strip_accents\" must be true, false or null");
        return false;
    }
    n->kind = NORM_BERT;
    n->u.bert.clean_text = clean->u.b;
    n->u.bert.chinese = chinese->u.b;
    n->u.bert.lowercase = lower->u.b;
    /* strip_accents: null follows lowercase. */
    n->u.bert.strip_accents = sa && sa->type == JSON_BOOL ? sa->u.b : lower->u.b;
    return true;
}

static bool parse_prepend(tok_norm *n, arena *perm, const json *j, const char *path, err *e)
{
    const json *p;
    if (!need(j, "prepend", JSON_STR, path, &p, e))
        return false;
    n->kind = NORM_PREPEND;
    n->u.prepend = arena_strdup(perm, p->u.s);
    if (p->u.s.len && !n->u.prepend.s) {
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", path);
        return false;
    }
    return true;
}

static bool parse_strip(tok_norm *n, const json *j, const char *path, err *e)
{
    const json *l, *r;
    if (!need(j, "strip_left", JSON_BOOL, path, &l, e) || !need(j, "strip_right", JSON_BOOL, path, &r, e))
        return false;
    n->kind = NORM_STRIP;
    n->u.strip.left = l->u.b;
    n->u.strip.right = r->u.b;
    return true;
}

static bool unsupported(const json *ty, const char *path, err *e)
{
    str t = ty->u.s;
    err_set(e, ERR_UNSUPPORTED, ty->off, "%s: unsupported normalizer type \"%.*s\" (at byte %td)", path,
            (int)MIN(t.len, 64), (const char *)t.s, (iz)ty->off);
    return false;
}

static bool is_bool(const json *j, const char *key) { return json_is(json_get(j, str_cstr(key)), JSON_BOOL); }

/* An object whose "type" is missing or names no normalizer: the crate then
 * tries the variants of its untagged enum in order, by their fields (the
 * unit variants, NFC and the like, need their "type"). */
static bool parse_untagged(tok_norm *n, arena *perm, const json *j, const char *path, err *e)
{
    const json *ty = json_get(j, S("type"));
    const json *sa = json_get(j, S("strip_accents"));
    if (is_bool(j, "clean_text") && is_bool(j, "handle_chinese_chars") && is_bool(j, "lowercase") &&
        (!sa || sa->type == JSON_NULL || sa->type == JSON_BOOL))
        return parse_bert(n, j, path, e);
    if (is_bool(j, "strip_left") && is_bool(j, "strip_right"))
        return parse_strip(n, j, path, e);
    if (json_is(json_get(j, S("normalizers")), JSON_ARR))
        return parse_sequence(n, perm, j, path, e);
    if (json_get(j, S("precompiled_charsmap"))) {
        bad(e, j, ERR_UNSUPPORTED, path, "unsupported normalizer type \"Precompiled\"");
        return false;
    }
    const json *pat = json_get(j, S("pattern"));
    if (json_is(pat, JSON_OBJ) && pat->u.obj.n == 1 && json_is(json_get(j, S("content")), JSON_STR))
        return parse_replace(n, perm, j, path, e);
    if (json_is(json_get(j, S("prepend")), JSON_STR))
        return parse_prepend(n, perm, j, path, e);
    if (json_is(ty, JSON_STR))
        return unsupported(ty, path, e);
    bad(e, j, ERR_INVALID, path, "a normalizer needs a \"type\"");
    return false;
}

/* normalizer := {"type": NAME, fields...} */
static bool parse_into(tok_norm *n, arena *perm, const json *j, const char *path, err *e)
{
    if (j->type != JSON_OBJ) {
        char what[64];
        snprintf(what, sizeof(what), "a normalizer must be an object, not %s", json_type_name(j->type));
        bad(e, j, ERR_INVALID, path, what);
        return false;
    }
    static const struct {
        const char *name;
        norm_kind   kind;
    } unit[] = {
        {"NFC", NORM_NFC},
        {"NFD", NORM_NFD},
        {"NFKC", NORM_NFKC},
        {"NFKD", NORM_NFKD},
        {"Lowercase", NORM_LOWERCASE},
        {"StripAccents", NORM_STRIP_ACCENTS},
        {"Nmt", NORM_NMT},
        {"ByteLevel", NORM_BYTE_LEVEL},
    };
    const json *ty = json_get(j, S("type"));
    if (!json_is(ty, JSON_STR))
        return parse_untagged(n, perm, j, path, e);
    str t = ty->u.s;
    for (iz k = 0; k < countof(unit); k++)
        if (str_eq(t, str_cstr(unit[k].name))) {
            n->kind = unit[k].kind;
            return true;
        }
    if (str_eq(t, S("Sequence")))
        return parse_sequence(n, perm, j, path, e);
    if (str_eq(t, S("Replace")))
        return parse_replace(n, perm, j, path, e);
    if (str_eq(t, S("Bert")))
        return parse_bert(n, j, path, e);
    if (str_eq(t, S("Prepend")))
        return parse_prepend(n, perm, j, path, e);
    if (str_eq(t, S("Strip")))
        return parse_strip(n, j, path, e);
    /* Precompiled holds a serialized sentencepiece charsmap. */
    if (str_eq(t, S("Precompiled")))
        return unsupported(ty, path, e);
    /* Other names, "BertNormalizer" (what the crate writes) among them. */
    return parse_untagged(n, perm, j, path, e);
}

tok_norm *tok_norm_parse(arena *perm, const json *j, const char *path, err *e)
{
    tok_norm *n = NEW(perm, tok_norm, 1);
    if (!n) {
        err_set(e, ERR_NOMEM, -1, "%s: out of memory", path);
        return NULL;
    }
    return parse_into(n, perm, j, path, e) ? n : NULL;
}
