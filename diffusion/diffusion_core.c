/* SPDX-License-Identifier: BSD-3-Clause */
/* DIFFUSION's pure core: the per-rank steps of implicit heterogeneous heat
 * diffusion, task selection, and a simulator that runs the steps for many
 * virtual ranks (diffusion_core.h). */
#include "diffusion_core.h"

#include <math.h>
#include <stdlib.h>

int diffusion_link_weights(double c_self, int nnbr, const double *c_nbr, double *w, double *wsum)
{
  int j;
  double sum = 0.0;
  if (!(isfinite(c_self) && c_self > 0.0) || nnbr < 0 ||
      (nnbr > 0 && (c_nbr == NULL || w == NULL)) || wsum == NULL)
    return DIFFUSION_EINVAL;
  for (j = 0; j < nnbr; j++) {
    double cj = c_nbr[j];
    if (!(isfinite(cj) && cj > 0.0)) return DIFFUSION_EINVAL;
    /* Products and sums of two doubles commute exactly in IEEE arithmetic,
     * so both ends of the link compute the same weight. */
    w[j] = (c_self * cj) / (c_self + cj);
    sum += w[j];
  }
  *wsum = sum;
  return DIFFUSION_OK;
}

/* Sweeps that bring an error down by accuracy when each contracts it by
 * rho, or DIFFUSION_MAX_SWEEPS + 1 when that is more than allowed. */
static int sweeps_for(double rho, double accuracy)
{
  double m;
  if (!(rho > 0.0)) return 1; /* no links: one sweep is exact */
  if (rho >= 1.0) return DIFFUSION_MAX_SWEEPS + 1;
  m = ceil(log(accuracy) / log(rho));
  if (m < 1.0) return 1;
  return m > DIFFUSION_MAX_SWEEPS ? DIFFUSION_MAX_SWEEPS + 1 : (int)m;
}

void diffusion_plan(double alpha, double kmax, double accuracy, double *alpha_out, int *sweeps)
{
  int m = DIFFUSION_MAX_SWEEPS + 1, halvings;
  for (halvings = 0; halvings < 200; halvings++, alpha /= 2.0) {
    double ak = alpha * kmax;
    m = sweeps_for(ak / (1.0 + ak), accuracy / (1.0 + ak));
    if (m <= DIFFUSION_MAX_SWEEPS) break;
  }
  *alpha_out = alpha;
  *sweeps = m <= DIFFUSION_MAX_SWEEPS ? m : DIFFUSION_MAX_SWEEPS;
}

double diffusion_jacobi(double load, double c_self, double alpha, int nnbr, const double *w,
                        double wsum, const double *u_nbr)
{
  double acc = 0.0;
  int j;
  for (j = 0; j < nnbr; j++) acc += w[j] * u_nbr[j];
  return (load + alpha * acc) / (c_self + alpha * wsum);
}

void diffusion_round_flows(double alpha, int nnbr, const double *w, double u_self,
                           const double *u_nbr, double *acc, double *load)
{
  double out = 0.0;
  int j;
  for (j = 0; j < nnbr; j++) {
    /* u_self - u_nbr[j] is the exact negation of what the other end
     * computes, and the weight is the same bits: f_ji = -f_ij exactly. */
    double f = alpha * w[j] * (u_self - u_nbr[j]);
    acc[j] += f;
    out += f;
  }
  *load -= out;
}

/* ---- task selection ------------------------------------------------------- */

/* The sort key of one candidate object for one neighbour. */
typedef struct sel_key {
  double ratio; /* transfer cost per unit of load */
  double s;     /* load */
  size_t i;     /* object index */
} sel_key;

/* Increasing cost per load, then decreasing load, then increasing index: a
 * total order, so the selection does not depend on qsort's stability. */
static int sel_cmp(const void *a, const void *b)
{
  const sel_key *x = a, *y = b;
  if (x->ratio != y->ratio) return x->ratio < y->ratio ? -1 : 1;
  if (x->s != y->s) return x->s > y->s ? -1 : 1;
  return x->i < y->i ? -1 : (x->i > y->i);
}

/* A neighbour and its (scaled) quota. */
typedef struct nbr_key {
  double q; /* load to send */
  int j;    /* neighbour index */
} nbr_key;

/* Neighbour order: decreasing quota, then increasing index. */
static int nbr_cmp(const void *a, const void *b)
{
  const nbr_key *x = a, *y = b;
  if (x->q != y->q) return x->q > y->q ? -1 : 1;
  return x->j < y->j ? -1 : (x->j > y->j);
}

