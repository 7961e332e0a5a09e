#!/usr/bin/python3
"""Expected results of the methods templates call (src/tmpl/tmpl_methods.c),
rendered by Jinja2 3.1.2 in the oracle's environment. Run from the project
root:

    /usr/bin/python3 tests/data/tmpl_methods/gen_methods.py

writes tests/data/tmpl_methods/methods.jsonl, one case a line:
  {"self": X, "m": name, "a": [positional], "k": {keywords}, "out": text}
  {"self": X, "m": name, "a": [...], "k": {...}, "exc": class, "msg": text}
`out` is what `{{ x.name(*a, **k) }}` prints (items/keys/values through
`|list`: we return lists, Python returns views that print differently).
Values that JSON cannot hold are written as one-key objects:
  {"$tuple": [...]}        a tuple
  {"$undef": "name"}       the Undefined of a missing variable `name`
  {"$markup": "text"}      markupsafe.Markup("text")
  {"$loop": [index0, length]}   self: `loop` at that iteration of range(length)
  {"$cycler": [items]}     self: cycler(*items); then "calls" replaces m/a/k:
                           a list of [name, a, k] run in order, outputs joined
A case with "ours": "unsupported" is a known gap: tally fails it cleanly
with ERR_UNSUPPORTED (see the README)."""
import json
import os
import random
import sys

import jinja2
from markupsafe import Markup

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("TALLY_SHARED", os.path.join(HERE, "..", "..", "..", "..", "shared"))
sys.path.insert(0, os.path.join(SHARED, "oracle"))
import oracle  # noqa: E402  (the oracle's environment, unmodified)


def make_env():
    """The oracle's environment (../shared/oracle/oracle.py, REFERENCE.md §3):
    ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols,
    transformers' tojson and globals."""
    return oracle.TemplateEnv().env


ENV = make_env()
if jinja2.__version__ != "3.1.2" or sys.version_info[:2] != (3, 11):
    sys.exit("gen_methods.py: run with /usr/bin/python3 (3.11) and Jinja2 3.1.2, the reference")


def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        if len(v) == 1:
            (key, val), = v.items()
            if key == "$tuple":
                return tuple(decode(x) for x in val)
            if key == "$undef":
                return ENV.undefined(name=val)
            if key == "$markup":
                return Markup(val)
        return {k: decode(x) for k, x in v.items()}
    return v


VIEWS = ("items", "keys", "values")


def render(case):
    self = case["self"]
    if isinstance(self, dict) and "$loop" in self:
        i, n = self["$loop"]
        src = ("{% for _ in range(n) %}{% if loop.index0 == i %}{{ loop." + case["m"] +
               "(*a, **k) }}{% endif %}{% endfor %}")
        ctx = {"n": n, "i": i, "a": decode(case["a"]), "k": decode(case["k"])}
    elif isinstance(self, dict) and "$cycler" in self:
        src = "{% set c = cycler(*items) %}"
        ctx = {"items": decode(self["$cycler"])}
        for j, (name, a, k) in enumerate(case["calls"]):
            src += "{{ c.%s(*a%d, **k%d) }}" % (name, j, j)
            ctx["a%d" % j] = decode(a)
            ctx["k%d" % j] = decode(k)
    else:
        tail = "|list" if case["m"] in VIEWS else ""
        src = "{{ x.%s(*a, **k)%s }}" % (case["m"], tail)
        ctx = {"x": decode(self), "a": decode(case["a"]), "k": decode(case["k"])}
    try:
        case["out"] = ENV.from_string(src).render(**ctx)
    except Exception as e:  # the class and message are the expected result
        case["exc"] = type(e).__name__
        case["msg"] = str(e)
    return case


CASES = []


def add(self, m, a=(), k=None, **extra):
    CASES.append(dict({"self": self, "m": m, "a": list(a), "k": k or {}}, **extra))


U = {"$undef": "nope"}
T = lambda *x: {"$tuple": list(x)}
MK = lambda s: {"$markup": s}

