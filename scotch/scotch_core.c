/* SPDX-License-Identifier: BSD-3-Clause */
/* SCOTCH's core: the application's graph cleaned and handed to Scotch's
 * mapping and remapping routines; see scotch_core.h. */
#include "scotch_core.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scotch.h>

#include "refine_core.h"
#include "scotch_descent.h"
#include "scotch_internal.h"
#include "scotch_round.h"

/* The work bound of the cut refinement at the default effort: this many
 * sweeps of the graph (objects plus edge ends), and never less than
 * SCOTCHLB_REFINE_WORK_MIN, so that small graphs are refined as without a
 * bound (every test and bench_zoltan input, at most 4096 objects, gave the
 * same answers).  On a mesh at Zoltan's tolerance the refinement needs two
 * sweeps; the bound matters where Scotch leaves pieces whose merge tries
 * each sweep the graph twice and descend: at IMBALANCE_TOL 1 on a 10^5
 * mesh in 16 parts the unbounded merges visited 250 sweeps' worth to move
 * 4 objects (scotch/README.md, "Cost of a call"). */
#define SCOTCHLB_REFINE_SWEEPS   16
#define SCOTCHLB_REFINE_WORK_MIN (1L << 24)

/* Integer ranges of the scaled loads, part sizes and edge weights. */
#define SCOTCHLB_LOAD_MAX 1048576.0    /* 2^20 */
#define SCOTCHLB_SUM_MAX  1073741824.0 /* 2^30 */
#define SCOTCHLB_EDGE_MAX 65536.0      /* 2^16 */
#define SCOTCHLB_COST_MAX 536870912.0  /* 2^29: edge loads, and migration costs apart */

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

void scotchlb_say(char *msg, size_t cap, const char *fmt, ...)
{
  va_list ap;
  if (msg == NULL || cap == 0) return;
  va_start(ap, fmt);
  vsnprintf(msg, cap, fmt, ap);
  va_end(ap);
}

/* The names SCOTCHLB_SKIP takes, in the order of their bits. */
static const struct {
  const char *name;
  unsigned bit;
} pass_names[] = {
    {"MERGE", SCOTCHLB_PASS_MERGE},     {"PAIRS", SCOTCHLB_PASS_PAIRS},
    {"CHAIN", SCOTCHLB_PASS_CHAIN},     {"CUT", SCOTCHLB_PASS_CUT},
    {"POLISH", SCOTCHLB_PASS_POLISH},   {"REFINE", SCOTCHLB_PASS_REFINE},
    {"BALANCE", SCOTCHLB_PASS_BALANCE}, {"STRATEGIES", SCOTCHLB_PASS_STRATEGIES},
    {"DESCENT", SCOTCHLB_PASS_DESCENT}, {"SHED", SCOTCHLB_PASS_SHED},
    {"FRESH", SCOTCHLB_PASS_FRESH},     {"BACK", SCOTCHLB_PASS_BACK},
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
                   "'%.*s' is not a pass (MERGE, PAIRS, CHAIN, CUT, POLISH, REFINE, BALANCE, "
                   "STRATEGIES, DESCENT, SHED, FRESH, BACK, ORDERS)",
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

/* One load per object and one target fraction per part (summing to 1);
 * see the top of scotch_core.h for several weights. */
int scotchlb_combine(size_t n, int wdim, const double *w, const double *tot, int nparts,
                     const double *target_frac, double *load, double *target)
{
  double *col = calloc((size_t)wdim, sizeof *col);
  if (!col) return SCOTCHLB_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    double s = 0.0;
    if (wdim == 1)
      s = w[i];
    else
      for (int d = 0; d < wdim; d++) s += tot[d] > 0.0 ? w[i * (size_t)wdim + d] / tot[d] : 0.0;
    load[i] = s;
  }
  for (int q = 0; target_frac && q < nparts; q++)
    for (int d = 0; d < wdim; d++) col[d] += target_frac[(size_t)q * wdim + d];
  double sum = 0.0;
  for (int q = 0; q < nparts; q++) {
    double t = 0.0;
    int used = 0;
    for (int d = 0; d < wdim; d++) {
      if (target_frac == NULL || col[d] <= 0.0) {
        t += 1.0 / nparts;
      } else {
        t += target_frac[(size_t)q * wdim + d] / col[d];
      }
      used++;
    }
    target[q] = t / used;
    sum += target[q];
  }
  for (int q = 0; q < nparts; q++) target[q] = sum > 0.0 ? target[q] / sum : 1.0 / nparts;
  free(col);
  return SCOTCHLB_OK;
}

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
static double imbalance(size_t n, const double *load, int nparts, const double *target,
                        const int *part)
{
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

static double cut_of(size_t n, const size_t *start, const size_t *adj, const double *w,
                     const int *part)
{
  double cut = 0.0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = start[i]; j < start[i + 1]; j++)
      if (adj[j] > i && part[adj[j]] != part[i]) cut += w[j];
  return cut;
}

