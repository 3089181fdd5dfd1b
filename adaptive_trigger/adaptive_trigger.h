/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ADAPTIVE_TRIGGER_H
#define ADAPTIVE_TRIGGER_H

/*
 * adaptive_trigger: decides, from measured step times, when an iterative
 * application should call Zoltan_LB_Balance.
 *
 *     adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
 *     adaptive_set_param(t, "ADAPTIVE_POLICY", "ZHAI");
 *     adaptive_attach(t, zz);                    (optional: measures C)
 *     for (step = 0; step < nsteps; step++) {
 *       double t0 = MPI_Wtime(); compute(); double dt = MPI_Wtime() - t0;
 *       if (adaptive_should_balance(t, dt) == 1) {
 *         Zoltan_LB_Balance(zz, ...); migrate();
 *         adaptive_balance_done(t, cost);        (not needed when attached)
 *       }
 *     }
 *     adaptive_destroy(&t);
 *
 * Policies, parameters and formulas: docs/adaptive_trigger.md.
 * Return codes are Zoltan's: ZOLTAN_OK, ZOLTAN_WARN, ZOLTAN_FATAL,
 * ZOLTAN_MEMERR.
 */

#include <stddef.h>

#include <mpi.h>
#include <zoltan_types.h>

#include "adaptive_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same definition as in zp_method.h, so that this header also stands
 * alone once installed. */
#ifndef ZP_API
#if defined(__GNUC__)
#define ZP_API __attribute__((visibility("default")))
#else
#define ZP_API
#endif
#endif

struct Zoltan_Struct;

/* A trigger (opaque). */
typedef struct adaptive_trigger adaptive_trigger;

/*
 * adaptive_create - a trigger on a duplicate of comm, with default
 * parameters (policy ZHAI).  Collective over comm.
 * Returns NULL when comm is MPI_COMM_NULL or on memory or MPI failure.
 * Related: adaptive_set_param, adaptive_destroy.
 */
ZP_API adaptive_trigger *adaptive_create(MPI_Comm comm);

/*
 * adaptive_set_param - set one ADAPTIVE_* parameter, Zoltan style: the name
 * is case-insensitive, the value is trimmed and case-insensitive for words,
 * and "DEFAULT" restores the default.  Not collective, but every parameter
 * other than ADAPTIVE_SPEED, ADAPTIVE_SPEED_FILE, ADAPTIVE_LOADAVG_FILE and
 * ADAPTIVE_TRACE_FILE must get the same value on every rank before the next
 * adaptive_should_balance (which checks it).
 * Returns ZOLTAN_OK; ZOLTAN_WARN for an unknown name (ignored, like Zoltan);
 * ZOLTAN_FATAL, with a message naming the value and the allowed range, for
 * a bad value (the old value stays); ZOLTAN_MEMERR.
 */
ZP_API int adaptive_set_param(adaptive_trigger *t, const char *name, const char *value);

/*
 * adaptive_attach - let the plugin layer time every Zoltan_LB_Partition and
 * Zoltan_LB_Balance on zz (AUTO_MIGRATE included) and report it to t as a
 * balance with that cost; adaptive_balance_done is then optional.  zz must
 * have been created while libzoltan_plugins was loaded.  zz == NULL
 * detaches.  Not collective (call it on every rank).
 * Returns ZOLTAN_OK, or ZOLTAN_FATAL when t is NULL or zz is unknown to the
 * plugin layer.
 */
ZP_API int adaptive_attach(adaptive_trigger *t, struct Zoltan_Struct *zz);

/*
 * adaptive_should_balance - record this rank's compute time for the step
 * (seconds, finite, >= 0; not including waiting) and decide.  Collective
 * over the trigger's communicator: one MPI_Allreduce of a few dozen bytes.
 * Returns 1 (balance now) or 0, the same on every rank; or, on every rank,
 * ZOLTAN_FATAL when a rank gave a NaN, infinite or negative time, when the
 * previous call returned 1 and no balance was reported (by
 * adaptive_balance_done or an attached Zoltan call), when some ranks
 * reported a balance and others not, when ranks disagree on the parameters,
 * or when a rank's load index or load is missing (THRESHOLD with LOADAVG,
 * EFFICIENCY with LOAD).  After an error the step is not recorded.
 */
ZP_API int adaptive_should_balance(adaptive_trigger *t, double my_step_time);

