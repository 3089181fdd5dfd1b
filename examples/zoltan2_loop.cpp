// SPDX-License-Identifier: BSD-3-Clause
//
// zoltan2_loop.cpp - a Zoltan2 application that gets zoltan_plugins' methods (README.md here).
// It partitions through Zoltan2's PartitioningProblem with algorithm "zoltan", which hands the
// "zoltan_parameters" sublist to Zoltan: LB_METHOD=GREEDY, REFINE or ULBA there reaches our
// layer when the library is linked ahead of Zoltan or preloaded.  The loop is ulba_loop.c's: a
// 32 x 32 grid whose work grows in a hot spot, every cell on rank 0 at first, times modelled.
//
// Built two ways from this file: linked with zoltan_plugins, the adaptive trigger decides when
// to balance (adaptive_should_balance); built with -DZP_PLAIN_ZOLTAN2 (no link to our library,
// for LD_PRELOAD or for Zoltan alone), it balances every 20 steps.
//
// Usage: mpiexec -n 4 ./zoltan2_loop [METHOD [STEPS [PARTS_FILE]]]   (GREEDY, 60)
// PARTS_FILE receives "gid part" of the first balance, for comparisons.  Exit status 1: a check
// failed; 2: Zoltan2 or Zoltan refused the call (an unknown LB_METHOD without our library).
#include <Kokkos_Core.hpp>
#include <Zoltan2_BasicVectorAdapter.hpp>
#include <Zoltan2_PartitioningProblem.hpp>
#include <dlfcn.h>
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#ifndef ZP_PLAIN_ZOLTAN2
#include <zoltan_plugins/adaptive_trigger.h>
#endif

namespace {
const int NX = 32, N = NX * NX; // cells, GIDs 0 .. N-1
const double SPEED = 1000.0;    // modelled work units a rank does per second
const double LB_COST = 0.5;     // modelled seconds per balance
const double EPS = 0.02;        // how much max/avg may rise across a balance
int rank, size, step;
std::vector<int> owner(N, 0); // the rank owning each cell; every rank keeps the whole map

// The work of cell g this step: 1, plus up to 0.05 per step in a hot spot around (8, 8).
double load(int g)
{
  double x = g % NX - 8.0, y = g / NX - 8.0, r2 = x * x + y * y;
  return r2 < 36.0 ? 1.0 + 0.05 * step * (1.0 - r2 / 36.0) : 1.0;
}

// Max/avg of the ranks' loads; *mine is this rank's load, *max the largest (may be null).
double imbalance(double *mine, double *max_out = nullptr)
{
  double max, sum;
  *mine = 0.0;
  for (int g = 0; g < N; g++)
    if (owner[g] == rank) *mine += load(g);
  MPI_Allreduce(mine, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (max_out) *max_out = max;
  return max / (sum / size);
}

// One Zoltan2 partition of this rank's cells with LB_METHOD=method; parts are ranks.  The new
// owners are exchanged (the application's migration, here just the map).  Returns 0, 1 when a
// check fails (a part out of range, a cell lost or doubled, max/avg rose by more than EPS), or 2
// when Zoltan2 throws.
int balance(const std::string &method, int nbal, const char *parts_file)
{
  // Global IDs as long long: Debian's Tpetra is instantiated for that global ordinal.
  typedef Zoltan2::BasicUserTypes<double, int, long long> types;
  std::vector<long long> gids;
  std::vector<int> parts;
  std::vector<double> x, y, w;
  double mine, before = imbalance(&mine);
  for (int g = 0; g < N; g++)
    if (owner[g] == rank)
      gids.push_back(g), x.push_back(g % NX), y.push_back(g / NX), w.push_back(load(g));
  std::vector<const double *> coords = {x.data(), y.data()}, weights = {w.data()};
  std::vector<int> strides = {1, 1}, wstrides = {1};
  Zoltan2::BasicVectorAdapter<types> adapter(gids.size(), gids.data(), coords, strides, weights,
                                             wstrides);
  Teuchos::ParameterList params;
  params.set("algorithm", "zoltan");
  params.set("imbalance_tolerance", 1.05);
  Teuchos::ParameterList &zp = params.sublist("zoltan_parameters");
  zp.set("LB_METHOD", method); // any name: Zoltan's own or ours
  if (method == "ULBA") zp.set("ULBA_BASE_METHOD", "RCB");
  zp.set("DEBUG_LEVEL", "0");
  try {
    Zoltan2::PartitioningProblem<Zoltan2::BasicVectorAdapter<types>> problem(&adapter, &params,
                                                                             MPI_COMM_WORLD);
    problem.solve();
    const int *p = problem.getSolution().getPartListView();
    parts.assign(p, p + gids.size());
  } catch (std::exception &e) {
    std::fprintf(stderr, "zoltan2_loop: rank %d: Zoltan2 failed: %s\n", rank, e.what());
    return 2;
  }
  // The migration: every rank learns every cell's new owner (a real code moves the cells' data).
  int bad = 0, n = (int)gids.size();
  std::vector<int> counts(size), displs(size), pairs, all(2 * N);
  for (int i = 0; i < n; i++)
    bad |= parts[i] < 0 || parts[i] >= size, pairs.push_back((int)gids[i]),
        pairs.push_back(parts[i]);
  n *= 2;
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; r++) displs[r] = displs[r - 1] + counts[r - 1];
  if (displs[size - 1] + counts[size - 1] != 2 * N)
    bad = 1; // a cell missing or counted twice
  else
    MPI_Allgatherv(pairs.data(), n, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT,
                   MPI_COMM_WORLD);
  std::vector<int> seen(N, 0);
  for (int i = 0; !bad && i < N; i++) seen[all[2 * i]]++, owner[all[2 * i]] = all[2 * i + 1];
  for (int g = 0; g < N; g++) bad |= seen[g] != 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  double after = imbalance(&mine);
  if (rank == 0)
    std::printf("zoltan2_loop: balance %d, step %d: max/avg %.3f -> %.3f\n", nbal, step, before,
                after);
  if (rank == 0 && bad)
    std::printf("zoltan2_loop: check failed: a part out of range, or a cell lost or doubled\n");
  if (after > before + EPS) {
    if (rank == 0)
      std::printf("zoltan2_loop: check failed: max/avg rose from %.3f to %.3f\n", before, after);
    bad = 1;
  }
  if (rank == 0 && parts_file && nbal == 0) {
    FILE *f = std::fopen(parts_file, "w");
    for (int g = 0; f && g < N; g++) std::fprintf(f, "%d %d\n", g, owner[g]);
    if (!f || std::fclose(f) != 0) bad = 1;
  }
  return bad;
}
} // namespace

