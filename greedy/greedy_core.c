/* SPDX-License-Identifier: BSD-3-Clause */
#include "greedy_core.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "greedy_util.h"

/* How many objects ahead the placement asks for weights (see place_rest):
 * enough to cover a memory access at the placement's pace. */
#define GREEDY_PREFETCH 16

/* Relative slack of keep_limit (see greedy_assign_keep). */
#define GREEDY_KEEP_EPS 1e-12

/* Normalised view of a problem that every entry point shares. */
typedef struct greedy_ctx {
  size_t n;             /* number of objects */
  int wdim;             /* weights per object */
  const double *w;      /* n * wdim weights */
  int nparts;           /* number of parts */
  double *cap;          /* nparts * wdim: target share times total weight */
  double *total;        /* wdim totals */
  char *eligible;       /* nparts flags: part may receive objects */
  double *load;         /* nparts * wdim current loads */
  double *count;        /* nparts object counts (heap tie-break) */
  greedy_rscale *scale; /* wdim scales of the reproducible sums (totals, loads) */
} greedy_ctx;

static void ctx_free(greedy_ctx *c)
{
  free(c->cap);
  free(c->total);
  free(c->eligible);
  free(c->load);
  free(c->count);
  free(c->scale);
  memset(c, 0, sizeof(*c));
}

/* 1 when every one of the n part ids is in [0, nparts), else 0. */
static int parts_in_range(size_t n, const int *part, int nparts)
{
  for (size_t i = 0; i < n; i++)
    if (part[i] < 0 || part[i] >= nparts) return 0;
  return 1;
}

/* The largest of the weights w[i * wd + d] (i < n) in *max; 1 when one of
 * them is not a finite number >= 0.  Kept in a register, with the checks
 * as flags looked at once: no branch and no store per object. */
static int checked_max(const double *w, size_t n, size_t wd, size_t d, double *max)
{
  double m = 0.0;
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    double x = w[i * wd + d];
    bad |= !(x >= 0.0 && x <= DBL_MAX);
    m = x > m ? x : m;
  }
  *max = m;
  return bad;
}

/* Each dimension's total, as a reproducible sum (greedy_util.h): the same
 * bits for any order of the objects and however a caller split them into
 * partial sums, so that the parts' targets, and the answer, do not depend on
 * how many ranks held the objects.  Checks the weights on the way:
 * GREEDY_EINVAL for a NaN, infinite or negative one. */
static int sum_totals(greedy_ctx *c, double *max)
{
  size_t n = c->n, wd = (size_t)c->wdim;
  const double *w = c->w;
  for (size_t d = 0; d < wd; d++) {
    double m = 0.0;
    if (checked_max(w, n, wd, d, &m)) return GREEDY_EINVAL;
    if (max != NULL) max[d] = m;
    greedy_rsum a = {0, 0};
    greedy_rscale_of(m, &c->scale[d]);
    const greedy_rscale sc = c->scale[d];
    for (size_t i = 0; i < n; i++) greedy_rsum_add(&a, &sc, w[i * wd + d]);
    c->total[d] = greedy_rsum_value(&a, &sc);
  }
  return GREEDY_OK;
}

/* The arguments every entry point checks, the context's arrays allocated
 * (totals and loads zero).  Returns GREEDY_EINVAL or GREEDY_ENOMEM on
 * failure, with nothing left allocated. */
static int ctx_alloc(greedy_ctx *c, size_t n, int wdim, const double *w, int nparts)
{
  memset(c, 0, sizeof(*c));
  if (wdim < 1 || nparts < 1 || (n > 0 && !w)) return GREEDY_EINVAL;
  size_t pw = (size_t)nparts * (size_t)wdim;
  c->n = n;
  c->wdim = wdim;
  c->w = w;
  c->nparts = nparts;
  c->cap = malloc(pw * sizeof(double));
  c->total = calloc((size_t)wdim, sizeof(double));
  c->eligible = calloc((size_t)nparts, 1);
  c->load = calloc(pw, sizeof(double));
  c->count = calloc((size_t)nparts, sizeof(double));
  c->scale = malloc((size_t)wdim * sizeof *c->scale);
  if (!c->cap || !c->total || !c->eligible || !c->load || !c->count || !c->scale) {
    ctx_free(c);
    return GREEDY_ENOMEM;
  }
  return GREEDY_OK;
}

