#!/bin/sh
# `make bench`: tally's tokenizer against the reference (Rust tokenizers
# 0.22.2 via the oracle's Node binding) on the same inputs in the same run,
# pinned to one core, for qwen3 and llama3_1 on the shared message texts and
# the rendered BFCL prompts; then chat-template rendering against the
# oracle's Python Jinja2 (qwen3's template over the agentic prompts); then
# the counting kinds (prompts and messages) against the oracle's Python path;
# then the end-of-run drain (the queue on worker processes) over the agentic
# prompts replicated, its scaling on 2 cores and its memory, against the same
# Python path; then `tally count` end to end with 0, 1, 2, 8 workers and the
# default; then `tally replay` (the aggregator over an event log): ingest
# against upstream's own aggregator, and a generated agentic run of 10,000 and
# 100,000 samples with 1 and 2 shards; then throughput by kind of text
# (issue 20); then `tally aggregate` (the live process over ZeroMQ): ingest
# over ipc from a publisher sending as fast as it can, token metrics off and
# on, against upstream's process(), the time from session.ended to the file,
# and the cost of a live snapshot. BENCH_ONLY=tok, tmpl, count, drain,
# shards, kinds, replay or aggregate runs one part. Needs the oracle (sh ../shared/oracle/install.sh),
# for replay its aggregator (../shared/oracle/aggregator/setup.sh), and the
# assets (scripts/fetch-assets.sh).
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
only=${BENCH_ONLY:-}
python=${ORACLE_PYTHON:-/usr/bin/python3}

if [ -z "$only" ] || [ "$only" = tok ]; then

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
echo "count = tally count with a warm word cache (a long-running process; its piece cache is"
echo "emptied before each pass, so no text is answered from an earlier pass); cold = a fresh"
echo "work area per run; reference 1-by-1 = one encode call per text (as the oracle counts),"
echo "batch = one encodeBatch call; medians of $runs runs (reference: 3); every run checks"
echo "that tally and the reference give the same total token count."
fi

if [ -z "$only" ] || [ "$only" = tmpl ]; then
[ "$only" = tmpl ] || echo
echo "Chat-template rendering, qwen3's template (assets/qwen3) over the agentic prompts, one core:"
printf '%-15s %-6s %6s %8s %7s | %-22s | %-22s | %6s  %s\n' \
    contexts parsed prompts "MB out" errors "tally renders/s  MB/s" "Jinja2 renders/s  MB/s" "x" "(rounds)"
# The two sides take turns, $rounds rounds of each (a Jinja2 run takes a
# second, and the machine's speed drifts between minutes): each side's time
# is the median of its rounds' medians; the ratio is the median of the
# rounds' ratios (each of two runs next to each other in time), printed
# with the lowest and highest of them.
rounds=${BENCH_TMPL_ROUNDS:-5}
# a tally run takes 10-30 ms: more of them a round than of Jinja2's
truns=${BENCH_TMPL_RUNS:-15}
medf() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for set in agentic_nonull agentic; do
    in=tests/data/tmpl/contexts/$set.jsonl
    k=1
    while [ "$k" -le "$rounds" ]; do
        $pin "$bin/bench_tmpl" "$assets/qwen3" "$in" "$truns" >"$tmp/tc.$set.$k" || exit 1
        $pin "$python" bench/ref_tmpl.py "$assets/qwen3" "$in" 3 >"$tmp/tr.$set.$k" || exit 1
        c=$tmp/tc.$set.$k r=$tmp/tr.$set.$k
        if [ "$(v sha256 "$c")" != "$(v sha256 "$r")" ]; then
            echo "bench: qwen3 $set: tally's renderings differ from Jinja2's" \
                 "($(v out_bytes "$c") vs $(v out_bytes "$r") bytes, $(v errors "$c") vs $(v errors "$r") errors)" >&2
            exit 1
        fi
        k=$((k + 1))
    done
    c=$tmp/tc.$set.1
    n=$(v inputs "$c") mb=$(awk -v b="$(v out_bytes "$c")" 'BEGIN { print b / 1e6 }')
    for mode in cold fresh; do
        p=""
        [ "$mode" = fresh ] && p=fresh_
        tc=$(cat "$tmp"/tc."$set".* | awk -v k="${p}render_s" '$1 == k { print $2 }' | medf)
        tr=$(cat "$tmp"/tr."$set".* | awk -v k="${p}render_s" '$1 == k { print $2 }' | medf)
        k=1
        : >"$tmp/x"
        while [ "$k" -le "$rounds" ]; do
            div "$(v "${p}render_s" "$tmp/tr.$set.$k")" "$(v "${p}render_s" "$tmp/tc.$set.$k")" >>"$tmp/x"
            echo >>"$tmp/x"
            k=$((k + 1))
        done
        printf '%-15s %-6s %6s %8.2f %7s | %14.0f %7.2f | %15.0f %6.2f | %5sx  (%s-%s)\n' "$set" "$mode" "$n" "$mb" \
            "$(v errors "$c")" "$(awk -v n="$n" -v t="$tc" 'BEGIN { print n / t }')" \
            "$(awk -v m="$mb" -v t="$tc" 'BEGIN { print m / t }')" "$(awk -v n="$n" -v t="$tr" 'BEGIN { print n / t }')" \
            "$(awk -v m="$mb" -v t="$tr" 'BEGIN { print m / t }')" "$(medf <"$tmp/x")" \
            "$(sort -n "$tmp/x" | head -1)" "$(sort -n "$tmp/x" | tail -1)"
    done
