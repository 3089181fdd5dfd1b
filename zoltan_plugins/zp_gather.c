/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application's data, through its Zoltan callbacks (Zoltan_Get_Fn):
 * local objects, weights and current parts; coordinates and graph edges
 * when a method wants them; and, before Zoltan's PHG runs as a base method,
 * the hypergraph.  Every callback's error code is checked and named in the
 * message, and coordinates and edges are asked for at most once per call.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "loaddb_core.h"
#include "zp_partition_internal.h"

/* The local ID of object i, or NULL when there are none. */
static ZOLTAN_ID_PTR zp_lid(const zp_context *c, int i)
{
  return c->lids ? c->lids + (size_t)i * c->nlid : NULL;
}

static ZOLTAN_ID_PTR zp_gid(const zp_context *c, int i) { return c->gids + (size_t)i * c->ngid; }

/* ---- objects ------------------------------------------------------------- */

static int zp_count_objects(zp_context *c)
{
  ZOLTAN_VOID_FN *fn = NULL;
  void *data = NULL;
  int ierr = ZOLTAN_OK;
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_NUM_OBJ_FN_TYPE, &fn, &data);
  if (fn == NULL) {
    zp_error(c->yo, "Register ZOLTAN_NUM_OBJ_FN.");
    return ZOLTAN_FATAL;
  }
  c->n = ((ZOLTAN_NUM_OBJ_FN *)fn)(data, &ierr);
  if (!zp_cb_ok(ierr)) {
    zp_error(c->yo, "ZOLTAN_NUM_OBJ_FN returned error code %d", ierr);
    return ZOLTAN_FATAL;
  }
  if (c->n < 0) {
    zp_error(c->yo, "ZOLTAN_NUM_OBJ_FN returned %d objects", c->n);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* The objects through FIRST_OBJ / NEXT_OBJ, for applications without
 * OBJ_LIST; the chain must give exactly the announced number. */
static int zp_walk_objects(zp_context *c, float *fw)
{
  struct Zoltan_Struct *zz = c->r->zz;
  ZOLTAN_VOID_FN *first = NULL, *next = NULL;
  void *fdata = NULL, *ndata = NULL;
  int ierr = ZOLTAN_OK, wd = c->obj_wgt_dim, found, i;
  Zoltan_Get_Fn(zz, ZOLTAN_FIRST_OBJ_FN_TYPE, &first, &fdata);
  Zoltan_Get_Fn(zz, ZOLTAN_NEXT_OBJ_FN_TYPE, &next, &ndata);
  if (first == NULL || next == NULL) {
    zp_error(c->yo, "Must register ZOLTAN_OBJ_LIST_FN or ZOLTAN_FIRST_OBJ_FN/ZOLTAN_NEXT_OBJ_FN.");
    return ZOLTAN_FATAL;
  }
  found = ((ZOLTAN_FIRST_OBJ_FN *)first)(fdata, c->ngid, c->nlid, c->gids, c->lids, wd, fw, &ierr);
  for (i = 0; found && i + 1 < c->n && zp_cb_ok(ierr); i++)
    found = ((ZOLTAN_NEXT_OBJ_FN *)next)(ndata, c->ngid, c->nlid, zp_gid(c, i), zp_lid(c, i),
                                         zp_gid(c, i + 1), zp_lid(c, i + 1), wd,
                                         fw + (size_t)(i + 1) * wd, &ierr);
  if (!zp_cb_ok(ierr)) {
    zp_error(c->yo, "ZOLTAN_FIRST_OBJ_FN/ZOLTAN_NEXT_OBJ_FN returned error code %d", ierr);
    return ZOLTAN_FATAL;
  }
  if (!found || i + 1 < c->n) {
    zp_error(c->yo,
             "ZOLTAN_NEXT_OBJ_FN ended after %d of the %d objects that ZOLTAN_NUM_OBJ_FN "
             "announced",
             found ? i + 1 : i, c->n);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

static int zp_list_objects(zp_context *c, float *fw)
{
  ZOLTAN_VOID_FN *fn = NULL;
  void *data = NULL;
  int ierr = ZOLTAN_OK;
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_OBJ_LIST_FN_TYPE, &fn, &data);
  if (fn == NULL) return zp_walk_objects(c, fw);
  ((ZOLTAN_OBJ_LIST_FN *)fn)(data, c->ngid, c->nlid, c->gids, c->lids, c->obj_wgt_dim, fw, &ierr);
  if (!zp_cb_ok(ierr)) {
    zp_error(c->yo, "ZOLTAN_OBJ_LIST_FN returned error code %d", ierr);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* Current parts: the part callbacks when registered, else the rank. */
static int zp_current_parts(zp_context *c)
{
  ZOLTAN_VOID_FN *fn = NULL;
  void *data = NULL;
  int ierr = ZOLTAN_OK, i;
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_PART_MULTI_FN_TYPE, &fn, &data);
  if (fn != NULL) {
    ((ZOLTAN_PART_MULTI_FN *)fn)(data, c->ngid, c->nlid, c->n, c->gids, c->lids, c->parts, &ierr);
  } else {
    Zoltan_Get_Fn(c->r->zz, ZOLTAN_PART_FN_TYPE, &fn, &data);
    for (i = 0; i < c->n && zp_cb_ok(ierr); i++)
      c->parts[i] = fn == NULL ? c->r->rank
                               : ((ZOLTAN_PART_FN *)fn)(data, c->ngid, c->nlid, zp_gid(c, i),
                                                        zp_lid(c, i), &ierr);
  }
  if (!zp_cb_ok(ierr)) {
    zp_error(c->yo,
             "the part callback (ZOLTAN_PART_MULTI_FN or ZOLTAN_PART_FN) returned error code %d",
             ierr);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* Weights as doubles (1 each without OBJ_WEIGHT_DIM), refusing NaN,
 * infinite and negative ones; parts outside the known ones mapped. */
static int zp_check_objects(zp_context *c, const float *fw)
{
  /* c->n is never negative; saying so keeps GCC's -O3 from seeing a
   * negative count turned into a huge copy. */
  const size_t n = c->n > 0 ? (size_t)c->n : 0, wdim = (size_t)c->wdim, count = n * wdim;
  const int wd = c->obj_wgt_dim, np = c->nparts;
  int *parts = c->parts;
  double *w = c->w;
  int ierr = ZOLTAN_OK, nmsg = 0, outside = 0, bad = 0;
  size_t i, k;
  char g[ZP_GID_TEXT];
  /* The common case, every part known and every weight valid, runs as
   * branch-free passes the compiler vectorises; the objects that need a
   * fix or a message are looked for only when there is one. */
  for (i = 0; i < n; i++) outside |= parts[i] < 0 || parts[i] >= np;
  /* The parts as reported are the parts methods see unless one lies
   * outside the known ones: only then do they need a copy of their own. */
  c->in_parts = parts;
  if (outside) {
    c->in_parts = zp_ctx_array(c, ZP_SCR_L_IN_PARTS, n * sizeof *c->in_parts, 0);
    if (c->in_parts == NULL) return ZOLTAN_MEMERR;
    memcpy(c->in_parts, parts, n * sizeof *parts);
  }
  /* An object outside the known parts (no part callback and more ranks
   * than parts, or NUM_GLOBAL_PARTS shrank) is taken to be in the first
   * part its rank holds; on a rank that holds none it is in no part (-1),
   * and any assignment moves it. */
  for (i = 0; outside && i < n; i++)
    if (parts[i] < 0 || parts[i] >= np) parts[i] = zp_first_part_of(c, c->r->rank);
  if (wd <= 0) {
    for (k = 0; k < count; k++) w[k] = 1.0;
    return ZOLTAN_OK;
  }
  /* fw is the upper half of w's buffer (zp_gather_objects), widened front
   * to back: the double written for weight k covers only floats up to k,
   * all read by then.  The copies through memcpy tell the compiler that the
   * float and the double may share memory, so it keeps that order.  A
   * float is finite and >= 0 when it lies in [0, FLT_MAX]: NaN fails both
   * comparisons. */
  for (k = 0; k < count; k++) {
    float f;
    double d;
    memcpy(&f, fw + k, sizeof f);
    d = (double)f;
    memcpy(w + k, &d, sizeof d);
    bad |= !(f >= 0.0f && f <= FLT_MAX);
  }
  for (k = 0; bad && k < count; k++) {
    double v = w[k];
    if (isfinite(v) && v >= 0.0) continue;
    if (nmsg++ < ZP_MAX_OBJ_MESSAGES) {
      zp_format_gid(zp_gid(c, (int)(k / wdim)), c->ngid, g, sizeof g);
      zp_error(c->yo, "object GID %s has weight[%d] = %g; weights must be finite and >= 0", g,
               (int)(k % wdim), v);
    }
    ierr = ZOLTAN_FATAL;
  }
  return ierr;
}

int zp_gather_objects(zp_context *c)
{
  float *fw = NULL;
  size_t n;
  int ierr = zp_count_objects(c), wd = c->obj_wgt_dim;
  if (ierr < 0) return ierr;
  n = (size_t)c->n;
  c->gids = zp_ctx_array(c, ZP_SCR_L_GIDS, (n * c->ngid + 1) * sizeof *c->gids, 1);
  c->lids = c->nlid ? zp_ctx_array(c, ZP_SCR_L_LIDS, (n * c->nlid + 1) * sizeof *c->lids, 1) : NULL;
  c->w = zp_ctx_array(c, ZP_SCR_L_W, (n * c->wdim + 1) * sizeof *c->w, 0);
  c->parts = zp_ctx_array(c, ZP_SCR_L_PARTS, (n + 1) * sizeof *c->parts, 0);
  if (c->gids == NULL || (c->nlid && c->lids == NULL) || c->w == NULL || c->parts == NULL)
    return ZOLTAN_MEMERR;
  /* The callback writes its float weights (at most n * wdim of them) into
   * the upper half of w's buffer, where zp_check_objects widens them: no
   * buffer of their own. */
  fw = (float *)(void *)c->w + n * c->wdim;
  memset(fw, 0, n * (size_t)(wd > 0 ? wd : 0) * sizeof *fw);
  if (c->n > 0) ierr = zp_list_objects(c, fw);
  if (ierr >= 0 && c->n > 0) ierr = zp_current_parts(c);
  if (ierr >= 0) ierr = zp_check_objects(c, fw);
  return ierr;
}

/* ---- coordinates --------------------------------------------------------- */

static int zp_call_geometry(zp_context *c, const char *who)
{
  ZOLTAN_VOID_FN *fn = NULL;
  void *data = NULL;
  int ierr = ZOLTAN_OK, i;
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_GEOM_MULTI_FN_TYPE, &fn, &data);
  if (fn != NULL) {
    ((ZOLTAN_GEOM_MULTI_FN *)fn)(data, c->ngid, c->nlid, c->n, c->gids, c->lids, c->gdim, c->coords,
                                 &ierr);
    if (!zp_cb_ok(ierr))
      zp_error(c->yo, "%s: ZOLTAN_GEOM_MULTI_FN returned error code %d", who, ierr);
    return zp_cb_ok(ierr) ? ZOLTAN_OK : ZOLTAN_FATAL;
  }
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_GEOM_FN_TYPE, &fn, &data);
  if (fn == NULL) {
    zp_error(c->yo, "%s: register ZOLTAN_GEOM_MULTI_FN or ZOLTAN_GEOM_FN.", who);
    return ZOLTAN_FATAL;
  }
  for (i = 0; i < c->n && zp_cb_ok(ierr); i++)
    ((ZOLTAN_GEOM_FN *)fn)(data, c->ngid, c->nlid, zp_gid(c, i), zp_lid(c, i),
                           c->coords + (size_t)i * c->gdim, &ierr);
  if (!zp_cb_ok(ierr)) zp_error(c->yo, "%s: ZOLTAN_GEOM_FN returned error code %d", who, ierr);
  return zp_cb_ok(ierr) ? ZOLTAN_OK : ZOLTAN_FATAL;
}

/* The registration and dimension of the geometry callbacks over every
 * rank, in one reduction: sets geom_unregistered, geom_missing and gdim the
 * same on every rank.  A rank's failing ZOLTAN_NUM_GEOM_FN, or two ranks
 * with objects that disagree on the dimension, is ZOLTAN_FATAL on every
 * rank (the ranks concerned say why).  With geom_for_native and some rank
 * unregistered, ZOLTAN_OK with geom_unregistered set (the native check
 * refuses).  Collective. */
static int zp_geometry_agree(zp_context *c, const char *who)
{
  ZOLTAN_VOID_FN *fn = NULL, *multi = NULL, *one = NULL;
  void *data = NULL, *unused = NULL;
  int ierr = ZOLTAN_OK, dim = 0, local[5], global[5];

  /* Every rank reaches the reduction below, whatever its callbacks say, so
   * that a failure on one rank cannot leave the others waiting. */
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_GEOM_MULTI_FN_TYPE, &multi, &unused);
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_GEOM_FN_TYPE, &one, &unused);
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_NUM_GEOM_FN_TYPE, &fn, &data);
  if (fn != NULL) {
    dim = ((ZOLTAN_NUM_GEOM_FN *)fn)(data, &ierr);
    if (!zp_cb_ok(ierr)) {
      zp_error(c->yo, "%s: ZOLTAN_NUM_GEOM_FN returned error code %d", who, ierr);
      dim = -1;
    }
  }
  local[0] = dim;
  local[1] = fn == NULL;
  local[2] = dim < 0;
  local[3] = fn == NULL || (multi == NULL && one == NULL);
  /* The smallest dimension of a rank with objects, as a maximum. */
  local[4] = c->n > 0 ? -dim : INT_MIN;
  MPI_Allreduce(local, global, 5, MPI_INT, MPI_MAX, c->r->comm);
  c->geom_unregistered = global[3];
  if (c->geom_for_native && global[3]) return ZOLTAN_OK;
  if (global[2]) return ZOLTAN_FATAL;
  c->geom_missing = global[1];
  if (c->geom_missing || global[0] <= 0) return ZOLTAN_OK;
  if (global[4] != INT_MIN && -global[4] != global[0]) {
    if (c->n > 0 && dim != global[0])
      zp_error(c->yo, "%s: ZOLTAN_NUM_GEOM_FN returned %d here and %d elsewhere", who, dim,
               global[0]);
    return ZOLTAN_FATAL;
  }
  c->gdim = global[0];
  return ZOLTAN_OK;
}

