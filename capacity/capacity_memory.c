/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory capacities (Watts et al.'s second limit): part sizes capped so that no
 * part is planned beyond its rank's memory, and a repair that moves objects
 * out of parts a method still filled beyond it.  Plain arrays only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capacity_core.h"

/* Parts whose memory is this close to the limit count as within it, so that
 * rounding in a sum does not call a part over. */
#define MEM_SLACK 1e-12

static int over_limit(double mem, double limit)
{
  return isfinite(limit) && mem > limit * (1.0 + MEM_SLACK) + MEM_SLACK;
}

/* Water filling of one column (stride wdim). */
static int bound_column(int nparts, int wdim, const double *limit, double total, double *x,
                        unsigned char *clipped)
{
  double room = 0.0, lambda = 0.0;
  int p, changed = 1;
  for (p = 0; p < nparts; p++) {
    clipped[p] = 0;
    if (x[(size_t)p * wdim] > 0.0) room += limit[p] / total;
  }
  if (room < 1.0) {
    /* Even full to the brim the parts cannot hold everything: spread the
     * excess in proportion to the limits. */
    for (p = 0; p < nparts; p++)
      if (x[(size_t)p * wdim] > 0.0) x[(size_t)p * wdim] = limit[p] / total / room;
    return CAPACITY_WARN;
  }
  while (changed) {
    double fixed = 0.0, free_mass = 0.0;
    changed = 0;
    for (p = 0; p < nparts; p++) {
      if (clipped[p])
        fixed += limit[p] / total;
      else
        free_mass += x[(size_t)p * wdim];
    }
    if (!(free_mass > 0.0)) break;
    lambda = (1.0 - fixed) / free_mass;
    for (p = 0; p < nparts; p++) {
      if (!clipped[p] && lambda * x[(size_t)p * wdim] > limit[p] / total) {
        clipped[p] = 1;
        changed = 1;
      }
    }
  }
  for (p = 0; p < nparts; p++)
    x[(size_t)p * wdim] = clipped[p] ? limit[p] / total : lambda * x[(size_t)p * wdim];
  return CAPACITY_OK;
}

int capacity_memory_bound(int nparts, int wdim, const double *limit, double total, double *sizes)
{
  unsigned char *clipped;
  int p, d, rc = CAPACITY_OK;
  if (nparts < 1 || wdim < 1 || limit == NULL || sizes == NULL || !(total > 0.0) ||
      !isfinite(total))
    return CAPACITY_EINVAL;
  for (p = 0; p < nparts; p++)
    if (!(limit[p] >= 0.0)) return CAPACITY_EINVAL;
  clipped = malloc((size_t)nparts);
  if (clipped == NULL) return CAPACITY_ENOMEM;
  for (d = 0; d < wdim; d++)
    if (bound_column(nparts, wdim, limit, total, sizes + d, clipped) == CAPACITY_WARN)
      rc = CAPACITY_WARN;
  free(clipped);
  return rc;
}

/* The repair's running state. */
typedef struct repair {
  size_t n;
  int wdim, mem_dim, load_dim, nparts;
  const double *w, *sizes, *limit;
  double *mem, *load;
  int *part;
  size_t moved;
} repair;

static double obj_mem(const repair *r, size_t i) { return r->w[i * r->wdim + r->mem_dim]; }

/* The part with room for object i (not its own) whose load with it is
 * smallest relative to its size; -1 when none has room. */
static int best_receiver(const repair *r, size_t i)
{
  double m = obj_mem(r, i), wl = r->w[i * r->wdim + r->load_dim], best = INFINITY;
  int q, pick = -1;
  for (q = 0; q < r->nparts; q++) {
    double size = r->sizes[(size_t)q * r->wdim + r->load_dim], rel;
    if (q == r->part[i] || !(size > 0.0) || over_limit(r->mem[q] + m, r->limit[q])) continue;
    rel = (r->load[q] + wl) / size;
    if (rel < best) {
      best = rel;
      pick = q;
    }
  }
  return pick;
}

static void move_obj(repair *r, size_t i, int to)
{
  int from = r->part[i];
  r->mem[from] -= obj_mem(r, i);
  r->load[from] -= r->w[i * r->wdim + r->load_dim];
  r->mem[to] += obj_mem(r, i);
  r->load[to] += r->w[i * r->wdim + r->load_dim];
  r->part[i] = to;
  r->moved++;
}

/* An object of the part being repaired, with its memory (sorted on it). */
typedef struct mem_obj {
  double m;
  size_t i;
} mem_obj;

/* Largest memory first, then by position: the same order on every run. */
static int by_mem_desc(const void *a, const void *b)
{
  const mem_obj *x = a, *y = b;
  if (x->m != y->m) return x->m > y->m ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* Try to move the k-th object of the part; 0 when no part has room for it
 * (then none ever will: receivers only fill up during a repair). */
static int try_move(repair *r, mem_obj *idx, unsigned char *done, size_t k)
{
  int q = best_receiver(r, idx[k].i);
  done[k] = 1;
  if (q < 0) return 0;
  move_obj(r, idx[k].i, q);
  return 1;
}

/* Shed part p's excess with few objects: when one object can end the
 * excess, the smallest such goes (at most one object's worth beyond the
 * excess is shed); otherwise the largest goes and the step repeats. */
static void shed_part(repair *r, int p, mem_obj *idx, unsigned char *done)
{
  size_t k = 0, i, cnt, left = 0;
  for (i = 0; i < r->n; i++)
    if (r->part[i] == p && obj_mem(r, i) > 0.0) {
      idx[k].m = obj_mem(r, i);
      idx[k++].i = i;
    }
  cnt = k;
  qsort(idx, cnt, sizeof *idx, by_mem_desc);
  memset(done, 0, cnt);
  while (over_limit(r->mem[p], r->limit[p])) {
    double excess = r->mem[p] - r->limit[p];
    size_t lo = 0, hi = cnt, finished = 0;
    /* idx[0, lo) are the objects of memory >= excess (a prefix). */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (idx[mid].m >= excess)
        lo = mid + 1;
      else
        hi = mid;
    }
    for (k = lo; k-- > 0 && !finished;)
      if (!done[k]) finished = try_move(r, idx, done, k);
    if (finished) break;
    while (left < cnt && done[left]) left++;
    if (left == cnt) break; /* nothing left that any part can take */
    try_move(r, idx, done, left);
  }
}

int capacity_memory_repair(size_t n, int wdim, const double *w, int mem_dim, int load_dim,
                           int nparts, const double *sizes, const double *limit, int *part,
                           size_t *moved, int *worst)
{
  repair r = {n, wdim, mem_dim, load_dim, nparts, w, sizes, limit, NULL, NULL, part, 0};
  size_t i;
  mem_obj *idx = NULL;
  unsigned char *done = NULL;
  int p, rc = CAPACITY_OK;
  double worst_ratio = 1.0;
  if (wdim < 1 || mem_dim < 0 || mem_dim >= wdim || load_dim < 0 || load_dim >= wdim ||
      nparts < 1 || (n > 0 && (w == NULL || part == NULL)) || sizes == NULL || limit == NULL ||
      moved == NULL)
    return CAPACITY_EINVAL;
  *moved = 0;
  if (worst != NULL) *worst = -1;
  for (i = 0; i < n; i++)
    if (part[i] < 0 || part[i] >= nparts) return CAPACITY_EINVAL;
  r.mem = calloc((size_t)nparts, sizeof *r.mem);
  r.load = calloc((size_t)nparts, sizeof *r.load);
  idx = malloc((n + 1) * sizeof *idx);
  done = malloc(n + 1);
  if (r.mem == NULL || r.load == NULL || idx == NULL || done == NULL) {
    rc = CAPACITY_ENOMEM;
    goto done;
  }
  for (i = 0; i < n; i++) {
    r.mem[part[i]] += obj_mem(&r, i);
    r.load[part[i]] += w[i * wdim + load_dim];
  }
  for (p = 0; p < nparts; p++)
    if (over_limit(r.mem[p], limit[p])) shed_part(&r, p, idx, done);
  for (p = 0; p < nparts; p++) {
    if (over_limit(r.mem[p], limit[p])) {
      double ratio = limit[p] > 0.0 ? r.mem[p] / limit[p] : INFINITY;
      rc = CAPACITY_WARN;
      if (worst != NULL && (*worst < 0 || ratio > worst_ratio)) {
        *worst = p;
        worst_ratio = ratio;
      }
    }
  }
  *moved = r.moved;
done:
  free(r.mem);
  free(r.load);
  free(idx);
  free(done);
  return rc;
}
