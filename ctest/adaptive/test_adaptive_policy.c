/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the pure decision core of the adaptive trigger.  Expected
 * values are worked out by hand in the comments and recomputed from the
 * paper's equations in the tests, never copied from a run. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "adaptive_policy.h"

/* This cmocka compares only floats; doubles are compared at full precision
 * here, and NaN never passes. */
#define assert_close(a, b, eps) check_close((a), (b), (eps), __FILE__, __LINE__)
static void check_close(double a, double b, double eps, const char *file, int line)
{
  if (!(fabs(a - b) <= eps)) {
    print_error("%.17g != %.17g (tolerance %g)\n", a, b, eps);
    _fail(file, line);
  }
}

/* A state with the given policy and seed cost (seed < 0: none). */
static void start(adaptive_state *s, adaptive_policy_id policy, double seed)
{
  adaptive_config cfg;
  adaptive_config_default(&cfg);
  cfg.policy = policy;
  cfg.initial_cost = seed;
  assert_int_equal(adaptive_state_init(s, &cfg), ADAPTIVE_OK);
}

/* Feeds one step with the given max, avg and min times. */
static int feed(adaptive_state *s, double tmax, double tavg, double tmin, adaptive_quantities *q)
{
  adaptive_step st = {tmax, tavg, tmin, 0.0, 0.0, 0.0, 0.0};
  return adaptive_state_step(s, &st, q);
}

/* Feeds t_max values (avg = min = the smallest) until the first balance;
 * returns its 1-based step, or 0 when none of the n steps balances. */
static int first_balance(adaptive_state *s, const double *tmax, int n)
{
  int i;
  for (i = 0; i < n; i++) {
    int d = feed(s, tmax[i], tmax[0] < tmax[i] ? tmax[0] : tmax[i],
                 tmax[0] < tmax[i] ? tmax[0] : tmax[i], NULL);
    assert_true(d == 0 || d == 1);
    if (d == 1) return i + 1;
  }
  return 0;
}

/* ZHAI on a linear ramp triggers exactly where the hand computation says. */
static void zhai_triggers_at_the_hand_computed_step(void **unused)
{
  /* t_max = 1.0, 1.2, 1.4, ...  C = 1.  Medians over the steps since the
   * balance: 1.0 | (1.0+1.2)/2 = 1.1 | 1.2 | 1.4 | 1.6; reference 1.0;
   * degradation 0, 0.1, 0.3, 0.7, 1.3 -> first >= 1 at step 5. */
  double ramp[10];
  adaptive_state s;
  adaptive_quantities q;
  int i;
  (void)unused;
  for (i = 0; i < 10; i++) ramp[i] = 1.0 + 0.2 * i;
  start(&s, ADAPTIVE_POLICY_ZHAI, 1.0);
  for (i = 0; i < 4; i++) assert_int_equal(feed(&s, ramp[i], 1.0, 1.0, &q), 0);
  assert_close(q.degradation, 0.7, 1e-12);
  assert_close(q.median, 1.4, 1e-12);
  assert_int_equal(feed(&s, ramp[4], 1.0, 1.0, &q), 1);
  assert_close(q.degradation, 1.3, 1e-12);
  assert_int_equal(q.since, 5);
  /* After the balance the reference is the next step: a flat series at the
   * new level never degrades. */
  assert_int_equal(adaptive_state_balanced(&s, 1.0), ADAPTIVE_OK);
  for (i = 0; i < 50; i++) assert_int_equal(feed(&s, 2.0, 1.0, 1.0, &q), 0);
  assert_close(q.degradation, 0.0, 0.0);
}

/* The median of three makes ZHAI ignore one isolated slow step. */
static void zhai_ignores_a_single_spike(void **unused)
{
  /* 1, 1, 9, 1, 1: medians 1, 1, 1, 1, 1 -> no degradation at all. */
  const double series[] = {1.0, 1.0, 9.0, 1.0, 1.0, 1.0};
  adaptive_state s;
  (void)unused;
  start(&s, ADAPTIVE_POLICY_ZHAI, 0.5);
  assert_int_equal(first_balance(&s, series, 6), 0);
  assert_close(s.degradation, 0.0, 0.0);
}

/* With a ULBA model, ZHAI adds the overhead of Eq. 11 to the cost side. */
static void zhai_adds_the_ulba_overhead_to_the_cost(void **unused)
{
  /* P = 4, N = 1, alpha = 0.6: alpha N / (P - N) = 0.2; W = 8, a = 1,
   * m = 0, omega = 1: dW = aP + mN = 4; overhead(n) = 0.2 (8 + 4n) / 4
   * = 0.4 + 0.2 n.  Ramp as above with C = 1: degradation at n = 5, 6, 7 is
   * 1.3, 2.1 (median 1.8), 3.1 (median 2.0); limits 1 + 1.4 = 2.4, 2.6,
   * 2.8 -> first balance at step 7 (step 5 without the model). */
  adaptive_ulba_model m = {4, 1, 0.6, 1.0, 0.0, 8.0, 1.0};
  double ramp[12];
  adaptive_state s;
  adaptive_quantities q;
  int i;
  (void)unused;
  for (i = 0; i < 12; i++) ramp[i] = 1.0 + 0.2 * i;
  start(&s, ADAPTIVE_POLICY_ZHAI, 1.0);
  assert_int_equal(adaptive_state_set_model(&s, &m), ADAPTIVE_OK);
  assert_int_equal(first_balance(&s, ramp, 12), 7);
  assert_int_equal(feed(&s, 1.0, 1.0, 1.0, &q), 1); /* still above */
  assert_close(q.overhead, 0.4 + 0.2 * 8, 1e-12);
  start(&s, ADAPTIVE_POLICY_ZHAI, 1.0);
  assert_int_equal(first_balance(&s, ramp, 12), 5);
}

