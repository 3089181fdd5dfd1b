/* SPDX-License-Identifier: BSD-3-Clause */
/* LB_METHOD=SCOTCHLB: maps the plugin layer's gathered problem, LB_APPROACH
 * and the SCOTCHLB_* parameters onto scotch_core. */
#include "scotch_zoltan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scotch_core.h"
#include "zp_context.h"
#include "zp_method.h"
#ifdef ZP_HAVE_PTSCOTCH
#include "scotch_parallel.h"
#endif

static const char *const strategy_words[] = {"DEFAULT", "QUALITY", "SPEED", "BALANCE", NULL};
static const char *const none_word[] = {"NONE", NULL};
/* In the order of scotchlb_effort. */
static const char *const effort_words[] = {"DEFAULT", "FAST", "FULL", NULL};

static const zp_param_def scotch_params[] = {
    {"SCOTCHLB_MIGRATION_COST", ZP_PARAM_DOUBLE, "1", 0.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "LB_APPROACH=REPARTITION: cost of moving one object, in units of the mean edge weight "
     "(1 = moving an object is worth cutting one average edge); REFINE multiplies it by 100"},
    {"SCOTCHLB_STRATEGY", ZP_PARAM_STRING, "DEFAULT", 0.0, 0.0, 0, strategy_words,
     "Scotch's strategy flags: DEFAULT, QUALITY (better cut, slower), SPEED, BALANCE "
     "(balance first)"},
    {"SCOTCHLB_STRATEGY_STRING", ZP_PARAM_STRING, "NONE", 0.0, 0.0, 0, NULL,
     "a Scotch mapping strategy string for experts (lower-cased, since the layer "
     "upper-cases values); NONE = built from SCOTCHLB_STRATEGY and IMBALANCE_TOL"},
    {"SCOTCHLB_SEED", ZP_PARAM_INT, "1", 0.0, 2147483647.0, 0, NULL,
     "seed of Scotch's private random generator (same seed, same graph: same parts)"},
    {"SCOTCHLB_POLISH", ZP_PARAM_INT, "1", 0.0, 1.0, 0, NULL,
     "1: when Scotch leaves a part above IMBALANCE_TOL (or above the load the heaviest object "
     "sets alone, when that is higher), a communication-aware REFINE pass moves objects off it "
     "(gathered path only)"},
    {"SCOTCHLB_MIGRATION_SIZES", ZP_PARAM_INT, "1", 0.0, 1.0, 0, NULL,
     "1: when every rank registered ZOLTAN_OBJ_SIZE_MULTI_FN or ZOLTAN_OBJ_SIZE_FN, an "
     "object's migration cost is SCOTCHLB_MIGRATION_COST x its size / the mean size; 0: every "
     "object costs the same"},
    {"SCOTCHLB_COMM_COST", ZP_PARAM_DOUBLE, "0", 0.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "cost of one unit of edge weight in units of object weight (e.g. 1 when both are "
     "microseconds); > 0: a part's time is its load plus this times its cut edges' weight, and "
     "the gathered path tries SCOTCHLB_STRATEGY, QUALITY and BALANCE, each at Scotch's balance "
     "ratio IMBALANCE_TOL - 1 and three tighter ones, each followed by a descent on the slowest "
     "part's time, and keeps the answer whose slowest part is fastest among those within "
     "IMBALANCE_TOL, or within the load the heaviest object sets alone when that is higher "
     "(up to " SCOTCHLB_STR(
         SCOTCHLB_COMM_MAX_RUNS) " Scotch runs); 0 = one run, which under LB_APPROACH=PARTITION on "
                                 "the gathered "
                                 "path is followed by what SCOTCHLB_EFFORT asks"},
    {"SCOTCHLB_REPART_CUT_TOL", ZP_PARAM_DOUBLE, "0", 0.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "LB_APPROACH=REPARTITION, gathered path: 0 = one Scotch remap at SCOTCHLB_MIGRATION_COST; "
     ">= 1 = the answer that moves least (fraction of the objects, or of their sizes, moved plus "
     "fraction of the load moved) among those whose cut is at most this times a fresh "
     "partition's cut: the current parts with the overloaded ones shed, the fresh partition "
     "renamed after the current parts, and remaps at migration costs searched from "
     "SCOTCHLB_MIGRATION_COST, each with objects moved back while the bound allows (up "
     "to " SCOTCHLB_STR(SCOTCHLB_REPART_MAX_RUNS) " Scotch runs); a value in (0, 1) is an error"},
    {"SCOTCHLB_EFFORT", ZP_PARAM_STRING, "DEFAULT", 0.0, 0.0, 0, effort_words,
     "LB_APPROACH=PARTITION without SCOTCHLB_COMM_COST, gathered path: what follows Scotch's "
     "answer. DEFAULT: the merge of the pieces Scotch cut off its parts (each moves whole to the "
     "part it has most edges to, the loads rebalance, and it stays when the cut falls), which "
     "stops after visiting 16 times the graph's objects and edge ends (at least 2^24); FAST: "
     "Scotch's answer and the polish only; FULL: the merge without a bound (it can cost many "
     "sweeps of the graph); prices in scotch/README.md, \"Cost of a call\""},
    {"SCOTCHLB_SKIP", ZP_PARAM_STRING, "NONE", 0.0, 0.0, 0, NULL,
     "for ablation studies: NONE, or a comma-separated list of the passes after Scotch's "
     "answers to switch off: MERGE, POLISH, STRATEGIES, DESCENT, SHED, FRESH, BACK, ORDERS "
     "(scotch/README.md, "
     "\"Ablation\"); an unknown name is an error naming it"},
    {"SCOTCHLB_PARALLEL_MIN", ZP_PARAM_INT, "1000000", 0.0, 2147483647.0, 0, NULL,
     "with PT-Scotch in the build, LB_APPROACH=PARTITION on more than one rank runs PT-Scotch "
     "on the distributed graph from this many objects (over all ranks) on, instead of "
     "gathering it on one rank; 0 = always gather"},
};

