/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ulba_loop.c - a time-step loop balanced by LB_METHOD=ULBA over RCB, the adaptive trigger of
 * zoltan_plugins deciding when (README.md here).  Plain Zoltan but for ULBA (link the library
 * ahead of Zoltan, or preload it) and the adaptive_* calls.  Times are modelled (a step takes
 * load / SPEED seconds, a balance LB_COST) so that the decisions do not depend on the machine's
 * load; a real code passes MPI_Wtime() differences and drops adaptive_balance_done (attached,
 * the trigger times the balances).  Usage: mpiexec -n 4 ./ulba_loop [STEPS]; 1 = a check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <zoltan.h>
#include <zoltan_plugins/adaptive_trigger.h>

#define NX      32 /* a grid of NX x NX cells, GIDs 1 .. N (0 marks a cell that left) */
#define N       (NX * NX)
#define SPEED   1000.0 /* modelled work units a rank does per second */
#define LB_COST 0.5    /* modelled seconds per balance, partition and migration */
#define EPS     0.02   /* how much max/avg may rise across a balance */

/* This rank's cells, room for all twice (arrivals come before departures leave); the step. */
static int n, step, rank, size;
static ZOLTAN_ID_TYPE gid[2 * N]; /* the cells' GIDs; the local ID of cell i is i */
static int age[2 * N];            /* steps computed on each cell: the data that migrates */

/* The work of cell g this step: 1, plus up to 0.05 per step in a hot spot around (8, 8). */
static double load(ZOLTAN_ID_TYPE g)
{
  double x = (double)((g - 1) % NX) - 8.0, y = (double)((g - 1) / NX) - 8.0, r2 = x * x + y * y;
  return r2 < 36.0 ? 1.0 + 0.05 * step * (1.0 - r2 / 36.0) : 1.0;
}

/* Zoltan's query and (AUTO_MIGRATE) migration callbacks; the (void) casts silence warnings. */
static int num_obj(void *d, int *ierr) { return (void)d, *ierr = ZOLTAN_OK, n; }
static int num_geom(void *d, int *ierr) { return (void)d, *ierr = ZOLTAN_OK, 2; }
static void obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                     float *w, int *ierr)
{
  for (int i = 0; i < n; i++) gids[i] = gid[i], lids[i] = (ZOLTAN_ID_TYPE)i;
  for (int i = 0; wdim > 0 && i < n; i++) w[i] = (float)load(gid[i]); /* wdim 0: no weights */
  *ierr = ZOLTAN_OK, (void)d, (void)ng, (void)nl;
}
static void geom(void *d, int ng, int nl, int num, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int dim,
                 double *xy, int *ierr)
{
  for (int i = 0; i < num; i++) xy[2 * i] = (gids[i] - 1) % NX, xy[2 * i + 1] = (gids[i] - 1) / NX;
  *ierr = ZOLTAN_OK, (void)d, (void)ng, (void)nl, (void)lids, (void)dim;
}
static int obj_size(void *d, int ng, int nl, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int *ierr)
{
  return (void)d, (void)ng, (void)nl, (void)g, (void)l, *ierr = ZOLTAN_OK, (int)sizeof(int);
}
static void pack(void *d, int ng, int nl, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR lid, int to, int sz,
                 char *buf, int *ierr)
{
  memcpy(buf, &age[*lid], sizeof(int));
  *ierr = ZOLTAN_OK, (void)d, (void)ng, (void)nl, (void)g, (void)to, (void)sz;
}
static void unpack(void *d, int ng, ZOLTAN_ID_PTR g, int sz, char *buf, int *ierr)
{
  gid[n] = *g, memcpy(&age[n++], buf, sizeof(int));
  *ierr = ZOLTAN_OK, (void)d, (void)ng, (void)sz;
}

