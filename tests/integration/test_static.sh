#!/bin/bash
# test_static.sh — `augur static` (docs/static.md) on tests/static/kernels.c
# at -O0 and -O2: every loop's trip count equals its closed form in n (at
# n = 9, 12 and 16, from --param, JSON and the generated Python module) and
# what `augur collect` measures for the binary loop (at n = 9 and 12);
# operations per function against closed forms; the annotations of
# tests/static/annotations.c; and bad input: a binary without DWARF, a source
# that does not parse, a Fortran unit, a bad -p.
source "$TESTLIB"
SRC_STATIC="$(cd "$SRC_PROGRAMS/../static" && pwd)"
K="$SRC_STATIC/kernels.c"
ANN="$SRC_STATIC/annotations.c"

tag() { line_of "LOOP:$1" "$K"; }
atag() { line_of "TAG:$1" "$ANN"; }

# band N — sum over i < min(N, 10) of min(N, i + 3) - max(0, i - 2), by brute force
band() {
    local n=$1 i s=0 lo hi
    for ((i = 0; i < (n < 10 ? n : 10); i++)); do
        lo=$((i - 2 > 0 ? i - 2 : 0)); hi=$((i + 3 < n ? i + 3 : n)); s=$((s + hi - lo))
    done
    echo $s
}

# closed TAG N — the trip count of loop TAG in one run of kernels N (calls included)
closed() {
    local n=$2
    case $1 in
    dense_i | tri_i | trap_i | guard_i | mod_i | calls_i | annot_lp) echo "$n" ;;
    dense_j) echo $((n * n)) ;;
    dense_k) echo $((n * n * n)) ;;
    stencil1 | stencil2_i) echo $((n - 2)) ;;
    stencil2_j) echo $(((n - 2) * (n - 2))) ;;
    tri_j) echo $((n * (n - 1) / 2)) ;;
    trap_j) echo $((n * (n - 1) / 2 + 4 * n)) ;;
    stride3) echo $(((n + 2) / 3)) ;;
    stride_down) echo $(((n + 1) / 2)) ;;
    guard_j | axpy) echo $((n * (n + 1) / 2)) ;;
    band_i) echo $((n < 10 ? n : 10)) ;;
    band_j) band "$n" ;;
    annot_iter) echo $((n - 1)) ;;
    esac
}
TAGS="dense_i dense_j dense_k stencil1 stencil2_i stencil2_j tri_i tri_j trap_i trap_j stride3 stride_down
      guard_i guard_j mod_i band_i band_j axpy calls_i annot_lp annot_iter"

# ---- trip counts: static against closed forms and against collect ------------------
for O in O0 O2; do
    prog="$PROGRAMS/static_kernels_$O"
    for n in 9 12 16; do
        json="$WORK/$O.$n.static.json"
        "$AUGUR" static --format json --param n=$n "$prog" >"$json" 2>"$WORK/$O.$n.err"
        check "$O n=$n static exit" "$?" 0
        got="" want=""
        for t in $TAGS; do
            got="$got $t=$(jq --argjson l "$(tag $t)" '.loops[] | select(.lines[0] == $l) | .program_iterations_value' "$json")"
            want="$want $t=$(closed $t $n)"
        done
        check "$O n=$n every loop's trip count is its closed form" "$got" "$want"
    done
    # the flops of one call of each function, against closed forms at n = 16
    json="$WORK/$O.16.static.json"
    flops() { jq --arg f "$1" '.functions[] | select(.name == $f) | .values.flops' "$json"; }
    check "$O flops: dense 2n^3, stencil1 5(n-2), triangular n(n-1)/2, guarded n(n+1)/2 - 10, modulo n - ceil(n/4)" \
        "$(flops dense) $(flops stencil1) $(flops triangular) $(flops guarded) $(flops modulo)" \
        "$((2 * 16 ** 3)) $((5 * 14)) $((16 * 15 / 2)) $((16 * 17 / 2 - 10)) $((16 - 4))"
    check "$O calls: n(n+1)/2 axpy iterations of 2 flops" "$(flops calls)" $((16 * 17))
    check "$O dense: 3 loads and 1 store of 8 bytes per iteration" \
        "$(jq -c '.functions[] | select(.name == "dense") | [.values.loads, .values.stores, .values.bytes]' "$json")" \
        "[$((3 * 4096)),4096,$((32 * 4096))]"
    check "$O the annotated loops are not unknowns" "$(jq '[.unknowns[] | select(.name | startswith("loop_"))] | length' "$json")" 0

    # the measured loops: header executions minus entries at -O0 (GCC tests at the
    # header), header executions at -O2 (rotated loops); tests/static/match_loops.py
    test=$([ $O = O0 ] && echo top || echo bottom)
    for n in 9 12; do
        db="$WORK/$O.$n.db"
        "$AUGUR" collect --db "$db" -- "$prog" $n >/dev/null 2>&1
        check "$O n=$n collect exit" "$?" 0
        "$AUGUR" report --db "$db" --scopes --threshold 0 --format json >"$WORK/$O.$n.scopes.json"
        "$AUGUR" static --format json --param n=$n "$prog" >"$WORK/$O.$n.s.json" 2>/dev/null
        python3 "$SRC_STATIC/match_loops.py" "$WORK/$O.$n.s.json" "$WORK/$O.$n.scopes.json" $test >"$WORK/$O.$n.match"
        check "$O n=$n every source loop has a measured loop" "$(awk '$4 == "none"' "$WORK/$O.$n.match" | wc -l)" 0
        if [ $O = O0 ]; then
            check "$O n=$n static = measured for all $(wc -l <"$WORK/$O.$n.match") loops" \
                "$(awk '$3 != $4' "$WORK/$O.$n.match")" ""
        else
            # GCC -O2 leaves triangular's outer loop after n - 1 iterations: the last
            # one's inner loop is empty (docs/static.md, "Measured")
            check "$O n=$n static = measured but for triangular's outer loop" \
                "$(awk '$3 != $4' "$WORK/$O.$n.match")" "triangular $(tag tri_i) $n $((n - 1))"
        fi
    done
