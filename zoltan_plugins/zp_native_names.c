/* SPDX-License-Identifier: BSD-3-Clause */
/* What Zoltan itself owns: its LB_METHOD values and its parameter names,
 * which no registered method may take (zp_registry.c checks them). */
#include <string.h>

#include "zp_internal.h"

/* LB_METHOD values Zoltan 13.2 understands itself (lb_set_method.c); our
 * methods may not take these names, so that native methods always pass
 * through untouched. */
static const char *const zp_native_methods[] = {
    "BLOCK",  "CYCLIC", "RANDOM",     "RCB", "RIB",   "HSFC", "OCTPART",     "REFTREE", "PARMETIS",
    "SCOTCH", "GRAPH",  "HYPERGRAPH", "PHG", "PATOH", "HIER", "ZOLTAN_HIER", "NONE",    NULL};

int zp_is_native_method(const char *clean_name)
{
  size_t i;
  for (i = 0; zp_native_methods[i] != NULL; i++)
    if (strcmp(zp_native_methods[i], clean_name) == 0) return 1;
  return 0;
}

/* Every parameter name Zoltan knows, in strcmp order (binary search below).
 * The layer consumes the parameters of registered methods and never passes
 * them on, so a method that took one of these names would silently take it
 * away from Zoltan (NUM_GLOBAL_PARTS would stop reaching RCB).  The names
 * are those of the PARAM_VARS tables in Zoltan 13.2's sources
 * (packages/zoltan/src: key, malloc, RCB, RIB, HSFC, PHG, HIER, REFTREE,
 * RANDOM, ORDER, COLORING, ZG graph, third-party graph packages, ParMETIS,
 * Scotch, OVIS, timer, evaluation and dimension reduction; 120 names,
 * deprecated and optional ones included) and those the Zoltan User's Guide
 * still documents for methods no longer in the sources (Jostle, Octree,
 * ParMETIS's USE_OBJ_SIZE; 12 names): 132 in all.  A newer Zoltan may add
 * names; method prefixes (see zp_register_method) keep ours apart anyway. */
