/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of ulba/ulba_core.c against values computed by hand from the
 * equations of Boulmier et al. (sections III.A and III.B). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ulba_test.h"

#include "ulba_core.h"
#include "ulba_study.h"

static const size_t test_pes[] = {4, 8, 16, 64};
#define NUM_TEST_PES (sizeof test_pes / sizeof test_pes[0])

/* The model used by the hand computations below. */
static ulba_model hand_model(void)
{
  ulba_model q = {.P = 10, .N = 2, .a = 1, .m = 4, .W = 1000, .C = 20, .omega = 1};
  return q;
}

/* The slope of exact lines is recovered, with and without explicit times. */
static void ulba_slope_recovers_lines_and_parabola(void **state)
{
  (void)state;
  double t[5] = {0.0, 0.5, 2.0, 3.5, 7.0}, y[5], s = -1.0;
  for (int i = 0; i < 5; ++i) y[i] = 3.0 + 2.5 * t[i];
  assert_int_equal(ulba_slope(5, t, y, &s), ULBA_OK);
  assert_close(s, 2.5, 1e-14);
  /* y = t^2 on t = 0..3: by hand tbar = 1.5, ybar = 3.5, Sxy = 15, Sxx = 5. */
  double sq[4] = {0.0, 1.0, 4.0, 9.0};
  assert_int_equal(ulba_slope(4, NULL, sq, &s), ULBA_OK);
  assert_close(s, 3.0, 1e-14);
  /* Large loads with small changes: centring keeps the slope exact. */
  double big[3] = {1e12, 1e12 + 1.0, 1e12 + 2.0};
  assert_int_equal(ulba_slope(3, NULL, big, &s), ULBA_OK);
  assert_close(s, 1.0, 1e-9);
}

/* One sample carries no trend, equal times make the slope undefined. */
static void ulba_slope_handles_degenerate_series(void **state)
{
  (void)state;
  double y[2] = {4.0, 5.0}, t[2] = {1.0, 1.0}, s = -1.0;
  assert_int_equal(ulba_slope(1, NULL, y, &s), ULBA_OK);
  assert_true(s == 0.0);
  assert_int_equal(ulba_slope(2, t, y, &s), ULBA_ERR_ARG);
  assert_int_equal(ulba_slope(2, NULL, NULL, &s), ULBA_ERR_ARG);
  y[1] = NAN;
  assert_int_equal(ulba_slope(2, NULL, y, &s), ULBA_ERR_ARG);
}

/* The two-pass slope as ulba_slope computed it before the basis existed:
 * the reference for the bit-for-bit test below. */
static int reference_slope(size_t n, const double *t, const double *y, double *slope)
{
  double tbar = 0.0, ybar = 0.0, sxy = 0.0, sxx = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (!isfinite(y[i]) || (t != NULL && !isfinite(t[i]))) return ULBA_ERR_ARG;
  }
  if (n < 2) {
    *slope = 0.0;
    return ULBA_OK;
  }
  for (size_t i = 0; i < n; ++i) {
    tbar += t != NULL ? t[i] : (double)i;
    ybar += y[i];
  }
  tbar /= (double)n;
  ybar /= (double)n;
  for (size_t i = 0; i < n; ++i) {
    double dt = (t != NULL ? t[i] : (double)i) - tbar;
    sxy += dt * (y[i] - ybar);
    sxx += dt * dt;
  }
  if (!(sxx > 0.0)) return ULBA_ERR_ARG;
  *slope = sxy / sxx;
  return ULBA_OK;
}

/* Fitting many series over one basis of times gives every slope and error
 * of ulba_slope (and of the two-pass reference) bit for bit: the adapter
 * relies on it to keep its answers when it fits every object this way. */
