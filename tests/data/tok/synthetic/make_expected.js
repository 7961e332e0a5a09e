#!/usr/bin/env node
// Builds the synthetic tokenizer cases of tests/test_tok.c and their expected
// ids from the reference (Rust tokenizers 0.22.2 via @anush008/tokenizers,
// installed by ../shared/oracle/install.sh).
//
//   node tests/data/tok/synthetic/make_expected.js
//
// Writes cases.jsonl beside this file: one line per case,
//   {"name", "tokenizer": <tokenizer.json object>, "texts": [...],
//    "ids": [[...] | {"error": "..."}], "load_error": "..." | null}
// Each tokenizer is small and aims at one component (BPE merge order, byte
// fallback, unknown tokens, added-token rules, normalizers, pre-tokenizers).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const here = __dirname;
const shared = process.env.TALLY_SHARED || path.resolve(here, '../../../../../shared');
function findOracle() {
  const cands = [process.env.ORACLE_HOME, path.join(shared, 'oracle'),
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'tally-oracle')];
  for (const c of cands) if (c && fs.existsSync(path.join(c, 'node_modules/@anush008/tokenizers'))) return c;
  throw new Error('oracle node_modules not found; run ../shared/oracle/install.sh');
}
const { Tokenizer } = require(path.join(findOracle(), 'node_modules/@anush008/tokenizers'));

const chars = (s) => Array.from(s);
function bpe(vocabList, merges, extra = {}) {
  const vocab = {};
  vocabList.forEach((t, i) => { vocab[t] = i; });
  return Object.assign({ type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null,
    end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab, merges }, extra);
}
function tk(model, rest = {}) {
  return Object.assign({ version: '1.0', truncation: null, padding: null, added_tokens: [],
    normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null, model }, rest);
}
function added(id, content, o = {}) {
  return Object.assign({ id, content, single_word: false, lstrip: false, rstrip: false,
    normalized: false, special: true }, o);
}
// GPT-2 byte-level alphabet
function byteChars() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n); n++; }
  const m = {};
  bs.forEach((b, i) => { m[b] = String.fromCodePoint(cs[i]); });
  return m;
}
const BC = byteChars();
const bytesOf = (s) => Array.from(Buffer.from(s, 'utf8')).map((b) => BC[b]).join('');
const hex = Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);

const abc = ['a', 'b', 'c', 'd', 'ab', 'bc', 'cd', 'abc', 'bcd', 'abcd', 'aa', 'aaa', 'aaaa'];
const cases = [];
const C = (name, tokenizer, texts) => cases.push({ name, tokenizer, texts });

C('merge-order', tk(bpe(abc, ['b c', 'a b', 'ab c', 'a bc', 'bc d', 'abc d', 'a a', 'aa a', 'aa aa'])),
  ['abc', 'abcd', 'ab', 'bcd', 'aaaa', 'aaaaa', 'aaaaaaa', 'abcabcd', 'dcba', 'cdab', 'a', '']);
C('merge-pairs-format', tk(bpe(abc, [['b', 'c'], ['a', 'b'], ['ab', 'c'], ['a', 'a'], ['aa', 'aa']])),
  ['abc', 'aaaa', 'abab']);
C('merge-version-line', tk(bpe(abc, ['#version: 0.2', 'a b', 'ab c'])), ['abc', 'ab']);
C('unk-none', tk(bpe(abc, ['a b'])), ['abxab', 'x', 'éa']);
C('unk-no-fuse', tk(bpe(['<unk>', ...abc], ['a b'], { unk_token: '<unk>' })), ['axyb', 'xyz', 'ab€€ab']);
C('unk-fuse', tk(bpe(['<unk>', ...abc], ['a b'], { unk_token: '<unk>', fuse_unk: true })), ['axyb', 'xyz', 'ab€€ab', 'x']);
C('byte-fallback', tk(bpe(['<unk>', ...hex, ...abc, '▁'], ['a b'], { unk_token: '<unk>', fuse_unk: true, byte_fallback: true })),
  ['ab€', 'é', 'x\n', '😀a', 'ab']);
C('byte-fallback-partial', tk(bpe(['<unk>', '<0x41>', ...abc], ['a b'], { unk_token: '<unk>', fuse_unk: true, byte_fallback: true })),
  ['aAb', 'xAy', 'xa']);
