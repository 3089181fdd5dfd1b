/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI tests of the adaptive trigger: one decision on every rank, errors
 * reported collectively, parameters, the trace, and the attachment to a real
 * Zoltan_Struct that measures the balance cost.  Run at 1 to 8 ranks. */
/* POSIX for fileno and dup, which redirect stdout to check a debug line. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <mpi.h>
#include <zoltan.h>

#include <adaptive_trigger.h>

#include "adaptive_policy.h"
#include "zp_history.h"
#include "zp_hooks.h"

/* This cmocka compares only floats; doubles are compared at full precision
 * here, and NaN never passes. */
#define assert_close(a, b, eps) check_close((a), (b), (eps), __FILE__, __LINE__)
static void check_close(double a, double b, double eps, const char *file, int line)
{
  if (!(fabs(a - b) <= eps)) {
    print_error("%.17g != %.17g (tolerance %g)\n", a, b, eps);
    _fail(file, line);
  }
}

static int rank, size;

/* 1 when every rank passed the same value. */
static int same_everywhere(double v)
{
  double lo, hi;
  MPI_Allreduce(&v, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

/* The step time of rank r at step k, since = steps since the last balance:
 * multiples of 1/64 so that sums over up to 8 ranks are exact; the last
 * rank slows down between balances. */
static double step_time(int r, int k, int since)
{
  return (64.0 + (double)((r * 7 + k) % 5) + (r == size - 1 ? 4.0 * since : 0.0)) / 64.0;
}

/* The MPI trigger decides like the pure core fed with the full array of
 * per-rank times, identically on every rank, for every policy. */
static void every_rank_gets_the_core_decision_for_every_policy(void **unused)
{
  static const char *policies[] = {"ZHAI",   "MENON", "MENON_CUMULATIVE", "ULBA",      "PERIODIC",
                                   "ALWAYS", "NEVER", "THRESHOLD",        "EFFICIENCY"};
  adaptive_ulba_model model = {4, 1, 0.25, 1.0 / 4096, 1.0 / 512, 4.0, 1.0};
  size_t p;
  (void)unused;
  for (p = 0; p < sizeof policies / sizeof policies[0]; p++) {
    adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
    adaptive_config cfg;
    adaptive_state core;
    double *times = malloc((size_t)size * sizeof *times);
    int k, since = 0, balances = 0;
    assert_non_null(t);
    assert_non_null(times);
    assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", policies[p]), ZOLTAN_OK);
    assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LB_COST", "0.25"), ZOLTAN_OK);
    assert_int_equal(adaptive_set_param(t, "ADAPTIVE_PERIOD", "7"), ZOLTAN_OK);
    adaptive_config_default(&cfg);
    assert_int_equal(adaptive_policy_parse(policies[p], &cfg.policy), ADAPTIVE_OK);
    cfg.initial_cost = 0.25;
    cfg.period = 7;
    assert_int_equal(adaptive_state_init(&core, &cfg), ADAPTIVE_OK);
    if (strcmp(policies[p], "ULBA") == 0) {
      assert_int_equal(adaptive_set_ulba_model(t, &model), ZOLTAN_OK);
      assert_int_equal(adaptive_state_set_model(&core, &model), ADAPTIVE_OK);
    }
    for (k = 0; k < 60; k++) {
      adaptive_step st;
      int r, got, want;
      for (r = 0; r < size; r++) times[r] = step_time(r, k, since);
      assert_int_equal(adaptive_step_from_times((size_t)size, times, NULL, NULL, &st), ADAPTIVE_OK);
      want = adaptive_state_step(&core, &st, NULL);
      got = adaptive_should_balance(t, times[rank]);
      assert_int_equal(got, want);
      assert_true(same_everywhere(got));
      since++;
      if (got == 1) {
        /* Costs differ per rank; the trigger uses their maximum. */
        assert_int_equal(adaptive_balance_done(t, (1.0 + rank) / 16.0), ZOLTAN_OK);
        adaptive_state_balanced(&core, size / 16.0);
        since = 0;
        balances++;
      }
    }
    /* Commit the last balance, then compare C. */
    adaptive_should_balance(t, 1.0);
    if (balances > 0) assert_close(adaptive_balance_cost(t), core.cost, 0.0);
    assert_int_equal(adaptive_num_balances(t), balances);
    assert_true(same_everywhere(adaptive_balance_cost(t)));
    if (strcmp(policies[p], "ALWAYS") == 0) assert_int_equal(balances, 60);
    if (strcmp(policies[p], "NEVER") == 0) assert_int_equal(balances, 0);
    if (strcmp(policies[p], "ZHAI") == 0) assert_true(balances > 0);
    free(times);
    adaptive_destroy(&t);
    assert_null(t);
  }
}

/* PEs that are not ranks (adaptive_should_balance_pes): rank r plays
 * r % 3 + 1 PEs, and the trigger decides like the pure core fed with the
 * times of every PE of every rank, identically on every rank; its history
 * holds the largest, average and smallest over the PEs. */
static void pes_decide_over_every_pe_of_every_rank(void **unused)
{
  static const char *policies[] = {"ZHAI", "MENON", "MENON_CUMULATIVE"};
  size_t p;
  int npe = 0, first = 0, r;
  (void)unused;
  for (r = 0; r < size; r++) {
    if (r == rank) first = npe;
    npe += r % 3 + 1;
  }
  for (p = 0; p < sizeof policies / sizeof policies[0]; p++) {
    adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
    adaptive_config cfg;
    adaptive_state core;
    adaptive_record rec[2];
    double *times = malloc((size_t)npe * sizeof *times);
    int k, since = 0, balances = 0;
    assert_non_null(t);
    assert_non_null(times);
    assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", policies[p]), ZOLTAN_OK);
    assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LB_COST", "0.25"), ZOLTAN_OK);
    adaptive_config_default(&cfg);
    assert_int_equal(adaptive_policy_parse(policies[p], &cfg.policy), ADAPTIVE_OK);
    cfg.initial_cost = 0.25;
    assert_int_equal(adaptive_state_init(&core, &cfg), ADAPTIVE_OK);
    for (k = 0; k < 40; k++) {
      adaptive_step st;
      int i, got, want;
      double hi = 0.0, lo = 1e300, sum = 0.0;
      /* PE i of the whole machine: the last PE slows down between
       * balances (multiples of 1/64, so that every sum is exact). */
      for (i = 0; i < npe; i++) {
        times[i] = (64.0 + (double)((i * 7 + k) % 5) + (i == npe - 1 ? 4.0 * since : 0.0)) / 64.0;
        hi = times[i] > hi ? times[i] : hi;
        lo = times[i] < lo ? times[i] : lo;
        sum += times[i];
      }
      assert_int_equal(adaptive_step_from_times((size_t)npe, times, NULL, NULL, &st), ADAPTIVE_OK);
      want = adaptive_state_step(&core, &st, NULL);
      got = adaptive_should_balance_pes(t, rank % 3 + 1, times + first);
      assert_int_equal(got, want);
      assert_true(same_everywhere(got));
      if (got == 0) {
        long n = adaptive_history(t, rec, 1);
        assert_true(n >= 1);
        assert_close(rec[0].t_max, hi, 0.0);
        assert_close(rec[0].t_min, lo, 0.0);
        assert_close(rec[0].t_avg, sum / npe, 1e-12);
      }
      since++;
      if (got == 1) {
        assert_int_equal(adaptive_balance_done(t, 0.25), ZOLTAN_OK);
        adaptive_state_balanced(&core, 0.25);
        since = 0;
        balances++;
      }
    }
    if (strcmp(policies[p], "ZHAI") == 0) assert_true(balances > 0);
    free(times);
    adaptive_destroy(&t);
  }
}

/* No PE on one rank (or no array) is an error on every rank, and the
 * trigger keeps working afterwards. */
static void pes_without_times_are_an_error_on_every_rank(void **unused)
{
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  double two[2] = {0.5, 0.25};
  (void)unused;
  assert_non_null(t);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "NEVER"), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance_pes(t, rank == size - 1 ? 0 : 2, two), ZOLTAN_FATAL);
  assert_int_equal(adaptive_should_balance_pes(t, 2, rank == 0 ? NULL : two), ZOLTAN_FATAL);
  two[1] = rank == 0 ? NAN : 0.25;
  assert_int_equal(adaptive_should_balance_pes(t, 2, two), ZOLTAN_FATAL);
  two[1] = 0.25;
  assert_int_equal(adaptive_should_balance_pes(t, 2, two), 0);
  assert_int_equal(adaptive_steps_since_balance(t), 1);
  adaptive_destroy(&t);
}

