/* SPDX-License-Identifier: BSD-3-Clause */
/* A local descent on the modelled iteration time (load plus priced cut) of
 * the slowest part; see scotch_descent.h. */
#include "scotch_descent.h"
#include "scotch_round.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
  long work;            /* objects and edge ends visited by the searches so far */
  long work_max;        /* the searches stop at this much work (LONG_MAX: unbounded) */
  long moves;           /* moves since the loads were last summed (state_load) */
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
     * no neighbour would split the receiver in pieces for a little time. */
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
static int state_init(dstate *s, const scotchlb_instance *in, double cost, int *part)
{
  size_t n = in->n, np = (size_t)in->nparts;
  memset(s, 0, sizeof *s);
  s->n = n;
  s->load = in->load;
  s->start = in->start;
  s->adj = in->adj;
  s->ew = in->ew;
  s->nparts = in->nparts;
  s->target = in->target;
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
  if (!s->pload || !s->pcut || !s->wto || !s->touched || !s->head || !s->next || !s->prev)
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

/* The slowest part's time down, move by move (best_move), until no move
 * lowers it or the budget or the work bound is spent.  Each move lowers
 * the largest time or the number of parts at it, so the descent ends.
 * Returns the moves made. */
static long descend(dstate *s, long budget)
{
  long moves = 0;
  while (moves < budget && !out_of_work(s)) {
    double tmax;
    int fastest, sl = slowest(s, &tmax, &fastest);
    size_t v = 0;
    int b = -1;
    if (fastest < 0 || !best_move(s, sl, tmax, fastest, &v, &b)) break;
    move_one(s, v, b);
    moves++;
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

long scotchlb_time_descent(const scotchlb_instance *in, double comm_cost, double load_cap,
                           long max_moves, unsigned passes, int *part)
{
  dstate s;
  long moves = 0;
  if (state_init(&s, in, comm_cost, part) != 0) {
    moves = -1;
    goto end;
  }
  if (s.total <= 0.0) goto end;
  /* Receivers stay within the tolerance, or within the worst load ratio
   * of the input when that is already above it. */
  s.lcap = fmax(load_cap, worst_load(&s));
  moves = descend(&s, max_moves);
  long mm = (passes & SCOTCHLB_PASS_MERGE) ? merge_pieces(&s, max_moves - moves) : 0;
  moves = mm < 0 ? -1 : moves + mm;
end:
  state_free(&s);
  return moves;
}

long scotchlb_merge(const scotchlb_instance *in, double load_cap, long max_moves, long max_work,
                    int *part)
{
  dstate s;
  long moves = 0;
  if (state_init(&s, in, 0.0, part) != 0) {
    moves = -1;
    goto end;
  }
  s.work_max = max_work;
  if (s.total <= 0.0) goto end;
  /* With no price on the cut a part's time is its load over its target:
   * the descent after each merge rebalances the loads. */
  s.lcap = fmax(load_cap, worst_load(&s));
  moves = merge_pieces(&s, max_moves);
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

long scotchlb_shed(const scotchlb_instance *in, double load_cap, long max_moves, int *part)
{
  dstate s;
  long moves = 0;
  size_t n = in->n;
  int nparts = in->nparts;
  const double *target = in->target;
  size_t *seq = malloc((n + 1) * sizeof *seq);
  int *near = calloc((size_t)nparts + 1, sizeof *near);
  if (state_init(&s, in, 0.0, part) != 0 || !seq || !near) {
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
      for (size_t j = s.start[v]; j < s.start[v + 1]; j++) near[part[s.adj[j]]] = 1;
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
