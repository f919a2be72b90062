#!/bin/bash
# Two `augur collect` processes writing one database at the same time both land.
source "$TESTLIB"
DB=$WORK/shared.db
for n in 1 2 3 4; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROGRAMS/patterns" sweep $((64 * n)) 3 \
        >/dev/null 2>"$WORK/err.$n" &
done
wait
check "runs stored" "$(sqlite3 "$DB" 'select count(*) from runs')" 4
check "distinct parameter values" "$(sqlite3 "$DB" "select count(distinct value) from params where name = 'N'")" 4
finish
