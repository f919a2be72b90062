#!/bin/bash
# Conditional-branch taken counts and indirect-call targets against closed
# forms (tests/programs/patterns.c), read from the raw profile.
source "$TESTLIB"
K=100 R=7

# branches_of PROFILE FUNCTION — "EXECS TAKEN" of each conditional branch of FUNCTION.
branches_of() {
    awk -v want="$2" '$1 == "fn" { name[$2] = $3 }
        $1 == "ins" { mine = (name[$5] == want); execs = $8 }
        $1 == "br" && mine { print execs, $2 }' "$1"
}

# The sweep's inner loop runs K iterations per sweep, R sweeps: whatever
# form the compiler gives it, one conditional branch executes K*R times and
# is taken either K-1 times per sweep (the back edge) or once (the exit).
collect_to "$WORK/sweep" -- "$PROGRAMS/patterns" sweep $K $R
p=$(main_profile "$WORK/sweep")
inner=$(branches_of "$p" sweep | awk -v n=$((K * R)) '$1 == n { print $2 }')
want="$((R * (K - 1))) or $R"
[ "$inner" = $((R * (K - 1))) ] || [ "$inner" = $R ] && want=$inner
check "inner loop branch taken" "${inner:-none}" "$want"
# And for every branch of the function, taken <= executed.
check "taken never exceeds executions" "$(branches_of "$p" sweep | awk '$2 > $1' | wc -l)" 0
check "sweep has conditional branches" "$(branches_of "$p" sweep | wc -l | awk '{ print ($1 > 0) }')" 1

# Indirect calls: K calls alternating between add_one and add_two.
collect_to "$WORK/indirect" -- "$PROGRAMS/patterns" indirect $K 0
p=$(main_profile "$WORK/indirect")
line=$(line_of CALL:indirect "$SRC_PROGRAMS/patterns.c")
addr_of() { nm "$PROGRAMS/patterns" | awk -v f="$1" '$3 == f { sub(/^0+/, "", $1); print $1 }'; }
targets=$(awk -v want_line="$line" '
    $1 == "file" { path[$2] = $3 }
    $1 == "ins" { p = path[$6]; mine = (p ~ /patterns\.c$/ && $7 == want_line) }
    $1 == "ind" && mine { print $3, $4 }' "$p" | sort)
want=$(printf '%s %s\n%s %s\n' "$(addr_of add_one)" $((K / 2)) "$(addr_of add_two)" $((K / 2)) | sort)
check "indirect call targets and counts" "$targets" "$want"
finish
