/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hash table from global ID to local index, for matching lists that
 * Zoltan returns (in an order of its own) to the context's objects in time
 * linear in their number: sorting and searching took as long as the base
 * method itself when ULBA read RCB's complete list (docs/erosion.md, "A
 * cheaper ULBA balance").  Also the stable sort of indices by global ID
 * and the binary search in a sorted ID array, for the lists that must be
 * walked in ID order.
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

/* ---- sorted global IDs ---------------------------------------------------- */

/* Lexicographic order of multi-entry global IDs. */
int zp_gid_cmp(const ZOLTAN_ID_TYPE *a, const ZOLTAN_ID_TYPE *b, int ngid)
{
  int k;
  for (k = 0; k < ngid; k++) {
    if (a[k] < b[k]) return -1;
    if (a[k] > b[k]) return 1;
  }
  return 0;
}

/* The digits of zp_sort_words: 11 bits keep each pass's counters (16 KB)
 * in the first-level cache, and three of them cover a 32-bit ID. */
#define ZP_SORT_DIGIT 11
#define ZP_SORT_RADIX ((size_t)1 << ZP_SORT_DIGIT)

/* Single-entry IDs and indices below 2^32, where a word holds both: a
 * stable LSD radix sort of the words (ID above, index below) on the ID's
 * bits, skipping the digits where every ID agrees.  It gives the merge
 * sort's order (equal IDs keep their order in idx) in a few sequential
 * passes instead of log2(n) passes of compares at scattered places; that
 * sort was most of a gathered call whose objects arrive in no ID order.
 * Returns 0, without touching idx, when the words cannot hold the IDs. */
static int zp_sort_words(size_t *idx, size_t *tmp, size_t n, const ZOLTAN_ID_TYPE *g)
{
#if SIZE_MAX >= UINT64_MAX
  const size_t low = ((size_t)1 << 32) - 1;
  size_t i, all_or = 0, all_and = ~(size_t)0, *a = tmp, *b = idx;
  size_t *count = calloc(ZP_SORT_RADIX, sizeof *count);
  int shift;
  if (count == NULL) return 0;
  for (i = 0; i < n; i++) {
    unsigned long long id = (unsigned long long)g[idx[i]];
    if (idx[i] > low || id > low) {
      free(count);
      return 0;
    }
    a[i] = ((size_t)id << 32) | idx[i];
    all_or |= a[i];
    all_and &= a[i];
  }
  for (shift = 32; shift < 64; shift += ZP_SORT_DIGIT) {
    size_t d, sum = 0, *t;
    if ((((all_or ^ all_and) >> shift) & (ZP_SORT_RADIX - 1)) == 0) continue;
    memset(count, 0, ZP_SORT_RADIX * sizeof *count);
    for (i = 0; i < n; i++) count[(a[i] >> shift) & (ZP_SORT_RADIX - 1)]++;
    for (d = 0; d < ZP_SORT_RADIX; d++) {
      size_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (i = 0; i < n; i++) b[count[(a[i] >> shift) & (ZP_SORT_RADIX - 1)]++] = a[i];
    t = a;
    a = b;
    b = t;
  }
  /* a is idx or tmp, whichever the last pass wrote; each word is read
   * before its slot in idx is written. */
  for (i = 0; i < n; i++) idx[i] = a[i] & low;
  free(count);
  return 1;
#else
  (void)idx;
  (void)tmp;
  (void)n;
  (void)g;
  return 0;
#endif
}

/* Stable merge sort of indices; written out rather than qsort so that no
 * global comparison state is needed. */
void zp_sort_by_gid(size_t *idx, size_t *tmp, size_t n, const ZOLTAN_ID_TYPE *g, int ngid)
{
  size_t width, i;
  if (ngid == 1 && zp_sort_words(idx, tmp, n, g)) return;
  for (width = 1; width < n; width *= 2) {
    for (i = 0; i < n; i += 2 * width) {
      size_t lo = i, mid = i + width < n ? i + width : n,
             hi = i + 2 * width < n ? i + 2 * width : n;
      size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi)
        tmp[k++] = zp_gid_cmp(g + idx[b] * ngid, g + idx[a] * ngid, ngid) < 0 ? idx[b++] : idx[a++];
      while (a < mid) tmp[k++] = idx[a++];
      while (b < hi) tmp[k++] = idx[b++];
    }
    memcpy(idx, tmp, n * sizeof *idx);
  }
}

int zp_gids_increase(const ZOLTAN_ID_TYPE *g, size_t n, int ngid)
{
  size_t k;
  if (ngid == 1) {
    for (k = 1; k < n; k++)
      if (g[k - 1] >= g[k]) return 0;
    return 1;
  }
  for (k = 1; k < n; k++)
    if (zp_gid_cmp(g + (k - 1) * (size_t)ngid, g + k * (size_t)ngid, ngid) >= 0) return 0;
  return 1;
}

long zp_find_gid(const ZOLTAN_ID_TYPE *sorted, size_t n, const ZOLTAN_ID_TYPE *key, int ngid)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int cmp = zp_gid_cmp(sorted + mid * ngid, key, ngid);
    if (cmp == 0) return (long)mid;
    if (cmp < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}
