/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trigger's life and its decision: create and destroy, the reports of
 * a step, one reduction per step (adaptive_reduce.c), the decision of the
 * pure core (adaptive_policy.c) and the queries of its history.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptive_internal.h"

adaptive_trigger *adaptive_create(MPI_Comm comm)
{
  adaptive_trigger *t = NULL;
  int init = 0, rc;
  MPI_Initialized(&init);
  if (!init || comm == MPI_COMM_NULL) return NULL;
  t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->comm = MPI_COMM_NULL;
  t->vec_type = MPI_DATATYPE_NULL;
  t->vec_op = MPI_OP_NULL;
  if (MPI_Comm_dup(comm, &t->comm) != MPI_SUCCESS) goto fail;
  MPI_Comm_rank(t->comm, &t->rank);
  MPI_Comm_size(t->comm, &t->size);
  /* One element of a derived type, so that the operation always sees the
   * whole vector and never a piece of it. */
  if (MPI_Type_contiguous(R_COUNT, MPI_INT64_T, &t->vec_type) != MPI_SUCCESS ||
      MPI_Type_commit(&t->vec_type) != MPI_SUCCESS)
    goto fail;
  if (MPI_Op_create(adaptive_reduce_op, 1, &t->vec_op) != MPI_SUCCESS) goto fail;
  adaptive_config_default(&t->cfg);
  rc = adaptive_state_init(&t->core, &t->cfg);
  if (rc != ADAPTIVE_OK) goto fail;
  t->speed = 1.0;
  t->loadavg_file = adaptive_trimmed_copy(adaptive_param_table[P_LOADAVG_FILE].default_value);
  if (!t->loadavg_file) goto fail;
  if (adaptive_resize_history(t, atoi(adaptive_param_table[P_HISTORY].default_value)) != ZOLTAN_OK)
    goto fail;
  if (adaptive_resize_objects(t, atoi(adaptive_param_table[P_OBJ_HISTORY].default_value)) !=
      ZOLTAN_OK)
    goto fail;
  return t;
fail:
  adaptive_destroy(&t);
  return NULL;
}

void adaptive_destroy(adaptive_trigger **tp)
{
  adaptive_trigger *t;
  int fin = 0;
  if (!tp || !*tp) return;
  t = *tp;
  adaptive_detach(t);
  if (t->trace) fclose(t->trace);
  adaptive_resize_objects(t, 0);
  adaptive_ring_free(&t->hist);
  free(t->speed_file);
  free(t->loadavg_file);
  free(t->trace_file);
  MPI_Finalized(&fin);
  if (!fin) {
    if (t->vec_op != MPI_OP_NULL) MPI_Op_free(&t->vec_op);
    if (t->vec_type != MPI_DATATYPE_NULL) MPI_Type_free(&t->vec_type);
    if (t->comm != MPI_COMM_NULL) MPI_Comm_free(&t->comm);
  }
  free(t);
  *tp = NULL;
}

int adaptive_balance_done(adaptive_trigger *t, double cost)
{
  if (!t || isnan(cost) || isinf(cost)) {
    zp_error("adaptive_balance_done", "cost = %g is not a finite number", t ? cost : 0.0);
    return ZOLTAN_FATAL;
  }
  t->event = 1;
  if (cost >= 0.0) {
    t->reported_cost += cost;
    t->cost_reported = 1;
  }
  return ZOLTAN_OK;
}

int adaptive_set_ulba_model(adaptive_trigger *t, const adaptive_ulba_model *model)
{
  if (!t) return ZOLTAN_FATAL;
  if (model && adaptive_ulba_check(model) != ADAPTIVE_OK) {
    zp_error("adaptive_set_ulba_model",
             "model out of range: P = %d (>= 1), N = %d (in [0, P)), alpha = %g (in [0, 1]), "
             "a = %g, m = %g, W = %g (finite, >= 0), omega = %g (> 0)",
             model->P, model->N, model->alpha, model->a, model->m, model->W, model->omega);
    return ZOLTAN_FATAL;
  }
  adaptive_state_set_model(&t->core, model);
  return ZOLTAN_OK;
}

