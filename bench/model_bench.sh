#!/usr/bin/env bash
# model_bench.sh — how well `augur model` + `augur predict` extrapolate from small runs.
#
# The claim under test: fitted over five small, cheap runs of a program, augur's
# models predict the instruction count and the cache misses of a run 4x and 8x
# larger in the problem size N, without running it.
#
# For each kernel (bench/model_kernels/KERNEL.c; each takes N as its only argument):
#   train      a fresh database; `augur collect --param N=v` at the 5 training sizes
#              (small: a second or two each), then `augur model --db DB`
#   predict    `augur predict --db DB --param N=T --cache 32K --cache 1M --cache 32M
#              --format json` for T = 4x and 8x the largest training size
#   measure    `augur collect --param N=T` of the real program at T, in a database of
#              its own, then `augur report --format json` with the same three caches
# and compares, for each target T, the predicted with the measured
#   total.instructions                      guest instructions, exact when measured
#   total.misses["32768:64"], ["1048576:64"], ["33554432:64"]
#                                           misses of fully-associative LRU caches of
#                                           32 KiB, 1 MiB and 32 MiB, 64-byte lines, as
#                                           augur report computes them from the measured
#                                           reuse distances (docs/report.md)
# as the relative error (predicted - measured) / measured, in percent: +10.0 means the
# prediction is 10% too high.  Sizes are chosen so that the training runs mostly fit
# the smaller caches and the targets cross the 1 MiB and mostly the 32 MiB cache.
#
# How to read it: one table row per kernel and target (4x, 8x); then a summary: the
# median and the maximum of |error| over the kernels, per quantity and target.
# The tiny-miss rule: a measured miss count below 1000, or below 0.1% of the run's
# memory accesses (total.accesses), is shown with its error but marked "†" and left
# out of the miss medians and maxima (a prediction of 2000 misses against 1000, or of
# compulsory misses only, says little about the model).  Instruction counts are never
# excluded.  A kernel whose model or prediction fails shows "failed" and is left out
# of the summary; the script then exits with status 1 after printing the tables.
#
# The measured side is expensive (the 8x runs take 10-80 s each under augur) and does
# not depend on the model, so it is kept in WORK/measured/KERNEL-HASH/ (HASH: sha256
# of the kernel binary; a changed kernel or compiler gets new measurements) and reused
# on the next run: after changing the model, rerun and only training and prediction are
# redone.  --fresh forgets it (do that too after a change to what `augur collect`
# measures).  The training databases are always made afresh.
#
# usage: bench/model_bench.sh [--kernels "matmul stencil2d ..."] [--markdown FILE]
#                             [--work DIR] [--fresh] [--no-build]
#        bench/model_bench.sh --speed [--before AUGUR] [--markdown FILE] [--work DIR] [--no-build]
#   --kernels LIST     which kernels (default: matmul stencil2d stencil3d trisolve sort spmv)
#   --markdown FILE    also write the tables to FILE
#   --work DIR         working directory (default: $WORK or /tmp/augur-model-bench);
#                      it keeps the databases, the JSON of every report and prediction
#                      and the logs, in DIR/KERNEL/ and DIR/measured/
#   --fresh            delete the cached measurements first
#   --no-build         do not run cmake; use what is in $BUILD_DIR
#   --speed            instead of the accuracy, the speed of `augur model` itself: two
#                      Fortran programs of the kind `augur model` is slowest on
#                      (bench/model_speed/: ssor3d, an LU-SSOR CFD solver, and sweep3d_sn,
#                      an S_N transport sweep; gfortran -O2), collected at N = SPEED_SIZES
#                      (default 8 10 12 14 16: 1-6 s each under augur) into databases kept
#                      in WORK/speed/ (per binary hash); then `augur model --quiet` on a
#                      copy, 3 times, reporting the median wall and CPU (user + system)
#                      seconds and the reuse-distance groups; with --before, the same for
#                      that augur (e.g. main's build) and whether the two stored the same
#                      rows (scripts/model_rows.sh)
#   --before AUGUR     the augur binary to compare with (--speed only)
# Environment: BUILD_DIR (default: build), WORK, and the training sizes per kernel:
#   MATMUL_SIZES, STENCIL2D_SIZES, STENCIL3D_SIZES, TRISOLVE_SIZES, SORT_SIZES,
#   SPMV_SIZES (five or more values of N, ascending; targets are 4x and 8x the last).
# Takes about 5 minutes the first time on the reference machine (2 vCPUs), most of
# it the 8x collects; about a minute with the measurements cached. Run from anywhere.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
WORK=${WORK:-/tmp/augur-model-bench}
MARKDOWN=
KERNELS="matmul stencil2d stencil3d trisolve sort spmv"
ALL_KERNELS="matmul stencil2d stencil3d trisolve sort spmv"
FRESH=0
DO_BUILD=1
SPEED=0
BEFORE=
SPEED_SIZES=${SPEED_SIZES:-"8 10 12 14 16"}
SPEED_PROGRAMS="ssor3d sweep3d_sn"

