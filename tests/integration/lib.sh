# lib.sh — helpers for the integration tests (sourced; ctest sets AUGUR,
# PROGRAMS, WORK and TESTLIB).  Each test script runs `augur` on programs from
# tests/programs and compares what it stores with numbers known independently.
set -u
: "${AUGUR:?run through ctest}" "${PROGRAMS:?}" "${WORK:?}"
SRC_PROGRAMS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../programs" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
FAILURES=0
CHECKS=0

# check NAME GOT WANT — one assertion; failures are counted, not fatal.
check() {
    CHECKS=$((CHECKS + 1))
    if [ "$2" = "$3" ]; then
        echo "ok   $1: $2"
    else
        echo "FAIL $1: got '$2', want '$3'"
        FAILURES=$((FAILURES + 1))
    fi
}

# finish — the exit status of the test script.
finish() {
    echo "$((CHECKS - FAILURES)) passed, $FAILURES failed"
    [ "$FAILURES" -eq 0 ]
}

# within P M F — 1 when P lies within the fraction F of M (|P - M| <= F * M), else 0.
within() { awk -v p="$1" -v m="$2" -v f="$3" 'BEGIN { d = p - m; if (d < 0) d = -d; print (d <= f * m) ? 1 : 0 }'; }

# zen4_two_levels FILE — write zen4's description without its L3 to FILE
# (L1 32 KiB 8-way, L2 1 MiB 8-way): two levels, as Cachegrind simulates.
zen4_two_levels() {
    sed '/^  - name: L3$/,/^    policy: victim/d' "$SRC_PROGRAMS/../../machines/zen4.yaml" >"$1"
}

# cachegrind_misses LL WHAT PROGRAM ARGS... — Cachegrind's data misses of
# the run with zen4's L1 (32 KiB, 8-way) and LL as the last level: WHAT is
# D1 (L1 reads + writes) or LLd (the data part of the last level).
cachegrind_misses() {
    local ll=$1 what=$2
    shift 2
    valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL="$ll" --cachegrind-out-file=/dev/null \
        "$@" 2>&1 >/dev/null | awk -v what="$what" '$2 == what && $3 == "misses:" { gsub(",", "", $4); print $4 }'
}

# check_zen4_misses JSON F PROGRAM ARGS... — JSON's total.misses.L1, .L2
# and .L3 (augur on machine zen4) each within the fraction F of Cachegrind's
# for the same run: D1; LLd with the 1 MiB L2 as last level; LLd with the
# 32 MiB L3 as last level.
check_zen4_misses() {
    local json=$1 f=$2 level want got
    shift 2
    for level in L1 L2 L3; do
        case $level in
        L1) want=$(cachegrind_misses 1048576,8,64 D1 "$@") ;;
        L2) want=$(cachegrind_misses 1048576,8,64 LLd "$@") ;;
        L3) want=$(cachegrind_misses 33554432,16,64 LLd "$@") ;;
        esac
        got=$(jq --arg l $level '.total.misses[$l]' "$json")
        check "$level misses within $(awk -v f="$f" 'BEGIN { print f * 100 }')% of Cachegrind ($got vs $want)" \
            "$(within "$got" "$want" "$f")" 1
    done
}

# grouped N — the whole number N as augur's text writes it, grouped by
# thousands with ',' (1234567 -> 1,234,567); plain: strip the commas.
grouped() {
    awk -v n="$1" 'BEGIN { s = ""; while (n >= 1000) { s = sprintf(",%03d", n % 1000) s; n = int(n / 1000) }
                           print n s }'
}

# show_formula FILE PATTERN METRIC — the formula (and its note in brackets)
# of METRIC under the first heading of FILE, `augur model --show`'s output,
# that matches PATTERN ("function matmul \(kernels", "loop at k.c:12$").
show_formula() {
    awk -v pat="$2" -v m="$3" '/^(scope|function|program)/ { on = ($0 ~ pat) }
                               on && $1 == m { sub(/^ *[^=]*= /, ""); print; exit }' "$1"
}

