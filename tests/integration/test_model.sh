#!/bin/bash
# test_model.sh — `augur model` and `augur predict` on the loop shapes of
# tests/programs/structure/kernels.c (-O2), trained at N = 20..36:
#   - the count models of the kernels are the closed forms, found exact;
#   - the prediction at N = 72, a size never trained on, equals what
#     `augur collect` measures there: exactly for the kernels' functions,
#     within 0.1% for the program's total, and the misses of 32 KiB and
#     4 KiB fully-associative caches within 10%;
#   - what cannot be modeled or predicted is refused with a message that
#     names the fix, and leaves no model set behind.
source "$TESTLIB"
PROG="$PROGRAMS/kernels_O2"
DB="$WORK/k.db"
TRAIN="20 24 28 32 36" # N >= 20: fib(min(N, 20)) is then constant
TARGET=72

for n in $TRAIN; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n >/dev/null 2>&1
done
"$AUGUR" model --db "$DB" --quiet > "$WORK/model.out" 2> "$WORK/model.err"
check "model exit" "$?" 0
check "model set stored" "$(grep -c '^model set 1 stored' "$WORK/model.out")" 1

# ---- closed forms, exact ------------------------------------------------------
"$AUGUR" model --db "$DB" --show > "$WORK/show.txt"
# the formula of METRIC of the scope whose heading matches PATTERN
formula() { show_formula "$WORK/show.txt" "$@"; }
check "matmul fp_add" "$(formula 'function matmul \(kernels' class:fp_add)" "N^3  [exact]"
check "matmul flops" "$(formula 'function matmul \(kernels' flops)" "2*N^3  [exact]"
check "matmul inner loop entries" "$(formula "loop at kernels.c:$(line_of LOOP:matmul_k "$SRC_PROGRAMS/structure/kernels.c")" entries)" "N^2  [exact]"
check "triangular flops" "$(formula 'function triangular \(kernels' flops)" "N^2/2 + N/2  [exact]"
check "imperfect flops" "$(formula 'function imperfect \(kernels' flops)" "N^2 + N  [exact]"
check "fib(min(N, 20)) is constant for N >= 20" \
    "$(sqlite3 "$DB" "SELECT method FROM models WHERE kind = 'function' AND function = 'fib' AND metric = 'instructions'")" constant
# errors of searched models in one format, two decimals (the stored values
# have more), as predict's error tables: __printf_fp_l's digits are no polynomial
"$AUGUR" model --db "$DB" --show --scope __printf_fp_l > "$WORK/show-printf.txt"
PMNF=$(grep -c '\[pmnf' "$WORK/show-printf.txt")
TWO=$(grep -cE '\[pmnf; fit error [0-9]*\.[0-9][0-9]%, cross-validation error [0-9]*\.[0-9][0-9]%(; other forms that fit differ by [0-9]+(\.[0-9])?% at 4x)?\]$' "$WORK/show-printf.txt")
check "--show: searched models' errors with two decimals, none in exponent form" \
    "$([ "$PMNF" -gt 0 ] && [ "$TWO" -eq "$PMNF" ] && echo yes) $(grep -c '\[[^]]*e-[0-9]' "$WORK/show-printf.txt")" "yes 0"
check "block models stored" "$(sqlite3 "$DB" "SELECT count(*) > 100 FROM models WHERE kind = 'block'")" 1
check "terms are JSON" "$(sqlite3 "$DB" "SELECT json_valid(terms) FROM models WHERE kind = 'scope' AND metric = 'flops' LIMIT 1")" 1
check "reuse-distance groups of both block sizes" "$(sqlite3 "$DB" "SELECT count(DISTINCT block_size) FROM rd_groups")" 2
check "vector's accesses (stride 8) share a group" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM rd_members m JOIN rd_groups g ON g.id = m.group_id WHERE m.function = 'vector' AND g.block_size = 64 AND g.strides = '[8]'")" 3

# ---- prediction at a size never run, against a measurement there ---------------
"$AUGUR" predict --db "$DB" --param N=$TARGET --cache 32K --cache 4K --format json --top 0 > "$WORK/pred.json" 2> "$WORK/pred.err"
check "predict exit" "$?" 0
check "extrapolation warned" "$(grep -c "N=72 is 2x the largest fitted value (36)" "$WORK/pred.err")" 1
check "prediction JSON names its parameters" "$(jq '.prediction.params.N' "$WORK/pred.json")" 72
"$AUGUR" collect --db "$WORK/real.db" --param N=$TARGET -- "$PROG" $TARGET >/dev/null 2>&1
"$AUGUR" report --db "$WORK/real.db" --cache 32K --cache 4K --format json --top 0 > "$WORK/real.json"

# (dispatch is left out: its switch on i % 9 makes its count periodic, not polynomial)
for fn in matmul triangular imperfect inlined vector unrolled fib; do
    check "$fn instructions at N=$TARGET" "$(fn_count "$WORK/pred.json" $fn)" "$(fn_count "$WORK/real.json" $fn)"
