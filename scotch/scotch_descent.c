/* SPDX-License-Identifier: BSD-3-Clause */
/* A local descent on the modelled iteration time (load plus priced cut) of
 * the slowest part; see scotch_descent.h. */
#include "scotch_descent.h"
#include "scotch_round.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Passes of cut moves per round (each pass visits every object once). */
#define SCOTCHLB_CUT_PASSES 8

/* Chain moves: ends tried per chain, and chains per descent at most (each
 * costs up to a sweep of the graph). */
#define SCOTCHLB_CHAIN_ENDS        4
#define SCOTCHLB_CHAIN_MAX(nparts) (64 + 8 * (long)(nparts))

/* Pieces of parts merge_pieces tries to move, at most, and how much slower
 * (relative) the slowest part may become for a merge: the descent
 * rebalances in whole objects, so that after a merge it often lands a hair
 * above the time it had, while the merged answer has fewer neighbours per
 * part, which the model prices per edge only. */
#define SCOTCHLB_MERGE_TRIES 64
#define SCOTCHLB_MERGE_SLACK 1e-4

/* Objects the first of two receivers may take, at most, in the split
 * trials of a shed. */
#define SCOTCHLB_SHED_SPLITS 16

/* Levels of cut a move back may cost, in mean edge weights (0, 1, ...). */
#define SCOTCHLB_BACK_LEVELS 4

/* Two neighbouring parts holding at most this many objects together are
 * re-solved exactly (pair_resolve): up to 2^14 assignments of the pair.
 * Each object more doubles a search, so the limit is the smallest that
 * reached the best known answer where one was measured (scotch/README.md,
 * "pair re-solve"). */
#define SCOTCHLB_PAIR_OBJECTS 14

/* Rounds of pair re-solving, each followed by the descent, at most. */
#define SCOTCHLB_PAIR_ROUNDS 8

/* Nodes of the pairs' searches per call of pair_rounds, at most: with
 * thousands of small parts the searches would otherwise cost more than
 * everything else (a count, not a clock, so that answers stay the same). */
#define SCOTCHLB_PAIR_NODES (1L << 22)

/* The end of a part's list of objects. */
#define NONE ((size_t)-1)

/* The state of the descent, freed in one place. */
typedef struct dstate {
  size_t n;             /* objects */
  const double *load;   /* load of each object */
  const size_t *start;  /* compressed rows of the symmetric graph */
  const size_t *adj;    /* neighbours */
  const double *ew;     /* edge weights */
  int nparts;           /* parts */
  const double *target; /* target fraction of each part (sum 1) */
  double cost;          /* price of one unit of cut edge weight in load units */
  double lcap;          /* largest load ratio a receiver may reach */
  double total;         /* total load */
  int *part;            /* the assignment being improved */
  double *pload;        /* load of each part */
  double *pcut;         /* cut edge weight at each part (edge ends leaving it) */
  double *wto;          /* scratch: v's edge weight to each part */
  int *touched;         /* scratch: the parts wto holds a value for */
  size_t *head;         /* first object of each part's list (NONE when empty) */
  size_t *next, *prev;  /* each object's neighbours in its part's doubly linked list */
  int *hop_from;        /* chain moves: the part each part was reached from (-2: not yet) */
  int *queue;           /* chain moves: parts in breadth-first order */
  size_t *path;         /* chain moves: the objects moved, in order */
  int *path_to;         /* chain moves: where each of them went */
  int *flag;            /* a mark per part */
  int cut_first;        /* pair_resolve: the cut before the largest time (no price on it) */
  long work;            /* objects and edge ends visited by the searches so far */
  long work_max;        /* the searches stop at this much work (LONG_MAX: unbounded) */
  long moves;           /* moves since the loads were last summed (state_load) */
  unsigned passes;      /* SCOTCHLB_PASS_* steps switched on */
} dstate;

/* Whether the searches have spent their work: a count of objects and edge
 * ends visited, not a clock, so that answers do not depend on the machine.
 * One search (a sweep of a part, a merge try) may finish past it. */
static int out_of_work(const dstate *s) { return s->work >= s->work_max; }

/* The work of visiting object v and its edges once. */
static long visit_cost(const dstate *s, size_t v)
{
  return 1 + (long)(s->start[v + 1] - s->start[v]);
}

/* A part's time relative to its share: load plus priced cut over target. */
static double ptime(const dstate *s, int q, double load, double cut)
{
  double t = load + s->cost * cut;
  if (s->target[q] > 0.0) return t / s->target[q];
  return t > 0.0 ? HUGE_VAL : 0.0;
}

static double time_of(const dstate *s, int q) { return ptime(s, q, s->pload[q], s->pcut[q]); }

/* The edge weight from v to each part, in s->wto (zero elsewhere: the
 * caller clears the touched entries); returns how many parts it touched
 * and v's total edge weight in *wsum. */
static int weights_to_parts(dstate *s, size_t v, double *wsum)
{
  int nt = 0;
  *wsum = 0.0;
  for (size_t j = s->start[v]; j < s->start[v + 1]; j++) {
    int q = s->part[s->adj[j]];
    if (s->wto[q] == 0.0) s->touched[nt++] = q;
    s->wto[q] += s->ew[j];
    *wsum += s->ew[j];
  }
  return nt;
}

static void clear_touched(dstate *s, int nt)
{
  for (int k = 0; k < nt; k++) s->wto[s->touched[k]] = 0.0;
}

/* The times of parts a and b after v moves from a to b. */
static void times_after(const dstate *s, size_t v, int a, int b, double wsum, double *ta,
                        double *tb)
{
  double wa = s->wto[a], wb = s->wto[b];
  /* v's cut edges leave a's count and its edges to a's other objects join
   * it; at b the reverse.  Other parts keep their counts: an edge from
   * them to v is cut before and after. */
  *ta = ptime(s, a, s->pload[a] - s->load[v], s->pcut[a] + 2.0 * wa - wsum);
  *tb = ptime(s, b, s->pload[b] + s->load[v], s->pcut[b] + wsum - 2.0 * wb);
}

/* Whether b may take v under the load bound. */
static int load_allows(const dstate *s, size_t v, int b)
{
  if (s->target[b] <= 0.0) return 0;
  return scotchlb_within(s->pload[b] + s->load[v], s->lcap * s->target[b] * s->total, s->total);
}

static void apply_move(dstate *s, size_t v, int b, double wsum)
{
  int a = s->part[v];
  s->pcut[a] += 2.0 * s->wto[a] - wsum;
  s->pcut[b] += wsum - 2.0 * s->wto[b];
  s->pload[a] -= s->load[v];
  s->pload[b] += s->load[v];
  scotchlb_assert_load(s->pload[a], s->total);
  s->moves++;
  /* Out of a's list, to the front of b's. */
  if (s->prev[v] != NONE)
    s->next[s->prev[v]] = s->next[v];
  else
    s->head[a] = s->next[v];
  if (s->next[v] != NONE) s->prev[s->next[v]] = s->prev[v];
  s->prev[v] = NONE;
  s->next[v] = s->head[b];
  if (s->head[b] != NONE) s->prev[s->head[b]] = v;
  s->head[b] = v;
  s->part[v] = b;
}

