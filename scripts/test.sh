#!/bin/sh
# Runs every test: installs the dependencies when missing, builds with
# AddressSanitizer + UndefinedBehaviorSanitizer (and -Werror), runs the unit,
# golden and CLI tests, then a short fuzz run. The last line of the test part
# reads "N passed, N failed".
#   sh scripts/test.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/setup.sh"
cd "$root"
make -j2 WERROR=1 all test-build fuzz-build >/dev/null
make fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
make WERROR=1 test
