#!/usr/bin/python3
"""Writes cases.jsonl: Jinja2's built-in filters and tests as the chat-template
environment runs them, for tests/test_tmpl_filters.c.

Every case applies one filter (`{% set r = x | NAME(*a, **k) %}`) or one test
(`x is NAME(*a, **k)`) in the oracle's environment (TemplateEnv of
../shared/oracle/oracle.py: ImmutableSandboxedEnvironment, trim_blocks,
lstrip_blocks, loopcontrols, transformers' tojson) and records what Jinja
produced: str() of the result as `{{ r }}` prints it, its type, whether it is
Markup, the message of an Undefined result, or the exception raised.

Run from the project root with Debian's Python (Jinja2 3.1.2):
    /usr/bin/python3 tests/data/tmpl_filters/gen.py
"""
import json
import math
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SHARED = os.environ.get("TALLY_SHARED") or os.path.join(ROOT, "..", "shared")
sys.path.insert(0, os.path.join(SHARED, "oracle"))

import jinja2  # noqa: E402
from jinja2.runtime import Undefined  # noqa: E402
from jinja2.utils import Namespace  # noqa: E402
from markupsafe import Markup  # noqa: E402
import oracle  # noqa: E402

if jinja2.__version__ != "3.1.2":
    sys.exit(f"gen.py: Jinja2 {jinja2.__version__}; run with /usr/bin/python3 (Debian's 3.1.2)")

ENV = oracle.TemplateEnv().env


# ---- values ---------------------------------------------------------------
# JSON cannot say Undefined, tuple, Markup, NaN or non-str dict keys; those
# are written as one-member objects the C test decodes the same way:
#   {"$u": name|null}            Undefined(name=name)       (tv_undef_name / plain)
#   {"$uh": hint}                Undefined(hint=hint)       (tv_undef_hint)
#   {"$ua": [obj, key]}          Undefined(obj=obj, name=key) (tv_undef_attr)
#   {"$t": [...]}                tuple
#   {"$m": "..."}                Markup
#   {"$f": "nan"|"inf"|"-inf"}   float
#   {"$d": [[k, v], ...]}        dict with keys that are not all str
#   {"$ns": {...}}               namespace(...)
#   {"$fn": "range"}             a global function of the environment

def U(name=None):
    return ENV.undefined(name=name)


def UH(hint):
    return ENV.undefined(hint)


def UA(obj, key):
    return ENV.undefined(obj=obj, name=key)


class FN:
    def __init__(self, name):
        self.name = name


def enc(v):
    if isinstance(v, Undefined):
        if v._undefined_hint:
            return {"$uh": v._undefined_hint}
        if v._undefined_obj is not jinja2.utils.missing:
            return {"$ua": [enc(v._undefined_obj), enc(v._undefined_name)]}
        return {"$u": v._undefined_name}
    if isinstance(v, Markup):
        return {"$m": str(v)}
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return {"$f": "nan"}
        if math.isinf(v):
            return {"$f": "inf" if v > 0 else "-inf"}
        return v
    if isinstance(v, tuple):
        return {"$t": [enc(x) for x in v]}
    if isinstance(v, list):
        return [enc(x) for x in v]
    if isinstance(v, Namespace):
        return {"$ns": {k: enc(x) for k, x in v._Namespace__attrs.items()}}
    if isinstance(v, FN):
        return {"$fn": v.name}
    if isinstance(v, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in v):
            return {k: enc(x) for k, x in v.items()}
        return {"$d": [[enc(k), enc(x)] for k, x in v.items()]}
    raise ValueError(f"cannot encode {v!r}")


def dec(j):
    """The Python value of an encoded one, built afresh from its JSON text (so
    that object identity is what a value read from JSON has, as in C)."""
    def py(v):
        if isinstance(v, list):
            return [py(x) for x in v]
        if isinstance(v, dict):
            if len(v) == 1:
                (k, x), = v.items()
                if k == "$u":
                    return U(x)
                if k == "$uh":
                    return UH(x)
                if k == "$ua":
                    return UA(py(x[0]), py(x[1]))
                if k == "$t":
                    return tuple(py(y) for y in x)
                if k == "$m":
                    return Markup(x)
                if k == "$f":
                    return float(x)
                if k == "$d":
                    return {py(a): py(b) for a, b in x}
                if k == "$ns":
                    return Namespace({a: py(b) for a, b in x.items()})
                if k == "$fn":
                    return ENV.globals[x]
            return {a: py(b) for a, b in v.items()}
        return v
    return py(json.loads(json.dumps(j)))


# ---- running one case -----------------------------------------------------

captured = []


def cap(r):
    captured.append(r)
    return ""


ENV.globals["cap"] = cap
CASES = []
SEEN = set()


