/* SPDX-License-Identifier: BSD-3-Clause */
/* cmocka tests of zp_native_bounds (zoltan_plugins/zp_native_bounds.c):
 * which methods are bounded, when, and that each bound is named.  Whether
 * the bounds keep Zoltan's HSFC from failing is measured against Zoltan
 * itself by ctest/soak/zp_hsfc_probe.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "zp_context.h"

static void hsfc_is_bounded_by_zero_parts_and_heavy_objects(void **state)
{
  (void)state;
  /* Four equal parts of 100: an object of 12.5 is half a part. */
  assert_null(zp_native_bounds("HSFC", 4, 4, 12.5, 100.0, 0.25, 0));
  assert_string_equal(zp_native_bounds("HSFC", 4, 4, 12.6, 100.0, 0.25, 0),
                      "an object outweighs half the smallest part");
  assert_string_equal(zp_native_bounds("HSFC", 4, 4, 1.0, 100.0, 0.25, 1), "a part has size zero");
  /* The smallest part counts: a tenth of 100 holds 5 at most. */
  assert_null(zp_native_bounds("HSFC", 4, 8, 5.0, 100.0, 0.1, 0));
  assert_non_null(zp_native_bounds("HSFC", 4, 8, 5.1, 100.0, 0.1, 0));
  /* Every weight zero: HSFC fails on the ranks holding objects. */
  assert_string_equal(zp_native_bounds("HSFC", 4, 4, 0.0, 0.0, 0.25, 0), "every weight is zero");
}

static void rcb_is_bounded_only_with_several_parts_on_a_rank(void **state)
{
  (void)state;
  assert_null(zp_native_bounds("RCB", 4, 4, 90.0, 100.0, 0.25, 1));
  assert_null(zp_native_bounds("RCB", 2, 3, 90.0, 100.0, 0.5, 0));
  assert_non_null(zp_native_bounds("RCB", 8, 4, 90.0, 100.0, 0.125, 0));
  assert_non_null(zp_native_bounds("RCB", 8, 4, 1.0, 100.0, 0.125, 1));
  assert_null(zp_native_bounds("RCB", 8, 4, 1.0, 100.0, 0.125, 0));
}

static void other_methods_are_not_bounded(void **state)
{
  (void)state;
  assert_null(zp_native_bounds("RIB", 8, 1, 90.0, 100.0, 0.125, 1));
  assert_null(zp_native_bounds("PHG", 8, 1, 90.0, 100.0, 0.125, 1));
  assert_null(zp_native_bounds("hsfc", 8, 1, 90.0, 100.0, 0.125, 1));
  assert_null(zp_native_bounds(NULL, 8, 1, 90.0, 100.0, 0.125, 1));
}

/* zp_native_grain is the bound zp_native_bounds applies: an object of
 * exactly grain times the smallest part's load passes, one a little
 * heavier does not, for every bounded setting; the others have none. */
static void the_grain_is_the_bound_on_the_heaviest_object(void **state)
{
  static const struct {
    const char *method;
    int parts, ranks;
  } cases[] = {{"HSFC", 4, 4}, {"HSFC", 2, 8}, {"RCB", 8, 4},
               {"RCB", 4, 4},  {"RIB", 8, 1},  {NULL, 8, 1}};
  (void)state;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    double g = zp_native_grain(cases[k].method, cases[k].parts, cases[k].ranks);
    for (double smin = 0.01; smin < 0.6; smin *= 1.7) {
      if (isinf(g)) {
        assert_null(zp_native_bounds(cases[k].method, cases[k].parts, cases[k].ranks, 100.0, 100.0,
                                     smin, 0));
        continue;
      }
      assert_true(g > 0.0 && g < 1.0);
      assert_null(zp_native_bounds(cases[k].method, cases[k].parts, cases[k].ranks,
                                   g * smin * 1000.0, 1000.0, smin, 0));
      assert_non_null(zp_native_bounds(cases[k].method, cases[k].parts, cases[k].ranks,
                                       g * smin * 1000.0 * (1.0 + 1e-9), 1000.0, smin, 0));
    }
  }
  assert_true(isinf(zp_native_grain("RCB", 4, 4)));
  assert_false(isinf(zp_native_grain("RCB", 5, 4)));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hsfc_is_bounded_by_zero_parts_and_heavy_objects),
      cmocka_unit_test(rcb_is_bounded_only_with_several_parts_on_a_rank),
      cmocka_unit_test(other_methods_are_not_bounded),
      cmocka_unit_test(the_grain_is_the_bound_on_the_heaviest_object),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
