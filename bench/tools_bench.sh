#!/usr/bin/env bash
# tools_bench.sh — augur's tools side by side with the Valgrind tools users
# compare them with (issue 27 item 5; docs/benchmarks.md "Against the
# Valgrind tools, on 1 and 2 cores").
#
# For each workload (bench/workloads/*.c, built -O2 -g -march=x86-64-v2) it
# runs, REPS times and interleaved so that the machine's noise hits every
# tool alike, on all cores and again pinned to one (`taskset -c 0`):
#   none         valgrind --tool=none                   (the floor of any Valgrind tool)
#   cachegrind   valgrind --tool=cachegrind --cache-sim=yes
#   callgrind    valgrind --tool=callgrind --cache-sim=yes
#   collect-inline  augur collect --analysis inline --db <fresh>.db (run + import;
#                the reuse distances in Valgrind's process)
#   collect-pipe augur collect --analysis pipe ...     (in augur's consumer beside it)
#   memspy       augur memspy --machine M               (the full simulation)
#   memspy0.1    augur memspy --machine M --sample 0.1
# and, when --tools names them (not by default):
#   collect      augur collect --db <fresh>.db          (--analysis auto: pipe on 2+ cores)
#   memspy0.5    augur memspy --machine M --sample 0.5 (set sampling, as 0.1)
#   memspy-time0.1  augur memspy --machine M --sample 0.1 --sample-by time
#   memspy-inline, memspy-pipe, memspy-inline0.1, memspy-pipe0.1
#                augur memspy --analysis inline|pipe [--sample 0.1]: the
#                simulator in Valgrind's process, or in augur's consumer beside it
#   memspy-pipe-tN, memspy-pipe-tN0.1 (N 1-4)
#                augur memspy --analysis pipe --sim-threads N [--sample 0.1]: the
#                consumer's levels below the first on threads of their own, N in all
# and then, once per core setting, `augur model` on three collected sizes
# of the first workload.  It prints the median wall and CPU seconds (user +
# system of the tool and its children, /usr/bin/time) of each, their ratios
# to Cachegrind's (collect), Callgrind's (memspy) and none's (memspy0.1),
# which are the issue's goals, and the ratio of each tool's 1-core wall time
# to its 2-core one: every one of these tools runs the program's threads one
# at a time (Valgrind's big lock), and all but collect-pipe and memspy-pipe do their
# analysis in the program's thread, so what more cores give a
# single-threaded program is what this ratio shows (the projection printed).
#
# usage: bench/tools_bench.sh [--reps N] [--markdown FILE] [--machine M]
#                             [--workloads "dense stencil"] [--tools LIST]
#                             [--cores LIST] [--before DIR] [--no-build]
#   --reps N           runs of each tool per workload and core setting (default 3)
#   --markdown FILE    also write the tables to FILE
#   --machine M        memspy's machine (default zen4)
#   --workloads LIST   which of bench/workloads (default: dense stencil)
#   --tools LIST       which tools (default: the six above); augur model runs
#                      only with the default
#   --cores LIST       core settings (default: all cores, then 1)
#   --before DIR       a build directory of another commit (augur and vglib,
#                      built): each augur tool runs from it too, interleaved,
#                      as TOOL@before, for a side-by-side of two commits
#   --no-build         use what is in $BUILD_DIR
# Environment: BUILD_DIR (default: build), DENSE_ARGS, STENCIL_ARGS, CHASE_ARGS.
# Takes about 25 minutes with the defaults here. Run from anywhere.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/bench_lib.sh"
bench_start tools_bench.sh
MACHINE=zen4
WORKLOADS="dense stencil"
DENSE_ARGS=${DENSE_ARGS:-"300"}         # N: 300 x 300 double matrix multiply, about 10 s under the tools
STENCIL_ARGS=${STENCIL_ARGS:-"1000 10"} # N ITERS: 1000 x 1000 grid, 10 Jacobi sweeps
CHASE_ARGS=${CHASE_ARGS:-"200000 2"}    # NODES LAPS
TOOLS="none cachegrind callgrind collect-inline collect-pipe memspy memspy0.1"
ALL_TOOLS="$TOOLS collect memspy0.5 memspy-time0.1 memspy-inline memspy-pipe memspy-inline0.1 memspy-pipe0.1"
for n in 1 2 3 4; do ALL_TOOLS="$ALL_TOOLS memspy-pipe-t$n memspy-pipe-t${n}0.1"; done
CORES_LIST=
BEFORE=

