#!/bin/bash
# test_predict_scopes.sh — predicted scopes never exceed the scope that holds
# them (docs/models.md, "Nested scopes"), on memsweep (tests/programs):
# function sweep holds the loop at line 21 (reps), which holds the loop at
# line 22 (lines); their instruction models are exact closed forms,
# 34 + 24N, 28 + 24N and 24N (checked below), so at a training N nothing is
# lowered and there is no warning.  With the models doctored in the
# database so that the inner loop predicts 100000 and the outer 50000
# instructions (no term in N), at N = 100:
#   - the outer loop is lowered to sweep's 34 + 24*100 = 2434, and then the
#     inner loop to the outer's lowered 2434 (parents first);
#   - both are marked "lowered", sweep is not, and one warning names the
#     inner loop (the largest lowering, 100000 -> 2434) and its line;
#   - a function (sweep doctored to 1e9) is lowered to its module's
#     predicted instructions, the sum of the module's function rows.
source "$TESTLIB"
PROG="$PROGRAMS/memsweep"
DB="$WORK/s.db"
OUTER=$(line_of "for (long rep" "$SRC_PROGRAMS/memsweep.c")
INNER=$(line_of "for (long i = 0; i < lines" "$SRC_PROGRAMS/memsweep.c")

for n in 64 96 128 192 256; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n 64 4 >/dev/null 2>&1
done
"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "model exit" "$?" 0

# formula LINE KIND — the instructions formula of the scope of KIND at LINE of memsweep.c
formula() {
    sqlite3 "$DB" "SELECT formula FROM models WHERE kind = 'scope' AND metric = 'instructions'
                   AND file LIKE '%memsweep.c' AND line = $1 AND scope_kind = '$2'"
}
check "sweep's, the outer and the inner loop's models are the closed forms" \
    "$(formula 19 function) | $(formula "$OUTER" loop) | $(formula "$INNER" loop)" "34 + 24*N | 28 + 24*N | 24*N"

# scope_of JSON LINE KIND — "instructions lowered" of that scope in a prediction
scope_of() {
    jq -r --argjson l "$2" --arg k "$3" \
        '.scopes[] | select(.line == $l and .kind == $k and (.file // "" | endswith("memsweep.c"))) |
         "\(.instructions) \(.lowered)"' "$1"
}

# ---- consistent models: nothing lowered ------------------------------------------
"$AUGUR" predict --db "$DB" --param N=128 --format json --top 0 >"$WORK/ok.json" 2>"$WORK/ok.err"
check "exact models at N=128: predicted" "$?" 0
check "no scope is lowered" "$(jq '[.scopes[] | select(.lowered)] | length' "$WORK/ok.json")" 0
check "no scopes warning" "$(grep -c 'scopes:' "$WORK/ok.err")" 0
check "the inner loop is 24*128 instructions, not lowered" "$(scope_of "$WORK/ok.json" "$INNER" loop)" "3072 false"

# ---- doctored: inner 100000, outer 50000 -------------------------------------------
cp "$DB" "$WORK/off.db"
sqlite3 "$WORK/off.db" "UPDATE models SET constant = 100000, terms = '[]', formula = '100000'
                        WHERE kind = 'scope' AND metric = 'instructions' AND line = $INNER AND scope_kind = 'loop';
                        UPDATE models SET constant = 50000, terms = '[]', formula = '50000'
                        WHERE kind = 'scope' AND metric = 'instructions' AND line = $OUTER AND scope_kind = 'loop'"
"$AUGUR" predict --db "$WORK/off.db" --param N=100 --format json --top 0 >"$WORK/off.json" 2>"$WORK/off.err"
check "doctored models at N=100: predicted" "$?" 0
check "sweep keeps 34 + 2400" "$(scope_of "$WORK/off.json" 19 function)" "2434 false"
check "the outer loop is lowered to sweep's" "$(scope_of "$WORK/off.json" "$OUTER" loop)" "2434 true"
check "the inner loop is lowered to the outer's lowered value" "$(scope_of "$WORK/off.json" "$INNER" loop)" \
    "2434 true"
