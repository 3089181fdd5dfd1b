/* SPDX-License-Identifier: BSD-3-Clause */
/* The growth ULBA measures: per-part loads, the per-step rates fitted to the
 * object-load snapshots of the struct's history provider (source 2), and
 * per-object growth since the last balance from the weights recorded then
 * (source 1).  Part of the ULBA Zoltan adapter (ulba_adapter.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <zoltan_dd.h>

#include "ulba_adapter.h"
#include "ulba_core.h"
#include "zp_context.h"
#include "zp_history.h"

/* Number of object-load snapshots the struct's history holds on this rank. */
static long count_snapshots(struct Zoltan_Struct *zz)
{
  zp_object_loads ol;
  long ns = 0;
  /* The provider bounds its window (the trigger keeps at most 1024); the
   * cap only guards against a provider that never says "no more". */
  while (ns < 100000 && zp_history_object_loads(zz, (size_t)ns, &ol) == ZOLTAN_OK) ns++;
  return ns;
}

/* Each local object's load series over the ns snapshots, oldest first:
 * ts/ys[i * ns + k] for k < cnt[i].  Objects are matched by global ID, or
 * by position in snapshots without IDs.  The index by ID (ix, whose gids,
 * n and ngid are set) is sorted only when a snapshot leaves the order of
 * the object list.  Returns ZOLTAN_OK or ZOLTAN_MEMERR. */
static int gather_series(struct Zoltan_Struct *zz, const zp_context *ctx, long ns, double *ts,
                         double *ys, int *cnt)
{
  int n = zp_ctx_num_local(ctx), ngid = zp_ctx_num_gid_entries(ctx);
  const ZOLTAN_ID_TYPE *gids = zp_ctx_local_gids(ctx);
  for (long b = ns - 1; b >= 0; b--) {
    zp_object_loads ol;
    if (zp_history_object_loads(zz, (size_t)b, &ol) != ZOLTAN_OK) continue;
    for (int j = 0; j < ol.num_obj; j++) {
      const ZOLTAN_ID_TYPE *g = ol.gids != NULL ? ol.gids + (size_t)j * ngid : NULL;
      long i;
      if (g == NULL) {
        i = j < n ? j : -1;
      } else if (ol.num_gid_entries != ngid) {
        i = -1;
      } else if (j < n && memcmp(gids + (size_t)j * ngid, g, (size_t)ngid * sizeof *g) == 0) {
        i = j; /* reported in the order of the object list, as usual: no search */
      } else {
        i = zp_ctx_find_local(ctx, g); /* the layer's ID map */
        if (i < -1) return ZOLTAN_MEMERR;
      }
      if (i < 0) continue;
      ts[(size_t)i * ns + cnt[i]] = (double)ol.step;
      ys[(size_t)i * ns + cnt[i]] = ol.loads[j];
      cnt[i]++;
    }
  }
  return ZOLTAN_OK;
}

/* Whether each of the ns snapshots lists exactly the local objects, in the
 * order of the object list (the usual case: the application reports the
 * objects it holds, in its own order).  Each object's series is then the
 * i-th load of every snapshot, and needs neither a copy nor a search.
 * Fills the snapshots' steps t (oldest first) and load arrays y.  Local. */
static int snapshots_in_order(struct Zoltan_Struct *zz, const zp_context *ctx, long ns, double *t,
                              const double **y)
{
  int n = zp_ctx_num_local(ctx), ngid = zp_ctx_num_gid_entries(ctx);
  const ZOLTAN_ID_TYPE *gids = zp_ctx_local_gids(ctx);
  for (long b = ns - 1, k = 0; b >= 0; b--, k++) {
    zp_object_loads ol;
    if (zp_history_object_loads(zz, (size_t)b, &ol) != ZOLTAN_OK || ol.num_obj != n) return 0;
    /* A snapshot without IDs is in the order of the object list by
     * definition (gather_series reads it the same way). */
    if (ol.gids != NULL &&
        (ol.num_gid_entries != ngid ||
         (n > 0 && memcmp(ol.gids, gids, (size_t)n * (size_t)ngid * sizeof *gids) != 0)))
      return 0;
    t[k] = (double)ol.step;
    y[k] = ol.loads;
  }
  return 1;
}

/* The fast form of ulba_history_rates when snapshots_in_order holds: the same
 * series (oldest first) fitted as ulba_slope fits them, object by object in
 * local order, so the rates are those of the general form bit for bit (their
 * sums per part are added run by run, ulba_sum_by_part); the times are the
 * same for every object, so their part of the fit is done once
 * (ulba_slope_basis_init).  Local. */
