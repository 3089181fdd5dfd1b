/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The layer's own parameters, which apply whatever LB_METHOD is: the
 * capacity model (zp_capacity.c), the load database (zp_loaddb.c),
 * hierarchical balancing (zp_hier.c), the guard of native methods
 * (zp_guard.c) and the kept buffers' pages (zp_record.c).  They
 * live apart from the code that uses them so that the parameter code (and
 * its fuzz harness) can know them without the partition path.
 */
#include <stddef.h>

#include "zp_internal.h"

const char *const zp_capacity_modes[] = {"UNIFORM",   "STATIC",   "VALUE",
                                         "BENCHMARK", "MEASURED", NULL};
static const char *const cap_env_word[] = {"ENV", NULL};

static const zp_param_def cap_params[] = {
    {"CAPACITY", ZP_PARAM_STRING, "UNIFORM", 0, 0, 0, zp_capacity_modes,
     "where each rank's relative speed comes from; UNIFORM = all equal (nothing changes)"},
    {"CAPACITY_FILE", ZP_PARAM_STRING, "", 0, 0, ZP_PARAM_KEEP_CASE, NULL,
     "STATIC, CAPACITY_MEMORY_DIM: file of 'KEY SPEED [MEMORY]' lines, KEY = rank number, host "
     "name or *; MEMORY = what the rank can hold of the memory weight"},
    {"CAPACITY_VALUE", ZP_PARAM_DOUBLE, "ENV", 0, 0, ZP_PARAM_MIN_OPEN | ZP_PARAM_NO_MAX,
     cap_env_word, "VALUE: this rank's speed; ENV = read " ZP_CAPACITY_ENV},
    {"CAPACITY_BENCHMARK_SECONDS", ZP_PARAM_DOUBLE, "0.05", 0, 2, ZP_PARAM_MIN_OPEN, NULL,
     "BENCHMARK: how long the kernel runs at the first balance, seconds"},
    {"CAPACITY_SMOOTHING", ZP_PARAM_DOUBLE, "0.5", 0, 1, ZP_PARAM_MIN_OPEN, NULL,
     "MEASURED: weight of a new measurement in the running average"},
    {"CAPACITY_DEADBAND", ZP_PARAM_DOUBLE, "0.05", 0, 1, ZP_PARAM_MAX_OPEN, NULL,
     "MEASURED: relative change below which a capacity stays as it was"},
    {"CAPACITY_LOADAVG", ZP_PARAM_INT, "0", 0, 1, 0, NULL,
     "1 = divide each capacity by 1 + the external load per rank of its host"},
    {"CAPACITY_MEMORY_DIM", ZP_PARAM_INT, "-1", -1, 31, 0, NULL,
     "the object weight (0 = first) that is the memory an object needs; parts then stay within "
     "the MEMORY of CAPACITY_FILE (a warning names a part that cannot); -1 = no memory limits"},
    {"CAPACITY_LOADAVG_FILE", ZP_PARAM_STRING, "/proc/loadavg", 0, 0, ZP_PARAM_KEEP_CASE, NULL,
     "CAPACITY_LOADAVG: file whose first number is the load average; %r = rank"},
};

static const zp_method cap_layer = {
    .abi = ZP_METHOD_ABI,
    .name = "CAPACITY",
    .summary = "The layer's capacity model (any LB_METHOD, ours or Zoltan's): part sizes in "
               "proportion to each rank's speed",
    .params = cap_params,
    .num_params = sizeof cap_params / sizeof cap_params[0],
    .param_prefix = "CAPACITY_",
};

const char *const zp_loaddb_sources[] = {"CALLBACK", "MEASURED", "BOTH", NULL};

static const zp_param_def ldb_params[] = {
    {"OBJ_WEIGHT_SOURCE", ZP_PARAM_STRING, "CALLBACK", 0, 0, 0, zp_loaddb_sources,
     "what methods balance: CALLBACK = the weight callbacks; MEASURED = the loads reported "
     "through adaptive_report_objects (unmeasured objects get the mean); BOTH = measured where "
     "reported, callback weights scaled to measured units elsewhere"},
    {"OBJ_WEIGHT_WINDOW", ZP_PARAM_INT, "3", 1, 1000, 0, NULL,
     "MEASURED, BOTH: an object's weight is the mean of its reports over the newest this many "
     "steps since the last balance (the trigger keeps ADAPTIVE_OBJ_HISTORY of them, default 4)"},
    {"EDGE_WEIGHT_SOURCE", ZP_PARAM_STRING, "CALLBACK", 0, 0, 0, zp_loaddb_sources,
     "what graph methods see as edge weights: CALLBACK = the edge callbacks; MEASURED = the "
     "communication reported through adaptive_report_comm (edge {a, b} weighs a -> b plus "
     "b -> a; unmeasured edges get the mean); BOTH = measured where reported, callback weights "
     "scaled to measured units elsewhere"},
    {"LB_DUMP_FILE", ZP_PARAM_STRING, "", 0, 0, ZP_PARAM_KEEP_CASE, NULL,
     "file to which rank 0 appends, at every balance, the objects, weights, parts, coordinates "
     "and edges the method saw (docs/loaddb.md); empty = none"},
    {"LB_HINTS_FILE", ZP_PARAM_STRING, "", 0, 0, ZP_PARAM_KEEP_CASE, NULL,
     "LB_METHOD=AUTO: file read at the first balance (its method is used when it applies) and "
     "rewritten by rank 0 at every AUTO decision with the traits measured and the choice "
     "(docs/loaddb.md); empty = none"},
};