/* A NaN, infinite or negative time on one rank is an error on every rank,
 * and the trigger keeps working afterwards. */
static void bad_time_on_one_rank_is_an_error_on_every_rank(void **unused)
{
  const double bad[] = {NAN, -1.0, INFINITY};
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  size_t i;
  (void)unused;
  assert_non_null(t);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "NEVER"), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.5), 0);
  for (i = 0; i < 3; i++) {
    double mine = rank == (int)(i % (size_t)size) ? bad[i] : 0.5;
    assert_int_equal(adaptive_should_balance(t, mine), ZOLTAN_FATAL);
    assert_int_equal(adaptive_should_balance(t, 0.5), 0);
  }
  /* The rejected steps were not recorded. */
  assert_int_equal(adaptive_steps_since_balance(t), 4);
  adaptive_destroy(&t);
}

/* A 1 not followed by a reported balance is an error on every rank. */
static void a_yes_without_a_balance_report_is_an_error(void **unused)
{
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  (void)unused;
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "ALWAYS"), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.1), 1);
  assert_int_equal(adaptive_should_balance(t, 0.1), ZOLTAN_FATAL);
  assert_int_equal(adaptive_should_balance(t, 0.1), 1);
  assert_int_equal(adaptive_balance_done(t, 0.2), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.1), 1);
  assert_close(adaptive_balance_cost(t), 0.2, 0.0);
  adaptive_destroy(&t);
}

