/* SPDX-License-Identifier: BSD-3-Clause */
/* SCOTCHLB's PT-Scotch path; see scotch_parallel.h.  The graph is cleaned
 * as the serial core cleans it, with the listings of each edge's far end
 * sent to the rank that holds it, and scaled to the same integers. */
#include "scotch_parallel.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
/* ptscotch.h expects scotch.h (through scotch_internal.h) first. */
#include "scotch_internal.h"
#include "scotch_round.h"
#include <ptscotch.h>
/* The layer's agreement of return codes: SCOTCHLB's codes follow Zoltan's
 * convention (0 OK, 1 WARN, negative errors). */
#include "zp_context.h"

/* Everything one call allocates, freed in one place. */
typedef struct pbufs {
  double *load, *target, *ew, *tot, *partload;
  long long *nbr_index;
  scotchlb_listing *list;
  int *scount, *sdispl, *rcount, *rdispl, *fill;
  scotchlb_listing *sbuf;
  size_t *start, *adj;
  double *w;
  SCOTCH_Num *vert, *velo, *edge, *edlo, *pw, *out;
  int *eff_to_part, *part_to_eff;
} pbufs;

static void pbufs_free(pbufs *b)
{
  void *p[] = {b->load, b->target, b->ew,     b->tot,    b->partload,    b->nbr_index,
               b->list, b->scount, b->sdispl, b->rcount, b->rdispl,      b->fill,
               b->sbuf, b->start,  b->adj,    b->w,      b->vert,        b->velo,
               b->edge, b->edlo,   b->pw,     b->out,    b->eff_to_part, b->part_to_eff};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
}

/* One load per local object and the part targets, with the weight totals
 * over every rank. */
static int loads(zp_context *ctx, pbufs *b, int n)
{
  MPI_Comm comm = zp_ctx_comm(ctx);
  int wdim = zp_ctx_wgt_dim(ctx), nparts = zp_ctx_num_parts(ctx);
  const double *w = zp_ctx_local_wgts(ctx);
  double *mine = calloc((size_t)wdim, sizeof *mine);
  int rc = SCOTCHLB_OK;
  b->tot = calloc((size_t)wdim, sizeof *b->tot);
  b->load = malloc(((size_t)n + 1) * sizeof *b->load);
  b->target = malloc((size_t)nparts * sizeof *b->target);
  if (!mine || !b->tot || !b->load || !b->target) rc = SCOTCHLB_ENOMEM;
  for (int i = 0; rc == SCOTCHLB_OK && i < n; i++)
    for (int d = 0; d < wdim; d++) mine[d] += w[(size_t)i * wdim + d];
  rc = zp_agree_code(comm, rc);
  if (rc == SCOTCHLB_OK) {
    MPI_Allreduce(mine, b->tot, wdim, MPI_DOUBLE, MPI_SUM, comm);
    rc = scotchlb_combine((size_t)n, wdim, w, b->tot, nparts, zp_ctx_part_sizes(ctx), b->load,
                          b->target);
  }
  free(mine);
  return zp_agree_code(comm, rc);
}

/* This rank's listings of its edges, plus those of its edges' far ends on
 * other ranks (each rank sends the listings that end there), so that both
 * holders of an edge clean it alike. */
