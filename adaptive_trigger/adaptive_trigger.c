/* SPDX-License-Identifier: BSD-3-Clause */
#include "adaptive_policy.h"
#include "adaptive_trigger.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_history.h"
#include "zp_hooks.h"
#include "zp_method.h"

/* Tag under which the trigger observes a Zoltan_Struct. */
#define ADAPTIVE_TAG "adaptive_trigger"

/* ---- parameters ---------------------------------------------------------- */

static const char *const policy_words[] = {
    "ZHAI",  "MENON",     "MENON_CUMULATIVE", "ULBA", "PERIODIC", "ALWAYS",
    "NEVER", "THRESHOLD", "EFFICIENCY",       "AUTO", NULL};
static const char *const index_words[] = {"TIME", "LOADAVG", NULL};
static const char *const util_words[] = {"TIME", "LOAD", NULL};
static const char *const auto_word[] = {"AUTO", NULL};
static const char *const degradation_words[] = {"TOTAL", "IMBALANCE", NULL};

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

/* Rows with type ZP_PARAM_STRING and choices == NULL are file paths: their
 * values are trimmed but keep their case. */
static const zp_param_def param_table[P_COUNT] = {
    {"ADAPTIVE_POLICY", ZP_PARAM_STRING, "ZHAI", 0, 0, 0, policy_words,
     "which policy decides when to balance; AUTO = ZHAI until LB_METHOD=AUTO on the attached "
     "struct recommends one (rule R6), then that one"},
    {"ADAPTIVE_PERIOD", ZP_PARAM_INT, "100", 1, 0, ZP_PARAM_NO_MAX, NULL,
     "PERIODIC: balance every this many steps"},
    {"ADAPTIVE_LB_COST", ZP_PARAM_DOUBLE, "AUTO", 0, 0, ZP_PARAM_NO_MAX, auto_word,
     "initial balance cost C in seconds; AUTO = measured at the first balance"},
    {"ADAPTIVE_COST_WEIGHT", ZP_PARAM_DOUBLE, "0", 0, 1, 0, NULL,
     "weight of a new cost in the running average C; 0 = plain mean"},
    {"ADAPTIVE_EFF_MIN", ZP_PARAM_DOUBLE, "0.9", 0, 1, ZP_PARAM_MIN_OPEN, NULL,
     "EFFICIENCY: balance when U_avg/U_max falls below this"},
    {"ADAPTIVE_THRESHOLD", ZP_PARAM_DOUBLE, "0.25", 0, 0, ZP_PARAM_NO_MAX, NULL,
     "THRESHOLD: balance when max - min of the load index exceeds this"},
    {"ADAPTIVE_LOAD_INDEX", ZP_PARAM_STRING, "TIME", 0, 0, 0, index_words,
     "THRESHOLD: load index from step TIME or LOADAVG (1+avenrun)/speed"},
    {"ADAPTIVE_UTILIZATION", ZP_PARAM_STRING, "TIME", 0, 0, 0, util_words,
     "EFFICIENCY: utilization is the step TIME or the reported LOAD / speed"},
    {"ADAPTIVE_SPEED", ZP_PARAM_DOUBLE, "1", 0, 0, ZP_PARAM_MIN_OPEN | ZP_PARAM_NO_MAX, NULL,
     "this rank's speed (capacity) alpha_i; may differ between ranks"},
    {"ADAPTIVE_SETTLE_STEPS", ZP_PARAM_INT, "3", 1, 0, ZP_PARAM_NO_MAX, NULL,
     "THRESHOLD/EFFICIENCY: first measurement this many steps after a balance"},
    {"ADAPTIVE_INTERVAL", ZP_PARAM_INT, "1", 1, 0, ZP_PARAM_NO_MAX, NULL,
     "THRESHOLD/EFFICIENCY: steps between later measurements"},
    {"ADAPTIVE_ULBA_EARLY", ZP_PARAM_INT, "1", 0, 1, 0, NULL,
     "ULBA: 1 = may balance between sigma- and sigma+ on measured degradation"},
    {"ADAPTIVE_ULBA_GUARD", ZP_PARAM_INT, "0", 0, 1, 0, NULL,
     "ULBA: 1 = may balance before sigma- when the degradation exceeds the model's by C"},
    {"ADAPTIVE_DEGRADATION", ZP_PARAM_STRING, "TOTAL", 0, 0, 0, degradation_words,
     "ZHAI, ULBA: accumulate the growth of T_max (TOTAL, Zhai as published) or only of "
     "T_max - T_avg (IMBALANCE, the part a balance removes)"},
    {"ADAPTIVE_HISTORY", ZP_PARAM_INT, "256", 1, 1048576, 0, NULL,
     "step records kept since the last balance (newest)"},
    {"ADAPTIVE_OBJ_HISTORY", ZP_PARAM_INT, "4", 0, 1024, 0, NULL,
     "object-load snapshots kept since the last balance (newest); 0 = none"},
    {"ADAPTIVE_DEBUG_LEVEL", ZP_PARAM_INT, "0", 0, 2, 0, NULL,
     "1: print parameters and balance decisions on rank 0; 2: every step"},
    {"ADAPTIVE_SPEED_FILE", ZP_PARAM_STRING, "", 0, 0, 0, NULL,
     "file of 'host speed' lines ('*' = any host) giving ADAPTIVE_SPEED"},
    {"ADAPTIVE_LOADAVG_FILE", ZP_PARAM_STRING, "/proc/loadavg", 0, 0, 0, NULL,
     "where avenrun (first number) is read for LOADAVG"},
    {"ADAPTIVE_TRACE_FILE", ZP_PARAM_STRING, "", 0, 0, 0, NULL,
     "CSV trace of every decision, written by rank 0; empty = none"},
};

/* ---- the single reduction ------------------------------------------------ */

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

static void reduce_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  const int64_t *a = in;
  int64_t *b = inout;
  int k, i;
  (void)dt;
  for (k = 0; k < *len; k++, a += R_COUNT, b += R_COUNT) {
    b[R_FLAGS] |= a[R_FLAGS];
    for (i = R_FIRST_MAX; i < R_FIRST_SUM; i++)
      if (a[i] > b[i]) b[i] = a[i];
    for (i = R_FIRST_SUM; i < R_COUNT; i++) b[i] += a[i];
  }
}

