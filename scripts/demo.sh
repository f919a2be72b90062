#!/bin/bash
# demo.sh — set up, build, then collect the example matrix multiply at three
# sizes and report its counts and fully-associative cache misses.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
DB=build/demo.db
rm -f "$DB"
for n in 32 64 96; do
    build/augur collect --db "$DB" --param N=$n -- build/examples/matmul $n
done
sqlite3 -header -column "$DB" 'select id, params, status, command from run_list'
echo
build/augur report --db "$DB" --cache 32K --cache 1M --top 10
