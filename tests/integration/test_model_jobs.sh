#!/bin/bash
# test_model_jobs.sh — `augur model --jobs`: the model set stored is the same, row for
# row and bit for bit (scripts/model_rows.sh, the models' spreads included), whether
# the groups are fitted on one thread or on two; the count of groups fitted is shown
# in place on a terminal and not on a pipe or with --quiet; bad --jobs values are
# usage errors.
# Trained on tests/programs/structure/kernels.c (-O2) at N = 20..36, as test_model.sh.
source "$TESTLIB"
PROG="$PROGRAMS/kernels_O2"
DB="$WORK/k.db"
ROWS="$(dirname "$TESTLIB")/../../scripts/model_rows.sh"

for n in 20 24 28 32 36; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n >/dev/null 2>&1
done

# ---- one thread and two: the same rows ------------------------------------------
"$AUGUR" model --db "$DB" --jobs 1 >"$WORK/j1.out" 2>"$WORK/j1.err"
check "--jobs 1 exit" "$?" 0
bash "$ROWS" "$DB" 1 >"$WORK/j1.rows"
"$AUGUR" model --db "$DB" --jobs 2 >"$WORK/j2.out" 2>"$WORK/j2.err"
check "--jobs 2 exit" "$?" 0
bash "$ROWS" "$DB" 2 >"$WORK/j2.rows"
groups=$(sqlite3 "$DB" "SELECT count(*) FROM rd_groups WHERE set_id = 2")
check "groups of both block sizes fitted" "$(awk -v g="$groups" 'BEGIN { print (g > 200) }')" 1
check "rows stored" "$(awk '$1 ~ /^(model|group|member|part)\|/ { n++ } END { print (n > 10000) }' "$WORK/j2.rows")" 1
check "spreads compared" "$(awk -F'|' '$1 == "model" && $NF != "" { n++ } END { print (n > 500) }' "$WORK/j2.rows")" 1
if cmp -s "$WORK/j1.rows" "$WORK/j2.rows"; then same=yes; else same=no; diff "$WORK/j1.rows" "$WORK/j2.rows" | head -5; fi
check "--jobs 1 and --jobs 2 store the same models" "$same" yes
check "the summary names the groups" "$(grep -c "reuse-distance groups" "$WORK/j2.out")" 1

# ---- progress: counts on a terminal only ------------------------------------------
check "no count on a pipe" "$(grep -c 'reuse groups:' "$WORK/j2.err")" 0
check "progress lines on a pipe" "$(grep -c '^augur model: fitting reuse-distance models of' "$WORK/j2.err")" 1
script -qec "$(printf '%q ' "$AUGUR" model --db "$DB" --jobs 2)" /dev/null >"$WORK/tty.txt"
total=$(sqlite3 "$DB" "SELECT count(*) FROM rd_groups WHERE set_id = 3")
last=$(tr '\r' '\n' <"$WORK/tty.txt" | grep 'reuse groups:' | tail -1)
check "the count on a terminal ends at the total" "$last" "augur model: reuse groups: $total of $total"
check "the count is updated in place" "$(grep -c $'\r''augur model: reuse groups:' "$WORK/tty.txt")" 1
script -qec "$(printf '%q ' "$AUGUR" model --db "$DB" --quiet)" /dev/null >"$WORK/tty_quiet.txt"
check "--quiet on a terminal: only the summary" "$(grep -vc '^model set 4 stored' "$WORK/tty_quiet.txt")" 0

# ---- bad values ---------------------------------------------------------------------
"$AUGUR" model --db "$DB" --jobs 0 2>"$WORK/e1"
check "--jobs 0: usage error" "$?" 2
check "--jobs 0: message" "$(grep -c "bad --jobs '0': give a number of threads from 1 to" "$WORK/e1")" 1
"$AUGUR" model --db "$DB" --show --jobs 2 >/dev/null 2>"$WORK/e2"
check "--show --jobs: usage error" "$?" 2
check "nothing more stored" "$(sqlite3 "$DB" "SELECT count(*) FROM model_sets")" 4
finish
