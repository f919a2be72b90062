#!/bin/bash
# test_model_show.sh — what `augur model` says about its models:
#   - `model --show` prints under each model the points it was fitted on:
#     what each training run measured, the model's value there and the
#     residual (measured - model), in text and in JSON (--format json).
#     Checked on kernels_O2 (tests/programs/structure/kernels.c) trained at
#     N = 20..36 against what is known without the models: the measured
#     values are `augur report`'s counts of each run (the total, the
#     functions, and `report --scopes` for the scopes), the model's value
#     is its formula evaluated by awk at the run's N, the residual their
#     difference;
#   - `augur model` names every series it could not model and why: the
#     loads of grid_tail.c's TAIL line run only where N > 20, at three of
#     nine (N, M) training points with no three on one line, too few for a
#     model of their reuse distances (tests/programs/grid_tail.c).
source "$TESTLIB"
PROG="$PROGRAMS/kernels_O2"
DB="$WORK/k.db"

train "$DB" "$PROG" 20 24 28 32 36
"$AUGUR" model --db "$DB" --show --format json > "$WORK/show.json"
check "--show --format json exit" "$?" 0
"$AUGUR" model --db "$DB" --show > "$WORK/show.txt"
check "--show exit" "$?" 0

# The runs' own counts: report of each run (every function), and its scopes.
for r in 1 2 3 4 5; do
    "$AUGUR" report --db "$DB" --run $r --format json --top 0 --show-startup > "$WORK/r$r.json"
    "$AUGUR" report --db "$DB" --run $r --scopes --threshold 0 --format json > "$WORK/s$r.json"
done
check "json: the set's runs with their N, in order of N" \
    "$(jq -c '[.runs[] | [.id, .params.N]]' "$WORK/show.json")" "[[1,20],[2,24],[3,28],[4,32],[5,36]]"

# measured KIND NAME METRIC RUN — the count a run's report gives for a row.
measured() {
    case $1 in
    total) jq --arg m "$3" '.total[$m]' "$WORK/r$4.json" ;;
    function) jq --arg f "$2" --arg m "$3" '[.functions[] | select((.function // "(unknown)") == $f and
            (.module // "" | endswith("/kernels_O2"))) | .[$m]] | add // 0' "$WORK/r$4.json" ;;
    scope) jq --arg n "$2" --arg m "$3" '[.. | objects | select(.name? == $n and has("instructions"))] | .[0] |
            if $m == "entries" then .entries elif $m == "headers" then .header_executions
            elif ($m | startswith("class:")) then .classes[$m[6:]] else .[$m] end // 0' "$WORK/s$4.json" ;;
    esac
}
# formula_at FORMULA N — the formula evaluated by awk at N (log2(N) as
# log(N)/log(2); awk has sqrt and real powers).
formula_at() {
    local e=${1//log2(N)/(log(N)/log(2))}
    awk -v N="$2" "BEGIN { printf \"%.6f\", $e }"
}

# Every point of the total, the program's functions and the loops at
# kernels.c's matmul and triangular lines: measured = the report's,
# model = the formula at N, residual = measured - model.
MM=$(line_of LOOP:matmul_k "$SRC_PROGRAMS/structure/kernels.c")
bad=0
points=0
while IFS=$'\t' read -r kind name metric formula run n meas model resid; do
    points=$((points + 1))
    want=$(measured "$kind" "$name" "$metric" "$run")
    eval_at=$(formula_at "$formula" "$n")
    # the formula's coefficients are printed to 6 significant digits
    ok=$(awk -v m="$meas" -v w="$want" -v e="$eval_at" -v mo="$model" -v r="$resid" 'BEGIN {
        d = mo - e; if (d < 0) d = -d; t = 1e-5 * (e < 0 ? -e : e) + 1e-3
        dr = r - (m - mo); if (dr < 0) dr = -dr
        print (m == w && d <= t && dr <= 1e-6 * (m < 0 ? -m : m) + 1e-6) ? 1 : 0 }')
    if [ "$ok" != 1 ]; then
        bad=$((bad + 1))
        echo "  point: $kind $name $metric run $run N=$n: measured $meas (report $want), model $model (awk $eval_at), residual $resid"
    fi
done < <(jq -r --arg mm "loop at kernels.c:$MM" '.models[] | select(.kind == "total" or .kind == "function" or
        (.kind == "scope" and (.function == $mm or .function == "triangular"))) | . as $m |
        .points[] | [$m.kind, ($m.function // "(unknown)"), $m.metric, $m.formula, .run, (.run * 4 + 16), .measured, .model, .residual] | @tsv' \
        "$WORK/show.json")
check "json: $points points, each measured as the run's report, the formula's value, the difference" \
    "$bad $((points > 150))" "0 1"

# Text: the program total's table (a fitted model: non-zero residuals),
# each row the run, N, the report's total, the model's value rounded (the
# JSON's, checked above against the formula) and measured - model as shown.
want=$(for r in 1 2 3 4 5; do
    jq -r --slurpfile s "$WORK/show.json" --argjson run $r '($s[0].models[] | select(.kind == "total" and
        .metric == "instructions") | .points[] | select(.run == $run) | .model | round) as $m |
        "\($run) \($run * 4 + 16) \(.total.instructions) \($m) \(.total.instructions - $m)"' "$WORK/r$r.json"
done)
# ungroup — the text's counts without their thousands separators.
ungroup() { sed -E ':a; s/([0-9]),([0-9]{3})/\1\2/; ta'; }
check "text: the total's points (counts grouped by thousands)" \
    "$(sed -n '/^program total/,/^    reads/p' "$WORK/show.txt" | awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5 }' | ungroup)" \
    "$want"
