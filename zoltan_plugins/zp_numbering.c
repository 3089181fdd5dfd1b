/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Services for distributed methods that talk to a few ranks each: a global
 * numbering of the objects and of every edge's far end (for a parallel
 * partitioner: SCOTCHLB's PT-Scotch path), where each rank asks the rank
 * that the graph callbacks named for a neighbour which number that
 * neighbour has, so that only ranks that share edges exchange IDs; and the
 * non-blocking consensus of sparse exchanges (zp_nbx: DIFFUSION, REFINE
 * without a root).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"

/* The buffers of one numbering, freed in one place. */
typedef struct zp_numbering {
  int *scount, *sdispl, *rcount, *rdispl; /* per rank, in IDs */
  int *bcount, *bdispl, *ccount, *cdispl; /* the same in bytes */
  int *rank_fill;                         /* fill position per rank */
  size_t *slot;                           /* edge -> position in the send buffer */
  ZOLTAN_ID_TYPE *sids, *rids;            /* IDs asked, IDs to answer */
  long long *answers, *replies;           /* numbers answered, numbers received */
  zp_gidmap map;                          /* the local objects by ID */
} zp_numbering;

static void zp_numbering_free(zp_numbering *b)
{
  void *bufs[] = {b->scount, b->sdispl,    b->rcount, b->rdispl, b->bcount, b->bdispl,  b->ccount,
                  b->cdispl, b->rank_fill, b->slot,   b->sids,   b->rids,   b->answers, b->replies};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
  zp_gidmap_free(&b->map);
}

/* Send counts per rank and the position of each edge's ID in the send
 * buffer.  An edge whose rank is out of range is an error naming it. */
static int zp_numbering_plan(const zp_context *c, zp_numbering *b, size_t ne)
{
  int P = c->r->size, q;
  size_t e;
  b->scount = calloc((size_t)P, sizeof(int));
  b->sdispl = malloc((size_t)P * sizeof(int));
  b->rcount = malloc((size_t)P * sizeof(int));
  b->rdispl = malloc((size_t)P * sizeof(int));
  b->bcount = malloc((size_t)P * sizeof(int));
  b->bdispl = malloc((size_t)P * sizeof(int));
  b->ccount = malloc((size_t)P * sizeof(int));
  b->cdispl = malloc((size_t)P * sizeof(int));
  b->rank_fill = malloc((size_t)P * sizeof(int));
  b->slot = malloc((ne + 1) * sizeof *b->slot);
  if (!b->scount || !b->sdispl || !b->rcount || !b->rdispl || !b->bcount || !b->bdispl ||
      !b->ccount || !b->cdispl || !b->rank_fill || !b->slot)
    return ZOLTAN_MEMERR;
  for (e = 0; e < ne; e++) {
    q = c->nbr_procs[e];
    if (q < 0 || q >= P) {
      char g[ZP_GID_TEXT];
      zp_format_gid(c->nbr + e * c->ngid, c->ngid, g, sizeof g);
      zp_error(c->yo, "an edge names object %s on rank %d, outside [0, %d)", g, q, P);
      return ZOLTAN_FATAL;
    }
    if (b->scount[q] == INT_MAX / (int)sizeof(ZOLTAN_ID_TYPE) / c->ngid) {
      zp_error(c->yo, "too many edges towards rank %d to number them", q);
      return ZOLTAN_FATAL;
    }
    b->scount[q]++;
  }
  return ZOLTAN_OK;
}

/* The IDs asked of each rank, in edge order within a rank. */
static int zp_numbering_ask(const zp_context *c, zp_numbering *b, size_t ne)
{
  int P = c->r->size, q;
  long long at = 0, rat = 0;
  size_t e, id_bytes = (size_t)c->ngid * sizeof(ZOLTAN_ID_TYPE);
  MPI_Alltoall(b->scount, 1, MPI_INT, b->rcount, 1, MPI_INT, c->r->comm);
  for (q = 0; q < P; q++) {
    b->sdispl[q] = (int)at;
    b->rank_fill[q] = (int)at;
    at += b->scount[q];
    b->rdispl[q] = (int)rat;
    rat += b->rcount[q];
    if (at * (long long)id_bytes > INT_MAX || rat * (long long)id_bytes > INT_MAX) return -1;
    b->bcount[q] = b->scount[q] * (int)id_bytes;
    b->bdispl[q] = b->sdispl[q] * (int)id_bytes;
    b->ccount[q] = b->rcount[q] * (int)id_bytes;
    b->cdispl[q] = b->rdispl[q] * (int)id_bytes;
  }
  b->sids = malloc((size_t)at * id_bytes + 1);
  b->rids = malloc((size_t)rat * id_bytes + 1);
  b->answers = malloc(((size_t)rat + 1) * sizeof *b->answers);
  b->replies = malloc(((size_t)at + 1) * sizeof *b->replies);
  if (!b->sids || !b->rids || !b->answers || !b->replies) return ZOLTAN_MEMERR;
  for (e = 0; e < ne; e++) {
    q = c->nbr_procs[e];
    b->slot[e] = (size_t)b->rank_fill[q]++;
    memcpy(b->sids + b->slot[e] * c->ngid, c->nbr + e * c->ngid, id_bytes);
  }
  return (int)(rat > INT_MAX ? -1 : rat);
}

