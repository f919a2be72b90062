#!/bin/bash
# test_cxx_names.sh — C++ function names agree across augur's views and fit
# in its text tables (findings2 B), on tests/programs/cxxnames_cc.cc
# (std::sort with a lambda comparator, a function template, a lambda)
# built here with g++ -O1 -g -march=x86-64-v2:
#   - structure names the program's functions by the strings Valgrind
#     prints in `report` (demangled with parameters), as `c++filt` does,
#     and `report --scopes` (structure joined with the runs) by the same;
#   - the join of structure's loops with report's functions (time per
#     function, predict_perf.c) finds them: the sort function's mispredicts
#     are the sum of its loops', and not 0;
#   - text tables of report, report --scopes, predict and predict --machine
#     stay under 160 columns; their JSON keeps the full names.
source "$TESTLIB"
command -v g++ >/dev/null || { echo "SKIP: g++ is not installed"; exit 0; }
PROG=$WORK/cxxnames_cc
# The source named /src/cxxnames_cc.cc in the debug info: the tables' widths
# measured below are then the names', whatever the checkout's path (the
# Lines tables name files by absolute path).
g++ -O1 -g -march=x86-64-v2 -fdebug-prefix-map="$SRC_PROGRAMS"=/src -o "$PROG" "$SRC_PROGRAMS/cxxnames_cc.cc"
DB=$WORK/c.db
for n in 500 1000 1500 2000 2500; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n >/dev/null 2>&1
done
"$AUGUR" structure --db "$DB" --format json "$PROG" > "$WORK/st.json"
check "structure exit" "$?" 0
"$AUGUR" report --db "$DB" --run 5 --format json > "$WORK/r.json"
check "report exit" "$?" 0

# ---- one name per function ------------------------------------------------------------
# the program's functions in the report, the names structure gives, and what c++filt
# makes of the binary's own symbols
jq -r '.functions[] | select(.module // "" | endswith("/cxxnames_cc")) | .function' "$WORK/r.json" | sort -u > "$WORK/report.txt"
jq -r '[.. | objects | select(.kind == "function") | .name] | unique[]' "$WORK/st.json" > "$WORK/structure.txt"
nm "$PROG" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | c++filt | sort -u > "$WORK/cxxfilt.txt"
SORT='void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_comp_iter<main::{lambda(int, int)#2}> >(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, __gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_comp_iter<main::{lambda(int, int)#2}>)'
LAMBDA='main::{lambda(std::vector<int, std::allocator<int> >&)#1}::operator()(std::vector<int, std::allocator<int> >&) const'
TOTAL='long total<long>(std::vector<int, std::allocator<int> > const&)'
for name in "$SORT" "$LAMBDA" "$TOTAL" main; do
    check "report names ${name:0:40}" "$(grep -cxF "$name" "$WORK/report.txt")" 1
    check "structure names ${name:0:40}" "$(grep -cxF "$name" "$WORK/structure.txt")" 1
done
check "report's names of the program missing from structure" "$(comm -23 "$WORK/report.txt" "$WORK/structure.txt" | tr '\n' '|')" ""
check "structure's names missing from c++filt's" "$(comm -23 "$WORK/structure.txt" "$WORK/cxxfilt.txt" | grep -v '^fn_\|^\[' | tr '\n' '|')" ""
check "no mangled names in structure" "$(grep -c '^_Z' "$WORK/structure.txt")" 0

"$AUGUR" report --db "$DB" --run 5 --scopes --threshold 0 --format json |
    jq -r '[.scopes[] | select(.name == "cxxnames_cc") | .. | objects | select(.kind == "function") | .name] | unique[]' \
        > "$WORK/scopes.txt"
check "report's names of the program missing from the scope view" "$(comm -23 "$WORK/report.txt" "$WORK/scopes.txt" | tr '\n' '|')" ""

# ---- structure's loops joined with report's functions ---------------------------------------
"$AUGUR" report --db "$DB" --run 5 --machine zen4 --format json > "$WORK/m.json"
check "report --machine exit" "$?" 0
# the scopes are in tree order: each loop belongs to the function above it
loops=$(jq -r --arg f "$SORT" 'reduce .scopes[] as $s ({f: null, m: 0};
    if $s.kind == "function" then .f = $s.name elif $s.kind == "loop" and .f == $f then .m += $s.terms.mispredicts else . end) | .m' "$WORK/m.json")
fn=$(jq -r --arg f "$SORT" '.functions[] | select(.function == $f) | .mispredicts' "$WORK/m.json")
check "the sort's loops mispredict" "$([ "${loops%.*}" -gt 0 ] 2>/dev/null && echo yes || echo "no ($loops)")" yes
check "the sort function's mispredicts are its loops'" "$fn" "$loops"

# ---- widths -------------------------------------------------------------------------------
"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "model exit" "$?" 0
widest() { awk '{ if (length > m) m = length } END { print m + 0 }' "$1"; }
"$AUGUR" report --db "$DB" --run 5 --cache 32K > "$WORK/r.txt"
"$AUGUR" report --db "$DB" --run 5 --scopes --threshold 0 > "$WORK/s.txt"
"$AUGUR" predict --db "$DB" --param N=4000 > "$WORK/p.txt" 2>/dev/null
"$AUGUR" predict --db "$DB" --param N=4000 --machine zen4 > "$WORK/pm.txt" 2>/dev/null
for v in r s p pm; do
    w=$(widest "$WORK/$v.txt")
    check "$v.txt: lines under 160 columns" "$([ "$w" -lt 160 ] && echo yes || echo "no ($w)")" yes
done
# the Functions tables' rows of the two, by their shortened names and module
check "report text: the sort shortened" \
    "$(grep -cE '  void std::__introsort_loop<\.\.\.>\(\) +cxxnames_cc$' "$WORK/r.txt")" 1
check "predict text: the lambda shortened" \
    "$(grep -cE '  main::\{lambda\(\)#1\}::operator\(\)\(\) const +cxxnames_cc$' "$WORK/p.txt")" 1
"$AUGUR" predict --db "$DB" --param N=4000 --format json > "$WORK/p.json" 2>/dev/null
for name in "$SORT" "$LAMBDA" "$TOTAL"; do
    check "report JSON keeps ${name:0:40}" "$(jq --arg f "$name" '[.functions[] | select(.function == $f)] | length' "$WORK/r.json")" 1
    check "predict JSON keeps ${name:0:40}" "$(jq --arg f "$name" '[.functions[] | select(.function == $f)] | length' "$WORK/p.json")" 1
done
finish
