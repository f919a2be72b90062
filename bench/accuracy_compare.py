#!/usr/bin/env python3
"""accuracy_compare.py — the tables of bench/accuracy_bench.sh: predicted against
measured instructions and misses per cache level, for the program and its top
five functions, with the coverage of the predicted intervals.

Input: a manifest (one line per kernel, target and machine, tab-separated):
    kernel  factor  target  machine  predicted.json  measured.json
predicted.json is `augur predict --machine M --format json --top 0` at the
target, measured.json `augur report --machine M --format json --top 0` of a run
at the target.  Output: the Markdown tables on stdout, and with --rows FILE
every comparison as tab-separated values (one line per row, level and machine).
With --time FILE (accuracy_bench.sh --time), also the table per application of
the goals of issue 21: instructions, misses per level, and the predicted time
on the host's own calibrated description against native CPU and wall time.

Only the Python 3 standard library is used.
"""

import argparse
import json
import math
import os
import statistics
import sys

TINY_ABS = 1000      # a measured miss count below this, or below TINY_FRAC of the
TINY_FRAC = 0.001    # program's memory accesses, is shown but left out of the figures
OFF = 50.0           # |error| above this many percent is "far off"
TOP = 5              # functions per program, by measured instructions
MIN_SHARE = 0.01     # ... that execute at least this share of the program's instructions
GOALS = {"4x": 5.0, "8x": 10.0}   # goals for the medians (issue 20)
CG_GOAL = 5.0        # issue 20 item 2: the cache model within this many percent of Cachegrind
GOAL_INSTRUCTIONS = ("4x", 2.0)   # issue 21: every program's instructions within 2% at 4x ...
GOAL_TIME = 15.0                  # ... and the median |time error| against native CPU time
MIN_SECONDS = 0.1    # a native CPU time below this (/usr/bin/time counts in 10 ms) is not judged


def load(path):
    """The JSON document at path; exits with a message naming the file when it
    is missing or not JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"accuracy_compare: cannot read {path}: {e}")


def fkey(row):
    """A function row's identity across runs: its name and its module's base
    name (training and measured runs may run the binary from other paths)."""
    return (row.get("function"), os.path.basename(row.get("module") or ""))


def in_range(rng, value):
    """True when value lies in rng ([low, high]), None when there is no range."""
    if not isinstance(rng, list) or len(rng) != 2:
        return None
    return rng[0] <= value <= rng[1]


def error(pred, meas):
    """(pred - meas) / meas in percent: 0 when both are 0, infinite when only
    meas is."""
    if not meas:
        return 0.0 if not pred else math.inf
    return (pred - meas) / meas * 100.0


def is_tiny(metric, meas, pred, accesses):
    """Whether a miss count is too small to judge a model by: the measured and
    the predicted count both under TINY_ABS or under TINY_FRAC of the program's
    memory accesses (a prediction of 2000 misses against 1000, or of compulsory
    misses only, says little; one of 10^6 against 10 says a lot)."""
    if metric == "instructions":
        return False
    top = max(meas, pred or 0)
    return top < TINY_ABS or top < TINY_FRAC * accesses


def top_functions(meas_doc):
    """The function rows of a measured report the tables compare: the TOP with the
    most instructions, each with at least MIN_SHARE of the program's."""
    total_ins = meas_doc["total"]["instructions"]
    funcs = sorted(meas_doc["functions"], key=lambda r: -r["instructions"])
    return [r for r in funcs if r["instructions"] >= MIN_SHARE * total_ins][:TOP]


