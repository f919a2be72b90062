# bench_lib.sh — sourced by the bench scripts: the start and the options
# they share (bench_start, bench_option), the checks, the build of augur, a
# collect, the clocks, and the host's own description and native timing.
# The sourcing script calls bench_start (which defines die MESSAGE, print
# and exit, and say MESSAGE, a progress line) or defines die and say
# itself, and sets AUGUR before calling collect, detect_host or
# calibrate_host.

# script_usage SCRIPT — the comment at the top of SCRIPT (from its second line
# up to `set -euo`), without the comment marks: its --help.
script_usage() { sed -n '2,/^set -euo/p' "$1" | sed '$d' | sed 's/^# \{0,1\}//'; }

# need CMD HINT — dies naming CMD and how to install it (HINT) when CMD is missing.
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is missing: $2"; }

# check_sizes WHAT LIST — dies, naming WHAT, unless LIST holds at least five
# positive integers in ascending order (the training sizes of a kernel).
check_sizes() {
    local what=$1 list=$2 v n=0 prev=0
    for v in $list; do
        [[ $v =~ ^[1-9][0-9]*$ ]] || die "$what: training size '$v' is not a positive integer"
        [ "$v" -gt "$prev" ] || die "$what: training sizes must ascend ($list)"
        prev=$v n=$((n + 1))
    done
    [ "$n" -ge 5 ] || die "$what: needs at least 5 training sizes, has $n ($list)"
}

# build_augur ROOT BUILD_DIR LOG — configures and builds augur from ROOT in
# BUILD_DIR, the build's output in LOG; dies with the errors when it fails.
build_augur() {
    local root=$1 build_dir=$2 log=$3
    need cmake "apt-get install cmake"
    say "building augur in $build_dir"
    cmake -S "$root" -B "$build_dir" >"$log" 2>&1 ||
        { tail -30 "$log" >&2; die "cmake could not configure $build_dir (output above)"; }
    cmake --build "$build_dir" -j2 >"$log" 2>&1 ||
        { grep -E 'error|Error' "$log" | head -30 >&2; die "the augur build failed (errors above; all of it in $log)"; }
}

# augur_built ROOT BUILD_DIR BUILD LOG — prints the path of augur in BUILD_DIR,
# built first from ROOT when BUILD is 1 (build_augur, its output in LOG); dies
# when it is not there.
augur_built() {
    local root=$1 build_dir=$2 build=$3 log=$4
    if [ "$build" = 1 ]; then build_augur "$root" "$build_dir" "$log"; fi
    [ -x "$build_dir/augur" ] || die "$build_dir/augur is not built (cmake --build $build_dir, or drop --no-build)"
    echo "$build_dir/augur"
}

# collect NAME BINARY DB N LOG — one `augur collect --param N=N` of BINARY N
# into DB, its output in LOG; dies unless the program printed its result line
# ("NAME N ..."); prints the seconds it took.
collect() {
    local name=$1 bin=$2 db=$3 n=$4 log=$5 t0=$EPOCHREALTIME
    if ! "$AUGUR" collect --db "$db" --param N="$n" -- "$bin" "$n" >"$log" 2>&1; then
        tail -20 "$log" >&2
        die "$name: augur collect at N=$n failed (output above, in $log)"
    fi
    grep -q "^$name $n " "$log" || die "$name: N=$n did not print its result line (see $log)"
    seconds_since "$t0"
}

# start_clock — elapsed and seconds_since count from now.
start_clock() { T_START=$EPOCHREALTIME; }

# elapsed — the seconds since start_clock, as "   12 s".
elapsed() { awk -v a="$T_START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%6.0f s", b - a }'; }

# seconds_since T0 — the seconds since $EPOCHREALTIME was T0, one decimal.
seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# ---- the host and native time (time_bench.sh, accuracy_bench.sh --time) ----------

# cpu_model — lscpu's "Model name" of this host.
cpu_model() { lscpu | sed -n 's/^Model name: *//p' | head -1; }

# load_average — the three load averages of uptime.
load_average() { uptime | sed 's/.*load average: //'; }