static int listings(zp_context *ctx, pbufs *b, int n, long long first, size_t *nlist)
{
  MPI_Comm comm = zp_ctx_comm(ctx);
  const int *nedges = NULL, *nbr_procs = NULL;
  const double *ewgts = NULL;
  int ewdim = 0, me, P, rc = SCOTCHLB_OK;
  size_t ne = 0, e, k = 0;
  long long at = 0, rat = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &P);
  zp_ctx_local_graph(ctx, &nedges, &nbr_procs, &ewgts, &ewdim);
  for (int i = 0; nedges && i < n; i++) ne += (size_t)nedges[i];
  b->scount = calloc((size_t)P, sizeof(int));
  b->sdispl = malloc((size_t)P * sizeof(int));
  b->rcount = malloc((size_t)P * sizeof(int));
  b->rdispl = malloc((size_t)P * sizeof(int));
  b->fill = malloc((size_t)P * sizeof(int));
  b->sbuf = malloc((ne + 1) * sizeof *b->sbuf);
  if (!b->scount || !b->sdispl || !b->rcount || !b->rdispl || !b->fill || !b->sbuf)
    rc = SCOTCHLB_ENOMEM;
  for (e = 0; rc == SCOTCHLB_OK && e < ne; e++)
    if (nbr_procs[e] != me) b->scount[nbr_procs[e]] += (int)sizeof(scotchlb_listing);
  rc = zp_agree_code(comm, rc);
  if (rc < 0) return rc;
  MPI_Alltoall(b->scount, 1, MPI_INT, b->rcount, 1, MPI_INT, comm);
  for (int q = 0; q < P; q++) {
    b->sdispl[q] = (int)at;
    b->fill[q] = (int)(at / (long long)sizeof(scotchlb_listing));
    b->rdispl[q] = (int)rat;
    at += b->scount[q];
    rat += b->rcount[q];
    if (at > INT_MAX || rat > INT_MAX) rc = SCOTCHLB_ETOOBIG;
  }
  size_t nrecv = (size_t)rat / sizeof(scotchlb_listing);
  b->list = malloc((ne + nrecv + 1) * sizeof *b->list);
  if (rc == SCOTCHLB_OK && !b->list) rc = SCOTCHLB_ENOMEM;
  rc = zp_agree_code(comm, rc);
  if (rc < 0) return rc;
  e = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; nedges && j < nedges[i]; j++, e++) {
      double wt = 1.0;
      if (ewdim > 0) {
        wt = 0.0;
        for (int d = 0; d < ewdim; d++) wt += ewgts[e * (size_t)ewdim + d];
      }
      scotchlb_listing l = {(size_t)(first + i), (size_t)b->nbr_index[e], wt};
      b->list[k++] = l;
      if (nbr_procs[e] != me) b->sbuf[b->fill[nbr_procs[e]]++] = l;
    }
  MPI_Alltoallv(b->sbuf, b->scount, b->sdispl, MPI_BYTE, b->list + k, b->rcount, b->rdispl,
                MPI_BYTE, comm);
  *nlist = k + nrecv;
  return SCOTCHLB_OK;
}

/* The distributed graph in Scotch's integers, scaled exactly as the serial
 * core scales the gathered one. */
static int to_scotch(MPI_Comm comm, pbufs *b, int n, long long nglob, size_t *ends_out)
{
  size_t ends = b->start[n];
  double in[3] = {0.0, 0.0, 0.0}, out[3], sums[3] = {0.0, 0.0, (double)ends}, tots[3];
  double mig = 0.0, ls, es;
  int rc = SCOTCHLB_OK;
  for (int i = 0; i < n; i++) {
    in[0] = fmax(in[0], b->load[i]);
    sums[0] += b->load[i];
  }
  for (size_t j = 0; j < ends; j++) {
    in[1] = fmax(in[1], b->w[j]);
    sums[1] += b->w[j];
  }
  MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(sums, tots, 3, MPI_DOUBLE, MPI_SUM, comm);
  scotchlb_scales(out[0], tots[0], out[1], tots[1], tots[2], (double)nglob, &mig, &ls, &es);
  b->vert = malloc(((size_t)n + 1) * sizeof *b->vert);
  b->velo = malloc(((size_t)n + 1) * sizeof *b->velo);
  b->edge = malloc((ends + 1) * sizeof *b->edge);
  b->edlo = malloc((ends + 1) * sizeof *b->edlo);
  b->out = malloc(((size_t)n + 1) * sizeof *b->out);
  if (!b->vert || !b->velo || !b->edge || !b->edlo || !b->out) rc = SCOTCHLB_ENOMEM;
  if (ends >= (size_t)INT32_MAX || tots[2] >= (double)INT32_MAX) rc = SCOTCHLB_ETOOBIG;
  for (int i = 0; rc == SCOTCHLB_OK && i <= n; i++) b->vert[i] = (SCOTCH_Num)b->start[i];
  for (int i = 0; rc == SCOTCHLB_OK && i < n; i++) b->velo[i] = scotchlb_load_int(b->load[i], ls);
  for (size_t j = 0; rc == SCOTCHLB_OK && j < ends; j++) {
    b->edge[j] = (SCOTCH_Num)b->adj[j];
    b->edlo[j] = scotchlb_edge_int(b->w[j], es);
  }
  *ends_out = ends;
  return zp_agree_code(comm, rc);
}