/* Per-Zoltan_Struct state: calls made (an unset LB_APPROACH means
 * PARTITION on the first call and REPARTITION afterwards) and whether the
 * graph repairs were reported already (they are reported once). */
typedef struct scotch_state {
  long calls;
  int warned_repairs;
} scotch_state;

static int state_create(void **state)
{
  *state = calloc(1, sizeof(scotch_state));
  return *state ? ZOLTAN_OK : ZOLTAN_MEMERR;
}

static void state_destroy(void *state) { free(state); }

static int state_copy(void **dst, const void *src)
{
  scotch_state *s = malloc(sizeof *s);
  if (!s) return ZOLTAN_MEMERR;
  memcpy(s, src, sizeof *s);
  *dst = s;
  return ZOLTAN_OK;
}

static const char *approach_name(scotchlb_approach a)
{
  return a == SCOTCHLB_PARTITION ? "PARTITION" : a == SCOTCHLB_REFINE ? "REFINE" : "REPARTITION";
}

/* The core's options from LB_APPROACH, IMBALANCE_TOL and the parameters.
 * *strategy receives the lower-cased strategy string (free with free()). */
/* The approach of this call: LB_APPROACH, or PARTITION on the first call
 * and REPARTITION afterwards when the application never set it. */
static scotchlb_approach approach_of(const char *lb_approach, const scotch_state *s)
{
  if (lb_approach == NULL) return s->calls == 0 ? SCOTCHLB_PARTITION : SCOTCHLB_REPARTITION;
  if (strcmp(lb_approach, "PARTITION") == 0) return SCOTCHLB_PARTITION;
  if (strcmp(lb_approach, "REFINE") == 0) return SCOTCHLB_REFINE;
  return SCOTCHLB_REPARTITION;
}

/* The core's options from LB_APPROACH, the wdim tolerances IMBALANCE_TOL
 * and the parameters.  *strategy receives the lower-cased strategy string
 * (free with free()). */
