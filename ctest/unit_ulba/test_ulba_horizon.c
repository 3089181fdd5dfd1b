/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of ulba/ulba_horizon.c: the horizon of ULBA_GROWTH=OBJECT with
 * ULBA_ALPHA=AUTO against a direct simulation of the model it solves, and
 * the caps that keep a base run within the base method's bounds against
 * the weights and sizes they are meant to bound. */
#include <math.h>
#include <stdlib.h>

#include "ulba_test.h"

#include "ulba_core.h"
#include "zp_rng.h"

#define MAXP 16

/* The time lost to imbalance from a balance on weights anticipated over H
 * until the trigger's sum reaches C, found by stepping the loads
 * themselves: part p leads the average by (t - H) e_p, with e_p as
 * ulba_anticipate defines it on equal parts.  Returns the interval. */
static double simulated_interval(size_t P, const double *rates, double C, double H)
{
  double G = 0.0, lost = 0.0, dt = 1e-3, t;
  for (size_t p = 0; p < P; p++) G += rates[p];
  for (t = 0.0; t < 1e7; t += dt) {
    double lead = -INFINITY;
    for (size_t p = 0; p < P; p++) {
      double e = rates[p] - G / (double)P, d = (t + 0.5 * dt - H) * e;
      lead = d > lead ? d : lead;
    }
    if (lost + lead * dt >= C) return t + (C - lost) / lead;
    lost += lead * dt;
    if (t > 50.0 * (H + 1.0)) dt = 1e-2;
  }
  return t;
}

/* Random parts of equal load: a few grow fast, the others slowly. */
static void random_rates(zp_rng *r, size_t P, double *rates, double *loads)
{
  for (size_t p = 0; p < P; p++) {
    rates[p] = 0.05 * zp_rng_uniform(r);
    loads[p] = 100.0;
  }
  for (size_t k = 0; k < 1 + zp_rng_below(r, 3); k++)
    rates[zp_rng_below(r, (uint64_t)P)] += 1.0 + 4.0 * zp_rng_uniform(r);
}

static void object_horizon_makes_the_longest_interval(void **state)
{
  zp_rng r;
  (void)state;
  zp_rng_seed(&r, 11);
  for (int trial = 0; trial < 20; trial++) {
    double rates[MAXP], loads[MAXP], C = 5.0 + 50.0 * zp_rng_uniform(&r), H, T, best = 0.0;
    size_t P = 4 + zp_rng_below(&r, MAXP - 4);
    random_rates(&r, P, rates, loads);
    assert_int_equal(ulba_object_horizon(P, rates, loads, C, INFINITY, &H, &T), ULBA_OK);
    assert_true(H > 0.0);
    /* The predicted interval is the simulated one at that horizon. */
    assert_close(T, simulated_interval(P, rates, C, H), 1e-3);
    /* No other horizon gives a longer interval (a grid from 0 to 3 H). */
    for (int k = 0; k <= 60; k++) {
      double t = simulated_interval(P, rates, C, 0.05 * k * H);
      best = t > best ? t : best;
    }
    assert_true(T >= best * (1.0 - 1e-3));
    /* And a plain balance (H = 0) gives a shorter one. */
    assert_true(simulated_interval(P, rates, C, 0.0) < T);
  }
}

static void object_horizon_keeps_to_the_largest_extra(void **state)
{
  double rates[4] = {0.0, 0.0, 0.0, 4.0}, loads[4] = {10.0, 10.0, 10.0, 10.0}, H, Hfree;
  (void)state;
  /* lead = 4 - 1 = 3: an extra of at most 6 allows two steps. */
  assert_int_equal(ulba_object_horizon(4, rates, loads, 1e6, INFINITY, &Hfree, NULL), ULBA_OK);
  assert_int_equal(ulba_object_horizon(4, rates, loads, 1e6, 6.0, &H, NULL), ULBA_OK);
  assert_true(Hfree > 2.0);
  assert_close(H, 2.0, 1e-12);
}

