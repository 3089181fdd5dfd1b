/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_PARTITION_INTERNAL_H
#define ZP_PARTITION_INTERNAL_H

/*
 * The partition path of the layer, shared by its files and by nothing else:
 *   zp_partition.c  Zoltan_LB_Partition / _Balance for our methods, step by step
 *   zp_context.c    the per-call context: settings, agreement, accessors
 *   zp_parts.c      parts to ranks and part sizes, as Zoltan computes them
 *   zp_gather.c     the application's objects, coordinates and edges
 *   zp_serial.c     centralised methods: gather on one rank, sort, scatter
 *   zp_sorted.c     methods of the weights in weight order: sort, merge, scatter
 *   zp_remap.c      REMAP: relabel a centralised method's parts
 *   zp_native.c     base methods run by a distributed method (zp_ctx_run_base)
 *   zp_capacity.c   the capacity model: rank capacities into part sizes
 *   zp_loaddb.c     the load database: measured object loads as weights
 *   zp_dump.c       LB_DUMP_FILE: what each balance saw, for zp_lbsim
 *   zp_lists.c      import/export lists, migration, debug output
 * Errors are collective: a rank that finds bad input prints why, and every
 * rank returns an error after the next agreement, so that no rank waits in
 * a collective the others skipped.
 */

#include <stddef.h>

#include "zp_context.h"
#include "zp_internal.h"

/* RETURN_LISTS values, as Zoltan numbers them. */
enum {
  ZP_RL_NONE = 0,
  ZP_RL_IMPORT = 1,
  ZP_RL_EXPORT = 2,
  ZP_RL_ALL = 3,
  ZP_RL_PARTS = 4,
  ZP_RL_CANDIDATES = 5
};

/* Zoltan's debug levels that the layer honours. */
#define ZP_DEBUG_PARAMS 1
#define ZP_DEBUG_ZTIME  2
#define ZP_DEBUG_LIST   8

/* Messages about bad objects are capped per rank so that a wholly bad input
 * does not flood the terminal. */
#define ZP_MAX_OBJ_MESSAGES 5

/* Room for a global ID printed as "1.2.3" in a message. */
#define ZP_GID_TEXT 96

/* Everything one Zoltan_LB_Partition / _Balance call knows about the
 * problem.  Distributed methods see it through the zp_ctx_* accessors. */
/* The lists a native base run returned, as Zoltan_LB_Partition gave them
 * (a count of -1: that list was not asked for), and the assignment of the
 * local objects they stand for. */
typedef struct zp_base_lists {
  int nimp, nexp;
  ZOLTAN_ID_PTR ig, il, eg, el;
  int *ip, *ipa, *ep, *epa;
  int *answer;          /* n parts */
  unsigned char *moved; /* n bits: the objects the export list names */
} zp_base_lists;

struct zp_context {
  zp_record *r;   /* the struct's record: communicator, method, parameters */
  const char *yo; /* "Zoltan_LB_Partition" or "Zoltan_LB_Balance", for messages */
  int is_balance; /* 1 for Zoltan_LB_Balance, which needs one part per rank */

  /* Settings, read from the recorded native parameters. */
  int ngid;         /* entries per global ID (largest over ranks, as Zoltan) */
  int nlid;         /* entries per local ID (largest over ranks) */
  int return_lists; /* RETURN_LISTS as a ZP_RL_* value (largest over ranks) */
  int obj_wgt_dim;  /* OBJ_WEIGHT_DIM as the application set it */
  int wdim;         /* weights per object that methods see: max(1, obj_wgt_dim) */
  int edge_wgt_dim; /* EDGE_WEIGHT_DIM */
  int auto_migrate; /* AUTO_MIGRATE */
  int debug_level;  /* DEBUG_LEVEL */
  int debug_proc;   /* DEBUG_PROCESSOR: the rank that prints summaries */
  int remap;        /* REMAP: relabel interchangeable parts to limit moves */
  double *tol;      /* wdim imbalance tolerances (IMBALANCE_TOL[d]) */
  /* What zp_read_settings' reduction also carried for the steps after it,
   * so that each of them needs no reduction of its own (settings_read 1). */
  int settings_read; /* 1 once the fields below are set */
  int ngp_set;       /* some rank set NUM_GLOBAL_PARTS (zp_build_part_dist) */
  int nlp_set;       /* some rank set NUM_LOCAL_PARTS */
  int ngp_max;       /* the largest NUM_GLOBAL_PARTS */
  int psizes_set;    /* some rank set part sizes (zp_build_part_sizes) */
  int cap_same;      /* CAPACITY, CAPACITY_LOADAVG and CAPACITY_MEMORY_DIM are
                        the same on every rank (zp_capacity_apply) */
  unsigned needs;    /* ZP_NEEDS_* / ZP_WANTS_* / ZP_NO_REMAP of the method
                           running now (a base method's while it runs) */

