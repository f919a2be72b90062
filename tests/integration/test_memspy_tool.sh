#!/bin/bash
# test_memspy_tool.sh — the memspy Valgrind tool run directly
# (valgrind --tool=memspy, VALGRIND_LIB = the build's vglib), its raw file
# (docs/memspy-format.md) checked against numbers known independently:
#   - the file is whole: line count and CRC-32 of the end line;
#   - data objects: a malloc'd array named by its allocation site's
#     function and line, blocks from one helper called from two lines are two
#     objects, blocks of one site freed in turn are one object whose SIZE is
#     the most live at once, a global by its symbol, a local by its function;
#   - references of loops of known trip count equal the closed forms;
#   - with a two-level hierarchy, D1 and LL misses of a sweep equal
#     Cachegrind's (--D1=... --LL=...) and the closed forms, and their causes
#     are the right ones (cold, capacity, conflict);
#   - two threads writing adjacent counters have false-sharing misses;
#     interleaved (the default), about one per increment: at least N for N
#     increments per thread, where Valgrind's own order (--interleave=no)
#     gives a few per scheduling quantum; the padded counters none;
#   - buffering changes nothing on one thread: a buffer of one reference
#     (flushed at every superblock) gives the same counts as the default,
#     and so does one whose superblocks reserve room 3 references at a
#     time (--sb-reserve=3: a flush check every 3 references);
#   - bad options are refused with a message that names the fix;
#   - a program that execs has its file written before the exec, naming the
#     new program; a failed exec leaves the one written at exit;
#   - progress lines: with --progress-ms=1, several, of the documented form,
#     with N increasing; none in a short run by default;
#   - --simulate=no buffers the references the sampling asks for and writes
#     no file.
source "$TESTLIB"
VGLIB="$(dirname "$AUGUR")/vglib"
L1="L1,32K,64,8,1"
LL="LL,256K,64,8,2"
CG_CACHES=(--I1=32768,8,64 --D1=32768,8,64 --LL=262144,8,64)

# memspy OUT PROGRAM ARGS... — run the tool with the two levels and the
# options in EXTRA_OPTS into OUT; prints the raw file's path.
EXTRA_OPTS=()
memspy() {
    local out=$1
    shift
    mkdir -p "$out"
    VALGRIND_LIB="$VGLIB" valgrind -q --fair-sched=yes --tool=memspy --out-dir="$out" --level="$L1" --level="$LL" \
        "${EXTRA_OPTS[@]}" "$@" >/dev/null 2>"$out/stderr"
    ls "$out"/memspy.*.out | head -n 1
}

# pair_sum RAW FILE_SUFFIX LINE OBJ_NAME FIELD — the sum of FIELD over the
# pairs of code on source line LINE of a file ending in FILE_SUFFIX and the
# object named OBJ_NAME ("*": any).  FIELD: refs, reads, writes, or
# LEVEL:miss|cold|capacity|conflict|true|false|unknown|uhits (LEVEL 0 or 1).
pair_sum() {
    awk -v suffix="$2" -v want_line="$3" -v name="$4" -v field="$5" '
        BEGIN {
            n = split("miss cold capacity conflict true false unknown uhits", c, " ")
            for (i = 1; i <= n; i++) col[c[i]] = i - 1
            if (field == "refs") f = 4; else if (field == "reads") f = 5; else if (field == "writes") f = 6
            else { split(field, q, ":"); f = 7 + 8 * q[1] + col[q[2]] }
        }
        $1 == "file" { path[$2] = $3 }
        $1 == "obj" { objname[$2] = $4 }
        $1 == "code" { p = path[$6]; mine[$2] = substr(p, length(p) - length(suffix) + 1) == suffix && $7 == want_line }
        $1 == "pair" && mine[$2] && (name == "*" || objname[$3] == name) { s += $f }
        END { print s + 0 }' "$1"
}

# obj_field RAW NAME FIELD — SIZE or COUNT (or KIND) of the objects named
# NAME, one per line in id order.
obj_field() {
    awk -v name="$2" -v field="$3" '$1 == "obj" && $4 == name {
        print (field == "KIND" ? $3 : field == "SIZE" ? $5 : $6) }' "$1"
}

# total RAW LEVEL — misses at LEVEL over every pair.
total() {
    awk -v k="$2" '$1 == "pair" { s += $(7 + 8 * k) } END { print s + 0 }' "$1"
}

