/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef HETERO_APP_H
#define HETERO_APP_H
/*
 * The cell application shared by the heterogeneous-machine benchmarks
 * (bench_hetero.c, bench_competitor.c): a real Zoltan application whose
 * cells sit on a side x side grid, carry 0.5-1.5 particles of work each (a
 * function of the GID alone), and migrate with Zoltan_Migrate
 * (AUTO_MIGRATE).  Benchmark code, not part of the library.
 */
#include <mpi.h>
#include <zoltan.h>

/* One cell: it travels whole. */
typedef struct ha_cell {
  ZOLTAN_ID_TYPE gid;
  double work; /* particles: abstract load, invariant across machines */
} ha_cell;

/* The cells of one rank. */
typedef struct ha_app {
  ha_cell *c;
  int n, cap;
  int rank, size;
  int side;          /* the grid is side x side cells */
  double weight_div; /* object weight = work / weight_div (homogeneous mode) */
} ha_app;

/* Work of a cell: 0.5 .. 1.5 particles' worth, from its GID alone. */
double ha_cell_work(ZOLTAN_ID_TYPE gid);
/* Work of this rank's cells. */
double ha_local_work(const ha_app *a);
/* Equal cell counts per rank, by GID blocks (the seeds' uniform start);
 * a->rank and a->size must be set. */
void ha_initial_cells(ha_app *a, int cells);
/* A Zoltan struct on MPI_COMM_WORLD with a's callbacks, RCB, one weight,
 * AUTO_MIGRATE and IMBALANCE_TOL 1.02. */
struct Zoltan_Struct *ha_make_zz(ha_app *a);
/* Balance once with zz's current parameters (the cells migrate); returns
 * the cells moved, summed over ranks.  Collective; aborts the benchmark
 * when Zoltan fails. */
long ha_balance(struct Zoltan_Struct *zz, ha_app *a);

#endif
