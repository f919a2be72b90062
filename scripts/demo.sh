#!/bin/bash
# demo.sh — set up, build, then collect the example matrix multiply at five
# sizes, report its counts and fully-associative cache misses, its loops
# (augur structure) and its counts per function and loop (report --scopes),
# fit models of them (augur model) and predict a size never run (augur predict),
# also on a described machine (--machine zen4); then memspy on a matrix multiply
# whose power-of-two rows conflict in the cache; last, the example's explore page
# (one HTML file: source, scopes, models, sliders, histograms, memspy's ranking).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
DB=build/demo.db
rm -f "$DB"
for n in 16 32 48 64 96; do
    build/augur collect --db "$DB" --param N=$n -- build/examples/matmul $n
done
sqlite3 -header -column "$DB" 'select id, params, status, command from run_list'
echo
build/augur report --db "$DB" --cache 32K --cache 1M --top 10
echo
build/augur structure --db "$DB" build/examples/matmul | grep -v -E ' (_init|_fini|_start|\[\.plt[a-z.]*\]|deregister_tm_clones|register_tm_clones|__do_global_dtors_aux|frame_dummy) '
echo
build/augur report --db "$DB" --scopes --threshold 2
echo
build/augur model --db "$DB"
build/augur model --db "$DB" --show --scope multiply
echo
build/augur predict --db "$DB" --param N=400 --cache 32K --cache 1M --top 5
echo
build/augur predict --db "$DB" --param N=400 --machine zen4 --top 5
echo
build/augur memspy --machine zen4 --output build/demo-memspy.txt -- build/examples/mm_conflict 128 128
head -n 40 build/demo-memspy.txt # the whole report is in build/demo-memspy.txt
echo
build/augur memspy --machine zen4 --format json --output build/demo-memspy.json -- build/examples/matmul 96 >/dev/null
build/augur explore --db "$DB" --machine zen4 --machine sapphire-rapids --memspy build/demo-memspy.json \
    --output build/demo-explore.html --quiet
echo "The explore page of the example: $(pwd)/build/demo-explore.html (open it in a browser; docs/explore.md)"
