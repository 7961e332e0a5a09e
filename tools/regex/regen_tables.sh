#!/bin/sh
# regen_tables.sh - regenerates the Unicode tables of src/tok/regex.c from the
# oracle (Oniguruma sets) and the system's PCRE2 (bases); never edits regex.c.
# usage: sh tools/regex/regen_tables.sh [-o OUT] [--save-onig DUMP] [--onig DUMP]
# (options of gen_tables.py; default output: stdout). Takes about 3 minutes.
set -eu
. "$(dirname "$0")/lib.sh"
build_pcls
python3 "$here/gen_tables.py" --pcls "$tmp/pcls" "$@"