int adaptive_report_load(adaptive_trigger *t, double load)
{
  if (!t || !isfinite(load) || load < 0.0) {
    zp_error("adaptive_report_load", "load = %g is not a finite number >= 0", t ? load : 0.0);
    return ZOLTAN_FATAL;
  }
  t->my_load = load;
  t->load_reported = 1;
  t->load_explicit = 1;
  return ZOLTAN_OK;
}

/* A 64-bit FNV-1a hash step over the bytes of one value. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
  const unsigned char *c = p;
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= c[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* What every rank must agree on: the decision settings, the ULBA model and
 * the number of successful calls.  Hashed field by field (never a struct's
 * padding). */
int64_t adaptive_fingerprint(const adaptive_trigger *t)
{
  const adaptive_config *c = &t->cfg;
  const adaptive_state *s = &t->core;
  uint64_t h = 14695981039346656037ull;
  long ints[11];
  double dbls[4];
  ints[0] = t->step;
  ints[1] = (long)c->policy;
  ints[2] = c->period;
  ints[3] = (long)c->index_source * 2 + (long)c->util_source;
  ints[4] = c->settle_steps;
  ints[5] = c->interval;
  ints[6] = c->ulba_early;
  ints[7] = s->have_model;
  ints[8] = c->ulba_guard;
  ints[9] = t->policy_auto;
  ints[10] = (long)c->degradation;
  dbls[0] = c->initial_cost;
  dbls[1] = c->cost_weight;
  dbls[2] = c->eff_min;
  dbls[3] = c->threshold;
  h = fnv(h, ints, sizeof ints);
  h = fnv(h, dbls, sizeof dbls);
  if (s->have_model) {
    h = fnv(h, &s->model.P, sizeof s->model.P);
    h = fnv(h, &s->model.N, sizeof s->model.N);
    h = fnv(h, &s->model.alpha, sizeof(double));
    h = fnv(h, &s->model.a, sizeof(double));
    h = fnv(h, &s->model.m, sizeof(double));
    h = fnv(h, &s->model.W, sizeof(double));
    h = fnv(h, &s->model.omega, sizeof(double));
  }
  return (int64_t)(h >> 2); /* non-negative, so that its negation fits */
}

/* What this rank brings to a step, before the reduction. */
typedef struct local_step {
  int64_t flags; /* F_* bits of this rank */
  double time;   /* the largest step time of this rank's PEs, 0 when unusable */
  double tmin;   /* the smallest */
  double tsum;   /* their sum */
  int npe;       /* PEs this rank plays */
  double index;  /* THRESHOLD's load index (LOADAVG), else 0 */
  double util;   /* EFFICIENCY's utilization (LOAD), else 0 */
  double cost;   /* cost of the balances reported since the last call */
} local_step;

/* Checks this rank's inputs of the step (printing what is wrong) and sets
 * the flags that every rank will see after the reduction. */
/* The step times of this rank's PEs into ls (time = largest, tmin, tsum,
 * npe), with the flags of a bad value. */
static void measure_times(const adaptive_trigger *t, int num_pes, const double *pe_times,
                          local_step *ls)
{
  static const char *yo = "adaptive_should_balance";
  int i;
  if (num_pes < 1 || pe_times == NULL) {
    ls->flags |= F_BAD_PES;
    zp_error(yo, "rank %d gave %d PE times%s (at least one is needed)", t->rank, num_pes,
             pe_times == NULL ? " and no array" : "");
    return;
  }
  ls->npe = num_pes;
  ls->tmin = FIX_LIMIT;
  for (i = 0; i < num_pes; i++) {
    double x = pe_times[i];
    if (!isfinite(x) || x < 0.0) {
      ls->flags |= F_BAD_TIME;
      zp_error(yo, "step time = %g of PE %d on rank %d is not a finite number >= 0", x, i, t->rank);
      x = 0.0;
    } else if (x >= FIX_LIMIT) {
      ls->flags |= F_TOO_LARGE;
      zp_error(yo, "step time = %g of PE %d on rank %d is too large", x, i, t->rank);
      x = 0.0;
    }
    if (x > ls->time) ls->time = x;
    if (x < ls->tmin) ls->tmin = x;
    ls->tsum += x;
  }
  if (ls->tsum >= FIX_LIMIT) {
    ls->flags |= F_TOO_LARGE;
    zp_error(yo, "the step times of rank %d's %d PEs sum to %g, too large", t->rank, num_pes,
             ls->tsum);
    ls->tsum = 0.0;
  }
}

