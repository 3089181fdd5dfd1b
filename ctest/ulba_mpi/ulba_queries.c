/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zoltan's point and box queries under LB_METHOD=ULBA.
 *
 * Workload: the 40 x 40 grid of ulba_grid.c whose 4 x 4 corner block grows
 * by GROWTH per step, KEEP_CUTS=1, balanced STEPS times; the first balance
 * uses RIB, the later ones the base method under test, so that ULBA
 * relabels the base method's parts (ulba_growth checks that it must).  After
 * every balance, before migrating:
 *   - Zoltan_LB_Point_PP_Assign at each local object's coordinates returns
 *     the part the balance gave the object and the rank that holds it;
 *   - Zoltan_LB_Box_PP_Assign of a box around the whole domain returns
 *     every part once and every rank once, and of a tiny box around an
 *     object a list that contains the object's part;
 *   - with one part per rank, Zoltan_LB_Point_Assign and
 *     Zoltan_LB_Box_Assign agree as well;
 *   - over RCB, Zoltan_RCB_Box of an object's part contains the object.
 * argv: BASE PARTS, with PARTS a number of parts or "ranks" (one per rank).
 * BASE GREEDY (no cuts) or NOKEEP (RCB without KEEP_CUTS) checks instead
 * that the queries fail with a message that says why.
 * Exit 0 only if every check passed on every rank.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "ulba_grid.h"
#include "ulba_zoltan.h"

#define SIDE   40   /* the objects form a SIDE x SIDE grid on [0, 1]^2 */
#define STEPS  4    /* balances per run */
#define GROWTH 0.25 /* weight added to a growing object per step */
#define CHECK  GRID_CHECK

/* The new part and rank of every local object, from a complete list. */
static int balance_parts(struct Zoltan_Struct *zz, grid_app *a, int *proc, int *nexp,
                         ZOLTAN_ID_PTR *eg, ZOLTAN_ID_PTR *el, int **ep, int **epa)
{
  int changes, ngid, nlid, nimp, *ip, *ipa, rc;
  ZOLTAN_ID_PTR ig, il;
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, nexp, eg, el, ep,
                           epa);
  if (rc != ZOLTAN_OK) return rc;
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  for (int i = 0; i < a->n; i++) proc[i] = a->o[i].part = -1;
  for (int k = 0; k < *nexp; k++) {
    a->o[(*el)[k]].part = (*epa)[k];
    proc[(*el)[k]] = (*ep)[k];
  }
  return rc;
}

/* The box of a part by Zoltan_RCB_Box, and whether (x, y) lies in it
 * (*on_edge: on one of its sides). */
static int in_rcb_box(struct Zoltan_Struct *zz, int part, double x, double y, int *on_edge)
{
  int nd = 0;
  double lo[3], hi[3];
  if (Zoltan_RCB_Box(zz, part, &nd, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2]) != ZOLTAN_OK)
    return 0;
  *on_edge = x == lo[0] || x == hi[0] || y == lo[1] || y == hi[1];
  return lo[0] <= x && x <= hi[0] && lo[1] <= y && y <= hi[1];
}

/*
 * Point queries at every local object's coordinates.  Zoltan cuts at the
 * coordinate of an object and may put that object on either side, while a
 * point on a cut is answered on one side, natively as well: such objects
 * (at most one per cut) are counted, not failed.  Over RCB they must lie on
 * a side of their part's box; over RIB (rib) Zoltan gives no box to check.
 * Returns the number of such objects on this rank.
 */
