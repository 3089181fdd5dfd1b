/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_INTERNAL_H
#define ZP_INTERNAL_H

/*
 * Internal declarations of the plugin layer.  Nothing here is exported from
 * the shared library (the library is built with -fvisibility=hidden).
 */

#include <mpi.h>
#include <stddef.h>

#include <zoltan.h>

#include "zp_history.h"
#include "zp_hooks.h"
#include "zp_method.h"

#define ZP_NAME_MAX  64  /* longest parameter name we keep */
#define ZP_VALUE_MAX 256 /* longest parameter value we keep */

/* --- strings and values (zp_util.c) ------------------------------------- */

/* Copy src into dst (size cap) trimmed of white space and upper-cased, as
 * Zoltan cleans parameter names and values.  Returns 0, or -1 if it does not
 * fit. */
int zp_clean_string(const char *src, char *dst, size_t cap);
/* As zp_clean_string without upper-casing, for values that are file paths
 * (parameters with ZP_PARAM_KEEP_CASE). */
int zp_trim_string(const char *src, char *dst, size_t cap);

/* Parse an integer the Zoltan way: a value starting with T is 1, with F is
 * 0; otherwise the whole (cleaned) string must be a decimal integer.
 * Returns 0 on success, -1 otherwise. */
int zp_parse_int(const char *clean, int *out);

/* Parse a finite double; the whole cleaned string must be a number.
 * Returns 0 on success, -1 otherwise. */
int zp_parse_double(const char *clean, double *out);

/* Room for need elements of elem bytes in array, whose capacity is *cap
 * (first when empty, then doubled).  Returns the array, moved or not, or
 * NULL when out of memory (the old array is still valid then). */
void *zp_grow(void *array, size_t *cap, size_t need, size_t elem, size_t first);

/* Rank of this process in MPI_COMM_WORLD, or 0 before MPI_Init; used to
 * prefix messages as Zoltan does. */
int zp_world_rank(void);

/* --- the registry (zp_registry.c) --------------------------------------- */

/* One built-in method folder, from its zp_add_builtin_method() call. */
typedef struct zp_builtin {
  const char *name;           /* NAME of the CMake call, for messages */
  int (*register_fn)(void);   /* REGISTER: registers the methods below */
  const char *const *methods; /* METHODS: LB_METHOD values, NULL-terminated */
} zp_builtin;

/* The built-in methods, ending with a row whose name is NULL
 * (zp_builtin.c); the registry registers them on first use. */
const zp_builtin *zp_builtin_table(void);

/* Register the methods shipped with the library (zp_registry.c); idempotent. */
void zp_builtin_init(void);

/* Zoltan's own names (zp_native_names.c): whether a cleaned name is one of
 * Zoltan's parameters, the first of them that starts with prefix (or
 * NULL), and whether their table is in strcmp order (the binary search
 * needs it; checked once at the first registration). */
int zp_is_native_param(const char *clean_name);
const char *zp_native_param_with_prefix(const char *prefix);
int zp_native_params_sorted(void);

/* Where a plugin parameter is defined. */
typedef struct zp_param_ref {
  const zp_method *method; /* the method whose table holds the row */
  const zp_param_def *def; /* the row */
} zp_param_ref;

/* Look up a plugin parameter by cleaned (upper-case) name; returns 1 and
 * fills ref when found, else 0. */
int zp_find_param(const char *clean_name, zp_param_ref *ref);

/* Check a cleaned value against a row; on failure writes a message that
 * names the value and the allowed range into msg and returns ZOLTAN_FATAL. */
int zp_check_value(const zp_param_def *def, const char *clean_value, char *msg, size_t msg_cap);

/* --- plugin parameter values (zp_params.c) ------------------------------ */