static void measure_local(const adaptive_trigger *t, int num_pes, const double *pe_times,
                          local_step *ls)
{
  static const char *yo = "adaptive_should_balance";
  double avenrun = 0.0, speed = t->speed;
  /* The layer's capacity model, when the struct has one, is the one source
   * of every rank's speed: ADAPTIVE_SPEED then steps aside. */
  if (t->zz != NULL) zp_capacity_of(t->zz, &speed);
  memset(ls, 0, sizeof *ls);
  measure_times(t, num_pes, pe_times, ls);
  if (t->cfg.index_source == ADAPTIVE_INDEX_LOADAVG) {
    if (adaptive_read_avenrun(t->loadavg_file, &avenrun) != 0) {
      ls->flags |= F_BAD_INDEX;
      zp_error(yo, "cannot read the load average from %s on rank %d", t->loadavg_file, t->rank);
    } else {
      ls->index = (1.0 + avenrun) / speed;
    }
  }
  if (t->cfg.util_source == ADAPTIVE_UTIL_LOAD) {
    if (!t->load_reported) {
      ls->flags |= F_NO_LOAD;
      zp_error(yo,
               "ADAPTIVE_UTILIZATION = LOAD but rank %d reported no load for the step "
               "(adaptive_report_load)",
               t->rank);
    } else {
      ls->util = t->my_load / speed;
      if (!isfinite(ls->util) || ls->util >= FIX_LIMIT) {
        ls->flags |= F_TOO_LARGE;
        zp_error(yo, "utilization = %g on rank %d is too large", ls->util, t->rank);
        ls->util = 0.0;
      }
    }
  }
  if (t->event) {
    ls->flags |= F_EVENT;
    ls->cost = t->cost_reported ? t->reported_cost : t->observed_cost;
  } else {
    ls->flags |= F_NOEVENT;
  }
}

/* Packs this rank's contribution into the reduction vector. */
static void pack_local(const adaptive_trigger *t, const local_step *ls, int64_t *v)
{
  memset(v, 0, R_COUNT * sizeof *v);
  v[R_FLAGS] = ls->flags;
  v[R_TMAX] = adaptive_enc_max(ls->time);
  v[R_TMIN] = adaptive_enc_min(ls->npe > 0 ? ls->tmin : 0.0);
  v[R_IMAX] = adaptive_enc_max(ls->index);
  v[R_IMIN] = adaptive_enc_min(ls->index);
  v[R_UMAX] = adaptive_enc_max(ls->util);
  /* A rank that knows no cost sends -1, below the encoding of any cost, so
   * the maximum is -1 only when no rank knows the cost. */
  v[R_COST] = (t->event && !t->cost_reported && !t->observed) ? -1 : adaptive_enc_max(ls->cost);
  v[R_FP] = adaptive_fingerprint(t);
  v[R_FPNEG] = -v[R_FP];
  adaptive_enc_sum(ls->tsum, &v[R_TSUM]);
  adaptive_enc_sum(ls->util, &v[R_USUM]);
  v[R_NPE] = ls->npe;
}

/* Forgets the balance reported since the last call. */
static void clear_report(adaptive_trigger *t)
{
  t->event = t->cost_reported = t->observed = 0;
  t->observed_cost = t->reported_cost = 0.0;
}

/* The errors every rank sees in the reduced vector; ZOLTAN_OK or, with a
 * message on rank 0, ZOLTAN_FATAL (the same on every rank). */
