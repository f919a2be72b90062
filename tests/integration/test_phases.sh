#!/bin/bash
# test_phases.sh — models and predictions per phase, and the import of
# interval profiles (docs/models.md "Phases", docs/user-guide.md "augur
# import"), on tests/programs/phases.c collected between its markers with
# --interval-functions exchange --interval-by callsite: phase a (closed
# at the call after phase_a) holds phase_a, S(N+3) reads and SN writes,
# phase b phase_b, S(2N+1) reads and SN writes (phases.c's header).
# Instruction counts are Callgrind's for the same region at the size
# predicted, and the phase runs' totals those collect measures there.
source "$TESTLIB"
PROG="$PROGRAMS/phases"
S=3 BIG=400
DB="$WORK/p.db"
LA=$(grep -n 'exchange(a, n);' "$SRC_PROGRAMS/phases.c" | cut -d: -f1)
LB=$(grep -n 'exchange(b, n);' "$SRC_PROGRAMS/phases.c" | cut -d: -f1)
INTERVALS=(--instr-at-start no --interval-functions exchange --interval-by callsite)

# collect_phases DB N [OPTIONS...] — collect phases.c at N, S steps, by call site.
collect_phases() {
    local db=$1 n=$2
    shift 2
    "$AUGUR" collect --db "$db" "${INTERVALS[@]}" "$@" --param N="$n" -- "$PROG" "$n" $S >/dev/null 2>&1
}
# phase_run DB PARENT PHASE — the id of run PARENT's interval run of PHASE.
phase_run() { sqlite3 "$1" "SELECT id FROM runs WHERE parent_id = $2 AND phase = '$3'"; }

# 1. Trained on four sizes, one model set per phase besides the whole runs'.
for n in 40 60 80 100; do
    collect_phases "$DB" $n --keep-profiles "$WORK/kept$n"
done
"$AUGUR" model --db "$DB" >"$WORK/model.out" 2>"$WORK/model.err"
check "model: exit" "$?" 0
check "model: the whole runs' set and one per phase" \
    "$(sqlite3 "$DB" "SELECT group_concat(ifnull(phase, '-') || '<' || ifnull(parent_id, 0), ' ') FROM
        (SELECT phase, parent_id FROM model_sets ORDER BY id)")" "-<0 phases.c:$LA<1 phases.c:$LB<1 end<1"
check "model: each phase's set is fitted on that phase's interval runs" \
    "$(sqlite3 "$DB" "SELECT runs FROM model_sets WHERE phase = 'phases.c:$LA'")" \
    "[$(sqlite3 "$DB" "SELECT group_concat(id) FROM runs WHERE phase = 'phases.c:$LA' ORDER BY id")]"
check "model: names each phase's set" "$(grep -c "^model set [0-9]* stored for phase phases.c:$LA: " "$WORK/model.out")" 1

# 2. predict --phase at a larger size: phase_a's and phase_b's counts
# (Callgrind's instructions, the closed forms' reads and writes), and each
# phase's total as collect measures it there (exact: the models are).
read -r CG_A CG_B <<<"$(valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" --instr-atstart=no "$PROG" \
    $BIG $S >/dev/null 2>&1 && callgrind_annotate "$WORK/cg.out" 2>/dev/null |
    awk '/:phase_a /{a=$1} /:phase_b /{b=$1} END{gsub(",","",a); gsub(",","",b); print a, b}')"
MEASURED="$WORK/big.db"
collect_phases "$MEASURED" $BIG
# measured PHASE — "instructions reads writes" of the interval run of PHASE at N = BIG.
measured() {
    sqlite3 "$MEASURED" "SELECT sum(i.executions) || ' ' || sum(i.reads) || ' ' || sum(i.writes) FROM instructions i
        JOIN processes p ON p.id = i.process_id WHERE p.run_id = $(phase_run "$MEASURED" 1 "$1")"
}
# predicted PHASE FUNCTION — "instructions reads writes" of FUNCTION predicted at N = BIG for PHASE.
predicted() {
    "$AUGUR" predict --db "$DB" --param N=$BIG --phase "$1" --format json --top 0 2>/dev/null |
        jq -r --arg f "$2" '(if $f == "" then .total else (.functions[] | select(.function == $f)) end)
            | "\(.instructions) \(.reads) \(.writes)"'
}
check "predict phase a: phase_a = Callgrind's instructions, S(N+3) reads, SN writes" \
    "$(predicted "phases.c:$LA" phase_a)" "$CG_A $((S * (BIG + 3))) $((S * BIG))"
check "predict phase b: phase_b = Callgrind's instructions, S(2N+1) reads, SN writes" \
    "$(predicted "phases.c:$LB" phase_b)" "$CG_B $((S * (2 * BIG + 1))) $((S * BIG))"
