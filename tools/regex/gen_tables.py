#!/usr/bin/env python3
"""gen_tables.py - generates the Unicode tables of src/tok/regex.c (uni_ranges
and uni_props): for each Oniguruma property/escape, its members as the oracle's
Oniguruma (Unicode 16) sees them, written as a PCRE2 base (as PCRE2 10.42,
Unicode 14, sees it) plus code-point ranges to add and to remove.

usage: gen_tables.py --pcls PCLS [--onig DUMP] [--save-onig FILE] [-o OUT]
  --pcls      the pcls binary built from pcls.c (asks PCRE2 for the bases)
  --onig      read the Oniguruma sets from DUMP (lines "KEY\\tranges", as
              onig_sets.js prints them) instead of asking the oracle
  --save-onig keep the oracle's answers in FILE (a DUMP for later --onig)
  -o          write the tables there (default: stdout); a summary goes to stderr
regen_tables.sh builds pcls and runs this; check.sh compares with regex.c."""
import argparse, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(v):
    """'lo-hi,lo-hi' (hex) -> set of code points."""
    s = set()
    if v:
        for r in v.split(','):
            a, b = r.split('-')
            s.update(range(int(a, 16), int(b, 16) + 1))
    return s


def rng(s):
    """set of code points -> sorted list of [lo, hi] runs."""
    out = []
    for c in sorted(s):
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return out


def norm(n):
    """Oniguruma's name normalization: lower case without '_', ' ', '-'."""
    return n.lower().replace('_', '').replace(' ', '').replace('-', '')


# ---- what goes into the table: (names, oracle key, PCRE2 base items) ----
GC = [('C', 'Other'), ('Cc', 'Control'), ('Cf', 'Format'), ('Cn', 'Unassigned'), ('Co', 'Private_Use'),
      ('L', 'Letter'), ('LC', 'Cased_Letter'), ('Ll', 'Lowercase_Letter'), ('Lm', 'Modifier_Letter'),
      ('Lo', 'Other_Letter'), ('Lt', 'Titlecase_Letter'), ('Lu', 'Uppercase_Letter'),
      ('M', 'Mark'), ('Mc', 'Spacing_Mark'), ('Me', 'Enclosing_Mark'), ('Mn', 'Nonspacing_Mark'),
      ('N', 'Number'), ('Nd', 'Decimal_Number'), ('Nl', 'Letter_Number'), ('No', 'Other_Number'),
      ('P', 'Punctuation'), ('Pc', 'Connector_Punctuation'), ('Pd', 'Dash_Punctuation'),
      ('Pe', 'Close_Punctuation'), ('Pf', 'Final_Punctuation'), ('Pi', 'Initial_Punctuation'),
      ('Po', 'Other_Punctuation'), ('Ps', 'Open_Punctuation'),
      ('S', 'Symbol'), ('Sc', 'Currency_Symbol'), ('Sk', 'Modifier_Symbol'), ('Sm', 'Math_Symbol'),
      ('So', 'Other_Symbol'),
      ('Z', 'Separator'), ('Zl', 'Line_Separator'), ('Zp', 'Paragraph_Separator'), ('Zs', 'Space_Separator')]
WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}'
ENTRIES = []
for short, long in GC:
    names = [short, long] + (['Combining_Mark'] if short == 'M' else [])
    ENTRIES.append((names, '\\p{%s}' % short, '\\p{%s}' % short))
