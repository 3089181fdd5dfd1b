/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * example_adaptive - the time-step loop of docs/adaptive_trigger.md on a real
 * Zoltan application.
 *
 * A row of 64 objects per rank; object g sits at x = g.  The objects of the
 * first eighth of the row (all on rank 0 at the start) get heavier every
 * step, so the imbalance grows and the trigger has to decide when balancing
 * pays.  Each object carries a counter that every step increments wherever
 * the object lives; at the end every counter must equal the number of steps
 * and every object must exist exactly once, which checks the migrations.
 *
 * The trigger gets its times in one of two ways:
 *   measured  (default) each rank burns CPU in proportion to its weight and
 *             passes the MPI_Wtime of its step; the attached trigger times
 *             the balancing calls itself.  This is what an application does,
 *             but the decisions then depend on the machine and its load.
 *   modelled  (--modelled) a rank's step time is its weight times a unit
 *             cost, and every balance, the initial one included, costs a
 *             fixed C reported with adaptive_balance_done.  The decisions are
 *             then a function of the model alone, the same on every run and
 *             every machine, which is what a test can assert.
 *
 * Usage: example_adaptive [--modelled [--unit-cost S] [--lb-cost S]]
 *                         [POLICY [LB_METHOD [STEPS [TRACE.csv]]]]
 * (defaults ZHAI, RCB, 200, no trace; unit cost 1e-3 s, balance cost 0.1 s).
 * Exit status 0 when the checks pass, 1 when one fails, 2 on bad arguments.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <zoltan.h>

#include <zoltan_plugins/adaptive_trigger.h>

#define OBJ_PER_RANK      64
#define WORK_PER_UNIT     3000 /* inner iterations per unit of weight */
#define HOT_GROWTH        0.05 /* weight added per step to a hot object */
#define DEFAULT_UNIT_COST 1e-3 /* modelled seconds per unit of weight and step */
#define DEFAULT_LB_COST   0.1  /* modelled seconds per balance */

/* The objects this rank owns. */
typedef struct app {
  int n, cap;           /* number of objects, allocated slots */
  ZOLTAN_ID_TYPE *gid;  /* global IDs, 1 .. total */
  double *count;        /* steps computed on the object so far */
  ZOLTAN_ID_TYPE total; /* objects over all ranks */
  int step;             /* current step, for the weights */
} app;

static double weight(const app *a, ZOLTAN_ID_TYPE g)
{
  return g <= a->total / 8 ? 1.0 + HOT_GROWTH * a->step : 1.0;
}

static int grow(app *a, int need)
{
  if (need > a->cap) {
    int cap = need * 2;
    ZOLTAN_ID_TYPE *g = realloc(a->gid, (size_t)cap * sizeof *g);
    double *c;
    if (!g) return -1;
    a->gid = g;
    c = realloc(a->count, (size_t)cap * sizeof *c);
    if (!c) return -1;
    a->count = c;
    a->cap = cap;
  }
  return 0;
}

/* ---- Zoltan callbacks ---- */

static int num_obj(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((app *)d)->n;
}

static void obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                     float *w, int *ierr)
{
  app *a = d;
  int i;
  (void)ng;
  (void)nl;
  for (i = 0; i < a->n; i++) {
    gids[i] = a->gid[i];
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i] = (float)weight(a, a->gid[i]);
  }
  *ierr = ZOLTAN_OK;
}

static int num_geom(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 1;
}

static void geom_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                       int dim, double *x, int *ierr)
{
  int i;
  (void)d;
  (void)ng;
  (void)nl;
  (void)lids;
  (void)dim;
  for (i = 0; i < n; i++) x[i] = (double)gids[i];
  *ierr = ZOLTAN_OK;
}

static int obj_size(void *d, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int *ierr)
{
  (void)d;
  (void)ng;
  (void)nl;
  (void)gid;
  (void)lid;
  *ierr = ZOLTAN_OK;
  return (int)sizeof(double);
}

