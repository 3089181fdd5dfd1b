/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef REFINE_ROOTLESS_H
#define REFINE_ROOTLESS_H

/*
 * REFINE without a root (REFINE_DISTRIBUTED=2): the arithmetic of one call,
 * pure C on plain arrays (no MPI, no Zoltan, no I/O), shared by the MPI
 * adapter (refine_rootless_zoltan.c) and the scale simulator
 * (bench/diffusion/diffusion_sim.c).  No function here is collective.
 *
 * The method, with one part per rank.  A rank whose load L is above
 * tolerance x its target T is a donor: it sheds the excess
 * e = L - T (1 + tol) / 2, down to the middle of its tolerance band.  Every
 * other rank is a receiver of capacity c = max(0, T (1 + tol) / 2 - L), so
 * that a receiver that gets its whole capacity is still within tolerance.
 * The capacities add up to at least the excesses (the loads add up to the
 * targets).  Laid end to end in rank order, the excesses cover [0, E) and the
 * capacities, scaled by E / C, cover [0, E) too; prefix sums (MPI_Exscan)
 * give every rank its interval.  A donor sends to the receivers whose
 * intervals overlap its own, the amount of the overlap.  Who overlaps whom
 * is found without a root: [0, E) is cut into P blocks of E / P, each rank
 * owns one, every interval is sent to the owners of the blocks it covers,
 * and each owner matches the pieces in its block (refine_rootless_match).
 * A donor then picks the objects for each receiver's quota
 * (refine_fill_quotas), heaviest first.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A donor's excess or a receiver's scaled capacity as an interval of the
 * common line [0, E), and its rank. */
typedef struct refine_interval {
  double lo, hi;
  double slack; /* a receiver's room above its capacity, within tolerance */
  int rank;
} refine_interval;

/* What one donor sends one receiver, and the share of the receiver's slack
 * that goes with it (in proportion to the amount). */
typedef struct refine_transfer {
  int donor, receiver;
  double amount, slack;
} refine_transfer;

/*
 * refine_rootless_role - a rank's excess (> 0 for a donor) and capacity
 * (> 0 for a receiver) from its load, its target (both >= 0) and the
 * tolerance (>= 1); see the top of this file.  A rank with target 0 and
 * some load is a donor of all of it.  *slack is a receiver's room between
 * the middle of the band and the tolerance, target (tol - 1) / 2 (0 for
 * others): what its donors may overshoot by in all, so that a quota smaller
 * than any object can still be met.
 */
void refine_rootless_role(double load, double target, double tol, double *excess, double *capacity,
                          double *slack);

/*
 * refine_rootless_blocks - the blocks that [lo, hi) touches, when [0, E) is
 * cut into nblocks blocks of size block (> 0; the last block runs to E and
 * beyond, so that rounding cannot lose a piece).  Empty intervals touch
 * none: *first > *last.
 */
void refine_rootless_blocks(double lo, double hi, double block, int nblocks, int *first, int *last);

/*
 * refine_rootless_match - the transfers inside one block [blo, bhi): donor
 * and receiver intervals, each sorted by lo (rank order), clipped to the
 * block and paired where they overlap; each transfer carries the
 * receiver's slack times the overlap's share of its interval.  out must
 * hold nd + nr entries.  Returns the number of transfers written, each of
 * positive amount, in order along the line.
 */
size_t refine_rootless_match(double blo, double bhi, const refine_interval *d, size_t nd,
                             const refine_interval *r, size_t nr, refine_transfer *out);

/*
 * refine_fill_quotas - which of n objects (loads >= 0) go to which of k
 * receivers, given the load each should get (quota, <= 0: none) and how
 * far it may be exceeded (over, >= 0, or NULL for 0).  While some quota is
 * left, objects are taken heaviest first (ties: lower index), each by the
 * receiver with the most room (remaining quota plus over; ties: lower
 * index), when it fits that room or brings the receiver's amount closer to
 * its quota (load < 2 x remaining): no receiver gets more than its quota
 * plus the larger of its over and half an object, and few objects move.
 * Outputs: dest[i] in [-1, k) (-1: stays), sent[j] the load given to
 * receiver j.  Returns the number of objects given, or -1 when out of
 * memory.
 */
long refine_fill_quotas(size_t n, const double *load, int k, const double *quota,
                        const double *over, int *dest, double *sent);

#ifdef __cplusplus
}
#endif

#endif /* REFINE_ROOTLESS_H */