/* The normalised capacities from the totals and the target shares. */
static int ctx_caps(greedy_ctx *c, const double *target_frac)
{
  int wdim = c->wdim, nparts = c->nparts;
  for (int d = 0; d < wdim; d++) {
    double sum = 0.0;
    for (int p = 0; p < nparts; p++) {
      double t = target_frac ? target_frac[(size_t)p * wdim + d] : 1.0;
      if (!isfinite(t) || t < 0.0) return GREEDY_EINVAL;
      sum += t;
    }
    for (int p = 0; p < nparts; p++) {
      /* An all-zero column carries no information: treat it as equal sizes. */
      double t =
          (target_frac && sum > 0.0) ? target_frac[(size_t)p * wdim + d] / sum : 1.0 / nparts;
      c->cap[(size_t)p * wdim + d] = t * c->total[d];
      if (t > 0.0) c->eligible[p] = 1;
    }
  }
  return GREEDY_OK;
}

/* Check the common arguments once (with the n part ids of part, when the
 * entry point takes an assignment) and build the normalised capacities. */
static int ctx_init(greedy_ctx *c, size_t n, int wdim, const double *w, int nparts,
                    const double *target_frac, const int *part, const double *known)
{
  int rc = ctx_alloc(c, n, wdim, w, nparts);
  if (rc) return rc;
  rc = GREEDY_EINVAL;
  if (part && !parts_in_range(n, part, nparts)) goto fail;
  if (known != NULL) {
    /* greedy_weight_sums's figures of these weights: checked and summed. */
    for (int d = 0; d < wdim; d++) {
      greedy_rscale_of(known[d], &c->scale[d]);
      c->total[d] = known[wdim + d];
    }
  } else if (sum_totals(c, NULL) != GREEDY_OK) {
    goto fail;
  }
  rc = ctx_caps(c, target_frac);
  if (rc) goto fail;
  return GREEDY_OK;
fail:
  ctx_free(c);
  return rc;
}

/* Relative load of part p if extra (wdim weights, or NULL) were added. */
static inline double rel_load(const greedy_ctx *c, int p, const double *extra)
{
  if (c->wdim == 1 && c->total[0] > 0.0 && c->cap[p] > 0.0)
    return (c->load[p] + (extra ? extra[0] : 0.0)) / c->cap[p];
  double r = 0.0;
  for (int d = 0; d < c->wdim; d++) {
    if (c->total[d] <= 0.0) continue;
    size_t k = (size_t)p * c->wdim + d;
    double l = c->load[k] + (extra ? extra[d] : 0.0);
    double q;
    if (c->cap[k] > 0.0)
      q = l / c->cap[k];
    else
      q = l > 0.0 ? INFINITY : 0.0;
    if (q > r) r = q;
  }
  return r;
}

static inline void add_object(greedy_ctx *c, int p, size_t i)
{
  for (int d = 0; d < c->wdim; d++) c->load[(size_t)p * c->wdim + d] += c->w[i * c->wdim + d];
  c->count[p] += 1.0;
}

/*
 * Order of the objects, heaviest first.  For several weights the key is the
 * object's largest share of any one dimension's total: the object that is
 * hardest to fit anywhere goes first, which is what makes LPT work.
 */
static int heavy_order(const greedy_ctx *c, size_t *order, uint64_t *ws)
{
  if (c->wdim == 1) return greedy_sort_desc_ws(c->n, c->w, order, ws) ? GREEDY_ENOMEM : GREEDY_OK;
  double *key = malloc((c->n ? c->n : 1) * sizeof(double));
  if (!key) return GREEDY_ENOMEM;
  for (size_t i = 0; i < c->n; i++) {
    double k = 0.0;
    for (int d = 0; d < c->wdim; d++) {
      if (c->total[d] > 0.0) {
        double s = c->w[i * c->wdim + d] / c->total[d];
        if (s > k) k = s;
      }
    }
    key[i] = k;
  }
  int rc = greedy_sort_desc_ws(c->n, key, order, ws) ? GREEDY_ENOMEM : GREEDY_OK;
  free(key);
  return rc;
}

