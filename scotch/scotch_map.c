/* SPDX-License-Identifier: BSD-3-Clause */
/* SCOTCHLB's calls of Scotch: the problem scaled into Scotch's integers and
 * one seeded, deterministic mapping or remapping; see scotch_internal.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scotch.h>

#include "scotch_internal.h"

/* The messages of the whole core go through here (scotch_internal.h), at
 * the bottom of its calls. */
void scotchlb_say(char *msg, size_t cap, const char *fmt, ...)
{
  va_list ap;
  if (msg == NULL || cap == 0) return;
  va_start(ap, fmt);
  vsnprintf(msg, cap, fmt, ap);
  va_end(ap);
}

/* Integer ranges of the scaled loads, part sizes and edge weights. */
#define SCOTCHLB_LOAD_MAX 1048576.0    /* 2^20 */
#define SCOTCHLB_SUM_MAX  1073741824.0 /* 2^30 */
#define SCOTCHLB_EDGE_MAX 65536.0      /* 2^16 */
#define SCOTCHLB_COST_MAX 536870912.0  /* 2^29: edge loads, and migration costs apart */

void scotchlb_sgraph_free(scotchlb_sgraph *g)
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
/* Every part of the old mapping gets at least one object.  Scotch's remap
 * takes no "no old part" (-1 crashed it inside its weighted complete-graph
 * target), and Scotch 7.0.3's band refinement reads memory it never set,
 * and can crash, when a part of the old mapping holds no object: a group of
 * HIERARCHY whose border parts sent all their objects to the next group
 * has such parts (docs/hierarchy.md).  So the objects without a current
 * part (old < 0, at no migration cost: Scotch may place them anywhere) are
 * said to come from the empty parts in turn, or from the first part when
 * none is empty; then each part still empty takes one object of the part
 * that holds the most, at no migration cost either.  Returns -1 when
 * memory is short. */
static int fill_old_parts(size_t n, scotchlb_sgraph *g)
{
  SCOTCH_Num neff = g->neff, ne = 0, k = 0, q, big = 0;
  SCOTCH_Num *empty = malloc(((size_t)neff + 1) * sizeof *empty);
  size_t *count = calloc((size_t)neff + 1, sizeof *count);
  if (empty == NULL || count == NULL) {
    free(empty);
    free(count);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    if (g->old[i] >= 0) count[g->old[i]]++;
  for (q = 0; q < neff; q++)
    if (count[q] == 0) empty[ne++] = q;
  for (size_t i = 0; i < n; i++)
    if (g->old[i] < 0) {
      g->old[i] = ne > 0 ? empty[(k++) % ne] : 0;
      count[g->old[i]]++;
    }
  k = 0;
  for (q = 0, ne = 0; q < neff; q++) {
    if (count[q] > count[big]) big = q;
    if (count[q] == 0) empty[ne++] = q;
  }
  /* The last objects of the largest part, one per part still empty. */
  for (size_t i = n; ne > 0 && k < ne && i-- > 0 && count[big] > 1;)
    if (g->old[i] == big) {
      g->old[i] = empty[k++];
      g->vmlo[i] = 0;
      count[big]--;
    }
  free(empty);
  free(count);
  return 0;
}

int scotchlb_sgraph_build(const scotchlb_instance *in, const int *cur, double mig,
                          const double *move_cost, scotchlb_sgraph *g, char *msg, size_t cap)
{
  size_t n = in->n, m = in->start[n];
  int nparts = in->nparts;
  const double *load = in->load, *ew = in->ew;
  const size_t *start = in->start, *adj = in->adj;
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
  scotchlb_parts(nparts, in->target, g->pw, g->eff_to_part, g->part_to_eff, &g->neff, &g->equal);
  /* An object outside every part of positive size (its part has size zero,
   * or it has none) must move anyway: it gets an old part at no migration
   * cost (fill_old_parts), which leaves Scotch free to place it. */
  for (size_t i = 0; cur && i < n; i++) {
    g->old[i] = cur[i] >= 0 && cur[i] < nparts ? g->part_to_eff[cur[i]] : -1;
    if (g->old[i] < 0) g->vmlo[i] = 0;
  }
  if (cur && fill_old_parts(n, g) < 0) return SCOTCHLB_ENOMEM;
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
int scotchlb_run(size_t n, scotchlb_sgraph *g, const scotchlb_options *o, int remap, char *msg,
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
