/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_auto_cost: what one LB_METHOD=AUTO balance costs against the
 * methods it runs (issue 36, "the fast path").
 *
 * An application of N objects on a square grid (GIDs 1..N in blocks over
 * the ranks, heavy-tailed weights that are a function of the GID alone,
 * 2-D coordinates, and with --graph the grid's 4-neighbour edges) calls
 * Zoltan_LB_Partition without migrating, so that every call sees the same
 * problem.  The figure of one call is its wall time, the largest over the
 * ranks after a barrier; each figure is the median over --reps calls, the
 * configurations taken in turn within every repetition so that a change
 * of the machine's load reaches all of them alike.
 *
 *   between re-evaluations: for each method X of --chosen, X set directly
 *     against AUTO whose choice is X (a hints file names X, and
 *     AUTOLB_REEVALUATE is large, so that AUTO keeps it); the ratio must
 *     be at most 1.1.
 *   re-evaluation: AUTO with AUTOLB_REEVALUATE=1 (every call tries the
 *     candidates) against the sum of each candidate set directly (the
 *     candidates rules R2 and R3 name for this application, and R4's with
 *     --graph); the ratio must be at most 1.
 *
 * Options: --objects N (total over ranks, default 100000), --reps K
 * (default 5), --chosen LIST (default GREEDY,RCB), --graph, --only NAME
 * (time one configuration only, for `perf record`: a name of --chosen for
 * AUTO keeping it, "direct:X" for X set directly, or "reeval"), --digest
 * (print a digest of each configuration's last answer: AUTO keeping X
 * gives X's, and a change of the layer that keeps the answers keeps them).
 * Wall times depend on the machine; the ratios are the figures
 * (docs/loaddb.md, "What a call of AUTO costs").
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#define MAX_CONF 16

/* The objects of this rank: GIDs first .. first + n - 1. */
typedef struct app {
  long first; /* first GID of this rank */
  int n;      /* objects of this rank */
  long total; /* objects of all ranks */
  long side;  /* the grid is side columns wide */
  int graph;  /* 1 when the edge callbacks are registered */
} app;

/* One configuration: a struct and its timings. */
typedef struct conf {
  char name[64];
  struct Zoltan_Struct *zz;
  double *t;       /* reps wall times */
  uint64_t digest; /* of the last call's answer, see timed_call */
} conf;

/* A hash of the GID, so that weights need no random-number state. */
static uint64_t mix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* Pareto weights (shape 1.5, at least 1), capped at 1000: heavy-tailed. */
static float weight_of(long gid)
{
  double u = ((double)(mix((uint64_t)gid) >> 11) + 0.5) / 9007199254740992.0;
  double w = pow(u, -1.0 / 1.5);
  return (float)(w < 1000.0 ? w : 1000.0);
}

static int cb_num_obj(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((app *)d)->n;
}

static void cb_obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int wdim,
                        float *w, int *ierr)
{
  const app *a = d;
  int i;
  (void)ng;
  (void)nl;
  for (i = 0; i < a->n; i++) {
    g[i] = (ZOLTAN_ID_TYPE)(a->first + i);
    l[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i] = weight_of(a->first + i);
  }
  *ierr = ZOLTAN_OK;
}

static int cb_num_geom(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 2;
}

static void cb_geom_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int dim,
                          double *x, int *ierr)
{
  const app *a = d;
  int i;
  (void)ng;
  (void)nl;
  (void)l;
  for (i = 0; i < n; i++) {
    long k = (long)g[i] - 1;
    x[(size_t)i * dim] = (double)(k % a->side) + 0.5;
    x[(size_t)i * dim + 1] = (double)(k / a->side) + 0.5;
  }
  *ierr = ZOLTAN_OK;
}

/* The grid neighbours of object k (0-based) that exist, into nb. */
static int neighbours(const app *a, long k, long nb[4])
{
  long c = k % a->side, m = 0;
  if (c > 0) nb[m++] = k - 1;
  if (c + 1 < a->side && k + 1 < a->total) nb[m++] = k + 1;
  if (k - a->side >= 0) nb[m++] = k - a->side;
  if (k + a->side < a->total) nb[m++] = k + a->side;
  return (int)m;
}

static long owner(const app *a, long k, int size)
{
  long per = (a->total + size - 1) / size;
  return k / per;
}

static void cb_num_edges_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l,
                               int *ne, int *ierr)
{
  const app *a = d;
  long nb[4];
  int i;
  (void)ng;
  (void)nl;
  (void)l;
  for (i = 0; i < n; i++) ne[i] = neighbours(a, (long)g[i] - 1, nb);
  *ierr = ZOLTAN_OK;
}

static void cb_edge_list_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l,
                               int *ne, ZOLTAN_ID_PTR nbr, int *procs, int wdim, float *ew,
                               int *ierr)
{
  const app *a = d;
  long nb[4];
  int i, j, m, size, e = 0;
  (void)ng;
  (void)nl;
  (void)l;
  (void)ne;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (i = 0; i < n; i++) {
    m = neighbours(a, (long)g[i] - 1, nb);
    for (j = 0; j < m; j++, e++) {
      nbr[e] = (ZOLTAN_ID_TYPE)(nb[j] + 1);
      procs[e] = (int)owner(a, nb[j], size);
      if (wdim > 0) ew[e] = 1.0f;
    }
  }
  *ierr = ZOLTAN_OK;
}

