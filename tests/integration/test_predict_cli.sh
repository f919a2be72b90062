#!/bin/bash
# test_predict_cli.sh — what `augur predict` refuses and how its text
# limits the scopes, on kernels_O2 (tests/programs/structure/kernels.c)
# trained at N = 20..36 (its models have N^3 and N^2*log2(N) terms):
#   - a count that does not fit below 2^63 is refused (exit 1, nothing on
#     stdout) naming the row, the value and the limit: N = 1e12, and
#     N = 2.1e6, where matmul's floating-point adds alone are
#     N^3 = 9.261e18 > 2^63 = 9.223e18; N = 1e300, whose terms are not
#     finite, likewise;
#   - at N = 1e5 (fits): the total is the sum of the functions and the
#     hidden start-up code, every count below 2^63, and no function, line or
#     total misses more often than it is accessed;
#   - N = 0 and N = -5 are refused naming a log2(N) term and "N > 0";
#   - --top 5 prints the 5 scopes with the most instructions, in that
#     order, and a line with the number left out; JSON keeps them all;
#   - each function, line and scope carries its models' cross-validation
#     errors, equal to the models' cv_smape stored in the database, and the
#     total the functions' weighted by instructions; a measured run
#     (report --machine) carries none.
source "$TESTLIB"
PROG="$PROGRAMS/kernels_O2"
DB="$WORK/k.db"

train "$DB" "$PROG" 20 24 28 32 36
check "model exit" "$?" 0

# refused N — exit status, stdout bytes and whether stderr matches PATTERN
refused() {
    "$AUGUR" predict --db "$DB" --param "N=$1" > "$WORK/r.out" 2> "$WORK/r.err"
    echo "$? $(wc -c < "$WORK/r.out") $(grep -cE "$2" "$WORK/r.err")"
}

# ---- counts that do not fit ---------------------------------------------------
LIMIT='does not fit in a count: the (instructions|reads|writes|accesses) of .* would be [0-9.e+]+, at or above 2\^63 \(9.223e\+18\)'
check "N=1e12 refused, nothing written, row value and limit named" "$(refused 1e12 "$LIMIT")" "1 0 1"
check "N=2.1e6 (matmul's N^3 fp adds > 2^63) refused" "$(refused 2.1e6 "$LIMIT")" "1 0 1"
check "N=1e300 refused: not finite" "$(refused 1e300 'would be .*, not a finite number below 2\^63')" "1 0 1"

"$AUGUR" predict --db "$DB" --param N=1e5 --format json --top 0 > "$WORK/big.json" 2>/dev/null
check "N=1e5 predicted" "$?" 0
check "N=1e5: total instructions = sum of the functions' and the hidden start-up code's" \
    "$(jq '([.functions[].instructions] | add) + .startup.instructions == .total.instructions' "$WORK/big.json")" true
check "N=1e5: every count below 2^63" \
    "$(jq '[.total, .functions[], .lines[] | .instructions, .accesses | select(. >= 9223372036854775807)] | length' "$WORK/big.json")" 0
check "N=1e5: matmul's instructions at least its N^3 fp adds" \
    "$(jq '[.functions[] | select(.function == "matmul") | .instructions >= 1e15] | .[0]' "$WORK/big.json")" true
check "N=1e5: no misses above accesses (total, functions, lines)" \
    "$(jq '[.total, .functions[], .lines[] | . as $r | .misses[] | select(. > $r.accesses)] | length' "$WORK/big.json")" 0

# ---- the domain of the terms --------------------------------------------------
DOMAIN='N=(0|-5) is outside the domain of the models: the term [^ ]*log2\(N\)[^ ]* in the .* needs N > 0'
check "N=0 refused naming the log2 term" "$(refused 0 "$DOMAIN")" "1 0 1"
check "N=-5 refused naming the log2 term" "$(refused -5 "$DOMAIN")" "1 0 1"
check "N=0.5 (log2 defined, negative) predicted" "$("$AUGUR" predict --db "$DB" --param N=0.5 >/dev/null 2>&1; echo $?)" 0

# ---- the scope table: --top, sorted, the rest counted ------------------------
"$AUGUR" predict --db "$DB" --param N=72 --top 5 > "$WORK/top.txt" 2>/dev/null
"$AUGUR" predict --db "$DB" --param N=72 --format json --top 5 > "$WORK/top.json" 2>/dev/null
NSCOPES=$(jq '.scopes | length' "$WORK/top.json")
check "JSON keeps every scope (more than 5)" "$(jq '.scopes | length > 5' "$WORK/top.json")" true
awk '/^Scopes of the program/ { on = 1; next } on && /^  \(/ { print "REST " $0; exit } on && NR > 0 && !/^  scope / && NF { print }' \
    "$WORK/top.txt" > "$WORK/rows.txt"
check "text: header counts shown and all" "$(grep -c "^Scopes of the program: 5 of $NSCOPES, most instructions first" "$WORK/top.txt")" 1
check "text: 5 scope rows" "$(grep -vc '^REST' "$WORK/rows.txt")" 5
# the instructions column is the number before the error column (N.NN%),
# grouped by thousands (2,142,934)
got=$(grep -v '^REST' "$WORK/rows.txt" | grep -oE ' [0-9,]+ +[0-9.]+% ' | awk '{ gsub(",", "", $1); print $1 }' |
    paste -sd' ')
