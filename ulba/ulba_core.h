/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ULBA_CORE_H
#define ULBA_CORE_H

/*
 * The mathematical core of ULBA, the underloading load-balancing approach of
 * Boulmier, Raynaud, Abdennadher and Chopard, "On the Benefits of
 * Anticipating Load Imbalance" (sections III and IV of the paper).
 *
 * Everything here is pure and serial: plain arrays in, numbers out, no MPI,
 * no Zoltan, no I/O, no global state.  None of the functions is collective;
 * the Zoltan adapter gathers the per-part data first (one allgather of the
 * part rates) and then calls these functions with identical inputs on every
 * rank, which therefore get identical answers.
 *
 * Notation follows the paper (its Table I):
 *   P      number of parts (PEs),
 *   N      number of overloading parts,
 *   a      work added to every part at each iteration,
 *   m      extra work added to each overloading part at each iteration,
 *   dW     total work added per iteration, dW = a P + m N,
 *   a_hat  = a + m N / P,   m_hat = m (P - N) / P   (Menon et al.),
 *   W      total workload at the last load-balancing step, W_tot(LB_p),
 *   C      cost of one load-balancing step, in seconds,
 *   omega  speed of one part, in work units per second,
 *   alpha  fraction of the average load W / P taken off each overloading part.
 *
 * Error convention: every function returns ULBA_OK (0) on success or a
 * negative ULBA_ERR_* code; outputs are left untouched on error unless the
 * function's comment says otherwise.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define ULBA_OK         0
#define ULBA_ERR_ARG    (-1) /* an argument is NULL, out of range or not finite */
#define ULBA_ERR_MEMORY (-2) /* an allocation failed */

/* Default threshold of the overload detection, the paper's 3.0. */
#define ULBA_DEFAULT_THRESHOLD 3.0

/* Consistency constant of the median absolute deviation: for normally
 * distributed values MAD / 0.6745 estimates the standard deviation. */
#define ULBA_MAD_FACTOR 0.6745

/* Consistency constant of the mean absolute deviation around the median:
 * for normally distributed values 1.2533 * MeanAD estimates the standard
 * deviation (sqrt(pi / 2)). */
#define ULBA_MEANAD_FACTOR 1.2533141373155003

/*
 * ulba_slope - workload increase rate (WIR) of one part: the least-squares
 * slope of a load series.
 *
 * Not collective.
 * Input:  n samples; t[i] the time (or iteration number) of sample i, or
 *         t == NULL for equally spaced samples t[i] = i; y[i] the load.
 * Output: *slope, in load units per unit of t.  With fewer than two samples
 *         there is no trend to measure and *slope is 0.
 * Errors: ULBA_ERR_ARG if y or slope is NULL (y may be NULL when n == 0), a
 *         value is not finite, or all t[i] are equal (the slope is undefined).
 */
int ulba_slope(size_t n, const double *t, const double *y, double *slope);

/* What ulba_slope computes from the sample times alone, for many series
 * sampled at the same times (every object's loads over the same steps). */
typedef struct ulba_slope_basis {
  size_t n;        /* samples per series */
  const double *t; /* the times, or NULL for 0, 1, ..., n - 1 (not copied) */
  double tbar;     /* mean of the times (n >= 2 and t finite only) */
  double sxx;      /* sum of the squared centred times (likewise) */
  int t_finite;    /* 1 when every time is finite */
} ulba_slope_basis;

/*
 * ulba_slope_basis_init / ulba_slope_fit - ulba_slope in two steps: the
 * times once, then each series.  ulba_slope_fit(b, y, slope) after
 * ulba_slope_basis_init(n, t, b) gives exactly (bit for bit) what
 * ulba_slope(n, t, y, slope) gives, errors included, for a fraction of its
 * work per series; ulba_slope is these two calls.
 * Not collective.  basis_init returns ULBA_ERR_ARG only when b is NULL;
 * fit returns what ulba_slope returns (b must come from basis_init, and t
 * must not change in between).
 */
int ulba_slope_basis_init(size_t n, const double *t, ulba_slope_basis *b);
int ulba_slope_fit(const ulba_slope_basis *b, const double *y, double *slope);

