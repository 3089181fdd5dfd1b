/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core_testutil.h"
#include "greedy_core.h"
#include "greedy_util.h"

/* Smallest possible max load of n objects on p equal parts, by enumeration. */
static double brute_force_opt(size_t n, const double *w, int p)
{
  int assign[12] = {0};
  double best = INFINITY;
  for (;;) {
    double load[4] = {0, 0, 0, 0}, m = 0.0;
    for (size_t i = 0; i < n; i++) load[assign[i]] += w[i];
    for (int q = 0; q < p; q++) m = load[q] > m ? load[q] : m;
    best = m < best ? m : best;
    size_t k = 0;
    while (k < n && ++assign[k] == p) assign[k++] = 0;
    if (k == n) break;
  }
  return best;
}

static double max_load(size_t n, const double *w, int p, const int *part)
{
  double load[64] = {0}, m = 0.0;
  for (size_t i = 0; i < n; i++) load[part[i]] += w[i];
  for (int q = 0; q < p; q++) m = load[q] > m ? load[q] : m;
  return m;
}

/* GREEDY's max load is within Graham's LPT bound 4/3 - 1/(3P) of the optimum. */
static void greedy_keeps_lpt_bound_against_brute_force(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed(&rng, 2024);
  double worst_ratio = 0.0;
  for (int trial = 0; trial < 300; trial++) {
    int p = 2 + (int)zp_rng_below(&rng, 3); /* 2..4 parts */
    size_t n = (size_t)p + 1 + zp_rng_below(&rng, p == 4 ? 5 : 7);
    double w[12];
    int part[12];
    for (size_t i = 0; i < n; i++)
      w[i] = trial % 2 ? (double)(1 + zp_rng_below(&rng, 20)) : 1.0 + 9.0 * zp_rng_uniform(&rng);
    assert_int_equal(greedy_assign(n, 1, w, p, NULL, part), GREEDY_OK);
    assert_int_equal(ct_check_assignment(n, 1, w, p, NULL, 1, part), 0);
    double opt = brute_force_opt(n, w, p);
    double got = max_load(n, w, p, part);
    assert_true(got >= opt - 1e-9);
    assert_true(got <= (4.0 / 3.0 - 1.0 / (3.0 * p)) * opt + 1e-9);
    worst_ratio = fmax(worst_ratio, got / opt);
  }
  /* The cases must be hard enough that GREEDY is not always optimal. */
  assert_true(worst_ratio > 1.0);
}

/* Each part's load stays within one object of its own target size. */
static void greedy_honours_part_sizes(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed(&rng, 7);
  const double frac[4] = {0.1, 0.2, 0.3, 0.4};
  size_t n = 4000;
  double *w = malloc(n * sizeof(double));
  int *part = malloc(n * sizeof(int));
  double wmax = 0.0, total = 0.0;
  for (size_t i = 0; i < n; i++) {
    w[i] = 1.0 + zp_rng_uniform(&rng);
    wmax = fmax(wmax, w[i]);
    total += w[i];
  }
  assert_int_equal(greedy_assign(n, 1, w, 4, frac, part), GREEDY_OK);
  assert_int_equal(ct_check_assignment(n, 1, w, 4, frac, 1, part), 0);
  double load[4] = {0};
  for (size_t i = 0; i < n; i++) load[part[i]] += w[i];
  for (int p = 0; p < 4; p++) {
    /* Placing on the least relative load bounds every part by 1 + wmax/cap. */
    double cap = frac[p] * total;
    assert_true(load[p] <= cap + wmax + 1e-9);
    assert_true(load[p] >= cap - 4.0 * wmax);
  }
  free(w);
  free(part);
}

/* Parts of size zero get no object; an all-zero size vector means equal sizes. */
static void greedy_gives_nothing_to_zero_size_parts(void **state)
{
  (void)state;
  const double frac[5] = {0.0, 0.5, 0.0, 0.5, 0.0};
  const double zero[3] = {0.0, 0.0, 0.0};
  double w[40];
  int part[40];
  for (int i = 0; i < 40; i++) w[i] = 1.0 + (i % 7);
  assert_int_equal(greedy_assign(40, 1, w, 5, frac, part), GREEDY_OK);
  assert_int_equal(ct_check_assignment(40, 1, w, 5, frac, 1, part), 0);
  for (int i = 0; i < 40; i++) assert_true(part[i] == 1 || part[i] == 3);
  assert_int_equal(greedy_assign(40, 1, w, 3, zero, part), GREEDY_OK);
  int used[3] = {0};
  for (int i = 0; i < 40; i++) used[part[i]] = 1;
  assert_true(used[0] && used[1] && used[2]);
}

/* Equal weights are dealt in input order: object k goes to part k mod P. */
static void greedy_breaks_ties_by_input_index(void **state)
{
  (void)state;
  double w[7] = {2, 2, 2, 2, 2, 2, 2};
  int part[7];
  assert_int_equal(greedy_assign(7, 1, w, 3, NULL, part), GREEDY_OK);
  for (int k = 0; k < 7; k++) assert_int_equal(part[k], k % 3);
  /* Among different weights the heaviest goes first: 5 to part 0, 4 to 1,
   * 3 to 2, then the two 1s to the least loaded, part 2 (3) then part 1 (4). */
  double v[5] = {1, 3, 5, 1, 4};
  int q[5];
  assert_int_equal(greedy_assign(5, 1, v, 3, NULL, q), GREEDY_OK);
  assert_int_equal(q[2], 0);
  assert_int_equal(q[4], 1);
  assert_int_equal(q[1], 2);
  assert_int_equal(q[0], 2);
  assert_int_equal(q[3], 1);
}

typedef struct gid_obj {
  unsigned gid;
  double w;
} gid_obj;

static int by_gid(const void *a, const void *b)
{
  unsigned x = ((const gid_obj *)a)->gid, y = ((const gid_obj *)b)->gid;
  return (x > y) - (x < y);
}