def record(kind, name, x, a, k):
    key = json.dumps([kind, name, enc(x), [enc(v) for v in a], {n: enc(v) for n, v in k.items()}],
                     sort_keys=True)
    if key in SEEN:
        return
    SEEN.add(key)
    case = {"kind": kind, "name": name, "x": enc(x), "a": [enc(v) for v in a],
            "k": {n: enc(v) for n, v in k.items()}}
    if kind == "filter":
        src = "{% set r = x | " + name + "(*a, **k) %}{{ cap(r) }}"
    elif kind == "percent":
        src = "{% set r = x % a[0] %}{{ cap(r) }}"
    else:
        src = "{% set r = x is " + name + "(*a, **k) %}{{ cap(r) }}"
    captured.clear()
    try:
        ENV.from_string(src).render(x=dec(case["x"]), a=dec(case["a"]), k=dec(case["k"]))
        r = captured[0]
        if hasattr(r, "__next__"):   # generators, reversed(...), map objects
            case["iter"] = True
            r = list(r)
        case["type"] = "Markup" if isinstance(r, Markup) else type(r).__name__
        # addresses vary from run to run (the test compares only the type there)
        case["out"] = re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", str(r))
        if isinstance(r, Undefined):
            case["undef_msg"] = r._undefined_message
    except Exception as e:   # noqa: BLE001 - every exception is an expected outcome
        case["exc"] = type(e).__name__
        case["msg"] = str(e)
    CASES.append(case)


def F(name_, x_, *a, **k):
    record("filter", name_, x_, a, k)


def T(name_, x_, *a, **k):
    record("test", name_, x_, a, k)


def PCT(x_, y_):
    """`x % y` with a str x: the evaluator's % operator (tv_percent)."""
    record("percent", "%", x_, (y_,), {})


# ---- the cases ------------------------------------------------------------

NAN, INF = float("nan"), float("inf")
BIG = 123456789012345678901234567890
SCALARS = [None, True, False, 0, 1, -3, 7, BIG, -BIG, 0.0, -0.0, 1.5, -2.5, 1e100, NAN, INF, -INF,
           "", "abc", "Hello World", "ÄÖü ß", U("u"), Markup("<b>x</b>")]
CONTAINERS = [[], [1, 2, 3], ["b", "A", "c"], (1, "a"), {}, {"a": 1, "B": 2},
              {1: "x", 2.5: "y", None: "z", True: "w"}, Namespace(a=1)]
ALL = SCALARS + CONTAINERS
# Only the value-level filters run over everything.
for name in ["abs", "capitalize", "center", "count", "d", "default", "e", "escape",
             "first", "float", "forceescape", "int", "items", "join", "last", "length",
             "list", "lower", "upper", "reverse", "safe", "string", "title", "trim",
             "wordcount", "tojson", "striptags", "urlencode", "unique", "min", "max",
             "sum", "sort", "dictsort", "pprint", "filesizeformat", "round", "select",
             "reject", "map", "xmlattr", "indent", "truncate", "capitalize"]:
    for x in ALL:
        F(name, x)
for name in ["defined", "undefined", "none", "boolean", "false", "true", "integer", "float",
             "number", "string", "mapping", "iterable", "sequence", "callable", "escaped",
             "lower", "upper", "odd", "even", "filter", "test"]:
    # str() of a function shows its address: not for lower/upper
    fns = [] if name in ("lower", "upper") else [FN("range"), FN("namespace")]
    for x in ALL + fns + ["upper", "nosuch", "eq", "lessthan", "d",
                    "ABC", "aBC", "1A", "Ǆ", "ǅ"]:
        T(name, x)

# abs
for x in [-(2**63), 2**63 - 1, -(2**63) + 1, -5.5, -0.0]:
    F("abs", x)
F("abs", 1, 2)
F("abs", 1, x=2)

# attr: Python attributes only, through the sandbox.
for x, n in [({"a": 1}, "a"), ({"a": 1}, "items"), ("abc", "upper"), ([1], "append"),
             ({"a": 1}, "_x"), (U("u"), "a"), (None, "a"), ("abc", "__class__"),
             ("abc", "nosuch"), ([1, 2], "index"), (Namespace(a=1), "a"), (Namespace(a=1), "b"),
             ({"a": 1}, 1), ({"a": 1}, U("n"))]:
    F("attr", x, n)
F("attr", {"a": 1})
F("attr", {"a": 1}, "a", "b")
F("attr", {"a": 1}, name="a")

# batch / slice
for x in [[1, 2, 3, 4, 5], [], "abcde", (1, 2), {"a": 1, "b": 2, "c": 3}, U("u"), None, 5]:
    for n in [1, 2, 3, 7]:
        F("batch", x, n)
        F("batch", x, n, "F")
        F("slice", x, n)
        F("slice", x, n, "F")
    F("batch", x, 2, None)
    F("batch", x, 0)
    F("slice", x, 0)
    F("batch", x, -1)
    F("slice", x, -2)
F("batch", [1, 2, 3], 2.0)
F("batch", [1, 2, 3], 2.5)
F("slice", [1, 2, 3], 2.0)
F("batch", [1, 2, 3], "2")
F("slice", [1, 2, 3], "2")
F("batch", [1, 2, 3], True)
F("slice", [1, 2, 3], True)
F("slice", [1, 2, 3], U("n"))
F("batch", [1, 2, 3], U("n"))
F("batch", [1, 2, 3], 2, fill_with=0)
F("slice", [1, 2, 3], slices=2, fill_with=0)
F("batch", [1, 2, 3])
F("slice", [1, 2, 3])
F("batch", [1, 2, 3], 1, 2, 3)

# case: capitalize / lower / upper / title
for s in ["hello world", "HELLO", "ßtraße", "ǆemal", "ŉ", "i̇stanbul", "ΣΑΣ ΟΔΟΣ", "ﬁne ﬂow",
          "hello-world foo(bar) [baz] <qux> {x}", "a\tb\nc d", "  lead", "o'neil mc-donald",
          "123abc ABC", "élan vital", "x--y", "-a", Markup("<b>hi</b> &amp; you"), "Ǆ ǅ ǆ",
          "ᾳ ᾼ", "ﬀ", "", "a", "DŽ", "İ"]:
    for name in ["capitalize", "lower", "upper", "title", "wordcount"]:
        F(name, s)