# Training sizes of N.  The 8x targets as measured under `augur collect` on the
# reference machine (2 vCPUs under KVM, Xeon 2.1 GHz, Valgrind 3.19; shared and
# noisy), wall time and the data the kernel touches:
#   matmul     N x N doubles, C = A B (ikj)    8x N=1200:   74-111 s,  35 MB
#   stencil2d  N x N, 5-point, 4 sweeps        8x N=6000:       36 s, 576 MB
#   stencil3d  N^3, 7-point, 2 sweeps          8x N=320:     16-18 s, 524 MB
#   trisolve   N x N lower, 4 right-hand sides 8x N=8000:      6-9 s, 512 MB
#   sort       merge sort of N ints            8x N=8000000: 18-22 s,  64 MB
#   spmv       CSR, 5-9 nonzeros/row, 10 reps  8x N=800000:  24-26 s,  93 MB
# The 4x targets take 2-12 s, the training runs 0.3-2 s each.
MATMUL_SIZES=${MATMUL_SIZES:-"30 60 90 120 150"}
STENCIL2D_SIZES=${STENCIL2D_SIZES:-"150 300 450 600 750"}
STENCIL3D_SIZES=${STENCIL3D_SIZES:-"16 22 28 34 40"}
TRISOLVE_SIZES=${TRISOLVE_SIZES:-"200 400 600 800 1000"}
SORT_SIZES=${SORT_SIZES:-"200000 400000 600000 800000 1000000"}
SPMV_SIZES=${SPMV_SIZES:-"20000 40000 60000 80000 100000"}
FACTORS="4 8"

CFLAGS_BENCH=(-O2 -g -march=x86-64-v2)      # never -march=native: Valgrind 3.19 has no AVX-512
CACHE_ARGS=(--cache 32K --cache 1M --cache 32M)
CACHE_KEYS="32768:64 1048576:64 33554432:64"
CACHE_LABELS="32K 1M 32M"
TINY_ABS=1000          # the tiny-miss rule: fewer measured misses than this,
TINY_FRAC=0.001        # or than this fraction of the memory accesses
# Every run uses this build's Valgrind tool.
unset VALGRIND_LIB AUGUR_VALGRIND_LIB

die() {
    echo "model_bench: $*" >&2
    exit 1
}
say() { echo "model_bench: $*" >&2; }

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case $1 in
    --kernels) [ $# -ge 2 ] || die "--kernels needs a list"; KERNELS=$2; shift 2 ;;
    --markdown) [ $# -ge 2 ] || die "--markdown needs a file"; MARKDOWN=$2; shift 2 ;;
    --work) [ $# -ge 2 ] || die "--work needs a directory"; WORK=$2; shift 2 ;;
    --fresh) FRESH=1; shift ;;
    --no-build) DO_BUILD=0; shift ;;
    --speed) SPEED=1; shift ;;
    --before) [ $# -ge 2 ] || die "--before needs an augur binary"; BEFORE=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done
[ -n "${KERNELS// /}" ] || die "--kernels: the list is empty"
for k in $KERNELS; do
    case " $ALL_KERNELS " in *" $k "*) ;; *) die "unknown kernel '$k' (one of: $ALL_KERNELS)" ;; esac
