/* SPDX-License-Identifier: BSD-3-Clause */
/* SCOTCH's core: the application's graph cleaned and handed to Scotch's
 * mapping and remapping routines; see scotch_core.h. */
#include "scotch_core.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refine_core.h"
#include "scotch_descent.h"
#include "scotch_internal.h"
#include "scotch_round.h"

/* The work bound of the merge after PARTITION at the default effort: this
 * many sweeps of the graph (objects plus edge ends), and never less than
 * SCOTCHLB_MERGE_WORK_MIN, so that small graphs are merged as without a
 * bound.  The bound matters where Scotch leaves many pieces, whose merge
 * tries each sweep the graph twice and descend, so that an unbounded merge
 * can cost hundreds of sweeps for a few objects (scotch/README.md, "Cost
 * of a call"). */
#define SCOTCHLB_MERGE_SWEEPS   16
#define SCOTCHLB_MERGE_WORK_MIN (1L << 24)

void scotchlb_default_options(scotchlb_options *o)
{
  memset(o, 0, sizeof *o);
  o->approach = SCOTCHLB_REPARTITION;
  o->migration_cost = 1.0;
  o->tolerance = 1.1;
  o->strategy = SCOTCHLB_STRAT_DEFAULT;
  o->seed = 1;
  o->polish = 1;
  o->passes = SCOTCHLB_PASSES_ALL;
}

/* The names SCOTCHLB_SKIP takes, in the order of their bits. */
static const struct {
  const char *name;
  unsigned bit;
} pass_names[] = {
    {"MERGE", SCOTCHLB_PASS_MERGE},
    {"POLISH", SCOTCHLB_PASS_POLISH},
    {"STRATEGIES", SCOTCHLB_PASS_STRATEGIES},
    {"DESCENT", SCOTCHLB_PASS_DESCENT},
    {"SHED", SCOTCHLB_PASS_SHED},
    {"FRESH", SCOTCHLB_PASS_FRESH},
    {"BACK", SCOTCHLB_PASS_BACK},
    {"ORDERS", SCOTCHLB_PASS_ORDERS},
};

int scotchlb_parse_skip(const char *value, unsigned *passes, char *msg, size_t msg_cap)
{
  *passes = SCOTCHLB_PASSES_ALL;
  if (value == NULL || *value == '\0' || strcmp(value, "NONE") == 0) return SCOTCHLB_OK;
  for (const char *p = value; *p;) {
    size_t len = strcspn(p, ","), k, nk = sizeof pass_names / sizeof pass_names[0];
    for (k = 0; k < nk; k++)
      if (strlen(pass_names[k].name) == len && strncmp(p, pass_names[k].name, len) == 0) break;
    if (k == nk) {
      scotchlb_say(msg, msg_cap,
                   "'%.*s' is not a pass (MERGE, POLISH, STRATEGIES, DESCENT, SHED, FRESH, "
                   "BACK, ORDERS)",
                   (int)(len < 40 ? len : 40), p);
      return SCOTCHLB_EINVAL;
    }
    *passes &= ~pass_names[k].bit;
    p += len;
    if (*p == ',') p++;
  }
  return SCOTCHLB_OK;
}

/* ---- loads and targets ------------------------------------------------------- */

static int combine(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                   double *load, double *target)
{
  double *tot = calloc((size_t)wdim, sizeof *tot);
  int rc;
  if (!tot) return SCOTCHLB_ENOMEM;
  for (size_t i = 0; i < n; i++)
    for (int d = 0; d < wdim; d++) tot[d] += w[i * (size_t)wdim + d];
  rc = scotchlb_combine(n, wdim, w, tot, nparts, target_frac, load, target);
  free(tot);
  return rc;
}

/* Largest load / (target x total) over parts with a positive target; a part
 * with target 0 that carries load counts as infinitely overloaded. */
static double imbalance(const scotchlb_instance *in, const int *part)
{
  size_t n = in->n;
  int nparts = in->nparts;
  const double *load = in->load, *target = in->target;
  double *pl = calloc((size_t)nparts, sizeof *pl), tot = 0.0, worst = 0.0;
  if (!pl) return HUGE_VAL;
  for (size_t i = 0; i < n; i++) {
    pl[part[i]] += load[i];
    tot += load[i];
  }
  for (int q = 0; q < nparts && tot > 0.0; q++) {
    double r = target[q] > 0.0 ? pl[q] / (target[q] * tot) : (pl[q] > 0.0 ? HUGE_VAL : 0.0);
    if (r > worst) worst = r;
  }
  free(pl);
  return tot > 0.0 ? worst : 1.0;
}

static double cut_of(const scotchlb_instance *in, const int *part)
{
  size_t n = in->n;
  const size_t *start = in->start, *adj = in->adj;
  const double *w = in->ew;
  double cut = 0.0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = start[i]; j < start[i + 1]; j++)
      if (adj[j] > i && part[adj[j]] != part[i]) cut += w[j];
  return cut;
}