static void move_one(dstate *s, size_t v, int b)
{
  double wsum;
  int nt = weights_to_parts(s, v, &wsum);
  apply_move(s, v, b, wsum);
  clear_touched(s, nt);
}

/* The best move that lowers the slowest part sl below its time tmax
 * without lifting another part to it: an object of sl to a part it is
 * connected to (to the fastest part if it has no edges), or a neighbour of
 * sl's objects into sl (which lowers sl's cut).  Returns 1 and the move in *bv, *bb,
 * or 0. */
static int best_move(dstate *s, int sl, double tmax, int fastest, size_t *bv, int *bb)
{
  double best = tmax * (1.0 - SCOTCHLB_ROUND);
  int found = 0;
  for (size_t v = s->head[sl]; v != NONE; v = s->next[v]) {
    double wsum, ta, tb;
    int nt = weights_to_parts(s, v, &wsum);
    s->work += visit_cost(s, v);
    /* Out of sl: to each part it is connected to; an object without
     * edges to the fastest part.  Sending a connected object where it has
     * no neighbour would split the receiver in pieces for a little time
     * (it did on a ring, at 1.12x the cut). */
    for (int c = 0; c <= nt; c++) {
      int b = c < nt ? s->touched[c] : fastest;
      if (b == sl || (c == nt && wsum > 0.0) || !load_allows(s, v, b)) continue;
      times_after(s, v, sl, b, wsum, &ta, &tb);
      double m = ta > tb ? ta : tb;
      if (m < best || (m == best && found && v < *bv)) {
        best = m;
        *bv = v;
        *bb = b;
        found = 1;
      }
    }
    clear_touched(s, nt);
  }
  /* Into sl: the neighbours of its objects held by other parts. */
  for (size_t v = s->head[sl]; v != NONE; v = s->next[v]) {
    for (size_t j = s->start[v]; j < s->start[v + 1]; j++) {
      size_t u = s->adj[j];
      int a = s->part[u];
      double wsum, ta, tb;
      if (a == sl || !load_allows(s, u, sl)) continue;
      int nt = weights_to_parts(s, u, &wsum);
      s->work += visit_cost(s, u);
      times_after(s, u, a, sl, wsum, &ta, &tb);
      clear_touched(s, nt);
      double m = ta > tb ? ta : tb;
      if (m < best || (m == best && found && u < *bv)) {
        best = m;
        *bv = u;
        *bb = sl;
        found = 1;
      }
    }
  }
  return found;
}

/* One pass over the objects in index order: each moves to the connected
 * part that saves the most cut, when it saves some, the receiver may take
 * its load and neither part's time passes tmax.  Returns the moves made
 * (at most budget). */
static long cut_pass(dstate *s, double tmax, long budget)
{
  long moves = 0;
  for (size_t v = 0; v < s->n && moves < budget; v++) {
    int a = s->part[v], b = -1;
    double wsum, gain = 0.0;
    int nt = weights_to_parts(s, v, &wsum);
    s->work += visit_cost(s, v);
    for (int c = 0; c < nt; c++) {
      int q = s->touched[c];
      double g = s->wto[q] - s->wto[a], ta, tb;
      if (q == a || g <= gain || !load_allows(s, v, q)) continue;
      times_after(s, v, a, q, wsum, &ta, &tb);
      if (ta > tmax || tb > tmax) continue;
      gain = g;
      b = q;
    }
    if (b >= 0) {
      apply_move(s, v, b, wsum);
      moves++;
    }
    clear_touched(s, nt);
  }
  return moves;
}

/* The slowest part (lowest index on a tie), its time and the fastest part
 * with a positive target (-1 when none). */
static int slowest(const dstate *s, double *tmax, int *fastest)
{
  int sl = 0;
  double tmin = HUGE_VAL;
  *tmax = -1.0;
  *fastest = -1;
  for (int q = 0; q < s->nparts; q++) {
    double t = time_of(s, q);
    if (t > *tmax) {
      *tmax = t;
      sl = q;
    }
    if (s->target[q] > 0.0 && t < tmin) {
      tmin = t;
      *fastest = q;
    }
  }
  return sl;
}

/* The part loads kept move by move still add up to the total: each move
 * takes from one part what it gives another, so the sum may drift only
 * by rounding, at most one hair of the total per move and per part
 * summed.  Checked when the state is freed, in every build. */
static void state_check(const dstate *s)
{
  double sum = 0.0;
  if (s->pload == NULL || s->part == NULL) return;
  for (int q = 0; q < s->nparts; q++) sum += s->pload[q];
  (void)sum;
  assert(fabs(sum - s->total) <=
         SCOTCHLB_ROUND * fabs(s->total) * (1.0 + (double)s->moves + (double)s->nparts));
}

static void state_free(dstate *s)
{
  state_check(s);
  free(s->hop_from);
  free(s->queue);
  free(s->path);
  free(s->path_to);
  free(s->flag);
  free(s->pload);
  free(s->pcut);
  free(s->wto);
  free(s->touched);
  free(s->head);
  free(s->next);
  free(s->prev);
}

/* Part loads, cut counts and member lists from s->part. */
static void state_load(dstate *s)
{
  s->total = 0.0;
  s->moves = 0;
  for (int q = 0; q < s->nparts; q++) {
    s->head[q] = NONE;
    s->pload[q] = 0.0;
    s->pcut[q] = 0.0;
  }
  /* Built from the last object back, so that each list runs in index
   * order. */
  for (size_t i = s->n; i-- > 0;) {
    int q = s->part[i];
    s->pload[q] += s->load[i];
    s->total += s->load[i];
    for (size_t j = s->start[i]; j < s->start[i + 1]; j++)
      if (s->part[s->adj[j]] != q) s->pcut[q] += s->ew[j];
    s->prev[i] = NONE;
    s->next[i] = s->head[q];
    if (s->head[q] != NONE) s->prev[s->head[q]] = i;
    s->head[q] = i;
  }
}

/* Everything the descent keeps, allocated and loaded from part; 0 or -1
 * when memory ran out (state_free frees what was allocated either way). */
