/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guard of Zoltan's own methods (ZOLTAN_PLUGINS_GUARD, docs/plugin_layer.md).
 *
 * Zoltan's methods do not agree on callback errors: when a callback fails on
 * one rank, that rank leaves the method while the others wait for it in a
 * collective, and the job hangs until its time limit.  Before a native
 * method runs, the guard calls the callbacks that the method may call, in
 * the forms Zoltan would call them, agrees on their return codes across the
 * ranks, and on a failure returns the worst code on every rank with a
 * message naming the callback and the rank.  On success it puts its own
 * callbacks in front of the application's for the length of the call; they
 * answer from what was read, so Zoltan sees the same data and the
 * application's callbacks run once.  A call whose arguments are not the
 * ones read (another ID length, another list of objects) goes to the
 * application's callback, so the answer never depends on the guard.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "zp_guard_internal.h"

static const char *const zp_guard_names[G_KINDS] = {
    "ZOLTAN_NUM_OBJ_FN",          "ZOLTAN_OBJ_LIST_FN (or FIRST_OBJ/NEXT_OBJ)",
    "ZOLTAN_PART_MULTI_FN",       "ZOLTAN_NUM_GEOM_FN",
    "ZOLTAN_GEOM_MULTI_FN",       "ZOLTAN_NUM_EDGES_MULTI_FN",
    "ZOLTAN_EDGE_LIST_MULTI_FN",  "ZOLTAN_OBJ_SIZE_MULTI_FN",
    "ZOLTAN_HG_SIZE_CS_FN",       "ZOLTAN_HG_CS_FN",
    "ZOLTAN_HG_SIZE_EDGE_WTS_FN", "ZOLTAN_HG_EDGE_WTS_FN"};

/* What a native method may ask of the application (zp_guard_wants). */
#define W_GEOM  0x1u /* coordinates, when registered */
#define W_GRAPH 0x2u /* graph edges, when registered */
#define W_HG    0x4u /* hypergraph pins and net weights, when registered */
#define W_SIZES 0x8u /* object sizes (migration costs), when registered */
#define W_NEEDS_GEOM                                                                               \
  0x10u /* coordinates on every rank: Zoltan 13.2's geometric
                              methods crash on a rank that cannot give them */

/* A callback's code as the guard returns it: errors as they are, anything
 * else that is not OK or WARN as ZOLTAN_FATAL. */
static int g_code(int ierr)
{
  return zp_guard_ok(ierr) ? ZOLTAN_OK : ierr < 0 ? ierr : ZOLTAN_FATAL;
}

/* calloc of n + 1 elements, so that empty arrays are not NULL. */
/* A cleared array of n + 1 elements for slot (ZP_SCR_G_*): the record's
 * kept buffer when this guard holds the record's pool, else calloc'd. */
static void *g_alloc(zp_guard *g, int slot, size_t n, size_t size)
{
  void *p;
  if (g->pool == NULL) return calloc(n + 1, size);
  p = zp_record_scratch(g->pool, slot, (n + 1) * size);
  if (p != NULL) memset(p, 0, (n + 1) * size);
  return p;
}

/* ---- which callbacks a method reads -------------------------------------- */

int zp_guard_on(const zp_record *r)
{
  int v = 1, keyword = 0;
  const char *env;
  if (r == NULL || zp_param_int(r->params, "ZOLTAN_PLUGINS_GUARD", &v, &keyword) != ZOLTAN_OK)
    return 0;
  if (!keyword) return v;
  env = getenv(ZP_GUARD_ENV);
  return env == NULL || env[0] == '\0' ? ZP_GUARD_DEFAULT : strcmp(env, "0") != 0;
}

/* The inputs method reads besides objects and parts; 0 with *known = 0 for
 * a method the guard does not know (it then reads nothing). */
