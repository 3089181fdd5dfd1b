/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_METHOD_H
#define ZP_METHOD_H

/*
 * The method registry of the Zoltan plugin layer.
 *
 * A load-balancing method is described once, as a constant zp_method: its
 * name (the value users give to LB_METHOD), its parameter table, optional
 * per-Zoltan_Struct state, and one partition function.  The framework owns
 * everything Zoltan-specific around that function: it consumes the method's
 * parameters, gathers the application's objects through the Zoltan callbacks,
 * checks them, computes part sizes and the part-to-process map, builds
 * Zoltan's import/export lists, and migrates when AUTO_MIGRATE is set.  A
 * strategy only maps arrays to an assignment.
 *
 * Two kinds of partition function exist:
 *  - partition_serial: a centralised strategy.  The framework gathers every
 *    object of the communicator on one rank, sorted by global ID so that the
 *    answer does not depend on how the objects were distributed, calls the
 *    function there with a zp_problem, and scatters the new parts back.
 *  - partition_parallel: a distributed strategy (for example one that runs a
 *    native Zoltan method underneath).  It is called on every rank with a
 *    zp_context that gives the local objects and services of the framework,
 *    and fills the new part of each local object.
 * Exactly one of the two must be set.
 */

#include <stddef.h>
#include <stdint.h>

#include <zoltan_types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ZP_API __attribute__((visibility("default")))
#else
#define ZP_API
#endif

/* Types of a method parameter's value. */
typedef enum zp_param_type {
  ZP_PARAM_INT = 0,    /* integer; "T..." is 1 and "F..." is 0, as in Zoltan */
  ZP_PARAM_DOUBLE = 1, /* floating-point number */
  ZP_PARAM_STRING = 2  /* a word from the choices list (case-insensitive) */
} zp_param_type;

/* Flags of zp_param_def.flags. */
#define ZP_PARAM_MIN_OPEN 0x1u /* the lower bound itself is not allowed */
#define ZP_PARAM_MAX_OPEN 0x2u /* the upper bound itself is not allowed */
#define ZP_PARAM_NO_MIN   0x4u /* there is no lower bound */
#define ZP_PARAM_NO_MAX   0x8u /* there is no upper bound */
/* A string value kept as given (trimmed, not upper-cased), for file paths;
 * only with type ZP_PARAM_STRING and choices == NULL. */
#define ZP_PARAM_KEEP_CASE 0x10u

/* One row of a method's parameter table. */
typedef struct zp_param_def {
  const char *name;          /* upper-case, starts with the method's prefix */
  zp_param_type type;        /* how values are parsed and checked */
  const char *default_value; /* value used when unset or set to DEFAULT */
  double min;                /* lower bound of numeric values */
  double max;                /* upper bound of numeric values */
  unsigned flags;            /* ZP_PARAM_* bound flags */
  /* For strings: the allowed words, NULL-terminated (NULL = any word).  For
   * numbers: extra words accepted besides numbers (for example "AUTO"),
   * NULL-terminated, or NULL for none. */
  const char *const *choices;
  const char *help; /* one-line meaning, printed in the docs */
} zp_param_def;

/* The values of all plugin parameters of one Zoltan_Struct (opaque). */
typedef struct zp_params zp_params;

