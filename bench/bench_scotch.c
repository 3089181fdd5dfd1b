/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_scotch: how SCOTCHLB's migration cost trades moved objects for edge
 * cut, on the scotch core alone (no MPI).  The input is bench_zoltan's
 * lb_test 2D mesh drift case: a 128 x 128 mesh, loads 10 + 990 U^4, a block
 * mapping onto 16 parts made for earlier loads.  For each cost the
 * REPARTITION approach is run and the moved fraction, the cut and the
 * largest relative load are printed, next to PARTITION from scratch (the
 * baseline of the ratios, measured in the same run).
 *
 * With --mesh S it measures instead what one PARTITION call of the core
 * costs (scotch/README.md, "Cost of a call"): an S x S mesh, loads
 * 1 + 999 U^4, --parts K parts (2), IMBALANCE_TOL --tol T (1.1, Zoltan's
 * default),
 * the wall and processor time of scotchlb_partition (medians of --reps R
 * calls, 3), the Scotch runs, the cut and the largest relative load, at
 * SCOTCHLB_EFFORT --effort (default).
 *
 * Usage: bench_scotch [--costs C1,C2,...] [--skip LIST]
 *        bench_scotch --mesh S [--parts K] [--reps R] [--tol T]
 *                     [--effort fast|default|full] [--skip LIST]
 * --skip LIST: the passes to switch off, as SCOTCHLB_SKIP names them.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scotch_core.h"
#include "zp_rng.h"

#define SIDE  128
#define PARTS 16

/* --skip: the passes left on (SCOTCHLB_SKIP's names; the ablation of
 * scotch/README.md). */
static unsigned g_passes = SCOTCHLB_PASSES_ALL;

/* The compressed rows of a side x side mesh (5-point stencil). */
static void mesh_rows(int side, size_t *start, size_t *adj)
{
  size_t e = 0;
  for (int y = 0; y < side; y++)
    for (int x = 0; x < side; x++) {
      size_t i = (size_t)y * side + x;
      start[i] = e;
      if (x > 0) adj[e++] = i - 1;
      if (x + 1 < side) adj[e++] = i + 1;
      if (y > 0) adj[e++] = i - side;
      if (y + 1 < side) adj[e++] = i + side;
    }
  start[(size_t)side * side] = e;
}

/* Wall time, and the process's processor time: on a machine shared with
 * other work the second varies less from run to run. */
