/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring of per-object snapshots: the loads and communication volumes
 * the application reports, kept for ADAPTIVE_OBJ_HISTORY balances.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptive_internal.h"

static void free_loads(obj_snapshot *s)
{
  free(s->gids);
  free(s->loads);
  s->gids = NULL;
  s->loads = NULL;
  s->has_loads = 0;
  s->num_obj = s->num_gid_entries = 0;
}

static void free_comm(obj_snapshot *s)
{
  free(s->pairs);
  free(s->volumes);
  s->pairs = NULL;
  s->volumes = NULL;
  s->has_comm = 0;
  s->num_pairs = s->pair_gid_entries = 0;
}

static void free_snapshot(obj_snapshot *s)
{
  free_loads(s);
  free_comm(s);
  memset(s, 0, sizeof *s);
}

/* The snapshot of the current step, created (and the oldest one dropped
 * when the ring is full) on the first report of the step; NULL when
 * ADAPTIVE_OBJ_HISTORY is 0.  A second report of the same kind for the
 * same step replaces the first. */
static obj_snapshot *current_snapshot(adaptive_trigger *t)
{
  obj_snapshot *s;
  int newest;
  if (t->obj_cap <= 0) return NULL;
  newest = (t->obj_start + t->obj_count - 1 + t->obj_cap) % t->obj_cap;
  if (t->obj_count > 0 && t->objs[newest].step == t->step) return &t->objs[newest];
  if (t->obj_count < t->obj_cap) {
    s = &t->objs[(t->obj_start + t->obj_count) % t->obj_cap];
    t->obj_count++;
  } else {
    s = &t->objs[t->obj_start];
    t->obj_start = (t->obj_start + 1) % t->obj_cap;
  }
  free_snapshot(s);
  s->step = t->step;
  return s;
}

/* Drops every object snapshot older than step `keep_from`. */
void adaptive_drop_snapshots_before(adaptive_trigger *t, long keep_from)
{
  while (t->obj_count > 0 && t->objs[t->obj_start].step < keep_from) {
    free_snapshot(&t->objs[t->obj_start]);
    t->obj_start = (t->obj_start + 1) % t->obj_cap;
    t->obj_count--;
  }
}

/* Replaces the object ring by one of cap slots (the snapshots are lost:
 * changing ADAPTIVE_OBJ_HISTORY restarts the window). */
int adaptive_resize_objects(adaptive_trigger *t, int cap)
{
  obj_snapshot *n = NULL;
  int i;
  if (cap > 0) {
    n = calloc((size_t)cap, sizeof *n);
    if (!n) return ZOLTAN_MEMERR;
  }
  for (i = 0; i < t->obj_cap; i++) free_snapshot(&t->objs[i]);
  free(t->objs);
  t->objs = n;
  t->obj_cap = cap;
  t->obj_start = t->obj_count = 0;
  return ZOLTAN_OK;
}

/* Replaces the step history by one of cap slots keeping the newest records. */
int adaptive_resize_history(adaptive_trigger *t, int cap)
{
  adaptive_ring n;
  size_t i, skip;
  int rc = adaptive_ring_init(&n, (size_t)cap);
  if (rc != ADAPTIVE_OK) return rc == ADAPTIVE_ENOMEM ? ZOLTAN_MEMERR : ZOLTAN_FATAL;
  skip = t->hist.count > n.capacity ? t->hist.count - n.capacity : 0;
  for (i = skip; i < t->hist.count; i++) adaptive_ring_push(&n, adaptive_ring_get(&t->hist, i));
  adaptive_ring_free(&t->hist);
  t->hist = n;
  t->history_cap = cap;
  return ZOLTAN_OK;
}

int adaptive_report_objects(adaptive_trigger *t, int num_obj, int num_gid_entries,
                            const ZOLTAN_ID_TYPE *gids, const double *loads)
{
  static const char *yo = "adaptive_report_objects";
  obj_snapshot *s;
  double sum = 0.0;
  int i;
  if (!t || num_obj < 0 || (num_obj > 0 && !loads) || (gids && num_gid_entries < 1)) {
    zp_error(yo, "bad argument (num_obj = %d, num_gid_entries = %d)", num_obj, num_gid_entries);
    return ZOLTAN_FATAL;
  }
  for (i = 0; i < num_obj; i++) {
    if (!isfinite(loads[i]) || loads[i] < 0.0) {
      zp_error(yo, "load of object %d = %g is not a finite number >= 0", i, loads[i]);
      return ZOLTAN_FATAL;
    }
    sum += loads[i];
  }
  s = current_snapshot(t);
  if (s != NULL) {
    free_loads(s);
    s->num_obj = num_obj;
    s->num_gid_entries = gids ? num_gid_entries : 0;
    s->loads = malloc((size_t)(num_obj > 0 ? num_obj : 1) * sizeof *s->loads);
    if (gids)
      s->gids =
          malloc((size_t)(num_obj > 0 ? num_obj : 1) * (size_t)num_gid_entries * sizeof *s->gids);
    if (!s->loads || (gids && !s->gids)) {
      free_loads(s); /* no loads for this step */
      return ZOLTAN_MEMERR;
    }
    memcpy(s->loads, loads, (size_t)num_obj * sizeof *loads);
    if (gids) memcpy(s->gids, gids, (size_t)num_obj * (size_t)num_gid_entries * sizeof *gids);
    s->has_loads = 1;
  }
  if (!t->load_explicit) t->my_load = sum;
  t->load_reported = 1;
  return ZOLTAN_OK;
}

