/* SPDX-License-Identifier: BSD-3-Clause */
#include "ulba_core.h"

#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Relative size under which a deviation of rates is taken for rounding
 * noise: rates computed from the same loads in a different order differ by a
 * few ulps, and those differences must not make a part "overloading". */
#define ULBA_ROUNDING_NOISE 1e-9

/* Number of grid points and golden-section steps of ulba_auto_alpha. */
#define ULBA_AUTO_GRID   400
#define ULBA_AUTO_REFINE 40

/* Cap on the length of one cycle when ulba_auto_alpha has no horizon: with
 * no imbalance growth the cycle would be infinite, and a very long finite
 * cycle has the same cost rate to many digits. */
#define ULBA_AUTO_CYCLE_CAP 1000000L

static int all_finite(size_t n, const double *x)
{
  for (size_t i = 0; i < n; ++i)
    if (!isfinite(x[i])) return 0;
  return 1;
}

int ulba_slope_basis_init(size_t n, const double *t, ulba_slope_basis *b)
{
  if (b == NULL) return ULBA_ERR_ARG;
  b->n = n;
  b->t = t;
  b->tbar = b->sxx = 0.0;
  b->t_finite = t == NULL || all_finite(n, t);
  if (n < 2 || !b->t_finite) return ULBA_OK;
  /* Centre the times first: the two-pass form does not lose the slope to
   * cancellation when loads are large and their changes small. */
  for (size_t i = 0; i < n; ++i) b->tbar += t != NULL ? t[i] : (double)i;
  b->tbar /= (double)n;
  for (size_t i = 0; i < n; ++i) {
    double dt = (t != NULL ? t[i] : (double)i) - b->tbar;
    b->sxx += dt * dt;
  }
  return ULBA_OK;
}

int ulba_slope_fit(const ulba_slope_basis *b, const double *y, double *slope)
{
  size_t n;
  if (b == NULL || slope == NULL || (b->n > 0 && y == NULL)) return ULBA_ERR_ARG;
  n = b->n;
  if (!all_finite(n, y) || !b->t_finite) return ULBA_ERR_ARG;
  if (n < 2) {
    *slope = 0.0;
    return ULBA_OK;
  }
  /* The loads are centred too, for the same reason as the times. */
  double ybar = 0.0, sxy = 0.0;
  for (size_t i = 0; i < n; ++i) ybar += y[i];
  ybar /= (double)n;
  for (size_t i = 0; i < n; ++i)
    sxy += ((b->t != NULL ? b->t[i] : (double)i) - b->tbar) * (y[i] - ybar);
  if (!(b->sxx > 0.0)) return ULBA_ERR_ARG;
  *slope = sxy / b->sxx;
  return ULBA_OK;
}

/* ulba_slope_fit_series for two samples per series, the usual case (a
 * trigger's two snapshots since the last balance): the loop of the general
 * form with its sums unrolled, each in ulba_slope_fit's order (the sums
 * start from 0.0 as there, which matters for a sample of -0.0). */
static void fit_series_2(const ulba_slope_basis *b, size_t m, const double *const *y, int usable,
                         double *slope)
{
  const double *y0 = y[0], *y1 = y[1];
  const double d0 = (b->t != NULL ? b->t[0] : 0.0) - b->tbar,
               d1 = (b->t != NULL ? b->t[1] : 1.0) - b->tbar, sxx = b->sxx;
  for (size_t i = 0; i < m; i++) {
    double v0 = y0[i], v1 = y1[i], ybar = 0.0, sxy = 0.0;
    int ok = usable && fabs(v0) <= DBL_MAX && fabs(v1) <= DBL_MAX;
    ybar += v0;
    ybar += v1;
    ybar /= 2.0;
    sxy += d0 * (v0 - ybar);
    sxy += d1 * (v1 - ybar);
    slope[i] = ok ? sxy / sxx : NAN;
  }
}

