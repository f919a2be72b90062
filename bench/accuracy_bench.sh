#!/usr/bin/env bash
# accuracy_bench.sh — the validation benchmark of augur's extrapolation (issue 20,
# item 4): real, public kernels written from their published form
# (bench/accuracy/*.c, *.f90; each file cites its source), trained on five small
# sizes and predicted at 4x and 8x the largest, against runs at those sizes.
#
# For each kernel (each takes the problem size N as its only argument):
#   build     gcc -O2 -g -march=x86-64-v2 (gfortran for .f90) into WORK/K/K
#   train     `augur collect --param N=v` at the five training sizes into
#             WORK/K/runs.db; copied to WORK/K/model.db, then `augur model`
#   predict   `augur predict --db WORK/K/model.db --param N=T --machine M
#             --format json --top 0` for T = 4x and 8x the largest training
#             size and each machine M
#   measure   `augur collect --param N=T` into WORK/K/measured-NT.db, then
#             `augur report --machine M --format json --top 0` of that run
# and compares, per target and machine, for the program (`total`) and its top
# five functions by measured instructions (those with at least 1% of the
# program's instructions; matched by name and module file name):
#   instructions                        exact when measured
#   misses.L1, .L2, .L3                 misses per cache level of the machine,
#                                       predicted from the models against the
#                                       same cache model applied to the measured
#                                       reuse distances (docs/performance-model.md)
# as the error (predicted - measured) / measured in percent, and, where the
# prediction carries them (`misses_range`, `instructions_range`: [low, high]
# beside the value), whether the interval covers the measured value.
# A measured miss count below 1000 or below 0.1% of the program's memory
# accesses is shown with "†" and left out of the figures.  The tables:
# bench/accuracy_compare.py (Python 3, standard library).
#
# With --time, also native time: once every kernel is collected (so that no
# collect runs beside a timed run), for each kernel and target, REPS times
# (--reps, default 5): `augur machine calibrate --quick --measured-capacity`
# (the host's own description, as bench/time_bench.sh makes it: the core of
# the shipped description `augur machine detect` takes it for, the caches
# hwloc reports, clock, latencies, bandwidth and page-fault cost measured
# seconds before the run; a refusal under load is tried again, 5 times), then
# `augur predict --db WORK/K/model.db --param N=T --machine HOST --format json`
# (total.time_seconds) and the native program at T (/usr/bin/time: wall, user,
# sys).  The error of the median prediction against the median CPU time
# (user + sys) and the median wall time of the native runs; the report names
# the CPU (lscpu's "Model name"), the description detect took the core from
# and the load average before training and after timing.
#
# With --cachegrind, also the program's L1 and L2 misses on zen4 at each target
# against Cachegrind configured as zen4's L1 and L2 (--D1=32768,8,64
# --LL=1048576,8,64): how far the cache model itself is from a set-associative
# simulation, apart from extrapolation; and the same per function, for the
# program's top five functions.
#
# Rerunning after a model change: the collected runs are kept in WORK (default
# /tmp/augur-accuracy-bench): WORK/K/runs.db (training), WORK/K/measured-NT.db
# (targets), WORK/K/cachegrind-NT.txt (and Cachegrind's output file, per function
# and line, WORK/K/cachegrind-NT.txt.cg), each with a .stamp naming the kernel
# binary's hash and sizes.  --reuse keeps those whose stamp matches and collects
# only what is missing, so a rerun does `augur model`, `augur predict` and
# `augur report` only.  Without --reuse everything is collected afresh.
#
# usage: bench/accuracy_bench.sh [--quick] [--reuse] [--jobs N] [--kernels "cholesky lu ..."]
#                                [--factors "4 8"] [--machines "zen4 sapphire-rapids"]
#                                [--cachegrind] [--time] [--reps N] [--tolerance F]
#                                [--markdown FILE] [--work DIR] [--no-build]
#   --quick          4 kernels (cholesky hpccg heat3d adi), 4x only
#   --reuse          keep the runs already collected in WORK (see above)
#   --jobs N         kernels processed at a time (default 1; each is one process
#                    at a time, so more than the free cores only slows them)
#   --kernels LIST   which kernels (default: all fourteen, listed by --help's end)
#   --factors LIST   target multiples of the largest training size (default "4 8";
#                    md is collected up to 4x only)
#   --machines LIST  machine descriptions (`augur machine list`; default
#                    "zen4 sapphire-rapids")
#   --cachegrind     also the Cachegrind spot check, of the program and of its
#                    top five functions (one Cachegrind run per target; needs
#                    zen4 among the machines)
#   --time           also native time against the prediction on the host's
#                    own calibrated description (above)
#   --reps N         with --time: runs per target (default 5)
#   --tolerance F    with --time: passed to `augur machine calibrate` (its
#                    default 1.5 unless given)
#   --markdown FILE  also write the tables to FILE
#   --work DIR       where the binaries, databases, JSON and logs go
#   --no-build       do not run cmake; use the augur in $BUILD_DIR
# Environment: BUILD_DIR (default: build), WORK, and the training sizes per
# kernel as KERNEL_SIZES (e.g. CHOLESKY_SIZES="40 50 60 70 80"; five or more
# values of N, ascending; fft's must be powers of two).
# With --jobs 2 on the reference machine (2 vCPUs shared with other work, load
# average 10-20) the first run took 34 minutes, most of it the 8x collects, and
# a run with --reuse 12 minutes, almost all of it `augur model`.  Run from
# anywhere.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
WORK=${WORK:-/tmp/augur-accuracy-bench}
ALL_KERNELS="cholesky lu gemm_ijk gemm_blocked floyd hpccg jacobi2d heat3d bfs fft adi ssor snap md"
KERNELS=$ALL_KERNELS
FACTORS="4 8"
MACHINES="zen4 sapphire-rapids"
MARKDOWN=
REUSE=0
JOBS=1
CACHEGRIND=0
TIME=0
REPS=5
TOLERANCE=
DO_BUILD=1

