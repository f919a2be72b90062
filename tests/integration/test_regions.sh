#!/bin/bash
# test_regions.sh — regions and intervals of augur collect (docs/collector.md,
# "Regions and intervals"), on tests/programs/phases.c at N = 100, S = 3
# steps.  Closed forms (phases.c's header): phase_a reads S(N+3) (a[i], its
# two constants and the return address) and writes SN; phase_b reads
# S(2N+1) and writes SN; setup (before CALLGRIND_START_INSTRUMENTATION)
# writes 2N.  Instruction counts are Callgrind's for the same region.
source "$TESTLIB"
PROG="$PROGRAMS/phases"
N=100 S=3
DB="$WORK/r.db"

# fn RUN NAME — "instructions reads writes" of function NAME in run RUN ("0 0 0" when absent).
fn() {
    sqlite3 "$DB" "SELECT ifnull(sum(i.executions), 0) || ' ' || ifnull(sum(i.reads), 0) || ' ' ||
        ifnull(sum(i.writes), 0) FROM instructions i JOIN processes p ON p.id = i.process_id
        JOIN functions f ON f.id = i.function_id WHERE p.run_id = $1 AND f.name = '$2'"
}
# callgrind_ir OPTIONS... — "phase_a phase_b" instructions as Callgrind counts them.
callgrind_ir() {
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$@" "$PROG" $N $S >/dev/null 2>&1
    callgrind_annotate "$WORK/cg.out" 2>/dev/null | awk '/:phase_a /{a=$1} /:phase_b /{b=$1} END{gsub(",","",a); gsub(",","",b); print a, b}'
}
read -r CG_A CG_B <<<"$(callgrind_ir --instr-atstart=no)"

# 1. START/STOP markers, --instr-at-start no: set-up left out.
"$AUGUR" collect --db "$DB" --instr-at-start no --param N=$N -- "$PROG" $N $S >/dev/null 2>"$WORK/c1.err"
check "markers: exit" "$?" 0
check "markers: setup not counted" "$(fn 1 setup)" "0 0 0"
check "markers: phase_a = Callgrind's instructions, S(N+3) reads, SN writes" "$(fn 1 phase_a)" \
    "$CG_A $((S * (N + 3))) $((S * N))"
check "markers: phase_b = Callgrind's instructions, S(2N+1) reads, SN writes" "$(fn 1 phase_b)" \
    "$CG_B $((S * (2 * N + 1))) $((S * N))"
check "markers: the run records its region" \
    "$(sqlite3 "$DB" "SELECT json_extract(regions, '$.instr_at_start') || ' ' || json_extract(regions, '$.starts')
        || ' ' || json_extract(regions, '$.stops') FROM processes WHERE run_id = 1")" "0 1 1"
"$AUGUR" report --db "$DB" --run 1 >"$WORK/r1.txt"
check "markers: report says what was counted" \
    "$(grep -c '^  counted     only between the program.s START and STOP_INSTRUMENTATION requests' "$WORK/r1.txt")" 1

# The default counts from the start: setup's 2N writes too.
"$AUGUR" collect --db "$DB" --param N=$N -- "$PROG" $N $S >/dev/null 2>&1
check "from the start: setup's 2N writes counted" "$(fn 2 setup | cut -d' ' -f3)" $((2 * N))

# 2. --region-function: only inside phase_b.
"$AUGUR" collect --db "$DB" --region-function 'phase_?' --region-function nothing_like_this --param N=$N -- \
    "$PROG" $N $S >/dev/null 2>"$WORK/c3.err"
check "region functions: phase_a and phase_b only" \
    "$(sqlite3 "$DB" "SELECT group_concat(DISTINCT f.name) FROM instructions i JOIN processes p ON p.id = i.process_id
        JOIN functions f ON f.id = i.function_id WHERE p.run_id = 3 ORDER BY f.name")" "phase_a,phase_b"
