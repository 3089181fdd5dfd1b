/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SCOTCH_CORE_H
#define SCOTCH_CORE_H

/*
 * SCOTCH: graph partitioning and migration-aware repartitioning with the
 * Scotch library (Pellegrini), the graph-partitioner strategy that the
 * Charm++ measurement-based balancing paper found best on its synthetic
 * benchmark because it sees the communication graph and not only the loads.
 *
 * Pure C on arrays: no MPI, no Zoltan, no I/O (Scotch itself may print its
 * own diagnostics on stderr).  No function here is collective.  Objects are
 * identified by their index 0..n-1; the caller passes them in global-ID
 * order, and Scotch runs with a private, seeded and deterministic context,
 * so that results depend only on the global input and the seed.
 *
 * Graph input: compressed rows (adj_start[n + 1], adj[]), optional edge
 * weights (one per adj entry, finite and >= 0; NULL = all 1).  The graph may
 * be anything an application hands over: self-loops are dropped, duplicate
 * entries of one direction are summed, an edge listed on one side only is
 * mirrored, and an edge listed on both sides with different weights gets
 * the mean of the two sides.  Edges of weight 0 are dropped.  What was
 * repaired is counted in scotchlb_stats, so that the caller can warn.
 *
 * Loads: Scotch balances one integer load per vertex.  With several
 * weights per object (wdim > 1), the load of an object is the sum over
 * dimensions of its share of that dimension's total, and the target of a
 * part the mean of its shares, as REFINE does; each dimension may then
 * deviate more than the combined load.  Loads are scaled to integers whose
 * largest is 2^20 (less if their sum would not fit 2^30), so a load below
 * 2^-21 of the largest counts as 0; part sizes likewise (a part of size 0
 * gets no object); edge weights are scaled so that their largest is 2^16
 * and their sum, and apart the sum of the migration costs, at most 2^29
 * (positive ones stay >= 1).
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define SCOTCHLB_OK      0  /* done, balance within tolerance */
#define SCOTCHLB_WARN    1  /* done, but the largest relative load is above the tolerance */
#define SCOTCHLB_EINVAL  -1 /* an argument is invalid (message says which) */
#define SCOTCHLB_ENOMEM  -2 /* memory allocation failed */
#define SCOTCHLB_ESCOTCH -3 /* Scotch returned an error (message says where) */
#define SCOTCHLB_ESTRAT  -4 /* Scotch rejected the strategy string */
#define SCOTCHLB_ETOOBIG -5 /* the graph does not fit Scotch's integers */

/* What to compute. */
typedef enum scotchlb_approach {
  SCOTCHLB_PARTITION = 0,   /* map from scratch, ignoring the current parts */
  SCOTCHLB_REPARTITION = 1, /* remap from the current parts, migration cost
                               weighed against the edge cut */
  SCOTCHLB_REFINE = 2       /* as REPARTITION with the migration cost times
                               SCOTCHLB_REFINE_FACTOR, and the input kept
                               unchanged when it is within tolerance */
} scotchlb_approach;

/* How much dearer a move is under SCOTCHLB_REFINE than under REPARTITION. */
#define SCOTCHLB_REFINE_FACTOR 100.0

/* Scotch's predefined strategy flags (SCOTCH_STRAT* values). */
typedef enum scotchlb_strategy {
  SCOTCHLB_STRAT_DEFAULT = 0,
  SCOTCHLB_STRAT_QUALITY = 1,
  SCOTCHLB_STRAT_SPEED = 2,
  SCOTCHLB_STRAT_BALANCE = 3
} scotchlb_strategy;

/* What PARTITION does after Scotch's answer when the cut has no price
 * (comm_cost 0, the gathered path); scotch/README.md, "Cost of a call",
 * gives the price of each. */
