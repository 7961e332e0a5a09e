#!/bin/sh
# `make bench`: tally's tokenizer against the reference (Rust tokenizers
# 0.22.2 via the oracle's Node binding) on the same inputs in the same run,
# pinned to one core, for qwen3 and llama3_1 on the shared message texts and
# the rendered BFCL prompts. Needs the oracle (sh ../shared/oracle/install.sh)
# and the assets (scripts/fetch-assets.sh).
set -eu
bin=${1:-build/release}
runs=${BENCH_RUNS:-5}
assets=${TALLY_ASSETS:-assets}
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
v() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

echo "Throughput, MB/s of input text (tokens/s in parentheses), one core:"
printf '%-9s %-14s %6s | %-22s %-9s %-9s | %-22s %-9s | %7s %7s\n' \
    tokenizer input MB "tally count" "cold" "encode" "reference 1-by-1" "batch" "x 1by1" "x batch"
for t in qwen3 llama3_1; do
    for set in texts bfcl_qwen3; do
        in=tests/data/tok/inputs/$set.jsonl
        $pin "$bin/bench_tok" "$assets/$t" "$in" "$runs" >"$tmp/c.$t.$set" || exit 1
        $pin node bench/ref_tok.js "$assets/$t/tokenizer.json" "$in" 3 >"$tmp/r.$t.$set" || exit 1
        c=$tmp/c.$t.$set r=$tmp/r.$t.$set
        if [ "$(v tokens "$c")" != "$(v tokens "$r")" ]; then
            echo "bench: $t $set: tally counted $(v tokens "$c") tokens, the reference $(v tokens "$r")" >&2
            exit 1
        fi
        printf '%-9s %-14s %6.2f | %7s (%11s) %-9s %-9s | %6s (%10s) %-9s | %6sx %6sx\n' "$t" "$set" \
            "$(awk -v b="$(v bytes "$c")" 'BEGIN { print b / 1e6 }')" \
            "$(v count_mbps "$c")" "$(v count_tokps "$c")" "$(v count_cold_mbps "$c")" "$(v encode_mbps "$c")" \
            "$(v encode_mbps "$r")" "$(v encode_tokps "$r")" "$(v batch_mbps "$r")" \
            "$(div "$(v count_mbps "$c")" "$(v encode_mbps "$r")")" "$(div "$(v count_mbps "$c")" "$(v batch_mbps "$r")")"
    done
done
echo
echo "Load time (s), memory (MB), a 1 MB input without whitespace (s):"
printf '%-9s %8s %8s %8s %10s %12s\n' tokenizer tally reference "x" "rss_MB" "1MB_count_s"
for t in qwen3 llama3_1; do
    c=$tmp/c.$t.texts r=$tmp/r.$t.texts
    printf '%-9s %8s %8s %7sx %10s %12s\n' "$t" "$(v load_s "$c")" "$(v load_s "$r")" \
        "$(div "$(v load_s "$r")" "$(v load_s "$c")")" "$(v rss_mb "$c")" "$(v huge_1mb_s "$c")"
done
echo
echo "Load time of every tokenizer (s, median of 3 loads each):"
printf '%-12s %8s %9s %7s\n' tokenizer tally reference x
for t in qwen3 llama3_1 llama3 llama2 deepseek_v3 gemma3 gpt4o gptoss claude; do
    [ -f "$assets/$t/tokenizer.json" ] || continue
    $pin "$bin/bench_tok" "$assets/$t" examples/sample.jsonl 1 >"$tmp/lc" || exit 1
    $pin node bench/ref_tok.js "$assets/$t/tokenizer.json" examples/sample.jsonl 1 >"$tmp/lr" || exit 1
    printf '%-12s %8s %9s %6sx\n' "$t" "$(v load_s "$tmp/lc")" "$(v load_s "$tmp/lr")" \
        "$(div "$(v load_s "$tmp/lr")" "$(v load_s "$tmp/lc")")"
done
echo
echo "count = tally count with a warm word cache (a long-running process); cold = a fresh"
echo "work area per run; reference 1-by-1 = one encode call per text (as the oracle counts),"
echo "batch = one encodeBatch call; medians of $runs runs (reference: 3); every run checks"
echo "that tally and the reference give the same total token count."
