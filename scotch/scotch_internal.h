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
#include "scotch_descent.h"

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

/* The problem in Scotch's integers (scotch_map.c), freed in one place. */
typedef struct scotchlb_sgraph {
  SCOTCH_Num *vert, *edge, *velo, *edlo;
  SCOTCH_Num *pw;        /* weights of the parts with a positive target */
  int *eff_to_part;      /* effective part -> part */
  int *part_to_eff;      /* part -> effective part, -1 for target 0 */
  SCOTCH_Num neff;       /* parts with a positive target */
  int equal;             /* 1 when those parts all have the same weight */
  SCOTCH_Num *old, *out; /* current and new effective parts */
  SCOTCH_Num *vmlo;      /* migration cost of each object, in edge-load units */
} scotchlb_sgraph;

void scotchlb_sgraph_free(scotchlb_sgraph *g);

/* Scaled integer loads, edge weights and part weights of the instance;
 * for a remap (cur given, else NULL) the current parts and the migration
 * costs (mig per object in units of the mean edge weight, times the
 * object's move_cost over their mean when move_cost is given).  Returns
 * SCOTCHLB_OK, SCOTCHLB_ENOMEM or SCOTCHLB_ETOOBIG (with msg); g is to be
 * freed by scotchlb_sgraph_free either way. */
int scotchlb_sgraph_build(const scotchlb_instance *in, const int *cur, double mig,
                          const double *move_cost, scotchlb_sgraph *g, char *msg, size_t cap);

/* One Scotch mapping of g's n objects into g->out (a remap from g->old
 * when remap is 1), with the strategy o names, in a private, seeded,
 * deterministic context.  Returns SCOTCHLB_OK, SCOTCHLB_ESTRAT or
 * SCOTCHLB_ESCOTCH with msg naming the Scotch call. */
int scotchlb_run(size_t n, scotchlb_sgraph *g, const scotchlb_options *o, int remap, char *msg,
                 size_t cap);

#endif /* SCOTCH_INTERNAL_H */