/* Everything a centralised strategy sees.  Objects are sorted by global ID. */
typedef struct zp_problem {
  size_t num_obj;              /* number of objects in the whole communicator */
  int num_gid_entries;         /* entries per global ID */
  const ZOLTAN_ID_TYPE *gids;  /* num_obj * num_gid_entries global IDs */
  int wgt_dim;                 /* weights per object, >= 1 (1 with unit weights
                                   when OBJ_WEIGHT_DIM is 0) */
  const double *wgts;          /* num_obj * wgt_dim weights, finite, >= 0 */
  const int *cur_part;         /* current part of each object, or -1 when
                                   the object is in no part yet (its rank
                                   holds no part) */
  const int *cur_proc;         /* current owning rank of each object (by
                                   groups, HIERARCHY: the rank within the
                                   group, -1 for an object from another
                                   group) */
  int num_parts;               /* number of parts to produce */
  int num_procs;               /* number of ranks (by groups: the group's) */
  const double *part_sizes;    /* num_parts * wgt_dim target fractions; each
                                   column sums to 1 */
  const double *imbalance_tol; /* wgt_dim tolerances (IMBALANCE_TOL, >= 1) */
  int geom_dim;                /* coordinates per object, 0 when unavailable */
  const double *coords;        /* num_obj * geom_dim, or NULL */
  const size_t *adj_start;     /* num_obj + 1 offsets into adj, or NULL */
  const size_t *adj;           /* neighbour indices (into 0..num_obj-1) */
  int ewgt_dim;                /* weights per edge, 0 when none */
  const double *ewgts;         /* adj_start[num_obj] * ewgt_dim, or NULL */
  const zp_params *params;     /* parameter values, see zp_param_* */
  int debug_level;             /* DEBUG_LEVEL of the Zoltan_Struct */
  const char *lb_approach;     /* LB_APPROACH as the application set it,
                                   upper case ("PARTITION", "REPARTITION",
                                   "REFINE"), or NULL when it never set it */
  const double *obj_sizes;     /* num_obj object sizes in bytes, from the
                                   application's ZOLTAN_OBJ_SIZE_MULTI_FN or
                                   ZOLTAN_OBJ_SIZE_FN, when the method's needs
                                   include ZP_WANTS_SIZES and every rank
                                   registered one; else NULL */
  void *layer;                 /* the layer's, for zp_problem_scratch; a
                                   method never reads or writes it (NULL in a
                                   problem the method's tests build) */
  /* Only in partition_sorted with ZP_SORTED_RUNS, else 0 and NULL: wgts
   * holds num_runs runs one after the other, run r being the run_count[r]
   * weights from wgts[run_first[r]] on, each heaviest first; the weights'
   * order is the merge of the runs, equal weights in run order, or by
   * run_ties (one value per weight, smaller first) when it is not NULL. */
  int num_runs;
  const size_t *run_first;
  const size_t *run_count;
  const uint64_t *run_ties;
} zp_problem;

/* Number of zp_problem_scratch slots. */
#define ZP_PROBLEM_SCRATCH_SLOTS 8

/*
 * zp_problem_scratch - a work buffer of at least bytes bytes that the layer
 * keeps for the Zoltan struct from one balance to the next.  A method's
 * large work arrays (an order of the objects, a sort's second buffer) then
 * reuse memory that is already mapped: at 10^6 objects, writing fresh pages
 * costs more than the sort that fills them.
 * Not collective.  pb is the problem the method was called with; slot is
 * 0 .. ZP_PROBLEM_SCRATCH_SLOTS - 1, one buffer per slot.  The contents are
 * undefined (neither cleared nor kept between calls); the buffer is valid
 * until the method returns or asks for the same slot again.
 * Returns the buffer, or NULL when pb was not built by the layer (layer is
 * NULL), slot is out of range or memory runs out: the method then
 * allocates on its own.
 */
ZP_API void *zp_problem_scratch(const zp_problem *pb, int slot, size_t bytes);

/* Per-call context of a distributed strategy (opaque; see zp_context.h). */
typedef struct zp_context zp_context;

/* Input needs of a method, for zp_method.needs. */
#define ZP_NEEDS_GEOM  0x1u /* gather coordinates (error if no geometry callbacks) */
#define ZP_NEEDS_GRAPH 0x2u /* gather graph edges (error if no graph callbacks) */
#define ZP_WANTS_GEOM  0x4u /* gather coordinates when the callbacks exist */
#define ZP_WANTS_GRAPH 0x8u /* gather graph edges when the callbacks exist */
/* Do not relabel the method's parts for REMAP=1 (for methods whose part
 * numbers already mean something, such as refinement of the current ones). */
#define ZP_NO_REMAP 0x10u
/* An edge that names an object no rank has is an error naming it, instead of
 * being dropped with a warning (for methods that hand the graph to a
 * partitioner, where a missing end means the application's graph is wrong). */
#define ZP_STRICT_GRAPH 0x20u
/* For a centralised method that only ever moves objects off parts above
 * their target (REFINE): gather only the objects of the parts at or above
 * their target in some weight dimension (and objects in no part), found
 * from part loads summed by one allreduce; every other part reaches the
 * method as one object that carries its whole load and must stay where it
 * is.  The method then sees num_gid_entries + 1 entries per global ID: a
 * leading 0 for real objects and 1 for those per-part objects, which come
 * last.  Graph edges and coordinates are not gathered with this flag. */