# ---- a whole file ---------------------------------------------------------------
SRC="$SRC_PROGRAMS/memobjs.c"
N=100
R=3
RAW=$(memspy "$WORK/objs" "$PROGRAMS/memobjs" $N $R)
check "raw file written" "$(test -s "$RAW" && echo yes)" yes
check "no temporary left" "$(ls "$WORK/objs" | grep -c '\.tmp$')" 0
check "first line" "$(head -n 1 "$RAW")" "augur-memspy 2"
check "end line counts the lines before it" "$(tail -n 1 "$RAW" | cut -d' ' -f2)" "$(($(wc -l < "$RAW") - 1))"
check "end line's CRC-32" "$(tail -n 1 "$RAW" | cut -d' ' -f3)" \
    "$(head -n -1 "$RAW" | python3 -c 'import sys, zlib; print(format(zlib.crc32(sys.stdin.buffer.read()), "x"))')"
check "levels" "$(grep -c '^level ' "$RAW")" 2
check "level 1 as given" "$(grep '^level 1 ' "$RAW")" "level 1 LL 262144 64 8 2"
check "sampling none" "$(grep '^sampling' "$RAW")" "sampling none"
check "one thread" "$(grep '^threads' "$RAW")" "threads 1"
check "exit code" "$(grep '^exit' "$RAW")" "exit 0"
check "nothing skipped" "$(grep '^skipped' "$RAW")" "skipped 0"
check "pair lines: keyword, 5 fields, 8 per level" "$(awk '$1 == "pair" && NF != 22' "$RAW" | wc -l)" 0

# ---- data objects and their names ------------------------------------------
check "malloc'd array named by its site" "$(obj_field "$RAW" "main:$(line_of ALLOC:arr "$SRC")" KIND)" heap
check "its size" "$(obj_field "$RAW" "main:$(line_of ALLOC:arr "$SRC")" SIZE)" $((N * 64))
check "its first site frame is main's line" \
    "$(awk -v l="$(line_of ALLOC:arr "$SRC")" '$1 == "obj" { on = $4 == "main:" l } on && $1 == "site" && $2 == 0 { print $7 }' "$RAW")" \
    "$(line_of ALLOC:arr "$SRC")"
NB="new_block:$(line_of ALLOC:new_block "$SRC")"
check "one helper, two callers: two objects" "$(obj_field "$RAW" "$NB" COUNT | tr '\n' ' ')" "1 1 "
check "their callers' lines" \
    "$(awk -v nb="$NB" '$1 == "obj" { on = $4 == nb } on && $1 == "site" && $2 == 1 { print $7 }' "$RAW" | tr '\n' ' ')" \
    "$(line_of ALLOC:block_a "$SRC") $(line_of ALLOC:block_b "$SRC") "
CHUNK="chunks:$(line_of ALLOC:chunk "$SRC")"
check "blocks freed in turn: one object, 10 blocks" "$(obj_field "$RAW" "$CHUNK" COUNT)" 10
check "its size is the most live at once" "$(obj_field "$RAW" "$CHUNK" SIZE)" 100
check "global by its symbol" "$(obj_field "$RAW" grid KIND) $(obj_field "$RAW" grid SIZE)" "global $((512 * 64))"
check "local array: stack of its function" "$(obj_field "$RAW" "stack%20of%20on_stack" KIND)" stack

# ---- references: closed forms ----------------------------------------------
SWEEP=$(line_of LOAD:sweep "$SRC")
FILL=$(line_of STORE:fill "$SRC")
check "sweep reads of arr = N * R" "$(pair_sum "$RAW" memobjs.c "$SWEEP" "main:$(line_of ALLOC:arr "$SRC")" reads)" $((N * R))
check "sweep reads of grid = 512 * R" "$(pair_sum "$RAW" memobjs.c "$SWEEP" grid refs)" $((512 * R))
check "sweep of a and b: 1 read each" "$(pair_sum "$RAW" memobjs.c "$SWEEP" "$NB" refs)" 2
check "fill writes of arr = N" "$(pair_sum "$RAW" memobjs.c "$FILL" "main:$(line_of ALLOC:arr "$SRC")" writes)" $N
check "fill: no reads" "$(pair_sum "$RAW" memobjs.c "$FILL" "*" reads)" 0
check "stack writes = 64" "$(pair_sum "$RAW" memobjs.c "$(line_of STORE:stack "$SRC")" "stack%20of%20on_stack" writes)" 64
check "stack reads = 64" "$(pair_sum "$RAW" memobjs.c "$(line_of LOAD:stack "$SRC")" "stack%20of%20on_stack" reads)" 64
check "chunk writes, to the chunk object" "$(pair_sum "$RAW" memobjs.c "$(($(line_of ALLOC:chunk "$SRC") + 1))" "$CHUNK" writes)" 10
check "thread 0's references = all pairs'" "$(awk '$1 == "thread" && $2 == 0 { print $3 }' "$RAW")" \
    "$(awk '$1 == "pair" { s += $4 } END { print s }' "$RAW")"