while [ $# -gt 0 ]; do
    bench_option "$0" "$@"
    [ "$BENCH_TOOK" = 0 ] || { shift "$BENCH_TOOK"; continue; }
    case $1 in
    --machine) [ $# -ge 2 ] || die "--machine needs a name or file"; MACHINE=$2; shift 2 ;;
    --workloads) [ $# -ge 2 ] || die "--workloads needs a list"; WORKLOADS=$2; shift 2 ;;
    --tools) [ $# -ge 2 ] || die "--tools needs a list"; TOOLS=$2; shift 2 ;;
    --cores) [ $# -ge 2 ] || die "--cores needs a list"; CORES_LIST=$2; shift 2 ;;
    --before) [ $# -ge 2 ] || die "--before needs a build directory"; BEFORE=$2; shift 2 ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps '$REPS': give a positive number"
need gcc "apt-get install gcc"
need valgrind "apt-get install valgrind"
need taskset "apt-get install util-linux"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing: apt-get install time"
for t in $TOOLS; do
    [[ " $ALL_TOOLS " == *" $t "* ]] || die "--tools: no tool '$t' (tools: $ALL_TOOLS)"
done
if [ -n "$BEFORE" ]; then
    [ -x "$BEFORE/augur" ] || die "--before '$BEFORE': no built augur there"
    [ -d "$BEFORE/vglib" ] || die "--before '$BEFORE': no vglib there (build the Valgrind tools)"
    BEFORE=$(cd "$BEFORE" && pwd)
fi
for w in $WORKLOADS; do
    [ -f "$ROOT/bench/workloads/$w.c" ] || die "no workload '$w' (bench/workloads: $(ls "$ROOT/bench/workloads" | sed 's/\.c$//' | tr '\n' ' '))"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/augur-tools-bench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
AUGUR=$(augur_built "$ROOT" "$BUILD_DIR" "$DO_BUILD" "$WORK/build.log")
"$AUGUR" machine show "$MACHINE" >/dev/null 2>&1 || die "--machine '$MACHINE': augur machine show does not know it"

# is_augur TOOL — whether TOOL is one of augur's (run from --before too).
is_augur() { case $1 in collect* | memspy*) return 0 ;; *) return 1 ;; esac; }

# tool_command TOOL — the command line of TOOL (TOOL@before: from --before's build).
tool_command() {
    local tool=${1%@before} augur=$AUGUR
    [ "$tool" = "$1" ] || augur=$BEFORE/augur
    local memspy=("$augur" memspy --machine "$MACHINE" --output /dev/null)
    case $tool in
    none) echo valgrind --tool=none ;;
    cachegrind) echo valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null ;;
    callgrind) echo valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file=/dev/null ;;
    collect) echo "$augur" collect --db "$WORK/c.$RANDOM$RANDOM.db" -- ;;
    collect-*) echo "$augur" collect --analysis "${tool#collect-}" --db "$WORK/c.$RANDOM$RANDOM.db" -- ;;
    memspy) echo "${memspy[@]}" -- ;;
    memspy0.1) echo "${memspy[@]}" --sample 0.1 -- ;;
    memspy0.5) echo "${memspy[@]}" --sample 0.5 -- ;;
    memspy-time0.1) echo "${memspy[@]}" --sample 0.1 --sample-by time -- ;;
    memspy-pipe-t?0.1) tool=${tool%0.1} && echo "${memspy[@]}" --analysis pipe --sim-threads "${tool#memspy-pipe-t}" --sample 0.1 -- ;;
    memspy-pipe-t?) echo "${memspy[@]}" --analysis pipe --sim-threads "${tool#memspy-pipe-t}" -- ;;
    memspy-*0.1) tool=${tool%0.1} && echo "${memspy[@]}" --analysis "${tool#memspy-}" --sample 0.1 -- ;;
    memspy-*) echo "${memspy[@]}" --analysis "${tool#memspy-}" -- ;;
    esac
}