/* Non-negative doubles order like their bit patterns read as integers. */
static int64_t enc_max(double x)
{
  int64_t v;
  memcpy(&v, &x, sizeof v);
  return v;
}
static double dec_max(int64_t v)
{
  double x;
  memcpy(&x, &v, sizeof x);
  return x;
}
static int64_t enc_min(double x) { return INT64_MAX - enc_max(x); }
static double dec_min(int64_t v) { return dec_max(INT64_MAX - v); }

/* Splits x in [0, 2^64) into limbs of 32 bits with weights 2^32, 1, 2^-32
 * and 2^-64; bits below 2^-64 are dropped.  Every step is exact. */
static void enc_sum(double x, int64_t *limb)
{
  double h = floor(ldexp(x, -32)), r = x - ldexp(h, 32), d;
  limb[3] = (int64_t)h;
  d = floor(r);
  limb[2] = (int64_t)d;
  r = ldexp(r - d, 32);
  d = floor(r);
  limb[1] = (int64_t)d;
  limb[0] = (int64_t)floor(ldexp(r - d, 32));
}

/* The double nearest (up to rounding of the last additions) to a reduced
 * sum of limbs; deterministic because every rank holds the same limbs. */
static double dec_sum(const int64_t *in)
{
  int64_t l[4];
  int j;
  memcpy(l, in, sizeof l);
  for (j = 0; j < 3; j++) {
    l[j + 1] += l[j] >> 32;
    l[j] &= 0xffffffff;
  }
  return ldexp((double)l[3], 32) + (double)l[2] + ldexp((double)l[1], -32) +
         ldexp((double)l[0], -64);
}

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
  MPI_Op vec_op;            /* reduce_op */
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

static void detach(adaptive_trigger *t);

/* Trims white space from both ends into a malloc'd copy. */
static char *trimmed_copy(const char *s)
{
  size_t b = 0, e = strlen(s);
  char *out;
  while (s[b] && isspace((unsigned char)s[b])) b++;
  while (e > b && isspace((unsigned char)s[e - 1])) e--;
  out = malloc(e - b + 1);
  if (!out) return NULL;
  memcpy(out, s + b, e - b);
  out[e - b] = '\0';
  return out;
}

/* A trimmed, upper-case copy of a parameter name (NULL when out of memory),
 * cleaned as Zoltan cleans names. */
static char *clean_name(const char *s)
{
  char *out = trimmed_copy(s), *c;
  for (c = out; c && *c; c++) *c = (char)toupper((unsigned char)*c);
  return out;
}

static int same_nocase(const char *a, const char *b)
{
  while (*a && *b) {
    if (toupper((unsigned char)*a) != toupper((unsigned char)*b)) return 0;
    a++;
    b++;
  }
  return *a == *b;
}

static void free_loads(obj_snapshot *s)
{
  free(s->gids);
  free(s->loads);
  s->gids = NULL;
  s->loads = NULL;
  s->has_loads = 0;
  s->num_obj = s->num_gid_entries = 0;
}

static void free_comm(obj_snapshot *s)
{
  free(s->pairs);
  free(s->volumes);
  s->pairs = NULL;
  s->volumes = NULL;
  s->has_comm = 0;
  s->num_pairs = s->pair_gid_entries = 0;
}

static void free_snapshot(obj_snapshot *s)
{
  free_loads(s);
  free_comm(s);
  memset(s, 0, sizeof *s);
}

/* The snapshot of the current step, created (and the oldest one dropped
 * when the ring is full) on the first report of the step; NULL when
 * ADAPTIVE_OBJ_HISTORY is 0.  A second report of the same kind for the
 * same step replaces the first. */
static obj_snapshot *current_snapshot(adaptive_trigger *t)
{
  obj_snapshot *s;
  int newest;
  if (t->obj_cap <= 0) return NULL;
  newest = (t->obj_start + t->obj_count - 1 + t->obj_cap) % t->obj_cap;
  if (t->obj_count > 0 && t->objs[newest].step == t->step) return &t->objs[newest];
  if (t->obj_count < t->obj_cap) {
    s = &t->objs[(t->obj_start + t->obj_count) % t->obj_cap];
    t->obj_count++;
  } else {
    s = &t->objs[t->obj_start];
    t->obj_start = (t->obj_start + 1) % t->obj_cap;
  }
  free_snapshot(s);
  s->step = t->step;
  return s;
}

/* Drops every object snapshot older than step `keep_from`. */
static void drop_snapshots_before(adaptive_trigger *t, long keep_from)
{
  while (t->obj_count > 0 && t->objs[t->obj_start].step < keep_from) {
    free_snapshot(&t->objs[t->obj_start]);
    t->obj_start = (t->obj_start + 1) % t->obj_cap;
    t->obj_count--;
  }
}

/* Replaces the object ring by one of cap slots (the snapshots are lost:
 * changing ADAPTIVE_OBJ_HISTORY restarts the window). */
static int resize_objects(adaptive_trigger *t, int cap)
{
  obj_snapshot *n = NULL;
  int i;
  if (cap > 0) {
    n = calloc((size_t)cap, sizeof *n);
    if (!n) return ZOLTAN_MEMERR;
  }
  for (i = 0; i < t->obj_cap; i++) free_snapshot(&t->objs[i]);
  free(t->objs);
  t->objs = n;
  t->obj_cap = cap;
  t->obj_start = t->obj_count = 0;
  return ZOLTAN_OK;
}

/* Replaces the step history by one of cap slots keeping the newest records. */
static int resize_history(adaptive_trigger *t, int cap)
{
  adaptive_ring n;
  size_t i, skip;
  int rc = adaptive_ring_init(&n, (size_t)cap);
  if (rc != ADAPTIVE_OK) return rc == ADAPTIVE_ENOMEM ? ZOLTAN_MEMERR : ZOLTAN_FATAL;
  skip = t->hist.count > n.capacity ? t->hist.count - n.capacity : 0;
  for (i = skip; i < t->hist.count; i++) adaptive_ring_push(&n, adaptive_ring_get(&t->hist, i));
  adaptive_ring_free(&t->hist);
  t->hist = n;
  t->history_cap = cap;
  return ZOLTAN_OK;
}

