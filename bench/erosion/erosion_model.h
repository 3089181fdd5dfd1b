/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EROSION_MODEL_H
#define EROSION_MODEL_H

/*
 * The physics of the fluid-with-erosion benchmark of the ULBA paper (Boulmier
 * et al., section IV.B), on one column of cells at a time.  Pure C: arrays in,
 * arrays out, no MPI, no Zoltan, no I/O, no global state, so that the
 * distributed application (erosion.c) and the unit tests share it.
 *
 * The domain has (P s) x s base cells; column x holds the cells (x, 0..s-1).
 * Rock k (0 <= k < P) is the disc of radius s/4 centred in stripe k, at
 * (k s + s/2, s/2) (EROSION_GEOM_REFERENCE: radius s/3, the last disc's
 * centre moved s/6 towards x = P s).  A base cell is one of:
 *   EROSION_FLUID    one fluid value, 1 work unit per step,
 *   EROSION_ROCK     no fluid, 0 work units (it only waits to be eroded),
 *   EROSION_REFINED  an eroded rock cell turned into four smaller fluid
 *                    cells (the paper's mesh refinement), 4 work units
 *                    (refined_units: 8, ... for heavier refined cells).
 * Every step each rock cell is eroded, independently for each of its four
 * neighbours that holds fluid, with the erosion probability of its rock
 * (EROSION_FROM_BELOW: only by the cell below, a one-sided flow).
 * The random draw is a hash of (seed, cell, step, direction), so the result
 * does not depend on which rank computes the cell nor in which order.
 *
 * A column can also be cut into segments of consecutive cells (the objects of
 * the 2-D partitions); the segment functions give exactly the results of the
 * column functions on the same cells, so the physics does not depend on how
 * the mesh is cut.
 *
 * Errors: functions that can fail return EROSION_OK (0) or EROSION_ERR_ARG.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EROSION_OK      0
#define EROSION_ERR_ARG (-1)

/* Cell types (one byte per base cell). */
#define EROSION_FLUID   0
#define EROSION_ROCK    1
#define EROSION_REFINED 2

/* Values stored per base cell: a fluid cell uses slot 0, a refined cell the
 * four slots of its sub-cells (south-west, south-east, north-west,
 * north-east). */
#define EROSION_SLOTS 4

/* Work units of each cell type per step: a fluid cell 1; a refined cell
 * erosion_config.refined_units, 4 by default (one per sub-cell). */
#define EROSION_UNITS_FLUID   1
#define EROSION_UNITS_REFINED 4

/* Erosion rules (erosion_config.erosion). */
#define EROSION_ISOTROPIC  0 /* by every fluid-holding neighbour (the default) */
#define EROSION_FROM_BELOW 1 /* only by the fluid-holding cell below (y - 1) */
#define EROSION_DOWNSTREAM                                                                         \
  2 /* only from the previous column (x - 1), as the
                                ULBA reference code erodes along its partition
                                axis: the cell beside with the rock's
                                probability p, the two diagonal ones
                                ((x - 1, y -+ 1)) with p / sqrt(2), one draw
                                each; needs whole columns (a segment has no
                                corner cells) */

/* Rock layouts (erosion_config.geometry). */
#define EROSION_GEOM_PAPER                                                                         \
  0 /* discs of radius s/4 centred in their stripe,
                                    N strong rocks drawn from the seed */
#define EROSION_GEOM_REFERENCE                                                                     \
  1 /* the ULBA reference code's: discs of radius
                                    s/3, the last one moved r/2 towards the
                                    domain's end, the strong rocks the last N */

/* Largest number of rocks (bounded so that the strong-rock flags fit small
 * arrays in the tests; 1 << 20 stripes is far beyond what runs). */
#define EROSION_MAX_ROCKS (1 << 20)

/* The problem. */
typedef struct erosion_config {
  int P;             /* number of rocks, i.e. initial stripes, >= 1 */
  int s;             /* stripe width and domain height in cells, >= 4 */
  int num_strong;    /* N, strongly erodible rocks, 0 <= N <= P */
  double p_strong;   /* erosion probability of a strong rock, [0, 1] */
  double p_weak;     /* erosion probability of the other rocks, [0, 1] */
  uint64_t seed;     /* chooses the strong rocks and every erosion draw */
  int sweeps;        /* relaxation sweeps per work unit per step, >= 1 */
  int refined_units; /* units of a refined cell: 4, 8, ..., 64 (each of its
                        four sub-cells does refined_units / 4 units of
                        sweeps); 4 is the model above */
  int erosion;       /* EROSION_ISOTROPIC, EROSION_FROM_BELOW or
                        EROSION_DOWNSTREAM */
  int geometry;      /* EROSION_GEOM_PAPER (0) or EROSION_GEOM_REFERENCE */
} erosion_config;

