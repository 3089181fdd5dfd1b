/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ADAPTIVE_INTERNAL_H
#define ADAPTIVE_INTERNAL_H

/*
 * What the files of the trigger's MPI layer share (hidden in the library):
 * the trigger's struct, the slots of the single reduction, and the functions
 * one file calls in another.  One file per job: adaptive_params.c
 * (parameters), adaptive_reduce.c (the fixed-point reduction), adaptive_io.c
 * (files), adaptive_snapshots.c (the snapshot ring), adaptive_observer.c
 * (the Zoltan observer and history provider), adaptive_trigger.c (life,
 * reports and the decision).
 */
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "adaptive_policy.h"
#include "adaptive_trigger.h"
#include "zp_history.h"
#include "zp_hooks.h"
#include "zp_method.h"

/* Tag under which the trigger observes a Zoltan_Struct. */
#define ADAPTIVE_TAG "adaptive_trigger"

/* Row numbers of the parameter table, in table order. */
enum {
  P_POLICY,
  P_PERIOD,
  P_LB_COST,
  P_COST_WEIGHT,
  P_EFF_MIN,
  P_THRESHOLD,
  P_LOAD_INDEX,
  P_UTILIZATION,
  P_SPEED,
  P_SETTLE_STEPS,
  P_INTERVAL,
  P_ULBA_EARLY,
  P_ULBA_GUARD,
  P_DEGRADATION,
  P_HISTORY,
  P_OBJ_HISTORY,
  P_DEBUG_LEVEL,
  P_SPEED_FILE,
  P_LOADAVG_FILE,
  P_TRACE_FILE,
  P_COUNT
};

/*
 * Everything a step needs from the other ranks travels in one vector of
 * int64 slots reduced by one user operation: a bitwise OR of error flags,
 * maxima of order-preserving encodings of non-negative doubles, and sums in
 * fixed point.  Sums are exact integers, so every rank gets bit-identical
 * results whatever order MPI combines the contributions in; that is what
 * makes the decision the same on every rank.
 */
enum {
  R_FLAGS = 0, /* OR */
  R_TMAX,
  R_TMIN,
  R_IMAX,
  R_IMIN,
  R_UMAX,
  R_COST,
  R_FP,
  R_FPNEG, /* MAX */
  R_TSUM,
  R_USUM = R_TSUM + 4, /* SUM, four 32-bit limbs each */
  R_NPE = R_USUM + 4,  /* SUM: PEs over the ranks (one int64) */
  R_COUNT = R_NPE + 1
};
#define R_FIRST_MAX R_TMAX
#define R_FIRST_SUM R_TSUM

/* Bits of R_FLAGS. */
#define F_BAD_TIME  0x1  /* a rank gave a NaN, infinite or negative time */
#define F_BAD_INDEX 0x2  /* a rank could not read its load average */
#define F_NO_LOAD   0x4  /* a rank did not report its load (LOAD source) */
#define F_EVENT     0x8  /* a rank saw a balance since the previous call */
#define F_NOEVENT   0x10 /* a rank saw no balance since the previous call */
#define F_TOO_LARGE 0x20 /* a value is beyond the fixed-point range */
#define F_BAD_PES   0x40 /* a rank gave no PE times */

/* Values summed in fixed point must be below this (2^64). */
#define FIX_LIMIT 18446744073709551616.0

/* ---- the trigger ---------------------------------------------------------- */

/* What one step measured per object: its loads (adaptive_report_objects)
 * and the communication of pairs of objects (adaptive_report_comm). */
typedef struct obj_snapshot {
  long step;             /* step the measurements belong to */
  int has_loads;         /* 1 when the loads below were reported */
  int num_obj;           /* objects in the snapshot */
  int num_gid_entries;   /* entries per ID, 0 when no IDs were given */
  ZOLTAN_ID_TYPE *gids;  /* num_obj * num_gid_entries IDs, or NULL */
  double *loads;         /* num_obj loads */
  int has_comm;          /* 1 when the pairs below were reported */
  int num_pairs;         /* communicating pairs */
  int pair_gid_entries;  /* entries per ID of the pairs */
  ZOLTAN_ID_TYPE *pairs; /* num_pairs * 2 * pair_gid_entries IDs: from, to */
  double *volumes;       /* num_pairs volumes */
} obj_snapshot;

