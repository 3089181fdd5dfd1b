/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ADAPTIVE_POLICY_H
#define ADAPTIVE_POLICY_H

/*
 * The decision logic of the adaptive trigger, as pure C: no MPI, no Zoltan,
 * no I/O.  A state is fed once per time step with quantities already reduced
 * over the ranks (maximum, average and minimum step time, and the extremes of
 * the optional load index and utilization) and answers whether to balance
 * now.  Every policy's quantities are computed at every step, whatever policy
 * decides, so that a trace shows them all side by side.
 *
 * Step counting: "since" is the number of steps computed since the last
 * balance, including the current one.  The first step after a balance (or
 * the first step of the run) has since == 1 and is the reference step of the
 * ZHAI policy (Algorithm 1 of the ULBA paper sets ref_time at i == lb_step).
 */

#include <stddef.h>

#include "adaptive_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of the core (the MPI layer maps them to ZOLTAN_* codes). */
#define ADAPTIVE_OK     0
#define ADAPTIVE_EINVAL (-1)
#define ADAPTIVE_ENOMEM (-2)

/* The policies, one per source; see docs/adaptive_trigger.md for formulas. */
typedef enum adaptive_policy_id {
  ADAPTIVE_POLICY_ZHAI = 0,             /* degradation accumulation (Zhai et al.) */
  ADAPTIVE_POLICY_MENON = 1,            /* tau = sqrt(2C/m_hat) (MetaBalancer) */
  ADAPTIVE_POLICY_MENON_CUMULATIVE = 2, /* sum of (max - avg) >= C */
  ADAPTIVE_POLICY_ULBA = 3,             /* within [sigma-, sigma+] (Eqs. 8, 12) */
  ADAPTIVE_POLICY_PERIODIC = 4,         /* every ADAPTIVE_PERIOD steps */
  ADAPTIVE_POLICY_ALWAYS = 5,           /* every step */
  ADAPTIVE_POLICY_NEVER = 6,            /* never */
  ADAPTIVE_POLICY_THRESHOLD = 7,        /* max - min load index > threshold */
  ADAPTIVE_POLICY_EFFICIENCY = 8        /* U_avg / U_max < eff_min */
} adaptive_policy_id;

/* Where the THRESHOLD policy's load index comes from. */
typedef enum adaptive_index_source {
  ADAPTIVE_INDEX_TIME = 0,   /* measured step times, spread (max-min)/avg */
  ADAPTIVE_INDEX_LOADAVG = 1 /* Stellner's (1 + avenrun_i) / alpha_i */
} adaptive_index_source;

/* Where the EFFICIENCY policy's utilization comes from. */
typedef enum adaptive_util_source {
  ADAPTIVE_UTIL_TIME = 0, /* measured step time is the utilization */
  ADAPTIVE_UTIL_LOAD = 1  /* reported abstract load / capacity alpha_i */
} adaptive_util_source;

/* What the degradation of ZHAI (and of the policies built on it: ULBA's
 * early firing, its guard and its fallback without a model) accumulates. */
typedef enum adaptive_degradation {
  ADAPTIVE_DEGRADATION_TOTAL = 0,    /* the slowest rank's step time t_max, as Zhai
                                        published it: growth of the average counts */
  ADAPTIVE_DEGRADATION_IMBALANCE = 1 /* t_max - t_avg, the part of the step time a
                                        balance can remove */
} adaptive_degradation;

/* Settings of the decision logic (the ADAPTIVE_* parameters). */
typedef struct adaptive_config {
  adaptive_policy_id policy;          /* which policy decides */
  long period;                        /* PERIODIC: balance every period steps, >= 1 */
  double initial_cost;                /* seed of C in seconds, < 0 when none (AUTO) */
  double cost_weight;                 /* weight of a new cost sample in (0, 1];
                                  0 selects the plain mean of all samples */
  double eff_min;                     /* EFFICIENCY: balance below this, (0, 1] */
  double threshold;                   /* THRESHOLD: balance when spread > this, >= 0 */
  adaptive_index_source index_source; /* THRESHOLD's load index */
  adaptive_util_source util_source;   /* EFFICIENCY's utilization */
  long settle_steps;                  /* THRESHOLD/EFFICIENCY: first measurement at
                                  since == settle_steps, >= 1 */
  long interval;                      /* THRESHOLD/EFFICIENCY: then every interval
                                  steps, >= 1 */
  int ulba_early;                     /* ULBA: 1 = balance between sigma- and sigma+
                                  when the measured degradation passes C plus
                                  the overhead; 0 = only at sigma+ */
  int ulba_guard;                     /* ULBA: 1 = also balance before sigma- when the
                                  measured degradation exceeds the model's
                                  own by C plus the overhead (the model is
                                  wrong); 0 = never before sigma- */
  adaptive_degradation degradation;   /* ZHAI and ULBA: the quantity whose growth
                                  since the balance is accumulated */
} adaptive_config;