static int check_points(struct Zoltan_Struct *zz, const grid_app *a, const int *proc,
                        int one_part_per_rank, int is_rcb, int rib)
{
  int on_cut = 0;
  for (int i = 0; i < a->n; i++) {
    double x[3] = {a->o[i].x, a->o[i].y, 0.0};
    int qproc = -1, qpart = -1, rc = Zoltan_LB_Point_PP_Assign(zz, x, &qproc, &qpart);
    int same = rc == ZOLTAN_OK && qpart == a->o[i].part && qproc == proc[i], edge = 0;
    int inside = is_rcb ? in_rcb_box(zz, a->o[i].part, x[0], x[1], &edge) : 1;
    CHECK(inside, "GID %u at (%g, %g) is outside RCB_Box of its part %d", (unsigned)a->o[i].gid,
          x[0], x[1], a->o[i].part);
    if (!same && rc == ZOLTAN_OK && (rib || edge)) {
      on_cut++;
      continue;
    }
    CHECK(same,
          "GID %u at (%g, %g): Point_PP_Assign gave rc %d part %d rank %d, the balance part "
          "%d rank %d",
          (unsigned)a->o[i].gid, x[0], x[1], rc, qpart, qproc, a->o[i].part, proc[i]);
    if (one_part_per_rank) {
      rc = Zoltan_LB_Point_Assign(zz, x, &qproc);
      CHECK(rc == ZOLTAN_OK && qproc == proc[i], "GID %u: Point_Assign gave rc %d rank %d, not %d",
            (unsigned)a->o[i].gid, rc, qproc, proc[i]);
    }
  }
  return on_cut;
}

/* Whether list[0..n-1] holds each of 0..m-1 exactly once. */
static int is_all_once(const int *list, int n, int m)
{
  int ok = n == m;
  char *seen = calloc((size_t)m + 1, 1);
  for (int k = 0; ok && k < n; k++) {
    ok = list[k] >= 0 && list[k] < m && !seen[list[k]];
    if (ok) seen[list[k]] = 1;
  }
  free(seen);
  return ok;
}

/* Box queries: the whole domain, and a tiny box around every object. */
static void check_boxes(struct Zoltan_Struct *zz, const grid_app *a, int P, int size,
                        int one_part_per_rank)
{
  int *procs = malloc((size_t)size * sizeof *procs), *parts = malloc((size_t)P * sizeof *parts);
  int np = 0, nq = 0, rc;
  rc = Zoltan_LB_Box_PP_Assign(zz, -1, -1, -1, 2, 2, 1, procs, &np, parts, &nq);
  CHECK(rc == ZOLTAN_OK && is_all_once(parts, nq, P) && is_all_once(procs, np, size),
        "Box_PP_Assign of the domain: rc %d, %d parts of %d, %d ranks of %d", rc, nq, P, np, size);
  if (one_part_per_rank) {
    rc = Zoltan_LB_Box_Assign(zz, -1, -1, -1, 2, 2, 1, procs, &np);
    CHECK(rc == ZOLTAN_OK && is_all_once(procs, np, size),
          "Box_Assign of the domain: rc %d, %d ranks of %d", rc, np, size);
  }
  for (int i = 0; i < a->n; i++) {
    const double e = 1e-3 / SIDE, x = a->o[i].x, y = a->o[i].y;
    int found = 0;
    rc = Zoltan_LB_Box_PP_Assign(zz, x - e, y - e, -1, x + e, y + e, 1, procs, &np, parts, &nq);
    for (int k = 0; k < nq; k++) found |= parts[k] == a->o[i].part;
    CHECK(rc == ZOLTAN_OK && found, "GID %u: the box around it misses its part %d (rc %d)",
          (unsigned)a->o[i].gid, a->o[i].part, rc);
  }
  free(procs);
  free(parts);
}

