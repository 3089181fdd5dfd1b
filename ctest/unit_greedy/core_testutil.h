/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CORE_TESTUTIL_H
#define CORE_TESTUTIL_H

/*
 * Helpers shared by the GREEDY/REFINE unit tests and bench/bench_cores:
 * a seeded generator of our own (tests must not depend on rand()), the
 * heavy-tailed workload of Charm++'s lb_test, and the assignment checker
 * every strategy's output goes through.  Not collective; no MPI.
 */

#include <stddef.h>
#include <stdint.h>

/* xoshiro256** state, seeded through splitmix64. */
typedef struct ct_rng {
  uint64_t s[4]; /* generator state, never all zero */
} ct_rng;

/* ct_rng_seed - seed the generator; equal seeds give equal streams. */
void ct_rng_seed(ct_rng *r, uint64_t seed);

/* ct_rng_next - next 64 random bits. */
uint64_t ct_rng_next(ct_rng *r);

/* ct_rng_uniform - a double in [0, 1) with 53 random bits. */
double ct_rng_uniform(ct_rng *r);

/* ct_rng_below - an integer in [0, bound), bound > 0. */
uint64_t ct_rng_below(ct_rng *r, uint64_t bound);

/* ct_heavy_tailed - n weights min + (max - min) * U^4 (lb_test shape). */
void ct_heavy_tailed(ct_rng *r, size_t n, double min, double max, double *w);

/*
 * ct_check_assignment - the assignment checker run after every strategy.  Verifies that each
 * of the n objects has exactly one part in [0, nparts) (part[i] is that
 * part), that no object is assigned to a part whose every target is zero
 * (when target_frac != NULL and forbid_zero is set), and that the weight
 * summed over parts equals the weight summed over objects in every
 * dimension (relative error 1e-9).  Returns 0 when all holds, else a
 * negative number and a message on stderr naming the failing check.
 */
int ct_check_assignment(size_t n, int wdim, const double *w, int nparts,
                        const double *target_frac, int forbid_zero,
                        const int *part);

/* ct_moved - number of i with a[i] != b[i]. */
size_t ct_moved(size_t n, const int *a, const int *b);

/* ct_max_rel_load - largest load/target ratio (single weight, fractions
 * normalised here, NULL = equal sizes); inf when a zero part has load. */
double ct_max_rel_load(size_t n, const double *w, int nparts,
                       const double *target_frac, const int *part);

#endif /* CORE_TESTUTIL_H */
