#!/usr/bin/python3
"""Randomized differential test of the template evaluator's expressions
against Jinja2 3.1.2 in transformers' environment (the oracle's
TemplateEnv): small random templates (`{{ EXPR }}`, a few outputs, an if,
a set, a for over a list) whose expressions combine random variables passed
as JSON (ints small and beyond 64 bits, floats such as -0.0, 1e-05, 1e16 and
1e22, strings with Unicode beyond the BMP, whitespace, quotes, backslashes
and newlines, none, booleans, lists, nested dicts, lists of messages and
records) and literals with the operators (arithmetic, `~`, unary minus,
chained comparisons, in / not in, and/or/not, conditional expressions,
slices, item and attribute lookup, missing ones and their Undefined), the
built-in filters with random arguments (transformers' tojson options
included), the tests, the Python methods of str, dict and list (str.format
with specs; a few the sandbox refuses) and the globals (range, namespace,
dict, cycler, joiner, raise_exception). Weighted toward what chat templates
do. Outputs, or exception classes and messages, must agree. Prints a
summary and writes the disagreements, one JSON line each, to the file given
(default: differential-expr-mismatches.jsonl).

Run from the project root after `make all`:
    /usr/bin/python3 tests/data/tmpl_eval/differential_expr.py [COUNT] [SEED] [OUT]

Reuses differential.py (its C driver, build, Jinja side and verdict). Counts:
`match`, `mismatch`, `unsupported` (tally's own limits), `address` (Python
printed an object's address) and `known` (Jinja printed or named a dict
view, dict_items/dict_keys/dict_values, which tally keeps as a list: see
tests/data/tmpl_methods/README.md). A case that takes either side more
than TIMEOUT seconds (default 10) is a mismatch marked "timeout".
Environment: DEPTH (expression nesting, 3), TIMEOUT, MEMLIMIT (MiB of
address space for this process and the driver, 3072: a template may ask
Python for `'ab' * 2**31`).
"""
import json
import os
import random
import resource
import signal
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import differential as d  # noqa: E402  (driver, build, jinja, verdict)

DEPTH = int(os.environ.get("DEPTH", "3"))
TIMEOUT = int(os.environ.get("TIMEOUT", "10"))
MEMLIMIT = int(os.environ.get("MEMLIMIT", "3072"))   # MiB of address space

# ---- values -----------------------------------------------------------------

INTS = [0, 1, -1, 2, 3, 4, 5, 7, -7, 10, 16, 42, 100, 255, -128, 1000, 65, 97,
        2 ** 31, 2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63, 2 ** 63, 10 ** 20, -10 ** 20]
SMALL = [0, 1, 2, 3, -1, -2, 4, 5, 10]
FLOATS = [0.0, -0.0, 1e-05, 1.5, -1.5, 0.1, 0.5, 2.5, 2.675, 3.14159, 1e16, 1e22,
          1e-07, 100.0, 123456.789, -0.25, 1e300, 12345678.9, 0.3, 7.0, 1.005, -2.5]
STRS = ["", "a", "abc", "Hello World", "hello world", " padded ", "\t\n x y \n",
        "héllo", "Ünïcödé", "日本語", "😀 emoji", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "it's", 'say "hi"',
        "back\\slash", "line1\nline2\r\nline3\n", "<b>bold</b> &amp; <i>x</i>",
        "a,b,,c", "  ", "ß straße", "ǅungla", "ﬁne", "İstanbul", "123", "-12",
        "0x1f", "0b101", "1e3", " 42 ", "3.5", "007", "user", "assistant", "system",
        "tool", "<|im_start|>", "{name} is {0}", "%s and %d", "ABC def",
        "snake_case_name", "CamelCaseName", "a b  c   d", "tab\there",
        "\u3000wide\u3000", "The quick brown fox jumps over the lazy dog",
        "\x85next\u2028line", "<think>reason</think>\n\nanswer", "a-b_c d.e",
        "x" * 30 + " " + "y" * 30, "Ω≈ç√∫", "ΣΑΣ", "ﬀ", "a&b=c d", "/path?q=1"]
SHORT = ["", "a", "b", "x", " ", ",", "\n", "ab", "é", "😀", "-", "_", "A", "<", ">",
         "user", "</think>", "..."]
KEYS = ["role", "content", "name", "n", "a", "b", "x", "tag", "items", "0", "Name", "B"]
ROLES = ["user", "assistant", "system", "tool", "User", None]
SPECS = ["", ">8", "<6", "^9", "*^9", "08.3f", ".2f", ".0f", ",", "_", "x", "X", "#x",
         "o", "b", "e", ".3e", "g", ".3g", "%", ".1%", "+d", " d", "d", "s", "10s",
         "=+8", "05d", "c", "n", "#o", ".3", "5.1f", "!r", "!s", "!a", "!r:>10",
         ">{w}", ".{p}f"]


