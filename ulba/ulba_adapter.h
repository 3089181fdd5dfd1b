/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ULBA_ADAPTER_H
#define ULBA_ADAPTER_H

/*
 * Declarations shared by the files of the ULBA Zoltan adapter: the call's
 * pipeline and the method's entry (ulba_zoltan.c), the measured growth
 * (ulba_rates.c), the relabelled base runs (ulba_relabel.c), problems with
 * fewer objects than parts (ulba_tiny.c), the kept cuts (ulba_cuts.c) and
 * how far it anticipates or underloads: the horizon and the caps that
 * keep base runs within the base method's bounds (ulba_limits.c).
 * Not installed; the library is built with hidden visibility, so none of
 * these symbols is exported.  Every function here is collective over the
 * context's communicator unless it says otherwise.
 */

#include <mpi.h>

#include <zoltan_types.h>

#include "ulba_zoltan.h"
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

/* Per-Zoltan_Struct state: the load history of the parts between calls. */
typedef struct ulba_state {
  struct Zoltan_Struct *zz; /* the struct last balanced with this state, for ulba_last_model */
  struct ulba_state *next;  /* next state in the list searched by ulba_last_model */
  int nparts;               /* number of parts of the arrays below (0 = no history) */
  int cap;                  /* ULBA_HISTORY the ring was made for */
  int len;                  /* intervals held in the ring (<= cap) */
  int head;                 /* ring slot of the next interval */
  double *incr;             /* cap * nparts: load increase of each part per interval */
  double *after;            /* nparts: load of each part right after the last balance */
  int have_after;           /* after[] holds the result of a previous balance */
  ulba_model_info info;     /* quantities of the last balance */
  /* The weight of every local object at the last balance, by GID.  A
   * relabelled balance finds an object's growth as its weight now minus
   * its weight then, through a distributed directory built from these
   * arrays; the directory is built only by a balance that needs it (see
   * ulba_object_growth), because building it costs about as much as an RCB call
   * and most balances never read it. */
  ZOLTAN_ID_TYPE *prev_gids; /* prev_n * prev_ngid IDs */
  double *prev_w;            /* prev_n weights (first dimension) */
  int prev_n;                /* objects recorded on this rank */
  int prev_ngid;             /* GID length of prev_gids; 0 when nothing is recorded
                                (the same on every rank) */
  size_t prev_cap;           /* entries prev_w has room for, and */
  size_t prev_id_cap;        /* entries prev_gids has room for: both are kept between
                                calls, so that a balance does not fault in fresh pages */
  ulba_cuts cuts;            /* the base method's cuts for point and box queries */
  int *guess;                /* nguess entries: the label of each base part in the last
                                relabelled balance, the first guess of the next */
  int nguess;                /* parts of guess (0: none) */
  /* Per-object arrays of a call (ulba_call's obj_rate and obj_work), kept
   * between calls: a fresh allocation of this size is fresh pages, whose
   * faults are a visible share of a call at 10^6 objects. */
  double *obj_rate; /* obj_cap entries */
  double *obj_work; /* obj_cap entries */
  size_t obj_cap;   /* entries of obj_rate and obj_work (0: none yet) */
} ulba_state;

/* The parameters of one call. */
typedef struct ulba_options {
  double alpha;      /* ULBA_ALPHA, ignored when alpha_auto */
  int alpha_auto;    /* ULBA_ALPHA=AUTO */
  const char *base;  /* ULBA_BASE_METHOD, upper case */
  double threshold;  /* ULBA_ZSCORE_THRESHOLD */
  int history;       /* ULBA_HISTORY */
  int relabel;       /* ULBA_RELABEL */
  double lb_cost;    /* ULBA_LB_COST, weight units */
  int growth_object; /* ULBA_GROWTH=OBJECT */
} ulba_options;

/* Everything one ULBA balance works with, passed between its steps. */
typedef struct ulba_call {
  zp_context *ctx;       /* the framework's context of the call */
  ulba_state *s;         /* the struct's ULBA state */
  MPI_Comm comm;         /* the struct's communicator (the layer's duplicate) */
  const char *yo;        /* the entry point, for messages */
  int n, wd, P, rank;    /* local objects, weight dimensions, parts, this rank */
  long total_obj;        /* objects on all ranks */
  ulba_options o;        /* the parameters */
  ulba_model_info info;  /* the model quantities of this balance */
  const char *undefined; /* why the model is undefined, when info cannot tell
                            (NULL otherwise) */
  double *loc;           /* P: this rank's contribution to a per-part sum */
  double *before;        /* P: per-part loads before the balance */
  double *wir;           /* P: per-part workload increase rates */
  double *fused;         /* ulba_measure_loads' reduction, in and out */
  double known[2];       /* ULBA_GROWTH=OBJECT: the weights and the rates of the
                            objects with a known rate, summed over the ranks */
  long min_snap;         /* the fewest object snapshots any rank's history holds */
  double *target;        /* P * wd: ULBA's part sizes (Eq. 6) */
  double *col, *colout;  /* P: one weight dimension of the sizes */
  double *extra;         /* 3 P: object_model's sums per new part */
  int after_known;       /* the state's loads after the balance are summed
                            (object_model) */
  double *obj_rate;      /* n: per-object rate of source (2), NaN if unknown (the
                            state's array) */
  double *obj_work;      /* n: per-object growth for the relabelling (PART), or
                            the anticipated weights (OBJECT); the state's array */
  double *run_sizes;     /* P * wd: sizes of the last relabelled base run */
  int *flags;            /* P: 1 for the overloading parts */
  int *perm;             /* P: ULBA's label of each part of the last base run */
  int use_obj_rate;      /* obj_rate holds the rates of source (2) */
  int anticipated;       /* 1 when the base method ran with anticipated weights */
  int growth_ready;      /* obj_work holds the relabelling's growth (PART) */
  int growth_known;      /* ... and it is growth, not the fallback weights */
  int growth_left;       /* the last relabelled run's first base run left the
                            underloaded parts less than ULBA_AUTO_KEEP_SHARE
                            of the growth and stopped there (AUTO) */
  double horizon;        /* steps of growth anticipated (ULBA_GROWTH=OBJECT) */
  long steps_max;        /* the most step times any rank's history holds */
  ulba_final_run last;   /* the balance's last base run, for the kept cuts */
} ulba_call;

