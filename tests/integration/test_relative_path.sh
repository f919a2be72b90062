#!/bin/bash
# test_relative_path.sh — a program collected by a relative path (`cd DIR;
# augur collect -- ./prog`, as README.md and scripts/demo.sh do) is modeled
# as the program, exactly as when collected by its absolute path:
#   - each process's executable module is the binary (processes.exe_module_id),
#     and the model set is of the binary, not of ld.so;
#   - the program's reuse-distance groups, scopes and functions are the same
#     in both databases, and so are the predicted counts and misses of the
#     program's functions and scopes at a size never run;
#   - a database written before schema 5 (no exe_module_id) is resolved from
#     the run's directory the same way; a run whose executable is none of its
#     modules is refused by `augur model`, which stores no model set;
#   - `augur structure ./prog` (or a link to it) stores the structure under
#     the canonical path, so that `report --machine` of a run finds it.
# The relative path is padded with slashes (`.////kernels_O2`) to the length
# of the absolute one: argv[0] lies on the stack, so a shorter one moves the
# stack and changes a few misses of the runs themselves; padded, the two
# runs are the same but for the path's spelling.  The plain `./kernels_O2`
# is checked on one run of its own.
source "$TESTLIB"
PROG=$(realpath "$PROGRAMS/kernels_O2")
REL="$WORK/rel.db"
ABS="$WORK/abs.db"
TRAIN="20 24 28 32"
TARGET=64

PADDED=".$(printf '/%.0s' $(seq $((${#PROG} - 11))))kernels_O2"
check "padded path as long as the absolute one" "${#PADDED}" "${#PROG}"
(
    cd "$(dirname "$PROG")" || exit 1
    for n in $TRAIN; do
        "$AUGUR" collect --db "$REL" --param N=$n -- "$PADDED" $n >/dev/null 2>&1
        "$AUGUR" collect --db "$ABS" --param N=$n -- "$PROG" $n >/dev/null 2>&1
    done
    "$AUGUR" collect --db "$WORK/plain.db" --param N=20 -- ./kernels_O2 20 >/dev/null 2>&1
)
cp "$REL" "$WORK/old.db" # for the pre-schema-5 check below, before any model
cp "$REL" "$WORK/gone.db"

check "relative exe stored as typed" "$(sqlite3 "$REL" "SELECT DISTINCT exe FROM processes")" "$PADDED"
# A bare name found in PATH runs by the path found: its module is known.
PATH="$(dirname "$PROG"):$PATH" "$AUGUR" collect --db "$WORK/bare.db" --param N=20 -- kernels_O2 20 >/dev/null 2>&1
check "bare name from PATH: its executable module is the binary" \
    "$(sqlite3 "$WORK/bare.db" "SELECT p.exe || ' ' || m.path FROM processes p JOIN modules m ON m.id = p.exe_module_id")" \
    "$PROG $PROG"
check "plain ./kernels_O2: its executable module is the binary" \
    "$(sqlite3 "$WORK/plain.db" "SELECT p.exe || ' ' || m.path FROM processes p JOIN modules m ON m.id = p.exe_module_id")" \
    "./kernels_O2 $PROG"
for db in "$REL" "$ABS"; do
    name=$(basename "$db" .db)
    check "$name: every run's executable module is the binary" \
        "$(sqlite3 "$db" "SELECT group_concat(DISTINCT m.path) FROM processes p JOIN modules m ON m.id = p.exe_module_id")" \
        "$PROG"
    "$AUGUR" model --db "$db" --quiet >/dev/null 2>"$WORK/$name.model.err"
    check "$name: model exit" "$?" 0
    check "$name: the model set is of the binary" "$(sqlite3 "$db" "SELECT program FROM model_sets")" "$PROG"
    check "$name: model --show names the binary" \
        "$("$AUGUR" model --db "$db" --show | head -n 1 | cut -d, -f1)" "Model set 1 of $PROG"
    "$AUGUR" predict --db "$db" --param N=$TARGET --cache 32K --cache 4K --format json --top 0 \
        >"$WORK/$name.json" 2>/dev/null
    check "$name: predict exit" "$?" 0
done

# the program's groups: block size, loop and strides of each, in one list
groups() {
    sqlite3 "$1" "SELECT block_size || ':' || ifnull(loop, '-') || ':' || ifnull(strides, '-') FROM rd_groups
                  WHERE module = '$PROG' ORDER BY 1" | md5sum
}
check "the program has reuse-distance groups" \
    "$(sqlite3 "$REL" "SELECT count(*) > 20 FROM rd_groups WHERE module = '$PROG'")" 1
check "no group of ld.so holds the program's code" \
    "$(sqlite3 "$REL" "SELECT count(*) FROM rd_members m JOIN rd_groups g ON g.id = m.group_id
                       WHERE m.function = 'matmul' AND g.module <> '$PROG'")" 0
check "same groups of the program" "$(groups "$REL")" "$(groups "$ABS")"

# the program's functions (name, instructions, misses) and scopes, predicted
fns() { jq -c --arg p "$PROG" '[.functions[] | select(.module == $p)]' "$1"; }
check "matmul predicted in the relative db" \
    "$(jq --arg p "$PROG" '[.functions[] | select(.module == $p and .function == "matmul")] | length' "$WORK/rel.json")" 1
