/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_scotch_parallel - SCOTCHLB's two paths for LB_APPROACH=PARTITION on
 * one large graph: gathered on one rank (SCOTCHLB_PARALLEL_MIN=0) and
 * PT-Scotch on the distributed graph (SCOTCHLB_PARALLEL_MIN=1); and, with
 * --methods, the cost of one call of SCOTCHLB against Zoltan's own methods.
 *
 * The graph is a side^3 mesh (7-point stencil; --dim 2: a side^2 mesh,
 * 5-point stencil) with unit edge weights, in slabs of consecutive objects,
 * one slab per rank.  Object weights are 1, or with --weights heavy
 * 1 + 999 U^4 (U uniform in [0, 1) from zp_mix64 of the object's number, so
 * that the input does not depend on the rank count): few heavy objects
 * among many light ones.  Each path runs in its own process (--path), so
 * that the peak resident memory each rank reached during the calls can be
 * compared: the gathered path holds every object and edge on rank 0.
 * Printed, as one line: the path, ranks, objects, median wall time of the
 * call over --reps calls (slowest rank), the edge cut, the largest load /
 * average, and the peak-RSS growth of the busiest rank and of the others
 * during the calls.  bench_scotch_parallel.sh runs both paths and prints
 * their ratios.
 *
 * --methods M1,M2,... runs one Zoltan_Struct per method (SCOTCHLB, or any
 * LB_METHOD of Zoltan's: RCB, HSFC, PHG, ...; PHG with
 * LB_APPROACH=REPARTITION, as issue 36 compares) in the same process,
 * the calls alternating between the methods so that a busy machine slows
 * them alike, and prints one line per method with its median time and its
 * ratio to the first method's, and its median processor time (slowest
 * rank; memory is then shared and not printed).
 * --path default leaves SCOTCHLB_PARALLEL_MIN at its default, and
 * --set NAME=VALUE sets any further parameter of SCOTCHLB.  Not collective
 * beyond MPI_COMM_WORLD; exits 1 when a call fails or an object is lost.
 *
 * Usage: mpiexec -n P bench_scotch_parallel [--path gathered|ptscotch|default]
 *        [--side S (64)] [--dim 2|3 (3)] [--weights unit|heavy (unit)]
 *        [--parts K (ranks)] [--reps R (3)] [--methods M1,M2,...]
 *        [--set NAME=VALUE]...
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <zoltan.h>

#include "zp_rng.h"

/* Methods and parameters the command line may name, at most. */
#define BENCH_MAX_METHODS 8
#define BENCH_MAX_SETS    16

typedef struct mesh {
  int side, dim, heavy, rank, size;
  long first, n; /* this rank's objects: GIDs first+1 .. first+n */
} mesh;

/* All objects of the mesh. */
static long mesh_size(const mesh *m)
{
  long s = m->side;
  return m->dim == 2 ? s * s : s * s * s;
}

/* The weight of object v (0-based): 1, or heavy-tailed from its number. */
static double weight_of(const mesh *m, long v)
{
  if (!m->heavy) return 1.0;
  double u = zp_unit_double(zp_mix64((uint64_t)v + 36));
  return 1.0 + 999.0 * u * u * u * u;
}

/* The rank that owns the object numbered v (0-based), for the slabs. */
static int owner_of(const mesh *m, long v)
{
  long N = mesh_size(m);
  int r = (int)(v * m->size / N);
  while (r > 0 && v < N * r / m->size) r--;
  while (r + 1 < m->size && v >= N * (r + 1) / m->size) r++;
  return r;
}

static int num_obj(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return (int)((mesh *)d)->n;
}

static void obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wd,
                     float *w, int *ierr)
{
  mesh *m = d;
  (void)ng;
  (void)nl;
  for (long i = 0; i < m->n; i++) {
    gids[i] = (ZOLTAN_ID_TYPE)(m->first + i + 1);
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wd > 0) w[i] = (float)weight_of(m, m->first + i);
  }
  *ierr = ZOLTAN_OK;
}