/*
 * ulba_slope_fit_series - ulba_slope_fit for m series at once, stored by
 * sample: y[k][i] is sample k of series i (k < b->n, i < m), as an
 * application's snapshots hold every object's load of one step.
 * slope[i] receives exactly (bit for bit) what ulba_slope_fit gives for
 * series i, or NaN where it returns an error (a non-finite sample, times
 * that are not finite or all equal).  It exists because a call of
 * ulba_slope_fit per object, with the series copied out first, cost more
 * than the arithmetic at 10^5-10^6 objects per rank.
 * Not collective.
 * Input:  b from ulba_slope_basis_init; m series; y[b->n] arrays of m.
 * Output: slope[m].
 * Errors: ULBA_ERR_ARG (b or slope NULL with m > 0, y NULL with b->n > 0).
 */
int ulba_slope_fit_series(const ulba_slope_basis *b, size_t m, const double *const *y,
                          double *slope);

/*
 * ulba_sum_by_part - acc[part[i]] += v[i * stride] for i < n, skipping a
 * part outside [0, P) and a NaN value.  Objects mostly come in runs of one
 * part (an application numbers its objects by place, and a part is a
 * place), so each run is summed in two registers before it is added: a sum
 * into acc[part[i]] object by object waits at every object for the store
 * of the one before it.  The order of the additions is fixed by the input,
 * so the result is deterministic; it is not the object-by-object sum bit
 * for bit.
 * Not collective.
 * Input:  n objects, part[n], values v[n * stride] (stride >= 1), P parts.
 * Output: acc[P] incremented (the caller zeroes it).
 * Errors: ULBA_ERR_ARG (NULL with n > 0, stride < 1).
 */
int ulba_sum_by_part(size_t n, const int *part, const double *v, size_t stride, size_t P,
                     double *acc);

/*
 * ulba_known_sums - the sums ulba_anticipate needs: sums[0] = the weights
 * w[i * stride] and sums[1] = the rates g[i] of the objects whose rate is
 * known (not NaN).  Even and odd objects are summed apart and then added,
 * so that the two chains of additions do not wait for each other; the
 * order is fixed by the input, so the sums are deterministic.
 * Not collective (the caller reduces the sums over the ranks).
 * Input:  n objects, w[n * stride] (stride >= 1), g[n].
 * Output: sums[2].
 * Errors: ULBA_ERR_ARG (NULL with n > 0, sums NULL, stride < 1).
 */
int ulba_known_sums(size_t n, const double *w, size_t stride, const double *g, double sums[2]);

/*
 * ulba_zscores - the paper's z-scores: (x_i - mean) / population standard
 * deviation, 0 for every value when the deviation is 0.
 *
 * Not collective.  Kept for comparison and for the documentation of the
 * small-P trap: one outlier among P otherwise equal values has the z-score
 * sqrt(P - 1) with this population deviation ((P - 1) / sqrt(P) with the
 * sample deviation), whatever its size, so it never exceeds 3 for P <= 10.
 * Input:  P >= 1 values x.
 * Output: z[0..P-1].
 * Errors: ULBA_ERR_ARG for NULL pointers, P == 0 or non-finite values.
 */
int ulba_zscores(size_t P, const double *x, double *z);

/*
 * ulba_robust_scores - modified z-scores (Iglewicz and Hoaglin) used to
 * detect overloading parts:
 *   score_i = (x_i - median) / s,  s = MAD / 0.6745,
 * where MAD is the median of |x_i - median|.  When more than half of the
 * values are equal, MAD is 0 and the scale falls back to the mean absolute
 * deviation around the median, s = 1.2533 * MeanAD.  When that is 0 too (all
 * values equal) every score is 0.  Deviations smaller than 1e-9 times the
 * largest |x_i| are treated as rounding noise, i.e. as 0.
 *
 * Not collective.
 * Input:  P >= 1 values x.
 * Output: score[0..P-1] (score may be x itself); optionally *median and
 *         *scale (NULL to skip).
 * Errors: ULBA_ERR_ARG for NULL x or score, P == 0, non-finite values;
 *         ULBA_ERR_MEMORY when the scratch copy cannot be allocated.
 */
int ulba_robust_scores(size_t P, const double *x, double *score, double *median, double *scale);