/* PT-Scotch itself, in a private one-thread context. */
static int run_ptscotch(zp_context *ctx, pbufs *b, int n, size_t ends, SCOTCH_Num neff, int equal,
                        const scotchlb_options *o, char *msg, size_t cap)
{
  static const SCOTCH_Num flags[] = {SCOTCH_STRATDEFAULT, SCOTCH_STRATQUALITY, SCOTCH_STRATSPEED,
                                     SCOTCH_STRATBALANCE};
  MPI_Comm comm = zp_ctx_comm(ctx);
  SCOTCH_Context sctx;
  SCOTCH_Dgraph graph, bound;
  SCOTCH_Arch arch;
  SCOTCH_Strat strat;
  int have_ctx = 0, have_graph = 0, have_bound = 0, have_arch = 0, have_strat = 0, P, fail;
  const char *where = NULL;
  MPI_Comm_size(comm, &P);
  if (SCOTCH_contextInit(&sctx) != 0)
    where = "SCOTCH_contextInit";
  else
    have_ctx = 1;
  if (!where) scotchlb_context(&sctx, o->seed, &where);
  if (!where) {
    if (SCOTCH_dgraphInit(&graph, comm) != 0)
      where = "SCOTCH_dgraphInit";
    else
      have_graph = 1;
  }
  /* Every step that may fail on one rank is agreed before the next
   * collective one, so that no rank waits inside PT-Scotch for another that
   * gave up. */
  fail = zp_agree_code(comm, where ? -1 : 0) < 0;
  if (!fail &&
      SCOTCH_dgraphBuild(&graph, 0, (SCOTCH_Num)n, (SCOTCH_Num)n, b->vert, b->vert + 1, b->velo,
                         NULL, (SCOTCH_Num)ends, (SCOTCH_Num)ends, b->edge, NULL, b->edlo) != 0)
    where = "SCOTCH_dgraphBuild";
  fail = fail || zp_agree_code(comm, where ? -1 : 0) < 0;
  if (!fail && SCOTCH_dgraphCheck(&graph) != 0) where = "SCOTCH_dgraphCheck";
  fail = fail || zp_agree_code(comm, where ? -1 : 0) < 0;
  if (!fail) {
    if (SCOTCH_dgraphInit(&bound, comm) != 0)
      where = "SCOTCH_dgraphInit";
    else
      have_bound = 1;
  }
  if (!fail && !where && SCOTCH_contextBindDgraph(&sctx, &graph, &bound) != 0)
    where = "SCOTCH_contextBindDgraph";
  if (!fail && !where) {
    if (SCOTCH_archInit(&arch) != 0)
      where = "SCOTCH_archInit";
    else
      have_arch = 1;
  }
  if (!fail && !where) scotchlb_arch(&arch, neff, equal, b->pw, &where);
  if (!fail && !where) {
    if (SCOTCH_stratInit(&strat) != 0)
      where = "SCOTCH_stratInit";
    else
      have_strat = 1;
  }
  if (!fail && !where &&
      SCOTCH_stratDgraphMapBuild(&strat, flags[o->strategy], (SCOTCH_Num)P, neff,
                                 o->tolerance - 1.0) != 0)
    where = "SCOTCH_stratDgraphMapBuild";
  fail = fail || zp_agree_code(comm, where ? -1 : 0) < 0;
  if (!fail && SCOTCH_dgraphMap(&bound, &arch, &strat, b->out) != 0) where = "SCOTCH_dgraphMap";
  fail = fail || zp_agree_code(comm, where ? -1 : 0) < 0;
  if (where)
    scotchlb_say(msg, cap,
                 "%s returned an error (%d local objects, %zu local edge ends, %ld parts)", where,
                 n, ends, (long)neff);
  else if (fail)
    scotchlb_say(msg, cap, "PT-Scotch failed on another rank");
  if (have_strat) SCOTCH_stratExit(&strat);
  if (have_arch) SCOTCH_archExit(&arch);
  if (have_bound) SCOTCH_dgraphExit(&bound);
  if (have_graph) SCOTCH_dgraphExit(&graph);
  if (have_ctx) SCOTCH_contextExit(&sctx);
  return fail ? SCOTCHLB_ESCOTCH : SCOTCHLB_OK;
}

