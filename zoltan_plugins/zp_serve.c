/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving a native base run from what the layer read (zp_serve_begin):
 * before a native method runs under the layer, the layer has already
 * called the object list, the part callback and, for a geometric method,
 * the coordinates, and agreed on the outcome (zp_check_native_inputs).
 * Zoltan's method would call the same callbacks again, with the same
 * arguments, a few microseconds later.  For the length of the run these
 * callbacks stand in front of the application's and answer from the
 * context's arrays, so that the application's callbacks run once per call
 * (issue 36: "read the application's callbacks once") and a callback that
 * fails on one rank during the second read cannot leave the others waiting.
 *
 * The answers are the application's own: the IDs as read, the weights as
 * the context holds them (the application's, or the ones the layer put in
 * their place for this run, as zp_loaddb_override's wrapper would give),
 * converted back to float exactly, the parts as the application reported
 * them, the coordinates as read.  A call whose arguments differ from the
 * ones read (another list of objects, another dimension) goes to the
 * callback that was registered before.  The guard (zp_guard.c) serves its
 * own copies; with the guard on, nothing is put in front here, and the
 * guard takes the coordinates the layer read (zp_layer_read_coords).
 *
 * The coordinates are the exception when the layer has not read them for
 * its own use (geom_deferred): reading them for the run only, to be served
 * back, cost an application callback and a copy of n * dim doubles into a
 * buffer of the layer's, where Zoltan's own read is one callback into
 * Zoltan's buffer.  Zoltan then calls the application's callback through
 * sv_geom_deferred, which keeps a failure instead of passing it on: Zoltan
 * gets zeros and ZOLTAN_OK, finishes its collective run on every rank, and
 * the caller fails the run on every rank with the code kept.
 */
#include <string.h>

#include "zp_partition_internal.h"

/* 1 when Zoltan asks about exactly the objects read, in the order read. */
static int sv_same_objects(const zp_context *c, int ngid, int nlid, int n,
                           const ZOLTAN_ID_TYPE *gids)
{
  return ngid == c->ngid && nlid == c->nlid && n == c->n &&
         (n == 0 || memcmp(gids, c->gids, (size_t)n * (size_t)ngid * sizeof *gids) == 0);
}

int zp_layer_read_coords(const zp_context *c, int ngid, int nlid, int n, const ZOLTAN_ID_TYPE *gids,
                         int dim, double *x)
{
  if (c == NULL || !c->geom_asked || c->coords == NULL || c->gdim <= 0 || dim != c->gdim ||
      !sv_same_objects(c, ngid, nlid, n, gids))
    return 0;
  memcpy(x, c->coords, (size_t)n * (size_t)dim * sizeof *x);
  return 1;
}

static int sv_num_obj(void *data, int *ierr)
{
  const zp_serve *s = data;
  *ierr = ZOLTAN_OK;
  return s->c->n;
}

static void sv_obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                        int wdim, float *w, int *ierr)
{
  const zp_serve *s = data;
  const zp_context *c = s->c;
  size_t n = (size_t)c->n, i, k, wd = wdim > 0 ? (size_t)wdim : 0, cw = (size_t)c->wdim;
  int found;
  if (ngid == c->ngid && nlid == c->nlid && wd <= cw) {
    memcpy(gids, c->gids, n * (size_t)ngid * sizeof *gids);
    if (nlid > 0) memcpy(lids, c->lids, n * (size_t)nlid * sizeof *lids);
    for (i = 0; i < n; i++)
      for (k = 0; k < wd; k++) w[i * wd + k] = (float)c->w[i * cw + k];
    *ierr = ZOLTAN_OK;
    return;
  }
  if (s->list_fn != NULL) {
    ((ZOLTAN_OBJ_LIST_FN *)s->list_fn)(s->list_data, ngid, nlid, gids, lids, wdim, w, ierr);
    return;
  }
  *ierr = ZOLTAN_OK;
  found = n > 0 && ((ZOLTAN_FIRST_OBJ_FN *)s->first_fn)(s->first_data, ngid, nlid, gids, lids, wdim,
                                                        w, ierr);
  for (i = 1; found && i < n && (*ierr == ZOLTAN_OK || *ierr == ZOLTAN_WARN); i++)
    found = ((ZOLTAN_NEXT_OBJ_FN *)s->next_fn)(s->next_data, ngid, nlid, gids + (i - 1) * ngid,
                                               lids + (i - 1) * nlid, gids + i * ngid,
                                               lids + i * nlid, wdim, w + i * wd, ierr);
}

