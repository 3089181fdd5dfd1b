/* SPDX-License-Identifier: BSD-3-Clause */
/* cmocka tests of SCOTCHLB's local improvements (scotch/scotch_descent.c):
 * the time descent, the shedding and the move back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core_testutil.h"
#include "scotch_descent.h"
#include "scotch_round.h"

/* A graph in compressed rows with unit edge weights. */
typedef struct graph {
  size_t n;
  size_t *start, *adj;
  double *ew;
} graph;

static void graph_alloc(graph *g, size_t n, size_t ends)
{
  g->n = n;
  g->start = calloc(n + 1, sizeof *g->start);
  g->adj = calloc(ends + 1, sizeof *g->adj);
  g->ew = malloc((ends + 1) * sizeof *g->ew);
  for (size_t j = 0; j <= ends; j++) g->ew[j] = 1.0;
}

static void graph_free(graph *g)
{
  free(g->start);
  free(g->adj);
  free(g->ew);
}

/* A side x side mesh. */
static void mesh(graph *g, int side)
{
  size_t n = (size_t)side * side, e = 0;
  graph_alloc(g, n, 4 * n);
  for (int y = 0; y < side; y++)
    for (int x = 0; x < side; x++) {
      size_t i = (size_t)y * side + x;
      g->start[i] = e;
      if (x > 0) g->adj[e++] = i - 1;
      if (x + 1 < side) g->adj[e++] = i + 1;
      if (y > 0) g->adj[e++] = i - side;
      if (y + 1 < side) g->adj[e++] = i + side;
    }
  g->start[n] = e;
}

/* A ring of n objects. */
static void ring(graph *g, size_t n)
{
  graph_alloc(g, n, 2 * n);
  for (size_t i = 0; i < n; i++) {
    g->start[i] = 2 * i;
    g->adj[2 * i] = (i + n - 1) % n;
    g->adj[2 * i + 1] = (i + 1) % n;
  }
  g->start[n] = 2 * n;
}

static double cut(const graph *g, const int *part)
{
  double c = 0.0;
  for (size_t i = 0; i < g->n; i++)
    for (size_t j = g->start[i]; j < g->start[i + 1]; j++)
      if (g->adj[j] > i && part[g->adj[j]] != part[i]) c += g->ew[j];
  return c;
}

/* The largest part time (load + c x cut edge ends) over equal targets,
 * in units of the mean part load, and the largest load ratio. */
static double max_time(const graph *g, const double *load, int nparts, const int *part, double c,
                       double *load_ratio)
{
  double t[16] = {0}, l[16] = {0}, tot = 0.0, worst = 0.0, lw = 0.0;
  for (size_t i = 0; i < g->n; i++) {
    assert_true(part[i] >= 0 && part[i] < nparts);
    t[part[i]] += load[i];
    l[part[i]] += load[i];
    tot += load[i];
    for (size_t j = g->start[i]; j < g->start[i + 1]; j++)
      if (part[g->adj[j]] != part[i]) t[part[i]] += c * g->ew[j];
  }
  for (int q = 0; q < nparts; q++) {
    worst = fmax(worst, t[q] * nparts / tot);
    lw = fmax(lw, l[q] * nparts / tot);
  }
  if (load_ratio) *load_ratio = lw;
  return worst;
}

static size_t moved(size_t n, const int *a, const int *b)
{
  size_t m = 0;
  for (size_t i = 0; i < n; i++) m += a[i] != b[i];
  return m;
}

/* The descent never makes the slowest part slower, keeps the receivers
 * within the load bound, and on strips made for other loads it makes the
 * slowest part strictly faster. */