/* The largest relative load of the result, over every rank. */
static double imbalance(MPI_Comm comm, pbufs *b, int n, int nparts, const int *part)
{
  double tot = 0.0, worst = 0.0;
  double *all = calloc((size_t)nparts + 1, sizeof *all);
  if (!all || !b->partload) {
    free(all);
    return HUGE_VAL;
  }
  memset(b->partload, 0, (size_t)nparts * sizeof *b->partload);
  for (int i = 0; i < n; i++) b->partload[part[i]] += b->load[i];
  MPI_Allreduce(b->partload, all, nparts, MPI_DOUBLE, MPI_SUM, comm);
  for (int q = 0; q < nparts; q++) tot += all[q];
  for (int q = 0; q < nparts && tot > 0.0; q++) {
    double r = b->target[q] > 0.0 ? all[q] / (b->target[q] * tot) : (all[q] > 0.0 ? HUGE_VAL : 0.0);
    worst = fmax(worst, r);
  }
  free(all);
  return tot > 0.0 ? worst : 1.0;
}

/* A far end's parts, as its rank answered them. */
typedef struct far_end {
  size_t col;
  int cur, now;
} far_end;

static int cmp_far(const void *a, const void *b)
{
  const far_end *x = a, *y = b;
  return x->col < y->col ? -1 : x->col > y->col ? 1 : 0;
}

/* The cut before and after and the objects moved, over every rank: each
 * rank answers, for the listings it received, the current and new parts of
 * their local ends, so that every rank knows the parts of its edges' far
 * ends.  Edges are counted once, by their smaller end. */
