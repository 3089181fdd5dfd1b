/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef GREEDY_UTIL_H
#define GREEDY_UTIL_H

/*
 * Building blocks shared by the GREEDY and REFINE cores: an indexed binary
 * min-heap over the parts, and a stable radix sort of non-negative keys.
 * Pure C, no MPI, no Zoltan, no I/O.  None of these functions is collective.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An indexed binary min-heap over item ids 0..capacity-1.  Items are ordered
 * by (key, key2, id), so that equal keys are resolved the same way on every
 * platform and run.  The position index makes changing the key of any item,
 * not only of the top one, an O(log n) operation; REFINE needs that for
 * receivers chosen by communication and GREEDYREFINE for kept objects.
 */
typedef struct greedy_heap_entry {
  double key;  /* primary key */
  double key2; /* secondary key, compared when keys are equal */
  int id;      /* item id */
} greedy_heap_entry;

typedef struct greedy_heap {
  int size;                /* number of items currently in the heap */
  int capacity;            /* largest id + 1 */
  greedy_heap_entry *item; /* item[0..size-1]: entries in heap order, stored
                              inline so that sifting touches one array */
  int *pos;                /* pos[id]: index of id in item, or -1 */
} greedy_heap;

/*
 * greedy_heap_init - allocate an empty heap for ids 0..capacity-1.
 * Inputs: capacity >= 0.  Output: *h.  Returns 0, or -2 when memory runs out
 * (then *h needs no freeing).  Release with greedy_heap_free.
 */
int greedy_heap_init(greedy_heap *h, int capacity);

/* greedy_heap_free - release the arrays of h (h itself is not freed). */
void greedy_heap_free(greedy_heap *h);

/* greedy_heap_set - insert id, or move it when present, with the given keys. */
void greedy_heap_set(greedy_heap *h, int id, double key, double key2);

/* greedy_heap_remove - take id out of the heap (no effect when absent). */
void greedy_heap_remove(greedy_heap *h, int id);

/* greedy_heap_top - the smallest item, or -1 when the heap is empty. */
int greedy_heap_top(const greedy_heap *h);

/* greedy_heap_key / greedy_heap_key2 - the keys of id, which must be in
 * the heap. */
double greedy_heap_key(const greedy_heap *h, int id);
double greedy_heap_key2(const greedy_heap *h, int id);

/*
 * greedy_sort_desc / greedy_sort_asc - stable sort of the indices 0..n-1 by
 * key, largest (desc) or smallest (asc) first; equal keys keep index order.
 * Keys must be finite or +inf and >= 0 (NaN and negatives are the caller's
 * error).  A least-significant-digit radix sort on the IEEE bit patterns
 * (which order like the values for non-negative doubles) makes this O(n)
 * and, unlike qsort, stable, which is what gives ties to the lower index.
 * Inputs: n, key[n].  Output: order[n].  Returns 0, or -2 when memory runs out.
 */
int greedy_sort_desc(size_t n, const double *key, size_t *order);
int greedy_sort_asc(size_t n, const double *key, size_t *order);

/*
 * greedy_sort_desc_ws / greedy_sort_asc_ws - the sorts above with the
 * caller's work buffer ws[n] (NULL: allocated here), so that a caller
 * sorting at every call reuses memory instead of touching fresh pages.
 * Same order, same returns.
 */
int greedy_sort_desc_ws(size_t n, const double *key, size_t *order, uint64_t *ws);
int greedy_sort_asc_ws(size_t n, const double *key, size_t *order, uint64_t *ws);

#ifdef __cplusplus
}
#endif

#endif /* GREEDY_UTIL_H */
