/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_HISTORY_H
#define ZP_HISTORY_H

/*
 * The measured load history of a Zoltan_Struct.
 *
 * Some methods predict from how the application's load evolved (ULBA fits
 * the growth rate of every object), while the measurements belong to another
 * component (the adaptive trigger records the step times and the object
 * loads the application reports at every step).  Neither includes the
 * other's header: the measuring component attaches a history provider to the
 * struct, and a method asks the layer through the struct.  A struct without a
 * provider answers every query with "nothing measured", so a method needs no
 * special case for it.
 *
 * Every function here is local (not collective) and answers from this rank's
 * records.  "Since the last balance" is the provider's notion: the records of
 * the interval that the next balance will close.
 */

#include <stddef.h>

#include <zoltan_types.h>

#include "zp_method.h"

#ifdef __cplusplus
extern "C" {
#endif

struct Zoltan_Struct;

/* The loads of this rank's objects at one step. */
typedef struct zp_object_loads {
  long step;                  /* step the loads belong to; increases with time */
  int num_obj;                /* objects in the snapshot */
  int num_gid_entries;        /* entries per global ID; 0 when the snapshot has
                                 no IDs (its objects are then in the order of
                                 the application's object list) */
  const ZOLTAN_ID_TYPE *gids; /* num_obj * num_gid_entries IDs, or NULL */
  const double *loads;        /* num_obj loads, finite and >= 0 */
} zp_object_loads;

/* The communication one rank measured in one step: pairs of objects, the
 * first of each pair an object of that rank, and the volume between them. */
typedef struct zp_comm_volumes {
  long step;                   /* step the volumes belong to */
  int num_pairs;               /* pairs */
  int num_gid_entries;         /* entries per ID */
  const ZOLTAN_ID_TYPE *pairs; /* num_pairs * 2 * num_gid_entries IDs: from, to */
  const double *volumes;       /* num_pairs volumes, finite and >= 0 */
} zp_comm_volumes;

/* The step times of one step over all ranks (the same on every rank). */
typedef struct zp_step_times {
  long step;    /* step number; increases with time */
  double t_max; /* largest step time over the ranks, seconds */
  double t_avg; /* average step time over the ranks, seconds */
  double t_min; /* smallest step time over the ranks, seconds */
} zp_step_times;

/*
 * What a provider gives.  zp_history_attach copies the struct (not what its
 * pointers point to).  The functions are called on the querying rank only,
 * must not call Zoltan, and may be NULL when the provider does not measure
 * that quantity (the query then answers "nothing measured").  Zero the
 * whole struct before filling it, so that a function this header gains
 * later (rank_work was added with the capacity model) is NULL.
 */
typedef struct zp_history_provider {
  const char *tag; /* who provides, for messages, e.g. "adaptive_trigger" */
  void *arg;       /* passed back to every function; also identifies the
                      provider for zp_history_detach */
  /* The object loads of the snapshot `back` snapshots before the newest one
   * (0 = newest) since the last balance.  Fills *out and returns ZOLTAN_OK,
   * or returns ZOLTAN_WARN when there is no such snapshot.  The pointers in
   * *out stay valid until the provider records or balances again. */
  int (*object_loads)(void *arg, size_t back, zp_object_loads *out);
  /* Copies up to max of the newest step records since the last balance into
   * out, oldest first, and returns how many are held (which may exceed max). */
  long (*step_times)(void *arg, zp_step_times *out, size_t max);
  /* The running average cost of a balance in seconds, the same on every rank,
   * or a negative number while unknown. */
  double (*balance_cost)(void *arg);
  /* This rank's reported work and the step seconds it took, summed over the
   * step records since the last balance that carry a reported load.
   * Returns ZOLTAN_OK, or ZOLTAN_WARN when there is none.  The capacity
   * model's CAPACITY = MEASURED divides the two. */
  int (*rank_work)(void *arg, double *work, double *seconds);
  /* The communication snapshot `back` steps before the newest (0 = newest)
   * since the last balance: fills *out and returns ZOLTAN_OK, or returns
   * ZOLTAN_WARN when that step has none.  EDGE_WEIGHT_SOURCE reads it. */
  int (*comm_volumes)(void *arg, size_t back, zp_comm_volumes *out);
  /* A method that chooses the trigger policy too (LB_METHOD=AUTO) tells the
   * provider its choice, an ADAPTIVE_POLICY word such as "ZHAI" or "ULBA",
   * after a decision; the provider follows it when it is configured to
   * (ADAPTIVE_POLICY=AUTO) and ignores it otherwise.  Called on every rank
   * with the same word. */
  void (*advise_policy)(void *arg, const char *policy);
} zp_history_provider;

/*
 * zp_history_attach - make provider the history provider of zz, replacing
 * any previous one.  Not collective (call it on every rank).
 * Input:  zz, a Zoltan_Struct created while the plugin layer was loaded;
 *         provider, with at least one function set.
 * Returns ZOLTAN_OK; ZOLTAN_FATAL (with a message) when an argument is NULL,
 * provider sets no function, or zz is unknown to the layer.
 * A copy of zz (Zoltan_Copy, Zoltan_Copy_To) has no provider: the provider
 * measures the application of one struct.
 * Related: zp_history_detach, zp_observe (zp_hooks.h).
 */
ZP_API int zp_history_attach(struct Zoltan_Struct *zz, const zp_history_provider *provider);

/*
 * zp_history_detach - remove the history provider of zz if its arg is arg,
 * so that a component can detach itself without removing a provider
 * attached after it.  Not collective.
 * Returns ZOLTAN_OK when it was removed; ZOLTAN_WARN when zz is unknown to
 * the layer (for example already destroyed) or has no provider with that
 * arg (nothing changes).
 */
ZP_API int zp_history_detach(struct Zoltan_Struct *zz, const void *arg);

/*
 * zp_history_object_loads - the object loads `back` snapshots before the
 * newest one (0 = newest) since the last balance on this rank.
 * Not collective.
 * Output: *out; on ZOLTAN_WARN, step -1, counts 0 and pointers NULL.  The
 *         pointers belong to the provider: read them before the application
 *         records another step or balances.
 * Returns ZOLTAN_OK; ZOLTAN_WARN when nothing is held (no provider, a
 * provider without object loads, or fewer snapshots); ZOLTAN_FATAL when out
 * is NULL.
 */
ZP_API int zp_history_object_loads(struct Zoltan_Struct *zz, size_t back, zp_object_loads *out);

/*
 * zp_history_comm_volumes - the communication snapshot `back` steps before
 * the newest one (0 = newest) since the last balance on this rank.
 * Not collective.  Output and returns as zp_history_object_loads (WARN when
 * there is no provider, no such snapshot, or no report for that step).
 */
ZP_API int zp_history_comm_volumes(struct Zoltan_Struct *zz, size_t back, zp_comm_volumes *out);

/*
 * zp_history_advise_policy - pass a method's choice of trigger policy (an
 * ADAPTIVE_POLICY word) to the provider of zz.  Not collective, but a
 * method calls it on every rank with the same word, so that every rank's
 * trigger decides alike.
 * Returns ZOLTAN_OK when a provider took the advice (it may still ignore it:
 * see advise_policy); ZOLTAN_WARN when zz has no provider or the provider
 * takes no advice; ZOLTAN_FATAL when policy is NULL.
 */
ZP_API int zp_history_advise_policy(struct Zoltan_Struct *zz, const char *policy);

/*
 * zp_history_step_times - copy up to max of the newest step records since
 * the last balance into out, oldest first.  Not collective, but the records
 * are the same on every rank.
 * Returns the number of records held (may exceed max; then only the newest
 * max are copied), 0 when nothing is held (no provider, or a provider without
 * step times), or ZOLTAN_FATAL (negative) when out is NULL and max > 0.
 */
ZP_API long zp_history_step_times(struct Zoltan_Struct *zz, zp_step_times *out, size_t max);

/*
 * zp_history_balance_cost - the measured cost of one balance in seconds (the
 * provider's running average), the same on every rank.  Not collective.
 * Returns the cost, or -1 while no provider knows it.
 */
ZP_API double zp_history_balance_cost(struct Zoltan_Struct *zz);

#ifdef __cplusplus
}
#endif

#endif /* ZP_HISTORY_H */