# ---- misses against Cachegrind and closed forms ---------------------------------
# cg_sum OUT FILE_SUFFIX [LINE] — "D1 DL" data misses (mr + mw) of a file, or
# of one of its lines, from a cachegrind.out file; FILE_SUFFIX "*": all.
cg_sum() {
    awk -v suffix="$2" -v want_line="${3:-}" '
        /^fl=/ { p = substr($0, 4); mine = suffix == "*" || substr(p, length(p) - length(suffix) + 1) == suffix; next }
        /^[0-9]/ && mine && (want_line == "" || $1 == want_line) { d1 += $6 + $9; dl += $7 + $10 }
        END { print d1 + 0, dl + 0 }' "$1"
}
# file_misses RAW FILE_SUFFIX — "L1 LL" misses of the code of a file.
file_misses() {
    awk -v suffix="$2" '
        $1 == "file" { path[$2] = $3 }
        $1 == "code" { p = path[$6]; mine[$2] = substr(p, length(p) - length(suffix) + 1) == suffix }
        $1 == "pair" && mine[$2] { a += $7; b += $15 } # MISS of level 0 and 1 (8 fields a level)
        END { print a + 0, b + 0 }' "$1"
}
# within_by A B D — 1 if |A - B| <= D (an absolute difference; lib.sh's within is relative).
within_by() {
    awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { x = a - b; if (x < 0) x = -x; print (x <= d) }'
}
SWEEP_SRC="$SRC_PROGRAMS/memsweep.c"
SWEEP=$(line_of LOAD:sweep "$SWEEP_SRC")
for case in "seq 1024 64 4" "set 16 4096 4"; do
    read -r name lines stride reps <<< "$case"
    RAW=$(memspy "$WORK/$name" "$PROGRAMS/memsweep" "$lines" "$stride" "$reps")
    valgrind -q --tool=cachegrind --cache-sim=yes "${CG_CACHES[@]}" \
        --cachegrind-out-file="$WORK/$name/cachegrind.out" "$PROGRAMS/memsweep" "$lines" "$stride" "$reps" 2>/dev/null
    CG="$WORK/$name/cachegrind.out"
    check "$name: sweep line's misses = Cachegrind's" \
        "$(pair_sum "$RAW" memsweep.c "$SWEEP" "*" 0:miss) $(pair_sum "$RAW" memsweep.c "$SWEEP" "*" 1:miss)" \
        "$(cg_sum "$CG" memsweep.c "$SWEEP")"
    # The rest differs by a bounded startup cost, the same whatever the
    # sweep: under memspy ld.so also loads and links its malloc-replacement
    # library (which Cachegrind does not preload), malloc runs outside the
    # program, and the stack sits elsewhere (a longer LD_PRELOAD); see
    # docs/memspy.md.
    read -r f1 f2 <<< "$(file_misses "$RAW" memsweep.c)"
    read -r g1 g2 <<< "$(cg_sum "$CG" memsweep.c)"
    check "$name: memsweep.c's L1 and LL misses within 2 of Cachegrind's" "$(within_by "$f1" "$g1" 2) $(within_by "$f2" "$g2" 2)" "1 1"
    read -r m1 m2 <<< "$(total "$RAW" 0) $(total "$RAW" 1)"
    read -r c1 c2 <<< "$(cg_sum "$CG" "*")"
    check "$name: all L1 misses within 200 of Cachegrind's" "$(within_by "$m1" "$c1" 200)" 1
    check "$name: all LL misses within 100 of Cachegrind's" "$(within_by "$m2" "$c2" 100)" 1