static int state_init(dstate *s, size_t n, const double *load, const size_t *start,
                      const size_t *adj, const double *ew, int nparts, const double *target,
                      double cost, int *part)
{
  size_t np = (size_t)nparts;
  memset(s, 0, sizeof *s);
  s->n = n;
  s->load = load;
  s->start = start;
  s->adj = adj;
  s->ew = ew;
  s->nparts = nparts;
  s->target = target;
  s->cost = cost;
  s->part = part;
  s->work_max = LONG_MAX;
  s->pload = calloc(np, sizeof *s->pload);
  s->pcut = calloc(np, sizeof *s->pcut);
  s->wto = calloc(np, sizeof *s->wto);
  s->touched = malloc(np * sizeof *s->touched);
  s->head = malloc(np * sizeof *s->head);
  s->next = malloc((n + 1) * sizeof *s->next);
  s->prev = malloc((n + 1) * sizeof *s->prev);
  s->hop_from = malloc(np * sizeof *s->hop_from);
  s->queue = malloc(np * sizeof *s->queue);
  s->path = malloc(np * sizeof *s->path);
  s->path_to = malloc(np * sizeof *s->path_to);
  s->flag = calloc(np, sizeof *s->flag);
  if (!s->pload || !s->pcut || !s->wto || !s->touched || !s->head || !s->next || !s->prev ||
      !s->hop_from || !s->queue || !s->path || !s->path_to || !s->flag)
    return -1;
  state_load(s);
  return 0;
}

/* The largest load ratio over parts with a positive target. */
static double worst_load(const dstate *s)
{
  double worst = 0.0;
  for (int q = 0; q < s->nparts; q++)
    if (s->target[q] > 0.0 && s->pload[q] / (s->target[q] * s->total) > worst)
      worst = s->pload[q] / (s->target[q] * s->total);
  return worst;
}

/* The parts next to part p (objects of p with an edge to them), marked in
 * s->flag and listed in out; returns how many. */
static int parts_next_to(dstate *s, int p, int *out)
{
  int k = 0;
  for (size_t v = s->head[p]; v != NONE; v = s->next[v]) {
    s->work += visit_cost(s, v);
    for (size_t j = s->start[v]; j < s->start[v + 1]; j++) {
      int q = s->part[s->adj[j]];
      if (q != p && !s->flag[q] && s->target[q] > 0.0) {
        s->flag[q] = 1;
        out[k++] = q;
      }
    }
  }
  for (int i = 0; i < k; i++) s->flag[out[i]] = 0;
  return k;
}

/* The object of p to send to q: the fewest cut edges added, then the load
 * nearest `want` (the load p received on a chain, or HUGE_VAL for the
 * heaviest), the lowest index on a tie; never `avoid` (the object that
 * just arrived: forwarding it would skip a part).  NONE when p has no
 * object next to q. */
static size_t hop_object(dstate *s, int p, int q, double want, size_t avoid)
{
  size_t best = NONE;
  double bd = HUGE_VAL, bl = HUGE_VAL;
  for (size_t v = s->head[p]; v != NONE; v = s->next[v]) {
    double wsum;
    int nt = weights_to_parts(s, v, &wsum);
    s->work += visit_cost(s, v);
    double wq = s->wto[q], delta = s->wto[p] - wq;
    clear_touched(s, nt);
    if (wq <= 0.0 || v == avoid) continue;
    double off = want == HUGE_VAL ? -s->load[v] : fabs(s->load[v] - want);
    if (delta < bd || (delta == bd && (off < bl || (off == bl && v < best)))) {
      bd = delta;
      bl = off;
      best = v;
    }
  }
  return best;
}

/* A chain move for the slowest part sl, when no single move helps (all its
 * neighbours are about as slow): one object from sl to a neighbour, one
 * from that neighbour onwards, and so on to a part with time to spare,
 * along the shortest path of parts (breadth first, lowest part first).
 * Kept when every part on the path ends below tmax; else undone.  Up to
 * SCOTCHLB_CHAIN_ENDS ends are tried.  Returns the objects moved (0: no
 * chain helped). */
static long chain_move(dstate *s, int sl, double tmax)
{
  int head = 0, tail = 0, ends = 0;
  for (int q = 0; q < s->nparts; q++) s->hop_from[q] = -2;
  s->hop_from[sl] = -1;
  s->queue[tail++] = sl;
  int *nb = s->touched; /* free while no weights_to_parts runs */
  while (head < tail && ends < SCOTCHLB_CHAIN_ENDS) {
    int p = s->queue[head++];
    int k = parts_next_to(s, p, nb);
    int found[64], nf = 0;
    for (int i = 0; i < k; i++) {
      int q = nb[i];
      if (s->hop_from[q] != -2) continue;
      s->hop_from[q] = p;
      s->queue[tail++] = q;
      if (p != sl && nf < 64) found[nf++] = q;
    }
    /* Ends at distance >= 2 only: a neighbour of sl is a single move. */
    for (int i = 0; i < nf && ends < SCOTCHLB_CHAIN_ENDS; i++) {
      int d = found[i];
      if (!scotchlb_below(time_of(s, d), tmax, tmax)) continue;
      ends++;
      /* The path from sl to d, walked from the d end back. */
      int len = 0;
      for (int q = d; q != sl; q = s->hop_from[q]) s->path_to[len++] = q;
      long k2 = 0;
      double want = HUGE_VAL;
      int from = sl, ok = 1;
      for (int h = len; h-- > 0;) {
        int to = s->path_to[h];
        size_t v = hop_object(s, from, to, want, k2 > 0 ? s->path[k2 - 1] : NONE);
        if (v == NONE || !load_allows(s, v, to)) {
          ok = 0;
          break;
        }
        want = s->load[v];
        move_one(s, v, to);
        s->path[k2++] = v;
        from = to;
      }
      double worst = 0.0;
      for (int q = d; ok && q != -1; q = s->hop_from[q]) worst = fmax(worst, time_of(s, q));
      if (ok && scotchlb_below(worst, tmax, tmax)) return k2;
      /* Undone in reverse: each object back where it came from. */
      for (long i = k2; i-- > 0;) move_one(s, s->path[i], i > 0 ? s->part[s->path[i - 1]] : sl);
    }
  }
  return 0;
}

/* Rounds of two phases: the slowest part's time down, move by move, then
 * the cut down under that time.  Each phase lowers (largest time, cut) in
 * that order, so the rounds end; the budget bounds them anyway.  Returns
 * the moves made. */
static long descend(dstate *s, long budget)
{
  long moves = 0, chains = 0;
  for (int round = 0; moves < budget && !out_of_work(s); round++) {
    long before = moves, cut_moves = 0;
    double tmax;
    int fastest, sl;
    for (;;) {
      sl = slowest(s, &tmax, &fastest);
      size_t v = 0;
      int b = -1;
      if (moves >= budget || fastest < 0 || out_of_work(s)) break;
      if (!best_move(s, sl, tmax, fastest, &v, &b)) {
        long k = (s->passes & SCOTCHLB_PASS_CHAIN) && chains < SCOTCHLB_CHAIN_MAX(s->nparts)
                     ? chain_move(s, sl, tmax)
                     : 0;
        if (k == 0) break;
        chains++;
        moves += k;
        continue;
      }
      move_one(s, v, b);
      moves++;
    }
    if (round > 0 && moves == before) break;
    if (!(s->passes & SCOTCHLB_PASS_CUT)) break;
    sl = slowest(s, &tmax, &fastest);
    for (int pass = 0; pass < SCOTCHLB_CUT_PASSES && moves < budget && !out_of_work(s); pass++) {
      long m = cut_pass(s, tmax, budget - moves);
      moves += m;
      cut_moves += m;
      if (m == 0) break;
    }
    if (cut_moves == 0) break;
  }
  return moves;
}

