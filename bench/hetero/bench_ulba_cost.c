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
 *   RCB               the base method alone (Zoltan's, through the layer;
 *                     or --base)
 *   ULBA PART         ULBA_GROWTH=PART: Eq. (6) sizes, relabelled base runs
 *   ULBA OBJECT       ULBA_GROWTH=OBJECT: anticipated weights, one base run
 *   ULBA alpha 0      ULBA with nothing to anticipate: its overhead alone
 * --parts P models P PEs as P Zoltan parts on the ranks (as the erosion
 * benchmark does), so that 16 PEs can be measured on a 2-core machine
 * without 16 processes competing for 2 cores.
 *
 * With --first, two more rows time a first call: a fresh struct for every
 * call, no trigger attached, so that ULBA has no history and must give the
 * base method's answer (the base alone on a fresh struct, then ULBA over
 * it, each with its own ratio to the base's first call).
 *
 * Options: --cells N (default 40000), --parts P (default: one per rank),
 * --reps K (default 15), --base RCB|HSFC|GREEDY (default RCB: the base
 * method and ULBA_BASE_METHOD), --first 1 (add the first-call rows),
 * --warm-heap 1 (see below), --only K (the base and the K-th row only,
 * for profiling).  The methods
 * are timed alternately, one call of each per round, so that a machine
 * busy with other work slows them alike.  CPU times depend on the
 * machine; the ratios are the figures (docs/erosion.md, ulba/README.md).
 *
 * --warm-heap 1 keeps freed memory in the C library's heap (glibc:
 * allocations up to 32 MB from the heap, never trimmed), so that no call
 * pays page faults for memory an earlier call already touched.  Without
 * it, a call of 10^6 objects spends most of its time faulting in fresh
 * pages, and how many it faults depends on what the calls before it
 * allocated and freed: the same RCB call of 10^6 objects measured 128 ms
 * in one run and 438 ms in another on this machine, with other methods
 * timed between its calls.  With it, the figures are the
 * work each method does, whatever ran before.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif
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

/* CPU seconds (max over ranks) of one Zoltan_LB_Partition with the method
 * set on zz. */
static double time_call(struct Zoltan_Struct *zz)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, rc;
  ZOLTAN_ID_PTR ig, il, eg, el;
  double t0, dt, worst;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = cpu_now();
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el,
                           &ep, &epa);
  dt = cpu_now() - t0;
  if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN) MPI_Abort(MPI_COMM_WORLD, 1); /* a benchmark */
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

/* One row of the table. */
typedef struct bench_run {
  const char *name;   /* printed name ("%s" stands for the base method) */
  const char *method; /* LB_METHOD: "BASE" for the base method, or ULBA */
  const char *growth; /* ULBA_GROWTH, NULL for the default */
  const char *alpha;  /* ULBA_ALPHA, NULL for the default */
  int first;          /* 1: a fresh struct per call, no trigger (no history) */
} bench_run;

/* What one row needs between its calls. */
typedef struct bench_slot {
  ha_app a;                 /* the row's own cells, grown by its own reports */
  struct Zoltan_Struct *zz; /* the row's struct (NULL for first-call rows) */
  adaptive_trigger *tr;     /* the row's trigger (NULL for first-call rows) */
  double *v;                /* reps CPU times */
} bench_slot;

/* A struct on a's cells configured for run r over the base method. */
static struct Zoltan_Struct *make_zz(ha_app *a, const bench_run *r, const char *base, int parts)
{
  struct Zoltan_Struct *zz = ha_make_zz(a);
  char buf[32];
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "FALSE");
  if (parts > 0) {
    snprintf(buf, sizeof buf, "%d", parts);
    Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", buf);
  }
  if (strcmp(r->method, "BASE") == 0) {
    Zoltan_Set_Param(zz, "LB_METHOD", base);
  } else {
    Zoltan_Set_Param(zz, "LB_METHOD", r->method);
    Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", base);
    if (r->growth != NULL) Zoltan_Set_Param(zz, "ULBA_GROWTH", r->growth);
    if (r->alpha != NULL) Zoltan_Set_Param(zz, "ULBA_ALPHA", r->alpha);
  }
  return zz;
}

/* One timed call of row r: a fresh struct for a first call, else four
 * steps of reports to the row's trigger and a call on its struct. */