/*
 * adaptive_should_balance_pes - adaptive_should_balance for an application
 * whose processing elements are not its ranks: this rank plays num_pes PEs
 * (for example the Zoltan parts it holds, NUM_GLOBAL_PARTS > ranks, to model
 * a machine larger than the one it runs on) and pe_times[i] is the step time
 * of its i-th PE.  The decision sees the largest, smallest and average step
 * time over every PE of every rank, as adaptive_should_balance sees them over
 * the ranks; adaptive_should_balance(t, x) is this call with one PE of time
 * x.  The rank's own record (adaptive_history's my_time) is the largest of
 * its PEs.  Collective, with the same returns and errors as
 * adaptive_should_balance, plus ZOLTAN_FATAL on every rank when a rank
 * gives num_pes < 1 or pe_times NULL.  The load index and utilization of
 * THRESHOLD and EFFICIENCY stay per rank.
 */
ZP_API int adaptive_should_balance_pes(adaptive_trigger *t, int num_pes, const double *pe_times);

/*
 * adaptive_balance_done - report that a balance happened since the last
 * adaptive_should_balance, with its cost on this rank in seconds
 * (partitioning plus migration).  Call it on every rank.  Not collective:
 * the cost is combined (maximum over ranks) in the next
 * adaptive_should_balance.  When attached, the measured time of the Zoltan
 * calls is used unless this function gives a cost, which then replaces it.
 * Several calls in one step add up.  cost < 0 means "unknown": the balance
 * resets the history but not the running average C.
 * Returns ZOLTAN_OK, or ZOLTAN_FATAL when t is NULL or cost is NaN/inf.
 */
ZP_API int adaptive_balance_done(adaptive_trigger *t, double cost);

/*
 * adaptive_destroy - detach, close the trace, free the trigger and set *t to
 * NULL.  Collective over the trigger's communicator (it frees the duplicate
 * communicator).  t == NULL or *t == NULL is allowed.
 */
ZP_API void adaptive_destroy(adaptive_trigger **t);

/*
 * adaptive_set_ulba_model - give the ULBA model used by the ULBA policy
 * (sigma-minus, sigma-plus) and by the overhead term of ZHAI; NULL
 * withdraws it.  Not collective, but the model must be the same on every
 * rank (checked by the next adaptive_should_balance).
 * Returns ZOLTAN_OK, or ZOLTAN_FATAL (model unchanged) when a field is out
 * of its range.
 */
ZP_API int adaptive_set_ulba_model(adaptive_trigger *t, const adaptive_ulba_model *model);

/*
 * adaptive_report_load - this rank's abstract load (cells, particles, ...)
 * for the step whose time the next adaptive_should_balance gives.  Needed
 * by EFFICIENCY with ADAPTIVE_UTILIZATION = LOAD (utilization = load /
 * ADAPTIVE_SPEED) and stored in the history.  Not collective.
 * Returns ZOLTAN_OK, or ZOLTAN_FATAL when load is not finite and >= 0.
 */
ZP_API int adaptive_report_load(adaptive_trigger *t, double load);

/*
 * adaptive_report_objects - the loads of this rank's objects for the coming
 * step, kept in a window of ADAPTIVE_OBJ_HISTORY snapshots since the last
 * balance (copied).  gids may be NULL; otherwise num_obj * num_gid_entries
 * IDs.  Unless adaptive_report_load is also called, the sum of the loads is
 * the rank's load.  Not collective.
 * Returns ZOLTAN_OK, ZOLTAN_FATAL on a bad argument (negative count, load
 * not finite and >= 0), or ZOLTAN_MEMERR.
 */
ZP_API int adaptive_report_objects(adaptive_trigger *t, int num_obj, int num_gid_entries,
                                   const ZOLTAN_ID_TYPE *gids, const double *loads);

/*
 * adaptive_report_comm - this rank's measured communication for the coming
 * step: num_pairs pairs, object from[i] (an object of this rank) and object
 * to[i] (of any rank), each ID of num_gid_entries entries, exchanged
 * volumes[i] (bytes, messages, seconds: any unit, the same for every pair
 * and step).  Kept with the step's object loads (ADAPTIVE_OBJ_HISTORY
 * snapshots since the last balance; copied); a second call for the same
 * step replaces the first.  With EDGE_WEIGHT_SOURCE = MEASURED or BOTH on
 * the attached Zoltan_Struct, the weight of graph edge {a, b} becomes the
 * smoothed sum of what was reported for a -> b and for b -> a
 * (docs/loaddb.md).  Not collective.
 * Returns ZOLTAN_OK, ZOLTAN_FATAL on a bad argument (negative count,
 * num_gid_entries < 1, NULL arrays with pairs, a volume not finite and
 * >= 0), or ZOLTAN_MEMERR.
 */