/* ---- Scotch ------------------------------------------------------------------ */

/* Everything handed to Scotch, freed in one place. */
typedef struct sgraph {
  SCOTCH_Num *vert, *edge, *velo, *edlo;
  SCOTCH_Num *pw;        /* weights of the parts with a positive target */
  int *eff_to_part;      /* effective part -> part */
  int *part_to_eff;      /* part -> effective part, -1 for target 0 */
  SCOTCH_Num neff;       /* parts with a positive target */
  int equal;             /* 1 when those parts all have the same weight */
  SCOTCH_Num *old, *out; /* current and new effective parts */
  SCOTCH_Num *vmlo;      /* migration cost of each object, in edge-load units */
} sgraph;

static void sgraph_free(sgraph *g)
{
  free(g->vert);
  free(g->edge);
  free(g->velo);
  free(g->edlo);
  free(g->pw);
  free(g->eff_to_part);
  free(g->part_to_eff);
  free(g->old);
  free(g->out);
  free(g->vmlo);
}

void scotchlb_scales(double lmax, double lsum, double emax, double esum, double ends, double nobj,
                     double *mig, double *ls, double *es)
{
  /* Without any load, every object counts 1 so that Scotch still spreads
   * them (ls = 0 says so); the imbalance reported is then 1. */
  *ls = lmax > 0.0 ? fmin(SCOTCHLB_LOAD_MAX / lmax, SCOTCHLB_SUM_MAX / lsum) : 0.0;
  *es = emax > 0.0 ? fmin(SCOTCHLB_EDGE_MAX / emax, SCOTCHLB_COST_MAX / esum) : 1.0;
  /* The migration cost is given in units of the mean edge weight, so that
   * it means the same whatever unit the application weighs edges in. */
  *mig *= ends > 0.0 ? esum / ends : 1.0;
  /* Scotch adds migration costs to edge loads in its integers: the total
   * migration cost must fit as well, so a large cost scales edges down. */
  if (*mig > 0.0 && nobj > 0.0) *es = fmin(*es, SCOTCHLB_COST_MAX / (*mig * nobj));
}

SCOTCH_Num scotchlb_load_int(double load, double ls)
{
  return ls > 0.0 ? (SCOTCH_Num)llround(load * ls) : 1;
}

SCOTCH_Num scotchlb_edge_int(double w, double es)
{
  return (SCOTCH_Num)fmax(1.0, (double)llround(w * es));
}

int scotchlb_parts(int nparts, const double *target, SCOTCH_Num *pw, int *eff_to_part,
                   int *part_to_eff, SCOTCH_Num *neff, int *equal)
{
  double tmax = 0.0;
  *neff = 0;
  for (int q = 0; q < nparts; q++) tmax = fmax(tmax, target[q]);
  for (int q = 0; q < nparts; q++) {
    part_to_eff[q] = -1;
    if (target[q] <= 0.0) continue;
    part_to_eff[q] = (int)*neff;
    eff_to_part[*neff] = q;
    pw[*neff] = (SCOTCH_Num)fmax(1.0, (double)llround(target[q] / tmax * SCOTCHLB_LOAD_MAX));
    (*neff)++;
  }
  *equal = 1;
  for (SCOTCH_Num q = 1; q < *neff; q++) *equal = *equal && pw[q] == pw[0];
  return *neff > 0 ? SCOTCHLB_OK : SCOTCHLB_EINVAL;
}

int scotchlb_arch(SCOTCH_Arch *arch, SCOTCH_Num neff, int equal, SCOTCH_Num *pw, const char **where)
{
  /* Equal parts get the plain complete graph, Scotch's usual target for
   * partitioning; the weighted one is for unequal part sizes. */
  if (equal && SCOTCH_archCmplt(arch, neff) != 0) {
    *where = "SCOTCH_archCmplt";
    return SCOTCHLB_ESCOTCH;
  }
  if (!equal && SCOTCH_archCmpltw(arch, neff, pw) != 0) {
    *where = "SCOTCH_archCmpltw";
    return SCOTCHLB_ESCOTCH;
  }
  return SCOTCHLB_OK;
}