/* With no cost known yet ZHAI balances at the first positive degradation. */
static void zhai_without_a_cost_balances_at_the_first_degradation(void **unused)
{
  const double series[] = {1.0, 1.0, 1.0, 1.5, 1.5};
  adaptive_state s;
  (void)unused;
  start(&s, ADAPTIVE_POLICY_ZHAI, -1.0);
  /* medians 1, 1, 1, 1, 1.5 -> degradation 0.5 > 0 at step 5. */
  assert_int_equal(first_balance(&s, series, 5), 5);
}

/* MENON: the fitted slope and tau = sqrt(2C/m_hat) match the hand values. */
static void menon_tau_is_sqrt_of_two_c_over_the_slope(void **unused)
{
  /* t_max - t_avg = 0.01 n: m_hat = 0.01.  C = 0.45125: tau = sqrt(2 *
   * 0.45125 / 0.01) = sqrt(90.25) = 9.5 -> balance at step 10. */
  adaptive_state s;
  adaptive_quantities q;
  int n;
  (void)unused;
  start(&s, ADAPTIVE_POLICY_MENON, 0.45125);
  assert_int_equal(feed(&s, 1.01, 1.0, 1.0, &q), 0);
  assert_close(q.m_hat, 0.0, 0.0); /* one point: no slope */
  assert_true(isinf(q.tau));
  for (n = 2; n <= 9; n++) {
    assert_int_equal(feed(&s, 1.0 + 0.01 * n, 1.0, 1.0, &q), 0);
    assert_close(q.m_hat, 0.01, 1e-9);
    assert_close(q.tau, 9.5, 1e-6);
  }
  assert_int_equal(feed(&s, 1.1, 1.0, 1.0, &q), 1);
  assert_int_equal(q.since, 10);
}

/* MENON with a noisy series uses the least-squares slope. */
static void menon_slope_is_the_least_squares_fit(void **unused)
{
  /* y = 0.1, 0.3, 0.2, 0.4 at x = 1..4: mean x 2.5, mean y 0.25,
   * sxy = (-1.5)(-0.15) + (-0.5)(0.05) + (0.5)(-0.05) + (1.5)(0.15) = 0.4,
   * sxx = 5 -> slope 0.08. */
  const double y[] = {0.1, 0.3, 0.2, 0.4};
  const double x[] = {1, 2, 3, 4};
  adaptive_state s;
  adaptive_quantities q;
  int i;
  (void)unused;
  start(&s, ADAPTIVE_POLICY_MENON, 100.0);
  for (i = 0; i < 4; i++) feed(&s, 1.0 + y[i], 1.0, 1.0, &q);
  assert_close(q.m_hat, 0.08, 1e-12);
  assert_close(adaptive_ls_slope(4, x, y), 0.08, 1e-12);
  assert_close(q.tau, sqrt(2.0 * 100.0 / 0.08), 1e-9);
}

/* MENON_CUMULATIVE balances when the summed extra time reaches C. */
static void menon_cumulative_balances_when_the_sum_reaches_c(void **unused)
{
  /* max - avg = 0.125 each step, C = 0.4: sums 0.125, 0.25, 0.375, 0.5 ->
   * step 4. */
  adaptive_state s;
  adaptive_quantities q;
  int i;
  (void)unused;
  start(&s, ADAPTIVE_POLICY_MENON_CUMULATIVE, 0.4);
  for (i = 0; i < 3; i++) assert_int_equal(feed(&s, 1.125, 1.0, 0.875, &q), 0);
  assert_int_equal(feed(&s, 1.125, 1.0, 0.875, &q), 1);
  assert_close(q.imbalance, 0.5, 0.0);
}

/* The ULBA bounds for parameters drawn from the paper's Table II ranges,
 * recomputed here from Eqs. 8, 9 and 11. */
static void ulba_bounds_match_equations_8_and_12_for_paper_parameters(void **unused)
{
  /* P = 256, N = 0.1 P -> 25; W_tot(0) = 1e9 P (1 s per step at one
   * GFLOPS); dW = W/P * x with x = 0.1 -> 1e8; y = 0.9: a = dW/P (1-y),
   * m = dW/N y; alpha = 0.4 (the paper's runs); C = W/(P omega) z with
   * z = 1 -> 1 s. */
  const double P = 256, N = 25, W = 1e9 * 256, omega = 1e9, dW = 1e8, C = 1.0;
  const double a = dW / P * 0.1, m = dW / N * 0.9, alpha = 0.4;
  adaptive_ulba_model model = {256, 25, alpha, a, m, W, omega};
  double smin, splus, m_hat, tau, lhs, rhs, expect_smin;
  (void)unused;
  assert_close(a * P + m * N, dW, 1e-6); /* dW = aP + mN */
  assert_int_equal(adaptive_ulba_bounds(&model, C, &smin, &splus), ADAPTIVE_OK);
  /* Eq. 8 by hand: (1 + 25/231) * 0.4 * 256e9 / (3.6e6 * 256)
   * = 1.108225... * 111.111... = 123.14 -> 123. */
  expect_smin = floor((1.0 + N / (P - N)) * alpha * W / (m * P));
  assert_close(expect_smin, 123.0, 0.0);
  assert_close(smin, expect_smin, 0.0);
  /* Eq. 9 with Eqs. 10 and 11 must hold at tau = sigma+ - sigma-:
   * m_hat tau^2 / (2 omega) = alpha N/(P-N) W(LB + sigma- + tau)/(omega P) + C. */
  m_hat = m * (P - N) / P;
  tau = splus - smin;
  lhs = m_hat * tau * tau / (2.0 * omega);
  rhs = alpha * N / (P - N) * (W + (smin + tau) * dW) / (omega * P) + C;
  assert_close(lhs, rhs, 1e-9 * rhs);
  assert_true(tau > 25.0 && tau < 26.0); /* 25.4 by hand */
  /* alpha = 0: the standard method, sigma- = 0, sigma+ = sqrt(2 C omega / m_hat). */
  model.alpha = 0.0;
  assert_int_equal(adaptive_ulba_bounds(&model, C, &smin, &splus), ADAPTIVE_OK);
  assert_close(smin, 0.0, 0.0);
  assert_close(splus, sqrt(2.0 * C * omega / m_hat), 1e-9);
  /* No overloading PE: nothing builds up, never balance. */
  model.N = 0;
  assert_int_equal(adaptive_ulba_bounds(&model, C, &smin, &splus), ADAPTIVE_OK);
  assert_true(isinf(splus));
}

