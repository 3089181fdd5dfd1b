/* SPDX-License-Identifier: BSD-3-Clause */
/* LB_METHOD=REFINE and LB_METHOD=GREEDYREFINE: map the plugin layer's
 * gathered problem and parameters onto refine_core. */
#include "refine_zoltan.h"

#include <stdio.h>
#include <stdlib.h>

#include "refine_core.h"
#include "greedy_core.h"
#include "refine_rootless_zoltan.h"
#include "zp_context.h"
#include "zp_method.h"

/* Zoltan's own default of IMBALANCE_TOL, used if the layer gives none. */
#define REFINE_ZOLTAN_DEFAULT_TOL 1.1

static const char *const refine_auto_words[] = {"AUTO", NULL};

static const zp_param_def refine_params[] = {
    {"REFINE_TOLERANCE", ZP_PARAM_DOUBLE, "AUTO", 1.0, 0.0, ZP_PARAM_NO_MAX, refine_auto_words,
     "a part may carry up to this factor times its target load; AUTO = the "
     "smallest IMBALANCE_TOL"},
    {"REFINE_COMM_AWARE", ZP_PARAM_INT, "0", 0.0, 1.0, 0, NULL,
     "1: move objects preferably to parts holding their graph neighbours and "
     "report the change of the edge cut"},
    {"REFINE_DISTRIBUTED", ZP_PARAM_INT, "0", 0.0, 2.0, 0, refine_auto_words,
     "1: part loads by one allreduce, and only the objects of the parts at or above their "
     "target travel to the root, the other parts as one load each (the same answer; not "
     "with REFINE_COMM_AWARE=1, which needs every edge); 2: no root at all, with one part per "
     "rank (overloaded ranks send to underloaded ones matched by prefix sums; a different "
     "answer, never worse than the input); AUTO: 2 from REFINE_ROOTLESS_MIN objects on, "
     "else 1"},
    {"REFINE_ROOTLESS_MIN", ZP_PARAM_INT, "10000000", 1.0, 2147483647.0, 0, NULL,
     "REFINE_DISTRIBUTED=AUTO: the number of objects over all ranks from which REFINE runs "
     "without a root"},
};

static const zp_param_def greedyrefine_params[] = {
    {"GREEDYREFINE_TOLERANCE", ZP_PARAM_DOUBLE, "1.01", 1.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "the thorough pass may exceed GREEDY's max relative load by this factor; "
     "larger keeps more objects in place"},
    {"GREEDYREFINE_THRESHOLD", ZP_PARAM_DOUBLE, "1.0", 1.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "measured max relative load at or below which only a REFINE pass runs; "
     "above it the thorough pass (1.0 = always thorough)"},
};

/* Free what read_options allocated. */
static void options_free(double *edge_sum) { free(edge_sum); }

/* C99 compile-time check: the layer has a kept buffer for every slot. */
typedef char refine_slots_check[REFINE_SCRATCH_SLOTS <= ZP_PROBLEM_SCRATCH_SLOTS ? 1 : -1];

/* The core's work buffers are the layer's kept ones (zp_problem_scratch). */
static void *kept_buffer(void *pb, int slot, size_t bytes)
{
  return zp_problem_scratch(pb, slot, bytes);
}

/*
 * The core's options from the parameters and the gathered graph.
 * *edge_sum receives an allocated array when several edge weights must be
 * summed into one (free with options_free).
 */
