/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What REFINE's core (refine_core.c) shares with GREEDYREFINE's
 * (refine_greedyrefine.c); not installed, not part of the API.
 */
#ifndef REFINE_INTERNAL_H
#define REFINE_INTERNAL_H

#include <stddef.h>

#include "refine_core.h"

/* Relative slack when checking limits on loads recomputed from scratch:
 * the incremental loads of the algorithm and a fresh sum may differ in the
 * last bits, which must not turn a success into a warning. */
#define REFINE_EPS 1e-12

/*
 * refine_begin_call - the start both entry points share: the default
 * options when *opt is NULL (kept in *defaults), a scratch record when *st
 * is NULL (in *local), the statistics cleared, then the argument checks.
 * Returns REFINE_OK or REFINE_EINVAL.
 */
int refine_begin_call(size_t n, int wdim, const double *w, int nparts, const int *cur_part,
                      const int *part_out, const refine_options **opt, refine_options *defaults,
                      refine_stats **st, refine_stats *local);

/*
 * refine_work_buffer - buffer slot of the caller's scratch (opt->scratch),
 * or a new one in *owned (free it) when there is none; NULL when memory
 * runs out.
 */
void *refine_work_buffer(const refine_options *opt, int slot, size_t bytes, void **owned);

/* refine_finish_stats - the moves and, with a graph, the cut before and
 * after, into st. */
void refine_finish_stats(size_t n, const int *cur, const int *out, const refine_options *opt,
                         refine_stats *st);

#endif /* REFINE_INTERNAL_H */
