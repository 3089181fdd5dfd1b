/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Centralised methods (zp_method.partition_serial): every object of the
 * communicator is gathered on one rank, sorted by global ID so that the
 * answer depends neither on the number of ranks nor on where the objects
 * were, checked, given to the method, relabelled for REMAP, and the new
 * parts are scattered back.
 *
 * Each input travels as its own array, straight from the context's arrays
 * into the root's (one gather per array the method uses, no packing and no
 * unpacking), because at 10^5 objects and more the copies, not the number
 * of collectives, set the cost.  When the ranks' objects arrive in global-ID
 * order (applications usually number them so) the gathered arrays are the
 * method's input as they are and the answer goes back without a
 * permutation.  The root's arrays live in the struct's kept buffers
 * (zp_record_scratch), so that a struct balanced again reuses its pages.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "zp_serial_internal.h"

/* The layout for the method running now (its own needs, which for a base
 * method differ from those of the selected one). */
static void zp_serial_layout(const zp_context *c, zp_serial *s)
{
  int i;
  memset(s, 0, sizeof *s);
  s->geom_dim = (c->needs & (ZP_NEEDS_GEOM | ZP_WANTS_GEOM)) ? c->gdim : 0;
  s->with_hg = (c->needs & (ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH)) && c->hg_as_graph;
  s->with_graph = (c->needs & (ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH)) && c->has_graph && !s->with_hg;
  s->with_sizes = (c->needs & ZP_WANTS_SIZES) && c->sizes != NULL;
  s->edge_dim = s->with_graph ? c->edge_wgt_dim : 0;
  for (i = 0; s->with_graph && i < c->n; i++) s->local_edges += c->nedges[i];
  if (s->with_hg) s->local_edges = c->hg_npairs;
}

static void zp_serial_free(zp_serial *s)
{
  free(s->counts);
  free(s->obj_first);
  free(s->edge_at);
  free(s->cnt);
  free(s->displ);
  if (s->hg_owned) {
    free(s->adj_start);
    free(s->adj);
    free(s->sorted_edge_w);
  }
}

/* ---- step 1, collective: gather on the root ------------------------------------ */

/* Root: the per-rank displacements and the receive arrays.  MPI counts are
 * ints: an array of more than INT_MAX elements is refused. */
static int zp_serial_plan(const zp_context *c, zp_serial *s)
{
  int P = c->r->size, i, widest = c->ngid;
  long long first = 0, edges = 0;
  if (c->wdim > widest) widest = c->wdim;
  if (s->geom_dim > widest) widest = s->geom_dim;
  s->obj_first = malloc((size_t)P * sizeof *s->obj_first);
  s->edge_at = malloc((size_t)P * sizeof *s->edge_at);
  s->cnt = malloc((size_t)P * sizeof *s->cnt);
  s->displ = malloc((size_t)P * sizeof *s->displ);
  if (s->counts == NULL || s->obj_first == NULL || s->edge_at == NULL || s->cnt == NULL ||
      s->displ == NULL)
    return ZOLTAN_MEMERR;
  for (i = 0; i < P; i++)
    if (s->counts[2 * i] < 0) return ZOLTAN_MEMERR;
  for (i = 0; i < P; i++) {
    s->obj_first[i] = (int)first;
    s->edge_at[i] = (int)edges;
    first += s->counts[2 * i];
    edges += s->counts[2 * i + 1];
    if (first * widest > INT_MAX || edges * 2 * c->ngid > INT_MAX ||
        edges * (s->edge_dim > 0 ? s->edge_dim : 1) > INT_MAX) {
      zp_error(c->yo, "too much data to gather on one rank (%lld objects, %lld edges)", first,
               edges);
      return ZOLTAN_FATAL;
    }
  }
  s->num_obj = (size_t)first;
  s->num_edges = (size_t)edges;
  s->gids = zp_buf(c, ZP_SCR_GIDS, s->num_obj * c->ngid, sizeof *s->gids);
  s->wgts = zp_buf(c, ZP_SCR_WGTS, s->num_obj * c->wdim, sizeof *s->wgts);
  s->parts = zp_buf(c, ZP_SCR_PARTS, s->num_obj, sizeof *s->parts);
  if (s->gids == NULL || s->wgts == NULL || s->parts == NULL) return ZOLTAN_MEMERR;
  if (s->geom_dim > 0 &&
      (s->coords = zp_buf(c, ZP_SCR_COORDS, s->num_obj * s->geom_dim, sizeof *s->coords)) == NULL)
    return ZOLTAN_MEMERR;
  if (s->with_sizes && (s->sizes = zp_buf(c, ZP_SCR_SIZES, s->num_obj, sizeof *s->sizes)) == NULL)
    return ZOLTAN_MEMERR;
  if (s->with_graph &&
      (s->nedges = zp_buf(c, ZP_SCR_NEDGES, s->num_obj, sizeof *s->nedges)) == NULL)
    return ZOLTAN_MEMERR;
  if ((s->with_graph || s->with_hg) &&
      (s->nbr = zp_buf(c, ZP_SCR_NBR, s->num_edges * c->ngid * (s->with_hg ? 2 : 1),
                       sizeof *s->nbr)) == NULL)
    return ZOLTAN_MEMERR;
  if (s->edge_dim > 0 &&
      (s->ew = zp_buf(c, ZP_SCR_EW, s->num_edges * s->edge_dim, sizeof *s->ew)) == NULL)
    return ZOLTAN_MEMERR;
  return ZOLTAN_OK;
}