ZP_API int adaptive_report_comm(adaptive_trigger *t, int num_pairs, int num_gid_entries,
                                const ZOLTAN_ID_TYPE *from, const ZOLTAN_ID_TYPE *to,
                                const double *volumes);

/*
 * adaptive_comm_history - the communication snapshot `back` steps ago
 * (0 = newest) since the last balance: *pairs holds num_pairs (from, to)
 * pairs side by side, 2 * num_gid_entries IDs each.  Outputs point into the
 * trigger and stay valid until the next call that changes it.
 * Not collective.
 * Returns ZOLTAN_OK, ZOLTAN_WARN when that step has no communication report
 * (outputs 0 / NULL), or ZOLTAN_FATAL on a NULL argument.
 */
ZP_API int adaptive_comm_history(const adaptive_trigger *t, size_t back, long *step, int *num_pairs,
                                 int *num_gid_entries, const ZOLTAN_ID_TYPE **pairs,
                                 const double **volumes);

/*
 * adaptive_object_history - the object-load snapshot `back` steps ago
 * (0 = newest) since the last balance.  Outputs point into the trigger and
 * stay valid until the next call that changes it.  Not collective.
 * Returns ZOLTAN_OK, ZOLTAN_WARN when no such snapshot is held (outputs 0 /
 * NULL), or ZOLTAN_FATAL on a NULL argument.
 */
ZP_API int adaptive_object_history(const adaptive_trigger *t, size_t back, long *step, int *num_obj,
                                   int *num_gid_entries, const ZOLTAN_ID_TYPE **gids,
                                   const double **loads);

/*
 * adaptive_history - copy up to max of the newest step records since the
 * last balance into out (oldest first).  Returns the number of records held
 * (which may exceed max; then only the newest max are copied), or a
 * negative ZOLTAN_FATAL when t is NULL or out is NULL with max > 0.
 * Not collective.
 */
ZP_API long adaptive_history(const adaptive_trigger *t, adaptive_record *out, size_t max);

/*
 * adaptive_increase_rate - least-squares slope per step, over the history
 * since the last balance, of this rank's step time (what == 0) or of its
 * reported load (what == 1), the workload increase rate (WIR) of the ULBA
 * paper.  Not collective.  Returns ZOLTAN_OK; ZOLTAN_WARN with *rate = 0
 * when fewer than two usable steps are held; ZOLTAN_FATAL on bad arguments.
 */
ZP_API int adaptive_increase_rate(const adaptive_trigger *t, int what, double *rate);

/* adaptive_steps_since_balance - steps recorded since the last balance
 * (0 right after one), or -1 when t is NULL.  Not collective. */
ZP_API long adaptive_steps_since_balance(const adaptive_trigger *t);

/* adaptive_balance_cost - the running average balance cost C in seconds,
 * the same on every rank, or -1 while unknown (or t NULL).  Not collective. */
ZP_API double adaptive_balance_cost(const adaptive_trigger *t);

/* adaptive_num_balances - balances recorded so far (or -1 when t is NULL).
 * Not collective. */
ZP_API long adaptive_num_balances(const adaptive_trigger *t);

/* adaptive_policy_in_use - the name of the policy that decides now, e.g.
 * "ZHAI" or "ULBA": the ADAPTIVE_POLICY value, or with ADAPTIVE_POLICY=AUTO
 * the policy LB_METHOD=AUTO on the attached struct last advised (ZHAI until
 * it advises).  NULL when t is NULL.  Not collective; the same on every rank.
 * The string is static. */
ZP_API const char *adaptive_policy_in_use(const adaptive_trigger *t);

/*
 * adaptive_last_quantities - the quantities of the last decision: since,
 * degradation, C, m_hat, tau, sigma-minus, sigma-plus, spread, efficiency
 * (NULL outputs are skipped).  Not collective.  Returns ZOLTAN_OK, or
 * ZOLTAN_WARN before the first decision, ZOLTAN_FATAL when t is NULL.
 */
ZP_API int adaptive_last_quantities(const adaptive_trigger *t, double *degradation, double *m_hat,
                                    double *tau, double *sigma_minus, double *sigma_plus,
                                    double *spread, double *eff);

#ifdef __cplusplus
}
#endif

#endif /* ADAPTIVE_TRIGGER_H */
