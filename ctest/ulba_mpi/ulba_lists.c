/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ulba_lists BASE: the lists of a ULBA call whose answer is its base
 * method's own say what the base method's lists say when it is selected.
 *
 * ULBA_ALPHA=0 gives exactly the base method's parts, and its one base run
 * asks the layer to keep Zoltan's lists (zp_ctx_keep_base_lists): the layer
 * then hands over those lists instead of building and inverting its own.
 * For every RETURN_LISTS value, with one part per rank and with two parts
 * per rank (the parts' ranks then come from Zoltan's part distribution),
 * each rank compares ULBA's import and export lists with those of
 * LB_METHOD=BASE on the same objects: the same counts (-1 where a list was
 * not asked for), the same changes flag and the same entries (global ID, local ID, rank, part) as
 * sets, since the order of the entries is the method's.  A second call has
 * a history (increase rates all zero): still alpha 0, the same lists.  The
 * imports of every rank are also checked against the exports of all ranks:
 * each moving object is imported once, by the rank its export names.
 * Exit 0 only if every check passed on every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "ulba_grid.h"

#define SIDE    24
#define NUM_OBJ (SIDE * SIDE)

#define CHECK GRID_CHECK

/* One list entry, for sorting by global ID. */
typedef struct entry {
  ZOLTAN_ID_TYPE gid, lid;
  int proc, part;
} entry;

typedef struct lists {
  int changes, nimp, nexp;
  entry *imp, *exp;
} lists;

static int by_gid(const void *a, const void *b)
{
  const entry *x = a, *y = b;
  return x->gid < y->gid ? -1 : x->gid > y->gid;
}

static entry *sorted(int n, const ZOLTAN_ID_TYPE *g, const ZOLTAN_ID_TYPE *l, const int *proc,
                     const int *part)
{
  entry *e = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof *e);
  for (int k = 0; e != NULL && k < n; k++) {
    e[k].gid = g[k];
    e[k].lid = l != NULL ? l[k] : 0;
    e[k].proc = proc[k];
    e[k].part = part[k];
  }
  if (e != NULL && n > 1) qsort(e, (size_t)n, sizeof *e, by_gid);
  return e;
}

/* One call with the given RETURN_LISTS; the lists, sorted. */
static int call(struct Zoltan_Struct *zz, const char *rl, lists *out)
{
  int ngid, nlid, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL, rc;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  Zoltan_Set_Param(zz, "RETURN_LISTS", rl);
  rc = Zoltan_LB_Partition(zz, &out->changes, &ngid, &nlid, &out->nimp, &ig, &il, &ip, &ipa,
                           &out->nexp, &eg, &el, &ep, &epa);
  out->imp = out->nimp > 0 ? sorted(out->nimp, ig, nlid ? il : NULL, ip, ipa) : NULL;
  out->exp = out->nexp > 0 ? sorted(out->nexp, eg, nlid ? el : NULL, ep, epa) : NULL;
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  return rc;
}

static void free_lists(lists *l)
{
  free(l->imp);
  free(l->exp);
  memset(l, 0, sizeof *l);
}

/* Every import of every rank is one export of another rank naming it. */
static void check_inverse(const lists *l, int rank, int size, const char *what)
{
  int n = l->nexp > 0 ? l->nexp : 0, all = 0, *counts = malloc((size_t)size * sizeof *counts);
  int *displ = malloc((size_t)size * sizeof *displ), mine[2], imported = 0;
  unsigned *g = malloc(((size_t)n + 1) * sizeof *g), *every = NULL;
  int *dest = malloc(((size_t)n + 1) * sizeof *dest), *every_dest = NULL;
  for (int k = 0; k < n; k++) {
    g[k] = (unsigned)l->exp[k].gid;
    dest[k] = l->exp[k].proc;
  }
  MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++) {
    displ[r] = all;
    all += counts[r];
  }
  every = malloc(((size_t)all + 1) * sizeof *every);
  every_dest = malloc(((size_t)all + 1) * sizeof *every_dest);
  MPI_Allgatherv(g, n, MPI_UNSIGNED, every, counts, displ, MPI_UNSIGNED, MPI_COMM_WORLD);
  MPI_Allgatherv(dest, n, MPI_INT, every_dest, counts, displ, MPI_INT, MPI_COMM_WORLD);
  for (int k = 0; k < all; k++) imported += every_dest[k] == rank;
  mine[0] = l->nimp;
  mine[1] = imported;
  CHECK(mine[0] == mine[1], "%s: %d imports, but %d exports name this rank", what, mine[0],
        mine[1]);
  for (int k = 0; k < l->nimp; k++) {
    int found = 0;
    for (int j = 0; j < all && !found; j++)
      found = every[j] == (unsigned)l->imp[k].gid && every_dest[j] == rank;
    CHECK(found, "%s: import of GID %u is no export to this rank", what, (unsigned)l->imp[k].gid);
  }
  free(counts);
  free(displ);
  free(g);
  free(dest);
  free(every);
  free(every_dest);
}

