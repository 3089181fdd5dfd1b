/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diffusion_sim: the scale study of DIFFUSION by simulation (docs/diffusion.md).
 * One process runs DIFFUSION's per-rank core functions for P virtual ranks
 * (10^3 to 10^5) on a side x side torus of ranks, as the MPI adapter runs
 * them, counting the messages and bytes instead of sending them; then the
 * objects are routed with the adapter's rule (ranks in decreasing
 * potential, the offers received served first, then own objects by
 * diffusion_select) and the imbalance reached is measured.  Beside it, the
 * centralised path of GREEDY and REFINE: the root gathers 20 bytes per
 * object (ID, weight, part; docs/benchmarks.md) and scatters 4 per object;
 * and REFINE_DISTRIBUTED=1, whose root gathers only the objects of the
 * ranks at or above the average load, after an allreduce of one load per
 * rank (8 bytes per rank, received by every rank).
 *
 * Every virtual rank holds --objects objects of load 10 + 990 U^4 (lb_test's
 * shape); a hotspot multiplies the loads of the ranks near one point so
 * that the starting max/avg is about 1.5.  Nothing is timed: every figure
 * is a count.
 *
 * Usage: diffusion_sim [--sides 32,100,316] [--objects K] [--csv FILE] [--check]
 *   --check  exit 1 unless every configuration ends within max/avg
 *            max(1.05, 1 + heaviest object / average rank load) and
 *            the busiest rank's DIFFUSION bytes at the largest P are within
 *            2x of those at the smallest (issue 16's claim)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffusion_core.h"
#include "zp_rng.h"

/* An object on its way: load, first rank, index there. */
typedef struct simobj {
  double load;
  int origin, index;
} simobj;

/* A growable list of objects. */
typedef struct pool {
  simobj *o;
  int n, cap;
} pool;

static void pool_push(pool *p, simobj x)
{
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 16;
    p->o = realloc(p->o, (size_t)p->cap * sizeof *p->o);
    if (p->o == NULL) {
      fprintf(stderr, "diffusion_sim: out of memory\n");
      exit(2);
    }
  }
  p->o[p->n++] = x;
}

/* The torus of ranks in compressed rows. */
static void torus(int side, size_t **start, int **adj)
{
  int P = side * side;
  *start = malloc(((size_t)P + 1) * sizeof **start);
  *adj = malloc(4 * (size_t)P * sizeof **adj);
  for (int r = 0; r < P; r++) {
    int x = r % side, y = r / side;
    (*start)[r] = 4 * (size_t)r;
    (*adj)[4 * r] = y * side + (x + 1) % side;
    (*adj)[4 * r + 1] = y * side + (x + side - 1) % side;
    (*adj)[4 * r + 2] = ((y + 1) % side) * side + x;
    (*adj)[4 * r + 3] = ((y + side - 1) % side) * side + x;
  }
  (*start)[P] = 4 * (size_t)P;
}

/* Ranks by decreasing potential (ties: lower rank first), the order in
 * which the adapter's offers can flow. */
static const double *g_phi;
static int by_phi(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  if (g_phi[x] != g_phi[y]) return g_phi[x] > g_phi[y] ? -1 : 1;
  return x < y ? -1 : (x > y);
}

/* What one configuration reached, for --check. */
typedef struct outcome {
  double maxavg; /* max/avg after routing */
  double bytes;  /* DIFFUSION bytes received by the busiest rank */
  double bound;  /* 1 + heaviest object / average rank load */
} outcome;

