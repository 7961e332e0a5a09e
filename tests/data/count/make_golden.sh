#!/bin/sh
# Golden counts of the four counting kinds, made with the reference oracle
# (see README.md beside this file):
#   1. build/inputs/*.jsonl  <- <shared>/oracle/build_inputs.py <shared>/data
#      INPUTS.sha256          sha256 of the input files the goldens were made from
#      edge/*.jsonl           <- gen_edge.py (hand-made edge cases, committed)
#   2. golden/<tok>.agentic.mlc.jsonl     prompt --mlcommons, agentic prompts as given
#      golden/<tok>.bfcl.mlc.jsonl        prompt --mlcommons, BFCL prompts
#      golden/<tok>.agentic_out.msg.jsonl message, agentic outputs
#      golden/<tok>.texts.text.jsonl      text, the message texts
#      golden/<tok>.edge_prompt.mlc.jsonl prompt --mlcommons, edge/prompts.jsonl
#      golden/<tok>.edge_msg.msg.jsonl    message, edge/messages.jsonl
#      golden/<tok>.framing.json          the oracle's message prefix_len / baseline
#   A model named <tok>@<name> is tokenizer <tok> with the chat template
#   edge/<name>.jinja (the oracle's --chat-template); those run the edge sets only.
#   3. summary.md (per tokenizer x set: items, fallbacks by class, errors; the
#      framing; agreement with <shared>/oracle/golden/)
# Usage: sh tests/data/count/make_golden.sh [model...]
#        (default: qwen3 llama3_1 deepseek_v3 gemma3 qwen3@strict qwen3@nobaseline;
#        the tokenizer folders are assets/<tok>, the very files the test loads.)
# SETS="agentic bfcl agentic_out texts edge_prompt edge_msg" limits the sets; JOBS=N runs N oracle
# jobs at a time (default 2). Needs the oracle (sh <shared>/oracle/install.sh).
# The shared folder is <project root>/../shared unless TALLY_SHARED is set.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
shared=${TALLY_SHARED:-"$root/../shared"}
py=${ORACLE_PYTHON:-/usr/bin/python3}      # the oracle's interpreter (Jinja2 3.1.2)
SETS=${SETS:-"agentic bfcl agentic_out texts edge_prompt edge_msg"}
JOBS=${JOBS:-2}
# strftime_now's clock, as the oracle's run_proof.sh pins it; the test gives
# count_model_load the same instant (1736942400 s, UTC).
export ORACLE_NOW=2025-01-15T12:00:00
inputs="$root/build/inputs"

if [ "${1:-}" = "--one" ]; then            # internal: one tokenizer x one set
    model=$2 set=$3
    tok=${model%%@*}
    in_dir=$inputs
    case $set in
        agentic)     in=agentic_prompts.jsonl; out=$tok.agentic.mlc.jsonl;     mode="prompt --mlcommons --no-rendered" ;;
        bfcl)        in=bfcl_prompts.jsonl;    out=$tok.bfcl.mlc.jsonl;        mode="prompt --mlcommons --no-rendered" ;;
        agentic_out) in=agentic_outputs.jsonl; out=$tok.agentic_out.msg.jsonl; mode="message" ;;
        texts)       in=texts.jsonl;           out=$tok.texts.text.jsonl;      mode="text --no-ids" ;;
        edge_prompt) in=prompts.jsonl; in_dir=$here/edge; out=$model.edge_prompt.mlc.jsonl; mode="prompt --mlcommons --no-rendered" ;;
        edge_msg)    in=messages.jsonl; in_dir=$here/edge; out=$model.edge_msg.msg.jsonl;   mode="message" ;;
        *) echo "make_golden: unknown set $set" >&2; exit 2 ;;
    esac
    raw=$(mktemp)
    # shellcheck disable=SC2064
    trap "rm -f '$raw'" EXIT INT TERM
    start=$(date +%s)
    set -- --tokenizer "$root/assets/$tok"
    [ "$model" = "$tok" ] || set -- "$@" --chat-template "$here/edge/${model#*@}.jinja"
    # shellcheck disable=SC2086
    sh "$shared/oracle/count.sh" "$@" $mode < "$in_dir/$in" > "$raw"
    set -- "$in_dir/$in" "$raw" "$here/golden/$out"
    # The framing comes from the message set the model runs (one writer per model).
    if [ "$set" = agentic_out ] || { [ "$set" = edge_msg ] && [ "$model" != "$tok" ]; }; then
        set -- "$@" "$here/golden/$model.framing.json"
    fi
    "$py" "$here/golden.py" convert "$@"
    echo "make_golden: $model $set: $(( $(date +%s) - start )) s" >&2
    exit 0
fi

models=${*:-"qwen3 llama3_1 deepseek_v3 gemma3 qwen3@strict qwen3@nobaseline"}
for m in $models; do
    [ -f "$root/assets/${m%%@*}/tokenizer.json" ] || { echo "make_golden: no assets/${m%%@*} (make assets)" >&2; exit 2; }
    [ "$m" = "${m%%@*}" ] || [ -f "$here/edge/${m#*@}.jinja" ] || { echo "make_golden: no edge/${m#*@}.jinja" >&2; exit 2; }
done
start=$(date +%s)
mkdir -p "$inputs" "$here/golden"
"$py" "$shared/oracle/build_inputs.py" "$shared/data" "$inputs" >/dev/null
(cd "$inputs" && sha256sum agentic_prompts.jsonl bfcl_prompts.jsonl agentic_outputs.jsonl texts.jsonl) \
    > "$here/INPUTS.sha256"
"$py" "$here/gen_edge.py" "$here/edge"
for m in $models; do for s in $SETS; do
    case $m:$s in *@*:edge_*) echo "$m $s" ;; *@*:*) ;; *) echo "$m $s" ;; esac
done; done |
    TALLY_SHARED="$shared" ORACLE_PYTHON="$py" xargs -P "$JOBS" -L 1 sh "$here/make_golden.sh" --one
"$py" "$here/golden.py" summary "$here" --shared "$shared" > "$here/summary.md"
echo "make_golden: done in $(( $(date +%s) - start )) s" >&2
