#!/bin/bash
# test_static_db.sh — the static model beside the dynamic ones (docs/static.md,
# "In the database", "Static and measured"): `augur static --db` stores it
# under the program's build-id (again: replaced, not added; a failed
# analysis or a program without a build-id stores nothing; test_db checks
# the upgrade of an older database), and with runs of tests/static/basis.c collected
# at n = 10 and 20, `augur report --scopes` shows each loop's static
# iterations beside the measured ones: equal to the closed forms for
# stride3's loops (K = ceil((n-1)/3) and K + 3K(K-1)/2) and main's (n), and
# scan's loop, annotated with n iterations but stopped by its data after
# n/2 + 1, flagged in text and JSON.  With six runs (n = 10 to 40), `augur
# model --basis static` fits the inner loop exactly on its static form,
# which the PMNF search alone does not, `model --show` names the scopes
# that took it, and `augur predict --param n=1000` gives the closed form
# and flags only scan's loop.
source "$TESTLIB"
B="$PROGRAMS/static_basis"
DB="$WORK/b.db"
rm -f "$DB"
L() { line_of "$1" "$SRC_PROGRAMS/../static/basis.c"; }
OUTER=$(L 'for (int i = 1; i < n; i += 3)')
INNER=$(L 'for (int j = 0; j < i; j++)')
SCAN=$(L 'while (a\[k\] != 0)')

# ---- storing ----------------------------------------------------------------------
"$AUGUR" static --db "$DB" "$B" >"$WORK/text" 2>"$WORK/err"
check "static --db: exit 0" "$?" 0
check "static --db: the model is still printed" "$(grep -c '^function stride3' "$WORK/text")" 1
BUILD_ID=$(readelf -n "$B" | awk '/Build ID/ { print $3 }')
check "stored under the build-id, said on stderr" "$(grep -c "stored the model of .*static_basis (build-id $BUILD_ID: 7 functions and loops) in" "$WORK/err")" 1
check "one model with its build-id" "$(sqlite3 "$DB" 'SELECT build_id FROM static_models')" "$BUILD_ID"
check "its functions and loops, loops after their function" \
    "$(sqlite3 "$DB" "SELECT group_concat(kind || ':' || function || ':' || first_line || ':' || ifnull(parent, '-'), ' ') FROM static_scopes")" \
    "function:stride3:$(L 'static double stride3'):- loop:stride3:$OUTER:- loop:stride3:$INNER:1 function:scan:$(L 'static int scan'):- loop:scan:$SCAN:- function:main:$(L '^int main'):- loop:main:$(L 'for (int i = 0; i < n; i++) {'):-"
check "a loop's formulas as text" \
    "$(sqlite3 "$DB" "SELECT json_extract(formulas, '\$.program_iterations') FROM static_scopes WHERE first_line = $OUTER")" \
    "{(n + [0, -1, 1]_n)/3 if n >= 2; else 0}"
check "the program's unknowns with their reasons" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM static_models, json_each(unknowns) WHERE json_extract(value, '\$.name') = 'atoi'")" 1
"$AUGUR" static --db "$DB" "$B" >/dev/null 2>&1
check "stored again: exit 0" "$?" 0
sqlite3 "$DB" "UPDATE static_scopes SET formulas = '{}' WHERE position = 0"
"$AUGUR" static --db "$DB" "$B" >/dev/null 2>&1
check "stored a third time: exit 0" "$?" 0
check "stored again: the new model's rows" "$(sqlite3 "$DB" "SELECT count(*) FROM static_scopes WHERE formulas = '{}'")" 0
check "stored again: replaced, not added" "$(sqlite3 "$DB" 'SELECT count(*) FROM static_models; SELECT count(*) FROM static_scopes' | paste -sd' ')" "1 7"
"$AUGUR" static --db "$DB" "$B" -- "$SRC_PROGRAMS/../static/broken.c" >/dev/null 2>&1
check "a failed analysis: exit 1" "$?" 1
check "a failed analysis stores nothing: the model stays" "$(sqlite3 "$DB" 'SELECT count(*) FROM static_scopes')" 7
cp "$B" "$WORK/nobuildid" && objcopy --remove-section .note.gnu.build-id "$WORK/nobuildid"
"$AUGUR" static --db "$WORK/n.db" "$WORK/nobuildid" >/dev/null 2>"$WORK/err"
check "no build-id: exit 1" "$?" 1
check "no build-id: the error says how to add one" "$(grep -c 'has no build-id, .*link it with -Wl,--build-id' "$WORK/err")" 1
check "no build-id: no database made" "$([ -e "$WORK/n.db" ] && echo made || echo none)" none

