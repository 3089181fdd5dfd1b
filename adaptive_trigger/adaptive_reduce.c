/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The single reduction of a step: order-preserving encodings of
 * non-negative doubles for maxima and minima, exact fixed-point sums, and
 * the MPI user operation that combines them.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptive_internal.h"

/* ---- the single reduction ------------------------------------------------ */

void adaptive_reduce_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  const int64_t *a = in;
  int64_t *b = inout;
  int k, i;
  (void)dt;
  for (k = 0; k < *len; k++, a += R_COUNT, b += R_COUNT) {
    b[R_FLAGS] |= a[R_FLAGS];
    for (i = R_FIRST_MAX; i < R_FIRST_SUM; i++)
      if (a[i] > b[i]) b[i] = a[i];
    for (i = R_FIRST_SUM; i < R_COUNT; i++) b[i] += a[i];
  }
}

/* Non-negative doubles order like their bit patterns read as integers. */
int64_t adaptive_enc_max(double x)
{
  int64_t v;
  memcpy(&v, &x, sizeof v);
  return v;
}
double adaptive_dec_max(int64_t v)
{
  double x;
  memcpy(&x, &v, sizeof x);
  return x;
}
int64_t adaptive_enc_min(double x) { return INT64_MAX - adaptive_enc_max(x); }
double adaptive_dec_min(int64_t v) { return adaptive_dec_max(INT64_MAX - v); }

/* Splits x in [0, 2^64) into limbs of 32 bits with weights 2^32, 1, 2^-32
 * and 2^-64; bits below 2^-64 are dropped.  Every step is exact. */
void adaptive_enc_sum(double x, int64_t *limb)
{
  double h = floor(ldexp(x, -32)), r = x - ldexp(h, 32), d;
  limb[3] = (int64_t)h;
  d = floor(r);
  limb[2] = (int64_t)d;
  r = ldexp(r - d, 32);
  d = floor(r);
  limb[1] = (int64_t)d;
  limb[0] = (int64_t)floor(ldexp(r - d, 32));
}

/* The double nearest (up to rounding of the last additions) to a reduced
 * sum of limbs; deterministic because every rank holds the same limbs. */
double adaptive_dec_sum(const int64_t *in)
{
  int64_t l[4];
  int j;
  memcpy(l, in, sizeof l);
  for (j = 0; j < 3; j++) {
    l[j + 1] += l[j] >> 32;
    l[j] &= 0xffffffff;
  }
  return ldexp((double)l[3], 32) + (double)l[2] + ldexp((double)l[1], -32) +
         ldexp((double)l[0], -64);
}
