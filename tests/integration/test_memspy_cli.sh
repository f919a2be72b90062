#!/bin/bash
# test_memspy_cli.sh — `augur memspy`'s command line around the run (the
# report's contents are test_memspy.sh's): --output writes through symlinks,
# into FIFOs, and replaces regular files without a fixed temporary name; a
# bad --output is refused before the program runs.  Programs are small
# (memsweep of a few lines) so that each run takes a second or two.
source "$TESTLIB"

MEMSPY=("$AUGUR" memspy --machine zen4)
SMALL=("$PROGRAMS/memsweep" 16 64 1)

# --output through a symlink writes its target; the link stays a link.
mkdir -p "$WORK/real"
echo old >"$WORK/real/r.txt"
ln -s real/r.txt "$WORK/link.txt"
"${MEMSPY[@]}" --output "$WORK/link.txt" -- "${SMALL[@]}" 2>/dev/null
check "symlink: status" "$?" 0
check "symlink: still a link" "$(test -L "$WORK/link.txt" && echo link)" link
check "symlink: the target holds the report" "$(head -c 14 "$WORK/real/r.txt")" "memspy report:"
check "symlink: nothing else in the target's folder" "$(ls -A "$WORK/real")" "r.txt"

# --output into a FIFO: the reader gets the report, the FIFO stays.
mkfifo "$WORK/fifo"
timeout 60 cat "$WORK/fifo" >"$WORK/from_fifo" &
reader=$!
"${MEMSPY[@]}" --output "$WORK/fifo" -- "${SMALL[@]}" 2>/dev/null
check "fifo: status" "$?" 0
wait "$reader"
check "fifo: the reader got the report" "$(head -c 14 "$WORK/from_fifo")" "memspy report:"
check "fifo: still a FIFO" "$(test -p "$WORK/fifo" && echo fifo)" fifo

