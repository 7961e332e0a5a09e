#!/usr/bin/env python3
"""verify_tests.py - checks the expectations of tests/test_norm.c against the
oracle (nothing of tally's runs here):

  EXPECT_NORM(spec, in, want)          the oracle's `spec` turns `in` into `want`;
  EXPECT(returns_input(spec, S(in)))   the oracle's `spec` leaves `in` as it is;
  EXPECT_LOAD_ERR(spec, code, msg)     listed with what the oracle does with
                                       `spec` (refuses to load it, panics on a
                                       text, or loads it: tally may refuse
                                       on purpose what the oracle accepts);
                                       not counted as mismatches.

`spec` is a string literal or a `static const char NAME[]` of the file. Calls
whose arguments are not literals are listed as skipped.
A case on which the oracle fails (panics) is listed as ORACLE FAILS: it has
no answer to compare with, and is not counted as a mismatch.
usage: verify_tests.py [FILE]        (default tests/test_norm.c; ~70 s)
Exit status 0 when no expectation differs from the oracle's answer, else 1."""
import json
import re
import sys

import lib


def parse_lits(text):
    """Concatenated C string literals -> bytes."""
    out = b''
    i = 0
    text = text.strip()
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        if text[i] != '"':
            raise ValueError('not a string literal: ' + text[i:i + 40])
        i += 1
        while text[i] != '"':
            c = text[i]
            if c == '\\':
                d = text[i + 1]
                if d == 'x':
                    j = i + 2
                    while j < len(text) and text[j] in '0123456789abcdefABCDEF':
                        j += 1
                    out += bytes([int(text[i + 2:j], 16)])
                    i = j
                    continue
                if d in 'uU':
                    n = 4 if d == 'u' else 8
                    out += chr(int(text[i + 2:i + 2 + n], 16)).encode()
                    i += 2 + n
                    continue
                out += {'n': b'\n', 't': b'\t', 'r': b'\r', '"': b'"', '\\': b'\\', '0': b'\0'}[d]
                i += 2
                continue
            out += c.encode()
            i += 1
        i += 1
    return out


def args_of(s, start):
    """The top-level comma-separated arguments of the call whose '(' ends
    just before `start`."""
    args, depth, cur, i, instr = [], 0, '', start, False
    while True:
        c = s[i]
        if instr:
            cur += c
            if c == '\\':
                cur += s[i + 1]
                i += 2
                continue
            if c == '"':
                instr = False
        elif c == '"':
            instr = True
            cur += c
        elif c == '(':
            depth += 1
            cur += c
        elif c == ')':
            if depth == 0:
                args.append(cur.strip())
                return args
            depth -= 1
            cur += c
        elif c == ',' and depth == 0:
            args.append(cur.strip())
            cur = ''
        else:
            cur += c
        i += 1


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else lib.TEST_NORM_C
    with open(path, encoding='utf-8') as f:
        src = f.read()
    names = {m.group(1): parse_lits(m.group(2)).decode()
             for m in re.finditer(r'static const char (\w+)\[\] = ((?:\s*"(?:[^"\\]|\\.)*")+);', src)}

    def spec_of(a):
        if a in names:
            return names[a]
        return parse_lits(a).decode() if a.startswith('"') else None

    def lit(a):
        a = a.strip()
        if a.startswith('S(') and a.endswith(')'):
            a = a[2:-1]
        return parse_lits(a).decode() if a.startswith('"') else None

    cases, loads, skipped = [], [], []   # cases: (spec, in, want, line, kind)
    for m in re.finditer(r'\bEXPECT_NORM\(|\bEXPECT\(returns_input\(|\bEXPECT_LOAD_ERR\(', src):
        line = src.count('\n', 0, m.start()) + 1
        before = src[src.rfind('\n', 0, m.start()) + 1:m.start()]
        if before.startswith('#define ') or '/*' in before or before.lstrip().startswith('*'):
            continue   # the macro's definition, or a comment
        a = args_of(src, m.end())
        try:
            if m.group(0).startswith('EXPECT_NORM'):
                spec, i, want = spec_of(a[0]), lit(a[1]), lit(a[2])
                kind = 'norm'
            elif m.group(0).startswith('EXPECT(returns_input'):
                spec, i = spec_of(a[0]), lit(a[1])
                want, kind = i, 'same'
            else:
                spec, i, want, kind = spec_of(a[0]), 'a', None, 'load'
        except (ValueError, KeyError, IndexError) as ex:
            spec, kind = None, str(ex)
        if spec is None or i is None or (kind == 'norm' and want is None):
            skipped.append('line %d: %s(%s)' % (line, m.group(0).rstrip('('), ', '.join(a)[:80]))
            continue
        (loads if kind == 'load' else cases).append((spec, i, want, line, kind))

    byspec = {}
    for c in cases:
        byspec.setdefault(c[0], []).append(c)
    bad = panics = 0
    for spec, cs in byspec.items():
        try:
            res = lib.oracle_norm(json.loads(spec), [c[1] for c in cs])
        except lib.OracleError:
            res = []
            for c in cs:   # one at a time, to find the text it fails on
                try:
                    res += lib.oracle_norm(json.loads(spec), [c[1]])
                except lib.OracleError as ex:
                    res.append(ex)
        for (sp, i, want, line, kind), got in zip(cs, res):
            if isinstance(got, Exception):
                panics += 1
                print('ORACLE FAILS line %d: %s on %r: %s; test %r%s' % (
                    line, sp, i, got, want, ' (returns_input)' if kind == 'same' else ''))
            elif got != want:
                bad += 1
                print('MISMATCH line %d: %s on %r: oracle %r, test %r%s' % (
                    line, sp, i, got, want, ' (returns_input)' if kind == 'same' else ''))

    for spec, _, _, line, _ in loads:
        try:
            v = json.loads(spec)
        except ValueError:
            print('load error, line %d: %s: not JSON for the oracle either' % (line, spec))
            continue
        try:
            got = lib.oracle_norm(v, ['a', 'aa b', ''])
            what = 'the oracle loads it (%s)' % ', '.join(repr(g) for g in got)
        except lib.OracleError as ex:
            what = 'the oracle fails too: %s' % str(ex)[:120]
        print('load error, line %d: %s: %s' % (line, spec, what))

    for s in skipped:
        print('skipped (arguments not literals): ' + s)
    n_norm = sum(c[4] == 'norm' for c in cases)
    print('verify_tests: %d EXPECT_NORM + %d returns_input checked: %d mismatches, %d where the oracle fails '
          '(panics); %d load errors listed, %d skipped' % (n_norm, len(cases) - n_norm, bad, panics, len(loads),
                                                           len(skipped)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
