#!/bin/bash
# test_source_paths.sh — source file paths agree between the Valgrind tools
# (collector, memspy) and the structure analysis, and are not doubled
# (docs/profile-format.md, "Source file paths").  ld.so's debug file (Debian
# 12's libc6-dbg) is DWARF 5 with DW_AT_comp_dir "./elf" (glibc is built with
# -fdebug-prefix-map); `readelf --debug-dump=rawline` shows rtld.c under
# directory entry 0 ("./elf") and ldsodefs.h under entry "../sysdeps/generic",
# so by hand their paths from the build root are elf/rtld.c and
# sysdeps/generic/ldsodefs.h (Valgrind 3.19 alone gave ./elf/./elf/rtld.c
# and ./elf/../sysdeps/generic/ldsodefs.h; libdw ./elf/rtld.c and
# ../sysdeps/generic/ldsodefs.h).  The program's own files (absolute
# comp_dir) keep their absolute paths.
source "$TESTLIB"
PROG="$PROGRAMS/kernels_O2"
SRC=$(realpath "$SRC_PROGRAMS/structure/kernels.c")
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2)
id=$(readelf -n "$LDSO" | awk '/Build ID/ { print $3 }')
if [ ! -r "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]; then
    echo "SKIP: ld.so's debug file is not installed (apt-get install libc6-dbg)"
    exit 0
fi
DB="$WORK/test.db"

# ---- the collector's profile -------------------------------------------------
mkdir -p "$WORK/prof"
collect_to "$WORK/prof" --param N=16 -- "$PROG" 16
check "collect exit" "$?" 0
PROF=$(main_profile "$WORK/prof")
grep -a '^file ' "$PROF" | cut -d' ' -f3- > "$WORK/prof.files"
check "profile: rtld.c named elf/rtld.c" "$(grep -cx 'elf/rtld.c' "$WORK/prof.files")" 1
check "profile: ldsodefs.h named sysdeps/generic/ldsodefs.h" \
    "$(grep -cx 'sysdeps/generic/ldsodefs.h' "$WORK/prof.files")" 1
check "profile: no '.' component, no 'name/..' in any path" \
    "$(grep -cE '(^|/)\.(/|$)|(^|/)([^./][^/]*|\.[^./][^/]*)/\.\.(/|$)' "$WORK/prof.files")" 0
check "profile: the program's file keeps its absolute path" "$(grep -cx "$SRC" "$WORK/prof.files")" 1

# ---- the same names in the report and the structure analysis -------------------
"$AUGUR" structure --db "$DB" --libs --format json "$PROG" > "$WORK/s.json" 2>"$WORK/s.err"
check "structure --libs exit" "$?" 0
"$AUGUR" report --db "$DB" --format json --top 0 --show-startup > "$WORK/r.json"
check "report exit" "$?" 0
# (function, file) of every function scope of ld.so with a file
jq -r '.children[] | select(.name == "ld-linux-x86-64.so.2") | .children[]
       | select(.kind == "function" and .file != null) | "\(.name)\t\(.file)"' "$WORK/s.json" |
    sort -u > "$WORK/ld.fnfile"
# (function, file) of every line of the report
jq -r '.lines[] | select(.file != null) | "\(.function)\t\(.file)"' "$WORK/r.json" | sort -u > "$WORK/r.fnfile"
# functions that ran in ld.so alone (report lines carry no module: memchr,
# __sigjmp_save... of libc share ld.so's names)
jq -r '[.functions[] | {f: .function, m: (.module // "")}] | group_by(.f)[]
       | select(length == 1 and (.[0].m | endswith("/ld-linux-x86-64.so.2"))) | .[0].f' "$WORK/r.json" |
    sort -u > "$WORK/ld.ran"
ran=$(cut -f1 "$WORK/ld.fnfile" | sort -u | comm -12 - "$WORK/ld.ran" | wc -l)
both=$(comm -12 "$WORK/ld.fnfile" "$WORK/r.fnfile" | cut -f1 | comm -12 - "$WORK/ld.ran" | wc -l)
check "ld.so: more than 20 functions ran" "$([ "$ran" -gt 20 ] && echo yes)" yes
check "ld.so: every function that ran has lines in its structure file, by the same name" "$both" "$ran"
check "structure: _dl_relocate_object's file is elf/dl-reloc.c" \
    "$(grep -P '^_dl_relocate_object\t' "$WORK/ld.fnfile" | cut -f2)" elf/dl-reloc.c
check "structure: the program's matmul keeps the absolute path" \
    "$(jq -r '.children[0].children[] | select(.name == "matmul") | .file' "$WORK/s.json")" "$SRC"

# report --scopes: every file of an ld.so scope (function, loop, inlined) that ran
"$AUGUR" report --db "$DB" --scopes --format json > "$WORK/sc.json"
check "report --scopes exit" "$?" 0
jq -r '.. | objects | select(.kind == "module" and .name == "ld-linux-x86-64.so.2")
       | .. | objects | select(.kind == "loop") | .file' "$WORK/sc.json" | sort -u > "$WORK/sc.files"
cut -f2 "$WORK/r.fnfile" | sort -u > "$WORK/r.files"
check "report --scopes: ld.so has loops with files" "$([ -s "$WORK/sc.files" ] && echo yes)" yes
check "report --scopes: every ld.so loop's file is a file of the report's lines" \
    "$(comm -23 "$WORK/sc.files" "$WORK/r.files" | wc -l)" 0

# ---- memspy's raw file ---------------------------------------------------------
"$AUGUR" memspy --machine zen4 --keep-raw "$WORK/m.raw" --output "$WORK/m.txt" -- /bin/true
check "memspy exit" "$?" 0
grep -a '^file ' "$WORK/m.raw" | cut -d' ' -f3- > "$WORK/m.files"
check "memspy: rtld.c named elf/rtld.c" "$(grep -cx 'elf/rtld.c' "$WORK/m.files")" 1
check "memspy: no '.' component, no 'name/..' in any path" \
    "$(grep -cE '(^|/)\.(/|$)|(^|/)([^./][^/]*|\.[^./][^/]*)/\.\.(/|$)' "$WORK/m.files")" 0
finish