static unsigned zp_guard_wants(const char *method, int *known)
{
  static const struct {
    const char *name;
    unsigned wants;
  } table[] = {
      /* RCB and RIB read object sizes (migration sizes of their dots)
       * and HSFC with FINAL_OUTPUT, whenever they are registered. */
      {"RCB", W_GEOM | W_NEEDS_GEOM | W_SIZES},
      {"RIB", W_GEOM | W_NEEDS_GEOM | W_SIZES},
      {"HSFC", W_GEOM | W_NEEDS_GEOM | W_SIZES},
      {"BLOCK", 0},
      {"RANDOM", 0},
      /* Zoltan's graph methods read coordinates for some packages and the
       * object sizes as migration costs when repartitioning. */
      {"GRAPH", W_GRAPH | W_GEOM | W_SIZES},
      /* PHG reads coordinates when registered, the hypergraph or else the
       * graph, and object sizes as migration costs. */
      {"PHG", W_HG | W_GRAPH | W_GEOM | W_SIZES},
      {"HYPERGRAPH", W_HG | W_GRAPH | W_GEOM | W_SIZES},
  };
  size_t i;
  for (i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcasecmp(method, table[i].name) == 0) {
      *known = 1;
      return table[i].wants;
    }
  *known = 0;
  return 0;
}

/* ---- reading ------------------------------------------------------------- */

static void g_find(struct Zoltan_Struct *zz, g_fn *f, ZOLTAN_FN_TYPE multi, ZOLTAN_FN_TYPE single)
{
  Zoltan_Get_Fn(zz, multi, &f->multi, &f->multi_data);
  if ((int)single >= 0) Zoltan_Get_Fn(zz, single, &f->single, &f->single_data);
}

static int g_registered(const g_fn *f) { return f->multi != NULL || f->single != NULL; }

/* Objects: count, list, parts.  Returns a Zoltan code; *kind names the
 * callback that failed. */
