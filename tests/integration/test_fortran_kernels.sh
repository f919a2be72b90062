#!/bin/bash
# test_fortran_kernels.sh — two Fortran programs, built by tests/CMakeLists.txt
# with gfortran -O1 -g (skipped, exit 77, when gfortran was not found),
# through collect, report, structure, model, predict and memspy.  Closed forms:
#   - mxm_alloc.f90: c = a * b by a DO nest j, k, i over module mxm's
#     ALLOCATABLE N x N arrays: the loops of `do j`, `do k`, `do i` are
#     named after their own lines (gfortran puts do k's setup on do j's
#     line) and are entered 1, N, N^2 times with N, N^2, N^3 header
#     executions; the body stores N^3 times and does 2 N^3 flops, measured
#     at N = 24 and predicted at N = 100 from N = 8 .. 24; memspy names the
#     arrays a, b, c, 8 N^2 bytes each, read N^3, N^3, 2 N^3 + N^2 times by
#     multiply, and their descriptors, the globals mxm::a and mxm::b, read
#     3 N^3 times each (gfortran -O1 reloads base, offset and stride);
#   - common_shape.f90: axpy over assumed-shape p(:), q(:) of 4096 doubles,
#     called 2 N times: its DO loop is entered 2 N times, 4096 iterations
#     each, its store runs 8192 N times; memspy names the COMMON block
#     /fields/ (x and y, 65536 bytes) and module state's array state::w
#     (32768 bytes), as Fortran and gdb write them, not by their symbols
#     fields_ and __state_MOD_w;
#   - alloc_kinds.f90: memspy names the main program's local loc (8 N
#     bytes), the dummy x a module procedure allocates (16 N), and the
#     components g%p, g%t of a derived-type variable (24 N, 32 N).
source "$TESTLIB"
MXM="$PROGRAMS/mxm_alloc"
CSH="$PROGRAMS/common_shape"
AK="$PROGRAMS/alloc_kinds"
if [ ! -x "$MXM" ] || [ ! -x "$CSH" ] || [ ! -x "$AK" ]; then
    echo "SKIP the Fortran test programs were not built: gfortran was not found when configuring;" \
         "run scripts/setup.sh (it installs gfortran) and configure again"
    exit 77
fi
SRC="$SRC_PROGRAMS/mxm_alloc.f90"
BODY=$(line_of "c(i, j) = c(i, j)" "$SRC")
DOJ=$(line_of "do j = 1" "$SRC")
DOK=$(line_of "do k = 1" "$SRC")
DOI=$(line_of "do i = 1" "$SRC")

DB="$WORK/mxm.db"
for n in 8 12 16 20 24; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$MXM" $n >/dev/null 2>&1
done
check "mxm: five runs collected" "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" 5

# nest JSON — "name:entries:header_executions" of the multiply's loops at lines 14..17
nest() {
    jq -r --argjson lo "$DOJ" --argjson hi "$BODY" \
        '[.. | objects | select(.kind? == "loop" and (.file // "" | endswith("mxm_alloc.f90")) and
          (.name | capture(":(?<l>[0-9]+)$").l | tonumber) as $l | $l >= $lo and $l <= $hi)
          | "\(.name | sub("loop at "; "")):\(.entries):\(.header_executions)"] | join(",")' "$1"
}
"$AUGUR" report --db "$DB" --run 5 --format json --top 0 >"$WORK/r24.json"
check "mxm N=24: the body's store runs N^3 = 13824 times" "$(line_writes "$WORK/r24.json" mxm_alloc.f90 "$BODY")" 13824
check "mxm: the module procedure is mxm::multiply" \
    "$(jq -r '[.functions[] | select(.function // "" | test("multiply")) | .function] | join(",")' "$WORK/r24.json")" \
    "mxm::multiply"
"$AUGUR" report --db "$DB" --run 5 --scopes --threshold 0 --format json >"$WORK/s24.json"
check "mxm N=24: do j, do k, do i named by their lines, entered 1, N, N^2 times, headers N, N^2, N^3" \
    "$(nest "$WORK/s24.json")" \
    "mxm_alloc.f90:$DOJ:1:24,mxm_alloc.f90:$DOK:24:576,mxm_alloc.f90:$DOI:576:13824"
check "mxm N=24: the innermost loop's flops are 2 N^3 = 27648" \
    "$(jq '[.. | objects | select(.name? == "loop at mxm_alloc.f90:'"$DOI"'") | .flops] | add' "$WORK/s24.json")" 27648

"$AUGUR" structure --db "$DB" "$MXM" >"$WORK/structure.txt" 2>&1
check "structure: mxm::multiply holds the nest at lines $DOJ > $DOK > $DOI" \
    "$(grep -A6 'function mxm::multiply ' "$WORK/structure.txt" | grep -E "loop at mxm_alloc.f90:($DOJ|$DOK|$DOI) " |
        awk '{ match($0, /^ */); printf "%d:%s|", RLENGTH, $3 }')" \
    "6:mxm_alloc.f90:$DOJ|8:mxm_alloc.f90:$DOK|10:mxm_alloc.f90:$DOI|"

