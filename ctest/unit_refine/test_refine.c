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
#include "refine_core.h"

/* An lb_test-shaped case: block mapping, heavy-tailed loads. */
typedef struct lbcase {
  size_t n;  /* objects */
  int p;     /* parts */
  double *w; /* weights */
  int *cur;  /* block mapping */
  int *out;  /* result */
} lbcase;

static void lb_make(lbcase *c, size_t n, int p, double wmax, uint64_t seed)
{
  zp_rng rng;
  zp_rng_seed(&rng, seed);
  c->n = n;
  c->p = p;
  c->w = malloc(n * sizeof(double));
  c->cur = malloc(n * sizeof(int));
  c->out = malloc(n * sizeof(int));
  ct_heavy_tailed(&rng, n, 1.0, wmax, c->w);
  for (size_t i = 0; i < n; i++) c->cur[i] = (int)(i * (size_t)p / n);
}

static void lb_free(lbcase *c)
{
  free(c->w);
  free(c->cur);
  free(c->out);
}

static void opts(refine_options *o, double tol)
{
  refine_default_options(o);
  o->tolerance = tol;
}

/* Work buffers for refine_options.scratch: slots 2 and 6 are refused, so
 * that the core's own allocation is exercised beside the caller's buffers. */
typedef struct scratch_pool {
  void *buf[REFINE_SCRATCH_SLOTS];
  size_t cap[REFINE_SCRATCH_SLOTS];
  int asked;
} scratch_pool;

static void *pool_buffer(void *arg, int slot, size_t bytes)
{
  scratch_pool *p = arg;
  p->asked++;
  if (slot < 0 || slot >= REFINE_SCRATCH_SLOTS || slot == 2 || slot == 6) return NULL;
  if (p->cap[slot] < bytes) {
    free(p->buf[slot]);
    p->buf[slot] = malloc(bytes);
    p->cap[slot] = p->buf[slot] ? bytes : 0;
    /* Stale contents must not matter: fill with a pattern. */
    if (p->buf[slot]) memset(p->buf[slot], 0xa5, bytes);
  }
  return p->buf[slot];
}

/* The caller's work buffers change no answer, over repeated calls that
 * reuse them. */
static void refine_with_scratch_gives_the_same_answer(void **state)
{
  (void)state;
  enum { N = 5000, P = 12 };
  zp_rng rng;
  double w[N];
  int cur[N], a[N], b[N];
  scratch_pool pool;
  refine_options o;
  refine_stats st;
  memset(&pool, 0, sizeof pool);
  zp_rng_seed(&rng, 58);
  for (int round = 0; round < 3; round++) {
    ct_heavy_tailed(&rng, N, 1.0, 100.0, w);
    for (int i = 0; i < N; i++) cur[i] = (int)zp_rng_below(&rng, P / (round + 1));
    opts(&o, 1.03);
    assert_true(refine_run(N, 1, w, P, NULL, cur, &o, a, &st) >= 0);
    o.scratch = pool_buffer;
    o.scratch_arg = &pool;
    assert_true(refine_run(N, 1, w, P, NULL, cur, &o, b, &st) >= 0);
    assert_memory_equal(a, b, sizeof a);
    /* GREEDYREFINE's thorough pass, whose REFINE pass runs while its own
     * buffers are in use. */
    opts(&o, 1.03);
    o.gr_threshold = 1.0;
    assert_true(refine_greedyrefine(N, 1, w, P, NULL, cur, &o, a, &st) >= 0);
    o.scratch = pool_buffer;
    o.scratch_arg = &pool;
    assert_true(refine_greedyrefine(N, 1, w, P, NULL, cur, &o, b, &st) >= 0);
    assert_memory_equal(a, b, sizeof a);
  }
  assert_true(pool.asked > 0);
  for (int k = 0; k < REFINE_SCRATCH_SLOTS; k++) free(pool.buf[k]);
}