STRS = ["", "a", "hello world", "  Hello World  ", "\t a\nb \r\n", "Straße ΣΑΣ İi",
        "a,b,,c", "x=1;y=2", "ǅungla ﬁne", "中文 字符\u3000x", "it's", "ab\tcd\te", "+42",
        "-7", "ABC", "a\u2028b\x85c", "\U0001f600 ok", "one two  three   four"]
NOARG = ["capitalize", "casefold", "lower", "upper", "swapcase", "title", "isalnum",
         "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
         "isnumeric", "isprintable", "isspace", "istitle", "isupper"]


def str_cases(rng):
    for s in STRS:
        for m in NOARG:
            add(s, m)
        for m in ("strip", "lstrip", "rstrip"):
            add(s, m)
            add(s, m, [None])
            add(s, m, [" ha"])
            add(s, m, ["ΣS中\U0001f600 "])
        for m in ("split", "rsplit"):
            add(s, m)
            add(s, m, [None, 1])
            add(s, m, [","])
            add(s, m, [" ", 1])
            add(s, m, [], {"sep": ",", "maxsplit": 1})
            add(s, m, [], {"maxsplit": 2})
            add(s, m, ["a"], {"maxsplit": 0})
        add(s, "splitlines")
        add(s, "splitlines", [True])
        add(s, "splitlines", [], {"keepends": 1})
        for m in ("find", "rfind", "index", "rindex", "count"):
            for sub in ("o", "", "a", "ΣΑ", "zz", " "):
                add(s, m, [sub])
            add(s, m, ["o", 2])
            add(s, m, ["o", -5, -1])
            add(s, m, ["", 100])
            add(s, m, ["", len(s)])
            add(s, m, ["o", None, 4])
            add(s, m, ["o", 1, None])
        for m in ("startswith", "endswith"):
            for p in ("a", "", "he", "ld", " ", "Σ", "+"):
                add(s, m, [p])
            add(s, m, [T("x", "a", "h")])
            add(s, m, [T()])
            add(s, m, ["l", 2, 4])
            add(s, m, ["", 50])
            add(s, m, ["o", -3])
            add(s, m, ["", len(s), len(s)])
        for old, new, cnt in (("o", "0", None), ("", "-", None), ("", "-", 2), ("l", "", 1),
                              (" ", "  ", -1), ("Σ", "σς", 0), ("a", "ää", 3)):
            add(s, "replace", [old, new] + ([] if cnt is None else [cnt]))
        for w in (0, len(s) + 3, len(s) + 4, -1):
            add(s, "center", [w])
            add(s, "center", [w, "*"])
            add(s, "ljust", [w, "é"])
            add(s, "rjust", [w, "中"])
            add(s, "zfill", [w])
        add(s, "expandtabs")
        add(s, "expandtabs", [4])
        add(s, "expandtabs", [], {"tabsize": 1})
        add(s, "expandtabs", [0])
        for sep in (" ", ",", "Σ", "zz"):
            add(s, "partition", [sep])
            add(s, "rpartition", [sep])
        add(s, "removeprefix", ["he"])
        add(s, "removeprefix", [""])
        add(s, "removesuffix", ["ld"])
        add(s, "removesuffix", [s])
        add(s, "join", [["x", "y", "z"]])
        add(s, "join", [[]])
        add(s, "join", [["only"]])
        add(s, "join", ["abc"])
        add(s, "join", [{"k1": 1, "k2": 2}])
        add(s, "join", [T("p", "q")])


