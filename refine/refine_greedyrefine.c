/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GREEDYREFINE (Charm++'s GreedyRefine idea): REFINE when the current
 * assignment is mildly imbalanced, else GREEDY's balance with as many
 * objects kept in place as a bound on it allows (refine_core.h says what
 * refine_greedyrefine promises).  Pure C on plain arrays, over the GREEDY
 * core and REFINE's pass.
 */
#include <stdlib.h>
#include <string.h>

#include "greedy_core.h"
#include "refine_core.h"
#include "refine_internal.h"

static int gr_code(int greedy_rc)
{
  return greedy_rc == GREEDY_ENOMEM ? REFINE_ENOMEM : REFINE_EINVAL;
}

int refine_greedyrefine(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                        const int *cur_part, const refine_options *opt, int *part_out,
                        refine_stats *st)
{
  refine_options defaults;
  refine_stats local;
  int *cand = NULL, *fix = NULL;
  size_t *order = NULL, cap = n ? n : 1;
  uint64_t *ws = NULL;
  void *owned[4] = {NULL, NULL, NULL, NULL};
  double before, greedy_max, best_max, *known;
  int grc;
  int rc = refine_begin_call(n, wdim, w, nparts, cur_part, part_out, &opt, &defaults, &st, &local);
  if (rc) return rc;
  /* Every pass below reads the same weights: they are checked and summed
   * once (greedy_weight_sums), not by each pass. */
  known = malloc(2 * (size_t)wdim * sizeof *known);
  if (!known) return REFINE_ENOMEM;
  grc = greedy_weight_sums(n, wdim, w, known);
  if (!grc) grc = greedy_imbalance_known(n, wdim, w, nparts, target_frac, cur_part, known, &before);
  if (grc) {
    free(known);
    return gr_code(grc);
  }
  if (before <= opt->gr_threshold) {
    /* A mild imbalance: the paper's refinement for slow drift. */
    rc = refine_run(n, wdim, w, nparts, target_frac, cur_part, opt, part_out, st);
    if (rc >= 0) {
      st->imbalance_before = before;
      grc = greedy_imbalance_known(n, wdim, w, nparts, target_frac, part_out, known,
                                   &st->imbalance_after);
      if (grc) rc = gr_code(grc);
    }
    free(known);
    return rc;
  }
  /* A drastic imbalance: GREEDY's quality, keeping what can be kept.  GREEDY
   * first, to learn the balance the keeping passes must match. */
  rc = REFINE_ENOMEM;
  /* The slots after REFINE's own: its pass below runs while these live. */
  cand = refine_work_buffer(opt, REFINE_SCRATCH_GR, cap * sizeof *cand, &owned[0]);
  /* Every GREEDY pass below takes the objects in the same order: sort once.
   * Objects in that order already (the layer's sorted path merges them so)
   * need no order array: 8 bytes per object less, read in sequence. */
  const size_t *ord = GREEDY_ORDER_IDENTITY;
  if (!greedy_in_order(n, wdim, w)) {
    order = refine_work_buffer(opt, REFINE_SCRATCH_GR + 1, cap * sizeof *order, &owned[1]);
    ws = refine_work_buffer(opt, REFINE_SCRATCH_GR + 2, cap * sizeof *ws, &owned[2]);
    if (!order || !ws) goto end;
    ord = order;
  }
  if (!cand) goto end;
  grc = ord == order ? greedy_order_ws(n, wdim, w, order, ws) : GREEDY_OK;
  if (!grc) grc = greedy_assign_ordered(n, wdim, w, nparts, target_frac, ord, known, cand);
  if (!grc) grc = greedy_imbalance_known(n, wdim, w, nparts, target_frac, cand, known, &greedy_max);
  if (grc) {
    rc = gr_code(grc);
    goto end;
  }
  double bound = greedy_max * opt->gr_tolerance;
  if (!(bound >= 1.0)) bound = 1.0; /* only when every weight is zero: nothing to balance */
  /* Candidates by increasing number of moves they usually make; the first
   * within the bound wins, else GREEDY itself.
   *  1. Keep lightest first, place the rest like GREEDY, then a REFINE pass
   *     at the bound: few moves (the heavy objects), and REFINE repairs the
   *     overshoot that heavy objects without small fillers leave.
   *  2. Keep heaviest first (Charm++'s GreedyRefine): GREEDY-like balance,
   *     more moves (many small objects).
   *  3. GREEDY.
   * GREEDY's answer stays in cand; each candidate is built in part_out, so
   * that the one that wins is already in place, and the REFINE pass's
   * output buffer is asked for only when that pass runs. */
  best_max = greedy_max;
  st->pass = REFINE_PASS_GREEDY;
  for (int t = 0; t < 2 && st->pass == REFINE_PASS_GREEDY; t++) {
    double m;
    grc = greedy_assign_keep_ordered(n, wdim, w, nparts, target_frac, cur_part, bound,
                                     t == 0 ? GREEDY_KEEP_LIGHT_FIRST : GREEDY_KEEP_HEAVY_FIRST,
                                     ord, known, part_out, NULL);
    if (!grc) grc = greedy_imbalance_known(n, wdim, w, nparts, target_frac, part_out, known, &m);
    if (grc) {
      rc = gr_code(grc);
      goto end;
    }
    if (t == 0 && m > bound * (1.0 + REFINE_EPS)) {
      refine_options ro = *opt;
      refine_stats rs;
      rc = REFINE_ENOMEM;
      fix = refine_work_buffer(opt, REFINE_SCRATCH_GR + 3, cap * sizeof *fix, &owned[3]);
      if (!fix) goto end;
      ro.tolerance = bound;
      rc = refine_run(n, wdim, w, nparts, target_frac, part_out, &ro, fix, &rs);
      if (rc < 0) goto end;
      grc = greedy_imbalance_known(n, wdim, w, nparts, target_frac, fix, known, &m);
      if (grc) {
        rc = gr_code(grc);
        goto end;
      }
      if (m <= bound * (1.0 + REFINE_EPS)) memcpy(part_out, fix, n * sizeof(int));
    }
    if (m <= bound * (1.0 + REFINE_EPS)) {
      best_max = m;
      st->pass = t == 0 ? REFINE_PASS_KEEP_LIGHT : REFINE_PASS_KEEP_HEAVY;
    }
  }
  if (st->pass == REFINE_PASS_GREEDY) memcpy(part_out, cand, n * sizeof(int));
  if (best_max > before) {
    memcpy(part_out, cur_part, n * sizeof(int));
    best_max = before;
    st->pass = REFINE_PASS_NONE;
  }
  st->imbalance_before = before;
  st->imbalance_after = best_max;
  st->infeasible = 0;
  st->worst_part = -1;
  refine_finish_stats(n, cur_part, part_out, opt, st);
  rc = REFINE_OK;
end:
  for (int k = 0; k < 4; k++) free(owned[k]);
  free(known);
  return rc;
}
