#!/usr/bin/env bash
# static_bench.sh — `augur static` against what runs (issue 24 item 8): its
# counts against `augur collect`'s, and its cycle formulas against `augur
# predict --machine` and native time, on the 13 kernels of
# tests/static/bench_kernels.c built at -O0, -O2 and -O3 (gcc -g
# -march=x86-64-v2 -fopenmp; never -march=native: Valgrind 3.19 has no
# AVX-512).
#
# Counts: for each kernel K and each training size n (default 20 33 48 64 80),
# one run `bench_kernels K n 1` under `augur collect --param n=n` (one thread:
# OMP_NUM_THREADS=1) against `augur static --format json --param k=K --param
# n=n --param reps=1 --param threads=1`: per function of the kernel (its GCC
# copies and OpenMP's outlined region summed, as the join joins them) its
# instructions, flops, loads and stores in the run (`functions[].program.values`:
# insn_*) against `augur report --scopes --threshold 0`'s; and every binary loop
# the join counts: its static iterations against its measured body executions
# (header executions, or header executions minus entries for a loop tested at
# its top, whichever is nearer: the rule of report --scopes).
# Time: `augur model` on those runs, then at the timing size (N, REPS) where
# the native run takes 0.2 s or more: the static time (the kernel's cycles per
# call, with --machine HOST, times REPS, over HOST's clock; without and with
# its memory terms, mem_cycles; the OpenMP kernel's at threads = 1), `augur predict --param n=N --machine HOST`'s time of the kernel's
# functions times REPS, and native CPU time (user + sys, the median of
# --reps runs, less the median of as many runs with REPS = 0: the set-up).
# HOST is `augur machine detect`'s description of this host (WORK/host.yaml),
# or --machine FILE.  The report names the CPU and the load average before and
# after.
#
# usage: bench/static_bench.sh [--kernels "matmul band ..."] [--opts "O0 O2 O3"] [--sizes "20 33 48 64 80"]
#                              [--reps N] [--machine FILE] [--no-timing] [--markdown FILE] [--work DIR] [--no-build]
#   --reps N      native runs per kernel and level (default 5)
#   --no-timing   counts only
# Environment: BUILD_DIR (default: build).  Needs gcc, valgrind, jq, GNU time.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/bench_lib.sh" # bench_start, bench_option, need, augur_built, cpu_model, load_average, detect_host, host_summary, median
bench_start static_bench
SRC=$ROOT/tests/static/bench_kernels.c
ALL_KERNELS="matmul matvec jacobi2d trisolve trapezoid stencil3 guarded modulo band calls annotated triad_omp strided"
KERNELS=$ALL_KERNELS
OPTS="O0 O2 O3"
SIZES="20 33 48 64 80"
REPS=5 TIMING=1 MACHINE=
WORK=/tmp/augur-static-bench
CFLAGS_BENCH=(-g -march=x86-64-v2 -fopenmp -Wno-unknown-pragmas)
export OMP_NUM_THREADS=1

while [ $# -gt 0 ]; do
    bench_option "$0" "$@"
    [ "$BENCH_TOOK" = 0 ] || { shift "$BENCH_TOOK"; continue; }
    case $1 in
    --kernels) [ $# -ge 2 ] || die "--kernels needs a list"; KERNELS=$2; shift 2 ;;
    --opts) [ $# -ge 2 ] || die "--opts needs a list"; OPTS=$2; shift 2 ;;
    --sizes) [ $# -ge 2 ] || die "--sizes needs a list"; SIZES=$2; shift 2 ;;
    --machine) [ $# -ge 2 ] || die "--machine needs a file"; MACHINE=$2; shift 2 ;;
    --no-timing) TIMING=0; shift ;;
    --work) [ $# -ge 2 ] || die "--work needs a directory"; WORK=$2; shift 2 ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer, not '$REPS'"
check_sizes --sizes "$SIZES"
for s in $SIZES; do [ "$s" -ge 8 ] || die "--sizes: $s is below bench_kernels' least size, 8"; done
for o in $OPTS; do case $o in O0 | O1 | O2 | O3 | Os) ;; *) die "--opts: '$o' is not a GCC level (O0 O1 O2 O3 Os)" ;; esac; done
[ -z "$MACHINE" ] || [ -f "$MACHINE" ] || die "--machine $MACHINE: no such file"
for c in gcc valgrind jq lscpu /usr/bin/time; do need "$c" "apt-get install ${c##*/}"; done

