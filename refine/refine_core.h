/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef REFINE_CORE_H
#define REFINE_CORE_H

/*
 * REFINE and GREEDYREFINE: rebalancing that starts from the current
 * assignment and moves few objects (Bhandarkar, Brunner, Kale's refinement
 * strategy, and their proposal to combine a thorough strategy for drastic
 * changes with refinement for slow drift).
 *
 * Pure C on arrays: no MPI, no Zoltan, no I/O.  No function here is
 * collective.  Objects are identified by their index 0..n-1 (the caller
 * passes them in global-ID order); every tie is broken by index, so results
 * depend only on the global input.
 *
 * Arguments shared by the entry points:
 *   n, wdim, w, nparts, target_frac  as in greedy_core.h (weights object-major,
 *                part sizes part-major; columns normalised here, an all-zero
 *                column means equal sizes, NULL means equal sizes)
 *   cur_part     n current parts, each in [0, nparts)
 *   opt          options, or NULL for refine_default_options
 *   part_out     n new parts (may not alias cur_part)
 *   st           statistics, or NULL
 *
 * Several weights per object: REFINE balances one scalar per object, the sum
 * over dimensions of the object's share of that dimension's total (and, per
 * part, the mean of its target shares).  That keeps the single-weight
 * algorithm and its guarantees for the combined load; a single dimension may
 * stay above the tolerance, which the statistics (computed per dimension,
 * see greedy_imbalance) show.  GREEDYREFINE's thorough pass handles every
 * dimension as GREEDY does.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define REFINE_OK     0  /* every part within tolerance (or nothing to do) */
#define REFINE_WARN   1  /* best effort: some part is still above tolerance */
#define REFINE_EINVAL -1 /* an argument is invalid */
#define REFINE_ENOMEM -2 /* memory allocation failed */

/* Which pass produced the answer (refine_stats.pass). */
typedef enum refine_pass {
  REFINE_PASS_NONE = 0,       /* the input was returned unchanged */
  REFINE_PASS_REFINE = 1,     /* the refinement pass */
  REFINE_PASS_KEEP_LIGHT = 2, /* GREEDYREFINE, GREEDY_KEEP_LIGHT_FIRST */
  REFINE_PASS_KEEP_HEAVY = 3, /* GREEDYREFINE, GREEDY_KEEP_HEAVY_FIRST */
  REFINE_PASS_GREEDY = 4      /* plain GREEDY (GREEDYREFINE's last resort) */
} refine_pass;

/* An object graph in compressed rows, edges listed in both directions. */
typedef struct refine_graph {
  const size_t *adj_start; /* n + 1 offsets into adj, adj_start[0] == 0 */
  const size_t *adj;       /* neighbour indices in [0, n) */
  const double *ewgts;     /* one weight per adj entry (>= 0), NULL = all 1 */
} refine_graph;

/* Options of refine_run and refine_greedyrefine. */
typedef struct refine_options {
  /* REFINE: a part may carry up to tolerance x its target load (>= 1). */
  double tolerance;
  /* 1: when an object moves, prefer a receiver that holds its neighbours
   * (needs graph); 0: ignore communication. */
  int comm_aware;
  /* The object graph, or NULL.  When given, the cut before and after is
   * reported even without comm_aware. */
  const refine_graph *graph;
  /* GREEDYREFINE: the result may exceed GREEDY's maximum relative load by
   * this factor (>= 1); larger values keep more objects in place. */
  double gr_tolerance;
  /* GREEDYREFINE: when the measured imbalance of the current assignment is
   * at most this value, only a REFINE pass runs; above it, the thorough
   * pass.  1.0 = thorough whenever the input is not perfectly balanced. */
  double gr_threshold;
  /* Optional kept work buffers: scratch(scratch_arg, slot, bytes) returns a
   * buffer of at least bytes bytes for slot 0..REFINE_SCRATCH_SLOTS - 1
   * that stays valid until the call returns (contents undefined), or NULL,
   * and the core then allocates its own.  A caller that refines at every
   * balance keeps them, so the sort writes pages already mapped.  NULL:
   * none. */
  void *(*scratch)(void *scratch_arg, int slot, size_t bytes);
  void *scratch_arg;
} refine_options;

/* Buffers refine_options.scratch is asked for: REFINE's pass takes the
 * first REFINE_SCRATCH_GR, GREEDYREFINE's the next four (its REFINE pass
 * runs while they are in use). */
#define REFINE_SCRATCH_GR    4
#define REFINE_SCRATCH_SLOTS 8

/* Statistics of one call. */
typedef struct refine_stats {
  size_t moved;            /* objects whose part changed */
  double imbalance_before; /* largest relative load of the input */
  double imbalance_after;  /* largest relative load of the output */
  int infeasible;          /* 1 when some part is still above tolerance */
  int worst_part;          /* part with the largest relative load after
                              (REFINE pass), -1 when not computed */
  int pass;                /* a refine_pass value */
  int have_cut;            /* 1 when a graph was given and the cut computed */
  double cut_before;       /* weight of cut edges before (each edge once) */
  double cut_after;        /* weight of cut edges after */
} refine_stats;

/*
 * refine_default_options - tolerance 1.05 (the middle of the 1.02-1.05
 * the paper names), comm_aware 0, no graph, gr_tolerance 1.01,
 * gr_threshold 1.0.  Not collective.
 */
void refine_default_options(refine_options *opt);

/*
 * refine_run - REFINE: move objects off the parts above
 * tolerance x target until every part is within tolerance.
 * Not collective.  Inputs/outputs: see the top of this file.  Only objects
 * of overloaded parts move and only to parts that stay within their limit;
 * when that cannot finish the job, a best-effort phase still lowers the
 * largest relative load.  The output is never worse (largest relative load)
 * than the input; st->imbalance_* are for the scalar load described above.
 * Cost O(n + m log n + moves log nparts), m = objects on overloaded parts.
 * Returns REFINE_OK, REFINE_WARN (some part still above its limit: the
 * tolerance is infeasible or needs moves REFINE does not make; part_out is
 * the best assignment found), REFINE_EINVAL or REFINE_ENOMEM.
 */
int refine_run(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
               const int *cur_part, const refine_options *opt, int *part_out, refine_stats *st);

/*
 * refine_greedyrefine - GREEDYREFINE: the automatic choice between a
 * refinement pass (measured imbalance <= opt->gr_threshold) and a thorough
 * pass that reaches GREEDY's balance (within opt->gr_tolerance) while
 * keeping as many objects in place as it can.
 * Not collective.  Inputs/outputs: see the top of this file;
 * st->imbalance_* are per dimension (greedy_imbalance).  The thorough pass
 * tries GREEDY_KEEP_LIGHT_FIRST, then GREEDY_KEEP_HEAVY_FIRST, then plain
 * GREEDY, and returns the first within the bound; never worse than the
 * input.  Cost O(n log nparts) per tried pass.
 * Returns REFINE_OK, REFINE_WARN (refinement pass left a part above the
 * tolerance), REFINE_EINVAL or REFINE_ENOMEM.
 */
int refine_greedyrefine(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                        const int *cur_part, const refine_options *opt, int *part_out,
                        refine_stats *st);

/*
 * refine_cut - total weight of the edges whose ends are in different parts,
 * each edge counted once (the sum over adjacency entries halved).
 * Not collective.  Returns REFINE_OK or REFINE_EINVAL.
 */
int refine_cut(size_t n, const refine_graph *g, const int *part, double *cut);

#ifdef __cplusplus
}
#endif

#endif /* REFINE_CORE_H */
