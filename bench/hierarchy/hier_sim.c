/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hier_sim: the scale study of HIERARCHY by simulation (docs/hierarchy.md).
 * One process plays P virtual ranks (10^3 to 10^5) with K objects each and
 * runs GREEDY and REFINE twice: flat, as the layer's centralised path does
 * (one root gathers every object), and by groups, with the decisions of
 * hierarchy/hier_core.c in the order the layer's adapter takes them
 * (zoltan_plugins/zp_hier_run.c): shed, up, down, the method per group.
 * Messages are counted, not sent.  For each rank, the bytes it sends and
 * receives and the objects it works on are summed; the busiest rank's are
 * printed, with the balance (max/avg of the ranks' loads) and the weight
 * moved.
 *
 * The workload is diffusion_sim's, so that the figures stand beside
 * DIFFUSION's and rootless REFINE's: a side x side grid of ranks, loads
 * 10 + 990 U^4, a hotspot of a few ranks' radius at 1.5x (seed 2026).
 * Bytes: an object gathered costs 20 (ID, weight, part) and its answer 4,
 * as in diffusion_sim; a token 24 (ID, weight, origin, index), its answer
 * 8; a child's record 36 and a count 4.
 *
 * Usage: hier_sim [--sides 32,100,316] [--objects K] [--fan F] [--csv FILE] [--check]
 *   --check  exit 1 unless, for both methods, the busiest rank's bytes by
 *            groups at the largest P are within 2x of those at the
 *            smallest, max/avg by groups is within 1.02x of the flat
 *            method's, and the moved weight within 1.2x (GREEDY: at most
 *            the flat GREEDY's)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greedy_core.h"
#include "hier_core.h"
#include "refine_core.h"
#include "hier_workload.h"

#define OBJ_BYTES   20.0
#define ANS_BYTES   4.0
#define TOK_BYTES   24.0
#define REPLY_BYTES 8.0
#define REC_BYTES   36.0

static void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "hier_sim: out of memory\n");
    exit(2);
  }
  return p;
}

/* The problem: P ranks of K objects, object o = r * K + i on rank r. */
typedef struct sim {
  int P, K;
  double *w;     /* P * K loads */
  double total;  /* their sum */
  int *part;     /* the answer: each object's rank */
  double *bytes; /* per rank, sent + received */
  double *work;  /* per rank, objects handled */
} sim;

/* One run's figures. */
typedef struct result {
  double bytes, work, maxavg, moved;
} result;

/* The method on n objects (w, cur in [0, parts) or -1) into parts equal
 * parts, as the layer's adapters do it. */
static void run_method(int refine, size_t n, const double *w, const int *cur, int parts, double tol,
                       int *out)
{
  double *frac = xmalloc((size_t)parts * sizeof *frac);
  int p;
  size_t i;
  for (p = 0; p < parts; p++) frac[p] = 1.0 / parts;
  if (!refine) {
    if (greedy_assign(n, 1, w, parts, frac, out) != GREEDY_OK) exit(2);
  } else {
    /* REFINE's adapter completes a missing current part with GREEDY's. */
    int *g = xmalloc(n * sizeof *g), *c = xmalloc(n * sizeof *c);
    refine_options o;
    refine_stats st;
    if (greedy_assign(n, 1, w, parts, frac, g) != GREEDY_OK) exit(2);
    for (i = 0; i < n; i++) c[i] = cur[i] >= 0 ? cur[i] : g[i];
    refine_default_options(&o);
    o.tolerance = tol;
    if (refine_run(n, 1, w, parts, frac, c, &o, out, &st) < 0) exit(2);
    free(g);
    free(c);
  }
  free(frac);
}

static void finish(const sim *s, result *r)
{
  double *load = calloc((size_t)s->P, sizeof *load), mx = 0.0;
  size_t o, N = (size_t)s->P * s->K;
  int p;
  r->moved = 0.0;
  for (o = 0; o < N; o++) {
    load[s->part[o]] += s->w[o];
    if (s->part[o] != (int)(o / s->K)) r->moved += s->w[o];
  }
  for (p = 0; p < s->P; p++) mx = fmax(mx, load[p]);
  r->maxavg = mx / (s->total / s->P);
  r->moved /= s->total;
  r->bytes = r->work = 0.0;
  for (p = 0; p < s->P; p++) {
    r->bytes = fmax(r->bytes, s->bytes[p]);
    r->work = fmax(r->work, s->work[p]);
  }
  free(load);
}

