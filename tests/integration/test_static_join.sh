#!/bin/bash
# test_static_join.sh — the binary joined to `augur static`'s model
# (docs/static.md, "The binary"): tests/static/kernels.c built at -O0, -O2
# and -O3, its static instructions, flops and instructions per class per
# function in the run against what `augur collect` counts (the independent
# truth) at n = 16, 32 and 48; at -O3 the vector bodies (two doubles per
# SSE instruction) found with their factor and remainder, and their
# iterations equal to the binary loop's measured header executions; and
# tests/static/inlined.c, a callee's loop inlined into its caller's loop.
source "$TESTLIB"

# static_vs_collect O N — one line per function of kernels.c that main calls
# in the run: "NAME INSNS_STATIC INSNS_COLLECT FLOPS_STATIC FLOPS_COLLECT
# CLASSES_DIFFERING", the static figures from functions[].program.values.
static_vs_collect() {
    local O=$1 n=$2 prog="$PROGRAMS/static_kernels_$1" db="$WORK/$1.$2.db"
    "$AUGUR" static --format json --param n=$n "$prog" >"$WORK/$O.$n.json" 2>"$WORK/$O.$n.err" || return 1
    "$AUGUR" collect --db "$db" --param n=$n -- "$prog" $n >/dev/null 2>&1 || return 1
    "$AUGUR" report --db "$db" --scopes --threshold 0 --format json >"$WORK/$O.$n.scopes.json" || return 1
    jq -r --slurpfile sc "$WORK/$O.$n.scopes.json" '
        ($sc[0].scopes[] | select(.name | endswith("static_kernels_'"$O"'")) | .children
         | map(select(.kind == "function")) | map({key: .name, value: .}) | from_entries) as $c
        | .functions[] | select(.name != "main" and .program.values != null and $c[.name] != null)
        | .program.values as $v | $c[.name] as $m
        | "\(.name) \($v.instructions) \($m.instructions) \($v.insn_flops) \($m.flops) "
          + ([$m.classes | to_entries[] | select($v[.key] != .value) | .key] | join(","))' "$WORK/$O.$n.json"
}

for O in O0 O2; do
    for n in 16 32 48; do
        static_vs_collect $O $n >"$WORK/$O.$n.cmp"
        check "$O n=$n static and collect" "$?" 0
        check "$O n=$n functions compared" "$(wc -l <"$WORK/$O.$n.cmp")" 12
        while read -r f si ci sf cf classes; do
            echo "     $O n=$n $f: instructions $si static, $ci collect; flops $sf, $cf; classes differing: ${classes:-none}"
            check "$O n=$n $f flops" "$sf" "$cf"
            if [ $O = O0 ] && [ $f != band ]; then
                # -O0 keeps the source's shape: every block's count is exact
                check "$O n=$n $f instructions" "$si" "$ci"
                check "$O n=$n $f classes" "${classes:-none}" none
            elif [ $O = O2 ]; then
                # -O2 peels (triangular's last outer iteration) and returns
                # early (a second ret counted once per call)
                check "$O n=$n $f instructions within 1%" "$(within "$si" "$ci" 0.01)" 1
            fi
            # band at -O0: each MIN and MAX of its bounds is two branch arms
            # run on alternate tests, both counted (docs/static.md)
        done <"$WORK/$O.$n.cmp"
    done
done