# ---- static against measured in report --scopes -------------------------------------
for n in 10 20; do
    "$AUGUR" collect --db "$DB" --param n=$n -- "$B" $n >/dev/null 2>&1
    check "collect n=$n" "$?" 0
done
K() { echo $(( ($1 - 1 + 2) / 3 )); }
for run in 1 2; do
    n=$(( run * 10 ))
    "$AUGUR" report --db "$DB" --run $run --scopes --threshold 0 --format json >"$WORK/s$run.json"
    stat() { jq -c --arg l "$1" '[.. | objects | select((.static? | type) == "object" and (.static.source_loop | endswith(":" + $l))) | .static | [.static, .measured, .disagrees]] | .[0]' "$WORK/s$run.json"; }
    k=$(K $n)
    check "n=$n stride3's outer loop: ceil((n-1)/3), as measured" "$(stat $OUTER)" "[$k,$k,false]"
    check "n=$n stride3's inner loop: K + 3K(K-1)/2, as measured" "$(stat $INNER)" "[$((k + 3 * k * (k - 1) / 2)),$((k + 3 * k * (k - 1) / 2)),false]"
    check "n=$n main's loop: n" "$(stat $(L 'for (int i = 0; i < n; i++) {'))" "[$n,$n,false]"
    check "n=$n scan: n static, n/2 + 1 measured, flagged" "$(stat $SCAN)" "[$n,$((n / 2 + 1)),true]"
    check "n=$n the JSON's list of disagreements: scan's loop only" \
        "$(jq -c '[.static_disagreements[] | [.scope, .difference_percent]]' "$WORK/s$run.json")" \
        "[[\"loop at basis.c:$SCAN\",$(awk -v n=$n 'BEGIN { printf "%.15g", 100 * (int(n / 2) + 1 - n) / n }')]]"
done
"$AUGUR" report --db "$DB" --run 2 --scopes --threshold 0 >"$WORK/s2.txt"
check "text: the static line under a loop" "$(grep -c "static (basis.c:$INNER): 70 iterations, measured 70$" "$WORK/s2.txt")" 1
check "text: the disagreement listed after the tree" \
    "$(grep -A1 'Static and measured iterations disagree by more than 1%:' "$WORK/s2.txt" | tail -1 | tr -s ' ')" \
    " loop at basis.c:$SCAN static (basis.c:$SCAN): 20 iterations, measured 11 DISAGREES: -45%"
"$AUGUR" collect --db "$DB" -- "$B" 12 >/dev/null 2>&1
"$AUGUR" report --db "$DB" --run 3 --scopes --threshold 0 >"$WORK/s3.txt"
check "a run without the parameter: the formula, not evaluated" \
    "$(grep -c "static (basis.c:$SCAN): {n if n >= 1; else 0}, not evaluated: the run has no parameter n" "$WORK/s3.txt")" 1

# ---- the static form as the basis of augur model ------------------------------------
# stride3's inner loop runs K + 3K(K-1)/2 times, K = ceil((n-1)/3): a polynomial
# in n per residue of n mod 3, which the PMNF search cannot fit exactly
for n in 13 16 31 40; do
    "$AUGUR" collect --db "$DB" --param n=$n -- "$B" $n >/dev/null 2>&1
