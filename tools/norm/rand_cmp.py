#!/usr/bin/env python3
"""rand_cmp.py - random strings through every normalizer type, tally (drv.c)
against the oracle, plus the crate's ways of loading odd normalizer objects.

Groups (N strings each, seeded):
  marks  combining marks of many scripts, Hangul jamo and syllables,
         precomposed and compatibility characters, the characters that make
         compositions with them, and the code points assigned after Unicode
         9.0 that utf8proc gives a class, decomposition or composition (the
         crate, at 9.0, treats them as unassigned) x NFC, NFD, NFKC, NFKD,
         StripAccents, BertNormalizer(strip_accents), a Sequence;
  text   letters, white space of all kinds, controls, CJK, emoji, private
         use, the characters behind normalize.c's special cases
         x Strip (3 ways), ByteLevel, Prepend+Replace (llama2's), a mixed
         Sequence, Replace, BertNormalizer, StripAccents, Nmt, Lowercase, NFKC;
  regex  spaces, dots, letters, digits x Replace with 5 regexes;
  load   19 normalizer objects of odd shapes (no type, unknown type, extra
         or missing fields, ...) x 4 fixed strings: does each side load
         them, and what do they give.

Per configuration a line 'NAME: N strings, K mismatches' (examples below a
line that has some). Where tally refuses (an error) what the oracle answers,
or the oracle panics on what tally answers, the line says so: tally's
documented refusals (e.g. a Replace whose regex matches the empty string)
are listed there, not counted as mismatches.
usage: rand_cmp.py --drv BIN --uprops BIN [--seed S] [-n N]   (~1 min at N 2000)
Exit status 0 when nothing differs, 1 otherwise."""
import argparse
import random
import sys

import lib

BERT = lib.BERT
BERT_ALL = {'type': BERT, 'clean_text': True, 'handle_chinese_chars': True, 'strip_accents': None,
            'lowercase': True}

MARKS_SPECS = [
    ('nfc', {'type': 'NFC'}),
    ('nfd', {'type': 'NFD'}),
    ('nfkc', {'type': 'NFKC'}),
    ('nfkd', {'type': 'NFKD'}),
    ('stripacc', {'type': 'StripAccents'}),
    ('bert_strip', lib.SCANS['bert_strip'][0]),
    ('seq_nfd_strip_lower', {'type': 'Sequence', 'normalizers': [{'type': 'NFD'}, {'type': 'StripAccents'},
                                                                 {'type': 'Lowercase'}]}),
]

TEXT_SPECS = [
    ('strip', {'type': 'Strip', 'strip_left': True, 'strip_right': True}),
    ('lstrip', {'type': 'Strip', 'strip_left': True, 'strip_right': False}),
    ('rstrip', {'type': 'Strip', 'strip_left': False, 'strip_right': True}),
    ('bytelevel', {'type': 'ByteLevel'}),
    ('llama2norm', {'type': 'Sequence', 'normalizers': [
        {'type': 'Prepend', 'prepend': '\u2581'}, {'type': 'Replace', 'pattern': {'String': ' '}, 'content': '\u2581'}]}),
    ('seq_mix', {'type': 'Sequence', 'normalizers': [
        {'type': 'NFKD'}, {'type': 'StripAccents'}, {'type': 'Lowercase'},
        {'type': 'Replace', 'pattern': {'String': 'ab'}, 'content': '[AB]'},
        {'type': 'Strip', 'strip_left': True, 'strip_right': True}, {'type': 'Prepend', 'prepend': '<<'}]}),
    ('replace_multi', {'type': 'Replace', 'pattern': {'String': 'aa'}, 'content': 'b'}),
    ('bert', BERT_ALL),
    ('bert_nolower', lib.SCANS['bert_nolower'][0]),
    ('stripacc', {'type': 'StripAccents'}),
    ('nmt', {'type': 'Nmt'}),
    ('lower', {'type': 'Lowercase'}),
    ('nfkc', {'type': 'NFKC'}),
]

REGEX_SPECS = [
    ('replace_regex1', {'type': 'Replace', 'pattern': {'Regex': ' {2,}'}, 'content': ' '}),
    ('replace_regex2', {'type': 'Replace', 'pattern': {'Regex': '(?<=\\p{L})\\d+|[\\u00e0-\\u00ff]'}, 'content': '#'}),
    ('replace_regex3', {'type': 'Replace', 'pattern': {'Regex': '\\s+'}, 'content': '\u2581'}),
    ('replace_regex4', {'type': 'Replace', 'pattern': {'Regex': '(?i:ab)|\\p{Lu}\\p{Ll}'}, 'content': '<$0>'}),
    ('replace_regex5', {'type': 'Replace', 'pattern': {'Regex': '\u3000|\\.{2,}'}, 'content': ''}),
]