/* The ULBA policy never balances before sigma-, and at the latest at sigma+. */
static void ulba_policy_waits_for_sigma_minus_and_fires_at_sigma_plus(void **unused)
{
  /* P = 2, N = 1, alpha = 0.5, a = 0, m = 1, W = 10, omega = 1, C = 1:
   * sigma- = floor(2 * 0.5 * 10 / 2) = 5; m_hat = 0.5, dW = 1,
   * A = 0.25, B = 0.25, D = 0.5 (10 + 5) / 2 + 1 = 4.75,
   * tau = (0.25 + sqrt(0.0625 + 4.75)) / 0.5 = 4.8875 -> sigma+ = 9.8875. */
  adaptive_ulba_model model = {2, 1, 0.5, 0.0, 1.0, 10.0, 1.0};
  adaptive_config cfg;
  adaptive_state s;
  adaptive_quantities q;
  double steep[12];
  int i;
  (void)unused;
  adaptive_config_default(&cfg);
  cfg.policy = ADAPTIVE_POLICY_ULBA;
  cfg.initial_cost = 1.0;
  cfg.ulba_early = 0;
  assert_int_equal(adaptive_state_init(&s, &cfg), ADAPTIVE_OK);
  assert_int_equal(adaptive_state_set_model(&s, &model), ADAPTIVE_OK);
  /* Flat times: only sigma+ can trigger, at the first whole step >= 9.8875. */
  for (i = 1; i <= 9; i++) assert_int_equal(feed(&s, 1.0, 1.0, 1.0, &q), 0);
  assert_close(q.sigma_minus, 5.0, 0.0);
  assert_close(q.sigma_plus, 5.0 + (0.25 + sqrt(0.0625 + 4.75)) / 0.5, 1e-12);
  assert_int_equal(feed(&s, 1.0, 1.0, 1.0, &q), 1);
  /* Early mode with a steep series: degradation passes C + overhead at
   * step 2 already (1, 11 -> median 6, degradation 5 >= 1 + 0.5 (10 + 2)
   * / 2 = 4), but
   * nothing may happen before sigma- = 5. */
  cfg.ulba_early = 1;
  assert_int_equal(adaptive_state_configure(&s, &cfg), ADAPTIVE_OK);
  assert_int_equal(adaptive_state_balanced(&s, 1.0), ADAPTIVE_OK);
  for (i = 0; i < 12; i++) steep[i] = 1.0 + 10.0 * i;
  assert_int_equal(first_balance(&s, steep, 12), 5);
  /* Without a model ULBA is ZHAI. */
  assert_int_equal(adaptive_state_set_model(&s, NULL), ADAPTIVE_OK);
  assert_int_equal(adaptive_state_balanced(&s, 1.0), ADAPTIVE_OK);
  assert_int_equal(first_balance(&s, steep, 12), 2);
}

/* ADAPTIVE_ULBA_GUARD: before sigma- the ULBA policy balances only when the
 * measured degradation exceeds what the model itself predicts by C plus the
 * overhead; a series that follows the model never triggers it. */
static void ulba_guard_fires_before_sigma_minus_only_against_the_model(void **unused)
{
  /* The model of the test above: sigma- = 5, sigma+ = 9.8875, a = 0. */
  adaptive_ulba_model model = {2, 1, 0.5, 0.0, 1.0, 10.0, 1.0};
  adaptive_ulba_model grow = {2, 1, 0.5, 1.0, 1.0, 100.0, 1.0};
  adaptive_config cfg;
  adaptive_state s;
  double steep[12], flat[12], follow[80], smin, splus;
  int i, first;
  (void)unused;
  for (i = 0; i < 12; i++) {
    steep[i] = 1.0 + 10.0 * i;
    flat[i] = 1.0;
  }
  adaptive_config_default(&cfg);
  assert_int_equal(cfg.ulba_guard, 0);
  cfg.policy = ADAPTIVE_POLICY_ULBA;
  cfg.initial_cost = 1.0;
  cfg.ulba_guard = 1;
  assert_int_equal(adaptive_state_init(&s, &cfg), ADAPTIVE_OK);
  assert_int_equal(adaptive_state_set_model(&s, &model), ADAPTIVE_OK);
  /* Steep: degradation 5 at step 2 against an expected 0, C + overhead 4. */
  assert_int_equal(first_balance(&s, steep, 12), 2);
  /* Flat: nothing is unexpected, so sigma+ still decides. */
  assert_int_equal(adaptive_state_balanced(&s, 1.0), ADAPTIVE_OK);
  assert_int_equal(first_balance(&s, flat, 12), 10);
  /* A series growing at the model's a (1 per step) stays inside the model's
   * own degradation: no balance before sigma-, although ZHAI's raw sum
   * passes C plus the overhead long before (about step 9 of 50). */
  assert_int_equal(adaptive_ulba_bounds(&grow, 1.0, &smin, &splus), ADAPTIVE_OK);
  assert_true(smin >= 20.0 && smin < 80.0);
  for (i = 0; i < 80; i++) follow[i] = 1.0 + i;
  assert_int_equal(adaptive_state_set_model(&s, &grow), ADAPTIVE_OK);
  assert_int_equal(adaptive_state_balanced(&s, 1.0), ADAPTIVE_OK);
  first = first_balance(&s, follow, 80);
  assert_true(first >= (int)smin);
  /* Out of range is refused. */
  cfg.ulba_guard = 2;
  assert_int_equal(adaptive_config_check(&cfg), ADAPTIVE_EINVAL);
}

