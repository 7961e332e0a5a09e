#!/bin/sh
# Runs every test binary in $1 (built by `make test-build`) that has its
# tests/test_*.c (or only those named in $2, comma-separated, with or
# without their test_ prefix: `make test T=pool,queue`), then prints one
# line: "N passed, N failed".
# Each binary prints "ok N - name" / "not ok N - name" per test; a binary that
# crashes or exits non-zero without a "not ok" line counts as one failure.
dir=${1:-build/test}
only=${2:-}
pass=0
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "$dir"/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    # a binary left from a test whose source is gone does not count
    [ -f "tests/$name.c" ] || continue
    if [ -n "$only" ]; then
        case ",$only," in
            *",$name,"* | *",${name#test_},"*) ;;
            *) continue ;;
        esac
    fi
    TALLY_BIN="$dir/tally" timeout 1800 "$t" >"$log" 2>&1
    rc=$?
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "FAIL $name: exited with status $rc"
    fi
    if [ "$f" -ne 0 ]; then
        grep -E '^(not ok|#)' "$log" | head -n 60
        tail -n 20 "$log" | grep -v '^ok ' | grep -v '^#'
    fi
    echo "$name: $p passed, $f failed"
    pass=$((pass + p))
    fail=$((fail + f))
done
if [ -n "$only" ] && [ $((pass + fail)) -eq 0 ]; then
    echo "no test binary matches T=$only (see tests/test_*.c)"
    fail=1
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
