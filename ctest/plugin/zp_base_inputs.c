/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The base method of a distributed method (ULBA's ULBA_BASE_METHOD) gets
 * exactly the inputs it gets when it is selected directly, and a callback
 * that fails on one rank before a native base method runs makes every rank
 * return an error instead of hanging inside Zoltan.
 *
 * Usage: zp_base_inputs CASE [BASE]
 *   same_as_direct BASE  ULBA's first balance (alpha is 0 without history,
 *                        so ULBA runs its base once with the application's
 *                        part sizes) must give the assignment BASE gives
 *                        when selected directly.  BASE is one of:
 *                        PROBE   a test method that needs coordinates and
 *                                wants the graph (it fails without them)
 *                                and keeps its labels (ZP_NO_REMAP): it
 *                                moves every object to the next part;
 *                        ROTATE  the same move without any input needs, so
 *                                that only the ZP_NO_REMAP flag is tested;
 *                        REFINE  with REFINE_COMM_AWARE=1 and graph
 *                                callbacks (CTest also fails the run when
 *                                REFINE warns that the graph is missing).
 *   served BASE [single] ULBA over the geometric BASE (RCB, RIB, HSFC) calls
 *                        the application's geometry callback as often as
 *                        BASE alone does (the layer reads it once and
 *                        Zoltan's method is answered from what it read,
 *                        zp_serve.c) and gives BASE's assignment; with
 *                        "single" the geometry, the objects and the parts
 *                        come from the single forms (ZOLTAN_GEOM_FN,
 *                        FIRST/NEXT_OBJ, ZOLTAN_PART_FN), which are back in
 *                        place, alone, after the call.
 *   callback_error BASE  the geometry (RCB, RIB, HSFC) or edge-list (PHG)
 *                        callback fails on rank 1 only: ULBA over BASE must
 *                        return an error on every rank, with no lists.  A
 *                        hang is caught by the CTest TIMEOUT.
 * Exits 0 when every check passed on every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>
#include <zoltan_plugins.h>

#include "zpt_app.h"
#include "zpt_check.h"

static int g_rank, g_size;
/* The shared checks of ctest/common, under the short name of this file. */
#define CHECK ZPT_CHECK

/* Objects 1..NUM_OBJ sit on a GRID_W-wide grid and are dealt cyclically,
 * so the owner of GID g is rank (g - 1) mod size. */
#define NUM_OBJ 240
#define GRID_W  12

/* Rank whose geometry or edge-list callback fails (-1: none). */
static int g_geom_fail_rank = -1;
static int g_edge_fail_rank = -1;

/* Calls of the geometry callbacks on this rank (one per object for the
 * single form), and whether the single form is the one registered. */
static long g_geom_calls;
static int g_single_geom;

/* Number of directed grid edges, which PROBE checks it received whole. */
static size_t g_total_edges;

/* ---- callbacks ------------------------------------------------------------ */

static void cb_geom(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                    int dim, double *x, int *ierr)
{
  int i;
  (void)d;
  (void)ngid;
  (void)nlid;
  (void)lids;
  (void)dim;
  g_geom_calls++;
  for (i = 0; i < n; i++) {
    ZOLTAN_ID_TYPE g = gids[i] - 1;
    /* A small GID-dependent offset keeps geometric methods away from ties. */
    x[2 * i] = (double)(g % GRID_W) + 0.001 * (double)(g % 7);
    x[2 * i + 1] = (double)(g / GRID_W) + 0.001 * (double)(g % 5);
  }
  *ierr = g_rank == g_geom_fail_rank ? ZOLTAN_FATAL : ZOLTAN_OK;
}

/* The same coordinates, one object per call. */
static void cb_geom_one(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                        double *x, int *ierr)
{
  ZOLTAN_ID_TYPE g = gid[0] - 1;
  (void)d;
  (void)ngid;
  (void)nlid;
  (void)lid;
  g_geom_calls++;
  x[0] = (double)(g % GRID_W) + 0.001 * (double)(g % 7);
  x[1] = (double)(g / GRID_W) + 0.001 * (double)(g % 5);
  *ierr = ZOLTAN_OK;
}

/* The objects one at a time, and their parts, for the single forms: the
 * local ID is the index in the store, as zpt_cb_obj_list gives it. */
static void one_object(const zpt_app *a, int i, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int wdim,
                       float *w)
{
  gid[0] = a->o[i].gid;
  lid[0] = (ZOLTAN_ID_TYPE)i;
  if (wdim > 0) w[0] = (float)a->o[i].w;
}

static int cb_first(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int wdim,
                    float *w, int *ierr)
{
  const zpt_app *a = d;
  (void)ngid;
  (void)nlid;
  *ierr = ZOLTAN_OK;
  if (a->n == 0) return 0;
  one_object(a, 0, gid, lid, wdim, w);
  return 1;
}

