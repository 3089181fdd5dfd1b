/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A C application of the older style, knowing nothing of zoltan_plugins:
 * it balances with Zoltan_LB_Balance (ranks, no parts) and keeps track of
 * where its objects live with Zoltan's distributed directory (Zoltan_DD_*),
 * as many codes written before Zoltan_LB_Partition do.  Objects with
 * heavy-tailed weights start on the lower half of the ranks and are
 * registered in the directory; after the balance each rank applies the
 * import and export lists and re-registers what it now holds; then every
 * rank looks up a slice of all global IDs in the directory.  It checks:
 * the directory names, for every GID, the rank that really holds it after
 * the lists were applied (and its "partition" field, set to that rank, as
 * well); every GID held once; count and weight conserved; max/avg within
 * --bound.  Rank 0 prints one line with a digest of the assignment.
 *
 * Usage: mpiexec -n P zp_dd_app [--method NAME] [--objects N] [--bound B]
 * Exit status 0 when the checks pass, 1 when one fails, 2 on bad arguments.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <zoltan.h>
#include <zoltan_dd.h>

typedef struct {
  ZOLTAN_ID_TYPE *gid;
  int n;
} objects;

/* splitmix64's finaliser: weights from the GID alone. */
static uint64_t mix(uint64_t v)
{
  v += 0x9E3779B97F4A7C15ULL;
  v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ULL;
  v = (v ^ (v >> 27)) * 0x94D049BB133111EBULL;
  return v ^ (v >> 31);
}

static double weight(ZOLTAN_ID_TYPE g)
{
  double k = (double)((mix(g) >> 32) % 16);
  return 1.0 + k * k / 15.0;
}

static int num_obj(void *data, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((objects *)data)->n;
}

static void obj_list(void *data, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                     float *w, int *ierr)
{
  const objects *o = data;
  int i;
  (void)ng;
  (void)nl;
  for (i = 0; i < o->n; i++) {
    gids[i] = o->gid[i];
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i] = (float)weight(o->gid[i]);
  }
  *ierr = ZOLTAN_OK;
}

static int num_geom(void *data, int *ierr)
{
  (void)data;
  *ierr = ZOLTAN_OK;
  return 2;
}

/* The single-object geometry callback, as older codes register it. */
static void geom(void *data, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, double *xy,
                 int *ierr)
{
  uint64_t h = mix(*gid);
  (void)data;
  (void)ng;
  (void)nl;
  (void)lid;
  xy[0] = (double)(h & 0xFFFF) / 65536.0;
  xy[1] = (double)((h >> 16) & 0xFFFF) / 65536.0;
  *ierr = ZOLTAN_OK;
}

static int first_holder(long g, long n, int holders) { return (int)(g * holders / n); }

/* The command line: --method M, --objects N (1..10^7), --bound B (>= 1).
 * Returns 0, or 2 after saying which argument is bad (rank 0). */
