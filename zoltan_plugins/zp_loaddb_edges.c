/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Measured communication as edge weights (EDGE_WEIGHT_SOURCE), the edge
 * side of the load database (zp_loaddb.c is the object side).
 *
 * The application reports, per step, what its objects exchanged
 * (adaptive_report_comm: pairs from -> to with a volume; from is an object
 * of the reporting rank).  At a balance, once the graph is gathered, each
 * local edge (a, b) gets the mean over the OBJ_WEIGHT_WINDOW newest steps
 * of what this rank reported for a -> b; then the owners of the two ends
 * exchange their halves (through the ranks the edge callbacks name), so
 * that both entries of edge {a, b} weigh a -> b plus b -> a, and the graph
 * stays symmetric.  Edges without any report get the mean (MEASURED) or
 * their callback weight in measured units (BOTH), as objects do
 * (loaddb_weights).  Our methods read the weights from the context; Zoltan's
 * own read them through the layer's edge callbacks, put in front of the
 * application's for the call, as zp_loaddb.c does for objects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loaddb_core.h"
#include "zp_history.h"
#include "zp_partition_internal.h"

/* The callbacks the layer puts in front of the application's edge lists. */
struct zp_edge_wrap {
  zp_record *r;              /* the struct's record */
  ZOLTAN_VOID_FN *multi_fn;  /* the application's ZOLTAN_EDGE_LIST_MULTI_FN, or NULL */
  void *multi_data;          /* its data */
  ZOLTAN_VOID_FN *single_fn; /* the application's ZOLTAN_EDGE_LIST_FN (without multi) */
  void *single_data;         /* its data */
  int ngid;                  /* entries per global ID */
  size_t m;                  /* local edges */
  ZOLTAN_ID_TYPE *keys;      /* m (object, neighbour) keys of 2 * ngid entries, sorted */
  double *w;                 /* the weight of each key */
  ZOLTAN_ID_TYPE *key;       /* scratch: one key */
  int dim_raised;            /* 1 when EDGE_WEIGHT_DIM was raised from 0 to 1 */
};

int zp_edge_mode(const zp_record *r)
{
  const char *v = NULL;
  int i;
  if (r == NULL || zp_param_string(r->params, "EDGE_WEIGHT_SOURCE", &v) != ZOLTAN_OK || v == NULL)
    return LOADDB_CALLBACK;
  for (i = 0; zp_loaddb_sources[i] != NULL; i++)
    if (strcmp(zp_loaddb_sources[i], v) == 0) return i;
  return LOADDB_CALLBACK;
}

/* The key (a, b) into x->key. */
static const ZOLTAN_ID_TYPE *edw_key(const struct zp_edge_wrap *x, const ZOLTAN_ID_TYPE *a,
                                     const ZOLTAN_ID_TYPE *b)
{
  memcpy(x->key, a, (size_t)x->ngid * sizeof *a);
  memcpy(x->key + x->ngid, b, (size_t)x->ngid * sizeof *b);
  return x->key;
}

/* The measured weights of ne edges of object src into ew (wdim per edge). */
static void edw_overwrite(const struct zp_edge_wrap *x, int ngid, const ZOLTAN_ID_TYPE *src,
                          const ZOLTAN_ID_TYPE *nbrs, int ne, int wdim, float *ew)
{
  int q;
  if (ngid != x->ngid || wdim < 1 || ew == NULL) return;
  for (q = 0; q < ne; q++) {
    long k = zp_find_gid(x->keys, x->m, edw_key(x, src, nbrs + (size_t)q * (size_t)ngid), 2 * ngid);
    if (k >= 0) ew[(size_t)q * (size_t)wdim] = (float)x->w[k];
  }
}

static int edw_ok(int ierr) { return ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN; }