# center
for s in ["abc", "ab", "", "αβγ", Markup("<>")]:
    for w in [0, 2, 3, 6, 7, -1, 80]:
        F("center", s, w)
F("center", "abc", 6.0)
F("center", "abc", "6")
F("center", "abc", True)
F("center", "abc", None)
F("center", "abc", width=9)
F("center", "abc", U("w"))
F("center", 5, 5)
F("center", None, 8)

# default
for x in [U("u"), U("w"), None, "", 0, False, [], "x", 1, UH("hint!"), UA({"a": 1}, "b")]:
    F("default", x)
    F("default", x, "D")
    F("default", x, "D", True)
    F("default", x, "D", boolean=True)
    F("d", x, default_value=7)
    F("default", x, U("v"))
F("default", 1, 2, 3, 4)
F("default", 1, x=2)

# dictsort
D = {"b": 1, "A": 3, "c": 2, "a": 0}
for args, kw in [((), {}), ((True,), {}), ((False, "value"), {}), ((), {"reverse": True}),
                 ((), {"by": "value", "reverse": True}), ((), {"by": "nope"}),
                 ((True, "key", True), {}), ((), {"case_sensitive": True})]:
    F("dictsort", D, *args, **kw)
F("dictsort", {"b": "X", "a": "y", "c": "Z"}, False, "value")
F("dictsort", {"b": "X", "a": "y", "c": "Z"}, True, "value")
F("dictsort", {"b": 1, "a": "y"}, False, "value")
F("dictsort", {1: "a", "b": 2})
F("dictsort", {"x": [2, 1], "y": [1, 5]}, by="value")
F("dictsort", {"x": None, "y": None}, by="value")
F("dictsort", {"x": 1.5, "y": True, "z": 0}, by="value")
F("dictsort", [1, 2])
F("dictsort", D, by=U("u"))
F("dictsort", D, 1, 2, 3, 4)

# escape / forceescape / safe
for x in ["<a href='x'>\"&\"</a>", Markup("<b>&amp;</b>"), 5, None, [1, "<"], U("u"), "plain"]:
    F("escape", x)
    F("forceescape", x)
    F("safe", x)
F("escape", "a", "b")
F("safe", "a", "b")

# filesizeformat
for x in [0, 1, 2, 999, 1000, 1023, 1024, 1500, 999999, 1000000, 123456789, 10**15, 10**24,
          10**25, 10**27, 1.0, 0.5, -5, -2000, "2048", "1e3", "abc", None, True, 3.99e30, 2**70]:
    F("filesizeformat", x)
    F("filesizeformat", x, True)
F("filesizeformat", 2000, binary=True)
F("filesizeformat", U("u"))

# first / last
for x in [[1, 2, 3], [], "abc", "", (1, 2), {"a": 1, "b": 2}, {}, U("u"), None, 3]:
    F("first", x)
    F("last", x)

# float / int
for x in ["3.7", "  4.5  ", "-0", "1e3", "1_000.5", "inf", "-Infinity", "nan", "0x1A", "abc",
          "", "12", " 12 ", "+7", "-7", "1_0", "0b101", "0o17", "007", "١٢٣", "12abc",
          "9" * 30, "1e400", "3.0", 3.99, -3.99, 1e20, 1e300, NAN, INF, True, None, [1], U("u"),
          BIG, "٣.٥", "½", "１２"]:
    F("int", x)
    F("float", x)
for s, b in [("0x1A", 16), ("1A", 16), ("0b101", 2), ("101", 2), ("0o17", 8), ("z", 36),
             ("0x1A", 0), ("010", 0), ("0", 0), ("12", 1), ("12", 37), ("1_2", 16), ("3.5", 16),
             ("ff", 10)]:
    F("int", s, 0, b)
F("int", "f" * 300, 0, 16)
F("int", "-0x" + "7" * 200, 0, 0)
F("int", "z" * 50, 0, 36)
F("int", "1" * 64, 0, 2)
F("replace", "ab" * 50, "b", "xyz")
F("int", "abc", 42)
F("int", "abc", default=-1)
F("int", "abc", "x")
F("int", 3.5, 0, 16)
F("int", "12", base="16")
F("int", "12", 0, 16.0)
F("float", "abc", 1)
F("float", "abc", default="x")
F("float", "1", 1, 2)

