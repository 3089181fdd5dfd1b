/* SPDX-License-Identifier: BSD-3-Clause */
/* cmocka tests of the SCOTCHLB core (scotch/scotch_core.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core_testutil.h"
#include "scotch_core.h"
#include "scotch_descent.h"
#include "scotch_internal.h"
#include "zp_rng.h"

/* A side x side mesh in compressed rows, unit edge weights. */
typedef struct mesh {
  size_t n;
  size_t *start, *adj;
} mesh;

static void mesh_make(mesh *m, int side)
{
  size_t n = (size_t)side * side, e = 0;
  m->n = n;
  m->start = malloc((n + 1) * sizeof *m->start);
  m->adj = malloc(4 * n * sizeof *m->adj);
  for (int y = 0; y < side; y++)
    for (int x = 0; x < side; x++) {
      size_t i = (size_t)y * side + x;
      m->start[i] = e;
      if (x > 0) m->adj[e++] = i - 1;
      if (x + 1 < side) m->adj[e++] = i + 1;
      if (y > 0) m->adj[e++] = i - side;
      if (y + 1 < side) m->adj[e++] = i + side;
    }
  m->start[n] = e;
}

static void mesh_free(mesh *m)
{
  free(m->start);
  free(m->adj);
}

static double cut_of(const mesh *m, const int *part)
{
  double c = 0.0;
  for (size_t i = 0; i < m->n; i++)
    for (size_t j = m->start[i]; j < m->start[i + 1]; j++)
      if (m->adj[j] > i && part[m->adj[j]] != part[i]) c += 1.0;
  return c;
}

static void opts(scotchlb_options *o, scotchlb_approach a, double tol)
{
  scotchlb_default_options(o);
  o->approach = a;
  o->tolerance = tol;
}

/* Self-loops go, duplicates add up, one-sided edges are mirrored, sides
 * that disagree are averaged and zero-weight edges vanish. */
static void symmetrise_repairs_what_applications_send(void **state)
{
  (void)state;
  /* 0: loop 0-0, 0->1 twice (1 + 2), 0->2 (4, one-sided)
   * 1: 1->0 (5), 1->3 (0)
   * 2: nothing
   * 3: 3->1 (0) */
  size_t start[] = {0, 4, 6, 6, 7};
  size_t adj[] = {0, 1, 1, 2, 0, 3, 1};
  double w[] = {9, 1, 2, 4, 5, 0, 0};
  size_t *s, *a;
  double *ow;
  scotchlb_stats st;
  assert_int_equal(scotchlb_symmetrise(4, start, adj, w, &s, &a, &ow, &st), SCOTCHLB_OK);
  assert_int_equal(st.self_loops, 1);
  assert_int_equal(st.duplicates, 1);
  assert_int_equal(st.one_sided, 1);
  assert_int_equal(st.asymmetric, 1);
  assert_int_equal(st.edges, 2); /* 0-1 and 0-2; 1-3 has weight 0 */
  /* Row 0: 1 (mean of 3 and 5 = 4), 2 (4); row 1: 0; row 2: 0; row 3: none. */
  assert_int_equal(s[1] - s[0], 2);
  assert_int_equal(a[0], 1);
  assert_true(ow[0] == 4.0);
  assert_int_equal(a[1], 2);
  assert_true(ow[1] == 4.0);
  assert_int_equal(s[2] - s[1], 1);
  assert_int_equal(a[s[1]], 0);
  assert_int_equal(s[3] - s[2], 1);
  assert_int_equal(a[s[2]], 0);
  assert_int_equal(s[4], s[3]);
  free(s);
  free(a);
  free(ow);
}

static void symmetrise_rejects_bad_edges(void **state)
{
  (void)state;
  size_t start[] = {0, 1, 2};
  size_t bad_adj[] = {1, 7};
  size_t adj[] = {1, 0};
  double neg[] = {1, -1}, nan_w[] = {NAN, 1};
  size_t *s, *a;
  double *ow;
  assert_int_equal(scotchlb_symmetrise(2, start, bad_adj, NULL, &s, &a, &ow, NULL),
                   SCOTCHLB_EINVAL);
  assert_int_equal(scotchlb_symmetrise(2, start, adj, neg, &s, &a, &ow, NULL), SCOTCHLB_EINVAL);
  assert_int_equal(scotchlb_symmetrise(2, start, adj, nan_w, &s, &a, &ow, NULL), SCOTCHLB_EINVAL);
  assert_null(s);
}

