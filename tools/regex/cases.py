#!/usr/bin/env python3
"""cases.py - the configurations of the random oracle comparison (compare.sh):
the pre_tokenizers of the tokenizers in assets/, every pre-tokenizer type with
its options, and Split with many regexes (properties, classes, anchors,
quantifiers, lookarounds) and behaviors; each gets all the strings.
usage: cases.py STRINGS.json > cases.jsonl   (lines {"pt": ..., "s": [...]})"""
import json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASSETS = os.environ.get('TALLY_ASSETS') or os.path.join(ROOT, 'assets')
NAMES = ['claude', 'deepseek_v3', 'gemma3', 'gpt4o', 'gptoss', 'llama3', 'qwen3']


def A(n):
    """The pre_tokenizer of assets/<n>/tokenizer.json."""
    with open(os.path.join(ASSETS, n, 'tokenizer.json'), encoding='utf-8') as f:
        return json.load(f)['pre_tokenizer']


strings = json.loads(open(sys.argv[1]).read())
cfgs = []
for n in NAMES:
    cfgs.append(A(n))
cfgs += [{"type":"ByteLevel","add_prefix_space":True,"trim_offsets":True},
 {"type":"ByteLevel","add_prefix_space":True,"trim_offsets":True,"use_regex":False},
 {"type":"Whitespace"},{"type":"WhitespaceSplit"},{"type":"BertPreTokenizer"},
 {"type":"Digits","individual_digits":True},{"type":"Digits","individual_digits":False},
 {"type":"CharDelimiterSplit","delimiter":"-"},{"type":"CharDelimiterSplit","delimiter":"é"}]
for b in ["Removed","Isolated","MergedWithPrevious","MergedWithNext","Contiguous"]:
    cfgs.append({"type":"Punctuation","behavior":b})
cfgs.append({"type":"Punctuation"})
for ps in ["always","first","never"]:
    for sp in [True, False]:
        cfgs.append({"type":"Metaspace","replacement":"\u2581","prepend_scheme":ps,"split":sp})
cfgs.append({"type":"Metaspace","replacement":"_","add_prefix_space":True})
cfgs.append({"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"first","split":True}]})
cfgs.append({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"String":" "},"behavior":"Removed","invert":False},{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"first","split":True}]})
cfgs.append({"type":"Sequence","pretokenizers":[{"type":"Digits","individual_digits":True},{"type":"Punctuation"},{"type":"ByteLevel","add_prefix_space":True,"trim_offsets":False}]})
# Split regexes, each as Isolated and as matches only (Removed, invert)
pats = [r"\s+", r"x*", r"\b", r"(?=b)|b", r"'s|\p{L}+", r"[\p{P}\p{S}]", r"\w+", r"\d+", r"\h+", r"\W", r"[^\s\p{L}]+", r"(?i)[a-c]+", r"a(?i)b|c", r".", r"(?m).", r"^\s*", r"\s*$", r"\R", r"\p{Han}+", r"\p{Greek}+", r"[[:alpha:]]+", r"[[:punct:]]+", r"\p{Word}+", r"\P{L}+", r"\p{^N}+", r"[^\P{L}a-z]+", r"[\S\n]+", r"\p{Cn}", r"\p{C}+", r"\p{Mn}", r"\p{Lu}{2,}", r"\p{L}{,2}", r"\p{L}{1,2}+", r"\p{L}{2}?", r"\x41-\u0042", r"[\x00-\x{7f}]+", r"'(?:s|t)", r"(?<=\p{L})\p{N}", r"\p{N}(?!\p{N})", r"(?>\s+)\S", r"\S+", r"\D+", r"\H+", r"\A\s+|\s+\z", r"\p{Alpha}+", r"\p{Alnum}+", r"\p{Upper}+", r"\p{Lower}+", r"\p{Blank}+", r"\p{Cntrl}+", r"\p{XDigit}+", r"\p{Emoji}+", r"\p{Extended_Pictographic}+", r"\p{Latin}+", r"\p{Common}+", r"\p{Inherited}+", r"\p{Hiragana}\p{Katakana}*", r"\B", r"\b\w", r"[^\w\s]+|\w+", r"\p{Lt}|\p{Lm}+|\p{Lo}{2}", r"\p{Nl}|\p{No}|\p{Nd}+", r"\p{Pc}|\p{Pd}|\p{Ps}|\p{Pe}|\p{Pi}|\p{Pf}|\p{Po}", r"\p{Sm}|\p{Sc}|\p{Sk}|\p{So}", r"\p{Z}|\p{Zs}|\p{Zl}|\p{Zp}", r"\p{Cc}|\p{Cf}|\p{Co}", r"\p{M}+|\p{Mc}|\p{Me}", r"\p{Uppercase Letter}+\p{lowercase-letter}*", r"\p{LC}+", r"[\w&&[^a]]", r"[\w]+", r"[\W]+", r"[\p{Word}]+", r"[[:word:]]+", r"[^\w\s]+", r"[\d\s\h]+", r"[\D]", r"[[:^alpha:][:digit:]]+", r"[[:upper:][:lower:]]+", r"[[:space:][:blank:][:cntrl:]]+", r"[[:xdigit:][:ascii:]]+", r"[[:alnum:]]+", r"\p{Cyrillic}+|\p{Arabic}+|\p{Hebrew}+|\p{Devanagari}+|\p{Thai}+|\p{Hangul}+"]
for p in pats:
    cfgs.append({"type":"Split","pattern":{"Regex":p},"behavior":"Isolated","invert":False})
    cfgs.append({"type":"Split","pattern":{"Regex":p},"behavior":"Removed","invert":True})
# llama3's regex with every behavior
R3 = A('llama3')['pretokenizers'][0]['pattern']['Regex']
for b in ["Removed","Isolated","MergedWithPrevious","MergedWithNext","Contiguous"]:
    for inv in [False, True]:
        for p in [R3, r"x*", r"\s", "(?=b)|b|"]:
            cfgs.append({"type":"Split","pattern":{"Regex":p},"behavior":b,"invert":inv})
        cfgs.append({"type":"Split","pattern":{"String":"ab"},"behavior":b,"invert":inv})
        cfgs.append({"type":"Split","pattern":{"String":""},"behavior":b,"invert":inv})
for c in cfgs:
    print(json.dumps({"pt": c, "s": strings}))