static void ulba_slope_fit_equals_ulba_slope_bit_for_bit(void **state)
{
  (void)state;
  double t[7] = {3.0, 4.0, 5.0, 6.0, 9.0, 10.0, 17.0}, y[7], tie[2] = {2.0, 2.0};
  for (size_t n = 0; n <= 7; ++n)
    for (int series = 0; series < 50; ++series) {
      ulba_slope_basis bt, bi;
      assert_int_equal(ulba_slope_basis_init(n, t, &bt), ULBA_OK);
      assert_int_equal(ulba_slope_basis_init(n, NULL, &bi), ULBA_OK);
      /* Loads of very different magnitudes, with small irregular changes
       * (a fixed formula: the test does not depend on a random generator). */
      for (size_t k = 0; k < n; ++k)
        y[k] = pow(10.0, series % 13) * (1.0 + 0.37 * series) + sin(1.7 * series + 0.9 * (double)k);
      for (int with_t = 0; with_t < 2; ++with_t) {
        const double *tt = with_t ? t : NULL;
        double a = -1.0, b = -2.0, c = -3.0;
        int ra = ulba_slope_fit(with_t ? &bt : &bi, y, &a), rb = ulba_slope(n, tt, y, &b);
        int rc = reference_slope(n, tt, y, &c);
        assert_int_equal(ra, rb);
        assert_int_equal(ra, rc);
        if (ra == ULBA_OK) {
          assert_true(memcmp(&a, &b, sizeof a) == 0);
          assert_true(memcmp(&a, &c, sizeof a) == 0);
        }
      }
    }
  /* The errors are those of ulba_slope too: equal times, a load that is not
   * a number, no loads. */
  {
    ulba_slope_basis b;
    double s = 0.0, two[2] = {1.0, 2.0};
    assert_int_equal(ulba_slope_basis_init(2, tie, &b), ULBA_OK);
    assert_int_equal(ulba_slope_fit(&b, two, &s), ULBA_ERR_ARG);
    assert_int_equal(ulba_slope_basis_init(2, NULL, &b), ULBA_OK);
    two[1] = NAN;
    assert_int_equal(ulba_slope_fit(&b, two, &s), ULBA_ERR_ARG);
    assert_int_equal(ulba_slope_fit(&b, NULL, &s), ULBA_ERR_ARG);
    assert_int_equal(ulba_slope_basis_init(2, NULL, NULL), ULBA_ERR_ARG);
  }
}

/* The paper's z-score cannot exceed 3 for one outlier when P <= 10: by hand,
 * the outlier's z is sqrt(P - 1) with the population deviation and
 * (P - 1) / sqrt(P) with the sample deviation, whatever its size. */
static void ulba_population_zscore_never_fires_up_to_ten_pes(void **state)
{
  (void)state;
  for (size_t P = 2; P <= 16; ++P) {
    double x[16], z[16];
    for (size_t i = 0; i < P; ++i) x[i] = 1.0;
    x[P - 1] = 1e6; /* as extreme an outlier as one likes */
    assert_int_equal(ulba_zscores(P, x, z), ULBA_OK);
    assert_close(z[P - 1], sqrt((double)(P - 1)), 1e-12);
    double z_sample = z[P - 1] * sqrt((double)(P - 1) / (double)P);
    assert_close(z_sample, (double)(P - 1) / sqrt((double)P), 1e-12);
    if (P <= 10)
      assert_false(z[P - 1] > 3.0 * (1.0 + 1e-12) || z_sample > 3.0);
    else
      assert_true(z[P - 1] > 3.0 && z_sample > 3.0);
  }
}

/* With every other rate equal, the MeanAD fallback gives one outlier the
 * score P / 1.2533, computed here by hand. */
static void ulba_robust_score_of_one_outlier_among_ties(void **state)
{
  (void)state;
  for (size_t k = 0; k < NUM_TEST_PES; ++k) {
    size_t P = test_pes[k];
    double x[64], sc[64], med, scale;
    for (size_t i = 0; i < P; ++i) x[i] = 2.0;
    x[1] = 5.0;
    assert_int_equal(ulba_robust_scores(P, x, sc, &med, &scale), ULBA_OK);
    assert_close(med, 2.0, 0.0);
    assert_close(scale, ULBA_MEANAD_FACTOR * 3.0 / (double)P, 1e-14);
    assert_close(sc[1], (double)P / ULBA_MEANAD_FACTOR, 1e-12);
    assert_true(sc[0] == 0.0);
  }
}

/* One growing PE is flagged, alone, at P = 4, 8, 16, 64, wherever it is and
 * whether the other rates are tied or noisy. */
static void ulba_detects_one_growing_pe_at_small_and_large_p(void **state)
{
  (void)state;
  for (size_t k = 0; k < NUM_TEST_PES; ++k) {
    size_t P = test_pes[k];
    for (uint64_t seed = 0; seed < 200; ++seed) {
      zp_rng rng;
      zp_rng_seed_stream(&rng, seed, P);
      double x[64];
      int flags[64];
      double noise = seed == 0 ? 0.0 : 0.05;
      for (size_t i = 0; i < P; ++i) x[i] = 1.0 + zp_rng_range(&rng, -noise, noise);
      size_t grower = (size_t)(seed % P);
      x[grower] = 2.0;
      size_t n = 99;
      assert_int_equal(ulba_detect_overloading(P, x, ULBA_DEFAULT_THRESHOLD, 0.1, flags, &n),
                       ULBA_OK);
      assert_int_equal(n, 1);
      assert_int_equal(flags[grower], 1);
    }
  }
}

