#!/bin/bash
# test_pow2_strides.sh — power-of-two strides that change from stage to
# stage (issue 20, item 2) on tests/programs/fft_radix2.c, Numerical
# Recipes' four1: the butterflies of half-distance h walk at 32 h bytes, so
# no stride is the majority of a load's deltas, and from h = 128 on one
# twiddle's pairs fall into one set of zen4's 64-set L1, where the reuse
# distances say the next twiddle finds them.  The model counts those
# conflicts from the classes (perf_level_misses_pow2):
#   - the collector's 2-adic classes of the butterfly load's deltas, in
#     closed form: n/2 - h deltas of 32 h bytes at each stage h = 4 .. n/4;
#   - `augur report --machine zen4` of a run at N = 16384: four1's L1
#     misses within 2% of Cachegrind's;
#   - trained at N = 512..8192, `augur predict --machine zen4` at 16384:
#     four1's L1 misses within 5% of Cachegrind's, its misses_range holds
#     them, and the uncertainty warning names four1 and the strides;
#   - the same models without the classes (runs of profile format 6): more
#     than 20% below Cachegrind's (the conflicts the distances cannot
#     show), and the range's high end too.
source "$TESTLIB"
PROG="$PROGRAMS/fft_radix2"
N=16384
LOAD_LINE=$(line_of LOAD:four1 "$SRC_PROGRAMS/fft_radix2.c")

train "$WORK/t.db" "$PROG" 512 1024 2048 4096 8192
check "train exit" "$?" 0

# The classes of the load at LOAD_LINE in the run at 8192: "SHIFT:COUNT ...".
want=""
for ((h = 4; h <= 8192 / 4; h *= 2)); do
    shift_=$((5 + $(awk -v h=$h 'BEGIN { print log(h) / log(2) }')))
    want="$want${want:+ }$shift_:$((8192 / 2 - h))"
done
check "the butterfly load's deltas by class at N=8192: n/2 - h of 32 h bytes for h = 4..n/4" \
    "$(sqlite3 "$WORK/t.db" "SELECT group_concat(c.shift || ':' || c.count, ' ') FROM (SELECT c.shift, c.count
        FROM stride_pow2 c JOIN instruction_info i ON i.id = c.instruction_id JOIN params p ON p.run_id = i.run_id
        WHERE p.name = 'N' AND p.value = 8192 AND i.function = 'four1' AND i.line = $LOAD_LINE
        ORDER BY i.addr, c.shift) c")" "$want"

# Cachegrind's L1 data misses of four1 (D1mr + D1mw) at N.
valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,8,64 --cachegrind-out-file="$WORK/cg.out" \
    "$PROG" $N >/dev/null 2>&1
CG=$(cg_annotate "$WORK/cg.out" 2>/dev/null | awk '/fft_radix2.c:four1$/ { print; exit }' | sed -E 's/\([^)]*\)//g; s/,//g' |
    awk '{ print $5 + $8 }')
check "Cachegrind counted four1's L1 misses" "$([ "${CG:-0}" -gt 0 ] && echo yes)" yes

"$AUGUR" collect --db "$WORK/m.db" --param N=$N -- "$PROG" $N >/dev/null 2>&1
check "collect at N=$N: exit" "$?" 0
"$AUGUR" report --db "$WORK/m.db" --machine zen4 --format json --top 0 >"$WORK/r.json" 2>/dev/null
MEASURED=$(jq -r '.functions[] | select(.function == "four1") | .misses.L1' "$WORK/r.json")
check "report --machine zen4 of the run at N=$N: four1's L1 misses within 2% of Cachegrind's ($MEASURED vs $CG)" \
    "$(within "$MEASURED" "$CG" 0.02)" 1

"$AUGUR" predict --db "$WORK/t.db" --param N=$N --machine zen4 --format json --top 0 >"$WORK/p.json" 2>"$WORK/p.err"
check "predict --machine zen4 at N=$N: exit" "$?" 0
read -r MISSES LOW HIGH < <(jq -r '.functions[] | select(.function == "four1") |
    "\(.misses.L1) \(.misses_range.L1[0]) \(.misses_range.L1[1])"' "$WORK/p.json")
check "four1's predicted L1 misses within 5% of Cachegrind's ($MISSES vs $CG): the conflicts counted" \
    "$(within "$MISSES" "$CG" 0.05)" 1
check "four1's L1 misses_range [$LOW, $HIGH] holds Cachegrind's $CG" \
    "$(awk -v l="$LOW" -v h="$HIGH" -v c="$CG" 'BEGIN { print (l <= c && c <= h) ? 1 : 0 }')" 1
check "the warning of zen4's L1 names four1 and power-of-two strides" \
    "$(unwrapped "$WORK/p.err" | grep -c 'misses L1 of zen4: uncertain for .*four1.*power-of-two strides')" 1

# The same models without the classes, as runs collected before profile format 7.
cp "$WORK/t.db" "$WORK/old.db"
sqlite3 "$WORK/old.db" "DELETE FROM stride_pow2"
"$AUGUR" predict --db "$WORK/old.db" --param N=$N --machine zen4 --format json --top 0 >"$WORK/old.json" 2>/dev/null
read -r OLD OLD_HIGH < <(jq -r '.functions[] | select(.function == "four1") | "\(.misses.L1) \(.misses_range.L1[1])"' \
    "$WORK/old.json")
check "without the classes four1's L1 misses are more than 20% below Cachegrind's ($OLD vs $CG)" \
    "$(awk -v p="$OLD" -v c="$CG" 'BEGIN { print (p < c / 1.2) ? 1 : 0 }')" 1
check "without the classes the high end ($OLD_HIGH) is below Cachegrind's $CG" \
    "$(awk -v h="$OLD_HIGH" -v c="$CG" 'BEGIN { print (h < c) ? 1 : 0 }')" 1
finish
