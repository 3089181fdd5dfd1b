/* SPDX-License-Identifier: BSD-3-Clause */
/* LB_METHOD=DIFFUSION: runs diffusion_core's per-rank steps on every MPI
 * rank.  Only neighbouring ranks exchange messages; the rest is a handful
 * of global reductions of one or two values per round (README.md). */
#include "diffusion_zoltan.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffusion_core.h"
#include "diffusion_internal.h"
#include "zp_context.h"
#include "zp_method.h"

static const char *const auto_word[] = {"AUTO", NULL};
static const char *const scheme_words[] = {"IMPLICIT", "GDE", "HIERARCHICAL", NULL};
static const char *const nbr_words[] = {"AUTO", "GRAPH", "GEOMETRY", "HYPERCUBE", "RING", NULL};

static const zp_param_def diffusion_params[] = {
    {"DIFFUSION_NEIGHBORS", ZP_PARAM_STRING, "AUTO", 0.0, 0.0, 0, nbr_words,
     "which ranks exchange load: GRAPH (ranks whose objects share graph edges), GEOMETRY "
     "(ranks whose objects' bounding boxes touch, within the objects' spacing), HYPERCUBE "
     "(rank r and r xor 2^k), RING (r - 1 and r + 1), AUTO (GRAPH when the graph callbacks "
     "exist, else GEOMETRY when the coordinates do, else HYPERCUBE); with AUTO and GEOMETRY, "
     "HYPERCUBE links are added if the rank graph is not connected"},
    {"DIFFUSION_SCHEME", ZP_PARAM_STRING, "IMPLICIT", 0.0, 0.0, 0, scheme_words,
     "how much load crosses each link: IMPLICIT (implicit heterogeneous heat diffusion) or GDE "
     "(generalised dimension exchange: over the colours of the HYPERCUBE or RING links, or, "
     "with DIFFUSION_NEIGHBORS = GRAPH or GEOMETRY, over any rank graph with link (a, b) of "
     "colour (a + b) mod P; AUTO means HYPERCUBE here; objects then move to neighbours only, "
     "DIFFUSION_FORWARD is not used) or HIERARCHICAL (Watts et al.'s hierarchical balancing over "
     "the line of ranks in rank order, by one prefix sum; objects pass along the line, "
     "DIFFUSION_NEIGHBORS is not used)"},
    {"DIFFUSION_LAMBDA", ZP_PARAM_DOUBLE, "1", 0.0, 1.0, ZP_PARAM_MIN_OPEN, NULL,
     "GDE: the share of a pair's utilization difference one step removes (1: equal after the "
     "step)"},
    {"DIFFUSION_ALPHA", ZP_PARAM_DOUBLE, "10", 0.0, 0.0, ZP_PARAM_MIN_OPEN | ZP_PARAM_NO_MAX, NULL,
     "step length of one implicit diffusion step (any value is stable; larger: fewer rounds, "
     "more sweeps per round)"},
    {"DIFFUSION_EFFICIENCY", ZP_PARAM_DOUBLE, "AUTO", 0.0, 1.0, ZP_PARAM_MIN_OPEN, auto_word,
     "stop diffusing when U_avg / U_max of the diffused loads reaches this; AUTO = 1 / (1 + "
     "(IMBALANCE_TOL - 1) / 2), leaving half the tolerance to the granularity of objects"},
    {"DIFFUSION_MAX_ROUNDS", ZP_PARAM_INT, "200", 1.0, 1000000.0, 0, NULL,
     "most diffusion rounds per call"},
    {"DIFFUSION_LOCALITY", ZP_PARAM_INT, "1", 0.0, 1.0, 0, NULL,
     "1: the cost of sending an object includes the edges it adds to the cut (edges at home "
     "minus edges to the receiver; needs the graph callbacks, ignored without them); 0: only "
     "DIFFUSION_MOVE_COST counts (heaviest objects first)"},
    {"DIFFUSION_FORWARD", ZP_PARAM_INT, "1", 0.0, 1.0, 0, NULL,
     "1: a rank passes the objects it receives on before its own, so that each object moves "
     "once, from its rank to its final one (fewer objects move, the receiving rank is farther); "
     "0: every rank sends only its own objects to its neighbours"},
    {"DIFFUSION_MOVE_COST", ZP_PARAM_DOUBLE, "1", 0.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "the cost of moving one object, in units of the rank's mean edge weight (1: moving an "
     "object costs as much as cutting one average edge); objects are sent by increasing "
     "(cut added + this) / load"},
};

