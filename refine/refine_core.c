/* SPDX-License-Identifier: BSD-3-Clause */
#include "refine_core.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "greedy_core.h"
#include "greedy_util.h"
#include "refine_internal.h"

void refine_default_options(refine_options *opt)
{
  memset(opt, 0, sizeof(*opt));
  opt->tolerance = 1.05;
  opt->comm_aware = 0;
  opt->graph = NULL;
  opt->gr_tolerance = 1.01;
  opt->gr_threshold = 1.0;
  opt->scratch = NULL;
  opt->scratch_arg = NULL;
}

/* How many sorted entries ahead collect_donor_objects asks for an
 * entry's index and weight: enough to cover a memory access at its pace. */
#define REFINE_PREFETCH 16

/* The part count up to which scalar_imbalance adds its sums in banks on
 * the stack (16 KiB of them). */
#define REFINE_SUM_BANKED_MAX 256

/* State of one refinement run on scalar loads. */
typedef struct refine_state {
  size_t n;        /* objects */
  int nparts;      /* parts */
  const double *s; /* n scalar weights */
  double *cap;     /* nparts target loads */
  double *limit;   /* nparts tolerance x target */
  double *load;    /* nparts current loads */
  char *donor;     /* nparts: overloaded at the start (never receives) */
  int *out;        /* n parts being built */
  /* Objects of the donors, grouped by donor and sorted by weight ascending
   * (ties by index); seg[p]..seg[p+1] is part p's range (empty for
   * non-donors). */
  size_t m;    /* number of donor objects */
  size_t *obj; /* m object indices */
  double *val; /* m weights, val[k] = s[obj[k]] */
  size_t *seg; /* nparts + 1 */
  /* Removed entries are skipped with path-compressed "next alive" and
   * "previous alive" links, so each lookup is amortised O(1) after the
   * binary search. */
  size_t *nxt; /* m + 1: nxt[k] == k when k is alive or k == m */
  size_t *prv; /* m + 1, shifted by one: prv[k+1] for entry k */
  /* val, nxt and prv live in the sort's work buffers (collect_donor_objects);
   * these are the ones the core allocated itself, to free (NULL for the
   * caller's buffers). */
  void *own_val, *own_nxt, *own_prv;
  greedy_rscale scale;   /* of the reproducible sums of s (total, part loads) */
  const refine_graph *g; /* graph for comm-aware receivers, or NULL */
  greedy_rsum *acc;      /* nparts + 1 sums of scalar_imbalance */
  double *conn;          /* nparts scratch: connection of one object per part */
  int *touched;          /* nparts scratch: parts with conn != 0 */
} refine_state;

static void state_free(refine_state *r)
{
  free(r->cap);
  free(r->limit);
  free(r->load);
  free(r->donor);
  free(r->obj);
  free(r->own_val);
  free(r->seg);
  free(r->own_nxt);
  free(r->own_prv);
  free(r->conn);
  free(r->touched);
  free(r->acc);
}

static double rel_of(double load, double cap)
{
  if (cap > 0.0) return load / cap;
  return load > 0.0 ? INFINITY : 0.0;
}

/*
 * Root of k in one of the two link arrays (nxt or prv): follow the links
 * until an entry points at itself, then point every entry of the path
 * straight at that root, so that later lookups through them are O(1).
 * With nxt the root is the alive entry at or after k (m when none); with prv
 * it is the alive entry at or before k, as a shifted index (0 when none).
 */
static size_t find_alive(size_t *link, size_t k)
{
  size_t root = k;
  while (link[root] != root) root = link[root];
  while (link[k] != root) {
    size_t up = link[k];
    link[k] = root;
    k = up;
  }
  return root;
}

static void kill_entry(refine_state *r, size_t k)
{
  r->nxt[k] = k + 1;
  r->prv[k + 1] = k;
}

/*
 * First index in [b, e) of the ascending val whose value is >= x when
 * include_equal is set (a lower bound), or > x when it is not (an upper
 * bound); e when there is none.
 */