# fn_count JSON FUNCTION — the instructions of FUNCTION (its rows of every
# module added up) in a report or a prediction.
fn_count() { jq --arg f "$2" '[.functions[] | select(.function == $f) | .instructions] | add' "$1"; }

# check_totals PRED REAL KEY... — a prediction's total against a measured
# report's: instructions within 0.1%, the misses of each cache KEY
# (SIZE:LINE, as in the JSON) within 10%.
check_totals() {
    local pred=$1 real=$2 key p m
    shift 2
    p=$(jq .total.instructions "$pred"); m=$(jq .total.instructions "$real")
    check "total instructions within 0.1% ($p vs $m)" "$(within "$p" "$m" 0.001)" 1
    for key in "$@"; do
        p=$(jq --arg k "$key" '.total.misses[$k]' "$pred"); m=$(jq --arg k "$key" '.total.misses[$k]' "$real")
        check "misses $key within 10% ($p vs $m)" "$(within "$p" "$m" 0.10)" 1
    done
}

# line_of TAG FILE — the line number of the source line containing TAG.
line_of() {
    grep -n -- "$1" "$2" | head -n 1 | cut -d: -f1
}

# unwrapped FILE — FILE with wrapped warnings (continuation lines indented
# by four spaces, report_print_wrapped) joined back into one line each.
unwrapped() {
    sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' "$1"
}

# line_writes JSON FILE LINE — the writes of source line FILE:LINE (FILE a
# base name, so that a libc line of the same number is not counted) in a
# report or prediction, summed over its rows and rounded.
line_writes() {
    jq --arg f "$2" --argjson l "$3" '[.lines[] | select(.line == $l and (.file // "" | endswith($f)))
                                      | .writes] | add | round' "$1"
}

# train DB PROG N... — augur collect PROG N (with --param N) into DB for each
# N, then augur model --quiet over them; returns model's status.
train() {
    local db=$1 prog=$2 n
    shift 2
    for n in "$@"; do
        "$AUGUR" collect --db "$db" --param N="$n" -- "$prog" "$n" >/dev/null 2>&1
    done
    "$AUGUR" model --db "$db" --quiet >/dev/null 2>&1
}

# train_checked DB PROG ARGS N... — augur collect --param n=N -- PROG N ARGS
# (ARGS: words after N, may be empty) into DB for each N, then augur model,
# each a check.
train_checked() {
    local db=$1 prog=$2 args=$3 n
    shift 3
    for n in "$@"; do
        # shellcheck disable=SC2086 # ARGS are words
        "$AUGUR" collect --db "$db" --param n=$n -- "$prog" $n $args >/dev/null 2>&1
        check "collect ${prog##*/} n=$n" "$?" 0
    done
    "$AUGUR" model --db "$db" >/dev/null 2>&1
    check "model" "$?" 0
}

# tool_child PID — the child of augur PID that runs Valgrind; consumer_child
# PID — its other child, collect's reuse-distance consumer (a fork of augur:
# --analysis pipe), if any.
tool_child() { for c in $(pgrep -P "$1"); do [ "$(readlink "/proc/$c/exe")" = "$(readlink -f "$AUGUR")" ] || echo "$c"; done; }
consumer_child() { for c in $(pgrep -P "$1"); do [ "$(readlink "/proc/$c/exe")" = "$(readlink -f "$AUGUR")" ] && echo "$c"; done; }

# alive PID — whether PID is a process that has not ended (a zombie has).
alive() {
    [ -e "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" != Z ]
}

# gone_within S PID... — 1 when every PID has ended within S seconds, else 0.
gone_within() {
    local s=$1 p left
    shift
    for _ in $(seq $((s * 10))); do
        left=0
        for p in "$@"; do alive "$p" && left=1; done
        [ $left = 0 ] && echo 1 && return
        sleep 0.1
    done
    echo 0
}

