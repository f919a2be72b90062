#!/bin/bash
# test_core_model.sh — `augur structure --machine`: the core model of the
# loops of kernels_O2 (tests/programs/structure/kernels.c, gcc 12 -O2
# -march=x86-64-v2) on a small core described in a file written here, every
# number worked out by hand from the disassembly, then the same loops on a
# machine found by name, and bad input.
#
# The core ("toy"): issue width 4; int_alu and move on p0 p1 p5 (latency 1,
# 1/3 cycle); fp_add, fp_mul on p0 p1 (latency 4, 0.5 cycle); branch on p5
# (1 cycle); load on p2 p3 (latency 5, 0.5 cycle); store on p4 (1 cycle).
# Every class is one uop and keeps one of its ports busy 1 cycle.
source "$TESTLIB"
SRC="$SRC_PROGRAMS/structure/kernels.c"
PROG="$PROGRAMS/kernels_O2"
ROOT=$(cd "$(dirname "$TESTLIB")/../.." && pwd)

# The toy core in place of sapphire-rapids' core section (caches, TLBs and
# memory kept, so that the file is a whole valid description).
third=0.3333333333333333
cat > "$WORK/core.yaml" <<YAML
core:
  clock_ghz: 2.0
  issue_width: 4
  vector_bits: 256
  max_outstanding_misses: 10
  branch_mispredict_cycles: 15
  store_forward_cycles: 5
  ports: [p0, p1, p2, p3, p4, p5]
  classes:
    int_alu:  {ports: [p0, p1, p5], latency_cycles: 1, rthroughput_cycles: $third}
    int_mul:  {ports: [p1], latency_cycles: 3, rthroughput_cycles: 1}
    int_div:  {ports: [p0], latency_cycles: 20, rthroughput_cycles: 10}
    fp_add:   {ports: [p0, p1], latency_cycles: 4, rthroughput_cycles: 0.5}
    fp_mul:   {ports: [p0, p1], latency_cycles: 4, rthroughput_cycles: 0.5}
    fp_fma:   {ports: [p0, p1], latency_cycles: 4, rthroughput_cycles: 0.5}
    fp_div:   {ports: [p0], latency_cycles: 13, rthroughput_cycles: 4}
    fp_sqrt:  {ports: [p0], latency_cycles: 18, rthroughput_cycles: 6}
    fp_cvt:   {ports: [p0, p1], latency_cycles: 4, rthroughput_cycles: 0.5}
    move:     {ports: [p0, p1, p5], latency_cycles: 1, rthroughput_cycles: $third}
    branch:   {ports: [p5], latency_cycles: 1, rthroughput_cycles: 1}
    call:     {ports: [p5], latency_cycles: 1, rthroughput_cycles: 1}
    return:   {ports: [p5], latency_cycles: 1, rthroughput_cycles: 1}
    other:    {ports: [p0, p1, p5], latency_cycles: 1, rthroughput_cycles: $third}
    load:     {ports: [p2, p3], latency_cycles: 5, rthroughput_cycles: 0.5}
    store:    {ports: [p4], latency_cycles: 1, rthroughput_cycles: 1}
YAML
awk 'NR == FNR { core = core $0 "\n"; next }
     /^core:/ { printf "%s", core; skip = 1; next }
     skip && /^[a-z]/ { skip = 0 }
     !skip' "$WORK/core.yaml" "$ROOT/machines/sapphire-rapids.yaml" | sed 's/^name: .*/name: toy/' > "$WORK/toy.yaml"

"$AUGUR" structure --db "$WORK/s.db" --machine "$WORK/toy.yaml" "$PROG" > "$WORK/toy.out" 2> "$WORK/toy.err"
check "structure --machine FILE exit" "$?" 0

# row FILE FUNCTION TAG — "insns uops issue ports recur cycles bound busiest"
# of the loop of FUNCTION on the line marked LOOP:TAG.
row() {
    awk -v f="$2" -v at="kernels.c:$(line_of "LOOP:$3" "$SRC")" \
        '$1 == f && $2 == at { print $6, $7, $8, $9, $10, $11, $12, $13 }' "$1"
}

# triangular, inner loop: addsd (%rax),%xmm0; add $8,%rax; cmp; jne.
# uops 5 (the addsd is fp_add + load) / 4 = 1.25; ports {p0,p1,p5} hold
# fp_add 1 + alu 2 + branch 1 = 4 cycles / 3 = 1.33; recurrence: xmm0
# through addsd, fp_add latency 4 (the load is off the chain).
check "tri_j" "$(row "$WORK/toy.out" triangular tri_j)" "4 5.00 1.25 1.33 4.00 4.00 recurrence p0"

# matmul, inner loop: movsd (%rax),%xmm0; mulsd (%rdx),%xmm0; add; add;
# addsd %xmm0,%xmm1; movsd %xmm1,(%rcx); cmp; jne.  uops 9 / 4 = 2.25;
# ports: {p0,p1,p5}: mul 1 + add 1 + 3 alu + branch 1 = 6 / 3 = 2;
# recurrence: xmm1 through addsd, 4 (C's store and reload are memory).
check "matmul_k" "$(row "$WORK/toy.out" matmul matmul_k)" "8 9.00 2.25 2.00 4.00 4.00 recurrence p0"

# vector: movsd load; addsd load; movsd store; add; cmp; jne.
# uops 7 / 4 = 1.75; ports {p0,p1,p5}: 1 + 2 + 1 = 4 / 3; recurrence rax 1.
check "vec" "$(row "$WORK/toy.out" vector vec)" "6 7.00 1.75 1.33 1.00 1.75 issue p0"

# unrolled by 4: 4 x (movsd load; addsd; movsd store), 2 lea, cmp, jne.
# uops 4 + 4 + 4 + 3 + 1 = 16 / 4 = 4; the store port p4 holds 4 stores = 4
# (a tie with issue, which wins ties); recurrence rax -> lea rdi -> lea rax: 2.
check "unr" "$(row "$WORK/toy.out" unrolled unr)" "16 16.00 4.00 4.00 2.00 4.00 issue p4"

# The tree is still printed first.
check "tree before the table" "$(grep -c '^program ' "$WORK/toy.out")" 1

# ---- a machine by name: the recurrence of tri_j is sapphire-rapids' fp_add latency
lat=$(awk '$1 == "fp_add:" { for (i = 1; i <= NF; i++) if ($i == "latency_cycles:") print $(i + 1) }' \
    "$ROOT/machines/sapphire-rapids.yaml" | tr -d ',')
"$AUGUR" structure --db "$WORK/s.db" --machine sapphire-rapids "$PROG" > "$WORK/spr.out"
check "by name exit" "$?" 0
check "tri_j recurrence on sapphire-rapids" "$(row "$WORK/spr.out" triangular tri_j | cut -d' ' -f5)" \
    "$(printf '%.2f' "$lat")"

# ---- bad input: nothing on stdout, the problem and the fix on stderr
"$AUGUR" structure --db "$WORK/s.db" --machine nosuch "$PROG" > "$WORK/bad.out" 2> "$WORK/bad.err"
check "unknown machine exit" "$?" 1
check "unknown machine: nothing printed" "$(wc -c < "$WORK/bad.out")" 0
check "unknown machine lists the known" "$(grep -c "unknown machine 'nosuch'.*sapphire-rapids" "$WORK/bad.err")" 1
"$AUGUR" structure --db "$WORK/s.db" --machine toy --format json "$PROG" > /dev/null 2> "$WORK/json.err"
check "--machine with json exit" "$?" 2
check "--machine with json says why" "$(grep -c 'drop --format json' "$WORK/json.err")" 1
finish