# format
for fmt, args, kw in [
        ("%s-%s", ("a", 1), {}), ("%d items", (3,), {}), ("%d", (3.9,), {}), ("%d", ("3",), {}),
        ("%5.2f|%-6s|%06d", (3.14159, "ab", 42), {}), ("%x %X %o", (255, 255, 8), {}),
        ("%r", ("a'b",), {}), ("%r", ([1, "x"],), {}), ("%%", (), {}), ("100%%", (), {}),
        ("%s", ((1, 2),), {}), ("%s", (), {}), ("%s %s", ("a",), {}), ("%s", ("a", "b"), {}),
        ("%(a)s and %(b)d", (), {"a": "x", "b": 2}), ("%(a)s", (), {"b": 1}),
        ("%s", (None,), {}), ("%s", (U("u"),), {}), ("%d", (U("u"),), {}), ("%d", (None,), {}),
        ("%e", (12345.678,), {}), ("%g", (0.0001234,), {}), ("%.3g", (1234567.0,), {}),
        ("%c", (65,), {}), ("%c", ("z",), {}), ("%i", (7,), {}), ("%+d % d", (5, 5), {}),
        ("%5s|%-5s|", ("ab", "cd"), {}), ("%.2s", ("abcdef",), {}), ("%*d", (5, 3), {}),
        ("%s", (1.0,), {}), ("%f", (1,), {}), ("%s", (True,), {}), ("%d", (True,), {}),
        ("%s", ({"a": 1},), {}), ("%z", (1,), {}), ("%", (), {}), ("%s %", ("a",), {}),
        ("%.1f", (0.25,), {}), ("%.0f", (0.5,), {}), ("%.0f", (1.5,), {}), ("%.2f", (2.675,), {}),
        ("%10.4f|", (-3.5,), {}), ("%#x %#o", (255, 8), {}), ("%a", ("é",), {}),
        ("%s", ("a", "b"), {"c": 1}), ("%d", (BIG,), {}), ("%s", (BIG,), {}), ("%x", (-255,), {}),
        ("%.3e", (0.0,), {}), ("%f", (INF,), {}), ("%f", (NAN,), {}), ("%d", (INF,), {}),
        ("%5%", (), {}), ("%s", (Markup("<b>"),), {}), ("%u", (3,), {}), ("%F", (1.5,), {}),
        ("%G", (1e-10,), {}), ("%E", (1.5,), {}), ("%-8.3f|", (3.14159,), {}), ("%08.3f", (-3.14159,), {})]:
    F("format", fmt, *args, **kw)
F("format", Markup("<i>%s</i>"), "<b>")
F("format", Markup("<i>%s %r</i>"), Markup("<b>"), "<")
F("format", 5, 1)
F("format", None)
F("format", U("u"), 1)

# groupby
P = [{"n": "a", "c": "X"}, {"n": "b", "c": "y"}, {"n": "c", "c": "x"}, {"n": "d"}, {"n": "e", "c": "Y"}]
F("groupby", P, "c")
F("groupby", P, "c", "Z")
F("groupby", P, "c", default="Z")
F("groupby", P, "c", case_sensitive=True)
F("groupby", P, "c", "x", True)
F("groupby", P, "n")
F("groupby", [[1, "a"], [2, "b"], [1, "c"]], 0)
F("groupby", [[1, "a"], [2, "b"], [1, "c"]], "0")
F("groupby", [{"a": {"b": 2}}, {"a": {"b": 1}}], "a.b")
F("groupby", [1, 2], "x")
F("groupby", [], "x")
F("groupby", P)
F("groupby", U("u"), "x")
F("groupby", None, "x")

# indent
for s in ["a\nb\n\nc", "a\nb\n", "", "one", "\n", "x\r\ny\x0bz\x1cw\u2028v", Markup("<a>\n<b>")]:
    for args, kw in [((), {}), ((2,), {}), ((2, True), {}), ((2, True, True), {}),
                     (("> ",), {}), ((), {"blank": True}), ((), {"first": True}), ((0,), {}),
                     ((-1,), {}), ((True,), {})]:
        F("indent", s, *args, **kw)
F("indent", "a\nb", 2.5)
F("indent", "a\nb", None)
F("indent", 5, 2, True)
F("indent", None)
F("indent", ["a"])

# items
F("items", {"a": 1, "b": [2]})
F("items", {})
F("items", [1, 2])

# join
for x, args, kw in [([1, 2, 3], (), {}), ([1, 2, 3], ("|",), {}), (["a", "b"], (", ",), {}),
                    ([], (",",), {}), ("abc", ("-",), {}), ({"x": 1, "y": 2}, ("+",), {}),
                    ([None, True, 1.0, [1], {"a": "b"}, U("u")], (",",), {}),
                    ([{"n": "a"}, {"n": "b"}, {}], (",",), {"attribute": "n"}),
                    ([{"n": {"m": 1}}, {"n": {"m": 2}}], (), {"attribute": "n.m"}),
                    ([[1, 2], [3, 4]], ("/",), {"attribute": 1}),
                    ([[1, 2], [3, 4]], ("/",), {"attribute": "1"}),
                    ([1, 2], (5,), {}), ([1, 2], (None,), {}), (["a", Markup("<b>")], ("<",), {}),
                    (U("u"), (",",), {}), (None, (",",), {}), (5, (",",), {}),
                    ([1, 2], (), {"d": ";"}), ([1, 2], (U("s"),), {})]:
        F("join", x, *args, **kw)

# length / list / reverse / string
for x in ["abc", "äöü", [1, [2]], (1,), {"a": 1}, Namespace(a=1, b=2)]:
    F("length", x)
    F("list", x)
    F("reverse", x)
    F("string", x)
F("list", [1], x=1)

# min / max / sum / unique / sort
for x in [[3, 1, 2], ["b", "A", "a", "C"], [1, 2.5, True], [], ["x"], "hello", (5, -1),
          {"b": 1, "a": 2}, [[2, 1], [1, 5], [1, 2]], [1, "a"], [None, None], [U("u")],
          [{"k": 2}, {"k": 1}], ["b", "B", "a", "A"], [1, 1.0, True, "1"]]:
    for name in ["min", "max", "unique", "sort", "sum"]:
        F(name, x)
    F("min", x, True)
    F("max", x, case_sensitive=True)
    F("unique", x, True)
    F("sort", x, True)
    F("sort", x, False, True)
    F("sort", x, reverse=True, case_sensitive=True)
