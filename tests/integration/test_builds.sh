#!/bin/bash
# test_builds.sh — a program whose problem size is compiled in
# (tests/programs/sized/sized.c, one build per N, -O1), as benchmark suites
# fix their sizes:
#   - the builds are copied in turn to one path, as `cc -DN=... -o sized`
#     leaves them; collect says from the second on that the run is another
#     build, to be matched by source location, and stores each build's
#     structure while its file is there;
#   - augur model fits the five builds as one model set, matched by source
#     location: the kernels' counts come out as exact polynomials;
#   - predict at N = 40, a build never trained on, equals what collect
#     measures there: per function, per source line and per loop;
#   - with a build that lacks a loop (N = 8 unrolls main's loop at line 45),
#     the set is fitted and the loop named as left out;
#   - a build with other flags (-O0) is refused naming them; a program of
#     other sources at the same path is refused by collect before it runs.
source "$TESTLIB"
DB="$WORK/b.db"
SZ="$WORK/sized"
SRC="$SRC_PROGRAMS/sized/sized.c"
TRAIN="20 22 24 26 30"
TARGET=40

for n in $TRAIN; do
    cp "$PROGRAMS/sized_N$n" "$SZ"
    "$AUGUR" collect --db "$DB" --block-sizes 64 --param N=$n -- "$SZ" >/dev/null 2>"$WORK/c$n.err"
    check "collect N=$n" "$?" 0
done
check "first build: no notice" "$(grep -c 'another build' "$WORK/c20.err")" 0
check "second build: another build, matched by source location" \
    "$(unwrapped "$WORK/c22.err" | grep -c "sized is another build of the program of run 1 (sized): the same sources and flags (-D/-U aside); augur model will model their runs together, matching the builds by source location")" 1
check "fifth build: the runs of the earlier builds" "$(unwrapped "$WORK/c30.err" | grep -c 'another build of the program of runs 1-4 (sized)')" 1
check "each build's structure stored, with its compilation unit" \
    "$(sqlite3 "$DB" "SELECT count(DISTINCT b.build_id) FROM binaries b JOIN binary_units u ON u.binary_id = b.id WHERE u.file = '$SRC'")" 5

