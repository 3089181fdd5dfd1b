/* SPDX-License-Identifier: BSD-3-Clause */
/* Large buffers backed by transparent huge pages (zp_bigmem.h). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and madvise */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "zp_bigmem.h"

#if defined(__SANITIZE_ADDRESS__)
#define ZP_BIGMEM_MAPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZP_BIGMEM_MAPS 0
#endif
#endif
#ifndef ZP_BIGMEM_MAPS
#define ZP_BIGMEM_MAPS 1
#endif

int zp_bigmem_maps(void) { return ZP_BIGMEM_MAPS; }

size_t zp_bigmem_cover(size_t bytes)
{
  size_t cover = bytes & ~(ZP_BIGMEM_HUGE - 1), rem = bytes - cover;
  /* Sizes of 10^k objects times 4 or 8 bytes fall just short of a multiple
   * of 2 MiB (4 x 10^6 bytes is 95% of 4 MiB): leaving that last page small
   * would give up half the gain for a 5% saving of memory. */
  if (rem > 0 && ZP_BIGMEM_HUGE - rem <= bytes / 16) cover += ZP_BIGMEM_HUGE;
  return cover;
}

/* An anonymous mapping of len bytes (a multiple of the huge page) aligned
 * to the huge page, or NULL: a mapping one huge page longer, whose
 * unaligned head and tail go back to the kernel. */
static void *map_aligned(size_t len)
{
  size_t extra = ZP_BIGMEM_HUGE, head;
  char *p;
  if (len > SIZE_MAX - extra) return NULL;
  p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  head = (ZP_BIGMEM_HUGE - (uintptr_t)p % ZP_BIGMEM_HUGE) % ZP_BIGMEM_HUGE;
  if (head > 0) munmap(p, head);
  if (extra - head > 0) munmap(p + head + len, extra - head);
  return p + head;
}

void *zp_bigmem_alloc(size_t cap, size_t used, int huge, size_t *mapped)
{
  size_t cover = huge && ZP_BIGMEM_MAPS ? zp_bigmem_cover(used) : 0, len;
  void *p = NULL;
  *mapped = 0;
  if (cap < used) cap = used;
  if (cover > 0) {
    len = cap > cover ? cap : cover;
    len = (len + ZP_BIGMEM_HUGE - 1) & ~(ZP_BIGMEM_HUGE - 1);
    p = map_aligned(len);
    if (p != NULL) {
#ifdef MADV_HUGEPAGE
      /* Advice only: a kernel without transparent huge pages says EINVAL
       * and the buffer stays on small pages. */
      (void)madvise(p, cover, MADV_HUGEPAGE);
#endif
      *mapped = len;
      return p;
    }
  }
  return malloc(cap > 0 ? cap : 1);
}

void zp_bigmem_free(void *p, size_t mapped)
{
  if (p == NULL) return;
  if (mapped > 0)
    munmap(p, mapped);
  else
    free(p);
}