for name in ["min", "max", "unique", "sort", "sum"]:
    F(name, [{"k": 2, "n": "b"}, {"k": 1, "n": "B"}, {"k": 2, "n": "a"}], attribute="k")
    F(name, [{"k": 2, "n": "b"}, {"k": 1, "n": "B"}, {"k": 2, "n": "a"}], attribute="n")
    F(name, [{"k": {"v": 3}}, {"k": {"v": 1}}], attribute="k.v")
    F(name, [[3, "x"], [1, "y"]], attribute=0)
    F(name, [[3, "x"], [1, "y"]], attribute="1")
    F(name, [{"k": 2}, {}], attribute="k")
    F(name, [1, 2], attribute="k")
F("sort", [{"a": 2, "b": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 1}], attribute="a,b")
F("sort", [{"a": "B", "b": 1}, {"a": "a", "b": 2}], attribute="a, b")
F("sort", [{"a": 2}, {"a": 1}], attribute="a,zz")
F("sort", [3, 1], 1, 2, 3, 4)
F("sum", [1, 2], start=10)
F("sum", [1.5, 2], 10)
F("sum", [[1], [2]], start=[])
F("sum", ["a", "b"], start="")
F("sum", ["a", "b"])
F("sum", [1, None])
F("sum", [BIG, BIG])
F("sum", [2**62, 2**62, 2**62])
F("sum", [0.1, 0.2, 0.3])
F("sum", [1e308, 1e308])
F("sum", [True, True])
F("sum", [], start=U("u"))
F("sum", [1], start=U("u"))
F("sum", [{"p": 1}, {"p": 2.5}], "p")
F("unique", [1, 1.0, True, "1", "A", "a"], case_sensitive=True)
F("unique", [[1], [1]])
F("unique", [{"a": 1}, {"a": 1}])
F("unique", [(1, 2), (1, 2), (2, 1)])
F("min", [1, "a"])
F("max", [[1], "a"])
F("max", [U("u"), 1])
F("min", [(1, "b"), (1, "a")])
F("sort", [NAN, 1, 0])
F("sort", [-0.0, 0, False, 0.0])
F("sort", [(2, "b"), (1, "z"), (2, "a")])
F("sort", [[1, "a"], [1, 2]])

# map / select / reject / selectattr / rejectattr
L = [{"n": "a", "v": 1, "ok": True}, {"n": "B", "v": 0, "ok": False}, {"n": "c", "ok": None}]
F("map", L, attribute="n")
F("map", L, attribute="v")
F("map", L, attribute="v", default=9)
F("map", L, attribute="v", default=None)
F("map", L, attribute="v", x=1)
F("map", ["a", "Bc"], "upper")
F("map", ["a", "Bc"], "replace", "a", "z")
F("map", ["a b", "c"], "replace", old=" ", new="_")
F("map", [1.5, "2"], "int")
F("map", [[1, 2], [3]], "join", ",")
F("map", [[1, 2], [3]], "length")
F("map", ["a"], "nosuch")
F("map", ["a"], U("f"))
F("map", ["a"], 5)
F("map", ["a"])
F("map", ["a"], attribute="n")
F("map", [], "nosuch")
F("map", [1, -2], "abs")
F("map", [["b", "a"]], "sort")
F("map", [None, 1], "default", 5)
F("map", [U("u"), 1], "default", 5)
F("map", ["x"], "tojson")
F("map", "abc", "upper")
F("map", {"a": 1, "b": 2}, "upper")
F("map", U("u"), "upper")
F("map", None, "upper")
F("map", 0, "upper")
F("map", 5, "upper")
N = [0, 1, 2, 3, 4, 5, None, "", "x", [], [0]]
F("select", N)
F("reject", N)
F("select", [1, 2, 3, 4, 5, 6], "odd")
F("reject", [1, 2, 3, 4, 5, 6], "odd")
F("select", [1, 2, 3, 4, 5, 6], "divisibleby", 3)
F("select", [1, 2, 3, 4, 5, 6], "lessthan", 3)
F("select", [1, 2, 3, 4, 5, 6], ">", 3)
F("select", [1, 2, 3, 4, 5, 6], "==", 3)
F("select", [1, 2, 3, 4, 5, 6], "ne", 3)
F("select", ["a", "b"], "in", "abc")
F("select", ["a", "B", 1], "upper")
F("select", [1, None, "x"], "none")
F("select", [1, None, "x"], "string")
F("select", [1, None, "x"], "defined")
F("select", [1], "nosuch")
F("select", [1], U("t"))
F("select", [1], "odd", 1)
F("select", [1, 2, "a"], "odd")
F("select", [], "nosuch")
F("select", "abc", "lower")
F("select", U("u"), "odd")
F("select", None, "odd")
F("select", 5, "odd")
F("select", [1, 2], "eq", 2)
F("select", [1, 2], "equalto", 2)
F("select", [1, 2], "ge", 2)
F("select", [1, "a"], "ge", 2)
F("select", [{"a": 1}, 3], "mapping")
F("select", [1, 2], "sameas", 1)
F("selectattr", L, "ok")
F("rejectattr", L, "ok")
F("selectattr", L, "v")
F("selectattr", L, "v", "defined")
F("rejectattr", L, "v", "defined")
F("selectattr", L, "v", "undefined")
F("selectattr", L, "n", "equalto", "a")
F("selectattr", L, "n", "upper")
F("selectattr", L, "v", "odd")
F("selectattr", L, "ok", "none")
F("selectattr", L, "ok", "sameas", True)
F("selectattr", L, "n", "in", ["a", "c"])
F("selectattr", L)
F("rejectattr", L)
F("selectattr", [], "x")
F("selectattr", L, "zz", "nosuch")
F("selectattr", [[1, 2], [3, 4]], 0, "odd")
F("selectattr", [[1, 2], [3, 4]], "1", "gt", 2)
F("selectattr", [{"a": {"b": 1}}, {"a": {"b": 2}}], "a.b", "even")
F("selectattr", U("u"), "x")
F("selectattr", None, "x")
F("selectattr", 5, "x")
F("rejectattr", [{"role": "system"}, {"role": "user"}], "role", "equalto", "system")
F("selectattr", [{"role": "system"}, {"role": "user"}], "role", "eq", "user")