check "predict phase a: the phase's total as collected" "$(predicted "phases.c:$LA" "")" "$(measured "phases.c:$LA")"
check "predict phase b: the phase's total as collected" "$(predicted "phases.c:$LB" "")" "$(measured "phases.c:$LB")"
check "predict phase a: no phase_b" "$(predicted "phases.c:$LA" phase_b)" ""
"$AUGUR" predict --db "$DB" --param N=$BIG --phase "phases.c:$LA" --format json >"$WORK/pa.json" 2>/dev/null
check "predict json: prediction.phase and the set" \
    "$(jq -r '"\(.prediction.phase) \(.prediction.model_set)"' "$WORK/pa.json")" "phases.c:$LA 2"
"$AUGUR" predict --db "$DB" --param N=$BIG --phase "phases.c:$LB" >"$WORK/pb.txt" 2>&1
check "predict text: names the phase" "$(grep -c "^Prediction at N=$BIG, phase phases.c:$LB$" "$WORK/pb.txt")" 1

# Without --phase: the whole runs, as before, and the phases that have models.
"$AUGUR" predict --db "$DB" --param N=$BIG --format json >"$WORK/whole.json" 2>/dev/null
check "predict: the whole runs' set, phase null" "$(jq -r '"\(.prediction.model_set) \(.prediction.phase)"' "$WORK/whole.json")" \
    "1 null"
check "predict json: the phases with models" "$(jq -r '.prediction.phases | join(" ")' "$WORK/whole.json")" \
    "phases.c:$LA phases.c:$LB end"
check "predict: the whole runs hold both phases' phase_b" \
    "$(jq -r '.functions[] | select(.function == "phase_b") | .instructions' "$WORK/whole.json")" "$CG_B"
"$AUGUR" predict --db "$DB" --param N=$BIG >"$WORK/whole.txt" 2>&1
check "predict text: lists the phases with models" \
    "$(grep -c "phases with models (augur predict --phase PHASE predicts one): phases.c:$LA, phases.c:$LB, end" \
        "$WORK/whole.txt")" 1
"$AUGUR" predict --db "$DB" --param N=$BIG --phase nowhere.c:1 >/dev/null 2>"$WORK/nophase.err"
check "predict --phase without models: fails" "$?" 1
check "... naming the phases that have" \
    "$(grep -c "model set 1 has no models of phase 'nowhere.c:1': its phases with models are 'phases.c:$LA', 'phases.c:$LB', 'end'" \
        "$WORK/nophase.err")" 1

# model --show names the phase, or the phases.
"$AUGUR" model --db "$DB" --show --phase "phases.c:$LB" --format json >"$WORK/show.json"
check "model --show --phase: that phase's set" "$(jq -r '"\(.model_set) \(.phase) \(.parent_set)"' "$WORK/show.json")" \
    "3 phases.c:$LB 1"
"$AUGUR" model --db "$DB" --show >"$WORK/show.txt"
check "model --show: lists the phases with models" \
    "$(grep -c "^  phases with models (augur model --show --phase PHASE): phases.c:$LA, phases.c:$LB, end$" "$WORK/show.txt")" 1

# 3. A phase missing from a training run is named, not fitted: by index,
# S = 2 steps has no intervals 4 and 5.
MDB="$WORK/missing.db"
for n in 40 60; do
    "$AUGUR" collect --db "$MDB" --instr-at-start no --interval-functions exchange --param N=$n -- "$PROG" $n 3 \
        >/dev/null 2>&1
done
"$AUGUR" collect --db "$MDB" --instr-at-start no --interval-functions exchange --param N=80 -- "$PROG" 80 2 \
    >/dev/null 2>&1
"$AUGUR" model --db "$MDB" >"$WORK/m2.out" 2>"$WORK/m2.err"
check "missing phase: model still fits" "$?" 0
R3=$(sqlite3 "$MDB" "SELECT max(id) FROM runs WHERE parent_id IS NULL")
for k in 4 5; do
    check "missing phase $k: named with the run that lacks it" \
        "$(grep -c "warning: phase $k is not in every training run, so it is not modeled: not in run $R3$" "$WORK/m2.err")" 1
done
check "missing phase: the others are fitted" \
    "$(sqlite3 "$MDB" "SELECT group_concat(phase, ' ') FROM (SELECT phase FROM model_sets WHERE phase IS NOT NULL ORDER BY id)")" \
    "0 1 2 3 end"

