/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_hetero: an emulated heterogeneous machine, to measure the capacity
 * model on one small computer.  A real Zoltan application (cells on a 2-D
 * grid with coordinates, balanced by RCB, migrated with Zoltan_Migrate)
 * whose ranks are given relative speeds and external competitors; the step
 * time of a rank is modelled as its work divided by its effective speed
 * (work units per second), with a deterministic 1% timing noise, so that
 * every figure is the same on any machine and under any load.  One MPI rank
 * plays one machine.
 *
 * Scenarios (--scenario):
 *   watts     Watts et al., figures 3 and 4: the machines of --speeds start
 *             with equal cell counts and are balanced every --period steps
 *             in four ways: none; homogeneous balancing on measured time
 *             (object weight = its time on its current rank, no
 *             capacities); static capacities (CAPACITY=STATIC from a file
 *             of the nominal speeds, while the true speeds differ from them
 *             by up to --speed-error, as a small benchmark misestimates);
 *             dynamic capacities (CAPACITY=MEASURED from the work and time
 *             reported to the adaptive trigger).
 *   stellner  Stellner and Trinitis: ranks of equal speed; from step --competitor-step
 *             on, --competitors ranks (0, 1, ...) each share their core with
 *             one external process (speed halved, and the rank's emulated
 *             load-average file says so).  Three runs: no competitor, the
 *             competitors without balancing, and the competitors with the
 *             adaptive trigger's THRESHOLD policy on step times deciding
 *             and CAPACITY_LOADAVG capacities balancing.
 *
 * Every run balances with --method (default RCB) the first time and with
 * --later-method (default REFINE) afterwards.
 *
 * Options: --speeds a,b,...  (watts; default the ten speeds of Watts et al.'s
 * figure 2; one per rank), --cells N (default 40000), --steps S (default
 * 30), --period K (default 5), --speed-error E (default 0.08), --competitors
 * C, --competitor-step S0, --balance-cost B (seconds per balance, default
 * 0.5 step of the ideal), --check (exit 1 unless the seeds' shapes hold),
 * --csv FILE (one line per run), --steps-csv FILE (one line per run and
 * step: the step time, and 1 where a balance followed; for the plots of
 * bench/hetero/hetero_plots.sh), --policy P and --degradation D (the
 * ADAPTIVE_POLICY, default THRESHOLD, and ADAPTIVE_DEGRADATION, default
 * TOTAL, of the stellner run the trigger decides; for comparing ZHAI's two
 * degradations, docs/adaptive_trigger.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zoltan.h>

#include "adaptive_trigger.h"
#include "hetero_app.h"
#include "zp_rng.h"

typedef ha_cell cell;
typedef ha_app app;

typedef struct options {
  const char *scenario, *csv, *steps_csv, *method, *later_method;
  const char *policy, *degradation; /* the trigger of the stellner run that balances */
  double speeds[64];
  int nspeeds, cells, steps, period, competitors, competitor_step, check;
  double speed_error, balance_cost;
} options;

/* The machine's true speed: the nominal one off by up to err, fixed per
 * rank (what a small benchmark gets wrong). */
static double true_speed(const options *o, int rank)
{
  double u = zp_unit_double(zp_mix64(0xcafeULL + (uint64_t)rank));
  return o->speeds[rank] * (1.0 + o->speed_error * (2.0 * u - 1.0));
}

/* A deterministic 1% timing noise per rank and step. */
static double noise(int rank, int step)
{
  return 1.0 +
         0.01 * (2.0 * zp_unit_double(zp_mix64(((uint64_t)rank << 32) ^ (uint64_t)step)) - 1.0);
}

/* ---- scenarios ----------------------------------------------------------- */

/* What one run measured. */
typedef struct result {
  double first_step, last_step; /* step time (max over ranks) at the first and last step */
  double total;                 /* sum of step times plus balance costs */
  long moved[64];               /* cells moved at each balance */
  double step[1024];            /* step time (max over ranks) of each step */
  int bal_step[1024];           /* 1 where a balance followed the step */
  int balances;
} result;

enum { M_NONE, M_HOMOG, M_STATIC, M_DYNAMIC, M_STELLNER_BASE, M_STELLNER_NOLB, M_STELLNER_LB };
static const char *mode_name[] = {
    "no balancing",  "homogeneous LB on time",    "static capacities",  "dynamic capacities",
    "no competitor", "competitors, no balancing", "THRESHOLD + LOADAVG"};

/* Speed of a rank at a step, with its competitors (Stellner runs). */
static double eff_speed(const options *o, int mode, int rank, int step)
{
  double s = true_speed(o, rank);
  if (mode >= M_STELLNER_NOLB && step >= o->competitor_step && rank < o->competitors) s /= 2.0;
  return s;
}

/* Writes this rank's emulated load average: our process plus competitors. */
static void write_loadavg(const char *dir, int rank, int competitors)
{
  char path[512];
  FILE *f;
  snprintf(path, sizeof path, "%s/loadavg_%d", dir, rank);
  f = fopen(path, "w");
  if (f) {
    fprintf(f, "%.2f %.2f %.2f 1/100 1\n", 1.0 + competitors, 1.0 + competitors, 1.0);
    fclose(f);
  }
}

static void run(const options *o, int mode, const char *dir, result *res)
{
  app a;
  struct Zoltan_Struct *zz;
  adaptive_trigger *t = NULL;
  char path[512];
  int step, bal_now;

  memset(&a, 0, sizeof a);
  memset(res, 0, sizeof *res);
  MPI_Comm_rank(MPI_COMM_WORLD, &a.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &a.size);
  a.side = (int)ceil(sqrt((double)o->cells));
  a.weight_div = 1.0;
  ha_initial_cells(&a, o->cells);
  zz = ha_make_zz(&a);
  if (mode == M_STATIC) {
    snprintf(path, sizeof path, "%s/speeds.txt", dir);
    Zoltan_Set_Param(zz, "CAPACITY", "STATIC");
    Zoltan_Set_Param(zz, "CAPACITY_FILE", path);
  }
  if (mode == M_DYNAMIC || mode == M_STELLNER_LB) {
    t = adaptive_create(MPI_COMM_WORLD);
    adaptive_attach(t, zz);
  }
  if (mode == M_DYNAMIC) {
    Zoltan_Set_Param(zz, "CAPACITY", "MEASURED");
    adaptive_set_param(t, "ADAPTIVE_POLICY", "NEVER");
  }
  if (mode == M_STELLNER_LB) {
    snprintf(path, sizeof path, "%s/loadavg_%%r", dir);
    Zoltan_Set_Param(zz, "CAPACITY_LOADAVG", "1");
    Zoltan_Set_Param(zz, "CAPACITY_LOADAVG_FILE", path);
    if (adaptive_set_param(t, "ADAPTIVE_POLICY", o->policy) != ZOLTAN_OK ||
        adaptive_set_param(t, "ADAPTIVE_DEGRADATION", o->degradation) != ZOLTAN_OK)
      MPI_Abort(MPI_COMM_WORLD, 2);
    /* The cost-based policies get the modelled balance cost as C, so that
     * ZHAI's first balance does not wait for a measurement; THRESHOLD does
     * not use C and keeps the trigger as it was. */
    if (strcmp(o->policy, "THRESHOLD") != 0) {
      snprintf(path, sizeof path, "%.9g", o->balance_cost);
      adaptive_set_param(t, "ADAPTIVE_LB_COST", path);
    }
    adaptive_set_param(t, "ADAPTIVE_LOAD_INDEX", "TIME");
    adaptive_set_param(t, "ADAPTIVE_THRESHOLD", "0.5");
    adaptive_set_param(t, "ADAPTIVE_SETTLE_STEPS", "2");
  }
  for (step = 0; step < o->steps; step++) {
    double speed = eff_speed(o, mode, a.rank, step), work = ha_local_work(&a);
    double my_time = work / speed * noise(a.rank, step), tmax;
    if (mode >= M_STELLNER_NOLB)
      write_loadavg(dir, a.rank, step >= o->competitor_step && a.rank < o->competitors);
    MPI_Allreduce(&my_time, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (step == 0) res->first_step = tmax;
    res->last_step = tmax;
    if (step < 1024) res->step[step] = tmax;
    res->total += tmax;
    bal_now = 0;
    if (t != NULL) {
      adaptive_report_load(t, work);
      bal_now = adaptive_should_balance(t, my_time) == 1;
    }
    if (mode <= M_DYNAMIC && mode != M_NONE) bal_now = (step + 1) % o->period == 0;
    if (bal_now && step + 1 < o->steps) {
      if (mode == M_HOMOG) a.weight_div = speed; /* object weight = its measured time */
      /* A thorough first balance, then refinement (Bhandarkar, Brunner and Kalé's combination):
       * RCB recomputes every cut and moves a few cells even when nothing
       * changed, while REFINE leaves a balance within tolerance alone. */
      Zoltan_Set_Param(zz, "LB_METHOD", res->balances == 0 ? o->method : o->later_method);
      if (res->balances < 64) res->moved[res->balances] = ha_balance(zz, &a);
      if (step < 1024) res->bal_step[step] = 1;
      res->balances++;
      res->total += o->balance_cost;
      if (t != NULL) adaptive_balance_done(t, o->balance_cost);
    }
  }
  if (t != NULL) adaptive_destroy(&t);
  Zoltan_Destroy(&zz);
  free(a.c);
}

static void print_result(const options *o, int mode, const result *r, double ref, double ideal,
                         FILE *csv)
{
  char label[64];
  int i;
  /* The balancing stellner run is named after the policy that decides it. */
  if (mode == M_STELLNER_LB)
    snprintf(label, sizeof label, "%s + LOADAVG", o->policy);
  else
    snprintf(label, sizeof label, "%s", mode_name[mode]);
  printf("  %-28s step %10.1f  %5.2fx  ideal x %.3f  moved per balance:", label, r->last_step,
         ref / r->last_step, r->last_step / ideal);
  for (i = 0; i < r->balances && i < 8; i++) printf(" %ld", r->moved[i]);
  printf("\n");
  if (csv) {
    fprintf(csv, "%s,%s,%.6f,%.6f,%.6f,%d", o->scenario, label, r->last_step, r->total, ideal,
            r->balances);
    for (i = 0; i < r->balances && i < 8; i++) fprintf(csv, ",%ld", r->moved[i]);
    fprintf(csv, "\n");
  }
}

static int parse(int argc, char **argv, options *o)
{
  static const double fig2[] = {1.0, 4.4, 6.0, 6.0, 6.0, 6.8, 8.6, 13.0, 38.0, 39.0};
  int i;
  memset(o, 0, sizeof *o);
  o->scenario = "watts";
  o->method = "RCB";
  o->later_method = "REFINE";
  o->policy = "THRESHOLD";
  o->degradation = "TOTAL";
  o->cells = 40000;
  o->steps = 30;
  o->period = 5;
  o->speed_error = 0.08;
  o->balance_cost = -1.0;
  o->competitors = 1;
  o->competitor_step = 10;
  o->nspeeds = 10;
  memcpy(o->speeds, fig2, sizeof fig2);
  for (i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--check")) {
      o->check = 1;
      continue;
    }
    if (v == NULL) return -1;
    if (!strcmp(argv[i], "--scenario"))
      o->scenario = v;
    else if (!strcmp(argv[i], "--csv"))
      o->csv = v;
    else if (!strcmp(argv[i], "--steps-csv"))
      o->steps_csv = v;
    else if (!strcmp(argv[i], "--method"))
      o->method = v;
    else if (!strcmp(argv[i], "--later-method"))
      o->later_method = v;
    else if (!strcmp(argv[i], "--policy"))
      o->policy = v;
    else if (!strcmp(argv[i], "--degradation"))
      o->degradation = v;
    else if (!strcmp(argv[i], "--cells"))
      o->cells = atoi(v);
    else if (!strcmp(argv[i], "--steps"))
      o->steps = atoi(v);
    else if (!strcmp(argv[i], "--period"))
      o->period = atoi(v);
    else if (!strcmp(argv[i], "--speed-error"))
      o->speed_error = atof(v);
    else if (!strcmp(argv[i], "--balance-cost"))
      o->balance_cost = atof(v);
    else if (!strcmp(argv[i], "--competitors"))
      o->competitors = atoi(v);
    else if (!strcmp(argv[i], "--competitor-step"))
      o->competitor_step = atoi(v);
    else if (!strcmp(argv[i], "--speeds")) {
      char *end;
      const char *p = v;
      o->nspeeds = 0;
      while (p && *p && o->nspeeds < 64) {
        o->speeds[o->nspeeds++] = strtod(p, &end);
        p = *end == ',' ? end + 1 : NULL;
      }
    } else
      return -1;
    i++;
  }
  if (o->cells < 1 || o->steps < 2 || o->period < 1) return -1;
  return 0;
}

int main(int argc, char **argv)
{
  options o;
  result r[7];
  char dir[256] = "";
  int rank, size, ok = 1, i, modes[4], nmodes;
  double ideal = 0.0, sum = 0.0, ref;
  FILE *csv = NULL;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (parse(argc, argv, &o) != 0) {
    if (rank == 0) fprintf(stderr, "bench_hetero: bad arguments (see the comment at the top)\n");
    MPI_Finalize();
    return 2;
  }
  if (!strcmp(o.scenario, "stellner")) {
    o.nspeeds = size;
    for (i = 0; i < size && i < 64; i++) o.speeds[i] = 1.0;
    o.speed_error = 0.0;
  }
  if (o.nspeeds != size) {
    if (rank == 0)
      fprintf(stderr, "bench_hetero: %d speeds for %d ranks (one rank plays one machine)\n",
              o.nspeeds, size);
    MPI_Finalize();
    return 2;
  }
  /* A scratch folder on rank 0's file system (the ranks share it here). */
  if (rank == 0) {
    FILE *f;
    snprintf(dir, sizeof dir, "/tmp/bench_hetero_XXXXXX");
    if (mkdtemp(dir) == NULL) dir[0] = '\0';
    snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "%s", "");
    if (dir[0]) {
      char path[300];
      snprintf(path, sizeof path, "%s/speeds.txt", dir);
      f = fopen(path, "w");
      for (i = 0; f && i < size; i++) fprintf(f, "%d %g\n", i, o.speeds[i]);
      if (f) fclose(f);
    }
    if (o.csv) csv = fopen(o.csv, "w");
    if (csv) fprintf(csv, "scenario,run,step_s,total_s,ideal_s,balances,moved...\n");
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  for (i = 0; i < size; i++) sum += true_speed(&o, i);
  {
    double w = 0.0;
    long k;
    for (k = 1; k <= o.cells; k++) w += ha_cell_work((ZOLTAN_ID_TYPE)k);
    ideal = w / sum;
  }
  if (o.balance_cost < 0.0) o.balance_cost = 0.5 * ideal;
  if (!strcmp(o.scenario, "stellner")) {
    modes[0] = M_STELLNER_BASE;
    modes[1] = M_STELLNER_NOLB;
    modes[2] = M_STELLNER_LB;
    nmodes = 3;
  } else {
    modes[0] = M_NONE;
    modes[1] = M_HOMOG;
    modes[2] = M_STATIC;
    modes[3] = M_DYNAMIC;
    nmodes = 4;
  }
  if (rank == 0)
    printf("bench_hetero %s: %d ranks (each plays one machine), %d cells, %d steps%s; modelled "
           "step time = work / speed in time units, 1%% noise\n",
           o.scenario, size, o.cells, o.steps, dir[0] ? "" : " (no scratch folder!)");
  if (rank == 0 && !strcmp(o.scenario, "stellner"))
    printf("the balancing run's trigger: ADAPTIVE_POLICY=%s ADAPTIVE_DEGRADATION=%s, balance cost "
           "%.1f\n",
           o.policy, o.degradation, o.balance_cost);
  for (i = 0; i < nmodes; i++) {
    /* Progress on stderr; the results follow on stdout at the end. */
    if (rank == 0) {
      fprintf(stderr, "bench_hetero: run %d of %d: %s\n", i + 1, nmodes, mode_name[modes[i]]);
      fflush(stderr);
    }
    run(&o, modes[i], dir, &r[i]);
  }
  ref = r[0].last_step;
  if (rank == 0) {
    for (i = 0; i < nmodes; i++) print_result(&o, modes[i], &r[i], ref, ideal, csv);
  }
  if (rank == 0 && o.steps_csv != NULL) {
    FILE *f = fopen(o.steps_csv, "w");
    int s;
    if (f != NULL) {
      fprintf(f, "run,step,step_time,balance,ideal\n");
      for (i = 0; i < nmodes; i++)
        for (s = 0; s < o.steps && s < 1024; s++)
          fprintf(f, "%d,%d,%.6f,%d,%.6f\n", i, s, r[i].step[s], r[i].bal_step[s], ideal);
      fclose(f);
    }
  }
  if (!strcmp(o.scenario, "stellner")) {
    double lost = r[1].total - r[0].total, won = r[1].total - r[2].total;
    double rec = lost > 0.0 ? won / lost : 0.0;
    if (rank == 0)
      printf("claim: balancing recovers %.1f%% of the %.1f time units the competitors cost (total "
             "%.1f -> %.1f, %d balances)\n",
             100.0 * rec, lost, r[1].total, r[2].total, r[2].balances);
    ok = rec >= (o.competitors == 1 ? 0.5 : 0.1);
  } else {
    double dyn = r[3].last_step, stat = r[2].last_step, hom = r[1].last_step;
    long late = 0;
    for (i = 3; i < r[3].balances && i < 64; i++) late += r[3].moved[i];
    if (rank == 0) {
      printf("claim: dynamic %.2fx faster than none (Watts et al.: 7.1x), %.1f%% above the ideal; "
             "static %.1f%% above; homogeneous %.1f%% above\n",
             ref / dyn, 100.0 * (dyn / ideal - 1.0), 100.0 * (stat / ideal - 1.0),
             100.0 * (hom / ideal - 1.0));
      printf("claim: dynamic moves %ld cells after its third balance\n", late);
    }
    ok = dyn <= 1.05 * ideal && stat <= 1.10 * ideal && hom > stat && hom > dyn && late == 0;
    if (o.nspeeds == 10 && o.speeds[0] == 1.0) ok = ok && ref / dyn >= 7.1;
  }
  if (rank == 0) {
    if (csv) fclose(csv);
    if (dir[0]) {
      char cmd[400];
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
      if (system(cmd) != 0) fprintf(stderr, "bench_hetero: could not remove %s\n", dir);
    }
    if (o.check) printf("bench_hetero: %s\n", ok ? "every claim holds" : "a claim FAILED");
  }
  MPI_Finalize();
  return o.check && !ok ? 1 : 0;
}