/* Shuffling the objects and re-sorting them by GID (what the framework does
 * for any rank count) gives the same part for every GID, with many ties. */
static void greedy_is_independent_of_distribution_order(void **state)
{
  (void)state;
  enum { N = 3000 };
  zp_rng rng;
  zp_rng_seed(&rng, 99);
  gid_obj *a = malloc(N * sizeof(gid_obj)), *b = malloc(N * sizeof(gid_obj));
  double *wa = malloc(N * sizeof(double)), *wb = malloc(N * sizeof(double));
  int *pa = malloc(N * sizeof(int)), *pb = malloc(N * sizeof(int));
  for (unsigned i = 0; i < N; i++) {
    a[i].gid = 7 * i + 3;
    a[i].w = (double)(1 + zp_rng_below(&rng, 5)); /* only five values: ties */
  }
  memcpy(b, a, N * sizeof(gid_obj));
  for (size_t i = N - 1; i > 0; i--) {
    size_t j = (size_t)zp_rng_below(&rng, i + 1);
    gid_obj t = b[i];
    b[i] = b[j];
    b[j] = t;
  }
  qsort(b, N, sizeof(gid_obj), by_gid);
  for (size_t i = 0; i < N; i++) {
    wa[i] = a[i].w;
    wb[i] = b[i].w;
  }
  assert_int_equal(greedy_assign(N, 1, wa, 17, NULL, pa), GREEDY_OK);
  assert_int_equal(greedy_assign(N, 1, wb, 17, NULL, pb), GREEDY_OK);
  for (size_t i = 0; i < N; i++) {
    assert_int_equal(a[i].gid, b[i].gid);
    assert_int_equal(pa[i], pb[i]);
  }
  /* And a second run gives the same again. */
  assert_int_equal(greedy_assign(N, 1, wa, 17, NULL, pb), GREEDY_OK);
  assert_memory_equal(pa, pb, N * sizeof(int));
  free(a);
  free(b);
  free(wa);
  free(wb);
  free(pa);
  free(pb);
}

/* With two weights, every dimension ends close to balanced. */
static void greedy_balances_every_weight_dimension(void **state)
{
  (void)state;
  enum { N = 2000, P = 4 };
  zp_rng rng;
  zp_rng_seed(&rng, 5);
  double *w = malloc(2 * N * sizeof(double));
  int *part = malloc(N * sizeof(int));
  for (size_t i = 0; i < N; i++) {
    double u = zp_rng_uniform(&rng);
    w[2 * i] = u;           /* anti-correlated dimensions: a single-weight */
    w[2 * i + 1] = 1.0 - u; /* method would balance only one of them */
  }
  assert_int_equal(greedy_assign(N, 2, w, P, NULL, part), GREEDY_OK);
  assert_int_equal(ct_check_assignment(N, 2, w, P, NULL, 1, part), 0);
  double load[P][2] = {{0}}, tot[2] = {0};
  for (size_t i = 0; i < N; i++)
    for (int d = 0; d < 2; d++) {
      load[part[i]][d] += w[2 * i + d];
      tot[d] += w[2 * i + d];
    }
  for (int p = 0; p < P; p++)
    for (int d = 0; d < 2; d++) assert_true(load[p][d] / (tot[d] / P) <= 1.02);
  double imb;
  assert_int_equal(greedy_imbalance(N, 2, w, P, NULL, part, &imb), GREEDY_OK);
  assert_true(imb >= 1.0 && imb <= 1.02);
  free(w);
  free(part);
}

/* 16 heavy-tailed objects per part reach max/avg <= 1.01 (the GREEDY core's balance goal). */
static void greedy_reaches_one_percent_with_16_objects_per_part(void **state)
{
  (void)state;
  enum { P = 64, N = 16 * P };
  zp_rng rng;
  zp_rng_seed(&rng, 16);
  double w[N];
  int part[N];
  ct_heavy_tailed(&rng, N, 1.0, 1000.0, w);
  assert_int_equal(greedy_assign(N, 1, w, P, NULL, part), GREEDY_OK);
  assert_int_equal(ct_check_assignment(N, 1, w, P, NULL, 1, part), 0);
  assert_true(ct_max_rel_load(N, w, P, NULL, part) <= 1.01);
}

/* A GREEDY pass given the order of greedy_order answers exactly as the pass
 * that sorts for itself, plain and keeping, for one and two weights (the
 * shared order GREEDYREFINE computes once). */
static void greedy_given_order_gives_the_same_answers(void **state)
{
  (void)state;
  enum { N = 3000, P = 7 };
  zp_rng rng;
  zp_rng_seed(&rng, 36);
  double *w = malloc(2 * N * sizeof(double));
  int *cur = malloc(N * sizeof(int)), *a = malloc(N * sizeof(int)), *b = malloc(N * sizeof(int));
  size_t *order = malloc(N * sizeof(size_t));
  for (size_t i = 0; i < 2 * N; i++) w[i] = 1.0 + 999.0 * pow(zp_rng_uniform(&rng), 4.0);
  for (size_t i = 0; i < N; i++) cur[i] = (int)(i * P / N);
  for (int wdim = 1; wdim <= 2; wdim++) {
    double known[4], ia, ib;
    assert_int_equal(greedy_order(N, wdim, w, order), GREEDY_OK);
    assert_int_equal(greedy_weight_sums(N, wdim, w, known), GREEDY_OK);
    assert_int_equal(greedy_assign(N, wdim, w, P, NULL, a), GREEDY_OK);
    assert_int_equal(greedy_assign_ordered(N, wdim, w, P, NULL, order, NULL, b), GREEDY_OK);
    assert_memory_equal(a, b, N * sizeof(int));
    /* The figures computed once give the same parts and imbalance. */
    assert_int_equal(greedy_assign_ordered(N, wdim, w, P, NULL, order, known, b), GREEDY_OK);
    assert_memory_equal(a, b, N * sizeof(int));
    assert_int_equal(greedy_imbalance(N, wdim, w, P, NULL, a, &ia), GREEDY_OK);
    assert_int_equal(greedy_imbalance_known(N, wdim, w, P, NULL, a, known, &ib), GREEDY_OK);
    assert_memory_equal(&ia, &ib, sizeof ia);
    for (int mode = 0; mode < 2; mode++) {
      assert_int_equal(
          greedy_assign_keep(N, wdim, w, P, NULL, cur, 1.02, (greedy_keep_mode)mode, a, NULL),
          GREEDY_OK);
      assert_int_equal(greedy_assign_keep_ordered(N, wdim, w, P, NULL, cur, 1.02,
                                                  (greedy_keep_mode)mode, order, NULL, b, NULL),
                       GREEDY_OK);
      assert_memory_equal(a, b, N * sizeof(int));
      assert_int_equal(greedy_assign_keep_ordered(N, wdim, w, P, NULL, cur, 1.02,
                                                  (greedy_keep_mode)mode, order, known, b, NULL),
                       GREEDY_OK);
      assert_memory_equal(a, b, N * sizeof(int));
      assert_int_equal(ct_check_assignment(N, wdim, w, P, NULL, 1, b), 0);
    }
  }
  free(w);
  free(cur);
  free(a);
  free(b);
  free(order);
}