/* The coordinates, or none when some rank has no ZOLTAN_NUM_GEOM_FN (then
 * geom_missing is set) or the dimension is 0 (zp_geometry_agree).  Local
 * result. */
static int zp_ask_geometry(zp_context *c, const char *who)
{
  int ierr = zp_geometry_agree(c, who);
  if (ierr < 0 || c->gdim <= 0 || c->geom_missing || (c->geom_for_native && c->geom_unregistered))
    return ierr;
  c->coords = zp_ctx_array(c, ZP_SCR_L_COORDS, ((size_t)c->n * c->gdim + 1) * sizeof *c->coords, 0);
  if (c->coords == NULL) return ZOLTAN_MEMERR;
  return c->n > 0 ? zp_call_geometry(c, who) : ZOLTAN_OK;
}

int zp_gather_geometry_deferred(zp_context *c, const char *who)
{
  int ierr;
  /* Coordinates read this call are served from what was read. */
  if (c->geom_asked || c->geom_checked) return ZOLTAN_OK;
  ierr = zp_geometry_agree(c, who);
  if (ierr < 0) return ierr;
  c->geom_checked = 1;
  c->geom_deferred = c->gdim > 0 && !c->geom_missing && !c->geom_unregistered;
  return ZOLTAN_OK;
}