int main(int argc, char **argv)
{
  std::string method = argc > 1 ? argv[1] : "GREEDY";
  int steps = argc > 2 ? std::atoi(argv[2]) : 60, nbal = 0, bad;
  const char *parts_file = argc > 3 ? argv[3] : nullptr;
  double mine, t_steps = 0.0, final;
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard kokkos(argc, argv); // Zoltan2's adapters hold Kokkos views
    MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_Comm_size(MPI_COMM_WORLD, &size);
    // Zoltan alone rejects our names and silently keeps RCB; say so instead of running RCB.
    bool ours = dlsym(RTLD_DEFAULT, "zp_version") != nullptr, native = false;
    for (const char *m :
         {"RCB", "RIB", "HSFC", "BLOCK", "RANDOM", "GRAPH", "HYPERGRAPH", "PHG", "NONE"})
      native |= method == m;
    if (!ours && !native) {
      if (rank == 0)
        std::fprintf(stderr,
                     "zoltan2_loop: LB_METHOD=%s needs zoltan_plugins: link it ahead of Zoltan or "
                     "preload it\n",
                     method.c_str());
      bad = 2;
      goto out;
    }
#ifndef ZP_PLAIN_ZOLTAN2
    // The trigger (Zhai's rule) on its own: Zoltan2 builds a new Zoltan struct per solve, so
    // there is no struct to attach it to; the application reports its step times and the cost
    // of each balance.  ULBA then has no history of its own either (README.md here).
    adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
    if (t == nullptr) MPI_Abort(MPI_COMM_WORLD, 2);
#endif
    bad = balance(method, 0, parts_file); // the initial partition
    for (step = 0; step < steps && !bad; step++) {
      double max;
      imbalance(&mine, &max);
      t_steps += max / SPEED; // the slowest rank's time is the step's
#ifndef ZP_PLAIN_ZOLTAN2
      int dec = adaptive_should_balance(t, mine / SPEED); // collective; same answer everywhere
      if (dec < 0) MPI_Abort(MPI_COMM_WORLD, 3);
#else
      int dec = step % 20 == 19;
#endif
      if (dec == 1) {
        bad = balance(method, ++nbal, nullptr);
#ifndef ZP_PLAIN_ZOLTAN2
        adaptive_balance_done(t, LB_COST);
#endif
      }
    }
    if (!bad && steps > 0 && nbal < 1) {
      if (rank == 0) std::printf("zoltan2_loop: check failed: no balance in %d steps\n", steps);
      bad = 1;
    }
    final = imbalance(&mine);
    if (rank == 0)
      std::printf("zoltan2_loop: %s, %d ranks, %d steps, %d balances, final max/avg %.3f, time "
                  "%.2f s: %s\n",
                  method.c_str(), size, steps, nbal, final, t_steps + (nbal + 1) * LB_COST,
                  bad ? "FAILED" : "OK");
#ifndef ZP_PLAIN_ZOLTAN2
    adaptive_destroy(&t);
#endif
  }
out:
  MPI_Finalize();
  return bad;
}
