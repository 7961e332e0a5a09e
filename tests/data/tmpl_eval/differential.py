#!/usr/bin/python3
"""Randomized differential test of the template evaluator's scoping against
Jinja2 3.1.2 in transformers' environment (the oracle's TemplateEnv): small
random templates built from set, set blocks, namespaces, for (filters,
recursive, else, break/continue, loop.*), if/elif/else, macros (defaults,
caller, varargs, kwargs, stored and called later), call blocks, with and
filter blocks are rendered by both; outputs, or exception classes and
messages, must agree. Prints a summary and writes the disagreements, one
JSON line each, to the file given (default: differential-mismatches.jsonl).

Run from the project root after `make all`:
    /usr/bin/python3 tests/data/tmpl_eval/differential.py [COUNT] [SEED] [OUT]

Builds a small C driver against build/release/libtally.a in a temporary
directory. The known difference it still finds (tests/data/tmpl_eval/README.md):
Python's own SyntaxError suffix "(<template>, line N)" for a break outside a
loop (N is a line of Jinja's generated Python).
Environment: DEPTH (statement nesting, 4), MAXLEN (template length, 400).
"""
import datetime
import json
import os
import random
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
shared = os.environ.get("TALLY_SHARED", os.path.join(here, "..", "..", "..", "..", "shared"))
sys.path.insert(0, os.path.join(shared, "oracle"))
import oracle  # noqa: E402  (the oracle's environment, unmodified)
import jinja2  # noqa: E402

assert jinja2.__version__ == "3.1.2", jinja2.__version__

DEPTH = int(os.environ.get("DEPTH", "4"))
MAXLEN = int(os.environ.get("MAXLEN", "400"))
TENV = oracle.TemplateEnv(datetime.datetime.fromisoformat("2025-01-15T12:00:00"))

DRIVER = r"""
/* driver: reads JSON lines {"template": s, "vars": {...}} on stdin; writes one
 * JSON line per case: {"out": s} | {"error_type": s, "error": s} | {"unsupported": s} */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/base/arena.h"
#include "src/base/buf.h"
#include "src/json/json.h"
#include "src/tmpl/tmpl.h"

static void jstr(const char *s, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { putchar('\\'); putchar(c); }
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

int main(void)
{
    static char line[1 << 20];
    while (fgets(line, sizeof line, stdin)) {
        size_t ln = strlen(line);
        while (ln && (line[ln - 1] == '\n' || line[ln - 1] == '\r')) line[--ln] = 0;
        if (!ln) continue;
        arena perm, scratch;
        arena_init(&perm, 0);
        arena_init(&scratch, 0);
        err e;
        json *c = json_parse(&perm, str_from(line, (iz)ln), NULL, &e);
        if (!c) { printf("{\"unsupported\":\"bad input json\"}\n"); fflush(stdout); continue; }
        const json *tsrc = json_get_type(c, S("template"), JSON_STR);
        const json *vars = json_get_type(c, S("vars"), JSON_OBJ);
        tmpl_diag d;
        memset(&d, 0, sizeof d);
        err ce;
        memset(&ce, 0, sizeof ce);
        tmpl_prog *p = tmpl_compile(&perm, tsrc->u.s, &ce, &d);
        if (!p) {
            if (d.kind) { printf("{\"error_type\":"); jstr(d.kind, strlen(d.kind)); printf(",\"error\":"); jstr(ce.msg, strlen(ce.msg)); printf("}\n"); }
            else { printf("{\"unsupported\":"); jstr(ce.msg, strlen(ce.msg)); printf("}\n"); }
        } else {
            i32 n = vars ? (i32)vars->u.obj.n : 0;
            tmpl_var *v = n ? NEW(&perm, tmpl_var, n) : NULL;
            for (i32 i = 0; i < n; i++) {
                v[i].name = vars->u.obj.members[i].key;
                v[i].value = &vars->u.obj.members[i].val;
            }
            tmpl_render_opts o = {.now = 1736942400};
            buf out = {0};
            tmpl_error te;
            memset(&te, 0, sizeof te);
            int rc = tmpl_render(p, v, n, &o, &scratch, &out, &te);
            if (rc == 0) { printf("{\"out\":"); jstr((const char *)out.data, (size_t)out.len); printf("}\n"); }
            else if (te.exc) { printf("{\"error_type\":"); jstr(te.exc, strlen(te.exc)); printf(",\"error\":"); jstr(te.msg, strlen(te.msg)); printf("}\n"); }
            else { printf("{\"unsupported\":"); jstr(te.msg, strlen(te.msg)); printf("}\n"); }
            buf_free(&out);
        }
        fflush(stdout);
        arena_fini(&perm);
        arena_fini(&scratch);
    }
    return 0;
}
"""