/* Reads this rank's speed from a file of "host speed" lines. */
static int read_speed_file(const char *path, double *speed, char *msg, size_t cap)
{
  char host[MPI_MAX_PROCESSOR_NAME], line[512], name[256];
  int len = 0, found = 0;
  double v;
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(msg, cap, "ADAPTIVE_SPEED_FILE = %s cannot be opened", path);
    return ZOLTAN_FATAL;
  }
  MPI_Get_processor_name(host, &len);
  while (!found && fgets(line, sizeof line, f)) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    if (sscanf(line, "%255s %lf", name, &v) != 2) continue;
    if (strcmp(name, host) == 0 || strcmp(name, "*") == 0) found = 1;
  }
  fclose(f);
  if (!found) {
    snprintf(msg, cap, "ADAPTIVE_SPEED_FILE = %s has no line for host %s (nor '*')", path, host);
    return ZOLTAN_FATAL;
  }
  if (!(v > 0.0) || !isfinite(v)) {
    snprintf(msg, cap, "ADAPTIVE_SPEED_FILE = %s gives speed %g for host %s, outside (0, inf)",
             path, v, host);
    return ZOLTAN_FATAL;
  }
  *speed = v;
  return ZOLTAN_OK;
}

/* Opens (path != NULL) or closes the trace; rank 0 only writes it. */
static int open_trace(adaptive_trigger *t, const char *path)
{
  if (t->trace) fclose(t->trace);
  t->trace = NULL;
  if (!path || t->rank != 0) return ZOLTAN_OK;
  t->trace = fopen(path, "w");
  if (!t->trace) return ZOLTAN_FATAL;
  fprintf(t->trace, "step,since,t_max,t_avg,t_min,median,reference,degradation,cost,"
                    "overhead,m_hat,tau,imbalance,sigma_minus,sigma_plus,spread,eff,"
                    "measured,decision,policy\n");
  return ZOLTAN_OK;
}

adaptive_trigger *adaptive_create(MPI_Comm comm)
{
  adaptive_trigger *t = NULL;
  int init = 0, rc;
  MPI_Initialized(&init);
  if (!init || comm == MPI_COMM_NULL) return NULL;
  t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->comm = MPI_COMM_NULL;
  t->vec_type = MPI_DATATYPE_NULL;
  t->vec_op = MPI_OP_NULL;
  if (MPI_Comm_dup(comm, &t->comm) != MPI_SUCCESS) goto fail;
  MPI_Comm_rank(t->comm, &t->rank);
  MPI_Comm_size(t->comm, &t->size);
  /* One element of a derived type, so that the operation always sees the
   * whole vector and never a piece of it. */
  if (MPI_Type_contiguous(R_COUNT, MPI_INT64_T, &t->vec_type) != MPI_SUCCESS ||
      MPI_Type_commit(&t->vec_type) != MPI_SUCCESS)
    goto fail;
  if (MPI_Op_create(reduce_op, 1, &t->vec_op) != MPI_SUCCESS) goto fail;
  adaptive_config_default(&t->cfg);
  rc = adaptive_state_init(&t->core, &t->cfg);
  if (rc != ADAPTIVE_OK) goto fail;
  t->speed = 1.0;
  t->loadavg_file = trimmed_copy(param_table[P_LOADAVG_FILE].default_value);
  if (!t->loadavg_file) goto fail;
  if (resize_history(t, atoi(param_table[P_HISTORY].default_value)) != ZOLTAN_OK) goto fail;
  if (resize_objects(t, atoi(param_table[P_OBJ_HISTORY].default_value)) != ZOLTAN_OK) goto fail;
  return t;
fail:
  adaptive_destroy(&t);
  return NULL;
}

void adaptive_destroy(adaptive_trigger **tp)
{
  adaptive_trigger *t;
  int fin = 0;
  if (!tp || !*tp) return;
  t = *tp;
  detach(t);
  if (t->trace) fclose(t->trace);
  resize_objects(t, 0);
  adaptive_ring_free(&t->hist);
  free(t->speed_file);
  free(t->loadavg_file);
  free(t->trace_file);
  MPI_Finalized(&fin);
  if (!fin) {
    if (t->vec_op != MPI_OP_NULL) MPI_Op_free(&t->vec_op);
    if (t->vec_type != MPI_DATATYPE_NULL) MPI_Type_free(&t->vec_type);
    if (t->comm != MPI_COMM_NULL) MPI_Comm_free(&t->comm);
  }
  free(t);
  *tp = NULL;
}

/* Sets one of the path parameters (value already trimmed, or NULL). */
static int set_path(adaptive_trigger *t, int row, char *value)
{
  static const char *yo = "adaptive_set_param";
  char msg[512];
  int rc = ZOLTAN_OK;
  if (row == P_SPEED_FILE) {
    double speed = t->speed;
    if (value && value[0] && read_speed_file(value, &speed, msg, sizeof msg) != ZOLTAN_OK) {
      zp_error(yo, "%s", msg);
      free(value);
      return ZOLTAN_FATAL;
    }
    t->speed = value && value[0] ? speed : 1.0;
    free(t->speed_file);
    t->speed_file = value;
  } else if (row == P_LOADAVG_FILE) {
    if (!value || !value[0]) {
      free(value);
      value = trimmed_copy(param_table[P_LOADAVG_FILE].default_value);
      if (!value) return ZOLTAN_MEMERR;
    }
    free(t->loadavg_file);
    t->loadavg_file = value;
  } else {
    if (value && !value[0]) {
      free(value);
      value = NULL;
    }
    if (open_trace(t, value) != ZOLTAN_OK) {
      zp_error(yo, "ADAPTIVE_TRACE_FILE = %s cannot be opened for writing", value);
      rc = ZOLTAN_FATAL;
    }
    free(t->trace_file);
    t->trace_file = value;
  }
  return rc;
}

/* Sets a path parameter (a string row without choices): the value keeps its
 * case, DEFAULT restores the table's default. */
static int set_path_param(adaptive_trigger *t, int row, const char *value)
{
  const zp_param_def *def = &param_table[row];
  char *v = trimmed_copy(value);
  int rc;
  if (!v) return ZOLTAN_MEMERR;
  if (same_nocase(v, "DEFAULT")) {
    free(v);
    v = trimmed_copy(def->default_value);
    if (!v) return ZOLTAN_MEMERR;
  }
  rc = set_path(t, row, v);
  if (rc == ZOLTAN_OK && t->debug_level >= 1 && t->rank == 0)
    printf("ADAPTIVE Parameter %s = %s\n", def->name, value);
  return rc;
}

/* Applies a checked value of a row to cfg (decision settings) or to t (the
 * per-rank settings and the history windows). */
