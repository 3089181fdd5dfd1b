/* SPDX-License-Identifier: BSD-3-Clause */
/* The move back of a repartition under a cut bound (scotchlb_move_back):
 * objects return to their current parts while the cut bound and the load
 * bound allow; see scotch_descent.h. */
#include <stdlib.h>

#include "scotch_descent.h"
#include "scotch_round.h"

/* Levels of cut a move back may cost, in mean edge weights (0, 1, ...),
 * and passes over the objects per level at most (a pass that moves nothing
 * ends the level). */
#define SCOTCHLB_BACK_LEVELS 4
#define SCOTCHLB_BACK_PASSES 8

/* An object and its load, sorted for the visiting order of a move back. */
typedef struct keyed {
  double load;
  size_t v;
} keyed;

static int heavier_first(const void *x, const void *y)
{
  const keyed *a = x, *b = y;
  if (a->load != b->load) return a->load > b->load ? -1 : 1;
  return (a->v > b->v) - (a->v < b->v);
}

static int lighter_first(const void *x, const void *y)
{
  const keyed *a = x, *b = y;
  if (a->load != b->load) return a->load < b->load ? -1 : 1;
  return (a->v > b->v) - (a->v < b->v);
}

long scotchlb_move_back(const scotchlb_instance *in, const int *cur, double load_cap,
                        double cut_limit, int visit, int *part)
{
  size_t n = in->n;
  int nparts = in->nparts;
  const double *load = in->load, *ew = in->ew, *target = in->target;
  const size_t *start = in->start, *adj = in->adj;
  double *pload = calloc((size_t)nparts, sizeof *pload);
  keyed *order = malloc((n + 1) * sizeof *order);
  double total = 0.0, cut = 0.0, ewsum = 0.0;
  long moves = 0;
  if (!pload || !order) {
    moves = -1;
    goto end;
  }
  for (size_t i = 0; i < n; i++) {
    pload[part[i]] += load[i];
    total += load[i];
    for (size_t j = start[i]; j < start[i + 1]; j++) {
      ewsum += ew[j];
      if (adj[j] > i && part[adj[j]] != part[i]) cut += ew[j];
    }
  }
  for (size_t i = 0; i < n; i++) {
    order[i].load = load[i];
    order[i].v = i;
  }
  if (visit == SCOTCHLB_BACK_HEAVY) qsort(order, n, sizeof *order, heavier_first);
  if (visit == SCOTCHLB_BACK_LIGHT) qsort(order, n, sizeof *order, lighter_first);
  {
    double worst = 0.0, mean_ew = start[n] > 0 ? ewsum / (double)start[n] : 1.0;
    for (int q = 0; q < nparts; q++)
      if (target[q] > 0.0 && total > 0.0 && pload[q] / (target[q] * total) > worst)
        worst = pload[q] / (target[q] * total);
    if (worst > load_cap) load_cap = worst;
    /* Moves that cost no cut first, then ones that cost up to 1, 2, ...
     * mean edges each: the cheap ones open the way for their neighbours. */
    for (int level = 0; level <= SCOTCHLB_BACK_LEVELS; level++) {
      double thr = level * mean_ew;
      for (int pass = 0; pass < SCOTCHLB_BACK_PASSES; pass++) {
        long m = 0;
        for (size_t i = 0; i < n; i++) {
          size_t v = order[i].v;
          int a = cur[v], b = part[v];
          if (a < 0 || a == b || target[a] <= 0.0) continue;
          if (!scotchlb_within(pload[a] + load[v], load_cap * target[a] * total, total)) continue;
          double wa = 0.0, wb = 0.0;
          for (size_t j = start[v]; j < start[v + 1]; j++) {
            int q = part[adj[j]];
            if (q == a) wa += ew[j];
            if (q == b) wb += ew[j];
          }
          /* The edges to a stop being cut, those to b start. */
          double delta = wb - wa;
          if (delta > thr || cut + delta > cut_limit) continue;
          cut += delta;
          pload[a] += load[v];
          pload[b] -= load[v];
          scotchlb_assert_load(pload[b], total);
          part[v] = a;
          m++;
        }
        moves += m;
        if (m == 0) break;
      }
    }
  }
end:
  free(pload);
  free(order);
  return moves;
}
