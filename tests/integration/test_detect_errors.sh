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
# parser's error and falls back to the native discovery, which succeeds.
source "$TESTLIB"

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

# The same environment with --machine named: memspy does not consult hwloc.
HWLOC_COMPONENTS=stop "$AUGUR" memspy --machine zen4 --output "$WORK/named.txt" -- /usr/bin/true 2> "$WORK/named.err"
check "memspy --machine zen4 without hwloc: exit" "$?" 0
check "memspy --machine zen4 without hwloc: report names zen4" "$(grep -c '^machine: zen4' "$WORK/named.txt")" 1
finish