/* The objects come in weight order, so their weights and parts are read at
 * random places: asking for object i's a few objects ahead hides most of
 * the cache misses once the arrays outgrow the caches.  Reading ahead
 * changes no result. */
static void prefetch_object(const greedy_ctx *c, size_t i, const int *part_out, const int *cur)
{
#if defined(__GNUC__)
  __builtin_prefetch(&c->w[i * (size_t)c->wdim]);
  __builtin_prefetch(&part_out[i], 1);
  if (cur) __builtin_prefetch(&cur[i]);
#else
  (void)c;
  (void)i;
  (void)part_out;
  (void)cur;
#endif
}

/* Place object i on the part of least relative load and update the heap. */
static int place_least(greedy_ctx *c, greedy_heap *h, size_t i)
{
  int p = greedy_heap_top(h);
  assert(p >= 0);
  add_object(c, p, i);
  greedy_heap_set(h, p, rel_load(c, p, NULL), c->count[p]);
  return p;
}

static int heap_of_parts(const greedy_ctx *c, greedy_heap *h)
{
  if (greedy_heap_init(h, c->nparts)) return GREEDY_ENOMEM;
  for (int p = 0; p < c->nparts; p++)
    if (c->eligible[p]) greedy_heap_set(h, p, rel_load(c, p, NULL), c->count[p]);
  return GREEDY_OK;
}

const size_t greedy_order_identity[1] = {0};

int greedy_in_order(size_t n, int wdim, const double *w)
{
  if (wdim != 1 || (n > 0 && !w)) return 0;
  for (size_t i = 1; i < n; i++)
    if (w[i - 1] < w[i]) return 0;
  return 1;
}

/* 1 when order[k] == k for every k < n. */
static int is_identity(const size_t *order, size_t n)
{
  if (order == GREEDY_ORDER_IDENTITY) return 1;
  for (size_t k = 0; k < n; k++)
    if (order[k] != k) return 0;
  return 1;
}

static int place_in_order(greedy_ctx *c, int *part_out, int skip_placed);

/*
 * GREEDY's placement: every object whose part_out is still negative goes,
 * in the given order (heaviest first), to the eligible part of least
 * relative load.  Objects already placed are in c's loads.
 */
static int place_rest(greedy_ctx *c, const size_t *order, int *part_out)
{
  greedy_heap h;
  int rc;
  /* Objects already in GREEDY's order (the layer's sorted path hands them
   * over so, and the sort then gives the identity): the cheaper heap of
   * place_in_order, which finds the same parts. */
  if (is_identity(order, c->n)) return place_in_order(c, part_out, 1);
  rc = heap_of_parts(c, &h);
  if (rc != GREEDY_OK) return rc;
  for (size_t k = 0; k < c->n; k++) {
    if (k + GREEDY_PREFETCH < c->n) prefetch_object(c, order[k + GREEDY_PREFETCH], part_out, NULL);
    if (part_out[order[k]] < 0) part_out[order[k]] = place_least(c, &h, order[k]);
  }
  greedy_heap_free(&h);
  return GREEDY_OK;
}

/* The objects heaviest first in a new array *order (free with free()). */
static int new_heavy_order(const greedy_ctx *c, size_t **order)
{
  *order = malloc((c->n ? c->n : 1) * sizeof(size_t));
  if (!*order) return GREEDY_ENOMEM;
  return heavy_order(c, *order, NULL);
}

int greedy_order_ws(size_t n, int wdim, const double *w, size_t *order, uint64_t *ws)
{
  greedy_ctx c;
  int rc;
  if (n > 0 && !order) return GREEDY_EINVAL;
  if (wdim == 1) {
    /* One weight is its own key: the weights are checked, not summed. */
    double m;
    if (n > 0 && !w) return GREEDY_EINVAL;
    if (checked_max(w, n, 1, 0, &m)) return GREEDY_EINVAL;
    return greedy_sort_desc_ws(n, w, order, ws) ? GREEDY_ENOMEM : GREEDY_OK;
  }
  /* One part: the context only checks the weights and sums them (the keys
   * of several weights are shares of the totals). */
  rc = ctx_init(&c, n, wdim, w, 1, NULL, NULL, NULL);
  if (rc) return rc;
  rc = heavy_order(&c, order, ws);
  ctx_free(&c);
  return rc;
}