/* Gathers one array of width elements per object (edges: per edge) from
 * every rank into recv on the root. */
static void zp_gather_array(const zp_context *c, zp_serial *s, const void *send, int n_local,
                            int width, MPI_Datatype type, void *recv, int per_edge)
{
  int i, root = c->r->rank == ZP_ROOT;
  for (i = 0; root && i < c->r->size; i++) {
    s->cnt[i] = s->counts[2 * i + per_edge] * width;
    s->displ[i] = (per_edge ? s->edge_at[i] : s->obj_first[i]) * width;
  }
  MPI_Gatherv(send, n_local * width, type, recv, s->cnt, s->displ, type, ZP_ROOT, c->r->comm);
}

/* Returns the root's verdict on every rank: the counts travel first, so
 * that the root's lack of memory is known before anybody waits in the
 * gathers.  Every array then goes straight from the context to the root. */
static int zp_serial_gather(const zp_context *c, zp_serial *s)
{
  MPI_Comm comm = c->r->comm;
  int mine[2], ierr = ZOLTAN_OK, root = c->r->rank == ZP_ROOT;
  mine[0] = c->n;
  mine[1] = s->local_edges;
  if (root) s->counts = malloc(2 * (size_t)c->r->size * sizeof *s->counts);
  MPI_Gather(mine, 2, MPI_INT, s->counts, 2, MPI_INT, ZP_ROOT, comm);
  if (root) ierr = zp_serial_plan(c, s);
  MPI_Bcast(&ierr, 1, MPI_INT, ZP_ROOT, comm);
  if (ierr < 0) return ierr;
  zp_gather_array(c, s, c->gids, c->n, c->ngid, ZOLTAN_ID_MPI_TYPE, s->gids, 0);
  zp_gather_array(c, s, c->w, c->n, c->wdim, MPI_DOUBLE, s->wgts, 0);
  zp_gather_array(c, s, c->parts, c->n, 1, MPI_INT, s->parts, 0);
  if (s->geom_dim > 0)
    zp_gather_array(c, s, c->coords, c->n, s->geom_dim, MPI_DOUBLE, s->coords, 0);
  if (s->with_sizes) zp_gather_array(c, s, c->sizes, c->n, 1, MPI_DOUBLE, s->sizes, 0);
  if (s->with_graph) {
    zp_gather_array(c, s, c->nedges, c->n, 1, MPI_INT, s->nedges, 0);
    zp_gather_array(c, s, c->nbr, s->local_edges, c->ngid, ZOLTAN_ID_MPI_TYPE, s->nbr, 1);
    if (s->edge_dim > 0)
      zp_gather_array(c, s, c->ewgts, s->local_edges, s->edge_dim, MPI_DOUBLE, s->ew, 1);
  }
  if (s->with_hg)
    zp_gather_array(c, s, c->hg_pairs, s->local_edges, 2 * c->ngid, ZOLTAN_ID_MPI_TYPE, s->nbr, 1);
  return ierr;
}

/* ---- step 2, root: order (zp_serial_order.c) and check ----------------------- */

