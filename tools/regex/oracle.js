// oracle.js - shared helper of the .js tools here: loads the oracle (the Rust
// `tokenizers` 0.22.2 N-API binding @anush008/tokenizers) and builds a
// tokenizer that has only a given pre_tokenizer. node_modules is looked up in
// $ORACLE_HOME/node_modules, else <shared>/oracle/node_modules (shared is
// $TALLY_SHARED, else <project root>/../shared), else ~/.cache/tally-oracle.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');

function nodeModules() {
  const shared = process.env.TALLY_SHARED || path.join(ROOT, '..', 'shared');
  const cands = [];
  if (process.env.ORACLE_HOME) {
    cands.push(path.join(process.env.ORACLE_HOME, 'node_modules'));
    cands.push(process.env.ORACLE_HOME); // also accepted: ORACLE_HOME is node_modules itself
  }
  cands.push(path.join(shared, 'oracle', 'node_modules'));
  cands.push(path.join(os.homedir(), '.cache', 'tally-oracle', 'node_modules'));
  for (const c of cands)
    if (fs.existsSync(path.join(c, '@anush008', 'tokenizers'))) return c;
  throw new Error('oracle not found (looked in ' + cands.join(', ') +
                  '); install it with: sh <shared>/oracle/install.sh');
}

const { Tokenizer } = require(path.join(nodeModules(), '@anush008', 'tokenizers'));

// A tokenizer whose only non-null part is `pretok` (an empty BPE model).
function mk(pretok) {
  return Tokenizer.fromString(JSON.stringify({
    version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
    pre_tokenizer: pretok, post_processor: null, decoder: null,
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null,
             end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab: {}, merges: [] },
  }));
}

// Every Unicode scalar value (no surrogates), in order.
function allCodePoints() {
  const cps = [];
  for (let c = 0; c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) cps.push(c);
  return cps;
}

module.exports = { ROOT, mk, allCodePoints };
