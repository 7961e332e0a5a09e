#!/usr/bin/env node
// The reference side of `make bench`: the Rust tokenizers library (0.22.2,
// through the oracle's N-API binding) on the same inputs, one text at a time
// (single core). Prints the same "key value" lines as bench_tok.
//   node bench/ref_tok.js TOKENIZER_JSON INPUT.jsonl [RUNS]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

function oracleHome() {
  const shared = process.env.TALLY_SHARED || path.resolve(__dirname, '../../shared');
  const cands = [process.env.ORACLE_HOME, path.join(shared, 'oracle'),
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'tally-oracle')];
  for (const c of cands) if (c && fs.existsSync(path.join(c, 'node_modules/@anush008/tokenizers'))) return c;
  throw new Error('the oracle is not installed (sh ../shared/oracle/install.sh)');
}
const { Tokenizer } = require(path.join(oracleHome(), 'node_modules/@anush008/tokenizers'));
const median = (v) => { const s = v.slice().sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const now = () => Number(process.hrtime.bigint()) / 1e9;

(async () => {
  const [tj, input, runsArg] = process.argv.slice(2);
  const runs = Number(runsArg || 3);
  const texts = fs.readFileSync(input, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).text);
  const bytes = texts.reduce((s, t) => s + Buffer.byteLength(t, 'utf8'), 0);
  const loads = [];
  let tok;
  for (let r = 0; r < 3; r++) { const t0 = now(); tok = Tokenizer.fromFile(tj); loads.push(now() - t0); }
  const times = [];
  let total = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = now();
    let sum = 0;
    for (const t of texts) sum += (await tok.encode(t, null, { addSpecialTokens: false })).getIds().length;
    times.push(now() - t0);
    total = sum;
  }
  // The same texts as one batch: no per-call overhead of the binding (the
  // library may use several threads; run.sh pins the process to one core).
  const btimes = [];
  for (let r = 0; r < runs; r++) {
    const t0 = now();
    const encs = await tok.encodeBatch(texts, { addSpecialTokens: false });
    let sum = 0;
    for (const e of encs) sum += e.getIds().length;
    btimes.push(now() - t0);
    if (sum !== total) throw new Error(`batch total ${sum} != ${total}`);
  }
  const m = median(times), mb = median(btimes);
  console.log(`inputs ${texts.length}\nbytes ${bytes}\ntokens ${total}\nload_s ${median(loads).toFixed(4)}`);
  console.log(`encode_s ${m.toFixed(4)}\nencode_mbps ${(bytes / 1e6 / m).toFixed(2)}\nencode_tokps ${(total / m).toFixed(0)}`);
  console.log(`batch_s ${mb.toFixed(4)}\nbatch_mbps ${(bytes / 1e6 / mb).toFixed(2)}\nbatch_tokps ${(total / mb).toFixed(0)}`);
})();
