#!/bin/bash
# test_explore_page.sh — `augur explore` (docs/explore.md) on
# tests/programs/cxxnames_cc.cc (C++: names holding <, > and &), compiled
# from a folder whose path holds "</script><b id=injected>&amp;", trained at
# N = 300..1500 and written for zen4 and sapphire-rapids with a memspy
# report; the page is opened in headless Chromium by
# tests/explore/check_page.mjs, which checks it against augur predict,
# report and report --machine (see there) and takes a screenshot
# ($WORK/explore.png, printed at the end for a person to look at).  Here:
#   - the page is one file of a few MB whose only script ends are its
#     three elements' (every '<' of the data escaped), without network;
#   - a database without models gives a page saying what to run;
#   - refusals: not a memspy report, an output folder that does not exist,
#     an unknown machine, a bad --grid; none leaves a file.
# Needs Debian's chromium and tests/explore's node modules (scripts/setup.sh
# installs both); without them the test fails and says so.
source "$TESTLIB"
ROOT=$(cd "$SRC_PROGRAMS/../.." && pwd)
command -v chromium >/dev/null && [ -x /usr/bin/chromium ] ||
    { echo "FAIL: /usr/bin/chromium is missing: run scripts/setup.sh (apt-get install chromium)"; exit 1; }
[ -d "$ROOT/tests/explore/node_modules/playwright-core" ] ||
    { echo "FAIL: tests/explore/node_modules is missing: run scripts/setup.sh (npm ci --prefix tests/explore)"; exit 1; }

# ---- the program, from a folder whose name is HTML
SRCDIR="$WORK/</script><b id=injected>&amp;"
mkdir -p "$SRCDIR"
cp "$SRC_PROGRAMS/cxxnames_cc.cc" "$SRCDIR/"
(cd "$SRCDIR" && g++ -O1 -g -march=x86-64-v2 -o "$WORK/cxx" cxxnames_cc.cc)
check "compiled from the folder with HTML in its name" "$?" 0
DB=$WORK/c.db
for n in 300 600 900 1200 1500; do
    "$AUGUR" collect --db "$DB" --param N=$n -- "$WORK/cxx" $n >/dev/null 2>&1
done
"$AUGUR" model --db "$DB" --quiet >/dev/null 2>&1
check "model exit" "$?" 0
"$AUGUR" memspy --machine zen4 --format json --output "$WORK/ms.json" -- "$WORK/cxx" 300 >/dev/null 2>&1
check "memspy exit" "$?" 0

# ---- the page
"$AUGUR" explore --db "$DB" --output "$WORK/page.html" --machine zen4 --machine sapphire-rapids \
    --memspy "$WORK/ms.json" --grid 5 --quiet
check "explore exit" "$?" 0
check "three script elements end, and nothing else does" "$(grep -o '</script' "$WORK/page.html" | wc -l)" 3
check "the data escapes '<' (the path's '</script>' is \\u003c/script>)" \
    "$(grep -c '\\u003c/script>\\u003cb id=injected>&amp;' "$WORK/page.html")" 1
size=$(stat -c %s "$WORK/page.html")
check "a few MB at most ($size bytes)" "$([ "$size" -lt 5000000 ] && echo yes)" yes
check "no address to load from" "$(grep -oE '(src|href)=["'"'"']?https?:' "$WORK/page.html" | wc -l)" 0

# ---- a database without models
NM=$WORK/nomodels.db
"$AUGUR" collect --db "$NM" --param N=300 -- "$WORK/cxx" 300 >/dev/null 2>&1
"$AUGUR" explore --db "$NM" --output "$WORK/nomodels.html" --quiet
check "explore without models: exit" "$?" 0

# ---- in the browser
cat >"$WORK/cfg.json" <<EOF
{"augur": "$AUGUR", "db": "$DB", "page": "$WORK/page.html", "screenshot": "$WORK/explore.png",
 "special_function": "long total<long>(std::vector<int, std::allocator<int> > const&)",
 "injected_path": "$SRCDIR/cxxnames_cc.cc", "source_base": "cxxnames_cc.cc",
 "loop": "loop at cxxnames_cc.cc:26", "long_file": "stl_algo.h", "memspy": true,
 "no_models_page": "$WORK/nomodels.html"}
EOF
node "$ROOT/tests/explore/check_page.mjs" "$WORK/cfg.json"
check "the page in Chromium" "$?" 0

# ---- refusals, and no file left behind
echo '{"total": {}}' >"$WORK/not-memspy.json"
"$AUGUR" explore --db "$DB" --output "$WORK/r1.html" --memspy "$WORK/not-memspy.json" --quiet 2>"$WORK/e1"
check "not a memspy report: exit 1" "$?" 1
check "not a memspy report: the message names the fix" "$(grep -c 'not a memspy JSON report.*augur memspy --format json' "$WORK/e1")" 1
"$AUGUR" explore --db "$DB" --output "$WORK/no/such/dir/p.html" --quiet 2>"$WORK/e2"
check "missing output folder: exit 1" "$?" 1
"$AUGUR" explore --db "$DB" --output "$WORK/r3.html" --machine nosuch --quiet 2>"$WORK/e3"
check "unknown machine: exit 1" "$?" 1
check "unknown machine: lists the known" "$(grep -c "unknown machine 'nosuch' (known: .*zen4" "$WORK/e3")" 1
"$AUGUR" explore --db "$DB" --output "$WORK/r4.html" --grid 1 2>"$WORK/e4"
check "--grid 1: usage error" "$?" 2
check "no page left by a refusal" "$(ls "$WORK"/r*.html 2>/dev/null | wc -l)" 0
echo "screenshot: $WORK/explore.png"
finish