/* ---- the entry point ----------------------------------------------------------- */

static int check_args(size_t n, int wdim, const double *w, const size_t *adj_start,
                      const size_t *adj, int nparts, const double *tf, const int *cur,
                      const scotchlb_options *o, const int *part_out, char *msg, size_t cap)
{
  if (wdim < 1 || nparts < 1 || (n > 0 && (w == NULL || part_out == NULL)) ||
      (adj_start && !adj && adj_start[n] > 0)) {
    scotchlb_say(msg, cap, "invalid arguments (%zu objects, %d weights, %d parts)", n, wdim,
                 nparts);
    return SCOTCHLB_EINVAL;
  }
  if (!(o->tolerance >= 1.0) || !(o->migration_cost >= 0.0) || !isfinite(o->migration_cost) ||
      !(o->comm_cost >= 0.0) || !isfinite(o->comm_cost) ||
      !(o->repart_cut_tol == 0.0 || (o->repart_cut_tol >= 1.0 && isfinite(o->repart_cut_tol))) ||
      o->strategy < SCOTCHLB_STRAT_DEFAULT || o->strategy > SCOTCHLB_STRAT_BALANCE ||
      o->effort < SCOTCHLB_EFFORT_DEFAULT || o->effort > SCOTCHLB_EFFORT_FULL) {
    scotchlb_say(msg, cap,
                 "invalid options (tolerance %g, migration cost %g, comm cost %g, cut bound %g, "
                 "strategy %d, effort %d)",
                 o->tolerance, o->migration_cost, o->comm_cost, o->repart_cut_tol, (int)o->strategy,
                 (int)o->effort);
    return SCOTCHLB_EINVAL;
  }
  for (size_t i = 0; i < n * (size_t)wdim; i++)
    if (!isfinite(w[i]) || w[i] < 0.0) {
      scotchlb_say(msg, cap, "object %zu has weight %g; weights must be finite and >= 0", i / wdim,
                   w[i]);
      return SCOTCHLB_EINVAL;
    }
  for (size_t i = 0; o->move_cost && i < n; i++)
    if (!isfinite(o->move_cost[i]) || o->move_cost[i] < 0.0) {
      scotchlb_say(msg, cap, "object %zu has a migration cost of %g; it must be finite and >= 0", i,
                   o->move_cost[i]);
      return SCOTCHLB_EINVAL;
    }
  for (size_t i = 0; tf && i < (size_t)nparts * wdim; i++)
    if (!isfinite(tf[i]) || tf[i] < 0.0) {
      scotchlb_say(msg, cap, "part %zu has size %g; part sizes must be finite and >= 0", i / wdim,
                   tf[i]);
      return SCOTCHLB_EINVAL;
    }
  for (size_t i = 0; cur && i < n; i++)
    if (cur[i] >= nparts || cur[i] < -1) {
      scotchlb_say(msg, cap, "object %zu is in part %d, outside [-1, %d)", i, cur[i], nparts);
      return SCOTCHLB_EINVAL;
    }
  return SCOTCHLB_OK;
}

/* The largest relative load a balance can promise: the tolerance, or the
 * ratio the heaviest object sets alone in the largest part when that is
 * higher, so that an unattainable tolerance does not let the passes keep
 * any balance at all (scotch/README.md, "Balance"). */
static double attainable_cap(const scotchlb_instance *in, double tol)
{
  size_t n = in->n;
  int nparts = in->nparts;
  const double *load = in->load, *target = in->target;
  double tmax = 0.0, wmax = 0.0, tot = 0.0;
  for (int q = 0; q < nparts; q++) tmax = fmax(tmax, target[q]);
  for (size_t i = 0; i < n; i++) {
    wmax = fmax(wmax, load[i]);
    tot += load[i];
  }
  return tot > 0.0 && tmax > 0.0 ? fmax(tol, wmax / (tmax * tot)) : tol;
}

/* The REFINE polish: moves objects off the parts Scotch left above the
 * tolerance, preferring receivers that hold their neighbours. */
static int polish(const scotchlb_instance *in, double tol, int *part)
{
  size_t n = in->n;
  refine_graph rg = {in->start, in->adj, in->ew};
  refine_options ro;
  int *out = malloc((n + 1) * sizeof *out), rc;
  if (!out) return SCOTCHLB_ENOMEM;
  refine_default_options(&ro);
  ro.tolerance = tol;
  ro.comm_aware = 1;
  ro.graph = &rg;
  rc = refine_run(n, 1, in->load, in->nparts, in->target, part, &ro, out, NULL);
  if (rc >= 0) memcpy(part, out, n * sizeof *part);
  free(out);
  return rc == REFINE_ENOMEM ? SCOTCHLB_ENOMEM : SCOTCHLB_OK;
}

