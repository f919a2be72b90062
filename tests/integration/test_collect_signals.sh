#!/bin/bash
# Signals to `augur collect` and `augur memspy`.  SIGTERM, SIGHUP or SIGINT
# sent to augur is passed on to the program's processes, which end at once;
# the run is stored `partial` with the signal named, augur exits with
# 128 + the signal and leaves no temporary folder.  augur killed with SIGKILL
# takes the Valgrind process with it and leaves its folder, which the next
# start removes (a live run's folder and another user's are left alone).
source "$TESTLIB"
set -m # background jobs get their own process group and keep SIGINT, as from a terminal's shell
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
DB=$WORK/signals.db
STARTED=$WORK/started

# start_run COMMAND CHILDREN ARGS... — start `augur COMMAND ARGS... --
# procs wait $STARTED 60 CHILDREN` in the background, its stderr in
# $WORK/err, and wait until the program and its children run; sets AUGUR_PID,
# VG_PID (the Valgrind process), KIDS (the program's forked children) and
# CONSUMER (collect's reuse-distance consumer, augur's other child: empty
# when there is none).
start_run() {
    local command=$1 children=$2
    shift 2
    rm -f "$STARTED"
    "$AUGUR" "$command" "$@" -- "$PROGRAMS/procs" wait "$STARTED" 60 "$children" >/dev/null 2>"$WORK/err" &
    AUGUR_PID=$!
    for _ in $(seq 600); do [ -e "$STARTED" ] && break; sleep 0.1; done
    VG_PID=$(tool_child "$AUGUR_PID") CONSUMER=$(consumer_child "$AUGUR_PID")
    KIDS=$(pgrep -P "$VG_PID")
}

# leftovers — the entries of $TMPDIR, one line.
leftovers() { ls "$TMPDIR" | tr '\n' ' '; }

# stop_left PID... — end what a failed check left running (this test's processes only).
stop_left() { kill -KILL "$@" 2>/dev/null; }

# SIGTERM, SIGHUP, SIGINT: passed on, the run stored as partial, nothing left.
for sig in TERM HUP INT; do
    n=$(kill -l "$sig")
    start_run collect 1 --db "$DB" --analysis pipe
    # shellcheck disable=SC2086  # KIDS is a list of pids
    check "SIG$sig: the program and its child run under Valgrind" "$(echo $VG_PID $KIDS | wc -w)" 2
    check "SIG$sig: the reuse-distance consumer runs beside it" "$([ -n "$CONSUMER" ] && echo yes)" yes
    if [ $sig = TERM ]; then
        # Another collect starting now cleans stale folders, and must not take this live one.
        "$AUGUR" collect --db "$WORK/other.db" -- /bin/true 2>/dev/null
        check "a live run's folder survives another start" "$(ls -d "$TMPDIR"/augur-collect-* | wc -l)" 1
    fi
    kill -$sig "$AUGUR_PID"
    # shellcheck disable=SC2086
    check "SIG$sig: the program's processes end within 5 s" "$(gone_within 5 $VG_PID $KIDS)" 1
    check "SIG$sig: so does the consumer" "$(gone_within 5 "$CONSUMER")" 1
    wait "$AUGUR_PID"
    check "SIG$sig: augur exits with 128 + $n" "$?" $((128 + n))
    check "SIG$sig: the message names the signal" \
        "$(grep -c "the program was killed by signal $n (SIG$sig); its partial profile is stored" "$WORK/err")" 1
    check "SIG$sig: stored as partial" \
        "$(sqlite3 "$DB" "select status || ': ' || status_detail || ', ' || exit_code from runs order by id desc limit 1")" \
        "partial: killed by signal $n (SIG$sig), $((128 + n))"
    check "SIG$sig: both processes stored" \
        "$(sqlite3 "$DB" "select count(*) from processes where run_id = (select max(id) from runs)")" 2
    check "SIG$sig: no temporary folder left" "$(leftovers)" ""
    # shellcheck disable=SC2086
    stop_left $VG_PID $KIDS $CONSUMER