static int read_options(const zp_problem *pb, const char *who, refine_options *o, refine_graph *g,
                        double **edge_sum)
{
  double v;
  int kw = 0, comm = 0;
  refine_default_options(o);
  *edge_sum = NULL;
  if (zp_param_double(pb->params, "REFINE_TOLERANCE", &v, &kw) != ZOLTAN_OK) return ZOLTAN_FATAL;
  if (kw) {
    /* One tolerance for the combined load: the strictest of the user's
     * per-weight IMBALANCE_TOL values. */
    v = REFINE_ZOLTAN_DEFAULT_TOL;
    for (int d = 0; pb->imbalance_tol && d < pb->wgt_dim; d++)
      if (d == 0 || pb->imbalance_tol[d] < v) v = pb->imbalance_tol[d];
    if (v < 1.0) v = 1.0;
  }
  o->tolerance = v;
  o->scratch = kept_buffer;
  o->scratch_arg = (void *)pb;
  if (zp_param_int(pb->params, "REFINE_COMM_AWARE", &comm, NULL) != ZOLTAN_OK) return ZOLTAN_FATAL;
  if (zp_param_double(pb->params, "GREEDYREFINE_TOLERANCE", &o->gr_tolerance, NULL) != ZOLTAN_OK ||
      zp_param_double(pb->params, "GREEDYREFINE_THRESHOLD", &o->gr_threshold, NULL) != ZOLTAN_OK)
    return ZOLTAN_FATAL;
  if (pb->adj_start) {
    g->adj_start = pb->adj_start;
    g->adj = pb->adj;
    g->ewgts = NULL;
    if (pb->ewgt_dim == 1) {
      g->ewgts = pb->ewgts;
    } else if (pb->ewgt_dim > 1 && pb->ewgts) {
      /* Several edge weights: communication volume is their sum. */
      size_t ne = pb->adj_start[pb->num_obj];
      double *sum = malloc((ne ? ne : 1) * sizeof(double));
      if (!sum) {
        zp_error(who, "out of memory for %zu edge weights", ne);
        return ZOLTAN_MEMERR;
      }
      for (size_t j = 0; j < ne; j++) {
        sum[j] = 0.0;
        for (int d = 0; d < pb->ewgt_dim; d++) sum[j] += pb->ewgts[j * (size_t)pb->ewgt_dim + d];
      }
      g->ewgts = sum;
      *edge_sum = sum;
    }
    o->graph = g;
  }
  if (comm && !o->graph)
    zp_warn(who, "REFINE_COMM_AWARE = 1 but the application registered no graph "
                 "callbacks; objects move without regard to communication");
  o->comm_aware = comm && o->graph;
  return ZOLTAN_OK;
}

static const char *pass_name(int pass)
{
  switch (pass) {
  case REFINE_PASS_REFINE:
    return "refinement";
  case REFINE_PASS_KEEP_LIGHT:
    return "keep-lightest-first";
  case REFINE_PASS_KEEP_HEAVY:
    return "keep-heaviest-first";
  case REFINE_PASS_GREEDY:
    return "plain GREEDY";
  default:
    return "none (input kept)";
  }
}

/* Turn a core return code into a Zoltan code, with the message. */
static int report(const zp_problem *pb, const char *who, int rc, const refine_options *o,
                  const refine_stats *st)
{
  if (rc == REFINE_ENOMEM) {
    zp_error(who, "out of memory for %zu objects and %d parts", pb->num_obj, pb->num_parts);
    return ZOLTAN_MEMERR;
  }
  if (rc == REFINE_EINVAL) {
    zp_error(who, "invalid input (%zu objects, OBJ_WEIGHT_DIM %d, %d parts, tolerance %g)",
             pb->num_obj, pb->wgt_dim, pb->num_parts, o->tolerance);
    return ZOLTAN_FATAL;
  }
  if (rc == REFINE_WARN)
    zp_warn(who,
            "REFINE_TOLERANCE = %g cannot be met: part %d keeps relative load %.4f "
            "because no part has room for any of its objects within the tolerance; "
            "returning the best assignment found (max relative load %.4f -> %.4f)",
            o->tolerance, st->worst_part, st->imbalance_after, st->imbalance_before,
            st->imbalance_after);
  if (pb->debug_level >= 1) {
    printf("ZOLTAN %s: %s pass, moved %zu of %zu objects, max relative load %.4f -> %.4f", who,
           pass_name(st->pass), st->moved, pb->num_obj, st->imbalance_before, st->imbalance_after);
    if (st->have_cut) printf(", edge cut %g -> %g", st->cut_before, st->cut_after);
    printf("\n");
    fflush(stdout);
  }
  return rc == REFINE_WARN ? ZOLTAN_WARN : ZOLTAN_OK;
}

/*
 * Objects in no part yet (cur_part -1: their rank holds no part) get the
 * part a GREEDY pass over all objects would give them, so that refinement
 * starts from a complete assignment.  *cur is pb->cur_part itself when every
 * object has a part, else a copy to free with free().
 */
