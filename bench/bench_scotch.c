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
 * Usage: bench_scotch [--costs C1,C2,...]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scotch_core.h"
#include "zp_rng.h"

#define SIDE  128
#define PARTS 16

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
  if (argc == 3 && strcmp(argv[1], "--costs") == 0) costs = argv[2];
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
