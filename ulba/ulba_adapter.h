/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ULBA_ADAPTER_H
#define ULBA_ADAPTER_H

/*
 * Declarations shared by the files of the ULBA Zoltan adapter (ulba_zoltan.c,
 * ulba_cuts.c).  Not installed; the library is built with hidden visibility,
 * so none of these symbols is exported.
 */

#include <mpi.h>

#include <zoltan_types.h>

#include "zp_context.h"

struct Zoltan_Struct;

/*
 * The cuts of the base method kept for Zoltan's point and box queries
 * (ulba_cuts.c): a copy of the application's struct that ran the base
 * method natively with KEEP_CUTS=1, and the map from its parts to ULBA's.
 */
typedef struct ulba_cuts {
  struct Zoltan_Struct *zz; /* the copy holding the cuts, or NULL */
  int *part_map;            /* num_parts entries: base part -> ULBA part */
  int num_parts;            /* entries of part_map */
} ulba_cuts;

/* What the last base run of a balance was. */
typedef struct ulba_final_run {
  const char *base;    /* the base method, upper case */
  const double *sizes; /* the part sizes it ran with */
  int app_sizes;       /* 1 when sizes are the application's own */
  const int *part_map; /* base part -> ULBA part, NULL for the identity */
  const int *new_part; /* ULBA's part of each local object */
  double W;            /* total weight (first dimension) over the ranks */
} ulba_final_run;

/*
 * ulba_cuts_keep - after a balance, keep the base method's cuts for the point
 * and box queries on the context's struct, when the application wants them
 * (KEEP_CUTS=1) and the base method is RCB, RIB or HSFC; otherwise forget
 * them.  Collective.  Runs the base method once more on a copy of the struct
 * and keeps the copy only when it assigns every object exactly as the
 * balance did.  Never fails the balance: without cuts the queries answer
 * with an error that says so.
 */
void ulba_cuts_keep(ulba_cuts *k, zp_context *ctx, const ulba_final_run *run);

/* ulba_cuts_forget - stop answering the queries of zz from k (zz may be NULL
 * or already destroyed). Not collective. */
void ulba_cuts_forget(ulba_cuts *k, struct Zoltan_Struct *zz);

/* ulba_cuts_free - forget and destroy the copy.  Collective over the
 * struct's communicator, as Zoltan_Destroy is. */
void ulba_cuts_free(ulba_cuts *k, struct Zoltan_Struct *zz);

/* Nonzero while ulba_cuts_keep runs the base method on its copy, so that a
 * ULBA partition entered from there (ZOLTAN_PLUGINS_LB_METHOD forces every
 * LB_METHOD to ULBA) refuses instead of recursing. */
extern int ulba_keeping_cuts;

#endif /* ULBA_ADAPTER_H */