# Training sizes: each training run takes a few seconds under `augur collect`,
# the 8x run at most about 2 minutes (timings in docs/accuracy.md).
declare -A DEFAULT_SIZES=(
    [cholesky]="40 50 60 70 80"
    [lu]="40 50 60 70 80"
    [gemm_ijk]="24 32 40 48 56"
    [gemm_blocked]="24 36 48 60 72"
    [floyd]="40 50 60 70 80"
    [hpccg]="6 7 8 9 10"
    [jacobi2d]="100 150 200 250 300"
    [heat3d]="12 17 22 27 32"
    [bfs]="8000 16000 24000 32000 40000"
    [fft]="8192 16384 32768 65536 131072"
    [adi]="80 120 160 200 240"
    [ssor]="100 150 200 250 300"
    [snap]="6 7 8 9 10"
    [md]="5 6 7 8 9"
)
# The largest target factor worth collecting where it is below 8: md's 8x
# (N = 72, 1.5 million atoms) would take most of an hour under augur collect.
declare -A LARGEST_FACTOR=([md]=4)

CFLAGS_BENCH=(-O2 -g -march=x86-64-v2) # never -march=native: Valgrind 3.19 has no AVX-512
# Every run uses this build's Valgrind tool.
unset VALGRIND_LIB AUGUR_VALGRIND_LIB

die() {
    echo "accuracy_bench: $*" >&2
    exit 1
}
say() { echo "accuracy_bench: $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; echo "kernels: $ALL_KERNELS"; }

COMMAND="bench/accuracy_bench.sh${*:+ $*}"
while [ $# -gt 0 ]; do
    case $1 in
    --quick) KERNELS="cholesky hpccg heat3d adi"; FACTORS="4"; shift ;;
    --reuse) REUSE=1; shift ;;
    --jobs) [ $# -ge 2 ] || die "--jobs needs a number"; JOBS=$2; shift 2 ;;
    --kernels) [ $# -ge 2 ] || die "--kernels needs a list"; KERNELS=$2; shift 2 ;;
    --factors) [ $# -ge 2 ] || die "--factors needs a list"; FACTORS=$2; shift 2 ;;
    --machines) [ $# -ge 2 ] || die "--machines needs a list"; MACHINES=$2; shift 2 ;;
    --cachegrind) CACHEGRIND=1; shift ;;
    --time) TIME=1; shift ;;
    --reps) [ $# -ge 2 ] || die "--reps needs a number"; REPS=$2; shift 2 ;;
    --tolerance) [ $# -ge 2 ] || die "--tolerance needs a number"; TOLERANCE=$2; shift 2 ;;
    --markdown) [ $# -ge 2 ] || die "--markdown needs a file"; MARKDOWN=$2; shift 2 ;;
    --work) [ $# -ge 2 ] || die "--work needs a directory"; WORK=$2; shift 2 ;;
    --no-build) DO_BUILD=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done