/* The flat path: rank 0 gathers everything and scatters the answer. */
static void flat(sim *s, int refine, result *r)
{
  size_t N = (size_t)s->P * s->K, o;
  int *cur = xmalloc(N * sizeof *cur), p;
  for (o = 0; o < N; o++) cur[o] = (int)(o / s->K);
  run_method(refine, N, s->w, cur, s->P, 1.05, s->part);
  for (p = 0; p < s->P; p++) {
    s->bytes[p] = p == 0 ? (double)(N - s->K) * (OBJ_BYTES + ANS_BYTES)
                         : (double)s->K * (OBJ_BYTES + ANS_BYTES);
    s->work[p] = p == 0 ? (double)N : 0.0;
  }
  free(cur);
  finish(s, r);
}

/* A node of the tree: its ranks [lo, hi), its children's range at the level
 * below, and what travels through it. */
typedef struct node {
  int lo, hi; /* ranks */
  int c0, c1; /* children at the level below (levels > 0) */
  double room, slack;
  int open;
  int *up, nup;     /* tokens (object indices) passed up */
  int *down, ndown; /* tokens received from above */
  int *tok, ntok;   /* tokens received from the children */
  int *child;       /* where each of tok went (child index, -1 = up) */
  double *croom, *cslack;
  unsigned char *copen;
} node;

static void add_bytes(sim *s, int rank, double b) { s->bytes[rank] += b; }

/* Level 0: a group gathers, computes its target and sheds. */
static void shed(sim *s, node *g, int refine, double per_rank)
{
  size_t n = (size_t)(g->hi - g->lo) * s->K, first = (size_t)g->lo * s->K, k;
  double load = 0.0, target = per_rank * (g->hi - g->lo), amount, got;
  size_t *order = xmalloc(n * sizeof *order);
  unsigned char *take = xmalloc(n);
  int r;
  for (k = 0; k < n; k++) load += s->w[first + k];
  for (r = g->lo; r < g->hi; r++) {
    if (r != g->lo) {
      add_bytes(s, r, s->K * (OBJ_BYTES + ANS_BYTES));
      add_bytes(s, g->lo, s->K * (OBJ_BYTES + ANS_BYTES));
    }
  }
  amount = load > target ? load - target : 0.0;
  if (!refine) {
    g->nup = (int)hier_select(s->w + first, n, amount, HIER_SHED_CLOSE, order, take, &got);
  } else {
    /* zp_hier_refine_shed: parts are the group's ranks. */
    int parts = g->hi - g->lo, *pq = xmalloc(n * sizeof *pq);
    double *lim = xmalloc((size_t)parts * sizeof *lim), *tgt = xmalloc((size_t)parts * sizeof *tgt);
    for (k = 0; k < n; k++) pq[k] = (int)(k / s->K);
    for (r = 0; r < parts; r++) {
      tgt[r] = per_rank;
      lim[r] = 1.05 * per_rank;
    }
    g->nup = (int)hier_select_refine(s->w + first, pq, n, lim, tgt, parts, order, take, &got);
    free(pq);
    free(lim);
    free(tgt);
  }
  g->up = xmalloc((size_t)g->nup * sizeof *g->up + 1);
  g->nup = 0;
  for (k = 0; k < n; k++)
    if (take[k]) g->up[g->nup++] = (int)(first + k);
  g->room = target - (load - got);
  g->slack = refine ? 0.05 * target : 0.0;
  g->open = 1;
  s->work[g->lo] += (double)n;
  free(order);
  free(take);
}

/* Level j > 0: node x receives its children's records and tokens and
 * places them (zp_hier_place_up). */
