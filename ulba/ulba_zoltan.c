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

#include "ulba_adapter.h"
#include "ulba_core.h"
#include "zp_context.h"
#include "zp_history.h"
#include "zp_method.h"

/* Rate differences below this fraction of the average part load per
 * iteration are noise (ulba/README.md, "Which parts overload"). */
#define ULBA_MIN_EXCESS_FRACTION 1e-3

static const char *const ulba_auto_words[] = {"AUTO", NULL};
static const char *const ulba_growth_words[] = {"PART", "OBJECT", NULL};

/* A part counts as receiving the anticipated growth (for the model's N)
 * when its anticipated extra is at least this share of the largest. */
#define ULBA_OBJECT_PART_SHARE 0.5

/* ULBA_ALPHA=AUTO with ULBA_GROWTH=PART: the model assumes that the parts
 * it underloads keep the objects that grow.  A large alpha can move a part's
 * cut past its growing objects (a front that erodes, a refined region at the
 * part's edge), so the growth lands in a part of average or larger size and
 * the underloading only adds imbalance.  After the base run, the growth of
 * the overloading parts' objects that still lies in underloaded parts is
 * measured; below this share (most of it left) alpha is halved and the base
 * method runs again, at most ULBA_AUTO_SHRINKS times, after which alpha 0
 * (the base method on the application's sizes) is used. */
#define ULBA_AUTO_KEEP_SHARE 0.5
#define ULBA_AUTO_SHRINKS    3

static const zp_param_def ulba_params[] = {
    {"ULBA_ALPHA", ZP_PARAM_DOUBLE, "0.4", 0.0, 1.0, ZP_PARAM_MAX_OPEN, ulba_auto_words,
     "fraction of the average load W/P taken off each overloading part; AUTO = "
     "minimise the model's predicted time at each balance (with PART growth, halved while "
     "less than half of the growth stays in the underloaded parts); lowered where the base "
     "method would get a part too small for the heaviest object (HSFC, RCB with several "
     "parts on a rank)"},
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
     "over ULBA_ALPHA times the last interval (AUTO with a balance cost: the horizon that "
     "makes the next interval longest; without one: half the last interval), one base run, "
     "no relabelling; "
     "needs object loads reported to the adaptive trigger, PART is used until two are held. "
     "PART: find the parts whose load grows fastest and give them smaller sizes (Eq. 6, the "
     "paper's ULBA)"},
    {"ULBA_LB_COST", ZP_PARAM_DOUBLE, "0", 0.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "cost of one balance in object-weight units, for ULBA_ALPHA=AUTO when no "
     "adaptive trigger measures it (0 = free, AUTO then picks alpha 0)"},
};

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

/* The model of info's measured quantities (an unknown cost counts as 0);
 * returns ULBA_OK when the model is defined. */
static int model_of(const ulba_model_info *info, ulba_model *mo)
{
  mo->P = info->P;
  mo->N = info->N;
  mo->a = info->a;
  mo->m = info->m;
  mo->W = info->W;
  mo->C = isnan(info->C) ? 0.0 : info->C;
  mo->omega = info->omega;
  return ulba_model_check(mo);
}

