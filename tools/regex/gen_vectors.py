#!/usr/bin/env python3
"""gen_vectors.py - builds the oracle-derived test vectors of tests/test_pretok.c
(vec_pt, vec_label, vec: pre-tokenizer configs, inputs and the oracle's pieces)
by running orc.js (the oracle) on the cases below; prints the C block to stdout.
Never edits the test file: check.sh diffs the output against it.
usage: python3 tools/regex/gen_vectors.py > OUT   (needs assets/: scripts/fetch-assets.sh)"""
import json, os, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ASSETS = os.environ.get('TALLY_ASSETS') or os.path.join(ROOT, 'assets')


def A(n):
    """The pre_tokenizer of assets/<n>/tokenizer.json."""
    with open(os.path.join(ASSETS, n, 'tokenizer.json'), encoding='utf-8') as f:
        return json.load(f)['pre_tokenizer']


def SP(p, b="Isolated", inv=False): return {"type":"Split","pattern":{"Regex":p},"behavior":b,"invert":inv}
def M(p): return SP(p, "Removed", True)   # the matches only


# ---- the cases: (label, pre_tokenizer, [inputs]) ----
# The real tokenizers' pre_tokenizers on tricky strings, then single features.
T = []
tricky = ["Hello world", "I'm DON'T 'S 'ſ we'LL", "  \t\n\n  x  ", "a\u0085b\ufeffc\u200bd\u180ee", "1234567 ١٢٣٤", "日本語のテキスト、漢字。", "naïve e\u0301 ΑΒΓ αβγ Привет", "\U0001F600\U0001F468\u200d\U0001F469 ok", "x\r\n\r\ny", "foo.bar(baz) -> {\"a\": 1}", "  's", "\U00010D50\U00010D51 \U0001E4D0", "1/2/3 //x\n/", "Hello\u00a0World\u3000!!", "a\u2028b\u2029c"]
for n in ['llama3','qwen3','deepseek_v3','gptoss','gpt4o','claude','gemma3']:
    T.append((n, A(n), tricky))
T += [
 ("ws_nel", M(r"\s+"), ["a\u0085b", "a\ufeffb", "a\u200bb", "a\u180eb", "a\u2000\u200a\u3000b", "a\u00a0\u1680\u202f\u205fb"]),
 ("ws_not", M(r"\S+"), ["a\u0085b\ufeffc"]),
 ("ci_contraction", M(r"(?i:'s|'t)"), ["'S 'ſ 'T 's 'K"]),
 ("cs_contraction", M(r"'s|'t"), ["'S 'ſ 'T 's"]),
 ("prop_long", M(r"\p{Letter}+|\p{Nd}+"), ["ab1c²½Ⅻ"]),
 ("prop_neg", M(r"\p{^L}+|\P{N}"), ["ab1c"]),
 ("prop_new", M(r"\p{L}+"), ["a\U00010D50b\U0002EBF0c\u0CF3d"]),
 ("prop_mn", M(r"\p{Mn}"), ["a\U0001171Eb\u0301"]),
 ("prop_cn", M(r"\p{Cn}+"), ["a\u0378\U00010D50\U0001FFFEb"]),
 ("word_in_class", M(r"\w+|[\w]+x"), ["a½b ²x"]),
 ("word_class2", M(r"[^\w\s]+|\w+"), ["½I'm ½«»"]),
 ("posix_punct", M(r"[[:punct:]]+|\p{Punct}+"), ["a+b$c!?d"]),
 ("hex_h", M(r"\h+"), ["0af G\t"]),
 ("opt_scope", M(r"a(?i)b|c"), ["c", "ac", "aB", "C"]),
 ("dotall_m", M(r"a(?m).|b."), ["a\n", "b\n", "b\r"]),
 ("interval_open", M(r"a{,2}"), ["aaaaa"]),
 ("ruby_nq", SP(r"a{2}?"), ["bab", "aaa"]),
 ("ruby_rep", M(r"a{1,2}+"), ["aaaaa"]),
 ("lit_brace", M(r"a{x|{,}"), ["a{x {,}"]),
 ("u_escape", M(r"\uFF21+|\x{42}|\x43"), ["ＡＡBC"]),
 ("anchors", M(r"^a|a$"), ["a\na\r\na"]),
 ("boundary", SP(r"\b"), ["ab cd", "x½y"]),
 ("empty_x", SP(r"x*"), ["abxxc", "xax"]),
 ("empty_look", SP(r"(?=b)|b"), ["abc"]),
 ("empty_alt", SP(r"x|(?=b)"), ["xab", "xb"]),
 ("empty_pat", SP(r""), ["aéb"]),
 ("scripts", M(r"\p{Han}+|\p{Hiragana}+|\p{Greek}+"), ["ab漢字c、ひらαβ"]),
 ("cjk_ranges", SP("[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"), ["ab漢字、ひらがなカタカナ。龥"]),
]
for b in ["Removed","Isolated","MergedWithPrevious","MergedWithNext","Contiguous"]:
    for inv in [False, True]:
        T.append(("beh_%s_%d" % (b, inv), {"type":"Split","pattern":{"String":"-"},"behavior":b,"invert":inv}, ["the-final--countdown", "-a-", "--"]))
        T.append(("behre_%s_%d" % (b, inv), SP(r"\d+|x*", b, inv), ["ab12cx3", "1x"]))
