#!/usr/bin/env python3
"""Writes the Python-made expectations of tests/test_pyfmt.c (python3, stdlib
only, fixed seed; the output depends only on the CPython version's repr and
json module, which have not changed since 3.1):

    floats.tsv   one double per line: bits (16 hex digits), repr(x), json.dumps(x)
                 ('=' when json.dumps(x) == repr(x), i.e. finite x)
    dumps.jsonl  one case per line: {"value": JSON text, "opts": {...}, "expect": text}
                 expect = json.dumps(json.loads(value), **opts)

    python3 tests/data/pyfmt/gen_pyfmt.py tests/data/pyfmt
"""
import json
import os
import random
import struct
import sys

R = random.Random(20240611)


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b & (2**64 - 1)))[0]


def to_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def floats():
    """Bit patterns, in a fixed order, duplicates dropped later."""
    out = []
    add = out.append
    # Specials and extremes.
    for x in (0.0, -0.0, float("inf"), float("-inf"), float("nan"), -float("nan"),
              5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
              1.7976931348623157e308, -1.7976931348623157e308, 1.0, -1.0, 0.5,
              0.1, 0.2, 0.3, 0.1 + 0.2, 1 / 3, 2 / 3, 3.141592653589793, 2.718281828459045,
              1e-5, 1e-4, 1e16, 1e15, 1e17, 2.5e-8, 1.5, 100.0, 123.456, 1e22, 1e23,
              9007199254740992.0, 9007199254740993.0, 9999999999999998.0,
              0.30000000000000004, 1.5e300, 1e-320, 4.35, 0.001, 1234567890123456.8):
        add(to_bits(x))
    add(0x7FF8000000000001)          # NaN payloads: Python prints nan regardless
    add(0xFFF0000000000001)
    # Random bit patterns (any sign, exponent, payload).
    for _ in range(77000):
        add(R.getrandbits(64))
    # Random doubles of ordinary size.
    for _ in range(15000):
        add(to_bits(R.uniform(-1000, 1000)))
    for _ in range(5000):
        add(to_bits(R.random()))
    # "Nice" decimals: few digits at every scale, and typical config values.
    for _ in range(25000):
        nd = R.randint(1, 17)
        d = R.randrange(10 ** (nd - 1), 10 ** nd)
        add(to_bits(float("%de%d" % (d, R.randint(-330, 310)))))
    for _ in range(15000):
        d = R.randrange(1, 10 ** R.randint(1, 7))
        add(to_bits(float("%de-%d" % (d, R.randint(0, 9)))))
    # Powers of ten and two, with neighbours.
    for e in range(-324, 309):
        b = to_bits(float("1e%d" % e))
        for d in (-2, -1, 0, 1, 2):
            if 0 < b + d < 0x7FF0000000000000:
                add(b + d)
    for be in range(0, 2047):
        for d in (0, 1, -1):
            b = (be << 52) + d
            if 0 < b < 0x7FF0000000000000:
                add(b)
    for e in range(1, 53):                         # subnormal powers of two
        add(1 << (e - 1))
    # Subnormals.
    for c in range(1, 3001):
        add(c)
    for _ in range(7000):
        add(R.getrandbits(52))
    # Around the layout switches: 1e16 and 1e-4 (repr), 1e-5 and 1e15.
    for x in (1e16, 1e-4, 1e-5, 1e15, 1e17, 1e-3):
        b = to_bits(x)
        for d in range(-300, 301):
            add(b + d)
    for k in range(1, 200):
        for x in (1e16 - 2 * k, 1e16 + 2 * k, 1e-4 * (1 - k * 1e-15), 1e-4 * (1 + k * 1e-15)):
            add(to_bits(x))
    # Integers as floats.
    for n in range(0, 2000):
        add(to_bits(float(n)))
    for _ in range(15000):
        add(to_bits(float(R.randrange(0, 2 ** R.randint(1, 53)))))
    for _ in range(5000):
        add(to_bits(float(R.randrange(0, 2 ** R.randint(54, 200)))))
    # float32 values widened to double (what numpy float32 data turns into).
    for _ in range(15000):
        f = struct.unpack("<f", struct.pack("<I", R.getrandbits(32)))[0]
        add(to_bits(f))
    for _ in range(5000):
        f = struct.unpack("<f", struct.pack("<f", R.uniform(-10, 10)))[0]
        add(to_bits(f))
    # Negative versions of a sample of everything above.
    for b in R.sample(out, 10000):
        add(b | 1 << 63)
    seen = set()
    uniq = []
    for b in out:
        b &= 2**64 - 1
        if b not in seen:
            seen.add(b)
            uniq.append(b)
    return uniq


# ---- dumps ------------------------------------------------------------------