static void pack_obj(void *d, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int dest,
                     int size, char *buf, int *ierr)
{
  app *a = d;
  (void)ng;
  (void)nl;
  (void)gid;
  (void)dest;
  (void)size;
  memcpy(buf, &a->count[*lid], sizeof(double));
  *ierr = ZOLTAN_OK;
}

/* Drops the exported objects before the imports arrive. */
static void mid_migrate(void *d, int ng, int nl, int nimp, ZOLTAN_ID_PTR igid, ZOLTAN_ID_PTR ilid,
                        int *iproc, int *ipart, int nexp, ZOLTAN_ID_PTR egid, ZOLTAN_ID_PTR elid,
                        int *eproc, int *epart, int *ierr)
{
  app *a = d;
  int i, k = 0;
  (void)ng;
  (void)nl;
  (void)nimp;
  (void)igid;
  (void)ilid;
  (void)iproc;
  (void)ipart;
  (void)egid;
  (void)eproc;
  (void)epart;
  for (i = 0; i < nexp; i++) a->gid[elid[i]] = 0; /* 0 is never a used ID */
  for (i = 0; i < a->n; i++) {
    if (a->gid[i] == 0) continue;
    a->gid[k] = a->gid[i];
    a->count[k] = a->count[i];
    k++;
  }
  a->n = k;
  *ierr = ZOLTAN_OK;
}

static void unpack_obj(void *d, int ng, ZOLTAN_ID_PTR gid, int size, char *buf, int *ierr)
{
  app *a = d;
  (void)ng;
  (void)size;
  if (grow(a, a->n + 1) != 0) {
    *ierr = ZOLTAN_MEMERR;
    return;
  }
  a->gid[a->n] = *gid;
  memcpy(&a->count[a->n], buf, sizeof(double));
  a->n++;
  *ierr = ZOLTAN_OK;
}

/* One time step on the local objects; returns their total weight, the work
 * of the step.  With burn, the CPU does work proportional to each weight;
 * the modelled run leaves that out, since its times come from the weights
 * and the busy loop would only slow down the machine's other users. */
static double compute(app *a, int burn)
{
  volatile double acc = 0.0;
  double work = 0.0;
  int i, k, iters;
  for (i = 0; i < a->n; i++) {
    double w = weight(a, a->gid[i]);
    iters = burn ? (int)(w * WORK_PER_UNIT) : 0;
    for (k = 0; k < iters; k++) acc = acc * 0.999 + 1e-3;
    a->count[i] += 1.0;
    work += w;
  }
  return work;
}

static int balance(struct Zoltan_Struct *zz)
{
  int changes, ngid, nlid, nimp, nexp, *iproc, *ipart, *eproc, *epart, rc;
  ZOLTAN_ID_PTR igid, ilid, egid, elid;
  /* AUTO_MIGRATE is on: Zoltan moves the objects through the callbacks. */
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &igid, &ilid, &iproc, &ipart, &nexp,
                           &egid, &elid, &eproc, &epart);
  Zoltan_LB_Free_Part(&igid, &ilid, &iproc, &ipart);
  Zoltan_LB_Free_Part(&egid, &elid, &eproc, &epart);
  return rc;
}

/* How the times given to the trigger are obtained (see the top comment). */
typedef struct timing {
  int modelled;     /* 1: times from the model; 0: measured with MPI_Wtime */
  double unit_cost; /* modelled seconds per unit of weight and step */
  double lb_cost;   /* modelled seconds per balance */
} timing;

/* Reads a finite number >= lo (or > lo when strict) into *out; 0 or -1. */
static int parse_number(const char *s, double lo, int strict, double *out)
{
  char *end;
  double v;
  if (s == NULL) return -1;
  errno = 0;
  v = strtod(s, &end);
  if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || v < lo || (strict && v == lo))
    return -1;
  *out = v;
  return 0;
}

/* Reads the options and the positional arguments (POLICY, LB_METHOD, STEPS,
 * TRACE) into tm, pos and *nsteps.  Returns 0, or -1 after printing why on
 * rank 0; every rank parses the same arguments, so all agree. */
