/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flows between groups (step 1c of a hierarchical run, zp_hier_run.c), for
 * a graph method that does not refine (SCOTCHLB).  The tree's tokens go to
 * whichever group has room, which for a graph method cuts every edge of
 * the object it moves: when a hot region is wider than one group, its
 * neighbours have no room for it, and the flat method would instead shift
 * the boundaries of every part between the region and the cold ones.  So
 * the load first travels along the group graph (two groups are neighbours
 * when an edge joins them), as DIFFUSION sends it between ranks: the top
 * of the tree solves the diffusion over one record per group and splits
 * the flows into routes (hier_flow_routes: hop by hop, or straight to the
 * group that takes the load when that cuts less than it saves in moves),
 * and each group sends each route's amount as the layer of objects on its
 * border with the route's first neighbour, straight to the destination's
 * root.  What the flows leave (objects are whole, and groups without a
 * path between them) goes through the tree as before.
 */
#include <stdlib.h>
#include <string.h>

#include "zp_hier_internal.h"

/* The tag of the flows' tokens on the struct's communicator. */
#define ZP_HIER_FLOW_TAG (ZP_HIER_TAG + 1)

int zp_hier_flows_on(const zp_hrun *x)
{
  return x->with_graph && !(x->c->needs & ZP_REFINES) && x->h->spec.kind == HIER_SIZES &&
         x->h->spec.size[0] < x->c->r->size;
}

double zp_hier_flow_headroom(const zp_hrun *x)
{
  double tol = x->c->tol[0] > 1.0 ? x->c->tol[0] : 1.0;
  return 1.0 + 0.5 * (tol - 1.0);
}

/* The doubles of a group's record before its (neighbour, weight) pairs. */
#define ZP_FLOW_HEAD 5

/* A pair (neighbour group, weight) of a group's record. */
static int zp_by_pair(const void *a, const void *b)
{
  const double *p = a, *q = b;
  return p[0] < q[0] ? -1 : p[0] > q[0];
}

/* Root: this group's record: its load, its target, its object count, its
 * mean edge weight, the number of neighbour groups, then (group, edge
 * weight to it) for each, ascending.  *rec is malloc'd; *len its doubles. */
static int zp_flow_record(zp_hrun *x, int me, double **rec, int *len)
{
  size_t k, e, E = x->estart[x->n], np = 0, u = 0;
  double load = 0.0, ew = 0.0, *pairs = malloc((2 * E + 1) * sizeof *pairs);
  if (pairs == NULL) return ZOLTAN_MEMERR;
  for (k = 0; k < x->n; k++) load += x->w0[k];
  for (e = 0; e < E; e++) ew += x->edim > 0 ? x->ew[e * (size_t)x->edim] : 1.0;
  for (e = 0; e < E; e++)
    if (x->egroup[e] >= 0 && x->egroup[e] != me) {
      pairs[2 * np] = (double)x->egroup[e];
      pairs[2 * np + 1] = x->edim > 0 ? x->ew[e * (size_t)x->edim] : 1.0;
      np++;
    }
  qsort(pairs, np, 2 * sizeof *pairs, zp_by_pair);
  for (k = 0; k < np; k++) {
    if (u > 0 && pairs[2 * (u - 1)] == pairs[2 * k]) {
      pairs[2 * (u - 1) + 1] += pairs[2 * k + 1];
      continue;
    }
    pairs[2 * u] = pairs[2 * k];
    pairs[2 * u + 1] = pairs[2 * k + 1];
    u++;
  }
  *rec = malloc((ZP_FLOW_HEAD + 2 * u) * sizeof **rec);
  if (*rec == NULL) {
    free(pairs);
    return ZOLTAN_MEMERR;
  }
  (*rec)[0] = load;
  (*rec)[1] = x->open ? x->target : 0.0;
  (*rec)[2] = (double)x->n;
  (*rec)[3] = E > 0 ? ew / (double)E : 1.0;
  (*rec)[4] = (double)u;
  memcpy(*rec + ZP_FLOW_HEAD, pairs, 2 * u * sizeof *pairs);
  *len = (int)(ZP_FLOW_HEAD + 2 * u);
  free(pairs);
  return ZOLTAN_OK;
}

/* The edge weight group q's record gives to group t, 0 when none. */
static double zp_flow_pair(const double *r, int t)
{
  size_t k;
  for (k = 0; k < (size_t)r[4]; k++)
    if ((int)r[ZP_FLOW_HEAD + 2 * k] == t) return r[ZP_FLOW_HEAD + 2 * k + 1];
  return 0.0;
}

