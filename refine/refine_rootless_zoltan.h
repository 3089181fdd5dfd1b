/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef REFINE_ROOTLESS_ZOLTAN_H
#define REFINE_ROOTLESS_ZOLTAN_H

/*
 * REFINE_DISTRIBUTED=2: REFINE decided without a root, on the MPI ranks
 * (refine_rootless.h describes the method).  Needs one part per rank
 * (zp_ctx_parts_are_ranks); the caller checks.
 */

#include "zp_context.h"

/* What one call did, the same on every rank. */
typedef struct refine_rootless_stats {
  double imbalance_before, imbalance_after; /* largest load / target */
  long moved;                               /* objects that change rank */
  long donors, receivers, transfers;        /* ranks that give, get; donor-receiver pairs */
  long max_bytes;                           /* most bytes any rank received in the exchanges */
  int kept_input;                           /* 1 when the answer would have been worse */
} refine_rootless_stats;

/*
 * refine_rootless_run - the new part (= rank) of every local object.
 * Collective over zp_ctx_comm: O(log P) reductions and three sparse
 * exchanges (intervals to block owners, transfers to donors, amounts to
 * receivers), each rank talking only to the ranks it has business with.
 * tol >= 1 is the tolerance.  Never worse than the input: when the largest
 * load / target would grow, every object stays.  Returns a ZOLTAN_* code,
 * the same on every rank (ZOLTAN_MEMERR when some rank ran out of memory).
 */
int refine_rootless_run(zp_context *ctx, double tol, int *new_part, refine_rootless_stats *st);

#endif /* REFINE_ROOTLESS_ZOLTAN_H */
