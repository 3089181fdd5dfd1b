/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the model study (ulba/model/ulba_study.c) on tiny
 * configurations: the exact optimum against brute force, the figures'
 * guarantees, Table II's ranges and determinism with a seed. */
#include <stdlib.h>
#include <string.h>

#include "ulba_test.h"

#include "ulba_core.h"
#include "ulba_study.h"

/* Instances respect the ranges of Table II and dW = a P + m N. */
static void ulba_sampled_instances_follow_table_ii(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed_stream(&rng, 1, 1);
  int seen[4] = {0};
  for (int k = 0; k < 2000; ++k) {
    ulba_instance in;
    double fraction = k % 2 ? 0.0 : 0.05;
    assert_int_equal(ulba_study_sample(&rng, fraction, &in), ULBA_OK);
    const ulba_model *q = &in.model;
    assert_int_equal(ulba_model_check(q), ULBA_OK);
    int idx = q->P == 256 ? 0 : q->P == 512 ? 1 : q->P == 1024 ? 2 : q->P == 2048 ? 3 : -1;
    assert_true(idx >= 0);
    seen[idx]++;
    if (fraction > 0.0)
      assert_true(q->N == fmax(1.0, floor(q->P * 0.05 + 0.5)));
    else
      assert_true(q->N >= fmax(1.0, floor(q->P * 0.01)) && q->N <= ceil(q->P * 0.2));
    double per_pe = q->W / q->P;
    assert_true(per_pe >= 52e7 && per_pe <= 1165e7);
    double dw = q->a * q->P + q->m * q->N;
    assert_true(dw >= 0.01 * per_pe * (1 - 1e-12) && dw <= 0.3 * per_pe * (1 + 1e-12));
    /* y = share of dW going to the overloading PEs, in [0.8, 1.0). */
    double y = q->m * q->N / dw;
    assert_true(y >= 0.8 - 1e-12 && y < 1.0 + 1e-12);
    double z = q->C * q->omega / per_pe;
    assert_true(z >= 0.1 - 1e-12 && z < 3.0 + 1e-12);
    assert_true(in.alpha >= 0.0 && in.alpha < 1.0);
    assert_true(q->omega == 1e9);
  }
  for (int i = 0; i < 4; ++i) assert_true(seen[i] > 400);
}

/* Total time of the best schedule by enumerating every subset of steps. */
static double brute_force_optimum(const ulba_model *q, double alpha, long gamma)
{
  unsigned char lb[16];
  double best = INFINITY;
  for (unsigned long mask = 0; mask < (1ul << (gamma - 1)); ++mask) {
    lb[0] = 1;
    for (long i = 1; i < gamma; ++i) lb[i] = (mask >> (i - 1)) & 1u;
    double t;
    assert_int_equal(ulba_study_schedule_time(q, alpha, gamma, lb, &t), ULBA_OK);
    best = fmin(best, t);
  }
  return best;
}

/* A small random model where several schedules compete. */
static ulba_model tiny_model(zp_rng *rng)
{
  ulba_model q;
  q.P = (double)(4 + zp_rng_next(rng) % 13);
  q.N = (double)(1 + zp_rng_next(rng) % 3);
  q.a = zp_rng_range(rng, 0.0, 1.0);
  q.m = zp_rng_range(rng, 0.5, 10.0);
  q.W = q.P * zp_rng_range(rng, 5.0, 50.0);
  q.C = zp_rng_range(rng, 0.5, 30.0);
  q.omega = 1.0;
  return q;
}

/* The dynamic programme finds the brute-force optimum, and its schedule
 * costs what it reports. */
static void ulba_dp_optimum_matches_brute_force(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed_stream(&rng, 17, 0);
  for (int trial = 0; trial < 150; ++trial) {
    ulba_model q = tiny_model(&rng);
    double alpha = trial % 3 == 0 ? 0.0 : zp_rng_range(&rng, 0.0, 0.95);
    long gamma = 1 + trial % 12;
    double dp, check;
    unsigned char lb[16];
    long nlb;
    assert_int_equal(ulba_study_optimum(&q, alpha, gamma, &dp, lb, &nlb), ULBA_OK);
    assert_close(dp, brute_force_optimum(&q, alpha, gamma), 1e-12);
    assert_true(lb[0] == 1);
    long count = 0;
    for (long i = 0; i < gamma; ++i) count += lb[i];
    assert_int_equal(count, nlb);
    assert_int_equal(ulba_study_schedule_time(&q, alpha, gamma, lb, &check), ULBA_OK);
    assert_close(check, dp, 1e-12);
  }
}

/* The sigma-plus policy of ulba_predicted_time is the explicit schedule
 * "a step every round(sigma-plus) iterations", and the optimum is never
 * worse than it. */