/* One step's quantities, reduced over the ranks. */
typedef struct adaptive_step {
  double t_max;   /* maximum of the ranks' step times (the parallel time) */
  double t_avg;   /* average of the ranks' step times */
  double t_min;   /* minimum of the ranks' step times */
  double idx_max; /* maximum load index (LOADAVG source), else ignored */
  double idx_min; /* minimum load index (LOADAVG source), else ignored */
  double u_max;   /* maximum utilization (LOAD source), else ignored */
  double u_avg;   /* average utilization (LOAD source), else ignored */
} adaptive_step;

/* Everything the state computed for one step (also what the trace prints). */
typedef struct adaptive_quantities {
  long since;         /* steps since the last balance, this one included */
  double median;      /* ZHAI: median of the last (up to) 3 t_max (with
                         IMBALANCE: of t_max - t_avg) */
  double reference;   /* ZHAI: the same quantity at the first step after the
                         balance */
  double degradation; /* ZHAI: sum of (median - reference) */
  double cost;        /* C in seconds, or -1 while unknown */
  double overhead;    /* ULBA overhead of Eq. 11 at this step (0 without a
                         model) */
  double m_hat;       /* MENON: least-squares slope of (t_max - t_avg) per
                         step; 0 with fewer than 2 steps */
  double tau;         /* MENON: sqrt(2C/m_hat), +inf when m_hat <= 0 */
  double imbalance;   /* MENON_CUMULATIVE: sum of (t_max - t_avg) */
  double sigma_minus; /* ULBA: lower bound (Eq. 8), 0 without a model */
  double sigma_plus;  /* ULBA: upper bound (Eq. 12), +inf without a model */
  double spread;      /* THRESHOLD: max - min of the load index */
  double eff;         /* EFFICIENCY: U_avg / U_max */
  int measured;       /* THRESHOLD/EFFICIENCY: 1 on a measurement step */
  int decision;       /* 1 = balance now, 0 = not */
} adaptive_quantities;

/* The state of the decision logic (plain data; copying it is allowed). */
typedef struct adaptive_state {
  adaptive_config cfg;       /* settings, see adaptive_state_configure */
  int have_model;            /* 1 when a ULBA model was given */
  adaptive_ulba_model model; /* the ULBA model (valid when have_model) */
  double cost;               /* running average C (valid when cost_count) */
  long cost_count;           /* samples in the running average, 0 = unknown */
  long since;                /* steps since the last balance */
  long zhai_steps;           /* ZHAI: steps of the accumulated series, counted
                                from the last balance or from the last change
                                of the degradation setting */
  double reference;          /* ZHAI reference time */
  double recent[3];          /* ZHAI: last three t_max (or t_max - t_avg),
                                the newest at (zhai_steps - 1) % 3 */
  double degradation;        /* ZHAI accumulated degradation */
  double reg_mean_x;         /* MENON regression: mean of step numbers */
  double reg_mean_y;         /* MENON regression: mean of (max - avg) */
  double reg_cxy;            /* MENON regression: sum of co-deviations */
  double reg_m2x;            /* MENON regression: sum of squared x deviations */
  double imbalance;          /* MENON_CUMULATIVE running sum */
  double sigma_minus;        /* ULBA bounds, recomputed at each balance */
  double sigma_plus;         /* (and when the model or C changes) */
} adaptive_state;

/* A bounded ring of records: the newest `capacity` steps are kept. */
typedef struct adaptive_ring {
  adaptive_record *rec; /* capacity slots */
  size_t capacity;      /* slots allocated, >= 1 */
  size_t start;         /* slot of the oldest record */
  size_t count;         /* records held, <= capacity */
} adaptive_ring;

/* adaptive_config_default - fill cfg with the documented defaults. */
void adaptive_config_default(adaptive_config *cfg);

/* adaptive_config_check - ADAPTIVE_OK when every field is in its range, else
 * ADAPTIVE_EINVAL. */
int adaptive_config_check(const adaptive_config *cfg);

/*
 * adaptive_step_from_times - reduce per-rank arrays of n >= 1 entries into a
 * step: times gives t_max/t_avg/t_min, index (optional, may be NULL) gives
 * idx_max/idx_min, util (optional) gives u_max/u_avg.  Returns
 * ADAPTIVE_EINVAL when n == 0 or a value is not finite and >= 0.
 */
int adaptive_step_from_times(size_t n, const double *times, const double *index, const double *util,
                             adaptive_step *out);

