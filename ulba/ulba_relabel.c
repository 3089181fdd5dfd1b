/* SPDX-License-Identifier: BSD-3-Clause */
/* Running the base method with ULBA's sizes and relabelling its parts so
 * that the small sizes land on the growing objects (ulba/README.md,
 * "Relabelling").  Part of the ULBA Zoltan adapter (ulba_adapter.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ulba_adapter.h"
#include "ulba_core.h"
#include "zp_context.h"

/* Weight of the objects that do not grow in the relabelling overlap: small,
 * so that the growing objects decide, but positive, so that the other
 * labels stay where most of their objects already are. */
#define ULBA_KEEP_WEIGHT 1e-3

/* Base-method runs with permuted sizes before the relabelling gives up on an
 * unconstrained fit (run_relabelled). */
#define ULBA_RELABEL_ROUNDS 3

/*
 * The overlap matrix of ulba_relabel: entry q * P + p is what the base
 * method's part q takes from current part p: the growth gw[i] of the objects
 * of growing parts (grow[p] != 0), plus ULBA_KEEP_WEIGHT times the weight of
 * every object.  Summed over the ranks; `local` is scratch of P * P entries.
 */
static int overlap_matrix(const zp_context *ctx, const int *base_part, const int *grow,
                          const double *gw, double *local, double *global)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), P = zp_ctx_num_parts(ctx);
  const double *w = zp_ctx_local_wgts(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  size_t PP = (size_t)P * (size_t)P;
  for (size_t k = 0; k < PP; k++) local[k] = 0.0;
  for (int i = 0; i < n; i++) {
    int q = base_part[i], p = cur[i];
    if (q < 0 || q >= P || p < 0 || p >= P) continue;
    /* A tiny constant keeps weightless objects from being ignored. */
    local[(size_t)q * P + p] +=
        (grow[p] ? gw[i] : 0.0) + ULBA_KEEP_WEIGHT * (w[(size_t)i * wd] + 1e-12);
  }
  return MPI_Allreduce(local, global, (int)PP, MPI_DOUBLE, MPI_SUM, zp_ctx_comm(ctx)) == MPI_SUCCESS
             ? ZOLTAN_OK
             : ZOLTAN_FATAL;
}

/* Whether base part sizes row a equals target row b in every dimension. */
static int same_size(const double *a, const double *b, int wd)
{
  for (int d = 0; d < wd; d++)
    if (fabs(a[d] - b[d]) > 1e-12 * (fabs(a[d]) + fabs(b[d])) + 1e-300) return 0;
  return 1;
}

/* Whether perm gives every base part q (with sizes[q]) a label of the same
 * target size. */
static int perm_fits(const int *perm, const double *sizes, const double *target, int P, int wd)
{
  for (int k = 0; k < P; k++)
    if (!same_size(sizes + (size_t)k * wd, target + (size_t)perm[k] * wd, wd)) return 0;
  return 1;
}

/* Relabel the base parts q of the local objects by maximum overlap with the
 * growing objects: perm[k] is the label of base part k.  Collective. */
static int match_labels(zp_context *ctx, const int *q, const int *grow, const double *gw,
                        double *loc, double *ov, int *perm)
{
  int ierr = overlap_matrix(ctx, q, grow, gw, loc, ov);
  if (ierr < 0) return ierr;
  return ulba_relabel((size_t)zp_ctx_num_parts(ctx), ov, ULBA_RELABEL_AUTO, perm, NULL) == ULBA_OK
             ? ZOLTAN_OK
             : ZOLTAN_MEMERR;
}

/* The best relabelling of the overlap ov under the constraint that a base
 * part (with sizes[k]) and its label (with target[perm[k]]) have the same
 * size.  Not collective: ov is the same on every rank. */
static int match_same_size(int P, int wd, const double *sizes, const double *target, double *ov,
                           int *perm)
{
  double big = 0.0;
  for (size_t k = 0; k < (size_t)P * (size_t)P; k++) big += fabs(ov[k]);
  big = 2.0 * big + 1.0;
  /* A pair of different sizes is made worse than any feasible assignment;
   * the permutation the sizes were made from is feasible, so the optimum
   * never uses such a pair. */
  for (int a = 0; a < P; a++)
    for (int b = 0; b < P; b++)
      if (!same_size(sizes + (size_t)a * wd, target + (size_t)b * wd, wd))
        ov[(size_t)a * P + b] = -big;
  return ulba_relabel((size_t)P, ov, ULBA_RELABEL_AUTO, perm, NULL) == ULBA_OK ? ZOLTAN_OK
                                                                               : ZOLTAN_MEMERR;
}

/* The share of the growth of the overloading parts' objects (obj_work)
 * that part leaves in overloading labels, summed over the ranks: part[i]
 * is a label, or a base part that map (when given) turns into one.  1 when
 * nothing grows.  The same on every rank.  Collective. */
int ulba_growth_share_kept(const ulba_call *c, const int *part, const int *map, double *share)
{
  const int *cur = zp_ctx_local_parts(c->ctx);
  double loc[2] = {0.0, 0.0}, sums[2];
  for (int i = 0; i < c->n; i++) {
    int q = part[i];
    if (cur[i] < 0 || cur[i] >= c->P || !c->flags[cur[i]]) continue;
    loc[0] += c->obj_work[i];
    if (q >= 0 && q < c->P && c->flags[map ? map[q] : q]) loc[1] += c->obj_work[i];
  }
  if (MPI_Allreduce(loc, sums, 2, MPI_DOUBLE, MPI_SUM, c->comm) != MPI_SUCCESS) return ZOLTAN_FATAL;
  *share = sums[0] > 0.0 ? sums[1] / sums[0] : 1.0;
  return ZOLTAN_OK;
}