/* Top: the routes of every group from the records (all, m groups, group
 * q's record at displ[q]); out[q] receives (destination, amount > 0,
 * border group) triples of what q sends, ocnt[q] their doubles, odsp[q]
 * where they start.  Local. */
static int zp_flow_solve(int m, const double *all, const int *displ, double headroom, double **out,
                         int *ocnt, int *odsp)
{
  double *load = malloc(((size_t)m + 1) * sizeof *load);
  double *target = malloc(((size_t)m + 1) * sizeof *target);
  double *unit = malloc(((size_t)m + 1) * sizeof *unit);
  size_t *start = calloc((size_t)m + 1, sizeof *start), total = 0, k, *fill = NULL, nr = 0;
  int *adj = NULL, q, ierr = ZOLTAN_MEMERR;
  double *flow = NULL, *border = NULL;
  hier_route *r = NULL;
  if (!load || !target || !unit || !start) goto End;
  /* Links in both directions (an edge may be listed on one side only),
   * without repeats: count, fill, then sort and squeeze each row. */
  for (q = 0; q < m; q++) {
    const double *rq = all + displ[q];
    load[q] = rq[0];
    target[q] = rq[1];
    /* What moving one unit of load costs in mean edges (objects per load). */
    unit[q] = rq[0] > 0.0 ? rq[3] * rq[2] / rq[0] : 0.0;
    for (k = 0; k < (size_t)rq[4]; k++) {
      int t = (int)rq[ZP_FLOW_HEAD + 2 * k];
      if (t < 0 || t >= m || t == q) continue;
      start[q]++;
      start[t]++;
    }
  }
  for (q = 0; q < m; q++) {
    size_t c = start[q];
    start[q] = total;
    total += c;
  }
  start[m] = total;
  adj = malloc((total + 1) * sizeof *adj);
  fill = malloc(((size_t)m + 1) * sizeof *fill);
  flow = malloc((total + 1) * sizeof *flow);
  border = malloc((total + 1) * sizeof *border);
  if (!adj || !fill || !flow || !border) goto End;
  for (q = 0; q < m; q++) fill[q] = start[q];
  for (q = 0; q < m; q++) {
    const double *rq = all + displ[q];
    for (k = 0; k < (size_t)rq[4]; k++) {
      int t = (int)rq[ZP_FLOW_HEAD + 2 * k];
      if (t < 0 || t >= m || t == q) continue;
      adj[fill[q]++] = t;
      adj[fill[t]++] = q;
    }
  }
  {
    size_t at = 0, from;
    for (q = 0; q < m; q++) {
      size_t i, j;
      from = start[q];
      start[q] = at;
      /* Insertion sort: a group has few neighbours. */
      for (i = from + 1; i < fill[q]; i++)
        for (j = i; j > from && adj[j - 1] > adj[j]; j--) {
          int t = adj[j];
          adj[j] = adj[j - 1];
          adj[j - 1] = t;
        }
      for (i = from; i < fill[q]; i++)
        if (i == from || adj[i] != adj[i - 1]) adj[at++] = adj[i];
    }
    start[m] = at;
  }
  for (q = 0; q < m; q++)
    for (k = start[q]; k < start[q + 1]; k++) {
      double w = zp_flow_pair(all + displ[q], adj[k]);
      border[k] = w > 0.0 ? w : zp_flow_pair(all + displ[adj[k]], q);
    }
  if (hier_group_flows(m, load, target, start, adj, 1.0 / headroom, flow) < 0 ||
      hier_flow_routes(m, start, adj, flow, border, unit, &r, &nr) < 0)
    goto End;
  *out = malloc((3 * nr + 1) * sizeof **out);
  if (*out == NULL) goto End;
  for (q = 0; q < m; q++) ocnt[q] = odsp[q] = 0;
  for (k = 0; k < nr; k++) {
    /* Routes come sorted by source: each group's triples are contiguous. */
    if (ocnt[r[k].src] == 0) odsp[r[k].src] = (int)(3 * k);
    ocnt[r[k].src] += 3;
    (*out)[3 * k] = (double)r[k].dst;
    (*out)[3 * k + 1] = r[k].amount;
    (*out)[3 * k + 2] = (double)r[k].first;
  }
  ierr = ZOLTAN_OK;
End:
  free(load);
  free(target);
  free(unit);
  free(start);
  free(adj);
  free(fill);
  free(flow);
  free(border);
  free(r);
  return ierr;
}

/* Root: the records of every group on the top, the flows back.  *mine
 * (malloc'd, *nmine doubles) receives this group's routes, as
 * (destination, amount, border group) triples.
 * Collective over the roots' communicator. */
