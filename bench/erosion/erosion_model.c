/* SPDX-License-Identifier: BSD-3-Clause */
#include "erosion_model.h"

#include <math.h>

#include "zp_rng.h"

/* The value a wall (rock cell) imposes on its fluid neighbours, and the
 * value flowing in through the left boundary of the domain. */
#define WALL_VALUE   0.0
#define INFLOW_VALUE 1.0
/* 1 / sqrt(2): the weight of a diagonal neighbour in EROSION_DOWNSTREAM. */
#define DIAGONAL_WEIGHT 0.70710678118654752440

int erosion_config_check(const erosion_config *cfg)
{
  if (!cfg) return EROSION_ERR_ARG;
  if (cfg->P < 1 || cfg->P > EROSION_MAX_ROCKS) return EROSION_ERR_ARG;
  /* Below 4 cells the discs of radius s/4 hold no cell centre. */
  if (cfg->s < 4 || cfg->s > (1 << 16)) return EROSION_ERR_ARG;
  if (cfg->num_strong < 0 || cfg->num_strong > cfg->P) return EROSION_ERR_ARG;
  if (!(cfg->p_strong >= 0.0 && cfg->p_strong <= 1.0)) return EROSION_ERR_ARG;
  if (!(cfg->p_weak >= 0.0 && cfg->p_weak <= 1.0)) return EROSION_ERR_ARG;
  if (cfg->sweeps < 1) return EROSION_ERR_ARG;
  if (cfg->refined_units < 4 || cfg->refined_units > 64 || cfg->refined_units % 4 != 0)
    return EROSION_ERR_ARG;
  if (cfg->erosion != EROSION_ISOTROPIC && cfg->erosion != EROSION_FROM_BELOW &&
      cfg->erosion != EROSION_DOWNSTREAM)
    return EROSION_ERR_ARG;
  if (cfg->geometry != EROSION_GEOM_PAPER && cfg->geometry != EROSION_GEOM_REFERENCE)
    return EROSION_ERR_ARG;
  /* The sweeps of a refined sub-cell must not overflow an int. */
  if (cfg->sweeps > (1 << 20)) return EROSION_ERR_ARG;
  return EROSION_OK;
}

long erosion_width(const erosion_config *cfg) { return (long)cfg->P * cfg->s; }

double erosion_uniform(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
  /* Chaining the keys through the mixer (rather than adding them) keeps
   * (a, b, c) and permutations of it apart. */
  uint64_t h = zp_mix64(seed ^ 0x6a09e667f3bcc909ULL);
  h = zp_mix64(h ^ a);
  h = zp_mix64(h ^ b);
  h = zp_mix64(h ^ c);
  return zp_unit_double(h);
}

int erosion_strong_rocks(const erosion_config *cfg, unsigned char *flags)
{
  int k, n;

  if (erosion_config_check(cfg) != EROSION_OK || !flags) return EROSION_ERR_ARG;
  n = cfg->P;
  for (k = 0; k < n; k++) flags[k] = 0;
  if (cfg->geometry == EROSION_GEOM_REFERENCE) {
    /* The reference code's loaders: the last N PEs, one block at the end
     * of the domain. */
    for (k = n - cfg->num_strong; k < n; k++) flags[k] = 1;
    return EROSION_OK;
  }
  /* The k-th strong rock is drawn uniformly among the rocks not chosen yet,
   * found by counting them: no scratch array, O(N P), and the choice
   * depends only on the seed. */
  for (k = 0; k < cfg->num_strong; k++) {
    long left = n - k, pick, j;
    pick = (long)(erosion_uniform(cfg->seed, 0x5354524fULL, (uint64_t)k, 0) * (double)left);
    if (pick >= left) pick = left - 1;
    for (j = 0; j < n; j++) {
      if (flags[j]) continue;
      if (pick == 0) {
        flags[j] = 1;
        break;
      }
      pick--;
    }
  }
  return EROSION_OK;
}

