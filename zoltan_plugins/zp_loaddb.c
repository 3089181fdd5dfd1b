/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The load database of the layer (Bhandarkar, Brunner and Kalé): at a balance, the loads the
 * application measured and reported for each object over the last
 * OBJ_WEIGHT_WINDOW steps (adaptive_report_objects, kept by the trigger
 * and read through zp_history.h, the one place that stores them) become the
 * weights every method balances.
 *
 * Our methods read them from the context.  Zoltan's own methods, and the
 * native base methods our methods run, read weights through the
 * application's object callbacks; so for the length of the call the layer
 * puts its own OBJ_LIST (or FIRST/NEXT) callback in front of the
 * application's, which calls the application's and replaces the first
 * weight of each object by the measured one.  The application's callbacks
 * and OBJ_WEIGHT_DIM are given back when the call ends, whatever happens
 * (zp_ctx_free).  The arithmetic is in loaddb/loaddb_core.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loaddb_core.h"
#include "zp_partition_internal.h"

/* The callbacks the layer puts in front of the application's for a call. */
struct zp_ldb_wrap {
  zp_record *r;                /* the struct's record */
  ZOLTAN_VOID_FN *list_fn;     /* the application's ZOLTAN_OBJ_LIST_FN, or NULL */
  void *list_data;             /* its data */
  ZOLTAN_VOID_FN *first_fn;    /* the application's FIRST_OBJ_FN (when no list) */
  void *first_data;            /* its data */
  ZOLTAN_VOID_FN *next_fn;     /* the application's NEXT_OBJ_FN (when no list) */
  void *next_data;             /* its data */
  int ngid;                    /* entries per global ID */
  size_t n;                    /* local objects */
  zp_gidmap map;               /* ID -> local index, built at the first lookup */
  int mapped;                  /* 1 once map is built */
  const ZOLTAN_ID_TYPE *lgids; /* the context's IDs, in local order */
  const double *lw;            /* the context's weights, whose first (of lstride)
                                  the callbacks give Zoltan */
  size_t lstride;              /* weights per object in lw */
  int dim_raised;              /* 1 when OBJ_WEIGHT_DIM was raised from 0 to 1 */
};

int zp_loaddb_mode(const zp_record *r)
{
  const char *v = NULL;
  int i;
  if (r == NULL || zp_param_string(r->params, "OBJ_WEIGHT_SOURCE", &v) != ZOLTAN_OK || v == NULL)
    return LOADDB_CALLBACK;
  for (i = 0; zp_loaddb_sources[i] != NULL; i++)
    if (strcmp(zp_loaddb_sources[i], v) == 0) return i;
  return LOADDB_CALLBACK;
}

/* ---- the callbacks in front of the application's ------------------------- */

static void ldb_overwrite(struct zp_ldb_wrap *x, int ngid, const ZOLTAN_ID_TYPE *gid, int wdim,
                          float *w)
{
  long k;
  if (wdim < 1 || ngid != x->ngid || w == NULL) return;
  if (!x->mapped) {
    /* Out of memory: the application's weight stays (a warning would come
     * from inside a callback, once per object). */
    if (zp_gidmap_build(&x->map, x->lgids, x->n, x->ngid) != ZOLTAN_OK) return;
    x->mapped = 1;
  }
  k = zp_gidmap_find(&x->map, gid);
  if (k >= 0) w[0] = (float)x->lw[(size_t)k * x->lstride];
}

static int ldb_ok(int ierr) { return ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN; }

