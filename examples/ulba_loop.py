#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ulba_loop.py - the time-step loop of ulba_loop.c in Python: LB_METHOD=ULBA over RCB through
Debian's pyzoltan (python3-pyzoltan) and mpi4py, with libzoltan_plugins preloaded:

    mpiexec -n 4 env LD_PRELOAD=/usr/local/lib/libzoltan_plugins.so python3 ulba_loop.py [STEPS]

The same 32 x 32 grid of cells as the C example, all on rank 0 at first, 1 unit of work per cell
and step, more in a hot spot that gets heavier every step; each cell carries a step counter that
migrates with it.  Times are modelled (a step takes load / SPEED seconds, a balance LB_COST), so
the decisions are the same on a busy machine.

What differs from the C example, and why:
- The adaptive trigger is not reachable from Python.  It is a C API (adaptive_should_balance,
  adaptive_attach) that pyzoltan does not wrap, and attaching needs the Zoltan struct, which
  pyzoltan keeps private.  The decision is therefore made here by `ZhaiRule`, a stand-in for the
  trigger's default policy ZHAI (docs/adaptive_trigger.md): reference = the slowest rank's step
  time in the first step after a balance; t_n = median of that time over the last min(n, 3) steps
  since the balance; degradation D += t_n - reference; balance when D >= C, the modelled balance
  cost.  It leaves out what the C trigger adds (the ULBA overhead term, C measured and averaged,
  the agreement checks); with one allreduced T_max per step every rank takes the same decision.
- Without the trigger, ULBA gets no per-cell loads: it measures growth from the weights Zoltan
  sees at successive balances (ulba/README.md, "Where the rates come from", source 1), per part
  and per balancing interval.  The first balance has no rate and is RCB alone; later balances
  underload the part whose load grows fastest once ULBA's score flags it (from 3 ranks on: at 2,
  ULBA falls back to alpha = 0, plain RCB).
- Migration is done by hand: pyzoltan returns the import and export lists, and the counters of
  the exported cells travel with mpi4py (one alltoall).

