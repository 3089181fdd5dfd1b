/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zp_hsfc_probe: where Zoltan's own HSFC fails (soak finding S2,
 * docs/reliability.md), measured on random problems, and whether
 * zp_native_bounds, the bounds within which the layer hands HSFC a base
 * run or a delegated call (and AUTO tries it), keeps to the inputs where
 * it never failed.
 *
 * Zoltan 13.2's HSFC ends some inputs with "BSEARCH RETURNED ERROR" on the
 * ranks that hold objects past its last cut; on several ranks the others
 * then wait for ever.  On one rank the failure is a plain error code, so
 * this program runs on one rank only and can count failures.
 *
 * Each trial: 20-220 objects with random coordinates in the unit square,
 * 2-12 parts, weights drawn by one of five models (equal; log-uniform over
 * 10^-3..10^3, 10^0..10^6, 10^-12..10^12 or 10^-20..10^20; a few giants),
 * part sizes unset, random and positive, or random with about a third zero.
 * Plain Zoltan (no layer), LB_METHOD=HSFC, one Zoltan_LB_Partition call.
 *
 * Prints the failures per class (a part of size zero; else the heaviest
 * object against the smallest part's share) and exits 1 when HSFC failed
 * on an input within zp_native_bounds, or when it never failed at all (the
 * probe would then show nothing).
 *
 * Options: --trials N (default 20000), --seed S (default 1).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "zp_context.h"
#include "zp_rng.h"

#define MAX_OBJ   220
#define MAX_PARTS 12

typedef struct problem {
  int n;
  double x[MAX_OBJ], y[MAX_OBJ];
  float w[MAX_OBJ];
} problem;

static int cb_num_obj(void *data, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((problem *)data)->n;
}

static void cb_obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                        int wdim, float *w, int *ierr)
{
  problem *p = data;
  (void)ngid;
  (void)nlid;
  for (int i = 0; i < p->n; i++) {
    gids[i] = (ZOLTAN_ID_TYPE)(i + 1);
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i] = p->w[i];
  }
  *ierr = ZOLTAN_OK;
}

static int cb_num_geom(void *data, int *ierr)
{
  (void)data;
  *ierr = ZOLTAN_OK;
  return 2;
}

static void cb_geom_multi(void *data, int ngid, int nlid, int num, ZOLTAN_ID_PTR gids,
                          ZOLTAN_ID_PTR lids, int dim, double *xy, int *ierr)
{
  problem *p = data;
  (void)ngid;
  (void)nlid;
  (void)gids;
  (void)dim;
  for (int i = 0; i < num; i++) {
    xy[2 * i] = p->x[lids[i]];
    xy[2 * i + 1] = p->y[lids[i]];
  }
  *ierr = ZOLTAN_OK;
}

/* One weight of model m. */
static float draw_weight(zp_rng *r, int m)
{
  static const double lo[] = {0.0, -3.0, 0.0, -12.0, -20.0}, hi[] = {0.0, 3.0, 6.0, 12.0, 20.0};
  double u = zp_rng_uniform(r);
  if (m == 5) return u < 0.02 ? 1e6f : 1.0f; /* a few giants */
  return (float)pow(10.0, lo[m] + (hi[m] - lo[m]) * u);
}

/* HSFC on p with nparts parts and sizes (NULL = unset); 1 when it failed. */
static int run_hsfc(problem *p, int nparts, const float *sizes)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, rc;
  ZOLTAN_ID_PTR ig, il, eg, el;
  char buf[32];
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "LB_METHOD", "HSFC");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  snprintf(buf, sizeof buf, "%d", nparts);
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", buf);
  Zoltan_Set_Num_Obj_Fn(zz, cb_num_obj, p);
  Zoltan_Set_Obj_List_Fn(zz, cb_obj_list, p);
  Zoltan_Set_Num_Geom_Fn(zz, cb_num_geom, p);
  Zoltan_Set_Geom_Multi_Fn(zz, cb_geom_multi, p);
  if (sizes != NULL) {
    int ids[MAX_PARTS], idx[MAX_PARTS];
    for (int k = 0; k < nparts; k++) {
      ids[k] = k;
      idx[k] = 0;
    }
    Zoltan_LB_Set_Part_Sizes(zz, 1, nparts, ids, idx, (float *)sizes);
  }
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el,
                           &ep, &epa);
  if (rc == ZOLTAN_OK || rc == ZOLTAN_WARN) {
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  }
  Zoltan_Destroy(&zz);
  return rc != ZOLTAN_OK && rc != ZOLTAN_WARN;
}