/* PARTITION on a mesh: every object once, within tolerance, and a cut far
 * below a random assignment's (7/8 of the edges for 8 parts). */
static void partition_balances_and_cuts_far_less_than_random(void **state)
{
  (void)state;
  mesh m;
  zp_rng rng;
  mesh_make(&m, 40);
  double *w = malloc(m.n * sizeof *w);
  int *out = malloc(m.n * sizeof *out), *rnd = malloc(m.n * sizeof *rnd);
  zp_rng_seed(&rng, 7);
  ct_heavy_tailed(&rng, m.n, 1.0, 10.0, w);
  for (size_t i = 0; i < m.n; i++) rnd[i] = (int)zp_rng_below(&rng, 8);
  scotchlb_options o;
  scotchlb_stats st;
  char msg[256];
  opts(&o, SCOTCHLB_PARTITION, 1.05);
  int rc = scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, NULL, &o, out, &st, msg,
                              sizeof msg);
  assert_int_equal(rc, SCOTCHLB_OK);
  assert_int_equal(ct_check_assignment(m.n, 1, w, 8, NULL, 0, out), 0);
  assert_true(ct_max_rel_load(m.n, w, 8, NULL, out) <= 1.05 + 1e-9);
  assert_true(cut_of(&m, out) < 0.25 * cut_of(&m, rnd));
  assert_true(fabs(st.cut_after - cut_of(&m, out)) < 1e-9);
  free(w);
  free(out);
  free(rnd);
  mesh_free(&m);
}

/* Part sizes 1:2:3:4 give loads in that proportion; a part of size 0 gets
 * nothing. */
static void partition_follows_part_sizes_and_empties_zero_parts(void **state)
{
  (void)state;
  mesh m;
  mesh_make(&m, 30);
  double *w = malloc(m.n * sizeof *w);
  int *out = malloc(m.n * sizeof *out);
  double sizes[5] = {1, 2, 0, 3, 4};
  for (size_t i = 0; i < m.n; i++) w[i] = 1.0 + (double)(i % 3);
  scotchlb_options o;
  opts(&o, SCOTCHLB_PARTITION, 1.05);
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 5, sizes, NULL, &o, out, NULL, NULL, 0),
      SCOTCHLB_OK);
  assert_int_equal(ct_check_assignment(m.n, 1, w, 5, sizes, 1, out), 0);
  assert_true(ct_max_rel_load(m.n, w, 5, sizes, out) <= 1.05 + 1e-9);
  free(w);
  free(out);
  mesh_free(&m);
}

/* REFINE on a balanced input moves nothing. */
static void refine_keeps_a_balanced_input(void **state)
{
  (void)state;
  mesh m;
  mesh_make(&m, 20);
  double *w = malloc(m.n * sizeof *w);
  int *cur = malloc(m.n * sizeof *cur), *out = malloc(m.n * sizeof *out);
  for (size_t i = 0; i < m.n; i++) {
    w[i] = 1.0;
    cur[i] = (int)(i * 4 / m.n); /* four bands of equal size */
  }
  scotchlb_options o;
  scotchlb_stats st;
  opts(&o, SCOTCHLB_REFINE, 1.05);
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 4, NULL, cur, &o, out, &st, NULL, 0),
      SCOTCHLB_OK);
  assert_int_equal(st.moved, 0);
  assert_int_equal(st.kept_input, 1);
  assert_memory_equal(cur, out, m.n * sizeof *out);
  free(w);
  free(cur);
  free(out);
  mesh_free(&m);
}

/* After drift, a migration cost makes REPARTITION move fewer objects than
 * PARTITION from scratch, and REFINE (100x the cost) no more than
 * REPARTITION; all three end within tolerance. */