/* The number of entries at the end of ulba_measure_loads' buffer that take
 * the maximum over the ranks (the others are sums). */
#define ULBA_MAX_TAIL 4

/* The loads before the balance (c->before, c->info.W), the rates of the
 * struct's history (c->wir, c->obj_rate, c->known, c->min_snap,
 * c->steps_max) and the agreement on them, in two reductions in flight
 * together (zp_allreduce_sum_max); the increase
 * since the last balance into the state's ring.  Returns the agreed code.
 * Collective. */
int ulba_measure_loads(ulba_call *c);

/* Per-part sums of the first weight over the ranks: local gets this rank's
 * objects by part[] (P entries), global the sum.  Returns ZOLTAN_OK or
 * ZOLTAN_FATAL (MPI failed). */
int ulba_part_loads(const zp_context *ctx, const int *part, double *local, double *global);

/* Source (2): per-step rates fitted to the history provider's object-load
 * snapshots: local_rate[P] (this rank's per-part sums), obj_rate[n] (NaN
 * without two samples; written only when *num_snap >= 2).  Not collective.
 * Returns ZOLTAN_OK or ZOLTAN_MEMERR. */
int ulba_history_rates(const zp_context *ctx, double *local_rate, double *obj_rate, long *num_snap);

/* Per-object growth gw[n] >= 0 of the objects of growing parts (grow[P]):
 * obj_rate where known, else the weight now minus the recorded one;
 * *known_growth = 0 when no growth is known anywhere and gw holds the
 * weights instead.  Returns a Zoltan code, the same on every rank. */
int ulba_object_growth(ulba_state *s, const zp_context *ctx, const int *grow,
                       const double *obj_rate, double *gw, int *known_growth);

/* Forget the recorded object weights.  Not collective. */
void ulba_forget_weights(ulba_state *s);

/* Record every local object's ID and weight for the next balance; a rank
 * without the memory makes every rank forget. */
void ulba_remember_weights(ulba_state *s, const zp_context *ctx);

/* The share of the overloading parts' growth (c->obj_work) that part[]
 * leaves in overloading labels (through map[] when part holds base parts),
 * into *share (1 when nothing grows).  Returns ZOLTAN_OK or ZOLTAN_FATAL. */
int ulba_growth_share_kept(const ulba_call *c, const int *part, const int *map, double *share);

/* Run the base method with c->target and relabel its parts so that the
 * growing objects get the small sizes (ulba_relabel.c has the steps); with
 * keep_share > 0 the first run is also tested (c->growth_left).  Returns a
 * Zoltan code, the same on every rank. */
int ulba_run_relabelled(ulba_call *c, double keep_share, int *new_part);

/* Keep perm[P] as the first guess of the next relabelled balance. */
void ulba_keep_guess(ulba_state *s, MPI_Comm comm, const int *perm, int P);

/* Largest ULBA_ALPHA=AUTO may choose: alpha close to 1 empties the
 * overloading parts, which the model allows but no application wants. */
#define ULBA_AUTO_ALPHA_MAX 0.9

/* The horizon of ULBA_GROWTH=OBJECT in steps, given the interval h this
 * balance closes, before the caps of ulba_cap_horizon; *alpha gets
 * ULBA_ALPHA, or with AUTO the share of h used without a cost (0.5, also
 * when the horizon comes from the cost: the model's alpha is set from the
 * run afterwards).  The same on every rank (ulba_limits.c).  Not
 * collective. */
double ulba_object_horizon_of(const ulba_call *c, long h, double *alpha);

/* Lower *alpha (ULBA_GROWTH=PART) so that the sizes with it keep the
 * heaviest object within the base method's grain on the smallest part
 * (ulba_limits.c); nothing to do for a method without one.  Returns
 * ZOLTAN_OK or ZOLTAN_FATAL, the same on every rank. */
int ulba_cap_alpha(ulba_call *c, double *alpha);

/* Lower the horizon *H (ULBA_GROWTH=OBJECT; w, W, G as ulba_anticipate
 * gets them) so that no object that anticipation makes heavier outweighs
 * the base method's grain of the smallest part (ulba_horizon_cap says
 * which objects bound it).  *H is the same on every rank after the call.
 * Returns ZOLTAN_OK or ZOLTAN_FATAL, the same on every rank. */
int ulba_cap_horizon(ulba_call *c, const double *w, double W, double G, double *H);

/* Fewer objects than parts: every object gets a part of its own, staying
 * where it is when it can.  Returns a Zoltan code, the same on every rank. */
int ulba_assign_tiny(ulba_call *c, int *new_part);

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
