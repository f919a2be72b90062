#!/usr/bin/env python3
"""exports_check.py — checks the files of `augur export` for
tests/integration/test_exports.sh.

  exports_check.py extrap FILE
      FILE against Extra-P's text input grammar (the ABNF of Extra-P's
      docs/file-formats.md, "Text file format"; spelled out below), in the
      arrangement augur writes (a METRIC, then REGION lines each with its
      DATA lines; the grammar also allows a METRIC after a REGION), and the
      rules its prose and reader add: as many DATA lines after each REGION
      as there are points, as many coordinates per point as parameters, at
      most 4 parameters, each METRIC once (Extra-P 4's reader takes a
      METRIC seen before for the last new one).  Prints "ok P points, R
      regions, M metrics" or the first violation (exit 1), then one line
      per DATA value: "METRIC|REGION|POINT|VALUE VALUE ...".
  exports_check.py csv FILE REPORT.json...
      FILE parsed as RFC 4180 CSV (CRLF records, quoted fields) against
      each run's `augur report --show-startup --format json --top 0`: every row of the
      program, its functions and lines, every metric; prints "ok N records"
      or the mismatches (exit 1).
"""
import csv
import json
import re
import sys

# The ABNF, line by line (VCHAR = %x21-7E, WSP = SP / HTAB):
#   ParameterDefinition = "PARAMETER" 1*(SPACE Parameter) LineEnd ; Parameter = NAME = 1*VCHAR
#   PointsDefinition    = "POINTS" 1*(SPACE Point) LineEnd
#   Point               = "(" Coordinate *(SPACE Coordinate) ")"   ; braces optional for one parameter
#   Coordinate          = ["("] NUMBER [")"]
#   MetricDefinition    = "METRIC" SPACE NAMESTRING LineEnd
#   RegionDefinition    = "REGION" SPACE Callpath LineEnd          ; NAMESTRING without "->"
#   DataDefinition      = "DATA" 1*(SPACE NUMBER) LineEnd
#   NUMBER = ["-" / "+"] 1*DIGIT ["." *DIGIT] ; NAMESTRING = NAME *(VCHAR / WSP)
#   ExtraPTextFile = *CommentLine 1*ParameterDefinition 1*PointsDefinition 1*MeasurementDefinition
NUMBER = r"[-+]?[0-9]+(?:\.[0-9]*)?"
NAMESTRING = r"[\x21-\x7e][\x20-\x7e\t]*"
COORDINATE = r"(?:\(" + NUMBER + r"\)|" + NUMBER + r")"  # ["("] NUMBER [")"], the braces paired
POINT = r"\(" + COORDINATE + r"(?: " + COORDINATE + r")*\)"
LINE = {
    "PARAMETER": re.compile(r"^PARAMETER((?: [\x21-\x7e]+)+)$"),
    "POINTS": re.compile(r"^POINTS((?: (?:" + POINT + r"|" + COORDINATE + r"))+)$"),
    "METRIC": re.compile(r"^METRIC (" + NAMESTRING + r")$"),
    "REGION": re.compile(r"^REGION (" + NAMESTRING + r")$"),
    "DATA": re.compile(r"^DATA((?: " + NUMBER + r")+)$"),
}


def fail(lineno, why):
    print(f"line {lineno}: {why}")
    sys.exit(1)


def points_of(text):
    """The points of a POINTS line's fields, each a tuple of coordinates:
    bare numbers (one parameter), or groups in braces."""
    if "(" not in text:
        return [(float(v),) for v in text.split()]
    groups = re.findall(r"\((" + COORDINATE + r"(?: " + COORDINATE + r")*)\)", text)
    return [tuple(float(v) for v in re.findall(NUMBER, g)) for g in groups]