int greedy_order(size_t n, int wdim, const double *w, size_t *order)
{
  return greedy_order_ws(n, wdim, w, order, NULL);
}

/* The order to use: the caller's (given), or a new one in *owned. */
static int use_order(const greedy_ctx *c, const size_t *given, size_t **owned, const size_t **order)
{
  int rc = GREEDY_OK;
  *owned = NULL;
  if (given == NULL) rc = new_heavy_order(c, owned);
  *order = given != NULL ? given : *owned;
  return rc;
}

int greedy_assign_ordered(size_t n, int wdim, const double *w, int nparts,
                          const double *target_frac, const size_t *given, const double *known,
                          int *part_out)
{
  greedy_ctx c;
  size_t *owned = NULL;
  const size_t *order;
  int rc;
  if (n > 0 && !part_out) return GREEDY_EINVAL;
  rc = ctx_init(&c, n, wdim, w, nparts, target_frac, NULL, known);
  if (rc) return rc;
  rc = use_order(&c, given, &owned, &order);
  if (rc == GREEDY_OK) {
    /* Plain GREEDY keeps nothing: every object is still to be placed. */
    for (size_t i = 0; i < n; i++) part_out[i] = -1;
    rc = place_rest(&c, order, part_out);
  }
  free(owned);
  ctx_free(&c);
  return rc;
}

/* An entry of place_in_order's heap: the order of greedy_heap's entries. */
typedef struct top_entry {
  double key;  /* relative load */
  double key2; /* object count */
  int id;      /* part */
} top_entry;

static inline int top_less(const top_entry *a, const top_entry *b)
{
  if (a->key == b->key) return (a->key2 < b->key2) | ((a->key2 == b->key2) & (a->id < b->id));
  return a->key < b->key;
}

/* Move the entry at the root of e[0..m-1] down to its place. */
static inline void top_sift(top_entry *e, int m)
{
  top_entry x = e[0];
  int i = 0;
  for (;;) {
    int ch = 2 * i + 1;
    if (ch >= m) break;
    if (ch + 1 < m) ch += top_less(&e[ch + 1], &e[ch]);
    if (!top_less(&e[ch], &x)) break;
    e[i] = e[ch];
    i = ch;
  }
  e[i] = x;
}

/* place_in_order's heap of the eligible parts, keyed as greedy_heap keys
 * them, in e (nparts entries); returns its size.  *positive tells whether
 * every key is place_step's quotient (see there). */
static int top_build(const greedy_ctx *c, top_entry *e, int *positive)
{
  int m = 0;
  for (int p = 0; p < c->nparts; p++) {
    if (!c->eligible[p]) continue;
    /* Inserted with a sift-up, so that e is a heap at every step. */
    top_entry x = {rel_load(c, p, NULL), c->count[p], p};
    int i = m++;
    while (i > 0 && top_less(&x, &e[(i - 1) / 2])) {
      e[i] = e[(i - 1) / 2];
      i = (i - 1) / 2;
    }
    e[i] = x;
  }
  *positive = c->wdim == 1 && c->total[0] > 0.0;
  for (int p = 0; *positive && p < c->nparts; p++)
    if (c->eligible[p] && !(c->cap[p] > 0.0)) *positive = 0;
  return m;
}

/* Object i onto the least part, the root of e[0..m-1]; returns the part.
 * positive: one weight and every eligible part of a positive capacity (a
 * target times the total can round to zero), where rel_load's first case
 * is written out, the same operations in the same order. */
static inline int place_step(greedy_ctx *c, top_entry *e, int m, int positive, size_t i)
{
  int p = e[0].id;
  if (positive) {
    c->load[p] += c->w[i];
    c->count[p] += 1.0;
    e[0].key = c->load[p] / c->cap[p];
  } else {
    add_object(c, p, i);
    e[0].key = rel_load(c, p, NULL);
  }
  e[0].key2 = c->count[p];
  top_sift(e, m);
  return p;
}

