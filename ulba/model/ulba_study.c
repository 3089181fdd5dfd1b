/* SPDX-License-Identifier: BSD-3-Clause */
#include "ulba_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ulba_study_sample(zp_rng *rng, double fraction, ulba_instance *inst)
{
  if (rng == NULL || inst == NULL || !isfinite(fraction) || fraction >= 0.5) return ULBA_ERR_ARG;
  static const double procs[4] = {256.0, 512.0, 1024.0, 2048.0};
  ulba_instance r;
  memset(&r, 0, sizeof r);
  /* The draws happen in a fixed order whatever fraction is, so that one
   * seed gives the same W, dW, ... for every percentage of figure 3. */
  double P = procs[zp_rng_next(rng) >> 62];
  double v = zp_rng_range(rng, 0.01, 0.2);
  double w0 = zp_rng_range(rng, 52e7 * P, 1165e7 * P);
  double x = zp_rng_range(rng, 0.01, 0.3);
  double y = zp_rng_range(rng, 0.8, 1.0);
  double alpha = zp_rng_range(rng, 0.0, 1.0);
  double z = zp_rng_range(rng, 0.1, 3.0);
  if (fraction > 0.0) v = fraction;
  double N = fmax(1.0, floor(P * v + 0.5));
  double dw = w0 / P * x;
  r.model.P = P;
  r.model.N = N;
  r.model.a = dw / P * (1.0 - y);
  r.model.m = dw / N * y;
  r.model.W = w0;
  r.model.omega = ULBA_STUDY_OMEGA;
  r.model.C = w0 / P * z / ULBA_STUDY_OMEGA;
  r.alpha = fmin(alpha, nextafter(1.0, 0.0));
  r.fraction = v;
  *inst = r;
  return ULBA_OK;
}

/* The model at the step of iteration i: the same rates, the workload
 * W_tot(i) = W_tot(0) + i dW (Eq. (1)). */
static ulba_model model_at(const ulba_model *q, long i)
{
  ulba_model at = *q;
  at.W = q->W + (double)i * (q->a * q->P + q->m * q->N);
  return at;
}

int ulba_study_schedule_time(const ulba_model *model, double alpha, long gamma,
                             const unsigned char *lb, double *time)
{
  if (lb == NULL || time == NULL || gamma < 1 || ulba_model_check(model) != ULBA_OK ||
      !(alpha >= 0.0 && alpha < 1.0))
    return ULBA_ERR_ARG;
  double total = 0.0;
  long start = 0;
  for (long i = 1; i <= gamma; ++i) {
    if (i == gamma || lb[i]) {
      ulba_model at = model_at(model, start);
      double t;
      int rc = ulba_interval_time(&at, alpha, i - start, &t);
      if (rc != ULBA_OK) return rc;
      total += t;
      start = i;
    }
  }
  *time = total;
  return ULBA_OK;
}

int ulba_study_optimum(const ulba_model *model, double alpha, long gamma, double *time,
                       unsigned char *lb, long *num_lb)
{
  if (time == NULL || gamma < 1 || ulba_model_check(model) != ULBA_OK ||
      !(alpha >= 0.0 && alpha < 1.0))
    return ULBA_ERR_ARG;
  int rc = ULBA_OK;
  double *f = malloc((size_t)(gamma + 1) * sizeof *f);
  long *from = malloc((size_t)(gamma + 1) * sizeof *from);
  if (f == NULL || from == NULL) {
    rc = ULBA_ERR_MEMORY;
    goto End;
  }
  /* f[j] = least time of iterations 0 .. j-1 when a step starts iteration
   * j (or j == gamma ends the run); from[j] = the step before it. */
  f[0] = 0.0;
  from[0] = -1;
  for (long j = 1; j <= gamma; ++j) {
    f[j] = INFINITY;
    from[j] = 0;
    for (long i = 0; i < j; ++i) {
      ulba_model at = model_at(model, i);
      double t;
      rc = ulba_interval_time(&at, alpha, j - i, &t);
      if (rc != ULBA_OK) goto End;
      /* Strict comparison: among equal costs the earliest previous step
       * wins, which makes the reported schedule deterministic. */
      if (f[i] + t < f[j]) {
        f[j] = f[i] + t;
        from[j] = i;
      }
    }
  }
  *time = f[gamma];
  long count = 0;
  if (lb != NULL) memset(lb, 0, (size_t)gamma);
  for (long j = from[gamma]; j >= 0; j = from[j]) {
    if (lb != NULL) lb[j] = 1;
    ++count;
  }
  if (num_lb != NULL) *num_lb = count;
End:
  free(f);
  free(from);
  return rc;
}