static double total_cut(const dstate *s)
{
  double c = 0.0;
  for (int q = 0; q < s->nparts; q++) c += s->pcut[q];
  return c;
}

/* Labels the connected pieces of the parts (comp[i], numbered in order of
 * their lowest object) and returns how many pieces there are; stack is n
 * of scratch.  One sweep of the graph, counted as work. */
static size_t label_pieces(dstate *s, size_t *comp, size_t *stack)
{
  size_t nc = 0;
  for (size_t i = 0; i < s->n; i++) comp[i] = NONE;
  for (size_t i = 0; i < s->n; i++) {
    if (comp[i] != NONE) continue;
    size_t sp = 0;
    comp[i] = nc;
    stack[sp++] = i;
    while (sp > 0) {
      size_t v = stack[--sp];
      s->work += visit_cost(s, v);
      for (size_t j = s->start[v]; j < s->start[v + 1]; j++) {
        size_t u = s->adj[j];
        if (comp[u] == NONE && s->part[u] == s->part[i]) {
          comp[u] = nc;
          stack[sp++] = u;
        }
      }
    }
    nc++;
  }
  return nc;
}

/* Links each of the nc pieces' objects in index order (first[c], then
 * cnext[i], NONE at the end), built from the last object back. */
static void link_pieces(const dstate *s, size_t nc, const size_t *comp, size_t *first,
                        size_t *cnext)
{
  for (size_t c = 0; c < nc; c++) first[c] = NONE;
  for (size_t i = s->n; i-- > 0;) {
    cnext[i] = first[comp[i]];
    first[comp[i]] = i;
  }
}

/* Scratch of merge_pieces beyond the labels, allocated only when some part
 * is in pieces: on a large graph Scotch's parts are usually whole, and the
 * first touch of 6 arrays of n entries cost more than the labelling. */
typedef struct merge_scratch {
  size_t *first, *cnext; /* the pieces' lists (link_pieces) */
  size_t *heaviest;      /* the heaviest piece of each part */
  size_t *csize;         /* objects of each piece */
  int *backup;           /* the parts before a try */
  double *cload;         /* load of each piece */
} merge_scratch;

static void merge_scratch_free(merge_scratch *m)
{
  free(m->first);
  free(m->cnext);
  free(m->heaviest);
  free(m->csize);
  free(m->backup);
  free(m->cload);
}

static int merge_scratch_alloc(merge_scratch *m, size_t n, size_t np)
{
  if (m->first) return 0;
  m->first = malloc((n + 1) * sizeof *m->first);
  m->cnext = malloc((n + 1) * sizeof *m->cnext);
  m->heaviest = malloc(np * sizeof *m->heaviest);
  m->csize = malloc((n + 1) * sizeof *m->csize);
  m->backup = malloc((n + 1) * sizeof *m->backup);
  m->cload = malloc((n + 1) * sizeof *m->cload);
  return m->first && m->cnext && m->heaviest && m->csize && m->backup && m->cload ? 0 : -1;
}

/* Pieces of parts cut off from the rest of their part cost cut for little
 * gain in time: each piece but the heaviest of its part (by load, then by
 * objects) goes, as a whole, to the part it has most edge weight to, and
 * the descent then rebalances; the result is kept when the largest time is
 * no worse, the load bound holds and the cut is smaller, else undone.  At
 * most SCOTCHLB_MERGE_TRIES tries, and none once the work bound is spent
 * (a try costs two sweeps of the graph and its descent).  Returns the moves
 * kept, or -1 when memory ran out. */
static long merge_pieces(dstate *s, long budget)
{
  size_t n = s->n, np = (size_t)s->nparts;
  size_t *comp = malloc((n + 1) * sizeof *comp), *stack = malloc((n + 1) * sizeof *stack);
  merge_scratch ms;
  long moves = 0;
  int tries = 0;
  memset(&ms, 0, sizeof ms);
  if (!comp || !stack) {
    moves = -1;
    goto end;
  }
  for (int changed = 1; changed && moves < budget && tries < SCOTCHLB_MERGE_TRIES;) {
    size_t nc = label_pieces(s, comp, stack);
    changed = 0;
    if (nc <= np) break;
    if (merge_scratch_alloc(&ms, n, np) != 0) {
      moves = -1;
      goto end;
    }
    link_pieces(s, nc, comp, ms.first, ms.cnext);
    for (size_t c = 0; c < nc; c++) {
      ms.cload[c] = 0.0;
      ms.csize[c] = 0;
      for (size_t i = ms.first[c]; i != NONE; i = ms.cnext[i]) {
        ms.cload[c] += s->load[i];
        ms.csize[c]++;
      }
    }
    for (size_t q = 0; q < np; q++) ms.heaviest[q] = NONE;
    for (size_t c = 0; c < nc; c++) {
      size_t *h = &ms.heaviest[s->part[ms.first[c]]];
      if (*h == NONE || ms.cload[c] > ms.cload[*h] ||
          (ms.cload[c] == ms.cload[*h] && ms.csize[c] > ms.csize[*h]))
        *h = c;
    }
    for (size_t c = 0; c < nc && !changed && tries < SCOTCHLB_MERGE_TRIES && !out_of_work(s); c++) {
      int a = s->part[ms.first[c]], b = -1, nt = 0;
      if (ms.heaviest[a] == c) continue;
      /* The part the piece has most edge weight to. */
      for (size_t i = ms.first[c]; i != NONE; i = ms.cnext[i]) {
        s->work += visit_cost(s, i);
        for (size_t j = s->start[i]; j < s->start[i + 1]; j++) {
          int q = s->part[s->adj[j]];
          if (q == a) continue;
          if (s->wto[q] == 0.0) s->touched[nt++] = q;
          s->wto[q] += s->ew[j];
        }
      }
      for (int k = 0; k < nt; k++) {
        int q = s->touched[k];
        if (s->target[q] > 0.0 &&
            (b < 0 || s->wto[q] > s->wto[b] || (s->wto[q] == s->wto[b] && q < b)))
          b = q;
      }
      clear_touched(s, nt);
      if (b < 0) continue;
      tries++;
      double t0, t1, c0 = total_cut(s);
      int fastest;
      slowest(s, &t0, &fastest);
      memcpy(ms.backup, s->part, n * sizeof *ms.backup);
      long m = (long)ms.csize[c];
      for (size_t i = ms.first[c]; i != NONE; i = ms.cnext[i]) s->part[i] = b;
      state_load(s);
      s->work += (long)(n + s->start[n]);
      m += descend(s, budget - moves);
      slowest(s, &t1, &fastest);
      if (t1 <= t0 * (1.0 + SCOTCHLB_MERGE_SLACK) &&
          scotchlb_within(worst_load(s), s->lcap, s->lcap) &&
          scotchlb_below(total_cut(s), c0, c0)) {
        moves += m;
        changed = 1;
      } else {
        memcpy(s->part, ms.backup, n * sizeof *ms.backup);
        state_load(s);
        s->work += (long)(n + s->start[n]);
      }
    }
  }
end:
  free(comp);
  free(stack);
  merge_scratch_free(&ms);
  return moves;
}

