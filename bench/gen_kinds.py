#!/usr/bin/env python3
"""Splits the generated golden strings (tests/data/tok/inputs/gen.jsonl, made
by tests/data/tok/gen_strings.py) into the kinds of text of issue 20's table,
one JSON-lines file per kind in OUT_DIR, for `BENCH_ONLY=kinds make bench`.

  python3 bench/gen_kinds.py [GEN_JSONL] OUT_DIR

Each kind is its categories' strings, in file order, each once (a string
twice would be a cache hit in a cold pass); bench_tok times several passes
and takes the median. Prints "kind bytes strings" per file. Stdlib only."""
import json
import os
import sys

KINDS = [
    ("long_words", ["long"]),
    ("whitespace", ["whitespace", "repeat"]),
    ("emoji", ["emoji"]),
    ("soup_controls", ["soup", "control", "special_prefix"]),
    ("natural", ["ascii", "contraction"]),
    ("code_json", ["code"]),
    ("cjk_scripts", ["cjk", "script", "norm"]),
    ("digits", ["digits"]),
    ("special", ["special", "special_fixed"]),
]


def main(argv):
    args = argv[1:]
    if len(args) == 1:
        src, out = "tests/data/tok/inputs/gen.jsonl", args[0]
    elif len(args) == 2:
        src, out = args
    else:
        sys.stderr.write(__doc__)
        return 2
    by_cat = {}
    with open(src, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            cat = d["id"].split(":")[1]
            by_cat.setdefault(cat, []).append(d["text"])
    os.makedirs(out, exist_ok=True)
    for kind, cats in KINDS:
        texts = [t for c in cats for t in by_cat.get(c, []) if t]
        if not texts:
            sys.stderr.write(f"gen_kinds: no strings for {kind} ({', '.join(cats)})\n")
            return 1
        size = sum(len(t.encode("utf-8")) for t in texts)
        with open(os.path.join(out, kind + ".jsonl"), "w", encoding="utf-8") as f:
            for k, t in enumerate(texts):
                f.write(json.dumps({"id": f"{kind}:{k}", "text": t}, ensure_ascii=False) + "\n")
        print(kind, size, len(texts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
