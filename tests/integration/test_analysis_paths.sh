#!/bin/bash
# augur collect --analysis pipe (the reuse-distance engines in augur's
# consumer process) and --analysis inline (in Valgrind's) give the same
# profiles: every count, histogram and stride of every process, compared in
# profile_canon.py's form.  Runs of one program are deterministic under
# Valgrind when their folders' paths are as long (they shift its memory), so
# both paths keep their profiles in folders of one length; but for the
# distances of the dynamic loader's preloading, which differ from run to run
# on either path (profile_canon.py --no-loader-distances).  Threads are
# scheduled as they come, so a threaded run is checked by its closed form
# on both paths instead.  Then what the pipe adds: a forked child's stacks
# start as copies of its parent's, a program that closes every descriptor is
# still measured, a consumer that dies fails the run with nothing stored,
# and a killed program ends the consumer.
source "$TESTLIB"
SRC=$SRC_PROGRAMS/procs.c
CANON="$(dirname "$0")/profile_canon.py"
K=256 R=4

# both NAME ARGS... — collect ARGS on each path into $WORK/NAME-i and
# $WORK/NAME-p; the exit statuses, "I P".
both() {
    local name=$1 si sp
    shift
    "$AUGUR" collect --db "$WORK/$name-i.db" --analysis inline --keep-profiles "$WORK/$name-i" "$@" >/dev/null 2>&1
    si=$?
    "$AUGUR" collect --db "$WORK/$name-p.db" --analysis pipe --keep-profiles "$WORK/$name-p" "$@" >/dev/null 2>&1
    sp=$?
    echo "$si $sp"
}

# canon_all DIR — every profile DIR kept, canonical, in the order of their contents.
canon_all() {
    for p in $(kept_profiles "$1"); do python3 "$CANON" --no-loader-distances "$p" | md5sum; done | sort
}

# same NAME ARGS... — both paths, then a check that they gave the same profiles.
same() {
    local name=$1
    check "$name: both ran" "$(both "$@")" "0 0"
    check "$name: profiles" "$(kept_profiles "$WORK/$name-p" | wc -l)" "$(kept_profiles "$WORK/$name-i" | wc -l)"
    check "$name: same on both paths" "$(canon_all "$WORK/$name-p")" "$(canon_all "$WORK/$name-i")"
}

same sweep -- "$PROGRAMS/patterns" interleaved 300 3
same sampled --sample-rd 0.25 -- "$PROGRAMS/patterns" permutation 512 3
same blocks --block-sizes 8,64,256,4096 -- "$PROGRAMS/patterns" matmul 24 1
same sets --set-counts 1,64,2048,4096 -- "$PROGRAMS/sets_aligned" 9 32 4 1
same intervals --instr-at-start no --interval-functions exchange -- "$PROGRAMS/phases" 40 3
same callsites --instr-at-start no --interval-functions exchange --interval-by callsite -- "$PROGRAMS/phases" 40 3
same regions --region-function 'phase_?' -- "$PROGRAMS/phases" 40 3
same exec -- "$PROGRAMS/procs" exec "$PROGRAMS/procs" fork $K $R
same closefds -- "$PROGRAMS/procs" closefds $K $R
same fork -- "$PROGRAMS/procs" fork-warm $K $R

# The helper's distance-1 case (collect_runtime.c, take_near) against the
# engines alone (--augur-near-check=no): the same profiles, strides
# included, where it takes most accesses (the matrix product's row of A, at
# distance 1 from B's column at every block size but the largest).  The two
# options are of one length, so that the runs' memory is laid out alike.
near() {
    local name=$1 opt
    shift
    for opt in "no " yes; do
        VALGRIND_OPTS="--augur-near-check=$opt" "$AUGUR" collect --db "$WORK/$name-${opt:0:1}.db" --analysis inline \
            --keep-profiles "$WORK/$name-${opt:0:1}" "$@" >/dev/null 2>&1
        check "$name (near check ${opt% }): ran" "$?" 0
    done
    check "$name: same with the near check and without" "$(canon_all "$WORK/$name-y")" "$(canon_all "$WORK/$name-n")"
}
near near-matmul --block-sizes 8,64,256,4096 -- "$PROGRAMS/patterns" matmul 24 2
near near-fork -- "$PROGRAMS/procs" fork-warm $K $R
near near-sweep --block-sizes 32,4096 -- "$PROGRAMS/patterns" stride 300 3

# The fork's child sweeps the lines its parent swept: with its stacks copies
# of the parent's (the pipe's child rebuilds them from the consumer's), none
# of its touches is a first one.
WARM=$(line_of LOAD:warm-sweep "$SRC")
for path in i p; do
    child=$(for f in $(kept_profiles "$WORK/fork-$path"); do hist_at "$f" procs.c "$WARM" 64; done |
            awk -v t=$((K * R)) '$1 == t { print $2 }')
    check "fork ($path): the child's $((K * R)) touches, none cold" "$child" 0
done

# A program that closes every descriptor it can: the channel is Valgrind's,
# out of its reach, and its sweep is measured.
LOAD=$(line_of LOAD:thread-sweep "$SRC")
d=$((K - 1))
check "closefds: the sweep's closed form" "$(hist_at "$(main_profile "$WORK/closefds-p")" procs.c "$LOAD" 64)" \
      "$((K * R)) $K $(bin_of $d):$((K * (R - 1))):$((K * (R - 1) * d))"

# Threads, each with its own stacks, on both paths.
for path in inline pipe; do
    "$AUGUR" collect --db "$WORK/t.db" --analysis $path --keep-profiles "$WORK/threads-$path" -- \
        "$PROGRAMS/procs" threads 3 $K $R >/dev/null 2>&1
    check "threads ($path): three sweeps" "$(hist_at "$(main_profile "$WORK/threads-$path")" procs.c "$LOAD" 64)" \
          "$((3 * K * R)) $((3 * K)) $(bin_of $d):$((3 * K * (R - 1))):$((3 * K * (R - 1) * d))"
done

# The consumer killed while the program runs: the tool's next send fails, the
# run fails (125) with a message that names the consumer, nothing is stored.
consumer_killed 'reuse-distance consumer.*killed by signal 9.*nothing was stored' "$WORK/dead.db" \
    collect --db "$WORK/dead.db"

# The program (Valgrind) killed: the consumer reads the end of the records
# and ends, and augur with it.
program_killed collect --db "$WORK/killed.db"

# --analysis takes pipe, inline or auto only.
out=$("$AUGUR" collect --db "$WORK/bad.db" --analysis both -- "$PROGRAMS/procs" exit 0 2>&1)
check "bad --analysis: status" "$?" 2
check "bad --analysis: says what to give" "$(grep -c "analysis 'both': give pipe" <<<"$out")" 1
finish
