/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SCOTCH_ROUND_H
#define SCOTCH_ROUND_H
/*
 * The one rounding tolerance of SCOTCHLB's comparisons.  Part loads are sums
 * of doubles, most of them kept up to date move by move, so two figures that
 * are equal in exact arithmetic can differ in their last bits; rounding must
 * never decide whether a move fits under a bound or improves an answer.  A
 * figure within SCOTCHLB_ROUND of the scale above a bound is within it, and
 * an improvement must exceed SCOTCHLB_ROUND of the scale.  The scale is the
 * total load for a part's load (the error of a sum of loads grows with the
 * total, not with one part's share), and the figure itself for a ratio, a
 * time or a cut.  Pure C, no state.
 */
#include <assert.h>
#include <math.h>

#define SCOTCHLB_ROUND 1e-12

/* Whether x is at most bound, up to rounding at the given scale. */
static inline int scotchlb_within(double x, double bound, double scale)
{
  return x <= bound + SCOTCHLB_ROUND * fabs(scale);
}

/* Whether x is below ref by more than rounding at the given scale. */
static inline int scotchlb_below(double x, double ref, double scale)
{
  return x < ref - SCOTCHLB_ROUND * fabs(scale);
}

/* A part's load after a move left it: never negative beyond rounding.  On
 * in every build (the tree's builds keep assert), so every test checks it. */
static inline void scotchlb_assert_load(double pload, double total)
{
  (void)pload;
  (void)total;
  assert(pload >= -SCOTCHLB_ROUND * fabs(total));
}

#endif