  /* A local outcome not yet agreed on, which zp_answer's reduction agrees
   * on (the fixed objects' step, zp_run_method), and what that step did. */
  int pending;        /* ZOLTAN_OK, or this rank's error */
  long fixed_applied; /* fixed objects put in their parts on this rank */

  /* Parts. */
  int nparts;         /* number of global parts */
  int *pdist;         /* nparts + 1 entries: first rank of each part;
                           NULL when part p is simply on rank p */
  int single_proc;    /* 1 when every part lives on one rank */
  double *part_sizes; /* nparts * wdim target fractions, columns sum to 1 */
  int sizes_set;      /* 1 when some rank set part sizes */
  double *mem_limit;  /* nparts memory capacities (INFINITY = none), or NULL
                         when CAPACITY_MEMORY_DIM is off */
  int mem_dim;        /* the weight that is memory, when mem_limit is set */

  /* The local objects. */
  int n;                /* number of local objects */
  ZOLTAN_ID_TYPE *gids; /* n * ngid global IDs */
  ZOLTAN_ID_TYPE *lids; /* n * nlid local IDs (NULL when nlid == 0) */
  double *w;            /* n * wdim weights (1 each when obj_wgt_dim == 0) */
  int *parts;           /* current part of each object, as methods see it
                           (-1 or a part of its rank when out of range) */
  int *in_parts;        /* current part as the application reported it
                           (parts itself unless some lay outside the known
                           parts); an object is listed when its new part
                           differs */

  /* Coordinates, asked of the callbacks once per call, when a method (the
   * selected one or a base method) first wants them. */
  int geom_asked;              /* 1 once the geometry callbacks were asked */
  int geom_missing;            /* 1 when some rank has no ZOLTAN_NUM_GEOM_FN */
  int geom_unregistered;       /* 1 when some rank lacks ZOLTAN_NUM_GEOM_FN or both
                                  ZOLTAN_GEOM_MULTI_FN and ZOLTAN_GEOM_FN */
  int geom_for_native;         /* while a native method's inputs are checked: no
                                  coordinates are read when geom_unregistered */
  int geom_checked;            /* 1 once the geometry's registration and dimension
                                  were agreed without reading the coordinates
                                  (zp_gather_geometry_deferred) */
  int geom_deferred;           /* 1 when a native run reads the coordinates itself,
                                  through zp_serve's wrapper that keeps a failure
                                  until the run has ended */
  int pooled;                  /* 1 when the per-object arrays are the record's ZP_SCR_L_* */
  struct zp_gidmap *local_map; /* zp_ctx_find_local's table, built on first use */
  int gdim;                    /* coordinates per object, 0 = none */
  double *coords;              /* n * gdim */

