#!/bin/bash
# test_structure_inlined.sh — a loop inside inlined code (findings2 A10):
# tests/programs/stencil_inline.c at -O1 inlines sweep() into main's time
# loop.  Each loop must be named by its own line (grep markers), the sweep
# loop must sit inside the inlined sweep inside the time loop, main's lines
# must be main's own, and the run's loop counts must match closed forms in
# N and STEPS.
source "$TESTLIB"
SRC="$SRC_PROGRAMS/stencil_inline.c"
PROG="$PROGRAMS/stencil_inline"
N=50 STEPS=4
line() { line_of "$1" "$SRC"; }

S="$WORK/structure.json"
"$AUGUR" structure --db "$WORK/s.db" --format json "$PROG" > "$S"
check "structure exit" "$?" 0
main='.children[0].children[] | select(.kind == "function" and .name == "main")'

# ---- nesting and lines --------------------------------------------------
check "loops directly in main, by first line" \
    "$(jq -c "[$main | .children[] | select(.kind == \"loop\") | .lines[0]] | sort" "$S")" \
    "[$(line LOOP:init),$(line LOOP:time)]"
check "no loop folded in main" "$(jq -c "[$main | .. | objects | select(.kind == \"loop\") | .folded] | unique" "$S")" "[1]"
check "time loop > inlined sweep > sweep loop" \
    "$(jq -c "[$main | .children[] | select(.kind == \"loop\" and .lines[0] == $(line LOOP:time)) | .children[]
               | select(.kind == \"inlined\" and .name == \"sweep\") | .children[] | select(.kind == \"loop\") | .lines[0]]" "$S")" \
    "[$(line LOOP:sweep)]"
check "inlined sweep called at the time loop's body" \
    "$(jq "[$main | .. | objects | select(.kind == \"inlined\" and .name == \"sweep\") | .call_line] | unique | .[0]" "$S")" \
    "$(($(line LOOP:time) + 1))"
first=$(jq "$main | .lines[0]" "$S")
check "main's lines start at its own definition (line $first)" \
    "$([ "$first" -ge "$(line FN:main)" ] && [ "$first" -le "$(($(line FN:main) + 1))" ] && echo yes || echo no)" yes
check "main's last line is its own" "$(jq "$main | .lines[1]" "$S")" "$(wc -l < "$SRC")"

# ---- closed forms of a run ------------------------------------------------
"$AUGUR" collect --db "$WORK/s.db" -- "$PROG" "$N" "$STEPS" > /dev/null
check "collect exit" "$?" 0
"$AUGUR" report --db "$WORK/s.db" --scopes --threshold 0 --format json > "$WORK/scopes.json"
R="$WORK/scopes.json"
loop() { jq -c --argjson l "$1" '[.scopes[] | select(.name | startswith("stencil")) | .. | objects | select(.kind == "function" and .name == "main") | .. | objects | select(.kind == "loop" and .lines[0] == $l)][0]' "$R"; }
check "time loop: 1 entry" "$(loop "$(line LOOP:time)" | jq .entries)" 1
check "time loop: STEPS header executions" "$(loop "$(line LOOP:time)" | jq .header_executions)" "$STEPS"
check "sweep loop: STEPS entries" "$(loop "$(line LOOP:sweep)" | jq .entries)" "$STEPS"
check "sweep loop: STEPS*(N-2) header executions" "$(loop "$(line LOOP:sweep)" | jq .header_executions)" $((STEPS * (N - 2)))
check "init loop: N header executions" "$(loop "$(line LOOP:init)" | jq .header_executions)" "$N"

finish
