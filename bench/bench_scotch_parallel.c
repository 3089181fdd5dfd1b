/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_scotch_parallel - SCOTCHLB's two paths for LB_APPROACH=PARTITION on
 * one large graph: gathered on one rank (SCOTCHLB_PARALLEL_MIN=0) and
 * PT-Scotch on the distributed graph (SCOTCHLB_PARALLEL_MIN=1).
 *
 * The graph is a side^3 mesh (7-point stencil, unit weights) in z-slabs,
 * one slab per rank.  Each path runs in its own process (--path), so that
 * the peak resident memory each rank reached during the calls can be
 * compared: the gathered path holds every object and edge on rank 0.
 * Printed, as one line: the path, ranks, objects, median wall time of the
 * call over --reps calls (slowest rank), the edge cut, the largest load /
 * average, and the peak-RSS growth of the busiest rank and of the others
 * during the calls.  bench_scotch_parallel.sh runs both paths and prints
 * their ratios.  Not collective beyond MPI_COMM_WORLD; exits 1 when a call
 * fails or an object is lost.
 *
 * Usage: mpiexec -n P bench_scotch_parallel --path gathered|ptscotch
 *        [--side S (64)] [--parts K (ranks)] [--reps R (3)]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <zoltan.h>

typedef struct mesh {
  int side, rank, size;
  long first, n; /* this rank's objects: GIDs first+1 .. first+n */
} mesh;

/* The rank that owns the object numbered v (0-based), for the slabs. */
static int owner_of(const mesh *m, long v)
{
  long N = (long)m->side * m->side * m->side;
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
  (void)wd;
  (void)w;
  for (long i = 0; i < m->n; i++) {
    gids[i] = (ZOLTAN_ID_TYPE)(m->first + i + 1);
    lids[i] = (ZOLTAN_ID_TYPE)i;
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
  if (z > 0) out[k++] = v - s * s;
  if (z + 1 < s) out[k++] = v + s * s;
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

int main(int argc, char **argv)
{
  mesh m;
  const char *path = "ptscotch";
  int parts = 0, reps = 3, fail = 0;
  float ver;
  MPI_Init(&argc, &argv);
  memset(&m, 0, sizeof m);
  m.side = 64;
  MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m.size);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--path") && i + 1 < argc)
      path = argv[++i];
    else if (!strcmp(argv[i], "--side") && i + 1 < argc)
      m.side = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--parts") && i + 1 < argc)
      parts = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else {
      if (m.rank == 0) fprintf(stderr, "bench_scotch_parallel: unknown option %s\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  if (parts <= 0) parts = m.size;
  long N = (long)m.side * m.side * m.side;
  m.first = N * m.rank / m.size;
  m.n = N * (m.rank + 1) / m.size - m.first;

  Zoltan_Initialize(argc, argv, &ver);
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  char buf[32];
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "LB_METHOD", "SCOTCHLB");
  Zoltan_Set_Param(zz, "LB_APPROACH", "PARTITION");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  Zoltan_Set_Param(zz, "SCOTCHLB_PARALLEL_MIN", strcmp(path, "gathered") ? "1" : "0");
  snprintf(buf, sizeof buf, "%d", parts);
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", buf);
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, &m);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, &m);
  Zoltan_Set_Num_Edges_Multi_Fn(zz, num_edges, &m);
  Zoltan_Set_Edge_List_Multi_Fn(zz, edge_list, &m);

  double *times = malloc((size_t)reps * sizeof *times);
  int *part = malloc(((size_t)m.n + 1) * sizeof *part);
  long rss0 = peak_rss_kb();
  for (int r = 0; r < reps && !fail; r++) {
    int changes, ngid, nlid, nimp, nexp, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL;
    ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    int ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp,
                                   &eg, &el, &ep, &epa);
    t = MPI_Wtime() - t;
    MPI_Allreduce(&t, &times[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (ierr < 0 || nexp != m.n) fail = 1;
    for (long i = 0; !fail && i < m.n; i++) part[el[i]] = epa[i];
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
    MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  }
  long grow = peak_rss_kb() - rss0, grow0 = grow, grow_rest = 0;
  MPI_Bcast(&grow0, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  {
    long mine = m.rank == 0 ? 0 : grow;
    MPI_Reduce(&mine, &grow_rest, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  }

  /* The cut and the balance, checked on rank 0 from every object's part. */
  int *all = NULL, *cnt = NULL, *dsp = NULL;
  if (m.rank == 0) {
    all = malloc((size_t)N * sizeof *all);
    cnt = malloc((size_t)m.size * sizeof *cnt);
    dsp = malloc((size_t)m.size * sizeof *dsp);
    for (int q = 0; q < m.size; q++) {
      dsp[q] = (int)(N * q / m.size);
      cnt[q] = (int)(N * (q + 1) / m.size) - dsp[q];
    }
  }
  MPI_Gatherv(part, (int)m.n, MPI_INT, all, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
  if (m.rank == 0 && !fail) {
    long cut = 0, tmp[6], *load = calloc((size_t)parts, sizeof *load), lmax = 0;
    for (long v = 0; v < N; v++) {
      int k = nbrs(&m, v, tmp);
      if (all[v] < 0 || all[v] >= parts)
        fail = 1;
      else
        load[all[v]]++;
      for (int j = 0; j < k; j++) cut += tmp[j] > v && all[tmp[j]] != all[v];
    }
    for (int q = 0; q < parts; q++) lmax = load[q] > lmax ? load[q] : lmax;
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    printf("path %s ranks %d parts %d objects %ld median_s %.4f cut %ld max_over_avg %.4f "
           "rss_growth_kb_rank0 %ld rss_growth_kb_other_max %ld\n",
           path, m.size, parts, N, times[reps / 2], cut, (double)lmax * parts / (double)N, grow0,
           grow_rest);
    free(load);
  }
  free(all);
  free(cnt);
  free(dsp);
  free(times);
  free(part);
  Zoltan_Destroy(&zz);
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (m.rank == 0 && fail)
    fprintf(stderr, "bench_scotch_parallel: a call failed or lost objects\n");
  MPI_Finalize();
  return fail;
}
