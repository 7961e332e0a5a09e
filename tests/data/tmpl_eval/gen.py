#!/usr/bin/python3
"""Writes cases.jsonl: evaluator cases (statements, scoping, expressions,
errors) rendered by the reference, Jinja2 in the environment transformers
builds for chat templates (../shared/oracle/oracle.py). Run from the
project root with the interpreter that has Debian's Jinja2 3.1.2:

    /usr/bin/python3 tests/data/tmpl_eval/gen.py > tests/data/tmpl_eval/cases.jsonl
"""
import copy
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
shared = os.environ.get("TALLY_SHARED", os.path.join(here, "..", "..", "..", "..", "shared"))
sys.path.insert(0, os.path.join(shared, "oracle"))
import oracle  # noqa: E402  (the oracle's environment, unmodified)
import jinja2  # noqa: E402

assert jinja2.__version__ == "3.1.2", jinja2.__version__

NOW = "2025-01-15T12:00:00"

CASES = [
    # text, output, whitespace control
    ("text", "hello", {}),
    ("out_int", "{{ 1 }}|{{ -3 }}|{{ 10000000000 }}", {}),
    ("out_float", "{{ 1.0 }}|{{ 0.1 + 0.2 }}|{{ 1e-5 }}|{{ 1.5e300 * 10 }}|{{ 2.5 }}", {}),
    ("out_none_bool", "{{ none }}|{{ true }}|{{ False }}|{{ None }}", {}),
    ("out_list", "{{ [1, 'a', none, true, 1.0, [2], {'k': 'v'}] }}", {}),
    ("out_tuple", "{{ (1,) }}|{{ (1, 2) }}|{{ () }}|{{ 1, 2 }}", {}),
    ("out_dict", "{{ {'a': 1, 'b': [1, 2], 3: 'x'} }}", {}),
    ("out_str_repr", "{{ ['it\\'s', \"q\\\"\", 'nl\\n', 'tab\\t', 'é', '\\x00'] }}", {}),
    ("out_undefined", "[{{ nothing }}]", {}),
    ("ws_control", "a  {{- 1 -}}  b {%- if true %} c {% endif -%}  d", {}),
    ("trim_blocks", "{% if true %}\nA\n{% endif %}\nB\n", {}),
    ("lstrip_blocks", "  {% if true %}\n  x\n  {% endif %}\n", {}),
    ("comment", "a{# c #}b{#- c -#} c", {}),
    ("raw", "{% raw %}{{ x }}{% endraw %}", {}),
    # if
    ("if_elif", "{% for x in [1, 2, 3] %}{% if x == 1 %}one{% elif x == 2 %}two{% else %}other{% endif %},{% endfor %}", {}),
    ("if_truthiness", "{% for x in [0, 1, '', 'a', [], [0], {}, none, 0.0] %}{{ 'T' if x else 'F' }}{% endfor %}", {}),
    ("if_undefined", "{% if foo %}y{% else %}n{% endif %}{% if foo.bar is defined %}{% endif %}", {}),
    # for
    ("for_loop_vars", "{% for x in 'abc' %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.depth }};{% endfor %}", {}),
    ("for_prev_next", "{% for x in [1, 2, 3] %}{{ loop.previtem }}-{{ loop.nextitem }};{% endfor %}", {}),
    ("for_cycle", "{% for x in range(5) %}{{ loop.cycle('a', 'b') }}{% endfor %}", {}),
    ("for_unpack", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", {"d": {"a": 1, "b": [2]}}),
    ("for_dict_keys", "{% for k in d %}{{ k }}{% endfor %}", {"d": {"x": 1, "y": 2}}),
    ("for_filter", "{% for x in range(10) if x is odd %}{{ x }}{{ loop.length }}{% if loop.last %}!{% endif %} {% endfor %}", {}),
    ("for_else", "{% for x in [] %}x{% else %}empty{% endfor %}|{% for x in [1] if x > 5 %}x{% else %}none passed{% endfor %}", {}),
    ("for_break_continue", "{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 5 %}{% break %}{% endif %}{{ x }}{% endfor %}", {}),
    ("for_recursive", "{% for item in tree recursive %}[{{ item.name }}{% if item.children %}{{ loop(item.children) }}{% endif %}:{{ loop.depth }}]{% endfor %}",
     {"tree": [{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}, {"name": "d"}]}),
    ("for_nested_loop", "{% for a in [1, 2] %}{% set outer = loop %}{% for b in [3, 4] %}{{ outer.index }}{{ loop.index }} {% endfor %}{% endfor %}", {}),
    ("for_undefined", "{% for x in nothing %}x{% else %}e{% endfor %}", {}),
    ("for_none", "{% for x in none %}x{% endfor %}", {}),
    ("for_unpack_short", "{% for a, b in [[1, 2], [3]] %}{{ a }}{% endfor %}", {}),
    ("for_unpack_int", "{% for a, b in [1] %}{{ a }}{% endfor %}", {}),
    ("for_unpack_long", "{% for a, b in [[1, 2, 3]] %}{{ a }}{% endfor %}", {}),
    ("int_add_sub_limits", "{{ 9223372036854775807 - 1 + 1 }}|{{ -9223372036854775807 - 1 }}|{{ 5 - 7 + True }}|{{ 1 + 2.5 - 1 }}|{{ big - 1 }}", {"big": 9223372036854775807}),
    # scoping
    ("scope_loop_set", "{% set c = 0 %}{% for i in [1, 2, 3] %}{% set c = c + 1 %}{{ c }}{% endfor %}|{{ c }}", {}),
    ("scope_loop_read_before_set", "{% for i in [1, 2] %}{{ x }}{% set x = i %}{{ x }}{% endfor %}|{{ x }}", {"x": "X"}),
    ("scope_if_set", "{% if true %}{% set y = 5 %}{% endif %}{{ y }}", {}),
    ("scope_namespace", "{% set ns = namespace(n=0, found=false) %}{% for i in range(4) %}{% set ns.n = ns.n + i %}{% if i == 2 %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.n }} {{ ns.found }} {{ ns }}", {}),
    ("scope_namespace_bad", "{% set x = 1 %}{% set x.y = 2 %}", {}),
    ("scope_macro_late_global", "{% macro m() %}{{ z }}{% endmacro %}{% set z = 3 %}{{ m() }}", {}),
    ("scope_macro_closure", "{% for i in [1, 2] %}{% macro m() %}{{ i }}{% endmacro %}{{ m() }}{% endfor %}", {}),
    ("scope_macro_local", "{% macro m() %}{% set q = 1 %}{{ q }}{% endmacro %}{{ m() }}{{ q }}", {}),
    ("scope_with", "{% with a = 1, b = 2 %}{{ a + b }}{% set c = 3 %}{% endwith %}{{ a }}{{ c }}", {}),
    ("scope_set_tuple", "{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set c, d = 'xy' %}{{ c }}{{ d }}", {}),
    ("set_block", "{% set x %}  hi {{ 1 + 1 }}  {% endset %}[{{ x }}]", {}),
    ("set_block_filter", "{% set x | upper | trim %}  hi  {% endset %}[{{ x }}]", {}),
    ("var_override_global", "{{ range }}", {"range": "mine"}),
    # macros
    ("macro_args", "{% macro m(a, b=2, c='x') %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }}|{{ m(1, 3) }}|{{ m(1, c='y') }}|{{ m(b=5, a=0) }}", {}),
    ("macro_missing_arg", "{% macro m(a, b) %}[{{ a }}][{{ b }}]{% endmacro %}{{ m(1) }}", {}),
    ("macro_missing_arg_used", "{% macro m(a, b) %}{{ b + 1 }}{% endmacro %}{{ m(1) }}", {}),
    ("macro_default_uses_param", "{% macro m(a, b=a * 2) %}{{ b }}{% endmacro %}{{ m(4) }}", {}),
    ("macro_varargs_kwargs", "{% macro m(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, 3, x=4) }}", {}),
    ("macro_too_many", "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}", {}),
    ("macro_bad_kwarg", "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, z=2) }}", {}),
    ("macro_recursive", "{% macro f(n) %}{% if n > 0 %}{{ n }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(5) }}", {}),
    ("macro_infinite", "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", {}),
    ("macro_returns_str", "{% macro m() %}ab{% endmacro %}{{ m() | length }}{{ m() ~ 'c' }}{{ m() + 'd' }}", {}),
    ("call_block", "{% macro wrap(t) %}<{{ t }}>{{ caller() }}</{{ t }}>{% endmacro %}{% call wrap('b') %}inner {{ 1 }}{% endcall %}", {}),
    ("call_block_args", "{% macro each(xs) %}{% for x in xs %}{{ caller(x, loop.index) }}{% endfor %}{% endmacro %}{% call(item, i) each(['a', 'b']) %}{{ i }}:{{ item }};{% endcall %}", {}),
    ("caller_undefined", "{% macro m() %}{{ caller() }}{% endmacro %}{{ m() }}", {}),
    ("filter_block", "{% filter upper %}abc {{ 'd' }}{% endfilter %}", {}),
    ("generation_block", "{% for m in ['a', 'b'] %}{% generation %}[{{ m }}]{% set q = 1 %}{% endgeneration %}{% endfor %}{{ q }}", {}),
    # expressions
    ("arith_int", "{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 2 ** 10 }} {{ 2 ** -1 }} {{ 7 / 2 }} {{ 6 / 2 }}", {}),
    ("arith_float", "{{ 7.5 // 2 }} {{ -7.5 // 2 }} {{ 7.5 % 2 }} {{ -7.5 % 2 }} {{ 2.0 ** 3 }} {{ 1 + 2.0 }} {{ 0.1 * 3 }} {{ 1e16 + 1 }}", {}),
    ("arith_bool", "{{ true + true }} {{ true * 3 }} {{ -true }} {{ 1 == true }} {{ 1.0 == 1 }}", {}),
    ("arith_str", "{{ 'ab' * 3 }}{{ 3 * 'c' }}{{ [1] * 2 }}{{ 'a' + 'b' }}{{ [1] + [2] }}{{ (1,) + (2,) }}", {}),
    ("arith_div_zero", "{{ 1 / 0 }}", {}),
    ("arith_floordiv_zero", "{{ 1 // 0 }}", {}),
    ("arith_mod_zero", "{{ 1 % 0 }}", {}),
    ("arith_fmod_zero", "{{ 1.5 % 0 }}", {}),
    ("arith_str_plus_none", "{{ 'a' + none }}", {}),
    ("arith_str_plus_dict", "{{ 'a' + d }}", {"d": {"x": 1}}),
    ("arith_none_plus_str", "{{ none + 'a' }}", {}),
    ("arith_int_plus_str", "{{ 1 + 'a' }}", {}),
    ("arith_list_plus_str", "{{ [1] + 'a' }}", {}),
    ("arith_undefined_plus", "{{ functions + 'a' }}", {}),
    ("arith_str_plus_undefined", "{{ 'a' + functions }}", {}),
    ("arith_neg_str", "{{ -'a' }}", {}),
    ("arith_str_mul_str", "{{ 'a' * 'b' }}", {}),
    ("str_format_op", "{{ '%s-%d' % ('a', 3) }}|{{ '%05.2f' % 3.14159 }}|{{ '%s' % 'x' }}", {}),
    ("str_percent_forms", "{{ '%(a)s-%(b)d' % d }}|{{ '%s' % [1, 2] }}|{{ '%s and %s' % (1, 'x') }}|{{ '%%' % () }}", {"d": {"a": "A", "b": 2}}),
    ("str_percent_too_few", "{{ '%s %s' % ('a',) }}", {}),
    ("concat", "{{ 'a' ~ 1 ~ none ~ nothing ~ [1] ~ 1.0 }}", {}),
    ("compare_chain", "{{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }} {{ 'a' < 'b' }} {{ [1, 2] < [1, 3] }} {{ 1 != 1.0 }} {{ 2 >= 2 }}", {}),
    ("compare_type_error", "{{ 'a' < 1 }}", {}),
    ("compare_none", "{{ none < 1 }}", {}),
    ("compare_undefined_eq", "{{ nothing == none }} {{ nothing != none }} {{ nothing == nothing2 }}", {}),
    ("compare_undefined_lt", "{{ nothing < 1 }}", {}),
    ("in_ops", "{{ 'a' in 'cat' }} {{ 1 in [1, 2] }} {{ 'k' in d }} {{ 'z' not in d }} {{ '' in 'x' }} {{ 'a' in nothing }}", {"d": {"k": 1}}),
    ("in_str_int", "{{ 1 in 'abc' }}", {}),
    ("in_none", "{{ 'a' in none }}", {}),
    ("and_or", "{{ 0 or 'x' }}|{{ 'a' and 'b' }}|{{ '' and 'b' }}|{{ none or none }}|{{ not 0 }}|{{ not 'a' }}", {}),
    ("cond_expr", "{{ 'y' if 1 else 'n' }}|{{ 'y' if 0 else 'n' }}|[{{ 'y' if 0 }}]", {}),
    ("cond_expr_used", "{{ ('y' if 0) + 1 }}", {}),
    # the truth of conditions (and/or/not/tests/comparisons) in every place one is taken
    ("cond_truth", "{% for a in [0, 1, '', 'x', none, [], [0]] %}{% for b in [0, 'y', none, {}] %}"
     "{% if a and b %}A{% endif %}{% if a or b %}O{% endif %}{% if not a %}N{% endif %}"
     "{% if not (a or b) and not b %}M{% endif %}{{ 'c' if a and not b else 'd' }};{% endfor %}{% endfor %}"
     "{% for x in [1, 'a', '', none] if x and x is not none %}{{ x }}{% endfor %}", {}),
    ("cond_kind_tests", "{% for x in [1, 'a', none, {}, [], undefined_name, 1.5] %}"
     "{{ x is defined }}{{ x is undefined }}{{ x is none }}{{ x is string }}{{ x is mapping }}"
     "{% if x is not string and x is not mapping %}-{% endif %};{% endfor %}", {}),
    ("cond_str_compare", "{% for r in ['user', 'assistant', 'tool', 1, none] %}"
     "{{ r == 'user' }}{{ r != 'tool' }}{{ 'a' < r < 'u' if r is string }}{% if r == 'assistant' or r == 1 %}!{% endif %};"
     "{% endfor %}{{ 'ab' == 'ab' == 'ab' }}{{ 'a' == 'a' != 'a' }}", {}),
    ("cond_attr_str_compare", "{% set ns = namespace(a='q') %}{% for m in ms %}"
     "{{ m.role == 'user' }}{{ m.role != 'user' }}{% if m.role == 'tool' %}T{% endif %}{{ m.x == 'a' }}"
     "{{ m.role == '' }}{{ m.items == 'x' }}{{ loop.first == 'True' }};{% endfor %}"
     "{{ ns.a == 'q' }}{{ ns.a != 'q' }}{{ ns.b == 'q' }}{{ (ns.a|safe) == 'q' }}{{ none.role == 'a' }}"
     "{{ 'abc'.upper == 'ABC' }}{{ s.u == 'é' }}",
     {"ms": [{"role": "user"}, {"role": "tool", "x": "a"}, {"role": 1}, {"role": None}, {},
             {"role": "usér"}, {"role": ["user"]}, {"role": "user", "role2": "x"}], "s": {"u": "é"}}),
    ("cond_attr_str_compare_undefined", "{{ nobody.role == 'a' }}", {}),
    ("strip_literal", "{% for s in ss %}[{{ s.strip() }}|{{ s.lstrip('\\n') }}|{{ s.rstrip('\\n ') }}|{{ s.strip('é\\n') }}"
     "|{{ s.strip('') }}|{{ s.lstrip() }}|{{ s.rstrip() }}|{{ (s|safe).strip('<\\n') }}|{{ s.strip(none) }}]{% endfor %}"
     "{{ ('<a>'|safe).strip('<') }}|{{ '<a>'.strip('<') }}|{{ 'xx'.strip('x') }}|{{ '\\u3000 a \\x85'.strip() }}",
     {"ss": ["\n\n a\n b \n", "", "\n", "é\nxé", " \t\n", "<\n<p>\n"]}),
    ("strip_literal_kw", "{{ 'a'.strip(chars='a') }}", {}),
    ("filter_length_bare", "{{ 'héllo'|length }}{{ [1, 2]|length }}{{ {'a': 1}|length }}{{ nothing|length }}"
     "{{ ''|count }}{{ (1, 2, 3)|length }}{% for x in 'ab' %}{{ loop|length }}{% endfor %}{{ d|length }}"
     "{{ ms|length - 1 }}{{ ([1] | map('string'))|list|length }}",
     {"d": {"x": [1, 2, 3], "y": None}, "ms": [{}, {}, {}]}),
    ("filter_length_none", "{{ none|length }}", {}),
    ("filter_length_int", "{{ 5|count }}", {}),
    ("filter_length_generator", "{{ ([1] | map('string'))|length }}", {}),
    ("add_chain_value", "{% set a = 'x' + s + '' + s + 'é' %}{{ a }}|{% set b = s + s + s %}{{ b|length }}|"
     "{{ (1 + 2 + 3) }}|{{ [1] + [2] + [3] }}|{% set c = '' + '' + '' %}[{{ c }}]|"
     "{% set d = 'a' + ('b' + s + 'c') + 'd' %}{{ d }}|{% set m = 'a' + ('<b>'|safe) + '<c>' %}{{ m }}|"
     "{% set t = (s|safe) + '<' + s %}{{ t }}|{% for x in ['p', 'q'] %}{% set u = x + '-' + loop.index|string %}{{ u }}{% endfor %}",
     {"s": "<s>"}),
    ("add_chain_value_type", "{% set a = 'a' + s + i + 'c' %}{{ a }}", {"s": "b", "i": 1}),
    ("add_chain_value_undefined", "{% set a = 'a' + s + nothing + 'c' %}{{ a }}", {"s": "b"}),
    ("add_chain_value_list", "{% set a = 'a' + s + l %}{{ a }}", {"s": "b", "l": [1]}),
    ("add_chain_value_first", "{% set a = i + s + 'c' %}{{ a }}", {"s": "b", "i": 1}),
    ("trim_bare", "[{{ s|trim }}][{{ (s|safe)|trim }}][{{ 5|trim }}][{{ nothing|trim }}][{{ none|trim }}][{{ e|trim }}]"
     "[{{ '\\u3000x\\x85'|trim }}][{{ s|trim('<') }}]", {"s": " \n<a> \t", "e": ""}),
    ("getitem_str_key", "{% for m in ms %}{{ m['role'] }}:{{ m['content'] }}:[{{ m['nope'] }}]:{{ m['keys'] is callable }};{% endfor %}"
     "{{ big['k40'] }}|{{ big['k0'] }}|[{{ big['x'] }}]|{{ ('ab'|safe)['x'] is undefined }}|{{ l['x'] is undefined }}",
     {"ms": [{"role": "user", "content": "hi"}, {"role": "tool", "content": None, "keys": "own"}],
      "big": {f"k{i}": i for i in range(50)}, "l": [1]}),
    ("getitem_str_key_method", "{{ m['keys']() | list }}", {"m": {"role": "user"}}),
    ("cond_test_args", "{{ 3 is divisibleby(3) }}{{ 'x' is defined(1) }}", {}),
    ("getattr_getitem", "{{ d.a }}|{{ d['a'] }}|{{ d.b.c }}|{{ l[0] }}|{{ l[-1] }}|{{ l.0 }}|{{ s[1] }}|{{ s[-1] }}", {"d": {"a": 1, "b": {"c": 2}}, "l": [5, 6], "s": "héllo"}),
    ("getitem_missing", "[{{ d.x }}][{{ l[5] }}][{{ d['y'] }}][{{ none.x }}]", {"d": {"a": 1}, "l": [1]}),
    ("getattr_method_vs_key", "{{ d['items'] }}|{{ d.items() | list }}", {"d": {"items": 7}}),
    ("getattr_none_call", "{{ x.lstrip() }}", {"x": None}),
    ("getattr_dict_missing_call", "{{ d.foo() }}", {"d": {}}),
    ("getitem_list_missing_used", "{{ l[3] + 1 }}", {"l": [1]}),
    ("getitem_dict_int_missing_used", "{{ d[1] + 1 }}", {"d": {"a": 1}}),
    ("undefined_var_used", "{{ functions + 1 }}", {}),
    ("undefined_attr_of_undefined", "{{ q.x }}", {}),
    ("slicing", "{{ l[1:] }}{{ l[:-1] }}{{ l[::2] }}{{ l[::-1] }}{{ s[1:3] }}{{ s[::-1] }}{{ l[-2:] }}{{ l[5:] }}{{ s[10:] }}", {"l": [1, 2, 3, 4], "s": "héllo"}),
    ("slice_step_zero", "{{ [1, 2][::0] }}", {}),
    ("slice_none_var", "[{{ x[1:] }}]", {"x": None}),
    ("slice_dict", "[{{ x[1:] }}]", {"x": {"a": 1}}),
    ("slice_undefined_obj", "[{{ nothing[1:] }}]", {}),
    ("slice_undefined_bound", "[{{ 'abc'[nothing:] }}]", {}),
    ("slice_str_bound", "[{{ 'abc'['a':] }}]", {}),
    ("slice_literal_folded", "[{{ none[1:] }}][{{ 5[1:] }}]", {}),
    ("slice_var_bound_str", "[{{ s[a:] }}]", {"s": "abc", "a": "a"}),
    ("slice_bool_bounds", "[{{ 'abcdef'[true:-true] }}]", {}),
    ("unsafe_append", "{% set x = [1] %}[{{ x.append }}]{{ x.append(2) }}", {}),
    ("unsafe_dict_update", "{{ d.update({'b': 2}) }}", {"d": {"a": 1}}),
    ("call_non_callable", "{{ 'a'() }}", {}),
    ("call_undefined", "{{ nothing() }}", {}),
    ("raise_exception", "{{ raise_exception('bad role: ' ~ 'x') }}", {}),
    ("strftime_now", "{{ strftime_now('%Y-%m-%d %H:%M:%S %d %B %Y %A %b %j') }}", {}),
    ("range_forms", "{{ range(3) | list }}{{ range(1, 4) | list }}{{ range(10, 0, -3) | list }}", {}),
    ("range_too_big", "{{ range(100001) | length }}", {}),
    ("dict_global", "{{ dict(a=1, b='x') }}{{ dict([('k', 1)]) }}", {}),
    ("include_no_loader", "{% include 'other.jinja' %}", {}),
    ("unknown_filter_runtime", "{% if x %}{{ x | nosuchfilter }}{% endif %}", {"x": 1}),
    ("unknown_filter_not_run", "{% if x %}{{ x | nosuchfilter }}{% endif %}ok", {"x": 0}),
    ("unknown_test_runtime", "{% if x %}{{ x is nosuchtest }}{% endif %}", {"x": 1}),
    ("big_int_literal", "{{ 123456789012345678901234567890 }}|{{ x }}|{{ -x }}", {"x": 12345678901234567890}),
    ("json_numbers", "{{ a }}|{{ b }}|{{ c }}|{{ d }}", {"a": 0.0, "b": 1e-05, "c": 100.0, "d": -0.0}),
    ("unicode_text", "{{ s }}|{{ s | length }}|{{ s[0] }}", {"s": "日本語😀"}),
    ("dict_literal_unhashable", "{{ {[1]: 2} }}", {}),
    ("nested_data", "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}", {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None}]}),
    ("tool_calls_loop", "{% for m in messages %}{% if m.tool_calls %}{% for tc in m.tool_calls %}{{ tc.function.name }}({{ tc.function.arguments | tojson }}){% endfor %}{% endif %}{% endfor %}",
     {"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1.0, "b": "é"}}}]}]}),
    ("loop_changed", "{% for x in [1, 1, 2, 2, 1] %}{% if loop.changed(x) %}[{{ x }}]{% endif %}{% if loop.changed(x, 'k') %}c{% endif %}{% endfor %}", {}),
    ("gen_truthy_empty", "{{ 'T' if ([] | select) else 'F' }}{{ 'T' if ([1] | reject) else 'F' }}{{ 'T' if (d | items) else 'F' }}", {"d": {}}),
    ("gen_length", "{{ [1, 2] | select | length }}", {}),
    ("gen_last", "{{ [1, 2] | map('string') | last }}", {}),
    ("gen_once", "{% set g = [1, 2, 3] | select('odd') %}{% for x in g %}{{ x }}{% endfor %}|{% for x in g %}{{ x }}{% endfor %}|{{ g | list }}", {}),
    ("gen_list_ok", "{{ [1, 2] | select | list | length }}{{ [3, 1] | map('abs') | sort }}{{ [1, 2] | reject('odd') | first }}{{ 'a,b' | reverse | join }}", {}),
    ("gen_subscript", "[{{ ([1, 2] | select)[0] }}]", {}),
    ("gen_tojson", "{{ [1] | select | tojson }}", {}),
    ("gen_plus_list", "{{ [1] + ([2] | select) }}", {}),
    ("gen_is_sequence", "{{ ([1] | select) is sequence }}{{ ([1] | select) is iterable }}{{ [1] | reverse is sequence }}", {}),
    ("gen_reverse", "{{ [1, 2, 3] | reverse | list }}{{ (1, 2) | reverse | join(',') }}{{ {'a': 1, 'b': 2} | reverse | list }}{{ [1, 2] | select | reverse }}", {}),
    ("gen_reverse_len", "{{ [1, 2, 3] | reverse | length }}", {}),
    ("gen_in", "{{ 2 in ([1, 2] | select) }}{{ 5 in ([1, 2] | select) }}", {}),
    ("gen_unpack", "{% set a, b = [1, 2] | select %}{{ a }}{{ b }}", {}),
    ("gen_batch_slice", "{{ [1, 2, 3] | batch(2) | list }}{{ [1, 2, 3] | slice(2) | list }}{{ [1, 1, 2] | unique | list }}", {}),
    ("loop_out_of_loop", "[{{ loop }}]", {}),
    # dicts of the context (converted when first read): a repeated key
    # (json.loads keeps its first place and its last value; the vars are
    # given as JSON text for that), the identity of a member read twice, of
    # a copy's and an items() pair's, nested dicts, lookups that are not
    # by a str, and members read in a loop's iterations and after it
    ("ctx_dict_repeated_key", "{{ d.a }}|{{ d['a'] }}|{{ d | length }}|{{ d }}|{{ d | tojson }}|{{ d.items() | list }}|"
     "{% for k in d %}{{ k }}{% endfor %}|{{ 'a' in d }}|{{ d | dictsort }}|{{ d.b.c }}",
     '{"d": {"a": 1, "b": {"c": 1, "c": [2]}, "a": 3}}'),
    ("ctx_dict_identity", "{{ d.l is sameas d.l }}|{{ d.o is sameas d.o }}|{{ d.copy().o is sameas d.o }}|"
     "{{ (d.items() | list)[0][1] is sameas d.l }}|{{ d.n is sameas d.n }}|{{ d.f is sameas d.f }}|{{ d.o is sameas d.copy().o }}",
     {"d": {"l": [1], "o": {"x": 1}, "n": 12345678901234567890123, "f": 1.5}}),
    ("ctx_dict_nested", "{{ d.a.b.c }}|{{ d.a | length }}|{{ d.a.b }}|{{ d }}|{{ d.a.b | tojson }}|{{ d.a.b.c is number }}|"
     "{{ d.e is mapping }}|{{ d.e | length }}|[{{ 'T' if d.e else 'F' }}]|{{ d.a.nope is defined }}",
     {"d": {"a": {"b": {"c": 7}, "z": None}, "e": {}}}),
    ("ctx_dict_lookups", "{{ 'a' in d }}|{{ 1 in d }}|{{ none in d }}|{{ d.get('a') }}|{{ d.get('zz', 5) }}|{{ d.keys() | list }}|"
     "{{ d.values() | list }}|{{ d | items | list }}|{{ d[1] is undefined }}|{{ d['a'] }}|{{ ('a' | safe) in d }}|{{ d == {'a': 1, 'b': [2]} }}",
     {"d": {"a": 1, "b": [2]}}),
    ("ctx_dict_unhashable_in", "{{ [1] in d }}", {"d": {"a": 1}}),
    ("ctx_dict_in_loop", "{% for m in ms %}{% set c = m.calls %}{% set junk = 'x' * 50 ~ loop.index %}{% endfor %}"
     "{% for m in ms %}{{ m.calls[0].f.n }}{{ m.calls | length }}{{ m.calls is sameas m.calls }}{% set junk = 'y' * 50 %}{% endfor %}"
     "{% for m in ms %}{{ m | length }}{{ m.items() | list }}{{ m.calls[0].f }}{% endfor %}",
     {"ms": [{"role": "a", "calls": [{"f": {"n": "one"}}]}, {"calls": [{"f": {"n": "two"}}, {}], "role": "b"}]}),
    ("cmp_int_ops", "{% for a, b in [(1, 2), (2, 2), (3, 2), (-5, 9223372036854775807)] %}"
     "{{ a == b }}{{ a != b }}{{ a < b }}{{ a <= b }}{{ a > b }}{{ a >= b }}{{ 1 < a < 3 }};{% endfor %}", {}),
    ("cmp_int_in_int", "{{ 1 in 2 }}", {}),
    ("str_eq_lengths", "{% for k in ['reasoning_content', 'reasoning_contenT', 'reasoning_content_', 'a' * 32, 'a' * 31 ~ 'b', "
     "'b' ~ 'a' * 31, 'a' * 18 ~ 'b' ~ 'a' * 13, 'x' * 16, 'x' * 15 ~ 'y'] %}{{ d[k] is defined }}{{ k == 'reasoning_content' }}{% endfor %}",
     {"d": {"reasoning_content": 1, "a" * 32: 2, "x" * 16: 3}}),
    # loop.<attribute> where `loop` is the innermost loop's, and where it is
    # something else: a macro's parameter, a with block's scope, an outer
    # loop kept in a variable, a call block's body, a dict named loop at the top
    ("loop_attr_shapes", "{% macro m(loop) %}{{ loop.index }}{% endmacro %}{% macro c() %}{{ caller() }}{% endmacro %}"
     "{% for x in 'ab' %}{{ m({'index': 7}) }}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}"
     "{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.previtem }}{{ loop.nextitem }}{{ loop.depth }}{{ loop.depth0 }}"
     "{% with y = 1 %}{{ loop.index0 }}{% endwith %}{% call c() %}[{{ loop.index }}]{% endcall %}"
     "{% set outer = loop %}{% for z in [1, 2, 3] %}{{ outer.index }}{{ loop.index }}{% endfor %};{% endfor %}", {}),
    ("loop_attr_top_dict", "{{ loop.index }}|{{ loop.first }}", {"loop": {"index": 3, "first": "f"}}),
    ("attr_of_loop_item", "{% for m in ms %}[{{ m.nope }}]{{ m.nope is defined }}{{ m.role }}{{ m.n }}{{ m.l }}{{ m.d.k }}{{ m.items is defined }};{% endfor %}",
     {"ms": [{"role": "a", "n": 1, "l": [1], "d": {"k": None}}, {"role": "b", "n": 2.5, "l": [], "d": {"k": True}}]}),
    ("attr_same_name_other_dicts", "{% for m in ms %}{{ m.role }}{{ ms[0].role }}{{ m.role }}{{ m.d.role }}{{ m.role }}{{ m.nope is defined }}"
     "{{ m.role }}{{ m.d }}{{ m.d.role }};{% endfor %}{{ ms[1].d.role }}{{ (ms | first).role }}",
     {"ms": [{"role": "a", "d": {"role": "in-a"}}, {"role": "b", "d": {"role": "in-b"}}, {"role": "a", "d": {"role": ["x"]}}]}),
    ("attr_of_loop_item_missing_used", "{% for m in ms %}{{ m.nope + 1 }}{% endfor %}", {"ms": [{"role": "a"}]}),
    ("attr_of_loop_item_kinds", "{% for m in ms %}[{{ m.role }}]{% endfor %}",
     {"ms": [None, "str", [1], {"role": "r"}]}),
    ("joiner_cycler", "{% set j = joiner('|') %}{% for x in 'abc' %}{{ j() }}{{ x }}{% endfor %}{% set c = cycler('1', '2') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}{{ c.current }}", {}),
    # Jinja's variables are those of its generated Python (idtracking): a
    # loop, with, filter, set-block or autoescape body is a frame whose
    # variables (l_<level>_<name>) are `missing` after it; sibling frames at
    # one level share them; a macro reads its enclosing function's variables
    # when it runs (a closure); a name read in a frame before the frame or
    # the top level assigns it comes from outside, or is undefined.
    ("frames_macro_in_loop", "{% set ns = namespace(ms=[]) %}{% for x in ['a', 'b'] %}{% macro m() %}[{{ x }}]{% endmacro %}"
     "{% set ns.ms = ns.ms + [m] %}{{ m() }}{% endfor %}{% for f in ns.ms %}{{ f() }};{% endfor %}", {}),
    ("frames_macro_in_loop_set_and_loop", "{% set ns = namespace(ms=[]) %}{% for x in ['a', 'b'] %}{% set y = x ~ '!' %}"
     "{% macro m() %}[{{ y }}|{{ x }}|{{ loop.index }}]{% endmacro %}{% set ns.ms = ns.ms + [m] %}{{ m() }}{% endfor %}"
     "{% for f in ns.ms %}{{ f() }};{% endfor %}", {}),
    ("frames_macro_in_loop_outer_name", "{% set x = 'outer' %}{% set ns = namespace(ms=[]) %}{% for x in ['a', 'b'] %}"
     "{% macro m() %}[{{ x }}]{% endmacro %}{% set ns.ms = ns.ms + [m] %}{% endfor %}{% for f in ns.ms %}{{ f() }};{% endfor %}{{ x }}", {}),
    ("frames_sibling_loops_share", "{% set ns = namespace(ms=[]) %}{% for x in ['a', 'b'] %}{% macro m() %}[{{ x }}]{% endmacro %}"
     "{% set ns.ms = ns.ms + [m] %}{% endfor %}{% for f in ns.ms %}{{ f() }}{% endfor %}{% for x in ['c'] %}{% for f in ns.ms %}{{ f() }}{% endfor %}{% endfor %}", {}),
    ("frames_missing_len", "{% set ns = namespace(ms=[]) %}{% for x in ['a', 'b'] %}{% macro m() %}[{{ x is defined }}{{ x | length }}]{% endmacro %}"
     "{% set ns.ms = ns.ms + [m] %}{% endfor %}{% for f in ns.ms %}{{ f() }}{% endfor %}", {}),
    ("frames_missing_concat", "{% set ns = namespace(ms=[]) %}{% for x in ['a', 'b'] %}{% macro m() %}[{{ x ~ 'z' }}{{ x is none }}{{ 'T' if x }}{{ [x] }}]{% endmacro %}"
     "{% set ns.ms = ns.ms + [m] %}{% endfor %}{% for f in ns.ms %}{{ f() }}{% endfor %}", {}),
    ("frames_missing_attr", "{% set ns = namespace() %}{% for x in ['a'] %}{% macro m() %}{{ x.nope }}{% endmacro %}{% set ns.m = m %}{% endfor %}"
     "[{{ ns.m() }}]", {}),
    ("frames_missing_attr_used", "{% set ns = namespace() %}{% for x in ['a'] %}{% macro m() %}{{ x.nope + 1 }}{% endmacro %}{% set ns.m = m %}{% endfor %}"
     "[{{ ns.m() }}]", {}),
    ("frames_macro_if_late", "{% set ns = namespace(ms=[]) %}{% if true %}{% set y = 1 %}{% macro m() %}[{{ y }}]{% endmacro %}"
     "{% set ns.ms = ns.ms + [m] %}{% endif %}{% set y = 2 %}{% for f in ns.ms %}{{ f() }}{% endfor %}", {}),
    ("frames_macro_later_iteration", "{% set ns = namespace(ms=[]) %}{% for x in ['a', 'b'] %}{% macro m() %}[{{ x }}]{% endmacro %}"
     "{% set ns.ms = ns.ms + [m] %}{% for f in ns.ms %}{{ f() }}{% endfor %};{% endfor %}", {}),
    ("frames_with_macro", "{% set ns = namespace() %}{% with a = 1 %}{% macro m() %}{{ a }}{% endmacro %}{% set ns.m = m %}{% endwith %}{{ ns.m() }}", {}),
    ("frames_with_shares_loop_level", "{% set ns = namespace() %}{% for x in [1] %}{% macro m() %}{{ x }}{% endmacro %}{% set ns.m = m %}{% endfor %}"
     "{% with x = 5 %}{{ ns.m() }}{% endwith %}", {}),
    ("frames_missing_as_argument", "{% set ns = namespace() %}{% for x in [1] %}{% macro m() %}{{ x }}{% endmacro %}{% set ns.m = m %}{% endfor %}"
     "{% macro k(v=3) %}{{ v }}{% endmacro %}{{ k(ns.m()) }}", {}),
    ("frames_loop_reads_later_top_set", "{% for i in [1] %}[{{ y }}]{% endfor %}{% set y = 1 %}|{% for i in [1] %}[{{ y }}]{% set y = 2 %}{% endfor %}", {"y": 5}),
    ("frames_top_read_before_set", "{{ y }}{% set y = 1 %}{{ y }}|{% if true %}[{{ z }}]{% endif %}{% set z = 1 %}", {"y": 5, "z": 6}),
    ("frames_macro_reads_later_top_set", "{% macro m() %}[{{ y }}]{% endmacro %}{{ m() }}{% set y = 1 %}{{ m() }}", {"y": 5}),
    ("frames_with_reads_later_top_set", "{% with %}[{{ y }}]{% endwith %}{% set y = 1 %}", {"y": 5}),
    ("frames_branch_set_resolves", "{% if false %}{% set y = 1 %}{% endif %}[{{ y }}]{% for i in [1] %}{% if false %}{% set w = 2 %}{% endif %}[{{ w }}]{% endfor %}",
     {"y": 5, "w": 6}),
    ("frames_setblock_filter_unknown", "{% set x | replace('a', y) %}abc{% endset %}{{ x }}", {"y": "Z"}),
    ("frames_macro_default_later_param", "{% macro m(a=b, b=1) %}[{{ a }}][{{ b }}]{% endmacro %}{{ m() }}", {}),
    ("frames_block_context", "{% block b %}[{{ y }}]{% endblock %}{% set y = 2 %}|{% set z = 3 %}{% block c %}[{{ z }}]{% endblock %}", {"y": 1, "z": 0}),
    ("frames_block_scoped", "{% for i in [1] %}{% set y = 3 %}{% block b scoped %}{{ y }}{{ i }}{% endblock %}{% endfor %}", {"y": 1}),
    ("frames_for_else_break", "{% for x in [1, 2] %}{% break %}{% else %}E{% endfor %}|{% for x in [1, 2] %}{{ x }}{% if x == 2 %}{% break %}{% endif %}{% else %}E{% endfor %}", {}),
    ("frames_for_else_continue", "{% for x in [1, 2] %}{% continue %}{% else %}E{% endfor %}|{% for x in [1, 2] %}{% if x == 1 %}{% continue %}{% endif %}{% else %}E{% endfor %}", {}),
    ("frames_for_else_outer_name", "{% for x in [] %}{{ x }}{% else %}[{{ x }}]{% endfor %}{% set x = 7 %}{% for x in [] %}{% else %}[{{ x }}]{% endfor %}", {"x": 8}),
    ("frames_autoescape_scope", "{% autoescape false %}{% set y = 1 %}[{{ y }}]{% endautoescape %}[{{ y }}]", {}),
    ("frames_filter_block_scope", "{% filter upper %}{% set y = 'q' %}{{ y }}{% endfilter %}[{{ y }}]", {}),
    ("frames_nested_macro_param", "{% macro outer(v) %}{% macro inner() %}<{{ v }}>{% endmacro %}{{ inner() }}{% set v = v + 1 %}{{ inner() }}{% endmacro %}{{ outer(1) }}", {}),
    ("frames_caller_in_loop", "{% macro m() %}{{ caller() }}{% endmacro %}{% set ns = namespace() %}{% for x in [1, 2] %}{% call m() %}{{ x }}{% endcall %}"
     "{% macro keep() %}{{ x }}{% endmacro %}{% set ns.k = keep %}{% endfor %}[{{ ns.k() }}]", {}),
    # a loop filter is a generator: each item is tested when the loop asks
    # for it (the next iteration, loop.last/nextitem/length/revindex)
    ("for_filter_lazy", "{% set ns = namespace(k=0) %}{% for x in [1, 2, 3, 4] if x > ns.k %}{% set ns.k = 3 %}{{ x }}{% endfor %}", {}),
    ("for_filter_lazy_length", "{% set ns = namespace(k=0) %}{% for x in [1, 2, 3, 4] if x > ns.k %}{% set ns.k = 3 %}{{ x }}{{ loop.length }}{% endfor %}", {}),
    ("for_filter_lazy_last", "{% set ns = namespace(k=0) %}{% for x in [1, 2, 3, 4] if x > ns.k %}{{ x }}{{ loop.last }}{% set ns.k = 2 %}{% endfor %}", {}),
    ("for_filter_lazy_next", "{% set ns = namespace(k=0) %}{% for x in [1, 2, 3, 4, 5] if x > ns.k %}{{ x }}{{ loop.nextitem }}{{ loop.revindex }}"
     "{% set ns.k = 3 %};{% endfor %}", {}),
    ("for_filter_lazy_body_error_first", "{% for x in [1, 0] if 1 / x %}{{ raise_exception('body') }}{% endfor %}", {}),
    ("for_filter_lazy_filter_error", "{% for x in [1, 0] if 1 / x %}{{ x }}{% endfor %}", {}),
    ("for_filter_lazy_repr", "{% set ns = namespace(k=0) %}{% for x in [1, 2, 3] if x > ns.k %}{{ loop }}{% set ns.k = 5 %}{% endfor %}", {}),
    ("for_filter_lazy_attrs", "{% for x in [3, 1, 2] if x > 1 %}{{ loop.previtem }}{{ x }}{{ loop.first }}{{ loop.index }}{{ loop.revindex0 }}"
     "{{ loop.cycle('a', 'b') }};{% else %}E{% endfor %}|{% set ns = namespace(k=0) %}{% for x in [1, 2, 3] if x > ns.k %}{{ x }}"
     "{% set ns.k = 5 %}{% else %}E{% endfor %}", {}),
    # caller, kwargs and varargs are special when the body (not a default) reads them
    ("macro_default_caller_call", "{% macro m(a=caller) %}[{{ a }}]{% endmacro %}{% call m() %}x{% endcall %}", {}),
    ("macro_default_caller", "{% macro m(a=caller) %}[{{ a }}]{% endmacro %}{{ m() }}", {}),
    ("macro_default_varargs", "{% macro m(a=varargs) %}[{{ a }}]{% endmacro %}{{ m() }}", {}),
    ("macro_default_kwargs", "{% macro m(a=kwargs) %}[{{ a }}]{% endmacro %}{{ m(b=1) }}", {}),
    # found by a randomized comparison with Jinja2 (scoping constructs)
    ("filter_block_continue", "{% for x in [1, 2] %}{% filter upper %}a{% continue %}{% endfilter %}b{% endfor %}", {}),
    ("set_block_break", "{% for x in [1, 2, 3] %}{% set s %}{% if x == 2 %}{% break %}{% endif %}{% endset %}{{ x }}{% endfor %}|"
     "{% for x in [1, 2, 3] %}{% set s | upper %}{% if x == 2 %}{% break %}{% endif %}{% endset %}{{ x }}{% endfor %}", {}),
    ("for_else_break_outer", "{% for y in [1, 2] %}{{ y }}{% for m in [] %}{% else %}{% break %}{% endfor %}{% endfor %}|"
     "{% for y in [1, 2] %}{% for m in [] %}{% else %}{% continue %}{% endfor %}{{ y }}{% endfor %}", {}),
    ("nsref_checked_before_value", "{% set ns.a = ns.a %}", {}),
    ("nsref_checked_before_value_error", "{% set ns = 1 %}{% set ns.a = 1 / 0 %}", {}),
    ("for_filter_tuple_target", "{% for a, b in [[1, 2], [3, 4]] if true %}{{ loop.previtem }}|{{ loop.nextitem }};{% endfor %}"
     "{% for a, (b, c) in [[4, [5, 6]], [7, [8, 9]]] if a %}{{ loop.nextitem }}{{ a }}{{ b }}{{ c }};{% endfor %}", {}),
    ("loop_call_not_recursive", "{% for x in [1] %}{{ loop(1) }}{% endfor %}", {}),
    ("loop_call_no_argument", "{% for x in [1] %}{{ loop() }}{% endfor %}", {}),
    ("loop_call_keyword", "{% for x in [1] recursive %}{{ loop(caller=1) }}{% endfor %}", {}),
    ("loop_call_two", "{% for x in [1] recursive %}{{ loop([], 2) }}{% endfor %}", {}),
    ("loop_call_twice", "{% for x in [1] recursive %}{{ loop([], iterable=2) }}{% endfor %}", {}),
    ("loop_call_iterable_keyword", "{% for x in [[1]] recursive %}{{ x }}{% if x is iterable %}{{ loop(iterable=x) }}{% endif %}{% endfor %}", {}),
    ("call_block_extra_keyword", "{% macro m() %}{% endmacro %}{% call m(k=1) %}{% endcall %}", {}),
    ("caller_name_none", "{% macro m() %}{{ caller(1) }}{% endmacro %}{% call m() %}{% endcall %}", {}),
    ("caller_name_none_keyword", "{% macro m() %}{{ caller(k=1) }}{% endmacro %}{% call m() %}{% endcall %}", {}),
    ("caller_none_is_no_caller", "{% macro m() %}[{{ caller }}]{% endmacro %}{{ m(caller=none) }}", {}),
    ("explicit_caller_param_used", "{% macro m(caller=1, b=2) %}{{ caller }}{% endmacro %}{{ m(5, 6) }}|{{ m(b=3) }}|{{ m(5) }}", {}),
    ("explicit_caller_param_nested", "{% macro o() %}{% macro m(caller=1, b=2) %}{{ caller }}{{ kwargs }}{% endmacro %}{{ m(5) }}{% endmacro %}{{ o() }}", {}),
    ("repr_self_reference", "{% set ns = namespace(a=0) %}{% set ns.a = ns %}{{ ns }}|{{ ns ~ '' }}|{% set ns2 = namespace(a=[]) %}"
     "{% set ns2.a = [ns2, [1, ns2.a], (ns2,)] %}{{ ns2 }}|{% set x = [1] %}{{ [x, x] }}{{ (x, x) }}{{ {'a': x, 'b': x} }}", {}),
    ("set_tuple_repeated_name", "{% set a, a = x, 1 %}{{ a }}|{% set a, a = 1, 2 %}{{ a }}|{% set a, a = [x, y] %}{{ a }}|"
     "{% set b, a, a = x, y, z %}{{ a }}|{% set a, a, c, d = x, y, z, x %}{{ a }}|{% set a, a = 1 + 1, 3 %}{{ a }}|"
     "{% set a, a = [1], 3 %}{{ a }}", {"x": "X", "y": "Y", "z": "Z"}),
    ("set_tuple_repeated_name_cell", "{% set a, a = x, 1 %}{% macro m() %}{{ a }}{% endmacro %}{{ a }}{{ m() }}|"
     "{% for i in [1] %}{% set b, b = x, 2 %}{{ b }}{% endfor %}|{% set c, c = x, 3 %}{% for i in [1] if c %}{{ c }}{% endfor %}",
     {"x": "X"}),
    ("frames_recursive_loop_closure", "{% set ns = namespace(ms=[]) %}{% for item in tree recursive %}{% macro m() %}{{ item.n }}{% endmacro %}"
     "{% set ns.ms = ns.ms + [m] %}{{ loop(item.c) if item.c }}{% endfor %}{% for f in ns.ms %}[{{ f() }}]{% endfor %}",
     {"tree": [{"n": "a", "c": [{"n": "b"}]}, {"n": "d"}]}),
    # found by differential_expr.py
    ("repeat_empty_huge", "[{{ '' * i }}][{{ [] * i }}][{{ ('a'|e) * 0 }}][{{ 'ab' * 2 }}]", {"i": 2 ** 53 + 1}),
    ("groupby_named_tuple", "{% for g in r|groupby('n') %}[{{ g.grouper }}:{{ g.list|length }}:{{ g['list'] }}:{{ g }}:{{ g.count(1) }}]"
     "{% endfor %}{{ r|groupby('n')|map(attribute='grouper')|list }}|{% for k, v in r|groupby('n') %}{{ k }}{{ v|length }}{% endfor %}|"
     "[{{ (r|groupby('n'))[0]._fields }}]{{ (r|groupby('n'))[0]|tojson }}", {"r": [{"n": 1}, {"n": 2}, {"n": 1}]}),
    ("groupby_tuple_concat", "{{ (r|groupby('n'))[0] + 1 }}", {"r": [{"n": 1}]}),
    ("groupby_tuple_type", "{{ (r|groupby('n'))[0] - 1 }}", {"r": [{"n": 1}]}),
    ("concat_markup_int", "{{ (s|e) + 1 }}", {"s": "a"}),
    ("concat_list_int", "{{ [1] + 1 }}", {}),
    ("concat_tuple_str", "{{ (1,) + 'a' }}", {}),
    ("sum_markup_int", "{{ [1]|sum(start=(s|e)) }}", {"s": "x"}),
    ("int_true_div_big", "{{ 3 / i }}|{{ i / 3 }}|{{ -i / 7 }}|{{ i / -i }}|{{ j / 3 }}|{{ 1 / j }}|{{ j / k }}|{{ k / j }}|{{ 0 / j }}|{{ j / 1 }}|{{ 7 / 2 }}",
     {"i": 2 ** 53 + 1, "j": 2 ** 63 - 1, "k": -2 ** 63}),
    ("float_pow_overflow", "{{ 2.0 ** 1023 }}|{{ f ** 2 }}", {"f": 1e300}),
    ("float_pow_overflow_negative", "{{ (-f) ** 3 }}", {"f": 1e300}),
    ("int64_min_literal", "{{ -9223372036854775808 }}|{{ (-9223372036854775808) + 1 }}|{{ 'ab'[(-9223372036854775808):] }}|"
     "{{ [1] * (-9223372036854775808) }}|{{ -x }}|{{ --x }}|{{ (-x) is integer }}", {"x": -2 ** 63}),
    ("slice_big_bounds", "{{ 'ab'[x:] }}|{{ 'ab'[:y] }}|{{ 'abc'[::y] }}|{{ 'abc'[::z] }}|{{ [1, 2, 3][y::z] }}|"
     "{{ 'ab'[99999999999999999999:] }}|{{ 'abcd'[::-9223372036854775808] }}", {"x": 2 ** 63, "y": -2 ** 63 - 1, "z": 2 ** 63}),
    ("bigint_percent", "{{ '%s' % i }}|{{ '%d' % i }}|{{ '%s %s' % (i, 1) }}|{{ '%r' % i }}", {"i": 10 ** 20}),
    ("bigint_str_repeat", "{{ 'a' * i }}", {"i": 10 ** 20}),
    ("bigint_list_repeat_negative", "{{ i * [1] }}", {"i": -10 ** 20}),
    ("bigint_str_concat", "{{ 'a' + i }}", {"i": 10 ** 20}),
    ("bigint_list_concat", "{{ [1] + i }}", {"i": 10 ** 20}),
    ("bigint_markup_concat", "{{ (s|e) + i }}", {"s": "a", "i": 10 ** 20}),
    ("seq_mul_none", "{{ s * n }}", {"s": "a", "n": None}),
    ("seq_mul_dict", "{{ [1] * {} }}", {}),
    ("seq_mul_none_left", "{{ n * (1,) }}", {"n": None}),
    ("seq_mul_markup_right", "{{ [1] * (s|e) }}", {"s": "x"}),
    ("seq_mul_markup_left", "{{ (s|e) * n }}", {"s": "x", "n": None}),
    ("seq_mul_markup_markup", "{{ (s|e) * (s|e) }}", {"s": "x"}),
    ("seq_mul_none_markup", "{{ n * (s|e) }}", {"s": "x", "n": None}),
    ("replace_none_message", "{{ s.replace('a', n) }}", {"s": "a", "n": None}),
    ("replace_none_message_first", "{{ s.replace(n, 'a') }}", {"s": "a", "n": None}),
    ("strftime_none_message", "{{ strftime_now(n) }}", {"n": None}),
    ("dunder_int_call", "{{ i.__class__() }}", {"i": 1}),
    ("dunder_printed", "[{{ u.__class__ }}|{{ i.__class__ }}|{{ none.__class__ }}|{{ 1.5.__class__ }}|{{ i.__len__ }}|"
     "{{ i.__class__ is defined }}|{{ true.__and__ is defined }}]", {"i": 1}),
    ("dunder_undefined_unsafe", "{{ u.__add__(1) }}", {}),
    ("dunder_undefined_missing", "{{ u.__foo__ }}", {}),
    ("dunder_none_unsafe", "{{ none.__bool__() }}", {}),
    ("dunder_none_missing", "{{ none.__add__() }}", {}),
    ("dunder_float_missing", "{{ (1.5).__index__() }}", {}),
    ("urlencode_list_undefined", "{{ [['a', 1], u]|urlencode }}", {}),
    ("percent_undefined", "[{{ '%s|' % x }}][{{ '%r' % x }}][{{ 'ab' % x }}][{{ ('%s' % x)|length }}][{{ ('<%s>'|e) % x }}][{{ '%s' % (x,) }}]", {}),
    ("percent_undefined_two", "{{ '%s %s' % x }}", {}),
    ("percent_undefined_hex", "{{ '%x' % x }}", {}),
    ("percent_undefined_key", "{{ '%(a)s' % x }}", {}),
    ("percent_undefined_int", "{{ '%d' % x }}", {}),
    ("in_string_undefined", "{{ x in 'abc' }}", {}),
    ("in_list_undefined", "{{ x in [1, 2] }}|{{ x in {'a': 1} }}|{{ 1 in x }}|{{ x not in [1] }}", {}),
    ("range_undefined", "{{ range(1, x) }}", {}),
    # list.pop and list.clear: the sandbox allows them (not in its _mutable_spec for lists)
    ("list_pop_clear", "{% set q = [1, 2, 3, 4] %}{% set r = q %}{% set c = q.copy() %}{% set s = q[:] %}{% set t = q|list %}"
     "{{ q.pop() }}{{ r }}{{ q.pop(1) }}{{ q }}{{ q.pop(0) }}{{ q.pop(-1) }}{{ q }}{{ q.clear() }}{{ r }}{{ r|length }}|{{ c }}{{ s }}{{ t }}|"
     "{{ l.pop(0) }}{{ l }}{{ l|tojson }}{{ d.x.pop() }}{{ d|tojson }}{{ d|tojson(indent=1) }}{{ d }}",
     {"l": [1, 2, 3], "d": {"x": [1, 2], "y": "z"}}),
    ("list_pop_namespace_queue", "{% set ns = namespace(q=['a', 'b', 'c']) %}{% for m in ms %}{{ ns.q.pop(0) }}{{ m.tool_calls.pop(0).id }}"
     "{{ m.tool_calls|length }}{% endfor %}|{{ ns.q }}|{{ ms|tojson }}",
     {"ms": [{"tool_calls": [{"id": "x"}, {"id": "y"}]}, {"tool_calls": [{"id": "z"}]}]}),
    ("list_pop_empty", "{{ [].pop() }}", {}),
    ("list_pop_range", "{{ l.pop(-2) }}", {"l": [1]}),
    ("list_pop_str_index", "{{ l.pop('a') }}", {"l": [1]}),
    ("list_pop_two", "{{ l.pop(1, 2) }}", {"l": [1]}),
    ("list_pop_keyword", "{{ l.pop(x=1) }}", {"l": [1]}),
    ("list_pop_big_index", "{{ l.pop(i) }}", {"l": [1], "i": 2 ** 63}),
    ("list_clear_argument", "{{ l.clear(1) }}", {"l": [1]}),
    ("list_append_unsafe", "{{ l.append(1) }}", {"l": []}),
    ("tuple_pop_missing", "{{ (1, 2).pop() }}", {}),
    ("dict_pop_unsafe", "{{ {'a': 1}.pop('a') }}", {}),
    ("slice_object_checked_first", "{{ x[1:2:0] }}", {"x": True}),
    ("slice_object_checked_first_bounds", "{{ n[j:1] }}", {"n": None, "j": []}),
    ("slice_dict_bounds", "{{ d[u:2] }}", {"d": {}}),
    ("wordwrap_wrapstring_first", "{{ n|wordwrap(3, wrapstring=false) }}", {"n": None}),
    ("str_format_map", "{{ '{a}-{b.x}-{c[0]}'.format_map(d) }}|{{ 'x'.format_map(1) }}|{{ '{a!r:>5}'.format_map({'a': 'q'}) }}",
     {"d": {"a": 1, "b": {"x": 2}, "c": [3]}}),
    ("str_format_map_missing", "{{ '{z}'.format_map(d) }}", {"d": {}}),
    ("str_format_map_positional", "{{ '{0}'.format_map(d) }}", {"d": {}}),
    ("str_format_map_auto", "{{ '{}'.format_map(d) }}", {"d": {}}),
    ("str_format_map_none", "{{ '{a}'.format_map() }}", {}),
    ("str_format_map_two", "{{ '{a}'.format_map(d, d) }}", {"d": {}}),
    ("str_format_map_keyword", "{{ '{a}'.format_map(d, x=1) }}", {"d": {}}),
    ("str_format_map_undefined", "{{ '{a}'.format_map(u) }}", {}),
    ("str_format_map_list", "{{ '{a}'.format_map([1]) }}", {}),
    ("str_format_map_int", "{{ '{a}'.format_map(1) }}", {}),
    ("str_translate", "{{ 'abc'.translate({97: 'X', 98: none, 99: 65}) }}|{{ 'abc'.translate(['q'] * 98) }}|{{ 'abc'.translate('xyz' * 40) }}|"
     "{{ ''.translate(1) }}|{{ 'abc'.translate({true: 1}) }}|{{ 'é😀x'.translate({233: 'e', 128512: ':)'}) }}|{{ 'abc'.translate(d) }}|"
     "{{ ('<a>'|e).translate({97: '&'}) }}", {"d": {"97": "z"}}),
    ("str_maketrans", "{{ 'a'.maketrans({'a': 1, 98: 'x', 'c': none}) }}|{{ 'a'.maketrans('ab', 'cd', 'e') }}|{{ 'a'.maketrans({true: 1}) }}|"
     "{{ 'a'.maketrans({}) }}|{{ 'héllo'.translate('a'.maketrans('hé', 'HE', 'o')) }}|{{ 'a'.maketrans(d) }}", {"d": {"a": 1}}),
    ("str_translate_float", "{{ 'abc'.translate({97: 1.5}) }}", {}),
    ("str_translate_negative", "{{ 'abc'.translate({97: -1}) }}", {}),
    ("str_translate_none", "{{ 'abc'.translate(none) }}", {}),
    ("str_translate_no_argument", "{{ 'abc'.translate() }}", {}),
    ("str_translate_undefined", "{{ 'abc'.translate(u) }}", {}),
    ("str_maketrans_none", "{{ 'a'.maketrans() }}", {}),
    ("str_maketrans_four", "{{ 'a'.maketrans(1, 2, 3, 4) }}", {}),
    ("str_maketrans_not_dict", "{{ 'a'.maketrans(1) }}", {}),
    ("str_maketrans_long_key", "{{ 'a'.maketrans({'ab': 1}) }}", {}),
    ("str_maketrans_float_key", "{{ 'a'.maketrans({1.5: 1}) }}", {}),
    ("str_maketrans_lengths", "{{ 'a'.maketrans('ab', 'c') }}", {}),
    ("str_maketrans_first_not_str", "{{ 'a'.maketrans(1, 'c') }}", {}),
    ("str_maketrans_second_not_str", "{{ 'a'.maketrans(1, 2) }}", {}),
    ("str_maketrans_keyword", "{{ 'a'.maketrans(x=1) }}", {}),
    # range() gives a range object (the sandbox's safe_range)
    ("range_object", "{{ range(3) }}|{{ range(1, 5, 2) }}|{{ range(3) == [0, 1, 2] }}|{{ range(3) == range(0, 3) }}|{{ range(0) == range(5, 2) }}|"
     "{{ range(3)|list }}|{{ range(3)|length }}|{{ range(3)|string }}|{{ range(3) ~ '' }}|{{ [range(2)] }}|{{ range(10)[2] }}|"
     "{{ range(10)[1:3] }}|{{ range(0, 10, 2)[1:3] }}|{{ range(10)[::-1] }}|{{ range(10)[5:2] }}|{{ range(4)[::2][::-1] }}|"
     "{{ range(3).start }}{{ range(3).stop }}{{ range(1, 9, 4).step }}|{{ range(5).index(3) }}{{ range(5).index(2.0) }}{{ range(5).count(3) }}|"
     "{{ range(3) is sequence }}|{{ range(3)|sum }}|{{ range(3)|join(',') }}|{{ 2 in range(3) }}|{{ range(3)|first }}{{ range(3)|last }}|"
     "{{ range(3) is filter }}|{{ '%s' % range(2) }}|{{ range(2) in [range(2)] }}|{{ {range(2): 1}[range(0, 2)] }}|{{ range(3)|pprint }}|"
     "{{ range(3) != [0, 1, 2] }}|{{ not range(0) }}|{{ range(2).pop is defined }}", {}),
    ("range_add", "{{ range(2) + [5] }}", {}),
    ("range_add_right", "{{ [5] + range(2) }}", {}),
    ("range_mul", "{{ range(2) * 2 }}", {}),
    ("range_mul_left", "{{ 2 * range(2) }}", {}),
    ("range_mul_str", "{{ 'a' * range(2) }}", {}),
    ("range_mul_by_str", "{{ range(2) * 'a' }}", {}),
    ("range_tojson", "{{ range(2)|tojson }}", {}),
    ("range_order", "{{ range(2) < range(3) }}", {}),
    ("range_index_missing", "{{ range(5).index(7) }}", {}),
    ("range_index_missing_str", "{{ range(5).index('a') }}", {}),
    ("range_index_two", "{{ range(5).index(1, 2) }}", {}),
    ("range_append", "{{ range(2).append(1) }}", {}),
    ("pprint_generator", "{{ [1, 2]|map('string')|list|pprint }}", {}),
    ("sum_list_generator", "{{ [[1], l|map('int')]|sum(start=[]) }}", {"l": ["1"]}),
    ("sum_list_range", "{{ [range(2)]|sum(start=[]) }}", {}),
    ("range_add_generator", "{{ range(2) + l|map('int') }}", {"l": []}),
    ("list_add_generator", "{{ [1] + l|map('int') }}", {"l": []}),
    ("markup_add_generator", "{{ (s|e) + l|map('int') }}", {"s": "x", "l": []}),
    ("namespace_underscore_names", "{% set ns = namespace(__x__=1, _y=2, z=3) %}[{{ ns.__x__ }}]{{ ns.__x__ is defined }}"
     "{{ ns._y is defined }}{{ ns.z }}{{ d._y }}{{ d.__y }}", {"d": {"_y": 1, "__y": 2}}),
    ("namespace_underscore_unsafe", "{% set ns = namespace(_y=2) %}{{ ns._y + 1 }}", {}),
    ("namespace_class_unsafe", "{% set ns = namespace() %}{{ ns.__class__() }}", {}),
    ("namespace_dunder_missing", "{% set ns = namespace() %}{{ ns.__doc__ + 1 }}", {}),
    # accumulation in a loop: + appends to a list's or string's buffer in
    # place when nothing else sees the room after it (tmpl_value.h); the
    # lists and strings that share it keep what they had
    ("accumulate_list", "{% set ns = namespace(l=[]) %}{% for i in range(20) %}{% set ns.l = ns.l + [i] %}{% endfor %}"
     "{{ ns.l }}|{{ ns.l | length }}", {}),
    ("accumulate_list_shared", "{% set ns = namespace(l=[1]) %}{% set ns.l = ns.l + [2] %}{% set a = ns.l %}"
     "{% set ns.l = ns.l + [3] %}{% set b = a + [4] %}{% set ns.l = ns.l + [5] %}{% set c = b + [6] %}"
     "{{ a }}|{{ b }}|{{ c }}|{{ ns.l }}|{{ a + [7] }}|{{ b + [8] }}|{{ ns.l + [9] }}|{{ c }}", {}),
    ("accumulate_list_pop", "{% set ns = namespace(l=[]) %}{% for i in range(6) %}{% set ns.l = ns.l + [i] %}{% endfor %}"
     "{% set c = ns.l + [] %}{% set x = ns.l.pop() %}{% set d = ns.l + ['p'] %}{% set y = ns.l.pop(0) %}"
     "{% set e = ns.l + ['q'] %}{% set z = d.pop(0) %}{% set f = d + ['r'] %}"
     "{{ c }}|{{ d }}|{{ e }}|{{ f }}|{{ ns.l }}|{{ x }}{{ y }}{{ z }}", {}),
    ("accumulate_list_pop_front", "{% set l = [1, 2] + [3] %}{% set x = l.pop(0) %}{% set m = l + [4] %}"
     "{% set n = l + [5] %}{{ l }}{{ m }}{{ n }}{{ x }}", {}),
    ("accumulate_list_clear", "{% set l = [1, 2] + [3] %}{% set k = l + [] %}{{ l.clear() }}{% set m = l + [4] %}"
     "{% set n = k + [5] %}{{ l }}{{ m }}{{ n }}{{ k }}", {}),
    ("accumulate_list_self", "{% set l = [1] + [2] %}{% set m = l + l %}{% set n = m + l + m %}{{ l }}{{ m }}{{ n }}", {}),
    ("accumulate_list_loop_over", "{% set ns = namespace(l=[0] + [1]) %}{% for x in ns.l %}{% set ns.l = ns.l + [x + 10] %}"
     "{% endfor %}{{ ns.l }}", {}),
    ("accumulate_list_sameas", "{% set a = [1] + [2] %}{% set b = a + [] %}{{ b is sameas a }}{{ b == a }}", {}),
    ("accumulate_tuple", "{% set ns = namespace(t=()) %}{% for i in range(5) %}{% set ns.t = ns.t + (i,) %}{% endfor %}"
     "{% set u = ns.t + ('x',) %}{% set v = ns.t + ('y',) %}{{ ns.t }}{{ u }}{{ v }}", {}),
    ("accumulate_str", "{% set ns = namespace(s='') %}{% for i in range(40) %}{% set ns.s = ns.s + 'ab' + i | string %}"
     "{% endfor %}{{ ns.s }}|{{ ns.s | length }}", {}),
    ("accumulate_str_tilde", "{% set ns = namespace(s='') %}{% for i in range(40) %}{% set ns.s = ns.s ~ i ~ ',' %}"
     "{% endfor %}{{ ns.s }}", {}),
    ("accumulate_str_shared", "{% set ns = namespace(s='x' * 70) %}{% set ns.s = ns.s + 'y' %}{% set a = ns.s + 'z' %}"
     "{% set b = a + 'w' %}{% set c = a + 'v' %}{% set d = b + 'u' %}{% set e = a ~ 't' %}{% set f = a ~ 's' %}"
     "{{ a[68:] }}|{{ b[68:] }}|{{ c[68:] }}|{{ d[68:] }}|{{ e[68:] }}|{{ f[68:] }}|{{ ns.s[68:] }}", {}),
    ("accumulate_str_self", "{% set a = 'q' * 40 + 'r' * 40 %}{% set b = a + a %}{% set c = b + a + b %}{% set d = c ~ c %}"
     "{{ b }}|{{ c | length }}|{{ c[-41:] }}|{{ d | length }}|{{ d[230:250] }}", {}),
    ("accumulate_str_markup", "{% set ns = namespace(s='<i>' | safe) %}{% for i in range(3) %}{% set ns.s = ns.s + '<b>' %}"
     "{% endfor %}{{ ns.s }}|{{ ns.s ~ '<u>' }}", {}),
    ("accumulate_str_context", "{% set ns = namespace(s='') %}{% for m in ms %}{% set ns.s = ns.s + m.content %}"
     "{% set ns.s = ns.s + '|' %}{% endfor %}{{ ns.s }}", {"ms": [{"content": "a" * 50}, {"content": "b" * 30}, {"content": "c"}]}),
]


def main():
    import datetime
    tenv = oracle.TemplateEnv(datetime.datetime.fromisoformat(NOW))
    seen = set()
    for name, src, ctx in CASES:
        assert name not in seen, name
        seen.add(name)
        # vars given as JSON text stay as written in the record (a repeated
        # key would not survive a dict)
        raw = ctx if isinstance(ctx, str) else None
        if raw is not None:
            ctx = json.loads(raw)
        rec = {"name": name, "template": src, "vars": None if raw is not None else ctx}
        try:
            # a copy: list.pop in a template changes the lists it is given
            rec["out"] = tenv.compile(src).render(**copy.deepcopy(ctx))
        except Exception as e:  # noqa: BLE001 - errors are expected data
            rec.update(error_type=type(e).__name__, error=str(e))
        line = json.dumps(rec, ensure_ascii=False)
        if raw is not None:
            line = line.replace('"vars": null', '"vars": ' + raw, 1)
        print(line)


if __name__ == "__main__":
    main()