#define ZP_GATHER_CANDIDATES 0x40u
/* With ZP_NEEDS_GRAPH or ZP_WANTS_GRAPH, a centralised method also takes an
 * application that registered only the hypergraph callbacks
 * (ZOLTAN_HG_SIZE_CS_FN, ZOLTAN_HG_CS_FN): each net becomes a clique of its
 * pins, each edge of weight 1 / (pins - 1), and a net of more than
 * ZP_HG_CLIQUE_MAX pins a cycle through its pins in global-ID order, each
 * edge of weight 1/2 (both cut a net in two for a weight of at least 1, as
 * the net itself costs); edges that several nets give are summed, and the
 * method sees one edge weight.  Net weights are not read: every net
 * weighs 1. */
#define ZP_GRAPH_FROM_HYPERGRAPH 0x80u
#define ZP_HG_CLIQUE_MAX         32
/* Read the size of every object (ZOLTAN_OBJ_SIZE_MULTI_FN, else
 * ZOLTAN_OBJ_SIZE_FN: the bytes Zoltan_Migrate would pack for it) when every
 * rank registered one of them; a method sees them as zp_problem.obj_sizes
 * or through zp_ctx_local_sizes (for example to weigh what moving an object
 * costs).  A negative size is an error naming it. */
#define ZP_WANTS_SIZES 0x100u

/* A centralised method whose partition_serial can run on one group of
 * ranks at a time (HIERARCHY, docs/hierarchy.md): the layer then gives it
 * a group's objects, the objects other groups shed to it (cur_part -1,
 * cur_proc -1) and the group's parts (num_parts, part_sizes rescaled),
 * without coordinates.  A method that reads the graph gets the group's
 * edges; one that does not refine (ZP_REFINES unset, SCOTCHLB) also gets
 * the load routed between neighbouring groups along the graph first, and
 * the edges of the objects that came to it.  A method sets it when its
 * answer on a group is a sound piece of the whole answer (GREEDY, REFINE,
 * SCOTCHLB); one that needs the whole problem at once leaves it out and is
 * gathered on one rank whatever HIERARCHY says. */
#define ZP_HIERARCHICAL 0x200u
/* The method moves objects only off parts above their target times the
 * tolerance (REFINE): by groups, a group whose parts are all within the
 * tolerance then keeps its objects, as the flat method would. */
#define ZP_REFINES 0x400u
/* With partition_sorted: the sorted problem also carries each object's
 * current part (zp_problem.cur_part, in the same order as the weights),
 * for a method whose answer depends on the weights in weight order and on
 * where the objects are now (REFINE, GREEDYREFINE). */
#define ZP_SORTED_PARTS 0x800u
/* With partition_sorted, and without ZP_SORTED_PARTS: the method takes the
 * ranks' sorted weights as runs (zp_problem.num_runs and what follows it)
 * and merges them as it reads them, and fills new_part in the runs' layout
 * (new_part[i] for the object of wgts[i]), so that the root holds no merged
 * copy of the weights and no map back to the ranks (GREEDY). */
#define ZP_SORTED_RUNS 0x1000u

/*
 * ZP_METHOD_ABI - the version of the method interface this header describes:
 * the layout of zp_method, zp_param_def and zp_problem, and what the
 * functions of zp_method and zp_context.h promise.  It grows by one whenever
 * any of these changes incompatibly, a new field included (a description
 * compiled with the shorter struct would be read past its end).  A method
 * sets .abi = ZP_METHOD_ABI, so that a description compiled against another
 * version of this header is refused by zp_register_method with a message
 * instead of being misread (hwloc's components carry HWLOC_COMPONENT_ABI for
 * the same reason).  Version 2 added zp_problem.lb_approach and
 * zp_ctx_lb_approach; version 3 added zp_problem.obj_sizes,
 * zp_method.use_parallel (a method may then set both partition functions),
 * ZP_WANTS_SIZES, zp_ctx_local_nbr_gids, zp_ctx_global_index,
 * zp_ctx_local_sizes and zp_nbx; version 4 added zp_problem.layer and
 * zp_problem_scratch; version 5 added zp_method.delegate and delegated,
 * zp_ctx_debug_proc, zp_ctx_gather_inputs, zp_ctx_inputs,
 * zp_ctx_callback_error, zp_ctx_gather_dump and zp_ctx_run_base_setting
 * (and later, without a change of layout, zp_native_bounds and
 * zp_ctx_native_bounds); version 6 added zp_method.partition_sorted; version 7 added
 * zp_problem.num_runs, run_first, run_count and run_ties and ZP_SORTED_RUNS.
 * abi and name stay the first two fields in every
 * version, so that the refusal can always name the method.
 */