/* A balance reported on some ranks only, or parameters that differ between
 * ranks, are errors on every rank. */
static void inconsistent_ranks_are_errors_on_every_rank(void **unused)
{
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  (void)unused;
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "NEVER"), ZOLTAN_OK);
  if (rank == 0) assert_int_equal(adaptive_balance_done(t, 1.0), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.1), size > 1 ? ZOLTAN_FATAL : 0);
  assert_int_equal(adaptive_should_balance(t, 0.1), 0);
  assert_int_equal(adaptive_num_balances(t), size > 1 ? 0 : 1);
  /* Different ADAPTIVE_PERIOD values; different speeds are allowed. */
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_PERIOD", rank == 0 ? "7" : "8"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_SPEED", rank == 0 ? "2" : "1"), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.1), size > 1 ? ZOLTAN_FATAL : 0);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_PERIOD", "8"), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.1), 0);
  adaptive_destroy(&t);
}

/* Zoltan-style parameters: case-insensitive names, trimmed values,
 * DEFAULT, errors for values out of range, warnings for unknown names. */
static void parameters_follow_zoltan_conventions(void **unused)
{
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  int i;
  (void)unused;
  assert_int_equal(adaptive_set_param(t, " adaptive_policy ", "  periodic "), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "Adaptive_Period", " 3"), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.1), 0);
  assert_int_equal(adaptive_should_balance(t, 0.1), 0);
  assert_int_equal(adaptive_should_balance(t, 0.1), 1);
  adaptive_balance_done(t, 0.0);
  /* DEFAULT restores a period of 100. */
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_PERIOD", "default"), ZOLTAN_OK);
  for (i = 0; i < 10; i++) assert_int_equal(adaptive_should_balance(t, 0.1), 0);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_EFF_MIN", "1.7"), ZOLTAN_FATAL);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_EFF_MIN", "0"), ZOLTAN_FATAL);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_PERIOD", "0"), ZOLTAN_FATAL);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_PERIOD", "3.5"), ZOLTAN_FATAL);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "SOMETIMES"), ZOLTAN_FATAL);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LB_COST", "auto"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LB_COST", "-2"), ZOLTAN_FATAL);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_NO_SUCH", "1"), ZOLTAN_WARN);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_SPEED_FILE", "/no/such/file"), ZOLTAN_FATAL);
  /* The rejected values left the period at its default. */
  assert_int_equal(adaptive_should_balance(t, 0.1), 0);
  adaptive_destroy(&t);
}

/* Rank 0 writes one CSV line per decision after a header. */
static void trace_file_has_a_header_and_a_line_per_step(void **unused)
{
  char path[256], line[1024];
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  int i, lines = 0, ones = 0;
  (void)unused;
  snprintf(path, sizeof path, "adaptive_trace_np%d.csv", size);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "PERIODIC"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_PERIOD", "5"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_TRACE_FILE", path), ZOLTAN_OK);
  for (i = 0; i < 12; i++)
    if (adaptive_should_balance(t, 0.01 * (1 + rank)) == 1) adaptive_balance_done(t, 0.0);
  adaptive_destroy(&t);
  if (rank == 0) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_true(strncmp(line, "step,since,t_max,t_avg,t_min", 28) == 0);
    while (fgets(line, sizeof line, f)) {
      /* The decision is the next-to-last field. */
      char *last = strrchr(line, ',');
      assert_non_null(last);
      *last = '\0';
      last = strrchr(line, ',');
      ones += atoi(last + 1);
      lines++;
    }
    fclose(f);
    remove(path);
    assert_int_equal(lines, 12);
    assert_int_equal(ones, 2); /* steps 5 and 10 */
  }
}

/* Feeds `steps` steps of uniform growth (every rank 2/64 s slower per step,
 * above a fixed residual imbalance of up to 2/64 s; multiples of 1/64 so
 * that the sums are exact) and returns the balances, the same on every rank.
 * A balance changes nothing: no balance removes uniform growth. */
