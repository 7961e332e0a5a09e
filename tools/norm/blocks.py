#!/usr/bin/env python3
"""blocks.py - finds the generated tables of src/tok/normalize.c, so that they
can be compared with (check.sh) or replaced by (the lead, by hand)
regenerated ones. A table's block is its rows: the lines between the line
that opens the array ('static const urange NAME[] = {', or '} NAME[] = {'
for LOWER_NEW) and its '};'.
  blocks.py get [NAME...] [--file FILE]   print the blocks, each under '@@ NAME'
  blocks.py put GENERATED [NAME...] [--file FILE]
                                          replace the blocks of FILE by those of
                                          GENERATED (gen_tables.py's output)
NAME defaults to every table (UNI9 MN_NOT8 COMPOSED COMPOSED_K LOWER_NEW);
FILE to src/tok/normalize.c."""
import re
import sys

import lib

NAMES = ['UNI9', 'MN_NOT8', 'COMPOSED', 'COMPOSED_K', 'LOWER_NEW']


def find(lines, name):
    """(first, last+1) line indexes of the rows of table `name`."""
    opener = re.compile(r'^(static const urange |\} )%s\[\] = \{$' % re.escape(name))
    b = [i for i, l in enumerate(lines) if opener.match(l.rstrip('\n'))]
    if len(b) != 1:
        sys.exit('blocks.py: %d openers of %s found' % (len(b), name))
    e = next(i for i in range(b[0], len(lines)) if lines[i].rstrip('\n') == '};')
    return b[0] + 1, e


def parse_generated(text):
    """'@@ NAME' sections -> {name: rows text}."""
    out, cur = {}, None
    for l in text.splitlines(True):
        if l.startswith('@@ '):
            cur = l[3:].strip()
            out[cur] = ''
        elif cur:
            out[cur] += l
    return out


def main():
    args = sys.argv[1:]
    path = lib.NORMALIZE_C
    if '--file' in args:
        k = args.index('--file')
        path = args[k + 1]
        del args[k:k + 2]
    if not args or args[0] not in ('get', 'put') or (args[0] == 'put' and len(args) < 2):
        sys.exit(__doc__)
    op = args.pop(0)
    gen = None
    if op == 'put':
        with open(args.pop(0), encoding='utf-8') as f:
            gen = parse_generated(f.read())
    names = args or NAMES
    for n in names:
        if n not in NAMES:
            sys.exit('blocks.py: unknown table %s (%s)' % (n, ' '.join(NAMES)))
    with open(path, encoding='utf-8') as f:
        lines = f.readlines()
    if op == 'get':
        for n in names:
            b, e = find(lines, n)
            sys.stdout.write('@@ %s\n%s' % (n, ''.join(lines[b:e])))
        return
    for n in names:
        if n not in gen:
            sys.exit('blocks.py: %s not in the generated file' % n)
        b, e = find(lines, n)
        lines[b:e] = [gen[n]]
        lines = ''.join(lines).splitlines(True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(''.join(lines))


if __name__ == '__main__':
    main()