static int read_options(const zp_params *params, const char *lb_approach, const double *tol,
                        int wdim, const scotch_state *s, scotchlb_options *o, char **strategy)
{
  const char *word = NULL, *raw = NULL, *effort = NULL, *skip = NULL;
  char why[160];
  int seed = 1;
  scotchlb_default_options(o);
  *strategy = NULL;
  o->approach = approach_of(lb_approach, s);
  /* One tolerance for the combined load: the strictest IMBALANCE_TOL. */
  for (int d = 0; tol && d < wdim; d++)
    if (d == 0 || tol[d] < o->tolerance) o->tolerance = tol[d];
  if (o->tolerance < 1.0) o->tolerance = 1.0;
  if (zp_param_double(params, "SCOTCHLB_MIGRATION_COST", &o->migration_cost, NULL) != ZOLTAN_OK ||
      zp_param_string(params, "SCOTCHLB_STRATEGY", &word) != ZOLTAN_OK ||
      zp_param_string(params, "SCOTCHLB_STRATEGY_STRING", &raw) != ZOLTAN_OK ||
      zp_param_string(params, "SCOTCHLB_EFFORT", &effort) != ZOLTAN_OK ||
      zp_param_int(params, "SCOTCHLB_SEED", &seed, NULL) != ZOLTAN_OK ||
      zp_param_int(params, "SCOTCHLB_POLISH", &o->polish, NULL) != ZOLTAN_OK ||
      zp_param_double(params, "SCOTCHLB_COMM_COST", &o->comm_cost, NULL) != ZOLTAN_OK ||
      zp_param_double(params, "SCOTCHLB_REPART_CUT_TOL", &o->repart_cut_tol, NULL) != ZOLTAN_OK ||
      zp_param_string(params, "SCOTCHLB_SKIP", &skip) != ZOLTAN_OK)
    return ZOLTAN_FATAL;
  if (scotchlb_parse_skip(skip, &o->passes, why, sizeof why) != SCOTCHLB_OK) {
    zp_error("SCOTCHLB", "SCOTCHLB_SKIP = %s: %s", skip, why);
    return ZOLTAN_FATAL;
  }
  if (o->repart_cut_tol > 0.0 && o->repart_cut_tol < 1.0) {
    zp_error("SCOTCHLB", "SCOTCHLB_REPART_CUT_TOL = %g is outside {0} and [1, +inf)",
             o->repart_cut_tol);
    return ZOLTAN_FATAL;
  }
  o->seed = seed;
  for (int k = 0; strategy_words[k]; k++)
    if (strcmp(word, strategy_words[k]) == 0) o->strategy = (scotchlb_strategy)k;
  for (int k = 0; effort && effort_words[k]; k++)
    if (strcmp(effort, effort_words[k]) == 0) o->effort = (scotchlb_effort)k;
  if (raw && strcmp(raw, none_word[0]) != 0) {
    size_t len = strlen(raw);
    *strategy = malloc(len + 1);
    if (!*strategy) return ZOLTAN_MEMERR;
    /* Scotch's strategy language is lower case; Zoltan's parameter
     * handling (and so the layer's) upper-cases every value. */
    for (size_t k = 0; k <= len; k++) (*strategy)[k] = (char)tolower((unsigned char)raw[k]);
    o->strategy_string = *strategy;
  }
  return ZOLTAN_OK;
}

/* Several edge weights: communication volume is their sum, as for REFINE. */
static int edge_weights(const zp_problem *pb, const double **ew, double **owned)
{
  size_t ne = pb->adj_start ? pb->adj_start[pb->num_obj] : 0;
  *owned = NULL;
  *ew = pb->ewgt_dim == 1 ? pb->ewgts : NULL;
  if (pb->ewgt_dim <= 1 || pb->ewgts == NULL) return ZOLTAN_OK;
  *owned = malloc((ne + 1) * sizeof **owned);
  if (!*owned) return ZOLTAN_MEMERR;
  for (size_t j = 0; j < ne; j++) {
    (*owned)[j] = 0.0;
    for (int d = 0; d < pb->ewgt_dim; d++) (*owned)[j] += pb->ewgts[j * (size_t)pb->ewgt_dim + d];
  }
  *ew = *owned;
  return ZOLTAN_OK;
}

