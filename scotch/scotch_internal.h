/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SCOTCH_INTERNAL_H
#define SCOTCH_INTERNAL_H

/*
 * What the serial core and the PT-Scotch path share, so that both hand
 * Scotch the same integers for the same problem: the combined loads, the
 * integer scaling, the part architecture and the private context.  Not
 * collective; no MPI.  Hidden from the library's users.
 */

#include <stddef.h>
#include <stdio.h>

#include <scotch.h>

#include "scotch_core.h"

/* A message into msg (cap bytes; nothing when msg is NULL or cap 0). */
void scotchlb_say(char *msg, size_t cap, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* One load per object and one target fraction per part (summing to 1)
 * from wdim weights per object, given the wdim totals over all objects
 * (see the top of scotch_core.h).  Returns SCOTCHLB_OK or SCOTCHLB_ENOMEM. */
int scotchlb_combine(size_t n, int wdim, const double *w, const double *tot, int nparts,
                     const double *target_frac, double *load, double *target);

/* The scale factors of loads (*ls, 0 when every load is 0: each object
 * then counts 1) and of edge weights (*es), from the largest and total
 * load and edge weight, the number of edge ends and of objects; *mig, the
 * migration cost in units of the mean edge weight, becomes edge weight. */
void scotchlb_scales(double lmax, double lsum, double emax, double esum, double ends, double nobj,
                     double *mig, double *ls, double *es);
SCOTCH_Num scotchlb_load_int(double load, double ls);
SCOTCH_Num scotchlb_edge_int(double w, double es);

/* The parts with a positive target ("effective" parts), their integer
 * weights pw and the maps both ways (-1 for a part of target 0); *equal is
 * 1 when all weights are the same.  SCOTCHLB_EINVAL when no part has a
 * positive target. */
int scotchlb_parts(int nparts, const double *target, SCOTCH_Num *pw, int *eff_to_part,
                   int *part_to_eff, SCOTCH_Num *neff, int *equal);

/* The complete-graph architecture of the effective parts (weighted when
 * they are unequal); on failure *where names the Scotch function. */
int scotchlb_arch(SCOTCH_Arch *arch, SCOTCH_Num neff, int equal, SCOTCH_Num *pw,
                  const char **where);

/* A context made ready: one thread, deterministic, its own generator
 * seeded and reset.  On failure *where names the Scotch function. */
int scotchlb_context(SCOTCH_Context *ctx, long seed, const char **where);

#endif /* SCOTCH_INTERNAL_H */
