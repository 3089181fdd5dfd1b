/* SPDX-License-Identifier: BSD-3-Clause */
#include "greedy_util.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int greedy_heap_init(greedy_heap *h, int capacity)
{
  size_t c = capacity > 0 ? (size_t)capacity : 1;
  memset(h, 0, sizeof(*h));
  h->item = malloc(c * sizeof(greedy_heap_entry));
  h->pos = malloc(c * sizeof(int));
  if (!h->item || !h->pos) {
    greedy_heap_free(h);
    return -2;
  }
  h->capacity = capacity;
  for (int i = 0; i < capacity; i++) h->pos[i] = -1;
  return 0;
}

void greedy_heap_free(greedy_heap *h)
{
  free(h->item);
  free(h->pos);
  memset(h, 0, sizeof(*h));
}

/* Strict order of two entries: key, then key2, then the id itself.  Equal
 * keys are rare, so that test is a well-predicted branch, and the common
 * answer is a plain comparison that sift-down turns into arithmetic. */
static int entry_less(const greedy_heap_entry *a, const greedy_heap_entry *b)
{
  if (a->key == b->key) return (a->key2 < b->key2) | ((a->key2 == b->key2) & (a->id < b->id));
  return a->key < b->key;
}

/* Sift the entry e from hole i towards the root, then towards the leaves. */
static void heap_fix(greedy_heap *h, int i, greedy_heap_entry e)
{
  greedy_heap_entry *it = h->item;
  while (i > 0) {
    int parent = (i - 1) / 2;
    if (!entry_less(&e, &it[parent])) break;
    it[i] = it[parent];
    h->pos[it[i].id] = i;
    i = parent;
  }
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->size) break;
    /* Branch-free choice of the smaller child: which one wins is a coin
     * flip, and mispredicted branches dominated the cost of sift-down. */
    if (c + 1 < h->size) c += entry_less(&it[c + 1], &it[c]);
    if (!entry_less(&it[c], &e)) break;
    it[i] = it[c];
    h->pos[it[i].id] = i;
    i = c;
  }
  it[i] = e;
  h->pos[e.id] = i;
}

void greedy_heap_set(greedy_heap *h, int id, double key, double key2)
{
  assert(id >= 0 && id < h->capacity);
  greedy_heap_entry e;
  e.key = key;
  e.key2 = key2;
  e.id = id;
  int i = h->pos[id];
  if (i < 0) i = h->size++;
  heap_fix(h, i, e);
}

void greedy_heap_remove(greedy_heap *h, int id)
{
  assert(id >= 0 && id < h->capacity);
  int i = h->pos[id];
  if (i < 0) return;
  h->pos[id] = -1;
  h->size--;
  /* The last entry fills the hole and then moves whichever way it must. */
  if (i < h->size) heap_fix(h, i, h->item[h->size]);
}

int greedy_heap_top(const greedy_heap *h) { return h->size > 0 ? h->item[0].id : -1; }

double greedy_heap_key(const greedy_heap *h, int id)
{
  assert(h->pos[id] >= 0);
  return h->item[h->pos[id]].key;
}

double greedy_heap_key2(const greedy_heap *h, int id)
{
  assert(h->pos[id] >= 0);
  return h->item[h->pos[id]].key2;
}

