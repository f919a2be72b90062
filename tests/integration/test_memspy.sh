#!/bin/bash
# test_memspy.sh — `augur memspy` end to end: programs built to cause one
# kind of miss are classified as such (cold, capacity, conflict, true and
# false sharing); heap blocks are attributed by allocation site; the misses
# of a two-level configuration equal Cachegrind's for the same code; the
# JSON, text and callgrind reports hold what docs/memspy.md says; bad input
# is refused by name; a program that execs is reported up to the exec;
# allocation stacks stop below main.
source "$TESTLIB"

zen4_two_levels "$WORK/two.yaml"

# memspy_json NAME ARGS... — the JSON report of a run into $WORK/NAME.json.
memspy_json() {
    local name=$1
    shift
    "$AUGUR" memspy --machine "$WORK/two.yaml" --format json --show-startup --output "$WORK/$name.json" -- "$@" \
        2>"$WORK/$name.err"
}

# causes NAME OBJECT LEVEL — "misses cold capacity conflict true false" of a data object.
causes() {
    jq -r --arg o "$2" --argjson k "$3" '.data_objects[] | select(.name == $o) | .levels[$k] |
        "\(.misses) \(.causes.cold) \(.causes.capacity) \(.causes.conflict) \(.causes.true_sharing) \(.causes.false_sharing)"' \
        "$WORK/$1.json"
}

# Cold only: 256 lines read once.
memspy_json cold "$PROGRAMS/memsweep" 256 64 1
check "cold only: L1 misses of big are all cold" "$(causes cold big 0)" "256 256 0 0 0 0"
check "cold only: L2" "$(causes cold big 1)" "256 256 0 0 0 0"

# Capacity: 1024 lines (64 KiB, twice L1) swept 4 times: after the cold
# sweep every L1 miss is one a fully-associative LRU cache makes too.
memspy_json capacity "$PROGRAMS/memsweep" 1024 64 4
check "capacity: L1" "$(causes capacity big 0)" "4096 1024 3072 0 0 0"
check "capacity: L2 holds them (cold only)" "$(causes capacity big 1)" "1024 1024 0 0 0 0"

# Shadow sampling 1 in 8: the same sweep's misses and cold misses are
# exact, and its capacity share, measured on the lines the hash feeds to
# the 64-line L1 shadow (about 128 of the 1024, cycling), is 1: all 3072
# non-cold misses are capacity, with the split's interval stated.
"$AUGUR" memspy --machine "$WORK/two.yaml" --shadow-sample 8 --format json --output "$WORK/shadow.json" -- \
    "$PROGRAMS/memsweep" 1024 64 4 2>/dev/null
check "shadow sampling: L1 misses and causes" "$(causes shadow big 0)" "4096 1024 3072 0 0 0"
check "shadow sampling: the split measured on the object's sampled lines" \
    "$(jq -r '.data_objects[] | select(.name == "big") | .levels[0].split |
        "\(.from) \(.capacity_share) \(.interval[1]) \(.unsplit > 2000) \(.sampled > 100)"' "$WORK/shadow.json")" \
    "object 1 1 true true"

# Conflict: 16 lines 4096 bytes apart all map to one of L1's 64 sets
# (8 ways); a fully-associative cache of 512 lines would hold them.
memspy_json conflict "$PROGRAMS/memsweep" 16 4096 10
check "conflict: L1" "$(causes conflict big 0)" "160 16 0 144 0 0"

# Set sampling 1 in 8 (--sample 0.1): 8192 lines swept 8 times put 1024
# lines in the sampled sets, so big's counts, scaled by 8 (not by the
# share of references sampled, which the loader's and the stack's hot lines
# skew), are exact: 65536 L1 misses, 8192 cold; and the whole run's bounds,
# from the random groups, hold the full simulation's count at each level.
memspy_json setfull "$PROGRAMS/memsweep" 8192 64 8
"$AUGUR" memspy --machine "$WORK/two.yaml" --sample 0.1 --format json --output "$WORK/sets.json" -- \
    "$PROGRAMS/memsweep" 8192 64 8 2>/dev/null
check "set sampling: big's L1 misses and cold misses exact" "$(causes sets big 0 | cut -d' ' -f1,2)" "65536 8192"
check "set sampling: total references counted exactly" "$(jq .total.references "$WORK/sets.json")" \
    "$(jq .total.references "$WORK/setfull.json")"
