#!/bin/bash
# test_structure_names.sh — function names of a stripped system library
# agree between `augur report` (Valgrind's names) and the structure views
# (findings2 B): ld.so is stripped, and its names come from the .symtab of
# its separate debug file (libc6-dbg), found by build-id, as Valgrind does.
source "$TESTLIB"
PROG="$PROGRAMS/stencil_inline"
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2)
id=$(readelf -n "$LDSO" | awk '/Build ID/ { print $3 }')
if [ ! -r "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]; then
    echo "SKIP: ld.so's debug file is not installed (apt-get install libc6-dbg)"
    exit 0
fi

"$AUGUR" structure --db "$WORK/s.db" --format json "$LDSO" > "$WORK/ld.json"
check "structure of ld.so exit" "$?" 0
check "ld.so analysed with its debug file's symbols" "$(jq '.children[0].stripped' "$WORK/ld.json")" false
fn() { jq -r --arg e "$1" '.children[0].children[] | select(.kind == "function" and .entry == $e) | .name' "$WORK/ld.json"; }
# addresses from the debug file's own symbol table (readelf), names as nm prints them
dbg="/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
addr=$(readelf -sW "$dbg" | awk '$8 == "_dl_relocate_object" && $4 == "FUNC" { sub(/^0+/, "", $2); print "0x" $2; exit }')
check "_dl_relocate_object named at $addr" "$(fn "$addr")" _dl_relocate_object
# aliases at one address: the name Valgrind keeps (preferName: the shorter,
# then the alphabetically first), whether or not the run calls it
addr=$(readelf -sW "$dbg" | awk '$8 == "__tunable_get_val" && $5 == "GLOBAL" { sub(/^0+/, "", $2); print "0x" $2; exit }')
check "alias: __tunable_get_val, not __GI___tunable_get_val, at $addr" "$(fn "$addr")" __tunable_get_val
addr=$(readelf -sW "$dbg" | awk '$8 == "memmove" && $4 == "FUNC" { sub(/^0+/, "", $2); print "0x" $2; exit }')
if [ -n "$addr" ] && [ "$(readelf -sW "$dbg" | awk '$8 == "memcpy" && $4 == "FUNC" { sub(/^0+/, "", $2); print "0x" $2; exit }')" = "$addr" ]; then
    check "alias: memcpy, not memmove (both local), at $addr" "$(fn "$addr")" memcpy
fi
check "no fn_<address> names in sized code" \
    "$(jq '[.children[0].children[] | select(.kind == "function" and (.name | startswith("fn_")))] | length <= 1' "$WORK/ld.json")" true

# every ld.so function of the run's report has its scope under the same name
"$AUGUR" collect --db "$WORK/s.db" -- "$PROG" 10 1 > /dev/null
check "collect exit" "$?" 0
"$AUGUR" report --db "$WORK/s.db" --format json --show-startup | jq -r '.functions[] | select(.module | test("ld-linux")) | .function' |
    sort -u > "$WORK/report.txt"
"$AUGUR" report --db "$WORK/s.db" --scopes --threshold 0 --format json |
    jq -r '[.scopes[] | select(.name | test("ld-linux")) | .. | objects | select(.kind == "function") | .name] | unique[]' > "$WORK/scopes.txt"
check "ld.so functions in the report" "$([ "$(wc -l < "$WORK/report.txt")" -ge 10 ] && echo yes || echo no)" yes
check "report names missing from the scope view" "$(comm -23 "$WORK/report.txt" "$WORK/scopes.txt" | tr '\n' ' ')" ""

finish