ENTRIES += [
    (['@s'], '\\s', ''), (['@d'], '\\d', '\\p{Nd}'), (['@w'], '\\w', WORD), (['@h'], '\\h', ''),
    (['Alpha'], '\\p{Alpha}', '\\p{Alphabetic}'), (['Alphabetic'], '\\p{Alphabetic}', '\\p{Alphabetic}'),
    (['Digit'], '\\p{Digit}', '\\p{Nd}'), (['Space', 'White_Space'], '\\p{Space}', ''),
    (['Word'], '\\p{Word}', WORD),
    (['Upper'], '\\p{Upper}', '\\p{Uppercase}'), (['Uppercase'], '\\p{Uppercase}', '\\p{Uppercase}'),
    (['Lower'], '\\p{Lower}', '\\p{Lowercase}'), (['Lowercase'], '\\p{Lowercase}', '\\p{Lowercase}'),
    (['Alnum'], '\\p{Alnum}', '\\p{Alphabetic}\\p{Nd}'), (['XDigit'], '\\p{XDigit}', ''),
    (['ASCII'], '\\p{ASCII}', ''),
    (['Blank'], '\\p{Blank}', '\\t\\p{Zs}'), (['Cntrl'], '\\p{Cntrl}', '\\p{Cc}'), (['Any'], '\\p{Any}', ''),
    (['Punct'], '\\p{Punct}', '\\p{P}'),
    # pseudo-properties: the sets of BertPreTokenizer/Punctuation and of Digits
    (['@bertpunct'], '@bertpunct', '\\x{21}-\\x{2f}\\x{3a}-\\x{40}\\x{5b}-\\x{60}\\x{7b}-\\x{7e}\\p{P}'),
    (['@rustnum'], '@rustnum', '\\p{N}'),
    # inside [...] Oniguruma's \w and [:word:] differ from \w outside, [:punct:] has S
    (['@wc'], '[\\w]', WORD), (['@wordc'], '[[:word:]]', WORD), (['@punctc'], '[[:punct:]]', '\\p{P}\\p{S}'),
    (['Emoji'], '\\p{Emoji}', '\\p{Emoji}'),
    (['Emoji_Presentation'], '\\p{Emoji_Presentation}', '\\p{Emoji_Presentation}'),
    (['Extended_Pictographic'], '\\p{Extended_Pictographic}', '\\p{Extended_Pictographic}'),
]
SCRIPTS = ('Latin Greek Cyrillic Han Hiragana Katakana Hangul Arabic Hebrew Thai Devanagari Common '
           'Inherited Armenian Syriac Thaana Bengali Gurmukhi Gujarati Oriya Tamil Telugu Kannada '
           'Malayalam Sinhala Lao Tibetan Myanmar Georgian Ethiopic Cherokee Khmer Mongolian Bopomofo Yi').split()
for s in SCRIPTS:
    ENTRIES.append(([s], '\\p{%s}' % s, '\\p{sc:%s}' % s))


def dump_sets(lines):
    """'KEY\\tranges' lines -> {KEY: set}."""
    d = {}
    for line in lines:
        line = line.rstrip('\n')
        if '\t' in line:
            k, v = line.split('\t', 1)
            assert not v.startswith('ERROR'), line
            d[k] = parse(v)
    return d


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit('%s failed:\n%s' % (' '.join(cmd[:2]), r.stderr))
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--pcls', required=True)
    ap.add_argument('--onig')
    ap.add_argument('--save-onig')
    ap.add_argument('-o', dest='out')
    a = ap.parse_args()

    keys = list(dict.fromkeys(e[1] for e in ENTRIES))
    if a.onig:
        with open(a.onig, encoding='utf-8') as f:
            text = f.read()
    else:   # ask the oracle (about 2 s per key)
        text = run(['node', os.path.join(HERE, 'onig_sets.js')] + keys)
    if a.save_onig:
        with open(a.save_onig, 'w', encoding='utf-8') as f:
            f.write(text)
    onig = dump_sets(text.splitlines())
    missing = [k for k in keys if k not in onig]
    assert not missing, 'not in the Oniguruma dump: %s' % missing

    bases = sorted(set(e[2] for e in ENTRIES if e[2]))
    pc = {k[1:-1]: v for k, v in dump_sets(run([a.pcls] + ['[' + b + ']' for b in bases] + ['[\\p{Cn}]']).splitlines()).items()}

    ranges, rows = [], []
    for names, key, base in ENTRIES:
        o = onig[key]
        p = pc.get(base, set())
        # Adds as whole runs of the Oniguruma set that hold a missing code
        # point: same union, fewer ranges (PCRE2 scans a class's ranges one by one).
        miss = o - p
        add = [r for r in rng(o) if any(c in miss for c in range(r[0], r[1] + 1))]
        sub = rng(p - o)
        # The adds may be tested behind (?=\p{Cn}) when every missing code point
        # is unassigned for PCRE2 (new in Unicode 15/16) and the base is a property.
        gate = 1 if base and miss and all(c in pc['\\p{Cn}'] for c in miss) else 0
        a0 = len(ranges); ranges += add
        s0 = len(ranges); ranges += sub
        for n in names:
            rows.append((norm(n), base, a0, len(add), s0, len(sub), gate))
        print('%-24s add %d sub %d' % (names[0], len(add), len(sub)), file=sys.stderr)
    rows.sort()

    out = ['static const u32 uni_ranges[][2] = {']
    for i in range(0, len(ranges), 4):
        out.append('    ' + ' '.join('{0x%x, 0x%x},' % tuple(r) for r in ranges[i:i + 4]))
    out += ['};', '', 'static const uprop uni_props[] = {']
    for n, b, a0, na, s0, ns, g in rows:
        out.append('    {"%s", "%s", %d, %d, %d, %d, %d},' % (n, b.replace('\\', '\\\\'), a0, na, s0, ns, g))
    out.append('};')
    text = '\n'.join(out) + '\n'
    if a.out:
        with open(a.out, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    print(len(ranges), 'ranges', len(rows), 'rows', file=sys.stderr)


if __name__ == '__main__':
    main()
