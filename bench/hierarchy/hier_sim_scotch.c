/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hier_sim_scotch: HIERARCHY's scale study for SCOTCHLB by simulation
 * (docs/hierarchy.md), the sibling of hier_sim (GREEDY and REFINE).  One
 * process plays P virtual ranks (side x side) with K objects each, on
 * hier_sim's workload (loads 10 + 990 U^4, a hotspot at 1.5x, seed 2026).
 * Each rank's objects are a tile of tx x ty cells (tx ty = K) of one grid,
 * each cell joined to its four neighbours (unit edge weights), so that
 * the ranks start as a grid of tiles.
 *
 * SCOTCHLB (LB_APPROACH=REPARTITION, migration cost 1, IMBALANCE_TOL
 * 1.05) runs with scotch/'s core, as the layer runs it:
 *  - flat: one root gathers every object and its edges (only up to
 *    --flat-max objects: beyond, Scotch on one process takes too long and
 *    the flat figures are its bytes alone);
 *  - by groups (AUTO's shape for P): each group's root gathers its group;
 *    one record per group goes to the top, which solves the flows between
 *    groups (hier_group_flows) and their routes (hier_flow_routes); each
 *    group peels its routes from its borders (hier_peel) and sends them to
 *    their destinations' roots; what is still above the flows' headroom is
 *    shed from the border inwards (hier_select_near) and placed by the top
 *    (hier_place_near); then each group's root runs SCOTCHLB on its kept
 *    objects and those that came to it, with its own parts.
 * Simplification, stated with the figures: the tree's leftovers (a small
 * share of the load, printed) are placed in one step at the top, where
 * the layer places them level by level; their bytes are counted on the
 * group roots and the top.
 *
 * Bytes, as hier_sim counts them: an object gathered 20 and its answer 4,
 * each edge 8 (its neighbour's ID and rank); a token 24 plus its edges; a
 * reply 8; a group's record 8 per double.  Messages are counted, not sent.
 * Printed per P: the busiest rank's bytes (sent + received) and work
 * (objects it handles), max/avg of the ranks' loads, the moved share of
 * the weight, the share of edges cut, and the tree's leftovers.
 *
 * Usage: hier_sim_scotch [--sides 32,100,316] [--objects K] [--fan F]
 *                        [--flat-max N] [--check]
 *   --check  exit 1 unless the busiest rank's bytes by groups at the
 *            largest P are within 2x of those at the smallest, and, where
 *            flat ran, max/avg by groups within 1.02x of flat's, the moved
 *            weight within 1.2x and the cut within 1.2x
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hier_core.h"
#include "scotch_core.h"
#include "hier_workload.h"

#define OBJ_BYTES   20.0
#define ANS_BYTES   4.0
#define EDGE_BYTES  8.0
#define TOK_BYTES   24.0
#define REPLY_BYTES 8.0
#define TOL         1.05
#define HEADROOM    (1.0 + 0.5 * (TOL - 1.0))

static void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "hier_sim_scotch: out of memory\n");
    exit(2);
  }
  return p;
}

static void *xcalloc(size_t n, size_t s)
{
  void *p = calloc(n ? n : 1, s);
  if (p == NULL) {
    fprintf(stderr, "hier_sim_scotch: out of memory\n");
    exit(2);
  }
  return p;
}

/* The problem: P = side^2 ranks of K = tx ty objects, object r K + i on
 * rank r. */
typedef struct sim {
  int side, P, K, tx, ty;
  size_t N;
  double *w, total;
  int *part;     /* the answer: each object's rank */
  double *bytes; /* per rank, sent + received */
  double *work;  /* per rank, objects handled */
} sim;

typedef struct result {
  double bytes, work, maxavg, moved, cut, leftover;
} result;