check "one scopes warning, in the JSON too" \
    "$(grep -c 'scopes: 2 predicted scopes exceeded' "$WORK/off.err") $(jq '[.prediction.warnings[] |
        select(startswith("scopes:"))] | length' "$WORK/off.json")" "1 1"
check "it names the inner loop, 100000 predicted, 41.1 (100000 / 2434) times its parent's 2434 (stderr's wrapped lines joined)" \
    "$(unwrapped "$WORK/off.err" |
        grep -c "most: loop at memsweep.c:$INNER, 1e+05 instructions predicted, 41.1 times its parent's 2434:")" 1
"$AUGUR" predict --db "$WORK/off.db" --param N=100 --machine zen4 --format json --top 0 >"$WORK/m.json" 2>/dev/null
check "with --machine the lowered counts feed the machine model and are marked" \
    "$(scope_of "$WORK/m.json" "$INNER" loop) $(scope_of "$WORK/m.json" 19 function)" "2434 true 2434 false"
check "stderr's warnings are wrapped before column 100" \
    "$(awk 'length($0) >= 100' "$WORK/off.err" | wc -l)" 0
# ---- doctored: the inner loop's headers 1e6 and entries 1e7 ----------------------------
# Not nested counts, but bounded by the loop's own: headers by its 24*100
# instructions, entries by its (lowered) headers.
cp "$DB" "$WORK/hd.db"
sqlite3 "$WORK/hd.db" "UPDATE models SET constant = 1e6, terms = '[]', formula = '1e6'
                       WHERE kind = 'scope' AND metric = 'headers' AND line = $INNER AND scope_kind = 'loop';
                       UPDATE models SET constant = 1e7, terms = '[]', formula = '1e7'
                       WHERE kind = 'scope' AND metric = 'entries' AND line = $INNER AND scope_kind = 'loop'"
"$AUGUR" predict --db "$WORK/hd.db" --param N=100 --format json --top 0 >"$WORK/hd.json" 2>/dev/null
check "headers lowered to the loop's instructions, entries to its headers" \
    "$(jq -r --argjson l "$INNER" '.scopes[] | select(.line == $l and .kind == "loop") |
        "\(.header_executions) \(.entries) \(.lowered)"' "$WORK/hd.json")" "2400 2400 true"

# ---- doctored: function sweep 1e9, above its module -----------------------------------
# A function's scope is held by the module scope, which has no model: its
# bound is the sum of the module's predicted function rows (here 2516 at
# N = 100: sweep's 34 + 2400, main's and the start-up code's, which
# --show-startup lists); the loops
# (28 + 2400, 2400) stay below it and are not lowered.
cp "$DB" "$WORK/fn.db"
sqlite3 "$WORK/fn.db" "UPDATE models SET constant = 1e9, terms = '[]', formula = '1e9'
                       WHERE kind = 'scope' AND metric = 'instructions' AND scope_kind = 'function'
                       AND function = 'sweep'"
"$AUGUR" predict --db "$WORK/fn.db" --param N=100 --format json --top 0 --show-startup >"$WORK/fn.json" 2>"$WORK/fn.err"
check "function above its module: predicted" "$?" 0
MODULE=$(jq '[.functions[] | select((.module // "") | endswith("/memsweep")) | .instructions] | add' "$WORK/fn.json")
check "memsweep's function rows sum to more than sweep's 2434" "$([ "$MODULE" -gt 2434 ] && echo yes)" yes
check "sweep is lowered to its module's sum" "$(scope_of "$WORK/fn.json" 19 function)" "$MODULE true"
check "its loops stay as predicted" \
    "$(scope_of "$WORK/fn.json" "$OUTER" loop) $(scope_of "$WORK/fn.json" "$INNER" loop)" "2428 false 2400 false"
check "the warning names sweep and the module's sum" \
    "$(unwrapped "$WORK/fn.err" | grep -c "scopes: 1 predicted scope exceeded .* most: function sweep at memsweep.c:19, 1e+09 instructions predicted, [0-9.e+]* times its parent's $MODULE:")" 1
finish