def str_errors():
    s = "hello world"
    for m in NOARG:
        add(s, m, [1])
        add(s, m, [], {"x": 1})
    for m in ("strip", "lstrip", "rstrip"):
        add(s, m, [1])
        add(s, m, ["a", "b"])
        add(s, m, [], {"chars": "a"})
        add(s, m, [U])
    for m in ("split", "rsplit"):
        add(s, m, [1])
        add(s, m, [""])
        add(s, m, [",", "x"])
        add(s, m, [",", 1.0])
        add(s, m, [",", 1, 2])
        add(s, m, [], {"x": 1})
        add(s, m, [","], {"sep": 1})
        add(s, m, [], {"sep": 1, "maxsplit": 1, "x": 2})
        add(s, m, [U])
        add(s, m, [",", U])
        add(s, m, [",", True])
        add(s, m, [",", 10 ** 20])
    add(s, "splitlines", ["x"])
    add(s, "splitlines", [None])
    add(s, "splitlines", [1.5])
    add(s, "splitlines", [1, 2])
    add(s, "splitlines", [], {"keep": 1})
    add(s, "splitlines", [2 ** 40])
    for m in ("find", "rfind", "index", "rindex", "count"):
        add(s, m)
        add(s, m, [1])
        add(s, m, ["o", "x"])
        add(s, m, ["o", 1, 1.5])
        add(s, m, ["o", 1, 2, 3])
        add(s, m, [], {"sub": "o"})
        add(s, m, [U])
        add(s, m, [1, "x"])
        add(s, m, ["zz"])
        add(s, m, ["o", 10 ** 20])
        add(s, m, ["o", -10 ** 20])
    for m in ("startswith", "endswith"):
        add(s, m)
        add(s, m, [1])
        add(s, m, [T("a", 1)])
        add(s, m, [T("h", 1)])
        add(s, m, [T(1, "h")])
        add(s, m, [U])
        add(s, m, [["h"]])
        add(s, m, ["h", "x"])
        add(s, m, ["h", 1, 2, 3])
        add(s, m, [], {"prefix": "h"})
        add(s, m, ["h", None, None])
    add(s, "replace", ["o"])
    add(s, "replace", [1, "x"])
    add(s, "replace", ["o", 1])
    add(s, "replace", ["o", "x", "2"])
    add(s, "replace", ["o", "x", 1.0])
    add(s, "replace", ["o", "x", 1, 2])
    add(s, "replace", ["o", "x"], {"count": 1})
    add(s, "replace", [U, "x"])
    add(s, "replace", ["o", "x", True])
    for m in ("center", "ljust", "rjust"):
        add(s, m)
        add(s, m, ["x"])
        add(s, m, [20, "ab"])
        add(s, m, [20, ""])
        add(s, m, [20, 1])
        add(s, m, [20.0])
        add(s, m, [20, "x", 1])
        add(s, m, [], {"width": 20})
        add(s, m, [U])
        add(s, m, [20, U])
        add(s, m, [True])
        add(s, m, [10 ** 20])
    add(s, "zfill")
    add(s, "zfill", ["x"])
    add(s, "zfill", [1.0])
    add(s, "zfill", [1, 2])
    add(s, "zfill", [], {"width": 3})
    add(s, "expandtabs", ["x"])
    add(s, "expandtabs", [1, 2])
    add(s, "expandtabs", [], {"tab": 1})
    add(s, "expandtabs", [1.0])
    for m in ("partition", "rpartition"):
        add(s, m)
        add(s, m, [""])
        add(s, m, [1])
        add(s, m, ["a", "b"])
        add(s, m, [U])
    for m in ("removeprefix", "removesuffix"):
        add(s, m)
        add(s, m, [1])
        add(s, m, ["a", "b"])
        add(s, m, [U])
        add(s, m, [], {"prefix": "h"})
    add(s, "join")
    add(s, "join", [1])
    add(s, "join", [None])
    add(s, "join", [[1]])
    add(s, "join", [["a", 2]])
    add(s, "join", [["a", None]])
    add(s, "join", [U])
    add(s, "join", [["a"], ["b"]])
    add(s, "join", [], {"iterable": ["a"]})
    add(s, "join", [["a", MK("<b>")]])
    add(s, "join", [[MK("<b>")]])
    add(s, "join", [["a", ["b"]]])
    add(s, "join", [[U]])


