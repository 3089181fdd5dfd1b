/* SPDX-License-Identifier: BSD-3-Clause */
#include "zpt_check.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>

/* Failures of this rank, and the text that places them. */
static int zpt_failures;
static char zpt_context[256];

void zpt_check_failed(const char *fmt, ...)
{
  va_list ap;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "[%d] %sCHECK FAILED: ", rank, zpt_context);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  zpt_failures++;
}

void zpt_check_context(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(zpt_context, sizeof zpt_context, fmt, ap);
  va_end(ap);
}

int zpt_check_failures(void) { return zpt_failures; }

int zpt_check_total(void)
{
  int all = 0;
  MPI_Allreduce(&zpt_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}
