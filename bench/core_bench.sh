#!/bin/bash
# core_bench.sh — cycles per iteration of L1-resident loop bodies: augur's
# core model (`augur structure --machine`) against llvm-mca (Debian llvm-14)
# on the same instructions.  Table recorded in docs/performance-model.md.
#
# usage: bench/core_bench.sh [AUGUR_MACHINE LLVM_CPU]...
#   default pairs: sapphire-rapids sapphirerapids  skylake-sp skylake-avx512
# Environment: BUILD_DIR (default build), CC (default cc).
#
# Loops: every innermost loop of bench/model_kernels/*.c and
# tests/programs/structure/kernels.c built -O2 -g -march=x86-64-v2 whose
# body is one contiguous address range (objdump finds as many instructions
# in [first, end) as augur counts in the body) and that calls nothing.  llvm-mca gets that range
# from objdump -d (AT&T syntax), direct jumps pointed at the body's start,
# and runs it 100 times; its cycles per iteration are Total Cycles / 100.
# Both sides count every instruction of the body once per iteration.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
augur=${BUILD_DIR:-$root/build}/augur
mca=/usr/bin/llvm-mca-14
: "${CC:=cc}"
[ -x "$augur" ] || { echo "no $augur: build first (scripts/test.sh) or set BUILD_DIR" >&2; exit 1; }
[ -x "$mca" ] || { echo "no $mca: apt-get install llvm-14" >&2; exit 1; }
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(sapphire-rapids sapphirerapids skylake-sp skylake-avx512)
[ $((${#pairs[@]} % 2)) -eq 0 ] || { echo "give pairs: AUGUR_MACHINE LLVM_CPU ..." >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/core_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

for src in "$root"/bench/model_kernels/*.c "$root/tests/programs/structure/kernels.c"; do
    "$CC" -O2 -g -march=x86-64-v2 -o "$tmp/$(basename "$src" .c)" "$src" -lm
done

# body BINARY FIRST END — the instructions in [FIRST, END) as llvm-mca input.
body() {
    echo ".Ltop:"
    objdump -d --no-show-raw-insn --start-address="$2" --stop-address="$3" "$1" |
        awk -F'\t' '/^ +[0-9a-f]+:\t/ { print $2 }' |
        sed -e 's/ *#.*//' -e 's/ *<[^>]*>//' -e 's/^\(j[a-z]*\|jmp\) \+[0-9a-f]\+$/\1 .Ltop/'
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $("$CC" --version | head -n 1), $($mca --version | grep -m 1 version | sed 's/^ *//')"
for ((p = 0; p < ${#pairs[@]}; p += 2)); do
    machine=${pairs[p]} cpu=${pairs[p + 1]}
    echo
    echo "augur --machine $machine against llvm-mca -mcpu=$cpu"
    printf "%-12s %-20s %-18s %5s %7s %-10s %7s %6s\n" program function loop insns augur bound mca ratio
    : > "$tmp/ratios"
    for prog in "$tmp"/*; do
        [ -x "$prog" ] && [ -f "$prog" ] || continue
        "$augur" structure --db "$tmp/s.db" --machine "$machine" "$prog" |
            awk '/^function +loop/ { on = 1; next } on && $5 == "yes"' > "$tmp/rows"
        while read -r fn loop first end _ insns _ _ _ _ cycles bound _; do
            body "$prog" "$first" "$end" > "$tmp/body.s"
            [ "$(grep -vc '^.Ltop:' "$tmp/body.s")" -eq "$insns" ] || continue # not contiguous
            ! grep -q '^call' "$tmp/body.s" || continue # runs code outside the body
            total=$("$mca" -mtriple=x86_64 -mcpu="$cpu" -iterations=100 "$tmp/body.s" 2> /dev/null |
                awk '/^Total Cycles:/ { print $3 }') || true
            [ -n "$total" ] || { echo "  (llvm-mca refused $fn $loop)" >&2; continue; }
            awk -v a="$cycles" -v t="$total" -v r="$tmp/ratios" -v p="$(basename "$prog")" -v f="$fn" -v l="$loop" \
                -v n="$insns" -v b="$bound" 'BEGIN {
                m = t / 100; printf "%-12s %-20s %-18s %5d %7.2f %-10s %7.2f %6.2f\n", p, f, l, n, a, b, m, a / m
                print (a / m > 1 ? a / m - 1 : 1 - a / m) >> r }'
        done < "$tmp/rows"
    done
    sort -g "$tmp/ratios" | awk '{ v[NR] = $1 } END {
        printf "loops: %d, median |ratio - 1|: %.3f\n", NR, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
done
