/* SPDX-License-Identifier: BSD-3-Clause */
/* LB_METHOD=ULBA: measure the workload increase rate of every part, give the
 * overloading parts the smaller size of Eq. (6), run the base method with
 * those sizes and relabel its parts so that the small size lands on the
 * growing objects.  Design notes: ulba/README.md, "The Zoltan adapter". */
#include "ulba_zoltan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <zoltan_dd.h>

#include "adaptive_trigger.h"
#include "ulba_core.h"
#include "zp_context.h"
#include "zp_hooks.h"
#include "zp_internal.h"
#include "zp_method.h"

/* Largest ULBA_ALPHA=AUTO may choose: alpha close to 1 empties the
 * overloading parts, which the model allows but no application wants. */
#define ULBA_AUTO_ALPHA_MAX 0.9

/* Rate differences below this fraction of the average part load per
 * iteration are noise (ulba/README.md, "Which parts overload"). */
#define ULBA_MIN_EXCESS_FRACTION 1e-3

/* Weight of the objects that do not grow in the relabelling overlap: small,
 * so that the growing objects decide, but positive, so that the other
 * labels stay where most of their objects already are. */
#define ULBA_KEEP_WEIGHT 1e-3

/* Base-method runs with permuted sizes before the relabelling gives up on an
 * unconstrained fit (run_relabelled). */
#define ULBA_RELABEL_ROUNDS 3

static const char *const ulba_auto_words[] = {"AUTO", NULL};

static const zp_param_def ulba_params[] = {
    {"ULBA_ALPHA", ZP_PARAM_DOUBLE, "0.4", 0.0, 1.0, ZP_PARAM_MAX_OPEN, ulba_auto_words,
     "fraction of the average load W/P taken off each overloading part; AUTO = "
     "minimise the model's predicted time at each balance"},
    {"ULBA_BASE_METHOD", ZP_PARAM_STRING, "RCB", 0.0, 0.0, 0, NULL,
     "method that partitions with ULBA's part sizes: a native Zoltan method "
     "(RCB, RIB, HSFC, PHG, GRAPH, ...) or a centralised plugin method (GREEDY, "
     "REFINE, GREEDYREFINE)"},
    {"ULBA_ZSCORE_THRESHOLD", ZP_PARAM_DOUBLE, "3.0", 0.0, 0.0,
     ZP_PARAM_MIN_OPEN | ZP_PARAM_NO_MAX, NULL,
     "a part overloads when the robust score of its increase rate exceeds this"},
    {"ULBA_HISTORY", ZP_PARAM_INT, "4", 1.0, 1000.0, 0, NULL,
     "number of past balancing intervals averaged into a part's increase rate "
     "(weights source)"},
    {"ULBA_RELABEL", ZP_PARAM_INT, "1", 0.0, 1.0, 0, NULL,
     "1: renumber the base method's parts so that the underloaded size goes to "
     "the part holding the growing objects; 0: use the base numbering"},
    {"ULBA_LB_COST", ZP_PARAM_DOUBLE, "0", 0.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "cost of one balance in object-weight units, for ULBA_ALPHA=AUTO when no "
     "adaptive trigger measures it (0 = free, AUTO then picks alpha 0)"},
};

/* Per-Zoltan_Struct state: the load history of the parts between calls. */
typedef struct ulba_state {
  struct Zoltan_Struct *zz; /* the struct last balanced with this state, for ulba_last_model */
  struct ulba_state *next;  /* next state in the list searched by ulba_last_model */
  int nparts;               /* number of parts of the arrays below (0 = no history) */
  int cap;                  /* ULBA_HISTORY the ring was made for */
  int len;                  /* intervals held in the ring (<= cap) */
  int head;                 /* ring slot of the next interval */
  double *incr;             /* cap * nparts: load increase of each part per interval */
  double *after;            /* nparts: load of each part right after the last balance */
  int have_after;           /* after[] holds the result of a previous balance */
  ulba_model_info info;     /* quantities of the last balance */
  Zoltan_DD_Directory *dd;  /* weight of every object at the last balance, by GID */
  int dd_ngid;              /* GID length of dd */
} ulba_state;

/* All live states, so that ulba_last_model can find a struct's state. */
static ulba_state *ulba_states;

static void state_unlink(ulba_state *s)
{
  ulba_state **pp = &ulba_states;
  while (*pp != NULL && *pp != s) pp = &(*pp)->next;
  if (*pp == s) *pp = s->next;
  s->next = NULL;
}

