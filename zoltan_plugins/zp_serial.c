/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Centralised methods (zp_method.partition_serial): every object of the
 * communicator is gathered on one rank, sorted by global ID so that the
 * answer depends neither on the number of ranks nor on where the objects
 * were, checked, given to the method, relabelled for REMAP, and the new
 * parts are scattered back.
 *
 * One record per object and one per edge, so that everything reaches the
 * root in one gather each: the number of collectives, not the bytes,
 * dominates at the sizes a centralised method is meant for.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"

/* ---- global IDs ---------------------------------------------------------- */

/* Lexicographic order of multi-entry global IDs. */
static int zp_gid_cmp(const ZOLTAN_ID_TYPE *a, const ZOLTAN_ID_TYPE *b, int ngid)
{
  int k;
  for (k = 0; k < ngid; k++) {
    if (a[k] < b[k]) return -1;
    if (a[k] > b[k]) return 1;
  }
  return 0;
}

/* Stable merge sort of indices; written out rather than qsort so that no
 * global comparison state is needed. */
void zp_sort_by_gid(size_t *idx, size_t *tmp, size_t n, const ZOLTAN_ID_TYPE *g, int ngid)
{
  size_t width, i;
  for (width = 1; width < n; width *= 2) {
    for (i = 0; i < n; i += 2 * width) {
      size_t lo = i, mid = i + width < n ? i + width : n,
             hi = i + 2 * width < n ? i + 2 * width : n;
      size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi)
        tmp[k++] = zp_gid_cmp(g + idx[b] * ngid, g + idx[a] * ngid, ngid) < 0 ? idx[b++] : idx[a++];
      while (a < mid) tmp[k++] = idx[a++];
      while (b < hi) tmp[k++] = idx[b++];
    }
    memcpy(idx, tmp, n * sizeof *idx);
  }
}