LOAD_SPECS = [
    ('bertnorm', {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True,
                  'strip_accents': None, 'lowercase': True}),
    ('bert', {'type': 'Bert', 'clean_text': True, 'handle_chinese_chars': True, 'strip_accents': None,
              'lowercase': True}),
    ('notype_strip', {'strip_left': True, 'strip_right': True}),
    ('foo_strip', {'type': 'Foo', 'strip_left': True, 'strip_right': True}),
    ('nfc_strip', {'type': 'NFC', 'strip_left': True, 'strip_right': True}),
    ('strip_missing', {'type': 'Strip', 'strip_left': True}),
    ('notype_prepend', {'prepend': 'X'}),
    ('notype_seq', {'normalizers': [{'type': 'Lowercase'}]}),
    ('bert_sa_missing', {'type': 'BertNormalizer', 'clean_text': False, 'handle_chinese_chars': False,
                         'lowercase': True}),
    ('bert_missing', {'type': 'BertNormalizer', 'clean_text': False, 'lowercase': True}),
    ('replace_empty', {'type': 'Replace', 'pattern': {'String': ''}, 'content': 'X'}),
    ('replace_regex_empty', {'type': 'Replace', 'pattern': {'Regex': 'a*'}, 'content': 'X'}),
    ('nfc_extra', {'type': 'NFC', 'foo': 1}),
    ('strip_int', {'type': 'Strip', 'strip_left': 1, 'strip_right': True}),
    ('replace_both', {'type': 'Replace', 'pattern': {'String': 'a', 'Regex': 'b'}, 'content': 'X'}),
    ('precompiled', {'type': 'Precompiled', 'precompiled_charsmap': ''}),
    ('prepend_typed_wrong', {'type': 'Prepend', 'prepend': 'X', 'strip_left': True}),
    ('seq_bad', {'type': 'Sequence', 'normalizers': [{'type': 'Lowercase'}, {'type': 'Nope'}]}),
    ('bytelevel', {'type': 'ByteLevel'}),
]
LOAD_TEXTS = ['  H\u00e9llo baa \u0130 \u4e2d \u0301x ', '', 'a', 'aab\u2581 ']


def rng_pool(pool, a, b):
    pool.append([chr(c) for c in range(a, b + 1)])


def marks_pool(up, in9):
    """cmp: the pool of the 'marks' group."""
    late = [chr(c) for c in range(0x110000)
            if not 0xD800 <= c < 0xE000 and not in9(c) and (up.ccc[c] or up.dec[c] or up.comb[c])]
    pool = []
    for a, b in [(0x61, 0x7a), (0x41, 0x5a), (0x20, 0x20), (0x300, 0x36f), (0x591, 0x5c7), (0x610, 0x61a),
                 (0x64b, 0x65f), (0xe31, 0xe3a), (0x1dc0, 0x1dff), (0x20d0, 0x20f0), (0x302a, 0x302f),
                 (0x3099, 0x309a), (0xfe20, 0xfe2f), (0x1d165, 0x1d172)]:
        rng_pool(pool, a, b)
    pool.append(late)
    for a, b in [(0x1100, 0x1112), (0x1161, 0x1175), (0x11a7, 0x11c2), (0xac00, 0xac40), (0xd788, 0xd7a3),
                 (0xc0, 0x17f), (0x1e00, 0x1eff), (0x1f00, 0x1fff), (0xfb00, 0xfb06), (0xff00, 0xffef),
                 (0x2460, 0x24ff), (0x3300, 0x33ff), (0x1d400, 0x1d47f), (0x915, 0x939)]:
        rng_pool(pool, a, b)
    pool.append([chr(c) for c in (
        0x93c, 0x9bc, 0x9c7, 0x9be, 0x9d7, 0xb47, 0xb3e, 0xb56, 0xb57, 0xcc6, 0xcc2, 0xcd5, 0xcbf, 0xd46, 0xd3e,
        0xd57, 0xdd9, 0xdcf, 0xddf, 0x1025, 0x102e, 0x1b05, 0x1b35, 0x11099, 0x110ba, 0x11131, 0x11127, 0x11347,
        0x1133e, 0x11357, 0x114b9, 0x114b0, 0x114ba, 0x114bd, 0x115b8, 0x115af, 0x11935, 0x11930, 0x1fbf1,
        0x32ff, 0x1f16c, 0x0344, 0x0340, 0x0f73, 0x0f75, 0x0f81, 0x2126, 0x212b, 0x1e9b, 0x0385, 0x3d3, 0x3d2,
        0x301, 0x308, 0x1cf2, 0x1cf3, 0x111c9, 0x1734, 0x8e2)])
    for a, b in [(0x958, 0x95f), (0xf71, 0xf84), (0xf900, 0xfa6d), (0x2f800, 0x2f820), (0x3040, 0x30ff),
                 (0x4e00, 0x4e20)]:
        rng_pool(pool, a, b)
    return pool