/* One configuration: side x side ranks, k objects each. */
static void run(int side, int k, FILE *csv, outcome *out)
{
  int P = side * side;
  size_t *start, nobj = (size_t)P * k;
  int *adj, *order = malloc((size_t)P * sizeof *order), *dest = malloc((size_t)k * sizeof *dest);
  double *s = malloc(nobj * sizeof *s), *cap = malloc((size_t)P * sizeof *cap);
  double *load = malloc((size_t)P * sizeof *load), *flow, *phi = malloc((size_t)P * sizeof *phi);
  double *final = calloc((size_t)P, sizeof *final), before_max = 0.0, total = 0.0, after_max = 0.0;
  double *start_load = malloc((size_t)P * sizeof *start_load);
  long candidates = 0;
  double q[4], sent[4], *pl = NULL, pool_bytes_max = 0.0;
  long moved = 0;
  pool *pools = calloc((size_t)P, sizeof *pools);
  diffusion_graph g;
  diffusion_stats st;
  diffusion_options o;
  zp_rng rng;
  torus(side, &start, &adj);
  flow = malloc(start[P] * sizeof *flow);
  g.nranks = P;
  g.start = start;
  g.adj = adj;
  zp_rng_seed(&rng, 2026);
  for (int r = 0; r < P; r++) {
    double x = r % side - 0.3 * side, y = r / side - 0.4 * side;
    /* A local hotspot of a few ranks' radius, the same at every P: the
     * imbalance a balancer without a root is for (a gradient across the
     * whole machine needs rounds that grow with its diameter). */
    double hot = 1.0 + 0.5 * exp(-(x * x + y * y) / 4.0);
    cap[r] = 1.0;
    load[r] = 0.0;
    for (int i = 0; i < k; i++) {
      double u = zp_rng_uniform(&rng);
      s[(size_t)r * k + i] = (10.0 + 990.0 * u * u * u * u) * hot;
      load[r] += s[(size_t)r * k + i];
    }
    total += load[r];
    before_max = fmax(before_max, load[r]);
  }
  memcpy(start_load, load, (size_t)P * sizeof *start_load);
  for (int r = 0; r < P; r++)
    if (start_load[r] >= total / P) candidates += k;
  diffusion_default_options(&o);
  o.efficiency = 1.0 / 1.025; /* the adapter's AUTO for IMBALANCE_TOL 1.05 */
  o.accuracy = 1.0 - o.efficiency;
  if (diffusion_simulate(&g, cap, load, &o, flow, phi, &st) < 0) {
    fprintf(stderr, "diffusion_sim: the simulation failed\n");
    exit(2);
  }
  /* Route the objects as diffusion_route does. */
  for (int r = 0; r < P; r++) order[r] = r;
  g_phi = phi;
  qsort(order, (size_t)P, sizeof *order, by_phi);
  for (int t = 0; t < P; t++) {
    int r = order[t];
    pool *in = &pools[r];
    int *pd = malloc(((size_t)in->n + 1) * sizeof *pd);
    pl = realloc(pl, ((size_t)in->n + 1) * sizeof *pl);
    pool_bytes_max = fmax(pool_bytes_max, 16.0 * in->n);
    for (int j = 0; j < 4; j++) {
      size_t e = start[r] + (size_t)j;
      q[j] = flow[e] > 0.0 && phi[r] > phi[adj[e]] ? flow[e] : 0.0;
    }
    for (int i = 0; i < in->n; i++) pl[i] = in->o[i].load;
    diffusion_select((size_t)in->n, pl, 4, q, NULL, 0.0, pd, sent);
    for (int j = 0; j < 4; j++) q[j] = q[j] > sent[j] ? q[j] - sent[j] : 0.0;
    diffusion_select((size_t)k, s + (size_t)r * k, 4, q, NULL, 1.0, dest, NULL);
    for (int i = 0; i < in->n; i++) {
      if (pd[i] >= 0)
        pool_push(&pools[adj[start[r] + (size_t)pd[i]]], in->o[i]);
      else
        final[r] += in->o[i].load;
    }
    for (int i = 0; i < k; i++) {
      simobj x = {s[(size_t)r * k + i], r, i};
      if (dest[i] >= 0) {
        pool_push(&pools[adj[start[r] + (size_t)dest[i]]], x);
        moved++;
      } else {
        final[r] += x.load;
      }
    }
    free(pd);
    free(in->o);
    in->o = NULL;
  }
  for (int r = 0; r < P; r++) after_max = fmax(after_max, final[r]);
  if (getenv("DIFFUSION_SIM_DEBUG")) {
    double dmax = 0.0, lmax = 0.0;
    int worst = 0;
    for (int r = 0; r < P; r++) {
      if (fabs(final[r] - load[r]) > dmax) dmax = fabs(final[r] - load[r]), worst = r;
      lmax = fmax(lmax, load[r]);
    }
    fprintf(stderr,
            "debug: diffused max/avg %.4f; worst routing gap %.1f at rank %d (diffused %.1f, final "
            "%.1f)\n",
            lmax / (total / P), dmax, worst, load[worst], final[worst]);
  }
  {
    double avg = total / P, central_root = 20.0 * (double)nobj;
    double refine_root = 20.0 * (double)candidates + 8.0 * P;
    double diff_bytes = st.max_rank_bytes + pool_bytes_max;
    double heaviest = 0.0;
    for (size_t i = 0; i < nobj; i++) heaviest = fmax(heaviest, s[i]);
    out->maxavg = after_max / avg;
    out->bound = 1.0 + heaviest / avg;
    out->bytes = diff_bytes;
    printf("  %7d %6d %9.3f %9.3f %7.2f%% %6d %6d %9ld %9ld %12.0f %14.0f %14.0f\n", P, k,
           before_max / avg, after_max / avg, 100.0 * moved / (double)nobj, st.rounds, st.sweeps,
           st.exchanges, st.reductions, diff_bytes, central_root, refine_root);
    if (csv)
      fprintf(csv, "%d,%d,%.6f,%.6f,%.6f,%d,%d,%ld,%ld,%.0f,%.0f,%.0f\n", P, k, before_max / avg,
              after_max / avg, moved / (double)nobj, st.rounds, st.sweeps, st.exchanges,
              st.reductions, diff_bytes, central_root, refine_root);
  }
  free(start);
  free(adj);
  free(order);
  free(dest);
  free(s);
  free(cap);
  free(load);
  free(flow);
  free(phi);
  free(final);
  free(start_load);
  free(pl);
  free(pools);
}

