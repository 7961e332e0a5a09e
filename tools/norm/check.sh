#!/bin/sh
# check.sh - regenerates the tables of src/tok/normalize.c (gen_tables.py:
# UNI9 MN_NOT8 COMPOSED COMPOSED_K LOWER_NEW) into a temp dir and diffs each
# against its block now in normalize.c (blocks.py), which it never modifies.
# usage: sh tools/norm/check.sh [TABLE...]      (default: all five; ~1 min)
# $TALLY_NORM_SCANS, when set, is a folder caching the oracle's scans.
# Exit status 0 when every table checked is identical, 1 otherwise.
set -eu
. "$(dirname "$0")/lib.sh"
all="UNI9 MN_NOT8 COMPOSED COMPOSED_K LOWER_NEW"
names=${*:-$all}
for n in $names; do
    case " $all " in *" $n "*) ;; *) echo "check.sh: unknown table $n ($all)" >&2; exit 2 ;; esac
done
build_uprops
python3 "$here/gen_tables.py" --uprops "$tmp/uprops" -o "$tmp/new" \
    ${TALLY_NORM_SCANS:+--scans "$TALLY_NORM_SCANS"} 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 2; }
cat "$tmp/log"
status=0
for n in $names; do
    python3 "$here/blocks.py" get "$n" >"$tmp/cur"
    awk -v h="@@ $n" '$0 == h { f = 1; print; next } /^@@ / { f = 0 } f' "$tmp/new" >"$tmp/gen"
    if diff -u --label "src/tok/normalize.c $n (now)" --label "$n regenerated" "$tmp/cur" "$tmp/gen"; then
        echo "check: $n: identical to src/tok/normalize.c ($(($(wc -l <"$tmp/gen") - 1)) lines)"
    else
        echo "check: $n: DIFFERS from src/tok/normalize.c (diff above)"
        status=1
    fi
done
exit $status
