/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CORE_TESTUTIL_H
#define CORE_TESTUTIL_H

/*
 * Helpers shared by the GREEDY/REFINE unit tests and the benchmarks: the
 * heavy-tailed workload of Charm++'s lb_test, drawn from the project's
 * seeded generator (zp_rng.h), and the assignment checker every strategy's
 * output goes through.  Not collective; no MPI.
 */

#include <stddef.h>

#include "zp_rng.h"

/* ct_heavy_tailed - n weights min + (max - min) * U^4 (lb_test shape). */
void ct_heavy_tailed(zp_rng *r, size_t n, double min, double max, double *w);

/*
 * ct_check_assignment - the assignment checker run after every strategy.  Verifies that each
 * of the n objects has exactly one part in [0, nparts) (part[i] is that
 * part), that no object is assigned to a part whose every target is zero
 * (when target_frac != NULL and forbid_zero is set), and that the weight
 * summed over parts equals the weight summed over objects in every
 * dimension (relative error 1e-9).  Returns 0 when all holds, else a
 * negative number and a message on stderr naming the failing check.
 */
int ct_check_assignment(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                        int forbid_zero, const int *part);

/* ct_charm_ring - bench_zoltan's Charm++ synthetic as a graph: n objects
 * in a ring, loads 10 + 990 U^4 drawn from seed 1001 and stored as floats
 * (as Zoltan's weights are), every edge of weight `edge` on both sides, in
 * compressed rows (start: n + 1 entries; adj, ew: 2n). */
void ct_charm_ring(size_t n, double edge, double *w, size_t *start, size_t *adj, double *ew);

/* ct_moved - number of i with a[i] != b[i]. */
size_t ct_moved(size_t n, const int *a, const int *b);

/* ct_max_rel_load - largest load/target ratio (single weight, fractions
 * normalised here, NULL = equal sizes); inf when a zero part has load. */
double ct_max_rel_load(size_t n, const double *w, int nparts, const double *target_frac,
                       const int *part);

#endif /* CORE_TESTUTIL_H */
