/* SPDX-License-Identifier: BSD-3-Clause */
/* SCOTCH's graph cleaning (scotchlb_symmetrise, scotchlb_symmetrise_rows in
 * scotch_core.h): the application's listings made into a symmetric graph
 * without self loops, repeated entries summed, in time linear in the
 * listings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scotch_core.h"

/* The graph is cleaned in time linear in its listings, which matters at
 * 10^5-10^6 objects: the listings are put into per-object buckets by a
 * counting sort, each bucket (a few entries) is sorted alone, and every
 * undirected pair is merged where its ends meet.  A sort of all the
 * listings by their pair took 70% of a gathered call on a 10^6-object mesh,
 * and its four copies of the edges most of the rest (scotch/README.md,
 * "Cost of a call"). */

/* One listing as seen from one of its ends: the other end and the weight. */
typedef struct half {
  size_t nbr; /* the other end */
  double w;   /* the listed weight */
} half;

static int cmp_half(const void *a, const void *b)
{
  const half *x = a, *y = b;
  if (x->nbr != y->nbr) return x->nbr < y->nbr ? -1 : 1;
  /* Weights in order too: the sums of repeated entries then do not depend
   * on the order they were listed in, so that the two ranks holding the two
   * ends of an edge (PT-Scotch path) compute the very same weight. */
  return x->w < y->w ? -1 : x->w > y->w ? 1 : 0;
}

/* Sorts one bucket by (neighbour, weight): by insertion when it is short,
 * as buckets of a mesh are (and already in order, which insertion sorts in
 * one pass). */
static void sort_bucket(half *h, size_t k)
{
  if (k > 32) {
    qsort(h, k, sizeof *h, cmp_half);
    return;
  }
  for (size_t i = 1; i < k; i++)
    for (size_t j = i; j > 0 && cmp_half(&h[j], &h[j - 1]) < 0; j--) {
      half t = h[j];
      h[j] = h[j - 1];
      h[j - 1] = t;
    }
}

/* The entries of a sorted bucket from *at that name nbr: their count, and
 * their weights summed in ascending order into *sum; *at moves past them. */
static size_t take_group(const half *h, size_t *at, size_t end, size_t nbr, double *sum)
{
  size_t c = 0;
  *sum = 0.0;
  while (*at < end && h[*at].nbr == nbr) {
    *sum += h[*at].w;
    (*at)++;
    c++;
  }
  return c;
}

/* The rows first..first+n-1 of the cleaned graph from two bucket arrays
 * per object (compressed rows ostart/o: its own listings, by their other
 * end; rstart/r: the listings that name it, by the object that listed
 * them).  Each pair (lo, hi) becomes one edge whose weight is, as the top
 * of scotch_core.h says, the mean of the sums of the two sides' listings
 * (each summed in ascending weight order), or the one side's sum; pairs of
 * weight 0 are dropped.  A pair is counted in st once per call: at its
 * smaller end when both ends are rows here, else at the end that is.  The
 * buckets are sorted in place.  Output as scotchlb_symmetrise. */
static int buckets_to_rows(size_t first, size_t n, const size_t *ostart, half *o,
                           const size_t *rstart, half *r, size_t **out_start, size_t **out_adj,
                           double **out_w, scotchlb_stats *st)
{
  size_t cap = ostart[n] + rstart[n], k = 0;
  size_t *start = malloc((n + 1) * sizeof *start), *adj = malloc((cap + 1) * sizeof *adj);
  double *w = malloc((cap + 1) * sizeof *w);
  if (!start || !adj || !w) {
    free(start);
    free(adj);
    free(w);
    return SCOTCHLB_ENOMEM;
  }
  for (size_t v = 0; v < n; v++) {
    size_t i = ostart[v], ie = ostart[v + 1], j = rstart[v], je = rstart[v + 1], me = first + v;
    sort_bucket(o + i, ie - i);
    sort_bucket(r + j, je - j);
    start[v] = k;
    while (i < ie || j < je) {
      size_t u = i < ie && (j >= je || o[i].nbr <= r[j].nbr) ? o[i].nbr : r[j].nbr;
      double s_own, s_rev, x;
      size_t c_own = take_group(o, &i, ie, u, &s_own), c_rev = take_group(r, &j, je, u, &s_rev);
      int here = me < u || u < first || u - first >= n;
      if (c_own && c_rev) {
        /* The mean of the two sides, as merge_entries of the sort-based
         * cleaning computed it (addition commutes, so which side is lo
         * does not change the bits). */
        x = 0.5 * (s_own + s_rev);
        if (here && s_own != s_rev) st->asymmetric++;
      } else {
        x = c_own ? s_own : s_rev;
        if (here) st->one_sided++;
      }
      if (here) {
        st->duplicates += (c_own > 1 ? c_own - 1 : 0) + (c_rev > 1 ? c_rev - 1 : 0);
        st->edges += x > 0.0;
      }
      if (x > 0.0) {
        adj[k] = u;
        w[k++] = x;
      }
    }
  }
  start[n] = k;
  *out_start = start;
  *out_adj = adj;
  *out_w = w;
  return SCOTCHLB_OK;
}