static double now_s(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_time(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* --mesh: the cost of one PARTITION call of the core at Zoltan's default
 * tolerance, on heavy-tailed loads. */
static int cost_of_a_call(int side, int parts, int reps, double tol, const char *effort)
{
  size_t n = (size_t)side * side;
  size_t *start = malloc((n + 1) * sizeof *start), *adj = malloc(4 * n * sizeof *adj);
  double *w = malloc(n * sizeof *w), *t = malloc((size_t)reps * sizeof *t);
  double *cpu = malloc((size_t)reps * sizeof *cpu);
  int *out = malloc(n * sizeof *out), rc = 0;
  zp_rng rng;
  scotchlb_options o;
  scotchlb_stats st;
  if (!start || !adj || !w || !t || !cpu || !out) return 2;
  mesh_rows(side, start, adj);
  zp_rng_seed(&rng, 36);
  for (size_t i = 0; i < n; i++) w[i] = 1.0 + 999.0 * pow(zp_rng_uniform(&rng), 4.0);
  scotchlb_default_options(&o);
  o.passes = g_passes;
  o.approach = SCOTCHLB_PARTITION;
  o.tolerance = tol;
  if (strcmp(effort, "fast") == 0) o.effort = SCOTCHLB_EFFORT_FAST;
  if (strcmp(effort, "full") == 0) o.effort = SCOTCHLB_EFFORT_FULL;
  for (int r = 0; r < reps && rc == 0; r++) {
    double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    rc =
        scotchlb_partition(n, 1, w, start, adj, NULL, parts, NULL, NULL, &o, out, &st, NULL, 0) < 0;
    t[r] = now_s(CLOCK_MONOTONIC) - t0;
    cpu[r] = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_time);
  qsort(cpu, (size_t)reps, sizeof *cpu, cmp_time);
  if (rc == 0)
    printf("bench_scotch: %dx%d mesh, %zu objects, %d parts, IMBALANCE_TOL %g, loads 1 + 999 U^4: "
           "median %.3f s wall, %.3f s processor of %d calls, %d Scotch runs, cut %.0f, max/avg "
           "%.4f\n",
           side, side, n, parts, tol, t[reps / 2], cpu[reps / 2], reps, st.tries, st.cut_after,
           st.imbalance_after);
  free(start);
  free(adj);
  free(w);
  free(t);
  free(cpu);
  free(out);
  return rc;
}

int main(int argc, char **argv)
{
  const char *costs = "0.01,0.05,0.1,0.12,0.15,0.2,0.3,1,3,10";
  size_t n = (size_t)SIDE * SIDE, e = 0;
  size_t *start = malloc((n + 1) * sizeof *start), *adj = malloc(4 * n * sizeof *adj);
  double *w = malloc(n * sizeof *w);
  int *cur = malloc(n * sizeof *cur), *out = malloc(n * sizeof *out);
  zp_rng rng;
  scotchlb_options o;
  scotchlb_stats st, base;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--skip") == 0) {
      char why[160];
      if (scotchlb_parse_skip(argv[i + 1], &g_passes, why, sizeof why) != SCOTCHLB_OK) {
        fprintf(stderr, "bench_scotch: --skip %s: %s\n", argv[i + 1], why);
        return 2;
      }
    }
  if (argc >= 3 && strcmp(argv[1], "--costs") == 0) costs = argv[2];
  if (argc >= 3 && strcmp(argv[1], "--mesh") == 0) {
    int parts = 2, reps = 3;
    const char *effort = "default";
    double tol = 1.1;
    for (int i = 3; i + 1 < argc; i += 2) {
      if (strcmp(argv[i], "--parts") == 0) parts = atoi(argv[i + 1]);
      if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
      if (strcmp(argv[i], "--effort") == 0) effort = argv[i + 1];
      if (strcmp(argv[i], "--tol") == 0) tol = atof(argv[i + 1]);
    }
    free(start);
    free(adj);
    free(w);
    free(cur);
    free(out);
    return cost_of_a_call(atoi(argv[2]), parts, reps > 0 ? reps : 1, tol >= 1.0 ? tol : 1.1,
                          effort);
  }
  if (!start || !adj || !w || !cur || !out) return 2;
  for (int y = 0; y < SIDE; y++)
    for (int x = 0; x < SIDE; x++) {
      size_t i = (size_t)y * SIDE + x;
      start[i] = e;
      if (x > 0) adj[e++] = i - 1;
      if (x + 1 < SIDE) adj[e++] = i + 1;
      if (y > 0) adj[e++] = i - SIDE;
      if (y + 1 < SIDE) adj[e++] = i + SIDE;
    }
  start[n] = e;
  zp_rng_seed(&rng, 101);
  for (size_t i = 0; i < n; i++) w[i] = 10.0 + 990.0 * pow(zp_rng_uniform(&rng), 4.0);
  for (size_t i = 0; i < n; i++) cur[i] = (int)(i * PARTS / n);

  scotchlb_default_options(&o);
  o.passes = g_passes;
  o.tolerance = 1.05;
  o.approach = SCOTCHLB_PARTITION;
  if (scotchlb_partition(n, 1, w, start, adj, NULL, PARTS, NULL, cur, &o, out, &base, NULL, 0) < 0)
    return 1;
  printf("bench_scotch: %dx%d mesh, %d parts, block mapping of earlier loads (max/avg %.4f, "
         "cut %.0f), IMBALANCE_TOL 1.05\n",
         SIDE, SIDE, PARTS, base.imbalance_before, base.cut_before);
  printf("  %-22s %9s %8s %10s %9s\n", "approach", "moved%", "cut", "cut/part.", "max/avg");
  printf("  %-22s %9.2f %8.0f %10.3f %9.4f\n", "PARTITION", 100.0 * base.moved / n, base.cut_after,
         1.0, base.imbalance_after);
  for (const char *p = costs; p && *p;) {
    char label[64];
    o.approach = SCOTCHLB_REPARTITION;
    o.migration_cost = atof(p);
    if (scotchlb_partition(n, 1, w, start, adj, NULL, PARTS, NULL, cur, &o, out, &st, NULL, 0) < 0)
      return 1;
    snprintf(label, sizeof label, "REPARTITION cost %g", o.migration_cost);
    printf("  %-22s %9.2f %8.0f %10.3f %9.4f\n", label, 100.0 * st.moved / n, st.cut_after,
           base.cut_after > 0 ? st.cut_after / base.cut_after : 0.0, st.imbalance_after);
    p = strchr(p, ',');
    if (p) p++;
  }
  free(start);
  free(adj);
  free(w);
  free(cur);
  free(out);
  return 0;
}