static void compare(const entry *a, const entry *b, int n, const char *what, const char *list)
{
  for (int k = 0; k < n; k++)
    CHECK(a[k].gid == b[k].gid && a[k].lid == b[k].lid && a[k].proc == b[k].proc &&
              a[k].part == b[k].part,
          "%s: %s entry %d differs: GID %u rank %d part %d against GID %u rank %d part %d", what,
          list, k, (unsigned)a[k].gid, a[k].proc, a[k].part, (unsigned)b[k].gid, b[k].proc,
          b[k].part);
}

static void run_case(grid_app *a, const char *base, const char *rl, int parts, int rank, int size)
{
  struct Zoltan_Struct *zr = grid_zz(a, base), *zu = grid_zz(a, "ULBA");
  char what[96], np[16];
  lists r, u;
  snprintf(np, sizeof np, "%d", parts);
  Zoltan_Set_Param(zr, "NUM_GLOBAL_PARTS", np);
  Zoltan_Set_Param(zu, "NUM_GLOBAL_PARTS", np);
  Zoltan_Set_Param(zu, "ULBA_BASE_METHOD", base);
  Zoltan_Set_Param(zu, "ULBA_ALPHA", "0");
  CHECK(call(zr, rl, &r) == ZOLTAN_OK, "%s with RETURN_LISTS=%s failed", base, rl);
  for (int c = 0; c < 2; c++) {
    snprintf(what, sizeof what, "ULBA over %s, RETURN_LISTS=%s, %d parts, call %d", base, rl, parts,
             c + 1);
    CHECK(call(zu, rl, &u) == ZOLTAN_OK, "%s failed", what);
    CHECK(u.nimp == r.nimp && u.nexp == r.nexp && u.changes == r.changes,
          "%s: %d imports, %d exports, changes %d; %s gives %d, %d and %d", what, u.nimp, u.nexp,
          u.changes, base, r.nimp, r.nexp, r.changes);
    if (u.nimp == r.nimp) compare(u.imp, r.imp, u.nimp, what, "import");
    if (u.nexp == r.nexp) compare(u.exp, r.exp, u.nexp, what, "export");
    if (strcmp(rl, "ALL") == 0) check_inverse(&u, rank, size, what);
    free_lists(&u);
  }
  free_lists(&r);
  Zoltan_Destroy(&zr);
  Zoltan_Destroy(&zu);
}

int main(int argc, char **argv)
{
  static const char *const rls[] = {"ALL", "IMPORT", "EXPORT", "NONE", "PARTS"};
  int rank, size;
  grid_app a;
  grid_begin(&argc, &argv, &rank, &size);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: %s BASE\n", argv[0]);
    grid_fails++;
    return grid_end("?");
  }
  grid_make(&a, rank, size, NUM_OBJ, SIDE);
  /* Unequal weights, so that the cuts are not those of the counts. */
  for (int i = 0; i < a.n; i++)
    if (a.o[i].gid % 7 == 0) a.o[i].w = 4.0;
  for (size_t k = 0; k < sizeof rls / sizeof rls[0]; k++) {
    run_case(&a, argv[1], rls[k], size, rank, size);
    run_case(&a, argv[1], rls[k], 2 * size, rank, size);
  }
  free(a.o);
  return grid_end(argv[1]);
}
