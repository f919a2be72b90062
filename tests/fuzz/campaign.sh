#!/bin/bash
# campaign.sh — a longer fuzzing campaign than the tests' minute
# (docs/testing.md): the three fuzzers of BUILD/fuzzers at once, each for
# CPU_SECONDS of its own CPU time, not of wall time (on a shared machine a
# wall-clock limit would measure the others' load), from the committed
# seeds into a fresh corpus in OUT/corpus-NAME, crashes to
# OUT/artifacts-NAME/.  Then one line per fuzzer: executions, edges and
# features covered (libFuzzer's cov and ft), the corpus in memory (inputs
# and bytes), crashes; their logs are OUT/NAME.log.
#
# usage: tests/fuzz/campaign.sh [BUILD_DIR [CPU_SECONDS [OUT]]]
#        (default: build, 600, a new temporary folder)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$HERE/../../build}" && pwd)
SECONDS_EACH=${2:-600}
OUT=${3:-$(mktemp -d)}
FUZZERS=$BUILD/fuzzers/tests/fuzz
[ -x "$FUZZERS/fuzz_profile" ] || {
    echo "campaign: no fuzzers in $FUZZERS: build with clang-14 installed (scripts/setup.sh; docs/testing.md)" >&2
    exit 2
}
[[ $SECONDS_EACH =~ ^[1-9][0-9]*$ ]] || { echo "campaign: CPU_SECONDS must be a whole number of seconds" >&2; exit 2; }
mkdir -p "$OUT"
TICKS=$(getconf CLK_TCK)

# cpu_seconds PID — the CPU time (user + system) the process has used.
cpu_seconds() { awk -v t="$TICKS" '{ print int(($14 + $15) / t) }' "/proc/$1/stat" 2>/dev/null || echo 0; }

declare -A pid cpu
for name in profile memspy machine; do
    seeds=("$HERE/corpus/$name")
    [ $name = machine ] && seeds+=("$HERE/../../machines")
    rm -rf "$OUT/corpus-$name" "$OUT/artifacts-$name"
    mkdir -p "$OUT/corpus-$name" "$OUT/artifacts-$name"
    "$FUZZERS/fuzz_$name" -timeout=30 -print_final_stats=1 -dict="$HERE/$name.dict" \
        -artifact_prefix="$OUT/artifacts-$name/" "$OUT/corpus-$name" "${seeds[@]}" >"$OUT/$name.log" 2>&1 &
    pid[$name]=$!
done
# Interrupt each (libFuzzer then prints its statistics and exits) once it
# has had its CPU time; one that stops by itself has crashed.  cpu: the
# CPU seconds each had when last seen.
running=3
while [ $running -gt 0 ]; do
    sleep 5
    running=0
    for name in "${!pid[@]}"; do
        p=${pid[$name]}
        kill -0 "$p" 2>/dev/null || continue
        running=$((running + 1))
        cpu[$name]=$(cpu_seconds "$p")
        [ "${cpu[$name]}" -ge "$SECONDS_EACH" ] && kill -INT "$p"
    done
done
wait || true

echo "fuzzer  CPU-s  executions  exec/CPU-s   cov     ft  corpus (inputs/size)  crashes   (in $OUT)"
for name in profile memspy machine; do
    log=$OUT/$name.log
    execs=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true) # libFuzzer's last status line (none: it crashed at once)
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$last")
    crashes=$(find "$OUT/artifacts-$name" -type f | wc -l)
    used=${cpu[$name]:-0}
    printf '%-7s %5d  %10s  %10d  %4s  %5s  %11s  %7d\n' "$name" "$used" "${execs:-?}" \
        $(( ${execs:-0} / (used > 0 ? used : 1) )) "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes"
done
