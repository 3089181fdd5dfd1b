/* SPDX-License-Identifier: BSD-3-Clause */
/* cmocka tests of hierarchical balancing's core (hierarchy/hier_core.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hier_core.h"
#include "zp_rng.h"

/* The words and lists HIERARCHY takes, and TOPOLOGY read top down. */
static void parse_reads_words_lists_and_topology(void **state)
{
  hier_spec s;
  char why[160];
  (void)state;
  assert_int_equal(hier_parse("NONE", 0, &s, why, sizeof why), 0);
  assert_int_equal(s.kind, HIER_NONE);
  assert_int_equal(hier_parse("NODE", 0, &s, why, sizeof why), 0);
  assert_int_equal(s.kind, HIER_NODE);
  assert_int_equal(hier_parse("AUTO", 0, &s, why, sizeof why), 0);
  assert_int_equal(s.kind, HIER_AUTO);
  assert_int_equal(hier_parse("4, 2,3", 0, &s, why, sizeof why), 0);
  assert_int_equal(s.kind, HIER_SIZES);
  assert_int_equal(s.nlevels, 3);
  assert_int_equal(s.size[0], 4);
  assert_int_equal(s.size[2], 3);
  /* TOPOLOGY "2,8" is 2 sockets of 8 cores: groups of 8 first. */
  assert_int_equal(hier_parse("2,8", 1, &s, why, sizeof why), 0);
  assert_int_equal(s.size[0], 8);
  assert_int_equal(s.size[1], 2);
}

/* Malformed values are refused with a reason, and the spec is untouched. */
static void parse_refuses_malformed_values(void **state)
{
  static const char *const bad[] = {
      "", "FOO", "4,", ",4", "4;2", "0", "-2", "2,0", "1.5", "1,1,1,1,1,1,1,1,1", "99999999"};
  hier_spec s;
  char why[160];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    s.kind = HIER_AUTO;
    why[0] = '\0';
    assert_int_equal(hier_parse(bad[i], 0, &s, why, sizeof why), -1);
    assert_int_equal(s.kind, HIER_AUTO);
    assert_true(strlen(why) > 0);
  }
  /* TOPOLOGY has no words. */
  assert_int_equal(hier_parse("NODE", 1, &s, why, sizeof why), -1);
}

/* Sizes must fit the ranks: product and number of levels. */
static void fit_checks_product_and_levels(void **state)
{
  hier_spec s;
  char why[160];
  (void)state;
  assert_int_equal(hier_parse("2,3", 0, &s, why, sizeof why), 0);
  assert_int_equal(hier_check_fit(&s, 6, why, sizeof why), 0);
  assert_int_equal(hier_check_fit(&s, 7, why, sizeof why), 0);
  assert_int_equal(hier_check_fit(&s, 5, why, sizeof why), -1);
  assert_non_null(strstr(why, "multiply to 6"));
  assert_int_equal(hier_parse("1,1,1", 0, &s, why, sizeof why), 0);
  assert_int_equal(hier_check_fit(&s, 2, why, sizeof why), -1);
  assert_non_null(strstr(why, "3 levels"));
}

/* AUTO's shape keeps every level's fan-out at most fan. */
static void auto_sizes_bound_the_fan_out(void **state)
{
  int size[HIER_MAX_LEVELS], n, P, i;
  (void)state;
  assert_int_equal(hier_auto_sizes(1, 64, size), 0);
  n = hier_auto_sizes(4, 64, size);
  assert_int_equal(n, 1);
  assert_int_equal(size[0], 2);
  for (P = 128; P <= 10000000; P *= 3) {
    double span = 1.0;
    n = hier_auto_sizes(P, 64, size);
    assert_true(n >= 1);
    for (i = 0; i < n; i++) {
      assert_true(size[i] <= 64);
      span *= size[i];
    }
    assert_true(span <= P);
    assert_true(P / span <= 64.0 + 1e-9); /* children of the top */
  }
}

/* Shed objects sum to at most the amount plus the lightest one, and the
 * heaviest fitting objects go first. */