/* The neighbours of object v in the mesh, 0-based; returns how many. */
static int nbrs(const mesh *m, long v, long out[6])
{
  long s = m->side, x = v % s, y = (v / s) % s, z = v / (s * s);
  int k = 0;
  if (x > 0) out[k++] = v - 1;
  if (x + 1 < s) out[k++] = v + 1;
  if (y > 0) out[k++] = v - s;
  if (y + 1 < s) out[k++] = v + s;
  if (m->dim == 3 && z > 0) out[k++] = v - s * s;
  if (m->dim == 3 && z + 1 < s) out[k++] = v + s * s;
  return k;
}

static void num_edges(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                      int *ne, int *ierr)
{
  long tmp[6];
  (void)ng;
  (void)nl;
  (void)lids;
  for (int i = 0; i < n; i++) ne[i] = nbrs(d, (long)gids[i] - 1, tmp);
  *ierr = ZOLTAN_OK;
}

static void edge_list(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                      int *ne, ZOLTAN_ID_PTR ngids, int *nprocs, int wd, float *ew, int *ierr)
{
  long tmp[6];
  size_t at = 0;
  (void)ng;
  (void)nl;
  (void)lids;
  (void)ne;
  (void)wd;
  (void)ew;
  for (int i = 0; i < n; i++) {
    int k = nbrs(d, (long)gids[i] - 1, tmp);
    for (int j = 0; j < k; j++, at++) {
      ngids[at] = (ZOLTAN_ID_TYPE)(tmp[j] + 1);
      nprocs[at] = owner_of(d, tmp[j]);
    }
  }
  *ierr = ZOLTAN_OK;
}

/* Coordinates for Zoltan's geometric methods: the mesh position. */
static int num_geom(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((mesh *)d)->dim;
}

static void geom_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                       int dim, double *xyz, int *ierr)
{
  mesh *m = d;
  long s = m->side;
  (void)ng;
  (void)nl;
  (void)lids;
  for (int i = 0; i < n; i++) {
    long v = (long)gids[i] - 1;
    xyz[(size_t)i * dim] = (double)(v % s);
    xyz[(size_t)i * dim + 1] = (double)((v / s) % s);
    if (dim == 3) xyz[(size_t)i * dim + 2] = (double)(v / (s * s));
  }
  *ierr = ZOLTAN_OK;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static long peak_rss_kb(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* The command line. */
typedef struct bench_args {
  const char *path; /* gathered, ptscotch or default */
  int parts, reps;  /* parts (0: ranks) and calls per method */
  const char *methods[BENCH_MAX_METHODS];
  int nmethods;                     /* 0: SCOTCHLB alone, with memory */
  const char *sets[BENCH_MAX_SETS]; /* NAME=VALUE for SCOTCHLB */
  int nsets;
} bench_args;

/* Reads the options; 0, or 2 for a bad one (said on rank 0). */
static int parse(int argc, char **argv, mesh *m, bench_args *a)
{
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v && !strcmp(o, "--path"))
      a->path = v;
    else if (v && !strcmp(o, "--side"))
      m->side = atoi(v);
    else if (v && !strcmp(o, "--dim"))
      m->dim = atoi(v);
    else if (v && !strcmp(o, "--weights"))
      m->heavy = !strcmp(v, "heavy");
    else if (v && !strcmp(o, "--parts"))
      a->parts = atoi(v);
    else if (v && !strcmp(o, "--reps"))
      a->reps = atoi(v);
    else if (v && !strcmp(o, "--set") && a->nsets < BENCH_MAX_SETS)
      a->sets[a->nsets++] = v;
    else if (v && !strcmp(o, "--methods")) {
      /* Split in place: the list lives as long as argv. */
      for (char *p = argv[i + 1]; p && *p && a->nmethods < BENCH_MAX_METHODS;) {
        a->methods[a->nmethods++] = p;
        p = strchr(p, ',');
        if (p) *p++ = '\0';
      }
    } else {
      if (m->rank == 0) fprintf(stderr, "bench_scotch_parallel: unknown option %s\n", o);
      return 2;
    }
    i++;
  }
  if (m->dim != 2 && m->dim != 3) {
    if (m->rank == 0) fprintf(stderr, "bench_scotch_parallel: --dim must be 2 or 3\n");
    return 2;
  }
  return 0;
}

