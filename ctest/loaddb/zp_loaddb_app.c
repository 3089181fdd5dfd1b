/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An application whose weight callbacks are wrong: every object weighs 1,
 * while what the objects really cost, reported through the adaptive
 * trigger, is 10 for the objects that start in part 0 and 1 for the others.
 * It balances once with the method and OBJ_WEIGHT_SOURCE it is given, and
 * checks every object is assigned exactly once, to a part in range, and
 * the measured max/avg against --expect-max / --expect-min.
 *
 * N objects, IDs 1..N, start in blocks over the ranks and over
 * NUM_GLOBAL_PARTS parts; each has coordinates (x = ID, y = ID*7 mod 13)
 * and edges to ID-1 and ID+1, so that every method and LB_DUMP_FILE see
 * geometry and a graph.
 *
 * Usage: zp_loaddb_app --method M [--source S] [--objects N] [--parts P]
 *        [--steps K] [--balances B] [--window W] [--report all|even|none|bogus] [--dim0]
 *        [--first-next] [--no-geom] [--edge-single] [--comm none|sender|both]
 *        [--expect-heavy-cut-max K] [--expect-heavy-cut-min K] [--dump FILE] [--assign FILE] [--expect-max R]
 *        [--expect-min R] [--expect-error] [--param NAME=VALUE]...
 *        [--trigger-param ADAPTIVE_NAME=VALUE]... [--grow G]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "adaptive_trigger.h"

/* The objects of this rank. */
typedef struct app {
  int n;                /* local objects */
  ZOLTAN_ID_TYPE *gids; /* their IDs */
  int *part;            /* their starting part */
  int N, P, nranks;     /* all objects, parts, ranks */
  int cursor;           /* FIRST/NEXT position */
} app;

static int block_of(int g, int N, int B) { return (int)(((long)(g - 1) * B) / N); }
/* The measured communication of edge {g, g+1}: heavy within 3 IDs of every
 * hundredth, where a balanced chain of hundreds would be cut. */
static int heavy(int g) { return g % 100 >= 97 || g % 100 <= 2; }
static double volume(int g) { return heavy(g) ? 1000.0 : 1.0; }
static double measured(const app *a, int g) { return block_of(g, a->N, a->P) == 0 ? 10.0 : 1.0; }

static int num_obj(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((app *)d)->n;
}

static void obj_list(void *d, int ngid, int nlid, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int wdim,
                     float *w, int *ierr)
{
  app *a = d;
  int i, k;
  (void)ngid;
  (void)nlid;
  for (i = 0; i < a->n; i++) {
    g[i] = a->gids[i];
    l[i] = (ZOLTAN_ID_TYPE)i;
    for (k = 0; k < wdim; k++) w[i * wdim + k] = 1.0f;
  }
  *ierr = ZOLTAN_OK;
}

static int first_obj(void *d, int ngid, int nlid, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int wdim,
                     float *w, int *ierr)
{
  app *a = d;
  int k;
  (void)ngid;
  (void)nlid;
  *ierr = ZOLTAN_OK;
  a->cursor = 0;
  if (a->n == 0) return 0;
  g[0] = a->gids[0];
  l[0] = 0;
  for (k = 0; k < wdim; k++) w[k] = 1.0f;
  return 1;
}

static int next_obj(void *d, int ngid, int nlid, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, ZOLTAN_ID_PTR ng,
                    ZOLTAN_ID_PTR nl, int wdim, float *w, int *ierr)
{
  app *a = d;
  int k, i = (int)l[0] + 1;
  (void)ngid;
  (void)nlid;
  (void)g;
  *ierr = ZOLTAN_OK;
  if (i >= a->n) return 0;
  ng[0] = a->gids[i];
  nl[0] = (ZOLTAN_ID_TYPE)i;
  for (k = 0; k < wdim; k++) w[k] = 1.0f;
  return 1;
}

static void part_multi(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l,
                       int *parts, int *ierr)
{
  app *a = d;
  int i;
  (void)ngid;
  (void)nlid;
  (void)g;
  for (i = 0; i < n; i++) parts[i] = a->part[l[i]];
  *ierr = ZOLTAN_OK;
}

static int num_geom(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 2;
}

