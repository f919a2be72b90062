#!/bin/bash
# test_progress.sh — what long steps say: `augur collect`'s estimate of its
# time, and progress with a count on a terminal, nothing on a pipe:
#   - the start message states the fixed cost and the range of slowdowns
#     bench/collect_small.sh measured (docs/benchmarks.md, "Small runs"),
#     for the engines run: 14-175x with the default 2 block sizes and 3 set
#     counts, 11-130x with 1 and 3, 20-265x with 4 and 3, 8-85x with 1 and
#     none, 12-145x with 2 and 1 (it said "5-80x" whatever was measured, and
#     a 300 x 300 matrix multiply took 170x; then it counted the block sizes
#     and not the set counts, which cost about a third of one each);
#   - `augur collect`: every AUGUR_PROGRESS_SECONDS a "still collecting"
#     line with the instructions the program executed so far, which the
#     collector writes to its log (src/collector/collect_progress.c): the
#     counts grow and stay below the run's total, which `augur report`
#     gives afterwards;
#   - the first `augur report --scopes` of a run analyses and stores every
#     module it ran but the program, which collect stored: a line names the
#     module, which of how many it is, the step and the functions done
#     (libc's 3000-odd functions in steps of 64);
#   - with stderr on a pipe, neither says a word.
# script(1) (util-linux) gives the terminal.
source "$TESTLIB"
# 4 s of wall time whatever the host's speed: a fixed amount of work
# (memsweep's 100 M instructions) ran in under two 1 s intervals on CI's
# host, and no tick found a count.
PROG=("$PROGRAMS/sweep_for" 4)