Checks (exit status 1 when one fails; rank 0 prints FAILED): after every migration every cell is
owned once (count and sum of the GIDs over the ranks, and the imported GIDs are the announced
ones); max/avg after a balance is at most EPS above max/avg before; at least one balance
happened; every cell's counter equals the number of steps at the end.  Exit status 2 when
libzoltan_plugins is not loaded: Zoltan alone would refuse ULBA and silently keep RCB.
"""
import statistics
import sys

import mpi4py.MPI as MPI  # before pyzoltan, which expects MPI initialised
import numpy as np
from cyarray.api import DoubleArray, UIntArray
from pyzoltan.core import zoltan

NX = 32  # a grid of NX x NX cells, GIDs 1 .. N
N = NX * NX
SPEED = 1000.0  # modelled work units a rank does per second
LB_COST = 0.5  # modelled seconds per balance, partition and migration
EPS = 0.02  # how much max/avg may rise across a balance


def load(gids, step):
    """The work of each cell this step: 1, plus up to 0.05 per step in a hot spot at (8, 8)."""
    x = (gids - 1) % NX - 8.0
    y = (gids - 1) // NX - 8.0
    r2 = x * x + y * y
    return np.where(r2 < 36.0, 1.0 + 0.05 * step * (1.0 - r2 / 36.0), 1.0)


class ZhaiRule:
    """Stand-in for adaptive_should_balance with ADAPTIVE_POLICY=ZHAI and a known cost C."""

    def __init__(self, cost):
        self.cost = cost
        self.balanced()

    def balanced(self):
        """A balance happened: the next step is the reference."""
        self.t_max = []
        self.degradation = 0.0

    def should_balance(self, t_max):
        """t_max: the slowest rank's time of this step (the same on every rank)."""
        self.t_max.append(t_max)
        self.degradation += statistics.median(self.t_max[-3:]) - self.t_max[0]
        return self.degradation >= self.cost


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    with open("/proc/self/maps") as maps:
        if "libzoltan_plugins" not in maps.read():
            if rank == 0:
                print("ulba_loop.py: libzoltan_plugins is not loaded; run with "
                      "env LD_PRELOAD=/path/to/libzoltan_plugins.so (docs/python.md)")
            return 2

    # This rank's cells: GIDs and counters; all cells start on rank 0.
    gid = np.arange(1, N + 1, dtype=np.uint32) if rank == 0 else np.zeros(0, dtype=np.uint32)
    age = np.zeros(len(gid), dtype=np.int64)

    # pyzoltan's geometric partitioner reads coordinates, GIDs and weights from these arrays.
    xa, ya, za, ga = DoubleArray(0), DoubleArray(0), DoubleArray(0), UIntArray(0)
    pz = zoltan.ZoltanGeometricPartitioner(dim=2, comm=comm, x=xa, y=ya, z=za, gid=ga)
    pz.set_num_global_objects(N)
    pz.set_lb_method("ULBA")  # ours (preloaded); Zoltan alone would keep RCB
    pz.Zoltan_Set_Param("ULBA_BASE_METHOD", "RCB")
    # Without per-cell rates ULBA takes ULBA_ALPHA x W/P off the part that grows fastest and
    # spreads it over the others (ULBA_GROWTH=PART); a small alpha keeps max/avg after a balance
    # below the imbalance the rule tolerated before it (the default 0.4 would not, at 3-4 ranks).
    pz.Zoltan_Set_Param("ULBA_ALPHA", "0.05")
    pz.Zoltan_Set_Param("OBJ_WEIGHT_DIM", "1")
    pz.obj_weight_dim = "1"
    pz.Zoltan_Set_Param("DEBUG_LEVEL", "0")

    def imbalance(step):
        """(max/avg, this rank's load, the largest load) of the ranks' loads this step."""
        mine = float(load(gid, step).sum())
        top, total = comm.allreduce(mine, op=MPI.MAX), comm.allreduce(mine, op=MPI.SUM)
        return top / (total / size), mine, top

    def balance(step, number):
        """Partition, migrate by hand, check; returns True when a check failed."""
        nonlocal gid, age
        before = imbalance(step)[0]
        n = len(gid)
        for arr, values in ((xa, (gid - 1) % NX), (ya, (gid - 1) // NX), (za, np.zeros(n))):
            arr.resize(n)
            arr.set_data(np.asarray(values, dtype=np.float64))
        ga.resize(n)
        ga.set_data(gid)
        pz.set_num_local_objects(n)
        pz.weights.resize(n)
        pz.weights.get_npy_array()[:] = load(gid, step)
        pz.Zoltan_LB_Balance()

        # Send each exported cell's counter to its new rank; keep the rest, append arrivals.
        ne, ni = pz.numExport, pz.numImport
        lids = pz.exportLocalids.get_npy_array()[:ne].astype(np.int64)
        procs = pz.exportProcs.get_npy_array()[:ne]
        out = [[] for _ in range(size)]
        for lid, proc in zip(lids, procs):
            out[proc].append((int(gid[lid]), int(age[lid])))
        arrived = [cell for part in comm.alltoall(out) for cell in part]
        keep = np.ones(n, dtype=bool)
        keep[lids] = False
        gid = np.concatenate([gid[keep], np.array([g for g, _ in arrived], dtype=np.uint32)])
        age = np.concatenate([age[keep], np.array([a for _, a in arrived], dtype=np.int64)])

        announced = set(int(g) for g in pz.importGlobalids.get_npy_array()[:ni])
        bad = announced != set(g for g, _ in arrived)
        count = comm.allreduce(len(gid), op=MPI.SUM)
        total = comm.allreduce(int(gid.astype(np.int64).sum()), op=MPI.SUM)
        bad = comm.allreduce(bad, op=MPI.LOR) or count != N or total != N * (N + 1) // 2
        after = imbalance(step)[0]
        if rank == 0:
            print("ulba_loop.py: balance %d, step %d: max/avg %.3f -> %.3f"
                  % (number, step, before, after))
        return bad or after > before + EPS

    rule = ZhaiRule(LB_COST)
    bad = balance(0, 0)  # the initial partition
    nbal, t_steps, step = 0, 0.0, 0
    while step < steps and not bad:
        age += 1  # the step's "work"
        _, mine, top = imbalance(step)
        t_steps += top / SPEED  # the slowest rank's time is the step's
        if rule.should_balance(top / SPEED):
            nbal += 1
            bad = balance(step, nbal)
            rule.balanced()
        step += 1
    bad = comm.allreduce(bad or bool(np.any(age != steps)) or nbal < 1, op=MPI.LOR)
    final = imbalance(steps)[0]
    if rank == 0:
        print("ulba_loop.py: %d ranks, %d steps, %d balances, final max/avg %.3f, time %.2f s: %s"
              % (size, steps, nbal, final, t_steps + (nbal + 1) * LB_COST,
                 "FAILED" if bad else "OK"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