check "text: grouped" "$(sed -n '/^program total/,/^    reads/p' "$WORK/show.txt" | grep -cE '^ +1 +20 +[0-9]{3},[0-9]{3} ')" 1
check "text: its header" "$(sed -n '/^program total/,/^    reads/p' "$WORK/show.txt" | grep -c '^ *run  *N  *measured  *model  *residual  *residual%$')" 1
# An exact model reproduces every run: one line with what they measured.
check "text: matmul's flops, exact (2 N^3), its points on one line" \
    "$(sed -n '/^scope [0-9]*: function matmul (kernels.c/,/^$/p' "$WORK/show.txt" | grep -A1 '^    flops ' | tail -n 1 |
        ungroup)" \
    "        residual 0 at every run, measured $(for r in 1 2 3 4 5; do
        n=$((r * 4 + 16)); printf '%s%d (N=%d)' "$([ $r -gt 1 ] && echo ', ')" $((2 * n * n * n)) $n; done)"
"$AUGUR" model --db "$DB" --format json > /dev/null 2>"$WORK/err"
check "--format without --show: usage error" "$?" 2

# ---- series that could not be modeled -----------------------------------------
GT="$WORK/gt.db"
for p in "10 10" "20 10" "30 10" "40 10" "10 20" "10 30" "10 40" "20 20" "30 30"; do
    set -- $p
    "$AUGUR" collect --db "$GT" --param N=$1 --param M=$2 -- "$PROGRAMS/grid_tail" $1 $2 >/dev/null 2>&1
done
"$AUGUR" model --db "$GT" --quiet > "$WORK/gt.out" 2> "$WORK/gt.err"
check "grid_tail: model stored" "$(grep -c '^model set 1 stored: .* (some series could not be modeled: named on standard error)$' \
    "$WORK/gt.out")" 1
TAIL=$(line_of TAIL "$SRC_PROGRAMS/grid_tail.c")
unwrapped "$WORK/gt.err" > "$WORK/gt.unwrapped"
check "grid_tail: the count, and the parameters the reasons number" \
    "$(grep -c '^augur model: warning: 2 series could not be modeled and were left out .*; parameter 1 is M, parameter 2 is N:$' \
        "$WORK/gt.unwrapped")" 1
for b in 64 4096; do
    check "grid_tail: the TAIL line's group at $b-byte blocks named, with the reason" \
        "$(grep -c "^  [12]\. misses of the reuse-distance group of grid_tail.c:$TAIL in main (1 instruction, $b-byte blocks): reuse-distance model: .* has no line of at least 3 points with the other parameters fixed" \
            "$WORK/gt.unwrapped")" 1
done

finish
