/* SPDX-License-Identifier: BSD-3-Clause */
/* cmocka tests of the DIFFUSION core (diffusion/diffusion_core.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core_testutil.h"
#include "diffusion_core.h"
#include "zp_rng.h"

/* A rank graph in compressed rows, built from an edge list. */
typedef struct rgraph {
  diffusion_graph g;
  size_t *start;
  int *adj;
} rgraph;

/* Build a symmetric graph of P ranks from m undirected pairs (a[k], b[k]). */
static void rgraph_make(rgraph *r, int P, size_t m, const int *a, const int *b)
{
  size_t *deg = calloc((size_t)P + 1, sizeof *deg), k;
  r->start = calloc((size_t)P + 1, sizeof *r->start);
  r->adj = malloc((2 * m + 1) * sizeof *r->adj);
  for (k = 0; k < m; k++) {
    r->start[a[k] + 1]++;
    r->start[b[k] + 1]++;
  }
  for (int p = 0; p < P; p++) r->start[p + 1] += r->start[p];
  for (k = 0; k < m; k++) {
    r->adj[r->start[a[k]] + deg[a[k]]++] = b[k];
    r->adj[r->start[b[k]] + deg[b[k]]++] = a[k];
  }
  free(deg);
  r->g.nranks = P;
  r->g.start = r->start;
  r->g.adj = r->adj;
}

/* A side x side torus of ranks (side >= 3, so no link repeats). */
static void rgraph_torus(rgraph *r, int side)
{
  int P = side * side, m = 0;
  int *a = malloc(2 * (size_t)P * sizeof *a), *b = malloc(2 * (size_t)P * sizeof *b);
  for (int y = 0; y < side; y++)
    for (int x = 0; x < side; x++) {
      int p = y * side + x;
      a[m] = p, b[m++] = y * side + (x + 1) % side;
      a[m] = p, b[m++] = ((y + 1) % side) * side + x;
    }
  rgraph_make(r, P, (size_t)m, a, b);
  free(a);
  free(b);
}

/* A path of P ranks: the worst diameter. */
static void rgraph_path(rgraph *r, int P)
{
  int *a = malloc((size_t)P * sizeof *a), *b = malloc((size_t)P * sizeof *b);
  for (int p = 0; p + 1 < P; p++) a[p] = p, b[p] = p + 1;
  rgraph_make(r, P, (size_t)(P - 1), a, b);
  free(a);
  free(b);
}

static void rgraph_free(rgraph *r)
{
  free(r->start);
  free(r->adj);
}

/* Index of the entry (q, p) in q's row. */
static size_t reverse_of(const rgraph *r, int q, int p)
{
  for (size_t k = r->start[q]; k < r->start[q + 1]; k++)
    if (r->adj[k] == p) return k;
  fail_msg("no link %d-%d", q, p);
  return 0;
}

/* U_avg / U_max. */
static double eff_of(int P, const double *cap, const double *load)
{
  double ls = 0.0, cs = 0.0, um = 0.0;
  for (int p = 0; p < P; p++) {
    ls += load[p];
    cs += cap[p];
    if (load[p] / cap[p] > um) um = load[p] / cap[p];
  }
  return (ls / cs) / um;
}

/* Both ends of a link compute the same weight, bit for bit. */
static void link_weights_agree_on_both_ends(void **unused)
{
  zp_rng g;
  (void)unused;
  zp_rng_seed(&g, 5);
  for (int t = 0; t < 1000; t++) {
    double ci = zp_rng_range(&g, 1e-6, 10.0), cj = zp_rng_range(&g, 1e-6, 10.0), wi, wj, si, sj;
    assert_int_equal(diffusion_link_weights(ci, 1, &cj, &wi, &si), DIFFUSION_OK);
    assert_int_equal(diffusion_link_weights(cj, 1, &ci, &wj, &sj), DIFFUSION_OK);
    assert_memory_equal(&wi, &wj, sizeof wi);
    assert_true(fabs(wi - ci * cj / (ci + cj)) <= 1e-15 * wi);
  }
}