def check_extrap(path):
    stage, params, points, metrics, data = "comment", [], [], [], []
    metric = region = None
    regions, ndata = set(), 0
    raw = open(path, "rb").read()
    if raw and not raw.endswith(b"\n"):
        fail(raw.count(b"\n") + 1, "no newline at the end")
    for lineno, line in enumerate(raw.decode("ascii").split("\n")[:-1], 1):
        if line.startswith("#") or (line == "" and lineno > 1):  # LineEnd: newlines, then comments
            continue
        word = line.split(" ", 1)[0]
        m = LINE.get(word, re.compile("$^")).match(line)
        if not m:
            fail(lineno, f"not a PARAMETER, POINTS, METRIC, REGION or DATA line of the grammar: {line!r}")
        if word == "PARAMETER":
            if stage not in ("comment", "parameter"):
                fail(lineno, "PARAMETER after the points")
            stage, params = "parameter", params + m.group(1).split()
        elif word == "POINTS":
            if stage not in ("parameter", "points"):
                fail(lineno, "POINTS before PARAMETER or after measurements")
            stage = "points"
            for p in points_of(m.group(1)):
                if len(p) != len(params):
                    fail(lineno, f"a point of {len(p)} coordinates for {len(params)} parameters")
                points.append(p)
        else:
            if stage not in ("points", "measurements"):
                fail(lineno, f"{word} before POINTS")
            stage = "measurements"
            if word == "METRIC":
                if region is not None and ndata != len(points):
                    fail(lineno, f"{ndata} DATA lines for {len(points)} points")
                if m.group(1) in metrics:
                    fail(lineno, f"METRIC {m.group(1)} a second time")
                metric, region, ndata = m.group(1), None, 0
                metrics.append(metric)
            elif word == "REGION":
                if "->" in m.group(1):
                    fail(lineno, "'->' in a region name: Extra-P reads it as a call path")
                if region is not None and ndata != len(points):
                    fail(lineno, f"{ndata} DATA lines for {len(points)} points")
                region, ndata = m.group(1), 0
                regions.add(region)
            else:
                if region is None:
                    fail(lineno, "DATA before a REGION")
                ndata += 1
                if ndata > len(points):
                    fail(lineno, f"more DATA lines than the {len(points)} points")
                data.append(f"{metric}|{region}|{ndata}|{m.group(1).strip()}")
    if not params or not points or not metrics:
        fail(0, "no PARAMETER, POINTS or METRIC line")
    if len(params) > 4:
        fail(0, f"{len(params)} parameters: the text format takes at most 4")
    if region is not None and ndata != len(points):
        fail(0, f"{ndata} DATA lines for {len(points)} points at the end")
    if sorted(points) != points or len(set(points)) != len(points):
        fail(0, "the points are not distinct and ascending")
    print(f"ok {len(points)} points, {len(regions)} regions, {len(metrics)} metrics")
    print("\n".join(data))


def expected_rows(report):
    """(scope, function, module, file, line) -> {(metric, cache): value} of a report."""
    rows = {}

    def add(key, counts):
        values = {(m, ""): counts[m] for m in ("instructions", "reads", "writes", "accesses")}
        values.update({("misses", k): v for k, v in counts["misses"].items()})
        rows[key] = values

    add(("program", "", "", "", ""), report["total"])
    for f in report["functions"]:
        add(("function", f["function"] or "", f["module"] or "", "", ""), f)
    for l in report["lines"]:
        add(("line", l["function"] or "", "", l["file"] or "", str(l["line"] or "")), l)
    return rows


def check_csv(path, reports):
    raw = open(path, "rb").read()
    if raw.replace(b"\r\n", b"").count(b"\n") != raw.count(b"\n") - raw.count(b"\r\n") or not raw.endswith(b"\r\n"):
        print("records do not end in CRLF")
        return 1
    records = list(csv.reader(open(path, newline="", encoding="utf-8"), strict=True))
    header, body = records[0], records[1:]
    params = header[1:header.index("scope")]
    want = {}
    for rep in reports:
        run = rep["runs"][0]
        for key, values in expected_rows(rep).items():
            for (metric, cache), v in values.items():
                want[(str(run["id"]),) + key + (metric, cache)] = (v, run["params"])
    bad, seen = 0, set()

    def say(text):  # the first few mismatches
        if bad < 10:
            print(text)

    for r in body:
        rec = dict(zip(header, r))
        key = (rec["run"], rec["scope"], rec["function"], rec["module"], rec["file"], rec["line"], rec["metric"],
               rec["cache"])
        seen.add(key)
        if key not in want:
            say(f"a record augur's report has not: {r}")
            bad += 1
            continue
        v, run_params = want[key]
        if abs(float(rec["value"]) - v) > 0.05 + 1e-12 * abs(v):  # misses to one decimal
            say(f"{key}: CSV {rec['value']}, report {v}")
            bad += 1
        for p in params:
            if p in run_params and float(rec[p]) != run_params[p]:
                say(f"{key}: parameter {p} {rec[p]}, report {run_params[p]}")
                bad += 1
    missing = set(want) - seen
    for key in sorted(missing)[:5]:
        print(f"missing from the CSV: {key}")
    if bad or missing:
        return 1
    print(f"ok {len(body)} records")
    return 0


def main():
    if sys.argv[1] == "extrap":
        check_extrap(sys.argv[2])
    else:
        sys.exit(check_csv(sys.argv[2], [json.load(open(p)) for p in sys.argv[3:]]))


if __name__ == "__main__":
    main()
