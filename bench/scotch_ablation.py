#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The table of scotch_ablation.sh: for each pass of SCOTCHLB switched off, the rows where
it paid (the figure the pass is for, averaged over the row's steps, or max/avg at least 1%
worse without it) and where it cost (that figure at least 1% better without it), and the
median ratio of the call's time without it to the time with it.

An input is a bench_zoltan (workload, case) or a bench_scotch mesh.  The rows of
bench_zoltan's "modelled_us_per_iter" case are left out: their figures come from measured
times.  Usage: scotch_ablation.py FOLDER (the folder of scotch_ablation.sh's outputs)."""
import csv
import os
import re
import statistics
import sys

PAYS = 0.01  # a figure this much worse without the pass (relative) counts as a gain


def rel_worse(on, off):
    """How much worse `off` is than `on`, relative (positive: worse); figures near 0 compare
    against a floor so that 0 -> 0.0001 is not an infinite change."""
    return (off - on) / max(abs(on), 1e-3)


# What each pass is for, the figure it must improve (lower is better): the modelled iteration
# time (load plus priced cut of the slowest part; on a bench_scotch mesh, with no price on the
# cut, the cut), the cut, the moves (objects plus load moved) or the balance (max/avg).
# Balance is a bound for every pass: max/avg 1% higher without a pass counts as a gain too.
PURPOSE = {"MERGE": ("cut",), "POLISH": ("balance",),
           "STRATEGIES": ("time",), "DESCENT": ("time",), "SHED": ("moves",),
           "FRESH": ("moves",), "BACK": ("moves",), "ORDERS": ("moves",)}


def figure(purpose, method, r):
    if purpose == "time":
        return float(r["cut"]) if method == "PARTITION" else float(r["model_us"])
    if purpose == "cut":
        return float(r["cut"])
    if purpose == "moves":
        return float(r["moved_frac"]) + float(r["moved_load_frac"]) if "moved_frac" in r else 0.0
    return float(r["maxavg"])


def zoltan_rows(path):
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if not r["method"].startswith("SCOTCHLB") or r["case"] == "modelled_us_per_iter":
                continue
            if r["case"].startswith("mean_"):
                continue
            rows.setdefault((r["workload"] + "/" + r["case"], r["method"]), []).append(r)
    return rows


MESH = re.compile(r"(\d+)x\d+ mesh.*?(\d+) parts, IMBALANCE_TOL ([\d.]+).*?median ([\d.]+) s wall"
                  r".*?cut (\d+), max/avg ([\d.]+)")


def mesh_rows(path):
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            m = MESH.search(line)
            if m:
                key = ("mesh/%sx%s-p%s-tol%s" % (m.group(1), m.group(1), m.group(2), m.group(3)),
                       "PARTITION")
                rows[key] = [{"cut": m.group(5), "maxavg": m.group(6), "time_s": m.group(4)}]
    return rows


def mean(rows, f):
    return statistics.mean(f(r) for r in rows)


def compare(base, off, purposes, verdict):
    """Per (input, row) of both runs, the pass's figure averaged over the steps with and
    without the pass, and max/avg; adds what changed by 1% or more to verdict, and returns the
    ratios of the call's time."""
    times = []
    for key, b in base.items():
        o = off.get(key)
        if not o or len(o) != len(b):
            continue
        ds = [rel_worse(mean(b, lambda r: figure(p, key[1], r)),
                        mean(o, lambda r: figure(p, key[1], r))) for p in purposes]
        bal = rel_worse(mean(b, lambda r: float(r["maxavg"])), mean(o, lambda r: float(r["maxavg"])))
        label = "%s %s" % (key[0], key[1])
        text = ", ".join("%s %+.1f%%" % (p, 100 * d) for p, d in zip(purposes, ds))
        if "balance" not in purposes and bal >= PAYS:
            text += ", balance %+.1f%%" % (100 * bal)
        if max(ds) >= PAYS or bal >= PAYS:
            verdict["pays"].append("%s (%s)" % (label, text))
        elif min(ds) <= -PAYS:
            verdict["costs"].append("%s (%s)" % (label, text))
        tb, to = mean(b, lambda r: float(r["time_s"])), mean(o, lambda r: float(r["time_s"]))
        if tb > 0:
            times.append(to / tb)
    return times


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    passes = []
    for name in sorted(os.listdir(folder)):
        m = re.match(r"ablation_(?:mesh_)?([A-Z]+)\.(csv|txt)$", name)
        if m and m.group(1) != "NONE" and m.group(1) not in passes:
            passes.append(m.group(1))
    zb = zoltan_rows(os.path.join(folder, "ablation_NONE.csv"))
    mb = mesh_rows(os.path.join(folder, "ablation_mesh_NONE.txt"))
    print("| pass | what it is for | rows where it pays >= 1% (change without it) | "
          "rows where it costs >= 1% | time without / with (median of rows) |")
    print("|---|---|---|---|---|")
    for p in passes:
        verdict = {"pays": [], "costs": []}
        times = []
        zp = os.path.join(folder, "ablation_%s.csv" % p)
        mp = os.path.join(folder, "ablation_mesh_%s.txt" % p)
        if os.path.exists(zp):
            times += compare(zb, zoltan_rows(zp), PURPOSE[p], verdict)
        if os.path.exists(mp):
            times += compare(mb, mesh_rows(mp), PURPOSE[p], verdict)

        def show(items):
            if not items:
                return "none"
            inputs = sorted({i.split(" ")[0] for i in items})
            return "%d inputs: " % len(inputs) + "; ".join(items)
        t = "%.2f" % statistics.median(times) if times else "-"
        print("| %s | %s | %s | %s | %s |" % (p, ", ".join(PURPOSE[p]), show(verdict["pays"]),
                                             show(verdict["costs"]), t))


if __name__ == "__main__":
    main()