# A FIFO with no reader: the run is made, then the report is refused after
# a 5 s wait for one (output_file.c), instead of augur blocking for ever.
timeout 120 "${MEMSPY[@]}" --output "$WORK/fifo" -- "${SMALL[@]}" 2>"$WORK/err"
check "fifo without reader: exit 125, augur failed (not the timeout's 124)" "$?" 125
check "fifo without reader: named" "$(grep -c "no process is reading FIFO $WORK/fifo (waited 5 s; start its reader" \
    "$WORK/err")" 1
# A FIFO this process may not write is refused before the run, by
# output_check: root may write any, so memspy runs as nobody (setpriv) on a
# FIFO only root may write (0600).
mkfifo -m 600 "$WORK/fifo600"
setpriv --reuid=65534 --regid=65534 --clear-groups "${MEMSPY[@]}" --output "$WORK/fifo600" -- \
    /usr/bin/touch "$WORK/fifo600.ran" 2>"$WORK/err"
check "unwritable fifo: exit" "$?" 2
check "unwritable fifo: named" "$(cat "$WORK/err")" \
    "augur memspy: --output $WORK/fifo600: Permission denied (choose another --output)"
check "unwritable fifo: program not run" "$(ls "$WORK/fifo600.ran" 2>/dev/null)" ""

# A regular file is replaced (mode as a new file's under umask 022); a
# user's own FILE.tmp is not the temporary, and no temporary is left.
mkdir -p "$WORK/reg"
echo mine >"$WORK/reg/r.txt.tmp"
(umask 022 && "${MEMSPY[@]}" --output "$WORK/reg/r.txt" -- "${SMALL[@]}" 2>/dev/null)
check "regular: the report" "$(head -c 14 "$WORK/reg/r.txt")" "memspy report:"
check "regular: mode" "$(stat -c %a "$WORK/reg/r.txt")" 644
check "regular: FILE.tmp untouched" "$(cat "$WORK/reg/r.txt.tmp")" mine
check "regular: no temporary left" "$(ls -A "$WORK/reg" | sort | tr '\n' ' ')" "r.txt r.txt.tmp "

# A bad --output is refused before the program runs, naming the user's path.
"${MEMSPY[@]}" --output "$WORK/no/such/r.txt" -- /bin/touch "$WORK/ran" 2>"$WORK/err"
check "missing folder: exit 2" "$?" 2
check "missing folder: message" "$(cat "$WORK/err")" \
    "augur memspy: --output $WORK/no/such/r.txt: folder $WORK/no/such does not exist (create it, or choose another --output)"
check "missing folder: the program did not run" "$(ls "$WORK/ran" 2>/dev/null)" ""
"${MEMSPY[@]}" --output "$WORK/real" -- /bin/touch "$WORK/ran" 2>"$WORK/err"
check "a folder: exit 2" "$?" 2
check "a folder: message" "$(cat "$WORK/err")" \
    "augur memspy: --output $WORK/real is a folder: give a file, such as $WORK/real/report.txt"
check "a folder: the program did not run" "$(ls "$WORK/ran" 2>/dev/null)" ""
if [ "$(id -u)" != 0 ]; then # root writes anywhere
    mkdir -p "$WORK/ro" && chmod a-w "$WORK/ro"
    "${MEMSPY[@]}" --output "$WORK/ro/r.txt" -- /bin/touch "$WORK/ran" 2>"$WORK/err"
    check "read-only folder: exit 2" "$?" 2
    check "read-only folder: message" "$(grep -c "folder $WORK/ro is not writable" "$WORK/err")" 1
fi

# Without --output the report is on stdout and the program's output on
# stderr, so a JSON report stays valid; with --output, the program's
# output stays on stdout.
"${MEMSPY[@]}" --format json -- /bin/echo hello-from-program >"$WORK/out.json" 2>"$WORK/err"
check "program output: the JSON on stdout is valid" "$(python3 -m json.tool "$WORK/out.json" >/dev/null && echo valid)" valid
check "program output: its line on stderr" "$(grep -c '^hello-from-program$' "$WORK/err")" 1
"${MEMSPY[@]}" --format json --output "$WORK/o.json" -- /bin/echo hello-from-program >"$WORK/out" 2>/dev/null
check "program output with --output: on stdout" "$(cat "$WORK/out")" hello-from-program

# --keep-raw keeps the run's raw file: --raw of it gives the same report,
# byte for byte, without running the program again.
"${MEMSPY[@]}" --keep-raw "$WORK/kept.raw" --output "$WORK/kept.txt" -- "${SMALL[@]}" 2>"$WORK/err"
check "keep-raw: status" "$?" 0
check "keep-raw: a memspy raw file" "$(head -c 10 "$WORK/kept.raw")" "augur-mems"
check "keep-raw: said where" "$(grep -c "^augur: memspy raw file kept in $WORK/kept.raw" "$WORK/err")" 1
"${MEMSPY[@]}" --raw "$WORK/kept.raw" --output "$WORK/again.txt" 2>/dev/null
check "keep-raw: --raw reports it again, the same" "$(cmp "$WORK/kept.txt" "$WORK/again.txt" && echo same)" same

# Counts grouped by thousands in the text (references 104,384), plain with
# --plain-numbers; the same numbers as the JSON's.
"${MEMSPY[@]}" --raw "$WORK/kept.raw" --format json --output "$WORK/kept.json" 2>/dev/null
"${MEMSPY[@]}" --raw "$WORK/kept.raw" --plain-numbers --output "$WORK/plain.txt" 2>/dev/null
REFS=$(jq '.total.references' "$WORK/kept.json")
check "numbers: more than 1000 references, so that they are grouped" "$([ "$REFS" -ge 1000 ] && echo yes)" yes
GROUPED=$(grouped "$REFS")
check "numbers: the text's references grouped ($GROUPED)" \
    "$(awk '$1 == "references" { print $2 }' "$WORK/kept.txt")" "$GROUPED"
check "numbers: --plain-numbers gives them plain" "$(awk '$1 == "references" { print $2 }' "$WORK/plain.txt")" "$REFS"
check "numbers: plain and grouped reports differ only by the separators" \
    "$(diff <(tr -d , <"$WORK/kept.txt" | tr -s ' ') <(tr -d , <"$WORK/plain.txt" | tr -s ' ') && echo same)" same
"${MEMSPY[@]}" --raw "$WORK/kept.raw" --plain-numbers --format json >/dev/null 2>"$WORK/err"
check "numbers: --plain-numbers with JSON refused" "$? $(grep -c 'plain-numbers is for the text report' "$WORK/err")" "2 1"
"${MEMSPY[@]}" --keep-raw "$WORK/no/such/k.raw" -- /bin/touch "$WORK/ran" 2>"$WORK/err"
check "keep-raw, missing folder: exit 2" "$?" 2
check "keep-raw, missing folder: the program did not run" "$(ls "$WORK/ran" 2>/dev/null)" ""
"${MEMSPY[@]}" --keep-raw "$WORK/x" --output "$WORK/x" -- /bin/true 2>"$WORK/err"
check "keep-raw = output: exit 2" "$?" 2
check "keep-raw = output: message" "$(head -1 "$WORK/err")" \
    "augur memspy: --keep-raw and --output name the same file '$WORK/x': give two (see augur memspy --help)"
"${MEMSPY[@]}" --keep-raw "$WORK/x" --raw "$WORK/kept.raw" 2>"$WORK/err"
check "keep-raw with --raw: exit 2" "$?" 2

# Set sampling's 1 set in N is checked against the machine before the run:
# zen4's L1 has 64 sets, so --sample 0.01 (1 in 128) is refused.
"${MEMSPY[@]}" --sample 0.01 -- /bin/touch "$WORK/ran" 2>"$WORK/err"
check "sample below 1 set in L1's: exit 2" "$?" 2
check "sample below 1 set in L1's: message" "$(cat "$WORK/err")" \
    "augur memspy: --sample 0.01 samples 1 set in 128, but L1 of zen4 has 64 sets: the smallest set-sampling ratio is 1/64 (--sample 0.0156); give --sample-by time for smaller ratios (see augur memspy --help)"
check "sample below 1 set in L1's: the program did not run" "$(ls "$WORK/ran" 2>/dev/null)" ""
"${MEMSPY[@]}" --sample 1e-30 -- /bin/true 2>"$WORK/err"
check "a tiny ratio: exit 2" "$?" 2
check "a tiny ratio: message" "$(grep -c 'samples 1 set in 9223372036854775808, but L1 of zen4 has 64 sets' "$WORK/err")" 1
check "the smallest ratio it names is taken" \
    "$("${MEMSPY[@]}" --sample 0.0156 --dry-run -- /bin/true | grep -o -- '--sample-sets=[0-9]*')" "--sample-sets=64"
check "--sample-by time takes smaller ratios" \
    "$("${MEMSPY[@]}" --sample 0.01 --sample-by time --dry-run -- /bin/true | grep -c -- '--sample-time=')" 1

# Numbers in decimal only: strtod took hex (0x0.2 as 0.125) and blanks.
for opt in "--sample 0x0.2" "--sample inf" "--shadow-sample 0x8" "--shadow-sample +8"; do
    # shellcheck disable=SC2086  # opt is the option and its value
    "${MEMSPY[@]}" $opt -- /bin/touch "$WORK/ran" 2>"$WORK/err"
    check "'$opt': exit 2" "$?" 2
    check "'$opt': named" "$(grep -c -e "--sample '.*': give a ratio" -e "--shadow-sample '.*': give a power of two" "$WORK/err")" 1
done
"${MEMSPY[@]}" --sample " 0.5" -- /bin/touch "$WORK/ran" 2>"$WORK/err"
check "'--sample \" 0.5\"': exit 2" "$?" 2
check "numbers in decimal: the program did not run" "$(ls "$WORK/ran" 2>/dev/null)" ""

# augur refuses a shadow sampling the levels cannot take before the run:
# 1 line in 1024 is more than zen4's 512-line L1 has; with set sampling
# 1 in 8, 128 is more than the 64 lines it simulates.
"${MEMSPY[@]}" --shadow-sample 1024 -- /bin/echo ran >"$WORK/out" 2>"$WORK/err"
check "shadow sample too large: exit 2" "$?" 2
check "shadow sample too large: the largest named" \
    "$(grep -c 'shadow-sample 1024 exceeds the 512 lines of L1 of zen4: give --shadow-sample 512 or less' "$WORK/err")" 1
check "shadow sample too large: the program did not run" "$(cat "$WORK/out")" ""
"${MEMSPY[@]}" --sample 0.125 --shadow-sample 128 -- /bin/echo ran >"$WORK/out" 2>"$WORK/err"
check "shadow sample with set sampling: refused" \
    "$(grep -c '128 exceeds the 64 lines of L1 of zen4 that set sampling simulates' "$WORK/err")" 1
# A refusal by the tool itself (its "==PID== Bad option" lines) is shown;
# VALGRIND_OPTS, which Valgrind reads, gets the option past augur's check.
VALGRIND_OPTS=--shadow-sample=1024 "${MEMSPY[@]}" -- /bin/true 2>"$WORK/err"
check "tool refusal: exit 125" "$?" 125
check "tool refusal: Valgrind said why" "$(grep -A2 'Valgrind said:' "$WORK/err" | grep -c \
    -e '== Bad option: --level, --sample-sets or --shadow-sample' -e 'shadow_sample must not exceed the number of lines')" 2
# Options end at the program: its own options (--help, --format) reach it.
"${MEMSPY[@]}" --dry-run "$PROGRAMS/memsweep" --help --format json >"$WORK/cmd" 2>"$WORK/err"
check "options end at the program: status" "$?" 0
check "options end at the program: its words" "$(grep -o 'memsweep.*' "$WORK/cmd")" "memsweep --help --format json"
"${MEMSPY[@]}" --output "$WORK/o.txt" /bin/echo --format json >"$WORK/out" 2>/dev/null
check "options end at the program: the program got them" "$(cat "$WORK/out")" "--format json"
# "--" where a value is due is a forgotten value, not a file named "--".
# no_value_refused NAME ARGS... — augur ARGS (run in $WORK) exits 2 saying so.
no_value_refused() {
    local name=$1
    shift
    (cd "$WORK" && "$AUGUR" "$@") >/dev/null 2>"$WORK/err"
    check "$name: exit 2" "$?" 2
    check "$name: message" "$(grep -c "needs a value, not '--' (which ends the options)" "$WORK/err")" 1
}
no_value_refused "memspy --output --" memspy --machine zen4 --output -- /bin/true
no_value_refused "memspy --output=--" memspy --machine zen4 --output=-- /bin/true
no_value_refused "collect --db --" collect --db -- /bin/true
check "nothing named -- written" "$(ls "$WORK/--" 2>/dev/null)" ""
# A reader that closes the pipe early: augur dies of SIGPIPE writing the
# report (141), and its temporary folder is gone all the same.
mkdir -p "$WORK/tmp"
TMPDIR=$WORK/tmp "${MEMSPY[@]}" --format json -- "${SMALL[@]}" 2>/dev/null | true
check "closed pipe: augur's status" "${PIPESTATUS[0]}" 141
check "closed pipe: no temporary folder left" "$(ls -A "$WORK/tmp")" ""
# The program's death by a signal is named on stderr (the report's
# format is untouched); its status is 128+N.
"${MEMSPY[@]}" --output "$WORK/crash.txt" -- /bin/sh -c 'kill -SEGV $$' 2>"$WORK/err"
check "crash: status" "$?" 139
check "crash: the signal named" "$(grep -c '^augur memspy: the program was killed by signal 11 (SIGSEGV)$' "$WORK/err")" 1

# Valgrind itself killed from outside (kill -9) before it wrote its file:
# augur says so and exits 128+9, as for any death by signal.
"${MEMSPY[@]}" --output "$WORK/k.txt" -- "$PROGRAMS/memsweep" 4096 64 2000 2>"$WORK/err" &
augur=$!
for _ in $(seq 200); do vg=$(pgrep -P "$augur") && break; sleep 0.05; done
kill -9 "$vg"
wait "$augur"
check "valgrind killed: status" "$?" 137
check "valgrind killed: message" \
    "$(grep -c 'the program was killed by signal 9 (SIGKILL) before memspy wrote its results' "$WORK/err")" 1

# The start message's estimate is the benchmark's, not 10-60x.
check "start message: the estimate" "$(grep -c 'expect 40-500x native time' "$WORK/err")" 1

# A level whose sets are no power of two (a sliced L3: 3 slices of 16 MiB,
# 16-way, 49152 sets) is simulated smaller, and augur says both sizes.
SRC_MACHINES=$(cd "$SRC_PROGRAMS/../../machines" && pwd)
sed -e 's/^name: zen4$/name: sliced/' -e 's/^    size: 32MiB$/    size: 48MiB\n    slices: 3/' \
    "$SRC_MACHINES/zen4.yaml" >"$WORK/sliced.yaml"
"$AUGUR" memspy --machine "$WORK/sliced.yaml" --dry-run -- "${SMALL[@]}" >/dev/null 2>"$WORK/err"
check "sliced L3: its real and its simulated size" "$(cat "$WORK/err")" \
    "augur memspy: L3 of sliced is 48 MiB (49152 sets, not a power of two), simulated as 32 MiB (32768 sets: the simulator needs a power of two)"

# A statically linked program has no dynamic loader to preload memspy's
# malloc: augur says so before the run (its heap is the object 'other').
if cc -static -O1 -march=x86-64-v2 -o "$WORK/static" "$SRC_PROGRAMS/memsweep.c" 2>/dev/null; then
    "${MEMSPY[@]}" --output "$WORK/s.txt" -- "$WORK/static" 10 64 1 2>"$WORK/err"
    check "static binary: warned" "$(grep -c "is statically linked: memspy cannot replace its malloc" "$WORK/err")" 1
    "${MEMSPY[@]}" --output "$WORK/s.txt" -- "$PROGRAMS/memsweep" 10 64 1 2>"$WORK/err"
    check "dynamic binary: not warned" "$(grep -c "statically linked" "$WORK/err")" 0
else
    check "static binary: cc -static works (libc6-dev's libc.a)" no yes
fi

# Progress on a terminal (script(1) gives one): every AUGUR_PROGRESS_SECONDS
# a "still simulating" line, with the tool's count of references from its
# log once it has written one; at the end, where the report went.  The
# program runs 4 s of wall time on any host (a fixed amount of work may end
# before the first tick on a fast one).
AUGUR_PROGRESS_SECONDS=1 script -qec "$(printf '%q ' "${MEMSPY[@]}" --output "$WORK/p.txt" -- \
    "$PROGRAMS/sweep_for" 4)" /dev/null >"$WORK/tty" 2>&1
check "progress: a line a second" "$(grep -c '^augur: still simulating ([0-9]* s so far' "$WORK/tty" | awk '{print ($1 >= 1)}')" 1
check "progress: the tool's reference count relayed" \
    "$(grep -cE '^augur: still simulating \([0-9]+ s so far; [0-9]+ references, [0-9]+ s\)' "$WORK/tty" |
        awk '{print ($1 >= 1)}')" 1
