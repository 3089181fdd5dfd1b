/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * REMAP for centralised methods: relabel the parts of a new assignment so
 * that as much weight as possible stays in the part it is in now, as
 * Zoltan does for its own methods, so that fewer objects move.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"

/* Shared weight of new part a and current part b. */
typedef struct zp_pair {
  double wt; /* weight of the objects in both */
  int a;     /* new part label */
  int b;     /* current part label */
} zp_pair;

static int zp_pair_cmp(const void *x, const void *y)
{
  const zp_pair *p = x, *q = y;
  if (p->wt != q->wt) return p->wt > q->wt ? -1 : 1;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return (p->b > q->b) - (p->b < q->b);
}

/* Order objects by (new, current) part with two counting passes (current
 * parts are -1..P-1), so that equal pairs are adjacent; linear and
 * deterministic.  count has P + 2 entries. */
static void zp_sort_by_labels(size_t *idx, size_t *tmp, size_t *count, size_t N, int P,
                              const int *cur, const int *newp)
{
  size_t i, j;
  int pass;
  for (i = 0; i < N; i++) idx[i] = i;
  for (pass = 0; pass < 2; pass++) {
    memset(count, 0, ((size_t)P + 2) * sizeof *count);
    for (i = 0; i < N; i++) count[(pass ? newp[idx[i]] : cur[idx[i]] + 1) + 1]++;
    for (j = 1; j < (size_t)P + 2; j++) count[j] += count[j - 1];
    for (i = 0; i < N; i++) tmp[count[pass ? newp[idx[i]] : cur[idx[i]] + 1]++] = idx[i];
    memcpy(idx, tmp, N * sizeof *idx);
  }
}

/* Greedy maximum-weight matching of new labels to current ones: heaviest
 * shared weight first, labels breaking ties so that the result does not
 * depend on the sort's stability; unmatched labels take the free ones in
 * order. */
static void zp_match_labels(zp_pair *pairs, size_t np, int P, int *perm, int *taken)
{
  size_t i;
  int p, j = 0;
  qsort(pairs, np, sizeof *pairs, zp_pair_cmp);
  for (p = 0; p < P; p++) perm[p] = -1;
  for (i = 0; i < np; i++) {
    if (perm[pairs[i].a] == -1 && !taken[pairs[i].b]) {
      perm[pairs[i].a] = pairs[i].b;
      taken[pairs[i].b] = 1;
    }
  }
  for (p = 0; p < P; p++) {
    if (perm[p] != -1) continue;
    while (taken[j]) j++;
    perm[p] = j;
    taken[j] = 1;
  }
}

/* The (new, current) pairs that share objects, with their shared weight,
 * through a P x P matrix filled in one pass over the objects: used when the
 * matrix is no larger than the objects (few parts, many objects), where it
 * avoids the two sorting passes and their three arrays of N entries.  Each
 * entry sums its objects in index order, exactly as the sorted runs do, so
 * both ways give the same pairs with the same weights.  Returns the number
 * of pairs, or -1 when memory is short. */
static long zp_pairs_dense(const zp_remap_in *in, size_t N, const double *w, const int *cur,
                           const int *newp, zp_pair *pairs)
{
  size_t P = (size_t)in->nparts, i, a, b;
  long np = 0;
  double *m = zp_record_scratch(in->r, ZP_SCR_REMAP, P * P * sizeof *m);
  unsigned char *hit = zp_record_scratch(in->r, ZP_SCR_TMP, P * P);
  if (m == NULL || hit == NULL) return -1;
  memset(m, 0, P * P * sizeof *m);
  memset(hit, 0, P * P);
  for (i = 0; i < N; i++) {
    if (cur[i] < 0) continue;
    m[(size_t)newp[i] * P + (size_t)cur[i]] += w[i * (size_t)in->wdim];
    hit[(size_t)newp[i] * P + (size_t)cur[i]] = 1;
  }
  for (a = 0; a < P; a++)
    for (b = 0; b < P; b++)
      if (hit[a * P + b]) {
        pairs[np].wt = m[a * P + b];
        pairs[np].a = (int)a;
        pairs[np].b = (int)b;
        np++;
      }
  return np;
}

/* The same pairs by sorting the objects by (new, current) part: linear in
 * the objects and independent of P^2, for many parts. */
static long zp_pairs_sorted(const zp_remap_in *in, size_t N, const double *w, const int *cur,
                            const int *newp, zp_pair *pairs)
{
  int P = in->nparts;
  long np = -1;
  size_t i, k;
  size_t *idx = malloc((N + 1) * sizeof *idx), *tmp = malloc((N + 1) * sizeof *tmp);
  size_t *count = malloc(((size_t)P + 2) * sizeof *count);
  if (idx == NULL || tmp == NULL || count == NULL) goto End;
  zp_sort_by_labels(idx, tmp, count, N, P, cur, newp);
  np = 0;
  for (i = 0; i < N; i = k) {
    double shared = 0.0;
    for (k = i; k < N && newp[idx[k]] == newp[idx[i]] && cur[idx[k]] == cur[idx[i]]; k++)
      shared += w[idx[k] * (size_t)in->wdim];
    if (cur[idx[i]] >= 0) {
      pairs[np].wt = shared;
      pairs[np].a = newp[idx[i]];
      pairs[np].b = cur[idx[i]];
      np++;
    }
  }
End:
  free(idx);
  free(tmp);
  free(count);
  return np;
}

/*
 * Relabel the parts of a new assignment so that as much weight as possible
 * stays in the part it is in now (Zoltan's REMAP).  Only done when parts are
 * interchangeable: uniform sizes (the caller checks how parts sit on ranks).
 */
int zp_remap(const zp_remap_in *in, size_t N, const double *w, const int *cur, int *newp)
{
  int P = in->nparts, p, ierr = ZOLTAN_MEMERR;
  int dense = (size_t)P * (size_t)P <= N;
  size_t i, npmax = dense ? (size_t)P * (size_t)P : N;
  long np;
  zp_pair *pairs = NULL;
  int *perm = NULL, *taken = NULL;

  for (p = 0; p < P * in->wdim; p++)
    if (fabs(in->part_sizes[p] - 1.0 / P) > 1e-12) return ZOLTAN_OK;
  pairs = malloc((npmax + 1) * sizeof *pairs);
  perm = malloc((size_t)P * sizeof *perm);
  taken = calloc((size_t)P, sizeof *taken);
  if (pairs == NULL || perm == NULL || taken == NULL) goto End;
  np = dense ? zp_pairs_dense(in, N, w, cur, newp, pairs)
             : zp_pairs_sorted(in, N, w, cur, newp, pairs);
  if (np < 0) goto End;
  zp_match_labels(pairs, (size_t)np, P, perm, taken);
  for (i = 0; i < N; i++) newp[i] = perm[newp[i]];
  ierr = ZOLTAN_OK;
End:
  free(pairs);
  free(perm);
  free(taken);
  return ierr;
}