/* The object snapshot of the step `back` steps before the newest one, or
 * NULL when the ring holds fewer steps. */
static const obj_snapshot *snapshot_back(const adaptive_trigger *t, size_t back)
{
  if (back >= (size_t)t->obj_count) return NULL;
  return &t->objs[(t->obj_start + t->obj_count - 1 - (int)back + t->obj_cap) % t->obj_cap];
}

int adaptive_object_history(const adaptive_trigger *t, size_t back, long *step, int *num_obj,
                            int *num_gid_entries, const ZOLTAN_ID_TYPE **gids, const double **loads)
{
  const obj_snapshot *s;
  if (!t || !step || !num_obj || !num_gid_entries || !gids || !loads) return ZOLTAN_FATAL;
  *step = -1;
  *num_obj = *num_gid_entries = 0;
  *gids = NULL;
  *loads = NULL;
  s = snapshot_back(t, back);
  if (s == NULL || !s->has_loads) return ZOLTAN_WARN;
  *step = s->step;
  *num_obj = s->num_obj;
  *num_gid_entries = s->num_gid_entries;
  *gids = s->gids;
  *loads = s->loads;
  return ZOLTAN_OK;
}

int adaptive_report_comm(adaptive_trigger *t, int num_pairs, int num_gid_entries,
                         const ZOLTAN_ID_TYPE *from, const ZOLTAN_ID_TYPE *to,
                         const double *volumes)
{
  static const char *yo = "adaptive_report_comm";
  obj_snapshot *s;
  size_t n, g, i;
  if (!t || num_pairs < 0 || num_gid_entries < 1 || (num_pairs > 0 && (!from || !to || !volumes))) {
    zp_error(yo, "bad argument (num_pairs = %d, num_gid_entries = %d)", num_pairs, num_gid_entries);
    return ZOLTAN_FATAL;
  }
  for (i = 0; i < (size_t)num_pairs; i++)
    if (!isfinite(volumes[i]) || volumes[i] < 0.0) {
      zp_error(yo, "volume of pair %zu = %g is not a finite number >= 0", i, volumes[i]);
      return ZOLTAN_FATAL;
    }
  s = current_snapshot(t);
  if (s == NULL) return ZOLTAN_OK;
  free_comm(s);
  n = (size_t)num_pairs;
  g = (size_t)num_gid_entries;
  s->pairs = malloc((2 * n * g + 1) * sizeof *s->pairs);
  s->volumes = malloc((n + 1) * sizeof *s->volumes);
  if (!s->pairs || !s->volumes) {
    free_comm(s);
    return ZOLTAN_MEMERR;
  }
  /* Stored as (from, to) pairs side by side. */
  for (i = 0; i < n; i++) {
    memcpy(s->pairs + 2 * i * g, from + i * g, g * sizeof *from);
    memcpy(s->pairs + (2 * i + 1) * g, to + i * g, g * sizeof *to);
  }
  memcpy(s->volumes, volumes, n * sizeof *volumes);
  s->num_pairs = num_pairs;
  s->pair_gid_entries = num_gid_entries;
  s->has_comm = 1;
  return ZOLTAN_OK;
}

int adaptive_comm_history(const adaptive_trigger *t, size_t back, long *step, int *num_pairs,
                          int *num_gid_entries, const ZOLTAN_ID_TYPE **pairs,
                          const double **volumes)
{
  const obj_snapshot *s;
  if (!t || !step || !num_pairs || !num_gid_entries || !pairs || !volumes) return ZOLTAN_FATAL;
  *step = -1;
  *num_pairs = *num_gid_entries = 0;
  *pairs = NULL;
  *volumes = NULL;
  s = snapshot_back(t, back);
  if (s == NULL || !s->has_comm) return ZOLTAN_WARN;
  *step = s->step;
  *num_pairs = s->num_pairs;
  *num_gid_entries = s->pair_gid_entries;
  *pairs = s->pairs;
  *volumes = s->volumes;
  return ZOLTAN_OK;
}