static int uniform_growth_balances(adaptive_trigger *t, int steps)
{
  int k, d, balances = 0;
  for (k = 0; k < steps; k++) {
    d = adaptive_should_balance(t, (64.0 + (double)(rank % 3) + 2.0 * k) / 64.0);
    assert_true(d == 0 || d == 1);
    assert_true(same_everywhere(d));
    if (d == 1) {
      assert_int_equal(adaptive_balance_done(t, 0.25), ZOLTAN_OK);
      balances++;
    }
  }
  return balances;
}

/* A trigger with the given policy and degradation, C seeded at 0.25 s. */
static adaptive_trigger *trigger_with(const char *policy, const char *degradation)
{
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  assert_non_null(t);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", policy), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LB_COST", "0.25"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_DEGRADATION", degradation), ZOLTAN_OK);
  return t;
}

/* ADAPTIVE_DEGRADATION = IMBALANCE: growth of every rank alike gives no
 * balance in 60 steps, for ZHAI and for ULBA without a model; the default
 * TOTAL balances every 6 steps on the same times.  (The cmocka test of the
 * decision core runs 400 steps; every step here is collective, which at 8
 * ranks on 2 cores costs milliseconds.) */
static void imbalance_degradation_ignores_uniform_growth_on_every_rank(void **unused)
{
  static const char *policies[] = {"ZHAI", "ULBA"};
  size_t p;
  (void)unused;
  for (p = 0; p < 2; p++) {
    adaptive_trigger *t = trigger_with(policies[p], "IMBALANCE");
    double deg = -1.0;
    assert_int_equal(uniform_growth_balances(t, 60), 0);
    assert_int_equal(adaptive_num_balances(t), 0);
    assert_int_equal(adaptive_last_quantities(t, &deg, NULL, NULL, NULL, NULL, NULL, NULL),
                     ZOLTAN_OK);
    assert_close(deg, 0.0, 0.0);
    adaptive_destroy(&t);
    t = trigger_with(policies[p], "TOTAL");
    assert_true(uniform_growth_balances(t, 60) >= 8);
    adaptive_destroy(&t);
  }
}

/* Balance steps (1-based, up to max) of `steps` steps where this rank plays
 * 4 PEs and global PE 0 gets 1/64 s more per step since the last balance,
 * which spreads that extra over every PE.  Returns the balances. */
static int hot_spot_balances(const char *degradation, int steps, int *at, int max)
{
  adaptive_trigger *t = trigger_with("ZHAI", degradation);
  double pe[4], base = 1.0, g = 1.0 / 64.0;
  int k, i, d, since = 0, n = 0, npe = 4 * size;
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LB_COST", "1"), ZOLTAN_OK);
  for (k = 0; k < steps; k++) {
    for (i = 0; i < 4; i++) pe[i] = base + (rank == 0 && i == 0 ? g * since : 0.0);
    since++;
    d = adaptive_should_balance_pes(t, 4, pe);
    assert_true(d == 0 || d == 1);
    assert_true(same_everywhere(d));
    if (d == 1) {
      if (n < max) at[n] = k + 1;
      n++;
      base += g * (since - 1) / npe;
      since = 0;
      assert_int_equal(adaptive_balance_done(t, 1.0), ZOLTAN_OK);
    }
  }
  adaptive_destroy(&t);
  return n;
}

/* A hot spot growing on one PE of 4 x ranks: IMBALANCE balances, first
 * within two steps of TOTAL's first balance and never before it, and about
 * as often (t_max - t_avg grows by 1 - 1/P of what t_max grows). */
static void imbalance_degradation_follows_a_hot_spot_like_total(void **unused)
{
  int at_t[32], at_i[32], nt, ni;
  (void)unused;
  nt = hot_spot_balances("TOTAL", 80, at_t, 32);
  ni = hot_spot_balances("IMBALANCE", 80, at_i, 32);
  assert_true(nt >= 1 && ni >= 1);
  /* D_n = (1/64)(1/2 + (n-1)(n-2)/2) >= C = 1 first at n = 13. */
  assert_int_equal(at_t[0], 13);
  assert_true(at_i[0] >= at_t[0] && at_i[0] <= at_t[0] + 2);
  assert_true(ni <= nt && ni >= nt * at_t[0] / (at_t[0] + 2) - 1);
}

/* ADAPTIVE_DEGRADATION follows Zoltan's conventions: case-insensitive,
 * trimmed, DEFAULT restores TOTAL, an unknown word is an error that keeps
 * the old value, ranks must agree, and DEBUG_LEVEL 1 prints the value. */