/*
 * Run the base method with the target sizes so that label p ends with size
 * target[p] and the labels of growing parts cover their objects:
 *  1. run the base method with the target sizes, permuted by guess when
 *     given (the labels of the base parts in the last balance), and find, by maximum
 *     overlap with the growing objects, which of its parts corresponds to
 *     which label (perm); when every part gets a label of its own size, done
 *     (one run: the common case for methods that number parts by position);
 *  2. otherwise run it again with the sizes permuted so that base part q gets the
 *     target size of label perm[q], and relabel the answer by maximum
 *     overlap; if that relabelling gives every part a label of its own size,
 *     done.  Some methods renumber their parts when the sizes change (RIB's
 *     inertial axes flip in sub-domains, GREEDY numbers by load), so step 2
 *     is repeated with the new perm, at most ULBA_RELABEL_ROUNDS times;
 *  3. otherwise keep the last run and relabel it by maximum overlap under the
 *     constraint that a base part and its label have the same size, so that
 *     the sizes are always right even if the growing objects are not all in
 *     the small part.
 * With keep_share > 0 (ULBA_ALPHA=AUTO), step 1 is also a test: when the
 * labels its base parts were meant for hold less than keep_share of the
 * growth, it stops there with c->growth_left = 1 and new_part untouched.
 * Outputs: new_part (labels of the local objects), c->perm (P entries: the
 * label of each part of the last base run), c->run_sizes (P * wd: the sizes
 * of the last base run) and c->info.base_runs.  Collective.
 */
int ulba_run_relabelled(ulba_call *c, double keep_share, int *new_part)
{
  zp_context *ctx = c->ctx;
  const char *base = c->o.base;
  const double *target = c->target;
  const int *guess = c->s->nguess == c->P ? c->s->guess : NULL;
  int n = c->n, wd = c->wd, P = c->P, *perm = c->perm, *runs = &c->info.base_runs;
  double *sizes = c->run_sizes, share = 1.0;
  size_t PP = (size_t)P * (size_t)P;
  int *q = malloc(((size_t)n + 1) * sizeof *q);
  double *loc = malloc(PP * sizeof *loc), *ov = malloc(PP * sizeof *ov);
  int fits = 0;
  int ierr = zp_agree_code(zp_ctx_comm(ctx), (q && loc && ov) ? ZOLTAN_OK : ZOLTAN_MEMERR);
  c->growth_left = 0;
  if (ierr < 0) goto end;
  /* Step 1 runs with the target sizes permuted by the guess (the labels of
   * the base parts in the last balance; the identity at the first): a base
   * method that numbers its parts by position (RCB, HSFC, BLOCK) numbers the
   * same regions alike from one balance to the next, so the relabelling
   * gives every part a label of its own size and one run is enough. */
  for (int k = 0; k < P; k++)
    memcpy(sizes + (size_t)k * wd, target + (size_t)(guess ? guess[k] : k) * wd,
           (size_t)wd * sizeof *sizes);
  *runs = 1;
  ierr = zp_ctx_run_base(ctx, base, sizes, q);
  /* Base part k was meant for label guess[k]: when those labels hold too
   * little of the growth, the caller shrinks alpha without the rounds. */
  if (ierr >= 0 && keep_share > 0.0) ierr = ulba_growth_share_kept(c, q, guess, &share);
  if (ierr >= 0 && share < keep_share) {
    c->growth_left = 1;
    goto end;
  }
  if (ierr >= 0) ierr = match_labels(ctx, q, c->flags, c->obj_work, loc, ov, perm);
  if (ierr >= 0) fits = perm_fits(perm, sizes, target, P, wd);
  for (int round = 0; ierr >= 0 && round < ULBA_RELABEL_ROUNDS && !fits; round++) {
    for (int k = 0; k < P; k++)
      memcpy(sizes + (size_t)k * wd, target + (size_t)perm[k] * wd, (size_t)wd * sizeof *sizes);
    ierr = zp_ctx_run_base(ctx, base, sizes, q);
    ++*runs;
    if (ierr >= 0) ierr = match_labels(ctx, q, c->flags, c->obj_work, loc, ov, perm);
    /* The same matrix on every rank gives the same perm, so fits agrees. */
    if (ierr >= 0) fits = perm_fits(perm, sizes, target, P, wd);
  }
  if (ierr >= 0 && !fits) {
    ierr = match_same_size(P, wd, sizes, target, ov, perm);
    if (ierr >= 0 && zp_ctx_debug_level(ctx) >= 1)
      zp_warn(zp_ctx_where(ctx),
              "ULBA: base method %s renumbers its parts with every size "
              "change; the underloaded size may not hold all of the growing "
              "objects",
              base);
  }
  if (ierr >= 0)
    for (int i = 0; i < n; i++) new_part[i] = (q[i] >= 0 && q[i] < P) ? perm[q[i]] : q[i];
end:
  if (ierr == ZOLTAN_MEMERR) zp_error(zp_ctx_where(ctx), "ULBA: out of memory for %d parts", P);
  free(q);
  free(loc);
  free(ov);
  return ierr;
}

/* Keeps perm (P labels) as the first guess of the next relabelled balance.
 * Collective: when a rank lacks the memory, every rank drops its guess, so
 * that all start the next balance from the identity and agree. */
void ulba_keep_guess(ulba_state *s, MPI_Comm comm, const int *perm, int P)
{
  if (s->nguess != P) {
    free(s->guess);
    s->nguess = 0;
    s->guess = malloc((size_t)P * sizeof *s->guess);
  }
  if (zp_agree_code(comm, s->guess != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR) < 0) {
    free(s->guess);
    s->guess = NULL;
    s->nguess = 0;
    return;
  }
  s->nguess = P;
  memcpy(s->guess, perm, (size_t)P * sizeof *perm);
}