/* ---- object sizes -------------------------------------------------------- */

/* The sizes, or none when some rank registered no size callback (then
 * sizes_missing is set).  Local result; every rank reaches the reduction. */
static int zp_ask_sizes(zp_context *c, const char *who)
{
  ZOLTAN_VOID_FN *multi = NULL, *single = NULL;
  void *mdata = NULL, *sdata = NULL;
  int ierr = ZOLTAN_OK, local, global, i, *isz = NULL;
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_OBJ_SIZE_MULTI_FN_TYPE, &multi, &mdata);
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_OBJ_SIZE_FN_TYPE, &single, &sdata);
  local = multi == NULL && single == NULL;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, c->r->comm);
  c->sizes_missing = global;
  if (global) return ZOLTAN_OK;
  c->sizes = malloc(((size_t)c->n + 1) * sizeof *c->sizes);
  isz = malloc(((size_t)c->n + 1) * sizeof *isz);
  if (c->sizes == NULL || isz == NULL) {
    free(isz);
    return ZOLTAN_MEMERR;
  }
  if (multi != NULL && c->n > 0) {
    ((ZOLTAN_OBJ_SIZE_MULTI_FN *)multi)(mdata, c->ngid, c->nlid, c->n, c->gids, c->lids, isz,
                                        &ierr);
  } else {
    for (i = 0; i < c->n && zp_cb_ok(ierr); i++)
      isz[i] = ((ZOLTAN_OBJ_SIZE_FN *)single)(sdata, c->ngid, c->nlid, zp_gid(c, i), zp_lid(c, i),
                                              &ierr);
  }
  if (!zp_cb_ok(ierr)) {
    zp_error(c->yo, "%s: %s returned error code %d", who,
             multi ? "ZOLTAN_OBJ_SIZE_MULTI_FN" : "ZOLTAN_OBJ_SIZE_FN", ierr);
    free(isz);
    return ZOLTAN_FATAL;
  }
  for (i = 0; i < c->n; i++) {
    if (isz[i] < 0) {
      char g[ZP_GID_TEXT];
      zp_format_gid(zp_gid(c, i), c->ngid, g, sizeof g);
      zp_error(c->yo, "%s: object %s has size %d; object sizes must be >= 0", who, g, isz[i]);
      free(isz);
      return ZOLTAN_FATAL;
    }
    c->sizes[i] = (double)isz[i];
  }
  free(isz);
  return ZOLTAN_OK;
}