done

sizes_of() {
    local var
    var=$(echo "$1" | tr '[:lower:]' '[:upper:]')_SIZES
    echo "${!var}"
}
source "$ROOT/bench/bench_lib.sh" # need, check_sizes, build_augur, collect, clocks
for k in $KERNELS; do
    check_sizes "$k" "$(sizes_of "$k")"
done

# ---- tools ---------------------------------------------------------------------
need gcc "apt-get install gcc"
need valgrind "apt-get install valgrind"
need jq "apt-get install jq"
need awk "apt-get install gawk"
need sha256sum "apt-get install coreutils"

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
AUGUR=$(augur_built "$ROOT" "$BUILD_DIR" "$DO_BUILD" "$WORK/build.log")
for cmd in model predict; do
    "$AUGUR" "$cmd" --help >/dev/null 2>&1 || die "$AUGUR has no '$cmd' command ($AUGUR $cmd --help fails): build a version with models"
done

# ---- --speed: the time `augur model` takes -------------------------------------------
# speed_db PROG — WORK/speed/PROG-HASH.db: the runs of bench/model_speed/PROG.f90 at
# SPEED_SIZES and its structure, collected once per binary; prints its path.
speed_db() {
    local p=$1 dir=$WORK/speed bin hash db n
    mkdir -p "$dir"
    bin=$dir/$p
    gfortran "${CFLAGS_BENCH[@]}" -o "$bin" "$ROOT/bench/model_speed/$p.f90" || die "cannot compile bench/model_speed/$p.f90"
    hash=$(sha256sum <"$bin" | cut -c1-16)
    db=$dir/$p-$hash.db
    if [ ! -s "$db.done" ]; then
        rm -f "$db"
        for n in $SPEED_SIZES; do
            "$AUGUR" collect --db "$db" --param N="$n" -- "$bin" "$n" >"$dir/$p-N$n.log" 2>&1 ||
                die "$p: augur collect at N=$n failed (see $dir/$p-N$n.log)"
        done
        "$AUGUR" structure --db "$db" "$bin" >/dev/null || die "$p: augur structure failed"
        echo "$SPEED_SIZES" >"$db.done"
    fi
    echo "$db"
}

# time_model AUGUR DB OUT — `AUGUR model --quiet` on a copy of DB (OUT.db), 3 times;
# prints "median-wall median-cpu groups" and leaves OUT.rows (the last set's rows).
time_model() {
    local augur=$1 db=$2 out=$3 i t
    : >"$out.times"
    for i in 1 2 3; do
        cp "$db" "$out.db"
        /usr/bin/time -f "%e %U %S" -o "$out.t" "$augur" model --db "$out.db" --quiet >"$out.log" 2>&1 ||
            die "$augur model failed on $db (see $out.log)"
        awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$out.t" >>"$out.times"
    done
    bash "$ROOT/scripts/model_rows.sh" "$out.db" >"$out.rows"
    t=$(sort -n -k1,1 "$out.times" | sed -n 2p | cut -d' ' -f1)
    echo "$t $(sort -n -k2,2 "$out.times" | sed -n 2p | cut -d' ' -f2) $(sqlite3 "$out.db" "SELECT count(*) FROM rd_groups")"
}