static void ldb_obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int wdim, float *w, int *ierr)
{
  struct zp_ldb_wrap *x = data;
  const ZOLTAN_ID_TYPE *lg = x->lgids;
  const double *lw = x->lw;
  size_t i, n = x->n, ls = x->lstride, wd = wdim > 0 ? (size_t)wdim : 0;
  ((ZOLTAN_OBJ_LIST_FN *)x->list_fn)(x->list_data, ngid, nlid, gids, lids, wdim, w, ierr);
  if (!ldb_ok(*ierr) || w == NULL || wd == 0) return;
  /* The count is the one NUM_OBJ gave at the start of this call.  The list
   * comes in the order the layer read it in, so the object at position i is
   * usually the context's i-th: no search then.  One-entry IDs (the common
   * case) are compared inline: a call of memcmp per object cost more than
   * the application's own callback. */
  if (ngid == 1 && x->ngid == 1 && lg != NULL) {
    for (i = 0; i < n; i++) {
      if (gids[i] == lg[i])
        w[i * wd] = (float)lw[i * ls];
      else
        ldb_overwrite(x, ngid, gids + i, wdim, w + i * wd);
    }
    return;
  }
  for (i = 0; i < n; i++) {
    const ZOLTAN_ID_TYPE *g = gids + i * (size_t)ngid;
    if (ngid == x->ngid && lg != NULL &&
        memcmp(g, lg + i * (size_t)ngid, (size_t)ngid * sizeof *g) == 0)
      w[i * wd] = (float)lw[i * ls];
    else
      ldb_overwrite(x, ngid, g, wdim, w + i * wd);
  }
}

static int ldb_first(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int wdim,
                     float *w, int *ierr)
{
  struct zp_ldb_wrap *x = data;
  int found =
      ((ZOLTAN_FIRST_OBJ_FN *)x->first_fn)(x->first_data, ngid, nlid, gid, lid, wdim, w, ierr);
  if (found && ldb_ok(*ierr)) ldb_overwrite(x, ngid, gid, wdim, w);
  return found;
}

static int ldb_next(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                    ZOLTAN_ID_PTR next_gid, ZOLTAN_ID_PTR next_lid, int wdim, float *next_w,
                    int *ierr)
{
  struct zp_ldb_wrap *x = data;
  int found = ((ZOLTAN_NEXT_OBJ_FN *)x->next_fn)(x->next_data, ngid, nlid, gid, lid, next_gid,
                                                 next_lid, wdim, next_w, ierr);
  if (found && ldb_ok(*ierr)) ldb_overwrite(x, ngid, next_gid, wdim, next_w);
  return found;
}

/* Put the wrapper in front of the application's callbacks.  Local. */
static int ldb_install(zp_context *c, struct zp_ldb_wrap *x)
{
  struct Zoltan_Struct *zz = c->r->zz;
  Zoltan_Get_Fn(zz, ZOLTAN_OBJ_LIST_FN_TYPE, &x->list_fn, &x->list_data);
  Zoltan_Get_Fn(zz, ZOLTAN_FIRST_OBJ_FN_TYPE, &x->first_fn, &x->first_data);
  Zoltan_Get_Fn(zz, ZOLTAN_NEXT_OBJ_FN_TYPE, &x->next_fn, &x->next_data);
  if (x->list_fn != NULL) {
    Zoltan_Set_Fn(zz, ZOLTAN_OBJ_LIST_FN_TYPE, (ZOLTAN_VOID_FN *)ldb_obj_list, x);
  } else if (x->first_fn != NULL && x->next_fn != NULL) {
    Zoltan_Set_Fn(zz, ZOLTAN_FIRST_OBJ_FN_TYPE, (ZOLTAN_VOID_FN *)ldb_first, x);
    Zoltan_Set_Fn(zz, ZOLTAN_NEXT_OBJ_FN_TYPE, (ZOLTAN_VOID_FN *)ldb_next, x);
  }
  /* Zoltan reads no weights with OBJ_WEIGHT_DIM 0: the measured ones need one. */
  if (zp_record_native_int(c->r, "OBJ_WEIGHT_DIM", 0) == 0) {
    zp_real_set_param_vec(zz, "OBJ_WEIGHT_DIM", "1", -1);
    x->dim_raised = 1;
  }
  c->ldb = x;
  return ZOLTAN_OK;
}