static void ulba_sigma_plus_schedule_is_feasible_and_not_better_than_optimum(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed_stream(&rng, 23, 0);
  for (int trial = 0; trial < 200; ++trial) {
    ulba_model q = tiny_model(&rng);
    double alpha = zp_rng_range(&rng, 0.0, 0.9);
    long gamma = 40;
    unsigned char lb[40] = {0};
    long i = 0, steps = 0;
    while (i < gamma) {
      ulba_model at = q;
      at.W = q.W + (double)i * (q.a * q.P + q.m * q.N);
      double sp;
      assert_int_equal(ulba_sigma_plus(&at, alpha, &sp), ULBA_OK);
      lb[i] = 1;
      ++steps;
      long len = sp < 0.5 ? 1 : (long)floor(sp + 0.5);
      i += len;
    }
    double by_schedule, by_policy, opt;
    long nlb;
    assert_int_equal(ulba_study_schedule_time(&q, alpha, gamma, lb, &by_schedule), ULBA_OK);
    assert_int_equal(ulba_predicted_time(&q, alpha, gamma, &by_policy, &nlb), ULBA_OK);
    assert_close(by_policy, by_schedule, 1e-12);
    assert_int_equal(nlb, steps);
    assert_int_equal(ulba_study_optimum(&q, alpha, gamma, &opt, NULL, NULL), ULBA_OK);
    assert_true(opt <= by_policy * (1.0 + 1e-12));
  }
}

/* The closed-form sigma-minus is the brute-force crossing of explicitly
 * simulated PE loads, and sigma-plus the brute-force (bisection) solution
 * of Eq. (9), on tiny instances. */
static void ulba_closed_form_bounds_match_brute_force(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed_stream(&rng, 29, 0);
  for (int trial = 0; trial < 300; ++trial) {
    ulba_model q = tiny_model(&rng);
    double alpha = zp_rng_range(&rng, 0.0, 0.95);
    double sm, sp;
    assert_int_equal(ulba_sigma_minus(&q, alpha, &sm), ULBA_OK);
    assert_int_equal(ulba_sigma_plus(&q, alpha, &sp), ULBA_OK);
    /* Brute force sigma-minus: the last iteration t at which every
     * overloading PE is still at most as loaded as the others. */
    int P = (int)q.P, N = (int)q.N;
    double load[16];
    for (int p = 0; p < P; ++p)
      load[p] = p < N ? (1.0 - alpha) * q.W / q.P : (1.0 + alpha * q.N / (q.P - q.N)) * q.W / q.P;
    long t = -1;
    for (long s = 0; s < 100000; ++s) {
      double over = 0.0, rest = 0.0;
      for (int p = 0; p < P; ++p) {
        double l = load[p] + (double)s * (q.a + (p < N ? q.m : 0.0));
        if (p < N)
          over = fmax(over, l);
        else
          rest = fmax(rest, l);
      }
      /* Equal loads count as caught up only beyond rounding. */
      if (over > rest * (1.0 + 1e-12)) break;
      t = s;
    }
    assert_true((double)t == sm || fabs((double)t - sm) <= 1.0);
    if ((double)t != sm) {
      /* Only an exact tie at an integer can make them differ by one. */
      double tstar = (1.0 + q.N / (q.P - q.N)) * alpha * q.W / (q.m * q.P);
      assert_true(fabs(tstar - floor(tstar + 0.5)) < 1e-9);
    }
    /* Brute force Eq. (9): the tau >= 0 where m_hat tau^2 / (2 omega), the
     * imbalance cost, equals the overhead of Eq. (11) plus C. */
    double m_hat = q.m * (q.P - q.N) / q.P;
    double lo = 0.0, hi = 1.0;
    for (;;) {
      double ov;
      assert_int_equal(ulba_overhead(&q, alpha, hi, &ov), ULBA_OK);
      if (m_hat * hi * hi / (2.0 * q.omega) > ov + q.C) break;
      hi *= 2.0;
    }
    for (int it = 0; it < 200; ++it) {
      double mid = 0.5 * (lo + hi), ov;
      assert_int_equal(ulba_overhead(&q, alpha, mid, &ov), ULBA_OK);
      if (m_hat * mid * mid / (2.0 * q.omega) > ov + q.C)
        hi = mid;
      else
        lo = mid;
    }
    assert_close(sp, sm + 0.5 * (lo + hi), 1e-9);
  }
}

/* Figure 3 on a tiny configuration: ULBA's best alpha is never worse than
 * the standard method (alpha = 0 is in the grid), the reported time is the
 * time of the reported alpha, and AUTO is within 0.1 points of the grid. */
