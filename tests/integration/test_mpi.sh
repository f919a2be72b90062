#!/bin/bash
# test_mpi.sh — MPI programs under augur collect (docs/user-guide.md, "MPI
# programs"), on tests/programs/mpi/mpi_halo.c with T = 2 steps, counted
# between its START and STOP_INSTRUMENTATION requests (MPI_Init and
# MPI_Finalize run uninstrumented, which keeps 19 Valgrind ranks on 2 cores
# in minutes).  Closed forms (its header): each rank's relax statement reads
# T(4N(N-2) + 1) and writes TN(N-2); each MPI_Sendrecv call site sends and
# receives 8NT bytes in T calls with one neighbour; MPI_Allreduce moves 8T
# bytes each way per rank.  Summed over the P ranks the bytes sent are
# T(16N(P-1) + 8P), which the communication model must give exactly outside
# its training runs.  relax's instructions per rank are Callgrind's.
source "$TESTLIB"
PROG="$PROGRAMS/mpi_halo"
SRC="$SRC_PROGRAMS/mpi/mpi_halo.c"
if ! command -v mpirun >/dev/null || [ ! -x "$PROG" ]; then
    echo "skip: Open MPI is not installed (apt-get install libopenmpi-dev openmpi-bin, or scripts/setup.sh; then build again)"
    exit 77
fi
# Open MPI refuses root without these (CI runs as root), and more ranks than cores need --oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe)
T=2
DB="$WORK/m.db"
line_of() { grep -n -- "$1" "$SRC" | cut -d: -f1; }
UP=$(line_of '/\* up \*/') DOWN=$(($(line_of 'down: \*/') + 1)) RES=$(line_of '/\* residual \*/')
CELL=$(line_of '/\* cell \*/')