/* ---- graph edges --------------------------------------------------------- */

/* The application's edge callbacks, the MULTI forms preferred. */
typedef struct zp_edge_fns {
  ZOLTAN_VOID_FN *count; /* ZOLTAN_NUM_EDGES_MULTI_FN or ZOLTAN_NUM_EDGES_FN */
  void *count_data;      /* its data pointer */
  int count_multi;       /* 1 when count is the MULTI form */
  ZOLTAN_VOID_FN *list;  /* ZOLTAN_EDGE_LIST_MULTI_FN or ZOLTAN_EDGE_LIST_FN */
  void *list_data;       /* its data pointer */
  int list_multi;        /* 1 when list is the MULTI form */
} zp_edge_fns;

static void zp_find_edge_fns(const zp_context *c, zp_edge_fns *f)
{
  struct Zoltan_Struct *zz = c->r->zz;
  f->count_multi = f->list_multi = 1;
  Zoltan_Get_Fn(zz, ZOLTAN_NUM_EDGES_MULTI_FN_TYPE, &f->count, &f->count_data);
  if (f->count == NULL) {
    f->count_multi = 0;
    Zoltan_Get_Fn(zz, ZOLTAN_NUM_EDGES_FN_TYPE, &f->count, &f->count_data);
  }
  Zoltan_Get_Fn(zz, ZOLTAN_EDGE_LIST_MULTI_FN_TYPE, &f->list, &f->list_data);
  if (f->list == NULL) {
    f->list_multi = 0;
    Zoltan_Get_Fn(zz, ZOLTAN_EDGE_LIST_FN_TYPE, &f->list, &f->list_data);
  }
}

