/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guard's callbacks (zp_guard.c says why there is a guard): while a
 * native method runs they stand in front of the application's and answer
 * from what the guard read, so that the application's callbacks run once.
 * A call whose arguments differ from the ones read goes to the
 * application's own callback.
 */
#include <string.h>

#include "zp_guard_internal.h"

/* ---- the callbacks in front of the application's ------------------------- */

/* 1 when Zoltan asks about exactly the objects read, in the order read. */
static int g_same_objects(const zp_guard *g, int ngid, int nlid, int n, const ZOLTAN_ID_TYPE *gids)
{
  return ngid == g->ngid && nlid == g->nlid && n == g->n &&
         (n == 0 || memcmp(gids, g->gids, (size_t)n * ngid * sizeof *gids) == 0);
}

static int gw_num_obj(void *data, int *ierr)
{
  zp_guard *g = data;
  *ierr = ZOLTAN_OK;
  return g->n;
}

static void gw_obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                        int wdim, float *w, int *ierr)
{
  zp_guard *g = data;
  const g_fn *f = &g->app[G_OBJ_LIST];
  size_t n = (size_t)g->n, i;
  int found;
  if (ngid == g->ngid && nlid == g->nlid && wdim == g->wdim) {
    memcpy(gids, g->gids, n * ngid * sizeof *gids);
    if (nlid > 0) memcpy(lids, g->lids, n * nlid * sizeof *lids);
    if (wdim > 0) memcpy(w, g->w, n * wdim * sizeof *w);
    *ierr = ZOLTAN_OK;
    return;
  }
  if (f->multi != NULL) {
    ((ZOLTAN_OBJ_LIST_FN *)f->multi)(f->multi_data, ngid, nlid, gids, lids, wdim, w, ierr);
    return;
  }
  *ierr = ZOLTAN_OK;
  found = n > 0 &&
          ((ZOLTAN_FIRST_OBJ_FN *)f->single)(f->single_data, ngid, nlid, gids, lids, wdim, w, ierr);
  for (i = 1; found && i < n && zp_guard_ok(*ierr); i++)
    found = ((ZOLTAN_NEXT_OBJ_FN *)f->next)(f->next_data, ngid, nlid, gids + (i - 1) * ngid,
                                            lids + (i - 1) * nlid, gids + i * ngid, lids + i * nlid,
                                            wdim, w + i * wdim, ierr);
}

static void gw_parts(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *parts, int *ierr)
{
  zp_guard *g = data;
  const g_fn *f = &g->app[G_PART];
  int i;
  *ierr = ZOLTAN_OK;
  if (g_same_objects(g, ngid, nlid, n, gids)) {
    memcpy(parts, g->parts, (size_t)n * sizeof *parts);
  } else if (f->multi != NULL) {
    ((ZOLTAN_PART_MULTI_FN *)f->multi)(f->multi_data, ngid, nlid, n, gids, lids, parts, ierr);
  } else {
    for (i = 0; i < n && zp_guard_ok(*ierr); i++)
      parts[i] = ((ZOLTAN_PART_FN *)f->single)(f->single_data, ngid, nlid, gids + (size_t)i * ngid,
                                               lids + (size_t)i * nlid, ierr);
  }
}

static int gw_num_geom(void *data, int *ierr)
{
  zp_guard *g = data;
  *ierr = ZOLTAN_OK;
  return g->gdim;
}

static void gw_geom(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                    int dim, double *coords, int *ierr)
{
  zp_guard *g = data;
  const g_fn *f = &g->app[G_GEOM];
  int i;
  *ierr = ZOLTAN_OK;
  if (dim == g->gdim && g->coords != NULL && g_same_objects(g, ngid, nlid, n, gids)) {
    memcpy(coords, g->coords, (size_t)n * dim * sizeof *coords);
  } else if (f->multi != NULL) {
    ((ZOLTAN_GEOM_MULTI_FN *)f->multi)(f->multi_data, ngid, nlid, n, gids, lids, dim, coords, ierr);
  } else {
    for (i = 0; i < n && zp_guard_ok(*ierr); i++)
      ((ZOLTAN_GEOM_FN *)f->single)(f->single_data, ngid, nlid, gids + (size_t)i * ngid,
                                    lids + (size_t)i * nlid, coords + (size_t)i * dim, ierr);
  }
}

