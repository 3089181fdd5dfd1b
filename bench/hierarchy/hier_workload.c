/* SPDX-License-Identifier: BSD-3-Clause */
/* The simulators' workload (hier_workload.h). */
#include "hier_workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "zp_rng.h"

double hier_workload_loads(int side, int K, double *w)
{
  zp_rng rng;
  double total = 0.0;
  zp_rng_seed(&rng, 2026);
  for (int r = 0; r < side * side; r++) {
    double x = r % side - 0.3 * side, y = r / side - 0.4 * side;
    double hot = 1.0 + 0.5 * exp(-(x * x + y * y) / 4.0);
    for (int i = 0; i < K; i++) {
      double u = zp_rng_uniform(&rng);
      w[(size_t)r * K + i] = (10.0 + 990.0 * u * u * u * u) * hot;
      total += w[(size_t)r * K + i];
    }
  }
  return total;
}

int hier_workload_sides(const char *arg, int *sides, int max)
{
  const char *p = arg;
  int n = 0;
  while (*p) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 1 || v > 46340 || n == max || (*end != ',' && *end != '\0')) {
      fprintf(stderr, "--sides %s: expected up to %d positive integers separated by commas\n", arg,
              max);
      return -1;
    }
    sides[n++] = (int)v;
    p = *end == ',' ? end + 1 : end;
  }
  return n > 0 ? n : -1;
}
