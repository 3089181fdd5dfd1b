/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guard of Zoltan_Migrate (ZOLTAN_PLUGINS_GUARD; zp_guard.c guards the
 * query callbacks of Zoltan's methods).
 *
 * Zoltan_Migrate returns as soon as a migration callback fails on a rank,
 * while the other ranks wait for that rank's data in Zoltan_Comm_Do: the job
 * hangs.  The guard changes two things.  Before any data moves, it calls the
 * pre-migration callbacks and the sizes of the exported objects itself and
 * agrees on their codes: a failure there is an error on every rank and
 * nothing has moved.  During the migration, its own callbacks stand in
 * front of the application's pack, unpack, mid- and post-migration
 * callbacks: a failure is kept and the migration goes on, so that every
 * rank finishes it; an object whose pack failed travels with a mark in
 * front of its data and is not unpacked.  At the end every rank returns the
 * worst code, and the rank that failed and rank 0 name the callback.
 *
 * Each object's data is preceded by GM_HEAD bytes (its mark); a multiple of
 * Zoltan's alignment, so the application's data keeps its alignment and its
 * pack and unpack callbacks see the sizes they would see without the guard.
 */
#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"

#define GM_HEAD 16
static const char gm_good[GM_HEAD] = "ZPGUARD:PACKED";
static const char gm_bad[GM_HEAD] = "ZPGUARD:FAILED";

/* The migration callbacks, in the order of gm_names. */
enum { M_PRE_PP, M_PRE, M_SIZE, M_PACK, M_UNPACK, M_MID_PP, M_MID, M_POST_PP, M_POST, M_KINDS };

static const char *const gm_names[M_KINDS] = {
    "ZOLTAN_PRE_MIGRATE_PP_FN", "ZOLTAN_PRE_MIGRATE_FN",     "ZOLTAN_OBJ_SIZE_FN",
    "ZOLTAN_PACK_OBJ_FN",       "ZOLTAN_UNPACK_OBJ_FN",      "ZOLTAN_MID_MIGRATE_PP_FN",
    "ZOLTAN_MID_MIGRATE_FN",    "ZOLTAN_POST_MIGRATE_PP_FN", "ZOLTAN_POST_MIGRATE_FN"};

/* The Zoltan types of each kind: the single form, and the MULTI form where
 * there is one (-1 otherwise). */
static const int gm_types[M_KINDS][2] = {
    {ZOLTAN_PRE_MIGRATE_PP_FN_TYPE, -1},
    {ZOLTAN_PRE_MIGRATE_FN_TYPE, -1},
    {ZOLTAN_OBJ_SIZE_FN_TYPE, ZOLTAN_OBJ_SIZE_MULTI_FN_TYPE},
    {ZOLTAN_PACK_OBJ_FN_TYPE, ZOLTAN_PACK_OBJ_MULTI_FN_TYPE},
    {ZOLTAN_UNPACK_OBJ_FN_TYPE, ZOLTAN_UNPACK_OBJ_MULTI_FN_TYPE},
    {ZOLTAN_MID_MIGRATE_PP_FN_TYPE, -1},
    {ZOLTAN_MID_MIGRATE_FN_TYPE, -1},
    {ZOLTAN_POST_MIGRATE_PP_FN_TYPE, -1},
    {ZOLTAN_POST_MIGRATE_FN_TYPE, -1}};

typedef struct gm {
  struct Zoltan_Struct *zz;
  ZOLTAN_VOID_FN *fn[M_KINDS][2]; /* the application's: single, MULTI */
  void *data[M_KINDS][2];
  int code;       /* the first failure here (0 = none) */
  int kind;       /* its M_* */
  int size_bad;   /* 1 when a size callback failed here: no pack is called */
  int pre_inside; /* 1 when Zoltan calls the pre-migration callbacks */
} gm;

static int gm_ok(int ierr) { return ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN; }

/* Keep the first failure of this rank. */
static void gm_fail(gm *m, int kind, int ierr)
{
  if (m->code < 0) return;
  m->code = ierr < 0 ? ierr : ZOLTAN_FATAL;
  m->kind = kind;
}

/* ---- the callbacks in front of the application's ------------------------- */

static int gmw_size(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int *ierr)
{
  gm *m = data;
  int e = ZOLTAN_OK,
      s = ((ZOLTAN_OBJ_SIZE_FN *)m->fn[M_SIZE][0])(m->data[M_SIZE][0], ngid, nlid, gid, lid, &e);
  *ierr = ZOLTAN_OK;
  if (!gm_ok(e) || s < 0) {
    gm_fail(m, M_SIZE, e);
    m->size_bad = 1;
    return GM_HEAD;
  }
  return s + GM_HEAD;
}

static void gmw_size_multi(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                           ZOLTAN_ID_PTR lids, int *sizes, int *ierr)
{
  gm *m = data;
  int e = ZOLTAN_OK, i;
  ((ZOLTAN_OBJ_SIZE_MULTI_FN *)m->fn[M_SIZE][1])(m->data[M_SIZE][1], ngid, nlid, n, gids, lids,
                                                 sizes, &e);
  *ierr = ZOLTAN_OK;
  for (i = 0; gm_ok(e) && i < n; i++)
    if (sizes[i] < 0) e = ZOLTAN_FATAL;
  if (!gm_ok(e)) {
    gm_fail(m, M_SIZE, e);
    m->size_bad = 1;
    for (i = 0; i < n; i++) sizes[i] = 0;
  }
  for (i = 0; i < n; i++) sizes[i] += GM_HEAD;
}

static void gmw_pack(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int dest,
                     int size, char *buf, int *ierr)
{
  gm *m = data;
  int e = ZOLTAN_OK;
  if (!m->size_bad)
    ((ZOLTAN_PACK_OBJ_FN *)m->fn[M_PACK][0])(m->data[M_PACK][0], ngid, nlid, gid, lid, dest,
                                             size - GM_HEAD, buf + GM_HEAD, &e);
  if (!gm_ok(e)) gm_fail(m, M_PACK, e);
  memcpy(buf, gm_ok(e) && !m->size_bad ? gm_good : gm_bad, GM_HEAD);
  *ierr = ZOLTAN_OK;
}

static void gmw_pack_multi(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                           ZOLTAN_ID_PTR lids, int *dest, int *sizes, int *idx, char *buf,
                           int *ierr)
{
  gm *m = data;
  int e = ZOLTAN_OK, i, *s2 = malloc(((size_t)n + 1) * sizeof *s2),
      *i2 = malloc(((size_t)n + 1) * sizeof *i2);
  if (s2 == NULL || i2 == NULL) e = ZOLTAN_MEMERR;
  for (i = 0; gm_ok(e) && i < n; i++) {
    s2[i] = sizes[i] - GM_HEAD;
    i2[i] = idx[i] + GM_HEAD;
  }
  if (gm_ok(e) && !m->size_bad)
    ((ZOLTAN_PACK_OBJ_MULTI_FN *)m->fn[M_PACK][1])(m->data[M_PACK][1], ngid, nlid, n, gids, lids,
                                                   dest, s2, i2, buf, &e);
  if (!gm_ok(e)) gm_fail(m, M_PACK, e);
  for (i = 0; i < n; i++)
    memcpy(buf + idx[i], gm_ok(e) && !m->size_bad ? gm_good : gm_bad, GM_HEAD);
  free(s2);
  free(i2);
  *ierr = ZOLTAN_OK;
}

/* An object whose pack failed is not unpacked; its sender keeps the
 * failure, so the receiver has none of its own to report. */
static void gmw_unpack(void *data, int ngid, ZOLTAN_ID_PTR gid, int size, char *buf, int *ierr)
{
  gm *m = data;
  int e = ZOLTAN_OK;
  *ierr = ZOLTAN_OK;
  if (size < GM_HEAD || memcmp(buf, gm_good, GM_HEAD) != 0) return;
  ((ZOLTAN_UNPACK_OBJ_FN *)m->fn[M_UNPACK][0])(m->data[M_UNPACK][0], ngid, gid, size - GM_HEAD,
                                               buf + GM_HEAD, &e);
  if (!gm_ok(e)) gm_fail(m, M_UNPACK, e);
}

static void gmw_unpack_multi(void *data, int ngid, int n, ZOLTAN_ID_PTR gids, int *sizes, int *idx,
                             char *buf, int *ierr)
{
  gm *m = data;
  int e = ZOLTAN_OK, i, k = 0, *s2 = malloc(((size_t)n + 1) * sizeof *s2),
      *i2 = malloc(((size_t)n + 1) * sizeof *i2);
  ZOLTAN_ID_PTR g2 = malloc(((size_t)n * ngid + 1) * sizeof *g2);
  *ierr = ZOLTAN_OK;
  if (s2 == NULL || i2 == NULL || g2 == NULL) e = ZOLTAN_MEMERR;
  for (i = 0; gm_ok(e) && i < n; i++) {
    if (sizes[i] < GM_HEAD || memcmp(buf + idx[i], gm_good, GM_HEAD) != 0) continue;
    memcpy(g2 + (size_t)k * ngid, gids + (size_t)i * ngid, (size_t)ngid * sizeof *g2);
    s2[k] = sizes[i] - GM_HEAD;
    i2[k++] = idx[i] + GM_HEAD;
  }
  if (gm_ok(e) && k > 0)
    ((ZOLTAN_UNPACK_OBJ_MULTI_FN *)m->fn[M_UNPACK][1])(m->data[M_UNPACK][1], ngid, k, g2, s2, i2,
                                                       buf, &e);
  if (!gm_ok(e)) gm_fail(m, M_UNPACK, e);
  free(s2);
  free(i2);
  free(g2);
}

/* Mid- and post-migration: the failure is kept, the migration goes on. */
#define GM_PP_ARGS                                                                                 \
  int ngid, int nlid, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il, int *ip, int *ipa, int nexp,   \
      ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep, int *epa
#define GM_ARGS                                                                                    \
  int ngid, int nlid, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il, int *ip, int nexp,             \
      ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep

static void gm_call_pp(gm *m, int kind, GM_PP_ARGS, int *ierr)
{
  int e = ZOLTAN_OK;
  ((ZOLTAN_PRE_MIGRATE_PP_FN *)m->fn[kind][0])(m->data[kind][0], ngid, nlid, nimp, ig, il, ip, ipa,
                                               nexp, eg, el, ep, epa, &e);
  if (!gm_ok(e)) gm_fail(m, kind, e);
  *ierr = ZOLTAN_OK;
}

static void gm_call(gm *m, int kind, GM_ARGS, int *ierr)
{
  int e = ZOLTAN_OK;
  ((ZOLTAN_PRE_MIGRATE_FN *)m->fn[kind][0])(m->data[kind][0], ngid, nlid, nimp, ig, il, ip, nexp,
                                            eg, el, ep, &e);
  if (!gm_ok(e)) gm_fail(m, kind, e);
  *ierr = ZOLTAN_OK;
}

static void gmw_pre_pp(void *d, GM_PP_ARGS, int *ierr)
{
  gm_call_pp(d, M_PRE_PP, ngid, nlid, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa, ierr);
}

static void gmw_pre(void *d, GM_ARGS, int *ierr)
{
  gm_call(d, M_PRE, ngid, nlid, nimp, ig, il, ip, nexp, eg, el, ep, ierr);
}

static void gmw_mid_pp(void *d, GM_PP_ARGS, int *ierr)
{
  gm_call_pp(d, M_MID_PP, ngid, nlid, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa, ierr);
}

static void gmw_post_pp(void *d, GM_PP_ARGS, int *ierr)
{
  gm_call_pp(d, M_POST_PP, ngid, nlid, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa, ierr);
}

static void gmw_mid(void *d, GM_ARGS, int *ierr)
{
  gm_call(d, M_MID, ngid, nlid, nimp, ig, il, ip, nexp, eg, el, ep, ierr);
}

static void gmw_post(void *d, GM_ARGS, int *ierr)
{
  gm_call(d, M_POST, ngid, nlid, nimp, ig, il, ip, nexp, eg, el, ep, ierr);
}

/* ---- the steps ----------------------------------------------------------- */

/* The guard's callback for kind in form f (0 single, 1 MULTI); NULL for
 * the pre-migration ones unless Zoltan calls them (pre_inside): the guard
 * called them before. */
static ZOLTAN_VOID_FN *gm_wrapper(int kind, int f, int pre_inside)
{
  static ZOLTAN_VOID_FN *const w[M_KINDS][2] = {
      {(ZOLTAN_VOID_FN *)gmw_pre_pp, NULL},
      {(ZOLTAN_VOID_FN *)gmw_pre, NULL},
      {(ZOLTAN_VOID_FN *)gmw_size, (ZOLTAN_VOID_FN *)gmw_size_multi},
      {(ZOLTAN_VOID_FN *)gmw_pack, (ZOLTAN_VOID_FN *)gmw_pack_multi},
      {(ZOLTAN_VOID_FN *)gmw_unpack, (ZOLTAN_VOID_FN *)gmw_unpack_multi},
      {(ZOLTAN_VOID_FN *)gmw_mid_pp, NULL},
      {(ZOLTAN_VOID_FN *)gmw_mid, NULL},
      {(ZOLTAN_VOID_FN *)gmw_post_pp, NULL},
      {(ZOLTAN_VOID_FN *)gmw_post, NULL}};
  if ((kind == M_PRE_PP || kind == M_PRE) && !pre_inside) return NULL;
  return w[kind][f];
}

/* Swap the application's callbacks and the guard's (install = 1), or put
 * the application's back (0).  Zoltan keeps one of the single and MULTI
 * forms of some, so only the registered form is set. */
static void gm_swap(gm *m, int install)
{
  int k, f;
  for (k = 0; k < M_KINDS; k++)
    for (f = 0; f < 2; f++) {
      ZOLTAN_VOID_FN *w;
      if (m->fn[k][f] == NULL) continue;
      w = gm_wrapper(k, f, m->pre_inside);
      if (install)
        Zoltan_Set_Fn(m->zz, (ZOLTAN_FN_TYPE)gm_types[k][f], w, w != NULL ? m : NULL);
      else
        Zoltan_Set_Fn(m->zz, (ZOLTAN_FN_TYPE)gm_types[k][f], m->fn[k][f], m->data[k][f]);
    }
}

/* Before any data moves: the pre-migration callbacks and the sizes of the
 * exported objects.  A local result (m->code, m->kind). */
static void gm_before(gm *m, int ngid, int nlid, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il,
                      int *ip, int *ipa, int nexp, ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep,
                      int *epa)
{
  int e = ZOLTAN_OK, i, *sizes;
  if (m->fn[M_PRE_PP][0] != NULL)
    gm_call_pp(m, M_PRE_PP, ngid, nlid, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa, &e);
  if (m->code == 0 && m->fn[M_PRE][0] != NULL)
    gm_call(m, M_PRE, ngid, nlid, nimp, ig, il, ip, nexp, eg, el, ep, &e);
  if (m->code < 0 || nexp <= 0) return;
  sizes = malloc((size_t)nexp * sizeof *sizes);
  if (sizes == NULL) {
    gm_fail(m, M_SIZE, ZOLTAN_MEMERR);
    return;
  }
  if (m->fn[M_SIZE][1] != NULL)
    ((ZOLTAN_OBJ_SIZE_MULTI_FN *)m->fn[M_SIZE][1])(m->data[M_SIZE][1], ngid, nlid, nexp, eg, el,
                                                   sizes, &e);
  for (i = 0; m->fn[M_SIZE][1] == NULL && i < nexp && gm_ok(e); i++)
    sizes[i] = ((ZOLTAN_OBJ_SIZE_FN *)m->fn[M_SIZE][0])(
        m->data[M_SIZE][0], ngid, nlid, eg + (size_t)i * ngid,
        nlid > 0 ? el + (size_t)i * nlid : NULL, &e);
  for (i = 0; gm_ok(e) && i < nexp; i++)
    if (sizes[i] < 0) e = ZOLTAN_FATAL;
  if (!gm_ok(e)) gm_fail(m, M_SIZE, e);
  free(sizes);
}

/* The worst code of any rank, on every rank; the rank that failed and rank
 * 0 say which callback failed where.  Collective. */
static int gm_agree(const zp_record *r, const gm *m, int zoltan_code, const char *when)
{
  struct {
    int code, rank;
  } in, out;
  /* kind -1: Zoltan_Migrate failed by itself, and said so. */
  int kind = m->code < 0 ? m->kind : -1;
  in.code = m->code < 0 ? m->code : zoltan_code < 0 ? zoltan_code : 0;
  in.rank = r->rank;
  MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, r->comm);
  if (out.code >= 0) return zoltan_code;
  MPI_Bcast(&kind, 1, MPI_INT, out.rank, r->comm);
  if (kind >= 0 && (r->rank == out.rank || r->rank == 0))
    zp_error("Zoltan_Migrate", "%s on rank %d returned error code %d %s (ZOLTAN_PLUGINS_GUARD)",
             gm_names[kind], out.rank, out.code, when);
  return out.code;
}