# ---- checks of the command line -------------------------------------------------
source "$ROOT/bench/bench_lib.sh" # need, check_sizes, build_augur, collect, clocks, the host and native time
[ -n "${KERNELS// /}" ] || die "--kernels: the list is empty"
[ -n "${MACHINES// /}" ] || die "--machines: the list is empty"
[ -n "${FACTORS// /}" ] || die "--factors: the list is empty"
for f in $FACTORS; do
    [[ $f =~ ^[1-9][0-9]*$ ]] || die "--factors: '$f' is not a positive integer"
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "--jobs: '$JOBS' is not a positive integer"
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps: '$REPS' is not a positive integer"
[[ -z $TOLERANCE || $TOLERANCE =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--tolerance: '$TOLERANCE' is not a number"
if [ "$CACHEGRIND" = 1 ]; then
    case " $MACHINES " in *" zen4 "*) ;; *) die "--cachegrind compares zen4's L1 and L2: add zen4 to --machines" ;; esac
fi
declare -A SIZES
for k in $KERNELS; do
    [ -n "${DEFAULT_SIZES[$k]:-}" ] || die "unknown kernel '$k' (one of: $ALL_KERNELS)"
    var=$(echo "$k" | tr '[:lower:]' '[:upper:]')_SIZES
    SIZES[$k]=${!var:-${DEFAULT_SIZES[$k]}}
    check_sizes "$k ($var)" "${SIZES[$k]}"
done

need gcc "apt-get install gcc"
need gfortran "apt-get install gfortran"
need valgrind "apt-get install valgrind"
need python3 "apt-get install python3"
need sha256sum "apt-get install coreutils"
if [ "$TIME" = 1 ]; then
    need jq "apt-get install jq"
    need lscpu "apt-get install util-linux"
    [ -x /usr/bin/time ] || die "/usr/bin/time is missing: apt-get install time"
fi

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
AUGUR=$(augur_built "$ROOT" "$BUILD_DIR" "$DO_BUILD" "$WORK/build.log")
for m in $MACHINES; do
    "$AUGUR" machine show "$m" >/dev/null 2>&1 || die "unknown machine '$m' (augur machine list shows the known ones)"
done

start_clock
if [ "$TIME" = 1 ]; then
    LOAD_BEFORE=$(load_average)
    NEAREST=$(detect_host "$WORK/host-detected.yaml")
fi

# build K — compiles bench/accuracy/K.{c,f90} into WORK/K/K and prints the
# binary's hash.  The sources are copied into WORK/K and compiled there by
# relative names, and the folder is mapped to "." in the debug information
# (its compilation directory), so the binary is the same whichever checkout
# and work folder the script runs from (a --reuse from another worktree, or of
# a copied work folder, keeps the runs); the binary is replaced only when a rebuild differs,
# so that the runs' build-ids stay valid.
build() {
    local k=$1 dir=$WORK/$1 src compiler
    mkdir -p "$dir"
    if [ -f "$ROOT/bench/accuracy/$k.c" ]; then
        src=$k.c compiler=gcc
        cp "$ROOT/bench/accuracy/kernel.h" "$dir/"
    else
        src=$k.f90 compiler=gfortran
    fi
    cp "$ROOT/bench/accuracy/$src" "$dir/$src"
    (cd "$dir" && "$compiler" "${CFLAGS_BENCH[@]}" "-fdebug-prefix-map=$dir=." -o "$k.new" "$src" -lm) >"$dir/build.log" 2>&1 ||
        { cat "$dir/build.log" >&2; die "$k: cannot compile $ROOT/bench/accuracy/$src"; }
    if [ -f "$dir/$k" ] && cmp -s "$dir/$k" "$dir/$k.new"; then
        rm -f "$dir/$k.new"
    else
        mv "$dir/$k.new" "$dir/$k"
    fi
    sha256sum <"$dir/$k" | cut -c1-16
}

