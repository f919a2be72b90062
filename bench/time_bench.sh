#!/usr/bin/env bash
# time_bench.sh — predicted time of `augur predict --machine` against native
# run time on whatever host it runs on, described by the host itself (issue
# 5, deliverable 5b; issue 22: no description named for a CPU the host may
# not have).
#
# For each kernel of bench/model_kernels (gcc -O2 -g -march=x86-64-v2):
#   train     five small runs under `augur collect --param N=v`, then
#             `augur model` (WORK/KERNEL/train.db; reused when it has a model set)
#   predict   `augur predict --param N=T --machine HOST --format json --top 0`
#             at a size T where the native program runs 1-10 s: total.time_seconds,
#             its page-fault and misprediction terms, and the bound of every
#             loop with >= 10% of the predicted time
#   measure   the native program at T, REPS times (default 5): median wall time
#             of the whole process (/usr/bin/time %e), with its user and system
#             time.  The kernels print no timing of their own, so setup (malloc,
#             initialisation loops) is part of both sides; the kernel's page
#             faults are system time, which the model's page-fault term is.
# Error = (predicted - measured) / measured, against the wall time and against
# the CPU time (user + sys): on a shared host the wall time also holds the time
# the process waited for a core, which no model of the program predicts.
#
# HOST is the host's own description: `augur machine detect` (hwloc's caches,
# the nearest shipped description's core; WORK/host-detected.yaml, written
# once to record what the host was taken for), then `augur machine calibrate
# --quick --measured-capacity` seconds before each timed run
# (WORK/KERNEL/host-REP.yaml: clock, cache and memory latencies, triad
# bandwidth, page-fault cost measured here, the geometry as detected but for
# the last level's size, which is the share of it one core reaches: on a
# shared host, what its programs see; the memory figures of a shared host
# move within minutes).  The prediction is the median of the REPS predictions,
# one per run, each for the host as calibrated just before that run.  A
# calibration that refuses (its rounds disagree: a loaded host) is tried
# again, up to 5 times; --tolerance F is passed to calibrate (its default
# 1.5 unless given).  With --machine FILE that file instead (for a host
# described by hand).  The report's first line names the CPU (lscpu's
# "Model name"), the description detect took the core from, and the load
# average (uptime) before training and after timing.
#
# usage: bench/time_bench.sh [--kernels "triad ..."] [--markdown FILE] [--work DIR]
#                            [--machine FILE] [--tolerance F] [--reps N] [--no-timing]
#   --no-timing  train and predict only (WORK/time-predicted.txt)
# Environment: BUILD_DIR (default: build), WORK (default /tmp/augur-time-bench).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
AUGUR=$BUILD_DIR/augur
WORK=${WORK:-/tmp/augur-time-bench}
KERNELS="dot matmul sort triad jacobi1d stencil2d trisolve spmv chase"
MARKDOWN= MACHINE= REPS=5 TIMING=1 TOLERANCE=
die() { echo "time_bench.sh: $*" >&2; exit 1; }
say() { echo "time_bench: $*" >&2; }
while [ $# -gt 0 ]; do
    case $1 in
    --kernels) KERNELS=$2; shift 2 ;;
    --markdown) MARKDOWN=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --machine) MACHINE=$2; shift 2 ;;
    --tolerance) TOLERANCE=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --no-timing) TIMING=0; shift ;;
    *) echo "time_bench.sh: unknown option $1 (see the header of the script)" >&2; exit 2 ;;
    esac
done
[[ -z $TOLERANCE || $TOLERANCE =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "time_bench.sh: --tolerance '$TOLERANCE' is not a number" >&2; exit 2; }
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "time_bench.sh: --reps '$REPS' is not a positive number" >&2; exit 2; }
[ -x "$AUGUR" ] || die "no $AUGUR: build first (BUILD_DIR=...)"
for c in valgrind jq gcc lscpu /usr/bin/time; do command -v $c >/dev/null || die "$c is missing (apt-get install ${c##*/})"; done
mkdir -p "$WORK"

# Training sizes (five, small: 0.3-3 s each under augur collect) and the native size T.
declare -A SIZES=([dot]="20 40 60 80 100" [matmul]="30 60 90 120 150" [sort]="200000 400000 600000 800000 1000000"
    [triad]="10000 20000 30000 40000 50000" [jacobi1d]="10000 20000 30000 40000 50000"
    [stencil2d]="150 300 450 600 750" [trisolve]="200 400 600 800 1000"
    [spmv]="20000 40000 60000 80000 100000" [chase]="20000 40000 60000 80000 100000")
declare -A TARGET=([dot]=1000000 [matmul]=1500 [sort]=15000000 [triad]=16000000 [jacobi1d]=12000000
    [stencil2d]=8000 [trisolve]=12000 [spmv]=3000000 [chase]=4000000)
for k in $KERNELS; do [ -n "${TARGET[$k]:-}" ] || die "unknown kernel '$k' (one of: ${!TARGET[*]})"; done

source "$ROOT/bench/bench_lib.sh"  # cpu_model, load_average, detect_host, calibrate_host, host_summary, time_native, median
source "$ROOT/bench/train_lib.sh" # train K
LOAD_BEFORE=$(load_average)
# Which CPU gives the figures: lscpu's model name, and what detect takes it for.
CPU_MODEL=$(cpu_model)
NEAREST=$(detect_host "$WORK/host-detected.yaml")

# bounds JSON — "bound share%" of the loops with >= 10% of the predicted time
bounds() {
    jq -r '.total.time_seconds as $t | [.scopes[] | select(.kind == "loop" and .time_seconds >= 0.1 * $t)]
        | sort_by(-.time_seconds) | map("\(.bound) \(100 * .time_seconds / $t | round)%") | join(", ")' "$1"
}

