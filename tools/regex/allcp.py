#!/usr/bin/env python3
"""allcp.py - the all-code-point cases of the oracle comparison (compare.sh
allcp): every Unicode scalar value, in chunks of 20000, alone and inside
probes ('a'+c+' ', '!'+c+'a', "'"+c+' ', ' '+c+'1\\n'), through the
pre-tokenizers whose sets come from the Unicode tables and through the
pre_tokenizers of the tokenizers in assets/.
usage: allcp.py > cases.jsonl   (14 lines {"pt": ..., "s": [...]}, ~200 MB)"""
import json, os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASSETS = os.environ.get('TALLY_ASSETS') or os.path.join(ROOT, 'assets')
NAMES = ['claude', 'deepseek_v3', 'gemma3', 'gpt4o', 'gptoss', 'llama3', 'qwen3']

cps = [c for c in range(0x110000) if not 0xd800 <= c <= 0xdfff]


def chunks(f):
    """f(chr(c)) for every code point, joined in strings of 20000 code points."""
    return [''.join(f(chr(c)) for c in cps[i:i + 20000]) for i in range(0, len(cps), 20000)]


def emit(pt, strings):
    print(json.dumps({"pt": pt, "s": strings}, ensure_ascii=False))


# The built-in pre-tokenizers: code points alone, after a letter, after punctuation.
S1 = chunks(lambda c: c) + chunks(lambda c: 'a' + c + ' ') + chunks(lambda c: '!' + c + 'a')
for pt in [{"type": "Punctuation", "behavior": "Isolated"},
           {"type": "Digits", "individual_digits": True}, {"type": "Digits", "individual_digits": False},
           {"type": "WhitespaceSplit"}, {"type": "Whitespace"}, {"type": "BertPreTokenizer"},
           {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False}]:
    emit(pt, S1)

# The real regexes: alone, after a letter, after an apostrophe, before a digit.
S2 = chunks(lambda c: c) + chunks(lambda c: 'a' + c + ' ') + chunks(lambda c: "'" + c + ' ') + chunks(lambda c: ' ' + c + '1\n')
for n in NAMES:
    with open(os.path.join(ASSETS, n, 'tokenizer.json'), encoding='utf-8') as f:
        emit(json.load(f)['pre_tokenizer'], S2)