# timed CORES TOOL PROGRAM... — one run, pinned to cpu 0 when CORES is 1;
# prints "wall cpu" seconds.  Dies when the tool fails.
timed() {
    local cores=$1 tool=$2 pin=()
    shift 2
    [ "$cores" = 1 ] && pin=(taskset -c 0)
    # shellcheck disable=SC2046 # tool_command's words are the command
    "${pin[@]}" /usr/bin/time -f "%e %U %S" -o "$WORK/time" $(tool_command "$tool") "$@" \
        >"$WORK/out" 2>"$WORK/err" || { tail -5 "$WORK/err" >&2; die "$tool on $*: failed"; }
    rm -f "$WORK"/c.*.db
    awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$WORK/time"
}

# ---- runs ---------------------------------------------------------------------
NPROC=$(nproc)
if [ -z "$CORES_LIST" ]; then
    CORES_LIST="$NPROC 1"
    [ "$NPROC" -ge 2 ] || CORES_LIST=1
fi
RUN_TOOLS=
for t in $TOOLS; do
    RUN_TOOLS="$RUN_TOOLS $t"
    if [ -n "$BEFORE" ] && is_augur "$t"; then RUN_TOOLS="$RUN_TOOLS $t@before"; fi
done
START=$(date -u '+%Y-%m-%d %H:%M')
LOAD_BEFORE=$(load_average)
: >"$WORK/rows" # workload cores tool wall cpu
for w in $WORKLOADS; do
    gcc "${CFLAGS_BENCH[@]}" -o "$WORK/$w" "$ROOT/bench/workloads/$w.c" -lm || die "cannot build $w"
    # shellcheck disable=SC2046
    for rep in $(seq "$REPS"); do
        for cores in $CORES_LIST; do
            for tool in $RUN_TOOLS; do
                say "$w $(args_of "$w"), $cores core(s), $tool, repetition $rep of $REPS"
                # shellcheck disable=SC2046 # the arguments are words
                echo "$w $cores $tool $(timed "$cores" "$tool" "$WORK/$w" $(args_of "$w"))" >>"$WORK/rows"
            done
        done
    done
done

# augur model on three sizes of the first workload's program (dense: N, N+50, N+100).
first=${WORKLOADS%% *}
if [ "$first" = dense ] && [ "$TOOLS" = "none cachegrind callgrind collect-inline collect-pipe memspy memspy0.1" ]; then
    for k in 0 50 100; do
        n=$((DENSE_ARGS + k))
        "$AUGUR" collect --db "$WORK/model.db" --param N="$n" -- "$WORK/dense" "$n" >/dev/null 2>&1 ||
            die "collect of dense $n for augur model failed"
    done
    for rep in $(seq "$REPS"); do
        for cores in $CORES_LIST; do
            pin=()
            [ "$cores" = 1 ] && pin=(taskset -c 0)
            say "augur model, $cores core(s), repetition $rep of $REPS"
            "${pin[@]}" /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$AUGUR" model --db "$WORK/model.db" \
                >/dev/null 2>"$WORK/err" || { tail -5 "$WORK/err" >&2; die "augur model failed"; }
            echo "model $cores model $(awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$WORK/time")" >>"$WORK/rows"
        done
    done
fi

