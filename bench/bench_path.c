/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_path: what one Zoltan_LB_Partition call costs with each of our
 * methods against Zoltan's own, from 10^4 to 10^7 objects (issue 36).
 *
 * The application: N objects on a side x side grid (GIDs 1..N in row
 * order), each rank holding a block of consecutive GIDs (strips), with
 * heavy-tailed weights (1 + 999 U^4, U a function of the GID), two
 * coordinates and the 4-neighbour mesh graph, all through Zoltan's
 * callbacks.  For each method, a fresh Zoltan struct gets one call (the
 * "first" call: no history, AUTO evaluates its candidates) and then
 * --drift calls with a hot spot that moves across the grid (the "drift"
 * calls: ULBA has the object loads reported to an attached adaptive
 * trigger, AUTO keeps its choice).  Nothing migrates: every call sees the
 * same objects, so the figures are the cost of deciding.
 *
 * Timing: a barrier, then the wall time of the call on each rank, the
 * largest over the ranks.  Methods run alternately within each repeat
 * (rep 1: every method, rep 2: every method, ...), so that a change in the
 * machine's load touches all of them alike; each figure is the median
 * over the repeats (first call) or over repeats x drift calls, and is
 * printed with its ratio to RCB's in the same run.  Peak resident memory:
 * the growth of the process's high-water mark (VmHWM, reset through
 * /proc/self/clear_refs before each method's calls) on the busiest rank,
 * in bytes per object of the whole problem.  Collectives: the MPI
 * collectives of the first call and of the last drift call ("coll 1/d"),
 * counted on rank 0 by definitions of the MPI functions in this program;
 * the count depends on neither the machine nor its load.  Page faults
 * ("faults 1/d"): the minor faults (fresh pages touched) of the last
 * repeat's first call and last drift call on the rank that took most, from
 * getrusage; like the collectives, a count rather than a time.
 *
 * Every answer is checked (parts in range, as many imports as exports over
 * the ranks): a wrong answer fails the run, so that the smoke test in
 * CTest (ctest/bench_small) fails on it; nothing there depends on time.
 *
 * Options:
 *   --sizes LIST    total objects, e.g. 1e4,1e5,1e6 (default 1e4,1e5,1e6)
 *   --reps K        repeats (default 3)
 *   --drift K       calls with drifting weights after the first (default 5)
 *   --methods LIST  only these rows (names as printed, comma-separated)
 *   --csv FILE      one line per (size, row): times, ratios, memory
 *   --quick         sizes 2000 and 5000, 1 repeat, 2 drift calls (the smoke test)
 *   --layout L      blocks (default): rank r holds a block of consecutive
 *                   GIDs, in order; cyclic: the GIDs are dealt to the
 *                   ranks in turn; shuffled: dealt, and each rank lists its
 *                   objects in a shuffled order, as after a migration
 *   --answers       after each call, print a fingerprint of the answer (a
 *                   sum over the objects of a hash of the global ID and its
 *                   new part), so that two builds of the library can be
 *                   compared answer by answer
 *   --warm-heap     keep freed memory in the C library's heap (glibc: no
 *                   trimming, blocks up to 32 MB from the heap), for every
 *                   method alike, so that a call costs its work rather than
 *                   the page faults of memory the heap gave back before it
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <math.h>
#include <sys/resource.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "adaptive_trigger.h"
#include "zp_rng.h"

/* ---- the application ------------------------------------------------------ */

typedef struct app {
  long n_total; /* objects of the whole problem */
  long side;    /* the grid is side x side (the last row may be short) */
  long first;   /* index (GID - 1) of this rank's first object (blocks) */
  int n;        /* objects on this rank */
  int rank;     /* this rank, and how many there are */
  int size;
  long *gidx;   /* index (GID - 1) of each local object */
  int *local;   /* local index of the k-th object this rank holds by GID
                   order (the inverse of gidx, for --layout shuffled) */
  double *w;    /* this rank's weights, by local index */
  double hot_x; /* the hot spot's centre (grid units) */
  double hot_y;
  double hot_r; /* its radius; 0 = no hot spot */
} app;

