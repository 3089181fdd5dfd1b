/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The graph of a hierarchical run (zp_hier_run.c), for methods that read
 * it (SCOTCHLB, REFINE_COMM_AWARE): each group's edges gathered on its
 * root, as its objects are.  The group's method then sees the edges
 * between the objects it keeps (zp_hier_solve.c); an edge to another
 * group's object, or to a token, is cut by the tree, not by the method.
 */
#include <stdlib.h>
#include <string.h>

#include "zp_hier_internal.h"

int zp_hier_gather_graph(zp_hrun *x)
{
  zp_context *c = x->c;
  MPI_Comm g = x->h->group;
  int i, mine = 0, ierr = ZOLTAN_OK, *ecnt = NULL, *edsp = NULL;
  long long total = 0;
  for (i = 0; i < c->n; i++) mine += c->nedges[i];
  if (x->groot) {
    ecnt = malloc((size_t)x->gsize * sizeof *ecnt);
    edsp = malloc((size_t)x->gsize * sizeof *edsp);
    if (ecnt == NULL || edsp == NULL) ierr = ZOLTAN_MEMERR;
  }
  MPI_Gather(&mine, 1, MPI_INT, ecnt, 1, MPI_INT, 0, g);
  for (i = 0; x->groot && ierr == ZOLTAN_OK && i < x->gsize; i++) {
    edsp[i] = (int)total;
    total += ecnt[i];
  }
  if (x->groot && ierr == ZOLTAN_OK) {
    int wide = x->ngid > x->edim ? x->ngid : x->edim;
    if (total * wide > 2147483647LL) {
      zp_error(c->yo, "too many edges to gather on one group's root (%lld)", total);
      ierr = ZOLTAN_FATAL;
    } else {
      size_t E = (size_t)total;
      x->nedges = malloc((x->n + 1) * sizeof *x->nedges);
      x->estart = malloc((x->n + 1) * sizeof *x->estart);
      x->nbr = malloc((E * x->ngid + 1) * sizeof *x->nbr);
      x->nbrp = malloc((E + 1) * sizeof *x->nbrp);
      if (x->edim > 0) x->ew = malloc((E * x->edim + 1) * sizeof *x->ew);
      if (!x->nedges || !x->estart || !x->nbr || !x->nbrp || (x->edim > 0 && !x->ew))
        ierr = ZOLTAN_MEMERR;
    }
  }
  ierr = zp_hier_agree(x, ierr);
  if (ierr < 0) goto End;
  MPI_Gatherv(c->nedges, c->n, MPI_INT, x->nedges, x->cnt, x->displ, MPI_INT, 0, g);
  if (c->nbr_procs != NULL) {
    MPI_Gatherv(c->nbr_procs, mine, MPI_INT, x->nbrp, ecnt, edsp, MPI_INT, 0, g);
  } else {
    /* No ranks from the callbacks (a graph read from a hypergraph): no
     * object names where its edges lead. */
    int *none = malloc(((size_t)mine + 1) * sizeof *none);
    for (i = 0; none != NULL && i < mine; i++) none[i] = -1;
    MPI_Gatherv(none, none ? mine : 0, MPI_INT, x->nbrp, ecnt, edsp, MPI_INT, 0, g);
    free(none);
  }
  for (i = 0; x->groot && i < x->gsize; i++) {
    ecnt[i] *= x->ngid;
    edsp[i] *= x->ngid;
  }
  MPI_Gatherv(c->nbr, mine * x->ngid, ZOLTAN_ID_MPI_TYPE, x->nbr, ecnt, edsp, ZOLTAN_ID_MPI_TYPE, 0,
              g);
  if (x->edim > 0) {
    for (i = 0; x->groot && i < x->gsize; i++) {
      ecnt[i] = ecnt[i] / x->ngid * x->edim;
      edsp[i] = edsp[i] / x->ngid * x->edim;
    }
    MPI_Gatherv(c->ewgts, mine * x->edim, MPI_DOUBLE, x->ew, ecnt, edsp, MPI_DOUBLE, 0, g);
  }
  if (x->groot) {
    size_t k, at = 0;
    for (k = 0; k < x->n; k++) {
      x->estart[k] = at;
      at += (size_t)x->nedges[k];
    }
    x->estart[x->n] = at;
  }
End:
  free(ecnt);
  free(edsp);
  return ierr;
}

int zp_hier_group_csr(zp_hrun *x)
{
  size_t k, e, at = 0, E = 0, G = (size_t)x->ngid;
  int s0 = x->h->spec.kind == HIER_SIZES ? x->h->spec.size[0] : 0, size = x->c->r->size;
  zp_gidmap map;
  memset(&map, 0, sizeof map);
  if (x->gadj_start != NULL) return ZOLTAN_OK;
  for (k = 0; k < x->n; k++) E += (size_t)x->nedges[k];
  x->gadj_start = malloc((x->n + 1) * sizeof *x->gadj_start);
  x->gadj = malloc((E + 1) * sizeof *x->gadj);
  x->egroup = malloc((E + 1) * sizeof *x->egroup);
  if (!x->gadj_start || !x->gadj || !x->egroup ||
      zp_gidmap_build(&map, x->gids, x->n, x->ngid) < 0) {
    zp_gidmap_free(&map);
    return ZOLTAN_MEMERR;
  }
  for (k = 0; k < x->n; k++) {
    x->gadj_start[k] = at;
    for (e = x->estart[k]; e < x->estart[k] + (size_t)x->nedges[k]; e++) {
      long t = zp_gidmap_find(&map, x->nbr + e * G);
      int p = x->nbrp[e];
      x->egroup[e] = -1;
      if (t >= 0) {
        if ((size_t)t != k) x->gadj[at++] = (size_t)t;
      } else {
        /* Another group's object: its group when the groups are runs of
         * consecutive ranks and the callbacks named a rank, else -2. */
        x->egroup[e] = s0 > 0 && p >= 0 && p < size ? p / s0 : -2;
      }
    }
  }
  x->gadj_start[x->n] = at;
  zp_gidmap_free(&map);
  return ZOLTAN_OK;
}

size_t zp_hier_graph_shed(zp_hrun *x, const double *w0, double amount, hier_shed_mode mode,
                          size_t *order, int *near, double *shed)
{
  size_t k, e;
  if (zp_hier_group_csr(x) < 0) return (size_t)-1;
  for (k = 0; k < x->n; k++) {
    double best_w = -1.0;
    near[k] = -1;
    for (e = x->estart[k]; e < x->estart[k] + (size_t)x->nedges[k]; e++) {
      double ew = x->edim > 0 ? x->ew[e * (size_t)x->edim] : 1.0;
      int p = x->nbrp[e];
      if (x->egroup[e] == -1 || p < 0 || p >= x->c->r->size) continue;
      /* The heaviest edge out of the group names where the object belongs
       * (ties: the lowest rank, for determinism). */
      if (ew > best_w || (ew == best_w && p < near[k])) {
        best_w = ew;
        near[k] = p;
      }
    }
  }
  return hier_select_near(w0, x->n, x->gadj_start, x->gadj, near, amount, mode, order, x->take,
                          shed);
}
