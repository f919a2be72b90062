#!/usr/bin/env bash
# sample_rd_bench.sh — `augur collect --sample-rd RATE` against exact histograms:
# the error of the miss counts and the collect time saved.
#
# For each workload of bench/collect_bench.sh (bench/workloads/*.c) it runs
#   exact        augur collect --db <fresh>.db -- program
#   RATE         augur collect --db <fresh>.db --sample-rd RATE -- program   (each rate)
# REPS times, interleaved so that machine noise hits every configuration alike,
# and reports the median CPU time (user + system of augur, Valgrind and the
# import: GNU time's %U + %S) and wall time, and from the first repetition's
# database the program's misses of a fully-associative LRU cache of 64-byte
# lines at each capacity (`augur report --cache SIZE --format json`: total
# misses, from the 64 B histograms) with each rate's error against exact.
# Also, per capacity, the error of the functions that have at least 1% of the
# exact misses: the largest |error| among them ("worst fn").
#
# usage: bench/sample_rd_bench.sh [--reps N] [--rates "0.1 0.01"] [--caches "32K 1M 32M"]
#                                 [--workloads "dense stencil chase"] [--markdown FILE] [--no-build]
# Environment: BUILD_DIR (default: build), DENSE_ARGS, STENCIL_ARGS, CHASE_ARGS (the sizes;
# smaller by default than collect_bench.sh's so that the exact runs take about a minute each).
# Needs gcc, valgrind, jq, GNU time.  Run from anywhere.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/bench_lib.sh" # need, build_augur, median, script_usage
REPS=${REPS:-1}
bench_start sample_rd_bench
RATES="0.1 0.01"
CACHES="32K 1M 32M"
WORKLOADS="dense stencil chase"
DENSE_ARGS=${DENSE_ARGS:-"800"}          # 800 x 800 doubles: 15 MB, every capacity's regime but the last
STENCIL_ARGS=${STENCIL_ARGS:-"2000 6"}   # two 32 MB grids, 6 sweeps: above 32 MiB
CHASE_ARGS=${CHASE_ARGS:-"1700000 2"}    # 54 MB of nodes in random order, 2 laps

while [ $# -gt 0 ]; do
    bench_option "$0" "$@"
    [ "$BENCH_TOOK" = 0 ] || { shift "$BENCH_TOOK"; continue; }
    case $1 in
    --rates) [ $# -ge 2 ] || die "--rates needs a list"; RATES=$2; shift 2 ;;
    --caches) [ $# -ge 2 ] || die "--caches needs a list"; CACHES=$2; shift 2 ;;
    --workloads) [ $# -ge 2 ] || die "--workloads needs a list"; WORKLOADS=$2; shift 2 ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer, not '$REPS'"
for w in $WORKLOADS; do
    case $w in dense | stencil | chase) ;; *) die "unknown workload '$w' (dense, stencil, chase)" ;; esac
done
for c in $CACHES; do [[ $c =~ ^[0-9]+[KMG]?$ ]] || die "--caches: '$c' is not a size such as 32K, 1M"; done

need gcc "apt-get install gcc"
need valgrind "apt-get install valgrind"
need jq "apt-get install jq"
[ -x /usr/bin/time ] && /usr/bin/time --version 2>&1 | grep -q GNU || die "GNU time (/usr/bin/time) is missing: apt-get install time"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/sample_rd_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'echo "sample_rd_bench: interrupted" >&2; exit 130' INT TERM
[ "$DO_BUILD" = 1 ] && build_augur "$ROOT" "$BUILD_DIR" "$TMP/build.log"
AUGUR=$BUILD_DIR/augur
[ -x "$AUGUR" ] || die "$AUGUR is not built (run without --no-build)"

for w in $WORKLOADS; do
    gcc "${CFLAGS_BENCH[@]}" -o "$TMP/$w" "$ROOT/bench/workloads/$w.c" || die "cannot compile $w.c"
done