// cuts at runs of U+2581 (bpe.c, seg_word): a merge across one keeps the
// piece whole, whether its left side is a character, a <0xNN> token of a
// character outside the vocabulary, or <unk>; more than eight such left
// characters turn the cuts off
C('seg-bad-left', tk(bpe(['<unk>', 'a', 'b', 'x', '▁', '▁b', 'ax', 'ax▁b', 'x▁b', 'b▁'], ['▁ b', 'a x', 'ax ▁b', 'x ▁b', 'b ▁'], { unk_token: '<unk>' })),
  ['ax▁b', 'x▁b', 'a▁b', 'b▁b', 'a▁▁b', 'ax▁▁b', 'ab▁ax▁bx▁b', '▁b▁x▁b', 'x▁', '▁']);
C('seg-fallback-merge', tk(bpe(['<unk>', ...hex, 'a', 'b', '▁', '▁a', '<0xA9>▁'], ['<0xA9> ▁', '▁ a'], { unk_token: '<unk>', byte_fallback: true })),
  ['é▁a', 'aé▁a', 'é▁▁a', 'b▁a▁é▁a', '😀▁a']);
C('seg-unk-merge', tk(bpe(['<unk>', 'a', '▁', '▁a', '<unk>▁'], ['<unk> ▁', '▁ a'], { unk_token: '<unk>' })),
  ['é▁a', 'aé▁a', 'a▁a', 'éé▁a']);
C('seg-fuse-unk-merge', tk(bpe(['<unk>', 'a', '▁', '▁a', '<unk>▁'], ['<unk> ▁', '▁ a'], { unk_token: '<unk>', fuse_unk: true })),
  ['éé▁a', 'aéé▁a▁a']);
C('seg-many-bad', tk(bpe(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', '▁', '▁a', 'a▁a', 'b▁a', 'c▁a', 'd▁a', 'e▁a', 'f▁a', 'g▁a', 'h▁a', 'i▁a'],
  ['▁ a', 'a ▁a', 'b ▁a', 'c ▁a', 'd ▁a', 'e ▁a', 'f ▁a', 'g ▁a', 'h ▁a', 'i ▁a'])),
  ['a▁a', 'i▁a', 'ab▁ac▁a', 'i▁ai▁a▁a']);
C('ignore-merges', tk(bpe([...abc, 'dcb', 'xyz', 'x', 'y', 'z', 'xy'], ['a b', 'x y'], { ignore_merges: true })),
  ['dcb', 'xyz', 'abc', 'xy']);
C('no-ignore-merges', tk(bpe([...abc, 'dcb', 'xyz', 'x', 'y', 'z', 'xy'], ['a b', 'x y'])), ['dcb', 'xyz']);
C('subword-prefix-suffix', tk(bpe(['a', '##b', '##c', 'ab', '##bc', 'abc', 'a</w>', '##b</w>', '##c</w>', 'ab</w>', 'abc</w>', '##bc</w>'],
  ['a ##b', '##b ##c', 'ab ##c', 'a ##b</w>', 'ab ##c</w>', '##b ##c</w>'],
  { continuing_subword_prefix: '##', end_of_word_suffix: '</w>' })), ['abc', 'ab', 'a', 'abcb']);
// byte fallback of a character looked up with the prefix and the suffix:
// the bytes of "##é</w>" each become a symbol, more symbols than the word
// has bytes
C('fallback-prefix-suffix', tk(bpe(['<unk>', ...hex, 'a', '##a', 'a</w>', '##a</w>'], [],
  { unk_token: '<unk>', byte_fallback: true, continuing_subword_prefix: '##', end_of_word_suffix: '</w>' })),
  ['aé', 'aéa', 'éé', 'é', 'a€😀a', 'aaaa', 'a' + 'é'.repeat(60)]);
C('added-leftmost-longest', tk(bpe(abc, ['a b', 'b c']), {
  added_tokens: [added(20, 'ab'), added(21, 'abc'), added(22, 'bcd'), added(23, 'cd', { special: false })] }),
  ['abcd', 'xabcdab', 'bcdcd', 'aabcd', 'cdab']);
C('added-single-word', tk(bpe([...abc, ' ', 'x'], ['a b']), {
  added_tokens: [added(20, 'ab', { single_word: true })] }),
  ['ab', 'ab c', 'xab', 'ab_', 'c ab c', 'ab-ab', 'éab']);
C('added-lstrip-rstrip', tk(bpe([...abc, ' ', '\n'], ['a b']), {
  added_tokens: [added(20, '<L>', { lstrip: true }), added(21, '<R>', { rstrip: true }), added(22, '<B>', { lstrip: true, rstrip: true })] }),
  ['a  <L>b', 'a<R>  b', 'a \n<B> \nb', '<L><R>  <L>', '   <B>', 'a\u00a0<L>']);
