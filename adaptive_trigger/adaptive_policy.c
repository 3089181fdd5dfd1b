/* SPDX-License-Identifier: BSD-3-Clause */
#include "adaptive_policy.h"
#include "ulba_core.h"

#include <assert.h>
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

/* Names accepted by ADAPTIVE_POLICY, indexed by adaptive_policy_id. */
static const char *const policy_names[] = {"ZHAI",  "MENON",     "MENON_CUMULATIVE",
                                           "ULBA",  "PERIODIC",  "ALWAYS",
                                           "NEVER", "THRESHOLD", "EFFICIENCY"};
#define NUM_POLICIES (sizeof policy_names / sizeof policy_names[0])

const char *adaptive_policy_name(adaptive_policy_id id)
{
  if ((unsigned)id >= NUM_POLICIES) return "UNKNOWN";
  return policy_names[id];
}

/* Compares a word with an upper-case name, ignoring the word's case. */
static int same_word(const char *word, const char *name)
{
  while (*word && *name) {
    if (toupper((unsigned char)*word) != *name) return 0;
    word++;
    name++;
  }
  return *word == '\0' && *name == '\0';
}

/* Names accepted by ADAPTIVE_DEGRADATION, indexed by adaptive_degradation. */
static const char *const degradation_names[] = {"TOTAL", "IMBALANCE"};
#define NUM_DEGRADATIONS (sizeof degradation_names / sizeof degradation_names[0])

const char *adaptive_degradation_name(adaptive_degradation id)
{
  if ((unsigned)id >= NUM_DEGRADATIONS) return "UNKNOWN";
  return degradation_names[id];
}

int adaptive_degradation_parse(const char *word, adaptive_degradation *id)
{
  size_t i;
  if (!word || !id) return ADAPTIVE_EINVAL;
  for (i = 0; i < NUM_DEGRADATIONS; i++) {
    if (same_word(word, degradation_names[i])) {
      *id = (adaptive_degradation)i;
      return ADAPTIVE_OK;
    }
  }
  return ADAPTIVE_EINVAL;
}

int adaptive_policy_parse(const char *word, adaptive_policy_id *id)
{
  size_t i;
  if (!word || !id) return ADAPTIVE_EINVAL;
  for (i = 0; i < NUM_POLICIES; i++) {
    if (same_word(word, policy_names[i])) {
      *id = (adaptive_policy_id)i;
      return ADAPTIVE_OK;
    }
  }
  return ADAPTIVE_EINVAL;
}

void adaptive_config_default(adaptive_config *cfg)
{
  cfg->policy = ADAPTIVE_POLICY_ZHAI;
  cfg->period = 100;
  cfg->initial_cost = -1.0;
  cfg->cost_weight = 0.0;
  cfg->eff_min = 0.9;
  cfg->threshold = 0.25;
  cfg->index_source = ADAPTIVE_INDEX_TIME;
  cfg->util_source = ADAPTIVE_UTIL_TIME;
  cfg->settle_steps = 3;
  cfg->interval = 1;
  cfg->ulba_early = 1;
  cfg->ulba_guard = 0;
  cfg->degradation = ADAPTIVE_DEGRADATION_TOTAL;
}

int adaptive_config_check(const adaptive_config *cfg)
{
  if (!cfg) return ADAPTIVE_EINVAL;
  if ((unsigned)cfg->policy >= NUM_POLICIES) return ADAPTIVE_EINVAL;
  if (cfg->period < 1) return ADAPTIVE_EINVAL;
  /* Any negative seed means "none"; NaN or +inf is a mistake. */
  if (!isfinite(cfg->initial_cost)) return ADAPTIVE_EINVAL;
  if (!(cfg->cost_weight >= 0.0 && cfg->cost_weight <= 1.0)) return ADAPTIVE_EINVAL;
  if (!(cfg->eff_min > 0.0 && cfg->eff_min <= 1.0)) return ADAPTIVE_EINVAL;
  if (!(cfg->threshold >= 0.0) || !isfinite(cfg->threshold)) return ADAPTIVE_EINVAL;
  if (cfg->index_source != ADAPTIVE_INDEX_TIME && cfg->index_source != ADAPTIVE_INDEX_LOADAVG)
    return ADAPTIVE_EINVAL;
  if (cfg->util_source != ADAPTIVE_UTIL_TIME && cfg->util_source != ADAPTIVE_UTIL_LOAD)
    return ADAPTIVE_EINVAL;
  if (cfg->settle_steps < 1 || cfg->interval < 1) return ADAPTIVE_EINVAL;
  if (cfg->ulba_early != 0 && cfg->ulba_early != 1) return ADAPTIVE_EINVAL;
  if (cfg->ulba_guard != 0 && cfg->ulba_guard != 1) return ADAPTIVE_EINVAL;
  if ((unsigned)cfg->degradation >= NUM_DEGRADATIONS) return ADAPTIVE_EINVAL;
  return ADAPTIVE_OK;
}