/* A balanced input comes back unchanged, with zero moves. */
static void refine_makes_no_move_when_balanced(void **state)
{
  (void)state;
  enum { N = 300, P = 10 };
  double w[N];
  int cur[N], out[N];
  refine_options o;
  refine_stats st;
  for (int i = 0; i < N; i++) {
    w[i] = 1.0 + (i % 3);
    cur[i] = i % P; /* every part gets the same multiset: perfect balance */
  }
  opts(&o, 1.02);
  assert_int_equal(refine_run(N, 1, w, P, NULL, cur, &o, out, &st), REFINE_OK);
  assert_int_equal(st.moved, 0);
  assert_memory_equal(cur, out, sizeof(cur));
  assert_int_equal(st.pass, REFINE_PASS_NONE);
  /* GREEDYREFINE's thorough pass also keeps a perfect input in place. */
  assert_int_equal(refine_greedyrefine(N, 1, w, P, NULL, cur, NULL, out, &st), REFINE_OK);
  assert_int_equal(st.moved, 0);
}

/* A feasible tolerance is reached, moving only objects of overloaded parts. */
static void refine_reaches_tolerance_when_feasible(void **state)
{
  (void)state;
  for (uint64_t seed = 1; seed <= 5; seed++) {
    lbcase c;
    refine_options o;
    refine_stats st;
    lb_make(&c, 3000, 30, 10.0, seed);
    opts(&o, 1.03);
    double before = ct_max_rel_load(c.n, c.w, c.p, NULL, c.cur);
    assert_true(before > 1.03); /* the case needs work */
    assert_int_equal(refine_run(c.n, 1, c.w, c.p, NULL, c.cur, &o, c.out, &st), REFINE_OK);
    assert_int_equal(ct_check_assignment(c.n, 1, c.w, c.p, NULL, 1, c.out), 0);
    double after = ct_max_rel_load(c.n, c.w, c.p, NULL, c.out);
    assert_true(after <= 1.03 * (1 + 1e-12));
    assert_true(fabs(after - st.imbalance_after) < 1e-9);
    assert_true(fabs(before - st.imbalance_before) < 1e-9);
    assert_int_equal(st.moved, ct_moved(c.n, c.cur, c.out));
    /* Only objects of parts above the limit moved. */
    double *load = calloc((size_t)c.p, sizeof(double)), total = 0.0;
    for (size_t i = 0; i < c.n; i++) {
      load[c.cur[i]] += c.w[i];
      total += c.w[i];
    }
    for (size_t i = 0; i < c.n; i++)
      if (c.out[i] != c.cur[i]) assert_true(load[c.cur[i]] > 1.03 * total / c.p);
    /* Far fewer moves than GREEDY's near-total reshuffle. */
    assert_true(st.moved < c.n / 10);
    free(load);
    lb_free(&c);
  }
}

/* Over many random cases, feasible or not, the output is never worse. */
static void refine_is_never_worse_than_input(void **state)
{
  (void)state;
  zp_rng rng;
  zp_rng_seed(&rng, 42);
  for (int trial = 0; trial < 200; trial++) {
    size_t n = 5 + zp_rng_below(&rng, 60);
    int p = 2 + (int)zp_rng_below(&rng, 6);
    double w[64], frac[8];
    int cur[64], out[64];
    refine_options o;
    refine_stats st;
    ct_heavy_tailed(&rng, n, 0.0, 100.0, w);
    for (size_t i = 0; i < n; i++) cur[i] = (int)zp_rng_below(&rng, (uint64_t)p);
    for (int q = 0; q < p; q++) frac[q] = (double)zp_rng_below(&rng, 4); /* some zero-size parts */
    frac[0] += 1.0;
    opts(&o, 1.0 + 0.1 * zp_rng_uniform(&rng));
    int rc = refine_run(n, 1, w, p, frac, cur, &o, out, &st);
    assert_true(rc == REFINE_OK || rc == REFINE_WARN);
    assert_int_equal(ct_check_assignment(n, 1, w, p, NULL, 0, out), 0);
    double before = ct_max_rel_load(n, w, p, frac, cur);
    double after = ct_max_rel_load(n, w, p, frac, out);
    assert_true(after <= before * (1 + 1e-12) || (isinf(before) && isinf(after)) || isinf(before));
    assert_true(rc == REFINE_WARN || after <= o.tolerance * (1 + 1e-9));
    rc = refine_greedyrefine(n, 1, w, p, frac, cur, &o, out, &st);
    assert_true(rc == REFINE_OK || rc == REFINE_WARN);
    assert_int_equal(ct_check_assignment(n, 1, w, p, frac, 0, out), 0);
    after = ct_max_rel_load(n, w, p, frac, out);
    assert_true(after <= before * (1 + 1e-12) || isinf(before));
  }
}

