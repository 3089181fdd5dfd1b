/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bad-input corpus: one program, one case per run (--case NAME), each
 * with the outcome the plugin layer documents.  Cases already covered by
 * ctest/plugin (NaN weight on the last rank, duplicate GID across ranks,
 * Zoltan_LB_Balance with NUM_LOCAL_PARTS) are not repeated here.
 *
 * Outcomes:
 *  ERROR  Zoltan_LB_Partition / _Balance returns an error on every rank, no
 *         lists, and no object moved (the application's objects, their ranks,
 *         parts and weights are exactly as before: no partial migration).
 *  OK     the call returns OK or WARN on every rank, and the result is
 *         complete: every GID exactly once, weights conserved, parts valid.
 *  PARAM  Zoltan_Set_Param returns ZOLTAN_FATAL on every rank for each bad
 *         value, the value is not kept (a balance afterwards still succeeds
 *         with the default), and a good value set afterwards is accepted.
 * Every case also has a CTest TIMEOUT, so a hang fails the test.
 *
 * Usage: zp_badinput --case NAME|all [--method M|ALL]; --list prints the
 * cases.  'all' runs every listed case; ALL runs each case with GREEDY,
 * REFINE and GREEDYREFINE (cases named ulba_* run once, with ULBA, and only
 * when ULBA is registered).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "zpt_app.h"
#include "zpt_check.h"

#include "zp_method.h"

/* One application object. */
typedef zpt_obj obj;

typedef zpt_fault fault;

/* The application's local data. */
typedef zpt_app app;

/* ---- global views --------------------------------------------------------- */

/* One object as the checks see it. */
typedef struct rec {
  unsigned gid; /* global ID */
  int rank;     /* holder */
  int part;     /* part */
  float w;      /* weight */
} rec;

static int rec_cmp(const void *x, const void *y)
{
  const rec *p = x, *q = y;
  if (p->gid != q->gid) return (p->gid > q->gid) - (p->gid < q->gid);
  return (p->rank > q->rank) - (p->rank < q->rank);
}

/* All objects of all ranks, sorted, on every rank. */
static rec *snapshot(const app *a, int *total)
{
  int i;
  rec *mine = malloc(((size_t)a->n + 1) * sizeof *mine), *all;
  for (i = 0; i < a->n; i++) {
    memset(&mine[i], 0, sizeof mine[i]);
    mine[i].gid = a->o[i].gid;
    mine[i].rank = a->rank;
    mine[i].part = a->o[i].part;
    mine[i].w = (float)a->o[i].w;
  }
  all = zpt_gather_sorted(mine, a->n, sizeof(rec), rec_cmp, total);
  free(mine);
  return all;
}

/* ---- the cases ------------------------------------------------------------ */

enum outcome { OUT_ERROR, OUT_OK, OUT_PARAM };

/* What a case sets up. */
typedef struct setup {
  int M;                         /* global objects, GIDs 1..M dealt cyclically */
  int nparts;                    /* NUM_GLOBAL_PARTS, 0 = leave unset */
  int balance_api;               /* call Zoltan_LB_Balance */
  int psizes_kind;               /* 0 none, 1 negative, 2 all zero, 3 some zero */
  const char *method;            /* LB_METHOD */
  const char *pname;             /* PARAM: parameter name; also a parameter set before
                          balancing in ERROR/OK cases (with good_value) */
  const char *const *bad_values; /* PARAM: NULL-terminated bad values */
  const char *good_value;        /* PARAM: a value that must be accepted */
  enum outcome out;              /* expected outcome */
} setup;

static const char *const bad_refine_tol[] = {"0.99", "-1",  "0",    "NAN", "INF",
                                             "-INF", "abc", "1.5x", "",    NULL};