/* Fill the model quantities of info from its P, N, a, m, W, C, omega. */
static void summarize(ulba_model_info *info)
{
  ulba_model mo;
  ulba_summary su;
  info->sigma_minus = info->sigma_plus = info->tau = NAN;
  if (info->source == ULBA_SOURCE_NONE) return;
  if (model_of(info, &mo) != ULBA_OK) return;
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
  if (model_of(info, &mo) != ULBA_OK ||
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

static void call_end(ulba_call *c)
{
  free(c->loc);
  free(c->before);
  free(c->wir);
  free(c->fused);
  free(c->target);
  free(c->col);
  free(c->colout);
  free(c->extra);
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
  int ierr, opt;
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
  /* The options, the arrays and the state are local steps: one agreement
   * covers all three, and it carries the count of the objects (each
   * collective is a latency that every call pays). */
  opt = read_options(ctx, &c->o);
  P1 = (size_t)c->P + 1;
  n1 = (size_t)c->n + 1;
  c->loc = malloc(P1 * sizeof *c->loc);
  c->before = malloc(P1 * sizeof *c->before);
  c->wir = malloc(P1 * sizeof *c->wir);
  c->fused = malloc(2 * (2 * P1 + ULBA_MAX_TAIL) * sizeof *c->fused);
  c->target = malloc(P1 * (size_t)c->wd * sizeof *c->target);
  c->run_sizes = malloc(P1 * (size_t)c->wd * sizeof *c->run_sizes);
  c->col = malloc(P1 * sizeof *c->col);
  c->colout = malloc(P1 * sizeof *c->colout);
  c->extra = malloc(3 * P1 * sizeof *c->extra);
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
  ierr = (c->loc && c->before && c->wir && c->fused && c->target && c->run_sizes && c->col &&
          c->colout && c->extra && c->flags && c->perm && s->obj_cap >= n1)
             ? ZOLTAN_OK
             : ZOLTAN_MEMERR;
  /* The history's length is an option: fitted only once the options are. */
  if (opt >= 0 && ierr == ZOLTAN_OK) ierr = state_fit(s, c->P, c->o.history);
  n_local = c->n;
  ierr = zp_agree_code_sums(c->comm, opt < 0 ? opt : ierr, &n_local, 1);
  c->total_obj = n_local;
  if (ierr == ZOLTAN_MEMERR) zp_error(c->yo, "ULBA: out of memory for %d parts", c->P);
  if (ierr < 0) return ierr;
  state_link(s, zp_ctx_zz(ctx));
  return ZOLTAN_OK;
}

/* Source (2) when the struct's history provider holds at least two object
 * snapshots on every rank, else source (1) once one interval is known; the
 * rates go to wir.  Not collective: ulba_measure_loads reduced what it reads. */
static int find_rates(ulba_call *c)
{
  ulba_state *s = c->s;
  struct Zoltan_Struct *zz = zp_ctx_zz(c->ctx);
  int P = c->P;
  if (c->min_snap >= 2) {
    double cost;
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

/* Eq. (6) with alpha (the asked value, or AUTO's choice) per weight
 * dimension on the application's sizes, into target.  Not collective. */
static int compose_sizes(ulba_call *c, double alpha)
{
  const double *app_sizes = zp_ctx_part_sizes(c->ctx);
  int P = c->P, wd = c->wd;
  c->info.alpha_param = alpha;
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

/* Partition with the base method: exactly the base method when there is
 * nothing to anticipate, with the target sizes as they come when
 * ULBA_RELABEL=0, else relabelled (ulba_run_relabelled).  Records the last run
 * for the kept cuts.  Collective. */
static int run_base(ulba_call *c, double keep_share, int *new_part)
{
  const double *app_sizes = zp_ctx_part_sizes(c->ctx);
  int ierr;
  c->last.base = c->o.base;
  c->last.new_part = new_part;
  c->last.W = c->info.W;
  c->last.app_sizes = 0;
  c->last.part_map = NULL;
  /* One base run whose parts are the answer: the layer may hand over the
   * base method's own lists.  The relabelling permutes the parts and may
   * run twice, so its lists would be inverted for nothing. */
  zp_ctx_keep_base_lists(c->ctx, c->info.alpha == 0.0 || !c->o.relabel);
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
    ierr = ZOLTAN_OK;
    if (!c->growth_ready)
      ierr = ulba_object_growth(c->s, c->ctx, c->flags, c->use_obj_rate ? c->obj_rate : NULL,
                                c->obj_work, &c->growth_known);
    c->growth_ready = ierr == ZOLTAN_OK;
    if (ierr == ZOLTAN_OK)
      ierr = ulba_run_relabelled(c, c->growth_known ? keep_share : 0.0, new_part);
    if (ierr >= 0 && !c->growth_left) ulba_keep_guess(c->s, c->comm, c->perm, c->P);
    c->last.sizes = c->run_sizes;
    c->last.part_map = c->perm;
  }
  for (int p = 0; p < c->P && c->info.small_part < 0; p++)
    if (c->flags[p]) c->info.small_part = p;
  return ierr;
}

/* The model's quantities for what ULBA_GROWTH=OBJECT handed to the base
 * method, so that the sigma bounds and tau describe that balance: per new
 * part, the anticipated extra (weight given minus weight; none when given
 * is NULL: the weights themselves went to the base) and the growth
 * rate; the parts that received at least ULBA_OBJECT_PART_SHARE of the
 * largest extra are the underloaded ones (N), alpha is that largest extra
 * over W / P, a and m the rates of the others and theirs.  Collective. */
static int object_model(ulba_call *c, const double *given, const int *new_part)
{
  int n = c->n, wd = c->wd, P = c->P, i, p;
  const double *w = zp_ctx_local_wgts(c->ctx);
  double *extra = c->extra, top = 0.0, a = 0.0, m = 0.0;
  size_t N = 0;
  memset(extra, 0, 3 * (size_t)P * sizeof *extra);
  /* Run by run of one new part, as ulba_sum_by_part adds (why there). */
  for (i = 0; i < n;) {
    int q = new_part[i];
    double e = 0.0, r = 0.0;
    for (; i < n && new_part[i] == q; i++) {
      e += given != NULL ? given[i] - w[(size_t)i * wd] : 0.0;
      r += isnan(c->obj_rate[i]) ? 0.0 : c->obj_rate[i];
    }
    if (q >= 0 && q < P) {
      extra[q] += e;
      extra[P + q] += r;
    }
  }
  /* The loads after the balance (finish_balance) ride in the same
   * reduction, summed as ulba_part_loads sums them. */
  ulba_sum_by_part((size_t)n, new_part, w, (size_t)wd, (size_t)P, extra + 2 * P);
  if (MPI_Allreduce(MPI_IN_PLACE, extra, 3 * P, MPI_DOUBLE, MPI_SUM, c->comm) != MPI_SUCCESS)
    return ZOLTAN_FATAL;
  memcpy(c->s->after, extra + 2 * P, (size_t)P * sizeof *extra);
  c->after_known = 1;
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
  return ZOLTAN_OK;
}

/* ULBA_GROWTH=OBJECT: one base run with the application's sizes on weights
 * that anticipate each object's growth over alpha times the interval this
 * balance closes (ulba_anticipate).  Collective. */
static int balance_objects(ulba_call *c, int *new_part)
{
  const double *w = zp_ctx_local_wgts(c->ctx), *app_sizes = zp_ctx_part_sizes(c->ctx);
  double sums[2] = {c->known[0], c->known[1]}, alpha, H, *given = c->obj_work;
  int ierr;
  H = ulba_object_horizon_of(c, c->steps_max, &alpha);
  if (!isfinite(sums[1])) sums[1] = 0.0;
  ierr = ulba_cap_horizon(c, w, sums[0], sums[1], &H);
  if (ierr < 0) return ierr;
  c->horizon = H;
  /* With no horizon (ULBA_ALPHA=0) every anticipated weight is the object's
   * own, bit for bit: the base run then reads the application's weights,
   * with nothing computed or put in their place (the same answer). */
  /* ulba_anticipate fails only on its arguments: figures reduced over the
   * ranks (the sums, H) and arrays whose allocation was agreed, so its
   * outcome is the same on every rank and needs no agreement. */
  if (H == 0.0)
    given = NULL;
  else if (ulba_anticipate((size_t)c->n, w, (size_t)c->wd, c->obj_rate, sums[0], sums[1], H,
                           given) != ULBA_OK)
    ierr = ZOLTAN_FATAL;
  c->info.alpha_param = alpha;
  c->info.base_runs = 1;
  c->anticipated = 1;
  c->last.base = c->o.base;
  c->last.new_part = new_part;
  c->last.W = c->info.W;
  c->last.sizes = app_sizes;
  c->last.app_sizes = 1;
  /* The one base run's parts are the answer (see run_base). */
  zp_ctx_keep_base_lists(c->ctx, 1);
  if (ierr == ZOLTAN_OK && given == NULL)
    ierr = zp_ctx_run_base(c->ctx, c->o.base, app_sizes, new_part);
  else if (ierr == ZOLTAN_OK)
    ierr = zp_ctx_run_base_weighted(c->ctx, c->o.base, app_sizes, given, new_part);
  if (ierr >= 0) ierr = object_model(c, given, new_part);
  /* The model (sigma bounds, tau) describes the equivalent underloading. */
  c->info.alpha_param = c->info.alpha;
  return ierr;
}

/* Sizes with alpha and the base run: for ULBA_ALPHA=AUTO, while the
 * underloaded parts keep less than ULBA_AUTO_KEEP_SHARE of the growth,
 * alpha is halved and the base method runs again (alpha 0 after
 * ULBA_AUTO_SHRINKS halvings).  The share is checked where the relabelling
 * measured per-object growth: with weights as its fallback the share kept
 * is at most 1 - alpha by construction and tells nothing.  A first base run
 * that leaves the growth stops before the relabelling's rounds
 * (growth_left), so a rejected alpha costs one base run.  The shares are
 * the same on every rank, so every rank takes the same branch.
 * Collective. */
static int size_and_run(ulba_call *c, double alpha, int *new_part)
{
  int runs = 0, ierr = ulba_cap_alpha(c, &alpha);
  for (int k = 0; ierr >= 0; k++) {
    double share = 1.0;
    int check = c->o.alpha_auto && c->o.relabel && k <= ULBA_AUTO_SHRINKS;
    c->info.small_part = -1;
    ierr = compose_sizes(c, alpha);
    if (ierr >= 0) ierr = run_base(c, check ? ULBA_AUTO_KEEP_SHARE : 0.0, new_part);
    runs += c->info.base_runs;
    if (ierr < 0 || !check || c->info.alpha == 0.0 || !c->growth_known) break;
    if (!c->growth_left) {
      ierr = ulba_growth_share_kept(c, new_part, NULL, &share);
      if (ierr < 0 || share >= ULBA_AUTO_KEEP_SHARE) break;
    }
    alpha = k < ULBA_AUTO_SHRINKS ? 0.5 * alpha : 0.0;
  }
  c->info.base_runs = runs;
  return ierr;
}

/* A balance with enough objects: rates, overloading parts, sizes and the
 * base method.  Collective. */
static int balance(ulba_call *c, int *new_part)
{
  int ierr = find_rates(c);
  if (ierr >= 0 && c->o.growth_object && c->use_obj_rate) return balance_objects(c, new_part);
  if (ierr >= 0) ierr = detect_overloads(c);
  if (ierr >= 0)
    ierr = size_and_run(c, c->o.alpha_auto ? auto_alpha(&c->info) : c->o.alpha, new_part);
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
  int ierr = c->after_known ? ZOLTAN_OK : ulba_part_loads(c->ctx, new_part, c->loc, s->after);
  if (ierr < 0) return ierr;
  s->have_after = 1;
  /* The weights by ID serve the relabelling of ULBA_GROWTH=PART; a balance
   * on anticipated weights, which has the rates themselves, records none. */
  if (c->anticipated)
    ulba_forget_weights(s);
  else
    ulba_remember_weights(s, c->ctx);
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
  if (ierr >= 0) ierr = ulba_measure_loads(&c);
  if (ierr >= 0) {
    tiny = c.total_obj < c.P;
    ierr = tiny ? ulba_assign_tiny(&c, new_part) : balance(&c, new_part);
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