/*
 * The placement of objects already in GREEDY's order, object k k-th.  The
 * part that receives is always the least one, and its keys only grow, so a
 * heap over the parts needs one sift-down from its root per object and no
 * index of positions (greedy_heap keeps one for callers that change any
 * part's key).  The order (relative load, count, part) is strict, so the
 * least part, and hence the answer, is the one place_rest finds.  With
 * skip_placed, objects whose part_out is already set (and in the loads)
 * are passed over, as place_rest passes them over.
 */
static int place_in_order(greedy_ctx *c, int *part_out, int skip_placed)
{
  top_entry *e = malloc((size_t)c->nparts * sizeof *e);
  int m, positive;
  if (!e) return GREEDY_ENOMEM;
  m = top_build(c, e, &positive);
  /* Two loops, so that the test of positive is not made per object. */
  if (positive) {
    for (size_t k = 0; k < c->n; k++)
      if (!skip_placed || part_out[k] < 0) part_out[k] = place_step(c, e, m, 1, k);
  } else {
    for (size_t k = 0; k < c->n; k++)
      if (!skip_placed || part_out[k] < 0) part_out[k] = place_step(c, e, m, 0, k);
  }
  free(e);
  return GREEDY_OK;
}

/* Indices of the merge that greedy_assign_runs asks for at a time: a block
 * small enough to stay in the first-level cache between the merge that
 * writes it and the placement that reads it. */
#define GREEDY_RUN_BLOCK 512

int greedy_assign_runs(int m, const double *w, const uint64_t *tie, const size_t *first,
                       const size_t *count, int nparts, const double *target_frac, int *part_out)
{
  greedy_ctx c;
  greedy_runs *g = NULL;
  top_entry *e = NULL;
  size_t n = 0, got, idx[GREEDY_RUN_BLOCK];
  int rc, heap, positive;
  if (m < 1 || first == NULL || count == NULL) return GREEDY_EINVAL;
  /* The runs lie one after the other from w[0]: the weights of ctx_init's
   * totals are the objects of the runs, each once. */
  for (int r = 0; r < m; r++) {
    if (first[r] != n) return GREEDY_EINVAL;
    n += count[r];
  }
  if (n > 0 && !part_out) return GREEDY_EINVAL;
  rc = ctx_init(&c, n, 1, w, nparts, target_frac, NULL, NULL);
  if (rc) return rc;
  rc = GREEDY_ENOMEM;
  e = malloc((size_t)nparts * sizeof *e);
  g = greedy_runs_open(m, w, tie, first, count);
  if (e == NULL || g == NULL) goto end;
  heap = top_build(&c, e, &positive);
  while ((got = greedy_runs_next(g, idx, GREEDY_RUN_BLOCK)) > 0) {
    if (positive) {
      for (size_t j = 0; j < got; j++) part_out[idx[j]] = place_step(&c, e, heap, 1, idx[j]);
    } else {
      for (size_t j = 0; j < got; j++) part_out[idx[j]] = place_step(&c, e, heap, 0, idx[j]);
    }
  }
  rc = GREEDY_OK;
end:
  greedy_runs_close(g);
  free(e);
  ctx_free(&c);
  return rc;
}

int greedy_assign_in_order(size_t n, int wdim, const double *w, int nparts,
                           const double *target_frac, int *part_out)
{
  greedy_ctx c;
  int rc;
  if (n > 0 && !part_out) return GREEDY_EINVAL;
  rc = ctx_init(&c, n, wdim, w, nparts, target_frac, NULL, NULL);
  if (rc) return rc;
  rc = place_in_order(&c, part_out, 0);
  ctx_free(&c);
  return rc;
}

int greedy_assign(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                  int *part_out)
{
  return greedy_assign_ordered(n, wdim, w, nparts, target_frac, NULL, NULL, part_out);
}

int greedy_assign_keep(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                       const int *cur_part, double keep_limit, greedy_keep_mode mode, int *part_out,
                       size_t *moved)
{
  return greedy_assign_keep_ordered(n, wdim, w, nparts, target_frac, cur_part, keep_limit, mode,
                                    NULL, NULL, part_out, moved);
}