done

# ---- the Python module ------------------------------------------------------------
"$AUGUR" static --format python "$PROGRAMS/static_kernels_O2" >"$WORK/kernels_model.py" 2>/dev/null
check "python exit" "$?" 0
check "python: per function counts at n = 12 and 16" \
    "$(cd "$WORK" && python3 -c '
import kernels_model as m
print(*[m.dense_1(n)["flops"] for n in (12, 16)], m.strided_2(16)["flops"], m.calls_3(16)["flops"],
      m.band_2(16)["flops"], m.main_2(n=16)["flops"] == m.main_2(n=16)["flops"])')" \
    "3456 8192 14 272 47 True"
check "python main equals the JSON total" \
    "$(cd "$WORK" && python3 -c 'import kernels_model as m; print(m.main_2(n=16)["flops"])')" \
    "$(jq .total.values.flops "$WORK/O2.16.static.json")"

# ---- text output ---------------------------------------------------------------------
"$AUGUR" static --param n=12 "$PROGRAMS/static_kernels_O2" >"$WORK/text" 2>/dev/null
check "text: the triangular inner loop" \
    "$(grep -A1 "loop at $K:$(tag tri_j) " "$WORK/text" | sed -n 2p | tr -s ' ')" " iterations {(n^2 - n)/2 if n >= 2; else 0} = 66"
check "text: the strided loop's quasi-polynomial" \
    "$(grep -A1 "loop at $K:$(tag stride3) " "$WORK/text" | sed -n 2p | tr -s ' ')" " iterations {(n + [0, 2, 1]_n)/3 if n >= 1; else 0} = 4"

# ---- sources from compile_commands.json ----------------------------------------------
mkdir -p "$WORK/build"
printf '[{"directory": "%s", "command": "cc -O2 -g -c %s -o k.o", "file": "%s"}]\n' "$SRC_STATIC" "$K" "$K" \
    >"$WORK/build/compile_commands.json"
"$AUGUR" static --format json --param n=9 -p "$WORK/build" "$PROGRAMS/static_kernels_O2" >"$WORK/p.json" 2>/dev/null
check "-p: the same loops" "$(jq -c '[.loops[].program_iterations_value]' "$WORK/p.json")" \
    "$(jq -c '[.loops[].program_iterations_value]' "$WORK/O2.9.static.json")"

# ---- annotations ---------------------------------------------------------------------
"$AUGUR" static --format json --param n=8 "$PROGRAMS/static_kernels_O2" -- "$ANN" >"$WORK/ann.json" 2>"$WORK/ann.err"
check "annotations exit" "$?" 0
check "an uncountable bound: a warning with the line and the annotation" \
    "$(grep -c "annotations.c:$(atag unknown_bound): the loop's iterations are not known: 'len \[ 0 \]' is read from memory; give them with #pragma augur loop iterations(EXPR)" "$WORK/ann.err")" 1
check "it is the unknown loop_LINE" \
    "$(jq -r --argjson l "$(atag unknown_bound)" '.unknowns[] | select(.line == $l) | .name' "$WORK/ann.json")" "loop_$(atag unknown_bound)"
check "a loop with a break is an unknown" \
    "$(jq -r --argjson l "$(atag early_exit)" '.unknowns[] | select(.line == $l) | .reason' "$WORK/ann.json")" \
    "iterations of the loop per entry: it can leave early (break, return or goto)"
check "malformed annotations: warnings with their lines" \
    "$(grep -c 'annotations.c:\(22\|25\|28\): annotation .* ignored' "$WORK/ann.err")" 3
check "augur skip and {skip:yes} leave their loops out" \
    "$(jq --argjson a "$(atag skipped)" --argjson b "$(atag skipped_seed)" --argjson c "$(atag kept)" \
        '[.loops[] | select(.lines[0] == $a or .lines[0] == $b or .lines[0] == $c)] | length' "$WORK/ann.json")" 1
