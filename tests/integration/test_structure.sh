#!/bin/bash
# test_structure.sh — `augur structure` and `augur report --scopes` on the
# loop shapes of tests/programs/structure/kernels.c at -O0, -O2 and -O3:
# the loops found, their nesting and line ranges, per-scope counts against
# closed forms in N, every executed instruction in the static inventory,
# reuse of a stored analysis, and bad input.
source "$TESTLIB"
SRC="$SRC_PROGRAMS/structure/kernels.c"
N=24

line() { line_of "LOOP:$1" "$SRC"; }

# scope JSON of function FN of the program in the scope view
fn_scope() { jq -c --arg f "$2" '[.scopes[] | select(.name | startswith("kernels")) | .. | objects | select(.kind == "function" and .name == $f)][0]' "$1"; }

# loops (at any depth) of function FN in `augur structure` JSON
loops_of() { jq -c --arg f "$2" '[.children[0].children[] | select(.name == $f) | .. | objects | select(.kind == "loop")]' "$1"; }

# the first loop of a function (structure JSON) whose lines hold LINE
loop_at() { loops_of "$1" "$2" | jq -c --argjson l "$3" '[.[] | select(.lines != null and .lines[0] <= $l and $l <= .lines[1])] | last'; }

for O in O0 O2 O3; do
    prog="$PROGRAMS/kernels_$O"
    db="$WORK/$O.db"
    "$AUGUR" structure --db "$db" --format json "$prog" > "$WORK/$O.structure.json"
    check "$O structure exit" "$?" 0
    S="$WORK/$O.structure.json"

    # ---- loops and nesting --------------------------------------------------
    # matmul: a perfect 3-deep nest, each loop's lines holding its for-line
    check "$O matmul loops" "$(loops_of "$S" matmul | jq length)" 3
    check "$O matmul nest depth" \
        "$(jq '[.children[0].children[] | select(.name == "matmul") | .children[] | select(.kind == "loop") | .children[] | select(.kind == "loop") | .children[] | select(.kind == "loop")] | length' "$S")" 1
    for tag in matmul_i matmul_j matmul_k; do
        check "$O loop holds line of $tag" "$(loop_at "$S" matmul "$(line $tag)" | jq -r 'if . == null then "none" else "found" end')" found
    done
    check "$O imperfect loops" "$(loops_of "$S" imperfect | jq length)" 2
    [ "$O" != O3 ] && check "$O triangular loops" "$(loops_of "$S" triangular | jq length)" 2
    check "$O dispatch loops" "$(loops_of "$S" dispatch | jq length)" 1
    check "$O no loop folded in matmul" "$(loops_of "$S" matmul | jq '[.[] | .folded] | add')" 3

    # ---- closed forms of the run ----------------------------------------------
    "$AUGUR" collect --db "$db" -- "$prog" "$N" > /dev/null
    "$AUGUR" report --db "$db" --scopes --threshold 0 --format json > "$WORK/$O.scopes.json"
    check "$O report --scopes exit" "$?" 0
    R="$WORK/$O.scopes.json"
    check "$O matmul fp_add flops = N^3" "$(fn_scope "$R" matmul | jq '.class_flops.fp_add')" $((N * N * N))
    check "$O matmul fp_mul flops = N^3" "$(fn_scope "$R" matmul | jq '.class_flops.fp_mul')" $((N * N * N))
    check "$O triangular fp_add flops = N(N+1)/2" "$(fn_scope "$R" triangular | jq '.class_flops.fp_add')" $((N * (N + 1) / 2))
    check "$O imperfect fp_add flops = N^2" "$(fn_scope "$R" imperfect | jq '.class_flops.fp_add')" $((N * N))
    check "$O imperfect fp_mul flops = N" "$(fn_scope "$R" imperfect | jq '.class_flops.fp_mul')" "$N"
    check "$O vector fp_add flops = N" "$(fn_scope "$R" vector | jq '.class_flops.fp_add')" "$N"
    check "$O unrolled fp_add flops = N" "$(fn_scope "$R" unrolled | jq '.class_flops.fp_add')" "$N"
    # loads and stores without arithmetic are class load_store (once "none"), in
    # the scope view and in the database's class table
    check "$O matmul's plain loads and stores are load_store" \
        "$(fn_scope "$R" matmul | jq -c '.classes | [has("load_store"), has("none")]')" "[true,false]"
    check "$O class 0 of the database is load_store" \
        "$(sqlite3 "$db" "SELECT name FROM instruction_classes WHERE id = 0")" load_store
    # the matmul loop holding the inner statement runs N^2 times, N^3 headers in all
    # (at -O0 the test sits at the loop's top: one more header execution per entry)
    inner=$(jq -c '[.scopes[] | select(.name | startswith("kernels")) | .. | objects | select(.kind == "function" and .name == "matmul") | .. | objects | select(.kind == "loop" and .children == [])][0]' "$R")
    check "$O matmul inner loop entries = N^2" "$(jq '.entries' <<<"$inner")" $((N * N))
    want_headers=$((N * N * N)); [ "$O" = O0 ] && want_headers=$((N * N * (N + 1)))
    check "$O matmul inner loop header executions" "$(jq '.header_executions' <<<"$inner")" "$want_headers"
    # the switch's cases are inside its loop only if the jump table was read
    share=$(fn_scope "$R" dispatch | jq '(.children[] | select(.kind == "loop") | .instructions) / .instructions * 100 | floor')
    check "$O dispatch loop holds >= 90% of its function" "$([ "$share" -ge 90 ] && echo yes || echo "no ($share%)")" yes
    if [ "$O" = O0 ]; then
        # fib(20) makes 21891 calls: all but main's come from fib itself, and -O0 has no loop in it
        check "O0 fib recursive calls" "$(fn_scope "$R" fib | jq '.classes.call')" 21890
        check "O0 fib has no loop" "$(loops_of "$S" fib | jq length)" 0
        # -O0 line ranges are exact: from the for-line to the last line of the body
        body=$(($(line matmul_k) + 1))
        for tag in matmul_i matmul_j matmul_k; do
            l=$(line $tag)
            check "O0 lines of $tag" "$(loop_at "$S" matmul "$l" | jq -c '.lines')" "[$l,$body]"
        done
    fi
    if [ "$O" = O2 ]; then
        # the inner loop of row_sum, inlined into inlined(), sits under an inlined scope
        check "O2 loop inside inlined row_sum" \
            "$(jq -r '[.children[0].children[] | select(.name == "inlined") | .. | objects | select(.kind == "inlined" and .name == "row_sum") | .children[] | select(.kind == "loop") | .lines[0]][0]' "$S")" \
            "$(line inl_j)"
    fi
    if [ "$O" = O3 ]; then
        # vectorised: fewer fp_add instructions than N, yet N flops (2 lanes each)
        # GCC peels triangular's first outer iteration and jumps into the outer loop's middle:
        # an irreducible cycle (two entries), reported as a warning, not as a loop
        check "O3 triangular: inner natural loop only" "$(loops_of "$S" triangular | jq length)" 1
        check "O3 irreducible cycle reported" "$(jq '[.children[0].warnings[] | select(test("irreducible"))] | length' "$S")" 1
        # the vector loop and its scalar remainder cover the same lines: folded into one scope
        check "O3 vector + remainder folded" "$(loops_of "$S" vector | jq -c '[.[] | .folded]')" "[2]"
        adds=$(fn_scope "$R" vector | jq '.classes.fp_add')
        check "O3 vector loop is vectorised" "$([ "$adds" -lt "$N" ] && echo yes || echo "no ($adds adds)")" yes
    fi

    # ---- every executed instruction is in the static inventory --------------
    check "$O executed instructions missing from the inventory" "$(sqlite3 "$db" "
        SELECT count(*) FROM instructions i JOIN modules m ON m.id = i.module_id
        JOIN binaries b ON b.build_id = m.build_id
        LEFT JOIN static_instructions s ON s.binary_id = b.id AND s.addr = i.addr
        WHERE s.addr IS NULL")" 0
    check "$O modules analysed" "$(sqlite3 "$db" "SELECT count(*) >= 3 FROM binaries")" 1
