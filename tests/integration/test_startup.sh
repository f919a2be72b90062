#!/bin/bash
# test_startup.sh — the dynamic loader's and the C runtime's start-up and
# exit code are out of the rankings of `augur report`, `augur predict` and
# `augur memspy` by default, summed in one line, and listed with
# --show-startup (src/binary/startup.h; docs/report.md, "Start-up and
# loader").  The program, tests/programs/ifunc_sum.c, sums N doubles R
# times through an IFUNC whose resolver the loader runs: before this rule,
# 17 of the top 20 functions of such a small run were the loader's.
# The hidden rows are found by comparing the default JSON with the
# --show-startup JSON (both --top 0); what must be among them is known
# independently of augur: every function of ld-linux-x86-64.so.2, the
# program's own resolver (`sum`, type IFUNC in readelf -s), libc's
# functions named as IFUNC symbols of libc in readelf -s (their
# resolvers); what must not be: main and sum_doubles, which do the work.
source "$TESTLIB"
PROG="$PROGRAMS/ifunc_sum"
DB="$WORK/s.db"
R=10

for n in 1000 2000 3000 4000 5000; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$PROG" $n $R >/dev/null 2>&1
done

# ---- report -----------------------------------------------------------------
"$AUGUR" report --db "$DB" > "$WORK/r.txt"
check "report exit" "$?" 0
"$AUGUR" report --db "$DB" --format json --top 0 > "$WORK/r.json"
"$AUGUR" report --db "$DB" --format json --top 0 --show-startup > "$WORK/all.json"
"$AUGUR" report --db "$DB" --show-startup > "$WORK/all.txt"

# fnmod JSON — "function<TAB>module base name" of every function row, sorted.
fnmod() {
    jq -r '.functions[] | "\(.function // "(unknown)")\t\((.module // "(unknown)") | split("/") | last)"' "$1" | sort
}
fnmod "$WORK/r.json" > "$WORK/shown"
fnmod "$WORK/all.json" > "$WORK/every"
comm -13 "$WORK/shown" "$WORK/every" > "$WORK/hidden"
check "report: the --show-startup rows are the shown ones and the hidden ones" \
    "$(comm -23 "$WORK/shown" "$WORK/every" | wc -l)" 0

top20() { sed -n '/^Functions/,/^$/p' "$1" | sed -n '3,22p'; }
check "report: no loader function among the top 20" "$(top20 "$WORK/r.txt" | grep -c 'ld-linux')" 0
check "report: --show-startup ranks them as before (loader rows in the top 20)" \
    "$(top20 "$WORK/all.txt" | grep -c 'ld-linux' | awk '{ print ($1 > 10) }')" 1
check "report: the program's work first" "$(top20 "$WORK/r.txt" | head -n 1 | awk '{ print $6 }')" sum_doubles
check "report: every loader function hidden" \
    "$(grep -c $'\tld-linux' "$WORK/every") $(grep -c $'\tld-linux' "$WORK/hidden")" \
    "$(grep -c $'\tld-linux' "$WORK/every") $(grep -c $'\tld-linux' "$WORK/every")"
check "report: the program's IFUNC resolver hidden" "$(grep -c $'^sum\tifunc_sum$' "$WORK/hidden")" 1
check "report: its implementation and main shown" \
    "$(grep -c -e $'^sum_doubles\tifunc_sum$' -e $'^main\tifunc_sum$' "$WORK/shown")" 2

# libc's IFUNC symbols (readelf), as the run names their code (without a version).
LIBC=$(jq -r '[.functions[].module // empty | select(test("/libc[.]so"))][0]' "$WORK/all.json")
readelf -Ws "$LIBC" | awk '$4 == "IFUNC" { sub(/@.*/, "", $8); print $8 }' | sort -u > "$WORK/libc.ifunc"
awk -F'\t' '$2 ~ /^libc[.]so/ { n = $1; sub(/@.*/, "", n); print n }' "$WORK/every" | sort -u |
    comm -12 - "$WORK/libc.ifunc" > "$WORK/ran.ifunc"