NAMES = ["x", "y", "z", "ns", "m", "loop", "caller", "kwargs", "varargs", "items", "a", "b"]
COMMON = ["x", "y", "z", "a", "b", "m", "items"]
VARVALS = {
    "x": [1, "X", [1, 2]],
    "y": ["Y", 2],
    "z": [[3, 4], 0],
    "ns": [{"a": 5}],
    "m": ["M"],
    "loop": ["L"],
    "caller": ["C"],
    "kwargs": [{"k": 1}],
    "varargs": [[7]],
    "items": [[1, 2, 3], []],
    "a": ["A"],
    "b": [9],
}


class G:
    def __init__(self, r):
        self.r = r
        self.macros = {}  # name -> nparams

    def name(self):
        r = self.r
        return r.choice(COMMON) if r.random() < 0.7 else r.choice(NAMES)

    def atom(self, ctx):
        r = self.r
        c = r.random()
        if c < 0.35:
            return self.name()
        if c < 0.5:
            return str(r.randint(0, 3))
        if c < 0.6:
            return repr(r.choice(["s", "t", ""]))
        if c < 0.68 and ctx.get("loop"):
            return r.choice(["loop.index", "loop.last", "loop.length", "loop.previtem",
                             "loop.nextitem", "loop.cycle('a','b')", "loop.first", "loop.depth"])
        if c < 0.74 and (ctx.get("ns_ok") or self.r.random() < 0.3):
            return "ns.a"
        if c < 0.8 and ctx.get("macro"):
            return r.choice(["caller()", "varargs", "kwargs", "varargs|length", "kwargs|length"])
        if c < 0.9 and self.macros:
            m = r.choice(list(self.macros))
            return self.call_expr(m, ctx)
        return self.name() + " is defined"

    def call_expr(self, m, ctx):
        r = self.r
        n = r.randint(0, self.macros.get(m, 1) + (1 if r.random() < 0.2 else 0))
        args = [self.simple(ctx) for _ in range(n)]
        if r.random() < 0.1:
            args.append("k=1")
        return f"{m}({', '.join(args)})"

    def simple(self, ctx):
        r = self.r
        c = r.random()
        if c < 0.5:
            return self.name()
        if c < 0.8:
            return str(r.randint(0, 3))
        return repr(r.choice(["s", "t"]))

    def expr(self, ctx):
        r = self.r
        c = r.random()
        a = self.atom(ctx)
        if c < 0.6:
            return a
        if c < 0.75:
            return f"{a} ~ {self.atom(ctx)}"
        if c < 0.85:
            return f"({a}) if {self.cond(ctx)} else {self.simple(ctx)}"
        if c < 0.92:
            return f"[{a}, {self.simple(ctx)}]"
        return f"{a}|default({self.simple(ctx)})"

    def cond(self, ctx):
        r = self.r
        c = r.random()
        if c < 0.3:
            return self.name() + " is defined"
        if c < 0.5:
            return self.name()
        if c < 0.65 and ctx.get("loop"):
            return r.choice(["loop.first", "loop.last", "loop.index > 1", "loop.index is odd"])
        if c < 0.8:
            return f"{self.name()} is not defined"
        if c < 0.9:
            return "ns.a > 0"
        return r.choice(["true", "false"])

    def iterable(self, ctx):
        r = self.r
        return r.choice(["[1, 2, 3]", "items", "[]", "range(3)", "'ab'", "[x, y]", "z",
                         "[0, 1]", "x", "varargs", "[[1, 2], [3, 4]]"])

    def output(self, ctx):
        r = self.r
        c = r.random()
        if c < 0.3:
            return "{{ " + self.name() + " }}"
        if c < 0.5:
            return "{{ " + self.name() + " is defined }}"
        if c < 0.65:
            return "{{ " + self.name() + " ~ '' }}"
        return "{{ " + self.expr(ctx) + " }}"

    def block(self, depth, ctx, n=None):
        r = self.r
        if n is None:
            n = r.randint(1, 3 if depth > 0 else 2)
        return "".join(self.stmt(depth, ctx) for _ in range(n))

    def stmt(self, depth, ctx):
        r = self.r
        weights = [("out", 4), ("set", 4), ("text", 1)]
        if depth > 0:
            weights += [("for", 3), ("if", 3), ("macro", 2), ("with", 1),
                        ("filter", 0.7), ("setblock", 1)]
        if ctx.get("loop"):
            weights += [("break", 0.5), ("continue", 0.5), ("recur", 0.8 if ctx.get("recursive") else 0)]
        if ctx.get("ns_ok") or r.random() < 0.2:
            weights += [("nsset", 1)]
        if self.macros:
            weights += [("callm", 1.5), ("store", 0.7)]
            if depth > 0:
                weights += [("call", 1.5)]
        tot = sum(w for _, w in weights)
        x = r.random() * tot
        for k, w in weights:
            x -= w
            if x <= 0:
                break
        d = depth - 1
        if k == "out":
            return self.output(ctx)
        if k == "text":
            return "|"
        if k == "set":
            c = r.random()
            if c < 0.15:
                ctx["ns_ok"] = True
                return "{% set ns = namespace(a=0) %}"
            if c < 0.3:
                return f"{{% set {self.name()}, {self.name()} = {self.simple(ctx)}, {self.simple(ctx)} %}}"
            return f"{{% set {self.name()} = {self.expr(ctx)} %}}"
        if k == "nsset":
            if self.macros and self.r.random() < 0.4:
                m = self.r.choice(list(self.macros))
                self.macros["ns.f"] = self.macros[m]
                return f"{{% set ns.f = {m} %}}"
            return f"{{% set ns.a = {self.expr(ctx)} %}}"
        if k == "store":
            m = self.r.choice(list(self.macros))
            l = self.r.choice(["L", "x", "z"])
            self.macros[l + "[0]"] = self.macros[m]
            return f"{{% set {l} = [{m}] %}}"
        if k == "setblock":
            flt = " | upper" if r.random() < 0.2 else ""
            return f"{{% set {self.name()}{flt} %}}{self.block(d, dict(ctx))}{{% endset %}}"
        if k == "for":
            if r.random() < 0.15:
                tgt = f"{self.name()}, {self.name()}"
                it = "[[1, 2], [3, 4]]"
            else:
                tgt = r.choice(COMMON + ["loop"] if r.random() < 0.1 else COMMON)
                it = self.iterable(ctx)
            rec = r.random() < 0.2
            if rec:
                it = r.choice(["[[1, [2]], 3]", "[1, [2, [3]]]", "[[1], 2]"])
                tgt = self.name()
            filt = f" if {self.cond(dict(ctx, loop=False))}" if r.random() < 0.25 else ""
            inner = dict(ctx, loop=True, recursive=rec, rtgt=tgt)
            body = self.block(d, inner)
            els = "{% else %}" + self.block(d, dict(ctx)) if r.random() < 0.3 else ""
            return f"{{% for {tgt} in {it}{filt}{' recursive' if rec else ''} %}}{body}{els}{{% endfor %}}"
        if k == "recur":
            t = ctx.get("rtgt", "x")
            return f"{{% if {t} is iterable %}}{{{{ loop({t}) }}}}{{% endif %}}"
        if k == "break":
            return "{% break %}"
        if k == "continue":
            return "{% continue %}"
        if k == "if":
            s = f"{{% if {self.cond(ctx)} %}}{self.block(d, dict(ctx))}"
            if r.random() < 0.4:
                s += f"{{% elif {self.cond(ctx)} %}}{self.block(d, dict(ctx))}"
            if r.random() < 0.5:
                s += f"{{% else %}}{self.block(d, dict(ctx))}"
            return s + "{% endif %}"
        if k == "macro":
            mname = r.choice(["m", "m", "f", "x", "caller", "loop"])
            np = r.randint(0, 2)
            params = []
            pool = ["a", "b", "x", "y", "varargs", "kwargs", "caller", "loop"]
            for i in range(np):
                p = r.choice(pool)
                if p in [q.split("=")[0] for q in params]:
                    continue
                if r.random() < 0.5 or (params and "=" in params[-1]):
                    p += "=" + self.simple(ctx)
                params.append(p)
            body = self.block(d, dict(ctx, macro=True, loop=False, recursive=False))
            self.macros[mname] = len(params)
            return f"{{% macro {mname}({', '.join(params)}) %}}{body}{{% endmacro %}}"
        if k == "callm":
            m = r.choice(list(self.macros))
            return "{{ " + self.call_expr(m, ctx) + " }}"
        if k == "call":
            m = r.choice(list(self.macros))
            args = "(" + r.choice(["a", "x", "a, b", "loop"]) + ")" if r.random() < 0.4 else ""
            body = self.block(d, dict(ctx))
            return f"{{% call{args} {self.call_expr(m, ctx)} %}}{body}{{% endcall %}}"
        if k == "with":
            n = r.randint(1, 2)
            asg = ", ".join(f"{self.name()} = {self.expr(ctx)}" for _ in range(n))
            return f"{{% with {asg} %}}{self.block(d, dict(ctx))}{{% endwith %}}"
        if k == "filter":
            return f"{{% filter upper %}}{self.block(d, dict(ctx))}{{% endfilter %}}"
        raise AssertionError(k)


