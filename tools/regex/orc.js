// orc.js - oracle side of the comparisons and of gen_vectors.py.
// usage: node orc.js < JSON lines {"pt": <pre_tokenizer object>, "s": [strings]}
// prints one line per string: its pre-tokenizer pieces as hex of raw bytes,
// separated by spaces (ByteLevel's alphabet mapped back to bytes), or "ERR msg".
// drv.c prints the same format for tally.
'use strict';
const { mk } = require('./oracle.js');

// ByteLevel's byte <-> char alphabet (GPT-2 bytes_to_unicode), char -> byte.
const c2b = new Map();
{
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n); n++; }
  bs.forEach((b, i) => c2b.set(cs[i], b));
}

// Input and output can exceed V8's largest string (the all-code-point cases are
// ~300 MB in, ~650 MB out): read bytes, decode line by line, write per string.
const input = require('fs').readFileSync(0);
function* lines() {
  for (let a = 0; a < input.length;) {
    let b = input.indexOf(10, a);
    if (b < 0) b = input.length;
    if (b > a) yield input.toString('utf8', a, b);
    a = b + 1;
  }
}
const put = s => process.stdout.write(s + '\n');   // synchronous for files and pipes on Linux

for (const l of lines()) {
  const q = JSON.parse(l);
  const bl = JSON.stringify(q.pt).includes('ByteLevel');
  let t;
  try { t = mk(q.pt); } catch (e) { for (const s of q.s) put('ERR ' + e); continue; }
  const pt = t.getPreTokenizer();
  for (const s of q.s) {
    let pieces;
    try { pieces = pt.preTokenizeString(s); } catch (e) { put('ERR ' + e); continue; }
    put(pieces.map(p => {
      if (bl) return Array.from(p[0]).map(c => c2b.get(c.codePointAt(0)).toString(16).padStart(2, '0')).join('');
      return Buffer.from(p[0], 'utf8').toString('hex');
    }).join(' '));
  }
}
