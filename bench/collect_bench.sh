#!/usr/bin/env bash
# collect_bench.sh — speed and memory of `augur collect` against Cachegrind and native.
#
# The claim under test: augur gives exact instruction counts and exact
# reuse-distance histograms at two block sizes (64 B and 4 KiB) in at most the
# time Cachegrind takes to simulate two cache levels
# (valgrind --tool=cachegrind --cache-sim=yes).
#
# For each workload (bench/workloads/*.c, sized to about one second natively)
# it runs, REPS times and interleaved so that machine noise hits every tool alike:
#   native       the program alone
#   cachegrind   valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null
#   augur        build/augur collect --db <fresh>.db -- program   (run + import)
# and reports the median wall time and peak RSS (GNU time: "%e %M") of each,
# and the ratios augur/cachegrind and each/native, as a markdown table.
#
# For the breakdown workload (default: dense) it also runs
#   valgrind --tool=none                      Valgrind's own cost (JIT, dispatch)
#   augur tool --augur-block-sizes=1073741824 instrumentation, inline counters and
#                                             the fast-path test; one 1-GiB block, so
#                                             the reuse-distance engine (almost) never runs
#   augur tool --augur-block-sizes=64         + the engine at 64 B
#   augur tool --augur-block-sizes=64,4096    + the engine at 4 KiB (what collect runs)
# (the raw tool: VALGRIND_LIB=build/vglib valgrind --tool=augur --augur-out=DIR ...);
# `augur collect` minus the last one is the import into SQLite; the script also
# times it directly (program's last output line -> augur's "run N stored" line).
#
# usage: bench/collect_bench.sh [--reps N] [--markdown FILE] [--workloads "dense stencil chase"]
#                               [--breakdown WORKLOAD|none] [--raw-only] [--no-build]
#   --reps N           runs of each tool per workload (default: $REPS or 3); medians are reported
#   --markdown FILE    also write the tables to FILE
#   --workloads LIST   which workloads (default: all three)
#   --breakdown W      workload for the time breakdown (default: dense; "none" skips it)
#   --raw-only         if build/augur is not available: use the raw tool (64,4096) as "augur"
#   --no-build         do not run cmake; use what is in $BUILD_DIR
# Environment: BUILD_DIR (default: build), DENSE_ARGS, STENCIL_ARGS, CHASE_ARGS (the sizes).
# Takes about 30 minutes with the defaults on the reference machine (docs/benchmarks.md). Run from anywhere.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/bench_lib.sh"
bench_start collect_bench
WORKLOADS="dense stencil chase"
BREAKDOWN=dense
RAW_ONLY=0

# Default sizes: about one second each natively on the reference machine
# (docs/benchmarks.md); override with the environment variables.
DENSE_ARGS=${DENSE_ARGS:-"1200"}            # N: 1200 x 1200 double matrix multiply
STENCIL_ARGS=${STENCIL_ARGS:-"3000 60"}     # N ITERS: 3000 x 3000 grid, 60 Jacobi sweeps
CHASE_ARGS=${CHASE_ARGS:-"1700000 4"}       # NODES LAPS: 1.7 M 32-byte nodes, 4 laps

GIB_BLOCK=1073741824

while [ $# -gt 0 ]; do
    bench_option "$0" "$@"
    [ "$BENCH_TOOK" = 0 ] || { shift "$BENCH_TOOK"; continue; }
    case $1 in
    --workloads) [ $# -ge 2 ] || die "--workloads needs a list"; WORKLOADS=$2; shift 2 ;;
    --breakdown) [ $# -ge 2 ] || die "--breakdown needs a workload or none"; BREAKDOWN=$2; shift 2 ;;
    --raw-only) RAW_ONLY=1; shift ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer, not '$REPS'"
for w in $WORKLOADS; do
    case $w in dense | stencil | chase) ;; *) die "unknown workload '$w' (dense, stencil, chase)" ;; esac
done
case " $WORKLOADS none " in *" $BREAKDOWN "*) ;; *) die "--breakdown '$BREAKDOWN' is not one of the workloads run ($WORKLOADS) or none" ;; esac

# ---- temporaries -----------------------------------------------------------------
TMP=$(mktemp -d "${TMPDIR:-/tmp}/collect_bench.XXXXXX")
cleanup() { rm -rf "$TMP"; }
trap cleanup EXIT
trap 'echo "collect_bench: interrupted" >&2; exit 130' INT TERM
RESULTS=$TMP/results   # lines: workload config rep seconds kib [tail_seconds]

# ---- tools ---------------------------------------------------------------------
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is missing: $2"; }
need gcc "apt-get install gcc"
need valgrind "apt-get install valgrind"
need awk "apt-get install gawk"
need sort "apt-get install coreutils"
if ! [ -x /usr/bin/time ] || ! /usr/bin/time --version 2>&1 | grep -q GNU; then
    die "GNU time (/usr/bin/time) is missing: apt-get install time"
