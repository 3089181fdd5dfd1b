/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The context's low-level services, which the layer's other files use
 * without depending on the context's setup: the agreement of return codes
 * over ranks (a warning anywhere is a warning everywhere, an error anywhere
 * the worst error everywhere) and the call's scratch arrays, pooled in the
 * struct's record.
 */
#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"

void *zp_ctx_array(zp_context *c, int slot, size_t bytes, int zero)
{
  void *p;
  if (!c->pooled && !c->r->local_pool_busy) {
    c->pooled = 1;
    c->r->local_pool_busy = 1;
  }
  if (!c->pooled) return zero ? calloc(bytes ? bytes : 1, 1) : malloc(bytes ? bytes : 1);
  p = zp_record_scratch(c->r, slot, bytes);
  if (p != NULL && zero) memset(p, 0, bytes);
  return p;
}

void zp_ctx_array_free(const zp_context *c, void *p)
{
  if (!c->pooled) free(p);
}

int zp_agree_code(MPI_Comm comm, int local)
{
  /* One reduction for both: the largest -code is the worst error, the
   * largest code the strongest warning. */
  int in[2] = {-local, local}, out[2] = {0, 0};
  if (MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return ZOLTAN_FATAL;
  return out[0] > 0 ? -out[0] : out[1];
}

int zp_agree_code_sums(MPI_Comm comm, int local, long *sums, int nsums)
{
  /* The sums, then how many ranks returned ZOLTAN_MEMERR, ZOLTAN_FATAL,
   * ZOLTAN_WARN and any other code. */
  long in[ZP_AGREE_SUMS_MAX + 4], out[ZP_AGREE_SUMS_MAX + 4];
  int k;
  if (nsums < 0 || nsums > ZP_AGREE_SUMS_MAX || (nsums > 0 && sums == NULL)) return ZOLTAN_FATAL;
  for (k = 0; k < nsums; k++) in[k] = sums[k];
  in[nsums] = local == ZOLTAN_MEMERR;
  in[nsums + 1] = local == ZOLTAN_FATAL;
  in[nsums + 2] = local == ZOLTAN_WARN;
  in[nsums + 3] =
      local != ZOLTAN_OK && local != ZOLTAN_MEMERR && local != ZOLTAN_FATAL && local != ZOLTAN_WARN;
  if (MPI_Allreduce(in, out, nsums + 4, MPI_LONG, MPI_SUM, comm) != MPI_SUCCESS)
    return ZOLTAN_FATAL;
  for (k = 0; k < nsums; k++) sums[k] = out[k];
  /* Every rank sees the same counts, so every rank takes the same branch. */
  if (out[nsums + 3] > 0) return zp_agree_code(comm, local);
  if (out[nsums] > 0) return ZOLTAN_MEMERR;
  if (out[nsums + 1] > 0) return ZOLTAN_FATAL;
  return out[nsums + 2] > 0 ? ZOLTAN_WARN : ZOLTAN_OK;
}

int zp_agree(const zp_context *c, int local) { return zp_agree_code(c->r->comm, local); }

int zp_agree_step(const zp_context *c, int local, int *warn)
{
  int ierr = zp_agree(c, local);
  if (ierr == ZOLTAN_WARN) *warn = 1;
  return ierr < 0 ? ierr : ZOLTAN_OK;
}

int zp_step_agreed(const zp_context *c, int agreed, int *warn, const char *step)
{
  /* Read at every call, as the guard's variable is: no state shared
   * between threads. */
  const char *v = getenv("ZOLTAN_PLUGINS_CHECK_AGREED");
  if (v != NULL && strcmp(v, "1") == 0) {
    /* The largest and the smallest code over the ranks, in one reduction. */
    int in[2] = {agreed, -agreed}, out[2] = {0, 0};
    if (MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, c->r->comm) != MPI_SUCCESS) return ZOLTAN_FATAL;
    if (out[0] != -out[1]) {
      zp_error(c->yo,
               "internal error: step %s returned %d on this rank and not the same code on "
               "every rank (%d to %d)",
               step, agreed, -out[1], out[0]);
      return ZOLTAN_FATAL;
    }
  }
  if (agreed == ZOLTAN_WARN) *warn = 1;
  return agreed < 0 ? agreed : ZOLTAN_OK;
}

int zp_allreduce_sum_max(MPI_Comm comm, const double *sum_in, double *sum_out, int nsum,
                         const double *max_in, double *max_out, int nmax)
{
  MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st[2];
  int rc = MPI_SUCCESS, rc2 = MPI_SUCCESS;
  if (nsum > 0) rc = MPI_Iallreduce(sum_in, sum_out, nsum, MPI_DOUBLE, MPI_SUM, comm, &rq[0]);
  if (nmax > 0) rc2 = MPI_Iallreduce(max_in, max_out, nmax, MPI_DOUBLE, MPI_MAX, comm, &rq[1]);
  /* Requests that were never started are null, which a wait skips. */
  if (rc != MPI_SUCCESS) rq[0] = MPI_REQUEST_NULL;
  if (rc2 != MPI_SUCCESS) rq[1] = MPI_REQUEST_NULL;
  if (MPI_Waitall(2, rq, st) != MPI_SUCCESS && rc == MPI_SUCCESS) rc = MPI_ERR_OTHER;
  return rc != MPI_SUCCESS ? rc : rc2;
}
