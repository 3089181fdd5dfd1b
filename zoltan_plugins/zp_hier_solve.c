/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steps 5 and 6 of a hierarchical run (zp_hier_run.c): the method on one
 * group's objects, and the tokens' parts sent back to where they came from.
 */
#include <stdlib.h>
#include <string.h>

#include "zp_hier_internal.h"

/* The rescaled tolerance of a group is taken this relative hair under its
 * exact value, so that rounding in the rescaled figures never puts a part
 * above the global limit that the flat method keeps. */
#define ZP_HIER_TOL_SHAVE 1e-12

/* The problem of one group, in global-ID order.  The big arrays are the
 * struct's kept buffers (zp_internal.h); the objects are read from where
 * they arrived (the gathered arrays and the tokens' records), so the only
 * copy is the sorted one that the method reads. */
typedef struct zp_hgroup {
  size_t N;              /* kept objects, then tokens */
  size_t nk;             /* kept objects */
  size_t *from;          /* of each: its index among the group's objects,
                            or the group's object count + its token index */
  size_t *idx, *tmp;     /* the sort's order and scratch */
  ZOLTAN_ID_TYPE *tgids; /* the tokens' IDs (malloc'd; few) */
  ZOLTAN_ID_TYPE *agids; /* all IDs in arrival order, only when the kept
                            objects did not arrive in order */
  ZOLTAN_ID_TYPE *sgids; /* sorted */
  double *sw;            /* weights, sorted */
  double *ssz;           /* sizes, sorted (NULL without) */
  int *cur, *procs;      /* sorted: current part (group numbering) and rank */
  double *psizes;        /* the group's part sizes (malloc'd) */
  double *tol;           /* the tolerances as the group's parts see them (malloc'd) */
  int *newp;             /* the method's answer, sorted */
  size_t *adj_start;     /* the graph among kept objects, sorted order, or NULL */
  size_t *adj;           /* neighbour positions */
  double *aw;            /* edim weights per entry of adj, or NULL */
} zp_hgroup;

static void zp_hgroup_free(zp_hgroup *g)
{
  free(g->tgids);
  free(g->psizes);
  free(g->tol);
  free(g->adj_start);
  free(g->adj);
  free(g->aw);
}

static int zp_hgroup_alloc(zp_hgroup *g, const zp_hrun *x)
{
  zp_record *r = x->c->r;
  size_t N = g->N, G = (size_t)x->ngid, W = (size_t)x->wdim, nt = N - g->nk;
  g->from = zp_record_scratch(r, ZP_SCR_H_FROM, N * sizeof *g->from);
  g->idx = zp_record_scratch(r, ZP_SCR_ORDER, N * sizeof *g->idx);
  g->tmp = zp_record_scratch(r, ZP_SCR_TMP, N * sizeof *g->tmp);
  g->tgids = malloc((nt * G + 1) * sizeof *g->tgids);
  g->sgids = zp_record_scratch(r, ZP_SCR_S_GIDS, N * G * sizeof *g->sgids);
  g->sw = zp_record_scratch(r, ZP_SCR_S_WGTS, N * W * sizeof *g->sw);
  g->cur = zp_record_scratch(r, ZP_SCR_S_PARTS, N * sizeof *g->cur);
  g->procs = zp_record_scratch(r, ZP_SCR_PROCS, N * sizeof *g->procs);
  g->psizes = malloc(((size_t)x->mq * W + 1) * sizeof *g->psizes);
  g->newp = zp_record_scratch(r, ZP_SCR_NEW, N * sizeof *g->newp);
  g->tol = malloc(W * sizeof *g->tol);
  if (x->with_sizes) g->ssz = zp_record_scratch(r, ZP_SCR_S_SIZES, N * sizeof *g->ssz);
  return g->from && g->idx && g->tmp && g->tgids && g->sgids && g->sw && g->cur && g->procs &&
                 g->psizes && g->newp && g->tol && (!x->with_sizes || g->ssz)
             ? ZOLTAN_OK
             : ZOLTAN_MEMERR;
}

