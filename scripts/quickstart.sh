#!/bin/sh
# Quick start: install the dependencies, build, and run the main job on the
# bundled requests (token counts of examples/requests.jsonl with qwen3:
# text, token ids, chat prompts with tools, assistant messages, an event).
#   sh scripts/quickstart.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/setup.sh"
make -C "$root" -j2 demo
