#!/bin/sh
# compare.sh - runs tally (drv.c, built from the current src/) and the oracle
# (orc.js) on the same pre-tokenizer cases and prints a summary of differences.
# usage: sh tools/regex/compare.sh random [SEED [N]]   N random strings (gen_strings.py,
#                                                       default seed 1, N 300) x 258 configs (cases.py)
#        sh tools/regex/compare.sh allcp               every code point (allcp.py; ~7 min, ~1.5 GB in tmp)
# Exit status 0 when both agree everywhere, 1 when something differs.
set -eu
. "$(dirname "$0")/lib.sh"
mode=${1:-random}
case $mode in
random)
    seed=${2:-1}; n=${3:-300}
    python3 "$here/gen_strings.py" "$seed" "$n" >"$tmp/strings.json"
    python3 "$here/cases.py" "$tmp/strings.json" >"$tmp/cases.jsonl" ;;
allcp)
    python3 "$here/allcp.py" >"$tmp/cases.jsonl" ;;
*) echo "usage: compare.sh random [SEED [N]] | allcp" >&2; exit 2 ;;
esac
build_drv
"$tmp/drv" <"$tmp/cases.jsonl" >"$tmp/tally.txt"
node "$here/orc.js" <"$tmp/cases.jsonl" >"$tmp/oracle.txt"
echo "compare.sh $mode${seed:+ seed $seed N $n}:"
python3 "$here/summarize.py" "$tmp/cases.jsonl" "$tmp/tally.txt" "$tmp/oracle.txt"