  /* Graph edges, asked of the callbacks once per call, like coordinates. */
  int graph_asked;     /* 1 once the graph callbacks were asked */
  int graph_missing;   /* 1 when some rank lacks an edge callback */
  int has_graph;       /* 1 when the edges below are complete */
  int *nedges;         /* edges of each object (NULL = no graph) */
  ZOLTAN_ID_TYPE *nbr; /* neighbour GIDs, sum(nedges) * ngid */
  int *nbr_procs;      /* the rank of each neighbour, as the callbacks gave it */
  double *ewgts;       /* edge weights, sum(nedges) * edge_wgt_dim */
  /* Hypergraph callbacks, only tried before Zoltan's PHG runs as a base. */
  int hgraph_checked;    /* 1 once the hypergraph callbacks were called */
  int hgraph_registered; /* 1 when some rank registered them */
  /* The hypergraph read as a graph (ZP_GRAPH_FROM_HYPERGRAPH), when the
   * graph callbacks are missing: this rank's (net, pin) global-ID pairs. */
  int hg_as_graph;          /* 1 when every rank has the hypergraph callbacks */
  ZOLTAN_ID_TYPE *hg_pairs; /* hg_npairs pairs, 2 * ngid IDs each */
  int hg_npairs;            /* pairs this rank's callbacks listed */

  /* Object sizes (ZP_WANTS_SIZES), asked of the callbacks once per call. */
  int sizes_asked;   /* 1 once the size callbacks were asked */
  int sizes_missing; /* 1 when some rank has no size callback */
  double *sizes;     /* n sizes in bytes, or NULL */

  /* The load database's callbacks in front of the application's for the
   * length of the call (zp_loaddb.c), or NULL. */
  struct zp_ldb_wrap *ldb;
  /* The same for measured edge weights (zp_loaddb_edges.c), or NULL. */
  struct zp_edge_wrap *edw;
  /* The guard's callbacks in front of the application's while a native
   * method runs (zp_guard.c), or NULL. */
  struct zp_guard *guard;
  /* Zoltan's own lists of the last native base run, kept while the method
   * asked for them (zp_ctx_keep_base_lists), or NULL: an answer equal to
   * that run's is handed over as those lists (zp_answer). */
  int keep_base_lists;
  struct zp_base_lists *base_lists;
  /* The agreed code of an application callback that failed in this call,
   * as the guard found it (0 = none): a method that tries several base
   * methods (AUTO) stops there instead of trying the next one. */
  int cb_failed;
};

/* ---- the context (zp_context.c) ------------------------------------------ */

/* An empty context for one call on r; nothing allocated yet. */
void zp_ctx_init(zp_context *c, zp_record *r, int is_balance);
/* Free every array of the context (not the context itself). */
void zp_ctx_free(zp_context *c);
/* An array of one call for slot (ZP_SCR_L_*): the record's kept buffer
 * when c holds the record's pool (the first context of the struct to ask
 * takes it until zp_ctx_free), else a fresh malloc that zp_ctx_free (or the
 * caller, for ZP_SCR_L_COL0) frees.  zero: clear it.  NULL
 * when memory is short.  Free it with zp_ctx_array_free.  Local. */
void *zp_ctx_array(zp_context *c, int slot, size_t bytes, int zero);
/* Free p from zp_ctx_array(c, ...) unless it is a kept buffer.  Local. */
void zp_ctx_array_free(const zp_context *c, void *p);
/* Read the native settings; ngid, nlid and RETURN_LISTS are agreed over
 * ranks.  Collective; returns the same code on every rank. */
int zp_read_settings(zp_context *c);
/* Combine the local return codes of one step: zp_agree_code over the
 * struct's communicator (the worst error anywhere is the error everywhere,
 * else a warning anywhere is a warning everywhere).  Collective. */
int zp_agree(const zp_context *c, int local);
/* zp_agree for one step of a sequence: returns the agreed error, or
 * ZOLTAN_OK with *warn set when the step warned here.  Collective. */
int zp_agree_step(const zp_context *c, int local, int *warn);
/* zp_agree_step for a step that already returns the same code on every
 * rank (it agreed inside, or decided from reduced values only): no
 * reduction, since every collective is a latency each call pays.  With
 * ZOLTAN_PLUGINS_CHECK_AGREED=1 in the environment (the test suite sets
 * it) the claim is checked with a reduction, and a code that differs
 * between ranks is an error on every rank, naming the step.  Collective
 * only then. */
int zp_step_agreed(const zp_context *c, int agreed, int *warn, const char *step);
/* A method's ZP_NEEDS_* / ZP_WANTS_* / ZP_NO_REMAP flags for the current
 * parameter values (needs_for when it has one, else needs). */