static size_t bound_index(const double *val, size_t b, size_t e, double x, int include_equal)
{
  while (b < e) {
    size_t mid = b + (e - b) / 2;
    if (val[mid] < x || (!include_equal && val[mid] == x))
      b = mid + 1;
    else
      e = mid;
  }
  return b;
}

/* Smallest alive positive entry of donor d with val >= x, or SIZE_MAX. */
static size_t alive_at_least(refine_state *r, int d, double x)
{
  size_t b = r->seg[d], e = r->seg[d + 1];
  size_t k = find_alive(r->nxt, bound_index(r->val, b, e, x, 1));
  if (k >= e || !(r->val[k] > 0.0)) return (size_t)-1;
  return k;
}

/* Largest alive positive entry of donor d with val <= x, or SIZE_MAX. */
static size_t alive_at_most(refine_state *r, int d, double x)
{
  size_t b = r->seg[d], e = r->seg[d + 1];
  size_t ub = bound_index(r->val, b, e, x, 0);
  if (ub == b) return (size_t)-1;
  size_t k1 = find_alive(r->prv, ub); /* entry ub-1 is shifted ub */
  if (k1 <= b || !(r->val[k1 - 1] > 0.0)) return (size_t)-1;
  return k1 - 1;
}

/*
 * Communication-aware receiver: among the parts that hold neighbours of
 * object i, are not donors and can take weight x within their limit, the
 * one with the strongest connection (ties: more room, then lower index).
 * Returns fallback unless that part is connected more strongly than
 * fallback itself.
 */
static int comm_receiver(refine_state *r, size_t i, double x, int fallback)
{
  const refine_graph *g = r->g;
  int ntouched = 0, best = fallback;
  for (size_t j = g->adj_start[i]; j < g->adj_start[i + 1]; j++) {
    int q = r->out[g->adj[j]];
    /* conn starts at -1 ("not touched") so that zero-weight edges still
     * list their part once. */
    if (r->conn[q] < 0.0) {
      r->conn[q] = 0.0;
      r->touched[ntouched++] = q;
    }
    r->conn[q] += g->ewgts ? g->ewgts[j] : 1.0;
  }
  double best_conn = r->conn[fallback] > 0.0 ? r->conn[fallback] : 0.0;
  for (int t = 0; t < ntouched; t++) {
    int q = r->touched[t];
    if (r->donor[q] || r->load[q] + x > r->limit[q]) continue;
    double room = r->limit[q] - r->load[q];
    double broom = r->limit[best] - r->load[best];
    if (r->conn[q] > best_conn ||
        (r->conn[q] == best_conn && (room > broom || (room == broom && q < best)))) {
      best = q;
      best_conn = r->conn[q];
    }
  }
  for (int t = 0; t < ntouched; t++) r->conn[r->touched[t]] = -1.0;
  return best;
}

static void move_entry(refine_state *r, size_t k, int from, int to)
{
  size_t i = r->obj[k];
  assert(r->out[i] == from);
  r->out[i] = to;
  r->load[from] -= r->val[k];
  r->load[to] += r->val[k];
  kill_entry(r, k);
}