int ulba_slope_fit_series(const ulba_slope_basis *b, size_t m, const double *const *y,
                          double *slope)
{
  /* Series are fitted one by one with their sums in registers: each sees
   * the operations of ulba_slope_fit in the same order.  (A form that went
   * sample by sample across blocks of series kept its sums in memory and
   * cost about 8 ns per series of two samples, more than the rest of a
   * balance's passes over an object.) */
  enum { DT_MAX = 64 };
  double dt[DT_MAX];
  size_t n, i, k;
  int usable;
  if (b == NULL || (m > 0 && slope == NULL) || (m > 0 && b->n > 0 && y == NULL))
    return ULBA_ERR_ARG;
  n = b->n;
  /* The conditions of ulba_slope_fit that do not depend on the series. */
  usable = b->t_finite && (n < 2 || b->sxx > 0.0);
  if (n == 2) {
    fit_series_2(b, m, y, usable, slope);
    return ULBA_OK;
  }
  /* The centred times, as ulba_slope_fit computes them per sample. */
  for (k = 0; k < n && k < DT_MAX; k++) dt[k] = (b->t != NULL ? b->t[k] : (double)k) - b->tbar;
  for (i = 0; i < m; i++) {
    double ybar = 0.0, sxy = 0.0;
    int ok = usable;
    for (k = 0; k < n; k++) {
      double v = y[k][i];
      ybar += v;
      ok &= fabs(v) <= DBL_MAX;
    }
    if (n < 2) {
      slope[i] = ok ? 0.0 : NAN;
      continue;
    }
    ybar /= (double)n;
    for (k = 0; k < n; k++) {
      double d = k < DT_MAX ? dt[k] : (b->t != NULL ? b->t[k] : (double)k) - b->tbar;
      sxy += d * (y[k][i] - ybar);
    }
    slope[i] = ok ? sxy / b->sxx : NAN;
  }
  return ULBA_OK;
}

int ulba_known_sums(size_t n, const double *w, size_t stride, const double *g, double sums[2])
{
  double w0 = 0.0, w1 = 0.0, g0 = 0.0, g1 = 0.0;
  size_t i;
  if ((n > 0 && (w == NULL || g == NULL)) || sums == NULL || stride < 1) return ULBA_ERR_ARG;
  for (i = 0; i + 1 < n; i += 2) {
    int k0 = !isnan(g[i]), k1 = !isnan(g[i + 1]);
    w0 += k0 ? w[i * stride] : 0.0;
    g0 += k0 ? g[i] : 0.0;
    w1 += k1 ? w[(i + 1) * stride] : 0.0;
    g1 += k1 ? g[i + 1] : 0.0;
  }
  if (i < n && !isnan(g[i])) {
    w0 += w[i * stride];
    g0 += g[i];
  }
  sums[0] = w0 + w1;
  sums[1] = g0 + g1;
  return ULBA_OK;
}

int ulba_sum_by_part(size_t n, const int *part, const double *v, size_t stride, size_t P,
                     double *acc)
{
  size_t i = 0;
  if ((n > 0 && (part == NULL || v == NULL || acc == NULL)) || stride < 1) return ULBA_ERR_ARG;
  while (i < n) {
    int p = part[i];
    double s0 = 0.0, s1 = 0.0;
    /* Two sums that do not wait for each other, then the run's tail. */
    for (; i + 1 < n && part[i] == p && part[i + 1] == p; i += 2) {
      double a = v[i * stride], c = v[(i + 1) * stride];
      s0 += isnan(a) ? 0.0 : a;
      s1 += isnan(c) ? 0.0 : c;
    }
    for (; i < n && part[i] == p; i++) s0 += isnan(v[i * stride]) ? 0.0 : v[i * stride];
    if (p >= 0 && (size_t)p < P) acc[p] += s0 + s1;
  }
  return ULBA_OK;
}

int ulba_slope(size_t n, const double *t, const double *y, double *slope)
{
  ulba_slope_basis b;
  if (slope == NULL || (n > 0 && y == NULL)) return ULBA_ERR_ARG;
  ulba_slope_basis_init(n, t, &b);
  return ulba_slope_fit(&b, y, slope);
}

