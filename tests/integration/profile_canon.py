#!/usr/bin/env python3
"""profile_canon.py — a raw profile (docs/profile-format.md) in a form two runs
of one program can be compared in: module, function and file ids replaced by
what they name, each instruction with the lines that belong to it as one
block, the blocks sorted, and the lines that name the process (pid, ppid) or
check the file (end) left out.  Everything the collector measured stays.

usage: profile_canon.py [--no-loader-distances] PROFILE   (to stdout)

--no-loader-distances leaves out the histograms (hist and sets lines) and strides of the dynamic
loader's instructions (ld-linux*), keeping their counts: where it maps the
preloaded libraries and scans LD_PRELOAD, their distances differ from one
run of a program under Valgrind to the next on either analysis path.
"""
import sys


def canon(path, loader_distances=True):
    tables = {"module": {}, "fn": {}, "file": {}}
    header, blocks, tail = [], [], []
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f]
    for l in lines:  # the tables first: ids may be used before a later table line
        w = l.split(" ", 2)
        if w[0] in tables:
            tables[w[0]][w[1]] = w[2].rsplit(" ", 1)[0] if w[0] == "module" else w[2]

    def name(kind, i):
        return tables[kind].get(i, i)  # -1: unknown

    for l in lines:
        w = l.split(" ")
        k = w[0]
        if k in tables or k in ("pid", "ppid", "end"):
            continue
        if k == "ins":
            w[1], w[4], w[5] = name("module", w[1]), name("fn", w[4]), name("file", w[5])
            blocks.append([" ".join(w)])
        elif k in ("ind", "call") and blocks:
            w[1] = name("module", w[1])
            blocks[-1].append(" ".join(w))
        elif k in ("br", "hist", "sets", "stride") and blocks:
            if k == "br" or loader_distances or "/ld-linux" not in blocks[-1][0].split(" ")[1]:
                blocks[-1].append(l)
        elif k == "comm":
            w[1] = name("fn", w[1])
            w[8] = name("file", w[8])
            tail.append(" ".join(w))
        elif k == "interval":
            w[4], w[5], w[6] = name("module", w[4]), name("fn", w[6]), name("file", w[7])
            tail.append(" ".join(w))
        elif blocks:
            tail.append(l)
        else:
            header.append(l)
    for b in blocks:  # ind and call lines in no particular order
        b[1:] = sorted(x for x in b[1:] if x.split(" ")[0] in ("ind", "call")) + \
            [x for x in b[1:] if x.split(" ")[0] not in ("ind", "call")]
    out = header + ["\n".join(b) for b in sorted(blocks)] + sorted(tail)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    args = sys.argv[1:]
    keep = "--no-loader-distances" not in args
    sys.stdout.write(canon([a for a in args if not a.startswith("--")][0], keep))
