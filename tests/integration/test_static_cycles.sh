#!/bin/bash
# test_static_cycles.sh — `augur static --machine` (docs/static.md,
# "Cycles"): the cycle formulas of tests/static/kernels.c at -O2 evaluated
# at n = 32 against `augur predict --machine zen4` at n = 32 from runs
# collected at n = 16, 24, 32 and 40 (the core model's cycles of each
# function's loops); the streams of tests/static/stream.c's triad; and its
# OpenMP loop split over `threads` in its function's cycle formula and,
# composed, in the program's (its value at n = 1000 and 999 on 1 to 4
# threads against seed 004's closed form, and in Python) and its
# instructions against runs on two and three threads; and bad input (an unknown
# machine, a binary without DWARF).
source "$TESTLIB"

K="$PROGRAMS/static_kernels_O2"
train_checked "$WORK/k.db" "$K" "" 16 24 32 40
"$AUGUR" predict --db "$WORK/k.db" --param n=32 --machine zen4 --format json >"$WORK/predict.json" 2>/dev/null
check "predict" "$?" 0
"$AUGUR" static --machine zen4 --format json --param n=32 "$K" >"$WORK/static.json" 2>"$WORK/static.err"
check "static --machine" "$?" 0

# Each function's loops (the outermost, inner ones included): the static
# cycles at n = 32 and predict's core cycles, which time each loop with the
# same core model.  predict adds page faults and mispredictions on top
# (terms of its own), and weighs a branchy body by the measured branch
# ratios where the static model counts every path: functions that call
# others (their loops' static cycles include the callee's), and modulo (a
# branch taken 3 times in 4 in each iteration), are left out.
for f in dense stencil1 stencil2 triangular trapezoid strided guarded band annotated; do
    s=$(jq --arg f $f '[.loops[] | select(.function == $f and .parent == null) | .values.cycles] | add' "$WORK/static.json")
    p=$(jq --arg f $f 'reduce .scopes[] as $s ({f: null, c: 0};
            if $s.kind == "function" then .f = $s.name
            elif $s.kind == "loop" and .f == $f then .c += $s.terms.core_cycles else . end) | .c' "$WORK/predict.json")
    echo "     $f: static $s cycles, predict's core $p"
    # 1%: the iterations are the same where the join is exact; triangular's
    # outer loop runs n - 1 times in the binary, n in the source
    check "$f cycles within 1% of predict's" "$(within "$s" "$p" 0.01)" 1
done

# ---- streams and OpenMP -----------------------------------------------------------------
S="$PROGRAMS/static_stream"
SRC="$SRC_PROGRAMS/../static/stream.c"
sj() { "$AUGUR" static --machine zen4 --format json --param n=1000 --param reps=1 --param threads=$1 "$S" 2>>"$WORK/stream.err"; }
sj 1 >"$WORK/s1.json"
check "static stream" "$?" 0
bl() { jq -r --argjson l "$(line_of "LOOP:$1" "$SRC")" ".loops[] | select(.lines[0] == \$l) | .binary_loops[0].$2" "$WORK/s1.json"; }
# a[i] = b[i] + s c[i]: two 8-byte loads and a store (its line read and
# written back) per iteration
check "triad's streams" "$(bl triad stream_bytes_per_iteration)" 32
check "triad_omp's loop is parallel" "$(bl triad_omp parallel)" true
R=$(bl triad_omp contention)
C=$(bl triad_omp cycles_per_iteration)
# seed 004: the parallel loop's n iterations split over the threads, each
# thread's share ceil(n/threads) stretched by the contention (1 + R threads),
# in the function's cycle formula and through main's call in the program's
check "triad_omp's cycles hold the split loop" \
    "$(jq -r '.functions[] | select(.name == "triad_omp") | .formulas.cycles' "$WORK/s1.json" |
        grep -c 'threads\*ceil({n if n >= 1; else 0}/threads)')" 1
check "main's cycles hold it, composed" \
    "$(jq -r '.total.formulas.cycles' "$WORK/s1.json" | grep -c 'ceil({n if n >= 1; else 0}/threads)')" 1
val() { jq ".functions[] | select(.name == \"$2\") | $3" "$WORK/v$1.json"; }
for n in 1000 999 0; do
    for t in 1 2 3 4; do
        "$AUGUR" static --machine zen4 --format json --param n=$n --param reps=3 --param threads=$t "$S" \
            >"$WORK/v$n-$t.json" 2>>"$WORK/stream.err"
    done