# replace
for s, args, kw in [("aaa", ("a", "b"), {}), ("aaa", ("a", "b", 2), {}), ("aaa", ("a", "b", 0), {}),
                    ("aaa", ("a", "b", -1), {}), ("abc", ("", "-"), {}), ("abc", ("", "-", 2), {}),
                    ("äbä", ("ä", "ae"), {}), (5, (5, 6), {}), (None, ("o", "0"), {}),
                    ("1.5", (1.5, "x"), {}), ("aaa", ("a", "b", None), {}),
                    ("aaa", ("a", "b"), {"count": 1}), ("aaa", ("a", "b", 1.0), {}),
                    ("aaa", ("a", "b", "1"), {}), ("aaa", ("a", "b", True), {}),
                    (U("u"), ("a", "b"), {}), ("abc", (U("v"), "b"), {}),
                    ("abc", ("b", U("v")), {}), (Markup("<a>&"), ("a", "<"), {}),
                    (Markup("a&"), (Markup("&"), "<"), {}), ("a&b", (Markup("&"), "<"), {}),
                    ("True", (True, False), {}), ("abc", ("b", None), {})]:
    F("replace", s, *args, **kw)

# round
for x in [2.5, 3.5, -2.5, 0.125, 0.375, 2.675, 1.005, 42.55, 1e16 + 1, 1.23456789e-5, -0.4, 7,
          -7, True, 1e300, 5e-324, NAN, INF, 123456.5, 0.5, 1.5, 2**53 + 1.0, BIG, "1.5", None,
          U("u"), -1e-20]:
    for args in [(), (1,), (2,), (-1,), (-2,), (0, "ceil"), (0, "floor"), (1, "ceil"),
                 (1, "floor"), (0, "up"), (15,), (300,), (-400,), (2, "ceil"), (-1, "floor")]:
        F("round", x, *args)
F("round", 2.5, precision=1.0)
F("round", 2.5, 1.5)
F("round", 2.5, "1")
F("round", 2.5, None)
F("round", 25, -1)
F("round", 35, -1)
F("round", 15, -1, "ceil")
F("round", 2.5, method="floor")
F("round", 2.5, True)

# striptags
for s in ["<p>Hello <b>World</b></p>", "a <!-- c --> b", "  x \n\t y  ", "a &amp; b &lt;c&gt; &#34;&#x41;&nbsp;&bogus; &amp",
          "<a\nhref='x'>y</a>", "1 < 2 and 3 > 2", Markup("<i>x</i> &amp; y"), 5, None, U("u"),
          "&eacute;&Eacute;&hellip;&notin;&not;x &copy &AMP; &#0; &#128; &#x110000; &#xD800;"]:
    F("striptags", s)

# trim
for s, args in [("  a b  ", ()), ("xxaxx", ("x",)), ("\u3000a\x85\x1c", ()), ("abc", ("",)),
                ("abcba", ("ab",)), ("äaä", ("ä",)), (5, ()), (None, ()), ("  x", (None,)),
                ("x", (5,)), (U("u"), ()), ("xx", (U("c"),)), (Markup("&a&"), ("&",)),
                ("  a  ", ("  ", "x"))]:
    F("trim", s, *args)
F("trim", "xax", chars="x")

# truncate
S = "foo bar baz qux"
for args, kw in [((9,), {}), ((9, True), {}), ((11,), {}), ((11, False, "...", 0), {}),
                 ((3,), {}), ((2,), {}), ((5, False, ""), {}), ((9, False, "…"), {}),
                 ((10, False, "...", -1), {}), ((), {"length": 7, "leeway": 0}),
                 ((7, True, ">>", 0), {}), ((0, False, ""), {}), ((-1, False, ""), {}),
                 ((9.5,), {}), (("9",), {}), ((9, False, "...", 1.5), {})]:
    F("truncate", S, *args, **kw)
F("truncate", "x" * 300)
F("truncate", "x" * 258)
F("truncate", "x" * 261)
F("truncate", "foobarbazqux", 6, False, "...", 0)
F("truncate", "a  b  c  d", 6, False, "", 0)
F("truncate", "äöü äöü äöü", 6, False, "…", 0)
F("truncate", 1234567890123, 5, False, ".", 0)
F("truncate", U("u"), 5)
F("truncate", None, 3, False, "", 0)