/* What a pair's assignment is judged by, in order: load above the bound
 * (summed over the two parts), the largest time of all parts, the cut
 * edge weight inside the pair, then the larger and the smaller of the
 * pair's two times; with cut_first, the cut before the largest time.  The
 * other parts' times and cuts do not change when the pair's objects trade
 * places (an edge to them is cut either way), so comparing these keys
 * compares the whole partition's (load above the bound, largest time, cut,
 * sorted times). */
typedef struct pair_key {
  double over, tmax, cut, hi, lo;
  int moved; /* objects that change part: the fewer, the better on a tie */
} pair_key;

static int key_less(const pair_key *x, const pair_key *y, int cut_first)
{
  double a[5] = {x->over, x->tmax, x->cut, x->hi, x->lo};
  double b[5] = {y->over, y->tmax, y->cut, y->hi, y->lo};
  if (cut_first) {
    a[1] = x->cut;
    a[2] = x->tmax;
    b[1] = y->cut;
    b[2] = y->tmax;
  }
  for (int i = 0; i < 5; i++) {
    double tol = SCOTCHLB_ROUND * fmax(fabs(a[i]), fabs(b[i]));
    if (a[i] < b[i] - tol) return 1;
    if (a[i] > b[i] + tol) return 0;
  }
  return x->moved < y->moved;
}

/* A part's load bound, with the margin load_allows gives (a part holding
 * only the object that sets the bound is within it, whatever the
 * rounding of the sums). */
static double pair_cap(const dstate *s, int q)
{
  return s->lcap * s->target[q] * s->total + SCOTCHLB_ROUND * s->total;
}

/* The key of the pair (a, b) with the objects of u on side a where their
 * bit in side is set: loads, external and internal cut weights given. */
static pair_key pair_eval(const dstate *s, int a, int b, double la, double lb, double xa, double xb,
                          double in, double others)
{
  pair_key k;
  double ca = pair_cap(s, a), cb = pair_cap(s, b);
  double ta = ptime(s, a, la, xa + in), tb = ptime(s, b, lb, xb + in);
  k.over = fmax(0.0, la - ca) + fmax(0.0, lb - cb);
  k.hi = fmax(ta, tb);
  k.lo = fmin(ta, tb);
  k.tmax = fmax(others, k.hi);
  k.cut = in;
  k.moved = 0;
  return k;
}

/* Scratch of pair_resolve, for at most SCOTCHLB_PAIR_OBJECTS objects. */
typedef struct pair_scratch {
  const dstate *s;
  int a, b;                          /* the pair */
  int m;                             /* its objects */
  double others;                     /* the largest time of the other parts */
  double ca, cb;                     /* the two parts' load bounds */
  size_t u[SCOTCHLB_PAIR_OBJECTS];   /* the pair's objects, heaviest first */
  double ext[SCOTCHLB_PAIR_OBJECTS]; /* each one's edge weight to other parts */
  int side[SCOTCHLB_PAIR_OBJECTS];   /* 1: in part a (assigned so far) */
  int now[SCOTCHLB_PAIR_OBJECTS];    /* 1: in part a now */
  int best[SCOTCHLB_PAIR_OBJECTS];   /* the best sides found */
  /* Each object's neighbours inside the pair that come before it in u
   * (their indices) and the edge weights. */
  int nin[SCOTCHLB_PAIR_OBJECTS];
  int in_k[SCOTCHLB_PAIR_OBJECTS][SCOTCHLB_PAIR_OBJECTS];
  double in_w[SCOTCHLB_PAIR_OBJECTS][SCOTCHLB_PAIR_OBJECTS];
  pair_key bk; /* the best key found */
  int found;
  long nodes; /* search nodes left (SCOTCHLB_PAIR_NODES) */
} pair_scratch;

/* Whether object a goes before b in a pair's search: heavier first, then
 * the lower index. */
static int heavier_object(size_t a, size_t b, const double *load)
{
  if (load[a] != load[b]) return load[a] > load[b];
  return a < b;
}

/* Objects i.. of the pair given sides, the first i placed with loads la,
 * lb, external weights xa, xb and internal cut in.  A partial assignment
 * only gains load and cut as objects are placed, so a branch stops as
 * soon as its load above the bounds, or (that being equal) its largest
 * time or cut, whichever the key puts next, is already worse than the best
 * complete one. */
static void pair_search(pair_scratch *ps, int i, double la, double lb, double xa, double xb,
                        double in)
{
  const dstate *s = ps->s;
  /* Out of nodes: the best found so far stands (it is a whole assignment). */
  if (ps->nodes <= 0) return;
  ps->nodes--;
  double over = (la > ps->ca ? la - ps->ca : 0.0) + (lb > ps->cb ? lb - ps->cb : 0.0);
  double tol = SCOTCHLB_ROUND * (over + ps->bk.over);
  if (over > ps->bk.over + tol) return;
  if (over >= ps->bk.over - tol) {
    double ta = ptime(s, ps->a, la, xa + in), tb = ptime(s, ps->b, lb, xb + in);
    double t = ps->others > ta ? ps->others : ta;
    t = t > tb ? t : tb;
    double second = s->cut_first ? in : t, bound = s->cut_first ? ps->bk.cut : ps->bk.tmax;
    if (!scotchlb_within(second, bound, second + bound)) return;
  }
  if (i == ps->m) {
    pair_key key = pair_eval(s, ps->a, ps->b, la, lb, xa, xb, in, ps->others);
    for (int k = 0; k < ps->m; k++) key.moved += ps->side[k] != ps->now[k];
    if (key_less(&key, &ps->bk, s->cut_first)) {
      ps->bk = key;
      ps->found = 1;
      memcpy(ps->best, ps->side, (size_t)ps->m * sizeof *ps->best);
    }
    return;
  }
  size_t v = ps->u[i];
  for (int side = 1; side >= 0; side--) {
    double d = 0.0;
    ps->side[i] = side;
    for (int e = 0; e < ps->nin[i]; e++)
      if (ps->side[ps->in_k[i][e]] != side) d += ps->in_w[i][e];
    if (side)
      pair_search(ps, i + 1, la + s->load[v], lb, xa + ps->ext[i], xb, in + d);
    else
      pair_search(ps, i + 1, la, lb + s->load[v], xa, xb + ps->ext[i], in + d);
  }
}