done
# 1024 consecutive lines, twice the L1: every read misses L1, the first
# sweep's cold, the others capacity; all fit the LL: 1024 cold misses there.
RAW=$(ls "$WORK"/seq/memspy.*.out)
check "seq: L1 misses = lines * reps" "$(pair_sum "$RAW" memsweep.c "$SWEEP" big 0:miss)" $((1024 * 4))
check "seq: L1 cold = lines" "$(pair_sum "$RAW" memsweep.c "$SWEEP" big 0:cold)" 1024
check "seq: L1 capacity = lines * (reps - 1)" "$(pair_sum "$RAW" memsweep.c "$SWEEP" big 0:capacity)" $((1024 * 3))
check "seq: LL misses = lines, all cold" \
    "$(pair_sum "$RAW" memsweep.c "$SWEEP" big 1:miss) $(pair_sum "$RAW" memsweep.c "$SWEEP" big 1:cold)" "1024 1024"
check "seq: big evicts itself at L1" "$(awk '$1 == "obj" && $4 == "big" { id = $2 } $1 == "evict" && $2 == 0 && $3 == id && $4 == id { print ($5 >= 1024 * 3) }' "$RAW")" 1
# 16 lines 4096 bytes apart all map to one set of the 64-set L1 (8 ways):
# after the cold sweep every miss is a conflict (a fully-associative L1 holds all 16).
RAW=$(ls "$WORK"/set/memspy.*.out)
check "set: L1 misses = 16 * reps" "$(pair_sum "$RAW" memsweep.c "$SWEEP" big 0:miss)" $((16 * 4))
check "set: L1 conflict = 16 * (reps - 1)" "$(pair_sum "$RAW" memsweep.c "$SWEEP" big 0:conflict)" $((16 * 3))

# ---- threads: false sharing ------------------------------------------------
# Valgrind runs one thread at a time for 100000 blocks: 2000000 iterations
# each give the threads several turns, and each turn starts with a miss.
RAW=$(memspy "$WORK/threads" "$PROGRAMS/falseshare" 2000000)
STORE=$(line_of STORE:count "$SRC_PROGRAMS/falseshare.c")
check "three threads" "$(grep '^threads' "$RAW")" "threads 3"
check "a thread line each" "$(grep -c '^thread ' "$RAW")" 3
check "counters written 2 * N times" "$(pair_sum "$RAW" falseshare.c "$STORE" counters writes)" 4000000
check "false-sharing L1 misses on counters" "$(pair_sum "$RAW" falseshare.c "$STORE" counters 0:false | awk '{ print ($1 > 0) }')" 1
check "no true sharing there" "$(pair_sum "$RAW" falseshare.c "$STORE" counters 0:true)" 0

# Interleaved, every increment of one thread can fall between two of the
# other's: each thread's load or store then misses on the line the other
# just wrote.  An even merge of N + N increments alternates the threads, so
# there are at least N false-sharing misses (399999 measured, one per
# increment).  Valgrind's order gives one miss per quantum of ~100,000
# blocks, if the threads overlap at all: below N / 100.
N=200000
RAW=$(memspy "$WORK/fs-mixed" "$PROGRAMS/falseshare" $N)
FALSE=$(pair_sum "$RAW" falseshare.c "$STORE" counters 0:false)
check "interleaved: false-sharing L1 misses >= N ($FALSE)" "$((FALSE >= N && FALSE <= 4 * N))" 1
check "interleaved: still no true sharing" "$(pair_sum "$RAW" falseshare.c "$STORE" counters 0:true)" 0
check "interleaved: each thread misses at least N/2 times at L1" \
    "$(awk -v n=$N '$1 == "thread" && $2 > 0 && $4 >= n / 2 { k++ } END { print k + 0 }' "$RAW")" 2
EXTRA_OPTS=(--interleave=no)
RAW=$(memspy "$WORK/fs-serial" "$PROGRAMS/falseshare" $N)
check "--interleave=no: fewer than N/100 false-sharing misses" \
    "$(pair_sum "$RAW" falseshare.c "$STORE" counters 0:false | awk -v n=$N '{ print ($1 < n / 100) }')" 1
