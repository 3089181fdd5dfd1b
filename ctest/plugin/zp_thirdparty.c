/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A third-party method registered through the public registry API, run
 * through the plain Zoltan API.  ROUNDROBIN sends the k-th object in GID
 * order to part (k + RR_OFFSET) mod P, which makes every list checkable;
 * KEEPPARTS is a distributed method that leaves every object where it is;
 * HALFWEIGHT runs native RCB through zp_ctx_run_base_weighted with weight 1
 * for the first half of the GIDs and 0 for the others, so that RCB spreads
 * the first half over all parts (with the application's weights, none here,
 * it would give whole parts to each half).
 * Descriptions the registry must refuse (wrong ABI, Zoltan's own parameter
 * names, unprefixed names, ...) are tried too, and native RCB must still
 * see every Zoltan parameter afterwards.
 */
/* dup, dup2 and fileno, to read back the registry's messages. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zoltan.h>
#include <zoltan_plugins/zoltan_plugins.h>

#include "zpt_app.h"
#include "zpt_check.h"

static int g_rank;
/* The shared checks of ctest/common, under the short name of this file. */
#define CHECK ZPT_CHECK

static const zp_param_def rr_params[] = {
    {"RR_OFFSET", ZP_PARAM_INT, "0", 0, 1000000, 0, NULL, "first part of the round robin"},
    {"RR_SCALE", ZP_PARAM_DOUBLE, "0.5", 0, 1, ZP_PARAM_MAX_OPEN,
     (const char *const[]){"AUTO", NULL}, "an unused number in [0, 1) or AUTO, to test keywords"},
};

/* The layer's kept work buffers (zp_problem_scratch): a writable buffer per
 * slot, the same one when asked again, none for a slot out of range or a
 * problem the layer did not build.  Returns 1 when one of these fails. */
static int rr_scratch_broken(const zp_problem *pb)
{
  zp_problem bare = *pb;
  size_t bytes = (pb->num_obj + 1) * sizeof(int), k;
  int *a = zp_problem_scratch(pb, 0, bytes);
  int *b = zp_problem_scratch(pb, ZP_PROBLEM_SCRATCH_SLOTS - 1, bytes);
  bare.layer = NULL;
  if (a == NULL || b == NULL || a == b || zp_problem_scratch(pb, 0, bytes) != a ||
      zp_problem_scratch(pb, -1, 8) != NULL ||
      zp_problem_scratch(pb, ZP_PROBLEM_SCRATCH_SLOTS, 8) != NULL ||
      zp_problem_scratch(&bare, 0, 8) != NULL)
    return 1;
  for (k = 0; k <= pb->num_obj; k++) a[k] = b[k] = (int)k;
  return 0;
}

static int rr_partition(const zp_problem *pb, void *state, int *new_part)
{
  int off = 0, kw = 1;
  double sc = -1.0;
  size_t k;
  (void)state;
  if (zp_param_int(pb->params, "RR_OFFSET", &off, NULL) != ZOLTAN_OK) return ZOLTAN_FATAL;
  if (zp_param_double(pb->params, "RR_SCALE", &sc, &kw) != ZOLTAN_OK) return ZOLTAN_FATAL;
  if (rr_scratch_broken(pb)) return ZOLTAN_FATAL;
  for (k = 0; k < pb->num_obj; k++) {
    /* Objects arrive sorted by GID: check it, since the method relies on it. */
    if (k > 0 && pb->gids[k - 1] >= pb->gids[k]) return ZOLTAN_FATAL;
    new_part[k] = (int)((k + (size_t)off) % (size_t)pb->num_parts);
  }
  return ZOLTAN_OK;
}

/* RR_ is not "ROUNDROBIN_": the method declares its own prefix. */
static const zp_method rr_method = {.abi = ZP_METHOD_ABI,
                                    .name = "ROUNDROBIN",
                                    .summary = "test method",
                                    .params = rr_params,
                                    .num_params = 2,
                                    .param_prefix = "RR_",
                                    .partition_serial = rr_partition};

static int keep_partition(zp_context *ctx, void *state, int *new_part)
{
  int i, n = zp_ctx_num_local(ctx);
  const int *cur = zp_ctx_local_parts(ctx);
  (void)state;
  for (i = 0; i < n; i++) new_part[i] = cur[i] >= 0 ? cur[i] : 0;
  return ZOLTAN_OK;
}

