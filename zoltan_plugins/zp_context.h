/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_CONTEXT_H
#define ZP_CONTEXT_H

/*
 * What a distributed strategy (zp_method.partition_parallel) can ask the
 * framework during one balancing call.  Every accessor is local (not
 * collective) and valid only during the call.  Arrays are in the order of
 * the local objects; weights have zp_ctx_wgt_dim entries per object (unit
 * weights when OBJ_WEIGHT_DIM is 0), part sizes zp_ctx_wgt_dim entries per
 * part, normalised so that each column sums to 1.
 */

#include <mpi.h>

#include "zp_method.h"

#ifdef __cplusplus
extern "C" {
#endif

struct Zoltan_Struct;

ZP_API int zp_ctx_num_local(const zp_context *ctx);
ZP_API int zp_ctx_num_gid_entries(const zp_context *ctx);
ZP_API const ZOLTAN_ID_TYPE *zp_ctx_local_gids(const zp_context *ctx);
ZP_API int zp_ctx_wgt_dim(const zp_context *ctx);
ZP_API const double *zp_ctx_local_wgts(const zp_context *ctx);
/* Current part of each local object, -1 when outside the known parts. */
ZP_API const int *zp_ctx_local_parts(const zp_context *ctx);
ZP_API int zp_ctx_num_parts(const zp_context *ctx);
ZP_API const double *zp_ctx_part_sizes(const zp_context *ctx);
ZP_API const double *zp_ctx_imbalance_tol(const zp_context *ctx);
/* A duplicate of the Zoltan_Struct's communicator, owned by the layer. */
ZP_API MPI_Comm zp_ctx_comm(const zp_context *ctx);
ZP_API const zp_params *zp_ctx_params(const zp_context *ctx);
ZP_API struct Zoltan_Struct *zp_ctx_zz(const zp_context *ctx);
ZP_API int zp_ctx_debug_level(const zp_context *ctx);
/* "Zoltan_LB_Partition" or "Zoltan_LB_Balance", for messages. */
ZP_API const char *zp_ctx_where(const zp_context *ctx);

/*
 * zp_ctx_run_base - partition the same objects with another method and
 * other part sizes, and return the new part of each local object.
 * Collective.  method is a native Zoltan method (RCB, HSFC, RIB, PHG, GRAPH,
 * BLOCK, ...) or a registered centralised method (GREEDY, ...), not the
 * calling method.  part_sizes has zp_ctx_num_parts * zp_ctx_wgt_dim entries
 * (columns summing to 1).  A native method runs on the application's own
 * Zoltan_Struct with AUTO_MIGRATE off; LB_METHOD, AUTO_MIGRATE, RETURN_LISTS
 * and the part sizes the application set are restored afterwards.
 * Returns a ZOLTAN_* code, the same on every rank.
 */
ZP_API int zp_ctx_run_base(zp_context *ctx, const char *method, const double *part_sizes, int *new_part);

#ifdef __cplusplus
}
#endif

#endif /* ZP_CONTEXT_H */