fi
valgrind --tool=cachegrind --help >/dev/null 2>&1 || die "valgrind has no cachegrind tool"
valgrind --tool=none --help >/dev/null 2>&1 || die "valgrind has no 'none' tool"

if [ "$DO_BUILD" = 1 ]; then
    need cmake "apt-get install cmake"
    echo "collect_bench: building augur in $BUILD_DIR" >&2
    cmake -S "$ROOT" -B "$BUILD_DIR" >"$TMP/build.log" 2>&1 ||
        { tail -30 "$TMP/build.log" >&2; die "cmake could not configure $BUILD_DIR (output above)"; }
    if ! cmake --build "$BUILD_DIR" -j2 >"$TMP/build.log" 2>&1; then
        if [ "$RAW_ONLY" = 1 ]; then
            echo "collect_bench: the full build failed; --raw-only: building the Valgrind tool alone" >&2
            cmake --build "$BUILD_DIR" -j2 --target augur_tool >"$TMP/build.log" 2>&1 ||
                { tail -30 "$TMP/build.log" >&2; die "the Valgrind tool (target augur_tool) does not build (output above)"; }
        else
            grep -E 'error|Error' "$TMP/build.log" | head -30 >&2
            die "the augur build failed (errors above; cmake --build $BUILD_DIR for all of it); fix it, or run with --raw-only to benchmark the Valgrind tool alone"
        fi
    fi
fi
VGLIB=$BUILD_DIR/vglib
AUGUR=$BUILD_DIR/augur
[ -x "$VGLIB/augur-amd64-linux" ] || die "the augur Valgrind tool $VGLIB/augur-amd64-linux is not built (cmake --build $BUILD_DIR --target augur_tool)"
if [ "$RAW_ONLY" = 0 ]; then
    [ -x "$AUGUR" ] || die "$AUGUR is not built (cmake --build $BUILD_DIR), or use --raw-only"
fi

# ---- workloads -------------------------------------------------------------------
BENCH_BIN=$BUILD_DIR/bench
mkdir -p "$BENCH_BIN"
for w in dense stencil chase; do
    src=$ROOT/bench/workloads/$w.c
    [ -f "$src" ] || die "missing workload source $src"
    if [ ! -x "$BENCH_BIN/$w" ] || [ "$src" -nt "$BENCH_BIN/$w" ] || [ "${BASH_SOURCE[0]}" -nt "$BENCH_BIN/$w" ]; then
        gcc "${CFLAGS_BENCH[@]}" -o "$BENCH_BIN/$w" "$src" || die "cannot compile $src"
    fi
done

# ---- one measured run ------------------------------------------------------------
# measure WORKLOAD CONFIG REP -- COMMAND...
# Runs COMMAND under GNU time with stdout+stderr time-stamped into a log, checks
# its exit status and that it printed the same checksum line as the native run,
# and appends "WORKLOAD CONFIG REP SECONDS KIB TAIL" to $RESULTS, where TAIL is
# the time from the program's checksum line to augur's "stored" line (augur
# collect only; the profile write, Valgrind exit, profile read and import).
measure() {
    local w=$1 config=$2 rep=$3
    shift 4
    local log=$TMP/run.log tf=$TMP/time.out rc=0
    set +e
    # The time stamper runs on the other core; lines are stamped as they arrive
    # (the program's stdout is flushed at its exit, augur's stderr at once).
    { /usr/bin/time -o "$tf" -f "%e %M" "$@" 2>&1; echo "__rc $?"; } |
        while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >"$log"
    set -e
    rc=$(awk '$2 == "__rc" { print $3 }' "$log")
    if [ "$rc" != 0 ]; then
        echo "collect_bench: $w / $config failed (exit status $rc): $*" >&2
        grep -v __rc "$log" | cut -d' ' -f2- | tail -30 >&2
        exit 1
    fi
    local out
    out=$(awk -v w="$w" '$2 == w { $1 = ""; print substr($0, 2) }' "$log")
    if [ "$config" = native ]; then
        echo "$out" >"$TMP/expected.$w"
    elif [ "$out" != "$(cat "$TMP/expected.$w")" ]; then
        echo "collect_bench: $w / $config printed '$out', natively '$(cat "$TMP/expected.$w")'" >&2
        exit 1
    fi
    local secs kib tail=-
    read -r secs kib < <(tail -1 "$tf")
    [[ $secs =~ ^[0-9.]+$ && $kib =~ ^[0-9]+$ ]] || die "cannot read GNU time's output: $(cat "$tf")"
    if [ "$config" = augur ] && [ "$RAW_ONLY" = 0 ]; then
        tail=$(awk -v w="$w" '$2 == w { t0 = $1 } $2 == "augur:" && $3 == "run" { t1 = $1 }
                         END { if (t0 && t1) printf "%.2f", t1 - t0; else print "-" }' "$log")
        # total instructions and accesses, from "augur: run N stored ...: 1 process, X instructions, Y memory accesses"
        awk '$2 == "augur:" && $3 == "run" { for (i = 1; i <= NF; i++) { if ($i ~ /^instructions/) ins = $(i-1); if ($i == "memory") acc = $(i-1) }
                                            print ins, acc }' "$log" >"$TMP/counts.$w"
    fi
    echo "$w $config $rep $secs $kib $tail" >>"$RESULTS"
    printf 'collect_bench: [%s/%s] %-8s %-14s %8.2f s %8.1f MiB%s\n' "$rep" "$REPS" "$w" "$config" "$secs" \
        "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$([ "$tail" = - ] || echo "  (after the program: $tail s)")" >&2
}