static void place_up(sim *s, node *x, node *kids, int top, int refine, unsigned char *home)
{
  int m = x->c1 - x->c0, c, k, at = 0;
  double *w;
  size_t *order;
  int *heap;
  x->ntok = 0;
  for (c = 0; c < m; c++) x->ntok += kids[x->c0 + c].nup;
  x->tok = xmalloc((size_t)x->ntok * sizeof *x->tok + 1);
  x->child = xmalloc((size_t)x->ntok * sizeof *x->child + 1);
  x->croom = xmalloc((size_t)m * sizeof *x->croom);
  x->cslack = xmalloc((size_t)m * sizeof *x->cslack);
  x->copen = xmalloc((size_t)m);
  x->open = 0;
  x->slack = 0.0;
  for (c = 0; c < m; c++) {
    node *y = &kids[x->c0 + c];
    if (y->lo != x->lo) {
      add_bytes(s, y->lo, REC_BYTES + y->nup * TOK_BYTES);
      add_bytes(s, x->lo, REC_BYTES + y->nup * TOK_BYTES);
    }
    for (k = 0; k < y->nup; k++) x->tok[at++] = y->up[k];
    free(y->up);
    y->up = NULL;
    x->croom[c] = y->room;
    x->cslack[c] = y->slack;
    x->copen[c] = (unsigned char)y->open;
    x->open |= y->open;
    x->slack += y->slack;
  }
  w = xmalloc((size_t)x->ntok * sizeof *w + 1);
  order = xmalloc((size_t)x->ntok * sizeof *order + 1);
  heap = xmalloc((size_t)m * sizeof *heap);
  for (k = 0; k < x->ntok; k++) w[k] = s->w[x->tok[k]];
  hier_place(w, (size_t)x->ntok, x->croom, refine ? x->cslack : NULL, x->copen, m, top && !refine,
             order, heap, x->child);
  x->up = xmalloc((size_t)x->ntok * sizeof *x->up + 1);
  x->nup = 0;
  for (k = 0; k < x->ntok; k++) {
    if (x->child[k] >= 0) continue;
    if (top) {
      /* Home: the child whose ranks hold the object. */
      int rank = x->tok[k] / s->K;
      for (c = 0; c + 1 < m && kids[x->c0 + c + 1].lo <= rank; c++) {
      }
      x->child[k] = c;
      home[x->tok[k]] = 1;
      continue;
    }
    x->up[x->nup++] = x->tok[k];
  }
  x->room = hier_room(x->croom, x->copen, m);
  s->work[x->lo] += (double)x->ntok;
  free(w);
  free(order);
  free(heap);
}

/* Level j > 0: node x sends each child its tokens (zp_hier_pack_down). */
static void send_down(sim *s, node *x, node *kids)
{
  int m = x->c1 - x->c0, c, k;
  double *w = xmalloc((size_t)x->ndown * sizeof *w + 1);
  size_t *order = xmalloc((size_t)x->ndown * sizeof *order + 1);
  int *heap = xmalloc((size_t)m * sizeof *heap), *dc = xmalloc((size_t)x->ndown * sizeof *dc + 1);
  for (k = 0; k < x->ndown; k++) w[k] = s->w[x->down[k]];
  hier_place(w, (size_t)x->ndown, x->croom, NULL, x->copen, m, 1, order, heap, dc);
  for (c = 0; c < m; c++) {
    node *y = &kids[x->c0 + c];
    int n = 0;
    for (k = 0; k < x->ntok; k++) n += x->child[k] == c;
    for (k = 0; k < x->ndown; k++) n += dc[k] == c;
    y->down = xmalloc((size_t)n * sizeof *y->down + 1);
    y->ndown = 0;
    for (k = 0; k < x->ntok; k++)
      if (x->child[k] == c) y->down[y->ndown++] = x->tok[k];
    for (k = 0; k < x->ndown; k++)
      if (dc[k] == c) y->down[y->ndown++] = x->down[k];
    if (y->lo != x->lo) {
      add_bytes(s, x->lo, 4.0 + n * TOK_BYTES);
      add_bytes(s, y->lo, 4.0 + n * TOK_BYTES);
    }
  }
  free(w);
  free(order);
  free(heap);
  free(dc);
}

/* Level 0: the method on the group's kept objects and incoming tokens, with
 * the group's parts; the tokens' answers go back to their groups' roots. */