int zp_ctx_global_index(zp_context *c, long long *first, long long *nbr_index)
{
  zp_numbering b;
  long long mine = c->n, before = 0;
  size_t ne = 0, e;
  int ierr, nrecv = 0, bad = -1;
  memset(&b, 0, sizeof b);
  if (c->has_graph && c->nedges != NULL)
    for (int i = 0; i < c->n; i++) ne += (size_t)c->nedges[i];
  MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, c->r->comm);
  if (c->r->rank == 0) before = 0;
  *first = before;
  ierr = zp_agree(c, c->has_graph ? zp_numbering_plan(c, &b, ne) : ZOLTAN_FATAL);
  if (ierr < 0) goto End;
  nrecv = zp_numbering_ask(c, &b, ne);
  ierr = zp_agree(c, nrecv == ZOLTAN_MEMERR ? ZOLTAN_MEMERR : nrecv < 0 ? ZOLTAN_FATAL : ZOLTAN_OK);
  if (ierr < 0) goto End;
  MPI_Alltoallv(b.sids, b.bcount, b.bdispl, MPI_BYTE, b.rids, b.ccount, b.cdispl, MPI_BYTE,
                c->r->comm);
  ierr = zp_agree(c, zp_gidmap_build(&b.map, c->gids, (size_t)c->n, c->ngid));
  if (ierr < 0) goto End;
  for (int k = 0; k < nrecv; k++) {
    long at = zp_gidmap_find(&b.map, b.rids + (size_t)k * c->ngid);
    b.answers[k] = at < 0 ? -1 : before + at;
  }
  MPI_Alltoallv(b.answers, b.rcount, b.rdispl, MPI_LONG_LONG, b.replies, b.scount, b.sdispl,
                MPI_LONG_LONG, c->r->comm);
  for (e = 0; e < ne; e++) {
    nbr_index[e] = b.replies[b.slot[e]];
    if (nbr_index[e] < 0 && bad < 0) bad = (int)e;
  }
  if (bad >= 0) {
    char g[ZP_GID_TEXT], h[ZP_GID_TEXT];
    size_t o = 0, k = 0;
    while (o < (size_t)c->n && k + (size_t)c->nedges[o] <= (size_t)bad) k += c->nedges[o++];
    zp_format_gid(c->gids + o * c->ngid, c->ngid, g, sizeof g);
    zp_format_gid(c->nbr + (size_t)bad * c->ngid, c->ngid, h, sizeof h);
    zp_error(c->yo, "object %s has an edge to object %s, which rank %d does not have", g, h,
             c->nbr_procs[bad]);
  }
  ierr = zp_agree(c, bad >= 0 ? ZOLTAN_FATAL : ZOLTAN_OK);
End:
  zp_numbering_free(&b);
  return ierr;
}

/* 1 when all n requests have completed (completed ones become
 * MPI_REQUEST_NULL, which tests as complete). */
static int zp_test_all(int n, MPI_Request *req)
{
  int all = 1;
  for (int i = 0; i < n; i++) {
    int flag = 0;
    MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
    all = all && flag;
  }
  return all;
}

void zp_nbx(MPI_Comm comm, int tag, int nsend, MPI_Request *sreq, zp_nbx_recv *recv, void *data)
{
  int done = 0, barrier_on = 0;
  MPI_Request bar = MPI_REQUEST_NULL;
  while (!done) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &st);
    if (flag) recv(data, &st);
    if (barrier_on) {
      MPI_Test(&bar, &done, MPI_STATUS_IGNORE);
    } else if (zp_test_all(nsend, sreq)) {
      /* Every send of this rank is matched: join the barrier, and keep
       * receiving until every rank has joined it. */
      MPI_Ibarrier(comm, &bar);
      barrier_on = 1;
    }
  }
}