/* The largest part time (load + comm_cost x cut edge weight at the part,
 * over its target share of the total load). */
static double part_time(const scotchlb_instance *in, double comm_cost, const int *part)
{
  size_t n = in->n;
  int nparts = in->nparts;
  const double *load = in->load, *ew = in->ew, *target = in->target;
  const size_t *start = in->start, *adj = in->adj;
  double *t = calloc((size_t)nparts, sizeof *t), tot = 0.0, worst = 0.0;
  if (!t) return HUGE_VAL;
  for (size_t i = 0; i < n; i++) {
    t[part[i]] += load[i];
    tot += load[i];
    for (size_t j = start[i]; j < start[i + 1]; j++)
      if (part[adj[j]] != part[i]) t[part[i]] += comm_cost * ew[j];
  }
  for (int q = 0; q < nparts; q++) {
    double r = target[q] > 0.0 ? t[q] / target[q] : (t[q] > 0.0 ? HUGE_VAL : 0.0);
    if (r > worst) worst = r;
  }
  free(t);
  return tot > 0.0 || worst > 0.0 ? worst : 0.0;
}

/* Scotch at one balance ratio, then the polish: the parts in part_out. */
static int map_once(const scotchlb_instance *in, scotchlb_sgraph *g, const scotchlb_options *opt,
                    double ratio, int remap, int *part_out, scotchlb_stats *st, char *msg,
                    size_t cap)
{
  size_t n = in->n;
  scotchlb_options o = *opt;
  int rc;
  o.tolerance = 1.0 + ratio;
  rc = scotchlb_run(n, g, &o, remap, msg, cap);
  if (rc != SCOTCHLB_OK) return rc;
  for (size_t i = 0; i < n; i++) part_out[i] = g->eff_to_part[g->out[i]];
  st->polished = 0;
  /* The polish aims at what is attainable: under a tolerance the heaviest
   * object alone exceeds, no part would have room for anything. */
  double pc = attainable_cap(in, opt->tolerance);
  if (opt->polish && (opt->passes & SCOTCHLB_PASS_POLISH) &&
      !scotchlb_within(imbalance(in, part_out), pc, pc)) {
    rc = polish(in, pc, part_out);
    st->polished = 1;
  }
  return rc;
}

/* ---- REPARTITION under a cut bound ---------------------------------------------- */

/* One (new part, old part) overlap. */
typedef struct overlap {
  int to, from; /* the new part and the current part */
  double w;     /* the migration cost of the objects in both */
} overlap;

static int cmp_overlap_pair(const void *a, const void *b)
{
  const overlap *x = a, *y = b;
  if (x->to != y->to) return x->to < y->to ? -1 : 1;
  return (x->from > y->from) - (x->from < y->from);
}

static int cmp_overlap_weight(const void *a, const void *b)
{
  const overlap *x = a, *y = b;
  if (x->w != y->w) return x->w > y->w ? -1 : 1;
  return cmp_overlap_pair(a, b);
}

/* The migration cost of each object (its relative move cost, or 1). */
static double move_weight(const double *move_cost, size_t i)
{
  return move_cost ? move_cost[i] : 1.0;
}

/* Renames the parts of a fresh partition after the current parts they
 * overlap most, which costs nothing in cut or balance and saves moves:
 * pairs are taken greedily by decreasing overlap, and a part is only
 * renamed after a part of the same target (so sizes stay as asked). */
static int relabel_to_overlap(size_t n, int nparts, const double *target, const int *cur,
                              const double *move_cost, int *part)
{
  overlap *o = malloc((n + 1) * sizeof *o);
  int *to_old = malloc((size_t)nparts * sizeof *to_old);
  int *old_used = calloc((size_t)nparts, sizeof *old_used);
  size_t m = 0, k = 0;
  int rc = SCOTCHLB_OK;
  if (!o || !to_old || !old_used) {
    rc = SCOTCHLB_ENOMEM;
    goto end;
  }
  for (size_t i = 0; i < n; i++)
    if (cur[i] >= 0) o[m++] = (overlap){part[i], cur[i], move_weight(move_cost, i)};
  qsort(o, m, sizeof *o, cmp_overlap_pair);
  for (size_t i = 0; i < m; i++) {
    if (k > 0 && o[k - 1].to == o[i].to && o[k - 1].from == o[i].from)
      o[k - 1].w += o[i].w;
    else
      o[k++] = o[i];
  }
  qsort(o, k, sizeof *o, cmp_overlap_weight);
  for (int q = 0; q < nparts; q++) to_old[q] = -1;
  for (size_t i = 0; i < k; i++)
    if (to_old[o[i].to] < 0 && !old_used[o[i].from] && target[o[i].to] == target[o[i].from]) {
      to_old[o[i].to] = o[i].from;
      old_used[o[i].from] = 1;
    }
  /* The parts left over take the free names of their target, in order. */
  for (int q = 0; q < nparts; q++)
    for (int r = 0; to_old[q] < 0 && r < nparts; r++)
      if (!old_used[r] && target[r] == target[q]) {
        to_old[q] = r;
        old_used[r] = 1;
      }
  for (size_t i = 0; i < n; i++) part[i] = to_old[part[i]];
end:
  free(o);
  free(to_old);
  free(old_used);
  return rc;
}