int greedy_assign_keep_ordered(size_t n, int wdim, const double *w, int nparts,
                               const double *target_frac, const int *cur_part, double keep_limit,
                               greedy_keep_mode mode, const size_t *given, const double *known,
                               int *part_out, size_t *moved)
{
  greedy_ctx c;
  greedy_heap h;
  size_t *owned = NULL;
  const size_t *order = NULL;
  size_t nmoved = 0;
  int rc;
  memset(&h, 0, sizeof(h));
  if (n > 0 && (!part_out || !cur_part || part_out == cur_part)) return GREEDY_EINVAL;
  if (!(keep_limit >= 0.0) || (mode != GREEDY_KEEP_HEAVY_FIRST && mode != GREEDY_KEEP_LIGHT_FIRST))
    return GREEDY_EINVAL;
  rc = ctx_init(&c, n, wdim, w, nparts, target_frac, cur_part, known);
  if (rc) return rc;
  /* Loads summed in another order differ in the last bits; a part exactly
   * at the limit by the caller's sum must still count as within it. */
  double limit = keep_limit * (1.0 + GREEDY_KEEP_EPS);
  if ((rc = use_order(&c, given, &owned, &order)) != GREEDY_OK) goto end;
  /* Objects in order already are read in sequence: no array, no prefetch. */
  const int ident = order == GREEDY_ORDER_IDENTITY;
  if (mode == GREEDY_KEEP_HEAVY_FIRST) {
    if ((rc = heap_of_parts(&c, &h)) != GREEDY_OK) goto end;
    for (size_t k = 0; k < n; k++) {
      size_t i = ident ? k : order[k];
      if (!ident && k + GREEDY_PREFETCH < n)
        prefetch_object(&c, order[k + GREEDY_PREFETCH], part_out, cur_part);
      int p = cur_part[i];
      if (c.eligible[p] && rel_load(&c, p, w + i * wdim) <= limit) {
        add_object(&c, p, i);
        greedy_heap_set(&h, p, rel_load(&c, p, NULL), c.count[p]);
      } else {
        p = place_least(&c, &h, i);
      }
      part_out[i] = p;
    }
  } else {
    /* Phase 1, lightest first: the kept set of every part is the largest
     * number of its objects that fits under the limit. */
    for (size_t k = n; k-- > 0;) {
      size_t i = ident ? k : order[k];
      if (!ident && k >= GREEDY_PREFETCH)
        prefetch_object(&c, order[k - GREEDY_PREFETCH], part_out, cur_part);
      int p = cur_part[i];
      if (c.eligible[p] && rel_load(&c, p, w + i * wdim) <= limit) {
        add_object(&c, p, i);
        part_out[i] = p;
      } else {
        part_out[i] = -1;
      }
    }
    /* Phase 2: the rest, heaviest first, onto the least loaded parts. */
    if ((rc = place_rest(&c, order, part_out)) != GREEDY_OK) goto end;
  }
  for (size_t i = 0; i < n; i++) nmoved += part_out[i] != cur_part[i];
  if (moved) *moved = nmoved;
  rc = GREEDY_OK;
end:
  greedy_heap_free(&h);
  free(owned);
  ctx_free(&c);
  return rc;
}

/* greedy_imbalance's reading of the objects: every part in
 * range, every weight finite and >= 0, and the largest weight of each
 * dimension into c->total (until the totals replace them).  GREEDY_EINVAL
 * for a bad part or weight. */
static int check_and_max(greedy_ctx *c, const int *part)
{
  size_t n = c->n, wd = (size_t)c->wdim;
  unsigned np = (unsigned)c->nparts;
  int bad = 0;
  for (size_t i = 0; i < n; i++) bad |= (unsigned)part[i] >= np;
  for (size_t d = 0; d < wd; d++) bad |= checked_max(c->w, n, wd, d, &c->total[d]);
  return bad ? GREEDY_EINVAL : GREEDY_OK;
}

/* Accumulator banks of greedy_imbalance's part sums: consecutive objects
 * of one part add into different banks, so that an addition does not wait
 * for the one before it (objects listed by part, or two parts, otherwise
 * make one chain of dependent additions).  Integer sums, merged exactly:
 * the banks change no bit of the result. */