/* Edges per local object into c->nedges; *total receives their sum. */
static int zp_count_edges(zp_context *c, const zp_edge_fns *f, const char *who, size_t *total)
{
  int ierr = ZOLTAN_OK, i;
  const char *name = f->count_multi ? "ZOLTAN_NUM_EDGES_MULTI_FN" : "ZOLTAN_NUM_EDGES_FN";
  *total = 0;
  if (f->count_multi)
    ((ZOLTAN_NUM_EDGES_MULTI_FN *)f->count)(f->count_data, c->ngid, c->nlid, c->n, c->gids, c->lids,
                                            c->nedges, &ierr);
  else
    for (i = 0; i < c->n && zp_cb_ok(ierr); i++)
      c->nedges[i] = ((ZOLTAN_NUM_EDGES_FN *)f->count)(f->count_data, c->ngid, c->nlid,
                                                       zp_gid(c, i), zp_lid(c, i), &ierr);
  if (!zp_cb_ok(ierr)) {
    zp_error(c->yo, "%s: %s returned error code %d", who, name, ierr);
    return ZOLTAN_FATAL;
  }
  for (i = 0; i < c->n; i++) {
    if (c->nedges[i] < 0) {
      zp_error(c->yo, "%s: %s returned %d edges", who, name, c->nedges[i]);
      return ZOLTAN_FATAL;
    }
    *total += (size_t)c->nedges[i];
  }
  return ZOLTAN_OK;
}