/* A state with the given policy, seed cost and degradation. */
static void start_with(adaptive_state *s, adaptive_policy_id policy, double seed,
                       adaptive_degradation degradation)
{
  adaptive_config cfg;
  adaptive_config_default(&cfg);
  cfg.policy = policy;
  cfg.initial_cost = seed;
  cfg.degradation = degradation;
  assert_int_equal(adaptive_state_init(s, &cfg), ADAPTIVE_OK);
}

/* Feeds one step given as the times of every PE. */
static int feed_pes(adaptive_state *s, int npe, const double *times, adaptive_quantities *q)
{
  adaptive_step st;
  assert_int_equal(adaptive_step_from_times((size_t)npe, times, NULL, NULL, &st), ADAPTIVE_OK);
  return adaptive_state_step(s, &st, q);
}

/* Balances over `steps` steps of 8 PEs whose loads all grow by the same
 * 2/64 per step, above a fixed residual imbalance of up to 2/64 that no
 * balance removes (multiples of 1/64, so every sum is exact).  A balance
 * changes nothing: uniform growth stays where it is. */
static int uniform_growth_balances(adaptive_policy_id policy, adaptive_degradation degradation,
                                   int steps, double *last_degradation)
{
  adaptive_state s;
  adaptive_quantities q;
  double times[8];
  int k, i, balances = 0;
  start_with(&s, policy, 0.25, degradation);
  for (k = 0; k < steps; k++) {
    for (i = 0; i < 8; i++) times[i] = (64.0 + (double)(i % 3) + 2.0 * k) / 64.0;
    if (feed_pes(&s, 8, times, &q) == 1) {
      balances++;
      assert_int_equal(adaptive_state_balanced(&s, 0.25), ADAPTIVE_OK);
    }
  }
  *last_degradation = q.degradation;
  return balances;
}

/* IMBALANCE: growth of every PE alike is never a reason to balance, for ZHAI
 * and for ULBA without a model (which decides as ZHAI); TOTAL, Zhai as
 * published, balances again and again on the same input. */
static void imbalance_degradation_ignores_uniform_growth(void **unused)
{
  const adaptive_policy_id policies[2] = {ADAPTIVE_POLICY_ZHAI, ADAPTIVE_POLICY_ULBA};
  double d;
  int p;
  (void)unused;
  for (p = 0; p < 2; p++) {
    assert_int_equal(uniform_growth_balances(policies[p], ADAPTIVE_DEGRADATION_IMBALANCE, 400, &d),
                     0);
    assert_close(d, 0.0, 0.0);
    /* C = 0.25 and 2/64 s more per step: D_n = 1/64 + (n-1)(n-2)/64 >= 0.25
     * first at n = 6, hence a balance every 6 steps, 66 in 400. */
    assert_true(uniform_growth_balances(policies[p], ADAPTIVE_DEGRADATION_TOTAL, 400, &d) >= 50);
  }
}

/* The balance steps of `steps` steps of P PEs where PE 0 gets g = 1/64 s
 * more per step since the last balance, which spreads that extra over
 * every PE (a balance removes the hot spot, not the work).  Writes up to
 * max balance steps (1-based) and returns how many there were. */
static int hot_spot_balances(adaptive_degradation degradation, int P, int steps, int *at, int max)
{
  adaptive_state s;
  double times[64], base = 1.0, g = 1.0 / 64.0;
  int k, i, since = 0, n = 0;
  assert_true(P <= 64);
  start_with(&s, ADAPTIVE_POLICY_ZHAI, 1.0, degradation);
  for (k = 0; k < steps; k++) {
    for (i = 0; i < P; i++) times[i] = base + (i == 0 ? g * since : 0.0);
    since++;
    if (feed_pes(&s, P, times, NULL) == 1) {
      if (n < max) at[n] = k + 1;
      n++;
      base += g * (since - 1) / P;
      since = 0;
      assert_int_equal(adaptive_state_balanced(&s, 1.0), ADAPTIVE_OK);
    }
  }
  return n;
}

/* IMBALANCE on a hot spot that grows on one PE of P: t_max - t_avg grows by
 * (1 - 1/P) of what t_max grows, so the accumulated degradation is that
 * share of TOTAL's and the balances come at most 1/sqrt(1 - 1/P) times
 * later: within two steps of TOTAL's for P >= 4 here, never earlier. */
static void imbalance_degradation_follows_a_growing_hot_spot(void **unused)
{
  const int sizes[4] = {4, 8, 16, 64};
  int at_t[64], at_i[64], nt, ni, p, j;
  (void)unused;
  for (p = 0; p < 4; p++) {
    nt = hot_spot_balances(ADAPTIVE_DEGRADATION_TOTAL, sizes[p], 300, at_t, 64);
    ni = hot_spot_balances(ADAPTIVE_DEGRADATION_IMBALANCE, sizes[p], 300, at_i, 64);
    assert_true(nt >= 1 && ni >= 1);
    assert_true(nt <= 64 && ni <= 64);
    /* Hand value for TOTAL: D_n = g/2 + g (n-1)(n-2)/2 >= C = 1 first at
     * (n-1)(n-2) >= 127, n = 13; the intervals then repeat. */
    assert_int_equal(at_t[0], 13);
    assert_true(at_i[0] >= at_t[0] && at_i[0] <= at_t[0] + 2);
    /* Every interval of IMBALANCE is as long as TOTAL's, or up to two steps
     * longer: the same decisions, shifted by at most two steps each time. */
    for (j = 1; j < ni; j++) {
      int gap_i = at_i[j] - at_i[j - 1], gap_t = at_t[1] - at_t[0];
      assert_true(gap_i >= gap_t && gap_i <= gap_t + 2);
    }
    assert_true(ni >= nt * at_t[0] / (at_t[0] + 2) - 1 && ni <= nt);
  }
}

/* Zhai's Algorithm 1 as the ULBA paper prints it, written again here
 * independently of the core: the decisions and the degradation of
 * ADAPTIVE_DEGRADATION = TOTAL, the default, must equal it bit for bit. */