static void edw_multi(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                      int *ne, ZOLTAN_ID_PTR nbr, int *procs, int wdim, float *ew, int *ierr)
{
  const struct zp_edge_wrap *x = data;
  size_t off = 0;
  int i;
  ((ZOLTAN_EDGE_LIST_MULTI_FN *)x->multi_fn)(x->multi_data, ngid, nlid, n, gids, lids, ne, nbr,
                                             procs, wdim, ew, ierr);
  for (i = 0; edw_ok(*ierr) && i < n; i++) {
    edw_overwrite(x, ngid, gids + (size_t)i * (size_t)ngid, nbr + off * (size_t)ngid, ne[i], wdim,
                  ew != NULL ? ew + off * (size_t)(wdim > 0 ? wdim : 0) : NULL);
    off += (size_t)ne[i];
  }
}

/* Compares the object half of a key with gid. */
static int edw_cmp_object(const ZOLTAN_ID_TYPE *key, const ZOLTAN_ID_TYPE *gid, int ngid)
{
  int k;
  for (k = 0; k < ngid; k++)
    if (key[k] != gid[k]) return key[k] < gid[k] ? -1 : 1;
  return 0;
}

/* The number of keys whose object is gid (they are consecutive). */
static int edw_count(const struct zp_edge_wrap *x, const ZOLTAN_ID_TYPE *gid)
{
  size_t lo = 0, hi = x->m, first;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (edw_cmp_object(x->keys + mid * 2 * (size_t)x->ngid, gid, x->ngid) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  first = lo;
  while (lo < x->m && edw_cmp_object(x->keys + lo * 2 * (size_t)x->ngid, gid, x->ngid) == 0) lo++;
  return (int)(lo - first);
}

static void edw_single(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                       ZOLTAN_ID_PTR nbr, int *procs, int wdim, float *ew, int *ierr)
{
  const struct zp_edge_wrap *x = data;
  ((ZOLTAN_EDGE_LIST_FN *)x->single_fn)(x->single_data, ngid, nlid, gid, lid, nbr, procs, wdim, ew,
                                        ierr);
  if (edw_ok(*ierr) && ngid == x->ngid)
    edw_overwrite(x, ngid, gid, nbr, edw_count(x, gid), wdim, ew);
}

static void edw_free(struct zp_edge_wrap *x)
{
  if (x == NULL) return;
  free(x->keys);
  free(x->w);
  free(x->key);
  free(x);
}

void zp_loaddb_edges_release(zp_context *c)
{
  struct zp_edge_wrap *x = c->edw;
  struct Zoltan_Struct *zz;
  if (x == NULL) return;
  zz = x->r->zz;
  if (x->multi_fn != NULL)
    Zoltan_Set_Fn(zz, ZOLTAN_EDGE_LIST_MULTI_FN_TYPE, x->multi_fn, x->multi_data);
  else if (x->single_fn != NULL)
    Zoltan_Set_Fn(zz, ZOLTAN_EDGE_LIST_FN_TYPE, x->single_fn, x->single_data);
  if (x->dim_raised) zp_real_set_param_vec(zz, "EDGE_WEIGHT_DIM", "0", -1);
  edw_free(x);
  c->edw = NULL;
}

/* ---- measuring ---------------------------------------------------------- */

/* The local edges as sorted keys: x->keys, and pos[k] = the edge index of
 * sorted key k.  Local. */
static int edw_table(const zp_context *c, struct zp_edge_wrap *x, size_t **pos)
{
  size_t m = x->m, g = (size_t)c->ngid, e = 0, k, *tmp;
  ZOLTAN_ID_TYPE *raw = malloc((2 * m * g + 1) * sizeof *raw);
  int i, q;
  *pos = malloc((m + 1) * sizeof **pos);
  tmp = malloc((m + 1) * sizeof *tmp);
  x->keys = malloc((2 * m * g + 1) * sizeof *x->keys);
  x->key = malloc(2 * g * sizeof *x->key);
  x->w = malloc((m + 1) * sizeof *x->w);
  if (raw == NULL || *pos == NULL || tmp == NULL || x->keys == NULL || x->key == NULL ||
      x->w == NULL) {
    free(raw);
    free(tmp);
    return ZOLTAN_MEMERR;
  }
  for (i = 0; i < c->n; i++)
    for (q = 0; q < c->nedges[i]; q++, e++) {
      memcpy(raw + 2 * e * g, c->gids + (size_t)i * g, g * sizeof *raw);
      memcpy(raw + (2 * e + 1) * g, c->nbr + e * g, g * sizeof *raw);
    }
  for (k = 0; k < m; k++) (*pos)[k] = k;
  zp_sort_by_gid(*pos, tmp, m, raw, 2 * c->ngid);
  for (k = 0; k < m; k++) memcpy(x->keys + 2 * k * g, raw + 2 * (*pos)[k] * g, 2 * g * sizeof *raw);
  free(raw);
  free(tmp);
  return ZOLTAN_OK;
}

/* This rank's half: the mean over the window of what it reported for each
 * local edge (own[e]), whether anything was (flag[e]), and the number of
 * reported pairs that are no local edge (*unmatched).  Local. */
static int edw_own(const zp_context *c, const struct zp_edge_wrap *x, const size_t *pos,
                   double *own, unsigned *flag, long *unmatched)
{
  int window = 3, i, snaps = 0;
  size_t back, e;
  zp_param_int(c->r->params, "OBJ_WEIGHT_WINDOW", &window, NULL);
  for (back = 0; back < (size_t)window; back++) {
    zp_comm_volumes s;
    if (zp_history_comm_volumes(c->r->zz, back, &s) != ZOLTAN_OK) continue;
    if (s.num_gid_entries != c->ngid) {
      zp_error(c->yo,
               "EDGE_WEIGHT_SOURCE: the communication reported for step %ld has IDs of %d "
               "entries; NUM_GID_ENTRIES is %d",
               s.step, s.num_gid_entries, c->ngid);
      return ZOLTAN_FATAL;
    }
    snaps++;
    for (i = 0; i < s.num_pairs; i++) {
      const ZOLTAN_ID_TYPE *p = s.pairs + 2 * (size_t)i * (size_t)c->ngid;
      long k = zp_find_gid(x->keys, x->m, p, 2 * c->ngid);
      if (k < 0) {
        (*unmatched)++;
        continue;
      }
      own[pos[k]] += s.volumes[i];
      flag[pos[k]] = 1;
    }
  }
  for (e = 0; snaps > 0 && e < x->m; e++) own[e] /= snaps;
  return ZOLTAN_OK;
}

/* Adds the other end's half to each edge: the owner of b sends what it has
 * for b -> a to the owner of a.  sum[e] = own[e] + the other half.
 * Collective. */
static int edw_exchange(zp_context *c, struct zp_edge_wrap *x, const size_t *pos, const double *own,
                        unsigned *flag, double *sum)
{
  int P = c->r->size, me = c->r->rank, p, ierr = ZOLTAN_OK;
  size_t g = (size_t)c->ngid, e, k, nsend = 0, nrecv = 0;
  int *cnt = calloc(4 * (size_t)P + 2, sizeof *cnt), *sdis, *rcnt, *rdis;
  ZOLTAN_ID_TYPE *sid = NULL, *rid = NULL;
  double *sval = NULL, *rval = NULL;
  size_t *fill = NULL;
  long *inv = malloc((x->m + 1) * sizeof *inv);
  if (cnt == NULL || inv == NULL) ierr = ZOLTAN_MEMERR;
  ierr = zp_agree(c, ierr);
  if (ierr < 0) goto End;
  sdis = cnt + P;
  rcnt = cnt + 2 * P;
  rdis = cnt + 3 * P;
  for (k = 0; k < x->m; k++) inv[pos[k]] = (long)k;
  for (e = 0; e < x->m; e++) sum[e] = own[e];
  for (e = 0; e < x->m; e++) {
    p = c->nbr_procs[e];
    if (p >= 0 && p < P && p != me) cnt[p]++;
  }
  MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, c->r->comm);
  for (p = 0; p < P; p++) {
    sdis[p] = (int)nsend;
    rdis[p] = (int)nrecv;
    nsend += (size_t)cnt[p];
    nrecv += (size_t)rcnt[p];
  }
  sid = malloc((2 * nsend * g + 1) * sizeof *sid);
  rid = malloc((2 * nrecv * g + 1) * sizeof *rid);
  sval = malloc((2 * nsend + 1) * sizeof *sval);
  rval = malloc((2 * nrecv + 1) * sizeof *rval);
  fill = calloc((size_t)P + 1, sizeof *fill);
  ierr = zp_agree(c, sid && rid && sval && rval && fill ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr < 0) goto End;
  /* Records (b, a, half, flag) for the entry (b, a) at b's owner; a local
   * b gets its share directly. */
  for (e = 0, k = 0; e < x->m; e++) {
    const ZOLTAN_ID_TYPE *a = x->keys + 2 * (size_t)inv[e] * g, *b = a + g;
    p = c->nbr_procs[e];
    if (p == me) {
      long j = zp_find_gid(x->keys, x->m, edw_key(x, b, a), 2 * c->ngid);
      if (j >= 0) {
        sum[pos[j]] += own[e];
        flag[pos[j]] |= (flag[e] & 1u) << 1;
      }
    } else if (p >= 0 && p < P) {
      size_t at = (size_t)sdis[p] + fill[p]++;
      memcpy(sid + 2 * at * g, b, g * sizeof *sid);
      memcpy(sid + (2 * at + 1) * g, a, g * sizeof *sid);
      sval[2 * at] = own[e];
      sval[2 * at + 1] = (double)(flag[e] & 1u);
      k++;
    }
  }
  /* The ID and value counts per rank, then the two exchanges. */
  for (p = 0; p < P; p++) {
    cnt[p] *= 2;
    sdis[p] *= 2;
    rcnt[p] *= 2;
    rdis[p] *= 2;
  }
  MPI_Alltoallv(sval, cnt, sdis, MPI_DOUBLE, rval, rcnt, rdis, MPI_DOUBLE, c->r->comm);
  for (p = 0; p < P; p++) {
    cnt[p] *= (int)g;
    sdis[p] *= (int)g;
    rcnt[p] *= (int)g;
    rdis[p] *= (int)g;
  }
  MPI_Alltoallv(sid, cnt, sdis, ZOLTAN_ID_MPI_TYPE, rid, rcnt, rdis, ZOLTAN_ID_MPI_TYPE,
                c->r->comm);
  for (k = 0; k < nrecv; k++) {
    long j = zp_find_gid(x->keys, x->m, rid + 2 * k * g, 2 * c->ngid);
    if (j < 0) continue; /* the other end lists no edge back: asymmetric graph */
    sum[pos[j]] += rval[2 * k];
    if (rval[2 * k + 1] > 0.0) flag[pos[j]] |= 2u;
  }
End:
  free(cnt);
  free(inv);
  free(sid);
  free(rid);
  free(sval);
  free(rval);
  free(fill);
  return ierr;
}

