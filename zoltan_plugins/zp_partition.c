/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What Zoltan_LB_Partition does around a method, for our methods: read the
 * settings recorded from Zoltan_Set_Param, distribute parts to processes as
 * Zoltan does, gather the application's objects through its callbacks,
 * check them, run the method, and answer with Zoltan's own lists (and
 * Zoltan_Migrate when AUTO_MIGRATE is set).  Each step lives in its own
 * file (see zp_partition_internal.h); this one puts them in order.
 *
 * Errors are collective: every step ends with an agreement, or hands its
 * local outcome to the next step's reduction (the fixed objects' step to
 * the answer's), so that no rank waits in a collective that the others
 * skipped.
 */
#include <stdio.h>
#include <stdlib.h>

#include "loaddb_core.h"
#include "zp_partition_internal.h"

/* The objects, and the array of their new parts (c->n + 1 entries in
 * *new_part) that the method fills: both are local, so one agreement
 * covers them.  Collective. */
static int zp_objects_and_answer(zp_context *c, int **new_part, int *warn)
{
  int ierr = zp_gather_objects(c);
  if (ierr >= 0) {
    *new_part = malloc(((size_t)c->n + 1) * sizeof **new_part);
    if (*new_part == NULL) ierr = ZOLTAN_MEMERR;
  }
  return zp_agree_step(c, ierr, warn);
}

/* Settings, parts, objects and the inputs the method asks for, the
 * method's per-struct state, and the array of the objects' new parts.
 * Collective. */
static int zp_prepare(zp_context *c, zp_lb_args *a, int **new_part, int *warn)
{
  zp_record *r = c->r;
  const zp_method *m = r->method;
  char who[ZP_NAME_MAX + 16];
  /* The first four steps return the same code on every rank. */
  int ierr = zp_step_agreed(c, zp_read_settings(c), warn, "zp_read_settings");
  if (ierr < 0) return ierr;
  *a->num_gid_entries = c->ngid;
  *a->num_lid_entries = c->nlid;
  if (c->debug_level >= ZP_DEBUG_PARAMS && r->rank == c->debug_proc) zp_params_print(r->params, m);
  ierr = zp_step_agreed(c, zp_build_part_dist(c), warn, "zp_build_part_dist");
  if (ierr >= 0) ierr = zp_step_agreed(c, zp_build_part_sizes(c), warn, "zp_build_part_sizes");
  if (ierr >= 0) ierr = zp_step_agreed(c, zp_capacity_apply(c), warn, "zp_capacity_apply");
  if (ierr >= 0) ierr = zp_objects_and_answer(c, new_part, warn);
  /* The load database and the memory bound run only when their settings
   * (the same on every rank) ask for them; otherwise there is nothing to
   * agree on. */
  if (ierr >= 0 && zp_loaddb_mode(r) != LOADDB_CALLBACK)
    ierr = zp_agree_step(c, zp_loaddb_apply(c), warn);
  if (ierr >= 0 && c->mem_limit != NULL) ierr = zp_agree_step(c, zp_memory_bound(c), warn);
  c->needs = zp_method_needs(m, r->params);
  snprintf(who, sizeof who, "LB_METHOD %s", m->name);
  /* The inputs agree inside (every ask is agreed); only measured edge
   * weights, installed as the graph is read, may fail on one rank. */
  if (ierr >= 0 && zp_edge_mode(r) == LOADDB_CALLBACK)
    ierr = zp_step_agreed(c, zp_gather_inputs(c, c->needs, who), warn, "zp_gather_inputs");
  else if (ierr >= 0)
    ierr = zp_agree_step(c, zp_gather_inputs(c, c->needs, who), warn);
  /* Measured edge weights are installed when the graph is read: read it
   * now, so that a native base method sees them too. */
  if (ierr >= 0 && zp_edge_mode(r) != LOADDB_CALLBACK)
    ierr = zp_agree_step(c, zp_gather_inputs(c, ZP_WANTS_GRAPH, "EDGE_WEIGHT_SOURCE"), warn);
  if (ierr >= 0 && zp_dump_active(r)) ierr = zp_agree_step(c, zp_dump_write(c, m->name), warn);
  if (ierr >= 0 && m->create != NULL && r->state_owner != m) {
    int e = m->create(&r->state);
    if (e == ZOLTAN_OK) r->state_owner = m;
    ierr = zp_agree_step(c, e, warn);
  }
  return ierr;
}