static const char *const bad_gr_tol[] = {"0.5", "-0", "1e400", "NAN", "T", NULL};
static const char *const bad_gr_thr[] = {"0.999", "-1e300", "INF", "1,5", NULL};
static const char *const bad_comm_aware[] = {"2", "-1", "0.5", "99999999999", "YES", NULL};
static const char *const bad_huge_pages[] = {"2", "-1", "0.5", "ON", "", NULL};

/* Fills s and the faults of a for the named case; returns 0 if unknown. */
static int make_case(const char *name, const char *method, app *a, setup *s)
{
  memset(s, 0, sizeof *s);
  s->M = 40;
  s->method = method;
  s->out = OUT_ERROR;
  a->f.num_obj_err_rank = a->f.obj_list_err_rank = a->f.parts_err_rank = -1;
  a->f.num_obj_negative = 0;
  /* Weights that are not finite or negative are refused on every rank. */
  if (!strcmp(name, "inf_weight_last_rank") || !strcmp(name, "negative_weight_rank0") ||
      !strcmp(name, "neg_inf_weight_rank0"))
    return 1;
  /* The same GID twice on one rank is refused (also at one rank). */
  if (!strcmp(name, "duplicate_gid_same_rank")) return 1;
  /* No objects anywhere: success, nothing changes. */
  if (!strcmp(name, "zero_objects_everywhere")) {
    s->M = 0;
    s->out = OUT_OK;
    return 1;
  }
  /* One object and many parts: success (a warning), one valid part. */
  if (!strcmp(name, "one_object_many_parts")) {
    s->M = 1;
    s->nparts = 16;
    s->out = OUT_OK;
    return 1;
  }
  /* More parts than objects: success, some parts stay empty. */
  if (!strcmp(name, "parts_exceed_objects")) {
    s->M = 5;
    s->nparts = 37;
    s->out = OUT_OK;
    return 1;
  }
  /* NUM_GLOBAL_PARTS larger than one rank per part can take. */
  if (!strcmp(name, "parts_exceed_objects_empty_ranks")) {
    s->M = 2;
    s->nparts = 9;
    s->out = OUT_OK;
    return 1;
  }
  /* A negative part size is refused; all sizes zero is refused. */
  if (!strcmp(name, "part_size_negative")) {
    s->psizes_kind = 1;
    return 1;
  }
  if (!strcmp(name, "part_sizes_all_zero")) {
    s->psizes_kind = 2;
    return 1;
  }
  /* Some part sizes zero: success; those parts receive no weight. */
  if (!strcmp(name, "part_sizes_some_zero")) {
    s->psizes_kind = 3;
    s->nparts = 6;
    s->out = OUT_OK;
    return 1;
  }
  /* Callbacks that fail on one rank make every rank return an error. */
  if (!strcmp(name, "num_obj_fn_error_last_rank")) {
    a->f.num_obj_err_rank = a->size - 1;
    return 1;
  }
  if (!strcmp(name, "num_obj_fn_negative_count")) {
    a->f.num_obj_negative = 1;
    return 1;
  }
  if (!strcmp(name, "obj_list_fn_error_rank0")) {
    a->f.obj_list_err_rank = 0;
    return 1;
  }
  if (!strcmp(name, "part_fn_error_last_rank")) {
    a->f.parts_err_rank = a->size - 1;
    return 1;
  }
  /* Zoltan_LB_Balance needs one part per rank: more parts is an error. */
  if (!strcmp(name, "balance_more_global_parts")) {
    s->balance_api = 1;
    s->nparts = a->size + 1;
    return 1;
  }
  /* ULBA cannot be its own base method: an error on every rank. */
  if (!strcmp(name, "ulba_base_is_ulba")) {
    s->method = "ULBA";
    s->pname = "ULBA_BASE_METHOD";
    s->good_value = "ULBA";
    return 1;
  }
  /* ULBA over RCB without geometry callbacks: an error on every rank (not
   * in "all": it crashes today inside Zoltan's RCB, see the CMake file). */
  if (!strcmp(name, "ulba_base_rcb_without_geometry")) {
    s->method = "ULBA";
    s->pname = "ULBA_BASE_METHOD";
    s->good_value = "RCB";
    return 1;
  }
  /* Out-of-range values of each method's parameters are refused. */
  s->out = OUT_PARAM;
  if (!strcmp(name, "param_refine_tolerance")) {
    s->pname = "REFINE_TOLERANCE";
    s->bad_values = bad_refine_tol;
    s->good_value = "1.05";
    return 1;
  }
  if (!strcmp(name, "param_greedyrefine_tolerance")) {
    s->pname = "GREEDYREFINE_TOLERANCE";
    s->bad_values = bad_gr_tol;
    s->good_value = "1.2";
    return 1;
  }
  if (!strcmp(name, "param_greedyrefine_threshold")) {
    s->pname = "GREEDYREFINE_THRESHOLD";
    s->bad_values = bad_gr_thr;
    s->good_value = "1";
    return 1;
  }
  if (!strcmp(name, "param_refine_comm_aware")) {
    s->pname = "REFINE_COMM_AWARE";
    s->bad_values = bad_comm_aware;
    s->good_value = "1";
    return 1;
  }
  /* The layer's own parameters are refused alike, whatever the method. */
  if (!strcmp(name, "param_huge_pages")) {
    s->pname = "ZOLTAN_PLUGINS_HUGE_PAGES";
    s->bad_values = bad_huge_pages;
    s->good_value = "0";
    return 1;
  }
  /* An unknown method name is refused by Set_Param on every rank. */
  if (!strcmp(name, "unknown_method")) {
    static const char *const bad_method[] = {"GREEDDY", "GREEDY2", "", NULL};
    s->pname = "LB_METHOD";
    s->bad_values = bad_method;
    s->good_value = method;
    return 1;
  }
  return 0;
}