/* The three slowest parts (-1 where there are fewer), so that the slowest
 * part outside any pair is known without a pass over the parts. */
static void slowest_three(const dstate *s, int top[3])
{
  double t[3] = {-1.0, -1.0, -1.0};
  top[0] = top[1] = top[2] = -1;
  for (int q = 0; q < s->nparts; q++) {
    double x = time_of(s, q);
    for (int k = 0; k < 3; k++)
      if (x > t[k]) {
        for (int j = 2; j > k; j--) {
          t[j] = t[j - 1];
          top[j] = top[j - 1];
        }
        t[k] = x;
        top[k] = q;
        break;
      }
  }
}

/* The largest time of the parts other than a and b, from slowest_three. */
static double time_without(const dstate *s, const int top[3], int a, int b)
{
  for (int k = 0; k < 3; k++)
    if (top[k] >= 0 && top[k] != a && top[k] != b) return time_of(s, top[k]);
  return 0.0;
}

/* Re-solves the pair of neighbouring parts (a, b) exactly: every
 * assignment of their objects (at most SCOTCHLB_PAIR_OBJECTS) to the two
 * parts, searched depth first with bounds (pair_search), and the best by
 * pair_key replaces the current one when strictly better.  The single
 * moves and chains of the descent cannot see an answer that needs several
 * objects to trade places at once; on the Charm++ synthetic's ring this
 * found the fastest answer known.  others is the largest time of the other
 * parts.  Returns the objects moved (0 when the pair stays). */
static long pair_resolve(dstate *s, int a, int b, double others, pair_scratch *ps)
{
  int m = 0;
  double la = 0.0, lb = 0.0, xa = 0.0, xb = 0.0, in = 0.0;
  for (int q = 0; q < 2; q++)
    for (size_t v = s->head[q ? b : a]; v != NONE; v = s->next[v]) ps->u[m++] = v;
  /* Heaviest first: the load bounds cut the search earliest. */
  for (int i = 1; i < m; i++)
    for (int k = i; k > 0 && heavier_object(ps->u[k], ps->u[k - 1], s->load); k--) {
      size_t t = ps->u[k];
      ps->u[k] = ps->u[k - 1];
      ps->u[k - 1] = t;
    }
  for (int i = 0; i < m; i++) {
    size_t v = ps->u[i];
    ps->ext[i] = 0.0;
    ps->nin[i] = 0;
    for (size_t j = s->start[v]; j < s->start[v + 1]; j++) {
      int q = s->part[s->adj[j]], k = 0;
      if (q != a && q != b) {
        ps->ext[i] += s->ew[j];
        continue;
      }
      while (ps->u[k] != s->adj[j]) k++;
      /* Each edge inside the pair once, at its later end in u. */
      if (k < i) {
        ps->in_k[i][ps->nin[i]] = k;
        ps->in_w[i][ps->nin[i]++] = s->ew[j];
      }
      if (q != s->part[v] && s->adj[j] > v) in += s->ew[j];
    }
    ps->now[i] = s->part[v] == a;
    if (s->part[v] == a) {
      la += s->load[v];
      xa += ps->ext[i];
    } else {
      lb += s->load[v];
      xb += ps->ext[i];
    }
  }
  ps->s = s;
  ps->a = a;
  ps->b = b;
  ps->m = m;
  ps->others = others;
  ps->ca = pair_cap(s, a);
  ps->cb = pair_cap(s, b);
  ps->bk = pair_eval(s, a, b, la, lb, xa, xb, in, others);
  ps->found = 0;
  pair_key cur = ps->bk;
  pair_search(ps, 0, 0.0, 0.0, 0.0, 0.0, 0.0);
  long moved = 0;
  if (!ps->found || !key_less(&ps->bk, &cur, s->cut_first)) return 0;
  for (int i = 0; i < m; i++) {
    int q = ps->best[i] ? a : b;
    if (s->part[ps->u[i]] != q) {
      move_one(s, ps->u[i], q);
      moved++;
    }
  }
  return moved;
}

/* Passes of cut moves within the load bound itself (no price on the cut:
 * a part's time is its load over its target), until one moves nothing. */
static long cut_passes(dstate *s, long budget)
{
  long moves = 0;
  for (int pass = 0; pass < SCOTCHLB_CUT_PASSES && moves < budget && !out_of_work(s); pass++) {
    long m = cut_pass(s, s->lcap * s->total * (1.0 + SCOTCHLB_ROUND), budget - moves);
    moves += m;
    if (m == 0) break;
  }
  return moves;
}

/* Rounds over the pairs of neighbouring parts small enough to re-solve,
 * each round followed by the descent (by cut passes with cut_first), until
 * a round changes nothing.  A pair is re-solved again only when one of its
 * parts changed since.  Returns the moves, or -1 when memory ran out. */
static long pair_rounds(dstate *s, long budget)
{
  int np = s->nparts;
  size_t n = s->n;
  pair_scratch *ps = malloc(sizeof *ps);
  unsigned char *dirty = malloc((size_t)np), *next = calloc((size_t)np, 1);
  int *before = malloc((n + 1) * sizeof *before), *size = calloc((size_t)np, sizeof *size);
  long moves = 0;
  if (!ps || !dirty || !next || !before || !size) {
    moves = -1;
    goto end;
  }
  memset(dirty, 1, (size_t)np);
  ps->nodes = SCOTCHLB_PAIR_NODES;
  for (size_t v = 0; v < n; v++) size[s->part[v]]++;
  for (int round = 0;
       round < SCOTCHLB_PAIR_ROUNDS && moves < budget && ps->nodes > 0 && !out_of_work(s);
       round++) {
    long before_moves = moves;
    int top[3];
    slowest_three(s, top);
    for (int a = 0; a < np && moves < budget && ps->nodes > 0; a++) {
      if (s->target[a] <= 0.0 || size[a] > SCOTCHLB_PAIR_OBJECTS) continue;
      int k = parts_next_to(s, a, s->queue);
      for (int i = 0; i < k && moves < budget; i++) {
        int b = s->queue[i];
        if (b <= a || (!dirty[a] && !dirty[b]) || size[a] + size[b] > SCOTCHLB_PAIR_OBJECTS)
          continue;
        long mv = pair_resolve(s, a, b, time_without(s, top, a, b), ps);
        if (mv > 0) {
          slowest_three(s, top);
          next[a] = next[b] = 1;
          size[a] = size[b] = 0;
          for (size_t v = s->head[a]; v != NONE; v = s->next[v]) size[a]++;
          for (size_t v = s->head[b]; v != NONE; v = s->next[v]) size[b]++;
        }
        moves += mv;
      }
    }
    if (moves == before_moves) break;
    memcpy(before, s->part, n * sizeof *before);
    moves += s->cut_first ? cut_passes(s, budget - moves) : descend(s, budget - moves);
    for (size_t v = 0; v < n; v++)
      if (s->part[v] != before[v]) {
        next[before[v]] = next[s->part[v]] = 1;
        size[before[v]]--;
        size[s->part[v]]++;
      }
    memcpy(dirty, next, (size_t)np);
    memset(next, 0, (size_t)np);
  }
end:
  free(ps);
  free(dirty);
  free(next);
  free(before);
  free(size);
  return moves;
}

