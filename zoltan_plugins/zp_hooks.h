/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_HOOKS_H
#define ZP_HOOKS_H

/*
 * Hooks on a Zoltan_Struct.  Observers: another component (the adaptive
 * trigger) attaches itself to a struct to learn how long every
 * Zoltan_LB_Partition / Zoltan_LB_Balance call on it took, whatever the
 * method (ours or native), including AUTO_MIGRATE.  Geometry: a method that
 * partitions through a geometric base method lets the point and box queries
 * answer from the base method's cuts.  The load history that a component
 * measures for a method has its own header, zp_history.h.
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

/*
 * Point and box queries through the cuts of a base method.
 *
 * Zoltan answers Zoltan_LB_Point_Assign, Zoltan_LB_Point_PP_Assign,
 * Zoltan_LB_Box_Assign, Zoltan_LB_Box_PP_Assign and Zoltan_RCB_Box from the
 * cuts that RCB, RIB and HSFC keep with KEEP_CUTS=1.  A plugin method keeps
 * no cuts, but one that partitions with such a method underneath can keep
 * the base method's cuts in a Zoltan_Struct of its own and tell the layer how
 * its parts relate to the base method's.  While that method stays selected
 * on the struct, the layer answers the queries from those cuts and renumbers
 * the parts; without it, the queries are an error that says so.
 */
typedef struct zp_geometry {
  struct Zoltan_Struct *cuts; /* a struct whose last (native) balance kept its
                                 cuts; owned by the method */
  const int *part_map;        /* part_map[q] is the part the method gave to
                                 what the base method put in part q: a
                                 permutation of 0..num_parts-1, owned by the
                                 method, read at every query */
  int num_parts;              /* entries of part_map: the number of parts */
} zp_geometry;

/*
 * zp_geometry_wanted - 1 when the application asked Zoltan to keep the cuts
 * of zz (KEEP_CUTS=1), else 0, so that a method pays for keeping a copy of
 * its base method's cuts only when they can be queried.  Not collective; the
 * answer is the same on every rank when the parameter was set on every rank.
 */
ZP_API int zp_geometry_wanted(struct Zoltan_Struct *zz);

/*
 * zp_set_geometry - let the point and box queries on zz answer from
 * geometry->cuts with geometry->part_map, while the method selected on zz now
 * stays selected.  Call it from the method's partition function, on every
 * rank.  Not collective.  Replaces any earlier geometry of zz.
 * Returns ZOLTAN_OK; ZOLTAN_FATAL (with a message) when an argument is NULL,
 * zz is unknown to the layer or has no plugin method selected, or part_map
 * is not a permutation of 0..num_parts-1; ZOLTAN_MEMERR.
 * Related: zp_clear_geometry.
 */
ZP_API int zp_set_geometry(struct Zoltan_Struct *zz, const zp_geometry *geometry);

/*
 * zp_clear_geometry - forget the geometry of zz if it answers from cuts (or
 * from any struct when cuts is NULL), for a method that is about to free or
 * replace that struct.  Not collective.
 * Returns ZOLTAN_OK when it was forgotten; ZOLTAN_WARN when zz is unknown to
 * the layer or holds no such geometry (nothing changes).
 */
ZP_API int zp_clear_geometry(struct Zoltan_Struct *zz, const struct Zoltan_Struct *cuts);

/*
 * zp_capacity_of - this rank's capacity (relative speed) as the layer's
 * capacity model computed it at the last balance of zz, normalised so that
 * the mean over ranks is 1, before any load-average factor (the adaptive
 * trigger applies the load average itself, measured at each step).
 * Not collective.
 * Returns ZOLTAN_OK with *capacity; ZOLTAN_WARN (nothing changes) when zz
 * is unknown to the layer, CAPACITY is UNIFORM without CAPACITY_LOADAVG,
 * or no balance has computed capacities yet.
 */
ZP_API int zp_capacity_of(struct Zoltan_Struct *zz, double *capacity);

#ifdef __cplusplus
}
#endif

#endif /* ZP_HOOKS_H */
