/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GREEDY (or GREEDYREFINE, --method) gives the same answer whichever way the layer runs it: its sorted
 * path (each rank sorts its weights, the root merges them) with ties broken
 * by rank (IDs in blocks rank by rank) or by global ID (IDs dealt to the
 * ranks, listed in order or shuffled), and the gathered path (IDs too
 * sparse for the sorted path, or of two entries).  With --method REFINE,
 * which always takes the gathered path, the configurations compare its
 * three ways to the ID order: as the objects came (blocks), each put in its
 * place by its ID (dealt, shuffled: IDs 1..N) and the sort (sparse,
 * two-entry IDs).
 *
 * One global problem: objects 0..N-1 with weights from a seeded generator
 * of the object's index, with many exact ties (small integers) and some
 * zeros, and a current part that depends on the index alone.  Each
 * configuration gives the objects other IDs (a monotone function of the
 * index, so that the ID order is the index order) and another placement on
 * the ranks; GREEDY runs once, with REMAP on, for NUM_GLOBAL_PARTS = the
 * number of ranks (REMAP relabels) and = 7 (parts spread over ranks).  The
 * answer's fingerprint, a sum over the objects of a hash of (index, part),
 * must be the same in every configuration.  With DEBUG_LEVEL 1 the layer
 * says which path ran; CTest checks those lines.
 *
 * With --huge-pages-both 1, every configuration runs twice, with
 * ZOLTAN_PLUGINS_HUGE_PAGES=0 (small pages) and =1 (the layer's kept
 * buffers on huge pages, zp_bigmem.c), and both answers must be the same:
 * at a few 10^5 objects the root's buffers pass 2 MiB, so that a buffer
 * mapped shorter than the layer uses would show here.
 *
 * Usage: zp_sorted_same [--method M] [--objects N] [--huge-pages-both 1]
 * Exits 0 when every check passed.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "zp_rng.h"

/* How the configurations place and name the objects. */
typedef struct config {
  const char *name; /* as printed */
  int dealt;        /* 0: blocks of consecutive indices rank by rank; 1: dealt in turn */
  int shuffled;     /* 1: each rank lists its objects in a shuffled order */
  unsigned stride;  /* ID = 1 + index * stride (in the last ID entry) */
  int ngid;         /* entries per ID (the first ones 0) */
} config;

static const config configs[] = {
    {"blocks", 0, 0, 1, 1},    /* sorted, ties by rank */
    {"dealt", 1, 0, 1, 1},     /* sorted, ties by ID */
    {"shuffled", 1, 1, 1, 1},  /* sorted, ties by ID, equal weights reordered */
    {"sparse", 1, 1, 1000, 1}, /* gathered: the IDs span 1000 N */
    {"two-entry", 1, 1, 1, 2}, /* gathered: IDs of two entries */
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

typedef struct app {
  const config *cf;
  long n_total;
  int n;     /* local objects */
  long *idx; /* index of each local object */
  int parts; /* NUM_GLOBAL_PARTS */
} app;

static double weight_of(long i)
{
  double u = zp_unit_double(zp_mix64((uint64_t)i * 0x9E3779B97F4A7C15ull + 3u));
  /* 0 for one object in 16, else a small integer: many exact ties. */
  return (i % 16 == 5) ? 0.0 : (double)(1 + (int)(20.0 * u * u * u * u));
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
  int i, k;
  (void)nl;
  for (i = 0; i < a->n; i++) {
    for (k = 0; k < ng - 1; k++) gids[(size_t)i * ng + k] = 0;
    gids[(size_t)i * ng + ng - 1] = (ZOLTAN_ID_TYPE)(1 + a->idx[i] * (long)a->cf->stride);
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) wgts[i] = (float)weight_of(a->idx[i]);
  }
  *ierr = ZOLTAN_OK;
}

/* The current part depends on the index alone, so that REMAP sees the
 * same overlaps in every configuration. */
static void cb_part_multi(void *d, int ng, int nl, int num, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                          int *parts, int *ierr)
{
  app *a = d;
  int i;
  (void)ng;
  (void)nl;
  (void)gids;
  for (i = 0; i < num; i++) parts[i] = (int)((a->idx[lids[i]] * 7 / a->n_total) % a->parts);
  *ierr = ZOLTAN_OK;
}