done

# ---- a stored analysis is reused -----------------------------------------
out=$("$AUGUR" structure --db "$WORK/O2.db" --timing "$PROGRAMS/kernels_O2" 2>&1 >/dev/null)
check "second analysis reuses the stored one" "$(grep -c 'found in the database' <<<"$out")" 1
check "one row per binary" "$(sqlite3 "$WORK/O2.db" "SELECT count(*) FROM binaries WHERE path LIKE '%kernels_O2'")" 1

# ---- bad input ------------------------------------------------------------
echo "not a binary" > "$WORK/text.txt"; chmod +x "$WORK/text.txt"
"$AUGUR" structure --db "$WORK/bad.db" "$WORK/text.txt" > /dev/null 2> "$WORK/err.txt"
check "non-ELF exit" "$?" 1
check "non-ELF message" "$(grep -c 'not an ELF file' "$WORK/err.txt")" 1
head -c 3000 "$PROGRAMS/kernels_O2" > "$WORK/truncated"; chmod +x "$WORK/truncated"
"$AUGUR" structure --db "$WORK/bad.db" "$WORK/truncated" > /dev/null 2> "$WORK/err.txt"
check "truncated exit" "$?" 1
check "truncated message" "$(grep -c 'truncated' "$WORK/err.txt")" 1
: > "$WORK/empty"; chmod +x "$WORK/empty"
"$AUGUR" structure --db "$WORK/bad.db" "$WORK/empty" > /dev/null 2> "$WORK/err.txt"
check "empty file exit" "$?" 1
"$AUGUR" structure --db "$WORK/bad.db" "$WORK/no-such-program" > /dev/null 2> "$WORK/err.txt"
check "missing program exit" "$?" 1
check "missing program message" "$(grep -c "No such file" "$WORK/err.txt")" 1
cp "$PROGRAMS/kernels_O2" "$WORK/arm"
printf '\x28' | dd of="$WORK/arm" bs=1 seek=18 conv=notrunc status=none   # e_machine = EM_ARM
"$AUGUR" structure --db "$WORK/bad.db" "$WORK/arm" > /dev/null 2> "$WORK/err.txt"
check "non-x86-64 exit" "$?" 1
check "non-x86-64 message" "$(grep -c 'not an x86-64 ELF file' "$WORK/err.txt")" 1
cc -c -x c -o "$WORK/object.o" - <<<'int f(int x) { return x + 1; }'
"$AUGUR" structure --db "$WORK/bad.db" "$WORK/object.o" > /dev/null 2> "$WORK/err.txt"
check "relocatable object exit" "$?" 1
check "relocatable object message" "$(grep -c 'link the program first' "$WORK/err.txt")" 1
"$AUGUR" structure --db "$WORK/bad.db" --format xml "$PROGRAMS/kernels_O2" > /dev/null 2> "$WORK/err.txt"
check "bad --format exit" "$?" 2
check "bad --format message" "$(grep -c 'give --format text or --format json' "$WORK/err.txt")" 1
"$AUGUR" report --db "$WORK/O2.db" --scopes --threshold 150 > /dev/null 2> "$WORK/err.txt"
check "bad --threshold exit" "$?" 2
check "bad --threshold message" "$(grep -c 'percentage from 0 to 100' "$WORK/err.txt")" 1
check "nothing stored for bad input" "$(sqlite3 "$WORK/bad.db" 'SELECT count(*) FROM binaries')" 0

