/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Large buffers backed by transparent huge pages (zp_bigmem.c).
 *
 * The buffers a struct keeps from one balance to the next (zp_record_scratch)
 * hold several bytes per object: at 10^6 objects the first balance of a
 * struct faulted in 10^4 pages of 4 KiB one by one, and the kernel's fault
 * path, not the work, was the largest part of that call.  A buffer of at
 * least about one huge page (2 MiB on x86-64) is therefore mapped on its
 * own, aligned to the huge page, and the kernel is asked (madvise) to back
 * it with huge pages: one fault per 2 MiB.  Where the kernel has no
 * transparent huge pages, or refuses the advice, the same buffer works with
 * small pages.  Pure C over POSIX (and Linux's madvise where it exists): no
 * MPI, no Zoltan.
 */
#ifndef ZP_BIGMEM_H
#define ZP_BIGMEM_H

#include <stddef.h>

/* The huge page size assumed (x86-64's and arm64's with 4 KiB pages). */
#define ZP_BIGMEM_HUGE ((size_t)2 << 20)

/* How many bytes from the start of a buffer of `bytes` bytes the advice
 * covers: whole huge pages, plus the last partial one when the part of it
 * the buffer does not use (which the kernel backs all the same) is at most
 * a sixteenth of the buffer.  0 when no huge page is worth it.  Pure. */
size_t zp_bigmem_cover(size_t bytes);

/* A buffer of at least cap bytes (cap >= used) of which the first used are
 * the ones the caller expects to touch: with huge != 0 and
 * zp_bigmem_cover(used) > 0, an anonymous mapping aligned to
 * ZP_BIGMEM_HUGE whose covered bytes are advised as huge pages, and
 * *mapped = its length (never under zp_bigmem_maps() == 0); otherwise (or
 * when mapping fails) malloc(cap) and
 * *mapped = 0.  Contents undefined.  NULL when memory is short.  Local. */
void *zp_bigmem_alloc(size_t cap, size_t used, int huge, size_t *mapped);

/* 1 when zp_bigmem_alloc maps large buffers at all; 0 in a build with
 * AddressSanitizer, whose checks of overflows and use after free cover
 * malloc's buffers only, so that every buffer stays under them.  Pure. */
int zp_bigmem_maps(void);

/* Free p from zp_bigmem_alloc (NULL is allowed), given its *mapped. */
void zp_bigmem_free(void *p, size_t mapped);

#endif