/* A Zoltan_Struct for one method on the mesh. */
static struct Zoltan_Struct *make_zz(mesh *m, const bench_args *a, const char *method)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  char buf[32];
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "LB_METHOD", method);
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", m->heavy ? "1" : "0");
  snprintf(buf, sizeof buf, "%d", a->parts);
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", buf);
  if (!strcmp(method, "SCOTCHLB")) {
    Zoltan_Set_Param(zz, "LB_APPROACH", "PARTITION");
    if (strcmp(a->path, "default") != 0)
      Zoltan_Set_Param(zz, "SCOTCHLB_PARALLEL_MIN", strcmp(a->path, "gathered") ? "1" : "0");
    for (int k = 0; k < a->nsets; k++) {
      char name[128];
      const char *eq = strchr(a->sets[k], '=');
      size_t len = eq ? (size_t)(eq - a->sets[k]) : 0;
      if (!eq || len >= sizeof name) continue;
      memcpy(name, a->sets[k], len);
      name[len] = '\0';
      Zoltan_Set_Param(zz, name, eq + 1);
    }
  } else if (!strcmp(method, "PHG")) {
    Zoltan_Set_Param(zz, "LB_APPROACH", "REPARTITION");
  }
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, m);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, m);
  Zoltan_Set_Num_Edges_Multi_Fn(zz, num_edges, m);
  Zoltan_Set_Edge_List_Multi_Fn(zz, edge_list, m);
  Zoltan_Set_Num_Geom_Fn(zz, num_geom, m);
  Zoltan_Set_Geom_Multi_Fn(zz, geom_multi, m);
  return zz;
}

/* This process's processor time in seconds. */
static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One call: its wall time and processor time (both of the slowest rank;
 * on a machine shared with other work the second varies less, though a
 * rank waiting in MPI may spin) and the new part of each local object in
 * part; returns 1 when it failed or lost objects, on every rank. */
static int one_call(struct Zoltan_Struct *zz, const mesh *m, double *time, double *cpu, int *part)
{
  int changes, ngid, nlid, nimp, nexp, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL, fail = 0;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime(), c = cpu_now();
  int ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                                 &el, &ep, &epa);
  t = MPI_Wtime() - t;
  c = cpu_now() - c;
  MPI_Allreduce(&t, time, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&c, cpu, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (ierr < 0 || nexp != m->n) fail = 1;
  for (long i = 0; !fail && i < m->n; i++) part[el[i]] = epa[i];
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return fail;
}

/* The cut and the largest weighted load / average of the parts, on rank 0
 * from every object's part; returns 1 when a part is out of range. */