ROWS=$WORK/time-rows.txt
: > "$ROWS"
: > "$ROWS.pred"
for k in $KERNELS; do train "$k"; echo "time_bench: $k trained" >&2; done
# The clock after the timing (bench/clock_ghz.c: calibrate's own probe), for
# the report's first line.
gcc -O2 -I "$ROOT/src" -o "$WORK/clock_ghz" "$ROOT/bench/clock_ghz.c" "$ROOT/src/machine/calibrate_probes.c"

# predict_kernel K MACHINE — WORK/K/time-N<T>.json; prints "pred pf mp labels"
predict_kernel() {
    local k=$1 t=${TARGET[$1]} json=$WORK/$1/time-N${TARGET[$1]}.json
    "$AUGUR" predict --db "$WORK/$k/train.db" --param N=$t --machine "$2" --format json --top 0 \
        > "$json" 2> "$WORK/$k/predict.err" || die "$k: predict failed: $(cat "$WORK/$k/predict.err")"
    echo "$(jq -r '.total | "\(.time_seconds) \(.page_fault_seconds) \(.mispredict_seconds)"' "$json")" \
        "$(bounds "$json" | tr ' ' '_')_"
}

# column I of FILE, its median
median_of() { awk -v i="$1" '{ print $i }' "$2" | median; }

# One kernel after the other; per repetition its description (with
# --calibrate), its prediction, its timed run, so that augur's own runs never
# overlap a timed one.  WORK/K/reps.txt: "pred pf mp labels wall user sys GHz ns GB/s"
# per repetition; the row takes the median of each column.
for k in $KERNELS; do
    : > "$WORK/$k/reps.txt"
    for r in $(seq "$REPS"); do
        m=$MACHINE
        [ -n "$MACHINE" ] || m=$(calibrate_host "$WORK/$k/host-$r.yaml" "$TOLERANCE")
        read -r pred pf mp labels < <(predict_kernel "$k" "$m")
        [ "$TIMING" = 1 ] && times=$(time_native "$WORK/$k/time.one" "$WORK/$k/$k" "${TARGET[$k]}") || times="0 0 0"
        echo "$pred $pf $mp $labels $times $(host_summary "$m")" >> "$WORK/$k/reps.txt"
        [ -z "$MACHINE" ] || [ "$TIMING" = 1 ] || break # one prediction of a fixed host is enough
    done
    reps=$WORK/$k/reps.txt
    pred=$(median_of 1 "$reps") pf=$(median_of 2 "$reps") mp=$(median_of 3 "$reps") labels=$(tail -1 "$reps" | cut -d" " -f4)
    host=$(printf '%.2f_GHz,_%.0f_ns,_%.1f_GB/s' "$(median_of 8 "$reps")" "$(median_of 9 "$reps")" "$(median_of 10 "$reps")")
    echo "$k ${TARGET[$k]} $pred $pf $mp $labels $host" >> "$ROWS.pred"
    [ "$TIMING" = 1 ] || continue
    wall=$(median_of 5 "$reps") user=$(median_of 6 "$reps") sys=$(median_of 7 "$reps")
    echo "$k ${TARGET[$k]} $pred $wall $user $sys $labels $pf $mp $host" >> "$ROWS"
    echo "time_bench: $k N=${TARGET[$k]}: predicted $pred s, measured $wall s (wall)" >&2
done
cp "$ROWS.pred" "$WORK/time-predicted.txt"
rm -f "$ROWS.pred"
[ "$TIMING" = 1 ] || { cat "$WORK/time-predicted.txt"; exit 0; }
LOAD_AFTER=$(load_average)
GHZ_AFTER=$([ -x "$WORK/clock_ghz" ] && "$WORK/clock_ghz" 301 | cut -d" " -f1 || echo "-")

report() {
    echo "CPU: $CPU_MODEL ($(nproc) CPUs; detect took its core from $NEAREST). Machine: ${MACHINE:-this host, detected, then calibrated (--quick --measured-capacity${TOLERANCE:+ --tolerance $TOLERANCE}) before each timed run: WORK/KERNEL/host-REP.yaml; medians of the predictions and of the runs}; clock measured after the timing: $GHZ_AFTER GHz; load average before training: $LOAD_BEFORE; after timing: $LOAD_AFTER"
    echo
    echo "| kernel | N | host (medians): clock, memory latency, bandwidth | predicted s | of it page faults s | of it mispredictions s | wall s | user s | sys s | error % (wall) | error % (user+sys) | loop bounds (share of predicted time) |"
    echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    awk '{ gsub("_", " ", $7); sub(/ $/, "", $7); gsub("_", " ", $10)
           printf "| %s | %s | %s | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f | %+.1f | %+.1f | %s |\n", $1, $2, $10, $3, $8, $9,
           $4, $5, $6, 100 * ($3 - $4) / $4, 100 * ($3 - $5 - $6) / ($5 + $6), $7 }' "$ROWS"
    echo
    echo "median |error|: $(awk '{ e = 100 * ($3 - $4) / $4; print (e < 0 ? -e : e) }' "$ROWS" | median | xargs printf '%.1f')% against wall time," \
        "$(awk '{ e = 100 * ($3 - $5 - $6) / ($5 + $6); print (e < 0 ? -e : e) }' "$ROWS" | median | xargs printf '%.1f')% against CPU time (user+sys)," \
        "over $(wc -l < "$ROWS") kernels"
}
report | tee ${MARKDOWN:+"$MARKDOWN"}
