#!/bin/bash
# test_predict_machine.sh — `augur predict --machine` on kernels_O2
# (tests/programs/structure/kernels.c), trained at N = 20..36 and predicted
# at N = 72 on zen4 (32 KiB 8-way L1, 1 MiB 8-way L2, 32 MiB 16-way L3,
# 64-byte lines):
#   - misses per level against Cachegrind on the same binary at N = 72,
#     with the same first level and each lower level as its last level
#     (--D1=32768,8,64 --LL=1048576,8,64, then --LL=33554432,16,64):
#     within 5% (the extrapolation's error is part of it);
#   - every term reported: total cycles and time (time = cycles / clock),
#     TLB misses, a bound per loop, the loops table in the text;
#   - the penalties: page faults (at least the pages of the three N x N
#     matrices the kernels first touch, at zen4's 1000 ns each) and branch
#     mispredictions (at least the 13-cycle refill each in a loop the issue
#     width bounds, whose window holds no queued work to hide it behind;
#     docs/performance-model.md, "Branch mispredictions"), in the total,
#     the loops and the text;
#   - branchy (tests/programs/branchy.c) trained at N = 2000..10000 and
#     predicted at 20000: its data-dependent branch mispredicts
#     min(taken, not taken), which the program prints, within 3%; its loops'
#     back edges add nothing; each costs the refill plus its condition's
#     path, mov (%rax),%rsi (load 4) and test %r9,%rsi (1): 18 cycles;
#   - a description given as a file path works like its name;
#   - an unknown machine lists the known names, and --machine with
#     --cache is a usage error.
source "$TESTLIB"
PROG="$PROGRAMS/kernels_O2"
DB="$WORK/k.db"
TARGET=72
MACHINES=$(cd "$SRC_PROGRAMS/../.." && pwd)/machines

for n in 20 24 28 32 36; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n >/dev/null 2>&1
done
"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "model exit" "$?" 0

"$AUGUR" predict --db "$DB" --param N=$TARGET --machine zen4 --format json --top 0 > "$WORK/pred.json" 2> "$WORK/pred.err"
check "predict --machine exit" "$?" 0
check "extrapolation still warned" "$(grep -c "N=72 is 2x the largest fitted value" "$WORK/pred.err")" 1
# On a terminal (script(1) gives one) the text holds the warning and stderr stays quiet: once, not twice.
script -qec "$(printf '%q ' "$AUGUR" predict --db "$DB" --param N=$TARGET)" /dev/null | tr -d '\r' >"$WORK/tty.txt"
check "a terminal shows the warning once" "$(unwrapped "$WORK/tty.txt" | grep -c "N=72 is 2x the largest fitted value")" 1

# Cachegrind's data misses at each level of zen4
check_zen4_misses "$WORK/pred.json" 0.05 "$PROG" $TARGET

# every term
CYC=$(jq .total.cycles "$WORK/pred.json"); SEC=$(jq .total.time_seconds "$WORK/pred.json")
check "time = cycles / 3.55 GHz" "$(awk -v c="$CYC" -v s="$SEC" 'BEGIN { print (c > 0 && (s - c / 3.55e9) ^ 2 < 1e-24) ? 1 : 0 }')" 1
check "TLB misses per level" "$(jq '.total.tlb_misses | keys | join(",")' "$WORK/pred.json")" '"L1 DTLB 4K,L2 DTLB 4K"'
check "every loop has a bound and a time" \
    "$(jq '[.scopes[] | select(.kind == "loop") | select(.bound == null or .time_seconds == null)] | length' "$WORK/pred.json")" 0
check "loops carry their terms" "$(jq '[.scopes[] | select(.kind == "loop") | .terms.memory_cycles] | length > 5' "$WORK/pred.json")" true
MM_LINE=$(line_of LOOP:matmul_k "$SRC_PROGRAMS/structure/kernels.c")
check "matmul's inner loop: N^3 iterations" \
    "$(jq --arg n "loop at kernels.c:$MM_LINE" '[.scopes[] | select(.name == $n) | .terms.iterations] | .[0]' "$WORK/pred.json")" \
    "$((TARGET * TARGET * TARGET))"