/* Keeping under a limit the input already meets moves nothing. */
static void greedy_keep_moves_nothing_when_input_fits(void **state)
{
  (void)state;
  enum { N = 500, P = 10 };
  zp_rng rng;
  zp_rng_seed(&rng, 11);
  double w[N];
  int cur[N], out[N];
  ct_heavy_tailed(&rng, N, 1.0, 50.0, w);
  for (int i = 0; i < N; i++) cur[i] = i % P;
  double imb;
  assert_int_equal(greedy_imbalance(N, 1, w, P, NULL, cur, &imb), GREEDY_OK);
  for (int mode = 0; mode < 2; mode++) {
    size_t moved = 99;
    assert_int_equal(greedy_assign_keep(N, 1, w, P, NULL, cur, imb, mode, out, &moved), GREEDY_OK);
    assert_int_equal(moved, 0);
    assert_memory_equal(cur, out, sizeof(cur));
  }
  /* A tighter limit moves some objects but never leaves a part above what
   * plain list scheduling would allow. */
  size_t moved = 0;
  assert_int_equal(
      greedy_assign_keep(N, 1, w, P, NULL, cur, 1.0, GREEDY_KEEP_HEAVY_FIRST, out, &moved),
      GREEDY_OK);
  assert_int_equal(ct_check_assignment(N, 1, w, P, NULL, 1, out), 0);
  assert_true(moved > 0 && moved < N);
  assert_int_equal(moved, ct_moved(N, cur, out));
}

/* Invalid arguments are refused with GREEDY_EINVAL and nothing else. */
static void greedy_rejects_bad_arguments(void **state)
{
  (void)state;
  double w[3] = {1, 2, 3}, bad[3] = {1, NAN, 3}, neg[3] = {1, -1, 3};
  double frac_neg[2] = {1, -1}, frac_nan[2] = {NAN, 1};
  int part[3], cur[3] = {0, 1, 0}, badcur[3] = {0, 2, 0};
  double imb;
  assert_int_equal(greedy_assign(3, 1, NULL, 2, NULL, part), GREEDY_EINVAL);
  assert_int_equal(greedy_assign(3, 1, w, 2, NULL, NULL), GREEDY_EINVAL);
  assert_int_equal(greedy_assign(3, 0, w, 2, NULL, part), GREEDY_EINVAL);
  assert_int_equal(greedy_assign(3, 1, w, 0, NULL, part), GREEDY_EINVAL);
  assert_int_equal(greedy_assign(3, 1, bad, 2, NULL, part), GREEDY_EINVAL);
  assert_int_equal(greedy_assign(3, 1, neg, 2, NULL, part), GREEDY_EINVAL);
  assert_int_equal(greedy_assign(3, 1, w, 2, frac_neg, part), GREEDY_EINVAL);
  assert_int_equal(greedy_assign(3, 1, w, 2, frac_nan, part), GREEDY_EINVAL);
  assert_int_equal(greedy_assign_keep(3, 1, w, 2, NULL, badcur, 1.0, 0, part, NULL), GREEDY_EINVAL);
  assert_int_equal(greedy_assign_keep(3, 1, w, 2, NULL, cur, NAN, 0, part, NULL), GREEDY_EINVAL);
  assert_int_equal(greedy_assign_keep(3, 1, w, 2, NULL, cur, 1.0, 7, part, NULL), GREEDY_EINVAL);
  assert_int_equal(greedy_assign_keep(3, 1, w, 2, NULL, cur, 1.0, 0, cur, NULL), GREEDY_EINVAL);
  assert_int_equal(greedy_imbalance(3, 1, w, 2, NULL, badcur, &imb), GREEDY_EINVAL);
  double known[2];
  assert_int_equal(greedy_weight_sums(3, 1, bad, known), GREEDY_EINVAL);
  assert_int_equal(greedy_weight_sums(3, 1, neg, known), GREEDY_EINVAL);
  assert_int_equal(greedy_weight_sums(3, 1, w, NULL), GREEDY_EINVAL);
  assert_int_equal(greedy_weight_sums(3, 1, w, known), GREEDY_OK);
  assert_int_equal(greedy_imbalance_known(3, 1, w, 2, NULL, badcur, known, &imb), GREEDY_EINVAL);
  /* No objects is not an error. */
  assert_int_equal(greedy_assign(0, 1, NULL, 2, NULL, NULL), GREEDY_OK);
}