/* Warnings about inputs a method can still use. */
static int zp_serial_check(const zp_context *c, zp_serial *s)
{
  size_t N = s->num_obj, k;
  int d, ierr = ZOLTAN_OK;
  /* A weight dimension that is zero everywhere carries no information;
   * balancing it would pile every object into one part, so count objects
   * instead and say so. */
  for (d = 0; d < c->wdim; d++) {
    double sum = 0.0;
    for (k = 0; k < N; k++) sum += s->sorted_wgts[k * c->wdim + d];
    if (N > 0 && sum == 0.0) {
      zp_warn(c->yo, "total weight of dimension %d is zero; balancing object counts instead", d);
      for (k = 0; k < N; k++) s->sorted_wgts[k * c->wdim + d] = 1.0;
      ierr = ZOLTAN_WARN;
    }
  }
  if (N > 0 && (size_t)c->nparts > N) {
    zp_warn(c->yo, "%d parts requested for %zu objects; %zu parts will be empty", c->nparts, N,
            (size_t)c->nparts - N);
    ierr = ZOLTAN_WARN;
  }
  return ierr;
}

/* ---- step 3, root: the graph ---------------------------------------------------- */

/* Finds neighbours among the sorted IDs: by arithmetic when they are the
 * consecutive integers first..first+N-1 (the common numbering), else
 * through a hash table, so that the graph costs time linear in its edges. */
typedef struct zp_nbr_lookup {
  int dense;            /* 1: position = id - first */
  ZOLTAN_ID_TYPE first; /* the smallest ID, when dense */
  size_t n;             /* objects */
  zp_gidmap map;        /* the table, when not dense */
} zp_nbr_lookup;

static int zp_lookup_init(const zp_context *c, const zp_serial *s, zp_nbr_lookup *l)
{
  size_t N = s->num_obj;
  memset(l, 0, sizeof *l);
  l->n = N;
  if (c->ngid == 1 && N > 0 &&
      s->sorted_gids[N - 1] - s->sorted_gids[0] == (ZOLTAN_ID_TYPE)(N - 1)) {
    l->dense = 1;
    l->first = s->sorted_gids[0];
    return ZOLTAN_OK;
  }
  return zp_gidmap_build(&l->map, s->sorted_gids, N, c->ngid);
}

static long zp_lookup(const zp_nbr_lookup *l, const ZOLTAN_ID_TYPE *id)
{
  if (l->dense) {
    ZOLTAN_ID_TYPE d = *id - l->first; /* wraps to a large value below first */
    return d < (ZOLTAN_ID_TYPE)l->n ? (long)d : -1;
  }
  return zp_gidmap_find(&l->map, id);
}

/* Root: the graph in GID order with neighbour positions; edges to objects
 * that do not exist are dropped with a warning (an error for a method that
 * asks for a strict graph). */
