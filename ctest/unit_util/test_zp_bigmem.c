/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zp_bigmem (zoltan_plugins/zp_bigmem.c): how much of a buffer the huge
 * page advice covers, and that a buffer from zp_bigmem_alloc is aligned,
 * as long as asked and usable to its last byte, whichever way it was
 * allocated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "zp_bigmem.h"
#include "zp_rng.h"

#define HUGE ZP_BIGMEM_HUGE

/* The rule, stated from outside: whole huge pages, and the last partial
 * one exactly when its unused part is at most a sixteenth of the buffer. */
static void check_cover(size_t bytes)
{
  size_t c = zp_bigmem_cover(bytes), down = bytes / HUGE * HUGE;
  size_t up = (bytes + HUGE - 1) / HUGE * HUGE;
  assert_int_equal(c % HUGE, 0);
  if (up == down) {
    assert_int_equal(c, bytes);
  } else if (up - bytes <= bytes / 16) {
    assert_int_equal(c, up);
  } else {
    assert_int_equal(c, down);
  }
}

static void cover_follows_the_rule(void **state)
{
  zp_rng g;
  size_t k, d;
  (void)state;
  check_cover(0);
  check_cover(1);
  /* Around every multiple of the huge page up to 64 of them, and the
   * sizes of 10^5..10^7 objects of 4 and 8 bytes. */
  for (k = 1; k <= 64; k++)
    for (d = 0; d < 5; d++) {
      size_t offs[5] = {0, 1, 4096, HUGE / 16, HUGE / 2};
      check_cover(k * HUGE - offs[d]);
      check_cover(k * HUGE + offs[d]);
    }
  for (k = 100000; k <= 10000000; k *= 10) {
    check_cover(4 * k);
    check_cover(8 * k);
  }
  zp_rng_seed(&g, 17);
  for (k = 0; k < 100000; k++) check_cover((size_t)(zp_rng_next(&g) % (200 * HUGE)));
  /* Below a huge page less a sixteenth nothing is covered; 4 x 10^6
   * bytes (95% of two huge pages) is covered whole. */
  assert_int_equal(zp_bigmem_cover(HUGE - HUGE / 8), 0);
  assert_int_equal(zp_bigmem_cover(4000000), 2 * HUGE);
}

/* Fill p[0..n) with a pattern and read it back. */
static void check_usable(unsigned char *p, size_t n)
{
  size_t i;
  for (i = 0; i < n; i += 997) p[i] = (unsigned char)(i * 31u);
  p[n - 1] = 0xA5;
  for (i = 0; i < n - 1; i += 997) assert_int_equal(p[i], (unsigned char)(i * 31u));
  assert_int_equal(p[n - 1], 0xA5);
}

static void buffers_are_aligned_and_usable(void **state)
{
  static const size_t used[] = {1, 5000, HUGE - 1, HUGE, 3000000, 4000000, 9 * HUGE + 7};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof used / sizeof used[0]; i++) {
    int huge;
    for (huge = 0; huge < 2; huge++) {
      size_t cap = used[i] + used[i] / 8, mapped = 12345;
      unsigned char *p = zp_bigmem_alloc(cap, used[i], huge, &mapped);
      assert_non_null(p);
      if (huge && zp_bigmem_maps() && zp_bigmem_cover(used[i]) > 0) {
        /* Mapped on its own: aligned, whole huge pages, at least cap. */
        assert_true(mapped > 0);
        assert_int_equal((uintptr_t)p % HUGE, 0);
        assert_int_equal(mapped % HUGE, 0);
        assert_true(mapped >= cap);
      } else {
        assert_int_equal(mapped, 0);
      }
      check_usable(p, cap);
      zp_bigmem_free(p, mapped);
    }
  }
  /* A capacity below the bytes used is raised to them. */
  {
    size_t mapped;
    unsigned char *p = zp_bigmem_alloc(10, 3 * HUGE, 1, &mapped);
    assert_non_null(p);
    if (zp_bigmem_maps()) assert_true(mapped >= 3 * HUGE);
    check_usable(p, 3 * HUGE);
    zp_bigmem_free(p, mapped);
  }
  zp_bigmem_free(NULL, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cover_follows_the_rule),
      cmocka_unit_test(buffers_are_aligned_and_usable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
