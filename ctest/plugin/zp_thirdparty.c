/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A third-party method registered through the public registry API, run
 * through the plain Zoltan API.  ROUNDROBIN sends the k-th object in GID
 * order to part (k + RR_OFFSET) mod P, which makes every list checkable;
 * KEEPPARTS is a distributed method that leaves every object where it is.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>
#include <zoltan_plugins.h>

#include "zpt_check.h"

static int g_rank;

static const zp_param_def rr_params[] = {
  {"RR_OFFSET", ZP_PARAM_INT, "0", 0, 1000000, 0, NULL, "first part of the round robin"},
  {"RR_SCALE", ZP_PARAM_DOUBLE, "0.5", 0, 1, ZP_PARAM_MAX_OPEN, (const char *const[]){"AUTO", NULL},
   "an unused number in [0, 1) or AUTO, to test keywords"},
};

static int rr_partition(const zp_problem *pb, void *state, int *new_part)
{
  int off = 0, kw = 1;
  double sc = -1.0;
  size_t k;
  (void)state;
  if (zp_param_int(pb->params, "RR_OFFSET", &off, NULL) != ZOLTAN_OK) return ZOLTAN_FATAL;
  if (zp_param_double(pb->params, "RR_SCALE", &sc, &kw) != ZOLTAN_OK) return ZOLTAN_FATAL;
  for (k = 0; k < pb->num_obj; k++) {
    /* Objects arrive sorted by GID: check it, since the method relies on it. */
    if (k > 0 && pb->gids[k - 1] >= pb->gids[k]) return ZOLTAN_FATAL;
    new_part[k] = (int)((k + (size_t)off) % (size_t)pb->num_parts);
  }
  return ZOLTAN_OK;
}

static const zp_method rr_method = {"ROUNDROBIN", "test method", rr_params, 2, 0, NULL, NULL, NULL,
                                    rr_partition, NULL, NULL};

static int keep_partition(zp_context *ctx, void *state, int *new_part)
{
  int i, n = zp_ctx_num_local(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  (void)state;
  for (i = 0; i < n; i++) new_part[i] = cur[i] >= 0 ? cur[i] : 0;
  return ZOLTAN_OK;
}

static const zp_method keep_method = {"KEEPPARTS", "test method", NULL, 0, 0, NULL, NULL, NULL, NULL,
                                      keep_partition, NULL};

/* Registrations that must be refused. */
static const zp_param_def clash_params[] = {
  {"RR_OFFSET", ZP_PARAM_INT, "0", 0, 10, 0, NULL, "clashes with ROUNDROBIN"}};
static const zp_param_def bad_default[] = {{"BAD_X", ZP_PARAM_INT, "11", 0, 10, 0, NULL, "default out of range"}};
static const zp_method clash = {"CLASH", "x", clash_params, 1, 0, NULL, NULL, NULL, rr_partition, NULL, NULL};
static const zp_method native = {"RCB", "x", NULL, 0, 0, NULL, NULL, NULL, rr_partition, NULL, NULL};
static const zp_method both = {"BOTH", "x", NULL, 0, 0, NULL, NULL, NULL, rr_partition, keep_partition, NULL};
static const zp_method baddef = {"BADDEF", "x", bad_default, 1, 0, NULL, NULL, NULL, rr_partition, NULL, NULL};

#define NLOC 10
static ZOLTAN_ID_TYPE g_gids[NLOC];
static int g_parts[NLOC];

static int num_obj(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return NLOC;
}

static void obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wd, float *w, int *ierr)
{
  int i;
  (void)d;
  (void)ng;
  (void)nl;
  (void)wd;
  (void)w;
  for (i = 0; i < NLOC; i++) {
    gids[i] = g_gids[i];
    lids[i] = (ZOLTAN_ID_TYPE)i;
  }
  *ierr = ZOLTAN_OK;
}

static void part_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int *parts, int *ierr)
{
  int i;
  (void)d;
  (void)ng;
  (void)nl;
  (void)gids;
  for (i = 0; i < n; i++) parts[i] = g_parts[lids[i]];
  *ierr = ZOLTAN_OK;
}

