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

for cmd in report predict structure; do
    refused "$cmd --format xml" \
        "augur $cmd: bad format 'xml': give --format text or --format json (see augur $cmd --help)" \
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
finish
