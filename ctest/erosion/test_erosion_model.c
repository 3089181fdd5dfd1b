/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the erosion physics (bench/erosion/erosion_model.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "erosion_model.h"

static erosion_config cfg_of(int P, int s, int N, double ps, double pw, uint64_t seed)
{
  erosion_config c;
  memset(&c, 0, sizeof c);
  c.P = P;
  c.s = s;
  c.num_strong = N;
  c.p_strong = ps;
  c.p_weak = pw;
  c.seed = seed;
  c.sweeps = 2;
  c.refined_units = EROSION_UNITS_REFINED;
  c.erosion = EROSION_ISOTROPIC;
  return c;
}

/* The whole domain, column after column, for serial steps in the tests. */
typedef struct domain {
  erosion_config c;      /* the problem */
  long X;                /* columns */
  unsigned char *T, *T2; /* types */
  double *U, *U2;        /* values */
  unsigned char *strong; /* strong flags */
} domain;

static void dom_init(domain *d, erosion_config c)
{
  long x;
  size_t s = (size_t)c.s;
  d->c = c;
  d->X = erosion_width(&c);
  d->T = malloc((size_t)d->X * s);
  d->T2 = malloc((size_t)d->X * s);
  d->U = malloc((size_t)d->X * s * EROSION_SLOTS * sizeof(double));
  d->U2 = malloc((size_t)d->X * s * EROSION_SLOTS * sizeof(double));
  d->strong = malloc((size_t)c.P);
  assert_non_null(d->T);
  assert_non_null(d->T2);
  assert_non_null(d->U);
  assert_non_null(d->U2);
  assert_non_null(d->strong);
  assert_int_equal(erosion_strong_rocks(&c, d->strong), EROSION_OK);
  for (x = 0; x < d->X; x++) erosion_column_init(&c, x, d->T + x * s, d->U + x * s * EROSION_SLOTS);
}

static void dom_free(domain *d)
{
  free(d->T);
  free(d->T2);
  free(d->U);
  free(d->U2);
  free(d->strong);
}

/* One step over all columns, in increasing (dir > 0) or decreasing order.
 * Returns the units done and adds the eroded cells to *eroded. */
static long dom_step(domain *d, long step, int dir, long *eroded)
{
  size_t s = (size_t)d->c.s, w = s * EROSION_SLOTS;
  long k, units = 0;
  for (k = 0; k < d->X; k++) {
    long x = dir > 0 ? k : d->X - 1 - k, e = 0;
    units += erosion_column_step(&d->c, d->strong, step, x, x > 0 ? d->T + (x - 1) * s : NULL,
                                 x > 0 ? d->U + (x - 1) * w : NULL, d->T + x * s, d->U + x * w,
                                 x + 1 < d->X ? d->T + (x + 1) * s : NULL,
                                 x + 1 < d->X ? d->U + (x + 1) * w : NULL, d->T2 + x * s,
                                 d->U2 + x * w, &e);
    *eroded += e;
  }
  {
    unsigned char *t = d->T;
    double *u = d->U;
    d->T = d->T2;
    d->T2 = t;
    d->U = d->U2;
    d->U2 = u;
  }
  return units;
}

static long dom_units(const domain *d)
{
  long x, u = 0;
  for (x = 0; x < d->X; x++) u += erosion_column_units(&d->c, d->c.s, d->T + x * d->c.s);
  return u;
}

/* Every stripe holds the same disc, centred, with about pi (s/4)^2 cells. */
static void test_every_stripe_holds_one_centred_disc(void **state)
{
  erosion_config c = cfg_of(3, 40, 1, 0.4, 0.02, 1);
  long x, y, count[3] = {0, 0, 0};
  (void)state;
  assert_int_equal(erosion_config_check(&c), EROSION_OK);
  for (x = 0; x < erosion_width(&c); x++)
    for (y = 0; y < c.s; y++) {
      int r = erosion_rock_of_cell(&c, x, y);
      if (r >= 0) {
        assert_int_equal(r, x / c.s);
        count[r]++;
      }
    }
  /* pi 10^2 = 314.2; a lattice disc differs by a perimeter's worth. */
  assert_true(fabs((double)count[0] - 314.16) < 2.0 * 3.14159265 * 10.0);
  assert_int_equal(count[0], count[1]);
  assert_int_equal(count[1], count[2]);
  /* The corners and the stripe boundary are fluid. */
  assert_int_equal(erosion_rock_of_cell(&c, 0, 0), -1);
  assert_int_equal(erosion_rock_of_cell(&c, 39, 20), -1);
  assert_int_equal(erosion_rock_of_cell(&c, 20, 20), 0);
  assert_int_equal(erosion_rock_of_cell(&c, 60, 20), 1);
}

/* The seed picks exactly N distinct strong rocks, the same ones every time. */
static void test_strong_rocks_are_n_distinct_and_seeded(void **state)
{
  unsigned char a[64], b[64], d[64];
  int k, n = 0, differ = 0;
  erosion_config c = cfg_of(64, 8, 3, 0.4, 0.02, 7), c2 = c;
  (void)state;
  assert_int_equal(erosion_strong_rocks(&c, a), EROSION_OK);
  assert_int_equal(erosion_strong_rocks(&c, b), EROSION_OK);
  c2.seed = 8;
  assert_int_equal(erosion_strong_rocks(&c2, d), EROSION_OK);
  for (k = 0; k < 64; k++) {
    n += a[k];
    assert_int_equal(a[k], b[k]);
    differ += a[k] != d[k];
  }
  assert_int_equal(n, 3);
  assert_true(differ > 0);
  c.num_strong = 65;
  assert_int_equal(erosion_strong_rocks(&c, a), EROSION_ERR_ARG);
}

/* With probability 1 exactly the rock cells that touch fluid erode in one
 * step; interior rock cells stay; the work grows by 4 units per eroded cell. */
static void test_certain_erosion_peels_exactly_the_exposed_layer(void **state)
{
  domain d;
  erosion_config c = cfg_of(2, 24, 2, 1.0, 1.0, 3);
  long x, y, exposed = 0, eroded = 0, before, done;
  size_t s = 24;
  unsigned char *t0;
  (void)state;
  dom_init(&d, c);
  t0 = malloc((size_t)d.X * s);
  assert_non_null(t0);
  memcpy(t0, d.T, (size_t)d.X * s);
  for (x = 0; x < d.X; x++)
    for (y = 0; y < c.s; y++) {
      int fl = 0;
      if (t0[x * s + y] != EROSION_ROCK) continue;
      fl |= x > 0 && t0[(x - 1) * s + y] != EROSION_ROCK;
      fl |= x + 1 < d.X && t0[(x + 1) * s + y] != EROSION_ROCK;
      fl |= y > 0 && t0[x * s + y - 1] != EROSION_ROCK;
      fl |= y + 1 < c.s && t0[x * s + y + 1] != EROSION_ROCK;
      exposed += fl;
    }
  before = dom_units(&d);
  done = dom_step(&d, 0, 1, &eroded);
  assert_int_equal(done, before);
  assert_true(exposed > 0);
  assert_int_equal(eroded, exposed);
  assert_int_equal(dom_units(&d), before + EROSION_UNITS_REFINED * exposed);
  for (x = 0; x < d.X; x++)
    for (y = 0; y < c.s; y++)
      if (t0[x * s + y] == EROSION_ROCK && d.T[x * s + y] == EROSION_ROCK) {
        /* A survivor had no fluid neighbour. */
        assert_true(x == 0 || t0[(x - 1) * s + y] == EROSION_ROCK);
        assert_true(x + 1 == d.X || t0[(x + 1) * s + y] == EROSION_ROCK);
        assert_true(t0[x * s + y - 1] == EROSION_ROCK);
        assert_true(t0[x * s + y + 1] == EROSION_ROCK);
      }
  free(t0);
  dom_free(&d);
}

/* The one-sided rule with certain erosion: in one step exactly the rock
 * cells whose cell below holds fluid erode, whatever their other
 * neighbours, and with refined_units = 8 each adds 8 units; the relaxation
 * of a refined cell then costs twice the sweeps of a 4-unit one. */
static void test_from_below_erodes_only_from_below(void **state)
{
  domain d;
  erosion_config c = cfg_of(2, 24, 2, 1.0, 1.0, 3);
  long x, y, exposed = 0, side_only = 0, eroded = 0, before;
  size_t s = 24;
  unsigned char *t0;
  (void)state;
  c.erosion = EROSION_FROM_BELOW;
  c.refined_units = 8;
  dom_init(&d, c);
  t0 = malloc((size_t)d.X * s);
  assert_non_null(t0);
  memcpy(t0, d.T, (size_t)d.X * s);
  for (x = 0; x < d.X; x++)
    for (y = 0; y < c.s; y++) {
      int below, side;
      if (t0[x * s + y] != EROSION_ROCK) continue;
      below = y > 0 && t0[x * s + y - 1] != EROSION_ROCK;
      side = (x > 0 && t0[(x - 1) * s + y] != EROSION_ROCK) ||
             (x + 1 < d.X && t0[(x + 1) * s + y] != EROSION_ROCK) ||
             (y + 1 < c.s && t0[x * s + y + 1] != EROSION_ROCK);
      exposed += below;
      side_only += side && !below;
    }
  before = dom_units(&d);
  dom_step(&d, 0, 1, &eroded);
  assert_true(exposed > 0);
  assert_true(side_only > 0); /* the rule matters for this disc */
  assert_int_equal(eroded, exposed);
  assert_int_equal(dom_units(&d), before + 8 * exposed);
  for (x = 0; x < d.X; x++)
    for (y = 1; y < c.s; y++)
      if (t0[x * s + y] == EROSION_ROCK)
        assert_int_equal(d.T[x * s + y] == EROSION_REFINED, t0[x * s + y - 1] != EROSION_ROCK);
  free(t0);
  dom_free(&d);
}

/* The reference layout: the strong rocks are the last N whatever the
 * seed, the discs have radius s/3 (about pi s^2 / 9 cells, more than the
 * paper's s/4), and only the last disc is moved towards the domain's end. */
static void test_reference_rocks_are_the_last_and_larger(void **state)
{
  erosion_config c = cfg_of(6, 60, 2, 0.4, 0.0, 99);
  unsigned char flags[6];
  long x, y, cells[6] = {0}, xsum[6] = {0};
  int k;
  (void)state;
  c.geometry = EROSION_GEOM_REFERENCE;
  assert_int_equal(erosion_config_check(&c), EROSION_OK);
  assert_int_equal(erosion_strong_rocks(&c, flags), EROSION_OK);
  for (k = 0; k < 6; k++) assert_int_equal(flags[k], k >= 4);
  for (x = 0; x < erosion_width(&c); x++)
    for (y = 0; y < c.s; y++) {
      int r = erosion_rock_of_cell(&c, x, y);
      if (r < 0) continue;
      assert_int_equal(r, x / c.s);
      cells[r]++;
      xsum[r] += x - (long)r * c.s;
    }
  for (k = 0; k < 5; k++) {
    double want = 3.14159265 * 20.0 * 20.0;
    assert_true(fabs((double)cells[k] - want) < 0.05 * want);
    assert_int_equal(cells[k], cells[0]);
    assert_int_equal(xsum[k], xsum[0]);
  }
  /* The moved disc still fits its stripe (its edge reaches the domain's
   * end, as in the reference at s = 2000): the same cells, r/2 = 10
   * columns further right. */
  assert_int_equal(cells[5], cells[0]);
  assert_int_equal(xsum[5], xsum[0] + 10 * cells[0]);
}

/* EROSION_DOWNSTREAM with p = 1: a rock cell is eroded exactly when the
 * previous column holds fluid beside it or diagonally; the diagonal draws
 * have probability 1/sqrt(2), so with p = 1 the straight neighbour alone
 * decides for certain and a cell exposed only diagonally erodes in about
 * 0.71 (one) or 0.91 (two diagonals) of the cases. */
static void test_downstream_erodes_only_from_the_previous_column(void **state)
{
  domain d;
  erosion_config c = cfg_of(3, 40, 3, 1.0, 1.0, 7);
  long x, y, straight = 0, eroded = 0, diag_only = 0, diag_eroded = 0, other = 0;
  size_t s = 40;
  unsigned char *t0;
  (void)state;
  c.erosion = EROSION_DOWNSTREAM;
  dom_init(&d, c);
  t0 = malloc((size_t)d.X * s);
  assert_non_null(t0);
  memcpy(t0, d.T, (size_t)d.X * s);
  dom_step(&d, 0, 1, &eroded);
  for (x = 0; x < d.X; x++)
    for (y = 0; y < c.s; y++) {
      int beside, diag, now;
      if (t0[x * s + y] != EROSION_ROCK) continue;
      beside = x > 0 && t0[(x - 1) * s + y] != EROSION_ROCK;
      diag = x > 0 && ((y > 0 && t0[(x - 1) * s + y - 1] != EROSION_ROCK) ||
                       (y + 1 < c.s && t0[(x - 1) * s + y + 1] != EROSION_ROCK));
      now = d.T[x * s + y] == EROSION_REFINED;
      if (beside) {
        straight++;
        assert_true(now);
      } else if (diag) {
        diag_only++;
        diag_eroded += now;
      } else {
        other += now;
      }
    }
  assert_true(straight > 0);
  assert_int_equal(other, 0); /* nothing from the right, above or below */
  assert_true(diag_only > 0);
  assert_true(diag_eroded > 0 && diag_eroded < diag_only + 1);
  assert_int_equal(eroded, straight + diag_eroded);
  free(t0);
  dom_free(&d);
}

/* With probability 0 nothing erodes, and the work stays constant. */
static void test_zero_probability_never_erodes(void **state)
{
  domain d;
  long k, eroded = 0, before;
  (void)state;
  dom_init(&d, cfg_of(2, 16, 1, 0.0, 0.0, 5));
  before = dom_units(&d);
  for (k = 0; k < 30; k++) dom_step(&d, k, 1, &eroded);
  assert_int_equal(eroded, 0);
  assert_int_equal(dom_units(&d), before);
  dom_free(&d);
}

/* A rock cell with one fluid neighbour erodes at its rock's rate: the
 * observed frequency of 0.4 over 20000 draws is within 4.5 sigma. */
static void test_erosion_frequency_matches_probability(void **state)
{
  long k, hits = 0, n = 20000;
  double f, sigma = sqrt(0.4 * 0.6 / 20000.0);
  (void)state;
  for (k = 0; k < n; k++) hits += erosion_uniform(11, 12345, (uint64_t)k, 2) < 0.4;
  f = (double)hits / (double)n;
  assert_true(fabs(f - 0.4) < 4.5 * sigma);
}

/* Only rocks with a positive probability lose cells: with the weak rocks at
 * 0, every eroded cell belongs to a strong rock. */
static void test_only_strong_rocks_erode_when_weak_is_zero(void **state)
{
  domain d;
  long k, x, y, eroded = 0;
  size_t s = 16;
  (void)state;
  dom_init(&d, cfg_of(6, 16, 2, 0.4, 0.0, 9));
  for (k = 0; k < 20; k++) dom_step(&d, k, 1, &eroded);
  assert_true(eroded > 0);
  for (x = 0; x < d.X; x++)
    for (y = 0; y < 16; y++)
      if (d.T[x * s + y] == EROSION_REFINED) {
        int r = erosion_rock_of_cell(&d.c, x, y);
        assert_true(r >= 0);
        assert_int_equal(d.strong[r], 1);
      }
  dom_free(&d);
}

/* The result does not depend on the order in which columns are computed
 * (which is what makes it independent of the partition). */
static void test_column_order_does_not_change_the_result(void **state)
{
  domain a, b;
  long k, ea = 0, eb = 0;
  size_t n;
  (void)state;
  dom_init(&a, cfg_of(4, 12, 1, 0.4, 0.02, 21));
  dom_init(&b, cfg_of(4, 12, 1, 0.4, 0.02, 21));
  for (k = 0; k < 15; k++) {
    dom_step(&a, k, 1, &ea);
    dom_step(&b, k, -1, &eb);
  }
  n = (size_t)a.X * 12;
  assert_int_equal(ea, eb);
  assert_memory_equal(a.T, b.T, n);
  assert_memory_equal(a.U, b.U, n * EROSION_SLOTS * sizeof(double));
  dom_free(&a);
  dom_free(&b);
}

/* Cutting every column into segments (the objects of the 2-D partitions)
 * and stepping them one by one, with only the ghost cells above and below
 * from the neighbouring segments, gives the same cells, values, units and
 * fingerprint as stepping whole columns; uneven cuts included. */
static void test_segments_step_exactly_like_columns(void **state)
{
  static const int cuts[][4] = {{0, 5, 11, 12}, {0, 1, 2, 12}, {0, 6, 12, 12}};
  size_t ci;
  (void)state;
  for (ci = 0; ci < sizeof cuts / sizeof cuts[0]; ci++) {
    const int *cut = cuts[ci];
    domain a, b;
    long k, x, ea = 0, eb = 0, ua = 0, ub = 0;
    size_t s = 12, w = s * EROSION_SLOTS;
    uint64_t ha = 0, hb = 0;
    dom_init(&a, cfg_of(3, 12, 1, 0.4, 0.05, 33));
    dom_init(&b, cfg_of(3, 12, 1, 0.4, 0.05, 33));
    /* The segment initialisation agrees with the column one. */
    for (x = 0; x < b.X; x++)
      for (int g = 0; g < 3; g++) {
        int y0 = cut[g], h = cut[g + 1] - cut[g];
        if (h == 0) continue;
        erosion_segment_init(&b.c, x, y0, h, b.T + x * s + y0,
                             b.U + x * w + (size_t)y0 * EROSION_SLOTS);
      }
    assert_memory_equal(a.T, b.T, (size_t)a.X * s);
    for (k = 0; k < 12; k++) {
      ua += dom_step(&a, k, 1, &ea);
      for (x = 0; x < b.X; x++) {
        for (int g = 0; g < 3; g++) {
          int y0 = cut[g], h = cut[g + 1] - cut[g];
          long e = 0;
          const unsigned char *T = b.T + x * s;
          const double *U = b.U + x * w;
          if (h == 0) continue;
          ub += erosion_segment_step(
              &b.c, b.strong, k, x, y0, h, x > 0 ? T - s + y0 : NULL,
              x > 0 ? U - w + (size_t)y0 * EROSION_SLOTS : NULL, T + y0,
              U + (size_t)y0 * EROSION_SLOTS, x + 1 < b.X ? T + s + y0 : NULL,
              x + 1 < b.X ? U + w + (size_t)y0 * EROSION_SLOTS : NULL, y0 > 0 ? T + y0 - 1 : NULL,
              y0 > 0 ? U + (size_t)(y0 - 1) * EROSION_SLOTS : NULL, y0 + h < 12 ? T + y0 + h : NULL,
              y0 + h < 12 ? U + (size_t)(y0 + h) * EROSION_SLOTS : NULL, b.T2 + x * s + y0,
              b.U2 + x * w + (size_t)y0 * EROSION_SLOTS, &e);
          eb += e;
        }
      }
      {
        unsigned char *t = b.T;
        double *u = b.U;
        b.T = b.T2;
        b.T2 = t;
        b.U = b.U2;
        b.U2 = u;
      }
    }
    assert_true(ea > 0);
    assert_int_equal(ea, eb);
    assert_int_equal(ua, ub);
    assert_memory_equal(a.T, b.T, (size_t)a.X * s);
    assert_memory_equal(a.U, b.U, (size_t)a.X * w * sizeof(double));
    for (x = 0; x < a.X; x++) {
      ha += erosion_column_hash(12, x, a.T + x * s);
      for (int g = 0; g < 3; g++)
        hb += erosion_segment_hash(12, x, cut[g], cut[g + 1] - cut[g], b.T + x * s + cut[g]);
    }
    assert_true(ha == hb);
    dom_free(&a);
    dom_free(&b);
  }
}

/* Out-of-range problems are refused. */
static void test_bad_configurations_are_refused(void **state)
{
  erosion_config c = cfg_of(4, 16, 1, 0.4, 0.02, 1);
  (void)state;
  assert_int_equal(erosion_config_check(&c), EROSION_OK);
  c.s = 3;
  assert_int_equal(erosion_config_check(&c), EROSION_ERR_ARG);
  c = cfg_of(4, 16, 5, 0.4, 0.02, 1);
  assert_int_equal(erosion_config_check(&c), EROSION_ERR_ARG);
  c = cfg_of(4, 16, 1, 1.5, 0.02, 1);
  assert_int_equal(erosion_config_check(&c), EROSION_ERR_ARG);
  c = cfg_of(4, 16, 1, 0.4, NAN, 1);
  assert_int_equal(erosion_config_check(&c), EROSION_ERR_ARG);
  c = cfg_of(4, 16, 1, 0.4, 0.02, 1);
  c.refined_units = 6;
  assert_int_equal(erosion_config_check(&c), EROSION_ERR_ARG);
  c.refined_units = 68;
  assert_int_equal(erosion_config_check(&c), EROSION_ERR_ARG);
  c.refined_units = 8;
  c.erosion = 3;
  assert_int_equal(erosion_config_check(&c), EROSION_ERR_ARG);
  c.erosion = EROSION_DOWNSTREAM;
  assert_int_equal(erosion_config_check(&c), EROSION_OK);
  c.geometry = 2;
  assert_int_equal(erosion_config_check(&c), EROSION_ERR_ARG);
  assert_int_equal(erosion_config_check(NULL), EROSION_ERR_ARG);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_stripe_holds_one_centred_disc),
      cmocka_unit_test(test_strong_rocks_are_n_distinct_and_seeded),
      cmocka_unit_test(test_certain_erosion_peels_exactly_the_exposed_layer),
      cmocka_unit_test(test_from_below_erodes_only_from_below),
      cmocka_unit_test(test_zero_probability_never_erodes),
      cmocka_unit_test(test_erosion_frequency_matches_probability),
      cmocka_unit_test(test_only_strong_rocks_erode_when_weak_is_zero),
      cmocka_unit_test(test_column_order_does_not_change_the_result),
      cmocka_unit_test(test_segments_step_exactly_like_columns),
      cmocka_unit_test(test_bad_configurations_are_refused),
      cmocka_unit_test(test_reference_rocks_are_the_last_and_larger),
      cmocka_unit_test(test_downstream_erodes_only_from_the_previous_column),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
