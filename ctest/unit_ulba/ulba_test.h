/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ULBA_TEST_H
#define ULBA_TEST_H

/*
 * What both cmocka programs of the ULBA tests need: cmocka, which wants
 * these standard headers before its own, and a relative comparison of
 * doubles.  Test code only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>

/* assert_close - fail the test unless x and y differ by at most rel times
 * the largest of 1, |x| and |y|. */
static inline void assert_close(double x, double y, double rel)
{
  double tol = rel * fmax(1.0, fmax(fabs(x), fabs(y)));
  if (!(fabs(x - y) <= tol)) fail_msg("%.17g and %.17g differ by more than %.3g", x, y, tol);
}

#endif