typedef enum scotchlb_effort {
  /* The merge of cut-off pieces (scotchlb_merge) within a work bound of 16
   * sweeps of the graph (objects and edge ends visited, at least 2^24). */
  SCOTCHLB_EFFORT_DEFAULT = 0,
  /* Scotch's answer (and the polish) only. */
  SCOTCHLB_EFFORT_FAST = 1,
  /* The merge without a work bound. */
  SCOTCHLB_EFFORT_FULL = 2
} scotchlb_effort;

/* Steps of each half of the migration-cost search of SCOTCHLB_REPART_CUT_TOL:
 * widening by factors of 4, then bisecting geometrically. */
#define SCOTCHLB_SEARCH_STEPS 6

/* Scotch runs of a gathered call at most, where the help strings, the docs
 * and the tests read them.  SCOTCHLB_REPART_CUT_TOL: the fresh partition,
 * the first remap and both halves of the search.  SCOTCHLB_COMM_COST: three
 * strategies (the one asked for, QUALITY, BALANCE) at SCOTCHLB_COMM_RATIOS
 * balance ratios each (IMBALANCE_TOL - 1 and three tighter ones, by factors
 * of 4).  Literals, so that the help strings can quote them; the checks
 * below keep them equal to their derivations. */
#define SCOTCHLB_REPART_MAX_RUNS 14
#define SCOTCHLB_COMM_RATIOS     4
#define SCOTCHLB_COMM_MAX_RUNS   12
/* C99 compile-time checks: an array of size -1 when a count is wrong. */
typedef char
    scotchlb_repart_runs_check[SCOTCHLB_REPART_MAX_RUNS == 2 + 2 * SCOTCHLB_SEARCH_STEPS ? 1 : -1];
typedef char scotchlb_comm_runs_check[SCOTCHLB_COMM_MAX_RUNS == 3 * SCOTCHLB_COMM_RATIOS ? 1 : -1];

/* A count above as a string, for help texts. */
#define SCOTCHLB_STR_(x) #x
#define SCOTCHLB_STR(x)  SCOTCHLB_STR_(x)

/* Options of scotchlb_partition. */
typedef struct scotchlb_options {
  scotchlb_approach approach;
  /* Cost of moving one object, in units of the mean edge weight (moving
   * an object at cost 1 is worth cutting one average edge); REPARTITION
   * and REFINE only.  >= 0. */
  double migration_cost;
  /* A part may carry up to tolerance x its target load (>= 1); Scotch's
   * balance ratio is tolerance - 1. */
  double tolerance;
  scotchlb_strategy strategy;
  /* A raw Scotch mapping strategy string, or NULL for the strategy built
   * from the flags above. */
  const char *strategy_string;
  /* Seed of Scotch's private random generator. */
  long seed;
  /* 1: when Scotch leaves a part above the tolerance (or above the ratio
   * the heaviest object sets alone in the largest part, when that is
   * higher), a REFINE pass (refine_core, communication-aware) moves objects
   * off it. */
  int polish;
  /* n relative costs of moving each object (for example its size in
   * bytes; finite, >= 0), or NULL for the same cost everywhere.  Object i
   * then costs migration_cost x move_cost[i] / mean(move_cost) to move, so
   * that the mean cost is still migration_cost. */
  const double *move_cost;
  /* Cost of one unit of cut edge weight in units of object load (>= 0), or
   * 0.  When positive, a part's time is (its load + comm_cost x the weight
   * of its cut edges) / its target, and Scotch runs with the strategy asked
   * for, QUALITY and BALANCE, each at balance ratios tolerance - 1 and three
   * tighter ones (each a quarter of the last): up to 12 runs, each
   * followed by the time descent of scotch_descent.h; the answer with the
   * smallest largest time is kept (the first on a tie), and its cut-off
   * pieces merged.  Not with a raw strategy string (one run, then the
   * descent). */
  double comm_cost;
  /* REPARTITION only: 0, or a bound >= 1 on the cut relative to a fresh
   * partition's.  When set, the answer is the one that moves least (the
   * fraction of the total move_cost moved plus the fraction of the load
   * moved: a migration sends data and hands work over) among the current
   * parts with the overloaded parts shed, a fresh partition renamed after the current parts, and Scotch
   * remaps at searched migration costs (from migration_cost up or down by
   * factors of 4, then 6 halvings), each with objects moved back while the
   * bound allows, all with a cut at most repart_cut_tol x the fresh
   * partition's: up to 14 Scotch runs.  With comm_cost > 0 as well, only
   * the time descent follows (not the 12 runs). */
  double repart_cut_tol;
  /* PARTITION without comm_cost: what follows Scotch's answer (0, the
   * default, is SCOTCHLB_EFFORT_DEFAULT). */
  scotchlb_effort effort;
  /* The passes that run after Scotch's answers (SCOTCHLB_PASS_* of
   * scotch_descent.h and below; SCOTCHLB_PASSES_ALL by default).  A pass
   * switched off is skipped where it would run, so that an ablation
   * measures what each one earns (SCOTCHLB_SKIP, scotch/README.md). */
  unsigned passes;
} scotchlb_options;