static void gw_num_edges(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                         ZOLTAN_ID_PTR lids, int *nedges, int *ierr)
{
  zp_guard *g = data;
  const g_fn *f = &g->app[G_NUM_EDGES];
  int i;
  *ierr = ZOLTAN_OK;
  if (g_same_objects(g, ngid, nlid, n, gids)) {
    memcpy(nedges, g->nedges, (size_t)n * sizeof *nedges);
  } else if (f->multi != NULL) {
    ((ZOLTAN_NUM_EDGES_MULTI_FN *)f->multi)(f->multi_data, ngid, nlid, n, gids, lids, nedges, ierr);
  } else {
    for (i = 0; i < n && zp_guard_ok(*ierr); i++)
      nedges[i] = ((ZOLTAN_NUM_EDGES_FN *)f->single)(
          f->single_data, ngid, nlid, gids + (size_t)i * ngid, lids + (size_t)i * nlid, ierr);
  }
}

static void gw_edge_list(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                         ZOLTAN_ID_PTR lids, int *nedges, ZOLTAN_ID_PTR nbr, int *procs, int ewdim,
                         float *ew, int *ierr)
{
  zp_guard *g = data;
  const g_fn *f = &g->app[G_EDGE_LIST];
  size_t off = 0;
  int i;
  *ierr = ZOLTAN_OK;
  if (ewdim == g->ewdim && g_same_objects(g, ngid, nlid, n, gids) &&
      memcmp(nedges, g->nedges, (size_t)n * sizeof *nedges) == 0) {
    memcpy(nbr, g->nbr, g->tedges * ngid * sizeof *nbr);
    memcpy(procs, g->nbr_procs, g->tedges * sizeof *procs);
    if (ewdim > 0) memcpy(ew, g->ew, g->tedges * ewdim * sizeof *ew);
  } else if (f->multi != NULL) {
    ((ZOLTAN_EDGE_LIST_MULTI_FN *)f->multi)(f->multi_data, ngid, nlid, n, gids, lids, nedges, nbr,
                                            procs, ewdim, ew, ierr);
  } else {
    for (i = 0; i < n && zp_guard_ok(*ierr); i++) {
      ((ZOLTAN_EDGE_LIST_FN *)f->single)(f->single_data, ngid, nlid, gids + (size_t)i * ngid,
                                         lids + (size_t)i * nlid, nbr + off * ngid, procs + off,
                                         ewdim, ew + off * ewdim, ierr);
      off += (size_t)nedges[i];
    }
  }
}

static void gw_sizes(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *sizes, int *ierr)
{
  zp_guard *g = data;
  const g_fn *f = &g->app[G_SIZE];
  int i;
  *ierr = ZOLTAN_OK;
  if (g_same_objects(g, ngid, nlid, n, gids)) {
    memcpy(sizes, g->sizes, (size_t)n * sizeof *sizes);
  } else if (f->multi != NULL) {
    ((ZOLTAN_OBJ_SIZE_MULTI_FN *)f->multi)(f->multi_data, ngid, nlid, n, gids, lids, sizes, ierr);
  } else {
    for (i = 0; i < n && zp_guard_ok(*ierr); i++)
      sizes[i] = ((ZOLTAN_OBJ_SIZE_FN *)f->single)(
          f->single_data, ngid, nlid, gids + (size_t)i * ngid, lids + (size_t)i * nlid, ierr);
  }
}

static void gw_hg_size_cs(void *data, int *nl, int *np, int *format, int *ierr)
{
  zp_guard *g = data;
  *nl = g->hg_nl;
  *np = g->hg_np;
  *format = g->hg_format;
  *ierr = ZOLTAN_OK;
}

static void gw_hg_cs(void *data, int ngid, int nl, int np, int format, ZOLTAN_ID_PTR lists,
                     int *starts, ZOLTAN_ID_PTR pins, int *ierr)
{
  zp_guard *g = data;
  const g_fn *f = &g->app[G_HG_CS];
  if (ngid == g->ngid && nl == g->hg_nl && np == g->hg_np && format == g->hg_format) {
    memcpy(lists, g->hg_lists, (size_t)nl * ngid * sizeof *lists);
    memcpy(starts, g->hg_starts, (size_t)nl * sizeof *starts);
    memcpy(pins, g->hg_pins, (size_t)np * ngid * sizeof *pins);
    *ierr = ZOLTAN_OK;
    return;
  }
  ((ZOLTAN_HG_CS_FN *)f->multi)(f->multi_data, ngid, nl, np, format, lists, starts, pins, ierr);
}