static const char *const case_names[] = {"inf_weight_last_rank",
                                         "negative_weight_rank0",
                                         "neg_inf_weight_rank0",
                                         "duplicate_gid_same_rank",
                                         "zero_objects_everywhere",
                                         "one_object_many_parts",
                                         "parts_exceed_objects",
                                         "parts_exceed_objects_empty_ranks",
                                         "part_size_negative",
                                         "part_sizes_all_zero",
                                         "part_sizes_some_zero",
                                         "num_obj_fn_error_last_rank",
                                         "num_obj_fn_negative_count",
                                         "obj_list_fn_error_rank0",
                                         "part_fn_error_last_rank",
                                         "balance_more_global_parts",
                                         "param_refine_tolerance",
                                         "param_greedyrefine_tolerance",
                                         "param_greedyrefine_threshold",
                                         "param_refine_comm_aware",
                                         "param_huge_pages",
                                         "unknown_method",
                                         "ulba_base_is_ulba",
                                         NULL};

/* Every rank agrees that cond holds. */
static int all_ranks(int cond)
{
  int g;
  MPI_Allreduce(&cond, &g, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return g;
}

/* Runs one case with one method on every rank; failures are counted by
 * zpt_check. */
static void run_case(app *a, const char *name, const char *method)
{
  int i, nb, na, ierr, changes = -1, ngid, nlid, nimp = -9, nexp = -9, *ip = NULL, *ipa = NULL,
                       *ep = NULL, *epa = NULL;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  rec *before, *after;
  setup s;
  struct Zoltan_Struct *zz;
  char buf[32];

  a->n = 0;
  make_case(name, method, a, &s);
  method = s.method;
  zpt_check_context("%s: ", name);
  /* Objects 1..M dealt cyclically, weight 1 + gid % 5, part = rank. */
  for (i = 1; i <= s.M; i++) {
    if ((i - 1) % a->size == a->rank) {
      obj o;
      o.gid = (ZOLTAN_ID_TYPE)i;
      o.w = (float)(1 + i % 5);
      o.part = a->rank;
      o.gone = 0;
      zpt_app_push(a, o);
    }
  }
  if (!strcmp(name, "inf_weight_last_rank") && a->rank == a->size - 1 && a->n > 0)
    a->o[a->n - 1].w = INFINITY;
  if (!strcmp(name, "negative_weight_rank0") && a->rank == 0) a->o[0].w = -1.0f;
  if (!strcmp(name, "neg_inf_weight_rank0") && a->rank == 0) a->o[0].w = -INFINITY;
  if (!strcmp(name, "duplicate_gid_same_rank") && a->rank == 0 && a->n > 1)
    a->o[1].gid = a->o[0].gid;

  zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  zpt_register(zz, a);
  ZPT_CHECK(Zoltan_Set_Param(zz, "LB_METHOD", method) == ZOLTAN_OK, "LB_METHOD %s refused", method);
  if (s.nparts > 0) {
    snprintf(buf, sizeof buf, "%d", s.nparts);
    ZPT_CHECK(Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", buf) == ZOLTAN_OK,
              "NUM_GLOBAL_PARTS %s refused", buf);
  }
  if (s.psizes_kind != 0) {
    int np = s.nparts > 0 ? s.nparts : a->size, *ids = malloc((size_t)np * sizeof *ids),
        *idx = calloc((size_t)np, sizeof *idx);
    float *sz = malloc((size_t)np * sizeof *sz);
    for (i = 0; i < np; i++) {
      ids[i] = i;
      sz[i] = 1.0f;
      if (s.psizes_kind == 2 || (s.psizes_kind == 3 && i % 2 == 1)) sz[i] = 0.0f;
    }
    if (s.psizes_kind == 1) sz[np - 1] = -1.0f;
    /* Only the last rank gives the sizes: the error must still reach all. */
    if (a->rank == a->size - 1) Zoltan_LB_Set_Part_Sizes(zz, 1, np, ids, idx, sz);
    free(ids);
    free(idx);
    free(sz);
  }
  if (s.out != OUT_PARAM && s.pname != NULL)
    ZPT_CHECK(Zoltan_Set_Param(zz, s.pname, s.good_value) == ZOLTAN_OK, "%s = %s refused", s.pname,
              s.good_value);
  if (s.out == OUT_PARAM) {
    for (i = 0; s.bad_values[i] != NULL; i++) {
      int e = Zoltan_Set_Param(zz, s.pname, s.bad_values[i]);
      ZPT_CHECK(all_ranks(e == ZOLTAN_FATAL),
                "%s = '%s' returned %d, expected ZOLTAN_FATAL on every rank", s.pname,
                s.bad_values[i], e);
    }
  }

  before = snapshot(a, &nb);
  if (s.balance_api)
    ierr =
        Zoltan_LB_Balance(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &nexp, &eg, &el, &ep);
  else
    ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                               &el, &ep, &epa);
  zpt_app_compact(a);
  after = snapshot(a, &na);

  if (s.out == OUT_ERROR) {
    ZPT_CHECK(all_ranks(ierr < 0), "expected an error on every rank, got %d here", ierr);
    ZPT_CHECK(nimp <= 0 && nexp <= 0, "error return left lists (%d imports, %d exports)", nimp,
              nexp);
    /* No partial migration: the objects are exactly as before. */
    ZPT_CHECK(na == nb && memcmp(before, after, (size_t)nb * sizeof *before) == 0,
              "objects changed although the balance failed (%d before, %d after)", nb, na);
  } else {
    int np = s.nparts > 0 ? s.nparts : a->size;
    double wb = 0.0, wa = 0.0;
    ZPT_CHECK(all_ranks(ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN),
              "expected success on every rank, got %d here", ierr);
    ZPT_CHECK(na == s.M, "%d objects after, expected %d", na, s.M);
    for (i = 0; i < na; i++) {
      ZPT_CHECK(after[i].gid == (unsigned)(i + 1), "GID %u at position %d (lost or duplicated)",
                after[i].gid, i);
      ZPT_CHECK(after[i].part >= 0 && after[i].part < np, "GID %u in part %d outside [0, %d)",
                after[i].gid, after[i].part, np);
      /* A part whose requested size is zero receives no weight. */
      if (s.psizes_kind == 3)
        ZPT_CHECK(after[i].part % 2 == 0, "GID %u went to part %d whose size is zero", after[i].gid,
                  after[i].part);
      wa += after[i].w;
    }
    for (i = 0; i < nb; i++) wb += before[i].w;
    ZPT_CHECK(wa == wb, "total weight %.9g after, %.9g before", wa, wb);
    if (s.M == 0)
      ZPT_CHECK(changes == 0 && nimp == 0 && nexp == 0, "no objects but changes %d, lists %d/%d",
                changes, nimp, nexp);
  }
  free(before);
  free(after);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  if (s.out == OUT_PARAM) {
    /* A good value is still accepted after the refused ones. */
    int e = Zoltan_Set_Param(zz, s.pname, s.good_value);
    ZPT_CHECK(all_ranks(e == ZOLTAN_OK), "%s = %s refused after bad values (%d)", s.pname,
              s.good_value, e);
  }
  Zoltan_Destroy(&zz);
}