done
echo
echo "MB out = rendered text; only rendering is timed (tally: chat_render_prompt, Jinja2: the"
echo "oracle's job_prompt with the template compiled). parsed: cold = all prompts parsed first,"
echo "then rendered (their trees are out of cache); fresh = each prompt parsed just before"
echo "its render, as \`tally render\` and the counting do. The sides take turns, $rounds rounds"
echo "each; a side's time is the median of its rounds' medians ($truns runs a round; Jinja2: 3);"
echo "x is the median of the rounds' ratios (lowest-highest in parentheses); both sides'"
echo "renderings (and failures, by exception class) must have the same sha256."
echo "agentic_nonull: null assistant contents replaced by \"\" (all render); agentic: as given"
echo "(most fail)."
fi

if [ -z "$only" ] || [ "$only" = count ]; then
[ "$only" = count ] || echo
# The reference takes about a minute per pass over the agentic prompts, so it
# runs fewer passes; BENCH_COUNT_TOKS picks the tokenizers (default qwen3).
count_toks=${BENCH_COUNT_TOKS:-qwen3}
ref_runs=${BENCH_REF_RUNS:-3}
echo "Counting (count_item, what \`tally count\` runs per line) on the agentic data, one core:"
printf '%-9s %-8s %6s %10s %9s | %-22s | %-22s | %6s\n' \
    tokenizer kind items tokens fallbacks "tally items/s  (cold)" "oracle items/s" "x"
for t in $count_toks; do
    prompts=build/inputs/agentic_prompts.jsonl outputs=build/inputs/agentic_outputs.jsonl
    $pin "$bin/bench_count" "$assets/$t" "$prompts" "$outputs" "$runs" >"$tmp/cc.$t" || exit 1
    # each set in an oracle process of its own (see bench/ref_count.py)
    $pin "$python" bench/ref_count.py "$assets/$t" "$prompts" - "$ref_runs" >"$tmp/cr.$t" || exit 1
    $pin "$python" bench/ref_count.py "$assets/$t" - "$outputs" "$ref_runs" | grep '^message' >>"$tmp/cr.$t" || exit 1
    c=$tmp/cc.$t r=$tmp/cr.$t
    for k in prefix_len baseline prompt_tokens prompt_fallbacks prompt_errors \
             message_tokens message_fallbacks message_errors; do
        if [ "$(v $k "$c")" != "$(v $k "$r")" ]; then
            echo "bench: $t: $k: tally $(v $k "$c"), the oracle $(v $k "$r")" >&2
            exit 1
        fi
    done
    for kind in prompt message; do
        printf '%-9s %-8s %6s %10s %9s | %12s (%7s) | %22s | %5sx\n' "$t" "$kind" \
            "$(v ${kind}_items "$c")" "$(v ${kind}_tokens "$c")" "$(v ${kind}_fallbacks "$c")" \
            "$(v ${kind}s_per_s "$c")" \
            "$(awk -v n="$(v ${kind}_items "$c")" -v s="$(v ${kind}_cold_s "$c")" 'BEGIN { printf "%.0f", n / s }')" \
            "$(v ${kind}s_per_s "$r")" "$(div "$(v ${kind}_s "$r")" "$(v ${kind}_s "$c")")"
    done
done
echo
echo "Both sides count the same parsed items (the agentic prompts as given, with upstream's"
echo "fallback to the prompt's JSON where the template fails; the recorded assistant outputs)"
echo "with the clock pinned; totals, fallbacks and the message framing must agree. tally:"
echo "count_item with a warm work area whose piece cache is emptied before each pass (pieces"
echo "shared by prompts of one pass, the messages a turn repeats, still hit), median of at"
echo "least $runs passes, more while they add up to less than a second (at most 100: the"
echo "messages take milliseconds a pass, and a few such passes are at the mercy of one pause"
echo "of a shared machine); cold = the first pass with a fresh work area. oracle:"
echo "Oracle.job_prompt (--mlcommons) / job_message per item and one encode per 256 items"
echo "through its Node process (Rust tokenizers; pinned to the same core), median of at least"
echo "$ref_runs passes by the same rule, prompts and messages each in a process of its own;"
echo "input parsing and output writing are not timed on"
echo "either side. BENCH_COUNT_TOKS=\"qwen3 llama3_1\" adds tokenizers (the reference takes"
echo "about a minute per pass over the prompts)."
fi

