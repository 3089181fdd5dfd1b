/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_HOOKS_H
#define ZP_HOOKS_H

/*
 * Observers of balancing calls.  Another component (the adaptive trigger)
 * attaches itself to a Zoltan_Struct to learn how long every
 * Zoltan_LB_Partition / Zoltan_LB_Balance call on it took, whatever the
 * method (ours or native), including AUTO_MIGRATE.
 */

#include "zp_method.h"

#ifdef __cplusplus
extern "C" {
#endif

struct Zoltan_Struct;

/* What an observer provides.  The struct is copied by zp_observe. */
typedef struct zp_observer {
  const char *tag; /* who is observing, e.g. "adaptive_trigger" */
  void *arg;       /* passed back to after_balance */
  /* Called on every rank after each balancing call on the struct returns;
   * seconds is this rank's wall time of the call (MPI_Wtime), ierr its
   * return code.  Must not call Zoltan on the same struct. */
  void (*after_balance)(void *arg, double seconds, int ierr);
} zp_observer;

/*
 * zp_observe - attach (obs != NULL) or detach (obs == NULL) the observer of
 * a Zoltan_Struct created while the plugin layer was loaded.  One observer
 * per struct; attaching replaces the previous one.  Not collective.
 * Returns ZOLTAN_OK, or ZOLTAN_FATAL when zz is unknown to the layer.
 */
ZP_API int zp_observe(struct Zoltan_Struct *zz, const zp_observer *obs);

/*
 * zp_observer_of - the arg of the observer attached to zz whose tag equals
 * tag, or NULL.  Not collective.
 */
ZP_API void *zp_observer_of(struct Zoltan_Struct *zz, const char *tag);

#ifdef __cplusplus
}
#endif

#endif /* ZP_HOOKS_H */