#define ZP_METHOD_ABI 7u

/* A load-balancing method.  Register it with zp_register_method.  Write it
 * with designated initialisers (.name = "MYLB", ...): fields left out are
 * zero, which is the right default for every optional one. */
typedef struct zp_method {
  unsigned abi;               /* must be ZP_METHOD_ABI */
  const char *name;           /* LB_METHOD value, upper case, e.g. "GREEDY" */
  const char *summary;        /* one line for listings and docs */
  const zp_param_def *params; /* parameter table (may be NULL) */
  size_t num_params;          /* rows in params */
  /* Prefix that every parameter name starts with, ending in '_' (for
   * example "RR_"); NULL means the method's name and '_' ("GREEDY_").  The
   * prefix keeps a method's parameters apart from Zoltan's and from other
   * methods', so it may not begin any of Zoltan's parameter names. */
  const char *param_prefix;
  unsigned needs; /* ZP_NEEDS_* / ZP_WANTS_* flags */
  /* Optional per-Zoltan_Struct state, created on first use, copied by
   * Zoltan_Copy/Zoltan_Copy_To and destroyed by Zoltan_Destroy. */
  int (*create)(void **state);
  void (*destroy)(void *state);
  int (*copy)(void **dst, const void *src);
  /* Centralised strategy: fill new_part[0..pb->num_obj-1] with parts in
   * [0, pb->num_parts).  Called on one rank only.  Returns a ZOLTAN_* code;
   * a message for the user goes through zp_error. */
  int (*partition_serial)(const zp_problem *pb, void *state, int *new_part);
  /* Distributed strategy: fill new_part for the local objects (in the order
   * of zp_ctx_local).  Called on every rank; collective. */
  int (*partition_parallel)(zp_context *ctx, void *state, int *new_part);
  /* Optional: the ZP_NEEDS_* / ZP_WANTS_* / ZP_NO_REMAP flags for the
   * current parameter values, replacing `needs` (for example, gather the
   * graph only when a communication-aware option is on).  Called on every
   * rank with the same parameters; must not fail. */
  unsigned (*needs_for)(const zp_params *params);
  /* Optional, and required when both partition_serial and
   * partition_parallel are set: 1 to run partition_parallel for this call,
   * 0 to gather on one rank and run partition_serial.  Called on every rank
   * with the same arguments (the parameters, the number of objects over all
   * ranks, the number of ranks, LB_APPROACH as in zp_problem, and the
   * method's state, already created); the layer still agrees on the answer,
   * so that every rank takes the same path.  Must not fail.  A base run
   * (zp_ctx_run_base) always takes partition_serial, and so does a call
   * whose graph comes from the hypergraph callbacks
   * (ZP_GRAPH_FROM_HYPERGRAPH: that graph exists only on the root). */
  int (*use_parallel)(const zp_params *params, double num_global_obj, int num_procs,
                      const char *lb_approach, const void *state);
  /* Optional, for a method that keeps a choice between calls (AUTO): let
   * another method answer this call in its place.  Called on every rank
   * before anything is gathered, with the method's parameters and state
   * (created by an earlier call; the same on every rank when the state
   * changes in collective calls only).  Returns 1 with spec (cap bytes)
   * holding a method's name, or "NAME:PARAMETER=VALUE" for one setting of
   * that method's parameters, to delegate; 0 to run as usual.  Must not
   * fail.  The layer then runs the named method as a base run would (ours:
   * its centralised function, a state of its own for the call; Zoltan's:
   * on the application's struct, with the application's lists), keeping
   * this method's name in messages, and calls delegated(state) when it
   * returned without error, on every rank.  Where a delegated call could
   * answer or report otherwise than running spec as a base method, it runs
   * this method as usual instead, and so it does when Zoltan's method
   * failed (docs/plugin_layer.md, "Delegation"); every rank takes the same
   * path. */
  int (*delegate)(const zp_params *params, const void *state, char *spec, size_t cap);
  void (*delegated)(void *state);
  /* Optional, beside partition_serial, for a centralised method whose answer
   * depends only on the objects' single weights taken heaviest first (ties
   * in global-ID order) and on the parts' target sizes (GREEDY).  When the
   * application gives OBJ_WEIGHT_DIM 0 or 1, no other input or memory
   * capacity is in use, and the global IDs either come in blocks (ranks in
   * rank order, each rank's objects by increasing ID) or have one entry
   * each within a span of at most 8 times the number of objects, the layer
   * sorts each rank's weights where they are, merges the sorted weights on
   * the root instead of gathering the objects (docs/plugin_layer.md, "The
   * sorted path"), and calls this function there with a
   * zp_problem whose wgts are the num_obj weights in that order (wgt_dim 1)
   * and whose gids, cur_proc, coords, graph and obj_sizes are NULL
   * (num_gid_entries 0), as is cur_part unless the method's needs include
   * ZP_SORTED_PARTS; the rest is as for partition_serial.  With ZP_SORTED_RUNS
   * in the needs, wgts holds the ranks' sorted weights unmerged, as runs
   * (zp_problem.num_runs), and new_part follows wgts.  It
   * fills new_part[k] for the k-th object of that order, and must give the
   * parts partition_serial gives the same objects, so that the answer does
   * not depend on which of the two ran; REMAP and the other steps are the
   * layer's, as for partition_serial.  Otherwise partition_serial runs. */
  int (*partition_sorted)(const zp_problem *pb, void *state, int *new_part);
} zp_method;

