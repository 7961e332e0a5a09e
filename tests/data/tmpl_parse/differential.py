#!/usr/bin/python3
"""Differential test of the C template front end against Python Jinja2:
random templates (token soup, and mutated grammar-built ones) are compiled
by both; token streams (type, line, value), compile results (exception
class, line, message) and, for templates that compile, the parse tree with
every node's line must agree. Prints the disagreements and a summary.

Run from the project root:
    /usr/bin/python3 tests/data/tmpl_parse/differential.py [SEED] [COUNT]

Builds a small C driver (src/base + src/tmpl) with gcc in a temp directory.
Skipped, as documented differences (src/tmpl/tmpl.h): templates with
non-ASCII identifiers or \\N{...} / surrogate escapes, and those Jinja
rejects through CPython's own recursion and nesting limits."""
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402  (the environment, tree converter, error capture)

DRIVER = r'''
#include <stdio.h>
#include "src/tmpl/tmpl.h"
static void q(str s) {
    putchar('"');
    for (iz i = 0; i < s.len; i++) { unsigned c = s.s[i];
        if (c == '"' || c == '\\') printf("\\%c", c); else if (c == '\n') printf("\\n");
        else if (c == '\t') printf("\\t"); else if (c < 0x20 || c == 0x7f) printf("\\x%02x", c); else putchar((int)c); }
    putchar('"');
}
static void one(str src) {
    arena a; arena_init(&a, 0);
    tmpl_toks t; tmpl_lex(&a, tmpl_normalize(&a, src), &t);
    for (iz i = 0; i < t.n && t.v[i].kind != TMPL_TOK_EOF; i++) { tmpl_tok *k = &t.v[i];
        if (k->kind == TMPL_TOK_ERROR) { printf("error %d %s\n", t.error.line, t.error.msg); break; }
        printf("%d %s", k->line, tmpl_tok_kind_name(k->kind));
        if (k->kind == TMPL_TOK_DATA || k->kind == TMPL_TOK_NAME || k->kind == TMPL_TOK_STRING) { putchar(' '); q(k->v.s); }
        else if (k->kind == TMPL_TOK_INTEGER) { if (k->big) printf(" big"); else printf(" %lld", (long long)k->v.i); }
        else if (k->kind == TMPL_TOK_FLOAT) printf(" %.17g", k->v.f);
        putchar('\n'); }
    printf("\x1d\n");
    err e; tmpl_diag d; tmpl_prog *p = tmpl_compile(&a, src, &e, &d);
    if (!p) printf("ERR %s %d: %s\n", d.kind ? d.kind : err_code_name(e.code), e.line, e.msg);
    else { buf b = {0}; tmpl_dump(&b, &p->body, TMPL_DUMP_LINES); printf("%.*s\n", (int)b.len, (char *)b.data); buf_free(&b); }
    arena_fini(&a);
}
int main(void) {
    static char data[1 << 25]; size_t n = fread(data, 1, sizeof data, stdin), st = 0;
    for (size_t i = 0; i <= n; i++) if (i == n || data[i] == 0x1e) { one(str_from(data + st, (iz)(i - st))); printf("\x1f\n"); st = i + 1; }
    return 0;
}
'''


def build(tmp):
    src = os.path.join(tmp, "driver.c")
    with open(src, "w") as f:
        f.write(DRIVER)
    exe = os.path.join(tmp, "driver")
    cmd = ["gcc", "-std=c11", "-D_DEFAULT_SOURCE", "-O1", "-g", "-fsanitize=address,undefined", "-I.", src]
    cmd += sorted(glob.glob("src/base/*.c")) + sorted(glob.glob("src/tmpl/*.c")) + ["-lm", "-o", exe]
    subprocess.run(cmd, check=True)
    return exe