long scotchlb_time_descent(size_t n, const double *load, const size_t *start, const size_t *adj,
                           const double *ew, int nparts, const double *target, double comm_cost,
                           double load_cap, long max_moves, unsigned passes, int *part)
{
  dstate s;
  long moves = 0;
  if (state_init(&s, n, load, start, adj, ew, nparts, target, comm_cost, part) != 0) {
    moves = -1;
    goto end;
  }
  s.passes = passes;
  if (s.total <= 0.0) goto end;
  /* Receivers stay within the tolerance, or within the worst load ratio
   * of the input when that is already above it. */
  s.lcap = fmax(load_cap, worst_load(&s));
  moves = descend(&s, max_moves);
  long mm = (passes & SCOTCHLB_PASS_MERGE) ? merge_pieces(&s, max_moves - moves) : 0;
  moves = mm < 0 ? -1 : moves + mm;
  if (moves >= 0 && (passes & SCOTCHLB_PASS_PAIRS)) {
    /* The pairs judge load against the bound asked for, so that a part
     * the input left above it is brought down where a pair can. */
    s.lcap = load_cap;
    long pm = pair_rounds(&s, max_moves - moves);
    moves = pm < 0 ? -1 : moves + pm;
  }
end:
  state_free(&s);
  return moves;
}

long scotchlb_cut_refine(size_t n, const double *load, const size_t *start, const size_t *adj,
                         const double *ew, int nparts, const double *target, double load_cap,
                         long max_moves, unsigned passes, int *part)
{
  return scotchlb_cut_refine_work(n, load, start, adj, ew, nparts, target, load_cap, max_moves,
                                  LONG_MAX, passes, part);
}

long scotchlb_cut_refine_work(size_t n, const double *load, const size_t *start, const size_t *adj,
                              const double *ew, int nparts, const double *target, double load_cap,
                              long max_moves, long max_work, unsigned passes, int *part)
{
  dstate s;
  long moves = 0;
  if (state_init(&s, n, load, start, adj, ew, nparts, target, 0.0, part) != 0) {
    moves = -1;
    goto end;
  }
  s.passes = passes;
  s.work_max = max_work;
  if (s.total <= 0.0) goto end;
  s.lcap = fmax(load_cap, worst_load(&s));
  /* With no price on the cut a part's time is its load over its target,
   * so the cut passes' time bound is the load bound itself: receivers
   * stay within it, whatever the current worst part. */
  if (passes & SCOTCHLB_PASS_CUT) moves = cut_passes(&s, max_moves);
  if (passes & SCOTCHLB_PASS_MERGE) {
    long mm = merge_pieces(&s, max_moves - moves);
    moves = mm < 0 ? -1 : moves + mm;
  }
  if (moves >= 0 && (passes & SCOTCHLB_PASS_PAIRS)) {
    s.lcap = load_cap;
    s.cut_first = 1;
    long pm = pair_rounds(&s, max_moves - moves);
    moves = pm < 0 ? -1 : moves + pm;
  }
end:
  state_free(&s);
  return moves;
}

/* Whether an object of load x is a better move than one of load y (index
 * u against w) for a part over its bound by `over`: one that covers the
 * excess alone, the lightest of those; else the heaviest. */
static int shed_better(double x, double y, double over, size_t u, size_t w)
{
  int cx = x >= over, cy = y >= over;
  if (cx != cy) return cx;
  if (x != y) return cx ? x < y : x > y;
  return u < w;
}

/* The next object part sl sheds, over its bound by `over`: to `only` (or
 * to any part when only < 0), a connected part with room; the move that
 * adds least cut, then by shed_better.  Returns NONE when there is none. */
static size_t shed_pick(dstate *s, int sl, int only, double over, int *bb)
{
  size_t bv = NONE;
  double bdelta = HUGE_VAL;
  for (size_t v = s->head[sl]; v != NONE; v = s->next[v]) {
    double wsum;
    int nt = weights_to_parts(s, v, &wsum);
    for (int c = 0; c < nt; c++) {
      int b = s->touched[c];
      if (b == sl || (only >= 0 && b != only) || !load_allows(s, v, b)) continue;
      double delta = s->wto[sl] - s->wto[b];
      if (delta < bdelta ||
          (delta == bdelta && shed_better(s->load[v], s->load[bv], over, v, bv))) {
        bdelta = delta;
        bv = v;
        *bb = b;
      }
    }
    clear_touched(s, nt);
  }
  return bv;
}

/* Part sl sheds toward `only` (any part when < 0) until it is within cap
 * or nothing can go; the objects moved go to seq.  Returns their number. */
static long shed_run(dstate *s, int sl, int only, double cap, size_t *seq, long budget)
{
  long k = 0;
  while (k < budget && !scotchlb_within(s->pload[sl], cap, s->total)) {
    int b = -1;
    size_t v = shed_pick(s, sl, only, s->pload[sl] - cap, &b);
    if (v == NONE) break;
    move_one(s, v, b);
    seq[k++] = v;
  }
  return k;
}

/* What one trial of a shed moved. */
typedef struct shed_trial {
  long k;      /* objects moved */
  double shed; /* load moved */
  int cover;   /* 1 when the part ended within its bound */
} shed_trial;

/* One trial of a shed from part sl, undone before it returns: k1 objects
 * toward b1 (all it takes when b2 < 0), then the rest toward b2.  Fills
 * *t with what it moved; seq is scratch. */
static void shed_try(dstate *s, int sl, int b1, long k1, int b2, double cap, size_t *seq,
                     long budget, shed_trial *t)
{
  double before = s->pload[sl];
  long k = shed_run(s, sl, b1, cap, seq, b2 >= 0 && k1 < budget ? k1 : budget);
  if (b2 >= 0 && k == k1) k += shed_run(s, sl, b2, cap, seq + k, budget - k);
  t->k = k;
  t->cover = scotchlb_within(s->pload[sl], cap, s->total);
  t->shed = before - s->pload[sl];
  for (long i = k; i-- > 0;) move_one(s, seq[i], sl);
}

/* Whether trial x beats y: covering beats not; between covering ones, fewer
 * objects, then less load (the two amounts a migration is judged by, in
 * the order a transfer pays them); between others, the larger load shed. */