static void total_degradation_is_zhai_as_published_bit_for_bit(void **unused)
{
  adaptive_state dflt, total;
  adaptive_quantities qd, qt;
  double recent[3] = {0, 0, 0}, ref = 0.0, deg = 0.0, times[8];
  uint64_t x = 0x9e3779b97f4a7c15ull;
  int k, i, since = 0, balances = 0;
  (void)unused;
  start(&dflt, ADAPTIVE_POLICY_ZHAI, 0.75);
  start_with(&total, ADAPTIVE_POLICY_ZHAI, 0.75, ADAPTIVE_DEGRADATION_TOTAL);
  for (k = 0; k < 2000; k++) {
    double med, tmax = 0.0;
    int a, b;
    /* A deterministic xorshift series (no rand()) with a slow drift, so
     * that the medians, spikes and balances of every kind occur. */
    for (i = 0; i < 8; i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      times[i] = 1.0 + (double)(x >> 11) * 0x1.0p-53 + 0.01 * (since + i % 2);
      tmax = times[i] > tmax ? times[i] : tmax;
    }
    a = feed_pes(&dflt, 8, times, &qd);
    b = feed_pes(&total, 8, times, &qt);
    since++;
    if (since == 1) ref = tmax;
    recent[(since - 1) % 3] = tmax;
    if (since == 1)
      med = recent[0];
    else if (since == 2)
      med = 0.5 * (recent[0] + recent[1]);
    else
      med = fmax(fmin(recent[0], recent[1]), fmin(fmax(recent[0], recent[1]), recent[2]));
    deg += med - ref;
    assert_int_equal(a, deg >= 0.75);
    assert_int_equal(b, a);
    assert_true(qd.degradation == deg && qt.degradation == deg);
    assert_true(qd.median == med && qd.reference == ref);
    if (a == 1) {
      balances++;
      since = 0;
      deg = 0.0;
      assert_int_equal(adaptive_state_balanced(&dflt, 0.75), ADAPTIVE_OK);
      assert_int_equal(adaptive_state_balanced(&total, 0.75), ADAPTIVE_OK);
    }
  }
  assert_true(balances >= 10);
}

/* With IMBALANCE the ULBA guard compares the measured sum with the model's
 * own prediction of t_max - t_avg before sigma-: the underloaded PEs catch
 * up, so the imbalance falls by m N / (P omega) per step.  A series that
 * follows the model never fires the guard; a hot spot where the model
 * expects none does. */
static void ulba_guard_predicts_the_imbalance_under_imbalance(void **unused)
{
  /* P = 4, N = 1, alpha = 0.5, a = 1/64, m = 4/64, W = 400, omega = 1:
   * sigma- = floor((1 + 1/3) 0.5 400 / (4/64 * 4)) = 1066, far away. */
  adaptive_ulba_model model = {4, 1, 0.5, 1.0 / 64, 4.0 / 64, 400.0, 1.0};
  adaptive_config cfg;
  adaptive_state s;
  adaptive_quantities q;
  double times[4];
  int k, i, first = 0;
  (void)unused;
  adaptive_config_default(&cfg);
  cfg.policy = ADAPTIVE_POLICY_ULBA;
  cfg.initial_cost = 0.5;
  cfg.ulba_guard = 1;
  cfg.degradation = ADAPTIVE_DEGRADATION_IMBALANCE;
  assert_int_equal(adaptive_state_init(&s, &cfg), ADAPTIVE_OK);
  assert_int_equal(adaptive_state_set_model(&s, &model), ADAPTIVE_OK);
  /* The model: PE 0 overloads (a + m per step) from 28 below the others
   * (the alpha share ULBA took away), PEs 1-3 grow by a. */
  for (k = 0; k < 200; k++) {
    times[0] = 72.0 + (5.0 / 64) * k;
    for (i = 1; i < 4; i++) times[i] = 100.0 + (1.0 / 64) * k;
    assert_int_equal(feed_pes(&s, 4, times, &q), 0);
  }
  /* TOTAL would have seen the growth of t_max as degradation; IMBALANCE sees
   * the falling imbalance, exactly as the model predicts. */
  assert_true(q.degradation < 0.0);
  /* PE 3 becomes a hot spot the model does not know of: the guard fires. */
  assert_int_equal(adaptive_state_balanced(&s, 0.5), ADAPTIVE_OK);
  for (k = 0; k < 60 && !first; k++) {
    times[0] = 72.0;
    times[1] = times[2] = 100.0;
    times[3] = 100.0 + (8.0 / 64) * k;
    if (feed_pes(&s, 4, times, &q) == 1) first = k + 1;
  }
  assert_true(first > 1 && first < 60);
  /* Every PE grows by a, PE 0 no faster: the imbalance ULBA left stays
   * where the model expects it to shrink.  The sum is 0, the model's
   * -(1/64) n (n-1) / 2, the overhead (400 + n / 8) / 24: the guard fires
   * when n (n-1) / 128 >= 0.5 + (400 + n / 8) / 24, first at n = 48. */
  assert_int_equal(adaptive_state_balanced(&s, 0.5), ADAPTIVE_OK);
  for (k = 0, first = 0; k < 100 && !first; k++) {
    times[0] = 72.0 + (1.0 / 64) * k;
    for (i = 1; i < 4; i++) times[i] = 100.0 + (1.0 / 64) * k;
    if (feed_pes(&s, 4, times, &q) == 1) first = k + 1;
  }
  assert_int_equal(first, 48);
}

/* Changing ADAPTIVE_DEGRADATION during an interval restarts ZHAI's sum at the
 * next step (the old sum measured another quantity) and keeps the rest. */
