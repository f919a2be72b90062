#!/usr/bin/env bash
# memspy_bench.sh — CPU time of memspy (full and sampled simulation) next to
# Cachegrind on the same programs, and the accuracy of sampled miss rates.
#
# Issue 6, item 8: full simulation (three levels, attribution on) should cost
# at most Cachegrind's time; sampled simulation at most a third of it, with
# miss rates (misses / references) within 0.5 percentage points of full.
#
# For each program it runs, REPS times, interleaved so that load on the
# shared machine hits every configuration alike:
#   cachegrind  valgrind --tool=cachegrind --cache-sim=yes with D1 and LL set
#               to the simulated machine's L1 and last level (same caches)
#   full        augur memspy --machine M --format json -- PROGRAM
#   none        valgrind --tool=none: Valgrind's own cost, the floor of any tool
#   tool        the memspy Valgrind tool alone with the same levels (what
#               `full` costs less the host's reading, analysis and report)
#   time R      augur memspy --machine M --sample R            (for each R)
#   sets R      augur memspy --machine M --sample R --sample-by sets
#   full-sN     full with --shadow-sample N     (with --shadow-sample N)
#   tool-sN     tool with --shadow-sample=N     (with --shadow-sample N)
#   tool@K      tool as built in the K-th directory of --tool-builds (an
#               A/B of simulator or instrumentation changes, in one run)
#   instr       tool with --simulate=no: every reference instrumented and
#               buffered, none simulated; the floor of full simulation
#   instr:R     the same with set sampling's --sample-sets=N for R (as
#               augur memspy rounds it): the floor of `sets R`  (with --floors)
#   regions     augur memspy --instr-at-start no: only the program's regions of
#               interest (CALLGRIND_START/STOP_INSTRUMENTATION) are simulated;
#               for a program that marks them, such as roi_marks  (with --regions)
# and reports the median user+sys CPU time of each (the machine is shared:
# CPU time, not wall time), the ratio to Cachegrind's, and per sampled run
# the difference of its L1/L2/L3 miss rates from full simulation's, in
# percentage points (medians of the runs' differences are not taken: the
# first run's report is used, sampling being deterministic).
#
# usage: bench/memspy_bench.sh [--reps N] [--ratios "0.1 0.3"] [--machine M]
#                              [--programs "NAME:ARGS ..."] [--markdown FILE]
#                              [--shadow-sample N] [--tool-builds "DIR ..."]
#                              [--floors] [--regions]
#   NAME is a kernel of bench/model_kernels/, mm_conflict (examples/) or
#   roi_marks (tests/programs/).
# Environment: BUILD_DIR (default: build; must hold augur and vglib/).
# Programs are compiled -O1 -g -march=x86-64-v2 into a temporary directory,
# removed at exit.  Results are recorded in docs/memspy.md ("Benchmark").
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
REPS=3
RATIOS="0.1 0.3"
MACHINE=zen4
PROGRAMS="mm_conflict:256 matmul:160 stencil2d:600 spmv:60000 sort:150000"
MARKDOWN=
SHADOW=
TOOL_BUILDS=()
FLOORS=
REGIONS=

die() { echo "memspy_bench: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case $1 in
    --reps) REPS=${2:?--reps N}; shift 2 ;;
    --ratios) RATIOS=${2?--ratios LIST}; shift 2 ;;  # "" runs no sampled configuration
    --machine) MACHINE=${2:?--machine M}; shift 2 ;;
    --programs) PROGRAMS=${2:?--programs LIST}; shift 2 ;;
    --markdown) MARKDOWN=${2:?--markdown FILE}; shift 2 ;;
    --shadow-sample) SHADOW=${2:?--shadow-sample N}; shift 2 ;;
    --tool-builds) read -r -a TOOL_BUILDS <<<"${2:?--tool-builds \"DIR ...\"}"; shift 2 ;;
    --floors) FLOORS=1; shift ;;
    --regions) REGIONS=1; shift ;;
    *) die "unknown option '$1' (see the usage at the top of $0)" ;;
    esac
