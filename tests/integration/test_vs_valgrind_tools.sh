#!/bin/bash
# augur against Valgrind's own tools on the same programs:
#  - instructions per function equal Callgrind's Ir (self cost) for leaf
#    functions, and Cachegrind's Ir for all: Callgrind charges a PLT stub
#    (`jmp *GOT`, no symbol of its own) to the function that called it, while
#    augur and Cachegrind charge each instruction to its own symbol;
#  - misses of a fully-associative LRU cache computed from augur's histograms
#    equal Cachegrind's D1 misses with a D1 of one set (--D1=SIZE,SIZE/64,64).
# Compared on the programs' own functions: the dynamic loader's work depends
# on the environment (each tool sets different variables), the kernels' not.
# Misses are compared on functions that do not touch the stack: where the
# stack starts depends on that environment too, which shifts which 64-byte
# lines a function's pushes fall into (main differs by 2-3 misses that way).
source "$TESTLIB"
export LD_BIND_NOW=1 # no lazy binding: its xsave is sized differently by Cachegrind
MATMUL=$PROGRAMS/../../examples/matmul

# callgrind_ir PROGRAM ARGS... — "function Ir" per function, self cost.
callgrind_ir() {
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$@" >/dev/null 2>&1
    callgrind_annotate --inclusive=no --threshold=100 --auto=no "$WORK/cg.out" 2>/dev/null |
        awk '/^ *[0-9,]+ \(/ { n = $1; gsub(",", "", n); f = $0; sub(/^[^:]*:/, "", f); sub(/ \[.*$/, "", f); ir[f] += n }
             END { for (f in ir) print f, ir[f] }'
}

# cachegrind SIZE PROGRAM ARGS... — "function Ir D1mr+D1mw" per function,
# with a fully-associative D1 of SIZE bytes.
cachegrind() {
    local size=$1
    shift
    valgrind --tool=cachegrind --cache-sim=yes --D1=$size,$((size / 64)),64 --I1=32768,8,64 \
        --LL=8388608,16,64 --cachegrind-out-file="$WORK/cgr.out" "$@" >/dev/null 2>&1
    cg_annotate --threshold=0 --show-percs=no --auto=no "$WORK/cgr.out" 2>/dev/null |
        awk 'NF == 10 && $1 ~ /^[0-9,]+$/ && $NF ~ /:/ {
                 f = $NF; sub(/^[^:]*:/, "", f)
                 for (i = 1; i <= 9; i++) gsub(",", "", $i)
                 ir[f] += $1; m[f] += $5 + $8 }
             END { for (f in m) print f, ir[f], m[f] }'
}

# augur_functions DB FIELD — "function value" per function from the JSON report.
augur_functions() {
    "$AUGUR" report --db "$1" --format json --cache 4096:64 --top 0 |
        jq -r ".functions[] | \"\(.function) \($2)\""
}

compare() { # NAME FUNCTIONS... — check each function's value in $ours vs $theirs
    local name=$1
    shift
    for f in "$@"; do
        local want
        want=$(awk -v f="$f" '$1 == f { print $2 }' <<<"$theirs")
        [ -n "$want" ] || want="(function $f missing from Valgrind's output)"
        check "$name $f" "$(awk -v f="$f" '$1 == f { print $2 }' <<<"$ours")" "$want"
    done
}

# against NAME MAIN_FN LEAF_FNS STACKLESS_FNS -- PROGRAM ARGS... — collect
# with augur and run both Valgrind tools, then compare per function.
against() {
    local name=$1 main_fn=$2 leaves=$3 stackless=$4
    shift 5
    "$AUGUR" collect --db "$WORK/$name.db" -- "$@" >/dev/null 2>&1
    local instrs misses cg
    instrs=$(augur_functions "$WORK/$name.db" .instructions)
    misses=$(augur_functions "$WORK/$name.db" '.misses["4096:64"]')
    cg=$(cachegrind 4096 "$@")
    ours=$instrs theirs=$(callgrind_ir "$@") compare "$name: Callgrind Ir" $leaves
    ours=$instrs theirs=$(awk '{ print $1, $2 }' <<<"$cg") compare "$name: Cachegrind Ir" $main_fn $leaves
    ours=$misses theirs=$(awk '{ print $1, $3 }' <<<"$cg") compare "$name: FA 4KiB misses" $stackless
}

against matmul main "multiply init" init -- "$MATMUL" 24
against matmul-stackless main matmul matmul -- "$PROGRAMS/patterns" matmul 24 2
against sweep main sweep sweep -- "$PROGRAMS/patterns" sweep 128 3
against interleaved main interleaved interleaved -- "$PROGRAMS/patterns" interleaved 40 3
against permutation main permutation permutation -- "$PROGRAMS/patterns" permutation 100 4
finish