static void changing_the_degradation_restarts_the_zhai_sum(void **unused)
{
  adaptive_config cfg;
  adaptive_state s;
  adaptive_quantities q;
  int i;
  (void)unused;
  start(&s, ADAPTIVE_POLICY_ZHAI, 100.0);
  for (i = 0; i < 5; i++) feed(&s, 1.0 + 0.25 * i, 1.0, 1.0, &q);
  assert_true(q.degradation > 0.0);
  cfg = s.cfg;
  cfg.degradation = ADAPTIVE_DEGRADATION_IMBALANCE;
  assert_int_equal(adaptive_state_configure(&s, &cfg), ADAPTIVE_OK);
  assert_int_equal(feed(&s, 3.0, 2.5, 2.0, &q), 0);
  assert_int_equal(q.since, 6);
  assert_close(q.reference, 0.5, 0.0);
  assert_close(q.degradation, 0.0, 0.0);
  assert_int_equal(feed(&s, 3.25, 2.5, 2.0, &q), 0);
  assert_close(q.degradation, 0.125, 0.0); /* median (0.5 + 0.75) / 2 - 0.5 */
  /* Setting the same value again changes nothing. */
  assert_int_equal(adaptive_state_configure(&s, &cfg), ADAPTIVE_OK);
  assert_int_equal(feed(&s, 3.5, 2.5, 2.0, &q), 0);
  assert_close(q.degradation, 0.125 + 0.25, 0.0);
}

/* ADAPTIVE_DEGRADATION's words parse case-insensitively, round-trip, and
 * anything else is refused by the parser and by the config check. */
static void degradation_names_round_trip(void **unused)
{
  adaptive_degradation d;
  adaptive_config cfg;
  (void)unused;
  assert_int_equal(adaptive_degradation_parse("total", &d), ADAPTIVE_OK);
  assert_int_equal(d, ADAPTIVE_DEGRADATION_TOTAL);
  assert_int_equal(adaptive_degradation_parse("Imbalance", &d), ADAPTIVE_OK);
  assert_int_equal(d, ADAPTIVE_DEGRADATION_IMBALANCE);
  assert_string_equal(adaptive_degradation_name(d), "IMBALANCE");
  assert_string_equal(adaptive_degradation_name(ADAPTIVE_DEGRADATION_TOTAL), "TOTAL");
  assert_int_equal(adaptive_degradation_parse("IMBALANCED", &d), ADAPTIVE_EINVAL);
  assert_int_equal(adaptive_degradation_parse("", &d), ADAPTIVE_EINVAL);
  adaptive_config_default(&cfg);
  assert_int_equal(cfg.degradation, ADAPTIVE_DEGRADATION_TOTAL);
  cfg.degradation = (adaptive_degradation)2;
  assert_int_equal(adaptive_config_check(&cfg), ADAPTIVE_EINVAL);
}

/* THRESHOLD on step times: (max - min)/avg against the threshold, measured
 * only after the settling steps and then every interval steps. */
static void threshold_measures_after_settling_then_every_interval(void **unused)
{
  adaptive_config cfg;
  adaptive_state s;
  adaptive_quantities q;
  (void)unused;
  adaptive_config_default(&cfg);
  cfg.policy = ADAPTIVE_POLICY_THRESHOLD;
  cfg.threshold = 0.25;
  cfg.settle_steps = 3;
  cfg.interval = 2;
  assert_int_equal(adaptive_state_init(&s, &cfg), ADAPTIVE_OK);
  /* spread (1.5 - 0.5) / 1.0 = 1.0 > 0.25 but steps 1, 2 are not measured. */
  assert_int_equal(feed(&s, 1.5, 1.0, 0.5, &q), 0);
  assert_int_equal(q.measured, 0);
  assert_int_equal(feed(&s, 1.5, 1.0, 0.5, &q), 0);
  assert_int_equal(feed(&s, 1.5, 1.0, 0.5, &q), 1);
  assert_close(q.spread, 1.0, 0.0);
  /* After a balance: measured at 3, 5, 7; an imbalance at 4 is not seen. */
  adaptive_state_balanced(&s, 0.1);
  assert_int_equal(feed(&s, 1.0, 1.0, 1.0, &q), 0);
  assert_int_equal(feed(&s, 1.0, 1.0, 1.0, &q), 0);
  assert_int_equal(feed(&s, 1.1, 1.0, 0.9, &q), 0); /* 0.2 <= 0.25 */
  assert_int_equal(q.measured, 1);
  assert_int_equal(feed(&s, 1.5, 1.0, 0.5, &q), 0);
  assert_int_equal(q.measured, 0);
  assert_int_equal(feed(&s, 1.5, 1.0, 0.5, &q), 1);
}

/* THRESHOLD with Stellner's index (1 + avenrun_i) / alpha_i. */
static void threshold_uses_the_normalized_load_average(void **unused)
{
  /* Rank A: avenrun 2.0, alpha 1 -> 3.0.  Rank B: avenrun 0.5, alpha 2 ->
   * 0.75.  Spread 2.25 > 1.5 (Stellner's setting) -> balance.  With alpha_B
   * = 1, B is 1.5 and the spread 1.5 is not > 1.5. */
  double times[2] = {1.0, 1.0}, idx[2];
  adaptive_config cfg;
  adaptive_state s;
  adaptive_step st;
  adaptive_quantities q;
  (void)unused;
  adaptive_config_default(&cfg);
  cfg.policy = ADAPTIVE_POLICY_THRESHOLD;
  cfg.index_source = ADAPTIVE_INDEX_LOADAVG;
  cfg.threshold = 1.5;
  cfg.settle_steps = 1;
  assert_int_equal(adaptive_state_init(&s, &cfg), ADAPTIVE_OK);
  idx[0] = (1.0 + 2.0) / 1.0;
  idx[1] = (1.0 + 0.5) / 2.0;
  assert_int_equal(adaptive_step_from_times(2, times, idx, NULL, &st), ADAPTIVE_OK);
  assert_int_equal(adaptive_state_step(&s, &st, &q), 1);
  assert_close(q.spread, 2.25, 0.0);
  idx[1] = (1.0 + 0.5) / 1.0;
  assert_int_equal(adaptive_step_from_times(2, times, idx, NULL, &st), ADAPTIVE_OK);
  adaptive_state_balanced(&s, 0.1);
  assert_int_equal(adaptive_state_step(&s, &st, &q), 0);
}

