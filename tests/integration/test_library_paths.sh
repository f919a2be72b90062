#!/bin/bash
# test_library_paths.sh — a library routine that takes another path at a
# size no training run reached (issue 21): libcopy (tests/programs) calls
# memcpy 1000 times on 8N bytes.  Trained at N = 4 .. 16 (32 to 128 bytes,
# copied without a loop), predicted at N = 128 (1 KiB, copied in a loop):
#   - the prediction of memcpy cannot know the loop's cost, so a warning
#     names it as uncertain for the instructions, in text and JSON;
#   - its instructions_range holds what a run at N = 128 measures;
#   - at N = 12, inside the training range, there is no such warning.
source "$TESTLIB"
DB="$WORK/c.db"
for n in 4 6 8 12 16; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROGRAMS/libcopy" $n >/dev/null 2>&1
done
"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "model exit" "$?" 0
"$AUGUR" collect --db "$WORK/m.db" --param N=128 -- "$PROGRAMS/libcopy" 128 >/dev/null 2>&1
"$AUGUR" report --db "$WORK/m.db" --format json --top 0 >"$WORK/m.json"
"$AUGUR" predict --db "$DB" --param N=128 --format json --top 0 >"$WORK/p.json" 2>"$WORK/p.err"
check "predict exit" "$?" 0
COPY='.functions[] | select(.function != null and (.function | test("memcpy")))'
measured=$(jq "[$COPY | .instructions] | add" "$WORK/m.json")
check "the run at N=128 executed memcpy (a library routine by that name)" "$([ "${measured:-0}" -gt 100000 ] && echo yes)" yes
check "the warning names memcpy's instructions as uncertain (JSON)" \
    "$(jq -r '.prediction.warnings[]' "$WORK/p.json" | grep -cE '^instructions: uncertain for [0-9]+ functions? at N=128: .*memcpy')" 1
check "and on stderr" "$(unwrapped "$WORK/p.err" | grep -cE 'warning: instructions: uncertain .*memcpy.*another path')" 1
check "memcpy's instructions_range holds the measured $measured" \
    "$(jq --argjson m "$measured" "[$COPY | .instructions_range] | map(.[0] <= \$m and \$m <= .[1]) | any" "$WORK/p.json")" true
"$AUGUR" predict --db "$DB" --param N=12 --format json >"$WORK/p12.json" 2>/dev/null
check "N=12 (a training size): no instructions warning" \
    "$(jq -r '.prediction.warnings[]' "$WORK/p12.json" | grep -c '^instructions: uncertain')" 0
finish