unsigned zp_method_needs(const zp_method *m, const zp_params *params);

/* ---- parts (zp_parts.c) -------------------------------------------------- */

/* Parts to ranks from NUM_GLOBAL_PARTS / NUM_LOCAL_PARTS, as Zoltan does.
 * Collective; returns the same code on every rank. */
int zp_build_part_dist(zp_context *c);
/* Part sizes as Zoltan_LB_Get_Part_Sizes computes them.  Collective;
 * returns the same code on every rank. */
int zp_build_part_sizes(zp_context *c);
/* First part held by a rank, -1 when it holds none. */
int zp_first_part_of(const zp_context *c, int rank);
/* The rank an object of this part goes to (Zoltan_LB_Part_To_Proc). */
int zp_part_to_proc(const zp_context *c, int part, ZOLTAN_ID_TYPE *gid);

/* ---- the application's data (zp_gather.c) -------------------------------- */

/* Local objects, weights and current parts.  Local: the caller agrees on
 * the outcome. */
int zp_gather_objects(zp_context *c);
/* Coordinates and graph edges as flags (ZP_NEEDS_* / ZP_WANTS_*) ask, for
 * the method named who; each is asked of the callbacks at most once per
 * call.  A NEEDS flag makes missing callbacks an error.  Collective; the
 * outcome is agreed. */
int zp_gather_inputs(zp_context *c, unsigned flags, const char *who);
/* 1 when a callback's code is one Zoltan takes as success (ZOLTAN_OK or
 * ZOLTAN_WARN).  Pure. */
static inline int zp_cb_ok(int ierr) { return ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN; }
/* For a native geometric method that will read the coordinates itself:
 * agree in one reduction that every rank registered the geometry callbacks
 * and on their dimension (gdim, geom_missing, geom_unregistered, as
 * zp_gather_inputs sets them), without reading the coordinates, and set
 * geom_deferred when the run must read them through zp_serve.  Nothing to
 * do when the coordinates were already read this call.  Collective; the
 * result is the same on every rank. */
int zp_gather_geometry_deferred(zp_context *c, const char *who);
/* Call the hypergraph callbacks (ZOLTAN_HG_SIZE_CS_FN, ZOLTAN_HG_CS_FN)
 * once, where they are registered, and agree on their outcome, so that a
 * failure on one rank is an error everywhere before Zoltan's PHG runs;
 * *registered is 1 when some rank registered them.  Collective. */
int zp_check_hypergraph(zp_context *c, int *registered, const char *who);

/* ---- centralised methods (zp_serial.c) ----------------------------------- */

/* The rank that runs a centralised method. */
#define ZP_ROOT 0

/* Run the method of c->r (a partition_serial one) on every object gathered
 * on rank 0; new_part receives the part of each local object.  Collective;
 * the outcome is agreed. */
int zp_run_serial(zp_context *c, int *new_part);
/* The sorted path of a method with partition_sorted (zp_sorted.c): each
 * rank sorts its weights, the root merges them and runs the method, and the
 * parts come back; the answer is zp_run_serial's.  *ran is 0, on every
 * rank, when the method, the settings or the objects do not allow it (then
 * nothing was done and the caller runs zp_run_serial).  Collective; the
 * outcome is agreed. */
int zp_run_sorted(zp_context *c, int *new_part, int *ran);

/* ---- fixed objects (zp_fixed.c) ------------------------------------------ */

/* Objects the application fixes to a part (ZOLTAN_FIXED_OBJ_LIST_FN) end
 * there, whatever the method.  zp_fixed_local puts this rank's fixed
 * objects in their parts in new_part and counts them in *applied; nothing
 * when the application registered no fixed-object callbacks.  Local: an
 * unknown object or a part out of range is an error naming it, which the
 * caller agrees on (zp_answer's reduction, through c->pending).
 * zp_fixed_report prints the count over the ranks at DEBUG_LEVEL >= 1
 * (collective then). */
int zp_fixed_local(const zp_context *c, int *new_part, long *applied);
void zp_fixed_report(const zp_context *c, long applied);

