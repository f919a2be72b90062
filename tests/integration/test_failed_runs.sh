#!/bin/bash
# test_failed_runs.sh — a program that exits non-zero: `augur collect` passes
# its status on and says it is the program's, the run is stored `complete`
# with status_detail "exited with status N" and that exit_code, and `augur
# model` leaves it out by default with a warning naming it (--include-failed
# fits it).  kernels N exits 2 (its usage error) for N < 2.
source "$TESTLIB"
PROG="$PROGRAMS/kernels_O2"
DB="$WORK/f.db"
for n in 8 10 12; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n >/dev/null 2>&1
done
"$AUGUR" collect --db "$DB" --param N=0 -- "$PROG" 0 >/dev/null 2>"$WORK/c.err"
check "failing program: collect passes its status" "$?" 2
check "failing program: collect says it is the program's" \
    "$(grep -c "the program exited with status 2; augur exits with the program's status, not an error of its own" "$WORK/c.err")" 1
check "failing program: summary shows the exit" "$(grep -c 'run 4 stored in .* (complete: exited with status 2)' "$WORK/c.err")" 1
check "failing program: stored" "$(sqlite3 "$DB" "select status || '|' || status_detail || '|' || exit_code from runs where id = 4")" \
    "complete|exited with status 2|2"
check "good runs: no detail" "$(sqlite3 "$DB" "select count(*) from runs where status_detail = '' and exit_code = 0")" 3

"$AUGUR" model --db "$DB" --quiet >"$WORK/m1.out" 2>"$WORK/m1.err"
check "model: exit" "$?" 0
check "model: failed run left out" "$(sqlite3 "$DB" "select runs from model_sets order by id desc limit 1")" "[1,2,3]"
check "model: warning names it" "$(grep -c '^augur model: warning: run 4: the program exited with status 2; left out (--include-failed' "$WORK/m1.err")" 1
"$AUGUR" model --db "$DB" --quiet --include-failed >"$WORK/m2.out" 2>"$WORK/m2.err"
check "model --include-failed: exit" "$?" 0
check "model --include-failed: fitted" "$(sqlite3 "$DB" "select runs from model_sets order by id desc limit 1")" "[1,2,3,4]"
check "model --include-failed: warned" "$(grep -c 'run 4: the program exited with status 2; fitted (--include-failed)' "$WORK/m2.err")" 1
"$AUGUR" model --db "$DB" --show --include-failed >/dev/null 2>&1
check "model --show --include-failed: usage error" "$?" 2

# only failed runs: refused by name, nothing stored
"$AUGUR" collect --db "$WORK/bad.db" --param N=1 -- "$PROG" 1 >/dev/null 2>&1
"$AUGUR" model --db "$WORK/bad.db" --quiet 2>"$WORK/m3.err"
check "only failed runs: exit" "$?" 1
check "only failed runs: message" "$(grep -c "every complete run's program exited non-zero; fix the runs, or give --include-failed" "$WORK/m3.err")" 1
check "only failed runs: nothing stored" "$(sqlite3 "$WORK/bad.db" "select count(*) from model_sets")" 0
finish