/* Objects in the whole problem (set in main), for HALFWEIGHT. */
static int g_total_obj;

static int halfweight_partition(zp_context *ctx, void *state, int *new_part)
{
  int i, n = zp_ctx_num_local(ctx), ierr;
  const ZOLTAN_ID_TYPE *g = zp_ctx_local_gids(ctx);
  double *w = malloc(((size_t)n + 1) * sizeof *w);
  (void)state;
  if (w == NULL) return ZOLTAN_MEMERR;
  for (i = 0; i < n; i++) w[i] = 2 * (int)g[i] <= g_total_obj ? 1.0 : 0.0;
  ierr = zp_ctx_run_base_weighted(ctx, "RCB", zp_ctx_part_sizes(ctx), w, new_part);
  free(w);
  return ierr;
}

static const zp_method halfweight_method = {.abi = ZP_METHOD_ABI,
                                            .name = "HALFWEIGHT",
                                            .summary = "test method",
                                            .partition_parallel = halfweight_partition};

static const zp_method keep_method = {.abi = ZP_METHOD_ABI,
                                      .name = "KEEPPARTS",
                                      .summary = "test method",
                                      .partition_parallel = keep_partition};

/* CHOOSER: a method that chooses once and then delegates, as AUTO does,
 * through the public API only.  Its first call runs ROUNDROBIN with
 * RR_OFFSET=1 as a base (zp_ctx_run_base_setting) and keeps that choice;
 * every later call delegates to "ROUNDROBIN:RR_OFFSET=1", so that its own
 * function does not run again.  A setting the registry refuses fails on
 * every rank. */
typedef struct chooser_state {
  int chosen;
} chooser_state;
static int g_chooser_runs, g_chooser_delegated;

static int chooser_create(void **state)
{
  *state = calloc(1, sizeof(chooser_state));
  return *state != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR;
}

static int chooser_partition(zp_context *ctx, void *state, int *new_part)
{
  chooser_state *st = state;
  int *scratch = malloc(((size_t)zp_ctx_num_local(ctx) + 1) * sizeof *scratch), bad;
  g_chooser_runs++;
  bad = scratch == NULL || zp_ctx_run_base_setting(ctx, "ROUNDROBIN", "RR_NOPE", "1",
                                                   zp_ctx_part_sizes(ctx), scratch) != ZOLTAN_FATAL;
  free(scratch);
  CHECK(!bad, "CHOOSER: a refused setting did not fail");
  st->chosen = 1;
  return zp_ctx_run_base_setting(ctx, "ROUNDROBIN", "RR_OFFSET", "1", zp_ctx_part_sizes(ctx),
                                 new_part);
}

static int chooser_delegate(const zp_params *params, const void *state, char *spec, size_t cap)
{
  (void)params;
  if (!((const chooser_state *)state)->chosen) return 0;
  snprintf(spec, cap, "ROUNDROBIN:RR_OFFSET=1");
  return 1;
}

static void chooser_delegated(void *state)
{
  (void)state;
  g_chooser_delegated++;
}

static const zp_method chooser_method = {.abi = ZP_METHOD_ABI,
                                         .name = "CHOOSER",
                                         .summary = "test method",
                                         .create = chooser_create,
                                         .destroy = free,
                                         .partition_parallel = chooser_partition,
                                         .delegate = chooser_delegate,
                                         .delegated = chooser_delegated};

/* SIZED: a method with both partition functions (SZ_PARALLEL chooses) that
 * reads the object sizes (ZP_WANTS_SIZES): each object's size is 8 x its
 * GID (size_multi below).  The centralised function answers ROUNDROBIN's
 * parts, the distributed one keeps every object where it is, so the lists
 * say which one ran; both fail when a size is wrong. */
static const zp_param_def sz_params[] = {
    {"SZ_PARALLEL", ZP_PARAM_INT, "0", 0, 1, 0, NULL, "1: run the distributed function"}};

static int sz_serial(const zp_problem *pb, void *state, int *new_part)
{
  size_t k;
  if (pb->obj_sizes == NULL) return ZOLTAN_FATAL;
  for (k = 0; k < pb->num_obj; k++)
    if (pb->obj_sizes[k] != 8.0 * (double)pb->gids[k]) return ZOLTAN_FATAL;
  return rr_partition(pb, state, new_part);
}