static void select_sheds_close_to_the_amount(void **state)
{
  zp_rng rng;
  size_t n = 1000, i, *order = malloc(n * sizeof *order), count;
  unsigned char *take = malloc(n);
  double *w = malloc(n * sizeof *w), total = 0.0, shed, wmin = INFINITY;
  int round;
  (void)state;
  zp_rng_seed(&rng, 7);
  for (round = 0; round < 20; round++) {
    double amount;
    total = 0.0;
    wmin = INFINITY;
    for (i = 0; i < n; i++) {
      /* Heavy-tailed loads, with some zeros. */
      double u = zp_rng_uniform(&rng);
      w[i] = i % 17 == 0 ? 0.0 : 1.0 / (0.02 + u * u);
      total += w[i];
      if (w[i] > 0.0 && w[i] < wmin) wmin = w[i];
    }
    amount = total * (0.01 + 0.3 * zp_rng_uniform(&rng));
    count = hier_select(w, n, amount, HIER_SHED_CLOSE, order, take, &shed);
    assert_true(count > 0);
    assert_true(fabs(shed - amount) <= wmin);
    {
      double sum = 0.0;
      size_t c = 0;
      for (i = 0; i < n; i++)
        if (take[i]) {
          assert_true(w[i] > 0.0);
          sum += w[i];
          c++;
        }
      assert_int_equal(c, count);
      assert_true(fabs(sum - shed) <= 1e-9 * total);
    }
  }
  /* all = 1: everything goes, zeros included. */
  count = hier_select(w, n, 0.0, HIER_SHED_ALL, order, take, &shed);
  assert_int_equal(count, n);
  assert_true(fabs(shed - total) <= 1e-9 * total);
  /* Nothing to shed. */
  assert_int_equal(hier_select(w, n, 0.0, HIER_SHED_CLOSE, order, take, &shed), 0);
  /* At least: the shed load reaches the amount. */
  for (round = 0; round < 5; round++) {
    double amount = total * (0.01 + 0.1 * round);
    hier_select(w, n, amount, HIER_SHED_AT_LEAST, order, take, &shed);
    assert_true(shed >= amount);
  }
  free(order);
  free(take);
  free(w);
}

/* A refining group: parts over their limit end within it, parts under
 * their target keep what fits, objects in no part leave. */
static void select_refine_keeps_parts_within_limits(void **state)
{
  zp_rng rng;
  enum { N = 600, M = 4 };
  double w[N], limit[M], target[M], load[M] = {0}, after[M] = {0}, shed, total = 0.0;
  int part[N], k, q;
  size_t order[N], count, i;
  unsigned char take[N];
  (void)state;
  zp_rng_seed(&rng, 5);
  for (k = 0; k < N; k++) {
    double u = zp_rng_uniform(&rng);
    w[k] = 10.0 + 990.0 * u * u * u * u;
    /* Part 0 holds twice its share; one object is in no part. */
    part[k] = k == N - 1 ? -1 : (k < 2 * N / (M + 1) ? 0 : 1 + k % (M - 1));
    if (part[k] >= 0) load[part[k]] += w[k];
    total += w[k];
  }
  for (q = 0; q < M; q++) {
    target[q] = total / M;
    limit[q] = 1.05 * target[q];
  }
  count = hier_select_refine(w, part, N, limit, target, M, order, take, &shed);
  assert_true(count > 0 && count < N);
  assert_true(take[N - 1]);
  for (i = 0; i < N; i++)
    if (!take[i] && part[i] >= 0) after[part[i]] += w[i];
  /* What stays in the group fits under its limits (parts may trade
   * inside the group: the total is what counts). */
  {
    double kept = 0.0, lim = 0.0;
    for (q = 0; q < M; q++) {
      kept += after[q];
      lim += limit[q];
    }
    assert_true(kept <= lim);
  }
  /* Parts within their limit shed nothing. */
  for (i = 0; i < N; i++)
    if (part[i] > 0 && load[part[i]] <= limit[part[i]]) assert_false(take[i]);
}

/* LPT placement into rooms: with must, every token is placed into an open
 * child and no child ends further over than the largest token; without,
 * only tokens that bring a child closer to its target are placed. */