/* The per-link arrays (not the neighbour list). */
static void free_links(dstate *d)
{
  free(d->w);
  free(d->cnbr);
  free(d->unbr);
  free(d->acc);
  free(d->sendbuf);
  free(d->req);
}

static void dstate_free(dstate *d)
{
  free(d->nbr);
  free_links(d);
  if (d->ncomp > 1 && d->rcomm != MPI_COMM_NULL) MPI_Comm_free(&d->rcomm);
}

/* Add rank q to the neighbour list, keeping it sorted and free of repeats. */
static int add_nbr(dstate *d, int q)
{
  int lo = 0, hi = d->nnbr;
  if (q == d->rank || q < 0 || q >= d->size) return ZOLTAN_OK;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (d->nbr[mid] < q)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < d->nnbr && d->nbr[lo] == q) return ZOLTAN_OK;
  if (d->nnbr == d->cap_nbr) {
    int cap = d->cap_nbr ? 2 * d->cap_nbr : 8;
    int *p = realloc(d->nbr, (size_t)cap * sizeof *p);
    if (p == NULL) return ZOLTAN_MEMERR;
    d->nbr = p;
    d->cap_nbr = cap;
  }
  memmove(d->nbr + lo + 1, d->nbr + lo, (size_t)(d->nnbr - lo) * sizeof *d->nbr);
  d->nbr[lo] = q;
  d->nnbr++;
  return ZOLTAN_OK;
}

/* Index of rank q among the neighbours, or -1. */
static int nbr_index(const dstate *d, int q)
{
  int lo = 0, hi = d->nnbr - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (d->nbr[mid] == q) return mid;
    if (d->nbr[mid] < q)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int add_hypercube(dstate *d)
{
  int ierr = ZOLTAN_OK;
  for (long bit = 1; bit < d->size && ierr == ZOLTAN_OK; bit <<= 1)
    ierr = add_nbr(d, (int)(d->rank ^ bit));
  return ierr;
}

/* A rank that named this one: an empty message, whose source becomes a
 * neighbour. */
typedef struct named_by {
  dstate *d;
  int ierr;
} named_by;

static void recv_named(void *data, const MPI_Status *st)
{
  named_by *x = data;
  int dummy = 0;
  MPI_Recv(&dummy, 0, MPI_INT, st->MPI_SOURCE, DIFFUSION_TAG_DISCOVER, x->d->comm,
           MPI_STATUS_IGNORE);
  if (x->ierr == ZOLTAN_OK) x->ierr = add_nbr(x->d, st->MPI_SOURCE);
}

/*
 * The ranks that named this one as a neighbour become neighbours too, so
 * that the links are symmetric even when the application's graph is not:
 * a synchronous send to each named rank, in a non-blocking consensus, so
 * no rank handles a message per rank of the communicator.
 */
static int symmetrise(dstate *d)
{
  int n0 = d->nnbr, i, dummy = 0, *named;
  named_by x = {d, ZOLTAN_OK};
  MPI_Request *sreq = malloc(((size_t)n0 + 1) * sizeof *sreq);
  named = malloc(((size_t)n0 + 1) * sizeof *named);
  if (zp_agree_code(d->comm, sreq && named ? ZOLTAN_OK : ZOLTAN_MEMERR) < 0) {
    free(sreq);
    free(named);
    return ZOLTAN_MEMERR;
  }
  if (n0 > 0) memcpy(named, d->nbr, (size_t)n0 * sizeof *named);
  for (i = 0; i < n0; i++)
    MPI_Issend(&dummy, 0, MPI_INT, named[i], DIFFUSION_TAG_DISCOVER, d->comm, &sreq[i]);
  diffusion_nbx(d->comm, DIFFUSION_TAG_DISCOVER, n0, sreq, recv_named, &x);
  free(sreq);
  free(named);
  return zp_agree_code(d->comm, x.ierr);
}

/* The smallest rank number of this rank's component of the rank graph:
 * it spreads over the links until nothing changes (diameter + 1
 * exchanges). */
static double component_label(dstate *d)
{
  double label = d->rank;
  int changed = 1, any = 1, j;
  while (any) {
    diffusion_exchange_same(d, label, d->unbr);
    changed = 0;
    for (j = 0; j < d->nnbr; j++)
      if (d->unbr[j] < label) {
        label = d->unbr[j];
        changed = 1;
      }
    MPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_MAX, d->comm);
  }
  return label;
}

/* 1 when the links join every rank. */
static int connected(dstate *d)
{
  double label = component_label(d);
  MPI_Allreduce(MPI_IN_PLACE, &label, 1, MPI_DOUBLE, MPI_MAX, d->comm);
  return label == 0.0;
}