static int sz_parallel(zp_context *ctx, void *state, int *new_part)
{
  const double *sz = NULL;
  const ZOLTAN_ID_TYPE *g = zp_ctx_local_gids(ctx);
  int i, n = zp_ctx_num_local(ctx);
  if (!zp_ctx_local_sizes(ctx, &sz)) return ZOLTAN_FATAL;
  for (i = 0; i < n; i++)
    if (sz[i] != 8.0 * (double)g[i]) return ZOLTAN_FATAL;
  return keep_partition(ctx, state, new_part);
}

static int sz_use_parallel(const zp_params *params, double num_global_obj, int num_procs,
                           const char *lb_approach, const void *state)
{
  int par = 0;
  (void)num_global_obj;
  (void)num_procs;
  (void)lb_approach;
  (void)state;
  return zp_param_int(params, "SZ_PARALLEL", &par, NULL) == ZOLTAN_OK && par;
}

static const zp_method sized_method = {.abi = ZP_METHOD_ABI,
                                       .name = "SIZED",
                                       .summary = "test method",
                                       .params = sz_params,
                                       .num_params = 1,
                                       .param_prefix = "SZ_",
                                       .needs = ZP_WANTS_SIZES,
                                       .partition_serial = sz_serial,
                                       .partition_parallel = sz_parallel,
                                       .use_parallel = sz_use_parallel};

/* Registrations that must be refused. */
static const zp_param_def clash_params[] = {
    {"RR_OFFSET", ZP_PARAM_INT, "0", 0, 10, 0, NULL, "clashes with ROUNDROBIN"}};
static const zp_param_def bad_default[] = {
    {"BAD_X", ZP_PARAM_INT, "11", 0, 10, 0, NULL, "default out of range"}};
static const zp_method clash = {.abi = ZP_METHOD_ABI,
                                .name = "CLASH",
                                .summary = "x",
                                .params = clash_params,
                                .num_params = 1,
                                .param_prefix = "RR_",
                                .partition_serial = rr_partition};
static const zp_method native = {
    .abi = ZP_METHOD_ABI, .name = "RCB", .summary = "x", .partition_serial = rr_partition};
static const zp_method both = {.abi = ZP_METHOD_ABI,
                               .name = "BOTH",
                               .summary = "x",
                               .partition_serial = rr_partition,
                               .partition_parallel = keep_partition};
static const zp_method baddef = {.abi = ZP_METHOD_ABI,
                                 .name = "BADDEF",
                                 .summary = "x",
                                 .params = bad_default,
                                 .num_params = 1,
                                 .param_prefix = "BAD_",
                                 .partition_serial = rr_partition};
/* No .abi: as if written before the field existed, or for another version. */
static const zp_method noabi = {.name = "NOABI", .summary = "x", .partition_serial = rr_partition};
static const zp_method wrongabi = {
    .abi = ZP_METHOD_ABI + 1, .name = "WRONGABI", .summary = "x", .partition_serial = rr_partition};
/* A Zoltan parameter in a method's table: the layer would consume it and
 * native methods would never see it again. */
static const zp_param_def steal_params[] = {{"NUM_GLOBAL_PARTS", ZP_PARAM_INT, "2", 1, 0,
                                             ZP_PARAM_NO_MAX, NULL, "takes Zoltan's parameter"}};
static const zp_method steal = {.abi = ZP_METHOD_ABI,
                                .name = "STEAL",
                                .summary = "x",
                                .params = steal_params,
                                .num_params = 1,
                                .partition_serial = rr_partition};
/* Even with a prefix of its own that covers the name. */
static const zp_method steal_prefixed = {.abi = ZP_METHOD_ABI,
                                         .name = "STEAL2",
                                         .summary = "x",
                                         .params = steal_params,
                                         .num_params = 1,
                                         .param_prefix = "NUM_",
                                         .partition_serial = rr_partition};
/* A name that is not Zoltan's but lacks the method's prefix. */
static const zp_param_def unprefixed_params[] = {
    {"FACTOR", ZP_PARAM_DOUBLE, "0.5", 0, 1, 0, NULL, "no MYLB_ prefix"}};