int ulba_zscores(size_t P, const double *x, double *z)
{
  if (P == 0 || x == NULL || z == NULL || !all_finite(P, x)) return ULBA_ERR_ARG;
  double mean = 0.0, var = 0.0;
  for (size_t i = 0; i < P; ++i) mean += x[i];
  mean /= (double)P;
  for (size_t i = 0; i < P; ++i) var += (x[i] - mean) * (x[i] - mean);
  double sd = sqrt(var / (double)P);
  for (size_t i = 0; i < P; ++i) z[i] = sd > 0.0 ? (x[i] - mean) / sd : 0.0;
  return ULBA_OK;
}

static int compare_double(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* Median of n >= 1 values; sorts x in place. */
static double median_inplace(size_t n, double *x)
{
  qsort(x, n, sizeof *x, compare_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

int ulba_robust_scores(size_t P, const double *x, double *score, double *median, double *scale)
{
  if (P == 0 || x == NULL || score == NULL || !all_finite(P, x)) return ULBA_ERR_ARG;
  int rc = ULBA_OK;
  double *work = malloc(P * sizeof *work);
  if (work == NULL) {
    rc = ULBA_ERR_MEMORY;
    goto End;
  }
  memcpy(work, x, P * sizeof *work);
  double med = median_inplace(P, work);
  double maxabs = 0.0;
  for (size_t i = 0; i < P; ++i) maxabs = fmax(maxabs, fabs(x[i]));
  double noise = ULBA_ROUNDING_NOISE * maxabs;

  double meanad = 0.0;
  for (size_t i = 0; i < P; ++i) {
    double d = fabs(x[i] - med);
    work[i] = d <= noise ? 0.0 : d;
    meanad += work[i];
  }
  meanad /= (double)P;
  double mad = median_inplace(P, work);

  /* The MAD ignores up to half of the values, so outliers do not inflate the
   * scale as they inflate a standard deviation; that is what lets one
   * growing part among four stand out.  When more than half of the rates
   * are equal the MAD is 0 and says nothing about the spread of the rest,
   * and the mean absolute deviation takes over (Iglewicz and Hoaglin). */
  double s = 0.0;
  if (mad > 0.0)
    s = mad / ULBA_MAD_FACTOR;
  else if (meanad > 0.0)
    s = ULBA_MEANAD_FACTOR * meanad;
  for (size_t i = 0; i < P; ++i) {
    double d = x[i] - med;
    score[i] = (s > 0.0 && fabs(d) > noise) ? d / s : 0.0;
  }
  if (median != NULL) *median = med;
  if (scale != NULL) *scale = s;
End:
  free(work);
  return rc;
}

int ulba_detect_overloading(size_t P, const double *wir, double threshold, double min_excess,
                            int *flags, size_t *num_overloading)
{
  if (P == 0 || wir == NULL || flags == NULL || !isfinite(threshold) || !(threshold > 0.0) ||
      !isfinite(min_excess) || min_excess < 0.0)
    return ULBA_ERR_ARG;
  int rc = ULBA_OK;
  double med = 0.0;
  double *score = malloc(P * sizeof *score);
  if (score == NULL) {
    rc = ULBA_ERR_MEMORY;
    goto End;
  }
  rc = ulba_robust_scores(P, wir, score, &med, NULL);
  if (rc != ULBA_OK) goto End;
  size_t n = 0;
  for (size_t p = 0; p < P; ++p) {
    flags[p] = score[p] > threshold && wir[p] - med > min_excess;
    n += (size_t)flags[p];
  }
  if (num_overloading != NULL) *num_overloading = n;
End:
  free(score);
  return rc;
}

int ulba_estimate_rates(size_t P, const double *wir, const int *flags, double *a, double *m)
{
  if (P == 0 || wir == NULL || flags == NULL || a == NULL || m == NULL || !all_finite(P, wir))
    return ULBA_ERR_ARG;
  double sum_over = 0.0, sum_rest = 0.0;
  size_t n_over = 0;
  for (size_t p = 0; p < P; ++p) {
    if (flags[p]) {
      sum_over += wir[p];
      ++n_over;
    } else {
      sum_rest += wir[p];
    }
  }
  if (n_over == 0 || n_over == P) {
    *a = (sum_over + sum_rest) / (double)P;
    *m = 0.0;
    return ULBA_OK;
  }
  *a = sum_rest / (double)(P - n_over);
  *m = fmax(0.0, sum_over / (double)n_over - *a);
  return ULBA_OK;
}

int ulba_part_sizes(size_t P, const double *base, const int *flags, double alpha, double *sizes,
                    double *alpha_used)
{
  if (P == 0 || flags == NULL || sizes == NULL || !isfinite(alpha) || alpha < 0.0 || alpha >= 1.0)
    return ULBA_ERR_ARG;
  double base_sum = 0.0;
  if (base != NULL) {
    for (size_t p = 0; p < P; ++p) {
      if (!isfinite(base[p]) || base[p] < 0.0) return ULBA_ERR_ARG;
      base_sum += base[p];
    }
    if (!(base_sum > 0.0)) return ULBA_ERR_ARG;
  }
  size_t N = 0;
  for (size_t p = 0; p < P; ++p) N += flags[p] != 0;
  /* Underloading a majority would move more work than it can save; the
   * paper then balances as the standard method does. */
  double used = (N == 0 || 2 * N >= P) ? 0.0 : alpha;
  double up = N < P ? 1.0 + used * (double)N / (double)(P - N) : 1.0;
  double down = 1.0 - used;
  double sum = 0.0;
  for (size_t p = 0; p < P; ++p) {
    double b = base != NULL ? base[p] / base_sum : 1.0 / (double)P;
    double s = b * (flags[p] ? down : up);
    sum += s;
  }
  if (!(sum > 0.0)) return ULBA_ERR_ARG;
  for (size_t p = 0; p < P; ++p) {
    double b = base != NULL ? base[p] / base_sum : 1.0 / (double)P;
    sizes[p] = b * (flags[p] ? down : up) / sum;
  }
  if (alpha_used != NULL) *alpha_used = used;
  return ULBA_OK;
}

int ulba_model_check(const ulba_model *model)
{
  if (model == NULL) return ULBA_ERR_ARG;
  const ulba_model *q = model;
  if (!isfinite(q->P) || !isfinite(q->N) || !isfinite(q->a) || !isfinite(q->m) || !isfinite(q->W) ||
      !isfinite(q->C) || !isfinite(q->omega))
    return ULBA_ERR_ARG;
  if (q->P < 2.0 || q->N < 0.0 || q->N >= q->P || q->a < 0.0 || q->m < 0.0 || !(q->W > 0.0) ||
      q->C < 0.0 || !(q->omega > 0.0))
    return ULBA_ERR_ARG;
  return ULBA_OK;
}

static int check_model_alpha(const ulba_model *model, double alpha)
{
  if (ulba_model_check(model) != ULBA_OK || !isfinite(alpha) || alpha < 0.0 || alpha >= 1.0)
    return ULBA_ERR_ARG;
  return ULBA_OK;
}

/* Total work added per iteration, dW = a P + m N. */
static double delta_w(const ulba_model *q) { return q->a * q->P + q->m * q->N; }

/* Eq. (8) without argument checks. */
static double sigma_minus_of(const ulba_model *q, double alpha)
{
  if (alpha == 0.0 || q->N == 0.0) return 0.0;
  if (q->m == 0.0) return INFINITY;
  return floor((1.0 + q->N / (q->P - q->N)) * alpha * q->W / (q->m * q->P));
}

/* Eq. (12) without argument checks. */
static double sigma_plus_of(const ulba_model *q, double alpha)
{
  double m_hat = q->m * (q->P - q->N) / q->P;
  double smin = sigma_minus_of(q, alpha);
  if (!(m_hat > 0.0) || isinf(smin)) return INFINITY;
  double share = alpha * q->N / (q->P - q->N);
  double dw = delta_w(q);
  double qa = m_hat / (2.0 * q->omega);
  double qb = -share * dw / (q->omega * q->P);
  double qc = -(share * (q->W + smin * dw) / (q->omega * q->P) + q->C);
  /* qa > 0 and qc <= 0, so the discriminant is non-negative and the larger
   * root is the one with the + sign; qb <= 0 so no cancellation occurs. */
  double tau = (-qb + sqrt(qb * qb - 4.0 * qa * qc)) / (2.0 * qa);
  return smin + tau;
}

int ulba_sigma_minus(const ulba_model *model, double alpha, double *sigma_minus)
{
  if (sigma_minus == NULL || check_model_alpha(model, alpha) != ULBA_OK) return ULBA_ERR_ARG;
  *sigma_minus = sigma_minus_of(model, alpha);
  return ULBA_OK;
}

int ulba_sigma_plus(const ulba_model *model, double alpha, double *sigma_plus)
{
  if (sigma_plus == NULL || check_model_alpha(model, alpha) != ULBA_OK) return ULBA_ERR_ARG;
  *sigma_plus = sigma_plus_of(model, alpha);
  return ULBA_OK;
}

int ulba_menon_tau(double m_hat, double C, double omega, double *tau)
{
  if (tau == NULL || !isfinite(m_hat) || !isfinite(C) || !isfinite(omega) || m_hat < 0.0 ||
      C < 0.0 || !(omega > 0.0))
    return ULBA_ERR_ARG;
  *tau = m_hat > 0.0 ? sqrt(2.0 * C * omega / m_hat) : INFINITY;
  return ULBA_OK;
}

int ulba_overhead(const ulba_model *model, double alpha, double tau, double *overhead)
{
  if (overhead == NULL || check_model_alpha(model, alpha) != ULBA_OK || !isfinite(tau) || tau < 0.0)
    return ULBA_ERR_ARG;
  double share = alpha * model->N / (model->P - model->N);
  if (share == 0.0) {
    *overhead = 0.0;
    return ULBA_OK;
  }
  double smin = sigma_minus_of(model, alpha);
  if (isinf(smin)) return ULBA_ERR_ARG;
  double w_next = model->W + (smin + tau) * delta_w(model);
  *overhead = share * w_next / (model->omega * model->P);
  return ULBA_OK;
}

/* Loads right after a step: A0 for a part that does not overload, B0 for an
 * overloading one (Eq. (6), per part). */
static void start_loads(const ulba_model *q, double alpha, double *a0, double *b0)
{
  double avg = q->W / q->P;
  *a0 = (1.0 + alpha * q->N / (q->P - q->N)) * avg;
  *b0 = (1.0 - alpha) * avg;
}

int ulba_step_time(const ulba_model *model, double alpha, double t, double *time)
{
  if (time == NULL || check_model_alpha(model, alpha) != ULBA_OK || !isfinite(t) || t < 0.0)
    return ULBA_ERR_ARG;
  double a0, b0;
  start_loads(model, alpha, &a0, &b0);
  double rest = a0 + model->a * t;
  double over = b0 + (model->a + model->m) * t;
  /* With N == 0 there is no overloading part whose load could dominate. */
  double load = model->N > 0.0 ? fmax(rest, over) : rest;
  *time = load / model->omega;
  return ULBA_OK;
}

/* Sum of t for t = lo .. hi-1, as a double. */
static double sum_range(double lo, double hi)
{
  return hi > lo ? 0.5 * (hi - lo) * (hi + lo - 1.0) : 0.0;
}

/* Eq. (3) with Eq. (5), no argument checks. */
static double interval_time_of(const ulba_model *q, double alpha, long length)
{
  double a0, b0;
  start_loads(q, alpha, &a0, &b0);
  double L = (double)length;
  /* k = number of the first iterations t = 0..k-1 in which the parts that
   * do not overload dominate, i.e. t <= (A0 - B0) / m (the case split of
   * Eq. (5), whose switch point is sigma-minus). */
  double k;
  if (q->N == 0.0 || q->m == 0.0) {
    k = L;
  } else {
    double tstar = (a0 - b0) / q->m;
    k = fmin(L, floor(tstar) + 1.0);
  }
  double work = k * a0 + q->a * sum_range(0.0, k) + (L - k) * b0 + (q->a + q->m) * sum_range(k, L);
  return q->C + work / q->omega;
}

int ulba_interval_time(const ulba_model *model, double alpha, long length, double *time)
{
  if (time == NULL || check_model_alpha(model, alpha) != ULBA_OK || length < 0) return ULBA_ERR_ARG;
  *time = interval_time_of(model, alpha, length);
  return ULBA_OK;
}

/* max(1, round(sigma_plus)) capped at cap, no argument checks. */
static long interval_length_of(const ulba_model *q, double alpha, long cap)
{
  double sp = sigma_plus_of(q, alpha);
  double r = floor(sp + 0.5);
  if (!(r < (double)cap)) return cap;
  return r < 1.0 ? 1 : (long)r;
}

int ulba_interval_length(const ulba_model *model, double alpha, long cap, long *length)
{
  if (length == NULL || check_model_alpha(model, alpha) != ULBA_OK || cap < 1) return ULBA_ERR_ARG;
  *length = interval_length_of(model, alpha, cap);
  return ULBA_OK;
}

/* ulba_predicted_time without argument checks. */
static double predicted_time_of(const ulba_model *q, double alpha, long horizon, long *num_lb)
{
  ulba_model cur = *q;
  double dw = delta_w(q);
  double total = 0.0;
  long it = 0, count = 0;
  while (it < horizon) {
    cur.W = q->W + (double)it * dw;
    long len = interval_length_of(&cur, alpha, horizon - it);
    total += interval_time_of(&cur, alpha, len);
    it += len;
    ++count;
  }
  if (num_lb != NULL) *num_lb = count;
  return total;
}

int ulba_predicted_time(const ulba_model *model, double alpha, long horizon, double *time,
                        long *num_lb)
{
  if (time == NULL || check_model_alpha(model, alpha) != ULBA_OK || horizon < 1)
    return ULBA_ERR_ARG;
  *time = predicted_time_of(model, alpha, horizon, num_lb);
  return ULBA_OK;
}

/* The objective of ulba_auto_alpha (see its comment). */
static double auto_objective(const ulba_model *q, long horizon, double alpha)
{
  if (horizon > 0) return predicted_time_of(q, alpha, horizon, NULL);
  long len = interval_length_of(q, alpha, ULBA_AUTO_CYCLE_CAP);
  return interval_time_of(q, alpha, len) / (double)len;
}

int ulba_auto_alpha(const ulba_model *model, long horizon, double alpha_max, double *alpha,
                    double *objective)
{
  if (alpha == NULL || ulba_model_check(model) != ULBA_OK || horizon < 0 || !isfinite(alpha_max) ||
      alpha_max < 0.0 || alpha_max >= 1.0)
    return ULBA_ERR_ARG;
  const ulba_model *q = model;
  double best_a = 0.0;
  double best_f = auto_objective(q, horizon, 0.0);
  if (q->N == 0.0 || q->m == 0.0 || 2.0 * q->N >= q->P || alpha_max == 0.0) goto Done;

  /* The objective is piecewise smooth with jumps where the rounded interval
   * length changes, so a grid finds the right basin and a local search only
   * polishes it; the best value seen is kept, which makes the answer never
   * worse than any grid point, alpha = 0 included. */
  int best_k = 0;
  double step = alpha_max / (double)(ULBA_AUTO_GRID - 1);
  for (int k = 1; k < ULBA_AUTO_GRID; ++k) {
    double x = k == ULBA_AUTO_GRID - 1 ? alpha_max : k * step;
    double f = auto_objective(q, horizon, x);
    if (f < best_f) {
      best_f = f;
      best_a = x;
      best_k = k;
    }
  }
  double lo = best_k > 0 ? (best_k - 1) * step : 0.0;
  double hi = fmin(alpha_max, (best_k + 1) * step);
  const double g = 0.5 * (sqrt(5.0) - 1.0);
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = auto_objective(q, horizon, x1);
  double f2 = auto_objective(q, horizon, x2);
  for (int it = 0; it < ULBA_AUTO_REFINE; ++it) {
    if (f1 < best_f) {
      best_f = f1;
      best_a = x1;
    }
    if (f2 < best_f) {
      best_f = f2;
      best_a = x2;
    }
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = auto_objective(q, horizon, x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = auto_objective(q, horizon, x2);
    }
  }
Done:
  *alpha = best_a;
  if (objective != NULL) *objective = best_f;
  return ULBA_OK;
}

int ulba_summarize(const ulba_model *model, double alpha, ulba_summary *summary)
{
  if (summary == NULL || check_model_alpha(model, alpha) != ULBA_OK) return ULBA_ERR_ARG;
  const ulba_model *q = model;
  ulba_summary s;
  memset(&s, 0, sizeof s);
  s.P = q->P;
  s.N = q->N;
  s.alpha = (q->N == 0.0 || 2.0 * q->N >= q->P) ? 0.0 : alpha;
  s.a = q->a;
  s.m = q->m;
  s.a_hat = q->a + q->m * q->N / q->P;
  s.m_hat = q->m * (q->P - q->N) / q->P;
  s.sigma_minus = sigma_minus_of(q, s.alpha);
  s.sigma_plus = sigma_plus_of(q, s.alpha);
  s.tau = s.m_hat > 0.0 ? sqrt(2.0 * q->C * q->omega / s.m_hat) : INFINITY;
  if (s.alpha == 0.0)
    s.overhead = 0.0;
  else if (isinf(s.sigma_plus))
    s.overhead = INFINITY;
  else
    (void)ulba_overhead(q, s.alpha, s.sigma_plus - s.sigma_minus, &s.overhead);
  *summary = s;
  return ULBA_OK;
}

/* One entry of the overlap matrix, for the greedy matching. */
typedef struct relabel_entry {
  double value; /* overlap[row * P + col] */
  size_t row;   /* part of the base method */
  size_t col;   /* label */
} relabel_entry;

static int compare_entry(const void *pa, const void *pb)
{
  const relabel_entry *a = pa, *b = pb;
  if (a->value != b->value) return a->value < b->value ? 1 : -1;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  return (a->col > b->col) - (a->col < b->col);
}

/* Greedy matching: take pairs by decreasing overlap while both ends are
 * free.  Every pair is listed, so every row ends up matched. */
static int relabel_greedy(size_t P, const double *overlap, int *perm)
{
  int rc = ULBA_OK;
  relabel_entry *e = malloc(P * P * sizeof *e);
  unsigned char *col_used = calloc(P, 1);
  if (e == NULL || col_used == NULL) {
    rc = ULBA_ERR_MEMORY;
    goto End;
  }
  for (size_t i = 0; i < P; ++i) {
    perm[i] = -1;
    for (size_t j = 0; j < P; ++j) {
      e[i * P + j].value = overlap[i * P + j];
      e[i * P + j].row = i;
      e[i * P + j].col = j;
    }
  }
  qsort(e, P * P, sizeof *e, compare_entry);
  for (size_t k = 0; k < P * P; ++k) {
    if (perm[e[k].row] < 0 && !col_used[e[k].col]) {
      perm[e[k].row] = (int)e[k].col;
      col_used[e[k].col] = 1;
    }
  }
End:
  free(e);
  free(col_used);
  return rc;
}

/* Hungarian algorithm with row and column potentials (shortest augmenting
 * paths), minimising cost = max - overlap; O(P^3).  Arrays are 1-based with
 * index 0 as the virtual start column, as is usual for this formulation. */
static int relabel_exact(size_t P, const double *overlap, int *perm)
{
  int rc = ULBA_OK;
  size_t n = P;
  double *u = calloc(n + 1, sizeof *u);
  double *v = calloc(n + 1, sizeof *v);
  double *minv = malloc((n + 1) * sizeof *minv);
  size_t *match = calloc(n + 1, sizeof *match); /* match[col] = row, 0 = none */
  size_t *way = calloc(n + 1, sizeof *way);
  unsigned char *used = malloc(n + 1);
  if (!u || !v || !minv || !match || !way || !used) {
    rc = ULBA_ERR_MEMORY;
    goto End;
  }
  double top = overlap[0];
  for (size_t k = 1; k < n * n; ++k) top = fmax(top, overlap[k]);
#define COST(i, j) (top - overlap[((i)-1) * n + ((j)-1)])
  for (size_t i = 1; i <= n; ++i) {
    match[0] = i;
    size_t j0 = 0;
    for (size_t j = 0; j <= n; ++j) {
      minv[j] = INFINITY;
      used[j] = 0;
    }
    do {
      used[j0] = 1;
      size_t i0 = match[j0], j1 = 0;
      double delta = INFINITY;
      for (size_t j = 1; j <= n; ++j) {
        if (used[j]) continue;
        double cur = COST(i0, j) - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      assert(j1 != 0);
      for (size_t j = 0; j <= n; ++j) {
        if (used[j]) {
          u[match[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (match[j0] != 0);
    do {
      size_t j1 = way[j0];
      match[j0] = match[j1];
      j0 = j1;
    } while (j0 != 0);
  }
#undef COST
  for (size_t j = 1; j <= n; ++j) perm[match[j] - 1] = (int)(j - 1);
End:
  free(u);
  free(v);
  free(minv);
  free(match);
  free(way);
  free(used);
  return rc;
}

int ulba_relabel(size_t P, const double *overlap, ulba_relabel_method method, int *perm,
                 double *total)
{
  /* The greedy variant holds P * P entries; refuse sizes whose count would
   * overflow rather than allocate a wrapped-around amount. */
  if (P == 0 || overlap == NULL || perm == NULL || P > (size_t)INT_MAX ||
      P > SIZE_MAX / sizeof(relabel_entry) / P || !all_finite(P * P, overlap))
    return ULBA_ERR_ARG;
  if (method == ULBA_RELABEL_AUTO)
    method = P <= ULBA_RELABEL_EXACT_MAX ? ULBA_RELABEL_EXACT : ULBA_RELABEL_GREEDY;
  int rc;
  if (method == ULBA_RELABEL_EXACT)
    rc = relabel_exact(P, overlap, perm);
  else if (method == ULBA_RELABEL_GREEDY)
    rc = relabel_greedy(P, overlap, perm);
  else
    return ULBA_ERR_ARG;
  if (rc != ULBA_OK) return rc;
  double sum = 0.0;
  for (size_t i = 0; i < P; ++i) {
    assert(perm[i] >= 0 && (size_t)perm[i] < P);
    sum += overlap[i * P + (size_t)perm[i]];
  }
  if (total != NULL) *total = sum;
  return ULBA_OK;
}

int ulba_anticipate(size_t n, const double *w, size_t stride, const double *g, double W, double G,
                    double H, double *out)
{
  size_t i;
  if ((n > 0 && (w == NULL || g == NULL || out == NULL)) || stride < 1 || !(W >= 0.0) ||
      !isfinite(W) || !isfinite(G) || !isfinite(H) || H < 0.0)
    return ULBA_ERR_ARG;
  for (i = 0; i < n; i++) {
    double wi = w[i * stride], e;
    if (isnan(g[i])) {
      out[i] = wi;
      continue;
    }
    e = g[i] - (W > 0.0 ? G * wi / W : 0.0);
    out[i] = wi + H * e > 0.0 ? wi + H * e : 0.0;
  }
  return ULBA_OK;
}
