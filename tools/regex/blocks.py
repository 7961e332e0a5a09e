#!/usr/bin/env python3
"""blocks.py - finds the generated blocks in the sources, so that they can be
compared with (check.sh) or replaced by (the lead, by hand) regenerated ones.
  blocks.py get tables|vectors [FILE]        print the block of FILE
  blocks.py put tables|vectors FILE NEW      replace the block of FILE by NEW's text
FILE defaults to src/tok/regex.c (tables) or tests/test_pretok.c (vectors).
tables:  from 'static const u32 uni_ranges[][2] = {' to the '};' closing uni_props
vectors: from '/* Generated from the oracle' to the '};' closing vec[]"""
import os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KINDS = {  # kind: (default file, first line starts with, line that opens the last array)
    'tables': ('src/tok/regex.c', 'static const u32 uni_ranges[][2] = {', 'static const uprop uni_props[] = {'),
    'vectors': ('tests/test_pretok.c', '/* Generated from the oracle', 'static const struct { int pt; const char *in, *pieces; int n; } vec[] = {'),
}


def find(lines, kind):
    """(first, last+1) line indexes of the block."""
    _, start, last = KINDS[kind]
    b = next((i for i, l in enumerate(lines) if l.startswith(start)), None)
    if b is None:
        sys.exit('blocks.py: no %r found' % start)
    j = next(i for i in range(b, len(lines)) if lines[i].rstrip('\n') == last)
    e = next(i for i in range(j, len(lines)) if lines[i].rstrip('\n') == '};')
    return b, e + 1


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ('get', 'put') or sys.argv[2] not in KINDS:
        sys.exit(__doc__)
    op, kind = sys.argv[1], sys.argv[2]
    path = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, KINDS[kind][0])
    with open(path, encoding='utf-8') as f:
        lines = f.readlines()
    b, e = find(lines, kind)
    if op == 'get':
        sys.stdout.write(''.join(lines[b:e]))
        return
    with open(sys.argv[4], encoding='utf-8') as f:
        new = f.read()
    with open(path, 'w', encoding='utf-8') as f:
        f.write(''.join(lines[:b]) + new + ''.join(lines[e:]))


if __name__ == '__main__':
    main()
