#!/bin/sh
# Runs every test: installs the dependencies when missing, builds with
# AddressSanitizer + UndefinedBehaviorSanitizer (and -Werror), runs the unit,
# golden and command tests, then (when they pass) a short run of every fuzz
# target. The last line is the tests' "N passed, N failed".
#   sh scripts/test.sh            (FUZZ_SECONDS=20 per fuzz target by default)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/setup.sh"
cd "$root"
make -j2 WERROR=1 all test-build fuzz-build >/dev/null
log=$(mktemp)
rc=$(mktemp)
trap 'rm -f "$log" "$rc"' EXIT
# the tests' output as it comes, and their status (a pipe would lose it)
{ status=0; make WERROR=1 test || status=$?; echo "$status" >"$rc"; } | tee "$log"
status=$(cat "$rc")
if [ "$status" -eq 0 ]; then
    make fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-20}" || status=$?
fi
tail -n 1 "$log"
exit "$status"
