/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LB_METHOD=ULBA through the plain Zoltan API.
 *
 * Workload: a SIDE x SIDE grid of objects on the unit square, rank r
 * starting with the r-th band of rows.  The GROW objects of the 4 x 4 block
 * at the origin corner gain GROWTH weight units at every step; all other
 * objects keep weight 1.  The program balances once per step with
 * AUTO_MIGRATE and checks, after every balance:
 *   - conservation: every GID exactly once on the communicator, count and
 *     total weight unchanged;
 *   - from the second balance on (the first has no increase rate yet), the
 *     part holding the growing objects holds at least 90% of their weight
 *     (geometric bases) and its load is (1 - alpha) W / P within SHARE_TOL;
 *     ulba_last_model reports N = 1, that part, and the alpha used;
 *   - from the third balance on, one base run per balance.
 * Modes (argv[1]): "growth BASE [FIRST [RELABEL]]" runs the above with
 * ULBA_BASE_METHOD=BASE (FIRST for the first balance: a base that numbers
 * its parts differently, so that relabelling is needed; ULBA_RELABEL=RELABEL);
 * "trigger BASE" does the same with an attached adaptive trigger that records
 * SUBSTEPS steps per balance, so that ULBA takes per-step rates from it
 * (ALPHA may be AUTO, which then uses the trigger's cost and speed);
 * "object BASE" runs ULBA_GROWTH=OBJECT (alpha 0.5) with the trigger and a
 * faster growth (OBJ_GROWTH per balance), and checks from the second
 * balance on that one base run was made and that every part holds the load
 * the anticipated weights give it: W'/P minus H times the growth of its
 * objects beyond their share of the total growth (ulba_anticipate), with H
 * = alpha x the steps of the interval, computed here from the known rates;
 * a run on the plain weights misses that by a quarter of W/P;
 * "front ALPHA" checks that ULBA_ALPHA=AUTO keeps the growth in the part it
 * underloads when the growing objects lie inside a part's edge (run_front);
 * "bounds GROWTH" checks that a large alpha with heavy objects lowers the
 * underloading instead of failing where Zoltan's RCB refuses (run_bounds);
 * "alpha0" checks that ULBA_ALPHA=0 gives exactly RCB's assignment;
 * "badparams" checks the errors for bad parameter values.
 * Exit 0 only if every check passed on every rank.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "adaptive_trigger.h"
#include "ulba_grid.h"
#include "ulba_zoltan.h"

#define SIDE    40            /* the objects form a SIDE x SIDE grid on [0, 1]^2 */
#define NUM_OBJ (SIDE * SIDE) /* objects in the whole problem */
#define GROW    16            /* growing objects: a 4 x 4 corner block of rank 0 */
#define GROWTH  0.25          /* weight added to a growing object per step */
#define STEPS   6             /* balances per run */
#define ALPHA   0.4           /* ULBA_ALPHA of the growth runs */
/*
 * Tolerance on the underloaded part's share of W / P.  Sources of error:
 * IMBALANCE_TOL = 1.01 lets the base method miss a target by 1% of the part
 * load; a part boundary can be off by one object, at most 2.25 weight units
 * against an average part load of 100 (2.25% at 16 ranks, less with fewer);
 * HSFC's curve bins add about 1%.  0.05 covers their sum and is eight times
 * smaller than alpha, so a run without underloading (share 1) or with the
 * small size on another part (share >= 1) fails.
 */
#define SHARE_TOL 0.05

typedef grid_obj obj;
typedef grid_app app;
#define CHECK GRID_CHECK

static void make_objects(app *a, int rank, int size) { grid_make(a, rank, size, NUM_OBJ, SIDE); }

static void check_conservation(const app *a, double total_w)
{
  grid_check_conservation(a, NUM_OBJ, total_w);
}

/* Steps per balance with an attached trigger (mode "trigger"). */
#define SUBSTEPS 3
/* The cost of a balance reported to the trigger in mode "trigger", in
 * seconds (100 weight units at the step times below).  A model rather than
 * the attached trigger's measurement of the Zoltan call: ULBA_ALPHA=AUTO
 * weighs this cost, so a measured one made the chosen alpha, and the checks
 * that follow from it, depend on the machine's load. */
#define LB_COST 0.1

/* With ULBA_GROWTH_VERBOSE set: the model of a balance and the growing
 * weight of each part. */
static void print_model(int step, const ulba_model_info *info, const double *gws, int size)
{
  printf("step %d N %g alpha %g small %d base runs %d C %g omega %g s- %g s+ %g tau %g, "
         "growing weight by part:",
         step, info->N, info->alpha, info->small_part, info->base_runs, info->C, info->omega,
         info->sigma_minus, info->sigma_plus, info->tau);
  for (int p = 0; p < size; p++) printf(" %g", gws[p]);
  printf("\n");
}

/* Mode "trigger": SUBSTEPS steps in which the growing objects gain GROWTH
 * in all, each reported to the trigger, which must decide to balance at the
 * last one only (ADAPTIVE_PERIOD = SUBSTEPS). */
/* One step of the application: the growing objects gain `gain`, every
 * object's load is reported to the trigger, and the step takes 1 ms per
 * weight unit of this rank.  Returns the trigger's decision. */
static int report_step(adaptive_trigger *trig, app *a, double gain)
{
  ZOLTAN_ID_TYPE *g = malloc(((size_t)a->n + 1) * sizeof *g);
  double *l = malloc(((size_t)a->n + 1) * sizeof *l), mine = 0.0;
  int d;
  for (int i = 0; i < a->n; i++) {
    if (a->o[i].grows) a->o[i].w += gain;
    g[i] = a->o[i].gid;
    l[i] = a->o[i].w;
    mine += l[i];
  }
  CHECK(adaptive_report_objects(trig, a->n, 1, g, l) == ZOLTAN_OK, "report_objects");
  d = adaptive_should_balance(trig, 1e-3 * mine);
  free(g);
  free(l);
  return d;
}

static void trigger_steps(adaptive_trigger *trig, app *a, int step)
{
  for (int sub = 0; sub < SUBSTEPS; sub++) {
    int d = report_step(trig, a, GROWTH / SUBSTEPS);
    CHECK(d == (sub == SUBSTEPS - 1), "step %d.%d: trigger said %d", step, sub, d);
  }
}

static int run_growth(const char *base, const char *first_base, const char *relabel,
                      int use_trigger, const char *alpha, int rank, int size)
{
  int is_auto = strcmp(alpha, "AUTO") == 0;
  adaptive_trigger *trig = NULL;
  app a;
  struct Zoltan_Struct *zz;
  double total_w = (double)NUM_OBJ;
  int geometric = strcmp(base, "GREEDY") != 0;
  make_objects(&a, rank, size);
  zz = grid_zz(&a, "ULBA");
  CHECK(Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", first_base) == ZOLTAN_OK, "base %s refused",
        first_base);
  CHECK(Zoltan_Set_Param(zz, "ULBA_RELABEL", relabel) == ZOLTAN_OK, "relabel %s refused", relabel);
  CHECK(Zoltan_Set_Param(zz, "ULBA_ALPHA", alpha) == ZOLTAN_OK, "alpha %s refused", alpha);
  /* These runs check the paper's ULBA (Eq. 6 sizes, relabelling); with a
   * trigger the default, growth per object, would take over. */
  CHECK(Zoltan_Set_Param(zz, "ULBA_GROWTH", "PART") == ZOLTAN_OK, "ULBA_GROWTH=PART refused");
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  if (use_trigger) {
    /* The trigger records the object loads of every step; it decides on a
     * balance every SUBSTEPS steps, when this program balances anyway. */
    trig = adaptive_create(MPI_COMM_WORLD);
    CHECK(trig != NULL, "adaptive_create failed");
    CHECK(adaptive_set_param(trig, "ADAPTIVE_POLICY", "PERIODIC") == ZOLTAN_OK, "policy");
    CHECK(adaptive_set_param(trig, "ADAPTIVE_PERIOD", "3") == ZOLTAN_OK, "period");
    CHECK(adaptive_attach(trig, zz) == ZOLTAN_OK, "adaptive_attach failed");
  }
  for (int step = 0; step < STEPS; step++) {
    double load = 0.0, gw = 0.0, *loads = NULL, *gws = NULL;
    ulba_model_info info;
    int rc;
    /* The first balance may use another base method, which numbers the parts
     * its own way; the history is kept across the switch. */
    if (step == 1) Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", base);
    rc = grid_partition(zz);
    CHECK(rc == ZOLTAN_OK, "%s step %d: Zoltan_LB_Partition returned %d", base, step, rc);
    if (rc != ZOLTAN_OK) break;
    if (use_trigger)
      CHECK(adaptive_balance_done(trig, LB_COST) == ZOLTAN_OK, "adaptive_balance_done");
    grid_compact(&a);
    check_conservation(&a, total_w);
    CHECK(ulba_last_model(zz, &info) == ZOLTAN_OK, "ulba_last_model failed");
    for (int i = 0; i < a.n; i++) {
      load += a.o[i].w;
      if (a.o[i].grows) gw += a.o[i].w;
    }
    loads = malloc((size_t)size * sizeof *loads);
    gws = malloc((size_t)size * sizeof *gws);
    MPI_Allgather(&load, 1, MPI_DOUBLE, loads, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Allgather(&gw, 1, MPI_DOUBLE, gws, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    if (rank == 0 && getenv("ULBA_GROWTH_VERBOSE") != NULL) print_model(step, &info, gws, size);
    if (step == 0) {
      /* No increase rate is known at the first balance: plain base method. */
      CHECK(info.source == ULBA_SOURCE_NONE && info.alpha == 0.0,
            "%s: first balance used source %d alpha %g", base, info.source, info.alpha);
    } else {
      /* Parts are ranks (NUM_GLOBAL_PARTS = size), so part p lives on rank p. */
      int g = 0;
      double gtot = 0.0, avg = total_w / size, share;
      for (int p = 0; p < size; p++) {
        gtot += gws[p];
        if (gws[p] > gws[g]) g = p;
      }
      CHECK(info.source == (use_trigger ? ULBA_SOURCE_TRIGGER : ULBA_SOURCE_WEIGHTS),
            "%s step %d: source %d", base, step, info.source);
      CHECK(info.P == size, "P %g", info.P);
      CHECK(fabs(info.W - total_w) <= 1e-6 * total_w, "W %g, expected %g", info.W, total_w);
      if (is_auto) {
        /* AUTO stays in [0, 0.9] (the adapter's cap) and is used unless half
         * of the parts overload.  The chosen alpha may let the base method cut
         * through the growing block, so the block checks below do not apply;
         * but AUTO keeps at least half of the growth in the small part. */
        CHECK(info.alpha_param >= 0.0 && info.alpha_param <= 0.9, "AUTO alpha %g",
              info.alpha_param);
        CHECK(info.alpha == (2 * info.N < info.P && info.N > 0 ? info.alpha_param : 0.0),
              "AUTO: alpha used %g, chosen %g, N %g", info.alpha, info.alpha_param, info.N);
        if (info.alpha > 0.0 && info.N == 1.0 && info.small_part >= 0 && info.small_part < size)
          CHECK(gws[info.small_part] >= 0.5 * gtot,
                "AUTO step %d: the small part %d holds %g of the growing weight %g", step,
                info.small_part, gws[info.small_part], gtot);
      } else if (geometric) {
        /* The growing block stays together, so exactly one part overloads
         * and it receives the small size. */
        CHECK(info.N == 1.0 && fabs(info.alpha - ALPHA) < 1e-12, "%s step %d: N %g alpha %g", base,
              step, info.N, info.alpha);
        CHECK(gws[g] >= 0.9 * gtot, "%s step %d: growing objects split, part %d has %g of %g", base,
              step, g, gws[g], gtot);
        CHECK(info.small_part == g, "%s step %d: small part %d but growing objects in %d", base,
              step, info.small_part, g);
        /* The rate measured is the growth of one interval, GROW * GROWTH, or
         * with the trigger of one step, GROW * GROWTH / SUBSTEPS.  Zoltan
         * passes weights as floats: allow their rounding. */
        double m_expect = GROW * GROWTH / (use_trigger ? SUBSTEPS : 1);
        CHECK(fabs(info.m - m_expect) < 1e-3 && fabs(info.a) < 1e-3,
              "%s step %d: a %g m %g, expected 0 and %g", base, step, info.a, info.m, m_expect);
      }
      if (info.alpha > 0.0 && info.m > 0.0) {
        /* Eq. (8) by hand from the reported quantities. */
        double x = (1.0 + info.N / (info.P - info.N)) * info.alpha * info.W / (info.m * info.P);
        CHECK(info.sigma_minus == floor(x) || fabs(x - floor(x + 0.5)) < 1e-9,
              "sigma_minus %g, Eq. (8) gives floor(%g)", info.sigma_minus, x);
        CHECK(info.sigma_plus >= info.sigma_minus, "sigma_plus %g < sigma_minus %g",
              info.sigma_plus, info.sigma_minus);
      }
      /* A ULBA balance runs its base method once when the labels of the
       * last balance still fit, from the third balance on (the second
       * follows the first base's other numbering; at 16 ranks it takes 2
       * runs with RCB and HSFC, 4 with GREEDY, and so do the later ones
       * when the last labels are not used as the first guess). */
      if (info.alpha > 0.0 && step >= 2 && strcmp(relabel, "1") == 0)
        CHECK(info.base_runs == 1, "%s step %d: %d base runs, expected 1", base, step,
              info.base_runs);
      CHECK(info.base_runs >= 1, "%s step %d: %d base runs", base, step, info.base_runs);
      if (info.alpha > 0.0) {
        int sp = info.small_part;
        CHECK(sp >= 0 && sp < size, "small part %d", sp);
        if (sp >= 0 && sp < size) {
          share = loads[sp] / avg;
          CHECK(fabs(share - (1.0 - info.alpha)) <= SHARE_TOL,
                "%s step %d: part %d holds %.4f of the average, expected %.4f +- %.2f", base, step,
                sp, share, 1.0 - info.alpha, SHARE_TOL);
          if (rank == 0)
            printf("%s step %d: part %d share %.4f (target %.2f), growing %.0f%%\n", base, step, sp,
                   share, 1.0 - info.alpha, gtot > 0 ? 100.0 * gws[sp] / gtot : 0.0);
        }
      }
    }
    free(loads);
    free(gws);
    /* The application's steps: the growing objects gain weight. */
    if (!use_trigger) {
      for (int i = 0; i < a.n; i++)
        if (a.o[i].grows) a.o[i].w += GROWTH;
    } else {
      trigger_steps(trig, &a, step);
    }
    total_w += GROW * GROWTH;
  }
  if (trig != NULL) adaptive_destroy(&trig);
  Zoltan_Destroy(&zz);
  free(a.o);
  return 0;
}

/* Weight a growing object gains per balance in mode "object" (in SUBSTEPS
 * steps): fast, so that the anticipated load is far from W/P. */
#define OBJ_GROWTH 30.0
/* Tolerance on a part's load in mode "object", as a share of W/P: the base
 * method's IMBALANCE_TOL (1.01) and RCB's median search, plus one object at
 * a cut (the heaviest object over W/P, added at each step). */
#define OBJ_TOL 0.02

static int run_object(const char *base, int rank, int size)
{
  adaptive_trigger *trig = adaptive_create(MPI_COMM_WORLD);
  app a;
  struct Zoltan_Struct *zz;
  double total_w = (double)NUM_OBJ, alpha = 0.5;
  make_objects(&a, rank, size);
  zz = grid_zz(&a, "ULBA");
  CHECK(Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", base) == ZOLTAN_OK, "base %s refused", base);
  CHECK(Zoltan_Set_Param(zz, "ULBA_GROWTH", "OBJECT") == ZOLTAN_OK, "ULBA_GROWTH refused");
  CHECK(Zoltan_Set_Param(zz, "ULBA_ALPHA", "0.5") == ZOLTAN_OK, "alpha refused");
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  CHECK(trig != NULL, "adaptive_create failed");
  adaptive_set_param(trig, "ADAPTIVE_POLICY", "PERIODIC");
  adaptive_set_param(trig, "ADAPTIVE_PERIOD", "3");
  CHECK(adaptive_attach(trig, zz) == ZOLTAN_OK, "adaptive_attach failed");
  for (int step = 0; step < STEPS; step++) {
    /* Per part: load before the balance is not needed; the expected
     * anticipation is computed from the weights at the balance. */
    double ext[2] = {0.0, 0.0}, G, H, *extra = calloc((size_t)size, sizeof *extra);
    double *load = calloc((size_t)size, sizeof *load);
    ulba_model_info info;
    int rc, g_rate_known = step > 0;
    /* Every object's growth rate per step, and the totals of the
     * anticipation: G over all objects, W the total weight now. */
    G = g_rate_known ? GROW * OBJ_GROWTH / SUBSTEPS : 0.0;
    H = alpha * SUBSTEPS;
    rc = grid_partition(zz);
    CHECK(rc == ZOLTAN_OK, "%s step %d: Zoltan_LB_Partition returned %d", base, step, rc);
    if (rc != ZOLTAN_OK) break;
    CHECK(adaptive_balance_done(trig, LB_COST) == ZOLTAN_OK, "adaptive_balance_done");
    grid_compact(&a);
    check_conservation(&a, total_w);
    CHECK(ulba_last_model(zz, &info) == ZOLTAN_OK, "ulba_last_model failed");
    for (int i = 0; i < a.n; i++) {
      double gi = a.o[i].grows && g_rate_known ? OBJ_GROWTH / SUBSTEPS : 0.0;
      double e = gi - G * a.o[i].w / total_w;
      /* Parts are ranks: the objects here are in part `rank`. */
      load[rank] += a.o[i].w;
      extra[rank] += H * e;
    }
    MPI_Allreduce(MPI_IN_PLACE, load, size, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, extra, size, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (step >= 1) {
      double avg = total_w / size, worst = 0.0, top = 0.0, maxw = 0.0, tol;
      for (int i = 0; i < a.n; i++) maxw = a.o[i].w > maxw ? a.o[i].w : maxw;
      MPI_Allreduce(MPI_IN_PLACE, &maxw, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      tol = OBJ_TOL + maxw / avg;
      CHECK(info.source == ULBA_SOURCE_TRIGGER, "step %d: source %d", step, info.source);
      CHECK(info.base_runs == 1, "%s step %d: %d base runs, expected 1", base, step,
            info.base_runs);
      for (int p = 0; p < size; p++) {
        /* The base method balanced load + extra to avg (the extras sum to
         * zero), so the load is avg - extra. */
        double dev = fabs(load[p] - (avg - extra[p])) / avg;
        worst = dev > worst ? dev : worst;
        top = extra[p] > top ? extra[p] : top;
      }
      CHECK(worst <= tol,
            "%s step %d: a part's load is %.3f of W/P from the anticipated one (tolerance %.3f)",
            base, step, worst, tol);
      /* The check can fail: at the first anticipating balance the extra of
       * the growing part is well beyond the tolerance. */
      if (step == 1)
        CHECK(top / avg > tol, "%s step %d: extra %.3f of W/P too small to test (tol %.3f)", base,
              step, top / avg, tol);
      ext[0] = top / avg;
      ext[1] = worst;
      if (rank == 0)
        printf("%s step %d: largest anticipated extra %.3f of W/P, worst part off by %.3f, "
               "model alpha %.3f N %g\n",
               base, step, ext[0], ext[1], info.alpha, info.N);
    }
    free(load);
    free(extra);
    for (int sub = 0; sub < SUBSTEPS; sub++) report_step(trig, &a, OBJ_GROWTH / SUBSTEPS);
    total_w += GROW * OBJ_GROWTH;
  }
  adaptive_destroy(&trig);
  Zoltan_Destroy(&zz);
  free(a.o);
  return 0;
}

/*
 * Mode "front ALPHA": FRONT_PARTS parts (any rank count: parts as PEs) cut
 * a grid of FRONT_COLS x FRONT_ROWS objects into stripes along x (the
 * objects' y is squeezed, so RCB cuts x only), and the growing objects are
 * one column of the last stripe, at 0.3-0.4 of its width from its left edge,
 * as the eroding face of a rock is in the erosion benchmark.  Underloading
 * the last part by alpha moves its left cut right by about alpha of its
 * width, so an alpha above 0.4 gives the growing column to its neighbour,
 * whose size is above the average.  ULBA_LB_COST is huge, so that
 * ULBA_ALPHA=AUTO's model asks for its largest alpha (0.9).
 *   ALPHA = AUTO: from the second balance on, the underloading is used
 *   (0 < alpha < 0.9) and its part holds at least half of the growing
 *   objects (AUTO halves alpha until it does);
 *   ALPHA fixed (0.9): some balance leaves most of the growing objects
 *   outside the small part, so the geometry does test the above.
 * The objects stay on their ranks (RETURN_LISTS=PARTS, no migration).
 */
#define FRONT_PARTS   8
#define FRONT_COLS    80
#define FRONT_ROWS    10
#define FRONT_OBJ     (FRONT_COLS * FRONT_ROWS)
#define FRONT_LB_COST "1e9"

/* Balance zz and store every local object's new part in the objects. */
static int front_balance(struct Zoltan_Struct *zz, app *a)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa;
  ZOLTAN_ID_PTR ig, il, eg, el;
  int rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                               &el, &ep, &epa);
  if (rc != ZOLTAN_OK) return rc;
  CHECK(nexp == a->n, "RETURN_LISTS=PARTS listed %d of %d objects", nexp, a->n);
  for (int k = 0; k < nexp; k++) a->o[el[k]].part = epa[k];
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  return rc;
}

/* The front's grid on this rank and its ULBA struct: FRONT_PARTS parts,
 * RETURN_LISTS=PARTS, ULBA_GROWTH=growth; the growing objects are the
 * column at 0.3 of the last stripe (only its first object with one_object),
 * *all_grow of them on all ranks.  Collective. */
static struct Zoltan_Struct *front_zz(app *a, int rank, int size, int one_object,
                                      const char *growth, int *all_grow)
{
  struct Zoltan_Struct *zz;
  char nparts[16];
  int ngrow = 0;
  int gcol = (FRONT_PARTS - 1) * FRONT_COLS / FRONT_PARTS + 3 * FRONT_COLS / (10 * FRONT_PARTS);
  grid_make(a, rank, size, FRONT_OBJ, FRONT_COLS);
  for (int i = 0; i < a->n; i++) {
    int g = (int)a->o[i].gid - 1, col = g % FRONT_COLS, row = g / FRONT_COLS;
    a->o[i].x = col + 0.5;
    a->o[i].y = 1e-3 * row;
    a->o[i].grows = col == gcol && (!one_object || row == 0);
    a->o[i].part = (int)((long)rank * FRONT_PARTS / size);
    ngrow += a->o[i].grows;
  }
  MPI_Allreduce(&ngrow, all_grow, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  zz = grid_zz(a, "ULBA");
  grid_track_parts(zz, a);
  snprintf(nparts, sizeof nparts, "%d", FRONT_PARTS);
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", nparts);
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  CHECK(Zoltan_Set_Param(zz, "ULBA_GROWTH", growth) == ZOLTAN_OK, "ULBA_GROWTH %s refused", growth);
  return zz;
}

static int run_front(const char *alpha, int rank, int size)
{
  app a;
  struct Zoltan_Struct *zz;
  double total_w = (double)FRONT_OBJ, worst = 1.0;
  int is_auto = strcmp(alpha, "AUTO") == 0, all_grow = 0;
  zz = front_zz(&a, rank, size, 0, "PART", &all_grow);
  CHECK(Zoltan_Set_Param(zz, "ULBA_ALPHA", alpha) == ZOLTAN_OK, "alpha %s refused", alpha);
  CHECK(Zoltan_Set_Param(zz, "ULBA_LB_COST", FRONT_LB_COST) == ZOLTAN_OK, "lb cost refused");
  for (int step = 0; step < STEPS; step++) {
    ulba_model_info info;
    int rc = front_balance(zz, &a), counts[FRONT_PARTS] = {0};
    CHECK(rc == ZOLTAN_OK, "front %s step %d: Zoltan_LB_Partition returned %d", alpha, step, rc);
    if (rc != ZOLTAN_OK) break;
    CHECK(ulba_last_model(zz, &info) == ZOLTAN_OK, "ulba_last_model failed");
    for (int i = 0; i < a.n; i++)
      if (a.o[i].grows && a.o[i].part >= 0 && a.o[i].part < FRONT_PARTS) counts[a.o[i].part]++;
    MPI_Allreduce(MPI_IN_PLACE, counts, FRONT_PARTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (step >= 1) {
      int sp = info.small_part;
      double share = sp >= 0 && sp < FRONT_PARTS ? (double)counts[sp] / all_grow : 0.0;
      worst = share < worst ? share : worst;
      if (rank == 0)
        printf("front %s step %d: alpha %g, N %g, small part %d holds %.2f of the growing "
               "column (%d base runs)\n",
               alpha, step, info.alpha, info.N, sp, share, info.base_runs);
      if (is_auto) {
        CHECK(info.alpha > 0.0 && info.alpha < 0.9, "front AUTO step %d: alpha %g", step,
              info.alpha);
        CHECK(share >= 0.5,
              "front AUTO step %d: the small part %d holds %.2f of the growing column", step, sp,
              share);
      }
    }
    for (int i = 0; i < a.n; i++)
      if (a.o[i].grows) a.o[i].w += GROWTH;
    total_w += all_grow * GROWTH;
  }
  grid_check_conservation(&a, FRONT_OBJ, total_w);
  if (!is_auto)
    CHECK(worst < 0.5, "front %s: the small part always held %.2f or more of the growing column",
          alpha, worst);
  Zoltan_Destroy(&zz);
  free(a.o);
  return 0;
}

/*
 * Mode "bounds GROWTH": the front's grid and parts (8 parts on 1-4 ranks,
 * so that Zoltan's RCB holds several parts on a rank) with one growing
 * object, which soon outweighs half of a part of 0.1 of the average load,
 * and a trigger.  PART asks for alpha 0.9, i.e. such a part; OBJECT asks
 * for AUTO with a costly balance, whose horizon would give the growing
 * object most of a part's load.  The layer refuses to hand Zoltan's RCB
 * either (zp_native_grain); ULBA must lower its underloading instead of
 * failing.  Checks: every balance returns ZOLTAN_OK with every object
 * conserved, and once the object is heavy the underloading was lowered
 * (PART: 0 < alpha < 0.9; OBJECT: the largest anticipated extra below half
 * the average load, where the horizon alone gives 0.9 of it), so that the
 * test exercises the caps.
 */
#define BOUNDS_GROWTH  6.0  /* weight added to the growing object per balance */
#define BOUNDS_LB_COST 10.0 /* seconds: a balance worth 100 steps of one part */

static int run_bounds(const char *growth, int rank, int size)
{
  adaptive_trigger *trig = adaptive_create(MPI_COMM_WORLD);
  app a;
  struct Zoltan_Struct *zz;
  double total_w = (double)FRONT_OBJ;
  int lowered = 0, is_part = strcmp(growth, "PART") == 0, all_grow = 0;
  zz = front_zz(&a, rank, size, 1, growth, &all_grow);
  CHECK(Zoltan_Set_Param(zz, "ULBA_ALPHA", is_part ? "0.9" : "AUTO") == ZOLTAN_OK, "alpha refused");
  CHECK(trig != NULL && adaptive_attach(trig, zz) == ZOLTAN_OK, "adaptive_attach failed");
  adaptive_set_param(trig, "ADAPTIVE_POLICY", "PERIODIC");
  adaptive_set_param(trig, "ADAPTIVE_PERIOD", "3");
  for (int step = 0; step < STEPS; step++) {
    ulba_model_info info;
    double heavy = 1.0 + step * BOUNDS_GROWTH, avg = total_w / FRONT_PARTS;
    int rc = front_balance(zz, &a);
    CHECK(rc == ZOLTAN_OK, "bounds %s step %d: Zoltan_LB_Partition returned %d", growth, step, rc);
    if (rc != ZOLTAN_OK) break;
    CHECK(adaptive_balance_done(trig, BOUNDS_LB_COST) == ZOLTAN_OK, "adaptive_balance_done");
    CHECK(ulba_last_model(zz, &info) == ZOLTAN_OK, "ulba_last_model failed");
    /* Alpha 0.9 asks for a part of 0.1 avg, which may hold objects of half
     * that at most. */
    if (step >= 1 && heavy > 0.5 * 0.1 * avg) {
      int low = info.alpha > 0.0 && info.alpha < (is_part ? 0.9 : 0.5);
      lowered += low;
      if (rank == 0)
        printf("bounds %s step %d: heaviest %g against a part of %g, alpha %g\n", growth, step,
               heavy, avg, info.alpha);
    }
    for (int sub = 0; sub < SUBSTEPS; sub++) report_step(trig, &a, BOUNDS_GROWTH / SUBSTEPS);
    total_w += all_grow * BOUNDS_GROWTH;
  }
  grid_check_conservation(&a, FRONT_OBJ, total_w);
  CHECK(lowered > 0, "bounds %s: no balance ran with heavy objects and a lowered underloading",
        growth);
  adaptive_destroy(&trig);
  Zoltan_Destroy(&zz);
  free(a.o);
  return 0;
}

static int run_alpha0(int rank, int size)
{
  app a;
  struct Zoltan_Struct *zr, *zu;
  int *pr, *pu, diff = 0, all = 0;
  make_objects(&a, rank, size);
  /* Unequal weights make the comparison meaningful. */
  for (int i = 0; i < a.n; i++)
    if (a.o[i].grows) a.o[i].w = 3.0;
  pr = malloc((size_t)a.n * sizeof *pr);
  pu = malloc((size_t)a.n * sizeof *pu);
  zr = grid_zz(&a, "RCB");
  zu = grid_zz(&a, "ULBA");
  CHECK(Zoltan_Set_Param(zu, "ULBA_ALPHA", "0") == ZOLTAN_OK, "alpha 0 refused");
  /* Plain RCB with no part sizes at all: ULBA at alpha 0 must hand RCB the
   * application's (unset) sizes untouched and get the very same cuts. */
  CHECK(grid_parts_of(zr, &a, pr) == ZOLTAN_OK, "RCB failed");
  /* Twice: the second call has an increase rate (all zero), still alpha 0. */
  CHECK(grid_parts_of(zu, &a, pu) == ZOLTAN_OK, "ULBA failed");
  CHECK(grid_parts_of(zu, &a, pu) == ZOLTAN_OK, "ULBA failed");
  for (int i = 0; i < a.n; i++) diff += pr[i] != pu[i];
  MPI_Allreduce(&diff, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all == 0, "ULBA_ALPHA=0 differs from RCB for %d objects", all);
  Zoltan_Destroy(&zr);
  Zoltan_Destroy(&zu);
  free(pr);
  free(pu);
  free(a.o);
  return 0;
}

/* Whether the text captured since capture_begin contains needle. */
static int captured_has(grid_capture *c, const char *needle)
{
  char *text = capture_end(c);
  int seen = text != NULL && strstr(text, needle) != NULL;
  free(text);
  return seen;
}

static int run_badparams(int rank, int size)
{
  app a;
  struct Zoltan_Struct *zz;
  grid_capture cap;
  int rc, seen;
  make_objects(&a, rank, size);
  zz = grid_zz(&a, "ULBA");
  /* An alpha outside [0, 1) is refused when set, with the value named. */
  if (capture_begin(&cap, 2) == 0) {
    rc = Zoltan_Set_Param(zz, "ULBA_ALPHA", "1.7");
    seen = captured_has(&cap, "ULBA_ALPHA = 1.7");
    CHECK(rc != ZOLTAN_OK, "ULBA_ALPHA=1.7 accepted");
    CHECK(seen, "message does not name ULBA_ALPHA = 1.7");
  }
  /* A threshold of 0 is refused (it must be > 0). */
  CHECK(Zoltan_Set_Param(zz, "ULBA_ZSCORE_THRESHOLD", "0") != ZOLTAN_OK, "threshold 0 accepted");
  /* ULBA as its own base method fails at the balance, naming the value. */
  Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", "ULBA");
  if (capture_begin(&cap, 2) == 0) {
    rc = grid_partition(zz);
    seen = captured_has(&cap, "ULBA_BASE_METHOD = ULBA");
    CHECK(rc != ZOLTAN_OK && rc != ZOLTAN_WARN, "base ULBA accepted (%d)", rc);
    CHECK(seen, "message does not name ULBA_BASE_METHOD = ULBA");
  }
  /* An unknown base method fails at the balance, naming the value. */
  Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", "NOSUCHMETHOD");
  if (capture_begin(&cap, 2) == 0) {
    rc = grid_partition(zz);
    seen = captured_has(&cap, "ULBA_BASE_METHOD = NOSUCHMETHOD");
    CHECK(rc != ZOLTAN_OK && rc != ZOLTAN_WARN, "unknown base accepted (%d)", rc);
    CHECK(seen, "message does not name ULBA_BASE_METHOD = NOSUCHMETHOD");
  }
  /* After the errors a good base method works again on the same struct. */
  Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", "HSFC");
  CHECK(grid_partition(zz) == ZOLTAN_OK, "HSFC after errors failed");
  Zoltan_Destroy(&zz);
  free(a.o);
  return 0;
}

int main(int argc, char **argv)
{
  int rank, size;
  grid_begin(&argc, &argv, &rank, &size);
  if (argc >= 3 && strcmp(argv[1], "growth") == 0) {
    run_growth(argv[2], argc >= 4 ? argv[3] : argv[2], argc >= 5 ? argv[4] : "1", 0, "0.4", rank,
               size);
  } else if (argc >= 3 && strcmp(argv[1], "trigger") == 0) {
    run_growth(argv[2], argv[2], "1", 1, argc >= 4 ? argv[3] : "0.4", rank, size);
  } else if (argc >= 3 && strcmp(argv[1], "object") == 0) {
    run_object(argv[2], rank, size);
  } else if (argc >= 3 && strcmp(argv[1], "front") == 0) {
    run_front(argv[2], rank, size);
  } else if (argc >= 3 && strcmp(argv[1], "bounds") == 0) {
    run_bounds(argv[2], rank, size);
  } else if (argc >= 2 && strcmp(argv[1], "alpha0") == 0) {
    run_alpha0(rank, size);
  } else if (argc >= 2 && strcmp(argv[1], "badparams") == 0) {
    run_badparams(rank, size);
  } else {
    if (rank == 0)
      fprintf(stderr,
              "usage: %s growth BASE [FIRST_BASE [RELABEL]] | trigger BASE [ALPHA] | object BASE | "
              "front ALPHA | bounds PART|OBJECT | alpha0 | badparams\n",
              argv[0]);
    grid_fails++;
  }
  return grid_end(argc >= 2 ? argv[1] : "?");
}
