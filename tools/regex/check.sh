#!/bin/sh
# check.sh - regenerates the Unicode tables (regen_tables.sh) and the test
# vectors (gen_vectors.py) into a temp dir and diffs them against the blocks now
# in src/tok/regex.c and tests/test_pretok.c, which it never modifies.
# usage: sh tools/regex/check.sh [tables] [vectors]   (default: both; 5-7 min)
# Exit status 0 when every block checked is identical, 1 otherwise.
set -eu
. "$(dirname "$0")/lib.sh"
what=${*:-tables vectors}
status=0
for kind in $what; do
    case $kind in
    tables)
        build_pcls
        python3 "$here/gen_tables.py" --pcls "$tmp/pcls" -o "$tmp/new" 2>"$tmp/log" ||
            { cat "$tmp/log" >&2; exit 2; }
        file=src/tok/regex.c ;;
    vectors)
        python3 "$here/gen_vectors.py" >"$tmp/new"
        file=tests/test_pretok.c ;;
    *) echo "check.sh: unknown block '$kind' (tables, vectors)" >&2; exit 2 ;;
    esac
    python3 "$here/blocks.py" get "$kind" "$root/$file" >"$tmp/cur"
    if diff -u --label "$file ($kind, now)" --label "$kind regenerated" "$tmp/cur" "$tmp/new"; then
        echo "check: $kind: identical to $file ($(wc -l <"$tmp/new") lines)"
    else
        echo "check: $kind: DIFFERS from $file (diff above)"
        status=1
    fi
done
exit $status