/* The plan solves each round to accuracy / (1 + a k) and halves a long
 * step until the sweeps suffice. */
static void plan_solves_each_round_accurately(void **unused)
{
  double a;
  int m;
  (void)unused;
  diffusion_plan(1.0, 1.0, 0.02, &a, &m);
  /* rho = 1/2, accuracy 0.01: ceil(ln 0.01 / ln 0.5) = 7. */
  assert_true(a == 1.0);
  assert_int_equal(m, 7);
  diffusion_plan(5.0, 0.0, 0.02, &a, &m);
  assert_true(a == 5.0);
  assert_int_equal(m, 1);
  diffusion_plan(1e6, 1.0, 0.02, &a, &m);
  assert_true(a < 1e6 && a > 1.0);
  assert_true(m >= 1 && m <= DIFFUSION_MAX_SWEEPS);
  assert_true(pow(a / (1.0 + a), m) <= 0.02 / (1.0 + a));
}

/* On a torus with random loads: the total is conserved, flows are exactly
 * antisymmetric, the target efficiency is reached, no load goes negative. */
static void diffusion_conserves_load_and_reaches_the_target(void **unused)
{
  rgraph r;
  zp_rng g;
  int P;
  double *cap, *load, *flow, *phi, before = 0.0, after = 0.0;
  diffusion_stats st;
  diffusion_options o;
  (void)unused;
  rgraph_torus(&r, 8);
  P = r.g.nranks;
  cap = malloc(P * sizeof *cap);
  load = malloc(P * sizeof *load);
  flow = malloc(r.start[P] * sizeof *flow);
  phi = malloc(P * sizeof *phi);
  zp_rng_seed(&g, 11);
  for (int p = 0; p < P; p++) {
    cap[p] = 1.0;
    load[p] = zp_rng_range(&g, 10.0, 1000.0);
    before += load[p];
  }
  diffusion_default_options(&o);
  o.efficiency = 0.99;
  o.accuracy = 0.01;
  assert_int_equal(diffusion_simulate(&r.g, cap, load, &o, flow, phi, &st), DIFFUSION_OK);
  for (int p = 0; p < P; p++) {
    after += load[p];
    assert_true(load[p] >= 0.0);
    for (size_t k = r.start[p]; k < r.start[p + 1]; k++) {
      assert_true(flow[k] == -flow[reverse_of(&r, r.adj[k], p)]);
      /* The transfers run down the potential: no cycles. */
      if (flow[k] > 1e-9 * before) assert_true(phi[p] > phi[r.adj[k]]);
    }
  }
  assert_true(fabs(after - before) <= 1e-9 * before);
  assert_true(st.eff_after >= 0.99);
  assert_true(eff_of(P, cap, load) >= 0.99);
  assert_true(st.eff_before < 0.5);
  assert_true(st.rounds >= 1);
  assert_int_equal((int)st.max_degree, 4);
  free(cap);
  free(load);
  free(flow);
  free(phi);
  rgraph_free(&r);
}

/* Capacities 1:2:4:8 on a ring of four: utilizations become equal. */
static void heterogeneous_capacities_equalise_utilization(void **unused)
{
  int a[] = {0, 1, 2, 3}, b[] = {1, 2, 3, 0};
  double cap[] = {1, 2, 4, 8}, load[] = {500, 100, 100, 50}, flow[8];
  rgraph r;
  diffusion_options o;
  (void)unused;
  rgraph_make(&r, 4, 4, a, b);
  diffusion_default_options(&o);
  o.efficiency = 0.995;
  o.accuracy = 0.005;
  assert_int_equal(diffusion_simulate(&r.g, cap, load, &o, flow, NULL, NULL), DIFFUSION_OK);
  for (int p = 0; p < 4; p++) assert_true(fabs(load[p] / cap[p] - 750.0 / 15.0) <= 0.01 * 50.0);
  rgraph_free(&r);
}

