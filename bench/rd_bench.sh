#!/bin/sh
# rd_bench.sh — build the native reuse-distance benchmark and run it.
#
# usage: bench/rd_bench.sh [PATTERN BLOCK SIZE [ACCESSES]]   (SIZE: MiB, or 4K, 32M, 1G)
#   no arguments: the standard suite recorded in docs/algorithms-rd.md.
# Environment: CC (default cc), CFLAGS (default -O2, as the Valgrind tool is
# built).  The binary goes to a fresh temporary directory, removed at exit.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
: "${CC:=cc}" "${CFLAGS:=-O2}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rd_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# shellcheck disable=SC2086  # CFLAGS is a list of words
$CC $CFLAGS -I "$root/src" -o "$tmp/rd_bench" "$here/rd_bench.c" \
    "$root/src/rd/rd_stack.c" "$root/src/rd/rd_hist.c"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $($CC --version | head -n 1), CFLAGS=$CFLAGS, $(nproc) CPUs"
grep -m 1 'model name' /proc/cpuinfo || true
"$tmp/rd_bench" "$@"