FORMATS = [
    ("{}", [1]), ("{} {}", ["a", "b"]), ("{0}{1}{0}", ["x", "y"]), ("{name}", [], {"name": "N"}),
    ("{0}-{name}", ["p"], {"name": 3}), ("{{}} {{{0}}}", [5]), ("{}{}", [1]),
    ("{0}{}", [1, 2]), ("{}{0}", [1, 2]), ("{x}", []), ("{", []), ("}", []), ("a}b", []),
    ("{0[a]}", [{"a": 1}]), ("{0.a}", [{"a": 2}]), ("{0.b}|", [{"a": 2}]), ("{0[1]}", [[5, 6]]),
    ("{0[5]}|", [[5, 6]]), ("{0[-1]}|", [[5, 6]]), ("{0[a][0]}", [{"a": [7]}]),
    ("{0.a}{}", [{"a": 1}]), ("{!r}", ["a"]), ("{!s}", [1.5]), ("{!a}", ["é\U0001f600"]),
    ("{!x}", ["a"]), ("{!r:>8}", ["a"]), ("{0!}", [1]), ("{0!rx}", [1]), ("{0:", [1]),
    ("{0", [1]), ("{a{}", [1]), ("{0.}", [1]), ("{0[]}", [[1]]), ("{0]x}", [1]),
    ("{0[0]x}", [[1]]), ("{ }", []), ("{a[:]}", [], {"a": {":": 9}}), ("{:{}}", ["a", 5]),
    ("{:{}}{}", ["a", 5, "z"]), ("{:{:{}}}", ["a", 5, 1]), ("{0:{1}}", ["a", 4]),
    ("{0:{}}", ["a", 4]), ("{}", [U]), ("{:>5}", [U]), ("{!r}", [U]), ("{}", [None]),
    ("{:5}", [None]), ("{}", [[1, "a"]]), ("{:x}", [[1]]), ("{}", [True]), ("{:d}", [True]),
    ("{:5}", [True]), ("{}", [1.0]), ("{}", [{"k": [1, 2.5, None]}]), ("{}", [T(1, "a")]),
    ("{.upper}", ["a"]), ("{0.__class__}|", ["a"]), ("{0[__class__]}|", ["a"]),
    ("{²}", [], {"²": 1}), ("{00}", ["z"]), ("{1}", ["z"]), ("{}", []),
    ("{99999999999999999999}", []), ("{:99999999999999999999}", [1]), ("{:x<3}", [MK("<")]),
    ("{:.3}", ["abcdef"]), ("{:>10}", ["中文"]), ("{:^7}", ["ab"]), ("{:*^8}", ["ab"]),
]
SPECS = ["", "05", "<05", "0=5", "=5", "010,", "08,", "09,", "0=10,", "010_", ".3", "z",
         "+z.1f", "#", "#o", "#x", "#X", "#b", ",x", "_x", "_X", "_b", "_o", ",n", ",c", "+c",
         "#c", "c", ".2d", "q", "abc", "10.3", "#.3", ".0", ".0e", "#.0f", "#g", ".3g", ",.2f",
         "e", "E", "G", "F", "f", "g", "%", ".1%", "x<10", "é^7", ">>5", "=+8", "-", " ", "+",
         " d", "z.2f", ",_", "_,", "._", ".", "12.4e", "<+012.3f", "^+9", "0<9", ".1f", ".12g",
         "#.0e", "#.1g", "n", ",d", "_d", "+,d", "s", "+s", " s", "#s", "=s", ",s", "zs", "z<4",
         ".0f", ".20f", ".17g", ".25e", "015.4%", "^12,.2f", "\x1f", "\U0001f600>4", "\u00e9"]
FVALUES = ["abc", "", "ΣΑΣ", 0, 12, -12, 1234567, 255, 2 ** 62, -2 ** 63, 10 ** 25, True,
           False, 2.5, -0.0, 0.0, 1e20, 1.0, 12345.6789, 1e-05, 0.0001, -1.5e-7,
           123456789012345678.0, 0.1, 2.675, 1e300, 5e-324, 1e16, 9999999999999998.0,
           0.5, 1.5, 65.0]