/* With the neighbours given by the graph alone (DIFFUSION_NEIGHBORS=GRAPH),
 * ranks that share no edge path form separate components: each is
 * balanced on its own, its rounds' reductions over its own ranks.
 * Collective. */
static int split_components(dstate *d)
{
  double label = component_label(d);
  int root = label == (double)d->rank, n = 0;
  MPI_Allreduce(&root, &n, 1, MPI_INT, MPI_SUM, d->comm);
  d->ncomp = n;
  if (n <= 1) return ZOLTAN_OK;
  return MPI_Comm_split(d->comm, (int)label, d->rank, &d->rcomm) == MPI_SUCCESS ? ZOLTAN_OK
                                                                                : ZOLTAN_FATAL;
}

/* The objects' bounding box (lows, then highs; empty without objects) and
 * an estimate of their spacing: the box's volume per object, to the power
 * 1 / (dimensions of non-zero extent). */
static double local_box(int n, int dim, const double *x, double *box)
{
  int i, k, used = 0;
  double vol = 1.0;
  for (k = 0; k < dim; k++) {
    box[k] = INFINITY;
    box[dim + k] = -INFINITY;
  }
  for (i = 0; i < n; i++)
    for (k = 0; k < dim; k++) {
      double v = x[(size_t)i * dim + k];
      if (v < box[k]) box[k] = v;
      if (v > box[dim + k]) box[dim + k] = v;
    }
  for (k = 0; n > 0 && k < dim; k++)
    if (box[dim + k] > box[k]) {
      vol *= box[dim + k] - box[k];
      used++;
    }
  return used > 0 ? pow(vol / n, 1.0 / used) : 0.0;
}

/* GEOMETRY: the ranks whose bounding boxes touch this rank's, each widened
 * by the largest spacing of objects on any rank (a block of cells ends half
 * a cell before the next block begins).  One allgather of the boxes: 48
 * bytes per rank in 3-D, the one step of DIFFUSION whose size grows with the
 * number of ranks.  Collective. */
static int add_geometry(zp_context *ctx, dstate *d, int dim, const double *x)
{
  double box[6], margin, *all = malloc((size_t)d->size * 2 * dim * sizeof *all);
  int *out = malloc((size_t)d->size * sizeof *out), ierr = ZOLTAN_OK, k, nb;
  if (zp_agree_code(d->comm, all && out ? ZOLTAN_OK : ZOLTAN_MEMERR) < 0) {
    free(all);
    free(out);
    return ZOLTAN_MEMERR;
  }
  margin = local_box(zp_ctx_num_local(ctx), dim, x, box);
  MPI_Allreduce(MPI_IN_PLACE, &margin, 1, MPI_DOUBLE, MPI_MAX, d->comm);
  MPI_Allgather(box, 2 * dim, MPI_DOUBLE, all, 2 * dim, MPI_DOUBLE, d->comm);
  nb = diffusion_box_neighbours(d->size, dim, all, margin, d->rank, out);
  for (k = 0; k < nb && ierr == ZOLTAN_OK; k++) ierr = add_nbr(d, out[k]);
  free(all);
  free(out);
  return zp_agree_code(d->comm, nb < 0 ? ZOLTAN_FATAL : ierr);
}

/* (Re)allocate the per-link arrays for the current neighbours.
 * Collective: the outcome is agreed. */
static int alloc_links(dstate *d)
{
  size_t m = (size_t)d->nnbr + 1;
  int ok;
  free_links(d);
  d->w = malloc(m * sizeof *d->w);
  d->cnbr = malloc(m * sizeof *d->cnbr);
  d->unbr = malloc(m * sizeof *d->unbr);
  d->acc = calloc(m, sizeof *d->acc);
  d->sendbuf = malloc(m * sizeof *d->sendbuf);
  d->req = malloc(2 * m * sizeof *d->req);
  ok = d->w && d->cnbr && d->unbr && d->acc && d->sendbuf && d->req;
  return zp_agree_code(d->comm, ok ? ZOLTAN_OK : ZOLTAN_MEMERR);
}

/* The neighbours the parameters ask for, symmetric, and the per-link
 * arrays.  *added is set when the hypercube's links had to be added.
 * Collective: has_graph and the coordinates are the same on every rank. */
