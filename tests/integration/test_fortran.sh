#!/bin/bash
# test_fortran.sh — a Fortran program through collect, report, structure,
# model, predict and memspy (tests/programs/grid_stencil.f90, built by
# tests/CMakeLists.txt with gfortran -O1 -g, which scripts/setup.sh
# installs; skipped, exit 77, without it).  Closed forms:
#   - relax's store v(i,j) = ... runs 3 (N-2)^2 times (3 sweeps of the
#     interior), the fill v = 0.0d0 stores N^2 doubles: the writes of their
#     lines at N = 100, and predicted at N = 200 from N = 40 .. 120;
#   - gfortran's symbol "__grid_MOD_relax" is named "grid::relax" alike in
#     report, structure (with its two nested DO loops) and memspy;
#   - memspy names the two ALLOCATABLE arrays after module grid's variables
#     u and v (ALLOCATE stores the block into the array descriptor, a
#     variable of the DW_TAG_module), 8 N^2 bytes each.
source "$TESTLIB"
SRC="$SRC_PROGRAMS/grid_stencil.f90"
PROG="$PROGRAMS/grid_stencil"
DB="$WORK/f.db"
if [ ! -x "$PROG" ]; then
    echo "SKIP grid_stencil was not built: gfortran was not found when configuring;" \
         "run scripts/setup.sh (it installs gfortran) and configure again"
    exit 77
fi
STORE=$(line_of "v(i, j) = " "$SRC")
FILL=$(line_of "v = 0.0d0" "$SRC")
OUTER=$(line_of "do j = 2" "$SRC")
INNER=$(line_of "do i = 2" "$SRC")

for n in 40 60 80 100 120; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n >/dev/null 2>&1
done
check "five runs collected" "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" 5

"$AUGUR" report --db "$DB" --run 4 --format json --top 0 >"$WORK/r100.json"
check "N=100: the stencil's store runs 3 (N-2)^2 = 28812 times" "$(line_writes "$WORK/r100.json" grid_stencil.f90 "$STORE")" 28812
check "N=100: the fill stores N^2 = 10000 doubles" "$(line_writes "$WORK/r100.json" grid_stencil.f90 "$FILL")" 10000
check "report: the module procedure is grid::relax, its line's function too" \
    "$(jq -r --argjson l "$STORE" '[(.functions[] | select(.function // "" | test("relax")) | .function),
        (.lines[] | select(.line == $l) | .function)] | unique | join(",")' "$WORK/r100.json")" "grid::relax"

"$AUGUR" structure --db "$DB" "$PROG" >"$WORK/structure.txt" 2>&1
check "structure: function grid::relax with the DO loops at lines $OUTER and $INNER, nested" \
    "$(grep -A2 'function grid::relax ' "$WORK/structure.txt" |
        awk '{ match($0, /^ */); printf "%d:%s|", RLENGTH, $1 == "loop" ? $1 " " $2 " " $3 : $1 " " $2 }')" \
    "4:function grid::relax|6:loop at grid_stencil.f90:$OUTER|8:loop at grid_stencil.f90:$INNER|"

"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "model exit" "$?" 0
"$AUGUR" predict --db "$DB" --param N=200 --format json --top 0 >"$WORK/p200.json" 2>/dev/null
check "predict at N=200: the store 3 * 198^2 = 117612 times" "$(line_writes "$WORK/p200.json" grid_stencil.f90 "$STORE")" 117612
check "predict: the scope of grid::relax is named so" \
    "$(jq -r '[.scopes[] | select(.kind == "function" and (.name | test("relax"))) | .name] | join(",")' \
        "$WORK/p200.json")" "grid::relax"

"$AUGUR" memspy --machine zen4 --format json --output "$WORK/m.json" -- "$PROG" 60 >/dev/null 2>&1
check "memspy exit" "$?" 0
check "memspy: the code object of the sweep is grid::relax" \
    "$(jq -r '[.code_objects[] | .name | select(test("relax"))] | unique | join(",")' "$WORK/m.json")" \
    "grid::relax"
check "memspy: the ALLOCATABLE arrays are named u and v (module grid's variables), 8 N^2 = 28800 bytes each" \
    "$(jq -r '[.data_objects[] | select(.kind == "heap" and (.name == "u" or .name == "v")) | "\(.name):\(.size)"]
              | sort | join(",")' "$WORK/m.json")" "u:28800,v:28800"
finish