static void ldb_free(struct zp_ldb_wrap *x)
{
  if (x == NULL) return;
  zp_gidmap_free(&x->map);
  free(x);
}

void zp_loaddb_release(zp_context *c)
{
  struct zp_ldb_wrap *x = c->ldb;
  struct Zoltan_Struct *zz;
  if (x == NULL) return;
  zz = x->r->zz;
  if (x->list_fn != NULL) {
    Zoltan_Set_Fn(zz, ZOLTAN_OBJ_LIST_FN_TYPE, x->list_fn, x->list_data);
  } else if (x->first_fn != NULL && x->next_fn != NULL) {
    Zoltan_Set_Fn(zz, ZOLTAN_FIRST_OBJ_FN_TYPE, x->first_fn, x->first_data);
    Zoltan_Set_Fn(zz, ZOLTAN_NEXT_OBJ_FN_TYPE, x->next_fn, x->next_data);
  }
  if (x->dim_raised) zp_real_set_param_vec(zz, "OBJ_WEIGHT_DIM", "0", -1);
  ldb_free(x);
  c->ldb = NULL;
}

/* ---- matching the reports to the objects --------------------------------- */

/* One snapshot without IDs: its loads are in the order of the object list. */
static int ldb_add_unnamed(const zp_context *c, const zp_object_loads *s, double *sum,
                           unsigned *count)
{
  int i;
  if (s->num_obj != c->n) {
    zp_error(c->yo,
             "OBJ_WEIGHT_SOURCE: the loads reported for step %ld name no IDs and hold %d "
             "objects, but ZOLTAN_NUM_OBJ_FN gives %d; report IDs when the objects change",
             s->step, s->num_obj, c->n);
    return ZOLTAN_FATAL;
  }
  for (i = 0; i < c->n; i++) {
    sum[i] += s->loads[i];
    count[i]++;
  }
  return ZOLTAN_OK;
}

/* One snapshot with IDs, matched through the wrapper's map of the local
 * IDs (a snapshot in the order of the object list needs no lookup). */
static int ldb_add_named(const zp_context *c, struct zp_ldb_wrap *x, const zp_object_loads *s,
                         double *sum, unsigned *count)
{
  int j, bad = 0;
  if (s->num_gid_entries != c->ngid) {
    zp_error(c->yo,
             "OBJ_WEIGHT_SOURCE: the loads reported for step %ld have IDs of %d entries; "
             "NUM_GID_ENTRIES is %d",
             s->step, s->num_gid_entries, c->ngid);
    return ZOLTAN_FATAL;
  }
  for (j = 0; j < s->num_obj; j++) {
    const ZOLTAN_ID_TYPE *g = s->gids + (size_t)j * (size_t)c->ngid;
    long k = -1;
    if (j < c->n && memcmp(g, c->gids + (size_t)j * c->ngid, (size_t)c->ngid * sizeof *g) == 0) {
      k = j;
    } else {
      if (!x->mapped) {
        if (zp_gidmap_build(&x->map, c->gids, (size_t)c->n, c->ngid) != ZOLTAN_OK)
          return ZOLTAN_MEMERR;
        x->mapped = 1;
      }
      k = zp_gidmap_find(&x->map, g);
    }
    if (k < 0) {
      if (bad++ < ZP_MAX_OBJ_MESSAGES) {
        char txt[ZP_GID_TEXT];
        zp_format_gid(g, c->ngid, txt, sizeof txt);
        zp_error(c->yo,
                 "OBJ_WEIGHT_SOURCE: object GID %s, reported for step %ld "
                 "(adaptive_report_objects), is not an object of this rank "
                 "(ZOLTAN_OBJ_LIST_FN does not list it)",
                 txt, s->step);
      }
      continue;
    }
    sum[k] += s->loads[j];
    count[k]++;
  }
  return bad ? ZOLTAN_FATAL : ZOLTAN_OK;
}