/* The migration cost of going from cur to part. */
static double moved_weight(size_t n, const int *cur, const int *part, const double *move_cost)
{
  double w = 0.0;
  for (size_t i = 0; i < n; i++)
    if (cur[i] >= 0 && part[i] != cur[i]) w += move_weight(move_cost, i);
  return w;
}

/* What repart_search shares with each of its tries. */
typedef struct rsearch {
  scotchlb_instance in; /* the loads, the graph, the targets */
  const int *cur;
  const scotchlb_options *opt;
  double limit;              /* the largest cut allowed */
  double best_move;          /* what the best answer within the limit moves (see below) */
  double best_cut;           /* its cut */
  double all_move, all_load; /* migration cost and load of every object with a current part */
  int *cand;                 /* scratch parts of one try */
  int *base;                 /* scratch: cand before the move back */
  int *cur_shed;             /* the current parts after scotchlb_shed */
  int *best;                 /* the best answer (the caller's part_out) */
  int tries;                 /* Scotch runs made */
  double cap;                /* the balance the descents keep: see attainable_cap */
  scotchlb_sgraph g;         /* Scotch's integers of the first run, reused by the strategies */
  double ratio;              /* Scotch's balance ratio, tolerance - 1 */
  int remap;                 /* 1: Scotch remaps from cur (REPARTITION, REFINE) */
  double mig;                /* the migration cost of the remap */
} rsearch;

/* Moves cand's objects back while the cut limit allows, in each of
 * scotchlb_move_back's visiting orders, and keeps each result that is
 * within the limit and moves less than the best so far (the fraction of the
 * migration cost moved plus the fraction of the load moved; or as much at
 * a smaller cut).  Returns 1 when a result is within the limit, 0 when none
 * is, -1 when memory ran out. */
static int rsearch_consider(rsearch *r, double *cost_used, double cost)
{
  int within = 0;
  memcpy(r->base, r->cand, r->in.n * sizeof *r->base);
  int orders = (r->opt->passes & SCOTCHLB_PASS_ORDERS) ? SCOTCHLB_BACK_ORDERS : 1;
  for (int visit = 0; visit < orders; visit++) {
    memcpy(r->cand, r->base, r->in.n * sizeof *r->cand);
    if ((r->opt->passes & SCOTCHLB_PASS_BACK) &&
        scotchlb_move_back(&r->in, r->cur, r->opt->tolerance, r->limit, visit, r->cand) < 0)
      return -1;
    double cut = cut_of(&r->in, r->cand);
    if (cut > r->limit) continue;
    within = 1;
    double mv = moved_weight(r->in.n, r->cur, r->cand, r->opt->move_cost) / r->all_move +
                moved_weight(r->in.n, r->cur, r->cand, r->in.load) / r->all_load;
    if (mv < r->best_move || (mv == r->best_move && cut < r->best_cut)) {
      r->best_move = mv;
      r->best_cut = cut;
      *cost_used = cost;
      memcpy(r->best, r->cand, r->in.n * sizeof *r->best);
    }
  }
  return within;
}

/* One Scotch remap at migration cost `cost`: *within says whether its
 * answer kept the cut limit. */
static int rsearch_try(rsearch *r, double cost, double *cost_used, int *within, scotchlb_stats *cst,
                       char *msg, size_t cap)
{
  scotchlb_sgraph g;
  int rc = scotchlb_sgraph_build(&r->in, r->cur, cost, r->opt->move_cost, &g, msg, cap);
  if (rc == SCOTCHLB_OK)
    rc = map_once(&r->in, &g, r->opt, r->opt->tolerance - 1.0, 1, r->cand, cst, msg, cap);
  scotchlb_sgraph_free(&g);
  r->tries++;
  int w = rc == SCOTCHLB_OK ? rsearch_consider(r, cost_used, cost) : 0;
  if (w < 0) rc = SCOTCHLB_ENOMEM;
  *within = w > 0;
  return rc;
}