/* Strict phase; moves the donors it cannot finish into stuck. */
static void strict_phase(refine_state *r, greedy_heap *donors, greedy_heap *recv,
                         greedy_heap *stuck)
{
  int d;
  while ((d = greedy_heap_top(donors)) >= 0) {
    if (r->load[d] <= r->limit[d]) {
      greedy_heap_remove(donors, d);
      continue;
    }
    int q = greedy_heap_top(recv);
    if (q < 0) break;
    double room = r->limit[q] - r->load[q];
    double excess = r->load[d] - r->limit[d];
    /* One move finishes the donor if some object is at least the excess:
     * take the smallest such, which disturbs the receiver least.  Else take
     * the largest that fits, which needs the fewest moves.  q has the most
     * room of all receivers, so if nothing of d fits into q it fits
     * nowhere and d is stuck. */
    size_t k = alive_at_least(r, d, excess);
    if (k == (size_t)-1 || r->val[k] > room) k = alive_at_most(r, d, room);
    if (k == (size_t)-1) {
      greedy_heap_remove(donors, d);
      greedy_heap_set(stuck, d, -rel_of(r->load[d], r->cap[d]), 0.0);
      continue;
    }
    if (r->g) q = comm_receiver(r, r->obj[k], r->val[k], q);
    move_entry(r, k, d, q);
    double left = r->limit[q] - r->load[q];
    if (left > 0.0)
      greedy_heap_set(recv, q, -left, 0.0);
    else
      greedy_heap_remove(recv, q);
    greedy_heap_set(donors, d, -rel_of(r->load[d], r->cap[d]), 0.0);
  }
  /* Donors left when the receivers ran out are stuck as well. */
  while ((d = greedy_heap_top(donors)) >= 0) {
    greedy_heap_remove(donors, d);
    if (r->load[d] > r->limit[d]) greedy_heap_set(stuck, d, -rel_of(r->load[d], r->cap[d]), 0.0);
  }
}

/* Largest relative load after moving x from d (load ld, cap cd) to q. */
static double pair_max(double ld, double cd, double lq, double cq, double x)
{
  double a = rel_of(ld - x > 0.0 ? ld - x : 0.0, cd);
  double b = rel_of(lq + x, cq);
  return a > b ? a : b;
}

/*
 * Best-effort phase for donors the strict phase could not bring under
 * their limit: receivers may now go above their own limit, but only below
 * the donor's current relative load, so the largest relative load never
 * grows.  The donor of largest relative load gives to the receiver of
 * smallest relative load the object that best levels the two.  Every move
 * removes an object from the donor lists, so this ends after at most m
 * moves: no loop.
 */
static void relaxed_phase(refine_state *r, greedy_heap *stuck, greedy_heap *recv)
{
  int d;
  while ((d = greedy_heap_top(stuck)) >= 0) {
    double rd = rel_of(r->load[d], r->cap[d]);
    int q = greedy_heap_top(recv);
    if (q < 0) break;
    if (r->load[d] <= r->limit[d]) {
      greedy_heap_remove(stuck, d);
      continue;
    }
    size_t k;
    if (!(r->cap[d] > 0.0)) {
      /* A part of zero target is emptied, largest object first. */
      k = alive_at_most(r, d, INFINITY);
    } else {
      double room = rd * r->cap[q] - r->load[q];
      double ideal = (r->load[d] * r->cap[q] - r->load[q] * r->cap[d]) / (r->cap[d] + r->cap[q]);
      size_t a = alive_at_most(r, d, ideal < room ? ideal : room);
      size_t b = alive_at_least(r, d, ideal);
      double fa = a != (size_t)-1
                      ? pair_max(r->load[d], r->cap[d], r->load[q], r->cap[q], r->val[a])
                      : INFINITY;
      double fb = b != (size_t)-1
                      ? pair_max(r->load[d], r->cap[d], r->load[q], r->cap[q], r->val[b])
                      : INFINITY;
      k = fb < fa ? b : a;
      if (k != (size_t)-1 && !((k == a ? fa : fb) < rd)) k = (size_t)-1;
    }
    if (k == (size_t)-1) {
      greedy_heap_remove(stuck, d);
      continue;
    }
    move_entry(r, k, d, q);
    greedy_heap_set(recv, q, rel_of(r->load[q], r->cap[q]), 0.0);
    greedy_heap_set(stuck, d, -rel_of(r->load[d], r->cap[d]), 0.0);
  }
}

