#!/bin/bash
# test_detect_errors.sh — when hwloc cannot describe this host, `augur
# memspy` without --machine and `augur machine detect` say so and how to go
# on, with their documented exit statuses (docs/memspy.md, docs/machines.md),
# and run or write nothing.
#
# hwloc is made to fail from the environment (hwloc 2.9, Debian 12):
#   HWLOC_COMPONENTS=stop             enables no discovery component, so
#                                     hwloc_topology_load fails;
#   HWLOC_COMPONENTS=-linux,-x86      leaves only the OS-less fallback: the
#                                     topology loads, with no caches.
# A malformed or missing HWLOC_XMLFILE cannot serve: hwloc prints the XML
# parser's error and falls back to the native discovery, which succeeds;
# so does a bad HWLOC_SYNTHETIC, silently.  (hwloc_topology_init fails only
# out of memory, which no variable brings about: that branch stays untested.)
#
# A well-formed HWLOC_XMLFILE replaces this host's topology: detect must
# report exactly the caches the file describes (sizes, lines, ways, slices,
# sharing, inclusion; latencies come from the nearest shipped description
# and are not compared), memspy must simulate them, and a geometry no slice
# count fits must be refused by name.
source "$TESTLIB"

# topology_xml L2_BYTES L2_WAYS — an hwloc 2 XML topology: one package of
# two cores (one PU each), each with a 48 KiB 12-way L1d and an L2 of
# L2_BYTES, L2_WAYS ways (-1: fully associative), under a 48 MiB 16-way
# inclusive L3 (3 slices of 2^14 sets); 64-byte lines.
topology_xml() {
    local set='nodeset="0x1" complete_nodeset="0x1"' core
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo '<!DOCTYPE topology SYSTEM "hwloc2.dtd">'
    echo '<topology version="2.0">'
    echo "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" allowed_cpuset=\"0x3\" $set allowed_nodeset=\"0x1\">"
    echo "<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" $set local_memory=\"1073741824\"/>"
    echo "<object type=\"Package\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" $set>"
    echo "<object type=\"L3Cache\" cpuset=\"0x3\" complete_cpuset=\"0x3\" $set cache_size=\"50331648\" depth=\"3\" cache_linesize=\"64\" cache_associativity=\"16\" cache_type=\"0\">"
    echo '<info name="Inclusive" value="1"/>'
    for core in 0 1; do
        local cpu="cpuset=\"0x$((core + 1))\" complete_cpuset=\"0x$((core + 1))\" $set"
        echo "<object type=\"L2Cache\" $cpu cache_size=\"$1\" depth=\"2\" cache_linesize=\"64\" cache_associativity=\"$2\" cache_type=\"0\">"
        echo "<object type=\"L1Cache\" $cpu cache_size=\"49152\" depth=\"1\" cache_linesize=\"64\" cache_associativity=\"12\" cache_type=\"1\">"
        echo "<object type=\"Core\" os_index=\"$core\" $cpu><object type=\"PU\" os_index=\"$core\" $cpu/></object>"
        echo '</object></object>'
    done
    echo '</object></object></object></topology>'
}

# caches_of YAML — each cache of a description on one line: name size
# line ways slices shared_by policy (slices 1 when the field is absent).
caches_of() {
    awk '/^caches:/ { on = 1; next } /^[a-z]/ { on = 0 }
         on && $1 == "-" { if (n) print c; n++; c = $3 }
         on && $1 ~ /^(size|line_bytes|ways|slices|shared_by_cores|policy):$/ { v[$1] = $2 }
         on && $1 == "policy:" { if (v["slices:"] == "") v["slices:"] = 1
             c = c " " v["size:"] " " v["line_bytes:"] " " v["ways:"] " " v["slices:"] " " v["shared_by_cores:"] " " v["policy:"]
             delete v }
         END { if (n) print c }' "$1" | tr -d '"'
}

LOAD_FAILS="hwloc cannot read this machine's topology: Invalid argument (is /sys mounted? does an HWLOC_* variable, such as HWLOC_COMPONENTS, turn discovery off?)"
NO_CACHES="hwloc reports no data caches (check 'lstopo'; write the description by hand)"

# memspy_refused NAME COMPONENTS WHY — memspy without --machine under
# HWLOC_COMPONENTS exits 2 (a command-line fix: name a machine) with WHY
# and the fix, and does not run the program (it would create a file).
memspy_refused() {
    local name=$1 components=$2 why=$3
    HWLOC_COMPONENTS=$components "$AUGUR" memspy --output "$WORK/$name.txt" -- \
        /usr/bin/touch "$WORK/$name.ran" > /dev/null 2> "$WORK/$name.err"
    check "memspy, $name: exit" "$?" 2
    check "memspy, $name: message" "$(cat "$WORK/$name.err")" \
        "augur memspy: $why (name a machine with --machine NAME|FILE)"
    check "memspy, $name: program not run, no report" "$(ls "$WORK/$name.ran" "$WORK/$name.txt" 2> /dev/null)" ""
}

# detect_refused NAME COMPONENTS WHY — machine detect under
# HWLOC_COMPONENTS exits 1 with WHY and leaves no --output file.
detect_refused() {
    local name=$1 components=$2 why=$3
    HWLOC_COMPONENTS=$components "$AUGUR" machine detect --output "$WORK/$name.yaml" > /dev/null \
        2> "$WORK/$name-detect.err"
    check "machine detect, $name: exit" "$?" 1
    check "machine detect, $name: message" "$(cat "$WORK/$name-detect.err")" "augur machine: $why"
    check "machine detect, $name: nothing written" "$(ls "$WORK/$name.yaml"* 2> /dev/null)" ""
}