/* Uniform growth flags nobody, even with rounding differences of a few ulps. */
static void ulba_uniform_growth_flags_nobody(void **state)
{
  (void)state;
  for (size_t k = 0; k < NUM_TEST_PES; ++k) {
    size_t P = test_pes[k];
    double x[64];
    int flags[64];
    size_t n = 99;
    for (size_t i = 0; i < P; ++i) x[i] = 0.1 * 3.0;
    x[P / 2] = 0.3; /* 0.1 * 3.0 and 0.3 differ in the last bit */
    assert_int_equal(ulba_detect_overloading(P, x, ULBA_DEFAULT_THRESHOLD, 0.0, flags, &n),
                     ULBA_OK);
    assert_int_equal(n, 0);
    for (size_t i = 0; i < P; ++i) x[i] = 0.0; /* static workload */
    assert_int_equal(ulba_detect_overloading(P, x, ULBA_DEFAULT_THRESHOLD, 0.0, flags, &n),
                     ULBA_OK);
    assert_int_equal(n, 0);
  }
}

/* Rate noise below the relevance floor flags nobody at every P; at P = 64
 * the robust score alone keeps false alarms rare without any floor. */
static void ulba_noise_flags_nobody(void **state)
{
  (void)state;
  for (size_t k = 0; k < NUM_TEST_PES; ++k) {
    size_t P = test_pes[k];
    long alarms_without_floor = 0;
    for (uint64_t seed = 0; seed < 1000; ++seed) {
      zp_rng rng;
      zp_rng_seed_stream(&rng, seed, 100 + P);
      double x[64];
      int flags[64];
      size_t n = 99;
      for (size_t i = 0; i < P; ++i) x[i] = 1.0 + zp_rng_range(&rng, -0.05, 0.05);
      assert_int_equal(ulba_detect_overloading(P, x, ULBA_DEFAULT_THRESHOLD, 0.1, flags, &n),
                       ULBA_OK);
      assert_int_equal(n, 0);
      assert_int_equal(ulba_detect_overloading(P, x, ULBA_DEFAULT_THRESHOLD, 0.0, flags, &n),
                       ULBA_OK);
      alarms_without_floor += n > 0;
    }
    /* For uniform noise the MAD is a quarter of the range, so scores stay
     * near 1.35 once P is large; at P = 64 fewer than 1% of runs alarm. */
    if (P == 64) assert_true(alarms_without_floor <= 10);
  }
}

/* Several growing PEs in a minority are all flagged, the slower side never. */
static void ulba_detects_a_group_and_ignores_slow_pes(void **state)
{
  (void)state;
  double x[64];
  int flags[64];
  size_t n = 0;
  for (size_t i = 0; i < 64; ++i) x[i] = 1.0 + 0.01 * (double)(i % 7);
  x[3] = x[40] = x[41] = 3.0;
  x[10] = -5.0; /* shrinking, not overloading */
  assert_int_equal(ulba_detect_overloading(64, x, 3.0, 0.0, flags, &n), ULBA_OK);
  assert_int_equal(n, 3);
  assert_true(flags[3] && flags[40] && flags[41] && !flags[10]);
}

/* Bad arguments are refused. */
static void ulba_detection_refuses_bad_arguments(void **state)
{
  (void)state;
  double x[4] = {1, 2, 3, 4};
  int f[4];
  assert_int_equal(ulba_detect_overloading(4, x, 0.0, 0.0, f, NULL), ULBA_ERR_ARG);
  assert_int_equal(ulba_detect_overloading(4, x, 3.0, -1.0, f, NULL), ULBA_ERR_ARG);
  assert_int_equal(ulba_detect_overloading(0, x, 3.0, 0.0, f, NULL), ULBA_ERR_ARG);
  x[2] = INFINITY;
  assert_int_equal(ulba_detect_overloading(4, x, 3.0, 0.0, f, NULL), ULBA_ERR_ARG);
}

/* a and m are the mean rates of the two groups. */
static void ulba_estimates_a_and_m_from_rates(void **state)
{
  (void)state;
  double x[5] = {1.0, 3.0, 9.0, 1.0, 11.0};
  int f[5] = {0, 0, 1, 0, 1};
  double a, m;
  assert_int_equal(ulba_estimate_rates(5, x, f, &a, &m), ULBA_OK);
  assert_close(a, 5.0 / 3.0, 1e-15);
  assert_close(m, 10.0 - 5.0 / 3.0, 1e-15);
  int none[5] = {0};
  assert_int_equal(ulba_estimate_rates(5, x, none, &a, &m), ULBA_OK);
  assert_close(a, 5.0, 1e-15);
  assert_true(m == 0.0);
}