int scotchlb_context(SCOTCH_Context *ctx, long seed, const char **where)
{
  /* One thread: with its threads, Scotch's remapping gave different
   * answers from run to run (bench_scotch), the deterministic option
   * notwithstanding; and PT-Scotch's threads call MPI, which hangs under
   * an application that initialised MPI without MPI_THREAD_MULTIPLE (what
   * Zoltan's own GRAPH/Scotch did at 4 ranks).  The layer runs one process
   * per core already. */
  if (SCOTCH_contextThreadSpawn(ctx, 1, NULL) != 0) {
    *where = "SCOTCH_contextThreadSpawn";
    return SCOTCHLB_ESCOTCH;
  }
  if (SCOTCH_contextOptionSetNum(ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
      SCOTCH_contextRandomClone(ctx) != 0) {
    *where = "SCOTCH_contextOptionSetNum";
    return SCOTCHLB_ESCOTCH;
  }
  SCOTCH_contextRandomSeed(ctx, (SCOTCH_Num)seed);
  SCOTCH_contextRandomReset(ctx);
  return SCOTCHLB_OK;
}

/* Scaled integer loads, edge weights and part weights; for a remap (cur
 * given, else NULL) the current parts and the migration costs (mig per
 * object, in units of edge weight). */
static int sgraph_build(size_t n, const double *load, const size_t *start, const size_t *adj,
                        const double *ew, int nparts, const double *target, const int *cur,
                        double mig, const double *move_cost, sgraph *g, char *msg, size_t cap)
{
  size_t m = start[n];
  double lmax = 0.0, lsum = 0.0, emax = 0.0, esum = 0.0, ls, es, mc_sum = 0.0;
  memset(g, 0, sizeof *g);
  if (n >= (size_t)INT32_MAX || m >= (size_t)INT32_MAX) {
    scotchlb_say(msg, cap, "%zu objects and %zu edge ends do not fit Scotch's %zu-byte integers", n,
                 m, sizeof(SCOTCH_Num));
    return SCOTCHLB_ETOOBIG;
  }
  g->vert = malloc((n + 1) * sizeof *g->vert);
  g->edge = malloc((m + 1) * sizeof *g->edge);
  g->velo = malloc((n + 1) * sizeof *g->velo);
  g->edlo = malloc((m + 1) * sizeof *g->edlo);
  g->pw = malloc((size_t)nparts * sizeof *g->pw);
  g->eff_to_part = malloc((size_t)nparts * sizeof *g->eff_to_part);
  g->part_to_eff = malloc((size_t)nparts * sizeof *g->part_to_eff);
  g->out = malloc((n + 1) * sizeof *g->out);
  /* The current parts and the migration costs only serve a remap: a map
   * from scratch does without their 8 bytes per object. */
  if (cur) {
    g->old = malloc((n + 1) * sizeof *g->old);
    g->vmlo = malloc((n + 1) * sizeof *g->vmlo);
  }
  if ((cur && (!g->vmlo || !g->old)) || !g->vert || !g->edge || !g->velo || !g->edlo || !g->pw ||
      !g->eff_to_part || !g->part_to_eff || !g->out)
    return SCOTCHLB_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    lmax = fmax(lmax, load[i]);
    lsum += load[i];
  }
  for (size_t j = 0; j < m; j++) {
    emax = fmax(emax, ew[j]);
    esum += ew[j];
  }
  scotchlb_scales(lmax, lsum, emax, esum, (double)m, (double)n, &mig, &ls, &es);
  /* Per-object costs (object sizes) keep their mean at the cost asked, so
   * that the parameter means the same with and without them; the total
   * stays n times the mean and so within the bound scotchlb_scales kept. */
  for (size_t i = 0; cur && move_cost && i < n; i++) mc_sum += move_cost[i];
  for (size_t i = 0; cur && i < n; i++) {
    double f = move_cost && mc_sum > 0.0 ? move_cost[i] * (double)n / mc_sum : 1.0;
    g->vmlo[i] = (SCOTCH_Num)llround(mig * es * f);
  }
  for (size_t i = 0; i <= n; i++) g->vert[i] = (SCOTCH_Num)start[i];
  for (size_t i = 0; i < n; i++) g->velo[i] = scotchlb_load_int(load[i], ls);
  for (size_t j = 0; j < m; j++) {
    g->edge[j] = (SCOTCH_Num)adj[j];
    g->edlo[j] = scotchlb_edge_int(ew[j], es);
  }
  scotchlb_parts(nparts, target, g->pw, g->eff_to_part, g->part_to_eff, &g->neff, &g->equal);
  /* An object outside every part of positive size (its part has size zero,
   * or it has none) must move anyway: Scotch's remap takes no "no old part"
   * (-1 crashed it inside its weighted complete-graph target), so it gets
   * the first part as its old one at no migration cost, which leaves Scotch
   * free to place it. */
  for (size_t i = 0; cur && i < n; i++) {
    g->old[i] = cur[i] >= 0 && cur[i] < nparts ? g->part_to_eff[cur[i]] : -1;
    if (g->old[i] < 0) {
      g->old[i] = 0;
      g->vmlo[i] = 0;
    }
  }
  return SCOTCHLB_OK;
}

