#!/bin/bash
# test_parent_recurrence.sh — a chain an outer loop carries through the
# memory of its inner loop (issue 21 item 3; docs/performance-model.md,
# "Carried by the parent loop"): tests/programs/sweep_angles.c, where cell i
# loads each angle's psi[m] that cell i - 1 stored.  The angle loop (gcc -O1):
#   movsd (%r12,%rax,8),%xmm1; movsd (%rbx,%rax,8),%xmm2      h[m], psi[m]
#   movapd %xmm1,%xmm0; mulsd %xmm2,%xmm0; addsd %xmm5,%xmm0
#   addsd %xmm4,%xmm1; divsd %xmm1,%xmm0
#   movapd %xmm0,%xmm1; addsd %xmm0,%xmm1; subsd %xmm2,%xmm1
#   movsd %xmm1,(%rbx,%rax,8)                                 psi[m]
#   addsd %xmm0,%xmm3; add $1,%rax; cmp; jg
# psi[m]'s chain from one cell's store to the next cell's, by zen3's
# latencies: store forwarding 8, mulsd 3, addsd 3, divsd 13.5, movapd 1,
# addsd 3, subsd 3 = 34.5 cycles, which the ANGLES chains of a cell share:
# 34.5 / ANGLES cycles per angle (natively on a Zen 3 guest, 3.1 GHz: 33.5
# at 1 angle, 8.5 at 4).  The angle loop's own chains are 3 (the sum).
source "$TESTLIB"
SRC="$SRC_PROGRAMS/sweep_angles.c"
LOOP="loop at sweep_angles.c:$(line_of "LOOP:angles" "$SRC")"
for a in 1 4; do
    DB="$WORK/a$a.db"
    "$AUGUR" collect --db "$DB" -- "$PROGRAMS/sweep_angles" 40 $a 2 >/dev/null 2>&1
    check "collect at $a angles exit" "$?" 0
    "$AUGUR" report --db "$DB" --machine zen3 --format json --top 0 >"$WORK/a$a.json" 2>"$WORK/a$a.err"
    check "report --machine zen3 at $a angles exit" "$?" 0
    jq -r --arg l "$LOOP" '.scopes[] | select(.name == $l) | .terms.recurrence' "$WORK/a$a.json" >"$WORK/a$a.rec"
done
check "1 angle: the whole chain per cell" "$(cat "$WORK/a1.rec")" 34.5
check "4 angles: a quarter of it per angle" "$(cat "$WORK/a4.rec")" 8.625
finish