static int trial_better(const shed_trial *x, const shed_trial *y)
{
  if (x->k == 0) return 0;
  if (y->k == 0 || x->cover != y->cover) return y->k == 0 || x->cover;
  if (!x->cover) return x->shed > y->shed;
  if (x->k != y->k) return x->k < y->k;
  return scotchlb_below(x->shed, y->shed, y->shed);
}

long scotchlb_shed(size_t n, const double *load, const size_t *start, const size_t *adj,
                   const double *ew, int nparts, const double *target, double load_cap,
                   long max_moves, int *part)
{
  dstate s;
  long moves = 0;
  size_t *seq = malloc((n + 1) * sizeof *seq);
  int *near = calloc((size_t)nparts + 1, sizeof *near);
  if (state_init(&s, n, load, start, adj, ew, nparts, target, 0.0, part) != 0 || !seq || !near) {
    moves = -1;
    goto end;
  }
  if (s.total <= 0.0) goto end;
  s.lcap = load_cap;
  while (moves < max_moves) {
    /* The part furthest above the bound. */
    int sl = -1;
    double over = 0.0;
    for (int q = 0; q < nparts; q++) {
      double cap = load_cap * target[q] * s.total;
      if (!scotchlb_within(s.pload[q], cap, s.total) && (sl < 0 || s.pload[q] - cap > over)) {
        over = s.pload[q] - cap;
        sl = q;
      }
    }
    if (sl < 0) break;
    double cap = load_cap * target[sl] * s.total;
    long budget = max_moves - moves;
    /* Each neighbouring part in turn is tried as the only receiver, and
     * undone: the greedy choice of one object at a time cannot see a
     * heavy object behind a light one on a border, the trial can.  Then
     * the two best receivers share the excess, the first taking 1, 2, ...
     * objects of its run: on a border of few candidates (a chain, a ring)
     * the split overshoots the excess least. */
    for (size_t v = s.head[sl]; v != NONE; v = s.next[v])
      for (size_t j = start[v]; j < start[v + 1]; j++) near[part[adj[j]]] = 1;
    near[sl] = 0;
    int best = -1, second = -1;
    shed_trial tb = {0, 0.0, 0}, t2 = {0, 0.0, 0}, t;
    for (int b = 0; b < nparts; b++) {
      if (!near[b]) continue;
      near[b] = 0;
      shed_try(&s, sl, b, 0, -1, cap, seq, budget, &t);
      if (trial_better(&t, &tb)) {
        second = best;
        t2 = tb;
        best = b;
        tb = t;
      } else if (trial_better(&t, &t2)) {
        second = b;
        t2 = t;
      }
    }
    if (best < 0) break;
    int b1 = best, b2 = -1;
    long k1 = 0;
    for (int order = 0; second >= 0 && order < 2; order++) {
      int x = order ? second : best, y = order ? best : second;
      long kx = order ? t2.k : tb.k;
      for (long k = 1; k < kx && k <= SCOTCHLB_SHED_SPLITS; k++) {
        shed_try(&s, sl, x, k, y, cap, seq, budget, &t);
        if (trial_better(&t, &tb)) {
          tb = t;
          b1 = x;
          b2 = y;
          k1 = k;
        }
      }
    }
    if (b2 < 0) {
      moves += shed_run(&s, sl, b1, cap, seq, budget);
    } else {
      long k = shed_run(&s, sl, b1, cap, seq, k1);
      moves += k + shed_run(&s, sl, b2, cap, seq, budget - k);
    }
  }
end:
  state_free(&s);
  free(seq);
  free(near);
  return moves;
}

/* An object and its load, sorted for the visiting order of a move back. */
typedef struct keyed {
  double load;
  size_t v;
} keyed;

static int heavier_first(const void *x, const void *y)
{
  const keyed *a = x, *b = y;
  if (a->load != b->load) return a->load > b->load ? -1 : 1;
  return (a->v > b->v) - (a->v < b->v);
}

static int lighter_first(const void *x, const void *y)
{
  const keyed *a = x, *b = y;
  if (a->load != b->load) return a->load < b->load ? -1 : 1;
  return (a->v > b->v) - (a->v < b->v);
}

long scotchlb_move_back(size_t n, const double *load, const size_t *start, const size_t *adj,
                        const double *ew, int nparts, const double *target, const int *cur,
                        double load_cap, double cut_limit, int visit, int *part)
{
  double *pload = calloc((size_t)nparts, sizeof *pload);
  keyed *order = malloc((n + 1) * sizeof *order);
  double total = 0.0, cut = 0.0, ewsum = 0.0;
  long moves = 0;
  if (!pload || !order) {
    moves = -1;
    goto end;
  }
  for (size_t i = 0; i < n; i++) {
    pload[part[i]] += load[i];
    total += load[i];
    for (size_t j = start[i]; j < start[i + 1]; j++) {
      ewsum += ew[j];
      if (adj[j] > i && part[adj[j]] != part[i]) cut += ew[j];
    }
  }
  for (size_t i = 0; i < n; i++) {
    order[i].load = load[i];
    order[i].v = i;
  }
  if (visit == SCOTCHLB_BACK_HEAVY) qsort(order, n, sizeof *order, heavier_first);
  if (visit == SCOTCHLB_BACK_LIGHT) qsort(order, n, sizeof *order, lighter_first);
  {
    double worst = 0.0, mean_ew = start[n] > 0 ? ewsum / (double)start[n] : 1.0;
    for (int q = 0; q < nparts; q++)
      if (target[q] > 0.0 && total > 0.0 && pload[q] / (target[q] * total) > worst)
        worst = pload[q] / (target[q] * total);
    if (worst > load_cap) load_cap = worst;
    /* Moves that cost no cut first, then ones that cost up to 1, 2, ...
     * mean edges each: the cheap ones open the way for their neighbours. */
    for (int level = 0; level <= SCOTCHLB_BACK_LEVELS; level++) {
      double thr = level * mean_ew;
      for (int pass = 0; pass < SCOTCHLB_CUT_PASSES; pass++) {
        long m = 0;
        for (size_t i = 0; i < n; i++) {
          size_t v = order[i].v;
          int a = cur[v], b = part[v];
          if (a < 0 || a == b || target[a] <= 0.0) continue;
          if (!scotchlb_within(pload[a] + load[v], load_cap * target[a] * total, total)) continue;
          double wa = 0.0, wb = 0.0;
          for (size_t j = start[v]; j < start[v + 1]; j++) {
            int q = part[adj[j]];
            if (q == a) wa += ew[j];
            if (q == b) wb += ew[j];
          }
          /* The edges to a stop being cut, those to b start. */
          double delta = wb - wa;
          if (delta > thr || cut + delta > cut_limit) continue;
          cut += delta;
          pload[a] += load[v];
          pload[b] -= load[v];
          scotchlb_assert_load(pload[b], total);
          part[v] = a;
          m++;
        }
        moves += m;
        if (m == 0) break;
      }
    }
  }
end:
  free(pload);
  free(order);
  return moves;
}