/* The strategy: the user's string, or one built from the flags. */
static int make_strategy(SCOTCH_Strat *strat, const scotchlb_options *o, SCOTCH_Num neff, int remap,
                         char *msg, size_t cap)
{
  static const SCOTCH_Num flags[] = {SCOTCH_STRATDEFAULT, SCOTCH_STRATQUALITY, SCOTCH_STRATSPEED,
                                     SCOTCH_STRATBALANCE};
  if (o->strategy_string && o->strategy_string[0]) {
    if (SCOTCH_stratGraphMap(strat, o->strategy_string) != 0) {
      scotchlb_say(msg, cap, "Scotch rejected the strategy string \"%s\"", o->strategy_string);
      return SCOTCHLB_ESTRAT;
    }
    return SCOTCHLB_OK;
  }
  if (SCOTCH_stratGraphMapBuild(strat, flags[o->strategy] | (remap ? SCOTCH_STRATREMAP : 0), neff,
                                o->tolerance - 1.0) != 0) {
    scotchlb_say(msg, cap, "SCOTCH_stratGraphMapBuild failed for %ld parts, balance ratio %g",
                 (long)neff, o->tolerance - 1.0);
    return SCOTCHLB_ESCOTCH;
  }
  return SCOTCHLB_OK;
}

/* One Scotch mapping (remap when the input has current parts and the
 * approach asks for it) in a private, seeded, deterministic context. */
static int run_scotch(size_t n, sgraph *g, const scotchlb_options *o, int remap, char *msg,
                      size_t cap)
{
  SCOTCH_Context ctx;
  SCOTCH_Graph graph, bound;
  SCOTCH_Arch arch;
  SCOTCH_Strat strat;
  int rc = SCOTCHLB_OK, have_ctx = 0, have_graph = 0, have_bound = 0, have_arch = 0;
  int have_strat = 0;
  const char *where = NULL;

  if (SCOTCH_contextInit(&ctx) != 0)
    where = "SCOTCH_contextInit";
  else
    have_ctx = 1;
  if (!where) scotchlb_context(&ctx, o->seed, &where);
  if (!where) {
    if (SCOTCH_graphInit(&graph) != 0)
      where = "SCOTCH_graphInit";
    else
      have_graph = 1;
  }
  if (!where && SCOTCH_graphBuild(&graph, 0, (SCOTCH_Num)n, g->vert, g->vert + 1, g->velo, NULL,
                                  g->vert[n], g->edge, g->edlo) != 0)
    where = "SCOTCH_graphBuild";
  if (!where && SCOTCH_graphCheck(&graph) != 0) where = "SCOTCH_graphCheck";
  if (!where) {
    if (SCOTCH_graphInit(&bound) != 0)
      where = "SCOTCH_graphInit";
    else
      have_bound = 1;
  }
  if (!where && SCOTCH_contextBindGraph(&ctx, &graph, &bound) != 0)
    where = "SCOTCH_contextBindGraph";
  if (!where) {
    if (SCOTCH_archInit(&arch) != 0)
      where = "SCOTCH_archInit";
    else
      have_arch = 1;
  }
  if (!where) scotchlb_arch(&arch, g->neff, g->equal, g->pw, &where);
  if (!where) {
    if (SCOTCH_stratInit(&strat) != 0)
      where = "SCOTCH_stratInit";
    else
      have_strat = 1;
  }
  if (!where) rc = make_strategy(&strat, o, g->neff, remap, msg, cap);
  if (!where && rc == SCOTCHLB_OK) {
    /* The migration cost travels in vmlo, in the units of the edge loads;
     * Scotch's own ratio stays 1 (it keeps only two decimals of it). */
    int e = remap ? SCOTCH_graphRemap(&bound, &arch, g->old, 1.0, g->vmlo, &strat, g->out)
                  : SCOTCH_graphMap(&bound, &arch, &strat, g->out);
    if (e != 0) where = remap ? "SCOTCH_graphRemap" : "SCOTCH_graphMap";
  }
  if (where) {
    scotchlb_say(msg, cap, "%s returned an error (%zu objects, %ld edge ends, %ld parts)", where, n,
                 (long)g->vert[n], (long)g->neff);
    rc = SCOTCHLB_ESCOTCH;
  }
  if (have_strat) SCOTCH_stratExit(&strat);
  if (have_arch) SCOTCH_archExit(&arch);
  if (have_bound) SCOTCH_graphExit(&bound);
  if (have_graph) SCOTCH_graphExit(&graph);
  if (have_ctx) SCOTCH_contextExit(&ctx);
  return rc;
}