/* Messages after a call: the repairs (once per struct), the result. */
static void report(int debug_level, size_t num_obj, int num_parts, const char *path,
                   scotch_state *s, const scotchlb_options *o, const scotchlb_stats *st, int rc)
{
  /* Edges listed on one side only, or with two different weights, are
   * inconsistent callbacks worth a warning; self-loops and repeated entries
   * are legitimate ways to describe a graph and are only reported on
   * request. */
  int inconsistent = st->one_sided || st->asymmetric;
  int repaired = inconsistent || st->self_loops || st->duplicates;
  if (!s->warned_repairs && repaired && (inconsistent || debug_level >= 1)) {
    zp_warn("SCOTCHLB",
            "the graph was repaired before partitioning: %zu self-loops dropped, %zu duplicate "
            "entries summed, %zu edges listed on one side only mirrored, %zu edges whose two "
            "sides disagree averaged (reported once per Zoltan_Struct)",
            st->self_loops, st->duplicates, st->one_sided, st->asymmetric);
    s->warned_repairs = 1;
  }
  /* The warning says which limit holds: the heaviest object's, when it is
   * above the tolerance and the answer reaches it, else the search's. */
  if (rc == SCOTCHLB_WARN && st->imbalance_after <= st->imbalance_bound * (1.0 + 1e-9))
    zp_warn("SCOTCHLB",
            "the largest relative load is %.4f, above IMBALANCE_TOL %g: the heaviest object "
            "alone sets %.4f",
            st->imbalance_after, o->tolerance, st->imbalance_bound);
  else if (rc == SCOTCHLB_WARN && st->imbalance_bound > o->tolerance)
    zp_warn("SCOTCHLB",
            "the largest relative load is %.4f, above IMBALANCE_TOL %g and above the %.4f the "
            "heaviest object sets alone: no better balance was found",
            st->imbalance_after, o->tolerance, st->imbalance_bound);
  else if (rc == SCOTCHLB_WARN)
    zp_warn("SCOTCHLB",
            "the largest relative load is %.4f, above IMBALANCE_TOL %g: no better balance was "
            "found",
            st->imbalance_after, o->tolerance);
  if (debug_level >= 1) {
    /* The runs are counted on the gathered path without a price on the
     * cut (the search's up to 12 runs are not; PT-Scotch runs once, and
     * the effort does not apply to it); the effort says what was allowed. */
    char runs[64] = "";
    if (o->comm_cost <= 0.0 && strcmp(path, "gathered") == 0)
      snprintf(runs, sizeof runs, ", effort %s, Scotch runs %d", effort_words[o->effort],
               st->tries > 0 ? st->tries : 1);
    printf("ZOLTAN SCOTCHLB: %s (%s), %zu objects, %zu edges, %d parts: moved %zu, cut %g -> %g, "
           "max relative load %.4f -> %.4f, balance ratio %g, strategy %s%s%s%s\n",
           approach_name(o->approach), path, num_obj, st->edges, num_parts, st->moved,
           st->cut_before, st->cut_after, st->imbalance_before, st->imbalance_after,
           st->balance_ratio, strategy_words[st->strategy], runs,
           st->kept_input ? " (input kept: within tolerance)" : "",
           st->polished ? " (REFINE polish)" : "");
    fflush(stdout);
  }
}

static int scotch_partition(const zp_problem *pb, void *state, int *new_part)
{
  scotch_state *s = state;
  scotchlb_options o;
  scotchlb_stats st;
  char *strategy = NULL, msg[512] = "";
  double *owned = NULL;
  const double *ew = NULL;
  int ierr = read_options(pb->params, pb->lb_approach, pb->imbalance_tol, pb->wgt_dim, s, &o,
                          &strategy),
      rc, sizes = 0, pmin = 0;
  if (ierr == ZOLTAN_OK &&
      (zp_param_int(pb->params, "SCOTCHLB_MIGRATION_SIZES", &sizes, NULL) != ZOLTAN_OK ||
       zp_param_int(pb->params, "SCOTCHLB_PARALLEL_MIN", &pmin, NULL) != ZOLTAN_OK))
    ierr = ZOLTAN_FATAL;
  if (sizes) o.move_cost = pb->obj_sizes;
  /* Say why a large graph was gathered after all. */
  if (ierr == ZOLTAN_OK && pb->debug_level >= 1 && pmin > 0 && pb->num_procs > 1 &&
      pb->num_obj >= (size_t)pmin)
    printf("ZOLTAN SCOTCHLB: %zu objects gathered on one rank: %s\n", pb->num_obj,
#ifdef ZP_HAVE_PTSCOTCH
           o.approach != SCOTCHLB_PARTITION
               ? "PT-Scotch 7.0 has no distributed remapping, so REPARTITION and REFINE gather"
           : o.strategy_string ? "a raw SCOTCHLB_STRATEGY_STRING is a serial strategy"
                               : "the graph comes from the hypergraph callbacks"
#else
           "this build has no PT-Scotch for its MPI"
#endif
    );
  if (ierr == ZOLTAN_OK) ierr = edge_weights(pb, &ew, &owned);
  if (ierr == ZOLTAN_MEMERR) zp_error("SCOTCHLB", "out of memory for %zu objects", pb->num_obj);
  if (ierr != ZOLTAN_OK) goto end;
  rc = scotchlb_partition(pb->num_obj, pb->wgt_dim, pb->wgts, pb->adj_start, pb->adj, ew,
                          pb->num_parts, pb->part_sizes, pb->cur_part, &o, new_part, &st, msg,
                          sizeof msg);
  if (rc < 0) {
    zp_error("SCOTCHLB", "%s", msg);
    ierr = rc == SCOTCHLB_ENOMEM ? ZOLTAN_MEMERR : ZOLTAN_FATAL;
    goto end;
  }
  s->calls++;
  report(pb->debug_level, pb->num_obj, pb->num_parts, "gathered", s, &o, &st, rc);
  ierr = rc == SCOTCHLB_WARN ? ZOLTAN_WARN : ZOLTAN_OK;
end:
  free(strategy);
  free(owned);
  return ierr;
}

