/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the two files of a centralised run share (zp_serial.c: the gathers,
 * the checks, the graph, the call and the scatter; zp_serial_order.c: the
 * objects in global-ID order).  Not installed.
 */
#ifndef ZP_SERIAL_INTERNAL_H
#define ZP_SERIAL_INTERNAL_H

#include "zp_partition_internal.h"

/* What one centralised run gathers and computes.  The layout part is the
 * same on every rank; the rest exists on ZP_ROOT only, in the record's kept
 * buffers (never freed here), except the per-rank counts. */
typedef struct zp_serial {
  /* Layout, from the inputs the method asked for. */
  int geom_dim;    /* coordinates per object, 0 = none */
  int with_graph;  /* 1 when edges travel */
  int with_hg;     /* 1 when (net, pin) pairs travel in the edges' place: the
                     hypergraph read as a graph */
  int with_sizes;  /* 1 when object sizes travel (ZP_WANTS_SIZES) */
  int edge_dim;    /* weights per edge that travel (0 without EDGE_WEIGHT_DIM) */
  int local_edges; /* edges (or pairs) of the local objects */

  /* Root: per rank (malloc'd, freed at the end). */
  int *counts;    /* 2 per rank: objects (-1 when short of memory), edges */
  int *obj_first; /* index of the rank's first object among all */
  int *edge_at;   /* index of the rank's first edge among all */
  int *cnt;       /* elements of one array from each rank (reused per gather) */
  int *displ;     /* where they land (reused per gather) */

  /* Root: every object and edge, in arrival order (rank 0's first). */
  size_t num_obj;       /* objects of all ranks */
  size_t num_edges;     /* edges (or pairs) of all ranks */
  ZOLTAN_ID_TYPE *gids; /* num_obj * ngid */
  double *wgts;         /* num_obj * wdim */
  int *parts;           /* current parts */
  double *coords;       /* num_obj * geom_dim, or NULL */
  double *sizes;        /* num_obj, or NULL */
  int *nedges;          /* edges of each object, or NULL */
  ZOLTAN_ID_TYPE *nbr;  /* neighbour IDs (ngid each) or pairs (2 * ngid each) */
  double *ew;           /* edge_dim weights per edge, or NULL */

  /* Root: the problem in GID order.  When the arrival order is the GID order
   * (order == NULL) the sorted arrays are the gathered ones. */
  size_t *order;               /* arrival index of the k-th object by GID, or NULL */
  ZOLTAN_ID_TYPE *sorted_gids; /* global IDs */
  double *sorted_wgts;         /* wdim weights per object */
  int *sorted_parts;           /* current part */
  int *sorted_procs;           /* owning rank */
  double *sorted_coords;       /* geom_dim coordinates per object, or NULL */
  double *sorted_sizes;        /* object sizes, or NULL */
  size_t *adj_start;           /* num_obj + 1 offsets into adj, or NULL */
  size_t *adj;                 /* neighbour positions in GID order */
  double *sorted_edge_w;       /* edge weights per entry of adj, or NULL */
  int hg_owned;                /* 1: adj_start, adj, sorted_edge_w were
                                  malloc'd by zp_hg_graph (freed here) */
  int *new_part;               /* the method's answer, GID order */
  int *reply;                  /* the answer in arrival order, or NULL when
                                  that is the GID order */
} zp_serial;

/* A kept buffer of n elements of elem bytes. */
static inline void *zp_buf(const zp_context *c, int slot, size_t n, size_t elem)
{
  return zp_record_scratch(c->r, slot, n * elem);
}

/*
 * zp_serial_sort - root, not collective: the gathered objects in global-ID
 * order (s->sorted_*, s->order when they arrived in another order); a
 * global ID given twice is a ZOLTAN_FATAL naming it and both ranks,
 * ZOLTAN_MEMERR without memory.
 */
int zp_serial_sort(const zp_context *c, zp_serial *s);

#endif