memspy_refused load-fails stop "$LOAD_FAILS"
memspy_refused no-caches -linux,-x86 "$NO_CACHES"
detect_refused load-fails stop "$LOAD_FAILS"
detect_refused no-caches -linux,-x86 "$NO_CACHES"

# A described topology (HWLOC_XMLFILE): detect reports its caches exactly.
topology_xml 1048576 16 > "$WORK/topo.xml"
HWLOC_XMLFILE=$WORK/topo.xml "$AUGUR" machine detect --output "$WORK/xml.yaml" 2> "$WORK/xml.err"
check "XML topology: detect exit" "$?" 0
check "XML topology: cores" "$(awk '$1 == "cores:" {print $2}' "$WORK/xml.yaml")" 2
check "XML topology: caches (name size line ways slices shared policy)" "$(caches_of "$WORK/xml.yaml" | tr '\n' ';')" \
    "L1 49152 64 12 1 1 inclusive;L2 1048576 64 16 1 1 non-inclusive;L3 50331648 64 16 3 2 inclusive;"
check "XML topology: the description loads" "$("$AUGUR" machine check "$WORK/xml.yaml" | grep -c ': ok: host, 2 cores, 3 cache levels')" 1
# memspy without --machine simulates them: the 48 MiB L3's 49152 sets as
# the largest power of two below, 32768 sets = 32 MiB (docs/memspy.md).
HWLOC_XMLFILE=$WORK/topo.xml "$AUGUR" memspy --dry-run -- /usr/bin/true > "$WORK/xml.cmd" 2> /dev/null
check "XML topology: memspy's levels" "$(tr ' ' '\n' < "$WORK/xml.cmd" | grep -- '^--level=' | tr '\n' ' ')" \
    "--level=L1,49152,64,12,1 --level=L2,1048576,64,16,1 --level=L3,33554432,64,16,2 "
# hwloc's associativity -1 (fully associative): ways = size / line.
topology_xml 65536 -1 > "$WORK/topo-fa.xml"
HWLOC_XMLFILE=$WORK/topo-fa.xml "$AUGUR" machine detect --output "$WORK/xml-fa.yaml" 2> /dev/null
check "XML topology, fully associative L2: 65536 / 64 ways" "$(caches_of "$WORK/xml-fa.yaml" | awk '$1 == "L2"')" \
    "L2 65536 64 1024 1 1 non-inclusive"
# A fully associative 1 MiB L2 has 16384 ways, past the limit a file may
# give (1024, docs/machines.md "Limits"): detect keeps it as a file must,
# and memspy, which would spend 110 s where 16 ways take 4, is not run.
topology_xml 1048576 -1 > "$WORK/topo-fa-big.xml"
HWLOC_XMLFILE=$WORK/topo-fa-big.xml "$AUGUR" machine detect --output "$WORK/xml-fa-big.yaml" 2> "$WORK/fa-big.err"
check "XML topology, 16384-way L2: exit" "$?" 1
check "XML topology, 16384-way L2: field, value, limit" \
    "$(grep -c 'caches\[1\].ways: 16384 is out of range: the limit is 1 to 1024 .*hwloc reports these caches' "$WORK/fa-big.err")" 1
check "XML topology, 16384-way L2: nothing written" "$(ls -A "$WORK" | grep -c '^\.\?xml-fa-big\.yaml')" 0
HWLOC_XMLFILE=$WORK/topo-fa-big.xml "$AUGUR" memspy -- /usr/bin/true > "$WORK/fa-big.out" 2> "$WORK/fa-big.err"
check "memspy on a 16384-way L2: usage error" "$?" 2
check "memspy on a 16384-way L2: named" "$(grep -c 'caches\[1\].ways: 16384 is out of range' "$WORK/fa-big.err")" 1
check "memspy on a 16384-way L2: program not run" "$(grep -c 'running' "$WORK/fa-big.err")" 0
# 10^6 bytes of 16-way 64-byte lines: 976.5625 sets, no whole slice count.
topology_xml 1000000 16 > "$WORK/topo-bad.xml"
HWLOC_XMLFILE=$WORK/topo-bad.xml "$AUGUR" machine detect --output "$WORK/xml-bad.yaml" 2> "$WORK/xml-bad.err"
check "XML topology, impossible L2: exit" "$?" 1
check "XML topology, impossible L2: named" "$(cat "$WORK/xml-bad.err")" "augur machine: hwloc reports L2 as 1000000 \
bytes, 64-byte lines, 16 ways: no whole number of power-of-two-set slices (check 'lstopo -v'; write the description by hand)"
check "XML topology, impossible L2: nothing written" "$(ls -A "$WORK" | grep -c '^\.\?xml-bad\.yaml')" 0

# The same environment with --machine named: memspy does not consult hwloc.
HWLOC_COMPONENTS=stop "$AUGUR" memspy --machine zen4 --output "$WORK/named.txt" -- /usr/bin/true 2> "$WORK/named.err"
check "memspy --machine zen4 without hwloc: exit" "$?" 0
check "memspy --machine zen4 without hwloc: report names zen4" "$(grep -c '^machine: zen4' "$WORK/named.txt")" 1
finish
