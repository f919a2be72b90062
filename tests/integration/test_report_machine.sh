#!/bin/bash
# test_report_machine.sh — `augur report --machine` on a measured run of
# kernels_O2 (tests/programs/structure/kernels.c) at N = 72 on zen4 (32 KiB
# 8-way L1, 1 MiB 8-way L2, 32 MiB 16-way L3, 64-byte lines):
#   - misses per level from the run's measured histograms against Cachegrind
#     on the same binary and N with the same first level and each lower
#     level as its last level: within 1% (no model in between);
#   - the loop terms come from the run's counts: matmul's inner loop runs
#     N^3 iterations; functions sum to the total; time = cycles / clock;
#   - a sweep of 540 lines, just past the L1's 512: the contiguous
#     set-associative model gives sweep's L1 misses in closed form (1296)
#     and within 1% of Cachegrind's (the fully-associative cut: 2160);
#   - refusals: --machine with --cache or --scopes (usage), an unknown machine.
source "$TESTLIB"
PROG="$PROGRAMS/kernels_O2"
DB="$WORK/k.db"
N=72

"$AUGUR" collect --db "$DB" --param N=$N -- "$PROG" $N >/dev/null 2>&1
check "collect exit" "$?" 0
"$AUGUR" report --db "$DB" --machine zen4 --format json --top 0 --show-startup > "$WORK/rep.json" 2> "$WORK/rep.err"
check "report --machine exit" "$?" 0

check_zen4_misses "$WORK/rep.json" 0.01 "$PROG" $N

check "the report is of the run" "$(jq '.runs[0].id' "$WORK/rep.json")" 1
CYC=$(jq .total.cycles "$WORK/rep.json"); SEC=$(jq .total.time_seconds "$WORK/rep.json")
check "time = cycles / 3.55 GHz" "$(awk -v c="$CYC" -v s="$SEC" 'BEGIN { print (c > 0 && (s - c / 3.55e9) ^ 2 < 1e-24) ? 1 : 0 }')" 1
MM_LINE=$(line_of LOOP:matmul_k "$SRC_PROGRAMS/structure/kernels.c")
check "matmul's inner loop: N^3 iterations measured" \
    "$(jq --arg n "loop at kernels.c:$MM_LINE" '[.scopes[] | select(.name == $n) | .terms.iterations] | .[0]' "$WORK/rep.json")" \
    "$((N * N * N))"
check "every loop has a bound and a time" \
    "$(jq '[.scopes[] | select(.kind == "loop" and .instructions > 0) | select(.bound == null or .time_seconds == null)] | length' "$WORK/rep.json")" 0
check "functions sum to the total" \
    "$(jq '([.functions[].cycles] | add) as $s | (($s - .total.cycles) | fabs) < 1e-6 * .total.cycles' "$WORK/rep.json")" true
"$AUGUR" report --db "$DB" --machine zen4 > "$WORK/rep.txt" 2>/dev/null
check "text: loops table" "$(grep -c '^Loops (most time first' "$WORK/rep.txt")" 1
check "text: time" "$(grep -c '^Predicted time: ' "$WORK/rep.txt")" 1

# ---- a sweep just past the L1's capacity: the contiguous set-associative model ----
# memsweep sweeps 540 consecutive lines 4 times; zen4's L1 has 64 sets of 8
# ways (512 lines).  Round-robin, 28 sets hold 9 of the lines and lose them,
# 36 hold 8 and keep them: sweep's L1 misses are 540 cold + 3 * 540 * (1 -
# 36*8/540) = 1296, where the fully-associative cut says all 4 * 540 miss;
# Cachegrind (D1 32768,8,64) gives sweep's D1 read misses.
SW="$WORK/sw.db"
"$AUGUR" collect --db "$SW" --param N=540 -- "$PROGRAMS/memsweep" 540 64 4 >/dev/null 2>&1
"$AUGUR" report --db "$SW" --machine zen4 --format json --top 0 > "$WORK/sw.json" 2>/dev/null
SWL1=$(jq '.functions[] | select(.function == "sweep") | .misses.L1' "$WORK/sw.json")
check "memsweep 540 lines: sweep's L1 misses 1296 by the contiguous model ($SWL1)" "$(within "$SWL1" 1296 0.001)" 1
valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=33554432,16,64 --cachegrind-out-file="$WORK/cg.out" \
    "$PROGRAMS/memsweep" 540 64 4 >/dev/null 2>&1
CG=$(cg_annotate "$WORK/cg.out" 2>/dev/null | awk '/memsweep.c:sweep$/ { gsub(",", "", $0); for (i = 1; i <= NF; i++) if ($i ~ /^\(/) c++; print $0; exit }' |
     sed -E 's/\([^)]*\)//g' | awk '{ print $5 }')
check "memsweep 540 lines: sweep's L1 misses within 1% of Cachegrind's D1 misses ($CG)" "$(within "$SWL1" "$CG" 0.01)" 1

"$AUGUR" report --db "$DB" --machine zen4 --cache 32K 2> "$WORK/e1" >/dev/null
check "--machine with --cache: usage error" "$?" 2
check "--machine with --cache: message" "$(grep -c 'machine excludes --cache' "$WORK/e1")" 1
"$AUGUR" report --db "$DB" --machine zen4 --scopes 2> "$WORK/e2" >/dev/null
check "--machine with --scopes: usage error" "$?" 2
"$AUGUR" report --db "$DB" --machine nosuch 2> "$WORK/e3" >/dev/null
check "unknown machine: exit" "$?" 1
check "unknown machine: lists the known" "$(grep -c "unknown machine 'nosuch' (known: .*zen4" "$WORK/e3")" 1
finish
