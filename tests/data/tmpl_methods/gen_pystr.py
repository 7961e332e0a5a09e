#!/usr/bin/python3
"""Expected results of src/tmpl/tmpl_pystr.c, asked of Python 3.11 itself.
Run from the project root:

    /usr/bin/python3 tests/data/tmpl_methods/gen_pystr.py

writes tests/data/tmpl_methods/
  ucd.jsonl    every code point: one line per predicate with the ranges
               [lo, hi) where it is true, and one line per code point whose
               one-character string changes under lower/upper/title/
               capitalize/swapcase/casefold;
  pystr.jsonl  string operations on chosen and random strings:
               {"op", "s", "a": [arguments], "r": result}.
The random strings are drawn with a fixed seed, so the files are stable."""
import json
import os
import random
import re
import sys
import unicodedata

if sys.version_info[:2] != (3, 11) or unicodedata.unidata_version != "14.0.0":
    sys.exit("gen_pystr.py: run with Python 3.11 (Unicode 14.0), the reference")

HERE = os.path.dirname(os.path.abspath(__file__))
WORD = re.compile(r"\w")
PREDICATES = {
    "isspace": str.isspace, "isalpha": str.isalpha, "isalnum": str.isalnum,
    "isdecimal": str.isdecimal, "isdigit": str.isdigit, "isnumeric": str.isnumeric,
    "isprintable": str.isprintable, "islower": str.islower, "isupper": str.isupper,
    "istitle": str.istitle, "isidentifier": str.isidentifier, "isascii": str.isascii,
    "isword": lambda ch: WORD.match(ch) is not None,
}
MAPPINGS = ["lower", "upper", "title", "capitalize", "swapcase", "casefold"]


def codepoints():
    return (c for c in range(0x110000) if not 0xD800 <= c < 0xE000)


def ucd(out):
    for name, fn in PREDICATES.items():
        ranges, lo = [], None
        for c in range(0x110001):
            v = c < 0x110000 and not 0xD800 <= c < 0xE000 and fn(chr(c))
            if v and lo is None:
                lo = c
            elif not v and lo is not None:
                ranges.append([lo, c])
                lo = None
        out.write(json.dumps({"pred": name, "ranges": ranges}) + "\n")
    for c in codepoints():
        ch = chr(c)
        m = {k: getattr(ch, k)() for k in MAPPINGS}
        m = {k: v for k, v in m.items() if v != ch}
        if m:
            m["cp"] = c
            out.write(json.dumps(m, ensure_ascii=False) + "\n")


# Characters that exercise Python's rules: whitespace of every kind, final
# sigma and what it skips, SpecialCasing, title case, ligatures, Turkish I,
# Cherokee (casefold to upper), Georgian Mtavruli, numerics, marks, CJK,
# emoji, quotes, modifier letters, a lone combining mark, controls.
SPECIAL = (
    " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2009\u200a\u200b\u2028\u2029"
    "\u202f\u205f\u3000\ufeff"
    "\u03a3\u03c3\u03c2\u0391\u03b1\u0386\u03ac\u0390\u1fb3\u1fbc\u0345\u1f80\u1f88"
    "\u00df\u1e9e\u0149\u01c4\u01c5\u01c6\u01f0\ufb00\ufb01\ufb03\u0130\u0131iIsS\u017f\u212a\u00b5"
    "\u00e9\u00c9\u0301\u0308\u0307\u0587\u13a0\uab70\u13f8\u10d0\u1c90\u2160\u2170\u24b6\u24d0"
    "\u00b2\u00bd\u2460\u0663\u4e00\u4e8c\u5341\u4e2d\u6587\U0001f600\U0001f44d\U0001f3fd\u200d"
    "'\u2019.:\u00b7\u02b0\u00aa_-+0123456789aAzZ \x00\x01\x7f\x80\x9f\xad\u0378\U000e0001"
    "\U0001d400\U00010400\U00010428\U0001e900\U0001e922\ud7ff\ue000\U0010fffd\"\\"
)
ASCII_POOL = "abcXYZ019 _-.,'\"\\\t\n"


def rand_str(rng, maxlen=12):
    n = rng.randint(0, maxlen)
    pool = SPECIAL if rng.random() < 0.6 else ASCII_POOL
    return "".join(rng.choice(pool) for _ in range(n))