/* Eq. (6) by hand: P = 5, N = 1, alpha = 0.4 gives 0.12 and 0.22. */
static void ulba_part_sizes_follow_eq6(void **state)
{
  (void)state;
  int f[5] = {0, 0, 1, 0, 0};
  double s[5], used = -1.0;
  assert_int_equal(ulba_part_sizes(5, NULL, f, 0.4, s, &used), ULBA_OK);
  assert_close(used, 0.4, 0.0);
  for (int p = 0; p < 5; ++p) assert_close(s[p], p == 2 ? 0.6 / 5.0 : 1.1 / 5.0, 1e-15);
  /* Heterogeneous capacities 2:1:1:1:1 with part 0 overloading: raw sizes
   * 2/6 * 0.6 = 0.2 and 1/6 * (1 + 0.4 / 4) = 0.18333, renormalised. */
  double base[5] = {2, 1, 1, 1, 1};
  int f0[5] = {1, 0, 0, 0, 0};
  assert_int_equal(ulba_part_sizes(5, base, f0, 0.4, s, NULL), ULBA_OK);
  double raw0 = 2.0 / 6.0 * 0.6, raw1 = 1.0 / 6.0 * 1.1, sum = raw0 + 4 * raw1;
  assert_close(s[0], raw0 / sum, 1e-15);
  for (int p = 1; p < 5; ++p) assert_close(s[p], raw1 / sum, 1e-15);
}

/* Random base sizes, flags and alphas: sizes sum to 1, overloading parts
 * lose exactly the factor (1 - alpha) relative to the others' (1 + ...). */
static void ulba_part_sizes_sum_to_one(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed_stream(&rng, 7, 7);
  for (int trial = 0; trial < 500; ++trial) {
    size_t P = 2 + (size_t)(zp_rng_next(&rng) % 63);
    double base[64], s[64], used;
    int f[64];
    for (size_t p = 0; p < P; ++p) {
      base[p] = zp_rng_range(&rng, 0.1, 3.0);
      f[p] = zp_rng_range(&rng, 0.0, 1.0) < 0.2;
    }
    double alpha = zp_rng_range(&rng, 0.0, 0.99);
    assert_int_equal(ulba_part_sizes(P, base, f, alpha, s, &used), ULBA_OK);
    double sum = 0.0;
    size_t N = 0;
    for (size_t p = 0; p < P; ++p) {
      sum += s[p];
      N += (size_t)f[p];
    }
    assert_close(sum, 1.0, 1e-14);
    double expect_used = (N > 0 && 2 * N < P) ? alpha : 0.0;
    assert_true(used == expect_used);
    double up = 1.0 + expect_used * (double)N / (double)(P - N);
    for (size_t p = 1; p < P; ++p) {
      double r = (s[p] / base[p]) / (s[0] / base[0]);
      double fp = f[p] ? 1.0 - expect_used : up, f0 = f[0] ? 1.0 - expect_used : up;
      assert_close(r, fp / f0, 1e-12);
    }
  }
}

/* At N >= P/2 the paper falls back to alpha = 0: plain uniform sizes. */
static void ulba_falls_back_when_half_the_pes_overload(void **state)
{
  (void)state;
  int half[4] = {1, 0, 1, 0};
  double s[5], used = -1.0;
  assert_int_equal(ulba_part_sizes(4, NULL, half, 0.5, s, &used), ULBA_OK);
  assert_true(used == 0.0);
  for (int p = 0; p < 4; ++p) assert_close(s[p], 0.25, 1e-15);
  int two_of_five[5] = {1, 0, 1, 0, 0}; /* 2 N = 4 < 5: still underloaded */
  assert_int_equal(ulba_part_sizes(5, NULL, two_of_five, 0.5, s, &used), ULBA_OK);
  assert_close(used, 0.5, 0.0);
  assert_close(s[0], 0.5 / 5.0, 1e-15);
  assert_close(s[1], (1.0 + 0.5 * 2.0 / 3.0) / 5.0, 1e-15);
  ulba_model q = hand_model();
  q.N = 5;
  ulba_summary sum;
  assert_int_equal(ulba_summarize(&q, 0.5, &sum), ULBA_OK);
  assert_true(sum.alpha == 0.0 && sum.sigma_minus == 0.0);
  double a = -1.0;
  assert_int_equal(ulba_auto_alpha(&q, 100, 0.99, &a, NULL), ULBA_OK);
  assert_true(a == 0.0);
}

/* alpha = 0 returns the application's base sizes, whatever the flags. */
static void ulba_alpha_zero_gives_the_base_sizes(void **state)
{
  (void)state;
  double base[6] = {0.5, 2.0, 1.0, 0.0, 3.0, 1.5}, s[6];
  int f[6] = {1, 0, 0, 0, 1, 0};
  assert_int_equal(ulba_part_sizes(6, base, f, 0.0, s, NULL), ULBA_OK);
  for (int p = 0; p < 6; ++p) assert_close(s[p], base[p] / 8.0, 1e-15);
  assert_int_equal(ulba_part_sizes(6, base, f, 1.0, s, NULL), ULBA_ERR_ARG);
  assert_int_equal(ulba_part_sizes(6, base, f, -0.1, s, NULL), ULBA_ERR_ARG);
}