/* The heavy-tailed base weight of an object, a function of its GID only,
 * so that the problem is the same at every rank count. */
static double base_weight(long gid)
{
  double u = zp_unit_double(zp_mix64((uint64_t)gid * 0x9E3779B97F4A7C15ull + 17u));
  return 1.0 + 999.0 * u * u * u * u;
}

static void app_weights(app *a)
{
  int i;
  for (i = 0; i < a->n; i++) {
    long k = a->gidx[i];
    double f = 1.0;
    if (a->hot_r > 0.0) {
      double dx = (double)(k % a->side) - a->hot_x, dy = (double)(k / a->side) - a->hot_y;
      double d2 = (dx * dx + dy * dy) / (a->hot_r * a->hot_r);
      if (d2 < 1.0) f = 1.0 + 4.0 * (1.0 - d2);
    }
    a->w[i] = base_weight(k + 1) * f;
  }
}

static int cb_num_obj(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((app *)d)->n;
}

static void cb_obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                        float *wgts, int *ierr)
{
  app *a = d;
  int i;
  (void)ng;
  (void)nl;
  for (i = 0; i < a->n; i++) {
    gids[i] = (ZOLTAN_ID_TYPE)(a->gidx[i] + 1);
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) wgts[i] = (float)a->w[i];
  }
  *ierr = ZOLTAN_OK;
}

static int cb_num_geom(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 2;
}

static void cb_geom_multi(void *d, int ng, int nl, int num, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                          int dim, double *xy, int *ierr)
{
  app *a = d;
  int i;
  (void)ng;
  (void)nl;
  (void)gids;
  (void)dim;
  for (i = 0; i < num; i++) {
    long k = a->gidx[lids[i]];
    xy[2 * i] = (double)(k % a->side) + 0.5;
    xy[2 * i + 1] = (double)(k / a->side) + 0.5;
  }
  *ierr = ZOLTAN_OK;
}

/* The 4 neighbours of object index k that exist; returns their count. */
static int neighbours(const app *a, long k, long *nb)
{
  long x = k % a->side, n = 0;
  if (x > 0) nb[n++] = k - 1;
  if (x + 1 < a->side && k + 1 < a->n_total) nb[n++] = k + 1;
  if (k - a->side >= 0) nb[n++] = k - a->side;
  if (k + a->side < a->n_total) nb[n++] = k + a->side;
  return (int)n;
}

/* --layout: blocks of consecutive GIDs rank by rank (the default), GIDs
 * dealt to the ranks in turn, or dealt and then listed in a shuffled
 * order (as after a migration). */
enum { LAYOUT_BLOCKS, LAYOUT_CYCLIC, LAYOUT_SHUFFLED };
static int layout;

/* The rank that holds object index k (the layout of app_init). */
static int owner(const app *a, long k, int size)
{
  if (layout != LAYOUT_BLOCKS) return (int)(k % size);
  int r = (int)((double)k * size / (double)a->n_total);
  while (r > 0 && k < a->n_total * r / size) r--;
  while (r + 1 < size && k >= a->n_total * (r + 1) / size) r++;
  return r;
}

static void cb_num_edges_multi(void *d, int ng, int nl, int num, ZOLTAN_ID_PTR gids,
                               ZOLTAN_ID_PTR lids, int *ne, int *ierr)
{
  app *a = d;
  long nb[4];
  int i;
  (void)ng;
  (void)nl;
  (void)gids;
  for (i = 0; i < num; i++) ne[i] = neighbours(a, a->gidx[lids[i]], nb);
  *ierr = ZOLTAN_OK;
}

static int world_size;

