#!/usr/bin/env bash
# machine_bench.sh — misses per cache level of `augur predict --machine zen4`
# against Cachegrind, at measured and at extrapolated sizes.
#
# For each kernel of bench/model_kernels (gcc -O2 -g -march=x86-64-v2), the
# training database of bench/model_bench.sh (WORK/KERNEL/train.db: five
# small runs and their model set) is reused when present, else made the
# same way.  At the largest training size ("measured": the models
# reproduce a run they were fitted on) and at 4x it ("extrapolated"):
#   predicted  total.misses.L1, .L2, .L3 of
#              `augur predict --param N=T --machine zen4 --format json`
#   Cachegrind `valgrind --tool=cachegrind --D1=32768,8,64 --LL=1048576,8,64`
#              (D1 misses for L1, LLd misses for L2), and again with
#              --LL=33554432,16,64 (LLd misses for L3), on the same binary at T
# Error = (predicted - Cachegrind) / Cachegrind.  Counts under 1000 are shown
# and marked †, and left out of the medians (compulsory misses only).
#
# usage: bench/machine_bench.sh [--kernels "matmul ..."] [--markdown FILE] [--work DIR]
# Environment: BUILD_DIR (default: build), WORK (default /tmp/augur-model-bench),
# and the training sizes as bench/model_bench.sh takes them.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
AUGUR=$BUILD_DIR/augur
WORK=${WORK:-/tmp/augur-model-bench}
KERNELS="matmul stencil2d stencil3d trisolve sort spmv"
MARKDOWN=
while [ $# -gt 0 ]; do
    case $1 in
    --kernels) KERNELS=$2; shift 2 ;;
    --markdown) MARKDOWN=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "machine_bench.sh: unknown option $1 (see the header of the script)" >&2; exit 2 ;;
    esac
done
[ -x "$AUGUR" ] || { echo "machine_bench.sh: no $AUGUR: build first (BUILD_DIR=...)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "machine_bench.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

declare -A SIZES=([matmul]=${MATMUL_SIZES:-"30 60 90 120 150"} [stencil2d]=${STENCIL2D_SIZES:-"150 300 450 600 750"}
    [stencil3d]=${STENCIL3D_SIZES:-"16 22 28 34 40"} [trisolve]=${TRISOLVE_SIZES:-"200 400 600 800 1000"}
    [sort]=${SORT_SIZES:-"200000 400000 600000 800000 1000000"} [spmv]=${SPMV_SIZES:-"20000 40000 60000 80000 100000"})

source "$ROOT/bench/train_lib.sh" # train K

# cg BINARY N LL FIELD — Cachegrind's data misses (FIELD D1 or LLd)
cg() {
    valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL="$3" --cachegrind-out-file=/dev/null \
        "$1" "$2" 2>&1 >/dev/null | awk -v what="$4" '$2 == what && $3 == "misses:" { gsub(",", "", $4); print $4 }'
}

ROWS=$WORK/machine-rows.txt
: > "$ROWS"
for k in $KERNELS; do
    train "$k"
    last=$(echo ${SIZES[$k]} | awk '{ print $NF }')
    for kind in measured extrapolated; do
        n=$last
        [ $kind = extrapolated ] && n=$((4 * last))
        json=$WORK/$k/machine-N$n.json
        "$AUGUR" predict --db "$WORK/$k/train.db" --param N=$n --machine zen4 --format json --top 0 > "$json" 2>/dev/null
        d1=$(cg "$WORK/$k/$k" $n 1048576,8,64 D1); l2=$(cg "$WORK/$k/$k" $n 1048576,8,64 LLd)
        l3=$(cg "$WORK/$k/$k" $n 33554432,16,64 LLd)
        for pair in "L1 $d1" "L2 $l2" "L3 $l3"; do
            set -- $pair
            p=$(jq --arg l "$1" '.total.misses[$l]' "$json")
            echo "$k $n $kind $1 $p $2" >> "$ROWS"
        done
        echo "machine_bench: $k N=$n done" >&2
    done
done

report() {
    echo "| kernel | N | kind | level | predicted | Cachegrind | error % |"
    echo "|---|---:|---|---|---:|---:|---:|"
    awk '{ e = ($6 > 0) ? 100 * ($5 - $6) / $6 : 0; mark = ($6 < 1000) ? " †" : "";
           printf "| %s | %s | %s | %s | %.0f | %d%s | %+.1f%s |\n", $1, $2, $3, $4, $5, $6, mark, e, mark }' "$ROWS"
    echo
    echo "| kind | level | median abs error % | max abs error % | kernels |"
    echo "|---|---|---:|---:|---:|"
    for kind in measured extrapolated; do
        for lv in L1 L2 L3; do
            awk -v kind=$kind -v lv=$lv '$3 == kind && $4 == lv && $6 >= 1000 { e = 100 * ($5 - $6) / $6; print (e < 0 ? -e : e) }' "$ROWS" |
                sort -g | awk -v kind=$kind -v lv=$lv '{ v[NR] = $1 } END {
                    if (NR == 0) { printf "| %s | %s | - | - | 0 |\n", kind, lv; exit }
                    med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                    printf "| %s | %s | %.1f | %.1f | %d |\n", kind, lv, med, v[NR], NR }'
        done
    done
}
report | tee ${MARKDOWN:+"$MARKDOWN"}