static void descent_lowers_the_slowest_part_within_the_load_bound(void **state)
{
  (void)state;
  graph g;
  mesh(&g, 30);
  double *load = malloc(g.n * sizeof *load), target[6];
  int *part = malloc(g.n * sizeof *part);
  for (size_t i = 0; i < g.n; i++) {
    load[i] = 1.0 + (double)((i * 7919) % 11) / 10.0 + (i < 300 ? 1.0 : 0.0);
    part[i] = (int)(i * 6 / g.n);
  }
  for (int q = 0; q < 6; q++) target[q] = 1.0 / 6;
  double lr0, lr1, t0 = max_time(&g, load, 6, part, 0.5, &lr0);
  long m = scotchlb_time_descent(&(scotchlb_instance){g.n, load, g.start, g.adj, g.ew, 6, target},
                                 0.5, 1.05, (long)g.n, SCOTCHLB_PASS_MERGE, part);
  double t1 = max_time(&g, load, 6, part, 0.5, &lr1);
  print_message("slowest part %.4f -> %.4f in %ld moves, load ratio %.4f -> %.4f\n", t0, t1, m, lr0,
                lr1);
  assert_true(m > 0);
  assert_true(t1 < t0);
  assert_true(lr1 <= fmax(1.05, lr0) + 1e-9);
  free(load);
  free(part);
  graph_free(&g);
}

/* A piece of a part cut off inside another part costs cut for nothing:
 * the merge hands it to the part around it and the descent rebalances.
 * Parts 0 and 2 have traded two objects each (equal loads, two pieces
 * cut off): single moves cannot lower the slowest part, so they leave the
 * pieces; with the merge the cut falls at no greater time. */
static void descent_merges_a_cut_off_piece(void **state)
{
  (void)state;
  graph g;
  ring(&g, 40);
  double load[40], target[4] = {0.25, 0.25, 0.25, 0.25};
  int part[40], plain[40];
  for (size_t i = 0; i < 40; i++) {
    load[i] = 1.0;
    part[i] = (int)(i / 10);
  }
  part[24] = part[25] = 0;
  part[8] = part[9] = 2;
  memcpy(plain, part, sizeof plain);
  double t0 = max_time(&g, load, 4, part, 0.1, NULL), c0 = cut(&g, part);
  long m = scotchlb_time_descent(&(scotchlb_instance){g.n, load, g.start, g.adj, g.ew, 4, target},
                                 0.1, 1.1, 40, SCOTCHLB_PASS_MERGE, part);
  long m0 = scotchlb_time_descent(&(scotchlb_instance){g.n, load, g.start, g.adj, g.ew, 4, target},
                                  0.1, 1.1, 40, 0, plain);
  double t1 = max_time(&g, load, 4, part, 0.1, NULL), c1 = cut(&g, part);
  print_message("cut %g -> %g (without the merge %g), slowest part %.4f -> %.4f, %ld moves\n", c0,
                c1, cut(&g, plain), t0, t1, m);
  assert_true(m0 == 0 && cut(&g, plain) == c0);
  assert_true(t1 <= t0 + 1e-12);
  assert_true(c1 < c0);
  graph_free(&g);
}

/* An object without edges may go to the fastest part; one with edges only
 * where it has neighbours. */
static void descent_sends_isolated_objects_anywhere(void **state)
{
  (void)state;
  graph g;
  graph_alloc(&g, 4, 0);
  double load[4] = {1, 1, 1, 1}, target[2] = {0.5, 0.5};
  int part[4] = {0, 0, 0, 0};
  long m = scotchlb_time_descent(&(scotchlb_instance){4, load, g.start, g.adj, g.ew, 2, target},
                                 1.0, 1.0, 10, SCOTCHLB_PASS_MERGE, part);
  assert_int_equal(m, 2);
  assert_int_equal((part[0] == 1) + (part[1] == 1) + (part[2] == 1) + (part[3] == 1), 2);
  graph_free(&g);
}

/* Shedding looks past a light object on a border: part 0 of a ring of
 * three parts is over the bound; toward part 2 its border holds light
 * objects (4 moves to cover the excess), toward part 1 a very light object
 * in front of a heavy one (2 moves).  The greedy choice, heaviest border
 * object first, would go to part 2; the trial of each receiver finds the 2
 * moves, and the ring stays in three arcs. */