/* The radix sort orders by key (even in the low mantissa bits), then index. */
static void greedy_sort_orders_by_key_then_index(void **state)
{
  (void)state;
  enum { N = 5000 };
  zp_rng rng;
  zp_rng_seed(&rng, 3);
  double *key = malloc(N * sizeof(double));
  size_t *o = malloc(N * sizeof(size_t));
  for (size_t i = 0; i < N; i++) {
    uint64_t r = zp_rng_below(&rng, 6);
    /* Values equal in their upper 32 bits but different below, exact ties,
     * zeros, and an infinity. */
    key[i] = r == 0   ? 0.0
             : r == 1 ? 1.0
             : r == 2 ? nextafter(1.0, 2.0)
             : r == 3 ? 3.0 * zp_rng_uniform(&rng)
             : r == 4 ? INFINITY
                      : 1e-300;
  }
  for (int desc = 0; desc < 2; desc++) {
    assert_int_equal(desc ? greedy_sort_desc(N, key, o) : greedy_sort_asc(N, key, o), 0);
    char *seen = calloc(N, 1);
    for (size_t k = 0; k < N; k++) {
      assert_true(o[k] < N && !seen[o[k]]);
      seen[o[k]] = 1;
      if (k == 0) continue;
      double a = key[o[k - 1]], b = key[o[k]];
      if (a == b)
        assert_true(o[k - 1] < o[k]);
      else
        assert_true(desc ? a > b : a < b);
    }
    free(seen);
  }
  free(key);
  free(o);
}

/* Short runs of keys equal in their upper 32 bits (sorted in place) and
 * long ones (sorted through qsort) come out in the same (key, index) order,
 * and the caller's work buffer changes nothing. */
static void greedy_sort_short_and_long_runs(void **state)
{
  (void)state;
  enum { N = 6000 };
  zp_rng rng;
  zp_rng_seed(&rng, 41);
  double *key = malloc(N * sizeof(double));
  size_t *o = malloc(N * sizeof(size_t)), *o2 = malloc(N * sizeof(size_t));
  uint64_t *ws = malloc(N * sizeof(uint64_t));
  for (size_t i = 0; i < N; i++) {
    /* Runs of 1 to 40 keys (i / 5 or i / 40 picks the run); inside a run
     * the keys differ below the upper 32 bits or tie exactly. */
    size_t run = i < N / 2 ? i / 5 : i / 40;
    double low = ldexp((double)zp_rng_below(&rng, 4), -45);
    key[i] = 1.0 + ldexp((double)run, -12) + low;
  }
  for (int desc = 0; desc < 2; desc++) {
    assert_int_equal(desc ? greedy_sort_desc(N, key, o) : greedy_sort_asc(N, key, o), 0);
    for (size_t k = 1; k < N; k++) {
      double a = key[o[k - 1]], b = key[o[k]];
      if (a == b)
        assert_true(o[k - 1] < o[k]);
      else
        assert_true(desc ? a > b : a < b);
    }
  }
  assert_int_equal(greedy_sort_desc(N, key, o), 0);
  assert_int_equal(greedy_sort_desc_ws(N, key, o2, ws), 0);
  assert_memory_equal(o, o2, N * sizeof(size_t));
  assert_int_equal(greedy_order(N, 1, key, o), GREEDY_OK);
  assert_int_equal(greedy_order_ws(N, 1, key, o2, ws), GREEDY_OK);
  assert_memory_equal(o, o2, N * sizeof(size_t));
  free(key);
  free(o);
  free(o2);
  free(ws);
}

/* The indexed heap always yields the (key, key2, id) minimum, also after
 * arbitrary key changes and removals. */
static void greedy_heap_matches_linear_scan(void **state)
{
  (void)state;
  enum { P = 37 };
  zp_rng rng;
  zp_rng_seed(&rng, 8);
  greedy_heap h;
  double key[P], key2[P];
  int in[P] = {0};
  assert_int_equal(greedy_heap_init(&h, P), 0);
  for (int step = 0; step < 20000; step++) {
    int id = (int)zp_rng_below(&rng, P);
    if (zp_rng_below(&rng, 4) == 0) {
      greedy_heap_remove(&h, id);
      in[id] = 0;
    } else {
      key[id] = (double)zp_rng_below(&rng, 8);
      key2[id] = (double)zp_rng_below(&rng, 3);
      greedy_heap_set(&h, id, key[id], key2[id]);
      in[id] = 1;
    }
    int best = -1;
    for (int q = 0; q < P; q++)
      if (in[q] &&
          (best < 0 || key[q] < key[best] || (key[q] == key[best] && key2[q] < key2[best])))
        best = q;
    assert_int_equal(greedy_heap_top(&h), best);
  }
  greedy_heap_free(&h);
}

/* The reproducible sum gives the same bits in any order and for any split
 * into partial sums, is exact on integers, and stays within the bound of
 * greedy_util.h of a long double sum, at every scale. */