want=$(jq -r '[.scopes[].instructions] | sort | reverse | .[0:5] | map(round) | map(tostring) | join(" ")' "$WORK/top.json")
check "text: the 5 largest by instructions, in order" "$got" "$want"
check "text: the rest counted" "$(grep -c "^REST   ($((NSCOPES - 5)) more scopes, each at most [0-9.]*% of the program's instructions" "$WORK/rows.txt")" 1
# --show-startup: every row, so that rows add up to the totals (the hidden
# start-up code is test_startup.sh's)
"$AUGUR" predict --db "$DB" --param N=72 --top 0 --show-startup > "$WORK/all.txt" 2>/dev/null
check "--top 0: every scope, no rest line" \
    "$(grep -c "^Scopes of the program: $NSCOPES of $NSCOPES" "$WORK/all.txt") $(grep -c 'more scopes' "$WORK/all.txt")" "1 0"

# ---- the models' errors carried to each value --------------------------------
"$AUGUR" predict --db "$DB" --param N=72 --format json --top 0 --show-startup > "$WORK/all.json" 2>/dev/null
# cv_smape of a stored model, as the database holds it
stored_cv() { sqlite3 "$DB" "SELECT cv_smape FROM models WHERE set_id = 1 AND kind = '$1' AND function = '$2' AND metric = '$3'"; }
MEMSET=__memset_avx2_unaligned_erms
for metric in instructions reads writes; do
    want=$(stored_cv function $MEMSET $metric)
    got=$(jq --arg f $MEMSET --arg m $metric '.functions[] | select(.function == $f) | .cv_error_percent[$m]' "$WORK/all.json")
    check "JSON: $MEMSET's $metric error is its model's cv_smape ($want)" "$(within "$got" "$want" 1e-9)" 1
done
want=$(sqlite3 "$DB" "SELECT cv_smape FROM models WHERE set_id = 1 AND kind = 'scope' AND function = 'matmul' AND metric = 'instructions'")
check "JSON: scope matmul's error is its model's"     "$(within "$(jq '.scopes[] | select(.name == "matmul") | .cv_error_percent.instructions' "$WORK/all.json")" "$want" 1e-9)" 1
check "JSON: every function, line and scope carries its errors"     "$(jq '[.functions[], .lines[], .scopes[] | select(.cv_error_percent.instructions == null)] | length' "$WORK/all.json")" 0
check "JSON: the total's error is the functions' weighted by instructions"     "$(jq '(([.functions[] | .instructions * .cv_error_percent.instructions] | add) / .total.instructions) as $w
           | (.total.cv_error_percent.instructions - $w | fabs) <= 1e-9 * ($w + 1e-12)' "$WORK/all.json")" true
check "text: the errors table with the program's row"     "$(grep -cE "^  the program \(functions' errors weighted\) +[0-9.]+% +[0-9.]+% +[0-9.]+%$" "$WORK/all.txt")" 1
# ---- parts and totals ----------------------------------------------------------
# The total is the functions' models summed; the lines have models of their
# own (dispatch's switch cases and printf's digits are no polynomials), so
# their sum differs, by line_model_difference, which names it per function.
for m in instructions reads writes accesses; do
    check "JSON: the functions' $m add up to the total" \
        "$(jq --arg m $m '([.functions[][$m]] | add) == .total[$m]' "$WORK/all.json")" true
    check "JSON: the lines' $m plus line_model_difference add up to the total" \
        "$(jq --arg m $m '([.lines[][$m]] | add) + .line_model_difference[$m] == .total[$m]' "$WORK/all.json")" true
    check "JSON: line_model_difference's $m is the sum of its functions'" \
        "$(jq --arg m $m '([.line_model_difference.functions[][$m]] | add) == .line_model_difference[$m]' \
            "$WORK/all.json")" true
done
check "JSON: the lines differ from the total here (the test has something to name)" \
    "$(jq '.line_model_difference.instructions != 0 and (.line_model_difference.functions | length) > 0' \
        "$WORK/all.json")" true
check "JSON: the lines' misses plus line_model_difference add up to the total's (to 1e-9)" \
    "$(jq '. as $r | [$r.total.misses | keys[] as $c | (([$r.lines[].misses[$c]] | add)
             + $r.line_model_difference.misses[$c] - $r.total.misses[$c]) | fabs / ($r.total.misses[$c] + 1)]
           | max < 1e-9' "$WORK/all.json")" true
