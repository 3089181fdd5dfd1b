/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection: one callback fails on one rank, and Zoltan_LB_Partition
 * must return an error on every rank, never hang (CTest's TIMEOUT turns a
 * hang into a failure).
 *
 * The application registers every query callback Zoltan knows for a mesh
 * of objects: count, list, parts, coordinates, graph edges (a ring),
 * hypergraph pins, object sizes, pack and unpack.  For each callback kind,
 * on a fresh struct, the callback of that kind fails with ZOLTAN_FATAL on
 * one rank (the last; the first for unpack) whenever it is called.  The property checked, with the
 * return codes of every rank gathered:
 *  - when the failing callback was called on its rank, every rank returns
 *    an error;
 *  - when no rank called it (the method does not read it), every rank
 *    returns OK or WARN;
 *  - either way the answer is the same on every rank, and the application's
 *    object count is untouched;
 *  - with AUTO_MIGRATE (the pack and unpack cases), no object is unpacked
 *    with data that is not its own.
 * A first case with no fault, and one with migration and no fault, check
 * that the method succeeds at all.
 *
 * Usage: zp_fault --method M [--multi] [--param NAME=VALUE]...
 * --multi registers the MULTI forms of the size, pack and unpack callbacks.
 * Native methods (RCB, PHG, ...) rely on the layer's guard
 * (ZOLTAN_PLUGINS_GUARD, on by default); ours on the layer's agreement.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

/* The callback kinds that can fail. */
enum {
  K_NONE,
  K_COUNT,
  K_LIST,
  K_PARTS,
  K_GEOM,
  K_EDGES,
  K_HGRAPH,
  K_SIZE,
  K_MIGRATE, /* no fault, with AUTO_MIGRATE: the baseline of the ones below */
  K_MSIZE,   /* object sizes, with AUTO_MIGRATE */
  K_PACK,
  K_UNPACK,
  K_KINDS
};
static const char *const kind_names[K_KINDS] = {
    "none",       "count", "list",    "parts",        "geometry",     "edges",
    "hypergraph", "size",  "migrate", "size+migrate", "pack+migrate", "unpack+migrate"};

/* This rank's objects: global IDs first .. first + n - 1 of a ring of total. */
typedef struct app {
  int rank, size;
  int first, n, total;
  int *starts; /* size + 1: the first global ID of each rank */
  int fail;    /* K_* that fails on one rank (fail_rank) */
  int fired;   /* 1 once the failing callback was called here */
  int corrupt; /* objects unpacked with data that is not their own */
} app;

/* The rank whose callback fails: the last (it holds the most objects and
 * exports), or for unpack the first (it holds the fewest and imports). */
static int fail_rank(const app *a) { return a->fail == K_UNPACK ? 0 : a->size - 1; }

static int failing(app *a, int kind, int *ierr)
{
  if (a->fail == kind && a->rank == fail_rank(a)) {
    a->fired = 1;
    *ierr = ZOLTAN_FATAL;
    return 1;
  }
  *ierr = ZOLTAN_OK;
  return 0;
}

static int owner(const app *a, int gid)
{
  int r = 0;
  while (r + 1 < a->size && gid >= a->starts[r + 1]) r++;
  return r;
}

static int cb_count(void *d, int *ierr)
{
  app *a = d;
  return failing(a, K_COUNT, ierr) ? -1 : a->n;
}

static void cb_list(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                    float *w, int *ierr)
{
  app *a = d;
  int i;
  (void)ngid;
  (void)nlid;
  if (failing(a, K_LIST, ierr)) return;
  for (i = 0; i < a->n; i++) {
    gids[i] = (ZOLTAN_ID_TYPE)(a->first + i);
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i * wdim] = (float)(1 + (a->first + i) % 5);
  }
}

static void cb_parts(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *parts, int *ierr)
{
  app *a = d;
  int i;
  (void)ngid;
  (void)nlid;
  (void)gids;
  (void)lids;
  if (failing(a, K_PARTS, ierr)) return;
  for (i = 0; i < n; i++) parts[i] = a->rank;
}

static int cb_num_geom(void *d, int *ierr)
{
  app *a = d;
  return failing(a, K_GEOM, ierr) ? -1 : 2;
}

