#!/bin/bash
# Raw profiles kept by `augur collect --keep-profiles` import as a run with
# the same counts; a corrupt or truncated profile is refused with a clear
# error and the database is left as it was.
source "$TESTLIB"
DB=$WORK/import.db
collect_to "$WORK/kept" --param N=128 -- "$PROGRAMS/patterns" sweep 128 3
PROF=$(main_profile "$WORK/kept")
total() { sqlite3 "$1" "select sum(executions) from instructions"; }

"$AUGUR" import --db "$DB" --param N=128 "$PROF" 2>/dev/null
check "import status" "$?" 0
check "same instruction total as collect" "$(total "$DB")" "$(total "$WORK/test.db")"
check "parameter stored" "$(sqlite3 "$DB" "select value_text from params where name = 'N'")" 128

# expect_refused NAME PATTERN FILE — import FILE fails naming the problem,
# and the database still holds one run.
expect_refused() {
    "$AUGUR" import --db "$DB" "$3" >/dev/null 2>"$WORK/err"
    check "$1: status" "$?" 125
    check "$1: message" "$(grep -c -E -- "$2" "$WORK/err")" 1
    check "$1: database unchanged" "$(sqlite3 "$DB" 'select count(*) from runs')" 1
}

# One byte changed in the middle: the CRC-32 no longer matches.
cp "$PROF" "$WORK/corrupt.prof"
size=$(stat -c %s "$PROF")
printf 'X' | dd of="$WORK/corrupt.prof" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_refused "corrupt byte" "corrupt" "$WORK/corrupt.prof"

head -c $((size / 2)) "$PROF" >"$WORK/truncated.prof"
expect_refused "truncated" "truncated" "$WORK/truncated.prof"

: >"$WORK/empty.prof"
expect_refused "empty" "truncated" "$WORK/empty.prof"
expect_refused "missing" "cannot open" "$WORK/no-such.prof"

# Not a file: /dev/zero was read until memory ran out.
expect_refused "/dev/zero" "/dev/zero: not a regular file \(a device" /dev/zero

# tiny_profile PID EXECS — a profile of one process with one instruction
# executed EXECS times.
tiny_profile() {
    printf 'augur-profile 1\ntool augur-collect 0.1.0\npid %s\nppid 1\nexe /bin/true\nblock-size 64\nthreads 1\nins -1 1000 1 -1 -1 0 %s 0 0\nexit 0\n' \
        "$1" "$2" | framed
}
# 2^64 - 1 executions were stored, then reported as 140,481 instructions
# (the sum wrapped); two processes of 5 * 10^18 each are more than the 2^63 - 1
# a run may have.
tiny_profile 7001 18446744073709551615 >"$WORK/wrap.prof"
expect_refused "2^64 - 1 executions" "wrap.prof: line 8: the instructions' EXECS add up to more than 9223372036854775807" \
    "$WORK/wrap.prof"
tiny_profile 7002 5000000000000000000 >"$WORK/half1.prof"
tiny_profile 7003 5000000000000000000 >"$WORK/half2.prof"
"$AUGUR" import --db "$DB" "$WORK/half1.prof" "$WORK/half2.prof" >/dev/null 2>"$WORK/err"
check "run of 10^19 executions: status" "$?" 125
check "run of 10^19 executions: message" \
    "$(grep -c "half2.prof: with it the run's processes count more than 9223372036854775807 (2^63 - 1)" "$WORK/err")" 1
check "run of 10^19 executions: database unchanged" "$(sqlite3 "$DB" 'select count(*) from runs')" 1

# A process is stored once: the profile collect already stored (it kept it),
# or the one just imported, is refused naming the run that holds it.
expect_refused "already imported" "already stored in .* as part of run 1;" "$PROF"
"$AUGUR" import --db "$WORK/test.db" "$PROF" >/dev/null 2>"$WORK/err"
check "already collected: status" "$?" 125
check "already collected: message" "$(grep -c "already stored in $WORK/test.db as part of run 1;" "$WORK/err")" 1
check "already collected: database unchanged" "$(sqlite3 "$WORK/test.db" 'select count(*) from runs')" 1

# The same file twice (by any spelling), or a copy of it beside it, is
# refused before anything is stored: no database is created.
"$AUGUR" import --db "$WORK/twice.db" "$PROF" "$(dirname "$PROF")/../$(basename "$(dirname "$PROF")")/$(basename "$PROF")" \
    >/dev/null 2>"$WORK/err"
check "file given twice: status" "$?" 2
check "file given twice: message" "$(grep -c "is given twice (as PROFILE 1 and 2)" "$WORK/err")" 1
check "file given twice: no database" "$(ls "$WORK/twice.db" 2>/dev/null | wc -l)" 0
cp "$PROF" "$WORK/copy.prof"
"$AUGUR" import --db "$WORK/twice.db" "$PROF" "$WORK/copy.prof" >/dev/null 2>"$WORK/err"
check "copy of a profile: status" "$?" 125
check "copy of a profile: message" "$(grep -c "are profiles of the same process (pid" "$WORK/err")" 1
check "copy of a profile: no database" "$(ls "$WORK/twice.db" 2>/dev/null | wc -l)" 0
finish