static int build_neighbours(zp_context *ctx, dstate *d, const char *mode, int has_graph,
                            const int *nedges, const int *nbr_procs, int *added)
{
  int ierr = ZOLTAN_OK, i, k, n = zp_ctx_num_local(ctx), use_graph, use_geom, dim = 0;
  int is_auto = strcmp(mode, "AUTO") == 0;
  const double *x = NULL;
  size_t e = 0;
  *added = 0;
  use_graph = has_graph && (is_auto || strcmp(mode, "GRAPH") == 0);
  use_geom = !use_graph && (is_auto || strcmp(mode, "GEOMETRY") == 0) &&
             zp_ctx_local_coords(ctx, &dim, &x) && dim <= 3;
  for (i = 0; use_graph && i < n && ierr == ZOLTAN_OK; i++)
    for (k = 0; k < nedges[i] && ierr == ZOLTAN_OK; k++, e++) ierr = add_nbr(d, nbr_procs[e]);
  if (strcmp(mode, "RING") == 0) {
    if (ierr == ZOLTAN_OK) ierr = add_nbr(d, (d->rank + 1) % d->size);
    if (ierr == ZOLTAN_OK) ierr = add_nbr(d, (d->rank + d->size - 1) % d->size);
  } else if (strcmp(mode, "LINE") == 0) {
    /* HIERARCHICAL: ranks in rank order, without the ring's closing link. */
    if (ierr == ZOLTAN_OK && d->rank + 1 < d->size) ierr = add_nbr(d, d->rank + 1);
    if (ierr == ZOLTAN_OK && d->rank > 0) ierr = add_nbr(d, d->rank - 1);
  } else if (!use_graph && !use_geom && ierr == ZOLTAN_OK) {
    ierr = add_hypercube(d);
  }
  if ((ierr = zp_agree_code(d->comm, ierr)) < 0) return ierr;
  if (use_geom && (ierr = add_geometry(ctx, d, dim, x)) < 0) return ierr;
  if (use_graph && (ierr = symmetrise(d)) < 0) return ierr;
  if ((ierr = alloc_links(d)) < 0) return ierr;
  if (use_graph && !is_auto && d->size > 1 &&
      (ierr = zp_agree_code(d->comm, split_components(d))) < 0)
    return ierr;
  if (((use_graph && is_auto) || use_geom) && d->size > 1 && !connected(d)) {
    /* Ranks without edges or touching boxes between them (an empty rank, a
     * mesh in pieces) could never exchange load: the hypercube's links,
     * symmetric by construction, join them. */
    *added = 1;
    if ((ierr = zp_agree_code(d->comm, add_hypercube(d))) < 0) return ierr;
    ierr = alloc_links(d);
  }
  return ierr;
}

/* One scalar load per local object: the weight, or with several weights
 * the sum over dimensions of the object's share of that dimension's total
 * (REFINE's combination).  Collective (the totals). */
static int scalar_loads(zp_context *ctx, MPI_Comm comm, double *s)
{
  int n = zp_ctx_num_local(ctx), wdim = zp_ctx_wgt_dim(ctx), i, dd;
  const double *w = zp_ctx_local_wgts(ctx);
  double *tot = calloc(2 * (size_t)wdim, sizeof *tot);
  if (zp_agree_code(comm, tot != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR) < 0) {
    free(tot);
    return ZOLTAN_MEMERR;
  }
  for (i = 0; i < n; i++)
    for (dd = 0; dd < wdim; dd++) tot[dd] += w[(size_t)i * wdim + dd];
  MPI_Allreduce(tot, tot + wdim, wdim, MPI_DOUBLE, MPI_SUM, comm);
  for (i = 0; i < n; i++) {
    s[i] = 0.0;
    for (dd = 0; dd < wdim; dd++) {
      double t = tot[wdim + dd], x = w[(size_t)i * wdim + dd];
      s[i] += wdim == 1 ? x : (t > 0.0 ? x / t : 0.0);
    }
  }
  free(tot);
  return ZOLTAN_OK;
}

/* This rank's capacity: the mean of its part's target shares.  A part of
 * size 0 gets a tiny capacity, so that it sheds all its load. */
static double own_capacity(zp_context *ctx, int rank, int size)
{
  int wdim = zp_ctx_wgt_dim(ctx), dd;
  const double *ps = zp_ctx_part_sizes(ctx);
  double c = 0.0;
  for (dd = 0; dd < wdim; dd++) c += ps[(size_t)rank * wdim + dd];
  c /= wdim;
  return c > 1e-9 / size ? c : 1e-9 / size;
}

/* U_avg / U_max over the ranks (1 when there is no load). */
static double global_efficiency(dstate *d, double load, double cap, double uavg)
{
  double u = load / cap, umax;
  MPI_Allreduce(&u, &umax, 1, MPI_DOUBLE, MPI_MAX, d->rcomm);
  return umax > 0.0 ? uavg / umax : 1.0;
}