static void cb_geom(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                    int dim, double *xy, int *ierr)
{
  app *a = d;
  int i;
  (void)ngid;
  (void)nlid;
  (void)lids;
  (void)dim;
  if (failing(a, K_GEOM, ierr)) return;
  for (i = 0; i < n; i++) {
    xy[2 * i] = (double)(gids[i] % 8);
    xy[2 * i + 1] = (double)(gids[i] / 8);
  }
}

static void cb_num_edges(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int *ne, int *ierr)
{
  app *a = d;
  int i;
  (void)ngid;
  (void)nlid;
  (void)gids;
  (void)lids;
  if (failing(a, K_EDGES, ierr)) return;
  for (i = 0; i < n; i++) ne[i] = 2;
}

static void cb_edges(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *ne, ZOLTAN_ID_PTR nbr, int *procs, int ewdim, float *ew, int *ierr)
{
  app *a = d;
  int i, k;
  (void)ngid;
  (void)nlid;
  (void)lids;
  (void)ne;
  if (failing(a, K_EDGES, ierr)) return;
  for (i = 0; i < n; i++) {
    int g = (int)gids[i], nb[2] = {(g + a->total - 1) % a->total, (g + 1) % a->total};
    for (k = 0; k < 2; k++) {
      nbr[2 * i + k] = (ZOLTAN_ID_TYPE)nb[k];
      procs[2 * i + k] = owner(a, nb[k]);
      if (ewdim > 0) ew[(2 * i + k) * ewdim] = 1.0f;
    }
  }
}

/* Hypergraph: net g joins objects g and g + 1 (compressed nets, one per
 * local object). */
static void cb_hg_size(void *d, int *nl, int *np, int *format, int *ierr)
{
  app *a = d;
  *nl = a->n;
  *np = 2 * a->n;
  *format = ZOLTAN_COMPRESSED_EDGE;
  failing(a, K_HGRAPH, ierr);
}

static void cb_hg_cs(void *d, int ngid, int nl, int np, int format, ZOLTAN_ID_PTR nets, int *starts,
                     ZOLTAN_ID_PTR pins, int *ierr)
{
  app *a = d;
  int i;
  (void)ngid;
  (void)np;
  (void)format;
  if (failing(a, K_HGRAPH, ierr)) return;
  for (i = 0; i < nl; i++) {
    nets[i] = (ZOLTAN_ID_TYPE)(a->first + i);
    starts[i] = 2 * i;
    pins[2 * i] = (ZOLTAN_ID_TYPE)(a->first + i);
    pins[2 * i + 1] = (ZOLTAN_ID_TYPE)((a->first + i + 1) % a->total);
  }
}

static int cb_size(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int *ierr)
{
  app *a = d;
  (void)ngid;
  (void)nlid;
  (void)gid;
  (void)lid;
  return failing(a, a->fail == K_MSIZE ? K_MSIZE : K_SIZE, ierr) ? -1 : 16;
}

/* An object travels as its global ID, which its unpack checks. */
static void cb_pack(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int dest,
                    int size, char *buf, int *ierr)
{
  app *a = d;
  ZOLTAN_ID_TYPE g = gid[0];
  (void)ngid;
  (void)nlid;
  (void)lid;
  (void)dest;
  if (failing(a, K_PACK, ierr)) return;
  if (size >= (int)sizeof g) memcpy(buf, &g, sizeof g);
}

static void cb_unpack(void *d, int ngid, ZOLTAN_ID_PTR gid, int size, char *buf, int *ierr)
{
  app *a = d;
  ZOLTAN_ID_TYPE g = 0;
  (void)ngid;
  if (failing(a, K_UNPACK, ierr)) return;
  if (size >= (int)sizeof g) memcpy(&g, buf, sizeof g);
  if (size < (int)sizeof g || g != gid[0]) a->corrupt++;
}

/* The MULTI forms, for --multi. */
static void cb_size_multi(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                          ZOLTAN_ID_PTR lids, int *sizes, int *ierr)
{
  int i;
  for (i = 0; i < n; i++) sizes[i] = cb_size(d, ngid, nlid, gids + i, lids + i, ierr);
}