def run_c(exe, srcs):
    data = "\x1e".join(srcs).encode("utf-8")
    r = subprocess.run([exe], input=data, capture_output=True)
    if r.returncode:
        sys.exit("driver crashed:\n" + r.stderr.decode(errors="replace")[-3000:])
    out = r.stdout.decode("utf-8").split("\x1f\n")[:len(srcs)]
    return [o.split("\x1d\n", 1) for o in out]


def jinja(src):
    toks = gen.tokens(src)
    err = gen.compile_error(src)
    if err is None:
        return toks, gen.dump(src, True)
    kind, line, msg = err
    return toks, "ERR %s %d: %s" % (kind, line, msg)


FRAGMENTS = [
    "{{", "}}", "{%", "%}", "{#", "#}", "-", "+", " ", " ", "  ", "\t", "\n", "\n", "\r\n", "\r", "\u3000", "\xa0",
    "x", "abc", "if", "endif", "for", "in", "endfor", "else", "elif", "set", "endset", "raw", "endraw", "macro",
    "endmacro", "call", "endcall", "filter", "endfilter", "not", "and", "or", "is", "recursive", "loop", "caller",
    "generation", "endgeneration", "break", "continue", "with", "block", "print", "ns", "true", "None",
    "(", ")", "[", "]", "{", "}", ",", ":", ".", "|", "=", "==", "!=", "<", "<=", "**", "*", "//", "/", "%", "~",
    "'s'", '"d"', "'a\\nb'", "'\\x41'", "'\\u00e9'", "'\\é'", '"', "'", "\\", "0", "1", "1.5", "1e3", "0x1f",
    "1_0", ".5", "!", "$", ";", "text ", "upper", "trim", "default(1)", "defined", "none", "'é'",
]
NAMES = ["x", "y", "items", "msg", "ns", "loop", "caller", "a"]
ATOMS = NAMES + ["'s'", '"t"', "1", "2.5", "true", "none", "[]", "{}", "()", "'a' 'b'"]


def expr(rng, d=0):
    if d > 3 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    e = lambda: expr(rng, d + 1)  # noqa: E731
    c = rng.randint(0, 12)
    if c == 0:
        return e() + rng.choice([" + ", " - ", " * ", " // ", " ** ", " ~ ", " and ", " or ", " == ", " < ", " in ", " not in "]) + e()
    if c == 1:
        return rng.choice(["not ", "-", "+"]) + e()
    if c == 2:
        return e() + " if " + e() + (" else " + e() if rng.random() < 0.6 else "")
    if c == 3:
        return e() + "|" + rng.choice(["upper", "trim", "join(', ')", "default(1)", "tojson(indent=2)", "nosuch", "items"])
    if c == 4:
        return e() + " is " + rng.choice(["defined", "not none", "string", "divisibleby 3", "sameas(x)", "nosuch"])
    if c == 5:
        return e() + "." + rng.choice(["a", "0", "strip"])
    if c == 6:
        return e() + "[" + rng.choice(["0", "-1", "1:", "::-1", "'k'", "1:2, 3"]) + "]"
    if c == 7:
        return rng.choice(NAMES) + "(" + ", ".join(rng.choice([e(), "k=" + e(), "*" + e(), "**" + e()]) for _ in range(rng.randint(0, 3))) + ")"
    if c == 8:
        return "(" + e() + ")"
    if c == 9:
        return "[" + ", ".join(e() for _ in range(rng.randint(0, 3))) + "]"
    if c == 10:
        return "{" + ", ".join(e() + ": " + e() for _ in range(rng.randint(0, 2))) + "}"
    return e() + ", " + e()