zp_params *zp_params_create(void);
void zp_params_destroy(zp_params *p);
zp_params *zp_params_clone(const zp_params *p); /* NULL on memory error */
/* Set (value != NULL) or reset to default (value == NULL) a checked value. */
int zp_params_set(zp_params *p, const char *clean_name, const char *clean_value);
/* Serialise as "name=value\n" lines into a malloc'd string. */
char *zp_params_dump(const zp_params *p);
/* Print "ZOLTAN Parameter NAME = value" for every row of a method. */
void zp_params_print(const zp_params *p, const zp_method *m);

/* --- per-Zoltan_Struct records (zp_record.c) ---------------------------- */

/* A native parameter as it was forwarded to Zoltan and accepted. */
typedef struct zp_native_param {
  char name[ZP_NAME_MAX];   /* cleaned name */
  int index;                /* vector index, -1 for scalars */
  char value[ZP_VALUE_MAX]; /* cleaned value */
} zp_native_param;

/* One call of Zoltan_LB_Set_Part_Sizes, entry by entry. */
typedef struct zp_part_size_entry {
  int global_num; /* 1: part_id is a global part number; 0: local number */
  int part_id;    /* part number (global or local) */
  int wgt_idx;    /* weight dimension the size applies to */
  double size;    /* relative size given by the application */
} zp_part_size_entry;

/* What the capacity model remembers between balances of one struct
 * (zp_capacity.c); a copy of the struct starts without any. */
typedef struct zp_capacity_cache {
  double bench;    /* BENCHMARK: this rank's kernel rate (valid: have_bench) */
  double measured; /* MEASURED: smoothed work per second (have_measured) */
  double last;     /* this rank's capacity at the last balance (have_last) */
  int have_bench, have_measured, have_last;
} zp_capacity_cache;

/* Buffers of the centralised path that a struct keeps from one balance to
 * the next (zp_record_scratch): a struct balanced again reuses pages that
 * are already mapped instead of paying a page fault for every 4 KiB of a
 * fresh allocation, which was the largest single cost of a call at 10^6
 * objects.  One slot per array of zp_serial.c; a slot is used by one
 * array at a time (a slot may serve a later array once the earlier one is
 * dead, as said below), and no centralised run nests in another on a
 * struct. */
