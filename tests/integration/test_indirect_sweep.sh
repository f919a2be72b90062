#!/bin/bash
# test_indirect_sweep.sh — an indirect access that sweeps lines (issue 20,
# item 2: hpccg's HPC_sparsemv at N = 80, L1 misses +5.6% against
# Cachegrind) on tests/programs/stencil_spmv.c, y = A x with the 27-point
# operator of an 80 x 16 x 6 grid: x[col[j]] depends on loaded data, yet
# two of three of its deltas are 8 bytes, and a row's lines of x come back
# one grid row (80 rows) later at a reuse distance of about 466 lines, 0.9
# of zen4's 512-line L1, all of them in runs of consecutive lines.
#   - the collector finds the load's dominant stride, 8 bytes, and counts
#     it exactly (closed form);
#   - `augur report --machine zen4` of the run: spmv's L1 misses within 2%
#     of Cachegrind's: its reuses are placed as a sweep's (0.1% under);
#     the binomial model of random placement, which this load had before,
#     let some 40% of those reuses miss (+4.3%).
source "$TESTLIB"
PROG="$PROGRAMS/stencil_spmv"
ARGS=(80 16 6 2)
LOAD_LINE=$(line_of LOAD:spmv "$SRC_PROGRAMS/stencil_spmv.c")

# Cachegrind's L1 data misses of spmv (D1mr + D1mw) for zen4's L1.
valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,8,64 --cachegrind-out-file="$WORK/cg.out" \
    "$PROG" "${ARGS[@]}" >/dev/null 2>&1
CG=$(cg_annotate "$WORK/cg.out" 2>/dev/null | awk '/stencil_spmv.c:spmv$/ { print; exit }' | sed -E 's/\([^)]*\)//g; s/,//g' |
    awk '{ print $5 + $8 }')
check "Cachegrind counted spmv's L1 misses" "$([ "${CG:-0}" -gt 0 ] && echo yes)" yes

"$AUGUR" collect --db "$WORK/m.db" -- "$PROG" "${ARGS[@]}" >/dev/null 2>&1
check "collect: exit" "$?" 0
# The load of x is the most executed of LOAD_LINE's with the fewest deltas
# at its dominant one: 8 bytes between the neighbours along x, of which a
# row with vx of them along x (2 at a face, else 3), vy along y and vz
# along z has (vx - 1) vy vz; over the grid (2 NX - 2)(3 NY - 2)(3 NZ - 2)
# a product, of (3 NX - 2)(3 NY - 2)(3 NZ - 2) - 1 deltas in all.
read -r NX NY NZ REPS <<<"${ARGS[*]}"
check "the x[col[j]] load's dominant delta, its count and its deltas: 8 bytes, the closed forms" \
    "$(sqlite3 "$WORK/m.db" "SELECT s.delta, s.count, s.deltas FROM strides s
        JOIN instruction_info i ON i.id = s.instruction_id
        WHERE i.function = 'spmv' AND i.line = $LOAD_LINE ORDER BY i.reads DESC, s.count LIMIT 1" | tr '|' ' ')" \
    "8 $(((2 * NX - 2) * (3 * NY - 2) * (3 * NZ - 2) * REPS)) $(((3 * NX - 2) * (3 * NY - 2) * (3 * NZ - 2) * REPS - 1))"

"$AUGUR" report --db "$WORK/m.db" --machine zen4 --format json --top 0 >"$WORK/r.json" 2>/dev/null
MEASURED=$(jq -r '.functions[] | select(.function == "spmv") | .misses.L1' "$WORK/r.json")
check "report --machine zen4: spmv's L1 misses within 2% of Cachegrind's ($MEASURED vs $CG)" \
    "$(within "$MEASURED" "$CG" 0.02)" 1
finish