static int cb_next(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                   ZOLTAN_ID_PTR next_gid, ZOLTAN_ID_PTR next_lid, int wdim, float *next_w,
                   int *ierr)
{
  const zpt_app *a = d;
  int i = (int)lid[0] + 1;
  (void)ngid;
  (void)nlid;
  (void)gid;
  *ierr = ZOLTAN_OK;
  if (i >= a->n) return 0;
  one_object(a, i, next_gid, next_lid, wdim, next_w);
  return 1;
}

static int cb_part_one(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int *ierr)
{
  const zpt_app *a = d;
  (void)ngid;
  (void)nlid;
  (void)gid;
  *ierr = ZOLTAN_OK;
  return a->o[lid[0]].part;
}

/* Grid neighbours of a GID (left, right, up, down when they exist). */
static int grid_neighbours(ZOLTAN_ID_TYPE gid, ZOLTAN_ID_TYPE *out)
{
  int k = 0;
  ZOLTAN_ID_TYPE g = gid - 1;
  if (g % GRID_W > 0) out[k++] = gid - 1;
  if (g % GRID_W < GRID_W - 1 && gid + 1 <= NUM_OBJ) out[k++] = gid + 1;
  if (g >= GRID_W) out[k++] = gid - GRID_W;
  if (gid + GRID_W <= NUM_OBJ) out[k++] = gid + GRID_W;
  return k;
}

static void cb_num_edges(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int *ne, int *ierr)
{
  ZOLTAN_ID_TYPE nb[4];
  int i;
  (void)d;
  (void)ngid;
  (void)nlid;
  (void)lids;
  for (i = 0; i < n; i++) ne[i] = grid_neighbours(gids[i], nb);
  *ierr = ZOLTAN_OK;
}

static void cb_edges(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *ne, ZOLTAN_ID_PTR nbr, int *nbr_procs, int ewgt_dim, float *ewgts,
                     int *ierr)
{
  int i, k, off = 0;
  (void)d;
  (void)ngid;
  (void)nlid;
  (void)lids;
  (void)ne;
  for (i = 0; i < n; i++) {
    int cnt = grid_neighbours(gids[i], nbr + off);
    for (k = 0; k < cnt; k++) {
      nbr_procs[off + k] = (int)((nbr[off + k] - 1) % (ZOLTAN_ID_TYPE)g_size);
      if (ewgt_dim > 0) ewgts[(off + k) * ewgt_dim] = 1.0f;
    }
    off += cnt;
  }
  *ierr = g_rank == g_edge_fail_rank ? ZOLTAN_FATAL : ZOLTAN_OK;
}

/* ---- test methods ---------------------------------------------------------- */

/* Every object to the part after its current one (objects in no part to 0). */
static void next_part(const zp_problem *pb, int *new_part)
{
  size_t k;
  for (k = 0; k < pb->num_obj; k++)
    new_part[k] = pb->cur_part[k] < 0 ? 0 : (pb->cur_part[k] + 1) % pb->num_parts;
}

static int rotate_partition(const zp_problem *pb, void *state, int *new_part)
{
  (void)state;
  next_part(pb, new_part);
  return ZOLTAN_OK;
}

/* Fails unless it received every coordinate and every grid edge. */
static int probe_partition(const zp_problem *pb, void *state, int *new_part)
{
  (void)state;
  if (pb->geom_dim != 2 || pb->coords == NULL) {
    zp_error("PROBE", "coordinates missing (geom_dim %d)", pb->geom_dim);
    return ZOLTAN_FATAL;
  }
  if (pb->adj_start == NULL || pb->adj_start[pb->num_obj] != g_total_edges) {
    zp_error("PROBE", "graph missing or incomplete (%zu edges, expected %zu)",
             pb->adj_start ? pb->adj_start[pb->num_obj] : 0, g_total_edges);
    return ZOLTAN_FATAL;
  }
  next_part(pb, new_part);
  return ZOLTAN_OK;
}

static unsigned probe_needs(const zp_params *params)
{
  (void)params;
  return ZP_NEEDS_GEOM | ZP_WANTS_GRAPH | ZP_NO_REMAP;
}

static const zp_method rotate_method = {.abi = ZP_METHOD_ABI,
                                        .name = "ROTATE",
                                        .summary = "test: every object to the next part",
                                        .needs = ZP_NO_REMAP,
                                        .partition_serial = rotate_partition};
static const zp_method probe_method = {.abi = ZP_METHOD_ABI,
                                       .name = "PROBE",
                                       .summary = "test: needs coordinates and the graph",
                                       .partition_serial = probe_partition,
                                       .needs_for = probe_needs};

/* ---- running a balance ------------------------------------------------------ */