enum {
  ZP_SCR_GIDS,    /* gathered global IDs, arrival order */
  ZP_SCR_WGTS,    /* gathered weights */
  ZP_SCR_PARTS,   /* gathered current parts */
  ZP_SCR_COORDS,  /* gathered coordinates */
  ZP_SCR_SIZES,   /* gathered object sizes */
  ZP_SCR_NEDGES,  /* gathered edge counts */
  ZP_SCR_NBR,     /* gathered neighbour IDs (or hypergraph pairs) */
  ZP_SCR_EW,      /* gathered edge weights */
  ZP_SCR_PROCS,   /* owning rank of each object, GID order */
  ZP_SCR_ORDER,   /* arrival index by GID order */
  ZP_SCR_TMP,     /* sort scratch; in zp_serial.c out of GID order, then (after
                     a sort) the ranks in arrival order, then the answer in
                     arrival order */
  ZP_SCR_EDGE_AT, /* first edge of each object, arrival order */
  ZP_SCR_S_GIDS,  /* the sorted copies, when arrival order is not GID order */
  ZP_SCR_S_WGTS,
  ZP_SCR_S_PARTS,
  ZP_SCR_S_COORDS,
  ZP_SCR_S_SIZES,
  ZP_SCR_ADJ_START, /* the graph in GID order */
  ZP_SCR_ADJ,
  ZP_SCR_S_EW,
  ZP_SCR_NEW,   /* the method's answer, GID order (zp_serial.c: objects that
                   came in GID order; else ZP_SCR_PARTS, read by then) */
  ZP_SCR_REPLY, /* the answer in arrival order (the hierarchy's runs) */
  ZP_SCR_REMAP, /* REMAP's shared-weight matrix */
  /* This rank's arrays of the sorted path (zp_sorted.c), whose root uses
   * the slots above for the streams and then the answer (ZP_SCR_WGTS, and
   * ZP_SCR_GIDS for the IDs, ZP_SCR_PARTS for the current parts) and the
   * merge (ZP_SCR_S_WGTS, ZP_SCR_PROCS, ZP_SCR_S_PARTS). */
  ZP_SCR_W_ORDER,  /* the local objects heaviest first */
  ZP_SCR_W_SORTED, /* the sort's second buffer, the sorted weights, then
                      the new parts in that order */
  ZP_SCR_W_IDS,    /* the global IDs in that order (the IDs mode) */
  ZP_SCR_W_PARTS,  /* the current parts in that order (ZP_SORTED_PARTS) */
  ZP_SCR_M0,       /* zp_problem_scratch's slots, ZP_PROBLEM_SCRATCH_SLOTS of them */
  ZP_SCR_M1,
  ZP_SCR_M2,
  ZP_SCR_M3,
  ZP_SCR_M4,
  ZP_SCR_M5,
  ZP_SCR_M6,
  ZP_SCR_M7,
  /* A group root of HIERARCHY (zp_hier_run.c, zp_hier_solve.c) keeps its
   * group's arrays in the slots above that have the same meaning (gathered
   * IDs, weights, parts and sizes, the sorted copies, the order, the
   * answer): a struct runs either flat or by groups in one call, never
   * both.  These are its own. */
  ZP_SCR_H_TAKE,  /* 1 for a shed object, arrival order */
  ZP_SCR_H_W0,    /* the first weight of each object, arrival order */
  ZP_SCR_H_FROM,  /* each object of the group's problem: its source */
  ZP_SCR_H_AGIDS, /* global IDs in arrival order, when they must be sorted */
  /* This rank's arrays of a call (zp_context, zp_gather.c), kept as well:
   * a method that hands the call to a native base (ULBA over RCB) would
   * otherwise fault these pages in again and leave the heap cut up around
   * the blocks Zoltan allocates in the same call.  Only the outermost
   * context of a struct uses them (zp_record.local_pool_busy). */
  ZP_SCR_L_GIDS,
  ZP_SCR_L_LIDS,
  ZP_SCR_L_W,
  ZP_SCR_L_PARTS,
  ZP_SCR_L_IN_PARTS, /* the parts as reported, when some lie outside */
  ZP_SCR_L_COORDS,
  ZP_SCR_L_COL0, /* zp_loaddb_override's saved first weights */
  /* What the guard read of the callbacks (zp_guard.c), kept for the same
   * reason; only the outermost guard of a struct uses them
   * (zp_record.guard_pool_busy).  One per array of struct zp_guard. */
  ZP_SCR_G_GIDS,
  ZP_SCR_G_LIDS,
  ZP_SCR_G_W,
  ZP_SCR_G_PARTS,
  ZP_SCR_G_COORDS,
  ZP_SCR_G_NEDGES,
  ZP_SCR_G_NBR,
  ZP_SCR_G_NBR_PROCS,
  ZP_SCR_G_EW,
  ZP_SCR_G_SIZES,
  ZP_SCR_G_HG_LISTS,
  ZP_SCR_G_HG_STARTS,
  ZP_SCR_G_HG_PINS,
  ZP_SCR_G_HG_EGIDS,
  ZP_SCR_G_HG_ELIDS,
  ZP_SCR_G_HG_EW,
  ZP_SCR_COUNT
};

/* The kept buffers of one struct: slot i holds cap[i] bytes at buf[i]. */
typedef struct zp_scratch {
  void *buf[ZP_SCR_COUNT];     /* from zp_bigmem_alloc, or NULL */
  size_t cap[ZP_SCR_COUNT];    /* bytes of each */
  size_t mapped[ZP_SCR_COUNT]; /* zp_bigmem_alloc's length of each (0: malloc'd) */
} zp_scratch;