done

# A program that takes no notice of the first signal is killed by the second.
start_run collect 0 --db "$DB" --analysis pipe
kill -STOP "$VG_PID" # a stopped program does not act on SIGTERM until it continues
kill -TERM "$AUGUR_PID"
sleep 0.5
kill -TERM "$AUGUR_PID"
check "second SIGTERM: the program ends within 5 s" "$(gone_within 5 "$VG_PID")" 1
check "second SIGTERM: so does the consumer" "$(gone_within 5 "$CONSUMER")" 1
wait "$AUGUR_PID"
check "second SIGTERM: exit status 128 + SIGKILL" "$?" 137
check "second SIGTERM: said" "$(grep -c 'SIGTERM again: killing the program' "$WORK/err")" 1
check "second SIGTERM: nothing stored, signal named" \
    "$(grep -c 'killed by signal 9 (SIGKILL) before the collector wrote its profile; nothing was stored' "$WORK/err")" 1
check "second SIGTERM: no temporary folder left" "$(leftovers)" ""
stop_left "$VG_PID"

# SIGKILL: the Valgrind process dies with augur; the folder stays until the next start.
start_run collect 0 --db "$DB" --analysis pipe
kill -KILL "$AUGUR_PID"
wait "$AUGUR_PID" 2>/dev/null
check "SIGKILL: the Valgrind process ends within 5 s" "$(gone_within 5 "$VG_PID")" 1
check "SIGKILL: so does the consumer" "$(gone_within 5 "$CONSUMER")" 1
stop_left "$VG_PID"
stale=$(ls "$TMPDIR")
check "SIGKILL: the run's folder is left, and only it" "$(echo "$stale" | grep -c '^augur-collect-')" 1
# The same dead run's folder, but another user's (root can make one): not
# this user's to remove.
foreign="" what="the dead run's folder is removed"
if [ "$(id -u)" = 0 ]; then
    cp -a "$TMPDIR/$stale" "$TMPDIR/augur-collect-foreign"
    chown -R nobody "$TMPDIR/augur-collect-foreign"
    foreign="augur-collect-foreign " what="$what, another user's kept"
fi
"$AUGUR" collect --db "$DB" -- /bin/true 2>/dev/null
check "next start: $what" "$(leftovers)" "$foreign"
rm -rf "${TMPDIR:?}"/augur-collect-foreign

# augur memspy: the same for its run.
start_run memspy 0 --machine zen4 --output "$WORK/memspy.txt"
kill -TERM "$AUGUR_PID"
check "memspy SIGTERM: the program ends within 5 s" "$(gone_within 5 "$VG_PID")" 1
wait "$AUGUR_PID"
check "memspy SIGTERM: exit status" "$?" 143
check "memspy SIGTERM: the message names the signal" \
    "$(grep -c 'the program was killed by signal 15 (SIGTERM)' "$WORK/err")" 1
check "memspy SIGTERM: the report of what ran is written" "$(grep -c 'SIGTERM' "$WORK/memspy.txt")" 1
check "memspy SIGTERM: no temporary folder left" "$(leftovers)" ""
stop_left "$VG_PID"

start_run memspy 0 --machine zen4 --output "$WORK/memspy.txt"
kill -KILL "$AUGUR_PID"
wait "$AUGUR_PID" 2>/dev/null
check "memspy SIGKILL: the Valgrind process ends within 5 s" "$(gone_within 5 "$VG_PID")" 1
stop_left "$VG_PID"
check "memspy SIGKILL: the run's folder is left" "$(ls "$TMPDIR" | grep -c '^augur-memspy-')" 1
"$AUGUR" memspy --machine zen4 --output "$WORK/memspy.txt" -- /bin/true 2>/dev/null
check "memspy: the next start removes it" "$(leftovers)" ""
finish