int ulba_study_fig2(uint64_t seed, long n, long gamma, ulba_fig2_row *rows)
{
  if (rows == NULL || n < 1 || gamma < 1) return ULBA_ERR_ARG;
  zp_rng rng;
  zp_rng_seed_stream(&rng, seed, 2);
  for (long k = 0; k < n; ++k) {
    ulba_fig2_row r;
    memset(&r, 0, sizeof r);
    int rc = ulba_study_sample(&rng, 0.0, &r.inst);
    if (rc == ULBA_OK)
      rc = ulba_predicted_time(&r.inst.model, r.inst.alpha, gamma, &r.t_sigma, &r.lb_sigma);
    if (rc == ULBA_OK)
      rc = ulba_study_optimum(&r.inst.model, r.inst.alpha, gamma, &r.t_opt, NULL, &r.lb_opt);
    if (rc != ULBA_OK) return rc;
    r.gap_pct = 100.0 * (r.t_opt - r.t_sigma) / r.t_sigma;
    rows[k] = r;
  }
  return ULBA_OK;
}

int ulba_study_fig3(uint64_t seed, long n, int pct_lo, int pct_hi, int n_alpha, long gamma,
                    ulba_fig3_row *rows)
{
  if (rows == NULL || n < 1 || pct_lo < 1 || pct_hi < pct_lo || pct_hi > 49 || n_alpha < 1 ||
      gamma < 1)
    return ULBA_ERR_ARG;
  long out = 0;
  for (int pct = pct_lo; pct <= pct_hi; ++pct) {
    zp_rng rng;
    zp_rng_seed_stream(&rng, seed, 1000u + (uint64_t)pct);
    for (long k = 0; k < n; ++k) {
      ulba_fig3_row r;
      memset(&r, 0, sizeof r);
      r.pct = pct;
      int rc = ulba_study_sample(&rng, pct / 100.0, &r.inst);
      if (rc != ULBA_OK) return rc;
      const ulba_model *q = &r.inst.model;
      rc = ulba_predicted_time(q, 0.0, gamma, &r.t_std, NULL);
      if (rc != ULBA_OK) return rc;
      r.best_alpha = 0.0;
      r.t_best = r.t_std;
      for (int j = 1; j < n_alpha; ++j) {
        double alpha = (double)j / n_alpha, t;
        rc = ulba_predicted_time(q, alpha, gamma, &t, NULL);
        if (rc != ULBA_OK) return rc;
        if (t < r.t_best) {
          r.t_best = t;
          r.best_alpha = alpha;
        }
      }
      r.gain_pct = 100.0 * (r.t_std - r.t_best) / r.t_std;

      double t_auto;
      rc = ulba_auto_alpha(q, gamma, 0.99, &r.auto_alpha, &t_auto);
      if (rc != ULBA_OK) return rc;
      r.auto_gain_pct = 100.0 * (r.t_std - t_auto) / r.t_std;

      double opt_std, opt_ulba;
      rc = ulba_study_optimum(q, 0.0, gamma, &opt_std, NULL, NULL);
      if (rc == ULBA_OK) rc = ulba_study_optimum(q, r.best_alpha, gamma, &opt_ulba, NULL, NULL);
      if (rc != ULBA_OK) return rc;
      r.dp_gain_pct = 100.0 * (opt_std - opt_ulba) / opt_std;
      rows[out++] = r;
    }
  }
  return ULBA_OK;
}