/* The up to four neighbours of object o. */
static int nbrs(const sim *s, size_t o, size_t *out)
{
  int r = (int)(o / (size_t)s->K), i = (int)(o % (size_t)s->K), n = 0;
  long X = (long)(r % s->side) * s->tx + i % s->tx, Y = (long)(r / s->side) * s->ty + i / s->tx;
  long W = (long)s->side * s->tx, H = (long)s->side * s->ty,
       d[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
  for (int k = 0; k < 4; k++) {
    long x = X + d[k][0], y = Y + d[k][1];
    if (x < 0 || y < 0 || x >= W || y >= H) continue;
    out[n++] = (size_t)((y / s->ty) * s->side + x / s->tx) * (size_t)s->K +
               (size_t)((y % s->ty) * s->tx + x % s->tx);
  }
  return n;
}

static void make(sim *s, int side, int K)
{
  s->side = side;
  s->P = side * side;
  s->K = K;
  for (s->tx = (int)sqrt((double)K); s->tx > 1 && K % s->tx; s->tx--) {
  }
  s->ty = K / s->tx;
  s->N = (size_t)s->P * (size_t)K;
  s->w = xmalloc(s->N * sizeof *s->w);
  s->part = xmalloc(s->N * sizeof *s->part);
  s->bytes = xcalloc((size_t)s->P, sizeof *s->bytes);
  s->work = xcalloc((size_t)s->P, sizeof *s->work);
  /* hier_sim's loads, object for object. */
  s->total = hier_workload_loads(side, K, s->w);
}

static void unmake(sim *s)
{
  free(s->w);
  free(s->part);
  free(s->bytes);
  free(s->work);
}

static void finish(const sim *s, result *r)
{
  double *load = xcalloc((size_t)s->P, sizeof *load), mx = 0.0;
  size_t o, nb[4], cut = 0, edges = 0;
  r->moved = 0.0;
  for (o = 0; o < s->N; o++) {
    int n = nbrs(s, o, nb);
    load[s->part[o]] += s->w[o];
    if (s->part[o] != (int)(o / (size_t)s->K)) r->moved += s->w[o];
    for (int k = 0; k < n; k++)
      if (nb[k] > o) {
        edges++;
        cut += s->part[nb[k]] != s->part[o];
      }
  }
  for (int p = 0; p < s->P; p++) mx = fmax(mx, load[p]);
  r->maxavg = mx / (s->total / s->P);
  r->moved /= s->total;
  r->cut = edges ? (double)cut / (double)edges : 0.0;
  r->bytes = r->work = 0.0;
  for (int p = 0; p < s->P; p++) {
    r->bytes = fmax(r->bytes, s->bytes[p]);
    r->work = fmax(r->work, s->work[p]);
  }
  free(load);
}

/* SCOTCHLB on n objects (global indices idx, current part cur or -1),
 * parts equal parts; the edges among them only (loc: global -> local
 * index or -1, set by the caller). */
static void run_scotch(const sim *s, size_t n, const size_t *idx, const int *cur, const int *loc,
                       int parts, double tol, int *out)
{
  size_t *start = xmalloc((n + 1) * sizeof *start), *adj = xmalloc((4 * n + 1) * sizeof *adj);
  double *w = xmalloc((n + 1) * sizeof *w);
  size_t k, at = 0, nb[4];
  scotchlb_options o;
  char msg[256] = "";
  int rc;
  for (k = 0; k < n; k++) {
    int c = nbrs(s, idx[k], nb);
    start[k] = at;
    w[k] = s->w[idx[k]];
    for (int j = 0; j < c; j++)
      if (loc[nb[j]] >= 0) adj[at++] = (size_t)loc[nb[j]];
  }
  start[n] = at;
  scotchlb_default_options(&o);
  o.approach = SCOTCHLB_REPARTITION;
  o.migration_cost = 1.0;
  o.tolerance = tol;
  rc = scotchlb_partition(n, 1, w, start, adj, NULL, parts, NULL, cur, &o, out, NULL, msg,
                          sizeof msg);
  if (rc < 0) {
    fprintf(stderr, "hier_sim_scotch: SCOTCHLB failed (%d): %s\n", rc, msg);
    exit(2);
  }
  free(start);
  free(adj);
  free(w);
}

/* The flat path: rank 0 gathers everything (with edges) and scatters the
 * answer.  run = 0: the bytes alone. */
static void flat(sim *s, int run, result *r)
{
  size_t o, nb[4];
  for (int p = 0; p < s->P; p++) {
    s->bytes[p] = 0.0;
    s->work[p] = p == 0 ? (double)s->N : 0.0;
  }
  for (o = (size_t)s->K; o < s->N; o++) {
    double b = OBJ_BYTES + ANS_BYTES + EDGE_BYTES * nbrs(s, o, nb);
    s->bytes[o / (size_t)s->K] += b;
    s->bytes[0] += b;
  }
  if (!run) {
    memset(r, 0, sizeof *r);
    r->bytes = s->bytes[0];
    r->work = (double)s->N;
    return;
  }
  {
    size_t *idx = xmalloc(s->N * sizeof *idx);
    int *cur = xmalloc(s->N * sizeof *cur), *loc = xmalloc(s->N * sizeof *loc);
    for (o = 0; o < s->N; o++) {
      idx[o] = o;
      cur[o] = (int)(o / (size_t)s->K);
      loc[o] = (int)o;
    }
    run_scotch(s, s->N, idx, cur, loc, s->P, TOL, s->part);
    free(idx);
    free(cur);
    free(loc);
  }
  finish(s, r);
  r->leftover = 0.0;
}

static int by_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

/* One run by groups: what its steps share. */
typedef struct grp_run {
  sim *s;
  int g0, m;           /* ranks per group, groups */
  int *grp_of;         /* per object: the group it is sent to by a flow or the tree, or -1 */
  double *load;        /* m: each group's load */
  double *target;      /* m: each group's share of the total */
  double *unit;        /* m: objects per unit of load */
  double *flow;        /* the top's flows along the group links */
  double *border;      /* the edges along each group link */
  size_t *gstart;      /* m + 1: the group links in CSR */
  int *gadj;           /* the group links */
  int *loc;            /* per object: its index in its group's SCOTCHLB run, or -1 */
  double *edge_to;     /* m: scratch, edges to each group */
  double moved_tree;   /* weight the tree's leftovers moved */
  double per_rank;     /* the total over the ranks */
  unsigned char *gone; /* per object: 1 once it left its group */
  hier_route *routes;
  size_t nroutes;
} grp_run;

/* 1. Gather within groups; each root's record: neighbours and borders;
 * then the top's flows and routes. */
static void grp_gather(grp_run *g)
{
  sim *s = g->s;
  int g0 = g->g0, m = g->m, q;
  size_t K = (size_t)s->K, o, nb[4];
  {
    int *nq = xmalloc((size_t)m * sizeof *nq), nn;
    size_t total_links = 0, cap = 64;
    int *all = xmalloc(cap * sizeof *all);
    double *allw = xmalloc(cap * sizeof *allw);
    size_t *astart = xcalloc((size_t)m + 1, sizeof *astart);
    for (q = 0; q < m; q++) {
      int lo = q * g0, hi = (q + 1) * g0 < s->P ? (q + 1) * g0 : s->P;
      size_t first = (size_t)lo * K, n = (size_t)(hi - lo) * K;
      g->target[q] = g->per_rank * (hi - lo);
      nn = 0;
      for (o = first; o < first + n; o++) {
        int c = nbrs(s, o, nb);
        double b = OBJ_BYTES + ANS_BYTES + EDGE_BYTES * c;
        int rk = (int)(o / K);
        g->load[q] += s->w[o];
        if (rk != lo) {
          s->bytes[rk] += b;
          s->bytes[lo] += b;
        }
        for (int j = 0; j < c; j++) {
          int t = (int)(nb[j] / K) / g0;
          if (t == q) continue;
          if (g->edge_to[t] == 0.0) nq[nn++] = t;
          g->edge_to[t] += 1.0;
        }
      }
      s->work[lo] += (double)n;
      g->unit[q] = g->load[q] > 0.0 ? (double)n / g->load[q] : 0.0;
      qsort(nq, (size_t)nn, sizeof *nq, by_int);
      astart[q] = total_links;
      if (total_links + (size_t)nn > cap) {
        while (total_links + (size_t)nn > cap) cap *= 2;
        all = realloc(all, cap * sizeof *all);
        allw = realloc(allw, cap * sizeof *allw);
        if (!all || !allw) exit(2);
      }
      for (int j = 0; j < nn; j++) {
        all[total_links] = nq[j];
        allw[total_links++] = g->edge_to[nq[j]];
        g->edge_to[nq[j]] = 0.0;
      }
      /* The record to the top and the g->routes back are counted below. */
      if (lo != 0) {
        s->bytes[lo] += 8.0 * (5 + 2 * nn);
        s->bytes[0] += 8.0 * (5 + 2 * nn);
      }
    }
    astart[m] = total_links;
    s->work[0] += (double)m;
    /* The top: links both ways, sorted, without repeats (a grid's group
     * graph lists every edge on both sides already). */
    g->gadj = xmalloc((total_links + 1) * sizeof *g->gadj);
    g->border = xmalloc((total_links + 1) * sizeof *g->border);
    g->flow = xmalloc((total_links + 1) * sizeof *g->flow);
    memcpy(g->gstart, astart, ((size_t)m + 1) * sizeof *g->gstart);
    memcpy(g->gadj, all, total_links * sizeof *g->gadj);
    memcpy(g->border, allw, total_links * sizeof *g->border);
    free(all);
    free(allw);
    free(nq);
    free(astart);
  }
  if (hier_group_flows(m, g->load, g->target, g->gstart, g->gadj, 1.0 / HEADROOM, g->flow) < 0 ||
      hier_flow_routes(m, g->gstart, g->gadj, g->flow, g->border, g->unit, &g->routes,
                       &g->nroutes) < 0) {
    fprintf(stderr, "hier_sim_scotch: the flows failed\n");
    exit(2);
  }
}

/* 2. Each group peels its routes, border by border; the routes' bytes. */
static void grp_peel(grp_run *g)
{
  sim *s = g->s;
  int g0 = g->g0, m = g->m, q;
  size_t K = (size_t)s->K, o, k, nb[4];
  {
    size_t rt = 0;
    for (q = 0; q < m; q++) {
      int lo = q * g0, hi = (q + 1) * g0 < s->P ? (q + 1) * g0 : s->P;
      size_t first = (size_t)lo * K, n = (size_t)(hi - lo) * K, at = 0;
      size_t *st = NULL, *ad = NULL, *queue = NULL;
      unsigned char *seed = NULL, *seen = NULL, *take = NULL;
      if (rt >= g->nroutes || g->routes[rt].src != q) continue; /* sorted by source */
      st = xmalloc((n + 1) * sizeof *st);
      ad = xmalloc((4 * n + 1) * sizeof *ad);
      queue = xmalloc((n + 1) * sizeof *queue);
      seed = xmalloc(n + 1);
      seen = xmalloc(n + 1);
      take = xcalloc(n + 1, 1);
      for (k = 0; k < n; k++) {
        int c = nbrs(s, first + k, nb);
        st[k] = at;
        for (int j = 0; j < c; j++)
          if (nb[j] >= first && nb[j] < first + n) ad[at++] = nb[j] - first;
      }
      st[n] = at;
      while (rt < g->nroutes && g->routes[rt].src == q) {
        int f = g->routes[rt].first;
        size_t r0 = rt, r1 = rt, now, got = 0, i;
        double sum = 0.0, shed = 0.0, *left;
        for (; r1 < g->nroutes && g->routes[r1].src == q && g->routes[r1].first == f; r1++)
          sum += g->routes[r1].amount;
        left = xmalloc((r1 - r0) * sizeof *left);
        for (i = r0; i < r1; i++) left[i - r0] = g->routes[i].amount;
        for (k = 0; k < n; k++) {
          int c = nbrs(s, first + k, nb);
          seed[k] = 0;
          for (int j = 0; j < c; j++) seed[k] |= (int)(nb[j] / K) / g0 == f;
        }
        now = hier_peel(s->w + first, n, st, ad, seed, sum, queue, seen, take, &shed);
        {
          size_t cur = 0;
          for (i = 0; got < now && i < n; i++) {
            size_t ob = queue[i];
            if (!take[ob] || g->gone[first + ob]) continue;
            while (cur + 1 < r1 - r0 && left[cur] < 0.5 * s->w[first + ob]) cur++;
            left[cur] -= s->w[first + ob];
            g->gone[first + ob] = 1;
            g->grp_of[first + ob] = g->routes[r0 + cur].dst;
            got++;
          }
        }
        free(left);
        rt = r1;
      }
      free(st);
      free(ad);
      free(queue);
      free(seed);
      free(seen);
      free(take);
    }
  }
  /* The g->routes' bytes: each object with its edges, root to root. */
  for (o = 0; o < s->N; o++)
    if (g->grp_of[o] >= 0) {
      int src = (int)(o / K) / g0, c = nbrs(s, o, nb);
      double b = TOK_BYTES + EDGE_BYTES * c;
      s->bytes[src * g0] += b;
      s->bytes[g->grp_of[o] * g0] += b;
      g->load[src] -= s->w[o];
      g->load[g->grp_of[o]] += s->w[o];
    }
  for (q = 0; q < m; q++) {
    /* The top sends each group its g->routes. */
    size_t nr = 0;
    for (k = 0; k < g->nroutes; k++) nr += g->routes[k].src == q;
    if (q != 0 && nr) {
      s->bytes[q * g0] += 24.0 * (double)nr;
      s->bytes[0] += 24.0 * (double)nr;
    }
  }
}

/* 3. The tree's leftovers: what is above the headroom, shed from the
 * border inwards, placed in one step by the top. */
static void grp_leftovers(grp_run *g)
{
  sim *s = g->s;
  int g0 = g->g0, m = g->m, q;
  size_t K = (size_t)s->K, k, nb[4];
  {
    size_t cap = 1024, nt = 0;
    size_t *tok = xmalloc(cap * sizeof *tok);
    int *tnear = xmalloc(cap * sizeof *tnear);
    double *room = xmalloc((size_t)m * sizeof *room);
    unsigned char *open = xmalloc((size_t)m);
    for (q = 0; q < m; q++) {
      int lo = q * g0, hi = (q + 1) * g0 < s->P ? (q + 1) * g0 : s->P;
      size_t first = (size_t)lo * K, n = (size_t)(hi - lo) * K, at = 0, cnt;
      double keep = g->target[q] * HEADROOM, amount = g->load[q] > keep ? g->load[q] - keep : 0.0,
             shed = 0.0;
      open[q] = 1;
      room[q] = g->target[q] - g->load[q];
      if (amount <= 0.0) continue;
      {
        size_t *st = xmalloc((n + 1) * sizeof *st), *ad = xmalloc((4 * n + 1) * sizeof *ad);
        size_t *order = xmalloc((n + 1) * sizeof *order);
        int *near = xmalloc((n + 1) * sizeof *near);
        unsigned char *take = xcalloc(n + 1, 1);
        double *w0 = xmalloc((n + 1) * sizeof *w0);
        for (k = 0; k < n; k++) {
          int c = nbrs(s, first + k, nb);
          st[k] = at;
          near[k] = -1;
          w0[k] = g->gone[first + k] ? 0.0 : s->w[first + k];
          for (int j = 0; j < c; j++) {
            if (nb[j] >= first && nb[j] < first + n) {
              ad[at++] = nb[j] - first;
            } else {
              int p = (int)(nb[j] / K);
              if (near[k] < 0 || p < near[k]) near[k] = p;
            }
          }
        }
        st[n] = at;
        cnt = hier_select_near(w0, n, st, ad, near, amount, HIER_SHED_CLOSE, order, take, &shed);
        (void)cnt;
        for (k = 0; k < n; k++)
          if (take[k] && !g->gone[first + k]) {
            if (nt == cap) {
              cap *= 2;
              tok = realloc(tok, cap * sizeof *tok);
              tnear = realloc(tnear, cap * sizeof *tnear);
              if (!tok || !tnear) exit(2);
            }
            tok[nt] = first + k;
            tnear[nt++] = near[k] >= 0 ? near[k] / g0 : -1;
            g->gone[first + k] = 1;
            g->load[q] -= s->w[first + k];
          }
        room[q] = g->target[q] - g->load[q];
        free(st);
        free(ad);
        free(order);
        free(near);
        free(take);
        free(w0);
      }
    }
    if (nt > 0) {
      double *tw = xmalloc(nt * sizeof *tw);
      size_t *order = xmalloc(nt * sizeof *order);
      int *heap = xmalloc((size_t)m * sizeof *heap), *child = xmalloc(nt * sizeof *child);
      for (k = 0; k < nt; k++) tw[k] = s->w[tok[k]];
      (void)hier_place_near(tw, tnear, nt, room, NULL, open, m, 1, order, heap, child);
      for (k = 0; k < nt; k++) {
        int src = (int)(tok[k] / K) / g0, dst = child[k] >= 0 ? child[k] : src;
        double b = TOK_BYTES + EDGE_BYTES * nbrs(s, tok[k], nb);
        g->grp_of[tok[k]] = dst;
        g->moved_tree += s->w[tok[k]];
        if (src != 0) {
          s->bytes[src * g0] += b;
          s->bytes[0] += b;
        }
        if (dst != 0) {
          s->bytes[0] += b;
          s->bytes[dst * g0] += b;
        }
      }
      s->work[0] += (double)nt;
      free(tw);
      free(order);
      free(heap);
      free(child);
    }
    free(tok);
    free(tnear);
    free(room);
    free(open);
  }
}

/* 4. Each group's root runs SCOTCHLB on what it kept and what came. */
static void grp_scotch(grp_run *g)
{
  sim *s = g->s;
  int g0 = g->g0, m = g->m, q;
  size_t K = (size_t)s->K, o, k;
  {
    size_t *in_start = xcalloc((size_t)m + 1, sizeof *in_start), *in_list, *fill;
    for (o = 0; o < s->N; o++)
      if (g->grp_of[o] >= 0) in_start[g->grp_of[o] + 1]++;
    for (q = 0; q < m; q++) in_start[q + 1] += in_start[q];
    in_list = xmalloc((in_start[m] + 1) * sizeof *in_list);
    fill = xmalloc(((size_t)m + 1) * sizeof *fill);
    memcpy(fill, in_start, ((size_t)m + 1) * sizeof *fill);
    for (o = 0; o < s->N; o++)
      if (g->grp_of[o] >= 0) in_list[fill[g->grp_of[o]]++] = o;
    for (q = 0; q < m; q++) {
      int lo = q * g0, hi = (q + 1) * g0 < s->P ? (q + 1) * g0 : s->P, parts = hi - lo;
      size_t first = (size_t)lo * K, n = (size_t)parts * K, cap = n + in_start[q + 1] - in_start[q];
      size_t *idx = xmalloc((cap + 1) * sizeof *idx), nn = 0;
      int *cur = xmalloc((cap + 1) * sizeof *cur), *out = xmalloc((cap + 1) * sizeof *out);
      double sum = 0.0, tol;
      for (k = 0; k < n; k++)
        if (!g->gone[first + k] || g->grp_of[first + k] == q) {
          idx[nn] = first + k;
          cur[nn++] = (int)(k / K);
        }
      for (k = in_start[q]; k < in_start[q + 1]; k++) {
        o = in_list[k];
        if (o >= first && o < first + n) continue; /* came back home: kept above */
        idx[nn] = o;
        cur[nn++] = -1;
        if ((int)(o / K) / g0 != q) {
          s->bytes[lo] += REPLY_BYTES;
          s->bytes[(int)(o / K) / g0 * g0] += REPLY_BYTES;
        }
      }
      for (k = 0; k < nn; k++) {
        g->loc[idx[k]] = (int)k;
        sum += s->w[idx[k]];
      }
      /* The tolerance inside the group, such that it means the global one. */
      tol = sum > 0.0 ? TOL * g->target[q] / sum : TOL;
      run_scotch(s, nn, idx, cur, g->loc, parts, tol < 1.0 ? 1.0 : tol, out);
      for (k = 0; k < nn; k++) {
        s->part[idx[k]] = lo + out[k];
        g->loc[idx[k]] = -1;
      }
      s->work[lo] += (double)(nn > n ? nn - n : 0);
      free(idx);
      free(cur);
      free(out);
    }
    free(in_start);
    free(in_list);
    free(fill);
  }
}

/* By groups of g0 ranks (the bottom of AUTO's shape). */
static void groups(sim *s, int g0, result *r)
{
  grp_run g;
  size_t o;
  memset(&g, 0, sizeof g);
  g.s = s;
  g.g0 = g0;
  g.m = (s->P + g0 - 1) / g0;
  g.per_rank = s->total / s->P;
  g.load = xcalloc((size_t)g.m, sizeof *g.load);
  g.target = xmalloc((size_t)g.m * sizeof *g.target);
  g.unit = xmalloc((size_t)g.m * sizeof *g.unit);
  g.gstart = xcalloc((size_t)g.m + 1, sizeof *g.gstart);
  g.loc = xmalloc(s->N * sizeof *g.loc);
  g.edge_to = xcalloc((size_t)g.m, sizeof *g.edge_to);
  g.gone = xcalloc(s->N, 1);
  g.grp_of = xmalloc(s->N * sizeof *g.grp_of);
  memset(s->bytes, 0, (size_t)s->P * sizeof *s->bytes);
  memset(s->work, 0, (size_t)s->P * sizeof *s->work);
  for (o = 0; o < s->N; o++) {
    g.grp_of[o] = -1;
    g.loc[o] = -1;
  }
  grp_gather(&g);
  grp_peel(&g);
  grp_leftovers(&g);
  grp_scotch(&g);
  finish(s, r);
  r->leftover = g.moved_tree / s->total;
  free(g.grp_of);
  free(g.load);
  free(g.target);
  free(g.unit);
  free(g.flow);
  free(g.border);
  free(g.gstart);
  free(g.gadj);
  free(g.loc);
  free(g.edge_to);
  free(g.gone);
  free(g.routes);
}

int main(int argc, char **argv)
{
  int sides[8] = {32, 100, 316}, nsides = 3, K = 1000, fan = 64, check = 0, bad = 0, i;
  double flat_max = 2e6, first_bytes = 0.0, last_bytes = 0.0;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sides") && i + 1 < argc) {
      if ((nsides = hier_workload_sides(argv[++i], sides, 8)) < 0) return 2;
    } else if (!strcmp(argv[i], "--objects") && i + 1 < argc) {
      K = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--fan") && i + 1 < argc) {
      fan = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--flat-max") && i + 1 < argc) {
      flat_max = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--check")) {
      check = 1;
    } else {
      fprintf(stderr, "hier_sim_scotch: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (K < 1 || fan < 2 || nsides < 1) {
    fprintf(stderr, "hier_sim_scotch: --objects must be >= 1, --fan >= 2\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("Virtual ranks (simulated in one process), %d objects per rank as a tile of a grid "
         "(4 neighbours), hotspot at 1.5x;\nSCOTCHLB REPARTITION, IMBALANCE_TOL %.2f; busiest "
         "rank: bytes sent + received, objects handled;\nmoved: share of the weight; tree: share "
         "of the weight the tree's tokens moved\n\n",
         K, TOL);
  printf("%8s %-14s %12s %10s %8s %7s %7s %7s %10s %8s %8s %8s\n", "ranks", "mode", "bytes", "work",
         "max/avg", "moved", "cut", "tree", "bytes/flat", "q/flat", "mv/flat", "cut/flat");
  for (i = 0; i < nsides; i++) {
    sim s;
    result f, h;
    int size[HIER_MAX_LEVELS], L, l, run;
    char shape[64] = "";
    make(&s, sides[i], K);
    L = hier_auto_sizes(s.P, fan, size);
    for (l = 0; l < L; l++)
      snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%d", l ? "," : "", size[l]);
    run = (double)s.N <= flat_max;
    flat(&s, run, &f);
    groups(&s, size[0], &h);
    if (run)
      printf("%8d %-14s %12.3e %10.3e %8.4f %7.4f %7.4f\n", s.P, "flat", f.bytes, f.work, f.maxavg,
             f.moved, f.cut);
    else
      printf("%8d %-14s %12.3e %10.3e %8s %7s %7s\n", s.P, "flat (bytes)", f.bytes, f.work, "-",
             "-", "-");
    printf("%8d %-14s %12.3e %10.3e %8.4f %7.4f %7.4f %7.4f %10.4f", s.P, shape, h.bytes, h.work,
           h.maxavg, h.moved, h.cut, h.leftover, h.bytes / f.bytes);
    if (run)
      printf(" %8.4f %8.4f %8.4f\n", h.maxavg / f.maxavg, f.moved > 0 ? h.moved / f.moved : 0.0,
             f.cut > 0 ? h.cut / f.cut : 0.0);
    else
      printf("\n");
    if (i == 0) first_bytes = h.bytes;
    last_bytes = h.bytes;
    if (check && run &&
        (h.maxavg > 1.02 * f.maxavg || h.moved > 1.2 * f.moved + 1e-12 || h.cut > 1.2 * f.cut)) {
      printf("CLAIM FAILED: SCOTCHLB at %d ranks: max/avg %.4f vs %.4f, moved %.4f vs %.4f, cut "
             "%.4f vs %.4f\n",
             s.P, h.maxavg, f.maxavg, h.moved, f.moved, h.cut, f.cut);
      bad = 1;
    }
    unmake(&s);
  }
  if (check && last_bytes > 2.0 * first_bytes) {
    printf("CLAIM FAILED: SCOTCHLB by groups: busiest bytes grow %.2fx from the smallest to the "
           "largest rank count\n",
           last_bytes / first_bytes);
    bad = 1;
  }
  if (check)
    printf("%s\n", bad ? "hier_sim_scotch: claims FAILED" : "hier_sim_scotch: claims hold");
  return bad;
}
