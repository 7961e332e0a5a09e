#!/usr/bin/env python3
"""Builds the render contexts of the mlcommons data from the shared folder.

  python3 build_contexts.py [--shared DIR] [--out DIR] [SET ...]

SET is any of bfcl, agentic, agentic_nonull (default: all three). Runs
<shared>/oracle/build_inputs.py <shared>/data into a temporary folder and
writes OUT/<set>.jsonl (default OUT: contexts/ beside this script), one
oracle `prompt` input per line with the keys in this order:
  {"id", "messages", "tools", "documents", "add_generation_prompt",
   "chat_template_kwargs"}
(messages and tools exactly as build_inputs.py gives them; "documents" is
null, which is what the oracle uses when the key is absent).

  bfcl            <- bfcl_prompts.jsonl            (364)
  agentic         <- agentic_prompts.jsonl         (1,007; assistant history
                                                    turns carry "content": null)
  agentic_nonull  <- agentic_prompts_nonull.jsonl  (the same, null -> "")

agentic and agentic_nonull quote paths of other machines (home directories) inside
message texts, so they are not committed: `make` rebuilds them with this
script (python3 only, stdlib only). contexts/SHA256SUMS lists the sha256 of
every context file the goldens were made from; the rebuilt files must match.
The shared folder is <project root>/../shared unless TALLY_SHARED is set.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SOURCES = {"bfcl": "bfcl_prompts.jsonl",
           "agentic": "agentic_prompts.jsonl",
           "agentic_nonull": "agentic_prompts_nonull.jsonl"}
KEYS = ("id", "messages", "tools", "documents", "add_generation_prompt",
        "chat_template_kwargs")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.environ.get("TALLY_SHARED")
                    or os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--out", default=os.path.join(HERE, "contexts"))
    ap.add_argument("sets", nargs="*", default=list(SOURCES))
    a = ap.parse_args(argv)
    for s in a.sets:
        if s not in SOURCES:
            sys.exit(f"build_contexts: unknown set {s!r} (known: {', '.join(SOURCES)})")
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(a.shared, "oracle", "build_inputs.py"),
                        os.path.join(a.shared, "data"), tmp],
                       check=True, stderr=subprocess.DEVNULL)
        for s in a.sets:
            dst = os.path.join(a.out, s + ".jsonl")
            n = 0
            with open(os.path.join(tmp, SOURCES[s]), encoding="utf-8") as f, \
                    open(dst + ".tmp", "w", encoding="utf-8", newline="\n") as g:
                for line in f:
                    if not line.strip():
                        continue
                    item = json.loads(line)
                    extra = set(item) - set(KEYS)
                    if extra:
                        sys.exit(f"build_contexts: unexpected keys {sorted(extra)} in {SOURCES[s]}")
                    out = {k: item.get(k) for k in KEYS}
                    if out["add_generation_prompt"] is None:
                        out["add_generation_prompt"] = True
                    g.write(json.dumps(out, ensure_ascii=False) + "\n")
                    n += 1
            os.replace(dst + ".tmp", dst)
            print(f"build_contexts: {s}: {n}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
