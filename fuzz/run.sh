#!/bin/sh
# Runs every fuzz target in $1 for $2 seconds each, starting from the seed
# corpus in fuzz/corpus/<target> (copied, so the run's finds stay out of the
# tree). Fails on the first crash or property violation.
set -eu
dir=${1:-build/fuzz}
secs=${2:-30}
for f in "$dir"/fuzz_*; do
    [ -x "$f" ] || continue
    name=$(basename "$f")
    work="$dir/corpus-run/$name"
    mkdir -p "$work"
    [ -d "fuzz/corpus/$name" ] && cp -n fuzz/corpus/"$name"/* "$work"/ 2>/dev/null || true
    dict=""
    [ -f "fuzz/$name.dict" ] && dict="-dict=fuzz/$name.dict"
    echo "fuzz: $name for ${secs}s" >&2
    # shellcheck disable=SC2086
    "$f" -max_total_time="$secs" -max_len=4096 -timeout=20 -rss_limit_mb=4096 $dict \
        -artifact_prefix="$dir/" -print_final_stats=0 "$work" >"$dir/$name.log" 2>&1 || {
        echo "fuzz: $name FAILED; see $dir/$name.log" >&2
        tail -n 40 "$dir/$name.log" >&2
        exit 1
    }
    grep -E '^#[0-9]+.*(DONE|pulse)' "$dir/$name.log" | tail -n 1 >&2 || true
done