# ---- -O3: vector bodies, remainders, their iterations ------------------------------
n=17
prog="$PROGRAMS/static_kernels_O3"
"$AUGUR" static --format json --param n=$n "$prog" >"$WORK/O3.json" 2>"$WORK/O3.err"
check "O3 static exit" "$?" 0
"$AUGUR" collect --db "$WORK/O3.db" --param n=$n -- "$prog" $n >/dev/null 2>&1
"$AUGUR" report --db "$WORK/O3.db" --scopes --threshold 0 --format json >"$WORK/O3.scopes.json"
# measured header executions of the loop at kernels.c:LINE in FUNCTION
measured() {
    jq --arg f "$1" --arg l "loop at kernels.c:$2" '[.scopes[] | .. | objects | select(.kind? == "function" and .name == $f)
        | .. | objects | select(.kind? == "loop" and .name == $l) | .header_executions] | first' "$WORK/O3.scopes.json"
}
# the binary loops joined to the source loop at LINE: "ROLE FACTOR WIDTH ITERATIONS" each
joined() {
    jq -r --argjson l "$1" '.loops[] | select(.lines[0] == $l) | .binary_loops[]
        | "\(.role) \(.factor) \(.vector_width) \(.iterations_value)"' "$WORK/O3.json" | sort | tr '\n' ';'
}
s1=$(line_of "LOOP:stencil1" "$SRC_PROGRAMS/../static/kernels.c")
tj=$(line_of "LOOP:trap_j" "$SRC_PROGRAMS/../static/kernels.c")
# stencil1: n - 2 = 15 iterations, 7 blocks of two; the odd one is straight-line code
check "O3 stencil1 vector body" "$(joined $s1)" "blocks 2 2 7;"
check "O3 stencil1 blocks measured" "$(measured stencil1 $s1)" 7
# trapezoid's inner loop: sum over i < 17 of floor((i + 4) / 2) blocks = 98
check "O3 trapezoid inner vector body" "$(joined $tj)" "blocks 2 2 98;"
check "O3 trapezoid blocks measured" "$(measured trapezoid $tj)" 98
static_flops=$(jq '.functions[] | select(.name == "stencil1") | .program.values.insn_flops' "$WORK/O3.json")
check "O3 stencil1 flops (5 per element)" "$static_flops" $((5 * (n - 2)))
# GCC -O3 clones axpy for calls's constant argument (axpy.constprop.0) and
# keeps the original, which nothing calls: only the clone is counted (both
# were, each with all of axpy's calls: +112% of its flops)
check "O3 axpy's uncalled original left out" \
    "$(grep -c 'axpy is not counted: no call of the program reaches it; its calls go to axpy.constprop.0' "$WORK/O3.err")" 1
sf=$(jq '.functions[] | select(.name == "axpy") | .program.values.insn_flops' "$WORK/O3.json")
mf=$(jq '[.scopes[] | .. | objects | select(.kind? == "function" and (.name | startswith("axpy."))) | .flops] | add' \
    "$WORK/O3.scopes.json")
echo "     O3 axpy: static $sf flops, collect $mf (its vector body's blocks and leftovers: docs/static.md)"
check "O3 axpy's flops within 10% of collect's" "$(within "$sf" "$mf" 0.10)" 1

# The join's pairing in report --scopes (static/match.c): the model stored
# with its binary loops, each measured vector body is paired with its
# source loop and compared as what it is, blocks of 2 (no such loop was
# paired when loops were paired by the shape of the nest).
"$AUGUR" static --db "$WORK/O3.db" "$prog" >/dev/null 2>&1
check "O3 static --db" "$?" 0
"$AUGUR" report --db "$WORK/O3.db" --scopes --threshold 0 --format json >"$WORK/O3.checked.json"
check "O3 report --scopes with the static model" "$?" 0
# "ROLE FACTOR STATIC MEASURED" of the measured loop at kernels.c:LINE in FUNCTION
paired() {
    jq -r --arg f "$1" --arg l "loop at kernels.c:$2" '[.scopes[] | .. | objects | select(.kind? == "function" and .name == $f)
        | .. | objects | select(.kind? == "loop" and .name == $l) | .static | "\(.role) \(.factor) \(.static) \(.measured)"]
        | join(";")' "$WORK/O3.checked.json"
}
dk=$(line_of "LOOP:dense_k" "$SRC_PROGRAMS/../static/kernels.c")
check "O3 stencil1's vector body paired" "$(paired stencil1 $s1)" "blocks 2 7 7"
check "O3 trapezoid's inner vector body paired" "$(paired trapezoid $tj)" "blocks 2 98 98"
# dense's k loop: (n^3 - n^2)/2 blocks at odd n
check "O3 dense's k vector body paired" "$(paired dense $dk)" "blocks 2 2312 2312"