# the text: the totals, the lines table (--top 0: every line) and the note
# on the lines (wrapped: joined first); numbers grouped by thousands
count() { tr -d , <<<"$1"; }
TOTAL_INS=$(count "$(awk '$1 == "instructions" && (NF == 2 || $3 == "range") { print $2; exit }' "$WORK/all.txt")")
TOTAL_ACC=$(count "$(awk '$1 == "accesses" && $3 == "reads" { print $2; exit }' "$WORK/all.txt")")
# a predicted figure is shown to the digits its range supports (numfmt_range_digits)
SHOWN='def shown(v; lo; hi): ((hi - lo) / 2) as $h |
  if $h < 0.5 or v == 0 then v
  else ([2, ([15, ((v | fabs | log10 | floor) - ($h | log10 | floor) + 1)] | min)] | max) as $d |
       pow(10; (v | fabs | log10 | floor) - $d + 1) as $u | (v / $u | round) * $u end;'
LINES_SUM=$(jq -r '"\([.lines[].instructions] | add) \([.lines[].accesses] | add)"' "$WORK/all.json")
NOTE=$(unwrapped "$WORK/all.txt" | grep '^Lines and total:' |
    sed -E 's/.*add up to ([0-9,]+) instructions and ([0-9,]+) accesses; .* differs by ([-+][0-9,]+) and ([-+][0-9,]+) .*/\1 \2 \3 \4/' | tr -d ,)
check "text: the total is the JSON's, to the digits its range supports" "$TOTAL_INS $TOTAL_ACC" \
    "$(jq -r "$SHOWN"' .total as $t | "\(shown($t.instructions; $t.instructions_range[0]; $t.instructions_range[1]))
      \(shown($t.accesses; $t.reads_range[0] + $t.writes_range[0]; $t.reads_range[1] + $t.writes_range[1]))"' \
      "$WORK/all.json" | tr -d '\n' | tr -s ' ')"
check "text: the total is rounded here (its range is wider than a unit)" "$([ "$TOTAL_INS" != "$(jq .total.instructions "$WORK/all.json")" ] && echo yes)" yes
check "text: the note names the lines' sums" "$(cut -d' ' -f1,2 <<<"$NOTE")" "$LINES_SUM"
check "text: the lines' sums plus the named difference are the totals" \
    "$(awk '{ print $1 + $3, $2 + $4 }' <<<"$NOTE")" "$(jq -r '"\(.total.instructions) \(.total.accesses)"' "$WORK/all.json")"

# ---- numbers in the text ---------------------------------------------------------
# Counts grouped by thousands, plain with --plain-numbers; one format per
# column: the misses columns (32 KiB, 1 MiB) are whole numbers in every row.
check "text: misses columns of the functions table all whole numbers" \
    "$(awk '/^Functions:/ { on = 1; next } on && /^  instructions/ { next } on && !NF { exit }
            on && !($4 ~ /^[0-9,]+$/ && $5 ~ /^[0-9,]+$/) { print }' "$WORK/all.txt" | wc -l)" 0
"$AUGUR" report --db "$DB" --run 1 --format json > "$WORK/run1.json"
"$AUGUR" report --db "$DB" --run 1 > "$WORK/run1.txt"
"$AUGUR" report --db "$DB" --run 1 --plain-numbers > "$WORK/run1-plain.txt"
INS=$(jq .total.instructions "$WORK/run1.json")
check "report and predict JSON of a program without MPI: mpi null" \
    "$(jq '.mpi' "$WORK/run1.json") $(jq '.mpi' "$WORK/top.json")" "null null"
check "report: more than 1000 instructions, so that they are grouped" "$([ "$INS" -ge 1000 ] && echo yes)" yes
check "report: the total grouped" "$(awk '$1 == "instructions" && NF == 2 { print $2; exit }' "$WORK/run1.txt")" \
    "$(grouped "$INS")"
check "report --plain-numbers: the total plain" \
    "$(awk '$1 == "instructions" && NF == 2 { print $2; exit }' "$WORK/run1-plain.txt")" "$INS"
check "report: plain and grouped differ only by the separators" \
    "$(diff <(tr -d , <"$WORK/run1.txt" | tr -s ' ') <(tr -d , <"$WORK/run1-plain.txt" | tr -s ' ') && echo same)" same
"$AUGUR" predict --db "$DB" --param N=72 --top 0 --plain-numbers > "$WORK/all-plain.txt" 2>/dev/null
check "predict --plain-numbers: the total plain" \
    "$(awk '$1 == "instructions" && (NF == 2 || $3 == "range") { print $2; exit }' "$WORK/all-plain.txt")" "$TOTAL_INS"
"$AUGUR" predict --db "$DB" --param N=72 --error-threshold 5 --format json >/dev/null 2>"$WORK/err"
check "predict --error-threshold --format json refused (the JSON has every row's errors)" \
    "$? $(grep -c 'error-threshold selects rows of the text' "$WORK/err")" "2 1"
for cmd in report "predict --param N=72"; do
    "$AUGUR" $cmd --db "$DB" --plain-numbers --format json >/dev/null 2>"$WORK/err"
    check "${cmd%% *} --plain-numbers --format json refused" \
        "$? $(grep -c 'plain-numbers is for the text output' "$WORK/err")" "2 1"
done

"$AUGUR" report --db "$DB" --run 1 --machine zen4 --format json > "$WORK/run.json" 2>/dev/null
check "a measured run (report --machine) carries no model errors"     "$(jq '[.. | objects | select(has("cv_error_percent"))] | length' "$WORK/run.json")" 0

finish