/* REPARTITION with SCOTCHLB's cut bound: the answer that moves least (the
 * fraction of the migration cost moved plus the fraction of the load) among
 * those whose cut is at most cut_tol x the cut of a fresh partition.  The
 * candidates: the current parts with the overloaded ones shed (when every
 * object has a current part and the shedding reaches the tolerance); the
 * fresh partition, renamed after the current parts, which is within the
 * bound by definition; then Scotch remaps, the migration cost (which trades
 * moves for cut) searched up or down from the one asked for by factors of 4
 * until the bound is crossed, then halved geometrically between the last
 * cost within and the first beyond.  Each candidate moves objects back
 * while the bound allows (rsearch_consider).  *cost_used is the cost of the
 * answer kept (0 for the fresh partition, +inf for the shed current parts). */
static int repart_search(rsearch *r, double *cost_used, scotchlb_stats *st, char *msg, size_t cap)
{
  scotchlb_sgraph g;
  scotchlb_stats cst = *st;
  double c = r->opt->migration_cost > 0.0 ? r->opt->migration_cost : 1.0, lo = 0.0, hi = 0.0;
  int rc, within = 0, whole = 1;
  /* The cheapest answer first: the current parts, with objects shed off
   * the parts above the tolerance to connected parts (the fewest moves
   * there are, nearly, when the current cut is within the bound). */
  for (size_t i = 0; i < r->in.n && whole; i++) whole = r->cur[i] >= 0;
  whole = whole && (r->opt->passes & SCOTCHLB_PASS_SHED);
  r->limit = HUGE_VAL;
  if (whole) {
    memcpy(r->cand, r->cur, r->in.n * sizeof *r->cand);
    rc = SCOTCHLB_OK;
    if (scotchlb_shed(&r->in, r->opt->tolerance, (long)r->in.n, r->cand) < 0)
      return SCOTCHLB_ENOMEM;
    memcpy(r->cur_shed, r->cand, r->in.n * sizeof *r->cand);
  }
  rc = scotchlb_sgraph_build(&r->in, NULL, 0.0, NULL, &g, msg, cap);
  if (rc == SCOTCHLB_OK)
    rc = map_once(&r->in, &g, r->opt, r->opt->tolerance - 1.0, 0, r->cand, &cst, msg, cap);
  scotchlb_sgraph_free(&g);
  r->tries++;
  if (rc == SCOTCHLB_OK)
    rc =
        relabel_to_overlap(r->in.n, r->in.nparts, r->in.target, r->cur, r->opt->move_cost, r->cand);
  if (rc != SCOTCHLB_OK) return rc;
  r->limit = r->opt->repart_cut_tol * cut_of(&r->in, r->cand);
  if (!(r->opt->passes & SCOTCHLB_PASS_FRESH)) {
    /* Not a candidate, but the answer when no other one keeps the bound
     * (the fresh partition is the only one known to keep it). */
    memcpy(r->best, r->cand, r->in.n * sizeof *r->best);
    *cost_used = 0.0;
  } else if (rsearch_consider(r, cost_used, 0.0) < 0) {
    return SCOTCHLB_ENOMEM;
  }
  if (whole) {
    /* The current parts after the shedding, weighed now that the bound is
     * known; a balanced answer only (shedding may fall short). */
    memcpy(r->cand, r->cur_shed, r->in.n * sizeof *r->cand);
    if (scotchlb_within(imbalance(&r->in, r->cand), r->opt->tolerance, r->opt->tolerance) &&
        rsearch_consider(r, cost_used, HUGE_VAL) < 0)
      return SCOTCHLB_ENOMEM;
  }
  rc = rsearch_try(r, c, cost_used, &within, &cst, msg, cap);
  if (within)
    lo = c;
  else
    hi = c;
  for (int k = 0; rc == SCOTCHLB_OK && k < SCOTCHLB_SEARCH_STEPS; k++) {
    if (lo > 0.0 && hi > 0.0) break;
    /* Nothing moved at a cost within the bound: a higher one cannot do
     * better. */
    if (lo > 0.0 && r->best_move == 0.0) break;
    c = lo > 0.0 ? lo * 4.0 : hi / 4.0;
    rc = rsearch_try(r, c, cost_used, &within, &cst, msg, cap);
    if (within)
      lo = c;
    else
      hi = c;
  }
  for (int k = 0; rc == SCOTCHLB_OK && lo > 0.0 && hi > 0.0 && k < SCOTCHLB_SEARCH_STEPS; k++) {
    c = sqrt(lo * hi);
    rc = rsearch_try(r, c, cost_used, &within, &cst, msg, cap);
    if (within)
      lo = c;
    else
      hi = c;
  }
  return rc;
}

