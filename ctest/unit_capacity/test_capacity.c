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
  return capacity_file_lookup(text, "caps.txt", rank, 3, hosts3[rank], hosts3, speed, NULL, msg,
                              256);
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
      {"0 1 2 3\n", "caps.txt:1: unexpected '3' after the memory of 0"},
      {"0 1 lots\n", "caps.txt:1: memory 'lots' of 0 is not a number"},
      {"0 1 0\n", "caps.txt:1: memory 0 of 0 must be a finite number > 0"},
      {"0 1 -5\n", "caps.txt:1: memory -5 of 0 must be a finite number > 0"},
      {"* 1 nan\n", "caps.txt:1: memory nan of * must be a finite number > 0"},
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

/* The optional third field is the memory of the line that applies; a line
 * without one gives -1. */
static void memory_column_follows_the_line_that_applies(void **state)
{
  const char *text = "* 1.5 100\nalpha 2\n2 4 1e3\n";
  char msg[256];
  double s = 0.0, m = 0.0;
  (void)state;
  assert_int_equal(
      capacity_file_lookup(text, "caps.txt", 0, 3, hosts3[0], hosts3, &s, &m, msg, sizeof msg),
      CAPACITY_OK);
  assert_true(s == 2.0 && m == -1.0);
  assert_int_equal(
      capacity_file_lookup(text, "caps.txt", 2, 3, hosts3[2], hosts3, &s, &m, msg, sizeof msg),
      CAPACITY_OK);
  assert_true(s == 4.0 && m == 1000.0);
  assert_int_equal(
      capacity_file_lookup("* 3 7\n", "caps.txt", 1, 3, hosts3[1], hosts3, &s, &m, msg, sizeof msg),
      CAPACITY_OK);
  assert_true(s == 3.0 && m == 7.0);
}

/* Water filling: a part whose memory cannot hold its share keeps exactly
 * its limit; the others share the rest in their old proportions. */
static void memory_bound_clips_and_keeps_proportions(void **state)
{
  /* Two columns; limits in units of a total of 100. */
  double sizes[] = {0.25, 0.25, 0.5, 0.5, 0.25, 0.25};
  const double lim[] = {INFINITY, 20.0, 60.0};
  (void)state;
  assert_int_equal(capacity_memory_bound(3, 2, lim, 100.0, sizes), CAPACITY_OK);
  /* Part 1 clipped to 0.2; parts 0 and 2 share 0.8 equally (0.4 <= 0.6). */
  assert_true(fabs(sizes[2] - 0.2) < 1e-12 && fabs(sizes[3] - 0.2) < 1e-12);
  assert_true(fabs(sizes[0] - 0.4) < 1e-12 && fabs(sizes[4] - 0.4) < 1e-12);
  assert_true(fabs(sizes[0] + sizes[2] + sizes[4] - 1.0) < 1e-12);
}

/* Clipping one part can push another over: the bound iterates. */
static void memory_bound_cascades_and_warns_when_impossible(void **state)
{
  double sizes[] = {0.6, 0.3, 0.1, 0.0};
  const double lim[] = {10.0, 30.0, INFINITY, 1.0};
  double tight[] = {0.5, 0.5};
  const double small[] = {10.0, 30.0};
  (void)state;
  assert_int_equal(capacity_memory_bound(4, 1, lim, 100.0, sizes), CAPACITY_OK);
  /* 0 -> 0.1; 0.9 left over 0.3 : 0.1 gives 0.675 for part 1, above 0.3,
   * so it is clipped too and part 2 takes 0.6; part 3 (size 0) stays 0. */
  assert_true(fabs(sizes[0] - 0.1) < 1e-12 && fabs(sizes[1] - 0.3) < 1e-12);
  assert_true(fabs(sizes[2] - 0.6) < 1e-12 && sizes[3] == 0.0);
  assert_int_equal(capacity_memory_bound(2, 1, small, 100.0, tight), CAPACITY_WARN);
  assert_true(fabs(tight[0] - 0.25) < 1e-12 && fabs(tight[1] - 0.75) < 1e-12);
  assert_int_equal(capacity_memory_bound(2, 1, small, 0.0, tight), CAPACITY_EINVAL);
}

/* Repair: the part over its limit sheds the fewest, largest-fitting
 * objects; every part ends within its limit; loads guide the receiver. */
static void memory_repair_moves_out_of_full_parts(void **state)
{
  /* Columns: load, memory. */
  const double w[] = {1, 5, 1, 4, 1, 3, 1, 1, 1, 1, 1, 1, 5, 1, 1, 1};
  int part[] = {0, 0, 0, 0, 1, 1, 2, 2};
  const double sizes[] = {1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  const double lim[] = {6.0, INFINITY, 100.0};
  double mem[3] = {0, 0, 0};
  size_t moved = 0, i;
  int worst = 9;
  (void)state;
  /* Part 0 holds 5+4+3+1 = 13 > 6: it must shed at least 7. */
  assert_int_equal(capacity_memory_repair(8, 2, w, 1, 0, 3, sizes, lim, part, &moved, &worst),
                   CAPACITY_OK);
  for (i = 0; i < 8; i++) mem[part[i]] += w[2 * i + 1];
  assert_true(mem[0] <= 6.0);
  assert_true(mem[0] + mem[1] + mem[2] == 13.0 + 2.0 + 2.0);
  assert_true(moved == 2 && worst == -1);
}

static void memory_repair_warns_when_nothing_fits(void **state)
{
  const double w[] = {1, 8, 1, 8, 1, 1};
  int part[] = {0, 0, 1};
  const double sizes[] = {0.5, 0.5, 0.5, 0.5};
  const double lim[] = {10.0, 9.0};
  size_t moved = 5;
  int worst = -1;
  (void)state;
  /* Part 0 holds 16 > 10, part 1 holds 1 and can take one 8 (9 <= 9). */
  assert_int_equal(capacity_memory_repair(3, 2, w, 1, 0, 2, sizes, lim, part, &moved, &worst),
                   CAPACITY_OK);
  assert_true(moved == 1);
  /* Now nothing fits: part 1 is full, part 0 over by 6 keeps its object. */
  {
    int p2[] = {0, 0, 1};
    const double lim2[] = {10.0, 2.0};
    assert_int_equal(capacity_memory_repair(3, 2, w, 1, 0, 2, sizes, lim2, p2, &moved, &worst),
                     CAPACITY_WARN);
    assert_true(moved == 0 && worst == 0 && p2[0] == 0 && p2[1] == 0);
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
      cmocka_unit_test(memory_column_follows_the_line_that_applies),
      cmocka_unit_test(memory_bound_clips_and_keeps_proportions),
      cmocka_unit_test(memory_bound_cascades_and_warns_when_impossible),
      cmocka_unit_test(memory_repair_moves_out_of_full_parts),
      cmocka_unit_test(memory_repair_warns_when_nothing_fits),
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