# launch P N — one MPI run of P ranks at N; its collect output in $WORK/c.P.N.
launch() {
    "${MPIRUN[@]}" -np "$1" "$AUGUR" collect --db "$DB" --instr-at-start no --block-sizes 64 --param N="$2" \
        -- "$PROG" "$2" $T >"$WORK/c.$1.$2" 2>&1
}
# run_of P N — the run of that launch.
run_of() { sqlite3 "$DB" "SELECT run_id FROM params WHERE name = 'N' AND value = $2 INTERSECT
                          SELECT run_id FROM params WHERE name = 'P' AND value = $1"; }
# cell RUN RANK — "reads writes" of relax's statement in that rank's process.
cell() {
    sqlite3 "$DB" "SELECT sum(i.reads) || ' ' || sum(i.writes) FROM instructions i
        JOIN mpi_ranks k ON k.process_id = i.process_id JOIN functions f ON f.id = i.function_id
        WHERE k.run_id = $1 AND k.rank = $2 AND f.name = 'relax' AND i.line IN ($CELL, $CELL + 1)"
}
# relax_ir RUN RANK — relax's instructions in that rank's process.
relax_ir() {
    sqlite3 "$DB" "SELECT sum(i.executions) FROM instructions i JOIN mpi_ranks k ON k.process_id = i.process_id
        JOIN functions f ON f.id = i.function_id WHERE k.run_id = $1 AND k.rank = $2 AND f.name = 'relax'"
}
# calls RUN RANK LINE — "peer calls sent received" of that rank's MPI calls at mpi_halo.c:LINE.
calls() {
    sqlite3 "$DB" "SELECT ifnull(c.peer, '-') || ' ' || c.calls || ' ' || c.bytes_sent || ' ' || c.bytes_received
        FROM comm c JOIN mpi_ranks k ON k.process_id = c.process_id WHERE k.run_id = $1 AND k.rank = $2
        AND c.line = $3"
}

# 1. Two ranks at N = 8: one run, each rank's counts and calls.
launch 2 8
check "P=2: exit" "$?" 0
R=$(run_of 2 8)
check "P=2: one run of two ranks, P recorded, complete" "$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE parent_id IS NULL;
    SELECT size || ' ' || (SELECT count(*) FROM mpi_ranks WHERE run_id = $R) FROM mpi_runs WHERE run_id = $R;
    SELECT status FROM runs WHERE id = $R")" "1
2 2
complete"
for r in 0 1; do
    check "P=2 rank $r: relax's statement reads T(4N(N-2) + 1), writes TN(N-2)" "$(cell "$R" $r)" \
        "$((T * (4 * 8 * 6 + 1))) $((T * 8 * 6))"
done
check "P=2 rank 0: Sendrecv down: peer 1, T calls, 8NT bytes each way" "$(calls "$R" 0 $DOWN)" "1 $T $((64 * T)) $((64 * T))"
check "P=2 rank 1: Sendrecv up: peer 0, T calls, 8NT bytes each way" "$(calls "$R" 1 $UP)" "0 $T $((64 * T)) $((64 * T))"
check "P=2 rank 1: Allreduce: no peer, 8T bytes each way" "$(calls "$R" 1 $RES)" "- $T $((8 * T)) $((8 * T))"
check "P=2: the calls' stacks" "$(sqlite3 "$DB" "SELECT DISTINCT stack FROM comm ORDER BY stack")" \
    '["exchange","main"]
["residual","main"]'
"$AUGUR" report --db "$DB" --run "$R" --comm --plain-numbers >"$WORK/comm.txt"
check "report --comm: total bytes sent T(16N(P-1) + 8P)" "$(awk '/^total:/ {print $4}' "$WORK/comm.txt")" \
    "$((T * (16 * 8 + 16)))"
"$AUGUR" report --db "$DB" --run "$R" --plain-numbers >"$WORK/report.txt"
check "report: the ranks and their imbalance" \
    "$(grep -c -E '^MPI ranks: 2 of 2 stored|^summed: .* imbalance \(largest / mean\): [0-9.]+$' "$WORK/report.txt")" 2
"$AUGUR" report --db "$DB" --run "$R" --format json >"$WORK/report.json"
check "report JSON: the ranks, their sum and imbalance, as the text's" \
    "$(jq -r '.mpi | "\(.size) \(.stored) \([.ranks[].rank] | join(",")) \(([.ranks[].instructions] | add) == .summed_instructions) \(.imbalance * 1000 | round / 1000)"' "$WORK/report.json")" \
    "2 2 0,1 true $(sed -nE 's/^summed: .*: ([0-9.]+)$/\1/p' "$WORK/report.txt" | sed -E 's/0+$//; s/\.$//')"

# relax's instructions per rank against Callgrind's, between the same markers
# (--threshold=100: a waiting rank's polling in MPI_Sendrecv hides relax).
"${MPIRUN[@]}" -np 2 valgrind --tool=callgrind --instr-atstart=no \
    --callgrind-out-file="$WORK/cg.%q{OMPI_COMM_WORLD_RANK}" "$PROG" 8 $T >/dev/null 2>&1
for r in 0 1; do
    cg=$(callgrind_annotate --threshold=100 "$WORK/cg.$r" 2>/dev/null | awk '/:relax \[/ {gsub(",", "", $1); print $1}')
    check "P=2 rank $r: relax's instructions are Callgrind's" "$(relax_ir "$R" $r)" "$cg"
done

# The interval each call closed (--interval-functions 'MPI_*'): rank 1's
# calls at the up exchange closed the intervals its interval runs say they
# did, and the ranks' intervals of one index share one interval run (in a
# database of its own: its counts leave the MPI calls out).
IVDB="$WORK/iv.db"
"${MPIRUN[@]}" -np 2 "$AUGUR" collect --db "$IVDB" --instr-at-start no --block-sizes 64 --interval-functions 'MPI_*' \
    --param N=5 -- "$PROG" 5 $T >"$WORK/iv.out" 2>&1
check "intervals: exit" "$?" 0
RI=1
check "intervals: rank 1's up calls, each in the interval its interval run has" \
    "$(sqlite3 "$IVDB" "SELECT group_concat(c.interval) FROM (SELECT c.interval FROM comm c JOIN mpi_ranks k
        ON k.process_id = c.process_id WHERE k.run_id = $RI AND k.rank = 1 AND c.line = $UP ORDER BY 1) c")" \
    "$(sqlite3 "$IVDB" "SELECT group_concat(first) FROM (SELECT i.first FROM intervals i JOIN processes p
        ON p.id = i.process_id JOIN runs r ON r.id = p.run_id JOIN mpi_ranks k ON k.run_id = r.parent_id
        AND k.rank = 1 JOIN processes q ON q.id = k.process_id AND q.pid = p.pid
        WHERE r.parent_id = $RI AND i.line = $UP ORDER BY 1)")"
check "intervals: $T calls, each its own" "$(sqlite3 "$IVDB" "SELECT count(*), sum(c.calls) FROM comm c JOIN mpi_ranks k
    ON k.process_id = c.process_id WHERE k.run_id = $RI AND k.rank = 1 AND c.line = $UP")" "$T|$T"
check "intervals: phase 0 holds both ranks" "$(sqlite3 "$IVDB" "SELECT count(*) FROM processes p JOIN runs r
    ON r.id = p.run_id WHERE r.parent_id = $RI AND r.phase = '0'")" 2

# 2. The communication model, fitted on N = 4, 6, 8 at P = 2 and 3 and on
# P = 2, 3, 4 at N = 4 (every point left out still leaves N*P determined),
# gives the bytes sent at N = 20, P = 8 exactly.
for np in "2 4" "2 6" "3 4" "3 6" "3 8" "4 4"; do
    launch $np || check "launch P N = $np" "$?" 0
done
R4=$(run_of 4 4)
check "P=4 rank 2: up to 1 and down to 3" "$(calls "$R4" 2 $UP) / $(calls "$R4" 2 $DOWN)" \
    "1 $T $((32 * T)) $((32 * T)) / 3 $T $((32 * T)) $((32 * T))"
check "P=4 rank 3: relax's statement" "$(cell "$R4" 3)" "$((T * (4 * 4 * 2 + 1))) $((T * 4 * 2))"
"$AUGUR" model --db "$DB" >"$WORK/model.txt" 2>&1
check "model: exit" "$?" 0
"$AUGUR" predict --db "$DB" --param N=20 --param P=8 --plain-numbers >"$WORK/predict.txt" 2>&1
check "predict N=20 P=8: bytes sent T(16N(P-1) + 8P), exactly" \
    "$(awk '/bytes sent/ {sub(",", "", $3); print $3}' "$WORK/predict.txt")" "$((T * (16 * 20 * 7 + 64)))"
check "predict N=20 P=8: calls T(3P - 2), exactly" \
    "$(awk '/bytes sent/ {print $NF}' "$WORK/predict.txt")" "$((T * (3 * 8 - 2)))"
"$AUGUR" predict --db "$DB" --param N=20 --param P=8 --format json >"$WORK/predict.json" 2>/dev/null
check "predict JSON: bytes sent and calls exact, P, the mean rank as the total over P" \
    "$(jq -r '.mpi | "\(.bytes_sent.value) \(.bytes_sent.range | join(" ")) \(.calls.value) \(.ranks) \(.mean_rank_instructions * 8 | round)"' "$WORK/predict.json")" \
    "$((T * (16 * 20 * 7 + 64))) $((T * (16 * 20 * 7 + 64))) $((T * (16 * 20 * 7 + 64))) $((T * (3 * 8 - 2))) 8 $(jq '.total.instructions | round' "$WORK/predict.json")"

# 3. Bad input: a program not linked with MPI under mpirun, another MPI's
# launcher, the launcher under augur, P given wrong; a rank that crashes.
runs=$(sqlite3 "$DB" "SELECT count(*) FROM runs")
"${MPIRUN[@]}" -np 1 "$AUGUR" collect --db "$DB" -- /bin/true >"$WORK/notmpi.out" 2>&1
check "not MPI: refused" "$?" 125
check "not MPI: says why" "$(grep -c 'never returned from MPI_Init' "$WORK/notmpi.out")" 1
PMI_RANK=0 "$AUGUR" collect --db "$DB" -- "$PROG" 4 1 >"$WORK/foreign.out" 2>&1
check "another launcher: refused" "$?" 125
check "another launcher: named" "$(grep -c 'PMI_RANK is set: .* augur does not know' "$WORK/foreign.out")" 1
"$AUGUR" collect --db "$DB" -- mpirun -np 2 "$PROG" 4 1 >"$WORK/inside.out" 2>&1
check "mpirun under augur: refused" "$?" 2
check "mpirun under augur: says where it goes" "$(grep -c 'is an MPI launcher: put it outside' "$WORK/inside.out")" 1
"${MPIRUN[@]}" -np 2 "$AUGUR" collect --db "$DB" --param P=3 -- "$PROG" 4 1 >"$WORK/p.out" 2>&1
check "P given wrong: refused" "$?" 2
check "P given wrong: says so" "$(grep -c -- '--param P=3, but mpirun started 2 ranks' "$WORK/p.out")" 2
mkdir -p "$WORK/fake"
echo 'int MPI_Init(int *argc, char ***argv) { return argc && argv ? 0 : 1; }' >"$WORK/fake/mpich.c"
cc -shared -fPIC -Wl,-soname,libmpich.so.12 -o "$WORK/fake/libmpich.so.12" "$WORK/fake/mpich.c"
echo 'int MPI_Init(int *, char ***); int main(int c, char **v) { return MPI_Init(&c, &v); }' >"$WORK/fake/app.c"
cc -o "$WORK/fake/app" "$WORK/fake/app.c" "$WORK/fake/libmpich.so.12" -Wl,-rpath,"$WORK/fake"
"$AUGUR" collect --db "$DB" -- "$WORK/fake/app" >"$WORK/mpich.out" 2>&1
check "another MPI library: refused" "$?" 125
check "another MPI library: named" "$(grep -c 'is linked with libmpich.so.12, an MPI augur does not know' "$WORK/mpich.out")" 1
check "bad input: nothing stored" "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" "$runs"
"${MPIRUN[@]}" -np 2 "$AUGUR" collect --db "$DB" --instr-at-start no --param N=4 -- "$PROG" 4 $T 1 >"$WORK/crash.out" 2>&1
run=$(sqlite3 "$DB" "SELECT max(run_id) FROM mpi_runs")
check "crash: one more run" "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" "$((runs + 1))"
check "crash: marked partial, rank 1's signal named" \
    "$(sqlite3 "$DB" "SELECT status, status_detail LIKE '%rank 1: killed by signal 11%' FROM runs WHERE id = $run")" "partial|1"
check "crash: the other rank's profile kept" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM mpi_ranks k JOIN processes p ON p.id = k.process_id WHERE k.run_id = $run AND k.rank = 0")" 1
finish