/*
 * ulba_detect_overloading - flag the parts whose workload increase rate is
 * an upper outlier.
 *
 * Part p overloads when its robust score (ulba_robust_scores) exceeds
 * threshold AND its rate exceeds the median rate by more than min_excess.
 * Only the upper side counts: a part whose load grows slower than the others
 * is not a problem ULBA can help with.  min_excess is an absolute floor, in
 * rate units, below which a difference of rates is considered irrelevant
 * (the adapter derives it from the average part load); 0 disables it.
 *
 * Not collective.
 * Input:  P >= 1 rates wir; threshold > 0; min_excess >= 0.
 * Output: flags[p] = 1 for overloading parts, 0 otherwise; *num_overloading
 *         (may be NULL) = number of flagged parts.
 * Errors: ULBA_ERR_ARG (NULL, P == 0, threshold <= 0, min_excess < 0, non
 *         finite values), ULBA_ERR_MEMORY.
 */
int ulba_detect_overloading(size_t P, const double *wir, double threshold, double min_excess,
                            int *flags, size_t *num_overloading);

/*
 * ulba_anticipate - object weights that anticipate each object's own
 * growth (ULBA_GROWTH=OBJECT): out[i] = max(0, w_i + H * e_i), with e_i =
 * g_i - G * w_i / W the growth of object i beyond its share of the total
 * growth G (an object that grows like all the others together, in
 * proportion to its weight, changes nothing).  The base method balancing
 * these weights gives less current load to the parts that receive the
 * growing objects, wherever its cuts fall.  Objects with an unknown rate
 * (g_i NaN) keep their weight.
 *
 * Not collective: W and G are sums over every object with a known rate on
 * every rank (the caller reduces them).
 * Input:  n objects, weights w[i * stride] (finite, >= 0), rates g[i] (per
 *         step, NaN = unknown), W >= 0, G finite, horizon H >= 0 (steps).
 * Output: out[n].
 * Errors: ULBA_ERR_ARG (NULL with n > 0, stride < 1, W < 0, non-finite G or
 *         H, H < 0).
 */
int ulba_anticipate(size_t n, const double *w, size_t stride, const double *g, double W, double G,
                    double H, double *out);

/*
 * ulba_object_horizon - ULBA_GROWTH=OBJECT with ULBA_ALPHA=AUTO: the
 * horizon H (steps) over which ulba_anticipate should anticipate growth
 * when the next balance comes once the time lost to imbalance since this
 * one reaches the balance's cost C (Menon's criterion, which the adaptive
 * trigger's ZHAI and ULBA policies approach).  With e_p the rate of part p
 * beyond its share of the total rate, lead = max e_p and lag = max -e_p:
 * after a balance on weights anticipated over H, the slowest parts lead
 * the average by (H - t) lag until step H and the fastest by (t - H) lead
 * after it, so the time lost by step T is lag H^2/2 + lead (T - H)^2/2,
 * and every interval costs 2 C.  The longest interval, the cheapest per
 * step, comes at H = sqrt(2 C lead / (lag (lag + lead))); H = 0 is the
 * plain base method.  H is capped so that the fastest part gets at most
 * max_extra less load than the average (lead H <= max_extra).
 *
 * Not collective.
 * Input:  P parts, rates[P] per step and loads[P] (finite, loads >= 0) in
 *         weight units, C >= 0 in weight units times steps (seconds times
 *         the speed omega), max_extra >= 0 (may be +infinity).
 * Output: *H (0 when no part grows beyond its share, or C = 0);
 *         *interval (may be NULL) the interval length the model predicts.
 * Errors: ULBA_ERR_ARG (NULL, P == 0, non-finite or negative inputs).
 */
int ulba_object_horizon(size_t P, const double *rates, const double *loads, double C,
                        double max_extra, double *H, double *interval);

/*
 * ulba_horizon_cap - lower *H so that no object whose weight
 * ulba_anticipate (same w, g, W, G) makes grow exceeds limit: it crosses
 * it at H = (limit - w_i) / e_i.  Such an object already above the limit
 * makes *H = 0; objects that keep or lose weight, or have no rate, do not
 * bound it (an object above the limit then stays above it at any H).
 *
 * Not collective: the caller takes the minimum over the ranks.
 * Input:  n, w[i * stride], g[n] (NaN = unknown), W >= 0, G finite,
 *         limit >= 0, *H >= 0.
 * Output: *H, at most its input.
 * Errors: ULBA_ERR_ARG (NULL with n > 0, stride < 1, bad W, G, limit, *H).
 */
