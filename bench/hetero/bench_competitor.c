/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_competitor: Stellner and Trinitis's experiment with real processes and wall
 * time.  The cell application of bench_hetero (hetero_app.c) does real
 * arithmetic for each cell (iterations in proportion to its work), each MPI
 * rank pinned to one core; from step --competitor-step on, rank 0 starts
 * --competitors real competitors, child processes that spin on its core,
 * so that rank 0 gets about 1 / (1 + competitors) of its core.
 * The step time a rank reports is the wall time of its own computation.
 *
 * Three runs, one after the other in one execution:
 *   no competitor       no balancing after the first
 *   competitor          the same with the competitors
 *   competitor + LB     the adaptive trigger's THRESHOLD policy on step
 *                       times decides, CAPACITY=MEASURED (work per second of
 *                       step time, from the trigger) balances with REFINE
 * Every run starts with one RCB balance on equal speeds.  The figure is the
 * wall time of each run's step loop (computation, waiting and balancing),
 * and the share of the time the competitors cost that balancing wins back.
 *
 * Wall-time figures depend on the machine and on what else runs on it: this
 * is a benchmark (make bench), never a test.  The ranks must not outnumber
 * the cores, or they compete with each other as well.
 *
 * Options: --cells N (default 20000), --steps S (100), --competitors C (1,
 * at most 16), --competitor-step S0 (10), --step-ms T (ideal step time
 * without competitors, default 40), --smoothing W (CAPACITY_SMOOTHING of
 * the balancing run, default 1: a competitor's arrival is a step change,
 * not noise), --no-pin, --debug (the layer's DEBUG_LEVEL 1 in the
 * balancing run: capacities and moves), --check (exit 1 unless balancing
 * wins back at least half of what one competitor costs, or a tenth with
 * more), --steps-csv FILE (the slowest rank's computation time of every
 * step of every run, for bench/hetero/hetero_plots.sh).
 */
#define _GNU_SOURCE
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zoltan.h>

#include "adaptive_trigger.h"
#include "hetero_app.h"

typedef struct options {
  int cells, steps, competitors, competitor_step, pin, check, debug;
  double step_ms;
  const char *smoothing; /* CAPACITY_SMOOTHING of the balancing run */
  const char *steps_csv; /* --steps-csv */
} options;

enum { R_BASE, R_NOLB, R_LB, R_RUNS };
static const char *run_name[] = {"no competitor", "competitor, no balancing",
                                 "competitor, THRESHOLD + MEASURED"};

/* The arithmetic of one unit of work: a dependent chain the compiler cannot
 * shorten (its constants are read at run time, so that it cannot be
 * evaluated while compiling). */
static volatile double g_mul = 0.9999999, g_add = 1.3e-7;
static double spin(long iters, double x)
{
  double m = g_mul, a = g_add;
  long k;
  for (k = 0; k < iters; k++) x = x * m + a;
  return x;
}

/* Iterations per second of spin on this core (rank 0 measures, so that every
 * rank does the same work per cell). */
static double calibrate(void)
{
  double rate = 0.0, t0 = MPI_Wtime(), t, x = 1.0;
  volatile double sink;
  long iters = 0;
  do {
    x = spin(1L << 20, x); /* each call depends on the last: nothing to hoist */
    iters += 1L << 20;
    t = MPI_Wtime() - t0;
  } while (t < 0.2);
  sink = x;
  (void)sink;
  rate = (double)iters / t;
  MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return rate;
}

/* A competitor: a child that spins on the parent's core until killed (and
 * dies with the parent).  Returns its pid, or -1. */
static pid_t start_competitor(void)
{
  pid_t pid = fork();
  if (pid == 0) {
    volatile double x = 1.0;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (;;) x = spin(1L << 20, x);
  }
  return pid;
}