/* Run a partition and return the number of objects that stay in place. */
static int run(struct Zoltan_Struct *zz, int P, int offset, int expect_exact)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, i, ierr, stay = 0, total;
  ZOLTAN_ID_PTR ig, il, eg, el;
  int newp[NLOC];
  ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el, &ep, &epa);
  ZPT_CHECK(ierr == ZOLTAN_OK, "ROUNDROBIN returned %d", ierr);
  if (ierr != ZOLTAN_OK) return -1;
  for (i = 0; i < NLOC; i++) newp[i] = g_parts[i];
  for (i = 0; i < nexp; i++) newp[el[i]] = epa[i];
  for (i = 0; i < NLOC; i++) {
    /* GID g is the (g-1)-th object in GID order. */
    int want = (int)((g_gids[i] - 1 + (ZOLTAN_ID_TYPE)offset) % (ZOLTAN_ID_TYPE)P);
    if (expect_exact) ZPT_CHECK(newp[i] == want, "GID %u went to part %d, expected %d", g_gids[i], newp[i], want);
    stay += newp[i] == g_parts[i];
  }
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  MPI_Allreduce(&stay, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

int main(int argc, char **argv)
{
  int P, i, changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, ierr, stay_plain, stay_remap;
  ZOLTAN_ID_PTR ig, il, eg, el;
  struct Zoltan_Struct *zz;
  float ver;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  Zoltan_Initialize(argc, argv, &ver);

  /* A good description registers; bad ones are refused with a message. */
  ZPT_CHECK(zp_register_method(&rr_method) == ZOLTAN_OK, "ROUNDROBIN refused");
  ZPT_CHECK(zp_register_method(&keep_method) == ZOLTAN_OK, "KEEPPARTS refused");
  ZPT_CHECK(zp_register_method(&rr_method) == ZOLTAN_FATAL, "duplicate ROUNDROBIN accepted");
  ZPT_CHECK(zp_register_method(&clash) == ZOLTAN_FATAL, "parameter clash accepted");
  ZPT_CHECK(zp_register_method(&native) == ZOLTAN_FATAL, "native name RCB accepted");
  ZPT_CHECK(zp_register_method(&both) == ZOLTAN_FATAL, "method with two partition functions accepted");
  ZPT_CHECK(zp_register_method(&baddef) == ZOLTAN_FATAL, "out-of-range default accepted");
  ZPT_CHECK(zp_find_method("roundrobin") == &rr_method, "lookup is not case-insensitive");

  /* Objects: rank r holds GIDs r+1, r+1+P, ...: interleaved across ranks. */
  for (i = 0; i < NLOC; i++) {
    g_gids[i] = (ZOLTAN_ID_TYPE)(g_rank + 1 + i * P);
    g_parts[i] = g_rank;
  }
  zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, NULL);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, NULL);
  Zoltan_Set_Part_Multi_Fn(zz, part_multi, NULL);
  ZPT_CHECK(Zoltan_Set_Param(zz, "LB_METHOD", " roundRobin ") == ZOLTAN_OK, "LB_METHOD=roundRobin refused");

  /* Parameter checks: out of range, not a number, keywords, DEFAULT. */
  ZPT_CHECK(Zoltan_Set_Param(zz, "RR_OFFSET", "-1") == ZOLTAN_FATAL, "RR_OFFSET=-1 accepted");
  ZPT_CHECK(Zoltan_Set_Param(zz, "RR_OFFSET", "3x") == ZOLTAN_FATAL, "RR_OFFSET=3x accepted");
  ZPT_CHECK(Zoltan_Set_Param(zz, "RR_SCALE", "1") == ZOLTAN_FATAL, "RR_SCALE=1 accepted though [0,1)");
  ZPT_CHECK(Zoltan_Set_Param(zz, "RR_SCALE", "nan") == ZOLTAN_FATAL, "RR_SCALE=nan accepted");
  ZPT_CHECK(Zoltan_Set_Param(zz, "RR_SCALE", "auto") == ZOLTAN_OK, "RR_SCALE=auto refused");
  ZPT_CHECK(Zoltan_Set_Param_Vec(zz, "RR_OFFSET", "1", 2) == ZOLTAN_FATAL, "vector index on a scalar accepted");
  ZPT_CHECK(Zoltan_Set_Param(zz, "RR_OFFSET", "true") == ZOLTAN_OK, "RR_OFFSET=true refused");
  Zoltan_Set_Param(zz, "REMAP", "0");
  run(zz, P, 1, 1); /* "true" is 1, as in Zoltan */
  ZPT_CHECK(Zoltan_Set_Param(zz, "RR_OFFSET", "DEFAULT") == ZOLTAN_OK, "DEFAULT refused");
  stay_plain = run(zz, P, 0, 1);

  /* REMAP=1 may relabel parts but never keeps fewer objects in place. */
  Zoltan_Set_Param(zz, "REMAP", "1");
  Zoltan_Set_Param(zz, "RR_OFFSET", "1");
  stay_remap = run(zz, P, 1, 0);
  {
    int stay_off1;
    Zoltan_Set_Param(zz, "REMAP", "0");
    stay_off1 = run(zz, P, 1, 1);
    ZPT_CHECK(stay_remap >= stay_off1, "REMAP kept %d objects in place, without it %d", stay_remap, stay_off1);
    ZPT_CHECK(stay_remap >= stay_plain, "REMAP kept %d objects in place, best labelling keeps %d", stay_remap,
          stay_plain);
  }

  /* A distributed method that keeps everything: no changes, empty lists. */
  Zoltan_Set_Param(zz, "LB_METHOD", "KEEPPARTS");
  ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el, &ep, &epa);
  ZPT_CHECK(ierr == ZOLTAN_OK && changes == 0 && nimp == 0 && nexp == 0, "KEEPPARTS: ierr %d changes %d lists %d/%d",
        ierr, changes, nimp, nexp);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);

  /* Switching back to a native method forwards it untouched. */
  ZPT_CHECK(Zoltan_Set_Param(zz, "LB_METHOD", "BLOCK") == ZOLTAN_OK, "LB_METHOD=BLOCK refused");
  ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el, &ep, &epa);
  ZPT_CHECK(ierr == ZOLTAN_OK, "BLOCK returned %d", ierr);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);

  Zoltan_Destroy(&zz);
  {
    int g = zpt_check_total();
    if (g_rank == 0) printf("zp_thirdparty: %s\n", g ? "FAILED" : "passed");
    MPI_Finalize();
    return g ? 1 : 0;
  }
}
