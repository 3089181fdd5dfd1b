/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LOADDB_EVAL_H
#define LOADDB_EVAL_H

/*
 * What an assignment of a recorded problem costs: the figures zp_lbsim
 * prints for each method and LB_METHOD=AUTO compares its candidates by.
 * Pure: no MPI, no Zoltan.
 */

#include <stddef.h>

#include "loaddb_dump.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The figures of one assignment. */
typedef struct loaddb_eval {
  double maxavg;    /* largest part's first weight over its share of the total */
  double moved_obj; /* objects whose part changed */
  double moved_w;   /* their first weight */
  double cut;       /* weight of the edges between parts, each edge once
                       (edge weight 1 when the dump has none) */
  double step;      /* modelled step: the largest, over parts, of the part's
                       load + comm_cost x the weight of its edges that leave it */
} loaddb_eval;

/*
 * loaddb_find - the index of the object with global ID key (d->ngid
 * entries) in d, or d->nobj when there is none.  Binary search.
 */
size_t loaddb_find(const loaddb_dump *d, const unsigned long *key);

/*
 * loaddb_evaluate - the figures of new_part (d->nobj parts in [0, parts))
 * for dump d.  Shares are the recorded part sizes when d->sizes_set and
 * parts == d->parts, else 1/parts.  Neighbours must be objects of d (the
 * reader checks it).  Returns 0, or -1 when memory runs out or a part is
 * out of range (*out is then zero).
 */
int loaddb_evaluate(const loaddb_dump *d, const int *new_part, int parts, double comm_cost,
                    loaddb_eval *out);
/*
 * loaddb_edge_index - the index in d of each edge's far end (d->nedges
 * entries; d->nobj for a neighbour that is not an object of d), so that
 * several assignments of one dump are evaluated without looking an ID up
 * per edge each time.  Arithmetic when the IDs are single consecutive
 * integers, else a binary search per edge.  Returns an array to free with
 * free(), or NULL when memory runs out.
 */
size_t *loaddb_edge_index(const loaddb_dump *d);
/*
 * loaddb_evaluate_indexed - loaddb_evaluate with the far ends of
 * loaddb_edge_index for the same d (NULL: looked up here).  Same figures,
 * same returns.
 */
int loaddb_evaluate_indexed(const loaddb_dump *d, const size_t *far, const int *new_part, int parts,
                            double comm_cost, loaddb_eval *out);

#ifdef __cplusplus
}
#endif

#endif /* LOADDB_EVAL_H */