def gen_case(r):
    while True:
        g = G(r)
        ctx = {}
        pre = ""
        if r.random() < 0.5:
            ctx["ns_ok"] = True
            pre = "{% set ns = namespace(a=0) %}"
        src = pre + g.block(DEPTH, ctx, n=r.randint(2, 4))
        if r.random() < 0.5 and g.macros:
            src += "|{{ " + g.call_expr(r.choice(list(g.macros)), {}) + " }}"
        if len(src) < MAXLEN:
            break
    vars_ = {}
    for n, vals in VARVALS.items():
        if r.random() < 0.3:
            vars_[n] = r.choice(vals)
    return src, vars_


def jinja(src, vars_):
    try:
        return {"out": TENV.compile(src).render(**vars_)}
    except RecursionError as e:
        return {"error_type": "RecursionError", "error": str(e)}
    except Exception as e:  # noqa: BLE001 - errors are expected data
        return {"error_type": type(e).__name__, "error": str(e)}


def build(tmp):
    src = os.path.join(tmp, "driver.c")
    with open(src, "w") as f:
        f.write(DRIVER)
    exe = os.path.join(tmp, "driver")
    libs = subprocess.run(["pkg-config", "--libs", "libpcre2-8", "libutf8proc"], check=True,
                          capture_output=True, text=True).stdout.split()
    subprocess.run(["gcc", "-std=c11", "-D_DEFAULT_SOURCE", "-O1", "-g", "-I.", src,
                    "build/release/libtally.a"] + libs + ["-lm", "-lpthread", "-o", exe], check=True)
    return exe


