/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Step 2 of a centralised run (zp_serial.c), on the root: the gathered
 * objects in global-ID order, so that the answer depends neither on the
 * number of ranks nor on where the objects were.  Objects that arrive in
 * that order are used as they are; objects numbered lo..lo+N-1 go straight
 * to their place; any others are sorted (zp_sort_by_gid) and copied.
 */
#include <string.h>

#include "zp_serial_internal.h"

/* Whether the gathered IDs are strictly increasing: then they are in GID
 * order and unique, and nothing needs sorting (one pass; applications
 * usually number their objects in rank order). */
static int zp_serial_in_order(const zp_context *c, const zp_serial *s)
{
  return zp_gids_increase(s->gids, s->num_obj, c->ngid);
}

/* The owning rank of every object in arrival order. */
static void zp_serial_procs(const zp_context *c, const zp_serial *s, int *procs)
{
  int rank, j;
  size_t k = 0;
  for (rank = 0; rank < c->r->size; rank++)
    for (j = 0; j < s->counts[2 * rank]; j++) procs[k++] = rank;
}

/* How many rows ahead zp_serial_permute asks for the rows it will read:
 * enough to cover a miss to memory at a few nanoseconds per row. */
#define ZP_PERMUTE_AHEAD 16

/* The kept buffers of the copies in GID order. */
static int zp_serial_copies(const zp_context *c, zp_serial *s)
{
  size_t N = s->num_obj, g = (size_t)c->ngid, wd = (size_t)c->wdim, gd = (size_t)s->geom_dim;
  s->sorted_gids = zp_buf(c, ZP_SCR_S_GIDS, N * g, sizeof *s->sorted_gids);
  s->sorted_wgts = zp_buf(c, ZP_SCR_S_WGTS, N * wd, sizeof *s->sorted_wgts);
  s->sorted_parts = zp_buf(c, ZP_SCR_S_PARTS, N, sizeof *s->sorted_parts);
  if (gd > 0) s->sorted_coords = zp_buf(c, ZP_SCR_S_COORDS, N * gd, sizeof *s->sorted_coords);
  if (s->with_sizes) s->sorted_sizes = zp_buf(c, ZP_SCR_S_SIZES, N, sizeof *s->sorted_sizes);
  if (s->sorted_gids == NULL || s->sorted_wgts == NULL || s->sorted_parts == NULL ||
      (gd > 0 && s->sorted_coords == NULL) || (s->with_sizes && s->sorted_sizes == NULL))
    return ZOLTAN_MEMERR;
  return ZOLTAN_OK;
}

/* Copies of the gathered object arrays in GID order, when they arrived in
 * another. */
static int zp_serial_permute(const zp_context *c, zp_serial *s)
{
  size_t N = s->num_obj, k, g = (size_t)c->ngid, wd = (size_t)c->wdim, gd = (size_t)s->geom_dim;
  int *procs = zp_buf(c, ZP_SCR_TMP, N, sizeof *procs); /* the sort is done with it */
  if (procs == NULL || zp_serial_copies(c, s) < 0) return ZOLTAN_MEMERR;
  zp_serial_procs(c, s, procs);
  /* Element loops rather than memcpy: the rows are a few words, and a
   * call of memcpy per row was most of this copy.  The rows are read at
   * scattered places, so each is asked for ZP_PERMUTE_AHEAD rows early. */
  for (k = 0; k < N; k++) {
    size_t o = s->order[k], e;
    if (k + ZP_PERMUTE_AHEAD < N) {
      size_t a = s->order[k + ZP_PERMUTE_AHEAD];
      __builtin_prefetch(&s->gids[a * g]);
      __builtin_prefetch(&s->wgts[a * wd]);
      __builtin_prefetch(&s->parts[a]);
      __builtin_prefetch(&procs[a]);
      if (gd > 0) __builtin_prefetch(&s->coords[a * gd]);
    }
    for (e = 0; e < g; e++) s->sorted_gids[k * g + e] = s->gids[o * g + e];
    for (e = 0; e < wd; e++) s->sorted_wgts[k * wd + e] = s->wgts[o * wd + e];
    s->sorted_parts[k] = s->parts[o];
    s->sorted_procs[k] = procs[o];
    for (e = 0; e < gd; e++) s->sorted_coords[k * gd + e] = s->coords[o * gd + e];
    if (s->with_sizes) s->sorted_sizes[k] = s->sizes[o];
  }
  return ZOLTAN_OK;
}

/* Whether the single-entry IDs are exactly lo..lo+N-1 if none is given
 * twice (max - min == N - 1), with *lo their smallest. */
static int zp_serial_dense(const zp_context *c, const zp_serial *s, ZOLTAN_ID_TYPE *lo)
{
  size_t N = s->num_obj, k;
  ZOLTAN_ID_TYPE a, b;
  if (c->ngid != 1 || N == 0) return 0;
  a = b = s->gids[0];
  for (k = 1; k < N; k++) {
    ZOLTAN_ID_TYPE x = s->gids[k];
    a = x < a ? x : a;
    b = x > b ? x : b;
  }
  *lo = a;
  return b - a == (ZOLTAN_ID_TYPE)(N - 1);
}