/* Max/avg of the ranks' loads this step; *mine = this rank's load, *max = the largest. */
static double imbalance(double *mine, double *max)
{
  double sum;
  *mine = 0.0;
  for (int i = 0; i < n; i++) *mine += load(gid[i]);
  MPI_Allreduce(mine, max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return *max / (sum / size);
}

/* Balance number nbal, with AUTO_MIGRATE; print max/avg before and after.  Returns 1 when Zoltan
 * fails, a cell is lost or doubled (GID count and sum) or max/avg rose by more than EPS. */
static int balance(struct Zoltan_Struct *zz, adaptive_trigger *t, int nbal)
{
  int changed, ngid, nlid, nimp, nexp, *iproc, *ipart, *eproc, *epart, k = 0, rc;
  ZOLTAN_ID_PTR igid, ilid, egid, elid;
  long long s[2] = {0, 0};
  double mine, max, before = imbalance(&mine, &max), after;
  rc = Zoltan_LB_Partition(zz, &changed, &ngid, &nlid, &nimp, &igid, &ilid, &iproc, &ipart, &nexp,
                           &egid, &elid, &eproc, &epart);
  for (int i = 0; rc == ZOLTAN_OK && i < nexp; i++) /* cells that left this rank (not its part) */
    if (eproc[i] != rank) gid[elid[i]] = 0;
  for (int i = 0; i < n; i++)
    if (gid[i] != 0) gid[k] = gid[i], age[k++] = age[i];
  n = k;
  Zoltan_LB_Free_Part(&igid, &ilid, &iproc, &ipart);
  Zoltan_LB_Free_Part(&egid, &elid, &eproc, &epart);
  adaptive_balance_done(t, LB_COST); /* the modelled cost replaces the trigger's measurement */
  for (int i = 0; i < n; i++) s[0]++, s[1] += gid[i];
  MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  after = imbalance(&mine, &max);
  if (rank == 0)
    printf("ulba_loop: balance %d, step %d: max/avg %.3f -> %.3f\n", nbal, step, before, after);
  return rc != ZOLTAN_OK || s[0] != N || s[1] != N * (N + 1LL) / 2 || after > before + EPS;
}

int main(int argc, char **argv)
{
  int steps = argc > 1 ? atoi(argv[1]) : 120, nbal = 0, bad;
  double mine, max, loads[N], t_steps = 0.0, final;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int g = 1; rank == 0 && g <= N; g++) gid[n++] = (ZOLTAN_ID_TYPE)g; /* all on rank 0 */
  Zoltan_Initialize(argc, argv, &(float){0}); /* the version is not needed */
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "LB_METHOD", "ULBA");       /* ours: anticipates growth (below) ... */
  Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", "RCB"); /* ... and RCB cuts */
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, NULL);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, NULL);
  Zoltan_Set_Num_Geom_Fn(zz, num_geom, NULL);
  Zoltan_Set_Geom_Multi_Fn(zz, geom, NULL);
  Zoltan_Set_Obj_Size_Fn(zz, obj_size, NULL);
  Zoltan_Set_Pack_Obj_Fn(zz, pack, NULL);
  Zoltan_Set_Unpack_Obj_Fn(zz, unpack, NULL);
  /* The trigger (policy ZHAI), attached to zz: ULBA reads each cell's growth from the loads
   * reported to it, so RCB can cut on the loads expected and underload the hot spot's rank. */
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  if (t == NULL || adaptive_attach(t, zz) != ZOLTAN_OK) MPI_Abort(MPI_COMM_WORLD, 2);
  bad = balance(zz, t, 0); /* the initial partition, a balance for the trigger too */
  for (step = 0; step < steps && !bad; step++) {
    for (int i = 0; i < n; i++) loads[i] = load(gid[i]), age[i]++; /* the step's "work" */
    adaptive_report_objects(t, n, 1, gid, loads);
    imbalance(&mine, &max);
    t_steps += max / SPEED;                             /* the slowest rank's time is the step's */
    int dec = adaptive_should_balance(t, mine / SPEED); /* collective; same answer on every rank */
    if (dec < 0) MPI_Abort(MPI_COMM_WORLD, 3);
    if (dec == 1) bad = balance(zz, t, ++nbal);
  }
  for (int i = 0; i < n; i++) bad |= age[i] != steps || nbal < 1; /* data intact; >= 1 balance */
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  final = imbalance(&mine, &max);
  if (rank == 0)
    printf("ulba_loop: %d ranks, %d steps, %d balances, final max/avg %.3f, time %.2f s: %s\n",
           size, steps, nbal, final, t_steps + (nbal + 1) * LB_COST, bad ? "FAILED" : "OK");
  adaptive_destroy(&t);
  Zoltan_Destroy(&zz);
  MPI_Finalize();
  return bad;
}
