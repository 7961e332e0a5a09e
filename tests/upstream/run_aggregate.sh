#!/bin/sh
# `tally aggregate` against upstream's own code (not part of CI: it needs
# the reference environment of ../shared/oracle/aggregator, built by its
# setup.sh into $UPSTREAM_AGG_HOME, default ~/.cache/upstream-agg).
# Upstream's publisher, readiness receiver and snapshot subscriber talk to
# tally's process; upstream's Report.from_snapshot reads its file; the
# file is compared with upstream's aggregator's own (the golden of the
# bundled run); upstream's signal tests are ported; and the drop-in
# (contrib/tally_dropin.py) makes upstream's own ServiceLauncher start
# tally. Skips, with status 0 and a message saying why, when the
# environment is missing.
#   sh tests/upstream/run_aggregate.sh [TALLY_BIN]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tally=${1:-$root/build/release/tally}
home=${UPSTREAM_AGG_HOME:-$HOME/.cache/upstream-agg}
shared=${TALLY_SHARED:-$root/../shared}
if [ ! -f "$home/env.sh" ]; then
    echo "run_aggregate: SKIP: no upstream environment at $home (run sh $shared/oracle/aggregator/setup.sh)"
    exit 0
fi
# shellcheck disable=SC1091
. "$home/env.sh"
py=${PYTHON:-python3}
if ! "$py" -c 'import upstream_preload, inference_endpoint.async_utils.event_publisher' 2>/dev/null; then
    echo "run_aggregate: SKIP: upstream's transport does not import with $py (PYTHONPATH=$PYTHONPATH)"
    exit 0
fi
if [ ! -x "$tally" ]; then
    echo "run_aggregate: $tally is not built (make)" >&2
    exit 1
fi
cd "$root"
status=0
for case in batched record signals dropin; do
    echo "run_aggregate: $case"
    timeout -s KILL 900 "$py" tests/upstream/aggregate_interop.py "$tally" examples/events.jsonl.gz \
        tests/data/agg/golden/stream_chat_tools-jsonl-s-qwen3 "$case" || status=1
done
[ "$status" = 0 ] && echo "run_aggregate: all passed" || echo "run_aggregate: FAILED"
exit "$status"
