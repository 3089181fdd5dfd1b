/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_diffusion: LB_METHOD=DIFFUSION against REFINE, GREEDY and Zoltan's
 * RCB and HSFC on a 2-D mesh application, through the plain Zoltan API, in
 * one run (docs/diffusion.md).
 *
 * The application: side x side cells, block-distributed over a px x py grid
 * of ranks (as a mesh code starts), 4-neighbour graph edges, coordinates.
 * A cell's load is a function of its ID, so every rank knows every load;
 * the owner of every cell is kept on every rank (the application's
 * bookkeeping, not the method's) and updated from the export lists after
 * each call, which is the application's migration.
 *   hotspot  load 1 + A exp(-d^2 / r^2) around a point near a corner
 *   lbtest   load (10 + 990 U^4) x (1 + g x / side): lb_test's loads with a
 *            gradient
 * A (or g) is set so that the starting max/avg is --imbalance.  With
 * --capacities c0,c1,... rank p's part size is c_(p mod k) (Zoltan part
 * sizes), and the imbalance is measured as utilization: the largest
 * load / (size share x total).
 *
 * Each method starts from the same block distribution and is called
 * --calls times; the table gives max/avg after every call, objects and load
 * moved in all, and the edge cut.  The DIFFUSION row also gives the bytes
 * of the method's own per-rank arrays on the busiest rank, against the
 * bytes a centralised method gathers on its root (20 per object).
 *
 * Usage: bench_diffusion [--side S] [--workload hotspot|lbtest]
 *                        [--imbalance X] [--calls K] [--tol T]
 *                        [--capacities c0,c1,...] [--methods A,B,...]
 *                        [--param NAME=VALUE]... [--check] [--csv FILE]
 *   --param  a Zoltan or plugin parameter for every method (DIFFUSION_*
 *            ones for DIFFUSION only)
 *   --check  exit 1 unless DIFFUSION reaches max/avg <= --tol within
 *            --calls calls and moves at most 2x the objects REFINE moves
 *            (REFINE with the same tolerance, one call).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "zp_rng.h"

/* The application's state on every rank. */
typedef struct app {
  int side, n;    /* mesh side and cells */
  int rank, size; /* MPI */
  int *owner;     /* owner rank of every cell (GID - 1) */
  double *load;   /* load of every cell */
  int *mine;      /* local cells (GID - 1), refreshed by app_local */
  int nmine;      /* their number */
} app;

static void app_local(app *a)
{
  a->nmine = 0;
  for (int i = 0; i < a->n; i++)
    if (a->owner[i] == a->rank) a->mine[a->nmine++] = i;
}

static int cb_num_obj(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((app *)d)->nmine;
}

static void cb_obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                        float *w, int *ierr)
{
  app *a = d;
  (void)ng;
  (void)nl;
  for (int k = 0; k < a->nmine; k++) {
    gids[k] = (ZOLTAN_ID_TYPE)a->mine[k] + 1;
    lids[k] = (ZOLTAN_ID_TYPE)k;
    if (wdim > 0) w[k] = (float)a->load[a->mine[k]];
  }
  *ierr = ZOLTAN_OK;
}

static int cb_num_geom(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 2;
}

static void cb_geom(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int dim,
                    double *x, int *ierr)
{
  app *a = d;
  (void)ng;
  (void)nl;
  (void)lids;
  (void)dim;
  for (int k = 0; k < n; k++) {
    int c = (int)gids[k] - 1;
    x[2 * k] = c % a->side + 0.5;
    x[2 * k + 1] = c / a->side + 0.5;
  }
  *ierr = ZOLTAN_OK;
}

/* The 4-neighbour cells of cell c into out; returns how many. */
static int mesh_nbrs(const app *a, int c, int *out)
{
  int x = c % a->side, y = c / a->side, k = 0;
  if (x > 0) out[k++] = c - 1;
  if (x + 1 < a->side) out[k++] = c + 1;
  if (y > 0) out[k++] = c - a->side;
  if (y + 1 < a->side) out[k++] = c + a->side;
  return k;
}

