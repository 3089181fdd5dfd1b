/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SCOTCH_PARALLEL_H
#define SCOTCH_PARALLEL_H

/*
 * SCOTCHLB's PT-Scotch path: the graph stays distributed and PT-Scotch maps
 * it from scratch (SCOTCH_dgraphMap), so that no rank gathers the whole
 * graph.  Built only when PT-Scotch uses this build's MPI (ZP_HAVE_PTSCOTCH).
 * PT-Scotch 7.0 has no distributed remapping, so the adapter takes this
 * path for LB_APPROACH=PARTITION only.
 */

#include <stddef.h>

#include "scotch_core.h"
#include "zp_context.h"

/*
 * scotchlb_partition_parallel - the new part of every local object.
 * Collective over zp_ctx_comm.  Uses o->tolerance, o->strategy and o->seed
 * (a raw strategy string is not used here: the adapter gathers then).
 * Outputs: new_part (zp_ctx_num_local parts); st: repair counters summed
 * over ranks (an edge between two ranks may count on both), edges (each
 * once), imbalance_after; on error msg names the value or the Scotch call.
 * Returns SCOTCHLB_OK, SCOTCHLB_WARN (a part above the tolerance) or a
 * negative SCOTCHLB_E* code, the same on every rank.  An edge that names an
 * object its rank does not have is a ZOLTAN_FATAL of the layer's numbering,
 * returned as SCOTCHLB_EINVAL with its message already printed.
 */
int scotchlb_partition_parallel(zp_context *ctx, const scotchlb_options *o, int *new_part,
                                scotchlb_stats *st, char *msg, size_t cap);

#endif /* SCOTCH_PARALLEL_H */
