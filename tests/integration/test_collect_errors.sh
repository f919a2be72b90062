#!/bin/bash
# Bad input to `augur collect` gets a clear error, the documented exit status,
# and leaves the database as it was (or not created at all).
source "$TESTLIB"
DB=$WORK/errors.db

# expect_error NAME STATUS PATTERN ARGS... — augur collect ARGS exits with
# STATUS and says something matching PATTERN on stderr.
expect_error() {
    local name=$1 status=$2 pattern=$3
    shift 3
    "$AUGUR" collect "$@" >/dev/null 2>"$WORK/err"
    check "$name: status" "$?" "$status"
    check "$name: message" "$(grep -c -E -- "$pattern" "$WORK/err")" 1
}

expect_error "missing program" 127 "not found" --db "$DB" -- /nonexistent/program
expect_error "program not in PATH" 127 "not found in PATH" --db "$DB" -- no-such-program-xyz
expect_error "not executable" 126 "not executable" --db "$DB" -- "$SRC_PROGRAMS/patterns.c"
expect_error "malformed param" 2 "not NAME=VALUE" --db "$DB" --param N -- /bin/true
expect_error "non-numeric param" 2 "must be a decimal number" --db "$DB" --param N=abc -- /bin/true
expect_error "hexadecimal param" 2 "must be a decimal number" --db "$DB" --param N=0x10 -- /bin/true
expect_error "bad param name" 2 "name must be" --db "$DB" --param 1N=3 -- /bin/true
expect_error "duplicate param" 2 "given twice" --db "$DB" --param N=1 --param N=2 -- /bin/true
expect_error "bad block sizes" 2 "powers of two" --db "$DB" --block-sizes 64,100 -- /bin/true
expect_error "no program" 2 "no program given" --db "$DB"
expect_error "unknown option" 2 "unknown option" --frobnicate -- /bin/true
expect_error "database folder missing" 125 "not writable" --db "$WORK/no-such-folder/augur.db" -- /bin/true
: >"$WORK/afile"
expect_error "kept folder is a file" 125 "is a file, not a folder" --db "$DB" --keep-profiles "$WORK/afile" -- /bin/touch "$WORK/ran"
check "kept folder is a file: refused before the run" "$(ls "$WORK/ran" 2>/dev/null | wc -l)" 0
check "nothing created so far" "$(ls "$DB" 2>/dev/null | wc -l)" 0

# A file that is not an augur database is refused, and left untouched.
echo "not a database" >"$WORK/text.db"
"$AUGUR" collect --db "$WORK/text.db" -- /bin/true >/dev/null 2>"$WORK/err"
check "not a database: status" "$?" 125
check "not a database: untouched" "$(cat "$WORK/text.db")" "not a database"

# AVX-512 (only where the compiler can emit it; the host need not run it:
# Valgrind refuses EVEX-encoded instructions before executing them).
cat >"$WORK/avx512.c" <<'C'
int main(void) { __asm__ volatile("vpxord %%zmm1, %%zmm1, %%zmm1" ::: "xmm1"); return 0; }
C
if cc -O1 -mavx512f "$WORK/avx512.c" -o "$WORK/avx512" 2>/dev/null; then
    expect_error "AVX-512" 125 "AVX-512" --db "$DB" -- "$WORK/avx512"
    check "AVX-512: fix named" "$(grep -c 'x86-64-v3' "$WORK/err")" 1
    check "AVX-512: nothing stored" "$(ls "$DB" 2>/dev/null | wc -l)" 0
fi

# The collector tool run directly with a missing or bad option stops before
# the program runs, with status 1 (Valgrind 3.19 alone would run it and exit 0).
VGLIB="$(dirname "$AUGUR")/vglib"
for opts in "" "--augur-out=$WORK --augur-block-sizes=64,100" "--augur-out=$WORK --augur-block-sizes=4294967296"; do
    # shellcheck disable=SC2086  # opts is a list of words
    VALGRIND_LIB="$VGLIB" valgrind -q --tool=augur $opts /bin/echo ran >"$WORK/out" 2>"$WORK/err"
    check "tool with '$opts': status" "$?" 1
    check "tool with '$opts': program not run" "$(cat "$WORK/out")" ""
    check "tool with '$opts': says so" "$(grep -c 'Bad option' "$WORK/err")" 1
