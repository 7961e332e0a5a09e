#!/bin/sh
# compare.sh - builds tally's side (drv.c, enc.c) from the current src/ into a
# temp dir and compares it with the oracle; prints one line per configuration
# and a summary line.
# usage: sh tools/norm/compare.sh allcp [NAME...]          every code point (allcp.py; ~3 min for all)
#        sh tools/norm/compare.sh random [SEED [N]]         random strings, every normalizer type
#                                                           (rand_cmp.py; default seed 1, N 2000; ~1.5 min)
#        sh tools/norm/compare.sh e2e [SEED [N [ASSET...]]] whole pipeline of the assets with a normalizer
#                                                           (e2e.py; default seed 5, N 3000; ~1.5 min)
#        sh tools/norm/compare.sh all                       the three, with their defaults
# $TALLY_NORM_SCANS, when set, is a folder caching the oracle's scans (allcp).
# Exit status 0 when both agree everywhere, 1 when something differs.
set -eu
. "$(dirname "$0")/lib.sh"
mode=${1:-}
[ $# -gt 0 ] && shift
case $mode in
allcp | random | e2e | all) ;;
*) sed -n '5,10p' "$0" | sed 's/^# //' >&2; exit 2 ;;
esac
build_tally
status=0
if [ "$mode" = allcp ] || [ "$mode" = all ]; then
    [ "$mode" = all ] && set --
    python3 "$here/allcp.py" --drv "$tmp/drv" ${TALLY_NORM_SCANS:+--scans "$TALLY_NORM_SCANS"} "$@" || status=1
fi
if [ "$mode" = random ] || [ "$mode" = all ]; then
    build_uprops
    python3 "$here/rand_cmp.py" --drv "$tmp/drv" --uprops "$tmp/uprops" --seed "${1:-1}" -n "${2:-2000}" || status=1
fi
if [ "$mode" = e2e ] || [ "$mode" = all ]; then
    seed=${1:-5}; n=${2:-3000}
    if [ $# -gt 2 ]; then shift 2; else set --; fi
    python3 "$here/e2e.py" --enc "$tmp/enc" --seed "$seed" -n "$n" "$@" || status=1
fi
exit $status
