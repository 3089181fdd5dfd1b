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

/* The local objects: their number, global IDs (zp_ctx_num_gid_entries
 * entries each, the largest NUM_GID_ENTRIES over ranks), weights
 * (zp_ctx_wgt_dim each: OBJ_WEIGHT_DIM, or 1 with unit weights when it is 0;
 * finite and >= 0) and current parts (-1 when outside the known parts). */
ZP_API int zp_ctx_num_local(const zp_context *ctx);
ZP_API int zp_ctx_num_gid_entries(const zp_context *ctx);
ZP_API const ZOLTAN_ID_TYPE *zp_ctx_local_gids(const zp_context *ctx);
ZP_API int zp_ctx_wgt_dim(const zp_context *ctx);
ZP_API const double *zp_ctx_local_wgts(const zp_context *ctx);
ZP_API const int *zp_ctx_local_parts(const zp_context *ctx);

/* The target: the number of parts to produce, their sizes
 * (zp_ctx_num_parts * zp_ctx_wgt_dim fractions, columns summing to 1) and
 * the imbalance tolerances (zp_ctx_wgt_dim values of IMBALANCE_TOL, >= 1). */
ZP_API int zp_ctx_num_parts(const zp_context *ctx);
ZP_API const double *zp_ctx_part_sizes(const zp_context *ctx);
ZP_API const double *zp_ctx_imbalance_tol(const zp_context *ctx);

/* The call: a duplicate of the Zoltan_Struct's communicator (owned by the
 * layer), the plugin parameter values (see zp_param_int), the application's
 * Zoltan_Struct (for Zoltan_Get_Fn), its DEBUG_LEVEL, and the name of the
 * entry point, "Zoltan_LB_Partition" or "Zoltan_LB_Balance", for messages. */
ZP_API MPI_Comm zp_ctx_comm(const zp_context *ctx);
ZP_API const zp_params *zp_ctx_params(const zp_context *ctx);
ZP_API struct Zoltan_Struct *zp_ctx_zz(const zp_context *ctx);
ZP_API int zp_ctx_debug_level(const zp_context *ctx);
ZP_API const char *zp_ctx_where(const zp_context *ctx);
/* LB_APPROACH as the application set it on the struct, upper case, or NULL
 * when it never set it (Zoltan then uses REPARTITION). */
ZP_API const char *zp_ctx_lb_approach(const zp_context *ctx);

/*
 * zp_ctx_find_local - the local index (0 .. zp_ctx_num_local - 1) of the
 * object with global ID gid (zp_ctx_num_gid_entries entries), or -1 when
 * no local object has it; a repeated ID gives its first object.  Local.
 * The layer's one ID map: the first call builds a hash table of the local
 * IDs (linear in the objects, freed at the end of the balancing call), so a
 * method never sorts or searches IDs of its own.  Returns -2 when the table
 * cannot be built for lack of memory.
 */
ZP_API long zp_ctx_find_local(const zp_context *ctx, const ZOLTAN_ID_TYPE *gid);

/*
 * zp_agree_code - the one agreement of a return code over the ranks of
 * comm, for the layer and every method.  Collective over comm.
 * local: this rank's code in Zoltan's convention (0 = OK, positive = a
 * warning, negative = an error, the more negative the worse:
 * ZOLTAN_MEMERR < ZOLTAN_FATAL).
 * Returns the same code on every rank: the most negative code of any rank
 * when some rank has an error (an error anywhere is the worst error
 * everywhere), else the largest positive code when some rank warned (a WARN
 * anywhere is a WARN everywhere), else 0.  When MPI_Allreduce itself fails
 * (an error handler that returns), the rank it failed on gets ZOLTAN_FATAL.
 */
ZP_API int zp_agree_code(MPI_Comm comm, int local);

/*
 * zp_agree_code_sums - zp_agree_code and the sums over the ranks of nsums
 * counts, in one reduction (a method that needs both pays one latency).
 * Collective over comm.  local: as for zp_agree_code; sums: nsums values
 * (0 <= nsums <= ZP_AGREE_SUMS_MAX), replaced by their sums over the ranks.
 * Returns what zp_agree_code would return, the same on every rank.  The
 * reduction counts the ranks that returned each of Zoltan's codes
 * (ZOLTAN_WARN, ZOLTAN_FATAL, ZOLTAN_MEMERR), from which the worst error and
 * the strongest warning follow; a code outside them is agreed by a second
 * reduction, on every rank, which only an error path takes.  Errors: an
 * nsums outside its range gives ZOLTAN_FATAL on every rank with the sums
 * unchanged (the argument is the same everywhere); a failed reduction gives
 * ZOLTAN_FATAL on the rank it failed on.
 */