static const zp_method unprefixed = {.abi = ZP_METHOD_ABI,
                                     .name = "MYLB",
                                     .summary = "x",
                                     .params = unprefixed_params,
                                     .num_params = 1,
                                     .partition_serial = rr_partition};
/* A prefix under which Zoltan has parameters of its own (RCB_REUSE, ...). */
static const zp_param_def rcbx_params[] = {
    {"RCB_MYKNOB", ZP_PARAM_INT, "0", 0, 1, 0, NULL, "in Zoltan's RCB_ namespace"}};
static const zp_method rcb_prefix = {.abi = ZP_METHOD_ABI,
                                     .name = "RCBX",
                                     .summary = "x",
                                     .params = rcbx_params,
                                     .num_params = 1,
                                     .param_prefix = "RCB_",
                                     .partition_serial = rr_partition};
/* The adaptive trigger's names are set with adaptive_set_param: reserved. */
static const zp_param_def adaptive_params[] = {
    {"ADAPTIVE_POLICY", ZP_PARAM_STRING, "X", 0, 0, 0, NULL, "the trigger's name"}};
static const zp_method adaptive_prefix = {.abi = ZP_METHOD_ABI,
                                          .name = "ADAPTIVE",
                                          .summary = "x",
                                          .params = adaptive_params,
                                          .num_params = 1,
                                          .partition_serial = rr_partition};

/* Registers m, which must be refused with a message on stderr that contains
 * every one of the words (NULL-terminated).  stderr goes to a temporary
 * file for the call so that the message can be read back. */
static void expect_refused(const zp_method *m, const char *what, const char *const *words)
{
  char buf[4096];
  size_t n;
  int rc, saved;
  FILE *tmp = tmpfile();
  CHECK(tmp != NULL, "no temporary file for %s", what);
  if (tmp == NULL) return;
  fflush(stderr);
  saved = dup(fileno(stderr));
  dup2(fileno(tmp), fileno(stderr));
  rc = zp_register_method(m);
  fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  rewind(tmp);
  n = fread(buf, 1, sizeof buf - 1, tmp);
  buf[n] = '\0';
  fclose(tmp);
  fputs(buf, stderr); /* keep the message in the test's log */
  CHECK(rc == ZOLTAN_FATAL, "%s accepted (code %d)", what, rc);
  for (; *words != NULL; words++)
    CHECK(strstr(buf, *words) != NULL, "%s: message does not name %s: %s", what, *words, buf);
}

#define NLOC 10
static ZOLTAN_ID_TYPE g_gids[NLOC];
static int g_parts[NLOC];

static int num_obj(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return NLOC;
}

static void obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wd,
                     float *w, int *ierr)
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

/* Object sizes for SIZED: 8 bytes per unit of GID. */
static void size_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                       int *sizes, int *ierr)
{
  (void)d;
  (void)ng;
  (void)nl;
  (void)lids;
  for (int k = 0; k < n; k++) sizes[k] = 8 * (int)gids[k];
  *ierr = ZOLTAN_OK;
}

static void part_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                       int *parts, int *ierr)
{
  int i;
  (void)d;
  (void)ng;
  (void)nl;
  (void)gids;
  for (i = 0; i < n; i++) parts[i] = g_parts[lids[i]];
  *ierr = ZOLTAN_OK;
}

/* One coordinate per object, its GID, for native RCB. */
static void geom_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                       int dim, double *x, int *ierr)
{
  int i;
  (void)d;
  (void)ng;
  (void)nl;
  (void)lids;
  (void)dim;
  for (i = 0; i < n; i++) x[i] = (double)gids[i];
  *ierr = ZOLTAN_OK;
}

/* Native RCB with NUM_GLOBAL_PARTS = K: checks that every object gets a part
 * in [0, K) and that every one of the K parts gets objects, which fails if
 * the parameter never reached Zoltan (it then makes one part per rank). */
