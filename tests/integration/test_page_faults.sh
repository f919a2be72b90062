#!/bin/bash
# test_page_faults.sh — first touches of 4 KiB pages and the first-level
# DTLB's misses predicted far from the training sizes, against their closed
# form, on tests/programs/pagefill.c (HPCCG's fill of a 27-point operator:
# M = (3N - 2)^3 doubles and ints, each array mapped alone): trained at
# N = 6..10, where the arrays are 4 to 43 pages and their page counts small
# integers whose rounding an exact fit chases (7 + N^2/2 - 7N/2 for col),
# predicted at N = 80: the fill loop's page faults and L1 DTLB misses within
# 5% of ceil(8 M / 4096) + ceil(4 M / 4096) (each page of the sweep misses
# the TLB once, when first touched), which the page models alone put at a
# third (predict_page_dist: the line models, 64 times the counts, carry
# them).
source "$TESTLIB"
PROG="$PROGRAMS/pagefill"
TARGET=80
LOOP="loop at pagefill.c:$(line_of LOOP:fill "$SRC_PROGRAMS/pagefill.c")"

train "$WORK/t.db" "$PROG" 6 7 8 9 10
check "train exit" "$?" 0
"$AUGUR" predict --db "$WORK/t.db" --param N=$TARGET --machine zen4 --format json --top 0 >"$WORK/p.json" 2>"$WORK/p.err"
check "predict --machine zen4 at N=$TARGET: exit" "$?" 0

M=$(((3 * TARGET - 2) * (3 * TARGET - 2) * (3 * TARGET - 2)))
PAGES=$(((8 * M + 4095) / 4096 + (4 * M + 4095) / 4096))
read -r FAULTS TLB < <(jq -r --arg n "$LOOP" '.scopes[] | select(.name == $n) |
    "\(.terms.page_faults) \(.tlb_misses["L1 DTLB 4K"])"' "$WORK/p.json")
check "the fill's page faults within 5% of the pages of val and col ($FAULTS vs $PAGES)" \
    "$(within "$FAULTS" "$PAGES" 0.05)" 1
check "its first-level DTLB misses within 5% of them ($TLB vs $PAGES)" "$(within "$TLB" "$PAGES" 0.05)" 1

finish
