#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The ULBA reference code's stripe partitioner, replayed on its full-size lattice.

The reference experiment (docs/erosion_reference.md, section 6) partitions P
stripes of 2000 x 2000 cells by whole rows: walking the PEs in rank order,
each PE takes consecutive rows while its load plus the next row stays at or
below its target, and the last PE takes every row left.  Each PE therefore
falls short of its target by up to one row, and the shortfalls of the first
P - 1 PEs all land on the last one, which is also the reference's loader
(the last N PEs erode).

This script computes, without running anything else, the load of the last
PE and max/avg right after such a fill, for the standard targets (every PE
the average) and for ULBA's (the N loaders (1 - alpha) of the average, the
others 1 + alpha N / (P - N)), on the reference's lattice: water cells weigh
1, rock cells 0, one disc of radius 2000/3 per stripe, the last disc moved
r/2 towards the domain's end.  Erosion is modelled as the loaders' rows
growing by a factor 1 + G (eroded cells weigh 4 in the reference).

usage: python3 reference_fill.py [--alpha A] [--growth G1,G2,...] [--pes P1,P2,...]
"""
import argparse
import math

STRIPE = 2000
RADIUS = STRIPE // 3


def row_weights(pes):
    """Weight of every row of the domain (rows of STRIPE cells)."""
    weights = []
    for k in range(pes):
        cy = k * STRIPE + STRIPE // 2 + (RADIUS // 2 if k == pes - 1 else 0)
        cx = STRIPE // 2
        for y in range(k * STRIPE, (k + 1) * STRIPE):
            m = RADIUS * RADIUS - (y - cy) * (y - cy)
            # Cells x with (x - cx)^2 < m: |x - cx| <= isqrt(m - 1).
            rock = 0 if m <= 0 else 2 * math.isqrt(m - 1) + 1
            weights.append(STRIPE - rock)
    return weights


def fill(weights, targets):
    """The reference's rule: each PE in turn takes rows while it stays at or
    below its target; the last takes the rest."""
    loads, i = [], 0
    for target in targets[:-1]:
        load = 0
        while i < len(weights) and load + weights[i] <= target:
            load += weights[i]
            i += 1
        loads.append(load)
    loads.append(sum(weights[i:]))
    return loads


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--alpha", type=float, default=0.3)
    ap.add_argument("--growth", default="0,0.05,0.15,0.3")
    ap.add_argument("--pes", default="32,64,128,256")
    ap.add_argument("--loaders", default="1,2,3")
    args = ap.parse_args()
    print("| P | N | loaders' growth G | std: last PE / avg | std: max/avg "
          "| ULBA alpha %.2f: last PE / avg | ULBA: max/avg |" % args.alpha)
    print("|---|---|---|---|---|---|---|")
    for n in (int(v) for v in args.loaders.split(",")):
        for g in (float(v) for v in args.growth.split(",")):
            for p in (int(v) for v in args.pes.split(",")):
                w = row_weights(p)
                cut = (p - n) * STRIPE
                w = w[:cut] + [int(round(x * (1.0 + g))) for x in w[cut:]]
                avg = sum(w) / p
                std = fill(w, [avg] * p)
                ulba = fill(w, [avg * (1 + args.alpha * n / (p - n))] * (p - n) +
                            [avg * (1 - args.alpha)] * n)
                print("| %d | %d | %.2f | %.4f | %.4f | %.4f | %.4f |" %
                      (p, n, g, std[-1] / avg, max(std) / avg, ulba[-1] / avg, max(ulba) / avg))


if __name__ == "__main__":
    main()