/* A value the trigger accepts as a time, a load or a cost. */
static int good_value(double v) { return isfinite(v) && v >= 0.0; }

int adaptive_step_from_times(size_t n, const double *times, const double *index, const double *util,
                             adaptive_step *out)
{
  size_t i;
  double sum_t = 0.0, sum_u = 0.0;
  if (n == 0 || !times || !out) return ADAPTIVE_EINVAL;
  for (i = 0; i < n; i++) {
    if (!good_value(times[i])) return ADAPTIVE_EINVAL;
    if (index && !good_value(index[i])) return ADAPTIVE_EINVAL;
    if (util && !good_value(util[i])) return ADAPTIVE_EINVAL;
  }
  out->t_max = out->t_min = times[0];
  out->idx_max = out->idx_min = index ? index[0] : 0.0;
  out->u_max = util ? util[0] : 0.0;
  for (i = 0; i < n; i++) {
    sum_t += times[i];
    if (times[i] > out->t_max) out->t_max = times[i];
    if (times[i] < out->t_min) out->t_min = times[i];
    if (index) {
      if (index[i] > out->idx_max) out->idx_max = index[i];
      if (index[i] < out->idx_min) out->idx_min = index[i];
    }
    if (util) {
      sum_u += util[i];
      if (util[i] > out->u_max) out->u_max = util[i];
    }
  }
  /* Rounding of the sum must not put the average outside [min, max], which
   * adaptive_state_step would reject. */
  out->t_avg = fmin(fmax(sum_t / (double)n, out->t_min), out->t_max);
  out->u_avg = util ? fmin(sum_u / (double)n, out->u_max) : 0.0;
  return ADAPTIVE_OK;
}

double adaptive_cost_update(double cost, long count, double sample, double weight)
{
  if (count <= 0) return sample;
  if (weight == 0.0) return cost + (sample - cost) / (double)(count + 1);
  return weight * sample + (1.0 - weight) * cost;
}

int adaptive_ulba_check(const adaptive_ulba_model *m)
{
  if (!m) return ADAPTIVE_EINVAL;
  if (m->P < 1 || m->N < 0 || m->N >= m->P) return ADAPTIVE_EINVAL;
  if (!(m->alpha >= 0.0 && m->alpha < 1.0)) return ADAPTIVE_EINVAL;
  if (!good_value(m->a) || !good_value(m->m) || !good_value(m->W)) return ADAPTIVE_EINVAL;
  if (!(m->omega > 0.0) || !isfinite(m->omega)) return ADAPTIVE_EINVAL;
  return ADAPTIVE_OK;
}

/* The ULBA core's model for this trigger model.  The core wants P >= 2 and
 * W > 0; a trigger model with P == 1 or no work never reaches it (callers
 * answer those cases first), and W is kept positive for the same reason. */
static ulba_model to_ulba(const adaptive_ulba_model *m, double C)
{
  ulba_model u;
  u.P = m->P;
  u.N = m->N;
  u.a = m->a;
  u.m = m->m;
  u.W = m->W > 0.0 ? m->W : DBL_MIN;
  u.C = C;
  u.omega = m->omega;
  return u;
}

/* Eq. 11 at any step count since the balance (the ULBA core's
 * ulba_overhead counts only from sigma-minus on, the trigger needs every
 * step).  Eqs. 8 and 12 live once, in the ULBA core (ulba/ulba_core.c). */
double adaptive_ulba_overhead(const adaptive_ulba_model *m, double steps)
{
  double P = m->P, N = m->N;
  double dW = m->a * P + m->m * N;
  return m->alpha * N / (P - N) * (m->W + steps * dW) / (m->omega * P);
}

int adaptive_ulba_bounds(const adaptive_ulba_model *m, double C, double *sigma_minus,
                         double *sigma_plus)
{
  ulba_model u;
  if (adaptive_ulba_check(m) != ADAPTIVE_OK || !good_value(C) || !sigma_minus || !sigma_plus)
    return ADAPTIVE_EINVAL;
  /* Without overloading PEs the model builds no imbalance, so no balance is
   * ever worth its cost. */
  if (m->N == 0 || m->m == 0.0 || m->P < 2) {
    *sigma_minus = 0.0;
    *sigma_plus = INFINITY;
    return ADAPTIVE_OK;
  }
  u = to_ulba(m, C);
  if (ulba_sigma_minus(&u, m->alpha, sigma_minus) != ULBA_OK ||
      ulba_sigma_plus(&u, m->alpha, sigma_plus) != ULBA_OK)
    return ADAPTIVE_EINVAL;
  return ADAPTIVE_OK;
}

