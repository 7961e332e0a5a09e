#!/usr/bin/python3
"""Writes the golden data of tests/test_tmpl_parse.c from Python Jinja2
(Debian python3-jinja2 3.1.2, the oracle's), configured as transformers
configures it (../shared/oracle/oracle.py, TemplateEnv):

  constructs.jsonl  {"name", "src", "ast", "lines"}  Jinja's parse tree of
                    hand-written inputs, in tmpl_dump's s-expression form
                    (without and with line numbers)
  errors.jsonl      {"src", "kind", "line", "msg"}   what from_string raises
  tokens.jsonl      {"src", "tokens"}                the parser's token stream
  real.jsonl        {"name", "lines"}                parse trees of the real
                    templates (../shared/data/templates, assets/*)

Run from the project root:  /usr/bin/python3 tests/data/tmpl_parse/gen.py
(needs ../shared/data/templates and `make assets`). Deterministic."""
import glob
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2 import nodes as N
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("TALLY_SHARED", "../shared")
ASSETS = os.environ.get("TALLY_ASSETS", "assets")
ASSET_NAMES = ["qwen3", "llama3", "llama3_1", "deepseek_v3", "gemma3"]


class GenerationTag(jinja2.ext.Extension):
    """transformers' {% generation %} tag (as in oracle.py)."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return N.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller):
        return caller()


ENV = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                    extensions=[GenerationTag, jinja2.ext.loopcontrols])
ENV.filters["tojson"] = lambda x, **kw: json.dumps(x, **kw)

# ---- Jinja's tree in tmpl_dump's format (see src/tmpl/tmpl.h) ----

BINOPS = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "FloorDiv": "//", "Mod": "%",
          "Pow": "**", "And": "and", "Or": "or"}
CMPOPS = {"eq": "==", "ne": "!=", "lt": "<", "lteq": "<=", "gt": ">", "gteq": ">=",
          "in": "in", "notin": "notin"}


def quote(s):
    out = '"'
    for ch in s:
        c = ord(ch)
        if ch in '"\\':
            out += "\\" + ch
        elif ch == "\n":
            out += "\\n"
        elif ch == "\t":
            out += "\\t"
        elif c < 0x20 or c == 0x7F:
            out += "\\x%02x" % c
        else:
            out += ch
    return out + '"'


class Dumper:
    def __init__(self, lines):
        self.lines = lines

    def at(self, n):
        return "@%d" % n.lineno if self.lines else ""

    def head(self, name, n):
        return "(" + name + self.at(n)

    def body(self, name, stmts):
        return " (" + name + "".join(" " + x for x in self.stmts(stmts)) + ")"

    def stmts(self, body):
        out = []
        for n in body:
            if isinstance(n, N.Output):   # one TEXT or OUTPUT per child
                for c in n.nodes:
                    if isinstance(c, N.TemplateData):
                        out.append(self.head("text", c) + " " + quote(c.data) + ")")
                    else:
                        out.append("(out " + self.expr(c) + ")")
            else:
                out.append(self.stmt(n))
        return out

    def params(self, n):
        first_default = len(n.args) - len(n.defaults)
        parts = []
        for i, a in enumerate(n.args):
            if i >= first_default:
                parts.append("(= %s%s %s)" % (a.name, self.at(a), self.expr(n.defaults[i - first_default])))
            else:
                parts.append(a.name + self.at(a))
        return " (" + " ".join(parts) + ")"

    def stmt(self, n):
        t = type(n).__name__
        if t == "If":
            r = self.head("if", n) + " " + self.expr(n.test) + self.body("then", n.body)
            for e in n.elif_:
                r += " " + self.head("elif", e) + " " + self.expr(e.test) + self.body("then", e.body) + ")"
            if n.else_:
                r += self.body("else", n.else_)
            return r + ")"
        if t == "For":
            r = self.head("for", n) + " " + self.expr(n.target) + " " + self.expr(n.iter)
            if n.test is not None:
                r += " (if " + self.expr(n.test) + ")"
            if n.recursive:
                r += " recursive"
            r += self.body("do", n.body)
            if n.else_:
                r += self.body("else", n.else_)
            return r + ")"
        if t == "Assign":
            return self.head("set", n) + " " + self.expr(n.target) + " " + self.expr(n.node) + ")"
        if t == "AssignBlock":
            f = self.expr(n.filter) if n.filter is not None else "_"
            return self.head("setblock", n) + " " + self.expr(n.target) + " " + f + self.body("do", n.body) + ")"
        if t == "Macro":
            return self.head("macro", n) + " " + n.name + self.params(n) + self.body("do", n.body) + ")"
        if t == "CallBlock":
            if isinstance(n.call.node, N.ExtensionAttribute):
                return self.head("generation", n) + self.body("do", n.body) + ")"
            return self.head("callblock", n) + self.params(n) + " " + self.expr(n.call) + self.body("do", n.body) + ")"
        if t == "FilterBlock":
            return self.head("filterblock", n) + " " + self.expr(n.filter) + self.body("do", n.body) + ")"
        if t in ("Break", "Continue"):
            return self.head(t.lower(), n) + ")"
        if t == "With":
            pairs = " ".join("(%s %s)" % (self.expr(a), self.expr(b)) for a, b in zip(n.targets, n.values))
            return self.head("with", n) + " (" + pairs + ")" + self.body("do", n.body) + ")"
        if t == "Scope":   # {% autoescape %}
            m = n.body[0]
            return self.head("autoescape", m) + " " + self.expr(m.options[0].value) + self.body("do", m.body) + ")"
        if t == "Block":
            flags = (" scoped" if n.scoped else "") + (" required" if n.required else "")
            return self.head("block", n) + " " + n.name + flags + self.body("do", n.body) + ")"
        if t == "Extends":
            return self.head("extends", n) + " " + self.expr(n.template) + ")"
        if t in ("Include", "Import", "FromImport"):
            r = self.head({"Include": "include", "Import": "import", "FromImport": "from"}[t], n)
            r += " " + self.expr(n.template)
            if t == "Import":
                r += " (as %s)" % n.target
            if t == "FromImport":
                for x in n.names:
                    r += (" (%s as %s)" % x) if isinstance(x, tuple) else " " + x
            if t == "Include" and n.ignore_missing:
                r += " ignore-missing"
            return r + (" with-context)" if n.with_context else " without-context)")
        raise ValueError("no dump for " + t)

    def args(self, n):
        r = "".join(" " + self.expr(a) for a in n.args)
        r += "".join(" (= %s %s)" % (k.key, self.expr(k.value)) for k in n.kwargs)
        if n.dyn_args is not None:
            r += " (* " + self.expr(n.dyn_args) + ")"
        if n.dyn_kwargs is not None:
            r += " (** " + self.expr(n.dyn_kwargs) + ")"
        return r

    def expr(self, n):
        t = type(n).__name__
        if t == "Const":
            v = n.value
            if v is None:
                s = "none"
            elif isinstance(v, bool):
                s = "true" if v else "false"
            elif isinstance(v, int):
                s = str(v)
            elif isinstance(v, float):
                s = "%.17g" % v
                if not any(c in s for c in ".eni"):
                    s += ".0"
            else:
                s = quote(v)
            return s + self.at(n)
        if t == "Name":
            return n.name + self.at(n)
        if t == "NSRef":
            return self.head("nsref", n) + " %s %s)" % (n.name, n.attr)
        if t in ("Tuple", "List"):
            return self.head(t.lower(), n) + "".join(" " + self.expr(x) for x in n.items) + ")"
        if t == "Concat":
            return self.head("~", n) + "".join(" " + self.expr(x) for x in n.nodes) + ")"
        if t == "Dict":
            return self.head("dict", n) + "".join(" (%s %s)" % (self.expr(p.key), self.expr(p.value)) for p in n.items) + ")"
        if t == "Getattr":
            return self.head(".", n) + " " + self.expr(n.node) + " " + n.attr + ")"
        if t == "Getitem":
            return self.head("[]", n) + " " + self.expr(n.node) + " " + self.expr(n.arg) + ")"
        if t == "Slice":
            parts = (n.start, n.stop, n.step)
            return self.head("slice", n) + "".join(" " + (self.expr(x) if x is not None else "_") for x in parts) + ")"
        if t == "Call":
            return self.head("call", n) + " " + self.expr(n.node) + self.args(n) + ")"
        if t in ("Filter", "Test"):
            known = n.name in (ENV.filters if t == "Filter" else ENV.tests)
            arg = self.expr(n.node) if n.node is not None else "_"
            return (self.head("|" if t == "Filter" else "is", n) + " " + arg + " " + n.name +
                    ("" if known else "?") + self.args(n) + ")")
        if t in ("Not", "Neg", "Pos"):
            return self.head(t.lower(), n) + " " + self.expr(n.node) + ")"
        if t in BINOPS:
            return self.head(BINOPS[t], n) + " " + self.expr(n.left) + " " + self.expr(n.right) + ")"
        if t == "Compare":
            ops = "".join(" %s %s" % (CMPOPS[o.op], self.expr(o.expr)) for o in n.ops)
            return self.head("cmp", n) + " " + self.expr(n.expr) + ops + ")"
        if t == "CondExpr":
            other = self.expr(n.expr2) if n.expr2 is not None else "_"
            return self.head("cond", n) + " " + self.expr(n.test) + " " + self.expr(n.expr1) + " " + other + ")"
        raise ValueError("no dump for " + t)


def dump(src, lines):
    return "\n".join(Dumper(lines).stmts(ENV.parse(src).body))


def compile_error(src):
    """(kind, line, message) of what from_string raises, or None."""
    try:
        ENV.from_string(src)
        return None
    except jinja2.TemplateSyntaxError as e:   # and TemplateAssertionError
        return type(e).__name__, e.lineno, e.message
    except SyntaxError as e:   # Python rejecting the generated code
        return "SyntaxError", 0, e.msg
    except (TypeError, AttributeError) as e:   # the optimizer folding an unhashable
        return type(e).__name__, 0, str(e)        # dict key; a statement in a required block


def tokens(src):
    """The parser's token stream (Lexer.wrap), one "line type [value]" each."""
    out = []
    try:
        for t in ENV.lexer.wrap(ENV.lexer.tokeniter(src, None, None)):
            s = "%d %s" % (t.lineno, t.type)
            if t.type in ("data", "name", "string"):
                s += " " + quote(t.value)
            elif t.type == "integer":
                s += " %d" % t.value
            elif t.type == "float":
                s += " %.17g" % t.value
            out.append(s)
    except jinja2.TemplateSyntaxError as e:
        out.append("error %d %s" % (e.lineno, e.message))
    return "\n".join(out)


