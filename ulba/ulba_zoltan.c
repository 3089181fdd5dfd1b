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

#include "ulba_adapter.h"
#include "ulba_core.h"
#include "zp_context.h"
#include "zp_history.h"
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
static const char *const ulba_growth_words[] = {"PART", "OBJECT", NULL};

/* ULBA_ALPHA=AUTO with ULBA_GROWTH=OBJECT: anticipate the growth of half the
 * next interval, which balances the loads expected in its middle (for
 * linearly growing loads this minimises the summed step times of the
 * interval; ulba/README.md, "Growth per object"). */
#define ULBA_OBJECT_AUTO_ALPHA 0.5

/* A part counts as receiving the anticipated growth (for the model's N)
 * when its anticipated extra is at least this share of the largest. */
#define ULBA_OBJECT_PART_SHARE 0.5

static const zp_param_def ulba_params[] = {
    {"ULBA_ALPHA", ZP_PARAM_DOUBLE, "0.4", 0.0, 1.0, ZP_PARAM_MAX_OPEN, ulba_auto_words,
     "fraction of the average load W/P taken off each overloading part; AUTO = "
     "minimise the model's predicted time at each balance"},
    {"ULBA_BASE_METHOD", ZP_PARAM_STRING, "RCB", 0.0, 0.0, 0, NULL,
     "method that partitions with ULBA's part sizes: a native Zoltan method "
     "(RCB, RIB, HSFC, PHG, GRAPH, ...) or a centralised plugin method (GREEDY, "
     "REFINE, GREEDYREFINE)"},
    {"ULBA_ZSCORE_THRESHOLD", ZP_PARAM_DOUBLE, "3.0", 0.0, 0.0, ZP_PARAM_MIN_OPEN | ZP_PARAM_NO_MAX,
     NULL, "a part overloads when the robust score of its increase rate exceeds this"},
    {"ULBA_HISTORY", ZP_PARAM_INT, "4", 1.0, 1000.0, 0, NULL,
     "number of past balancing intervals averaged into a part's increase rate "
     "(weights source)"},
    {"ULBA_RELABEL", ZP_PARAM_INT, "1", 0.0, 1.0, 0, NULL,
     "1: renumber the base method's parts so that the underloaded size goes to "
     "the part holding the growing objects; 0: use the base numbering"},
    {"ULBA_GROWTH", ZP_PARAM_STRING, "OBJECT", 0.0, 0.0, 0, ulba_growth_words,
     "OBJECT: give the base method each object's weight plus its own growth beyond its share "
     "over ULBA_ALPHA times the last interval (AUTO: half), one base run, no relabelling; "
     "needs object loads reported to the adaptive trigger, PART is used until two are held. "
     "PART: find the parts whose load grows fastest and give them smaller sizes (Eq. 6, the "
     "paper's ULBA)"},
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
  /* The weight of every local object at the last balance, by GID.  A
   * relabelled balance finds an object's growth as its weight now minus
   * its weight then, through a distributed directory built from these
   * arrays; the directory is built only by a balance that needs it (see
   * object_growth), because building it costs about as much as an RCB call
   * and most balances never read it. */
  ZOLTAN_ID_TYPE *prev_gids; /* prev_n * prev_ngid IDs */
  double *prev_w;            /* prev_n weights (first dimension) */
  int prev_n;                /* objects recorded on this rank */
  int prev_ngid;             /* GID length of prev_gids; 0 when nothing is recorded
                                (the same on every rank) */
  size_t prev_cap;           /* entries prev_w has room for, and */
  size_t prev_id_cap;        /* entries prev_gids has room for: both are kept between
                                calls, so that a balance does not fault in fresh pages */
  ulba_cuts cuts;            /* the base method's cuts for point and box queries */
  int *guess;                /* nguess entries: the label of each base part in the last
                                relabelled balance, the first guess of the next */
  int nguess;                /* parts of guess (0: none) */
  /* Per-object arrays of a call (ulba_call's obj_rate and obj_work), kept
   * between calls: a fresh allocation of this size is fresh pages, whose
   * faults are a visible share of a call at 10^6 objects. */
  double *obj_rate; /* obj_cap entries */
  double *obj_work; /* obj_cap entries */
  size_t obj_cap;   /* entries of obj_rate and obj_work (0: none yet) */
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
  free(s->prev_gids);
  free(s->prev_w);
  free(s->obj_rate);
  free(s->obj_work);
  ulba_cuts_free(&s->cuts, s->zz);
  free(s->guess);
  free(s);
}

/* A copy keeps the per-part history: the copied struct continues the same
 * run.  It is linked to its own struct at its first balance.  The recorded
 * object weights and the kept cuts are not copied (the weights are this
 * rank's part of a distributed record, and a copy is not collective), so
 * the copy's first balance relabels with the per-part rates only and the
 * copy answers no point or box query before it. */
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

