/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LB_METHOD=AUTO's figures added over the ranks (advisor/advisor_eval.c)
 * against the same figures on the gathered problem (loaddb_evaluate and
 * advisor_traits_measure on zp_ctx_gather_dump's dump), through a test
 * method that computes both inside one Zoltan_LB_Partition call.
 *
 * The problem: 600 objects on a 30 x 20 grid (GIDs 1..600), weights and
 * current parts (5 parts) as functions of the GID, a few weights 0, the
 * grid's 4-neighbour edges weighted by their ends, and one edge to an
 * object that exists nowhere (it counts in no cut, as in loaddb_evaluate).
 * The candidate answer is a function of the GID as well.  It runs twice:
 * objects dealt to the ranks in turn (edges between ranks), and every
 * object on rank 0.  Checks: the distributed figures equal the gathered
 * ones to 1e-12 (the gathered ones are plain sums in ID order), and they
 * are the same bits in both layouts (reproducible sums), hence at every
 * rank count of the test.  A wrong far-end lookup, a lost or doubled
 * object or edge, or a sum that depends on the order fails it.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>
#include <zoltan_plugins/zoltan_plugins.h>

#include "advisor_core.h"
#include "advisor_eval.h"
#include "loaddb_dump.h"
#include "loaddb_eval.h"

#define NX    30
#define NY    20
#define N     (NX * NY)
#define PARTS 5
#define COST  1.5
#define GHOST 100000 /* the GID of the far end that exists nowhere */

static int g_rank, g_size, g_fail;
/* The figures of the last call: over the ranks, and on the dump (rank 0). */
static loaddb_eval g_ev, g_ev_root;
static advisor_traits g_t, g_t_root;
static int g_ok;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "rank %d: FAIL: ", g_rank);                                                  \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      g_fail = 1;                                                                                  \
    }                                                                                              \
  } while (0)

static double weight_of(ZOLTAN_ID_TYPE g)
{
  return g % 13 == 0 ? 0.0 : 1.0 + (double)(g * 37 % 101) / 7.0;
}
static int part_of(ZOLTAN_ID_TYPE g) { return (int)(g % PARTS); }
static int answer_of(ZOLTAN_ID_TYPE g) { return (int)((g / 7 + g % 3) % PARTS); }

/* The application: the GIDs this rank holds. */
typedef struct app {
  ZOLTAN_ID_TYPE *gid;
  int n;
  int all_on_root; /* 1: every object on rank 0 */
} app;

static int owner_of(const app *a, ZOLTAN_ID_TYPE g)
{
  return a->all_on_root ? 0 : (int)(g % (ZOLTAN_ID_TYPE)g_size);
}

static int cb_num_obj(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((app *)d)->n;
}

static void cb_obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wd,
                        float *w, int *ierr)
{
  app *a = d;
  (void)ng;
  (void)nl;
  for (int i = 0; i < a->n; i++) {
    gids[i] = a->gid[i];
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wd > 0) w[i] = (float)weight_of(a->gid[i]);
  }
  *ierr = ZOLTAN_OK;
}

static void cb_parts(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *parts, int *ierr)
{
  (void)d;
  (void)ng;
  (void)nl;
  (void)lids;
  for (int i = 0; i < n; i++) parts[i] = part_of(gids[i]);
  *ierr = ZOLTAN_OK;
}

/* The grid neighbours of g, and the ghost for g == 17. */
static int neighbours(ZOLTAN_ID_TYPE g, ZOLTAN_ID_TYPE nb[5])
{
  long k = (long)g - 1, x = k % NX, y = k / NX;
  int m = 0;
  if (x > 0) nb[m++] = g - 1;
  if (x < NX - 1) nb[m++] = g + 1;
  if (y > 0) nb[m++] = g - NX;
  if (y < NY - 1) nb[m++] = g + NX;
  if (g == 17) nb[m++] = GHOST;
  return m;
}

static void cb_num_edges(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int *ne, int *ierr)
{
  ZOLTAN_ID_TYPE nb[5];
  (void)d;
  (void)ng;
  (void)nl;
  (void)lids;
  for (int i = 0; i < n; i++) ne[i] = neighbours(gids[i], nb);
  *ierr = ZOLTAN_OK;
}

static void cb_edges(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *ne, ZOLTAN_ID_PTR nbor, int *procs, int ewd, float *ew, int *ierr)
{
  const app *a = d;
  ZOLTAN_ID_TYPE nb[5];
  size_t e = 0;
  (void)ng;
  (void)nl;
  (void)lids;
  (void)ne;
  for (int i = 0; i < n; i++) {
    int m = neighbours(gids[i], nb);
    for (int k = 0; k < m; k++, e++) {
      nbor[e] = nb[k];
      procs[e] = owner_of(a, nb[k]);
      if (ewd > 0) ew[e] = (float)(1 + (gids[i] + nb[k]) % 5);
    }
  }
  *ierr = ZOLTAN_OK;
}