/* What the wrapper reads: the context's IDs and weights (the ID map is
 * built at the first object that comes out of the context's order).
 * Local. */
static void ldb_table(const zp_context *c, struct zp_ldb_wrap *x)
{
  x->r = c->r;
  x->ngid = c->ngid;
  x->n = (size_t)c->n;
  x->lgids = c->gids;
  x->lw = c->w;
  x->lstride = (size_t)c->wdim;
}

/* The sum and count of the reports of each local object over the newest
 * `window` snapshots; *nsnap receives how many were held.  Local. */
static int ldb_measure(zp_context *c, struct zp_ldb_wrap *x, double *sum, unsigned *count,
                       long *nsnap)
{
  size_t back;
  int window = 3, ierr = ZOLTAN_OK;
  ldb_table(c, x);
  zp_param_int(c->r->params, "OBJ_WEIGHT_WINDOW", &window, NULL);
  for (back = 0; ierr >= 0 && back < (size_t)window; back++) {
    zp_object_loads s;
    if (zp_history_object_loads(c->r->zz, back, &s) != ZOLTAN_OK) break;
    (*nsnap)++;
    ierr =
        s.gids == NULL ? ldb_add_unnamed(c, &s, sum, count) : ldb_add_named(c, x, &s, sum, count);
  }
  return ierr;
}

/* The totals of the ranks' loaddb_local_totals, and of one more number
 * (extra) each rank contributes.  Collective (one reduction). */
void zp_loaddb_sum_totals(const zp_context *c, const loaddb_totals *lt, double extra,
                          loaddb_totals *gt, double *extra_sum)
{
  double local[5], global[5];
  local[0] = lt->measured;
  local[1] = lt->count;
  local[2] = lt->callback;
  local[3] = lt->unmeasured;
  local[4] = extra;
  MPI_Allreduce(local, global, 5, MPI_DOUBLE, MPI_SUM, c->r->comm);
  gt->measured = global[0];
  gt->count = global[1];
  gt->callback = global[2];
  gt->unmeasured = global[3];
  *extra_sum = global[4];
}

/* The measured weights into c->w, with the totals of every rank.
 * Collective. */
static int ldb_weights(zp_context *c, int mode, const double *sum, const unsigned *count,
                       long nsnap)
{
  size_t n = (size_t)c->n, stride = (size_t)c->wdim;
  double *load = malloc((n + 1) * sizeof *load);
  double extra = 0.0;
  loaddb_totals lt, gt;
  int ierr = load != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR;
  if (ierr >= 0 && loaddb_smooth(n, sum, count, load) != LOADDB_OK) ierr = ZOLTAN_FATAL;
  ierr = zp_agree(c, ierr);
  if (ierr < 0) goto End;
  loaddb_local_totals(n, load, count, c->w, stride, &lt);
  zp_loaddb_sum_totals(c, &lt, (double)nsnap, &gt, &extra);
  loaddb_weights(mode, n, load, count, c->w, stride, &gt);
  if (c->r->rank == c->debug_proc && gt.count == 0.0)
    zp_warn(c->yo,
            "OBJ_WEIGHT_SOURCE = %s, but no object load was reported since the last balance "
            "(attach a trigger with adaptive_attach and call adaptive_report_objects); the "
            "callback weights are used",
            zp_loaddb_sources[mode]);
  else if (c->r->rank == c->debug_proc && gt.unmeasured > 0.0 && c->debug_level >= 1)
    zp_warn(c->yo, "OBJ_WEIGHT_SOURCE = %s: %.0f of %.0f objects have no measured load; %s",
            zp_loaddb_sources[mode], gt.unmeasured, gt.unmeasured + gt.count,
            mode == LOADDB_MEASURED ? "they get the mean measured load"
                                    : "they keep their callback weight, scaled");
  if (c->debug_level >= 1 && c->r->rank == c->debug_proc)
    printf("ZOLTAN zoltan_plugins: OBJ_WEIGHT_SOURCE = %s, %.0f objects measured over up to %d "
           "snapshots per rank\n",
           zp_loaddb_sources[mode], gt.count, (int)(extra / c->r->size + 0.5));
End:
  free(load);
  return ierr;
}

