#!/bin/sh
# Runs the reference oracle over every input set in inputs/ and writes golden/:
#   golden/T.S.tsv       one line per input line of inputs/S.jsonl, same order:
#                        "<n>\t<hash>", hash = FNV-1a 64 over the ids (each id as
#                        4 bytes little-endian), 16 lowercase hex digits;
#                        "err\t<message>" if the oracle failed on that input.
#   golden/T.sample.jsonl  full ids of lines 0-19 and every 200th line of each
#                        set: {"set": S, "line": k (0-based), "ids": [...]}
# Usage: sh make_golden.sh [tokenizer...]     (default: all nine below)
# JOBS=N runs N tokenizers at a time (default 2). Needs the oracle installed
# (sh <shared>/oracle/install.sh). The shared folder is <project root>/../shared
# unless TALLY_SHARED is set.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
shared=${TALLY_SHARED:-"$root/../shared"}
oracle="$shared/oracle"
SETS="texts bfcl_qwen3 bfcl_llama3_1 gen"
TOKENIZERS="qwen3 llama3_1 llama2 deepseek_v3 gemma3 gpt4o llama3 gptoss claude"

one() {
    tok=$1
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" EXIT INT TERM
    start=$(date +%s)
    : > "$tmp/sample.jsonl"
    for set in $SETS; do
        sh "$oracle/count.sh" --tokenizer "$tok" text --ids < "$here/inputs/$set.jsonl" > "$tmp/$set.out"
        python3 - "$here/inputs/$set.jsonl" "$tmp/$set.out" "$tmp/$tok.$set.tsv" "$tmp/sample.jsonl" "$set" <<'EOF'
import json, sys
inp, res, tsv, sample, set_name = sys.argv[1:6]

def fnv1a64(ids):
    h = 0xcbf29ce484222325
    for i in ids:
        for b in i.to_bytes(4, "little"):
            h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h

with open(inp, encoding="utf-8") as f:
    want = [json.loads(l).get("id") for l in f if l.strip()]
with open(res, encoding="utf-8") as f:
    rows = [json.loads(l) for l in f if l.strip()]
if len(rows) != len(want):
    sys.exit("make_golden: %s: %d results for %d inputs" % (res, len(rows), len(want)))
errors = 0
with open(tsv, "w", encoding="utf-8", newline="\n") as out, open(sample, "a", encoding="utf-8") as smp:
    for k, (w, r) in enumerate(zip(want, rows)):
        if r.get("id") != w:
            sys.exit("make_golden: %s line %d: id %r, expected %r" % (res, k, r.get("id"), w))
        ids = r.get("ids")
        if r.get("n") is None or ids is None:
            errors += 1
            msg = " ".join(str(r.get("error", "no result")).split())
            out.write("err\t%s\n" % msg)
            continue
        if r["n"] != len(ids):
            sys.exit("make_golden: %s line %d: n=%d but %d ids" % (res, k, r["n"], len(ids)))
        out.write("%d\t%s\n" % (len(ids), fnv1a64(ids)))
        if k < 20 or k % 200 == 0:
            smp.write(json.dumps({"set": set_name, "line": k, "ids": ids}, separators=(",", ":")) + "\n")
if errors:
    print("make_golden: %s: %d ERRORS" % (tsv.rsplit("/", 1)[-1], errors), file=sys.stderr)
EOF
        mv "$tmp/$tok.$set.tsv" "$here/golden/$tok.$set.tsv"
    done
    mv "$tmp/sample.jsonl" "$here/golden/$tok.sample.jsonl"
    echo "make_golden: $tok done in $(( $(date +%s) - start )) s" >&2
}

if [ "${1:-}" = "--one" ]; then
    one "$2"
    exit 0
fi

[ $# -gt 0 ] && TOKENIZERS="$*"
mkdir -p "$here/golden"
printf '%s\n' $TOKENIZERS | xargs -n 1 -P "${JOBS:-2}" sh "$here/make_golden.sh" --one