static int apply_param(adaptive_trigger *t, int row, const zp_param_parsed *v, adaptive_config *cfg)
{
  const char *cval = v->clean;
  int iv = v->int_value;
  double dv = v->double_value;
  switch (row) {
  case P_POLICY:
    /* AUTO starts as ZHAI and follows the advice of LB_METHOD=AUTO
     * (accept_policy). */
    t->policy_auto = strcmp(cval, "AUTO") == 0;
    if (t->policy_auto)
      cfg->policy = ADAPTIVE_POLICY_ZHAI;
    else
      adaptive_policy_parse(cval, &cfg->policy);
    break;
  case P_PERIOD:
    cfg->period = iv;
    break;
  case P_LB_COST:
    cfg->initial_cost = v->is_keyword ? -1.0 : dv;
    break;
  case P_COST_WEIGHT:
    cfg->cost_weight = dv;
    break;
  case P_EFF_MIN:
    cfg->eff_min = dv;
    break;
  case P_THRESHOLD:
    cfg->threshold = dv;
    break;
  case P_LOAD_INDEX:
    cfg->index_source = strcmp(cval, "LOADAVG") == 0 ? ADAPTIVE_INDEX_LOADAVG : ADAPTIVE_INDEX_TIME;
    break;
  case P_UTILIZATION:
    cfg->util_source = strcmp(cval, "LOAD") == 0 ? ADAPTIVE_UTIL_LOAD : ADAPTIVE_UTIL_TIME;
    break;
  case P_SPEED:
    t->speed = dv;
    break;
  case P_SETTLE_STEPS:
    cfg->settle_steps = iv;
    break;
  case P_INTERVAL:
    cfg->interval = iv;
    break;
  case P_ULBA_EARLY:
    cfg->ulba_early = iv;
    break;
  case P_ULBA_GUARD:
    cfg->ulba_guard = iv;
    break;
  case P_DEGRADATION:
    /* The layer accepted only a word of degradation_words (upper case). */
    adaptive_degradation_parse(cval, &cfg->degradation);
    break;
  case P_HISTORY:
    return resize_history(t, iv);
  case P_OBJ_HISTORY:
    return resize_objects(t, iv);
  case P_DEBUG_LEVEL:
    t->debug_level = iv;
    break;
  default:
    break;
  }
  return ZOLTAN_OK;
}

int adaptive_set_param(adaptive_trigger *t, const char *name, const char *value)
{
  static const char *yo = "adaptive_set_param";
  char msg[512], *cname;
  const zp_param_def *def = NULL;
  zp_param_parsed v;
  adaptive_config cfg;
  int row, rc;

  if (!t || !name || !value) {
    zp_error(yo, "NULL argument");
    return ZOLTAN_FATAL;
  }
  cname = clean_name(name);
  if (!cname) return ZOLTAN_MEMERR;
  for (row = 0; row < P_COUNT; row++)
    if (strcmp(cname, param_table[row].name) == 0) break;
  if (row == P_COUNT) {
    zp_warn(yo, "unknown parameter %s (ignored)", cname);
    free(cname);
    return ZOLTAN_WARN;
  }
  free(cname);
  def = &param_table[row];

  if (def->type == ZP_PARAM_STRING && def->choices == NULL) return set_path_param(t, row, value);

  /* The layer checks and parses the value as it does for the parameters of
   * its methods, so that both give the same messages. */
  if (zp_param_parse(def, value, &v, msg, sizeof msg) != ZOLTAN_OK) {
    zp_error(yo, "%s", msg);
    return ZOLTAN_FATAL;
  }
  cfg = t->cfg;
  rc = apply_param(t, row, &v, &cfg);
  if (rc != ZOLTAN_OK) return rc;
  /* The table's ranges are the core's ranges, so this cannot fail; the
   * check keeps the two in step. */
  if (adaptive_state_configure(&t->core, &cfg) != ADAPTIVE_OK) {
    zp_error(yo, "%s = %s rejected by the decision logic", def->name, v.clean);
    return ZOLTAN_FATAL;
  }
  t->cfg = cfg;
  if (t->debug_level >= 1 && t->rank == 0)
    printf("ADAPTIVE Parameter %s = %s\n", def->name, v.clean);
  return ZOLTAN_OK;
}

/* Called by the plugin layer after each balancing call on the struct. */
static void observed_balance(void *arg, double seconds, int ierr)
{
  adaptive_trigger *t = arg;
  /* A failed call did not rebalance anything. */
  if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) return;
  t->event = 1;
  if (isfinite(seconds) && seconds >= 0.0) {
    t->observed_cost += seconds;
    t->observed = 1;
  }
}

/* The advice of LB_METHOD=AUTO on the attached struct (zp_history.h): with
 * ADAPTIVE_POLICY=AUTO the decision logic switches to the policy it names,
 * keeping its history; otherwise the advice is ignored.  Every rank gets
 * the same word, so the ranks stay in agreement (fingerprint). */
static void accept_policy(void *arg, const char *word)
{
  adaptive_trigger *t = arg;
  adaptive_config cfg = t->cfg;
  adaptive_policy_id id;
  if (!t->policy_auto || adaptive_policy_parse(word, &id) != ADAPTIVE_OK || id == cfg.policy)
    return;
  cfg.policy = id;
  if (adaptive_state_configure(&t->core, &cfg) != ADAPTIVE_OK) return;
  t->cfg = cfg;
  if (t->debug_level >= 1 && t->rank == 0)
    printf("ADAPTIVE policy %s, as LB_METHOD=AUTO advised (ADAPTIVE_POLICY=AUTO)\n",
           adaptive_policy_name(id));
}

/* The history provider of the attached struct (zp_history.h): what a method
 * such as ULBA reads without knowing the trigger. */
static int provide_object_loads(void *arg, size_t back, zp_object_loads *out)
{
  return adaptive_object_history(arg, back, &out->step, &out->num_obj, &out->num_gid_entries,
                                 &out->gids, &out->loads);
}

static int provide_comm(void *arg, size_t back, zp_comm_volumes *out)
{
  return adaptive_comm_history(arg, back, &out->step, &out->num_pairs, &out->num_gid_entries,
                               &out->pairs, &out->volumes);
}

static long provide_step_times(void *arg, zp_step_times *out, size_t max)
{
  const adaptive_trigger *t = arg;
  /* As adaptive_history: nothing since a balance that is still pending. */
  size_t n = t->event ? 0 : t->hist.count, skip = n > max ? n - max : 0, i;
  for (i = skip; i < n; i++) {
    const adaptive_record *r = adaptive_ring_get(&t->hist, i);
    out[i - skip].step = r->step;
    out[i - skip].t_max = r->t_max;
    out[i - skip].t_avg = r->t_avg;
    out[i - skip].t_min = r->t_min;
  }
  return (long)n;
}

static double provide_balance_cost(void *arg) { return adaptive_balance_cost(arg); }