static void repartition_moves_less_than_partition(void **state)
{
  (void)state;
  mesh m;
  mesh_make(&m, 40);
  double *w = malloc(m.n * sizeof *w);
  int *cur = malloc(m.n * sizeof *cur), *out = malloc(m.n * sizeof *out);
  scotchlb_options o;
  scotchlb_stats sp, sr, sf;
  opts(&o, SCOTCHLB_PARTITION, 1.05);
  for (size_t i = 0; i < m.n; i++) w[i] = 1.0;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, NULL, &o, cur, NULL, NULL, 0),
      SCOTCHLB_OK);
  /* Drift: a corner region doubles its load. */
  for (size_t i = 0; i < m.n; i++)
    if (i % 40 < 12 && i / 40 < 12) w[i] = 2.0;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, &sp, NULL, 0),
      SCOTCHLB_OK);
  o.approach = SCOTCHLB_REPARTITION;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, &sr, NULL, 0),
      SCOTCHLB_OK);
  assert_true(ct_max_rel_load(m.n, w, 8, NULL, out) <= 1.05 + 1e-9);
  o.approach = SCOTCHLB_REFINE;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, &sf, NULL, 0),
      SCOTCHLB_OK);
  assert_true(ct_max_rel_load(m.n, w, 8, NULL, out) <= 1.05 + 1e-9);
  print_message("moved: PARTITION %zu, REPARTITION %zu, REFINE %zu of %zu\n", sp.moved, sr.moved,
                sf.moved, m.n);
  assert_true(sr.moved < sp.moved);
  assert_true(sf.moved <= sr.moved);
  free(w);
  free(cur);
  free(out);
  mesh_free(&m);
}

/* SCOTCHLB_REPART_CUT_TOL on a drift from strips made for other loads: the
 * cut stays within the bound (the bound times the cut of a fresh
 * partition), the balance within the tolerance, and fewer objects move
 * than with the fresh partition; a looser bound moves no more; a bound
 * below 1 is refused, named. */
static void repart_cut_bound_holds_and_moves_less(void **state)
{
  (void)state;
  mesh m;
  mesh_make(&m, 40);
  double *w = malloc(m.n * sizeof *w);
  int *cur = malloc(m.n * sizeof *cur), *out = malloc(m.n * sizeof *out);
  scotchlb_options o;
  scotchlb_stats sp, s13, s20;
  char msg[256] = "";
  for (size_t i = 0; i < m.n; i++) {
    cur[i] = (int)(i * 8 / m.n);
    w[i] = i % 40 < 12 && i / 40 < 12 ? 2.0 : 1.0;
  }
  opts(&o, SCOTCHLB_PARTITION, 1.05);
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, &sp, NULL, 0),
      SCOTCHLB_OK);
  o.approach = SCOTCHLB_REPARTITION;
  o.repart_cut_tol = 1.3;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, &s13, NULL, 0),
      SCOTCHLB_OK);
  assert_true(fabs(s13.cut_limit - 1.3 * sp.cut_after) <= 1e-9 * sp.cut_after);
  assert_true(s13.cut_after <= s13.cut_limit);
  assert_true(cut_of(&m, out) == s13.cut_after);
  assert_true(ct_max_rel_load(m.n, w, 8, NULL, out) <= 1.05 + 1e-9);
  o.repart_cut_tol = 2.0;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, &s20, NULL, 0),
      SCOTCHLB_OK);
  assert_true(s20.cut_after <= 2.0 * sp.cut_after);
  print_message("moved / cut: PARTITION %zu / %g, bound 1.3: %zu / %g (%d runs), bound 2: %zu / "
                "%g; input cut %g\n",
                sp.moved, sp.cut_after, s13.moved, s13.cut_after, s13.tries, s20.moved,
                s20.cut_after, sp.cut_before);
  assert_true(s13.moved < sp.moved);
  assert_true(s20.moved <= s13.moved);
  /* The count the docs quote bounds the runs of the search. */
  assert_true(s13.tries >= 2 && s13.tries <= SCOTCHLB_REPART_MAX_RUNS);
  assert_true(s20.tries >= 2 && s20.tries <= SCOTCHLB_REPART_MAX_RUNS);
  o.repart_cut_tol = 0.5;
  assert_int_equal(scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, NULL,
                                      msg, sizeof msg),
                   SCOTCHLB_EINVAL);
  assert_non_null(strstr(msg, "cut bound 0.5"));
  free(w);
  free(cur);
  free(out);
  mesh_free(&m);
}

/* Per-object migration costs (object sizes): on the same drift, objects
 * that cost 50 times more to move are left in place more often, so the
 * cost of what moves falls, and the balance still holds. */