# Per kernel: its index in main's dispatch, its functions (the kernel's
# callees after it), and the timing size "N REPS" (0.2 s or more natively
# at -O3 on an AMD EPYC; -O0 takes 2-7 times as long).
declare -A INDEX FUNCS TIMED
i=0
for k in $ALL_KERNELS; do INDEX[$k]=$i FUNCS[$k]=$k i=$((i + 1)); done
FUNCS[calls]="calls axpy"
TIMED=([matmul]="300 8" [matvec]="2000 60" [jacobi2d]="1000 200" [trisolve]="2000 90" [trapezoid]="4000 100"
    [stencil3]="100000 6000" [guarded]="3000 150" [modulo]="100000 5000" [band]="100000 600" [calls]="3000 250"
    [annotated]="100000 1200" [triad_omp]="100000 4000" [strided]="100000 4000")
for k in $KERNELS; do [ -n "${INDEX[$k]:-}" ] || die "unknown kernel '$k' (one of: $ALL_KERNELS)"; done

AUGUR=$(augur_built "$ROOT" "$BUILD_DIR" "$DO_BUILD" "$WORK/build.log")
mkdir -p "$WORK"
CPU_MODEL=$(cpu_model)
LOAD_BEFORE=$(load_average)
if [ -z "$MACHINE" ] && [ "$TIMING" = 1 ]; then
    NEAREST=$(detect_host "$WORK/host.yaml")
    MACHINE=$WORK/host.yaml
fi

# static_json PROG K N REPS [MACHINE] — `augur static --format json` of PROG
# at kernel K, size N, REPS calls, one thread.
static_json() {
    "$AUGUR" static --format json --param k="$2" --param n="$3" --param reps="$4" --param threads=1 \
        ${5:+--machine "$5"} "$1" 2>>"$WORK/static.err"
}

# count_rows O K — WORK/O/K/counts.txt: "n FUNCTION is ic fs fc ls lc ss sc"
# per function and size, and WORK/O/K/loops.txt: "n SOURCE_LOOP static
# measured" per measured loop that report --scopes pairs with a static one.
count_rows() {
    local O=$1 k=$2 d=$WORK/$1/$2 n
    mkdir -p "$d"
    rm -f "$d/train.db"
    : >"$d/counts.txt"
    : >"$d/loops.txt"
    for n in $SIZES; do
        local sj=$d/static.$n.json sc=$d/scopes.$n.json prog=$WORK/$O/bench_kernels
        # --db: report --scopes then pairs the measured loops with the static ones
        "$AUGUR" static --db "$d/train.db" --format json --param k="${INDEX[$k]}" --param n="$n" --param reps=1 \
            --param threads=1 "$prog" >"$sj" 2>>"$WORK/static.err" || die "$O $k: augur static failed (see $WORK/static.err)"
        "$AUGUR" collect --db "$d/train.db" --param k="${INDEX[$k]}" --param n="$n" --param reps=1 --param threads=1 \
            -- "$prog" "${INDEX[$k]}" "$n" 1 >"$d/collect.$n.log" 2>&1 ||
            die "$O $k: augur collect at n=$n failed (see $d/collect.$n.log)"
        local run
        run=$(sed -n 's/^augur: run \([0-9]*\) stored.*/\1/p' "$d/collect.$n.log")
        "$AUGUR" report --db "$d/train.db" --run "$run" --scopes --threshold 0 --format json >"$sc" ||
            die "$O $k: augur report --scopes failed"
        jq -r --slurpfile sc "$sc" --arg funcs "${FUNCS[$k]}" --arg n "$n" '
            def src: split(".")[0];
            ($funcs | split(" ")) as $want
            | [$sc[0].scopes[] | select(.name | endswith("bench_kernels")) | .children[]
               | select(.kind == "function" and (.name | src | IN($want[])))] as $bf
            | .functions[] | select(.name | IN($want[]))
            | .name as $f | .program.values as $v | [$bf[] | select(.name | src == $f)] as $m
            | "\($n) \($f) \($v.instructions) \([$m[].instructions] | add) \($v.insn_flops) \([$m[].flops] | add)"
              + " \($v.insn_loads) \([$m[].reads] | add) \($v.insn_stores) \([$m[].writes] | add)"' "$sj" >>"$d/counts.txt"
        jq -r --arg funcs "${FUNCS[$k]}" --arg n "$n" '
            def src: split(".")[0];
            ($funcs | split(" ")) as $want
            | .scopes[] | select(.name | endswith("bench_kernels")) | .children[]
            | select(.kind == "function" and (.name | src | IN($want[])))
            | .. | objects | select(.kind? == "loop" and .static != null)
            | "\($n) \(.static.source_loop | split("/")[-1])\(if .static.role == "all" then "" else "," + .static.role end)"
              + " \(.static.static) \(.static.measured)"' "$sc" >>"$d/loops.txt"
    done
}