# ---- collect ----------------------------------------------------------------
AUGUR_PROGRESS_SECONDS=1 "$AUGUR" collect --db "$WORK/pipe.db" -- "${PROG[@]}" >/dev/null 2>"$WORK/pipe.err"
check "collect on a pipe: stored" "$?" 0
check "collect on a pipe: no progress line" "$(grep -c 'still collecting' "$WORK/pipe.err")" 0
check "collect on a pipe: no carriage return" "$(grep -c $'\r' "$WORK/pipe.err")" 0
check "collect on a pipe: three lines (start, stored, how to see it)" "$(wc -l < "$WORK/pipe.err")" 3
# estimate BLOCKS [SETS] — the start message's estimate for a collect at these
# block sizes (and set counts; the default without).
estimate() {
    local sets=()
    [ $# -lt 2 ] || sets=(--set-counts "$2")
    "$AUGUR" collect --db "$WORK/est.db" --block-sizes "$1" "${sets[@]}" -- "$PROGRAMS/memsweep" 16 64 1 2>&1 >/dev/null |
        sed -n 's/^augur: collecting .* under Valgrind (expect \(.*\))\.\.\.$/\1/p'
}
tail_="the program's native time with"
dense_="the high end for code dense in memory accesses"
check "start message: the default's estimate" "$(head -n 1 "$WORK/pipe.err" | sed 's/^augur: collecting [^ ]* //')" \
    "under Valgrind (expect about 1.5 s to start and store, then 14-175x $tail_ 2 block sizes and 3 set counts: $dense_)..."
check "start message: one block size" "$(estimate 64)" \
    "about 1.5 s to start and store, then 11-130x $tail_ 1 block size and 3 set counts: $dense_"
check "start message: four block sizes" "$(estimate 64,256,1024,4096)" \
    "about 1.5 s to start and store, then 20-265x $tail_ 4 block sizes and 3 set counts: $dense_"
check "start message: one block size, no set counts" "$(estimate 64 none)" \
    "about 1.5 s to start and store, then 8-85x $tail_ 1 block size and 0 set counts: $dense_"
check "start message: one set count" "$(estimate 64,4096 64)" \
    "about 1.5 s to start and store, then 12-145x $tail_ 2 block sizes and 1 set count: $dense_"

AUGUR_PROGRESS_SECONDS=1 script -qec "$(printf '%q ' "$AUGUR" collect --db "$WORK/tty.db" -- "${PROG[@]}")" /dev/null |
    tr -d '\r' >"$WORK/tty"
TOTAL=$("$AUGUR" report --db "$WORK/tty.db" --format json | jq '.total.instructions')
grep -oE '^augur: still collecting \([0-9]+ s so far; [0-9]+ instructions\)$' "$WORK/tty" |
    sed -E 's/.*; ([0-9]+) instructions\)/\1/' >"$WORK/counts"
check "collect on a terminal: two or more lines with the instructions so far" "$(awk 'END { print (NR >= 2) }' "$WORK/counts")" 1
check "collect on a terminal: the counts grow, below the run's $TOTAL" \
    "$(awk -v total="$TOTAL" 'NR > 1 && $1 < last { bad = 1 } $1 <= 0 || $1 > total { bad = 1 } { last = $1 }
        END { print bad ? "no" : "yes" }' "$WORK/counts")" yes
check "collect on a terminal: every progress line a whole line" \
    "$(grep -c '^augur: still collecting' "$WORK/tty") $(grep -cE '^augur: still collecting \([0-9]+ s so far(; [0-9]+ instructions)?\)$' "$WORK/tty")" \
    "$(grep -c '^augur: still collecting' "$WORK/tty") $(grep -c '^augur: still collecting' "$WORK/tty")"

# ---- the first report --scopes ----------------------------------------------
"$AUGUR" report --db "$WORK/pipe.db" --scopes >/dev/null 2>"$WORK/scopes.pipe"
check "report --scopes on a pipe: silent" "$(wc -c < "$WORK/scopes.pipe")" 0
script -qec "$(printf '%q ' "$AUGUR" report --db "$WORK/tty.db" --scopes)" /dev/null >"$WORK/scopes.raw"
# the line is rewritten in place: each \r (and erase-line) starts a new state of it
sed -e 's/\x1b\[K//g' "$WORK/scopes.raw" | tr '\r' '\n' | grep '^augur: ' >"$WORK/scopes.tty"
NMODS=$(sqlite3 "$WORK/tty.db" "SELECT count(DISTINCT module_id) FROM process_modules")
# module 1, the program, was analysed and stored by collect (for builds replaced later)
check "report --scopes on a terminal: every module named, k of $NMODS, but the program collect stored" \
    "$(sed -nE 's/^augur: analysing .* \(module ([0-9]+) of ([0-9]+)\)\.\.\.$/\1 \2/p' "$WORK/scopes.tty" | tr '\n' ' ')" \
    "$(seq 2 "$NMODS" | sed "s/$/ $NMODS/" | tr '\n' ' ')"
check "collect stored the program's structure" \
    "$(sqlite3 "$WORK/tty.db" "SELECT count(*) FROM binaries b JOIN modules m ON m.build_id = b.build_id
                               JOIN processes p ON p.exe_module_id = m.id")" 1
LIBC=$(grep -oE 'libc\.so\.6 \(module [0-9]+ of [0-9]+\)' "$WORK/scopes.tty" | head -n 1)
check "report --scopes: libc analysed in steps, 64 functions each" \
    "$(grep -F "augur: analysing $LIBC: " "$WORK/scopes.tty" | sed -E 's/.*: ([0-9]+)\/([0-9]+) functions$/\1 \2/' |
        awk '$1 % 64 && $1 != $2 { bad = 1 } { n++ } END { print (n > 20 && !bad) ? "yes" : "no" }')" yes
check "report --scopes: then stored, with a count" \
    "$(grep -cE "^augur: storing ${LIBC//[()]/.}: [0-9]+/[0-9]+ functions$" "$WORK/scopes.tty" | awk '{ print ($1 > 20) }')" 1
check "report --scopes: the scope view follows" "$(grep -c '^Scopes with at least' "$WORK/scopes.raw")" 1

finish
