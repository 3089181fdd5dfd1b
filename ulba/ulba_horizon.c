/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How far ULBA may anticipate: the horizon of ULBA_GROWTH=OBJECT with
 * ULBA_ALPHA=AUTO from the balance cost and the parts' rates, and the caps
 * that keep a base run's part sizes or weights within what the base
 * method takes (zp_native_grain).  Pure C on arrays (ulba_core.h).
 */
#include <math.h>
#include <stddef.h>

#include "ulba_core.h"

int ulba_object_horizon(size_t P, const double *rates, const double *loads, double C,
                        double max_extra, double *H, double *interval)
{
  double W = 0.0, G = 0.0, lead = 0.0, lag = 0.0, h;
  size_t p;
  if (P == 0 || rates == NULL || loads == NULL || H == NULL || !isfinite(C) || C < 0.0 ||
      !(max_extra >= 0.0))
    return ULBA_ERR_ARG;
  for (p = 0; p < P; p++) {
    if (!isfinite(rates[p]) || !isfinite(loads[p]) || loads[p] < 0.0) return ULBA_ERR_ARG;
    W += loads[p];
    G += rates[p];
  }
  /* e_p, the part's rate beyond its share of the total rate, is the rate
   * at which it leaves the average once the weights it was balanced on
   * have been reached (ulba_anticipate gives it e_p H less load now). */
  for (p = 0; p < P; p++) {
    double e = rates[p] - (W > 0.0 ? G * loads[p] / W : G / (double)P);
    lead = e > lead ? e : lead;
    lag = -e > lag ? -e : lag;
  }
  *H = 0.0;
  if (interval != NULL) *interval = 0.0;
  if (!(lead > 0.0) || !(lag > 0.0) || C == 0.0) return ULBA_OK;
  /* Until step H the slowest parts lead the average by (H - t) lag, after
   * it the fastest by (t - H) lead: the time lost to imbalance by step T
   * is lag H^2 / 2 + lead (T - H)^2 / 2.  The next balance comes when that
   * reaches C, at T(H) = H + sqrt(2 (C - lag H^2 / 2) / lead); a balance
   * then costs 2 C per interval, so the longest interval is the cheapest.
   * dT/dH = 0 gives H^2 = 2 C lead / (lag (lag + lead)). */
  h = sqrt(2.0 * C * lead / (lag * (lag + lead)));
  /* The part that grows fastest gets lead H less load than the average:
   * never more than max_extra. */
  if (lead * h > max_extra) h = max_extra / lead;
  *H = h;
  if (interval != NULL) {
    double left = C - 0.5 * lag * h * h;
    *interval = h + sqrt(2.0 * (left > 0.0 ? left : 0.0) / lead);
  }
  return ULBA_OK;
}

int ulba_horizon_cap(size_t n, const double *w, size_t stride, const double *g, double W, double G,
                     double limit, double *H)
{
  size_t i;
  double h;
  if ((n > 0 && (w == NULL || g == NULL)) || H == NULL || stride < 1 || !(W >= 0.0) ||
      !isfinite(W) || !isfinite(G) || !(limit >= 0.0) || !(*H >= 0.0))
    return ULBA_ERR_ARG;
  h = *H;
  for (i = 0; i < n; i++) {
    double wi = w[i * stride], e;
    if (isnan(g[i])) continue;
    /* The same e_i as ulba_anticipate: only objects that gain weight can
     * cross the limit. */
    e = g[i] - (W > 0.0 ? G * wi / W : 0.0);
    if (e > 0.0 && wi + h * e > limit) h = wi < limit ? (limit - wi) / e : 0.0;
  }
  *H = h;
  return ULBA_OK;
}

/* The smallest size of an overloading part among the sizes of
 * ulba_part_sizes with alpha (+infinity when none is flagged), or a
 * negative value when they cannot be composed. */
static double smallest_flagged(size_t P, const double *base, const int *flags, double alpha,
                               double *sizes)
{
  double smin = INFINITY;
  if (ulba_part_sizes(P, base, flags, alpha, sizes, NULL) != ULBA_OK) return -1.0;
  for (size_t p = 0; p < P; p++)
    if (flags[p] && sizes[p] > 0.0 && sizes[p] < smin) smin = sizes[p];
  return smin;
}

int ulba_alpha_cap(size_t P, const double *base, const int *flags, double min_share, double *sizes,
                   double *alpha)
{
  double lo = 0.0, hi, top;
  if (P == 0 || flags == NULL || sizes == NULL || alpha == NULL || !(*alpha >= 0.0) ||
      !(*alpha < 1.0) || !(min_share >= 0.0) || !isfinite(min_share))
    return ULBA_ERR_ARG;
  hi = *alpha;
  top = smallest_flagged(P, base, flags, hi, sizes);
  if (top < 0.0) return ULBA_ERR_ARG;
  if (top >= min_share) return ULBA_OK;
  /* An overloading part's share, b (1 - alpha) / (1 - k alpha) with k < 1
   * after the renormalisation, falls as alpha grows, so the largest alpha
   * that keeps it is found by bisection; 60 halvings reach the double's
   * precision on [0, 1).  The other parts' shares grow with alpha: a
   * smaller alpha cannot help them. */
  for (int k = 0; k < 60 && hi - lo > 0.0; k++) {
    double mid = 0.5 * (lo + hi);
    if (smallest_flagged(P, base, flags, mid, sizes) >= min_share)
      lo = mid;
    else
      hi = mid;
  }
  *alpha = lo;
  (void)smallest_flagged(P, base, flags, lo, sizes);
  return ULBA_OK;
}
