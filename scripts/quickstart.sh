#!/bin/sh
# Quick start: install the dependencies, build, and run the main job: replay
# the bundled benchmark run (examples/events.jsonl.gz, a streaming chat run
# with tools as upstream's event logger writes it) with the qwen3 tokenizer,
# writing build/demo/{metrics/final_snapshot.json,
# performance/result_summary.json, report.txt}, and show the report.
#   sh scripts/quickstart.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/setup.sh"
make -C "$root" -j2 demo
