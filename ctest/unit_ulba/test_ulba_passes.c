/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the per-object passes of ulba/ulba_core.c that the adapter
 * runs over every local object at each balance: the rates of many series
 * at once, the sums per part and the sums of the known rates.  Each is
 * checked against the plain loop it replaces. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ulba_test.h"

#include "ulba_core.h"
#include "zp_rng.h"

/* Series of m objects over n steps, stored by step as the snapshots hold
 * them, with loads of very different magnitudes and irregular changes; a
 * few samples are not numbers. */
static double **make_series(size_t n, size_t m, uint64_t seed, int with_bad)
{
  zp_rng r;
  double **y = calloc(n + 1, sizeof *y);
  assert_non_null(y);
  zp_rng_seed(&r, seed);
  for (size_t k = 0; k < n; k++) {
    y[k] = malloc((m + 1) * sizeof *y[k]);
    assert_non_null(y[k]);
  }
  for (size_t i = 0; i < m; i++) {
    double base = pow(10.0, (double)(zp_rng_below(&r, 13))) * (1.0 + zp_rng_uniform(&r));
    for (size_t k = 0; k < n; k++) y[k][i] = base + sin(1.7 * (double)i + 0.9 * (double)k);
    if (with_bad && n > 0 && i % 97 == 5) y[i % n][i] = (i % 2) ? NAN : INFINITY;
  }
  return y;
}

static void free_series(double **y, size_t n)
{
  for (size_t k = 0; k < n; k++) free(y[k]);
  free(y);
}

/* The series form gives what ulba_slope_fit gives for each series, bit for
 * bit, and NaN where it fails, with times given or implicit, equal times,
 * and 0-5 samples (two samples take a form of their own). */
static void ulba_series_fit_equals_one_fit_per_series(void **state)
{
  (void)state;
  const size_t m = 1000;
  double t[5] = {3.0, 4.0, 6.0, 9.0, 17.0}, tie[5] = {2.0, 2.0, 2.0, 2.0, 2.0};
  double *slope = malloc(m * sizeof *slope), yi[5];
  assert_non_null(slope);
  for (size_t n = 0; n <= 5; n++)
    for (int times = 0; times < 3; times++) {
      const double *tt = times == 0 ? NULL : times == 1 ? t : tie;
      double **y = make_series(n, m, 100 + n, 1);
      ulba_slope_basis b;
      assert_int_equal(ulba_slope_basis_init(n, tt, &b), ULBA_OK);
      assert_int_equal(ulba_slope_fit_series(&b, m, (const double *const *)y, slope), ULBA_OK);
      for (size_t i = 0; i < m; i++) {
        double one = -1.0;
        for (size_t k = 0; k < n; k++) yi[k] = y[k][i];
        if (ulba_slope_fit(&b, yi, &one) == ULBA_OK)
          assert_true(memcmp(&one, &slope[i], sizeof one) == 0);
        else
          assert_true(isnan(slope[i]));
      }
      free_series(y, n);
    }
  free(slope);
}

/* Sums per part equal the object-by-object sums up to rounding, skip parts
 * outside [0, P) and NaN values, honour the stride, and do not depend on
 * anything but the input (the same call twice gives the same bits). */
static void ulba_sum_by_part_equals_the_plain_sum(void **state)
{
  (void)state;
  enum { N = 5003, P = 7, STRIDE = 2 };
  int *part = malloc(N * sizeof *part);
  double *v = malloc(N * STRIDE * sizeof *v), acc[P], again[P], plain[P];
  zp_rng r;
  assert_non_null(part);
  assert_non_null(v);
  zp_rng_seed(&r, 7);
  for (int i = 0; i < N; i++) {
    /* Runs of random length, some outside the parts. */
    part[i] = (i > 0 && zp_rng_below(&r, 10) < 8) ? part[i - 1] : (int)zp_rng_below(&r, P + 2) - 1;
    v[i * STRIDE] = (i % 211 == 3) ? NAN : 1000.0 * zp_rng_uniform(&r);
    v[i * STRIDE + 1] = 1e300; /* must never be read */
  }
  for (int p = 0; p < P; p++) acc[p] = again[p] = plain[p] = 0.0;
  for (int i = 0; i < N; i++)
    if (part[i] >= 0 && part[i] < P && !isnan(v[i * STRIDE])) plain[part[i]] += v[i * STRIDE];
  assert_int_equal(ulba_sum_by_part(N, part, v, STRIDE, P, acc), ULBA_OK);
  assert_int_equal(ulba_sum_by_part(N, part, v, STRIDE, P, again), ULBA_OK);
  for (int p = 0; p < P; p++) {
    assert_close(acc[p], plain[p], 1e-12);
    assert_true(memcmp(&acc[p], &again[p], sizeof acc[p]) == 0);
  }
  /* It adds to what acc holds. */
  assert_int_equal(ulba_sum_by_part(N, part, v, STRIDE, P, acc), ULBA_OK);
  for (int p = 0; p < P; p++) assert_close(acc[p], 2.0 * plain[p], 1e-12);
  assert_int_equal(ulba_sum_by_part(0, NULL, NULL, 1, P, acc), ULBA_OK);
  assert_int_equal(ulba_sum_by_part(N, NULL, v, 1, P, acc), ULBA_ERR_ARG);
  assert_int_equal(ulba_sum_by_part(N, part, v, 0, P, acc), ULBA_ERR_ARG);
  free(part);
  free(v);
}

/* The sums of the known rates and of their objects' weights: NaN rates
 * leave their object out, odd and even counts, the stride. */
static void ulba_known_sums_leave_unknown_rates_out(void **state)
{
  (void)state;
  for (size_t n = 0; n < 9; n++) {
    double w[18], g[9], sums[2] = {-1.0, -1.0}, plain[2] = {0.0, 0.0};
    for (size_t i = 0; i < n; i++) {
      w[2 * i] = 1.0 + (double)i;
      w[2 * i + 1] = 1e300;
      g[i] = (i % 3 == 1) ? NAN : 0.25 * (double)i - 1.0;
      if (!isnan(g[i])) {
        plain[0] += w[2 * i];
        plain[1] += g[i];
      }
    }
    assert_int_equal(ulba_known_sums(n, w, 2, g, sums), ULBA_OK);
    /* Small integers and quarters: every order of addition is exact. */
    assert_true(sums[0] == plain[0]);
    assert_true(sums[1] == plain[1]);
  }
  {
    double sums[2];
    assert_int_equal(ulba_known_sums(3, NULL, 1, NULL, sums), ULBA_ERR_ARG);
    assert_int_equal(ulba_known_sums(0, NULL, 1, NULL, NULL), ULBA_ERR_ARG);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ulba_series_fit_equals_one_fit_per_series),
      cmocka_unit_test(ulba_sum_by_part_equals_the_plain_sum),
      cmocka_unit_test(ulba_known_sums_leave_unknown_rates_out),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