/* What the layer keeps about one Zoltan_Struct. */
typedef struct zp_record {
  struct Zoltan_Struct *zz;     /* the struct (key of the table) */
  MPI_Comm comm;                /* duplicate of the struct's communicator */
  int rank, size;               /* this rank and the size of comm */
  const zp_method *method;      /* our method selected by LB_METHOD, or NULL */
  void *state;                  /* per-struct state of state_owner */
  const zp_method *state_owner; /* method whose create() made state */
  zp_params *params;            /* values of our parameters */
  zp_native_param *native;      /* accepted native parameters, in set order */
  size_t n_native, cap_native;
  zp_part_size_entry *psizes; /* recorded part sizes, in set order */
  size_t n_psizes, cap_psizes;
  zp_observer observer;                      /* attached observer (observer.after_balance
                                == NULL when none) */
  zp_history_provider history;               /* attached history provider (every function
                                  NULL when none), see zp_history.h */
  zp_geometry geometry;                      /* cuts that answer the point and box queries
                                for geometry_method (cuts == NULL: none) */
  const zp_method *geometry_method;          /* method that set geometry; the cuts
                                       answer only while it is selected */
  int busy;                                  /* >0 while our partition path runs on it */
  int migrating;                             /* 1 while the guard runs Zoltan_Migrate on it */
  zp_capacity_cache cap;                     /* the capacity model's measurements */
  unsigned serial;                           /* 1, 2, ... in creation order, per process */
  char reported[ZP_VALUE_MAX];               /* method last named by ZOLTAN_PLUGINS_VERBOSE */
  zp_scratch scratch;                        /* buffers kept across balances (not copied) */
  int local_pool_busy;                       /* 1 while a context holds the ZP_SCR_L_* slots */
  int guard_pool_busy;                       /* 1 while a guard holds the ZP_SCR_G_* slots */
  struct zp_hier_comms *hier;                /* HIERARCHY's tree, kept between balances
                                       (zp_hier.c), or NULL */
  void (*hier_free)(struct zp_hier_comms *); /* frees hier: set by zp_hier.c with
                                       the tree, so that the record frees it
                                       without depending on that file */
} zp_record;

/* Slot of r's kept buffers holding at least bytes (contents undefined), or
 * NULL when memory is short.  A slot only grows; Zoltan_Destroy frees it.
 * Buffers of a huge page or more are backed by huge pages unless
 * ZOLTAN_PLUGINS_HUGE_PAGES=0 (zp_bigmem.h).  Local. */
void *zp_record_scratch(zp_record *r, int slot, size_t bytes);

/* Free HIERARCHY's tree kept in r (zp_record.hier, through hier_free).
 * Local. */
static inline void zp_hier_release(zp_record *r)
{
  if (r->hier != NULL && r->hier_free != NULL) r->hier_free(r->hier);
  r->hier = NULL;
}

zp_record *zp_record_find(const struct Zoltan_Struct *zz);
zp_record *zp_record_add(struct Zoltan_Struct *zz, MPI_Comm comm);
void zp_record_remove(struct Zoltan_Struct *zz);
/* Make dst a copy of src's plugin data (method, state, params, records). */
int zp_record_copy(zp_record *dst, const zp_record *src);
/* Record an accepted native parameter (handles DEFAULT). */
int zp_record_native(zp_record *r, const char *clean_name, int index, const char *clean_value);
/* Last recorded value of a native parameter for an index (-1 entries apply
 * to every index), or NULL when unset. */
const char *zp_record_native_get(const zp_record *r, const char *clean_name, int index);
int zp_record_native_int(const zp_record *r, const char *name, int dflt);
double zp_record_native_double(const zp_record *r, const char *name, int index, double dflt);
int zp_record_part_sizes(zp_record *r, int global_num, int len, const int *part_ids,
                         const int *wgt_idx, const float *sizes);
/* Serialisation of the plugin data appended to Zoltan's own buffer. */
size_t zp_record_payload(const zp_record *r, char **out);
int zp_record_load_payload(zp_record *r, const char *buf, size_t len);