static int zp_flow_exchange(zp_hrun *x, double **mine, int *nmine)
{
  MPI_Comm rc = x->h->bottom_roots;
  int me, m, len = 0, *cnt = NULL, *dsp = NULL, *ocnt = NULL, *odsp = NULL, q, err = ZOLTAN_OK;
  double *rec = NULL, *all = NULL, *out = NULL;
  long long total = 0;
  MPI_Comm_rank(rc, &me);
  MPI_Comm_size(rc, &m);
  if (x->pending < 0 || zp_hier_group_csr(x) < 0 || zp_flow_record(x, me, &rec, &len) < 0) {
    /* A record that asks for nothing; the error is agreed after. */
    free(rec);
    rec = calloc(ZP_FLOW_HEAD, sizeof *rec);
    len = rec ? ZP_FLOW_HEAD : 0;
    err = ZOLTAN_MEMERR;
  }
  if (me == 0) {
    cnt = malloc((size_t)m * sizeof *cnt);
    dsp = malloc((size_t)m * sizeof *dsp);
    ocnt = calloc((size_t)m, sizeof *ocnt);
    odsp = calloc((size_t)m, sizeof *odsp);
    if (!cnt || !dsp || !ocnt || !odsp) err = ZOLTAN_MEMERR;
  }
  MPI_Gather(&len, 1, MPI_INT, cnt, 1, MPI_INT, 0, rc);
  for (q = 0; me == 0 && cnt != NULL && dsp != NULL && q < m; q++) {
    dsp[q] = (int)total;
    total += cnt[q];
  }
  if (me == 0 && cnt != NULL && dsp != NULL &&
      (all = malloc((size_t)total * sizeof *all + 1)) == NULL)
    err = ZOLTAN_MEMERR;
  MPI_Gatherv(rec, len, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, 0, rc);
  if (me == 0 && all != NULL && ocnt != NULL && odsp != NULL) {
    /* A group whose record is short (its root failed) asks for nothing. */
    for (q = 0; q < m; q++)
      if (cnt[q] < ZP_FLOW_HEAD || cnt[q] != ZP_FLOW_HEAD + 2 * (int)all[dsp[q] + 4])
        err = ZOLTAN_FATAL;
    if (err == ZOLTAN_OK &&
        zp_flow_solve(m, all, dsp, zp_hier_flow_headroom(x), &out, ocnt, odsp) < 0)
      err = ZOLTAN_MEMERR;
    if (err != ZOLTAN_OK)
      for (q = 0; q < m; q++) ocnt[q] = odsp[q] = 0;
  }
  MPI_Scatter(ocnt, 1, MPI_INT, nmine, 1, MPI_INT, 0, rc);
  *mine = malloc(((size_t)*nmine + 1) * sizeof **mine);
  if (*mine == NULL) {
    err = ZOLTAN_MEMERR;
  }
  MPI_Scatterv(out, ocnt, odsp, MPI_DOUBLE, *mine, *mine ? *nmine : 0, MPI_DOUBLE, 0, rc);
  if (*mine == NULL) *nmine = 0;
  free(rec);
  free(all);
  free(out);
  free(cnt);
  free(dsp);
  free(ocnt);
  free(odsp);
  return err;
}

/* A message of flow tokens: their count (8 bytes), the tokens, then each
 * token's edge count (ints), its neighbours' global IDs and the edges'
 * weights, each section padded to 8 bytes, so that the receiving group
 * sees the edges among the tokens of a layer too. */
static size_t zp_pad8(size_t b) { return (b + 7) / 8 * 8; }

static size_t zp_flow_msg_bytes(const zp_hrun *x, size_t ntok, size_t nedges)
{
  return 8 + ntok * x->rec + zp_pad8(ntok * sizeof(int)) +
         zp_pad8(nedges * (size_t)x->ngid * sizeof(ZOLTAN_ID_TYPE)) +
         nedges * (size_t)x->edim * sizeof(double);
}

/* Grow *p (elem bytes each) from have to have + more entries. */
static int zp_flow_grow(void **p, size_t elem, size_t have, size_t more)
{
  void *q = realloc(*p, (have + more) * elem + 1);
  if (q == NULL) return -1;
  *p = q;
  return 0;
}