/* One object heavier than any part's limit: a warning, best effort, done. */
static void refine_warns_and_stops_when_tolerance_is_infeasible(void **state)
{
  (void)state;
  /* Part 0: the 100-object and four 1s; part 1: five 1s.  Average 54.5, limit
   * 57.225 at 1.05: part 0 can never get there (100 > 57.225).  Best effort
   * moves all four 1s away: part 0 = 100, part 1 = 9. */
  double w[10] = {100, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  int cur[10] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, out[10];
  refine_options o;
  refine_stats st;
  opts(&o, 1.05);
  assert_int_equal(refine_run(10, 1, w, 2, NULL, cur, &o, out, &st), REFINE_WARN);
  assert_int_equal(st.infeasible, 1);
  assert_int_equal(st.worst_part, 0);
  assert_int_equal(out[0], 0);
  for (int i = 1; i < 10; i++) assert_int_equal(out[i], 1);
  assert_true(fabs(st.imbalance_after - 100.0 / 54.5) < 1e-12);
  assert_true(fabs(st.imbalance_before - 104.0 / 54.5) < 1e-12);
}

/* The same input gives the same output, run after run. */
static void refine_is_deterministic(void **state)
{
  (void)state;
  lbcase c;
  refine_options o;
  int *again = malloc(4000 * sizeof(int));
  lb_make(&c, 4000, 40, 100.0, 77);
  for (size_t i = 0; i < c.n; i++) /* many equal weights */
    c.w[i] = floor(c.w[i] / 10.0) + 1.0;
  opts(&o, 1.02);
  assert_true(refine_run(c.n, 1, c.w, c.p, NULL, c.cur, &o, c.out, NULL) >= 0);
  assert_true(refine_run(c.n, 1, c.w, c.p, NULL, c.cur, &o, again, NULL) >= 0);
  assert_memory_equal(c.out, again, c.n * sizeof(int));
  assert_true(refine_greedyrefine(c.n, 1, c.w, c.p, NULL, c.cur, &o, c.out, NULL) >= 0);
  assert_true(refine_greedyrefine(c.n, 1, c.w, c.p, NULL, c.cur, &o, again, NULL) >= 0);
  assert_memory_equal(c.out, again, c.n * sizeof(int));
  free(again);
  lb_free(&c);
}

/* A W x H grid graph in CSR, 4-neighbour. */
static void grid(int W, int H, size_t *start, size_t *adj)
{
  size_t e = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      start[y * W + x] = e;
      if (x > 0) adj[e++] = (size_t)(y * W + x - 1);
      if (x < W - 1) adj[e++] = (size_t)(y * W + x + 1);
      if (y > 0) adj[e++] = (size_t)((y - 1) * W + x);
      if (y < H - 1) adj[e++] = (size_t)((y + 1) * W + x);
    }
  start[W * H] = e;
}

/* Communication-aware refinement cuts no more edges than the plain one,
 * and the reported cuts are the real ones. */
static void refine_comm_aware_keeps_or_reduces_cut(void **state)
{
  (void)state;
  enum { W = 40, H = 40, N = W * H, P = 8 };
  size_t *start = malloc((N + 1) * sizeof(size_t)), *adj = malloc(4 * N * sizeof(size_t));
  double *w = malloc(N * sizeof(double));
  int *cur = malloc(N * sizeof(int)), *plain = malloc(N * sizeof(int)),
      *comm = malloc(N * sizeof(int));
  zp_rng rng;
  zp_rng_seed(&rng, 4);
  grid(W, H, start, adj);
  for (int i = 0; i < N; i++) {
    cur[i] = (i / W) / (H / P); /* horizontal strips */
    w[i] = 1.0 + zp_rng_uniform(&rng) + (cur[i] == 3 ? 0.6 : 0.0);
  }
  refine_graph g = {start, adj, NULL};
  refine_options o;
  refine_stats sp, sc;
  opts(&o, 1.03);
  o.graph = &g;
  assert_int_equal(refine_run(N, 1, w, P, NULL, cur, &o, plain, &sp), REFINE_OK);
  o.comm_aware = 1;
  assert_int_equal(refine_run(N, 1, w, P, NULL, cur, &o, comm, &sc), REFINE_OK);
  assert_int_equal(ct_check_assignment(N, 1, w, P, NULL, 1, comm), 0);
  double c0, cp, cc;
  assert_int_equal(refine_cut(N, &g, cur, &c0), REFINE_OK);
  assert_int_equal(refine_cut(N, &g, plain, &cp), REFINE_OK);
  assert_int_equal(refine_cut(N, &g, comm, &cc), REFINE_OK);
  assert_true(c0 == (P - 1) * W); /* strips: one boundary row per pair */
  assert_true(sc.have_cut && sc.cut_before == c0 && sc.cut_after == cc);
  assert_true(sp.cut_after == cp);
  assert_true(cc <= cp);
  assert_true(cc < cp); /* the case is built so that it matters */
  assert_true(ct_max_rel_load(N, w, P, NULL, comm) <= 1.03 * (1 + 1e-12));
  free(start);
  free(adj);
  free(w);
  free(cur);
  free(plain);
  free(comm);
}