static int quality(const mesh *m, int parts, const int *part, long *cut, double *ratio)
{
  long N = mesh_size(m);
  int *all = NULL, *cnt = NULL, *dsp = NULL, fail = 0;
  if (m->rank == 0) {
    all = malloc((size_t)N * sizeof *all);
    cnt = malloc((size_t)m->size * sizeof *cnt);
    dsp = malloc((size_t)m->size * sizeof *dsp);
    for (int q = 0; q < m->size; q++) {
      dsp[q] = (int)(N * q / m->size);
      cnt[q] = (int)(N * (q + 1) / m->size) - dsp[q];
    }
  }
  MPI_Gatherv(part, (int)m->n, MPI_INT, all, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
  if (m->rank == 0) {
    long tmp[6];
    double *load = calloc((size_t)parts, sizeof *load), lmax = 0.0, tot = 0.0;
    *cut = 0;
    for (long v = 0; v < N; v++) {
      int k = nbrs(m, v, tmp);
      if (all[v] < 0 || all[v] >= parts)
        fail = 1;
      else
        load[all[v]] += weight_of(m, v);
      tot += weight_of(m, v);
      for (int j = 0; j < k; j++) *cut += tmp[j] > v && all[tmp[j]] != all[v];
    }
    for (int q = 0; q < parts; q++) lmax = load[q] > lmax ? load[q] : lmax;
    *ratio = tot > 0.0 ? lmax * parts / tot : 1.0;
    free(load);
  }
  free(all);
  free(cnt);
  free(dsp);
  return fail;
}

int main(int argc, char **argv)
{
  mesh m;
  bench_args a = {.path = "ptscotch", .reps = 3};
  int fail = 0;
  float ver;
  MPI_Init(&argc, &argv);
  memset(&m, 0, sizeof m);
  m.side = 64;
  m.dim = 3;
  MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m.size);
  if (parse(argc, argv, &m, &a) != 0) {
    MPI_Finalize();
    return 2;
  }
  if (a.parts <= 0) a.parts = m.size;
  if (a.reps < 1) a.reps = 1;
  int single = a.nmethods == 0;
  if (single) a.methods[a.nmethods++] = "SCOTCHLB";
  long N = mesh_size(&m);
  m.first = N * m.rank / m.size;
  m.n = N * (m.rank + 1) / m.size - m.first;

  Zoltan_Initialize(argc, argv, &ver);
  struct Zoltan_Struct *zz[BENCH_MAX_METHODS];
  double *times = malloc((size_t)a.reps * a.nmethods * sizeof *times);
  double *cpus = malloc((size_t)a.reps * a.nmethods * sizeof *cpus);
  int *part = malloc(((size_t)m.n + 1) * a.nmethods * sizeof *part);
  for (int k = 0; k < a.nmethods; k++) zz[k] = make_zz(&m, &a, a.methods[k]);
  long rss0 = peak_rss_kb();
  /* Round r calls every method once, so that a busy moment of the machine
   * falls on all of them. */
  for (int r = 0; r < a.reps && !fail; r++)
    for (int k = 0; k < a.nmethods && !fail; k++)
      fail = one_call(zz[k], &m, &times[(size_t)k * a.reps + r], &cpus[(size_t)k * a.reps + r],
                      part + (size_t)k * (m.n + 1));
  long grow = peak_rss_kb() - rss0, grow0 = grow, grow_rest = 0;
  MPI_Bcast(&grow0, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  {
    long mine = m.rank == 0 ? 0 : grow;
    MPI_Reduce(&mine, &grow_rest, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  }
  double first_median = 0.0;
  for (int k = 0; k < a.nmethods && !fail; k++) {
    long cut = 0;
    double ratio = 0.0, *t = times + (size_t)k * a.reps, *c = cpus + (size_t)k * a.reps;
    fail = quality(&m, a.parts, part + (size_t)k * (m.n + 1), &cut, &ratio);
    qsort(t, (size_t)a.reps, sizeof *t, cmp_double);
    qsort(c, (size_t)a.reps, sizeof *c, cmp_double);
    if (k == 0) first_median = t[a.reps / 2];
    if (m.rank != 0 || fail) continue;
    if (single)
      printf("path %s ranks %d parts %d objects %ld median_s %.4f cut %ld max_over_avg %.4f "
             "rss_growth_kb_rank0 %ld rss_growth_kb_other_max %ld\n",
             a.path, m.size, a.parts, N, t[a.reps / 2], cut, ratio, grow0, grow_rest);
    else
      printf("method %s ranks %d parts %d objects %ld median_s %.4f ratio_to_%s %.3f "
             "median_processor_s %.4f cut %ld max_over_avg %.4f\n",
             a.methods[k], m.size, a.parts, N, t[a.reps / 2], a.methods[0],
             first_median > 0.0 ? t[a.reps / 2] / first_median : 0.0, c[a.reps / 2], cut, ratio);
  }
  free(times);
  free(cpus);
  free(part);
  for (int k = 0; k < a.nmethods; k++) Zoltan_Destroy(&zz[k]);
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (m.rank == 0 && fail)
    fprintf(stderr, "bench_scotch_parallel: a call failed or lost objects\n");
  MPI_Finalize();
  return fail;
}