static void geom_multi(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l,
                       int dim, double *x, int *ierr)
{
  int i;
  (void)d;
  (void)ngid;
  (void)nlid;
  (void)l;
  for (i = 0; i < n; i++) {
    x[i * dim] = (double)g[i];
    x[i * dim + 1] = (double)((g[i] * 7) % 13);
  }
  *ierr = ZOLTAN_OK;
}

static void num_edges(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int *ne,
                      int *ierr)
{
  app *a = d;
  int i;
  (void)ngid;
  (void)nlid;
  (void)l;
  for (i = 0; i < n; i++) ne[i] = (g[i] > 1) + ((int)g[i] < a->N);
  *ierr = ZOLTAN_OK;
}

static void edge_list(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int *ne,
                      ZOLTAN_ID_PTR nbr, int *procs, int ewd, float *ew, int *ierr)
{
  app *a = d;
  int i, e = 0;
  (void)ngid;
  (void)nlid;
  (void)l;
  (void)ne;
  for (i = 0; i < n; i++) {
    int side;
    for (side = -1; side <= 1; side += 2) {
      long h = (long)g[i] + side;
      if (h < 1 || h > a->N) continue;
      nbr[e] = (ZOLTAN_ID_TYPE)h;
      procs[e] = block_of((int)h, a->N, a->nranks);
      if (ewd > 0) ew[e * ewd] = 1.0f;
      e++;
    }
  }
  *ierr = ZOLTAN_OK;
}

/* The single-object edge callbacks, for --edge-single. */
static int num_edges_one(void *d, int ngid, int nlid, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int *ierr)
{
  int ne = 0;
  num_edges(d, ngid, nlid, 1, g, l, &ne, ierr);
  return ne;
}

static void edge_list_one(void *d, int ngid, int nlid, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l,
                          ZOLTAN_ID_PTR nbr, int *procs, int ewd, float *ew, int *ierr)
{
  int ne = 0;
  num_edges(d, ngid, nlid, 1, g, l, &ne, ierr);
  edge_list(d, ngid, nlid, 1, g, l, &ne, nbr, procs, ewd, ew, ierr);
}

/* Options. */
typedef struct opts {
  const char *method, *source, *report, *dump, *assign, *comm;
  int heavy_max, heavy_min, edge_single;
  int N, P, steps, window, dim0, first_next, expect_error, no_geom, balances;
  double expect_max, expect_min;
  const char *params[16];
  const char *tparams[8]; /* --trigger-param: ADAPTIVE_* of the trigger */
  int ntparams;
  double grow; /* --grow: growth per step of the first twentieth */
  int nparams;
} opts;

static int parse(int argc, char **argv, opts *o)
{
  int i;
  memset(o, 0, sizeof *o);
  o->method = "GREEDY";
  o->comm = "none";
  o->heavy_max = o->heavy_min = -1;
  o->report = "all";
  o->N = 400;
  o->P = 4;
  o->steps = 2;
  for (i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--dim0"))
      o->dim0 = 1;
    else if (!strcmp(argv[i], "--first-next"))
      o->first_next = 1;
    else if (!strcmp(argv[i], "--expect-error"))
      o->expect_error = 1;
    else if (!strcmp(argv[i], "--no-geom"))
      o->no_geom = 1;
    else if (!strcmp(argv[i], "--edge-single"))
      o->edge_single = 1;
    else if (v == NULL)
      return -1;
    else if (!strcmp(argv[i], "--method"))
      o->method = argv[++i];
    else if (!strcmp(argv[i], "--source"))
      o->source = argv[++i];
    else if (!strcmp(argv[i], "--report"))
      o->report = argv[++i];
    else if (!strcmp(argv[i], "--dump"))
      o->dump = argv[++i];
    else if (!strcmp(argv[i], "--assign"))
      o->assign = argv[++i];
    else if (!strcmp(argv[i], "--objects"))
      o->N = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--parts"))
      o->P = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--comm"))
      o->comm = argv[++i];
    else if (!strcmp(argv[i], "--expect-heavy-cut-max"))
      o->heavy_max = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--expect-heavy-cut-min"))
      o->heavy_min = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--balances"))
      o->balances = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--steps"))
      o->steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--window"))
      o->window = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--expect-max"))
      o->expect_max = atof(argv[++i]);
    else if (!strcmp(argv[i], "--expect-min"))
      o->expect_min = atof(argv[++i]);
    else if (!strcmp(argv[i], "--grow"))
      o->grow = atof(argv[++i]);
    else if (!strcmp(argv[i], "--trigger-param") && o->ntparams < 8)
      o->tparams[o->ntparams++] = argv[++i];
    else if (!strcmp(argv[i], "--param") && o->nparams < 16)
      o->params[o->nparams++] = argv[++i];
    else
      return -1;
  }
  return o->N > 0 && o->P > 0 && o->steps > 0 ? 0 : -1;
}

