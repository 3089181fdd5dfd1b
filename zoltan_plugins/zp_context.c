/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-call context of the partition path: its settings, the agreement
 * of return codes over ranks, and the accessors a distributed method uses.
 */
#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"

void zp_ctx_init(zp_context *c, zp_record *r, int is_balance)
{
  memset(c, 0, sizeof *c);
  c->r = r;
  c->is_balance = is_balance;
  c->yo = is_balance ? "Zoltan_LB_Balance" : "Zoltan_LB_Partition";
}

long zp_ctx_find_local(const zp_context *c, const ZOLTAN_ID_TYPE *gid)
{
  if (c->local_map == NULL) {
    /* The table is a cache of the call's own IDs: building it does not
     * change what the context holds, hence the cast. */
    zp_context *m = (zp_context *)c;
    m->local_map = calloc(1, sizeof *m->local_map);
    if (m->local_map == NULL) return -2;
    if (zp_gidmap_build(m->local_map, c->gids, (size_t)c->n, c->ngid) != ZOLTAN_OK) {
      zp_gidmap_free(m->local_map);
      free(m->local_map);
      m->local_map = NULL;
      return -2;
    }
  }
  return zp_gidmap_find(c->local_map, gid);
}

void zp_ctx_free(zp_context *c)
{
  if (c->local_map != NULL) zp_gidmap_free(c->local_map);
  free(c->local_map);
  c->local_map = NULL;
  zp_base_lists_free(c->base_lists);
  c->base_lists = NULL;
  zp_loaddb_release(c);
  zp_loaddb_edges_release(c);
  /* Last: the load database's callbacks stand in front of the guard's. */
  zp_guard_end(c);
  /* in_parts is parts itself unless some part was outside the known ones. */
  void *kept[] = {c->gids,  c->lids, c->w, c->parts, c->in_parts != c->parts ? c->in_parts : NULL,
                  c->coords};
  void *arrays[] = {c->tol,   c->pdist,     c->part_sizes, c->nedges,    c->nbr,
                    c->ewgts, c->nbr_procs, c->hg_pairs,   c->mem_limit, c->sizes};
  size_t i;
  for (i = 0; i < sizeof kept / sizeof kept[0]; i++) zp_ctx_array_free(c, kept[i]);
  for (i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
  if (c->pooled) c->r->local_pool_busy = 0;
  c->pooled = 0;
}

unsigned zp_method_needs(const zp_method *m, const zp_params *params)
{
  return m->needs_for != NULL ? m->needs_for(params) : m->needs;
}

static int zp_return_lists_value(const char *v)
{
  if (v == NULL) return ZP_RL_ALL;
  if (strcmp(v, "NONE") == 0) return ZP_RL_NONE;
  if (strcmp(v, "IMPORT") == 0) return ZP_RL_IMPORT;
  if (strcmp(v, "EXPORT") == 0) return ZP_RL_EXPORT;
  if (strcmp(v, "ALL") == 0 || strcmp(v, "IMPORT AND EXPORT") == 0) return ZP_RL_ALL;
  if (strcmp(v, "PARTS") == 0 || strcmp(v, "PART ASSIGNMENTS") == 0 ||
      strcmp(v, "PARTITION ASSIGNMENTS") == 0)
    return ZP_RL_PARTS;
  if (strcmp(v, "CANDIDATE_LISTS") == 0) return ZP_RL_CANDIDATES;
  return ZP_RL_ALL;
}

int zp_read_settings(zp_context *c)
{
  zp_record *r = c->r;
  /* Settings that decide which collectives run: every rank must use the
   * same value, or one rank waits for ever in a collective the others
   * skip (a debug print's reduction, a gather of a second weight).  The
   * first five take the largest value over ranks, as Zoltan does for the
   * ID lengths (DEBUG_LEVEL only prints, DEBUG_PROCESSOR the smallest);
   * for the rest a difference is the application's error, named here. */
  static const char *const names[] = {"NUM_GID_ENTRIES", "NUM_LID_ENTRIES", "RETURN_LISTS",
                                      "DEBUG_LEVEL",     "DEBUG_PROCESSOR", "OBJ_WEIGHT_DIM",
                                      "EDGE_WEIGHT_DIM", "AUTO_MIGRATE",    "REMAP"};
  enum { NSET = 9, FIRST_STRICT = 5 };
  /* After the settings and the tolerances' memory: what the next steps
   * would each reduce on their own (zp_build_part_dist, zp_build_part_sizes,
   * zp_capacity_apply), as maxima too: one collective instead of four. */
  enum { X_NGP_SET = 2 * NSET + 1, X_NLP_SET, X_NGP, X_PSIZES, X_CAP, NALL = X_CAP + 6 };
  long long local[NALL], global[NALL];
  int d, i, wdim_here, key[3], ngp = zp_record_native_int(r, "NUM_GLOBAL_PARTS", -1);
  local[0] = zp_record_native_int(r, "NUM_GID_ENTRIES", 1);
  local[1] = zp_record_native_int(r, "NUM_LID_ENTRIES", 1);
  local[2] = zp_return_lists_value(zp_record_native_get(r, "RETURN_LISTS", -1));
  local[3] = zp_record_native_int(r, "DEBUG_LEVEL", 1);
  local[4] = -zp_record_native_int(r, "DEBUG_PROCESSOR", 0);
  local[5] = zp_record_native_int(r, "OBJ_WEIGHT_DIM", 0);
  local[6] = zp_record_native_int(r, "EDGE_WEIGHT_DIM", 0);
  local[7] = zp_record_native_int(r, "AUTO_MIGRATE", 0);
  local[8] = zp_record_native_int(r, "REMAP", 1);
  /* One reduction: the largest values, and the largest negated values
   * (the smallest), in 64 bits, where no int's negation overflows. */
  for (i = 0; i < NSET; i++) local[NSET + i] = -local[i];
  /* The tolerances' array too, before the reduction, so that a rank
   * without the memory is known everywhere from it: OBJ_WEIGHT_DIM must be
   * the same on every rank, so this rank's value is the one used. */
  wdim_here = local[5] > 0 ? (int)local[5] : 1;
  c->tol = malloc((size_t)wdim_here * sizeof *c->tol);
  local[2 * NSET] = c->tol == NULL;
  local[X_NGP_SET] = ngp != -1;
  local[X_NLP_SET] = zp_record_native_int(r, "NUM_LOCAL_PARTS", -1) != -1;
  local[X_NGP] = ngp;
  local[X_PSIZES] = r->n_psizes > 0;
  zp_capacity_key(r, key);
  for (i = 0; i < 3; i++) {
    local[X_CAP + 2 * i] = key[i];
    local[X_CAP + 2 * i + 1] = -(long long)key[i];
  }
  MPI_Allreduce(local, global, NALL, MPI_LONG_LONG, MPI_MAX, r->comm);
  c->ngp_set = (int)global[X_NGP_SET];
  c->nlp_set = (int)global[X_NLP_SET];
  c->ngp_max = (int)global[X_NGP];
  c->psizes_set = (int)global[X_PSIZES];
  c->cap_same = 1;
  for (i = 0; i < 3; i++) c->cap_same &= global[X_CAP + 2 * i] == -global[X_CAP + 2 * i + 1];
  c->settings_read = 1;
  for (i = FIRST_STRICT; i < NSET; i++)
    if (global[i] != -global[NSET + i]) {
      if (r->rank == 0)
        zp_error(c->yo,
                 "%s is %lld on some ranks and %lld on others; every rank must set the same value",
                 names[i], -global[NSET + i], global[i]);
      return ZOLTAN_FATAL;
    }
  c->ngid = (int)global[0];
  c->nlid = (int)global[1];
  c->return_lists = (int)global[2];
  c->debug_level = (int)global[3];
  c->debug_proc = (int)-global[4];
  c->obj_wgt_dim = (int)global[5];
  c->wdim = c->obj_wgt_dim > 0 ? c->obj_wgt_dim : 1;
  c->edge_wgt_dim = (int)global[6];
  c->auto_migrate = (int)global[7];
  c->remap = (int)global[8];
  if (global[2 * NSET]) {
    zp_error(c->yo, "out of memory for %d imbalance tolerances", c->wdim);
    return ZOLTAN_MEMERR;
  }
  for (d = 0; d < c->wdim; d++) c->tol[d] = zp_record_native_double(r, "IMBALANCE_TOL", d, 1.1);
  /* A native method (r->method NULL) answers CANDIDATE_LISTS itself. */
  if (c->return_lists == ZP_RL_CANDIDATES && r->method != NULL) {
    zp_error(c->yo,
             "RETURN_LISTS = CANDIDATE_LISTS is for matching methods; LB_METHOD %s does not "
             "produce candidates",
             r->method->name);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* ---- services for distributed methods (zp_context.h) --------------------- */

int zp_ctx_num_local(const zp_context *c) { return c->n; }
int zp_ctx_num_gid_entries(const zp_context *c) { return c->ngid; }
const ZOLTAN_ID_TYPE *zp_ctx_local_gids(const zp_context *c) { return c->gids; }
int zp_ctx_wgt_dim(const zp_context *c) { return c->wdim; }
const double *zp_ctx_local_wgts(const zp_context *c) { return c->w; }
const int *zp_ctx_local_parts(const zp_context *c) { return c->parts; }
int zp_ctx_num_parts(const zp_context *c) { return c->nparts; }
const double *zp_ctx_part_sizes(const zp_context *c) { return c->part_sizes; }
const double *zp_ctx_imbalance_tol(const zp_context *c) { return c->tol; }
MPI_Comm zp_ctx_comm(const zp_context *c) { return c->r->comm; }

int zp_ctx_parts_are_ranks(const zp_context *c)
{
  return c->pdist == NULL && c->nparts == c->r->size;
}

int zp_ctx_local_coords(const zp_context *c, int *dim, const double **coords)
{
  if (c->gdim <= 0 || (c->coords == NULL && c->n > 0)) return 0;
  *dim = c->gdim;
  *coords = c->coords;
  return 1;
}

int zp_ctx_local_graph(const zp_context *c, const int **nedges, const int **nbr_procs,
                       const double **ewgts, int *ewgt_dim)
{
  if (!c->has_graph || c->nedges == NULL) return 0;
  *nedges = c->nedges;
  *nbr_procs = c->nbr_procs;
  *ewgts = c->edge_wgt_dim > 0 ? c->ewgts : NULL;
  *ewgt_dim = c->edge_wgt_dim;
  return 1;
}
int zp_ctx_local_nbr_gids(const zp_context *c, const ZOLTAN_ID_TYPE **nbr)
{
  if (!c->has_graph || c->nedges == NULL) return 0;
  *nbr = c->nbr;
  return 1;
}
int zp_ctx_local_sizes(const zp_context *c, const double **sizes)
{
  if (c->sizes == NULL) return 0;
  *sizes = c->sizes;
  return 1;
}
const zp_params *zp_ctx_params(const zp_context *c) { return c->r->params; }
struct Zoltan_Struct *zp_ctx_zz(const zp_context *c) { return c->r->zz; }
int zp_ctx_debug_level(const zp_context *c) { return c->debug_level; }
int zp_ctx_debug_proc(const zp_context *c) { return c->debug_proc; }
int zp_ctx_callback_error(const zp_context *c) { return c->cb_failed; }

void zp_ctx_keep_base_lists(zp_context *c, int keep)
{
  if (c != NULL) c->keep_base_lists = keep != 0;
}
unsigned zp_ctx_inputs(const zp_context *c)
{
  return (c->coords != NULL ? ZP_WANTS_GEOM : 0u) | (c->has_graph ? ZP_WANTS_GRAPH : 0u);
}
int zp_ctx_gather_inputs(zp_context *c, unsigned flags, const char *who)
{
  return zp_gather_inputs(c,
                          flags & (ZP_NEEDS_GEOM | ZP_WANTS_GEOM | ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH),
                          who != NULL ? who : c->yo);
}
int zp_ctx_gather_dump(zp_context *c, const char *why, struct loaddb_dump *d, size_t **perm)
{
  return zp_dump_gather(c, c->r->method->name, why != NULL ? why : c->yo, 0, d, perm);
}
const char *zp_ctx_where(const zp_context *c) { return c->yo; }
const char *zp_ctx_lb_approach(const zp_context *c)
{
  return zp_record_native_get(c->r, "LB_APPROACH", -1);
}