static int complete_current(const zp_problem *pb, const char *who, const int **cur, int **owned)
{
  size_t i, missing = 0;
  int *g = NULL, *c = NULL;
  *cur = pb->cur_part;
  *owned = NULL;
  for (i = 0; i < pb->num_obj; i++) missing += pb->cur_part[i] < 0;
  if (missing == 0) return ZOLTAN_OK;
  g = malloc(pb->num_obj * sizeof *g);
  c = malloc(pb->num_obj * sizeof *c);
  if (!g || !c ||
      greedy_assign(pb->num_obj, pb->wgt_dim, pb->wgts, pb->num_parts, pb->part_sizes, g) !=
          GREEDY_OK) {
    zp_error(who, "could not place %zu objects that are in no part", missing);
    free(g);
    free(c);
    return ZOLTAN_MEMERR;
  }
  for (i = 0; i < pb->num_obj; i++) c[i] = pb->cur_part[i] >= 0 ? pb->cur_part[i] : g[i];
  free(g);
  *cur = c;
  *owned = c;
  return ZOLTAN_OK;
}

/* refine_run and refine_greedyrefine: the core entry points, which share
 * one signature. */
typedef int (*refine_entry)(size_t n, int wdim, const double *w, int nparts,
                            const double *target_frac, const int *cur_part,
                            const refine_options *opt, int *part_out, refine_stats *st);

/*
 * The partition path of both methods, which differ only in the core entry
 * point and in the name their messages carry: options from the parameters,
 * a complete current assignment, the core, then its return code reported
 * as a Zoltan code.
 */
static int run_method(const zp_problem *pb, const char *who, refine_entry entry, int *new_part)
{
  refine_options o;
  refine_graph g;
  refine_stats st;
  double *edge_sum = NULL;
  const int *cur = NULL;
  int *owned = NULL;
  int ierr = read_options(pb, who, &o, &g, &edge_sum);
  if (ierr == ZOLTAN_OK) ierr = complete_current(pb, who, &cur, &owned);
  if (ierr == ZOLTAN_OK) {
    int rc = entry(pb->num_obj, pb->wgt_dim, pb->wgts, pb->num_parts, pb->part_sizes, cur, &o,
                   new_part, &st);
    ierr = report(pb, who, rc, &o, &st);
  }
  free(owned);
  options_free(edge_sum);
  return ierr;
}

static int refine_partition(const zp_problem *pb, void *state, int *new_part)
{
  (void)state;
  return run_method(pb, "REFINE", refine_run, new_part);
}

static int greedyrefine_partition(const zp_problem *pb, void *state, int *new_part)
{
  (void)state;
  return run_method(pb, "GREEDYREFINE", refine_greedyrefine, new_part);
}

/* The graph costs a gather of every edge on the root: ask for it only when
 * the communication-aware option will use it. */
static unsigned refine_needs(const zp_params *params)
{
  int comm = 0;
  if (zp_param_int(params, "REFINE_COMM_AWARE", &comm, NULL) != ZOLTAN_OK) comm = 0;
  return ZP_NO_REMAP | ZP_HIERARCHICAL | (comm ? ZP_WANTS_GRAPH : 0u);
}

/* GREEDYREFINE's answer depends on the weights in weight order and on the
 * current parts only: without the graph, the layer's sorted path runs it
 * with the current parts (ZP_SORTED_PARTS), and its passes then read the
 * objects in sequence.  (REFINE sorts only the overloaded parts' objects,
 * which costs less than the sorted path's sort of all of them.) */
static unsigned greedyrefine_needs(const zp_params *params)
{
  return refine_needs(params) | ZP_SORTED_PARTS;
}

/* REFINE_DISTRIBUTED as a number: 0, 1, 2, or -1 for AUTO. */
static int distributed_mode(const zp_params *params)
{
  int dist = 0, kw = 0;
  if (zp_param_int(params, "REFINE_DISTRIBUTED", &dist, &kw) != ZOLTAN_OK) return 0;
  return kw ? -1 : dist;
}

/* REFINE moves objects only off parts above their target, so it can do
 * with the reduced gather; not when it needs the whole graph. */
static unsigned refine_only_needs(const zp_params *params)
{
  int comm = 0, dist = 0;
  if (zp_param_int(params, "REFINE_COMM_AWARE", &comm, NULL) != ZOLTAN_OK) comm = 0;
  dist = distributed_mode(params);
  return refine_needs(params) | ZP_REFINES | (dist && !comm ? ZP_GATHER_CANDIDATES : 0u);
}

/* REFINE_DISTRIBUTED=2, or AUTO above REFINE_ROOTLESS_MIN objects: the
 * rootless path, on more than one rank. */
