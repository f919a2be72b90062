#!/bin/bash
# test_cli_options.sh — the options several subcommands share (--format
# text|json, --top N, --cache SIZE[:LINE], parsed once in src/cli/options.c):
# each subcommand refuses a bad value with exit status 2 and the same
# message, word for word, naming itself and the fix.
source "$TESTLIB"

# refused NAME WANT ARGS... — augur ARGS exits 2 and its stderr is WANT.
refused() {
    local name=$1 want=$2
    shift 2
    "$AUGUR" "$@" > /dev/null 2> "$WORK/err"
    check "$name: exit" "$?" 2
    check "$name: message" "$(cat "$WORK/err")" "$want"
}

refused "structure --format xml" \
    "augur structure: bad format 'xml': give --format text or --format json (see augur structure --help)" \
    structure --format xml
for cmd in report predict; do
    refused "$cmd --format xml" \
        "augur $cmd: bad format 'xml': give --format text, --format json or --format callgrind (see augur $cmd --help)" \
        $cmd --format xml
done
for cmd in report predict; do
    refused "$cmd --top x" "augur $cmd: bad --top 'x': give a number of rows (0 for all) (see augur $cmd --help)" \
        $cmd --top x
    refused "$cmd --top -1" "augur $cmd: bad --top '-1': give a number of rows (0 for all) (see augur $cmd --help)" \
        $cmd --top -1
    many=()
    for i in $(seq 17); do many+=(--cache 32K); done
    refused "$cmd: 17 caches" "augur $cmd: too many --cache options (at most 16) (see augur $cmd --help)" \
        $cmd "${many[@]}"
    refused "$cmd --cache 3Q" "augur $cmd: bad cache '3Q': write SIZE[:LINE] in bytes with an optional suffix K, KiB, M, MiB, G or GiB, e.g. 32K, 1MiB:64 or 8M:128 (see augur $cmd --help)" \
        $cmd --cache 3Q
done

# Options that would do nothing are refused, not ignored; a bad --basis is a
# usage error (2), as a bad --runs is; a folder is not a machine description.
refused "report --threshold without --scopes" \
    "augur report: --threshold goes with --scopes (it leaves small scopes out of the scope view) (see augur report --help)" \
    report --threshold 5
refused "report --scopes --cache" \
    "augur report: --scopes shows no cache misses and every scope above --threshold: --cache does nothing there (leave it out, or drop --scopes) (see augur report --help)" \
    report --scopes --cache 32K
refused "report --scopes --top" \
    "augur report: --scopes shows no cache misses and every scope above --threshold: --top does nothing there (leave it out, or drop --scopes) (see augur report --help)" \
    report --scopes --top 3
refused "model --show --runs" \
    "augur model: --show prints the newest model set as stored; --runs, --include-failed, --param, --basis and --jobs choose what a new fit uses (run augur model with them, then --show) (see augur model --help)" \
    model --show --runs 1-3
"$AUGUR" model --db "$WORK/none.db" --basis 'N^^2' > /dev/null 2> "$WORK/err"
check "model --basis 'N^^2': exit" "$?" 2
check "model --basis 'N^^2': message" "$(grep -c "^augur model: --basis: bad basis term \"N^^2\": expected a number after '^'" "$WORK/err")" 1
"$AUGUR" machine check "$WORK" > /dev/null 2> "$WORK/err"
check "machine check FOLDER: exit" "$?" 1
check "machine check FOLDER: message" "$(cat "$WORK/err")" \
    "augur machine: $WORK is a folder, not a machine description (give a file such as machines/zen4.yaml, or a name from 'augur machine list')"

# The hint after a run pastes into a shell as is: the path is quoted.
mkdir -p "$WORK/a b"
"$AUGUR" collect --db "$WORK/a b/my db ü.db" -- /bin/true 2> "$WORK/err"
check "collect hint quoted" "$(grep '^augur: see it with' "$WORK/err")" \
    "augur: see it with: augur report --db '$WORK/a b/my db ü.db' --run 1"
hint=$(sed -n "s/^augur: see it with: augur //p" "$WORK/err")
eval "\"\$AUGUR\" $hint" > /dev/null 2>&1
check "collect hint runs" "$?" 0
finish