# ---- table --------------------------------------------------------------------
# med W CORES TOOL FIELD — the median of FIELD (4 wall, 5 cpu) of those rows.
med() { awk -v w="$1" -v c="$2" -v t="$3" -v f="$4" '$1 == w && $2 == c && $3 == t { print $f }' "$WORK/rows" | median; }
# sig3 X — X to 3 significant digits (a median of a few runs on a shared host holds no more).
sig3() { awk -v x="$1" 'BEGIN { printf "%.3g", x }'; }
# ratio A B — A / B to 2 significant digits; "-" when either was not measured (0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2g", a / b; else printf "-" }'; }
# base_of TOOL — the Valgrind tool the issue's goal compares TOOL with.
base_of() {
    case ${1%@before} in
    collect*) echo cachegrind ;;
    memspy | memspy-inline | memspy-pipe | memspy-pipe-t?) echo callgrind ;;
    memspy?*) echo none ;;
    *) echo cachegrind ;;
    esac
}
# of_full W CORES TOOL — a sampled memspy's CPU over its own build's full
# memspy's, on its own path (memspy-pipe0.1 over memspy-pipe) ("-" for
# other tools, or when full memspy did not run).
of_full() {
    local full=memspy tool=${3%@before}
    case $tool in memspy-inline0.1 | memspy-pipe0.1 | memspy-pipe-t?0.1) full=${tool%0.1} ;; esac
    [ "$tool" = "$3" ] || full=$full@before
    case ${3%@before} in memspy?*) ratio "$(med "$1" "$2" "$3" 5)" "$(med "$1" "$2" "$full" 5)" ;; *) echo - ;; esac
}
{
    echo "$START UTC; $(cpu_model), $NPROC vCPUs; load average before $LOAD_BEFORE, after $(load_average);"
    echo "augur at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown); memspy --machine $MACHINE;"
    [ -z "$BEFORE" ] || echo "TOOL@before: the build in $BEFORE;"
    echo "medians of $REPS; CPU = user + system of the tool and its children."
    echo
    echo "| workload | cores | tool | wall s | CPU s | wall / goal's base | base | wall 1 core / wall $NPROC cores | CPU / memspy's |"
    echo "|---|---:|---|---:|---:|---:|---|---:|---:|"
    for w in $WORKLOADS; do
        for cores in $CORES_LIST; do
            for tool in $RUN_TOOLS; do
                wall=$(med "$w" "$cores" "$tool" 4) cpu=$(med "$w" "$cores" "$tool" 5) base=$(base_of "$tool")
                scaling=$(ratio "$(med "$w" 1 "$tool" 4)" "$(med "$w" "$NPROC" "$tool" 4)")
                echo "| $w $(args_of "$w") | $cores | $tool | $(sig3 "$wall") | $(sig3 "$cpu") | $(ratio "$wall" "$(med "$w" "$cores" "$base" 4)") | $base | $scaling | $(of_full "$w" "$cores" "$tool") |"
            done
        done
    done
    if grep -q '^model ' "$WORK/rows"; then
        for cores in $CORES_LIST; do
            echo "| augur model, dense at 3 sizes | $cores | model | $(sig3 "$(med model "$cores" model 4)") | $(sig3 "$(med model "$cores" model 5)") | - | - | $(ratio "$(med model 1 model 4)" "$(med model "$NPROC" model 4)") | - |"
        done
    fi
    echo
    echo "Projection for 8 cores: every tool above but collect-pipe and memspy-pipe analyses in the"
    echo "program's own thread, so a single-threaded program's wall time on 8 cores is its wall time on"
    echo "$NPROC (the last column shows what a second core gives).  collect-pipe's consumer runs one"
    echo "engine per block size on a thread of its own once there are cores beyond the program's and"
    echo "one more, so on 8 cores its wall time is at most its $NPROC-core one; memspy-pipe's consumer"
    echo "runs the simulator beside the program's core, its levels below the first on threads of their"
    echo "own (--sim-threads; by default from 3 cores); augur model fits groups on every core"
    echo "(issue 27 item 1)."
} | tee "$WORK/table.md"
[ -z "$MARKDOWN" ] || cp "$WORK/table.md" "$MARKDOWN"
