/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ADAPTIVE_TYPES_H
#define ADAPTIVE_TYPES_H

/*
 * Plain data shared by the public API (adaptive_trigger.h) and the pure
 * decision core (adaptive_policy.h).  Installed with adaptive_trigger.h.
 */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The ULBA application model of Table I of the ULBA paper, in work units.
 * The N overloading PEs receive a + m work units per step, the others a.
 */
typedef struct adaptive_ulba_model {
  int P;        /* number of PEs, >= 1 */
  int N;        /* number of overloading PEs, 0 <= N < P */
  double alpha; /* fraction of W_tot/P removed from overloading PEs, [0, 1) */
  double a;     /* work added to every PE per step, >= 0 */
  double m;     /* extra work per step on each overloading PE, >= 0 */
  double W;     /* total work W_tot(LB_p) at the last balance, >= 0 */
  double omega; /* speed of one PE, work units per second, > 0 */
} adaptive_ulba_model;

/* One step of the load history. */
typedef struct adaptive_record {
  long step;      /* step number counted from the creation of the trigger */
  double my_time; /* this rank's step time in seconds */
  double my_load; /* this rank's reported load, NaN when none was reported */
  double t_max;   /* maximum step time over the ranks */
  double t_avg;   /* average step time over the ranks */
  double t_min;   /* minimum step time over the ranks */
} adaptive_record;

#ifdef __cplusplus
}
#endif

#endif /* ADAPTIVE_TYPES_H */