check "functions carry time" "$(jq '[.functions[] | select(.function == "matmul") | .time_seconds > 0] | .[0]' "$WORK/pred.json")" true
# penalties: page faults cost page_fault_ns each, mispredictions at least the 13-cycle refill
# where the issue width bounds the loop (elsewhere the queued work hides part of it)
check "page faults: at least the 3 matrices' pages" \
    "$(jq --argjson n $TARGET '.total.page_faults >= 3 * $n * $n * 8 / 4096 and .total.page_faults < 2000' "$WORK/pred.json")" true
check "page_fault_seconds = page_faults x 1000 ns" \
    "$(jq '(.total.page_fault_seconds - .total.page_faults * 1e-6 | fabs) < 1e-12' "$WORK/pred.json")" true
check "issue-bound loops: mispredict_cycles >= mispredicts x 13; all: >= 0" \
    "$(jq '[.scopes[] | select(.kind == "loop") | .terms | select(.mispredicts > 0)
            | .mispredict_cycles >= (if .core_cycles_per_iteration <= .issue then 13 * .mispredicts else 0 end) - 1e-9]
           | all' "$WORK/pred.json")" true
check "loops' mispredictions sum to the total" \
    "$(jq '([.scopes[] | select(.kind == "loop") | .terms.mispredicts] | add) as $s | ($s - .total.mispredicts | fabs) <= 1e-6 * ($s + 1)' "$WORK/pred.json")" true
check "loops carry the penalty terms" \
    "$(jq '[.scopes[] | select(.kind == "loop") | .terms | select(.page_fault_cycles == null or .mispredict_cycles == null)] | length' "$WORK/pred.json")" 0
# mispredictions of a data-dependent branch: min(taken, not taken), counted by the program
BDB="$WORK/b.db"
for n in 2000 4000 6000 8000 10000; do
    "$AUGUR" collect --db "$BDB" --param N=$n -- "$PROGRAMS/branchy" $n >/dev/null 2>&1
done
"$AUGUR" model --db "$BDB" --quiet >/dev/null 2>&1
"$AUGUR" predict --db "$BDB" --param N=20000 --machine zen4 --format json --top 0 > "$WORK/b.json" 2> "$WORK/b.err"
check "branchy: predict exit" "$?" 0
want=$("$PROGRAMS/branchy" 20000 | awk '$1 == "min" { print $2 }')
check "branchy: mispredictions = min(taken, not taken) of its branch, within 3%" \
    "$(jq --argjson w "$want" '.total.mispredicts as $m | ($m - $w | fabs) <= 0.03 * $w' "$WORK/b.json")" true
check "branchy: each misprediction 13 + 4 + 1 cycles" \
    "$(jq '(.total.mispredict_seconds - .total.mispredicts * 18 / 3.55e9 | fabs) < 1e-12' "$WORK/b.json")" true
echo "branchy at N=20000: predicted $(jq .total.mispredicts "$WORK/b.json") mispredictions, the program counts $want"
check "functions and the hidden start-up code sum to the total" \
    "$(jq '(([.functions[].cycles] | add) + .startup.cycles) as $s | (($s - .total.cycles) | fabs) < 1e-6 * .total.cycles' \
        "$WORK/pred.json")" true

"$AUGUR" predict --db "$DB" --param N=$TARGET --machine "$MACHINES/zen4.yaml" --format json --top 0 > "$WORK/path.json" 2>/dev/null
check "a file path works like the name" "$(jq .total.cycles "$WORK/path.json")" "$CYC"
"$AUGUR" predict --db "$DB" --param N=$TARGET --machine zen4 > "$WORK/pred.txt" 2>/dev/null
check "text: loops table" "$(grep -c '^Loops (most time first' "$WORK/pred.txt")" 1
check "text: predicted time" "$(grep -c '^Predicted time: ' "$WORK/pred.txt")" 1
check "text: penalty lines" "$(grep -c '^  of which \(page faults\|branch mispredictions\): ' "$WORK/pred.txt")" 2

# ---- refusals ----------------------------------------------------------------------
"$AUGUR" predict --db "$DB" --param N=$TARGET --machine nosuch 2> "$WORK/e1" >/dev/null
check "unknown machine: exit" "$?" 1
check "unknown machine: lists the known" "$(grep -c "unknown machine 'nosuch' (known: .*zen4" "$WORK/e1")" 1
"$AUGUR" predict --db "$DB" --param N=$TARGET --machine zen4 --cache 32K 2> "$WORK/e2" >/dev/null
check "--machine with --cache: usage error" "$?" 2
check "--machine with --cache: message" "$(grep -c 'exclude each other' "$WORK/e2")" 1
finish