"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "mxm: model exit" "$?" 0
"$AUGUR" predict --db "$DB" --param N=100 --format json --top 0 >"$WORK/p100.json" 2>/dev/null
check "mxm predict N=100: the body's store 10^6 times" "$(line_writes "$WORK/p100.json" mxm_alloc.f90 "$BODY")" 1000000
check "mxm predict N=100: do j, do k, do i entered 1, 100, 10^4 times, headers 100, 10^4, 10^6" \
    "$(jq -r --argjson lo "$DOJ" --argjson hi "$BODY" '[.scopes[] | select(.kind == "loop" and
          (.name | test("mxm_alloc.f90:[0-9]+$")) and (.name | capture(":(?<l>[0-9]+)$").l | tonumber) as $l
          | $l >= $lo and $l <= $hi) | "\(.name | sub("loop at "; "")):\(.entries):\(.header_executions | round)"]
          | join(",")' "$WORK/p100.json")" \
    "mxm_alloc.f90:$DOJ:1:100,mxm_alloc.f90:$DOK:100:10000,mxm_alloc.f90:$DOI:10000:1000000"

"$AUGUR" memspy --machine zen4 --format json --output "$WORK/mm.json" -- "$MXM" 32 >/dev/null 2>&1
check "mxm memspy exit" "$?" 0
check "mxm memspy: the ALLOCATABLE arrays are a, b, c, 8 N^2 = 8192 bytes each" \
    "$(jq -r '[.data_objects[] | select(.kind == "heap" and (.name | test("^[abc]$"))) | "\(.name):\(.size)"]
              | sort | join(",")' "$WORK/mm.json")" "a:8192,b:8192,c:8192"
check "mxm memspy N=32: multiply reads a, b N^3 = 32768 times, c 2 N^3 + N^2 = 66560, descriptors mxm::a, mxm::b 3 N^3" \
    "$(jq -r '[.pairs[] | select(.function == "mxm::multiply" and (.data_object | test("^(mxm::)?[ab]$|^c$")))
              | "\(.data_object):\(.references)"] | sort | join(",")' "$WORK/mm.json")" \
    "a:32768,b:32768,c:66560,mxm::a:98304,mxm::b:98304"

SRC2="$SRC_PROGRAMS/common_shape.f90"
STORE=$(line_of "^ *q(i) = alpha" "$SRC2")
DO=$(line_of "do i = 1, size(q)" "$SRC2")
DB2="$WORK/csh.db"
"$AUGUR" collect --db "$DB2" --param N=10 -- "$CSH" 10 >/dev/null 2>&1
"$AUGUR" report --db "$DB2" --format json --top 0 >"$WORK/c10.json"
check "common_shape N=10: axpy's store runs 2 N 4096 = 81920 times" \
    "$(line_writes "$WORK/c10.json" common_shape.f90 "$STORE")" 81920
"$AUGUR" report --db "$DB2" --scopes --format json >"$WORK/cs10.json"
check "common_shape N=10: state::axpy's DO loop entered 2 N = 20 times, 4096 iterations each" \
    "$(jq -r '[.. | objects | select(.name? == "state::axpy") | .children[] | select(.kind == "loop")
               | "\(.name):\(.entries):\(.iterations_per_entry)"] | join(",")' "$WORK/cs10.json")" \
    "loop at common_shape.f90:$DO:20:4096"

"$AUGUR" memspy --machine zen4 --format json --output "$WORK/cm.json" -- "$CSH" 4 >/dev/null 2>&1
check "common_shape memspy exit" "$?" 0
check "common_shape memspy: COMMON /fields/ (65536 bytes) and module variable state::w (32768 bytes)" \
    "$(jq -r '[.data_objects[] | select(.kind == "global" and (.name | test("fields|^state::|_MOD_")))
              | "\(.name):\(.size)"] | sort | join(",")' "$WORK/cm.json")" "/fields/:65536,state::w:32768"
check "common_shape memspy: axpy's pairs name the globals too" \
    "$(jq -r '[.pairs[] | select(.function == "state::axpy" and (.data_object | test("fields|^state::|_MOD_")))
               | .data_object] | sort | join(",")' "$WORK/cm.json")" \
    "/fields/,state::w"

"$AUGUR" memspy --machine zen4 --format json --output "$WORK/ak.json" -- "$AK" 1000 >/dev/null 2>&1
check "alloc_kinds memspy exit" "$?" 0
check "alloc_kinds memspy: loc, the dummy x, components g%p and g%t: 8000, 16000, 24000, 32000 bytes" \
    "$(jq -r '[.data_objects[] | select(.kind == "heap" and .size >= 8000) | "\(.name):\(.size)"] | sort | join(",")' \
        "$WORK/ak.json")" "g%p:24000,g%t:32000,loc:8000,x:16000"
finish