#define ZP_AGREE_SUMS_MAX 8
ZP_API int zp_agree_code_sums(MPI_Comm comm, int local, long *sums, int nsums);

/*
 * zp_allreduce_sum_max - sums over the ranks of comm of nsum doubles
 * (sum_in into sum_out) and maxima of nmax others (max_in into max_out), as
 * two non-blocking reductions in flight together: one latency where two
 * blocking reductions would take two, without a user-defined operation
 * (MPI may apply one to any piece of a buffer, so an operation that treats
 * entries by their position is not MPI's to call).  Collective over comm.
 * Buffers must not overlap; a count of 0 skips its reduction (the same on
 * every rank).  Returns MPI_SUCCESS, or MPI's error code on the rank where
 * a reduction failed.
 */
ZP_API int zp_allreduce_sum_max(MPI_Comm comm, const double *sum_in, double *sum_out, int nsum,
                                const double *max_in, double *max_out, int nmax);

/*
 * zp_ctx_parts_are_ranks - 1 when there is exactly one part per rank and
 * part p lives on rank p (the layout Zoltan uses when NUM_GLOBAL_PARTS is
 * the number of ranks or unset), else 0.  Local; every rank gets the same
 * answer.  For distributed methods that balance ranks.
 */
ZP_API int zp_ctx_parts_are_ranks(const zp_context *ctx);

/*
 * zp_ctx_local_graph - the graph edges of the local objects, when the
 * method's needs (ZP_NEEDS_GRAPH or ZP_WANTS_GRAPH) asked for them and every
 * rank has the edge callbacks.  Local.
 * Outputs (left unchanged when the function returns 0):
 *   nedges     edges of each local object (zp_ctx_num_local entries)
 *   nbr_procs  the rank of each edge's other end, as the application's
 *              callbacks gave it, edges of object 0 first
 *   ewgts      ewgt_dim weights per edge (finite, >= 0), or NULL when
 *              ewgt_dim is 0
 *   ewgt_dim   EDGE_WEIGHT_DIM
 * Returns 1 when the edges are there, 0 otherwise.
 */
ZP_API int zp_ctx_local_graph(const zp_context *ctx, const int **nedges, const int **nbr_procs,
                              const double **ewgts, int *ewgt_dim);

/*
 * zp_ctx_local_nbr_gids - the global ID of each edge's other end
 * (zp_ctx_num_gid_entries entries per edge, in the order of
 * zp_ctx_local_graph), when zp_ctx_local_graph returns 1.  Local.
 * Returns 1 and sets *nbr, or 0 and leaves it unchanged.
 */
ZP_API int zp_ctx_local_nbr_gids(const zp_context *ctx, const ZOLTAN_ID_TYPE **nbr);

/*
 * zp_ctx_global_index - a global numbering of the objects and of every
 * edge's far end, for a distributed method that hands the graph to a
 * parallel partitioner.  Collective.  Objects are numbered rank by rank in
 * local order: local object i of this rank gets *first + i.  nbr_index (one
 * entry per edge of zp_ctx_local_graph) receives the number of each edge's
 * far end, asked of the rank that the callbacks named for it; only ranks
 * that share edges exchange IDs.
 * Returns ZOLTAN_OK, ZOLTAN_MEMERR, or ZOLTAN_FATAL when there is no graph
 * or some edge names a rank out of range or an object that its rank does
 * not have (the message names both global IDs and the rank); the same code
 * on every rank.
 */
ZP_API int zp_ctx_global_index(zp_context *ctx, long long *first, long long *nbr_index);

/*
 * zp_nbx - a sparse exchange without counts (Hoefler, Siebert and
 * Lumsdaine's non-blocking consensus, NBX), for distributed methods whose
 * ranks talk to a few others: after the caller has started nsend
 * synchronous sends (MPI_Issend with tag, requests sreq), it receives every
 * message of tag sent to this rank, calling recv(data, status) for each (the
 * callback calls MPI_Recv itself), until every rank's sends are matched; then
 * the sends are complete.  Only the ranks that exchange messages and one
 * non-blocking barrier take part, so no rank handles a count per rank of the
 * communicator.  Messages arrive in any order.  Collective over comm (use
 * zp_ctx_comm, and a tag per exchange: a rank may start the next exchange
 * while another still receives the last one).
 */
typedef void zp_nbx_recv(void *data, const MPI_Status *status);
ZP_API void zp_nbx(MPI_Comm comm, int tag, int nsend, MPI_Request *sreq, zp_nbx_recv *recv,
                   void *data);