# tool_command CONFIG PROGRAM ARGS...: set CMD to the command line of one run
# (no shell function in between, so GNU time measures the tool itself), after
# clearing the raw profile folder and the database a run writes.
tool_command() {
    local config=$1
    shift
    rm -rf "$TMP/prof" "$TMP/run.db"
    mkdir -p "$TMP/prof"
    case $config in
    native) CMD=("$@") ;;
    cachegrind) CMD=(valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null "$@") ;;
    none) CMD=(valgrind --tool=none "$@") ;;
    tool-1g | tool-64 | tool-64-4096 | augur-raw)
        local sizes
        case $config in tool-1g) sizes=$GIB_BLOCK ;; tool-64) sizes=64 ;; *) sizes=64,4096 ;; esac
        CMD=(env VALGRIND_LIB="$VGLIB" valgrind --tool=augur --augur-out="$TMP/prof" --augur-block-sizes="$sizes" "$@") ;;
    augur) CMD=("$AUGUR" collect --db "$TMP/run.db" -- "$@") ;;
    esac
}

# ---- the runs ----------------------------------------------------------------------
echo "collect_bench: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(valgrind --version)" >&2
for w in $WORKLOADS; do echo "collect_bench: $w $(args_of "$w")" >&2; done
echo "collect_bench: $REPS repetitions, breakdown workload: $BREAKDOWN" >&2

for rep in $(seq 1 "$REPS"); do
    for w in $WORKLOADS; do
        configs="native cachegrind augur"
        [ "$w" = "$BREAKDOWN" ] && configs="$configs none tool-1g tool-64 tool-64-4096"
        for config in $configs; do
            [ "$RAW_ONLY" = 1 ] && [ "$config" = augur ] && [ "$w" = "$BREAKDOWN" ] && continue # = tool-64-4096
            run_config=$config
            [ "$RAW_ONLY" = 1 ] && [ "$config" = augur ] && run_config=augur-raw
            # shellcheck disable=SC2046
            tool_command "$run_config" "$BENCH_BIN/$w" $(args_of "$w")
            measure "$w" "$config" "$rep" -- "${CMD[@]}"
        done
    done
done
if [ "$RAW_ONLY" = 1 ] && [ "$BREAKDOWN" != none ]; then # its "augur" runs are the tool-64-4096 runs
    awk -v b="$BREAKDOWN" '$1 == b && $2 == "tool-64-4096" { $2 = "augur"; print }' "$RESULTS" >"$TMP/copies"
    cat "$TMP/copies" >>"$RESULTS"
fi