static int cut_stats(zp_context *ctx, pbufs *b, int n, long long first, size_t nlist,
                     const int *new_part, scotchlb_stats *st)
{
  MPI_Comm comm = zp_ctx_comm(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  int P, rc = SCOTCHLB_OK;
  size_t nsent = 0, nrecv, k0;
  int *ans = NULL, *got = NULL, *sc = NULL, *sd = NULL, *rc2 = NULL, *rd = NULL;
  far_end *far = NULL;
  double loc[4] = {0.0, 0.0, 0.0, 0.0}, sum[4];
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) nsent += (size_t)b->scount[q] / sizeof(scotchlb_listing);
  k0 = nlist;
  for (int q = 0; q < P; q++) k0 -= (size_t)b->rcount[q] / sizeof(scotchlb_listing);
  nrecv = nlist - k0;
  ans = malloc((2 * nrecv + 1) * sizeof *ans);
  got = malloc((2 * nsent + 1) * sizeof *got);
  far = malloc((nsent + 1) * sizeof *far);
  sc = malloc((size_t)P * sizeof *sc);
  sd = malloc((size_t)P * sizeof *sd);
  rc2 = malloc((size_t)P * sizeof *rc2);
  rd = malloc((size_t)P * sizeof *rd);
  if (!ans || !got || !far || !sc || !sd || !rc2 || !rd) rc = SCOTCHLB_ENOMEM;
  rc = zp_agree_code(comm, rc);
  if (rc == SCOTCHLB_OK) {
    for (size_t r = 0; r < nrecv; r++) {
      size_t at = b->list[k0 + r].col - (size_t)first;
      ans[2 * r] = cur ? cur[at] : -1;
      ans[2 * r + 1] = new_part[at];
    }
    /* Answers go back the way the listings came, two ints each. */
    for (int q = 0; q < P; q++) {
      sc[q] = b->rcount[q] / (int)sizeof(scotchlb_listing) * 2;
      sd[q] = b->rdispl[q] / (int)sizeof(scotchlb_listing) * 2;
      rc2[q] = b->scount[q] / (int)sizeof(scotchlb_listing) * 2;
      rd[q] = b->sdispl[q] / (int)sizeof(scotchlb_listing) * 2;
    }
    MPI_Alltoallv(ans, sc, sd, MPI_INT, got, rc2, rd, MPI_INT, comm);
    for (size_t t = 0; t < nsent; t++) {
      far[t].col = b->sbuf[t].col;
      far[t].cur = got[2 * t];
      far[t].now = got[2 * t + 1];
    }
    qsort(far, nsent, sizeof *far, cmp_far);
    for (int i = 0; i < n; i++) {
      size_t me = (size_t)first + (size_t)i;
      loc[2] += cur && cur[i] >= 0 && new_part[i] != cur[i];
      loc[3] += cur == NULL || cur[i] < 0;
      for (size_t j = b->start[i]; j < b->start[i + 1]; j++) {
        size_t c = b->adj[j];
        int pc, pn;
        if (c <= me) continue;
        if (c >= (size_t)first && c - (size_t)first < (size_t)n) {
          pc = cur ? cur[c - first] : -1;
          pn = new_part[c - first];
        } else {
          far_end key = {c, 0, 0}, *f = bsearch(&key, far, nsent, sizeof *far, cmp_far);
          if (f == NULL) continue;
          pc = f->cur;
          pn = f->now;
        }
        if (cur && pc != cur[i]) loc[0] += b->w[j];
        if (pn != new_part[i]) loc[1] += b->w[j];
      }
    }
    MPI_Allreduce(loc, sum, 4, MPI_DOUBLE, MPI_SUM, comm);
    /* Without a complete input (objects in no part) there is no "before". */
    st->cut_before = sum[3] > 0.0 ? 0.0 : sum[0];
    st->cut_after = sum[1];
    st->moved = sum[3] > 0.0 ? 0 : (size_t)sum[2];
  }
  free(ans);
  free(got);
  free(far);
  free(sc);
  free(sd);
  free(rc2);
  free(rd);
  return rc;
}

