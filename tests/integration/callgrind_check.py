#!/usr/bin/env python3
"""callgrind_check.py — reads Callgrind files for the exports' tests
(tests/integration/test_callgrind.sh): what callgrind_annotate makes of
them, and their calls.

  callgrind_check.py compare REPORT.json FILE
      callgrind_annotate's totals and per-function costs of FILE (summed
      over the source files of a function) against augur's JSON report or
      prediction of the same run: one line per mismatch, then "N functions
      compared"; exit 1 on a mismatch or a warning of callgrind_annotate.
  callgrind_check.py calls FILE
      "caller|callee|calls" per pair of functions, summed (Callgrind's
      recursion levels, name'2, folded into the name).
  callgrind_check.py inclusive FILE FUNCTION...
      callgrind_annotate --inclusive=yes's first event (Ir) for each
      function, one per line.
"""
import json
import re
import subprocess
import sys


def annotate(path, inclusive=False):
    """callgrind_annotate's event names, totals and per-function costs."""
    run = subprocess.run(["callgrind_annotate", "--threshold=100", "--show-percs=no", "--auto=no",
                          "--inclusive=" + ("yes" if inclusive else "no"), path],
                         capture_output=True, text=True, check=True)
    if "WARNING" in run.stderr:
        sys.exit("callgrind_annotate warned: " + run.stderr.strip())
    events = re.search(r"^Events shown:\s+(.*)$", run.stdout, re.M).group(1).split()
    number = r"([\d,]+)"
    row = re.compile(r"^\s*" + r"\s+".join([number] * len(events)) + r"\s+(\S.*)$")
    totals, functions = None, {}
    for line in run.stdout.splitlines():
        m = row.match(line)
        if not m:
            continue
        costs = [int(v.replace(",", "")) for v in m.groups()[:-1]]
        label = m.group(len(events) + 1)
        if label == "PROGRAM TOTALS":
            totals = costs
            continue
        label = re.sub(r" \[(/[^\[\]]*|\?\?\?)\]$", "", label)  # the object callgrind_annotate appends
        name = label.split(":", 1)[1]  # file:function
        functions[name] = [a + b for a, b in zip(functions.get(name, [0] * len(events)), costs)]
    return events, totals, functions


def rounds_to(got, want):
    """Whether each whole number of `got` is its figure of `want` rounded:
    within 0.5, and what the JSON's 12 significant digits hide."""
    return all(abs(g - w) <= 0.5 + 1e-11 * abs(w) for g, w in zip(got, want))


def values(row, events, caches):
    """A JSON row's figures in the order of the events."""
    out = []
    for e in events:
        if e == "Ir":
            out.append(row["instructions"])
        elif e == "Acc":
            out.append(row["accesses"])
        elif e == "Cyc":
            out.append(row["cycles"])
        elif e.startswith("M"):
            out.append(row["misses"][caches[e]])
        else:  # L1m: a machine level
            out.append(row["misses"][e[:-1]])
    return out


def display_names(functions):
    """Each row's name in augur's callgrind file: its name, with the file
    name of its module when another row has the same name."""
    names = [f["function"] or "(unknown)" for f in functions]
    out = []
    for f, n in zip(functions, names):
        module = f["module"].rsplit("/", 1)[-1] if f["module"] else "no module"
        out.append(n + " [" + module + "]" if names.count(n) > 1 else n)
    return out


def compare(report_path, path):
    report = json.load(open(report_path))
    events, totals, functions = annotate(path)
    caches = {}
    for c in report.get("caches", []):
        caches["M" + cache_label(c["size"], c["line"])] = c["key"]
    bad = 0
    want = values(report["total"], events, caches)
    if not rounds_to(totals, want):
        print(f"totals: callgrind_annotate {totals}, augur {want}")
        bad += 1
    for name, row in zip(display_names(report["functions"]), report["functions"]):
        want = values(row, events, caches)
        got = functions.get(name, [0] * len(events))
        if not rounds_to(got, want):
            print(f"{name}: callgrind_annotate {got}, augur {want}")
            bad += 1
    print(f"{len(report['functions'])} functions compared")
    return 1 if bad else 0


def cache_label(size, line):
    """report_cache_label's SIZE_LINE: the largest binary unit dividing the size."""
    for unit, n in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size % n == 0:
            return f"{size // n}{unit}_{line}"
    return f"{size}_{line}"


def calls(path):
    """(caller, callee) -> calls, from the calls= lines of a callgrind file."""
    names, fn, cfn, pending, out = {}, None, None, None, {}
    for line in open(path):
        m = re.match(r"^(c?fn)=(?:\((\d+)\))?\s*(.*)$", line.rstrip("\n"))
        if m:
            key, ident, name = m.groups()
            if ident and name:
                names[ident] = name
            name = names[ident] if ident and not name else name
            name = re.sub(r"'\d+$", "", name)
            fn, cfn = (name, cfn) if key == "fn" else (fn, name)
            continue
        m = re.match(r"^calls=(\d+)", line)
        if m:
            pending = int(m.group(1))
        elif pending is not None and re.match(r"^[\d+*-]", line):
            out[(fn, cfn)] = out.get((fn, cfn), 0) + pending
            pending = None
    return out


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "compare":
        sys.exit(compare(*args))
    if cmd == "calls":
        for (a, b), n in sorted(calls(args[0]).items()):
            print(f"{a}|{b}|{n}")
    elif cmd == "inclusive":
        _, _, functions = annotate(args[0], inclusive=True)
        for f in args[1:]:
            print(functions.get(f, [0])[0])


if __name__ == "__main__":
    main()