/* The passes of the core, after the descent's merge (scotch_descent.h:
 * SCOTCHLB_PASS_MERGE, 0x01). */
#define SCOTCHLB_PASS_POLISH     0x02u /* REFINE's pass off parts Scotch left over */
#define SCOTCHLB_PASS_STRATEGIES 0x04u /* COMM_COST: QUALITY, BALANCE, tighter ratios */
#define SCOTCHLB_PASS_DESCENT    0x08u /* COMM_COST: the time descent after each run */
#define SCOTCHLB_PASS_SHED       0x10u /* objects shed off parts over the bound */
#define SCOTCHLB_PASS_FRESH      0x20u /* REPART_CUT_TOL: a fresh partition renamed */
#define SCOTCHLB_PASS_BACK       0x40u /* REPART_CUT_TOL: objects moved back */
#define SCOTCHLB_PASS_ORDERS     0x80u /* the move back's heavy and light orders */
#define SCOTCHLB_PASSES_ALL      0xFFu

/*
 * scotchlb_parse_skip - the passes left on by a SCOTCHLB_SKIP value: NONE,
 * or a comma-separated list of pass names (MERGE, POLISH, STRATEGIES,
 * DESCENT, SHED, FRESH, BACK, ORDERS), upper case.  Not collective.
 * Output: *passes (SCOTCHLB_PASSES_ALL without the named ones).
 * Returns SCOTCHLB_OK, or SCOTCHLB_EINVAL with msg naming the unknown word.
 */
int scotchlb_parse_skip(const char *value, unsigned *passes, char *msg, size_t msg_cap);

/* Statistics of one call. */
typedef struct scotchlb_stats {
  size_t self_loops;          /* self-loop entries dropped */
  size_t duplicates;          /* extra entries of a direction, summed */
  size_t one_sided;           /* edges listed on one side only, mirrored */
  size_t asymmetric;          /* edges whose two sides disagree, averaged */
  size_t edges;               /* undirected edges given to Scotch */
  double cut_before;          /* cut weight of the input (each edge once; 0
                              without current parts) */
  double cut_after;           /* cut weight of the output */
  double imbalance_before;    /* largest load / target of the input (0 without) */
  double imbalance_after;     /* largest load / target of the output */
  size_t moved;               /* objects whose part changed (0 without input) */
  int kept_input;             /* 1 when REFINE returned the input unchanged */
  double balance_ratio;       /* Scotch's balance ratio of the answer kept */
  scotchlb_strategy strategy; /* the strategy flags of the answer kept */
  double part_time;           /* with comm_cost > 0: the largest part time of
                              the answer (see comm_cost), else 0 */
  int polished;               /* 1 when the REFINE polish pass ran */
  double migration_cost_used; /* the migration cost of the answer kept, in the
                              units of migration_cost (0: not a remap; +inf
                              under repart_cut_tol: the current parts shed) */
  double cut_limit;           /* with repart_cut_tol: the cut bound, else 0 */
  int tries;                  /* Scotch runs behind the answer (without comm_cost) */
  long descended;             /* with comm_cost > 0: objects moved by the time
                              descent of the answer kept (scotch_descent.h) */
  double imbalance_bound;     /* the tolerance, or the largest load / target the
                              heaviest object sets alone in the largest part
                              when that is higher (no answer is below it) */
} scotchlb_stats;