int zp_guard_migrate(zp_record *r, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il, int *ip, int *ipa,
                     int nexp, ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep, int *epa)
{
  gm m;
  int ngid = zp_record_native_int(r, "NUM_GID_ENTRIES", 1),
      nlid = zp_record_native_int(r, "NUM_LID_ENTRIES", 1), k, f, ierr;
  memset(&m, 0, sizeof m);
  m.zz = r->zz;
  for (k = 0; k < M_KINDS; k++)
    for (f = 0; f < 2; f++)
      if (gm_types[k][f] >= 0)
        Zoltan_Get_Fn(r->zz, (ZOLTAN_FN_TYPE)gm_types[k][f], &m.fn[k][f], &m.data[k][f]);
  /* Zoltan refuses a migration without these callbacks, on every rank
   * that lacks them: left to its own message. */
  if ((m.fn[M_SIZE][0] == NULL && m.fn[M_SIZE][1] == NULL) ||
      (m.fn[M_PACK][0] == NULL && m.fn[M_PACK][1] == NULL) ||
      (m.fn[M_UNPACK][0] == NULL && m.fn[M_UNPACK][1] == NULL))
    return zp_real_migrate(r->zz, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa);
  /* The lists Zoltan would invert itself are not known here: the
   * pre-migration callbacks then run inside Zoltan, guarded as the
   * mid-migration ones. */
  if (nimp >= 0 && nexp >= 0)
    gm_before(&m, ngid, nlid, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa);
  ierr = gm_agree(r, &m, ZOLTAN_OK, "before any object moved; nothing moved");
  if (ierr < 0) return ierr;
  m.pre_inside = nimp < 0 || nexp < 0;
  gm_swap(&m, 1);
  ierr = zp_real_migrate(r->zz, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa);
  gm_swap(&m, 0);
  return gm_agree(r, &m, ierr,
                  "during the migration; every rank finished it, objects whose pack failed were "
                  "not unpacked");
}