static void cb_edge_list_multi(void *d, int ng, int nl, int num, ZOLTAN_ID_PTR gids,
                               ZOLTAN_ID_PTR lids, int *ne, ZOLTAN_ID_PTR nbr, int *procs,
                               int ewdim, float *ew, int *ierr)
{
  app *a = d;
  long nb[4], e = 0;
  int i, j;
  (void)ng;
  (void)nl;
  (void)gids;
  (void)ne;
  for (i = 0; i < num; i++) {
    int m = neighbours(a, a->gidx[lids[i]], nb);
    for (j = 0; j < m; j++, e++) {
      nbr[e] = (ZOLTAN_ID_TYPE)(nb[j] + 1);
      procs[e] = owner(a, nb[j], world_size);
      if (ewdim > 0) ew[e] = 1.0f;
    }
  }
  *ierr = ZOLTAN_OK;
}

static void app_init(app *a, long n_total, int rank, int size)
{
  memset(a, 0, sizeof *a);
  a->n_total = n_total;
  a->side = (long)ceil(sqrt((double)n_total));
  long i;
  a->rank = rank;
  a->size = size;
  a->first = n_total * rank / size;
  a->n = (int)(n_total * (rank + 1) / size - a->first);
  if (layout != LAYOUT_BLOCKS) a->n = (int)((n_total - rank + size - 1) / size);
  a->w = malloc(((size_t)a->n + 1) * sizeof *a->w);
  a->gidx = malloc(((size_t)a->n + 1) * sizeof *a->gidx);
  a->local = malloc(((size_t)a->n + 1) * sizeof *a->local);
  for (i = 0; i < a->n; i++) {
    a->gidx[i] = layout == LAYOUT_BLOCKS ? a->first + i : rank + i * (long)size;
    a->local[i] = (int)i;
  }
  if (layout == LAYOUT_SHUFFLED) {
    /* A fixed shuffle (Fisher-Yates from the project's generator). */
    uint64_t st = 12345u + (uint64_t)rank;
    for (i = a->n - 1; i > 0; i--) {
      long j = (long)(zp_splitmix64(&st) % (uint64_t)(i + 1)), t = a->gidx[i];
      a->gidx[i] = a->gidx[j];
      a->gidx[j] = t;
    }
    for (i = 0; i < a->n; i++) a->local[(a->gidx[i] - rank) / size] = (int)i;
  }
  app_weights(a);
}

/* ---- the methods ------------------------------------------------------------ */

typedef struct row {
  const char *name;   /* as printed */
  const char *params; /* "NAME=VALUE;..." set after LB_METHOD */
  int trigger;        /* 1: attach an adaptive trigger and report object loads */
} row;

