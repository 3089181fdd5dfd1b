/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reduced gather of ZP_GATHER_CANDIDATES (zp_method.h): a centralised
 * method that moves objects only off parts above their target (REFINE with
 * REFINE_DISTRIBUTED=1) gets, on the root, the objects of the parts at or
 * above their target and one object per other part carrying that part's
 * load.  Part loads come from one allreduce; objects of the parts below
 * their target never travel.  The root's answer is the one the whole
 * gather gives: the candidates keep their relative order by global ID, and
 * a part that gives nothing is seen with the same load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_internal.h"
#include "zp_partition_internal.h"

/* The arrays of the reduced view, freed together. */
typedef struct zp_cand {
  double *load;         /* nparts * wdim part loads, summed over ranks */
  char *over;           /* nparts flags: 1 = the part's objects are gathered */
  int *pick;            /* local index of each view object (-1: a part's load) */
  ZOLTAN_ID_TYPE *gids; /* view global IDs, ngid + 1 entries each */
  double *w;            /* view weights */
  int *parts;           /* view current parts */
  int *new_part;        /* the method's answer for the view */
} zp_cand;

static void zp_cand_free(zp_cand *v)
{
  free(v->load);
  free(v->over);
  free(v->pick);
  free(v->gids);
  free(v->w);
  free(v->parts);
  free(v->new_part);
}

/* Part loads and the parts whose objects are gathered.  Collective. */
static int zp_cand_parts(const zp_context *c, zp_cand *v)
{
  size_t P = (size_t)c->nparts, W = (size_t)c->wdim, p, d;
  int i;
  double *tot = calloc(W, sizeof *tot);
  v->load = calloc(P * W + 1, sizeof *v->load);
  v->over = calloc(P + 1, 1);
  if (zp_agree(c, tot && v->load && v->over ? ZOLTAN_OK : ZOLTAN_MEMERR) < 0) {
    free(tot);
    return ZOLTAN_MEMERR;
  }
  for (i = 0; i < c->n; i++)
    for (d = 0; c->parts[i] >= 0 && d < W; d++)
      v->load[(size_t)c->parts[i] * W + d] += c->w[(size_t)i * W + d];
  MPI_Allreduce(MPI_IN_PLACE, v->load, (int)(P * W), MPI_DOUBLE, MPI_SUM, c->r->comm);
  for (p = 0; p < P; p++)
    for (d = 0; d < W; d++) tot[d] += v->load[p * W + d];
  for (p = 0; p < P; p++)
    for (d = 0; d < W; d++) {
      /* At or above the target in some dimension, with a margin for the
       * summation order: a superset of the parts a method moves from. */
      double target = c->part_sizes[p * W + d] * tot[d];
      if (v->load[p * W + d] > 0.0 && v->load[p * W + d] >= target * (1.0 - 1e-9)) v->over[p] = 1;
    }
  free(tot);
  return ZOLTAN_OK;
}

/* The view's objects: local candidates, then on the root one object per
 * part that gives nothing.  Local; the outcome is agreed by the caller. */
static int zp_cand_view(const zp_context *c, zp_cand *v, int *m)
{
  size_t W = (size_t)c->wdim, G = (size_t)c->ngid + 1, k = 0, cap;
  int i, p, root = c->r->rank == ZP_ROOT;
  cap = (size_t)c->n + (root ? (size_t)c->nparts : 0) + 1;
  v->pick = malloc(cap * sizeof *v->pick);
  v->gids = calloc(cap * G, sizeof *v->gids);
  v->w = malloc(cap * W * sizeof *v->w);
  v->parts = malloc(cap * sizeof *v->parts);
  v->new_part = malloc(cap * sizeof *v->new_part);
  if (!v->pick || !v->gids || !v->w || !v->parts || !v->new_part) return ZOLTAN_MEMERR;
  for (i = 0; i < c->n; i++) {
    if (c->parts[i] >= 0 && !v->over[c->parts[i]]) continue;
    v->pick[k] = i;
    memcpy(v->gids + k * G + 1, c->gids + (size_t)i * c->ngid, (size_t)c->ngid * sizeof *v->gids);
    memcpy(v->w + k * W, c->w + (size_t)i * W, W * sizeof *v->w);
    v->parts[k++] = c->parts[i];
  }
  for (p = 0; root && p < c->nparts; p++) {
    double sum = 0.0;
    size_t d;
    for (d = 0; d < W; d++) sum += v->load[(size_t)p * W + d];
    if (v->over[p] || !(sum > 0.0)) continue;
    v->pick[k] = -1;
    v->gids[k * G] = 1;
    v->gids[k * G + 1] = (ZOLTAN_ID_TYPE)p;
    memcpy(v->w + k * W, v->load + (size_t)p * W, W * sizeof *v->w);
    v->parts[k++] = p;
  }
  *m = (int)k;
  return ZOLTAN_OK;
}

int zp_run_serial_candidates(zp_context *c, int *new_part)
{
  zp_cand v;
  zp_context view;
  int ierr, m = 0, k, bad = 0, i;
  long counts[2], all[2];
  memset(&v, 0, sizeof v);
  ierr = zp_cand_parts(c, &v);
  if (ierr >= 0) ierr = zp_agree(c, zp_cand_view(c, &v, &m));
  if (ierr < 0) goto End;
  view = *c;
  view.n = m;
  view.ngid = c->ngid + 1;
  view.gids = v.gids;
  view.lids = NULL;
  view.w = v.w;
  view.parts = v.parts;
  view.has_graph = 0;
  view.nedges = NULL;
  view.gdim = 0;
  view.coords = NULL;
  view.needs =
      c->needs & ~(unsigned)(ZP_NEEDS_GEOM | ZP_WANTS_GEOM | ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH);
  ierr = zp_run_serial(&view, v.new_part);
  if (ierr < 0) goto End;
  /* A part's load stands for objects that never travelled: it may not move. */
  for (k = 0; k < m; k++)
    if (v.pick[k] < 0 && v.new_part[k] != v.parts[k]) bad = 1;
  if (bad)
    zp_error(c->yo, "method %s moved the load of a part it was told to leave alone",
             c->r->method->name);
  if (zp_agree(c, bad ? ZOLTAN_FATAL : ZOLTAN_OK) < 0) {
    ierr = ZOLTAN_FATAL;
    goto End;
  }
  for (i = 0; i < c->n; i++) new_part[i] = c->parts[i];
  for (k = 0; k < m; k++)
    if (v.pick[k] >= 0) new_part[v.pick[k]] = v.new_part[k];
  if (c->debug_level >= 1) {
    counts[0] = c->n;
    counts[1] = 0;
    for (k = 0; k < m; k++) counts[1] += v.pick[k] >= 0;
    MPI_Reduce(counts, all, 2, MPI_LONG, MPI_SUM, ZP_ROOT, c->r->comm);
    if (c->r->rank == ZP_ROOT)
      printf("%s: LB_METHOD %s gathered %ld of %ld objects (the parts at or above their "
             "target)\n",
             c->yo, c->r->method->name, all[1], all[0]);
  }
End:
  zp_cand_free(&v);
  return ierr;
}