# urlencode
for x in ["a b&c=d/é?", "~-._", "", 5, None, {"a": "1 2", "b/": "x&y"}, [("a", 1), ("b", None)],
          (("k", "v"),), [["x", "y"]], ["ab", "cd"], {"é": [1]}, U("u"), "%41+", 1.5,
          "\x00\x7f", "😀", [("a", "b", "c")], ["abc"], [1]]:
    F("urlencode", x)

# wordcount / wordwrap
for s in ["hello world", "one,two;three", "  ", "a_b c1 ²³ ½ x²", "Ünïcödé wörds 語 日本",
          "it's the end-of-line", None, 5, "\u0301a"]:
    F("wordcount", s)
for s, args, kw in [("The quick brown fox jumps over the lazy dog", (10,), {}),
                    ("The quick brown fox", (79,), {}), ("abcdefghijklmnop", (5,), {}),
                    ("abcdefghijklmnop", (5, False), {}), ("a-b-c-d e-f", (3,), {}),
                    ("a-b-c-d e-f", (3, True, None, False), {}),
                    ("line one\nline two is longer\n\npara", (8,), {}),
                    ("x y z", (1,), {"wrapstring": "<br>"}), ("  lead  trail  ", (4,), {}),
                    ("tab\there and  two", (6,), {}), ("", (5,), {}), ("word", (0,), {}),
                    ("Hello. World! Ok? Yes.", (8,), {}), ("äöü ßßß éé", (4,), {}),
                    ("aaa bbb ccc", (7,), {}), ("well-known long-winded", (6,), {}),
                    ("a\r\nb\rc", (3,), {})]:
    F("wordwrap", s, *args, **kw)
F("wordwrap", 5, 3)
for s in ["a--b c---d e--", "well--known fact", "foo-bar-baz-qux quux", "x-1-2 ab-cd a-b",
          "--leading trailing-- mid--dle", "e.g.--so on!--yes", "super-long-hyphenated-compound-word",
          "1-2-3 ä-ö-ü ab-c-de", "a-b-c-d-e-f-g-h", "re-re-re-do x--y--z", "_a-_b- c", "ab- -cd --",
          "one-two, three-four. five!-six?--seven", "ñandú-jaguar-puma", "x" * 12 + "-" + "y" * 12]:
    for w in [1, 3, 4, 5, 7, 10, 20]:
        F("wordwrap", s, w)
        F("wordwrap", s, w, False)
    F("wordwrap", s, 6, True, "|", False)

# xmlattr
for x, args in [({"class": "a b", "id": 3, "x": None, "y": U("u"), "q": "<\"'&>"}, ()),
                ({"a": 1}, (False,)), ({}, ()), ({"bad key": 1}, ()), ({"a/b": 1}, ()),
                ({"a=b": 1}, ()), ({"a>b": 1}, ()), ({"a\tb": 1}, ()), ({"é": "ü"}, ()),
                ({1: 2}, ()), ([1], ()), (None, ()), (U("u"), ()), ({"m": Markup("<b>")}, ()),
                ({"<k>": 1}, ())]:
    F("xmlattr", x, *args)

# pprint
for x in [1, "a'b", [1, "x", None], {"b": 1, "a": [1, 2]}, (1,), "x" * 100, list(range(40)),
          {"k%d" % i: i for i in range(12)}, 1.5, U("u"), Markup("x")]:
    F("pprint", x)

# tojson
J = {"b": [1, 2.5, None, True], "a": "é\n\"", "c": {"d": []}}
for args, kw in [((), {}), ((), {"indent": 2}), ((), {"sort_keys": True}), ((True,), {}),
                 ((), {"separators": (",", ":")}), ((), {"indent": "\t"}), ((), {"indent": 0}),
                 ((False, 2, (", ", " = "), True), {}), ((), {"indent": -1}),
                 ((), {"separators": [";", "="]}), ((), {"separators": ("a",)}),
                 ((), {"indent": 2.5}), ((), {"indent": True}), ((), {"ensure_ascii": 0}),
                 ((), {"ensure_ascii": "yes"}), ((), {"sort_keys": "yes"}),
                 ((), {"indent": None, "separators": None})]:
    F("tojson", J, *args, **kw)
for x in ["😀\u2028\x7f\x01", 1e16, 1e-7, 0.1, -0.0, NAN, INF, -INF, BIG, 2**63,
          {1: "a", 2.5: "b", None: "c", True: "d", False: "e"}, {(1, 2): "x"},
          {"a": U("u")}, [U()], Namespace(a=1), FN("range"), FN("dict"), Markup("<b>"),
          {"k": (1, [2, (3,)])}, {"a": 1, "A": 2, "b": 3}, [[[]], {}]]:
    F("tojson", x)
    F("tojson", x, True)
    F("tojson", x, sort_keys=True)
F("tojson", {"b": 1, 2: 3}, sort_keys=True)
F("tojson", {"b": 1, "a": 2}, indent=2, sort_keys=True)
F("tojson", {"b": {"c": [1, {"d": 2}]}, "a": []}, indent=3)
F("tojson", {"x": []}, indent="ab")
# values read from JSON (fast path) inside values that are not
NESTED = [(1,), {"b": [1, {"d": 2, "c": [3.0, None]}], "a": "é"}, Markup("m")]
for kw in [{}, {"indent": 2}, {"sort_keys": True}, {"indent": "\t", "sort_keys": True},
           {"ensure_ascii": True}, {"separators": (",", ":")}, {"indent": 0}]:
    F("tojson", NESTED, **kw)
    F("tojson", {"t": (1, 2), "j": {"z": [1, 2], "y": {}}}, **kw)