/* The diffusion rounds: d->acc receives the load to send over each link.
 * Collective. */
static int diffuse(dstate *d, double load, double cap, diffusion_options *o, diffusion_stats *st)
{
  double wsum = 0.0, kmax, sums[2], tot[2], uavg;
  int s;
  diffusion_exchange_same(d, cap, d->cnbr);
  if (zp_agree_code(d->comm,
                    diffusion_link_weights(cap, d->nnbr, d->cnbr, d->w, &wsum) == DIFFUSION_OK
                        ? ZOLTAN_OK
                        : ZOLTAN_FATAL) < 0)
    return ZOLTAN_FATAL;
  kmax = wsum / cap;
  MPI_Allreduce(MPI_IN_PLACE, &kmax, 1, MPI_DOUBLE, MPI_MAX, d->rcomm);
  diffusion_plan(o->alpha, kmax, o->accuracy, &o->alpha, &st->sweeps);
  sums[0] = load;
  sums[1] = cap;
  MPI_Allreduce(sums, tot, 2, MPI_DOUBLE, MPI_SUM, d->rcomm);
  uavg = tot[1] > 0.0 ? tot[0] / tot[1] : 0.0;
  st->eff_before = st->eff_after = global_efficiency(d, load, cap, uavg);
  st->exchanges = 1;
  st->reductions = 4;
  while (st->eff_after < o->efficiency && st->rounds < o->max_rounds) {
    double u = load / cap;
    for (s = 0; s < st->sweeps; s++) {
      diffusion_exchange_same(d, u, d->unbr);
      u = diffusion_jacobi(load, cap, o->alpha, d->nnbr, d->w, wsum, d->unbr);
    }
    /* Both ends of a link take their flow from the same pair of values. */
    diffusion_exchange_same(d, u, d->unbr);
    diffusion_round_flows(o->alpha, d->nnbr, d->w, u, d->unbr, d->acc, &load);
    d->phi += u;
    st->rounds++;
    st->exchanges += st->sweeps + 1;
    st->reductions++;
    st->eff_after = global_efficiency(d, load, cap, uavg);
  }
  return ZOLTAN_OK;
}

/* GDE: rounds over the colours of the hypercube or the ring; in each colour
 * a rank exchanges its load with its partner and both move towards equal
 * utilization.  d->acc receives the load sent over each link.  Collective. */
static int dimension_exchange(dstate *d, diffusion_topology t, int any_graph, double lambda,
                              double load, double cap, const diffusion_options *o,
                              diffusion_stats *st)
{
  double sums[2], tot[2], uavg;
  int colours = any_graph ? d->nnbr : diffusion_gde_colours(t, d->size), c, maxdeg = 0;
  int *order = malloc(((size_t)d->nnbr + 1) * sizeof *order);
  if (zp_agree_code(d->comm, order ? ZOLTAN_OK : ZOLTAN_MEMERR) < 0) {
    free(order);
    return ZOLTAN_MEMERR;
  }
  if (any_graph) diffusion_gde_link_order(d->rank, d->nnbr, d->nbr, d->size, order);
  MPI_Allreduce(&d->nnbr, &maxdeg, 1, MPI_INT, MPI_MAX, d->rcomm);
  diffusion_exchange_same(d, cap, d->cnbr);
  sums[0] = load;
  sums[1] = cap;
  MPI_Allreduce(sums, tot, 2, MPI_DOUBLE, MPI_SUM, d->rcomm);
  uavg = tot[1] > 0.0 ? tot[0] / tot[1] : 0.0;
  /* On any graph a round is one exchange per link, in colour order: the
   * most links of a rank is the round's length in exchanges. */
  st->sweeps = any_graph ? maxdeg : colours;
  st->eff_before = st->eff_after = global_efficiency(d, load, cap, uavg);
  st->exchanges = 1;
  st->reductions = 2;
  while (st->eff_after < o->efficiency && st->rounds < o->max_rounds) {
    for (c = 0; c < colours; c++) {
      int q = any_graph ? d->nbr[order[c]] : diffusion_gde_partner(t, d->size, d->rank, c);
      int j = any_graph ? order[c] : q >= 0 ? nbr_index(d, q) : -1;
      double lq = 0.0, f;
      if (j < 0) continue;
      MPI_Sendrecv(&load, 1, MPI_DOUBLE, q, DIFFUSION_TAG_VALUE, &lq, 1, MPI_DOUBLE, q,
                   DIFFUSION_TAG_VALUE, d->comm, MPI_STATUS_IGNORE);
      f = diffusion_gde_transfer(load, cap, lq, d->cnbr[j], lambda);
      load -= f;
      d->acc[j] += f;
    }
    st->rounds++;
    st->exchanges += any_graph ? maxdeg : colours;
    st->reductions++;
    st->eff_after = global_efficiency(d, load, cap, uavg);
  }
  free(order);
  return ZOLTAN_OK;
}

