#!/usr/bin/env python3
"""summarize.py - compares tally's output (drv) with the oracle's (orc.js) for
the same cases file and prints the differences grouped by configuration: how
many strings differ, and for the first one the first differing pieces.
usage: summarize.py CASES.jsonl TALLY.txt ORACLE.txt   (exit 1 if any differ)
Both sides failing ("ERR ...", messages differ) counts as agreement."""
import json, sys


def show(line, i):
    """Pieces i-1..i+2 of an output line, decoded, for a short report."""
    if line.startswith('ERR'):
        return line[:100]
    ps = line.split(' ') if line else []
    sel = ps[max(0, i - 1):i + 3]
    txt = [bytes.fromhex(h).decode('utf-8', 'backslashreplace') for h in sel]
    return '#%d: %s' % (max(0, i - 1), json.dumps(txt, ensure_ascii=True)[:160])


def first_diff(a, b):
    """Index of the first piece where output lines a and b differ."""
    pa, pb = a.split(' '), b.split(' ')
    return next((i for i, (x, y) in enumerate(zip(pa, pb)) if x != y), min(len(pa), len(pb)))


def main():
    cases, mine, orc = (open(p, encoding='utf-8') for p in sys.argv[1:4])
    ncfg = nstr = nerr = 0
    bad = []   # (config, differing strings, first report)
    for cl in cases:
        q = json.loads(cl)
        ncfg += 1
        ndiff, first = 0, None
        for k, s in enumerate(q['s']):
            a, b = mine.readline().rstrip('\n'), orc.readline().rstrip('\n')
            nstr += 1
            if a.startswith('ERR') and b.startswith('ERR'):
                nerr += 1
                continue
            if a != b:
                ndiff += 1
                if first is None:
                    i = first_diff(a, b)
                    first = (k, s, show(a, i), show(b, i))
        if ndiff:
            bad.append((q['pt'], ndiff, first))
    if mine.readline() or orc.readline():
        print('warning: more output lines than strings (a side printed extra lines)')
    for pt, ndiff, (k, s, a, b) in bad:
        print('DIFF %d string(s): %s' % (ndiff, json.dumps(pt, ensure_ascii=False)[:200]))
        print('    string %d (%d chars): %s' % (k, len(s), json.dumps(s[:60])))
        print('    tally  %s' % a)
        print('    oracle %s' % b)
    print('compared %d strings in %d configs: %d configs differ (%d strings); both failed: %d'
          % (nstr, ncfg, len(bad), sum(x[1] for x in bad), nerr))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
