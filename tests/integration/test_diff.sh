#!/bin/bash
# test_diff.sh — `augur diff` (docs/exports.md) between two runs of calltree
# (tests/programs/calltree.c, K = 3) at N = 64 (A) and N = 192 (B), whose
# differences have closed forms: leaf runs 3K times over N longs and work
# over N and 8N longs (near and far), one load per element:
#   - accesses: leaf and work each + 9 * (192 - 64) = 1152, and so does
#     leaf's loading line (LOAD:leaf);
#   - misses of a 1 MiB cache: leaf + (192 - 64) / 8 = 16 (its N longs are
#     cold once), work + 7 * (192 - 64) / 8 = 112 (far's 8N longs beyond
#     the N that leaf touched first);
#   - instructions of leaf and work change as Cachegrind's Ir do
#     (cg_diff of the two runs under Cachegrind);
#   - the totals' change is B's total minus A's, relative_percent the change
#     over A; rows come largest change first;
#   - the two-database form FILE:RUN gives the same as two runs of one;
#   - errors: a missing operand, a bad one, an unknown run, a missing
#     database, --sort misses without --cache.
source "$TESTLIB"
PROG="$PROGRAMS/calltree"
DB="$WORK/d.db"
K=3 A=64 B=192
"$AUGUR" collect --db "$DB" --param N=$A -- "$PROG" $A $K >/dev/null 2>&1
"$AUGUR" collect --db "$DB" --param N=$B -- "$PROG" $B $K >/dev/null 2>&1
"$AUGUR" diff --db "$DB" --format json --top 0 1 2 >"$WORK/d.json"
check "diff --format json exit" "$?" 0

change() { # ROWS NAME FIELD — the change of FIELD of the row of function NAME
    jq --arg n "$2" "[.$1[] | select(.function == \$n) | .$3.change] | add" "$WORK/d.json"
}
check "leaf: accesses + 9 dN" "$(change functions leaf accesses)" $((9 * (B - A)))
check "work: accesses + 9 dN" "$(change functions work accesses)" $((9 * (B - A)))
check "leaf: 1MiB misses + dN / 8" "$(change functions leaf 'misses["1048576:64"]')" $(((B - A) / 8))
check "work: 1MiB misses + 7 dN / 8" "$(change functions work 'misses["1048576:64"]')" $((7 * (B - A) / 8))
LOAD=$(line_of LOAD:leaf "$SRC_PROGRAMS/calltree.c")
check "leaf's loading line: accesses + 9 dN" \
    "$(jq --argjson l "$LOAD" '[.lines[] | select(.line == $l and .function == "leaf") | .accesses.change] | add' \
        "$WORK/d.json")" $((9 * (B - A)))

# instructions against Cachegrind's difference of the same two runs
for n in $A $B; do
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$WORK/cg.$n" "$PROG" $n $K >/dev/null 2>&1
done
cg_diff "$WORK/cg.$A" "$WORK/cg.$B" >"$WORK/cg.diff"
cg_ir() { cg_annotate --show-percs=no --auto=no "$WORK/cg.diff" | awk -v f=":$1" '$NF ~ f "$" { gsub(",", "", $1); print $1 }'; }
check "leaf: instructions change as Cachegrind's Ir (cg_diff)" "$(change functions leaf instructions)" "$(cg_ir leaf)"
check "work: instructions change as Cachegrind's Ir (cg_diff)" "$(change functions work instructions)" "$(cg_ir work)"

# totals, relative changes, order
"$AUGUR" report --db "$DB" --run 1 --format json >"$WORK/a.json"
"$AUGUR" report --db "$DB" --run 2 --format json >"$WORK/b.json"
check "total change = B's total - A's" "$(jq .total.instructions.change "$WORK/d.json")" \
    "$(($(jq .total.instructions "$WORK/b.json") - $(jq .total.instructions "$WORK/a.json")))"
check "relative_percent = change / A x 100" \
    "$(jq '.total.accesses | (.relative_percent - 100 * .change / .a | fabs) < 1e-9' "$WORK/d.json")" true
check "functions: largest change in instructions first" \
    "$(jq '[.functions[] | .instructions.change | fabs] | . == (sort | reverse)' "$WORK/d.json")" true
check "functions: every changed row listed (--top 0)" "$(jq '(.functions | length) == .functions_changed' "$WORK/d.json")" true
"$AUGUR" diff --db "$DB" --top 2 1 2 >"$WORK/d.txt"
check "text: the two largest changes, leaf then work (a tie, by name)" \
    "$(awk '/^Functions:/ { on = 1; next } on && /^  / { n++ } on && n >= 2 && n <= 3 { print $(NF - 1) } n == 3 { exit }' "$WORK/d.txt" | paste -sd' ')" \
    "leaf work"
check "text: the runs named" "$(grep -cE '^  [AB]  run [12] of ' "$WORK/d.txt")" 2
"$AUGUR" diff --db "$DB" --cache 32K --sort misses --format json 1 2 >"$WORK/m.json"
check "--sort misses: largest change in misses first" \
    "$(jq '[.functions[] | .misses["32768:64"].change | fabs] | . == (sort | reverse)' "$WORK/m.json")" true

# two databases
cp "$DB" "$WORK/other.db"
"$AUGUR" diff --format json --top 0 "$DB:1" "$WORK/other.db:2" >"$WORK/two.json"
check "FILE:RUN operands: the same functions and changes" \
    "$(jq -c '.functions' "$WORK/two.json" | md5sum)" "$(jq -c '.functions' "$WORK/d.json" | md5sum)"
check "FILE:RUN operands: the databases named" "$(jq -r '.a.database, .b.database' "$WORK/two.json" | paste -sd' ')" \
    "$DB $WORK/other.db"

# errors
"$AUGUR" diff --db "$DB" 1 >/dev/null 2>"$WORK/err"
check "one operand: usage error" "$?:$(grep -c 'give the two runs to compare, A and B' "$WORK/err")" "2:1"
"$AUGUR" diff --db "$DB" 1 x:y >/dev/null 2>"$WORK/err"
check "a bad operand: usage error, with the forms" "$?:$(grep -c "bad run 'x:y': give a run id (3) or a database and a run id (old.db:3)" "$WORK/err")" "2:1"
"$AUGUR" diff --db "$DB" 1 7 >/dev/null 2>"$WORK/err"
check "an unknown run: its ids named" "$?:$(grep -c 'no run 7 in .*its run ids go from 1 to 2' "$WORK/err")" "1:1"
"$AUGUR" diff --db "$DB" 1 "$WORK/none.db:1" >/dev/null 2>"$WORK/err"
check "a missing database: named, with the fix" "$?:$(grep -c "no database $WORK/none.db" "$WORK/err")" "1:1"
"$AUGUR" diff --db "$DB" --sort misses 1 2 >/dev/null 2>"$WORK/err"
check "--sort misses without --cache: usage error" "$?" 2
finish