/* Eq. (8) by hand: floor((1 + 2/8) 0.5 1000 / (4 10)) = floor(15.625) = 15,
 * and it is the last iteration at which an explicitly simulated
 * overloading PE is still below the others. */
static void ulba_sigma_minus_matches_hand_value_and_simulation(void **state)
{
  (void)state;
  ulba_model q = hand_model();
  double sm = -1.0;
  assert_int_equal(ulba_sigma_minus(&q, 0.5, &sm), ULBA_OK);
  assert_true(sm == 15.0);
  double over = (1.0 - 0.5) * q.W / q.P, rest = (1.0 + 0.5 * 2.0 / 8.0) * q.W / q.P;
  long t = 0;
  while (over + (q.a + q.m) * (double)(t + 1) <= rest + q.a * (double)(t + 1)) ++t;
  assert_true((double)t == sm);
  assert_int_equal(ulba_sigma_minus(&q, 0.0, &sm), ULBA_OK);
  assert_true(sm == 0.0);
  q.m = 0.0;
  assert_int_equal(ulba_sigma_minus(&q, 0.5, &sm), ULBA_OK);
  assert_true(isinf(sm));
}

/* Eq. (12) by hand: 1.6 tau^2 - 0.225 tau - 35.875 = 0, and the root makes
 * Eq. (9) hold (imbalance cost = overhead + C). */
static void ulba_sigma_plus_solves_eq12(void **state)
{
  (void)state;
  ulba_model q = hand_model();
  double sp = -1.0;
  assert_int_equal(ulba_sigma_plus(&q, 0.5, &sp), ULBA_OK);
  /* m_hat = 4 * 8 / 10 = 3.2, dW = 18, alpha N / (P - N) = 0.125,
   * constant = 0.125 * (1000 + 15 * 18) / 10 + 20 = 35.875. */
  double tau = (0.225 + sqrt(0.225 * 0.225 + 4.0 * 1.6 * 35.875)) / (2.0 * 1.6);
  assert_close(sp, 15.0 + tau, 1e-13);
  double overhead;
  assert_int_equal(ulba_overhead(&q, 0.5, tau, &overhead), ULBA_OK);
  assert_close(3.2 / 2.0 * tau * tau, overhead + q.C, 1e-12);
  /* Eq. (11) by hand at tau = 4: 0.125 (1000 + 19 * 18) / 10 = 16.775. */
  assert_int_equal(ulba_overhead(&q, 0.5, 4.0, &overhead), ULBA_OK);
  assert_close(overhead, 16.775, 1e-14);
}

/* With alpha = 0, sigma-plus is Menon's tau = sqrt(2 C omega / m_hat). */
static void ulba_sigma_plus_at_alpha_zero_is_menon_tau(void **state)
{
  (void)state;
  ulba_model q = hand_model();
  double sp, tau;
  assert_int_equal(ulba_sigma_plus(&q, 0.0, &sp), ULBA_OK);
  assert_int_equal(ulba_menon_tau(3.2, 20.0, 1.0, &tau), ULBA_OK);
  assert_close(tau, sqrt(12.5), 1e-15);
  assert_close(sp, tau, 1e-14);
  q.omega = 2.0; /* C = 20 s is now 40 work units: sqrt(80 / 3.2) = 5 */
  assert_int_equal(ulba_sigma_plus(&q, 0.0, &sp), ULBA_OK);
  assert_close(sp, 5.0, 1e-14);
  assert_int_equal(ulba_menon_tau(0.0, 20.0, 1.0, &tau), ULBA_OK);
  assert_true(isinf(tau));
  ulba_summary s;
  assert_int_equal(ulba_summarize(&q, 0.0, &s), ULBA_OK);
  assert_close(s.tau, 5.0, 1e-14);
  assert_close(s.m_hat, 3.2, 1e-15);
  assert_close(s.a_hat, 1.8, 1e-15);
}

/* Eq. (3) with Eq. (5) in closed form equals the sum, over iterations, of
 * the largest load of explicitly simulated PEs. */