C('added-normalized', tk(bpe([...abc, 'A', 'B'], ['a b']), {
  normalizer: { type: 'Lowercase' },
  added_tokens: [added(20, 'AB', { normalized: true, special: false }), added(21, 'CD', { normalized: false })] }),
  ['xABx', 'ab', 'AbCD', 'cd', 'ABCD']);
C('added-ids', tk(bpe(abc, ['a b']), {
  added_tokens: [added(99, 'ab'), added(50, '<x>'), added(7, '<y>'), added(3, '<x>')] }),
  ['ab<x><y>', 'c<y>']);
C('prepend-replace', tk(bpe(['▁', ...abc, '▁a', '▁ab', '<s>'], ['▁ a', '▁a b']), {
  normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] },
  added_tokens: [added(50, '<s>')] }),
  ['ab', ' ab', 'ab<s>ab', '<s>', 'a b  c']);
C('bytelevel-prefix-space', tk(bpe(Object.values(BC).concat([bytesOf(' a'), bytesOf(' ab'), bytesOf('ab')]),
  [`${bytesOf(' ')} a`, `${bytesOf(' a')} b`, 'a b']), {
  pre_tokenizer: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true } }),
  ['ab', 'ab ab', ' ab', "it's ab's", 'ab\n\nab', 'é ab']);
C('bytelevel-noregex', tk(bpe(Object.values(BC).concat([bytesOf(' a'), bytesOf(' ab'), bytesOf('ab')]),
  [`${bytesOf(' ')} a`, `${bytesOf(' a')} b`, 'a b']), {
  pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false } }),
  ['ab ab', ' ab']);
C('metaspace', tk(bpe(['▁', ...abc, '▁a', '▁ab', '<s>'], ['▁ a', '▁a b']), {
  pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true },
  added_tokens: [added(50, '<s>')] }),
  ['ab ab', 'ab<s>ab', ' ab', '<s>ab',
   // pieces long enough for tok_count's piece cache (64 bytes and more), the
   // same one at the start (prepended) and after an added token (not)
   'ab ba cab '.repeat(8), '<s>' + 'ab ba cab '.repeat(8), 'ab ba cab '.repeat(8) + '<s>' + 'ab ba cab '.repeat(8)]);
C('metaspace-always', tk(bpe(['▁', ...abc, '▁a', '▁ab', '<s>'], ['▁ a', '▁a b']), {
  pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: false },
  added_tokens: [added(50, '<s>')] }),
  ['ab ab', 'ab<s>ab']);
C('split-behaviors', tk(bpe([...abc, '-', '--'], ['a b', '- -']), {
  pre_tokenizer: { type: 'Sequence', pretokenizers: [
    { type: 'Split', pattern: { String: '-' }, behavior: 'MergedWithNext', invert: false },
    { type: 'Digits', individual_digits: true }] } }),
  ['ab-ab', 'a--b', '-ab-']);
C('whitespace-split', tk(bpe([...abc, '!', '?'], ['a b']), {
  pre_tokenizer: { type: 'Whitespace' } }), ['ab  c!?d', 'a\tb']);
// load errors
C('err-unigram', tk({ type: 'Unigram', unk_id: 0, vocab: [['a', 0.0]] }), []);
C('err-dropout', tk(bpe(abc, ['a b'], { dropout: 0.1 })), []);
C('err-merge-unknown', tk(bpe(abc, ['a x'])), []);
C('err-normalizer', tk(bpe(abc, ['a b']), { normalizer: { type: 'NoSuchNormalizer' } }), []);

(async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-syn-'));
  const out = [];
  for (const c of cases) {
    const f = path.join(tmp, 'tokenizer.json');
    fs.writeFileSync(f, JSON.stringify(c.tokenizer));
    let t = null, loadError = null;
    try { t = Tokenizer.fromFile(f); } catch (e) { loadError = String(e.message || e).split('\n')[0]; }
    const ids = [];
    for (const text of c.texts) {
      if (!t) break;
      try {
        const enc = await t.encode(text, null, { addSpecialTokens: false });
        ids.push(enc.getIds());
      } catch (e) { ids.push({ error: String(e.message || e) }); }
    }
    out.push(JSON.stringify({ name: c.name, tokenizer: c.tokenizer, texts: c.texts, ids, load_error: loadError }));
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.writeFileSync(path.join(here, 'cases.jsonl'), out.join('\n') + '\n');
  console.error(`wrote ${out.length} cases`);
})();