static int refine_use_parallel(const zp_params *params, double num_global_obj, int num_procs,
                               const char *lb_approach, const void *state)
{
  int dist = distributed_mode(params), min = 10000000;
  (void)lb_approach;
  (void)state;
  if (num_procs < 2) return 0;
  if (dist == 2) return 1;
  if (dist != -1 || zp_param_int(params, "REFINE_ROOTLESS_MIN", &min, NULL) != ZOLTAN_OK) return 0;
  return num_global_obj >= (double)min;
}

/* The rootless path; with other parts than one per rank, the gathered
 * REFINE (the same method's centralised function, as a base run). */
static int refine_partition_parallel(zp_context *ctx, void *state, int *new_part)
{
  refine_rootless_stats st;
  const zp_params *params = zp_ctx_params(ctx);
  double tol = 1.0;
  int kw = 0, rank = 0, ierr;
  (void)state;
  MPI_Comm_rank(zp_ctx_comm(ctx), &rank);
  if (!zp_ctx_parts_are_ranks(ctx)) {
    if (rank == 0 && zp_ctx_debug_level(ctx) >= 1)
      printf("ZOLTAN REFINE: REFINE_DISTRIBUTED=2 needs one part per rank; gathering the "
             "candidates instead\n");
    return zp_ctx_run_base(ctx, "REFINE", zp_ctx_part_sizes(ctx), new_part);
  }
  if (zp_param_double(params, "REFINE_TOLERANCE", &tol, &kw) != ZOLTAN_OK) return ZOLTAN_FATAL;
  if (kw) {
    const double *t = zp_ctx_imbalance_tol(ctx);
    tol = REFINE_ZOLTAN_DEFAULT_TOL;
    for (int d = 0; t && d < zp_ctx_wgt_dim(ctx); d++)
      if (d == 0 || t[d] < tol) tol = t[d];
    if (tol < 1.0) tol = 1.0;
  }
  ierr = refine_rootless_run(ctx, tol, new_part, &st);
  if (ierr == ZOLTAN_MEMERR && rank == 0)
    zp_error("REFINE", "out of memory in the rootless exchanges");
  if (ierr == ZOLTAN_OK && rank == 0 && zp_ctx_debug_level(ctx) >= 1) {
    printf("ZOLTAN REFINE: rootless, %ld donors, %ld receivers, %ld transfers, moved %ld objects, "
           "max relative load %.4f -> %.4f%s, busiest rank received %ld bytes\n",
           st.donors, st.receivers, st.transfers, st.moved, st.imbalance_before, st.imbalance_after,
           st.kept_input ? " (input kept: the answer was worse)" : "", st.max_bytes);
    fflush(stdout);
  }
  if (ierr == ZOLTAN_OK && st.imbalance_after > tol * (1.0 + 1e-12)) {
    if (rank == 0)
      zp_warn("REFINE", "rootless: the largest relative load is %.4f, above the tolerance %g",
              st.imbalance_after, tol);
    return ZOLTAN_WARN;
  }
  return ierr;
}

static const zp_method refine_method = {
    .abi = ZP_METHOD_ABI,
    .name = "REFINE",
    .summary = "move objects off parts above tolerance x target, fewest moves first",
    .params = refine_params,
    .num_params = sizeof(refine_params) / sizeof(refine_params[0]),
    .needs = ZP_WANTS_GRAPH | ZP_NO_REMAP,
    .partition_serial = refine_partition,
    .partition_parallel = refine_partition_parallel,
    .use_parallel = refine_use_parallel,
    .needs_for = refine_only_needs};

static const zp_method greedyrefine_method = {
    .abi = ZP_METHOD_ABI,
    .name = "GREEDYREFINE",
    .summary = "GREEDY's balance keeping objects in place where possible; REFINE when "
               "the imbalance is below GREEDYREFINE_THRESHOLD",
    .params = greedyrefine_params,
    .num_params = sizeof(greedyrefine_params) / sizeof(greedyrefine_params[0]),
    .needs = ZP_WANTS_GRAPH | ZP_NO_REMAP,
    .partition_serial = greedyrefine_partition,
    .partition_sorted = greedyrefine_partition,
    .needs_for = greedyrefine_needs};

int refine_register(void)
{
  int rc = zp_register_method(&refine_method);
  if (rc != ZOLTAN_OK) return rc;
  return zp_register_method(&greedyrefine_method);
}
