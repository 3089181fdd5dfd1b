/* SPDX-License-Identifier: BSD-3-Clause */
/* DIFFUSION's messages between neighbouring ranks, below both the method's
 * rounds (diffusion_zoltan.c) and the routing of its objects
 * (diffusion_route.c): a value to and from every neighbour, and the wait
 * for a set of requests (diffusion_internal.h). */
#include "diffusion_internal.h"

void diffusion_wait_all(int n, MPI_Request *req)
{
  for (int i = 0; i < n; i++) MPI_Wait(&req[i], MPI_STATUS_IGNORE);
}

/* Exchange one value with every neighbour: send[j] goes to neighbour j,
 * recv[j] comes from it. */
static void exchange(dstate *d, const double *send, double *recv)
{
  int j;
  for (j = 0; j < d->nnbr; j++)
    MPI_Irecv(&recv[j], 1, MPI_DOUBLE, d->nbr[j], DIFFUSION_TAG_VALUE, d->comm, &d->req[j]);
  for (j = 0; j < d->nnbr; j++)
    MPI_Isend(&send[j], 1, MPI_DOUBLE, d->nbr[j], DIFFUSION_TAG_VALUE, d->comm,
              &d->req[d->nnbr + j]);
  diffusion_wait_all(2 * d->nnbr, d->req);
}

/* The same value to every neighbour. */
void diffusion_exchange_same(dstate *d, double x, double *recv)
{
  int j;
  for (j = 0; j < d->nnbr; j++) d->sendbuf[j] = x;
  exchange(d, d->sendbuf, recv);
}