int ulba_horizon_cap(size_t n, const double *w, size_t stride, const double *g, double W, double G,
                     double limit, double *H);

/*
 * ulba_alpha_cap - lower *alpha so that every overloading part's size in
 * ulba_part_sizes(P, base, flags, *alpha) is at least min_share: those
 * parts shrink as alpha grows, and a base method may refuse a part too
 * small for the heaviest object (zp_native_grain).  The largest such alpha
 * is found by bisection (deterministic); when even alpha = 0 misses it,
 * *alpha becomes 0.  The other parts grow with alpha, so a part of theirs
 * below min_share (the application's own sizes) is not bounded here.
 *
 * Not collective.
 * Input:  as ulba_part_sizes; min_share >= 0 finite; *alpha in [0, 1).
 * Output: *alpha, at most its input; sizes[P] the sizes at that alpha.
 * Errors: ULBA_ERR_ARG (as ulba_part_sizes, or a bad min_share).
 */
int ulba_alpha_cap(size_t P, const double *base, const int *flags, double min_share, double *sizes,
                   double *alpha);

/*
 * ulba_estimate_rates - the model's a and m from measured rates: a is the
 * mean rate of the parts that do not overload, m the mean rate of the
 * overloading parts minus a (clamped at 0).
 *
 * Not collective.
 * Input:  P rates wir, flags from ulba_detect_overloading.
 * Output: *a, *m.  With no overloading part m = 0; with every part
 *         overloading a is the mean of all rates and m = 0.
 * Errors: ULBA_ERR_ARG for NULL pointers, P == 0, non-finite rates.
 */
int ulba_estimate_rates(size_t P, const double *wir, const int *flags, double *a, double *m);

/*
 * ulba_part_sizes - target part sizes of Eq. (6), composed with base sizes.
 *
 * Overloading parts get (1 - alpha) W / P and the others
 * (1 + alpha N / (P - N)) W / P.  Each factor multiplies the base size of its
 * part (heterogeneous capacities set by the application) and the result is
 * renormalised to sum to 1.  If no part overloads, or at least half of them
 * do (2 N >= P), the paper falls back to alpha = 0: the sizes are then the
 * base sizes exactly (renormalised).
 *
 * Not collective.
 * Input:  P >= 1; base[P] non-negative with a positive sum, or NULL for
 *         uniform sizes; flags[P] (non-zero = overloading); alpha in [0, 1).
 * Output: sizes[P] summing to 1; *alpha_used (may be NULL): alpha, or 0 when
 *         the fallback applied.
 * Errors: ULBA_ERR_ARG (NULL, P == 0, alpha outside [0, 1), negative or
 *         non-finite base sizes, base sizes summing to 0, or every part
 *         with a positive factor having base size 0).
 */
int ulba_part_sizes(size_t P, const double *base, const int *flags, double alpha, double *sizes,
                    double *alpha_used);

/* The model of section III (Table I), for one application state. */
typedef struct ulba_model {
  double P;     /* number of parts (PEs), >= 2 */
  double N;     /* number of overloading parts, 0 <= N < P */
  double a;     /* work added to every part per iteration, >= 0 */
  double m;     /* extra work added to each overloading part per iteration, >= 0 */
  double W;     /* total workload at the load-balancing step, W_tot(LB_p), > 0 */
  double C;     /* cost of one load-balancing step in seconds, >= 0 */
  double omega; /* speed of one part in work units per second, > 0 */
} ulba_model;

/*
 * ulba_model_check - ULBA_OK when every field of *model is finite and in the
 * range documented in ulba_model, ULBA_ERR_ARG otherwise.  Not collective.
 */
int ulba_model_check(const ulba_model *model);

/*
 * ulba_sigma_minus - Eq. (8): the LB lower bound, the number of iterations
 * after which the overloading parts, started at (1 - alpha) W / P, have
 * caught up with the others, floor((1 + N / (P - N)) alpha W / (m P)).
 *
 * Not collective.
 * Input:  a checked model, alpha in [0, 1).
 * Output: *sigma_minus (a whole number as a double); 0 when alpha == 0 or
 *         N == 0; +infinity when m == 0 and alpha > 0 and N > 0 (the
 *         overloading parts never catch up).
 * Errors: ULBA_ERR_ARG.
 */
int ulba_sigma_minus(const ulba_model *model, double alpha, double *sigma_minus);

