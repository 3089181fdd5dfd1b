/* SPDX-License-Identifier: BSD-3-Clause */
/* The base method's cuts for Zoltan's point and box queries under ULBA.
 *
 * ULBA runs its base method through zp_ctx_run_base, which restores the
 * application's LB_METHOD afterwards; Zoltan frees a method's cuts whenever
 * LB_METHOD is set, so nothing of the base method's decomposition survives
 * in the application's struct.  When the application asked for the cuts
 * (KEEP_CUTS=1) and the base method has some (RCB, RIB, HSFC), ULBA runs the
 * base method once more, natively, on a copy of the struct with the sizes of
 * the balance's last run, checks that the copy assigns every object as the
 * balance did, and hands the copy and its part relabelling to the layer
 * (zp_set_geometry).  The extra run is paid only by applications that set
 * KEEP_CUTS=1, as RCB itself charges them for keeping its tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "ulba_adapter.h"
#include "zp_hooks.h"
#include "zp_method.h"

int ulba_keeping_cuts;

/* Base methods whose cuts Zoltan's point and box queries read. */
static int has_cuts(const char *base)
{
  return strcmp(base, "RCB") == 0 || strcmp(base, "RIB") == 0 || strcmp(base, "HSFC") == 0;
}

void ulba_cuts_forget(ulba_cuts *k, struct Zoltan_Struct *zz)
{
  if (zz != NULL && k->zz != NULL) zp_clear_geometry(zz, k->zz);
}

void ulba_cuts_free(ulba_cuts *k, struct Zoltan_Struct *zz)
{
  ulba_cuts_forget(k, zz);
  if (k->zz != NULL) Zoltan_Destroy(&k->zz);
  free(k->part_map);
  k->zz = NULL;
  k->part_map = NULL;
  k->num_parts = 0;
}

/* Give the copy the settings of the balance's last base run, as
 * zp_ctx_run_base gives them to the application's struct. */
static int configure_copy(struct Zoltan_Struct *cz, const zp_context *ctx,
                          const ulba_final_run *run)
{
  int P = zp_ctx_num_parts(ctx), wd = zp_ctx_wgt_dim(ctx), ok = 1;
  ok &= Zoltan_Set_Param(cz, "LB_METHOD", run->base) == ZOLTAN_OK;
  ok &= Zoltan_Set_Param(cz, "AUTO_MIGRATE", "FALSE") == ZOLTAN_OK;
  ok &= Zoltan_Set_Param(cz, "RETURN_LISTS", "PARTS") == ZOLTAN_OK;
  /* The balance already printed what the user asked for. */
  ok &= Zoltan_Set_Param(cz, "DEBUG_LEVEL", "0") == ZOLTAN_OK;
  /* zp_ctx_run_base hides all-zero weights so that Zoltan balances counts. */
  if (wd == 1 && run->W == 0.0) ok &= Zoltan_Set_Param(cz, "OBJ_WEIGHT_DIM", "0") == ZOLTAN_OK;
  if (!run->app_sizes) {
    /* The copy holds the application's sizes; replace them by the run's,
     * rounded to float as zp_ctx_run_base rounds them. */
    int *ids = malloc(((size_t)P * wd + 1) * sizeof *ids);
    int *idx = malloc(((size_t)P * wd + 1) * sizeof *idx);
    float *fs = malloc(((size_t)P * wd + 1) * sizeof *fs);
    ok &= ids != NULL && idx != NULL && fs != NULL;
    for (int i = 0; ok && i < P; i++)
      for (int d = 0; d < wd; d++) {
        ids[i * wd + d] = i;
        idx[i * wd + d] = d;
        fs[i * wd + d] = (float)run->sizes[(size_t)i * wd + d];
      }
    if (ok) {
      Zoltan_LB_Set_Part_Sizes(cz, 1, -1, NULL, NULL, NULL);
      ok &= Zoltan_LB_Set_Part_Sizes(cz, 1, P * wd, ids, idx, fs) == ZOLTAN_OK;
    }
    free(ids);
    free(idx);
    free(fs);
  }
  return ok ? ZOLTAN_OK : ZOLTAN_FATAL;
}

/* Objects whose part on the copy, relabelled, differs from the balance's
 * (every local object must appear once in the copy's complete list). */