static void greedy_rsum_is_independent_of_order_and_split(void **state)
{
  (void)state;
  enum { N = 4000 };
  zp_rng rng;
  zp_rng_seed(&rng, 77);
  double *x = malloc(N * sizeof(double));
  for (int trial = 0; trial < 60; trial++) {
    /* Scales from tiny to huge, heavy tails, zeros and integers. */
    double scale = ldexp(1.0, (int)zp_rng_below(&rng, 1900) - 1000);
    int integers = trial % 5 == 0;
    long double ref = 0.0L;
    double max = 0.0;
    for (size_t i = 0; i < N; i++) {
      double u = zp_rng_uniform(&rng);
      x[i] = integers                      ? (double)zp_rng_below(&rng, 1000)
             : zp_rng_below(&rng, 10) == 0 ? 0.0
                                           : scale * (1.0 + 999.0 * u * u * u * u);
      ref += x[i];
      if (x[i] > max) max = x[i];
    }
    double whole = greedy_rsum_array(N, x, 1);
    if (integers) assert_true(whole == (double)ref);
    assert_true(fabsl((long double)whole - ref) <= ref * 1e-15L + (long double)max * N * 0x1p-61);
    /* Shuffled, and cut into random partial sums that are merged. */
    for (size_t i = N - 1; i > 0; i--) {
      size_t j = zp_rng_below(&rng, i + 1);
      double t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
    greedy_rscale sc;
    greedy_rscale_of(max, &sc);
    greedy_rsum total = {0, 0}, part = {0, 0};
    for (size_t i = 0; i < N; i++) {
      greedy_rsum_add(&part, &sc, x[i]);
      if (zp_rng_below(&rng, 300) == 0 || i == N - 1) {
        greedy_rsum_merge(&total, &part);
        part.lo = part.hi = 0;
      }
    }
    assert_true(greedy_rsum_value(&total, &sc) == whole);
    assert_true(greedy_rsum_array(N, x, 1) == whole);
  }
  /* Every weight zero sums to zero. */
  memset(x, 0, N * sizeof(double));
  assert_true(greedy_rsum_array(N, x, 1) == 0.0);
  free(x);
}

/* The tie of the k-th merged key: its run's next unread one, found by
 * counting the keys taken from that run before k. */
static uint64_t tie_of(const double *key, const uint64_t *tie, size_t n, const double *out,
                       const int *src, const size_t *first, size_t k)
{
  size_t taken = 0;
  (void)key;
  (void)n;
  (void)out;
  for (size_t q = 0; q < k; q++) taken += src[q] == src[k];
  return tie[first[src[k]] + taken];
}

/* Merging sorted runs gives the stable order of their concatenation:
 * heaviest first, equal keys by run and then by position, for 1 to 9 runs
 * (two runs in 50 trials of their own) with ties, empty runs and a run of
 * one key. */
static void greedy_merge_desc_is_the_stable_sort_of_the_runs(void **state)
{
  (void)state;
  enum { MAXN = 3000, MAXM = 9 };
  zp_rng rng;
  zp_rng_seed(&rng, 5);
  double *key = malloc(MAXN * sizeof(double)), *out = malloc(MAXN * sizeof(double));
  double *sorted = malloc(MAXN * sizeof(double));
  size_t *o = malloc(MAXN * sizeof(size_t)), first[MAXM], count[MAXM];
  int *src = malloc(MAXN * sizeof(int)), *run_of = malloc(MAXN * sizeof(int));
  uint64_t *tie = malloc(MAXN * sizeof(uint64_t));
  for (int trial = 0; trial < 250; trial++) {
    /* The first 50 trials merge two runs, which merge from both ends at
     * once (their own code), with lengths of every parity and empty runs. */
    int m = trial < 50 ? 2 : 1 + (int)zp_rng_below(&rng, MAXM);
    size_t n = 0;
    for (int r = 0; r < m; r++) {
      size_t c = zp_rng_below(&rng, 4) == 0 ? zp_rng_below(&rng, 2) : zp_rng_below(&rng, 300);
      first[r] = n;
      count[r] = c;
      /* Each run sorted heaviest first; few distinct keys, so ties cross
       * runs. */
      for (size_t i = 0; i < c; i++) {
        key[n + i] = (double)zp_rng_below(&rng, 20);
        run_of[n + i] = r;
      }
      assert_int_equal(greedy_sort_desc(c, key + n, o), 0);
      for (size_t i = 0; i < c; i++) sorted[i] = key[n + o[i]];
      memcpy(key + n, sorted, c * sizeof(double));
      n += c;
    }
    assert_int_equal(greedy_merge_desc(m, key, NULL, first, count, out, src), 0);
    assert_int_equal(greedy_sort_desc(n, key, o), 0);
    for (size_t k = 0; k < n; k++) {
      assert_true(out[k] == key[o[k]]);
      assert_int_equal(src[k], run_of[o[k]]);
    }
    /* With ties: unique ties dealt at random to the runs, each run sorted
     * by (key, tie); the merge is the order by (key desc, tie asc). */
    for (size_t i = 0; i < n; i++) tie[i] = i * 7919u % 100003u;
    for (int r = 0; r < m; r++) {
      /* The run is sorted already: its order is the identity, its keys
       * in that order the run itself. */
      for (size_t i = 0; i < count[r]; i++) o[i] = i;
      assert_int_equal(greedy_break_ties(count[r], key + first[r], tie + first[r], o), 0);
    }
    assert_int_equal(greedy_merge_desc(m, key, tie, first, count, out, src), 0);
    for (size_t k = 1; k < n; k++) {
      assert_true(out[k - 1] >= out[k]);
      if (out[k - 1] == out[k])
        assert_true(tie_of(key, tie, n, out, src, first, k - 1) <
                    tie_of(key, tie, n, out, src, first, k));
    }
  }
  free(key);
  free(out);
  free(sorted);
  free(o);
  free(src);
  free(run_of);
  free(tie);
}

/* The runs read a block at a time (greedy_runs_*) come in the order of
 * greedy_merge_desc, and GREEDY's placement of the runs (greedy_assign_runs)
 * gives each object the part greedy_assign_in_order gives it after the
 * merge: 1 to 9 runs (one and two in trials of their own), with and
 * without ties, empty runs, zero weights, part sizes with zeros and blocks
 * of every size; a layout other than runs one after the other from w[0]
 * is refused. */
static void greedy_runs_place_as_the_merge(void **state)
{
  (void)state;
  enum { MAXN = 3000, MAXM = 9 };
  zp_rng rng;
  zp_rng_seed(&rng, 63);
  double *key = malloc(MAXN * sizeof(double)), *out = malloc(MAXN * sizeof(double));
  double *sorted = malloc(MAXN * sizeof(double)), sizes[40];
  size_t *o = malloc(MAXN * sizeof(size_t)), *idx = malloc(MAXN * sizeof(size_t));
  size_t first[MAXM], count[MAXM], next[MAXM];
  int *src = malloc(MAXN * sizeof(int)), *pm = malloc(MAXN * sizeof(int));
  int *pr = malloc(MAXN * sizeof(int));
  uint64_t *tie = malloc(MAXN * sizeof(uint64_t));
  for (int trial = 0; trial < 300; trial++) {
    int m = trial < 30 ? 1 + trial % 2 : 1 + (int)zp_rng_below(&rng, MAXM);
    int p = 1 + (int)zp_rng_below(&rng, 40), sized = trial % 3 == 0, ties = trial % 2 == 0;
    size_t n = 0;
    for (int r = 0; r < m; r++) {
      size_t c = zp_rng_below(&rng, 4) == 0 ? zp_rng_below(&rng, 2) : zp_rng_below(&rng, 330);
      first[r] = n;
      count[r] = c;
      for (size_t i = 0; i < c; i++) {
        double u = zp_rng_uniform(&rng);
        /* Few distinct keys (zero among them: ties across runs) or a heavy
         * tail. */
        key[n + i] = trial % 4 < 2 ? (double)zp_rng_below(&rng, 6) : 1.0 + 999.0 * u * u * u * u;
        tie[n + i] = (n + i) * 7919u % 100003u;
      }
      assert_int_equal(greedy_sort_desc(c, key + n, o), 0);
      for (size_t i = 0; i < c; i++) sorted[i] = key[n + o[i]];
      memcpy(key + n, sorted, c * sizeof(double));
      if (ties) {
        for (size_t i = 0; i < c; i++) o[i] = i;
        assert_int_equal(greedy_break_ties(c, key + n, tie + n, o), 0);
      }
      n += c;
    }
    const uint64_t *t = ties ? tie : NULL;
    assert_int_equal(greedy_merge_desc(m, key, t, first, count, out, src), 0);
    /* The iterator, in blocks of 1 to 700 indices. */
    greedy_runs *g = greedy_runs_open(m, key, t, first, count);
    assert_non_null(g);
    size_t k = 0, got;
    do {
      size_t max = 1 + zp_rng_below(&rng, 700);
      got = greedy_runs_next(g, idx + k, max < MAXN - k ? max : MAXN - k);
      assert_true(got == (max < n - k ? max : n - k));
      k += got;
    } while (got > 0);
    assert_int_equal(k, n);
    assert_int_equal(greedy_runs_next(g, idx, 10), 0);
    greedy_runs_close(g);
    for (int r = 0; r < m; r++) next[r] = first[r];
    for (k = 0; k < n; k++) assert_int_equal(idx[k], next[src[k]]++);
    /* The placement. */
    for (int q = 0; q < p; q++) sizes[q] = zp_rng_below(&rng, 5) == 0 ? 0.0 : zp_rng_uniform(&rng);
    sizes[0] += 0.5; /* some part may receive */
    assert_int_equal(greedy_assign_in_order(n, 1, out, p, sized ? sizes : NULL, pm), GREEDY_OK);
    assert_int_equal(greedy_assign_runs(m, key, t, first, count, p, sized ? sizes : NULL, pr),
                     GREEDY_OK);
    for (k = 0; k < n; k++) assert_int_equal(pr[idx[k]], pm[k]);
    /* Runs with a gap, or out of their order, and no runs at all. */
    if (m >= 2 && count[0] > 0) {
      size_t f1 = first[1];
      first[1] = f1 + 1;
      assert_int_equal(greedy_assign_runs(m, key, t, first, count, p, NULL, pr), GREEDY_EINVAL);
      first[1] = 0;
      assert_int_equal(greedy_assign_runs(m, key, t, first, count, p, NULL, pr), GREEDY_EINVAL);
      first[1] = f1;
    }
  }
  assert_int_equal(greedy_assign_runs(0, key, NULL, first, count, 2, NULL, pr), GREEDY_EINVAL);
  assert_null(greedy_runs_open(0, key, NULL, first, count));
  greedy_runs_close(NULL);
  free(key);
  free(out);
  free(sorted);
  free(o);
  free(idx);
  free(src);
  free(pm);
  free(pr);
  free(tie);
}

/* Equal keys end in the order of their ties, other keys where the sort put
 * them, for short stretches (in place) and long ones (radix). */
static void greedy_break_ties_orders_equal_keys_by_tie(void **state)
{
  (void)state;
  enum { N = 5000 };
  zp_rng rng;
  zp_rng_seed(&rng, 19);
  double *key = malloc(N * sizeof(double)), *sorted = malloc(N * sizeof(double));
  uint64_t *tie = malloc(N * sizeof(uint64_t)), *tie_s = malloc(N * sizeof(uint64_t));
  size_t *o = malloc(N * sizeof(size_t));
  for (int trial = 0; trial < 6; trial++) {
    for (size_t i = 0; i < N; i++) {
      /* Few distinct keys (long stretches) or many (short ones); ties of
       * every size, repeated ones included. */
      key[i] = (double)zp_rng_below(&rng, trial < 3 ? 3 : 2000);
      tie[i] = trial % 2 ? zp_rng_next(&rng) : zp_rng_below(&rng, 50);
    }
    assert_int_equal(greedy_sort_desc(N, key, o), 0);
    for (size_t k = 0; k < N; k++) {
      sorted[k] = key[o[k]];
      tie_s[k] = tie[o[k]];
    }
    assert_int_equal(greedy_break_ties(N, sorted, tie_s, o), 0);
    char *seen = calloc(N, 1);
    for (size_t k = 0; k < N; k++) {
      assert_false(seen[o[k]]);
      seen[o[k]] = 1;
      /* The ties moved with their indices. */
      assert_true(tie_s[k] == tie[o[k]]);
      if (k == 0) continue;
      double a = key[o[k - 1]], b = key[o[k]];
      assert_true(a >= b);
      if (a == b) {
        assert_true(tie[o[k - 1]] <= tie[o[k]]);
        if (tie[o[k - 1]] == tie[o[k]]) assert_true(o[k - 1] < o[k]);
      }
    }
    free(seen);
  }
  free(key);
  free(sorted);
  free(tie);
  free(tie_s);
  free(o);
}

/* The placement of objects given in GREEDY's order is greedy_assign's, for
 * any number of parts, part sizes (zeros included), ties and zero weights. */
static void greedy_in_order_matches_greedy_assign(void **state)
{
  (void)state;
  enum { MAXN = 2000 };
  zp_rng rng;
  zp_rng_seed(&rng, 12);
  double *w = malloc(MAXN * sizeof(double)), *ws = malloc(MAXN * sizeof(double));
  double sizes[40];
  size_t *o = malloc(MAXN * sizeof(size_t));
  int *part = malloc(MAXN * sizeof(int)), *part2 = malloc(MAXN * sizeof(int));
  for (int trial = 0; trial < 300; trial++) {
    size_t n = zp_rng_below(&rng, MAXN);
    int p = 1 + (int)zp_rng_below(&rng, 40), sized = trial % 3 == 0;
    for (size_t i = 0; i < n; i++) {
      double u = zp_rng_uniform(&rng);
      w[i] = trial % 4 == 0 ? (double)zp_rng_below(&rng, 3) : 1.0 + 999.0 * u * u * u * u;
    }
    for (int q = 0; q < p; q++) sizes[q] = zp_rng_below(&rng, 5) == 0 ? 0.0 : zp_rng_uniform(&rng);
    sizes[0] += 0.5; /* some part may receive */
    assert_int_equal(greedy_assign(n, 1, w, p, sized ? sizes : NULL, part), GREEDY_OK);
    assert_int_equal(greedy_order(n, 1, w, o), GREEDY_OK);
    for (size_t k = 0; k < n; k++) ws[k] = w[o[k]];
    assert_int_equal(greedy_assign_in_order(n, 1, ws, p, sized ? sizes : NULL, part2), GREEDY_OK);
    for (size_t k = 0; k < n; k++) assert_int_equal(part2[k], part[o[k]]);
  }
  free(w);
  free(ws);
  free(o);
  free(part);
  free(part2);
}

/* The placements on objects already in GREEDY's order (the identity order,
 * the cheaper heap) give every object the part the general placement gives
 * it on the same objects listed in another order: plain GREEDY and both
 * keeping modes, with and without part sizes. */
static void greedy_identity_order_places_as_any_order(void **state)
{
  (void)state;
  enum { MAXN = 1500 };
  zp_rng rng;
  zp_rng_seed(&rng, 31);
  double *w = malloc(MAXN * sizeof(double)), *ws = malloc(MAXN * sizeof(double)), sizes[24];
  size_t *o = malloc(MAXN * sizeof(size_t)), *id = malloc(MAXN * sizeof(size_t));
  int *cur = malloc(MAXN * sizeof(int)), *cs = malloc(MAXN * sizeof(int));
  int *part = malloc(MAXN * sizeof(int)), *part2 = malloc(MAXN * sizeof(int));
  for (int trial = 0; trial < 200; trial++) {
    size_t n = zp_rng_below(&rng, MAXN);
    int p = 1 + (int)zp_rng_below(&rng, 24), sized = trial % 3 == 0;
    for (size_t i = 0; i < n; i++) {
      double u = zp_rng_uniform(&rng);
      w[i] = trial % 4 == 0 ? (double)zp_rng_below(&rng, 3) : 1.0 + 999.0 * u * u * u * u;
      cur[i] = (int)zp_rng_below(&rng, (uint64_t)p);
    }
    for (int q = 0; q < p; q++) sizes[q] = zp_rng_below(&rng, 5) == 0 ? 0.0 : zp_rng_uniform(&rng);
    sizes[0] += 0.5;
    const double *frac = sized ? sizes : NULL;
    assert_int_equal(greedy_order(n, 1, w, o), GREEDY_OK);
    for (size_t k = 0; k < n; k++) {
      ws[k] = w[o[k]];
      cs[k] = cur[o[k]];
      id[k] = k;
    }
    /* The figures of the weights in one order serve the other order.  The
     * identity goes as an array or, every other trial, as
     * GREEDY_ORDER_IDENTITY, which greedy_in_order allows for ws and for w
     * only when greedy_order gave the identity. */
    double known[2];
    int o_is_identity = 1;
    for (size_t k = 0; k < n; k++) o_is_identity &= o[k] == k;
    assert_int_equal(greedy_in_order(n, 1, ws), 1);
    assert_int_equal(greedy_in_order(n, 1, w), o_is_identity);
    const size_t *ido = trial % 2 ? GREEDY_ORDER_IDENTITY : id;
    assert_int_equal(greedy_weight_sums(n, 1, w, known), GREEDY_OK);
    assert_int_equal(greedy_assign_ordered(n, 1, w, p, frac, o, NULL, part), GREEDY_OK);
    assert_int_equal(greedy_assign_ordered(n, 1, ws, p, frac, ido, known, part2), GREEDY_OK);
    for (size_t k = 0; k < n; k++) assert_int_equal(part2[k], part[o[k]]);
    for (int mode = 0; mode < 2; mode++) {
      greedy_keep_mode m = mode ? GREEDY_KEEP_LIGHT_FIRST : GREEDY_KEEP_HEAVY_FIRST;
      double limit = 1.0 + 0.1 * zp_rng_uniform(&rng);
      size_t moved = 0, moved2 = 0;
      assert_int_equal(
          greedy_assign_keep_ordered(n, 1, w, p, frac, cur, limit, m, o, NULL, part, &moved),
          GREEDY_OK);
      assert_int_equal(
          greedy_assign_keep_ordered(n, 1, ws, p, frac, cs, limit, m, ido, known, part2, &moved2),
          GREEDY_OK);
      assert_int_equal(moved, moved2);
      for (size_t k = 0; k < n; k++) assert_int_equal(part2[k], part[o[k]]);
    }
  }
  free(w);
  free(ws);
  free(o);
  free(id);
  free(cur);
  free(cs);
  free(part);
  free(part2);
}

/* greedy_imbalance is the largest relative load from part sums added one
 * object after the other as reproducible sums, bit for bit (its banks and
 * its one reading pass change nothing), the same for the objects in any
 * order, with one or two weights, few parts or more than the banks take;
 * a part out of range or a weight that is not a finite number >= 0 in any
 * dimension is refused. */
static void greedy_imbalance_equals_the_plain_part_sums(void **state)
{
  (void)state;
  enum { N = 3001, MAXP = 700 };
  const int parts[] = {1, 2, 3, 64, MAXP};
  zp_rng rng;
  zp_rng_seed(&rng, 77);
  double *w = malloc(2 * N * sizeof(double)), *wp = malloc(2 * N * sizeof(double));
  int *part = malloc(N * sizeof(int)), *pp = malloc(N * sizeof(int));
  greedy_rsum *acc = malloc(2 * MAXP * sizeof *acc);
  for (int wd = 1; wd <= 2; wd++)
    for (size_t t = 0; t < sizeof parts / sizeof parts[0]; t++) {
      int P = parts[t];
      double max[2] = {0.0, 0.0}, worst = 0.0, imb = -1.0, again = -1.0;
      greedy_rscale sc[2];
      for (size_t i = 0; i < N; i++) {
        part[i] = (int)zp_rng_below(&rng, (uint64_t)P);
        for (int d = 0; d < wd; d++) {
          double u = zp_rng_uniform(&rng);
          w[i * wd + d] = d == 1 ? 5.0 * u : 1.0 + 999.0 * u * u * u * u;
          max[d] = w[i * wd + d] > max[d] ? w[i * wd + d] : max[d];
        }
      }
      memset(acc, 0, (size_t)P * wd * sizeof *acc);
      for (int d = 0; d < wd; d++) greedy_rscale_of(max[d], &sc[d]);
      for (size_t i = 0; i < N; i++)
        for (int d = 0; d < wd; d++)
          greedy_rsum_add(&acc[(size_t)part[i] * wd + d], &sc[d], w[i * wd + d]);
      for (int d = 0; d < wd; d++) {
        greedy_rsum all = {0, 0};
        for (size_t i = 0; i < N; i++) greedy_rsum_add(&all, &sc[d], w[i * wd + d]);
        double total = greedy_rsum_value(&all, &sc[d]), cap = (1.0 / P) * total;
        for (int q = 0; q < P; q++) {
          double r = greedy_rsum_value(&acc[(size_t)q * wd + d], &sc[d]) / cap;
          worst = r > worst ? r : worst;
        }
      }
      assert_int_equal(greedy_imbalance(N, wd, w, P, NULL, part, &imb), GREEDY_OK);
      assert_true(memcmp(&imb, &worst, sizeof imb) == 0);
      /* The objects reversed: the same bits. */
      for (size_t i = 0; i < N; i++) {
        pp[i] = part[N - 1 - i];
        for (int d = 0; d < wd; d++) wp[i * wd + d] = w[(N - 1 - i) * wd + d];
      }
      assert_int_equal(greedy_imbalance(N, wd, wp, P, NULL, pp, &again), GREEDY_OK);
      assert_true(memcmp(&imb, &again, sizeof imb) == 0);
      /* Bad input in the last object's last weight, or its part. */
      double keep = w[(N - 1) * wd + wd - 1];
      w[(N - 1) * wd + wd - 1] = NAN;
      assert_int_equal(greedy_imbalance(N, wd, w, P, NULL, part, &imb), GREEDY_EINVAL);
      w[(N - 1) * wd + wd - 1] = -1.0;
      assert_int_equal(greedy_imbalance(N, wd, w, P, NULL, part, &imb), GREEDY_EINVAL);
      w[(N - 1) * wd + wd - 1] = INFINITY;
      assert_int_equal(greedy_imbalance(N, wd, w, P, NULL, part, &imb), GREEDY_EINVAL);
      w[(N - 1) * wd + wd - 1] = keep;
      part[N - 1] = P;
      assert_int_equal(greedy_imbalance(N, wd, w, P, NULL, part, &imb), GREEDY_EINVAL);
      part[N - 1] = -1;
      assert_int_equal(greedy_imbalance(N, wd, w, P, NULL, part, &imb), GREEDY_EINVAL);
    }
  free(w);
  free(wp);
  free(part);
  free(pp);
  free(acc);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(greedy_keeps_lpt_bound_against_brute_force),
      cmocka_unit_test(greedy_honours_part_sizes),
      cmocka_unit_test(greedy_gives_nothing_to_zero_size_parts),
      cmocka_unit_test(greedy_breaks_ties_by_input_index),
      cmocka_unit_test(greedy_is_independent_of_distribution_order),
      cmocka_unit_test(greedy_balances_every_weight_dimension),
      cmocka_unit_test(greedy_reaches_one_percent_with_16_objects_per_part),
      cmocka_unit_test(greedy_keep_moves_nothing_when_input_fits),
      cmocka_unit_test(greedy_given_order_gives_the_same_answers),
      cmocka_unit_test(greedy_rejects_bad_arguments),
      cmocka_unit_test(greedy_sort_orders_by_key_then_index),
      cmocka_unit_test(greedy_sort_short_and_long_runs),
      cmocka_unit_test(greedy_heap_matches_linear_scan),
      cmocka_unit_test(greedy_rsum_is_independent_of_order_and_split),
      cmocka_unit_test(greedy_merge_desc_is_the_stable_sort_of_the_runs),
      cmocka_unit_test(greedy_in_order_matches_greedy_assign),
      cmocka_unit_test(greedy_runs_place_as_the_merge),
      cmocka_unit_test(greedy_break_ties_orders_equal_keys_by_tie),
      cmocka_unit_test(greedy_identity_order_places_as_any_order),
      cmocka_unit_test(greedy_imbalance_equals_the_plain_part_sums),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