static void cb_pack_multi(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                          ZOLTAN_ID_PTR lids, int *dest, int *sizes, int *idx, char *buf, int *ierr)
{
  int i;
  *ierr = ZOLTAN_OK;
  for (i = 0; i < n && *ierr == ZOLTAN_OK; i++)
    cb_pack(d, ngid, nlid, gids + i, lids + i, dest[i], sizes[i], buf + idx[i], ierr);
}

static void cb_unpack_multi(void *d, int ngid, int n, ZOLTAN_ID_PTR gids, int *sizes, int *idx,
                            char *buf, int *ierr)
{
  int i;
  *ierr = ZOLTAN_OK;
  for (i = 0; i < n && *ierr == ZOLTAN_OK; i++)
    cb_unpack(d, ngid, gids + i, sizes[i], buf + idx[i], ierr);
}

static int use_multi; /* --multi: the MULTI forms of size, pack and unpack */
/* --unregistered-geometry: one rank registers no geometry function (1) or
 * no ZOLTAN_NUM_GEOM_FN (2), and a method that needs coordinates must fail
 * on every rank instead of waiting for that rank inside Zoltan. */
static int drop_geometry;

static void register_all(struct Zoltan_Struct *zz, app *a)
{
  Zoltan_Set_Fn(zz, ZOLTAN_NUM_OBJ_FN_TYPE, (ZOLTAN_VOID_FN *)cb_count, a);
  Zoltan_Set_Fn(zz, ZOLTAN_OBJ_LIST_FN_TYPE, (ZOLTAN_VOID_FN *)cb_list, a);
  Zoltan_Set_Fn(zz, ZOLTAN_PART_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)cb_parts, a);
  if (drop_geometry != 2 || a->rank != fail_rank(a))
    Zoltan_Set_Fn(zz, ZOLTAN_NUM_GEOM_FN_TYPE, (ZOLTAN_VOID_FN *)cb_num_geom, a);
  if (drop_geometry != 1 || a->rank != fail_rank(a))
    Zoltan_Set_Fn(zz, ZOLTAN_GEOM_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)cb_geom, a);
  Zoltan_Set_Fn(zz, ZOLTAN_NUM_EDGES_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)cb_num_edges, a);
  Zoltan_Set_Fn(zz, ZOLTAN_EDGE_LIST_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)cb_edges, a);
  Zoltan_Set_Fn(zz, ZOLTAN_HG_SIZE_CS_FN_TYPE, (ZOLTAN_VOID_FN *)cb_hg_size, a);
  Zoltan_Set_Fn(zz, ZOLTAN_HG_CS_FN_TYPE, (ZOLTAN_VOID_FN *)cb_hg_cs, a);
  if (use_multi) {
    Zoltan_Set_Fn(zz, ZOLTAN_OBJ_SIZE_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)cb_size_multi, a);
    Zoltan_Set_Fn(zz, ZOLTAN_PACK_OBJ_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)cb_pack_multi, a);
    Zoltan_Set_Fn(zz, ZOLTAN_UNPACK_OBJ_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)cb_unpack_multi, a);
    return;
  }
  Zoltan_Set_Fn(zz, ZOLTAN_OBJ_SIZE_FN_TYPE, (ZOLTAN_VOID_FN *)cb_size, a);
  Zoltan_Set_Fn(zz, ZOLTAN_PACK_OBJ_FN_TYPE, (ZOLTAN_VOID_FN *)cb_pack, a);
  Zoltan_Set_Fn(zz, ZOLTAN_UNPACK_OBJ_FN_TYPE, (ZOLTAN_VOID_FN *)cb_unpack, a);
}

/* The --param NAME=VALUE settings. */
static void set_params(struct Zoltan_Struct *zz, int nparams, char **params)
{
  for (int i = 0; i < nparams; i++) {
    char name[128], *eq = strchr(params[i], '=');
    size_t len = eq != NULL ? (size_t)(eq - params[i]) : 0;
    if (eq == NULL || len >= sizeof name) continue;
    memcpy(name, params[i], len);
    name[len] = '\0';
    Zoltan_Set_Param(zz, name, eq + 1);
  }
}