/* Objects numbered lo..lo+N-1 (applications usually number them 0..N-1 or
 * 1..N), out of order: the object with ID lo + d is the d-th by GID, so
 * its place is known without a sort, and every row is written there while
 * the gathered arrays are read in sequence; the rows a few ahead are asked
 * for early.  The answer is the sort's (the IDs are unique, so a stable
 * sort puts them exactly there).  An ID met twice returns 0 with nothing
 * decided: the sort then runs and reports it.  1 when the copies are made,
 * ZOLTAN_MEMERR without memory. */
static int zp_serial_place_dense(const zp_context *c, zp_serial *s, ZOLTAN_ID_TYPE lo)
{
  size_t N = s->num_obj, k = 0, wd = (size_t)c->wdim, gd = (size_t)s->geom_dim, e, d;
  const ZOLTAN_ID_TYPE *id = s->gids;
  int rank, j;
  s->order = zp_buf(c, ZP_SCR_ORDER, N, sizeof *s->order);
  if (s->order == NULL || zp_serial_copies(c, s) < 0) return ZOLTAN_MEMERR;
  /* A rank of -1 marks a place not taken yet. */
  memset(s->sorted_procs, 0xff, N * sizeof *s->sorted_procs);
  for (rank = 0; rank < c->r->size; rank++)
    for (j = 0; j < s->counts[2 * rank]; j++, k++) {
      if (k + ZP_PERMUTE_AHEAD < N) {
        size_t a = (size_t)(id[k + ZP_PERMUTE_AHEAD] - lo);
        __builtin_prefetch(&s->sorted_wgts[a * wd], 1);
        __builtin_prefetch(&s->sorted_parts[a], 1);
        __builtin_prefetch(&s->sorted_procs[a], 1);
        __builtin_prefetch(&s->order[a], 1);
        if (gd > 0) __builtin_prefetch(&s->sorted_coords[a * gd], 1);
      }
      d = (size_t)(id[k] - lo);
      if (s->sorted_procs[d] >= 0) return 0;
      s->sorted_procs[d] = rank;
      s->order[d] = k;
      for (e = 0; e < wd; e++) s->sorted_wgts[d * wd + e] = s->wgts[k * wd + e];
      s->sorted_parts[d] = s->parts[k];
      for (e = 0; e < gd; e++) s->sorted_coords[d * gd + e] = s->coords[k * gd + e];
      if (s->with_sizes) s->sorted_sizes[d] = s->sizes[k];
    }
  for (d = 0; d < N; d++) s->sorted_gids[d] = lo + (ZOLTAN_ID_TYPE)d;
  return 1;
}

int zp_serial_sort(const zp_context *c, zp_serial *s)
{
  size_t N = s->num_obj, k;
  char g[ZP_GID_TEXT];
  ZOLTAN_ID_TYPE lo = 0;
  int ierr;
  s->sorted_procs = zp_buf(c, ZP_SCR_PROCS, N, sizeof *s->sorted_procs);
  if (s->sorted_procs == NULL) return ZOLTAN_MEMERR;
  if (zp_serial_in_order(c, s)) {
    s->sorted_gids = s->gids;
    s->sorted_wgts = s->wgts;
    s->sorted_parts = s->parts;
    s->sorted_coords = s->coords;
    s->sorted_sizes = s->sizes;
    zp_serial_procs(c, s, s->sorted_procs);
    return ZOLTAN_OK;
  }
  if (zp_serial_dense(c, s, &lo)) {
    ierr = zp_serial_place_dense(c, s, lo);
    if (ierr != 0) return ierr < 0 ? ierr : ZOLTAN_OK;
  }
  s->order = zp_buf(c, ZP_SCR_ORDER, N, sizeof *s->order);
  {
    /* The sort's scratch; zp_serial_permute reuses the slot afterwards. */
    size_t *tmp = zp_buf(c, ZP_SCR_TMP, N, sizeof *tmp);
    if (s->order == NULL || tmp == NULL) return ZOLTAN_MEMERR;
    for (k = 0; k < N; k++) s->order[k] = k;
    zp_sort_by_gid(s->order, tmp, N, s->gids, c->ngid);
  }
  ierr = zp_serial_permute(c, s);
  if (ierr < 0) return ierr;
  for (k = 1; k < N; k++) {
    if (zp_gid_cmp(s->sorted_gids + (k - 1) * c->ngid, s->sorted_gids + k * c->ngid, c->ngid) ==
        0) {
      zp_format_gid(s->sorted_gids + k * c->ngid, c->ngid, g, sizeof g);
      zp_error(c->yo, "GID %s is given by rank %d and by rank %d; global IDs must be unique", g,
               s->sorted_procs[k - 1], s->sorted_procs[k]);
      return ZOLTAN_FATAL;
    }
  }
  return ZOLTAN_OK;
}
