/* SPDX-License-Identifier: BSD-3-Clause */
#include "zp_rng.h"

uint64_t zp_splitmix64(uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t zp_mix64(uint64_t x) { return zp_splitmix64(&x); }

double zp_unit_double(uint64_t bits) { return (double)(bits >> 11) * 0x1.0p-53; }

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void zp_rng_seed(zp_rng *r, uint64_t seed)
{
  /* splitmix64 mixes by a bijection, so its four consecutive outputs are
   * distinct and at most one of them is zero: the state is never the
   * all-zero fixed point of xoshiro. */
  for (int i = 0; i < 4; i++) r->s[i] = zp_splitmix64(&seed);
}

void zp_rng_seed_stream(zp_rng *r, uint64_t seed, uint64_t stream)
{
  /* Mix the stream tag into the seed through splitmix64 itself, so that
   * neighbouring tags do not give overlapping splitmix sequences. */
  uint64_t h = zp_splitmix64(&seed);
  zp_rng_seed(r, h ^ (stream * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL));
}

uint64_t zp_rng_next(zp_rng *r)
{
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double zp_rng_uniform(zp_rng *r) { return zp_unit_double(zp_rng_next(r)); }

double zp_rng_range(zp_rng *r, double lo, double hi) { return lo + (hi - lo) * zp_rng_uniform(r); }

uint64_t zp_rng_below(zp_rng *r, uint64_t bound)
{
  /* Rejection removes the modulo bias; bound is small in our uses. */
  uint64_t lim = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x;
  do x = zp_rng_next(r);
  while (x >= lim);
  return x % bound;
}
