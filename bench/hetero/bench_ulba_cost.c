/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_ulba_cost: what one ULBA balance costs against its base method.
 *
 * The cell application of hetero_app.c on a square grid, RCB as the base,
 * an adaptive trigger attached, and a growing disc of cells (the objects
 * inside it gain work every step).  Before each timed call the application
 * reports four steps of object loads to the trigger (so that ULBA has its
 * per-object rates), then calls Zoltan_LB_Partition without migrating;
 * the figure is the CPU time of that call on this thread (the largest over
 * the ranks), median over --reps calls.  Methods, in one run:
 *   RCB               the base method alone (Zoltan's, through the layer)
 *   ULBA PART         ULBA_GROWTH=PART: Eq. (6) sizes, relabelled base runs
 *   ULBA OBJECT       ULBA_GROWTH=OBJECT: anticipated weights, one base run
 *   ULBA alpha 0      ULBA with nothing to anticipate: its overhead alone
 * --parts P models P PEs as P Zoltan parts on the ranks (as the erosion
 * benchmark does), so that 16 PEs can be measured on a 2-core machine
 * without 16 processes competing for 2 cores.
 *
 * Options: --cells N (default 40000), --parts P (default: one per rank),
 * --reps K (default 15), --only K (RCB and the K-th method only, for
 * profiling).  CPU times depend on the machine; the ratios are
 * the figures (docs/erosion.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zoltan.h>

#include "adaptive_trigger.h"
#include "hetero_app.h"

static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Grow the disc (a quarter of the side in radius, off centre) by one
 * step's worth of work per cell. */
static void grow(ha_app *a, double amount)
{
  double cx = 0.3 * a->side, cy = 0.4 * a->side, r = 0.25 * a->side;
  int i;
  for (i = 0; i < a->n; i++) {
    long k = (long)a->c[i].gid - 1;
    double x = (double)(k % a->side) + 0.5 - cx, y = (double)(k / a->side) + 0.5 - cy;
    if (x * x + y * y < r * r) a->c[i].work += amount;
  }
}

/* Four steps of reports with growth, so that the trigger holds snapshots. */
static void report_steps(adaptive_trigger *t, ha_app *a)
{
  ZOLTAN_ID_TYPE *g = malloc(((size_t)a->n + 1) * sizeof *g);
  double *l = malloc(((size_t)a->n + 1) * sizeof *l);
  int s, i;
  for (s = 0; s < 4; s++) {
    grow(a, 0.02);
    for (i = 0; i < a->n; i++) {
      g[i] = a->c[i].gid;
      l[i] = a->c[i].work;
    }
    adaptive_report_objects(t, a->n, 1, g, l);
    adaptive_should_balance(t, 1e-3);
  }
  free(g);
  free(l);
}

/* Median CPU seconds (max over ranks) of one Zoltan_LB_Partition with the
 * method set on zz. */
static double time_method(struct Zoltan_Struct *zz, adaptive_trigger *t, ha_app *a, int reps)
{
  double *v = malloc((size_t)reps * sizeof *v), med;
  int r;
  for (r = 0; r < reps; r++) {
    int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, rc;
    ZOLTAN_ID_PTR ig, il, eg, el;
    double t0, dt;
    report_steps(t, a);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = cpu_now();
    rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
    dt = cpu_now() - t0;
    if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN) MPI_Abort(MPI_COMM_WORLD, 1); /* a benchmark */
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
    MPI_Allreduce(&dt, &v[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  qsort(v, (size_t)reps, sizeof *v, cmp_double);
  med = v[reps / 2];
  free(v);
  return med;
}

int main(int argc, char **argv)
{
  static const struct {
    const char *name, *method, *growth, *alpha;
  } runs[] = {{"RCB", "RCB", NULL, NULL},
              {"ULBA PART (alpha 0.4)", "ULBA", "PART", "0.4"},
              {"ULBA OBJECT (alpha 0.4)", "ULBA", "OBJECT", "0.4"},
              {"ULBA alpha 0", "ULBA", "PART", "0"}};
  int cells = 40000, parts = 0, reps = 15, only = -1, rank, size, i, k;
  double t[4];
  char buf[32];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--cells"))
      cells = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--parts"))
      parts = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--reps"))
      reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--only"))
      only = atoi(argv[i + 1]);
  }
  if (cells < 1 || reps < 1 || parts < 0 || (parts > 0 && parts % size != 0)) {
    if (rank == 0) fprintf(stderr, "bench_ulba_cost: bad arguments (see the top of the source)\n");
    MPI_Finalize();
    return 2;
  }
  for (k = 0; k < 4; k++) {
    ha_app a;
    t[k] = NAN;
    if (only >= 0 && k != only && k != 0) continue;
    struct Zoltan_Struct *zz;
    adaptive_trigger *tr;
    memset(&a, 0, sizeof a);
    a.rank = rank;
    a.size = size;
    a.side = (int)ceil(sqrt((double)cells));
    a.weight_div = 1.0;
    ha_initial_cells(&a, cells);
    zz = ha_make_zz(&a);
    Zoltan_Set_Param(zz, "AUTO_MIGRATE", "FALSE");
    if (parts > 0) {
      snprintf(buf, sizeof buf, "%d", parts);
      Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", buf);
    }
    Zoltan_Set_Param(zz, "LB_METHOD", runs[k].method);
    if (runs[k].growth != NULL) {
      Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", "RCB");
      Zoltan_Set_Param(zz, "ULBA_GROWTH", runs[k].growth);
      Zoltan_Set_Param(zz, "ULBA_ALPHA", runs[k].alpha);
    }
    tr = adaptive_create(MPI_COMM_WORLD);
    adaptive_set_param(tr, "ADAPTIVE_POLICY", "NEVER");
    adaptive_attach(tr, zz);
    t[k] = time_method(zz, tr, &a, reps);
    adaptive_destroy(&tr);
    Zoltan_Destroy(&zz);
    free(a.c);
  }
  if (rank == 0) {
    printf("bench_ulba_cost: %d ranks, %d parts (PEs), %d cells, RCB base, median of %d calls; "
           "CPU seconds of one Zoltan_LB_Partition (max over ranks), no migration\n",
           size, parts > 0 ? parts : size, cells, reps);
    for (k = 0; k < 4; k++)
      if (!isnan(t[k]))
        printf("  %-26s %8.2f ms  %5.2fx RCB\n", runs[k].name, 1e3 * t[k], t[k] / t[0]);
  }
  MPI_Finalize();
  return 0;
}
