/* SPDX-License-Identifier: BSD-3-Clause */
/* LB_METHOD=GREEDY: maps the plugin layer's gathered problem onto the core. */
#include "greedy_zoltan.h"

#include <stdio.h>

#include "greedy_core.h"
#include "zp_method.h"

/* The order of the objects in the layer's kept buffers (see
 * zp_problem_scratch): NULL when they are not available, and the core then
 * allocates its own. */
static size_t *kept_order(const zp_problem *pb, int *rc)
{
  size_t n = pb->num_obj + 1;
  size_t *order = zp_problem_scratch(pb, 0, n * sizeof *order);
  uint64_t *ws = zp_problem_scratch(pb, 1, n * sizeof *ws);
  *rc = GREEDY_OK;
  if (order == NULL || ws == NULL) return NULL;
  *rc = greedy_order_ws(pb->num_obj, pb->wgt_dim, pb->wgts, order, ws);
  return order;
}

/* The core's return code as the layer's, with the messages, and the
 * balance at DEBUG_LEVEL 1. */
static int greedy_report(const zp_problem *pb, int rc, const int *new_part)
{
  if (rc == GREEDY_ENOMEM) {
    zp_error("GREEDY", "out of memory for %zu objects and %d parts", pb->num_obj, pb->num_parts);
    return ZOLTAN_MEMERR;
  }
  if (rc != GREEDY_OK) {
    /* The layer checks weights and part sizes before calling us, so this
     * is an inconsistency worth reporting with the sizes involved. */
    zp_error("GREEDY", "invalid input (%zu objects, OBJ_WEIGHT_DIM %d, %d parts)", pb->num_obj,
             pb->wgt_dim, pb->num_parts);
    return ZOLTAN_FATAL;
  }
  if (pb->debug_level >= 1) {
    double imb = 0.0;
    if (greedy_imbalance(pb->num_obj, pb->wgt_dim, pb->wgts, pb->num_parts, pb->part_sizes,
                         new_part, &imb) == GREEDY_OK) {
      printf("ZOLTAN GREEDY: %zu objects into %d parts, max relative load %.4f\n", pb->num_obj,
             pb->num_parts, imb);
      fflush(stdout);
    }
  }
  return ZOLTAN_OK;
}

static int greedy_partition(const zp_problem *pb, void *state, int *new_part)
{
  (void)state;
  int rc;
  const size_t *order = kept_order(pb, &rc);
  if (rc == GREEDY_OK)
    rc = greedy_assign_ordered(pb->num_obj, pb->wgt_dim, pb->wgts, pb->num_parts, pb->part_sizes,
                               order, NULL, new_part);
  return greedy_report(pb, rc, new_part);
}

/* The layer's sorted path (zp_method.partition_sorted): the objects come
 * heaviest first already, as the ranks' sorted runs (ZP_SORTED_RUNS) that
 * the placement merges as it reads them, or merged. */
static int greedy_partition_sorted(const zp_problem *pb, void *state, int *new_part)
{
  (void)state;
  int rc;
  if (pb->num_runs > 0)
    rc = greedy_assign_runs(pb->num_runs, pb->wgts, pb->run_ties, pb->run_first, pb->run_count,
                            pb->num_parts, pb->part_sizes, new_part);
  else
    rc = greedy_assign_in_order(pb->num_obj, 1, pb->wgts, pb->num_parts, pb->part_sizes, new_part);
  return greedy_report(pb, rc, new_part);
}

/* No parameters: GREEDY has no knob worth exposing. */
static const zp_method greedy_method = {
    .abi = ZP_METHOD_ABI,
    .name = "GREEDY",
    .summary = "heaviest object first onto the part of least relative load (LPT, min-heap)",
    .needs = ZP_HIERARCHICAL | ZP_SORTED_RUNS,
    .partition_serial = greedy_partition,
    .partition_sorted = greedy_partition_sorted};

int greedy_register(void) { return zp_register_method(&greedy_method); }