static void place_fills_rooms_and_keeps_closed_children_empty(void **state)
{
  zp_rng rng;
  enum { N = 400, M = 9 };
  double w[N], room[M], room0[M], sum = 0.0, wmax = 0.0;
  unsigned char open[M];
  size_t order[N], placed;
  int heap[M], child[N], c, k, round;
  (void)state;
  zp_rng_seed(&rng, 11);
  for (round = 0; round < 10; round++) {
    sum = wmax = 0.0;
    for (k = 0; k < N; k++) {
      w[k] = zp_rng_range(&rng, 0.1, 3.0);
      sum += w[k];
      if (w[k] > wmax) wmax = w[k];
    }
    for (c = 0; c < M; c++) {
      open[c] = c != 4;
      room0[c] = room[c] = open[c] ? sum / (M - 1) : 0.0;
    }
    placed = hier_place(w, N, room, NULL, open, M, 1, order, heap, child);
    assert_int_equal(placed, N);
    for (c = 0; c < M; c++) assert_true(room[c] >= -wmax - 1e-9);
    for (k = 0; k < N; k++) {
      assert_true(child[k] >= 0 && child[k] < M);
      assert_int_not_equal(child[k], 4);
    }
    for (c = 0; c < M; c++) {
      double got = 0.0;
      for (k = 0; k < N; k++)
        if (child[k] == c) got += w[k];
      assert_true(fabs(room0[c] - got - room[c]) <= 1e-9 * sum);
    }
    /* Half the room: about half the load stays for the level above. */
    for (c = 0; c < M; c++) room[c] = open[c] ? sum / (2 * (M - 1)) : 0.0;
    placed = hier_place(w, N, room, NULL, open, M, 0, order, heap, child);
    assert_true(placed < N);
    {
      double got = 0.0;
      for (k = 0; k < N; k++)
        if (child[k] >= 0) got += w[k];
      assert_true(fabs(got - sum / 2) <= M * wmax);
    }
    for (c = 0; c < M; c++) assert_true(room[c] >= -wmax / 2 - 1e-9);
  }
  /* No open child: nothing is placed, even with must. */
  memset(open, 0, sizeof open);
  assert_int_equal(hier_place(w, N, room, NULL, open, M, 1, order, heap, child), 0);
  assert_true(hier_room(room, open, M) == 0.0);
}

/* With slack, a token that would leave a child more than its slack above
 * its target stays for the level above. */
static void place_respects_slack(void **state)
{
  double w[2] = {3.0, 1.0}, room[2] = {2.0, 0.5}, slack[2] = {0.5, 0.5};
  unsigned char open[2] = {1, 1};
  size_t order[2];
  int heap[2], child[2];
  (void)state;
  assert_int_equal(hier_place(w, 2, room, slack, open, 2, 0, order, heap, child), 1);
  assert_int_equal(child[0], -1); /* 3 > 2 + 0.5 */
  assert_int_equal(child[1], 0);
}

/* The same input gives the same placement (ties broken by index). */
static void place_is_deterministic_with_ties(void **state)
{
  double w[6] = {1, 1, 1, 1, 1, 1}, r1[3] = {2, 2, 2}, r2[3] = {2, 2, 2};
  unsigned char open[3] = {1, 1, 1};
  size_t order[6];
  int heap[3], a[6], b[6], k;
  (void)state;
  hier_place(w, 6, r1, NULL, open, 3, 1, order, heap, a);
  hier_place(w, 6, r2, NULL, open, 3, 1, order, heap, b);
  for (k = 0; k < 6; k++) assert_int_equal(a[k], b[k]);
  assert_int_equal(a[0], 0);
  assert_int_equal(a[1], 1);
  assert_int_equal(a[2], 2);
}

/* A graph method's shed on a path of n objects whose first object borders
 * another group (near rank 7): the objects leave from that end inwards,
 * each named for rank 7, and the shed load is close to the amount. */