static struct Zoltan_Struct *make_zz(app *a)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "ALL");
  Zoltan_Set_Param(zz, "IMBALANCE_TOL", "1.05");
  Zoltan_Set_Num_Obj_Fn(zz, cb_num_obj, a);
  Zoltan_Set_Obj_List_Fn(zz, cb_obj_list, a);
  Zoltan_Set_Num_Geom_Fn(zz, cb_num_geom, a);
  Zoltan_Set_Geom_Multi_Fn(zz, cb_geom_multi, a);
  if (a->graph) {
    Zoltan_Set_Param(zz, "EDGE_WEIGHT_DIM", "1");
    Zoltan_Set_Num_Edges_Multi_Fn(zz, cb_num_edges_multi, a);
    Zoltan_Set_Edge_List_Multi_Fn(zz, cb_edge_list_multi, a);
  }
  return zz;
}

/* A candidate spec "METHOD" or "METHOD:NAME=VALUE", set directly. */
static struct Zoltan_Struct *make_spec(app *a, const char *spec)
{
  struct Zoltan_Struct *zz = make_zz(a);
  char method[64], name[64];
  const char *colon = strchr(spec, ':'), *eq = colon != NULL ? strchr(colon, '=') : NULL;
  snprintf(method, sizeof method, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
  Zoltan_Set_Param(zz, "LB_METHOD", method);
  if (eq != NULL) {
    snprintf(name, sizeof name, "%.*s", (int)(eq - colon - 1), colon + 1);
    Zoltan_Set_Param(zz, name, eq + 1);
  }
  return zz;
}

/* One call of Zoltan_LB_Partition: its wall time, the largest over the
 * ranks.  *digest receives a digest of the answer that does not depend on
 * the order of the lists (a sum over the exported objects of a hash of
 * GID and new part, over all ranks), so that two builds, or AUTO and the
 * method it keeps, can be compared for the same answer.  Aborts when the
 * call fails. */
static double timed_call(struct Zoltan_Struct *zz, const char *name, uint64_t *digest)
{
  int changes, ng, nl, nimp, nexp, *ip, *ipa, *ep, *epa, ierr, i;
  ZOLTAN_ID_PTR ig, il, eg, el;
  double t0, t, tmax;
  uint64_t mine = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  ierr = Zoltan_LB_Partition(zz, &changes, &ng, &nl, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el,
                             &ep, &epa);
  t = MPI_Wtime() - t0;
  if (ierr < 0) {
    fprintf(stderr, "bench_auto_cost: %s failed with %d\n", name, ierr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (i = 0; i < nexp; i++)
    mine += mix(((uint64_t)eg[(size_t)i * ng] << 20) ^ (uint64_t)(epa != NULL ? epa[i] : ep[i]));
  MPI_Allreduce(&mine, digest, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return tmax;
}

static int cmp_double(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static double median(const double *t, int n)
{
  double *s = malloc((size_t)n * sizeof *s), m;
  memcpy(s, t, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

/* A hints file that names method, for AUTO to keep from its first call. */
static void write_hints(const char *path, const app *a, int size, const char *method)
{
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "bench_auto_cost: cannot write %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  fprintf(f,
          "ZPHINTS 1\nobjects %ld\nparts %d\nranks %d\nimbalance 1\nweight_cv 1\ngrain 0\n"
          "geometry 1\ngraph %d\ncomm_ratio 0\ngrowth_measured 0\ngrowth 0\n"
          "growth_concentration 0\nmethod %s\npolicy ZHAI\nend\n",
          a->total, size, size, a->graph, method);
  fclose(f);
}

int main(int argc, char **argv)
{
  app a;
  conf cf[MAX_CONF];
  int rank, size, reps = 5, graph = 0, show_digest = 0, i, k, ncf = 0, nchosen = 0, ncand = 0,
                  first_cand;
  long total = 100000;
  float ver;
  char chosen_list[256] = "GREEDY,RCB", *chosen[8], *tok, *save = NULL, hints[8][128];
  const char *only = NULL;
  static const char *const cand_geom[] = {"GREEDYREFINE", "GREEDY", "REFINE", "RCB", "HSFC"};
  static const char *const cand_graph[] = {"SCOTCHLB", "SCOTCHLB:SCOTCHLB_COMM_COST=1"};

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--objects") == 0 && i + 1 < argc)
      total = atol(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--chosen") == 0 && i + 1 < argc)
      snprintf(chosen_list, sizeof chosen_list, "%s", argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--graph") == 0)
      graph = 1;
    else if (strcmp(argv[i], "--digest") == 0)
      show_digest = 1;
    else {
      if (rank == 0)
        fprintf(stderr, "usage: bench_auto_cost [--objects N] [--reps K] [--chosen A,B] [--graph] "
                        "[--only NAME] [--digest]\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (total < size || reps < 1) {
    if (rank == 0) fprintf(stderr, "bench_auto_cost: need --objects >= ranks and --reps >= 1\n");
    MPI_Finalize();
    return 2;
  }
  Zoltan_Initialize(argc, argv, &ver);
  memset(&a, 0, sizeof a);
  a.total = total;
  a.graph = graph;
  a.side = (long)ceil(sqrt((double)total));
  {
    long per = (total + size - 1) / size, lo = per * rank, hi = lo + per < total ? lo + per : total;
    a.first = lo + 1;
    a.n = hi > lo ? (int)(hi - lo) : 0;
  }
  for (tok = strtok_r(chosen_list, ",", &save); tok != NULL && nchosen < 8;
       tok = strtok_r(NULL, ",", &save))
    chosen[nchosen++] = tok;

  /* Between re-evaluations: X directly, and AUTO keeping X. */
  for (k = 0; k < nchosen; k++) {
    snprintf(hints[k], sizeof hints[k], "bench_auto_cost_hints_%d.txt", k);
    if (rank == 0) write_hints(hints[k], &a, size, chosen[k]);
    snprintf(cf[ncf].name, sizeof cf[ncf].name, "direct:%s", chosen[k]);
    cf[ncf++].zz = make_spec(&a, chosen[k]);
    snprintf(cf[ncf].name, sizeof cf[ncf].name, "%s", chosen[k]);
    cf[ncf].zz = make_zz(&a);
    Zoltan_Set_Param(cf[ncf].zz, "LB_METHOD", "AUTO");
    Zoltan_Set_Param(cf[ncf].zz, "AUTOLB_REEVALUATE", "1000000");
    Zoltan_Set_Param(cf[ncf].zz, "LB_HINTS_FILE", hints[k]);
    ncf++;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* A re-evaluation at every call, and each candidate directly. */
  snprintf(cf[ncf].name, sizeof cf[ncf].name, "reeval");
  cf[ncf].zz = make_zz(&a);
  Zoltan_Set_Param(cf[ncf].zz, "LB_METHOD", "AUTO");
  Zoltan_Set_Param(cf[ncf].zz, "AUTOLB_REEVALUATE", "1");
  ncf++;
  first_cand = ncf;
  for (k = 0; k < 5; k++, ncand++) {
    snprintf(cf[ncf].name, sizeof cf[ncf].name, "cand:%s", cand_geom[k]);
    cf[ncf++].zz = make_spec(&a, cand_geom[k]);
  }
  for (k = 0; graph && k < 2; k++, ncand++) {
    snprintf(cf[ncf].name, sizeof cf[ncf].name, "cand:%s", cand_graph[k]);
    cf[ncf++].zz = make_spec(&a, cand_graph[k]);
  }
  for (i = 0; i < ncf; i++) cf[i].t = calloc((size_t)reps, sizeof(double));

  /* One untimed call each: the first reads the hints and creates state. */
  for (i = 0; i < ncf; i++)
    if (only == NULL || strcmp(only, cf[i].name) == 0)
      timed_call(cf[i].zz, cf[i].name, &cf[i].digest);
  for (k = 0; k < reps; k++)
    for (i = 0; i < ncf; i++)
      if (only == NULL || strcmp(only, cf[i].name) == 0)
        cf[i].t[k] = timed_call(cf[i].zz, cf[i].name, &cf[i].digest);

  if (rank == 0 && only == NULL) {
    double sum = 0.0, re = median(cf[first_cand - 1].t, reps);
    printf("bench_auto_cost: %ld objects, %d ranks, %s, median of %d calls (wall s, max over "
           "ranks)\n",
           total, size, graph ? "coordinates and grid graph" : "coordinates, no graph", reps);
    printf("%-34s %10s %10s %8s\n", "between re-evaluations", "direct", "AUTO", "ratio");
    for (k = 0; k < nchosen; k++) {
      double d = median(cf[2 * k].t, reps), au = median(cf[2 * k + 1].t, reps);
      printf("%-34s %10.4f %10.4f %8.3f\n", chosen[k], d, au, au / d);
    }
    printf("%-34s %10s\n", "re-evaluation: candidates", "direct");
    for (k = 0; k < ncand; k++) {
      double d = median(cf[first_cand + k].t, reps);
      sum += d;
      printf("  %-32s %10.4f\n", cf[first_cand + k].name + 5, d);
    }
    printf("%-34s %10.4f %10.4f %8.3f\n", "re-evaluation: sum vs AUTO", sum, re, re / sum);
    if (show_digest)
      for (i = 0; i < ncf; i++)
        printf("digest %-32s %016llx\n", cf[i].name, (unsigned long long)cf[i].digest);
    for (k = 0; k < nchosen; k++) remove(hints[k]);
  }
  for (i = 0; i < ncf; i++) {
    Zoltan_Destroy(&cf[i].zz);
    free(cf[i].t);
  }
  MPI_Finalize();
  return 0;
}