/* Objects on a part whose target is zero are moved away. */
static void refine_empties_zero_size_parts(void **state)
{
  (void)state;
  double w[12] = {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6};
  int cur[12] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}, out[12];
  double frac[3] = {0.5, 0.0, 0.5};
  refine_options o;
  refine_stats st;
  opts(&o, 1.1);
  assert_int_equal(refine_run(12, 1, w, 3, frac, cur, &o, out, &st), REFINE_OK);
  assert_int_equal(ct_check_assignment(12, 1, w, 3, frac, 1, out), 0);
  for (int i = 0; i < 12; i++)
    if (cur[i] != 1) assert_int_equal(out[i], cur[i]); /* parts 0 and 2 were within limits */
}

/* GREEDYREFINE ends within 1.01 of GREEDY's max/avg and moves far less. */
static void greedyrefine_is_within_bound_and_moves_less_than_greedy(void **state)
{
  (void)state;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    lbcase c;
    refine_stats st;
    lb_make(&c, seed == 1 ? 800 : 5000, 50, 1000.0, seed);
    int *g = malloc(c.n * sizeof(int));
    assert_int_equal(greedy_assign(c.n, 1, c.w, c.p, NULL, g), GREEDY_OK);
    double lg = ct_max_rel_load(c.n, c.w, c.p, NULL, g);
    size_t mg = ct_moved(c.n, c.cur, g);
    assert_int_equal(refine_greedyrefine(c.n, 1, c.w, c.p, NULL, c.cur, NULL, c.out, &st),
                     REFINE_OK);
    assert_int_equal(ct_check_assignment(c.n, 1, c.w, c.p, NULL, 1, c.out), 0);
    double lgr = ct_max_rel_load(c.n, c.w, c.p, NULL, c.out);
    assert_true(lgr <= 1.01 * lg * (1 + 1e-9));
    assert_true(st.moved < mg);
    assert_true(st.moved <= 3 * c.n / 10);
    assert_true(st.pass != REFINE_PASS_REFINE);
    free(g);
    lb_free(&c);
  }
}

/* Below GREEDYREFINE_THRESHOLD only the refinement pass runs. */
static void greedyrefine_refines_below_threshold(void **state)
{
  (void)state;
  lbcase c;
  refine_options o;
  refine_stats st;
  lb_make(&c, 3000, 30, 10.0, 9);
  double before = ct_max_rel_load(c.n, c.w, c.p, NULL, c.cur);
  opts(&o, 1.05);
  o.gr_threshold = before + 0.01;
  assert_int_equal(refine_greedyrefine(c.n, 1, c.w, c.p, NULL, c.cur, &o, c.out, &st), REFINE_OK);
  assert_int_equal(st.pass, REFINE_PASS_REFINE);
  assert_true(ct_max_rel_load(c.n, c.w, c.p, NULL, c.out) <= 1.05 * (1 + 1e-12));
  o.gr_threshold = before - 0.01;
  assert_int_equal(refine_greedyrefine(c.n, 1, c.w, c.p, NULL, c.cur, &o, c.out, &st), REFINE_OK);
  assert_true(st.pass != REFINE_PASS_REFINE);
  lb_free(&c);
}

