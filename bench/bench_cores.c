/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_cores: speed and quality of the GREEDY, REFINE and GREEDYREFINE
 * cores on seeded heavy-tailed workloads.  Every figure is printed with its
 * ratio to a baseline measured in the same run.
 *
 * Usage: bench_cores [--quick] [--csv FILE]
 *   --quick  10x smaller, for a smoke run
 *   --csv    also time GREEDY and REFINE from 10^3 to 10^7 objects, and at
 *            10^6 objects for 8 to 8192 parts (10^3
 *            parts) and write the series to FILE for the time-vs-N plot
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core_testutil.h"
#include "greedy_core.h"
#include "greedy_util.h"
#include "refine_core.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double_desc(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

/* Best of a few runs, to keep one noisy run from deciding the figure. */
#define REPEATS 3

static void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "bench_cores: out of memory\n");
    exit(2);
  }
  return p;
}

static void block_mapping(size_t n, int nparts, int *part)
{
  for (size_t i = 0; i < n; i++) part[i] = (int)((i * (size_t)nparts) / n);
}

/* Best of REPEATS times of GREEDY on the n weights w into nparts parts
 * (the answer in g), or -1 when GREEDY fails. */
static double time_greedy(size_t n, const double *w, int nparts, int *g)
{
  double best = 1e30;
  for (int r = 0; r < REPEATS; r++) {
    double t0 = now();
    if (greedy_assign(n, 1, w, nparts, NULL, g) != GREEDY_OK) return -1.0;
    double t1 = now();
    best = t1 - t0 < best ? t1 - t0 : best;
  }
  return best;
}

/* Best of REPEATS times of REFINE at tolerance 1.05 from the assignment g
 * on the n weights ws (the answer in out, the statistics of the last run in
 * *st and its return code in *rc), or -1 when REFINE fails. */
static double time_refine(size_t n, const double *ws, int nparts, const int *g, int *out,
                          refine_stats *st, int *rc)
{
  double best = 1e30;
  refine_options o;
  refine_default_options(&o);
  o.tolerance = 1.05;
  for (int r = 0; r < REPEATS; r++) {
    double t0 = now();
    *rc = refine_run(n, 1, ws, nparts, NULL, g, &o, out, st);
    if (*rc < 0) return -1.0;
    double t1 = now();
    best = t1 - t0 < best ? t1 - t0 : best;
  }
  return best;
}

/*
 * The timings of the scaling series: GREEDY on the n weights w into nparts
 * parts (the answer in g), then REFINE from that answer after the objects of
 * every fifth part became 30% heavier (the weights in the scratch ws, the
 * answer in out).  Returns 1 when a strategy fails.
 */
static int time_greedy_then_refine(size_t n, const double *w, int nparts, double *ws, int *g,
                                   int *out, double *tg, double *tr)
{
  refine_stats st;
  int rc;
  *tg = time_greedy(n, w, nparts, g);
  if (*tg < 0.0) return 1;
  for (size_t i = 0; i < n; i++) ws[i] = (g[i] % 5 == 0) ? 1.3 * w[i] : w[i];
  *tr = time_refine(n, ws, nparts, g, out, &st, &rc);
  return *tr < 0.0;
}

/* Best of REPEATS times of sorting the n weights w heaviest first (in the
 * scratch ws): the baseline GREEDY's own sort is measured against. */
static double time_qsort(size_t n, const double *w, double *ws)
{
  double best = 1e30;
  for (int r = 0; r < REPEATS; r++) {
    memcpy(ws, w, n * sizeof(double));
    double t0 = now();
    qsort(ws, n, sizeof(double), cmp_double_desc);
    double t1 = now();
    best = t1 - t0 < best ? t1 - t0 : best;
  }
  return best;
}