static void select_near_peels_from_the_border(void **state)
{
  enum { N = 60 };
  double w[N], shed = 0.0, got = 0.0;
  size_t adj_start[N + 1], adj[2 * N], order[N], n, at = 0, k, last = 0;
  int near[N];
  unsigned char take[N];
  zp_rng rng;
  (void)state;
  zp_rng_seed(&rng, 5);
  for (k = 0; k < N; k++) {
    w[k] = zp_rng_range(&rng, 1.0, 2.0);
    near[k] = k == 0 ? 7 : -1;
    adj_start[k] = at;
    if (k > 0) adj[at++] = k - 1;
    if (k + 1 < N) adj[at++] = k + 1;
  }
  adj_start[N] = at;
  n = hier_select_near(w, N, adj_start, adj, near, 20.0, HIER_SHED_CLOSE, order, take, &shed);
  assert_true(n > 0 && n < N);
  for (k = 0; k < N; k++) {
    assert_int_equal(near[k], 7); /* every object is reached from the border */
    if (take[k]) {
      got += w[k];
      last = k;
    }
  }
  assert_true(fabs(got - shed) <= 1e-12 * got);
  assert_true(fabs(shed - 20.0) <= 2.0); /* within one object of the amount */
  /* The shed is a run from the border: every object taken lies within
   * the first n + 2 of the path (objects that did not fit are left). */
  assert_true(last < n + 2);
  /* Every object of a group without parts leaves, and one with no path to
   * the border names no rank. */
  for (k = 0; k < N; k++) near[k] = -1;
  near[0] = 3;
  adj_start[N] = adj_start[N - 1]; /* the last object loses its edges */
  for (k = 0; k < adj_start[N]; k++)
    if (adj[k] == N - 1) adj[k] = N; /* entries >= n are ignored */
  n = hier_select_near(w, N, adj_start, adj, near, 0.0, HIER_SHED_ALL, order, take, &shed);
  assert_int_equal(n, N);
  assert_int_equal(near[N - 1], -1);
  assert_int_equal(near[N - 2], 3);
  for (k = 0; k < N; k++) assert_int_equal(take[k], 1);
}

/* Tokens that name a child go there while it has room; the others follow
 * the LPT rule; the rooms account for every token. */
static void place_near_prefers_the_named_child(void **state)
{
  enum { N = 40, M = 4 };
  double w[N], room[M], room0[M], total = 0.0;
  size_t order[N], placed;
  int near[N], child[N], heap[M], k, c;
  unsigned char open[M] = {1, 1, 1, 1};
  (void)state;
  for (k = 0; k < N; k++) {
    w[k] = 1.0;
    near[k] = k < 10 ? 2 : -1;
    total += w[k];
  }
  for (c = 0; c < M; c++) room0[c] = room[c] = total / M;
  placed = hier_place_near(w, near, N, room, NULL, open, M, 1, order, heap, child);
  assert_int_equal(placed, N);
  for (k = 0; k < 10; k++) assert_int_equal(child[k], 2);
  for (c = 0; c < M; c++) {
    double got = 0.0;
    for (k = 0; k < N; k++)
      if (child[k] == c) got += w[k];
    assert_true(fabs(room0[c] - got - room[c]) <= 1e-12);
    assert_true(fabs(got - total / M) <= 1.0); /* LPT fills the rest evenly */
  }
  /* A named child without room does not take the token. */
  for (c = 0; c < M; c++) room[c] = c == 2 ? 0.0 : total / 3;
  (void)hier_place_near(w, near, N, room, NULL, open, M, 0, order, heap, child);
  for (k = 0; k < N; k++) assert_int_not_equal(child[k], 2);
}

/* A peel on a grid 10 wide whose first row borders the neighbour: the
 * objects leave row by row from that border, objects already taken stay
 * taken and are not counted again, and the load is within one object of
 * the amount. */
static void peel_moves_the_border_row_by_row(void **state)
{
  enum { W = 10, H = 8, N = W * H };
  double w[N], shed = 0.0;
  size_t adj_start[N + 1], adj[4 * N], queue[N], at = 0, k, n;
  unsigned char seed[N], seen[N], take[N];
  (void)state;
  for (k = 0; k < N; k++) {
    w[k] = 1.0;
    seed[k] = k < W; /* the first row touches the neighbour */
    take[k] = 0;
    adj_start[k] = at;
    if (k % W > 0) adj[at++] = k - 1;
    if (k % W < W - 1) adj[at++] = k + 1;
    if (k >= W) adj[at++] = k - W;
    if (k + W < N) adj[at++] = k + W;
  }
  adj_start[N] = at;
  take[N - 1] = 1; /* taken by an earlier link */
  n = hier_peel(w, N, adj_start, adj, seed, 25.0, queue, seen, take, &shed);
  assert_int_equal(n, 25);
  assert_true(fabs(shed - 25.0) < 1e-12);
  for (k = 0; k < 2 * W; k++) assert_int_equal(take[k], 1); /* two whole rows */
  for (k = 3 * W; k < N - 1; k++) assert_int_equal(take[k], 0);
  assert_int_equal(take[N - 1], 1);
  /* Nothing to seed from: nothing moves. */
  memset(seed, 0, sizeof seed);
  n = hier_peel(w, N, adj_start, adj, seed, 10.0, queue, seen, take, &shed);
  assert_int_equal(n, 0);
  assert_true(shed == 0.0);
}