static struct Zoltan_Struct *make_struct(zpt_app *a, const char *method, const char *base)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  zpt_register(zz, a);
  Zoltan_Set_Num_Geom_Fn(zz, zpt_cb_num_geom_2, NULL);
  if (g_single_geom) {
    Zoltan_Set_Geom_Fn(zz, cb_geom_one, NULL);
    Zoltan_Set_Obj_List_Fn(zz, NULL, NULL);
    Zoltan_Set_First_Obj_Fn(zz, cb_first, a);
    Zoltan_Set_Next_Obj_Fn(zz, cb_next, a);
    Zoltan_Set_Part_Fn(zz, cb_part_one, a);
  } else {
    Zoltan_Set_Geom_Multi_Fn(zz, cb_geom, NULL);
  }
  Zoltan_Set_Num_Edges_Multi_Fn(zz, cb_num_edges, NULL);
  Zoltan_Set_Edge_List_Multi_Fn(zz, cb_edges, NULL);
  Zoltan_Set_Param(zz, "REFINE_COMM_AWARE", "1");
  CHECK(Zoltan_Set_Param(zz, "LB_METHOD", method) == ZOLTAN_OK, "LB_METHOD %s refused", method);
  if (base != NULL)
    CHECK(Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", base) == ZOLTAN_OK,
          "ULBA_BASE_METHOD %s refused", base);
  return zz;
}

/* One balance; parts[i] receives the new part of local object i.  Returns
 * Zoltan's code; *nlists is the number of list entries left behind. */
static int balance(zpt_app *a, const char *method, const char *base, int *parts, int *nlists)
{
  struct Zoltan_Struct *zz = make_struct(a, method, base);
  int changes, ngid, nlid, nimp = -9, nexp = -9, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL,
                           i, ierr;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  ZOLTAN_VOID_FN *multi = NULL, *one = NULL, *list = NULL, *first = NULL, *pmulti = NULL,
                 *pone = NULL;
  void *data = NULL;
  ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
  /* The callbacks the application registered, and only those, are in
   * place after the call, whatever stood in front of them during it. */
  Zoltan_Get_Fn(zz, ZOLTAN_GEOM_MULTI_FN_TYPE, &multi, &data);
  Zoltan_Get_Fn(zz, ZOLTAN_GEOM_FN_TYPE, &one, &data);
  CHECK(g_single_geom ? multi == NULL && one == (ZOLTAN_VOID_FN *)cb_geom_one
                      : multi == (ZOLTAN_VOID_FN *)cb_geom && one == NULL,
        "%s: the geometry callbacks after the call are not the application's", method);
  Zoltan_Get_Fn(zz, ZOLTAN_OBJ_LIST_FN_TYPE, &list, &data);
  Zoltan_Get_Fn(zz, ZOLTAN_FIRST_OBJ_FN_TYPE, &first, &data);
  Zoltan_Get_Fn(zz, ZOLTAN_PART_MULTI_FN_TYPE, &pmulti, &data);
  Zoltan_Get_Fn(zz, ZOLTAN_PART_FN_TYPE, &pone, &data);
  CHECK(g_single_geom ? list == NULL && first == (ZOLTAN_VOID_FN *)cb_first && pmulti == NULL &&
                            pone == (ZOLTAN_VOID_FN *)cb_part_one
                      : list != NULL && pmulti != NULL && pone == NULL,
        "%s: the object or part callbacks after the call are not the application's", method);
  for (i = 0; i < a->n; i++) parts[i] = -1;
  for (i = 0; ierr >= 0 && i < nexp; i++)
    if (el[i] < (ZOLTAN_ID_TYPE)a->n) parts[el[i]] = epa[i];
  *nlists = (nimp > 0 ? nimp : 0) + (nexp > 0 ? nexp : 0);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  Zoltan_Destroy(&zz);
  return ierr;
}