static void cb_num_edges(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int *ne, int *ierr)
{
  int tmp[4];
  (void)ng;
  (void)nl;
  (void)lids;
  for (int k = 0; k < n; k++) ne[k] = mesh_nbrs(d, (int)gids[k] - 1, tmp);
  *ierr = ZOLTAN_OK;
}

static void cb_edges(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *ne, ZOLTAN_ID_PTR nbr, int *procs, int ewdim, float *ew, int *ierr)
{
  app *a = d;
  int tmp[4], e = 0;
  (void)ng;
  (void)nl;
  (void)lids;
  (void)ne;
  for (int k = 0; k < n; k++) {
    int m = mesh_nbrs(a, (int)gids[k] - 1, tmp);
    for (int j = 0; j < m; j++, e++) {
      nbr[e] = (ZOLTAN_ID_TYPE)tmp[j] + 1;
      procs[e] = a->owner[tmp[j]];
      if (ewdim > 0) ew[e] = 1.0f;
    }
  }
  *ierr = ZOLTAN_OK;
}

/* The block distribution over a px x py rank grid (px * py = size, px the
 * largest divisor <= sqrt(size)). */
static void block_start(app *a)
{
  int px = 1;
  for (int f = 1; f * f <= a->size; f++)
    if (a->size % f == 0) px = f;
  int py = a->size / px;
  for (int c = 0; c < a->n; c++) {
    int x = c % a->side, y = c / a->side;
    int bx = x * px / a->side, by = y * py / a->side;
    a->owner[c] = by * px + bx;
  }
}

/* Target share of each rank (normalised part sizes). */
static void shares(int size, const double *caps, int ncaps, double *share)
{
  double s = 0.0;
  for (int p = 0; p < size; p++) s += share[p] = ncaps > 0 ? caps[p % ncaps] : 1.0;
  for (int p = 0; p < size; p++) share[p] /= s;
}

/* Largest load / target over ranks, for the owner map. */
static double imbalance(const app *a, const double *share)
{
  double *l = calloc((size_t)a->size, sizeof *l), tot = 0.0, worst = 0.0;
  for (int c = 0; c < a->n; c++) {
    l[a->owner[c]] += a->load[c];
    tot += a->load[c];
  }
  for (int p = 0; p < a->size; p++) worst = fmax(worst, l[p] / (share[p] * tot));
  free(l);
  return worst;
}

/* Loads with amplitude amp. */
static void make_loads(app *a, const char *wl, double amp)
{
  zp_rng g;
  zp_rng_seed(&g, 2026);
  for (int c = 0; c < a->n; c++) {
    double x = c % a->side + 0.5, y = c / a->side + 0.5;
    if (!strcmp(wl, "lbtest")) {
      double u = zp_rng_uniform(&g);
      a->load[c] = (10.0 + 990.0 * u * u * u * u) * (1.0 + amp * x / a->side);
    } else {
      double cx = 0.2 * a->side, cy = 0.3 * a->side, r = 0.15 * a->side;
      a->load[c] = 1.0 + amp * exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (r * r));
    }
  }
}

/* The amplitude that gives the starting imbalance target (bisection; the
 * imbalance grows with the amplitude for both workloads). */
static double calibrate(app *a, const char *wl, double target, const double *share)
{
  double lo = 0.0, hi = 1.0;
  block_start(a);
  make_loads(a, wl, 0.0);
  /* Unequal capacities can make the block start worse than the target
   * already, and one rank is never imbalanced: the loads are then left
   * flat. */
  if (imbalance(a, share) >= target || a->size == 1) return 0.0;
  make_loads(a, wl, hi);
  while (imbalance(a, share) < target && hi < 1e9) make_loads(a, wl, hi *= 2.0);
  for (int it = 0; it < 60; it++) {
    double mid = 0.5 * (lo + hi);
    make_loads(a, wl, mid);
    if (imbalance(a, share) < target)
      lo = mid;
    else
      hi = mid;
  }
  make_loads(a, wl, hi);
  return hi;
}

/* Cut edges of the owner map (each once). */
static long cut_edges(const app *a)
{
  long cut = 0;
  int nb[4];
  for (int c = 0; c < a->n; c++) {
    int m = mesh_nbrs(a, c, nb);
    for (int j = 0; j < m; j++) cut += nb[j] > c && a->owner[nb[j]] != a->owner[c];
  }
  return cut;
}