check "set sampling: the bounds hold the full count at every level" \
    "$(jq -r --slurpfile full "$WORK/setfull.json" '[.total.levels | to_entries[] |
        .value.bounds[0] <= $full[0].total.levels[.key].misses and $full[0].total.levels[.key].misses <= .value.bounds[1]]
        | all' "$WORK/sets.json")" true
check "set sampling: the bounds are not the estimate alone" \
    "$(jq '.total.levels[0] | .bounds[0] < .misses and .misses < .bounds[1]' "$WORK/sets.json")" true

# True sharing: two threads add to one counter; false sharing: to two
# adjacent counters of one line.  How many invalidations happen depends on
# Valgrind's thread switches, so the test asks which cause they have.  The
# switches are rare while both threads spin (none at all in 400,000 iterations
# on an idle host), so the runs are long enough for several.
memspy_json true "$PROGRAMS/misskinds" true 2000000
read -r miss cold cap conf tsh fsh <<<"$(causes true shared_counter 0)"
check "true sharing: some misses are true sharing" "$((tsh > 0))" 1
check "true sharing: none is false sharing" "$fsh" 0
memspy_json false "$PROGRAMS/falseshare" 2000000
read -r miss cold cap conf tsh fsh <<<"$(causes false counters 0)"
check "false sharing: some misses are false sharing" "$((fsh > 0))" 1
check "false sharing: none is true sharing" "$tsh" 0
# --interleave (default yes) reaches the tool: 200,000 increments per
# thread, interleaved, miss about once per increment; in Valgrind's order
# (no) the threads overlap in a quantum at most.
memspy_json mixed "$PROGRAMS/falseshare" 200000
"$AUGUR" memspy --machine "$WORK/two.yaml" --interleave no --format json --output "$WORK/serial.json" -- \
    "$PROGRAMS/falseshare" 200000 2>"$WORK/serial.err"
read -r miss cold cap conf tsh fsh <<<"$(causes mixed counters 0)"
check "interleaved: false-sharing L1 misses >= 200000 ($fsh)" "$((fsh >= 200000))" 1
read -r miss cold cap conf tsh fsh <<<"$(causes serial counters 0)"
check "--interleave no: fewer than 2000 ($fsh)" "$((fsh < 2000))" 1
"$AUGUR" memspy --interleave maybe -- "$PROGRAMS/falseshare" 1 2>"$WORK/err" >/dev/null
check "bad --interleave: exit 2" "$?" 2
check "bad --interleave: message" "$(grep -c "give yes or no" "$WORK/err")" 1

# Heap attribution: two arrays from two malloc calls, N and 3N references.
memspy_json heap "$PROGRAMS/misskinds" heap 1000
SRC=$SRC_PROGRAMS/misskinds.c
for site in "first:$(line_of MALLOC:first "$SRC"):1000" "second:$(line_of MALLOC:second "$SRC"):3000"; do
    IFS=: read -r name line refs <<<"$site"
    got=$(jq -r --argjson l "$line" '[.data_objects[] | select(.kind == "heap" and .allocation[0].line == $l and
        (.allocation[0].file | endswith("misskinds.c")))] | "\(length) \(.[0].references) \(.[0].allocation[0].function)"' \
        "$WORK/heap.json")
    check "heap: array $name (malloc at line $line)" "$got" "1 $refs heap_arrays"
    check "heap: array $name is named by its variable" \
        "$(jq -r --argjson l "$line" '.data_objects[] | select(.allocation[0].line == $l) | .name' "$WORK/heap.json")" "$name"
done

# Allocation stacks end at the first frame below main (the frame-pointer
# walk beyond it reads stack words, argv and envp, as return addresses): no
# unknown frames, and memobjs' blocks from main, new_block and chunks.
memspy_json objs "$PROGRAMS/memobjs" 200 3
check "allocation stacks: no unknown frame" \
    "$(jq '[.data_objects[].allocation[]? | select(.function == null)] | length' "$WORK/objs.json")" 0
check "allocation stacks: from the caller of malloc to (below main)" \
    "$(jq -r '.data_objects[] | select(.kind == "heap" and (.allocation[0].file | endswith("memobjs.c"))) |
        [.allocation[].function] | join(" <- ")' "$WORK/objs.json" | sort -u)" \
    "$(printf '%s\n' "chunks <- main <- (below main)" "main <- (below main)" "new_block <- main <- (below main)")"

