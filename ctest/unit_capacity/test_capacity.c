/* SPDX-License-Identifier: BSD-3-Clause */
/* cmocka tests of the capacity model's core (capacity/capacity_core.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "capacity_core.h"

static const char *const hosts3[] = {"alpha", "alpha", "beta"};

/* Looks rank up in text on the three-rank machine above. */
static int lookup(const char *text, int rank, double *speed, char *msg)
{
  return capacity_file_lookup(text, "caps.txt", rank, 3, hosts3[rank], hosts3, speed, msg, 256);
}

static void rank_beats_host_beats_star(void **state)
{
  const char *text = "# speeds\n* 1.5\nalpha 2   # host line\n1 4\n";
  char msg[256];
  double s = 0.0;
  (void)state;
  assert_int_equal(lookup(text, 0, &s, msg), CAPACITY_OK);
  assert_true(s == 2.0);
  assert_int_equal(lookup(text, 1, &s, msg), CAPACITY_OK);
  assert_true(s == 4.0);
  assert_int_equal(lookup(text, 2, &s, msg), CAPACITY_OK);
  assert_true(s == 1.5);
}

static void bad_speeds_are_named_with_file_and_line(void **state)
{
  static const struct {
    const char *text, *expect;
  } cases[] = {
      {"0 1\n1 abc\n", "caps.txt:2: speed 'abc' of 1 is not a number"},
      {"0 1\n\n2 0\n", "caps.txt:3: speed 0 of 2 must be a finite number > 0"},
      {"0 -3\n", "caps.txt:1: speed -3 of 0 must be a finite number > 0"},
      {"* nan\n", "caps.txt:1: speed nan of * must be a finite number > 0"},
      {"* inf\n", "caps.txt:1: speed inf of * must be a finite number > 0"},
      {"0\n", "caps.txt:1: '0' has no speed"},
      {"0 1 2\n", "caps.txt:1: unexpected '2' after the speed of 0"},
      {"beta 1\nbeta 2\n", "caps.txt:2: beta is listed twice (first on line 1)"},
      {"99999999999 1\n", "caps.txt:1: rank number 99999999999 is out of range"},
  };
  char msg[256];
  double s = 7.0;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int rc = lookup(cases[i].text, 0, &s, msg);
    if (rc != CAPACITY_EINVAL || strstr(msg, cases[i].expect) == NULL)
      fail_msg("case %zu: rc %d, message '%s'", i, rc, msg);
    assert_true(s == 7.0); /* nothing written on error */
  }
}

static void unknown_rank_or_host_warns_and_missing_rank_fails(void **state)
{
  char msg[256];
  double s = 0.0;
  (void)state;
  assert_int_equal(lookup("* 1\n5 2\n", 0, &s, msg), CAPACITY_WARN);
  assert_non_null(strstr(msg, "caps.txt:2: rank 5 is not in this run of 3 ranks"));
  assert_true(s == 1.0);
  assert_int_equal(lookup("* 1\ngamma 2\n", 2, &s, msg), CAPACITY_WARN);
  assert_non_null(strstr(msg, "no rank of this run is on host gamma"));
  assert_int_equal(lookup("0 1\n1 2\n", 2, &s, msg), CAPACITY_EINVAL);
  assert_non_null(strstr(msg, "no line for rank 2 (host beta)"));
  /* The same text fails the same way on every rank: syntax first. */
  assert_int_equal(lookup("0 1\n1 x\n", 2, &s, msg), CAPACITY_EINVAL);
  assert_non_null(strstr(msg, "caps.txt:2"));
}

static void loadavg_parses_first_field(void **state)
{
  char msg[128];
  double a = -1.0;
  (void)state;
  assert_int_equal(capacity_parse_loadavg("2.50 1.00 0.50 3/400 1234\n", &a, msg, sizeof msg),
                   CAPACITY_OK);
  assert_true(a == 2.5);
  assert_int_equal(capacity_parse_loadavg("", &a, msg, sizeof msg), CAPACITY_EINVAL);
  assert_int_equal(capacity_parse_loadavg("-1 0 0\n", &a, msg, sizeof msg), CAPACITY_EINVAL);
  assert_int_equal(capacity_parse_loadavg("busy 0 0\n", &a, msg, sizeof msg), CAPACITY_EINVAL);
  assert_non_null(strstr(msg, "'busy'"));
}

static void loadavg_factor_counts_only_external_load(void **state)
{
  (void)state;
  /* One rank of ours, nothing else: full speed. */
  assert_true(capacity_loadavg_factor(1.0, 1) == 1.0);
  /* One competitor beside one rank of ours: half the core. */
  assert_true(fabs(capacity_loadavg_factor(2.0, 1) - 0.5) < 1e-12);
  /* Two ranks of ours and two competitors: one competitor per rank. */
  assert_true(fabs(capacity_loadavg_factor(4.0, 2) - 0.5) < 1e-12);
  /* A load below our own rank count is no external load. */
  assert_true(capacity_loadavg_factor(0.3, 2) == 1.0);
  assert_true(capacity_loadavg_factor(NAN, 1) == 1.0);
}