/* Flows on a path of four groups, the first hot: each link carries what
 * the groups beyond it need, the flows of a link are opposite on its two
 * ends, and a group without a target keeps no link. */
static void group_flows_route_load_along_the_path(void **state)
{
  double load[4] = {16.0, 8.0, 8.0, 8.0}, target[4] = {10.0, 10.0, 10.0, 10.0}, flow[6];
  size_t start[5] = {0, 1, 3, 5, 6};
  int adj[6] = {1, 0, 2, 1, 3, 2}, q;
  (void)state;
  assert_int_equal(hier_group_flows(4, load, target, start, adj, 0.999, flow), 0);
  assert_true(fabs(flow[0] + flow[1]) < 1e-9); /* 0 -> 1 and 1 -> 0 */
  assert_true(fabs(flow[2] + flow[3]) < 1e-9);
  assert_true(fabs(flow[4] + flow[5]) < 1e-9);
  assert_true(fabs(flow[0] - 6.0) < 0.1); /* 6 leave the hot group */
  assert_true(fabs(flow[2] - 4.0) < 0.1); /* 4 go on past group 1 */
  assert_true(fabs(flow[4] - 2.0) < 0.1); /* 2 reach the last */
  /* A looser efficiency moves less. */
  assert_int_equal(hier_group_flows(4, load, target, start, adj, 1.0 / 1.1, flow), 0);
  assert_true(flow[0] < 6.0 && flow[0] > 4.0);
  /* Group 3 has no target: no flow reaches it. */
  target[3] = 0.0;
  assert_int_equal(hier_group_flows(4, load, target, start, adj, 0.999, flow), 0);
  assert_true(flow[4] == 0.0 && flow[5] == 0.0);
  for (q = 0; q < 6; q++) assert_true(isfinite(flow[q]));
}

/* What each group sends net over the routes (sent minus received). */
static void route_net(const hier_route *r, size_t n, int m, double *net)
{
  size_t k;
  int q;
  for (q = 0; q < m; q++) net[q] = 0.0;
  for (k = 0; k < n; k++) {
    net[r[k].src] += r[k].amount;
    net[r[k].dst] -= r[k].amount;
  }
}

/* Flows 6, 4, 2 down a path of four groups from the hot first one.  With
 * short borders and heavy moves the load goes straight from the hot group
 * to each group that takes it, peeled from its one border; with long
 * borders it goes hop by hop.  Either way every group sends, net, what the
 * flows send. */