/* --- the partition path (zp_partition.c; see zp_partition_internal.h) --- */

/* Arguments of Zoltan_LB_Partition, shared with Zoltan_LB_Balance (whose
 * part arrays are the layer's own and freed after the call). */
typedef struct zp_lb_args {
  int *changes;               /* 1 when some object changes rank or part */
  int *num_gid_entries;       /* entries per global ID in the lists */
  int *num_lid_entries;       /* entries per local ID in the lists */
  int *num_import;            /* import entries, -1 when not returned */
  ZOLTAN_ID_PTR *import_gids; /* global IDs of the imported objects */
  ZOLTAN_ID_PTR *import_lids; /* their local IDs on the sending rank */
  int **import_procs;         /* the sending rank of each */
  int **import_to_part;       /* the part each goes to */
  int *num_export;            /* export entries, -1 when not returned */
  ZOLTAN_ID_PTR *export_gids; /* global IDs of the exported objects */
  ZOLTAN_ID_PTR *export_lids; /* their local IDs */
  int **export_procs;         /* the rank each goes to */
  int **export_to_part;       /* the part each goes to */
} zp_lb_args;

/* Run our method of r; is_balance is 1 for Zoltan_LB_Balance.  Collective. */
int zp_partition(zp_record *r, int is_balance, zp_lb_args *a);
/* Run our method of r as zp_partition does, except that LB_METHOD=AUTO
 * keeping its choice between re-evaluations runs the kept method straight
 * away (zp_delegate.c), so that the call costs what that method's own costs.
 * Collective. */
int zp_dispatch(zp_record *r, int is_balance, zp_lb_args *a);

/* --- the capacity model (zp_capacity.c) -------------------------------- */

/* The CAPACITY words, NULL-terminated (zp_capacity_params.c). */
extern const char *const zp_capacity_modes[];
/* The environment variable that CAPACITY_VALUE=ENV reads. */
#define ZP_CAPACITY_ENV "ZOLTAN_PLUGINS_CAPACITY_VALUE"
/* 1 when CAPACITY is not UNIFORM or CAPACITY_LOADAVG is on for r.  Local. */
int zp_capacity_active(const zp_record *r);
/* The settings that decide which collectives the capacity model runs
 * (CAPACITY's mode, CAPACITY_LOADAVG, CAPACITY_MEMORY_DIM), which every rank
 * must give alike; zp_read_settings checks them in its reduction.  Local. */
void zp_capacity_key(const zp_record *r, int key[3]);

/* --- the load database (zp_loaddb.c, zp_dump.c) ------------------------ */

/* The OBJ_WEIGHT_SOURCE words, NULL-terminated, in the order of
 * loaddb_core.h's LOADDB_* modes (zp_capacity_params.c). */
extern const char *const zp_loaddb_sources[];
/* OBJ_WEIGHT_SOURCE of r as a LOADDB_* mode (0 = CALLBACK).  Local. */
int zp_loaddb_mode(const zp_record *r);
/* EDGE_WEIGHT_SOURCE of r as a LOADDB_* mode (zp_loaddb_edges.c).  Local. */
int zp_edge_mode(const zp_record *r);
/* 1 when LB_DUMP_FILE names a file for r.  Local. */
int zp_dump_active(const zp_record *r);

/* --- native methods under the layer's features (zp_native_layer.c) ---- */

/* The environment variable that ZOLTAN_PLUGINS_GUARD=ENV reads, and the
 * guard's setting when neither the parameter nor the variable is set: off,
 * because reading every callback first costs more than the 10% of a native
 * call that a default may cost (docs/benchmarks.md, the cost of the guard). */
