/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ADVISOR_EVAL_H
#define ADVISOR_EVAL_H

/*
 * The figures of LB_METHOD=AUTO's decision where the objects lie: the
 * problem's traits and each candidate's modelled step, computed on every
 * rank from its own objects and added over the ranks, so that nothing is
 * gathered on one rank.  Every sum is a reproducible sum (greedy_util.h:
 * integer multiples of a scale set by the largest value over all ranks,
 * added exactly), so the figures are the same bits at any rank count and
 * for the objects in any order.  An edge's far end is looked up on the
 * rank the graph callbacks name for it; a far end that rank does not hold
 * counts in no figure, as in loaddb_evaluate.  Not installed; used by
 * advisor_zoltan.c only.
 */

#include <stddef.h>

#include "advisor_core.h"
#include "loaddb_eval.h"
#include "zp_context.h"

/* Where the far end of every local edge is found: on this rank, or at a
 * place of the answers another rank sends back. */
typedef struct advisor_far advisor_far;

/*
 * advisor_far_plan - the extents every figure's scale needs (the largest
 * weight and edge weight over the ranks), and the owner's local index of
 * every remote far end, asked once per decision.  Collective.  Returns
 * ZOLTAN_OK, ZOLTAN_MEMERR, or ZOLTAN_FATAL when the edges towards one rank
 * exceed one MPI count (the message says so) or MPI fails; the same on
 * every rank.  Free the plan with advisor_far_free.
 */
int advisor_far_plan(zp_context *ctx, advisor_far **plan);
void advisor_far_free(advisor_far *plan);

/*
 * advisor_dist_traits - the traits of the problem of ctx (first weight,
 * current parts, edges when the context has them; has_geom from the
 * context's coordinates), the same on every rank; plan from
 * advisor_far_plan.  Collective.  Returns ZOLTAN_OK, ZOLTAN_MEMERR or
 * ZOLTAN_FATAL (an MPI failure), the same on every rank.
 */
int advisor_dist_traits(zp_context *ctx, const advisor_far *plan, advisor_traits *t);

/*
 * advisor_dist_evaluate - loaddb_evaluate's figures for the local answer
 * new_part (zp_ctx_num_local parts) of one candidate, over every rank:
 * *ok is 0 on every rank when some rank's answer has a part outside
 * [0, parts).  comm_cost prices the edge weight that leaves a part.
 * Collective.  Returns ZOLTAN_OK, ZOLTAN_MEMERR or ZOLTAN_FATAL, the same
 * on every rank.
 */
int advisor_dist_evaluate(zp_context *ctx, const advisor_far *plan, const int *new_part,
                          double comm_cost, loaddb_eval *ev, int *ok);

#endif /* ADVISOR_EVAL_H */