class V:
    """Random values, as JSON will carry them."""

    def __init__(self, r):
        self.r = r

    def int(self):
        r = self.r
        return r.choice(INTS) if r.random() < 0.7 else r.randint(-1000, 1000)

    def float(self):
        r = self.r
        return r.choice(FLOATS) if r.random() < 0.8 else round(r.uniform(-100, 100), r.randint(0, 4))

    def str(self):
        r = self.r
        c = r.random()
        if c < 0.75:
            return r.choice(STRS)
        if c < 0.9:
            return r.choice(SHORT)
        return r.choice(STRS) + r.choice(SHORT) + r.choice(STRS)

    def scalar(self):
        r = self.r
        return r.choice([self.int, self.float, self.str, self.str, lambda: None,
                         lambda: r.random() < 0.5])()

    def list(self, kind=None):
        r = self.r
        n = r.choice([0, 1, 2, 3, 3, 4, 5])
        kind = kind or r.choice(["int", "str", "mixed", "float", "num", "list", "rec"])
        if kind == "int":
            return [r.choice(SMALL + [self.int()]) for _ in range(n)]
        if kind == "str":
            return [r.choice(SHORT + STRS[:12]) for _ in range(n)]
        if kind == "float":
            return [self.float() for _ in range(n)]
        if kind == "num":
            return [r.choice([self.int(), self.float(), True]) for _ in range(n)]
        if kind == "list":
            return [self.list(r.choice(["int", "str"])) for _ in range(n)]
        if kind == "rec":
            return self.recs()
        return [self.scalar() for _ in range(n)]

    def dict(self, depth=2):
        r = self.r
        n = r.choice([0, 1, 2, 3, 3, 4])
        dd = {}
        for _ in range(n):
            k = r.choice(KEYS)
            c = r.random()
            if depth > 0 and c < 0.15:
                dd[k] = self.dict(depth - 1)
            elif depth > 0 and c < 0.25:
                dd[k] = self.list(r.choice(["int", "str"]))
            else:
                dd[k] = self.scalar()
        return dd

    def recs(self):
        r = self.r
        out = []
        for _ in range(r.choice([0, 1, 2, 3, 4, 5])):
            rec = {}
            if r.random() < 0.9:
                rec["name"] = r.choice(["a", "B", "b", "A", "c", "", "é", "Z"]) if r.random() < 0.9 else r.choice([None, 1])
            if r.random() < 0.85:
                rec["n"] = r.choice([0, 1, 2, 3, -1, 2.5, 10]) if r.random() < 0.9 else r.choice([None, "1", True])
            if r.random() < 0.6:
                rec["tag"] = r.choice(["x", "y", None, True, False, ""])
            out.append(rec)
        return out

    def message(self):
        r = self.r
        m = {"role": r.choice(ROLES[:4]) if r.random() < 0.95 else r.choice(ROLES)}
        c = r.random()
        if c < 0.7:
            m["content"] = self.str()
        elif c < 0.8:
            m["content"] = None
        elif c < 0.9:
            m["content"] = [{"type": "text", "text": self.str()}]
        if m["role"] == "assistant" and r.random() < 0.4:
            m["tool_calls"] = [{"type": "function", "function": {
                "name": r.choice(["get_weather", "f", "search"]),
                "arguments": r.choice([{"city": "Paris", "n": 3}, {}, '{"q": "x"}',
                                       {"a": [1, 2.5, None, True], "é": "ü"}])}}
                for _ in range(r.randint(1, 2))]
        if m["role"] == "assistant" and r.random() < 0.2:
            m["reasoning_content"] = self.str()
        if m["role"] == "tool" and r.random() < 0.5:
            m["name"] = "get_weather"
        return m

    def messages(self):
        r = self.r
        ms = [self.message() for _ in range(r.choice([0, 1, 2, 3, 4]))]
        if r.random() < 0.4:
            ms.insert(0, {"role": "system", "content": self.str()})
        return ms

    def any(self):
        r = self.r
        return r.choice([self.int, self.float, self.str, self.str, lambda: None,
                         lambda: r.random() < 0.5, self.list, self.dict, self.recs])()


# ---- Jinja literals ---------------------------------------------------------