def body(rng, d=0):
    ws = lambda: rng.choice(["", " ", "\n", "  ", "\n  ", "\t"])  # noqa: E731
    tag = lambda s: ws() + rng.choice(["{%", "{%-", "{%+"]) + " " + s + " " + rng.choice(["%}", "-%}", "+%}"]) + ws()  # noqa: E731
    out = []
    for _ in range(rng.randint(0, 4)):
        c = rng.randint(0, 12)
        if c <= 2 or d > 3:
            out.append(rng.choice(["text", "a b", "  x\n", "\n"]) + ws())
        elif c == 3:
            out.append(ws() + rng.choice(["{{", "{{-"]) + " " + expr(rng) + " " + rng.choice(["}}", "-}}"]) + ws())
        elif c == 4:
            s = tag("if " + expr(rng)) + body(rng, d + 1)
            if rng.random() < 0.4:
                s += tag("elif " + expr(rng)) + body(rng, d + 1)
            if rng.random() < 0.4:
                s += tag("else") + body(rng, d + 1)
            out.append(s + tag("endif"))
        elif c == 5:
            s = tag("for " + rng.choice(["x", "x, y", "loop"]) + " in " + expr(rng) + rng.choice(["", " if " + expr(rng), " recursive"]))
            out.append(s + body(rng, d + 1) + tag("endfor"))
        elif c == 6:
            out.append(tag("set " + rng.choice(["x", "ns.x", "a, b"]) + " = " + expr(rng)))
        elif c == 7:
            out.append(tag("set x | upper") + body(rng, d + 1) + tag("endset"))
        elif c == 8:
            out.append(tag("macro m(" + rng.choice(["", "a, b=1", "caller", "a, a"]) + ")") + body(rng, d + 1) + tag("endmacro"))
        elif c == 9:
            out.append(tag("call(x) m(" + expr(rng) + ")") + body(rng, d + 1) + tag("endcall"))
        elif c == 10:
            out.append(tag(rng.choice(["break", "continue"])))
        elif c == 11:
            out.append(tag("generation") + body(rng, d + 1) + tag("endgeneration"))
        else:
            out.append(ws() + rng.choice(["{% raw %}", "{%- raw -%}"]) + " {{ x }} " + rng.choice(["{% endraw %}", "{%- endraw -%}"]) + ws())
    return "".join(out)


def mutate(rng, s):
    if not s or rng.random() < 0.5:
        return s
    i = rng.randint(0, len(s))
    k = rng.randint(0, 2)
    if k == 0:
        return s[:i]
    if k == 1:
        return s[:i] + rng.choice(FRAGMENTS) + s[i:]
    return s[:i] + s[min(len(s), i + rng.randint(1, 5)):]


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    rng = random.Random(seed)
    srcs = []
    for _ in range(count):
        if rng.random() < 0.5:
            srcs.append("".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 25))))
        else:
            srcs.append(mutate(rng, body(rng)))
    with tempfile.TemporaryDirectory() as tmp:
        results = run_c(build(tmp), srcs)
    bad = skipped = 0
    for src, (ctoks, cres) in zip(srcs, results):
        ctoks, cres = ctoks.rstrip("\n"), cres.rstrip("\n")
        if "unsupported" in cres or "non-ASCII" in ctoks:
            skipped += 1
            continue
        jtoks, jres = jinja(src)
        if jres.startswith("ERR RecursionError") or "too many" in jres or "indentation" in jres:
            skipped += 1
            continue
        # Python-side errors carry no template line; parameter names are mangled;
        # CPython words one invalid-syntax error several ways
        cres = re.sub(r"^ERR (SyntaxError|TypeError|AttributeError) \d+:", r"ERR \1 0:", cres)
        jres = re.sub(r"'l_\d+_(\w+)'", r"'\1'", jres)
        if cres.startswith("ERR SyntaxError 0: invalid syntax") and jres.startswith("ERR SyntaxError 0:") and \
                not re.search("duplicate|outside loop|not properly|repeated", jres):
            jres = cres
        if ctoks != jtoks or cres != jres:
            bad += 1
            if bad <= 10:
                print("=== %r" % src)
                if ctoks != jtoks:
                    print("--- C tokens\n%s\n--- Jinja tokens\n%s" % (ctoks, jtoks))
                if cres != jres:
                    print("--- C     %s\n--- Jinja %s" % (cres[:300], jres[:300]))
    print("%d templates, %d skipped (documented differences), %d disagree" % (len(srcs), skipped, bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