static void solve(sim *s, node *g, const unsigned char *shed_mark, const unsigned char *home,
                  int refine, int g0)
{
  size_t first = (size_t)g->lo * s->K, n = (size_t)(g->hi - g->lo) * s->K, k, m = 0;
  size_t cap = n + (size_t)g->ndown;
  int *idx = xmalloc(cap * sizeof *idx), *cur = xmalloc(cap * sizeof *cur);
  int *out = xmalloc(cap * sizeof *out), parts = g->hi - g->lo, t;
  double *w = xmalloc(cap * sizeof *w);
  for (k = 0; k < n; k++)
    if (!shed_mark[first + k]) {
      idx[m] = (int)(first + k);
      cur[m] = (int)(k / s->K);
      w[m++] = s->w[first + k];
    }
  for (t = 0; t < g->ndown; t++) {
    int o = g->down[t], r = o / s->K;
    int mine = r >= g->lo && r < g->hi && home[o];
    idx[m] = o;
    cur[m] = mine ? r - g->lo : -1;
    w[m++] = s->w[o];
    if (!mine) {
      /* The answer goes back to the root of the object's group. */
      int root = r / g0 * g0;
      add_bytes(s, g->lo, REPLY_BYTES);
      add_bytes(s, root, REPLY_BYTES);
    }
  }
  {
    /* The tolerance inside the group, such that it means the global one
     * (the group's parts are rescaled to the group's load). */
    double sum = 0.0, target = s->total / s->P * parts, tol;
    for (k = 0; k < m; k++) sum += w[k];
    tol = sum > 0.0 ? 1.05 * target / sum : 1.05;
    run_method(refine, m, w, cur, parts, tol < 1.0 ? 1.0 : tol, out);
  }
  for (k = 0; k < m; k++) s->part[idx[k]] = g->lo + out[k];
  s->work[g->lo] += (double)g->ndown;
  free(idx);
  free(cur);
  free(out);
  free(w);
}

/* The tree of sizes size[0..L-1] over P ranks, as zp_hier.c builds it. */
static void by_groups(sim *s, int refine, const int *size, int L, result *r)
{
  node *lev[16];
  int nn[16], j, i;
  size_t N = (size_t)s->P * s->K;
  unsigned char *mark = calloc(N, 1), *home = calloc(N, 1);
  double per_rank = s->total / s->P;
  memset(s->bytes, 0, (size_t)s->P * sizeof *s->bytes);
  memset(s->work, 0, (size_t)s->P * sizeof *s->work);
  nn[0] = (s->P + size[0] - 1) / size[0];
  lev[0] = calloc((size_t)nn[0], sizeof(node));
  for (i = 0; i < nn[0]; i++) {
    lev[0][i].lo = i * size[0];
    lev[0][i].hi = (i + 1) * size[0] < s->P ? (i + 1) * size[0] : s->P;
    shed(s, &lev[0][i], refine, per_rank);
    for (int k = 0; k < lev[0][i].nup; k++) mark[lev[0][i].up[k]] = 1;
  }
  for (j = 1; j <= L; j++) {
    int g = j < L ? size[j] : nn[j - 1]; /* children per node; the top takes all */
    nn[j] = (nn[j - 1] + g - 1) / g;
    lev[j] = calloc((size_t)nn[j], sizeof(node));
    for (i = 0; i < nn[j]; i++) {
      node *x = &lev[j][i];
      x->c0 = i * g;
      x->c1 = (i + 1) * g < nn[j - 1] ? (i + 1) * g : nn[j - 1];
      x->lo = lev[j - 1][x->c0].lo;
      x->hi = lev[j - 1][x->c1 - 1].hi;
      place_up(s, x, lev[j - 1], j == L, refine, home);
    }
  }
  for (j = L; j >= 1; j--)
    for (i = 0; i < nn[j]; i++) send_down(s, &lev[j][i], lev[j - 1]);
  for (i = 0; i < nn[0]; i++) solve(s, &lev[0][i], mark, home, refine, size[0]);
  for (j = 0; j <= L; j++) {
    for (i = 0; i < nn[j]; i++) {
      free(lev[j][i].up);
      free(lev[j][i].down);
      free(lev[j][i].tok);
      free(lev[j][i].child);
      free(lev[j][i].croom);
      free(lev[j][i].cslack);
      free(lev[j][i].copen);
    }
    free(lev[j]);
  }
  free(mark);
  free(home);
  finish(s, r);
}

/* The workload of diffusion_sim on a side x side grid of ranks. */
static void make(sim *s, int side, int K)
{
  size_t N;
  s->P = side * side;
  s->K = K;
  N = (size_t)s->P * K;
  s->w = xmalloc(N * sizeof *s->w);
  s->part = xmalloc(N * sizeof *s->part);
  s->bytes = calloc((size_t)s->P, sizeof *s->bytes);
  s->work = calloc((size_t)s->P, sizeof *s->work);
  s->total = hier_workload_loads(side, K, s->w);
}