def compare(kernel, factor, target, machine, pred_doc, meas_doc):
    """The comparisons of one kernel, target and machine: a list of dicts, one
    per scope (the program, then its top functions) and metric (instructions,
    then each cache level of the machine's misses)."""
    total_acc = meas_doc["total"]["accesses"]
    funcs = top_functions(meas_doc)
    predicted = {fkey(r): r for r in pred_doc["functions"]}
    scopes = [("program", meas_doc["total"], pred_doc["total"])]
    scopes += [(r["function"] or "(unknown)", r, predicted.get(fkey(r))) for r in funcs]
    rows = []
    for scope, meas, pred in scopes:
        metrics = [("instructions", meas["instructions"],
                    None if pred is None else pred["instructions"],
                    None if pred is None else pred.get("instructions_range"))]
        for level, m in meas["misses"].items():
            p = None if pred is None else pred["misses"].get(level)
            r = None if pred is None else (pred.get("misses_range") or {}).get(level)
            metrics.append((level, m, p, r))
        for metric, m, p, rng in metrics:
            tiny = is_tiny(metric, m, p, total_acc)
            rows.append({
                "kernel": kernel, "factor": factor, "target": target, "machine": machine,
                "scope": scope, "metric": metric, "measured": m, "predicted": p,
                "error": None if p is None else error(p, m),
                "range": rng, "covered": None if p is None else in_range(rng, m),
                "tiny": tiny,
            })
    return rows


def pct(x, digits=1):
    """x percent, signed, to `digits` decimals (three significant digits from
    10^4 on, where decimals say nothing); "-" for None."""
    if x is None:
        return "-"
    return f"{x:+.3g}" if abs(x) >= 1e4 else f"{x:+.{digits}f}"


def count(x):
    """A count in three significant digits."""
    return f"{x:.3g}"


def cell(r):
    """A table cell: the error, then its marks (see the legend)."""
    if r["predicted"] is None:
        return "missing"
    if r["tiny"]:
        return f"† {count(r['measured'])} → {count(r['predicted'])}"
    e = r["error"]
    s = pct(e)
    if r["covered"] is True:
        s += " ✓"
    elif r["covered"] is False:
        s += " ✗"
    if abs(e) > OFF and r["covered"] is not True:
        s += " !"
    return s


def counted(r):
    """Whether a row enters the summary figures: predicted, not a tiny miss count."""
    return r["predicted"] is not None and not r["tiny"]


def levels_of(rows):
    """The (machine, level) pairs in the order they appear."""
    seen = []
    for r in rows:
        if r["metric"] != "instructions" and (r["machine"], r["metric"]) not in seen:
            seen.append((r["machine"], r["metric"]))
    return seen


def kernel_tables(rows, out):
    """Per kernel: one line per target and scope, instructions then misses per
    machine and level."""
    machines = list(dict.fromkeys(r["machine"] for r in rows))
    cols = levels_of(rows)
    for kernel in dict.fromkeys(r["kernel"] for r in rows):
        kr = [r for r in rows if r["kernel"] == kernel]
        out.write(f"#### {kernel}\n\n")
        out.write("| target | scope | instructions measured | error % |")
        out.write("".join(f" {m} {lv} |" for m, lv in cols) + "\n")
        out.write("|---|---|---:|---:|" + "---:|" * len(cols) + "\n")
        for factor in dict.fromkeys(r["factor"] for r in kr):
            fr = [r for r in kr if r["factor"] == factor]
            for scope in dict.fromkeys(r["scope"] for r in fr if r["machine"] == machines[0]):
                sr = [r for r in fr if r["scope"] == scope]
                ins = next(r for r in sr if r["metric"] == "instructions")
                out.write(f"| N={ins['target']} ({factor}) | {scope} | {ins['measured']:,} | {cell(ins)} |")
                for m, lv in cols:
                    c = [r for r in sr if r["machine"] == m and r["metric"] == lv]
                    out.write(f" {cell(c[0]) if c else 'n/a'} |")
                out.write("\n")
        out.write("\n")


def stats(sel):
    """(median |error|, max |error|, n) over the counted rows of sel."""
    errs = [abs(r["error"]) for r in sel if counted(r)]
    if not errs:
        return None, None, 0
    return statistics.median(errs), max(errs), len(errs)


def coverage(sel):
    """(covered, with a range) over the counted rows of sel."""
    ranged = [r for r in sel if counted(r) and r["covered"] is not None]
    return sum(1 for r in ranged if r["covered"]), len(ranged)