static void object_horizon_is_zero_without_anything_to_gain(void **state)
{
  double same[3] = {2.0, 2.0, 2.0}, loads[3] = {1.0, 2.0, 3.0}, prop[3] = {1.0, 2.0, 3.0}, H = 1.0;
  (void)state;
  /* Equal rates on equal loads, rates in proportion to the loads, or a
   * free balance: nothing to anticipate. */
  double eq[3] = {5.0, 5.0, 5.0};
  assert_int_equal(ulba_object_horizon(3, same, eq, 10.0, INFINITY, &H, NULL), ULBA_OK);
  assert_true(H == 0.0);
  H = 1.0;
  assert_int_equal(ulba_object_horizon(3, prop, loads, 10.0, INFINITY, &H, NULL), ULBA_OK);
  assert_true(H == 0.0);
  H = 1.0;
  assert_int_equal(ulba_object_horizon(3, prop, eq, 0.0, INFINITY, &H, NULL), ULBA_OK);
  assert_true(H == 0.0);
  assert_int_equal(ulba_object_horizon(0, prop, eq, 1.0, 1.0, &H, NULL), ULBA_ERR_ARG);
  assert_int_equal(ulba_object_horizon(3, NULL, eq, 1.0, 1.0, &H, NULL), ULBA_ERR_ARG);
  assert_int_equal(ulba_object_horizon(3, prop, eq, -1.0, 1.0, &H, NULL), ULBA_ERR_ARG);
  assert_int_equal(ulba_object_horizon(3, prop, eq, NAN, 1.0, &H, NULL), ULBA_ERR_ARG);
  loads[1] = -1.0;
  assert_int_equal(ulba_object_horizon(3, prop, loads, 1.0, 1.0, &H, NULL), ULBA_ERR_ARG);
}

static void horizon_cap_keeps_every_weight_under_the_limit(void **state)
{
  enum { N = 300 };
  double w[N], g[N], out[N], W = 0.0, G = 0.0;
  zp_rng r;
  (void)state;
  zp_rng_seed(&r, 5);
  for (int i = 0; i < N; i++) {
    w[i] = 1.0 + 9.0 * zp_rng_uniform(&r);
    g[i] = i % 7 == 0 ? 2.0 * zp_rng_uniform(&r) : (i % 11 == 0 ? NAN : 0.0);
    if (!isnan(g[i])) {
      W += w[i];
      G += g[i];
    }
  }
  for (double limit = 12.0; limit < 200.0; limit *= 2.0) {
    double H = 1000.0, top = 0.0, over = 0.0;
    assert_int_equal(ulba_horizon_cap(N, w, 1, g, W, G, limit, &H), ULBA_OK);
    assert_true(H < 1000.0 && H > 0.0);
    assert_int_equal(ulba_anticipate(N, w, 1, g, W, G, H, out), ULBA_OK);
    for (int i = 0; i < N; i++) top = out[i] > top ? out[i] : top;
    assert_true(top <= limit * (1.0 + 1e-12));
    /* The cap is tight: a little further, some weight crosses it. */
    assert_int_equal(ulba_anticipate(N, w, 1, g, W, G, H * 1.001, out), ULBA_OK);
    for (int i = 0; i < N; i++) over = out[i] > over ? out[i] : over;
    assert_true(over > limit);
  }
  /* An object already above the limit that gains weight stops any
   * anticipation; a horizon within the limit stays as it was. */
  {
    double H = 5.0, ww[2] = {20.0, 1.0}, gg[2] = {1.0, 0.0};
    assert_int_equal(ulba_horizon_cap(2, ww, 1, gg, 21.0, 1.0, 10.0, &H), ULBA_OK);
    assert_true(H == 0.0);
    H = 0.5;
    ww[0] = 5.0;
    assert_int_equal(ulba_horizon_cap(2, ww, 1, gg, 6.0, 1.0, 10.0, &H), ULBA_OK);
    assert_true(H == 0.5);
    assert_int_equal(ulba_horizon_cap(2, ww, 0, gg, 6.0, 1.0, 10.0, &H), ULBA_ERR_ARG);
    H = -1.0;
    assert_int_equal(ulba_horizon_cap(2, ww, 1, gg, 6.0, 1.0, 10.0, &H), ULBA_ERR_ARG);
  }
}