/*
 * HIERARCHICAL: Watts et al.'s hierarchical balancing method on the line of
 * ranks.  HBM splits the ranks in two, moves between the halves what makes
 * their utilizations equal, (C2 L1 - C1 L2) / (C1 + C2), and recurses into
 * each half.  On a line the transfers of all levels add up, on the link
 * between ranks r and r + 1, to what the ranks up to r hold beyond their
 * share: prefix_L(r) - U prefix_C(r), U the average utilization.  One
 * exclusive scan (itself the recursive halving tree of the ranks) gives
 * every link's flow, with no iteration; d->acc receives it, and d->phi a
 * potential that falls along the flows, so that the routing forwards
 * objects along the line.  Collective: two scans and one allreduce.
 */
static int hierarchical(dstate *d, double load, double cap, diffusion_stats *st)
{
  double mine[2] = {load, cap}, before[2] = {0.0, 0.0}, tot[2], uavg, fl, fr;
  double sgn = 0.0, phi_before = 0.0;
  MPI_Exscan(mine, before, 2, MPI_DOUBLE, MPI_SUM, d->comm);
  if (d->rank == 0) before[0] = before[1] = 0.0;
  MPI_Allreduce(mine, tot, 2, MPI_DOUBLE, MPI_SUM, d->comm);
  uavg = tot[1] > 0.0 ? tot[0] / tot[1] : 0.0;
  st->eff_before = global_efficiency(d, load, cap, uavg);
  /* Flow into this rank from the left (> 0: the left sends) and out to the
   * right (> 0: this rank sends). */
  fl = before[0] - uavg * before[1];
  fr = before[0] + load - uavg * (before[1] + cap);
  for (int j = 0; j < d->nnbr; j++) d->acc[j] = d->nbr[j] < d->rank ? -fl : fr;
  if (d->rank + 1 == d->size) fr = 0.0;
  sgn = fr > 0.0 ? 1.0 : (fr < 0.0 ? -1.0 : 0.0);
  MPI_Exscan(&sgn, &phi_before, 1, MPI_DOUBLE, MPI_SUM, d->comm);
  if (d->rank == 0) phi_before = 0.0;
  d->phi = -phi_before;
  st->rounds = 1;
  st->sweeps = 0;
  st->exchanges = 0;
  st->reductions = 4;
  /* The flows make every utilization U exactly: what the objects reach is
   * measured after the routing. */
  st->eff_after = 1.0;
  return ZOLTAN_OK;
}

/* Locality costs: for each object and neighbour, how much sending the
 * object there adds to the edge cut (the weight of its edges at home minus
 * that of its edges to the neighbour); *unit receives the mean weight of
 * the local edges (1 without edges).  Local; returns NULL when memory is
 * short (selection then goes without). */
static double *locality_costs(zp_context *ctx, const dstate *d, const int *nedges,
                              const int *nbr_procs, const double *ewgts, int edim, double *unit)
{
  int n = zp_ctx_num_local(ctx), i, k, j;
  size_t e = 0;
  double *cost = calloc((size_t)n * (size_t)d->nnbr + 1, sizeof *cost), wsum = 0.0;
  *unit = 1.0;
  if (cost == NULL) return NULL;
  for (i = 0; i < n; i++) {
    double home = 0.0, *c = cost + (size_t)i * d->nnbr;
    for (k = 0; k < nedges[i]; k++, e++) {
      double wt = edim > 0 ? 0.0 : 1.0;
      int q = nbr_procs[e];
      for (j = 0; j < edim; j++) wt += ewgts[e * (size_t)edim + j];
      wsum += wt;
      if (q == d->rank)
        home += wt;
      else if ((j = nbr_index(d, q)) >= 0)
        c[j] -= wt;
    }
    for (j = 0; j < d->nnbr; j++) c[j] += home;
  }
  if (e > 0 && wsum > 0.0) *unit = wsum / (double)e;
  return cost;
}