/* The merge of pieces on a ring of equal objects in 4 arcs of 6, with
 * objects 5 and 6 swapped across the first border (cut 6 where 4 fits).
 * With room for a seventh object (bound 1.2) the cut falls to 4 within the
 * bound.  At the exact share (bound 1.0) no part may take a seventh
 * object: the two objects trade places (the merge of pieces hands 5 over
 * and rebalances) and the loads stay equal.  Arcs already whole stay as
 * they are. */
static void merge_lowers_the_cut_within_the_load_bound(void **state)
{
  (void)state;
  enum { N = 24, P = 4 };
  graph g;
  ring(&g, N);
  double load[N], target[P], lr0, lr1;
  int part[N], start_part[N];
  for (int i = 0; i < N; i++) {
    load[i] = 1.0;
    start_part[i] = i / 6;
  }
  start_part[5] = 1;
  start_part[6] = 0;
  for (int q = 0; q < P; q++) target[q] = 1.0 / P;
  for (int k = 0; k < 3; k++) {
    double cap = k == 0 ? 1.2 : 1.0;
    memcpy(part, start_part, sizeof part);
    if (k == 2)
      for (int i = 0; i < N; i++) part[i] = i / 6;
    double c0 = cut(&g, part);
    max_time(&g, load, P, part, 0.0, &lr0);
    long m = scotchlb_merge(&(scotchlb_instance){N, load, g.start, g.adj, g.ew, P, target}, cap, N,
                            LONG_MAX, part);
    double c1 = cut(&g, part);
    max_time(&g, load, P, part, 0.0, &lr1);
    print_message("cap %.2f: cut %.0f -> %.0f in %ld moves, load ratio %.4f -> %.4f\n", cap, c0, c1,
                  m, lr0, lr1);
    assert_true(c0 == (k == 2 ? 4.0 : 6.0));
    assert_true(lr1 <= cap + 1e-9);
    if (k == 0) assert_true(m > 0 && c1 == 4.0);
    if (k == 1) assert_true(m == 2 && c1 == 4.0 && lr1 <= 1.0 + 1e-9);
    if (k == 2) assert_true(m == 0 && c1 == 4.0);
  }
  graph_free(&g);
}