done
AUGUR=$BUILD_DIR/augur
[ -x "$AUGUR" ] || die "no $AUGUR: build first (cmake -S . -B build && make -C build), or set BUILD_DIR"
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps '$REPS': give a positive whole number"
[ -z "$SHADOW" ] || [[ $SHADOW =~ ^[1-9][0-9]*$ ]] || die "--shadow-sample '$SHADOW': give a power of two"
for dir in "${TOOL_BUILDS[@]}"; do
    [ -x "$dir/vglib/memspy-amd64-linux" ] || die "--tool-builds: no $dir/vglib/memspy-amd64-linux (build the memspy_tool target there)"
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/memspy_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

# source_of NAME — the C file of a benchmark program.
source_of() {
    case $1 in
    mm_conflict) echo "$ROOT/examples/mm_conflict.c" ;;
    roi_marks) echo "$ROOT/tests/programs/roi_marks.c" ;;
    *) echo "$ROOT/bench/model_kernels/$1.c" ;;
    esac
}

# cache_geometry first|last — "SIZE,WAYS,LINE" of the machine's first (L1) or
# last cache level, from `augur machine show` (its caches: block).
cache_geometry() {
    "$AUGUR" machine show "$MACHINE" >"$TMP/machine.yaml" || die "augur machine show $MACHINE failed"
    awk -v which="$1" '
        /^caches:/ { in_caches = 1; next }
        /^[a-z]/ { in_caches = 0 }
        in_caches && $1 == "size:" { n++; size[n] = $2 }
        in_caches && $1 == "line_bytes:" { line[n] = $2 }
        in_caches && $1 == "ways:" { ways[n] = $2 }
        END { k = which == "first" ? 1 : n; print size[k] "," ways[k] "," line[k] }' "$TMP/machine.yaml"
}

# tool_options [OPTION...] — the memspy tool's --level and sampling options
# that `augur memspy --machine $MACHINE OPTION...` passes it, one per line,
# from its --dry-run (so the bench runs the tool exactly as augur would).
tool_options() {
    "$AUGUR" memspy --machine "$MACHINE" "$@" --dry-run -- true |
        grep -o -- '--\(level\|sample-sets\|sample-time\|shadow-sample\)=[^ ]*'
}

# cpu_time CMD... — run CMD (output discarded); prints its children's
# user+sys CPU seconds.
cpu_time() {
    local t
    t=$( { TIMEFORMAT='%3U %3S'; time "$@" >/dev/null 2>"$TMP/stderr"; } 2>&1 ) ||
        { cat "$TMP/stderr" >&2; die "failed: $*"; }
    awk '{printf "%.3f\n", $1 + $2}' <<<"$t"
}

# median — the median of the numbers on stdin.
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# rates JSON — "L1 L2 L3" miss rates in percent from a memspy JSON report.
rates() {
    jq -r '.total as $t | [.machine.levels[].name | ($t.misses[.] / $t.references * 100)]
           | map(tostring) | join(" ")' "$1"
}

D1=$(cache_geometry first)
LL=$(cache_geometry last)
mapfile -t LEVELS < <(tool_options)
configs=(cachegrind none full tool)
[ -z "$SHADOW" ] || configs+=("full-s$SHADOW" "tool-s$SHADOW")
for k in "${!TOOL_BUILDS[@]}"; do configs+=("tool@$k"); done
for r in $RATIOS; do configs+=("time:$r" "sets:$r"); done
[ -z "$FLOORS" ] || { configs+=(instr); for r in $RATIOS; do configs+=("instr:$r"); done; }
[ -z "$REGIONS" ] || configs+=(regions)

