#!/bin/bash
# test_openmp_jacobi.sh — an OpenMP program (tests/programs/omp_jacobi.c, -fopenmp,
# two threads) through collect, report, model, predict and memspy, with
# OMP_WAIT_POLICY unset as a user would leave it.  augur runs the program
# with OMP_WAIT_POLICY=passive (src/cli/launch.c): libgomp's spin-waiting,
# 94% of the instructions and different in every run, is gone.  Closed forms
# (see the program's header):
#   - the sweep's store runs 3 (N-2)^2 times: 28812 at N = 100, measured,
#     and 117612 at N = 200, predicted from N = 40 .. 100;
#   - two runs of the same command agree (spinning made them differ by 2x);
#   - libgomp makes under 10% of the instructions;
#   - memspy, N = 64: the outlined region main._omp_fn.0 reads the block
#     first stored in u 8 (N-2)^2 = 30752 times and writes it (N-2)^2 =
#     3844, the one in v 15376 and 7688; two threads.
# (test_openmp.sh checks --dry-run's policy.)
source "$TESTLIB"
PROG="$PROGRAMS/omp_jacobi"
SRC="$SRC_PROGRAMS/omp_jacobi.c"
STORE=$(line_of "v\[i \* n + j\] = 0.25" "$SRC")
DB="$WORK/omp.db"
export OMP_NUM_THREADS=2
unset OMP_WAIT_POLICY

for n in 40 60 80 100 100; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n >/dev/null 2>&1
done
check "five runs collected" "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" 5

# total RUN — the run's instructions
total() { "$AUGUR" report --db "$DB" --run "$1" --format json | jq '.total.instructions'; }
"$AUGUR" report --db "$DB" --run 4 --format json --top 0 >"$WORK/r100.json"
check "N=100: the sweep's store runs 3 (N-2)^2 = 28812 times" \
    "$(line_writes "$WORK/r100.json" omp_jacobi.c "$STORE")" 28812
check "N=100: the outlined region is named main._omp_fn.0" \
    "$(jq -r '[.functions[] | select(.function == "main._omp_fn.0")] | length' "$WORK/r100.json")" 1
check "N=100: libgomp makes under 10% of the instructions (no spinning)" \
    "$(jq '([.functions[] | select(.module // "" | test("/libgomp[^/]*$")) | .instructions] | add // 0) as $g
           | "\($g > 0) \($g * 10 < .total.instructions)"' -r "$WORK/r100.json")" "true true"
T4=$(total 4) T5=$(total 5)
check "two runs of N=100 agree within 0.1% ($T4, $T5)" "$([ "$T4" -gt 0 ] && within "$T4" "$T5" 0.001)" 1

"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "model exit" "$?" 0
"$AUGUR" predict --db "$DB" --param N=200 --format json --top 0 >"$WORK/p200.json" 2>/dev/null
check "predicted N=200: the store 3 (N-2)^2 = 117612 times" \
    "$(line_writes "$WORK/p200.json" omp_jacobi.c "$STORE")" 117612

"$AUGUR" memspy --machine zen4 --format json --output "$WORK/m.json" -- "$PROG" 64 >/dev/null 2>&1
check "memspy exit" "$?" 0
check "memspy: two threads" "$(jq '.threads' "$WORK/m.json")" 2
check "memspy: main._omp_fn.0 reads/writes u's block 30752/3844 and v's 15376/7688" \
    "$(jq -r '[.pairs[] | select(.function == "main._omp_fn.0" and (.data_object == "u" or .data_object == "v"))
               | "\(.data_object):\(.reads)/\(.writes)"] | sort | join(",")' "$WORK/m.json")" \
    "u:30752/3844,v:15376/7688"

finish
