#!/bin/bash
# test_memspy_names.sh — `augur memspy` names heap objects in the user's
# terms (docs/memspy.md, "Data objects and how they are named"): a
# std::vector by its variable and line, not by the parameter (__first) and
# line (new_allocator.h:137) of the libstdc++ code inlined into main; a
# new[] whose variable has no DWARF location by its declaration; in a
# stripped binary, by MODULE+0xOFF, the offset of the allocating call.
# (C programs with debug info: test_memspy.sh.)
source "$TESTLIB"

zen4_two_levels "$WORK/two.yaml"

# heap_json NAME ARGS... — the JSON report of a run into $WORK/NAME.json.
heap_json() {
    local name=$1
    shift
    "$AUGUR" memspy --machine "$WORK/two.yaml" --format json --output "$WORK/$name.json" --keep-raw "$WORK/$name.raw" -- "$@" \
        >/dev/null 2>"$WORK/$name.err"
}

# C++ (20000 elements: the program makes well over 1% of the references,
# so its module is analysed): each object's name and its first frame in
# the test's source, which at -O1 is the innermost frame (the inlined
# libstdc++ code's header line replaced by the user's); at -O0 the
# allocator's frames are real ones, innermost, in libstdc++'s headers.
SRC=$SRC_PROGRAMS/heapnames_cc.cc
expected=$(printf '%s\n' "arr main heapnames_cc.cc:$(line_of ALLOC:arr "$SRC") 0" \
    "vec main heapnames_cc.cc:$(line_of ALLOC:vec "$SRC") 0")
for cxx in "g++ -O1" "clang++ -O1" "g++ -O0"; do
    command -v "${cxx% *}" >/dev/null || { echo "# skip C++ heap names with $cxx: not installed"; continue; }
    bin=$WORK/heapnames_cc.${cxx// /}
    $cxx -g -march=x86-64-v2 -o "$bin" "$SRC"
    heap_json "cc.${cxx// /}" "$bin" 20000
    want=$expected
    [ "${cxx#* }" = -O0 ] && want=$(sed '2s/ 0$/ 6/' <<<"$expected") # vec: 6 libstdc++ frames first
    check "C++ heap names and the user's frame, $cxx" \
        "$(jq -r '.data_objects[] | select(.kind == "heap" and (.name == "vec" or .name == "arr")) |
            .name as $n | [.allocation | to_entries[] | select(.value.file | tostring | endswith("/heapnames_cc.cc"))][0] |
            "\($n) \(.value.function) heapnames_cc.cc:\(.value.line) \(.key)"' "$WORK/cc.${cxx// /}.json" | sort)" "$want"
    [ "$cxx" = "g++ -O1" ] && heap_json cc.short "$bin" 100 # the program well under 1% of the references
    check "C++: no heap object named after a libstdc++ parameter or header line, $cxx" \
        "$(jq -r '[.data_objects[] | select(.kind == "heap") | .name |
            select(startswith("__") or test(":137$"))] | length' "$WORK/cc.${cxx// /}.json")" 0
done

# A short run (100 elements): the loader makes most of the references, but
# the program's own module is analysed all the same, so its objects keep
# their variables' names.
check "C++, a short run: the program under 1% of the references" \
    "$(jq '([.code_objects[] | select(.kind == "line" and ((.file // "") | endswith("heapnames_cc.cc"))) | .references]
        | add) as $p | $p > 0 and $p < 0.01 * .total.references' "$WORK/cc.short.json")" true
check "C++, a short run: vec and arr still named" \
    "$(jq -r '[.data_objects[] | select(.kind == "heap") | .name | select(. == "vec" or . == "arr")] | sort | join(" ")' \
        "$WORK/cc.short.json")" "arr vec"

# Stripped: heapnames.c's six allocation sites, each named hnstrip+0xOFF;
# the offsets, looked up in the same binary before stripping, are the
# lines of the six allocating calls.
SRC=$SRC_PROGRAMS/heapnames.c
gcc -O1 -g -march=x86-64-v2 -o "$WORK/hnfull" "$SRC"
strip -o "$WORK/hnstrip" "$WORK/hnfull"
heap_json strip "$WORK/hnstrip" 20000
names=$(jq -r '.data_objects[] | select(.kind == "heap") | .name | select(startswith("hnstrip"))' "$WORK/strip.json")
check "stripped: six heap objects, all MODULE+0xOFF" \
    "$(grep -cE '^hnstrip\+0x[0-9a-f]+$' <<<"$names") $(wc -l <<<"$names")" "6 6"
check "stripped: the offsets are the allocating calls" \
    "$(sed 's/^hnstrip+//' <<<"$names" | addr2line -e "$WORK/hnfull" | sed 's/ .*//; s/.*://' | sort -n | tr '\n' ' ')" \
    "$(for t in local gptr rows each_row buf_a buf_b; do line_of "ALLOC:$t" "$SRC"; done | sort -n | tr '\n' ' ')"
check "stripped: the JSON's names are unique" "$(jq '[.data_objects[].name] | length == (unique | length)' "$WORK/strip.json")" true
# Each heap object's innermost allocation frame is named like the object
# (MODULE+0xOFF, "symbol": false) in JSON, and so in the text's stack.
check "stripped: allocation frames named MODULE+0xOFF, no symbol" \
    "$(jq -r '[.data_objects[] | select(.kind == "heap" and (.name | startswith("hnstrip"))) |
        select(.allocation[0].function == .name and .allocation[0].symbol == false)] | length' "$WORK/strip.json")" 6
"$AUGUR" memspy --machine "$WORK/two.yaml" --raw "$WORK/strip.raw" > "$WORK/strip.txt" 2>/dev/null
# (the text lists the objects with stall: five of the six here)
check "stripped: the text's stacks begin with the objects' names, no frame ???" \
    "$(grep -o 'allocated at: hnstrip+0x[0-9a-f]*' "$WORK/strip.txt" | sed 's/allocated at: //' |
        grep -cxF -f <(echo "$names")) $(grep -c 'allocated at:.*???' "$WORK/strip.txt")" "5 0"

finish