struct adaptive_trigger {
  MPI_Comm comm;            /* duplicate of the user's communicator */
  int rank, size;           /* this rank and the size of comm */
  MPI_Datatype vec_type;    /* R_COUNT int64 slots as one element */
  MPI_Op vec_op;            /* adaptive_reduce_op */
  adaptive_config cfg;      /* settings of the decision logic */
  adaptive_state core;      /* the decision logic */
  adaptive_quantities last; /* quantities of the last decision */
  int have_last;            /* 1 once a decision was made */
  double speed;             /* ADAPTIVE_SPEED of this rank */
  int history_cap;          /* ADAPTIVE_HISTORY */
  int obj_cap;              /* ADAPTIVE_OBJ_HISTORY */
  int debug_level;          /* ADAPTIVE_DEBUG_LEVEL */
  int policy_auto;          /* ADAPTIVE_POLICY=AUTO: follow LB_METHOD=AUTO's advice */
  char *speed_file;         /* ADAPTIVE_SPEED_FILE, or NULL */
  char *loadavg_file;       /* ADAPTIVE_LOADAVG_FILE */
  char *trace_file;         /* ADAPTIVE_TRACE_FILE, or NULL */
  FILE *trace;              /* open trace (rank 0 only), or NULL */
  adaptive_ring hist;       /* step records since the last balance */
  obj_snapshot *objs;       /* obj_cap snapshot slots (ring) */
  int obj_start, obj_count; /* ring position and fill of objs */
  struct Zoltan_Struct *zz; /* attached struct, or NULL */
  long step;                /* successful adaptive_should_balance calls */
  long balances;            /* balances committed */
  int awaiting;             /* the last decision was 1 and no balance has
                                 been reported since */
  int event;                /* a balance happened since the last call */
  double observed_cost;     /* sum of observed Zoltan call times */
  double reported_cost;     /* sum of adaptive_balance_done costs */
  int cost_reported;        /* 1 when adaptive_balance_done gave a cost */
  int observed;             /* Zoltan calls observed since the last call */
  double my_load;           /* reported load for the coming step */
  int load_reported;        /* 1 when my_load is set */
  int load_explicit;        /* 1 when adaptive_report_load set my_load
                                 (object sums then do not replace it) */
};

/* ---- shared between the files -------------------------------------------- */

/* adaptive_params.c: the parameter table in P_* order (defaults, ranges),
 * and a malloc'd copy of s without white space at either end (NULL when
 * memory is short). */
extern const zp_param_def adaptive_param_table[P_COUNT];
char *adaptive_trimmed_copy(const char *s);

/* adaptive_reduce.c: the MPI operation over R_COUNT int64 slots (OR,
 * maxima, sums), and the encodings it combines: maxima and minima of
 * non-negative doubles as ordered integers, sums as four 32-bit limbs of
 * fixed point (exact, so every rank decodes the same bits). */
void adaptive_reduce_op(void *in, void *inout, int *len, MPI_Datatype *dt);
int64_t adaptive_enc_max(double x);
double adaptive_dec_max(int64_t v);
int64_t adaptive_enc_min(double x);
double adaptive_dec_min(int64_t v);
void adaptive_enc_sum(double x, int64_t *limb);
double adaptive_dec_sum(const int64_t *in);

/* adaptive_io.c: this rank's speed from ADAPTIVE_SPEED_FILE (a message in
 * msg on failure), the first number of the load-average file, the trace
 * file opened on rank 0 and one decision appended to it.  Local. */
int adaptive_read_speed_file(const char *path, double *speed, char *msg, size_t cap);
int adaptive_read_avenrun(const char *path, double *avenrun);
int adaptive_open_trace(adaptive_trigger *t, const char *path);
void adaptive_write_trace(adaptive_trigger *t, const adaptive_step *st,
                          const adaptive_quantities *q);

/* adaptive_snapshots.c: resize the step ring (ADAPTIVE_HISTORY) and the
 * snapshot ring (ADAPTIVE_OBJ_HISTORY), and drop the snapshots of steps
 * before keep_from.  Local; the resizes return ZOLTAN_OK or ZOLTAN_MEMERR. */
int adaptive_resize_history(adaptive_trigger *t, int cap);
int adaptive_resize_objects(adaptive_trigger *t, int cap);
void adaptive_drop_snapshots_before(adaptive_trigger *t, long keep_from);

/* adaptive_observer.c: take LB_METHOD=AUTO's policy word (ADAPTIVE_POLICY
 * = AUTO), and stop observing the attached struct.  Local. */
void adaptive_accept_policy(void *arg, const char *word);
void adaptive_detach(adaptive_trigger *t);

/* adaptive_trigger.c: a hash of the settings every rank must share, for the
 * check that they agree.  Local. */
int64_t adaptive_fingerprint(const adaptive_trigger *t);

#endif