static void ulba_interval_time_matches_explicit_pes(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed_stream(&rng, 11, 0);
  for (int trial = 0; trial < 300; ++trial) {
    ulba_model q;
    q.P = (double)(2 + zp_rng_next(&rng) % 12);
    q.N = (double)(zp_rng_next(&rng) % (uint64_t)q.P);
    q.a = zp_rng_range(&rng, 0.0, 3.0);
    q.m = trial % 10 == 0 ? 0.0 : zp_rng_range(&rng, 0.0, 20.0);
    q.W = zp_rng_range(&rng, 10.0, 1000.0);
    q.C = zp_rng_range(&rng, 0.0, 50.0);
    q.omega = zp_rng_range(&rng, 0.5, 2.0);
    double alpha = trial % 7 == 0 ? 0.0 : zp_rng_range(&rng, 0.0, 0.99);
    long L = (long)(zp_rng_next(&rng) % 60);
    double load[16], expect = q.C;
    int P = (int)q.P, N = (int)q.N;
    for (int p = 0; p < P; ++p)
      load[p] = p < N ? (1.0 - alpha) * q.W / q.P : (1.0 + alpha * q.N / (q.P - q.N)) * q.W / q.P;
    for (long t = 0; t < L; ++t) {
      double mx = 0.0;
      for (int p = 0; p < P; ++p) {
        mx = fmax(mx, load[p]);
        load[p] += q.a + (p < N ? q.m : 0.0);
      }
      expect += mx / q.omega;
      double st;
      assert_int_equal(ulba_step_time(&q, alpha, (double)t, &st), ULBA_OK);
      assert_close(st, mx / q.omega, 1e-12);
    }
    double got;
    assert_int_equal(ulba_interval_time(&q, alpha, L, &got), ULBA_OK);
    assert_close(got, expect, 1e-11);
  }
}

/* A random model of the size of the paper's Table II, smaller numbers. */
static ulba_model random_model(zp_rng *rng)
{
  ulba_instance inst;
  assert_int_equal(ulba_study_sample(rng, 0.0, &inst), ULBA_OK);
  return inst.model;
}

/* The objective ulba_auto_alpha minimises at alpha: the predicted time of
 * horizon iterations, or with horizon 0 the time per iteration of one
 * interval. */
static double auto_objective(const ulba_model *q, double alpha, long horizon)
{
  double f;
  long L;
  if (horizon > 0) {
    assert_int_equal(ulba_predicted_time(q, alpha, horizon, &f, NULL), ULBA_OK);
    return f;
  }
  assert_int_equal(ulba_interval_length(q, alpha, 1000000, &L), ULBA_OK);
  assert_int_equal(ulba_interval_time(q, alpha, L, &f), ULBA_OK);
  return f / (double)L;
}

/* AUTO is never worse than alpha = 0 and within 0.1% of the best of a
 * fixed grid of alphas, for both of its objectives. */
static void ulba_auto_alpha_beats_fixed_alphas(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed_stream(&rng, 3, 3);
  for (int trial = 0; trial < 60; ++trial) {
    ulba_model q = random_model(&rng);
    for (int mode = 0; mode < 2; ++mode) {
      long horizon = mode == 0 ? 100 : 0;
      double alpha, obj;
      assert_int_equal(ulba_auto_alpha(&q, horizon, 0.99, &alpha, &obj), ULBA_OK);
      assert_true(alpha >= 0.0 && alpha <= 0.99);
      /* The reported objective is the objective of the reported alpha. */
      assert_close(obj, auto_objective(&q, alpha, horizon), 1e-14);
      for (int k = 0; k < 100; ++k) {
        double f = auto_objective(&q, k / 100.0, horizon);
        if (k == 0)
          assert_true(obj <= f);
        else
          assert_true(obj <= f * (1.0 + 1e-3));
      }
    }
  }
}

/* Without imbalance growth AUTO answers 0 and sigma-plus is infinite. */
static void ulba_auto_alpha_is_zero_without_growth(void **state)
{
  (void)state;
  ulba_model q = hand_model();
  q.m = 0.0;
  double alpha = -1.0, sp = 0.0;
  assert_int_equal(ulba_auto_alpha(&q, 100, 0.99, &alpha, NULL), ULBA_OK);
  assert_true(alpha == 0.0);
  assert_int_equal(ulba_sigma_plus(&q, 0.3, &sp), ULBA_OK);
  assert_true(isinf(sp));
  long L = 0, nlb = 0;
  assert_int_equal(ulba_interval_length(&q, 0.3, 77, &L), ULBA_OK);
  assert_int_equal(L, 77);
  double t;
  assert_int_equal(ulba_predicted_time(&q, 0.0, 50, &t, &nlb), ULBA_OK);
  assert_int_equal(nlb, 1);
  assert_int_equal(ulba_auto_alpha(&q, 100, 1.0, &alpha, NULL), ULBA_ERR_ARG);
}