static int parse_args(int argc, char **argv, int rank, timing *tm, const char *pos[4], int *nsteps)
{
  int i, npos = 0;
  long n;
  char *end;
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--modelled") == 0) {
      tm->modelled = 1;
    } else if (strcmp(arg, "--unit-cost") == 0 || strcmp(arg, "--lb-cost") == 0) {
      int unit = strcmp(arg, "--unit-cost") == 0;
      const char *v = i + 1 < argc ? argv[++i] : NULL;
      /* A zero unit cost would make every step free and every decision moot. */
      if (parse_number(v, 0.0, unit, unit ? &tm->unit_cost : &tm->lb_cost) != 0) {
        if (rank == 0)
          fprintf(stderr, "example_adaptive: %s %s: give seconds %s 0\n", arg, v ? v : "(missing)",
                  unit ? ">" : ">=");
        return -1;
      }
    } else if (strncmp(arg, "--", 2) == 0 || npos == 4) {
      if (rank == 0) fprintf(stderr, "example_adaptive: unexpected argument '%s'\n", arg);
      return -1;
    } else {
      pos[npos++] = arg;
    }
  }
  errno = 0;
  n = strtol(pos[2], &end, 10);
  if (end == pos[2] || *end != '\0' || errno != 0 || n < 1 || n > 1000000) {
    if (rank == 0)
      fprintf(stderr, "example_adaptive: STEPS = %s: give a whole number in [1, 1000000]\n",
              pos[2]);
    return -1;
  }
  *nsteps = (int)n;
  return 0;
}