/* Does cond hold on every rank? */
static int all_ranks(int cond)
{
  int g;
  MPI_Allreduce(&cond, &g, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return g;
}

/* ULBA over base gives what base gives alone. */
static void same_as_direct(zpt_app *a, const char *base)
{
  int *direct = malloc(((size_t)a->n + 1) * sizeof *direct),
      *ulba = malloc(((size_t)a->n + 1) * sizeof *ulba);
  int i, nl, differ = 0, e1, e2;
  if (direct == NULL || ulba == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  e1 = balance(a, base, NULL, direct, &nl);
  e2 = balance(a, "ULBA", base, ulba, &nl);
  CHECK(all_ranks(e1 == ZOLTAN_OK), "%s alone returned %d here", base, e1);
  CHECK(all_ranks(e2 == ZOLTAN_OK), "ULBA over %s returned %d here", base, e2);
  for (i = 0; i < a->n; i++) differ += direct[i] != ulba[i];
  CHECK(differ == 0, "ULBA over %s put %d of %d local objects elsewhere than %s alone", base,
        differ, a->n, base);
  if (strcmp(base, "REFINE") != 0) {
    /* Both test methods move every object to the next part: a relabelling
     * (REMAP) of the answer would have undone the move. */
    for (i = 0; i < a->n; i++)
      CHECK(ulba[i] == (a->o[i].part + 1) % g_size, "GID %u went to part %d, expected %d",
            a->o[i].gid, ulba[i], (a->o[i].part + 1) % g_size);
  }
  free(direct);
  free(ulba);
}

/* ULBA over a geometric base reads the geometry as often as the base alone
 * (never more) and gives its answer. */
static void served(zpt_app *a, const char *base)
{
  int *direct = malloc(((size_t)a->n + 1) * sizeof *direct),
      *ulba = malloc(((size_t)a->n + 1) * sizeof *ulba);
  int i, nl, differ = 0, e1, e2;
  long alone, under;
  if (direct == NULL || ulba == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  g_geom_calls = 0;
  e1 = balance(a, base, NULL, direct, &nl);
  alone = g_geom_calls;
  g_geom_calls = 0;
  e2 = balance(a, "ULBA", base, ulba, &nl);
  under = g_geom_calls;
  CHECK(all_ranks(e1 == ZOLTAN_OK), "%s alone returned %d here", base, e1);
  CHECK(all_ranks(e2 == ZOLTAN_OK), "ULBA over %s returned %d here", base, e2);
  CHECK(alone == (g_single_geom ? a->n : a->n > 0), "%s alone called the geometry %ld times", base,
        alone);
  /* With one part the layer answers without running the base (every
   * object in part 0), and since the base reads the coordinates itself
   * (zp_serve's deferred geometry) nothing reads them then. */
  CHECK(under == alone || (g_size == 1 && under == 0),
        "ULBA over %s called the geometry %ld times, %s alone %ld", base, under, base, alone);
  for (i = 0; i < a->n; i++) differ += direct[i] != ulba[i];
  CHECK(differ == 0, "ULBA over %s put %d of %d local objects elsewhere than %s alone", base,
        differ, a->n, base);
  free(direct);
  free(ulba);
}

/* One rank's callback fails: every rank returns an error and no lists. */
static void callback_error(zpt_app *a, const char *base)
{
  int *parts = malloc(((size_t)a->n + 1) * sizeof *parts), nl = 0, ierr;
  if (parts == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  if (strcmp(base, "PHG") == 0)
    g_edge_fail_rank = 1;
  else
    g_geom_fail_rank = 1;
  ierr = balance(a, "ULBA", base, parts, &nl);
  CHECK(all_ranks(ierr < 0), "ULBA over %s returned %d here; an error on every rank was expected",
        base, ierr);
  CHECK(nl == 0, "the failed balance left %d list entries", nl);
  g_geom_fail_rank = g_edge_fail_rank = -1;
  free(parts);
}

int main(int argc, char **argv)
{
  zpt_app a;
  float ver;
  int i, g;
  ZOLTAN_ID_TYPE nb[4];

  MPI_Init(&argc, &argv);
  zpt_app_init(&a);
  g_rank = a.rank;
  g_size = a.size;
  Zoltan_Initialize(argc, argv, &ver);
  CHECK(zp_register_method(&rotate_method) == ZOLTAN_OK, "ROTATE refused");
  CHECK(zp_register_method(&probe_method) == ZOLTAN_OK, "PROBE refused");
  for (i = 1; i <= NUM_OBJ; i++) {
    g_total_edges += (size_t)grid_neighbours((ZOLTAN_ID_TYPE)i, nb);
    if ((i - 1) % a.size == a.rank) {
      /* Rank 0's objects are heavier, so that REFINE has work to do. */
      zpt_obj o = {(ZOLTAN_ID_TYPE)i, a.rank == 0 ? 3.0f : 1.0f, a.rank, 0};
      zpt_app_push(&a, o);
    }
  }
  if (argc == 3 && strcmp(argv[1], "same_as_direct") == 0) {
    same_as_direct(&a, argv[2]);
  } else if ((argc == 3 || (argc == 4 && strcmp(argv[3], "single") == 0)) &&
             strcmp(argv[1], "served") == 0) {
    g_single_geom = argc == 4;
    served(&a, argv[2]);
  } else if (argc == 3 && strcmp(argv[1], "callback_error") == 0) {
    callback_error(&a, argv[2]);
  } else {
    ZPT_CHECK(0, "usage: zp_base_inputs same_as_direct|served|callback_error BASE");
  }
  free(a.o);
  g = zpt_check_total();
  if (a.rank == 0) printf("zp_base_inputs: %s\n", g ? "FAILED" : "passed");
  MPI_Finalize();
  return g ? 1 : 0;
}
