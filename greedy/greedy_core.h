/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef GREEDY_CORE_H
#define GREEDY_CORE_H

/*
 * GREEDY: longest-processing-time-first list scheduling onto parts of given
 * relative sizes (Bhandarkar, Brunner, Kale: the heaviest unassigned object
 * goes to the least loaded processor, kept in a min-heap).
 *
 * Pure C on arrays: no MPI, no Zoltan, no I/O.  No function here is
 * collective.  Objects are identified by their index 0..n-1; the caller
 * passes them in global-ID order, and every tie is broken by that index, so
 * the answer depends only on the global input, never on how it was
 * distributed over ranks.
 *
 * Common arguments:
 *   n            number of objects (0 is allowed and does nothing)
 *   wdim         weights per object, >= 1
 *   w            n * wdim weights, object-major, finite and >= 0
 *   nparts       number of parts, >= 1
 *   target_frac  nparts * wdim relative part sizes (part-major), finite and
 *                >= 0; each column is normalised by its sum here, and a
 *                column that is all zero means equal sizes.  NULL = equal.
 *
 * "Relative load" of a part is max over the weight dimensions d of
 * load_d / (target_d * total_d), so 1.0 is a perfect fit in every
 * dimension and the maximum over parts is max/avg for equal part sizes.
 * Dimensions whose total weight is zero are ignored.  A part whose target is
 * zero in a dimension has relative load +inf once it holds weight in it.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define GREEDY_OK     0  /* success */
#define GREEDY_EINVAL -1 /* an argument is invalid (NULL, range, NaN, ...) */
#define GREEDY_ENOMEM -2 /* memory allocation failed */

/* How greedy_assign_keep decides which objects stay where they are. */
typedef enum greedy_keep_mode {
  /* One pass, heaviest object first: an object stays when its current part
   * would stay within the limit, else it goes to the least loaded part.
   * This is Charm++'s GreedyRefine idea; it balances like GREEDY but tends to
   * move many small objects. */
  GREEDY_KEEP_HEAVY_FIRST = 0,
  /* Two phases: first every part keeps its objects lightest first while it
   * stays within the limit (for one part this keeps the largest possible
   * number of objects), then the objects that did not fit are placed
   * heaviest first like GREEDY.  Moves few objects, but those are heavy. */
  GREEDY_KEEP_LIGHT_FIRST = 1
} greedy_keep_mode;

/*
 * greedy_assign - GREEDY from scratch.
 * Not collective.  Inputs: see above.  Output: part_out[n], every entry in
 * [0, nparts) and never a part whose target is zero in every dimension.
 * Objects are taken by decreasing key (the weight for wdim == 1; for
 * wdim > 1 the largest of w_d / total_d, i.e. the object's biggest share of
 * any one resource), ties by index, and each goes to the part of smallest
 * relative load (ties by fewest objects, then lowest part index).
 * Cost O(n + n log nparts) (radix sort).
 * Returns GREEDY_OK, GREEDY_EINVAL or GREEDY_ENOMEM (part_out then undefined).
 * Related: greedy_assign_keep, greedy_imbalance.
 */
int greedy_assign(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                  int *part_out);

/*
 * greedy_assign_keep - GREEDY that leaves objects on their current part
 * while that part's relative load stays at or below keep_limit (the
 * GREEDYREFINE pass).
 * Not collective.  Inputs: as greedy_assign, plus cur_part[n] (each in
 * [0, nparts)), keep_limit (>= 0; typically GREEDY's own maximum relative
 * load times a small slack), and mode (see greedy_keep_mode).  Outputs:
 * part_out[n] (may not alias cur_part) and, if moved != NULL, the number of
 * objects whose part changed.  Objects on a part with zero target are
 * never kept there.
 * Returns GREEDY_OK, GREEDY_EINVAL or GREEDY_ENOMEM.
 */
int greedy_assign_keep(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                       const int *cur_part, double keep_limit, greedy_keep_mode mode, int *part_out,
                       size_t *moved);

/*
 * greedy_order - the order in which GREEDY takes the objects: by decreasing
 * key (see greedy_assign), ties by index.  Callers that run several GREEDY
 * passes over the same weights (GREEDYREFINE) compute it once and pass it
 * to the _ordered functions.
 * Not collective.  Inputs: n, wdim, w as above.  Output: order[n], a
 * permutation of 0..n-1.  Cost O(n) (radix sort).
 * Returns GREEDY_OK, GREEDY_EINVAL or GREEDY_ENOMEM.
 * Related: greedy_assign_ordered, greedy_assign_keep_ordered.
 */
int greedy_order(size_t n, int wdim, const double *w, size_t *order);

/*
 * greedy_order_ws - greedy_order with the caller's work buffer ws[n] for
 * the sort (NULL: allocated here), for callers that order the objects at
 * every call and keep their buffers.  Same order, same returns.
 */
int greedy_order_ws(size_t n, int wdim, const double *w, size_t *order, uint64_t *ws);