/* Check the graph once at the public edge. */
static int graph_ok(size_t n, const refine_graph *g)
{
  if (!g->adj_start || (g->adj_start[n] > 0 && !g->adj) || g->adj_start[0] != 0) return 0;
  for (size_t i = 0; i < n; i++)
    if (g->adj_start[i + 1] < g->adj_start[i]) return 0;
  for (size_t j = 0; j < g->adj_start[n]; j++) {
    if (g->adj[j] >= n) return 0;
    if (g->ewgts && (!isfinite(g->ewgts[j]) || g->ewgts[j] < 0.0)) return 0;
  }
  return 1;
}

int refine_cut(size_t n, const refine_graph *g, const int *part, double *cut)
{
  if (!g || !cut || (n > 0 && !part) || !graph_ok(n, g)) return REFINE_EINVAL;
  double c = 0.0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = g->adj_start[i]; j < g->adj_start[i + 1]; j++)
      if (part[i] != part[g->adj[j]]) c += g->ewgts ? g->ewgts[j] : 1.0;
  *cut = c / 2.0;
  return REFINE_OK;
}

/* Common argument checks of both entry points. */
static int check_args(size_t n, int wdim, const double *w, int nparts, const int *cur_part,
                      const refine_options *opt, const int *part_out)
{
  if (wdim < 1 || nparts < 1 || !opt) return REFINE_EINVAL;
  if (n > 0 && (!w || !cur_part || !part_out || part_out == cur_part)) return REFINE_EINVAL;
  if (!(opt->tolerance >= 1.0) || !isfinite(opt->tolerance)) return REFINE_EINVAL;
  if (!(opt->gr_tolerance >= 1.0) || !isfinite(opt->gr_tolerance)) return REFINE_EINVAL;
  if (!(opt->gr_threshold >= 0.0)) return REFINE_EINVAL;
  if (opt->comm_aware != 0 && opt->comm_aware != 1) return REFINE_EINVAL;
  if (opt->comm_aware && !opt->graph) return REFINE_EINVAL;
  if (opt->graph && !graph_ok(n, opt->graph)) return REFINE_EINVAL;
  /* Flags or-ed together and looked at once: no branch per object. */
  int bad = 0;
  for (size_t i = 0; i < n; i++) bad |= (unsigned)cur_part[i] >= (unsigned)nparts;
  for (size_t i = 0; i < n * (size_t)wdim; i++) bad |= !(w[i] >= 0.0 && w[i] <= DBL_MAX);
  return bad ? REFINE_EINVAL : REFINE_OK;
}

/*
 * Scalar weights and normalised part targets (see the header: for several
 * weights, the sum of the object's shares of each dimension's total).
 */
static int scalarise(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                     double **s_out, double **frac_out)
{
  double *tot = calloc((size_t)wdim, sizeof(double));
  /* One weight is its own scalar: *s_out stays NULL and the caller reads
   * w (a copy of it cost a pass and n fresh doubles at every call). */
  double *s = wdim > 1 ? malloc((n ? n : 1) * sizeof(double)) : NULL;
  double *frac = calloc((size_t)nparts, sizeof(double));
  int rc = REFINE_ENOMEM, used = 0;
  *s_out = NULL;
  if (!tot || (wdim > 1 && !s) || !frac) goto fail;
  rc = REFINE_EINVAL;
  /* Each dimension's total as a reproducible sum (the same for the objects
   * in any order, as the part loads below); only several weights need
   * them, to scale each by its total. */
  for (int d = 0; wdim > 1 && d < wdim; d++) tot[d] = greedy_rsum_array(n, w + d, (size_t)wdim);
  for (int d = 0; d < wdim; d++) {
    double sum = 0.0;
    for (int p = 0; p < nparts; p++) {
      double t = target_frac ? target_frac[(size_t)p * wdim + d] : 1.0;
      if (!isfinite(t) || t < 0.0) goto fail;
      sum += t;
    }
    if (wdim > 1 && !(tot[d] > 0.0)) continue;
    used++;
    for (int p = 0; p < nparts; p++)
      frac[p] +=
          (target_frac && sum > 0.0) ? target_frac[(size_t)p * wdim + d] / sum : 1.0 / nparts;
  }
  for (int p = 0; p < nparts; p++) frac[p] = used ? frac[p] / used : 1.0 / nparts;
  for (size_t i = 0; wdim > 1 && i < n; i++) {
    double x = 0.0;
    for (int d = 0; d < wdim; d++)
      if (tot[d] > 0.0) x += w[i * wdim + d] / tot[d];
    s[i] = x;
  }
  free(tot);
  *s_out = s;
  *frac_out = frac;
  return REFINE_OK;
fail:
  free(tot);
  free(s);
  free(frac);
  return rc;
}