static int provide_rank_work(void *arg, double *work, double *seconds)
{
  const adaptive_trigger *t = arg;
  size_t n = t->event ? 0 : t->hist.count, i;
  int any = 0;
  *work = *seconds = 0.0;
  for (i = 0; i < n; i++) {
    const adaptive_record *r = adaptive_ring_get(&t->hist, i);
    if (isnan(r->my_load)) continue;
    *work += r->my_load;
    *seconds += r->my_time;
    any = 1;
  }
  return any ? ZOLTAN_OK : ZOLTAN_WARN;
}

/* Stops observing and providing for the attached struct, if any; what
 * another component attached to it since is left alone. */
static void detach(adaptive_trigger *t)
{
  if (t->zz) {
    if (zp_observer_of(t->zz, ADAPTIVE_TAG) == (void *)t) zp_observe(t->zz, NULL);
    zp_history_detach(t->zz, t);
  }
  t->zz = NULL;
}

int adaptive_attach(adaptive_trigger *t, struct Zoltan_Struct *zz)
{
  zp_observer obs;
  zp_history_provider hp;
  int rc;
  if (!t) {
    zp_error("adaptive_attach", "trigger is NULL");
    return ZOLTAN_FATAL;
  }
  detach(t);
  if (!zz) return ZOLTAN_OK;
  obs.tag = ADAPTIVE_TAG;
  obs.arg = t;
  obs.after_balance = observed_balance;
  rc = zp_observe(zz, &obs);
  if (rc != ZOLTAN_OK) return rc;
  memset(&hp, 0, sizeof hp);
  hp.tag = ADAPTIVE_TAG;
  hp.arg = t;
  hp.object_loads = provide_object_loads;
  hp.comm_volumes = provide_comm;
  hp.step_times = provide_step_times;
  hp.balance_cost = provide_balance_cost;
  hp.rank_work = provide_rank_work;
  hp.advise_policy = accept_policy;
  rc = zp_history_attach(zz, &hp);
  if (rc != ZOLTAN_OK) {
    zp_observe(zz, NULL);
    return rc;
  }
  t->zz = zz;
  return ZOLTAN_OK;
}

int adaptive_balance_done(adaptive_trigger *t, double cost)
{
  if (!t || isnan(cost) || isinf(cost)) {
    zp_error("adaptive_balance_done", "cost = %g is not a finite number", t ? cost : 0.0);
    return ZOLTAN_FATAL;
  }
  t->event = 1;
  if (cost >= 0.0) {
    t->reported_cost += cost;
    t->cost_reported = 1;
  }
  return ZOLTAN_OK;
}

int adaptive_set_ulba_model(adaptive_trigger *t, const adaptive_ulba_model *model)
{
  if (!t) return ZOLTAN_FATAL;
  if (model && adaptive_ulba_check(model) != ADAPTIVE_OK) {
    zp_error("adaptive_set_ulba_model",
             "model out of range: P = %d (>= 1), N = %d (in [0, P)), alpha = %g (in [0, 1]), "
             "a = %g, m = %g, W = %g (finite, >= 0), omega = %g (> 0)",
             model->P, model->N, model->alpha, model->a, model->m, model->W, model->omega);
    return ZOLTAN_FATAL;
  }
  adaptive_state_set_model(&t->core, model);
  return ZOLTAN_OK;
}

int adaptive_report_load(adaptive_trigger *t, double load)
{
  if (!t || !isfinite(load) || load < 0.0) {
    zp_error("adaptive_report_load", "load = %g is not a finite number >= 0", t ? load : 0.0);
    return ZOLTAN_FATAL;
  }
  t->my_load = load;
  t->load_reported = 1;
  t->load_explicit = 1;
  return ZOLTAN_OK;
}

int adaptive_report_objects(adaptive_trigger *t, int num_obj, int num_gid_entries,
                            const ZOLTAN_ID_TYPE *gids, const double *loads)
{
  static const char *yo = "adaptive_report_objects";
  obj_snapshot *s;
  double sum = 0.0;
  int i;
  if (!t || num_obj < 0 || (num_obj > 0 && !loads) || (gids && num_gid_entries < 1)) {
    zp_error(yo, "bad argument (num_obj = %d, num_gid_entries = %d)", num_obj, num_gid_entries);
    return ZOLTAN_FATAL;
  }
  for (i = 0; i < num_obj; i++) {
    if (!isfinite(loads[i]) || loads[i] < 0.0) {
      zp_error(yo, "load of object %d = %g is not a finite number >= 0", i, loads[i]);
      return ZOLTAN_FATAL;
    }
    sum += loads[i];
  }
  s = current_snapshot(t);
  if (s != NULL) {
    free_loads(s);
    s->num_obj = num_obj;
    s->num_gid_entries = gids ? num_gid_entries : 0;
    s->loads = malloc((size_t)(num_obj > 0 ? num_obj : 1) * sizeof *s->loads);
    if (gids)
      s->gids =
          malloc((size_t)(num_obj > 0 ? num_obj : 1) * (size_t)num_gid_entries * sizeof *s->gids);
    if (!s->loads || (gids && !s->gids)) {
      free_loads(s); /* no loads for this step */
      return ZOLTAN_MEMERR;
    }
    memcpy(s->loads, loads, (size_t)num_obj * sizeof *loads);
    if (gids) memcpy(s->gids, gids, (size_t)num_obj * (size_t)num_gid_entries * sizeof *gids);
    s->has_loads = 1;
  }
  if (!t->load_explicit) t->my_load = sum;
  t->load_reported = 1;
  return ZOLTAN_OK;
}

/* The object snapshot of the step `back` steps before the newest one, or
 * NULL when the ring holds fewer steps. */
static const obj_snapshot *snapshot_back(const adaptive_trigger *t, size_t back)
{
  if (back >= (size_t)t->obj_count) return NULL;
  return &t->objs[(t->obj_start + t->obj_count - 1 - (int)back + t->obj_cap) % t->obj_cap];
}

int adaptive_object_history(const adaptive_trigger *t, size_t back, long *step, int *num_obj,
                            int *num_gid_entries, const ZOLTAN_ID_TYPE **gids, const double **loads)
{
  const obj_snapshot *s;
  if (!t || !step || !num_obj || !num_gid_entries || !gids || !loads) return ZOLTAN_FATAL;
  *step = -1;
  *num_obj = *num_gid_entries = 0;
  *gids = NULL;
  *loads = NULL;
  s = snapshot_back(t, back);
  if (s == NULL || !s->has_loads) return ZOLTAN_WARN;
  *step = s->step;
  *num_obj = s->num_obj;
  *num_gid_entries = s->num_gid_entries;
  *gids = s->gids;
  *loads = s->loads;
  return ZOLTAN_OK;
}