static double time_row(bench_slot *sl, const bench_run *r, const char *base, int parts)
{
  double t;
  if (r->first) {
    struct Zoltan_Struct *zz = make_zz(&sl->a, r, base, parts);
    t = time_call(zz);
    Zoltan_Destroy(&zz);
    return t;
  }
  report_steps(sl->tr, &sl->a);
  return time_call(sl->zz);
}

int main(int argc, char **argv)
{
  enum { NRUNS = 6 };
  static const bench_run runs[NRUNS] = {{"%s", "BASE", NULL, NULL, 0},
                                        {"ULBA PART (alpha 0.4)", "ULBA", "PART", "0.4", 0},
                                        {"ULBA OBJECT (alpha 0.4)", "ULBA", "OBJECT", "0.4", 0},
                                        {"ULBA alpha 0", "ULBA", "PART", "0", 0},
                                        {"%s first call", "BASE", NULL, NULL, 1},
                                        {"ULBA first call", "ULBA", NULL, NULL, 1}};
  bench_slot slot[NRUNS];
  int cells = 40000, parts = 0, reps = 15, only = -1, first = 0, warm = 0, rank, size, i, k, r;
  const char *base = "RCB";
  double t[NRUNS];
  char name[64];

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
    else if (!strcmp(argv[i], "--first"))
      first = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--base"))
      base = argv[i + 1];
    else if (!strcmp(argv[i], "--warm-heap"))
      warm = atoi(argv[i + 1]);
  }
#ifdef M_MMAP_THRESHOLD
  if (warm) {
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
#endif
  if (cells < 1 || reps < 1 || parts < 0 || (parts > 0 && parts % size != 0) ||
      (strcmp(base, "RCB") && strcmp(base, "HSFC") && strcmp(base, "GREEDY"))) {
    if (rank == 0) fprintf(stderr, "bench_ulba_cost: bad arguments (see the top of the source)\n");
    MPI_Finalize();
    return 2;
  }
  memset(slot, 0, sizeof slot);
  for (k = 0; k < NRUNS; k++) {
    bench_slot *sl = &slot[k];
    t[k] = NAN;
    /* --only keeps the base's row of the same kind, for the ratio. */
    if ((only >= 0 && k != only && k != 0 && !(runs[only].first && k == 4)) ||
        (runs[k].first && !first && only != k && !(only == 5 && k == 4)))
      continue;
    sl->a.rank = rank;
    sl->a.size = size;
    sl->a.side = (int)ceil(sqrt((double)cells));
    sl->a.weight_div = 1.0;
    ha_initial_cells(&sl->a, cells);
    sl->v = malloc((size_t)reps * sizeof *sl->v);
    if (!runs[k].first) {
      sl->zz = make_zz(&sl->a, &runs[k], base, parts);
      sl->tr = adaptive_create(MPI_COMM_WORLD);
      adaptive_set_param(sl->tr, "ADAPTIVE_POLICY", "NEVER");
      adaptive_attach(sl->tr, sl->zz);
    }
  }
  /* Alternate: one call of every row per round. */
  for (r = 0; r < reps; r++)
    for (k = 0; k < NRUNS; k++)
      if (slot[k].v != NULL) slot[k].v[r] = time_row(&slot[k], &runs[k], base, parts);
  for (k = 0; k < NRUNS; k++) {
    if (slot[k].v == NULL) continue;
    qsort(slot[k].v, (size_t)reps, sizeof *slot[k].v, cmp_double);
    t[k] = slot[k].v[reps / 2];
    free(slot[k].v);
    if (slot[k].tr != NULL) adaptive_destroy(&slot[k].tr);
    if (slot[k].zz != NULL) Zoltan_Destroy(&slot[k].zz);
    free(slot[k].a.c);
  }
  if (rank == 0) {
    printf("bench_ulba_cost: %d ranks, %d parts (PEs), %d cells, %s base, median of %d calls; "
           "CPU seconds of one Zoltan_LB_Partition (max over ranks), no migration%s\n",
           size, parts > 0 ? parts : size, cells, base, reps, warm ? ", warm heap" : "");
    for (k = 0; k < NRUNS; k++) {
      /* A first call compares with the base's first call. */
      double ref = runs[k].first ? t[4] : t[0];
      if (isnan(t[k])) continue;
      snprintf(name, sizeof name, runs[k].name, base);
      printf("  %-26s %8.2f ms  %5.2fx %s%s\n", name, 1e3 * t[k], t[k] / ref, base,
             runs[k].first ? " first call" : "");
    }
  }
  MPI_Finalize();
  return 0;
}