/* Apply every rank's exports to the owner map (the application's
 * migration).  Returns the number of cells whose owner changed. */
static long apply_exports(app *a, int nexp, const ZOLTAN_ID_TYPE *eg, const int *eproc,
                          double *moved_load)
{
  int *cnt = malloc((size_t)a->size * sizeof *cnt), *disp = malloc((size_t)a->size * sizeof *disp);
  int *mine = malloc(2 * ((size_t)nexp + 1) * sizeof *mine), tot = 0, *all;
  long moved = 0;
  for (int k = 0; k < nexp; k++) {
    mine[2 * k] = (int)eg[k] - 1;
    mine[2 * k + 1] = eproc[k];
  }
  nexp *= 2;
  MPI_Allgather(&nexp, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
  for (int p = 0; p < a->size; p++) {
    disp[p] = tot;
    tot += cnt[p];
  }
  all = malloc(((size_t)tot + 1) * sizeof *all);
  MPI_Allgatherv(mine, nexp, MPI_INT, all, cnt, disp, MPI_INT, MPI_COMM_WORLD);
  *moved_load = 0.0;
  for (int k = 0; k < tot; k += 2)
    if (a->owner[all[k]] != all[k + 1]) {
      a->owner[all[k]] = all[k + 1];
      *moved_load += a->load[all[k]];
      moved++;
    }
  free(cnt);
  free(disp);
  free(mine);
  free(all);
  app_local(a);
  return moved;
}

/* One method's run: results per call. */
typedef struct run {
  double imb[16];   /* max/avg after each call */
  long moved;       /* cells moved in all */
  double moved_w;   /* load moved in all, fraction of the total */
  long cut;         /* cut edges at the end */
  int ierr;         /* lowest return code over ranks and calls */
  int first_within; /* first call after which imb <= tol (0: never) */
} run;

/* --param NAME=VALUE options, applied to every method's struct. */
static const char *g_params[32];
static int g_nparams;

static void run_method(app *a, const char *m, int calls, double tol, const double *share,
                       int nparts_sizes, run *r)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  char buf[64];
  double total = 0.0;
  for (int c = 0; c < a->n; c++) total += a->load[c];
  memset(r, 0, sizeof *r);
  block_start(a);
  app_local(a);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  /* REFINE-ROOTLESS: REFINE with REFINE_DISTRIBUTED=2 (no root). */
  int rootless = !strcmp(m, "REFINE-ROOTLESS");
  if (rootless) m = "REFINE";
  Zoltan_Set_Param(zz, "LB_METHOD", m);
  if (rootless) Zoltan_Set_Param(zz, "REFINE_DISTRIBUTED", "2");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "EXPORT");
  snprintf(buf, sizeof buf, "%g", tol);
  Zoltan_Set_Param(zz, "IMBALANCE_TOL", buf);
  if (!strcmp(m, "REFINE")) Zoltan_Set_Param(zz, "REFINE_TOLERANCE", buf);
  if (!strcmp(m, "HSFC") || !strcmp(m, "RCB")) Zoltan_Set_Param(zz, "LB_APPROACH", "REPARTITION");
  for (int i = 0; i < g_nparams; i++) {
    char name[128];
    const char *eq = strchr(g_params[i], '=');
    if (eq == NULL || (size_t)(eq - g_params[i]) >= sizeof name) continue;
    snprintf(name, sizeof name, "%.*s", (int)(eq - g_params[i]), g_params[i]);
    /* A parameter of another method is refused by this one's struct: only
     * the matching prefix is set. */
    if (strncmp(name, m, strlen(m)) == 0 || strchr(name, '_') == NULL ||
        strncmp(name, "DIFFUSION_", 10) != 0)
      Zoltan_Set_Param(zz, name, eq + 1);
  }
  Zoltan_Set_Num_Obj_Fn(zz, cb_num_obj, a);
  Zoltan_Set_Obj_List_Fn(zz, cb_obj_list, a);
  Zoltan_Set_Num_Geom_Fn(zz, cb_num_geom, a);
  Zoltan_Set_Geom_Multi_Fn(zz, cb_geom, a);
  Zoltan_Set_Num_Edges_Multi_Fn(zz, cb_num_edges, a);
  Zoltan_Set_Edge_List_Multi_Fn(zz, cb_edges, a);
  if (nparts_sizes && a->rank == 0) {
    int *ids = malloc((size_t)a->size * sizeof *ids), *idx = calloc((size_t)a->size, sizeof *idx);
    float *sz = malloc((size_t)a->size * sizeof *sz);
    for (int p = 0; p < a->size; p++) {
      ids[p] = p;
      sz[p] = (float)share[p];
    }
    Zoltan_LB_Set_Part_Sizes(zz, 1, a->size, ids, idx, sz);
    free(ids);
    free(idx);
    free(sz);
  }
  for (int k = 0; k < calls; k++) {
    int changes, ng, nl, nimp, nexp, ierr, all;
    ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
    int *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL;
    double mw = 0.0;
    ierr = Zoltan_LB_Partition(zz, &changes, &ng, &nl, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el,
                               &ep, &epa);
    MPI_Allreduce(&ierr, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all < r->ierr) r->ierr = all;
    if (all >= 0) {
      r->moved += apply_exports(a, nexp, eg, ep, &mw);
      r->moved_w += mw / total;
    }
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
    r->imb[k] = imbalance(a, share);
    if (!r->first_within && r->imb[k] <= tol + 1e-12) r->first_within = k + 1;
  }
  r->cut = cut_edges(a);
  Zoltan_Destroy(&zz);
}