double adaptive_ls_slope(size_t n, const double *x, const double *y)
{
  size_t i;
  double mx = 0.0, my = 0.0, sxy = 0.0, sxx = 0.0;
  if (n < 2 || !x || !y) return 0.0;
  for (i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= (double)n;
  my /= (double)n;
  for (i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0.0 ? sxy / sxx : 0.0;
}

/* The cost C the policies use: 0 while no sample is known. */
static double cost_or_zero(const adaptive_state *s) { return s->cost_count > 0 ? s->cost : 0.0; }

/* Recomputes the ULBA bounds after the model or C changed. */
static void update_bounds(adaptive_state *s)
{
  s->sigma_minus = 0.0;
  s->sigma_plus = INFINITY;
  if (s->have_model) {
    int rc = adaptive_ulba_bounds(&s->model, cost_or_zero(s), &s->sigma_minus, &s->sigma_plus);
    /* The model and C were checked when they were stored. */
    assert(rc == ADAPTIVE_OK);
    (void)rc;
  }
}

/* Restarts ZHAI's series: the next step becomes the reference. */
static void reset_zhai(adaptive_state *s)
{
  s->zhai_steps = 0;
  s->reference = 0.0;
  s->recent[0] = s->recent[1] = s->recent[2] = 0.0;
  s->degradation = 0.0;
}

/* Forgets everything measured since the last balance. */
static void reset_interval(adaptive_state *s)
{
  s->since = 0;
  reset_zhai(s);
  s->reg_mean_x = s->reg_mean_y = s->reg_cxy = s->reg_m2x = 0.0;
  s->imbalance = 0.0;
}

int adaptive_state_init(adaptive_state *s, const adaptive_config *cfg)
{
  if (!s || adaptive_config_check(cfg) != ADAPTIVE_OK) return ADAPTIVE_EINVAL;
  s->cfg = *cfg;
  s->have_model = 0;
  s->cost_count = cfg->initial_cost >= 0.0 ? 1 : 0;
  s->cost = cfg->initial_cost >= 0.0 ? cfg->initial_cost : 0.0;
  reset_interval(s);
  update_bounds(s);
  return ADAPTIVE_OK;
}

int adaptive_state_configure(adaptive_state *s, const adaptive_config *cfg)
{
  if (!s || adaptive_config_check(cfg) != ADAPTIVE_OK) return ADAPTIVE_EINVAL;
  /* A new seed restarts the running average; the documented meaning of
   * setting ADAPTIVE_LB_COST during a run. */
  if (cfg->initial_cost != s->cfg.initial_cost) {
    s->cost_count = cfg->initial_cost >= 0.0 ? 1 : 0;
    s->cost = cfg->initial_cost >= 0.0 ? cfg->initial_cost : 0.0;
  }
  /* A sum of t_max differences and one of (t_max - t_avg) differences do
   * not add up, so a new setting starts its own series. */
  if (cfg->degradation != s->cfg.degradation) reset_zhai(s);
  s->cfg = *cfg;
  update_bounds(s);
  return ADAPTIVE_OK;
}

int adaptive_state_set_model(adaptive_state *s, const adaptive_ulba_model *m)
{
  if (!s) return ADAPTIVE_EINVAL;
  if (m) {
    if (adaptive_ulba_check(m) != ADAPTIVE_OK) return ADAPTIVE_EINVAL;
    s->model = *m;
    s->have_model = 1;
  } else {
    s->have_model = 0;
  }
  update_bounds(s);
  return ADAPTIVE_OK;
}

int adaptive_state_balanced(adaptive_state *s, double cost)
{
  if (!s || isnan(cost) || isinf(cost)) return ADAPTIVE_EINVAL;
  if (cost >= 0.0) {
    s->cost = adaptive_cost_update(s->cost, s->cost_count, cost, s->cfg.cost_weight);
    s->cost_count++;
  }
  reset_interval(s);
  update_bounds(s);
  return ADAPTIVE_OK;
}

/* The median of the last min(n, 3) values of ZHAI's series; of two, their
 * mean. */
static double recent_median(const adaptive_state *s)
{
  double a = s->recent[0], b = s->recent[1], c = s->recent[2];
  if (s->zhai_steps == 1) return s->recent[0];
  if (s->zhai_steps == 2) return 0.5 * (a + b);
  return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/*
 * ZHAI: Algorithm 1, lines 11-15, with the median taken over the steps since
 * the balance only (the steps before it measured the imbalance the balance
 * removed).  With TOTAL the series is t_max itself, as published.  With
 * IMBALANCE it is t_max - t_avg: the growth of the average (work added on
 * every rank alike) is then not counted, because no balance can remove it,
 * while the growth of the slowest rank beyond the average still is.  The
 * reference subtracts the imbalance the last balance left behind, which a
 * balance could not remove either.  Returns the accumulated degradation.
 */
static double zhai_update(adaptive_state *s, const adaptive_step *in, adaptive_quantities *q)
{
  double x =
      s->cfg.degradation == ADAPTIVE_DEGRADATION_IMBALANCE ? in->t_max - in->t_avg : in->t_max;
  s->zhai_steps++;
  if (s->zhai_steps == 1) s->reference = x;
  s->recent[(s->zhai_steps - 1) % 3] = x;
  q->median = recent_median(s);
  s->degradation += q->median - s->reference;
  return s->degradation;
}

/*
 * What ULBA's model predicts ZHAI's degradation to be after n steps before
 * sigma-minus (n = zhai_steps, which is `since` unless the degradation
 * setting changed since the balance).  Until then the slowest rank is a non-overloading one, whose
 * step time grows by a / omega per step, so the TOTAL sum reaches
 * a n (n - 1) / (2 omega).  The average grows by dW / (P omega) per step
 * (dW = aP + mN), so the slowest rank's time above the average changes by
 * (a - dW / P) / omega = -m N / (P omega) per step: the IMBALANCE sum is
 * expected to fall, as the underloaded PEs catch up.
 */
static double model_degradation(const adaptive_state *s)
{
  double n = (double)s->zhai_steps, per_step = s->model.a;
  if (s->cfg.degradation == ADAPTIVE_DEGRADATION_IMBALANCE)
    per_step = -s->model.m * (double)s->model.N / (double)s->model.P;
  return per_step * n * (n - 1.0) / (2.0 * s->model.omega);
}

/* A cost-versus-accumulated-loss test: loss >= limit, or loss > 0 when the
 * limit is 0 (C still unknown and no overhead), so that an unknown C
 * balances as soon as any loss is measured. */
static int exceeds(double loss, double limit) { return limit > 0.0 ? loss >= limit : loss > 0.0; }

/* Checks the step's values that the configured sources use. */
static int check_step(const adaptive_config *cfg, const adaptive_step *in)
{
  if (!good_value(in->t_max) || !good_value(in->t_avg) || !good_value(in->t_min))
    return ADAPTIVE_EINVAL;
  if (!(in->t_min <= in->t_avg && in->t_avg <= in->t_max)) return ADAPTIVE_EINVAL;
  if (cfg->index_source == ADAPTIVE_INDEX_LOADAVG &&
      (!good_value(in->idx_max) || !good_value(in->idx_min) || in->idx_min > in->idx_max))
    return ADAPTIVE_EINVAL;
  if (cfg->util_source == ADAPTIVE_UTIL_LOAD &&
      (!good_value(in->u_max) || !good_value(in->u_avg) || in->u_avg > in->u_max))
    return ADAPTIVE_EINVAL;
  return ADAPTIVE_OK;
}

int adaptive_state_step(adaptive_state *s, const adaptive_step *in, adaptive_quantities *q)
{
  adaptive_quantities loc;
  const adaptive_config *cfg;
  double C, n, y, dx, dy, zhai_limit;
  int zhai_fire, decision = 0;

  if (!s || !in) return ADAPTIVE_EINVAL;
  cfg = &s->cfg;
  if (check_step(cfg, in) != ADAPTIVE_OK) return ADAPTIVE_EINVAL;
  if (!q) q = &loc;

  s->since++;
  n = (double)s->since;
  C = cost_or_zero(s);

  zhai_update(s, in, q);
  q->overhead = s->have_model ? adaptive_ulba_overhead(&s->model, n) : 0.0;
  zhai_limit = C + q->overhead;
  zhai_fire = exceeds(s->degradation, zhai_limit);

  /* MENON: an online least-squares fit (Welford's update) of the extra time
   * of the slowest rank against the step number. */
  y = in->t_max - in->t_avg;
  dx = n - s->reg_mean_x;
  dy = y - s->reg_mean_y;
  s->reg_mean_x += dx / n;
  s->reg_mean_y += dy / n;
  s->reg_cxy += dx * (y - s->reg_mean_y);
  s->reg_m2x += dx * (n - s->reg_mean_x);
  q->m_hat = (s->since >= 2 && s->reg_m2x > 0.0) ? s->reg_cxy / s->reg_m2x : 0.0;
  q->tau = q->m_hat > 0.0 ? sqrt(2.0 * C / q->m_hat) : INFINITY;
  s->imbalance += y;

  /* THRESHOLD and EFFICIENCY measure only after the settling steps, then
   * every interval steps (Stellner's two measurement intervals). */
  q->measured =
      s->since >= cfg->settle_steps && (s->since - cfg->settle_steps) % cfg->interval == 0;
  if (cfg->index_source == ADAPTIVE_INDEX_LOADAVG)
    q->spread = in->idx_max - in->idx_min;
  else
    q->spread = in->t_avg > 0.0 ? (in->t_max - in->t_min) / in->t_avg : 0.0;
  if (cfg->util_source == ADAPTIVE_UTIL_LOAD)
    q->eff = in->u_max > 0.0 ? in->u_avg / in->u_max : 1.0;
  else
    q->eff = in->t_max > 0.0 ? in->t_avg / in->t_max : 1.0;

  switch (cfg->policy) {
  case ADAPTIVE_POLICY_ZHAI:
    decision = zhai_fire;
    break;
  case ADAPTIVE_POLICY_MENON:
    decision = s->since >= 2 && q->m_hat > 0.0 && n >= q->tau;
    break;
  case ADAPTIVE_POLICY_MENON_CUMULATIVE:
    decision = exceeds(s->imbalance, C);
    break;
  case ADAPTIVE_POLICY_ULBA:
    /* Without a model (or with one that builds no imbalance) the bounds are
     * [0, inf) and ULBA reduces to ZHAI. */
    if (isinf(s->sigma_plus))
      decision = zhai_fire;
    else if (n >= s->sigma_minus)
      decision = n >= s->sigma_plus || (cfg->ulba_early && zhai_fire);
    else
      /* Before sigma-minus the model predicts ZHAI's sum (model_degradation).
       * More than that by C plus the overhead means the growth went
       * elsewhere than predicted (for example onto a neighbour of the
       * underloaded part), and waiting for sigma-minus would only lose
       * time. */
      decision = cfg->ulba_guard && exceeds(s->degradation - model_degradation(s), zhai_limit);
    break;
  case ADAPTIVE_POLICY_PERIODIC:
    decision = s->since >= cfg->period;
    break;
  case ADAPTIVE_POLICY_ALWAYS:
    decision = 1;
    break;
  case ADAPTIVE_POLICY_NEVER:
    decision = 0;
    break;
  case ADAPTIVE_POLICY_THRESHOLD:
    decision = q->measured && q->spread > cfg->threshold;
    break;
  case ADAPTIVE_POLICY_EFFICIENCY:
    decision = q->measured && q->eff < cfg->eff_min;
    break;
  }

  q->since = s->since;
  q->reference = s->reference;
  q->degradation = s->degradation;
  q->cost = s->cost_count > 0 ? s->cost : -1.0;
  q->imbalance = s->imbalance;
  q->sigma_minus = s->sigma_minus;
  q->sigma_plus = s->sigma_plus;
  q->decision = decision;
  return decision;
}

int adaptive_ring_init(adaptive_ring *h, size_t capacity)
{
  if (!h) return ADAPTIVE_EINVAL;
  h->rec = NULL;
  h->capacity = h->start = h->count = 0;
  if (capacity < 1) return ADAPTIVE_EINVAL;
  h->rec = malloc(capacity * sizeof *h->rec);
  if (!h->rec) return ADAPTIVE_ENOMEM;
  h->capacity = capacity;
  return ADAPTIVE_OK;
}

void adaptive_ring_free(adaptive_ring *h)
{
  if (!h) return;
  free(h->rec);
  h->rec = NULL;
  h->capacity = h->start = h->count = 0;
}

void adaptive_ring_clear(adaptive_ring *h) { h->start = h->count = 0; }

void adaptive_ring_push(adaptive_ring *h, const adaptive_record *r)
{
  assert(h->capacity >= 1);
  if (h->count < h->capacity) {
    h->rec[(h->start + h->count) % h->capacity] = *r;
    h->count++;
  } else {
    h->rec[h->start] = *r;
    h->start = (h->start + 1) % h->capacity;
  }
}

const adaptive_record *adaptive_ring_get(const adaptive_ring *h, size_t i)
{
  if (!h || i >= h->count) return NULL;
  return &h->rec[(h->start + i) % h->capacity];
}