done
for n in 1000 999; do
    for t in 1 2 3 4; do
        got=$(val $n-$t triad_omp .values.cycles)
        # T = C_ser + (1 + P M_r / M_s) ceil(n / P) C, C_ser the function at n = 0
        want=$(awk -v s="$(val 0-$t triad_omp .values.cycles)" -v r="$R" -v c="$C" -v t=$t -v n=$n \
            'BEGIN { q = n / t; if (q > int(q)) q = int(q) + 1; printf "%.17g", s + (1 + r * t) * q * c }')
        # R*C is kept in 3600ths of a cycle
        check "triad_omp's cycles at n=$n, $t threads" "$(within "$got" "$want" 1e-4)" 1
        check "triad_omp's cycles in the program at n=$n, $t threads: 3 calls" \
            "$(within "$(val $n-$t triad_omp .program.values.cycles)" "$(awk -v g="$got" 'BEGIN { printf "%.17g", 3 * g }')" 1e-9)" 1
        # main's total: its own and triad's cycles do not change with the
        # threads, its 3 calls of triad_omp do
        check "the program's cycles at n=$n, $t threads: main's 3 calls of the split loop" \
            "$(awk -v a="$(jq .total.values.cycles "$WORK/v$n-$t.json")" -v b="$(jq .total.values.cycles "$WORK/v$n-1.json")" \
                -v x="$got" -v y="$(val $n-1 triad_omp .values.cycles)" \
                'BEGIN { d = (a - b) - 3 * (x - y); print (d < 1e-6 && d > -1e-6) ? 1 : 0 }')" 1
    done
done
# the Python model evaluates the same formula
"$AUGUR" static --machine zen4 --format python "$S" >"$WORK/stream_model.py" 2>>"$WORK/stream.err"
py=$(cd "$WORK" && python3 -c 'import stream_model as m; print(float(m.triad_omp_5(999, 4)["cycles"]))')
check "the Python model's triad_omp cycles at n=999, 4 threads" "$(within "$py" "$(val 999-4 triad_omp .values.cycles)" 1e-9)" 1
# its instructions on 2 and 3 threads: the region's code runs once per
# thread, but for the static schedule's remainder branch (`if (tid < n %
# threads)`: 3 instructions on n mod threads of them); triad_omp's own 13
# instructions too (report --scopes --threshold 0 lists them)
for t in 2 3; do
    for n in 999 1000; do
        "$AUGUR" static --format json --param n=$n --param reps=1 --param threads=$t "$S" >"$WORK/i$t-$n.json" 2>>"$WORK/stream.err"
        rm -f "$WORK/s.db"
        OMP_NUM_THREADS=$t "$AUGUR" collect --db "$WORK/s.db" --param n=$n -- "$S" $n 1 >/dev/null 2>&1
        check "collect stream on $t threads at n=$n" "$?" 0
        measured=$("$AUGUR" report --db "$WORK/s.db" --scopes --threshold 0 --format json |
            jq '[.scopes[] | .children[]? | select(.kind == "function" and (.name == "triad_omp" or .name == "triad_omp._omp_fn.0"))
                | .instructions] | add')
        check "triad_omp's instructions on $t threads at n=$n" \
            "$(jq '.functions[] | select(.name == "triad_omp") | .program.values.instructions' "$WORK/i$t-$n.json")" "$measured"
    done
done
check "the remainder branch's formula" \
    "$(jq -r '.functions[] | select(.name == "triad_omp") | .formulas.instructions' "$WORK/i2-1000.json" |
        grep -c -- ' - 3\*threads\*floor({n if n >= 1; else 0}/threads)')" 1

# ---- bad input ----------------------------------------------------------------------------
"$AUGUR" static --machine nosuch "$K" >"$WORK/bad.out" 2>"$WORK/bad.err"
check "unknown machine: exit 1" "$?" 1
check "unknown machine: nothing on stdout" "$(wc -c <"$WORK/bad.out")" 0
check "unknown machine: named, with the known ones" "$(grep -c "unknown machine 'nosuch' (known: .*zen4" "$WORK/bad.err")" 1
"$AUGUR" static --machine zen4 "$PROGRAMS/static_kernels_nodwarf" -- "$SRC_PROGRAMS/../static/kernels.c" \
    >"$WORK/nodwarf.out" 2>"$WORK/nodwarf.err"
check "no DWARF, sources named: exit 0" "$?" 0
check "no DWARF: the binary is not joined, and says so" \
    "$(grep -c 'has no DWARF lines: its code is not joined to the sources (build it with -g)' "$WORK/nodwarf.err")" 1

finish
