/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zp_agree_test: zp_agree_code, the one agreement of return codes
 * (zp_context.h), and zp_agree_code_sums, the same agreement with counts
 * summed in its reduction, at any rank count.  For every rank r and every
 * code k of {WARN, FATAL, MEMERR} and two codes outside Zoltan's (-7 and 3,
 * which zp_agree_code_sums agrees in a second reduction), rank r alone gives
 * k and the others OK; then pairs of ranks with two codes.  Every rank must
 * get the code that the rule gives for the whole pattern (the worst error,
 * else the strongest warning, else OK), computed here from the pattern
 * itself, and the same code as every other rank, from both functions; the
 * sums must be the sums of every rank's counts.  Then an out-of-range count
 * of sums is ZOLTAN_FATAL, and an MPI error (a null communicator with
 * MPI_ERRORS_RETURN) is ZOLTAN_FATAL.  Last, zp_allreduce_sum_max on
 * buffers of 1 to 2^18 doubles (large enough that MPI splits a reduction
 * into pieces) must give every entry's exact sum and maximum.  Exit status
 * 0 when every case holds.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <zoltan.h>

#include "zp_context.h"

static int rank, size, failures;

/* What the rule gives for codes[0..size-1], written out case by case. */
static int expected(const int *codes)
{
  int i, worst_err = 0, warn = 0;
  for (i = 0; i < size; i++) {
    if (codes[i] < worst_err) worst_err = codes[i];
    if (codes[i] > warn) warn = codes[i];
  }
  return worst_err < 0 ? worst_err : warn;
}

static void check_one(int got, int want, const char *fn, const char *what)
{
  int lo, hi;
  MPI_Allreduce(&got, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&got, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (got != want || lo != hi) {
    printf("zp_agree_test: rank %d: %s: %s: got %d, want %d (range over ranks %d..%d)\n", rank, fn,
           what, got, want, lo, hi);
    failures++;
  }
}

/* zp_allreduce_sum_max on n entries of each kind: rank r sends r + i + 1
 * to the sums (exact in a double) and (i * 7 + r * 13) % 101 to the maxima. */
static void check_sum_max(int n)
{
  double *si = malloc(4 * (size_t)n * sizeof *si), *so = si + n, *mi = so + n, *mo = mi + n;
  int i, r, bad = 0;
  if (si == NULL) {
    failures++;
    return;
  }
  for (i = 0; i < n; i++) {
    si[i] = rank + i + 1.0;
    mi[i] = (double)((i * 7 + rank * 13) % 101);
  }
  if (zp_allreduce_sum_max(MPI_COMM_WORLD, si, so, n, mi, mo, n) != MPI_SUCCESS) bad = 1;
  for (i = 0; !bad && i < n; i++) {
    double want_max = 0.0;
    for (r = 0; r < size; r++)
      if ((i * 7 + r * 13) % 101 > want_max) want_max = (double)((i * 7 + r * 13) % 101);
    bad = so[i] != (double)size * (i + 1.0) + size * (size - 1) / 2.0 || mo[i] != want_max;
  }
  if (bad) {
    printf("zp_agree_test: rank %d: zp_allreduce_sum_max on %d entries is wrong\n", rank, n);
    failures++;
  }
  free(si);
}

static void check(const int *codes, const char *what)
{
  /* Two counts per rank: 1 each, and the rank's number times 1000. */
  long sums[2] = {1, 1000L * rank}, want_sum1 = 1000L * size * (size - 1) / 2;
  int want = expected(codes);
  check_one(zp_agree_code(MPI_COMM_WORLD, codes[rank]), want, "zp_agree_code", what);
  check_one(zp_agree_code_sums(MPI_COMM_WORLD, codes[rank], sums, 2), want, "zp_agree_code_sums",
            what);
  if (sums[0] != size || sums[1] != want_sum1) {
    printf("zp_agree_test: rank %d: zp_agree_code_sums: %s: sums %ld and %ld, want %d and %ld\n",
           rank, what, sums[0], sums[1], size, want_sum1);
    failures++;
  }
}

int main(int argc, char **argv)
{
  static const int kinds[] = {ZOLTAN_WARN, ZOLTAN_FATAL, ZOLTAN_MEMERR, -7, 3};
  enum { NKINDS = sizeof kinds / sizeof kinds[0] };
  long unused[1] = {5};
  int codes[64], r, k, j, cases = 0, all;
  char what[96];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 64) {
    if (rank == 0) printf("zp_agree_test: at most 64 ranks\n");
    MPI_Finalize();
    return 1;
  }
  for (r = 0; r < size; r++) codes[r] = ZOLTAN_OK;
  check(codes, "every rank OK");
  cases++;
  for (r = 0; r < size; r++)
    for (k = 0; k < NKINDS; k++) {
      codes[r] = kinds[k];
      snprintf(what, sizeof what, "rank %d alone gives %d", r, kinds[k]);
      check(codes, what);
      cases++;
      /* A second rank with every other code. */
      for (j = 0; j < NKINDS && size > 1; j++) {
        codes[(r + 1) % size] = kinds[j];
        snprintf(what, sizeof what, "rank %d gives %d, rank %d gives %d", r, kinds[k],
                 (r + 1) % size, kinds[j]);
        check(codes, what);
        cases++;
        codes[(r + 1) % size] = ZOLTAN_OK;
      }
      codes[r] = ZOLTAN_OK;
    }
  /* A count of sums outside 0..ZP_AGREE_SUMS_MAX: ZOLTAN_FATAL everywhere,
   * the sums untouched. */
  check_one(zp_agree_code_sums(MPI_COMM_WORLD, ZOLTAN_OK, unused, ZP_AGREE_SUMS_MAX + 1),
            ZOLTAN_FATAL, "zp_agree_code_sums", "too many sums");
  check_one(zp_agree_code_sums(MPI_COMM_WORLD, ZOLTAN_OK, unused, -1), ZOLTAN_FATAL,
            "zp_agree_code_sums", "a negative count of sums");
  if (unused[0] != 5) {
    printf("zp_agree_test: rank %d: a refused call changed the sums\n", rank);
    failures++;
  }
  cases += 2;
  /* MPI's own error: with MPI_ERRORS_RETURN an allreduce on a null
   * communicator returns an error code, which must become ZOLTAN_FATAL.
   * An error without a communicator is raised on MPI_COMM_WORLD's handler
   * before MPI 4.0 and on MPI_COMM_SELF's since, so both return. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  if (zp_agree_code(MPI_COMM_NULL, ZOLTAN_OK) != ZOLTAN_FATAL ||
      zp_agree_code_sums(MPI_COMM_NULL, ZOLTAN_OK, unused, 1) != ZOLTAN_FATAL) {
    printf("zp_agree_test: rank %d: an MPI error did not give ZOLTAN_FATAL\n", rank);
    failures++;
  }
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  for (k = 1; k <= 1 << 18; k *= 8) {
    check_sum_max(k);
    cases++;
  }
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("zp_agree_test: %d ranks, %d patterns: %s\n", size, cases, all ? "FAILED" : "passed");
  MPI_Finalize();
  return all != 0;
}
