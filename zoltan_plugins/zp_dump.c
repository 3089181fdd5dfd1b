/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LB_DUMP_FILE: at every balance, rank 0 appends what the method is about
 * to see (objects in global-ID order with the weights handed to it, current
 * parts, owners, coordinates and edges where the application registered
 * them, part sizes, tolerances and the parameters that shape the answer) to
 * a file that zp_lbsim replays (loaddb/loaddb_dump.h gives the format).
 *
 * Every rank sends its objects in two gathers, the IDs as Zoltan's ID type
 * and everything else as doubles (ranks, parts and counts are exact in a
 * double), so that no record layout depends on the platform.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loaddb_dump.h"
#include "zp_partition_internal.h"

/* Native parameters the replay sets itself from the dump's header. */
static const char *const dump_own[] = {"LB_METHOD",
                                       "NUM_GID_ENTRIES",
                                       "NUM_LID_ENTRIES",
                                       "OBJ_WEIGHT_DIM",
                                       "EDGE_WEIGHT_DIM",
                                       "NUM_GLOBAL_PARTS",
                                       "NUM_LOCAL_PARTS",
                                       "RETURN_LISTS",
                                       "AUTO_MIGRATE",
                                       "DEBUG_LEVEL",
                                       "DEBUG_PROCESSOR",
                                       "IMBALANCE_TOL",
                                       NULL};

/* Balances dumped by this process, for the dump's sequence number. */
static long dump_seq;

int zp_dump_active(const zp_record *r)
{
  const char *f = NULL;
  return r != NULL && zp_param_string(r->params, "LB_DUMP_FILE", &f) == ZOLTAN_OK && f != NULL &&
         f[0] != '\0';
}

/* The doubles of one object: rank, part, weights, coordinates, edge count. */
static size_t dump_obj_doubles(const zp_context *c, int gdim)
{
  return 3 + (size_t)c->wdim + (size_t)gdim;
}

/* This rank's IDs and doubles, packed.  Local. */
static int dump_pack(const zp_context *c, int gdim, int edim, ZOLTAN_ID_TYPE **ids, double **dbl,
                     int counts[2])
{
  size_t n = (size_t)c->n, ne = 0, i, k, q, e = 0, nd = dump_obj_doubles(c, gdim);
  const int *nedges = c->has_graph ? c->nedges : NULL;
  ZOLTAN_ID_TYPE *ip;
  double *dp;
  for (i = 0; nedges != NULL && i < n; i++) ne += (size_t)nedges[i];
  if ((n + ne) * (size_t)c->ngid > 0x7fffffff || n * nd + ne * (size_t)edim > 0x7fffffff) {
    zp_error(c->yo, "LB_DUMP_FILE: this rank's %zu objects and %zu edges are too many to gather", n,
             ne);
    return ZOLTAN_FATAL;
  }
  counts[0] = (int)((n + ne) * (size_t)c->ngid);
  counts[1] = (int)(n * nd + ne * (size_t)edim);
  *ids = ip = malloc(((size_t)counts[0] + 1) * sizeof *ip);
  *dbl = dp = malloc(((size_t)counts[1] + 1) * sizeof *dp);
  if (ip == NULL || dp == NULL) return ZOLTAN_MEMERR;
  memcpy(ip, c->gids, n * (size_t)c->ngid * sizeof *ip);
  if (ne > 0) memcpy(ip + n * (size_t)c->ngid, c->nbr, ne * (size_t)c->ngid * sizeof *ip);
  for (i = 0; i < n; i++) {
    *dp++ = (double)c->r->rank;
    *dp++ = (double)c->parts[i];
    for (k = 0; k < (size_t)c->wdim; k++) *dp++ = c->w[i * (size_t)c->wdim + k];
    for (k = 0; k < (size_t)gdim; k++) *dp++ = c->coords[i * (size_t)gdim + k];
    *dp++ = nedges != NULL ? (double)nedges[i] : 0.0;
  }
  for (i = 0; i < n; i++)
    for (q = 0; nedges != NULL && q < (size_t)nedges[i]; q++, e++)
      for (k = 0; k < (size_t)edim; k++) *dp++ = c->ewgts[e * (size_t)edim + k];
  return ZOLTAN_OK;
}

/* The parameters that shape the answer: the plugin ones (but the layer's
 * own, which a replay must not apply again) and the native ones the dump's
 * header does not already give. */