check "progress: the report's place said" "$(grep -c "^augur: memspy report written to $WORK/p.txt" "$WORK/tty")" 1

# A bad AUGUR_PROGRESS_SECONDS (not a number, out of 1-3600, trailing
# junk, past a long) is said once, with the range and the 30 s used: the
# tool gets --progress-ms=30000 (--dry-run shows it).  An empty one is unset.
for bad in abc 0 3601 5s 99999999999999999999; do
    AUGUR_PROGRESS_SECONDS=$bad "${MEMSPY[@]}" --dry-run -- "${SMALL[@]}" >"$WORK/dry" 2>"$WORK/dry.err"
    check "progress '$bad': dry-run status" "$?" 0
    check "progress '$bad': warned once" "$(cat "$WORK/dry.err")" \
        "augur: AUGUR_PROGRESS_SECONDS='$bad' is not a whole number of seconds from 1 to 3600; using 30"
    check "progress '$bad': the tool gets 30 s" "$(grep -o -- '--progress-ms=[0-9]*' "$WORK/dry")" "--progress-ms=30000"
done
AUGUR_PROGRESS_SECONDS= "${MEMSPY[@]}" --dry-run -- "${SMALL[@]}" >"$WORK/dry" 2>"$WORK/dry.err"
check "progress '': silent, 30 s" "$(cat "$WORK/dry.err") $(grep -o -- '--progress-ms=[0-9]*' "$WORK/dry")" \
    " --progress-ms=30000"