/* Multi-weight input: REFINE keeps the combined load within tolerance. */
static void refine_balances_combined_load_of_two_weights(void **state)
{
  (void)state;
  enum { N = 2000, P = 10 };
  zp_rng rng;
  zp_rng_seed(&rng, 12);
  double *w = malloc(2 * N * sizeof(double)), *s = malloc(N * sizeof(double));
  int *cur = malloc(N * sizeof(int)), *out = malloc(N * sizeof(int));
  double tot[2] = {0, 0};
  for (int i = 0; i < N; i++) {
    cur[i] = i * P / N;
    w[2 * i] = 1.0 + zp_rng_uniform(&rng) * (cur[i] == 0 ? 2.0 : 1.0);
    w[2 * i + 1] = 1.0 + zp_rng_uniform(&rng);
    tot[0] += w[2 * i];
    tot[1] += w[2 * i + 1];
  }
  for (int i = 0; i < N; i++) s[i] = w[2 * i] / tot[0] + w[2 * i + 1] / tot[1];
  refine_options o;
  refine_stats st;
  opts(&o, 1.03);
  assert_int_equal(refine_run(N, 2, w, P, NULL, cur, &o, out, &st), REFINE_OK);
  assert_int_equal(ct_check_assignment(N, 2, w, P, NULL, 1, out), 0);
  assert_true(st.moved > 0);
  assert_true(ct_max_rel_load(N, s, P, NULL, out) <= 1.03 * (1 + 1e-9));
  free(w);
  free(s);
  free(cur);
  free(out);
}

/* Invalid arguments are refused with REFINE_EINVAL. */
static void refine_rejects_bad_arguments(void **state)
{
  (void)state;
  double w[3] = {1, 2, 3}, nanw[3] = {1, NAN, 3};
  int cur[3] = {0, 1, 0}, badcur[3] = {0, 5, 0}, out[3];
  size_t start[4] = {0, 1, 1, 9}, adj[1] = {7};
  refine_graph badg = {start, adj, NULL};
  refine_options o;
  opts(&o, 0.9);
  assert_int_equal(refine_run(3, 1, w, 2, NULL, cur, &o, out, NULL), REFINE_EINVAL);
  opts(&o, NAN);
  assert_int_equal(refine_run(3, 1, w, 2, NULL, cur, &o, out, NULL), REFINE_EINVAL);
  opts(&o, 1.05);
  assert_int_equal(refine_run(3, 1, nanw, 2, NULL, cur, &o, out, NULL), REFINE_EINVAL);
  assert_int_equal(refine_run(3, 1, w, 2, NULL, badcur, &o, out, NULL), REFINE_EINVAL);
  assert_int_equal(refine_run(3, 1, w, 2, NULL, cur, &o, cur, NULL), REFINE_EINVAL);
  assert_int_equal(refine_run(3, 0, w, 2, NULL, cur, &o, out, NULL), REFINE_EINVAL);
  assert_int_equal(refine_run(3, 1, w, 0, NULL, cur, &o, out, NULL), REFINE_EINVAL);
  o.comm_aware = 1; /* without a graph */
  assert_int_equal(refine_run(3, 1, w, 2, NULL, cur, &o, out, NULL), REFINE_EINVAL);
  o.comm_aware = 0;
  o.graph = &badg; /* neighbour index out of range */
  assert_int_equal(refine_run(3, 1, w, 2, NULL, cur, &o, out, NULL), REFINE_EINVAL);
  o.graph = NULL;
  o.gr_tolerance = 0.5;
  assert_int_equal(refine_greedyrefine(3, 1, w, 2, NULL, cur, &o, out, NULL), REFINE_EINVAL);
}

/* GREEDYREFINE and REFINE give the same answer on the objects permuted
 * heaviest first (equal weights keeping their order), as the layer's
 * sorted path hands them over: object k of the permuted input gets the
 * part that object order[k] gets.  Small integer weights make ties, and
 * both the thorough and the refining path run. */
