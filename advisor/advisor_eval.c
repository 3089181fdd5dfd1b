/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LB_METHOD=AUTO's figures without a gather (advisor_eval.h).  A decision
 * used to gather the whole problem on rank 0 and evaluate each candidate
 * there; at 10^6 objects the gather alone cost about a fifth of the
 * candidates' own calls.  Here each rank adds its objects' part of every
 * figure as reproducible sums and one reduction adds the ranks' parts
 * exactly; the parts of remote far ends travel once per candidate, only
 * between ranks that share edges.
 */
#include "advisor_eval.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "greedy_util.h"

/* The local graph, or zero edges when the context has none. */
typedef struct local_graph {
  const int *nedges, *procs;
  const double *ewgts;
  const ZOLTAN_ID_TYPE *nbr;
  int edim;
  size_t ne;
} local_graph;

struct advisor_far {
  local_graph g;    /* the local graph, read once per decision */
  long *local;      /* g.ne: the far end's local index when this rank holds
                        it, else -1 */
  size_t *slot;     /* g.ne: where its part comes back when another rank
                        holds it, else SIZE_MAX */
  int *scount;      /* per rank: far ends asked of it */
  int *sdispl;      /* their offsets */
  int *rcount;      /* per rank: far ends it asked of this rank */
  int *rdispl;      /* their offsets */
  long *rloc;       /* the local index of each far end asked of this rank,
                        -1 when it holds none by that ID */
  int nsend, nrecv; /* far ends asked, far ends to answer */
  int *ans, *reply; /* nrecv parts answered, nsend parts received */
  double max[2];    /* the largest first weight and edge weight, over the ranks */
  double count[2];  /* objects and edge entries, over the ranks */
};

void advisor_far_free(advisor_far *f)
{
  if (f == NULL) return;
  free(f->local);
  free(f->slot);
  free(f->scount);
  free(f->sdispl);
  free(f->rcount);
  free(f->rdispl);
  free(f->rloc);
  free(f->ans);
  free(f->reply);
  free(f);
}

/* ---- exact sums over the ranks -------------------------------------------- */

static void rsum_merge_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
  const greedy_rsum *a = in;
  greedy_rsum *b = inout;
  (void)type;
  for (int i = 0; i < *len; i++) greedy_rsum_merge(&b[i], &a[i]);
}

/* v[count] summed over the ranks of comm, exactly, on every rank.  Each
 * sum travels as one element of two 64-bit words, so that no reduction
 * splits it.  Collective. */
static int rsum_allreduce(MPI_Comm comm, greedy_rsum *v, int count)
{
  MPI_Datatype pair;
  MPI_Op op;
  int rc;
  MPI_Type_contiguous(2, MPI_UINT64_T, &pair);
  MPI_Type_commit(&pair);
  MPI_Op_create(rsum_merge_op, 1, &op);
  rc = MPI_Allreduce(MPI_IN_PLACE, v, count, pair, op, comm);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);
  return rc == MPI_SUCCESS ? ZOLTAN_OK : ZOLTAN_FATAL;
}

static void graph_of(const zp_context *c, local_graph *g)
{
  memset(g, 0, sizeof *g);
  if (!zp_ctx_local_graph(c, &g->nedges, &g->procs, &g->ewgts, &g->edim) ||
      !zp_ctx_local_nbr_gids(c, &g->nbr)) {
    memset(g, 0, sizeof *g);
    return;
  }
  for (int i = 0; i < zp_ctx_num_local(c); i++) g->ne += (size_t)g->nedges[i];
}

static double edge_weight(const local_graph *g, size_t e)
{
  return g->edim > 0 ? g->ewgts[e * (size_t)g->edim] : 1.0;
}

/* The largest first weight and the largest edge weight over the ranks, and
 * the object and edge counts.  Collective. */
static int global_extents(const zp_context *c, const local_graph *g, double mx[2], double cnt[2])
{
  const double *w = zp_ctx_local_wgts(c);
  size_t n = (size_t)zp_ctx_num_local(c), wd = (size_t)zp_ctx_wgt_dim(c);
  double local_mx[2] = {0.0, 0.0}, local_cnt[2] = {(double)n, (double)g->ne};
  for (size_t i = 0; i < n; i++) local_mx[0] = w[i * wd] > local_mx[0] ? w[i * wd] : local_mx[0];
  for (size_t e = 0; e < g->ne; e++) {
    double x = edge_weight(g, e);
    local_mx[1] = x > local_mx[1] ? x : local_mx[1];
  }
  if (MPI_Allreduce(local_mx, mx, 2, MPI_DOUBLE, MPI_MAX, zp_ctx_comm(c)) != MPI_SUCCESS ||
      MPI_Allreduce(local_cnt, cnt, 2, MPI_DOUBLE, MPI_SUM, zp_ctx_comm(c)) != MPI_SUCCESS)
    return ZOLTAN_FATAL;
  return ZOLTAN_OK;
}