EXTRA_OPTS=()
RAW=$(memspy "$WORK/fs-padded" "$PROGRAMS/falseshare" $N padded)
check "padded, interleaved: no sharing misses" \
    "$(pair_sum "$RAW" falseshare.c "$STORE" counters 0:false) $(pair_sum "$RAW" falseshare.c "$STORE" counters 0:true)" "0 0"

# ---- buffering: one thread's results do not depend on it ---------------------
# counts RAW — the lines that carry counts (objects, pairs, evictions,
# threads, skipped).
counts() {
    grep -E '^(obj|pair|evict|thread|skipped) ' "$1"
}
# program_counts RAW — memobjs.c's pairs as "LINE OBJECT COUNTS...", sorted.
# (Under set sampling ld.so's sampled references vary by one or two from run
# to run, buffered or not: where it puts some data depends on the run.)
program_counts() {
    awk '$1 == "file" { path[$2] = $3 }
        $1 == "obj" { name[$2] = $4 }
        $1 == "code" { line[$2] = path[$6] ~ /memobjs\.c$/ ? $7 : "" }
        $1 == "pair" && line[$2] != "" { $1 = line[$2]; $2 = name[$3]; $3 = ""; print }' "$1" | sort
}
for opts in "" "--sample-time=1000,3000" "--sample-sets=4"; do
    read -r -a EXTRA_OPTS <<< "$opts"
    A=$(memspy "$WORK/buf-default$opts" "$PROGRAMS/memobjs" 100 3)
    EXTRA_OPTS+=(--buffer=1)
    B=$(memspy "$WORK/buf-one$opts" "$PROGRAMS/memobjs" 100 3)
    check "memobjs ${opts:-full}: memobjs.c's counts, buffer of 1 = default buffer" \
        "$(cmp -s <(program_counts "$A") <(program_counts "$B") && echo same)" same
    check "  and there are some" "$(program_counts "$A" | wc -l | awk '{ print ($1 > 5) }')" 1
    [ "$opts" = "--sample-sets=4" ] ||
        check "  the whole raw file's counts too" "$(cmp -s <(counts "$A") <(counts "$B") && echo same)" same
    # Reserving room 3 references at a time (a flush check every 3 within
    # a superblock, some between two references of one instruction)
    # changes nothing either.
    EXTRA_OPTS+=(--sb-reserve=3)
    C=$(memspy "$WORK/buf-sb3$opts" "$PROGRAMS/memobjs" 100 3)
    check "memobjs ${opts:-full}: memobjs.c's counts, buffer of 1 reserved 3 at a time = default buffer" \
        "$(cmp -s <(program_counts "$A") <(program_counts "$C") && echo same)" same
    [ "$opts" = "--sample-sets=4" ] ||
        check "  the whole raw file's counts too" "$(cmp -s <(counts "$A") <(counts "$C") && echo same)" same
done
EXTRA_OPTS=()

# ---- bad options -------------------------------------------------------------
# refused OPTIONS... — "refused" if the tool said "Bad option", exited with
# status 1 before the program ran (echo printed nothing) and wrote no file.
# Options checked after parsing (a missing one, a hierarchy the simulator
# refuses) count too: the tool exits itself, as Valgrind 3.19 would not.
refused() {
    rm -rf "$WORK/bad" && mkdir -p "$WORK/bad"
    VALGRIND_LIB="$VGLIB" valgrind -q --tool=memspy "$@" /bin/echo ran >"$WORK/bad/out" 2>"$WORK/bad/err"
    local status=$?
    if [ "$status" = 1 ] && [ ! -s "$WORK/bad/out" ] && grep -q "Bad option" "$WORK/bad/err" &&
        ! ls "$WORK/bad" | grep -q memspy; then
        echo refused
    else
        echo "accepted (status $status)"
    fi
}
check "no --out-dir: refused" "$(refused --level="$L1")" refused
check "  says how" "$(grep -c 'needs --out-dir' "$WORK/bad/err")" 1
check "no --level: refused" "$(refused --out-dir="$WORK/bad")" refused
check "  says how" "$(grep -c 'such as --level=L1,32K,64,8,1' "$WORK/bad/err")" 1
check "a level with 4 fields: refused" "$(refused --out-dir="$WORK/bad" --level=L1,32K,64,8)" refused
check "  names the fields" "$(grep -c 'expected NAME,SIZE,LINE,WAYS,SHARED' "$WORK/bad/err")" 1
check "sets not a power of two: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --level=LL,96K,64,8,1)" refused
check "  names the geometry" "$(grep -c 'cannot be simulated' "$WORK/bad/err")" 1
check "--sample-sets above L1's sets: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --sample-sets=1024)" refused
check "  says why" "$(grep -c 'set_sample must not exceed the number of sets' "$WORK/bad/err")" 1
check "--shadow-sample above L1's lines: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --shadow-sample=4096)" refused
check "  names the option" "$(grep -c 'Bad option: --level, --sample-sets or --shadow-sample' "$WORK/bad/err")" 1
check "--sample-time=10: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --sample-time=10)" refused
check "--sample-sets=3: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --sample-sets=3)" refused
check "  says what N must be" "$(grep -c 'power of two' "$WORK/bad/err")" 1
check "--buffer=0: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --buffer=0)" refused
check "  says the range" "$(grep -c 'expected a number of references from 1' "$WORK/bad/err")" 1
check "--sb-reserve=4097: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --sb-reserve=4097)" refused
check "  says the range" "$(grep -c 'expected a number of references from 1 to 4096' "$WORK/bad/err")" 1
check "--interleave=maybe: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --interleave=maybe)" refused
check "--simulate=maybe: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --simulate=maybe)" refused
check "  says the values" "$(grep -c "should be 'yes' or 'no'" "$WORK/bad/err")" 1