#define GREEDY_SUM_BANKS 4
/* The part-weight count up to which the banks are used (64 KiB of them). */
#define GREEDY_SUM_BANKED_MAX 1024

int greedy_weight_sums(size_t n, int wdim, const double *w, double *known)
{
  greedy_ctx c;
  int rc;
  if (!known) return GREEDY_EINVAL;
  /* One part: the context checks the weights and sums them. */
  rc = ctx_alloc(&c, n, wdim, w, 1);
  if (rc) return rc;
  /* The largest weights go first: they make the sums' scales. */
  rc = sum_totals(&c, known);
  for (int d = 0; rc == GREEDY_OK && d < wdim; d++) known[wdim + d] = c.total[d];
  ctx_free(&c);
  return rc;
}

int greedy_imbalance(size_t n, int wdim, const double *w, int nparts, const double *target_frac,
                     const int *part, double *imbalance)
{
  return greedy_imbalance_known(n, wdim, w, nparts, target_frac, part, NULL, imbalance);
}

int greedy_imbalance_known(size_t n, int wdim, const double *w, int nparts,
                           const double *target_frac, const int *part, const double *known,
                           double *imbalance)
{
  greedy_ctx c;
  int rc;
  if (!imbalance || (n > 0 && !part)) return GREEDY_EINVAL;
  rc = ctx_alloc(&c, n, wdim, w, nparts);
  if (rc) return rc;
  if (known != NULL) {
    /* The weights were checked with their largest one found: the parts
     * only are checked here. */
    rc = parts_in_range(n, part, nparts) ? GREEDY_OK : GREEDY_EINVAL;
    for (int d = 0; d < wdim; d++) c.total[d] = known[d];
  } else {
    rc = check_and_max(&c, part);
  }
  if (rc) {
    ctx_free(&c);
    return rc;
  }
  /* The part loads as reproducible sums, like the totals: the figure is
   * then the same for the objects in any order (GREEDYREFINE compares it
   * with its bounds, on the objects in ID order or in weight order).  Each
   * total is the exact sum of its parts' integer sums, so it is the total
   * the other entry points compute (every object is in one part). */
  size_t pw = (size_t)nparts * (size_t)wdim, wd = (size_t)wdim;
  size_t banks = pw <= GREEDY_SUM_BANKED_MAX ? GREEDY_SUM_BANKS : 1;
  greedy_rsum *acc = calloc(banks * pw + 1, sizeof *acc);
  if (!acc) {
    ctx_free(&c);
    return GREEDY_ENOMEM;
  }
  for (size_t d = 0; d < wd; d++) greedy_rscale_of(c.total[d], &c.scale[d]);
  if (banks > 1 && wd == 1) {
    const greedy_rscale sc = c.scale[0];
    for (size_t i = 0; i < n; i++)
      greedy_rsum_add(&acc[(i % GREEDY_SUM_BANKS) * pw + (size_t)part[i]], &sc, w[i]);
  } else {
    for (size_t i = 0; i < n; i++)
      for (size_t d = 0; d < wd; d++)
        greedy_rsum_add(&acc[(i % banks) * pw + (size_t)part[i] * wd + d], &c.scale[d],
                        w[i * wd + d]);
  }
  for (size_t b = 1; b < banks; b++)
    for (size_t k = 0; k < pw; k++) greedy_rsum_merge(&acc[k], &acc[b * pw + k]);
  for (size_t d = 0; d < wd; d++) {
    greedy_rsum t = {0, 0};
    for (int p = 0; p < nparts; p++) greedy_rsum_merge(&t, &acc[(size_t)p * wd + d]);
    c.total[d] = greedy_rsum_value(&t, &c.scale[d]);
  }
  for (size_t k = 0; k < pw; k++) c.load[k] = greedy_rsum_value(&acc[k], &c.scale[k % wd]);
  free(acc);
  rc = ctx_caps(&c, target_frac);
  if (rc) {
    ctx_free(&c);
    return rc;
  }
  double worst = 0.0;
  for (int p = 0; p < nparts; p++) {
    double r = rel_load(&c, p, NULL);
    if (r > worst) worst = r;
  }
  *imbalance = worst;
  ctx_free(&c);
  return GREEDY_OK;
}
