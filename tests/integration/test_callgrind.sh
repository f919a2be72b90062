#!/bin/bash
# test_callgrind.sh — `augur report --format callgrind` and `augur predict
# --format callgrind` (docs/exports.md) on calltree (tests/programs/
# calltree.c: top calls mid and leaf K times each, mid calls leaf twice;
# near and far call work on N and 8N longs; rec recurses), collected at
# N = 64..320 with K = 3:
#   - the calls the collector recorded equal Callgrind's calls between the
#     program's functions (same binary, same arguments) and their closed
#     forms (top->mid K, top->leaf K, mid->leaf 2K, rec->rec 4);
#   - callgrind_annotate reads the files without a warning, and its totals
#     and per-function figures equal augur's JSON (report, report
#     --machine zen4, predict at N = 2048 with caches and with zen4);
#   - inclusive costs (callgrind_annotate --inclusive=yes) of top, mid,
#     leaf and work equal Callgrind's, whose calls of one function all cost
#     the same; near and far (work on N and on 8N) share work's by calls,
#     and their sum equals Callgrind's;
#   - predicted calls are the closed forms, and top's predicted inclusive
#     instructions are top's, mid's and leaf's predicted own ones;
#   - a run stored without calls is written with a warning, no calls;
#     --format callgrind with --top or --scopes is a usage error.
source "$TESTLIB"
PROG="$PROGRAMS/calltree"
DB="$WORK/ct.db"
CHECK="python3 $(dirname "${BASH_SOURCE[0]}")/callgrind_check.py"
K=3

for n in 64 128 192 256 320; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n $K >/dev/null 2>&1
done
check "collect exit" "$?" 0
valgrind --tool=callgrind --callgrind-out-file="$WORK/vg.cg" "$PROG" 320 $K >/dev/null 2>&1

# ---- measured calls ---------------------------------------------------------------
"$AUGUR" report --db "$DB" --format callgrind >"$WORK/run.cg" 2>"$WORK/run.err"
check "report --format callgrind exit" "$?" 0
check "no warning" "$(cat "$WORK/run.err")" ""
own='^(main|top|mid|leaf|near|far|work|rec)\|(top|mid|leaf|near|far|work|rec)\|'
check "calls between the program's functions equal Callgrind's" \
    "$($CHECK calls "$WORK/run.cg" | grep -E "$own" | paste -sd' ')" \
    "$($CHECK calls "$WORK/vg.cg" | grep -E "$own" | paste -sd' ')"
check "calls: the closed forms" "$($CHECK calls "$WORK/run.cg" | grep -E "$own" | paste -sd' ')" \
    "far|work|1 main|far|1 main|near|1 main|rec|1 main|top|1 mid|leaf|$((2 * K)) near|work|1 rec|rec|4 top|leaf|$K top|mid|$K"
check "calls through the PLT count to the library function (main -> printf once)" \
    "$($CHECK calls "$WORK/run.cg" | grep -c '^main|printf|1$')" 1

# ---- what callgrind_annotate shows ------------------------------------------------------
compare() { # NAME JSON FILE
    $CHECK compare "$2" "$3" >"$WORK/$1.cmp" 2>&1
    check "$1: callgrind_annotate's totals and every function equal augur's" "$?" 0
    check "$1: functions compared" "$(grep -cE '^[0-9]{2,} functions compared$' "$WORK/$1.cmp")" 1
}
"$AUGUR" report --db "$DB" --show-startup --format json --top 0 >"$WORK/run.json"
compare report "$WORK/run.json" "$WORK/run.cg"
"$AUGUR" report --db "$DB" --machine zen4 --show-startup --format json --top 0 >"$WORK/machine.json" 2>/dev/null
"$AUGUR" report --db "$DB" --machine zen4 --format callgrind >"$WORK/machine.cg" 2>/dev/null
check "report --machine: events" "$(grep '^events:' "$WORK/machine.cg")" "events: Ir Acc L1m L2m L3m Cyc"
compare "report --machine" "$WORK/machine.json" "$WORK/machine.cg"