/*
 * erosion_config_check - EROSION_OK when every field is in the range above.
 */
int erosion_config_check(const erosion_config *cfg);

/*
 * erosion_width - number of columns, P s.  cfg must be checked.
 */
long erosion_width(const erosion_config *cfg);

/*
 * erosion_strong_rocks - flags[k] = 1 for the num_strong rocks chosen from
 * the seed (a partial Fisher-Yates shuffle of 0..P-1; with
 * EROSION_GEOM_REFERENCE the last num_strong rocks), 0 for the others.
 * Input: a checked cfg; flags has P entries.  Errors: EROSION_ERR_ARG.
 */
int erosion_strong_rocks(const erosion_config *cfg, unsigned char *flags);

/*
 * erosion_rock_of_cell - the rock whose disc contains the centre of cell
 * (x, y), or -1.  cfg must be checked.
 */
int erosion_rock_of_cell(const erosion_config *cfg, long x, long y);

/*
 * erosion_column_init - the initial state of column x: rock cells inside the
 * discs, fluid elsewhere with value 1 in slot 0 (other slots 0).
 * Output: type[s], u[EROSION_SLOTS s].
 */
void erosion_column_init(const erosion_config *cfg, long x, unsigned char *type, double *u);

/*
 * erosion_segment_init - the initial state of the segment of column x made
 * of the cells y0 .. y0+h-1 (0 <= y0, y0 + h <= s).
 * Output: type[h], u[EROSION_SLOTS h].
 */
void erosion_segment_init(const erosion_config *cfg, long x, int y0, int h, unsigned char *type,
                          double *u);

/*
 * erosion_column_units - work units of n consecutive cells (fluid 1,
 * refined cfg->refined_units, rock 0 per cell): a column with n = s, or a
 * segment.
 */
long erosion_column_units(const erosion_config *cfg, int n, const unsigned char *type);

/*
 * erosion_uniform - a uniform number in [0, 1) from the seed and three
 * keys, by splitmix64 mixing (ours).
 */
double erosion_uniform(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);

/*
 * erosion_column_step - one step of column x: the erosion of its rock cells
 * and the fluid update of its fluid cells, from the state at the start of
 * the step.
 * Input:  cfg (checked), strong flags (P entries), step number, column x;
 *         the types and values of columns x-1 (left) and x+1 (right), NULL
 *         at the domain boundary, and of column x (mid).
 * Output: new_type[s] and new_u[EROSION_SLOTS s] (must not alias inputs);
 *         *eroded (may be NULL) = number of rock cells eroded this step.
 * Returns the work units done (the units of the column at the start of the
 * step).
 */
long erosion_column_step(const erosion_config *cfg, const unsigned char *strong, long step, long x,
                         const unsigned char *left_t, const double *left_u,
                         const unsigned char *mid_t, const double *mid_u,
                         const unsigned char *right_t, const double *right_u,
                         unsigned char *new_type, double *new_u, long *eroded);

/*
 * erosion_segment_step - erosion_column_step on the segment of column x made
 * of the cells y0 .. y0+h-1.  left and right hold the same rows of columns
 * x-1 and x+1 (NULL at the domain boundary); below and above are the single
 * cells (x, y0-1) and (x, y0+h) (NULL at the bottom and top walls).  With
 * y0 = 0, h = s and no below/above cell this is erosion_column_step; cutting
 * a column into segments gives the same cells, values and units.
 * Output: new_type[h], new_u[EROSION_SLOTS h] (must not alias inputs).
 * Returns the work units done.
 */
long erosion_segment_step(const erosion_config *cfg, const unsigned char *strong, long step, long x,
                          int y0, int h, const unsigned char *left_t, const double *left_u,
                          const unsigned char *mid_t, const double *mid_u,
                          const unsigned char *right_t, const double *right_u,
                          const unsigned char *below_t, const double *below_u,
                          const unsigned char *above_t, const double *above_u,
                          unsigned char *new_type, double *new_u, long *eroded);

/*
 * erosion_segment_hash - erosion_column_hash of the cells y0 .. y0+h-1 of
 * column x; summed over the segments of a column it equals the column's.
 */
uint64_t erosion_segment_hash(int s, long x, int y0, int h, const unsigned char *type);

/*
 * erosion_column_hash - an order-independent fingerprint of column x's cell
 * types; the sum over all columns (mod 2^64) identifies a state whatever
 * the partition.
 */
uint64_t erosion_column_hash(int s, long x, const unsigned char *type);

#ifdef __cplusplus
}
#endif

#endif /* EROSION_MODEL_H */
