/* SPDX-License-Identifier: BSD-3-Clause */
/* cmocka tests of REFINE's rootless arithmetic (refine/refine_rootless.c):
 * roles, blocks, the matching of each block and the filling of quotas,
 * and a whole call played on plain arrays for many virtual ranks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "refine_rootless.h"
#include "zp_rng.h"

/* Donors shed to the middle of the band; receivers fill up to it. */
static void roles_aim_at_the_middle_of_the_band(void **state)
{
  (void)state;
  double e, c, sl;
  refine_rootless_role(130.0, 100.0, 1.1, &e, &c, &sl);
  assert_true(fabs(e - 25.0) < 1e-12 && c == 0.0 && sl == 0.0);
  refine_rootless_role(108.0, 100.0, 1.1, &e, &c, &sl);
  assert_true(e == 0.0 && c == 0.0); /* within tolerance, above the middle */
  refine_rootless_role(90.0, 100.0, 1.1, &e, &c, &sl);
  assert_true(e == 0.0 && fabs(c - 15.0) < 1e-12 && fabs(sl - 5.0) < 1e-12);
  refine_rootless_role(5.0, 0.0, 1.1, &e, &c, &sl); /* a part of size 0 gives everything */
  assert_true(fabs(e - 5.0) < 1e-12 && c == 0.0);
}

static void blocks_cover_exactly_what_the_interval_touches(void **state)
{
  (void)state;
  int a, b;
  refine_rootless_blocks(2.5, 7.0, 2.0, 10, &a, &b);
  assert_int_equal(a, 1);
  assert_int_equal(b, 3); /* 7.0 is excluded: block 3 is [6, 8) */
  refine_rootless_blocks(2.0, 4.0, 2.0, 10, &a, &b);
  assert_int_equal(a, 1);
  assert_int_equal(b, 1);
  refine_rootless_blocks(19.0, 25.0, 2.0, 10, &a, &b); /* rounding past E: last block */
  assert_int_equal(a, 9);
  assert_int_equal(b, 9);
  refine_rootless_blocks(3.0, 3.0, 2.0, 10, &a, &b);
  assert_true(a > b);
}

/* A whole call on virtual ranks: prefix sums, blocks, matching per block,
 * quotas merged per donor.  Every donor's transfers add up to its excess,
 * no receiver gets more than its scaled capacity, and each block only
 * hears of the intervals that touch it. */
static void a_call_on_virtual_ranks_conserves_and_respects_capacities(void **state)
{
  (void)state;
  enum { P = 500 };
  zp_rng rng;
  double L[P], T[P], e[P], c[P], sl[P], pe[P], pc[P], E = 0.0, C = 0.0, tot = 0.0, got[P], gave[P];
  int max_items = 0;
  zp_rng_seed(&rng, 7);
  for (int r = 0; r < P; r++) {
    L[r] = 100.0 * (0.5 + zp_rng_uniform(&rng));
    if (r % 50 == 0) L[r] *= 3.0;
    tot += L[r];
  }
  for (int r = 0; r < P; r++) {
    T[r] = tot / P;
    refine_rootless_role(L[r], T[r], 1.05, &e[r], &c[r], &sl[r]);
    pe[r] = E;
    pc[r] = C;
    E += e[r];
    C += c[r];
    got[r] = gave[r] = 0.0;
  }
  assert_true(C >= E);
  double scale = E / C, block = E / P;
  refine_interval *d = malloc(P * sizeof *d), *rv = malloc(P * sizeof *rv);
  refine_transfer *t = malloc(2 * P * sizeof *t);
  for (int b = 0; b < P; b++) {
    size_t nd = 0, nr = 0;
    for (int r = 0; r < P; r++) {
      int f, l;
      double lo = e[r] > 0.0 ? pe[r] : pc[r] * scale;
      double hi = e[r] > 0.0 ? pe[r] + e[r] : (pc[r] + c[r]) * scale;
      refine_rootless_blocks(lo, hi, block, P, &f, &l);
      if (f > b || l < b) continue;
      refine_interval iv = {lo, hi, sl[r], r};
      if (e[r] > 0.0)
        d[nd++] = iv;
      else
        rv[nr++] = iv;
    }
    if ((int)(nd + nr) > max_items) max_items = (int)(nd + nr);
    size_t nt =
        refine_rootless_match(b * block, b == P - 1 ? HUGE_VAL : (b + 1) * block, d, nd, rv, nr, t);
    for (size_t k = 0; k < nt; k++) {
      assert_true(t[k].amount > 0.0);
      gave[t[k].donor] += t[k].amount;
      got[t[k].receiver] += t[k].amount;
    }
  }
  for (int r = 0; r < P; r++) {
    if (e[r] > 0.0) assert_true(fabs(gave[r] - e[r]) <= 1e-9 * E);
    assert_true(got[r] <= c[r] * scale + 1e-9 * E);
  }
  print_message("most intervals one block owner heard of: %d (P = %d)\n", max_items, P);
  assert_true(max_items < P / 10);
  free(d);
  free(rv);
  free(t);
}

/* Heaviest first, to the largest remaining quota, never more than half an
 * object over a quota. */
static void quotas_are_filled_closely_with_few_objects(void **state)
{
  (void)state;
  double load[] = {5, 1, 3, 8, 2, 2, 0.5};
  double quota[] = {9.0, 4.0};
  int dest[7];
  double sent[2];
  long g = refine_fill_quotas(7, load, 2, quota, NULL, dest, sent);
  assert_true(g > 0);
  for (int j = 0; j < 2; j++) {
    double maxobj = 0.0;
    for (int i = 0; i < 7; i++)
      if (dest[i] == j && load[i] > maxobj) maxobj = load[i];
    assert_true(sent[j] <= quota[j] + maxobj / 2.0 + 1e-12);
  }
  /* 8 goes to the quota of 9 (1 left), 5 to the quota of 4 (closer than
   * nothing: 1 over), 3 and the 2s would overshoot the 1 left by more than
   * they fill, and 1 fills it: three objects for 14 of 13 units. */
  assert_int_equal(dest[3], 0);
  assert_int_equal(dest[0], 1);
  assert_int_equal(dest[1], 0);
  assert_int_equal(dest[2], -1);
  assert_int_equal(g, 3);
  double sum = 0.0;
  for (int i = 0; i < 7; i++) sum += dest[i] >= 0 ? load[i] : 0.0;
  assert_true(fabs(sum - sent[0] - sent[1]) < 1e-12);
  /* No quota: nothing moves. */
  double none[] = {0.0, -1.0};
  assert_int_equal(refine_fill_quotas(7, load, 2, none, NULL, dest, sent), 0);
  for (int i = 0; i < 7; i++) assert_int_equal(dest[i], -1);
  /* A quota smaller than every object is met from the slack: 2 units of
   * quota and 5.5 of room take the 5 (the heaviest that fits), not the 3. */
  double small[] = {2.0}, room[] = {5.5};
  assert_int_equal(refine_fill_quotas(7, load, 1, small, room, dest, sent), 1);
  assert_int_equal(dest[0], 0);
  assert_true(sent[0] <= small[0] + room[0]);
  assert_int_equal(refine_fill_quotas(7, load, 1, small, NULL, dest, sent), 1);
  assert_int_equal(dest[2], 0); /* without slack: the 3, one unit over */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(roles_aim_at_the_middle_of_the_band),
      cmocka_unit_test(blocks_cover_exactly_what_the_interval_touches),
      cmocka_unit_test(a_call_on_virtual_ranks_conserves_and_respects_capacities),
      cmocka_unit_test(quotas_are_filled_closely_with_few_objects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