# ---- inclusive costs against Callgrind's -------------------------------------------------
check "inclusive Ir of top, mid, leaf, work equal Callgrind's" \
    "$($CHECK inclusive "$WORK/run.cg" top mid leaf work | paste -sd' ')" \
    "$($CHECK inclusive "$WORK/vg.cg" top mid leaf work | paste -sd' ')"
sum() { $CHECK inclusive "$1" near far | awk '{ s += $1 } END { print s }'; }
check "inclusive Ir of near + far equals Callgrind's" "$(sum "$WORK/run.cg")" "$(sum "$WORK/vg.cg")"
check "near and far share work's by calls (1 each)" \
    "$($CHECK inclusive "$WORK/run.cg" near far | awk 'NR == 1 { a = $1 } NR == 2 { d = $1 - a } END { print (d * d <= 1) }')" 1

# ---- predictions --------------------------------------------------------------------------
"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "model exit" "$?" 0
"$AUGUR" predict --db "$DB" --param N=2048 --show-startup --format json --top 0 >"$WORK/pred.json" 2>/dev/null
"$AUGUR" predict --db "$DB" --param N=2048 --format callgrind >"$WORK/pred.cg" 2>"$WORK/pred.err"
check "predict --format callgrind exit" "$?" 0
check "predict: the extrapolation is warned on stderr" "$(grep -c 'N=2048 is 6.4x the largest fitted value' "$WORK/pred.err")" 1
compare predict "$WORK/pred.json" "$WORK/pred.cg"
check "predicted calls: the closed forms" "$($CHECK calls "$WORK/pred.cg" | grep -E "$own" | paste -sd' ')" \
    "far|work|1 main|far|1 main|near|1 main|rec|1 main|top|1 mid|leaf|$((2 * K)) near|work|1 rec|rec|4 top|leaf|$K top|mid|$K"
own_sum=$(jq '[.functions[] | select(.function == "top" or .function == "mid" or .function == "leaf")
               | .instructions] | add | round' "$WORK/pred.json")
check "predicted inclusive Ir of top = top + mid + leaf (within rounding)" \
    "$($CHECK inclusive "$WORK/pred.cg" top | awk -v w="$own_sum" '{ d = $1 - w; print (d * d <= 1) }')" 1
"$AUGUR" predict --db "$DB" --param N=2048 --machine zen4 --show-startup --format json --top 0 >"$WORK/predm.json" 2>/dev/null
"$AUGUR" predict --db "$DB" --param N=2048 --machine zen4 --format callgrind >"$WORK/predm.cg" 2>/dev/null
compare "predict --machine" "$WORK/predm.json" "$WORK/predm.cg"

# ---- runs without calls, usage errors ------------------------------------------------------
cp "$DB" "$WORK/old.db"
sqlite3 "$WORK/old.db" "DELETE FROM call_edges"
"$AUGUR" report --db "$WORK/old.db" --format callgrind >"$WORK/old.cg" 2>"$WORK/old.err"
check "a run without calls: exit" "$?" 0
check "a run without calls: warned" "$(grep -c 'no calls recorded' "$WORK/old.err")" 1
check "a run without calls: no calls= lines" "$(grep -c '^calls=' "$WORK/old.cg")" 0
"$AUGUR" report --db "$DB" --format callgrind --top 5 >/dev/null 2>"$WORK/top.err"
check "--top with callgrind: usage error" "$?" 2
check "--top with callgrind: says why" "$(grep -c 'writes every function and line of the run: --top does nothing' "$WORK/top.err")" 1
"$AUGUR" report --db "$DB" --format callgrind --scopes >/dev/null 2>&1
check "--scopes with callgrind: usage error" "$?" 2
"$AUGUR" report --db "$DB" --format xml >/dev/null 2>"$WORK/fmt.err"
check "a bad format names the ones there are" \
    "$(grep -c "give --format text, --format json or --format callgrind" "$WORK/fmt.err")" 1
finish