/* Bytes of DIFFUSION's own arrays on the busiest rank: per object a load
 * (8), a destination (4) and a gain per neighbour (8 each); per neighbour
 * seven values and two requests (about 80).  This is what the adapter
 * allocates (diffusion_zoltan.c); the layer's own copy of the local
 * objects is the same for every method. */
static double diffusion_bytes(const app *a)
{
  double worst = 0.0;
  for (int p = 0; p < a->size; p++) {
    int *seen = calloc((size_t)a->size, sizeof *seen), nn = 0, nb[4];
    long n = 0;
    for (int c = 0; c < a->n; c++) {
      if (a->owner[c] != p) continue;
      n++;
      int m = mesh_nbrs(a, c, nb);
      for (int j = 0; j < m; j++)
        if (a->owner[nb[j]] != p && !seen[a->owner[nb[j]]]) seen[a->owner[nb[j]]] = 1, nn++;
    }
    worst = fmax(worst, (double)n * (12.0 + 8.0 * nn) + 80.0 * nn);
    free(seen);
  }
  return worst;
}

int main(int argc, char **argv)
{
  app a = {0};
  const char *wl = "hotspot", *methods = "DIFFUSION,REFINE,GREEDY,RCB,HSFC", *csv = NULL;
  const char *capstr = NULL;
  double target = 1.5, tol = 1.05, caps[64], *share, amp;
  int calls = 3, check = 0, ncaps = 0, fail = 0;
  float ver;
  run rdiff = {0}, rref = {0};
  int have_diff = 0, have_ref = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &a.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &a.size);
  a.side = 128;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--side") && i + 1 < argc)
      a.side = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--workload") && i + 1 < argc)
      wl = argv[++i];
    else if (!strcmp(argv[i], "--imbalance") && i + 1 < argc)
      target = atof(argv[++i]);
    else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
      calls = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--capacities") && i + 1 < argc)
      capstr = argv[++i];
    else if (!strcmp(argv[i], "--methods") && i + 1 < argc)
      methods = argv[++i];
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
      csv = argv[++i];
    else if (!strcmp(argv[i], "--param") && i + 1 < argc && g_nparams < 32)
      g_params[g_nparams++] = argv[++i];
    else if (!strcmp(argv[i], "--check"))
      check = 1;
    else {
      if (a.rank == 0)
        fprintf(stderr, "bench_diffusion: unknown or incomplete option %s\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  if (a.side < 4 || calls < 1 || calls > 16 || target < 1.0 || tol < 1.0 ||
      (strcmp(wl, "hotspot") && strcmp(wl, "lbtest"))) {
    if (a.rank == 0)
      fprintf(stderr, "bench_diffusion: bad option value (see the head of the source)\n");
    MPI_Finalize();
    return 2;
  }
  for (const char *p = capstr; p && *p && ncaps < 64;) {
    char *end;
    caps[ncaps++] = strtod(p, &end);
    if (end == p || !(caps[ncaps - 1] > 0.0)) {
      if (a.rank == 0)
        fprintf(stderr, "bench_diffusion: --capacities %s: give positive numbers\n", capstr);
      MPI_Finalize();
      return 2;
    }
    p = *end == ',' ? end + 1 : NULL;
  }
  Zoltan_Initialize(argc, argv, &ver);
  a.n = a.side * a.side;
  a.owner = malloc((size_t)a.n * sizeof *a.owner);
  a.load = malloc((size_t)a.n * sizeof *a.load);
  a.mine = malloc((size_t)a.n * sizeof *a.mine);
  share = malloc((size_t)a.size * sizeof *share);
  shares(a.size, caps, ncaps, share);
  amp = calibrate(&a, wl, target, share);
  FILE *out = a.rank == 0 && csv ? fopen(csv, "w") : NULL;
  if (a.rank == 0) {
    printf("bench_diffusion %s: %d ranks (real MPI ranks, oversubscribed on this machine), %dx%d "
           "cells, block start, amplitude %.4g, start max/avg %.3f, tolerance %.3f%s%s\n",
           wl, a.size, a.side, a.side, amp, imbalance(&a, share), tol, ncaps ? ", capacities " : "",
           ncaps ? capstr : "");
    printf("  %-10s", "method");
    for (int k = 0; k < calls; k++) printf("  call%-2d", k + 1);
    printf("  %8s %7s %7s %6s\n", "moved", "load", "cut", "within");
    if (out) fprintf(out, "workload,ranks,method,call,maxavg,moved,moved_load,cut\n");
  }
  for (const char *m = methods; m && *m;) {
    char name[32];
    size_t len = strcspn(m, ",");
    run r;
    snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), m);
    m = m[len] ? m + len + 1 : NULL;
    run_method(&a, name, calls, tol, share, ncaps > 0, &r);
    if (!strcmp(name, "DIFFUSION")) rdiff = r, have_diff = 1;
    if (!strcmp(name, "REFINE")) rref = r, have_ref = 1;
    if (r.ierr < 0) fail = 1;
    if (a.rank == 0) {
      printf("  %-10s", name);
      for (int k = 0; k < calls; k++) printf("  %6.3f", r.imb[k]);
      printf("  %8ld %6.1f%% %7ld %6d%s\n", r.moved, 100.0 * r.moved_w, r.cut, r.first_within,
             r.ierr < 0 ? "  ERROR" : "");
      for (int k = 0; out && k < calls; k++)
        fprintf(out, "%s,%d,%s,%d,%.6f,%ld,%.6f,%ld\n", wl, a.size, name, k + 1, r.imb[k], r.moved,
                r.moved_w, r.cut);
    }
    if (!strcmp(name, "DIFFUSION") && a.rank == 0)
      printf("  DIFFUSION's own arrays on the busiest rank: %.0f bytes; a centralised method "
             "gathers %.0f bytes on its root\n",
             diffusion_bytes(&a), 20.0 * a.n);
  }
  if (check && have_diff) {
    int ok = rdiff.first_within > 0;
    if (have_ref) ok = ok && rdiff.moved <= 2 * rref.moved + 1;
    if (a.rank == 0)
      printf("claim: DIFFUSION within %.3f after %d call(s) (asked: at most %d), moving %ld cells "
             "against REFINE's %ld (asked: at most 2x): %s\n",
             tol, rdiff.first_within, calls, rdiff.moved, have_ref ? rref.moved : -1L,
             ok ? "holds" : "FAILS");
    if (!ok) fail = 1;
  }
  if (out) fclose(out);
  free(a.owner);
  free(a.load);
  free(a.mine);
  free(share);
  MPI_Finalize();
  return fail;
}