done
check_totals "$WORK/pred.json" "$WORK/real.json" 32768:64 4096:64
check "scopes in the JSON" "$(jq '[.scopes[] | select(.kind == "loop")] | length > 5' "$WORK/pred.json")" true
"$AUGUR" predict --db "$DB" --param N=$TARGET > "$WORK/pred.txt" 2>/dev/null
check "text prediction header" "$(head -n 1 "$WORK/pred.txt")" "Prediction at N=72"

# ---- refusals --------------------------------------------------------------------
sets_before=$(sqlite3 "$DB" "SELECT count(*) FROM model_sets")
"$AUGUR" model --db "$DB" --runs 1,2 --quiet 2> "$WORK/e1"
check "2 runs: exit" "$?" 1
check "2 runs: message" "$(grep -c 'a model needs at least 3 runs' "$WORK/e1")" 1
"$AUGUR" collect --db "$DB" --param N=40 --param M=2 -- "$PROG" 40 >/dev/null 2>&1
"$AUGUR" model --db "$DB" --quiet 2> "$WORK/e2"
check "missing parameter: exit" "$?" 1
check "missing parameter: message" "$(grep -c 'run 1 has no parameter M' "$WORK/e2")" 1
"$AUGUR" model --db "$DB" --param N --quiet 2> "$WORK/e3"
check "unmodeled parameter differs: exit" "$?" 1
check "unmodeled parameter differs: message" "$(grep -c 'differ in parameter M, which is not modeled: add --param M' "$WORK/e3")" 1
"$AUGUR" collect --db "$DB" --param N=8 -- "$PROGRAMS/kernels_O0" 8 >/dev/null 2>&1
"$AUGUR" model --db "$DB" --runs 1-4,7 --quiet 2> "$WORK/e4"
check "another build, other flags: exit" "$?" 1
check "another build, other flags: message" \
    "$(grep -c 'run 1 (kernels_O2) and run 7 (kernels_O0) ran builds of the same sources compiled with other flags (-O2 in the build of run 1, -O0 in that of run 7, compiling .*kernels.c)' "$WORK/e4")" 1
"$AUGUR" model --db "$DB" --basis 'Q^2' --runs 1-5 --quiet 2> "$WORK/e5"
check "bad basis: exit" "$?" 1
check "bad basis: message" "$(grep -c 'unknown parameter' "$WORK/e5")" 1
check "refusals stored nothing" "$(sqlite3 "$DB" "SELECT count(*) FROM model_sets")" "$sets_before"

"$AUGUR" predict --db "$DB" --param M=3 2> "$WORK/e6"
check "unknown parameter: exit" "$?" 1
check "unknown parameter: message" "$(grep -c 'the models have no parameter M: they are functions of N' "$WORK/e6")" 1
"$AUGUR" predict --db "$DB" 2> "$WORK/e7"
check "no parameters: usage" "$?" 2
"$AUGUR" predict --db "$DB" --param N=40 --cache 1M:128 2> "$WORK/e8"
check "unmeasured line size: exit" "$?" 1
check "unmeasured line size: message" "$(grep -c 'no reuse distances for 128-byte lines' "$WORK/e8")" 1
"$AUGUR" collect --db "$WORK/empty.db" --param N=8 -- "$PROG" 8 >/dev/null 2>&1
"$AUGUR" predict --db "$WORK/empty.db" --param N=8 2> "$WORK/e9"
check "no models: message" "$(grep -c 'has no models: run `augur model' "$WORK/e9")" 1
for i in 1 2 3; do "$AUGUR" collect --db "$WORK/same.db" --param N=8 -- "$PROG" 8 >/dev/null 2>&1; done
"$AUGUR" model --db "$WORK/same.db" --quiet 2> "$WORK/e10"
check "nothing varies: exit" "$?" 1
check "nothing varies: message" "$(grep -c 'no parameter varies between the 3 runs: collect runs at several values' "$WORK/e10")" 1

# a damaged model set is refused by name, not half-read
cp "$DB" "$WORK/damaged.db"
sqlite3 "$WORK/damaged.db" "UPDATE models SET terms = 'not json' WHERE id = (SELECT min(id) FROM models WHERE kind = 'function')"
"$AUGUR" predict --db "$WORK/damaged.db" --param N=40 2> "$WORK/e11" >/dev/null
check "damaged terms: exit" "$?" 1
check "damaged terms: message" "$(grep -c 'model of set 1 are damaged: run `augur model` again' "$WORK/e11")" 1
sqlite3 "$WORK/damaged.db" "UPDATE model_sets SET ranges = '[]'"
"$AUGUR" predict --db "$WORK/damaged.db" --param N=40 2> "$WORK/e12" >/dev/null
check "damaged set: message" "$(grep -c 'model set 1 is damaged' "$WORK/e12")" 1

finish