static int select_check(size_t n, const double *s, int nnbr, const double *quota, int *dest)
{
  size_t i;
  int j;
  if (nnbr < 0 || (n > 0 && (s == NULL || dest == NULL)) || (nnbr > 0 && quota == NULL))
    return DIFFUSION_EINVAL;
  for (i = 0; i < n; i++)
    if (!(isfinite(s[i]) && s[i] >= 0.0)) return DIFFUSION_EINVAL;
  for (j = 0; j < nnbr; j++)
    if (isnan(quota[j])) return DIFFUSION_EINVAL;
  return DIFFUSION_OK;
}

/* Fill one neighbour's quota q from the objects not yet taken; returns the
 * load sent. */
static double fill_one(size_t n, const double *s, int nnbr, int j, double q, const double *cost,
                       double move_cost, int *dest, sel_key *keys)
{
  size_t i, m = 0;
  double sent = 0.0;
  for (i = 0; i < n; i++) {
    if (dest[i] >= 0 || s[i] <= 0.0) continue;
    keys[m].ratio = ((cost != NULL ? cost[i * (size_t)nnbr + (size_t)j] : 0.0) + move_cost) / s[i];
    keys[m].s = s[i];
    keys[m].i = i;
    m++;
  }
  qsort(keys, m, sizeof *keys, sel_cmp);
  /* First every object that fits in what is missing, cheapest first; then
   * at most one more, the lightest left, when it brings the total closer to
   * the quota.  Taking any object that brings the total closer, in cost
   * order, would overshoot on most links (a heavy object lands the sum
   * above the quota and the filling stops, while a sum below it goes on
   * with lighter objects): a bias that the ranks downstream add up. */
  for (i = 0; i < m && sent < q; i++) {
    if (sent + keys[i].s <= q) {
      dest[keys[i].i] = j;
      sent += keys[i].s;
      keys[i].s = -1.0; /* taken */
    }
  }
  if (sent < q) {
    size_t best = m;
    for (i = 0; i < m; i++)
      if (keys[i].s > 0.0 && (best == m || keys[i].s < keys[best].s ||
                              (keys[i].s == keys[best].s && keys[i].i < keys[best].i)))
        best = i;
    if (best < m && keys[best].s < 2.0 * (q - sent)) {
      dest[keys[best].i] = j;
      sent += keys[best].s;
    }
  }
  return sent;
}

int diffusion_select(size_t n, const double *s, int nnbr, const double *quota, const double *cost,
                     double move_cost, int *dest, double *sent)
{
  size_t i;
  int j, ierr = DIFFUSION_OK;
  double total = 0.0, want = 0.0, scale = 1.0;
  nbr_key *order = NULL;
  sel_key *keys = NULL;
  if ((ierr = select_check(n, s, nnbr, quota, dest)) != DIFFUSION_OK) return ierr;
  if (!(isfinite(move_cost) && move_cost >= 0.0)) return DIFFUSION_EINVAL;
  for (i = 0; i < n; i++) {
    dest[i] = -1;
    total += s[i];
  }
  for (j = 0; sent != NULL && j < nnbr; j++) sent[j] = 0.0;
  if (nnbr == 0 || n == 0) return DIFFUSION_OK;
  order = malloc((size_t)nnbr * sizeof *order);
  keys = malloc(n * sizeof *keys);
  if (order == NULL || keys == NULL) {
    ierr = DIFFUSION_ENOMEM;
    goto End;
  }
  for (j = 0; j < nnbr; j++) want += quota[j] > 0.0 ? quota[j] : 0.0;
  if (want > total) scale = total / want;
  for (j = 0; j < nnbr; j++) {
    order[j].q = quota[j] > 0.0 ? quota[j] * scale : 0.0;
    order[j].j = j;
  }
  qsort(order, (size_t)nnbr, sizeof *order, nbr_cmp);
  for (j = 0; j < nnbr && order[j].q > 0.0; j++) {
    double got = fill_one(n, s, nnbr, order[j].j, order[j].q, cost, move_cost, dest, keys);
    if (sent != NULL) sent[order[j].j] = got;
  }
End:
  free(order);
  free(keys);
  return ierr;
}

double diffusion_gde_transfer(double li, double ci, double lj, double cj, double lambda)
{
  /* cj * li - ci * lj is the exact negation of what the partner computes,
   * and the divisor the same bits. */
  return lambda * (cj * li - ci * lj) / (ci + cj);
}

int diffusion_gde_colours(diffusion_topology t, int nranks)
{
  int c = 0;
  if (nranks <= 1) return 0;
  if (t == DIFFUSION_HYPERCUBE) {
    while ((1L << c) < nranks) c++;
    return c;
  }
  if (nranks == 2) return 1;
  return nranks % 2 ? 3 : 2;
}

/* The colour of the ring link (i, i + 1 mod P). */
static int ring_colour(int i, int nranks)
{
  if (nranks == 2) return i == 0 ? 0 : -1; /* one link only */
  return nranks % 2 && i == nranks - 1 ? 2 : i % 2;
}