/* ---- traits ---------------------------------------------------------------- */

int advisor_dist_traits(zp_context *c, const advisor_far *f, advisor_traits *t)
{
  const double *w = zp_ctx_local_wgts(c), *xyz = NULL;
  const int *cur = zp_ctx_local_parts(c);
  size_t n = (size_t)zp_ctx_num_local(c), wd = (size_t)zp_ctx_wgt_dim(c);
  int P = zp_ctx_num_parts(c), gdim = 0, ierr;
  const double *mx = f->max, *cnt = f->count;
  double *load = malloc((size_t)P * sizeof *load);
  /* sum, sum of squares, edge weight, then one load per part */
  greedy_rsum *acc = calloc((size_t)P + 3, sizeof *acc);
  greedy_rscale sw, sq, se;
  const local_graph *g = &f->g;
  advisor_sums s;
  ierr = zp_agree_code(zp_ctx_comm(c), load != NULL && acc != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr < 0) goto End;
  greedy_rscale_of(mx[0], &sw);
  /* Squares of weights above 1e154 are not finite: their sum is then
   * infinite, as a plain sum would be. */
  greedy_rscale_of(isfinite(mx[0] * mx[0]) ? mx[0] * mx[0] : 0.0, &sq);
  greedy_rscale_of(mx[1], &se);
  for (size_t i = 0; i < n; i++) {
    double x = w[i * wd];
    greedy_rsum_add(&acc[0], &sw, x);
    if (isfinite(mx[0] * mx[0])) greedy_rsum_add(&acc[1], &sq, x * x);
    if (cur[i] >= 0 && cur[i] < P) greedy_rsum_add(&acc[3 + cur[i]], &sw, x);
  }
  for (size_t e = 0; e < g->ne; e++) greedy_rsum_add(&acc[2], &se, edge_weight(g, e));
  ierr = zp_agree_code(zp_ctx_comm(c), rsum_allreduce(zp_ctx_comm(c), acc, P + 3));
  if (ierr < 0) goto End;
  memset(&s, 0, sizeof s);
  s.objects = cnt[0];
  MPI_Comm_size(zp_ctx_comm(c), &s.ranks);
  s.sum = greedy_rsum_value(&acc[0], &sw);
  s.sq = isfinite(mx[0] * mx[0]) ? greedy_rsum_value(&acc[1], &sq) : INFINITY;
  s.heavy = mx[0];
  s.ew = greedy_rsum_value(&acc[2], &se);
  s.has_geom = zp_ctx_local_coords(c, &gdim, &xyz) && gdim > 0;
  s.has_graph = cnt[1] > 0.0;
  for (int p = 0; p < P; p++) load[p] = greedy_rsum_value(&acc[3 + p], &sw);
  s.load = load;
  advisor_traits_from_sums(&s, P, t);
End:
  free(load);
  free(acc);
  return ierr;
}

/* ---- the far ends ------------------------------------------------------------ */

/* Counts and offsets of the far ends asked of each rank, and where each
 * local edge finds its far end.  An edge whose rank is out of range finds
 * none.  Local. */
static int far_local(const zp_context *c, const local_graph *g, advisor_far *f, int P, int me)
{
  int ngid = zp_ctx_num_gid_entries(c);
  for (size_t e = 0; e < g->ne; e++) {
    int q = g->procs[e];
    f->local[e] = -1;
    f->slot[e] = SIZE_MAX;
    if (q == me)
      f->local[e] = zp_ctx_find_local(c, g->nbr + e * (size_t)ngid);
    else if (q >= 0 && q < P) {
      if (f->scount[q] == INT_MAX / ngid) return ZOLTAN_FATAL;
      f->scount[q]++;
    }
  }
  return ZOLTAN_OK;
}

/* Asks every far end of its owner and keeps the owner's answers.
 * Collective. */