/*
 * scotchlb_default_options - REPARTITION, migration cost 1, tolerance 1.1
 * (Zoltan's IMBALANCE_TOL default), DEFAULT strategy, no strategy string,
 * seed 1, polish on, equal move costs, default effort.  Not collective.
 */
void scotchlb_default_options(scotchlb_options *o);

/*
 * scotchlb_partition - parts for n objects from Scotch.
 * Not collective.
 * Input:  n objects; wdim >= 1 weights per object (w, object-major, finite,
 *         >= 0); the graph (adj_start, adj, ewgts; adj_start may be NULL for
 *         no edges); nparts >= 1 parts with target fractions target_frac
 *         (nparts * wdim, part-major; each column normalised here, NULL =
 *         equal); cur_part (n parts, -1 for none) or NULL; o, or NULL for
 *         the defaults.
 * Output: part_out (n parts in [0, nparts)); st, or NULL; on error, msg
 *         (msg_cap bytes, may be NULL with 0) says what was wrong, naming
 *         the value.
 * Returns SCOTCHLB_OK, SCOTCHLB_WARN (some part above the tolerance after
 *         everything was tried), or a negative SCOTCHLB_E* code.
 */
int scotchlb_partition(size_t n, int wdim, const double *w, const size_t *adj_start,
                       const size_t *adj, const double *ewgts, int nparts,
                       const double *target_frac, const int *cur_part, const scotchlb_options *o,
                       int *part_out, scotchlb_stats *st, char *msg, size_t msg_cap);

/*
 * scotchlb_symmetrise - the cleaned, symmetric graph described at the top
 * of this file, in compressed rows with weights (always allocated).
 * Not collective.  Exposed for the tests and for the benchmark.
 * Output: *out_start (n + 1), *out_adj and *out_w (out_start[n] entries,
 *         each row sorted by neighbour), freed by the caller with free();
 *         the repair counters of st (may be NULL).
 * Returns SCOTCHLB_OK, SCOTCHLB_EINVAL (a neighbour index >= n, or a
 * negative or non-finite weight) or SCOTCHLB_ENOMEM.
 */
int scotchlb_symmetrise(size_t n, const size_t *adj_start, const size_t *adj, const double *ewgts,
                        size_t **out_start, size_t **out_adj, double **out_w, scotchlb_stats *st);

/* One listing of an edge: the row (object) it was listed in, its other
 * end, and the weight it was listed with. */
typedef struct scotchlb_listing {
  size_t row, col;
  double w;
} scotchlb_listing;

/*
 * scotchlb_symmetrise_rows - scotchlb_symmetrise for the rows of the
 * objects first..first+n-1 of a larger graph, from listings of which each
 * has its row or its column in that range (the distributed path: a rank's
 * own listings plus those of its edges' far ends).  Every listing of an
 * edge must be present, so that the two holders of an edge compute the same
 * weight: repeated entries are summed in weight order for that reason.
 * Not collective.  Output as scotchlb_symmetrise (columns are global
 * numbers).  Returns SCOTCHLB_OK, SCOTCHLB_EINVAL (a negative or
 * non-finite weight) or SCOTCHLB_ENOMEM.
 */
int scotchlb_symmetrise_rows(size_t first, size_t n, const scotchlb_listing *l, size_t m,
                             size_t **out_start, size_t **out_adj, double **out_w,
                             scotchlb_stats *st);

/*
 * scotchlb_strategy_ok - 1 when Scotch accepts s as a mapping strategy
 * string, else 0 (Scotch prints why on stderr).  Not collective.
 */
int scotchlb_strategy_ok(const char *s);

#ifdef __cplusplus
}
#endif

#endif /* SCOTCH_CORE_H */
