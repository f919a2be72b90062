#!/bin/bash
# Threads get one LRU stack each; forked and exec'd children get profiles of
# their own in the same run; a crash leaves a partial profile; the exit
# status passes through.  Closed forms as in test_reuse_patterns.sh.
source "$TESTLIB"
SRC=$SRC_PROGRAMS/procs.c
LINE=$(line_of LOAD:thread-sweep "$SRC")
K=256 R=4
d=$((K - 1))
sweep_hist() { # COPIES — the histogram of COPIES independent sweeps
    echo "$(($1 * K * R)) $(($1 * K)) $(bin_of $d):$(($1 * K * (R - 1))):$(($1 * K * (R - 1) * d))"
}

# Three threads, each sweeping its own array: each thread's stack sees its
# own first touches and distance K-1, as if the others did not exist.
collect_to "$WORK/threads" -- "$PROGRAMS/procs" threads 3 $K $R
check "exit status" "$?" 0
p=$(main_profile "$WORK/threads")
check "threads counted" "$(awk '$1=="threads"{print $2}' "$p")" 4
check "three threads' sweeps" "$(hist_at "$p" procs.c "$LINE" 64)" "$(sweep_hist 3)"

# One thread after another: Valgrind gives the next thread the exited one's
# id, and malloc its memory; its stack must still start empty.
collect_to "$WORK/threads-seq" -- "$PROGRAMS/procs" threads-seq 3 $K $R
check "sequential threads' sweeps" "$(hist_at "$(main_profile "$WORK/threads-seq")" procs.c "$LINE" 64)" \
      "$(sweep_hist 3)"

# fork: the child's work is in the child's profile only.
collect_to "$WORK/fork" -- "$PROGRAMS/procs" fork $K $R
check "fork: two profiles" "$(kept_profiles "$WORK/fork" | wc -l)" 2
for p in $(kept_profiles "$WORK/fork"); do
    check "fork: $(basename "$p") has one sweep" "$(hist_at "$p" procs.c "$LINE" 64)" "$(sweep_hist 1)"
done

# exec: the exec'd program is followed into a profile of its own.
collect_to "$WORK/exec" -- "$PROGRAMS/procs" exec "$PROGRAMS/procs" threads 1 $K $R
check "exec: two profiles" "$(kept_profiles "$WORK/exec" | wc -l)" 2
check "exec: the child's sweep" \
      "$(for p in $(kept_profiles "$WORK/exec"); do hist_at "$p" procs.c "$LINE" 64; done)" "$(sweep_hist 1)"

# A crash: augur exits 128+11, the profile up to the crash is stored as partial.
collect_to "$WORK/crash" -- "$PROGRAMS/procs" crash $K $R 2>"$WORK/crash.err"
check "crash exit status" "$?" 139
p=$(main_profile "$WORK/crash")
check "crash: no exit line" "$(grep -c '^exit' "$p")" 0
check "crash: sweep before the crash kept" "$(hist_at "$p" procs.c "$LINE" 64)" "$(sweep_hist 1)"
check "crash: said partial" "$(grep -c 'partial' "$WORK/crash.err")" 2
# its 139 is augur's status, not the program's exit: the report names the signal
check "crash: report says the signal" \
    "$("$AUGUR" report --db "$WORK/test.db" | awk '$1 == "status" { sub(/^ *status +/, ""); print }')" \
    "partial: killed by signal 11 (SIGSEGV)"

# Exit status passes through.
collect_to "$WORK/exit" -- "$PROGRAMS/procs" exit 7
check "exit 7 passes through" "$?" 7
check "exit line" "$(awk '$1=="exit"{print $2}' "$(main_profile "$WORK/exit")")" 7
check "exit 7: report says the program's status" \
    "$("$AUGUR" report --db "$WORK/test.db" | awk '$1 == "status" { sub(/^ *status +/, ""); print }')" \
    "complete: exited with status 7"
finish
