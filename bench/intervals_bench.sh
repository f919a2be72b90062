#!/usr/bin/env bash
# intervals_bench.sh — what intervals add to `augur collect` (issue 26 item
# 5; docs/benchmarks.md "Intervals"): tests/programs/phases.c, a
# time-stepping loop whose every step calls exchange() twice, collected
#   plain     augur collect -- phases N STEPS
#   callsite  ... --interval-functions exchange --interval-by callsite
#   index     ... --interval-functions exchange   (one run per interval)
# side by side (interleaved, REPS times each) for few and many intervals at
# the same work, 2 x STEPS intervals of N elements each:
#   few   N = 200000, STEPS = 5      10 intervals
#   many  N = 200,    STEPS = 5000   10,000 intervals
# and prints the median wall and CPU (user + system of augur, Valgrind and
# the import) seconds of each, and their ratios to plain's.
#
# usage: bench/intervals_bench.sh [--reps N] [--markdown FILE] [--no-build]
# Environment: BUILD_DIR (default: build), CASES (default below,
# "NAME:N:STEPS" each), MODES (default "plain callsite index").
# Takes about 10 minutes with 3 repetitions on the reference machine, most
# of it many intervals by index. Run from anywhere.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/bench_lib.sh"
bench_start intervals_bench.sh
CASES=${CASES:-"few:200000:5 many:200:5000"}
MODES=${MODES:-"plain callsite index"}

while [ $# -gt 0 ]; do
    bench_option "$0" "$@"
    [ "$BENCH_TOOK" = 0 ] || { shift "$BENCH_TOOK"; continue; }
    die "unknown option '$1' (see --help)"
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps '$REPS': give a positive number"
need gcc "apt-get install gcc"
need valgrind "apt-get install valgrind"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/augur-intervals-bench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
AUGUR=$(augur_built "$ROOT" "$BUILD_DIR" "$DO_BUILD" "$WORK/build.log")
PROG=$WORK/phases
gcc "${CFLAGS_BENCH[@]}" -o "$PROG" "$ROOT/tests/programs/phases.c" || die "cannot build phases.c"

# mode_options MODE — the collect options of MODE.
mode_options() {
    case $1 in
    plain) ;;
    callsite) echo --interval-functions exchange --interval-by callsite ;;
    index) echo --interval-functions exchange ;;
    *) die "unknown mode '$1' (plain, callsite or index)" ;;
    esac
}

# timed N STEPS MODE — one collect into a fresh database: "WALL CPU" seconds
# (bash's times of the children: augur, Valgrind and what they wait for).
timed() {
    local db=$WORK/run.db out
    rm -f "$db"
    TIMEFORMAT='%R %U %S'
    # shellcheck disable=SC2046 # the options are words
    out=$({ time "$AUGUR" collect --db "$db" $(mode_options "$3") -- "$PROG" "$1" "$2" >/dev/null 2>"$WORK/err"; } 2>&1) ||
        { cat "$WORK/err" >&2; die "collect of phases $1 $2 ($3) failed"; }
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$out"
}

# median — the median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A WALL CPU
for c in $CASES; do
    IFS=: read -r name n steps <<<"$c"
    for ((r = 1; r <= REPS; r++)); do
        for m in $MODES; do
            say "$name ($((2 * steps)) intervals), $m, repetition $r of $REPS"
            read -r w u <<<"$(timed "$n" "$steps" "$m")"
            WALL[$name/$m]+="$w " CPU[$name/$m]+="$u "
        done
    done
done

# ratio A B — A / B rounded to 2 significant digits, without an exponent ("-" when B is 0).
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0 || a == 0) { print (b == 0) ? "-" : 0; exit }
        r = a / b; m = 10 ^ (int(log(r) / log(10) + (r < 1 ? -1 : 0)) - 1); printf "%.10g\n", int(r / m + 0.5) * m }'
}

{
    echo "host: $(cpu_model), $(nproc) CPUs; load average $(load_average); $REPS repetitions, medians"
    echo
    echo "| case | intervals | mode | wall s | CPU s | wall / plain | CPU / plain |"
    echo "|---|---:|---|---:|---:|---:|---:|"
    for c in $CASES; do
        IFS=: read -r name n steps <<<"$c"
        pw=$(tr ' ' '\n' <<<"${WALL[$name/plain]:-}" | grep . | median || true)
        pc=$(tr ' ' '\n' <<<"${CPU[$name/plain]:-}" | grep . | median || true)
        for m in $MODES; do
            w=$(tr ' ' '\n' <<<"${WALL[$name/$m]}" | grep . | median)
            u=$(tr ' ' '\n' <<<"${CPU[$name/$m]}" | grep . | median)
            printf '| %s (N=%s, %s steps) | %s | %s | %.2f | %.2f | %s | %s |\n' "$name" "$n" "$steps" \
                "$((2 * steps))" "$m" "$w" "$u" "$(ratio "$w" "${pw:-0}")" "$(ratio "$u" "${pc:-0}")"
        done
    done
} | tee "${MARKDOWN:-/dev/null}"