# time_row O K — "static_core static_mem predicted native" in seconds for
# kernel K at its timing size: the static cycles per call times REPS over
# the clock of MACHINE, predict's time of the kernel's functions times REPS
# (from WORK/O/K/train.db's model), the native CPU time less the set-up's.
time_row() {
    local O=$1 k=$2 d=$WORK/$1/$2 prog=$WORK/$1/bench_kernels n reps ghz
    read -r n reps <<<"${TIMED[$k]}"
    ghz=$(host_summary "$MACHINE" | cut -d" " -f1)
    static_json "$prog" "${INDEX[$k]}" "$n" "$reps" "$MACHINE" >"$d/static.time.json" ||
        die "$O $k: augur static --machine failed (see $WORK/static.err)"
    "$AUGUR" model --db "$d/train.db" >"$d/model.log" 2>&1 || die "$O $k: augur model failed (see $d/model.log)"
    "$AUGUR" predict --db "$d/train.db" --param n="$n" --machine "$MACHINE" --format json --top 0 \
        >"$d/predict.json" 2>"$d/predict.err" || die "$O $k: augur predict failed (see $d/predict.err)"
    local st pt
    st=$(jq -r --arg f "$k" --argjson r "$reps" --argjson g "$ghz" '.functions[] | select(.name == $f)
        | "\(.values.cycles * $r / $g / 1e9) \((.values.cycles + .values.mem_cycles) * $r / $g / 1e9)"' "$d/static.time.json")
    pt=$(jq -r --arg funcs "${FUNCS[$k]}" --argjson r "$reps" '($funcs | split(" ")) as $want
        | [.functions[] | select(.function // "" | split(".")[0] | IN($want[])) | .time_seconds] | add * $r' "$d/predict.json")
    local full setup r
    full=$(for r in $(seq "$REPS"); do time_native "$d/time.one" "$prog" "${INDEX[$k]}" "$n" "$reps" |
        awk '{ print $2 + $3 }'; done | median)
    setup=$(for r in $(seq "$REPS"); do time_native "$d/time.one" "$prog" "${INDEX[$k]}" "$n" 0 |
        awk '{ print $2 + $3 }'; done | median)
    echo "$st $pt $(awk -v a="$full" -v b="$setup" 'BEGIN { print a - b }') $full"
}

# percent S M — (S - M) / M in percent, one decimal; "-" when M is 0 or not a number.
percent() { awk -v s="$1" -v m="$2" 'BEGIN { if (m + 0 == 0 || s == "null") print "-"; else printf "%+.1f", 100 * (s - m) / m }'; }

ROWS=$WORK/rows.txt
TROWS=$WORK/time-rows.txt
: >"$ROWS"
: >"$TROWS"
: >"$ROWS.loops"
for O in $OPTS; do
    mkdir -p "$WORK/$O"
    gcc -"$O" "${CFLAGS_BENCH[@]}" -o "$WORK/$O/bench_kernels" "$SRC" || die "gcc -$O $SRC failed"
    for k in $KERNELS; do
        count_rows "$O" "$k"
        # per function: the largest |error| over the sizes of each count (signed)
        awk -v o="$O" '
            function worst(s, m, i) { e = (m == 0) ? (s == 0 ? 0 : 1e9) : 100 * (s - m) / m
                                      if (!(i in w) || (e < 0 ? -e : e) > (w[i] < 0 ? -w[i] : w[i])) w[i] = e }
            { f = $2; fs[f] = 1; worst($3, $4, f ",i"); worst($5, $6, f ",f"); worst($7, $8, f ",l"); worst($9, $10, f ",s") }
            END { for (f in fs) printf "%s %s %.2f %.2f %.2f %.2f\n", o, f, w[f ",i"], w[f ",f"], w[f ",l"], w[f ",s"] }' \
            "$WORK/$O/$k/counts.txt" >>"$ROWS"
        loops=$(wc -l <"$WORK/$O/$k/loops.txt")
        exact=$(awk '$3 == $4' "$WORK/$O/$k/loops.txt" | wc -l)
        echo "$O $k loops $exact $loops $(awk '$3 != $4 { printf "%s(n=%s: %s vs %s) ", $2, $1, $3, $4 }' "$WORK/$O/$k/loops.txt")" >>"$ROWS.loops"
        say "$O $k counted ($exact of $loops loop pairings exact)"
        if [ "$TIMING" = 1 ]; then
            echo "$O $k ${TIMED[$k]} $(time_row "$O" "$k")" >>"$TROWS"
            say "$O $k timed: $(tail -1 "$TROWS")"
        fi
    done
done
LOAD_AFTER=$(load_average)

report() {
    echo "CPU: $CPU_MODEL ($(nproc --all) CPUs). Load average before: $LOAD_BEFORE; after: $LOAD_AFTER." \
        "Sizes counted: n = $SIZES (one call, one thread).${NEAREST:+ Machine: augur machine detect (core of $NEAREST), $(host_summary "$MACHINE" | awk '{ printf "%.2f", $1 }') GHz.}"
    echo
    echo "Counts, static against augur collect: the largest error over the sizes, % (loads and stores:"
    echo "the binary's memory-reading and -writing instructions against the collector's reads and writes)."
    echo
    echo "| level | function | instructions | flops | loads | stores |"
    echo "|---|---|---:|---:|---:|---:|"
    sort -k1,1 -s "$ROWS" | awk '{ printf "| -%s | %s | %+.2f | %+.2f | %+.2f | %+.2f |\n", $1, $2, $3, $4, $5, $6 }'
    echo
    echo "Loop iterations in the run, static against measured (report --scopes' pairing): exact of paired, per kernel."
    echo
    echo "| level | kernel | exact | paired | not exact (source loop, n: static vs measured) |"
    echo "|---|---|---:|---:|---|"
    awk '{ rest = ""; for (i = 6; i <= NF; i++) rest = rest " " $i; printf "| -%s | %s | %s | %s |%s |\n", $1, $2, $4, $5, rest }' "$ROWS.loops"
    [ -s "$TROWS" ] || return 0
    echo
    echo "Time (s) at the timing size: static (cycles: the core's, with the latency and bandwidth of the misses the"
    echo "static strides give; with mem_cycles, every level missing), augur predict --machine"
    echo "(from the model of the counted runs), native CPU time (user+sys, median of $REPS, less the set-up's);"
    echo "errors against native."
    echo
    echo "| level | kernel | N | REPS | static | static +mem | predict | native | static % | static +mem % | predict % |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk '{ printf "| -%s | %s | %s | %s | %.3g | %.3g | %.3g | %.3g | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8,
           pc($5, $8), pc($6, $8), pc($7, $8) }
         function pc(s, m) { return m > 0 ? sprintf("%+.0f", 100 * (s - m) / m) : "-" }' "$TROWS"
}
report | tee ${MARKDOWN:+"$MARKDOWN"}