static void rates_in_order(const zp_context *ctx, long ns, const double *t, const double *const *y,
                           double *local_rate, double *obj_rate)
{
  int n = zp_ctx_num_local(ctx), P = zp_ctx_num_parts(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  ulba_slope_basis basis;
  ulba_slope_basis_init((size_t)ns, t, &basis);
  ulba_slope_fit_series(&basis, (size_t)n, y, obj_rate);
  /* An object outside the parts has no rate, as in the general form. */
  for (int i = 0; i < n; i++)
    if (cur[i] < 0 || cur[i] >= P) obj_rate[i] = NAN;
  ulba_sum_by_part((size_t)n, cur, obj_rate, 1, (size_t)P, local_rate);
}

/*
 * Source (2): per-part rates per step from the object-load snapshots that
 * the struct's history provider (the adaptive trigger) holds since the last
 * balance.  Each local object's slope is fitted over the snapshots that
 * contain it and added to its current part.  Fills local_rate[P] (this
 * rank's contribution) and, when at least two snapshots are held,
 * obj_rate[n] (NaN where an object has fewer than two samples; otherwise
 * obj_rate is left unread by the caller and not written).  Returns
 * ZOLTAN_OK, or ZOLTAN_MEMERR.  *num_snap receives the number of snapshots
 * held.  Not collective.
 */
int ulba_history_rates(const zp_context *ctx, double *local_rate, double *obj_rate, long *num_snap)
{
  struct Zoltan_Struct *zz = zp_ctx_zz(ctx);
  int n = zp_ctx_num_local(ctx), P = zp_ctx_num_parts(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  double *ts = NULL, *ys = NULL;
  const double **yk = NULL;
  int *cnt = NULL, ierr = ZOLTAN_OK;
  long ns = zz != NULL ? count_snapshots(zz) : 0;
  for (int p = 0; p < P; p++) local_rate[p] = 0.0;
  *num_snap = ns;
  if (ns < 2 || n == 0) return ZOLTAN_OK;
  /* First the fast form: ns steps and ns load arrays. */
  ts = malloc((size_t)ns * sizeof *ts);
  yk = malloc((size_t)ns * sizeof *yk);
  if (ts == NULL || yk == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto end;
  }
  if (snapshots_in_order(zz, ctx, ns, ts, yk)) {
    rates_in_order(ctx, ns, ts, yk, local_rate, obj_rate);
    goto end;
  }
  for (int i = 0; i < n; i++) obj_rate[i] = NAN;
  free(ts);
  ts = malloc((size_t)n * (size_t)ns * sizeof *ts);
  ys = malloc((size_t)n * (size_t)ns * sizeof *ys);
  cnt = calloc((size_t)n, sizeof *cnt);
  if (ts == NULL || ys == NULL || cnt == NULL || gather_series(zz, ctx, ns, ts, ys, cnt) < 0) {
    ierr = ZOLTAN_MEMERR;
    goto end;
  }
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    if (cnt[i] < 2 || cur[i] < 0 || cur[i] >= P) continue;
    if (ulba_slope((size_t)cnt[i], ts + (size_t)i * ns, ys + (size_t)i * ns, &s) == ULBA_OK) {
      local_rate[cur[i]] += s;
      obj_rate[i] = s;
    }
  }
end:
  free(ts);
  free(ys);
  free(yk);
  free(cnt);
  return ierr;
}

/* Per-part load of the first weight dimension, summed over the ranks. */
int ulba_part_loads(const zp_context *ctx, const int *part, double *local, double *global)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), P = zp_ctx_num_parts(ctx);
  const double *w = zp_ctx_local_wgts(ctx);
  for (int p = 0; p < P; p++) local[p] = 0.0;
  ulba_sum_by_part((size_t)n, part, w, (size_t)wd, (size_t)P, local);
  return MPI_Allreduce(local, global, P, MPI_DOUBLE, MPI_SUM, zp_ctx_comm(ctx)) == MPI_SUCCESS
             ? ZOLTAN_OK
             : ZOLTAN_FATAL;
}

/* Whether some local object of a growing part (grow[p] != 0) has no rate
 * from the trigger, so that its growth must come from its recorded weight.
 * Objects of the other parts never count in the overlap.  Local. */
