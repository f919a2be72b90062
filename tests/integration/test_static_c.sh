#!/bin/bash
# test_static_c.sh — `augur static --format c` (docs/static.md, "C"): the
# header and source of tests/static/kernels.c's model, and of
# annotations.c's (branch ratios: double weights), compiled with gcc; every
# function's counts at several values of the unknowns equal the Python
# module's, and at n = 12 and 16 the JSON's `values`; the single translation
# unit on stdout compiles; -o without --format c is a usage error, and an
# unwritable PREFIX leaves nothing behind.
source "$TESTLIB"
SRC_STATIC="$(cd "$SRC_PROGRAMS/../static" && pwd)"
DRIVER="$SRC_STATIC/c_driver.py"
K2="$PROGRAMS/static_kernels_O2"
cd "$WORK" || exit 1

# c_against_python NAME VALUES -- ARGS: the C model of ARGS called through a
# generated driver, against the Python module
c_against_python() {
    local name="$1" values="$2"
    shift 3
    "$AUGUR" static --format c -o "$name" "$@" 2>/dev/null || return
    "$AUGUR" static --format python "$@" >"${name}_py.py" 2>/dev/null || return
    python3 "$DRIVER" write "${name}_py" "$name.h" $values >"${name}_driver.c" &&
        gcc -std=c99 -Wall -Wextra -Werror -O1 -o "${name}_driver" "${name}_driver.c" "$name.c" &&
        "./${name}_driver" >"$name.out" && python3 "$DRIVER" check "${name}_py" "$name.out" $values
}

check "kernels: C equals Python at n = 0, 1, 2, 9, 12, 16, 31 (13 functions)" \
    "$(c_against_python km "0 1 2 9 12 16 31" -- "$K2")" "agree 91"
check "annotations: C equals Python with ratios of 1/4 (10 functions)" \
    "$(c_against_python ka "0 3 8 13" -- "$K2" -- "$SRC_STATIC/annotations.c")" "agree 40"
check "closed forms: dense 2n^3 flops, 3n^3 loads, n^3 stores, 32n^3 bytes; modulo n - ceil(n/4) at n = 31" \
    "$(grep '^dense_1 12 ' km.out | cut -d' ' -f3-6) $(grep '^modulo_2 31 ' km.out | cut -d' ' -f3)" "3456 5184 1728 55296 23"
# unknowns named like what the generated code could have used (c, s) stay the unknowns
printf 'double sum(int c, int s, const double *x)\n{\n    double t = 0;\n    for (int i = 0; i < c + s; i += 3)\n        t += x[i];\n    return t;\n}\n' >clash.c
check "an unknown named c: C equals Python at c = s = 0, 5, 11" \
    "$(c_against_python kc "0 5 11" -- "$K2" -- "$WORK/clash.c")" "agree 3"
check "the header declares the struct and a function per source function" \
    "$(grep -c '^augur_counts [a-z0-9_]*_[0-9]*(.*);$' km.h) $(grep -c 'typedef struct augur_counts' km.h)" "13 1"
check "a ratio is a double parameter" "$(grep -c '^augur_counts ratios_2(int64_t n, double ratio_[0-9]*)$' ka.c)" 1

# the JSON's values: every function whose unknowns are n, at n = 12 and 16
for n in 12 16; do
    "$AUGUR" static --format json --param n=$n "$K2" 2>/dev/null |
        jq -r --argjson n $n '.functions[] | select(.values) | "\(.name) \($n) \(.values.flops) \(.values.loads) \(.values.stores) \(.values.bytes) \(.values.statements)"' \
        >"json.$n"
done
check "C equals the JSON's values at n = 12 and 16" \
    "$(cat json.12 json.16 | while read -r f n rest; do grep "^${f}_[0-9]* $n " km.out | cut -d' ' -f3-; done |
        diff - <(cut -d' ' -f3- json.12 json.16) && echo same)" same
check "the JSON's values cover the functions in n (all but axpy, in m)" "$(cat json.12 json.16 | wc -l)" 24

# one translation unit on stdout
"$AUGUR" static --format c "$K2" >one.c 2>/dev/null
check "stdout: exit 0" "$?" 0
check "stdout: one translation unit that compiles" \
    "$(gcc -std=c99 -Wall -Wextra -Werror -c -o one.o one.c 2>&1 && echo compiled)" compiled

# bad input
"$AUGUR" static -o x "$K2" >/dev/null 2>err
check "-o without --format c: usage error" "$?" 2
check "-o without --format c: says what to add" "$(grep -c 'give --format c with it' err)" 1
"$AUGUR" static --format c -o "$WORK/none/x" "$K2" >out 2>err
check "an unwritable PREFIX: exit 1" "$?" 1
check "an unwritable PREFIX: named" "$(grep -c "none/x.h" err)" 1
check "an unwritable PREFIX: nothing written" "$(ls "$WORK" | grep -c '^none\|^x\.')" 0
finish