static void flow_routes_go_straight_when_the_border_is_short(void **state)
{
  double flow[6] = {6.0, -6.0, 4.0, -4.0, 2.0, -2.0}, border[6], unit[4] = {1, 1, 1, 1};
  double net[4], want[4] = {6.0, -2.0, -2.0, -2.0};
  size_t start[5] = {0, 1, 3, 5, 6}, n = 0, k;
  int adj[6] = {1, 0, 2, 1, 3, 2}, q;
  hier_route *r = NULL;
  (void)state;
  for (k = 0; k < 6; k++) border[k] = 1.0;
  assert_int_equal(hier_flow_routes(4, start, adj, flow, border, unit, &r, &n), 0);
  assert_int_equal(n, 3);
  for (k = 0; k < n; k++) {
    assert_int_equal(r[k].src, 0);
    assert_int_equal(r[k].first, 1);
    assert_int_equal(r[k].dst, (int)k + 1); /* the nearest first */
    assert_int_equal(r[k].hops, (int)k + 1);
    assert_true(fabs(r[k].amount - 2.0) < 1e-12);
  }
  route_net(r, n, 4, net);
  for (q = 0; q < 4; q++) assert_true(fabs(net[q] - want[q]) < 1e-12);
  free(r);
  /* A border of 3 costs more than 2 units moved once more, less than 2
   * units moved twice more: the far route goes straight, the middle one
   * hop by hop. */
  for (k = 0; k < 6; k++) border[k] = 3.0;
  assert_int_equal(hier_flow_routes(4, start, adj, flow, border, unit, &r, &n), 0);
  route_net(r, n, 4, net);
  for (q = 0; q < 4; q++) assert_true(fabs(net[q] - want[q]) < 1e-12);
  for (k = 0; k < n; k++) assert_true(r[k].hops == 1 || (r[k].dst == 3 && r[k].src == 0));
  assert_int_equal(n, 3); /* 0 -> 1 (twice, merged), 1 -> 2, 0 -> 3 straight */
  free(r);
  for (k = 0; k < 6; k++) border[k] = 100.0;
  assert_int_equal(hier_flow_routes(4, start, adj, flow, border, unit, &r, &n), 0);
  assert_int_equal(n, 3);
  for (k = 0; k < n; k++) {
    assert_int_equal(r[k].src, (int)k);
    assert_int_equal(r[k].dst, (int)k + 1);
    assert_int_equal(r[k].hops, 1);
    assert_true(fabs(r[k].amount - 6.0 + 2.0 * (double)k) < 1e-12);
  }
  route_net(r, n, 4, net);
  for (q = 0; q < 4; q++) assert_true(fabs(net[q] - want[q]) < 1e-12);
  free(r);
}

/* A cycle in the flows (0 -> 1 -> 2 -> 0) is cancelled: the routes send
 * net what the flows send, and no route runs from the taker back. */
static void flow_routes_cancel_cycles_and_check_groups(void **state)
{
  /* Triangle: links 0-1, 0-2, 1-2. */
  size_t start[4] = {0, 2, 4, 6}, n = 0, k;
  int adj[6] = {1, 2, 0, 2, 0, 1}, bad[6] = {1, 2, 0, 7, 0, 1}, q;
  double flow[6] = {3.0, -1.0, -3.0, 3.0, 1.0, -3.0}, border[6], unit[3] = {1, 1, 1};
  double net[3], want[3] = {2.0, 0.0, -2.0};
  hier_route *r = NULL;
  (void)state;
  for (k = 0; k < 6; k++) border[k] = 1.0;
  assert_int_equal(hier_flow_routes(3, start, adj, flow, border, unit, &r, &n), 0);
  route_net(r, n, 3, net);
  for (q = 0; q < 3; q++) assert_true(fabs(net[q] - want[q]) < 1e-12);
  for (k = 0; k < n; k++) {
    assert_int_not_equal(r[k].src, 2);
    assert_true(r[k].amount > 0.0);
  }
  free(r);
  r = NULL;
  assert_int_equal(hier_flow_routes(3, start, bad, flow, border, unit, &r, &n), -1);
  assert_null(r);
  assert_int_equal(n, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parse_reads_words_lists_and_topology),
      cmocka_unit_test(parse_refuses_malformed_values),
      cmocka_unit_test(fit_checks_product_and_levels),
      cmocka_unit_test(auto_sizes_bound_the_fan_out),
      cmocka_unit_test(select_sheds_close_to_the_amount),
      cmocka_unit_test(select_refine_keeps_parts_within_limits),
      cmocka_unit_test(place_fills_rooms_and_keeps_closed_children_empty),
      cmocka_unit_test(place_respects_slack),
      cmocka_unit_test(place_is_deterministic_with_ties),
      cmocka_unit_test(select_near_peels_from_the_border),
      cmocka_unit_test(place_near_prefers_the_named_child),
      cmocka_unit_test(peel_moves_the_border_row_by_row),
      cmocka_unit_test(group_flows_route_load_along_the_path),
      cmocka_unit_test(flow_routes_go_straight_when_the_border_is_short),
      cmocka_unit_test(flow_routes_cancel_cycles_and_check_groups),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