int scotchlb_partition_parallel(zp_context *ctx, const scotchlb_options *o, int *new_part,
                                scotchlb_stats *st, char *msg, size_t cap)
{
  MPI_Comm comm = zp_ctx_comm(ctx);
  int n = zp_ctx_num_local(ctx), nparts = zp_ctx_num_parts(ctx), equal = 1, rc;
  long long first = 0, nglob = 0, mine = n;
  size_t nlist = 0, ends = 0, ne = 0;
  SCOTCH_Num neff = 0;
  const int *nedges = NULL, *nbr_procs = NULL;
  const double *ewgts = NULL;
  int ewdim = 0;
  pbufs b;
  memset(&b, 0, sizeof b);
  memset(st, 0, sizeof *st);
  MPI_Allreduce(&mine, &nglob, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (nglob >= (long long)INT32_MAX) {
    scotchlb_say(msg, cap, "%lld objects do not fit Scotch's %zu-byte integers", nglob,
                 sizeof(SCOTCH_Num));
    return SCOTCHLB_ETOOBIG;
  }
  rc = loads(ctx, &b, n);
  if (rc < 0) goto end;
  if (zp_ctx_local_graph(ctx, &nedges, &nbr_procs, &ewgts, &ewdim))
    for (int i = 0; i < n; i++) ne += (size_t)nedges[i];
  b.nbr_index = malloc((ne + 1) * sizeof *b.nbr_index);
  rc = zp_agree_code(comm, b.nbr_index ? SCOTCHLB_OK : SCOTCHLB_ENOMEM);
  if (rc < 0) goto end;
  if (zp_ctx_global_index(ctx, &first, b.nbr_index) != ZOLTAN_OK) {
    scotchlb_say(msg, cap, "the graph could not be numbered (see the message above)");
    rc = SCOTCHLB_EINVAL;
    goto end;
  }
  rc = listings(ctx, &b, n, first, &nlist);
  if (rc < 0) goto end;
  rc =
      scotchlb_symmetrise_rows((size_t)first, (size_t)n, b.list, nlist, &b.start, &b.adj, &b.w, st);
  if (rc == SCOTCHLB_EINVAL) scotchlb_say(msg, cap, "an edge has a negative or non-finite weight");
  rc = zp_agree_code(comm, rc);
  if (rc < 0) goto end;
  rc = to_scotch(comm, &b, n, nglob, &ends);
  if (rc < 0) goto end;
  b.pw = malloc((size_t)nparts * sizeof *b.pw);
  b.eff_to_part = malloc((size_t)nparts * sizeof *b.eff_to_part);
  b.part_to_eff = malloc((size_t)nparts * sizeof *b.part_to_eff);
  b.partload = calloc((size_t)nparts + 1, sizeof *b.partload);
  rc = zp_agree_code(comm, b.pw && b.eff_to_part && b.part_to_eff && b.partload ? SCOTCHLB_OK
                                                                                : SCOTCHLB_ENOMEM);
  if (rc < 0) goto end;
  scotchlb_parts(nparts, b.target, b.pw, b.eff_to_part, b.part_to_eff, &neff, &equal);
  rc = run_ptscotch(ctx, &b, n, ends, neff, equal, o, msg, cap);
  if (rc < 0) goto end;
  for (int i = 0; i < n; i++) new_part[i] = b.eff_to_part[b.out[i]];
  st->balance_ratio = o->tolerance - 1.0;
  st->imbalance_after = imbalance(comm, &b, n, nparts, new_part);
  rc = cut_stats(ctx, &b, n, first, nlist, new_part, st);
  if (rc < 0) goto end;
  {
    const int *cur = zp_ctx_local_parts(ctx);
    int none = 0, any_none = 0;
    for (int i = 0; i < n; i++) none |= cur == NULL || cur[i] < 0;
    MPI_Allreduce(&none, &any_none, 1, MPI_INT, MPI_MAX, comm);
    if (!any_none) st->imbalance_before = imbalance(comm, &b, n, nparts, cur);
  }
  {
    /* Counters summed over ranks; edges counted by their smaller end. */
    double c[5] = {(double)st->self_loops, (double)st->duplicates, (double)st->one_sided,
                   (double)st->asymmetric, 0.0},
           s[5];
    for (int i = 0; i < n; i++)
      for (size_t j = b.start[i]; j < b.start[i + 1]; j++) c[4] += b.adj[j] > (size_t)first + i;
    MPI_Allreduce(c, s, 5, MPI_DOUBLE, MPI_SUM, comm);
    st->self_loops = (size_t)s[0];
    st->duplicates = (size_t)s[1];
    st->one_sided = (size_t)s[2];
    st->asymmetric = (size_t)s[3];
    st->edges = (size_t)s[4];
  }
  rc = scotchlb_within(st->imbalance_after, o->tolerance, o->tolerance) ? SCOTCHLB_OK
                                                                        : SCOTCHLB_WARN;
end:
  if (rc == SCOTCHLB_ENOMEM) scotchlb_say(msg, cap, "out of memory for %d local objects", n);
  if (rc == SCOTCHLB_ETOOBIG && msg && !msg[0])
    scotchlb_say(msg, cap, "the graph is too large for MPI counts or Scotch's integers");
  pbufs_free(&b);
  return rc;
}