/* SCOTCHLB_REPART_CUT_TOL: repart_search with its scratch, into r->best. */
static int cut_search(rsearch *r, scotchlb_stats *st, char *msg, size_t cap)
{
  int rc;
  /* The denominators of the fractions rsearch_consider adds; never 0, so
   * that an input without load or without sizes still compares. */
  r->all_move = r->all_load = 0.0;
  for (size_t i = 0; i < r->in.n; i++)
    if (r->cur[i] >= 0) {
      r->all_move += move_weight(r->opt->move_cost, i);
      r->all_load += r->in.load[i];
    }
  r->all_move = fmax(r->all_move, 1e-300);
  r->all_load = fmax(r->all_load, 1e-300);
  r->cand = malloc(r->in.n * sizeof *r->cand);
  r->base = malloc(r->in.n * sizeof *r->base);
  r->cur_shed = malloc(r->in.n * sizeof *r->cur_shed);
  rc = r->cand && r->base && r->cur_shed ? repart_search(r, &st->migration_cost_used, st, msg, cap)
                                         : SCOTCHLB_ENOMEM;
  free(r->cand);
  free(r->base);
  free(r->cur_shed);
  r->cand = r->base = r->cur_shed = NULL;
  st->cut_limit = r->limit;
  st->tries = r->tries;
  return rc;
}

/* Brings cand within r->cap when Scotch left it above (scotchlb_shed), then
 * runs the time descent under that cap (merging pieces when merge is 1).
 * Returns the descent's moves, or -1 when memory ran out. */
static long capped_descent(const rsearch *r, int merge, int *cand)
{
  const scotchlb_options *o = r->opt;
  unsigned passes = merge ? o->passes & SCOTCHLB_PASS_MERGE : 0;
  long ds = 0;
  if (!(o->passes & SCOTCHLB_PASS_DESCENT)) return 0;
  if ((o->passes & SCOTCHLB_PASS_SHED) && !scotchlb_within(imbalance(&r->in, cand), r->cap, r->cap))
    ds = scotchlb_shed(&r->in, r->cap, (long)r->in.n, cand);
  long dm = ds < 0
                ? -1
                : scotchlb_time_descent(&r->in, o->comm_cost, r->cap, (long)r->in.n, passes, cand);
  return dm < 0 ? -1 : ds + dm;
}

/* Whether an answer of time t and relative load b beats the best so far
 * (bt, bb): within the attainable cap first, then the smaller time. */
static int comm_better(const rsearch *r, double t, double b, double bt, double bb)
{
  int in = scotchlb_within(b, r->cap, r->cap), bin = scotchlb_within(bb, r->cap, r->cap);
  return in != bin ? in : t < bt;
}

/* The time descent on r->best (merging pieces when merge is 1); counts its
 * moves and sets the part time in st. */
static int descend_best(const rsearch *r, int merge, scotchlb_stats *st)
{
  const scotchlb_options *o = r->opt;
  long dm = capped_descent(r, merge, r->best);
  st->descended += dm > 0 ? dm : 0;
  st->part_time = part_time(&r->in, o->comm_cost, r->best);
  return dm < 0 ? SCOTCHLB_ENOMEM : SCOTCHLB_OK;
}

/* SCOTCHLB_COMM_COST from scratch or with a plain remap.  Tighter balance
 * costs cut, and which of Scotch's strategies cuts least at a given balance
 * depends on the graph: with communication priced in load units the best
 * trade-off is measured rather than guessed.  The strategy
 * asked for, then QUALITY and BALANCE, each at the tolerance and three
 * tighter ratios, each followed by the time descent; the smallest largest
 * part time is kept (the first on a tie), and its cut-off pieces merged.
 * r->best holds the first run's answer on entry. */
static int comm_cost_search(rsearch *r, scotchlb_stats *st, char *msg, size_t cap)
{
  scotchlb_sgraph *g = &r->g;
  double ratio = r->ratio;
  int remap = r->remap;
  static const scotchlb_strategy extra[] = {SCOTCHLB_STRAT_QUALITY, SCOTCHLB_STRAT_BALANCE};
  const scotchlb_options *opt = r->opt;
  size_t n = r->in.n;
  int *cand = malloc(n * sizeof *cand), raw = opt->strategy_string && opt->strategy_string[0];
  scotchlb_stats cst = *st;
  scotchlb_options so = *opt;
  int rc = cand ? descend_best(r, 0, st) : SCOTCHLB_ENOMEM;
  double best = st->part_time, best_b = imbalance(&r->in, r->best);
  int tries = !raw && (opt->passes & SCOTCHLB_PASS_STRATEGIES) ? 3 : 0;
  for (int v = 0; rc == SCOTCHLB_OK && v < tries; v++) {
    if (v > 0 && extra[v - 1] == opt->strategy) continue;
    so.strategy = v == 0 ? opt->strategy : extra[v - 1];
    for (int k = v == 0 ? 1 : 0; rc == SCOTCHLB_OK && k < SCOTCHLB_COMM_RATIOS; k++) {
      double rr = ratio / pow(4.0, k), t, b;
      rc = map_once(&r->in, g, &so, rr, remap, cand, &cst, msg, cap);
      if (rc != SCOTCHLB_OK) break;
      long dm = capped_descent(r, 0, cand);
      if (dm < 0) rc = SCOTCHLB_ENOMEM;
      t = part_time(&r->in, opt->comm_cost, cand);
      b = imbalance(&r->in, cand);
      if (comm_better(r, t, b, best, best_b)) {
        best = t;
        best_b = b;
        memcpy(r->best, cand, n * sizeof *r->best);
        st->polished = cst.polished;
        st->balance_ratio = rr;
        st->strategy = so.strategy;
        st->descended = dm;
      }
    }
  }
  free(cand);
  /* The pieces are merged on the answer kept only: each try would run the
   * descent again, the costly part of the step. */
  return rc == SCOTCHLB_OK ? descend_best(r, 1, st) : rc;
}