static int zp_serial_graph(const zp_context *c, zp_serial *s)
{
  size_t N = s->num_obj, E = s->num_edges, k, q, e = 0, dropped = 0, ew = (size_t)s->edge_dim, d;
  size_t *edge_first = NULL;
  zp_nbr_lookup look;
  int ierr = zp_lookup_init(c, s, &look);
  if (ierr < 0) return ierr;
  s->adj_start = zp_buf(c, ZP_SCR_ADJ_START, N + 1, sizeof *s->adj_start);
  s->adj = zp_buf(c, ZP_SCR_ADJ, E, sizeof *s->adj);
  if (ew > 0) s->sorted_edge_w = zp_buf(c, ZP_SCR_S_EW, E * ew, sizeof *s->sorted_edge_w);
  if (s->order != NULL) edge_first = zp_buf(c, ZP_SCR_EDGE_AT, N, sizeof *edge_first);
  if (s->adj_start == NULL || s->adj == NULL || (ew > 0 && s->sorted_edge_w == NULL) ||
      (s->order != NULL && edge_first == NULL)) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  /* The first edge of each object in arrival order, needed only when the
   * objects are visited in another order. */
  for (k = 0, q = 0; edge_first != NULL && k < N; k++) {
    edge_first[k] = q;
    q += (size_t)s->nedges[k];
  }
  for (k = 0, q = 0; k < N; k++) {
    size_t o = s->order != NULL ? s->order[k] : k;
    size_t src = edge_first != NULL ? edge_first[o] : q, end = src + (size_t)s->nedges[o];
    q = end;
    s->adj_start[k] = e;
    for (; src < end; src++) {
      long t = zp_lookup(&look, s->nbr + src * c->ngid);
      if (t < 0) {
        if (dropped++ == 0 && (c->needs & ZP_STRICT_GRAPH)) {
          char g[ZP_GID_TEXT], h[ZP_GID_TEXT];
          zp_format_gid(s->sorted_gids + k * c->ngid, c->ngid, g, sizeof g);
          zp_format_gid(s->nbr + src * c->ngid, c->ngid, h, sizeof h);
          zp_error(c->yo,
                   "method %s: object %s lists neighbour %s, which is no object of any rank; "
                   "fix the edge callbacks (ZOLTAN_EDGE_LIST_FN)",
                   c->r->method->name, g, h);
        }
        continue;
      }
      s->adj[e] = (size_t)t;
      for (d = 0; d < ew; d++) s->sorted_edge_w[e * ew + d] = s->ew[src * ew + d];
      e++;
    }
  }
  s->adj_start[N] = e;
  if (dropped && (c->needs & ZP_STRICT_GRAPH)) {
    ierr = ZOLTAN_FATAL;
    goto End;
  }
  if (dropped) zp_warn(c->yo, "%zu edges name objects that do not exist; ignored", dropped);
End:
  if (!look.dense) zp_gidmap_free(&look.map);
  return ierr;
}

/* ---- step 4, root: call the method ------------------------------------------- */

void zp_problem_common(zp_problem *pb, const zp_context *c)
{
  memset(pb, 0, sizeof *pb);
  pb->num_gid_entries = c->ngid;
  pb->wgt_dim = c->wdim;
  pb->params = c->r->params;
  pb->debug_level = c->debug_level;
  pb->lb_approach = zp_record_native_get(c->r, "LB_APPROACH", -1);
  pb->layer = c->r;
}

/* C99 compile-time check: one record slot per zp_problem_scratch slot. */
typedef char zp_problem_slots_check[ZP_SCR_M7 - ZP_SCR_M0 + 1 == ZP_PROBLEM_SCRATCH_SLOTS ? 1 : -1];

void *zp_problem_scratch(const zp_problem *pb, int slot, size_t bytes)
{
  if (pb == NULL || pb->layer == NULL || slot < 0 || slot >= ZP_PROBLEM_SCRATCH_SLOTS) return NULL;
  return zp_record_scratch((zp_record *)pb->layer, ZP_SCR_M0 + slot, bytes);
}

int zp_check_answer(const zp_context *c, const int *newp, size_t N, int nparts)
{
  size_t k;
  for (k = 0; k < N; k++)
    if (newp[k] < 0 || newp[k] >= nparts) {
      zp_error(c->yo, "method %s assigned an object to part %d, outside [0, %d)",
               c->r->method->name, newp[k], nparts);
      return ZOLTAN_FATAL;
    }
  return ZOLTAN_OK;
}