static int g_read_objects(zp_guard *g, int *kind)
{
  g_fn *cnt = &g->app[G_NUM_OBJ], *lst = &g->app[G_OBJ_LIST], *prt = &g->app[G_PART];
  size_t n, i;
  int ierr = ZOLTAN_OK, found;
  *kind = G_NUM_OBJ;
  if (cnt->multi == NULL) return ZOLTAN_FATAL;
  g->n = ((ZOLTAN_NUM_OBJ_FN *)cnt->multi)(cnt->multi_data, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  if (g->n < 0) return ZOLTAN_FATAL;
  n = (size_t)g->n;
  g->gids = g_alloc(g, ZP_SCR_G_GIDS, n * (size_t)g->ngid, sizeof *g->gids);
  g->lids = g_alloc(g, ZP_SCR_G_LIDS, n * (size_t)g->nlid, sizeof *g->lids);
  g->w = g_alloc(g, ZP_SCR_G_W, n * (size_t)g->wdim, sizeof *g->w);
  g->parts = g_alloc(g, ZP_SCR_G_PARTS, n, sizeof *g->parts);
  if (!g->gids || !g->lids || !g->w || !g->parts) return ZOLTAN_MEMERR;
  g->have |= 1u << G_NUM_OBJ;
  *kind = G_OBJ_LIST;
  if (lst->multi != NULL && n > 0) {
    ((ZOLTAN_OBJ_LIST_FN *)lst->multi)(lst->multi_data, g->ngid, g->nlid, g->gids, g->lids, g->wdim,
                                       g->w, &ierr);
  } else if (lst->single != NULL && lst->next != NULL && n > 0) {
    found = ((ZOLTAN_FIRST_OBJ_FN *)lst->single)(lst->single_data, g->ngid, g->nlid, g->gids,
                                                 g->lids, g->wdim, g->w, &ierr);
    for (i = 1; found && i < n && zp_guard_ok(ierr); i++)
      found = ((ZOLTAN_NEXT_OBJ_FN *)lst->next)(
          lst->next_data, g->ngid, g->nlid, g->gids + (i - 1) * g->ngid,
          g->lids + (i - 1) * g->nlid, g->gids + i * g->ngid, g->lids + i * g->nlid, g->wdim,
          g->w + i * g->wdim, &ierr);
    if (zp_guard_ok(ierr) && (!found || i < n)) return ZOLTAN_FATAL;
  } else if (n > 0) {
    return ZOLTAN_FATAL;
  }
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  g->have |= 1u << G_OBJ_LIST;
  *kind = G_PART;
  if (prt->multi != NULL && n > 0)
    ((ZOLTAN_PART_MULTI_FN *)prt->multi)(prt->multi_data, g->ngid, g->nlid, g->n, g->gids, g->lids,
                                         g->parts, &ierr);
  for (i = 0; prt->multi == NULL && prt->single != NULL && i < n && zp_guard_ok(ierr); i++)
    g->parts[i] = ((ZOLTAN_PART_FN *)prt->single)(
        prt->single_data, g->ngid, g->nlid, g->gids + i * g->ngid, g->lids + i * g->nlid, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  if (g_registered(prt)) g->have |= 1u << G_PART;
  return ZOLTAN_OK;
}

/* The coordinates.  A callback missing here is no error unless the method
 * needs coordinates (W_NEEDS_GEOM); then *kind is the missing callback's
 * kind plus G_KINDS, which g_agree reports as not registered. */
static int g_read_geometry(zp_guard *g, unsigned wants, int *kind)
{
  g_fn *nf = &g->app[G_NUM_GEOM], *gf = &g->app[G_GEOM];
  size_t n = (size_t)g->n, i;
  int ierr = ZOLTAN_OK;
  if (nf->multi == NULL || !g_registered(gf)) {
    if (!(wants & W_NEEDS_GEOM)) return ZOLTAN_OK;
    *kind = (nf->multi == NULL ? G_NUM_GEOM : G_GEOM) + G_KINDS;
    return ZOLTAN_FATAL;
  }
  *kind = G_NUM_GEOM;
  g->gdim = ((ZOLTAN_NUM_GEOM_FN *)nf->multi)(nf->multi_data, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  g->have |= 1u << G_NUM_GEOM;
  /* Zoltan refuses a dimension it cannot use with its own message; the
   * guard then leaves the coordinates to the application's callback. */
  if (g->gdim <= 0 || g->gdim > 3) return ZOLTAN_OK;
  *kind = G_GEOM;
  g->coords = g_alloc(g, ZP_SCR_G_COORDS, n * (size_t)g->gdim, sizeof *g->coords);
  if (g->coords == NULL) return ZOLTAN_MEMERR;
  if (zp_layer_read_coords(g->layer, g->ngid, g->nlid, g->n, g->gids, g->gdim, g->coords)) {
    /* The layer read them this call, for the same objects, and agreed. */
    g->have |= 1u << G_GEOM;
    return ZOLTAN_OK;
  }
  if (gf->multi != NULL && n > 0)
    ((ZOLTAN_GEOM_MULTI_FN *)gf->multi)(gf->multi_data, g->ngid, g->nlid, g->n, g->gids, g->lids,
                                        g->gdim, g->coords, &ierr);
  for (i = 0; gf->multi == NULL && i < n && zp_guard_ok(ierr); i++)
    ((ZOLTAN_GEOM_FN *)gf->single)(gf->single_data, g->ngid, g->nlid, g->gids + i * g->ngid,
                                   g->lids + i * g->nlid, g->coords + i * g->gdim, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  g->have |= 1u << G_GEOM;
  return ZOLTAN_OK;
}

static int g_read_graph(zp_guard *g, int *kind)
{
  g_fn *cf = &g->app[G_NUM_EDGES], *lf = &g->app[G_EDGE_LIST];
  size_t n = (size_t)g->n, i, off = 0;
  int ierr = ZOLTAN_OK;
  if (!g_registered(cf) || !g_registered(lf)) return ZOLTAN_OK;
  *kind = G_NUM_EDGES;
  g->nedges = g_alloc(g, ZP_SCR_G_NEDGES, n, sizeof *g->nedges);
  if (g->nedges == NULL) return ZOLTAN_MEMERR;
  if (cf->multi != NULL && n > 0)
    ((ZOLTAN_NUM_EDGES_MULTI_FN *)cf->multi)(cf->multi_data, g->ngid, g->nlid, g->n, g->gids,
                                             g->lids, g->nedges, &ierr);
  for (i = 0; cf->multi == NULL && i < n && zp_guard_ok(ierr); i++)
    g->nedges[i] = ((ZOLTAN_NUM_EDGES_FN *)cf->single)(
        cf->single_data, g->ngid, g->nlid, g->gids + i * g->ngid, g->lids + i * g->nlid, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  for (i = 0; i < n; i++) {
    if (g->nedges[i] < 0) return ZOLTAN_FATAL;
    g->tedges += (size_t)g->nedges[i];
  }
  g->have |= 1u << G_NUM_EDGES;
  *kind = G_EDGE_LIST;
  g->nbr = g_alloc(g, ZP_SCR_G_NBR, g->tedges * (size_t)g->ngid, sizeof *g->nbr);
  g->nbr_procs = g_alloc(g, ZP_SCR_G_NBR_PROCS, g->tedges, sizeof *g->nbr_procs);
  g->ew = g_alloc(g, ZP_SCR_G_EW, g->tedges * (size_t)g->ewdim, sizeof *g->ew);
  if (!g->nbr || !g->nbr_procs || !g->ew) return ZOLTAN_MEMERR;
  if (lf->multi != NULL && n > 0)
    ((ZOLTAN_EDGE_LIST_MULTI_FN *)lf->multi)(lf->multi_data, g->ngid, g->nlid, g->n, g->gids,
                                             g->lids, g->nedges, g->nbr, g->nbr_procs, g->ewdim,
                                             g->ew, &ierr);
  for (i = 0; lf->multi == NULL && i < n && zp_guard_ok(ierr); i++) {
    ((ZOLTAN_EDGE_LIST_FN *)lf->single)(
        lf->single_data, g->ngid, g->nlid, g->gids + i * g->ngid, g->lids + i * g->nlid,
        g->nbr + off * g->ngid, g->nbr_procs + off, g->ewdim, g->ew + off * g->ewdim, &ierr);
    off += (size_t)g->nedges[i];
  }
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  g->have |= 1u << G_EDGE_LIST;
  return ZOLTAN_OK;
}

static int g_read_sizes(zp_guard *g, int *kind)
{
  g_fn *f = &g->app[G_SIZE];
  size_t n = (size_t)g->n, i;
  int ierr = ZOLTAN_OK;
  if (!g_registered(f)) return ZOLTAN_OK;
  *kind = G_SIZE;
  g->sizes = g_alloc(g, ZP_SCR_G_SIZES, n, sizeof *g->sizes);
  if (g->sizes == NULL) return ZOLTAN_MEMERR;
  if (f->multi != NULL && n > 0)
    ((ZOLTAN_OBJ_SIZE_MULTI_FN *)f->multi)(f->multi_data, g->ngid, g->nlid, g->n, g->gids, g->lids,
                                           g->sizes, &ierr);
  for (i = 0; f->multi == NULL && i < n && zp_guard_ok(ierr); i++)
    g->sizes[i] = ((ZOLTAN_OBJ_SIZE_FN *)f->single)(
        f->single_data, g->ngid, g->nlid, g->gids + i * g->ngid, g->lids + i * g->nlid, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  g->have |= 1u << G_SIZE;
  return ZOLTAN_OK;
}

static int g_read_hypergraph(zp_guard *g, int *kind)
{
  g_fn *sf = &g->app[G_HG_SIZE_CS], *cf = &g->app[G_HG_CS];
  g_fn *sw = &g->app[G_HG_SIZE_EW], *wf = &g->app[G_HG_EW];
  int ierr = ZOLTAN_OK;
  if (sf->multi == NULL || cf->multi == NULL) return ZOLTAN_OK;
  *kind = G_HG_SIZE_CS;
  ((ZOLTAN_HG_SIZE_CS_FN *)sf->multi)(sf->multi_data, &g->hg_nl, &g->hg_np, &g->hg_format, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  if (g->hg_nl < 0 || g->hg_np < 0) return ZOLTAN_FATAL;
  g->have |= 1u << G_HG_SIZE_CS;
  *kind = G_HG_CS;
  g->hg_lists = g_alloc(g, ZP_SCR_G_HG_LISTS, (size_t)g->hg_nl * g->ngid, sizeof *g->hg_lists);
  g->hg_starts = g_alloc(g, ZP_SCR_G_HG_STARTS, (size_t)g->hg_nl, sizeof *g->hg_starts);
  g->hg_pins = g_alloc(g, ZP_SCR_G_HG_PINS, (size_t)g->hg_np * g->ngid, sizeof *g->hg_pins);
  if (!g->hg_lists || !g->hg_starts || !g->hg_pins) return ZOLTAN_MEMERR;
  ((ZOLTAN_HG_CS_FN *)cf->multi)(cf->multi_data, g->ngid, g->hg_nl, g->hg_np, g->hg_format,
                                 g->hg_lists, g->hg_starts, g->hg_pins, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  g->have |= 1u << G_HG_CS;
  /* Zoltan reads net weights only with EDGE_WEIGHT_DIM > 0. */
  if (g->ewdim <= 0 || sw->multi == NULL || wf->multi == NULL) return ZOLTAN_OK;
  *kind = G_HG_SIZE_EW;
  ((ZOLTAN_HG_SIZE_EDGE_WTS_FN *)sw->multi)(sw->multi_data, &g->hg_new, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  if (g->hg_new < 0) return ZOLTAN_FATAL;
  g->have |= 1u << G_HG_SIZE_EW;
  *kind = G_HG_EW;
  g->hg_egids = g_alloc(g, ZP_SCR_G_HG_EGIDS, (size_t)g->hg_new * g->ngid, sizeof *g->hg_egids);
  g->hg_elids = g_alloc(g, ZP_SCR_G_HG_ELIDS, (size_t)g->hg_new * g->nlid, sizeof *g->hg_elids);
  g->hg_ew = g_alloc(g, ZP_SCR_G_HG_EW, (size_t)g->hg_new * g->ewdim, sizeof *g->hg_ew);
  if (!g->hg_egids || !g->hg_elids || !g->hg_ew) return ZOLTAN_MEMERR;
  if (g->hg_new > 0)
    ((ZOLTAN_HG_EDGE_WTS_FN *)wf->multi)(wf->multi_data, g->ngid, g->nlid, g->hg_new, g->ewdim,
                                         g->hg_egids, g->hg_elids, g->hg_ew, &ierr);
  if (!zp_guard_ok(ierr)) return g_code(ierr);
  g->have |= 1u << G_HG_EW;
  return ZOLTAN_OK;
}

/* ---- the guard's steps --------------------------------------------------- */

static void g_free(zp_guard *g)
{
  void *arrays[] = {g->gids,    g->lids,      g->w,        g->parts, g->coords,   g->nedges,
                    g->nbr,     g->nbr_procs, g->ew,       g->sizes, g->hg_lists, g->hg_starts,
                    g->hg_pins, g->hg_egids,  g->hg_elids, g->hg_ew};
  size_t i;
  if (g->pool != NULL) {
    g->pool->guard_pool_busy = 0; /* the arrays stay with the record */
  } else {
    for (i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
  }
  free(g);
}

/* The application's callbacks, as Zoltan would find them. */
static void g_find_all(zp_guard *g)
{
  struct Zoltan_Struct *zz = g->zz;
  g_fn *a = g->app;
  const ZOLTAN_FN_TYPE none = (ZOLTAN_FN_TYPE)-1;
  g_find(zz, &a[G_NUM_OBJ], ZOLTAN_NUM_OBJ_FN_TYPE, none);
  g_find(zz, &a[G_OBJ_LIST], ZOLTAN_OBJ_LIST_FN_TYPE, ZOLTAN_FIRST_OBJ_FN_TYPE);
  Zoltan_Get_Fn(zz, ZOLTAN_NEXT_OBJ_FN_TYPE, &a[G_OBJ_LIST].next, &a[G_OBJ_LIST].next_data);
  g_find(zz, &a[G_PART], ZOLTAN_PART_MULTI_FN_TYPE, ZOLTAN_PART_FN_TYPE);
  g_find(zz, &a[G_NUM_GEOM], ZOLTAN_NUM_GEOM_FN_TYPE, none);
  g_find(zz, &a[G_GEOM], ZOLTAN_GEOM_MULTI_FN_TYPE, ZOLTAN_GEOM_FN_TYPE);
  g_find(zz, &a[G_NUM_EDGES], ZOLTAN_NUM_EDGES_MULTI_FN_TYPE, ZOLTAN_NUM_EDGES_FN_TYPE);
  g_find(zz, &a[G_EDGE_LIST], ZOLTAN_EDGE_LIST_MULTI_FN_TYPE, ZOLTAN_EDGE_LIST_FN_TYPE);
  g_find(zz, &a[G_SIZE], ZOLTAN_OBJ_SIZE_MULTI_FN_TYPE, ZOLTAN_OBJ_SIZE_FN_TYPE);
  g_find(zz, &a[G_HG_SIZE_CS], ZOLTAN_HG_SIZE_CS_FN_TYPE, none);
  g_find(zz, &a[G_HG_CS], ZOLTAN_HG_CS_FN_TYPE, none);
  g_find(zz, &a[G_HG_SIZE_EW], ZOLTAN_HG_SIZE_EDGE_WTS_FN_TYPE, none);
  g_find(zz, &a[G_HG_EW], ZOLTAN_HG_EDGE_WTS_FN_TYPE, none);
}

/* Everything method reads, in Zoltan's order; a local result. */
static int g_read(zp_guard *g, unsigned wants, int *kind)
{
  int ierr = g_read_objects(g, kind);
  if (ierr >= 0 && (wants & W_GEOM)) ierr = g_read_geometry(g, wants, kind);
  /* PHG reads the hypergraph when it is registered, else the graph. */
  if (ierr >= 0 && (wants & W_HG)) ierr = g_read_hypergraph(g, kind);
  if (ierr >= 0 && (wants & W_GRAPH) && !zp_guard_has(g, G_HG_CS)) ierr = g_read_graph(g, kind);
  if (ierr >= 0 && (wants & W_SIZES)) ierr = g_read_sizes(g, kind);
  return ierr;
}

/* Agree on the outcome of the reads: the worst code everywhere, and a
 * message on rank 0 naming the callback and the rank that failed (the
 * failing rank names it too).  Collective. */
static int g_agree(const zp_context *c, const char *method, int local, int kind)
{
  struct {
    int code, rank;
  } in, out;
  int failed_kind = kind;
  in.code = local < 0 ? local : 0;
  in.rank = c->r->rank;
  MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, c->r->comm);
  if (out.code >= 0) return local;
  MPI_Bcast(&failed_kind, 1, MPI_INT, out.rank, c->r->comm);
  if (failed_kind >= G_KINDS && (c->r->rank == out.rank || c->r->rank == 0))
    zp_error(c->yo,
             "%s is not registered on rank %d, and %s needs coordinates on every rank; no rank "
             "ran %s (ZOLTAN_PLUGINS_GUARD)",
             zp_guard_names[failed_kind - G_KINDS], out.rank, method, method);
  else if (c->r->rank == out.rank || c->r->rank == 0)
    zp_error(c->yo,
             "%s on rank %d returned error code %d before %s ran; no rank ran %s "
             "(ZOLTAN_PLUGINS_GUARD)",
             zp_guard_names[failed_kind], out.rank, out.code, method, method);
  return out.code;
}

int zp_guard_begin(zp_context *c, const char *method)
{
  zp_record *r = c->r;
  zp_guard *g;
  unsigned wants;
  int known, kind = G_NUM_OBJ, ierr;
  wants = zp_guard_wants(method, &known);
  if (!known) return ZOLTAN_OK;
  g = calloc(1, sizeof *g);
  if (g != NULL) {
    g->zz = r->zz;
    g->layer = c;
    if (!r->guard_pool_busy) {
      g->pool = r;
      r->guard_pool_busy = 1;
    }
    g->ngid = zp_record_native_int(r, "NUM_GID_ENTRIES", 1);
    g->nlid = zp_record_native_int(r, "NUM_LID_ENTRIES", 1);
    g->wdim = zp_record_native_int(r, "OBJ_WEIGHT_DIM", 0);
    g->ewdim = zp_record_native_int(r, "EDGE_WEIGHT_DIM", 0);
    if (g->ngid < 1 || g->nlid < 0 || g->wdim < 0 || g->ewdim < 0) {
      /* Zoltan refuses these values itself; the guard stays out of it. */
      g_free(g);
      return zp_agree(c, ZOLTAN_OK);
    }
    g_find_all(g);
    ierr = g_read(g, wants, &kind);
  } else {
    ierr = ZOLTAN_MEMERR;
  }
  ierr = g_agree(c, method, ierr, kind);
  if (ierr < 0) c->cb_failed = ierr;
  if (ierr < 0) {
    if (g != NULL) g_free(g);
    return ierr;
  }
  zp_guard_install(g);
  c->guard = g;
  return ZOLTAN_OK;
}

void zp_guard_end(zp_context *c)
{
  zp_guard *g = c->guard;
  if (g == NULL) return;
  zp_guard_restore(g);
  g_free(g);
  c->guard = NULL;
}