/*
 * zp_ctx_local_sizes - the size in bytes of each local object, when the
 * method's needs include ZP_WANTS_SIZES and every rank registered
 * ZOLTAN_OBJ_SIZE_MULTI_FN or ZOLTAN_OBJ_SIZE_FN.  Local.
 * Returns 1 and sets *sizes (zp_ctx_num_local values, finite, >= 0), or 0
 * and leaves it unchanged.
 */
ZP_API int zp_ctx_local_sizes(const zp_context *ctx, const double **sizes);

/*
 * zp_ctx_local_coords - the coordinates of the local objects, when the
 * method's needs (ZP_NEEDS_GEOM or ZP_WANTS_GEOM) asked for them and the
 * application gives a dimension > 0 (the same on every rank).  Local.
 * Outputs (unchanged when the function returns 0): *dim coordinates per
 * object, *coords zp_ctx_num_local * dim values.  Returns 1 or 0.
 */
ZP_API int zp_ctx_local_coords(const zp_context *ctx, int *dim, const double **coords);

/*
 * zp_ctx_debug_proc - DEBUG_PROCESSOR of the Zoltan struct: the rank that
 * prints a method's explanations at DEBUG_LEVEL >= 1.  Local.
 */
ZP_API int zp_ctx_debug_proc(const zp_context *ctx);

/*
 * zp_ctx_gather_inputs - read the coordinates and the graph edges of the
 * local objects now, as the flags ask (ZP_NEEDS_GEOM, ZP_WANTS_GEOM,
 * ZP_NEEDS_GRAPH, ZP_WANTS_GRAPH of zp_method.h), for a method whose needs
 * depend on what it finds (a NEEDS flag makes missing callbacks an error
 * naming who).  Each callback is asked at most once per call, so a base
 * run after it reads nothing again.  Collective; returns a ZOLTAN_* code,
 * the same on every rank.  Afterwards zp_ctx_inputs says what is there.
 */
ZP_API int zp_ctx_gather_inputs(zp_context *ctx, unsigned flags, const char *who);

/*
 * zp_ctx_inputs - what the call has read so far: ZP_WANTS_GEOM when the
 * local coordinates are there, ZP_WANTS_GRAPH when the local edges are.
 * Local.
 */
ZP_API unsigned zp_ctx_inputs(const zp_context *ctx);

/*
 * zp_ctx_callback_error - the ZOLTAN_* code of an application callback
 * that failed during this call (in a base run, for example), or ZOLTAN_OK.
 * A method that tries several base methods tells with it a candidate that
 * failed for want of its inputs (the others still count) from the
 * application's own failure (the call must fail).  Local.
 */
ZP_API int zp_ctx_callback_error(const zp_context *ctx);

/*
 * zp_ctx_gather_dump - the problem as the method sees it, gathered on rank
 * 0 in global-ID order as a LOADDB dump (loaddb_dump.h: weights, parts,
 * edges; elsewhere *d is empty), with (*perm)[i] the position of the dump's
 * object i in the rank-by-rank order of the local objects (rank 0's first),
 * for placing other gathered arrays.  Coordinates are not gathered (the
 * coordinate callbacks are asked, once, so that whether there are some is
 * known).  why names the caller in messages.  Free with loaddb_dump_free
 * and free.  Collective; returns a ZOLTAN_* code, the same on every rank.
 */
struct loaddb_dump;
ZP_API int zp_ctx_gather_dump(zp_context *ctx, const char *why, struct loaddb_dump *d,
                              size_t **perm);

/*
 * zp_ctx_run_base - partition the same objects with another method and
 * other part sizes, and return the new part of each local object.
 * Collective.  method is a native Zoltan method (RCB, HSFC, RIB, PHG, GRAPH,
 * BLOCK, ...) or a registered centralised method (GREEDY, ...), not the
 * calling method, unless that method has both partition functions (its
 * centralised one then runs: a distributed path can fall back on it).  part_sizes has zp_ctx_num_parts * zp_ctx_wgt_dim entries
 * (columns summing to 1).  A native method runs on the application's own
 * Zoltan_Struct with AUTO_MIGRATE off; LB_METHOD, AUTO_MIGRATE, RETURN_LISTS
 * and the part sizes the application set are restored afterwards.  Before
 * it runs, the callbacks it will call (geometry for RCB, RIB and HSFC, the
 * hypergraph or graph for PHG, the graph for GRAPH) are called once and
 * their outcome agreed, so that a callback failing on one rank is an error
 * on every rank instead of a hang inside Zoltan.  A centralised method gets
 * exactly what it gets when selected: the coordinates and edges its own
 * needs ask for, and its own ZP_NO_REMAP.
 * Returns a ZOLTAN_* code, the same on every rank.
 */