static void sv_parts(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *parts, int *ierr)
{
  const zp_serve *s = data;
  int i;
  if (sv_same_objects(s->c, ngid, nlid, n, gids)) {
    memcpy(parts, s->c->in_parts, (size_t)n * sizeof *parts);
    *ierr = ZOLTAN_OK;
    return;
  }
  if (s->pmulti_fn != NULL) {
    ((ZOLTAN_PART_MULTI_FN *)s->pmulti_fn)(s->pmulti_data, ngid, nlid, n, gids, lids, parts, ierr);
    return;
  }
  *ierr = ZOLTAN_OK;
  for (i = 0; i < n && (*ierr == ZOLTAN_OK || *ierr == ZOLTAN_WARN); i++)
    parts[i] = ((ZOLTAN_PART_FN *)s->pone_fn)(s->pone_data, ngid, nlid, gids + (size_t)i * ngid,
                                              nlid > 0 ? lids + (size_t)i * nlid : NULL, ierr);
}

/* The application's geometry callback, in the form it registered. */
static void sv_call_geom(const zp_serve *s, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                         ZOLTAN_ID_PTR lids, int dim, double *x, int *ierr)
{
  int i;
  if (s->gmulti_fn != NULL) {
    ((ZOLTAN_GEOM_MULTI_FN *)s->gmulti_fn)(s->gmulti_data, ngid, nlid, n, gids, lids, dim, x, ierr);
    return;
  }
  *ierr = ZOLTAN_OK;
  for (i = 0; i < n && zp_cb_ok(*ierr); i++)
    ((ZOLTAN_GEOM_FN *)s->gone_fn)(s->gone_data, ngid, nlid, gids + (size_t)i * ngid,
                                   nlid > 0 ? lids + (size_t)i * nlid : NULL, x + (size_t)i * dim,
                                   ierr);
}

static void sv_geom(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                    int dim, double *x, int *ierr)
{
  const zp_serve *s = data;
  if (zp_layer_read_coords(s->c, ngid, nlid, n, gids, dim, x)) {
    *ierr = ZOLTAN_OK;
    return;
  }
  sv_call_geom(s, ngid, nlid, n, gids, lids, dim, x, ierr);
}

/* The application's coordinates straight into Zoltan's buffer; a failure
 * is kept in s->geom_failed (the first one is said) and Zoltan sees zeros
 * and ZOLTAN_OK, so that this rank stays in Zoltan's collective run. */
static void sv_geom_deferred(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                             ZOLTAN_ID_PTR lids, int dim, double *x, int *ierr)
{
  zp_serve *s = data;
  sv_call_geom(s, ngid, nlid, n, gids, lids, dim, x, ierr);
  if (zp_cb_ok(*ierr)) return;
  if (s->geom_failed == 0) {
    zp_error(s->c->yo, "%s: %s returned error code %d", s->who ? s->who : "base method",
             s->gmulti_fn != NULL ? "ZOLTAN_GEOM_MULTI_FN" : "ZOLTAN_GEOM_FN", *ierr);
    s->geom_failed = *ierr;
  }
  if (n > 0 && dim > 0) memset(x, 0, (size_t)n * (size_t)dim * sizeof *x);
  *ierr = ZOLTAN_OK;
}

void zp_fn_slot_replace(struct Zoltan_Struct *zz, zp_fn_slot *s, ZOLTAN_FN_TYPE type,
                        ZOLTAN_FN_TYPE single, ZOLTAN_VOID_FN *fn, void *data)
{
  s->type = type;
  s->single = single;
  Zoltan_Get_Fn(zz, type, &s->fn, &s->data);
  Zoltan_Get_Fn(zz, single, &s->single_fn, &s->single_data);
  Zoltan_Set_Fn(zz, type, fn, data);
}