def text_pool():
    pool = []
    rng_pool(pool, 0x61, 0x7a)
    rng_pool(pool, 0x41, 0x5a)
    pool.append([chr(c) for c in (0x20, 0x20, 0x9, 0xa, 0xd, 0xb, 0xc, 0x85, 0xa0, 0x1680, 0x2000, 0x200a, 0x200b,
                                  0x2028, 0x202f, 0x205f, 0x3000, 0xfeff, 0x180e, 0x1c, 0x0)])
    pool.append(list('aab\u2581 '))
    for a, b in [(0x300, 0x36f), (0xc0, 0x17f), (0x1e00, 0x1eff), (0x370, 0x3ff), (0x400, 0x4ff), (0x4e00, 0x4e20),
                 (0xfb00, 0xfb06), (0xff00, 0xffef), (0x1f600, 0x1f64f), (0xe000, 0xe010), (0x1, 0x1f),
                 (0x7f, 0x9f)]:
        rng_pool(pool, a, b)
    pool.append([chr(c) for c in (0x130, 0x1e9e, 0x212a, 0x2126, 0x3a3, 0xfffd, 0x2581, 0x200d, 0x1734, 0x8e2,
                                  0x111c9, 0x1cf2, 0xa7cb, 0x10d50)])
    return pool


def regex_pool():
    return [list(' \t\n\u3000\u00a0.ab'), [chr(c) for c in range(0x61, 0x7b)], [chr(c) for c in range(0x41, 0x5b)],
            list('0123456789'), list('\u00e0\u00e9\u00e7\u00c0\u00c9\u4e2d\u6587..'), ['\U0001F600', '\u0301']]


def strings(rnd, pool, n, lo, hi):
    return [''.join(rnd.choice(rnd.choice(pool)) for _ in range(rnd.randint(lo, hi))) for _ in range(n)]


def compare(name, spec, texts, drv, quiet_examples=4):
    """Runs both sides; prints a line; returns the number of mismatches."""
    try:
        mine = lib.tally_norm(drv, spec, texts)
    except lib.LoadError as ex:
        mine = ex
    try:
        orc = lib.oracle_norm_each(spec, texts)
    except lib.OracleError as ex:
        orc = ex
    if isinstance(mine, Exception) or isinstance(orc, Exception):
        if isinstance(mine, Exception) and isinstance(orc, Exception):
            print('%s: both refuse to load it (tally: %s | oracle: %s)' % (name, str(mine)[:70], str(orc)[:70]))
            return 0
        if isinstance(mine, Exception):
            npanic = sum(isinstance(o, Exception) for o in orc)
            answers = [repr(o)[:40] for o in orc if not isinstance(o, Exception)]
            print('%s: tally refuses to load it (%s); the oracle %s' % (
                name, str(mine)[:90], 'panics on every text' if npanic == len(orc) else
                'loads it, panics on %d of %d texts, answers %s' % (npanic, len(orc), ', '.join(answers))))
            return 0
        print('%s: MISMATCH: tally loads it, the oracle does not (%s)' % (name, str(orc)[:120]))
        return 1
    bad, refused, panicked = [], [], []
    for t, m, o in zip(texts, mine, orc):
        if isinstance(o, Exception):
            if m.startswith('ERR'):
                continue
            panicked.append((t, m, o))
        elif m.startswith('ERR') and not o.startswith('ERR'):
            refused.append((t, m, o))
        elif m != o:
            bad.append((t, m, o))
    extra = ''
    if refused:
        extra += ', tally refuses %d that the oracle answers' % len(refused)
    if panicked:
        extra += ', the oracle panics on %d that tally answers' % len(panicked)
    print('%s: %d strings, %d mismatches%s' % (name, len(texts), len(bad), extra))
    for t, m, o in bad[:quiet_examples]:
        print('    %r: tally %r, oracle %r' % (t, m, o))
    for t, m, o in refused[:2]:
        print('    refused %r: tally %s, oracle %r' % (t, m[:80], o))
    for t, m, o in panicked[:2]:
        print('    oracle panics on %r (%s); tally %r' % (t, str(o)[:60], m))
    return len(bad)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--drv', required=True)
    ap.add_argument('--uprops', required=True)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('-n', type=int, default=2000)
    a = ap.parse_args()
    up = lib.UProps(a.uprops)
    in9 = lib.in_invlist(lib.assigned_invlist('9.0'))
    rnd = random.Random(a.seed)
    groups = [
        ('marks', MARKS_SPECS, strings(rnd, marks_pool(up, in9), a.n, 1, 24)),
        ('text', TEXT_SPECS, strings(rnd, text_pool(), a.n, 0, 16) + ['', '   ', '\u3000 \t']),
        ('regex', REGEX_SPECS, strings(rnd, regex_pool(), a.n, 0, 20)),
        ('load', LOAD_SPECS, LOAD_TEXTS),
    ]
    total, configs = 0, 0
    for g, specs, texts in groups:
        for name, spec in specs:
            total += compare('%s/%s' % (g, name), spec, texts, a.drv)
            configs += 1
    print('rand_cmp seed %d n %d: %d configurations, %d mismatches' % (a.seed, a.n, configs, total))
    return 1 if total else 0


if __name__ == '__main__':
    sys.exit(main())