/* Neighbours and edge weights of the local objects (total edges), the
 * weights checked: finite and >= 0. */
static int zp_list_edges(zp_context *c, const zp_edge_fns *f, const char *who, size_t total)
{
  int ierr = ZOLTAN_OK, i, ed = c->edge_wgt_dim;
  size_t ew = (size_t)(ed > 0 ? ed : 1), off = 0, k;
  const char *name = f->list_multi ? "ZOLTAN_EDGE_LIST_MULTI_FN" : "ZOLTAN_EDGE_LIST_FN";
  int *procs = malloc((total + 1) * sizeof *procs);
  float *fe = calloc(total * ew + 1, sizeof *fe);
  c->nbr = malloc((total * c->ngid + 1) * sizeof *c->nbr);
  c->ewgts = malloc((total * ew + 1) * sizeof *c->ewgts);
  if (c->nbr == NULL || procs == NULL || fe == NULL || c->ewgts == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  if (c->n > 0 && total > 0 && f->list_multi)
    ((ZOLTAN_EDGE_LIST_MULTI_FN *)f->list)(f->list_data, c->ngid, c->nlid, c->n, c->gids, c->lids,
                                           c->nedges, c->nbr, procs, ed, fe, &ierr);
  for (i = 0; total > 0 && !f->list_multi && i < c->n && zp_cb_ok(ierr); i++) {
    ((ZOLTAN_EDGE_LIST_FN *)f->list)(f->list_data, c->ngid, c->nlid, zp_gid(c, i), zp_lid(c, i),
                                     c->nbr + off * c->ngid, procs + off, ed, fe + off * (size_t)ed,
                                     &ierr);
    off += (size_t)c->nedges[i];
  }
  if (!zp_cb_ok(ierr)) {
    zp_error(c->yo, "%s: %s returned error code %d", who, name, ierr);
    ierr = ZOLTAN_FATAL;
    goto End;
  }
  ierr = ZOLTAN_OK;
  for (k = 0; k < total * (size_t)ed; k++) {
    c->ewgts[k] = fe[k];
    if (!isfinite(c->ewgts[k]) || c->ewgts[k] < 0.0) {
      zp_error(c->yo, "an edge weight is %g; edge weights must be finite and >= 0", c->ewgts[k]);
      ierr = ZOLTAN_FATAL;
      break;
    }
  }
End:
  /* The ranks of the neighbours: measured edge weights are exchanged
   * with them (zp_loaddb_edges.c). */
  if (ierr >= 0)
    c->nbr_procs = procs;
  else
    free(procs);
  free(fe);
  return ierr;
}

/* The edges, or none when some rank lacks an edge callback (then
 * graph_missing is set).  Local result. */
static int zp_ask_graph(zp_context *c, const char *who)
{
  zp_edge_fns f;
  size_t total = 0;
  int have, all, ierr;
  zp_find_edge_fns(c, &f);
  have = f.count != NULL && f.list != NULL;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, c->r->comm);
  c->graph_missing = !all;
  if (c->graph_missing) return ZOLTAN_OK;
  c->nedges = calloc((size_t)c->n + 1, sizeof *c->nedges);
  if (c->nedges == NULL) return ZOLTAN_MEMERR;
  ierr = c->n > 0 ? zp_count_edges(c, &f, who, &total) : ZOLTAN_OK;
  if (ierr >= 0) ierr = zp_list_edges(c, &f, who, total);
  if (ierr >= 0) c->has_graph = 1;
  return ierr;
}