# consumer_killed PATTERN OUTPUT ARGS... — `augur ARGS -- procs wait` with
# --analysis pipe, its consumer killed while the program runs: the tool's
# next send fails, augur exits 125 with a message matching PATTERN (grep)
# and OUTPUT (the database or report ARGS name) is not written.
consumer_killed() {
    local pattern=$1 output=$2 augur_pid consumer
    shift 2
    rm -f "$WORK/dead.go"
    "$AUGUR" "$@" --analysis pipe -- "$PROGRAMS/procs" wait "$WORK/dead.go" 2 0 >/dev/null 2>"$WORK/dead.err" &
    augur_pid=$!
    for _ in $(seq 300); do [ -e "$WORK/dead.go" ] && break; sleep 0.1; done
    consumer=$(consumer_child $augur_pid)
    check "dead consumer: found it" "$([ -n "$consumer" ] && echo yes)" yes
    kill -9 $consumer
    wait $augur_pid
    check "dead consumer: augur fails" "$?" 125
    check "dead consumer: says so" "$(grep -c "$pattern" "$WORK/dead.err")" 1
    check "dead consumer: nothing written" "$([ -e "$output" ] && echo written || echo none)" none
}

# program_killed ARGS... — `augur ARGS -- procs wait` with --analysis pipe,
# the program (Valgrind) killed while it runs: the consumer reads the end of
# the records and ends, and augur with it.
program_killed() {
    local augur_pid consumer
    rm -f "$WORK/killed.go"
    "$AUGUR" "$@" --analysis pipe -- "$PROGRAMS/procs" wait "$WORK/killed.go" 30 0 >/dev/null 2>&1 &
    augur_pid=$!
    for _ in $(seq 300); do [ -e "$WORK/killed.go" ] && break; sleep 0.1; done
    consumer=$(consumer_child $augur_pid)
    kill -9 $(tool_child $augur_pid)
    check "killed program: the consumer ends" "$(gone_within 10 "$consumer")" 1
    check "killed program: augur ends" "$(gone_within 10 "$augur_pid")" 1
    wait $augur_pid
}

# collect_to DIR ARGS... — augur collect into $WORK/test.db, keeping the raw
# profiles in DIR (in the run's folder DIR/augur-collect-XXXXXX: use
# kept_profiles); the program's stdout is discarded.
collect_to() {
    local dir=$1
    shift
    "$AUGUR" collect --db "$WORK/test.db" --keep-profiles "$dir" "$@" >/dev/null
}

# framed — the lines on stdin, then the `end LINES CRC` line that closes a
# raw file (docs/profile-format.md, "Integrity"): hand-made profiles.
framed() {
    python3 -c 'import sys, zlib
b = sys.stdin.buffer.read()
sys.stdout.buffer.write(b + b"end %d %x\n" % (b.count(b"\n"), zlib.crc32(b)))'
}

# kept_profiles DIR — the profiles collect_to DIR kept, one per line.
kept_profiles() {
    ls "$1"/augur-collect-*/augur.*.prof
}

# main_profile DIR — the profile of the first process (lowest pid) collect_to DIR kept.
main_profile() {
    kept_profiles "$1" | head -n 1
}

# hist_at PROFILE FILE_SUFFIX LINE BLOCK — for the memory-reading instructions
# of source line LINE in a file ending in FILE_SUFFIX, their histograms at
# block size BLOCK, one per line: "TOUCHES COLD bin:count:sum ...".
hist_at() {
    awk -v suffix="$2" -v want_line="$3" -v bs="$4" '
        $1 == "file" { path[$2] = $3 }
        $1 == "ins" {
            f = $6; p = path[f]
            mine = (f >= 0 && substr(p, length(p) - length(suffix) + 1) == suffix && $7 == want_line && $9 > 0)
        }
        $1 == "hist" && mine && $2 == bs {
            out = $3 " " $4
            for (i = 6; i < 6 + 3 * $5; i += 3) out = out " " $i ":" $(i + 1) ":" $(i + 2)
            print out
        }' "$1"
}

# bin_of D — the histogram bin of distance D (src/rd/rd.h).
bin_of() {
    awk -v d="$1" 'BEGIN {
        if (d < 16) { print d; exit }
        p = 0; x = d; while (x >= 2) { x = int(x / 2); p++ }
        print 16 + (p - 4) * 8 + int(d / 2 ^ (p - 3)) % 8 }'
}