VALUES = [
    "null", "true", "false", "0", "-0", "7", "-12", "9223372036854775807",
    "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
    "123456789012345678901234567890", "-1",
    "0.0", "-0.0", "1.0", "1.50", "1e5", "1E-7", "0.1", "1e400", "-1e400",
    "1e16", "1e-05", "2.5e-08", "100.0", "123.456", "1.5e300", "5e-324",
    "17.000000000000004", "9007199254740993", "9007199254740993.0",
    '""', '"a"', '"/"', '"\\u2028\\u2029"', '"\\u007f"', '"\\u0000\\u001f\\b\\f\\n\\r\\t"',
    '"quote \\" backslash \\\\ slash /"', '"caf\\u00e9"', '"\\ud83d\\ude00 smile"',
    '"\\uffff\\ue000\\ud7ff"', '"\\u0080\\u00ff\\u0100\\u07ff\\u0800"',
    '"<script>&amp;\'</script>"',
    "[]", "{}", "[[]]", "[{}]", "{\"a\": []}", "{\"a\": {}}", "[1]", "{\"a\": 1}",
    "[1, 2.5, \"x\", null, true, false, [], {}]",
    "[[1, [2, [3, [4, []]]]], {\"k\": [{}, {\"z\": null}]}]",
    "{\"b\": 1, \"a\": 2, \"c\": {\"y\": [1, 2], \"x\": {}}}",
    "{\"b\": 1, \"a\": 2, \"b\": 3}",                         # repeated key
    "{\"k\": 1, \"k\": {\"k\": 2, \"k\": [3]}, \"j\": 0, \"k\": 4}",
    "{\"z\": 1, \"Z\": 2, \"\\u00e9\": 3, \"e\": 4, \"\\ud83d\\ude00\": 5, \"\\uffff\": 6, \"\": 7, \"a\\u0000\": 8, \"a\": 9}",
    "{\"ab\": 1, \"a\": 2, \"abc\": 3, \"b\": 4, \"aa\": 5}",
    "{\"x\\ny\": \"\\t\", \"caf\\u00e9\": \"na\\u00efve\"}",
]

TOOLS = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the weather for a city, in \u00b0C. Returns \"unknown\" if not found.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Z\u00fcrich / \u6771\u4eac"},
                "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
                "threshold": {"type": "number", "default": 0.5, "examples": [1e-05, 2.5, 1e16]},
                "units": {"enum": ["metric", "imperial"]},
                "extra": {},
                "tags": [],
            },
            "required": ["city"],
        },
    },
}


def more_values():
    vals = [json.dumps(TOOLS), json.dumps([TOOLS, {"role": "user", "content": "hi\u2028there"}])]
    # Every 31st code point of the BMP outside surrogates, and some astral ones.
    cps = [c for c in range(0, 0x10000, 31) if not 0xD800 <= c < 0xE000]
    cps += [0x10000, 0x1F600, 0x10FFFF, 0xE0001]
    s = "".join(map(chr, cps))
    vals.append(json.dumps(s))
    vals.append(json.dumps({s[i:i + 3]: i for i in range(0, 300, 3)}))  # keys to sort
    # Floats inside containers: a sample that exercises every layout.
    fl = [0.1, 1e-05, 1e-4, 1e16, 1e15, 123.456, -0.0, 5e-324, 1.7976931348623157e308, 2.5e-08, 1e22]
    vals.append(json.dumps(fl))
    # Deep nesting (Python's limit is near 1000).
    vals.append("[" * 100 + "]" * 100)
    vals.append("{\"a\":" * 50 + "1" + "}" * 50)
    return vals


OPTIONS = [
    {},
    {"ensure_ascii": False},
    {"sort_keys": True},
    {"sort_keys": True, "ensure_ascii": False},
    {"indent": 2},
    {"indent": 2, "ensure_ascii": False},
    {"indent": 4, "sort_keys": True},
    {"indent": 0},
    {"indent": -3},
    {"indent": 1, "ensure_ascii": False, "sort_keys": True},
    {"indent": ""},
    {"indent": "\t"},
    {"indent": "--", "ensure_ascii": False},
    {"separators": [",", ":"]},
    {"separators": [",", ":"], "ensure_ascii": False, "sort_keys": True},
    {"separators": [", ", ": "], "indent": 2},
    {"separators": [" , ", " : "]},
    {"separators": ["", ""], "ensure_ascii": False},
    {"separators": [",", ": "], "indent": "\t", "sort_keys": True},
]


def dumps_cases():
    out = []
    for text in VALUES + more_values():
        v = json.loads(text)
        for o in OPTIONS:
            kw = dict(o)
            if "separators" in kw:
                kw["separators"] = tuple(kw["separators"])
            out.append({"value": text, "opts": o, "expect": json.dumps(v, **kw)})
    return out


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    bits = floats()
    with open(os.path.join(d, "floats.tsv"), "w", encoding="utf-8", newline="\n") as f:
        for b in bits:
            x = from_bits(b)
            r, j = repr(x), json.dumps(x)
            f.write("%016x\t%s\t%s\n" % (b, r, "=" if j == r else j))
    cases = dumps_cases()
    with open(os.path.join(d, "dumps.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=True) + "\n")
    print("floats.tsv: %d lines, dumps.jsonl: %d cases" % (len(bits), len(cases)))


if __name__ == "__main__":
    main()