int diffusion_gde_partner(diffusion_topology t, int nranks, int rank, int c)
{
  if (nranks <= 1 || rank < 0 || rank >= nranks || c < 0 || c >= diffusion_gde_colours(t, nranks))
    return -1;
  if (t == DIFFUSION_HYPERCUBE) {
    long q = (long)rank ^ (1L << c);
    return q < nranks ? (int)q : -1;
  }
  if (ring_colour(rank, nranks) == c) return (rank + 1) % nranks;
  if (ring_colour((rank + nranks - 1) % nranks, nranks) == c) return (rank + nranks - 1) % nranks;
  return -1;
}

int diffusion_gde_link_colour(int a, int b, int nranks)
{
  return (int)(((long)a + (long)b) % nranks);
}

void diffusion_gde_link_order(int self, int nnbr, const int *nbr, int nranks, int *order)
{
  /* Insertion sort: a rank has a handful of neighbours. */
  for (int k = 0; k < nnbr; k++) {
    int c = diffusion_gde_link_colour(self, nbr[k], nranks), j = k;
    while (j > 0 && diffusion_gde_link_colour(self, nbr[order[j - 1]], nranks) > c) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = k;
  }
}

static int box_empty(int dim, const double *b)
{
  for (int k = 0; k < dim; k++)
    if (b[k] > b[dim + k]) return 1;
  return 0;
}

int diffusion_box_neighbours(int nranks, int dim, const double *boxes, double margin, int self,
                             int *out)
{
  const double *mine;
  int q, n = 0;
  if (nranks < 1 || dim < 1 || dim > 3 || boxes == NULL || out == NULL || self < 0 ||
      self >= nranks || !(margin >= 0.0))
    return -1;
  mine = boxes + (size_t)self * 2 * dim;
  if (box_empty(dim, mine)) return 0;
  for (q = 0; q < nranks; q++) {
    const double *b = boxes + (size_t)q * 2 * dim;
    int k, touch = 1;
    if (q == self || box_empty(dim, b)) continue;
    for (k = 0; k < dim && touch; k++)
      touch = mine[k] - margin <= b[dim + k] + margin && b[k] - margin <= mine[dim + k] + margin;
    if (touch) out[n++] = q;
  }
  return n;
}

/* ---- the simulator --------------------------------------------------------- */

void diffusion_default_options(diffusion_options *opt)
{
  opt->alpha = 10.0;
  opt->efficiency = 0.98;
  opt->accuracy = 0.02;
  opt->max_rounds = 200;
}

static int graph_ok(const diffusion_graph *g)
{
  int r;
  if (g == NULL || g->nranks < 1 || g->start == NULL || g->start[0] != 0) return 0;
  for (r = 0; r < g->nranks; r++) {
    size_t k;
    if (g->start[r + 1] < g->start[r]) return 0;
    for (k = g->start[r]; k < g->start[r + 1]; k++)
      if (g->adj == NULL || g->adj[k] < 0 || g->adj[k] >= g->nranks || g->adj[k] == r) return 0;
  }
  return 1;
}

static int options_ok(const diffusion_options *o)
{
  return isfinite(o->alpha) && o->alpha > 0.0 && o->efficiency > 0.0 && o->efficiency <= 1.0 &&
         o->accuracy > 0.0 && o->accuracy < 1.0 && o->max_rounds >= 1;
}

/* U_avg / U_max of the loads (1 when every load is 0). */
static double efficiency(int P, const double *cap, const double *load)
{
  double lsum = 0.0, csum = 0.0, umax = 0.0;
  int r;
  for (r = 0; r < P; r++) {
    lsum += load[r];
    csum += cap[r];
    if (load[r] / cap[r] > umax) umax = load[r] / cap[r];
  }
  return umax > 0.0 ? (lsum / csum) / umax : 1.0;
}

/* The simulator's arrays, one allocation each, freed together. */
typedef struct sim_arrays {
  double *w, *wsum, *u, *unew, *cnbr, *unbr;
} sim_arrays;

static void sim_free(sim_arrays *a)
{
  free(a->w);
  free(a->wsum);
  free(a->u);
  free(a->unew);
  free(a->cnbr);
  free(a->unbr);
}

/* The neighbours' values of x for rank r, as one exchange delivers them. */
static void gather_nbr(const diffusion_graph *g, int r, const double *x, double *out)
{
  size_t k;
  for (k = g->start[r]; k < g->start[r + 1]; k++) out[k - g->start[r]] = x[g->adj[k]];
}

/* Link weights of every rank and the sweeps per round (the adapter's
 * setup, including its one reduction of rho). */