check "scopes predicted" "$(jq '[.scopes[] | select(.kind == "loop")] | length > 5' "$WORK/rel.json")" true
check "same predicted functions of the program (counts and misses)" \
    "$(fns "$WORK/rel.json" | md5sum)" "$(fns "$WORK/abs.json" | md5sum)"
check "same predicted scopes" "$(jq -c .scopes "$WORK/rel.json" | md5sum)" "$(jq -c .scopes "$WORK/abs.json" | md5sum)"
check "matmul's instructions at N=$TARGET, both" \
    "$(jq --arg p "$PROG" '.functions[] | select(.module == $p and .function == "matmul") | .instructions' \
        "$WORK/rel.json")" \
    "$(jq --arg p "$PROG" '.functions[] | select(.module == $p and .function == "matmul") | .instructions' \
        "$WORK/abs.json")"

# ---- a database written before schema 5 ----------------------------------------
sqlite3 "$WORK/old.db" "ALTER TABLE processes DROP COLUMN exe_module_id;
                        UPDATE meta SET value = '4' WHERE key = 'schema_version'"
"$AUGUR" model --db "$WORK/old.db" --quiet >/dev/null 2>&1
check "old db: model exit" "$?" 0
CURRENT=$(sqlite3 "$WORK/plain.db" "SELECT value FROM meta WHERE key = 'schema_version'") # as this augur creates
check "old db: upgraded, executables left unknown" \
    "$(sqlite3 "$WORK/old.db" "SELECT value FROM meta WHERE key = 'schema_version';
                               SELECT count(*) FROM processes WHERE exe_module_id IS NOT NULL" | paste -sd,)" "$CURRENT,0"
check "old db: the model set is of the binary (resolved in the run's directory)" \
    "$(sqlite3 "$WORK/old.db" "SELECT program FROM model_sets")" "$PROG"
"$AUGUR" predict --db "$WORK/old.db" --param N=$TARGET --cache 32K --cache 4K --format json --top 0 \
    >"$WORK/old.json" 2>/dev/null
check "old db: same predicted functions of the program" \
    "$(fns "$WORK/old.json" | md5sum)" "$(fns "$WORK/rel.json" | md5sum)"

# ---- an executable that is none of the modules: refused, nothing stored ---------
sqlite3 "$WORK/gone.db" "UPDATE processes SET exe_module_id = NULL, exe = './moved-away'"
"$AUGUR" model --db "$WORK/gone.db" --quiet >/dev/null 2>"$WORK/gone.err"
check "unknown program: model refuses" "$?" 1
check "unknown program: the message names the problem and the fix" \
    "$(grep -c "cannot tell which module run 1 ran as its program.*collect the compiled program itself" "$WORK/gone.err")" 1
"$AUGUR" report --db "$WORK/gone.db" --machine zen4 >/dev/null 2>"$WORK/gone-machine.err"
check "unknown program: report --machine refuses to time ld.so as the program" \
    "$?:$(grep -c "cannot tell which module run 4 ran as its program" "$WORK/gone-machine.err")" 1:1
check "unknown program: no model set stored" "$(sqlite3 "$WORK/gone.db" "SELECT count(*) FROM model_sets")" 0

# ---- structure first, by a relative path or a link ------------------------------
# `augur structure ./prog` then a run of it: the structure is stored under the
# canonical path, the one the run's module has, and `report --machine` finds
# the program (it failed with "no module ./kernels_O2").
ln -s "$PROG" "$WORK/link-to-kernels"
(
    cd "$(dirname "$PROG")" || exit 1
    "$AUGUR" structure --db "$WORK/s.db" ./kernels_O2 >"$WORK/s.txt"
    "$AUGUR" collect --db "$WORK/s.db" --param N=20 -- ./kernels_O2 20 >/dev/null 2>&1
)
check "structure ./prog: stored and printed by its canonical path" \
    "$(sqlite3 "$WORK/s.db" "SELECT path FROM binaries") $(head -n 1 "$WORK/s.txt")" "$PROG program $PROG"
"$AUGUR" report --db "$WORK/s.db" --machine zen4 --format json >"$WORK/s.json" 2>"$WORK/s.err"
check "structure ./prog, then report --machine: exit and no error" "$? $(wc -c <"$WORK/s.err")" "0 0"
check "structure ./prog, then report --machine: matmul's loops timed" \
    "$(jq '[.scopes[] | select(.kind == "loop" and .cycles > 0)] | length > 5' "$WORK/s.json")" true
"$AUGUR" structure --db "$WORK/link.db" "$WORK/link-to-kernels" >/dev/null
check "structure of a symbolic link: stored as the file it points to" \
    "$(sqlite3 "$WORK/link.db" "SELECT path FROM binaries")" "$PROG"
# A database whose structure an older augur stored as typed: the run's module
# names the program, and report --machine still finds it.
cp "$WORK/s.db" "$WORK/typed.db"
sqlite3 "$WORK/typed.db" "UPDATE binaries SET path = './kernels_O2'"
"$AUGUR" report --db "$WORK/typed.db" --machine zen4 --format json >"$WORK/typed.json" 2>"$WORK/typed.err"
check "structure stored as typed (older augur): report --machine still finds the program" \
    "$? $(jq '[.scopes[] | select(.kind == "loop" and .cycles > 0)] | length > 5' "$WORK/typed.json")" "0 true"
finish