# ---- sampling: counted, and the rest skipped --------------------------------
EXTRA_OPTS=(--sample-time=1000,3000)
RAW=$(memspy "$WORK/sampled" "$PROGRAMS/memsweep" 1024 64 4)
check "time sampling recorded" "$(grep '^sampling' "$RAW")" "sampling time 1000 3000"
check "simulated + skipped = all references" \
    "$(awk '$1 == "pair" { s += $4 } $1 == "skipped" { s += $2 } END { print s }' "$RAW")" \
    "$(awk '$1 == "pair" { s += $4 } END { print s }' "$WORK/seq"/memspy.*.out)"
# The OFF stretches are skipped in IR, the ON stretches counted in the helper:
# of T references, 1000 of every 4000 are simulated, and up to 1000 of the rest.
ALL=$(awk '$1 == "pair" { s += $4 } END { print s }' "$WORK/seq"/memspy.*.out)
check "time sampling: simulated = ON stretches of all references" \
    "$(awk '$1 == "pair" { s += $4 } END { print s }' "$RAW")" \
    "$(( ALL / 4000 * 1000 + (ALL % 4000 < 1000 ? ALL % 4000 : 1000) ))"
EXTRA_OPTS=(--sample-sets=4)
RAW=$(memspy "$WORK/setsampled" "$PROGRAMS/memsweep" 1024 64 4)
check "set sampling: simulated + skipped = all references" \
    "$(awk '$1 == "pair" { s += $4 } $1 == "skipped" { s += $2 } END { print s }' "$RAW")" "$ALL"
# `big` is page-aligned and the sweep's 1024 lines consecutive: one in 4 is
# sampled, in each of the 4 sweeps.
check "set sampling: the sweep's sampled references" \
    "$(pair_sum "$RAW" memsweep.c "$(line_of LOAD:sweep "$SRC_PROGRAMS/memsweep.c")" '*' refs)" \
    "$(( 1024 / 4 * 4 ))"

# ---- exec: the file is written before it ----------------------------------------
# Valgrind runs an exec'd program natively, so the file is written at the
# execve, with an `exec` line and no `exit`; when the exec fails (a file that
# is not a program) the program goes on and the file written at exit
# replaces it.
EXTRA_OPTS=()
SRC=$SRC_PROGRAMS/execs.c
EXEC_RAW=$(memspy "$WORK/exec" "$PROGRAMS/execs" 100 /bin/true)
check "exec: the program exec'd is named" "$(grep '^exec ' "$EXEC_RAW")" "exec /bin/true"
check "exec: no exit line" "$(grep -c '^exit ' "$EXEC_RAW")" 0
check "exec: the references before it" "$(pair_sum "$EXEC_RAW" execs.c "$(line_of LOAD:before "$SRC")" before refs)" 100
printf 'not a program\n' >"$WORK/notelf" && chmod +x "$WORK/notelf"
EXEC_RAW=$(memspy "$WORK/exec-failed" "$PROGRAMS/execs" 100 "$WORK/notelf")
check "failed exec: no exec line" "$(grep -c '^exec ' "$EXEC_RAW")" 0
check "failed exec: the exit line" "$(grep '^exit ' "$EXEC_RAW")" "exit 3"
check "failed exec: the references after it too" \
    "$(pair_sum "$EXEC_RAW" execs.c "$(line_of LOAD:after "$SRC")" before refs)" 100