check "param len(2 * n): 2n iterations" \
    "$(jq --argjson l "$(atag param_loop)" '.loops[] | select(.lines[0] == $l) | .values.iterations' "$WORK/ann.json")" 16
check "branch ratio(0.25) and an unknown ratio" \
    "$(jq -r '.functions[] | select(.name == "ratios") | .formulas.flops' "$WORK/ann.json")" \
    "{n/4 if n >= 1; else 0} + ratio_$(atag ratio_unknown)*{n if n >= 1; else 0}"
check "a while loop with iterations(n)" \
    "$(jq --argjson l "$(atag while_given)" '.loops[] | select(.lines[0] == $l) | .values.iterations' "$WORK/ann.json")" 8
check "seed 003's Listing 6: lp_init and lp_cond in the body set the inner loop" \
    "$(jq -r --argjson l "$(atag listing6_j)" '.loops[] | select(.lines[0] == $l) | .formulas.iterations' "$WORK/ann.json")" \
    "{-4*x + 4*y + 4 if y >= x; else 0}"

check "a local set per iteration from a call is not a constant bound" \
    "$(jq -r --argjson l "$(atag local_in_nest)" '.unknowns[] | select(.line == $l) | .reason' "$WORK/ann.json")" \
    "iterations of the loop per entry: 'hi' is set inside the loop nest to a value that is not affine"

# ---- bad input --------------------------------------------------------------------------
"$AUGUR" static "$PROGRAMS/static_kernels_nodwarf" >"$WORK/out" 2>"$WORK/err"
check "no DWARF: exit 1" "$?" 1
check "no DWARF: the error names it and the fix" \
    "$(grep -c 'static_kernels_nodwarf has no DWARF debug information: build it with -g, or name its sources after --' "$WORK/err")" 1
check "no DWARF: nothing on stdout" "$(wc -c <"$WORK/out")" 0
"$AUGUR" static "$PROGRAMS/static_kernels_O2" -- "$SRC_STATIC/broken.c" >"$WORK/out" 2>"$WORK/err"
check "a source that does not parse: exit 1" "$?" 1
check "clang's diagnostic with its line" "$(grep -c "broken.c:6:.*error: expected ')'" "$WORK/err")" 1
check "does not parse: nothing on stdout" "$(wc -c <"$WORK/out")" 0
"$AUGUR" static "$PROGRAMS/static_kernels_O2" -- "$SRC_STATIC/tiled.c" >"$WORK/out" 2>"$WORK/err"
check "PolyLib's overflow: exit 1, not an abort" "$?" 1
check "the overflow names the domain and the annotation" \
    "$(grep -c "PolyLib's 64-bit integers overflowed counting the domain {ii >= 0, .*}: give the iterations of its loops with #pragma augur loop iterations(EXPR)" "$WORK/err")" 1
"$AUGUR" static -p "$WORK/nowhere" "$PROGRAMS/static_kernels_O2" >/dev/null 2>"$WORK/err"
check "-p without compile_commands.json: exit 1" "$?" 1
check "-p: the error says how to make one" "$(grep -c 'no compile_commands.json there' "$WORK/err")" 1
"$AUGUR" static --format yaml "$PROGRAMS/static_kernels_O2" >/dev/null 2>&1
check "a bad --format: usage error" "$?" 2
"$AUGUR" static --param n=1.5 "$PROGRAMS/static_kernels_O2" >/dev/null 2>"$WORK/err"
check "a --param that is not an integer: exit 1" "$?" 1
# a source edited after the build: newer than the binary, and a loop's line without code
mkdir -p "$WORK/edited"
cp "$K" "$WORK/edited/k.c"
(cd "$WORK/edited" && cc -O2 -g -Wno-unknown-pragmas -o k k.c)
sed -i '1i /* two lines added after the build */\n' "$WORK/edited/k.c"
touch -d '+1 minute' "$WORK/edited/k.c"
"$AUGUR" static "$WORK/edited/k" >/dev/null 2>"$WORK/err"
check "an edited source: newer than the binary" "$(grep -c 'k.c: is newer than .*edited/k: rebuild it' "$WORK/err")" 1
check "an edited source: a loop on a line without instructions" \
    "$(grep -c "k.c:$(($(tag annot_lp) + 2)): the loop's line has no instructions in .*: the source does not match the binary" "$WORK/err")" 1
check "the built sources match: no such warning" \
    "$("$AUGUR" static "$PROGRAMS/static_kernels_O0" 2>&1 >/dev/null | grep -c 'no instructions\|is newer')" 0
if [ -x "$PROGRAMS/grid_stencil" ]; then
    "$AUGUR" static "$PROGRAMS/grid_stencil" >/dev/null 2>"$WORK/err"
    check "a Fortran program: exit 1" "$?" 1
    check "its unit is named and skipped" "$(grep -c 'grid_stencil.f90: is a Fortran unit, not C: skipped' "$WORK/err")" 1
else
    echo "skip Fortran unit check: gfortran's test programs are not built"
fi
finish