static const char *const zp_native_params[] = {
    "ADD_OBJ_WEIGHT",
    "AUTO_MIGRATE",
    "AVERAGE_CUTS",
    "CHECK_GEOM",
    "CHECK_GRAPH",
    "CHECK_HYPERGRAPH",
    "COLORING_METHOD",
    "COLORING_PROBLEM",
    "COMM_PATTERN",
    "COMM_WEIGHT_DIM",
    "DEBUG_LEVEL",
    "DEBUG_MEMORY",
    "DEBUG_PROCESSOR",
    "DEGENERATE_RATIO",
    "DETERMINISTIC",
    "EDGE_WEIGHT_DIM",
    "FINAL_OUTPUT",
    "GRAPH_BIPARTITE_TYPE",
    "GRAPH_BUILD_TYPE",
    "GRAPH_FAST_BUILD_BASE",
    "GRAPH_PACKAGE",
    "GRAPH_SYMMETRIZE",
    "GRAPH_SYM_WEIGHT",
    "HIER_ASSIST",
    "HIER_CHECKS",
    "HIER_DEBUG_LEVEL",
    "HIER_GENERATE_FILES",
    "HYBRID_REDUCTION_FACTOR",
    "HYBRID_REDUCTION_LEVELS",
    "HYPERGRAPH_PACKAGE",
    "IMBALANCE_TOL",
    "JOSTLE_CONNECT",
    "JOSTLE_GATHER_THRESHOLD",
    "JOSTLE_MATCHING",
    "JOSTLE_OUTPUT_LEVEL",
    "JOSTLE_REDUCTION",
    "JOSTLE_THRESHOLD",
    "KEEP_CUTS",
    "LB_APPROACH",
    "LB_METHOD",
    "MIGRATE_ONLY_PROC_CHANGES",
    "NUM_GID_ENTRIES",
    "NUM_GLOBAL_PARTITIONS",
    "NUM_GLOBAL_PARTS",
    "NUM_LID_ENTRIES",
    "NUM_LOCAL_PARTITIONS",
    "NUM_LOCAL_PARTS",
    "OBJ_WEIGHTS_COMPARABLE",
    "OBJ_WEIGHT_DIM",
    "OCT_DIM",
    "OCT_MAXOBJECTS",
    "OCT_METHOD",
    "OCT_MINOBJECTS",
    "OCT_OUTPUT_LEVEL",
    "ORDER_METHOD",
    "ORDER_TYPE",
    "OVIS_DLL",
    "OVIS_HELLO",
    "OVIS_MINVERSION",
    "OVIS_OUTPUT_LEVEL",
    "PARKWAY_SERPART",
    "PARMETIS_COARSE_ALG",
    "PARMETIS_FOLD",
    "PARMETIS_ITR",
    "PARMETIS_METHOD",
    "PARMETIS_OUTPUT_LEVEL",
    "PARMETIS_SEED",
    "PATOH_ALLOC_POOL0",
    "PATOH_ALLOC_POOL1",
    "PHG_BAL_TOL_ADJUSTMENT",
    "PHG_COARSENING_LIMIT",
    "PHG_COARSENING_METHOD",
    "PHG_COARSENING_METHOD_FAST",
    "PHG_COARSENING_NCANDIDATE",
    "PHG_COARSEPARTITION_METHOD",
    "PHG_CUT_OBJECTIVE",
    "PHG_DIRECT_KWAY",
    "PHG_EDGE_SCALING",
    "PHG_EDGE_SIZE_THRESHOLD",
    "PHG_EDGE_WEIGHT_OPERATION",
    "PHG_KEEP_TREE",
    "PHG_MATCH_EDGE_SIZE_THRESHOLD",
    "PHG_MULTILEVEL",
    "PHG_NPROC_EDGE",
    "PHG_NPROC_VERTEX",
    "PHG_OUTPUT_LEVEL",
    "PHG_PROCESSOR_REDUCTION_LIMIT",
    "PHG_RANDOMIZE_INPUT",
    "PHG_REFINEMENT_LOOP_LIMIT",
    "PHG_REFINEMENT_MAX_NEG_MOVE",
    "PHG_REFINEMENT_METHOD",
    "PHG_REFINEMENT_QUALITY",
    "PHG_REPART_MULTIPLIER",
    "PHG_USE_TIMERS",
    "PHG_VERTEX_SCALING",
    "PHG_VERTEX_VISIT_ORDER",
    "PLATFORM_NAME",
    "RANDOM_MOVE_FRACTION",
    "RANDOM_PIVOTS",
    "RCB_LOCK_DIRECTIONS",
    "RCB_MAX_ASPECT_RATIO",
    "RCB_MULTICRITERIA_NORM",
    "RCB_OUTPUT_LEVEL",
    "RCB_OVERALLOC",
    "RCB_RECOMPUTE_BOX",
    "RCB_RECTILINEAR_BLOCKS",
    "RCB_REUSE",
    "RCB_SET_DIRECTIONS",
    "RECOLORING_NUM_OF_ITERATIONS",
    "RECOLORING_PERMUTATION",
    "RECOLORING_TYPE",
    "REDUCE_DIMENSIONS",
    "REFTREE_HASH_SIZE",
    "REFTREE_INITPATH",
    "REMAP",
    "RETURN_LISTS",
    "RIB_OUTPUT_LEVEL",
    "RIB_OVERALLOC",
    "SCATTER_GRAPH",
    "SCOTCH_METHOD",
    "SCOTCH_STRAT",
    "SCOTCH_STRAT_FILE",
    "SCOTCH_TYPE",
    "SEED",
    "SUPERSTEP_SIZE",
    "TFLOPS_SPECIAL",
    "TIMER",
    "TOPOLOGY",
    "USE_OBJ_SIZE",
    "USE_ORDER_INFO",
    "USE_TIMERS",
    "VERTEX_VISIT_ORDER",
};
#define ZP_NUM_NATIVE_PARAMS (sizeof zp_native_params / sizeof zp_native_params[0])

/* Index of the first name of zp_native_params not ordered before s. */
static size_t zp_native_lower_bound(const char *s)
{
  size_t lo = 0, hi = ZP_NUM_NATIVE_PARAMS;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(zp_native_params[mid], s) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Is the cleaned name one of Zoltan's parameters? */
int zp_is_native_param(const char *clean_name)
{
  size_t i = zp_native_lower_bound(clean_name);
  return i < ZP_NUM_NATIVE_PARAMS && strcmp(zp_native_params[i], clean_name) == 0;
}

/* The first Zoltan parameter name that starts with prefix, or NULL (names
 * sharing a prefix are adjacent in strcmp order). */
const char *zp_native_param_with_prefix(const char *prefix)
{
  size_t i = zp_native_lower_bound(prefix);
  if (i < ZP_NUM_NATIVE_PARAMS && strncmp(zp_native_params[i], prefix, strlen(prefix)) == 0)
    return zp_native_params[i];
  return NULL;
}

/* The binary search is only right on a sorted table: check it once. */
int zp_native_params_sorted(void)
{
  size_t i;
  for (i = 1; i < ZP_NUM_NATIVE_PARAMS; i++)
    if (strcmp(zp_native_params[i - 1], zp_native_params[i]) >= 0) return 0;
  return 1;
}