/*
 * zp_register_method - add a method to the registry.
 * Not collective.  Call it before the method name is given to LB_METHOD, on
 * every rank.  The description is not copied: it must stay valid.
 * Returns ZOLTAN_OK, or ZOLTAN_FATAL (with a message on stderr that names
 * the offending field) when:
 *  - abi is not ZP_METHOD_ABI (left out, or built against another header);
 *  - the description is malformed (name, partition functions, create and
 *    destroy, a parameter's type or default);
 *  - the name is a native Zoltan method or is already registered;
 *  - a parameter name is one of Zoltan's own parameters (all of them, from
 *    Zoltan's parameter tables and User's Guide, not only LB_METHOD: the
 *    layer consumes a method's parameters, so Zoltan would never see it);
 *  - a parameter name does not start with the method's prefix, the prefix
 *    begins a Zoltan parameter name or the trigger's ADAPTIVE_, or the name
 *    is taken by another method.
 * Related: zp_find_method, zp_method_at.
 */
ZP_API int zp_register_method(const zp_method *method);

/*
 * zp_layer_params - the parameters of the layer itself (the capacity model:
 * CAPACITY, CAPACITY_FILE, ...), which apply whatever LB_METHOD is, ours or
 * Zoltan's, described as a method that no LB_METHOD selects (name
 * "CAPACITY").  Not collective.  For listings such as zp_methods.
 */
ZP_API const zp_method *zp_layer_params(void);

/*
 * zp_layer_param_group - the i-th group of the layer's own parameters,
 * each described as a method that no LB_METHOD selects: 0 is the capacity
 * model (what zp_layer_params returns), 1 the load database
 * (OBJ_WEIGHT_SOURCE, OBJ_WEIGHT_WINDOW, EDGE_WEIGHT_SOURCE, LB_DUMP_FILE, LB_HINTS_FILE;
 * name "LOADDB"), 2 hierarchical balancing (HIERARCHY, HIERARCHY_*; name
 * "HIERARCHY"), 3 the guard of native methods (ZOLTAN_PLUGINS_GUARD; name
 * "GUARD").
 * Not collective.  Returns NULL past the last group.
 */
ZP_API const zp_method *zp_layer_param_group(size_t i);

/*
 * zp_version - the library's version, "MAJOR.MINOR.PATCH", the same as the
 * ZOLTAN_PLUGINS_VERSION_* macros of zoltan_plugins.h when the header and
 * the library come from one build.  Not collective; never NULL.  A program
 * that was built against one version and runs with another (LD_PRELOAD of a
 * newer library) can compare the two.
 */
ZP_API const char *zp_version(void);

/*
 * zp_find_method - the registered method of that name (case-insensitive),
 * or NULL.  Not collective.
 */
ZP_API const zp_method *zp_find_method(const char *name);