/* One message of flow tokens: appended to x->fin and its edges. */
static void zp_flow_recv(void *data, const MPI_Status *st)
{
  zp_hrun *x = data;
  int bytes = 0;
  long long nt = 0;
  size_t k, ntok, E = 0, at, G = (size_t)x->ngid, ed = (size_t)x->edim;
  unsigned char *msg;
  MPI_Get_count(st, MPI_BYTE, &bytes);
  msg = malloc((size_t)bytes + 1);
  MPI_Recv(msg, msg ? bytes : 0, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, x->c->r->comm,
           MPI_STATUS_IGNORE);
  if (msg == NULL || bytes < 8) {
    x->pending = ZOLTAN_MEMERR;
    free(msg);
    return;
  }
  memcpy(&nt, msg, sizeof nt);
  ntok = (size_t)nt;
  at = 8 + ntok * x->rec;
  for (k = 0; k < ntok; k++) {
    int ne;
    memcpy(&ne, msg + at + k * sizeof(int), sizeof ne);
    E += (size_t)ne;
  }
  if (zp_flow_msg_bytes(x, ntok, E) != (size_t)bytes ||
      zp_flow_grow((void **)&x->fin, x->rec, x->nfin, ntok) < 0 ||
      zp_flow_grow((void **)&x->fin_ne, sizeof *x->fin_ne, x->nfin, ntok) < 0) {
    x->pending = ZOLTAN_MEMERR;
    free(msg);
    return;
  }
  {
    size_t have = 0;
    for (k = 0; k < x->nfin; k++) have += (size_t)x->fin_ne[k];
    if (zp_flow_grow((void **)&x->fin_nbr, G * sizeof *x->fin_nbr, have, E) < 0 ||
        (ed > 0 && zp_flow_grow((void **)&x->fin_ew, ed * sizeof *x->fin_ew, have, E) < 0)) {
      x->pending = ZOLTAN_MEMERR;
      free(msg);
      return;
    }
    memcpy(x->fin + x->nfin * x->rec, msg + 8, ntok * x->rec);
    memcpy(x->fin_ne + x->nfin, msg + at, ntok * sizeof(int));
    at += zp_pad8(ntok * sizeof(int));
    memcpy(x->fin_nbr + have * G, msg + at, E * G * sizeof *x->fin_nbr);
    at += zp_pad8(E * G * sizeof *x->fin_nbr);
    if (ed > 0) memcpy(x->fin_ew + have * ed, msg + at, E * ed * sizeof *x->fin_ew);
  }
  x->nfin += ntok;
  free(msg);
}

/* Root: peel each route's amount (x->flowed, x->take) and pack each
 * route's message into buf (malloc'd), route l's from byte at[l] (nl + 1
 * entries).  The routes that leave from the same border are peeled as one
 * layer, shared out in the order the border moves inwards: the nearest
 * objects to the neighbour itself, the deeper ones to groups further away.
 * Local. */