/* The communication of one step: each object reports what it sent to its
 * right neighbour ("sender"), or to both neighbours ("both"). */
static int report_comm(adaptive_trigger *t, const app *a, const char *how)
{
  int n = 0, i, both = strcmp(how, "both") == 0;
  ZOLTAN_ID_TYPE *from = malloc((2 * (size_t)a->n + 1) * sizeof *from);
  ZOLTAN_ID_TYPE *to = malloc((2 * (size_t)a->n + 1) * sizeof *to);
  double *v = malloc((2 * (size_t)a->n + 1) * sizeof *v);
  int rc = ZOLTAN_MEMERR;
  if (from == NULL || to == NULL || v == NULL) goto End;
  for (i = 0; i < a->n; i++) {
    int g = (int)a->gids[i];
    if (g < a->N) {
      from[n] = (ZOLTAN_ID_TYPE)g;
      to[n] = (ZOLTAN_ID_TYPE)(g + 1);
      v[n++] = volume(g);
    }
    if (both && g > 1) {
      from[n] = (ZOLTAN_ID_TYPE)g;
      to[n] = (ZOLTAN_ID_TYPE)(g - 1);
      v[n++] = volume(g - 1);
    }
  }
  rc = adaptive_report_comm(t, n, 1, from, to, v);
End:
  free(from);
  free(to);
  free(v);
  return rc;
}

/* The reports of one step: all objects, the even IDs, none, or all plus
 * one ID no rank holds (on rank 0). */
static int report(adaptive_trigger *t, const app *a, const char *how, int rank, int step,
                  double grow)
{
  int n = 0, i, extra = strcmp(how, "bogus") == 0 && rank == 0;
  ZOLTAN_ID_TYPE *g = malloc(((size_t)a->n + 2) * sizeof *g);
  double *l = malloc(((size_t)a->n + 2) * sizeof *l);
  int rc = ZOLTAN_MEMERR;
  if (g == NULL || l == NULL) goto End;
  for (i = 0; strcmp(how, "none") != 0 && i < a->n; i++) {
    if (strcmp(how, "even") == 0 && a->gids[i] % 2 != 0) continue;
    g[n] = a->gids[i];
    l[n++] = measured(a, (int)a->gids[i]);
    /* --grow: the first twentieth of the objects grows by that fraction a
     * step, a concentrated growth (rule R6 of LB_METHOD=AUTO). */
    if ((long)a->gids[i] * 20 <= a->N) l[n - 1] *= 1.0 + grow * step;
  }
  if (extra) {
    g[n] = (ZOLTAN_ID_TYPE)(a->N + 1000);
    l[n++] = 1.0;
  }
  rc = adaptive_report_objects(t, n, 1, g, l);
End:
  free(g);
  free(l);
  return rc;
}

static void set_params(struct Zoltan_Struct *zz, const opts *o)
{
  char buf[64];
  int i;
  Zoltan_Set_Param(zz, "LB_METHOD", o->method);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", o->dim0 ? "0" : "1");
  snprintf(buf, sizeof buf, "%d", o->P);
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", buf);
  if (o->source) Zoltan_Set_Param(zz, "OBJ_WEIGHT_SOURCE", o->source);
  if (o->window > 0) {
    snprintf(buf, sizeof buf, "%d", o->window);
    Zoltan_Set_Param(zz, "OBJ_WEIGHT_WINDOW", buf);
  }
  if (o->dump) Zoltan_Set_Param(zz, "LB_DUMP_FILE", o->dump);
  for (i = 0; i < o->nparams; i++) {
    char name[64];
    const char *eq = strchr(o->params[i], '=');
    if (eq == NULL || (size_t)(eq - o->params[i]) >= sizeof name) continue;
    memcpy(name, o->params[i], (size_t)(eq - o->params[i]));
    name[eq - o->params[i]] = '\0';
    Zoltan_Set_Param(zz, name, eq + 1);
  }
}