static int far_ask(const zp_context *c, const local_graph *g, advisor_far *f, int P, int me)
{
  int ngid = zp_ctx_num_gid_entries(c), *fill = malloc((size_t)P * sizeof *fill);
  int *bs = malloc(4 * (size_t)P * sizeof *bs), *bd = bs + P, *br = bs + 2 * P, *bq = bs + 3 * P;
  ZOLTAN_ID_TYPE *sids = NULL, *rids = NULL;
  long long at = 0, rat = 0;
  int ierr = fill != NULL && bs != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR;
  if (zp_agree_code(zp_ctx_comm(c), ierr) < 0) goto End;
  MPI_Alltoall(f->scount, 1, MPI_INT, f->rcount, 1, MPI_INT, zp_ctx_comm(c));
  for (int q = 0; q < P; q++) {
    f->sdispl[q] = fill[q] = (int)at;
    f->rdispl[q] = (int)rat;
    at += f->scount[q];
    rat += f->rcount[q];
    if (at * ngid > INT_MAX || rat * ngid > INT_MAX) ierr = ZOLTAN_FATAL;
    if (ierr == ZOLTAN_FATAL && q == P - 1)
      zp_error(zp_ctx_where(c), "LB_METHOD=AUTO: too many edges to evaluate on one rank");
    bs[q] = f->scount[q] * ngid;
    bd[q] = f->sdispl[q] * ngid;
    br[q] = f->rcount[q] * ngid;
    bq[q] = f->rdispl[q] * ngid;
  }
  if ((ierr = zp_agree_code(zp_ctx_comm(c), ierr)) < 0) goto End;
  f->nsend = (int)at;
  f->nrecv = (int)rat;
  sids = malloc(((size_t)at * ngid + 1) * sizeof *sids);
  rids = malloc(((size_t)rat * ngid + 1) * sizeof *rids);
  f->rloc = malloc(((size_t)rat + 1) * sizeof *f->rloc);
  f->ans = malloc(((size_t)rat + 1) * sizeof *f->ans);
  f->reply = malloc(((size_t)at + 1) * sizeof *f->reply);
  ierr = sids && rids && f->rloc && f->ans && f->reply ? ZOLTAN_OK : ZOLTAN_MEMERR;
  if ((ierr = zp_agree_code(zp_ctx_comm(c), ierr)) < 0) goto End;
  for (size_t e = 0; e < g->ne; e++) {
    int q = g->procs[e];
    if (q == me || q < 0 || q >= P) continue;
    f->slot[e] = (size_t)fill[q]++;
    memcpy(sids + f->slot[e] * ngid, g->nbr + e * (size_t)ngid, (size_t)ngid * sizeof *sids);
  }
  MPI_Alltoallv(sids, bs, bd, ZOLTAN_ID_MPI_TYPE, rids, br, bq, ZOLTAN_ID_MPI_TYPE, zp_ctx_comm(c));
  for (int k = 0; k < f->nrecv; k++) f->rloc[k] = zp_ctx_find_local(c, rids + (size_t)k * ngid);
End:
  free(fill);
  free(bs);
  free(sids);
  free(rids);
  return ierr;
}

int advisor_far_plan(zp_context *c, advisor_far **plan)
{
  local_graph g;
  advisor_far *f = calloc(1, sizeof *f);
  int P = 1, me = 0, ierr;
  MPI_Comm_size(zp_ctx_comm(c), &P);
  MPI_Comm_rank(zp_ctx_comm(c), &me);
  *plan = NULL;
  graph_of(c, &g);
  if (f != NULL) {
    f->g = g;
    f->local = malloc((g.ne + 1) * sizeof *f->local);
    f->slot = malloc((g.ne + 1) * sizeof *f->slot);
    f->scount = calloc((size_t)P, sizeof *f->scount);
    f->sdispl = malloc((size_t)P * sizeof *f->sdispl);
    f->rcount = malloc((size_t)P * sizeof *f->rcount);
    f->rdispl = malloc((size_t)P * sizeof *f->rdispl);
  }
  ierr = f && f->local && f->slot && f->scount && f->sdispl && f->rcount && f->rdispl
             ? ZOLTAN_OK
             : ZOLTAN_MEMERR;
  ierr = zp_agree_code(zp_ctx_comm(c), ierr);
  if (ierr >= 0) ierr = zp_agree_code(zp_ctx_comm(c), global_extents(c, &g, f->max, f->count));
  if (ierr >= 0) ierr = far_local(c, &g, f, P, me);
  if (ierr == ZOLTAN_FATAL)
    zp_error(zp_ctx_where(c), "LB_METHOD=AUTO: too many edges towards one rank to evaluate");
  ierr = zp_agree_code(zp_ctx_comm(c), ierr);
  /* Without edges anywhere there is nothing to ask. */
  if (ierr >= 0 && f->count[1] > 0.0) ierr = far_ask(c, &g, f, P, me);
  if (ierr < 0) {
    advisor_far_free(f);
    return ierr;
  }
  *plan = f;
  return ZOLTAN_OK;
}

/* ---- one candidate ------------------------------------------------------------ */

/* The parts of the remote far ends for new_part.  Collective. */
static int far_parts(const zp_context *c, const advisor_far *f, const int *new_part)
{
  for (int k = 0; k < f->nrecv; k++) f->ans[k] = f->rloc[k] >= 0 ? new_part[f->rloc[k]] : -1;
  return MPI_Alltoallv(f->ans, f->rcount, f->rdispl, MPI_INT, f->reply, f->scount, f->sdispl,
                       MPI_INT, zp_ctx_comm(c)) == MPI_SUCCESS
             ? ZOLTAN_OK
             : ZOLTAN_FATAL;
}

