#!/bin/bash
# test_memspy_analysis.sh — `augur memspy --analysis pipe` (the simulator in
# a consumer process of augur's, fed through a ring of shared memory) and
# --analysis inline (in Valgrind's process) write the same raw file: heap,
# global and stack objects, time and shadow sampling, a fork, a crash, an
# exec; set sampling the same report; with threads, the same figures for
# the threads' data (two inline runs of a threaded program differ in the C
# library's code that waits, which the scheduling decides, so whole files
# are not compared).
# A consumer that dies fails the run (125) with a message and no report; a
# killed program ends the consumer; SIGTERM is passed on as without it.
source "$TESTLIB"

# spy NAME PATH ARGS... — augur memspy --analysis PATH, the raw file kept
# in $WORK/NAME.PATH.raw and the JSON report in $WORK/NAME.PATH.json;
# prints augur's status.
spy() {
    local name=$1 path=$2
    shift 2
    "$AUGUR" memspy --machine zen4 --analysis "$path" --format json --output "$WORK/run.json" \
        --keep-raw "$WORK/run.raw" "$@" >/dev/null 2>"$WORK/$name.$path.err"
    echo $?
    mv "$WORK/run.json" "$WORK/$name.$path.json" 2>/dev/null
    mv "$WORK/run.raw" "$WORK/$name.$path.raw" 2>/dev/null
}

# body FILE — a raw file without what differs between any two runs: the
# process ids and the checksum over them.
body() { grep -v -e '^pid ' -e '^ppid ' -e '^end ' "$1"; }

# same_file NAME STATUS ARGS... — both paths end with STATUS and write the
# same raw file, which has pairs.
same_file() {
    local name=$1 status=$2
    shift 2
    check "$name: inline's status" "$(spy "$name" inline "$@")" "$status"
    check "$name: pipe's status" "$(spy "$name" pipe "$@")" "$status"
    check "$name: pairs written" "$(grep -c '^pair ' "$WORK/$name.pipe.raw" | awk '{print ($1 > 10)}')" 1
    check "$name: the same file" "$(diff <(body "$WORK/$name.inline.raw") <(body "$WORK/$name.pipe.raw") | head -4)" ""
}

same_file objects 0 -- "$PROGRAMS/memobjs" 2000 3

# Set sampling: the same raw file, ld.so's start-up included.  Valgrind
# puts the kernel's 16 AT_RANDOM bytes, new for each process, right after
# LD_PRELOAD, the last environment string; ld.so's strcspn, splitting
# LD_PRELOAD four bytes at a time, read up to three of them past its end
# and looked each up in a table on its stack, so one reference fell in or
# out of the sampled sets from run to run, inline and pipe alike (3 of 6
# inline runs differed).  augur's tools now give the program fixed bytes
# (src/vgcommon/vg_random.h).
same_file sets 0 --sample 0.1 -- "$PROGRAMS/memobjs" 2000 3
check "sets: groups written" "$(grep -c '^groups ' "$WORK/sets.pipe.raw" | awk '{print ($1 > 0)}')" 1
check "sets: a second inline run, the same file" \
    "$(spy sets2 inline --sample 0.1 -- "$PROGRAMS/memobjs" 2000 3; diff <(body "$WORK/sets.inline.raw") <(body "$WORK/sets2.inline.raw") | head -4)" 0
# The bytes themselves, under memspy and collect: pi's first hexadecimal
# digits, and right after the last environment string as said.
at_random() { grep -m1 -E '^[0-9a-f]{32} ' "$1"; }
"$AUGUR" memspy --machine zen4 --output /dev/null -- "$PROGRAMS/atrandom" >"$WORK/random.memspy" 2>&1
"$AUGUR" collect --db "$WORK/random.db" -- "$PROGRAMS/atrandom" >"$WORK/random.collect" 2>&1
check "AT_RANDOM: memspy's fixed" "$(at_random "$WORK/random.memspy")" "243f6a8885a308d313198a2e03707344 adjacent"
check "AT_RANDOM: collect's fixed" "$(at_random "$WORK/random.collect")" "243f6a8885a308d313198a2e03707344 adjacent"
# The pipe's levels below the first on threads of their own (spy_stages.c):
# the same raw file as inline, full, set-sampled and time-sampled.
same_file levels 0 --sim-threads 3 -- "$PROGRAMS/memobjs" 2000 3
same_file levels_sets 0 --sim-threads 3 --sample 0.1 -- "$PROGRAMS/memobjs" 2000 3
same_file levels_time 0 --sim-threads 2 --sample 0.5 --sample-by time -- "$PROGRAMS/memsweep" 16384 64 80
# 1,310,720 references: time sampling's second sample starts at 1,000,000.
same_file time 0 --sample 0.5 --sample-by time -- "$PROGRAMS/memsweep" 16384 64 80
check "time: unknown references counted" \
    "$(awk '$1 == "pair" {u += $12 + $13} END {print (u > 0)}' "$WORK/time.pipe.raw")" 1
