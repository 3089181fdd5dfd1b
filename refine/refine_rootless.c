/* SPDX-License-Identifier: BSD-3-Clause */
/* REFINE without a root: the arithmetic; see refine_rootless.h. */
#include "refine_rootless.h"

#include <math.h>
#include <stdlib.h>

void refine_rootless_role(double load, double target, double tol, double *excess, double *capacity,
                          double *slack)
{
  double mid = target * (1.0 + tol) / 2.0;
  *excess = 0.0;
  *capacity = 0.0;
  *slack = 0.0;
  if (load > tol * target) {
    *excess = load - mid;
  } else if (load < mid) {
    *capacity = mid - load;
    *slack = target * (tol - 1.0) / 2.0;
  }
}

void refine_rootless_blocks(double lo, double hi, double block, int nblocks, int *first, int *last)
{
  double a, b;
  *first = 1;
  *last = 0;
  if (!(hi > lo) || !(block > 0.0) || nblocks < 1) return;
  a = floor(lo / block);
  /* hi is excluded: an interval that ends on a block edge does not touch
   * the next block. */
  b = ceil(hi / block) - 1.0;
  if (a < 0.0) a = 0.0;
  if (b > nblocks - 1) b = nblocks - 1;
  if (a > nblocks - 1) a = nblocks - 1;
  *first = (int)a;
  *last = (int)(b < a ? a : b);
}

size_t refine_rootless_match(double blo, double bhi, const refine_interval *d, size_t nd,
                             const refine_interval *r, size_t nr, refine_transfer *out)
{
  size_t i = 0, j = 0, k = 0;
  while (i < nd && j < nr) {
    double lo = fmax(fmax(d[i].lo, r[j].lo), blo);
    double hi = fmin(fmin(d[i].hi, r[j].hi), bhi);
    if (hi > lo) {
      double len = r[j].hi - r[j].lo;
      out[k].donor = d[i].rank;
      out[k].receiver = r[j].rank;
      out[k].amount = hi - lo;
      out[k].slack = len > 0.0 ? r[j].slack * (hi - lo) / len : 0.0;
      k++;
    }
    /* Advance whichever interval ends first (both when they end together). */
    if (d[i].hi < r[j].hi)
      i++;
    else if (r[j].hi < d[i].hi)
      j++;
    else {
      i++;
      j++;
    }
  }
  return k;
}

/* An object to sort: its load and index. */
typedef struct keyed {
  double load;
  size_t index;
} keyed;

/* Decreasing load, ties by index. */
static int by_load_desc(const void *a, const void *b)
{
  const keyed *x = a, *y = b;
  if (x->load != y->load) return x->load > y->load ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

long refine_fill_quotas(size_t n, const double *load, int k, const double *quota,
                        const double *over, int *dest, double *sent)
{
  keyed *order = malloc((n + 1) * sizeof *order);
  double *left = malloc(((size_t)k + 1) * sizeof *left);
  long given = 0;
  if (!order || !left) {
    free(order);
    free(left);
    return -1;
  }
  for (int j = 0; j < k; j++) {
    left[j] = quota[j] > 0.0 ? quota[j] : 0.0;
    sent[j] = 0.0;
  }
  for (size_t i = 0; i < n; i++) {
    order[i].load = load[i];
    order[i].index = i;
    dest[i] = -1;
  }
  qsort(order, n, sizeof *order, by_load_desc);
  for (size_t t = 0; t < n; t++) {
    size_t i = order[t].index;
    int best = -1, any_left = 0;
    double room = 0.0;
    /* k is the number of receivers of one donor: a handful. */
    for (int j = 0; j < k; j++) {
      double rj = left[j] + (over ? over[j] : 0.0);
      any_left |= left[j] > 0.0;
      if (left[j] > 0.0 && (best < 0 || rj > room)) {
        best = j;
        room = rj;
      }
    }
    if (!any_left) break;
    if (load[i] > 0.0 && (load[i] <= room || load[i] < 2.0 * left[best])) {
      dest[i] = best;
      sent[best] += load[i];
      left[best] -= load[i];
      given++;
    }
  }
  free(order);
  free(left);
  return given;
}