def far(sel):
    """(far off, far off and not covered by a range) over the counted rows;
    the second is None when no row has a range."""
    off = [r for r in sel if counted(r) and abs(r["error"]) > OFF]
    if not any(r["covered"] is not None for r in sel):
        return len(off), None
    return len(off), sum(1 for r in off if r["covered"] is not True)


def fmt(x):
    """A median or maximum in percent, as pct without the sign."""
    return pct(x).lstrip("+")


def summary(rows, out):
    """Median and maximum |error| per metric and target, for the program and for
    the functions; then coverage and far-off counts per target."""
    factors = list(dict.fromkeys(r["factor"] for r in rows))
    machines = list(dict.fromkeys(r["machine"] for r in rows))
    metrics = [("instructions", machines[0], "instructions")]
    metrics += [(f"{m} {lv} misses", m, lv) for m, lv in levels_of(rows)]
    out.write("| quantity | target | program median | max | n | functions median | max | n | goal (median) |\n")
    out.write("|---|---|---:|---:|---:|---:|---:|---:|---|\n")
    for factor in factors:
        for label, machine, metric in metrics:
            sel = [r for r in rows if r["factor"] == factor and r["machine"] == machine and r["metric"] == metric]
            pm, px, pn = stats([r for r in sel if r["scope"] == "program"])
            fm, fx, fn = stats([r for r in sel if r["scope"] != "program"])
            goal = GOALS.get(factor)
            verdict = "-"
            if goal is not None and pm is not None:
                ok = pm <= goal and (fm is None or fm <= goal)
                verdict = f"{'met' if ok else 'missed'} (≤ {goal:g}%)"
            out.write(f"| {label} | {factor} | {fmt(pm)} | {fmt(px)} | {pn} | {fmt(fm)} | {fmt(fx)} | {fn} | {verdict} |\n")
    out.write("\n")
    out.write("| target | predictions counted | intervals present | coverage | "
              f"more than {OFF:g}% off | of which the interval misses the measured value |\n")
    out.write("|---|---:|---:|---:|---:|---:|\n")
    for factor in factors:
        sel = [r for r in rows if r["factor"] == factor and
               (r["metric"] != "instructions" or r["machine"] == machines[0])]
        n = sum(1 for r in sel if counted(r))
        cov, ranged = coverage(sel)
        off, unflagged = far(sel)
        cov_s = "n/a" if ranged == 0 else f"{cov / ranged * 100:.0f}% ({cov} of {ranged})"
        out.write(f"| {factor} | {n} | {ranged} | {cov_s} | {off} | {'n/a' if unflagged is None else unflagged} |\n")
    out.write("\n")


def worst(rows, out, how_many):
    """The `how_many` counted predictions furthest off."""
    sel = sorted((r for r in rows if counted(r)), key=lambda r: -abs(r["error"]))[:how_many]
    out.write("| kernel | target | machine | scope | metric | measured | predicted | error % | interval |\n")
    out.write("|---|---|---|---|---|---:|---:|---:|---|\n")
    for r in sel:
        rng = "-" if r["range"] is None else f"[{r['range'][0]:.3g}, {r['range'][1]:.3g}]"
        machine = "-" if r["metric"] == "instructions" else r["machine"]
        out.write(f"| {r['kernel']} | N={r['target']} ({r['factor']}) | {machine} | {r['scope']} | {r['metric']} | "
                  f"{r['measured']:.4g} | {r['predicted']:.4g} | {pct(r['error'])} | {rng} |\n")
    out.write("\n")


