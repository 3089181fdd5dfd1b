/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hash table from global ID to local index, for matching lists that
 * Zoltan returns (in an order of its own) to the context's objects in time
 * linear in their number: sorting and searching took as long as the base
 * method itself when ULBA read RCB's complete list (docs/erosion.md, "A
 * cheaper ULBA balance").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"

static uint64_t zp_gidmap_hash(const ZOLTAN_ID_TYPE *g, int ngid)
{
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  int k;
  for (k = 0; k < ngid; k++) {
    h ^= (uint64_t)g[k];
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  return h;
}

int zp_gidmap_build(zp_gidmap *m, const ZOLTAN_ID_TYPE *gids, size_t n, int ngid)
{
  size_t cap = 16, i;
  while (cap < 2 * n) cap *= 2;
  m->gids = gids;
  m->ngid = ngid;
  m->mask = cap - 1;
  m->slot = malloc(cap * sizeof *m->slot);
  if (m->slot == NULL) return ZOLTAN_MEMERR;
  for (i = 0; i < cap; i++) m->slot[i] = -1;
  for (i = 0; i < n; i++) {
    size_t s = (size_t)zp_gidmap_hash(gids + i * (size_t)ngid, ngid) & m->mask;
    while (m->slot[s] >= 0) {
      /* A repeated ID keeps its first position. */
      if (memcmp(gids + (size_t)m->slot[s] * ngid, gids + i * (size_t)ngid,
                 (size_t)ngid * sizeof *gids) == 0)
        break;
      s = (s + 1) & m->mask;
    }
    if (m->slot[s] < 0) m->slot[s] = (long)i;
  }
  return ZOLTAN_OK;
}

long zp_gidmap_find(const zp_gidmap *m, const ZOLTAN_ID_TYPE *key)
{
  size_t s = (size_t)zp_gidmap_hash(key, m->ngid) & m->mask;
  while (m->slot[s] >= 0) {
    if (memcmp(m->gids + (size_t)m->slot[s] * m->ngid, key, (size_t)m->ngid * sizeof *key) == 0)
      return m->slot[s];
    s = (s + 1) & m->mask;
  }
  return -1;
}

void zp_gidmap_free(zp_gidmap *m)
{
  free(m->slot);
  m->slot = NULL;
}