static int check_reduced(adaptive_trigger *t, const int64_t *v)
{
  static const char *yo = "adaptive_should_balance";
  int64_t flags = v[R_FLAGS];
  if (flags & (F_BAD_TIME | F_BAD_INDEX | F_NO_LOAD | F_TOO_LARGE | F_BAD_PES)) {
    if (t->rank == 0)
      zp_error(yo, "a rank gave a bad step time, PE count, load index or load; step ignored");
    return ZOLTAN_FATAL;
  }
  if (v[R_FP] != -v[R_FPNEG]) {
    if (t->rank == 0)
      zp_error(yo, "the ranks disagree on the ADAPTIVE_* parameters, the ULBA model or the "
                   "number of calls; step ignored");
    return ZOLTAN_FATAL;
  }
  if ((flags & F_EVENT) && (flags & F_NOEVENT)) {
    /* Forget the partial report everywhere so that the ranks agree again. */
    clear_report(t);
    if (t->rank == 0)
      zp_error(yo, "a balance was reported on some ranks only (adaptive_balance_done must be "
                   "called on every rank); report discarded, step ignored");
    return ZOLTAN_FATAL;
  }
  if (t->awaiting && !(flags & F_EVENT)) {
    t->awaiting = 0;
    if (t->rank == 0)
      zp_error(yo, "the previous call returned 1 but no balance was reported "
                   "(adaptive_balance_done or an attached Zoltan call); step ignored");
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* A balance reported on every rank: C gets its cost (the largest over the
 * ranks, or unknown) and the history since the previous balance ends. */
static void commit_balance(adaptive_trigger *t, const int64_t *v)
{
  double c = v[R_COST] < 0 ? -1.0 : adaptive_dec_max(v[R_COST]);
  adaptive_state_balanced(&t->core, c);
  adaptive_ring_clear(&t->hist);
  adaptive_drop_snapshots_before(t, t->step);
  t->balances++;
  clear_report(t);
}

/* The step's figures over the ranks, from the reduced vector. */
static void decode_step(const adaptive_trigger *t, const int64_t *v, adaptive_step *st)
{
  st->t_max = adaptive_dec_max(v[R_TMAX]);
  st->t_min = adaptive_dec_min(v[R_TMIN]);
  /* The average over the PEs (one per rank unless adaptive_should_balance_pes
   * gave more); check_reduced has made sure every rank gave at least one. */
  st->t_avg = fmin(fmax(adaptive_dec_sum(&v[R_TSUM]) / (double)v[R_NPE], st->t_min), st->t_max);
  st->idx_max = adaptive_dec_max(v[R_IMAX]);
  st->idx_min = adaptive_dec_min(v[R_IMIN]);
  st->u_max = adaptive_dec_max(v[R_UMAX]);
  st->u_avg = fmin(adaptive_dec_sum(&v[R_USUM]) / t->size, st->u_max);
}

/* Keeps the decided step: history ring, last quantities, trace, debug line,
 * and the per-step state that the next call starts from. */
static void record_step(adaptive_trigger *t, double my_step_time, const adaptive_step *st,
                        const adaptive_quantities *q, int decision)
{
  adaptive_record rec;
  rec.step = t->step;
  rec.my_time = my_step_time;
  rec.my_load = t->load_reported ? t->my_load : NAN;
  rec.t_max = st->t_max;
  rec.t_avg = st->t_avg;
  rec.t_min = st->t_min;
  adaptive_ring_push(&t->hist, &rec);
  t->last = *q;
  t->have_last = 1;
  adaptive_write_trace(t, st, q);
  if (t->rank == 0 && (t->debug_level >= 2 || (t->debug_level >= 1 && decision == 1)))
    printf("ADAPTIVE step %ld (%ld since balance): %s, policy %s, degradation %g, C %g\n", t->step,
           q->since, decision ? "balance" : "wait", adaptive_policy_name(t->cfg.policy),
           q->degradation, q->cost);
  t->awaiting = decision;
  t->load_reported = t->load_explicit = 0;
  t->my_load = 0.0;
  t->step++;
}

int adaptive_should_balance(adaptive_trigger *t, double my_step_time)
{
  return adaptive_should_balance_pes(t, 1, &my_step_time);
}

int adaptive_should_balance_pes(adaptive_trigger *t, int num_pes, const double *pe_times)
{
  static const char *yo = "adaptive_should_balance";
  int64_t v[R_COUNT];
  local_step ls;
  adaptive_step st;
  adaptive_quantities q;
  int decision;

  if (!t) {
    zp_error(yo, "trigger is NULL");
    return ZOLTAN_FATAL;
  }
  measure_local(t, num_pes, pe_times, &ls);
  pack_local(t, &ls, v);
  if (MPI_Allreduce(MPI_IN_PLACE, v, 1, t->vec_type, t->vec_op, t->comm) != MPI_SUCCESS) {
    zp_error(yo, "MPI_Allreduce failed");
    return ZOLTAN_FATAL;
  }
  if (check_reduced(t, v) != ZOLTAN_OK) return ZOLTAN_FATAL;
  if (v[R_FLAGS] & F_EVENT) commit_balance(t, v);
  t->awaiting = 0;
  decode_step(t, v, &st);
  decision = adaptive_state_step(&t->core, &st, &q);
  if (decision < 0) {
    /* The values were checked before the reduction; this is a bug. */
    zp_error(yo, "internal error: the decision logic rejected the reduced step");
    return ZOLTAN_FATAL;
  }
  record_step(t, ls.time, &st, &q, decision);
  return decision;
}

long adaptive_history(const adaptive_trigger *t, adaptive_record *out, size_t max)
{
  size_t n, i, skip;
  if (!t || (!out && max > 0)) return ZOLTAN_FATAL;
  if (t->event) return 0; /* a balance is pending: nothing since it yet */
  n = t->hist.count;
  skip = n > max ? n - max : 0;
  for (i = skip; i < n; i++) out[i - skip] = *adaptive_ring_get(&t->hist, i);
  return (long)n;
}

int adaptive_increase_rate(const adaptive_trigger *t, int what, double *rate)
{
  double *x = NULL, *y = NULL;
  size_t i, k = 0, n;
  int rc = ZOLTAN_OK;
  if (!t || !rate || (what != 0 && what != 1)) return ZOLTAN_FATAL;
  *rate = 0.0;
  n = t->event ? 0 : t->hist.count;
  if (n < 2) return ZOLTAN_WARN;
  x = malloc(n * sizeof *x);
  y = malloc(n * sizeof *y);
  if (!x || !y) {
    rc = ZOLTAN_MEMERR;
    goto end;
  }
  for (i = 0; i < n; i++) {
    const adaptive_record *r = adaptive_ring_get(&t->hist, i);
    double val = what == 0 ? r->my_time : r->my_load;
    if (isnan(val)) continue;
    x[k] = (double)r->step;
    y[k] = val;
    k++;
  }
  if (k < 2) {
    rc = ZOLTAN_WARN;
    goto end;
  }
  *rate = adaptive_ls_slope(k, x, y);
end:
  free(x);
  free(y);
  return rc;
}

long adaptive_steps_since_balance(const adaptive_trigger *t)
{
  if (!t) return -1;
  return t->event ? 0 : t->core.since;
}

double adaptive_balance_cost(const adaptive_trigger *t)
{
  if (!t || t->core.cost_count == 0) return -1.0;
  return t->core.cost;
}

long adaptive_num_balances(const adaptive_trigger *t) { return t ? t->balances : -1; }

const char *adaptive_policy_in_use(const adaptive_trigger *t)
{
  return t ? adaptive_policy_name(t->cfg.policy) : NULL;
}

int adaptive_last_quantities(const adaptive_trigger *t, double *degradation, double *m_hat,
                             double *tau, double *sigma_minus, double *sigma_plus, double *spread,
                             double *eff)
{
  if (!t) return ZOLTAN_FATAL;
  if (!t->have_last) return ZOLTAN_WARN;
  if (degradation) *degradation = t->last.degradation;
  if (m_hat) *m_hat = t->last.m_hat;
  if (tau) *tau = t->last.tau;
  if (sigma_minus) *sigma_minus = t->last.sigma_minus;
  if (sigma_plus) *sigma_plus = t->last.sigma_plus;
  if (spread) *spread = t->last.spread;
  if (eff) *eff = t->last.eff;
  return ZOLTAN_OK;
}