static void check_rcb_parts(struct Zoltan_Struct *zz, int P, int K)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, i, ierr, total = 0, empty = 0;
  ZOLTAN_ID_PTR ig, il, eg, el;
  int *count = calloc((size_t)K, sizeof *count), *sum = calloc((size_t)K, sizeof *sum);
  char k[16];
  CHECK(count != NULL && sum != NULL, "out of memory");
  if (count == NULL || sum == NULL) goto cleanup;
  snprintf(k, sizeof k, "%d", K);
  CHECK(Zoltan_Set_Param(zz, "LB_METHOD", "RCB") == ZOLTAN_OK, "LB_METHOD=RCB refused");
  CHECK(Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", k) == ZOLTAN_OK, "NUM_GLOBAL_PARTS=%s refused", k);
  CHECK(Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS") == ZOLTAN_OK, "RETURN_LISTS=PARTS refused");
  ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
  CHECK(ierr == ZOLTAN_OK, "RCB returned %d", ierr);
  if (ierr != ZOLTAN_OK) goto cleanup;
  /* RETURN_LISTS=PARTS lists every local object with its new part. */
  CHECK(nexp == NLOC, "RCB listed %d objects, expected %d", nexp, NLOC);
  for (i = 0; i < nexp; i++) {
    CHECK(epa[i] >= 0 && epa[i] < K, "RCB put GID %u in part %d, outside [0, %d)", eg[i], epa[i],
          K);
    if (epa[i] >= 0 && epa[i] < K) count[epa[i]]++;
  }
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  MPI_Allreduce(count, sum, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (i = 0; i < K; i++) {
    total += sum[i];
    empty += sum[i] == 0;
  }
  CHECK(total == NLOC * P && empty == 0, "RCB with NUM_GLOBAL_PARTS=%d: %d objects, %d empty parts",
        K, total, empty);
cleanup:
  free(count);
  free(sum);
}

/* HALFWEIGHT, then RCB; counts per part of the first half and of all. */
static void check_halfweight(struct Zoltan_Struct *zz, int P)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, ierr, i, round;
  ZOLTAN_ID_PTR ig, il, eg, el;
  int *count = calloc((size_t)P, sizeof *count), *sum = calloc((size_t)P, sizeof *sum);
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  for (round = 0; round < 2; round++) {
    Zoltan_Set_Param(zz, "LB_METHOD", round == 0 ? "HALFWEIGHT" : "RCB");
    ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                               &el, &ep, &epa);
    CHECK(ierr == ZOLTAN_OK && nexp == NLOC, "%s: ierr %d, %d objects listed",
          round == 0 ? "HALFWEIGHT" : "RCB", ierr, nexp);
    for (i = 0; i < P; i++) count[i] = 0;
    for (i = 0; ierr == ZOLTAN_OK && i < nexp; i++)
      if (epa[i] >= 0 && epa[i] < P && (round == 1 || 2 * (int)eg[i] <= g_total_obj))
        count[epa[i]]++;
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
    MPI_Allreduce(count, sum, P, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* Round 0: NLOC / 2 of the first half per part; round 1: NLOC in all. */
    for (i = 0; i < P; i++)
      CHECK(abs(sum[i] - (round == 0 ? NLOC / 2 : NLOC)) <= 1, "%s: part %d got %d %s, expected %d",
            round == 0 ? "HALFWEIGHT" : "RCB", i, sum[i],
            round == 0 ? "objects of the first half" : "objects", round == 0 ? NLOC / 2 : NLOC);
  }
  Zoltan_Set_Param(zz, "RETURN_LISTS", "ALL");
  free(count);
  free(sum);
}

/* Run a partition and return the number of objects that stay in place. */
static int run(struct Zoltan_Struct *zz, int P, int offset, int expect_exact)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa, i, ierr, stay = 0, total;
  ZOLTAN_ID_PTR ig, il, eg, el;
  int newp[NLOC];
  ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
  CHECK(ierr == ZOLTAN_OK, "ROUNDROBIN returned %d", ierr);
  if (ierr != ZOLTAN_OK) return -1;
  for (i = 0; i < NLOC; i++) newp[i] = g_parts[i];
  for (i = 0; i < nexp; i++) newp[el[i]] = epa[i];
  for (i = 0; i < NLOC; i++) {
    /* GID g is the (g-1)-th object in GID order. */
    int want = (int)((g_gids[i] - 1 + (ZOLTAN_ID_TYPE)offset) % (ZOLTAN_ID_TYPE)P);
    if (expect_exact)
      CHECK(newp[i] == want, "GID %u went to part %d, expected %d", g_gids[i], newp[i], want);
    stay += newp[i] == g_parts[i];
  }
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  MPI_Allreduce(&stay, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

/* A good description registers; bad ones are refused with a message. */
static void check_registration(void)
{
  CHECK(zp_register_method(&rr_method) == ZOLTAN_OK, "ROUNDROBIN refused");
  CHECK(zp_register_method(&keep_method) == ZOLTAN_OK, "KEEPPARTS refused");
  CHECK(zp_register_method(&halfweight_method) == ZOLTAN_OK, "HALFWEIGHT refused");
  CHECK(zp_register_method(&chooser_method) == ZOLTAN_OK, "CHOOSER refused");
  CHECK(zp_register_method(&rr_method) == ZOLTAN_FATAL, "duplicate ROUNDROBIN accepted");
  CHECK(zp_register_method(&clash) == ZOLTAN_FATAL, "parameter clash accepted");
  CHECK(zp_register_method(&native) == ZOLTAN_FATAL, "native name RCB accepted");
  CHECK(zp_register_method(&both) == ZOLTAN_FATAL,
        "method with two partition functions and no use_parallel accepted");
  CHECK(zp_register_method(&sized_method) == ZOLTAN_OK, "SIZED refused");
  CHECK(zp_register_method(&baddef) == ZOLTAN_FATAL, "out-of-range default accepted");
  expect_refused(&noabi, "a description without abi",
                 (const char *const[]){"NOABI", "ZP_METHOD_ABI", NULL});
  expect_refused(&wrongabi, "a description of another ABI",
                 (const char *const[]){"WRONGABI", "abi", NULL});
  expect_refused(&steal, "a method parameter named NUM_GLOBAL_PARTS",
                 (const char *const[]){"NUM_GLOBAL_PARTS", "Zoltan parameter", NULL});
  expect_refused(&steal_prefixed, "NUM_GLOBAL_PARTS under the prefix NUM_",
                 (const char *const[]){"NUM_GLOBAL_PARTS", "Zoltan parameter", NULL});
  expect_refused(&unprefixed, "an unprefixed parameter name",
                 (const char *const[]){"FACTOR", "MYLB_", NULL});
  expect_refused(&rcb_prefix, "the prefix RCB_", (const char *const[]){"RCB_", "Zoltan", NULL});
  expect_refused(&adaptive_prefix, "the prefix ADAPTIVE_",
                 (const char *const[]){"ADAPTIVE_", NULL});
  CHECK(zp_find_method("STEAL") == NULL && zp_find_method("MYLB") == NULL,
        "a refused method is registered");
  CHECK(zp_find_method("roundrobin") == &rr_method, "lookup is not case-insensitive");
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

  check_registration();

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
  Zoltan_Set_Num_Geom_Fn(zz, zpt_cb_num_geom_1, NULL);
  Zoltan_Set_Geom_Multi_Fn(zz, geom_multi, NULL);
  CHECK(Zoltan_Set_Param(zz, "LB_METHOD", " roundRobin ") == ZOLTAN_OK,
        "LB_METHOD=roundRobin refused");

  /* Parameter checks: out of range, not a number, keywords, DEFAULT. */
  CHECK(Zoltan_Set_Param(zz, "RR_OFFSET", "-1") == ZOLTAN_FATAL, "RR_OFFSET=-1 accepted");
  CHECK(Zoltan_Set_Param(zz, "RR_OFFSET", "3x") == ZOLTAN_FATAL, "RR_OFFSET=3x accepted");
  CHECK(Zoltan_Set_Param(zz, "RR_SCALE", "1") == ZOLTAN_FATAL, "RR_SCALE=1 accepted though [0,1)");
  CHECK(Zoltan_Set_Param(zz, "RR_SCALE", "nan") == ZOLTAN_FATAL, "RR_SCALE=nan accepted");
  CHECK(Zoltan_Set_Param(zz, "RR_SCALE", "auto") == ZOLTAN_OK, "RR_SCALE=auto refused");
  CHECK(Zoltan_Set_Param_Vec(zz, "RR_OFFSET", "1", 2) == ZOLTAN_FATAL,
        "vector index on a scalar accepted");
  CHECK(Zoltan_Set_Param(zz, "RR_OFFSET", "true") == ZOLTAN_OK, "RR_OFFSET=true refused");
  Zoltan_Set_Param(zz, "REMAP", "0");
  run(zz, P, 1, 1); /* "true" is 1, as in Zoltan */
  CHECK(Zoltan_Set_Param(zz, "RR_OFFSET", "DEFAULT") == ZOLTAN_OK, "DEFAULT refused");
  stay_plain = run(zz, P, 0, 1);

  /* REMAP=1 may relabel parts but never keeps fewer objects in place. */
  Zoltan_Set_Param(zz, "REMAP", "1");
  Zoltan_Set_Param(zz, "RR_OFFSET", "1");
  stay_remap = run(zz, P, 1, 0);
  {
    int stay_off1;
    Zoltan_Set_Param(zz, "REMAP", "0");
    stay_off1 = run(zz, P, 1, 1);
    CHECK(stay_remap >= stay_off1, "REMAP kept %d objects in place, without it %d", stay_remap,
          stay_off1);
    CHECK(stay_remap >= stay_plain, "REMAP kept %d objects in place, best labelling keeps %d",
          stay_remap, stay_plain);
  }

  /* Object sizes reach both functions of a method that has both, and
   * use_parallel picks the one that runs: the centralised one moves
   * objects (round robin), the distributed one keeps them all. */
  Zoltan_Set_Obj_Size_Multi_Fn(zz, size_multi, NULL);
  Zoltan_Set_Param(zz, "LB_METHOD", "SIZED");
  Zoltan_Set_Param(zz, "RR_OFFSET", "1");
  for (i = 0; i < 2; i++) {
    Zoltan_Set_Param(zz, "SZ_PARALLEL", i ? "1" : "0");
    ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                               &el, &ep, &epa);
    CHECK(ierr == ZOLTAN_OK, "SIZED (SZ_PARALLEL=%d) returned %d: sizes wrong or missing", i, ierr);
    CHECK(ierr != ZOLTAN_OK || (i ? nexp == 0 : (P == 1 || nexp > 0)),
          "SIZED with SZ_PARALLEL=%d listed %d exports: the wrong function ran", i, nexp);
    if (ierr == ZOLTAN_OK) {
      Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
      Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
    }
  }
  Zoltan_Set_Obj_Size_Multi_Fn(zz, NULL, NULL);

  /* Delegation: CHOOSER's first call runs its own function, the next two
   * are ROUNDROBIN's with RR_OFFSET=1 in its place, with the same lists. */
  Zoltan_Set_Param(zz, "LB_METHOD", "CHOOSER");
  Zoltan_Set_Param(zz, "RR_OFFSET", "0");
  Zoltan_Set_Param(zz, "REMAP", "0");
  for (i = 0; i < 3; i++) run(zz, P, 1, 1);
  CHECK(g_chooser_runs == 1 && g_chooser_delegated == 2,
        "CHOOSER ran %d times and delegated %d times (want 1 and 2)", g_chooser_runs,
        g_chooser_delegated);

  /* A distributed method that keeps everything: no changes, empty lists. */
  Zoltan_Set_Param(zz, "LB_METHOD", "KEEPPARTS");
  ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
  CHECK(ierr == ZOLTAN_OK && changes == 0 && nimp == 0 && nexp == 0,
        "KEEPPARTS: ierr %d changes %d lists %d/%d", ierr, changes, nimp, nexp);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);

  /* A base method run on other weights: every part gets its share of the
   * first half of the GIDs (with the application's weights RCB would give
   * them to the first parts only); then plain RCB again balances counts,
   * so the application's callbacks and weights are back. */
  g_total_obj = NLOC * P;
  check_halfweight(zz, P);

  /* Switching back to a native method forwards it untouched. */
  CHECK(Zoltan_Set_Param(zz, "LB_METHOD", "BLOCK") == ZOLTAN_OK, "LB_METHOD=BLOCK refused");
  ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
  CHECK(ierr == ZOLTAN_OK, "BLOCK returned %d", ierr);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);

  /* NUM_GLOBAL_PARTS still reaches Zoltan after a method tried to take it.
   * P + 3 parts differ from Zoltan's default of one part per rank at every
   * rank count (4 parts at 1 rank). */
  check_rcb_parts(zz, P, P + 3);

  Zoltan_Destroy(&zz);
  {
    int g;
    g = zpt_check_total();
    if (g_rank == 0) printf("zp_thirdparty: %s\n", g ? "FAILED" : "passed");
    MPI_Finalize();
    return g ? 1 : 0;
  }
}
