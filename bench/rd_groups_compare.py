#!/usr/bin/env python3
"""rd_groups_compare.py — where a function's predicted misses come from, reuse group by reuse
group and slice by slice: the newest model set's groups of FUNCTION (at 64-byte lines unless
--block) evaluated at N, against the histogram of the same member instructions in a measured run
at N, at a fully-associative capacity of C lines (docs/accuracy.md, "md's miss tail per reuse
group").

Per group: its cold and non-cold touches (model and run), its leading distances' share, and per
slice [u0, u1) of the rest the model's low, high and mean distance at N (the edges made monotone
in u as `augur predict` does: weighted isotonic regression, pools at their weighted medians)
beside the run's rest quantiles at u0 and u1 and its mean over the slice, with the misses of
each at C (the model's spread closest to even with its mean, rd_model.c's above(); the run's
bins spread evenly within each bin, as rd_misses does).  A slice is marked "<==" where the two
differ by more than 2% of the group's touches, and its models are printed.  The run's leading
bins are those at the model's lead distances.  An aid to read a model, not a second
implementation of `augur predict`: its figures match predict's where no clamp applies.

usage: bench/rd_groups_compare.py MODEL_DB MEASURED_DB N C FUNCTION [--block B]
  MODEL_DB      a database `augur model` wrote (its newest set is read)
  MEASURED_DB   a database with the run at N (its instructions are matched by the module's file name
                and address)
  FUNCTION      a prefix of the members' function name (build_neighbours matches
                build_neighbours.constprop.0)
Python 3 standard library."""
import argparse
import json
import math
import sqlite3
import sys


def model_at(con, mid, n):
    """(value at n, formula) of model id mid of con, a one-parameter model."""
    constant, terms, formula = con.execute("SELECT constant, terms, formula FROM models WHERE id = ?",
                                           (mid,)).fetchone()
    v = constant
    for t in json.loads(terms or "[]"):
        p = t["coef"]
        for f in t["factors"]:
            p *= n ** f["exponent"] * math.log2(n) ** f["log"]
        v += p
    return v, formula


def bin_low(b):
    """The smallest distance of histogram bin b (docs/algorithms-rd.md, "Histogram bins")."""
    if b < 16:
        return b
    p, s = 4 + (b - 16) // 8, (b - 16) % 8
    return (8 + s) << (p - 3)


def above(low, high, mean, c):
    """The share of a slice at distances >= c: rd_model.c's above()."""
    if low >= c:
        return 1.0
    if high <= c:
        return 0.0
    t, m = (c - low) / (high - low), (min(max(mean, low), high) - low) / (high - low)
    if m < 1 / 3:
        return 3 * m * (1 - t) ** 2
    if m > 2 / 3:
        return 3 * (1 - m) * (1 - t * t) + 1 - 3 * (1 - m)
    return (1 - t) + 12 * (m - 0.5) * t * (1 - t) / 2


def weighted_median(values, weights):
    """The weighted median of values (the smallest at which half the weight is reached)."""
    pairs, total, acc = sorted(zip(values, weights)), sum(weights), 0.0
    for v, w in pairs:
        acc += w
        if acc >= total / 2:
            return v
    return pairs[-1][0]


def isotonic(edges, weights):
    """edges made nondecreasing: adjacent violators pooled at their weighted median."""
    pools = []
    for v, w in zip(edges, weights):
        pools.append(([v], [w], v))
        while len(pools) > 1 and pools[-2][2] > pools[-1][2]:
            b, a = pools.pop(), pools.pop()
            vs, ws = a[0] + b[0], a[1] + b[1]
            pools.append((vs, ws, weighted_median(vs, ws)))
    return [level for vs, _, level in pools for _ in vs]


class Run:
    """The measured histogram of a set of member addresses: its rest (bins not at the leads)
    as (mean distance, count, bin) ascending, with quantiles, slice means and misses."""

    def __init__(self, con, name, addrs, block, lead_d):
        ids = [i for (i,) in con.execute(
            "SELECT i.id FROM instructions i JOIN modules m ON m.id = i.module_id "
            "WHERE (m.path = ?1 OR m.path LIKE '%%/' || ?1) AND i.addr IN (%s)" % ",".join(map(str, addrs)), (name,))]
        marks = ",".join(map(str, ids)) or "NULL"
        self.cold, total = con.execute("SELECT coalesce(sum(cold), 0), coalesce(sum(touches), 0) FROM histograms "
                                       "WHERE block_size = ? AND instruction_id IN (%s)" % marks, (block,)).fetchone()
        self.touches = total - self.cold
        self.lead, self.lead_far, self.rest = 0, {}, []
        for b, cnt, s in con.execute("SELECT bin, sum(count), sum(sum) FROM hist_bins WHERE block_size = ? AND "
                                     "instruction_id IN (%s) GROUP BY bin" % marks, (block,)):
            mean = s / cnt
            if (b < 16 and b in lead_d) or (b >= 16 and mean == round(mean) and round(mean) in lead_d):
                self.lead += cnt
                self.lead_far[mean] = cnt
            else:
                self.rest.append((mean, cnt, b))
        self.rest.sort()
        self.nrest = sum(c for _, c, _ in self.rest)

    def quantile(self, u):
        """The distance at rank share u of the rest."""
        acc = 0
        for mean, cnt, _ in self.rest:
            acc += cnt
            if acc >= u * self.nrest - 0.5:
                return mean
        return self.rest[-1][0] if self.rest else 0

    def slice(self, u0, u1, c):
        """(mean distance, misses at c) of the rest's share [u0, u1)."""
        lo, hi, acc, total, dist, miss = u0 * self.nrest, u1 * self.nrest, 0, 0, 0, 0
        for mean, cnt, b in self.rest:
            a, acc = acc, acc + cnt
            part = max(0, min(acc, hi) - max(a, lo))
            if part <= 0:
                continue
            total, dist = total + part, dist + part * mean
            bl, bh = bin_low(b), bin_low(b + 1) if b >= 16 else b + 1
            miss += part * (1.0 if bl >= c else 0.0 if bh <= c else (bh - c) / (bh - bl))
        return (dist / total if total else 0), miss


