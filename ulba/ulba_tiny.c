/* SPDX-License-Identifier: BSD-3-Clause */
/* Problems with fewer objects than parts: each object gets a part of its
 * own, without the base method.  Part of the ULBA Zoltan adapter
 * (ulba_adapter.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ulba_adapter.h"
#include "ulba_core.h"
#include "zp_context.h"

static int gid_cmp_n(const ZOLTAN_ID_TYPE *a, const ZOLTAN_ID_TYPE *b, int n)
{
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/* The objects of a tiny problem, gathered on every rank, in global-ID order
 * (assign_tiny visits them in that order; finding an object by its ID goes
 * through the layer's map, zp_ctx_find_local). */
typedef struct ulba_gid_order {
  int *order;                 /* indices sorted by global ID */
  const ZOLTAN_ID_TYPE *gids; /* the IDs */
  int n;                      /* objects */
  int ngid;                   /* entries per global ID */
} ulba_gid_order;

/* Sorting the local indices of an index by global ID needs the index: qsort
 * has no argument for it, and sorting happens on one thread at a time. */
static const ulba_gid_order *sorting_index;

/* Sort key of a part for a tiny problem: larger sizes first, then lower
 * numbers. */
typedef struct part_rank {
  double size; /* the application's size of the part (first weight) */
  int part;    /* the part */
} part_rank;

static int gid_order_cmp(const void *pa, const void *pb)
{
  const ulba_gid_order *ix = sorting_index;
  int a = *(const int *)pa, b = *(const int *)pb;
  return gid_cmp_n(ix->gids + (size_t)a * ix->ngid, ix->gids + (size_t)b * ix->ngid, ix->ngid);
}

/* Sort the indices of ix by global ID (the local objects, or the objects
 * of a tiny problem gathered on every rank). */
static void sort_by_gid(ulba_gid_order *ix)
{
  for (int i = 0; i < ix->n; i++) ix->order[i] = i;
  sorting_index = ix;
  qsort(ix->order, (size_t)ix->n, sizeof *ix->order, gid_order_cmp);
  sorting_index = NULL;
}

static int part_rank_cmp(const void *pa, const void *pb)
{
  const part_rank *a = pa, *b = pb;
  if (a->size != b->size) return a->size > b->size ? -1 : 1;
  return (a->part > b->part) - (a->part < b->part);
}

/* Give each of the m gathered objects (sorted by ix) a part of its own:
 * first, in global ID order, an object keeps its current part if that part
 * has a positive size and no other object kept it; then the others take the
 * free parts, largest size first.  The same on every rank. */
static int place_tiny(const ulba_gid_order *ix, const int *cur, const double *sizes, int wd, int P,
                      int *part)
{
  char *taken = calloc((size_t)P + 1, 1);
  part_rank *pr = malloc(((size_t)P + 1) * sizeof *pr);
  int next = 0;
  if (taken == NULL || pr == NULL) {
    free(taken);
    free(pr);
    return ZOLTAN_MEMERR;
  }
  for (int k = 0; k < ix->n; k++) {
    int i = ix->order[k], p = cur[i];
    part[i] = -1;
    if (p >= 0 && p < P && sizes[(size_t)p * wd] > 0.0 && !taken[p]) {
      part[i] = p;
      taken[p] = 1;
    }
  }
  for (int p = 0; p < P; p++) {
    pr[p].size = sizes[(size_t)p * wd];
    pr[p].part = p;
  }
  qsort(pr, (size_t)P, sizeof *pr, part_rank_cmp);
  for (int k = 0; k < ix->n; k++) {
    int i = ix->order[k];
    if (part[i] >= 0) continue;
    while (taken[pr[next].part]) next++; /* fewer objects than parts: one is free */
    part[i] = pr[next].part;
    taken[part[i]] = 1;
  }
  free(taken);
  free(pr);
  return ZOLTAN_OK;
}

/*
 * A problem with fewer objects than parts (none at all, or a single object
 * among several parts): every object gets a part of its own, staying where
 * it is when it can, so no base method is needed (Zoltan's RCB fails on a
 * single object when asked for complete lists).  The objects are gathered
 * on every rank, which all compute the same answer.  Collective.
 */
int ulba_assign_tiny(ulba_call *c, int *new_part)
{
  int size = 1, m = (int)c->total_obj, ngid = zp_ctx_num_gid_entries(c->ctx), ierr;
  int *counts = NULL, *displs = NULL, *bcounts = NULL, *bdispls = NULL, *cur = NULL, *part = NULL;
  ulba_gid_order ix = {NULL, NULL, m, ngid};
  ZOLTAN_ID_TYPE *gids = NULL;
  MPI_Comm_size(c->comm, &size);
  c->undefined = "fewer objects than parts, each object has a part of its own";
  c->info.alpha_param = c->o.alpha_auto ? 0.0 : c->o.alpha;
  counts = malloc((size_t)size * sizeof *counts);
  displs = malloc((size_t)size * sizeof *displs);
  bcounts = malloc((size_t)size * sizeof *bcounts);
  bdispls = malloc((size_t)size * sizeof *bdispls);
  cur = malloc(((size_t)m + 1) * sizeof *cur);
  part = malloc(((size_t)m + 1) * sizeof *part);
  ix.order = malloc(((size_t)m + 1) * sizeof *ix.order);
  gids = malloc(((size_t)m * ngid + 1) * sizeof *gids);
  ierr = zp_agree_code(c->comm,
                       (counts && displs && bcounts && bdispls && cur && part && ix.order && gids)
                           ? ZOLTAN_OK
                           : ZOLTAN_MEMERR);
  if (ierr < 0) goto end;
  MPI_Allgather(&c->n, 1, MPI_INT, counts, 1, MPI_INT, c->comm);
  for (int r = 0, off = 0; r < size; off += counts[r], r++) {
    displs[r] = off;
    bcounts[r] = counts[r] * ngid * (int)sizeof *gids;
    bdispls[r] = off * ngid * (int)sizeof *gids;
  }
  MPI_Allgatherv(zp_ctx_local_gids(c->ctx), bcounts[c->rank], MPI_BYTE, gids, bcounts, bdispls,
                 MPI_BYTE, c->comm);
  MPI_Allgatherv(zp_ctx_local_parts(c->ctx), c->n, MPI_INT, cur, counts, displs, MPI_INT, c->comm);
  ix.gids = gids;
  sort_by_gid(&ix);
  ierr = zp_agree_code(c->comm, place_tiny(&ix, cur, zp_ctx_part_sizes(c->ctx), c->wd, c->P, part));
  for (int i = 0; ierr >= 0 && i < c->n; i++) new_part[i] = part[displs[c->rank] + i];
end:
  if (ierr == ZOLTAN_MEMERR) zp_error(c->yo, "ULBA: out of memory for %d objects", m);
  free(counts);
  free(displs);
  free(bcounts);
  free(bdispls);
  free(cur);
  free(part);
  free(ix.order);
  free(gids);
  return ierr;
}
