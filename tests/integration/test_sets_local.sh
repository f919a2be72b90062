#!/bin/bash
# test_sets_local.sh — set-local reuse distances (augur collect --set-counts,
# docs/collector.md "Set-local distances"; issue 20 item 2) on
# tests/programs/sets_aligned.c: K = 9 arrays of N = 32 lines swept together
# R = 10 times, 1 MiB apart (alike at every set count up to 16384).
#   - aligned (OFFSET 0), line i of every array is in set i: each reuse has
#     set-local distance K - 1 = 8 at 64, 1024 and 2048 sets, the first
#     sweep far (closed form); fully associative, 288 lines fit zen4's
#     512-line L1, but its 8 ways do not hold 9 lines: every touch misses;
#   - OFFSET 1, array j's line i is in set i + j: set s holds m_s lines
#     (those of the arrays j with 0 <= s - j < N), each reused at m_s - 1;
#   - `augur report --machine zen4` of either run: sweep's L1 and L2 misses
#     those of Cachegrind configured as zen4's L1 and L2, exactly; without
#     the set-local histograms (--set-counts none) the report falls back to
#     the distance models, and misses all but the first sweep of the aligned
#     arrays' misses (the check that the histograms are what gets it right);
#   - the option's mistakes refused.
source "$TESTLIB"
PROG="$PROGRAMS/sets_aligned"
K=9 N=32 R=10
LOAD=$(line_of LOAD:sweep "$SRC_PROGRAMS/sets_aligned.c")

# sets_at PROFILE S — the data load's set-local histogram at S sets (the
# instruction of the LOAD line with far touches: the other loads the table
# of addresses, first touched in main): "TOUCHES FAR BIN:COUNT:SUM...".
sets_at() {
    awk -v want_line="$LOAD" -v s="$2" '
        $1 == "file" { path[$2] = $3 }
        $1 == "ins" { p = path[$6]; mine = (p ~ /sets_aligned\.c$/ && $7 == want_line && $9 > 0) }
        $1 == "sets" && mine && $2 == s && $4 > 0 {
            out = $3 " " $4
            for (i = 6; i < 6 + 3 * $5; i += 3) out = out " " $i ":" $(i + 1) ":" $(i + 2)
            print out
        }' "$1"
}

# expected OFFSET — the closed form of sets_at at any set count from 64 on.
expected() {
    awk -v k=$K -v n=$N -v r=$R -v off="$1" 'BEGIN {
        for (j = 0; j < k; j++) for (i = 0; i < n; i++) m[i + j * off]++
        for (s in m) c[m[s] - 1] += m[s] * (r - 1)
        out = k * n * r " " k * n
        for (d = 0; d < 32; d++) if (c[d]) out = out " " d ":" c[d] ":" c[d] * d
        print out }'
}

# cg_sweep OFFSET — Cachegrind's data misses of sweep, "D1 LL", as zen4's L1 and L2.
cg_sweep() {
    valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,8,64 --cachegrind-out-file="$WORK/cg$1.out" \
        "$PROG" $K $N $R "$1" >/dev/null 2>&1
    cg_annotate "$WORK/cg$1.out" 2>/dev/null | awk '/sets_aligned.c:sweep$/ { print; exit }' | sed -E 's/\([^)]*\)//g; s/,//g' |
        awk '{ print $5 + $8, $6 + $9 }'
}

# augur_sweep DB — augur report --machine zen4's misses of sweep, "L1 L2", rounded.
augur_sweep() {
    "$AUGUR" report --db "$1" --machine zen4 --format json --top 0 2>/dev/null |
        jq -r '.functions[] | select(.function == "sweep") | "\(.misses.L1 | round) \(.misses.L2 | round)"'
}

for off in 0 1; do
    mkdir -p "$WORK/off$off"
    "$AUGUR" collect --db "$WORK/off$off.db" --keep-profiles "$WORK/off$off" -- "$PROG" $K $N $R $off >/dev/null 2>&1
    check "offset $off: collect" "$?" 0
    prof=$(main_profile "$WORK/off$off")
    check "offset $off: set-count lines (the default)" "$(grep '^set-count' "$prof" | tr '\n' ' ')" \
        "set-count 64 64 32 set-count 1024 64 32 set-count 2048 64 32 "
    want=$(expected $off)
    for s in 64 1024 2048; do
        check "offset $off: the load's set-local histogram at $s sets, the closed form" "$(sets_at "$prof" $s)" "$want"
    done
    check "offset $off: the database's rows at 64 sets" \
        "$(sqlite3 "$WORK/off$off.db" "SELECT h.touches, h.far, sum(b.count) FROM set_histograms h
            JOIN instruction_info i ON i.id = h.instruction_id JOIN set_bins b USING (instruction_id, sets)
            WHERE i.function = 'sweep' AND h.sets = 64 AND h.far > 0 GROUP BY h.instruction_id" | tr '|' ' ')" \
        "$((K * N * R)) $((K * N)) $((K * N * (R - 1)))"
    cg=$(cg_sweep $off)
    got=$(augur_sweep "$WORK/off$off.db")
    check "offset $off: report --machine zen4: sweep's L1 and L2 misses ($got) within 2 of Cachegrind's ($cg)" \
        "$(awk -v a="$got" -v c="$cg" 'BEGIN { split(a, x, " "); split(c, y, " ")
            print (x[1] - y[1] <= 2 && y[1] - x[1] <= 2 && x[2] - y[2] <= 2 && y[2] - x[2] <= 2 && y[1] > 0) }')" 1
done

# Without set-local histograms the distance models see 288 lines in a 512-line
# L1 and a sweep: most of the aligned arrays' reuses are taken for hits (512
# L1 misses of Cachegrind's 2881: the check fails without the histograms).
"$AUGUR" collect --db "$WORK/none.db" --set-counts none -- "$PROG" $K $N $R 0 >/dev/null 2>&1
check "--set-counts none: collect" "$?" 0
check "--set-counts none: no set-local rows" "$(sqlite3 "$WORK/none.db" 'SELECT count(*) FROM set_histograms')" 0
check "--set-counts none: sweep's L1 misses under twice the first sweep's (Cachegrind: all $((K * N * R)))" \
    "$(augur_sweep "$WORK/none.db" | awk -v c=$((K * N)) '{ print ($1 < 2 * c) }')" 1

# Mistakes.
for bad in 48 "2048,64" "1,2,4,8,16" "64,"; do
    out=$("$AUGUR" collect --db "$WORK/bad.db" --set-counts "$bad" -- "$PROG" 1 1 1 0 2>&1)
    check "--set-counts $bad: status 2 and what to give" "$?:$(grep -c "set-counts '$bad': give none or ascending powers of two" <<<"$out")" "2:1"
done
out=$("$AUGUR" collect --db "$WORK/bad.db" --set-counts 64 --sample-rd 0.5 -- "$PROG" 1 1 1 0 2>&1)
check "--set-counts with --sample-rd: refused" "$?:$(grep -c 'needs exact histograms' <<<"$out")" "2:1"
out=$("$AUGUR" collect --db "$WORK/bad.db" --set-counts 64 --block-sizes 32,4096 -- "$PROG" 1 1 1 0 2>&1)
check "--set-counts without 64-byte blocks first: refused" "$?:$(grep -c 'needs exact histograms' <<<"$out")" "2:1"
"$AUGUR" collect --db "$WORK/s.db" --sample-rd 0.5 -- "$PROG" 1 1 1 0 >/dev/null 2>&1
check "--sample-rd alone: no set counts by default" "$?:$(sqlite3 "$WORK/s.db" 'SELECT count(*) FROM set_counts')" "0:0"
finish