if [ -z "$only" ] || [ "$only" = drain ]; then
[ "$only" = drain ] || echo
# The drain is not pinned (no taskset): its 2-worker runs must have both cores.
# Each (size, workers) runs in a process of its own, since peak RSS is a
# high-water mark; BENCH_DRAIN_SIZES picks the sizes (the memory ratio is the
# last size's over the first's). The oracle (one core, pinned) counts the
# distinct lines once: it takes about half a minute.
drain_sizes=${BENCH_DRAIN_SIZES:-20000 200000}
prompts=tests/data/tmpl/contexts/agentic_nonull.jsonl
$pin "$python" bench/ref_count.py "$assets/qwen3" "$prompts" - 1 >"$tmp/dr" || exit 1
r=$tmp/dr
drain_runs=${BENCH_DRAIN_RUNS:-3}
# drain_cfg N WORKERS [nocache]: runs one configuration drain_runs times; the
# run with the median items/s stands for it (all its columns), in $tmp/dc.N.W[nc]
drain_cfg() {
    sfx=""
    [ "${3:-}" = nocache ] && sfx=nc
    r_=1
    while [ "$r_" -le "$drain_runs" ]; do
        "$bin/bench_drain" "$assets/qwen3" "$prompts" "$1" "$2" ${3:-} >"$tmp/dc.$1.$2$sfx.$r_" || exit 1
        r_=$((r_ + 1))
    done
    med=$(for f in "$tmp/dc.$1.$2$sfx".*; do echo "$(v items_per_s "$f") $f"; done | sort -n |
          awk '{ a[NR] = $2 } END { print a[int((NR + 1) / 2)] }')
    cp "$med" "$tmp/dc.$1.$2$sfx"
    c=$tmp/dc.$1.$2$sfx
    for k in tokens fallbacks errors; do
        if [ "$(v distinct_$k "$c")" != "$(v prompt_$k "$r")" ]; then
            echo "bench: drain $1 x $2 $sfx: distinct $k: tally $(v distinct_$k "$c"), the oracle $(v prompt_$k "$r")" >&2
            exit 1
        fi
    done
    [ "$(v rss_reset "$c")" = 1 ] ||
        echo "bench: drain $1 x $2: the peak RSS could not be reset; parent MB includes the self-check" >&2
}
for n in $drain_sizes; do
    for w in 1 2; do
        drain_cfg "$n" "$w"
    done
done
first=$(echo $drain_sizes | awk '{ print $1 }')
for w in 1 2; do
    drain_cfg "$first" "$w" nocache
done
first=$(echo $drain_sizes | awk '{ print $1 }')
last=$(echo $drain_sizes | awk '{ print $NF }')
c=$tmp/dc.$first.1
echo "Drain (dq_drain, count_ops on forked workers) of the agentic prompts with null contents as \"\""
echo "(qwen3, prompt kind): $(v distinct "$c") distinct lines ($(v input_mb "$c") MB, stored once, $(v distinct_tokens "$c") tokens)"
echo "replicated; goals: scaling >= 1.8x on 2 cores, memory $last/$first <= 1.2x, >= 50x the oracle per core:"
printf '%8s %7s | %9s %10s %8s %7s | %-20s %10s | %7s | %9s\n' \
    items workers "items/s" "tokens/s" "drain s" "cpu s" "parent MB (before)" "worker MB" scaling "x oracle"
for cfg in $(for n in $drain_sizes; do echo "$n.1 $n.2"; done) "$first.1nc" "$first.2nc"; do
    n=${cfg%%.*} w=${cfg#*.}
    c=$tmp/dc.$cfg
    scaling=-
    case $w in
    2) scaling="$(awk -v a="$(v items_per_s "$c")" -v b="$(v items_per_s "$tmp/dc.$n.1")" 'BEGIN { printf "%.2f", a / b }')x" ;;
    2nc) scaling="$(awk -v a="$(v items_per_s "$c")" -v b="$(v items_per_s "$tmp/dc.$n.1nc")" 'BEGIN { printf "%.2f", a / b }')x" ;;
    esac
    w=$(echo "$w" | sed 's/nc/ (no piece cache)/')
    printf '%8s %7s | %9.0f %10s %8.2f %7.2f | %9s (%8s) %10s | %7s | %8sx\n' "$n" "$w" \
        "$(v items_per_s "$c")" "$(v tokps "$c")" "$(v drain_s "$c")" \
        "$(awk -v p="$(v parent_cpu_s "$c")" -v w="$(v workers_cpu_s "$c")" 'BEGIN { print p + w }')" \
        "$(v parent_rss_mb "$c")" "$(v parent_rss_before_mb "$c")" "$(v workers_rss_mb "$c")" "$scaling" \
        "$(div "$(v items_per_s "$c")" "$(awk -v p="$(v prompts_per_s "$r")" -v w="${w%% *}" 'BEGIN { print p * w }')")"