/* Implicit steps are stable for any step length: a huge alpha converges
 * and never drives a load below zero. */
static void large_steps_stay_stable(void **unused)
{
  rgraph r;
  double cap[16], load[16], flow[64];
  diffusion_options o;
  diffusion_stats st;
  (void)unused;
  rgraph_path(&r, 16);
  for (int p = 0; p < 16; p++) {
    cap[p] = 1.0;
    load[p] = p == 0 ? 1600.0 : 0.0;
  }
  diffusion_default_options(&o);
  o.alpha = 1000.0;
  assert_int_equal(diffusion_simulate(&r.g, cap, load, &o, flow, NULL, &st), DIFFUSION_OK);
  for (int p = 0; p < 16; p++)
    assert_true(load[p] >= -1e-9 && load[p] <= 100.0 / o.efficiency + 1e-9);
  assert_true(st.eff_after >= o.efficiency);
  rgraph_free(&r);
}

/* A balanced system takes no round and sends nothing. */
static void balanced_input_sends_nothing(void **unused)
{
  rgraph r;
  double cap[9], load[9], flow[36];
  diffusion_stats st;
  (void)unused;
  rgraph_torus(&r, 3);
  for (int p = 0; p < 9; p++) cap[p] = 1.0 + p % 2, load[p] = 3.0 * cap[p];
  assert_int_equal(diffusion_simulate(&r.g, cap, load, NULL, flow, NULL, &st), DIFFUSION_OK);
  assert_int_equal(st.rounds, 0);
  for (size_t k = 0; k < r.start[9]; k++) assert_true(flow[k] == 0.0);
  rgraph_free(&r);
}

/* Too few rounds: a warning, and the flows so far still conserve load. */
static void round_limit_warns(void **unused)
{
  rgraph r;
  double cap[32], load[32], flow[64], tot = 0.0;
  diffusion_options o;
  (void)unused;
  rgraph_path(&r, 32);
  for (int p = 0; p < 32; p++) cap[p] = 1.0, load[p] = p < 2 ? 100.0 : 0.0;
  diffusion_default_options(&o);
  o.max_rounds = 1;
  o.alpha = 0.1;
  assert_int_equal(diffusion_simulate(&r.g, cap, load, &o, flow, NULL, NULL), DIFFUSION_WARN);
  for (int p = 0; p < 32; p++) tot += load[p];
  assert_true(fabs(tot - 200.0) < 1e-9);
  rgraph_free(&r);
}

/* Selection: never more than half an object above a quota, and below it
 * only by less than half of the smallest object left behind. */
static void selection_stays_within_half_an_object(void **unused)
{
  zp_rng g;
  (void)unused;
  zp_rng_seed(&g, 3);
  for (int t = 0; t < 200; t++) {
    size_t n = 1 + zp_rng_below(&g, 300);
    int nnbr = 1 + (int)zp_rng_below(&g, 5), *dest = malloc(n * sizeof *dest);
    double *s = malloc(n * sizeof *s), q[5], sent[5], total = 0.0, want = 0.0;
    for (size_t i = 0; i < n; i++) total += s[i] = 10.0 + 990.0 * pow(zp_rng_uniform(&g), 4);
    for (int j = 0; j < nnbr; j++) want += q[j] = zp_rng_range(&g, -100.0, total / (nnbr + 1));
    assert_int_equal(diffusion_select(n, s, nnbr, q, NULL, 1.0, dest, sent), DIFFUSION_OK);
    for (int j = 0; j < nnbr; j++) {
      double got = 0.0, min_left = INFINITY, smax = 0.0;
      for (size_t i = 0; i < n; i++) {
        if (dest[i] == j) got += s[i], smax = fmax(smax, s[i]);
        if (dest[i] < 0) min_left = fmin(min_left, s[i]);
      }
      assert_true(fabs(got - sent[j]) <= 1e-9 * total);
      if (q[j] <= 0.0) {
        assert_true(got == 0.0);
        continue;
      }
      assert_true(got - q[j] < smax / 2.0 + 1e-9 || got == 0.0);
      if (got < q[j] && min_left < INFINITY) assert_true(q[j] - got <= min_left / 2.0 + 1e-9);
    }
    free(dest);
    free(s);
  }
}