# ---- one model set over the five builds ------------------------------------------
"$AUGUR" model --db "$DB" --quiet >"$WORK/model.out" 2>"$WORK/model.err"
check "model exit" "$?" 0
check "model across builds" "$(grep -c '^model set 1 stored: .* over 5 runs (5 builds, matched by source location)' "$WORK/model.out")" 1
check "no warning" "$(cat "$WORK/model.err")" ""
"$AUGUR" model --db "$DB" --show >"$WORK/show.txt"
check "--show: the builds" "$(grep -c '^  5 builds of one source, matched by source location' "$WORK/show.txt")" 1
check "--show: the reference is the newest run's build" "$(grep -c "^    $SZ, runs \[5\] (the reference" "$WORK/show.txt")" 1
check "--show: no scope left out" "$(grep -c 'left out with the scopes inside: none$' "$WORK/show.txt")" 1
formula() { show_formula "$WORK/show.txt" "$@"; }
"$AUGUR" model --db "$DB" --show --format json >"$WORK/show.json"
check "--show JSON: the builds and nothing left out" "$(jq -c '[(.builds | length), .unmatched]' "$WORK/show.json")" "[5,[]]"
check "--show: every run measured in its own build, residual 0 for the exact models of functions and scopes" \
    "$(jq '[.models[] | select(.method == "exact" and (.kind == "function" or .kind == "scope"))] | length > 20' "$WORK/show.json") $(jq '[.models[] | select(.method == "exact" and (.kind == "function" or .kind == "scope")) | .points[] | select(.measured == null or .residual != 0)] | length' "$WORK/show.json")" "true 0"
K=$(line_of LOOP:multiply_k "$SRC")
check "multiply flops" "$(formula 'function multiply \(sized' flops)" "2*N^3  [exact]"
check "multiply's inner loop entries" "$(formula "loop at sized.c:$K\$" entries)" "N^2  [exact]"
check "multiply's inner loop class fp_add" "$(formula "loop at sized.c:$K\$" class:fp_add)" "N^3  [exact]"
check "lower flops (N(N-1)/2 multiply-subtracts, N divisions)" "$(formula 'function lower \(sized' flops)" "N^2  [exact]"

# ---- prediction at a build never trained on ------------------------------------------
"$AUGUR" collect --db "$WORK/n$TARGET.db" --block-sizes 64 --param N=$TARGET -- "$PROGRAMS/sized_N$TARGET" >/dev/null 2>&1
"$AUGUR" report --db "$WORK/n$TARGET.db" --cache 32K --cache 1M --format json --top 0 >"$WORK/real.json"
"$AUGUR" report --db "$WORK/n$TARGET.db" --scopes --threshold 0 --format json >"$WORK/real-scopes.json"
"$AUGUR" predict --db "$DB" --param N=$TARGET --cache 32K --cache 1M --format json --top 0 >"$WORK/pred.json" 2>"$WORK/pred.err"
check "predict exit" "$?" 0
for fn in main multiply lower; do
    check "$fn instructions at N=$TARGET" "$(fn_count "$WORK/pred.json" $fn)" "$(fn_count "$WORK/real.json" $fn)"
done
check "functions named by the program's file" \
    "$(jq -r '[.functions[] | select(.function == "multiply") | .module] | join(" ")' "$WORK/pred.json")" "$SZ"
# every line of sized.c: "LINE INSTRUCTIONS READS WRITES"
lines_of() { jq -r --arg f "$SRC" '.lines[] | select(.file == $f) | "\(.line) \(.instructions) \(.reads) \(.writes)"' "$1" | sort -n; }
lines_of "$WORK/real.json" >"$WORK/real.lines"
lines_of "$WORK/pred.json" >"$WORK/pred.lines"
check "sized.c lines measured" "$(awk 'END { print (NR >= 15) }' "$WORK/real.lines")" 1
check "every line of sized.c at N=$TARGET: instructions, reads, writes" "$(diff "$WORK/real.lines" "$WORK/pred.lines")" ""
# every function and loop of sized.c: "KIND NAME INSTRUCTIONS FLOPS"
jq -r --arg f "$SRC" '[.. | objects | select(.kind? and .file == $f)] | .[] | "\(.kind) \(.name) \(.instructions) \(.flops)"' \
    "$WORK/real-scopes.json" | sort >"$WORK/real.scopes"
jq -r --arg f "$SRC" '.scopes[] | select(.file == $f) | "\(.kind) \(.name) \(.instructions) \(.flops)"' "$WORK/pred.json" |
    sort >"$WORK/pred.scopes"
check "loops of sized.c measured" "$(grep -c '^loop' "$WORK/real.scopes")" 8
check "every function and loop of sized.c at N=$TARGET" "$(diff "$WORK/real.scopes" "$WORK/pred.scopes")" ""
# misses from reuse-distance groups of instructions matched across the builds
check_totals "$WORK/pred.json" "$WORK/real.json" 32768:64 1048576:64
check "every memory instruction of the program matched: no group of unmatched code" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM rd_members WHERE addr >= 4611686018427387904")" 0

"$AUGUR" predict --db "$DB" --param N=$TARGET --machine zen4 >"$WORK/pred-zen4.txt" 2>&1
check "predict --machine on the set (the reference build analysed): exit" "$?" 0
check "predict --machine: multiply's inner loop timed" "$(grep -cE "^  sized.c:$K +multiply +64,000 " "$WORK/pred-zen4.txt")" 1
"$AUGUR" report --db "$DB" --run 1 --scopes --threshold 0 --format json >"$WORK/run1-scopes.json" 2>"$WORK/run1.err"
check "report --scopes of a build whose file was replaced: its stored structure" \
    "$(jq --arg n "loop at sized.c:$K" '[.. | objects | select(.name? == $n) | .entries] | add' "$WORK/run1-scopes.json") $(grep -c warning "$WORK/run1.err")" "400 0"

# ---- a build that lacks a loop ---------------------------------------------------------
"$AUGUR" collect --db "$DB" --block-sizes 64 --param N=8 -- "$PROGRAMS/sized_N8" >/dev/null 2>"$WORK/c8.err"
check "another path, same sources: another build" \
    "$(unwrapped "$WORK/c8.err" | grep -c 'sized_N8 is another build of the program of runs 1-5 (sized): the same sources')" 1
V=$(line_of LOOP:main_v "$SRC")
"$AUGUR" model --db "$DB" --quiet >"$WORK/model2.out" 2>"$WORK/model2.err"
check "model with N=8: exit" "$?" 0
LEFT="loop at sized.c:$V in main, in the builds of run 1 (sized), run 2 (sized), run 3 (sized), run 4 (sized), run 5 (sized): not matched in the reference build, run 6 (sized_N8)"
check "model names the loop left out" "$(grep -c '1 scope could not be matched across the 6 builds' "$WORK/model2.err") $(grep -cF "  $LEFT" "$WORK/model2.err")" "1 1"
"$AUGUR" model --db "$DB" --show >"$WORK/show2.txt"
check "--show names the loop left out" "$(grep -cF "    $LEFT" "$WORK/show2.txt")" 1
"$AUGUR" predict --db "$DB" --param N=$TARGET --format json --top 0 >"$WORK/pred2.json" 2>/dev/null
check "predict on the set: exit" "$?" 0
check "predict: the loop left out has no prediction, the other loops have" \
    "$(jq --arg n "loop at sized.c:$V" '[.scopes[] | select(.name == $n)] | length' "$WORK/pred2.json") $(jq '[.scopes[] | select(.kind == "loop" and (.file // "" | endswith("sized.c")))] | length' "$WORK/pred2.json")" "0 7"

# ---- refusals ------------------------------------------------------------------------------
"$AUGUR" collect --db "$DB" --block-sizes 64 --param N=24 -- "$PROGRAMS/sized_O0" >/dev/null 2>"$WORK/cO0.err"
check "-O0 build: collect says its flags differ" \
    "$(unwrapped "$WORK/cO0.err" | grep -c "sized_O0 is another build of the sources of runs 1-6 (sized, sized_N8), compiled with other flags (-O0 here, -O1 there, compiling $SRC): augur model models builds together only when they differ in -D/-U alone")" 1
sets_before=$(sqlite3 "$DB" "SELECT count(*) FROM model_sets")
"$AUGUR" model --db "$DB" --quiet 2>"$WORK/eO0"
check "-O0 build: model refuses" "$?" 1
check "-O0 build: the message names the flags" \
    "$(grep -c "run 1 (sized) and run 7 (sized_O0) ran builds of the same sources compiled with other flags (-O1 in the build of run 1, -O0 in that of run 7, compiling $SRC): a model set spans builds that differ in -D/-U alone" "$WORK/eO0")" 1
check "-O0 build: nothing stored" "$(sqlite3 "$DB" "SELECT count(*) FROM model_sets")" "$sets_before"

cp "$PROGRAMS/branchy" "$SZ" # another program at the path of runs 1-5
runs_before=$(sqlite3 "$DB" "SELECT count(*) FROM runs")
"$AUGUR" collect --db "$DB" --param N=24 -- "$SZ" 24 >"$WORK/other.out" 2>"$WORK/other.err"
check "other sources at the same path: exit" "$?" 125
check "other sources at the same path: message" \
    "$(grep -c "sized is built from other sources than the program at that path of runs 1-5 (source files $SRC_PROGRAMS/branchy.c only here, $SRC only there): a database holds one program per path; collect into another database (--db)" "$WORK/other.err")" 1
check "other sources: not run, nothing stored" "$(wc -c <"$WORK/other.out") $(sqlite3 "$DB" "SELECT count(*) FROM runs")" "0 $runs_before"

finish