/* Balance STEPS times with the queries checked after every balance. */
static void run_queries(const char *base, int P, int rank, int size)
{
  grid_app a;
  struct Zoltan_Struct *zz;
  char nparts[32];
  int relabelled = 0, one_part_per_rank = P == size;
  grid_make(&a, rank, size, SIDE * SIDE, SIDE);
  grid_jitter(&a, 0.25 / SIDE);
  for (int i = 0; i < a.n; i++) a.o[i].part = (int)((long)rank * P / size);
  zz = grid_zz(&a, "ULBA");
  grid_track_parts(zz, &a);
  snprintf(nparts, sizeof nparts, "%d", P);
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", nparts);
  Zoltan_Set_Param(zz, "KEEP_CUTS", "1");
  Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", "RIB");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  for (int step = 0; step < STEPS; step++) {
    int nexp = 0, *ep = NULL, *epa = NULL, *proc = malloc(((size_t)a.n + 1) * sizeof *proc);
    ZOLTAN_ID_PTR eg = NULL, el = NULL;
    ulba_model_info info;
    int rc;
    if (step == 1) Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", base);
    rc = balance_parts(zz, &a, proc, &nexp, &eg, &el, &ep, &epa);
    CHECK(rc == ZOLTAN_OK, "%s step %d: Zoltan_LB_Partition returned %d", base, step, rc);
    if (rc != ZOLTAN_OK) {
      free(proc);
      break;
    }
    if (ulba_last_model(zz, &info) == ZOLTAN_OK && info.alpha > 0.0) relabelled++;
    {
      /* Zoltan_RCB_Box needs RCB's cuts: the first balance ran RIB. */
      int rib = step == 0 || strcmp(base, "RIB") == 0, on_cut, all_on_cut = 0;
      on_cut = check_points(zz, &a, proc, one_part_per_rank, !rib && strcmp(base, "RCB") == 0, rib);
      MPI_Allreduce(&on_cut, &all_on_cut, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      CHECK(all_on_cut <= P - 1, "step %d: %d objects answered on the other side of %d cuts", step,
            all_on_cut, P - 1);
    }
    check_boxes(zz, &a, P, size, one_part_per_rank);
    rc = Zoltan_Migrate(zz, -1, NULL, NULL, NULL, NULL, nexp, eg, el, ep, epa);
    CHECK(rc == ZOLTAN_OK, "Zoltan_Migrate returned %d", rc);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
    grid_compact(&a);
    for (int i = 0; i < a.n; i++)
      if (a.o[i].grows) a.o[i].w += GROWTH;
    free(proc);
  }
  /* With one part per rank and 2 or 3 ranks nothing overloads (a robust
   * score needs four parts); with more parts the growing corner must have
   * been underloaded, so the queries went through a relabelling. */
  if (P >= 4) CHECK(relabelled > 0, "%s: ULBA never underloaded a part", base);
  Zoltan_Destroy(&zz);
  free(a.o);
}

/* A query that must fail with a message containing needle. */
static void check_refused(struct Zoltan_Struct *zz, const char *what, const char *needle)
{
  double x[3] = {0.5, 0.5, 0.0};
  int proc, part, procs[64], parts[64], np, nq, rc;
  grid_capture cap;
  char *text;
  if (capture_begin(&cap, 2) != 0) return;
  if (strcmp(what, "point") == 0)
    rc = Zoltan_LB_Point_PP_Assign(zz, x, &proc, &part);
  else
    rc = Zoltan_LB_Box_PP_Assign(zz, 0, 0, 0, 1, 1, 0, procs, &np, parts, &nq);
  text = capture_end(&cap);
  CHECK(rc == ZOLTAN_FATAL, "%s query accepted (%d)", what, rc);
  CHECK(text != NULL && strstr(text, needle) != NULL, "%s query: no message '%s'", what, needle);
  free(text);
}

/* Over a base method without cuts, or without KEEP_CUTS, the queries fail
 * and say why. */
static void run_refusals(const char *base, int rank, int size)
{
  grid_app a;
  struct Zoltan_Struct *zz;
  int nokeep = strcmp(base, "NOKEEP") == 0;
  grid_make(&a, rank, size, SIDE * SIDE, SIDE);
  zz = grid_zz(&a, "ULBA");
  if (!nokeep) Zoltan_Set_Param(zz, "KEEP_CUTS", "1");
  Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", nokeep ? "RCB" : base);
  CHECK(grid_partition(zz) == ZOLTAN_OK, "%s: the balance failed", base);
  check_refused(zz, "point", "LB_METHOD ULBA keeps no geometric decomposition");
  check_refused(zz, "box", "KEEP_CUTS=1");
  Zoltan_Destroy(&zz);
  free(a.o);
}

int main(int argc, char **argv)
{
  int rank, size, P;
  grid_begin(&argc, &argv, &rank, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: %s BASE PARTS|ranks\n", argv[0]);
    grid_fails++;
  } else if (strcmp(argv[1], "GREEDY") == 0 || strcmp(argv[1], "NOKEEP") == 0) {
    run_refusals(argv[1], rank, size);
  } else {
    P = strcmp(argv[2], "ranks") == 0 ? size : atoi(argv[2]);
    run_queries(argv[1], P, rank, size);
  }
  return grid_end(argc >= 2 ? argv[1] : "?");
}