/* Objects whose move costs least per unit of load go first: an object
 * whose edges lead to the receiver before an interior one of the same load,
 * a heavy interior object before a light one on the boundary when it costs
 * less per unit; zero loads never move. */
static void selection_takes_the_cheapest_load_first(void **unused)
{
  double s[6] = {5, 5, 5, 5, 0, 5}, q[2] = {10, 0}, cost[12];
  int dest[6];
  (void)unused;
  for (int i = 0; i < 12; i++) cost[i] = 4.0; /* interior: 4 edges at home */
  cost[2 * 3] = -2.0;                         /* object 3: 3 edges to neighbour 0, 1 home */
  cost[2 * 5] = 0.0;                          /* object 5: 2 and 2 */
  cost[2 * 4] = -4.0;                         /* object 4 the cheapest, but it weighs nothing */
  assert_int_equal(diffusion_select(6, s, 2, q, cost, 1.0, dest, NULL), DIFFUSION_OK);
  assert_int_equal(dest[3], 0);
  assert_int_equal(dest[5], 0);
  assert_int_equal(dest[4], -1);
  assert_int_equal(dest[0] + dest[1] + dest[2], -3);
  {
    /* One heavy interior object (cost (4 + 1) / 20) against light boundary
     * ones (cost (2 + 1) / 2 each): the heavy one fills the quota alone. */
    double s2[4] = {20, 2, 2, 2}, c2[4] = {4, 2, 2, 2}, q2[1] = {20};
    int d2[4];
    assert_int_equal(diffusion_select(4, s2, 1, q2, c2, 1.0, d2, NULL), DIFFUSION_OK);
    assert_int_equal(d2[0], 0);
    assert_int_equal(d2[1] + d2[2] + d2[3], -3);
  }
}

/* Quotas larger than the rank's load are scaled down: a rank gives at most
 * what it has, shared in proportion. */
static void selection_scales_quotas_to_the_load(void **unused)
{
  double s[8] = {1, 1, 1, 1, 1, 1, 1, 1}, q[2] = {12, 4}, sent[2];
  int dest[8];
  (void)unused;
  assert_int_equal(diffusion_select(8, s, 2, q, NULL, 0.0, dest, sent), DIFFUSION_OK);
  assert_true(sent[0] == 6.0 && sent[1] == 2.0);
}

/* Boxes that touch within the margin are neighbours, both ways; an empty
 * box touches nothing. */
static void boxes_touching_within_the_margin_are_neighbours(void **unused)
{
  /* Four 2-D blocks of a 2 x 2 grid of cells of width 1 (centres 0.5 apart
   * from the block edge), a far box and an empty one. */
  double b[6][4] = {{0.5, 0.5, 3.5, 3.5}, {4.5, 0.5, 7.5, 3.5}, {0.5, 4.5, 3.5, 7.5},
                    {4.5, 4.5, 7.5, 7.5}, {20, 20, 21, 21},     {1, 1, 0, 0}};
  int out[6], n, m, k;
  (void)unused;
  n = diffusion_box_neighbours(6, 2, &b[0][0], 1.0, 0, out);
  assert_int_equal(n, 3);
  assert_int_equal(out[0], 1);
  assert_int_equal(out[1], 2);
  assert_int_equal(out[2], 3);
  assert_int_equal(diffusion_box_neighbours(6, 2, &b[0][0], 0.4, 0, out), 0);
  assert_int_equal(diffusion_box_neighbours(6, 2, &b[0][0], 1.0, 4, out), 0);
  assert_int_equal(diffusion_box_neighbours(6, 2, &b[0][0], 1.0, 5, out), 0);
  for (int p = 0; p < 6; p++) {
    int nb[6];
    m = diffusion_box_neighbours(6, 2, &b[0][0], 1.0, p, nb);
    for (k = 0; k < m; k++) {
      int back[6], mb = diffusion_box_neighbours(6, 2, &b[0][0], 1.0, nb[k], back), found = 0;
      for (int j = 0; j < mb; j++) found |= back[j] == p;
      assert_true(found);
    }
  }
  assert_int_equal(diffusion_box_neighbours(6, 4, &b[0][0], 1.0, 0, out), -1);
  assert_int_equal(diffusion_box_neighbours(6, 2, &b[0][0], -1.0, 0, out), -1);
}

