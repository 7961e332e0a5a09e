#!/bin/sh
# Golden renderings of the chat templates (see README.md):
#   1. contexts/edge.jsonl      <- gen_edge.py
#      contexts/{bfcl,agentic,agentic_nonull}.jsonl <- build_contexts.py (../shared/data)
#      contexts/SHA256SUMS      sha256 of every context file used
#   2. golden/<name>.<set>.jsonl for every template of templates.tsv and every set,
#      golden/<name>.edge.full.jsonl (full text of the edge set)
#   3. summary.md               rendered / errors by class, per template and set
# Usage: sh make_golden.sh [name...]        (default: every template in templates.tsv)
# SETS="edge bfcl ..." limits the sets (default: edge bfcl agentic agentic_nonull);
# JOBS=N renders N templates at a time (default 2). Needs the oracle installed
# (sh <shared>/oracle/install.sh: Debian python3-jinja2 3.1.2 + the tokenizer
# packages). The shared folder is <project root>/../shared unless TALLY_SHARED is set.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
shared=${TALLY_SHARED:-"$root/../shared"}
py=${ORACLE_PYTHON:-/usr/bin/python3}      # the oracle's interpreter (Jinja2 3.1.2)
SETS=${SETS:-"edge bfcl agentic agentic_nonull"}
JOBS=${JOBS:-2}
NOW=2025-01-15T12:00:00

if [ "${1:-}" = "--one" ]; then            # internal: one template, every set
    name=$2 source=$3 tok=$4
    set -- --tokenizer "$tok"
    [ "$source" = package ] || set -- "$@" --chat-template "$shared/$source"
    sets=$(echo $SETS | tr ' ' ',')
    full=""
    case " $SETS " in *" edge "*) full=edge ;; esac
    exec "$py" "$here/render_golden.py" "$@" --name "$name" --now "$NOW" \
        --contexts "$here/contexts" --out "$here/golden" --sets "$sets" --full "$full" \
        --shared "$shared"
fi

start=$(date +%s)
mkdir -p "$here/contexts" "$here/golden"
"$py" "$here/gen_edge.py" "$here/contexts/edge.jsonl"
"$py" "$here/build_contexts.py" --shared "$shared" --out "$here/contexts"
(cd "$here/contexts" && sha256sum edge.jsonl bfcl.jsonl agentic.jsonl agentic_nonull.jsonl > SHA256SUMS)

# templates.tsv: name <TAB> source (data/templates/X.jinja under shared, or "package") <TAB> tokenizer
list=$(grep -v '^#' "$here/templates.tsv")
if [ $# -gt 0 ]; then
    want=" $* "
    list=$(echo "$list" | while IFS="$(printf '\t')" read -r n s t; do
        case "$want" in *" $n "*) printf '%s\t%s\t%s\n' "$n" "$s" "$t" ;; esac; done)
fi
[ -n "$list" ] || { echo "make_golden: no such template: $*" >&2; exit 2; }
echo "$list" | tr '\t' ' ' | SETS="$SETS" TALLY_SHARED="$shared" ORACLE_PYTHON="$py" \
    xargs -P "$JOBS" -L 1 sh "$here/make_golden.sh" --one

"$py" "$here/summarize.py" "$here" > "$here/summary.md"
echo "make_golden: done in $(( $(date +%s) - start )) s" >&2
