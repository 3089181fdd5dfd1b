/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SCOTCH_DESCENT_H
#define SCOTCH_DESCENT_H

/*
 * Local improvements of a partition, on arrays (pure C, not collective,
 * deterministic: objects in index order, ties to the lowest index; hidden
 * from the library's users).
 *
 * The time descent is the last step of SCOTCHLB_COMM_COST: Scotch
 * minimises the edge cut under a balance ratio, which is not the modelled
 * iteration time (the slowest part's load plus its priced cut).  The
 * descent moves one object at a time to lower that slowest part: an object
 * out of it to a part it is connected to (to the fastest part when it has
 * no edges), or a neighbour of its objects into it (which saves cut at a
 * price in load).  Each move takes the largest time strictly down without
 * raising another part to it, so the descent ends; receivers keep their
 * loads within a bound.  Optionally, the pieces a part is split into (all
 * but its heaviest) then move whole to the part they have most edges to,
 * followed by the descent, and stay where the largest time is no worse
 * and the cut smaller.
 *
 * The move back spends the cut a REPARTITION may add on moving less.
 */

#include <stddef.h>

/* One instance of the problem as the passes see it: n objects with their
 * loads (>= 0), the symmetric graph in compressed rows (start, adj, ew: the
 * same edge with the same weight on both sides, no self-loops) and the
 * parts' target fractions (nparts, >= 0, summing to 1; a part of target 0
 * receives nothing).  The passes read it and write only the assignment. */
typedef struct scotchlb_instance {
  size_t n;
  const double *load;
  const size_t *start, *adj;
  const double *ew;
  int nparts;
  const double *target;
} scotchlb_instance;

/* The merge of cut-off pieces, for the `passes` argument of
 * scotchlb_time_descent (SCOTCHLB_SKIP=MERGE switches it off, for ablation
 * studies: scotch_core.h). */
#define SCOTCHLB_PASS_MERGE 0x01u

/*
 * scotchlb_time_descent - improves part (n entries in [0, nparts)) in place.
 * Not collective.
 * Input:  the instance; comm_cost, the price of one unit
 *         of edge weight in load units; load_cap, the largest load / (target
 *         x total) a receiving part may reach (raised to the input's worst
 *         ratio when that is higher); max_moves, a bound on the moves;
 *         passes: SCOTCHLB_PASS_MERGE to merge pieces after the descent
 *         (the single moves always run).
 * Output: part, improved.  A part's time is (load + comm_cost x the weight
 *         of its edges to other parts) / target.
 * Returns the number of moves made, or -1 when memory ran out (part is
 * then a valid assignment, possibly partly improved).
 */
long scotchlb_time_descent(const scotchlb_instance *in, double comm_cost, double load_cap,
                           long max_moves, unsigned passes, int *part);

/*
 * scotchlb_shed - moves objects off the parts above load_cap (load /
 * (target x total)), the part furthest above first, to parts it is
 * connected to that have room, each object the one that adds least cut.
 * For each such part it tries every neighbouring part as the only
 * receiver, then splits the excess between the two best receivers (the
 * first taking 1 to 16 objects), and keeps the trial that brings the part
 * within load_cap in the fewest moves, then with the least load moved
 * (else the one that sheds most).  Stops when every part is within
 * load_cap, when no such move exists, or after max_moves.  The few moves
 * a drifted partition needs when its cut is still good.  Not collective,
 * deterministic.
 * Input:  as scotchlb_time_descent.
 * Output: part.
 * Returns the number of moves, or -1 when memory ran out (part unchanged).
 */
long scotchlb_shed(const scotchlb_instance *in, double load_cap, long max_moves, int *part);

/*
 * scotchlb_merge - the merge of cut-off pieces of scotchlb_time_descent
 * with no price on the cut, for PARTITION: a part's time is its load over
 * its target, so the descent after each merge rebalances the loads within
 * load_cap (raised to the input's worst ratio when that is higher), and a
 * merge stays when the cut falls.  Scotch's answers under a tight balance
 * leave cut-off pieces behind (scotch/README.md, "The cut left behind,
 * from scratch").  The searches stop once they have visited max_work
 * objects and edge ends in all (LONG_MAX: no bound; the merge under way
 * finishes): a count, not a clock, so that the answer depends on the input
 * only.  Not collective, deterministic.
 * Input:  as scotchlb_time_descent, plus max_work.
 * Output: part.
 * Returns the number of moves, or -1 when memory ran out (part is then a
 * valid assignment, possibly partly improved).
 */
long scotchlb_merge(const scotchlb_instance *in, double load_cap, long max_moves, long max_work,
                    int *part);

/* The orders in which scotchlb_move_back visits objects. */
#define SCOTCHLB_BACK_INDEX  0
#define SCOTCHLB_BACK_HEAVY  1
#define SCOTCHLB_BACK_LIGHT  2
#define SCOTCHLB_BACK_ORDERS 3

/*
 * scotchlb_move_back - returns moved objects to their current parts while
 * the cut stays within cut_limit and each receiving part within load_cap
 * (raised to the input's worst load ratio when that is higher), so that a
 * repartition spends the cut it is allowed on moving less.  Moves that
 * cost no cut go first, then those that cost up to 1, 2, ... mean edge
 * weights each.  Within a level, objects are visited in the order `visit`
 * names: SCOTCHLB_BACK_INDEX (index order), SCOTCHLB_BACK_HEAVY (heaviest
 * first, which spends the cut on the most load) or SCOTCHLB_BACK_LIGHT
 * (lightest first, the most objects per unit of room); which one moves
 * least depends on the input, so callers may try each.  Not collective,
 * deterministic.
 * Input:  as scotchlb_time_descent, plus cur (n current parts, -1 for
 *         none: such an object stays), cut_limit (total weight of cut
 *         edges, each counted once) and visit.
 * Output: part, with objects moved back.
 * Returns the number of objects moved back, or -1 when memory ran out
 * (part is then unchanged).
 */
long scotchlb_move_back(const scotchlb_instance *in, const int *cur, double load_cap,
                        double cut_limit, int visit, int *part);

#endif /* SCOTCH_DESCENT_H */