done

# A good run, then bad ones: the database keeps exactly the good run.
"$AUGUR" collect --db "$DB" --param N=1 -- /bin/true 2>/dev/null
check "good run" "$?" 0
before=$(sqlite3 "$DB" 'select count(*) from runs')
expect_error "bad run after good" 127 "not found" --db "$DB" -- /nonexistent/program
check "database unchanged" "$(sqlite3 "$DB" 'select count(*) from runs')" "$before"

# Block sizes are checked as the tool checks them, before the program runs:
# "64," was taken, and sizes past 2^30 the tool refused (or took as 0) only
# once Valgrind had started.
for sizes in "64," ",64" " 64" "64,,4096" "64,8589934592" "2147483648" "+64" "8,16,32,64,128,256,512,1024,2048"; do
    expect_error "block sizes '$sizes'" 2 "give ascending powers of two from 8 to 1073741824" \
        --db "$DB" --block-sizes "$sizes" -- /bin/touch "$WORK/ran"
    check "block sizes '$sizes': program not run" "$(ls "$WORK/ran" 2>/dev/null | wc -l)" 0
done

# A damaged database is found before the program runs (it used to run, then
# the import failed): a page of the instructions table overwritten, or a
# table gone.  The database is left as it was.
cp "$DB" "$WORK/damaged.db"
page=$(sqlite3 "$WORK/damaged.db" 'pragma page_size')
root=$(sqlite3 "$WORK/damaged.db" "select rootpage from sqlite_master where name = 'instructions'")
printf '\x0f\xff\xff\xff\xff\xff\xff\xff' | dd of="$WORK/damaged.db" bs=1 seek=$(( (root - 1) * page )) conv=notrunc 2>/dev/null
cp "$WORK/damaged.db" "$WORK/damaged.copy"
expect_error "damaged page" 125 "damaged.db is damaged: SQLite's quick_check found: .*Page $root: .*\(restore it from a copy, or give another --db\)" \
    --db "$WORK/damaged.db" -- /bin/touch "$WORK/ran"
check "damaged page: program not run" "$(ls "$WORK/ran" 2>/dev/null | wc -l)" 0
check "damaged page: database as it was" "$(cmp "$WORK/damaged.db" "$WORK/damaged.copy" && echo same)" same
cp "$DB" "$WORK/schema.db"
sqlite3 "$WORK/schema.db" 'drop table branch_targets'
expect_error "table dropped" 125 "schema.db is damaged: its schema lacks branch_targets.instruction_id" \
    --db "$WORK/schema.db" -- /bin/touch "$WORK/ran"
check "table dropped: program not run" "$(ls "$WORK/ran" 2>/dev/null | wc -l)" 0
# Programs the loader cannot list (static, a script) are collected, not
# refused: the MPI check (collect_mpi.c) asks ld.so --list for an MPI
# library, which fails on them (it refused both with exit 125).
printf 'void _start(void){__asm__ volatile("mov $60,%%eax; mov $7,%%edi; syscall");}\n' >"$WORK/static.c"
gcc -O1 -static -nostdlib -fno-pie -no-pie -o "$WORK/static" "$WORK/static.c"
"$AUGUR" collect --db "$WORK/static.db" -- "$WORK/static" >/dev/null 2>&1
check "a static program: collected, its exit status passed on" "$?" 7
printf '#!/bin/sh\nexit 5\n' >"$WORK/script.sh" && chmod +x "$WORK/script.sh"
"$AUGUR" collect --db "$WORK/script.db" -- "$WORK/script.sh" >/dev/null 2>&1
check "a script: collected, its exit status passed on" "$?" 5
finish