int adaptive_report_comm(adaptive_trigger *t, int num_pairs, int num_gid_entries,
                         const ZOLTAN_ID_TYPE *from, const ZOLTAN_ID_TYPE *to,
                         const double *volumes)
{
  static const char *yo = "adaptive_report_comm";
  obj_snapshot *s;
  size_t n, g, i;
  if (!t || num_pairs < 0 || num_gid_entries < 1 || (num_pairs > 0 && (!from || !to || !volumes))) {
    zp_error(yo, "bad argument (num_pairs = %d, num_gid_entries = %d)", num_pairs, num_gid_entries);
    return ZOLTAN_FATAL;
  }
  for (i = 0; i < (size_t)num_pairs; i++)
    if (!isfinite(volumes[i]) || volumes[i] < 0.0) {
      zp_error(yo, "volume of pair %zu = %g is not a finite number >= 0", i, volumes[i]);
      return ZOLTAN_FATAL;
    }
  s = current_snapshot(t);
  if (s == NULL) return ZOLTAN_OK;
  free_comm(s);
  n = (size_t)num_pairs;
  g = (size_t)num_gid_entries;
  s->pairs = malloc((2 * n * g + 1) * sizeof *s->pairs);
  s->volumes = malloc((n + 1) * sizeof *s->volumes);
  if (!s->pairs || !s->volumes) {
    free_comm(s);
    return ZOLTAN_MEMERR;
  }
  /* Stored as (from, to) pairs side by side. */
  for (i = 0; i < n; i++) {
    memcpy(s->pairs + 2 * i * g, from + i * g, g * sizeof *from);
    memcpy(s->pairs + (2 * i + 1) * g, to + i * g, g * sizeof *to);
  }
  memcpy(s->volumes, volumes, n * sizeof *volumes);
  s->num_pairs = num_pairs;
  s->pair_gid_entries = num_gid_entries;
  s->has_comm = 1;
  return ZOLTAN_OK;
}

int adaptive_comm_history(const adaptive_trigger *t, size_t back, long *step, int *num_pairs,
                          int *num_gid_entries, const ZOLTAN_ID_TYPE **pairs,
                          const double **volumes)
{
  const obj_snapshot *s;
  if (!t || !step || !num_pairs || !num_gid_entries || !pairs || !volumes) return ZOLTAN_FATAL;
  *step = -1;
  *num_pairs = *num_gid_entries = 0;
  *pairs = NULL;
  *volumes = NULL;
  s = snapshot_back(t, back);
  if (s == NULL || !s->has_comm) return ZOLTAN_WARN;
  *step = s->step;
  *num_pairs = s->num_pairs;
  *num_gid_entries = s->pair_gid_entries;
  *pairs = s->pairs;
  *volumes = s->volumes;
  return ZOLTAN_OK;
}

/* The first number of the load-average file (avenrun over one minute). */
static int read_avenrun(const char *path, double *avenrun)
{
  FILE *f = fopen(path, "r");
  int ok;
  if (!f) return -1;
  ok = fscanf(f, "%lf", avenrun) == 1 && isfinite(*avenrun) && *avenrun >= 0.0;
  fclose(f);
  return ok ? 0 : -1;
}

/* A 64-bit FNV-1a hash step over the bytes of one value. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
  const unsigned char *c = p;
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= c[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* What every rank must agree on: the decision settings, the ULBA model and
 * the number of successful calls.  Hashed field by field (never a struct's
 * padding). */
static int64_t fingerprint(const adaptive_trigger *t)
{
  const adaptive_config *c = &t->cfg;
  const adaptive_state *s = &t->core;
  uint64_t h = 14695981039346656037ull;
  long ints[11];
  double dbls[4];
  ints[0] = t->step;
  ints[1] = (long)c->policy;
  ints[2] = c->period;
  ints[3] = (long)c->index_source * 2 + (long)c->util_source;
  ints[4] = c->settle_steps;
  ints[5] = c->interval;
  ints[6] = c->ulba_early;
  ints[7] = s->have_model;
  ints[8] = c->ulba_guard;
  ints[9] = t->policy_auto;
  ints[10] = (long)c->degradation;
  dbls[0] = c->initial_cost;
  dbls[1] = c->cost_weight;
  dbls[2] = c->eff_min;
  dbls[3] = c->threshold;
  h = fnv(h, ints, sizeof ints);
  h = fnv(h, dbls, sizeof dbls);
  if (s->have_model) {
    h = fnv(h, &s->model.P, sizeof s->model.P);
    h = fnv(h, &s->model.N, sizeof s->model.N);
    h = fnv(h, &s->model.alpha, sizeof(double));
    h = fnv(h, &s->model.a, sizeof(double));
    h = fnv(h, &s->model.m, sizeof(double));
    h = fnv(h, &s->model.W, sizeof(double));
    h = fnv(h, &s->model.omega, sizeof(double));
  }
  return (int64_t)(h >> 2); /* non-negative, so that its negation fits */
}

static void write_trace(adaptive_trigger *t, const adaptive_step *st, const adaptive_quantities *q)
{
  if (!t->trace) return;
  fprintf(t->trace,
          "%ld,%ld,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,"
          "%d,%d,%s\n",
          t->step, q->since, st->t_max, st->t_avg, st->t_min, q->median, q->reference,
          q->degradation, q->cost, q->overhead, q->m_hat, q->tau, q->imbalance, q->sigma_minus,
          q->sigma_plus, q->spread, q->eff, q->measured, q->decision,
          adaptive_policy_name(t->cfg.policy));
  fflush(t->trace);
}

/* What this rank brings to a step, before the reduction. */
typedef struct local_step {
  int64_t flags; /* F_* bits of this rank */
  double time;   /* the largest step time of this rank's PEs, 0 when unusable */
  double tmin;   /* the smallest */
  double tsum;   /* their sum */
  int npe;       /* PEs this rank plays */
  double index;  /* THRESHOLD's load index (LOADAVG), else 0 */
  double util;   /* EFFICIENCY's utilization (LOAD), else 0 */
  double cost;   /* cost of the balances reported since the last call */
} local_step;

/* Checks this rank's inputs of the step (printing what is wrong) and sets
 * the flags that every rank will see after the reduction. */
/* The step times of this rank's PEs into ls (time = largest, tmin, tsum,
 * npe), with the flags of a bad value. */