/* The bucket arrays of buckets_to_rows, allocated for ends listings each
 * side (counts zeroed); SCOTCHLB_ENOMEM frees what was allocated. */
static int buckets_alloc(size_t n, size_t ends, size_t **os, half **o, size_t **rs, half **r)
{
  *os = calloc(n + 2, sizeof **os);
  *rs = calloc(n + 2, sizeof **rs);
  *o = malloc((ends + 1) * sizeof **o);
  *r = malloc((ends + 1) * sizeof **r);
  if (*os && *rs && *o && *r) return SCOTCHLB_OK;
  free(*os);
  free(*rs);
  free(*o);
  free(*r);
  *os = *rs = NULL;
  *o = *r = NULL;
  return SCOTCHLB_ENOMEM;
}

/* Bucket sizes counted in c[v + 2] (c has n + 2 entries, zeroed first)
 * become running sums, so that filling bucket v at c[v + 1]++ leaves
 * c[0..n] as the compressed rows' starts (a counting sort). */
static void counts_to_fill(size_t n, size_t *c)
{
  for (size_t i = 2; i <= n + 1; i++) c[i] += c[i - 1];
}

int scotchlb_symmetrise_rows(size_t first, size_t n, const scotchlb_listing *l, size_t m,
                             size_t **out_start, size_t **out_adj, double **out_w,
                             scotchlb_stats *st)
{
  scotchlb_stats local;
  size_t *os, *rs;
  half *o, *r;
  int rc;
  if (st == NULL) st = &local;
  st->self_loops = st->duplicates = st->one_sided = st->asymmetric = st->edges = 0;
  *out_start = NULL;
  *out_adj = NULL;
  *out_w = NULL;
#define ZP_LOCAL(v) ((v) >= first && (v)-first < n)
  for (size_t j = 0; j < m; j++)
    if (!isfinite(l[j].w) || l[j].w < 0.0) return SCOTCHLB_EINVAL;
  if (buckets_alloc(n, m, &os, &o, &rs, &r) != SCOTCHLB_OK) return SCOTCHLB_ENOMEM;
  /* A listing goes into its row's own bucket and into its column's
   * bucket of listings that name it, for the ends that are rows here. */
  for (size_t j = 0; j < m; j++) {
    if (l[j].row == l[j].col) continue;
    if (ZP_LOCAL(l[j].row)) os[l[j].row - first + 2]++;
    if (ZP_LOCAL(l[j].col)) rs[l[j].col - first + 2]++;
  }
  counts_to_fill(n, os);
  counts_to_fill(n, rs);
  for (size_t j = 0; j < m; j++) {
    if (l[j].row == l[j].col) {
      st->self_loops++;
      continue;
    }
    if (ZP_LOCAL(l[j].row)) o[os[l[j].row - first + 1]++] = (half){l[j].col, l[j].w};
    if (ZP_LOCAL(l[j].col)) r[rs[l[j].col - first + 1]++] = (half){l[j].row, l[j].w};
  }
#undef ZP_LOCAL
  rc = buckets_to_rows(first, n, os, o, rs, r, out_start, out_adj, out_w, st);
  free(os);
  free(rs);
  free(o);
  free(r);
  return rc;
}

/* Whether row (adj, w) of length k, sorted by neighbour, holds v with
 * weight x (binary search). */