static void move_costs_steer_what_moves(void **state)
{
  (void)state;
  mesh m;
  mesh_make(&m, 40);
  double *w = malloc(m.n * sizeof *w), *mc = malloc(m.n * sizeof *mc);
  int *cur = malloc(m.n * sizeof *cur), *out = malloc(m.n * sizeof *out);
  double cost_plain = 0.0, cost_sized = 0.0;
  scotchlb_options o;
  opts(&o, SCOTCHLB_PARTITION, 1.05);
  for (size_t i = 0; i < m.n; i++) {
    w[i] = 1.0;
    mc[i] = i % 2 ? 1.0 : 50.0;
  }
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, NULL, &o, cur, NULL, NULL, 0),
      SCOTCHLB_OK);
  for (size_t i = 0; i < m.n; i++)
    if (i % 40 < 12 && i / 40 < 12) w[i] = 2.0;
  /* Scotch's remapping weighs moves against the cut only when they cost
   * about as much as a couple of edges: at cost 0.05-0.4 it moves almost
   * the same objects either way, so the test asks for cost 2. */
  o.approach = SCOTCHLB_REPARTITION;
  o.migration_cost = 2.0;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, NULL, NULL, 0),
      SCOTCHLB_OK);
  for (size_t i = 0; i < m.n; i++) cost_plain += out[i] != cur[i] ? mc[i] : 0.0;
  o.move_cost = mc;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, NULL, NULL, 0),
      SCOTCHLB_OK);
  for (size_t i = 0; i < m.n; i++) cost_sized += out[i] != cur[i] ? mc[i] : 0.0;
  print_message("cost of the objects moved: equal costs %g, per-object costs %g\n", cost_plain,
                cost_sized);
  assert_true(ct_max_rel_load(m.n, w, 8, NULL, out) <= 1.05 + 1e-9);
  assert_true(cost_sized < 0.8 * cost_plain);
  /* A negative cost is refused, naming it. */
  mc[7] = -1.0;
  char msg[256] = "";
  assert_int_equal(scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, NULL,
                                      msg, sizeof msg),
                   SCOTCHLB_EINVAL);
  assert_non_null(strstr(msg, "object 7"));
  free(w);
  free(mc);
  free(cur);
  free(out);
  mesh_free(&m);
}

/* The largest part time: load plus c x the cut edges at the part. */
static double max_part_time(const mesh *m, const double *w, int nparts, const int *part, double c)
{
  double t[16] = {0}, worst = 0.0;
  for (size_t i = 0; i < m->n; i++) {
    t[part[i]] += w[i];
    for (size_t j = m->start[i]; j < m->start[i + 1]; j++)
      if (part[m->adj[j]] != part[i]) t[part[i]] += c;
  }
  for (int q = 0; q < nparts; q++) worst = t[q] > worst ? t[q] : worst;
  return worst;
}

/* SCOTCHLB_COMM_COST: when compute dominates, a tighter balance than the
 * tolerance gives a faster slowest part, and the core finds it; the part
 * time it reports is the one of the answer. */
static void comm_cost_picks_the_fastest_slowest_part(void **state)
{
  (void)state;
  mesh m;
  mesh_make(&m, 40);
  double *w = malloc(m.n * sizeof *w), t_plain, t_cost;
  int *a = malloc(m.n * sizeof *a), *b = malloc(m.n * sizeof *b);
  scotchlb_options o;
  scotchlb_stats st;
  /* Uneven loads, so that Scotch uses its balance ratio for a better cut. */
  for (size_t i = 0; i < m.n; i++) w[i] = 1.0 + (double)((i * 7919) % 13);
  opts(&o, SCOTCHLB_PARTITION, 1.05);
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, NULL, &o, a, NULL, NULL, 0),
      SCOTCHLB_OK);
  o.comm_cost = 0.01;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, NULL, &o, b, &st, NULL, 0),
      SCOTCHLB_OK);
  t_plain = max_part_time(&m, w, 8, a, 0.01);
  t_cost = max_part_time(&m, w, 8, b, 0.01);
  print_message("slowest part: one run %g, with the comm cost %g (balance ratio %g)\n", t_plain,
                t_cost, st.balance_ratio);
  assert_true(t_cost < t_plain);
  assert_true(st.balance_ratio < 0.05);
  assert_true(fabs(st.part_time - t_cost * 8.0) <= 1e-9 * t_cost * 8.0);
  o.comm_cost = -1.0;
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, NULL, &o, b, NULL, NULL, 0),
      SCOTCHLB_EINVAL);
  free(w);
  free(a);
  free(b);
  mesh_free(&m);
}