/* GREEDY on n heavy-tailed objects; baseline: qsort of the same weights. */
static int bench_greedy(size_t n, int nparts)
{
  zp_rng rng;
  double *w = xmalloc(n * sizeof(double)), *ws = xmalloc(n * sizeof(double));
  int *part = xmalloc(n * sizeof(int)), *blk = xmalloc(n * sizeof(int));
  zp_rng_seed(&rng, 12345);
  ct_heavy_tailed(&rng, n, 1.0, 1000.0, w);
  double t_sort = time_qsort(n, w, ws);
  double t_greedy = time_greedy(n, w, nparts, part);
  if (t_greedy < 0.0 || ct_check_assignment(n, 1, w, nparts, NULL, 1, part)) return 1;
  block_mapping(n, nparts, blk);
  double q = ct_max_rel_load(n, w, nparts, NULL, part);
  double qb = ct_max_rel_load(n, w, nparts, NULL, blk);
  printf("GREEDY  n=%zu parts=%d (w = 1 + 999 U^4)\n", n, nparts);
  printf("  time %.4f s   baseline qsort of the weights %.4f s   ratio %.2f\n", t_greedy, t_sort,
         t_greedy / t_sort);
  printf("  max/avg %.5f   baseline block mapping %.5f   ratio %.4f\n", q, qb, q / qb);
  free(w);
  free(ws);
  free(part);
  free(blk);
  return 0;
}

/* REFINE with 20% of the parts overloaded; baseline: GREEDY on the input. */
static int bench_refine(size_t n, int nparts)
{
  zp_rng rng;
  double *w = xmalloc(n * sizeof(double));
  int *cur = xmalloc(n * sizeof(int)), *out = xmalloc(n * sizeof(int));
  int *g = xmalloc(n * sizeof(int));
  char *over = calloc((size_t)nparts, 1);
  refine_stats st;
  int rc = 0;
  zp_rng_seed(&rng, 777);
  /* Balanced start (GREEDY on uniform weights), then 20% of the parts get
   * 30% more work on every object. */
  for (size_t i = 0; i < n; i++) w[i] = 1.0 + zp_rng_uniform(&rng);
  if (greedy_assign(n, 1, w, nparts, NULL, cur) != GREEDY_OK) return 1;
  for (int k = 0; k < nparts / 5;) {
    int p = (int)zp_rng_below(&rng, (uint64_t)nparts);
    if (!over[p]) {
      over[p] = 1;
      k++;
    }
  }
  for (size_t i = 0; i < n; i++)
    if (over[cur[i]]) w[i] *= 1.3;
  double t_ref = time_refine(n, w, nparts, cur, out, &st, &rc);
  double t_gr = time_greedy(n, w, nparts, g);
  if (t_ref < 0.0 || t_gr < 0.0 || ct_check_assignment(n, 1, w, nparts, NULL, 1, out)) return 1;
  size_t gm = ct_moved(n, cur, g);
  printf("REFINE  n=%zu parts=%d, 20%% of parts overloaded by 30%%, tolerance 1.05\n", n, nparts);
  printf("  time %.4f s   baseline GREEDY %.4f s   ratio %.2f\n", t_ref, t_gr, t_ref / t_gr);
  printf("  max/avg %.5f -> %.5f (%s)   moved %.2f%%   baseline GREEDY moves %.2f%%   ratio %.4f\n",
         st.imbalance_before, st.imbalance_after, rc == REFINE_OK ? "within tolerance" : "WARN",
         100.0 * st.moved / n, 100.0 * gm / n, (double)st.moved / (double)(gm ? gm : 1));
  free(w);
  free(cur);
  free(out);
  free(g);
  free(over);
  return 0;
}