static int row_has(const size_t *adj, const double *w, size_t k, size_t v, double x)
{
  size_t lo = 0, hi = k;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (adj[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < k && adj[lo] == v && w[lo] == x;
}

/* The cleaned graph of an input that needs no repair, which is what
 * applications usually give: no self-loop, no repeated entry, every edge
 * listed on both sides with the same positive weight.  The cleaned graph is
 * then the input with each row sorted, built in one copy: a third of the
 * memory the buckets touch, and on the machine of the figures the first
 * touch of a page cost more than the work done on it.  A row longer than
 * 32 entries that is not in order already goes to the buckets too (it
 * would need a sort of two arrays at once).  Returns SCOTCHLB_OK with the
 * rows, 1 when the input needs the general cleaning (nothing returned), or
 * SCOTCHLB_ENOMEM. */
static int clean_rows(size_t n, const size_t *adj_start, const size_t *adj, const double *ewgts,
                      size_t **out_start, size_t **out_adj, double **out_w, scotchlb_stats *st)
{
  size_t m = adj_start[n] - adj_start[0];
  size_t *start = malloc((n + 1) * sizeof *start), *a = malloc((m + 1) * sizeof *a);
  double *w = malloc((m + 1) * sizeof *w);
  int rc = SCOTCHLB_OK;
  if (!start || !a || !w) {
    rc = SCOTCHLB_ENOMEM;
    goto end;
  }
  for (size_t i = 0, k = 0; i < n && rc == SCOTCHLB_OK; i++) {
    size_t k0 = k;
    start[i] = k;
    for (size_t j = adj_start[i]; j < adj_start[i + 1]; j++) {
      size_t c = adj[j], at = k++;
      double x = ewgts ? ewgts[j] : 1.0;
      if (c == i || !(x > 0.0)) rc = 1;
      if (at > k0 && a[at - 1] > c && k - k0 > 32) rc = 1;
      /* Insertion by neighbour: rows arrive sorted or nearly. */
      for (; rc == SCOTCHLB_OK && at > k0 && a[at - 1] > c; at--) {
        a[at] = a[at - 1];
        w[at] = w[at - 1];
      }
      a[at] = c;
      w[at] = x;
    }
    for (size_t j = k0 + 1; j < k && rc == SCOTCHLB_OK; j++)
      if (a[j] == a[j - 1]) rc = 1;
  }
  if (rc == SCOTCHLB_OK) start[n] = m;
  for (size_t i = 0; i < n && rc == SCOTCHLB_OK; i++)
    for (size_t j = start[i]; j < start[i + 1] && rc == SCOTCHLB_OK; j++) {
      size_t c = a[j];
      if (!row_has(a + start[c], w + start[c], start[c + 1] - start[c], i, w[j])) rc = 1;
    }
end:
  if (rc != SCOTCHLB_OK) {
    free(start);
    free(a);
    free(w);
    return rc;
  }
  st->edges = m / 2;
  *out_start = start;
  *out_adj = a;
  *out_w = w;
  return SCOTCHLB_OK;
}

int scotchlb_symmetrise(size_t n, const size_t *adj_start, const size_t *adj, const double *ewgts,
                        size_t **out_start, size_t **out_adj, double **out_w, scotchlb_stats *st)
{
  scotchlb_stats local;
  size_t m = adj_start ? adj_start[n] : 0, *os, *rs;
  half *o, *r;
  int rc;
  if (st == NULL) st = &local;
  st->self_loops = st->duplicates = st->one_sided = st->asymmetric = st->edges = 0;
  *out_start = NULL;
  *out_adj = NULL;
  *out_w = NULL;
  for (size_t j = adj_start ? adj_start[0] : 0; j < m; j++)
    if (adj[j] >= n || (ewgts && (!isfinite(ewgts[j]) || ewgts[j] < 0.0))) return SCOTCHLB_EINVAL;
  rc = m > 0 ? clean_rows(n, adj_start, adj, ewgts, out_start, out_adj, out_w, st) : 1;
  if (rc != 1) return rc;
  if (buckets_alloc(n, m, &os, &o, &rs, &r) != SCOTCHLB_OK) return SCOTCHLB_ENOMEM;
  /* The rows are the own buckets already; the buckets of listings that
   * name an object are the transpose, filled in row order. */
  for (size_t i = 0; i < n && m > 0; i++)
    for (size_t j = adj_start[i]; j < adj_start[i + 1]; j++)
      if (adj[j] != i) {
        os[i + 2]++;
        rs[adj[j] + 2]++;
      }
  counts_to_fill(n, os);
  counts_to_fill(n, rs);
  for (size_t i = 0; i < n && m > 0; i++)
    for (size_t j = adj_start[i]; j < adj_start[i + 1]; j++) {
      double x = ewgts ? ewgts[j] : 1.0;
      if (adj[j] == i) {
        st->self_loops++;
        continue;
      }
      o[os[i + 1]++] = (half){adj[j], x};
      r[rs[adj[j] + 1]++] = (half){i, x};
    }
  rc = buckets_to_rows(0, n, os, o, rs, r, out_start, out_adj, out_w, st);
  free(os);
  free(rs);
  free(o);
  free(r);
  return rc;
}