static long count_mismatches(const zp_context *ctx, const ulba_final_run *run, int P, int nexp,
                             const ZOLTAN_ID_TYPE *eg, const int *epa)
{
  long bad = 0;
  int n = zp_ctx_num_local(ctx), ngid = zp_ctx_num_gid_entries(ctx);
  const ZOLTAN_ID_TYPE *gids = zp_ctx_local_gids(ctx);
  char *seen = calloc((size_t)n + 1, 1);
  if (seen == NULL) return n + 1L;
  bad = nexp != n;
  for (int k = 0; k < nexp && !bad; k++) {
    const ZOLTAN_ID_TYPE *g = eg + (size_t)k * ngid;
    int i = k, q = epa[k];
    /* Zoltan lists the objects in the order of the object list, as a rule:
     * the layer's ID map is asked only for a list that leaves it. */
    if (memcmp(g, gids + (size_t)k * ngid, (size_t)ngid * sizeof *g) != 0) {
      long at = zp_ctx_find_local(ctx, g);
      if (at < -1) {
        bad = n + 1L;
        break;
      }
      i = (int)at;
    }
    int p = (q >= 0 && q < P && run->part_map != NULL) ? run->part_map[q] : q;
    if (i < 0 || seen[i] || p != run->new_part[i])
      bad++;
    else
      seen[i] = 1;
  }
  free(seen);
  return bad;
}

/* Run the base method on the copy; ZOLTAN_OK when it reproduces the
 * balance on every rank. */
static int run_copy(struct Zoltan_Struct *cz, const zp_context *ctx, const ulba_final_run *run)
{
  MPI_Comm comm = zp_ctx_comm(ctx);
  int changes, ngid, nlid, nimp = 0, nexp = 0, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  long bad = 0, all_bad = 0;
  int ierr;
  ulba_keeping_cuts++;
  ierr = Zoltan_LB_Partition(cz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
  ulba_keeping_cuts--;
  ierr = zp_agree_code(comm, ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN ? ZOLTAN_OK : ZOLTAN_FATAL);
  if (ierr == ZOLTAN_OK) bad = count_mismatches(ctx, run, zp_ctx_num_parts(ctx), nexp, eg, epa);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  if (ierr != ZOLTAN_OK) return ierr;
  if (MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, comm) != MPI_SUCCESS) return ZOLTAN_FATAL;
  return all_bad == 0 ? ZOLTAN_OK : ZOLTAN_WARN;
}

/* The part map of the kept cuts (identity when run->part_map is NULL). */
static int set_map(ulba_cuts *k, int P, const int *part_map)
{
  int *m = realloc(k->part_map, ((size_t)P + 1) * sizeof *m);
  if (m == NULL) return ZOLTAN_MEMERR;
  for (int q = 0; q < P; q++) m[q] = part_map != NULL ? part_map[q] : q;
  k->part_map = m;
  k->num_parts = P;
  return ZOLTAN_OK;
}

void ulba_cuts_keep(ulba_cuts *k, zp_context *ctx, const ulba_final_run *run)
{
  struct Zoltan_Struct *zz = zp_ctx_zz(ctx);
  MPI_Comm comm = zp_ctx_comm(ctx);
  int P = zp_ctx_num_parts(ctx), rank = 0, wanted = zp_geometry_wanted(zz), all_wanted = 0;
  const char *why = NULL;
  zp_geometry g;
  MPI_Comm_rank(comm, &rank);
  /* The previous balance's cuts describe another assignment. */
  ulba_cuts_free(k, zz);
  MPI_Allreduce(&wanted, &all_wanted, 1, MPI_INT, MPI_MIN, comm);
  if (!all_wanted || !has_cuts(run->base)) return;
  k->zz = Zoltan_Copy(zz);
  if (zp_agree_code(comm, k->zz != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR) != ZOLTAN_OK) {
    why = "the struct could not be copied";
  } else if (zp_agree_code(comm, configure_copy(k->zz, ctx, run)) != ZOLTAN_OK) {
    why = "the copy refused the base method's settings";
  } else {
    int e = run_copy(k->zz, ctx, run);
    if (e == ZOLTAN_WARN)
      why = "the base method cut the copy differently";
    else if (e != ZOLTAN_OK)
      why = "the base method failed on the copy";
  }
  if (why == NULL && zp_agree_code(comm, set_map(k, P, run->part_map)) != ZOLTAN_OK)
    why = "out of memory";
  if (why == NULL) {
    g.cuts = k->zz;
    g.part_map = k->part_map;
    g.num_parts = P;
    if (zp_agree_code(comm, zp_set_geometry(zz, &g)) != ZOLTAN_OK) why = "the layer refused them";
  }
  if (why != NULL) {
    if (rank == 0)
      zp_warn(zp_ctx_where(ctx),
              "ULBA: the cuts of base method %s are not kept for point and box "
              "queries (%s); the queries will fail",
              run->base, why);
    ulba_cuts_free(k, zz);
  }
}