int erosion_rock_of_cell(const erosion_config *cfg, long x, long y)
{
  long k = x / cfg->s;
  int ref = cfg->geometry == EROSION_GEOM_REFERENCE;
  double r = (ref ? 1.0 / 3.0 : 0.25) * cfg->s;
  double cx = (double)k * cfg->s + 0.5 * cfg->s + (ref && k == cfg->P - 1 ? 0.5 * r : 0.0);
  double cy = 0.5 * cfg->s;
  double dx = (double)x + 0.5 - cx, dy = (double)y + 0.5 - cy;
  if (x < 0 || y < 0 || y >= cfg->s || k >= cfg->P) return -1;
  /* The reference's last disc reaches past its stripe's end, which is the
   * domain's: only its cells inside the stripe exist. */
  return dx * dx + dy * dy <= r * r ? (int)k : -1;
}

void erosion_segment_init(const erosion_config *cfg, long x, int y0, int h, unsigned char *type,
                          double *u)
{
  int y, j;
  for (y = 0; y < h; y++) {
    int rock = erosion_rock_of_cell(cfg, x, y0 + y);
    type[y] = rock >= 0 ? EROSION_ROCK : EROSION_FLUID;
    for (j = 0; j < EROSION_SLOTS; j++) u[EROSION_SLOTS * y + j] = 0.0;
    if (rock < 0) u[EROSION_SLOTS * y] = 1.0;
  }
}

void erosion_column_init(const erosion_config *cfg, long x, unsigned char *type, double *u)
{
  erosion_segment_init(cfg, x, 0, cfg->s, type, u);
}

long erosion_column_units(const erosion_config *cfg, int n, const unsigned char *type)
{
  long units = 0;
  int y;
  for (y = 0; y < n; y++) {
    if (type[y] == EROSION_FLUID)
      units += EROSION_UNITS_FLUID;
    else if (type[y] == EROSION_REFINED)
      units += cfg->refined_units;
  }
  return units;
}

/* The value a cell shows to a neighbour: its fluid value, the mean of its
 * sub-cells, or the wall value of a rock. */
static double rep(unsigned char t, const double *u)
{
  if (t == EROSION_FLUID) return u[0];
  if (t == EROSION_REFINED) return 0.25 * (u[0] + u[1] + u[2] + u[3]);
  return WALL_VALUE;
}

/* The real work of one unit: `sweeps` Jacobi relaxations of a cell value
 * towards the mean of its four neighbours.  Each sweep depends on the last,
 * so the compiler cannot drop or merge them. */
static double relax(double v, double nsum, int sweeps)
{
  int k;
  for (k = 0; k < sweeps; k++) v = 0.2 * (v + nsum);
  return v;
}

