/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_RNG_H
#define ZP_RNG_H

/*
 * The project's one seeded random generator, for tests, benchmarks and the
 * ULBA model study (never for the library's methods, which are
 * deterministic).  Tests must not depend on rand(), whose sequence differs
 * between C libraries; this one gives the same numbers on every platform,
 * so that a seed fixes every test input and every benchmark figure.
 *
 * Two generators, both public-domain algorithms by Vigna:
 *  - splitmix64, a counter (the state) run through a mixing bijection: the
 *    stream zp_splitmix64, and the stateless hash zp_mix64 of one key;
 *  - xoshiro256**, the generator zp_rng, seeded through splitmix64.
 * Pure C, no MPI, no I/O; nothing here is collective and nothing fails.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * zp_splitmix64 - advance *state by the golden-ratio increment and return
 * the mixed new state: the next number of a splitmix64 stream.
 */
uint64_t zp_splitmix64(uint64_t *state);

/*
 * zp_mix64 - the splitmix64 number that follows x (x itself is not
 * changed): a bijection that spreads every input bit, for numbers that
 * must be a function of a key (a GID, a cell) rather than of call order.
 */
uint64_t zp_mix64(uint64_t x);

/* zp_unit_double - a double in [0, 1) from the top 53 of the 64 bits. */
double zp_unit_double(uint64_t bits);

/* xoshiro256** state. */
typedef struct zp_rng {
  uint64_t s[4]; /* generator state, never all zero */
} zp_rng;

/* zp_rng_seed - seed the generator; equal seeds give equal streams. */
void zp_rng_seed(zp_rng *r, uint64_t seed);

/*
 * zp_rng_seed_stream - seed the generator from a seed and a stream tag:
 * two different tags give unrelated streams for the same seed.
 */
void zp_rng_seed_stream(zp_rng *r, uint64_t seed, uint64_t stream);

/* zp_rng_next - the next 64 random bits. */
uint64_t zp_rng_next(zp_rng *r);

/* zp_rng_uniform - a double in [0, 1) with 53 random bits. */
double zp_rng_uniform(zp_rng *r);

/* zp_rng_range - a double in [lo, hi): lo + (hi - lo) * zp_rng_uniform. */
double zp_rng_range(zp_rng *r, double lo, double hi);

/* zp_rng_below - an integer in [0, bound), bound > 0, without modulo bias. */
uint64_t zp_rng_below(zp_rng *r, uint64_t bound);

#ifdef __cplusplus
}
#endif

#endif /* ZP_RNG_H */