/* The options and the neighbourhood mode from the parameters. */
static int read_options(zp_context *ctx, diffusion_options *o, const char **mode, int *locality,
                        double *move_cost, int *forward, const char **scheme, double *lambda)
{
  const zp_params *p = zp_ctx_params(ctx);
  const double *tol = zp_ctx_imbalance_tol(ctx);
  double eff = 0.0, t = 0.0;
  int kw = 0, dd;
  diffusion_default_options(o);
  if (zp_param_string(p, "DIFFUSION_NEIGHBORS", mode) != ZOLTAN_OK ||
      zp_param_double(p, "DIFFUSION_ALPHA", &o->alpha, NULL) != ZOLTAN_OK ||
      zp_param_double(p, "DIFFUSION_EFFICIENCY", &eff, &kw) != ZOLTAN_OK ||
      zp_param_int(p, "DIFFUSION_MAX_ROUNDS", &o->max_rounds, NULL) != ZOLTAN_OK ||
      zp_param_int(p, "DIFFUSION_LOCALITY", locality, NULL) != ZOLTAN_OK ||
      zp_param_double(p, "DIFFUSION_MOVE_COST", move_cost, NULL) != ZOLTAN_OK ||
      zp_param_int(p, "DIFFUSION_FORWARD", forward, NULL) != ZOLTAN_OK ||
      zp_param_string(p, "DIFFUSION_SCHEME", scheme) != ZOLTAN_OK ||
      zp_param_double(p, "DIFFUSION_LAMBDA", lambda, NULL) != ZOLTAN_OK)
    return ZOLTAN_FATAL;
  if (kw) {
    /* Half of the tolerance for the diffusion, half for the granularity of
     * the objects that carry the transfers. */
    for (dd = 0; dd < zp_ctx_wgt_dim(ctx); dd++)
      if (dd == 0 || tol[dd] < t) t = tol[dd];
    if (t < 1.0) t = 1.0;
    eff = 1.0 / (1.0 + (t - 1.0) / 2.0);
  }
  o->efficiency = eff;
  /* The Jacobi accuracy follows the efficiency, as the seed sets it. */
  o->accuracy = eff < 1.0 ? 1.0 - eff : 1e-6;
  if (o->accuracy > 0.5) o->accuracy = 0.5;
  return ZOLTAN_OK;
}

/* One line at DEBUG_LEVEL >= 1 on rank 0.  Collective (the counts). */
static void report(zp_context *ctx, dstate *d, const diffusion_stats *st, long moved, int added,
                   double eff_target)
{
  long all_moved = 0, cnt[4] = {st->rounds, st->sweeps, st->exchanges, d->nnbr}, mx[4];
  double eff[2] = {st->eff_before, st->eff_after}, mn[2];
  if (zp_ctx_debug_level(ctx) < 1) return;
  /* With several components (DIFFUSION_NEIGHBORS=GRAPH), the busiest
   * component's counts and the worst efficiencies. */
  MPI_Reduce(&moved, &all_moved, 1, MPI_LONG, MPI_SUM, 0, d->comm);
  MPI_Reduce(cnt, mx, 4, MPI_LONG, MPI_MAX, 0, d->comm);
  MPI_Reduce(eff, mn, 2, MPI_DOUBLE, MPI_MIN, 0, d->comm);
  if (d->rank == 0)
    printf("DIFFUSION: %ld rounds x %ld sweeps, %ld exchanges with at most %ld neighbours%s; "
           "efficiency %.4f -> %.4f (target %.4f); %ld objects sent\n",
           mx[0], mx[1], mx[2], mx[3], added ? " (hypercube links added)" : "", mn[0], mn[1],
           eff_target, all_moved);
}

