/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * REMAP for centralised methods: relabel the parts of a new assignment so
 * that as much weight as possible stays in the part it is in now, as
 * Zoltan does for its own methods, so that fewer objects move.
 *
 * The weight that a new part shares with a current one is a reproducible
 * sum (greedy_util.h) at the scale of the largest weight of all objects:
 * its value does not depend on the order of the objects nor on how they are
 * split over ranks, so that zp_remap on gathered objects and
 * zp_remap_parallel on the same objects spread over ranks give the same
 * pairs and the same relabelling, and so does any number of ranks.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "greedy_util.h"
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

/* The shared weight of one (new, current) pair of labels. */
typedef struct zp_pair_sum {
  uint64_t ab;   /* new label << 32 | current label */
  greedy_rsum s; /* weight of the objects in both */
} zp_pair_sum;

/* Pair sums travel as three MPI_UINT64_T each. */
typedef char zp_pair_sum_layout[sizeof(zp_pair_sum) == 3 * sizeof(uint64_t) ? 1 : -1];

static uint64_t zp_ab(int a, int b) { return (uint64_t)(unsigned)a << 32 | (unsigned)b; }

/* The pairs of n objects through a matrix of the new labels by the D
 * current labels present, when that matrix is no larger than the objects
 * and parts (the common case: a rank holds one or a few current parts). */
static long zp_sums_dense(zp_record *r, size_t n, const double *w, size_t ws, const int *cur,
                          const int *newp, int P, const int *slot_of, const int *label_of, int D,
                          const greedy_rscale *sc, zp_pair_sum *out)
{
  size_t cells = (size_t)P * (size_t)D, i, k;
  /* The matrix in the struct's kept buffers: a struct balanced again
   * reuses mapped pages (at 10^3 parts it is megabytes). */
  greedy_rsum *acc = zp_record_scratch(r, ZP_SCR_REMAP, (cells + 1) * sizeof *acc);
  unsigned char *hit = zp_record_scratch(r, ZP_SCR_TMP, cells + 1);
  long np = -1;
  if (acc == NULL || hit == NULL) return -1;
  memset(acc, 0, cells * sizeof *acc);
  memset(hit, 0, cells);
  for (i = 0; i < n; i++) {
    if (cur[i] < 0) continue;
    k = (size_t)newp[i] * (size_t)D + (size_t)slot_of[cur[i]];
    greedy_rsum_add(&acc[k], sc, w[i * ws]);
    hit[k] = 1;
  }
  np = 0;
  for (k = 0; k < cells; k++)
    if (hit[k]) {
      out[np].ab = zp_ab((int)(k / (size_t)D), label_of[k % (size_t)D]);
      out[np++].s = acc[k];
    }
  return np;
}