static void gw_hg_size_ew(void *data, int *n, int *ierr)
{
  zp_guard *g = data;
  *n = g->hg_new;
  *ierr = ZOLTAN_OK;
}

static void gw_hg_ew(void *data, int ngid, int nlid, int n, int ewdim, ZOLTAN_ID_PTR egids,
                     ZOLTAN_ID_PTR elids, float *ew, int *ierr)
{
  zp_guard *g = data;
  const g_fn *f = &g->app[G_HG_EW];
  if (ngid == g->ngid && nlid == g->nlid && n == g->hg_new && ewdim == g->ewdim) {
    memcpy(egids, g->hg_egids, (size_t)n * ngid * sizeof *egids);
    if (nlid > 0) memcpy(elids, g->hg_elids, (size_t)n * nlid * sizeof *elids);
    memcpy(ew, g->hg_ew, (size_t)n * ewdim * sizeof *ew);
    *ierr = ZOLTAN_OK;
    return;
  }
  ((ZOLTAN_HG_EDGE_WTS_FN *)f->multi)(f->multi_data, ngid, nlid, n, ewdim, egids, elids, ew, ierr);
}

/* Put fn in front of the application's callback of this type (and of its
 * single form pair, when has_pair). */
static void g_replace_pair(zp_guard *g, ZOLTAN_FN_TYPE type, ZOLTAN_VOID_FN *fn, int has_pair,
                           ZOLTAN_FN_TYPE pair)
{
  zp_fn_slot_replace(g->zz, &g->saved[g->nsaved++], type, has_pair ? pair : type, fn, g);
}

static void g_replace(zp_guard *g, ZOLTAN_FN_TYPE type, ZOLTAN_VOID_FN *fn)
{
  g_replace_pair(g, type, fn, 0, type);
}

void zp_guard_install(zp_guard *g)
{
  if (zp_guard_has(g, G_OBJ_LIST)) {
    g_replace(g, ZOLTAN_NUM_OBJ_FN_TYPE, (ZOLTAN_VOID_FN *)gw_num_obj);
    g_replace(g, ZOLTAN_OBJ_LIST_FN_TYPE, (ZOLTAN_VOID_FN *)gw_obj_list);
  }
  if (zp_guard_has(g, G_OBJ_LIST) && zp_guard_has(g, G_PART))
    g_replace_pair(g, ZOLTAN_PART_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)gw_parts, 1,
                   ZOLTAN_PART_FN_TYPE);
  if (zp_guard_has(g, G_GEOM)) {
    g_replace(g, ZOLTAN_NUM_GEOM_FN_TYPE, (ZOLTAN_VOID_FN *)gw_num_geom);
    g_replace_pair(g, ZOLTAN_GEOM_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)gw_geom, 1, ZOLTAN_GEOM_FN_TYPE);
  }
  if (zp_guard_has(g, G_EDGE_LIST)) {
    g_replace_pair(g, ZOLTAN_NUM_EDGES_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)gw_num_edges, 1,
                   ZOLTAN_NUM_EDGES_FN_TYPE);
    g_replace_pair(g, ZOLTAN_EDGE_LIST_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)gw_edge_list, 1,
                   ZOLTAN_EDGE_LIST_FN_TYPE);
  }
  if (zp_guard_has(g, G_SIZE))
    g_replace_pair(g, ZOLTAN_OBJ_SIZE_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)gw_sizes, 1,
                   ZOLTAN_OBJ_SIZE_FN_TYPE);
  if (zp_guard_has(g, G_HG_CS)) {
    g_replace(g, ZOLTAN_HG_SIZE_CS_FN_TYPE, (ZOLTAN_VOID_FN *)gw_hg_size_cs);
    g_replace(g, ZOLTAN_HG_CS_FN_TYPE, (ZOLTAN_VOID_FN *)gw_hg_cs);
  }
  if (zp_guard_has(g, G_HG_EW)) {
    g_replace(g, ZOLTAN_HG_SIZE_EDGE_WTS_FN_TYPE, (ZOLTAN_VOID_FN *)gw_hg_size_ew);
    g_replace(g, ZOLTAN_HG_EDGE_WTS_FN_TYPE, (ZOLTAN_VOID_FN *)gw_hg_ew);
  }
}

void zp_guard_restore(zp_guard *g)
{
  while (g->nsaved > 0) zp_fn_slot_restore(g->zz, &g->saved[--g->nsaved]);
}