static int zp_serial_call(const zp_context *c, zp_serial *s)
{
  const zp_method *m = c->r->method;
  size_t N = s->num_obj;
  zp_problem pb;
  int ierr;
  /* Out of GID order the gathered parts were copied in GID order
   * (zp_serial_order.c) and nothing reads them again: the answer takes
   * their buffer.  In GID
   * order they are the method's cur_part, read while it answers. */
  s->new_part = s->order != NULL ? s->parts : zp_buf(c, ZP_SCR_NEW, N, sizeof *s->new_part);
  if (s->new_part == NULL) return ZOLTAN_MEMERR;
  zp_problem_common(&pb, c);
  pb.num_obj = N;
  pb.gids = s->sorted_gids;
  pb.wgts = s->sorted_wgts;
  pb.cur_part = s->sorted_parts;
  pb.cur_proc = s->sorted_procs;
  pb.num_parts = c->nparts;
  pb.num_procs = c->r->size;
  pb.part_sizes = c->part_sizes;
  pb.imbalance_tol = c->tol;
  pb.geom_dim = s->geom_dim;
  pb.coords = s->sorted_coords;
  pb.adj_start = s->adj_start;
  pb.adj = s->adj_start != NULL ? s->adj : NULL;
  pb.ewgt_dim = s->with_hg ? 1 : s->with_graph ? c->edge_wgt_dim : 0;
  pb.ewgts = s->with_hg || (s->with_graph && c->edge_wgt_dim > 0) ? s->sorted_edge_w : NULL;
  pb.obj_sizes = s->sorted_sizes;
  ierr = N > 0 ? m->partition_serial(&pb, c->r->state, s->new_part) : ZOLTAN_OK;
  if (ierr < 0) return ierr;
  if (zp_check_answer(c, s->new_part, N, c->nparts) < 0) return ZOLTAN_FATAL;
  if (c->remap && !(c->needs & ZP_NO_REMAP) && c->pdist == NULL && N > 0) {
    zp_remap_in in = {c->r, c->nparts, c->wdim, c->part_sizes};
    int e = zp_remap(&in, N, s->sorted_wgts, s->sorted_parts, s->new_part);
    if (e < 0) return e;
  }
  /* Memory capacities are limits: objects leave parts still over theirs.
   * Not when only candidates came (the other parts' objects are not here). */
  if (!(c->needs & ZP_GATHER_CANDIDATES)) zp_memory_repair_root(c, N, s->sorted_wgts, s->new_part);
  return ierr;
}

/* Root: everything between the gathers and the scatter.  Warnings of the
 * checks and of the method add up; the first error stops. */
static int zp_serial_solve(const zp_context *c, zp_serial *s)
{
  int ierr = zp_serial_sort(c, s), warn = 0, step;
  if (ierr >= 0) {
    ierr = zp_serial_check(c, s);
    warn = ierr == ZOLTAN_WARN;
  }
  if (ierr >= 0 && s->with_graph) ierr = zp_serial_graph(c, s);
  if (ierr >= 0 && s->with_hg) {
    ierr = zp_hg_graph(c, s->num_obj, s->sorted_gids, (const unsigned char *)s->nbr, s->num_edges,
                       &s->adj_start, &s->adj, &s->sorted_edge_w);
    s->hg_owned = 1;
  }
  if (ierr >= 0) {
    step = zp_serial_call(c, s);
    ierr = step < 0 ? step : (warn || step == ZOLTAN_WARN) ? ZOLTAN_WARN : ZOLTAN_OK;
  }
  /* The answer in arrival order, for the scatter, when the objects did not
   * arrive in GID order. */
  if (ierr >= 0 && s->order != NULL) {
    size_t k;
    /* In the sort's scratch, free once the copies in GID order are made
     * (zp_serial_order.c). */
    s->reply = zp_buf(c, ZP_SCR_TMP, s->num_obj, sizeof *s->reply);
    if (s->reply == NULL) return ZOLTAN_MEMERR;
    for (k = 0; k < s->num_obj; k++) s->reply[s->order[k]] = s->new_part[k];
  }
  return ierr;
}

/* ---- step 5, collective: scatter the answer ---------------------------------- */

/* The root's status first, then (unless it is an error) each rank's new
 * parts in the order it gave its objects, straight into new_part. */
static int zp_serial_scatter(const zp_context *c, zp_serial *s, int status, int *new_part)
{
  int root = c->r->rank == ZP_ROOT, i;
  const int *answer = s->new_part;
  MPI_Bcast(&status, 1, MPI_INT, ZP_ROOT, c->r->comm);
  if (status < 0) return status;
  if (root && s->reply != NULL) answer = s->reply;
  for (i = 0; root && i < c->r->size; i++) {
    s->cnt[i] = s->counts[2 * i];
    s->displ[i] = s->obj_first[i];
  }
  MPI_Scatterv(answer, s->cnt, s->displ, MPI_INT, new_part, c->n, MPI_INT, ZP_ROOT, c->r->comm);
  return status;
}

int zp_run_serial(zp_context *c, int *new_part)
{
  zp_serial s;
  int ierr;
  zp_serial_layout(c, &s);
  ierr = zp_serial_gather(c, &s);
  if (ierr >= 0)
    ierr = zp_serial_scatter(c, &s, c->r->rank == ZP_ROOT ? zp_serial_solve(c, &s) : ZOLTAN_OK,
                             new_part);
  zp_serial_free(&s);
  return ierr;
}