/* ---- the guard of native methods (zp_guard.c) ---------------------------- */

typedef struct zp_guard zp_guard;
/* Call the callbacks that the native method may call (objects and parts
 * always; coordinates, graph, hypergraph and object sizes as the method
 * reads them, where registered), agree on their codes, and on success put
 * callbacks in front of the application's that answer from what was read
 * (c->guard) until zp_guard_end.  A method the guard does not know is left
 * alone.  Returns the worst code of any rank, the same on every rank; an
 * error names the callback and the rank.  Collective. */
int zp_guard_begin(zp_context *c, const char *method);
/* Give the application its callbacks back and free what was read.  Local. */
void zp_guard_end(zp_context *c);

/* --- a native base run served from what the layer read (zp_serve.c) --- */

/* A callback put in front of the application's for the length of a run,
 * and what it stands in front of.  Zoltan keeps one of the MULTI and single
 * forms of the part, coordinate, edge and size callbacks (setting one
 * clears the other), so the single form of the pair is saved too. */
typedef struct zp_fn_slot {
  ZOLTAN_FN_TYPE type, single; /* the type replaced, and its single form (or type) */
  ZOLTAN_VOID_FN *fn, *single_fn;
  void *data, *single_data;
} zp_fn_slot;

/* Save into s what zz has registered for type and for single (type itself
 * when the type has no single form), and register fn with data for type.
 * Not collective. */
void zp_fn_slot_replace(struct Zoltan_Struct *zz, zp_fn_slot *s, ZOLTAN_FN_TYPE type,
                        ZOLTAN_FN_TYPE single, ZOLTAN_VOID_FN *fn, void *data);
/* Register again the form that s saved (which clears the other form of a
 * pair).  Not collective. */
void zp_fn_slot_restore(struct Zoltan_Struct *zz, const zp_fn_slot *s);

/* The callbacks zp_serve_begin put in front of the application's, and the
 * ones they stand in front of. */
typedef struct zp_serve {
  const zp_context *c;
  struct Zoltan_Struct *zz;
  const char *who;     /* names the run in messages (set after zp_serve_begin) */
  int geom_failed;     /* the first error code of the application's geometry
                      callback during a deferred run, else 0 */
  zp_fn_slot saved[4]; /* the slots replaced, in the order replaced */
  int nsaved;
  /* The callbacks that answer the calls the context cannot. */
  ZOLTAN_VOID_FN *list_fn, *first_fn, *next_fn, *pmulti_fn, *pone_fn, *gmulti_fn, *gone_fn;
  void *list_data, *first_data, *next_data, *pmulti_data, *pone_data, *gmulti_data, *gone_data;
} zp_serve;

/* Until zp_serve_end(s), Zoltan's reads of the object count and list, the
 * current parts and (when the layer read them this call) the coordinates
 * are answered from c's arrays instead of the application's callbacks,
 * which the layer has already called and agreed on; a read with other
 * arguments goes to the callback registered before.  Nothing is put in
 * front while the guard is on (it serves its own) or before the objects
 * are read.  With c->geom_deferred the coordinates go from the
 * application's callback straight to Zoltan, through a wrapper that keeps
 * a failure in s->geom_failed and answers Zoltan with zeros and
 * ZOLTAN_OK, so that no rank leaves Zoltan's collective run alone; the
 * caller makes the run fail on every rank afterwards.  c must outlive the
 * run.  Not collective; cannot fail. */
void zp_serve_begin(const zp_context *c, zp_serve *s);
/* The callbacks registered before zp_serve_begin(s) back in place.  Not
 * collective. */
void zp_serve_end(zp_serve *s);
/* 1 when the layer read the coordinates of exactly these objects (n of
 * them, in this order, ngid and nlid entries per ID) in dimension dim this
 * call, which are then copied to x[n * dim]; 0, with x untouched,
 * otherwise (c may be NULL).  Not collective. */
int zp_layer_read_coords(const zp_context *c, int ngid, int nlid, int n, const ZOLTAN_ID_TYPE *gids,
                         int dim, double *x);