/* The work bound of the merge at the given effort (see
 * SCOTCHLB_MERGE_SWEEPS). */
static long merge_work(const rsearch *r)
{
  double sweep = (double)r->in.n + (double)r->in.start[r->in.n];
  if (r->opt->effort == SCOTCHLB_EFFORT_FULL) return LONG_MAX;
  return (long)fmin(fmax(SCOTCHLB_MERGE_SWEEPS * sweep, (double)SCOTCHLB_MERGE_WORK_MIN),
                    (double)LONG_MAX / 2);
}

/* PARTITION without a price on the cut: the cut is all that counts within
 * the balance, so the pieces Scotch cut off its parts merge
 * (scotchlb_merge), within a work bound linear in the graph at the default
 * effort.  SCOTCHLB_EFFORT_FAST keeps Scotch's answer.  r->best holds
 * Scotch's answer on entry. */
static int merge_fresh(const rsearch *r)
{
  if (r->opt->effort == SCOTCHLB_EFFORT_FAST || !(r->opt->passes & SCOTCHLB_PASS_MERGE))
    return SCOTCHLB_OK;
  return scotchlb_merge(&r->in, r->cap, (long)r->in.n, merge_work(r), r->best) < 0 ? SCOTCHLB_ENOMEM
                                                                                   : SCOTCHLB_OK;
}

/* Scotch's first run, from scratch or remapping from cur, into r->best. */
static int step_map(rsearch *r, scotchlb_stats *st, char *msg, size_t cap)
{
  int rc = scotchlb_sgraph_build(&r->in, r->remap ? r->cur : NULL, r->mig, r->opt->move_cost, &r->g,
                                 msg, cap);
  st->tries = 1;
  return rc == SCOTCHLB_OK
             ? map_once(&r->in, &r->g, r->opt, r->ratio, r->remap, r->best, st, msg, cap)
             : rc;
}

static int step_merge(rsearch *r, scotchlb_stats *st, char *msg, size_t cap)
{
  (void)st, (void)msg, (void)cap;
  return merge_fresh(r);
}

static int step_descend(rsearch *r, scotchlb_stats *st, char *msg, size_t cap)
{
  (void)msg, (void)cap;
  return descend_best(r, 1, st);
}

/* One step of a pipeline: it improves r->best (or fills it, for the
 * first), counts in st, and returns a SCOTCHLB_* code with msg on error. */
typedef int (*scotchlb_step)(rsearch *r, scotchlb_stats *st, char *msg, size_t cap);

/* What runs after the input checks, for each approach and option: the one
 * table a reader needs to know which passes a call makes.  Each step's
 * own passes (SCOTCHLB_SKIP) are named in its comment. */
enum { PIPE_FRESH, PIPE_REMAP, PIPE_COMM, PIPE_CUT, PIPE_CUT_COMM, PIPE_COUNT };
static const struct {
  const char *when;
  scotchlb_step steps[2];
} pipelines[PIPE_COUNT] = {
    /* Scotch (and POLISH), then the MERGE of cut-off pieces. */
    [PIPE_FRESH] = {"PARTITION", {step_map, step_merge}},
    /* Scotch's remap at the migration cost (and POLISH), as Scotch weighed it. */
    [PIPE_REMAP] = {"REPARTITION, REFINE", {step_map, NULL}},
    /* Scotch, then the STRATEGIES' runs, each with SHED and the DESCENT; MERGE on the best. */
    [PIPE_COMM] = {"SCOTCHLB_COMM_COST", {step_map, comm_cost_search}},
    /* SHED of the current parts, the FRESH partition and the remaps, each with BACK (ORDERS). */
    [PIPE_CUT] = {"SCOTCHLB_REPART_CUT_TOL", {cut_search, NULL}},
    /* The same, then SHED, the DESCENT and MERGE on the answer kept. */
    [PIPE_CUT_COMM] = {"SCOTCHLB_REPART_CUT_TOL with SCOTCHLB_COMM_COST",
                       {cut_search, step_descend}},
};