static void measure_times(const adaptive_trigger *t, int num_pes, const double *pe_times,
                          local_step *ls)
{
  static const char *yo = "adaptive_should_balance";
  int i;
  if (num_pes < 1 || pe_times == NULL) {
    ls->flags |= F_BAD_PES;
    zp_error(yo, "rank %d gave %d PE times%s (at least one is needed)", t->rank, num_pes,
             pe_times == NULL ? " and no array" : "");
    return;
  }
  ls->npe = num_pes;
  ls->tmin = FIX_LIMIT;
  for (i = 0; i < num_pes; i++) {
    double x = pe_times[i];
    if (!isfinite(x) || x < 0.0) {
      ls->flags |= F_BAD_TIME;
      zp_error(yo, "step time = %g of PE %d on rank %d is not a finite number >= 0", x, i, t->rank);
      x = 0.0;
    } else if (x >= FIX_LIMIT) {
      ls->flags |= F_TOO_LARGE;
      zp_error(yo, "step time = %g of PE %d on rank %d is too large", x, i, t->rank);
      x = 0.0;
    }
    if (x > ls->time) ls->time = x;
    if (x < ls->tmin) ls->tmin = x;
    ls->tsum += x;
  }
  if (ls->tsum >= FIX_LIMIT) {
    ls->flags |= F_TOO_LARGE;
    zp_error(yo, "the step times of rank %d's %d PEs sum to %g, too large", t->rank, num_pes,
             ls->tsum);
    ls->tsum = 0.0;
  }
}

static void measure_local(const adaptive_trigger *t, int num_pes, const double *pe_times,
                          local_step *ls)
{
  static const char *yo = "adaptive_should_balance";
  double avenrun = 0.0, speed = t->speed;
  /* The layer's capacity model, when the struct has one, is the one source
   * of every rank's speed: ADAPTIVE_SPEED then steps aside. */
  if (t->zz != NULL) zp_capacity_of(t->zz, &speed);
  memset(ls, 0, sizeof *ls);
  measure_times(t, num_pes, pe_times, ls);
  if (t->cfg.index_source == ADAPTIVE_INDEX_LOADAVG) {
    if (read_avenrun(t->loadavg_file, &avenrun) != 0) {
      ls->flags |= F_BAD_INDEX;
      zp_error(yo, "cannot read the load average from %s on rank %d", t->loadavg_file, t->rank);
    } else {
      ls->index = (1.0 + avenrun) / speed;
    }
  }
  if (t->cfg.util_source == ADAPTIVE_UTIL_LOAD) {
    if (!t->load_reported) {
      ls->flags |= F_NO_LOAD;
      zp_error(yo,
               "ADAPTIVE_UTILIZATION = LOAD but rank %d reported no load for the step "
               "(adaptive_report_load)",
               t->rank);
    } else {
      ls->util = t->my_load / speed;
      if (!isfinite(ls->util) || ls->util >= FIX_LIMIT) {
        ls->flags |= F_TOO_LARGE;
        zp_error(yo, "utilization = %g on rank %d is too large", ls->util, t->rank);
        ls->util = 0.0;
      }
    }
  }
  if (t->event) {
    ls->flags |= F_EVENT;
    ls->cost = t->cost_reported ? t->reported_cost : t->observed_cost;
  } else {
    ls->flags |= F_NOEVENT;
  }
}

/* Packs this rank's contribution into the reduction vector. */
static void pack_local(const adaptive_trigger *t, const local_step *ls, int64_t *v)
{
  memset(v, 0, R_COUNT * sizeof *v);
  v[R_FLAGS] = ls->flags;
  v[R_TMAX] = enc_max(ls->time);
  v[R_TMIN] = enc_min(ls->npe > 0 ? ls->tmin : 0.0);
  v[R_IMAX] = enc_max(ls->index);
  v[R_IMIN] = enc_min(ls->index);
  v[R_UMAX] = enc_max(ls->util);
  /* A rank that knows no cost sends -1, below the encoding of any cost, so
   * the maximum is -1 only when no rank knows the cost. */
  v[R_COST] = (t->event && !t->cost_reported && !t->observed) ? -1 : enc_max(ls->cost);
  v[R_FP] = fingerprint(t);
  v[R_FPNEG] = -v[R_FP];
  enc_sum(ls->tsum, &v[R_TSUM]);
  enc_sum(ls->util, &v[R_USUM]);
  v[R_NPE] = ls->npe;
}

/* Forgets the balance reported since the last call. */
static void clear_report(adaptive_trigger *t)
{
  t->event = t->cost_reported = t->observed = 0;
  t->observed_cost = t->reported_cost = 0.0;
}

/* The errors every rank sees in the reduced vector; ZOLTAN_OK or, with a
 * message on rank 0, ZOLTAN_FATAL (the same on every rank). */