/* Charm++ lb_test shape: block mapping, then every load redrawn. */
static int bench_lbtest(size_t n, int nparts, uint64_t seed)
{
  zp_rng rng;
  double *w = xmalloc(n * sizeof(double));
  int *cur = xmalloc(n * sizeof(int)), *g = xmalloc(n * sizeof(int));
  int *rf = xmalloc(n * sizeof(int)), *gr = xmalloc(n * sizeof(int));
  refine_options o;
  refine_stats sr, sg;
  zp_rng_seed(&rng, seed);
  block_mapping(n, nparts, cur);
  ct_heavy_tailed(&rng, n, 1.0, 1000.0, w);
  refine_default_options(&o);
  o.tolerance = 1.05;
  double t0 = now();
  if (greedy_assign(n, 1, w, nparts, NULL, g) != GREEDY_OK) return 1;
  double t1 = now();
  int rc = refine_run(n, 1, w, nparts, NULL, cur, &o, rf, &sr);
  double t2 = now();
  int rc2 = refine_greedyrefine(n, 1, w, nparts, NULL, cur, &o, gr, &sg);
  double t3 = now();
  if (rc < 0 || rc2 < 0 || ct_check_assignment(n, 1, w, nparts, NULL, 1, g) ||
      ct_check_assignment(n, 1, w, nparts, NULL, 1, rf) ||
      ct_check_assignment(n, 1, w, nparts, NULL, 1, gr))
    return 1;
  double q0 = ct_max_rel_load(n, w, nparts, NULL, cur);
  double qg = ct_max_rel_load(n, w, nparts, NULL, g);
  double qr = ct_max_rel_load(n, w, nparts, NULL, rf);
  double qgr = ct_max_rel_load(n, w, nparts, NULL, gr);
  size_t mg = ct_moved(n, cur, g), mr = ct_moved(n, cur, rf), mgr = ct_moved(n, cur, gr);
  printf("lb_test n=%zu parts=%d (%zu objects/part), block start max/avg %.4f\n", n, nparts,
         n / (size_t)nparts, q0);
  printf("  %-13s max/avg %.5f (x%.4f of GREEDY)  moved %6.2f%%  %.4f s\n", "GREEDY", qg, 1.0,
         100.0 * mg / n, t1 - t0);
  printf("  %-13s max/avg %.5f (x%.4f of GREEDY)  moved %6.2f%%  %.4f s  %s\n", "REFINE 1.05", qr,
         qr / qg, 100.0 * mr / n, t2 - t1, rc == REFINE_OK ? "" : "(WARN)");
  printf("  %-13s max/avg %.5f (x%.4f of GREEDY)  moved %6.2f%%  %.4f s  pass %d\n", "GREEDYREFINE",
         qgr, qgr / qg, 100.0 * mgr / n, t3 - t2, sg.pass);
  free(w);
  free(cur);
  free(g);
  free(rf);
  free(gr);
  return 0;
}

/* Time of GREEDY, REFINE and the qsort baseline against N at 10^3 parts
 * (best of REPEATS), written as CSV for the time-vs-N plot; REFINE starts
 * from GREEDY's answer on the same weights after 20% of the parts got 30%
 * heavier. */
static int bench_scaling(const char *csv, size_t nmax)
{
  FILE *f = fopen(csv, "w");
  if (f == NULL) return 1;
  fprintf(f, "objects,parts,greedy_s,refine_s,qsort_s\n");
  printf("scaling (CSV %s):\n", csv);
  for (size_t n = 1000; n <= nmax; n *= 10) {
    int nparts = 1000;
    zp_rng rng;
    double *w = xmalloc(n * sizeof(double)), *ws = xmalloc(n * sizeof(double));
    int *g = xmalloc(n * sizeof(int)), *out = xmalloc(n * sizeof(int));
    double tg, tr;
    zp_rng_seed(&rng, 99 + n);
    ct_heavy_tailed(&rng, n, 1.0, 1000.0, w);
    double ts = time_qsort(n, w, ws);
    if (time_greedy_then_refine(n, w, nparts, ws, g, out, &tg, &tr)) return 1;
    fprintf(f, "%zu,%d,%.6e,%.6e,%.6e\n", n, nparts, tg, tr, ts);
    printf("  n=%-8zu GREEDY %.4f s  REFINE %.4f s  qsort %.4f s\n", n, tg, tr, ts);
    free(w);
    free(ws);
    free(g);
    free(out);
  }
  fclose(f);
  return 0;
}

/* Time of GREEDY and REFINE at a fixed object count for 8 to 8192 parts:
 * the heap makes GREEDY grow as log P, REFINE's cost follows the number of
 * overloaded parts.  Written as extra rows of the same CSV. */
static int bench_parts(const char *csv, size_t n)
{
  static const int parts[] = {8, 64, 512, 4096, 8192};
  FILE *f = fopen(csv, "a");
  double *w = xmalloc(n * sizeof(double)), *ws = xmalloc(n * sizeof(double));
  int *g = xmalloc(n * sizeof(int)), *out = xmalloc(n * sizeof(int));
  zp_rng rng;
  if (f == NULL) return 1;
  zp_rng_seed(&rng, 4242);
  ct_heavy_tailed(&rng, n, 1.0, 1000.0, w);
  printf("parts scaling at n=%zu (CSV %s):\n", n, csv);
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
    double mx = 0.0, tot = 0.0, tg, tr;
    int P = parts[k];
    double *load = calloc((size_t)P, sizeof(double));
    if (time_greedy_then_refine(n, w, P, ws, g, out, &tg, &tr)) return 1;
    for (size_t i = 0; i < n; i++) {
      load[g[i]] += w[i];
      tot += w[i];
    }
    for (int p = 0; p < P; p++) mx = load[p] > mx ? load[p] : mx;
    fprintf(f, "%zu,%d,%.6e,%.6e,\n", n, P, tg, tr);
    printf("  parts=%-5d GREEDY %.4f s (max/avg %.5f)  REFINE %.4f s\n", P, tg, mx / (tot / P), tr);
    free(load);
  }
  fclose(f);
  free(w);
  free(ws);
  free(g);
  free(out);
  return 0;
}