/* For a method with both partition functions: whether this call runs the
 * distributed one.  Every rank asks use_parallel with the same figures, and
 * the answers are agreed all the same (a method that broke the rule would
 * otherwise split the ranks between a gather and a distributed run).
 * Collective when the method has both functions. */
static int zp_choose_parallel(zp_context *c)
{
  const zp_method *m = c->r->method;
  double mine = (double)c->n, all = 0.0;
  int want, any, every;
  if (m->partition_parallel == NULL) return 0;
  if (m->partition_serial == NULL) return 1;
  /* A hypergraph read as a graph (ZP_GRAPH_FROM_HYPERGRAPH) exists only as
   * the root's clique model: a distributed run would see no edges. */
  if (c->hg_as_graph) return 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, c->r->comm);
  want = m->use_parallel(c->r->params, all, c->r->size,
                         zp_record_native_get(c->r, "LB_APPROACH", -1), c->r->state) != 0;
  MPI_Allreduce(&want, &any, 1, MPI_INT, MPI_MAX, c->r->comm);
  MPI_Allreduce(&want, &every, 1, MPI_INT, MPI_MIN, c->r->comm);
  if (any != every && c->r->rank == ZP_ROOT)
    zp_warn(c->yo, "method %s: use_parallel answered differently on different ranks; gathering",
            m->name);
  return every;
}

/* The method itself: centralised on one rank, or distributed on all, with
 * its answer checked.  new_part (from zp_prepare) receives the new part of
 * each local object.  Objects the application fixed to a part end there,
 * whatever the method (zp_fixed.c): that step is local, and the answer's
 * reduction agrees on it (c->pending).  Collective. */
static int zp_run_method(zp_context *c, int *new_part, int *warn)
{
  const zp_method *m = c->r->method;
  int ierr, i;
  if (m->partition_serial != NULL && !zp_choose_parallel(c)) {
    /* zp_run_serial already agreed on its outcome (it checks the parts on
     * the root); keep its warning. */
    ierr = zp_run_central(c, new_part);
    if (ierr == ZOLTAN_WARN) *warn = 1;
  } else {
    ierr = m->partition_parallel(c, c->r->state, new_part);
    for (i = 0; ierr >= 0 && i < c->n; i++) {
      if (new_part[i] < 0 || new_part[i] >= c->nparts) {
        zp_error(c->yo, "method %s assigned an object to part %d, outside [0, %d)", m->name,
                 new_part[i], c->nparts);
        ierr = ZOLTAN_FATAL;
      }
    }
    ierr = zp_agree_step(c, ierr, warn);
  }
  if (ierr >= 0) c->pending = zp_fixed_local(c, new_part, &c->fixed_applied);
  /* Memory capacities: a part still over its limit is named (zp_memory.c). */
  if (ierr >= 0 && zp_memory_check(c, new_part) == ZOLTAN_WARN) *warn = 1;
  return ierr < 0 ? ierr : ZOLTAN_OK;
}

int zp_partition(zp_record *r, int is_balance, zp_lb_args *a)
{
  zp_context ctx;
  int *new_part = NULL, warn = 0, ierr;
  double t0 = MPI_Wtime();

  zp_ctx_init(&ctx, r, is_balance);
  *a->changes = 0;
  *a->num_import = *a->num_export = 0;
  *a->import_gids = *a->import_lids = *a->export_gids = *a->export_lids = NULL;
  *a->import_procs = *a->import_to_part = *a->export_procs = *a->export_to_part = NULL;

  ierr = zp_prepare(&ctx, a, &new_part, &warn);
  if (ierr >= 0) ierr = zp_run_method(&ctx, new_part, &warn);
  if (ierr >= 0) ierr = zp_answer(&ctx, new_part, MPI_Wtime() - t0, a, &warn);
  if (ierr < 0) zp_discard_answer(a);
  free(new_part);
  zp_ctx_free(&ctx);
  return ierr == ZOLTAN_OK && warn ? ZOLTAN_WARN : ierr;
}