static void app_build(app *a, const config *cf, long n_total, int rank, int size)
{
  long i, first = n_total * rank / size, last = n_total * (rank + 1) / size;
  memset(a, 0, sizeof *a);
  a->cf = cf;
  a->n_total = n_total;
  a->n = cf->dealt ? (int)((n_total - rank + size - 1) / size) : (int)(last - first);
  a->idx = malloc(((size_t)a->n + 1) * sizeof *a->idx);
  for (i = 0; i < a->n; i++) a->idx[i] = cf->dealt ? rank + i * (long)size : first + i;
  if (cf->shuffled) {
    uint64_t st = 99u + (uint64_t)rank;
    for (i = a->n - 1; i > 0; i--) {
      long j = (long)(zp_splitmix64(&st) % (uint64_t)(i + 1)), t = a->idx[i];
      a->idx[i] = a->idx[j];
      a->idx[j] = t;
    }
  }
}

/* One GREEDY call; returns the answer's fingerprint (the same on every
 * rank), or 0 after an error. */
static const char *g_method = "GREEDY";
/* ZOLTAN_PLUGINS_HUGE_PAGES for the next run ("" = leave the default). */
static const char *g_huge = "";

static uint64_t run(app *a, int rank)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  char buf[32];
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, i, rc, *part;
  ZOLTAN_ID_PTR ig, il, eg, el;
  uint64_t mine = 0, all = 0;
  Zoltan_Set_Param(zz, "LB_METHOD", g_method);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", rank == 0 ? "1" : "0");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  snprintf(buf, sizeof buf, "%d", a->cf->ngid);
  Zoltan_Set_Param(zz, "NUM_GID_ENTRIES", buf);
  snprintf(buf, sizeof buf, "%d", a->parts);
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", buf);
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  if (g_huge[0] != '\0') Zoltan_Set_Param(zz, "ZOLTAN_PLUGINS_HUGE_PAGES", g_huge);
  Zoltan_Set_Num_Obj_Fn(zz, cb_num_obj, a);
  Zoltan_Set_Obj_List_Fn(zz, cb_obj_list, a);
  Zoltan_Set_Part_Multi_Fn(zz, cb_part_multi, a);
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el,
                           &ep, &epa);
  /* PARTS: every local object is in the export list, with its new part. */
  part = malloc(((size_t)a->n + 1) * sizeof *part);
  for (i = 0; i < a->n; i++) part[i] = -1;
  if (rc == ZOLTAN_OK || rc == ZOLTAN_WARN)
    for (i = 0; i < nexp; i++) part[el[i]] = epa[i];
  for (i = 0; i < a->n; i++) {
    if (part[i] < 0 || part[i] >= a->parts) rc = ZOLTAN_FATAL;
    mine += zp_mix64((uint64_t)a->idx[i] * 0x100000001B3ull + (uint64_t)part[i]);
  }
  free(part);
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  Zoltan_Destroy(&zz);
  return rc == ZOLTAN_OK || rc == ZOLTAN_WARN ? all : 0;
}

int main(int argc, char **argv)
{
  long n_total = 5000;
  int rank, size, c, p, bad = 0, both = 0;
  float ver;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (c = 1; c + 1 < argc; c += 2) {
    if (!strcmp(argv[c], "--objects")) n_total = atol(argv[c + 1]);
    if (!strcmp(argv[c], "--method")) g_method = argv[c + 1];
    if (!strcmp(argv[c], "--huge-pages-both")) both = atoi(argv[c + 1]) != 0;
  }
  if (Zoltan_Initialize(argc, argv, &ver) != ZOLTAN_OK || n_total < 1) {
    MPI_Finalize();
    return 2;
  }
  for (p = 0; p < 2; p++) {
    uint64_t ref = 0;
    for (c = 0; c < NCONFIGS; c++) {
      app a;
      uint64_t f;
      app_build(&a, &configs[c], n_total, rank, size);
      a.parts = p == 0 ? size : 7;
      if (rank == 0) printf("# config %s, %d parts\n", configs[c].name, a.parts);
      fflush(stdout);
      g_huge = both ? "1" : "";
      f = run(&a, rank);
      if (rank == 0) printf("# fingerprint %016llx\n", (unsigned long long)f);
      if (f == 0 || (c > 0 && f != ref)) bad = 1;
      if (both) {
        uint64_t small;
        g_huge = "0";
        small = run(&a, rank);
        if (rank == 0) printf("# small pages: fingerprint %016llx\n", (unsigned long long)small);
        if (small != f) bad = 1;
      }
      if (c == 0) ref = f;
      free(a.idx);
    }
  }
  if (rank == 0) printf(bad ? "zp_sorted_same: FAILED\n" : "zp_sorted_same: passed\n");
  MPI_Finalize();
  return bad;
}