def cachegrind_rows(path):
    """The lines of path (kernel factor target D1 LLd measured.json predicted.json
    cachegrind.out), each as a tuple of its fields; exits naming the line when
    one has another number of fields."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 8:
                sys.exit(f"accuracy_compare: {path}:{n}: expected 8 tab-separated fields, got {len(fields)}")
            rows.append(tuple(fields))
    return rows


def cachegrind_table(cg_rows, out):
    """The program's zen4 L1 and L2 misses per kernel and target (cachegrind_rows):
    Cachegrind's D1 and LLd misses against augur's report of the measured run and
    against the prediction."""
    out.write("| kernel | target | level | Cachegrind | measured (augur report) | error % | predicted | error % |\n")
    out.write("|---|---|---|---:|---:|---:|---:|---:|\n")
    for kernel, factor, target, d1, lld, mfile, pfile, _ in cg_rows:
        meas, pred = load(mfile)["total"]["misses"], load(pfile)["total"]["misses"]
        for level, cg in (("L1", float(d1)), ("L2", float(lld))):
            out.write(f"| {kernel} | N={target} ({factor}) | {level} | {cg:.0f} | {meas[level]:.0f} | "
                      f"{pct(error(meas[level], cg))} | {pred[level]:.0f} | {pct(error(pred[level], cg))} |\n")
    out.write("\n")


def augur_name(symbol):
    """A function's name as augur's reports show it: gfortran's module procedure
    "__MODULE_MOD_PROC" as "MODULE::PROC" (src/util/fortran_name.c: the first
    "_MOD_" after the leading "__"), any other symbol unchanged."""
    at = symbol.find("_MOD_", 3)
    if not symbol.startswith("__") or at < 0 or at + 5 >= len(symbol):
        return symbol
    return f"{symbol[2:at]}::{symbol[at + 5:]}"


CG_LEVELS = {"L1": ("D1mr", "D1mw"), "L2": ("DLmr", "DLmw")}   # augur's level: Cachegrind's data miss events


def cachegrind_functions(path):
    """Cachegrind's data misses per function from its output file at path: {name:
    {"L1": D1mr + D1mw, "L2": DLmr + DLmw}}, summed over the function's lines in
    every file (the fn= records; a line's trailing zero counts may be left out).
    Functions of one name in several files are summed: augur's reports are matched
    by name.  Exits naming the file when it has no events line or a count line
    before its fn= record."""
    funcs, events, cur = {}, None, None
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as e:
        sys.exit(f"accuracy_compare: cannot read {path}: {e}")
    with f:
        for n, line in enumerate(f, 1):
            if line.startswith("events:"):
                names = line.split()[1:]
                events = {lv: [names.index(e) + 1 for e in evs] for lv, evs in CG_LEVELS.items()}
            elif line.startswith("fn="):
                cur = funcs.setdefault(augur_name(line[3:].rstrip("\n")), {lv: 0 for lv in CG_LEVELS})
            elif line[:1].isdigit():
                if events is None or cur is None:
                    sys.exit(f"accuracy_compare: {path}:{n}: counts before the events: or fn= line "
                             "(not a Cachegrind output file?)")
                counts = line.split()
                for lv, cols in events.items():
                    cur[lv] += sum(int(counts[c]) for c in cols if c < len(counts))
    if events is None:
        sys.exit(f"accuracy_compare: {path}: no events: line (not a Cachegrind output file?)")
    return funcs


def cachegrind_function_tables(cg_rows, out):
    """Per kernel and target, the measured run's top functions (top_functions):
    Cachegrind's D1 and LL data misses (cachegrind_functions) against augur's
    report of the same size, then how many of the counted (not tiny) figures lie
    within 5%; at the end the same count over all tables."""
    within_all = counted_all = 0
    for kernel, factor, target, _, _, mfile, _, cgfile in cg_rows:
        meas_doc = load(mfile)
        cg = cachegrind_functions(cgfile)
        total_acc = meas_doc["total"]["accesses"]
        out.write(f"#### {kernel}, N={target} ({factor})\n\n")
        out.write("| function | Cachegrind L1 | augur L1 | error % | Cachegrind L2 | augur L2 | error % |\n")
        out.write("|---|---:|---:|---:|---:|---:|---:|\n")
        within = counted_n = 0
        for r in top_functions(meas_doc):
            name = r["function"] or "(unknown)"
            c = cg.get(r["function"])
            cells = []
            for lv in CG_LEVELS:
                a = r["misses"][lv]
                if c is None:
                    cells.append(f"- | {a:.0f} | not in Cachegrind's file")
                    continue
                e = error(a, c[lv])
                if is_tiny(lv, c[lv], a, total_acc):
                    cells.append(f"{c[lv]} | {a:.0f} | †")
                    continue
                counted_n += 1
                within += abs(e) <= CG_GOAL
                cells.append(f"{c[lv]} | {a:.0f} | {pct(e)}")
            out.write(f"| {name} | {' | '.join(cells)} |\n")
        out.write(f"\n{within} of {counted_n} counted figures within {CG_GOAL:.0f}% (†: tiny, not counted).\n\n")
        within_all += within
        counted_all += counted_n
    out.write(f"All tables: {within_all} of {counted_all} counted per-function figures within {CG_GOAL:.0f}% of Cachegrind.\n\n")


def read_time(path):
    """The timed runs of path (accuracy_bench.sh --time: one line per run,
    "kernel factor target rep predicted wall user sys GHz ns GB/s") as a dict
    (kernel, factor, target) -> medians over the runs: predicted, cpu (user +
    sys of each run), wall, and the host's clock, memory latency and
    bandwidth; exits naming the line when one is malformed."""
    runs = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            try:
                if len(fields) != 11:
                    raise ValueError(f"expected 11 fields, got {len(fields)}")
                pred, wall, user, sys_, ghz, ns, gbs = (float(x) for x in fields[4:])
            except ValueError as e:
                sys.exit(f"accuracy_compare: {path}:{n}: {e}")
            runs.setdefault(tuple(fields[:3]), []).append((pred, user + sys_, wall, ghz, ns, gbs))
    med = statistics.median
    return {key: {"predicted": med(r[0] for r in rs), "cpu": med(r[1] for r in rs),
                  "wall": med(r[2] for r in rs), "n": len(rs),
                  "host": tuple(med(r[i] for r in rs) for i in (3, 4, 5))}
            for key, rs in runs.items()}


def time_error(t, what):
    """The error in percent of t's predicted time against its native `what`
    (cpu or wall); None when the native CPU time is under MIN_SECONDS."""
    if t is None or t["cpu"] < MIN_SECONDS:
        return None
    return error(t["predicted"], t[what])


def app_table(rows, times, out):
    """Per application and target: the program's instructions error, the
    median |error| of its functions' instructions, the program's misses per
    machine and level, and the predicted time against native CPU and wall
    time; then the goals of issue 21."""
    machines = list(dict.fromkeys(r["machine"] for r in rows))
    cols = levels_of(rows)
    out.write("| application | target | instructions % | functions: median \\|instructions %\\| |")
    out.write("".join(f" {m} {lv} % |" for m, lv in cols))
    out.write(" host: GHz, memory ns, GB/s | predicted s | native CPU s | wall s | time % (CPU) | time % (wall) |\n")
    out.write("|---|---|---:|---:|" + "---:|" * len(cols) + "---|---:|---:|---:|---:|---:|\n")
    errs = {}
    for kernel in dict.fromkeys(r["kernel"] for r in rows):
        for factor, target in dict.fromkeys((r["factor"], r["target"]) for r in rows if r["kernel"] == kernel):
            sel = [r for r in rows if r["kernel"] == kernel and r["factor"] == factor]
            ins = next(r for r in sel if r["scope"] == "program" and r["metric"] == "instructions")
            fm, _, _ = stats([r for r in sel if r["scope"] != "program" and r["metric"] == "instructions"
                              and r["machine"] == machines[0]])
            out.write(f"| {kernel} | N={target} ({factor}) | {cell(ins)} | {fmt(fm)} |")
            for m, lv in cols:
                c = [r for r in sel if r["scope"] == "program" and r["machine"] == m and r["metric"] == lv]
                out.write(f" {cell(c[0]) if c else 'n/a'} |")
            t = times.get((kernel, factor, str(target)))
            if t is None:
                out.write(" - | - | - | - | - | - |\n")
                continue
            ec, ew = time_error(t, "cpu"), time_error(t, "wall")
            errs[(kernel, factor)] = (ec, ew)
            short = "" if ec is not None else " ‡"
            out.write(f" {t['host'][0]:.2f}, {t['host'][1]:.0f}, {t['host'][2]:.1f} | {t['predicted']:.3g} |"
                      f" {t['cpu']:.2f}{short} | {t['wall']:.2f} | {pct(ec)} | {pct(ew)} |\n")
    out.write("\n")
    goal_factor, goal = GOAL_INSTRUCTIONS
    at = [r for r in rows if r["factor"] == goal_factor and r["scope"] == "program"
          and r["metric"] == "instructions" and r["machine"] == machines[0]]
    if at:
        missed = [f"{r['kernel']} {pct(r['error'])}%" for r in at if r["error"] is None or abs(r["error"]) > goal]
        out.write(f"Instructions within {goal:g}% at {goal_factor} on every application: "
                  f"{'missed (' + ', '.join(missed) + ')' if missed else 'met'} ({len(at)} applications).\n\n")
    out.write("| target | time: median \\|error\\| % against CPU time | against wall time | n | goal (CPU) |\n")
    out.write("|---|---:|---:|---:|---|\n")
    for factor in list(dict.fromkeys(f for _, f in errs)) + ["all"]:
        sel = [e for (_, f), e in errs.items() if factor in ("all", f) and e[0] is not None]
        if not sel:
            continue
        mc = statistics.median(abs(e[0]) for e in sel)
        mw = statistics.median(abs(e[1]) for e in sel)
        verdict = f"{'met' if mc <= GOAL_TIME else 'missed'} (≤ {GOAL_TIME:g}%)"
        out.write(f"| {factor} | {fmt(mc)} | {fmt(mw)} | {len(sel)} | {verdict} |\n")
    out.write("\n")


def write_rows(rows, path):
    """Every comparison as TSV at path (header line first)."""
    keys = ["kernel", "factor", "target", "machine", "scope", "metric", "measured", "predicted",
            "error", "range", "covered", "tiny"]
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\t".join(keys) + "\n")
        for r in rows:
            vals = []
            for k in keys:
                v = r[k]
                if k == "range":
                    v = "" if v is None else f"{v[0]:.6g},{v[1]:.6g}"
                elif k == "error":
                    v = "" if v is None else f"{v:.3f}"
                elif isinstance(v, float):
                    v = f"{v:.6g}"
                vals.append("" if v is None else str(v))
            f.write("\t".join(vals) + "\n")
    os.replace(path + ".tmp", path)


def main():
    """Reads the manifest, writes the tables (and the rows)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("manifest")
    ap.add_argument("--rows", help="also write every comparison to this TSV file")
    ap.add_argument("--worst", type=int, default=15, help="how many of the worst predictions to list")
    ap.add_argument("--cachegrind", help="also the table of Cachegrind's misses from this file (see cachegrind_table)")
    ap.add_argument("--time", help="also the table per application with the timed runs of this file (see read_time)")
    args = ap.parse_args()
    rows = []
    with open(args.manifest, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 6:
                sys.exit(f"accuracy_compare: {args.manifest}:{n}: expected 6 tab-separated fields, got {len(fields)}")
            kernel, factor, target, machine, pfile, mfile = fields
            rows += compare(kernel, factor, target, machine, load(pfile), load(mfile))
    if not rows:
        sys.exit(f"accuracy_compare: {args.manifest} lists no comparisons")
    out = sys.stdout
    if args.time:
        out.write("### Per application: instructions, the program's misses, time against native (errors in percent)\n\n")
        app_table(rows, read_time(args.time), out)
    out.write("### Summary: |error| in percent\n\n")
    summary(rows, out)
    out.write(f"### The {args.worst} predictions furthest off (counted ones)\n\n")
    worst(rows, out, args.worst)
    out.write("### Per kernel: error in percent\n\n")
    kernel_tables(rows, out)
    if args.cachegrind:
        out.write("### The cache model against Cachegrind (zen4's L1 and L2, the program's data misses)\n\n")
        cg_rows = cachegrind_rows(args.cachegrind)
        cachegrind_table(cg_rows, out)
        out.write("### The cache model against Cachegrind per function (zen4's L1 and L2, the measured run's "
                  "top functions, data misses)\n\n")
        cachegrind_function_tables(cg_rows, out)
    if args.rows:
        write_rows(rows, args.rows)


if __name__ == "__main__":
    main()