/* Largest relative load and its part, from scratch.  The part loads are
 * reproducible sums at scale sc (greedy_util.h), so that they, and every
 * move that starts from them, are the same for the objects in any order
 * (the layer hands GREEDYREFINE its objects in ID order or in weight
 * order).  acc holds nparts sums. */
static double scalar_imbalance(size_t n, const double *s, int nparts, const double *cap,
                               const int *part, const greedy_rscale *sc, greedy_rsum *acc,
                               double *load, int *worst)
{
  memset(acc, 0, (size_t)nparts * sizeof *acc);
  if (nparts <= REFINE_SUM_BANKED_MAX) {
    /* Few parts: consecutive objects of one part would make one chain of
     * dependent additions, so they add into four banks in turn (integer
     * sums, merged exactly: the same bits). */
    greedy_rsum bank[4][REFINE_SUM_BANKED_MAX];
    const greedy_rscale scale = *sc;
    memset(bank, 0, sizeof bank);
    for (size_t i = 0; i < n; i++) greedy_rsum_add(&bank[i & 3][part[i]], &scale, s[i]);
    for (int b = 0; b < 4; b++)
      for (int p = 0; p < nparts; p++) greedy_rsum_merge(&acc[p], &bank[b][p]);
  } else {
    for (size_t i = 0; i < n; i++) greedy_rsum_add(&acc[part[i]], sc, s[i]);
  }
  for (int p = 0; p < nparts; p++) load[p] = greedy_rsum_value(&acc[p], sc);
  double m = 0.0;
  *worst = 0;
  for (int p = 0; p < nparts; p++) {
    double x = rel_of(load[p], cap[p]);
    if (x > m) {
      m = x;
      *worst = p;
    }
  }
  return m;
}

/*
 * First step of refine_scalar: the per-part arrays, every part's target
 * (its share of the total scalar weight) and limit (tolerance x target).
 * Leaves everything else of *r zero, so that state_free is always safe.
 */
static int state_init(refine_state *r, size_t n, const double *s, int nparts, const double *frac,
                      double tol, const refine_graph *comm_graph, int *out)
{
  memset(r, 0, sizeof(*r));
  r->n = n;
  r->nparts = nparts;
  r->s = s;
  r->out = out;
  r->g = comm_graph;
  r->cap = calloc((size_t)nparts, sizeof(double));
  r->limit = calloc((size_t)nparts, sizeof(double));
  r->load = calloc((size_t)nparts, sizeof(double));
  r->donor = calloc((size_t)nparts, 1);
  r->seg = calloc((size_t)nparts + 1, sizeof(size_t));
  r->acc = calloc((size_t)nparts + 1, sizeof *r->acc);
  if (!r->cap || !r->limit || !r->load || !r->donor || !r->seg || !r->acc) return REFINE_ENOMEM;
  /* The total as a reproducible sum, like the part loads. */
  double total, max = 0.0;
  for (size_t i = 0; i < n; i++)
    if (s[i] > max) max = s[i];
  greedy_rscale_of(max, &r->scale);
  memset(r->acc, 0, sizeof *r->acc);
  for (size_t i = 0; i < n; i++) greedy_rsum_add(&r->acc[0], &r->scale, s[i]);
  total = greedy_rsum_value(&r->acc[0], &r->scale);
  for (int p = 0; p < nparts; p++) {
    r->cap[p] = frac[p] * total;
    r->limit[p] = tol * r->cap[p];
  }
  return REFINE_OK;
}