/* One case: returns the number of failed checks (the same on every rank). */
static int run_case(app *a, int kind, const char *method, int nparams, char **params)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  int changes, ngid, nlid, nimp, nexp, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  int rc, lo, hi, fired, bad = 0, n_before = a->n;
  int corrupt;
  a->fail = kind;
  a->fired = 0;
  a->corrupt = 0;
  Zoltan_Set_Param(zz, "LB_METHOD", method);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "ALL");
  if (kind >= K_MIGRATE) Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  set_params(zz, nparams, params);
  register_all(zz, a);
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el,
                           &ep, &epa);
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&a->fired, &fired, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&a->corrupt, &corrupt, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (fired && hi >= 0) bad = 1;
  if (corrupt > 0) bad = 1;
  if (!fired && lo < 0) bad = 1;
  if (a->n != n_before) bad = 1;
  if (a->rank == 0)
    printf("%s %-14s fault on rank %d: %s, return codes %d..%d, %d corrupt unpacks: %s\n", method,
           kind_names[kind], fail_rank(a), fired ? "called" : "not called", lo, hi, corrupt,
           bad ? "FAILED" : "ok");
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  Zoltan_Destroy(&zz);
  return bad;
}

/* Both forms of --unregistered-geometry, without any callback failing:
 * every rank must return an error (the same on all).  Returns the number
 * of failed checks. */
static int unregistered_geometry(app *a, const char *method, int nparams, char **params)
{
  int bad = 0;
  for (drop_geometry = 1; drop_geometry <= 2; drop_geometry++) {
    struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
    int changes, ngid, nlid, nimp, nexp, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL;
    int rc, lo, hi;
    ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
    a->fail = -1;
    Zoltan_Set_Param(zz, "LB_METHOD", method);
    Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
    set_params(zz, nparams, params);
    register_all(zz, a);
    rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (a->rank == 0)
      printf("%s without %s on rank %d: return codes %d..%d: %s\n", method,
             drop_geometry == 1 ? "ZOLTAN_GEOM_MULTI_FN" : "ZOLTAN_NUM_GEOM_FN", fail_rank(a), lo,
             hi, hi < 0 && lo == hi ? "ok" : "FAILED");
    bad += !(hi < 0 && lo == hi);
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
    Zoltan_Destroy(&zz);
  }
  return bad;
}

int main(int argc, char **argv)
{
  const char *method = NULL;
  char **params = calloc((size_t)argc + 1, sizeof *params);
  int nparams = 0, i, k, failures = 0, r;
  float version;
  app a;
  MPI_Init(&argc, &argv);
  if (params == NULL || Zoltan_Initialize(argc, argv, &version) != ZOLTAN_OK) {
    fprintf(stderr, "zp_fault: cannot start\n");
    MPI_Finalize();
    return 1;
  }
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--method") == 0 && i + 1 < argc)
      method = argv[++i];
    else if (strcmp(argv[i], "--multi") == 0)
      use_multi = 1;
    else if (strcmp(argv[i], "--param") == 0 && i + 1 < argc)
      params[nparams++] = argv[++i];
    else if (strcmp(argv[i], "--unregistered-geometry") == 0)
      drop_geometry = 1;
  }
  memset(&a, 0, sizeof a);
  MPI_Comm_rank(MPI_COMM_WORLD, &a.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &a.size);
  a.starts = calloc((size_t)a.size + 1, sizeof *a.starts);
  if (method == NULL || a.starts == NULL) {
    if (a.rank == 0) fprintf(stderr, "usage: zp_fault --method M [--param NAME=VALUE]...\n");
    free(params);
    free(a.starts);
    MPI_Finalize();
    return 2;
  }
  /* Uneven ranks: 20, 27, 34, ... objects. */
  for (r = 0; r < a.size; r++) a.starts[r + 1] = a.starts[r] + 20 + 7 * r;
  a.first = a.starts[a.rank];
  a.n = a.starts[a.rank + 1] - a.first;
  a.total = a.starts[a.size];
  if (drop_geometry) {
    failures = unregistered_geometry(&a, method, nparams, params);
    if (a.rank == 0) printf("zp_fault: %s, %d of 2 cases failed\n", method, failures);
  } else {
    for (k = 0; k < K_KINDS; k++) failures += run_case(&a, k, method, nparams, params);
    if (a.rank == 0) printf("zp_fault: %s, %d of %d cases failed\n", method, failures, K_KINDS);
  }
  free(params);
  free(a.starts);
  MPI_Finalize();
  return failures != 0;
}