/* GREEDYREFINE as the layer's sorted path runs it on the root: the
 * weights already heaviest first, a quarter of the objects on part 0 and
 * the rest dealt round the parts (a drastic imbalance, so the GREEDY and
 * keeping passes run), repeated calls on the same buffers, best of 9;
 * against GREEDY's placement of the same sorted weights in the same run. */
static int bench_sorted_path(size_t n, int nparts, uint64_t seed)
{
  zp_rng rng;
  double *w = xmalloc(n * sizeof(double)), tg = 1e30, tgr = 1e30;
  int *cur = xmalloc(n * sizeof(int)), *g = xmalloc(n * sizeof(int));
  int *gr = xmalloc(n * sizeof(int)), rc = 0;
  refine_options o;
  refine_stats sg;
  zp_rng_seed(&rng, seed);
  ct_heavy_tailed(&rng, n, 1.0, 1000.0, w);
  qsort(w, n, sizeof *w, cmp_double_desc);
  for (size_t i = 0; i < n; i++) cur[i] = i < n / 4 ? 0 : (int)(i % (size_t)nparts);
  refine_default_options(&o);
  for (int r = 0; r < 9 && rc == 0; r++) {
    double t0 = now();
    rc |= greedy_assign_in_order(n, 1, w, nparts, NULL, g) != GREEDY_OK;
    double t1 = now();
    rc |= refine_greedyrefine(n, 1, w, nparts, NULL, cur, &o, gr, &sg) < 0;
    double t2 = now();
    tg = t1 - t0 < tg ? t1 - t0 : tg;
    tgr = t2 - t1 < tgr ? t2 - t1 : tgr;
  }
  if (rc || ct_check_assignment(n, 1, w, nparts, NULL, 1, gr)) return 1;
  printf("sorted path n=%zu parts=%d, best of 9 calls\n", n, nparts);
  printf("  %-13s %.4f s\n", "GREEDY", tg);
  printf("  %-13s %.4f s (x%.2f of GREEDY)  max/avg %.5f  moved %6.2f%%  pass %d\n", "GREEDYREFINE",
         tgr, tgr / tg, ct_max_rel_load(n, w, nparts, NULL, gr), 100.0 * ct_moved(n, cur, gr) / n,
         sg.pass);
  free(w);
  free(cur);
  free(g);
  free(gr);
  return 0;
}

/* n heavy-tailed keys in m runs of equal length (the last takes the rest),
 * each heaviest first: the ranks' sorted weights as the root receives
 * them on the sorted path. */
static void sorted_runs(size_t n, int m, uint64_t seed, double *key, size_t *first, size_t *count)
{
  zp_rng rng;
  zp_rng_seed(&rng, seed);
  ct_heavy_tailed(&rng, n, 1.0, 1000.0, key);
  for (int r = 0; r < m; r++) {
    first[r] = n / (size_t)m * (size_t)r;
    count[r] = r == m - 1 ? n - first[r] : n / (size_t)m;
    qsort(key + first[r], count[r], sizeof *key, cmp_double_desc);
  }
}

/* The root's merge of the ranks' sorted weights on the sorted path
 * (greedy_merge_desc): n keys in m runs of equal length, each heaviest
 * first, best of 9 merges; the output's checksum shows that two builds
 * merged alike.  Two runs take their own path (from both ends at once). */