/* Ask for one input (ask is zp_ask_geometry or zp_ask_graph) unless it was
 * asked for earlier in this call, and agree on the outcome.  When required,
 * callbacks that some rank lacks (*missing) are an error, which names what
 * the method needs. */
static int zp_ask_once(zp_context *c, int (*ask)(zp_context *, const char *), int *asked,
                       const int *missing, int required, const char *who, const char *what)
{
  int ierr = ZOLTAN_OK;
  if (!*asked) {
    ierr = zp_agree(c, ask(c, who));
    if (ierr < 0) return ierr;
    *asked = 1;
  }
  if (required && *missing) {
    zp_error(c->yo, "%s needs %s", who, what);
    return ZOLTAN_FATAL;
  }
  return ierr;
}

int zp_gather_inputs(zp_context *c, unsigned flags, const char *who)
{
  int ierr = ZOLTAN_OK;
  if (flags & (ZP_NEEDS_GEOM | ZP_WANTS_GEOM))
    ierr = zp_ask_once(c, zp_ask_geometry, &c->geom_asked, &c->geom_missing,
                       (flags & ZP_NEEDS_GEOM) != 0, who,
                       "ZOLTAN_NUM_GEOM_FN and ZOLTAN_GEOM_MULTI_FN");
  if (ierr >= 0 && (flags & (ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH))) {
    int from_hg = (flags & ZP_GRAPH_FROM_HYPERGRAPH) != 0;
    ierr = zp_ask_once(
        c, zp_ask_graph, &c->graph_asked, &c->graph_missing,
        (flags & ZP_NEEDS_GRAPH) != 0 && !from_hg, who,
        "the graph callbacks (ZOLTAN_NUM_EDGES_MULTI_FN and ZOLTAN_EDGE_LIST_MULTI_FN)");
    /* Without graph callbacks, or with callbacks that give no edge at all
     * (zdrive registers them for hypergraph inputs too), a method that can
     * read the hypergraph as a graph gets it from the hypergraph callbacks. */
    if (ierr >= 0 && from_hg && !c->graph_missing) {
      long mine = 0, all = 0;
      for (int i = 0; c->nedges != NULL && i < c->n; i++) mine += c->nedges[i];
      MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, c->r->comm);
      if (all == 0) ierr = zp_hg_read_pairs(c, who);
    }
    if (ierr >= 0 && from_hg && c->graph_missing) ierr = zp_hg_read_pairs(c, who);
    if (ierr >= 0 && from_hg && c->graph_missing && !c->hg_as_graph && (flags & ZP_NEEDS_GRAPH)) {
      zp_error(c->yo,
               "%s needs the graph callbacks (ZOLTAN_NUM_EDGES_MULTI_FN and "
               "ZOLTAN_EDGE_LIST_MULTI_FN) or the hypergraph callbacks (ZOLTAN_HG_SIZE_CS_FN and "
               "ZOLTAN_HG_CS_FN) on every rank",
               who);
      ierr = ZOLTAN_FATAL;
    }
  }
  if (ierr >= 0 && (flags & ZP_WANTS_SIZES)) {
    static const int never_missing = 0;
    ierr = zp_ask_once(c, zp_ask_sizes, &c->sizes_asked, &never_missing, 0, who, "");
  }
  /* EDGE_WEIGHT_SOURCE: the measured weights replace the callback ones once
   * the graph is read, whoever asked for it first (every rank knows
   * has_graph the same way, so every rank takes part). */
  if (ierr >= 0 && c->has_graph && c->edw == NULL && zp_edge_mode(c->r) != LOADDB_CALLBACK)
    ierr = zp_loaddb_edges_apply(c);
  return ierr;
}