#define ZP_GUARD_ENV     "ZOLTAN_PLUGINS_GUARD"
#define ZP_GUARD_DEFAULT 0
/* 1 when the guard of native methods is on for r (zp_guard.c).  Local. */
int zp_guard_on(const zp_record *r);
/* Zoltan_Migrate with the guard (zp_guard_migrate.c): the pre-migration
 * callbacks and the exported objects' sizes are called and agreed on
 * before any data moves; pack, unpack, mid- and post-migration failures
 * are carried to the end of the migration instead of leaving ranks
 * waiting, and then returned on every rank.  Arguments as Zoltan_Migrate's.
 * Collective. */
int zp_guard_migrate(zp_record *r, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il, int *ip, int *ipa,
                     int nexp, ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep, int *epa);
/* 1 when a native method must run through zp_layer_native: the guard, the
 * capacity model, measured weights or dumps are on for r.  Local. */
int zp_layer_active(const zp_record *r);
/* Zoltan_LB_Partition (is_balance 0) or Zoltan_LB_Balance (1) of the native
 * method named method, guarded against failing callbacks, with the
 * capacities composed into the part sizes, the measured loads as weights
 * and the balance dumped, as r's parameters ask.  Call it only when
 * zp_layer_active(r).  Collective. */
int zp_layer_native(zp_record *r, const char *method, int is_balance, zp_lb_args *a);

/* 1 when Zoltan's method can be handed this call of the struct: within
 * zp_native_bounds for its objects and part sizes (read for RCB and HSFC
 * only, and for RCB only with more parts than ranks); 0 otherwise, and
 * when capacities are on or reading failed (the call then runs as the
 * delegating method's, which reports).  Collective; the same on every
 * rank. */
int zp_native_within_bounds(zp_record *r, const char *method, int is_balance);

/* --- the real Zoltan entry points (zp_real.c) --------------------------- */

/* Each calls the Zoltan function the layer stands in front of, with the
 * same arguments; when it cannot be found (a message says so) they return
 * NULL, 0 or ZOLTAN_FATAL.  Zoltan_LB_Balance ignores the part arrays of a.
 * The box queries take (xmin, ymin, zmin) and (xmax, ymax, zmax). */
struct Zoltan_Struct *zp_real_create(MPI_Comm comm);
void zp_real_destroy(struct Zoltan_Struct **zz);
struct Zoltan_Struct *zp_real_copy(struct Zoltan_Struct const *from);
int zp_real_copy_to(struct Zoltan_Struct *to, struct Zoltan_Struct const *from);
int zp_real_set_param_vec(struct Zoltan_Struct *zz, const char *name, const char *val, int index);
int zp_real_set_part_sizes(struct Zoltan_Struct *zz, int global_num, int len, int *part_ids,
                           int *wgt_idx, float *sizes);
int zp_real_lb_partition(struct Zoltan_Struct *zz, zp_lb_args *a);
int zp_real_lb_balance(struct Zoltan_Struct *zz, zp_lb_args *a);
int zp_real_point_assign(struct Zoltan_Struct *zz, double *coords, int *proc);
int zp_real_point_pp_assign(struct Zoltan_Struct *zz, double *coords, int *proc, int *part);
int zp_real_box_assign(struct Zoltan_Struct *zz, const double lo[3], const double hi[3], int *procs,
                       int *numprocs);
int zp_real_box_pp_assign(struct Zoltan_Struct *zz, const double lo[3], const double hi[3],
                          int *procs, int *numprocs, int *parts, int *numparts);
int zp_real_rcb_box(struct Zoltan_Struct *zz, int part, int *ndim, double *xmin, double *ymin,
                    double *zmin, double *xmax, double *ymax, double *zmax);
size_t zp_real_serialize_size(struct Zoltan_Struct const *zz);
int zp_real_serialize(struct Zoltan_Struct const *zz, size_t bufsize, char *buf);
int zp_real_deserialize(struct Zoltan_Struct *zz, size_t bufsize, char *buf);
int zp_real_migrate(struct Zoltan_Struct *zz, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il, int *ip,
                    int *ipa, int nexp, ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep, int *epa);

#endif /* ZP_INTERNAL_H */