int main(int argc, char **argv)
{
  const char *pos[4] = {"ZHAI", "RCB", "200", NULL}; /* POLICY, LB_METHOD, STEPS, TRACE */
  timing tm = {0, DEFAULT_UNIT_COST, DEFAULT_LB_COST};
  const char *policy, *method, *trace;
  struct Zoltan_Struct *zz = NULL;
  adaptive_trigger *t = NULL;
  app a;
  float ver;
  int rank, size, i, step, nsteps = 0, rc = 0, bad = 0, nbal = 0;
  double t_start, wall, local_w, max_w, sum_w, sum_tmax = 0.0;
  long total_n, local_n;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (parse_args(argc, argv, rank, &tm, pos, &nsteps) != 0) {
    if (rank == 0)
      fprintf(stderr, "usage: example_adaptive [--modelled [--unit-cost S] [--lb-cost S]] "
                      "[POLICY [LB_METHOD [STEPS [TRACE.csv]]]]\n");
    MPI_Finalize();
    return 2;
  }
  policy = pos[0];
  method = pos[1];
  trace = pos[3];
  memset(&a, 0, sizeof a);
  a.total = (ZOLTAN_ID_TYPE)(OBJ_PER_RANK * size);
  if (grow(&a, OBJ_PER_RANK) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  for (i = 0; i < OBJ_PER_RANK; i++) {
    a.gid[i] = (ZOLTAN_ID_TYPE)(rank * OBJ_PER_RANK + i + 1);
    a.count[i] = 0.0;
  }
  a.n = OBJ_PER_RANK;

  Zoltan_Initialize(argc, argv, &ver);
  zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "LB_METHOD", method);
  Zoltan_Set_Param(zz, "LB_APPROACH", "REPARTITION");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, &a);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, &a);
  Zoltan_Set_Num_Geom_Fn(zz, num_geom, &a);
  Zoltan_Set_Geom_Multi_Fn(zz, geom_multi, &a);
  Zoltan_Set_Obj_Size_Fn(zz, obj_size, &a);
  Zoltan_Set_Pack_Obj_Fn(zz, pack_obj, &a);
  Zoltan_Set_Unpack_Obj_Fn(zz, unpack_obj, &a);
  Zoltan_Set_Mid_Migrate_PP_Fn(zz, mid_migrate, &a);

  /* The trigger, attached so that every balancing call is timed. */
  t = adaptive_create(MPI_COMM_WORLD);
  if (!t) MPI_Abort(MPI_COMM_WORLD, 2);
  if (adaptive_set_param(t, "ADAPTIVE_POLICY", policy) != ZOLTAN_OK ||
      (trace && adaptive_set_param(t, "ADAPTIVE_TRACE_FILE", trace) != ZOLTAN_OK) ||
      adaptive_attach(t, zz) != ZOLTAN_OK)
    MPI_Abort(MPI_COMM_WORLD, 2);
  if (tm.modelled && rank == 0)
    /* The hot objects gain HOT_GROWTH each per step; even all on one rank,
     * they cannot make the slowest step grow faster than this. */
    printf("example_adaptive: modelled time: unit cost %.9g s, balance cost %.9g s, "
           "T_max grows by at most %.9g s per step\n",
           tm.unit_cost, tm.lb_cost, tm.unit_cost * HOT_GROWTH * (double)(a.total / 8));

  /* The initial partition is itself a balance: it seeds C.  Attached, the
   * trigger measures it; a cost given by adaptive_balance_done (the model's)
   * replaces that measurement. */
  if (balance(zz) != ZOLTAN_OK) MPI_Abort(MPI_COMM_WORLD, 3);
  if (tm.modelled && adaptive_balance_done(t, tm.lb_cost) != ZOLTAN_OK)
    MPI_Abort(MPI_COMM_WORLD, 4);

  t_start = MPI_Wtime();
  for (step = 0; step < nsteps; step++) {
    double t0, dt, work;
    adaptive_record rec;
    a.step = step;
    t0 = MPI_Wtime();
    work = compute(&a, !tm.modelled);
    dt = tm.modelled ? work * tm.unit_cost : MPI_Wtime() - t0;
    rc = adaptive_should_balance(t, dt); /* collective, same answer everywhere */
    if (rc < 0) MPI_Abort(MPI_COMM_WORLD, 4);
    /* The newest record is this step's, with T_max over the ranks. */
    if (adaptive_history(t, &rec, 1) >= 1) sum_tmax += rec.t_max;
    if (rc == 1) {
      if (balance(zz) != ZOLTAN_OK) MPI_Abort(MPI_COMM_WORLD, 3);
      nbal++;
      /* Measured: nothing to do, the attached trigger timed the call. */
      if (tm.modelled && adaptive_balance_done(t, tm.lb_cost) != ZOLTAN_OK)
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
  }
  wall = MPI_Wtime() - t_start;

  /* Checks: every object exactly once, every counter equal to nsteps. */
  local_n = a.n;
  MPI_Allreduce(&local_n, &total_n, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (total_n != (long)a.total) bad = 1;
  for (i = 0; i < a.n; i++)
    if (a.count[i] != (double)nsteps || a.gid[i] < 1 || a.gid[i] > a.total) bad = 1;
  /* The trigger counts the initial balance too; a balance in the last step
   * is committed only by a next adaptive_should_balance, which never came. */
  if (adaptive_num_balances(t) != nbal + 1 - (rc == 1)) bad = 1;
  /* Every balance cost the model's C, so their running average is C: a
   * measured time that leaked into C would change it. */
  if (tm.modelled && fabs(adaptive_balance_cost(t) - tm.lb_cost) > 1e-12 * tm.lb_cost) bad = 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  local_w = 0.0;
  for (i = 0; i < a.n; i++) local_w += weight(&a, a.gid[i]);
  MPI_Allreduce(&local_w, &max_w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&local_w, &sum_w, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("example_adaptive: policy %s, LB_METHOD %s, %d ranks, %d steps: %d balances, "
           "C = %.3g s, final imbalance max/avg weight = %.3f, ",
           policy, method, size, nsteps, nbal, adaptive_balance_cost(t), max_w / (sum_w / size));
    if (tm.modelled)
      printf("modelled time %.4f s (steps %.4f s + balances %.4f s)", sum_tmax + nbal * tm.lb_cost,
             sum_tmax, nbal * tm.lb_cost);
    else
      printf("loop %.3f s", wall);
    printf(": %s\n", bad ? "CHECK FAILED" : "OK");
  }

  adaptive_destroy(&t);
  Zoltan_Destroy(&zz);
  free(a.gid);
  free(a.count);
  MPI_Finalize();
  return bad ? 1 : 0;
}