awk -F'\t' '$2 ~ /^libc[.]so/ { n = $1; sub(/@.*/, "", n); print n }' "$WORK/hidden" | sort -u > "$WORK/hidden.libc"
check "report: libc's IFUNC resolvers that ran (more than 10) are hidden" \
    "$(awk 'END { print (NR > 10) }' "$WORK/ran.ifunc") $(comm -23 "$WORK/ran.ifunc" "$WORK/hidden.libc" | wc -l)" "1 0"
check "report: __libc_start_main hidden" "$(grep -c '^__libc_start_main' "$WORK/hidden")" 1

# The sums: hidden rows' instructions and count, and with the shown ones the total.
startup=$(jq '.startup.instructions' "$WORK/r.json")
hidden_sum=$(jq -r --rawfile h "$WORK/hidden" '($h | split("\n") | map(select(length > 0))) as $hs |
    [.functions[] | select(("\(.function // "(unknown)")\t\((.module // "(unknown)") | split("/") | last)") as $k |
     $hs | index($k)) | .instructions] | add' "$WORK/all.json")
check "report: startup.instructions are the hidden rows' instructions" "$startup" "$hidden_sum"
check "report: startup.functions counts them" "$(jq '.startup.functions' "$WORK/r.json")" "$(wc -l < "$WORK/hidden")"
check "report: shown + start-up = total" \
    "$(jq '([.functions[].instructions] | add) + .startup.instructions' "$WORK/r.json")" \
    "$(jq '.total.instructions' "$WORK/r.json")"
check "report: function_count counts every function" "$(jq '.function_count' "$WORK/r.json")" "$(wc -l < "$WORK/every")"
check "report: the text's one line, with the JSON's numbers" \
    "$(sed -n 's/^  start-up and loader: \([0-9,]*\) instructions ([0-9.]*%) in \([0-9,]*\) functions, hidden; --show-startup lists them$/\1 \2/p' "$WORK/r.txt" | tr -d ,)" \
    "$(jq -r '"\(.startup.instructions) \(.startup.functions)"' "$WORK/r.json")"
check "report: --show-startup has no such line" "$(grep -c 'start-up and loader' "$WORK/all.txt")" 0
# A line is hidden with its function: no shown line belongs to a function
# that only the loader has.
cut -f1 "$WORK/hidden" | sort -u > "$WORK/hidden.names"
cut -f1 "$WORK/shown" | sort -u | comm -13 - "$WORK/hidden.names" > "$WORK/only.hidden"
check "report: no shown line of a hidden-only function" \
    "$(jq -r '.lines[].function // empty' "$WORK/r.json" | sort -u | comm -12 - "$WORK/only.hidden" | wc -l)" 0
check "report: lines hidden, counted" "$(jq '.startup.lines > 100 and .line_count == ([.lines[]] | length) + .startup.lines' \
    "$WORK/r.json")" true
"$AUGUR" report --db "$DB" --scopes --show-startup >/dev/null 2>"$WORK/err"
check "report --scopes --show-startup: a usage error" "$?" 2

# --machine: its functions table leaves them out too.
"$AUGUR" report --db "$DB" --machine zen4 --top 0 > "$WORK/m.txt" 2>/dev/null
check "report --machine: no loader function in its functions table" \
    "$(sed -n '/^Functions (time/,$p' "$WORK/m.txt" | grep -c -e '_dl_' -e 'do_lookup_x')" 0

# ---- predict ----------------------------------------------------------------
"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
"$AUGUR" predict --db "$DB" --param N=20000 --format json --top 0 > "$WORK/p.json" 2>/dev/null
check "predict exit" "$?" 0
"$AUGUR" predict --db "$DB" --param N=20000 --format json --top 0 --show-startup > "$WORK/pall.json" 2>/dev/null
"$AUGUR" predict --db "$DB" --param N=20000 > "$WORK/p.txt" 2>/dev/null
check "predict: no loader function" "$(jq '[.functions[] | select(.module // "" | test("ld-linux"))] | length' "$WORK/p.json")" 0
check "predict: --show-startup lists them" \
    "$(jq '[.functions[] | select(.module // "" | test("ld-linux"))] | length > 20' "$WORK/pall.json")" true
check "predict: shown + start-up = total" \
    "$(jq '([.functions[].instructions] | add) + .startup.instructions == .total.instructions' "$WORK/p.json")" true
check "predict: hidden = the rows --show-startup adds" \
    "$(jq '.startup.functions' "$WORK/p.json")" "$(jq '(.functions | length) - 0' "$WORK/pall.json" |
        awk -v shown="$(jq '.functions | length' "$WORK/p.json")" '{ print $1 - shown }')"