static void state_clear_history(ulba_state *s)
{
  free(s->incr);
  free(s->after);
  s->incr = NULL;
  s->after = NULL;
  s->nparts = s->cap = s->len = s->head = s->have_after = 0;
}

static int ulba_create(void **out)
{
  ulba_state *s = calloc(1, sizeof *s);
  if (s == NULL) return ZOLTAN_MEMERR;
  s->info.small_part = -1;
  *out = s;
  return ZOLTAN_OK;
}

static void ulba_destroy(void *p)
{
  ulba_state *s = p;
  if (s == NULL) return;
  state_unlink(s);
  state_clear_history(s);
  if (s->dd != NULL) Zoltan_DD_Destroy(&s->dd);
  free(s);
}

/* A copy keeps the per-part history: the copied struct continues the same
 * run.  It is linked to its own struct at its first balance.  The object
 * directory is not copied (a copy is not collective), so the copy's first
 * balance relabels with the per-part rates only. */
static int ulba_copy(void **dst, const void *src)
{
  const ulba_state *s = src;
  ulba_state *d = calloc(1, sizeof *d);
  size_t np = (size_t)s->nparts;
  if (d == NULL) return ZOLTAN_MEMERR;
  d->info = s->info;
  if (np > 0) {
    d->incr = malloc((size_t)s->cap * np * sizeof *d->incr);
    d->after = malloc(np * sizeof *d->after);
    if (d->incr == NULL || d->after == NULL) {
      state_clear_history(d);
      free(d);
      return ZOLTAN_MEMERR;
    }
    memcpy(d->incr, s->incr, (size_t)s->cap * np * sizeof *d->incr);
    memcpy(d->after, s->after, np * sizeof *d->after);
    d->nparts = s->nparts;
    d->cap = s->cap;
    d->len = s->len;
    d->head = s->head;
    d->have_after = s->have_after;
  }
  *dst = d;
  return ZOLTAN_OK;
}

