#!/bin/bash
# test_static_latency.sh — the static cycles' memory model (docs/static.md,
# "Cycles"): tests/static/walk.c sums n doubles a page apart, 100 times.
# Its loop's cycles per iteration by the iterations of an entry, from the
# static stride and zen4's description: the core's 3 (the sum's recurrence:
# fp_add's latency) alone while the 8 lines the stride reaches in L1 (one
# set of 8 ways) and the 72 pages of the first-level DTLB hold an entry's
# (no miss waited: the prefetcher, within a page, fetches them); up to 256
# iterations (L2: 32 sets of 8 ways reached) each page entered anew is a
# waited miss served by L2, (14 - 4)/24 cycles (24 misses in flight) and a
# page walk of 7/24; up to 3072 (L3 holds them, the second-level DTLB's
# 3072 pages) served by L3, (50 - 4)/24.  At n = 2048 the latency term is
# 40% of the loop's time: against `augur predict --machine zen4` on runs
# collected at n = 1024 to 2560, whose loop time (page faults aside) is the
# same model on the measured misses, which include the first walk's from
# memory.
source "$TESTLIB"

W="$PROGRAMS/static_walk"
SRC="$SRC_PROGRAMS/../static/walk.c"
per_iteration() { # N: the walk loop's static cycles per iteration at n = N
    "$AUGUR" static --machine zen4 --format json --param n=$1 --param reps=100 "$W" 2>>"$WORK/static.err" |
        jq --argjson l "$(line_of "LOOP:walk" "$SRC")" --argjson n $1 '.loops[] | select(.lines[0] == $l) | .values.cycles / $n'
}
for c in "50 3" "100 3 + 10/24 + 7/24" "2048 3 + 46/24 + 7/24"; do
    read -r n form <<<"$c"
    want=$(awk "BEGIN { printf \"%.17g\", $form }")
    check "walk's cycles per iteration at n=$n: $form" "$(within "$(per_iteration $n)" "$want" 1e-9)" 1
done
check "the bands are in the formula" \
    "$("$AUGUR" static --machine zen4 --format json "$W" 2>/dev/null |
        jq -r --argjson l "$(line_of "LOOP:walk" "$SRC")" '.loops[] | select(.lines[0] == $l) | .formulas.cycles' |
        grep -c 'n <= 256')" 1

train_checked "$WORK/w.db" "$W" 100 1024 1536 2048 2560
"$AUGUR" predict --db "$WORK/w.db" --param n=2048 --machine zen4 --format json >"$WORK/predict.json" 2>/dev/null
check "predict" "$?" 0
"$AUGUR" static --machine zen4 --format json --param n=2048 --param reps=100 "$W" >"$WORK/static.json" 2>>"$WORK/static.err"
check "static" "$?" 0
l=$(line_of "LOOP:walk" "$SRC")
static=$(jq --argjson l $l '.loops[] | select(.lines[0] == $l) | .values.cycles * 100' "$WORK/static.json")
core=$(jq --argjson l $l '.loops[] | select(.lines[0] == $l) | .binary_loops[0] | .cycles_per_iteration * .program_iterations_value' "$WORK/static.json")
predicted=$(jq --arg l "walk.c:$l" '.scopes[] | select(.kind == "loop" and (.name | endswith($l)))
    | .cycles - .terms.page_fault_cycles - .terms.mispredict_cycles' "$WORK/predict.json")
echo "     walk's loop at n=2048, 100 walks: static $static cycles (core alone $core), predict $predicted"
# the first walk's misses come from memory in the runs, from L3 in the
# static model (it takes the data to be walked again): 3% of the time
check "static cycles within 5% of predict's" "$(within "$static" "$predicted" 0.05)" 1
check "the core alone is not" "$(within "$core" "$predicted" 0.3)" 0

finish