/* The group member (rank in the group) that sent the group's object o:
 * the last member whose first object is at or before o (a member without
 * objects shares its first index with the next one). */
static int zp_member_of(const zp_hrun *x, size_t o)
{
  int lo = 0, hi = x->gsize;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if ((size_t)x->displ[mid] <= o)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Lexicographic order of two global IDs. */
static int zp_hgid_cmp(const ZOLTAN_ID_TYPE *a, const ZOLTAN_ID_TYPE *b, int ngid)
{
  int k;
  for (k = 0; k < ngid; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

/* The global ID of the object at arrival position a (kept objects first,
 * then tokens). */
static const ZOLTAN_ID_TYPE *zp_hgroup_gid(const zp_hgroup *g, const zp_hrun *x, size_t a)
{
  return a < g->nk ? x->gids + g->from[a] * (size_t)x->ngid
                   : g->tgids + (a - g->nk) * (size_t)x->ngid;
}

/* g->idx: the arrival positions in global-ID order.  The kept objects
 * usually arrive in order (applications number them by rank): then only
 * the tokens are sorted and the two runs merged, in time linear in the
 * kept ones.  Otherwise every ID is copied once and all are sorted. */
static int zp_hgroup_order(zp_hgroup *g, const zp_hrun *x)
{
  size_t k, nk = g->nk, N = g->N, a = 0, b, t = 0, G = (size_t)x->ngid;
  int sorted = 1, ngid = x->ngid;
  for (k = 1; sorted && k < nk; k++)
    sorted = zp_hgid_cmp(zp_hgroup_gid(g, x, k - 1), zp_hgroup_gid(g, x, k), ngid) < 0;
  if (!sorted) {
    g->agids = zp_record_scratch(x->c->r, ZP_SCR_H_AGIDS, N * G * sizeof *g->agids);
    if (g->agids == NULL) return ZOLTAN_MEMERR;
    for (k = 0; k < N; k++) {
      memcpy(g->agids + k * G, zp_hgroup_gid(g, x, k), G * sizeof *g->agids);
      g->idx[k] = k;
    }
    zp_sort_by_gid(g->idx, g->tmp, N, g->agids, ngid);
    return ZOLTAN_OK;
  }
  for (k = 0; k < N - nk; k++) g->idx[nk + k] = k;
  zp_sort_by_gid(g->idx + nk, g->tmp, N - nk, g->tgids, ngid);
  for (k = nk; k < N; k++) g->idx[k] += nk;
  for (k = 0; k < nk; k++) g->idx[k] = k;
  b = nk;
  while (a < nk && b < N)
    g->tmp[t++] = zp_hgid_cmp(zp_hgroup_gid(g, x, g->idx[b]), zp_hgroup_gid(g, x, a), ngid) < 0
                      ? g->idx[b++]
                      : a++;
  while (a < nk) g->tmp[t++] = a++;
  while (b < N) g->tmp[t++] = g->idx[b++];
  memcpy(g->idx, g->tmp, N * sizeof *g->idx);
  return ZOLTAN_OK;
}

/* Kept objects and tokens into one list, sorted by global ID, with each
 * object's part in the group's numbering and its rank in the group (-1 for
 * a token, which comes from another group).  The copies are written per
 * element for one ID entry and one weight, the usual case: a memcpy call
 * per object costs more than the copy. */
static int zp_hgroup_fill(zp_hgroup *g, const zp_hrun *x)
{
  size_t G = (size_t)x->ngid, W = (size_t)x->wdim, gb = G * sizeof(ZOLTAN_ID_TYPE), k, a = 0;
  int ierr;
  for (k = 0; k < x->n; k++)
    if (!x->take[k]) g->from[a++] = k;
  for (k = 0; k < x->ndown; k++, a++) {
    g->from[a] = x->n + k;
    memcpy(g->tgids + k * G, x->down + k * x->rec, gb);
  }
  ierr = zp_hgroup_order(g, x);
  if (ierr < 0) return ierr;
  for (k = 0; k < g->N; k++) {
    size_t o = g->from[g->idx[k]], e;
    if (o < x->n) {
      if (G == 1)
        g->sgids[k] = x->gids[o];
      else
        for (e = 0; e < G; e++) g->sgids[k * G + e] = x->gids[o * G + e];
      if (W == 1)
        g->sw[k] = x->w[o];
      else
        for (e = 0; e < W; e++) g->sw[k * W + e] = x->w[o * W + e];
      if (x->with_sizes) g->ssz[k] = x->sizes[o];
      g->cur[k] = x->parts[o] >= 0 ? zp_local_part(x, x->parts[o]) : -1;
      g->procs[k] = zp_member_of(x, o);
    } else {
      const unsigned char *t = x->down + (o - x->n) * x->rec;
      memcpy(g->sgids + k * G, t, gb);
      memcpy(g->sw + k * W, t + gb, W * sizeof(double));
      if (x->with_sizes) memcpy(g->ssz + k, t + gb + W * sizeof(double), sizeof(double));
      g->cur[k] = -1;
      g->procs[k] = -1;
    }
  }
  return ZOLTAN_OK;
}

/* The group's part sizes: the global ones of its parts, rescaled so that
 * each weight's column sums to 1 (equal when they are all zero). */
static void zp_hgroup_sizes(zp_hgroup *g, const zp_hrun *x)
{
  int q, d, W = x->wdim;
  for (d = 0; d < W; d++) {
    double sum = 0.0;
    for (q = 0; q < x->mq; q++) sum += x->c->part_sizes[(size_t)x->lp[q] * W + d];
    for (q = 0; q < x->mq; q++)
      g->psizes[(size_t)q * W + d] =
          sum > 0.0 ? x->c->part_sizes[(size_t)x->lp[q] * W + d] / sum : 1.0 / x->mq;
  }
}

/* The group's parts are rescaled to the group's load, so a tolerance
 * inside the group is relative to the group's mean; the first weight's is
 * rescaled so that it means the global target times IMBALANCE_TOL, as in
 * the flat path (never below 1). */
static void zp_hgroup_tol(zp_hgroup *g, const zp_hrun *x)
{
  size_t k;
  double sum = 0.0;
  int d;
  for (d = 0; d < x->wdim; d++) g->tol[d] = x->c->tol[d];
  for (k = 0; k < g->N; k++) sum += g->sw[k * x->wdim];
  if (sum > 0.0 && x->target > 0.0) {
    g->tol[0] = x->c->tol[0] * x->target / sum * (1.0 - ZP_HIER_TOL_SHAVE);
    if (g->tol[0] < 1.0) g->tol[0] = 1.0;
  }
}

/* The edge list of the object at sorted position k, when the group has it:
 * a kept object's, or a token's that a flow brought with its edges
 * (zp_hier_flow.c; those are the last x->nfin tokens).  Returns 0 for a
 * token of the tree, whose list stayed with its group. */
static int zp_hgroup_list(const zp_hgroup *g, const zp_hrun *x, size_t k, size_t *n,
                          const ZOLTAN_ID_TYPE **nbr, const double **ew)
{
  size_t o = g->from[g->idx[k]], G = (size_t)x->ngid, ed = (size_t)x->edim, first, j;
  if (o < x->n) {
    *n = (size_t)x->nedges[o];
    *nbr = x->nbr + x->estart[o] * G;
    *ew = ed > 0 ? x->ew + x->estart[o] * ed : NULL;
    return 1;
  }
  first = x->ndown - x->nfin;
  if (o - x->n < first) return 0;
  j = o - x->n - first;
  *n = (size_t)x->fin_ne[j];
  *nbr = x->fin_nbr + x->fin_es[j] * G;
  *ew = ed > 0 ? x->fin_ew + x->fin_es[j] * ed : NULL;
  return 1;
}

/* The edges of the group's problem, in the sorted order, from the lists
 * the group has: the kept objects' and those the flows' tokens brought.
 * An edge from such an object to a token of the tree (whose list is not
 * here) is mirrored, so that the token lands next to the objects its edges
 * reach and the graph stays symmetric; an edge between two tokens of the
 * tree, or to another group's object, is left out.  A refining method
 * sees the edges between kept objects only, as it always has.  Local. */
static int zp_hgroup_graph(zp_hgroup *g, const zp_hrun *x)
{
  size_t k, e, total = 0, G = (size_t)x->ngid, ed = (size_t)x->edim, *fill = NULL;
  int tokens = !(x->c->needs & ZP_REFINES), pass, ierr;
  zp_gidmap map;
  g->adj_start = calloc(g->N + 1, sizeof *g->adj_start);
  fill = malloc((g->N + 1) * sizeof *fill);
  if (!g->adj_start || !fill) {
    free(fill);
    return ZOLTAN_MEMERR;
  }
  ierr = zp_gidmap_build(&map, g->sgids, g->N, x->ngid);
  /* Pass 0 counts each object's entries, pass 1 writes them. */
  for (pass = 0; ierr >= 0 && pass < 2; pass++) {
    if (pass == 1) {
      for (k = 0; k < g->N; k++) {
        fill[k] = total;
        total += g->adj_start[k];
      }
      for (k = 0; k < g->N; k++) g->adj_start[k] = fill[k];
      g->adj_start[g->N] = total;
      g->adj = malloc((total + 1) * sizeof *g->adj);
      if (ed > 0) g->aw = malloc((total * ed + 1) * sizeof *g->aw);
      if (!g->adj || (ed > 0 && !g->aw)) {
        ierr = ZOLTAN_MEMERR;
        break;
      }
    }
    for (k = 0; k < g->N; k++) {
      size_t n;
      const ZOLTAN_ID_TYPE *nbr;
      const double *ew;
      int mine_kept = g->from[g->idx[k]] < x->n;
      if (!zp_hgroup_list(g, x, k, &n, &nbr, &ew)) continue;
      if (!mine_kept && !tokens) continue;
      for (e = 0; e < n; e++) {
        long t = zp_gidmap_find(&map, nbr + e * G);
        size_t tn;
        const ZOLTAN_ID_TYPE *tnbr;
        const double *tew;
        int mirror;
        if (t < 0 || (size_t)t == k) continue;
        if (!tokens && g->from[g->idx[t]] >= x->n) continue;
        mirror = !zp_hgroup_list(g, x, (size_t)t, &tn, &tnbr, &tew);
        if (pass == 0) {
          g->adj_start[k]++;
          if (mirror) g->adj_start[t]++;
          continue;
        }
        g->adj[fill[k]] = (size_t)t;
        if (ed > 0) memcpy(g->aw + fill[k] * ed, ew + e * ed, ed * sizeof *g->aw);
        fill[k]++;
        if (mirror) {
          g->adj[fill[t]] = k;
          if (ed > 0) memcpy(g->aw + fill[t] * ed, ew + e * ed, ed * sizeof *g->aw);
          fill[t]++;
        }
      }
    }
  }
  zp_gidmap_free(&map);
  free(fill);
  return ierr;
}

/* For a method that keeps objects in place (ZP_NO_REMAP: REFINE,
 * GREEDYREFINE), the objects in none of the group's parts (the tokens
 * among them) start in the part with the most room below its target,
 * heaviest first (hier_place), so that the method refines a complete
 * assignment that already counts them, instead of placing them from
 * scratch.  Local. */
static int zp_hgroup_start(zp_hgroup *g, const zp_hrun *x)
{
  size_t k, n = 0, W = (size_t)x->wdim, nt = 0;
  int q, M = x->mq, ierr = ZOLTAN_OK;
  double total = 0.0, *room, *w;
  size_t *at, *order;
  int *heap, *child;
  unsigned char *open;
  /* Only the objects outside the group's parts are placed (the tokens,
   * and objects in another group's parts): arrays of their number, not of
   * the group's. */
  for (k = 0; k < g->N; k++) nt += g->cur[k] < 0;
  room = malloc(((size_t)M + 1) * sizeof *room);
  w = calloc(nt + 1, sizeof *w);
  at = malloc((nt + 1) * sizeof *at);
  order = malloc((nt + 1) * sizeof *order);
  heap = malloc(((size_t)M + 1) * sizeof *heap);
  child = malloc((nt + 1) * sizeof *child);
  open = malloc((size_t)M + 1);
  if (!room || !w || !at || !order || !heap || !child || !open) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  for (k = 0; k < g->N; k++) total += g->sw[k * W];
  for (q = 0; q < M; q++) {
    room[q] = g->psizes[(size_t)q * W] * total;
    open[q] = 1;
  }
  for (k = 0; k < g->N; k++) {
    if (g->cur[k] >= 0) {
      room[g->cur[k]] -= g->sw[k * W];
    } else {
      at[n] = k;
      w[n++] = g->sw[k * W];
    }
  }
  (void)hier_place(w, n, room, NULL, open, M, 1, order, heap, child);
  for (k = 0; k < n; k++) g->cur[at[k]] = child[k];
End:
  free(room);
  free(w);
  free(at);
  free(order);
  free(heap);
  free(child);
  free(open);
  return ierr;
}

/* A global ID twice in one group is an error, as in the flat path (two
 * groups cannot see each other's IDs: docs/hierarchy.md). */
static int zp_hgroup_unique(const zp_hgroup *g, const zp_hrun *x)
{
  size_t k, G = (size_t)x->ngid;
  for (k = 1; k < g->N; k++)
    if (zp_hgid_cmp(g->sgids + (k - 1) * G, g->sgids + k * G, x->ngid) == 0) {
      char txt[ZP_GID_TEXT];
      zp_format_gid(g->sgids + k * G, x->ngid, txt, sizeof txt);
      zp_error(x->c->yo, "GID %s is given twice; global IDs must be unique", txt);
      return ZOLTAN_FATAL;
    }
  return ZOLTAN_OK;
}

static int zp_hgroup_call(zp_hgroup *g, zp_hrun *x)
{
  zp_context *c = x->c;
  const zp_method *m = c->r->method;
  zp_problem pb;
  int ierr;
  zp_problem_common(&pb, c);
  pb.num_obj = g->N;
  pb.gids = g->sgids;
  pb.wgts = g->sw;
  pb.cur_part = g->cur;
  pb.cur_proc = g->procs;
  pb.num_parts = x->mq;
  pb.num_procs = x->gsize;
  pb.part_sizes = g->psizes;
  pb.imbalance_tol = g->tol;
  pb.obj_sizes = g->ssz;
  if (g->adj_start != NULL) {
    pb.adj_start = g->adj_start;
    pb.adj = g->adj;
    pb.ewgt_dim = x->edim;
    pb.ewgts = x->edim > 0 ? g->aw : NULL;
  }
  ierr = m->partition_serial(&pb, c->r->state, g->newp);
  if (ierr >= 0 && zp_check_answer(c, g->newp, g->N, x->mq) < 0) ierr = ZOLTAN_FATAL;
  /* REMAP as in the flat path, among the group's parts: the method numbers
   * its parts afresh, and without this a group would move the objects it
   * keeps more often than the flat method moves them. */
  if (ierr >= 0 && c->remap && !(c->needs & ZP_NO_REMAP) && c->pdist == NULL) {
    zp_remap_in in = {c->r, x->mq, x->wdim, g->psizes};
    int e = zp_remap(&in, g->N, g->sw, g->cur, g->newp);
    if (e < 0) ierr = e;
  }
  return ierr;
}

/* Tokens that came home are the group's own objects again: kept where
 * they are, with their current parts; they leave the token list. */
static void zp_hier_take_home(zp_hrun *x)
{
  size_t k, left = 0;
  for (k = 0; k < x->ndown; k++) {
    unsigned char *t = x->down + k * x->rec;
    int origin, idx, home;
    zp_tok_origin(x, t, &origin, &idx, &home);
    if (home && origin == x->c->r->rank && (size_t)idx < x->n) {
      x->take[idx] = 0;
      continue;
    }
    if (left != k) memmove(x->down + left * x->rec, t, x->rec);
    left++;
  }
  x->ndown = left;
}

int zp_hier_solve(zp_hrun *x, int **tok_part)
{
  zp_hgroup g;
  size_t k;
  int ierr;
  memset(&g, 0, sizeof g);
  zp_hier_take_home(x);
  for (k = 0; k < x->n; k++) g.nk += !x->take[k];
  g.N = g.nk + x->ndown;
  *tok_part = malloc((x->ndown + 1) * sizeof **tok_part);
  ierr = *tok_part != NULL ? zp_hgroup_alloc(&g, x) : ZOLTAN_MEMERR;
  if (ierr >= 0 && g.N > 0) {
    ierr = zp_hgroup_fill(&g, x);
    if (ierr >= 0) ierr = zp_hgroup_unique(&g, x);
    if (ierr >= 0 && x->with_graph) ierr = zp_hgroup_graph(&g, x);
    if (ierr >= 0) {
      zp_hgroup_sizes(&g, x);
      zp_hgroup_tol(&g, x);
      if (x->c->needs & ZP_NO_REMAP) ierr = zp_hgroup_start(&g, x);
    }
    if (ierr >= 0) ierr = zp_hgroup_call(&g, x);
    for (k = 0; ierr >= 0 && k < g.N; k++) {
      size_t o = g.from[g.idx[k]];
      int part = x->lp[g.newp[k]];
      if (o < x->n)
        x->answer[o] = part;
      else
        (*tok_part)[o - x->n] = part;
    }
  }
  zp_hgroup_free(&g);
  return ierr;
}

/* ---- step 6: the tokens' parts back --------------------------------------------- */

/* One answer message: (index, part) pairs for objects of the receiver. */
static void zp_hier_recv(void *data, const MPI_Status *st)
{
  zp_hrun *x = data;
  int n = 0, k;
  MPI_Get_count(st, MPI_INT, &n);
  /* At most one pair per object the receiver shed: x->reply holds that. */
  MPI_Recv(x->reply, n, MPI_INT, st->MPI_SOURCE, st->MPI_TAG, x->c->r->comm, MPI_STATUS_IGNORE);
  for (k = 0; k + 1 < n; k += 2)
    if (x->reply[k] >= 0 && (size_t)x->reply[k] < x->n) x->answer[x->reply[k]] = x->reply[k + 1];
}

/* Tokens in order of the rank they came from (ties by position). */
static int zp_by_origin(const void *a, const void *b)
{
  const int *p = a, *q = b;
  if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
  return p[1] < q[1] ? -1 : p[1] > q[1];
}

int zp_hier_reply(zp_hrun *x, const int *tok_part)
{
  size_t k, n = x->ndown, first;
  int *key = malloc((2 * n + 1) * sizeof *key), *msg = malloc((2 * n + 1) * sizeof *msg);
  MPI_Request *req = malloc((n + 1) * sizeof *req);
  int nsend = 0, ierr = ZOLTAN_OK;
  if (key == NULL || msg == NULL || req == NULL) ierr = ZOLTAN_MEMERR;
  /* Carries the solve's outcome too (x->pending). */
  ierr = zp_hier_agree(x, ierr);
  if (ierr < 0) goto End;
  for (k = 0; k < n; k++) {
    int origin, idx, home;
    zp_tok_origin(x, x->down + k * x->rec, &origin, &idx, &home);
    key[2 * k] = origin;
    key[2 * k + 1] = (int)k;
  }
  qsort(key, n, 2 * sizeof *key, zp_by_origin);
  for (first = 0; first < n;) {
    size_t last = first;
    while (last < n && key[2 * last] == key[2 * first]) {
      int origin, idx, home;
      zp_tok_origin(x, x->down + (size_t)key[2 * last + 1] * x->rec, &origin, &idx, &home);
      msg[2 * last] = idx;
      msg[2 * last + 1] = tok_part[key[2 * last + 1]];
      last++;
    }
    MPI_Issend(msg + 2 * first, (int)(2 * (last - first)), MPI_INT, key[2 * first], ZP_HIER_TAG,
               x->c->r->comm, &req[nsend++]);
    first = last;
  }
  zp_nbx(x->c->r->comm, ZP_HIER_TAG, nsend, req, zp_hier_recv, x);
End:
  free(key);
  free(msg);
  free(req);
  return ierr;
}