/* Flag the parts above their limit under the loads in r->load as donors;
 * returns how many there are. */
static int mark_donors(refine_state *r)
{
  int ndonors = 0;
  for (int p = 0; p < r->nparts; p++)
    if (r->load[p] > r->limit[p]) {
      r->donor[p] = 1;
      ndonors++;
    }
  return ndonors;
}

/*
 * The objects of the donors grouped by part, lightest first (seg, obj,
 * val), with every entry alive in the next/previous links.  Only the
 * donors' objects are sorted (usually a few parts of many): gathered in
 * index order, a stable sort by weight keeps ties in index order, and a
 * bucket pass in that order gives the grouping.
 */
/* Buffer slot of the caller's scratch (refine_options), or a new one in
 * *owned when there is none; NULL when memory runs out. */
void *refine_work_buffer(const refine_options *opt, int slot, size_t bytes, void **owned)
{
  void *p =
      opt != NULL && opt->scratch != NULL ? opt->scratch(opt->scratch_arg, slot, bytes) : NULL;
  *owned = NULL;
  if (p == NULL) p = *owned = malloc(bytes);
  return p;
}

static int collect_donor_objects(refine_state *r, const int *cur, const refine_options *opt)
{
  size_t n = r->n, *fill = NULL, *idx, *order, m = 0, cap;
  double *key;
  uint64_t *ws;
  void *owned[REFINE_SCRATCH_GR];
  int nparts = r->nparts, rc = REFINE_ENOMEM;
  for (size_t i = 0; i < n; i++)
    if (r->donor[cur[i]]) r->seg[cur[i] + 1]++;
  for (int p = 0; p < nparts; p++) r->seg[p + 1] += r->seg[p];
  r->m = r->seg[nparts];
  cap = r->m ? r->m : 1;
  /* The sort's buffers hold the grouping once they are read (below): idx
   * and order one entry longer, for the links. */
  idx = refine_work_buffer(opt, 0, (cap + 1) * sizeof *idx, &owned[0]);
  key = refine_work_buffer(opt, 1, cap * sizeof *key, &owned[1]);
  order = refine_work_buffer(opt, 2, (cap + 1) * sizeof *order, &owned[2]);
  ws = refine_work_buffer(opt, 3, cap * sizeof *ws, &owned[3]);
  if (!idx || !key || !order || !ws) goto end;
  /* Below 2^32 objects, each entry's part travels in the upper half of its
   * index, so that the placement below reads nothing through the index. */
  int packed = (uint64_t)n < ((uint64_t)1 << 32);
  for (size_t i = 0; i < n; i++)
    if (r->donor[cur[i]]) {
      idx[m] = packed ? (size_t)((uint64_t)cur[i] << 32 | (uint64_t)i) : i;
      key[m++] = r->s[i];
    }
  if (m > 0 && greedy_sort_asc_ws(m, key, order, ws)) goto end;
  /* The sort's second buffer is free once it returns: the sorted weights
   * go there.  The links take idx and order once the entries are placed.
   * Only obj is new, so the peak is five arrays of the donors' objects
   * rather than eight, and a caller that keeps the buffers faults in one. */
  r->val = (double *)ws;
  r->own_val = owned[3];
  owned[3] = NULL;
  r->obj = malloc(cap * sizeof(size_t));
  fill = malloc((size_t)nparts * sizeof(size_t));
  if (!r->obj || !fill) goto end;
  memcpy(fill, r->seg, (size_t)nparts * sizeof(size_t));
  /* The sorted entries are read at random places: the weight comes from
   * key and the part from the packed index (both beside the entry) rather
   * than from s and cur through the index, so that no read waits for
   * another, and the entries a few ahead are asked for early.  Reading
   * ahead changes no result. */
  for (size_t k = 0; k < m; k++) {
    size_t j = order[k];
#if defined(__GNUC__)
    if (k + REFINE_PREFETCH < m) {
      size_t ahead = order[k + REFINE_PREFETCH];
      __builtin_prefetch(&idx[ahead]);
      __builtin_prefetch(&key[ahead]);
    }
#endif
    uint64_t v = (uint64_t)idx[j];
    size_t i = packed ? (size_t)(v & 0xffffffffu) : (size_t)v;
    size_t at = fill[packed ? (int)(v >> 32) : cur[i]]++;
    r->obj[at] = i;
    r->val[at] = key[j];
  }
  r->nxt = idx;
  r->own_nxt = owned[0];
  owned[0] = NULL;
  r->prv = order;
  r->own_prv = owned[2];
  owned[2] = NULL;
  for (size_t k = 0; k <= r->m; k++) {
    r->nxt[k] = k;
    r->prv[k] = k;
  }
  rc = REFINE_OK;
end:
  free(fill);
  for (int k = 0; k < REFINE_SCRATCH_GR; k++) free(owned[k]);
  return rc;
}