static int parse_args(int argc, char **argv, int rank, const char **method, long *nobj,
                      double *bound)
{
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    int ok = i + 1 < argc;
    if (ok && strcmp(argv[i], "--method") == 0) {
      *method = argv[++i];
    } else if (ok && strcmp(argv[i], "--objects") == 0) {
      *nobj = strtol(argv[++i], &end, 10);
      ok = *end == '\0' && *nobj >= 1 && *nobj <= 10000000;
    } else if (ok && strcmp(argv[i], "--bound") == 0) {
      *bound = strtod(argv[++i], &end);
      ok = *end == '\0' && *bound >= 1.0;
    } else {
      ok = 0;
    }
    if (!ok) {
      if (rank == 0) fprintf(stderr, "zp_dd_app: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  return 0;
}

/* Sets every object of o in the directory with this rank as its part.
 * Returns 0, or 1 when the directory refused. */
static int register_holdings(Zoltan_DD_Directory *dd, const objects *o, int rank)
{
  int *part = malloc(((size_t)o->n + 1) * sizeof *part), fail;
  for (int i = 0; i < o->n; i++) part[i] = rank;
  fail = Zoltan_DD_Update(dd, o->gid, NULL, NULL, part, o->n) != ZOLTAN_OK;
  free(part);
  return fail;
}

/* One Zoltan_LB_Balance of o, its lists applied (exports leave by local ID,
 * imports arrive) and the holdings registered again.  Returns 0, or 1. */
static int balance_and_track(const char *method, objects *o, Zoltan_DD_Directory *dd, int rank)
{
  int changes, ngid, nlid, nimp, nexp, ierr, fail = 0, *iproc = NULL, *eproc = NULL;
  ZOLTAN_ID_PTR igid = NULL, ilid = NULL, egid = NULL, elid = NULL;
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "ALL");
  if (method != NULL && Zoltan_Set_Param(zz, "LB_METHOD", method) != ZOLTAN_OK) fail = 1;
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, o);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, o);
  Zoltan_Set_Num_Geom_Fn(zz, num_geom, o);
  Zoltan_Set_Geom_Fn(zz, geom, o);
  ierr = fail ? ZOLTAN_FATAL
              : Zoltan_LB_Balance(zz, &changes, &ngid, &nlid, &nimp, &igid, &ilid, &iproc, &nexp,
                                  &egid, &elid, &eproc);
  if (ierr != ZOLTAN_OK) {
    if (rank == 0)
      fprintf(stderr, "zp_dd_app: Zoltan_LB_Balance with %s failed (%d)\n",
              method ? method : "the default method", ierr);
    fail = 1;
  } else {
    char *gone = calloc((size_t)o->n + 1, 1);
    ZOLTAN_ID_TYPE *now = malloc(((size_t)o->n + (size_t)nimp + 1) * sizeof *now);
    int n = 0;
    for (int i = 0; i < nexp; i++) gone[elid[i]] = 1;
    for (int i = 0; i < o->n; i++)
      if (!gone[i]) now[n++] = o->gid[i];
    for (int i = 0; i < nimp; i++) now[n++] = igid[i];
    free(gone);
    free(o->gid);
    o->gid = now;
    o->n = n;
    fail = register_holdings(dd, o, rank);
  }
  Zoltan_LB_Free_Data(&igid, &ilid, &iproc, &egid, &elid, &eproc);
  Zoltan_Destroy(&zz);
  return fail;
}

/* What rank 0 judges: per GID the holder + 1 summed over ranks (sum), the
 * number of holders (msum) and the directory's owner (dir). */
typedef struct verdict_in {
  const int *sum, *msum, *dir;
  long nobj;
  int size, holders, bad;
  double bound;
  const char *method;
} verdict_in;

/* Rank 0: every GID held once, the directory right, the weight conserved,
 * max/avg within the bound; prints the summary line.  Returns 0 or 1. */
static int judge(const verdict_in *v)
{
  double *load = calloc((size_t)v->size, sizeof *load), sumw = 0.0, want = 0.0, mx = 0.0;
  long moved = 0, wrong = 0;
  uint64_t digest = 1469598103934665603ULL;
  int fail = 0;
  if (v->bad) {
    printf("zp_dd_app: FAIL: Zoltan_DD_Find failed or a partition field differs from its "
           "owner\n");
    fail = 1;
  }
  for (long g = 0; g < v->nobj; g++) {
    int r = v->sum[g] - 1;
    want += weight((ZOLTAN_ID_TYPE)g);
    if (v->msum[g] != 1) {
      printf("zp_dd_app: FAIL: GID %ld held %d times\n", g, v->msum[g]);
      fail = 1;
      continue;
    }
    if (v->dir[g] != r) wrong++;
    load[r] += weight((ZOLTAN_ID_TYPE)g);
    if (r != first_holder(g, v->nobj, v->holders)) moved++;
    digest = (digest ^ (uint64_t)g) * 1099511628211ULL;
    digest = (digest ^ (uint64_t)(r + 1)) * 1099511628211ULL;
  }
  if (wrong) {
    printf("zp_dd_app: FAIL: the directory names the wrong owner for %ld GIDs\n", wrong);
    fail = 1;
  }
  for (int i = 0; i < v->size; i++) {
    sumw += load[i];
    if (load[i] > mx) mx = load[i];
  }
  if (fabs(sumw - want) > 1e-9 * want) {
    printf("zp_dd_app: FAIL: weight %.6f after, %.6f before\n", sumw, want);
    fail = 1;
  }
  if (v->bound > 0.0 && mx / (sumw / v->size) > v->bound) {
    printf("zp_dd_app: FAIL: max/avg %.4f above the bound %.4f\n", mx / (sumw / v->size), v->bound);
    fail = 1;
  }
  printf("zp_dd_app: %d ranks, LB_METHOD %s, Zoltan_LB_Balance, max/avg %.4f, moved %ld, "
         "directory agrees for %ld GIDs, assignment %016llx, %s\n",
         v->size, v->method ? v->method : "(Zoltan's default)", mx / (sumw / v->size), moved,
         v->nobj - wrong, (unsigned long long)digest, fail ? "FAILED" : "passed");
  free(load);
  return fail;
}

