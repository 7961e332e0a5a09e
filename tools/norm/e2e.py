#!/usr/bin/env python3
"""e2e.py - the whole pipeline (normalizer, pre-tokenizer, model, added
tokens) of the tokenizer assets that have a normalizer: tally (enc.c) against
the oracle, token ids of random strings (ASCII, combining marks, precomposed
Latin and Greek, CJK, characters of later Unicode versions, compatibility
characters, Hangul, special-token texts).

Assets: the folders of $TALLY_ASSETS (else <root>/assets) whose
tokenizer.json has a normalizer other than null, or the names given.
usage: e2e.py --enc BIN [--seed S] [-n N] [ASSET...]   (~10 s an asset at N 3000)
Exit status 0 when every id list agrees, 1 otherwise."""
import argparse
import json
import os
import random
import sys

import lib


def assets_with_normalizer():
    out = []
    for name in sorted(os.listdir(lib.ASSETS)):
        p = os.path.join(lib.ASSETS, name, 'tokenizer.json')
        if os.path.isfile(p):
            with open(p, encoding='utf-8') as f:
                if json.load(f).get('normalizer') is not None:
                    out.append(name)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--enc', required=True)
    ap.add_argument('--seed', type=int, default=5)
    ap.add_argument('-n', type=int, default=3000)
    ap.add_argument('assets', nargs='*')
    a = ap.parse_args()
    if not os.path.isdir(lib.ASSETS):
        sys.exit('e2e.py: no assets folder %s (sh scripts/fetch-assets.sh, or set TALLY_ASSETS)' % lib.ASSETS)
    names = a.assets or assets_with_normalizer()
    rnd = random.Random(a.seed)
    pool = [list('abcdefghij KLMNO.,!?\n'), [chr(c) for c in range(0x300, 0x370)],
            [chr(c) for c in range(0xc0, 0x180)], [chr(c) for c in range(0x1e00, 0x1f00)],
            [chr(c) for c in range(0x4e00, 0x4e40)],
            [chr(c) for c in (0x1fbf1, 0x32ff, 0x1df6, 0x11935, 0x11930, 0xfb01, 0x2460, 0xff21, 0x212b, 0x1100,
                              0x1161, 0x11a8, 0xac00, 0x337b)],
            ['<|im_start|>', '<|endoftext|>', '</s>', ' ']]
    strs = [''.join(rnd.choice(rnd.choice(pool)) for _ in range(rnd.randint(0, 40))) for _ in range(a.n)]
    total = 0
    for name in names:
        d = os.path.join(lib.ASSETS, name)
        try:
            mine = lib.tally_ids(a.enc, d, strs)
        except lib.LoadError as ex:
            print('e2e %s: MISMATCH: tally does not load it: %s' % (name, ex))
            total += 1
            continue
        try:
            orc = [','.join(map(str, ids)) for ids in lib.oracle_ids(d, strs)]
        except lib.OracleError as ex:
            print('e2e %s: the oracle fails: %s' % (name, ex))
            total += 1
            continue
        bad = [(s, m, o) for s, m, o in zip(strs, mine, orc) if m != o]
        print('e2e %s: %d strings, %d mismatches' % (name, len(strs), len(bad)))
        for s, m, o in bad[:3]:
            print('    %r: tally %s, oracle %s' % (s, m[:80], o[:80]))
        total += len(bad)
    print('e2e seed %d n %d: %d assets (%s), %d mismatches' % (a.seed, a.n, len(names), ' '.join(names), total))
    return 1 if total else 0


if __name__ == '__main__':
    sys.exit(main())