/* Maximum overlap by brute force over all permutations of 0..P-1. */
static double brute_force_overlap(size_t P, const double *w)
{
  int perm[8];
  for (size_t i = 0; i < P; ++i) perm[i] = (int)i;
  double best = -INFINITY;
  for (;;) {
    double s = 0.0;
    for (size_t i = 0; i < P; ++i) s += w[i * P + (size_t)perm[i]];
    best = fmax(best, s);
    /* next permutation in lexicographic order */
    long i = (long)P - 2;
    while (i >= 0 && perm[i] > perm[i + 1]) --i;
    if (i < 0) break;
    long j = (long)P - 1;
    while (perm[j] < perm[i]) --j;
    int tmp = perm[i];
    perm[i] = perm[j];
    perm[j] = tmp;
    for (long l = i + 1, r = (long)P - 1; l < r; ++l, --r) {
      tmp = perm[l];
      perm[l] = perm[r];
      perm[r] = tmp;
    }
  }
  return best;
}

static void assert_is_permutation(size_t P, const int *perm)
{
  int seen[2048] = {0};
  for (size_t i = 0; i < P; ++i) {
    assert_true(perm[i] >= 0 && (size_t)perm[i] < P);
    assert_int_equal(seen[perm[i]], 0);
    seen[perm[i]] = 1;
  }
}

/* The exact relabelling reaches the brute-force optimum, the greedy one at
 * least half of it, on random small matrices with and without ties. */
static void ulba_relabel_is_optimal_on_small_cases(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed_stream(&rng, 5, 5);
  for (int trial = 0; trial < 400; ++trial) {
    size_t P = 1 + (size_t)(trial % 7);
    double w[49];
    for (size_t k = 0; k < P * P; ++k)
      w[k] = trial % 2 ? (double)(zp_rng_next(&rng) % 4) /* many ties */
                       : zp_rng_range(&rng, 0.0, 10.0);
    double best = brute_force_overlap(P, w), total;
    int perm[8];
    assert_int_equal(ulba_relabel(P, w, ULBA_RELABEL_EXACT, perm, &total), ULBA_OK);
    assert_is_permutation(P, perm);
    assert_close(total, best, 1e-12);
    assert_int_equal(ulba_relabel(P, w, ULBA_RELABEL_GREEDY, perm, &total), ULBA_OK);
    assert_is_permutation(P, perm);
    assert_true(total >= 0.5 * best - 1e-12 && total <= best + 1e-12);
  }
}

/* The part of the base method that holds the growing objects receives the
 * label of the overloading PE, so its small target size lands there. */
static void ulba_relabel_sends_growing_load_to_the_underloaded_label(void **state)
{
  (void)state;
  /* Four parts; the base method put the growing objects of label 1 into its
   * part 3 and numbered the rest in a rotated order. */
  double w[16] = {0};
  w[0 * 4 + 2] = 1.0;
  w[1 * 4 + 3] = 1.0;
  w[2 * 4 + 0] = 1.0;
  w[3 * 4 + 1] = 1000.0;
  int perm[4];
  for (int method = ULBA_RELABEL_AUTO; method <= ULBA_RELABEL_GREEDY; ++method) {
    assert_int_equal(ulba_relabel(4, w, (ulba_relabel_method)method, perm, NULL), ULBA_OK);
    assert_int_equal(perm[3], 1);
    assert_int_equal(perm[0], 2);
    assert_int_equal(perm[1], 3);
    assert_int_equal(perm[2], 0);
  }
  assert_int_equal(ulba_relabel(4, w, (ulba_relabel_method)9, perm, NULL), ULBA_ERR_ARG);
  w[5] = NAN;
  assert_int_equal(ulba_relabel(4, w, ULBA_RELABEL_EXACT, perm, NULL), ULBA_ERR_ARG);
}

/* Exact and greedy agree with each other's bounds on a large sparse case. */
static void ulba_relabel_handles_hundreds_of_parts(void **state)
{
  (void)state;
  size_t P = 300;
  double *w = calloc(P * P, sizeof *w);
  int *perm = malloc(P * sizeof *perm);
  assert_non_null(w);
  assert_non_null(perm);
  zp_rng rng;
  zp_rng_seed_stream(&rng, 9, 9);
  /* A hidden permutation with strong overlap plus sparse noise: the exact
   * answer must recover the hidden one. */
  for (size_t i = 0; i < P; ++i) {
    w[i * P + (i * 7 + 3) % P] = 10.0 + zp_rng_range(&rng, 0.0, 1.0);
    for (int k = 0; k < 3; ++k) w[i * P + zp_rng_next(&rng) % P] += zp_rng_range(&rng, 0.0, 1.0);
  }
  double exact, greedy;
  assert_int_equal(ulba_relabel(P, w, ULBA_RELABEL_EXACT, perm, &exact), ULBA_OK);
  assert_is_permutation(P, perm);
  for (size_t i = 0; i < P; ++i) assert_int_equal(perm[i], (int)((i * 7 + 3) % P));
  assert_int_equal(ulba_relabel(P, w, ULBA_RELABEL_GREEDY, perm, &greedy), ULBA_OK);
  assert_is_permutation(P, perm);
  assert_true(greedy <= exact + 1e-9 && greedy >= 0.5 * exact);
  free(w);
  free(perm);
}

