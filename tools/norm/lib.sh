# lib.sh - sourced by the .sh tools of this folder: finds the project root from
# the script's own location, makes a temp dir (removed on exit) and builds the
# C helpers into it.
# Sets: here (this folder), root (the project), tmp; exports TALLY_NORM_TMP=$tmp
# so that the Python tools put their files (tokenizer folders too) there.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP   # so that the EXIT trap runs
export TALLY_NORM_TMP="$tmp"
CC=${CC:-cc}

# $tmp/drv (drv.c: one normalizer) and $tmp/enc (enc.c: the whole pipeline)
# from the library sources of the current work tree (src/base, src/json,
# src/tok), with the flags of the Makefile's release build.
# (pkg-config's output is split into words on purpose.)
# shellcheck disable=SC2046
build_tally() {
    for p in drv enc; do
        $CC -std=c11 -D_DEFAULT_SOURCE -O2 -o "$tmp/$p" "$here/$p.c" \
            "$root"/src/base/*.c "$root"/src/json/*.c "$root"/src/tok/*.c \
            $(pkg-config --cflags --libs libpcre2-8 libutf8proc) -lm -lpthread || return 1
    done
}

# $tmp/uprops (uprops.c): what utf8proc says about every code point.
# shellcheck disable=SC2046
build_uprops() {
    $CC -std=c11 -O2 -o "$tmp/uprops" "$here/uprops.c" $(pkg-config --cflags --libs libutf8proc)
}