/* PARTITION when the tolerance cannot be met, with SCOTCHLB_COMM_COST and
 * without: the Charm++ synthetic's ring of 32 objects on 8 parts, whose
 * heaviest object alone is 1.0752 x the mean part load, above the 1.05
 * asked.  With the cost, the answer keeps the bound that object sets (the
 * time descent after each of the strategies' runs); without it, the call
 * warns and reports the balance it reached (the pair re-solve that reached
 * the bound there was removed: scotch/README.md, "Ablation").  With a
 * tolerance it can meet, the tolerance holds either way. */
static void partition_keeps_the_attainable_balance(void **state)
{
  (void)state;
  enum { N = 32, P = 8 };
  size_t start[N + 1], adj[2 * N];
  double w[N], ew[2 * N], total = 0.0, wmax = 0.0, pl[P];
  int part[N];
  scotchlb_options o;
  scotchlb_stats st;
  ct_charm_ring(N, 101.9, w, start, adj, ew);
  for (int i = 0; i < N; i++) {
    total += w[i];
    wmax = fmax(wmax, w[i]);
  }
  double bound = wmax / (total / P);
  assert_true(bound > 1.05);
  for (int k = 0; k < 4; k++) {
    double tol = k % 2 == 0 ? 1.05 : 1.1;
    opts(&o, SCOTCHLB_PARTITION, tol);
    o.comm_cost = k < 2 ? 1.0 : 0.0;
    int rc = scotchlb_partition(N, 1, w, start, adj, ew, P, NULL, NULL, &o, part, &st, NULL, 0);
    assert_int_equal(rc, k % 2 == 0 ? SCOTCHLB_WARN : SCOTCHLB_OK);
    assert_true(fabs(st.imbalance_bound - fmax(tol, bound)) <= 1e-12 * bound);
    for (int q = 0; q < P; q++) pl[q] = 0.0;
    for (int i = 0; i < N; i++) {
      assert_in_range(part[i], 0, P - 1);
      pl[part[i]] += w[i];
    }
    double worst = 0.0;
    for (int q = 0; q < P; q++) worst = fmax(worst, pl[q] / (total / P));
    print_message("comm cost %g, tolerance %g: max/avg %.4f, bound %.4f, cut %.1f\n", o.comm_cost,
                  tol, worst, st.imbalance_bound, st.cut_after);
    assert_true(fabs(worst - st.imbalance_after) <= 1e-9);
    if (o.comm_cost > 0.0 || tol >= bound) assert_true(worst <= fmax(tol, bound) * (1.0 + 1e-9));
  }
}

/* Same input, same answer. */
static void partition_is_deterministic(void **state)
{
  (void)state;
  mesh m;
  zp_rng rng;
  mesh_make(&m, 25);
  double *w = malloc(m.n * sizeof *w);
  int *a = malloc(m.n * sizeof *a), *b = malloc(m.n * sizeof *b);
  zp_rng_seed(&rng, 3);
  ct_heavy_tailed(&rng, m.n, 1.0, 50.0, w);
  for (int rep = 0; rep < 2; rep++) {
    scotchlb_options o;
    opts(&o, SCOTCHLB_PARTITION, 1.1);
    assert_true(scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 6, NULL, NULL, &o, rep ? b : a,
                                   NULL, NULL, 0) >= 0);
  }
  assert_memory_equal(a, b, m.n * sizeof *a);
  free(w);
  free(a);
  free(b);
  mesh_free(&m);
}

/* Remapping is deterministic too: the same drifted 128 x 128 mesh remapped
 * several times gives the same parts each time (Scotch's threads made it
 * differ from call to call before the core ran Scotch on one thread). */