same_file shadow 0 --shadow-sample 8 -- "$PROGRAMS/memsweep" 1024 64 4
same_file fork 0 -- "$PROGRAMS/procs" fork 500 3
same_file crash 139 -- "$PROGRAMS/procs" crash 500 3
same_file exec 0 -- "$PROGRAMS/procs" exec /bin/true

# Threads: four sweep their own heap blocks; then two share a line.
# data PATH NAME — the report's heap objects: name, references, misses per level.
data() {
    jq -c '[.data_objects[] | select(.kind == "heap") | [.name, .references, [.levels[].misses]]]' \
        "$WORK/$2.$1.json"
}
for path in inline pipe; do spy threads "$path" -- "$PROGRAMS/procs" threads 4 500 3 >/dev/null; done
check "threads: the sweeps' objects" "$(data pipe threads)" "$(data inline threads)"
check "threads: four threads" "$(grep '^threads ' "$WORK/threads.pipe.raw")" "threads 5"
# Coherence: the stages hand the hierarchy back to one thread.
spy levels_threads pipe --sim-threads 3 -- "$PROGRAMS/procs" threads 4 500 3 >/dev/null
check "threads, levels on threads: the sweeps' objects" "$(data pipe levels_threads)" "$(data inline threads)"
for path in inline pipe; do spy share "$path" -- "$PROGRAMS/falseshare" >/dev/null; done
sharing() {
    jq -c '[.data_objects[] | select(.name == "counters") | .levels[0].causes]' "$WORK/share.$1.json"
}
check "false sharing: the same causes" "$(sharing pipe)" "$(sharing inline)"
check "false sharing: seen" "$(sharing pipe | jq '.[0].false_sharing > 0')" true

# The consumer killed while the program runs: the tool's next send fails,
# augur says how the consumer ended, exits 125 and writes no report.
consumer_killed "simulator's consumer.*killed by signal 9; no report (augur memspy --analysis inline" "$WORK/dead.txt" \
    memspy --machine zen4 --output "$WORK/dead.txt"

# The program (Valgrind) killed: the consumer reads the end of the records
# and ends, and augur with it.
program_killed memspy --machine zen4 --output "$WORK/killed.txt"

# SIGTERM to augur: passed on to the program, whose report of what ran is
# written from the consumer's counts; the consumer ends.
"$AUGUR" memspy --machine zen4 --analysis pipe --output "$WORK/term.txt" -- "$PROGRAMS/procs" wait "$WORK/term.go" 30 0 \
    >/dev/null 2>"$WORK/term.err" &
augur_pid=$!
for _ in $(seq 300); do [ -e "$WORK/term.go" ] && break; sleep 0.1; done
consumer=$(consumer_child $augur_pid)
kill -TERM $augur_pid
wait $augur_pid
check "SIGTERM: exit status" "$?" 143
check "SIGTERM: the report of what ran" "$(grep -c 'SIGTERM' "$WORK/term.txt")" 1
check "SIGTERM: the consumer ended" "$(gone_within 5 "$consumer")" 1

# --analysis takes pipe, inline or auto only.
out=$("$AUGUR" memspy --machine zen4 --analysis both -- "$PROGRAMS/procs" exit 0 2>&1)
check "bad --analysis: status" "$?" 2
check "bad --analysis: says what to give" "$(grep -c "analysis 'both': give pipe" <<<"$out")" 1
finish