done
printf '%-35s %9.1f %10s\n' "oracle, distinct lines, one core:" "$(v prompts_per_s "$r")" "$(v prompt_tokps "$r")"
c=$tmp/dc.$first.1
printf '%-35s %9.0f\n' "tally in-process, distinct lines:" \
    "$(awk -v n="$(v distinct "$c")" -v s="$(v distinct_s "$c")" 'BEGIN { print n / s }')"
ratio() { awk -v a="$(v "$1" "$tmp/dc.$last.$2")" -v b="$(v "$1" "$tmp/dc.$first.$2")" 'BEGIN { printf "%.2f", a / b }'; }
echo "Memory $last/$first items (peak RSS, nothing subtracted): parent $(ratio parent_rss_mb 1)x with 1 worker," \
     "$(ratio parent_rss_mb 2)x with 2; largest worker $(ratio workers_rss_mb 1)x, $(ratio workers_rss_mb 2)x."
echo
echo "tally: bench_drain enqueues N items cycling over the distinct lines (borrowed payloads,"
echo "so the inputs are stored once whatever N is; no live lane) and times one dq_drain on 1"
echo "and on 2 worker processes, not pinned; each configuration runs $drain_runs times (BENCH_DRAIN_RUNS),"
echo "each in a process of its own, and the run with the median items/s is shown (all its"
echo "columns). cpu s = CPU time of the parent and its workers during the drain (on"
echo "a busy machine items/s falls, cpu s does not). Every recorded count must equal the count"
echo "of its line made first in the parent with the same ops (tally in-process: that one cold"
echo "pass, not part of the drain), and nothing may stay pending. parent MB = the parent's peak"
echo "RSS from enqueueing to the end of the drain (before: to the end of enqueueing), the peak"
echo "being reset after the self-check, whose scratch is freed (its own peak: $(v parent_rss_selfcheck_mb "$c") MB);"
echo "worker MB = the largest worker's peak RSS (pages shared copy-on-write with the parent"
echo "included); the inputs ($(v input_mb "$c") MB) are in both. oracle: bench/ref_count.py,"
echo "Oracle.job_prompt (--mlcommons) per item and one encode per 256 items through its Node"
echo "process, pinned to one core, one pass over the distinct lines; its token total, fallbacks"
echo "and errors must equal tally's. x oracle = items/s / workers / oracle items/s (N is not"
echo "always a multiple of the distinct lines, so the item mix differs slightly: see tokens/s)."
echo "Each worker's tokenizer remembers the pieces between special tokens it counted (the"
echo "piece cache of src/tok/tok.c, 16 MiB per worker): a multi-turn prompt repeats the"
echo "messages of the turn before, and replicated items repeat whole prompts, as a benchmark"
echo "run that cycles over its dataset does. \"tally in-process, distinct lines\" is one pass"
echo "over the distinct lines with a fresh cache (only the turns' shared messages hit). The"
echo "rows without the piece cache show the engine's own scaling: with it, each worker warms"
echo "its own cache, so the first pass over the distinct pieces is paid once per worker."
fi

if [ -z "$only" ] || [ "$only" = shards ]; then
[ "$only" = shards ] || echo
# `tally count` end to end on each input of the benchmark, with 0, 1, 2 and
# 8 worker processes and the default (one per CPU), not pinned; the outputs
# must be byte-identical. The job's own time (the summary's "in S s": reading,
# counting, writing; loading excluded, the same in every run) is the median
# of BENCH_SHARDS_RUNS runs (default 5), the configurations taking turns.
shard_runs=${BENCH_SHARDS_RUNS:-5}
mkdir -p "$tmp/sh"
rep() { r_=0; while [ "$r_" -lt "$2" ]; do cat "$1"; r_=$((r_ + 1)); done; }
rep build/inputs/agentic_prompts.jsonl 1 >"$tmp/sh/agentic_prompts"
rep build/inputs/bfcl_prompts.jsonl 10 >"$tmp/sh/bfcl_prompts"
rep build/inputs/texts.jsonl 5 >"$tmp/sh/texts"
rep build/inputs/agentic_outputs.jsonl 20 >"$tmp/sh/agentic_outputs"
echo "tally count, job time in s (median of $shard_runs), by worker processes (--shards; default $(nproc) here):"
printf '%-16s %7s %9s | %8s %8s %8s %8s %8s | %8s %9s\n' input lines MB "0" "1" "2" "8" default \
    "8/dflt" "dflt/0"