read -r WHOLE_A WHOLE_B <<<"$(callgrind_ir)"
check "region functions: phase_a as Callgrind counts it" "$(fn 3 phase_a | cut -d' ' -f1)" "$WHOLE_A"
check "region functions: a pattern that matched nothing is named" \
    "$(grep -c "warning: --region-function 'nothing_like_this' matched no function" "$WORK/c3.err")" 1
check "region functions: entries recorded" \
    "$(sqlite3 "$DB" "SELECT json_extract(regions, '$.region_functions.\"phase_?\"') FROM processes WHERE run_id = 3")" \
    $((2 * S))

# 3. Intervals by call site: one run per phase of the step.
"$AUGUR" collect --db "$DB" --instr-at-start no --interval-functions 'exch*,MPI_*' --interval-by callsite \
    --param N=$N -- "$PROG" $N $S >/dev/null 2>"$WORK/c4.err"
check "intervals: exit" "$?" 0
check "intervals: 'MPI_*' matched nothing and says so" \
    "$(grep -c "warning: --interval-functions 'MPI_\*' matched no function" "$WORK/c4.err")" 1
LA=$(grep -n 'exchange(a, n);' "$SRC_PROGRAMS/phases.c" | cut -d: -f1)
LB=$(grep -n 'exchange(b, n);' "$SRC_PROGRAMS/phases.c" | cut -d: -f1)
check "intervals: phases per call site, and the end" \
    "$(sqlite3 "$DB" "SELECT group_concat(phase || '=' || c, ' ') FROM (SELECT r.phase, i.count AS c FROM runs r
        JOIN processes p ON p.run_id = r.id JOIN intervals i ON i.process_id = p.id WHERE r.parent_id = 4
        ORDER BY r.id)")" "phases.c:$LA=$S phases.c:$LB=$S end=1"
PA=$(sqlite3 "$DB" "SELECT id FROM runs WHERE parent_id = 4 AND phase = 'phases.c:$LA'")
PB=$(sqlite3 "$DB" "SELECT id FROM runs WHERE parent_id = 4 AND phase = 'phases.c:$LB'")
check "phase a: phase_a's closed forms" "$(fn "$PA" phase_a)" "$CG_A $((S * (N + 3))) $((S * N))"
check "phase a: no phase_b" "$(fn "$PA" phase_b)" "0 0 0"
check "phase b: phase_b's closed forms" "$(fn "$PB" phase_b)" "$CG_B $((S * (2 * N + 1))) $((S * N))"
check "phase b: no phase_a" "$(fn "$PB" phase_a)" "0 0 0"
check "the interval function itself is not counted" "$(fn 4 exchange)" "0 0 0"
check "the whole run holds both phases" "$(fn 4 phase_b)" "$CG_B $((S * (2 * N + 1))) $((S * N))"
"$AUGUR" report --db "$DB" --run 4 --interval >"$WORK/iv.txt"
check "report --interval lists the phases" "$(grep -cE "^ *[0-9]+ +phases.c:($LA|$LB) +$S " "$WORK/iv.txt")" 2

# Intervals by index: 2S intervals and the end.
"$AUGUR" collect --db "$DB" --instr-at-start no --interval-functions exchange --param N=$N -- "$PROG" $N $S \
    >/dev/null 2>&1