def format_cases():
    for f in FORMATS:
        add(f[0], "format", f[1], f[2] if len(f) > 2 else None)
    for spec in SPECS:
        for v in FVALUES:
            add("{:%s}" % spec.replace("{", "{{").replace("}", "}}"), "format", [v])
    add("{:65}", "format", [128512])
    add("{:c}", "format", [1114112])
    add("{:c}", "format", [-1])
    add("{0:{1}}|{0:{2}}", "format", [3.14159, ".2f", ">8"])
    add("{x:{y}{z}}", "format", [], {"x": 7, "y": "0", "z": "5"})


def dict_list_cases():
    d = {"a": 1, "b": [2, 3], "c": None, "1": "s"}
    for key in ("a", "b", "z", "1", 1, None, U, T("a",)):
        add(d, "get", [key])
        add(d, "get", [key, "dflt"])
    add(d, "get")
    add(d, "get", ["a", 1, 2])
    add(d, "get", [["a"]])
    add(d, "get", [{"a": 1}])
    add(d, "get", [], {"key": "a"})
    add({}, "get", ["a"])
    for m in ("items", "keys", "values", "copy"):
        add(d, m)
        add({}, m)
        add(d, m, [1])
        add(d, m, [], {"x": 1})
    for lst in ([1, 2, 3, 2, "a", None, [1], 2.0], T(1, 2, 3, 2, "a", None, T(1,), 2.0)):
        for x in (2, "a", None, 4, [1], T(1,), 2.0, True, U, "2"):
            add(lst, "index", [x])
            add(lst, "count", [x])
        add(lst, "index", [2, 2])
        add(lst, "index", [2, -3])
        add(lst, "index", [2, 0, 2])
        add(lst, "index", [2, 0, -6])
        add(lst, "index", [2, None])
        add(lst, "index", [2, "x"])
        add(lst, "index", [2, 1.0])
        add(lst, "index", [2, 10 ** 20])
        add(lst, "index", [2, -10 ** 20, 10 ** 20])
        add(lst, "index")
        add(lst, "index", [1, 2, 3, 4])
        add(lst, "index", [], {"value": 2})
        add(lst, "count")
        add(lst, "count", [1, 2])
        add(lst, "count", [], {"value": 2})
    add([1, 2], "copy")
    add([], "copy")
    add([1], "copy", [1])
    add([1], "copy", [], {"x": 1})
    add([], "index", [1])
    add([], "count", [1])


def markup_cases():
    m = MK("a<b> & 'c'")
    for name, a in (("upper", []), ("lower", []), ("title", []), ("capitalize", []),
                    ("swapcase", []), ("casefold", []), ("strip", ["a'"]), ("strip", [MK("a'")]),
                    ("lstrip", ["<a"]), ("rstrip", ["'"]), ("replace", ["<", "&"]),
                    ("replace", [MK("<b>"), "<i>"]), ("center", [30, "<"]), ("ljust", [20]),
                    ("rjust", [20, "&"]), ("zfill", [20]), ("expandtabs", []),
                    ("split", []), ("split", ["&"]), ("rsplit", [" ", 1]), ("splitlines", []),
                    ("partition", ["&"]), ("partition", ["<"]), ("rpartition", [1]),
                    ("join", [["<x>", MK("<y>"), 3, None]]), ("join", [[]]),
                    ("removeprefix", ["a<"]), ("removesuffix", ["'c'"]), ("find", ["<"]),
                    ("count", ["&"]), ("startswith", ["a<"]), ("isupper", []),
                    ("format", [1])):
        extra = {"ours": "unsupported"} if name == "format" else {}
        add(m, name, a, **extra)


