/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_GUARD_INTERNAL_H
#define ZP_GUARD_INTERNAL_H

/*
 * The guard of Zoltan's own methods, shared by its two files and nothing
 * else: zp_guard.c reads the application's callbacks and agrees on them,
 * zp_guard_wrap.c puts the callbacks that answer from what was read in
 * front of the application's and gives them back.
 */

#include "zp_partition_internal.h"

/* The callbacks the guard reads, in the order of zp_guard_names. */
enum {
  G_NUM_OBJ,
  G_OBJ_LIST,
  G_PART,
  G_NUM_GEOM,
  G_GEOM,
  G_NUM_EDGES,
  G_EDGE_LIST,
  G_SIZE,
  G_HG_SIZE_CS,
  G_HG_CS,
  G_HG_SIZE_EW,
  G_HG_EW,
  G_KINDS
};

/* One application callback: the MULTI form, or the single one. */
typedef struct g_fn {
  ZOLTAN_VOID_FN *multi; /* the MULTI (or list) form, or NULL */
  void *multi_data;
  ZOLTAN_VOID_FN *single; /* the single-object (or FIRST/NEXT) form, or NULL */
  void *single_data;
  ZOLTAN_VOID_FN *next; /* NEXT_OBJ with FIRST_OBJ as single */
  void *next_data;
} g_fn;

struct zp_guard {
  struct Zoltan_Struct *zz;
  zp_record *pool;                     /* record whose ZP_SCR_G_* slots hold the
                                          arrays, or NULL: each array malloc'd */
  int ngid, nlid, wdim, ewdim;         /* as Zoltan calls the callbacks on this rank */
  g_fn app[G_KINDS];                   /* the application's callbacks */
  unsigned have;                       /* 1 << G_*: what was read */
  int n;                               /* local objects */
  ZOLTAN_ID_TYPE *gids, *lids;         /* n * ngid, n * nlid */
  float *w;                            /* n * wdim */
  int *parts;                          /* n */
  int gdim;                            /* NUM_GEOM's answer */
  double *coords;                      /* n * gdim */
  const zp_context *layer;             /* the call whose base run the guard
                                          guards: its coordinates, when it
                                          read them, are not asked again */
  int *nedges;                         /* n */
  size_t tedges;                       /* sum of nedges */
  ZOLTAN_ID_TYPE *nbr;                 /* tedges * ngid */
  int *nbr_procs;                      /* tedges */
  float *ew;                           /* tedges * ewdim */
  int *sizes;                          /* n */
  int hg_nl, hg_np, hg_format;         /* HG_SIZE_CS's answer */
  ZOLTAN_ID_TYPE *hg_lists;            /* hg_nl * ngid */
  int *hg_starts;                      /* hg_nl */
  ZOLTAN_ID_TYPE *hg_pins;             /* hg_np * ngid */
  int hg_new;                          /* HG_SIZE_EDGE_WTS's answer */
  ZOLTAN_ID_TYPE *hg_egids, *hg_elids; /* hg_new * ngid, hg_new * nlid */
  float *hg_ew;                        /* hg_new * ewdim */
  zp_fn_slot saved[G_KINDS];
  int nsaved;
};

/* Did a callback succeed?  Warnings are successes, as in Zoltan. */
static inline int zp_guard_ok(int ierr) { return ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN; }

/* 1 when the callback of kind (G_*) was read. */
static inline int zp_guard_has(const zp_guard *g, int kind) { return (g->have >> kind & 1u) != 0; }

/* Put the guard's callbacks in front of the application's, for what was
 * read.  Local. */
void zp_guard_install(zp_guard *g);
/* Give the application its callbacks back, in the form it registered.
 * Local. */
void zp_guard_restore(zp_guard *g);

#endif
