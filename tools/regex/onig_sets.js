// onig_sets.js - asks the oracle which code points are in an Oniguruma set.
// usage: node onig_sets.js KEY...   prints "KEY\tlo-hi,lo-hi,..." (hex) per KEY.
// KEY is an Oniguruma class expression (\p{L}, \s, [[:punct:]], ...), matched
// as (?:KEY)+ by a Split pre-tokenizer over all code points, or one of:
//   @bertpunct  the code points BertPreTokenizer/Punctuation split off
//   @rustnum    the code points Digits counts as digits (Rust char::is_numeric)
'use strict';
const { mk, allCodePoints } = require('./oracle.js');

const cps = allCodePoints();
const parts = [];
for (let i = 0; i < cps.length; i += 10000) parts.push(String.fromCodePoint(...cps.slice(i, i + 10000)));
const all = parts.join('');

// Sorted code points -> "lo-hi,..." in hex.
function ranges(list) {
  const r = []; let st = -1, pv = -2;
  for (const c of list) {
    if (c != pv + 1) { if (st >= 0) r.push(st.toString(16) + '-' + pv.toString(16)); st = c; }
    pv = c;
  }
  if (st >= 0) r.push(st.toString(16) + '-' + pv.toString(16));
  return r.join(',');
}

// The matches of (?:cls)+ over all code points, as runs of code points.
function regexSet(cls) {
  const t = mk({ type: 'Split', pattern: { Regex: '(?:' + cls + ')+' }, behavior: 'Removed', invert: true });
  const pieces = t.getPreTokenizer().preTokenizeString(all);
  return pieces.map(p => cps[p[1][0]].toString(16) + '-' + cps[p[1][1] - 1].toString(16)).join(',');
}

// Punctuation (behavior Removed) over all code points: what it removes.
function bertPunct() {
  const t = mk({ type: 'Punctuation', behavior: 'Removed' }).getPreTokenizer();
  const keep = new Uint8Array(cps.length);
  for (const p of t.preTokenizeString(all)) for (let i = p[1][0]; i < p[1][1]; i++) keep[i] = 1;
  return ranges(cps.filter((c, i) => !keep[i]));
}

// Digits (individual) over "a"+c for every c: the c that come out alone.
function rustNum() {
  const t = mk({ type: 'Digits', individual_digits: true }).getPreTokenizer();
  const sub = cps.filter(c => c != 0x61);
  const num = new Set();
  for (let i = 0; i < sub.length; i += 10000) {
    const s = sub.slice(i, i + 10000).map(c => 'a' + String.fromCodePoint(c)).join('');
    for (const p of t.preTokenizeString(s)) {
      const ch = Array.from(p[0]);
      if (ch.length == 1 && ch[0] != 'a') num.add(ch[0].codePointAt(0));
    }
  }
  return ranges([...num].sort((a, b) => a - b));
}

for (const key of process.argv.slice(2)) {
  const v = key === '@bertpunct' ? bertPunct() : key === '@rustnum' ? rustNum() : regexSet(key);
  console.log(key + '\t' + v);
}