static void shed_takes_the_receiver_with_fewest_moves(void **state)
{
  (void)state;
  graph g;
  ring(&g, 30);
  double load[30], target[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
  int part[30], before[30];
  for (int i = 0; i < 30; i++) {
    load[i] = i < 8 ? 0.3 : i == 8 ? 1.2 : i == 9 ? 0.05 : 0.0725;
    part[i] = before[i] = i / 10;
  }
  double lr;
  long m =
      scotchlb_shed(&(scotchlb_instance){30, load, g.start, g.adj, g.ew, 3, target}, 1.5, 30, part);
  max_time(&g, load, 3, part, 0.0, &lr);
  print_message("%ld moves, load ratio %.4f, cut %g\n", m, lr, cut(&g, part));
  assert_int_equal(m, 2);
  assert_int_equal(moved(30, before, part), 2);
  assert_int_equal(part[8], 1);
  assert_int_equal(part[9], 1);
  assert_true(lr <= 1.5 + 1e-9);
  assert_true(cut(&g, part) == 3.0);
  graph_free(&g);
}

/* A part whose excess needs four objects of one border, or one heavy
 * object of each: the split between its two receivers moves two. */
static void shed_splits_between_two_receivers(void **state)
{
  (void)state;
  graph g;
  ring(&g, 30);
  double load[30], target[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3}, cap = 8.5 / 6.0, lr;
  int part[30], before[30];
  for (int i = 0; i < 30; i++) {
    load[i] = i < 10 || i >= 20 ? 0.2 : i == 10 || i == 19 ? 3.0 : 1.0;
    part[i] = before[i] = i / 10;
  }
  long m =
      scotchlb_shed(&(scotchlb_instance){30, load, g.start, g.adj, g.ew, 3, target}, cap, 30, part);
  max_time(&g, load, 3, part, 0.0, &lr);
  print_message("%ld moves, load ratio %.4f (cap %.4f)\n", m, lr, cap);
  assert_int_equal(m, 2);
  assert_int_equal(moved(30, before, part), 2);
  assert_int_equal(part[10], 0);
  assert_int_equal(part[19], 2);
  assert_true(lr <= cap + 1e-9);
  graph_free(&g);
}

/* The move back spends the cut allowed on moving less: the cut stays
 * within the bound, the loads within theirs, and fewer objects move. */
static void move_back_keeps_the_bounds_and_moves_less(void **state)
{
  (void)state;
  graph g;
  mesh(&g, 24);
  double *load = malloc(g.n * sizeof *load), target[4] = {0.25, 0.25, 0.25, 0.25};
  int *cur = malloc(g.n * sizeof *cur), *part = malloc(g.n * sizeof *part);
  for (size_t i = 0; i < g.n; i++) {
    int x = (int)(i % 24), y = (int)(i / 24);
    load[i] = 1.0 + (double)((i * 31) % 7) / 10.0;
    cur[i] = y / 6;                      /* strips */
    part[i] = (x >= 12) + 2 * (y >= 12); /* squares */
  }
  int *squares = malloc(g.n * sizeof *squares);
  memcpy(squares, part, g.n * sizeof *part);
  size_t m0 = moved(g.n, cur, part);
  double c0 = cut(&g, part), limit = c0 + 20.0, lr0, lr1;
  max_time(&g, load, 4, part, 0.0, &lr0);
  /* Every visiting order keeps both bounds and moves objects back. */
  for (int visit = 0; visit < SCOTCHLB_BACK_ORDERS; visit++) {
    memcpy(part, squares, g.n * sizeof *part);
    long m = scotchlb_move_back(&(scotchlb_instance){g.n, load, g.start, g.adj, g.ew, 4, target},
                                cur, 1.05, limit, visit, part);
    size_t m1 = moved(g.n, cur, part);
    max_time(&g, load, 4, part, 0.0, &lr1);
    print_message("order %d: moved %zu -> %zu (%ld back), cut %g -> %g (limit %g), load %.4f -> "
                  "%.4f\n",
                  visit, m0, m1, m, c0, cut(&g, part), limit, lr0, lr1);
    assert_true(m > 0);
    assert_int_equal(m1, m0 - (size_t)m);
    assert_true(cut(&g, part) <= limit);
    assert_true(lr1 <= fmax(1.05, lr0) + 1e-9);
  }
  free(squares);
  free(load);
  free(cur);
  free(part);
  graph_free(&g);
}

/* The rounding tolerance: a hair of the scale above a bound is within it,
 * two hairs are not; an improvement must beat the hair; the scale of a
 * part's load is the total, so a small part's bound gets the total's hair. */
static void rounding_tolerance_is_relative_to_its_scale(void **state)
{
  (void)state;
  assert_true(scotchlb_within(1.0 + 0.5 * SCOTCHLB_ROUND, 1.0, 1.0));
  assert_false(scotchlb_within(1.0 + 2.0 * SCOTCHLB_ROUND, 1.0, 1.0));
  assert_true(scotchlb_within(1.0 + 2.0 * SCOTCHLB_ROUND, 1.0, 1000.0));
  assert_false(scotchlb_below(1.0 - 0.5 * SCOTCHLB_ROUND, 1.0, 1.0));
  assert_true(scotchlb_below(1.0 - 2.0 * SCOTCHLB_ROUND, 1.0, 1.0));
  assert_false(scotchlb_below(1.0 - 2.0 * SCOTCHLB_ROUND, 1.0, -1000.0));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rounding_tolerance_is_relative_to_its_scale),
      cmocka_unit_test(descent_lowers_the_slowest_part_within_the_load_bound),
      cmocka_unit_test(descent_merges_a_cut_off_piece),
      cmocka_unit_test(descent_sends_isolated_objects_anywhere),
      cmocka_unit_test(merge_lowers_the_cut_within_the_load_bound),
      cmocka_unit_test(shed_takes_the_receiver_with_fewest_moves),
      cmocka_unit_test(shed_splits_between_two_receivers),
      cmocka_unit_test(move_back_keeps_the_bounds_and_moves_less),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