/* Scratch of comm_receiver, needed only when a graph steers the moves; a
 * connection of -1 marks a part that no neighbour has touched yet. */
static int comm_scratch_init(refine_state *r)
{
  if (!r->g) return REFINE_OK;
  r->conn = malloc((size_t)r->nparts * sizeof(double));
  r->touched = malloc((size_t)r->nparts * sizeof(int));
  if (!r->conn || !r->touched) return REFINE_ENOMEM;
  for (int p = 0; p < r->nparts; p++) r->conn[p] = -1.0;
  return REFINE_OK;
}

/*
 * The moves: the strict phase, then the best-effort phase for the donors
 * it left stuck.  Donors are served most overloaded (relative) first,
 * because such a donor needs the most help and gets first pick while the
 * receivers have the most room.  Receivers are taken most absolute room
 * first, because that admits the largest set of candidate objects and
 * levels the receivers.
 */
static int move_objects(refine_state *r)
{
  greedy_heap donors, recv, stuck;
  int nparts = r->nparts, rc = REFINE_ENOMEM;
  memset(&donors, 0, sizeof(donors));
  memset(&recv, 0, sizeof(recv));
  memset(&stuck, 0, sizeof(stuck));
  if (greedy_heap_init(&donors, nparts) || greedy_heap_init(&recv, nparts) ||
      greedy_heap_init(&stuck, nparts))
    goto end;
  for (int p = 0; p < nparts; p++) {
    if (r->donor[p])
      greedy_heap_set(&donors, p, -rel_of(r->load[p], r->cap[p]), 0.0);
    else if (r->limit[p] - r->load[p] > 0.0)
      greedy_heap_set(&recv, p, -(r->limit[p] - r->load[p]), 0.0);
  }
  strict_phase(r, &donors, &recv, &stuck);
  if (stuck.size > 0) {
    /* The best-effort phase takes receivers by smallest relative load. */
    greedy_heap_free(&recv);
    if (greedy_heap_init(&recv, nparts)) goto end;
    for (int p = 0; p < nparts; p++)
      if (stuck.pos[p] < 0 && r->cap[p] > 0.0)
        greedy_heap_set(&recv, p, rel_of(r->load[p], r->cap[p]), 0.0);
    relaxed_phase(r, &stuck, &recv);
  }
  rc = REFINE_OK;
end:
  greedy_heap_free(&donors);
  greedy_heap_free(&recv);
  greedy_heap_free(&stuck);
  return rc;
}

/*
 * Last step of refine_scalar: judge the result on loads summed from
 * scratch, and never hand back something worse than the input cur.
 * Returns REFINE_WARN when a part is still above its limit.
 */