static void unmake(sim *s)
{
  free(s->w);
  free(s->part);
  free(s->bytes);
  free(s->work);
}

int main(int argc, char **argv)
{
  int sides[8] = {32, 100, 316}, nsides = 3, K = 1000, fan = 64, check = 0, bad = 0, i, m;
  const char *csv = NULL;
  double first_bytes[2] = {0, 0}, last_bytes[2] = {0, 0};
  FILE *out = NULL;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sides") && i + 1 < argc) {
      if ((nsides = hier_workload_sides(argv[++i], sides, 8)) < 0) return 2;
    } else if (!strcmp(argv[i], "--objects") && i + 1 < argc) {
      K = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--fan") && i + 1 < argc) {
      fan = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = argv[++i];
    } else if (!strcmp(argv[i], "--check")) {
      check = 1;
    } else {
      fprintf(stderr, "hier_sim: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  setvbuf(stdout, NULL, _IOLBF, 0); /* each row as it is done: the largest P takes minutes */
  if (csv != NULL && (out = fopen(csv, "w")) == NULL) {
    perror(csv);
    return 2;
  }
  if (out) fprintf(out, "ranks,method,mode,levels,busiest_bytes,busiest_work,maxavg,moved\n");
  printf("Virtual ranks (simulated in one process), %d objects per rank, hotspot at 1.5x;\n"
         "busiest rank: bytes sent + received, objects handled; moved: share of the weight\n\n",
         K);
  printf("%8s %-7s %-14s %12s %10s %8s %7s %12s %8s %8s\n", "ranks", "method", "mode", "bytes",
         "work", "max/avg", "moved", "bytes/flat", "q/flat", "mv/flat");
  for (i = 0; i < nsides; i++) {
    sim s;
    make(&s, sides[i], K);
    for (m = 0; m < 2; m++) {
      result f, h;
      int size[HIER_MAX_LEVELS], L = hier_auto_sizes(s.P, fan, size), l;
      char shape[64] = "";
      for (l = 0; l < L; l++)
        snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%d", l ? "," : "",
                 size[l]);
      flat(&s, m, &f);
      by_groups(&s, m, size, L, &h);
      printf("%8d %-7s %-14s %12.3e %10.3e %8.4f %7.4f\n", s.P, m ? "REFINE" : "GREEDY", "flat",
             f.bytes, f.work, f.maxavg, f.moved);
      printf("%8d %-7s %-14s %12.3e %10.3e %8.4f %7.4f %12.4f %8.4f %8.4f\n", s.P,
             m ? "REFINE" : "GREEDY", shape, h.bytes, h.work, h.maxavg, h.moved, h.bytes / f.bytes,
             h.maxavg / f.maxavg, f.moved > 0 ? h.moved / f.moved : 0.0);
      if (out) {
        fprintf(out, "%d,%s,flat,,%.6g,%.6g,%.6f,%.6f\n", s.P, m ? "REFINE" : "GREEDY", f.bytes,
                f.work, f.maxavg, f.moved);
        fprintf(out, "%d,%s,groups,%s,%.6g,%.6g,%.6f,%.6f\n", s.P, m ? "REFINE" : "GREEDY", shape,
                h.bytes, h.work, h.maxavg, h.moved);
      }
      if (i == 0) first_bytes[m] = h.bytes;
      last_bytes[m] = h.bytes;
      if (check && (h.maxavg > 1.02 * f.maxavg || h.moved > (m ? 1.2 : 1.0) * f.moved + 1e-12)) {
        printf("CLAIM FAILED: %s at %d ranks: max/avg %.4f vs flat %.4f, moved %.4f vs %.4f\n",
               m ? "REFINE" : "GREEDY", s.P, h.maxavg, f.maxavg, h.moved, f.moved);
        bad = 1;
      }
    }
    unmake(&s);
  }
  for (m = 0; check && m < 2; m++)
    if (last_bytes[m] > 2.0 * first_bytes[m]) {
      printf("CLAIM FAILED: %s by groups: busiest bytes grow %.2fx from the smallest to the "
             "largest rank count\n",
             m ? "REFINE" : "GREEDY", last_bytes[m] / first_bytes[m]);
      bad = 1;
    }
  if (out) fclose(out);
  if (check) printf("%s\n", bad ? "hier_sim: claims FAILED" : "hier_sim: claims hold");
  return bad;
}