static int diffusion_partition(zp_context *ctx, void *state, int *new_part)
{
  dstate d = {0};
  diffusion_options o;
  diffusion_stats st = {0};
  const char *mode = "AUTO";
  const int *nedges = NULL, *nbr_procs = NULL;
  const double *ewgts = NULL;
  double *s = NULL, *cost = NULL, load = 0.0, cap, move_cost = 1.0, unit = 1.0;
  const char *scheme = "IMPLICIT";
  double lambda = 1.0;
  int n = zp_ctx_num_local(ctx), locality = 1, forward = 1, has_graph, edim = 0, added = 0, i, gde;
  int hier;
  int ierr;
  long moved = 0;
  (void)state;
  d.comm = zp_ctx_comm(ctx);
  d.rcomm = d.comm;
  d.ncomp = 1;
  MPI_Comm_rank(d.comm, &d.rank);
  MPI_Comm_size(d.comm, &d.size);
  if (!zp_ctx_parts_are_ranks(ctx)) {
    zp_error(zp_ctx_where(ctx),
             "DIFFUSION balances ranks: it needs one part per rank (NUM_GLOBAL_PARTS = %d on %d "
             "ranks, or NUM_LOCAL_PARTS set); use GREEDY, REFINE or a Zoltan method for other "
             "part layouts",
             zp_ctx_num_parts(ctx), d.size);
    return ZOLTAN_FATAL;
  }
  if (read_options(ctx, &o, &mode, &locality, &move_cost, &forward, &scheme, &lambda) != ZOLTAN_OK)
    return ZOLTAN_FATAL;
  gde = strcmp(scheme, "GDE") == 0;
  hier = strcmp(scheme, "HIERARCHICAL") == 0;
  if (hier) {
    /* The line of ranks; objects must pass along it. */
    mode = "LINE";
    forward = 1;
  }
  if (gde) {
    /* GDE's flows may run in circles, so objects move to neighbours only.
     * AUTO keeps the hypercube, whose colouring balances in one round. */
    if (strcmp(mode, "AUTO") == 0) mode = "HYPERCUBE";
    forward = 0;
  }
  has_graph = zp_ctx_local_graph(ctx, &nedges, &nbr_procs, &ewgts, &edim);
  s = malloc(((size_t)n + 1) * sizeof *s);
  ierr = zp_agree_code(d.comm, s ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr >= 0) ierr = scalar_loads(ctx, d.comm, s);
  if (ierr >= 0) ierr = build_neighbours(ctx, &d, mode, has_graph, nedges, nbr_procs, &added);
  if (ierr < 0) goto End;
  for (i = 0; i < n; i++) load += s[i];
  cap = own_capacity(ctx, d.rank, d.size);
  ierr =
      hier ? hierarchical(&d, load, cap, &st)
      : gde
          ? dimension_exchange(&d, strcmp(mode, "RING") == 0 ? DIFFUSION_RING : DIFFUSION_HYPERCUBE,
                               strcmp(mode, "RING") != 0 && strcmp(mode, "HYPERCUBE") != 0, lambda,
                               load, cap, &o, &st)
          : diffuse(&d, load, cap, &o, &st);
  if (ierr < 0) goto End;
  if (locality && has_graph) cost = locality_costs(ctx, &d, nedges, nbr_procs, ewgts, edim, &unit);
  /* The ranks are the parts (checked above): the final rank is the part. */
  ierr = diffusion_route(&d, s, n, cost, move_cost * unit, forward, new_part, &moved);
  if (ierr >= 0) report(ctx, &d, &st, moved, added, o.efficiency);
  if (ierr >= 0 && d.ncomp > 1) {
    if (d.rank == 0)
      zp_warn(zp_ctx_where(ctx),
              "DIFFUSION: the ranks' graph edges (DIFFUSION_NEIGHBORS=GRAPH) form %d separate "
              "groups of ranks; each group was balanced on its own, so loads differ between "
              "groups (DIFFUSION_NEIGHBORS=AUTO joins them with hypercube links)",
              d.ncomp);
    ierr = ZOLTAN_WARN;
  }
End:
  free(s);
  free(cost);
  dstate_free(&d);
  return ierr;
}

/* The graph is wanted for the neighbourhood (GRAPH, AUTO) or for locality,
 * and needed when DIFFUSION_NEIGHBORS=GRAPH; the coordinates are wanted by
 * AUTO (used without a graph) and needed by GEOMETRY. */
static unsigned diffusion_needs(const zp_params *p)
{
  const char *mode = "AUTO";
  int locality = 1;
  unsigned f = ZP_NO_REMAP;
  zp_param_string(p, "DIFFUSION_NEIGHBORS", &mode);
  zp_param_int(p, "DIFFUSION_LOCALITY", &locality, NULL);
  if (strcmp(mode, "GRAPH") == 0) return f | ZP_NEEDS_GRAPH;
  if (strcmp(mode, "GEOMETRY") == 0) f |= ZP_NEEDS_GEOM;
  if (strcmp(mode, "AUTO") == 0) f |= ZP_WANTS_GEOM;
  if (strcmp(mode, "AUTO") == 0 || locality) f |= ZP_WANTS_GRAPH;
  return f;
}

static const zp_method diffusion_method = {
    .abi = ZP_METHOD_ABI,
    .name = "DIFFUSION",
    .summary = "balancing without a root: implicit heterogeneous heat diffusion between "
               "neighbouring ranks, then locality-aware choice of the objects that move",
    .params = diffusion_params,
    .num_params = sizeof(diffusion_params) / sizeof(diffusion_params[0]),
    .needs = ZP_WANTS_GRAPH | ZP_NO_REMAP,
    .partition_parallel = diffusion_partition,
    .needs_for = diffusion_needs};

int diffusion_register(void) { return zp_register_method(&diffusion_method); }