for in in agentic_prompts bfcl_prompts texts agentic_outputs; do
    f=$tmp/sh/$in
    r_=1
    while [ "$r_" -le "$shard_runs" ]; do
        for s in 0 1 2 8 default; do
            opt="--shards $s"
            [ "$s" = default ] && opt=""
            # shellcheck disable=SC2086
            "$bin/tally" count -t "$assets/qwen3" --now 2025-01-15T12:00:00 --progress-interval 0 $opt \
                <"$f" >"$tmp/sh/out.$s" 2>"$tmp/sh/err.$s" || [ $? -eq 4 ] || exit 1
            sed -n 's/.* in \([0-9.]*\) s (.*/\1/p' "$tmp/sh/err.$s" | tail -n 1 >>"$tmp/sh/t.$in.$s"
            if ! cmp -s "$tmp/sh/out.$s" "$tmp/sh/out.0"; then
                echo "bench: tally count --shards $s on $in: the output differs from --shards 0" >&2
                exit 1
            fi
        done
        r_=$((r_ + 1))
    done
    med() { sort -n "$tmp/sh/t.$in.$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
    printf '%-16s %7s %9.1f | %8s %8s %8s %8s %8s | %7sx %8sx\n' "$in" "$(wc -l <"$f")" \
        "$(awk -v b="$(wc -c <"$f")" 'BEGIN { print b / 1e6 }')" \
        "$(med 0)" "$(med 1)" "$(med 2)" "$(med 8)" "$(med default)" \
        "$(div "$(med 8)" "$(med default)")" "$(div "$(med default)" "$(med 0)")"
done
echo
echo "Inputs (build/inputs, from ../shared/data): the agentic prompts as given, the BFCL prompts"
echo "x10, the message texts x5, the agentic assistant outputs x20 (qwen3, --kind auto). The"
echo "workers are forked once per run; more workers than CPUs only add processes that wait."
echo "Goals (issue 17): 8/dflt <= 1.5x, dflt/0 <= 1.0x on every input."
fi

if [ -z "$only" ] || [ "$only" = kinds ]; then
[ "$only" = kinds ] || echo
# Issue 20's table: throughput by kind of text, one core, the generated
# golden strings split by category (bench/gen_kinds.py), each string once;
# tally warm (its caches filled by the passes before), cold (a fresh work
# area each pass), cold again once the linear encoder's tables are built
# (as in a process that has counted more than a kind's few hundred KB) and
# the reference one text at a time. tally (medians of BENCH_KINDS_RUNS
# passes) and the reference (of 3) take turns BENCH_KINDS_ROUNDS times:
# each MB/s column is the median of the rounds, each ratio the median of
# the rounds' ratios (tally's against the reference's run just after it),
# so that a busy minute of the machine falls on both sides, not on one.
kruns=${BENCH_KINDS_RUNS:-9}
krounds=${BENCH_KINDS_ROUNDS:-3}
mkdir -p "$tmp/k"
"$python" bench/gen_kinds.py tests/data/tok/inputs/gen.jsonl "$tmp/k" >"$tmp/k/sizes" || exit 1
kmed() { sort -g "$tmp/k/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "Throughput by kind of text, MB/s, one core (medians of $krounds rounds of $kruns passes, the reference's of 3):"
printf '%-9s %-14s %6s %7s | %8s %8s %8s | %9s | %7s %7s %7s\n' tokenizer kind MB strings "warm" "cold" "built" \
    "reference" "x warm" "x cold" "x built"
for t in qwen3 llama3_1 gemma3; do
    while read -r kind kbytes kn; do
        in=$tmp/k/$kind.jsonl
        rm -f "$tmp/k/warm" "$tmp/k/cold" "$tmp/k/built" "$tmp/k/ref" "$tmp/k/xw" "$tmp/k/xc" "$tmp/k/xb"
        r_=1
        while [ "$r_" -le "$krounds" ]; do
            $pin "$bin/bench_tok" "$assets/$t" "$in" "$kruns" >"$tmp/k/c" || exit 1
            $pin node bench/ref_tok.js "$assets/$t/tokenizer.json" "$in" 3 >"$tmp/k/r" || exit 1
            if [ "$(v tokens "$tmp/k/c")" != "$(v tokens "$tmp/k/r")" ]; then
                echo "bench: $t $kind: tally counted $(v tokens "$tmp/k/c") tokens, the reference $(v tokens "$tmp/k/r")" >&2
                exit 1
            fi
            v count_mbps "$tmp/k/c" >>"$tmp/k/warm"
            v count_cold_mbps "$tmp/k/c" >>"$tmp/k/cold"
            v count_cold_built_mbps "$tmp/k/c" >>"$tmp/k/built"
            v encode_mbps "$tmp/k/r" >>"$tmp/k/ref"
            for col in count_mbps:xw count_cold_mbps:xc count_cold_built_mbps:xb; do
                div "$(v "${col%:*}" "$tmp/k/c")" "$(v encode_mbps "$tmp/k/r")" >>"$tmp/k/${col#*:}"
                echo >>"$tmp/k/${col#*:}"
            done
            r_=$((r_ + 1))
        done
        printf '%-9s %-14s %6.2f %7d | %8s %8s %8s | %9s | %6sx %6sx %6sx\n' "$t" "$kind" \
            "$(awk -v b="$kbytes" 'BEGIN { print b / 1e6 }')" "$kn" \
            "$(kmed warm)" "$(kmed cold)" "$(kmed built)" "$(kmed ref)" \
            "$(kmed xw)" "$(kmed xc)" "$(kmed xb)"
    done <"$tmp/k/sizes"
done
echo "Goals (issue 20): every kind >= 20x the reference; long words >= 50 MB/s; no kind slower than before."
fi

if [ -z "$only" ] || [ "$only" = replay ]; then
[ "$only" = replay ] || echo
# Ingest: a streaming log with token metrics off (no tokenizer: as upstream
# without one, only token ids give ISL), one core. tally's time is its whole
# reading loop (read, decode, aggregate: "s reading and counting"); the
# reference's is upstream's process() loop alone (its decoding and msgpack
# round trip come on top and are left out), as its README measures it.
agg_home=${UPSTREAM_AGG_HOME:-$HOME/.cache/upstream-agg}
gen=tests/data/agg/gen_events.py
replay_runs=${BENCH_REPLAY_RUNS:-3}
ingest_samples=${BENCH_INGEST_SAMPLES:-20000}
mkdir -p "$tmp/rp"
"$python" "$gen" stream_chat_tools --samples "$ingest_samples" --seed 7 --out "$tmp/rp/ingest.jsonl" 2>/dev/null
ev=$(wc -l <"$tmp/rp/ingest.jsonl")
r_=1
while [ "$r_" -le "$replay_runs" ]; do
    $pin "$bin/tally" replay "$tmp/rp/ingest.jsonl" --out "$tmp/rp/t.out" --progress-interval 0 \
        >/dev/null 2>"$tmp/rp/t.err" || exit 1
    sed -n 's/.* (\([0-9.]*\) s reading and counting.*/\1/p' "$tmp/rp/t.err" >>"$tmp/rp/t.s"
    (. "$agg_home/env.sh" && $pin "$PYTHON" ../shared/oracle/aggregator/replay.py "$tmp/rp/ingest.jsonl" \
        --out "$tmp/rp/o.out" --streaming --timings "$tmp/rp/o.json" >/dev/null 2>&1) || exit 1
    "$python" -c 'import json, sys; t = json.load(open(sys.argv[1])); print(t["process_s"], t["load_decode_s"] + t["process_s"])' \
        "$tmp/rp/o.json" >>"$tmp/rp/o.s"
    r_=$((r_ + 1))
done
for f in final_snapshot.json; do
    if ! "$python" - "$tmp/rp/t.out/metrics/$f" "$tmp/rp/o.out/metrics/$f" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("timestamp_ns"); b.pop("timestamp_ns")
sys.exit(a != b)
PY
    then
        echo "bench: replay ingest: tally's final snapshot differs from the reference's" >&2
        exit 1
    fi
done
medcol() { awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ts=$(medcol "$tmp/rp/t.s" 1)
ps=$(medcol "$tmp/rp/o.s" 1)
pe=$(medcol "$tmp/rp/o.s" 2)
echo "tally replay, ingest with token metrics off, one core ($ev events, $(awk -v b="$(wc -c <"$tmp/rp/ingest.jsonl")" 'BEGIN { printf "%.1f", b / 1e6 }') MB, streaming; medians of $replay_runs):"
printf '%-44s %10s %12s %8s\n' "" "s" "events/s" "x"
printf '%-44s %10.3f %12.0f %8s\n' "tally (read + decode + aggregate)" "$ts" "$(div "$ev" "$ts")" "-"
printf '%-44s %10.3f %12.0f %7sx\n' "upstream process() alone" "$ps" "$(div "$ev" "$ps")" "$(div "$ps" "$ts")"
printf '%-44s %10.3f %12.0f %7sx\n' "upstream decode + process()" "$pe" "$(div "$ev" "$pe")" "$(div "$pe" "$ts")"
echo "Goals (issue 18): >= 30x the reference harness and >= 3,000,000 events/s (docs/performance.md:"
echo "the harness's whole run, decode + process(), is the ratio the two goals agree on; process() alone is shown too)."
echo

# A generated agentic run (each turn's prompt the whole history, with tools;
# outputs with reasoning and tool calls), qwen3, not pinned: wall time of the
# whole replay with 1 and 2 shards, the time in counting (the reading loop,
# which counts as it reads, and the drain after session.ended) and the peak
# RSS of the largest process. The logs are those of make_golden.sh --bench
# (BENCH_SHA256SUMS); BENCH_REPLAY_SIZES chooses the sample counts.
sizes=${BENCH_REPLAY_SIZES:-10000 100000}
echo "tally replay of a generated agentic run, qwen3 (median of $replay_runs runs):"
printf '%8s %8s %7s | %8s %9s %8s %8s | %8s\n' samples "GB" shards "wall s" "reading s" "drain s" "counts" "peak MB"
for n in $sizes; do
    log=$tmp/rp/agentic-$n.jsonl
    "$python" "$gen" agentic --samples "$n" --seed 1 --out "$log" 2>/dev/null
    for w in 1 2; do
        r_=1
        : >"$tmp/rp/a.$n.$w"
        while [ "$r_" -le "$replay_runs" ]; do
            /usr/bin/time -f '%e %M' -o "$tmp/rp/time" "$bin/tally" replay "$log" -t "$assets/qwen3" --shards "$w" \
                --out "$tmp/rp/a.out" --progress-interval 0 >/dev/null 2>"$tmp/rp/a.err" || exit 1
            echo "$(tail -n 1 "$tmp/rp/time") $(sed -n 's/.* (\([0-9.]*\) s reading and counting, \([0-9.]*\) s draining.*; \([0-9]*\) token counts.*/\1 \2 \3/p' "$tmp/rp/a.err")" \
                >>"$tmp/rp/a.$n.$w"
            r_=$((r_ + 1))
        done
        sort -g "$tmp/rp/a.$n.$w" | awk -v n="$n" -v w="$w" -v gb="$(wc -c <"$log")" \
            '{ l[NR] = $0 } END { split(l[int((NR + 1) / 2)], f, " ");
               printf "%8d %8.2f %7d | %8.2f %9.2f %8.2f %8d | %8.0f\n", n, gb / 1e9, w, f[1], f[3], f[4], f[5], f[2] / 1024 }'
    done
    rm -f "$log"
done
echo "Goals (issue 18): 100,000 samples in <= 30 s on 2 cores; peak RSS <= 1 GB and <= 1.2x the 10,000-sample run's."
fi

if [ -z "$only" ] || [ "$only" = aggregate ]; then
[ "$only" = aggregate ] || echo
# tally aggregate: the publisher (bench/agg_pub.py, pyzmq, frames encoded
# beforehand, batches of 1000 as upstream's) sends a log over ipc as fast as
# it can; tally's ingest is its own clock from the first frame to
# session.ended processed, the publisher's own send loop (no high-water
# mark: it never waits on tally) is the ceiling. Upstream's process() is the reference harness' loop over the
# same log in the same run. Then a generated agentic run with qwen3 (token
# metrics on: the live lane counts during the run), its time from
# session.ended to final_snapshot.json; then one live snapshot with every
# series full.
agg_home=${UPSTREAM_AGG_HOME:-$HOME/.cache/upstream-agg}
gen=tests/data/agg/gen_events.py
agg_runs=${BENCH_AGG_RUNS:-3}
agg_ingest=${BENCH_AGG_INGEST_SAMPLES:-20000}
agg_agentic=${BENCH_AGG_AGENTIC_SAMPLES:-100000}
mkdir -p "$tmp/ag"
medcol() { awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
"$python" "$gen" stream_chat_tools --samples "$agg_ingest" --seed 7 --out "$tmp/ag/ingest.jsonl" 2>/dev/null
r_=1
: >"$tmp/ag/off"
: >"$tmp/ag/ref"
while [ "$r_" -le "$agg_runs" ]; do
    BENCH_AGG_KEEP=$tmp/ag "$python" bench/agg_pub.py "$bin/tally" "$tmp/ag/ingest.jsonl" --streaming --early-stopping \
        >"$tmp/ag/o" || exit 1
    echo "$(v events "$tmp/ag/o") $(v ingest_s "$tmp/ag/o") $(v pub_s "$tmp/ag/o") - $(v final_s "$tmp/ag/o") $(v snapshots "$tmp/ag/o")" >>"$tmp/ag/off"
    if [ -f "$agg_home/env.sh" ]; then
        (. "$agg_home/env.sh" && "$PYTHON" ../shared/oracle/aggregator/replay.py "$tmp/ag/ingest.jsonl" \
            --out "$tmp/ag/r.out" --streaming --timings "$tmp/ag/r.json" >/dev/null 2>&1) || exit 1
        "$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["process_s"])' "$tmp/ag/r.json" >>"$tmp/ag/ref"
    fi
    r_=$((r_ + 1))
done
if [ -s "$tmp/ag/ref" ] && ! "$python" - "$tmp/ag/final_snapshot.json" "$tmp/ag/r.out/metrics/final_snapshot.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d.pop("timestamp_ns"); d.pop("counter")
sys.exit(a != b)
PY
then
    echo "bench: aggregate: tally's final snapshot differs from upstream's aggregator's" >&2
    exit 1
fi
ev=$(medcol "$tmp/ag/off" 1)
ti=$(medcol "$tmp/ag/off" 2)
tp=$(medcol "$tmp/ag/off" 3)
tf=$(medcol "$tmp/ag/off" 5)
echo "tally aggregate, ingest over ipc, token metrics off ($ev events, streaming; medians of $agg_runs runs):"
printf '%-52s %10s %12s %8s\n' "" "s" "events/s" "x"
printf '%-52s %10.3f %12.0f %8s\n' "publisher's send loop (the ceiling)" "$tp" "$(div "$ev" "$tp")" "-"
printf '%-52s %10.3f %12.0f %7sx\n' "tally aggregate: first frame to session.ended" "$ti" "$(div "$ev" "$ti")" \
    "$(awk -v a="$tp" -v b="$ti" 'BEGIN { printf "%.2f", a / b }')"
if [ -s "$tmp/ag/ref" ]; then
    ps=$(medcol "$tmp/ag/ref" 1)
    printf '%-52s %10.3f %12.0f %7sx\n' "upstream process() alone (reference harness)" "$ps" "$(div "$ev" "$ps")" \
        "$(awk -v a="$ps" -v b="$ti" 'BEGIN { printf "%.2f", a / b }')"
fi
echo "(x: tally's rate over that row's; tally's row: over the ceiling.) session.ended to the file: $tf s."
echo

# token metrics on: the agentic run with qwen3
log=$tmp/ag/agentic.jsonl
"$python" "$gen" agentic --samples "$agg_agentic" --seed 1 --out "$log" 2>/dev/null
: >"$tmp/ag/on"
r_=1
on_runs=${BENCH_AGG_ON_RUNS:-1}
while [ "$r_" -le "$on_runs" ]; do
    "$python" bench/agg_pub.py "$bin/tally" "$log" --streaming --early-stopping --tokenizer "$assets/qwen3" >"$tmp/ag/o" || exit 1
    echo "$(v events "$tmp/ag/o") $(v ingest_s "$tmp/ag/o") $(v pub_s "$tmp/ag/o") - $(v final_s "$tmp/ag/o") $(v snapshots "$tmp/ag/o")" >>"$tmp/ag/on"
    r_=$((r_ + 1))
done
ev=$(medcol "$tmp/ag/on" 1)
echo "tally aggregate, token metrics on: generated agentic run, $agg_agentic samples, qwen3 ($ev events, $(awk -v b="$(wc -c <"$log")" 'BEGIN { printf "%.2f", b / 1e9 }') GB; median of $on_runs):"
printf '%-52s %10.3f %12.0f\n' "publisher's send loop (the ceiling)" "$(medcol "$tmp/ag/on" 3)" "$(div "$ev" "$(medcol "$tmp/ag/on" 3)")"
printf '%-52s %10.3f %12.0f\n' "tally aggregate: first frame to session.ended" "$(medcol "$tmp/ag/on" 2)" "$(div "$ev" "$(medcol "$tmp/ag/on" 2)")"
printf '%-52s %10.3f\n' "session.ended to final_snapshot.json (the drain)" "$(medcol "$tmp/ag/on" 5)"
printf '%-52s %10s\n' "live snapshots published during the run" "$(medcol "$tmp/ag/on" 6)"
rm -f "$log"
echo

"$bin/bench_agg_snapshot" 100000 21 >"$tmp/ag/snap" || exit 1
echo "One snapshot, six series of $(v values_per_series "$tmp/ag/snap") values each (medians of 21):"
echo "  LIVE (HDR statistics) $(v live_ms "$tmp/ag/snap") ms + msgpack encoding $(v encode_ms "$tmp/ag/snap") ms ($(v wire_bytes "$tmp/ag/snap") bytes); goal: under 1 ms"
echo "  COMPLETE (exact, sorted) $(v complete_ms "$tmp/ag/snap") ms + JSON text $(v json_ms "$tmp/ag/snap") ms ($(v json_bytes "$tmp/ag/snap") bytes)"
fi