# ---- the report ----------------------------------------------------------------------
# median W CONFIG FIELD (4: seconds, 5: KiB, 6: tail seconds) -> number or "-"
median() {
    awk -v w="$1" -v c="$2" -v f="$3" '$1 == w && $2 == c && $f != "-" { print $f }' "$RESULTS" | sort -g |
        awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
fmt() { awk -v x="$1" -v d="${2:-2}" 'BEGIN { if (x == "-") print "-"; else printf "%.*f", d, x }'; }
mib() { awk -v x="$1" 'BEGIN { if (x == "-") print "-"; else printf "%.0f", x / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" -v u="${4:-}" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.*f%s", d, a / b, u }'; }

AUGUR_LABEL="augur collect"
[ "$RAW_ONLY" = 1 ] && AUGUR_LABEL="augur tool (raw, 64+4096; no import)"
report() {
    echo "Median of $REPS runs each, interleaved; wall time from GNU time (\`%e\`), peak RSS (\`%M\`) in MiB."
    echo "Workloads built with \`gcc ${CFLAGS_BENCH[*]}\`. \"augur\" is \`$AUGUR_LABEL\` (64 B and 4 KiB histograms)."
    echo
    echo "### Time (seconds)"
    echo
    echo "| workload | args | native | cachegrind | augur | cachegrind / native | augur / native | **augur / cachegrind** | augur after the program ends |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    for w in $WORKLOADS; do
        local n c a t
        n=$(median "$w" native 4) c=$(median "$w" cachegrind 4) a=$(median "$w" augur 4) t=$(median "$w" augur 6)
        echo "| $w | \`$(args_of "$w")\` | $(fmt "$n") | $(fmt "$c" 1) | $(fmt "$a" 1) | $(ratio "$c" "$n" 1 ×) | $(ratio "$a" "$n" 1 ×) | **$(ratio "$a" "$c" 2 ×)** | $(fmt "$t") |"
    done
    echo
    echo "### Peak memory (RSS, MiB)"
    echo
    echo "| workload | native | cachegrind | augur | cachegrind / native | augur / native | **augur / cachegrind** |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for w in $WORKLOADS; do
        local n c a
        n=$(median "$w" native 5) c=$(median "$w" cachegrind 5) a=$(median "$w" augur 5)
        echo "| $w | $(mib "$n") | $(mib "$c") | $(mib "$a") | $(ratio "$c" "$n" 1 ×) | $(ratio "$a" "$n" 1 ×) | **$(ratio "$a" "$c" 2 ×)** |"
    done
    if [ "$RAW_ONLY" = 0 ] && ls "$TMP"/counts.* >/dev/null 2>&1; then
        echo
        echo "### Work per run (from augur's summary line)"
        echo
        echo "| workload | guest instructions | memory accesses | augur ns / instruction | cachegrind ns / instruction |"
        echo "|---|---:|---:|---:|---:|"
        for w in $WORKLOADS; do
            [ -s "$TMP/counts.$w" ] || continue
            local ins acc
            read -r ins acc <"$TMP/counts.$w"
            echo "| $w | $ins | $acc | $(awk -v a="$(median "$w" augur 4)" -v i="$ins" 'BEGIN { printf "%.1f", a * 1e9 / i }') | $(awk -v a="$(median "$w" cachegrind 4)" -v i="$ins" 'BEGIN { printf "%.1f", a * 1e9 / i }') |"
        done
    fi
    if [ "$BREAKDOWN" != none ]; then
        local w=$BREAKDOWN prev=- n
        n=$(median "$w" native 4)
        echo
        echo "### Where augur's time goes: $w \`$(args_of "$w")\`"
        echo
        echo "| configuration | time (s) | × native | added by this step (s) | peak RSS (MiB) |"
        echo "|---|---:|---:|---:|---:|"
        local rows="native|native
none|\`valgrind --tool=none\` (Valgrind's JIT and dispatch)
tool-1g|augur tool, one 1-GiB block (inline counters + fast-path test; engine almost never called)
tool-64|augur tool, \`--augur-block-sizes=64\` (+ reuse-distance engine at 64 B)
tool-64-4096|augur tool, \`--augur-block-sizes=64,4096\` (+ engine at 4 KiB)"
        [ "$RAW_ONLY" = 0 ] && rows="$rows
augur|\`augur collect\` end to end (+ profile read and SQLite import)"
        while IFS='|' read -r config label; do
            local s k
            s=$(median "$w" "$config" 4) k=$(median "$w" "$config" 5)
            local added=-
            [ "$prev" != - ] && added=$(awk -v a="$s" -v b="$prev" 'BEGIN { printf "%+.1f", a - b }')
            echo "| $label | $(fmt "$s" 1) | $(ratio "$s" "$n" 1) | $added | $(mib "$k") |"
            prev=$s
        done <<<"$rows"
        echo "| *for comparison:* \`valgrind --tool=cachegrind --cache-sim=yes\` | $(fmt "$(median "$w" cachegrind 4)" 1) | $(ratio "$(median "$w" cachegrind 4)" "$n" 1) | | $(mib "$(median "$w" cachegrind 5)") |"
        if [ "$RAW_ONLY" = 0 ]; then
            echo
            echo "The last step, measured directly (median time from the program's last output line to augur's"
            echo "\"run N stored\" line: profile write at Valgrind exit, profile read, SQLite import): $(fmt "$(median "$w" augur 6)") s."
            echo "(The difference of the two medians above carries the run-to-run noise of two long runs.)"
        fi
    fi
    echo
    echo "All runs (workload, configuration, repetition, seconds, KiB, seconds after the program ended):"
    echo
    echo '```'
    sort -k1,1 -k2,2 -k3,3n "$RESULTS"
    echo '```'
}

report | tee "$TMP/report.md"
if [ -n "$MARKDOWN" ]; then
    cp "$TMP/report.md" "$MARKDOWN"
    echo "collect_bench: tables written to $MARKDOWN" >&2
fi