/* Bits of a non-negative double that compare like the value (-0 -> +0). */
static uint64_t key_bits(double x)
{
  uint64_t u;
  if (x == 0.0) return 0;
  memcpy(&u, &x, sizeof(u));
  return u;
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

/* One pass of a radix sort on the digit at shift: count the digits of the
 * n keys k, then turn the counts into the first position of each digit's
 * bucket. */
static void digit_offsets(const uint64_t *k, size_t n, int shift, size_t *count)
{
  memset(count, 0, RADIX_SIZE * sizeof(size_t));
  for (size_t i = 0; i < n; i++) count[(k[i] >> shift) & (RADIX_SIZE - 1)]++;
  size_t sum = 0;
  for (size_t d = 0; d < RADIX_SIZE; d++) {
    size_t c = count[d];
    count[d] = sum;
    sum += c;
  }
}

/* digit_offsets for the three digits of packed_sort's upper halves (bits
 * 32-42, 43-53 and 54-63) at once: count[d * RADIX_SIZE + v] is the first
 * position of digit value v in pass d. */
static void digit_offsets3(const uint64_t *k, size_t n, size_t *count)
{
  memset(count, 0, 3 * RADIX_SIZE * sizeof(size_t));
  for (size_t i = 0; i < n; i++) {
    uint64_t v = k[i];
    count[(v >> 32) & (RADIX_SIZE - 1)]++;
    count[RADIX_SIZE + ((v >> 43) & (RADIX_SIZE - 1))]++;
    count[2 * RADIX_SIZE + ((v >> 54) & (RADIX_SIZE - 1))]++;
  }
  for (size_t d = 0; d < 3; d++) {
    size_t sum = 0, *c = count + d * RADIX_SIZE;
    for (size_t v = 0; v < RADIX_SIZE; v++) {
      size_t x = c[v];
      c[v] = sum;
      sum += x;
    }
  }
}

static int radix_sort(size_t n, const double *key, size_t *order, int desc)
{
  int rc = -2;
  uint64_t *k0 = malloc((n ? n : 1) * sizeof(uint64_t));
  uint64_t *k1 = malloc((n ? n : 1) * sizeof(uint64_t));
  size_t *o1 = malloc((n ? n : 1) * sizeof(size_t));
  size_t *count = malloc(RADIX_SIZE * sizeof(size_t));
  if (!k0 || !k1 || !o1 || !count) goto end;
  uint64_t all_or = 0, all_and = ~(uint64_t)0;
  for (size_t i = 0; i < n; i++) {
    uint64_t b = key_bits(key[i]);
    /* Descending order is ascending order of the complemented bits; the
     * sort stays stable, so equal keys still keep index order. */
    k0[i] = desc ? ~b : b;
    order[i] = i;
    all_or |= k0[i];
    all_and &= k0[i];
  }
  uint64_t *ks = k0, *kd = k1;
  size_t *os = order, *od = o1;
  for (int shift = 0; shift < 64; shift += RADIX_BITS) {
    /* A digit equal in every key does not change the order: skip it. */
    uint64_t mask = (uint64_t)(RADIX_SIZE - 1) << shift;
    if (((all_or ^ all_and) & mask) == 0) continue;
    digit_offsets(ks, n, shift, count);
    for (size_t i = 0; i < n; i++) {
      size_t dst = count[(ks[i] >> shift) & (RADIX_SIZE - 1)]++;
      kd[dst] = ks[i];
      od[dst] = os[i];
    }
    uint64_t *tk = ks;
    ks = kd;
    kd = tk;
    size_t *to = os;
    os = od;
    od = to;
  }
  if (os != order) memcpy(order, os, n * sizeof(size_t));
  rc = 0;
end:
  free(k0);
  free(k1);
  free(o1);
  free(count);
  return rc;
}

/* An index with its key, for sorting runs of equal coarse keys. */
typedef struct keyed {
  double k; /* the key, negated for descending order */
  size_t i; /* the index */
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
  const keyed *a = pa, *b = pb;
  if (a->k != b->k) return a->k < b->k ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* Runs up to this length are sorted in place (sort_run). */
#define SORT_RUN_INSERTION_MAX 32

/* Order order[0..len-1] by (key, index); desc reverses the key order. */
static int sort_run(size_t *order, size_t len, const double *key, int desc)
{
  size_t j;
  for (j = 1; j < len; j++) {
    double x = key[order[j - 1]], y = key[order[j]];
    if (desc ? x < y : x > y) break;
  }
  if (j == len) return 0; /* already in order, the usual case */
  if (len <= SORT_RUN_INSERTION_MAX) {
    /* Short runs are the common case with many keys (a run holds keys
     * equal in their upper 32 bits): an insertion sort in place, by the
     * same (key, index) order as keyed_cmp, costs less than allocating. */
    for (j = 1; j < len; j++) {
      size_t v = order[j], m = j;
      double kv = desc ? -key[v] : key[v];
      while (m > 0) {
        size_t u = order[m - 1];
        double ku = desc ? -key[u] : key[u];
        if (ku < kv || (ku == kv && u < v)) break;
        order[m] = u;
        m--;
      }
      order[m] = v;
    }
    return 0;
  }
  keyed *t = malloc(len * sizeof(keyed));
  if (!t) return -2;
  for (j = 0; j < len; j++) {
    t[j].k = desc ? -key[order[j]] : key[order[j]];
    t[j].i = order[j];
  }
  qsort(t, len, sizeof(keyed), keyed_cmp);
  for (j = 0; j < len; j++) order[j] = t[j].i;
  free(t);
  return 0;
}

/*
 * Fast path for n < 2^32: sort 64-bit words holding the upper 32 bits of the
 * key (sign, exponent and 20 bits of mantissa, which order like the value)
 * above the 32-bit index.  Three 11-bit passes of a stable radix sort suffice
 * (11 bits keep the counters in the first-level cache);
 * words with equal upper halves keep index order, and the rare runs whose
 * full keys differ only in the low mantissa bits are then sorted exactly.
 * Where size_t is 64 bits the caller's order array is one of the two
 * buffers of the radix sort, so that sorting n keys touches 16 bytes of
 * fresh memory per key instead of 24: fresh pages, not the passes, are
 * most of the cost at 10^6 keys.
 */
static int packed_sort(size_t n, const double *key, size_t *order, int desc, uint64_t *ws)
{
  int rc = -2;
#if SIZE_MAX == UINT64_MAX
  uint64_t *a = (uint64_t *)order;
#else
  uint64_t *a = malloc((n ? n : 1) * sizeof(uint64_t));
#endif
  uint64_t *b = ws != NULL ? ws : malloc((n ? n : 1) * sizeof(uint64_t));
  size_t *count = malloc(3 * RADIX_SIZE * sizeof(size_t));
  uint64_t *const first = a, *const second = b;
  if (!a || !b || !count) goto end;
  uint64_t all_or = 0, all_and = ~(uint64_t)0;
  for (size_t i = 0; i < n; i++) {
    uint64_t hi = key_bits(key[i]) >> 32;
    if (desc) hi = ~hi & 0xffffffffu;
    a[i] = (hi << 32) | (uint64_t)i;
    all_or |= a[i];
    all_and &= a[i];
  }
  /* The counts of all three digits in one pass over the words (their
   * multiset does not change from pass to pass). */
  digit_offsets3(a, n, count);
  for (int pass = 0, shift = 32; shift < 64; pass++, shift += RADIX_BITS) {
    uint64_t mask = (uint64_t)(RADIX_SIZE - 1) << shift;
    if (((all_or ^ all_and) & mask) == 0) continue;
    size_t *cnt = count + (size_t)pass * RADIX_SIZE;
    for (size_t i = 0; i < n; i++) b[cnt[(a[i] >> shift) & (RADIX_SIZE - 1)]++] = a[i];
    uint64_t *t = a;
    a = b;
    b = t;
  }
  /* The indices into order, and each run of equal upper halves sorted
   * exactly once it is complete.  order may be the array a itself: every
   * word is read before its slot is overwritten, and a run is sorted only
   * after all of its words were read. */
  size_t k = 0;
  uint64_t run_hi = n ? a[0] >> 32 : 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t v = a[i];
    order[i] = (size_t)(v & 0xffffffffu);
    if ((v >> 32) != run_hi) {
      if (i - k > 1 && sort_run(order + k, i - k, key, desc)) goto end;
      k = i;
      run_hi = v >> 32;
    }
  }
  if (n - k > 1 && sort_run(order + k, n - k, key, desc)) goto end;
  rc = 0;
end:
#if SIZE_MAX == UINT64_MAX
  (void)first;
#else
  free(first);
#endif
  if (second != ws) free(second);
  free(count);
  return rc;
}

/* Keys already in the order asked for (equal keys in any order: the
 * stable order keeps them in index order) need no sort: the identity.  The
 * check stops at the first key out of order, within a few keys for keys
 * in no order. */
static int already_sorted(size_t n, const double *key, size_t *order, int desc)
{
  for (size_t i = 1; i < n; i++)
    if (desc ? key[i - 1] < key[i] : key[i - 1] > key[i]) return 0;
  for (size_t i = 0; i < n; i++) order[i] = i;
  return 1;
}

int greedy_sort_desc_ws(size_t n, const double *key, size_t *order, uint64_t *ws)
{
  if (already_sorted(n, key, order, 1)) return 0;
  if (n < ((size_t)1 << 32)) return packed_sort(n, key, order, 1, ws);
  return radix_sort(n, key, order, 1);
}

int greedy_sort_desc(size_t n, const double *key, size_t *order)
{
  return greedy_sort_desc_ws(n, key, order, NULL);
}

int greedy_sort_asc_ws(size_t n, const double *key, size_t *order, uint64_t *ws)
{
  if (already_sorted(n, key, order, 0)) return 0;
  if (n < ((size_t)1 << 32)) return packed_sort(n, key, order, 0, ws);
  return radix_sort(n, key, order, 0);
}

int greedy_sort_asc(size_t n, const double *key, size_t *order)
{
  return greedy_sort_asc_ws(n, key, order, NULL);
}

void greedy_rscale_of(double max, greedy_rscale *s)
{
  /* max lies in [2^e, 2^(e+1)); the scale 2^(e-62) keeps every truncated
   * multiple below 2^63.  The factor 2^(62-e) spans 2^-961 to 2^1136, more
   * than one double holds, so it is split in two. */
  int k = max > 0.0 ? 62 - ilogb(max) : 0;
  int k1 = k / 2, k2 = k - k1;
  s->to_int[0] = ldexp(1.0, k1);
  s->to_int[1] = ldexp(1.0, k2);
  s->from_int[0] = ldexp(1.0, -k1);
  s->from_int[1] = ldexp(1.0, -k2);
}

void greedy_rsum_merge(greedy_rsum *a, const greedy_rsum *b)
{
  a->lo += b->lo;
  a->hi += b->hi + (a->lo < b->lo);
}

double greedy_rsum_value(const greedy_rsum *a, const greedy_rscale *s)
{
  double v = (double)a->hi * 0x1p64 + (double)a->lo;
  return v * s->from_int[0] * s->from_int[1];
}

double greedy_rsum_array(size_t n, const double *x, size_t stride)
{
  double max = 0.0;
  greedy_rscale s;
  greedy_rsum a = {0, 0};
  for (size_t i = 0; i < n; i++)
    if (x[i * stride] > max) max = x[i * stride];
  greedy_rscale_of(max, &s);
  for (size_t i = 0; i < n; i++) greedy_rsum_add(&a, &s, x[i * stride]);
  return greedy_rsum_value(&a, &s);
}

/* The merge's state: each run's next key and its end. */
typedef struct merge_runs {
  const double *key;
  const uint64_t *tie; /* beside key, or NULL */
  size_t *next;        /* index of each run's next key */
  size_t *end;         /* one past each run's last key */
} merge_runs;

/* x when c is 1, y when it is 0, by masks: the key of the winner is read
 * again through its index, because a select of two doubles, or of two
 * indices written as one, compiles to a branch that is mispredicted half
 * the time (which run wins is a coin flip). */
static inline size_t pick(int c, size_t x, size_t y)
{
  size_t m = (size_t)0 - (size_t)c;
  return (x & m) | (y & ~m);
}

/* 1 when key[b] of the second run comes before key[a] of the first: the
 * larger key, on equal keys the smaller tie, else the first run. */
static inline int second_first(const double *key, const uint64_t *tie, size_t a, size_t b)
{
  double ka = key[a], kb = key[b];
  return kb > ka || (kb == ka && tie != NULL && tie[b] < tie[a]);
}

/* Forward merge of key[a..ea) and key[b..eb) into out[k..]: one comparison
 * per key, written so that it needs no branch (which run wins is a coin
 * flip).  The order: the larger key; on equal keys the smaller tie, else
 * the first run. */
static void merge_forward(const double *key, const uint64_t *tie, size_t a, size_t ea, size_t b,
                          size_t eb, size_t k, double *out, int *src)
{
  while (a < ea && b < eb) {
    int take_b = second_first(key, tie, a, b);
    out[k] = key[pick(take_b, b, a)];
    src[k++] = take_b;
    a += (size_t)!take_b;
    b += (size_t)take_b;
  }
  for (; a < ea; a++, k++) {
    out[k] = key[a];
    src[k] = 0;
  }
  for (; b < eb; b++, k++) {
    out[k] = key[b];
    src[k] = 1;
  }
}

/* The two runs of the commonest case, merged from both ends at once: the
 * front places the key that comes first, the back the key that comes last,
 * one of each per step.  A merge is bound by the latency of its chain of
 * dependent loads (the next key read depends on the last comparison); two
 * independent chains run side by side.  The back's comparison mirrors the
 * front's (on equal keys the larger tie, else the second run, comes
 * last), so the two ends are the two ends of the front's own order, and
 * what is left between them when either run is used up is merged forward:
 * the same keys and runs as merge_forward alone gives. */
static void merge_two(merge_runs *mr, double *out, int *src)
{
  const double *key = mr->key;
  const uint64_t *tie = mr->tie;
  size_t a = mr->next[0], ea = mr->end[0], b = mr->next[1], eb = mr->end[1];
  size_t lo = 0, hi = (ea - a) + (eb - b);
  /* Bitwise rather than logical operators: no branch on a comparison. */
  while (hi - lo >= 2 && a < ea && b < eb) {
    double ka = key[a], kb = key[b], la = key[ea - 1], lb = key[eb - 1];
    int take_b = (kb > ka) | ((kb == ka) & (tie != NULL && tie[b] < tie[a]));
    int last_b = (lb < la) | ((lb == la) & (tie == NULL || tie[eb - 1] >= tie[ea - 1]));
    out[lo] = key[pick(take_b, b, a)];
    src[lo++] = take_b;
    a += (size_t)!take_b;
    b += (size_t)take_b;
    if (a == ea || b == eb) break;
    out[--hi] = key[pick(last_b, eb - 1, ea - 1)];
    src[hi] = last_b;
    ea -= (size_t)!last_b;
    eb -= (size_t)last_b;
  }
  merge_forward(key, tie, a, ea, b, eb, lo, out, src);
}

/* The tournament's view of a run: its next key and tie; an empty run's key
 * is below every weight, so that it never wins while a key is left. */
typedef struct run_head {
  double k;   /* the next key, or -inf */
  uint64_t t; /* its tie (0 without ties), or the largest value */
} run_head;

static inline int head_first(const run_head *h, int a, int b)
{
  if (h[a].k != h[b].k) return h[a].k > h[b].k;
  if (h[a].t != h[b].t) return h[a].t < h[b].t;
  return a < b;
}

static void head_load(const merge_runs *mr, run_head *h, int r)
{
  if (mr->next[r] < mr->end[r]) {
    h[r].k = mr->key[mr->next[r]];
    h[r].t = mr->tie != NULL ? mr->tie[mr->next[r]] : 0;
  } else {
    h[r].k = -INFINITY;
    h[r].t = UINT64_MAX;
  }
}

/* More than two runs: a tournament, where win[i] is the run whose next key
 * wins the subtree of node i (leaves at leaves .. 2 leaves - 1); after each
 * key only the path from the winner's leaf to the root is played again, on
 * the heads kept beside the tree (a match reads two entries of one small
 * array).  The order: the larger key, on equal keys the smaller tie, then
 * the lower run, as merge_two. */
static void tournament_start(merge_runs *mr, size_t leaves, run_head *head, int *win)
{
  for (size_t i = 0; i < leaves; i++) {
    head_load(mr, head, (int)i);
    win[leaves + i] = (int)i;
  }
  for (size_t i = leaves - 1; i >= 1; i--)
    win[i] = head_first(head, win[2 * i], win[2 * i + 1]) ? win[2 * i] : win[2 * i + 1];
}

/* The run whose next key comes first; that key is taken (the run's next
 * moves on) and the winner's path played again. */
static inline int tournament_take(merge_runs *mr, size_t leaves, run_head *head, int *win)
{
  int w = win[1];
  mr->next[w]++;
  head_load(mr, head, w);
  for (size_t i = (leaves + (size_t)w) / 2; i >= 1; i /= 2) {
    int a = win[2 * i], b = win[2 * i + 1];
    win[i] = head_first(head, a, b) ? a : b;
  }
  return w;
}

static void merge_tournament(merge_runs *mr, size_t leaves, run_head *head, int *win, size_t n,
                             double *out, int *src)
{
  tournament_start(mr, leaves, head, win);
  for (size_t k = 0; k < n; k++) {
    int w = tournament_take(mr, leaves, head, win);
    out[k] = mr->key[mr->next[w] - 1];
    src[k] = w;
  }
}

int greedy_merge_desc(int m, const double *key, const uint64_t *tie, const size_t *first,
                      const size_t *count, double *out, int *src)
{
  size_t n = 0, leaves = 1;
  int rc = -2, r;
  merge_runs mr = {key, tie, NULL, NULL};
  int *win = NULL;
  run_head *head = NULL;
  for (r = 0; r < m; r++) n += count[r];
  while (leaves < (size_t)m) leaves *= 2;
  /* Padding runs past m are empty: their next is their end. */
  mr.next = calloc(leaves, sizeof *mr.next);
  mr.end = calloc(leaves, sizeof *mr.end);
  win = malloc(2 * leaves * sizeof *win);
  if (mr.next == NULL || mr.end == NULL || win == NULL) goto end;
  for (r = 0; r < m; r++) {
    mr.next[r] = first[r];
    mr.end[r] = first[r] + count[r];
  }
  if (m == 2) {
    merge_two(&mr, out, src);
  } else {
    head = malloc(leaves * sizeof *head);
    if (head == NULL) goto end;
    merge_tournament(&mr, leaves, head, win, n, out, src);
  }
  rc = 0;
end:
  free(mr.next);
  free(mr.end);
  free(win);
  free(head);
  return rc;
}

/* A merge read a block at a time (greedy_runs_open). */
struct greedy_runs {
  int m;          /* runs */
  size_t leaves;  /* the tournament's leaves (m rounded up to a power of 2) */
  merge_runs mr;  /* each run's next key and end */
  run_head *head; /* the tournament's heads (m > 2) */
  int *win;       /* the tournament's tree (m > 2) */
};

void greedy_runs_close(greedy_runs *g)
{
  if (g == NULL) return;
  free(g->mr.next);
  free(g->mr.end);
  free(g->head);
  free(g->win);
  free(g);
}

greedy_runs *greedy_runs_open(int m, const double *key, const uint64_t *tie, const size_t *first,
                              const size_t *count)
{
  greedy_runs *g = calloc(1, sizeof *g);
  int r;
  if (g == NULL || m < 1) {
    free(g);
    return NULL;
  }
  g->m = m;
  g->leaves = 1;
  while (g->leaves < (size_t)m) g->leaves *= 2;
  g->mr.key = key;
  g->mr.tie = tie;
  /* Padding runs past m are empty: their next is their end (one run is
   * read as two, the second empty). */
  g->mr.next = calloc(g->leaves + 1, sizeof *g->mr.next);
  g->mr.end = calloc(g->leaves + 1, sizeof *g->mr.end);
  if (m > 2) {
    g->head = malloc(g->leaves * sizeof *g->head);
    g->win = malloc(2 * g->leaves * sizeof *g->win);
  }
  if (g->mr.next == NULL || g->mr.end == NULL || (m > 2 && (g->head == NULL || g->win == NULL))) {
    greedy_runs_close(g);
    return NULL;
  }
  for (r = 0; r < m; r++) {
    g->mr.next[r] = first[r];
    g->mr.end[r] = first[r] + count[r];
  }
  if (m > 2) tournament_start(&g->mr, g->leaves, g->head, g->win);
  return g;
}

size_t greedy_runs_next(greedy_runs *g, size_t *idx, size_t max)
{
  size_t k = 0;
  if (g->m > 2) {
    for (; k < max && g->head[g->win[1]].k != -INFINITY; k++) {
      int w = tournament_take(&g->mr, g->leaves, g->head, g->win);
      idx[k] = g->mr.next[w] - 1;
    }
    return k;
  }
  size_t a = g->mr.next[0], ea = g->mr.end[0], b = g->mr.next[1], eb = g->mr.end[1];
  /* One run (m == 1) is run 0 with run 1 empty. */
  while (k < max && a < ea && b < eb) {
    int take_b = second_first(g->mr.key, g->mr.tie, a, b);
    idx[k++] = pick(take_b, b, a);
    a += (size_t)!take_b;
    b += (size_t)take_b;
  }
  for (; k < max && a < ea; a++) idx[k++] = a;
  for (; k < max && b < eb; b++) idx[k++] = b;
  g->mr.next[0] = a;
  g->mr.next[1] = b;
  return k;
}

/* An index with its tie, for the long stretches of greedy_break_ties. */
typedef struct tied {
  uint64_t t; /* the tie */
  size_t i;   /* the index */
} tied;

/* digit_offsets over the ties of len tied entries. */
static void digit_offsets_tied(const tied *a, size_t len, int shift, size_t *count)
{
  memset(count, 0, RADIX_SIZE * sizeof(size_t));
  for (size_t j = 0; j < len; j++) count[(a[j].t >> shift) & (RADIX_SIZE - 1)]++;
  size_t sum = 0;
  for (size_t d = 0; d < RADIX_SIZE; d++) {
    size_t c = count[d];
    count[d] = sum;
    sum += c;
  }
}

/* Stable LSD radix sort of len tied entries by t (a is sorted in place, b
 * is scratch); digits that are equal in every entry are skipped. */
static void radix_tied(tied *a, tied *b, size_t len, size_t *count)
{
  uint64_t all_or = 0, all_and = ~(uint64_t)0;
  for (size_t j = 0; j < len; j++) {
    all_or |= a[j].t;
    all_and &= a[j].t;
  }
  for (int shift = 0; shift < 64; shift += RADIX_BITS) {
    if ((((all_or ^ all_and) >> shift) & (RADIX_SIZE - 1)) == 0) continue;
    digit_offsets_tied(a, len, shift, count);
    for (size_t j = 0; j < len; j++) b[count[(a[j].t >> shift) & (RADIX_SIZE - 1)]++] = a[j];
    memcpy(a, b, len * sizeof *a);
  }
}

/* Order the stretch order[0..len-1] by tie (stable), the ties beside the
 * indices (tie[j] is the tie of order[j]) moving with them. */
static int sort_stretch(size_t *order, uint64_t *tie, size_t len)
{
  if (len <= SORT_RUN_INSERTION_MAX) {
    for (size_t j = 1; j < len; j++) {
      size_t v = order[j], m = j;
      uint64_t t = tie[j];
      while (m > 0 && tie[m - 1] > t) {
        order[m] = order[m - 1];
        tie[m] = tie[m - 1];
        m--;
      }
      order[m] = v;
      tie[m] = t;
    }
    return 0;
  }
  tied *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b);
  size_t *count = malloc(RADIX_SIZE * sizeof *count);
  int rc = -2;
  if (a != NULL && b != NULL && count != NULL) {
    for (size_t j = 0; j < len; j++) {
      a[j].t = tie[j];
      a[j].i = order[j];
    }
    radix_tied(a, b, len, count);
    for (size_t j = 0; j < len; j++) {
      order[j] = a[j].i;
      tie[j] = a[j].t;
    }
    rc = 0;
  }
  free(a);
  free(b);
  free(count);
  return rc;
}

int greedy_break_ties(size_t n, const double *sorted, uint64_t *tie, size_t *order)
{
  size_t k = 0, e;
  while (k < n) {
    double v = sorted[k];
    for (e = k + 1; e < n && sorted[e] == v; e++) {
    }
    if (e - k > 1 && sort_stretch(order + k, tie + k, e - k) != 0) return -2;
    k = e;
  }
  return 0;
}