static const row rows[] = {
    /* The anchors are Zoltan's own methods as Zoltan runs them, without the
     * layer's guard; the +GUARD rows are the same methods with it (its
     * cost, docs/benchmarks.md). */
    {"RCB", "LB_METHOD=RCB;ZOLTAN_PLUGINS_GUARD=0", 0},
    {"HSFC", "LB_METHOD=HSFC;ZOLTAN_PLUGINS_GUARD=0", 0},
    {"BLOCK", "LB_METHOD=BLOCK;ZOLTAN_PLUGINS_GUARD=0", 0},
    {"PHG-REPART",
     "LB_METHOD=GRAPH;GRAPH_PACKAGE=PHG;LB_APPROACH=REPARTITION;ZOLTAN_PLUGINS_GUARD=0", 0},
    {"RCB+GUARD", "LB_METHOD=RCB;ZOLTAN_PLUGINS_GUARD=1", 0},
    {"HSFC+GUARD", "LB_METHOD=HSFC;ZOLTAN_PLUGINS_GUARD=1", 0},
    {"PHG-REPART+GUARD",
     "LB_METHOD=GRAPH;GRAPH_PACKAGE=PHG;LB_APPROACH=REPARTITION;ZOLTAN_PLUGINS_GUARD=1", 0},
    {"GREEDY", "LB_METHOD=GREEDY", 0},
    {"REFINE", "LB_METHOD=REFINE", 0},
    /* REFINE's reduced gather (only the parts at or above their target
     * travel; the same answer) and REFINE without a root. */
    {"REFINE-CAND", "LB_METHOD=REFINE;REFINE_DISTRIBUTED=1", 0},
    {"REFINE-ROOTLESS", "LB_METHOD=REFINE;REFINE_DISTRIBUTED=2", 0},
    {"GREEDYREFINE", "LB_METHOD=GREEDYREFINE", 0},
    /* The same by groups of ranks (HIERARCHY's AUTO shape from 2 ranks on:
     * groups of 64, or two groups below 128 ranks; docs/hierarchy.md). */
    {"GREEDY-GROUPS", "LB_METHOD=GREEDY;HIERARCHY_MIN_RANKS=2", 0},
    {"REFINE-GROUPS", "LB_METHOD=REFINE;HIERARCHY_MIN_RANKS=2", 0},
    {"ULBA/RCB", "LB_METHOD=ULBA;ULBA_BASE_METHOD=RCB", 1},
    {"ULBA/HSFC", "LB_METHOD=ULBA;ULBA_BASE_METHOD=HSFC", 1},
    {"ULBA/GREEDY", "LB_METHOD=ULBA;ULBA_BASE_METHOD=GREEDY", 1},
    /* ULBA with nothing to anticipate: what ULBA and the layer add to a
     * native base's call on their own. */
    {"ULBA-ALPHA0/RCB", "LB_METHOD=ULBA;ULBA_BASE_METHOD=RCB;ULBA_ALPHA=0", 1},
    {"SCOTCHLB", "LB_METHOD=SCOTCHLB", 0},
    /* The gathered path at every size (the default runs PT-Scotch on the
     * distributed graph from SCOTCHLB_PARALLEL_MIN objects on). */
    {"SCOTCHLB-GATHER", "LB_METHOD=SCOTCHLB;SCOTCHLB_PARALLEL_MIN=2147483647", 0},
    {"DIFFUSION", "LB_METHOD=DIFFUSION", 0},
    {"AUTO", "LB_METHOD=AUTO", 0},
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

/* The base each ULBA row is compared with, by name. */
static const char *base_of(const char *name)
{
  const char *s = strchr(name, '/');
  return s != NULL ? s + 1 : NULL;
}

static void set_params(struct Zoltan_Struct *zz, const char *list)
{
  char buf[512], *save = NULL, *tok;
  snprintf(buf, sizeof buf, "%s", list);
  for (tok = strtok_r(buf, ";", &save); tok != NULL; tok = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(tok, '=');
    if (eq == NULL) continue;
    *eq = '\0';
    Zoltan_Set_Param(zz, tok, eq + 1);
  }
}

static struct Zoltan_Struct *make_zz(app *a, const row *r)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "EDGE_WEIGHT_DIM", "0");
  Zoltan_Set_Param(zz, "NUM_GID_ENTRIES", "1");
  Zoltan_Set_Param(zz, "NUM_LID_ENTRIES", "1");
  Zoltan_Set_Param(zz, "IMBALANCE_TOL", "1.05");
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "FALSE");
  Zoltan_Set_Fn(zz, ZOLTAN_NUM_OBJ_FN_TYPE, (void (*)(void))cb_num_obj, a);
  Zoltan_Set_Fn(zz, ZOLTAN_OBJ_LIST_FN_TYPE, (void (*)(void))cb_obj_list, a);
  Zoltan_Set_Fn(zz, ZOLTAN_NUM_GEOM_FN_TYPE, (void (*)(void))cb_num_geom, a);
  Zoltan_Set_Fn(zz, ZOLTAN_GEOM_MULTI_FN_TYPE, (void (*)(void))cb_geom_multi, a);
  Zoltan_Set_Fn(zz, ZOLTAN_NUM_EDGES_MULTI_FN_TYPE, (void (*)(void))cb_num_edges_multi, a);
  Zoltan_Set_Fn(zz, ZOLTAN_EDGE_LIST_MULTI_FN_TYPE, (void (*)(void))cb_edge_list_multi, a);
  set_params(zz, r->params);
  return zz;
}

/* ---- measurement -------------------------------------------------------------- */

/* The process's resident set and its high-water mark, in bytes (0 where
 * /proc is not readable). */