class Tally:
    def __init__(self, exe):
        self.exe = exe
        self.p = None

    def run(self, src, vars_):
        if self.p is None or self.p.poll() is not None:
            self.p = subprocess.Popen([self.exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, encoding="utf-8")
        self.p.stdin.write(json.dumps({"template": src, "vars": vars_}) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            self.p = None
            return {"crash": True}
        return json.loads(line)


def verdict(j, t):
    if "unsupported" in t:
        return "unsupported"   # one of tally's own limits or unsupported features
    if "out" in j and " at 0x" in j["out"]:
        return "address"       # Python printed an object's address
    return "match" if j == t else "mismatch"


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    out = sys.argv[3] if len(sys.argv) > 3 else "differential-mismatches.jsonl"
    if not os.path.exists("build/release/libtally.a"):
        sys.exit("run from the project root after `make all`")
    r = random.Random(seed)
    counts = {}
    with tempfile.TemporaryDirectory() as tmp, open(out, "w") as mm:
        t = Tally(build(tmp))
        for i in range(n):
            src, vars_ = gen_case(r)
            j = jinja(src, vars_)
            tt = t.run(src, vars_)
            v = verdict(j, tt)
            counts[v] = counts.get(v, 0) + 1
            if v == "mismatch":
                mm.write(json.dumps({"i": i, "template": src, "vars": vars_, "jinja": j, "tally": tt},
                                    ensure_ascii=False) + "\n")
    print(json.dumps(counts, sort_keys=True))
    return 1 if counts.get("mismatch") else 0


if __name__ == "__main__":
    sys.exit(main())
