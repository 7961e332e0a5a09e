#!/usr/bin/env python3
"""gen_tables.py - regenerates the generated tables of src/tok/normalize.c
and prints them, each as blocks.py sees it (the rows between the line that
opens the array and its '};'), under a line '@@ NAME':

  UNI9        code points assigned in Unicode 9.0: assigned.pl (Perl's
              Unicode::UCD, Age <= 9.0), the pairs of its inversion list;
  MN_NOT8     nonspacing marks (utf8proc) assigned in 9.0 that BertNormalizer
              does not strip, i.e. that were not Mn in unicode_categories
              0.1.1 (Unicode 8.0): the oracle's BertNormalizer with only
              strip_accents says which single code points it removes;
  COMPOSED    primary composites of Unicode 9.0: code points that the
              oracle's NFD changes and its NFC leaves alone (Hangul syllables
              aside: they compose by rule), as ranges merged across gaps of
              less than 64 that hold only composites or characters without a
              canonical decomposition in utf8proc (those never reach the table);
  COMPOSED_K  the same, keeping only composites whose NFKD equals their NFD;
  LOWER_NEW   lowercase mappings of the oracle (Rust's char::to_lowercase)
              that utf8proc lacks: runs of code points with the same delta.

The oracle's answers come from scans of every code point (lib.scan, ~10 s
each); --scans DIR is a cache of them: read when there, written when not
(allcp.py takes the same).
Notes on what normalize.c hard-codes beside the tables (the exceptions of
is_mark9 and map_bert_mn, the one full lowercase mapping) go to stderr.

usage: gen_tables.py --uprops BIN [-o FILE] [--scans DIR]
BIN is uprops.c built (lib.sh's build_uprops)."""
import argparse
import sys

import lib

# Table layouts as normalize.c has them: 5 entries a line, or as many as fit
# in 96 columns (any limit from 91 to 98 gives the same).
LAYOUT = {'UNI9': 5, 'MN_NOT8': 'w96', 'COMPOSED': 5, 'COMPOSED_K': 5, 'LOWER_NEW': 'w96'}
ORDER = ['UNI9', 'MN_NOT8', 'COMPOSED', 'COMPOSED_K', 'LOWER_NEW']


def layout(name, items):
    how = LAYOUT[name]
    lines, row = [], []
    for it in items:
        if how == 'w96':
            if row and len('    ' + ' '.join(row + [it + ','])) > 96:
                lines.append('    ' + ' '.join(row))
                row = []
        elif len(row) == how:
            lines.append('    ' + ' '.join(row))
            row = []
        row.append(it + ',')
    if row:
        lines.append('    ' + ' '.join(row))
    return '\n'.join(lines) + '\n'


def urange_items(rs):
    """[lo, hi] pairs -> '{0xlo, 0xhi+1}' (the tables are [lo, hi))."""
    return ['{0x%x, 0x%x}' % (a, b + 1) for a, b in rs]


def merge_composites(vals, up):
    """ana: ranges of `vals`, merged over short gaps that hold only members
    or characters without a canonical decomposition."""
    vs = set(vals)
    r = []
    for c in sorted(vs):
        if r and c - r[-1][1] < 64 and all(x in vs or not up.canonical_dec(x)
                                           for x in range(r[-1][1] + 1, c)):
            r[-1][1] = c
        else:
            r.append([c, c])
    return r


def delta_str(lo, d):
    if d < 0:
        return '0x%x - 0x%x' % (lo + d, lo)
    return '%d' % d if d < 10 else '0x%x' % d


def note(*a):
    print('gen_tables:', *a, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--uprops', required=True)
    ap.add_argument('-o', '--out')
    ap.add_argument('--scans')
    a = ap.parse_args()

    def scan(name):
        return lib.scan(name, a.scans)

    up = lib.UProps(a.uprops)
    inv = lib.assigned_invlist('9.0')
    in9 = lib.in_invlist(inv)
    out = {}

    # UNI9
    if len(inv) % 2:
        inv = inv + [0x110000]
    out['UNI9'] = ['{0x%x, 0x%x}' % (inv[i], inv[i + 1]) for i in range(0, len(inv), 2)]

    # MN_NOT8 (+ the Mn that utf8proc no longer has)
    bs = scan('bert_strip')
    mn8 = {c for c, r in bs.items() if r == '' and c >= 0x300}
    mn_now = {c for c in range(0x300, 0x110000) if up.cat[c] == up.CAT_MN and in9(c)}
    out['MN_NOT8'] = urange_items(lib.ranges(mn_now - mn8))
    note('BertNormalizer strips these, not Mn in utf8proc (map_bert_mn hard-codes them):',
         ' '.join('%04X' % c for c in sorted(mn8 - mn_now)) or 'none')

    # StripAccents: is_mark9's exceptions
    sa = scan('stripacc')
    m9 = {c for c, r in sa.items() if r == ''}
    m_now = {c for c in range(0x110000) if up.cat[c] in (up.CAT_MN, up.CAT_MC, up.CAT_ME) and in9(c)}
    note('StripAccents strips these, not marks in utf8proc (is_mark9 hard-codes them):',
         ' '.join('%04X' % c for c in sorted(m9 - m_now)) or 'none')
    note('StripAccents keeps these marks of utf8proc assigned in 9.0 (is_mark9 hard-codes them):',
         ' '.join('%04X' % c for c in sorted(m_now - m9)) or 'none')

    # COMPOSED, COMPOSED_K
    nfc, nfd, nfkd = scan('nfc'), scan('nfd'), scan('nfkd')
    vals = sorted(c for c in nfd if c not in nfc and not 0xAC00 <= c <= 0xD7A3)
    kvals = [c for c in vals if nfkd.get(c, chr(c)) == nfd[c]]
    note('%d primary composites, %d of them with NFKD = NFD' % (len(vals), len(kvals)))
    out['COMPOSED'] = urange_items(merge_composites(vals, up))
    out['COMPOSED_K'] = urange_items(merge_composites(kvals, up))

    # LOWER_NEW
    low = scan('lower')
    new, bad = {}, []
    for c in range(0x80, 0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        want = low.get(c, chr(c))
        if len(want) != 1:
            if c != 0x130:
                bad.append('%04X -> %s (a full mapping)' % (c, lib.fmt_cps(want)))
            continue
        have = up.lower[c]
        if have == ord(want):
            continue
        if have == c:
            new[c] = ord(want) - c
        else:
            bad.append('%04X -> %s, utf8proc %04X' % (c, lib.fmt_cps(want), have))
    note('lowercase: full mappings besides U+0130, or utf8proc mapping differently:',
         '; '.join(bad) or 'none')
    runs = []
    for c in sorted(new):
        if runs and runs[-1][1] == c and runs[-1][2] == new[c]:
            runs[-1][1] = c + 1
        else:
            runs.append([c, c + 1, new[c]])
    out['LOWER_NEW'] = ['{0x%x, 0x%x, %s}' % (lo, hi, delta_str(lo, d)) for lo, hi, d in runs]

    text = ''.join('@@ %s\n%s' % (name, layout(name, out[name])) for name in ORDER)
    if a.out:
        with open(a.out, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    note(', '.join('%s %d' % (n, len(out[n])) for n in ORDER), 'entries')


if __name__ == '__main__':
    main()
