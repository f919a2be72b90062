#!/bin/bash
# make_seeds.sh — make the seed corpus of the fuzz harnesses again
# (docs/testing.md): real files written by augur's tools, small
# enough to fuzz fast.  Writes tests/fuzz/corpus/{profile,memspy,machine}/
# seed-*; the regression inputs there are left alone.  Needs a built tree.
#
# usage: tests/fuzz/make_seeds.sh [BUILD_DIR]   (default: build)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
AUGUR=$(cd "${1:-$HERE/../../build}" && pwd)/augur
[ -x "$AUGUR" ] || { echo "make_seeds: no $AUGUR: build first (scripts/test.sh)" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The new seeds are made in $TMP/corpus and replace the old ones at the end,
# so that a failure leaves the committed corpus as it was.
CORPUS=$TMP/corpus
mkdir -p "$CORPUS/profile" "$CORPUS/memspy" "$CORPUS/machine"

# Compiled from copies in $TMP, so that the seeds name no checkout.
cp "$HERE"/seeds/*.c "$HERE/../programs/roi_marks.c" "$TMP/"
cd "$TMP"
# seed_program: freestanding and static, so its files hold only its own code.
gcc -O1 -g -static -nostdlib -fno-stack-protector -fno-pie -no-pie -march=x86-64-v2 \
    -o seed_program seed_program.c
# seed_heap: dynamic (memspy replaces its malloc), threads, a marked region.
gcc -O1 -g -march=x86-64-v2 -pthread -o seed_heap seed_heap.c
# A test program (tests/programs/), built as tests/CMakeLists.txt does.
gcc -O1 -g -march=x86-64-v2 -o roi_marks roi_marks.c

# profile NAME COLLECT-ARGS... — the profile of one collect of seed_program
# (which ignores its arguments and exits with status 3): its process's, or
# with intervals its first interval's, which has every line of the format
# (regions, region-fn, interval-fn and interval too).
profile() {
    local name=$1
    shift
    rm -rf "$TMP/keep"
    "$AUGUR" collect --db "$TMP/seed.db" --keep-profiles "$TMP/keep" "$@" 2>/dev/null || [ $? -eq 3 ]
    local files=("$TMP"/keep/*/augur.*.i0.prof) # in the run's folder in keep
    [ -e "${files[0]}" ] || files=("$TMP"/keep/*/augur.*.prof)
    cat "${files[0]}" >"$CORPUS/profile/seed-$name.prof" # not cp: the folder is private (0600)
}
profile default -- "$TMP/seed_program"
profile blocks-args --block-sizes 8,64,256 -- "$TMP/seed_program" 'a b%c' -
profile regions-intervals --region-function sweep --interval-functions twice --interval-by callsite \
    -- "$TMP/seed_program"

# memspy NAME MEMSPY-ARGS... — the raw file of one memspy run.
memspy() {
    local name=$1
    shift
    "$AUGUR" memspy --keep-raw "$CORPUS/memspy/seed-$name.raw" --output /dev/null "$@" 2>/dev/null || [ $? -eq 3 ]
}
memspy static-zen4 --machine zen4 -- "$TMP/seed_program"
memspy static-skylake --machine skylake-sp -- "$TMP/seed_program"
memspy static-time-sampled --machine zen4 --sample 0.5 --sample-by time -- "$TMP/seed_program"
memspy static-set-sampled --machine zen4 --sample 0.25 --sample-by sets -- "$TMP/seed_program"
memspy static-args-exec --machine zen4 -- "$TMP/seed_program" exec /bin/true 'a b%c'
memspy heap-threads-region --machine zen4 --instr-at-start no -- "$TMP/seed_heap"
memspy heap-shadow-sampled --machine neoverse-v1 --instr-at-start no --shadow-sample 4 -- "$TMP/seed_heap"
# roi_marks: its two marked regions only.
memspy roi-marks --machine zen4 --instr-at-start no -- "$TMP/roi_marks" 1

# The machine loader's other seeds are the shipped machines/ (CMakeLists.txt).
"$AUGUR" machine detect --output "$CORPUS/machine/seed-detected.yaml" 2>/dev/null
for format in profile memspy machine; do
    mkdir -p "$HERE/corpus/$format"
    rm -f "$HERE/corpus/$format"/seed-*
    mv "$CORPUS/$format"/seed-* "$HERE/corpus/$format/"
done
ls -l "$HERE"/corpus/*/seed-*
