/* SPDX-License-Identifier: BSD-3-Clause */
/* cmocka tests of zp_sort_by_gid (zoltan_plugins/zp_gidmap.c): whichever
 * sort runs (the radix sort of single-entry IDs, the merge sort of
 * multi-entry ones), the order is the stable order by ID, compared here
 * with an insertion sort written for the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"
#include "zp_rng.h"

/* The reference: a stable insertion sort of idx by the IDs. */
static void reference_sort(size_t *idx, size_t n, const ZOLTAN_ID_TYPE *g, int ngid)
{
  size_t i, j;
  for (i = 1; i < n; i++) {
    size_t v = idx[i];
    for (j = i; j > 0 && zp_gid_cmp(g + idx[j - 1] * ngid, g + v * ngid, ngid) > 0; j--)
      idx[j] = idx[j - 1];
    idx[j] = v;
  }
}

/* n IDs of ngid entries below span (many repeats when span is small), the
 * order to sort starting as a seeded shuffle; both sorts must agree. */
static void check_one(size_t n, int ngid, uint64_t span, uint64_t seed)
{
  ZOLTAN_ID_TYPE *g = malloc((n * ngid + 1) * sizeof *g);
  size_t *idx = malloc((n + 1) * sizeof *idx), *ref = malloc((n + 1) * sizeof *ref),
         *tmp = malloc((n + 1) * sizeof *tmp), i;
  zp_rng r;
  assert_non_null(g);
  assert_non_null(idx);
  assert_non_null(ref);
  assert_non_null(tmp);
  zp_rng_seed(&r, seed);
  for (i = 0; i < n * (size_t)ngid; i++) g[i] = (ZOLTAN_ID_TYPE)zp_rng_below(&r, span);
  for (i = 0; i < n; i++) idx[i] = i;
  for (i = n; i > 1; i--) {
    size_t k = (size_t)zp_rng_below(&r, i), t = idx[i - 1];
    idx[i - 1] = idx[k];
    idx[k] = t;
  }
  memcpy(ref, idx, n * sizeof *idx);
  zp_sort_by_gid(idx, tmp, n, g, ngid);
  reference_sort(ref, n, g, ngid);
  for (i = 0; i < n; i++) assert_int_equal(idx[i], ref[i]);
  free(g);
  free(idx);
  free(ref);
  free(tmp);
}

static void single_entry_ids_sort_stably(void **state)
{
  (void)state;
  /* Empty and one object; repeats (span 3, 50); one digit, two, three
   * (spans up to the largest 32-bit ID); IDs all equal. */
  check_one(0, 1, 10, 1);
  check_one(1, 1, 10, 2);
  check_one(2000, 1, 3, 3);
  check_one(2000, 1, 50, 4);
  check_one(3000, 1, 2000, 5);
  check_one(3000, 1, 1u << 20, 6);
  check_one(3000, 1, 0xffffffffu, 7);
  check_one(500, 1, 1, 8);
}

static void multi_entry_ids_sort_stably(void **state)
{
  (void)state;
  check_one(1500, 2, 4, 9);
  check_one(1500, 3, 1u << 16, 10);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(single_entry_ids_sort_stably),
      cmocka_unit_test(multi_entry_ids_sort_stably),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