static int check_reduced(adaptive_trigger *t, const int64_t *v)
{
  static const char *yo = "adaptive_should_balance";
  int64_t flags = v[R_FLAGS];
  if (flags & (F_BAD_TIME | F_BAD_INDEX | F_NO_LOAD | F_TOO_LARGE | F_BAD_PES)) {
    if (t->rank == 0)
      zp_error(yo, "a rank gave a bad step time, PE count, load index or load; step ignored");
    return ZOLTAN_FATAL;
  }
  if (v[R_FP] != -v[R_FPNEG]) {
    if (t->rank == 0)
      zp_error(yo, "the ranks disagree on the ADAPTIVE_* parameters, the ULBA model or the "
                   "number of calls; step ignored");
    return ZOLTAN_FATAL;
  }
  if ((flags & F_EVENT) && (flags & F_NOEVENT)) {
    /* Forget the partial report everywhere so that the ranks agree again. */
    clear_report(t);
    if (t->rank == 0)
      zp_error(yo, "a balance was reported on some ranks only (adaptive_balance_done must be "
                   "called on every rank); report discarded, step ignored");
    return ZOLTAN_FATAL;
  }
  if (t->awaiting && !(flags & F_EVENT)) {
    t->awaiting = 0;
    if (t->rank == 0)
      zp_error(yo, "the previous call returned 1 but no balance was reported "
                   "(adaptive_balance_done or an attached Zoltan call); step ignored");
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* A balance reported on every rank: C gets its cost (the largest over the
 * ranks, or unknown) and the history since the previous balance ends. */
static void commit_balance(adaptive_trigger *t, const int64_t *v)
{
  double c = v[R_COST] < 0 ? -1.0 : dec_max(v[R_COST]);
  adaptive_state_balanced(&t->core, c);
  adaptive_ring_clear(&t->hist);
  drop_snapshots_before(t, t->step);
  t->balances++;
  clear_report(t);
}

/* The step's figures over the ranks, from the reduced vector. */
static void decode_step(const adaptive_trigger *t, const int64_t *v, adaptive_step *st)
{
  st->t_max = dec_max(v[R_TMAX]);
  st->t_min = dec_min(v[R_TMIN]);
  /* The average over the PEs (one per rank unless adaptive_should_balance_pes
   * gave more); check_reduced has made sure every rank gave at least one. */
  st->t_avg = fmin(fmax(dec_sum(&v[R_TSUM]) / (double)v[R_NPE], st->t_min), st->t_max);
  st->idx_max = dec_max(v[R_IMAX]);
  st->idx_min = dec_min(v[R_IMIN]);
  st->u_max = dec_max(v[R_UMAX]);
  st->u_avg = fmin(dec_sum(&v[R_USUM]) / t->size, st->u_max);
}

/* Keeps the decided step: history ring, last quantities, trace, debug line,
 * and the per-step state that the next call starts from. */
static void record_step(adaptive_trigger *t, double my_step_time, const adaptive_step *st,
                        const adaptive_quantities *q, int decision)
{
  adaptive_record rec;
  rec.step = t->step;
  rec.my_time = my_step_time;
  rec.my_load = t->load_reported ? t->my_load : NAN;
  rec.t_max = st->t_max;
  rec.t_avg = st->t_avg;
  rec.t_min = st->t_min;
  adaptive_ring_push(&t->hist, &rec);
  t->last = *q;
  t->have_last = 1;
  write_trace(t, st, q);
  if (t->rank == 0 && (t->debug_level >= 2 || (t->debug_level >= 1 && decision == 1)))
    printf("ADAPTIVE step %ld (%ld since balance): %s, policy %s, degradation %g, C %g\n", t->step,
           q->since, decision ? "balance" : "wait", adaptive_policy_name(t->cfg.policy),
           q->degradation, q->cost);
  t->awaiting = decision;
  t->load_reported = t->load_explicit = 0;
  t->my_load = 0.0;
  t->step++;
}

int adaptive_should_balance(adaptive_trigger *t, double my_step_time)
{
  return adaptive_should_balance_pes(t, 1, &my_step_time);
}

int adaptive_should_balance_pes(adaptive_trigger *t, int num_pes, const double *pe_times)
{
  static const char *yo = "adaptive_should_balance";
  int64_t v[R_COUNT];
  local_step ls;
  adaptive_step st;
  adaptive_quantities q;
  int decision;

  if (!t) {
    zp_error(yo, "trigger is NULL");
    return ZOLTAN_FATAL;
  }
  measure_local(t, num_pes, pe_times, &ls);
  pack_local(t, &ls, v);
  if (MPI_Allreduce(MPI_IN_PLACE, v, 1, t->vec_type, t->vec_op, t->comm) != MPI_SUCCESS) {
    zp_error(yo, "MPI_Allreduce failed");
    return ZOLTAN_FATAL;
  }
  if (check_reduced(t, v) != ZOLTAN_OK) return ZOLTAN_FATAL;
  if (v[R_FLAGS] & F_EVENT) commit_balance(t, v);
  t->awaiting = 0;
  decode_step(t, v, &st);
  decision = adaptive_state_step(&t->core, &st, &q);
  if (decision < 0) {
    /* The values were checked before the reduction; this is a bug. */
    zp_error(yo, "internal error: the decision logic rejected the reduced step");
    return ZOLTAN_FATAL;
  }
  record_step(t, ls.time, &st, &q, decision);
  return decision;
}

long adaptive_history(const adaptive_trigger *t, adaptive_record *out, size_t max)
{
  size_t n, i, skip;
  if (!t || (!out && max > 0)) return ZOLTAN_FATAL;
  if (t->event) return 0; /* a balance is pending: nothing since it yet */
  n = t->hist.count;
  skip = n > max ? n - max : 0;
  for (i = skip; i < n; i++) out[i - skip] = *adaptive_ring_get(&t->hist, i);
  return (long)n;
}

int adaptive_increase_rate(const adaptive_trigger *t, int what, double *rate)
{
  double *x = NULL, *y = NULL;
  size_t i, k = 0, n;
  int rc = ZOLTAN_OK;
  if (!t || !rate || (what != 0 && what != 1)) return ZOLTAN_FATAL;
  *rate = 0.0;
  n = t->event ? 0 : t->hist.count;
  if (n < 2) return ZOLTAN_WARN;
  x = malloc(n * sizeof *x);
  y = malloc(n * sizeof *y);
  if (!x || !y) {
    rc = ZOLTAN_MEMERR;
    goto end;
  }
  for (i = 0; i < n; i++) {
    const adaptive_record *r = adaptive_ring_get(&t->hist, i);
    double val = what == 0 ? r->my_time : r->my_load;
    if (isnan(val)) continue;
    x[k] = (double)r->step;
    y[k] = val;
    k++;
  }
  if (k < 2) {
    rc = ZOLTAN_WARN;
    goto end;
  }
  *rate = adaptive_ls_slope(k, x, y);
end:
  free(x);
  free(y);
  return rc;
}

long adaptive_steps_since_balance(const adaptive_trigger *t)
{
  if (!t) return -1;
  return t->event ? 0 : t->core.since;
}

double adaptive_balance_cost(const adaptive_trigger *t)
{
  if (!t || t->core.cost_count == 0) return -1.0;
  return t->core.cost;
}

long adaptive_num_balances(const adaptive_trigger *t) { return t ? t->balances : -1; }

const char *adaptive_policy_in_use(const adaptive_trigger *t)
{
  return t ? adaptive_policy_name(t->cfg.policy) : NULL;
}

int adaptive_last_quantities(const adaptive_trigger *t, double *degradation, double *m_hat,
                             double *tau, double *sigma_minus, double *sigma_plus, double *spread,
                             double *eff)
{
  if (!t) return ZOLTAN_FATAL;
  if (!t->have_last) return ZOLTAN_WARN;
  if (degradation) *degradation = t->last.degradation;
  if (m_hat) *m_hat = t->last.m_hat;
  if (tau) *tau = t->last.tau;
  if (sigma_minus) *sigma_minus = t->last.sigma_minus;
  if (sigma_plus) *sigma_plus = t->last.sigma_plus;
  if (spread) *spread = t->last.spread;
  if (eff) *eff = t->last.eff;
  return ZOLTAN_OK;
}