check "by index: 2S + 1 interval runs" "$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE parent_id = 8")" $((2 * S + 1))
I0=$(sqlite3 "$DB" "SELECT id FROM runs WHERE parent_id = 8 AND phase = '0'")
check "by index: interval 0 is one phase_a" "$(fn "$I0" phase_a | cut -d' ' -f2,3)" "$((N + 3)) $N"
# Strides: each interval votes on its own deltas; a phase merges the votes
# of its intervals, which here share the candidate, so its COUNT and DELTAS
# are the sums of those of the phase_a intervals (0, 2, 4) of the run by index.
# stride RUNS... — "DELTA COUNT DELTAS" of phase_a's load (N reads an interval), summed over RUNS.
stride() {
    sqlite3 "$DB" "SELECT group_concat(DISTINCT s.delta) || ' ' || sum(s.count) || ' ' || sum(s.deltas)
        FROM strides s JOIN instructions i ON i.id = s.instruction_id JOIN processes p ON p.id = i.process_id
        JOIN functions f ON f.id = i.function_id WHERE p.run_id IN ($*) AND f.name = 'phase_a' AND i.reads > $S"
}
A_RUNS=$(sqlite3 "$DB" "SELECT group_concat(id) FROM runs WHERE parent_id = 8 AND phase IN ('0', '2', '4')")
read -r _ COUNT DELTAS <<<"$(stride "$A_RUNS")"
check "strides: phase a's vote is its intervals' merged, 64 (8-byte loads reach the helper once a line)" \
    "$(stride "$PA")" "64 ${COUNT:-none} ${DELTAS:-none}"

# 4. Models and predictions of runs counted between the markers: predict
# says what each of the model's runs counted (as model does), and phase_a's
# S(N+3) reads and SN writes extrapolate exactly.
MDB="$WORK/m.db"
for n in 40 60 80; do
    "$AUGUR" collect --db "$MDB" --instr-at-start no --param N=$n -- "$PROG" $n $S >/dev/null 2>&1
done
"$AUGUR" model --db "$MDB" >/dev/null 2>"$WORK/model.err"
check "model: names what each run counted" \
    "$(grep -c "^augur model: run [123] counted only between the program's START and STOP" "$WORK/model.err")" 3
"$AUGUR" predict --db "$MDB" --param N=400 >"$WORK/p.txt" 2>&1
check "predict: exit" "$?" 0
check "predict: names what each of the model's runs counted" \
    "$(grep -c "^  run [123] counted only between the program's START and STOP_INSTRUMENTATION requests" "$WORK/p.txt")" 3
"$AUGUR" predict --db "$MDB" --param N=400 --format json --top 0 >"$WORK/p.json"
check "predict json: fitted_runs_counted" \
    "$(jq -r '[.prediction.fitted_runs_counted[] | "\(.run):\(.counted | startswith("only between the program'"'"'s START"))"]
        | join(" ")' "$WORK/p.json")" "1:true 2:true 3:true"
check "predict json: phase_a's S(N+3) reads and SN writes at N = 400" \
    "$(jq -r '.functions[] | select(.function == "phase_a") | "\(.reads) \(.writes)"' "$WORK/p.json")" \
    "$((S * 403)) $((S * 400))"
"$AUGUR" collect --db "$MDB" --param N=100 -- "$PROG" 100 $S >/dev/null 2>&1
"$AUGUR" report --db "$MDB" --format json >"$WORK/r4.json"
check "report json: counted from the start, up to the program's STOP request" "$(jq -r '.runs[0].counted' "$WORK/r4.json")" \
    "from the start, but not from the program's STOP_INSTRUMENTATION requests to the next START"

# Bad input.
"$AUGUR" collect --db "$DB" --interval-by callsite -- "$PROG" $N $S >/dev/null 2>"$WORK/bad.err"
check "--interval-by without --interval-functions: usage error" "$?" 2
check "... and says what is missing" "$(grep -c 'needs --interval-functions' "$WORK/bad.err")" 1
"$AUGUR" collect --db "$DB" --interval-functions 'a,,b' -- "$PROG" $N $S >/dev/null 2>"$WORK/bad.err"
check "an empty pattern: usage error" "$?" 2
"$AUGUR" collect --db "$DB" --instr-at-start maybe -- "$PROG" $N $S >/dev/null 2>"$WORK/bad.err"
check "--instr-at-start maybe: usage error naming yes or no" "$?/$(grep -c 'give yes or no' "$WORK/bad.err")" "2/1"
finish