/* The smallest positive size of an overloading part. */
static double smallest_flagged_share(size_t P, const double *sizes, const int *flags)
{
  double s = INFINITY;
  for (size_t p = 0; p < P; p++)
    if (flags[p] && sizes[p] > 0.0 && sizes[p] < s) s = sizes[p];
  return s;
}

static void alpha_cap_keeps_the_smallest_part_large_enough(void **state)
{
  zp_rng r;
  (void)state;
  zp_rng_seed(&r, 3);
  for (int trial = 0; trial < 200; trial++) {
    size_t P = 3 + zp_rng_below(&r, MAXP - 3);
    double base[MAXP], sizes[MAXP], more[MAXP], asked = 0.9 * zp_rng_uniform(&r), alpha = asked;
    double min_share = 0.2 * zp_rng_uniform(&r) / (double)P;
    int flags[MAXP] = {0}, uniform = trial % 2;
    for (size_t p = 0; p < P; p++) base[p] = 1.0 + (uniform ? 0.0 : zp_rng_uniform(&r));
    flags[zp_rng_below(&r, (uint64_t)P)] = 1;
    assert_int_equal(ulba_alpha_cap(P, base, flags, min_share, sizes, &alpha), ULBA_OK);
    assert_true(alpha <= asked && alpha >= 0.0);
    if (alpha > 0.0) assert_true(smallest_flagged_share(P, sizes, flags) >= min_share);
    if (alpha < asked) {
      /* Tight: a little more alpha goes below the share. */
      assert_int_equal(ulba_part_sizes(P, base, flags, alpha + 1e-6, more, NULL), ULBA_OK);
      assert_true(smallest_flagged_share(P, more, flags) < min_share);
    } else {
      assert_int_equal(ulba_part_sizes(P, base, flags, asked, more, NULL), ULBA_OK);
      for (size_t p = 0; p < P; p++) assert_true(more[p] == sizes[p]);
    }
  }
  {
    double base[4] = {1, 1, 1, 1}, sizes[4], alpha = 1.0;
    int flags[4] = {0, 0, 0, 1};
    assert_int_equal(ulba_alpha_cap(4, base, flags, 0.1, sizes, &alpha), ULBA_ERR_ARG);
    alpha = 0.9;
    assert_int_equal(ulba_alpha_cap(4, base, flags, NAN, sizes, &alpha), ULBA_ERR_ARG);
    /* Uniform sizes: the flagged part is (1 - alpha) / 4, so a share of
     * 0.1 allows alpha 0.6 at most. */
    assert_int_equal(ulba_alpha_cap(4, base, flags, 0.1, sizes, &alpha), ULBA_OK);
    assert_close(alpha, 0.6, 1e-9);
  }
  {
    /* An unflagged part below the share at alpha 0 (the application's own
     * sizes) grows with alpha and does not bound it: the flagged part
     * alone decides, at the alpha where its share is 0.04. */
    double base[4] = {0.1, 1, 1, 1}, sizes[4], alpha = 0.9;
    int flags[4] = {0, 0, 0, 1};
    assert_int_equal(ulba_alpha_cap(4, base, flags, 0.04, sizes, &alpha), ULBA_OK);
    assert_true(alpha > 0.5 && alpha < 0.9);
    assert_close(sizes[3], 0.04, 1e-9);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(object_horizon_makes_the_longest_interval),
      cmocka_unit_test(object_horizon_keeps_to_the_largest_extra),
      cmocka_unit_test(object_horizon_is_zero_without_anything_to_gain),
      cmocka_unit_test(horizon_cap_keeps_every_weight_under_the_limit),
      cmocka_unit_test(alpha_cap_keeps_the_smallest_part_large_enough),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