done
inner_model() { sqlite3 "$DB" "SELECT method || ' ' || (fit_max_rel < 1e-12) || ' ' || formula FROM models WHERE set_id = $1
                               AND kind = 'scope' AND function = 'loop at basis.c:$INNER' AND metric = '$2'"; }
"$AUGUR" model --db "$DB" --runs 1-2,4-7 --quiet >/dev/null 2>&1 # run 3 has no n
check "model: exit 0" "$?" 0
check "without --basis static the inner loop's iterations are not fitted exactly" "$(inner_model 1 headers | cut -d' ' -f1-2)" "pmnf 0"
"$AUGUR" model --db "$DB" --runs 1-2,4-7 --quiet --basis static >"$WORK/model.out" 2>&1
check "model --basis static: exit 0" "$?" 0
check "with it: exactly the inner loop's iterations" "$(inner_model 2 headers)" "static 1 {loop at basis.c:$INNER}"
check "its entries: the outer loop's iterations" "$(inner_model 2 entries)" "static 1 {loop at basis.c:$OUTER}"
check "its instructions: 6 per iteration" "$(inner_model 2 instructions)" "static 1 6*{loop at basis.c:$INNER}"
check "the set records the basis" "$(sqlite3 "$DB" 'SELECT basis FROM model_sets WHERE id = 2')" '["static"]'
"$AUGUR" model --db "$DB" --show >"$WORK/show.txt"
check "model --show names the scopes on the static basis" \
    "$(grep -c "static basis: 3 scopes with counts on the source's formulas (method static): stride3, loop at basis.c:$OUTER, loop at basis.c:$INNER$" "$WORK/show.txt")" 1
check "model --show --format json lists them" \
    "$("$AUGUR" model --db "$DB" --show --format json | jq -c .static_basis_scopes)" "[\"stride3\",\"loop at basis.c:$OUTER\",\"loop at basis.c:$INNER\"]"

cp "$DB" "$WORK/nostatic.db" && sqlite3 "$WORK/nostatic.db" 'DELETE FROM static_models'
"$AUGUR" model --db "$WORK/nostatic.db" --runs 1-2,4-7 --quiet --basis static >/dev/null 2>"$WORK/err"
check "--basis static without a static model: exit 1" "$?" 1
check "--basis static without a static model: says how to store one" \
    "$(grep -c "holds no static model of .*static_basis (build-id $BUILD_ID): store one with \`augur static --db" "$WORK/err")" 1
check "--basis static without a static model: no set stored" "$(sqlite3 "$WORK/nostatic.db" 'SELECT count(*) FROM model_sets')" 2

# ---- predict: static against predicted ---------------------------------------------
"$AUGUR" predict --db "$DB" --param n=1000 --format json >"$WORK/p.json" 2>/dev/null
check "predict: exit 0" "$?" 0
pstat() { jq -c --arg l "$1" '.static.loops[] | select(.source_loop | endswith(":" + $l)) | [.static, .predicted, .disagrees]' "$WORK/p.json"; }
k=$(K 1000)
check "predict n=1000: the inner loop, exact from the static form" "$(pstat $INNER)" "[$((k + 3 * k * (k - 1) / 2)),$((k + 3 * k * (k - 1) / 2)),false]"
check "predict n=1000: the outer loop" "$(pstat $OUTER)" "[$k,$k,false]"
check "predict n=1000: scan's loop flagged (n static, about n/2 predicted)" \
    "$(jq -c --arg l "$SCAN" '.static.disagreements[] | select(.source_loop | endswith(":" + $l)) | [.static, (.predicted | . > 480 and . < 520), .disagrees]' "$WORK/p.json")" \
    "[1000,true,true]"
check "predict: 4 loops compared" "$(jq .static.compared "$WORK/p.json")" 4
"$AUGUR" predict --db "$DB" --param n=1000 >"$WORK/p.txt" 2>/dev/null
check "predict text: the disagreement" \
    "$(grep -A1 'Static and predicted iterations disagree by more than 1% (1 of 4 loops):' "$WORK/p.txt" | tail -1 | grep -c "loop at basis.c:$SCAN .*static (basis.c:$SCAN): 1000 iterations, predicted .* DISAGREES")" 1
finish