T += [
 ("bytelevel_regex", {"type":"ByteLevel","add_prefix_space":False,"trim_offsets":True}, ["Hello world's  end\n\n", " 's   x"]),
 ("bytelevel_prefix", {"type":"ByteLevel","add_prefix_space":True,"trim_offsets":True}, ["Hello world", " x"]),
 ("bytelevel_prefix_noregex", {"type":"ByteLevel","add_prefix_space":True,"trim_offsets":True,"use_regex":False}, ["Hello world", " x"]),
 ("whitespace", {"type":"Whitespace"}, ["Hey friend!     How are you?!?", "a\u200cb c½d"]),
 ("whitespace_split", {"type":"WhitespaceSplit"}, ["Hey friend!  \u0085How\u00a0are you?!?"]),
 ("bert", {"type":"BertPreTokenizer"}, ["Hey friend!     How are you?!? a+b$c«d»"]),
 ("digits_ind", {"type":"Digits","individual_digits":True}, ["Hey 123 friend! ²½x"]),
 ("digits_contig", {"type":"Digits","individual_digits":False}, ["Hey 123 friend! ²½x"]),
 ("delim", {"type":"CharDelimiterSplit","delimiter":"x"}, ["axbxxc"]),
 ("punct_default", {"type":"Punctuation"}, ["Hey friend!? a+b$c«d»"]),
 ("punct_next", {"type":"Punctuation","behavior":"MergedWithNext"}, ["Hey friend!? a+b"]),
 ("meta_always", {"type":"Metaspace","replacement":"\u2581","prepend_scheme":"always","split":True}, ["Hey friend", " Hey  friend", "\u2581x"]),
 ("meta_never", {"type":"Metaspace","replacement":"\u2581","prepend_scheme":"never","split":True}, ["Hey friend"]),
 ("meta_nosplit", {"type":"Metaspace","replacement":"\u2581","prepend_scheme":"always","split":False}, ["Hey friend"]),
 ("meta_first_seq", {"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"String":" "},"behavior":"Removed","invert":False},{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"first","split":True}]}, ["Hey friend", " Hey friend"]),
 ("seq_digits_punct_bl", {"type":"Sequence","pretokenizers":[{"type":"Digits","individual_digits":True},{"type":"Punctuation"},{"type":"ByteLevel","add_prefix_space":True,"trim_offsets":False}]}, ["ab12!c d"]),
]
# ---- ask the oracle, one output line per input ----
lines = [json.dumps({"pt": pt, "s": ins}) for (_, pt, ins) in T]
r = subprocess.run(['node', os.path.join(HERE, 'orc.js')], input='\n'.join(lines) + '\n',
                   capture_output=True, text=True, encoding='utf-8')
if r.returncode:
    raise SystemExit('orc.js failed:\n' + r.stderr)
out = r.stdout.split('\n')


def cstr(b):
    """bytes -> C string literal (hex escapes closed with \"\" so the next char is not taken in)."""
    o = '"'
    for x in b:
        if x in (0x22, 0x5c): o += '\\' + chr(x)
        elif 0x20 <= x < 0x7f: o += chr(x)
        else: o += '\\x%02x""' % x
    return o + '"'


# ---- the C block (pieces joined with \x1f) ----
k = 0   # line of the oracle's output
pts = []
rows = []
for (label, pt, ins) in T:
    pi = len(pts); pts.append(json.dumps(pt, ensure_ascii=False))
    for s in ins:
        res = out[k]; k += 1
        assert not res.startswith('ERR'), (label, res)
        pieces = [bytes.fromhex(h) for h in res.split(' ')] if res else []
        exp = b'\x1f'.join(pieces)
        rows.append('    {%d, %s, %s, %d},' % (pi, cstr(s.encode()), cstr(exp), len(pieces)))
print('/* Generated from the oracle (tokenizers 0.22.2 with Oniguruma) by a script (see the file comment). */')
print('static const char *const vec_pt[] = {')
for p in pts: print('    %s,' % cstr(p.encode()))
print('};\n\nstatic const char *const vec_label[] = {')
for (label, pt, ins) in T: print('    "%s",' % label)
print('};\n\nstatic const struct { int pt; const char *in, *pieces; int n; } vec[] = {')
for r in rows: print(r)
print('};')