static int judge_result(refine_state *r, const int *cur, refine_stats *st)
{
  size_t n = r->n;
  int worst;
  st->imbalance_after =
      scalar_imbalance(n, r->s, r->nparts, r->cap, r->out, &r->scale, r->acc, r->load, &worst);
  if (st->imbalance_after > st->imbalance_before) {
    memcpy(r->out, cur, n * sizeof(int));
    st->imbalance_after =
        scalar_imbalance(n, r->s, r->nparts, r->cap, r->out, &r->scale, r->acc, r->load, &worst);
    st->pass = REFINE_PASS_NONE;
  }
  st->worst_part = worst;
  st->infeasible = 0;
  for (int p = 0; p < r->nparts; p++)
    if (r->load[p] > r->limit[p] * (1.0 + REFINE_EPS)) st->infeasible = 1;
  return st->infeasible ? REFINE_WARN : REFINE_OK;
}

/*
 * REFINE on scalar weights s with normalised part targets frac, from the
 * complete assignment cur into out: only the parts above tol x target give
 * objects away, and a result worse than cur is never returned.
 */
static int refine_scalar(size_t n, const double *s, int nparts, const double *frac, const int *cur,
                         const refine_options *opt, int *out, refine_stats *st)
{
  double tol = opt->tolerance;
  const refine_graph *comm_graph = opt->comm_aware ? opt->graph : NULL;
  refine_state r;
  int worst;
  int rc = state_init(&r, n, s, nparts, frac, tol, comm_graph, out);
  if (rc) goto end;
  memcpy(out, cur, n * sizeof(int));
  st->imbalance_before =
      scalar_imbalance(n, s, nparts, r.cap, cur, &r.scale, r.acc, r.load, &worst);
  st->pass = REFINE_PASS_NONE;
  if (mark_donors(&r) > 0) {
    st->pass = REFINE_PASS_REFINE;
    rc = collect_donor_objects(&r, cur, opt);
    if (!rc) rc = comm_scratch_init(&r);
    if (!rc) rc = move_objects(&r);
    if (rc) goto end;
  }
  rc = judge_result(&r, cur, st);
end:
  state_free(&r);
  return rc;
}

void refine_finish_stats(size_t n, const int *cur, const int *out, const refine_options *opt,
                         refine_stats *st)
{
  st->moved = 0;
  for (size_t i = 0; i < n; i++) st->moved += cur[i] != out[i];
  st->have_cut = 0;
  if (opt->graph && refine_cut(n, opt->graph, cur, &st->cut_before) == REFINE_OK &&
      refine_cut(n, opt->graph, out, &st->cut_after) == REFINE_OK)
    st->have_cut = 1;
}

/*
 * The start both entry points share: the default options when *opt is
 * NULL (kept in *defaults), a scratch record when *st is NULL (in *local),
 * the statistics cleared, then the argument checks.
 */
int refine_begin_call(size_t n, int wdim, const double *w, int nparts, const int *cur_part,
                      const int *part_out, const refine_options **opt, refine_options *defaults,
                      refine_stats **st, refine_stats *local)
{
  if (!*opt) {
    refine_default_options(defaults);
    *opt = defaults;
  }
  if (!*st) *st = local;
  memset(*st, 0, sizeof(**st));
  return check_args(n, wdim, w, nparts, cur_part, *opt, part_out);
}

int refine_run(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
               const int *cur_part, const refine_options *opt, int *part_out, refine_stats *st)
{
  refine_options defaults;
  refine_stats local;
  double *s = NULL, *frac = NULL;
  int rc = refine_begin_call(n, wdim, w, nparts, cur_part, part_out, &opt, &defaults, &st, &local);
  if (rc) return rc;
  rc = scalarise(n, wdim, w, nparts, target_frac, &s, &frac);
  if (rc) goto end;
  rc = refine_scalar(n, s != NULL ? s : w, nparts, frac, cur_part, opt, part_out, st);
  if (rc < 0) goto end;
  refine_finish_stats(n, cur_part, part_out, opt, st);
end:
  free(s);
  free(frac);
  return rc;
}