# one WORKLOAD CONFIG REP — collect once; appends "workload config rep cpu wall" to $TMP/times
one() {
    local w=$1 config=$2 rep=$3 db=$TMP/$1-$2-$3.db opt=()
    [ "$config" = exact ] || opt=(--sample-rd "$config")
    # shellcheck disable=SC2046 # the sizes split into arguments
    /usr/bin/time -f "%U %S %e" -o "$TMP/time" "$AUGUR" collect --db "$db" "${opt[@]}" -- "$TMP/$w" $(args_of "$w") \
        >/dev/null 2>"$TMP/collect.log" || { cat "$TMP/collect.log" >&2; die "augur collect of $w ($config) failed"; }
    awk -v w="$w" -v c="$config" -v r="$rep" '{ printf "%s %s %s %.2f %.2f\n", w, c, r, $1 + $2, $3 }' "$TMP/time" \
        >>"$TMP/times"
    [ "$rep" = 1 ] || rm -f "$db"
}

for rep in $(seq 1 "$REPS"); do
    for w in $WORKLOADS; do
        for config in exact $RATES; do
            say "rep $rep: $w $(args_of "$w"), $config"
            one "$w" "$config" "$rep"
        done
    done
done

# misses WORKLOAD CONFIG — "total fn:misses ..." per capacity, one line per capacity
misses() {
    local cache_opts=() c
    for c in $CACHES; do cache_opts+=(--cache "$c"); done
    "$AUGUR" report --db "$TMP/$1-$2-1.db" "${cache_opts[@]}" --top 0 --format json >"$TMP/$1-$2.json" 2>/dev/null ||
        die "augur report of $1 ($2) failed"
}

{
    echo "| workload | histograms | CPU s | wall s | CPU vs exact |$(for c in $CACHES; do printf ' misses %s | error |' "$c"; done) worst fn error (per capacity) |"
    echo "|---|---|---:|---:|---:|$(for c in $CACHES; do printf -- '---:|---:|'; done)---|"
    for w in $WORKLOADS; do
        exact_cpu=$(awk -v w="$w" '$1 == w && $2 == "exact" { print $4 }' "$TMP/times" | median)
        misses "$w" exact
        for config in exact $RATES; do
            [ "$config" = exact ] || misses "$w" "$config"
            cpu=$(awk -v w="$w" -v c="$config" '$1 == w && $2 == c { print $4 }' "$TMP/times" | median)
            wall=$(awk -v w="$w" -v c="$config" '$1 == w && $2 == c { print $5 }' "$TMP/times" | median)
            row="| $w $(args_of "$w") | $config | $cpu | $wall | $(awk -v a="$cpu" -v b="$exact_cpu" 'BEGIN { printf "%.2f", a / b }') |"
            worst=
            for key in $(jq -r '.caches[].key' "$TMP/$w-exact.json"); do
                got=$(jq --arg k "$key" '.total.misses[$k]' "$TMP/$w-$config.json")
                want=$(jq --arg k "$key" '.total.misses[$k]' "$TMP/$w-exact.json")
                # exact misses in full; an estimate to 3 significant digits, which its error column supports
                row="$row $(awk -v g="$got" -v e="$config" 'BEGIN { printf "%.0f", e == "exact" ? g : sprintf("%.3g", g) + 0 }') | $(awk -v g="$got" -v x="$want" 'BEGIN { printf "%+.1f%%", x ? 100 * (g - x) / x : 0 }') |"
                # functions with >= 1% of the exact misses: the largest |relative error|
                fe=$(jq -n --arg k "$key" --slurpfile e "$TMP/$w-exact.json" --slurpfile s "$TMP/$w-$config.json" '
                    ($e[0].total.misses[$k]) as $tot
                    | [$e[0].functions[] | select(.misses[$k] >= 0.01 * $tot) | {f: .function, x: .misses[$k]}] as $big
                    | [$big[] | . as $b | ($s[0].functions[] | select(.function == $b.f) | .misses[$k]) as $g
                       | (if $b.x > 0 then 100 * ($g - $b.x) / $b.x else 0 end)]
                    | map(if . < 0 then -. else . end) | max // 0')
                worst="$worst$(printf '%.1f%% ' "$fe")"
            done
            echo "$row ${worst% } |"
        done
    done
} >"$TMP/table.md"

{
    echo "Workloads built with \`gcc ${CFLAGS_BENCH[*]}\`; medians of $REPS, interleaved; load $(cut -d' ' -f1-3 /proc/loadavg) at the end on $(nproc) CPUs."
    echo "Misses of a fully-associative LRU cache of 64-byte lines (the 64 B histograms), the program's total; \"worst fn\" the largest |error| of a function with at least 1% of the exact misses, per capacity."
    echo
    cat "$TMP/table.md"
} | tee "${MARKDOWN:-/dev/null}"
