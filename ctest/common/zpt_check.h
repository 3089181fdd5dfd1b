/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZPT_CHECK_H
#define ZPT_CHECK_H

/*
 * The checks of the MPI test programs: a failed check prints
 * "[rank] <context>CHECK FAILED: <message>" on stderr and counts, and the
 * program goes on, so that one run reports every failure (the caller exits
 * with the count summed over the ranks).  Test code only.
 */

/* ZPT_CHECK - when cond is false, report the printf-style message. */
#define ZPT_CHECK(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond)) zpt_check_failed(__VA_ARGS__);                                                    \
  } while (0)

/* zpt_check_failed - print one failure (with the context) and count it.
 * Not collective. */
void zpt_check_failed(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* zpt_check_context - printf-style text printed before "CHECK FAILED" in
 * the following failures, such as the case or the round; "" clears it.
 * Not collective. */
void zpt_check_context(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* zpt_check_failures - the failures of this rank so far.  Not collective. */
int zpt_check_failures(void);

/* zpt_check_total - the failures of every rank so far, on every rank.
 * Collective on MPI_COMM_WORLD. */
int zpt_check_total(void);

#endif