static void repartition_is_deterministic(void **state)
{
  (void)state;
  mesh m;
  zp_rng rng;
  mesh_make(&m, 128);
  double *w = malloc(m.n * sizeof *w);
  int *cur = malloc(m.n * sizeof *cur), *first = malloc(m.n * sizeof *first);
  int *again = malloc(m.n * sizeof *again);
  zp_rng_seed(&rng, 101);
  for (size_t i = 0; i < m.n; i++) w[i] = 10.0 + 990.0 * pow(zp_rng_uniform(&rng), 4.0);
  for (size_t i = 0; i < m.n; i++) cur[i] = (int)(i * 16 / m.n);
  scotchlb_options o;
  opts(&o, SCOTCHLB_REPARTITION, 1.05);
  for (int rep = 0; rep < 6; rep++) {
    assert_true(scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 16, NULL, cur, &o,
                                   rep ? again : first, NULL, NULL, 0) >= 0);
    if (rep) assert_memory_equal(first, again, m.n * sizeof *first);
  }
  free(w);
  free(cur);
  free(first);
  free(again);
  mesh_free(&m);
}

/* No edges at all, isolated objects, two components, zero loads and more
 * parts than objects: every object still gets one part in range. */
static void odd_graphs_still_assign_every_object(void **state)
{
  (void)state;
  enum { N = 12 };
  double w[N], zero[N] = {0};
  int out[N];
  /* Two triangles (0-1-2, 3-4-5) and six isolated objects. */
  size_t start[N + 1] = {0, 2, 4, 6, 8, 10, 12, 12, 12, 12, 12, 12, 12};
  size_t adj[12] = {1, 2, 0, 2, 0, 1, 4, 5, 3, 5, 3, 4};
  for (int i = 0; i < N; i++) w[i] = 1.0 + i % 2;
  scotchlb_options o;
  opts(&o, SCOTCHLB_PARTITION, 1.2);
  assert_true(
      scotchlb_partition(N, 1, w, NULL, NULL, NULL, 3, NULL, NULL, &o, out, NULL, NULL, 0) >= 0);
  assert_int_equal(ct_check_assignment(N, 1, w, 3, NULL, 0, out), 0);
  assert_true(
      scotchlb_partition(N, 1, w, start, adj, NULL, 3, NULL, NULL, &o, out, NULL, NULL, 0) >= 0);
  assert_int_equal(ct_check_assignment(N, 1, w, 3, NULL, 0, out), 0);
  assert_true(ct_max_rel_load(N, w, 3, NULL, out) <= 1.2 + 1e-9);
  assert_true(
      scotchlb_partition(N, 1, zero, start, adj, NULL, 3, NULL, NULL, &o, out, NULL, NULL, 0) >= 0);
  assert_int_equal(ct_check_assignment(N, 1, zero, 3, NULL, 0, out), 0);
  /* 20 parts for 12 objects: some parts stay empty, the answer is a warning
   * at worst. */
  assert_true(
      scotchlb_partition(N, 1, w, start, adj, NULL, 20, NULL, NULL, &o, out, NULL, NULL, 0) >= 0);
  assert_int_equal(ct_check_assignment(N, 1, w, 20, NULL, 0, out), 0);
}

/* Two weights per object: the combined load is within tolerance. */
static void two_weights_balance_the_combined_load(void **state)
{
  (void)state;
  mesh m;
  mesh_make(&m, 24);
  double *w = malloc(2 * m.n * sizeof *w), *c = malloc(m.n * sizeof *c), t0 = 0, t1 = 0;
  int *out = malloc(m.n * sizeof *out);
  for (size_t i = 0; i < m.n; i++) {
    w[2 * i] = 1.0 + (double)(i % 5);
    w[2 * i + 1] = 10.0 - (double)(i % 7);
    t0 += w[2 * i];
    t1 += w[2 * i + 1];
  }
  for (size_t i = 0; i < m.n; i++) c[i] = w[2 * i] / t0 + w[2 * i + 1] / t1;
  scotchlb_options o;
  opts(&o, SCOTCHLB_PARTITION, 1.05);
  assert_int_equal(
      scotchlb_partition(m.n, 2, w, m.start, m.adj, NULL, 4, NULL, NULL, &o, out, NULL, NULL, 0),
      SCOTCHLB_OK);
  assert_int_equal(ct_check_assignment(m.n, 2, w, 4, NULL, 0, out), 0);
  assert_true(ct_max_rel_load(m.n, c, 4, NULL, out) <= 1.05 + 1e-9);
  free(w);
  free(c);
  free(out);
  mesh_free(&m);
}

