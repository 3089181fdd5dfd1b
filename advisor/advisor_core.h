/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ADVISOR_CORE_H
#define ADVISOR_CORE_H

/*
 * The advisor behind LB_METHOD=AUTO (Paradise, Krishnan and Kalé: measure a run's
 * characteristics, choose a scheme by rules, leave hints for the next run).
 * Pure C on plain arrays and the recorded problem (loaddb_dump): no MPI, no
 * Zoltan.  The adapter (advisor_zoltan.c, with the distributed figures of
 * advisor_eval.c) measures the problem where it lies, runs the candidates
 * this module names, and lets it pick.
 *
 * The rules, in order (each that fires adds one line to the explanation):
 *   R1 fewer than 2 objects per part: GREEDY only (cuts and refinement have
 *      nothing to work with).
 *   R2 always: GREEDYREFINE, GREEDY and REFINE (load-only methods).
 *   R3 coordinates: RCB and HSFC (geometric cuts keep neighbours together),
 *      each only within the bounds where Zoltan 13.2's method was never
 *      seen to fail (zp_native_bounds: outside them it fails on some inputs
 *      on one rank only, and the other ranks wait for ever).
 *   R4 a graph whose edges weigh at least comm_threshold of the load:
 *      SCOTCHLB, and SCOTCHLB with SCOTCHLB_COMM_COST set to the step's
 *      comm_cost (a graph partitioner sees the communication; told its
 *      price, SCOTCHLB trades cut for balance and polishes for the step
 *      itself), or, when comm_cost is 0, with IMBALANCE_TOL=1.01 (the load
 *      alone is the step, and a tighter balance is what shortens it).
 * A candidate is a method name, optionally followed by ':' and one
 * NAME=VALUE parameter setting for its run ("SCOTCHLB:IMBALANCE_TOL=1.01").
 *   R5 pick: the smallest modelled step (largest part load + the weight of
 *      its edges that leave it); among candidates within slack of it, the
 *      one that moves the least weight.
 *   R6 policy: a load that grows by more than 0.5% a step, most of it in
 *      the fastest-growing tenth of the objects, suggests the ULBA policy
 *      (and LB_METHOD=ULBA); growth spread over the objects, ZHAI; no
 *      measured growth, ZHAI (the trigger's default).
 */

#include <stddef.h>
#include <stdio.h>

#include "loaddb_dump.h"
#include "loaddb_eval.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ADVISOR_NAME_MAX       64 /* longest candidate or policy name, NUL included */
#define ADVISOR_MAX_CANDIDATES 8
#define ADVISOR_NOTE_MAX       1024 /* room for the rule lines */

/* What the advisor measures of a problem. */
typedef struct advisor_traits {
  double objects;       /* objects */
  int parts;            /* parts to produce */
  int ranks;            /* ranks of the run */
  double imbalance;     /* max/avg of the current parts (first weight) */
  double weight_cv;     /* standard deviation / mean of the object weights */
  double grain;         /* heaviest object / average part load */
  const char *hsfc_out; /* why Zoltan's HSFC may not run on the problem
                            (zp_native_bounds), NULL when it may; set by the
                            adapter at each decision, not in hints files */
  const char *rcb_out;  /* the same for RCB */
  int has_geom;         /* coordinates exist */
  int has_graph;        /* edges exist */
  double comm_ratio;    /* total edge weight (each edge once) / total load */
  int has_growth;       /* growth was measured (object-load history) */
  double growth;        /* relative growth of the total load per step */
  double growth_conc;   /* share of the positive growth in the fastest-growing
                          tenth of the objects, in [0, 1] */
} advisor_traits;

/* The advisor's answer. */
typedef struct advisor_choice {
  size_t ncand;                                        /* candidates */
  char cand[ADVISOR_MAX_CANDIDATES][ADVISOR_NAME_MAX]; /* their names */
  int pick;                                            /* index of the chosen one, -1 = none */
  char method[ADVISOR_NAME_MAX];                       /* cand[pick] */
  char policy[ADVISOR_NAME_MAX];                       /* recommended ADAPTIVE_POLICY */
  char notes[ADVISOR_NOTE_MAX];                        /* one line per rule that fired */
} advisor_choice;