/*
 * ulba_sigma_plus - Eq. (12): the LB upper bound sigma_minus + max(tau1,
 * tau2), where tau solves
 *   m_hat/(2 omega) tau^2 - alpha N dW / ((P-N) omega P) tau
 *     - [alpha N / (P-N) (W + sigma_minus dW) / (omega P) + C] = 0.
 * With alpha = 0 it is Menon's interval sqrt(2 C omega / m_hat).
 *
 * Not collective.
 * Input:  a checked model, alpha in [0, 1).
 * Output: *sigma_plus >= *sigma_minus; +infinity when m_hat == 0 (no
 *         imbalance is ever created, so no rebalancing pays off).
 * Errors: ULBA_ERR_ARG.
 */
int ulba_sigma_plus(const ulba_model *model, double alpha, double *sigma_plus);

/*
 * ulba_menon_tau - Menon et al.'s optimal interval tau = sqrt(2 C omega /
 * m_hat) of the standard method (the paper writes sqrt(2 C / m_hat) with C in
 * work units, i.e. omega = 1).
 *
 * Not collective.
 * Input:  m_hat >= 0, C >= 0, omega > 0.
 * Output: *tau; +infinity when m_hat == 0.
 * Errors: ULBA_ERR_ARG for negative or non-finite inputs or omega <= 0.
 */
int ulba_menon_tau(double m_hat, double C, double omega, double *tau);

/*
 * ulba_overhead - Eq. (11): the overhead of underloading, the work one part
 * that does not overload receives from the overloading parts at the next
 * step, alpha N / (P - N) W_tot(LB_p + sigma_minus + tau) / (omega P), in
 * seconds, with W_tot(i) growing by dW per iteration.
 *
 * Not collective.
 * Input:  a checked model, alpha in [0, 1), tau >= 0 (iterations after
 *         sigma_minus).
 * Output: *overhead in seconds (0 when alpha == 0 or N == 0).
 * Errors: ULBA_ERR_ARG, also when sigma_minus is infinite and alpha N > 0.
 */
int ulba_overhead(const ulba_model *model, double alpha, double tau, double *overhead);

/*
 * ulba_step_time - Eq. (5) (Eq. (2) when alpha == 0): the parallel time of
 * the t-th iteration after a load-balancing step whose total workload was
 * model->W, i.e. the larger of the loads of a part that does not overload
 * and of an overloading part, divided by omega.
 *
 * Not collective.
 * Input:  a checked model, alpha in [0, 1), t >= 0.
 * Output: *time in seconds.
 * Errors: ULBA_ERR_ARG.
 */
int ulba_step_time(const ulba_model *model, double alpha, double t, double *time);

/*
 * ulba_interval_time - Eq. (3) with Eq. (5): C plus the sum of the step
 * times of iterations t = 0 .. length-1 after a load-balancing step at which
 * the total workload was model->W.  Computed in closed form (O(1)).
 *
 * Not collective.
 * Input:  a checked model, alpha in [0, 1), length >= 0 iterations.
 * Output: *time in seconds (C alone when length == 0).
 * Errors: ULBA_ERR_ARG.
 */
int ulba_interval_time(const ulba_model *model, double alpha, long length, double *time);

/*
 * ulba_interval_length - the number of iterations the sigma-plus policy
 * waits after a load-balancing step: max(1, round(sigma_plus)), capped at
 * cap (use the remaining number of iterations; cap >= 1).
 *
 * Not collective.
 * Errors: ULBA_ERR_ARG (bad model or alpha, cap < 1).
 */
int ulba_interval_length(const ulba_model *model, double alpha, long cap, long *length);

/*
 * ulba_predicted_time - Eq. (4) over a horizon with the sigma-plus policy:
 * a load-balancing step now (cost C, total workload model->W), then one
 * every ulba_interval_length iterations, each recomputed from the workload
 * W + k dW reached at its own step, until horizon iterations have run.
 *
 * Not collective.
 * Input:  a checked model, alpha in [0, 1), horizon >= 1 iterations.
 * Output: *time in seconds; *num_lb (may be NULL) the number of
 *         load-balancing steps including the first.
 * Errors: ULBA_ERR_ARG.
 */
int ulba_predicted_time(const ulba_model *model, double alpha, long horizon, double *time,
                        long *num_lb);