/* adaptive_state_init - start a state: nothing measured, C seeded from
 * cfg->initial_cost when >= 0.  Returns ADAPTIVE_EINVAL on a bad config. */
int adaptive_state_init(adaptive_state *s, const adaptive_config *cfg);

/* adaptive_state_configure - change the settings of a running state.  The
 * history since the last balance is kept.  A changed initial_cost reseeds C
 * (or forgets it when < 0).  A changed degradation restarts ZHAI's sum from
 * the next step (the old sum measured another quantity).  Returns
 * ADAPTIVE_EINVAL on a bad config. */
int adaptive_state_configure(adaptive_state *s, const adaptive_config *cfg);

/*
 * adaptive_state_step - feed one step, get the decision.
 * Returns 1 (balance now) or 0, and fills q when not NULL; ADAPTIVE_EINVAL
 * (state unchanged) when a value is not finite, negative, or not ordered
 * t_min <= t_avg <= t_max (u_avg <= u_max, idx_min <= idx_max when used).
 */
int adaptive_state_step(adaptive_state *s, const adaptive_step *in, adaptive_quantities *q);

/*
 * adaptive_state_balanced - a balance happened after the last step; cost is
 * its measured duration in seconds, or < 0 when unknown (the running
 * average is then not updated).  Resets the per-interval quantities and
 * recomputes the ULBA bounds.  Returns ADAPTIVE_EINVAL when cost is NaN.
 */
int adaptive_state_balanced(adaptive_state *s, double cost);

/* adaptive_state_set_model - give (m != NULL) or withdraw (NULL) the ULBA
 * model.  Returns ADAPTIVE_EINVAL, state unchanged, on a bad model. */
int adaptive_state_set_model(adaptive_state *s, const adaptive_ulba_model *m);

/* adaptive_cost_update - the running average after one more sample:
 * the sample itself when count == 0, the plain mean of count + 1 samples
 * when weight == 0, else weight * sample + (1 - weight) * cost. */
double adaptive_cost_update(double cost, long count, double sample, double weight);

/* adaptive_ulba_check - ADAPTIVE_OK when the model is within its ranges. */
int adaptive_ulba_check(const adaptive_ulba_model *m);

/*
 * adaptive_ulba_bounds - sigma-minus (Eq. 8) and sigma-plus (sigma-minus
 * plus the positive root of Eq. 12) for the model and a balance cost C in
 * seconds (C >= 0).  When N == 0 or m == 0 no imbalance builds up: sigma-
 * is 0 and sigma+ is +inf.  Returns ADAPTIVE_EINVAL on a bad model or C.
 */
int adaptive_ulba_bounds(const adaptive_ulba_model *m, double C, double *sigma_minus,
                         double *sigma_plus);

/* adaptive_ulba_overhead - Eq. 11 for a balance `steps` steps after the last
 * one: alpha N / (P - N) * (W + steps * dW) / (omega P), dW = aP + mN. */
double adaptive_ulba_overhead(const adaptive_ulba_model *m, double steps);

/* adaptive_ls_slope - least-squares slope of y against x over n points
 * (0 when n < 2 or all x equal). */
double adaptive_ls_slope(size_t n, const double *x, const double *y);

/* adaptive_ring_init - allocate capacity >= 1 slots; ADAPTIVE_ENOMEM or
 * ADAPTIVE_EINVAL on failure (h is then empty and safe to free). */
int adaptive_ring_init(adaptive_ring *h, size_t capacity);
/* adaptive_ring_free - release the slots (h may be zeroed). */
void adaptive_ring_free(adaptive_ring *h);
/* adaptive_ring_clear - forget every record, keep the slots. */
void adaptive_ring_clear(adaptive_ring *h);
/* adaptive_ring_push - append, dropping the oldest record when full. */
void adaptive_ring_push(adaptive_ring *h, const adaptive_record *r);
/* adaptive_ring_get - the i-th oldest record (i < count), else NULL. */
const adaptive_record *adaptive_ring_get(const adaptive_ring *h, size_t i);

/* adaptive_policy_name / adaptive_policy_parse - between ids and the
 * upper-case names used by ADAPTIVE_POLICY; parse is case-insensitive and
 * returns ADAPTIVE_EINVAL for an unknown word. */
const char *adaptive_policy_name(adaptive_policy_id id);
int adaptive_policy_parse(const char *word, adaptive_policy_id *id);

/* adaptive_degradation_name / adaptive_degradation_parse - the same for the
 * words of ADAPTIVE_DEGRADATION (TOTAL, IMBALANCE). */
const char *adaptive_degradation_name(adaptive_degradation id);
int adaptive_degradation_parse(const char *word, adaptive_degradation *id);

#ifdef __cplusplus
}
#endif

#endif /* ADAPTIVE_POLICY_H */