check "failed exec: one file, no temporary" "$(ls "$WORK/exec-failed" | grep -c memspy)" 1

# ---- progress lines ------------------------------------------------------------
# progress OUT OPTIONS... — the progress lines of a memsweep run (not -q,
# which hides the tool's messages), without Valgrind's "==PID== " prefix.
progress() {
    local out=$1
    shift
    rm -rf "$out" && mkdir -p "$out"
    VALGRIND_LIB="$VGLIB" valgrind --tool=memspy --out-dir="$out" --level="$L1" "$@" \
        "$PROGRAMS/memsweep" 1024 64 300 >/dev/null 2>"$out/stderr"
    sed -n 's/^==[0-9]*== \(memspy: progress: .*\)/\1/p' "$out/stderr"
}
# With a 1 ms interval the clock is read every 65536 flushed references
# (PROGRESS_ENTRIES), each time more than 1 ms later: a line each time.
progress "$WORK/progress" --progress-ms=1 >"$WORK/progress.lines"
check "progress: several lines (at least 3 in ~350,000 references)" "$(($(wc -l <"$WORK/progress.lines") >= 3))" 1
check "progress: every line of the documented form" \
    "$(grep -cvE '^memspy: progress: [0-9]+ references, [0-9]+ s$' "$WORK/progress.lines")" 0
check "progress: N increasing" \
    "$(awk '{ n = $3 + 0; if (NR > 1 && n <= last) bad = 1; last = n } END { print bad ? "no" : "yes" }' \
        "$WORK/progress.lines")" yes
check "progress: none in a short run by default (10 s)" "$(progress "$WORK/progress-default" | wc -l)" 0
check "--progress-ms=0: refused" "$(refused --out-dir="$WORK/bad" --level="$L1" --progress-ms=0)" refused
check "  says the range" "$(grep -c 'expected milliseconds from 1' "$WORK/bad/err")" 1

# ---- --simulate=no: the instrumentation alone ---------------------------------
# Every reference is still buffered (all of them, or under set sampling the
# sampled sets' ones), none is simulated, and no file is written.
# buffered_only OUT OPTIONS... — the count --simulate=no reports, or "file
# written" if it wrote one.
buffered_only() {
    local out=$1
    shift
    rm -rf "$out" && mkdir -p "$out"
    VALGRIND_LIB="$VGLIB" valgrind -q --tool=memspy --out-dir="$out" --level="$L1" --level="$LL" --simulate=no \
        "$@" "$PROGRAMS/memsweep" 1024 64 4 >/dev/null 2>"$out/stderr"
    if ls "$out" | grep -q memspy; then echo "file written"; return; fi
    sed -n -e 's/.*--simulate=no: \([0-9]*\) references buffered, none simulated; no file written$/\1/p' \
        -e 's/.*--simulate=no: \([0-9]*\) references buffered (\([0-9]*\) in the sampled sets), none simulated; no file written$/\1 \2/p' \
        "$out/stderr"
}
check "--simulate=no: every reference buffered, no file" "$(buffered_only "$WORK/nosim")" "$ALL"
# Within 16: a few of ld.so's and the stack's addresses follow the pid, and
# set sampling picks by address.
# Under set sampling the shadows also take 1 line in 4 by a hash from every
# set (docs/memspy.md, "Set sampling and the shadows"): of the references
# buffered, those in the sampled sets are the sampled run's (within 16), and
# the others some of the rest.
read -r B4 S4 <<<"$(buffered_only "$WORK/nosim-sets" --sample-sets=4)"
check "--simulate=no with --sample-sets=4: the sampled sets' references (within 16)" \
    "$(within_by "$S4" "$(awk '$1 == "pair" { s += $4 } END { print s }' "$RAW")" 16)" 1
check "  and some of the others for the shadows ($B4 buffered in all)" \
    "$(awk -v b="$B4" -v s="$S4" -v all="$ALL" 'BEGIN { print (b > s && b - s < all - s) ? 1 : 0 }')" 1
finish