# 4. augur import of the kept profiles, intervals included, reproduces
# collect's interval runs: their phases, closing call sites and counts.
IDB="$WORK/import.db"
"$AUGUR" import --db "$IDB" --param N=100 "$WORK"/kept100/augur-collect-*/augur.*.prof >/dev/null 2>"$WORK/import.err"
check "import: exit" "$?" 0
# children DB PARENT — each interval run of PARENT: phase, closing intervals, and counts per function.
children() {
    sqlite3 "$1" "SELECT r.phase || ' ' || iv.first || ' ' || iv.count || ' ' || iv.closed_by || ' ' || ifnull(iv.line, '-')
            || ' ' || (SELECT group_concat(f, ' ') FROM (SELECT f.name || '=' || sum(i.executions) || '/' || sum(i.reads)
                || '/' || sum(i.writes) AS f FROM instructions i JOIN processes q ON q.id = i.process_id
                JOIN functions f ON f.id = i.function_id WHERE q.run_id = r.id GROUP BY f.name ORDER BY f.name))
        FROM runs r JOIN processes p ON p.run_id = r.id JOIN intervals iv ON iv.process_id = p.id
        WHERE r.parent_id = $2 ORDER BY r.id"
}
COLLECTED=$(children "$DB" "$(sqlite3 "$DB" "SELECT id FROM runs WHERE parent_id IS NULL AND id IN
    (SELECT run_id FROM params WHERE name = 'N' AND value = 100)")")
check "import: collect's interval runs (3 phases)" "$(echo "$COLLECTED" | wc -l)" 3
check "import: the same interval runs as collect's" "$(children "$IDB" 1)" "$COLLECTED"
check "import: a phase run's parameters" "$(sqlite3 "$IDB" "SELECT value_text FROM params WHERE run_id = 2")" 100

# By index, inferred (no profile sums several intervals): 2S + 1 runs named 0, 1, ... end.
"$AUGUR" collect --db "$WORK/idx.db" --keep-profiles "$WORK/keptidx" --instr-at-start no --interval-functions exchange \
    --param N=40 -- "$PROG" 40 $S >/dev/null 2>&1
"$AUGUR" import --db "$WORK/idx2.db" "$WORK"/keptidx/augur-collect-*/augur.*.prof >/dev/null 2>&1
check "import by index: the phases as collect's" "$(sqlite3 "$WORK/idx2.db" "SELECT group_concat(phase, ' ') FROM runs")" \
    "$(sqlite3 "$WORK/idx.db" "SELECT group_concat(phase, ' ') FROM runs")"

# Bad input: nothing stored.
KEPT=$(ls "$WORK"/kept100/augur-collect-*/augur.*.prof)
MAIN=$(echo "$KEPT" | grep -v '\.i[0-9]*\.prof$')
mapfile -t IVS < <(echo "$KEPT" | grep '\.i[0-9]*\.prof$')
"$AUGUR" import --db "$WORK/bad.db" --interval-by index "${IVS[@]}" "$MAIN" >/dev/null 2>"$WORK/bad.err"
check "import --interval-by index of call-site profiles: usage error" "$?" 2
check "... saying to give callsite" "$(grep -c "sums $S intervals (those closed at phases.c:$LA).*give --interval-by callsite" \
    "$WORK/bad.err")" 1
"$AUGUR" import --db "$WORK/bad.db" "${IVS[@]}" >/dev/null 2>"$WORK/bad.err"
check "import of intervals without their process: refused" "$?" 125
check "... naming what is missing" "$(grep -c "is given without the process's own profile" "$WORK/bad.err")" 1
"$AUGUR" import --db "$WORK/bad.db" "$MAIN" >/dev/null 2>"$WORK/bad.err"
check "import of a process without its intervals: stored" "$?" 0
check "... with a warning that its phases are not" \
    "$(grep -c "closed $((2 * S)) intervals, but no profile of them.*stored without its phases" "$WORK/bad.err")" 1
check "the refusals stored nothing (one run: the process without its intervals)" "$(sqlite3 "$WORK/bad.db" "SELECT count(*) FROM runs")" 1
FIRST_IV=$(echo "$KEPT" | grep '\.i0\.prof$')
cp "$MAIN" "$WORK/copy.prof"
"$AUGUR" import --db "$WORK/bad.db" "$FIRST_IV" "$MAIN" "$WORK/copy.prof" >/dev/null 2>"$WORK/bad.err"
check "a process given twice after an interval: refused naming its two files" \
    "$?/$(grep -c "$MAIN and $WORK/copy.prof are profiles of the same process" "$WORK/bad.err")" "125/1"
cp "$FIRST_IV" "$WORK/copy.i.prof"
"$AUGUR" import --db "$WORK/bad.db" "${IVS[@]}" "$MAIN" "$WORK/copy.i.prof" >/dev/null 2>"$WORK/bad.err"
check "an interval given twice: refused" \
    "$?/$(grep -c "two profiles of interval 0 of process [0-9]* are given (a copy of a file)" "$WORK/bad.err")" "125/1"
check "these refusals stored nothing either" "$(sqlite3 "$WORK/bad.db" "SELECT count(*) FROM runs")" 1
"$AUGUR" import --db "$WORK/bad.db" --interval-by sometimes "${IVS[@]}" "$MAIN" >/dev/null 2>"$WORK/bad.err"
check "--interval-by sometimes: usage error naming the choices" "$?/$(grep -c 'give index or callsite' "$WORK/bad.err")" "2/1"
finish