# run_config CONFIG EXE ARGS... — one timed run; the report of the first
# memspy run of each configuration is kept for the miss rates.
run_config() {
    local config=$1 exe=$2 json="$TMP/$(basename "$2").${1/:/_}.json"
    shift 2
    case $config in
    cachegrind)
        cpu_time valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1="$D1" --LL="$LL" \
            --cachegrind-out-file=/dev/null "$exe" "$@" ;;
    full)
        cpu_time "$AUGUR" memspy --machine "$MACHINE" --format json --output "$json" -- "$exe" "$@" ;;
    none)
        cpu_time valgrind --tool=none "$exe" "$@" ;;
    full-s*)
        cpu_time "$AUGUR" memspy --machine "$MACHINE" --shadow-sample "${config#full-s}" --format json \
            --output "$json" -- "$exe" "$@" ;;
    tool | tool-s* | tool@* | instr | instr:*)
        local opts=() lib=$BUILD_DIR/vglib
        case $config in
        tool-s*) opts=("--shadow-sample=${config#tool-s}") ;;
        tool@*) lib=${TOOL_BUILDS[${config#tool@}]}/vglib ;;
        instr) opts=(--simulate=no) ;;
        instr:*) # --sample-sets=N as augur memspy --sample R rounds it (none when N is 1)
            mapfile -t opts < <(tool_options --sample "${config#instr:}" | grep -- --sample-sets)
            opts+=(--simulate=no) ;;
        esac
        mkdir -p "$TMP/raw"
        cpu_time env VALGRIND_LIB="$lib" valgrind --tool=memspy --out-dir="$TMP/raw" "${LEVELS[@]}" \
            "${opts[@]}" "$exe" "$@"
        rm -f "$TMP"/raw/memspy.*.out ;;
    regions)
        cpu_time "$AUGUR" memspy --machine "$MACHINE" --instr-at-start no --format json --output "$json" -- \
            "$exe" "$@" ;;
    time:* | sets:*)
        cpu_time "$AUGUR" memspy --machine "$MACHINE" --sample "${config#*:}" --sample-by "${config%%:*}" \
            --format json --output "$json" -- "$exe" "$@" ;;
    esac
}

{
    echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
        "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); machine $MACHINE (cachegrind --D1=$D1 --LL=$LL)"
    echo "# $0 --reps $REPS --ratios \"$RATIOS\" --programs \"$PROGRAMS\"${SHADOW:+ --shadow-sample $SHADOW}${FLOORS:+ --floors}${REGIONS:+ --regions}"
    for k in "${!TOOL_BUILDS[@]}"; do echo "# tool@$k: ${TOOL_BUILDS[$k]}"; done
    echo
    echo "| program | config | CPU s (median of $REPS) | / cachegrind | L1 rate | L2 rate | L3 rate | ΔL1 pp | ΔL2 pp | ΔL3 pp |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
} | tee "$TMP/table.md"

for spec in $PROGRAMS; do
    name=${spec%%:*} args=${spec#*:}
    [ "$args" = "$spec" ] && args=
    src=$(source_of "$name")
    [ -f "$src" ] || die "no program '$name' ($src)"
    exe=$TMP/$name
    cc -O1 -g -march=x86-64-v2 -o "$exe" "$src" -lm -lpthread
    # shellcheck disable=SC2086  # args is a list of words
    for ((i = 0; i < REPS; i++)); do
        for c in "${configs[@]}"; do
            run_config "$c" "$exe" $args >>"$TMP/$name.${c/:/_}.times"
        done
    done
    cg=$(median <"$TMP/$name.cachegrind.times")
    read -r f1 f2 f3 < <(rates "$TMP/$name.full.json")
    for c in "${configs[@]}"; do
        t=$(median <"$TMP/$name.${c/:/_}.times")
        ratio=$(awk -v a="$t" -v b="$cg" 'BEGIN {printf "%.2f", a / b}')
        if [ "$c" = cachegrind ] || [ "${c%-s*}" = tool ] || [ "${c%@*}" = tool ] || [ "$c" = none ] ||
            [ "${c%%:*}" = instr ] || [ "$c" = regions ]; then
            [ "$c" = cachegrind ] || ratio="**$ratio**"
            [ "$c" = cachegrind ] && ratio=1.00
            echo "| $name $args | $c | $t | $ratio | | | | | | |"
            continue
        fi
        read -r r1 r2 r3 < <(rates "$TMP/$name.${c/:/_}.json")
        awk -v n="$name $args" -v c="$c" -v t="$t" -v q="$ratio" -v r1="$r1" -v r2="$r2" -v r3="$r3" \
            -v f1="$f1" -v f2="$f2" -v f3="$f3" -v full="$([ "$c" = full ] && echo 1 || echo 0)" 'BEGIN {
            printf "| %s | %s | %s | **%s** | %.3f | %.3f | %.3f |", n, c, t, q, r1, r2, r3
            if (full) print " | | |"
            else printf " %+.3f | %+.3f | %+.3f |\n", r1 - f1, r2 - f2, r3 - f3
        }'
    done
done | tee -a "$TMP/table.md"
[ -z "$MARKDOWN" ] || cp "$TMP/table.md" "$MARKDOWN"