/* The parameters of one call. */
typedef struct ulba_options {
  double alpha;      /* ULBA_ALPHA, ignored when alpha_auto */
  int alpha_auto;    /* ULBA_ALPHA=AUTO */
  const char *base;  /* ULBA_BASE_METHOD, upper case */
  double threshold;  /* ULBA_ZSCORE_THRESHOLD */
  int history;       /* ULBA_HISTORY */
  int relabel;       /* ULBA_RELABEL */
  double lb_cost;    /* ULBA_LB_COST, weight units */
  int growth_object; /* ULBA_GROWTH=OBJECT */
} ulba_options;

static int read_options(const zp_context *ctx, ulba_options *o)
{
  const zp_params *p = zp_ctx_params(ctx);
  const char *yo = zp_ctx_where(ctx);
  const zp_method *m;
  const char *growth = "OBJECT";
  if (zp_param_string(p, "ULBA_GROWTH", &growth) != ZOLTAN_OK) return ZOLTAN_FATAL;
  o->growth_object = strcmp(growth, "OBJECT") == 0;
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

static int gid_cmp_n(const ZOLTAN_ID_TYPE *a, const ZOLTAN_ID_TYPE *b, int n)
{
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/* The objects of a tiny problem, gathered on every rank, in global-ID order
 * (assign_tiny visits them in that order; finding an object by its ID goes
 * through the layer's map, zp_ctx_find_local). */
typedef struct ulba_gid_order {
  int *order;                 /* indices sorted by global ID */
  const ZOLTAN_ID_TYPE *gids; /* the IDs */
  int n;                      /* objects */
  int ngid;                   /* entries per global ID */
} ulba_gid_order;

/* Sorting the local indices of an index by global ID needs the index: qsort
 * has no argument for it, and sorting happens on one thread at a time. */
static const ulba_gid_order *sorting_index;

static int gid_order_cmp(const void *pa, const void *pb)
{
  const ulba_gid_order *ix = sorting_index;
  int a = *(const int *)pa, b = *(const int *)pb;
  return gid_cmp_n(ix->gids + (size_t)a * ix->ngid, ix->gids + (size_t)b * ix->ngid, ix->ngid);
}

/* Sort the indices of ix by global ID (the local objects, or the objects
 * of a tiny problem gathered on every rank). */
static void sort_by_gid(ulba_gid_order *ix)
{
  for (int i = 0; i < ix->n; i++) ix->order[i] = i;
  sorting_index = ix;
  qsort(ix->order, (size_t)ix->n, sizeof *ix->order, gid_order_cmp);
  sorting_index = NULL;
}

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
      } else if (j < n && gid_cmp_n(gids + (size_t)j * ngid, g, ngid) == 0) {
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

/* The fast form of history_rates when snapshots_in_order holds: the same
 * series (oldest first) fitted as ulba_slope fits them, object by object in
 * local order, so the rates and their sums are those of the general form
 * bit for bit; the times are the same for every object, so their part of
 * the fit is done once (ulba_slope_basis_init).  yi is scratch of ns
 * entries.  Local. */
static void rates_in_order(const zp_context *ctx, long ns, const double *t, const double *const *y,
                           double *yi, double *local_rate, double *obj_rate)
{
  int n = zp_ctx_num_local(ctx), P = zp_ctx_num_parts(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  ulba_slope_basis basis;
  ulba_slope_basis_init((size_t)ns, t, &basis);
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    if (cur[i] < 0 || cur[i] >= P) continue;
    for (long k = 0; k < ns; k++) yi[k] = y[k][i];
    if (ulba_slope_fit(&basis, yi, &s) == ULBA_OK) {
      local_rate[cur[i]] += s;
      obj_rate[i] = s;
    }
  }
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
static int history_rates(const zp_context *ctx, double *local_rate, double *obj_rate,
                         long *num_snap)
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
  for (int i = 0; i < n; i++) obj_rate[i] = NAN;
  /* First the fast form: ns steps, ns load arrays and ns scratch values. */
  ts = malloc(2 * (size_t)ns * sizeof *ts);
  yk = malloc((size_t)ns * sizeof *yk);
  if (ts == NULL || yk == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto end;
  }
  if (snapshots_in_order(zz, ctx, ns, ts, yk)) {
    rates_in_order(ctx, ns, ts, yk, ts + ns, local_rate, obj_rate);
    goto end;
  }
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
 * are looked up only when one of them has no rate.  Collective.
 */
static int object_growth(ulba_state *s, const zp_context *ctx, const int *grow,
                         const double *obj_rate, double *gw)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), ngid = zp_ctx_num_gid_entries(ctx);
  MPI_Comm comm = zp_ctx_comm(ctx);
  const double *w = zp_ctx_local_wgts(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  double *prev = NULL, known = 0.0, all_known = 0.0;
  int *owner = NULL, ierr = ZOLTAN_OK, P = zp_ctx_num_parts(ctx), need = 0, any_need = 0;
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
static void forget_weights(ulba_state *s)
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
static void remember_weights(ulba_state *s, const zp_context *ctx)
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
    forget_weights(s);
    return;
  }
  memcpy(s->prev_gids, zp_ctx_local_gids(ctx), nid * sizeof *s->prev_gids);
  for (int i = 0; i < n; i++) s->prev_w[i] = w[(size_t)i * wd];
  s->prev_n = n;
  s->prev_ngid = ngid;
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
 * Outputs: new_part (labels of the local objects), perm (P entries: the
 * label of each part of the last base run) and sizes (P * wd: the sizes of
 * the last base run).  Collective.
 */
static int run_relabelled(zp_context *ctx, const char *base, const double *target, const int *grow,
                          const double *gw, const int *guess, int *new_part, int *perm,
                          double *sizes, int *runs)
{
  int n = zp_ctx_num_local(ctx), wd = zp_ctx_wgt_dim(ctx), P = zp_ctx_num_parts(ctx);
  size_t PP = (size_t)P * (size_t)P;
  int *q = malloc(((size_t)n + 1) * sizeof *q);
  double *loc = malloc(PP * sizeof *loc), *ov = malloc(PP * sizeof *ov);
  int fits = 0;
  int ierr = zp_agree_code(zp_ctx_comm(ctx), (q && loc && ov) ? ZOLTAN_OK : ZOLTAN_MEMERR);
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
  if (ierr >= 0) ierr = match_labels(ctx, q, grow, gw, loc, ov, perm);
  if (ierr >= 0) fits = perm_fits(perm, sizes, target, P, wd);
  for (int round = 0; ierr >= 0 && round < ULBA_RELABEL_ROUNDS && !fits; round++) {
    for (int k = 0; k < P; k++)
      memcpy(sizes + (size_t)k * wd, target + (size_t)perm[k] * wd, (size_t)wd * sizeof *sizes);
    ierr = zp_ctx_run_base(ctx, base, sizes, q);
    ++*runs;
    if (ierr >= 0) ierr = match_labels(ctx, q, grow, gw, loc, ov, perm);
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

/* The history provider's estimate of omega: average part load over the
 * average step time of the steps it holds (at most the newest 64). */
static double history_omega(struct Zoltan_Struct *zz, double load_per_part)
{
  zp_step_times rec[64];
  long nrec = zp_history_step_times(zz, rec, 64);
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

/* Everything one ULBA balance works with, passed between its steps. */
typedef struct ulba_call {
  zp_context *ctx;       /* the framework's context of the call */
  ulba_state *s;         /* the struct's ULBA state */
  MPI_Comm comm;         /* the struct's communicator (the layer's duplicate) */
  const char *yo;        /* the entry point, for messages */
  int n, wd, P, rank;    /* local objects, weight dimensions, parts, this rank */
  long total_obj;        /* objects on all ranks */
  ulba_options o;        /* the parameters */
  ulba_model_info info;  /* the model quantities of this balance */
  const char *undefined; /* why the model is undefined, when info cannot tell
                            (NULL otherwise) */
  double *loc;           /* P: this rank's contribution to a per-part sum */
  double *before;        /* P: per-part loads before the balance */
  double *wir;           /* P: per-part workload increase rates */
  double *target;        /* P * wd: ULBA's part sizes (Eq. 6) */
  double *col, *colout;  /* P: one weight dimension of the sizes */
  double *obj_rate;      /* n: per-object rate of source (2), NaN if unknown (the
                            state's array) */
  double *obj_work;      /* n: per-object growth for the relabelling (PART), or
                            the anticipated weights (OBJECT); the state's array */
  double *run_sizes;     /* P * wd: sizes of the last relabelled base run */
  int *flags;            /* P: 1 for the overloading parts */
  int *perm;             /* P: ULBA's label of each part of the last base run */
  int use_obj_rate;      /* obj_rate holds the rates of source (2) */
  int anticipated;       /* 1 when the base method ran with anticipated weights */
  double horizon;        /* steps of growth anticipated (ULBA_GROWTH=OBJECT) */
  ulba_final_run last;   /* the balance's last base run, for the kept cuts */
} ulba_call;

static void call_end(ulba_call *c)
{
  free(c->loc);
  free(c->before);
  free(c->wir);
  free(c->target);
  free(c->col);
  free(c->colout);
  free(c->run_sizes);
  free(c->flags);
  free(c->perm);
}

/* Read the parameters, allocate the call's arrays and fit the state's
 * history to the number of parts.  Collective. */
static int call_begin(ulba_call *c, zp_context *ctx, ulba_state *s)
{
  size_t P1, n1;
  long n_local;
  int ierr;
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  c->s = s;
  c->comm = zp_ctx_comm(ctx);
  c->yo = zp_ctx_where(ctx);
  c->n = zp_ctx_num_local(ctx);
  c->wd = zp_ctx_wgt_dim(ctx);
  c->P = zp_ctx_num_parts(ctx);
  c->info.small_part = -1;
  c->info.C = NAN;
  c->info.omega = 1.0;
  MPI_Comm_rank(c->comm, &c->rank);
  n_local = c->n;
  if (MPI_Allreduce(&n_local, &c->total_obj, 1, MPI_LONG, MPI_SUM, c->comm) != MPI_SUCCESS)
    return ZOLTAN_FATAL;
  ierr = zp_agree_code(c->comm, read_options(ctx, &c->o));
  if (ierr < 0) return ierr;
  P1 = (size_t)c->P + 1;
  n1 = (size_t)c->n + 1;
  c->loc = malloc(P1 * sizeof *c->loc);
  c->before = malloc(P1 * sizeof *c->before);
  c->wir = malloc(P1 * sizeof *c->wir);
  c->target = malloc(P1 * (size_t)c->wd * sizeof *c->target);
  c->run_sizes = malloc(P1 * (size_t)c->wd * sizeof *c->run_sizes);
  c->col = malloc(P1 * sizeof *c->col);
  c->colout = malloc(P1 * sizeof *c->colout);
  c->flags = calloc(P1, sizeof *c->flags);
  c->perm = malloc(P1 * sizeof *c->perm);
  if (s->obj_cap < n1) {
    /* Untouched until a call with history writes them, so a call without
     * history pays no page for them. */
    free(s->obj_rate);
    free(s->obj_work);
    s->obj_rate = malloc(n1 * sizeof *s->obj_rate);
    s->obj_work = malloc(n1 * sizeof *s->obj_work);
    s->obj_cap = (s->obj_rate && s->obj_work) ? n1 : 0;
  }
  c->obj_rate = s->obj_rate;
  c->obj_work = s->obj_work;
  ierr = zp_agree_code(c->comm, (c->loc && c->before && c->wir && c->target && c->run_sizes &&
                                 c->col && c->colout && c->flags && c->perm && s->obj_cap >= n1)
                                    ? ZOLTAN_OK
                                    : ZOLTAN_MEMERR);
  if (ierr == ZOLTAN_OK) ierr = zp_agree_code(c->comm, state_fit(s, c->P, c->o.history));
  if (ierr < 0) {
    zp_error(c->yo, "ULBA: out of memory for %d parts", c->P);
    return ierr;
  }
  state_link(s, zp_ctx_zz(ctx));
  return ZOLTAN_OK;
}

/* The loads before repartitioning, and the increase since the last balance
 * (load now minus load right after the last balance, per label) into the
 * state's ring.  Collective. */
static int measure_loads(ulba_call *c)
{
  ulba_state *s = c->s;
  int ierr = part_loads(c->ctx, zp_ctx_local_parts(c->ctx), c->loc, c->before);
  if (ierr < 0) return ierr;
  c->info.P = c->P;
  for (int p = 0; p < c->P; p++) c->info.W += c->before[p];
  if (s->have_after) {
    double *slot = s->incr + (size_t)s->head * c->P;
    for (int p = 0; p < c->P; p++) slot[p] = c->before[p] - s->after[p];
    s->head = (s->head + 1) % s->cap;
    if (s->len < s->cap) s->len++;
  }
  return ZOLTAN_OK;
}

/* Source (2) when the struct's history provider holds at least two object
 * snapshots on every rank, else source (1) once one interval is known; the
 * rates go to wir.  Collective. */
static int find_rates(ulba_call *c)
{
  ulba_state *s = c->s;
  struct Zoltan_Struct *zz = zp_ctx_zz(c->ctx);
  long nsnap = 0, min_snap = 0;
  int P = c->P;
  /* A rank without a provider holds no snapshot, so source (1) is used
   * everywhere; the calls below are collective on every rank either way. */
  int ierr = zp_agree_code(c->comm, history_rates(c->ctx, c->loc, c->obj_rate, &nsnap));
  if (ierr < 0) return ierr;
  if (MPI_Allreduce(&nsnap, &min_snap, 1, MPI_LONG, MPI_MIN, c->comm) != MPI_SUCCESS)
    return ZOLTAN_FATAL;
  if (min_snap >= 2) {
    double cost;
    if (MPI_Allreduce(c->loc, c->wir, P, MPI_DOUBLE, MPI_SUM, c->comm) != MPI_SUCCESS)
      return ZOLTAN_FATAL;
    c->info.source = ULBA_SOURCE_TRIGGER;
    c->use_obj_rate = 1;
    cost = zp_history_balance_cost(zz);
    c->info.omega = history_omega(zz, c->info.W / P);
    if (cost >= 0.0 && isfinite(c->info.omega)) {
      c->info.C = cost;
    } else {
      /* Without a measured cost and speed, fall back to ULBA_LB_COST in
       * weight units, i.e. omega = 1. */
      c->info.C = c->o.lb_cost;
      c->info.omega = 1.0;
    }
  } else if (s->len > 0) {
    for (int p = 0; p < P; p++) {
      double sum = 0.0;
      for (int k = 0; k < s->len; k++) sum += s->incr[(size_t)k * P + p];
      c->wir[p] = sum / s->len;
    }
    c->info.source = ULBA_SOURCE_WEIGHTS;
    c->info.C = c->o.lb_cost;
    c->info.omega = 1.0;
  }
  return ZOLTAN_OK;
}

/* Flag the overloading parts and estimate a and m.  Not collective: wir is
 * the same on every rank. */
static int detect_overloads(ulba_call *c)
{
  double a = 0.0, m = 0.0, floor = ULBA_MIN_EXCESS_FRACTION * c->info.W / c->P;
  size_t N = 0;
  if (c->info.source == ULBA_SOURCE_NONE || c->P < 2) return ZOLTAN_OK;
  if (ulba_detect_overloading((size_t)c->P, c->wir, c->o.threshold, floor > 0.0 ? floor : 0.0,
                              c->flags, &N) != ULBA_OK ||
      ulba_estimate_rates((size_t)c->P, c->wir, c->flags, &a, &m) != ULBA_OK) {
    zp_error(c->yo, "ULBA: could not evaluate the increase rates of %d parts", c->P);
    return ZOLTAN_FATAL;
  }
  c->info.N = (double)N;
  c->info.a = a;
  c->info.m = m;
  return ZOLTAN_OK;
}

/* Alpha (the asked value, or AUTO's choice) and Eq. (6) per weight
 * dimension on the application's sizes, into target.  Not collective. */
static int compose_sizes(ulba_call *c)
{
  const double *app_sizes = zp_ctx_part_sizes(c->ctx);
  int P = c->P, wd = c->wd;
  c->info.alpha_param = c->o.alpha_auto ? auto_alpha(&c->info) : c->o.alpha;
  c->info.alpha = 0.0;
  for (int d = 0; d < wd; d++) {
    double used = 0.0;
    for (int p = 0; p < P; p++) c->col[p] = app_sizes[(size_t)p * wd + d];
    if (ulba_part_sizes((size_t)P, c->col, c->flags, c->info.alpha_param, c->colout, &used) !=
        ULBA_OK) {
      zp_error(c->yo, "ULBA: cannot compose the part sizes of weight %d with ULBA_ALPHA = %g", d,
               c->info.alpha_param);
      return ZOLTAN_FATAL;
    }
    c->info.alpha = used;
    for (int p = 0; p < P; p++) c->target[(size_t)p * wd + d] = c->colout[p];
  }
  return ZOLTAN_OK;
}

/* Keeps perm (P labels) as the first guess of the next relabelled balance.
 * Collective: when a rank lacks the memory, every rank drops its guess, so
 * that all start the next balance from the identity and agree. */
static void keep_guess(ulba_state *s, MPI_Comm comm, const int *perm, int P)
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

/* Partition with the base method: exactly the base method when there is
 * nothing to anticipate, with the target sizes as they come when
 * ULBA_RELABEL=0, else relabelled (run_relabelled).  Records the last run
 * for the kept cuts.  Collective. */
static int run_base(ulba_call *c, int *new_part)
{
  const double *app_sizes = zp_ctx_part_sizes(c->ctx);
  int ierr;
  c->last.base = c->o.base;
  c->last.new_part = new_part;
  c->last.W = c->info.W;
  if (c->info.alpha == 0.0) {
    c->last.sizes = app_sizes;
    c->last.app_sizes = 1;
    c->info.base_runs = 1;
    return zp_ctx_run_base(c->ctx, c->o.base, app_sizes, new_part);
  }
  c->last.sizes = c->target;
  if (!c->o.relabel) {
    c->info.base_runs = 1;
    ierr = zp_ctx_run_base(c->ctx, c->o.base, c->target, new_part);
  } else {
    ierr = object_growth(c->s, c->ctx, c->flags, c->use_obj_rate ? c->obj_rate : NULL, c->obj_work);
    if (ierr == ZOLTAN_OK)
      ierr = run_relabelled(c->ctx, c->o.base, c->target, c->flags, c->obj_work,
                            c->s->nguess == c->P ? c->s->guess : NULL, new_part, c->perm,
                            c->run_sizes, &c->info.base_runs);
    if (ierr >= 0) keep_guess(c->s, c->comm, c->perm, c->P);
    c->last.sizes = c->run_sizes;
    c->last.part_map = c->perm;
  }
  for (int p = 0; p < c->P && c->info.small_part < 0; p++)
    if (c->flags[p]) c->info.small_part = p;
  return ierr;
}

/* The model's quantities for what ULBA_GROWTH=OBJECT handed to the base
 * method, so that the sigma bounds and tau describe that balance: per new
 * part, the anticipated extra (weight given minus weight) and the growth
 * rate; the parts that received at least ULBA_OBJECT_PART_SHARE of the
 * largest extra are the underloaded ones (N), alpha is that largest extra
 * over W / P, a and m the rates of the others and theirs.  Collective. */
static int object_model(ulba_call *c, const double *given, const int *new_part)
{
  int n = c->n, wd = c->wd, P = c->P, i, p;
  const double *w = zp_ctx_local_wgts(c->ctx);
  double *extra = calloc(2 * (size_t)P + 1, sizeof *extra), top = 0.0, a = 0.0, m = 0.0;
  size_t N = 0;
  if (zp_agree_code(c->comm, extra != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR) < 0) {
    free(extra);
    return ZOLTAN_MEMERR;
  }
  for (i = 0; i < n; i++) {
    if (new_part[i] < 0 || new_part[i] >= P) continue;
    extra[new_part[i]] += given[i] - w[(size_t)i * wd];
    if (!isnan(c->obj_rate[i])) extra[P + new_part[i]] += c->obj_rate[i];
  }
  if (MPI_Allreduce(MPI_IN_PLACE, extra, 2 * P, MPI_DOUBLE, MPI_SUM, c->comm) != MPI_SUCCESS) {
    free(extra);
    return ZOLTAN_FATAL;
  }
  for (p = 0; p < P; p++) top = extra[p] > top ? extra[p] : top;
  for (p = 0; p < P; p++) {
    c->flags[p] = top > 0.0 && extra[p] >= ULBA_OBJECT_PART_SHARE * top;
    N += (size_t)c->flags[p];
  }
  if (N > 0 && ulba_estimate_rates((size_t)P, extra + P, c->flags, &a, &m) == ULBA_OK) {
    c->info.N = (double)N;
    c->info.a = a;
    c->info.m = m;
  }
  c->info.alpha = c->info.W > 0.0 ? top / (c->info.W / P) : 0.0;
  if (c->info.alpha > 1.0) c->info.alpha = 1.0;
  for (p = 0; p < P && c->info.small_part < 0; p++)
    if (c->flags[p]) c->info.small_part = p;
  free(extra);
  return ZOLTAN_OK;
}

/* The growth ULBA_GROWTH=OBJECT anticipates, in steps: the share alpha of
 * the next interval, which the interval this balance closes (h steps)
 * stands for.  A prediction from Menon's tau, H = alpha / (1 - alpha) tau
 * (the part receiving the growth catches up after H steps, and a trigger
 * balances tau steps later), was tried and anticipated worse on the erosion
 * benchmark (docs/erosion.md): tau's excess rate is measured per part,
 * which is what this mode avoids.  The same on every rank. */
static double object_horizon(double alpha, long h) { return alpha * (double)(h > 0 ? h : 1); }

/* ULBA_GROWTH=OBJECT: one base run with the application's sizes on weights
 * that anticipate each object's growth over alpha times the interval this
 * balance closes (ulba_anticipate).  Collective. */
static int balance_objects(ulba_call *c, int *new_part)
{
  const double *w = zp_ctx_local_wgts(c->ctx), *app_sizes = zp_ctx_part_sizes(c->ctx);
  double sums[2] = {0.0, 0.0}, alpha, H, *given = c->obj_work;
  long h = zp_history_step_times(zp_ctx_zz(c->ctx), NULL, 0), hmax = 0;
  int i, ierr;
  for (i = 0; i < c->n; i++)
    if (!isnan(c->obj_rate[i])) {
      sums[0] += w[(size_t)i * c->wd];
      sums[1] += c->obj_rate[i];
    }
  if (MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, c->comm) != MPI_SUCCESS ||
      MPI_Allreduce(&h, &hmax, 1, MPI_LONG, MPI_MAX, c->comm) != MPI_SUCCESS)
    return ZOLTAN_FATAL;
  alpha = c->o.alpha_auto ? ULBA_OBJECT_AUTO_ALPHA : c->o.alpha;
  H = object_horizon(alpha, hmax);
  c->horizon = H;
  ierr = ZOLTAN_OK;
  if (ulba_anticipate((size_t)c->n, w, (size_t)c->wd, c->obj_rate, sums[0],
                      isfinite(sums[1]) ? sums[1] : 0.0, H, given) != ULBA_OK)
    ierr = ZOLTAN_FATAL;
  ierr = zp_agree_code(c->comm, ierr);
  c->info.alpha_param = alpha;
  c->info.base_runs = 1;
  c->anticipated = 1;
  c->last.base = c->o.base;
  c->last.new_part = new_part;
  c->last.W = c->info.W;
  c->last.sizes = app_sizes;
  c->last.app_sizes = 1;
  if (ierr == ZOLTAN_OK)
    ierr = zp_ctx_run_base_weighted(c->ctx, c->o.base, app_sizes, given, new_part);
  if (ierr >= 0) ierr = object_model(c, given, new_part);
  /* The model (sigma bounds, tau) describes the equivalent underloading. */
  c->info.alpha_param = c->info.alpha;
  return ierr;
}

/* A balance with enough objects: rates, overloading parts, sizes and the
 * base method.  Collective. */
static int balance(ulba_call *c, int *new_part)
{
  int ierr = find_rates(c);
  if (ierr >= 0 && c->o.growth_object && c->use_obj_rate) return balance_objects(c, new_part);
  if (ierr >= 0) ierr = detect_overloads(c);
  if (ierr >= 0) ierr = compose_sizes(c);
  if (ierr >= 0) ierr = run_base(c, new_part);
  return ierr;
}

/* Sort key of a part for a tiny problem: larger sizes first, then lower
 * numbers. */
typedef struct part_rank {
  double size; /* the application's size of the part (first weight) */
  int part;    /* the part */
} part_rank;

static int part_rank_cmp(const void *pa, const void *pb)
{
  const part_rank *a = pa, *b = pb;
  if (a->size != b->size) return a->size > b->size ? -1 : 1;
  return (a->part > b->part) - (a->part < b->part);
}

/* Give each of the m gathered objects (sorted by ix) a part of its own:
 * first, in global ID order, an object keeps its current part if that part
 * has a positive size and no other object kept it; then the others take the
 * free parts, largest size first.  The same on every rank. */
static int place_tiny(const ulba_gid_order *ix, const int *cur, const double *sizes, int wd, int P,
                      int *part)
{
  char *taken = calloc((size_t)P + 1, 1);
  part_rank *pr = malloc(((size_t)P + 1) * sizeof *pr);
  int next = 0;
  if (taken == NULL || pr == NULL) {
    free(taken);
    free(pr);
    return ZOLTAN_MEMERR;
  }
  for (int k = 0; k < ix->n; k++) {
    int i = ix->order[k], p = cur[i];
    part[i] = -1;
    if (p >= 0 && p < P && sizes[(size_t)p * wd] > 0.0 && !taken[p]) {
      part[i] = p;
      taken[p] = 1;
    }
  }
  for (int p = 0; p < P; p++) {
    pr[p].size = sizes[(size_t)p * wd];
    pr[p].part = p;
  }
  qsort(pr, (size_t)P, sizeof *pr, part_rank_cmp);
  for (int k = 0; k < ix->n; k++) {
    int i = ix->order[k];
    if (part[i] >= 0) continue;
    while (taken[pr[next].part]) next++; /* fewer objects than parts: one is free */
    part[i] = pr[next].part;
    taken[part[i]] = 1;
  }
  free(taken);
  free(pr);
  return ZOLTAN_OK;
}

/*
 * A problem with fewer objects than parts (none at all, or a single object
 * among several parts): every object gets a part of its own, staying where
 * it is when it can, so no base method is needed (Zoltan's RCB fails on a
 * single object when asked for complete lists).  The objects are gathered
 * on every rank, which all compute the same answer.  Collective.
 */
static int assign_tiny(ulba_call *c, int *new_part)
{
  int size = 1, m = (int)c->total_obj, ngid = zp_ctx_num_gid_entries(c->ctx), ierr;
  int *counts = NULL, *displs = NULL, *bcounts = NULL, *bdispls = NULL, *cur = NULL, *part = NULL;
  ulba_gid_order ix = {NULL, NULL, m, ngid};
  ZOLTAN_ID_TYPE *gids = NULL;
  MPI_Comm_size(c->comm, &size);
  c->undefined = "fewer objects than parts, each object has a part of its own";
  c->info.alpha_param = c->o.alpha_auto ? 0.0 : c->o.alpha;
  counts = malloc((size_t)size * sizeof *counts);
  displs = malloc((size_t)size * sizeof *displs);
  bcounts = malloc((size_t)size * sizeof *bcounts);
  bdispls = malloc((size_t)size * sizeof *bdispls);
  cur = malloc(((size_t)m + 1) * sizeof *cur);
  part = malloc(((size_t)m + 1) * sizeof *part);
  ix.order = malloc(((size_t)m + 1) * sizeof *ix.order);
  gids = malloc(((size_t)m * ngid + 1) * sizeof *gids);
  ierr = zp_agree_code(c->comm,
                       (counts && displs && bcounts && bdispls && cur && part && ix.order && gids)
                           ? ZOLTAN_OK
                           : ZOLTAN_MEMERR);
  if (ierr < 0) goto end;
  MPI_Allgather(&c->n, 1, MPI_INT, counts, 1, MPI_INT, c->comm);
  for (int r = 0, off = 0; r < size; off += counts[r], r++) {
    displs[r] = off;
    bcounts[r] = counts[r] * ngid * (int)sizeof *gids;
    bdispls[r] = off * ngid * (int)sizeof *gids;
  }
  MPI_Allgatherv(zp_ctx_local_gids(c->ctx), bcounts[c->rank], MPI_BYTE, gids, bcounts, bdispls,
                 MPI_BYTE, c->comm);
  MPI_Allgatherv(zp_ctx_local_parts(c->ctx), c->n, MPI_INT, cur, counts, displs, MPI_INT, c->comm);
  ix.gids = gids;
  sort_by_gid(&ix);
  ierr = zp_agree_code(c->comm, place_tiny(&ix, cur, zp_ctx_part_sizes(c->ctx), c->wd, c->P, part));
  for (int i = 0; ierr >= 0 && i < c->n; i++) new_part[i] = part[displs[c->rank] + i];
end:
  if (ierr == ZOLTAN_MEMERR) zp_error(c->yo, "ULBA: out of memory for %d objects", m);
  free(counts);
  free(displs);
  free(bcounts);
  free(bdispls);
  free(cur);
  free(part);
  free(ix.order);
  free(gids);
  return ierr;
}

/* Why the bounds of the call's model are not numbers, or NULL when they
 * all are.  NaN means the model is undefined, +infinity that no imbalance
 * builds up (ulba_summarize). */
static const char *undefined_reason(const ulba_call *c)
{
  const ulba_model_info *i = &c->info;
  if (isfinite(i->sigma_minus) && isfinite(i->sigma_plus) && isfinite(i->tau)) return NULL;
  if (c->undefined != NULL) return c->undefined;
  if (i->source == ULBA_SOURCE_NONE) return "no growth measured yet";
  if (i->P < 2) return "a single part";
  if (!(i->W > 0.0)) return "no load to balance";
  if (isnan(i->sigma_minus) || isnan(i->sigma_plus) || isnan(i->tau))
    return "the measured rates give no model";
  return "no part grows faster than the others, so no imbalance builds up";
}

/* One bound for the debug line: the number, or n/a when it is not one. */
static void format_bound(char *buf, size_t cap, double v)
{
  if (isfinite(v))
    snprintf(buf, cap, "%g", v);
  else
    snprintf(buf, cap, "n/a");
}

/* The model line of DEBUG_LEVEL >= 1, on rank 0. */
static void print_model_line(const ulba_call *c)
{
  const ulba_model_info *i = &c->info;
  const char *why = undefined_reason(c);
  char sm[32], sp[32], tau[32];
  format_bound(sm, sizeof sm, i->sigma_minus);
  format_bound(sp, sizeof sp, i->sigma_plus);
  format_bound(tau, sizeof tau, i->tau);
  printf("ZOLTAN ULBA: base %s, source %d, P %d, N %g, alpha %g (asked %g), a %g, m %g, W %g, "
         "small part %d, sigma- %s, sigma+ %s, tau %s%s%s%s, base runs %d",
         c->o.base, i->source, c->P, i->N, i->alpha, i->alpha_param, i->a, i->m, i->W,
         i->small_part, sm, sp, tau, why ? " (" : "", why ? why : "", why ? ")" : "", i->base_runs);
  if (c->anticipated)
    printf(", growth per object over %g steps (alpha above: the largest anticipated extra of a "
           "part over W/P)",
           c->horizon);
  printf("\n");
  fflush(stdout);
}

/* After the partition: remember what each label holds now (for the next
 * call's increase) and every object's weight, publish the model, print it,
 * and keep the base method's cuts for the point and box queries.
 * Collective. */
static int finish_balance(ulba_call *c, int *new_part, int tiny)
{
  ulba_state *s = c->s;
  int ierr = part_loads(c->ctx, new_part, c->loc, s->after);
  if (ierr < 0) return ierr;
  s->have_after = 1;
  /* The weights by ID serve the relabelling of ULBA_GROWTH=PART; a balance
   * on anticipated weights, which has the rates themselves, records none. */
  if (c->anticipated)
    forget_weights(s);
  else
    remember_weights(s, c->ctx);
  c->info.num_balances = s->info.num_balances + 1;
  summarize(&c->info);
  s->info = c->info;
  if (zp_ctx_debug_level(c->ctx) >= 1 && c->rank == 0) print_model_line(c);
  /* The cuts of a run on anticipated weights cannot be rebuilt from the
   * application's weights: the queries then say that no cuts are kept. */
  if (tiny || c->anticipated)
    ulba_cuts_free(&s->cuts, zp_ctx_zz(c->ctx));
  else
    ulba_cuts_keep(&s->cuts, c->ctx, &c->last);
  return ZOLTAN_OK;
}

static int ulba_partition(zp_context *ctx, void *state_ptr, int *new_part)
{
  ulba_call c;
  int ierr, tiny = 0;
  if (ulba_keeping_cuts) {
    /* Only ZOLTAN_PLUGINS_LB_METHOD can make the copy that keeps the base
     * method's cuts run ULBA; running it would copy again, forever. */
    zp_error(zp_ctx_where(ctx), "ULBA: ZOLTAN_PLUGINS_LB_METHOD turned the base method of the "
                                "copy that keeps the cuts into ULBA");
    return ZOLTAN_FATAL;
  }
  ierr = call_begin(&c, ctx, state_ptr);
  if (ierr >= 0) ierr = measure_loads(&c);
  if (ierr >= 0) {
    tiny = c.total_obj < c.P;
    ierr = tiny ? assign_tiny(&c, new_part) : balance(&c, new_part);
  }
  if (ierr >= 0) ierr = finish_balance(&c, new_part, tiny);
  call_end(&c);
  return ierr;
}

static const zp_method ulba_method = {
    .abi = ZP_METHOD_ABI,
    .name = "ULBA",
    .summary =
        "underload the parts whose load grows fastest (Boulmier et al.), over any base method",
    .params = ulba_params,
    .num_params = sizeof(ulba_params) / sizeof(ulba_params[0]),
    .create = ulba_create,
    .destroy = ulba_destroy,
    .copy = ulba_copy,
    .partition_parallel = ulba_partition};

int ulba_register(void) { return zp_register_method(&ulba_method); }

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