int zp_loaddb_apply(zp_context *c)
{
  int mode = zp_loaddb_mode(c->r), ierr;
  size_t n = (size_t)c->n;
  long nsnap = 0;
  double *sum;
  unsigned *count;
  struct zp_ldb_wrap *x;
  if (mode == LOADDB_CALLBACK) return ZOLTAN_OK;
  x = calloc(1, sizeof *x);
  sum = calloc(n + 1, sizeof *sum);
  count = calloc(n + 1, sizeof *count);
  ierr = (x != NULL && sum != NULL && count != NULL) ? ZOLTAN_OK : ZOLTAN_MEMERR;
  if (ierr >= 0) {
    x->r = c->r;
    x->ngid = c->ngid;
    x->n = n;
    ierr = ldb_measure(c, x, sum, count, &nsnap);
  }
  ierr = zp_agree(c, ierr);
  if (ierr >= 0) ierr = ldb_weights(c, mode, sum, count, nsnap);
  if (ierr >= 0) {
    /* The weights are the measured ones from here on, whatever
     * OBJ_WEIGHT_DIM the application set. */
    if (c->obj_wgt_dim == 0) c->obj_wgt_dim = 1;
    ierr = ldb_install(c, x);
    x = NULL;
  }
  ldb_free(x);
  free(sum);
  free(count);
  return ierr;
}

/* ---- weights a method hands to its base method ----------------------------- */

int zp_loaddb_override(zp_context *c, const double *w0, zp_weight_undo *u)
{
  size_t n = (size_t)c->n, i, stride = (size_t)c->wdim;
  memset(u, 0, sizeof *u);
  /* With several weights per object only the first is replaced, in place;
   * the first weights are kept for zp_loaddb_restore. */
  if (stride > 1) {
    u->col0 = zp_ctx_array(c, ZP_SCR_L_COL0, (n + 1) * sizeof *u->col0, 0);
    if (u->col0 == NULL) return ZOLTAN_MEMERR;
  }
  if (c->ldb == NULL) {
    /* No wrapper yet: one that serves the context's weights for this run
     * (a wrapper already there serves them too: it reads c->w). */
    struct zp_ldb_wrap *x = calloc(1, sizeof *x);
    if (x == NULL) return ZOLTAN_MEMERR;
    ldb_table(c, x);
    ldb_install(c, x);
    u->installed = 1;
  }
  if (stride == 1 && w0 == NULL) {
    /* No objects here (the caller checks): nothing to replace. */
    return ZOLTAN_OK;
  }
  if (stride == 1) {
    /* One weight per object: the context points at w0 for the run instead
     * of copying it in and the old weights back (two passes over the
     * objects).  Nothing in a base run writes the context's weights; the
     * wrapper serves what the context points at. */
    u->saved_w = c->w;
    u->swapped = 1;
    c->w = (double *)w0;
    c->ldb->lw = c->w;
  } else {
    for (i = 0; i < n; i++) {
      u->col0[i] = c->w[i * stride];
      c->w[i * stride] = w0[i];
    }
  }
  u->changed = 1;
  return ZOLTAN_OK;
}

void zp_loaddb_restore(zp_context *c, zp_weight_undo *u)
{
  size_t n = (size_t)c->n, i, stride = (size_t)c->wdim;
  if (u->changed && u->swapped) {
    c->w = u->saved_w;
    if (c->ldb != NULL) c->ldb->lw = c->w;
  } else if (u->changed) {
    for (i = 0; i < n; i++) c->w[i * stride] = u->col0[i];
  }
  if (u->installed) zp_loaddb_release(c);
  zp_ctx_array_free(c, u->col0);
  memset(u, 0, sizeof *u);
}
