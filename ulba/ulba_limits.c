/* SPDX-License-Identifier: BSD-3-Clause */
/* How far ULBA goes: the horizon of ULBA_GROWTH=OBJECT, and the caps that
 * keep its base runs within what the base method takes: Zoltan's
 * HSFC, and its RCB with several parts on a rank, fail on some ranks only
 * when an object outweighs half the smallest part (zp_native_grain), and
 * the layer refuses such a run.  Underloading shrinks a part (PART) or
 * makes growing objects heavier (OBJECT); both are capped here so that the
 * run stays within the bound instead of failing.  Part of the ULBA Zoltan
 * adapter (ulba_adapter.h). */
#include <math.h>
#include <stdio.h>

#include "ulba_adapter.h"
#include "ulba_core.h"

/* The layer sums the weights in another order than the per-part loads of
 * info.W: a cap this much inside the bound stays inside after rounding. */
#define ULBA_BOUND_ROUNDING 1e-9

/* ULBA_ALPHA=AUTO with ULBA_GROWTH=OBJECT: anticipate the growth of half the
 * next interval, which balances the loads expected in its middle (for
 * linearly growing loads this minimises the summed step times of the
 * interval; ulba/README.md, "Growth per object"). */
#define ULBA_OBJECT_AUTO_ALPHA 0.5

/* The growth ULBA_GROWTH=OBJECT anticipates, in steps: the share alpha of
 * the next interval, which the interval this balance closes (h steps)
 * stands for.  A prediction from Menon's tau, H = alpha / (1 - alpha) tau
 * (the part receiving the growth catches up after H steps, and a trigger
 * balances tau steps later), was tried and anticipated worse on the erosion
 * benchmark (docs/erosion.md): tau's excess rate is measured per part,
 * which is what this mode avoids.  The same on every rank. */
static double object_horizon(double alpha, long h) { return alpha * (double)(h > 0 ? h : 1); }

/* ULBA_ALPHA=AUTO with ULBA_GROWTH=OBJECT: with a known balance cost, the
 * horizon that makes the next interval longest when the next balance comes
 * once the imbalance has cost as much as a balance (ulba_object_horizon,
 * with the parts' rates and loads before this balance); the fastest part
 * gets at most ULBA_AUTO_ALPHA_MAX of the average load less.  Without a
 * cost the model has no interval, and the middle of one as long as the
 * last is anticipated (ULBA_OBJECT_AUTO_ALPHA).  The same on every rank. */
static double auto_horizon(const ulba_call *c, long h)
{
  double C = c->info.C * c->info.omega, H = 0.0;
  if (c->info.source != ULBA_SOURCE_TRIGGER || !(C > 0.0) || !isfinite(C) ||
      ulba_object_horizon((size_t)c->P, c->wir, c->before, C,
                          ULBA_AUTO_ALPHA_MAX * c->info.W / c->P, &H, NULL) != ULBA_OK)
    return object_horizon(ULBA_OBJECT_AUTO_ALPHA, h);
  return H;
}

double ulba_object_horizon_of(const ulba_call *c, long h, double *alpha)
{
  *alpha = c->o.alpha_auto ? ULBA_OBJECT_AUTO_ALPHA : c->o.alpha;
  return c->o.alpha_auto ? auto_horizon(c, h) : object_horizon(*alpha, h);
}

/* The base method's grain on this run, +infinity when it has none. */
static double base_grain(const ulba_call *c)
{
  int ranks = 1;
  MPI_Comm_size(c->comm, &ranks);
  return zp_native_grain(c->o.base, c->P, ranks);
}

/* The smallest share among the application's sizes of the first weight. */
static double app_smallest_share(const ulba_call *c)
{
  const double *sizes = zp_ctx_part_sizes(c->ctx);
  double sum = 0.0, smin = INFINITY;
  for (int p = 0; p < c->P; p++) sum += sizes[(size_t)p * c->wd];
  for (int p = 0; p < c->P && sum > 0.0; p++) {
    double s = sizes[(size_t)p * c->wd] / sum;
    if (s > 0.0 && s < smin) smin = s;
  }
  return isfinite(smin) ? smin : 0.0;
}

int ulba_cap_alpha(ulba_call *c, double *alpha)
{
  const double *w = zp_ctx_local_wgts(c->ctx), *sizes = zp_ctx_part_sizes(c->ctx);
  double grain = base_grain(c), heavy = 0.0, asked = *alpha, min_share;
  if (isinf(grain) || !(*alpha > 0.0) || !(c->info.W > 0.0)) return ZOLTAN_OK;
  for (int i = 0; i < c->n; i++)
    heavy = w[(size_t)i * c->wd] > heavy ? w[(size_t)i * c->wd] : heavy;
  if (MPI_Allreduce(MPI_IN_PLACE, &heavy, 1, MPI_DOUBLE, MPI_MAX, c->comm) != MPI_SUCCESS)
    return ZOLTAN_FATAL;
  min_share = heavy / (grain * c->info.W) * (1.0 + ULBA_BOUND_ROUNDING);
  for (int p = 0; p < c->P; p++) c->col[p] = sizes[(size_t)p * c->wd];
  if (ulba_alpha_cap((size_t)c->P, c->col, c->flags, min_share, c->colout, alpha) != ULBA_OK) {
    zp_error(c->yo, "ULBA: cannot compose the part sizes with ULBA_ALPHA = %g", asked);
    return ZOLTAN_FATAL;
  }
  if (*alpha < asked && zp_ctx_debug_level(c->ctx) >= 1 && c->rank == 0)
    printf("ZOLTAN ULBA: alpha %g lowered to %g: base method %s takes no part whose load is "
           "below %g times the heaviest object's weight %g\n",
           asked, *alpha, c->o.base, 1.0 / grain, heavy);
  return ZOLTAN_OK;
}

int ulba_cap_horizon(ulba_call *c, const double *w, double W, double G, double *H)
{
  double grain = base_grain(c), asked = *H, limit;
  int ok;
  if (isinf(grain) || !(*H > 0.0)) return ZOLTAN_OK;
  limit = grain * app_smallest_share(c) * c->info.W * (1.0 - ULBA_BOUND_ROUNDING);
  ok = ulba_horizon_cap((size_t)c->n, w, (size_t)c->wd, c->obj_rate, W, G, limit, H) == ULBA_OK;
  /* A rank that failed sends -1, so that every rank fails together. */
  if (!ok) *H = -1.0;
  if (MPI_Allreduce(MPI_IN_PLACE, H, 1, MPI_DOUBLE, MPI_MIN, c->comm) != MPI_SUCCESS || *H < 0.0) {
    zp_error(c->yo, "ULBA: cannot bound the horizon of the anticipated weights");
    return ZOLTAN_FATAL;
  }
  if (*H < asked && zp_ctx_debug_level(c->ctx) >= 1 && c->rank == 0)
    printf("ZOLTAN ULBA: growth anticipated over %g steps instead of %g: base method %s takes no "
           "object heavier than %g times the smallest part's load\n",
           *H, asked, c->o.base, grain);
  return ZOLTAN_OK;
}
