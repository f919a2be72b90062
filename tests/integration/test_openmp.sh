#!/bin/bash
# test_openmp.sh — an OpenMP C program (tests/programs/omp_kernels.c, gcc
# -fopenmp, libgomp) through collect, report, report --scopes, structure,
# model, predict and memspy with OMP_NUM_THREADS=2.  Closed forms, for
# SWEEPS = 2 Jacobi sweeps of an N x N grid, static schedule over 2 threads:
#   - the store of the sweep runs 2 (N-2)^2 times; the dot product reads
#     2 N^2 doubles; the per-thread counters take N^2 stores;
#   - the row loop of jacobi._omp_fn.0 is entered SWEEPS x threads = 4
#     times for (N-2)/2 rows each (each thread its half); the column loop
#     2 (N-2) times for N-2 iterations; dot's loop twice for N^2/2;
#   - main's three inlined kernels (jacobi, dot, count_partial: back to
#     back in the code) are three scopes;
#   - memspy: 2 threads; heap arrays grid and next of 8 N^2 bytes; the row
#     loop's references 2 (5 (N-2)^2) (4 loads and 1 store a point, both
#     loops on one line counted once); the counters' misses are false
#     sharing, and none with `padded`;
#   - libgomp's threads wait passively under augur (OMP_WAIT_POLICY): two
#     runs at one size execute the same instructions of the program and
#     totals within 0.1%, and libgomp fewer than the sweep (spinning, runs
#     executed 8-57 times more, 97% of it in libgomp).
source "$TESTLIB"
SRC="$SRC_PROGRAMS/omp_kernels.c"
PROG="$PROGRAMS/omp_kernels"
DB="$WORK/omp.db"
export OMP_NUM_THREADS=2
unset OMP_WAIT_POLICY GOMP_SPINCOUNT KMP_BLOCKTIME
STORE=$(line_of "STORE:jacobi" "$SRC")
DOT=$(line_of "sum += x\[k\]" "$SRC")
PARTIAL=$(line_of "STORE:partial" "$SRC")

for n in 20 30 40 40 50 60; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n >/dev/null 2>&1
done
check "six runs collected, exit 0" "$(sqlite3 "$DB" "SELECT count(*) FROM processes WHERE exit_code = 0")" 6
check "each process has 2 threads (main and one libgomp worker)" \
    "$(sqlite3 "$DB" 'SELECT group_concat(DISTINCT threads) FROM processes')" 2
# own RUN — instructions of the program's own functions in RUN; total RUN — of the whole run
own() {
    "$AUGUR" report --db "$DB" --run "$1" --format json --top 0 |
        jq '[.functions[] | select(.module // "" | endswith("/omp_kernels")) | .instructions] | add'
}
total() { "$AUGUR" report --db "$DB" --run "$1" --format json --top 0 | jq .total.instructions; }
check "two runs at N=40: the program's own instructions are equal" "$(own 3)" "$(own 4)"
check "two runs at N=40: totals within 0.1% (libgomp's futex races; spinning made them differ by 10-400%)" \
    "$(within "$(total 3)" "$(total 4)" 0.001)" 1

# of JSON LINE FIELD — FIELD (reads, writes) of omp_kernels.c:LINE, summed
of() {
    jq --argjson l "$2" --arg f "$3" '[.lines[] | select(.line == $l and (.file // "" | endswith("omp_kernels.c")))
                                       | .[$f]] | add | round' "$1"
}
"$AUGUR" report --db "$DB" --run 3 --format json --top 0 >"$WORK/r40.json"
check "N=40: the sweep's store runs 2 (N-2)^2 = 2888 times" "$(of "$WORK/r40.json" "$STORE" writes)" 2888
check "N=40: the dot product reads 2 N^2 = 3200 doubles" "$(of "$WORK/r40.json" "$DOT" reads)" 3200
check "N=40: the counters take N^2 = 1600 stores" "$(of "$WORK/r40.json" "$PARTIAL" writes)" 1600
check "report: the lines' functions are the outlined regions" \
    "$(jq -r --argjson a "$STORE" --argjson b "$DOT" --argjson c "$PARTIAL" \
        '[.lines[] | select((.file // "" | endswith("omp_kernels.c")) and (.line == $a or .line == $b or .line == $c))
          | .function] | unique | join(",")' \
        "$WORK/r40.json")" "count_partial._omp_fn.0,dot._omp_fn.0,jacobi._omp_fn.0"
