#!/bin/sh
# A/B timing of two builds of bench_tmpl in the same run: the two binaries
# take turns, pinned to one core, ROUNDS times each, and the medians of
# their render times are compared. On a shared, noisy machine this is the
# way to tell whether a change to the template engine is faster: two runs
# minutes apart differ by more than most changes gain.
#   bench/ab.sh A/bench_tmpl B/bench_tmpl [ROUNDS] [CONTEXTS.jsonl] [TOKENIZER_DIR]
# Keep a copy of the first build before rebuilding, e.g.
#   make build/release/bench_tmpl && cp build/release/bench_tmpl /tmp/a
#   (change, rebuild) && bench/ab.sh /tmp/a build/release/bench_tmpl
# Both must render the same (their sha256 lines are compared). The times
# compared are the cold ones (render_s); BENCH_KEY=fresh_render_s compares
# the fresh ones (see bench_tmpl.c).
set -eu
if [ $# -lt 2 ]; then
    echo "usage: bench/ab.sh BENCH_TMPL_A BENCH_TMPL_B [ROUNDS] [CONTEXTS.jsonl] [TOKENIZER_DIR]" >&2
    exit 2
fi
a=$1 b=$2
rounds=${3:-7}
contexts=${4:-tests/data/tmpl/contexts/agentic_nonull.jsonl}
tok=${5:-${TALLY_ASSETS:-assets}/qwen3}
key=${BENCH_KEY:-render_s}
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c ${BENCH_CPU:-1}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$rounds" ]; do
    for side in a b; do
        if [ "$side" = a ]; then exe=$a; else exe=$b; fi
        $pin "$exe" "$tok" "$contexts" 5 >"$tmp/out" || exit 1
        awk -v k="$key" '$1 == k { print $2 }' "$tmp/out" >>"$tmp/$side"
        awk '$1 == "sha256" { print $2 }' "$tmp/out" >"$tmp/sha.$side"
    done
    i=$((i + 1))
done
if ! cmp -s "$tmp/sha.a" "$tmp/sha.b"; then
    echo "ab: the two builds render differently" >&2
    exit 1
fi
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ma=$(med "$tmp/a") mb=$(med "$tmp/b")
echo "A $a: median $key $ma  (all: $(sort -n "$tmp/a" | tr '\n' ' '))"
echo "B $b: median $key $mb  (all: $(sort -n "$tmp/b" | tr '\n' ' '))"
awk -v a="$ma" -v b="$mb" 'BEGIN { d = (a > b) ? a - b : b - a; w = (a > b) ? "faster" : "slower"
    printf "B/A %.3f (B is %.1f%% %s)\n", b / a, d / a * 100, w }'
