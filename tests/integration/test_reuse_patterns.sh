#!/bin/bash
# Reuse-distance histograms of synthetic patterns against their closed forms
# (tests/programs/patterns.c): K lines swept R times.
source "$TESTLIB"
SRC=$SRC_PROGRAMS/patterns.c
K=256 R=5

# run MODE — collect patterns MODE K R, return its main profile's path
run() {
    collect_to "$WORK/$1" -- "$PROGRAMS/patterns" "$1" $K $R || echo "collect failed for $1" >&2
    main_profile "$WORK/$1"
}

# Cyclic sweep: K cold, every later access at distance K-1.
p=$(run sweep)
d=$((K - 1))
check "sweep 64B" "$(hist_at "$p" patterns.c "$(line_of LOAD:sweep "$SRC")" 64)" \
      "$((K * R)) $K $(bin_of $d):$((K * (R - 1))):$((K * (R - 1) * d))"
# At 4 KiB: P = K/64 pages; the first touch of a page per sweep is cold or at
# distance P-1, the other 63 touches of the page are at distance 0.
P=$((K / 64))
check "sweep 4KiB" "$(hist_at "$p" patterns.c "$(line_of LOAD:sweep "$SRC")" 4096)" \
      "$((K * R)) $P 0:$((R * (K - P))):0 $(bin_of $((P - 1))):$((P * (R - 1))):$((P * (R - 1) * (P - 1)))"

# Two interleaved arrays: each load sees 2K-1 distinct lines between reuses.
p=$(run interleaved)
d=$((2 * K - 1))
for arr in a b; do
    check "interleaved $arr" "$(hist_at "$p" patterns.c "$(line_of LOAD:interleaved-$arr "$SRC")" 64)" \
          "$((K * R)) $K $(bin_of $d):$((K * (R - 1))):$((K * (R - 1) * d))"
done

# Stride 16 B: 4 loads per line; the first per line as in the sweep, 3 at distance 0.
p=$(run stride)
d=$((K - 1))
check "stride 64B" "$(hist_at "$p" patterns.c "$(line_of LOAD:stride "$SRC")" 64)" \
      "$((4 * K * R)) $K 0:$((3 * K * R)):0 $(bin_of $d):$((K * (R - 1))):$((K * (R - 1) * d))"

# Fixed random permutation: K-1 other lines of a, plus the K/8 lines of
# order[].  gcc puts the load of order[i] on the same source line, so look for
# the one instruction of the line whose histogram is the closed form.
p=$(run permutation)
d=$((K - 1 + K / 8))
want="$((K * R)) $K $(bin_of $d):$((K * (R - 1))):$((K * (R - 1) * d))"
check "permutation 64B: one load with $want" \
      "$(hist_at "$p" patterns.c "$(line_of LOAD:permutation "$SRC")" 64 | grep -cx -- "$want")" 1
finish