FIXED = [
    "", "a", "A", "hello world", "  Hello World  ", "\t\n x \r\n", "HELLO", "hello",
    "Hello", "hELLO wORLD", "they're bill's friends", "ΣΑΣ", "ὈΔΥΣΣΕΎΣ", "Σ", "aΣ", "aΣb",
    "aΣ'", "a'Σ", "a\u0345Σ", "1Σ", "ΑΣ ΣΑ Σ.", "ß", "straße", "ŉ", "ǅungla", "ﬁne ﬂow",
    "İstanbul", "ıi", "Ǆ", "ǆ", "ᾳ", "ΐ", "\u1f80", "Ꭰꭰ", "\U0001f600 emoji", "中文 字符",
    "e\u0301", "x\u0308y", "12abc", "12ABC", "ʰello", "ªb", "a1b2", "a-b_c d.e", "日本語テキスト",
    "one\ntwo\r\nthree\rfour\x0bfive\x0csix\x1cseven\x1d\x1e\x85\u2028\u2029end",
    "a\tb\tc", "\t", "ab\tcd\te\n\tf", "tab\u00e9\tx", "+12", "-3", "12", "-", "+", "",
    "'", '"', "'\"", "\\", "\x00\x7f\x80\xa0\xad\u0378\u2028\U0001f600\U000e0001\ud7ff",
    "it's", 'say "hi"', "both ' and \"", "\u00e9t\u00e9", "ΆΈΉ", "ǰ", "ﬃ", "ﬀ",
]


def cases(out):
    rng = random.Random(20250101)
    strings = FIXED + [rand_str(rng) for _ in range(600)] + [rand_str(rng, 40) for _ in range(120)]

    def emit(op, s, args, r):
        out.write(json.dumps({"op": op, "s": s, "a": args, "r": r}, ensure_ascii=False) + "\n")

    for s in strings:
        emit("len", s, [], len(s))
        for k in MAPPINGS:
            emit(k, s, [], getattr(s, k)())
        for name, fn in PREDICATES.items():
            if name != "isword":
                emit(name, s, [], fn(s))
        emit("repr", s, [], repr(s))
        emit("strip", s, [None], s.strip())
        emit("lstrip", s, [None], s.lstrip())
        emit("rstrip", s, [None], s.rstrip())
        chars = rand_str(rng, 4) if rng.random() < 0.5 else s[:2]
        emit("strip", s, [chars], s.strip(chars))
        emit("lstrip", s, [chars], s.lstrip(chars))
        emit("rstrip", s, [chars], s.rstrip(chars))
        for sub in sorted({s[1:3], rand_str(rng, 2), ""}):
            start = rng.randint(0, len(s) + 2)
            end = rng.randint(0, len(s))
            # The callers clamp end to the length (start may stay beyond it),
            # as Python's ADJUST_INDICES does.
            for st, en in ((0, len(s)), (start, end), (min(start, end), max(start, end))):
                en = min(en, len(s))
                emit("find", s, [sub, st, en], s.find(sub, st, en))
                emit("rfind", s, [sub, st, en], s.rfind(sub, st, en))
                emit("count", s, [sub, st, en], s.count(sub, st, en))
            rep = rng.choice(["", "X", "\u00e9\u00e9", "<->"])
            cnt = rng.choice([-1, 0, 1, 2, 5])
            emit("replace", s, [sub, rep, cnt], s.replace(sub, rep, cnt))
        for sep in (None, " ", s[1:2] or ",", s[2:4] or "\u00e9"):
            mx = rng.choice([-1, 0, 1, 2])
            emit("split", s, [sep, mx], s.split(sep, mx))
            emit("rsplit", s, [sep, mx], s.rsplit(sep, mx))
        emit("split", s, [None, -1], s.split())
        emit("rsplit", s, [None, -1], s.rsplit())
        emit("splitlines", s, [False], s.splitlines())
        emit("splitlines", s, [True], s.splitlines(True))
        for w in (len(s) - 1, len(s) + 1, len(s) + 2, len(s) + 5):
            fill = rng.choice([" ", "*", "\u00e9", "\u4e2d", "\U0001f600"])
            emit("center", s, [w, fill], s.center(w, fill))
            emit("ljust", s, [w, fill], s.ljust(w, fill))
            emit("rjust", s, [w, fill], s.rjust(w, fill))
            emit("zfill", s, [w], s.zfill(w))
        for t in (8, 3, 0):
            emit("expandtabs", s, [t], s.expandtabs(t))
        if s:
            i = rng.randint(0, len(s))
            emit("offset", s, [i], len(s[:i].encode()))


if __name__ == "__main__":
    with open(os.path.join(HERE, "ucd.jsonl"), "w", encoding="utf-8") as f:
        ucd(f)
    with open(os.path.join(HERE, "pystr.jsonl"), "w", encoding="utf-8") as f:
        cases(f)
