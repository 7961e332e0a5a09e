# lib.sh - sourced by the .sh tools of this folder: finds the project root from
# the script's own location, makes a temp dir (removed on exit) and builds the
# C helpers into it. Sets: here (this folder), root (the project), tmp.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP   # so that the EXIT trap runs
CC=${CC:-cc}

# $tmp/pcls from pcls.c (the system's PCRE2).
# (pkg-config's output is split into words on purpose.)
# shellcheck disable=SC2046
build_pcls() {
    $CC -O2 -o "$tmp/pcls" "$here/pcls.c" $(pkg-config --cflags --libs libpcre2-8)
}

# $tmp/drv from drv.c and the library sources of the current work tree
# (src/base, src/json, src/tok), with the flags of the Makefile's release build.
# shellcheck disable=SC2046
build_drv() {
    $CC -std=c11 -D_DEFAULT_SOURCE -O2 -o "$tmp/drv" "$here/drv.c" \
        "$root"/src/base/*.c "$root"/src/json/*.c "$root"/src/tok/*.c \
        $(pkg-config --cflags --libs libpcre2-8 libutf8proc) -lm -lpthread
}