static int ec_partition(zp_context *c, void *state, int *new_part)
{
  const ZOLTAN_ID_TYPE *g = zp_ctx_local_gids(c);
  int n = zp_ctx_num_local(c), ierr;
  advisor_far *far = NULL;
  loaddb_dump d;
  size_t *perm = NULL;
  (void)state;
  for (int i = 0; i < n; i++) new_part[i] = answer_of(g[i]);
  ierr = zp_ctx_gather_inputs(c, ZP_WANTS_GEOM | ZP_WANTS_GRAPH, "EVALCHECK");
  if (ierr >= 0) ierr = advisor_far_plan(c, &far);
  if (ierr >= 0) ierr = advisor_dist_traits(c, far, &g_t);
  if (ierr >= 0) ierr = advisor_dist_evaluate(c, far, new_part, COST, &g_ev, &g_ok);
  advisor_far_free(far);
  if (ierr < 0) return ierr;
  ierr = zp_ctx_gather_dump(c, "EVALCHECK", &d, &perm);
  if (ierr >= 0 && g_rank == 0) {
    int *np = malloc((d.nobj + 1) * sizeof *np);
    for (size_t j = 0; np != NULL && j < d.nobj; j++) np[j] = answer_of((ZOLTAN_ID_TYPE)d.gids[j]);
    CHECK(np != NULL && loaddb_evaluate(&d, np, PARTS, COST, &g_ev_root) == 0,
          "loaddb_evaluate failed");
    advisor_traits_measure(&d, PARTS, &g_t_root);
    free(np);
  }
  free(perm);
  loaddb_dump_free(&d);
  return ierr;
}

static const zp_method ec_method = {.abi = ZP_METHOD_ABI,
                                    .name = "EVALCHECK",
                                    .summary = "test method: AUTO's figures two ways",
                                    .partition_parallel = ec_partition};

static void close_to(const char *what, double a, double b)
{
  CHECK(fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b)), "%s: %.17g over the ranks, %.17g gathered", what,
        a, b);
}

/* One balance in one layout; the figures stay in the globals. */
static void run(int all_on_root)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  app a = {malloc((N + 1) * sizeof(ZOLTAN_ID_TYPE)), 0, all_on_root};
  int changes, ngid, nlid, ni, ne, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  char parts[16];
  for (ZOLTAN_ID_TYPE gg = 1; gg <= N; gg++)
    if (owner_of(&a, gg) == g_rank) a.gid[a.n++] = gg;
  snprintf(parts, sizeof parts, "%d", PARTS);
  Zoltan_Set_Param(zz, "LB_METHOD", "EVALCHECK");
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", parts);
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "EDGE_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Num_Obj_Fn(zz, cb_num_obj, &a);
  Zoltan_Set_Obj_List_Fn(zz, cb_obj_list, &a);
  Zoltan_Set_Part_Multi_Fn(zz, cb_parts, &a);
  Zoltan_Set_Num_Edges_Multi_Fn(zz, cb_num_edges, &a);
  Zoltan_Set_Edge_List_Multi_Fn(zz, cb_edges, &a);
  CHECK(Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &ni, &ig, &il, &ip, &ipa, &ne, &eg, &el,
                            &ep, &epa) == ZOLTAN_OK,
        "Zoltan_LB_Partition failed");
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  Zoltan_Destroy(&zz);
  free(a.gid);
}

static void check_against_the_dump(void)
{
  if (g_rank != 0) return;
  CHECK(g_ok, "the answer was refused");
  close_to("step", g_ev.step, g_ev_root.step);
  close_to("maxavg", g_ev.maxavg, g_ev_root.maxavg);
  close_to("cut", g_ev.cut, g_ev_root.cut);
  close_to("moved objects", g_ev.moved_obj, g_ev_root.moved_obj);
  close_to("moved weight", g_ev.moved_w, g_ev_root.moved_w);
  close_to("objects", g_t.objects, g_t_root.objects);
  close_to("weight cv", g_t.weight_cv, g_t_root.weight_cv);
  close_to("grain", g_t.grain, g_t_root.grain);
  close_to("comm ratio", g_t.comm_ratio, g_t_root.comm_ratio);
  close_to("imbalance", g_t.imbalance, g_t_root.imbalance);
  CHECK(g_t.has_graph == 1 && g_t_root.has_graph == 1, "the graph was not seen");
  CHECK(g_t.ranks == g_size, "ranks %d, expected %d", g_t.ranks, g_size);
  /* The cut is known independently: edges of the grid between different
   * answers, each once, weighted by their ends. */
  double cut = 0.0;
  for (ZOLTAN_ID_TYPE gg = 1; gg <= N; gg++) {
    ZOLTAN_ID_TYPE nb[5];
    int m = neighbours(gg, nb);
    for (int k = 0; k < m; k++)
      if (nb[k] != GHOST && nb[k] > gg && answer_of(nb[k]) != answer_of(gg))
        cut += 1 + (gg + nb[k]) % 5;
  }
  close_to("cut against the grid", g_ev.cut, cut);
}

int main(int argc, char **argv)
{
  float ver;
  loaddb_eval first;
  advisor_traits first_t;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  Zoltan_Initialize(argc, argv, &ver);
  CHECK(zp_register_method(&ec_method) == ZOLTAN_OK, "EVALCHECK refused");
  run(0);
  check_against_the_dump();
  first = g_ev;
  first_t = g_t;
  run(1);
  check_against_the_dump();
  /* Every figure, the same bits whichever ranks held the objects. */
  CHECK(memcmp(&first, &g_ev, sizeof first) == 0, "the step figures depend on the layout");
  CHECK(first_t.weight_cv == g_t.weight_cv && first_t.grain == g_t.grain &&
            first_t.comm_ratio == g_t.comm_ratio && first_t.imbalance == g_t.imbalance,
        "the traits depend on the layout");
  MPI_Allreduce(MPI_IN_PLACE, &g_fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0)
    printf("%s: step %.17g cut %.17g\n", g_fail ? "FAIL" : "PASS", g_ev.step, g_ev.cut);
  MPI_Finalize();
  return g_fail;
}