/*
 * greedy_weight_sums - what every entry point computes of the weights
 * before it starts: known[d] the largest weight of dimension d and
 * known[wdim + d] its total (the reproducible sum every entry point uses),
 * d < wdim, the weights checked on the way.  Callers that run several
 * passes over the same weights (GREEDYREFINE) compute them once and hand
 * them to the functions that take known, which then neither check nor sum
 * the weights again; the answers are the same bits.
 * Not collective.  Inputs: n, wdim, w as above.  Output: known[2 * wdim].
 * Returns GREEDY_OK, GREEDY_EINVAL (a NaN, infinite or negative weight,
 * known NULL) or GREEDY_ENOMEM.
 */
int greedy_weight_sums(size_t n, int wdim, const double *w, double *known);
/*
 * greedy_assign_ordered, greedy_assign_keep_ordered - greedy_assign and
 * greedy_assign_keep with the order of greedy_order for the same n, wdim
 * and w (NULL: computed here, as the plain functions do) and the figures
 * of greedy_weight_sums for those weights (NULL: computed here).  The
 * answers are those of the plain functions.  Not collective; same returns.
 */
int greedy_assign_ordered(size_t n, int wdim, const double *w, int nparts,
                          const double *target_frac, const size_t *order, const double *known,
                          int *part_out);
/*
 * GREEDY_ORDER_IDENTITY - an order for greedy_assign_ordered and
 * greedy_assign_keep_ordered that says, without an array, that greedy_order
 * would give 0..n-1: the objects are in GREEDY's order already
 * (greedy_in_order tells).  Passing it for objects in another order gives
 * the parts of that other order, not GREEDY's.
 */
extern const size_t greedy_order_identity[1];
#define GREEDY_ORDER_IDENTITY (greedy_order_identity)
/*
 * greedy_in_order - 1 when greedy_order(n, wdim, w) is 0..n-1 because the
 * objects are in GREEDY's order already (one weight each, heaviest first;
 * equal weights are in index order by construction), else 0 (several
 * weights per object are not looked at: 0).  Weights as greedy_assign's,
 * not checked here.  Not collective.  Cost O(n), stopping at the first
 * weight out of order.
 */
int greedy_in_order(size_t n, int wdim, const double *w);
int greedy_assign_keep_ordered(size_t n, int wdim, const double *w, int nparts,
                               const double *target_frac, const int *cur_part, double keep_limit,
                               greedy_keep_mode mode, const size_t *order, const double *known,
                               int *part_out, size_t *moved);

/*
 * greedy_assign_in_order - GREEDY's placement of objects that are already
 * in the order GREEDY takes them: object k is placed k-th.  With the
 * objects of greedy_assign permuted by greedy_order, the parts are those
 * greedy_assign gives (permuted alike); the layer calls it with every
 * object's weight sorted heaviest first across the ranks.
 * Not collective.  Inputs and output as greedy_assign.  Cost O(n log
 * nparts).  Returns GREEDY_OK, GREEDY_EINVAL or GREEDY_ENOMEM.
 */
int greedy_assign_in_order(size_t n, int wdim, const double *w, int nparts,
                           const double *target_frac, int *part_out);

/*
 * greedy_assign_runs - GREEDY's placement of objects given as m runs, each
 * heaviest first, that greedy_merge_desc would merge (tie, first, count as
 * there): the objects are placed in merged order as the merge reads them,
 * without a merged copy.  Run r is w[first[r]] .. w[first[r] + count[r] - 1]
 * and the runs lie one after the other from w[0] (first[0] = 0, first[r +
 * 1] = first[r] + count[r]); one weight per object.  part_out[i] receives
 * the part of the object of w[i]: the parts greedy_assign_in_order gives
 * the merged weights, each at its object's place in the runs.
 * Not collective.  Cost O(n (log m + log nparts)).  Returns GREEDY_OK,
 * GREEDY_EINVAL (the runs not laid out so, m < 1, or as greedy_assign) or
 * GREEDY_ENOMEM.
 */
int greedy_assign_runs(int m, const double *w, const uint64_t *tie, const size_t *first,
                       const size_t *count, int nparts, const double *target_frac, int *part_out);

/*
 * greedy_imbalance - the largest relative load over all parts of an
 * assignment (1.0 = every part exactly at its target; +inf when a part of
 * zero target holds weight; 0 when all weights are zero).
 * Not collective.  Inputs: as greedy_assign plus part[n] in [0, nparts).
 * Output: *imbalance.  Returns GREEDY_OK, GREEDY_EINVAL or GREEDY_ENOMEM.
 */
int greedy_imbalance(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                     const int *part, double *imbalance);
/*
 * greedy_imbalance_known - greedy_imbalance with the figures of
 * greedy_weight_sums for the same weights (NULL: as greedy_imbalance): the
 * weights are not checked again, the parts are.  The same value, bit for
 * bit.  Not collective; same returns.
 */
int greedy_imbalance_known(size_t n, int wdim, const double *w, int nparts,
                           const double *target_frac, const int *part, const double *known,
                           double *imbalance);

#ifdef __cplusplus
}
#endif

#endif /* GREEDY_CORE_H */