/* Put the wrapper in front of the application's edge callbacks.  Local. */
static void edw_install(zp_context *c, struct zp_edge_wrap *x)
{
  struct Zoltan_Struct *zz = c->r->zz;
  Zoltan_Get_Fn(zz, ZOLTAN_EDGE_LIST_MULTI_FN_TYPE, &x->multi_fn, &x->multi_data);
  if (x->multi_fn == NULL)
    Zoltan_Get_Fn(zz, ZOLTAN_EDGE_LIST_FN_TYPE, &x->single_fn, &x->single_data);
  if (x->multi_fn != NULL)
    Zoltan_Set_Fn(zz, ZOLTAN_EDGE_LIST_MULTI_FN_TYPE, (ZOLTAN_VOID_FN *)edw_multi, x);
  else if (x->single_fn != NULL)
    Zoltan_Set_Fn(zz, ZOLTAN_EDGE_LIST_FN_TYPE, (ZOLTAN_VOID_FN *)edw_single, x);
  /* Zoltan reads no edge weights with EDGE_WEIGHT_DIM 0. */
  if (zp_record_native_int(c->r, "EDGE_WEIGHT_DIM", 0) == 0) {
    zp_real_set_param_vec(zz, "EDGE_WEIGHT_DIM", "1", -1);
    x->dim_raised = 1;
  }
  c->edw = x;
}

