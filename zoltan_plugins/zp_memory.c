/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory capacities (CAPACITY_MEMORY_DIM, Watts et al.'s second limit): one
 * weight of each object is the memory it needs, and the capacity file gives
 * each rank the memory it has.  Three steps, for every method:
 *   - before the method, the part sizes are capped so that a part planned
 *     to its size fits its memory when memory follows load (water filling,
 *     capacity_memory_bound): a method that balances towards sizes, ours or
 *     Zoltan's, then stays within the limits without knowing about them;
 *   - after a centralised method of ours, the root moves objects out of any
 *     part still over its limit (capacity_memory_repair);
 *   - after every method, ours or Zoltan's, the final assignment is checked
 *     and a part still over its limit is named in a warning: the limits
 *     cannot be met (not enough memory in total, or objects too large), or
 *     a method that does not honour sizes exactly went over.
 * The arithmetic is in capacity/capacity_memory.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capacity_core.h"
#include "zp_partition_internal.h"

/* The weight the repair keeps balanced: the first one that is not memory. */
static int zp_memory_load_dim(const zp_context *c)
{
  return c->mem_dim == 0 && c->wdim > 1 ? 1 : 0;
}

int zp_memory_bound(zp_context *c)
{
  double total = 0.0, tol, *lim = NULL, *keep = NULL;
  size_t bytes = (size_t)c->nparts * c->wdim * sizeof *keep;
  int i, rc;
  if (c->mem_limit == NULL) return ZOLTAN_OK;
  for (i = 0; i < c->n; i++) total += c->w[(size_t)i * c->wdim + c->mem_dim];
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, c->r->comm);
  if (!(total > 0.0) || !isfinite(total)) return ZOLTAN_OK;
  /* A method may fill a part up to its tolerance beyond its size: plan the
   * sizes with that room left under each limit, and without it only when
   * the room makes the limits impossible. */
  tol = c->tol != NULL && c->tol[c->mem_dim] > 1.0 ? c->tol[c->mem_dim] : 1.0;
  lim = malloc((size_t)c->nparts * sizeof *lim);
  keep = malloc(bytes);
  if (lim == NULL || keep == NULL) {
    free(lim);
    free(keep);
    return ZOLTAN_MEMERR;
  }
  memcpy(keep, c->part_sizes, bytes);
  for (i = 0; i < c->nparts; i++) lim[i] = c->mem_limit[i] / tol;
  rc = capacity_memory_bound(c->nparts, c->wdim, lim, total, c->part_sizes);
  if (rc == CAPACITY_WARN && tol > 1.0) {
    memcpy(c->part_sizes, keep, bytes);
    rc = capacity_memory_bound(c->nparts, c->wdim, c->mem_limit, total, c->part_sizes);
  }
  free(lim);
  free(keep);
  c->sizes_set = 1;
  if (rc < 0) {
    zp_error(c->yo, "internal error applying memory capacities (code %d)", rc);
    return rc == CAPACITY_ENOMEM ? ZOLTAN_MEMERR : ZOLTAN_FATAL;
  }
  if (rc == CAPACITY_WARN && c->r->rank == c->debug_proc)
    zp_warn(c->yo,
            "the objects need %g of memory (weight %d) but the parts' memory capacities "
            "(CAPACITY_FILE) hold less; every part will be over its limit by the same factor",
            total, c->mem_dim);
  return ZOLTAN_OK;
}

void zp_memory_repair_root(const zp_context *c, size_t N, const double *w, int *new_part)
{
  size_t moved = 0;
  if (c->mem_limit == NULL || N == 0) return;
  capacity_memory_repair(N, c->wdim, w, c->mem_dim, zp_memory_load_dim(c), c->nparts, c->part_sizes,
                         c->mem_limit, new_part, &moved, NULL);
  if (moved > 0 && c->debug_level >= ZP_DEBUG_PARAMS)
    printf("%s: %zu objects moved to keep parts within their memory capacities\n", c->yo, moved);
}

int zp_memory_check(const zp_context *c, const int *new_part)
{
  double *mem, worst_ratio = 1.0;
  int i, worst = -1, ierr;
  if (c->mem_limit == NULL) return ZOLTAN_OK;
  mem = calloc((size_t)c->nparts, sizeof *mem);
  ierr = zp_agree(c, mem != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr < 0) {
    free(mem);
    return ierr;
  }
  for (i = 0; i < c->n; i++)
    if (new_part[i] >= 0 && new_part[i] < c->nparts)
      mem[new_part[i]] += c->w[(size_t)i * c->wdim + c->mem_dim];
  MPI_Allreduce(MPI_IN_PLACE, mem, c->nparts, MPI_DOUBLE, MPI_SUM, c->r->comm);
  for (i = 0; i < c->nparts; i++) {
    double lim = c->mem_limit[i], ratio;
    if (!isfinite(lim) || mem[i] <= lim * (1.0 + 1e-12) + 1e-12) continue;
    ratio = lim > 0.0 ? mem[i] / lim : INFINITY;
    if (worst < 0 || ratio > worst_ratio) {
      worst = i;
      worst_ratio = ratio;
    }
  }
  if (worst >= 0 && c->r->rank == c->debug_proc)
    zp_warn(c->yo,
            "memory capacities cannot all be met: part %d holds %g of memory (weight %d), "
            "%.3gx its capacity %g from CAPACITY_FILE",
            worst, mem[worst], c->mem_dim, worst_ratio, c->mem_limit[worst]);
  free(mem);
  return worst >= 0 ? ZOLTAN_WARN : ZOLTAN_OK;
}

/* New part of each local object from the export lists: current part, or
 * the export's target.  Local. */
static int zp_memory_parts_from_lists(const zp_context *c, const zp_lb_args *a, int *new_part)
{
  int nexp = *a->num_export, i, ngid = *a->num_gid_entries;
  const int *to = a->export_to_part != NULL ? *a->export_to_part : *a->export_procs;
  zp_gidmap map = {NULL, 0, NULL, 0};
  for (i = 0; i < c->n; i++) new_part[i] = c->parts[i];
  if (nexp <= 0 || to == NULL || ngid != c->ngid) return ZOLTAN_OK;
  if (zp_gidmap_build(&map, c->gids, (size_t)c->n, c->ngid) != ZOLTAN_OK) {
    zp_gidmap_free(&map);
    return ZOLTAN_MEMERR;
  }
  for (i = 0; i < nexp; i++) {
    long k = zp_gidmap_find(&map, *a->export_gids + (size_t)i * ngid);
    if (k >= 0) new_part[k] = to[i];
  }
  zp_gidmap_free(&map);
  return ZOLTAN_OK;
}

int zp_memory_check_lists(zp_context *c, const zp_lb_args *a)
{
  int *new_part, ierr, have;
  if (c->mem_limit == NULL) return ZOLTAN_OK;
  /* Without export lists (RETURN_LISTS = IMPORT or NONE) the senders cannot
   * tell where their objects go: nothing to check. */
  have = *a->num_export >= 0;
  MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, c->r->comm);
  if (!have) return ZOLTAN_OK;
  new_part = malloc(((size_t)c->n + 1) * sizeof *new_part);
  ierr = zp_agree(c, new_part != NULL ? zp_memory_parts_from_lists(c, a, new_part) : ZOLTAN_MEMERR);
  if (ierr >= 0) ierr = zp_memory_check(c, new_part);
  free(new_part);
  return ierr;
}
