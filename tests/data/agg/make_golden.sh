#!/bin/sh
# Rebuild the aggregator goldens: for every case of cases.tsv, generate its event
# log with gen_events.py, run upstream's real aggregator on it
# ($TALLY_SHARED/oracle/aggregator/replay.py) and keep the three files a run writes.
#
#   sh make_golden.sh              rebuild golden/ and SHA256SUMS in this folder
#   sh make_golden.sh --check      rebuild into a temporary folder and compare with
#                                  the committed golden/ and SHA256SUMS (exit 1 on a difference)
#   CASES='spec12 mixed-*' sh make_golden.sh   only the cases matching these patterns
#   sh make_golden.sh --bench      write the two agentic benchmark logs (10k and 100k samples,
#                                  ~0.5 and ~4.9 GB) into $WORK, time them, compare their
#                                  checksums with BENCH_SHA256SUMS (KEEP=1 keeps them)
#
# Environment: TALLY_SHARED (default: <repo>/../shared), WORK (where logs go; default a
# temporary folder, removed at the end unless KEEP=1), PYTHON (runs gen_events.py;
# default python3). The reference runs with the Python of its own env.sh
# (${UPSTREAM_AGG_HOME:-~/.cache/upstream-agg}, built by the oracle's setup.sh).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SHARED=${TALLY_SHARED:-$(cd "$HERE/../../../.." && pwd)/shared}
export TALLY_SHARED="$SHARED"
REPLAY="$SHARED/oracle/aggregator/replay.py"
AGG_HOME=${UPSTREAM_AGG_HOME:-$HOME/.cache/upstream-agg}
[ -f "$AGG_HOME/env.sh" ] || { echo "make_golden.sh: no $AGG_HOME/env.sh: run $SHARED/oracle/aggregator/setup.sh" >&2; exit 1; }
RPY=$(. "$AGG_HOME/env.sh" && echo "$PYTHON")
GPY=${PYTHON:-python3}
CHECK=0
[ "${1:-}" = "--check" ] && CHECK=1
BENCH=0
[ "${1:-}" = "--bench" ] && BENCH=1

if [ -n "${WORK:-}" ]; then mkdir -p "$WORK"; else WORK=$(mktemp -d); fi
cleanup() { [ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"; }
trap cleanup EXIT
if [ $CHECK = 1 ]; then OUT="$WORK/golden"; SUMS="$WORK/SHA256SUMS"; else OUT="$HERE/golden"; SUMS="$HERE/SHA256SUMS"; fi
mkdir -p "$WORK/logs" "$OUT"

if [ $BENCH = 1 ]; then
  status=0
  for n in 10000 100000; do
    f="agentic-n$n-s1.jsonl"
    t0=$(date +%s)
    nice "$GPY" "$HERE/gen_events.py" agentic --samples $n --seed 1 --out "$WORK/logs/$f"
    echo "make_golden.sh: $f: $(( $(date +%s) - t0 )) s, $(wc -c < "$WORK/logs/$f") bytes"
    (cd "$WORK/logs" && sha256sum "$f") > "$WORK/bench.sum"
    grep -qxF "$(cat "$WORK/bench.sum")" "$HERE/BENCH_SHA256SUMS" || { echo "make_golden.sh: $f: checksum differs from BENCH_SHA256SUMS" >&2; status=1; }
    [ "${KEEP:-0}" = 1 ] || rm -f "$WORK/logs/$f"
  done
  exit $status
fi

want() {  # does case $1 match $CASES?
  [ -z "${CASES:-}" ] && return 0
  for pat in $CASES; do case "$1" in $pat) return 0;; esac; done
  return 1
}

TAB=$(printf '\t')
n=0
tail -n +2 "$HERE/cases.tsv" | while IFS="$TAB" read -r case scenario gen_args source replay_args; do
  want "$case" || continue
  # one log per scenario + generator arguments
  id=$(echo "$scenario $gen_args" | sed 's/--samples /n/; s/--seed /s/; s/ /-/g')
  log="$WORK/logs/$id.jsonl"
  if [ "$source" = sqlite ]; then
    src="$WORK/logs/$id.db.jsonl"
    if [ ! -f "$src" ]; then
      # shellcheck disable=SC2086
      nice "$GPY" "$HERE/gen_events.py" "$scenario" $gen_args --out "$log" --db "$WORK/logs/$id.db" 2>>"$WORK/gen.log"
      nice "$GPY" "$HERE/gen_events.py" db2jsonl "$WORK/logs/$id.db" --out "$src" 2>>"$WORK/gen.log"
    fi
  else
    src="$log"
  fi
  if [ ! -f "$log" ]; then
    # shellcheck disable=SC2086
    nice "$GPY" "$HERE/gen_events.py" "$scenario" $gen_args --out "$log" 2>>"$WORK/gen.log"
  fi
  rm -rf "$WORK/out/$case"
  # shellcheck disable=SC2086
  (cd "$HERE" && nice "$RPY" "$REPLAY" "$src" --out "$WORK/out/$case" $replay_args) 2>"$WORK/out-$case.log" || {
    rc=$?; [ $rc = 3 ] || { echo "make_golden.sh: $case: replay failed ($rc), see below" >&2; tail -5 "$WORK/out-$case.log" >&2; exit 1; }; }
  mkdir -p "$OUT/$case"
  cp "$WORK/out/$case/metrics/final_snapshot.json" "$WORK/out/$case/performance/result_summary.json" \
     "$WORK/out/$case/report.txt" "$OUT/$case/"
  echo "make_golden.sh: $case ($(tail -1 "$WORK/out-$case.log" | sed 's/.*replay_total_s=\([0-9.]*\).*/replay \1 s/'))"
done

# checksums of every generated log (JSONL, and the JSONL that an events.db stands for, where a
# case reads one)
(cd "$WORK" && for f in logs/*.jsonl; do sha256sum "$f"; done) | sed 's|logs/||' > "$SUMS.new"
if [ -n "${CASES:-}" ] && [ -f "$HERE/SHA256SUMS" ] && [ $CHECK = 0 ]; then
  # partial rebuild: merge into the committed list
  sort -s -k2,2 -u "$SUMS.new" "$HERE/SHA256SUMS" > "$SUMS.merged" && mv "$SUMS.merged" "$SUMS"; rm -f "$SUMS.new"
else
  sort -k2 "$SUMS.new" > "$SUMS"; rm -f "$SUMS.new"
fi

if [ $CHECK = 1 ]; then
  status=0
  for d in "$OUT"/*/; do
    c=$(basename "$d")
    if ! diff -r "$HERE/golden/$c" "$d" >/dev/null; then echo "make_golden.sh: $c differs from the committed golden" >&2; status=1; fi
  done
  while read -r sum name; do
    grep -q "^$sum  $name\$" "$HERE/SHA256SUMS" || { echo "make_golden.sh: $name: checksum differs" >&2; status=1; }
  done < "$SUMS"
  [ $status = 0 ] && echo "make_golden.sh: check ok: goldens and log checksums identical"
  exit $status
fi
