#!/bin/bash
# test_exports.sh — `augur export` (docs/exports.md) on calltree
# (tests/programs/calltree.c: leaf is called 3K times on N longs) at
# N = 64, 128, 192 and N = 64 again, K = 2, and a run that failed:
#   - --format extrap: the file passes Extra-P's text grammar
#     (exports_check.py spells it out: PARAMETER, POINTS, METRIC, REGION,
#     DATA lines, a DATA line per point after each region, each METRIC
#     once); one parameter N, points 64 128 192, the repeated N = 64 a
#     repetition; leaf's accesses grow by 3K per N (closed form) and equal
#     the report's; the failed run is left out;
#   - two varying parameters make points of two coordinates;
#   - --format csv: parsed back (RFC 4180, CRLF records) and every record
#     equal to the runs' `augur report --format json`; --runs chooses;
#   - errors: no --format, a bad one, a missing database, an unknown run,
#     runs without parameters for Extra-P; --output leaves no file then.
source "$TESTLIB"
PROG="$PROGRAMS/calltree"
DB="$WORK/e.db"
CHECK="python3 $(dirname "${BASH_SOURCE[0]}")/exports_check.py"
K=2

for n in 64 128 192 64; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n $K >/dev/null 2>&1
done
"$AUGUR" collect --db "$DB" --param N=256 -- "$PROG" 256 0 >/dev/null 2>&1 # exits 2: k < 1
check "five runs, the last failed" "$(sqlite3 "$DB" "SELECT group_concat(exit_code) FROM runs")" "0,0,0,0,2"

# ---- Extra-P ------------------------------------------------------------------------
"$AUGUR" export --db "$DB" --format extrap >"$WORK/e.txt"
check "export --format extrap exit" "$?" 0
$CHECK extrap "$WORK/e.txt" >"$WORK/e.check"
check "the file passes Extra-P's text grammar" "$?" 0
check "3 points, 6 metrics" "$(head -n 1 "$WORK/e.check" | grep -oE '3 points, [0-9]+ regions, 6 metrics' | sed 's/, [0-9]* regions//')" "3 points, 6 metrics"
check "one parameter, N" "$(grep '^PARAMETER' "$WORK/e.txt")" "PARAMETER N"
check "points: N ascending" "$(grep '^POINTS' "$WORK/e.txt")" "POINTS 64 128 192"
check "the failed run is left out" "$(grep -c 'runs 1, 2, 3, 4$' "$WORK/e.txt")" 1
data() { grep "^$1|$2|$3|" "$WORK/e.check" | cut -d'|' -f4; }
leaf64=$(data accesses leaf 1) leaf128=$(data accesses leaf 2) leaf192=$(data accesses leaf 3)
check "N = 64 twice: two repetitions, equal" "$(echo "$leaf64" | awk '{ print NF, $1 == $2 }')" "2 1"
check "leaf's accesses grow by 3K per N" "$((leaf128 - ${leaf64% *})) $((leaf192 - leaf128))" "$((3 * K * 64)) $((3 * K * 64))"
"$AUGUR" report --db "$DB" --run 2 --format json --top 0 >"$WORK/r2.json"
check "leaf's accesses at N = 128 are the report's" "$leaf128" \
    "$(jq '.functions[] | select(.function == "leaf") | .accesses' "$WORK/r2.json")"
check "misses per cache are metrics" "$(grep -c '^METRIC misses ' "$WORK/e.txt")" 2

# two parameters that vary: points of two coordinates
DB2="$WORK/two.db"
for nk in "64 1" "64 2" "128 1"; do
    set -- $nk
    "$AUGUR" collect --db "$DB2" --param N=$1 --param K=$2 -- "$PROG" $1 $2 >/dev/null 2>&1
done
"$AUGUR" export --db "$DB2" --format extrap --cache 4K >"$WORK/two.txt"
$CHECK extrap "$WORK/two.txt" >/dev/null
check "two parameters: the grammar" "$?" 0
check "two parameters: the points" "$(grep -E '^(PARAMETER|POINTS)' "$WORK/two.txt" | paste -sd'|')" \
    "PARAMETER K N|POINTS (1 64) (1 128) (2 64)"

# ---- CSV ------------------------------------------------------------------------------
"$AUGUR" export --db "$DB" --format csv --output "$WORK/e.csv"
check "export --format csv exit" "$?" 0
for r in 1 2 3 4; do
    "$AUGUR" report --db "$DB" --run $r --show-startup --format json --top 0 >"$WORK/r$r.json"
done
$CHECK csv "$WORK/e.csv" "$WORK"/r{1,2,3,4}.json >"$WORK/csv.check"
check "CSV records equal the reports' JSON" "$?" 0
cat "$WORK/csv.check"
check "CSV header" "$(head -n 1 "$WORK/e.csv" | tr -d '\r')" "run,N,scope,function,module,file,line,metric,cache,value"
"$AUGUR" export --db "$DB" --format csv --runs 2-3,5 >"$WORK/some.csv"
check "--runs 2-3,5: those runs, the failed one named too" \
    "$(tail -n +2 "$WORK/some.csv" | cut -d, -f1 | sort -u | paste -sd,)" "2,3,5"

# ---- errors ----------------------------------------------------------------------------
"$AUGUR" export --db "$DB" >/dev/null 2>"$WORK/err"
check "no --format: usage error" "$?:$(grep -c 'give the format to write: --format extrap or --format csv' "$WORK/err")" "2:1"
"$AUGUR" export --db "$DB" --format xml >/dev/null 2>"$WORK/err"
check "a bad format: usage error naming the ones there are" \
    "$?:$(grep -c "give --format extrap or --format csv" "$WORK/err")" "2:1"
"$AUGUR" export --db "$WORK/none.db" --format csv >/dev/null 2>"$WORK/err"
check "a missing database: named, with the fix" "$?:$(grep -c "no database $WORK/none.db: run \`augur collect" "$WORK/err")" "1:1"
"$AUGUR" export --db "$DB" --format csv --runs 9 --output "$WORK/bad.csv" 2>"$WORK/err"
check "an unknown run: its ids named" "$?:$(grep -c 'no run 9 in .*its run ids go from 1 to 5' "$WORK/err")" "1:1"
check "an unknown run: no file left" "$(ls "$WORK" | grep -c 'bad.csv')" 0
DB3="$WORK/noparams.db"
"$AUGUR" collect --db "$DB3" -- "$PROG" 64 1 >/dev/null 2>&1
"$AUGUR" export --db "$DB3" --format extrap >/dev/null 2>"$WORK/err"
check "runs without parameters: Extra-P's needs named" \
    "$?:$(grep -c 'has no parameters: Extra-P models counts as functions of parameters (collect the runs with --param' "$WORK/err")" "1:1"
"$AUGUR" export --db "$DB3" --format csv >/dev/null
check "runs without parameters: CSV is fine" "$?" 0
finish