AUGUR_PROGRESS_SECONDS=3600 "${MEMSPY[@]}" --dry-run -- "${SMALL[@]}" >"$WORK/dry" 2>"$WORK/dry.err"
check "progress 3600: silent, taken" "$(cat "$WORK/dry.err") $(grep -o -- '--progress-ms=[0-9]*' "$WORK/dry")" \
    " --progress-ms=3600000"
# A real run reads the variable twice (the tool's interval, the wait's) and
# still warns once; a run of a few seconds at 30 s shows no progress line.
AUGUR_PROGRESS_SECONDS=0 script -qec "$(printf '%q ' "${MEMSPY[@]}" --output "$WORK/p0.txt" -- \
    "${SMALL[@]}")" /dev/null >"$WORK/tty0" 2>&1
check "progress 0, run on a terminal: warned once" "$(grep -c "^augur: AUGUR_PROGRESS_SECONDS='0' is not" "$WORK/tty0")" 1
check "progress 0, run on a terminal: no progress line" "$(grep -c '^augur: still simulating' "$WORK/tty0")" 0
check "progress 0, run on a terminal: report written" "$(head -c 14 "$WORK/p0.txt")" "memspy report:"
# --top N: each ranked list of the text shows at most N rows and says how
# many it left out (default 10, as the other commands' --top; before it, a
# 3-array program's text was 218 lines, 20 rows per list); --top 0 shows
# every row; JSON keeps every row whatever --top.  The lists are counted
# against the JSON of the same raw file (start-up code listed in both).
"${MEMSPY[@]}" --keep-raw "$WORK/top.raw" --output /dev/null -- "$PROGRAMS/memobjs" 200 3 2>/dev/null
topv() { "${MEMSPY[@]}" --raw "$WORK/top.raw" --show-startup "$@" 2>/dev/null; }
topv --format json --top 3 >"$WORK/top.json"
# rows SECTION FILE — the rows of a text list (lines starting with a share).
rows() { sed -n "/^$1 by stall/,/^\$/p" "$2" | grep -c '^ *[0-9.]*% '; }
topv >"$WORK/top.default"
topv --top 3 >"$WORK/top.3"
topv --top 0 >"$WORK/top.0"
njson() { jq "[$1] | length" "$WORK/top.json"; }
check "--top: default 10 rows" "$(rows 'Data objects' "$WORK/top.default") $(rows Functions "$WORK/top.default")" "10 10"
check "--top 3: 3 rows per list" \
    "$(for s in '(Function, data object) pairs' 'Data objects' Functions 'Source lines'; do rows "$s" "$WORK/top.3"; done | xargs)" \
    "3 3 3 3"
check "--top 3: what was left out" "$(grep -c '^  ([0-9]* more data objects, [0-9.]*% of stall; --top 0 shows all)$' "$WORK/top.3")" 1
check "--top 0: every row, as in the JSON" \
    "$(rows 'Data objects' "$WORK/top.0") $(rows 'Source lines' "$WORK/top.0")" \
    "$(njson '.data_objects[]') $(njson '.code_objects[] | select(.kind == "line")')"
check "--top 0: nothing left out" "$(grep -c 'more data objects' "$WORK/top.0")" 0
check "--top 3: JSON keeps every row" "$(njson '.data_objects[]' | awk '{ print ($1 > 3) }')" 1
"${MEMSPY[@]}" --top many --raw "$WORK/top.raw" >/dev/null 2>"$WORK/err"
check "--top many: usage error" "$?" 2

finish