/* The measured weights into c->ewgts (first weight of each edge), with the
 * totals of every rank and the messages.  Collective. */
static int edw_weights(zp_context *c, int mode, const double *sum, const unsigned *flag,
                       long unmatched)
{
  size_t m = 0, e, stride;
  double extra = 0.0;
  loaddb_totals lt, gt;
  unsigned *cnt;
  int i, ierr;
  for (i = 0; i < c->n; i++) m += (size_t)c->nedges[i];
  cnt = malloc((m + 1) * sizeof *cnt);
  ierr = zp_agree(c, cnt != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr < 0) return ierr;
  /* Unweighted edges weigh 1 for Zoltan; from here on they have a weight. */
  if (c->edge_wgt_dim == 0) {
    for (e = 0; e < m; e++) c->ewgts[e] = 1.0;
    c->edge_wgt_dim = 1;
  }
  stride = (size_t)c->edge_wgt_dim;
  for (e = 0; e < m; e++) cnt[e] = flag[e] != 0;
  loaddb_local_totals(m, sum, cnt, c->ewgts, stride, &lt);
  zp_loaddb_sum_totals(c, &lt, (double)unmatched, &gt, &extra);
  loaddb_weights(mode, m, sum, cnt, c->ewgts, stride, &gt);
  if (c->r->rank == c->debug_proc && gt.count == 0.0)
    zp_warn(c->yo,
            "EDGE_WEIGHT_SOURCE = %s, but no communication between neighbours was reported since "
            "the last balance (adaptive_report_comm); the callback edge weights are used",
            zp_loaddb_sources[mode]);
  if (c->r->rank == c->debug_proc && c->debug_level >= 1) {
    if (extra > 0.0)
      zp_warn(c->yo,
              "EDGE_WEIGHT_SOURCE: %.0f reported pairs are no edge of the graph (or name a 'from' "
              "object of another rank); they are not counted",
              extra);
    printf("ZOLTAN zoltan_plugins: EDGE_WEIGHT_SOURCE = %s, %.0f of %.0f edge entries measured\n",
           zp_loaddb_sources[mode], gt.count, gt.count + gt.unmeasured);
  }
  free(cnt);
  return ZOLTAN_OK;
}

