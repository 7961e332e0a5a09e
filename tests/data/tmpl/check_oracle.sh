#!/bin/sh
# Cross-checks golden/ against the oracle's command line: runs
#   <shared>/oracle/count.sh --tokenizer TOK prompt --hash --no-rendered --now ... [--chat-template FILE]
# over contexts/<set>.jsonl and compares, line by line, the id, the sha256 of
# the rendering, and for failures the oracle's "error" string with
# "<error_type>: <error>" of the golden line. (render_golden.py calls the
# oracle's code in-process without the token encoder; this proves it gives
# what the oracle itself prints.)
# Usage: sh check_oracle.sh [name...]    SETS="edge bfcl" (default) picks the sets;
#        at most 2 oracle processes at a time (JOBS, default 2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
shared=${TALLY_SHARED:-"$root/../shared"}
SETS=${SETS:-"edge bfcl"}
JOBS=${JOBS:-2}
NOW=2025-01-15T12:00:00

if [ "${1:-}" = "--one" ]; then
    name=$2 source=$3 tok=$4
    set -- --tokenizer "$tok" prompt --hash --no-rendered --now "$NOW"
    [ "$source" = package ] || set -- "$@" --chat-template "$shared/$source"
    tmp=$(mktemp)
    status=0
    for s in $SETS; do
        sh "$shared/oracle/count.sh" "$@" < "$here/contexts/$s.jsonl" > "$tmp"
        if python3 - "$tmp" "$here/golden/$name.$s.jsonl" <<'PY'
import json, sys
o = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
g = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8") if l.strip()]
bad = 0 if len(o) == len(g) else 1
for a, b in zip(o, g):
    if a.get("id") != b.get("id"):
        bad += 1
    elif "sha256" in b:
        bad += a.get("sha256") != b["sha256"] or a.get("n") is None
    else:
        want = f"{b['error_type']}: {b['error']}"
        if b["error_type"] == "RecursionError":   # message tail varies, see render_golden.py
            bad += not str(a.get("error")).startswith(want)
        else:
            bad += a.get("error") != want
print(f"{len(g)} lines, {bad} differ")
sys.exit(1 if bad else 0)
PY
        then echo "same     $name.$s"; else echo "DIFFERS  $name.$s"; status=1; fi
    done
    rm -f "$tmp"
    exit $status
fi

list=$(grep -v '^#' "$here/templates.tsv")
if [ $# -gt 0 ]; then
    want=" $* "
    list=$(echo "$list" | while IFS="$(printf '\t')" read -r n s t; do
        case "$want" in *" $n "*) printf '%s\t%s\t%s\n' "$n" "$s" "$t" ;; esac; done)
fi
echo "$list" | tr '\t' ' ' | SETS="$SETS" TALLY_SHARED="$shared" \
    xargs -P "$JOBS" -L 1 sh "$here/check_oracle.sh" --one
