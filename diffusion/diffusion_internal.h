/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DIFFUSION_INTERNAL_H
#define DIFFUSION_INTERNAL_H

/* What the two files of DIFFUSION's adapter share (diffusion_zoltan.c runs
 * the diffusion, diffusion_route.c routes the objects).  Hidden: not part
 * of the library's interface. */

#include <mpi.h>

#include "zp_context.h"

#if defined(__GNUC__)
#define DIFFUSION_HIDDEN __attribute__((visibility("hidden")))
#else
#define DIFFUSION_HIDDEN
#endif

/* Tags of the neighbour messages on the layer's private communicator. */
#define DIFFUSION_TAG_DISCOVER 7301
#define DIFFUSION_TAG_VALUE    7302
#define DIFFUSION_TAG_OFFER    7303
#define DIFFUSION_TAG_NOTIFY   7304

/* One call's neighbourhood and per-rank values. */
typedef struct dstate {
  MPI_Comm comm;     /* the layer's duplicate of the application's communicator */
  int rank, size;    /* this rank and the communicator's size */
  int nnbr, cap_nbr; /* neighbours and allocated entries */
  int *nbr;          /* neighbour ranks, increasing */
  double *w;         /* link weights */
  double *cnbr;      /* the neighbours' capacities */
  double *unbr;      /* the neighbours' current values */
  double *acc;       /* accumulated flow over each link (> 0: this rank sends) */
  double *sendbuf;   /* a value for each neighbour */
  MPI_Request *req;  /* 2 * nnbr requests */
  double phi;        /* sum over rounds of this rank's solved utilization: the
                        potential whose differences give the accumulated flows */
  MPI_Comm rcomm;    /* the ranks of this rank's component of the rank graph,
                        for the rounds' reductions (comm when it is connected) */
  int ncomp;         /* components of the rank graph (1 when connected) */
} dstate;

/* Send x to every neighbour and receive theirs into recv (nnbr values).
 * Collective over the neighbours. */
DIFFUSION_HIDDEN void diffusion_exchange_same(dstate *d, double x, double *recv);

/* Wait for n requests.  One MPI_Wait each rather than MPI_Waitall with
 * MPI_STATUSES_IGNORE: GCC 12 reads MPICH's sentinel as a zero-sized array
 * and rejects the call under -Werror=stringop-overflow. */
DIFFUSION_HIDDEN void diffusion_wait_all(int n, MPI_Request *req);

/* The layer's non-blocking consensus (zp_nbx, zp_context.h) under the name
 * the module's files use. */
typedef zp_nbx_recv diffusion_nbx_recv;
#define diffusion_nbx zp_nbx

/*
 * diffusion_route - decide where the local objects go from the accumulated
 * flows d->acc, forwarding objects through ranks that only pass load on.
 * Collective.
 *   s, n       the local objects' scalar loads
 *   cost       n * nnbr locality costs (diffusion_select), or NULL
 *   move_cost  the cost of moving one object, in the units of cost
 *   forward    1: a rank passes on the objects it receives before its own
 *              (each object travels once, from its rank to its final one);
 *              0: every rank sends only its own objects to its neighbours
 *   new_rank   out: n final ranks
 *   moved      out: local objects that leave
 * Returns a ZOLTAN_* code, the same on every rank.
 */
DIFFUSION_HIDDEN int diffusion_route(dstate *d, const double *s, int n, const double *cost,
                                     double move_cost, int forward, int *new_rank, long *moved);

#endif /* DIFFUSION_INTERNAL_H */