static void degradation_parameter_follows_zoltan_conventions(void **unused)
{
  adaptive_trigger *t = trigger_with("ZHAI", " imbalance ");
  char path[64], line[256];
  int saved = -1, found = 0;
  FILE *f;
  (void)unused;
  assert_int_equal(adaptive_set_param(t, " Adaptive_Degradation", "SOMETIMES"), ZOLTAN_FATAL);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_DEGRADATION", "1"), ZOLTAN_FATAL);
  /* The rejected values kept IMBALANCE: uniform growth gives no balance. */
  assert_int_equal(uniform_growth_balances(t, 40), 0);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_DEGRADATION", "Default"), ZOLTAN_OK);
  assert_true(uniform_growth_balances(t, 40) > 0);
  /* Ranks that disagree make the next step an error on every rank. */
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_DEGRADATION", rank == 0 ? "IMBALANCE" : "TOTAL"),
                   ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 1.0), size > 1 ? ZOLTAN_FATAL : 0);
  /* Rank 0 prints the value at ADAPTIVE_DEBUG_LEVEL 1, as Zoltan prints its
   * parameters; stdout goes to a file for the time of the call. */
  snprintf(path, sizeof path, "adaptive_debug_np%d.txt", size);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_DEBUG_LEVEL", "1"), ZOLTAN_OK);
  if (rank == 0) {
    fflush(stdout);
    saved = dup(fileno(stdout));
    assert_true(saved >= 0);
    assert_non_null(freopen(path, "w", stdout));
  }
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_DEGRADATION", "imbalance"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_DEBUG_LEVEL", "0"), ZOLTAN_OK);
  if (rank == 0) {
    fflush(stdout);
    assert_true(dup2(saved, fileno(stdout)) >= 0);
    close(saved);
    f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
      if (strcmp(line, "ADAPTIVE Parameter ADAPTIVE_DEGRADATION = IMBALANCE\n") == 0) found = 1;
    fclose(f);
    remove(path);
    assert_true(found);
  }
  adaptive_destroy(&t);
}

/* THRESHOLD with the load average: each rank reads its own file; a rank
 * whose file is missing makes the step an error everywhere. */
static void threshold_reads_the_load_average_of_every_rank(void **unused)
{
  char path[256];
  char value[64];
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  FILE *f;
  (void)unused;
  /* Rank r has avenrun = r: indices 1 .. size, spread size - 1 > 1.5 from
   * three ranks on. */
  snprintf(path, sizeof path, "adaptive_loadavg_np%d_r%d", size, rank);
  f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "%d.00 0.00 0.00 1/100 42\n", rank);
  fclose(f);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "THRESHOLD"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LOAD_INDEX", "loadavg"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_THRESHOLD", "1.5"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_SETTLE_STEPS", "1"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LOADAVG_FILE", path), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.1), size >= 3 ? 1 : 0);
  if (size >= 3) adaptive_balance_done(t, 0.0);
  /* A faster rank 0 (alpha = 4) lowers its index from 1 to 0.25. */
  snprintf(value, sizeof value, "%d", rank == 0 ? 4 : 1);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_SPEED", value), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.1), (size - 0.25 > 1.5) ? 1 : 0);
  if (size - 0.25 > 1.5) adaptive_balance_done(t, 0.0);
  if (rank == size - 1)
    assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LOADAVG_FILE", "/no/such/loadavg"), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.1), ZOLTAN_FATAL);
  remove(path);
  adaptive_destroy(&t);
}

/* The history accessors give this rank's steps since the last balance and
 * its workload increase rate; object snapshots are kept in their window. */
static void history_gives_the_increase_rate_and_object_loads(void **unused)
{
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  adaptive_record rec[16];
  ZOLTAN_ID_TYPE gids[3] = {1, 2, 3};
  double loads[3], rate;
  const ZOLTAN_ID_TYPE *g;
  const double *l;
  long step;
  int k, n, ngid;
  (void)unused;
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "NEVER"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_OBJ_HISTORY", "2"), ZOLTAN_OK);
  assert_int_equal(adaptive_increase_rate(t, 0, &rate), ZOLTAN_WARN);
  /* Time 1 + 0.5 k and load 10 + 2 k (three objects) on this rank. */
  for (k = 0; k < 6; k++) {
    loads[0] = 2.0 + 2.0 * k;
    loads[1] = 3.0;
    loads[2] = 5.0;
    assert_int_equal(adaptive_report_objects(t, 3, 1, gids, loads), ZOLTAN_OK);
    assert_int_equal(adaptive_should_balance(t, 1.0 + 0.5 * k + rank), 0);
  }
  assert_int_equal(adaptive_history(t, rec, 16), 6);
  assert_close(rec[5].my_load, 20.0, 0.0);
  assert_close(rec[5].t_max, 1.0 + 2.5 + (size - 1), 0.0);
  assert_int_equal(adaptive_increase_rate(t, 0, &rate), ZOLTAN_OK);
  assert_close(rate, 0.5, 1e-12);
  assert_int_equal(adaptive_increase_rate(t, 1, &rate), ZOLTAN_OK);
  assert_close(rate, 2.0, 1e-12);
  /* Only the newest two snapshots are kept. */
  assert_int_equal(adaptive_object_history(t, 0, &step, &n, &ngid, &g, &l), ZOLTAN_OK);
  assert_int_equal(step, 5);
  assert_int_equal(n, 3);
  assert_close(l[0], 12.0, 0.0);
  assert_int_equal(g[2], 3);
  assert_int_equal(adaptive_object_history(t, 1, &step, &n, &ngid, &g, &l), ZOLTAN_OK);
  assert_int_equal(step, 4);
  assert_int_equal(adaptive_object_history(t, 2, &step, &n, &ngid, &g, &l), ZOLTAN_WARN);
  /* A balance empties the window. */
  adaptive_balance_done(t, 0.0);
  assert_int_equal(adaptive_steps_since_balance(t), 0);
  assert_int_equal(adaptive_history(t, rec, 16), 0);
  assert_int_equal(adaptive_should_balance(t, 1.0), 0);
  assert_int_equal(adaptive_history(t, rec, 16), 1);
  assert_int_equal(adaptive_object_history(t, 0, &step, &n, &ngid, &g, &l), ZOLTAN_WARN);
  adaptive_destroy(&t);
}

