#!/bin/sh
# Quick start: install the dependencies, build, and run the main job on the
# bundled sample (token counts of examples/sample.jsonl with qwen3).
#   sh scripts/quickstart.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/setup.sh"
make -C "$root" -j2 demo