static int sim_setup(const diffusion_graph *g, const double *cap, diffusion_options *o,
                     sim_arrays *a, diffusion_stats *st)
{
  int r;
  double kmax = 0.0;
  for (r = 0; r < g->nranks; r++) {
    size_t b = g->start[r], d = g->start[r + 1] - b;
    gather_nbr(g, r, cap, a->cnbr);
    if (diffusion_link_weights(cap[r], (int)d, a->cnbr, a->w + b, &a->wsum[r]) != DIFFUSION_OK)
      return DIFFUSION_EINVAL;
    kmax = fmax(kmax, a->wsum[r] / cap[r]);
    if (d > st->max_degree) st->max_degree = d;
  }
  diffusion_plan(o->alpha, kmax, o->accuracy, &o->alpha, &st->sweeps);
  st->exchanges = 1;  /* the capacities */
  st->reductions = 3; /* kmax, total load and total capacity */
  return DIFFUSION_OK;
}

/* One outer round over every rank: sweeps, then flows. */
static void sim_round(const diffusion_graph *g, const double *cap, double *load,
                      const diffusion_options *o, sim_arrays *a, int sweeps, double *flow,
                      double *phi)
{
  int r, s;
  for (r = 0; r < g->nranks; r++) a->u[r] = load[r] / cap[r];
  for (s = 0; s < sweeps; s++) {
    for (r = 0; r < g->nranks; r++) {
      size_t b = g->start[r], d = g->start[r + 1] - b;
      gather_nbr(g, r, a->u, a->unbr);
      a->unew[r] =
          diffusion_jacobi(load[r], cap[r], o->alpha, (int)d, a->w + b, a->wsum[r], a->unbr);
    }
    for (r = 0; r < g->nranks; r++) a->u[r] = a->unew[r];
  }
  for (r = 0; r < g->nranks; r++) {
    size_t b = g->start[r], d = g->start[r + 1] - b;
    gather_nbr(g, r, a->u, a->unbr);
    diffusion_round_flows(o->alpha, (int)d, a->w + b, a->u[r], a->unbr, flow + b, &load[r]);
    if (phi != NULL) phi[r] += a->u[r];
  }
}

int diffusion_simulate(const diffusion_graph *g, const double *cap, double *load,
                       const diffusion_options *opt, double *flow, double *phi, diffusion_stats *st)
{
  diffusion_options o;
  diffusion_stats local = {0};
  sim_arrays a = {0};
  int r, ierr;
  size_t m, maxd = 0;
  if (opt == NULL) diffusion_default_options(&o);
  if (opt != NULL) o = *opt;
  if (!graph_ok(g) || cap == NULL || load == NULL || flow == NULL || !options_ok(&o))
    return DIFFUSION_EINVAL;
  for (r = 0; r < g->nranks; r++) {
    if (!(isfinite(cap[r]) && cap[r] > 0.0 && isfinite(load[r]) && load[r] >= 0.0))
      return DIFFUSION_EINVAL;
    if (g->start[r + 1] - g->start[r] > maxd) maxd = g->start[r + 1] - g->start[r];
  }
  m = g->start[g->nranks];
  a.w = malloc((m + 1) * sizeof *a.w);
  a.wsum = malloc((size_t)g->nranks * sizeof *a.wsum);
  a.u = malloc((size_t)g->nranks * sizeof *a.u);
  a.unew = malloc((size_t)g->nranks * sizeof *a.unew);
  a.cnbr = malloc((maxd + 1) * sizeof *a.cnbr);
  a.unbr = malloc((maxd + 1) * sizeof *a.unbr);
  if (!a.w || !a.wsum || !a.u || !a.unew || !a.cnbr || !a.unbr) {
    ierr = DIFFUSION_ENOMEM;
    goto End;
  }
  for (size_t k = 0; k < m; k++) flow[k] = 0.0;
  for (r = 0; phi != NULL && r < g->nranks; r++) phi[r] = 0.0;
  if ((ierr = sim_setup(g, cap, &o, &a, &local)) != DIFFUSION_OK) goto End;
  local.eff_before = local.eff_after = efficiency(g->nranks, cap, load);
  local.reductions++;
  ierr = DIFFUSION_OK;
  while (local.eff_after < o.efficiency) {
    if (local.rounds == o.max_rounds) {
      ierr = DIFFUSION_WARN;
      break;
    }
    sim_round(g, cap, load, &o, &a, local.sweeps, flow, phi);
    local.rounds++;
    local.exchanges += local.sweeps + 1;
    local.eff_after = efficiency(g->nranks, cap, load);
    local.reductions++;
  }
  local.max_rank_bytes = 8.0 * (double)maxd * (double)local.exchanges;
End:
  sim_free(&a);
  if (st != NULL && ierr >= 0) *st = local;
  return ierr;
}
