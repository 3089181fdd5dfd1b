/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef GREEDY_UTIL_H
#define GREEDY_UTIL_H

/*
 * Building blocks shared by the GREEDY and REFINE cores and the layer: an
 * indexed binary min-heap over the parts, a stable radix sort of
 * non-negative keys and a reproducible sum of non-negative weights.
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

/*
 * greedy_merge_desc - merge m runs of keys, each sorted largest first, into
 * one: run r is key[first[r]] .. key[first[r] + count[r] - 1].  Of two
 * equal keys of different runs, the one with the smaller tie (tie[i] beside
 * key[i]) comes first, or with tie NULL the one of the lower run; within a
 * run, keys keep their run's order.  So runs holding consecutive stretches
 * of one stable order (tie NULL), or runs each sorted by (key, tie) (ties
 * unique), merge into that order.  Outputs: out[n] (n the sum of the
 * counts), the merged keys, and src[k], the run out[k] came from.  Cost
 * O(n log m).  Not collective.  Returns 0, or -2 when memory runs out.
 */
int greedy_merge_desc(int m, const double *key, const uint64_t *tie, const size_t *first,
                      const size_t *count, double *out, int *src);

/*
 * greedy_runs_open / greedy_runs_next / greedy_runs_close - the merge of
 * greedy_merge_desc (same runs, same order, same arguments), read a block
 * at a time as the indices of the keys instead of written out whole, so
 * that a caller that consumes the keys in merged order (GREEDY's placement)
 * needs no merged copy.  greedy_runs_open keeps pointers to key and tie
 * (they must stay valid and unchanged until greedy_runs_close) and returns
 * NULL when m < 1 or memory runs out.  greedy_runs_next writes up to max
 * indices into key[] in merged order to idx and returns how many it wrote:
 * fewer than max only when the runs are used up (then 0 from there on).
 * greedy_runs_close frees the state (NULL is ignored).  Cost O(log m) per
 * key.  Not collective.
 */
typedef struct greedy_runs greedy_runs;
greedy_runs *greedy_runs_open(int m, const double *key, const uint64_t *tie, const size_t *first,
                              const size_t *count);
size_t greedy_runs_next(greedy_runs *g, size_t *idx, size_t max);
void greedy_runs_close(greedy_runs *g);

/*
 * greedy_break_ties - after a sort of keys largest first (order[n], equal
 * keys in index order), put each stretch of equal keys in the order of
 * their ties, smallest first (equal ties keep their order).  sorted[k] is
 * the key of order[k] and tie[k] its tie, both in the sorted order, so
 * that the stretches are found in one pass in sequence; the ties move
 * with their indices (on return tie[k] is still the tie of order[k]).
 * Linear in n but for the stretches, each sorted in O(length) (radix) or
 * less.  Not collective.  Returns 0, or -2 when memory runs out (order and
 * tie then still pair each index with its tie).
 */
int greedy_break_ties(size_t n, const double *sorted, uint64_t *tie, size_t *order);

/*
 * A reproducible sum of non-negative weights.  A floating-point sum depends
 * on the order of its additions, so a total summed over the objects of one
 * rank and then over the ranks differs, in the last bits, from the same
 * total summed object by object on one rank; an answer that compares such
 * sums (GREEDY's part targets, REMAP's shared weights) would then depend on
 * the number of ranks.  Here each weight is truncated to a multiple of
 * 2^scale, the scale set by the largest weight of the whole set (which every
 * rank can know), and the multiples are added as 128-bit integers, exactly.
 * The value is therefore the same for any order and any split into partial
 * sums, and within n * 2^scale (n * max * 2^-62) of the exact sum of the n
 * weights.
 */
typedef struct greedy_rscale {
  double to_int[2];   /* weight * to_int[0] * to_int[1] = weight / 2^scale */
  double from_int[2]; /* the inverse factors */
} greedy_rscale;

typedef struct greedy_rsum {
  uint64_t lo; /* low 64 bits of the sum of the truncated multiples */
  uint64_t hi; /* high 64 bits */
} greedy_rsum;

/*
 * greedy_rscale_of - the scale for weights whose largest is max (finite,
 * >= 0; 0 gives a scale at which every weight is 0).  Every partial sum of
 * one total must use the scale of the same max.
 */
void greedy_rscale_of(double max, greedy_rscale *s);

/* greedy_rsum_add - add the weight w (0 <= w <= the scale's max). */
static inline void greedy_rsum_add(greedy_rsum *a, const greedy_rscale *s, double w)
{
  /* Two exact multiplications by powers of two (one alone could overflow
   * for a tiny max), then the truncation to an integer below 2^63, through
   * a signed conversion: one instruction on x86-64, where an unsigned one
   * tests for values of 2^63 and above first.  The same integer either way. */
  uint64_t q = (uint64_t)(int64_t)(w * s->to_int[0] * s->to_int[1]);
  a->lo += q;
  a->hi += a->lo < q;
}

/* greedy_rsum_merge - add the partial sum b to a. */
void greedy_rsum_merge(greedy_rsum *a, const greedy_rsum *b);

/* greedy_rsum_value - the sum as a double (a function of the integer sum
 * alone, hence as reproducible as it). */
double greedy_rsum_value(const greedy_rsum *a, const greedy_rscale *s);

/*
 * greedy_rsum_array - the reproducible sum of x[0], x[stride], ... (n
 * values, each finite and >= 0), at the scale of their own largest value.
 * The same as adding, at that scale, any split of the values into partial
 * sums.
 */
double greedy_rsum_array(size_t n, const double *x, size_t stride);

#ifdef __cplusplus
}
#endif

#endif /* GREEDY_UTIL_H */