static void ulba_fig3_best_alpha_never_worse_than_standard(void **state)
{
  (void)state;
  long n = 6;
  int lo = 1, hi = 20;
  ulba_fig3_row *rows = calloc((size_t)(n * (hi - lo + 1)), sizeof *rows);
  assert_non_null(rows);
  assert_int_equal(ulba_study_fig3(7, n, lo, hi, 20, 100, rows), ULBA_OK);
  for (long k = 0; k < n * (hi - lo + 1); ++k) {
    const ulba_fig3_row *r = &rows[k];
    assert_int_equal(r->pct, lo + (int)(k / n));
    assert_true(r->gain_pct >= 0.0);
    assert_true(r->t_best <= r->t_std);
    double t;
    assert_int_equal(ulba_predicted_time(&r->inst.model, r->best_alpha, 100, &t, NULL), ULBA_OK);
    assert_true(t == r->t_best);
    assert_int_equal(ulba_predicted_time(&r->inst.model, 0.0, 100, &t, NULL), ULBA_OK);
    assert_true(t == r->t_std);
    assert_true(r->auto_gain_pct >= 0.0);
    assert_true(r->auto_gain_pct >= r->gain_pct - 0.1);
    assert_true(r->inst.model.N == fmax(1.0, floor(r->inst.model.P * r->pct / 100.0 + 0.5)));
  }
  free(rows);
}

/* Figure 2 on a tiny configuration: the optimum is never worse than the
 * sigma-plus schedule, so every gap is <= 0. */
static void ulba_fig2_gaps_are_never_positive(void **state)
{
  (void)state;
  long n = 40;
  ulba_fig2_row *rows = calloc((size_t)n, sizeof *rows);
  assert_non_null(rows);
  assert_int_equal(ulba_study_fig2(5, n, 100, rows), ULBA_OK);
  for (long k = 0; k < n; ++k) {
    assert_true(rows[k].gap_pct <= 1e-10);
    assert_true(rows[k].t_opt <= rows[k].t_sigma * (1.0 + 1e-12));
    assert_true(rows[k].lb_opt >= 1 && rows[k].lb_sigma >= 1);
  }
  free(rows);
}

/* The study is a function of its seed: equal seeds give identical rows,
 * another seed gives other instances. */
static void ulba_study_is_deterministic_with_a_seed(void **state)
{
  (void)state;
  long n = 5;
  ulba_fig2_row a2[5], b2[5], c2[5];
  memset(a2, 0, sizeof a2);
  memset(b2, 0, sizeof b2);
  memset(c2, 0, sizeof c2);
  assert_int_equal(ulba_study_fig2(99, n, 100, a2), ULBA_OK);
  assert_int_equal(ulba_study_fig2(99, n, 100, b2), ULBA_OK);
  assert_int_equal(ulba_study_fig2(100, n, 100, c2), ULBA_OK);
  assert_memory_equal(a2, b2, sizeof a2);
  assert_true(a2[0].inst.model.W != c2[0].inst.model.W);
  ulba_fig3_row a3[10], b3[10];
  assert_int_equal(ulba_study_fig3(99, n, 3, 4, 10, 100, a3), ULBA_OK);
  assert_int_equal(ulba_study_fig3(99, n, 3, 4, 10, 100, b3), ULBA_OK);
  /* Field by field: the padding after pct is not part of the result. */
  for (int k = 0; k < 10; ++k) {
    assert_int_equal(a3[k].pct, b3[k].pct);
    assert_memory_equal(&a3[k].inst, &b3[k].inst, sizeof a3[k].inst);
    assert_true(a3[k].t_std == b3[k].t_std && a3[k].t_best == b3[k].t_best);
    assert_true(a3[k].best_alpha == b3[k].best_alpha && a3[k].gain_pct == b3[k].gain_pct);
    assert_true(a3[k].auto_alpha == b3[k].auto_alpha);
    assert_true(a3[k].auto_gain_pct == b3[k].auto_gain_pct);
    assert_true(a3[k].dp_gain_pct == b3[k].dp_gain_pct);
  }
}

/* Bad study arguments are refused. */
static void ulba_study_refuses_bad_arguments(void **state)
{
  (void)state;
  ulba_fig3_row r[1];
  ulba_fig2_row r2[1];
  assert_int_equal(ulba_study_fig3(1, 1, 0, 1, 10, 100, r), ULBA_ERR_ARG);
  assert_int_equal(ulba_study_fig3(1, 1, 3, 2, 10, 100, r), ULBA_ERR_ARG);
  assert_int_equal(ulba_study_fig3(1, 1, 1, 1, 0, 100, r), ULBA_ERR_ARG);
  assert_int_equal(ulba_study_fig2(1, 0, 100, r2), ULBA_ERR_ARG);
  zp_rng rng;
  zp_rng_seed_stream(&rng, 1, 1);
  ulba_instance in;
  assert_int_equal(ulba_study_sample(&rng, 0.5, &in), ULBA_ERR_ARG);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ulba_sampled_instances_follow_table_ii),
      cmocka_unit_test(ulba_dp_optimum_matches_brute_force),
      cmocka_unit_test(ulba_sigma_plus_schedule_is_feasible_and_not_better_than_optimum),
      cmocka_unit_test(ulba_closed_form_bounds_match_brute_force),
      cmocka_unit_test(ulba_fig3_best_alpha_never_worse_than_standard),
      cmocka_unit_test(ulba_fig2_gaps_are_never_positive),
      cmocka_unit_test(ulba_study_is_deterministic_with_a_seed),
      cmocka_unit_test(ulba_study_refuses_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