/* Order of pair sums by their labels. */
static int zp_ab_cmp(const void *x, const void *y)
{
  uint64_t a = ((const zp_pair_sum *)x)->ab, b = ((const zp_pair_sum *)y)->ab;
  return (a > b) - (a < b);
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

/* The same pairs for many current labels: the objects sorted by labels,
 * linear in the objects and independent of P^2, and summed run by run. */
static long zp_sums_sorted(size_t n, const double *w, size_t ws, const int *cur, const int *newp,
                           int P, const greedy_rscale *sc, zp_pair_sum *out)
{
  size_t *idx = malloc((n + 1) * sizeof *idx), *tmp = malloc((n + 1) * sizeof *tmp);
  size_t *count = malloc(((size_t)P + 2) * sizeof *count), i, k;
  long np = -1;
  if (idx == NULL || tmp == NULL || count == NULL) goto End;
  zp_sort_by_labels(idx, tmp, count, n, P, cur, newp);
  np = 0;
  for (i = 0; i < n; i = k) {
    greedy_rsum sum = {0, 0};
    for (k = i; k < n && newp[idx[k]] == newp[idx[i]] && cur[idx[k]] == cur[idx[i]]; k++)
      greedy_rsum_add(&sum, sc, w[idx[k] * ws]);
    if (cur[idx[i]] < 0) continue;
    out[np].ab = zp_ab(newp[idx[i]], cur[idx[i]]);
    out[np++].s = sum;
  }
End:
  free(idx);
  free(tmp);
  free(count);
  return np;
}

/* The (new, current) pairs of n objects with their shared weights, into
 * *out (malloc'd; free it).  Returns the number of pairs, -1 when memory is
 * short. */
static long zp_pair_sums(zp_record *r, size_t n, const double *w, int wdim, const int *cur,
                         const int *newp, int P, const greedy_rscale *sc, zp_pair_sum **out)
{
  int *slot_of = malloc((size_t)P * sizeof *slot_of), *label_of = NULL, D = 0, p, dense;
  size_t i;
  long np = -1;
  *out = NULL;
  if (slot_of == NULL) goto End;
  for (p = 0; p < P; p++) slot_of[p] = -1;
  for (i = 0; i < n; i++)
    if (cur[i] >= 0 && slot_of[cur[i]] < 0) slot_of[cur[i]] = D++;
  label_of = malloc(((size_t)D + 1) * sizeof *label_of);
  dense = (size_t)P * (size_t)D <= n + (size_t)P;
  /* At most one pair per cell of the matrix, or per object. */
  *out = malloc(((dense ? (size_t)P * (size_t)D : n) + 1) * sizeof **out);
  if (label_of == NULL || *out == NULL) goto End;
  for (p = 0; p < P; p++)
    if (slot_of[p] >= 0) label_of[slot_of[p]] = p;
  if (dense)
    np = zp_sums_dense(r, n, w, (size_t)wdim, cur, newp, P, slot_of, label_of, D, sc, *out);
  else
    np = zp_sums_sorted(n, w, (size_t)wdim, cur, newp, P, sc, *out);
End:
  free(slot_of);
  free(label_of);
  return np;
}

/* The relabelling from pair sums given in any order and split (equal
 * labels added up): perm[new label] = the label it takes.  ps is reordered.
 * Returns ZOLTAN_OK or ZOLTAN_MEMERR. */
static int zp_match_sums(zp_pair_sum *ps, size_t np, int P, const greedy_rscale *sc, int *perm)
{
  zp_pair *pairs = malloc((np + 1) * sizeof *pairs);
  int *taken = calloc((size_t)P, sizeof *taken);
  size_t i, k = 0;
  int ierr = ZOLTAN_MEMERR;
  if (pairs == NULL || taken == NULL) goto End;
  qsort(ps, np, sizeof *ps, zp_ab_cmp);
  for (i = 0; i < np; i++) {
    if (i > 0 && ps[i].ab == ps[i - 1].ab) {
      greedy_rsum_merge(&ps[k - 1].s, &ps[i].s);
      continue;
    }
    ps[k++] = ps[i];
  }
  for (i = 0; i < k; i++) {
    pairs[i].wt = greedy_rsum_value(&ps[i].s, sc);
    pairs[i].a = (int)(ps[i].ab >> 32);
    pairs[i].b = (int)(ps[i].ab & 0xffffffffu);
  }
  zp_match_labels(pairs, k, P, perm, taken);
  ierr = ZOLTAN_OK;
End:
  free(pairs);
  free(taken);
  return ierr;
}

/* Whether the parts are interchangeable: uniform sizes in every weight. */
static int zp_remap_uniform(const zp_remap_in *in)
{
  int p, P = in->nparts;
  for (p = 0; p < P * in->wdim; p++)
    if (fabs(in->part_sizes[p] - 1.0 / P) > 1e-12) return 0;
  return 1;
}

/*
 * Relabel the parts of a new assignment so that as much weight as possible
 * stays in the part it is in now (Zoltan's REMAP).  Only done when parts are
 * interchangeable: uniform sizes (the caller checks how parts sit on ranks).
 */
int zp_remap(const zp_remap_in *in, size_t N, const double *w, const int *cur, int *newp)
{
  int P = in->nparts, ierr = ZOLTAN_MEMERR;
  size_t i;
  long np;
  double max_w = 0.0;
  greedy_rscale sc;
  zp_pair_sum *ps = NULL;
  int *perm = NULL;
  if (!zp_remap_uniform(in)) return ZOLTAN_OK;
  for (i = 0; i < N; i++)
    if (w[i * (size_t)in->wdim] > max_w) max_w = w[i * (size_t)in->wdim];
  greedy_rscale_of(max_w, &sc);
  perm = malloc((size_t)P * sizeof *perm);
  np = zp_pair_sums(in->r, N, w, in->wdim, cur, newp, P, &sc, &ps);
  if (perm == NULL || np < 0 || zp_match_sums(ps, (size_t)np, P, &sc, perm) != ZOLTAN_OK) goto End;
  for (i = 0; i < N; i++) newp[i] = perm[newp[i]];
  ierr = ZOLTAN_OK;
End:
  free(ps);
  free(perm);
  return ierr;
}

/* zp_remap_parallel's gather: every rank's pair count into counts on the
 * root (room for 2 * size entries there, whose second half takes the
 * displacements), then every rank's pair sums into *all there.  The root
 * makes room first and every rank learns whether it could before anybody
 * enters the gather, so that a shortage is an error on every rank instead
 * of a gather that half of the ranks skip.  Returns the number gathered
 * (on the root), or -1 on every rank when memory ran out.  Collective. */
static long zp_remap_gather(MPI_Comm comm, int rank, int size, int *counts, zp_pair_sum *mine,
                            int np, zp_pair_sum **all)
{
  int *displ = rank == ZP_ROOT ? counts + size : NULL, r, ok = 1;
  long long total = 0;
  MPI_Datatype rec;
  *all = NULL;
  MPI_Gather(&np, 1, MPI_INT, counts, 1, MPI_INT, ZP_ROOT, comm);
  if (rank == ZP_ROOT) {
    for (r = 0; r < size; r++) {
      displ[r] = (int)total;
      total += counts[r];
    }
    /* At most one pair per object, and the objects' count is an int. */
    if (total <= INT_MAX) *all = malloc(((size_t)total + 1) * sizeof **all);
    ok = *all != NULL;
  }
  MPI_Bcast(&ok, 1, MPI_INT, ZP_ROOT, comm);
  if (ok) {
    /* One record is three 64-bit words: the counts stay counts of pairs. */
    MPI_Type_contiguous(3, MPI_UINT64_T, &rec);
    MPI_Type_commit(&rec);
    MPI_Gatherv(mine, np, rec, *all, counts, displ, rec, ZP_ROOT, comm);
    MPI_Type_free(&rec);
  }
  return ok ? (long)total : -1;
}

int zp_remap_parallel(const zp_remap_in *in, MPI_Comm comm, size_t n, const double *w,
                      const int *cur, double max_w, int *newp)
{
  int P = in->nparts, rank, size, ierr, *perm = NULL, *counts = NULL;
  size_t i;
  long np, total;
  greedy_rscale sc;
  zp_pair_sum *ps = NULL, *all = NULL;
  /* The sizes are the same on every rank (the caller's promise), so every
   * rank takes the same branch without a reduction. */
  if (!zp_remap_uniform(in)) return ZOLTAN_OK;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  greedy_rscale_of(max_w, &sc);
  /* One more entry: the root's code travels with the relabelling. */
  perm = malloc(((size_t)P + 1) * sizeof *perm);
  if (rank == ZP_ROOT) counts = malloc(2 * (size_t)size * sizeof *counts);
  np = zp_pair_sums(in->r, n, w, in->wdim, cur, newp, P, &sc, &ps);
  ierr = zp_agree_code(comm,
                       perm == NULL || np < 0 || np > INT_MAX || (rank == ZP_ROOT && counts == NULL)
                           ? ZOLTAN_MEMERR
                           : ZOLTAN_OK);
  if (ierr < 0) goto End;
  total = zp_remap_gather(comm, rank, size, counts, ps, (int)np, &all);
  if (total < 0) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  if (rank == ZP_ROOT) {
    ierr = zp_match_sums(all, (size_t)total, P, &sc, perm);
    perm[P] = ierr;
  }
  MPI_Bcast(perm, P + 1, MPI_INT, ZP_ROOT, comm);
  ierr = perm[P];
  if (ierr < 0) goto End;
  for (i = 0; i < n; i++) newp[i] = perm[newp[i]];
End:
  free(ps);
  free(all);
  free(perm);
  free(counts);
  return ierr;
}