check "predict: every shown function carries its error (index for index)" \
    "$(jq '[.functions[] | has("cv_error_percent")] | all' "$WORK/p.json")" true
check "predict: the text's one line" "$(grep -c '^  start-up and loader: .* functions, hidden; --show-startup lists them$' "$WORK/p.txt")" 1
check "predict: the errors table has no loader function" \
    "$(sed -n '/^Model errors/,/^$/p' "$WORK/p.txt" | grep -c -e '_dl_' -e 'do_lookup_x')" 0

# ---- memspy -----------------------------------------------------------------
"$AUGUR" memspy --machine zen4 --keep-raw "$WORK/raw" --output "$WORK/ms.txt" -- "$PROG" 2000 $R 2>/dev/null
check "memspy exit" "$?" 0
for v in default show; do
    flag=$([ $v = show ] && echo --show-startup)
    "$AUGUR" memspy --machine zen4 --raw "$WORK/raw" --format json --output "$WORK/ms.$v.json" $flag 2>/dev/null
done
"$AUGUR" memspy --machine zen4 --raw "$WORK/raw" --show-startup --top 0 --output "$WORK/msall.txt" 2>/dev/null
check "memspy: no loader function in the text" "$(grep -c -e '_dl_relocate_object' -e 'do_lookup_x' "$WORK/ms.txt")" 0
check "memspy: --show-startup lists them" \
    "$(grep -c -e '_dl_relocate_object' -e 'do_lookup_x' "$WORK/msall.txt" | awk '{ print ($1 > 0) }')" 1
check "memspy: hidden functions = the ones --show-startup adds" \
    "$(jq '.startup.functions' "$WORK/ms.default.json")" \
    "$(( $(jq '[.code_objects[] | select(.kind == "function")] | length' "$WORK/ms.show.json") -
         $(jq '[.code_objects[] | select(.kind == "function")] | length' "$WORK/ms.default.json") ))"
check "memspy: hidden data objects = the ones --show-startup adds" \
    "$(jq '.startup.data_objects' "$WORK/ms.default.json")" \
    "$(( $(jq '.data_objects | length' "$WORK/ms.show.json") - $(jq '.data_objects | length' "$WORK/ms.default.json") ))"
check "memspy: the loader's functions are among the hidden" \
    "$(jq '[.code_objects[] | select(.kind == "function" and (.name | test("^_dl_")))] | length' "$WORK/ms.default.json")" 0
check "memspy: the stall of start-up code is that of the pairs --show-startup adds" \
    "$(jq '.startup.stall_cycles | round' "$WORK/ms.default.json")" \
    "$(jq -n --slurpfile a "$WORK/ms.show.json" --slurpfile d "$WORK/ms.default.json" \
        '(([$a[0].pairs[].stall_cycles] | add) - ([$d[0].pairs[].stall_cycles] | add)) | round')"
check "memspy: the text's one line" "$(grep -c '^  start-up and loader: [0-9.]*% of stall in [0-9]* functions.*, hidden below; --show-startup lists them$' \
    "$WORK/ms.txt")" 1

finish
