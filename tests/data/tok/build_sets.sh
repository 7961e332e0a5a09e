#!/bin/sh
# Builds the real-data input sets in inputs/ (next to this script):
#   inputs/texts.jsonl          the distinct message strings of ../shared/data
#                               (texts.jsonl of oracle/build_inputs.py, its ids kept)
#   inputs/bfcl_qwen3.jsonl     the BFCL prompts rendered with qwen3's chat template
#   inputs/bfcl_llama3_1.jsonl  the same with llama3_1's template
# Each line is {"id": ..., "text": ...}. Needs the oracle installed
# (sh <shared>/oracle/install.sh). Usage: sh build_sets.sh
# The shared folder is <project root>/../shared unless TALLY_SHARED is set.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
shared=${TALLY_SHARED:-"$root/../shared"}
oracle="$shared/oracle"
now=2025-01-15T12:00:00

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

mkdir -p "$here/inputs"
python3 "$oracle/build_inputs.py" "$shared/data" "$tmp"

python3 - "$tmp/texts.jsonl" "$here/inputs/texts.jsonl" <<'EOF'
import json, sys
src, dst = sys.argv[1], sys.argv[2]
n = 0
with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8", newline="\n") as out:
    for line in f:
        if not line.strip():
            continue
        d = json.loads(line)
        out.write(json.dumps({"id": d["id"], "text": d["text"]}, ensure_ascii=False) + "\n")
        n += 1
print("build_sets: texts: %d" % n, file=sys.stderr)
EOF

for tok in qwen3 llama3_1; do
    sh "$oracle/count.sh" --tokenizer "$tok" prompt --now "$now" \
        < "$tmp/bfcl_prompts.jsonl" > "$tmp/bfcl_$tok.out"
    python3 - "$tmp/bfcl_prompts.jsonl" "$tmp/bfcl_$tok.out" "$here/inputs/bfcl_$tok.jsonl" <<'EOF'
import json, sys
src, res, dst = sys.argv[1], sys.argv[2], sys.argv[3]
with open(src, encoding="utf-8") as f:
    ids = [json.loads(l)["id"] for l in f if l.strip()]
with open(res, encoding="utf-8") as f:
    rows = [json.loads(l) for l in f if l.strip()]
if len(rows) != len(ids):
    sys.exit("build_sets: %s: %d results for %d prompts" % (res, len(rows), len(ids)))
with open(dst, "w", encoding="utf-8", newline="\n") as out:
    for i, r in zip(ids, rows):
        if r.get("id") != i or r.get("rendered") is None:
            sys.exit("build_sets: %s: prompt %s failed: %s" % (res, i, r.get("error")))
        out.write(json.dumps({"id": i, "text": r["rendered"]}, ensure_ascii=False) + "\n")
print("build_sets: %s: %d" % (dst.rsplit("/", 1)[-1], len(rows)), file=sys.stderr)
EOF
done