# detect_host OUT — `augur machine detect` into OUT (hwloc's caches, the core of
# the nearest shipped description); prints the name of that description.
detect_host() {
    "$AUGUR" machine detect --output "$1" >&2 || die "augur machine detect failed"
    sed -n 's/^# ports, classes, TLBs, memory, cache latencies and bandwidths: \([^ ]*\) .*/\1/p' "$1"
}

# calibrate_host OUT TOLERANCE — OUT from `augur machine calibrate --quick
# --measured-capacity` (which detects first; --tolerance TOLERANCE unless it is
# empty), its messages in OUT.err; prints OUT.  The memory figures of a shared
# host move by 30-50% within minutes (docs/machines.md), so callers calibrate
# seconds before each timed run.  A refusal (rounds that disagree under load)
# is tried again, 5 times in all, then dies.
calibrate_host() {
    local out=$1 tolerance=$2 try
    for try in 1 2 3 4 5; do
        "$AUGUR" machine calibrate --quick --measured-capacity ${tolerance:+--tolerance "$tolerance"} \
            --output "$out" 2>"$out.err" && { echo "$out"; return; }
        say "calibration $try of 5 refused: $(tail -1 "$out.err")"
    done
    die "augur machine calibrate refused 5 times (see $out.err; a quieter host, or --tolerance)"
}

# host_summary FILE — "GHz ns GB/s" of a description: clock, memory latency,
# one core's bandwidth.
host_summary() {
    awk '$1 == "clock_ghz:" { g = $2 } $1 == "latency_ns:" { l = $2 } $1 == "bandwidth_core_gbs:" { b = $2 }
         END { print g, l, b }' "$1"
}

# time_native OUT PROGRAM ARG... — one native run of PROGRAM ARG... (its output
# discarded), timed by /usr/bin/time into OUT; prints "wall user sys" in
# seconds.  Dies when the program fails.
time_native() {
    local out=$1
    shift
    /usr/bin/time -f "%e %U %S" -o "$out" "$@" >/dev/null || die "$*: the native run failed (status $?)"
    cat "$out"
}

# median — the median of the numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ---- the start every bench script shares ------------------------------------------

# bench_start NAME — the settings a bench script starts from (ROOT set
# first): die and say, their messages prefixed NAME; BUILD_DIR (default
# build, under ROOT unless absolute); REPS (from the environment, else 3);
# MARKDOWN empty; DO_BUILD 1; CFLAGS_BENCH for the programs it builds (never
# -march=native: Valgrind 3.19 has no AVX-512); no Valgrind library
# inherited from outside, so every tool runs from this build.
bench_start() {
    BENCH_NAME=$1
    die() { echo "$BENCH_NAME: $*" >&2; exit 1; }
    say() { echo "$BENCH_NAME: $*" >&2; }
    BUILD_DIR=${BUILD_DIR:-build}
    case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
    REPS=${REPS:-3}
    MARKDOWN=
    DO_BUILD=1
    CFLAGS_BENCH=(-O2 -g -march=x86-64-v2)
    unset VALGRIND_LIB AUGUR_VALGRIND_LIB
}

# args_of WORKLOAD — the arguments of bench/workloads/WORKLOAD.c, from the
# script's DENSE_ARGS, STENCIL_ARGS and CHASE_ARGS (its sizes).
args_of() {
    case $1 in
    dense) echo "$DENSE_ARGS" ;;
    stencil) echo "$STENCIL_ARGS" ;;
    chase) echo "$CHASE_ARGS" ;;
    esac
}

# bench_option SCRIPT ARG... — the options every bench script takes, at the
# head of ARG...: --reps N, --markdown FILE, --no-build, and -h/--help
# (SCRIPT's usage, then exit).  BENCH_TOOK gets the words taken, 0 when the
# head is none of them.
bench_option() {
    local script=$1
    shift
    BENCH_TOOK=0
    case $1 in
    --reps | --markdown)
        [ $# -ge 2 ] || die "$1 needs a value"
        if [ "$1" = --reps ]; then REPS=$2; else MARKDOWN=$2; fi
        BENCH_TOOK=2 ;;
    --no-build) DO_BUILD=0; BENCH_TOOK=1 ;;
    -h | --help) script_usage "$script"; exit 0 ;;
    esac
}