/* The sums the traits come from, however they were added (on one rank in
 * ID order, or over the ranks as reproducible sums). */
typedef struct advisor_sums {
  double objects;     /* objects */
  int ranks;          /* ranks of the run */
  double sum;         /* sum of the first weights */
  double sq;          /* sum of their squares */
  double heavy;       /* the largest first weight */
  double ew;          /* sum of the edge weights over both ends of every
                         edge (1 each without edge weights) */
  int has_geom;       /* coordinates exist */
  int has_graph;      /* edges exist */
  const double *load; /* parts entries: the first weight in each current
                         part (objects in no part count in none), or NULL */
} advisor_sums;

/*
 * advisor_traits_from_sums - the traits from the sums of s with parts
 * parts; growth fields are left 0 (see advisor_growth).  Never fails.
 */
void advisor_traits_from_sums(const advisor_sums *s, int parts, advisor_traits *t);

/*
 * advisor_traits_measure - the traits of problem d (first weight, current
 * parts) with parts parts, its sums added in ID order
 * (advisor_traits_from_sums); growth fields are left 0 (see
 * advisor_growth).  Never fails.
 */
void advisor_traits_measure(const loaddb_dump *d, int parts, advisor_traits *t);

/*
 * advisor_growth - growth traits from two load snapshots of the same n
 * objects, `steps` steps apart (old first): growth is the relative change
 * of the total per step, growth_conc the share of the positive growth in
 * the fastest-growing tenth of the objects.  n == 0, steps < 1 or a zero
 * old total leave has_growth 0.  Uses scratch (n doubles).
 */
void advisor_growth(size_t n, const double *old_load, const double *new_load, long steps,
                    double *scratch, advisor_traits *t);

/*
 * advisor_candidates - rules R1 to R4: the methods worth trying on t, into
 * c->cand (c is cleared first), with one note line per rule that fired.
 * comm_threshold is the R4 threshold (AUTOLB_COMM_THRESHOLD), comm_cost the
 * price of one unit of edge weight in the modelled step (AUTOLB_COMM_COST).
 * Not collective.
 */
void advisor_candidates(const advisor_traits *t, double comm_threshold, double comm_cost,
                        advisor_choice *c);

/*
 * advisor_pick - rules R5 and R6.  ev[i] and ok[i] (1 when candidate i ran
 * and its answer is valid) for the c->ncand candidates; slack >= 0 (0.01 =
 * 1%).  Sets c->pick, c->method, c->policy and adds their note lines.
 * Returns the pick, or -1 when no candidate ran (c->method is then
 * empty).
 */
int advisor_pick(const advisor_traits *t, const loaddb_eval *ev, const int *ok, double slack,
                 advisor_choice *c);

/* A hints file: what a run measured and what the advisor chose. */
typedef struct advisor_hints {
  advisor_traits traits;         /* measured at the last decision */
  char method[ADVISOR_NAME_MAX]; /* the method chosen */
  char policy[ADVISOR_NAME_MAX]; /* the policy recommended */
} advisor_hints;

#define ADVISOR_HINTS_VERSION 1

/*
 * advisor_hints_write - h as a hints file ("ZPHINTS 1", documented in
 * docs/loaddb.md).  Returns 0, or -1 when writing failed.
 */
int advisor_hints_write(FILE *f, const advisor_hints *h);

/*
 * advisor_hints_parse - read a hints file from text (len bytes).  Checks
 * the version, every key once, numbers finite and in range, the method
 * and policy names as words.  Returns 0, or -1 with msg (cap bytes) naming
 * the line and the value.
 */
int advisor_hints_parse(const char *text, size_t len, advisor_hints *h, char *msg, size_t cap);

/*
 * advisor_hints_apply - whether hints h can be used for a problem with
 * traits now: the method must be one that can run on it (RCB and HSFC need
 * coordinates, SCOTCHLB a graph).  Returns 1 and writes a note (what
 * differs, e.g. other object or rank counts, and that the method is used
 * anyway) into note (cap bytes), or 0 with the reason.
 */
int advisor_hints_apply(const advisor_hints *h, const advisor_traits *now, char *note, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* ADVISOR_CORE_H */