static void rss_read(double *rss, double *hwm)
{
  char line[256];
  FILE *f = fopen("/proc/self/status", "r");
  *rss = *hwm = 0.0;
  if (f == NULL) return;
  while (fgets(line, sizeof line, f) != NULL) {
    if (!strncmp(line, "VmRSS:", 6)) *rss = 1024.0 * atof(line + 6);
    if (!strncmp(line, "VmHWM:", 6)) *hwm = 1024.0 * atof(line + 6);
  }
  fclose(f);
}

/* --warm-heap: memory freed by one call stays mapped for the next. */
static int warm_heap;

/* Resets VmHWM to the current resident set (Linux: "5" to clear_refs). */
static void hwm_reset(void)
{
  FILE *f;
  if (!warm_heap) malloc_trim(0);
  f = fopen("/proc/self/clear_refs", "w");
  if (f == NULL) return;
  fputs("5", f);
  fclose(f);
}

/* --answers: print a fingerprint of every call's answer. */
static int print_answers;

/* ---- collectives per call -------------------------------------------------- */

/* The MPI collectives one Zoltan_LB_Partition call makes on this rank
 * (every rank makes the same ones), counted by defining the MPI functions
 * here: the program's own definitions stand in front of the MPI library's
 * for Zoltan and for our library alike, and each one calls the PMPI entry
 * point.  A count depends on neither the machine nor its load: it is the
 * latency-bound part of a call, which dominates at small sizes and grows
 * with the number of ranks.  Only calls inside the timed window count. */
static long coll_count;
static int coll_on;
#define COLL_COUNT() (coll_count += coll_on)

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Allreduce(s, r, n, t, o, c);
}
/* Non-blocking reductions count one each, although the layer starts two
 * together where it can (zp_allreduce_sum_max). */
int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c,
                   MPI_Request *q)
{
  COLL_COUNT();
  return PMPI_Iallreduce(s, r, n, t, o, c, q);
}
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Reduce(s, r, n, t, o, root, c);
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Barrier(MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Barrier(c);
}
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
               MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}
int MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d,
                MPI_Datatype rt, int root, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Gatherv(s, sn, st, r, rn, d, rt, root, c);
}
int MPI_Scatter(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
                MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Scatter(s, sn, st, r, rn, rt, root, c);
}
int MPI_Scatterv(const void *s, const int *sn, const int *d, MPI_Datatype st, void *r, int rn,
                 MPI_Datatype rt, int root, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Scatterv(s, sn, d, st, r, rn, rt, root, c);
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d,
                   MPI_Datatype rt, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c);
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
int MPI_Alltoallv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r,
                  const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c);
}
int MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Scan(s, r, n, t, o, c);
}
int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Exscan(s, r, n, t, o, c);
}
int MPI_Reduce_scatter_block(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
  COLL_COUNT();
  return PMPI_Reduce_scatter_block(s, r, n, t, o, c);
}

/* The local index of the object of index k (GID - 1), held here. */
static int local_of(const app *a, long k)
{
  if (layout == LAYOUT_BLOCKS) return (int)(k - a->first);
  return a->local[(k - a->rank) / a->size];
}

/* The answer's fingerprint: over every object of every rank, a hash of its
 * global ID and its new part (an object not exported stays in its current
 * part, which is its rank's), added modulo 2^64 so that the ranks' shares
 * combine in any order. */
