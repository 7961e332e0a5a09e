#!/usr/bin/env python3
"""allcp.py - every code point (surrogates aside, 1,112,064), alone, through
NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Nmt and BertNormalizer (three
settings), tally (drv.c) against the oracle (lib.scan: the code points joined
by a separator, 2048 to a text); then, for the recompositions, the oracle's
NFD (NFKD) of every code point that has one through NFC (NFKC).

Configurations (lib.SCANS): nfc nfd nfkc nfkd lower stripacc nmt bert
bert_nolower bert_strip, and nfc_of_nfd nfkc_of_nfkd (these two use the nfd
and nfkd scans). Default: all. --scans DIR: a cache of the oracle's scans
(lib.scan), read when there, written when not; gen_tables.py takes the same.
usage: allcp.py --drv BIN [--scans DIR] [NAME...]
Time: ~15 s a configuration. Exit status 0 when nothing differs, 1 otherwise."""
import argparse
import sys

import lib

RECOMPOSE = {'nfc_of_nfd': ('nfd', {'type': 'NFC'}), 'nfkc_of_nfkd': ('nfkd', {'type': 'NFKC'})}


def report(name, n, bad):
    print('allcp %s: %d %s, %d mismatches' % (name, n, 'strings' if name in RECOMPOSE else 'code points',
                                               len(bad)))
    for t, m, o in bad[:6]:
        print('    %s: tally %s, oracle %s' % (lib.fmt_cps(t), m if m.startswith('ERR') else lib.fmt_cps(m),
                                              lib.fmt_cps(o)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--drv', required=True)
    ap.add_argument('--scans')
    ap.add_argument('names', nargs='*')
    a = ap.parse_args()
    names = a.names or list(lib.SCANS) + list(RECOMPOSE)
    for n in names:
        if n not in lib.SCANS and n not in RECOMPOSE:
            sys.exit('allcp.py: unknown configuration %s (%s)' % (n, ' '.join(list(lib.SCANS) + list(RECOMPOSE))))
    scans = {}

    def scan(n):
        if n not in scans:
            scans[n] = lib.scan(n, a.scans)
        return scans[n]

    total = 0
    for name in names:
        if name in RECOMPOSE:
            src, spec = RECOMPOSE[name]
            texts = [scan(src)[c] for c in sorted(scan(src))]
            texts = [t for t in texts if t]
            orc = lib.oracle_norm(spec, texts)
        else:
            spec = lib.SCANS[name][0]
            res = scan(name)
            texts = [chr(c) for c in lib.ALL_CPS]
            orc = [res.get(c, chr(c)) for c in lib.ALL_CPS]
        mine = lib.tally_norm(a.drv, spec, texts)
        bad = [(t, m, o) for t, m, o in zip(texts, mine, orc) if m != o]
        report(name, len(texts), bad)
        total += len(bad)
    print('allcp: %d configurations, %d mismatches' % (len(names), total))
    return 1 if total else 0


if __name__ == '__main__':
    sys.exit(main())