/* The same code on every rank: the worst (smallest) of the ranks' codes. */
static int agree(MPI_Comm comm, int ierr)
{
  int all = ierr;
  if (MPI_Allreduce(&ierr, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return ZOLTAN_FATAL;
  return all;
}

/* The parameters of one call. */
typedef struct ulba_options {
  double alpha;     /* ULBA_ALPHA, ignored when alpha_auto */
  int alpha_auto;   /* ULBA_ALPHA=AUTO */
  const char *base; /* ULBA_BASE_METHOD, upper case */
  double threshold; /* ULBA_ZSCORE_THRESHOLD */
  int history;      /* ULBA_HISTORY */
  int relabel;      /* ULBA_RELABEL */
  double lb_cost;   /* ULBA_LB_COST, weight units */
} ulba_options;

static int read_options(const zp_context *ctx, ulba_options *o)
{
  const zp_params *p = zp_ctx_params(ctx);
  const char *yo = zp_ctx_where(ctx);
  const zp_method *m;
  if (zp_param_double(p, "ULBA_ALPHA", &o->alpha, &o->alpha_auto) != ZOLTAN_OK ||
      zp_param_string(p, "ULBA_BASE_METHOD", &o->base) != ZOLTAN_OK ||
      zp_param_double(p, "ULBA_ZSCORE_THRESHOLD", &o->threshold, NULL) != ZOLTAN_OK ||
      zp_param_int(p, "ULBA_HISTORY", &o->history, NULL) != ZOLTAN_OK ||
      zp_param_int(p, "ULBA_RELABEL", &o->relabel, NULL) != ZOLTAN_OK ||
      zp_param_double(p, "ULBA_LB_COST", &o->lb_cost, NULL) != ZOLTAN_OK)
    return ZOLTAN_FATAL;
  /* The registry checks ranges when the value is set; the base method can
   * only be checked against the registry here, when it is used. */
  if (strcmp(o->base, "ULBA") == 0) {
    zp_error(yo, "ULBA: ULBA_BASE_METHOD = %s: ULBA cannot be its own base method", o->base);
    return ZOLTAN_FATAL;
  }
  m = zp_find_method(o->base);
  if (m != NULL ? m->partition_serial == NULL
                : (!zp_is_native_method(o->base) || strcmp(o->base, "NONE") == 0)) {
    zp_error(yo,
             "ULBA: ULBA_BASE_METHOD = %s is not a known base method (a native Zoltan "
             "method such as RCB, RIB, HSFC, PHG, GRAPH, or a centralised plugin method "
             "such as GREEDY)",
             o->base);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* Sort key of a local object by global ID, for matching trigger snapshots. */
typedef struct gid_key {
  const ZOLTAN_ID_TYPE *gid; /* the object's global ID */
  int ngid;                  /* entries per ID */
  int idx;                   /* local index */
} gid_key;

static int gid_cmp_n(const ZOLTAN_ID_TYPE *a, const ZOLTAN_ID_TYPE *b, int n)
{
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

static int gid_key_cmp(const void *pa, const void *pb)
{
  const gid_key *a = pa, *b = pb;
  return gid_cmp_n(a->gid, b->gid, a->ngid);
}

static int find_gid(const gid_key *keys, int n, const ZOLTAN_ID_TYPE *gid, int ngid)
{
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, c = gid_cmp_n(keys[mid].gid, gid, ngid);
    if (c == 0) return keys[mid].idx;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/*
 * Source (2): per-part rates per step from the object snapshots the attached
 * adaptive trigger holds since the last balance.  Each local object's slope
 * is fitted over the snapshots that contain it and added to its current part.
 * Fills local_rate[P] (this rank's contribution) and obj_rate[n] (NaN where
 * an object has fewer than two samples); returns ZOLTAN_OK, or
 * ZOLTAN_MEMERR.  *num_snap receives the number of snapshots held.
 */
static int trigger_rates(const adaptive_trigger *t, const zp_context *ctx, double *local_rate,
                         double *obj_rate, long *num_snap)
{
  int n = zp_ctx_num_local(ctx), ngid = zp_ctx_num_gid_entries(ctx), P = zp_ctx_num_parts(ctx);
  const ZOLTAN_ID_TYPE *gids = zp_ctx_local_gids(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  gid_key *keys = NULL;
  double *ts = NULL, *ys = NULL;
  int *cnt = NULL, ierr = ZOLTAN_OK;
  long ns = 0;
  for (int p = 0; p < P; p++) local_rate[p] = 0.0;
  for (int i = 0; i < n; i++) obj_rate[i] = NAN;
  while (ns < 100000) {
    long step;
    int no, ng;
    const ZOLTAN_ID_TYPE *g;
    const double *l;
    if (adaptive_object_history(t, (size_t)ns, &step, &no, &ng, &g, &l) != ZOLTAN_OK) break;
    ns++;
  }
  *num_snap = ns;
  if (ns < 2 || n == 0) goto end;
  keys = malloc((size_t)n * sizeof *keys);
  ts = malloc((size_t)n * (size_t)ns * sizeof *ts);
  ys = malloc((size_t)n * (size_t)ns * sizeof *ys);
  cnt = calloc((size_t)n, sizeof *cnt);
  if (keys == NULL || ts == NULL || ys == NULL || cnt == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto end;
  }
  for (int i = 0; i < n; i++) {
    keys[i].gid = gids + (size_t)i * ngid;
    keys[i].ngid = ngid;
    keys[i].idx = i;
  }
  qsort(keys, (size_t)n, sizeof *keys, gid_key_cmp);
  /* Oldest snapshot first, so that each object's series is in time order. */
  for (long b = ns - 1; b >= 0; b--) {
    long step;
    int no, ng;
    const ZOLTAN_ID_TYPE *g;
    const double *l;
    if (adaptive_object_history(t, (size_t)b, &step, &no, &ng, &g, &l) != ZOLTAN_OK) continue;
    for (int j = 0; j < no; j++) {
      /* Snapshots without IDs are matched by position. */
      int i = g == NULL ? (j < n ? j : -1)
                        : (ng == ngid ? find_gid(keys, n, g + (size_t)j * ng, ngid) : -1);
      if (i < 0) continue;
      ts[(size_t)i * ns + cnt[i]] = (double)step;
      ys[(size_t)i * ns + cnt[i]] = l[j];
      cnt[i]++;
    }
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
  free(keys);
  free(ts);
  free(ys);
  free(cnt);
  return ierr;
}

/* Make the ring fit P parts and `cap` intervals; a change forgets the past. */
static int state_fit(ulba_state *s, int P, int cap)
{
  if (s->nparts == P && s->cap == cap) return ZOLTAN_OK;
  state_clear_history(s);
  s->incr = calloc((size_t)cap * (size_t)P, sizeof *s->incr);
  s->after = calloc((size_t)P, sizeof *s->after);
  if (s->incr == NULL || s->after == NULL) {
    state_clear_history(s);
    return ZOLTAN_MEMERR;
  }
  s->nparts = P;
  s->cap = cap;
  return ZOLTAN_OK;
}

/* Per-part load of the first weight dimension, summed over the ranks. */
static int part_loads(const zp_context *ctx, const int *part, double *local, double *global)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), P = zp_ctx_num_parts(ctx);
  const double *w = zp_ctx_local_wgts(ctx);
  for (int p = 0; p < P; p++) local[p] = 0.0;
  for (int i = 0; i < n; i++)
    if (part[i] >= 0 && part[i] < P) local[part[i]] += w[(size_t)i * wd];
  return MPI_Allreduce(local, global, P, MPI_DOUBLE, MPI_SUM, zp_ctx_comm(ctx)) == MPI_SUCCESS
             ? ZOLTAN_OK
             : ZOLTAN_FATAL;
}

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
  return MPI_Allreduce(local, global, (int)PP, MPI_DOUBLE, MPI_SUM, zp_ctx_comm(ctx)) ==
                 MPI_SUCCESS
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

/*
 * Per-object growth for the relabelling, gw[i] >= 0: the object's rate from
 * the trigger (source 2) when known, else its weight now minus its weight at
 * the last balance, found in the distributed directory (source 1).  When no
 * object of a growing part has a known positive growth on any rank (first
 * ULBA balance of a copied struct, or objects renamed), every object of a
 * growing part counts with its weight: the per-part rate is all we know.
 * Collective.
 */
static int object_growth(ulba_state *s, const zp_context *ctx, const int *grow,
                         const double *obj_rate, double *gw)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), ngid = zp_ctx_num_gid_entries(ctx);
  const double *w = zp_ctx_local_wgts(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  double *prev = NULL, known = 0.0, all_known = 0.0;
  int *owner = NULL, ierr = ZOLTAN_OK, P = zp_ctx_num_parts(ctx);
  for (int i = 0; i < n; i++) gw[i] = 0.0;
  if (s->dd != NULL && s->dd_ngid == ngid) {
    prev = malloc(((size_t)n + 1) * sizeof *prev);
    owner = malloc(((size_t)n + 1) * sizeof *owner);
    ierr = agree(zp_ctx_comm(ctx), (prev && owner) ? ZOLTAN_OK : ZOLTAN_MEMERR);
    if (ierr < 0) goto end;
    for (int i = 0; i < n; i++) {
      prev[i] = NAN;
      owner[i] = -1;
    }
    /* Objects the directory does not hold (new ones) keep NaN. */
    if (Zoltan_DD_Find(s->dd, (ZOLTAN_ID_PTR)zp_ctx_local_gids(ctx), NULL, (char *)prev, NULL,
                       n, owner) < 0)
      for (int i = 0; i < n; i++) prev[i] = NAN;
  }
  for (int i = 0; i < n; i++) {
    double g = NAN;
    if (obj_rate != NULL && !isnan(obj_rate[i])) g = obj_rate[i];
    else if (prev != NULL && owner[i] >= 0 && !isnan(prev[i])) g = w[(size_t)i * wd] - prev[i];
    gw[i] = (isnan(g) || g < 0.0) ? 0.0 : g;
    if (cur[i] >= 0 && cur[i] < P && grow[cur[i]]) known += gw[i];
  }
  if (MPI_Allreduce(&known, &all_known, 1, MPI_DOUBLE, MPI_SUM, zp_ctx_comm(ctx)) != MPI_SUCCESS) {
    ierr = ZOLTAN_FATAL;
    goto end;
  }
  if (!(all_known > 0.0))
    for (int i = 0; i < n; i++) gw[i] = w[(size_t)i * wd];
end:
  free(prev);
  free(owner);
  return ierr;
}

/* Record every local object's weight by GID for the next balance.
 * Collective.  A failure only loses the object-level growth of one call. */
static void remember_weights(ulba_state *s, const zp_context *ctx)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), ngid = zp_ctx_num_gid_entries(ctx);
  const double *w = zp_ctx_local_wgts(ctx);
  double *w0 = malloc(((size_t)n + 1) * sizeof *w0);
  int ok;
  if (s->dd != NULL) Zoltan_DD_Destroy(&s->dd);
  ok = agree(zp_ctx_comm(ctx), w0 != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR) == ZOLTAN_OK;
  if (ok)
    ok = agree(zp_ctx_comm(ctx), Zoltan_DD_Create(&s->dd, zp_ctx_comm(ctx), ngid, 0,
                                                  (int)sizeof(double), 0, 0) == ZOLTAN_OK
                                     ? ZOLTAN_OK
                                     : ZOLTAN_FATAL) == ZOLTAN_OK;
  if (ok) {
    for (int i = 0; i < n; i++) w0[i] = w[(size_t)i * wd];
    ok = agree(zp_ctx_comm(ctx), Zoltan_DD_Update(s->dd, (ZOLTAN_ID_PTR)zp_ctx_local_gids(ctx),
                                                  NULL, (char *)w0, NULL, n) == ZOLTAN_OK
                                     ? ZOLTAN_OK
                                     : ZOLTAN_FATAL) == ZOLTAN_OK;
  }
  if (!ok && s->dd != NULL) Zoltan_DD_Destroy(&s->dd);
  s->dd_ngid = ok ? ngid : 0;
  free(w0);
}

/* Whether perm gives every base part q (with sizes[q]) a label of the same
 * target size. */
static int perm_fits(const int *perm, const double *sizes, const double *target, int P, int wd)
{
  for (int k = 0; k < P; k++)
    if (!same_size(sizes + (size_t)k * wd, target + (size_t)perm[k] * wd, wd)) return 0;
  return 1;
}

/*
 * Run the base method with the target sizes so that label p ends with size
 * target[p] and the labels of growing parts cover their objects:
 *  1. run the base method with the application's sizes and find, by maximum
 *     overlap with the growing objects, which of its parts corresponds to
 *     which label (perm);
 *  2. run it again with the sizes permuted so that base part q gets the
 *     target size of label perm[q], and relabel the answer by maximum
 *     overlap; if that relabelling gives every part a label of its own size,
 *     done.  Some methods renumber their parts when the sizes change (RIB's
 *     inertial axes flip in sub-domains, GREEDY numbers by load), so step 2
 *     is repeated with the new perm, at most ULBA_RELABEL_ROUNDS times;
 *  3. otherwise keep the last run and relabel it by maximum overlap under the
 *     constraint that a base part and its label have the same size, so that
 *     the sizes are always right even if the growing objects are not all in
 *     the small part.
 */
static int run_relabelled(zp_context *ctx, const char *base, const double *app_sizes,
                          const double *target, const int *grow, const double *gw, int *new_part,
                          int *small_part)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), P = zp_ctx_num_parts(ctx);
  const char *yo = zp_ctx_where(ctx);
  size_t PP = (size_t)P * (size_t)P;
  int *q = malloc(((size_t)n + 1) * sizeof *q);
  int *perm = malloc((size_t)P * sizeof *perm);
  double *loc = malloc(PP * sizeof *loc), *ov = malloc(PP * sizeof *ov);
  double *sizes2 = malloc((size_t)P * wd * sizeof *sizes2);
  double big = 0.0;
  int fits = 0;
  int ierr = agree(zp_ctx_comm(ctx),
                   (q && perm && loc && ov && sizes2) ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr < 0) goto end;
  ierr = zp_ctx_run_base(ctx, base, app_sizes, q);
  if (ierr < 0) goto end;
  ierr = overlap_matrix(ctx, q, grow, gw, loc, ov);
  if (ierr < 0) goto end;
  if (ulba_relabel((size_t)P, ov, ULBA_RELABEL_AUTO, perm, NULL) != ULBA_OK) {
    ierr = ZOLTAN_MEMERR;
    goto end;
  }
  for (int round = 0; round < ULBA_RELABEL_ROUNDS && !fits; round++) {
    for (int k = 0; k < P; k++)
      memcpy(sizes2 + (size_t)k * wd, target + (size_t)perm[k] * wd, (size_t)wd * sizeof *sizes2);
    ierr = zp_ctx_run_base(ctx, base, sizes2, q);
    if (ierr < 0) goto end;
    ierr = overlap_matrix(ctx, q, grow, gw, loc, ov);
    if (ierr < 0) goto end;
    if (ulba_relabel((size_t)P, ov, ULBA_RELABEL_AUTO, perm, NULL) != ULBA_OK) {
      ierr = ZOLTAN_MEMERR;
      goto end;
    }
    /* The same matrix on every rank gives the same perm, so fits agrees. */
    fits = perm_fits(perm, sizes2, target, P, wd);
  }
  if (!fits) {
    for (size_t k = 0; k < PP; k++) big += fabs(ov[k]);
    big = 2.0 * big + 1.0;
    /* A pair of different sizes is made worse than any feasible assignment;
     * the permutation the sizes were made from is feasible, so the optimum
     * never uses such a pair. */
    for (int a = 0; a < P; a++)
      for (int b = 0; b < P; b++)
        if (!same_size(sizes2 + (size_t)a * wd, target + (size_t)b * wd, wd))
          ov[(size_t)a * P + b] = -big;
    if (ulba_relabel((size_t)P, ov, ULBA_RELABEL_AUTO, perm, NULL) != ULBA_OK) {
      ierr = ZOLTAN_MEMERR;
      goto end;
    }
    if (zp_ctx_debug_level(ctx) >= 1)
      zp_warn(yo, "ULBA: base method %s renumbers its parts with every size change; the "
                  "underloaded size may not hold all of the growing objects", base);
  }
  for (int i = 0; i < n; i++) new_part[i] = (q[i] >= 0 && q[i] < P) ? perm[q[i]] : q[i];
  *small_part = -1;
  for (int k = 0; k < P && *small_part < 0; k++)
    if (grow[k]) *small_part = k;
end:
  if (ierr == ZOLTAN_MEMERR) zp_error(yo, "ULBA: out of memory for %d parts", P);
  free(q);
  free(perm);
  free(loc);
  free(ov);
  free(sizes2);
  return ierr;
}

/* Registry of states by struct, for ulba_last_model. */
static void state_link(ulba_state *s, struct Zoltan_Struct *zz)
{
  if (s->zz == zz && s->zz != NULL) {
    ulba_state *it = ulba_states;
    while (it != NULL && it != s) it = it->next;
    if (it == s) return;
  }
  state_unlink(s);
  /* Another state may still name zz after a method change: it loses it. */
  for (ulba_state *it = ulba_states; it != NULL; it = it->next)
    if (it->zz == zz) it->zz = NULL;
  s->zz = zz;
  s->next = ulba_states;
  ulba_states = s;
}

/* Fill the model quantities of info from its P, N, a, m, W, C, omega. */
static void summarize(ulba_model_info *info)
{
  ulba_model mo;
  ulba_summary su;
  info->sigma_minus = info->sigma_plus = info->tau = NAN;
  if (info->source == ULBA_SOURCE_NONE) return;
  mo.P = info->P;
  mo.N = info->N;
  mo.a = info->a;
  mo.m = info->m;
  mo.W = info->W;
  mo.C = isnan(info->C) ? 0.0 : info->C;
  mo.omega = info->omega;
  if (ulba_model_check(&mo) != ULBA_OK) return;
  if (ulba_summarize(&mo, info->alpha_param, &su) != ULBA_OK) return;
  info->sigma_minus = su.sigma_minus;
  info->sigma_plus = su.sigma_plus;
  info->tau = su.tau;
}

/* Choose alpha for ULBA_ALPHA=AUTO from the model of info (0 if undefined). */
static double auto_alpha(const ulba_model_info *info)
{
  ulba_model mo;
  double alpha = 0.0;
  mo.P = info->P;
  mo.N = info->N;
  mo.a = info->a;
  mo.m = info->m;
  mo.W = info->W;
  mo.C = isnan(info->C) ? 0.0 : info->C;
  mo.omega = info->omega;
  if (ulba_model_check(&mo) != ULBA_OK ||
      ulba_auto_alpha(&mo, 0, ULBA_AUTO_ALPHA_MAX, &alpha, NULL) != ULBA_OK)
    return 0.0;
  return alpha;
}

/* The trigger's estimate of omega: average part load over average step time. */
static double trigger_omega(const adaptive_trigger *t, double load_per_part)
{
  adaptive_record rec[64];
  long nrec = adaptive_history(t, rec, 64);
  double sum = 0.0;
  long k, used = 0;
  if (nrec > 64) nrec = 64;
  for (k = 0; k < nrec; k++)
    if (rec[k].t_avg > 0.0) {
      sum += rec[k].t_avg;
      used++;
    }
  if (used == 0 || sum <= 0.0 || load_per_part <= 0.0) return NAN;
  return load_per_part / (sum / (double)used);
}

static int ulba_partition(zp_context *ctx, void *state_ptr, int *new_part)
{
  ulba_state *s = state_ptr;
  MPI_Comm comm = zp_ctx_comm(ctx);
  struct Zoltan_Struct *zz = zp_ctx_zz(ctx);
  const char *yo = zp_ctx_where(ctx);
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), P = zp_ctx_num_parts(ctx);
  const double *app_sizes = zp_ctx_part_sizes(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  ulba_options o;
  ulba_model_info info;
  adaptive_trigger *trig;
  double *loc = NULL, *before = NULL, *wir = NULL, *target = NULL, *col = NULL, *colout = NULL;
  double *obj_rate = NULL, *gw = NULL;
  int *flags = NULL, rank = 0, ierr, use_obj_rate = 0;
  long nsnap = 0, min_snap = 0;
  size_t N = 0;

  memset(&info, 0, sizeof info);
  info.small_part = -1;
  info.C = NAN;
  info.omega = 1.0;
  MPI_Comm_rank(comm, &rank);
  ierr = agree(comm, read_options(ctx, &o));
  if (ierr < 0) goto end;
  loc = malloc(((size_t)P + 1) * sizeof *loc);
  before = malloc(((size_t)P + 1) * sizeof *before);
  wir = malloc(((size_t)P + 1) * sizeof *wir);
  target = malloc(((size_t)P * wd + 1) * sizeof *target);
  col = malloc(((size_t)P + 1) * sizeof *col);
  colout = malloc(((size_t)P + 1) * sizeof *colout);
  flags = calloc((size_t)P + 1, sizeof *flags);
  obj_rate = malloc(((size_t)n + 1) * sizeof *obj_rate);
  gw = malloc(((size_t)n + 1) * sizeof *gw);
  ierr = agree(comm, (loc && before && wir && target && col && colout && flags && obj_rate && gw)
                         ? ZOLTAN_OK
                         : ZOLTAN_MEMERR);
  if (ierr == ZOLTAN_OK) ierr = agree(comm, state_fit(s, P, o.history));
  if (ierr < 0) {
    zp_error(yo, "ULBA: out of memory for %d parts", P);
    goto end;
  }
  state_link(s, zz);

  /* Loads before repartitioning, and the increase since the last balance
   * (load now minus load right after the last balance, per label). */
  ierr = part_loads(ctx, cur, loc, before);
  if (ierr < 0) goto end;
  info.P = P;
  for (int p = 0; p < P; p++) info.W += before[p];
  if (s->have_after) {
    double *slot = s->incr + (size_t)s->head * P;
    for (int p = 0; p < P; p++) slot[p] = before[p] - s->after[p];
    s->head = (s->head + 1) % s->cap;
    if (s->len < s->cap) s->len++;
  }

  /* Source (2) when an attached trigger holds at least two object snapshots
   * on every rank, else source (1) once one interval is known. */
  trig = zz != NULL ? (adaptive_trigger *)zp_observer_of(zz, "adaptive_trigger") : NULL;
  /* A rank without a trigger holds no snapshot, so source (1) is used
   * everywhere; the calls below are collective on every rank either way. */
  ierr = agree(comm, trig != NULL ? trigger_rates(trig, ctx, loc, obj_rate, &nsnap) : ZOLTAN_OK);
  if (ierr < 0) goto end;
  if (MPI_Allreduce(&nsnap, &min_snap, 1, MPI_LONG, MPI_MIN, comm) != MPI_SUCCESS) {
    ierr = ZOLTAN_FATAL;
    goto end;
  }
  if (min_snap >= 2) {
    double c;
    if (MPI_Allreduce(loc, wir, P, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) {
      ierr = ZOLTAN_FATAL;
      goto end;
    }
    info.source = ULBA_SOURCE_TRIGGER;
    use_obj_rate = 1;
    c = adaptive_balance_cost(trig);
    info.omega = trigger_omega(trig, info.W / P);
    if (c >= 0.0 && isfinite(info.omega)) {
      info.C = c;
    } else {
      /* Without a measured cost and speed, fall back to ULBA_LB_COST in
       * weight units, i.e. omega = 1. */
      info.C = o.lb_cost;
      info.omega = 1.0;
    }
  } else if (s->len > 0) {
    for (int p = 0; p < P; p++) {
      double sum = 0.0;
      for (int k = 0; k < s->len; k++) sum += s->incr[(size_t)k * P + p];
      wir[p] = sum / s->len;
    }
    info.source = ULBA_SOURCE_WEIGHTS;
    info.C = o.lb_cost;
    info.omega = 1.0;
  }

  if (info.source != ULBA_SOURCE_NONE && P >= 2) {
    double a = 0.0, m = 0.0;
    double floor = ULBA_MIN_EXCESS_FRACTION * info.W / P;
    if (ulba_detect_overloading((size_t)P, wir, o.threshold, floor > 0.0 ? floor : 0.0, flags,
                                &N) != ULBA_OK ||
        ulba_estimate_rates((size_t)P, wir, flags, &a, &m) != ULBA_OK) {
      zp_error(yo, "ULBA: could not evaluate the increase rates of %d parts", P);
      ierr = ZOLTAN_FATAL;
      goto end;
    }
    info.N = (double)N;
    info.a = a;
    info.m = m;
  }
  info.alpha_param = o.alpha_auto ? auto_alpha(&info) : o.alpha;

  /* Eq. (6) per weight dimension, on the application's sizes. */
  info.alpha = 0.0;
  for (int d = 0; d < wd; d++) {
    double used = 0.0;
    for (int p = 0; p < P; p++) col[p] = app_sizes[(size_t)p * wd + d];
    if (ulba_part_sizes((size_t)P, col, flags, info.alpha_param, colout, &used) != ULBA_OK) {
      zp_error(yo, "ULBA: cannot compose the part sizes of weight %d with ULBA_ALPHA = %g", d,
               info.alpha_param);
      ierr = ZOLTAN_FATAL;
      goto end;
    }
    info.alpha = used;
    for (int p = 0; p < P; p++) target[(size_t)p * wd + d] = colout[p];
  }

  if (info.alpha == 0.0) {
    /* Nothing to anticipate: exactly the base method. */
    ierr = zp_ctx_run_base(ctx, o.base, app_sizes, new_part);
  } else if (!o.relabel) {
    ierr = zp_ctx_run_base(ctx, o.base, target, new_part);
    for (int p = 0; p < P && info.small_part < 0; p++)
      if (flags[p]) info.small_part = p;
  } else {
    ierr = object_growth(s, ctx, flags, use_obj_rate ? obj_rate : NULL, gw);
    if (ierr == ZOLTAN_OK)
      ierr = run_relabelled(ctx, o.base, app_sizes, target, flags, gw, new_part,
                            &info.small_part);
  }
  if (ierr < 0) goto end;

  /* Remember what each label holds now, for the next call's increase. */
  {
    int e = part_loads(ctx, new_part, loc, s->after);
    if (e < 0) {
      ierr = e;
      goto end;
    }
    s->have_after = 1;
  }
  remember_weights(s, ctx);
  info.num_balances = s->info.num_balances + 1;
  summarize(&info);
  s->info = info;
  if (zp_ctx_debug_level(ctx) >= 1 && rank == 0) {
    printf("ZOLTAN ULBA: base %s, source %d, P %d, N %g, alpha %g (asked %g), a %g, m %g, W %g, "
           "small part %d, sigma- %g, sigma+ %g, tau %g\n",
           o.base, info.source, P, info.N, info.alpha, info.alpha_param, info.a, info.m, info.W,
           info.small_part, info.sigma_minus, info.sigma_plus, info.tau);
    fflush(stdout);
  }

end:
  free(loc);
  free(before);
  free(wir);
  free(target);
  free(col);
  free(colout);
  free(flags);
  free(obj_rate);
  free(gw);
  return ierr;
}

static const zp_method ulba_method = {
    .abi = ZP_METHOD_ABI,
    .name = "ULBA",
    .summary = "underload the parts whose load grows fastest (Boulmier et al.), over any base method",
    .params = ulba_params,
    .num_params = sizeof(ulba_params) / sizeof(ulba_params[0]),
    .create = ulba_create,
    .destroy = ulba_destroy,
    .copy = ulba_copy,
    .partition_parallel = ulba_partition};

int ulba_register(void)
{
  return zp_register_method(&ulba_method);
}

int ulba_last_model(struct Zoltan_Struct *zz, ulba_model_info *out)
{
  if (zz == NULL || out == NULL) {
    zp_error("ulba_last_model", "NULL argument");
    return ZOLTAN_FATAL;
  }
  for (const ulba_state *s = ulba_states; s != NULL; s = s->next)
    if (s->zz == zz && s->info.num_balances > 0) {
      *out = s->info;
      return ZOLTAN_OK;
    }
  memset(out, 0, sizeof *out);
  out->source = ULBA_SOURCE_NONE;
  out->small_part = -1;
  return ZOLTAN_WARN;
}