/* Checks the answer; the new part of each local object is in newp.
 * Returns 0 when every check passes. */
static int check(const app *a, const opts *o, const int *newp, int rank)
{
  double *load = calloc((size_t)o->P * 2, sizeof *load), before = 0, after = 0, tot = 0;
  int *all = malloc((size_t)o->N * sizeof *all), *mine = malloc((size_t)o->N * sizeof *mine);
  int i, fail = 0, p, cut = 0;
  if (load == NULL || all == NULL || mine == NULL) return 1;
  for (i = 0; i < o->N; i++) mine[i] = -1;
  for (i = 0; i < a->n; i++) {
    if (newp[i] < 0 || newp[i] >= o->P) fail = 1;
    mine[a->gids[i] - 1] = newp[i] < 0 || newp[i] >= o->P ? -2 : newp[i];
  }
  MPI_Allreduce(mine, all, o->N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (i = 0; i < o->N; i++) {
    if (all[i] < 0)
      fail = 1;
    else
      load[all[i]] += measured(a, i + 1);
    load[o->P + block_of(i + 1, o->N, o->P)] += measured(a, i + 1);
    tot += measured(a, i + 1);
  }
  for (p = 0; p < o->P; p++) {
    if (load[p] > after) after = load[p];
    if (load[o->P + p] > before) before = load[o->P + p];
  }
  before /= tot / o->P;
  after /= tot / o->P;
  for (i = 1; i < o->N; i++) cut += heavy(i) && all[i - 1] != all[i];
  if (rank == 0 && strcmp(o->comm, "none") != 0) {
    printf("zp_loaddb_app: %d heavy edges cut\n", cut);
    if ((o->heavy_max >= 0 && cut > o->heavy_max) || (o->heavy_min >= 0 && cut < o->heavy_min)) {
      printf("zp_loaddb_app: FAIL: %d heavy edges cut, expected [%d, %d]\n", cut, o->heavy_min,
             o->heavy_max);
      fail = 1;
    }
  }
  if (rank == 0) {
    printf("zp_loaddb_app: %s OBJ_WEIGHT_SOURCE=%s: measured max/avg %.4f before, %.4f after%s\n",
           o->method, o->source ? o->source : "(unset)", before, after,
           fail ? "; an object is unassigned or out of range" : "");
    if (o->expect_max > 0 && after > o->expect_max) {
      printf("zp_loaddb_app: FAIL: max/avg %.4f > %.4f\n", after, o->expect_max);
      fail = 1;
    }
    if (o->expect_min > 0 && after < o->expect_min) {
      printf("zp_loaddb_app: FAIL: max/avg %.4f < %.4f\n", after, o->expect_min);
      fail = 1;
    }
    if (o->assign) {
      FILE *f = fopen(o->assign, "w");
      for (i = 0; f != NULL && i < o->N; i++) fprintf(f, "%d %d\n", i + 1, all[i]);
      if (f == NULL || fclose(f) != 0) fail = 1;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  free(load);
  free(all);
  free(mine);
  return fail;
}

int main(int argc, char **argv)
{
  opts o;
  app a;
  int rank, i, s, rc, changes, ngid, nlid, nimp, nexp, fail = 0, *ip, *ipa, *ep, *epa, *newp;
  ZOLTAN_ID_PTR ig, il, eg, el;
  struct Zoltan_Struct *zz;
  adaptive_trigger *t;
  float ver;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &a.nranks);
  if (parse(argc, argv, &o) != 0) {
    if (rank == 0) fprintf(stderr, "zp_loaddb_app: bad arguments (see the source's header)\n");
    MPI_Finalize();
    return 2;
  }
  Zoltan_Initialize(argc, argv, &ver);
  a.N = o.N;
  a.P = o.P;
  a.n = 0;
  a.gids = malloc(((size_t)o.N + 1) * sizeof *a.gids);
  a.part = malloc(((size_t)o.N + 1) * sizeof *a.part);
  newp = malloc(((size_t)o.N + 1) * sizeof *newp);
  for (i = 1; i <= o.N; i++) {
    if (block_of(i, o.N, a.nranks) != rank) continue;
    a.gids[a.n] = (ZOLTAN_ID_TYPE)i;
    a.part[a.n++] = block_of(i, o.N, o.P);
  }
  zz = Zoltan_Create(MPI_COMM_WORLD);
  set_params(zz, &o);
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, &a);
  if (o.first_next) {
    Zoltan_Set_First_Obj_Fn(zz, first_obj, &a);
    Zoltan_Set_Next_Obj_Fn(zz, next_obj, &a);
  } else {
    Zoltan_Set_Obj_List_Fn(zz, obj_list, &a);
  }
  Zoltan_Set_Part_Multi_Fn(zz, part_multi, &a);
  if (!o.no_geom) {
    Zoltan_Set_Num_Geom_Fn(zz, num_geom, &a);
    Zoltan_Set_Geom_Multi_Fn(zz, geom_multi, &a);
  }
  if (o.edge_single) {
    Zoltan_Set_Num_Edges_Fn(zz, num_edges_one, &a);
    Zoltan_Set_Edge_List_Fn(zz, edge_list_one, &a);
  } else {
    Zoltan_Set_Num_Edges_Multi_Fn(zz, num_edges, &a);
    Zoltan_Set_Edge_List_Multi_Fn(zz, edge_list, &a);
  }
  t = adaptive_create(MPI_COMM_WORLD);
  if (t == NULL || adaptive_attach(t, zz) != ZOLTAN_OK) fail = 1;
  for (i = 0; !fail && i < o.ntparams; i++) {
    char name[64];
    const char *eq = strchr(o.tparams[i], '=');
    if (eq == NULL || (size_t)(eq - o.tparams[i]) >= sizeof name) {
      fail = 1;
      break;
    }
    memcpy(name, o.tparams[i], (size_t)(eq - o.tparams[i]));
    name[eq - o.tparams[i]] = '\0';
    if (adaptive_set_param(t, name, eq + 1) != ZOLTAN_OK) fail = 1;
  }
  for (s = 0; !fail && s < o.steps; s++) {
    if (report(t, &a, o.report, rank, s, o.grow) != ZOLTAN_OK) fail = 1;
    if (strcmp(o.comm, "none") != 0 && report_comm(t, &a, o.comm) != ZOLTAN_OK) fail = 1;
    if (s + 1 < o.steps && adaptive_should_balance(t, 1.0) < 0) fail = 1;
  }
  /* Extra balances before the checked one, for a sequence of dumps (the
   * application never applies their answers). */
  for (s = 1; !fail && s < o.balances; s++) {
    rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
    fail |= rc != ZOLTAN_OK && rc != ZOLTAN_WARN;
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  }
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el,
                           &ep, &epa);
  if (o.expect_error) {
    if (rank == 0)
      printf("zp_loaddb_app: Zoltan_LB_Partition returned %d (an error expected)\n", rc);
    fail |= rc >= 0;
    /* The application's own callbacks are back: Zoltan's RCB on them works. */
    Zoltan_Set_Param(zz, "OBJ_WEIGHT_SOURCE", "CALLBACK");
    Zoltan_Set_Param(zz, "LB_METHOD", "RCB");
    fail |= Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                                &el, &ep, &epa) != ZOLTAN_OK;
  } else if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN) {
    if (rank == 0) printf("zp_loaddb_app: FAIL: Zoltan_LB_Partition returned %d\n", rc);
    fail = 1;
  } else {
    for (i = 0; i < a.n; i++) newp[i] = -1;
    for (i = 0; i < nexp; i++) newp[el[i]] = epa[i];
    fail |= check(&a, &o, newp, rank);
  }
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  /* What the trigger would decide with from now on (ADAPTIVE_POLICY=AUTO
   * follows LB_METHOD=AUTO's advice). */
  if (rank == 0 && t) printf("zp_loaddb_app: trigger policy %s\n", adaptive_policy_in_use(t));
  adaptive_destroy(&t);
  Zoltan_Destroy(&zz);
  free(a.gids);
  free(a.part);
  free(newp);
  if (rank == 0) printf("zp_loaddb_app: %s\n", fail ? "FAILED" : "passed");
  MPI_Finalize();
  return fail;
}