ZP_API int zp_ctx_run_base(zp_context *ctx, const char *method, const double *part_sizes,
                           int *new_part);

/*
 * zp_ctx_run_base_weighted - zp_ctx_run_base with other weights: the first
 * weight of local object i is weights[i] (finite, >= 0) for the length of
 * the run, both for a centralised base method and for a native one (the
 * layer puts its object callback in front of the application's, as for
 * OBJ_WEIGHT_SOURCE=MEASURED).  The other weight dimensions, the
 * application's callbacks and the context's weights are as before once it
 * returns.  Collective; returns a ZOLTAN_* code, the same on every rank
 * (ZOLTAN_FATAL when weights is NULL or holds a negative or non-finite
 * value on some rank, with the value named).
 */
ZP_API int zp_ctx_run_base_weighted(zp_context *ctx, const char *method, const double *part_sizes,
                                    const double *weights, int *new_part);

/*
 * zp_ctx_keep_base_lists - say whether the answer of the base runs that
 * follow is meant to be the call's answer unchanged (keep 1) or not (keep
 * 0, the default).  While it is 1, a native base run keeps the lists
 * Zoltan returned, with the imports when the application wants them; when
 * the method then returns exactly that run's parts, the application gets
 * those lists (Zoltan's entries, in Zoltan's order) and the layer neither
 * builds nor inverts its own.  Any other answer is listed as always, at
 * the price of the imports Zoltan computed for nothing, so a method that
 * tries several base runs leaves it at 0.  Not collective; every rank sets
 * the same value before the next base run.
 */
ZP_API void zp_ctx_keep_base_lists(zp_context *ctx, int keep);

/*
 * zp_ctx_run_base_setting - zp_ctx_run_base with one setting changed for
 * the length of the run: name is a parameter of the layer or of a
 * registered method (a copy of the struct's parameters gets value), or
 * IMBALANCE_TOL, whose first tolerance is lowered to value for the run
 * (never raised).  name NULL runs zp_ctx_run_base.  Collective; returns a
 * ZOLTAN_* code, the same on every rank (ZOLTAN_FATAL, naming the setting,
 * when the name or the value is refused).
 */
ZP_API int zp_ctx_run_base_setting(zp_context *ctx, const char *method, const char *name,
                                   const char *value, const double *part_sizes, int *new_part);

/*
 * zp_native_bounds - why Zoltan 13.2's method may fail on one rank only on
 * a problem, or NULL when it is within the bounds where it was never seen
 * to fail.  Outside them Zoltan's HSFC ends some inputs with "BSEARCH
 * RETURNED ERROR", and RCB with several parts on a rank ends some with
 * "Memory error", on the ranks concerned only, while the other ranks wait
 * inside Zoltan for ever.  The bounds: every part of positive size, some
 * positive weight, and no object heavier than half the smallest part's
 * load (HSFC; RCB when parts > ranks); no bound for other methods.  parts and ranks of the run, heavy
 * and total the heaviest object's and all objects' first weights,
 * smallest_share the smallest positive part size over the sum of the
 * sizes, zero_part 1 when some part has size zero.  Not collective; the
 * returned text is static.
 */
ZP_API const char *zp_native_bounds(const char *method, int parts, int ranks, double heavy,
                                    double total, double smallest_share, int zero_part);

/*
 * zp_native_grain - the largest ratio of the heaviest object's first weight
 * to the smallest part's load (the part's size share times the total) with
 * which method stays within zp_native_bounds: 0.5 for HSFC, and for RCB
 * when parts > ranks; +infinity for every other method and setting.  A
 * method that chooses part sizes or weights for a base run (ULBA) keeps
 * to it so that the run is not refused.  Not collective.
 */
ZP_API double zp_native_grain(const char *method, int parts, int ranks);

/*
 * zp_ctx_native_bounds - zp_native_bounds for the context's objects (first
 * weights; when every weight is zero, counts, as a base run balances them)
 * and part sizes: the reason, the same on every rank, or NULL.
 * The layer's base runs (zp_ctx_run_base) refuse a method outside its
 * bounds with ZOLTAN_FATAL and this reason, and a delegated call does not
 * hand it to Zoltan (docs/plugin_layer.md, "Delegation").  Collective.
 */
ZP_API const char *zp_ctx_native_bounds(zp_context *ctx, const char *method);

#ifdef __cplusplus
}
#endif

#endif /* ZP_CONTEXT_H */