# longer lists: sorting past CPython's 64-item insertion sort, stability
RNG = random.Random(7)
BIGL = [RNG.randrange(50) for _ in range(300)]
F("sort", BIGL)
F("sort", BIGL, True)
F("unique", BIGL)
F("max", BIGL)
F("min", [str(x) for x in BIGL])
F("sort", [{"k": RNG.randrange(10), "i": i} for i in range(200)], attribute="k")
F("sort", [{"k": RNG.randrange(10), "i": i} for i in range(200)], reverse=True, attribute="k")
F("sort", [RNG.choice(["a", "B", "c", "D", "e"]) + str(RNG.randrange(5)) for _ in range(150)])
F("sort", [RNG.random() for _ in range(100)])
F("dictsort", {f"k{RNG.randrange(1000)}": i for i in range(150)}, by="value")
F("dictsort", {f"K{RNG.randrange(1000)}" if i % 2 else f"k{RNG.randrange(1000)}": i for i in range(150)})
F("groupby", [{"g": RNG.choice("xyzXYZ"), "i": i} for i in range(120)], "g")
F("tojson", {f"k{i}": i for i in range(100)}, sort_keys=True)
F("tojson", {f"k{RNG.randrange(1000)}": [i, {"x": i}] for i in range(100)}, sort_keys=True, indent=1)

# unknown kwargs / arity for the rest
for name in ["capitalize", "lower", "upper", "title", "wordcount", "forceescape", "striptags",
             "urlencode", "items", "list", "pprint", "reverse", "safe", "first", "last",
             "random", "urlize", "filesizeformat", "dictsort", "unique", "min", "max", "join",
             "center", "trim", "indent", "truncate", "wordwrap", "xmlattr", "int", "float",
             "round", "sum", "sort", "groupby", "batch", "slice", "replace", "attr", "default",
             "select", "map", "tojson"]:
    F(name, "x", bogus=1)
for name in ["capitalize", "items", "list", "first", "last", "random", "reverse", "safe",
             "striptags", "forceescape", "pprint", "wordcount", "urlencode", "title", "length"]:
    F(name, "x", 1)
F("random", [])
F("random", U("u"))
F("urlize", 5, value=1)
F("join", [1], value=[2])
F("sort", [1], environment=1)

# the % operator on strings
for f, y in [("%(a)s", {"a": 1}), ("%s", [1, 2]), ("%s", {"a": 1}), ("%s|%s", (1, "x")),
             ("%s", (1,)), ("%s", ()), ("%d%%", 5), ("%s", None), ("%s", U("u")), ("x", 1),
             ("x", {}), ("x", []), ("%(a)s %(b)r", {"a": "é", "b": "é"}), ("%s", (1, 2)),
             (Markup("<%s>"), "&"), (Markup("<%s>"), Markup("&")), ("%s", Markup("<")),
             ("%(a)s", [1]), ("%.1f", 2.25), ("%5.1f|%-5d|%05d", (2.25, 3, -4)), ("%x", 255.0)]:
    PCT(f, y)

# tests with arguments
for x in [0, 1, 2, 3, -3, 7.0, 7.5, True, BIG, BIG + 1, None, "a", U("u"), NAN]:
    T("odd", x)
    T("even", x)
    for n in [2, 3, 0, -3, 2.5, True, None]:
        T("divisibleby", x, n)
T("divisibleby", 6)
T("divisibleby", 6, num=3)
for x in [1, 1.0, True, "1", "a", None, [1], (1,), [1, 2], {"a": 1}, U("u"), 2**70, NAN]:
    for y in [1, 1.0, True, "1", "b", None, [1], (1,), [1, 3], {"a": 1}, U("v"), 2**70, NAN, 2]:
        for name in ["eq", "ne", "lt", "le", "gt", "ge"]:
            T(name, x, y)
for name in ["==", "!=", "<", "<=", ">", ">="]:
    pass   # symbolic names cannot follow `is`; they are the same functions as eq...
for name in ["equalto", "lessthan", "greaterthan"]:
    T(name, 1, 2)
    T(name, 2, 1)
T("eq", 1)
T("eq", 1, 2, 3)
T("eq", 1, other=1)
T("in", 1, [1, 2])
T("in", "b", "abc")
T("in", "x", {"x": 1})
T("in", 1, {"x": 1})
T("in", 1, "abc")
T("in", 1, None)
T("in", 1, 5)
T("in", 1, U("u"))
T("in", U("u"), [U("v")])
T("in", [1], [[1]])
T("in", (1,), [(1,)])
T("in", 1, (1.0,))
T("in", "a", Markup("<a>"))
T("in", 1)
T("in", "a", seq="abc")
T("sameas", None, None)
T("sameas", True, True)
T("sameas", 1, True)
T("sameas", "a", "a")
T("sameas", [], [])
T("sameas", U("u"), U("u"))
T("defined", 1, 2)
T("filter", "upper", 1)
T("test", "odd", x=1)
T("lower", "abc", 1)
T("number", 1, x=2)


def main():
    out = os.path.join(HERE, "cases.jsonl")
    with open(out, "w", encoding="utf-8") as f:
        for c in CASES:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"{len(CASES)} cases -> {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