check "report: libgomp executes fewer instructions than jacobi._omp_fn.0" \
    "$(jq '([.functions[] | select(.module // "" | test("libgomp")) | .instructions] | add) <
           ([.functions[] | select(.function == "jacobi._omp_fn.0") | .instructions] | add)' "$WORK/r40.json")" true

"$AUGUR" report --db "$DB" --run 3 --scopes --format json >"$WORK/s40.json"
# loops_of FUNCTION — "entries x iterations_per_entry" of FUNCTION's loops, outer first
loops_of() {
    jq -r --arg f "$1" '.. | objects | select(.kind? == "function" and .name == $f)
        | [.. | objects | select(.kind? == "loop") | "\(.entries)x\(.iterations_per_entry)"] | join(" ")' "$WORK/s40.json"
}
check "scopes: jacobi's rows 4 x (N-2)/2 = 19, columns 2 (N-2) = 76 x 38" "$(loops_of jacobi._omp_fn.0)" "4x19 76x38"
check "scopes: dot's loop 2 x N^2/2 = 800 (each thread its half)" \
    "$(loops_of dot._omp_fn.0 | tr ' ' '\n' | grep -c '^2x800$')" 1

"$AUGUR" structure --db "$DB" "$PROG" >"$WORK/structure.txt" 2>&1
check "structure: main's inlined jacobi, dot and count_partial are three scopes" \
    "$(awk '/^    function main /{m=1; next} /^    function /{m=0} m && $1 == "inlined" {print $2}' \
        "$WORK/structure.txt" | grep -v atol | tr '\n' ' ')" "jacobi dot count_partial "

"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "model exit" "$?" 0
"$AUGUR" predict --db "$DB" --param N=200 --format json --top 0 >"$WORK/p200.json" 2>/dev/null
check "predict N=200: the store 2 * 198^2 = 78408 times" "$(of "$WORK/p200.json" "$STORE" writes)" 78408
check "predict N=200: jacobi's loops entered 4 and 2 * 198 = 396 times" \
    "$(jq -r '[.scopes[] | select(.kind == "loop" and (.file // "" | endswith("omp_kernels.c"))
                                  and .line == '"$((STORE - 1))"') | .entries | round] | join(" ")' "$WORK/p200.json")" "4 396"

"$AUGUR" memspy --machine zen4 --format json --output "$WORK/m.json" -- "$PROG" 60 >/dev/null 2>&1
check "memspy exit" "$?" 0
check "memspy: 2 threads" "$(jq .threads "$WORK/m.json")" 2
check "memspy: heap arrays grid and next, 8 N^2 = 28800 bytes each" \
    "$(jq -r '[.data_objects[] | select(.kind == "heap" and (.name == "grid" or .name == "next")) | "\(.name):\(.size)"]
              | sort | join(",")' "$WORK/m.json")" "grid:28800,next:28800"
check "memspy: the sweep's loop makes 2 * 5 (N-2)^2 = 33640 references, counted once" \
    "$(jq '[.code_objects[] | select(.kind == "loop" and .function == "jacobi._omp_fn.0") | .references] | join(",")' \
        -r "$WORK/m.json")" 33640
FS=$(jq '[.data_objects[] | select(.name == "partial")][0] | "\(.references) \(.causes.false_sharing * 2 > .misses)"' \
    -r "$WORK/m.json")
check "memspy: partial[] has 2 N^2 + 16 = 7216 references, most misses false sharing" "$FS" "7216 true"
"$AUGUR" memspy --machine zen4 --format json --output "$WORK/mp.json" -- "$PROG" 60 padded >/dev/null 2>&1
check "memspy padded: no false sharing on partial[]" \
    "$(jq '[.data_objects[] | select(.name == "partial")][0].causes.false_sharing' "$WORK/mp.json")" 0
check "memspy --dry-run: the program waits passively" \
    "$("$AUGUR" memspy --machine zen4 --dry-run -- "$PROG" 20 | cut -d' ' -f1)" "OMP_WAIT_POLICY=passive"
check "memspy --dry-run: the user's own wait policy is kept" \
    "$(OMP_WAIT_POLICY=active "$AUGUR" memspy --machine zen4 --dry-run -- "$PROG" 20 | grep -c OMP_WAIT_POLICY)" 0
finish