/* ---- memory capacities (zp_memory.c) ------------------------------------- */

/* Cap c->part_sizes by the memory limits, for the total memory weight of
 * the objects gathered (every method then plans within the limits when
 * memory follows load).  Nothing when memory limits are off.  Collective
 * (one allreduce); the caller agrees on the outcome. */
int zp_memory_bound(zp_context *c);
/* Root, centralised methods: move objects of the N gathered ones (weights
 * w, wdim per object) out of parts over their memory limit (new_part
 * changed in place).  Local; silent (zp_memory_check reports). */
void zp_memory_repair_root(const zp_context *c, size_t N, const double *w, int *new_part);
/* Warn, on the debug rank, about the part furthest over its memory limit
 * in the final assignment new_part of the local objects.  Returns
 * ZOLTAN_WARN on every rank when some part is over, else ZOLTAN_OK.
 * Collective. */
int zp_memory_check(const zp_context *c, const int *new_part);
/* The same for a native method's answer: the local objects' new parts
 * from the export lists of a (nothing when Zoltan returned none).
 * Collective. */
int zp_memory_check_lists(zp_context *c, const zp_lb_args *a);

/* ---- the hypergraph as a graph (zp_hgraph.c) ------------------------------ */

/* Read this rank's (net, pin) pairs into c->hg_pairs when every rank has
 * the hypergraph callbacks (c->hg_as_graph = 1; otherwise 0 and nothing
 * read).  Collective; the outcome is agreed. */
int zp_hg_read_pairs(zp_context *c, const char *who);

/* Root: the graph of the gathered pairs (npairs records of 2 * ngid IDs) on
 * the N objects of sorted_gids: compressed rows of neighbour positions and
 * one weight per entry (clique or cycle per net, see zp_method.h).  Pins
 * that are no object are dropped (*dropped counts them; the first is named
 * when strict, and that is an error).  Local. */
int zp_hg_graph(const zp_context *c, size_t N, const ZOLTAN_ID_TYPE *sorted_gids,
                const unsigned char *pairs, size_t npairs, size_t **adj_start, size_t **adj,
                double **ew);

/* A centralised method's run, as HIERARCHY asks (zp_hier.c): by groups
 * when the tree is on for this call and the method can run by groups
 * (ZP_HIERARCHICAL), else zp_run_serial_candidates for ZP_GATHER_CANDIDATES
 * and zp_run_serial otherwise.  Collective; the outcome is agreed. */
int zp_run_central(zp_context *c, int *new_part);

/* The same for a method with ZP_GATHER_CANDIDATES: only the objects of the
 * parts at or above their target travel (zp_candidates.c).  Collective. */
int zp_run_serial_candidates(zp_context *c, int *new_part);
/* The fields of a method's problem that every centralised run fills alike
 * (ID width, weight dimension, parameters, debug level, LB_APPROACH); the
 * rest zeroed.  Local. */
void zp_problem_common(zp_problem *pb, const zp_context *c);
/* ZOLTAN_OK when each of the N parts in newp is in [0, nparts), else an
 * error naming the method and the part (ZOLTAN_FATAL).  Local. */
int zp_check_answer(const zp_context *c, const int *newp, size_t N, int nparts);

/* Lexicographic order of multi-entry global IDs (-1, 0, 1).  Local. */
int zp_gid_cmp(const ZOLTAN_ID_TYPE *a, const ZOLTAN_ID_TYPE *b, int ngid);

/* Order idx[0..n-1] by the global IDs g (ngid entries each), stably; tmp
 * holds n entries of scratch.  A radix sort when the IDs have one entry and
 * both they and the indices lie below 2^32, else a merge sort; the order is
 * the same.  Local. */
void zp_sort_by_gid(size_t *idx, size_t *tmp, size_t n, const ZOLTAN_ID_TYPE *g, int ngid);
/* 1 when the n global IDs g (ngid entries each) increase strictly: they
 * are in ID order and unique.  Local. */