speed_bench() {
    need gfortran "apt-get install gfortran"
    need sqlite3 "apt-get install sqlite3"
    [ -z "$BEFORE" ] || [ -x "$BEFORE" ] || die "--before: $BEFORE is not an executable"
    local cpu p db a b same rows
    cpu=$(lscpu | awk -F: '/^Model name/ { sub(/^ +/, "", $2); print $2; exit }')
    say "augur model speed: $(nproc) cores ($cpu), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    rows="| program | runs (N) | reuse-distance groups |"
    [ -n "$BEFORE" ] && rows="$rows before: wall s | before: CPU s |"
    rows="$rows after: wall s | after: CPU s |"
    [ -n "$BEFORE" ] && rows="$rows wall speed-up | same rows |"
    {
        echo "$(date -u +%Y-%m-%d), $(nproc) cores ($cpu), load average at the start $(cut -d' ' -f1-3 /proc/loadavg);"
        echo "\`augur model --quiet\` (default --jobs: $(nproc)), median of 3 runs; after: $("$AUGUR" --version 2>/dev/null | head -1)."
        echo
        echo "$rows"
        echo "$rows" | sed 's/[^|]*|/---|/g; s/^---|/|/'
    } >"$WORK/speed.md"
    for p in $SPEED_PROGRAMS; do
        db=$(speed_db "$p")
        a=$(time_model "$AUGUR" "$db" "$WORK/speed/after-$p")
        say "$p: after: wall, CPU, groups: $a"
        line="| $p | 5 ($(echo $SPEED_SIZES | tr ' ' ',')) | ${a##* } |"
        if [ -n "$BEFORE" ]; then
            b=$(time_model "$BEFORE" "$db" "$WORK/speed/before-$p")
            say "$p: before: wall, CPU, groups: $b"
            cmp -s "$WORK/speed/before-$p.rows" "$WORK/speed/after-$p.rows" && same=yes || same=NO
            line="$line $(echo "$b" | cut -d' ' -f1) | $(echo "$b" | cut -d' ' -f2) |"
        fi
        line="$line $(echo "$a" | cut -d' ' -f1) | $(echo "$a" | cut -d' ' -f2) |"
        [ -n "$BEFORE" ] && line="$line $(awk -v b="${b%% *}" -v a="${a%% *}" 'BEGIN { printf "%.1fx", b / a }') | $same |"
        echo "$line" >>"$WORK/speed.md"
    done
    cat "$WORK/speed.md"
    [ -z "$MARKDOWN" ] || cp "$WORK/speed.md" "$MARKDOWN"
    grep -q '| NO |' "$WORK/speed.md" && { say "the stored rows differ between $BEFORE and $AUGUR"; return 1; }
    return 0
}

if [ "$SPEED" = 1 ]; then
    speed_bench
    exit $?
fi

if [ "$FRESH" = 1 ]; then
    say "--fresh: forgetting the cached measurements in $WORK/measured"
    rm -rf "$WORK/measured"
fi

start_clock

# values JSON: "instructions accesses misses32K misses1M misses32M" ("-" when absent)
values() {
    jq -r --arg keys "$CACHE_KEYS" '
        def num: if type == "number" then . else "-" end;
        [(.total.instructions | num), (.total.accesses | num)]
        + [($keys | split(" "))[] as $k | (.total.misses[$k] | num)] | map(tostring) | join(" ")' "$1"
}

