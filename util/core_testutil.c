/* SPDX-License-Identifier: BSD-3-Clause */
#include "core_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void ct_heavy_tailed(zp_rng *r, size_t n, double min, double max, double *w)
{
  for (size_t i = 0; i < n; i++) {
    double u = zp_rng_uniform(r);
    w[i] = min + (max - min) * u * u * u * u;
  }
}

void ct_charm_ring(size_t n, double edge, double *w, size_t *start, size_t *adj, double *ew)
{
  zp_rng rng;
  zp_rng_seed(&rng, 1001);
  for (size_t i = 0; i < n; i++) {
    double u = zp_rng_uniform(&rng);
    w[i] = (float)(10.0 + 990.0 * (u * u * u * u));
    start[i] = 2 * i;
    adj[2 * i] = (i + n - 1) % n;
    adj[2 * i + 1] = (i + 1) % n;
    ew[2 * i] = ew[2 * i + 1] = edge;
  }
  start[n] = 2 * n;
}

int ct_check_assignment(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                        int forbid_zero, const int *part)
{
  int rc = 0;
  double *in = calloc((size_t)wdim, sizeof(double));
  double *out = calloc((size_t)nparts * wdim, sizeof(double));
  if (!in || !out) {
    fprintf(stderr, "ct_check_assignment: out of memory\n");
    rc = -9;
    goto end;
  }
  for (size_t i = 0; i < n; i++) {
    if (part[i] < 0 || part[i] >= nparts) {
      fprintf(stderr, "object %zu has part %d outside [0, %d)\n", i, part[i], nparts);
      rc = -1;
      goto end;
    }
    if (forbid_zero && target_frac) {
      int any = 0;
      for (int d = 0; d < wdim; d++) any |= target_frac[(size_t)part[i] * wdim + d] > 0.0;
      if (!any) {
        fprintf(stderr, "object %zu is on part %d of zero size\n", i, part[i]);
        rc = -2;
        goto end;
      }
    }
    for (int d = 0; d < wdim; d++) {
      in[d] += w[i * wdim + d];
      out[(size_t)part[i] * wdim + d] += w[i * wdim + d];
    }
  }
  for (int d = 0; d < wdim; d++) {
    double sum = 0.0;
    for (int p = 0; p < nparts; p++) sum += out[(size_t)p * wdim + d];
    if (fabs(sum - in[d]) > 1e-9 * (in[d] > 1.0 ? in[d] : 1.0)) {
      fprintf(stderr, "weight %d not conserved: %.17g in, %.17g out\n", d, in[d], sum);
      rc = -3;
      goto end;
    }
  }
end:
  free(in);
  free(out);
  return rc;
}

size_t ct_moved(size_t n, const int *a, const int *b)
{
  size_t m = 0;
  for (size_t i = 0; i < n; i++) m += a[i] != b[i];
  return m;
}

double ct_max_rel_load(size_t n, const double *w, int nparts, const double *target_frac,
                       const int *part)
{
  double *load = calloc((size_t)nparts, sizeof(double));
  double total = 0.0, tsum = 0.0, worst = 0.0;
  if (!load) return NAN;
  for (size_t i = 0; i < n; i++) {
    load[part[i]] += w[i];
    total += w[i];
  }
  for (int p = 0; p < nparts; p++) tsum += target_frac ? target_frac[p] : 1.0;
  for (int p = 0; p < nparts; p++) {
    double cap = (target_frac ? target_frac[p] : 1.0) / tsum * total;
    double r = cap > 0.0 ? load[p] / cap : (load[p] > 0.0 ? INFINITY : 0.0);
    if (r > worst) worst = r;
  }
  free(load);
  return worst;
}