# fresh STAMP CONTENT — true when the collected data stamped STAMP may be kept:
# --reuse and the stamp says CONTENT (binary hash and sizes).
fresh() { [ "$REUSE" = 1 ] && [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# cachegrind K N OUT — Cachegrind's data misses of WORK/K/K N with zen4's L1 and
# L2 into OUT: "D1 misses" and "LLd misses" lines; its output file, the counts per
# function and line, into OUT.cg.
cachegrind() {
    local k=$1 n=$2 out=$3
    valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,8,64 --cachegrind-out-file="$out.cg" \
        "$WORK/$k/$k" "$n" 2>"$out.log" >/dev/null || { tail "$out.log" >&2; die "$k: Cachegrind at N=$n failed"; }
    awk '$2 == "D1" && $3 == "misses:" || $2 == "LLd" && $3 == "misses:" { gsub(",", "", $4); print $2, $4 }' \
        "$out.log" >"$out.tmp"
    [ "$(wc -l <"$out.tmp")" = 2 ] || die "$k: no D1 and LLd miss lines in Cachegrind's output ($out.log)"
    mv "$out.tmp" "$out"
}

# ---- the runs ----------------------------------------------------------------------
# run_kernel K — builds, trains, models, measures and predicts kernel K; writes
# WORK/K/manifest.tsv (kernel factor target machine predicted.json measured.json),
# WORK/K/cachegrind.tsv (kernel factor target D1 LLd measured.json predicted.json
# cachegrind.out)
# and WORK/K/times.tsv (kernel what N seconds, then "kept" for a run collected
# before: its seconds are those of that collect, kept in DB.seconds beside its
# database).  Exits non-zero on a failure.
run_kernel() {
    local k=$1 dir=$WORK/$1 hash sizes largest n s t0 f target mdb m pj mj cgf
    hash=$(build "$k")
    sizes=${SIZES[$k]}
    largest=${sizes##* }
    : >"$dir/manifest.tsv"
    : >"$dir/cachegrind.tsv"
    : >"$dir/times.tsv"

    # training runs
    if fresh "$dir/runs.stamp" "$hash $sizes"; then
        say "[$(elapsed)] $k: training runs kept ($dir/runs.db, N = $sizes)"
        sed 's/$/\tkept/' "$dir/runs.db.seconds" >>"$dir/times.tsv"
    else
        rm -f "$dir/runs.db" "$dir/runs.stamp" "$dir/runs.db.seconds"
        for n in $sizes; do
            s=$(collect "$k" "$dir/$k" "$dir/runs.db" "$n" "$dir/train-N$n.log")
            echo -e "$k\ttrain\t$n\t$s" >>"$dir/runs.db.seconds"
            say "[$(elapsed)] $k: training run N=$n: $s s"
        done
        cat "$dir/runs.db.seconds" >>"$dir/times.tsv"
        echo "$hash $sizes" >"$dir/runs.stamp"
    fi

    # the model, on a copy, so that model sets do not pile up in runs.db
    cp "$dir/runs.db" "$dir/model.db"
    t0=$EPOCHREALTIME
    "$AUGUR" model --db "$dir/model.db" --quiet >"$dir/model.log" 2>&1 ||
        { tail -10 "$dir/model.log" >&2; die "$k: augur model failed (output above, in $dir/model.log)"; }
    s=$(seconds_since "$t0")
    echo -e "$k\tmodel\t-\t$s" >>"$dir/times.tsv"
    say "[$(elapsed)] $k: augur model: $s s"

    for f in $FACTORS; do
        if [ -n "${LARGEST_FACTOR[$k]:-}" ] && [ "$f" -gt "${LARGEST_FACTOR[$k]}" ]; then
            say "[$(elapsed)] $k: ${f}x left out (too slow to collect; at most ${LARGEST_FACTOR[$k]}x)"
            continue
        fi
        target=$((largest * f))
        mdb=$dir/measured-N$target.db
        if fresh "$mdb.stamp" "$hash"; then
            say "[$(elapsed)] $k: measured run N=$target (${f}x) kept ($mdb)"
            sed 's/$/\tkept/' "$mdb.seconds" >>"$dir/times.tsv"
        else
            rm -f "$mdb" "$mdb.stamp" "$mdb.seconds"
            say "[$(elapsed)] $k: measuring N=$target (${f}x) ..."
            s=$(collect "$k" "$dir/$k" "$mdb" "$target" "$dir/measured-N$target.log")
            echo -e "$k\tmeasure\t$target\t$s" | tee "$mdb.seconds" >>"$dir/times.tsv"
            echo "$hash" >"$mdb.stamp"
            say "[$(elapsed)] $k: measured N=$target: $s s"
        fi
        for m in $MACHINES; do
            pj=$dir/predict-$m-N$target.json mj=$dir/measured-$m-N$target.json
            "$AUGUR" predict --db "$dir/model.db" --param N="$target" --machine "$m" --format json --top 0 \
                >"$pj" 2>"$pj.err" || { tail -10 "$pj.err" >&2; die "$k: augur predict at N=$target on $m failed (in $pj.err)"; }
            "$AUGUR" report --db "$mdb" --machine "$m" --format json --top 0 >"$mj" 2>"$mj.err" ||
                { tail -10 "$mj.err" >&2; die "$k: augur report --machine $m of $mdb failed (in $mj.err)"; }
            echo -e "$k\t${f}x\t$target\t$m\t$pj\t$mj" >>"$dir/manifest.tsv"
        done
        say "[$(elapsed)] $k: N=$target predicted and reported on $MACHINES"
        if [ "$CACHEGRIND" = 1 ]; then
            cgf=$dir/cachegrind-N$target.txt
            if fresh "$cgf.stamp" "$hash" && [ -f "$cgf.cg" ]; then
                say "[$(elapsed)] $k: Cachegrind at N=$target kept ($cgf)"
            else
                rm -f "$cgf" "$cgf.stamp" "$cgf.cg"
                t0=$EPOCHREALTIME
                cachegrind "$k" "$target" "$cgf"
                echo "$hash" >"$cgf.stamp"
                say "[$(elapsed)] $k: Cachegrind at N=$target: $(seconds_since "$t0") s"
            fi
            echo -e "$k\t${f}x\t$target\t$(awk '$1 == "D1" { print $2 }' "$cgf")\t$(awk '$1 == "LLd" { print $2 }' "$cgf")\t$dir/measured-zen4-N$target.json\t$dir/predict-zen4-N$target.json\t$cgf.cg" >>"$dir/cachegrind.tsv"
        fi
    done
}

HOST="$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(valgrind --version)"
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
say "$HOST; augur at $COMMIT; work dir $WORK; $JOBS kernel(s) at a time"
declare -A PID
FAILED=
for k in $KERNELS; do
    mkdir -p "$WORK/$k"
    rm -f "$WORK/$k/manifest.tsv"
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
    (run_kernel "$k") &
    PID[$k]=$!
done
for k in $KERNELS; do
    wait "${PID[$k]}" || FAILED="$FAILED $k"
done
MANIFEST=$WORK/manifest.tsv CGROWS=$WORK/cachegrind.tsv TIMES=$WORK/times.tsv
: >"$MANIFEST"
: >"$CGROWS"
: >"$TIMES"
for k in $KERNELS; do
    case " $FAILED " in *" $k "*) continue ;; esac
    cat "$WORK/$k/manifest.tsv" >>"$MANIFEST"
    cat "$WORK/$k/cachegrind.tsv" >>"$CGROWS"
    cat "$WORK/$k/times.tsv" >>"$TIMES"
done
[ -s "$MANIFEST" ] || die "every kernel failed:$FAILED (messages above)"
CACHEGRIND_ROWS=
[ -s "$CGROWS" ] && CACHEGRIND_ROWS=$CGROWS

# ---- native time (--time) ------------------------------------------------------------
# time_target K F T — REPS times: the host calibrated into WORK/K/host-NT-R.yaml,
# the prediction on it (WORK/K/time-NT-R.json), a native run of K at T; one
# line per repetition on stdout: "K F T R predicted wall user sys GHz ns GB/s".
time_target() {
    local k=$1 f=$2 t=$3 r host json times
    for r in $(seq "$REPS"); do
        host=$(calibrate_host "$WORK/$k/host-N$t-$r.yaml" "$TOLERANCE") || return 1
        json=$WORK/$k/time-N$t-$r.json
        "$AUGUR" predict --db "$WORK/$k/model.db" --param N="$t" --machine "$host" --format json --top 0 \
            >"$json" 2>"$json.err" || { tail -10 "$json.err" >&2; die "$k: augur predict at N=$t on $host failed (in $json.err)"; }
        times=$(time_native "$WORK/$k/time.one" "$WORK/$k/$k" "$t") || return 1
        echo "$k $f $t $r $(jq -r .total.time_seconds "$json") $times $(host_summary "$host")"
    done
}

TIMEROWS=
if [ "$TIME" = 1 ]; then
    TIMEROWS=$WORK/time.tsv
    : >"$TIMEROWS"
    while IFS=$'\t' read -r k f t _; do
        say "[$(elapsed)] $k: timing N=$t ($f), $REPS runs, each after a calibration ..."
        time_target "$k" "$f" "$t" >>"$TIMEROWS" || die "$k: timing at N=$t failed (above)"
    done < <(cut -f1-3 "$MANIFEST" | sort -u -k1,1 -k3,3n)
    LOAD_AFTER=$(load_average)
fi

# ---- the report -----------------------------------------------------------------------
report() {
    echo "Command: \`$COMMAND\` (augur $COMMIT; $HOST)."
    echo
    echo "Kernels built with \`gcc/gfortran ${CFLAGS_BENCH[*]}\`; trained at five sizes, predicted with \`augur predict --machine M\`"
    echo "at ${FACTORS// /x and }x the largest, measured with \`augur collect\` there and \`augur report --machine M\`."
    echo "Error = (predicted - measured) / measured. Marks: ✓ / ✗ the prediction's interval (\`misses_range\`,"
    echo "\`instructions_range\`) covers / misses the measured value (no mark: no interval); ! more than 50% off"
    echo "and not covered by an interval; \"† M → P\": a tiny miss count, measured M and predicted P both under 1000 or"
    echo "under 0.1% of the program's memory accesses, left out of the figures. Functions: the top five by measured"
    echo "instructions with at least 1% of the program's. \"n\" counts the predictions a median is over."
    echo
    if [ "$TIME" = 1 ]; then
        echo "Time: CPU $(cpu_model) ($(nproc) CPUs; \`augur machine detect\` took its core from $NEAREST); the host"
        echo "calibrated (\`--quick --measured-capacity${TOLERANCE:+ --tolerance $TOLERANCE}\`) before each of $REPS native runs per target;"
        echo "load average before training: $LOAD_BEFORE; after timing: $LOAD_AFTER. Medians of the $REPS predictions and"
        echo "runs; \"‡\": a native CPU time under 0.1 s (/usr/bin/time counts in 10 ms), not judged."
        echo
    fi
    python3 "$ROOT/bench/accuracy_compare.py" "$MANIFEST" --rows "$WORK/rows.tsv" \
        ${CACHEGRIND_ROWS:+--cachegrind "$CACHEGRIND_ROWS"} ${TIMEROWS:+--time "$TIMEROWS"} || return 1
    echo "### Runs: wall time (s) of \`augur collect\` (\"kept\": collected by an earlier invocation) and \`augur model\`"
    echo
    echo "| kernel | training sizes | training (s) | model (s) | targets | measured (s) |"
    echo "|---|---|---:|---:|---|---:|"
    for k in $KERNELS; do
        awk -F'\t' -v k="$k" -v sizes="${SIZES[$k]}" '
            $1 == k && $2 == "train" { tr += $4; if ($5 == "kept") trk = " (kept)" }
            $1 == k && $2 == "model" { mo = $4 }
            $1 == k && $2 == "measure" { t = t (t ? ", " : "") $3; ms = ms (ms ? ", " : "") $4 ($5 == "kept" ? " (kept)" : "") }
            END { printf "| %s | %s | %.0f%s | %s | %s | %s |\n", k, sizes, tr, trk, mo, t, ms }' "$TIMES"
    done
}

report >"$WORK/report.md" || die "the comparison failed (see above)"
cat "$WORK/report.md"
if [ -n "$MARKDOWN" ]; then
    cp "$WORK/report.md" "$MARKDOWN"
    say "tables written to $MARKDOWN"
fi
say "done in $(elapsed | sed 's/^ *//'); everything is in $WORK (per comparison: $WORK/rows.tsv)"
[ -z "$FAILED" ] || die "failed, left out of the tables:$FAILED (messages above; logs in $WORK/KERNEL/)"