static int bench_merge(size_t n, int m, uint64_t seed)
{
  double *key = xmalloc(n * sizeof(double)), *out = xmalloc(n * sizeof(double)), best = 1e30;
  int *src = xmalloc(n * sizeof(int)), rc = 0;
  size_t *first = xmalloc((size_t)m * sizeof(size_t)), *count = xmalloc((size_t)m * sizeof(size_t));
  unsigned long long sum = 0;
  sorted_runs(n, m, seed, key, first, count);
  for (int rep = 0; rep < 9 && rc == 0; rep++) {
    double t0 = now();
    rc = greedy_merge_desc(m, key, NULL, first, count, out, src) != 0;
    double t = now() - t0;
    best = t < best ? t : best;
  }
  for (size_t k = 0; k < n; k++) sum = sum * 1000003ull + (unsigned long long)src[k];
  if (rc == 0)
    printf("merge n=%zu runs=%d, best of 9: %.4f s (checksum %016llx)\n", n, m, best, sum);
  free(key);
  free(out);
  free(src);
  free(first);
  free(count);
  return rc;
}

/* GREEDY on the root of the sorted path, both ways: the ranks' m sorted
 * runs merged and then placed (greedy_merge_desc, greedy_assign_in_order,
 * the path of ZP_SORTED_PARTS methods) against placed as they merge
 * (greedy_assign_runs, GREEDY's path), into m parts, best of 9 each,
 * alternating; both must give every object the same part. */
static int bench_runs(size_t n, int m, uint64_t seed)
{
  double *key = xmalloc(n * sizeof(double)), *out = xmalloc(n * sizeof(double));
  double t_two = 1e30, t_fused = 1e30;
  int *src = xmalloc(n * sizeof(int)), *pm = xmalloc(n * sizeof(int));
  int *reply = xmalloc(n * sizeof(int)), *pr = xmalloc(n * sizeof(int)), rc = 0;
  size_t *first = xmalloc((size_t)m * sizeof(size_t)), *count = xmalloc((size_t)m * sizeof(size_t));
  size_t *next = xmalloc((size_t)m * sizeof(size_t));
  sorted_runs(n, m, seed, key, first, count);
  for (int rep = 0; rep < 9 && rc == 0; rep++) {
    double t0 = now();
    rc |= greedy_merge_desc(m, key, NULL, first, count, out, src) != 0;
    rc |= greedy_assign_in_order(n, 1, out, m, NULL, pm) != GREEDY_OK;
    /* The answer laid out in the runs, as the ranks get it back. */
    for (int r = 0; r < m; r++) next[r] = first[r];
    for (size_t k = 0; k < n; k++) reply[next[src[k]]++] = pm[k];
    double t1 = now();
    rc |= greedy_assign_runs(m, key, NULL, first, count, m, NULL, pr) != GREEDY_OK;
    double t2 = now();
    t_two = t1 - t0 < t_two ? t1 - t0 : t_two;
    t_fused = t2 - t1 < t_fused ? t2 - t1 : t_fused;
  }
  for (size_t i = 0; rc == 0 && i < n; i++) rc = reply[i] != pr[i];
  if (rc == 0)
    printf("GREEDY on %d runs n=%zu, best of 9: merged then placed %.4f s, placed as merged "
           "%.4f s (x%.2f), same parts\n",
           m, n, t_two, t_fused, t_fused / t_two);
  free(key);
  free(out);
  free(src);
  free(pm);
  free(reply);
  free(pr);
  free(first);
  free(count);
  free(next);
  return rc;
}

int main(int argc, char **argv)
{
  size_t scale = 1;
  const char *csv = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      scale = 10;
    else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
      csv = argv[++i];
  }
  int fail = 0;
  if (csv) {
    fail |= bench_scaling(csv, 10000000 / scale);
    fail |= bench_parts(csv, 1000000 / scale);
  }
  fail |= bench_greedy(1000000 / scale, 1000);
  fail |= bench_refine(1000000 / scale, 1000);
  fail |= bench_lbtest(16000, 1000, 1);
  fail |= bench_lbtest(100000, 1000, 2);
  fail |= bench_lbtest(1000000 / scale, 1000, 3);
  fail |= bench_lbtest(1024, 8, 4);
  fail |= bench_sorted_path(1000000 / scale, 2, 5);
  fail |= bench_sorted_path(1000000 / scale, 64, 6);
  fail |= bench_merge(1000000 / scale, 2, 7);
  fail |= bench_merge(1000000 / scale, 8, 8);
  fail |= bench_runs(1000000 / scale, 2, 9);
  fail |= bench_runs(1000000 / scale, 8, 10);
  if (fail) fprintf(stderr, "bench_cores: a strategy failed its checks\n");
  return fail;
}