int zp_gids_increase(const ZOLTAN_ID_TYPE *g, size_t n, int ngid);
/* Position of key among n sorted global IDs, -1 when absent. */
long zp_find_gid(const ZOLTAN_ID_TYPE *sorted, size_t n, const ZOLTAN_ID_TYPE *key, int ngid);

/* A hash table from global ID to position (zp_gidmap.c). */
typedef struct zp_gidmap {
  long *slot;                 /* positions, -1 for an empty slot */
  size_t mask;                /* slots - 1 (a power of two) */
  const ZOLTAN_ID_TYPE *gids; /* the IDs (not copied: they must outlive the map) */
  int ngid;                   /* entries per ID */
} zp_gidmap;
/* The map of the n IDs gids (a repeated ID maps to its first position).
 * Local; ZOLTAN_OK or ZOLTAN_MEMERR. */
int zp_gidmap_build(zp_gidmap *m, const ZOLTAN_ID_TYPE *gids, size_t n, int ngid);
/* The position of key, -1 when absent.  Local. */
long zp_gidmap_find(const zp_gidmap *m, const ZOLTAN_ID_TYPE *key);
/* Free the table (also after a failed build).  Local. */
void zp_gidmap_free(zp_gidmap *m);

/* ---- native methods (zp_native.c) --------------------------------------- */

/* Give Zoltan's struct the part sizes sizes (c->nparts * c->wdim global
 * entries) in place of the application's.  Local; ZOLTAN_OK or a code. */
int zp_native_set_sizes(const zp_context *c, const double *sizes);
/* Give Zoltan's struct back the part sizes the application set.  Local. */
void zp_native_restore_sizes(zp_record *r);

/* ---- capacities (zp_capacity.c) ------------------------------------------ */

/* Compose c->part_sizes with the ranks' capacities (after
 * zp_build_part_sizes), when the capacity model is active.  Collective (no
 * collective runs with uniform capacities and no memory limits once
 * zp_read_settings checked that every rank has the same settings); the
 * outcome is agreed. */
int zp_capacity_apply(zp_context *c);

/* ---- the load database (zp_loaddb.c, zp_dump.c) ------------------------- */

/* With OBJ_WEIGHT_SOURCE other than CALLBACK: the measured loads (after
 * zp_gather_objects) into the first weight of c->w, and the layer's object
 * callbacks in front of the application's until zp_loaddb_release, so that
 * Zoltan's methods see them too.  Collective; the outcome is agreed. */
int zp_loaddb_apply(zp_context *c);
/* Give the application its object callbacks and OBJ_WEIGHT_DIM back, if
 * zp_loaddb_apply replaced them.  Local; zp_ctx_free calls it. */
void zp_loaddb_release(zp_context *c);
/* What zp_loaddb_override changed, for zp_loaddb_restore. */
typedef struct zp_weight_undo {
  double *col0;    /* the context's first weights before the override (several
                      weights per object) */
  double *saved_w; /* the context's weights before the override (one per object) */
  int swapped;     /* 1 when the context pointed at the override's weights */
  int changed;     /* 1 once the context's weights were replaced */
  int installed;   /* 1 when the override put the wrapper in place */
} zp_weight_undo;
/* Make w0[i] the first weight of local object i, in the context and in
 * what the object callbacks give Zoltan, until zp_loaddb_restore.  Local. */
int zp_loaddb_override(zp_context *c, const double *w0, zp_weight_undo *u);
/* Undo zp_loaddb_override (also after it failed).  Local. */
void zp_loaddb_restore(zp_context *c, zp_weight_undo *u);
/* With EDGE_WEIGHT_SOURCE other than CALLBACK and the graph read: measured
 * communication into the first weight of c->ewgts (EDGE_WEIGHT_DIM raised
 * to 1 when it was 0), and the layer's edge callbacks in front of the
 * application's until zp_loaddb_edges_release.  Collective. */
int zp_loaddb_edges_apply(zp_context *c);
/* Give the application its edge callbacks and EDGE_WEIGHT_DIM back.  Local;
 * zp_ctx_free calls it. */
void zp_loaddb_edges_release(zp_context *c);