/* ---- hypergraph ---------------------------------------------------------- */

/* Call ZOLTAN_HG_SIZE_CS_FN and ZOLTAN_HG_CS_FN once.  Local result. */
static int zp_call_hypergraph(zp_context *c, ZOLTAN_VOID_FN *size_fn, void *size_data,
                              ZOLTAN_VOID_FN *cs_fn, void *cs_data, const char *who)
{
  int ierr = ZOLTAN_OK, nlists = 0, npins = 0, format = 0, *starts = NULL;
  ZOLTAN_ID_TYPE *lists = NULL, *pins = NULL;
  ((ZOLTAN_HG_SIZE_CS_FN *)size_fn)(size_data, &nlists, &npins, &format, &ierr);
  if (!zp_cb_ok(ierr) || nlists < 0 || npins < 0) {
    zp_error(c->yo, "%s: ZOLTAN_HG_SIZE_CS_FN returned error code %d (%d lists, %d pins)", who,
             ierr, nlists, npins);
    return ZOLTAN_FATAL;
  }
  lists = malloc(((size_t)nlists * c->ngid + 1) * sizeof *lists);
  starts = malloc(((size_t)nlists + 1) * sizeof *starts);
  pins = malloc(((size_t)npins * c->ngid + 1) * sizeof *pins);
  if (lists == NULL || starts == NULL || pins == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  ierr = ZOLTAN_OK;
  ((ZOLTAN_HG_CS_FN *)cs_fn)(cs_data, c->ngid, nlists, npins, format, lists, starts, pins, &ierr);
  if (!zp_cb_ok(ierr)) zp_error(c->yo, "%s: ZOLTAN_HG_CS_FN returned error code %d", who, ierr);
  ierr = zp_cb_ok(ierr) ? ZOLTAN_OK : ZOLTAN_FATAL;
End:
  free(lists);
  free(starts);
  free(pins);
  return ierr;
}

int zp_check_hypergraph(zp_context *c, int *registered, const char *who)
{
  ZOLTAN_VOID_FN *size_fn = NULL, *cs_fn = NULL;
  void *size_data = NULL, *cs_data = NULL;
  int here, ierr;
  if (!c->hgraph_checked) {
    Zoltan_Get_Fn(c->r->zz, ZOLTAN_HG_SIZE_CS_FN_TYPE, &size_fn, &size_data);
    Zoltan_Get_Fn(c->r->zz, ZOLTAN_HG_CS_FN_TYPE, &cs_fn, &cs_data);
    here = size_fn != NULL && cs_fn != NULL;
    ierr = zp_agree(c, here ? zp_call_hypergraph(c, size_fn, size_data, cs_fn, cs_data, who)
                            : ZOLTAN_OK);
    if (ierr < 0) return ierr;
    MPI_Allreduce(&here, &c->hgraph_registered, 1, MPI_INT, MPI_MAX, c->r->comm);
    c->hgraph_checked = 1;
  }
  *registered = c->hgraph_registered;
  return ZOLTAN_OK;
}