static void stop_competitor(pid_t pid)
{
  if (pid <= 0) return;
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* One run; returns the wall time of its step loop. */
static double run(const options *o, int which, double iters_per_work, int *balances,
                  double *step_time)
{
  ha_app a;
  struct Zoltan_Struct *zz;
  adaptive_trigger *t = NULL;
  pid_t comp[16];
  int ncomp = 0;
  double t0, sink = 1.0;
  int step, i;

  memset(&a, 0, sizeof a);
  MPI_Comm_rank(MPI_COMM_WORLD, &a.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &a.size);
  a.side = (int)ceil(sqrt((double)o->cells));
  a.weight_div = 1.0;
  ha_initial_cells(&a, o->cells);
  zz = ha_make_zz(&a);
  ha_balance(zz, &a);
  *balances = 0;
  if (which == R_LB) {
    t = adaptive_create(MPI_COMM_WORLD);
    adaptive_attach(t, zz);
    Zoltan_Set_Param(zz, "CAPACITY", "MEASURED");
    Zoltan_Set_Param(zz, "LB_METHOD", "REFINE");
    Zoltan_Set_Param(zz, "CAPACITY_SMOOTHING", o->smoothing);
    if (o->debug) Zoltan_Set_Param(zz, "DEBUG_LEVEL", "1");
    adaptive_set_param(t, "ADAPTIVE_POLICY", "THRESHOLD");
    adaptive_set_param(t, "ADAPTIVE_LOAD_INDEX", "TIME");
    adaptive_set_param(t, "ADAPTIVE_THRESHOLD", "0.25");
    adaptive_set_param(t, "ADAPTIVE_SETTLE_STEPS", "2");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (step = 0; step < o->steps; step++) {
    double s0, mine, work = ha_local_work(&a);
    if (which != R_BASE && step == o->competitor_step && a.rank == 0)
      for (ncomp = 0; ncomp < o->competitors; ncomp++) comp[ncomp] = start_competitor();
    s0 = MPI_Wtime();
    for (i = 0; i < a.n; i++) sink = spin((long)(a.c[i].work * iters_per_work), sink);
    mine = MPI_Wtime() - s0;
    MPI_Allreduce(&mine, &step_time[step], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (t != NULL) {
      adaptive_report_load(t, work);
      if (adaptive_should_balance(t, mine) == 1) {
        double b0 = MPI_Wtime();
        ha_balance(zz, &a);
        (*balances)++;
        adaptive_balance_done(t, MPI_Wtime() - b0);
      }
    }
  }
  t0 = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t0, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  {
    /* Every cell is still somewhere, once: count and GID sum conserved. */
    long cnt[2] = {a.n, 0};
    for (i = 0; i < a.n; i++) cnt[1] += (long)a.c[i].gid;
    MPI_Allreduce(MPI_IN_PLACE, cnt, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (cnt[0] != o->cells || cnt[1] != (long)o->cells * (o->cells + 1) / 2) {
      if (a.rank == 0)
        fprintf(stderr, "bench_competitor: %ld cells (GID sum %ld) after the run, expected %d\n",
                cnt[0], cnt[1], o->cells);
      t0 = -1.0;
    }
  }
  for (i = 0; i < ncomp; i++) stop_competitor(comp[i]);
  if (sink == 42.0) printf("(unlikely)\n"); /* keeps the arithmetic */
  if (t != NULL) adaptive_destroy(&t);
  Zoltan_Destroy(&zz);
  free(a.c);
  return t0;
}

static int parse(int argc, char **argv, options *o)
{
  int i;
  o->cells = 20000;
  o->steps = 100;
  o->competitors = 1;
  o->competitor_step = 10;
  o->step_ms = 40.0;
  o->pin = 1;
  o->check = 0;
  o->debug = 0;
  o->smoothing = "1";
  o->steps_csv = NULL;
  for (i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--check")) {
      o->check = 1;
      continue;
    }
    if (!strcmp(argv[i], "--debug")) {
      o->debug = 1;
      continue;
    }
    if (!strcmp(argv[i], "--no-pin")) {
      o->pin = 0;
      continue;
    }
    if (v == NULL) return -1;
    if (!strcmp(argv[i], "--cells"))
      o->cells = atoi(v);
    else if (!strcmp(argv[i], "--steps"))
      o->steps = atoi(v);
    else if (!strcmp(argv[i], "--competitors"))
      o->competitors = atoi(v);
    else if (!strcmp(argv[i], "--competitor-step"))
      o->competitor_step = atoi(v);
    else if (!strcmp(argv[i], "--steps-csv"))
      o->steps_csv = v;
    else if (!strcmp(argv[i], "--smoothing"))
      o->smoothing = v;
    else if (!strcmp(argv[i], "--step-ms"))
      o->step_ms = atof(v);
    else
      return -1;
    i++;
  }
  return o->cells < 1 || o->steps < 2 || o->step_ms <= 0.0 || o->competitors < 0 ||
                 o->competitors > 16
             ? -1
             : 0;
}

int main(int argc, char **argv)
{
  options o;
  double wall[R_RUNS], *step_time[R_RUNS] = {NULL, NULL, NULL}, rate, iters_per_work,
                       total_work = 0.0, lost, won, rec;
  int rank, size, r, balances[R_RUNS], ncores, ok;
  long k;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (parse(argc, argv, &o) != 0) {
    if (rank == 0) fprintf(stderr, "bench_competitor: bad arguments (see the top of the source)\n");
    MPI_Finalize();
    return 2;
  }
  ncores = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (o.pin) {
    /* One core per rank, so that a competitor shares exactly one rank's
     * core (and inherits the pinning when it forks). */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(rank % (ncores > 0 ? ncores : 1), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0 && rank == 0)
      fprintf(stderr, "bench_competitor: could not pin ranks to cores; figures are unreliable\n");
  }
  rate = calibrate();
  for (k = 1; k <= o.cells; k++) total_work += ha_cell_work((ZOLTAN_ID_TYPE)k);
  /* An ideal step (every rank on its own core, no competitor) lasts step_ms. */
  iters_per_work = rate * o.step_ms * 1e-3 * size / total_work;
  if (rank == 0)
    printf("bench_competitor: %d ranks on %d cores%s, %d cells, %d steps, ideal step %.0f ms; "
           "%d real competitor process%s on rank 0 from step %d; wall time of this machine\n",
           size, ncores, o.pin ? " (one rank per core)" : "", o.cells, o.steps, o.step_ms,
           o.competitors, o.competitors == 1 ? "" : "es", o.competitor_step);
  if (rank == 0 && size > ncores)
    printf("warning: %d ranks on %d cores share cores with each other\n", size, ncores);
  for (r = 0; r < R_RUNS; r++) {
    step_time[r] = calloc((size_t)o.steps, sizeof **step_time);
    if (step_time[r] == NULL) MPI_Abort(MPI_COMM_WORLD, 2); /* a benchmark: nothing to save */
  }
  for (r = 0; r < R_RUNS; r++) {
    if (rank == 0)
      fprintf(stderr, "bench_competitor: run %d of %d: %s\n", r + 1, R_RUNS, run_name[r]);
    wall[r] = run(&o, r, iters_per_work, &balances[r], step_time[r]);
    if (wall[r] < 0.0) {
      MPI_Finalize();
      return 1;
    }
  }
  lost = wall[R_NOLB] - wall[R_BASE];
  won = wall[R_NOLB] - wall[R_LB];
  rec = lost > 0.0 ? won / lost : 0.0;
  ok = rec >= (o.competitors == 1 ? 0.5 : 0.1);
  if (rank == 0) {
    for (r = 0; r < R_RUNS; r++)
      printf("  %-34s wall %7.2f s  %5.1f ms/step  %d balances\n", run_name[r], wall[r],
             1e3 * wall[r] / o.steps, balances[r]);
    printf("claim: balancing recovers %.1f%% of the %.2f s the competitor%s cost (%.2f s -> %.2f "
           "s)\n",
           100.0 * rec, lost, o.competitors == 1 ? "" : "s", wall[R_NOLB], wall[R_LB]);
    if (o.check) printf("bench_competitor: %s\n", ok ? "the claim holds" : "the claim FAILED");
    if (o.steps_csv != NULL) {
      FILE *f = fopen(o.steps_csv, "w");
      for (r = 0; f != NULL && r < R_RUNS; r++)
        for (k = 0; k < o.steps; k++)
          fprintf(f, "%s%d,%ld,%.6f\n", r == 0 && k == 0 ? "run,step,step_time\n" : "", r, k,
                  step_time[r][k]);
      if (f != NULL) fclose(f);
    }
  }
  for (r = 0; r < R_RUNS; r++) free(step_time[r]);
  MPI_Finalize();
  return o.check && !ok ? 1 : 0;
}
