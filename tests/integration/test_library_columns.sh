#!/bin/bash
# test_library_columns.sh — a library routine whose calls and lengths grow
# with the size (issue 21 item 2: ssor's glibc memset).  libcols
# (tests/programs) zeroes an (N+2)^2 array of doubles a column at a time:
# N + 2 memsets of 8(N + 2) bytes.  glibc 2.36 fills up to 2048 bytes with
# 32-byte vector stores and longer blocks with `rep stosb`, which Valgrind
# counts once per byte (and once more per call, the count's last test):
# the columns take it from N = 255.
#   (a) trained at N = 100 .. 300, where only the largest run's columns
#       (2416 bytes) are filled byte by byte, and predicted at N = 1200:
#       memset's counts are its bytes times the largest run's counts per
#       byte, so its instructions lie within 10% of the measured run's, and
#       its range and the program's hold the run (before: 1.1 million
#       predicted, range 0 to 5.7 million, 11.6 million measured);
#       The calls go through the program's PLT stub, named
#       __memset_avx2_unaligned_erms@plt (issue 21's unnamed region of
#       snap: lround's stub), one instruction a call;
#   (b) trained at N = 60 .. 240 (all vector stores) and predicted at
#       N = 960: memset's range holds the byte-wise run from its predicted
#       bytes, and the warning names it.
source "$TESTLIB"
FILL='.functions[] | select(.function == "__memset_avx2_unaligned_erms")'

# train DB N... — collect libcols at each N into DB and model it.
train() {
    local db=$1 n
    shift
    for n in "$@"; do
        "$AUGUR" collect --db "$db" --param N=$n -- "$PROGRAMS/libcols" $n >/dev/null 2>&1
    done
    "$AUGUR" model --db "$db" --quiet >/dev/null 2>&1
}

# measure N — a run at N reported as JSON into $WORK/mN.json; prints memset's instructions.
measure() {
    "$AUGUR" collect --db "$WORK/m$1.db" --param N=$1 -- "$PROGRAMS/libcols" $1 >/dev/null 2>&1
    "$AUGUR" report --db "$WORK/m$1.db" --format json --top 0 >"$WORK/m$1.json"
    jq "[$FILL | .instructions] | add" "$WORK/m$1.json"
}

# (a) the largest training run has taken the byte-wise path
train "$WORK/a.db" 100 150 200 250 300
check "model exit (a)" "$?" 0
check "memset's bytes written are modeled" \
    "$(sqlite3 "$WORK/a.db" "SELECT count(*) FROM models WHERE kind = 'function' AND metric = 'bytes_written' AND function = '__memset_avx2_unaligned_erms'")" 1
check "memset's instructions are its bytes times the largest run's per byte (composed)" \
    "$(sqlite3 "$WORK/a.db" "SELECT method FROM models WHERE kind = 'function' AND metric = 'instructions' AND function = '__memset_avx2_unaligned_erms'")" composed
measured=$(measure 1200)
check "the run at N=1200 filled byte by byte: at least 1202 * 9616 instructions" \
    "$([ "${measured:-0}" -ge $((1202 * 9616)) ] && echo yes)" yes
"$AUGUR" predict --db "$WORK/a.db" --param N=1200 --format json --top 0 >"$WORK/a.json" 2>"$WORK/a.err"
check "predict exit (a)" "$?" 0
predicted=$(jq "[$FILL | .instructions] | add" "$WORK/a.json")
check "memset's instructions within 10% of the measured $measured (predicted $predicted)" \
    "$(within "$predicted" "$measured" 0.10)" 1
check "memset's instructions_range holds the measured $measured" \
    "$(jq --argjson m "$measured" "[$FILL | .instructions_range] | map(.[0] <= \$m and \$m <= .[1]) | any" "$WORK/a.json")" true
check "memset's reads, 2 a call (its ret, its load of the threshold), stay exact: the measured $(jq "[$FILL | .reads] | add" "$WORK/m1200.json")" \
    "$(jq "[$FILL | .reads] | add" "$WORK/a.json")" "$(jq "[$FILL | .reads] | add" "$WORK/m1200.json")"
total=$(jq .total.instructions "$WORK/m1200.json")
# the PLT stub the calls go through (`jmp *GOT` in the program's .plt.sec,
# outside the .text Valgrind's objects cover): named after the function
# its jumps reach, one instruction a call, measured and predicted
STUB='.functions[] | select(.function == "__memset_avx2_unaligned_erms@plt") | .instructions'
check "the measured run names memset's PLT stub: N + 2 = 1202 executions" "$(jq "$STUB" "$WORK/m1200.json")" 1202
check "and the prediction: 1202" "$(jq "$STUB" "$WORK/a.json")" 1202
check "the program's instructions_range holds the measured $total" \
    "$(jq --argjson m "$total" '.total.instructions_range | .[0] <= $m and $m <= .[1]' "$WORK/a.json")" true

# (b) no training run took it
train "$WORK/b.db" 60 90 120 180 240
check "model exit (b)" "$?" 0
measured=$(measure 960)
"$AUGUR" predict --db "$WORK/b.db" --param N=960 --format json --top 0 >"$WORK/b.json" 2>"$WORK/b.err"
check "predict exit (b)" "$?" 0
check "memset's instructions_range holds the byte-wise run's $measured" \
    "$(jq --argjson m "$measured" "[$FILL | .instructions_range] | map(.[0] <= \$m and \$m <= .[1]) | any" "$WORK/b.json")" true
check "memset's range is no wider than its bytes allow: under 2 instructions a byte" \
    "$(jq "[$FILL | .instructions_range[1]] | add < 2 * 962 * 7696" "$WORK/b.json")" true
check "the warning names memset's instructions as uncertain" \
    "$(jq -r '.prediction.warnings[]' "$WORK/b.json" | grep -cE '^instructions: uncertain for [0-9]+ functions? at N=960: .*memset')" 1
finish