/* Communication reports share the object snapshots' window and step; a
 * step with loads but no communication has none; bad volumes are refused
 * and leave the snapshot as it was. */
static void comm_reports_are_kept_with_the_object_snapshots(void **unused)
{
  adaptive_trigger *t = adaptive_create(MPI_COMM_WORLD);
  ZOLTAN_ID_TYPE from[2] = {1, 2}, to[2] = {2, 7};
  double vol[2] = {5.0, 0.5}, bad[2] = {1.0, NAN}, neg[1] = {-1.0}, loads[2] = {1.0, 1.0};
  const ZOLTAN_ID_TYPE *p;
  const double *v;
  long step;
  int n, ngid;
  (void)unused;
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "NEVER"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_OBJ_HISTORY", "2"), ZOLTAN_OK);
  assert_int_equal(adaptive_report_comm(t, 2, 1, from, to, vol), ZOLTAN_OK);
  assert_int_equal(adaptive_report_objects(t, 2, 1, from, loads), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 1.0), 0);
  /* Step 1: loads only. */
  assert_int_equal(adaptive_report_objects(t, 2, 1, from, loads), ZOLTAN_OK);
  assert_int_equal(adaptive_report_comm(t, 2, 1, from, to, bad), ZOLTAN_FATAL);
  assert_int_equal(adaptive_report_comm(t, 1, 1, from, to, neg), ZOLTAN_FATAL);
  assert_int_equal(adaptive_report_comm(t, 1, 0, from, to, vol), ZOLTAN_FATAL);
  assert_int_equal(adaptive_report_comm(t, -1, 1, from, to, vol), ZOLTAN_FATAL);
  assert_int_equal(adaptive_comm_history(t, 0, &step, &n, &ngid, &p, &v), ZOLTAN_WARN);
  assert_int_equal(adaptive_comm_history(t, 1, &step, &n, &ngid, &p, &v), ZOLTAN_OK);
  assert_int_equal(step, 0);
  assert_int_equal(n, 2);
  assert_int_equal(ngid, 1);
  /* Stored as (from, to) pairs. */
  assert_int_equal(p[0], 1);
  assert_int_equal(p[1], 2);
  assert_int_equal(p[2], 2);
  assert_int_equal(p[3], 7);
  assert_close(v[1], 0.5, 0.0);
  /* The object loads of both steps are still there. */
  assert_int_equal(adaptive_object_history(t, 1, &step, &n, &ngid, &p, &v), ZOLTAN_OK);
  assert_int_equal(n, 2);
  adaptive_balance_done(t, 0.0);
  assert_int_equal(adaptive_comm_history(t, 0, &step, &n, &ngid, &p, &v), ZOLTAN_WARN);
  adaptive_destroy(&t);
}

/* ---- a small Zoltan application: a 4 x 4 block of points per rank ---- */

static int grid_num(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 16;
}

static void grid_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                      float *w, int *ierr)
{
  int i;
  (void)d;
  (void)ng;
  (void)nl;
  for (i = 0; i < 16; i++) {
    gids[i] = (ZOLTAN_ID_TYPE)(rank * 16 + i + 1);
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i] = 1.0f + (float)(rank == 0);
  }
  *ierr = ZOLTAN_OK;
}

static int grid_dim(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 2;
}

static void grid_geom(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                      int dim, double *x, int *ierr)
{
  int i;
  (void)d;
  (void)ng;
  (void)nl;
  (void)gids;
  (void)dim;
  for (i = 0; i < n; i++) {
    x[2 * i] = (double)(rank * 4 + (int)lids[i] % 4);
    x[2 * i + 1] = (double)((int)lids[i] / 4);
  }
  *ierr = ZOLTAN_OK;
}