int scotchlb_strategy_ok(const char *s)
{
  SCOTCH_Strat strat;
  int ok;
  if (s == NULL || SCOTCH_stratInit(&strat) != 0) return 0;
  ok = SCOTCH_stratGraphMap(&strat, s) == 0;
  SCOTCH_stratExit(&strat);
  return ok;
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
 * higher.  Without it, an unattainable tolerance let the time descent keep
 * whatever balance Scotch returned (1.0883 on the Charm++ synthetic, whose
 * heaviest object sets 1.0752), and the warning then blamed the objects. */
static double attainable_cap(size_t n, const double *load, int nparts, const double *target,
                             double tol)
{
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
static int polish(size_t n, const double *load, const size_t *start, const size_t *adj,
                  const double *ew, int nparts, const double *target, double tol, int *part)
{
  refine_graph rg = {start, adj, ew};
  refine_options ro;
  int *out = malloc((n + 1) * sizeof *out), rc;
  if (!out) return SCOTCHLB_ENOMEM;
  refine_default_options(&ro);
  ro.tolerance = tol;
  ro.comm_aware = 1;
  ro.graph = &rg;
  rc = refine_run(n, 1, load, nparts, target, part, &ro, out, NULL);
  if (rc >= 0) memcpy(part, out, n * sizeof *part);
  free(out);
  return rc == REFINE_ENOMEM ? SCOTCHLB_ENOMEM : SCOTCHLB_OK;
}

/* The largest part time (load + comm_cost x cut edge weight at the part,
 * over its target share of the total load). */
static double part_time(size_t n, const double *load, const size_t *start, const size_t *adj,
                        const double *ew, int nparts, const double *target, double comm_cost,
                        const int *part)
{
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
static int map_once(size_t n, const double *load, const size_t *start, const size_t *adj,
                    const double *ew, int nparts, const double *target, sgraph *g,
                    const scotchlb_options *opt, double ratio, int remap, int *part_out,
                    scotchlb_stats *st, char *msg, size_t cap)
{
  scotchlb_options o = *opt;
  int rc;
  o.tolerance = 1.0 + ratio;
  rc = run_scotch(n, g, &o, remap, msg, cap);
  if (rc != SCOTCHLB_OK) return rc;
  for (size_t i = 0; i < n; i++) part_out[i] = g->eff_to_part[g->out[i]];
  st->polished = 0;
  /* The polish aims at what is attainable: under a tolerance the heaviest
   * object alone exceeds, no part would have room for anything. */
  double pc = attainable_cap(n, load, nparts, target, opt->tolerance);
  if (opt->polish && (opt->passes & SCOTCHLB_PASS_POLISH) &&
      !scotchlb_within(imbalance(n, load, nparts, target, part_out), pc, pc)) {
    rc = polish(n, load, start, adj, ew, nparts, target, pc, part_out);
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
  size_t n;
  const double *load, *ew;
  const size_t *start, *adj;
  int nparts;
  const double *target;
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
  memcpy(r->base, r->cand, r->n * sizeof *r->base);
  int orders = (r->opt->passes & SCOTCHLB_PASS_ORDERS) ? SCOTCHLB_BACK_ORDERS : 1;
  for (int visit = 0; visit < orders; visit++) {
    memcpy(r->cand, r->base, r->n * sizeof *r->cand);
    if ((r->opt->passes & SCOTCHLB_PASS_BACK) &&
        scotchlb_move_back(r->n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, r->cur,
                           r->opt->tolerance, r->limit, visit, r->cand) < 0)
      return -1;
    double cut = cut_of(r->n, r->start, r->adj, r->ew, r->cand);
    if (cut > r->limit) continue;
    within = 1;
    double mv = moved_weight(r->n, r->cur, r->cand, r->opt->move_cost) / r->all_move +
                moved_weight(r->n, r->cur, r->cand, r->load) / r->all_load;
    if (mv < r->best_move || (mv == r->best_move && cut < r->best_cut)) {
      r->best_move = mv;
      r->best_cut = cut;
      *cost_used = cost;
      memcpy(r->best, r->cand, r->n * sizeof *r->best);
    }
  }
  return within;
}

/* One Scotch remap at migration cost `cost`: *within says whether its
 * answer kept the cut limit. */
static int rsearch_try(rsearch *r, double cost, double *cost_used, int *within, scotchlb_stats *cst,
                       char *msg, size_t cap)
{
  sgraph g;
  int rc = sgraph_build(r->n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, r->cur, cost,
                        r->opt->move_cost, &g, msg, cap);
  if (rc == SCOTCHLB_OK)
    rc = map_once(r->n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, &g, r->opt,
                  r->opt->tolerance - 1.0, 1, r->cand, cst, msg, cap);
  sgraph_free(&g);
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
  sgraph g;
  scotchlb_stats cst = *st;
  double c = r->opt->migration_cost > 0.0 ? r->opt->migration_cost : 1.0, lo = 0.0, hi = 0.0;
  int rc, within = 0, whole = 1;
  /* The cheapest answer first: the current parts, with objects shed off
   * the parts above the tolerance to connected parts (the fewest moves
   * there are, nearly, when the current cut is within the bound). */
  for (size_t i = 0; i < r->n && whole; i++) whole = r->cur[i] >= 0;
  whole = whole && (r->opt->passes & SCOTCHLB_PASS_SHED);
  r->limit = HUGE_VAL;
  if (whole) {
    memcpy(r->cand, r->cur, r->n * sizeof *r->cand);
    rc = SCOTCHLB_OK;
    if (scotchlb_shed(r->n, r->load, r->start, r->adj, r->ew, r->nparts, r->target,
                      r->opt->tolerance, (long)r->n, r->cand) < 0)
      return SCOTCHLB_ENOMEM;
    memcpy(r->cur_shed, r->cand, r->n * sizeof *r->cand);
  }
  rc = sgraph_build(r->n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, NULL, 0.0, NULL,
                    &g, msg, cap);
  if (rc == SCOTCHLB_OK)
    rc = map_once(r->n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, &g, r->opt,
                  r->opt->tolerance - 1.0, 0, r->cand, &cst, msg, cap);
  sgraph_free(&g);
  r->tries++;
  if (rc == SCOTCHLB_OK)
    rc = relabel_to_overlap(r->n, r->nparts, r->target, r->cur, r->opt->move_cost, r->cand);
  if (rc != SCOTCHLB_OK) return rc;
  r->limit = r->opt->repart_cut_tol * cut_of(r->n, r->start, r->adj, r->ew, r->cand);
  if (!(r->opt->passes & SCOTCHLB_PASS_FRESH)) {
    /* Not a candidate, but the answer when no other one keeps the bound
     * (the fresh partition is the only one known to keep it). */
    memcpy(r->best, r->cand, r->n * sizeof *r->best);
    *cost_used = 0.0;
  } else if (rsearch_consider(r, cost_used, 0.0) < 0) {
    return SCOTCHLB_ENOMEM;
  }
  if (whole) {
    /* The current parts after the shedding, weighed now that the bound is
     * known; a balanced answer only (shedding may fall short). */
    memcpy(r->cand, r->cur_shed, r->n * sizeof *r->cand);
    if (scotchlb_within(imbalance(r->n, r->load, r->nparts, r->target, r->cand), r->opt->tolerance,
                        r->opt->tolerance) &&
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
  for (size_t i = 0; i < r->n; i++)
    if (r->cur[i] >= 0) {
      r->all_move += move_weight(r->opt->move_cost, i);
      r->all_load += r->load[i];
    }
  r->all_move = fmax(r->all_move, 1e-300);
  r->all_load = fmax(r->all_load, 1e-300);
  r->cand = malloc(r->n * sizeof *r->cand);
  r->base = malloc(r->n * sizeof *r->base);
  r->cur_shed = malloc(r->n * sizeof *r->cur_shed);
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
  unsigned passes =
      o->passes & (merge ? SCOTCHLB_DESCENT_ALL : SCOTCHLB_DESCENT_ALL & ~SCOTCHLB_PASS_MERGE);
  long ds = 0;
  if (!(o->passes & SCOTCHLB_PASS_DESCENT)) return 0;
  if ((o->passes & SCOTCHLB_PASS_SHED) &&
      !scotchlb_within(imbalance(r->n, r->load, r->nparts, r->target, cand), r->cap, r->cap))
    ds = scotchlb_shed(r->n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, r->cap,
                       (long)r->n, cand);
  long dm = ds < 0
                ? -1
                : scotchlb_time_descent(r->n, r->load, r->start, r->adj, r->ew, r->nparts,
                                        r->target, o->comm_cost, r->cap, (long)r->n, passes, cand);
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
  st->part_time = part_time(r->n, r->load, r->start, r->adj, r->ew, r->nparts, r->target,
                            o->comm_cost, r->best);
  return dm < 0 ? SCOTCHLB_ENOMEM : SCOTCHLB_OK;
}

/* SCOTCHLB_COMM_COST from scratch or with a plain remap.  Tighter balance
 * costs cut, and which of Scotch's strategies cuts least at a given balance
 * depends on the graph (QUALITY won on a 3-D mesh and a random graph,
 * BALANCE on a ring, in bench_zoltan): with communication priced in load
 * units the best trade-off is measured rather than guessed.  The strategy
 * asked for, then QUALITY and BALANCE, each at the tolerance and three
 * tighter ratios, each followed by the time descent; the smallest largest
 * part time is kept (the first on a tie), and its cut-off pieces merged.
 * r->best holds the first run's answer on entry. */
static int comm_cost_search(const rsearch *r, sgraph *g, double ratio, int remap,
                            scotchlb_stats *st, char *msg, size_t cap)
{
  static const scotchlb_strategy extra[] = {SCOTCHLB_STRAT_QUALITY, SCOTCHLB_STRAT_BALANCE};
  const scotchlb_options *opt = r->opt;
  size_t n = r->n;
  int *cand = malloc(n * sizeof *cand), raw = opt->strategy_string && opt->strategy_string[0];
  scotchlb_stats cst = *st;
  scotchlb_options so = *opt;
  int rc = cand ? descend_best(r, 0, st) : SCOTCHLB_ENOMEM;
  double best = st->part_time, best_b = imbalance(n, r->load, r->nparts, r->target, r->best);
  int tries = !raw && (opt->passes & SCOTCHLB_PASS_STRATEGIES) ? 3 : 0;
  for (int v = 0; rc == SCOTCHLB_OK && v < tries; v++) {
    if (v > 0 && extra[v - 1] == opt->strategy) continue;
    so.strategy = v == 0 ? opt->strategy : extra[v - 1];
    for (int k = v == 0 ? 1 : 0; rc == SCOTCHLB_OK && k < SCOTCHLB_COMM_RATIOS; k++) {
      double rr = ratio / pow(4.0, k), t, b;
      rc = map_once(n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, g, &so, rr, remap,
                    cand, &cst, msg, cap);
      if (rc != SCOTCHLB_OK) break;
      long dm = capped_descent(r, 0, cand);
      if (dm < 0) rc = SCOTCHLB_ENOMEM;
      t = part_time(n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, opt->comm_cost,
                    cand);
      b = imbalance(n, r->load, r->nparts, r->target, cand);
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

/* Whether answer x (relative load bx, cut cx) beats y for PARTITION without
 * a price on the cut: within the attainable bound first, then the smaller
 * cut, then the better balance; outside it, the better balance. */
static int fresh_better(double cap, double bx, double cx, double by, double cy)
{
  int ix = scotchlb_within(bx, cap, cap), iy = scotchlb_within(by, cap, cap);
  if (ix != iy) return ix;
  if (ix && cx != cy) return cx < cy;
  return scotchlb_below(bx, by, by);
}

/* The work bound of the cut refinement at the given effort (see
 * SCOTCHLB_REFINE_SWEEPS). */
static long refine_work(const rsearch *r)
{
  double sweep = (double)r->n + (double)r->start[r->n];
  if (r->opt->effort == SCOTCHLB_EFFORT_FULL) return LONG_MAX;
  return (long)fmin(fmax(SCOTCHLB_REFINE_SWEEPS * sweep, (double)SCOTCHLB_REFINE_WORK_MIN),
                    (double)LONG_MAX / 2);
}

/* Whether the BALANCE run follows a first answer of relative load b0: it
 * must miss the attainable bound (the polish could not bring it there), a
 * BALANCE run must be something new, and the effort must allow its price
 * (at the default effort, on small graphs only). */
static int rerun_balance(const rsearch *r, double b0)
{
  const scotchlb_options *o = r->opt;
  if (!(o->passes & SCOTCHLB_PASS_BALANCE) || scotchlb_within(b0, r->cap, r->cap) ||
      o->strategy == SCOTCHLB_STRAT_BALANCE || (o->strategy_string && o->strategy_string[0]))
    return 0;
  return o->effort == SCOTCHLB_EFFORT_FULL ||
         (o->effort == SCOTCHLB_EFFORT_DEFAULT && r->n <= SCOTCHLB_RERUN_MAX);
}

/* PARTITION without a price on the cut: the cut is all that counts within
 * the balance, so what Scotch left of it goes (scotchlb_cut_refine: on the
 * Charm++ synthetic's ring at IMBALANCE_TOL 1.1, 12 cut edges became 10 at
 * the same balance), within a work bound linear in the graph at the
 * default effort.  When Scotch's answer is above the attainable bound
 * (the polish could not bring it there) and rerun_balance allows it,
 * Scotch runs once more with its BALANCE strategy, refined the same way,
 * and the better answer is kept by fresh_better: balance comes before the
 * cut, as in comm_cost_search.  SCOTCHLB_EFFORT_FAST keeps Scotch's answer.
 * r->best holds Scotch's first answer on entry. */
static int refine_fresh(const rsearch *r, sgraph *g, scotchlb_stats *st, char *msg, size_t cap)
{
  const scotchlb_options *o = r->opt;
  size_t n = r->n;
  long work = refine_work(r);
  if (o->effort == SCOTCHLB_EFFORT_FAST) return SCOTCHLB_OK;
  double b0 = imbalance(n, r->load, r->nparts, r->target, r->best);
  unsigned passes = (o->passes & SCOTCHLB_PASS_REFINE) ? o->passes & SCOTCHLB_DESCENT_ALL : 0;
  if (scotchlb_cut_refine_work(n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, r->cap,
                               (long)n, work, passes, r->best) < 0)
    return SCOTCHLB_ENOMEM;
  if (!rerun_balance(r, b0)) return SCOTCHLB_OK;
  scotchlb_options so = *o;
  scotchlb_stats cst = *st;
  int *cand = malloc(n * sizeof *cand), rc;
  so.strategy = SCOTCHLB_STRAT_BALANCE;
  rc = cand ? map_once(n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, g, &so,
                       o->tolerance - 1.0, 0, cand, &cst, msg, cap)
            : SCOTCHLB_ENOMEM;
  if (rc == SCOTCHLB_OK &&
      scotchlb_cut_refine_work(n, r->load, r->start, r->adj, r->ew, r->nparts, r->target, r->cap,
                               (long)n, work, passes, cand) < 0)
    rc = SCOTCHLB_ENOMEM;
  if (rc == SCOTCHLB_OK && fresh_better(r->cap, imbalance(n, r->load, r->nparts, r->target, cand),
                                        cut_of(n, r->start, r->adj, r->ew, cand),
                                        imbalance(n, r->load, r->nparts, r->target, r->best),
                                        cut_of(n, r->start, r->adj, r->ew, r->best))) {
    memcpy(r->best, cand, n * sizeof *r->best);
    st->polished = cst.polished;
    st->strategy = SCOTCHLB_STRAT_BALANCE;
  }
  st->tries++;
  free(cand);
  return rc;
}

/* Statistics of the input and whether REFINE may keep it. */
static int input_stats(size_t n, const double *load, const size_t *start, const size_t *adj,
                       const double *ew, int nparts, const double *target, const int *cur,
                       scotchlb_stats *st)
{
  for (size_t i = 0; cur && i < n; i++)
    if (cur[i] < 0) return 0;
  if (cur == NULL) return 0;
  st->cut_before = cut_of(n, start, adj, ew, cur);
  st->imbalance_before = imbalance(n, load, nparts, target, cur);
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
  sgraph g;
  size_t *start = NULL, *adj2 = NULL;
  double *ew = NULL, *load = NULL, *target = NULL;
  int rc, complete, remap;
  memset(&g, 0, sizeof g);
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
  complete = input_stats(n, load, start, adj2, ew, nparts, target, cur_part, st);
  if (opt->approach == SCOTCHLB_REFINE && complete &&
      scotchlb_within(st->imbalance_before, opt->tolerance, opt->tolerance)) {
    /* Already within tolerance: refinement has nothing to do. */
    memcpy(part_out, cur_part, n * sizeof *part_out);
    st->kept_input = 1;
  } else {
    remap = opt->approach != SCOTCHLB_PARTITION && cur_part != NULL;
    double mig = remap ? opt->migration_cost *
                             (opt->approach == SCOTCHLB_REFINE ? SCOTCHLB_REFINE_FACTOR : 1.0)
                       : 0.0;
    double ratio = opt->tolerance - 1.0;
    int search = opt->approach == SCOTCHLB_REPARTITION && cur_part && opt->repart_cut_tol > 0.0;
    rsearch r = {.n = n,
                 .load = load,
                 .ew = ew,
                 .start = start,
                 .adj = adj2,
                 .nparts = nparts,
                 .target = target,
                 .cur = cur_part,
                 .opt = opt,
                 .best_move = HUGE_VAL,
                 .best_cut = HUGE_VAL,
                 .best = part_out,
                 .cap = attainable_cap(n, load, nparts, target, opt->tolerance)};
    st->migration_cost_used = mig;
    st->balance_ratio = ratio;
    st->strategy = opt->strategy;
    if (search) {
      rc = cut_search(&r, st, msg, msg_cap);
    } else {
      rc = sgraph_build(n, load, start, adj2, ew, nparts, target, remap ? cur_part : NULL, mig,
                        opt->move_cost, &g, msg, msg_cap);
      if (rc == SCOTCHLB_OK)
        rc = map_once(n, load, start, adj2, ew, nparts, target, &g, opt, ratio, remap, part_out, st,
                      msg, msg_cap);
      st->tries = 1;
      if (rc == SCOTCHLB_OK && !remap && opt->comm_cost <= 0.0)
        rc = refine_fresh(&r, &g, st, msg, msg_cap);
    }
    if (rc == SCOTCHLB_OK && opt->comm_cost > 0.0)
      /* After the cut-bounded search, which chose what moves, the descent
       * only trims the time. */
      rc = search ? descend_best(&r, 1, st)
                  : comm_cost_search(&r, &g, ratio, remap, st, msg, msg_cap);
    if (rc != SCOTCHLB_OK) goto end;
  }
  st->cut_after = cut_of(n, start, adj2, ew, part_out);
  st->imbalance_after = imbalance(n, load, nparts, target, part_out);
  for (size_t i = 0; complete && i < n; i++) st->moved += part_out[i] != cur_part[i];
  st->imbalance_bound = attainable_cap(n, load, nparts, target, opt->tolerance);
  rc = scotchlb_within(st->imbalance_after, opt->tolerance, opt->tolerance) ? SCOTCHLB_OK
                                                                            : SCOTCHLB_WARN;
end:
  if (rc == SCOTCHLB_ENOMEM) scotchlb_say(msg, msg_cap, "out of memory for %zu objects", n);
  sgraph_free(&g);
  free(start);
  free(adj2);
  free(ew);
  free(load);
  free(target);
  return rc;
}