static int needs_recorded_weights(const zp_context *ctx, const int *grow, const double *obj_rate)
{
  int n = zp_ctx_num_local(ctx), P = zp_ctx_num_parts(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  for (int i = 0; i < n; i++)
    if (cur[i] >= 0 && cur[i] < P && grow[cur[i]] && (obj_rate == NULL || isnan(obj_rate[i])))
      return 1;
  return 0;
}

/*
 * The weight of each local object at the last balance, prev[i], through a
 * distributed directory built from every rank's record of that balance
 * (prev_gids, prev_w) and destroyed again; owner[i] is -1 for an object no
 * rank recorded (a new one).  Collective.  Returns ZOLTAN_OK, or ZOLTAN_WARN
 * on every rank when the directory could not be built, which loses the
 * object-level growth of this balance only, as a failure to record did
 * before.
 */
static int recorded_weights(const ulba_state *s, const zp_context *ctx, double *prev, int *owner)
{
  MPI_Comm comm = zp_ctx_comm(ctx);
  int n = zp_ctx_num_local(ctx);
  Zoltan_DD_Directory *dd = NULL;
  int ok = zp_agree_code(comm, Zoltan_DD_Create(&dd, comm, s->prev_ngid, 0, (int)sizeof(double), 0,
                                                0) == ZOLTAN_OK
                                   ? ZOLTAN_OK
                                   : ZOLTAN_FATAL) == ZOLTAN_OK;
  if (ok)
    ok = zp_agree_code(comm, Zoltan_DD_Update(dd, s->prev_gids, NULL, (char *)s->prev_w, NULL,
                                              s->prev_n) == ZOLTAN_OK
                                 ? ZOLTAN_OK
                                 : ZOLTAN_FATAL) == ZOLTAN_OK;
  for (int i = 0; i < n; i++) {
    prev[i] = NAN;
    owner[i] = -1;
  }
  /* Objects the directory does not hold (new ones) keep NaN. */
  if (ok && Zoltan_DD_Find(dd, (ZOLTAN_ID_PTR)zp_ctx_local_gids(ctx), NULL, (char *)prev, NULL, n,
                           owner) < 0)
    for (int i = 0; i < n; i++) prev[i] = NAN;
  if (dd != NULL) Zoltan_DD_Destroy(&dd);
  return ok ? ZOLTAN_OK : ZOLTAN_WARN;
}

/*
 * Per-object growth for the relabelling, gw[i] >= 0: the object's rate from
 * the trigger (source 2) when known, else its weight now minus its weight at
 * the last balance (recorded_weights, source 1).  When no object of a
 * growing part has a known positive growth on any rank (first ULBA balance
 * of a copied struct, or objects renamed), every object of a growing part
 * counts with its weight: the per-part rate is all we know.  Only the
 * objects of growing parts are read by the overlap, so the recorded weights
 * are looked up only when one of them has no rate.  *known_growth is 1 when
 * some growth was known (gw holds growth, not weights).  Collective.
 */
int ulba_object_growth(ulba_state *s, const zp_context *ctx, const int *grow,
                       const double *obj_rate, double *gw, int *known_growth)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), ngid = zp_ctx_num_gid_entries(ctx);
  MPI_Comm comm = zp_ctx_comm(ctx);
  const double *w = zp_ctx_local_wgts(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  double *prev = NULL, known = 0.0, all_known = 0.0;
  int *owner = NULL, ierr = ZOLTAN_OK, P = zp_ctx_num_parts(ctx), need = 0, any_need = 0;
  *known_growth = 0;
  for (int i = 0; i < n; i++) gw[i] = 0.0;
  /* prev_ngid is the same on every rank, so every rank takes part in the
   * reduction or none does. */
  if (s->prev_ngid > 0 && s->prev_ngid == ngid) {
    need = needs_recorded_weights(ctx, grow, obj_rate);
    if (MPI_Allreduce(&need, &any_need, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
      return ZOLTAN_FATAL;
  }
  if (any_need) {
    prev = malloc(((size_t)n + 1) * sizeof *prev);
    owner = malloc(((size_t)n + 1) * sizeof *owner);
    ierr = zp_agree_code(comm, (prev && owner) ? ZOLTAN_OK : ZOLTAN_MEMERR);
    if (ierr < 0) goto end;
    if (recorded_weights(s, ctx, prev, owner) != ZOLTAN_OK) {
      free(prev);
      prev = NULL;
    }
  }
  for (int i = 0; i < n; i++) {
    double g = NAN;
    if (obj_rate != NULL && !isnan(obj_rate[i]))
      g = obj_rate[i];
    else if (prev != NULL && owner[i] >= 0 && !isnan(prev[i]))
      g = w[(size_t)i * wd] - prev[i];
    gw[i] = (isnan(g) || g < 0.0) ? 0.0 : g;
    if (cur[i] >= 0 && cur[i] < P && grow[cur[i]]) known += gw[i];
  }
  if (MPI_Allreduce(&known, &all_known, 1, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) {
    ierr = ZOLTAN_FATAL;
    goto end;
  }
  *known_growth = all_known > 0.0;
  if (!(all_known > 0.0))
    for (int i = 0; i < n; i++) gw[i] = w[(size_t)i * wd];
end:
  free(prev);
  free(owner);
  return ierr;
}

/* Forget the recorded weights (a balance on anticipated weights has the
 * rates themselves and records none).  Not collective: every rank does it
 * at the same point. */
void ulba_forget_weights(ulba_state *s)
{
  free(s->prev_gids);
  free(s->prev_w);
  s->prev_gids = NULL;
  s->prev_w = NULL;
  s->prev_n = s->prev_ngid = 0;
  s->prev_cap = s->prev_id_cap = 0;
}

/* Record every local object's ID and weight for the next balance (see
 * prev_gids in ulba_state): a copy into arrays kept between calls, without
 * communication.  Collective: a rank without the memory makes every rank
 * forget, which only loses the object-level growth of one call. */
void ulba_remember_weights(ulba_state *s, const zp_context *ctx)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), ngid = zp_ctx_num_gid_entries(ctx);
  const double *w = zp_ctx_local_wgts(ctx);
  size_t nid = (size_t)n * (size_t)ngid;
  int ok = 1;
  if (s->prev_cap < (size_t)n + 1) {
    double *pw = realloc(s->prev_w, ((size_t)n + 1) * sizeof *pw);
    if (pw != NULL) {
      s->prev_w = pw;
      s->prev_cap = (size_t)n + 1;
    }
    ok = pw != NULL;
  }
  if (ok && s->prev_id_cap < nid + 1) {
    ZOLTAN_ID_TYPE *pg = realloc(s->prev_gids, (nid + 1) * sizeof *pg);
    if (pg != NULL) {
      s->prev_gids = pg;
      s->prev_id_cap = nid + 1;
    }
    ok = pg != NULL;
  }
  if (zp_agree_code(zp_ctx_comm(ctx), ok ? ZOLTAN_OK : ZOLTAN_MEMERR) != ZOLTAN_OK) {
    ulba_forget_weights(s);
    return;
  }
  memcpy(s->prev_gids, zp_ctx_local_gids(ctx), nid * sizeof *s->prev_gids);
  for (int i = 0; i < n; i++) s->prev_w[i] = w[(size_t)i * wd];
  s->prev_n = n;
  s->prev_ngid = ngid;
}

/* The loads before repartitioning, the rates of the struct's history and
 * the agreement on them, in two reductions in flight together (each
 * collective is a latency that every call pays; three took three): the loads by current part (P), the rates by part
 * (P), the weights and rates of the objects with a known rate (2, for
 * ULBA_GROWTH=OBJECT), then the largest -code (the worst error), code (the
 * strongest warning), -snapshots (the fewest) and step times (the most).
 * The increase since the last balance (load now minus load right after the
 * last balance, per label) goes into the state's ring.  Collective
 * (ulba_adapter.h). */
int ulba_measure_loads(ulba_call *c)
{
  ulba_state *s = c->s;
  struct Zoltan_Struct *zz = zp_ctx_zz(c->ctx);
  int P = c->P, sums = 2 * P + 2, len = sums + ULBA_MAX_TAIL, ierr, rc;
  double *in = c->fused, *out = c->fused + len;
  const double *w = zp_ctx_local_wgts(c->ctx);
  long nsnap = 0;
  for (int k = 0; k < sums; k++) in[k] = 0.0;
  ulba_sum_by_part((size_t)c->n, zp_ctx_local_parts(c->ctx), w, (size_t)c->wd, (size_t)P, in);
  /* A rank without a provider holds no snapshot, so source (1) is used
   * everywhere (find_rates). */
  ierr = ulba_history_rates(c->ctx, in + P, c->obj_rate, &nsnap);
  if (ierr >= 0 && c->o.growth_object && nsnap >= 2)
    ulba_known_sums((size_t)c->n, w, (size_t)c->wd, c->obj_rate, in + 2 * P);
  in[sums] = -ierr;
  in[sums + 1] = ierr;
  in[sums + 2] = -(double)nsnap;
  in[sums + 3] = (double)zp_history_step_times(zz, NULL, 0);
  /* The sums and the maxima travel together (zp_allreduce_sum_max). */
  rc = zp_allreduce_sum_max(c->comm, in, out, sums, in + sums, out + sums, ULBA_MAX_TAIL);
  if (rc != MPI_SUCCESS) return ZOLTAN_FATAL;
  if (out[sums] > 0.0) return (int)-out[sums];
  c->min_snap = (long)-out[sums + 2];
  c->steps_max = (long)out[sums + 3];
  memcpy(c->before, out, (size_t)P * sizeof *out);
  memcpy(c->wir, out + P, (size_t)P * sizeof *out);
  c->known[0] = out[2 * P];
  c->known[1] = out[2 * P + 1];
  c->info.P = P;
  for (int p = 0; p < P; p++) c->info.W += c->before[p];
  if (s->have_after) {
    double *slot = s->incr + (size_t)s->head * P;
    for (int p = 0; p < P; p++) slot[p] = c->before[p] - s->after[p];
    s->head = (s->head + 1) % s->cap;
    if (s->len < s->cap) s->len++;
  }
  return ZOLTAN_OK;
}
