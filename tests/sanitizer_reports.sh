#!/bin/bash
# sanitizer_reports.sh — the sanitized build's report folder
# (tests/CMakeLists.txt, docs/testing.md): each test there sends its
# AddressSanitizer and UBSan reports to files DIR/TEST.asan.PID and
# DIR/TEST.ubsan.PID instead of its standard error.
#
# usage: sanitizer_reports.sh clear DIR   empty DIR before the tests
#        sanitizer_reports.sh check DIR   after them: fail, showing each
#                                         report, if there is any
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 clear|check DIR" >&2; exit 2; }
dir=$2
case $1 in
clear)
    rm -rf "$dir"
    mkdir -p "$dir"
    ;;
check)
    shopt -s nullglob
    reports=("$dir"/*)
    if [ ${#reports[@]} -eq 0 ]; then
        echo "no sanitizer reports in $dir"
        exit 0
    fi
    for r in "${reports[@]}"; do
        echo "=== $(basename "$r") (test, sanitizer, process id)"
        head -c 20000 "$r"
    done
    echo "${#reports[@]} sanitizer reports in $dir: each is a finding while the test its file names ran" >&2
    exit 1
    ;;
*)
    echo "usage: $0 clear|check DIR" >&2
    exit 2
    ;;
esac