/* The load database's totals over the ranks (loaddb_core.h's
 * loaddb_totals), with one more number each rank adds.  Collective. */
struct loaddb_totals;
void zp_loaddb_sum_totals(const zp_context *c, const struct loaddb_totals *lt, double extra,
                          struct loaddb_totals *gt, double *extra_sum);
/* With LB_DUMP_FILE set: append what method is about to see to the file
 * (rank 0 writes).  Collective; the outcome is agreed. */
int zp_dump_write(zp_context *c, const char *method);
/* The problem as method is about to see it, gathered into *d on rank 0 in
 * global-ID order (elsewhere *d is empty); why names the caller in
 * messages about the coordinate and edge callbacks; coordinates travel only
 * with with_coords (the callbacks are asked either way, once per call,
 * for the methods that follow); with perm, (*perm)[i] is the
 * position of d's object i in the rank-by-rank order of the local objects
 * (rank 0's first), for placing other gathered arrays.  Free with
 * loaddb_dump_free and free.  Collective; the outcome is agreed. */
struct loaddb_dump;
int zp_dump_gather(zp_context *c, const char *method, const char *why, int with_coords,
                   struct loaddb_dump *d, size_t **perm);

/* ---- REMAP (zp_remap.c) -------------------------------------------------- */

/* The parts that REMAP relabels: nparts of them, with their sizes (wdim
 * per part), and the record whose kept buffers it borrows.  The flat path
 * passes the whole problem's; a group root under HIERARCHY its group's. */
typedef struct zp_remap_in {
  zp_record *r;
  int nparts, wdim;
  const double *part_sizes;
} zp_remap_in;

/* Relabel newp[0..N-1] (N objects with weights w, in->wdim per object,
 * and current parts cur, -1 for none) so that the most weight stays in its
 * current part; nothing happens unless the part sizes are uniform.
 * Returns ZOLTAN_OK or ZOLTAN_MEMERR.  Local. */
int zp_remap(const zp_remap_in *in, size_t N, const double *w, const int *cur, int *newp);

/* zp_remap for objects spread over the ranks of comm: each rank's n objects
 * (weights w, in->wdim per object, current parts cur, new parts newp, which
 * is relabelled in place), max_w the largest first weight of all objects.
 * The relabelling is the one zp_remap gives the same objects gathered on one
 * rank, whatever their split: the shared weights are reproducible sums.
 * in->part_sizes must be the same on every rank (agreed arrays: whether
 * they are uniform decides whether the collectives run).  Returns ZOLTAN_OK
 * or ZOLTAN_MEMERR, the same on every rank.  Collective. */
int zp_remap_parallel(const zp_remap_in *in, MPI_Comm comm, size_t n, const double *w,
                      const int *cur, double max_w, int *newp);

/* ---- the answer (zp_lists.c) --------------------------------------------- */

/* Turn the new parts of the local objects into Zoltan's answer: lists as
 * RETURN_LISTS asks, AUTO_MIGRATE, debug output.  t_part is this rank's
 * partition time; *warn is set when a step warned.  Its first reduction
 * also agrees on c->pending (an error there on any rank is the answer's
 * error on every rank) and then reports the fixed objects.  Collective;
 * after an error the caller discards a. */
int zp_answer(const zp_context *c, const int *new_part, double t_part, zp_lb_args *a, int *warn);
/* 1 when the answer needs import lists: the application asked for them
 * (RETURN_LISTS IMPORT or ALL) or AUTO_MIGRATE moves the objects.  Not
 * collective (the settings are agreed). */
int zp_wants_imports(const zp_context *c);
/* Free the kept lists of a base run and the record of them; NULL is a
 * no-op. */
void zp_base_lists_free(zp_base_lists *b);
/* Free whatever lists a holds and zero its counts: nothing half-built
 * reaches the application after an error. */
void zp_discard_answer(zp_lb_args *a);
/* "1.2.3" for a global ID of ngid entries, truncated to cap. */
void zp_format_gid(const ZOLTAN_ID_TYPE *g, int ngid, char *buf, size_t cap);

#endif /* ZP_PARTITION_INTERNAL_H */
