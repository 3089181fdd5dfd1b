/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ULBA_STUDY_H
#define ULBA_STUDY_H

/*
 * The model study of the ULBA paper (section III.B and IV.A): random
 * application instances drawn from the distributions of its Table II, the
 * sigma-plus schedule against an exact optimum (figure 2), and the gain of
 * ULBA with its best alpha over the standard method (figure 3).
 *
 * Pure computation on arrays, no I/O; ulba_model_main.c writes the CSV
 * files.  Nothing is collective.  Every function returns ULBA_OK or a
 * negative ULBA_ERR_* code from ulba_core.h.  The study's only source of
 * randomness is the seeded zp_rng (util/zp_rng.h), so that a seed fixes
 * every number it prints.
 */

#include <stdint.h>

#include "ulba_core.h"
#include "zp_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One random application of Table II. */
typedef struct ulba_instance {
  ulba_model model; /* P, N, a, m, W = W_tot(0), C (seconds), omega */
  double alpha;     /* Table II's alpha ~ U(0, 1), used by figure 2 */
  double fraction;  /* v: the fraction of overloading PEs that was drawn or fixed */
} ulba_instance;

/* Parameters common to the study. */
#define ULBA_STUDY_GAMMA 100 /* iterations of every application (Table II) */
#define ULBA_STUDY_OMEGA 1e9 /* speed of one PE, 1 GFLOPS (section III.B) */

/*
 * ulba_study_sample - draw one instance from Table II:
 *   P uniform on {256, 512, 1024, 2048};
 *   N = max(1, round(P v)), v ~ U(0.01, 0.2), or v = fraction if
 *     fraction > 0 (figure 3 fixes the percentage of overloading PEs);
 *   W_tot(0) ~ U(52e7 P, 1165e7 P) FLOP;
 *   dW = W_tot(0) / P x, x ~ U(0.01, 0.3);
 *   y ~ U(0.8, 1.0), a = dW / P (1 - y), m = dW / N y  (so dW = a P + m N);
 *   alpha ~ U(0, 1) (clamped below 1);
 *   C = W_tot(0) / P z / omega seconds, z ~ U(0.1, 3.0).
 * Not collective.
 * Errors: ULBA_ERR_ARG for NULL pointers or fraction >= 0.5.
 */
int ulba_study_sample(zp_rng *rng, double fraction, ulba_instance *inst);

/*
 * ulba_study_schedule_time - Eq. (4) for an explicit schedule: lb[i] != 0
 * means a load-balancing step at the start of iteration i; lb[0] is taken as
 * set (the initial partition is a step of the method too, charged C).
 * Not collective.
 * Input:  a checked model (W = W_tot(0)), alpha in [0, 1), gamma >= 1,
 *         lb[gamma].
 * Output: *time in seconds.
 * Errors: ULBA_ERR_ARG.
 */
int ulba_study_schedule_time(const ulba_model *model, double alpha, long gamma,
                             const unsigned char *lb, double *time);

/*
 * ulba_study_optimum - the exact minimum of Eq. (4) over all schedules (sets
 * of load-balancing iterations containing 0) by dynamic programming:
 * f(j) = min over i < j of f(i) + T_interval(i, j), O(gamma^2) closed-form
 * interval times.  The state after a step depends only on the iteration of
 * the step (the workload is W_tot(i) and the sizes are those of Eq. (6)), so
 * the programme is exact.
 * Not collective.
 * Input:  a checked model, alpha in [0, 1), gamma >= 1.
 * Output: *time; lb[gamma] (may be NULL) an optimal schedule; *num_lb (may
 *         be NULL) its number of steps.
 * Errors: ULBA_ERR_ARG, ULBA_ERR_MEMORY.
 */
int ulba_study_optimum(const ulba_model *model, double alpha, long gamma, double *time,
                       unsigned char *lb, long *num_lb);

/* One instance of figure 2. */
typedef struct ulba_fig2_row {
  ulba_instance inst; /* the application */
  double t_sigma;     /* Eq. (4) with a step every sigma-plus iterations */
  double t_opt;       /* the dynamic programme's optimum */
  double gap_pct;     /* 100 (t_opt - t_sigma) / t_sigma, <= 0 */
  long lb_sigma;      /* steps of the sigma-plus schedule, the first included */
  long lb_opt;        /* steps of the optimal schedule */
} ulba_fig2_row;

/*
 * ulba_study_fig2 - figure 2 on n instances drawn from stream (seed, 2).
 * Not collective.
 * Output: rows[n].
 * Errors: ULBA_ERR_ARG (NULL rows, n < 1, gamma < 1), ULBA_ERR_MEMORY.
 */
int ulba_study_fig2(uint64_t seed, long n, long gamma, ulba_fig2_row *rows);

/* One instance of figure 3. */
typedef struct ulba_fig3_row {
  int pct;              /* percentage of overloading PEs, 1..20 */
  ulba_instance inst;   /* the application (inst.alpha unused) */
  double t_std;         /* standard method: alpha = 0, step every sigma-plus = tau */
  double best_alpha;    /* best of the n_alpha grid values k / n_alpha */
  double t_best;        /* ULBA with best_alpha, sigma-plus schedule */
  double gain_pct;      /* 100 (t_std - t_best) / t_std, >= 0 */
  double auto_alpha;    /* ulba_auto_alpha over the whole run */
  double auto_gain_pct; /* the same gain with auto_alpha */
  double dp_gain_pct;   /* the gain when both use optimal schedules (best_alpha) */
} ulba_fig3_row;

/*
 * ulba_study_fig3 - figure 3: for every percentage pct in [pct_lo, pct_hi],
 * n instances drawn from stream (seed, 1000 + pct) with N = round(P pct /
 * 100), the standard method against ULBA with each alpha = k / n_alpha,
 * k = 0 .. n_alpha - 1 (alpha = 0 is in the grid, so the gain is never
 * negative), plus ULBA_ALPHA=AUTO and the optimal-schedule comparison.
 * Not collective.
 * Output: rows[(pct_hi - pct_lo + 1) n], by percentage then instance.
 * Errors: ULBA_ERR_ARG (NULL, n < 1, 1 <= pct_lo <= pct_hi <= 49 violated,
 *         n_alpha < 1, gamma < 1), ULBA_ERR_MEMORY.
 */
int ulba_study_fig3(uint64_t seed, long n, int pct_lo, int pct_hi, int n_alpha, long gamma,
                    ulba_fig3_row *rows);

#ifdef __cplusplus
}
#endif

#endif /* ULBA_STUDY_H */
