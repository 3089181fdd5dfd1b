/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes of the flows between groups (hier_flow_routes).  The diffusion
 * gives the load each link of the group graph carries; a group that both
 * receives and sends passes load on.  Sent hop by hop, a load that crosses
 * h links moves h times (each group on the way sends its own far border),
 * which keeps every part whole but multiplies the moves; sent straight
 * from the group it leaves to the group it ends in, it moves once and cuts
 * the edges of the layer it was peeled from.  The flows are split into
 * paths from a group that sends to one that receives, and each path takes
 * the cheaper of the two with one moved object costing one mean edge (the
 * unit of SCOTCHLB_MIGRATION_COST's default).
 */
#include <stdlib.h>
#include <string.h>

#include "hier_core.h"

/* Amounts at or below this fraction of the largest flow are rounding. */
#define HIER_ROUTE_EPS 1e-12

/* Routes in the order a group peels them: by group, then by the neighbour
 * whose border they leave from, the nearest destination first. */
static int hier_route_cmp(const void *a, const void *b)
{
  const hier_route *p = a, *q = b;
  if (p->src != q->src) return p->src < q->src ? -1 : 1;
  if (p->first != q->first) return p->first < q->first ? -1 : 1;
  if (p->hops != q->hops) return p->hops < q->hops ? -1 : 1;
  return p->dst < q->dst ? -1 : p->dst > q->dst;
}

/* Append a route, growing *r. */
static int hier_route_add(hier_route **r, size_t *n, size_t *cap, int src, int first, int dst,
                          int hops, double amount)
{
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 16;
    hier_route *q = realloc(*r, c * sizeof *q);
    if (q == NULL) return -1;
    *r = q;
    *cap = c;
  }
  (*r)[*n].src = src;
  (*r)[*n].first = first;
  (*r)[*n].dst = dst;
  (*r)[*n].hops = hops;
  (*r)[*n].amount = amount;
  (*n)++;
  return 0;
}

/* One path from source s along links that still carry flow (f) to the
 * first group that still takes load (need > eps), into path (its groups)
 * and lk (its links); a cycle met on the way is cancelled and the walk
 * starts again.  onpath holds -1 for every group on entry and on return.
 * Each cancelled cycle empties one of the E links: at most E + 1 walks.
 * Returns the path's group count (>= 2), or 0 when no path is left. */
static int hier_walk(int m, const size_t *start, const int *adj, double *f, const double *need,
                     double eps, int s, int *path, long *lk, int *onpath)
{
  size_t guard, E = start[m];
  int len;
  for (guard = 0; guard <= E; guard++) {
    int u = s, cyc = -1, i;
    len = 1;
    path[0] = s;
    onpath[s] = 0;
    while (cyc < 0 && (len == 1 || !(need[u] > eps))) {
      size_t k;
      long best = -1;
      for (k = start[u]; k < start[u + 1]; k++)
        if (f[k] > eps && (best < 0 || f[k] > f[best])) best = (long)k;
      if (best < 0 || len > m) break;
      u = adj[best];
      lk[len - 1] = best;
      if (onpath[u] >= 0) cyc = onpath[u];
      onpath[u] = len;
      path[len++] = u;
    }
    for (i = 0; i < len; i++) onpath[path[i]] = -1;
    if (cyc < 0) return len >= 2 && need[path[len - 1]] > eps ? len : 0;
    /* path[cyc .. len - 1] closes on path[cyc]: take its smallest flow
     * off every link of the cycle, which changes no group's balance. */
    {
      double c = f[lk[cyc]];
      for (i = cyc; i < len - 1; i++)
        if (f[lk[i]] < c) c = f[lk[i]];
      for (i = cyc; i < len - 1; i++) f[lk[i]] -= c;
    }
  }
  return 0;
}

int hier_flow_routes(int m, const size_t *start, const int *adj, const double *flow,
                     const double *border, const double *unit, hier_route **routes, size_t *nroutes)
{
  double *f = NULL, *give = NULL, *need = NULL, top = 0.0, eps;
  int *path = NULL, *onpath = NULL, q, rc = -1;
  long *lk = NULL;
  hier_route *r = NULL;
  size_t n = 0, cap = 0, k, E = start[m], rounds;
  *routes = NULL;
  *nroutes = 0;
  f = malloc((E + 1) * sizeof *f);
  give = calloc((size_t)m + 1, sizeof *give);
  need = calloc((size_t)m + 1, sizeof *need);
  path = malloc(((size_t)m + 2) * sizeof *path);
  onpath = malloc(((size_t)m + 1) * sizeof *onpath);
  lk = malloc(((size_t)m + 2) * sizeof *lk);
  if (!f || !give || !need || !path || !onpath || !lk) goto End;
  for (q = 0; q < m; q++) onpath[q] = -1;
  /* Only the sending side of each link: flow of (q, t) = -flow of (t, q). */
  for (q = 0; q < m; q++)
    for (k = start[q]; k < start[q + 1]; k++) {
      if (adj[k] < 0 || adj[k] >= m) goto End;
      f[k] = flow[k] > 0.0 ? flow[k] : 0.0;
      if (f[k] > top) top = f[k];
    }
  eps = HIER_ROUTE_EPS * top;
  for (q = 0; q < m; q++)
    for (k = start[q]; k < start[q + 1]; k++) {
      give[q] += f[k];
      need[adj[k]] += f[k];
    }
  for (q = 0; q < m; q++) {
    double net = give[q] - need[q];
    give[q] = net > 0.0 ? net : 0.0;
    need[q] = net < 0.0 ? -net : 0.0;
  }
  /* Each path empties a link, a sender or a taker, and each cancelled
   * cycle a link: no more walks than links and groups together. */
  for (q = 0, rounds = 0; q < m; q++)
    while (give[q] > eps && rounds++ <= E + 2 * (size_t)m) {
      int len = hier_walk(m, start, adj, f, need, eps, q, path, lk, onpath), i, t, direct;
      double a = give[q];
      if (len < 2) break;
      t = path[len - 1];
      if (need[t] < a) a = need[t];
      for (i = 0; i < len - 1; i++)
        if (f[lk[i]] < a) a = f[lk[i]];
      for (i = 0; i < len - 1; i++) f[lk[i]] -= a;
      give[q] -= a;
      need[t] -= a;
      /* Straight when the layer's edges, cut once, cost less than the
       * objects moved again at each further hop. */
      direct = len > 2 && border[lk[0]] <= (double)(len - 2) * a * unit[q];
      if (direct) {
        if (hier_route_add(&r, &n, &cap, q, path[1], t, len - 1, a) < 0) goto End;
      } else {
        for (i = 0; i < len - 1; i++)
          if (hier_route_add(&r, &n, &cap, path[i], path[i + 1], path[i + 1], 1, a) < 0) goto End;
      }
    }
  /* One route per (group, border, destination). */
  if (n > 0) {
    size_t u = 0;
    qsort(r, n, sizeof *r, hier_route_cmp);
    for (k = 0; k < n; k++) {
      if (u > 0 && r[u - 1].src == r[k].src && r[u - 1].first == r[k].first &&
          r[u - 1].dst == r[k].dst && r[u - 1].hops == r[k].hops) {
        r[u - 1].amount += r[k].amount;
        continue;
      }
      r[u++] = r[k];
    }
    n = u;
  }
  *routes = r;
  *nroutes = n;
  r = NULL;
  rc = 0;
End:
  free(f);
  free(give);
  free(need);
  free(path);
  free(onpath);
  free(lk);
  free(r);
  return rc;
}
