#!/usr/bin/env bash
# collect_small.sh — how much slower `augur collect` is than the program
# itself at the small sizes augur's models are trained on: the figures the
# start message of `augur collect` states (src/cli/cmd_collect.c,
# docs/benchmarks.md "Small runs").
#
# A small run pays a fixed cost, Valgrind's start (loading the tool and
# translating the loader's and libc's start-up code) and augur's profile
# write and SQLite import, and then a cost per executed instruction that
# depends on how many memory accesses reach the reuse-distance engine and on
# how many block sizes it measures.  So, for each kernel of
# bench/model_kernels (each takes N) and each size, REPS times interleaved:
#   native    the program alone
#   collect   augur collect --db <fresh> --block-sizes B -- program N
# for each block-size list B; and `augur collect` of the kernel at N = 4
# (nearly no work: the fixed cost; 4, the least every kernel takes).  It prints the median wall times (s),
# the ratio collect / native, the instructions (from the run's summary line)
# and the cost per instruction after the fixed cost,
#   ns/instr = (collect - fixed) / instructions,
# and what the ratio is without the fixed cost, (collect - fixed) / native.
#
# usage: bench/collect_small.sh [--reps N] [--markdown FILE] [--no-build]
# Environment: BUILD_DIR (default: build), KERNELS (default below, "NAME:N1,N2"
# each), BLOCKS (default "64 64,4096 64,256,1024,4096": the --block-sizes lists).
# Takes about 10 minutes on the reference machine. Run from anywhere.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/bench_lib.sh"
bench_start collect_small.sh
KERNELS=${KERNELS:-"matmul:100,200,300 stencil2d:200,600 triad:20000,200000 chase:20000,200000 sort:20000,200000"}
BLOCKS=${BLOCKS:-"64 64,4096 64,256,1024,4096"}

while [ $# -gt 0 ]; do
    bench_option "$0" "$@"
    [ "$BENCH_TOOK" = 0 ] || { shift "$BENCH_TOOK"; continue; }
    die "unknown option '$1' (see --help)"
done

if [ "$DO_BUILD" = 1 ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$BUILD_DIR" -j2 >/dev/null
fi
AUGUR=$BUILD_DIR/augur
WORK=$(mktemp -d "${TMPDIR:-/tmp}/augur-collect-small-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# seconds CMD... — the wall time of CMD, its output discarded.
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true # the time is what is wanted; a failure shows in the counts
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# collect_once BLOCKS PROG ARGS... — seconds of one collect into a fresh database.
collect_once() {
    local blocks=$1
    shift
    rm -f "$WORK/t.db"
    seconds "$AUGUR" collect --db "$WORK/t.db" --block-sizes "$blocks" -- "$@"
}
# instructions PROG ARGS... — the instructions of a run, from collect's summary line.
instructions() {
    rm -f "$WORK/i.db"
    "$AUGUR" collect --db "$WORK/i.db" -- "$@" 2>&1 >/dev/null | sed -nE 's/.* process(es)?, ([0-9]+) instructions.*/\2/p'
}

out() { echo "$*"; [ -z "$MARKDOWN" ] || echo "$*" >>"$MARKDOWN"; }
[ -z "$MARKDOWN" ] || : >"$MARKDOWN"

for kn in $KERNELS; do
    k=${kn%%:*}
    cc "${CFLAGS_BENCH[@]}" -o "$WORK/$k" "$ROOT/bench/model_kernels/$k.c" -lm
done

# The fixed cost: each kernel at N = 4, default block sizes.
for kn in $KERNELS; do
    k=${kn%%:*}
    for r in $(seq "$REPS"); do collect_once 64,4096 "$WORK/$k" 4; done | median >"$WORK/fixed.$k"
done
FIXED=$(cat "$WORK"/fixed.* | median)
out "Fixed cost (augur collect of each kernel at N = 4, median over kernels of the medians of $REPS): $FIXED s"
out ""
out "| kernel | N | instructions | native s | block sizes | collect s | collect / native | (collect - fixed) / native | ns / instruction |"
out "|---|---:|---:|---:|---|---:|---:|---:|---:|"
for kn in $KERNELS; do
    k=${kn%%:*}
    for n in $(echo "${kn#*:}" | tr ',' ' '); do
        ins=$(instructions "$WORK/$k" "$n")
        : >"$WORK/native"
        for b in $BLOCKS; do : >"$WORK/c.$b"; done
        for r in $(seq "$REPS"); do # interleaved: machine noise hits both alike
            seconds "$WORK/$k" "$n" >>"$WORK/native"
            for b in $BLOCKS; do collect_once "$b" "$WORK/$k" "$n" >>"$WORK/c.$b"; done
        done
        nat=$(median <"$WORK/native")
        for b in $BLOCKS; do
            col=$(median <"$WORK/c.$b")
            out "$(awk -v k="$k" -v n="$n" -v ins="$ins" -v nat="$nat" -v b="$b" -v col="$col" -v f="$FIXED" 'BEGIN {
                over = col - f; if (over < 0) over = 0
                printf "| %s | %s | %d | %.4f | %s | %.2f | %.0f | %.0f | %.1f |", k, n, ins, nat, b, col, col / nat,
                    over / nat, 1e9 * over / ins }')"
        done
    done
done