/*
 * zp_is_native_method - 1 when clean_name is an LB_METHOD value Zoltan
 * understands itself (RCB, RIB, HSFC, PHG, GRAPH, BLOCK, ..., NONE), else 0.
 * Not collective.  clean_name is upper case without surrounding spaces, as
 * zp_param_string returns words.  For methods that run another method
 * underneath (zp_ctx_run_base) and check its name before the first call.
 */
ZP_API int zp_is_native_method(const char *clean_name);

/*
 * zp_method_count / zp_method_at - the registered methods, built-in ones
 * first, in registration order; zp_method_at returns NULL past the end.
 * Not collective.  Used to list methods and their parameters (the
 * zp_methods tool prints the parameter reference from them).
 */
ZP_API size_t zp_method_count(void);
ZP_API const zp_method *zp_method_at(size_t i);

/*
 * zp_param_int / zp_param_double / zp_param_string - the value of one of the
 * plugin parameters (the user's value if set, else the table's default).
 * Not collective.  For zp_param_int and zp_param_double, *is_keyword is set
 * to 1 (and the number to 0) when the value is one of the row's keywords,
 * for example "AUTO"; pass NULL when the row has none.  zp_param_string
 * returns the upper-case word.  All return ZOLTAN_OK, or ZOLTAN_FATAL when
 * the name is not a registered plugin parameter.
 */
ZP_API int zp_param_int(const zp_params *p, const char *name, int *value, int *is_keyword);
ZP_API int zp_param_double(const zp_params *p, const char *name, double *value, int *is_keyword);
ZP_API int zp_param_string(const zp_params *p, const char *name, const char **value);

/* Longest parameter value the layer keeps after cleaning, '\0' included. */
#define ZP_PARAM_VALUE_MAX 256

/* A parameter value checked by zp_param_parse. */
typedef struct zp_param_parsed {
  char clean[ZP_PARAM_VALUE_MAX]; /* the value trimmed and upper-cased (the
                                     row's default for DEFAULT) */
  int is_keyword;                 /* 1 when clean is one of the row's words */
  int int_value;                  /* ZP_PARAM_INT rows: the number (0 for a
                                     keyword) */
  double double_value;            /* ZP_PARAM_DOUBLE rows: the number (0 for
                                     a keyword) */
} zp_param_parsed;

/*
 * zp_param_parse - clean and check one value for one parameter row, with the
 * rules and the messages that Zoltan_Set_Param applies to the parameters of
 * registered methods: the value is trimmed and upper-cased, DEFAULT stands
 * for the row's default, integers accept T... as 1 and F... as 0, numbers
 * must lie in the row's range and words among its choices.  For components
 * that keep a parameter table of their own (the adaptive trigger's
 * ADAPTIVE_* parameters) and want the same behaviour.  Not collective.
 * Input:  def, the row; value, as the user gave it.
 * Output: *out, unchanged on error; on error, msg (msg_cap bytes; may be
 *         NULL when msg_cap is 0) names the value and what is allowed, e.g.
 *         "ULBA_ALPHA = 1.7 is outside [0, 1)".
 * Returns ZOLTAN_OK; ZOLTAN_FATAL for a bad value, a value that does not fit
 * ZP_PARAM_VALUE_MAX, or a NULL def, value or out.
 */
ZP_API int zp_param_parse(const zp_param_def *def, const char *value, zp_param_parsed *out,
                          char *msg, size_t msg_cap);

/*
 * zp_param_allowed - the values a parameter row allows, as the parameter
 * reference and the error messages show them: for ZP_PARAM_STRING rows the
 * words ("A, B, C", or "any word" when the row takes any), for numeric rows
 * the range ("[0, 1)", "(-inf, 2]") followed by " or WORD" for each keyword.
 * Not collective.
 * Input:  def, the row (NULL gives an empty string).
 * Output: buf, cap bytes, always terminated when cap > 0; a long list is
 *         cut at a whole word.
 * Related: zp_param_parse, which checks a value against the same row.
 */
ZP_API void zp_param_allowed(const zp_param_def *def, char *buf, size_t cap);

/*
 * zp_error / zp_warn - print a Zoltan-style message,
 * "[rank] ZOLTAN ERROR in <where>: <text>", on stderr.  Not collective.
 */
ZP_API void zp_error(const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
ZP_API void zp_warn(const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* ZP_METHOD_H */