static const zp_method ldb_layer = {
    .abi = ZP_METHOD_ABI,
    .name = "LOADDB",
    .summary = "The layer's load database (any LB_METHOD, ours or Zoltan's): measured object "
               "loads as weights, and dumps of every balance for zp_lbsim",
    .params = ldb_params,
    .num_params = sizeof ldb_params / sizeof ldb_params[0],
    .param_prefix = "LOADDB_",
};

static const char *const guard_env_word[] = {"ENV", NULL};

static const zp_param_def guard_params[] = {
    {"ZOLTAN_PLUGINS_GUARD", ZP_PARAM_INT, "ENV", 0, 1, 0, guard_env_word,
     "1 = a callback that fails on some ranks is an error on every rank instead of a hang: "
     "before a native method (RCB, RIB, HSFC, BLOCK, RANDOM, GRAPH, PHG) runs, the callbacks it "
     "reads are called once and agreed on; Zoltan_Migrate agrees on pre-migration callbacks "
     "and sizes before data moves and carries pack, unpack, mid- and post-migration failures to "
     "its end; 0 = hand the calls to Zoltan as they are; ENV = read " ZP_GUARD_ENV
     " (0 or 1), off when unset"},
};

static const zp_method guard_layer = {
    .abi = ZP_METHOD_ABI,
    .name = "GUARD",
    .summary = "The layer's guard of Zoltan's own methods and of Zoltan_Migrate: callback "
               "errors agreed on every rank",
    .params = guard_params,
    .num_params = sizeof guard_params / sizeof guard_params[0],
    .param_prefix = "GUARD_",
};

static const zp_param_def mem_params[] = {
    {"ZOLTAN_PLUGINS_HUGE_PAGES", ZP_PARAM_INT, "1", 0, 1, 0, NULL,
     "1 = the buffers the layer keeps between balances, from 2 MiB up, are backed by the "
     "kernel's transparent huge pages (madvise; fewer page faults on a struct's first balance, "
     "up to a sixteenth more resident memory in those buffers); 0 = small pages only"},
};

static const zp_method mem_layer = {
    .abi = ZP_METHOD_ABI,
    .name = "MEMORY",
    .summary = "The layer's kept buffers: how their memory is mapped",
    .params = mem_params,
    .num_params = sizeof mem_params / sizeof mem_params[0],
    .param_prefix = "MEMORY_",
};

static const zp_param_def hier_params[] = {
    {"HIERARCHY", ZP_PARAM_STRING, "AUTO", 0, 0, 0, NULL,
     "centralised methods that can (GREEDY, REFINE, GREEDYREFINE, SCOTCHLB, and ULBA or AUTO over "
     "them) "
     "run by groups of ranks instead of on one root: NONE = one root; NODE = one group per "
     "shared-memory node; g1,g2,... = groups of g1 ranks, groups of g2 such groups, ...; AUTO = "
     "one root below HIERARCHY_MIN_RANKS ranks and HIERARCHY_MAX_BYTES, else groups from "
     "TOPOLOGY when set, or of HIERARCHY_FAN (docs/hierarchy.md)"},
    {"HIERARCHY_MIN_RANKS", ZP_PARAM_INT, "1024", 2, 0, ZP_PARAM_NO_MAX, NULL,
     "AUTO: the rank count from which groups are used"},
    {"HIERARCHY_MAX_BYTES", ZP_PARAM_DOUBLE, "2e9", 0, 0, ZP_PARAM_MIN_OPEN | ZP_PARAM_NO_MAX, NULL,
     "AUTO: groups are used when one root would receive more than this many bytes (global "
     "IDs, weights, parts and ranks of every object)"},
    {"HIERARCHY_FAN", ZP_PARAM_INT, "64", 2, 1000000, 0, NULL,
     "AUTO without TOPOLOGY: ranks per group, and groups per group above"},
};

static const zp_method hier_layer = {
    .abi = ZP_METHOD_ABI,
    .name = "HIERARCHY",
    .summary = "The layer's hierarchical balancing (centralised methods of ours): groups of "
               "ranks balanced on their own roots, surplus moved between groups as tokens",
    .params = hier_params,
    .num_params = sizeof hier_params / sizeof hier_params[0],
    .param_prefix = "HIERARCHY_",
};

const zp_method *zp_layer_params(void) { return &cap_layer; }

const zp_method *zp_layer_param_group(size_t i)
{
  static const zp_method *const groups[] = {&cap_layer, &ldb_layer, &hier_layer, &guard_layer,
                                            &mem_layer};
  return i < sizeof groups / sizeof groups[0] ? groups[i] : NULL;
}