/* GDE's colourings are proper (a rank has at most one link of a colour,
 * and partners agree), and one round over the hypercube's colours with
 * lambda 1 balances equal capacities exactly. */
static void gde_colourings_are_proper_and_the_hypercube_balances_in_one_round(void **unused)
{
  diffusion_topology tops[2] = {DIFFUSION_HYPERCUBE, DIFFUSION_RING};
  double load[8] = {800, 0, 0, 0, 100, 300, 0, 0}, total = 1200.0;
  (void)unused;
  for (int t = 0; t < 2; t++)
    for (int P = 1; P <= 9; P++) {
      int C = diffusion_gde_colours(tops[t], P);
      for (int r = 0; r < P; r++) {
        int links = 0;
        for (int c = 0; c < C; c++) {
          int q = diffusion_gde_partner(tops[t], P, r, c);
          if (q < 0) continue;
          links++;
          assert_true(q != r);
          assert_int_equal(diffusion_gde_partner(tops[t], P, q, c), r);
        }
        /* Every ring rank keeps both its links (one when P == 2). */
        if (tops[t] == DIFFUSION_RING && P > 2) assert_int_equal(links, 2);
      }
      assert_int_equal(diffusion_gde_partner(tops[t], P, 0, C), -1);
    }
  for (int c = 0; c < diffusion_gde_colours(DIFFUSION_HYPERCUBE, 8); c++) {
    double next[8];
    for (int r = 0; r < 8; r++) {
      int q = diffusion_gde_partner(DIFFUSION_HYPERCUBE, 8, r, c);
      double f = diffusion_gde_transfer(load[r], 1.0, load[q], 1.0, 1.0);
      assert_true(f == -diffusion_gde_transfer(load[q], 1.0, load[r], 1.0, 1.0));
      next[r] = load[r] - f;
    }
    memcpy(load, next, sizeof load);
  }
  for (int r = 0; r < 8; r++) assert_true(fabs(load[r] - total / 8) < 1e-9);
}

/* Bad input is refused. */
static void bad_input_is_refused(void **unused)
{
  double w[2], ws, cbad[2] = {1.0, 0.0}, s[2] = {1.0, NAN}, q[1] = {1.0}, load[2] = {1, 1},
                   cap[2] = {1, 1}, flow[2];
  int dest[2], self_adj[2] = {0, 0};
  size_t start[3] = {0, 1, 2};
  diffusion_graph g = {2, start, self_adj};
  (void)unused;
  assert_int_equal(diffusion_link_weights(0.0, 1, cbad, w, &ws), DIFFUSION_EINVAL);
  assert_int_equal(diffusion_link_weights(1.0, 2, cbad, w, &ws), DIFFUSION_EINVAL);
  assert_int_equal(diffusion_select(2, s, 1, q, NULL, 0.0, dest, NULL), DIFFUSION_EINVAL);
  s[1] = -1.0;
  assert_int_equal(diffusion_select(2, s, 1, q, NULL, 0.0, dest, NULL), DIFFUSION_EINVAL);
  s[1] = 1.0;
  assert_int_equal(diffusion_select(2, s, 1, q, NULL, -1.0, dest, NULL), DIFFUSION_EINVAL);
  assert_int_equal(diffusion_simulate(&g, cap, load, NULL, flow, NULL, NULL), DIFFUSION_EINVAL);
  self_adj[0] = 1;
  self_adj[1] = 0;
  cap[1] = -1.0;
  assert_int_equal(diffusion_simulate(&g, cap, load, NULL, flow, NULL, NULL), DIFFUSION_EINVAL);
  cap[1] = 1.0;
  load[0] = NAN;
  assert_int_equal(diffusion_simulate(&g, cap, load, NULL, flow, NULL, NULL), DIFFUSION_EINVAL);
}