/* Every rank looks up its slice of all GIDs in the directory; rank 0
 * gathers the owners and the holdings and judges them.  Returns the
 * verdict on every rank. */
static int check_directory(Zoltan_DD_Directory *dd, const objects *o, verdict_in *v, int rank)
{
  long nobj = v->nobj, lo = nobj * rank / v->size, hi = nobj * (rank + 1) / v->size;
  int cnt = (int)(hi - lo), fail = 0, bad = 0;
  int *owner = malloc(((size_t)cnt + 1) * sizeof *owner),
      *part = malloc(((size_t)cnt + 1) * sizeof *part);
  ZOLTAN_ID_TYPE *ask = malloc(((size_t)cnt + 1) * sizeof *ask);
  int *held = calloc((size_t)nobj, sizeof *held), *mult = calloc((size_t)nobj, sizeof *mult);
  int *sum = NULL, *msum = NULL, *dir = NULL, *counts = NULL, *displs = NULL;
  for (long k = 0; k < cnt; k++) ask[k] = (ZOLTAN_ID_TYPE)(lo + k);
  if (Zoltan_DD_Find(dd, ask, NULL, NULL, part, cnt, owner) != ZOLTAN_OK) bad = 1;
  for (long k = 0; k < cnt; k++)
    if (part[k] != owner[k]) bad = 1;
  /* held[g] = 1 + the rank that holds g; summed over ranks it names the
   * holder when mult (the number of holders) is 1. */
  for (int i = 0; i < o->n; i++) {
    held[o->gid[i]] = rank + 1;
    mult[o->gid[i]]++;
  }
  if (rank == 0) {
    sum = calloc((size_t)nobj, sizeof *sum);
    msum = calloc((size_t)nobj, sizeof *msum);
    counts = malloc((size_t)v->size * sizeof *counts);
    displs = malloc((size_t)v->size * sizeof *displs);
    dir = malloc((size_t)nobj * sizeof *dir);
    for (int i = 0; i < v->size; i++) {
      displs[i] = (int)(nobj * i / v->size);
      counts[i] = (int)(nobj * (i + 1) / v->size) - displs[i];
    }
  }
  MPI_Reduce(held, sum, (int)nobj, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mult, msum, (int)nobj, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Gatherv(owner, cnt, MPI_INT, dir, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &bad, &bad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    v->sum = sum;
    v->msum = msum;
    v->dir = dir;
    v->bad = bad;
    fail = judge(v);
  }
  free(owner);
  free(part);
  free(ask);
  free(held);
  free(mult);
  free(sum);
  free(msum);
  free(dir);
  free(counts);
  free(displs);
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return fail;
}

int main(int argc, char **argv)
{
  const char *method = NULL;
  long nobj = 3000;
  double bound = 0.0;
  int rank, size, holders, fail = 0;
  objects o = {NULL, 0};
  Zoltan_DD_Directory *dd = NULL;
  float ver;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (parse_args(argc, argv, rank, &method, &nobj, &bound)) {
    MPI_Finalize();
    return 2;
  }
  Zoltan_Initialize(argc, argv, &ver);
  holders = size / 2 > 0 ? size / 2 : 1;
  o.gid = malloc((size_t)nobj * sizeof *o.gid);
  if (o.gid == NULL) {
    /* A test program without memory cannot run its checks; the library
     * itself never aborts. */
    fprintf(stderr, "zp_dd_app: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long g = 0; g < nobj; g++)
    if (first_holder(g, nobj, holders) == rank) o.gid[o.n++] = (ZOLTAN_ID_TYPE)g;
  /* The directory: one GID, no LID, no user data; partition = holder. */
  if (Zoltan_DD_Create(&dd, MPI_COMM_WORLD, 1, 0, 0, 0, 0) != ZOLTAN_OK ||
      register_holdings(dd, &o, rank))
    fail = 1;
  if (!fail) fail = balance_and_track(method, &o, dd, rank);
  MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!fail) {
    verdict_in v = {NULL, NULL, NULL, nobj, size, holders, 0, bound, method};
    fail = check_directory(dd, &o, &v, rank);
  }
  Zoltan_DD_Destroy(&dd);
  free(o.gid);
  MPI_Finalize();
  return fail;
}