/* Bad input: named in the message, nothing written. */
static void bad_input_is_named(void **state)
{
  (void)state;
  size_t start[] = {0, 1, 2};
  size_t adj[] = {1, 0};
  double w[] = {1, NAN}, good[] = {1, 1};
  int out[2] = {-7, -7}, cur[2] = {0, 5};
  char msg[256];
  scotchlb_options o;
  opts(&o, SCOTCHLB_PARTITION, 1.1);
  assert_int_equal(
      scotchlb_partition(2, 1, w, start, adj, NULL, 2, NULL, NULL, &o, out, NULL, msg, sizeof msg),
      SCOTCHLB_EINVAL);
  assert_non_null(strstr(msg, "nan"));
  assert_int_equal(out[0], -7);
  o.strategy_string = "this is not a strategy";
  assert_int_equal(scotchlb_partition(2, 1, good, start, adj, NULL, 2, NULL, NULL, &o, out, NULL,
                                      msg, sizeof msg),
                   SCOTCHLB_ESTRAT);
  assert_non_null(strstr(msg, "this is not a strategy"));
  assert_int_equal(scotchlb_strategy_ok("this is not a strategy"), 0);
  o.strategy_string = NULL;
  o.approach = SCOTCHLB_REPARTITION;
  assert_int_equal(scotchlb_partition(2, 1, good, start, adj, NULL, 2, NULL, cur, &o, out, NULL,
                                      msg, sizeof msg),
                   SCOTCHLB_EINVAL);
  assert_non_null(strstr(msg, "part 5"));
  o.tolerance = 0.9;
  assert_int_equal(scotchlb_partition(2, 1, good, start, adj, NULL, 2, NULL, NULL, &o, out, NULL,
                                      msg, sizeof msg),
                   SCOTCHLB_EINVAL);
}

/* The cut-bounded search with the fresh partition switched off as a
 * candidate, nothing moved back and nothing shed, under the tightest bound
 * (the fresh partition's own cut): the remaps may all miss it, and the
 * answer must then still be a complete assignment (the fresh partition),
 * never what the output array held before. */
static void repart_without_fresh_candidate_still_answers(void **state)
{
  (void)state;
  mesh m;
  mesh_make(&m, 40);
  double *w = malloc(m.n * sizeof *w);
  int *cur = malloc(m.n * sizeof *cur), *out = malloc(m.n * sizeof *out);
  scotchlb_options o;
  scotchlb_stats st;
  for (size_t i = 0; i < m.n; i++) {
    cur[i] = (int)(i * 8 / m.n);
    w[i] = i % 40 < 12 && i / 40 < 12 ? 2.0 : 1.0;
    out[i] = -7;
  }
  opts(&o, SCOTCHLB_REPARTITION, 1.05);
  o.repart_cut_tol = 1.0;
  o.passes &= ~(SCOTCHLB_PASS_FRESH | SCOTCHLB_PASS_BACK | SCOTCHLB_PASS_SHED);
  assert_true(scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 8, NULL, cur, &o, out, &st, NULL,
                                 0) >= 0);
  for (size_t i = 0; i < m.n; i++) assert_true(out[i] >= 0 && out[i] < 8);
  free(w);
  free(cur);
  free(out);
  mesh_free(&m);
}

/* SCOTCHLB_SKIP's values: NONE keeps every pass, names switch theirs off,
 * an unknown or empty name is refused with the name in the message, and so
 * are the passes the ablation removed (scotch/README.md, "Ablation"). */
static void skip_list_parses_pass_names(void **state)
{
  unsigned passes = 0;
  char msg[200] = "";
  (void)state;
  assert_int_equal(scotchlb_parse_skip("NONE", &passes, msg, sizeof msg), SCOTCHLB_OK);
  assert_int_equal(passes, SCOTCHLB_PASSES_ALL);
  assert_int_equal(scotchlb_parse_skip("MERGE,ORDERS", &passes, msg, sizeof msg), SCOTCHLB_OK);
  assert_int_equal(passes, SCOTCHLB_PASSES_ALL & ~(SCOTCHLB_PASS_MERGE | SCOTCHLB_PASS_ORDERS));
  assert_int_equal(scotchlb_parse_skip("MERGE,MERGEX", &passes, msg, sizeof msg), SCOTCHLB_EINVAL);
  assert_non_null(strstr(msg, "'MERGEX'"));
  assert_int_equal(scotchlb_parse_skip("SHED,,MERGE", &passes, msg, sizeof msg), SCOTCHLB_EINVAL);
  assert_non_null(strstr(msg, "''"));
  for (int k = 0; k < 5; k++) {
    static const char *const gone[] = {"PAIRS", "CHAIN", "CUT", "REFINE", "BALANCE"};
    assert_int_equal(scotchlb_parse_skip(gone[k], &passes, msg, sizeof msg), SCOTCHLB_EINVAL);
    assert_non_null(strstr(msg, gone[k]));
  }
}

