/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LOADDB_CORE_H
#define LOADDB_CORE_H

/*
 * The load database's arithmetic on plain arrays: no MPI, no Zoltan.
 *
 * The application reports what each object really cost at every step
 * (seconds, or any unit) through the adaptive trigger; the plugin layer
 * (zoltan_plugins/zp_loaddb.c) matches the reports of the last K steps to
 * the objects the application lists at a balance, and these functions turn
 * them into the weights every method balances (OBJ_WEIGHT_SOURCE, Bhandarkar, Brunner and Kalé's
 * measurement-based balancing).  Every function is local and deterministic.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define LOADDB_OK     0    /* done */
#define LOADDB_EINVAL (-1) /* bad input */

/* Where the weights come from, in the order of the OBJ_WEIGHT_SOURCE words. */
enum {
  LOADDB_CALLBACK = 0, /* the application's weight callbacks (no change) */
  LOADDB_MEASURED = 1, /* the measurements; unmeasured objects get the mean */
  LOADDB_BOTH = 2      /* the measurements; unmeasured objects keep their
                          callback weight, scaled into measured units */
};

/* Sums over the objects of one rank, or of every rank once added up. */
typedef struct loaddb_totals {
  double measured;   /* sum of the smoothed measured loads */
  double count;      /* number of objects with a measurement */
  double callback;   /* sum of their callback weights */
  double unmeasured; /* number of objects without a measurement */
} loaddb_totals;

/*
 * loaddb_smooth - the smoothed measured load of each object: the mean of
 * its reports over the snapshots that hold it (the last K steps, an equal
 * weight each), so that one noisy step cannot move work back and forth.
 * Inputs: n objects; sum[i], the sum of object i's reports, and count[i],
 * how many there were (0 = not measured).
 * Output: load[i] = sum[i] / count[i], or 0 when count[i] is 0.
 * Returns LOADDB_OK, or LOADDB_EINVAL when a sum is negative or not finite
 * (the reports are checked when they are made; this catches misuse).
 */
int loaddb_smooth(size_t n, const double *sum, const unsigned *count, double *load);

/*
 * loaddb_local_totals - this rank's contribution to loaddb_totals.
 * Inputs: n objects, load[i] (smoothed), count[i] (0 = not measured) and
 * the callback weight cb[i * cb_stride].
 */
void loaddb_local_totals(size_t n, const double *load, const unsigned *count, const double *cb,
                         size_t cb_stride, loaddb_totals *out);

/*
 * loaddb_weights - the weights handed to the methods.
 * Inputs: mode (LOADDB_MEASURED or LOADDB_BOTH), n objects with load[i]
 * and count[i] as above, their callback weights w[i * stride] and the
 * totals over every rank.
 * Output: w[i * stride] replaced in place:
 *   measured objects: their smoothed load;
 *   MEASURED, unmeasured: the mean measured load (global.measured /
 *     global.count), or the callback weight when nothing was measured;
 *   BOTH, unmeasured: the callback weight times global.measured /
 *     global.callback (callback units turned into measured ones), or the
 *     callback weight unscaled when that ratio is undefined.
 * Returns LOADDB_OK, or LOADDB_EINVAL for an unknown mode.
 */
int loaddb_weights(int mode, size_t n, const double *load, const unsigned *count, double *w,
                   size_t stride, const loaddb_totals *global);

#ifdef __cplusplus
}
#endif

#endif /* LOADDB_CORE_H */