long zp_find_gid(const ZOLTAN_ID_TYPE *sorted, size_t n, const ZOLTAN_ID_TYPE *key, int ngid)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int cmp = zp_gid_cmp(sorted + mid * ngid, key, ngid);
    if (cmp == 0) return (long)mid;
    if (cmp < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* ---- the buffers of one run ----------------------------------------------- */

/* Everything one centralised run allocates.  The layout part is the same
 * on every rank; the "root" parts exist on ZP_ROOT only. */
typedef struct zp_serial {
  /* Layout of the records, from the inputs the method asked for. */
  int geom_dim;      /* coordinates per object record, 0 = none */
  int with_graph;    /* 1 when edge records travel */
  int with_hg;       /* 1 when (net, pin) pairs travel in the edge records'
                        place: the hypergraph read as a graph */
  int with_sizes;    /* 1 when object sizes travel (ZP_WANTS_SIZES) */
  int edge_dim;      /* weights per edge record (>= 1; 1.0 without EDGE_WEIGHT_DIM) */
  size_t id_bytes;   /* bytes of one global ID */
  size_t obj_bytes;  /* object record: GID, weights, part, edge count, coordinates */
  size_t edge_bytes; /* edge record: neighbour GID, weights */

  /* Every rank. */
  int local_edges;         /* edges of the local objects */
  unsigned char *obj_out;  /* the local object records */
  unsigned char *edge_out; /* the local edge records */
  int *reply;              /* from the root: status, then the local objects' new parts */

  /* Root: per rank. */
  int *counts;      /* 2 per rank: objects (-1 when short of memory), edges */
  int *obj_first;   /* index of the rank's first object among all */
  int *obj_recv;    /* bytes of the rank's object records */
  int *obj_displ;   /* where they land in obj_in */
  int *edge_recv;   /* bytes of the rank's edge records */
  int *edge_displ;  /* where they land in edge_in */
  int *reply_count; /* ints of the rank's reply: 1 + its objects */
  int *reply_displ; /* where its reply starts in replies */
  int *replies;     /* every rank's reply, concatenated */

  /* Root: every object and edge, in arrival order. */
  size_t num_obj;         /* objects of all ranks */
  size_t num_edges;       /* edges of all ranks */
  unsigned char *obj_in;  /* gathered object records */
  unsigned char *edge_in; /* gathered edge records */
  ZOLTAN_ID_TYPE *gids;   /* global IDs */
  int *procs;             /* owning rank */
  size_t *edge_first;     /* first edge record of each object */
  ZOLTAN_ID_TYPE *nbr;    /* neighbour GID of each edge */
  double *edge_w;         /* edge_dim weights of each edge */

  /* Root: the problem, sorted by global ID. */
  size_t *order;               /* arrival index of the k-th object by GID */
  ZOLTAN_ID_TYPE *sorted_gids; /* global IDs */
  double *sorted_wgts;         /* wdim weights per object */
  int *sorted_parts;           /* current part */
  int *sorted_procs;           /* owning rank */
  double *sorted_coords;       /* geom_dim coordinates per object, or NULL */
  double *sorted_sizes;        /* object sizes, or NULL */
  size_t *adj_start;           /* num_obj + 1 offsets into adj, or NULL */
  size_t *adj;                 /* neighbour positions in GID order */
  double *sorted_edge_w;       /* edge_dim weights per entry of adj */
  int *new_part;               /* the method's answer */
} zp_serial;

/* The record layout for the method running now (its own needs, which for a
 * base method differ from those of the selected one). */
static void zp_serial_layout(const zp_context *c, zp_serial *s)
{
  memset(s, 0, sizeof *s);
  s->geom_dim = (c->needs & (ZP_NEEDS_GEOM | ZP_WANTS_GEOM)) ? c->gdim : 0;
  s->with_hg = (c->needs & (ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH)) && c->hg_as_graph;
  s->with_graph = (c->needs & (ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH)) && c->has_graph && !s->with_hg;
  s->with_sizes = (c->needs & ZP_WANTS_SIZES) && c->sizes != NULL;
  s->edge_dim = c->edge_wgt_dim > 0 ? c->edge_wgt_dim : 1;
  s->id_bytes = (size_t)c->ngid * sizeof(ZOLTAN_ID_TYPE);
  s->obj_bytes = s->id_bytes + (size_t)c->wdim * sizeof(double) + 2 * sizeof(int) +
                 (size_t)(s->geom_dim + s->with_sizes) * sizeof(double);
  s->edge_bytes = s->with_hg ? 2 * s->id_bytes : s->id_bytes + (size_t)s->edge_dim * sizeof(double);
}

static void zp_serial_free(zp_serial *s)
{
  void *bufs[] = {
      s->obj_out,     s->edge_out,    s->reply,         s->counts,       s->obj_first,
      s->obj_recv,    s->obj_displ,   s->edge_recv,     s->edge_displ,   s->reply_count,
      s->reply_displ, s->replies,     s->obj_in,        s->edge_in,      s->gids,
      s->procs,       s->edge_first,  s->nbr,           s->edge_w,       s->order,
      s->sorted_gids, s->sorted_wgts, s->sorted_parts,  s->sorted_procs, s->sorted_coords,
      s->adj_start,   s->adj,         s->sorted_edge_w, s->new_part,     s->sorted_sizes};
  size_t i;
  for (i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
}

/* Where the fields of an object record start: GID, weights, part, edge
 * count, coordinates. */
static size_t zp_off_wgts(const zp_serial *s) { return s->id_bytes; }

static size_t zp_off_part(const zp_context *c, const zp_serial *s)
{
  return s->id_bytes + (size_t)c->wdim * sizeof(double);
}

static size_t zp_off_nedges(const zp_context *c, const zp_serial *s)
{
  return zp_off_part(c, s) + sizeof(int);
}

static size_t zp_off_coords(const zp_context *c, const zp_serial *s)
{
  return zp_off_nedges(c, s) + sizeof(int);
}

static size_t zp_off_size(const zp_context *c, const zp_serial *s)
{
  return zp_off_coords(c, s) + (size_t)s->geom_dim * sizeof(double);
}

/* Object record o of the gathered ones. */
static const unsigned char *zp_record_at(const zp_serial *s, size_t o)
{
  return s->obj_in + o * s->obj_bytes;
}

/* ---- step 1, every rank: pack the local objects ------------------------------ */

static int zp_serial_pack(const zp_context *c, zp_serial *s)
{
  unsigned char *obj, *edge;
  size_t e = 0;
  int i, j;
  const double one = 1.0;
  for (i = 0; s->with_graph && i < c->n; i++) s->local_edges += c->nedges[i];
  if (s->with_hg) s->local_edges = c->hg_npairs;
  s->obj_out = malloc((size_t)c->n * s->obj_bytes + 1);
  s->edge_out = malloc((size_t)s->local_edges * s->edge_bytes + 1);
  s->reply = malloc(((size_t)c->n + 1) * sizeof *s->reply);
  if (s->obj_out == NULL || s->edge_out == NULL || s->reply == NULL) return ZOLTAN_MEMERR;
  if (s->with_hg) memcpy(s->edge_out, c->hg_pairs, (size_t)s->local_edges * s->edge_bytes);
  obj = s->obj_out;
  edge = s->edge_out;
  for (i = 0; i < c->n; i++) {
    int ne = s->with_graph ? c->nedges[i] : 0;
    memcpy(obj, c->gids + (size_t)i * c->ngid, s->id_bytes);
    memcpy(obj + zp_off_wgts(s), c->w + (size_t)i * c->wdim, (size_t)c->wdim * sizeof(double));
    memcpy(obj + zp_off_part(c, s), &c->parts[i], sizeof(int));
    memcpy(obj + zp_off_nedges(c, s), &ne, sizeof(int));
    if (s->geom_dim > 0)
      memcpy(obj + zp_off_coords(c, s), c->coords + (size_t)i * s->geom_dim,
             (size_t)s->geom_dim * sizeof(double));
    if (s->with_sizes) memcpy(obj + zp_off_size(c, s), &c->sizes[i], sizeof(double));
    obj += s->obj_bytes;
    for (j = 0; j < ne; j++, e++) {
      memcpy(edge, c->nbr + e * c->ngid, s->id_bytes);
      memcpy(edge + s->id_bytes, c->edge_wgt_dim > 0 ? c->ewgts + e * (size_t)s->edge_dim : &one,
             (size_t)s->edge_dim * sizeof(double));
      edge += s->edge_bytes;
    }
  }
  return ZOLTAN_OK;
}

/* ---- step 2, collective: gather the records on the root ---------------------- */

/* Root: displacements of every rank's records and replies, and the receive
 * buffers.  MPI counts are ints: more than INT_MAX bytes is refused. */
static int zp_serial_plan(const zp_context *c, zp_serial *s)
{
  int P = c->r->size, i;
  long long obj_at = 0, edge_at = 0, reply_at = 0, first = 0;
  int **per_rank[] = {&s->obj_first,  &s->obj_recv,    &s->obj_displ,  &s->edge_recv,
                      &s->edge_displ, &s->reply_count, &s->reply_displ};
  for (i = 0; i < (int)(sizeof per_rank / sizeof per_rank[0]); i++)
    if ((*per_rank[i] = malloc((size_t)P * sizeof(int))) == NULL) return ZOLTAN_MEMERR;
  if (s->counts == NULL) return ZOLTAN_MEMERR;
  for (i = 0; i < P; i++) {
    if (s->counts[2 * i] < 0) return ZOLTAN_MEMERR;
    s->num_obj += (size_t)s->counts[2 * i];
    s->num_edges += (size_t)s->counts[2 * i + 1];
  }
  for (i = 0; i < P; i++) {
    long long obj_len = (long long)s->counts[2 * i] * (long long)s->obj_bytes;
    long long edge_len = (long long)s->counts[2 * i + 1] * (long long)s->edge_bytes;
    if (obj_len > INT_MAX || obj_at > INT_MAX || edge_len > INT_MAX || edge_at > INT_MAX) {
      zp_error(c->yo, "too much data to gather on one rank (%zu objects, %zu edges)", s->num_obj,
               s->num_edges);
      return ZOLTAN_FATAL;
    }
    s->obj_first[i] = (int)first;
    s->obj_recv[i] = (int)obj_len;
    s->obj_displ[i] = (int)obj_at;
    s->edge_recv[i] = (int)edge_len;
    s->edge_displ[i] = (int)edge_at;
    s->reply_count[i] = s->counts[2 * i] + 1;
    s->reply_displ[i] = (int)reply_at;
    obj_at += obj_len;
    edge_at += edge_len;
    reply_at += s->counts[2 * i] + 1;
    first += s->counts[2 * i];
  }
  s->obj_in = malloc(s->num_obj * s->obj_bytes + 1);
  s->edge_in = malloc(s->num_edges * s->edge_bytes + 1);
  s->replies = malloc((s->num_obj + (size_t)P) * sizeof *s->replies);
  if (s->obj_in == NULL || s->edge_in == NULL || s->replies == NULL) return ZOLTAN_MEMERR;
  return ZOLTAN_OK;
}

/* Returns the root's verdict on every rank: the counts travel with each
 * rank's status, so that a rank short of memory is known before anybody
 * waits in the gathers. */
static int zp_serial_gather(const zp_context *c, zp_serial *s, int local)
{
  MPI_Comm comm = c->r->comm;
  int mine[2], ierr = ZOLTAN_OK, root = c->r->rank == ZP_ROOT;
  mine[0] = local < 0 ? -1 : c->n;
  mine[1] = s->local_edges;
  if (root) s->counts = malloc(2 * (size_t)c->r->size * sizeof *s->counts);
  MPI_Gather(mine, 2, MPI_INT, s->counts, 2, MPI_INT, ZP_ROOT, comm);
  if (root) ierr = zp_serial_plan(c, s);
  MPI_Bcast(&ierr, 1, MPI_INT, ZP_ROOT, comm);
  if (ierr < 0) return ierr;
  MPI_Gatherv(s->obj_out, (int)((size_t)c->n * s->obj_bytes), MPI_BYTE, s->obj_in, s->obj_recv,
              s->obj_displ, MPI_BYTE, ZP_ROOT, comm);
  if (s->with_graph || s->with_hg)
    MPI_Gatherv(s->edge_out, (int)((size_t)s->local_edges * s->edge_bytes), MPI_BYTE, s->edge_in,
                s->edge_recv, s->edge_displ, MPI_BYTE, ZP_ROOT, comm);
  return ierr;
}

/* ---- step 3, root: sort and check ------------------------------------------- */

/* The arrival-order global IDs and ranks, and the order by global ID
 * (applications usually number their objects in rank order already:
 * checking costs one pass, sorting a merge sort). */
static int zp_serial_order(const zp_context *c, zp_serial *s)
{
  size_t N = s->num_obj, k;
  size_t *tmp = malloc((N + 1) * sizeof *tmp);
  int rank, j, ierr = ZOLTAN_OK;
  s->gids = malloc((N * c->ngid + 1) * sizeof *s->gids);
  s->procs = malloc((N + 1) * sizeof *s->procs);
  s->order = malloc((N + 1) * sizeof *s->order);
  if (tmp == NULL || s->gids == NULL || s->procs == NULL || s->order == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  for (k = 0; k < N; k++) {
    memcpy(s->gids + k * c->ngid, zp_record_at(s, k), s->id_bytes);
    s->order[k] = k;
  }
  for (rank = 0, k = 0; rank < c->r->size; rank++)
    for (j = 0; j < s->counts[2 * rank]; j++) s->procs[k++] = rank;
  for (k = 1; k < N; k++)
    if (zp_gid_cmp(s->gids + (k - 1) * c->ngid, s->gids + k * c->ngid, c->ngid) > 0) break;
  if (k < N) zp_sort_by_gid(s->order, tmp, N, s->gids, c->ngid);
End:
  free(tmp);
  return ierr;
}

/* The objects in GID order; a global ID given twice is an error. */
static int zp_serial_sort(const zp_context *c, zp_serial *s)
{
  size_t N = s->num_obj, k;
  char g[ZP_GID_TEXT];
  int ierr = zp_serial_order(c, s);
  if (ierr < 0) return ierr;
  s->sorted_gids = malloc((N * c->ngid + 1) * sizeof *s->sorted_gids);
  s->sorted_wgts = malloc((N * c->wdim + 1) * sizeof *s->sorted_wgts);
  s->sorted_parts = malloc((N + 1) * sizeof *s->sorted_parts);
  s->sorted_procs = malloc((N + 1) * sizeof *s->sorted_procs);
  if (s->geom_dim > 0) s->sorted_coords = malloc((N * s->geom_dim + 1) * sizeof *s->sorted_coords);
  if (s->with_sizes) s->sorted_sizes = malloc((N + 1) * sizeof *s->sorted_sizes);
  if (s->sorted_gids == NULL || s->sorted_wgts == NULL || s->sorted_parts == NULL ||
      s->sorted_procs == NULL || (s->geom_dim > 0 && s->sorted_coords == NULL) ||
      (s->with_sizes && s->sorted_sizes == NULL))
    return ZOLTAN_MEMERR;
  for (k = 0; k < N; k++) {
    size_t o = s->order[k];
    const unsigned char *rec = zp_record_at(s, o);
    memcpy(s->sorted_gids + k * c->ngid, s->gids + o * c->ngid, s->id_bytes);
    memcpy(s->sorted_wgts + k * c->wdim, rec + zp_off_wgts(s), (size_t)c->wdim * sizeof(double));
    memcpy(&s->sorted_parts[k], rec + zp_off_part(c, s), sizeof(int));
    if (s->geom_dim > 0)
      memcpy(s->sorted_coords + k * s->geom_dim, rec + zp_off_coords(c, s),
             (size_t)s->geom_dim * sizeof(double));
    if (s->with_sizes) memcpy(&s->sorted_sizes[k], rec + zp_off_size(c, s), sizeof(double));
    s->sorted_procs[k] = s->procs[o];
    if (k > 0 && zp_gid_cmp(s->sorted_gids + (k - 1) * c->ngid, s->sorted_gids + k * c->ngid,
                            c->ngid) == 0) {
      zp_format_gid(s->sorted_gids + k * c->ngid, c->ngid, g, sizeof g);
      zp_error(c->yo, "GID %s is given by rank %d and by rank %d; global IDs must be unique", g,
               s->sorted_procs[k - 1], s->sorted_procs[k]);
      return ZOLTAN_FATAL;
    }
  }
  return ZOLTAN_OK;
}

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

/* Root: the arrival-order edges, unpacked, and each object's first one. */
static int zp_serial_unpack_edges(const zp_context *c, zp_serial *s)
{
  size_t N = s->num_obj, E = s->num_edges, k, e = 0;
  s->edge_first = malloc((N + 1) * sizeof *s->edge_first);
  s->nbr = malloc((E * c->ngid + 1) * sizeof *s->nbr);
  s->edge_w = malloc((E * (size_t)s->edge_dim + 1) * sizeof *s->edge_w);
  if (s->edge_first == NULL || s->nbr == NULL || s->edge_w == NULL) return ZOLTAN_MEMERR;
  for (k = 0; k < N; k++) {
    int ne;
    memcpy(&ne, zp_record_at(s, k) + zp_off_nedges(c, s), sizeof ne);
    s->edge_first[k] = e;
    e += (size_t)ne;
  }
  for (k = 0; k < E; k++) {
    const unsigned char *rec = s->edge_in + k * s->edge_bytes;
    memcpy(s->nbr + k * c->ngid, rec, s->id_bytes);
    memcpy(s->edge_w + k * (size_t)s->edge_dim, rec + s->id_bytes,
           (size_t)s->edge_dim * sizeof(double));
  }
  return ZOLTAN_OK;
}

/* Root: the graph in GID order with neighbour positions; edges to objects
 * that do not exist are dropped with a warning. */
static int zp_serial_graph(const zp_context *c, zp_serial *s)
{
  size_t N = s->num_obj, E = s->num_edges, k, q, e = 0, dropped = 0, ew = (size_t)s->edge_dim;
  int ierr = zp_serial_unpack_edges(c, s);
  if (ierr < 0) return ierr;
  s->adj_start = malloc((N + 1) * sizeof *s->adj_start);
  s->adj = malloc((E + 1) * sizeof *s->adj);
  s->sorted_edge_w = malloc((E * ew + 1) * sizeof *s->sorted_edge_w);
  if (s->adj_start == NULL || s->adj == NULL || s->sorted_edge_w == NULL) return ZOLTAN_MEMERR;
  for (k = 0; k < N; k++) {
    size_t o = s->order[k];
    int ne;
    memcpy(&ne, zp_record_at(s, o) + zp_off_nedges(c, s), sizeof ne);
    s->adj_start[k] = e;
    for (q = 0; q < (size_t)ne; q++) {
      size_t src = s->edge_first[o] + q;
      long t = zp_find_gid(s->sorted_gids, N, s->nbr + src * c->ngid, c->ngid);
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
      memcpy(s->sorted_edge_w + e * ew, s->edge_w + src * ew, ew * sizeof *s->sorted_edge_w);
      e++;
    }
  }
  s->adj_start[N] = e;
  if (dropped && (c->needs & ZP_STRICT_GRAPH)) return ZOLTAN_FATAL;
  if (dropped) zp_warn(c->yo, "%zu edges name objects that do not exist; ignored", dropped);
  return ZOLTAN_OK;
}

/* ---- step 4, root: call the method ------------------------------------------- */

static int zp_serial_call(const zp_context *c, zp_serial *s)
{
  const zp_method *m = c->r->method;
  size_t N = s->num_obj, k;
  zp_problem pb;
  int ierr;
  s->new_part = malloc((N + 1) * sizeof *s->new_part);
  if (s->new_part == NULL) return ZOLTAN_MEMERR;
  memset(&pb, 0, sizeof pb);
  pb.num_obj = N;
  pb.num_gid_entries = c->ngid;
  pb.gids = s->sorted_gids;
  pb.wgt_dim = c->wdim;
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
  pb.params = c->r->params;
  pb.debug_level = c->debug_level;
  pb.lb_approach = zp_record_native_get(c->r, "LB_APPROACH", -1);
  pb.obj_sizes = s->sorted_sizes;
  ierr = N > 0 ? m->partition_serial(&pb, c->r->state, s->new_part) : ZOLTAN_OK;
  if (ierr < 0) return ierr;
  for (k = 0; k < N; k++) {
    if (s->new_part[k] < 0 || s->new_part[k] >= c->nparts) {
      zp_error(c->yo, "method %s assigned an object to part %d, outside [0, %d)", m->name,
               s->new_part[k], c->nparts);
      return ZOLTAN_FATAL;
    }
  }
  if (c->remap && !(c->needs & ZP_NO_REMAP) && c->pdist == NULL && N > 0) {
    int e = zp_remap(c, N, s->sorted_wgts, s->sorted_parts, s->new_part);
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
  if (ierr >= 0 && s->with_hg)
    ierr = zp_hg_graph(c, s->num_obj, s->sorted_gids, s->edge_in, s->num_edges, &s->adj_start,
                       &s->adj, &s->sorted_edge_w);
  if (ierr >= 0) {
    step = zp_serial_call(c, s);
    ierr = step < 0 ? step : (warn || step == ZOLTAN_WARN) ? ZOLTAN_WARN : ZOLTAN_OK;
  }
  return ierr;
}

/* ---- step 5, collective: scatter the answer ---------------------------------- */

/* Each rank's reply starts with the status, then its objects' new parts
 * in the order it gave them. */
static int zp_serial_scatter(const zp_context *c, zp_serial *s, int status, int *new_part)
{
  int rank;
  size_t k;
  if (c->r->rank == ZP_ROOT) {
    for (rank = 0; rank < c->r->size; rank++) s->replies[s->reply_displ[rank]] = status;
    for (k = 0; status >= 0 && k < s->num_obj; k++) {
      size_t o = s->order[k];
      rank = s->procs[o];
      s->replies[(size_t)s->reply_displ[rank] + 1 + (o - (size_t)s->obj_first[rank])] =
          s->new_part[k];
    }
  }
  MPI_Scatterv(s->replies, s->reply_count, s->reply_displ, MPI_INT, s->reply, c->n + 1, MPI_INT,
               ZP_ROOT, c->r->comm);
  if (s->reply[0] >= 0) memcpy(new_part, s->reply + 1, (size_t)c->n * sizeof *new_part);
  return s->reply[0];
}

int zp_run_serial(zp_context *c, int *new_part)
{
  zp_serial s;
  int ierr;
  zp_serial_layout(c, &s);
  ierr = zp_serial_gather(c, &s, zp_serial_pack(c, &s));
  if (ierr >= 0)
    ierr = zp_serial_scatter(c, &s, c->r->rank == ZP_ROOT ? zp_serial_solve(c, &s) : ZOLTAN_OK,
                             new_part);
  zp_serial_free(&s);
  return ierr;
}
