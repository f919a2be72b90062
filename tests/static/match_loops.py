#!/usr/bin/env python3
"""match_loops.py — pair the loops of `augur static --format json` with the
binary loops `augur report --scopes --format json` measured, and print one
line per source loop: FUNCTION LINE STATIC MEASURED.

Usage: match_loops.py STATIC.json SCOPES.json top|bottom

Loops are paired by their place in their function's nest (depth, and rank
among siblings in source order), not by line: at -O2 a loop's header may
carry another line (GCC's loop at kernels.c:16 for the `for` at line 17).
MEASURED is the body's executions: header executions minus entries when
the compiler tests the condition at the loop's header before each iteration
(`top`, GCC at -O0: jump to the test, body, test), header executions when it
tests it at the bottom (`bottom`, -O1 and above: a rotated loop whose header
is the body's first block)."""
import json
import sys


def static_paths(doc):
    """{(function, path): (line, program iterations)} of the static model."""
    loops = doc["loops"]
    out = {}
    for i, lp in enumerate(loops):
        path, j = [], i
        while j is not None:
            parent = loops[j]["parent"]
            siblings = sorted((k for k, x in enumerate(loops)
                               if x["parent"] == parent and x["function"] == loops[j]["function"]),
                              key=lambda k: loops[k]["lines"][0])
            path.insert(0, siblings.index(j))
            j = parent
        out[(lp["function"], tuple(path))] = (lp["lines"][0], lp.get("program_iterations_value"))
    return out


def header_line(scope):
    return int(scope["name"].rsplit(":", 1)[1])


def binary_paths(doc, test):
    """{(function, path): measured iterations} of the run's loops."""
    out = {}

    def walk(function, scope, path):
        loops = sorted((c for c in scope.get("children", []) if c["kind"] == "loop"),
                       key=lambda c: (header_line(c), c["lines"][0] if c.get("lines") else 0))
        for rank, c in enumerate(loops):
            iters = c["header_executions"] - (c["entries"] if test == "top" else 0)
            out[(function, path + (rank,))] = iters
            walk(function, c, path + (rank,))

    def find(scope):
        if scope.get("kind") == "function":
            walk(scope["name"], scope, ())
            return
        for c in scope.get("children", []):
            find(c)

    for s in doc["scopes"]:
        find(s)
    return out


def main():
    with open(sys.argv[1]) as f:
        st = static_paths(json.load(f))
    with open(sys.argv[2]) as f:
        bn = binary_paths(json.load(f), sys.argv[3])
    for (function, path), (line, value) in sorted(st.items(), key=lambda kv: kv[1][0]):
        print(function, line, value, bn.get((function, path), "none"))


if __name__ == "__main__":
    main()