def compare_group(m, r, gid, cold_id, touches_id, n, c, block, out):
    """Write group gid's comparison to out; returns (predicted, measured) misses at c."""
    members = m.execute("SELECT addr, file, line FROM rd_members WHERE group_id = ?", (gid,)).fetchall()
    parts = m.execute("SELECT kind, distance, fraction_model, u_low, u_high, low_model, high_model, mean_model "
                      "FROM rd_parts WHERE group_id = ? ORDER BY position", (gid,)).fetchall()
    leads, slices = [p for p in parts if p[0] == "lead"], [p for p in parts if p[0] == "slice"]
    lead_d = [p[1] for p in leads]
    cold, cold_f = model_at(m, cold_id, n)
    touches, touches_f = model_at(m, touches_id, n)
    module = m.execute("SELECT module FROM rd_groups WHERE id = ?", (gid,)).fetchone()[0] or ""
    run = Run(r, module.split("/")[-1], [a for a, _, _ in members], block, lead_d)
    share = min(max(model_at(m, leads[-1][2], n)[0], 0), 1) if leads else 0.0
    lead_miss, hi = 0.0, share
    for i in range(len(leads) - 1, -1, -1):
        lo = min(max(model_at(m, leads[i - 1][2], n)[0], 0), hi) if i else 0.0
        if leads[i][1] >= c:
            lead_miss += (hi - lo) * touches
        hi = lo
    edges, weights, means = [], [], []
    for p in slices:
        low = max(model_at(m, p[5], n)[0], 0)
        edges += [low, max(model_at(m, p[6], n)[0], low)]
        weights += [max(p[4] - p[3], 1e-12) / 2] * 2
        means.append(model_at(m, p[7], n)[0])
    edges = isotonic(edges, weights)
    where = ", ".join(sorted({f"{(f or '?').split('/')[-1]}:{l}" for _, f, l in members}))
    out.write(f"== group {gid}: {where} ({len(members)} instructions)\n")
    out.write(f"   cold     model {cold:.4g} run {run.cold}   [{cold_f}]\n")
    out.write(f"   touches  model {touches:.4g} run {run.touches}   [{touches_f}]\n")
    run_share = run.lead / run.touches if run.touches else 0
    out.write(f"   leads {lead_d}: share model {share:.4f} run {run_share:.4f}\n")
    rest = touches * (1 - share)
    predicted, measured = cold + lead_miss, run.cold + sum(v for d, v in run.lead_far.items() if d >= c)
    for i, p in enumerate(slices):
        u0, u1 = p[3], p[4]
        low, high, mean = edges[2 * i], edges[2 * i + 1], means[i]
        pm = (u1 - u0) * rest * above(low, high, mean, c)
        mmean, mm = run.slice(u0, u1, c)
        predicted, measured = predicted + pm, measured + mm
        off = abs(pm - mm) > 0.02 * max(1.0, touches)
        out.write(f"   [{u0:.4f},{u1:.4f}) model {low:9.4g} .. {high:9.4g} mean {mean:9.4g} misses {pm:10.4g} | "
                  f"run {run.quantile(u0 + 1e-12):9.4g} .. {run.quantile(u1):9.4g} mean {mmean:9.4g} "
                  f"misses {mm:10.4g}{'  <==' if off else ''}\n")
        if off:
            for name, mid in (("low", p[5]), ("high", p[6]), ("mean", p[7])):
                out.write(f"      {name} = {model_at(m, mid, n)[1]}\n")
    out.write(f"   misses at {c:g} lines: model {predicted:.4g} run {measured:.4g}\n")
    return predicted, measured


def main():
    """Compares every group of the function and writes the totals."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_db")
    ap.add_argument("measured_db")
    ap.add_argument("n", type=float)
    ap.add_argument("c", type=float)
    ap.add_argument("function")
    ap.add_argument("--block", type=int, default=64)
    args = ap.parse_args()
    m, r = sqlite3.connect(args.model_db), sqlite3.connect(args.measured_db)
    set_id = m.execute("SELECT max(id) FROM model_sets").fetchone()[0]
    groups = m.execute("SELECT DISTINCT g.id, g.cold_model, g.touches_model FROM rd_groups g JOIN rd_members mm "
                       "ON mm.group_id = g.id WHERE g.set_id = ? AND g.block_size = ? AND mm.function LIKE ?",
                       (set_id, args.block, args.function + "%")).fetchall()
    if not groups:
        sys.exit(f"rd_groups_compare: no group of a function named {args.function}... in {args.model_db}")
    predicted = measured = 0.0
    for gid, cold_id, touches_id in groups:
        p, q = compare_group(m, r, gid, cold_id, touches_id, args.n, args.c, args.block, sys.stdout)
        predicted, measured = predicted + p, measured + q
    change = f" ({100 * (predicted - measured) / measured:+.1f}%)" if measured else ""
    print(f"{args.function}: misses at {args.c:g} lines: model {predicted:.4g} run {measured:.4g}{change}")


if __name__ == "__main__":
    main()