static int partition(struct Zoltan_Struct *zz, int use_balance)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipart, *ep, *epart, rc;
  ZOLTAN_ID_PTR ig, il, eg, el;
  if (use_balance)
    rc = Zoltan_LB_Balance(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &nexp, &eg, &el, &ep);
  else
    rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipart, &nexp, &eg,
                             &el, &ep, &epart);
  if (use_balance) {
    Zoltan_LB_Free_Data(&ig, &il, &ip, &eg, &el, &ep);
  } else {
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipart);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epart);
  }
  return rc;
}

/* Attached to a Zoltan_Struct, the trigger takes C from the measured RCB
 * calls; adaptive_balance_done's cost replaces the measurement; after
 * adaptive_destroy the struct is no longer observed. */
static void attach_measures_the_cost_of_real_zoltan_calls(void **unused)
{
  struct Zoltan_Struct *zz;
  adaptive_trigger *t;
  float ver;
  double w0, wall, wall_max, c1, c2;
  int dummy = 0;
  (void)unused;
  Zoltan_Initialize(0, NULL, &ver);
  zz = Zoltan_Create(MPI_COMM_WORLD);
  assert_non_null(zz);
  Zoltan_Set_Param(zz, "LB_METHOD", "RCB");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Num_Obj_Fn(zz, grid_num, NULL);
  Zoltan_Set_Obj_List_Fn(zz, grid_list, NULL);
  Zoltan_Set_Num_Geom_Fn(zz, grid_dim, NULL);
  Zoltan_Set_Geom_Multi_Fn(zz, grid_geom, NULL);

  t = adaptive_create(MPI_COMM_WORLD);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "NEVER"), ZOLTAN_OK);
  assert_int_equal(adaptive_attach(t, (struct Zoltan_Struct *)&dummy), ZOLTAN_FATAL);
  assert_int_equal(adaptive_attach(t, zz), ZOLTAN_OK);
  assert_ptr_equal(zp_observer_of(zz, "adaptive_trigger"), t);

  w0 = MPI_Wtime();
  assert_int_equal(partition(zz, 0), ZOLTAN_OK);
  wall = MPI_Wtime() - w0;
  MPI_Allreduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  assert_close(adaptive_balance_cost(t), -1.0, 0.0); /* committed at the next call */
  assert_int_equal(adaptive_should_balance(t, 0.01), 0);
  c1 = adaptive_balance_cost(t);
  assert_true(c1 > 0.0);
  assert_true(c1 <= wall_max); /* the observed time lies inside the call */
  assert_true(same_everywhere(c1));
  assert_int_equal(adaptive_num_balances(t), 1);
  assert_int_equal(adaptive_steps_since_balance(t), 1);

  /* Zoltan_LB_Balance is observed too; a reported cost replaces the
   * measurement: plain mean of c1 and 0.5. */
  assert_int_equal(partition(zz, 1), ZOLTAN_OK);
  assert_int_equal(adaptive_balance_done(t, 0.5), ZOLTAN_OK);
  assert_int_equal(adaptive_should_balance(t, 0.01), 0);
  c2 = adaptive_balance_cost(t);
  assert_close(c2, c1 + (0.5 - c1) / 2.0, 0.0);
  assert_int_equal(adaptive_num_balances(t), 2);

  adaptive_destroy(&t);
  assert_null(zp_observer_of(zz, "adaptive_trigger"));
  assert_int_equal(partition(zz, 0), ZOLTAN_OK); /* no observer left to call */
  Zoltan_Destroy(&zz);
}

/* Attached to a struct, the trigger is its history provider: the layer's
 * queries give what the trigger's own accessors give; a struct without a
 * provider answers "nothing measured"; a trigger detaches only itself. */