/* EFFICIENCY: eff = U_avg / U_max against ADAPTIVE_EFF_MIN. */
static void efficiency_balances_below_eff_min(void **unused)
{
  /* Times 1, 1, 1, 2: avg 1.25, eff 0.625 < 0.9.  Times 1, 1, 1, 1.1:
   * avg 1.025, eff 0.9318 >= 0.9.  Loads 10, 10 on capacities 1, 2:
   * U = 10, 5, eff 0.75. */
  const double bad[4] = {1, 1, 1, 2}, good[4] = {1, 1, 1, 1.1};
  double load_u[2] = {10.0 / 1.0, 10.0 / 2.0}, t2[2] = {1, 1};
  adaptive_config cfg;
  adaptive_state s;
  adaptive_step st;
  adaptive_quantities q;
  (void)unused;
  adaptive_config_default(&cfg);
  cfg.policy = ADAPTIVE_POLICY_EFFICIENCY;
  cfg.settle_steps = 1;
  assert_int_equal(adaptive_state_init(&s, &cfg), ADAPTIVE_OK);
  adaptive_step_from_times(4, good, NULL, NULL, &st);
  assert_int_equal(adaptive_state_step(&s, &st, &q), 0);
  assert_close(q.eff, 1.025 / 1.1, 1e-12);
  adaptive_step_from_times(4, bad, NULL, NULL, &st);
  assert_int_equal(adaptive_state_step(&s, &st, &q), 1);
  assert_close(q.eff, 0.625, 1e-12);
  cfg.util_source = ADAPTIVE_UTIL_LOAD;
  assert_int_equal(adaptive_state_init(&s, &cfg), ADAPTIVE_OK);
  adaptive_step_from_times(2, t2, NULL, load_u, &st);
  assert_int_equal(adaptive_state_step(&s, &st, &q), 1);
  assert_close(q.eff, 0.75, 1e-12);
}

/* PERIODIC balances every period steps; ALWAYS every step; NEVER never. */
static void baselines_periodic_always_never(void **unused)
{
  adaptive_config cfg;
  adaptive_state s;
  int i, k;
  (void)unused;
  adaptive_config_default(&cfg);
  cfg.policy = ADAPTIVE_POLICY_PERIODIC;
  cfg.period = 4;
  assert_int_equal(adaptive_state_init(&s, &cfg), ADAPTIVE_OK);
  for (k = 0; k < 3; k++) {
    for (i = 1; i < 4; i++) assert_int_equal(feed(&s, 2.0, 1.0, 0.0, NULL), 0);
    assert_int_equal(feed(&s, 2.0, 1.0, 0.0, NULL), 1);
    adaptive_state_balanced(&s, 5.0);
  }
  start(&s, ADAPTIVE_POLICY_ALWAYS, -1.0);
  for (i = 0; i < 5; i++) assert_int_equal(feed(&s, 1.0, 1.0, 1.0, NULL), 1);
  start(&s, ADAPTIVE_POLICY_NEVER, 0.0);
  for (i = 0; i < 1000; i++) assert_int_equal(feed(&s, 1.0 + i, 1.0, 1.0, NULL), 0);
}

/* The running average of C: first sample, plain mean, exponential. */
static void cost_average_follows_the_documented_weighting(void **unused)
{
  adaptive_config cfg;
  adaptive_state s;
  (void)unused;
  /* Plain mean of 1, 3, 5 is 3. */
  start(&s, ADAPTIVE_POLICY_ZHAI, -1.0);
  adaptive_state_balanced(&s, 1.0);
  assert_close(s.cost, 1.0, 0.0);
  adaptive_state_balanced(&s, 3.0);
  adaptive_state_balanced(&s, 5.0);
  assert_close(s.cost, 3.0, 1e-15);
  /* An unknown cost (< 0) resets the interval but not the average. */
  adaptive_state_balanced(&s, -1.0);
  assert_int_equal(s.cost_count, 3);
  /* Seed 2 counts as a sample: mean of 2 and 4 is 3. */
  start(&s, ADAPTIVE_POLICY_ZHAI, 2.0);
  adaptive_state_balanced(&s, 4.0);
  assert_close(s.cost, 3.0, 1e-15);
  /* Weight 0.5: 1 -> 0.5*3 + 0.5*1 = 2 -> 0.5*4 + 0.5*2 = 3. */
  adaptive_config_default(&cfg);
  cfg.cost_weight = 0.5;
  adaptive_state_init(&s, &cfg);
  adaptive_state_balanced(&s, 1.0);
  adaptive_state_balanced(&s, 3.0);
  assert_close(s.cost, 2.0, 1e-15);
  adaptive_state_balanced(&s, 4.0);
  assert_close(s.cost, 3.0, 1e-15);
}

