#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A pyzoltan application that knows nothing of zoltan_plugins.

It is written only against Debian's python3-pyzoltan (PySPH's wrapper of
Zoltan), as a user's particle code would be: points with weights, a
ZoltanGeometricPartitioner, one Zoltan_LB_Balance, then the import and
export lists applied.  Our methods reach it either through its own
set_lb_method() (--method GREEDY) or through the environment
(ZOLTAN_PLUGINS_LB_METHOD) with the library preloaded.

It checks what must hold whatever the method: every global ID is owned by
exactly one rank after the balance, the count and the total weight are
conserved, and max/avg load is within --bound when given.  Rank 0 prints
one line with the method pyzoltan reports, max/avg, and a digest of the
whole assignment (GID -> rank), which the test compares between runs.

Usage: mpiexec -n P python3 zp_py_app.py [--method NAME] [--points N]
                                         [--bound B] [--param NAME=VALUE]...
Exit status 0 when the checks pass, 1 when one fails, 2 on bad arguments.
"""
import argparse
import hashlib
import sys

import mpi4py.MPI as mpi  # before pyzoltan, which expects MPI initialised
import numpy as np
from cyarray.api import DoubleArray, UIntArray
from pyzoltan.core import zoltan


def mix(v):
    """A 64-bit integer hash (splitmix64's finaliser): deterministic
    coordinates and weights from the GID alone, whatever the rank count."""
    v = (v + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    v = ((v ^ (v >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    v = ((v ^ (v >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return v ^ (v >> 31)


def weight(g):
    """Heavy-tailed weights from 1 to 16, from the GID alone."""
    return 1.0 + ((mix(g) >> 32) % 16) ** 2 / 15.0


def first_holder(g, points, holders):
    """The rank that holds GID g before the balance (blocks on the lower
    half of the ranks)."""
    return g * holders // points


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", default=None)
    ap.add_argument("--points", type=int, default=2000)
    ap.add_argument("--bound", type=float, default=None)
    ap.add_argument("--param", action="append", default=[])
    try:
        args = ap.parse_args()
    except SystemExit:
        return 2
    if args.points < 1 or any("=" not in p for p in args.param):
        print("zp_py_app: --points must be >= 1 and --param NAME=VALUE", file=sys.stderr)
        return 2

    comm = mpi.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()

    # Block distribution by GID; all points start on the lower half of the
    # ranks so that there is something to balance.
    holders = max(1, size // 2)
    gids = np.array([g for g in range(args.points) if first_holder(g, args.points, holders) == rank],
                    dtype=np.uint32)
    n = len(gids)
    h = np.array([mix(int(g)) for g in gids], dtype=np.uint64)
    x = (h & 0xFFFF).astype(np.float64) / 65536.0
    y = ((h >> 16) & 0xFFFF).astype(np.float64) / 65536.0
    w = np.array([weight(int(g)) for g in gids], dtype=np.float64)

    xa = DoubleArray(n); xa.set_data(x)
    ya = DoubleArray(n); ya.set_data(y)
    za = DoubleArray(n); za.set_data(np.zeros(n))
    ga = UIntArray(n); ga.set_data(gids)
    pz = zoltan.ZoltanGeometricPartitioner(dim=2, comm=comm, x=xa, y=ya, z=za, gid=ga)
    pz.set_num_local_objects(n)
    pz.set_num_global_objects(args.points)
    pz.obj_weight_dim = "1"
    pz.Zoltan_Set_Param("OBJ_WEIGHT_DIM", "1")
    pz.weights.resize(n)
    pz.weights.get_npy_array()[:] = w
    if args.method:
        pz.set_lb_method(args.method)
    for p in args.param:
        name, value = p.split("=", 1)
        pz.Zoltan_Set_Param(name, value)
    pz.Zoltan_Set_Param("DEBUG_LEVEL", "0")
    pz.Zoltan_LB_Balance()

    # Apply the lists: keep what is not exported, add what is imported.
    exported = set(int(g) for g in pz.exportGlobalids.get_npy_array()[: pz.numExport])
    imported = [int(g) for g in pz.importGlobalids.get_npy_array()[: pz.numImport]]
    mine = [int(g) for g in gids if int(g) not in exported] + imported
    load = sum(weight(g) for g in mine)

    everything = comm.gather((mine, load), root=0)
    ok = 1
    if rank == 0:
        owner = {}
        for r, (objs, _) in enumerate(everything):
            for g in objs:
                if g in owner:
                    print("zp_py_app: FAIL: GID %d on ranks %d and %d" % (g, owner[g], r))
                    ok = 0
                owner[g] = r
        if sorted(owner) != list(range(args.points)):
            print("zp_py_app: FAIL: %d GIDs after the balance, %d before" % (len(owner), args.points))
            ok = 0
        loads = [l for _, l in everything]
        total = sum(weight(g) for g in range(args.points))
        if abs(sum(loads) - total) > 1e-9 * total:
            print("zp_py_app: FAIL: total weight %.6f after, %.6f before" % (sum(loads), total))
            ok = 0
        maxavg = max(loads) / (sum(loads) / size)
        if args.bound is not None and maxavg > args.bound:
            print("zp_py_app: FAIL: max/avg %.4f above the bound %.4f" % (maxavg, args.bound))
            ok = 0
        digest = hashlib.sha256(
            ",".join("%d:%d" % (g, owner[g]) for g in sorted(owner)).encode()).hexdigest()[:16]
        moved = sum(1 for g, r in owner.items() if r != first_holder(g, args.points, holders))
        print("zp_py_app: %d ranks, pz.lb_method %s, max/avg %.4f, moved %d, assignment %s, %s"
              % (size, pz.lb_method, maxavg, moved, digest, "passed" if ok else "FAILED"))
    ok = comm.bcast(ok, root=0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