/* The far end's part of local edge e, or -1 when none is known. */
static int far_part(const advisor_far *f, size_t e, const int *new_part)
{
  if (f->local[e] >= 0) return new_part[f->local[e]];
  return f->slot[e] != SIZE_MAX ? f->reply[f->slot[e]] : -1;
}

/* The sums of one candidate, by index: loads (P), outgoing edge weight
 * (P), moved weight, cut (both ends), moved objects and bad parts (as
 * plain counts in the low word). */
#define EV_MOVED_W(P) (2 * (size_t)(P))
#define EV_CUT(P)     (2 * (size_t)(P) + 1)
#define EV_MOVED(P)   (2 * (size_t)(P) + 2)
#define EV_BAD(P)     (2 * (size_t)(P) + 3)
#define EV_COUNT(P)   (2 * (size_t)(P) + 4)

/* This rank's part of the sums.  Local. */
static void local_sums(const zp_context *c, const advisor_far *f, const int *np,
                       const greedy_rscale *sw, const greedy_rscale *se, greedy_rsum *acc)
{
  const double *w = zp_ctx_local_wgts(c);
  const int *cur = zp_ctx_local_parts(c);
  size_t n = (size_t)zp_ctx_num_local(c), wd = (size_t)zp_ctx_wgt_dim(c), e = 0;
  int P = zp_ctx_num_parts(c);
  const local_graph *g = &f->g;
  for (size_t i = 0; i < n; i++) {
    int p = np[i];
    size_t ei = g->nedges != NULL ? (size_t)g->nedges[i] : 0;
    if (p < 0 || p >= P) {
      acc[EV_BAD(P)].lo++;
      e += ei;
      continue;
    }
    greedy_rsum_add(&acc[p], sw, w[i * wd]);
    if (p != cur[i]) {
      acc[EV_MOVED(P)].lo++;
      greedy_rsum_add(&acc[EV_MOVED_W(P)], sw, w[i * wd]);
    }
    for (size_t k = 0; k < ei; k++, e++) {
      int fp = far_part(f, e, np);
      if (fp < 0 || fp == p) continue;
      greedy_rsum_add(&acc[EV_CUT(P)], se, edge_weight(g, e));
      greedy_rsum_add(&acc[P + p], se, edge_weight(g, e));
    }
  }
}

int advisor_dist_evaluate(zp_context *c, const advisor_far *f, const int *new_part,
                          double comm_cost, loaddb_eval *ev, int *ok)
{
  int P = zp_ctx_num_parts(c), wd = zp_ctx_wgt_dim(c), ierr;
  const double *sizes = zp_ctx_part_sizes(c);
  greedy_rsum *acc = calloc(EV_COUNT(P), sizeof *acc), tot = {0, 0};
  greedy_rscale sw, se;
  double total;
  memset(ev, 0, sizeof *ev);
  *ok = 0;
  ierr = zp_agree_code(zp_ctx_comm(c), acc != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr >= 0 && f->count[1] > 0.0)
    ierr = zp_agree_code(zp_ctx_comm(c), far_parts(c, f, new_part));
  if (ierr < 0) goto End;
  greedy_rscale_of(f->max[0], &sw);
  greedy_rscale_of(f->max[1], &se);
  local_sums(c, f, new_part, &sw, &se, acc);
  ierr = zp_agree_code(zp_ctx_comm(c), rsum_allreduce(zp_ctx_comm(c), acc, (int)EV_COUNT(P)));
  if (ierr < 0 || acc[EV_BAD(P)].lo > 0 || acc[EV_BAD(P)].hi > 0) goto End;
  /* Every object is in one part: the parts' sums add up to the total. */
  for (int p = 0; p < P; p++) greedy_rsum_merge(&tot, &acc[p]);
  total = greedy_rsum_value(&tot, &sw);
  ev->moved_obj = (double)acc[EV_MOVED(P)].lo + 0x1p64 * (double)acc[EV_MOVED(P)].hi;
  ev->moved_w = greedy_rsum_value(&acc[EV_MOVED_W(P)], &sw);
  ev->cut = greedy_rsum_value(&acc[EV_CUT(P)], &se) / 2.0;
  for (int p = 0; p < P; p++) {
    double load = greedy_rsum_value(&acc[p], &sw), share = sizes[(size_t)p * (size_t)wd];
    double step = load + comm_cost * greedy_rsum_value(&acc[P + p], &se);
    if (share > 0.0 && total > 0.0 && load / (share * total) > ev->maxavg)
      ev->maxavg = load / (share * total);
    if (step > ev->step) ev->step = step;
  }
  *ok = 1;
End:
  free(acc);
  return ierr;
}