int main(int argc, char **argv)
{
  static const char *const all_methods[] = {"GREEDY", "REFINE", "GREEDYREFINE", NULL};
  const char *name = NULL, *method = "GREEDY";
  int i, j, g, runs = 0;
  app a;
  setup s;
  float ver;

  MPI_Init(&argc, &argv);
  zpt_app_init(&a);
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--case") && i + 1 < argc)
      name = argv[++i];
    else if (!strcmp(argv[i], "--method") && i + 1 < argc)
      method = argv[++i];
    else if (!strcmp(argv[i], "--list")) {
      for (i = 0; case_names[i] != NULL && a.rank == 0; i++) printf("%s\n", case_names[i]);
      MPI_Finalize();
      return 0;
    }
  }
  if (name == NULL || (strcmp(name, "all") != 0 && !make_case(name, method, &a, &s))) {
    if (a.rank == 0)
      fprintf(stderr, "zp_badinput: unknown or missing --case (see --list; 'all' runs all)\n");
    MPI_Finalize();
    return 2;
  }
  Zoltan_Initialize(argc, argv, &ver);
  /* --case all runs every case, each with a fresh Zoltan_Struct; --method
   * ALL runs each case with every method of ours. */
  for (i = 0; case_names[i] != NULL; i++) {
    const char *cn = strcmp(name, "all") == 0 ? case_names[i] : name;
    int is_ulba = strncmp(cn, "ulba_", 5) == 0;
    if (strcmp(name, "all") == 0 && is_ulba && zp_find_method("ULBA") == NULL) continue;
    for (j = 0; all_methods[j] != NULL; j++) {
      const char *m = strcmp(method, "ALL") == 0 ? all_methods[j] : method;
      int before_fail = zpt_check_failures(), gf;
      /* Cases that fix their own method run once. */
      if ((strcmp(method, "ALL") != 0 || is_ulba) && j > 0) break;
      run_case(&a, cn, m);
      runs++;
      gf = zpt_check_failures() - before_fail;
      MPI_Allreduce(MPI_IN_PLACE, &gf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (a.rank == 0)
        printf("zp_badinput %s (%s, %d ranks): %s\n", cn, is_ulba ? "ULBA" : m, a.size,
               gf ? "FAILED" : "passed");
    }
    if (strcmp(name, "all") != 0) break;
  }
  free(a.o);
  g = zpt_check_total();
  if (a.rank == 0)
    printf("zp_badinput: %d case runs at %d ranks, %s\n", runs, a.size, g ? "FAILED" : "passed");
  MPI_Finalize();
  return g ? 1 : 0;
}