static void greedyrefine_and_refine_answer_alike_in_weight_order(void **state)
{
  (void)state;
  enum { MAXN = 3000 };
  zp_rng rng;
  zp_rng_seed(&rng, 23);
  double *w = malloc(MAXN * sizeof(double)), *ws = malloc(MAXN * sizeof(double));
  int *cur = malloc(MAXN * sizeof(int)), *cs = malloc(MAXN * sizeof(int));
  int *out = malloc(MAXN * sizeof(int)), *out2 = malloc(MAXN * sizeof(int));
  size_t *o = malloc(MAXN * sizeof(size_t));
  for (int trial = 0; trial < 120; trial++) {
    size_t n = 50 + zp_rng_below(&rng, MAXN - 50);
    int p = 2 + (int)zp_rng_below(&rng, 12);
    refine_options opt;
    refine_default_options(&opt);
    if (trial % 3 == 0) opt.gr_threshold = 1.5; /* below it: REFINE's pass */
    for (size_t i = 0; i < n; i++) {
      double u = zp_rng_uniform(&rng);
      w[i] = trial % 2 ? (double)(1 + zp_rng_below(&rng, 8)) : 1.0 + 99.0 * u * u * u;
      /* Mostly blocks, the first parts heavier. */
      cur[i] = zp_rng_below(&rng, 10) == 0 ? (int)zp_rng_below(&rng, (uint64_t)p)
                                           : (int)(i * (size_t)p / n);
    }
    assert_int_equal(greedy_order(n, 1, w, o), GREEDY_OK);
    for (size_t k = 0; k < n; k++) {
      ws[k] = w[o[k]];
      cs[k] = cur[o[k]];
    }
    refine_stats st1, st2;
    double m1, m2;
    assert_true(refine_greedyrefine(n, 1, w, p, NULL, cur, &opt, out, &st1) >= 0);
    assert_true(refine_greedyrefine(n, 1, ws, p, NULL, cs, &opt, out2, &st2) >= 0);
    for (size_t k = 0; k < n; k++) assert_int_equal(out2[k], out[o[k]]);
    /* The figures the passes compare are the same to the bit in either
     * order (floating-point sums in index order are not). */
    assert_true(st1.imbalance_before == st2.imbalance_before);
    assert_true(st1.imbalance_after == st2.imbalance_after);
    assert_int_equal(greedy_imbalance(n, 1, w, p, NULL, cur, &m1), GREEDY_OK);
    assert_int_equal(greedy_imbalance(n, 1, ws, p, NULL, cs, &m2), GREEDY_OK);
    assert_true(m1 == m2);
    opt.tolerance = 1.02;
    assert_true(refine_run(n, 1, w, p, NULL, cur, &opt, out, &st1) >= 0);
    assert_true(refine_run(n, 1, ws, p, NULL, cs, &opt, out2, &st2) >= 0);
    for (size_t k = 0; k < n; k++) assert_int_equal(out2[k], out[o[k]]);
    assert_true(st1.imbalance_before == st2.imbalance_before);
    assert_true(st1.imbalance_after == st2.imbalance_after);
  }
  free(w);
  free(ws);
  free(cur);
  free(cs);
  free(out);
  free(out2);
  free(o);
}

/* GREEDYREFINE's thorough pass, composed here from the public pieces in
 * the order refine_core.h promises: GREEDY; keep lightest first, repaired
 * by a REFINE pass at the bound when it overshoots; keep heaviest first;
 * GREEDY; the current assignment when nothing beats it.  The core's answer
 * and its reported pass must be this composition's, and each candidate
 * (the repaired one too) must win on some trials, so that a change in which
 * buffer holds which candidate cannot go unseen.  (The current assignment
 * itself can hardly win: when it fits under the bound, keeping lightest
 * first keeps all of it.) */