int main(int argc, char **argv)
{
  int sides[16] = {32, 100, 316}, nsides = 3, k = 64, check = 0, fail = 0;
  outcome res[16] = {{0.0, 0.0, 0.0}};
  FILE *csv = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sides") && i + 1 < argc) {
      nsides = 0;
      for (char *p = argv[++i]; p && *p && nsides < 16;) {
        char *end;
        sides[nsides++] = (int)strtol(p, &end, 10);
        p = *end == ',' ? end + 1 : NULL;
      }
    } else if (!strcmp(argv[i], "--objects") && i + 1 < argc) {
      k = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--check")) {
      check = 1;
    } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = fopen(argv[++i], "w");
    } else {
      fprintf(stderr, "diffusion_sim: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  for (int i = 0; i < nsides; i++)
    if (sides[i] < 3 || sides[i] > 1000 || k < 1) {
      fprintf(stderr, "diffusion_sim: sides must be in [3, 1000] and --objects >= 1\n");
      return 2;
    }
  printf("diffusion_sim: virtual ranks on a torus (simulated in one process: messages counted, "
         "not sent); IMBALANCE_TOL 1.05\n");
  printf("  %7s %6s %9s %9s %8s %6s %6s %9s %9s %12s %14s %14s\n", "ranks", "obj/rk", "max/avg0",
         "max/avg", "moved", "rounds", "sweeps", "exchanges", "reductns", "DIFF bytes",
         "central root B", "REFINE-dist B");
  if (csv)
    fprintf(csv, "ranks,objects_per_rank,maxavg_before,maxavg_after,moved,rounds,sweeps,"
                 "exchanges,reductions,diffusion_busiest_bytes,central_root_bytes,"
                 "refine_distributed_root_bytes\n");
  for (int i = 0; i < nsides; i++) run(sides[i], k, csv, &res[i]);
  if (csv) fclose(csv);
  if (check) {
    for (int i = 0; i < nsides; i++)
      if (res[i].maxavg > fmax(1.05, res[i].bound)) {
        printf("claim FAILS: %d ranks end at max/avg %.4f (> max(1.05, 1 + heaviest/avg) = %.4f)\n",
               sides[i] * sides[i], res[i].maxavg, fmax(1.05, res[i].bound));
        fail = 1;
      }
    if (res[nsides - 1].bytes > 2.0 * res[0].bytes) {
      printf("claim FAILS: busiest-rank bytes grow %.2fx from %d to %d ranks (> 2x)\n",
             res[nsides - 1].bytes / res[0].bytes, sides[0] * sides[0],
             sides[nsides - 1] * sides[nsides - 1]);
      fail = 1;
    }
    printf("diffusion_sim: %s\n", fail ? "a claim fails" : "every claim holds");
  }
  return fail;
}