/*
 * ulba_auto_alpha - ULBA_ALPHA=AUTO: the alpha in [0, alpha_max] that
 * minimises the model's predicted time.
 *
 * What is minimised:
 *  - horizon >= 1: ulba_predicted_time(model, alpha, horizon), the total
 *    time of the next horizon iterations under the sigma-plus policy with
 *    this alpha at every step;
 *  - horizon == 0: the time per iteration of one load-balancing cycle,
 *    ulba_interval_time(model, alpha, L) / L with L =
 *    ulba_interval_length(model, alpha, 1000000), i.e. the long-run cost
 *    rate if the next cycle repeated itself.
 * The search evaluates a grid of 400 values k alpha_max / 399 (alpha = 0 is
 * always a candidate, so the answer is never worse than the standard method
 * in the model), then refines around the best grid value by golden-section
 * steps, keeping the best value seen.  When no part overloads, m == 0, or
 * 2 N >= P, the answer is 0.
 *
 * Not collective.
 * Input:  a checked model, horizon >= 0, alpha_max in [0, 1).
 * Output: *alpha, and *objective (may be NULL) the minimised value.
 * Errors: ULBA_ERR_ARG.
 */
int ulba_auto_alpha(const ulba_model *model, long horizon, double alpha_max, double *alpha,
                    double *objective);

/* Model quantities exposed to the adaptive trigger and to users. */
typedef struct ulba_summary {
  double P;           /* number of parts */
  double N;           /* number of overloading parts */
  double alpha;       /* alpha used (0 after the fallback) */
  double a;           /* estimated a (work per part per iteration) */
  double m;           /* estimated m (extra work per overloading part) */
  double a_hat;       /* a + m N / P */
  double m_hat;       /* m (P - N) / P */
  double sigma_minus; /* Eq. (8), iterations */
  double sigma_plus;  /* Eq. (12), iterations */
  double tau;         /* Menon's sqrt(2 C omega / m_hat), iterations */
  double overhead;    /* Eq. (11) at tau = sigma_plus - sigma_minus, seconds */
} ulba_summary;

/*
 * ulba_summarize - fill *summary with the model quantities for alpha.
 *
 * Not collective.
 * Input:  a checked model, alpha in [0, 1) (the fallback to 0 when 2 N >= P
 *         is applied here too).
 * Output: *summary; infinite bounds are reported as +infinity.
 * Errors: ULBA_ERR_ARG.
 */
int ulba_summarize(const ulba_model *model, double alpha, ulba_summary *summary);

/* How ulba_relabel solves the assignment problem. */
typedef enum ulba_relabel_method {
  ULBA_RELABEL_AUTO = 0,  /* EXACT up to ULBA_RELABEL_EXACT_MAX parts, else GREEDY */
  ULBA_RELABEL_EXACT = 1, /* Hungarian algorithm, O(P^3): a maximum-overlap permutation */
  ULBA_RELABEL_GREEDY = 2 /* pairs by decreasing overlap, O(P^2 log P): at least half the optimum */
} ulba_relabel_method;

/* Largest P for which ULBA_RELABEL_AUTO uses the exact algorithm. */
#define ULBA_RELABEL_EXACT_MAX 512

/*
 * ulba_relabel - a permutation of part labels maximising the total overlap.
 *
 * overlap[i * P + j] is how much of what matters (for ULBA: the weight of
 * the growing objects, plus a small multiple of all weight to keep other
 * objects in place) the base method's part i has in common with label j.
 * The function returns perm with perm[i] = the label given to part i, a
 * permutation of 0..P-1 maximising sum_i overlap[i * P + perm[i]] (EXACT)
 * or at least half of that maximum when the entries are non-negative
 * (GREEDY).  The answer depends only on the matrix, never on memory
 * addresses or timing; GREEDY breaks ties towards smaller (i, j).
 *
 * Not collective.
 * Input:  P >= 1, overlap[P * P] finite, method.
 * Output: perm[P]; *total (may be NULL) the achieved overlap.
 * Errors: ULBA_ERR_ARG (NULL, P == 0, non-finite entries, unknown method),
 *         ULBA_ERR_MEMORY.
 */
int ulba_relabel(size_t P, const double *overlap, ulba_relabel_method method, int *perm,
                 double *total);

#ifdef __cplusplus
}
#endif

#endif /* ULBA_CORE_H */