static void smoothing_averages_and_ignores_small_changes(void **state)
{
  (void)state;
  assert_true(capacity_smooth(0.0, 3.0, 0.5, 0.05) == 3.0);
  assert_true(fabs(capacity_smooth(2.0, 4.0, 0.5, 0.05) - 3.0) < 1e-12);
  /* 2 -> 2.04 is a 2% change: inside the 5% dead band, kept. */
  assert_true(capacity_smooth(2.0, 2.08, 0.5, 0.05) == 2.0);
  /* Noise around a value never drifts it. */
  {
    double c = 1.0;
    int i;
    for (i = 0; i < 100; i++) c = capacity_smooth(c, i % 2 ? 1.06 : 0.94, 0.5, 0.05);
    assert_true(c == 1.0);
  }
}

static void parts_split_or_sum_rank_capacities(void **state)
{
  double rank_cap[3] = {1.0, 2.0, 4.0}, pc[6];
  int two_per_rank[7] = {0, 0, 1, 1, 2, 2, 3};
  int spread[3] = {0, 2, 3}; /* part 0 on ranks 0-1, part 1 on rank 2 */
  (void)state;
  assert_int_equal(capacity_part_weights(3, rank_cap, 3, NULL, 1, pc), CAPACITY_OK);
  assert_true(pc[0] == 1.0 && pc[1] == 2.0 && pc[2] == 4.0);
  assert_int_equal(capacity_part_weights(3, rank_cap, 6, two_per_rank, 1, pc), CAPACITY_OK);
  assert_true(pc[0] == 0.5 && pc[1] == 0.5 && pc[2] == 1.0 && pc[5] == 2.0);
  assert_int_equal(capacity_part_weights(3, rank_cap, 2, spread, 0, pc), CAPACITY_OK);
  assert_true(pc[0] == 3.0 && pc[1] == 4.0);
  assert_int_equal(capacity_part_weights(3, rank_cap, 2, NULL, 1, pc), CAPACITY_EINVAL);
}

static void compose_is_a_normalised_product(void **state)
{
  /* Application sizes 1:1:2 (two weight columns) times capacities 1:2:4. */
  double sizes[6] = {0.25, 1.0 / 3, 0.25, 1.0 / 3, 0.5, 1.0 / 3}, cap[3] = {1.0, 2.0, 4.0};
  double s0 = 0.0, s1 = 0.0;
  int p;
  (void)state;
  assert_int_equal(capacity_compose(3, 2, cap, sizes), CAPACITY_OK);
  for (p = 0; p < 3; p++) {
    s0 += sizes[2 * p];
    s1 += sizes[2 * p + 1];
  }
  assert_true(fabs(s0 - 1.0) < 1e-12 && fabs(s1 - 1.0) < 1e-12);
  /* Column 0: 0.25, 0.5, 2 over 2.75. */
  assert_true(fabs(sizes[0] - 0.25 / 2.75) < 1e-12);
  assert_true(fabs(sizes[4] - 2.0 / 2.75) < 1e-12);
  /* Column 1: capacities alone. */
  assert_true(fabs(sizes[3] - 2.0 / 7) < 1e-12);
}

static void compose_keeps_a_column_without_capacity(void **state)
{
  double sizes[2] = {0.0, 1.0}, cap[2] = {1.0, 0.0};
  (void)state;
  assert_int_equal(capacity_compose(2, 1, cap, sizes), CAPACITY_WARN);
  assert_true(sizes[0] == 0.0 && sizes[1] == 1.0);
}

static void kernel_is_deterministic(void **state)
{
  (void)state;
  assert_true(capacity_kernel(3) == capacity_kernel(3));
  assert_true(capacity_kernel(3) != capacity_kernel(4));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rank_beats_host_beats_star),
      cmocka_unit_test(bad_speeds_are_named_with_file_and_line),
      cmocka_unit_test(unknown_rank_or_host_warns_and_missing_rank_fails),
      cmocka_unit_test(loadavg_parses_first_field),
      cmocka_unit_test(loadavg_factor_counts_only_external_load),
      cmocka_unit_test(smoothing_averages_and_ignores_small_changes),
      cmocka_unit_test(parts_split_or_sum_rank_capacities),
      cmocka_unit_test(compose_is_a_normalised_product),
      cmocka_unit_test(compose_keeps_a_column_without_capacity),
      cmocka_unit_test(kernel_is_deterministic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
