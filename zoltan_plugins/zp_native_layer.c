/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zoltan's own methods under the layer's features (zp_layer_native): when
 * capacities, measured weights, a dump or the guard are on, the layer reads
 * and checks what they need, sets Zoltan's part sizes, runs Zoltan's method
 * on the application's struct and checks its answer against memory
 * capacities; otherwise a native method passes through untouched.
 */
#include <mpi.h>

#include "loaddb_core.h"
#include "zp_partition_internal.h"

/* The layer's features that change what a native method sees. */
static int zp_layer_features(const zp_record *r)
{
  return r != NULL && (zp_capacity_active(r) || zp_loaddb_mode(r) != LOADDB_CALLBACK ||
                       zp_edge_mode(r) != LOADDB_CALLBACK || zp_dump_active(r));
}

int zp_layer_active(const zp_record *r) { return zp_layer_features(r) || zp_guard_on(r); }

/* What zp_layer_native does before Zoltan's call; *sizes_given is 1 when
 * Zoltan's part sizes were replaced.  Collective; the outcome is agreed. */
static int zp_layer_prepare(zp_context *c, const char *method, int *sizes_given)
{
  zp_record *r = c->r;
  int warn = 0;
  /* Both steps return the same code on every rank. */
  int ierr = zp_step_agreed(c, zp_read_settings(c), &warn, "zp_read_settings");
  if (ierr >= 0) ierr = zp_step_agreed(c, zp_build_part_dist(c), &warn, "zp_build_part_dist");
  if (ierr >= 0) ierr = zp_build_part_sizes(c);
  /* Capacity settings that differ between ranks fail on every rank
   * (zp_read_settings found it, so every rank knows). */
  if (ierr >= 0 && (zp_capacity_active(r) || !c->cap_same)) ierr = zp_capacity_apply(c);
  /* The objects are read once more only when measured weights, a dump or
   * memory capacities need them. */
  if (ierr >= 0 && (zp_loaddb_mode(r) != LOADDB_CALLBACK || zp_edge_mode(r) != LOADDB_CALLBACK ||
                    zp_dump_active(r) || c->mem_limit != NULL))
    ierr = zp_agree(c, zp_gather_objects(c));
  if (ierr >= 0) ierr = zp_loaddb_apply(c);
  if (ierr >= 0) ierr = zp_agree(c, zp_memory_bound(c));
  if (ierr >= 0 && zp_capacity_active(r)) {
    ierr = zp_agree(c, zp_native_set_sizes(c, c->part_sizes));
    *sizes_given = 1;
  }
  /* Measured edge weights are computed when the graph is read. */
  if (ierr >= 0 && zp_edge_mode(r) != LOADDB_CALLBACK)
    ierr = zp_gather_inputs(c, ZP_WANTS_GRAPH, "EDGE_WEIGHT_SOURCE");
  if (ierr >= 0 && zp_dump_active(r)) ierr = zp_dump_write(c, method);
  return ierr;
}

int zp_layer_native(zp_record *r, const char *method, int is_balance, zp_lb_args *a)
{
  zp_context c;
  int ierr = ZOLTAN_OK, sizes_given = 0;
  zp_ctx_init(&c, r, is_balance);
  /* Nothing half-built reaches the application after an error. */
  *a->changes = 0;
  *a->num_import = *a->num_export = -1;
  *a->import_gids = *a->import_lids = *a->export_gids = *a->export_lids = NULL;
  *a->import_procs = *a->export_procs = NULL;
  if (a->import_to_part != NULL) *a->import_to_part = NULL;
  if (a->export_to_part != NULL) *a->export_to_part = NULL;
  /* The guard reads first, so that the features below read the
   * application's data through it and every callback runs once. */
  if (zp_guard_on(r)) ierr = zp_guard_begin(&c, method != NULL ? method : "RCB");
  if (ierr >= 0 && zp_layer_features(r))
    ierr = zp_layer_prepare(&c, method != NULL ? method : "RCB", &sizes_given);
  if (ierr >= 0) ierr = is_balance ? zp_real_lb_balance(r->zz, a) : zp_real_lb_partition(r->zz, a);
  if (sizes_given) zp_native_restore_sizes(r);
  /* Zoltan's answer is checked against memory capacities (zp_memory.c),
   * when it succeeded on every rank. */
  if (c.mem_limit != NULL) {
    int all = ierr;
    MPI_Allreduce(&ierr, &all, 1, MPI_INT, MPI_MIN, r->comm);
    if (all >= 0 && zp_memory_check_lists(&c, a) == ZOLTAN_WARN && ierr == ZOLTAN_OK)
      ierr = ZOLTAN_WARN;
  }
  /* Gives the application its callbacks back (zp_loaddb_release). */
  zp_ctx_free(&c);
  return ierr;
}