# ---- inputs (hand-written) ----

CONSTRUCTS = [
    # whitespace: trim_blocks, lstrip_blocks, -, +, comments, raw, the final newline
    ("lstrip-trim", "  {%- if x %}\n  a\n{% endif %}\n"),
    ("lstrip-own-line", "a\n  {% if x %}\n  b\n  {% endif %}\nc"),
    ("no-lstrip-mid-line", "a  {% if x %}b{% endif %}  c"),
    ("plus-disables-lstrip", "  {%+ if x %}b{% endif %}"),
    ("plus-keeps-newline", "{% if x +%}\nb{% endif %}"),
    ("minus-both-sides", "a  \n {%- if x -%} \n\n b \n{%- endif -%}\n c"),
    ("variable-no-trim", "{{ x }}\n{{ y }}\n"),
    ("variable-minus", "a \n {{- x -}} \n b"),
    ("variable-plus-eaten", "{{+ 1 }}{{-1}}{{ -1 }}"),
    ("comment-own-line", "a\n   {# note #}\nb"),
    ("comment-minus", "a {#- c -#}   b"),
    ("comment-trim", "{# c #}\n\nx"),
    ("raw", "{% raw %}\n  {{ x }} {% if %}\n  {% endraw %}\nafter"),
    ("raw-minus", "x  {%- raw -%}  a  {%- endraw -%}  b"),
    ("final-newline", "a\n"),
    ("final-newlines", "a\n\n"),
    ("crlf", "{% if x %}\r\n  a\r\n{% endif %}\r\nb\r\n"),
    ("unicode-space", "a\u3000\u00a0{%- if x %}b{% endif %}"),
    ("tab-lstrip", "\t {% if x %}b{% endif %}"),
    # expressions: precedence and associativity
    ("or-and-not", "{{ a or b and not c }}"),
    ("arith", "{{ 1 + 2 * 3 - 4 / 5 // 6 % 7 }}"),
    ("pow-left-assoc", "{{ 2 ** 3 ** 2 }}"),
    ("neg-pow", "{{ -2 ** 2 }}{{ 2 ** -1 }}"),
    ("concat-vs-add", "{{ a ~ b + c ~ d * e }}"),
    ("not-compare", "{{ not a == b }}"),
    ("chained-compare", "{{ a < b <= c > d >= e == f != g }}"),
    ("in-not-in", "{{ a in b }}{{ a not in b }}{{ not a in b }}"),
    ("condexpr", "{{ a if b else c if d else e }}{{ a if b }}{{ (a if b else c) if d }}"),
    ("unary-filter", "{{ -x|abs }}{{ not x|length }}{{ - - x }}"),
    ("filters", "{{ x|trim }}{{ x|join(', ') }}{{ x|default('a', true)|upper }}{{ x|map(attribute='y')|list }}"),
    ("filter-kwargs", "{{ x|tojson(indent=2) }}{% if t %}{{ x|f(*a, **b) }}{{ x|a.b(1) }}{% endif %}"),
    ("tests", "{{ x is divisibleby 3 }}{{ x is not none }}{{ x is sameas(y) }}{{ x is defined and y }}{{ x is string or x is mapping }}"),
    ("test-arg-forms", "{{ x is eq 'a' }}{{ x is in [1, 2] }}{{ x is ge {} }}{{ x is sameas false }}{% if t %}{{ x is a.b }}{% endif %}"),
    ("slices", "{{ x[1:2] }}{{ x[::-1] }}{{ x[:] }}{{ x[a:] }}{{ x[:b:] }}{{ x[1:2:3] }}"),
    ("subscripts", "{{ x.y[0]['k'](1, k=2, *a, **b).z }}{{ x.0 }}{{ x[a, b] }}"),
    ("call-args", "{{ f() }}{{ f(a,) }}{{ f(a, b=1, *c, **d) }}{{ f(*c, **d) }}{{ f(b=1, **d) }}"),
    ("literals", "{{ [1, 2.5, 'a' \"b\", true, False, none, None, (1,), (), {'k': [1]}, {}] }}"),
    ("numbers", "{{ 1_000 + 0x_ff + 0o17 + 0B101 + 00 + 1e3 + 1_0.5e-1 + 2E+2 + 1.5 + 9223372036854775807 }}"),
    ("strings", "{{ 'a\\nb\\t\\'c\\' \\x41 \\u00e9 \\U0001F600 \\101 \\q \\\\' }}{{ \"\\é é\" }}{{ 'x\\\ny' }}"),
    ("tuples", "{{ a, b }}{{ (a,) }}{{ () }}{{ (a, b), }}"),
    ("dicts", "{{ {'a': 1, 'b': x ~ y, 3: [], (1, 2): none} }}"),
    ("attr-number", "{{ x.0.1 }}{{ 1 .real }}"),
    # statements
    ("for", "{% for a, b in c|items if a recursive %}{{ loop.index }}{{ loop(b) }}{% else %}e{% endfor %}"),
    ("for-tuple-target", "{% for (a, (b, c)) in d %}{% endfor %}{% for x in a, b %}{% endfor %}"),
    ("if-elif-else", "{% if a %}1{% elif b %}2{% elif c %}3{% else %}4{% endif %}"),
    ("set-forms", "{% set x = 1 %}{% set a, b = 1, 2 %}{% set ns.k = 3 %}{% set y | upper | trim %}t{% endset %}{% set z %}u{% endset %}"),
    ("namespace", "{%- set ns = namespace(found=false, n=0) %}{% set ns.found = true %}{{ ns.found }}"),
    ("macro", "{% macro m(a, b=1, c='x') %}{{ a }}{{ caller(a) if caller }}{% endmacro %}{{ m(1, c=2) }}"),
    ("call-block", "{% call(x, y=2) m(1) %}{{ x }}{% endcall %}{% call m() %}b{% endcall %}"),
    ("filter-block", "{% filter upper | replace('A', 'b') %}abc{% endfilter %}"),
    ("loop-controls", "{% for x in y %}{% if x %}{% break %}{% else %}{% continue %}{% endif %}{% endfor %}"),
    ("generation", "{% generation %}hi {{ x }}{% endgeneration %}"),
    ("with-print", "{% with a = 1, b = c %}{% print a, b %}{% endwith %}{% print %}"),
    ("autoescape", "{% autoescape false %}{{ x }}{% endautoescape %}"),
    ("block", "{% block head scoped %}x{% endblock head %}{% block b required %} {% endblock %}"),
    ("loads", "{% extends 'base' %}{% include 'x' ignore missing without context %}{% import 'm' as m %}{% from 'm' import a, b as c with context %}"),
    ("colon", "{% if x: %}a{% endif %}"),
    ("unknown-filter-in-if", "{% if x %}{{ x|nosuchfilter }}{% endif %}{{ y if x is nosuchtest }}"),
    ("lines", "a\n{% if x\n  and y %}\n{{ f(\n1,\n2) }}\n{% endif %}\n{{ a\n+ b\n+ c }}{{ a ==\n b }}"),
    # chat template idioms
    ("qwen-idiom", "{%- for message in messages[::-1] %}{%- set index = (messages|length - 1) - loop.index0 %}"
                   "{%- if ns.multi_step_tool and message.role == \"user\" and not(message.content.startswith('<tool_response>')) %}"
                   "{{- '<|im_start|>' + message.role + '\\n' + content.split('</think>')[-1].lstrip('\\n') }}"
                   "{%- endif %}{%- endfor %}"),
    ("llama-idiom", "{{ bos_token }}{% for message in messages %}{% set content = '<|start_header_id|>' + message['role'] + "
                    "'<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
                    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"),
    ("raise", "{% if x %}{{ raise_exception('Invalid: ' ~ x) }}{% endif %}{{ strftime_now('%d %b %Y') }}"),
]

ERRORS = [
    "{% foo %}",
    "{% do x %}",
    "{% endraw %}",
    "{% raw x %}{% endraw %}",
    "{% for x in y %}{% endif %}",
    "{% for x in y %}{% foo %}{% endfor %}",
    "{% if x %}{% for y in z %}{% endif %}{% endfor %}",
    "{% if x %}",
    "{% for x in y %}\nabc\n\n",
    "{% if x %}\n{% else %}\n{% else %}\n{% endif %}",
    "{% macro m() %}\n{% endfor %}",
    "{% if %}",
    "{% if x %}{% elif %}{% endif %}",
    "{% for %}",
    "{% for x %}",
    "{% for x in %}",
    "{% for x, in y %}{% endfor %}",
    "{% set %}",
    "{% set 1 = 2 %}",
    "{% set true = 2 %}",
    "{% set (a + b) = 1 %}",
    "{% set [a] = 1 %}",
    "{% macro m(a=1, b) %}{% endmacro %}",
    "{% macro m(none) %}{% endmacro %}",
    "{% call m %}{% endcall %}",
    "{% block foo-bar %}{% endblock %}",
    "{% from 'x' import _a %}",
    "{{ }}",
    "{{ x | }}",
    "{{ x is }}",
    "{{ x is y is z }}",
    "{{ f(a=1, b) }}",
    "{{ f(*a, *b) }}",
    "{{ x[] }}{{ x. }}",
    "{{ x.'a' }}",
    "{{ a if b else }}",
    "{{ a }",
    "{{ (a }}",
    "{{ a) }}",
    "{{ [a }}",
    "{{ {a }}",
    "{{ a ! b }}",
    "line1\nline2 {{ x $ y }}",
    "{{ \"unterminated }}",
    "{{ '\\x4' }}",
    "{{ '\\U00110000' }}",
    "{{ '\\N{' }}",
    "abc{# x",
    "{% raw %}abc",
    "a\n{{",
    "{%\nif x\n%}\n{{ x +* y }}",
    "{{ x\n+ }}",
    "{% if a %}{% endif %}\n\n{% endfor %}",
    "{{ x|nosuchfilter }}",
    "{{ x is nosuchtest }}",
    "{% for x in y|nosuchfilter %}{% endfor %}",
    "{% if x %}{% for a in b %}{{ a|nosuchfilter }}{% endfor %}{% endif %}",
    "{% filter nosuchfilter %}{% endfilter %}",
    "{% for loop in x %}{% endfor %}",
    "{% for x in y %}\n{% set loop = 1 %}{% endfor %}",
    "{% block a %}{% endblock %}\n{% block a %}{% endblock %}",
    "{% for x in y %}{% extends 'a' %}{% endfor %}",
    "{% macro m(caller) %}{{ caller() }}{% endmacro %}",
    "{% break %}",
    "{% for x in y %}{% else %}{% continue %}{% endfor %}",
    "{% for x in y %}{% generation %}{% break %}{% endgeneration %}{% endfor %}",
    "{% macro m(a, a) %}{% endmacro %}",
    "{{ f(a=1, a=2) }}",
    "{{ x[1:2, 3] }}",
    "{{ f({[]: 1}) }}",
    "{% block b required %}{% if x %}{% endif %}{% endblock %}",
    "{% block b required %}\n  x {% endblock %}",
]

VALID_COMPILES = [   # pass the code generator checks although they look suspicious
    "{{ true or x|nosuchfilter }}",
    "{{ f(class=1, class=2) }}",
    "{% for x in y %}{% for z in x %}{% else %}{% break %}{% endfor %}{% endfor %}",
    "{% set loop = 1 %}",
    "{% macro m(caller=none) %}{{ caller() }}{% endmacro %}",
    "{{ {[]: 1} }}",
    "{% extends 'a' %}{{ x|nosuchfilter }}",
    "abc{#",
    "{% raw %}",
    "{{ a }}}",
]

TOKENS = [
    "  {%- if x %}\n  a\n{% endif %}\n",
    "a {{- b -}} c {%+ d +%} e {#- f -#} g",
    "{% raw %}{{ x }}{% endraw %}",
    "{{ 1_000 0x1F 0o7 0b1 1.5 1e3 1_0.5E-1 .5 1. 1e 0b2 x.0.1 }}",
    "{{ 'a' \"b\" '\\n\\x41\\u00e9\\q' 'é' }}",
    "{{ a // b ** c != d >= e <= f == g ~ h | i }}",
    "{% set x = [1, (2, {3: 4})] %}",
    "{{ a ! b }}",
    "{{ (a }}",
    "{{ 'a' 'b' 'unterminated }}",
    "x\r\ny\rz\n",
    "{{\nx\n}}\n{%\ny\n%}\n",
]


def main():
    with open(os.path.join(HERE, "constructs.jsonl"), "w") as f:
        for name, src in CONSTRUCTS:
            assert compile_error(src) is None, (name, compile_error(src))
            rec = {"name": name, "src": src, "ast": dump(src, False), "lines": dump(src, True)}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "errors.jsonl"), "w") as f:
        for src in ERRORS + VALID_COMPILES:
            e = compile_error(src)
            assert (e is None) == (src in VALID_COMPILES), (src, e)
            rec = {"src": src, "kind": e[0] if e else "", "line": e[1] if e else 0, "msg": e[2] if e else ""}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "tokens.jsonl"), "w") as f:
        for src in TOKENS:
            f.write(json.dumps({"src": src, "tokens": tokens(src)}, ensure_ascii=False) + "\n")
    real = []
    for path in sorted(glob.glob(os.path.join(SHARED, "data/templates/*.jinja"))):
        with open(path, encoding="utf-8", newline="") as t:
            real.append((os.path.basename(path), t.read()))
    for name in ASSET_NAMES:
        with open(os.path.join(ASSETS, name, "tokenizer_config.json"), encoding="utf-8") as t:
            real.append((name, json.load(t)["chat_template"]))
    if len(real) != 25:
        sys.exit("gen.py: expected 20 templates and 5 assets, found %d" % len(real))
    with open(os.path.join(HERE, "real.jsonl"), "w") as f:
        for name, src in real:
            assert compile_error(src) is None, name
            f.write(json.dumps({"name": name, "lines": dump(src, True)}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