# Heap objects are named by the variable that receives the allocation
# (DWARF): a local in a register (-O1) or a stack slot (-O0), a global
# pointer (whose own global object is also "gptr", so the site is added),
# two locals named buf; a block stored through a pointer keeps its site.
SRC=$SRC_PROGRAMS/heapnames.c
at() { line_of "ALLOC:$1" "$SRC"; }
expected=$(printf '%s\n' "local $(at local)" "gptr (main:$(at gptr)) $(at gptr)" "buf (fill_a:$(at buf_a)) $(at buf_a)" \
    "buf (fill_b:$(at buf_b)) $(at buf_b)" "rows $(at rows)" "main:$(at each_row) $(at each_row)" | sort)
heap_names() {
    jq -r '.data_objects[] | select(.kind == "heap") | "\(.name) \(.allocation[0].line)"' "$WORK/$1.json" | sort
}
for cc in "gcc -O1" "gcc -O0" "clang -O1" "clang -O0"; do
    command -v "${cc% *}" >/dev/null || { echo "# skip heap names with $cc: not installed"; continue; }
    bin=$WORK/heapnames.${cc// /}
    $cc -g -march=x86-64-v2 -o "$bin" "$SRC"
    memspy_json "names.${cc// /}" "$bin" 2000
    check "heap names, $cc" "$(heap_names "names.${cc// /}")" "$expected"
done

# Two calls of one helper (memobjs: a = new_block(64), b = new_block(64))
# make two objects of one site: their callers tell them apart, in the data
# objects and in the pairs, by name and by id; every name is unique, and
# pairs and replaced_by name the object their id refers to.
# (The run's raw file, kept by running --dry-run's command, gives the JSON
# and text reports below the same counts.)
"$AUGUR" memspy --machine "$WORK/two.yaml" --dry-run -- "$PROGRAMS/memobjs" 200 3 >"$WORK/objs.cmd"
mkdir -p "$WORK/objs"
DIR=$WORK/objs eval "$(sed 's/DIR/"$DIR"/g' "$WORK/objs.cmd")" >/dev/null
for format in json text; do
    "$AUGUR" memspy --machine "$WORK/two.yaml" --format $format --show-startup --output "$WORK/objs.$format" \
        --raw "$WORK"/objs/memspy.*.out
done
SRC=$SRC_PROGRAMS/memobjs.c
site="new_block:$(line_of ALLOC:new_block "$SRC")"
check "same-site blocks: named by their callers" \
    "$(jq -r --arg s "$site" '.data_objects[] | select(.name | startswith($s)) | .name' "$WORK/objs.json" | sort)" \
    "$(printf '%s\n' "$site <- main:$(line_of ALLOC:block_a "$SRC")" "$site <- main:$(line_of ALLOC:block_b "$SRC")" | sort)"
check "data object names are unique" "$(jq '[.data_objects[].name] | length == (unique | length)' "$WORK/objs.json")" true
check "pairs of fill: the two blocks, distinct, ids matching their names" \
    "$(jq -r --arg s "$site" '(.data_objects | map({(.name): .id}) | add) as $ids |
        [.pairs[] | select(.function == "fill" and (.data_object | startswith($s)))] |
        "\(length) \(map(.data_object_id) | unique | length) \(all(.data_object_id == $ids[.data_object]))"' "$WORK/objs.json")" \
    "2 2 true"
check "replaced_by: by_id is the object named by" \
    "$(jq '(.data_objects | map({(.id | tostring): .name}) | add) as $n |
        [.data_objects[].replaced_by[] | $n[.by_id | tostring] == .by] | (length > 0 and all)' "$WORK/objs.json")" true

# Text lists show 10 rows (--top's default) and say how many they left out
# and their share of the stall: the JSON's objects past the 10th, their
# stall_percent summed (JSON keeps every row).
# more_rows WHAT — "N P" from the text's "(N more WHAT, P% of stall; ...)",
# N without its thousands separators.
more_rows() {
    sed -n "s/^  (\([0-9,]*\) more $1, \([0-9.]*\)% of stall; --top 0 shows all)$/\1 \2/p" "$WORK/objs.text" | tr -d ,
}
# json_rest SELECT — "N P" of the JSON bins selected past the 10th (P
# printed as C prints it).
json_rest() {
    jq -r "[$1][10:] | \"\(length) \([.[].stall_percent] | add)\"" "$WORK/objs.json" | awk '{ printf "%d %.1f\n", $1, $2 }'
}
check "text: data objects left out, and their stall" "$(more_rows "data objects")" "$(json_rest '.data_objects[]')"
check "text: source lines left out, and their stall" "$(more_rows "source lines")" \
    "$(json_rest '.code_objects[] | select(.kind == "line")')"
check "text: pairs left out, and their stall" "$(more_rows pairs)" "$(json_rest '.pairs[]')"
check "text: 10 data objects shown" "$(sed -n '/^Data objects by stall/,/^Functions by stall/p' "$WORK/objs.text" |
    grep -c '^ *[0-9.]*% ')" 10

# JSON names source lines as loops and the text do, by the file's base
# name; the full path is in `file`.
FILL=$(line_of STORE:fill "$SRC")
check "json: line names use the base name" \
    "$(jq '[.code_objects[] | select(.kind == "line") | .name | test("/")] | any' "$WORK/objs.json")" false
check "json: fill's store line, its full path in file" \
    "$(jq -r --arg n "memobjs.c:$FILL" '.code_objects[] | select(.kind == "line" and .name == $n) |
        .file | endswith("/tests/programs/memobjs.c")' "$WORK/objs.json")" true
check "json: fill's loop, the same base name" \
    "$(jq -r '.code_objects[] | select(.kind == "loop" and .function == "fill") | .name' "$WORK/objs.json")" \
    "loop at memobjs.c:$((FILL - 1))" # the for line, just above the store
check "text: the same line name" "$(grep -c "  memobjs.c:$FILL (fill)$" "$WORK/objs.text")" 1

# The memory latency is printed as precisely as the stall uses it (zen4:
# 110 ns at 3.55 GHz = 390.5 cycles); replaced_by lists, level by level,
# the most replacements first.
check "text: memory latency to a tenth of a cycle" \
    "$(grep -c "^  memory 110 ns = $(jq -r '.machine.memory_latency_cycles' "$WORK/objs.json") cycles" "$WORK/objs.text")" 1
check "json: replaced_by sorted by count within each level" \
    "$(jq '[.data_objects[].replaced_by | group_by(.level)[] | map(.count) | . == (sort | reverse)] | all' "$WORK/objs.json")" \
    true

# The object of kind other (memory in no heap block, global or stack) is
# named "(other memory)", not "other", which read as English in "replaced
# by: ..., other 81.5%"; pairs and replaced_by use the same name.
check "json: the other object is named (other memory)" \
    "$(jq -r '[.data_objects[] | select(.kind == "other") | .name] | join(",")' "$WORK/objs.json")" "(other memory)"
check "json: no object, pair or replacer named other" \
    "$(jq '[.data_objects[].name, .pairs[].data_object, .data_objects[].replaced_by[].by] | index("other")' \
        "$WORK/objs.json")" null
check "text: its row" "$(grep -c '  (other memory) (other, -, 1)$' "$WORK/objs.text")" 1

# Stack and other objects have no known size: '-' in text, null in JSON;
# heap and global objects keep their bytes.
check "json: no size for stack and other objects" \
    "$(jq -c '[.data_objects[] | select(.kind == "stack" or .kind == "other") | .size] | unique' "$WORK/objs.json")" \
    "[null]"
check "json: sizes of heap and global objects" \
    "$(jq -c '[.data_objects[] | select(.kind == "heap" or .kind == "global") | .size | type] | unique' "$WORK/objs.json")" \
    '["number"]'
check "text: stack objects' size is -" \
    "$(grep -c '(stack, -, 1)$' "$WORK/objs.text" | awk '{ print ($1 > 0) }') $(grep -c '(stack, 0, ' "$WORK/objs.text")" "1 0"

# The text's L1 "replaced by" lines, rebuilt from the JSON's exact counts:
# self, then the 3 largest others, each share to a tenth of a percent,
# and any that rounds to 0.0% (self included) left out.
check "text: replaced by, without 0.0% shares" \
    "$(grep '^      L1 replaced by:' "$WORK/objs.text")" \
    "$(jq -r '.data_objects[:10][] | select(.levels[0].misses > 0) | [.replaced_by[] | select(.level == "L1")] |
        select(length > 0) | (map(.count) | add) as $t | ([.[] | select(.self) | .count] | add // 0) as $s |
        [$t, $s] + ([.[] | select(.self | not)][:3] | map(.by, .count)) | @tsv' "$WORK/objs.json" |
        awk -F'\t' '{
            line = "      L1 replaced by:"; first = 1; p = sprintf("%.1f", 100 * $2 / $1)
            if ($2 > 0 && p != "0.0") { line = line " self " p "%"; first = 0 }
            for (i = 3; i < NF; i += 2) {
                p = sprintf("%.1f", 100 * $(i + 1) / $1)
                if (p == "0.0") break
                line = line (first ? "" : ",") " " $i " " p "%"; first = 0
            }
            print line
        }')"
check "text: some object was replaced only by others (self 0.0% left out)" \
    "$(grep -c '^      L1 replaced by: [^s]' "$WORK/objs.text" | awk '{ print ($1 > 0) }')" 1

# loader_share RAW JSON — the dynamic loader's share of the stall (percent,
# to the unit), from the raw file by the stall formula of docs/memspy.md
# with the JSON's latencies: each pair's misses at level k not missed at
# k+1 cost lat[k+1], those missing everywhere the memory's.
loader_share() {
    awk -v LAT="$(jq -r '[.machine.levels[].latency_cycles, .machine.memory_latency_cycles] | map(tostring) |
        join(" ")' "$2")" '
        BEGIN { L = split(LAT, lat, " ") - 1 }
        $1 == "module" { loader[$2] = ($3 ~ /\/ld-linux[^\/]*$/) }
        $1 == "code" { mod[$2] = $3 }
        $1 == "pair" {
            s = 0
            for (k = 0; k < L; k++) s += ($(7 + 8 * k) - (k + 1 < L ? $(7 + 8 * (k + 1)) : 0)) * lat[k + 2]
            total += s
            if (loader[mod[$2]]) ld += s
        }
        END { printf "%.0f\n", 100 * ld / total }' "$1"
}
# A small run is mostly the dynamic loader's startup (memobjs 200 3: about
# 65% of the stall): the text says so under the header, the JSON as its
# last warning; a run whose own misses dominate (memsweep 8192 64 8, 57344
# L2 hits and 8192 misses against the loader's few thousand) has no such note.
SHARE=$(loader_share "$WORK"/objs/memspy.*.out "$WORK/objs.json")
NOTE="the dynamic loader (ld-linux-x86-64.so.2) makes $SHARE% of the stall: the run is short; give the program a larger input"
check "loader: a small run's share is above 25%" "$((SHARE > 25))" 1
check "loader: text note under the header (wrapped lines joined)" "$(unwrapped "$WORK/objs.text" | sed -n 3p)" \
    "  note: $NOTE"
check "loader: json warning" "$(jq -r '.warnings[-1]' "$WORK/objs.json")" "$NOTE"
check "loader: no note on a larger run" "$(jq '[.warnings[] | select(contains("dynamic loader"))] | length' \
    "$WORK/setfull.json")" 0

# Time sampling of a run shorter than one sample (500000 references)
# simulates everything: the counts are the full simulation's, and the
# report says so instead of calling them estimates.
"$AUGUR" memspy --machine "$WORK/two.yaml" --sample 0.1 --sample-by time --format json --output "$WORK/short.json" -- \
    "$PROGRAMS/memsweep" 256 64 1 2>/dev/null
"$AUGUR" memspy --machine "$WORK/two.yaml" --sample 0.1 --sample-by time --output "$WORK/short.txt" -- \
    "$PROGRAMS/memsweep" 256 64 1 2>/dev/null
SHORT="the run was shorter than one sample: everything was simulated, the counts are exact"
check "short run: big's counts are the full simulation's" "$(causes short big 0)" "$(causes cold big 0)"
check "short run: json warning" "$(jq -r --arg n "$SHORT" '[.warnings[] | select(. == $n)] | length' "$WORK/short.json")" 1
check "short run: text note" "$(unwrapped "$WORK/short.txt" | grep -c "^  note: $SHORT\$")" 1
check "short run: not called estimates" "$(grep -c 'misses are estimates' "$WORK/short.txt")" 0

# cg_sweep RUN EVENT — Cachegrind's count of EVENT in function sweep.
cg_sweep() {
    cg_annotate --show="$2" "$WORK/cg.$1" 2>/dev/null | awk '/memsweep.c:sweep$/ { gsub(",", "", $1); n = $1 } END { print n + 0 }'
}

# Cachegrind with the same two levels: the misses of function sweep agree.
# (Whole-program totals differ: memspy's malloc-replacement library is
# loaded and relocated by ld.so, Cachegrind's is not.)
for run in capacity:1024:64:4 conflict:16:4096:10; do
    IFS=: read -r name lines stride r <<<"$run"
    valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,8,64 \
        --cachegrind-out-file="$WORK/cg.$name" "$PROGRAMS/memsweep" "$lines" "$stride" "$r" 2>/dev/null
    want="$(($(cg_sweep "$name" D1mr) + $(cg_sweep "$name" D1mw))) $(($(cg_sweep "$name" DLmr) + $(cg_sweep "$name" DLmw)))"
    got=$(jq -r '.code_objects[] | select(.kind == "function" and .name == "sweep") | "\(.levels[0].misses) \(.levels[1].misses)"' \
        "$WORK/$name.json")
    check "cachegrind: $name: sweep's L1 and L2 misses" "$got" "$want"
done

# Report fields: totals, loops from the structure analysis, stall ranking.
check "json: total.misses.L1 is the sum over data objects" \
    "$(jq '.total.misses.L1 == ([.data_objects[].levels[0].misses] | add)' "$WORK/capacity.json")" true
check "json: sweep's loop is a code object" \
    "$(jq '[.code_objects[] | select(.kind == "loop" and .function == "sweep")] | length > 0' "$WORK/capacity.json")" true
check "json: data objects ranked by stall" \
    "$(jq '[.data_objects[].stall_cycles] | . == (sort | reverse)' "$WORK/capacity.json")" true
"$AUGUR" memspy --machine "$WORK/two.yaml" -- "$PROGRAMS/memsweep" 16 4096 10 >"$WORK/text.txt" 2>/dev/null
check "text: big's causes line" "$(grep -c 'L1 causes: cold 10.0% conflict 90.0%' "$WORK/text.txt")" 1
"$AUGUR" memspy --machine "$WORK/two.yaml" --format callgrind --output "$WORK/callgrind.out" -- \
    "$PROGRAMS/memsweep" 16 4096 10 2>/dev/null
check "callgrind_annotate reads it: sweep's L1 conflict misses" \
    "$(callgrind_annotate --show=L1conf "$WORK/callgrind.out" 2>/dev/null | awk '/:sweep$/ { print $1 }')" 144

# A program that execs: memspy does not follow the new program (Valgrind
# --trace-children=no) but reports the part before it, names the exec in the
# header, the JSON and a warning, and passes the new program's status on.
"$AUGUR" memspy --machine "$WORK/two.yaml" --format json --output "$WORK/exec.json" -- \
    "$PROGRAMS/execs" 100 /bin/sh -c 'exit 7' 2>"$WORK/exec.err"
check "exec: the new program's status" "$?" 7
check "exec: json names it, no exit code" "$(jq -r '"\(.exec) \(.exit_code)"' "$WORK/exec.json")" "/bin/sh null"
check "exec: a warning says the report stops there" \
    "$(jq -r '.warnings[]' "$WORK/exec.json" | grep -c "exec'd /bin/sh; memspy does not follow exec")" 1
check "exec: the references before it (K = 100)" \
    "$(jq '.data_objects[] | select(.name == "before") | .references' "$WORK/exec.json")" 100
printf '#!/bin/sh\nexec "$@"\n' >"$WORK/wrap.sh" && chmod +x "$WORK/wrap.sh"
"$AUGUR" memspy --machine "$WORK/two.yaml" --output "$WORK/wrap.txt" -- "$WORK/wrap.sh" "$PROGRAMS/memsweep" 16 64 1 \
    2>/dev/null
check "exec from a script: status 0" "$?" 0
check "exec from a script: the text header names it" \
    "$(sed -n 2p "$WORK/wrap.txt" | grep -c "exec'd $PROGRAMS/memsweep\$")" 1

# The default machine is named in the header with the reason.
"$AUGUR" memspy -- "$PROGRAMS/memsweep" 16 64 1 >"$WORK/default.txt" 2>/dev/null
check "default machine: this host, detected" "$(grep -c '^machine: host (this host: caches from hwloc' "$WORK/default.txt")" 1

# Bad input.
"$AUGUR" memspy --sample 0 -- "$PROGRAMS/memsweep" 1 64 1 2>"$WORK/err" >/dev/null
check "bad ratio: exit 2" "$?" 2
check "bad ratio: message" "$(grep -c "give a ratio in (0, 1]" "$WORK/err")" 1
"$AUGUR" memspy --shadow-sample 6 -- "$PROGRAMS/memsweep" 1 64 1 2>"$WORK/err" >/dev/null
check "bad shadow sample: exit 2" "$?" 2
check "bad shadow sample: message" "$(grep -c "shadow-sample '6': give a power of two" "$WORK/err")" 1
"$AUGUR" memspy --machine nosuch -- "$PROGRAMS/memsweep" 1 64 1 2>"$WORK/err" >/dev/null
check "unknown machine: exit 2" "$?" 2
check "unknown machine: lists the known" "$(grep -c "unknown machine 'nosuch' (known: .*zen4" "$WORK/err")" 1
"$AUGUR" memspy -- "$WORK/nosuch" 2>"$WORK/err" >/dev/null
check "missing program: exit 127" "$?" 127
"$AUGUR" memspy --machine zen4 --output "$WORK/crash.txt" -- /bin/sh -c 'kill -SEGV $$' 2>/dev/null
check "crashing program: its status" "$?" 139
check "crashing program: the report names the signal" "$(grep -c 'killed by signal 11 (SIGSEGV)$' "$WORK/crash.txt")" 1
"$AUGUR" memspy --machine zen4 --format json --output "$WORK/crash.json" -- /bin/sh -c 'kill -ABRT $$' 2>/dev/null
check "crashing program: json signal, no exit code" "$(jq -c '[.signal, .exit_code]' "$WORK/crash.json")" "[6,null]"
check "header: an argument with spaces is quoted" "$(sed -n "1s/^memspy report: [^ ]* //p" "$WORK/crash.txt")" \
    "-c 'kill -SEGV \$\$'"
printf 'augur-memspy 2\ntool augur-memspy 0.1.0\n' >"$WORK/cut.out"
"$AUGUR" memspy --machine zen4 --raw "$WORK/cut.out" 2>"$WORK/err" >/dev/null
check "truncated raw file: refused" "$(grep -c "truncated: no 'end' line" "$WORK/err")" 1

# --dry-run prints the command a run would be and runs nothing; that command,
# with DIR a folder, writes the raw file whose report is the run's (object
# big's causes: the stack's lines follow the environment, so totals may not).
"$AUGUR" memspy --machine "$WORK/two.yaml" --sample 0.25 --dry-run -- "$PROGRAMS/memsweep" 1024 64 4 \
    >"$WORK/dry.cmd" 2>"$WORK/dry.err"
check "dry run: status" "$?" 0
check "dry run: one line" "$(wc -l <"$WORK/dry.cmd")" 1
check "dry run: the sampling as --sample-sets" "$(grep -c -- '--sample-sets=4 ' "$WORK/dry.cmd")" 1
"$AUGUR" memspy --machine "$WORK/two.yaml" --dry-run -- "$PROGRAMS/memsweep" 1024 64 4 >"$WORK/dry.cmd"
"$AUGUR" memspy --dry-run -- /bin/touch "$WORK/ran" >/dev/null
check "dry run: nothing ran" "$(ls "$WORK/ran" 2>/dev/null)" ""
mkdir -p "$WORK/dry"
DIR=$WORK/dry eval "$(sed 's/DIR/"$DIR"/g' "$WORK/dry.cmd")" >/dev/null
"$AUGUR" memspy --machine "$WORK/two.yaml" --format json --output "$WORK/dry.json" --raw "$WORK"/dry/memspy.*.out
check "dry run's command: the run's report" "$(causes dry big 0)" "$(causes capacity big 0)"
# Words a shell would split or expand come back quoted.
"$AUGUR" memspy --dry-run -- /bin/echo "a b" "it's" '$HOME' >"$WORK/quoted.cmd" 2>/dev/null
check "dry run: quoting" "$(grep -o "/bin/echo.*" "$WORK/quoted.cmd")" "/bin/echo 'a b' 'it'\\''s' '\$HOME'"
check "dry run: the words come back" "$(eval "set -- $(grep -o "/bin/echo.*" "$WORK/quoted.cmd")"; printf '%s|' "$@")" '/bin/echo|a b|it'"'"'s|$HOME|'
"$AUGUR" memspy --raw "$WORK/dry.json" --dry-run >/dev/null 2>"$WORK/err"
check "dry run with --raw: refused" "$?" 2
finish
