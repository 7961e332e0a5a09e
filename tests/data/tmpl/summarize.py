#!/usr/bin/env python3
"""Summary of golden/: per template and context set, how many contexts
rendered and how many failed, by error class (markdown, to stdout).

  python3 summarize.py [DIR]        (DIR: this folder, holding templates.tsv,
                                      contexts/ and golden/)
Also checks that every golden file has one line per context, ids in order.
"""
import json
import os
import sys

SETS = ("edge", "bfcl", "agentic", "agentic_nonull")


def main(argv):
    d = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    names = []
    with open(os.path.join(d, "templates.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                names.append(line.rstrip("\n").split("\t"))
    ctx_ids = {}
    for s in SETS:
        p = os.path.join(d, "contexts", s + ".jsonl")
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as f:
                ctx_ids[s] = [json.loads(l)["id"] for l in f if l.strip()]
    bad = 0
    print("| template | tokenizer | " + " | ".join(f"{s} ({len(ctx_ids.get(s, []))})" for s in SETS) + " |")
    print("|---|---|" + "---|" * len(SETS))
    for name, source, tok in names:
        cells = []
        for s in SETS:
            p = os.path.join(d, "golden", f"{name}.{s}.jsonl")
            if not os.path.isfile(p):
                cells.append("–")
                continue
            with open(p, encoding="utf-8") as f:
                rows = [json.loads(l) for l in f if l.strip()]
            if [r["id"] for r in rows] != ctx_ids.get(s):
                print(f"summarize: {p}: ids differ from contexts/{s}.jsonl", file=sys.stderr)
                bad += 1
            ok = sum(1 for r in rows if "sha256" in r)
            errs = {}
            for r in rows:
                if "error_type" in r:
                    errs[r["error_type"]] = errs.get(r["error_type"], 0) + 1
            cell = f"{ok}"
            if errs:
                cell += " / " + ", ".join(f"{v} {k}" for k, v in sorted(errs.items(), key=lambda kv: (-kv[1], kv[0])))
            cells.append(cell)
        src = "pkg" if source == "package" else "file"
        print(f"| {name} ({src}) | {tok} | " + " | ".join(cells) + " |")
    print()
    print("Cells: rendered / failed by error class.")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
