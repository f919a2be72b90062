#!/bin/bash
# structure_bench.sh — time `augur structure` on a large binary next to
# `objdump -d` on the same file, medians of REPS runs (the machine is noisy).
#
# usage: bench/structure_bench.sh [BINARY]
#   default BINARY: /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 (Debian llvm-14,
#   50 MB of code, 12 M instructions, stripped of .symtab, no DWARF)
# Environment: BUILD_DIR (default build), REPS (default 3).
# Prints one row per step and the ratios recorded in docs/benchmarks.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1}
augur=${BUILD_DIR:-$root/build}/augur
reps=${REPS:-3}
[ -x "$augur" ] || { echo "no $augur: build first (scripts/test.sh) or set BUILD_DIR" >&2; exit 1; }
[ -r "$binary" ] || { echo "cannot read $binary (apt-get install llvm-14, or give another BINARY)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/structure_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# timed FILE CMD... — append "seconds max_rss_kib" of one run of CMD to FILE
timed() {
    local out=$1
    shift
    /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" > /dev/null 2>> "$tmp/stderr"
    cat "$tmp/t" >> "$out"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) CPUs, $(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "# $binary: $(stat -c %s "$binary") bytes, $(size -A "$binary" | awk '$1 == ".text" { print $2 }') bytes of .text"
for i in $(seq "$reps"); do
    echo "# run $i of $reps" >&2
    timed "$tmp/objdump" objdump -d "$binary"
    rm -f "$tmp/s.db"
    timed "$tmp/augur" "$augur" structure --db "$tmp/s.db" --timing "$binary"
    timed "$tmp/again" "$augur" structure --db "$tmp/s.db" "$binary"
done
grep -o 'analysed in [0-9.]* s, stored in [0-9.]* s' "$tmp/stderr" | awk '{ print $3, $7 }' > "$tmp/steps"
db_mb=$(( $(stat -c %s "$tmp/s.db") / 1048576 ))
obj=$(cut -d' ' -f1 "$tmp/objdump" | median)
aug=$(cut -d' ' -f1 "$tmp/augur" | median)
again=$(cut -d' ' -f1 "$tmp/again" | median)
printf "%-44s %10s %12s\n" "step (median of $reps)" seconds "max RSS MiB"
printf "%-44s %10s %12d\n" "objdump -d > /dev/null" "$obj" $(( $(cut -d' ' -f2 "$tmp/objdump" | median) / 1024 ))
printf "%-44s %10s %12d\n" "augur structure (analyse, store, print)" "$aug" $(( $(cut -d' ' -f2 "$tmp/augur" | median) / 1024 ))
printf "%-44s %10s\n" "  of which analysis" "$(cut -d' ' -f1 "$tmp/steps" | median)"
printf "%-44s %10s\n" "  of which storing ($db_mb MiB database)" "$(cut -d' ' -f2 "$tmp/steps" | median)"
printf "%-44s %10s %12d\n" "augur structure again (stored result)" "$again" $(( $(cut -d' ' -f2 "$tmp/again" | median) / 1024 ))
awk -v a="$aug" -v o="$obj" -v g="$again" -v s="$(cut -d' ' -f1 "$tmp/steps" | median)" 'BEGIN {
    printf "ratio augur/objdump: %.2f (analysis alone %.2f, reuse %.2f)\n", a / o, s / o, g / o }'