/* The PT-Scotch path: when it is built, the graph is large enough, there
 * is more than one rank, the call maps from scratch (PT-Scotch 7.0 cannot
 * remap in parallel) and no raw serial strategy string was given. */
#ifdef ZP_HAVE_PTSCOTCH
static int scotch_use_parallel(const zp_params *params, double num_global_obj, int num_procs,
                               const char *lb_approach, const void *state)
{
  const char *raw = NULL;
  int pmin = 0;
  if (zp_param_int(params, "SCOTCHLB_PARALLEL_MIN", &pmin, NULL) != ZOLTAN_OK ||
      zp_param_string(params, "SCOTCHLB_STRATEGY_STRING", &raw) != ZOLTAN_OK)
    return 0;
  return num_procs > 1 && pmin > 0 && num_global_obj >= (double)pmin &&
         approach_of(lb_approach, state) == SCOTCHLB_PARTITION &&
         (raw == NULL || strcmp(raw, none_word[0]) == 0);
}
#endif

#ifdef ZP_HAVE_PTSCOTCH
static int scotch_partition_parallel(zp_context *ctx, void *state, int *new_part)
{
  scotch_state *s = state;
  scotchlb_options o;
  scotchlb_stats st;
  char *strategy = NULL, msg[512] = "";
  int ierr, rc, rank = 0, n = zp_ctx_num_local(ctx);
  double nglob = 0.0, mine = n;
  MPI_Comm_rank(zp_ctx_comm(ctx), &rank);
  MPI_Allreduce(&mine, &nglob, 1, MPI_DOUBLE, MPI_SUM, zp_ctx_comm(ctx));
  ierr = read_options(zp_ctx_params(ctx), zp_ctx_lb_approach(ctx), zp_ctx_imbalance_tol(ctx),
                      zp_ctx_wgt_dim(ctx), s, &o, &strategy);
  free(strategy);
  if (ierr != ZOLTAN_OK) return ierr;
  rc = scotchlb_partition_parallel(ctx, &o, new_part, &st, msg, sizeof msg);
  if (rc < 0) {
    if (rank == 0) zp_error("SCOTCHLB", "%s", msg);
    return rc == SCOTCHLB_ENOMEM ? ZOLTAN_MEMERR : ZOLTAN_FATAL;
  }
  s->calls++;
  if (rank == 0)
    report(zp_ctx_debug_level(ctx), (size_t)nglob, zp_ctx_num_parts(ctx), "PT-Scotch", s, &o, &st,
           rc);
  return rc == SCOTCHLB_WARN ? ZOLTAN_WARN : ZOLTAN_OK;
}
#endif

/* The graph always; object sizes when they may weigh the migration.  It
 * runs by groups (HIERARCHY): the layer routes the load between
 * neighbouring groups along the graph, and each group's root maps its
 * own objects and those that came to it (docs/hierarchy.md). */
static unsigned scotch_needs(const zp_params *params)
{
  int sizes = 1;
  unsigned needs = ZP_NEEDS_GRAPH | ZP_STRICT_GRAPH | ZP_GRAPH_FROM_HYPERGRAPH | ZP_HIERARCHICAL;
  if (zp_param_int(params, "SCOTCHLB_MIGRATION_SIZES", &sizes, NULL) == ZOLTAN_OK && sizes)
    needs |= ZP_WANTS_SIZES;
  return needs;
}

static const zp_method scotch_method = {
    .abi = ZP_METHOD_ABI,
    .name = "SCOTCHLB",
    .summary = "graph partitioning with Scotch; LB_APPROACH=REPARTITION/REFINE remaps from the "
               "current parts with a migration cost",
    .params = scotch_params,
    .num_params = sizeof(scotch_params) / sizeof(scotch_params[0]),
    .needs = ZP_NEEDS_GRAPH | ZP_STRICT_GRAPH | ZP_GRAPH_FROM_HYPERGRAPH | ZP_HIERARCHICAL,
    .create = state_create,
    .destroy = state_destroy,
    .copy = state_copy,
    .partition_serial = scotch_partition,
#ifdef ZP_HAVE_PTSCOTCH
    .partition_parallel = scotch_partition_parallel,
    .use_parallel = scotch_use_parallel,
#endif
    .needs_for = scotch_needs};

int scotchlb_register(void) { return zp_register_method(&scotch_method); }
