#!/bin/bash
# test_memspy_regions.sh — regions of interest: memspy obeys the program's
# CALLGRIND_START_INSTRUMENTATION / _STOP_ requests, and --instr-at-start=no
# starts with the instrumentation off (docs/memspy.md, "Regions of
# interest").  tests/programs/roi_marks.c, N = 3, closed forms:
#   - outside the regions `setup` writes cold (65536 doubles) 3 times, then
#     once between the regions; in each of the 2 regions `sweep` reads hot
#     (2048 doubles, 256 lines) once;
#   - --instr-at-start=no: hot 4096 references, all reads, 256 L1 misses,
#     all cold (region 2 hits: the caches keep hot across the uninstrumented
#     gap); cold 0 references; `regions 2` in the raw file and the JSON;
#   - default (instrumented from the start, STOP and START obeyed): cold
#     3 * 65536 = 196608 writes (the setup before region 1; the one between
#     the regions is not seen), hot 2048 writes + 4096 reads;
#   - no requests and --instr-at-start=no: nothing simulated, and the report
#     says why; no requests and the default: no regions, no note.
source "$TESTLIB"
PROG="$PROGRAMS/roi_marks"

# obj JSON NAME FIELD — data object NAME's FIELD (a jq path), or "absent"
obj() {
    jq -r --arg n "$2" "[.data_objects[] | select(.name == \$n) | $3] | if length == 0 then \"absent\" else .[0] end" "$1"
}

"$AUGUR" memspy --machine zen4 --instr-at-start no --format json --output "$WORK/roi.json" \
    --keep-raw "$WORK/roi.raw" -- "$PROG" 3 >/dev/null 2>&1
check "at-start no: exit" "$?" 0
check "at-start no: 2 regions in the JSON" "$(jq '.sampling.regions' "$WORK/roi.json")" 2
check "at-start no: the raw file's regions line" "$(grep -c '^regions 2$' "$WORK/roi.raw")" 1
check "at-start no: hot read 2 x 2048 times, no writes" "$(obj "$WORK/roi.json" hot '"\(.reads)/\(.writes)"')" 4096/0
check "at-start no: hot's 256 L1 misses, all cold (region 2 hits what region 1 left)" \
    "$(obj "$WORK/roi.json" hot '"\(.levels[0].misses)/\(.levels[0].causes.cold)"')" 256/256
check "at-start no: cold never referenced" "$(obj "$WORK/roi.json" cold '.references // 0')" 0
check "at-start no: the JSON warns the counts are of the regions" \
    "$(jq '[.warnings[] | select(startswith("the counts cover 2 regions of interest only"))] | length' \
        "$WORK/roi.json")" 1

"$AUGUR" memspy --machine zen4 --raw "$WORK/roi.raw" >"$WORK/roi.txt"
check "text: the note under the header" \
    "$(unwrapped "$WORK/roi.txt" | grep -c '^  note: the counts cover 2 regions of interest only')" 1
check "text: the sampling line" "$(grep -c '^sampling: none (every reference of the regions simulated)$' \
    "$WORK/roi.txt")" 1

"$AUGUR" memspy --machine zen4 --format json --output "$WORK/all.json" -- "$PROG" 3 >/dev/null 2>&1
check "at-start yes: exit" "$?" 0
check "at-start yes: instrumented at the start, then STOP, START: 2 regions" \
    "$(jq '.sampling.regions' "$WORK/all.json")" 2
check "at-start yes: cold written 3 x 65536 times before the first STOP, not after" \
    "$(obj "$WORK/all.json" cold '"\(.reads)/\(.writes)"')" 0/196608
check "at-start yes: hot filled (2048 writes) and read in both regions (4096)" \
    "$(obj "$WORK/all.json" hot '"\(.reads)/\(.writes)"')" 4096/2048

"$AUGUR" memspy --machine zen4 --instr-at-start no --format json --output "$WORK/none.json" -- \
    "$PROGRAMS/memsweep" 256 64 1 >/dev/null 2>&1
check "no requests: exit" "$?" 0
check "no requests: nothing simulated" "$(jq '.total.references' "$WORK/none.json")" 0
check "no requests: regions 0 and the warning says why" \
    "$(jq -r '"\(.sampling.regions) \(.warnings[0] | startswith("nothing was simulated"))"' "$WORK/none.json")" "0 true"
"$AUGUR" memspy --machine zen4 --format json --output "$WORK/plain.json" -- "$PROGRAMS/memsweep" 256 64 1 \
    >/dev/null 2>&1
check "no requests, instrumented throughout: regions null, no note" \
    "$(jq -c '[.sampling.regions, ([.warnings[] | select(contains("region"))] | length)]' "$WORK/plain.json")" \
    "[null,0]"

"$AUGUR" memspy --instr-at-start maybe -- "$PROG" 3 >/dev/null 2>"$WORK/bad.err"
check "bad --instr-at-start: usage error" "$?" 2
check "bad --instr-at-start: the message names the fix" \
    "$(grep -c "instr-at-start 'maybe': give yes or no" "$WORK/bad.err")" 1
finish