/* GDE on any graph: colour (a + b) mod P is the same at both ends, no rank
 * has two links of one colour, and each rank's order is by colour; played
 * as synchronous colour steps on a random graph, the exchanges conserve the
 * load and bring it towards equal. */
static void gde_link_colours_are_proper_on_any_graph(void **state)
{
  (void)state;
  enum { P = 37, DEG = 6 };
  int nbr[P][DEG], deg[P] = {0}, order[DEG];
  double L[P], tot = 0.0, mx0 = 0.0, mx = 0.0;
  /* A random simple graph: each rank links to a few others. */
  for (int a = 0; a < P; a++)
    for (int t = 1; t <= 2; t++) {
      int b = (a * 7 + t * 11) % P;
      int dup = b == a;
      for (int k = 0; k < deg[a] && !dup; k++) dup = nbr[a][k] == b;
      if (dup || deg[a] >= DEG || deg[b] >= DEG) continue;
      nbr[a][deg[a]++] = b;
      nbr[b][deg[b]++] = a;
    }
  for (int a = 0; a < P; a++) {
    diffusion_gde_link_order(a, deg[a], nbr[a], P, order);
    for (int k = 0; k < deg[a]; k++) {
      int b = nbr[a][k];
      assert_int_equal(diffusion_gde_link_colour(a, b, P), diffusion_gde_link_colour(b, a, P));
      for (int j = 0; j < k; j++)
        assert_int_not_equal(diffusion_gde_link_colour(a, b, P),
                             diffusion_gde_link_colour(a, nbr[a][j], P));
      if (k > 0)
        assert_true(diffusion_gde_link_colour(a, nbr[a][order[k - 1]], P) <
                    diffusion_gde_link_colour(a, nbr[a][order[k]], P));
    }
    L[a] = a % 5 == 0 ? 10.0 : 1.0;
    tot += L[a];
    mx0 = L[a] > mx0 ? L[a] : mx0;
  }
  for (int round = 0; round < 30; round++)
    for (int c = 0; c < P; c++)
      for (int a = 0; a < P; a++)
        for (int k = 0; k < deg[a]; k++) {
          int b = nbr[a][k];
          if (b <= a || diffusion_gde_link_colour(a, b, P) != c) continue;
          double f = diffusion_gde_transfer(L[a], 1.0, L[b], 1.0, 1.0);
          L[a] -= f;
          L[b] += f;
        }
  double sum = 0.0;
  for (int a = 0; a < P; a++) {
    sum += L[a];
    mx = L[a] > mx ? L[a] : mx;
  }
  assert_true(fabs(sum - tot) < 1e-9 * tot);
  assert_true(mx < 0.5 * mx0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(link_weights_agree_on_both_ends),
      cmocka_unit_test(plan_solves_each_round_accurately),
      cmocka_unit_test(diffusion_conserves_load_and_reaches_the_target),
      cmocka_unit_test(heterogeneous_capacities_equalise_utilization),
      cmocka_unit_test(large_steps_stay_stable),
      cmocka_unit_test(balanced_input_sends_nothing),
      cmocka_unit_test(round_limit_warns),
      cmocka_unit_test(selection_stays_within_half_an_object),
      cmocka_unit_test(selection_takes_the_cheapest_load_first),
      cmocka_unit_test(selection_scales_quotas_to_the_load),
      cmocka_unit_test(boxes_touching_within_the_margin_are_neighbours),
      cmocka_unit_test(gde_colourings_are_proper_and_the_hypercube_balances_in_one_round),
      cmocka_unit_test(gde_link_colours_are_proper_on_any_graph),
      cmocka_unit_test(bad_input_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