static unsigned long long answer_print(const app *a, int rank, int nexp, const ZOLTAN_ID_TYPE *eg,
                                       const int *epa)
{
  int *part = malloc(((size_t)a->n + 1) * sizeof *part), i;
  unsigned long long mine = 0, all = 0;
  for (i = 0; i < a->n; i++) part[i] = rank;
  for (i = 0; i < nexp; i++) part[local_of(a, (long)eg[i] - 1)] = epa[i];
  for (i = 0; i < a->n; i++)
    mine += zp_mix64((uint64_t)(a->gidx[i] + 1) * 0x100000001B3ull + (uint64_t)part[i]);
  free(part);
  MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* The minor page faults this process has taken so far (pages of fresh
 * memory touched for the first time): like the collectives, a count that
 * does not depend on the machine's load, and the part of a call's time
 * that the heap's layout decides. */
static long minor_faults(void)
{
  struct rusage u;
  return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : 0;
}

/* One call: returns its wall time (largest over ranks) or -1 on a wrong
 * answer or an error (every rank agrees); *colls gets the collectives and
 * *faults the page faults of the call on the rank that took most. */
static double one_call(struct Zoltan_Struct *zz, int nparts, const app *a, const char *name,
                       int call, long *colls, long *faults)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, rc, bad = 0, i;
  ZOLTAN_ID_PTR ig, il, eg, el;
  double t0, dt, dmax;
  long counts[2], sums[2], f0;
  MPI_Barrier(MPI_COMM_WORLD);
  f0 = minor_faults();
  t0 = MPI_Wtime();
  coll_count = 0;
  coll_on = 1;
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el,
                           &ep, &epa);
  coll_on = 0;
  dt = MPI_Wtime() - t0;
  *faults = minor_faults() - f0;
  *colls = coll_count;
  MPI_Allreduce(MPI_IN_PLACE, faults, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN) bad = 1;
  for (i = 0; !bad && i < nexp; i++)
    if (epa[i] < 0 || epa[i] >= nparts) bad = 1;
  for (i = 0; !bad && i < nimp; i++)
    if (ipa[i] < 0 || ipa[i] >= nparts) bad = 1;
  counts[0] = bad ? 0 : nimp;
  counts[1] = bad ? 0 : nexp;
  MPI_Allreduce(counts, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (sums[0] != sums[1]) bad = 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (print_answers && !bad) {
    int rank;
    unsigned long long f;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    f = answer_print(a, rank, nexp, eg, epa);
    if (rank == 0) printf("answer %ld %s %d %016llx\n", a->n_total, name, call, f);
  }
  if (rc == ZOLTAN_OK || rc == ZOLTAN_WARN) {
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  }
  MPI_Allreduce(&dt, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return bad ? -1.0 : dmax;
}

/* The hot spot of drift call k (1-based): it crosses the grid diagonally. */
static void drift_to(app *a, int k, int calls)
{
  double f = (double)k / (double)(calls + 1);
  a->hot_x = f * (double)a->side;
  a->hot_y = (1.0 - f) * (double)a->side;
  a->hot_r = 0.15 * (double)a->side;
  app_weights(a);
}

/* Reports this rank's object loads to the trigger, two steps, so that
 * ULBA has per-object growth rates for the next call. */
static void report(adaptive_trigger *t, const app *a, ZOLTAN_ID_TYPE *g)
{
  int i;
  for (i = 0; i < a->n; i++) g[i] = (ZOLTAN_ID_TYPE)(a->gidx[i] + 1);
  adaptive_report_objects(t, a->n, 1, g, a->w);
  adaptive_should_balance(t, 1e-3);
}

static int cmp_double(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static double median(double *v, int n)
{
  if (n <= 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Runs one row once at one size: the first call, then the drift calls.
 * Stores the times; returns 0, or -1 when an answer was wrong. */
static int run_row(app *a, const row *r, int drift, double *first, double *drifts,
                   double *mem_growth, long *colls, long *faults)
{
  struct Zoltan_Struct *zz;
  adaptive_trigger *t = NULL;
  ZOLTAN_ID_TYPE *g = NULL;
  double rss0, hwm0, rss1, hwm1;
  int k, size, ok = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  a->hot_r = 0.0;
  app_weights(a);
  hwm_reset();
  rss_read(&rss0, &hwm0);
  zz = make_zz(a, r);
  if (r->trigger) {
    g = malloc(((size_t)a->n + 1) * sizeof *g);
    t = adaptive_create(MPI_COMM_WORLD);
    adaptive_set_param(t, "ADAPTIVE_POLICY", "NEVER");
    adaptive_attach(t, zz);
  }
  *first = one_call(zz, size, a, r->name, 0, &colls[0], &faults[0]);
  if (*first < 0) ok = -1;
  for (k = 1; ok == 0 && k <= drift; k++) {
    if (t != NULL) report(t, a, g);
    drift_to(a, k, drift);
    if (t != NULL) report(t, a, g);
    drifts[k - 1] = one_call(zz, size, a, r->name, k, &colls[1], &faults[1]);
    if (drifts[k - 1] < 0) ok = -1;
  }
  rss_read(&rss1, &hwm1);
  *mem_growth = hwm1 - rss0;
  MPI_Allreduce(MPI_IN_PLACE, mem_growth, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (t != NULL) adaptive_destroy(&t);
  Zoltan_Destroy(&zz);
  free(g);
  return ok;
}

/* Parses "1e4,1e5" into sizes; returns their count. */
static int parse_sizes(const char *s, long *out, int cap)
{
  int n = 0;
  while (*s != '\0' && n < cap) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 1.0) return -1;
    out[n++] = (long)(v + 0.5);
    s = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0') return -1;
  }
  return n;
}

static int selected(const char *list, const char *name)
{
  const char *p = list;
  size_t len = strlen(name);
  if (list == NULL) return 1;
  while ((p = strstr(p, name)) != NULL) {
    if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
    p += len;
  }
  return 0;
}

int main(int argc, char **argv)
{
  long sizes[8];
  int nsizes = 3, reps = 3, drift = 5, rank, size, i, s, rep, k, status = 0;
  const char *methods = NULL, *csv_path = NULL;
  FILE *csv = NULL;
  float ver;

  sizes[0] = 10000;
  sizes[1] = 100000;
  sizes[2] = 1000000;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  world_size = size;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
      nsizes = parse_sizes(argv[++i], sizes, 8);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--drift") && i + 1 < argc)
      drift = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--methods") && i + 1 < argc)
      methods = argv[++i];
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
      csv_path = argv[++i];
    else if (!strcmp(argv[i], "--warm-heap"))
      warm_heap = 1;
    else if (!strcmp(argv[i], "--answers"))
      print_answers = 1;
    else if (!strcmp(argv[i], "--layout") && i + 1 < argc) {
      i++;
      layout = !strcmp(argv[i], "blocks")     ? LAYOUT_BLOCKS
               : !strcmp(argv[i], "cyclic")   ? LAYOUT_CYCLIC
               : !strcmp(argv[i], "shuffled") ? LAYOUT_SHUFFLED
                                              : -1;
      if (layout < 0) nsizes = -1;
    } else if (!strcmp(argv[i], "--quick")) {
      nsizes = 2;
      sizes[0] = 2000;
      sizes[1] = 5000;
      reps = 1;
      drift = 2;
    } else {
      nsizes = -1;
    }
  }
  if (nsizes <= 0 || reps < 1 || drift < 1) {
    if (rank == 0) fprintf(stderr, "bench_path: bad arguments (see the top of the source)\n");
    MPI_Finalize();
    return 2;
  }
#ifdef M_MMAP_THRESHOLD
  if (warm_heap) {
    /* glibc's largest mmap threshold; a fixed one also stops its dynamic
     * adjustment, so the heap behaves alike for every method. */
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
#endif
  if (Zoltan_Initialize(argc, argv, &ver) != ZOLTAN_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  if (rank == 0 && csv_path != NULL) {
    csv = fopen(csv_path, "w");
    if (csv != NULL)
      fprintf(csv, "ranks,objects,method,first_s,drift_s,first_x_rcb,drift_x_rcb,"
                   "first_x_base,drift_x_base,peak_bytes_per_obj,first_collectives,"
                   "drift_collectives,first_faults,drift_faults\n");
  }
  if (rank == 0)
    printf("bench_path: %d ranks, mesh graph with coordinates, weights 1 + 999 U^4, one call then "
           "%d drifting calls, no migration; wall time of Zoltan_LB_Partition (max over ranks), "
           "median of %d repeats with the methods alternating; objects in %s%s%s\n",
           size, drift, reps,
           layout == LAYOUT_BLOCKS   ? "blocks of GIDs"
           : layout == LAYOUT_CYCLIC ? "GIDs dealt in turn"
                                     : "GIDs dealt in turn, listed shuffled",
           warm_heap ? "; warm heap (freed memory kept)" : "",
           size > 2 ? "; more ranks than the machine's 2 cores (oversubscribed)" : "");
  for (s = 0; s < nsizes && status == 0; s++) {
    app a;
    double *first = calloc((size_t)NROWS * reps, sizeof *first);
    double *drifts = calloc((size_t)NROWS * reps * drift, sizeof *drifts);
    double *mem = calloc((size_t)NROWS, sizeof *mem);
    long colls[NROWS][2], faults[NROWS][2];
    double med_first[NROWS], med_drift[NROWS];
    app_init(&a, sizes[s], rank, size);
    for (rep = 0; rep < reps && status == 0; rep++) {
      for (k = 0; k < NROWS && status == 0; k++) {
        double m = 0.0;
        if (!selected(methods, rows[k].name) && strcmp(rows[k].name, "RCB") != 0) continue;
        if (run_row(&a, &rows[k], drift, &first[k * reps + rep],
                    &drifts[((size_t)k * reps + rep) * drift], &m, colls[k], faults[k]) != 0) {
          if (rank == 0)
            fprintf(stderr, "bench_path: %s at %ld objects gave a wrong answer or an error\n",
                    rows[k].name, sizes[s]);
          status = 1;
        }
        if (m > mem[k]) mem[k] = m;
      }
    }
    for (k = 0; k < NROWS; k++) {
      med_first[k] = median(&first[k * reps], reps);
      med_drift[k] = median(&drifts[(size_t)k * reps * drift], reps * drift);
    }
    if (rank == 0 && status == 0) {
      printf("\n%ld objects (%ld per rank), %d ranks:\n", sizes[s], sizes[s] / size, size);
      printf("  %-15s %10s %7s %10s %7s %9s %9s %9s %9s %15s\n", "method", "first ms", "x RCB",
             "drift ms", "x RCB", "x base 1", "x base d", "B/object", "coll 1/d", "faults 1/d");
      for (k = 0; k < NROWS; k++) {
        const char *b = base_of(rows[k].name);
        double bf = NAN, bd = NAN;
        int j;
        if (!selected(methods, rows[k].name) && strcmp(rows[k].name, "RCB") != 0) continue;
        for (j = 0; b != NULL && j < NROWS; j++)
          if (!strcmp(rows[j].name, b)) {
            bf = med_first[k] / med_first[j];
            bd = med_drift[k] / med_drift[j];
          }
        printf("  %-15s %10.2f %7.2f %10.2f %7.2f %9.2f %9.2f %9.1f %5ld/%-3ld %7ld/%-7ld\n",
               rows[k].name, 1e3 * med_first[k], med_first[k] / med_first[0], 1e3 * med_drift[k],
               med_drift[k] / med_drift[0], bf, bd, mem[k] / (double)sizes[s], colls[k][0],
               colls[k][1], faults[k][0], faults[k][1]);
        if (csv != NULL)
          fprintf(csv, "%d,%ld,%s,%.6f,%.6f,%.4f,%.4f,%.4f,%.4f,%.1f,%ld,%ld,%ld,%ld\n", size,
                  sizes[s], rows[k].name, med_first[k], med_drift[k], med_first[k] / med_first[0],
                  med_drift[k] / med_drift[0], bf, bd, mem[k] / (double)sizes[s], colls[k][0],
                  colls[k][1], faults[k][0], faults[k][1]);
      }
      fflush(stdout);
      /* Each size's rows are on disk as soon as they are measured, so
       * that an interrupted run of the larger sizes keeps the smaller. */
      if (csv != NULL) fflush(csv);
    }
    free(first);
    free(drifts);
    free(mem);
    free(a.w);
    free(a.gidx);
    free(a.local);
  }
  if (csv != NULL) fclose(csv);
  MPI_Finalize();
  return status;
}