static int reference_greedyrefine(size_t n, const double *w, int p, const int *cur,
                                  const refine_options *o, int *out, int *pass, int *repaired)
{
  int cand[400], fix[400];
  double before, gmax, m, bound, eps = 1e-12;
  refine_options ro = *o;
  refine_stats rs;
  if (greedy_imbalance(n, 1, w, p, NULL, cur, &before) || greedy_assign(n, 1, w, p, NULL, cand) ||
      greedy_imbalance(n, 1, w, p, NULL, cand, &gmax))
    return -1;
  bound = gmax * o->gr_tolerance;
  if (!(bound >= 1.0)) bound = 1.0;
  ro.tolerance = bound;
  for (int t = 0; t < 2; t++) {
    greedy_keep_mode mode = t == 0 ? GREEDY_KEEP_LIGHT_FIRST : GREEDY_KEEP_HEAVY_FIRST;
    if (greedy_assign_keep(n, 1, w, p, NULL, cur, bound, mode, out, NULL) ||
        greedy_imbalance(n, 1, w, p, NULL, out, &m))
      return -1;
    if (t == 0 && m > bound * (1.0 + eps)) {
      double mf;
      if (refine_run(n, 1, w, p, NULL, out, &ro, fix, &rs) < 0 ||
          greedy_imbalance(n, 1, w, p, NULL, fix, &mf))
        return -1;
      if (mf <= bound * (1.0 + eps)) {
        memcpy(out, fix, n * sizeof *out);
        *repaired = 1;
      }
      m = mf;
    }
    if (m <= bound * (1.0 + eps)) {
      *pass = t == 0 ? REFINE_PASS_KEEP_LIGHT : REFINE_PASS_KEEP_HEAVY;
      if (m > before) {
        memcpy(out, cur, n * sizeof *out);
        *pass = REFINE_PASS_NONE;
      }
      return 0;
    }
  }
  memcpy(out, cand, n * sizeof *out);
  *pass = REFINE_PASS_GREEDY;
  if (gmax > before) {
    memcpy(out, cur, n * sizeof *out);
    *pass = REFINE_PASS_NONE;
  }
  return 0;
}

static void greedyrefine_picks_its_candidates_in_the_promised_order(void **state)
{
  (void)state;
  int seen[REFINE_PASS_GREEDY + 1] = {0}, repairs = 0;
  zp_rng rng;
  zp_rng_seed(&rng, 77);
  for (int trial = 0; trial < 3000; trial++) {
    size_t n = 4 + zp_rng_below(&rng, 396);
    int p = 2 + (int)zp_rng_below(&rng, 9), cur[400], out[400], ref[400], pass = -1, fixed = 0;
    double w[400];
    refine_options o;
    refine_stats st;
    ct_heavy_tailed(&rng, n, 0.0, trial % 3 == 0 ? 1000.0 : 20.0, w);
    /* Mostly one part heavy (GREEDY must move much), sometimes a random
     * spread (keeping pays), sometimes already balanced (nothing beats it). */
    for (size_t i = 0; i < n; i++)
      cur[i] = trial % 4 == 0 ? (int)(i % (size_t)p)
                              : (int)zp_rng_below(&rng, trial % 2 ? (uint64_t)p : 2);
    opts(&o, 1.05);
    o.gr_threshold = 1.0;
    o.gr_tolerance = 1.0 + 0.05 * (double)zp_rng_below(&rng, 4);
    assert_true(refine_greedyrefine(n, 1, w, p, NULL, cur, &o, out, &st) >= 0);
    assert_int_equal(reference_greedyrefine(n, w, p, cur, &o, ref, &pass, &fixed), 0);
    if (st.pass == REFINE_PASS_REFINE) continue; /* balanced already: REFINE's own path */
    assert_int_equal(st.pass, pass);
    assert_memory_equal(out, ref, n * sizeof *out);
    seen[pass]++;
    repairs += fixed && pass == REFINE_PASS_KEEP_LIGHT;
  }
  assert_true(seen[REFINE_PASS_KEEP_LIGHT] > 0);
  assert_true(seen[REFINE_PASS_KEEP_HEAVY] > 0);
  assert_true(seen[REFINE_PASS_GREEDY] > 0);
  assert_true(repairs > 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(refine_makes_no_move_when_balanced),
      cmocka_unit_test(refine_with_scratch_gives_the_same_answer),
      cmocka_unit_test(refine_reaches_tolerance_when_feasible),
      cmocka_unit_test(refine_is_never_worse_than_input),
      cmocka_unit_test(refine_warns_and_stops_when_tolerance_is_infeasible),
      cmocka_unit_test(refine_is_deterministic),
      cmocka_unit_test(refine_comm_aware_keeps_or_reduces_cut),
      cmocka_unit_test(refine_empties_zero_size_parts),
      cmocka_unit_test(greedyrefine_is_within_bound_and_moves_less_than_greedy),
      cmocka_unit_test(greedyrefine_refines_below_threshold),
      cmocka_unit_test(refine_balances_combined_load_of_two_weights),
      cmocka_unit_test(refine_rejects_bad_arguments),
      cmocka_unit_test(greedyrefine_and_refine_answer_alike_in_weight_order),
      cmocka_unit_test(greedyrefine_picks_its_candidates_in_the_promised_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