def jinja_object_cases():
    for i, n in ((0, 3), (1, 3), (2, 3), (4, 5)):
        add({"$loop": [i, n]}, "cycle", ["a", "b"])
        add({"$loop": [i, n]}, "cycle", [1, [2], None])
    add({"$loop": [0, 2]}, "cycle")
    add({"$loop": [0, 2]}, "cycle", [1], {"x": 2})
    add({"$loop": [1, 2]}, "cycle", [U, 2])
    add({"$loop": [1, 2]}, "changed", [1])
    add({"$loop": [1, 2]}, "changed", [], {"x": 1})
    calls = lambda *c: [[n, a, k] for n, a, k in c]
    for items in ([1, 2], ["a"], ["x", None, [3]]):
        add({"$cycler": items}, None, calls=calls(("next", [], {}), ("next", [], {}), ("next", [], {}),
                                            ("reset", [], {}), ("next", [], {})))
    add({"$cycler": [1, 2]}, None, calls=calls(("next", [1], {})))
    add({"$cycler": [1, 2]}, None, calls=calls(("next", [], {"x": 1})))
    add({"$cycler": [1, 2]}, None, calls=calls(("next", [1], {"x": 1})))
    add({"$cycler": [1, 2]}, None, calls=calls(("next", [], {}), ("reset", [1, 2], {})))
    add({"$cycler": [1, 2]}, None, calls=calls(("reset", [], {"y": 1})))


def random_cases(rng):
    pool = "ab ,.\t\nΣσ中é"
    for _ in range(400):
        s = "".join(rng.choice(pool) for _ in range(rng.randint(0, 10)))
        sub = "".join(rng.choice(pool) for _ in range(rng.randint(0, 2)))
        m = rng.choice(["find", "rfind", "count", "startswith", "endswith", "index", "rindex"])
        a = [sub] + [rng.choice([None, rng.randint(-12, 12)]) for _ in range(rng.randint(0, 2))]
        add(s, m, a)
        m = rng.choice(["split", "rsplit"])
        add(s, m, [rng.choice([None, sub or " "]), rng.randint(-1, 3)])
        add(s, "replace", [sub, rng.choice(["", "x", "ΣΣ"]), rng.randint(-1, 3)])
        add(s, "partition" if rng.random() < 0.5 else "rpartition", [sub or ","])


def random_specs(rng):
    """Specs drawn from the grammar [[fill]align][sign][z][#][0][width]
    [grouping][.precision][type], with now and then a piece out of place."""
    for _ in range(1500):
        spec = ""
        if rng.random() < 0.4:
            if rng.random() < 0.5:
                spec += rng.choice("x*0é ")
            spec += rng.choice("<>=^")
        for piece, p in (("+- ", 0.3), ("z", 0.15), ("#", 0.2), ("0", 0.25)):
            if rng.random() < p:
                spec += rng.choice(piece)
        if rng.random() < 0.6:
            spec += str(rng.randint(0, 25))
        if rng.random() < 0.3:
            spec += rng.choice(",_")
        if rng.random() < 0.5:
            spec += "." + str(rng.randint(0, 20))
        if rng.random() < 0.8:
            spec += rng.choice("bcdeEfFgGnosxX%") if rng.random() < 0.95 else rng.choice("qz,")
        v = rng.choice(FVALUES + [rng.uniform(-1e6, 1e6), rng.randint(-10 ** 6, 10 ** 6),
                                  rng.choice([1, -1]) * 10 ** rng.uniform(-30, 30)])
        add("{:%s}" % spec, "format", [v])


def main():
    rng = random.Random(31337)
    str_cases(rng)
    str_errors()
    format_cases()
    dict_list_cases()
    markup_cases()
    jinja_object_cases()
    random_cases(rng)
    random_specs(rng)
    with open(os.path.join(HERE, "methods.jsonl"), "w", encoding="utf-8") as f:
        for case in CASES:
            render(case)
            if case.get("m") is None:
                del case["m"], case["a"], case["k"]
            f.write(json.dumps(case, ensure_ascii=False) + "\n")
    print("%d cases" % len(CASES))


if __name__ == "__main__":
    main()