# ---- a vector body whose invariant product is computed outside it ------------------
# bench_kernels.c's trapezoid at -O3: y[j] += x[i] * 0.5 over j < i + 8, the
# product computed once per row, so the vector body's flops (one addpd: 2)
# equal the source's per iteration (2) though it does two; its stores (16
# bytes against 8) give the factor: blocks of floor((i + 8)/2), 170 at n = 20
B="$PROGRAMS/static_bench_kernels_O3"
"$AUGUR" static --db "$WORK/b3.db" --param k=4 --param n=20 --param reps=1 --param threads=1 "$B" >/dev/null 2>"$WORK/b3.err"
check "bench_kernels -O3 static --db" "$?" 0
OMP_NUM_THREADS=1 "$AUGUR" collect --db "$WORK/b3.db" --param k=4 --param n=20 --param reps=1 --param threads=1 \
    -- "$B" 4 20 1 >/dev/null 2>&1
check "bench_kernels -O3 trapezoid collected" "$?" 0
"$AUGUR" report --db "$WORK/b3.db" --scopes --threshold 0 --format json >"$WORK/b3.json"
bl=$(grep -n 'for (int j = 0; j < i + 8; j++)' "$SRC_PROGRAMS/../static/bench_kernels.c" | cut -d: -f1)
check "bench_kernels -O3 trapezoid's inner vector body" \
    "$(jq -r --arg l "loop at bench_kernels.c:$bl" '[.scopes[] | .. | objects | select(.kind? == "loop" and .name == $l)
        | .static | "\(.role) \(.factor) \(.static) \(.measured)"] | join(";")' "$WORK/b3.json")" "blocks 2 170 170"

# trisolve at -O3: the inner loop's scalar leftover after its vector body
# lies in the outer loop's body; its flops are the inner loop's, not the
# outer's, so the outer binary loop is joined to the i loop (factor 1: it
# was taken for an inner loop unrolled in full, left unjoined and its code
# uncounted: 844 instructions against 1288 at n = 20)
"$AUGUR" static --format json --param k=3 --param n=20 --param reps=1 --param threads=1 "$B" >"$WORK/b3t.json" 2>"$WORK/b3t.err"
check "bench_kernels -O3 trisolve: the outer loop joined" "$(grep -c 'of trisolve carries no line' "$WORK/b3t.err")" 0
OMP_NUM_THREADS=1 "$AUGUR" collect --db "$WORK/b3t.db" -- "$B" 3 20 1 >/dev/null 2>&1
"$AUGUR" report --db "$WORK/b3t.db" --scopes --threshold 0 --format json >"$WORK/b3t.scopes.json"
si=$(jq '.functions[] | select(.name == "trisolve") | .program.values.instructions' "$WORK/b3t.json")
mi=$(jq '[.scopes[] | .. | objects | select(.kind? == "function" and .name == "trisolve") | .instructions] | add' "$WORK/b3t.scopes.json")
echo "     O3 trisolve: static $si instructions, collect $mi (its first row peeled: docs/static.md)"
check "bench_kernels -O3 trisolve's instructions within 10% of collect's" "$(within "$si" "$mi" 0.10)" 1
# its first row peeled: x[0] = b[0] / l[0] before the loop over i from 1 (a
# copy of the row's statements with their store and flop, dominating the
# loop): the binary loop runs n - 1 rows, 19 at n = 20 (the join counted n)
"$AUGUR" static --db "$WORK/b3p.db" --param k=3 --param n=20 --param reps=1 --param threads=1 "$B" >/dev/null 2>&1
OMP_NUM_THREADS=1 "$AUGUR" collect --db "$WORK/b3p.db" --param k=3 --param n=20 --param reps=1 --param threads=1 \
    -- "$B" 3 20 1 >/dev/null 2>&1