/* Anticipated weights: the growth beyond each object's share of the total
 * is added for H steps; the total is kept; unknown rates keep the weight;
 * a shrinking object stops at 0. */
static void ulba_anticipate_adds_excess_growth(void **state)
{
  /* Two columns: the first is the weight. */
  const double w[] = {10, 99, 10, 99, 20, 99, 1, 99};
  const double g[] = {3.0, 0.0, 0.0, NAN};
  double out[4], W = 40.0, G = 3.0, sum = 0.0;
  (void)state;
  assert_int_equal(ulba_anticipate(4, w, 2, g, W, G, 2.0, out), ULBA_OK);
  /* e = g - G w / W: 3 - 0.75, -0.75, -1.5; the fourth is unknown. */
  assert_true(fabs(out[0] - (10 + 2 * 2.25)) < 1e-12);
  assert_true(fabs(out[1] - (10 - 2 * 0.75)) < 1e-12);
  assert_true(fabs(out[2] - (20 - 2 * 1.5)) < 1e-12);
  assert_true(out[3] == 1.0);
  for (int i = 0; i < 3; i++) sum += out[i];
  assert_true(fabs(sum - 40.0) < 1e-12);
  /* Growth in proportion to the weights changes nothing. */
  {
    const double gp[] = {1.0, 1.0, 2.0, NAN};
    assert_int_equal(ulba_anticipate(4, w, 2, gp, W, 4.0, 5.0, out), ULBA_OK);
    assert_true(fabs(out[0] - 10) < 1e-12 && fabs(out[1] - 10) < 1e-12 &&
                fabs(out[2] - 20) < 1e-12);
  }
  /* A long horizon cannot make a weight negative. */
  assert_int_equal(ulba_anticipate(4, w, 2, g, W, G, 100.0, out), ULBA_OK);
  assert_true(out[1] == 0.0 && out[2] == 0.0);
  /* Bad arguments. */
  assert_int_equal(ulba_anticipate(4, w, 2, g, W, G, -1.0, out), ULBA_ERR_ARG);
  assert_int_equal(ulba_anticipate(4, w, 0, g, W, G, 1.0, out), ULBA_ERR_ARG);
  assert_int_equal(ulba_anticipate(4, w, 2, g, W, NAN, 1.0, out), ULBA_ERR_ARG);
  assert_int_equal(ulba_anticipate(4, NULL, 2, g, W, G, 1.0, out), ULBA_ERR_ARG);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ulba_slope_recovers_lines_and_parabola),
      cmocka_unit_test(ulba_slope_handles_degenerate_series),
      cmocka_unit_test(ulba_slope_fit_equals_ulba_slope_bit_for_bit),
      cmocka_unit_test(ulba_population_zscore_never_fires_up_to_ten_pes),
      cmocka_unit_test(ulba_robust_score_of_one_outlier_among_ties),
      cmocka_unit_test(ulba_detects_one_growing_pe_at_small_and_large_p),
      cmocka_unit_test(ulba_uniform_growth_flags_nobody),
      cmocka_unit_test(ulba_noise_flags_nobody),
      cmocka_unit_test(ulba_detects_a_group_and_ignores_slow_pes),
      cmocka_unit_test(ulba_detection_refuses_bad_arguments),
      cmocka_unit_test(ulba_estimates_a_and_m_from_rates),
      cmocka_unit_test(ulba_part_sizes_follow_eq6),
      cmocka_unit_test(ulba_part_sizes_sum_to_one),
      cmocka_unit_test(ulba_falls_back_when_half_the_pes_overload),
      cmocka_unit_test(ulba_alpha_zero_gives_the_base_sizes),
      cmocka_unit_test(ulba_sigma_minus_matches_hand_value_and_simulation),
      cmocka_unit_test(ulba_sigma_plus_solves_eq12),
      cmocka_unit_test(ulba_sigma_plus_at_alpha_zero_is_menon_tau),
      cmocka_unit_test(ulba_interval_time_matches_explicit_pes),
      cmocka_unit_test(ulba_auto_alpha_beats_fixed_alphas),
      cmocka_unit_test(ulba_auto_alpha_is_zero_without_growth),
      cmocka_unit_test(ulba_relabel_is_optimal_on_small_cases),
      cmocka_unit_test(ulba_relabel_sends_growing_load_to_the_underloaded_label),
      cmocka_unit_test(ulba_relabel_handles_hundreds_of_parts),
      cmocka_unit_test(ulba_anticipate_adds_excess_growth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