static void attached_trigger_provides_the_history_through_the_layer(void **unused)
{
  struct Zoltan_Struct *zz;
  adaptive_trigger *t, *t2;
  float ver;
  ZOLTAN_ID_TYPE gids[3] = {7, 8, 9};
  double loads[3] = {1.0, 2.0, 3.0};
  zp_object_loads ol;
  zp_step_times st[4];
  adaptive_record rec[4];
  long step;
  int n, ngid;
  const ZOLTAN_ID_TYPE *g;
  const double *l;
  (void)unused;
  Zoltan_Initialize(0, NULL, &ver);
  zz = Zoltan_Create(MPI_COMM_WORLD);
  assert_non_null(zz);
  /* Nothing attached: nothing measured. */
  assert_int_equal(zp_history_object_loads(zz, 0, &ol), ZOLTAN_WARN);
  assert_int_equal(ol.num_obj, 0);
  assert_null(ol.loads);
  assert_int_equal(zp_history_step_times(zz, st, 4), 0);
  assert_close(zp_history_balance_cost(zz), -1.0, 0.0);
  assert_int_equal(zp_history_object_loads(zz, 0, NULL), ZOLTAN_FATAL);

  t = adaptive_create(MPI_COMM_WORLD);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_POLICY", "NEVER"), ZOLTAN_OK);
  assert_int_equal(adaptive_set_param(t, "ADAPTIVE_LB_COST", "0.25"), ZOLTAN_OK);
  assert_int_equal(adaptive_attach(t, zz), ZOLTAN_OK);
  for (int k = 0; k < 3; k++) {
    loads[0] = 1.0 + k;
    assert_int_equal(adaptive_report_objects(t, 3, 1, gids, loads), ZOLTAN_OK);
    assert_int_equal(adaptive_should_balance(t, 0.01 * (k + 1)), 0);
  }
  /* Object loads: the same snapshots as adaptive_object_history. */
  for (size_t back = 0; back < 3; back++) {
    assert_int_equal(zp_history_object_loads(zz, back, &ol), ZOLTAN_OK);
    assert_int_equal(adaptive_object_history(t, back, &step, &n, &ngid, &g, &l), ZOLTAN_OK);
    assert_int_equal(ol.step, step);
    assert_int_equal(ol.num_obj, n);
    assert_int_equal(ol.num_gid_entries, ngid);
    assert_ptr_equal(ol.gids, g);
    assert_ptr_equal(ol.loads, l);
  }
  assert_int_equal(zp_history_object_loads(zz, 3, &ol), ZOLTAN_WARN);
  /* Step times: the same records as adaptive_history, newest max kept. */
  assert_int_equal(zp_history_step_times(zz, st, 2), adaptive_history(t, rec, 4));
  assert_int_equal(adaptive_history(t, rec, 4), 3);
  assert_int_equal(st[0].step, rec[1].step);
  assert_int_equal(st[1].step, rec[2].step);
  assert_close(st[1].t_max, rec[2].t_max, 0.0);
  assert_close(st[1].t_avg, rec[2].t_avg, 0.0);
  assert_close(st[1].t_min, rec[2].t_min, 0.0);
  assert_int_equal(zp_history_step_times(zz, NULL, 1), ZOLTAN_FATAL);
  /* The cost: C, the seed until a balance is measured. */
  assert_close(zp_history_balance_cost(zz), adaptive_balance_cost(t), 0.0);
  assert_close(zp_history_balance_cost(zz), 0.25, 0.0);

  /* A second trigger takes the struct over; destroying the first one must
   * not remove the second one's provider. */
  t2 = adaptive_create(MPI_COMM_WORLD);
  assert_int_equal(adaptive_attach(t2, zz), ZOLTAN_OK);
  adaptive_destroy(&t);
  assert_ptr_equal(zp_observer_of(zz, "adaptive_trigger"), t2);
  assert_close(zp_history_balance_cost(zz), -1.0, 0.0); /* t2 knows no cost */
  assert_int_equal(zp_history_detach(zz, (void *)&ver), ZOLTAN_WARN);
  assert_int_equal(adaptive_attach(t2, NULL), ZOLTAN_OK);
  assert_int_equal(zp_history_detach(zz, t2), ZOLTAN_WARN); /* already gone */
  assert_int_equal(zp_history_step_times(zz, st, 4), 0);
  adaptive_destroy(&t2);
  Zoltan_Destroy(&zz);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_rank_gets_the_core_decision_for_every_policy),
      cmocka_unit_test(bad_time_on_one_rank_is_an_error_on_every_rank),
      cmocka_unit_test(pes_decide_over_every_pe_of_every_rank),
      cmocka_unit_test(pes_without_times_are_an_error_on_every_rank),
      cmocka_unit_test(a_yes_without_a_balance_report_is_an_error),
      cmocka_unit_test(inconsistent_ranks_are_errors_on_every_rank),
      cmocka_unit_test(parameters_follow_zoltan_conventions),
      cmocka_unit_test(trace_file_has_a_header_and_a_line_per_step),
      cmocka_unit_test(imbalance_degradation_ignores_uniform_growth_on_every_rank),
      cmocka_unit_test(imbalance_degradation_follows_a_hot_spot_like_total),
      cmocka_unit_test(degradation_parameter_follows_zoltan_conventions),
      cmocka_unit_test(threshold_reads_the_load_average_of_every_rank),
      cmocka_unit_test(history_gives_the_increase_rate_and_object_loads),
      cmocka_unit_test(comm_reports_are_kept_with_the_object_snapshots),
      cmocka_unit_test(attach_measures_the_cost_of_real_zoltan_calls),
      cmocka_unit_test(attached_trigger_provides_the_history_through_the_layer),
  };
  int rc;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  /* A failure on any rank fails the run on every rank. */
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