/* Why zp_native_bounds keeps HSFC off the trial, or NULL; *grain is the
 * heaviest object over the smallest part's load and *zero 1 when a part has
 * size zero. */
static const char *trial_bounds(const problem *p, int nparts, const float *sizes, double *grain,
                                int *zero)
{
  double heavy = 0.0, total = 0.0, sum = 0.0, smin = 0.0;
  for (int i = 0; i < p->n; i++) {
    total += p->w[i];
    heavy = p->w[i] > heavy ? p->w[i] : heavy;
  }
  *zero = 0;
  for (int k = 0; k < nparts; k++) sum += sizes != NULL ? sizes[k] : 1.0;
  for (int k = 0; k < nparts; k++) {
    double s = (sizes != NULL ? sizes[k] : 1.0) / sum;
    if (s <= 0.0) *zero = 1;
    if (s > 0.0 && (smin == 0.0 || s < smin)) smin = s;
  }
  *grain = total > 0.0 ? heavy / (smin * total) : 0.0;
  return zp_native_bounds("HSFC", nparts, 1, heavy, total, smin, *zero);
}

int main(int argc, char **argv)
{
  enum { ZERO, LIGHT, MID, HEAVY, CLASSES };
  static const char *const name[CLASSES] = {
      "a part of size zero", "heaviest object <= 0.5 of the smallest part's share",
      "heaviest object in (0.5, 1] of it", "heaviest object > 1 of it"};
  long trials = 20000, runs[CLASSES] = {0}, fails[CLASSES] = {0}, bad = 0;
  unsigned long long seed = 1;
  int size, status;
  float ver;
  zp_rng r;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--trials") == 0 && i + 1 < argc)
      trials = atol(argv[++i]);
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "zp_hsfc_probe: unknown argument '%s'\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  if (size != 1 || trials < 1) {
    /* On several ranks a failure of HSFC is the hang this probe avoids. */
    fprintf(stderr, "zp_hsfc_probe: runs on one rank with --trials >= 1\n");
    MPI_Finalize();
    return 2;
  }
  Zoltan_Initialize(argc, argv, &ver);
  zp_rng_seed(&r, seed);
  for (long t = 0; t < trials; t++) {
    problem p;
    float sizes[MAX_PARTS];
    int nparts = 2 + (int)zp_rng_below(&r, MAX_PARTS - 1), model = (int)zp_rng_below(&r, 6);
    int how = (int)zp_rng_below(&r, 3), cls, failed, zero;
    double grain;
    const char *outside;
    p.n = 20 + (int)zp_rng_below(&r, MAX_OBJ - 19);
    for (int i = 0; i < p.n; i++) {
      p.x[i] = zp_rng_uniform(&r);
      p.y[i] = zp_rng_uniform(&r);
      p.w[i] = draw_weight(&r, model);
    }
    for (int k = 0; k < nparts; k++)
      sizes[k] =
          (how == 2 && zp_rng_uniform(&r) < 0.3) ? 0.0f : (float)(0.1 + 5.0 * zp_rng_uniform(&r));
    if (how == 2 && sizes[0] == 0.0f && sizes[1] == 0.0f) sizes[1] = 1.0f;
    outside = trial_bounds(&p, nparts, how == 0 ? NULL : sizes, &grain, &zero);
    failed = run_hsfc(&p, nparts, how == 0 ? NULL : sizes);
    cls = zero ? ZERO : grain <= 0.5 ? LIGHT : grain <= 1.0 ? MID : HEAVY;
    runs[cls]++;
    fails[cls] += failed;
    if (failed && outside == NULL) {
      bad++;
      printf("trial %ld: HSFC failed within zp_native_bounds (%d objects, %d parts, heaviest "
             "object %.4g of the smallest part)\n",
             t, p.n, nparts, grain);
    }
  }
  printf("zp_hsfc_probe: Zoltan's HSFC on %ld random problems (one rank, seed %llu)\n", trials,
         seed);
  for (int k = 0; k < CLASSES; k++)
    printf("  %-55s failed %5ld of %5ld\n", name[k], fails[k], runs[k]);
  status = bad > 0 || fails[ZERO] + fails[MID] + fails[HEAVY] == 0;
  printf("zp_hsfc_probe: %s\n", bad > 0  ? "FAILED: HSFC failed within zp_native_bounds"
                                : status ? "FAILED: HSFC never failed; the probe shows nothing"
                                         : "every failure is outside zp_native_bounds");
  MPI_Finalize();
  return status;
}