int zp_loaddb_edges_apply(zp_context *c)
{
  int mode = zp_edge_mode(c->r), ierr;
  struct zp_edge_wrap *x;
  size_t m = 0, *pos = NULL;
  double *own = NULL, *sum = NULL;
  unsigned *flag = NULL;
  long unmatched = 0;
  int i;
  if (mode == LOADDB_CALLBACK || !c->has_graph || c->edw != NULL) return ZOLTAN_OK;
  for (i = 0; i < c->n; i++) m += (size_t)c->nedges[i];
  x = calloc(1, sizeof *x);
  own = calloc(m + 1, sizeof *own);
  sum = calloc(m + 1, sizeof *sum);
  flag = calloc(m + 1, sizeof *flag);
  ierr = x && own && sum && flag ? ZOLTAN_OK : ZOLTAN_MEMERR;
  if (ierr >= 0) {
    x->r = c->r;
    x->ngid = c->ngid;
    x->m = m;
    ierr = edw_table(c, x, &pos);
  }
  if (ierr >= 0) ierr = edw_own(c, x, pos, own, flag, &unmatched);
  ierr = zp_agree(c, ierr);
  if (ierr >= 0) ierr = edw_exchange(c, x, pos, own, flag, sum);
  if (ierr >= 0) ierr = edw_weights(c, mode, sum, flag, unmatched);
  if (ierr >= 0) {
    size_t k;
    for (k = 0; k < m; k++) x->w[k] = c->ewgts[pos[k] * (size_t)c->edge_wgt_dim];
    edw_install(c, x);
    x = NULL;
  }
  edw_free(x);
  free(pos);
  free(own);
  free(sum);
  free(flag);
  return ierr;
}