# ---- the runs ------------------------------------------------------------------------
RESULTS=$WORK/results.txt   # kernel factor ntrain ntarget collect_s status meas(5) pred(5)
: >"$RESULTS"
FAILED=0
MACHINE="$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(valgrind --version), $("$AUGUR" --version 2>/dev/null | head -1 || true)"
say "$MACHINE; work dir $WORK"
for k in $KERNELS; do
    src=$ROOT/bench/model_kernels/$k.c
    [ -f "$src" ] || die "missing kernel source $src"
    kdir=$WORK/$k
    rm -rf "$kdir"
    mkdir -p "$kdir"
    gcc "${CFLAGS_BENCH[@]}" -o "$kdir/$k" "$src" || die "cannot compile $src"
    hash=$(sha256sum <"$kdir/$k" | cut -c1-16)
    mdir=$WORK/measured/$k-$hash
    mkdir -p "$mdir"
    cp "$kdir/$k" "$mdir/$k"        # the measured runs use this copy, so their paths stay put
    sizes=$(sizes_of "$k")
    largest=${sizes##* }
    ntrain=$(echo "$sizes" | awk '{ print $1 "–" $NF }')

    # training
    db=$kdir/train.db
    i=0
    for n in $sizes; do
        i=$((i + 1))
        s=$(collect "$k" "$kdir/$k" "$db" "$n" "$kdir/train-N$n.log")
        say "[$(elapsed)] $k: training run $i/$(echo "$sizes" | wc -w), N=$n: $s s"
    done
    model_ok=1
    t0=$EPOCHREALTIME
    if "$AUGUR" model --db "$db" >"$kdir/model.out" 2>"$kdir/model.err"; then
        say "[$(elapsed)] $k: augur model: $(seconds_since "$t0") s (output in $kdir/model.out)"
    else
        model_ok=0
        say "[$(elapsed)] $k: augur model FAILED (exit $?):"
        tail -10 "$kdir/model.err" >&2
    fi

    for f in $FACTORS; do
        target=$((largest * f))
        # predicted
        pred="- - - - -" status=ok
        if [ "$model_ok" = 1 ]; then
            t0=$EPOCHREALTIME
            if "$AUGUR" predict --db "$db" --param N="$target" "${CACHE_ARGS[@]}" --format json \
                >"$kdir/predict-N$target.json" 2>"$kdir/predict-N$target.err" &&
                pred=$(values "$kdir/predict-N$target.json" 2>>"$kdir/predict-N$target.err"); then
                say "[$(elapsed)] $k: augur predict N=$target (${f}x): $(seconds_since "$t0") s"
            else
                status=failed pred="- - - - -"
                say "[$(elapsed)] $k: augur predict N=$target FAILED:"
                tail -10 "$kdir/predict-N$target.err" >&2
            fi
        else
            status=failed
        fi
        [ "$status" = ok ] || FAILED=1
        # measured (cached per kernel binary)
        mjson=$mdir/N$target.json
        if [ -s "$mjson" ] && [ -s "$mdir/N$target.seconds" ]; then
            secs=$(cat "$mdir/N$target.seconds")
            say "[$(elapsed)] $k: measured N=$target (${f}x): cached ($mjson; the collect took $secs s)"
        else
            say "[$(elapsed)] $k: measuring N=$target (${f}x) with augur collect ..."
            rm -f "$mdir/N$target.db" "$mjson" "$mdir/N$target.seconds"
            secs=$(collect "$k" "$mdir/$k" "$mdir/N$target.db" "$target" "$mdir/N$target.log")
            "$AUGUR" report --db "$mdir/N$target.db" "${CACHE_ARGS[@]}" --format json --top 0 >"$mjson.tmp" ||
                die "$k: augur report of $mdir/N$target.db failed"
            mv "$mjson.tmp" "$mjson"
            echo "$secs" >"$mdir/N$target.seconds"
            say "[$(elapsed)] $k: measured N=$target (${f}x): collect $secs s"
        fi
        meas=$(values "$mjson")
        echo "$k ${f}x $ntrain $target $secs $status $meas $pred" >>"$RESULTS"
    done
done

# ---- the report ------------------------------------------------------------------------
# RESULTS fields: 1 kernel, 2 factor, 3 ntrain, 4 ntarget, 5 collect s, 6 status,
# 7-11 measured (instructions, accesses, misses x3), 12-16 predicted (the same).
report() {
    echo "$MACHINE"
    echo
    echo "Training: runs of each kernel at small N (\`augur collect --param N=...\`; \"N train\": smallest–largest), then \`augur model\`;"
    echo "targets 4x and 8x the largest training N, predicted (\`augur predict\`) and measured (\`augur collect\` +"
    echo "\`augur report\`). Kernels built with \`gcc ${CFLAGS_BENCH[*]}\`. Misses: fully-associative LRU, 64-byte lines."
    echo "Error = (predicted - measured) / measured. † = tiny measured miss count (< $TINY_ABS or < $(awk -v f=$TINY_FRAC 'BEGIN { print f * 100 }')% of"
    echo "the memory accesses): shown, but left out of the summary."
    echo
    awk -v labels="$CACHE_LABELS" -v tabs="$TINY_ABS" -v tfrac="$TINY_FRAC" '
        function err(p, m) { if (p == "-" || m == "-" || m == 0) return "-"; return sprintf("%+.1f", (p - m) / m * 100) }
        function big(x) { return x == "-" ? "-" : sprintf("%.0f", x) }
        BEGIN {
            nc = split(labels, lab, " ")
            printf "| kernel | N train | N target | instructions measured | predicted | error %% |"
            for (c = 1; c <= nc; c++) printf " %s misses measured | predicted | error %% |", lab[c]
            printf "\n|---|---|---:|---:|---:|---:|"
            for (c = 1; c <= nc; c++) printf "---:|---:|---:|"
            printf "\n"
        }
        {
            failed = $6 != "ok"
            printf "| %s | %s | %s (%s) | %s | %s | %s |", $1, $3, $4, $2, big($7), failed ? "failed" : big($12), failed ? "-" : err($12, $7)
            for (c = 1; c <= nc; c++) {
                m = $(8 + c); p = $(13 + c)
                tiny = (m != "-" && (m < tabs || m < tfrac * $8)) ? " †" : ""
                printf " %s%s | %s | %s |", big(m), tiny, failed ? "failed" : big(p), failed ? "-" : err(p, m) tiny
            }
            printf "\n"
        }' "$RESULTS"
    echo
    echo "### Summary: |error| over the kernels, in percent"
    echo
    awk -v labels="$CACHE_LABELS" -v factors="$FACTORS" -v tabs="$TINY_ABS" -v tfrac="$TINY_FRAC" '
        function add(key, p, m) { if (p == "-" || m == "-" || m == 0) return; e = (p - m) / m * 100; if (e < 0) e = -e; v[key, ++n[key]] = e }
        function med(key,   i, j, t, c) {
            c = n[key]; if (!c) return "-"
            for (i = 1; i <= c; i++) s[i] = v[key, i]
            for (i = 2; i <= c; i++) { t = s[i]; for (j = i - 1; j >= 1 && s[j] > t; j--) s[j + 1] = s[j]; s[j + 1] = t }
            return sprintf("%.1f", c % 2 ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2)
        }
        function max(key,   i, x) { if (!n[key]) return "-"; x = 0; for (i = 1; i <= n[key]; i++) if (v[key, i] > x) x = v[key, i]; return sprintf("%.1f", x) }
        $6 == "ok" {
            f = $2; total[f]++
            add("ins" SUBSEP f, $12, $7)
            for (c = 1; c <= 3; c++) {
                m = $(8 + c)
                if (m != "-" && !(m < tabs || m < tfrac * $8)) add("m" c SUBSEP f, $(13 + c), m)
            }
        }
        { all[$2]++ }
        END {
            nf = split(factors, fs, " "); nc = split(labels, lab, " ")
            printf "| quantity |"
            for (i = 1; i <= nf; i++) printf " %sx median | %sx max | %sx kernels |", fs[i], fs[i], fs[i]
            printf "\n|---|"
            for (i = 1; i <= nf; i++) printf "---:|---:|---:|"
            printf "\n"
            for (q = 0; q <= nc; q++) {
                printf "| %s |", q ? lab[q] " misses" : "instructions"
                for (i = 1; i <= nf; i++) {
                    key = (q ? "m" q : "ins") SUBSEP fs[i] "x"
                    printf " %s | %s | %d of %d |", med(key), max(key), n[key], all[fs[i] "x"]
                }
                printf "\n"
            }
        }' "$RESULTS"
    echo
    echo "\"kernels\": how many kernels the median and maximum are over (of all that ran; failed predictions"
    echo "and † miss counts are left out)."
    echo
    echo "Measured runs (\`augur collect\` wall time; cached ones show the time of their original run):"
    echo
    echo "| kernel | target | N | collect (s) | instructions | memory accesses |"
    echo "|---|---|---:|---:|---:|---:|"
    awk '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $4, $5, $7, $8 }' "$RESULTS"
}

report | tee "$WORK/report.md"
if [ -n "$MARKDOWN" ]; then
    cp "$WORK/report.md" "$MARKDOWN"
    say "tables written to $MARKDOWN"
fi
say "done in $(elapsed | sed 's/^ *//'); everything is in $WORK"
if [ "$FAILED" = 1 ]; then
    say "some models or predictions failed (marked 'failed' above; their logs are in $WORK/KERNEL/)"
    exit 1
fi