strip -o "$WORK/stripped" "$PROGRAMS/kernels_O2"
"$AUGUR" structure --db "$WORK/bad.db" --format json "$WORK/stripped" > "$WORK/stripped.json"
check "stripped exit" "$?" 0
check "stripped flagged" "$(jq '.children[0].stripped' "$WORK/stripped.json")" true
check "stripped warns" "$(jq '[.children[0].warnings[] | select(test("stripped"))] | length' "$WORK/stripped.json")" 1
check "stripped still finds matmul's nest" "$(jq '[.. | objects | select(.kind == "loop")] | length >= 10' "$WORK/stripped.json")" true

strip --strip-debug -o "$WORK/nodwarf" "$PROGRAMS/kernels_O2"
"$AUGUR" structure --db "$WORK/bad.db" --format json "$WORK/nodwarf" > "$WORK/nodwarf.json"
check "no-DWARF exit" "$?" 0
check "no-DWARF flagged" "$(jq '.children[0].has_dwarf' "$WORK/nodwarf.json")" false
check "no-DWARF keeps function names" "$(loops_of "$WORK/nodwarf.json" matmul | jq length)" 3
check "no-DWARF loops have no lines" "$(loops_of "$WORK/nodwarf.json" matmul | jq -c '[.[] | .lines] | unique')" "[null]"

# A damaged database whose flops pass 2^64 - 1 (two of kernels' fp
# instructions made 4-flop ones executed 4 * 10^18 times: 1.6 * 10^19 flops
# each, within a run's 2^63 - 1 executions) is refused; the sums wrapped and
# the program was reported with 29171 flops.
cp "$WORK/O2.db" "$WORK/wrap.db"
sqlite3 "$WORK/wrap.db" "CREATE TEMP TABLE two AS SELECT i.id, i.addr FROM instructions i
    JOIN modules m ON m.id = i.module_id AND m.path LIKE '%/kernels_O2'
    JOIN static_instructions s ON s.addr = i.addr WHERE s.flops = 1 LIMIT 2;
  UPDATE static_instructions SET flops = 4 WHERE addr IN (SELECT addr FROM two);
  UPDATE instructions SET executions = 4000000000000000000 WHERE id IN (SELECT id FROM two);"
"$AUGUR" report --db "$WORK/wrap.db" --scopes --threshold 0 > /dev/null 2> "$WORK/wrap.err"
check "flops past 2^64: exit" "$?" 1
check "flops past 2^64: named" "$(grep -c "the counts of run 1's scopes .* add up to more than 2^64 - 1: the database is damaged" "$WORK/wrap.err")" 1

finish