static int dump_params(const zp_context *c, loaddb_dump *d)
{
  const zp_record *r = c->r;
  char *text = zp_params_dump(r->params), *line, *save = NULL;
  size_t cap = r->n_native + 8, i, k;
  d->params = calloc(cap, sizeof *d->params);
  if (d->params == NULL) {
    free(text);
    return ZOLTAN_MEMERR;
  }
  snprintf(d->params[d->nparams].name, sizeof d->params[0].name, "OBJ_WEIGHT_DIM");
  d->params[d->nparams].index = -1;
  snprintf(d->params[d->nparams++].value, sizeof d->params[0].value, "%d", c->obj_wgt_dim);
  for (i = 0; i < r->n_native; i++) {
    const zp_native_param *p = &r->native[i];
    int own = 0;
    for (k = 0; dump_own[k] != NULL; k++) own |= strcmp(dump_own[k], p->name) == 0;
    if (own || d->nparams == cap) continue;
    snprintf(d->params[d->nparams].name, sizeof d->params[0].name, "%s", p->name);
    d->params[d->nparams].index = p->index;
    snprintf(d->params[d->nparams++].value, sizeof d->params[0].value, "%s", p->value);
  }
  for (line = text ? strtok_r(text, "\n", &save) : NULL; line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    char *eq = strchr(line, '=');
    zp_param_ref ref;
    loaddb_param *g;
    if (eq == NULL) continue;
    *eq = '\0';
    if (!zp_find_param(line, &ref)) continue;
    for (k = 0; zp_layer_param_group(k) != NULL && zp_layer_param_group(k) != ref.method; k++)
      ;
    if (zp_layer_param_group(k) != NULL) continue;
    if (d->nparams == cap) {
      g = realloc(d->params, 2 * cap * sizeof *g);
      if (g == NULL) break;
      d->params = g;
      cap *= 2;
    }
    g = &d->params[d->nparams++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", line);
    g->index = -1;
    snprintf(g->value, sizeof g->value, "%s", eq + 1);
  }
  free(text);
  return ZOLTAN_OK;
}

/* Root: d's arrays for N objects and E edges. */
static int dump_alloc(const zp_context *c, int gdim, int edim, size_t N, size_t E, loaddb_dump *d)
{
  size_t g = (size_t)c->ngid;
  d->nobj = N;
  d->nedges = E;
  d->gids = malloc((N * g + 1) * sizeof *d->gids);
  d->procs = malloc((N + 1) * sizeof *d->procs);
  d->cur_part = malloc((N + 1) * sizeof *d->cur_part);
  d->wgts = malloc((N * (size_t)c->wdim + 1) * sizeof *d->wgts);
  d->coords = gdim > 0 ? malloc((N * (size_t)gdim + 1) * sizeof *d->coords) : NULL;
  d->adj_start = malloc((N + 1) * sizeof *d->adj_start);
  d->nbr = malloc((E * g + 1) * sizeof *d->nbr);
  d->ewgts = edim > 0 ? malloc((E * (size_t)edim + 1) * sizeof *d->ewgts) : NULL;
  return d->gids && d->procs && d->cur_part && d->wgts && (gdim <= 0 || d->coords) &&
                 d->adj_start && d->nbr && (edim <= 0 || d->ewgts)
             ? ZOLTAN_OK
             : ZOLTAN_MEMERR;
}

/* Whether ID a (g entries) comes after ID b. */
static int dump_id_after(const ZOLTAN_ID_TYPE *a, const ZOLTAN_ID_TYPE *b, int g)
{
  int k;
  for (k = 0; k < g && a[k] == b[k]; k++)
    ;
  return k < g && a[k] > b[k];
}

/* Root: the gathered records into d in one pass when they already come in
 * global-ID order, rank by rank, as applications usually number their
 * objects; the general unpacking below keeps, per object and per edge,
 * where its records are, which costs more than the copy itself.  Returns
 * 1 when d is built, 0 when the IDs are not in order (nothing done), or
 * ZOLTAN_MEMERR. */
static int dump_unpack_in_order(const zp_context *c, int gdim, int edim, const int *counts,
                                const ZOLTAN_ID_TYPE *ids, const double *dbl, loaddb_dump *d,
                                size_t **perm)
{
  int P = c->r->size, rank, g = c->ngid;
  size_t N = 0, E = 0, i, k, nd = dump_obj_doubles(c, gdim), io = 0, dd = 0, o = 0, e = 0;
  const ZOLTAN_ID_TYPE *prev = NULL;
  for (rank = 0; rank < P;
       io += (size_t)counts[4 * rank], dd += (size_t)counts[4 * rank + 1], rank++) {
    size_t n = (size_t)counts[4 * rank + 2];
    for (i = 0; i < n; i++) {
      const ZOLTAN_ID_TYPE *id = ids + io + i * (size_t)g;
      if (prev != NULL && dump_id_after(prev, id, g)) return 0;
      prev = id;
      E += (size_t)dbl[dd + i * nd + nd - 1];
    }
    N += n;
  }
  if (dump_alloc(c, gdim, edim, N, E, d) < 0) return ZOLTAN_MEMERR;
  if (perm != NULL && (*perm = malloc((N + 1) * sizeof **perm)) == NULL) return ZOLTAN_MEMERR;
  for (io = 0, dd = 0, rank = 0; rank < P; rank++) {
    size_t n = (size_t)counts[4 * rank + 2], ei = io + n * (size_t)g, ed = dd + n * nd;
    for (i = 0; i < n; i++, o++) {
      const double *r = dbl + dd + i * nd;
      size_t ne = (size_t)r[nd - 1];
      /* Entry by entry: the dump's IDs are wider than ZOLTAN_ID_TYPE. */
      for (k = 0; k < (size_t)g; k++) d->gids[o * (size_t)g + k] = ids[io + i * (size_t)g + k];
      d->procs[o] = (int)r[0];
      d->cur_part[o] = (int)r[1];
      for (k = 0; k < (size_t)c->wdim; k++) d->wgts[o * (size_t)c->wdim + k] = r[2 + k];
      for (k = 0; k < (size_t)gdim; k++) d->coords[o * (size_t)gdim + k] = r[2 + c->wdim + k];
      d->adj_start[o] = e;
      if (perm != NULL) (*perm)[o] = o;
      for (k = 0; k < ne * (size_t)g; k++) d->nbr[e * (size_t)g + k] = ids[ei + k];
      for (k = 0; k < ne * (size_t)edim; k++) d->ewgts[e * (size_t)edim + k] = dbl[ed + k];
      ei += ne * (size_t)g;
      ed += ne * (size_t)edim;
      e += ne;
    }
    io += (size_t)counts[4 * rank];
    dd += (size_t)counts[4 * rank + 1];
  }
  d->adj_start[N] = e;
  return 1;
}

/* Root: the gathered records into d, in global-ID order. */
static int dump_unpack(const zp_context *c, int gdim, int edim, const int *counts,
                       const ZOLTAN_ID_TYPE *ids, const double *dbl, loaddb_dump *d, size_t **perm)
{
  int P = c->r->size, rank, g = c->ngid;
  size_t N = 0, E = 0, i, k, q, nd = dump_obj_doubles(c, gdim), o = 0, io = 0, dd = 0;
  size_t *first_id, *first_dbl, *first_edge, *order, *tmp, *ne_of, *edge_id, *edge_dbl;
  ZOLTAN_ID_TYPE *gid;
  int ierr = ZOLTAN_MEMERR;
  for (rank = 0; rank < P; rank++) N += (size_t)counts[4 * rank + 2];
  first_id = malloc((N + 1) * sizeof *first_id);
  first_dbl = malloc((N + 1) * sizeof *first_dbl);
  first_edge = malloc((N + 1) * sizeof *first_edge);
  ne_of = malloc((N + 1) * sizeof *ne_of);
  order = malloc((N + 1) * sizeof *order);
  tmp = malloc((N + 1) * sizeof *tmp);
  gid = malloc((N * (size_t)g + 1) * sizeof *gid);
  edge_id = edge_dbl = NULL;
  if (!first_id || !first_dbl || !first_edge || !ne_of || !order || !tmp || !gid) goto End;
  /* Where each object's records are: rank by rank, its objects, then
   * their edges in the same order. */
  for (rank = 0; rank < P; rank++) {
    size_t n = (size_t)counts[4 * rank + 2];
    for (i = 0; i < n; i++, o++) {
      first_id[o] = io + i * (size_t)g;
      first_dbl[o] = dd + i * nd;
      ne_of[o] = (size_t)dbl[first_dbl[o] + nd - 1];
      first_edge[o] = E;
      E += ne_of[o];
      memcpy(gid + o * (size_t)g, ids + first_id[o], (size_t)g * sizeof *gid);
      order[o] = o;
    }
    io += (size_t)counts[4 * rank];
    dd += (size_t)counts[4 * rank + 1];
  }
  edge_id = malloc((E + 1) * sizeof *edge_id);
  edge_dbl = malloc((E + 1) * sizeof *edge_dbl);
  if (!edge_id || !edge_dbl) goto End;
  for (o = 0, io = 0, dd = 0, rank = 0; rank < P; rank++) {
    size_t n = (size_t)counts[4 * rank + 2], ei = io + n * (size_t)g, ed = dd + n * nd;
    for (i = 0; i < n; i++, o++)
      for (q = 0; q < ne_of[o]; q++, ei += (size_t)g, ed += (size_t)edim) {
        edge_id[first_edge[o] + q] = ei;
        edge_dbl[first_edge[o] + q] = ed;
      }
    io += (size_t)counts[4 * rank];
    dd += (size_t)counts[4 * rank + 1];
  }
  /* Applications usually number their objects in rank order already:
   * checking costs one pass, sorting a merge sort (zp_serial.c does the
   * same). */
  for (i = 1; i < N; i++) {
    for (k = 0; k < (size_t)g && gid[(i - 1) * (size_t)g + k] == gid[i * (size_t)g + k]; k++)
      ;
    if (k < (size_t)g && gid[(i - 1) * (size_t)g + k] > gid[i * (size_t)g + k]) break;
  }
  if (i < N) zp_sort_by_gid(order, tmp, N, gid, g);
  if (dump_alloc(c, gdim, edim, N, E, d) < 0) goto End;
  for (i = 0, E = 0; i < N; i++) {
    const double *r = dbl + first_dbl[order[i]];
    for (k = 0; k < (size_t)g; k++) d->gids[i * (size_t)g + k] = gid[order[i] * (size_t)g + k];
    d->procs[i] = (int)r[0];
    d->cur_part[i] = (int)r[1];
    for (k = 0; k < (size_t)c->wdim; k++) d->wgts[i * (size_t)c->wdim + k] = r[2 + k];
    for (k = 0; k < (size_t)gdim; k++) d->coords[i * (size_t)gdim + k] = r[2 + c->wdim + k];
    d->adj_start[i] = E;
    for (q = 0; q < ne_of[order[i]]; q++, E++) {
      size_t s = first_edge[order[i]] + q;
      for (k = 0; k < (size_t)g; k++) d->nbr[E * (size_t)g + k] = ids[edge_id[s] + k];
      for (k = 0; k < (size_t)edim; k++) d->ewgts[E * (size_t)edim + k] = dbl[edge_dbl[s] + k];
    }
  }
  d->adj_start[N] = E;
  ierr = ZOLTAN_OK;
  /* The caller may want to place other gathered arrays in ID order. */
  if (perm != NULL) {
    *perm = order;
    order = NULL;
  }
End:
  free(first_id);
  free(first_dbl);
  free(first_edge);
  free(ne_of);
  free(order);
  free(tmp);
  free(gid);
  free(edge_id);
  free(edge_dbl);
  return ierr;
}

/* Root: the header fields, the parameters and the records into d, which
 * owns all of it. */
static int dump_build(const zp_context *c, const char *method, int gdim, int edim,
                      const int *counts, const ZOLTAN_ID_TYPE *ids, const double *dbl,
                      loaddb_dump *d, size_t **perm)
{
  size_t ns = (size_t)c->nparts * (size_t)c->wdim;
  int ierr;
  snprintf(d->method, sizeof d->method, "%s", method);
  d->ranks = c->r->size;
  d->parts = c->nparts;
  d->ngid = c->ngid;
  d->wdim = c->wdim;
  d->gdim = gdim;
  d->edim = edim;
  d->sizes_set = c->sizes_set;
  d->tol = malloc((size_t)c->wdim * sizeof *d->tol);
  d->sizes = malloc((ns + 1) * sizeof *d->sizes);
  if (d->tol == NULL || d->sizes == NULL) return ZOLTAN_MEMERR;
  memcpy(d->tol, c->tol, (size_t)c->wdim * sizeof *d->tol);
  memcpy(d->sizes, c->part_sizes, ns * sizeof *d->sizes);
  if (dump_params(c, d) < 0) return ZOLTAN_MEMERR;
  ierr = dump_unpack_in_order(c, gdim, edim, counts, ids, dbl, d, perm);
  if (ierr != 0) return ierr < 0 ? ierr : ZOLTAN_OK;
  return dump_unpack(c, gdim, edim, counts, ids, dbl, d, perm);
}

/* Room on the root for the gathered records, with the displacements of
 * each rank's part; ZOLTAN_FATAL when they exceed one MPI count. */
static int dump_room(const zp_context *c, const int *counts, int *cid, ZOLTAN_ID_TYPE **all_ids,
                     double **all_dbl)
{
  int P = c->r->size, rank, *did = cid + P, *xid = cid + 2 * P, *xdd = cid + 3 * P;
  size_t ti = 0, td = 0;
  for (rank = 0; rank < P; rank++) {
    cid[rank] = counts[4 * rank];
    did[rank] = counts[4 * rank + 1];
    xid[rank] = (int)ti;
    xdd[rank] = (int)td;
    ti += (size_t)cid[rank];
    td += (size_t)did[rank];
  }
  if (ti > 0x7fffffff || td > 0x7fffffff) {
    zp_error(c->yo, "%zu IDs and %zu numbers are too many for one gather", ti, td);
    return ZOLTAN_FATAL;
  }
  *all_ids = malloc((ti + 1) * sizeof **all_ids);
  *all_dbl = malloc((td + 1) * sizeof **all_dbl);
  return *all_ids != NULL && *all_dbl != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR;
}

int zp_dump_gather(zp_context *c, const char *method, const char *why, int with_coords,
                   loaddb_dump *d, size_t **perm)
{
  int gdim, edim, local[4], *counts = NULL, *cid = NULL, P = c->r->size, root = c->r->rank == 0;
  int ierr;
  ZOLTAN_ID_TYPE *ids = NULL, *all_ids = NULL;
  double *dbl = NULL, *all_dbl = NULL;
  memset(d, 0, sizeof *d);
  if (perm != NULL) *perm = NULL;
  /* Coordinates and edges where the application registered them (asked
   * once per call, shared with the method). */
  ierr = zp_gather_inputs(c, ZP_WANTS_GEOM | ZP_WANTS_GRAPH, why);
  if (ierr < 0) return ierr;
  gdim = with_coords && c->coords != NULL ? c->gdim : 0;
  edim = c->has_graph ? c->edge_wgt_dim : 0;
  ierr = zp_agree(c, dump_pack(c, gdim, edim, &ids, &dbl, local));
  local[2] = c->n;
  local[3] = 0;
  if (root) {
    counts = malloc((size_t)P * 4 * sizeof *counts);
    cid = malloc((size_t)P * 4 * sizeof *cid);
  }
  ierr = zp_agree(c, ierr >= 0 && root && (!counts || !cid) ? ZOLTAN_MEMERR : ierr);
  if (ierr < 0) goto End;
  MPI_Gather(local, 4, MPI_INT, counts, 4, MPI_INT, 0, c->r->comm);
  ierr = zp_agree(c, root ? dump_room(c, counts, cid, &all_ids, &all_dbl) : ZOLTAN_OK);
  if (ierr < 0) goto End;
  MPI_Gatherv(ids, local[0], ZOLTAN_ID_MPI_TYPE, all_ids, cid, cid + 2 * P, ZOLTAN_ID_MPI_TYPE, 0,
              c->r->comm);
  MPI_Gatherv(dbl, local[1], MPI_DOUBLE, all_dbl, cid + P, cid + 3 * P, MPI_DOUBLE, 0, c->r->comm);
  ierr = zp_agree(c, root ? dump_build(c, method, gdim, edim, counts, all_ids, all_dbl, d, perm)
                          : ZOLTAN_OK);
End:
  if (ierr < 0) {
    loaddb_dump_free(d);
    if (perm != NULL) {
      free(*perm);
      *perm = NULL;
    }
  }
  free(ids);
  free(dbl);
  free(all_ids);
  free(all_dbl);
  free(counts);
  free(cid);
  return ierr;
}

/* Root: append d to LB_DUMP_FILE. */
static int dump_append(const zp_context *c, loaddb_dump *d)
{
  const char *fname = NULL;
  FILE *f;
  int w;
  zp_param_string(c->r->params, "LB_DUMP_FILE", &fname);
  d->seq = ++dump_seq;
  f = fopen(fname, "a");
  if (f == NULL) {
    zp_error(c->yo, "LB_DUMP_FILE: cannot open '%s' for appending", fname);
    return ZOLTAN_FATAL;
  }
  w = loaddb_dump_write(f, d);
  if (fclose(f) != 0 || w != 0) {
    zp_error(c->yo, "LB_DUMP_FILE: writing '%s' failed (disk full?)", fname);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

int zp_dump_write(zp_context *c, const char *method)
{
  loaddb_dump d;
  int ierr = zp_dump_gather(c, method, "LB_DUMP_FILE", 1, &d, NULL);
  if (ierr >= 0) ierr = zp_agree(c, c->r->rank == 0 ? dump_append(c, &d) : ZOLTAN_OK);
  loaddb_dump_free(&d);
  return ierr;
}