long erosion_segment_step(const erosion_config *cfg, const unsigned char *strong, long step, long x,
                          int y0, int h, const unsigned char *left_t, const double *left_u,
                          const unsigned char *mid_t, const double *mid_u,
                          const unsigned char *right_t, const double *right_u,
                          const unsigned char *below_t, const double *below_u,
                          const unsigned char *above_t, const double *above_u,
                          unsigned char *new_type, double *new_u, long *eroded)
{
  const int s = cfg->s;
  /* A refined cell's sub-cells share its units: refined_units / 4 units of
   * sweeps each. */
  const int sub_sweeps = cfg->sweeps * (cfg->refined_units / 4);
  long units = 0, n_eroded = 0;
  int i, j;

  for (i = 0; i < h; i++) {
    const int y = y0 + i;
    const double *c = mid_u + EROSION_SLOTS * i;
    double *o = new_u + EROSION_SLOTS * i;
    /* The cells south and north of this one: inside the segment, the ghost
     * cell of the neighbouring segment, or none at the domain's walls. */
    const unsigned char *st = i > 0 ? mid_t + i - 1 : below_t;
    const double *su = i > 0 ? c - EROSION_SLOTS : below_u;
    const unsigned char *nt_ = i < h - 1 ? mid_t + i + 1 : above_t;
    const double *nu = i < h - 1 ? c + EROSION_SLOTS : above_u;
    /* Neighbour values: west, east, south, north.  The top and bottom
     * walls reflect (a cell sees itself); the left boundary is an inflow,
     * the right one an outflow that copies the cell. */
    double me = rep(mid_t[i], c);
    double w = left_t ? rep(left_t[i], left_u + EROSION_SLOTS * i) : INFLOW_VALUE;
    double e = right_t ? rep(right_t[i], right_u + EROSION_SLOTS * i) : me;
    double so = st ? rep(*st, su) : me;
    double no = nt_ ? rep(*nt_, nu) : me;

    new_type[i] = mid_t[i];
    for (j = 0; j < EROSION_SLOTS; j++) o[j] = c[j];

    if (mid_t[i] == EROSION_FLUID) {
      o[0] = relax(c[0], w + e + so + no, cfg->sweeps);
      units += EROSION_UNITS_FLUID;
    } else if (mid_t[i] == EROSION_REFINED) {
      /* Sub-cell j = 2 row + col: its siblings across and above/below, and
       * the outside neighbours on its two open sides. */
      o[0] = relax(c[0], c[1] + c[2] + w + so, sub_sweeps);
      o[1] = relax(c[1], c[0] + c[3] + e + so, sub_sweeps);
      o[2] = relax(c[2], c[3] + c[0] + w + no, sub_sweeps);
      o[3] = relax(c[3], c[2] + c[1] + e + no, sub_sweeps);
      units += cfg->refined_units;
    } else {
      /* A rock cell: each fluid-holding neighbour erodes it with the
       * probability of its rock, with its own draw.  The draw is keyed by
       * the global cell, so splitting a column into segments changes
       * nothing. */
      int rock = erosion_rock_of_cell(cfg, x, y);
      double p = (rock >= 0 && strong[rock]) ? cfg->p_strong : cfg->p_weak;
      unsigned char nt[6];
      double pd[6];
      int d, hit = 0;
      uint64_t cell = (uint64_t)x * (uint64_t)s + (uint64_t)y;
      nt[0] = left_t ? left_t[i] : EROSION_ROCK;
      nt[1] = right_t ? right_t[i] : EROSION_ROCK;
      nt[2] = st ? *st : EROSION_ROCK;
      nt[3] = nt_ ? *nt_ : EROSION_ROCK;
      /* The diagonal cells of the previous column, inside the segment. */
      nt[4] = left_t && i > 0 ? left_t[i - 1] : EROSION_ROCK;
      nt[5] = left_t && i < h - 1 ? left_t[i + 1] : EROSION_ROCK;
      for (d = 0; d < 6; d++) pd[d] = d < 4 ? p : 0.0;
      /* The one-sided rules keep each direction's own draw, so that the
       * draws of a direction do not depend on the rule. */
      if (cfg->erosion == EROSION_FROM_BELOW) {
        for (d = 0; d < 6; d++) pd[d] = d == 2 ? p : 0.0;
      } else if (cfg->erosion == EROSION_DOWNSTREAM) {
        for (d = 1; d < 4; d++) pd[d] = 0.0;
        pd[4] = pd[5] = p * DIAGONAL_WEIGHT;
      }
      for (d = 0; d < 6; d++) {
        if (nt[d] == EROSION_ROCK || !(pd[d] > 0.0)) continue;
        if (erosion_uniform(cfg->seed, cell, (uint64_t)step, (uint64_t)d) < pd[d]) hit = 1;
      }
      if (hit) {
        new_type[i] = EROSION_REFINED;
        for (j = 0; j < EROSION_SLOTS; j++) o[j] = 0.0;
        n_eroded++;
      }
    }
  }
  if (eroded) *eroded = n_eroded;
  return units;
}

long erosion_column_step(const erosion_config *cfg, const unsigned char *strong, long step, long x,
                         const unsigned char *left_t, const double *left_u,
                         const unsigned char *mid_t, const double *mid_u,
                         const unsigned char *right_t, const double *right_u,
                         unsigned char *new_type, double *new_u, long *eroded)
{
  return erosion_segment_step(cfg, strong, step, x, 0, cfg->s, left_t, left_u, mid_t, mid_u,
                              right_t, right_u, NULL, NULL, NULL, NULL, new_type, new_u, eroded);
}

uint64_t erosion_segment_hash(int s, long x, int y0, int h, const unsigned char *type)
{
  uint64_t h64 = 0;
  int i;
  for (i = 0; i < h; i++)
    h64 += zp_mix64(((uint64_t)x * (uint64_t)s + (uint64_t)(y0 + i)) * 4u + type[i]);
  return h64;
}

uint64_t erosion_column_hash(int s, long x, const unsigned char *type)
{
  return erosion_segment_hash(s, x, 0, s, type);
}