def lit(v):
    if v is None:
        return "none"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return f"({v})" if v < 0 else str(v)
    if isinstance(v, float):
        s = repr(v)
        return f"({s})" if s.startswith("-") else s
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(lit(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{lit(k)}: {lit(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def positional_first(args):
    """Drops positional arguments after a keyword one (a syntax error)."""
    out, kw = [], False
    for a in args:
        k = a.split("=", 1)[0]
        is_kw = "=" in a and k.isidentifier()
        if kw and not is_kw:
            continue
        kw = kw or is_kw
        out.append(a)
    return out


def prim(e):
    """`e` as a primary (for a filter, attribute, call or subscript after it)."""
    if all(ch.isalnum() or ch in "_." for ch in e) and not e[:1].isdigit():
        return e
    if e[:1] in "([{" and e[-1:] in ")]}" and e.count("(") + e.count("[") + e.count("{") == 1:
        return e
    return f"({e})"


# ---- expressions ------------------------------------------------------------

TESTS0 = ["defined", "undefined", "none", "boolean", "false", "true", "integer", "float",
          "number", "string", "mapping", "iterable", "sequence", "callable", "escaped",
          "odd", "even", "lower", "upper", "filter", "test"]
TESTS1 = ["divisibleby", "sameas", "in", "eq", "ne", "lt", "le", "gt", "ge", "equalto",
          "greaterthan", "lessthan"]
SELTESTS = ["odd", "even", "none", "defined", "undefined", "string", "number", "integer",
            "true", "false", "lower", "upper", "mapping", "sequence", "iterable", "float",
            "boolean", "==", "!=", ">", "<", ">=", "<=", "eq", "ne", "gt", "lt", "ge", "le",
            "equalto", "in", "divisibleby", "sameas"]


class G:
    def __init__(self, r):
        self.r = r
        self.v = V(r)
        self.loopvar = None   # (name, kind) of an enclosing for's target

    def chance(self, p):
        return self.r.random() < p

    def pick(self, *xs):
        return self.r.choice(xs)

    # -- arguments --
    def small(self):
        r = self.r
        c = r.random()
        if c < 0.7:
            return lit(r.choice(SMALL))
        if c < 0.85:
            return "j"
        return lit(r.choice([-5, 6, 8, 20, 0]))

    def sarg(self):
        r = self.r
        c = r.random()
        if c < 0.55:
            return lit(r.choice(SHORT))
        if c < 0.75:
            return lit(r.choice(STRS))
        if c < 0.85:
            return "t"
        return self.S(0)

    def boolarg(self):
        return self.pick("true", "false", "true", "false", "1", "0", "none", "b")

    def kw(self, name, val):
        return f"{name}={val}" if self.chance(0.4) else val

    # -- atoms --
    def atom(self, kind):
        r = self.r
        if kind == "str":
            return self.pick("s", "t", "s", lit(self.v.str()), "d.content", "messages[0].content",
                             "d.name", "(messages|last).role", lit(self.v.str()))
        if kind == "int":
            return self.pick("i", "j", lit(self.v.int()), lit(r.choice(SMALL)), "d.n",
                             "recs[0].n", "l|length", "i")
        if kind == "float":
            return self.pick("f", lit(self.v.float()), "f")
        if kind == "num":
            return self.atom(self.pick("int", "float"))
        if kind == "bool":
            return self.pick("b", "true", "false", "none", "d.flag", "b")
        if kind == "list":
            rng = "range(" + self.small() + ")" + ("|list" if self.chance(0.7) else "")
            return self.pick("l", "ls", "li", lit(self.v.list()), rng,
                             "d.items", "d.b", "[]", "(1, 'a')", "ls")
        if kind == "dict":
            return self.pick("d", lit(self.v.dict(1)), "messages[0]", "recs[0]", "tools[0]",
                             "d", "{}", "dict(a=1, b=" + self.sarg() + ")")
        if kind == "recs":
            return self.pick("recs", "messages", "tools", "recs", lit(self.v.recs()))
        if kind == "undef":
            return self.pick("nothing", "d.missing", "l[10]", "messages[9]", "d.missing.x",
                             "s.nope", "recs[0].missing", "none.x", "d['zz']")
        return self.atom(self.pick("str", "int", "float", "bool", "list", "dict", "recs",
                                   "undef", "str", "int"))

    def any(self, depth):
        kind = self.pick("str", "str", "int", "float", "num", "bool", "list", "dict", "recs",
                         "undef")
        return self.expr(kind, depth)

    def expr(self, kind, depth):
        r = self.r
        if kind == "any":
            kind = self.pick("str", "str", "int", "float", "bool", "list", "dict", "recs", "undef")
        if depth <= 0 or (depth < DEPTH and r.random() < 0.3):
            if self.loopvar and r.random() < 0.3:
                return self.loopvar[0]
            return self.atom(kind)
        if r.random() < 0.06:   # a value of another kind: error paths
            kind = self.pick("str", "int", "float", "bool", "list", "dict", "recs", "undef")
        f = getattr(self, kind.upper() if kind != "undef" else "U")
        return f(depth - 1)

    def S(self, dp):
        return self.expr("str", dp)

    def I(self, dp):
        return self.expr("int", dp)

    def F(self, dp):
        return self.expr("float", dp)

    def N(self, dp):
        return self.expr("num", dp)

    def B(self, dp):
        return self.expr("bool", dp)

    def L(self, dp):
        return self.expr("list", dp)

    def D(self, dp):
        return self.expr("dict", dp)

    def R(self, dp):
        return self.expr("recs", dp)

    # -- producers, by kind --
    def STR(self, dp):
        r = self.r
        x = prim(self.S(dp))
        c = r.randrange(44)
        if c == 0:
            return f"{x}|{self.pick('upper', 'lower', 'capitalize', 'title', 'trim', 'striptags', 'escape', 'e', 'forceescape', 'safe', 'string', 'urlencode', 'reverse', 'first', 'last', 'pprint', 'wordcount')}"
        if c == 1:
            return f"{x}|trim({self.sarg()})"
        if c == 2:
            return f"{x}|center({self.kw('width', self.small())})"
        if c == 3:
            a = [self.kw("width", self.pick("2", "4", "0", "'> '", "j"))] if self.chance(0.8) else []
            if self.chance(0.5):
                a.append("first=" + self.boolarg())
            if self.chance(0.5):
                a.append("blank=" + self.boolarg())
            return f"{x}|indent({', '.join(positional_first(a))})"
        if c == 4:
            a = [self.pick("5", "10", "3", "0", "20", "j", "255")]
            if self.chance(0.5):
                a.append(self.boolarg())
            if self.chance(0.4):
                a.append(self.pick("'...'", "''", "'>'", "' [more]'"))
            if self.chance(0.4):
                a.append(self.pick("0", "1", "5", "none"))
            if self.chance(0.3) and len(a) >= 2:
                a = [a[0], "killwords=" + a[1]] + [f"{k}={v}" for k, v in zip(["end", "leeway"], a[2:])]
            return f"{x}|truncate({', '.join(a)})"
        if c == 5:
            a = [self.pick("5", "10", "3", "1", "20", "j", "79")]
            if self.chance(0.4):
                a.append(self.boolarg())
            if self.chance(0.3):
                a.append(self.pick("'\\n'", "'|'", "none", "'<br>'"))
            if self.chance(0.3):
                a.append(self.boolarg())
            return f"{x}|wordwrap({', '.join(a)})"
        if c == 6:
            a = [self.sarg(), self.sarg()]
            if self.chance(0.3):
                a.append(self.pick("1", "0", "-1", "2", "j"))
            return f"{x}|replace({', '.join(a)})"
        if c == 7:
            fmt = self.pick("'%s'", "'%s-%s'", "'%d'", "'%5.2f'", "'%r'", "'%(a)s'", "'%x %o'",
                            "'%-6s|'", "'%%s %s'", "'%i%%'", "'%c'", "'%e'", "'%+d'", "s")
            args = ", ".join(self.any(dp) for _ in range(r.randint(0, 2)))
            if "(a)" in fmt and self.chance(0.7):
                args = "a=" + self.any(dp)
            return f"{fmt}|format({args})"
        if c == 8:
            return f"{prim(self.L(dp))}|join({self.sarg() if self.chance(0.7) else ''})"
        if c == 9:
            return f"{prim(self.R(dp))}|join({self.sarg()}, attribute={self.pick(repr('name'), repr('n'), repr('role'), repr('tag'))})"
        if c == 10:
            a = []
            if self.chance(0.6):
                a.append(self.kw("indent", self.pick("2", "0", "none", "4", "' '", "'\\t'", "j")))
            if self.chance(0.3):
                a.append("ensure_ascii=" + self.boolarg())
            if self.chance(0.3):
                a.append("sort_keys=" + self.boolarg())
            if self.chance(0.2):
                a.append("separators=" + self.pick("(',', ':')", "(', ', ': ')", "[',', '=']"))
            return f"{prim(self.any(dp))}|tojson({', '.join(a)})"
        if c == 11:
            return f"{prim(self.any(dp))}|string"
        if c == 12:
            a = self.kw("default_value", self.sarg())
            if self.chance(0.4):
                a += (", boolean=" if "=" in a else ", ") + self.boolarg()
            return f"{prim(self.expr(self.pick('undef', 'str', 'undef', 'bool', 'list'), dp))}|{self.pick('default', 'd')}({a})"
        if c == 13:
            m = self.pick("strip", "lstrip", "rstrip")
            a = self.pick("", self.sarg(), "none", "'\\n '", "'é\\n'")
            return f"{x}.{m}({a})"
        if c == 14:
            return f"{x}.{self.pick('upper', 'lower', 'title', 'capitalize', 'swapcase', 'casefold', 'strip', 'lstrip', 'rstrip')}()"
        if c == 15:
            a = [self.sarg(), self.sarg()]
            if self.chance(0.3):
                a.append(self.pick("1", "0", "-1", "2"))
            return f"{x}.replace({', '.join(a)})"
        if c == 16:
            m = self.pick("zfill", "center", "ljust", "rjust", "expandtabs")
            a = [self.small()]
            if m in ("center", "ljust", "rjust") and self.chance(0.5):
                a.append(self.pick("'*'", "'é'", "'ab'", "' '", "'😀'"))
            return f"{x}.{m}({', '.join(a)})"
        if c == 17:
            fmt = self.format_string()
            args = [self.any(dp) for _ in range(r.randint(0, 2))]
            if self.chance(0.3):
                args.append("name=" + self.any(dp))
            return f"{fmt}.format({', '.join(args)})"
        if c == 18:
            return f"{self.sarg()}.join({self.L(dp)})"
        if c == 19:
            return f"{x}[{self.I(dp)}]"
        if c == 20:
            return f"{x}[{self.slice()}]"
        if c in (21, 22, 23):
            return f"{x} ~ {prim(self.any(dp))}"
        if c == 24:
            return f"{x} + {prim(self.S(dp))}"
        if c == 25:
            return f"{x} * {self.small()}"
        if c == 26:
            fmt = self.pick("'%s'", "'%s|%s'", "'%d'", "'%.2f'", "'%r'", "'%(a)s'", "'%5s'", "'%x'", "s")
            a = self.pick(self.any(dp), f"({self.any(dp)}, {self.any(dp)})", "d", f"({self.any(dp)},)")
            return f"{fmt} % {prim(a)}"
        if c == 27:
            return f"({self.S(dp)} if {self.B(dp)} else {self.S(dp)})"
        if c == 28:
            return f"({self.S(dp)} if {self.B(dp)})"
        if c == 29:
            return f"{prim(self.D(dp))}|xmlattr{self.pick('', '(false)', '(true)')}"
        if c == 30:
            return f"{prim(self.expr(self.pick('dict', 'list', 'str', 'recs'), dp))}|urlencode"
        if c == 31:
            return f"{prim(self.any(dp))}|pprint"
        if c == 32:
            return f"{prim(self.D(dp))}.{self.pick(*KEYS)}"
        if c == 33:
            return f"{prim(self.D(dp))}[{lit(r.choice(KEYS))}]"
        if c == 34:
            return f"{prim(self.D(dp))}.get({lit(r.choice(KEYS))}{', ' + self.any(dp) if self.chance(0.5) else ''})"
        if c == 35:
            return f"{prim(self.L(dp))}|{self.pick('first', 'last', 'min', 'max', 'random' if self.chance(0.1) else 'first')}"
        if c == 36:
            a = []
            if self.chance(0.4):
                a.append("case_sensitive=" + self.boolarg())
            if self.chance(0.5):
                a.append("attribute=" + self.pick("'name'", "'n'", "'tag'", "'0'", "'name.0'"))
            return f"{prim(self.expr(self.pick('list', 'recs', 'str'), dp))}|{self.pick('min', 'max')}({', '.join(a)})"
        if c == 37:
            return f"{self.pick('raise_exception', 'raise_exception')}({self.S(dp)})" if self.chance(0.3) else f"{x}|title"
        if c == 38:
            return f"namespace(a={self.any(dp)}, b={self.sarg()}).{self.pick('a', 'b', 'c')}"
        if c == 39:
            return f"{prim(self.any(dp))}|{self.pick('attr', 'attr')}({self.pick(repr('name'), repr('role'), repr('real'), repr('imag'), repr('upper'), repr('n'))})"
        if c == 40:
            return f"{x}.{self.pick('partition', 'rpartition')}({self.sarg()})|join('/')"
        if c == 41:
            return f"{prim(self.any(dp))}|{self.pick('e', 'escape', 'forceescape', 'safe')} ~ {self.pick(lit('<&>'), 's')}"
        if c == 42:
            return f"({prim(self.S(dp))}|{self.pick('e', 'safe', 'escape')}) + {self.pick(lit('<&>'), 's', 'i', '(s|safe)')}"
        return f"{x}.{self.pick('encode', 'format_map', 'translate', 'maketrans', '__class__', 'center', 'removeprefix', 'removesuffix', 'isdigit', 'splitlines')}({self.pick('', self.sarg())})"

    def format_string(self):
        r = self.r
        parts = []
        auto = self.chance(0.6)
        for k in range(r.randint(1, 3)):
            parts.append(r.choice(["", "x", " ", "é", "<", "-"]))
            spec = r.choice(SPECS).replace("{w}", str(r.choice([3, 8]))).replace("{p}", str(r.choice([0, 2])))
            conv = ""
            if spec.startswith("!"):
                conv, _, spec = spec.partition(":")
            fld = "" if auto else str(r.choice([0, 1, 0]))
            if self.chance(0.15):
                fld = r.choice(["name", "0[0]", "0.role", "0.x", "1"])
            parts.append("{" + fld + conv + (":" + spec if spec else "") + "}")
        if self.chance(0.05):
            parts.append(r.choice(["{", "}", "{{", "}}", "{0:{1}}", "{:"]))
        return repr("".join(parts))

    def slice(self):
        b = [self.pick("", "", "0", "1", "-1", "2", "-3", "10", "none", "j", "-10")
             for _ in range(2)]
        s = ":".join(b)
        if self.chance(0.35):
            s += ":" + self.pick("", "2", "-1", "-2", "3", "none", "0" if self.chance(0.1) else "1")
        return s

    def INT(self, dp):
        r = self.r
        c = r.randrange(26)
        if c < 5:
            op = self.pick("+", "-", "*", "//", "%", "+", "-")
            return f"{prim(self.I(dp))} {op} {prim(self.I(dp))}"
        if c == 5:
            return f"{prim(self.I(dp))} ** {self.pick('0', '1', '2', '3', '(-1)', '0.5', '2')}"
        if c == 6:
            return f"-{prim(self.I(dp))}"
        if c == 7:
            return f"{prim(self.expr(self.pick('str', 'list', 'dict', 'recs'), dp))}|{self.pick('length', 'count')}"
        if c == 8:
            a = []
            if self.chance(0.4):
                a.append(self.kw("default", self.pick("0", "-1", "'x'", "none")))
            if self.chance(0.4):
                if not a:
                    a.append("0")
                a.append(self.kw("base", self.pick("16", "2", "8", "0", "10", "36")))
            return f"{prim(self.expr(self.pick('str', 'float', 'int', 'bool', 'undef', 'str'), dp))}|int({', '.join(positional_first(a))})"
        if c == 9:
            return f"{prim(self.N(dp))}|abs"
        if c == 10:
            a = []
            if self.chance(0.4):
                a.append("attribute=" + self.pick("'n'", "'name'", "'tag'"))
            if self.chance(0.3):
                a.append("start=" + self.pick("0", "1", "1.5", "[]", "''"))
            x = self.pick(self.L(dp), "recs", "li", "range(" + self.small() + ")")
            return f"{prim(x)}|sum({', '.join(a)})"
        if c == 11:
            return f"{prim(self.S(dp))}|wordcount"
        if c == 12:
            m = self.pick("find", "rfind", "index", "rindex", "count")
            a = [self.sarg()]
            if self.chance(0.3):
                a.append(self.pick("1", "-2", "0", "none"))
                if self.chance(0.5):
                    a.append(self.pick("3", "-1", "100"))
            return f"{prim(self.S(dp))}.{m}({', '.join(a)})"
        if c == 13:
            return f"{prim(self.L(dp))}.{self.pick('index', 'count')}({self.any(dp)})"
        if c == 14:
            return f"({prim(self.I(dp))} if {self.B(dp)} else {prim(self.I(dp))})"
        if c == 15:
            return f"{prim(self.L(dp))}[{self.I(dp)}]"
        if c == 16:
            return f"{prim(self.expr('list', dp))}|{self.pick('min', 'max', 'first', 'last', 'length')}"
        if c == 17:
            return f"range({', '.join(self.small() for _ in range(r.randint(1, 3)))})|{self.pick('sum', 'list', 'length', 'last', 'join')}"
        if c == 18:
            a = [self.pick('1', '0', '2', '-1')] if self.chance(0.7) else []
            if a and self.chance(0.5):
                a.append(repr(r.choice(['common', 'ceil', 'floor', 'bad'])))
            return f"{prim(self.F(dp))}|round({', '.join(a)})|int"
        if c == 19:
            return f"loop_free is {self.pick('defined', 'undefined')}"
        return f"{prim(self.I(dp))} {self.pick('+', '-', '*')} {prim(self.I(dp))}"

    def FLOAT(self, dp):
        r = self.r
        c = r.randrange(12)
        if c < 4:
            op = self.pick("+", "-", "*", "/", "//", "%", "/", "**")
            rhs = self.pick("2", "0.5", "(-1)", "3") if op == "**" else prim(self.N(dp))
            return f"{prim(self.N(dp))} {op} {rhs}"
        if c == 4:
            a = self.pick("", "1", "default=0.5", "'x'")
            return f"{prim(self.expr(self.pick('str', 'int', 'float', 'undef', 'bool'), dp))}|float({a})"
        if c == 5:
            a = []
            if self.chance(0.6):
                a.append(self.kw("precision", self.pick("0", "1", "2", "3", "-1", "none")))
            if self.chance(0.4):
                if not a:
                    a.append("0")
                a.append(self.kw("method", self.pick("'common'", "'ceil'", "'floor'", "'up'")))
            return f"{prim(self.N(dp))}|round({', '.join(positional_first(a))})"
        if c == 6:
            return f"-{prim(self.F(dp))}"
        if c == 7:
            return f"{prim(self.N(dp))}|abs"
        if c == 8:
            if self.chance(0.1):   # folded at compile time: Jinja writes `inf` into Python
                return f"1e308 * {self.pick('10', '-10')}"
            return f"{self.pick('1e308', '(-1e308)', 'f')} * {self.pick('f', 'i', '(j + 10)')}"
        if c == 9:
            return f"{prim(self.N(dp))} / {prim(self.N(dp))}"
        if c == 10:
            return f"{prim(self.F(dp))}|{self.pick('string', 'int', 'float', 'tojson', 'pprint')}"
        return f"{prim(self.expr(self.pick('list', 'recs'), dp))}|sum({self.pick('', 'start=0.5', 'attribute=' + repr('n'))})"

    def NUM(self, dp):
        return self.INT(dp) if self.chance(0.6) else self.FLOAT(dp)

    def BOOL(self, dp):
        r = self.r
        c = r.randrange(24)
        if c < 4:
            op = self.pick("==", "!=", "<", "<=", ">", ">=", "==", "==")
            k = self.pick("str", "int", "float", "num", "bool", "list", "undef", "dict")
            k2 = k if self.chance(0.75) else self.pick("str", "int", "float", "none", "undef")
            e = f"{prim(self.expr(k, dp))} {op} {prim(self.expr(k2, dp))}"
            if self.chance(0.2):
                e += f" {self.pick('<', '==', '!=', '<=')} {prim(self.expr(k, dp))}"
            return e
        if c < 7:
            t = r.choice(TESTS0)
            neg = "not " if self.chance(0.25) else ""
            return f"{prim(self.any(dp))} is {neg}{t}"
        if c < 9:
            t = r.choice(TESTS1)
            arg = {"divisibleby": self.pick("2", "3", "0", "j", "1.5")}.get(t) or self.any(dp)
            form = f"({arg})" if self.chance(0.5) or t in ("in",) else f" {prim(arg)}"
            return f"{prim(self.any(dp))} is {t}{form}"
        if c < 12:
            k = self.pick("str", "list", "dict", "recs", "str")
            lhs = {"str": self.sarg(), "list": self.any(dp), "dict": lit(r.choice(KEYS)),
                   "recs": self.D(dp)}[k] if self.chance(0.85) else self.any(dp)
            return f"{prim(lhs)} {self.pick('in', 'not in')} {prim(self.expr(k, dp))}"
        if c < 15:
            op = self.pick("and", "or")
            return f"{prim(self.any(dp))} {op} {prim(self.any(dp))}"
        if c == 15:
            return f"not {prim(self.any(dp))}"
        if c == 16:
            m = self.pick("startswith", "endswith")
            a = self.pick(self.sarg(), f"({self.sarg()}, {self.sarg()})", "['a']", "1")
            extra = self.pick("", "", ", 1", ", -3, 5")
            return f"{prim(self.S(dp))}.{m}({a}{extra})"
        if c == 17:
            m = self.pick("isdigit", "isalpha", "isspace", "isalnum", "isupper", "islower",
                          "istitle", "isdecimal", "isnumeric", "isidentifier", "isprintable",
                          "isascii")
            return f"{prim(self.S(dp))}.{m}()"
        if c == 18:
            return f"({prim(self.B(dp))} if {self.B(dp)} else {prim(self.B(dp))})"
        if c == 19:
            return f"{prim(self.any(dp))}|{self.pick('list', 'length')} {self.pick('>', '==')} 0"
        if c == 20:
            return f"{prim(self.R(dp))}|selectattr({self.pick(repr('tag'), repr('n'), repr('name'))})|list|length > 0"
        return f"{prim(self.expr('dict', dp))}.{self.pick('role', 'content', 'tool_calls', 'n', 'a')} {self.pick('is defined', 'is not none', '== ' + repr('user'), 'is string')}"

    def NONE(self, dp):
        return self.pick("none", "None", "d.missing", "n")

    def LIST(self, dp):
        r = self.r
        x = prim(self.L(dp))
        c = r.randrange(34)
        if c < 2:
            a = []
            if self.chance(0.4):
                a.append(self.kw("reverse", self.boolarg()))
            if self.chance(0.3):
                a.append("case_sensitive=" + self.boolarg())
            if self.chance(0.4):
                a.append("attribute=" + self.pick("'name'", "'n'", "'tag'", "'n,name'", "'0'", "'name.0'"))
            src = x if self.chance(0.6) else prim(self.R(dp))
            return f"{src}|sort({', '.join(a)})"
        if c == 2:
            a = []
            if self.chance(0.4):
                a.append("case_sensitive=" + self.boolarg())
            if self.chance(0.3):
                a.append("attribute=" + self.pick("'name'", "'n'", "'tag'"))
            return f"{self.pick(x, prim(self.R(dp)), prim(self.S(dp)))}|unique({', '.join(a)})|list"
        if c == 3:
            return f"{x}|reverse|list"
        if c in (4, 5):
            how = self.pick(*(["'upper'", "'lower'", "'string'", "'int'", "'length'", "'trim'", "'abs'",
                               "'float'", "'tojson'", "'title'", "'e'", "'first'"] +
                              ["'round', 1", "'default', 'x'", "'replace', 'a', 'b'", "'join', '-'",
                               "'truncate', 3", "'nosuch'"]))
            if self.chance(0.35):
                how = "attribute=" + self.pick("'name'", "'n'", "'tag'", "'role'", "'name.0'", "'0'")
                if self.chance(0.4):
                    how += ", default=" + self.sarg()
                src = prim(self.R(dp))
            else:
                src = x
            return f"{src}|map({how})|list"
        if c in (6, 7):
            f = self.pick("select", "reject")
            t = r.choice(SELTESTS)
            a = repr(t)
            if t in ("==", "!=", ">", "<", ">=", "<=", "eq", "ne", "gt", "lt", "ge", "le",
                     "equalto", "divisibleby", "sameas"):
                a += ", " + self.pick("1", "2", "'a'", "none", "0", "j")
            elif t == "in":
                a += ", " + self.pick("[1, 2]", "'abc'", "ls")
            if self.chance(0.1):
                a = ""
            return f"{x}|{f}({a})|list"
        if c in (8, 9):
            f = self.pick("selectattr", "rejectattr")
            a = self.pick("'name'", "'n'", "'tag'", "'role'", "'content'")
            if self.chance(0.6):
                t = self.pick("'defined'", "'none'", "'equalto'", "'==', 'a'", "'ne', 1", "'string'",
                              "'odd'", "'gt', 1", "'in', ['a', 'b']", "'true'", "'undefined'")
                if t == "'equalto'":
                    t += ", " + self.pick("'a'", "1", "'user'", "none")
                a += ", " + t
            return f"{prim(self.R(dp))}|{f}({a})|list"
        if c == 10:
            a = [self.pick("1", "2", "3", "0", "j")]
            if self.chance(0.4):
                a.append(self.kw("fill_with", self.pick("none", "'-'", "0")))
            return f"{x}|{self.pick('batch', 'slice')}({', '.join(a)})|list"
        if c == 11:
            return f"{prim(self.S(dp))}|list"
        if c in (12, 13):
            m = self.pick("split", "rsplit", "split", "splitlines")
            if m == "splitlines":
                a = self.pick("", "true", "false", "keepends=true")
            else:
                a = self.pick("", self.sarg(), "none", f"{self.sarg()}, {self.pick('1', '0', '-1', '2')}",
                              f"maxsplit={self.pick('1', '2')}", f"sep={self.sarg()}")
            return f"{prim(self.S(dp))}.{m}({a})"
        if c == 14:
            a = []
            if self.chance(0.4):
                a.append("case_sensitive=" + self.boolarg())
            if self.chance(0.4):
                a.append("by=" + self.pick("'key'", "'value'", "'both'", "'values'"))
            if self.chance(0.3):
                a.append("reverse=" + self.boolarg())
            return f"{prim(self.D(dp))}|dictsort({', '.join(a)})"
        if c == 15:
            return f"{prim(self.D(dp))}|items|list"
        if c == 16:
            return f"{prim(self.D(dp))}.{self.pick('items', 'keys', 'values')}()|list"
        if c == 17:
            a = self.pick("'name'", "'n'", "'tag'", "'role'")
            if self.chance(0.3):
                a += ", default=" + self.sarg()
            if self.chance(0.2):
                a += ", case_sensitive=" + self.boolarg()
            return f"{prim(self.R(dp))}|groupby({a})" + self.pick("", "|list", "|map(attribute='grouper')|list", "|map('last')|list")
        if c == 18:
            return f"{x} + {prim(self.L(dp))}"
        if c == 19:
            return f"{x} * {self.small()}"
        if c == 20:
            return f"{x}[{self.slice()}]"
        if c == 21:
            return f"range({', '.join(self.small() for _ in range(r.randint(1, 3)))})|list"
        if c == 22:
            return "[" + ", ".join(self.any(dp) for _ in range(r.randint(0, 3))) + "]"
        if c == 23:
            return f"{prim(self.any(dp))}|list"
        if c == 24:
            return f"({self.L(dp)} if {self.B(dp)} else {self.L(dp)})"
        if c == 25:
            tail = self.pick("join(',')", "list|sort", "unique|list", "sum", "max")
            return f"{prim(self.R(dp))}|map(attribute={self.pick(repr('name'), repr('n'))})|{tail}"
        if c == 26:
            return f"{x}.{self.pick('append', 'pop', 'sort', 'copy', 'clear', 'extend', 'reverse', 'insert')}({self.pick('', '1', '0, 1')})"
        return f"{prim(self.S(dp))}.split({self.pick('', self.sarg())})"

    def DICT(self, dp):
        r = self.r
        c = r.randrange(10)
        if c < 3:
            return "{" + ", ".join(f"{lit(r.choice(KEYS))}: {self.any(dp)}" for _ in range(r.randint(0, 3))) + "}"
        if c == 3:
            keys = r.sample(KEYS[:8], r.randint(0, 2))   # a repeated keyword is a SyntaxError
            return f"dict({', '.join(f'{k}={self.any(dp)}' for k in keys)})"
        if c == 4:
            return f"{prim(self.R(dp))}[{self.I(dp)}]"
        if c == 5:
            return f"{prim(self.R(dp))}|{self.pick('first', 'last')}"
        if c == 6:
            return f"{prim(self.D(dp))}.copy()"
        if c == 7:
            return f"{prim(self.D(dp))}.{self.pick('update', 'pop', 'setdefault', 'clear')}({self.pick('', repr('a'), 'd')})"
        return f"{prim(self.D(dp))}.get({lit(r.choice(KEYS))}, {self.D(dp)})"

    def RECS(self, dp):
        r = self.r
        c = r.randrange(6)
        if c == 0:
            return f"{prim(self.R(dp))}|selectattr({self.pick(repr('name'), repr('tag'))})|list"
        if c == 1:
            return f"{prim(self.R(dp))}|sort(attribute={self.pick(repr('name'), repr('n'))})"
        if c == 2:
            return f"{prim(self.R(dp))}[{self.slice()}]"
        if c == 3:
            return f"{prim(self.R(dp))}|rejectattr('role', 'equalto', 'system')|list"
        if c == 4:
            return f"{prim(self.R(dp))}|reverse|list"
        return f"{prim(self.R(dp))} + [{self.D(dp)}]"

    def U(self, dp):
        r = self.r
        u = self.atom("undef")
        c = r.randrange(10)
        if c == 0:
            return f"{u} + {self.pick('1', 's', 'l')}"
        if c == 1:
            return f"{u}.{self.pick('x', 'role', 'items')}"
        if c == 2:
            return f"{u}[{self.pick('0', repr('a'), '1:')}]"
        if c == 3:
            return f"{u}|{self.pick('length', 'upper', 'list', 'join', 'string', 'int', 'tojson', 'first', 'trim', 'sort', 'default')}"
        if c == 4:
            return f"{u}()"
        if c == 5:
            return f"{u} ~ 'x'"
        if c == 6:
            return f"{u} {self.pick('==', '!=', '<', 'in')} {self.any(dp)}"
        if c == 7:
            return f"[{u}]"
        if c == 8:
            return f"{u} is {self.pick('defined', 'none', 'string', 'iterable', 'mapping')}"
        return u

    # -- templates --
    def output(self, dp):
        r = self.r
        c = r.random()
        if c < 0.18:
            return "{{ " + self.S(dp) + " }}"
        if c < 0.3:
            return "{{ " + self.expr(self.pick("int", "float", "num"), dp) + " }}"
        if c < 0.42:
            return "{{ " + self.B(dp) + " }}"
        if c < 0.6:
            return "{{ " + self.L(dp) + " }}"
        if c < 0.68:
            return "{{ " + self.D(dp) + " }}"
        if c < 0.75:
            return "{{ " + self.U(dp) + " }}"
        return "{{ " + self.any(dp) + " }}"

    def chat(self):
        """Idioms of real chat templates."""
        r = self.r
        head = self.pick("{% for message in messages %}", "{% for message in messages if message.role != 'system' %}",
                         "{% for message in messages[1:] %}", "{% for message in messages|reverse %}")
        body = r.choice([
            "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] | trim + '<|im_end|>\\n' }}",
            "{{ message.role }}: {{ message.content }}\n",
            "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for c in message['content'] %}{{ c.text }}{% endfor %}{% endif %}",
            "{% if message.tool_calls %}{% for tc in message.tool_calls %}{{ tc.function.name }}{{ tc.function.arguments | tojson }}"
            "{% if tc.function.arguments is string %}S{% endif %}{% endfor %}{% endif %}",
            "{% set content = message.content %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1].lstrip('\\n') %}{% endif %}[{{ content }}]",
            "{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{% if loop.last and message.role == 'assistant' %}!{% endif %}",
            "{% if (message.role == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}",
            "{{ message.content|default('', true)|string|length }}",
            "{% if message.reasoning_content is defined and message.reasoning_content %}<think>{{ message.reasoning_content.strip() }}</think>{% endif %}",
            "{{ (message.content or '')|replace('\\n', ' ')|truncate(12) }}",
            "{{ message|dictsort|map('first')|join(',') }}",
            "{{ message.get('name', 'anon') }}{{ message.keys()|list|length }}",
            None,
        ])
        if body is None:
            self.loopvar = ("message.content", "str")
            body = "{{ " + self.S(2) + " }}"
            self.loopvar = None
        tail = self.pick("{% endfor %}", "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
                         "{% else %}empty{% endfor %}")
        pre = self.pick("", "{% if messages[0]['role'] == 'system' %}{% set sys = messages[0]['content'] %}{% endif %}[{{ sys }}]",
                        "{% set ns = namespace(last=-1, n=0) %}",
                        "{% if tools %}{{ tools|tojson(indent=2) }}{% for t in tools %}{{ t.function.name if t.function is defined else t.name }}{% endfor %}{% endif %}",
                        "{{ bos_token }}", "{{ (messages|selectattr('role', 'equalto', 'user')|list|length) }}|")
        post = self.pick("", "{{ ns.n }}", "{{ messages|length }}", "{{ (messages|last).content if messages }}")
        if pre.startswith("{% set ns"):
            body += "{% set ns.n = ns.n + 1 %}{% if message.role == 'user' %}{% set ns.last = loop.index0 %}{% endif %}"
            post = "{{ ns.n }}/{{ ns.last }}"
        return pre + head + body + tail + post

    def template(self):
        r = self.r
        self.loopvar = None
        c = r.random()
        if c < 0.45:
            return self.output(DEPTH)
        if c < 0.6:
            return "|".join(self.output(DEPTH - 1) for _ in range(r.randint(2, 3)))
        if c < 0.7:
            s = f"{{% if {self.B(DEPTH)} %}}T{self.output(1)}"
            if self.chance(0.4):
                s += f"{{% elif {self.B(DEPTH - 1)} %}}E"
            return s + "{% else %}F{% endif %}"
        if c < 0.78:
            return f"{{% set v = {self.any(DEPTH)} %}}{{{{ v }}}}|{{{{ v is defined }}}}|{self.pick('{{ v|length }}', '{{ v ~ v }}', '{{ v[0] }}', '{{ v|string|length }}')}"
        if c < 0.86:
            kind = self.pick("strs", "ints", "recs", "list")
            it = {"strs": self.pick("ls", "s.split()", "['a', 'B', 'é']", "s"),
                  "ints": self.pick("li", "range(" + self.small() + ")", "[1, 2, 3]"),
                  "recs": self.pick("recs", "messages", "tools"),
                  "list": self.pick("l", "d", "d.items()", "d|dictsort")}[kind]
            self.loopvar = ("x", {"strs": "str", "ints": "int", "recs": "dict", "list": "any"}[kind])
            e = self.expr(self.loopvar[1], DEPTH - 1)
            sep = self.pick(",", "{{ ',' if not loop.last }}", "{{ loop.index }};")
            flt = f" if {self.B(1)}" if self.chance(0.2) else ""
            return f"{{% for x in {it}{flt} %}}{{{{ {e} }}}}{sep}{{% else %}}none{{% endfor %}}"
        if c < 0.95:
            return self.chat()
        g = self.pick(
            f"{{% set c = cycler({self.sarg()}, {self.any(1)}) %}}{{{{ c.next() }}}}{{{{ c.next() }}}}{{{{ c.next() }}}}{{{{ c.current }}}}",
            f"{{% set jn = joiner({self.sarg()}) %}}{{% for x in {self.L(1)} %}}{{{{ jn() }}}}{{{{ x }}}}{{% endfor %}}",
            f"{{% set ns = namespace(a={self.any(1)}) %}}{{% set ns.a = {self.any(1)} %}}{{{{ ns.a }}}}{{{{ ns.b is defined }}}}",
            f"{{{{ range({', '.join(self.small() for _ in range(r.randint(1, 3)))})|list }}}}",
            f"{{{{ dict({self.pick('a=1', 'b=s', '', 'a=l, b=d')}) }}}}",
            f"{{{{ raise_exception({self.S(1)}) }}}}")
        return g

    def vars(self):
        r = self.r
        v = self.v
        out = {
            "s": v.str(), "t": r.choice(SHORT + STRS[:10]), "i": v.int(), "j": r.choice(SMALL),
            "f": v.float(), "b": r.random() < 0.5, "n": None, "l": v.list(),
            "ls": v.list("str"), "li": v.list(r.choice(["int", "num", "float"])), "d": v.dict(),
            "recs": v.recs(), "messages": v.messages(),
            "tools": [{"type": "function", "function": {"name": r.choice(["get_weather", "f"]),
                                                        "description": v.str(),
                                                        "parameters": {"type": "object", "properties": {}}}}
                      for _ in range(r.choice([0, 0, 1, 2]))],
        }
        for k, make in (("content", v.str), ("name", v.str), ("n", v.int), ("flag", lambda: r.random() < 0.5),
                        ("b", lambda: v.list("int"))):
            if r.random() < 0.6:
                out["d"][k] = make()
        for k in list(out):
            c = r.random()
            if c < 0.06:
                out[k] = v.any()
            elif c < 0.09:
                del out[k]
        if r.random() < 0.5:
            out["add_generation_prompt"] = r.random() < 0.7
        if r.random() < 0.3:
            out["bos_token"] = "<s>"
        return out


def gen_case(r):
    g = G(r)
    src = g.template()
    vars_ = json.loads(json.dumps(g.vars()))   # what JSON carries, exactly
    return src, vars_


VIEWS = ("dict_items", "dict_keys", "dict_values")


def classify(j, t):
    if "unsupported" not in t:
        text = j.get("out", "") + j.get("error", "")
        if any(v in text for v in VIEWS):
            return "known"    # Python's dict views; tally's are lists
    return d.verdict(j, t)


class Timeout(BaseException):   # not an Exception: differential.jinja catches those
    pass


def on_alarm(signum, frame):
    raise Timeout()


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    out = sys.argv[3] if len(sys.argv) > 3 else "differential-expr-mismatches.jsonl"
    if not os.path.exists("build/release/libtally.a"):
        sys.exit("run from the project root after `make all`")
    r = random.Random(seed)
    counts = {}
    signal.signal(signal.SIGALRM, on_alarm)
    # `'ab' * n` with a big n: Python allocates it; a MemoryError beats swapping
    # (the driver inherits the limit)
    resource.setrlimit(resource.RLIMIT_AS, (MEMLIMIT << 20, MEMLIMIT << 20))
    warnings.simplefilter("ignore")   # CPython's SyntaxWarnings on Jinja's generated code
    with tempfile.TemporaryDirectory() as tmp, open(out, "w") as mm:
        t = d.Tally(d.build(tmp))
        for i in range(n):
            src, vars_ = gen_case(r)
            signal.alarm(TIMEOUT)
            try:
                j = d.jinja(src, json.loads(json.dumps(vars_)))   # a template may pop a list
            except Timeout:
                j = {"timeout": True}
            signal.alarm(TIMEOUT)
            try:
                tt = t.run(src, vars_)
            except Timeout:
                tt = {"timeout": True}
            except (UnicodeDecodeError, ValueError) as e:   # not UTF-8, or not JSON
                tt = {"bad_output": str(e)}
            signal.alarm(0)
            if "timeout" in tt or "bad_output" in tt:
                if t.p is not None:
                    t.p.kill()
                    t.p.wait()
                t.p = None
            v = classify(j, tt)
            counts[v] = counts.get(v, 0) + 1
            if v == "mismatch":
                mm.write(json.dumps({"i": i, "template": src, "vars": vars_, "jinja": j, "tally": tt},
                                    ensure_ascii=False) + "\n")
                mm.flush()
    print(json.dumps(counts, sort_keys=True))
    return 1 if counts.get("mismatch") else 0


if __name__ == "__main__":
    sys.exit(main())