static int zp_flow_peel(zp_hrun *x, const double *mine, int nl, unsigned char **buf, size_t *at)
{
  size_t k, e, bytes = 0, G = (size_t)x->ngid, ed = (size_t)x->edim;
  size_t *queue = malloc((x->n + 1) * sizeof *queue);
  unsigned char *seed = malloc(x->n + 1), *seen = malloc(x->n + 1);
  int l, l2, ierr = ZOLTAN_OK, *link = malloc((x->n + 1) * sizeof *link);
  double *left = malloc(((size_t)nl + 1) * sizeof *left);
  x->flowed = calloc(x->n + 1, 1);
  *buf = NULL;
  if (!queue || !seed || !seen || !link || !left || !x->flowed) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  for (k = 0; k < x->n; k++) {
    x->take[k] = 0;
    link[k] = -1;
  }
  for (l = 0; l < nl; l = l2) {
    int q = (int)mine[3 * l + 2], r = l;
    double shed = 0.0, sum = 0.0;
    size_t i, now, got = 0;
    for (l2 = l; l2 < nl && (int)mine[3 * l2 + 2] == q; l2++) {
      left[l2] = mine[3 * l2 + 1];
      sum += left[l2];
    }
    for (k = 0; k < x->n; k++) {
      seed[k] = 0;
      for (e = x->estart[k]; !seed[k] && e < x->estart[k + 1]; e++) seed[k] = x->egroup[e] == q;
    }
    now = hier_peel(x->w0, x->n, x->gadj_start, x->gadj, seed, sum, queue, seen, x->take, &shed);
    x->flow_out += shed;
    for (i = 0; got < now && i < x->n; i++) {
      size_t o = queue[i];
      if (!x->take[o] || link[o] >= 0) continue;
      while (r + 1 < l2 && left[r] < 0.5 * x->w0[o]) r++;
      link[o] = r;
      left[r] -= x->w0[o];
      x->flowed[o] = 1;
      x->nflowed++;
      got++;
    }
  }
  for (l = 0; l < nl; l++) {
    size_t nt = 0, ne = 0;
    for (k = 0; k < x->n; k++)
      if (link[k] == l) {
        nt++;
        ne += (size_t)x->nedges[k];
      }
    at[l] = bytes;
    bytes += nt > 0 ? zp_flow_msg_bytes(x, nt, ne) : 0;
  }
  at[nl] = bytes;
  *buf = malloc(bytes + 1);
  if (*buf == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  for (l = 0; l < nl; l++) {
    unsigned char *m = *buf + at[l];
    long long nt = 0;
    size_t t = 0, off, E = 0, ne_at, nbr_at, ew_at;
    int root = (int)mine[3 * l] * x->h->spec.size[0];
    if (at[l + 1] == at[l]) continue;
    for (k = 0; k < x->n; k++)
      if (link[k] == l) {
        nt++;
        E += (size_t)x->nedges[k];
      }
    memcpy(m, &nt, sizeof nt);
    ne_at = 8 + (size_t)nt * x->rec;
    nbr_at = ne_at + zp_pad8((size_t)nt * sizeof(int));
    ew_at = nbr_at + zp_pad8(E * G * sizeof(ZOLTAN_ID_TYPE));
    for (k = 0, off = 0; k < x->n; k++) {
      if (link[k] != l) continue;
      zp_tok_put(x, m + 8 + t * x->rec, k, x->c->r->rank, root);
      memcpy(m + ne_at + t * sizeof(int), &x->nedges[k], sizeof(int));
      memcpy(m + nbr_at + off * G * sizeof(ZOLTAN_ID_TYPE), x->nbr + x->estart[k] * G,
             (size_t)x->nedges[k] * G * sizeof(ZOLTAN_ID_TYPE));
      if (ed > 0)
        memcpy(m + ew_at + off * ed * sizeof(double), x->ew + x->estart[k] * ed,
               (size_t)x->nedges[k] * ed * sizeof(double));
      off += (size_t)x->nedges[k];
      t++;
    }
  }
End:
  free(queue);
  free(seed);
  free(seen);
  free(link);
  free(left);
  return ierr;
}

int zp_hier_flows(zp_hrun *x)
{
  double *mine = NULL;
  int nmine = 0, nl = 0, nsend = 0, l, ierr = ZOLTAN_OK;
  unsigned char *buf = NULL;
  size_t *at = NULL;
  MPI_Request *req = NULL;
  if (x->groot) ierr = zp_flow_exchange(x, &mine, &nmine);
  nl = nmine / 3;
  if (x->groot && ierr == ZOLTAN_OK) {
    at = malloc(((size_t)nl + 1) * sizeof *at);
    req = malloc(((size_t)nl + 1) * sizeof *req);
    ierr = at && req ? zp_flow_peel(x, mine, nl, &buf, at) : ZOLTAN_MEMERR;
  }
  ierr = zp_hier_agree(x, ierr);
  if (ierr < 0) goto End;
  for (l = 0; x->groot && l < nl; l++)
    if (at[l + 1] > at[l])
      MPI_Issend(buf + at[l], (int)(at[l + 1] - at[l]), MPI_BYTE,
                 (int)mine[3 * l] * x->h->spec.size[0], ZP_HIER_FLOW_TAG, x->c->r->comm,
                 &req[nsend++]);
  zp_nbx(x->c->r->comm, ZP_HIER_FLOW_TAG, nsend, req, zp_flow_recv, x);
  if (x->nfin > 0) {
    x->fin_es = malloc((x->nfin + 1) * sizeof *x->fin_es);
    if (x->fin_es == NULL) {
      x->pending = ZOLTAN_MEMERR;
    } else {
      x->fin_es[0] = 0;
      for (size_t k = 0; k < x->nfin; k++) x->fin_es[k + 1] = x->fin_es[k] + (size_t)x->fin_ne[k];
    }
  }
  for (size_t k = 0; k < x->nfin; k++) x->flow_in += zp_tok_w0(x, x->fin + k * x->rec);
End:
  free(mine);
  free(buf);
  free(at);
  free(req);
  return ierr;
}

/* Root: the tokens the flows brought join those the tree sent down.
 * Local (a failure waits in x->pending for the reply's agreement). */
int zp_hier_join_flows(zp_hrun *x)
{
  unsigned char *all = realloc(x->down, (x->ndown + x->nfin) * x->rec + 1);
  if (all == NULL) {
    x->pending = ZOLTAN_MEMERR;
    return ZOLTAN_OK;
  }
  memcpy(all + x->ndown * x->rec, x->fin, x->nfin * x->rec);
  x->down = all;
  x->ndown += x->nfin;
  return ZOLTAN_OK;
}
