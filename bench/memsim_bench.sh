#!/bin/sh
# memsim_bench.sh — build the native memsim-vs-cachesim benchmark and run it.
#
# usage: bench/memsim_bench.sh [REFS]     (references per pass, default 2000000)
# Environment: CC (default cc), CFLAGS (default -O2, as the Valgrind tools are
# built).  The binary goes to a fresh temporary directory, removed at exit.
# Results and the command are recorded in docs/memspy.md ("Costs").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
: "${CC:=cc}" "${CFLAGS:=-O2}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memsim_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# shellcheck disable=SC2086  # CFLAGS is a list of words
$CC $CFLAGS -I "$root/src" -o "$tmp/memsim_bench" "$here/memsim_bench.c" \
    "$root"/src/cachesim/*.c
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $($CC --version | head -n 1), CFLAGS=$CFLAGS, $(nproc) CPUs"
grep -m 1 'model name' /proc/cpuinfo || true
"$tmp/memsim_bench" "$@"
