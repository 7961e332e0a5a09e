#!/bin/sh
# `make bench`: tally's tokenizer against the reference (Rust tokenizers via
# the oracle's Node binding) on the same inputs in the same run, pinned to one
# core, for qwen3 and llama3_1 on the shared message texts and the rendered
# BFCL prompts. Prints a table with the ratios. Needs the oracle
# (sh ../shared/oracle/install.sh) and the assets (scripts/fetch-assets.sh).
set -eu
bin=${1:-build/release}
runs=${BENCH_RUNS:-5}
assets=${TALLY_ASSETS:-assets}
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-9s %-14s %9s %9s %10s %9s %9s %7s %8s %8s %7s %8s %9s\n' \
    tokenizer input MB tally_MBs tally_tok/s enc_MBs ref_MBs ratio load_s ref_ld_s rss_MB 1MB_s tokens_ok
for t in qwen3 llama3_1; do
    for set in texts bfcl_qwen3; do
        in=tests/data/tok/inputs/$set.jsonl
        $pin "$bin/bench_tok" "$assets/$t" "$in" "$runs" >"$tmp/c" || exit 1
        $pin node bench/ref_tok.js "$assets/$t/tokenizer.json" "$in" 3 >"$tmp/r" || exit 1
        v() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
        ok=no
        [ "$(v tokens "$tmp/c")" = "$(v tokens "$tmp/r")" ] && ok=yes
        ratio=$(awk -v a="$(v count_mbps "$tmp/c")" -v b="$(v encode_mbps "$tmp/r")" 'BEGIN { printf "%.1fx", a / b }')
        printf '%-9s %-14s %9.2f %9s %10s %9s %9s %7s %8s %8s %7s %8s %9s\n' "$t" "$set" \
            "$(awk -v b="$(v bytes "$tmp/c")" 'BEGIN { print b / 1e6 }')" \
            "$(v count_mbps "$tmp/c")" "$(v count_tokps "$tmp/c")" "$(v encode_mbps "$tmp/c")" \
            "$(v encode_mbps "$tmp/r")" "$ratio" "$(v load_s "$tmp/c")" "$(v load_s "$tmp/r")" \
            "$(v rss_mb "$tmp/c")" "$(v huge_1mb_s "$tmp/c")" "$ok"
    done
done
echo "tally_MBs = tally count (warm word cache), enc_MBs = tally encode, ref_MBs = reference encode;"
echo "ratio = tally count / reference; median of $runs runs (reference: 3); one core (taskset -c 0)."
echo "rss_MB = resident memory added by loading the tokenizer; 1MB_s = count of 1 MB without whitespace."