/* Bad steps, configs and models are rejected and leave the state as it was. */
static void bad_inputs_are_rejected(void **unused)
{
  adaptive_config cfg;
  adaptive_state s;
  adaptive_step st;
  adaptive_ulba_model model = {4, 1, 0.5, 1.0, 1.0, 10.0, 1.0};
  const double withnan[2] = {1.0, NAN}, neg[2] = {1.0, -0.5};
  double smin, splus;
  (void)unused;
  start(&s, ADAPTIVE_POLICY_ZHAI, 1.0);
  feed(&s, 1.0, 1.0, 1.0, NULL);
  assert_int_equal(feed(&s, NAN, 1.0, 1.0, NULL), ADAPTIVE_EINVAL);
  assert_int_equal(feed(&s, 1.0, 1.0, -1.0, NULL), ADAPTIVE_EINVAL);
  assert_int_equal(feed(&s, INFINITY, 1.0, 1.0, NULL), ADAPTIVE_EINVAL);
  assert_int_equal(feed(&s, 1.0, 2.0, 0.5, NULL), ADAPTIVE_EINVAL); /* avg > max */
  assert_int_equal(s.since, 1);
  assert_int_equal(adaptive_state_balanced(&s, NAN), ADAPTIVE_EINVAL);
  assert_int_equal(adaptive_step_from_times(2, withnan, NULL, NULL, &st), ADAPTIVE_EINVAL);
  assert_int_equal(adaptive_step_from_times(2, neg, NULL, NULL, &st), ADAPTIVE_EINVAL);
  assert_int_equal(adaptive_step_from_times(0, neg, NULL, NULL, &st), ADAPTIVE_EINVAL);

  adaptive_config_default(&cfg);
  assert_int_equal(adaptive_config_check(&cfg), ADAPTIVE_OK);
  cfg.eff_min = 0.0;
  assert_int_equal(adaptive_state_configure(&s, &cfg), ADAPTIVE_EINVAL);
  cfg.eff_min = 1.5;
  assert_int_equal(adaptive_config_check(&cfg), ADAPTIVE_EINVAL);
  adaptive_config_default(&cfg);
  cfg.period = 0;
  assert_int_equal(adaptive_config_check(&cfg), ADAPTIVE_EINVAL);
  adaptive_config_default(&cfg);
  cfg.cost_weight = 1.5;
  assert_int_equal(adaptive_config_check(&cfg), ADAPTIVE_EINVAL);
  adaptive_config_default(&cfg);
  cfg.settle_steps = 0;
  assert_int_equal(adaptive_config_check(&cfg), ADAPTIVE_EINVAL);
  adaptive_config_default(&cfg);
  cfg.initial_cost = NAN;
  assert_int_equal(adaptive_config_check(&cfg), ADAPTIVE_EINVAL);
  assert_close(s.cfg.eff_min, 0.9, 0.0); /* unchanged by the rejected configure */

  model.N = 4; /* N must be < P */
  assert_int_equal(adaptive_state_set_model(&s, &model), ADAPTIVE_EINVAL);
  assert_int_equal(s.have_model, 0);
  model.N = 1;
  model.alpha = 1.5;
  assert_int_equal(adaptive_ulba_bounds(&model, 1.0, &smin, &splus), ADAPTIVE_EINVAL);
  model.alpha = 0.5;
  model.omega = 0.0;
  assert_int_equal(adaptive_ulba_check(&model), ADAPTIVE_EINVAL);
  model.omega = 1.0;
  assert_int_equal(adaptive_ulba_bounds(&model, -1.0, &smin, &splus), ADAPTIVE_EINVAL);
}

/* Policy names parse case-insensitively and round-trip. */
static void policy_names_round_trip(void **unused)
{
  adaptive_policy_id id;
  int i;
  (void)unused;
  for (i = ADAPTIVE_POLICY_ZHAI; i <= ADAPTIVE_POLICY_EFFICIENCY; i++) {
    assert_int_equal(adaptive_policy_parse(adaptive_policy_name((adaptive_policy_id)i), &id),
                     ADAPTIVE_OK);
    assert_int_equal(id, i);
  }
  assert_int_equal(adaptive_policy_parse("menon_Cumulative", &id), ADAPTIVE_OK);
  assert_int_equal(id, ADAPTIVE_POLICY_MENON_CUMULATIVE);
  assert_int_equal(adaptive_policy_parse("ZHAIX", &id), ADAPTIVE_EINVAL);
  assert_int_equal(adaptive_policy_parse("", &id), ADAPTIVE_EINVAL);
}

/* The history ring keeps the newest records, oldest first. */
static void history_ring_keeps_the_newest_records(void **unused)
{
  adaptive_ring h;
  adaptive_record r = {0, 0, 0, 0, 0, 0};
  long i;
  (void)unused;
  assert_int_equal(adaptive_ring_init(&h, 0), ADAPTIVE_EINVAL);
  assert_int_equal(adaptive_ring_init(&h, 3), ADAPTIVE_OK);
  for (i = 0; i < 7; i++) {
    r.step = i;
    adaptive_ring_push(&h, &r);
  }
  assert_int_equal(h.count, 3);
  assert_int_equal(adaptive_ring_get(&h, 0)->step, 4);
  assert_int_equal(adaptive_ring_get(&h, 2)->step, 6);
  assert_null(adaptive_ring_get(&h, 3));
  adaptive_ring_clear(&h);
  assert_int_equal(h.count, 0);
  adaptive_ring_free(&h);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(zhai_triggers_at_the_hand_computed_step),
      cmocka_unit_test(zhai_ignores_a_single_spike),
      cmocka_unit_test(zhai_adds_the_ulba_overhead_to_the_cost),
      cmocka_unit_test(zhai_without_a_cost_balances_at_the_first_degradation),
      cmocka_unit_test(menon_tau_is_sqrt_of_two_c_over_the_slope),
      cmocka_unit_test(menon_slope_is_the_least_squares_fit),
      cmocka_unit_test(menon_cumulative_balances_when_the_sum_reaches_c),
      cmocka_unit_test(ulba_bounds_match_equations_8_and_12_for_paper_parameters),
      cmocka_unit_test(ulba_policy_waits_for_sigma_minus_and_fires_at_sigma_plus),
      cmocka_unit_test(ulba_guard_fires_before_sigma_minus_only_against_the_model),
      cmocka_unit_test(imbalance_degradation_ignores_uniform_growth),
      cmocka_unit_test(imbalance_degradation_follows_a_growing_hot_spot),
      cmocka_unit_test(total_degradation_is_zhai_as_published_bit_for_bit),
      cmocka_unit_test(ulba_guard_predicts_the_imbalance_under_imbalance),
      cmocka_unit_test(degradation_names_round_trip),
      cmocka_unit_test(changing_the_degradation_restarts_the_zhai_sum),
      cmocka_unit_test(threshold_measures_after_settling_then_every_interval),
      cmocka_unit_test(threshold_uses_the_normalized_load_average),
      cmocka_unit_test(efficiency_balances_below_eff_min),
      cmocka_unit_test(baselines_periodic_always_never),
      cmocka_unit_test(cost_average_follows_the_documented_weighting),
      cmocka_unit_test(bad_inputs_are_rejected),
      cmocka_unit_test(policy_names_round_trip),
      cmocka_unit_test(history_ring_keeps_the_newest_records),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