check "bench_kernels -O3 trisolve collected" "$?" 0
ol=$(grep -n 'NOINLINE void trisolve' "$SRC_PROGRAMS/../static/bench_kernels.c" | cut -d: -f1)
check "bench_kernels -O3 trisolve's outer loop, its first row peeled" \
    "$("$AUGUR" report --db "$WORK/b3p.db" --scopes --threshold 0 --format json |
        jq -r --arg l "loop at bench_kernels.c:$((ol + 2))" '[.scopes[] | .. | objects | select(.kind? == "loop" and .name == $l)
        | .static | "\(.role) \(.factor) \(.static) \(.measured)"] | join(";")')" "all 1 19 19"

# guarded at -O3: GCC splits the j loop at its guard j > i + 2 into a copy
# up to it, without the statement (an empty vector loop, not counted), and a
# vector body after it, blocks of 2 of the n - i - 3 guarded iterations (72
# at n = 20); the join counted the vector body as blocks of the whole loop
# (100), its flops +37%
"$AUGUR" static --db "$WORK/b3g.db" --param k=6 --param n=20 --param reps=1 --param threads=1 "$B" >/dev/null 2>&1
OMP_NUM_THREADS=1 "$AUGUR" collect --db "$WORK/b3g.db" --param k=6 --param n=20 --param reps=1 --param threads=1 \
    -- "$B" 6 20 1 >/dev/null 2>&1
check "bench_kernels -O3 guarded collected" "$?" 0
"$AUGUR" static --format json --param k=6 --param n=20 --param reps=1 --param threads=1 "$B" 2>/dev/null |
    jq '.functions[] | select(.name == "guarded") | .program.values.insn_flops' >"$WORK/b3g.flops"
check "bench_kernels -O3 guarded's flops" "$(cat "$WORK/b3g.flops")" \
    "$("$AUGUR" report --db "$WORK/b3g.db" --scopes --threshold 0 --format json |
        jq '[.scopes[] | .. | objects | select(.kind? == "function" and .name == "guarded") | .flops] | add')"
gl=$(grep -n 'for (int j = i; j < n; j++) {' "$SRC_PROGRAMS/../static/bench_kernels.c" | cut -d: -f1)
check "bench_kernels -O3 guarded's inner loop, split at its guard" \
    "$("$AUGUR" report --db "$WORK/b3g.db" --scopes --threshold 0 --format json |
        jq -r --arg l "loop at bench_kernels.c:$gl" '[.scopes[] | .. | objects | select(.kind? == "loop" and .name == $l)
        | .static | "\(.role) \(.factor) \(.static) \(.measured)"] | join(";")')" "blocks 2 72 72"

# ---- a callee's loop inlined (tests/static/inlined.c at -O2) -----------------------------
prog="$PROGRAMS/static_inlined"
SRC_I="$SRC_PROGRAMS/../static/inlined.c"
for n in 20 33; do
    "$AUGUR" static --format json --param n=$n "$prog" >"$WORK/inl.$n.json" 2>"$WORK/inl.$n.err"
    check "inlined n=$n static exit" "$?" 0
    "$AUGUR" collect --db "$WORK/inl.$n.db" --param n=$n -- "$prog" $n >/dev/null 2>&1
    measured=$("$AUGUR" report --db "$WORK/inl.$n.db" --format json | jq '.functions[] | select(.function == "rows") | .instructions')
    static=$(jq '.functions[] | select(.name == "rows") | .program.values.instructions' "$WORK/inl.$n.json")
    echo "     inlined n=$n rows: instructions $static static, $measured collect"
    check "inlined n=$n rows's instructions (scale's loop in them)" "$static" "$measured"
    # scale's loop runs n - i times for each i < n: n(n+1)/2, in rows's code
    check "inlined n=$n scale's loop in rows" "$(jq -r --argjson l "$(line_of LOOP:scale "$SRC_I")" \
        '.loops[] | select(.lines[0] == $l) | .binary_loops[] | "\(.inlined_in) \(.role) \(.iterations_value)"' \
        "$WORK/inl.$n.json")" "rows all $((n * (n + 1) / 2))"
done

finish