/* The pipeline of a call with current parts cur (NULL: none). */
static int pipeline_of(const scotchlb_options *o, const int *cur)
{
  int comm = o->comm_cost > 0.0;
  if (o->approach == SCOTCHLB_REPARTITION && cur && o->repart_cut_tol > 0.0)
    return comm ? PIPE_CUT_COMM : PIPE_CUT;
  if (comm) return PIPE_COMM;
  return o->approach != SCOTCHLB_PARTITION && cur ? PIPE_REMAP : PIPE_FRESH;
}

/* Statistics of the input and whether REFINE may keep it. */
static int input_stats(const scotchlb_instance *in, const int *cur, scotchlb_stats *st)
{
  for (size_t i = 0; cur && i < in->n; i++)
    if (cur[i] < 0) return 0;
  if (cur == NULL) return 0;
  st->cut_before = cut_of(in, cur);
  st->imbalance_before = imbalance(in, cur);
  return 1;
}

int scotchlb_partition(size_t n, int wdim, const double *w, const size_t *adj_start,
                       const size_t *adj, const double *ewgts, int nparts,
                       const double *target_frac, const int *cur_part, const scotchlb_options *opt,
                       int *part_out, scotchlb_stats *stp, char *msg, size_t msg_cap)
{
  scotchlb_options defaults;
  scotchlb_stats local;
  scotchlb_stats *st = stp ? stp : &local;
  size_t *start = NULL, *adj2 = NULL;
  double *ew = NULL, *load = NULL, *target = NULL;
  int rc, complete;
  rsearch r;
  memset(&r, 0, sizeof r);
  memset(st, 0, sizeof *st);
  if (opt == NULL) {
    scotchlb_default_options(&defaults);
    opt = &defaults;
  }
  rc = check_args(n, wdim, w, adj_start, adj, nparts, target_frac, cur_part, opt, part_out, msg,
                  msg_cap);
  if (rc != SCOTCHLB_OK) return rc;
  if (n == 0) return SCOTCHLB_OK;
  rc = scotchlb_symmetrise(n, adj_start, adj, ewgts, &start, &adj2, &ew, st);
  if (rc == SCOTCHLB_EINVAL)
    scotchlb_say(msg, msg_cap,
                 "an edge names a neighbour >= %zu or has a "
                 "negative or non-finite weight",
                 n);
  load = malloc(n * sizeof *load);
  target = malloc((size_t)nparts * sizeof *target);
  if (rc == SCOTCHLB_OK && (!load || !target)) rc = SCOTCHLB_ENOMEM;
  if (rc == SCOTCHLB_OK) rc = combine(n, wdim, w, nparts, target_frac, load, target);
  if (rc != SCOTCHLB_OK) goto end;
  r.in = (scotchlb_instance){n, load, start, adj2, ew, nparts, target};
  complete = input_stats(&r.in, cur_part, st);
  if (opt->approach == SCOTCHLB_REFINE && complete &&
      scotchlb_within(st->imbalance_before, opt->tolerance, opt->tolerance)) {
    /* Already within tolerance: refinement has nothing to do. */
    memcpy(part_out, cur_part, n * sizeof *part_out);
    st->kept_input = 1;
  } else {
    int pipe = pipeline_of(opt, cur_part);
    r.cur = cur_part;
    r.opt = opt;
    r.best_move = r.best_cut = HUGE_VAL;
    r.best = part_out;
    r.cap = attainable_cap(&r.in, opt->tolerance);
    r.ratio = opt->tolerance - 1.0;
    r.remap = opt->approach != SCOTCHLB_PARTITION && cur_part != NULL;
    r.mig = r.remap ? opt->migration_cost *
                          (opt->approach == SCOTCHLB_REFINE ? SCOTCHLB_REFINE_FACTOR : 1.0)
                    : 0.0;
    st->migration_cost_used = r.mig;
    st->balance_ratio = r.ratio;
    st->strategy = opt->strategy;
    for (int k = 0; rc == SCOTCHLB_OK && k < 2 && pipelines[pipe].steps[k]; k++)
      rc = pipelines[pipe].steps[k](&r, st, msg, msg_cap);
    if (rc != SCOTCHLB_OK) goto end;
  }
  st->cut_after = cut_of(&r.in, part_out);
  st->imbalance_after = imbalance(&r.in, part_out);
  for (size_t i = 0; complete && i < n; i++) st->moved += part_out[i] != cur_part[i];
  st->imbalance_bound = attainable_cap(&r.in, opt->tolerance);
  rc = scotchlb_within(st->imbalance_after, opt->tolerance, opt->tolerance) ? SCOTCHLB_OK
                                                                            : SCOTCHLB_WARN;
end:
  if (rc == SCOTCHLB_ENOMEM) scotchlb_say(msg, msg_cap, "out of memory for %zu objects", n);
  scotchlb_sgraph_free(&r.g);
  free(start);
  free(adj2);
  free(ew);
  free(load);
  free(target);
  return rc;
}