void zp_fn_slot_restore(struct Zoltan_Struct *zz, const zp_fn_slot *s)
{
  if (s->fn == NULL && s->single_fn != NULL)
    Zoltan_Set_Fn(zz, s->single, s->single_fn, s->single_data);
  else
    Zoltan_Set_Fn(zz, s->type, s->fn, s->data);
}

static void sv_replace(zp_serve *s, ZOLTAN_FN_TYPE type, ZOLTAN_FN_TYPE single, ZOLTAN_VOID_FN *fn)
{
  zp_fn_slot_replace(s->zz, &s->saved[s->nsaved++], type, single, fn, s);
}

void zp_serve_begin(const zp_context *c, zp_serve *s)
{
  struct Zoltan_Struct *zz = c->r->zz;
  memset(s, 0, sizeof *s);
  s->c = c;
  s->zz = zz;
  /* The guard serves its own. */
  if (c->guard != NULL) return;
  Zoltan_Get_Fn(zz, ZOLTAN_GEOM_MULTI_FN_TYPE, &s->gmulti_fn, &s->gmulti_data);
  Zoltan_Get_Fn(zz, ZOLTAN_GEOM_FN_TYPE, &s->gone_fn, &s->gone_data);
  /* Deferred coordinates need the wrapper whatever else is served: without
   * it a failure on one rank would leave Zoltan's run on the others. */
  if (c->geom_deferred && c->coords == NULL && (s->gmulti_fn != NULL || s->gone_fn != NULL))
    sv_replace(s, ZOLTAN_GEOM_MULTI_FN_TYPE, ZOLTAN_GEOM_FN_TYPE,
               (ZOLTAN_VOID_FN *)sv_geom_deferred);
  /* Nothing else to serve without the objects. */
  if (c->gids == NULL || c->in_parts == NULL || c->w == NULL) return;
  Zoltan_Get_Fn(zz, ZOLTAN_OBJ_LIST_FN_TYPE, &s->list_fn, &s->list_data);
  Zoltan_Get_Fn(zz, ZOLTAN_FIRST_OBJ_FN_TYPE, &s->first_fn, &s->first_data);
  Zoltan_Get_Fn(zz, ZOLTAN_NEXT_OBJ_FN_TYPE, &s->next_fn, &s->next_data);
  Zoltan_Get_Fn(zz, ZOLTAN_PART_MULTI_FN_TYPE, &s->pmulti_fn, &s->pmulti_data);
  Zoltan_Get_Fn(zz, ZOLTAN_PART_FN_TYPE, &s->pone_fn, &s->pone_data);
  if (s->list_fn == NULL && (s->first_fn == NULL || s->next_fn == NULL)) return;
  sv_replace(s, ZOLTAN_NUM_OBJ_FN_TYPE, ZOLTAN_NUM_OBJ_FN_TYPE, (ZOLTAN_VOID_FN *)sv_num_obj);
  /* FIRST/NEXT_OBJ stay registered behind a list function: Zoltan reads
   * the list when there is one. */
  sv_replace(s, ZOLTAN_OBJ_LIST_FN_TYPE, ZOLTAN_OBJ_LIST_FN_TYPE, (ZOLTAN_VOID_FN *)sv_obj_list);
  /* Without a part callback Zoltan takes every object to be in its rank's
   * part, as the layer did: nothing to stand in front of. */
  if (s->pmulti_fn != NULL || s->pone_fn != NULL)
    sv_replace(s, ZOLTAN_PART_MULTI_FN_TYPE, ZOLTAN_PART_FN_TYPE, (ZOLTAN_VOID_FN *)sv_parts);
  if (c->geom_asked && c->coords != NULL && c->gdim > 0 &&
      (s->gmulti_fn != NULL || s->gone_fn != NULL))
    sv_replace(s, ZOLTAN_GEOM_MULTI_FN_TYPE, ZOLTAN_GEOM_FN_TYPE, (ZOLTAN_VOID_FN *)sv_geom);
}

void zp_serve_end(zp_serve *s)
{
  while (s->nsaved > 0) zp_fn_slot_restore(s->zz, &s->saved[--s->nsaved]);
}