/* Every part of the old mapping Scotch's remap sees holds an object (an
 * empty one made Scotch 7.0.3 read memory it had not set): the objects
 * without a current part fill the empty parts first, then the largest part
 * lends one object per part still empty, at no migration cost; every other
 * object keeps its part and its cost.  The remap then assigns everything. */
static void remap_sees_no_empty_old_part(void **state)
{
  (void)state;
  mesh m;
  mesh_make(&m, 20);
  double *w = malloc(m.n * sizeof *w), *ew = malloc(m.start[m.n] * sizeof *ew);
  double target[6] = {1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6};
  int *cur = malloc(m.n * sizeof *cur), *out = malloc(m.n * sizeof *out), lent = 0;
  size_t i, j;
  for (i = 0; i < m.n; i++) {
    w[i] = 1.0;
    cur[i] = i < 200 ? 0 : i < 300 ? 1 : i < 302 ? -1 : 3; /* parts 2, 4, 5 empty */
  }
  for (j = 0; j < m.start[m.n]; j++) ew[j] = 1.0;
  scotchlb_instance in = {m.n, w, m.start, m.adj, ew, 6, target};
  scotchlb_sgraph g;
  char msg[200];
  memset(&g, 0, sizeof g);
  assert_int_equal(scotchlb_sgraph_build(&in, cur, 1.0, NULL, &g, msg, sizeof msg), SCOTCHLB_OK);
  for (int q = 0; q < 6; q++) {
    size_t held = 0;
    for (i = 0; i < m.n; i++) held += g.old[i] == q;
    assert_true(held >= 1);
  }
  for (i = 0; i < m.n; i++) {
    if (cur[i] < 0) {
      assert_int_equal(g.vmlo[i], 0);
    } else if (g.old[i] != cur[i]) {
      assert_int_equal(cur[i], 0); /* lent by the largest part */
      assert_int_equal(g.vmlo[i], 0);
      lent++;
    } else {
      assert_true(g.vmlo[i] > 0);
    }
  }
  assert_int_equal(lent, 1); /* two empty parts took the free objects, one is lent */
  scotchlb_sgraph_free(&g);
  scotchlb_options o;
  opts(&o, SCOTCHLB_REPARTITION, 1.05);
  assert_int_equal(
      scotchlb_partition(m.n, 1, w, m.start, m.adj, NULL, 6, target, cur, &o, out, NULL, NULL, 0),
      SCOTCHLB_OK);
  assert_int_equal(ct_check_assignment(m.n, 1, w, 6, target, 1, out), 0);
  free(w);
  free(ew);
  free(cur);
  free(out);
  mesh_free(&m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(repart_without_fresh_candidate_still_answers),
      cmocka_unit_test(skip_list_parses_pass_names),
      cmocka_unit_test(symmetrise_repairs_what_applications_send),
      cmocka_unit_test(symmetrise_rejects_bad_edges),
      cmocka_unit_test(partition_balances_and_cuts_far_less_than_random),
      cmocka_unit_test(partition_follows_part_sizes_and_empties_zero_parts),
      cmocka_unit_test(refine_keeps_a_balanced_input),
      cmocka_unit_test(repartition_moves_less_than_partition),
      cmocka_unit_test(repart_cut_bound_holds_and_moves_less),
      cmocka_unit_test(move_costs_steer_what_moves),
      cmocka_unit_test(comm_cost_picks_the_fastest_slowest_part),
      cmocka_unit_test(partition_keeps_the_attainable_balance),
      cmocka_unit_test(partition_is_deterministic),
      cmocka_unit_test(repartition_is_deterministic),
      cmocka_unit_test(odd_graphs_still_assign_every_object),
      cmocka_unit_test(two_weights_balance_the_combined_load),
      cmocka_unit_test(bad_input_is_named),
      cmocka_unit_test(remap_sees_no_empty_old_part),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
