/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What Zoltan_LB_Partition does around a method, for our methods: read the
 * settings recorded from Zoltan_Set_Param, distribute parts to processes as
 * Zoltan does, gather the application's objects through its callbacks,
 * check them, run the method, and answer with Zoltan's own lists (and
 * Zoltan_Migrate when AUTO_MIGRATE is set).
 *
 * Errors are collective: a rank that finds bad input prints why, and every
 * rank returns an error code after the next agreement step, so that no rank
 * waits in a collective that the others skipped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_context.h"
#include "zp_internal.h"

/* Zoltan's hash of a global ID onto [0, n), exported by libzoltan but not
 * declared in its public headers.  Using it keeps our part-to-process map
 * identical to Zoltan_LB_Part_To_Proc when a part spans several ranks. */
extern unsigned int Zoltan_Hash(ZOLTAN_ID_PTR key, int num_id_entries, unsigned int n);

/* RETURN_LISTS values, as Zoltan numbers them. */
enum {
  ZP_RL_NONE = 0,
  ZP_RL_IMPORT = 1,
  ZP_RL_EXPORT = 2,
  ZP_RL_ALL = 3,
  ZP_RL_PARTS = 4,
  ZP_RL_CANDIDATES = 5
};

/* Zoltan's debug levels that the layer honours. */
#define ZP_DEBUG_PARAMS 1
#define ZP_DEBUG_ZTIME 2
#define ZP_DEBUG_LIST 8

/* Messages about bad objects are capped per rank so that a wholly bad input
 * does not flood the terminal. */
#define ZP_MAX_OBJ_MESSAGES 5

struct zp_context {
  zp_record *r;          /* the struct's record */
  const char *yo;        /* name used in messages */
  int is_balance;        /* 1 for Zoltan_LB_Balance */
  /* settings */
  int ngid, nlid;        /* entries per global / local ID (max over ranks) */
  int return_lists;      /* ZP_RL_* */
  int obj_wgt_dim;       /* OBJ_WEIGHT_DIM */
  int wdim;              /* max(1, obj_wgt_dim) */
  int edge_wgt_dim;      /* EDGE_WEIGHT_DIM */
  int auto_migrate;      /* AUTO_MIGRATE */
  int debug_level, debug_proc;
  int remap;             /* REMAP */
  unsigned needs;        /* the method's input flags for this call */
  /* parts */
  int nparts;            /* number of global parts */
  int *pdist;            /* nparts + 1 entries: first rank of each part;
                            NULL when part p is simply on rank p */
  int single_proc;       /* 1 when every part lives on one rank */
  double *part_sizes;    /* nparts * wdim, columns sum to 1 */
  int sizes_set;         /* 1 when some rank set part sizes */
  double *tol;           /* wdim imbalance tolerances */
  /* local objects */
  int n;                 /* number of local objects */
  ZOLTAN_ID_TYPE *gids;  /* n * ngid */
  ZOLTAN_ID_TYPE *lids;  /* n * nlid (NULL when nlid == 0) */
  double *w;             /* n * wdim weights */
  int *parts;            /* current part of each object, as methods see it
                            (-1 or a part of its rank when out of range) */
  int *in_parts;         /* current part as the application reported it;
                            an object is listed when its new part differs */
  int gdim;              /* coordinates per object, 0 = none */
  double *coords;        /* n * gdim */
  int *nedges;           /* edges per object (NULL = no graph) */
  ZOLTAN_ID_TYPE *nbr;   /* neighbour GIDs, sum(nedges) * ngid */
  double *ewgts;         /* sum(nedges) * edge_wgt_dim */
  int has_graph;         /* 1 when the graph was gathered */
};

/* ---- small utilities ---------------------------------------------------- */

static void *zp_zmalloc(size_t bytes)
{
  /* Arrays handed to the application are freed by Zoltan_LB_Free_Part, so
   * they must come from Zoltan's allocator (its memory debugging knows them). */
  return Zoltan_Malloc(bytes ? bytes : 1, (char *)__FILE__, __LINE__);
}

static void zp_zfree(void *pp)
{
  Zoltan_Free((void **)pp, (char *)__FILE__, __LINE__);
}

/* Combine local return codes: any error wins (the most severe), otherwise a
 * warning anywhere stays a warning only where it happened. */
static int zp_agree(MPI_Comm comm, int local)
{
  int worst = local < 0 ? local : 0, g = 0;
  MPI_Allreduce(&worst, &g, 1, MPI_INT, MPI_MIN, comm);
  if (g < 0) return local < 0 ? local : g;
  return local;
}

static void zp_format_gid(const ZOLTAN_ID_TYPE *g, int ngid, char *buf, size_t cap)
{
  size_t used = 0;
  int k;
  buf[0] = '\0';
  for (k = 0; k < ngid && used + 24 < cap; k++)
    used += (size_t)snprintf(buf + used, cap - used, k ? ".%lu" : "%lu", (unsigned long)g[k]);
}

static int zp_return_lists_value(const char *v)
{
  if (v == NULL) return ZP_RL_ALL;
  if (strcmp(v, "NONE") == 0) return ZP_RL_NONE;
  if (strcmp(v, "IMPORT") == 0) return ZP_RL_IMPORT;
  if (strcmp(v, "EXPORT") == 0) return ZP_RL_EXPORT;
  if (strcmp(v, "ALL") == 0 || strcmp(v, "IMPORT AND EXPORT") == 0) return ZP_RL_ALL;
  if (strcmp(v, "PARTS") == 0 || strcmp(v, "PART ASSIGNMENTS") == 0 ||
      strcmp(v, "PARTITION ASSIGNMENTS") == 0)
    return ZP_RL_PARTS;
  if (strcmp(v, "CANDIDATE_LISTS") == 0) return ZP_RL_CANDIDATES;
  return ZP_RL_ALL;
}

/* ---- settings and the part distribution -------------------------------- */

static int zp_read_settings(zp_context *c)
{
  zp_record *r = c->r;
  int loc[3], glob[3], d;
  c->ngid = zp_record_native_int(r, "NUM_GID_ENTRIES", 1);
  c->nlid = zp_record_native_int(r, "NUM_LID_ENTRIES", 1);
  c->return_lists = zp_return_lists_value(zp_record_native_get(r, "RETURN_LISTS", -1));
  /* Like Zoltan, take the largest value over ranks so that all agree. */
  loc[0] = c->ngid;
  loc[1] = c->nlid;
  loc[2] = c->return_lists;
  MPI_Allreduce(loc, glob, 3, MPI_INT, MPI_MAX, r->comm);
  c->ngid = glob[0];
  c->nlid = glob[1];
  c->return_lists = glob[2];
  c->obj_wgt_dim = zp_record_native_int(r, "OBJ_WEIGHT_DIM", 0);
  c->wdim = c->obj_wgt_dim > 0 ? c->obj_wgt_dim : 1;
  c->edge_wgt_dim = zp_record_native_int(r, "EDGE_WEIGHT_DIM", 0);
  c->auto_migrate = zp_record_native_int(r, "AUTO_MIGRATE", 0);
  c->debug_level = zp_record_native_int(r, "DEBUG_LEVEL", 1);
  c->debug_proc = zp_record_native_int(r, "DEBUG_PROCESSOR", 0);
  c->remap = zp_record_native_int(r, "REMAP", 1);
  c->tol = malloc((size_t)c->wdim * sizeof *c->tol);
  if (c->tol == NULL) return ZOLTAN_MEMERR;
  for (d = 0; d < c->wdim; d++) c->tol[d] = zp_record_native_double(r, "IMBALANCE_TOL", d, 1.1);
  if (c->return_lists == ZP_RL_CANDIDATES) {
    zp_error(c->yo, "RETURN_LISTS = CANDIDATE_LISTS is for matching methods; LB_METHOD %s does not "
                    "produce candidates", r->method->name);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* Distribute parts to ranks exactly as Zoltan does from NUM_GLOBAL_PARTS and
 * NUM_LOCAL_PARTS, so that a part's rank is the one Zoltan would choose. */
static int zp_build_part_dist(zp_context *c)
{
  zp_record *r = c->r;
  int P = r->size, ngp = zp_record_native_int(r, "NUM_GLOBAL_PARTS", -1);
  int nlp = zp_record_native_int(r, "NUM_LOCAL_PARTS", -1);
  int in[4], sum[4], mx = 0, G, gset, lset, suml, i, j, cnt;
  int *nlps = NULL, ierr = ZOLTAN_OK;

  in[0] = ngp != -1;
  in[1] = nlp != -1;
  in[2] = nlp == -1 ? 0 : nlp;
  in[3] = 0;
  MPI_Allreduce(in, sum, 4, MPI_INT, MPI_SUM, r->comm);
  MPI_Allreduce(&ngp, &mx, 1, MPI_INT, MPI_MAX, r->comm);
  gset = sum[0];
  lset = sum[1];
  suml = sum[2];
  G = mx;
  c->pdist = NULL;
  c->single_proc = 1;
  if ((!gset || G == P) && !lset) {
    c->nparts = P;
    return ZOLTAN_OK;
  }
  if (c->is_balance) {
    zp_error(c->yo, "Non-uniform distribution of parts over processors is specified "
                    "(NUM_GLOBAL_PARTS=%d, NUM_LOCAL_PARTS=%d); use Zoltan_LB_Partition.", G, nlp);
    return ZOLTAN_FATAL;
  }
  if (lset) {
    if (!gset) {
      G = suml;
    } else if (suml > G) {
      zp_error(c->yo, "Sum of NUM_LOCAL_PARTS %d > NUM_GLOBAL_PARTS %d", suml, G);
      return ZOLTAN_FATAL;
    } else if (suml < G && lset == P) {
      zp_error(c->yo, "Sum of NUM_LOCAL_PARTS %d < NUM_GLOBAL_PARTS %d", suml, G);
      return ZOLTAN_FATAL;
    }
  }
  if (G <= 0) {
    zp_error(c->yo, "Zero parts requested (NUM_GLOBAL_PARTS = %d)", G);
    return ZOLTAN_FATAL;
  }
  c->pdist = malloc(((size_t)G + 1) * sizeof *c->pdist);
  if (c->pdist == NULL) return ZOLTAN_MEMERR;
  if (!lset) {
    if (G > P) {
      int frac = G / P, mod = G % P;
      for (cnt = 0, i = 0; i < P; i++) {
        int k = frac + ((P - i) <= mod);
        for (j = 0; j < k; j++) c->pdist[cnt++] = i;
      }
    } else {
      int frac = P / G, mod = P % G;
      c->single_proc = 0;
      c->pdist[0] = 0;
      for (i = 1; i < G; i++) c->pdist[i] = c->pdist[i - 1] + frac + ((G - i) <= mod);
    }
  } else {
    int remaining = P - lset, avail = G - suml, frac = 0, mod = 0, pcnt = 0;
    nlps = malloc((size_t)P * sizeof *nlps);
    if (nlps == NULL) {
      ierr = ZOLTAN_MEMERR;
      goto end;
    }
    MPI_Allgather(&nlp, 1, MPI_INT, nlps, 1, MPI_INT, r->comm);
    if (remaining > 0) {
      frac = avail / remaining;
      mod = avail % remaining;
    }
    for (cnt = 0, i = 0; i < P; i++) {
      int k;
      if (nlps[i] != -1) {
        k = nlps[i];
      } else {
        k = frac + ((remaining - pcnt) <= mod);
        pcnt++;
      }
      for (j = 0; j < k && cnt < G; j++) c->pdist[cnt++] = i;
    }
  }
  c->pdist[G] = P;
  c->nparts = G;
end:
  free(nlps);
  return ierr;
}

/* First part of a rank (for part sizes given with local numbers), -1 if
 * the rank holds none. */
static int zp_first_part_of(const zp_context *c, int rank)
{
  int p;
  if (c->pdist == NULL) return rank;
  for (p = 0; p < c->nparts; p++) {
    if (c->single_proc ? c->pdist[p] == rank : (c->pdist[p] <= rank && rank < c->pdist[p + 1]))
      return p;
  }
  return -1;
}

static int zp_part_to_proc(const zp_context *c, int part, ZOLTAN_ID_TYPE *gid)
{
  int lo, hi;
  if (c->pdist == NULL) return part;
  lo = c->pdist[part];
  hi = c->pdist[part + 1];
  if (c->single_proc || hi - lo <= 1) return lo;
  /* A part spread over several ranks: an object already on one of them
   * stays, others are hashed over them, as Zoltan_LB_Part_To_Proc does. */
  if (c->r->rank >= lo && c->r->rank < hi) return c->r->rank;
  return lo + (int)Zoltan_Hash(gid, c->ngid, (unsigned)(hi - lo));
}

/* Part sizes as Zoltan_LB_Get_Part_Sizes computes them: sizes set on any
 * rank win (largest if several), unset ones are 1, each column sums to 1.
 * Negative or NaN sizes are errors here, where Zoltan silently used 1. */
static int zp_build_part_sizes(zp_context *c)
{
  zp_record *r = c->r;
  size_t n = (size_t)c->nparts * (size_t)c->wdim, i;
  double *tmp = NULL;
  int ierr = ZOLTAN_OK, fpart = zp_first_part_of(c, r->rank), d, any = 0;

  c->part_sizes = malloc(n * sizeof *c->part_sizes);
  tmp = malloc(n * sizeof *tmp);
  if (c->part_sizes == NULL || tmp == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto end;
  }
  for (i = 0; i < n; i++) tmp[i] = -1.0;
  for (i = 0; i < r->n_psizes; i++) {
    const zp_part_size_entry *e = &r->psizes[i];
    int part = e->part_id + (e->global_num ? 0 : fpart);
    if (e->wgt_idx < 0 || e->wgt_idx >= c->wdim) continue; /* Zoltan ignores them too */
    if (!(e->size >= 0.0)) {
      zp_error(c->yo, "part size %g for part %d (weight %d) is negative or NaN", e->size, e->part_id,
               e->wgt_idx);
      ierr = ZOLTAN_FATAL;
      continue;
    }
    if (part < 0 || part >= c->nparts || (!e->global_num && fpart < 0)) {
      zp_warn(c->yo, "part size given for part %d, but there are %d parts; ignored", part, c->nparts);
      if (ierr == ZOLTAN_OK) ierr = ZOLTAN_WARN;
      continue;
    }
    tmp[(size_t)part * (size_t)c->wdim + (size_t)e->wgt_idx] = e->size;
  }
  any = r->n_psizes > 0;
  if (zp_agree(r->comm, ierr) < 0) {
    ierr = ierr < 0 ? ierr : ZOLTAN_FATAL;
    goto end;
  }
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, r->comm);
  c->sizes_set = any;
  if (!any) {
    for (i = 0; i < n; i++) c->part_sizes[i] = 1.0 / c->nparts;
    goto end;
  }
  MPI_Allreduce(tmp, c->part_sizes, (int)n, MPI_DOUBLE, MPI_MAX, r->comm);
  for (d = 0; d < c->wdim; d++) {
    double s = 0.0;
    int p;
    for (p = 0; p < c->nparts; p++) {
      double *v = &c->part_sizes[(size_t)p * c->wdim + d];
      if (*v < 0.0) *v = 1.0;
      s += *v;
    }
    if (!(s > 0.0)) {
      zp_error(c->yo, "sum of part sizes for weight %d is zero", d);
      ierr = ZOLTAN_FATAL;
      goto end;
    }
    for (p = 0; p < c->nparts; p++) c->part_sizes[(size_t)p * c->wdim + d] /= s;
  }
end:
  free(tmp);
  return ierr;
}

/* ---- the application's objects ----------------------------------------- */

static int zp_get_objects(zp_context *c)
{
  struct Zoltan_Struct *zz = c->r->zz;
  ZOLTAN_VOID_FN *fn = NULL;
  void *data = NULL;
  float *fw = NULL;
  int ierr = ZOLTAN_OK, i, d, nmsg = 0, wd = c->obj_wgt_dim;
  size_t nn;

  Zoltan_Get_Fn(zz, ZOLTAN_NUM_OBJ_FN_TYPE, &fn, &data);
  if (fn == NULL) {
    zp_error(c->yo, "Register ZOLTAN_NUM_OBJ_FN.");
    return ZOLTAN_FATAL;
  }
  c->n = ((ZOLTAN_NUM_OBJ_FN *)fn)(data, &ierr);
  if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) {
    zp_error(c->yo, "ZOLTAN_NUM_OBJ_FN returned error code %d", ierr);
    return ZOLTAN_FATAL;
  }
  if (c->n < 0) {
    zp_error(c->yo, "ZOLTAN_NUM_OBJ_FN returned %d objects", c->n);
    return ZOLTAN_FATAL;
  }
  nn = (size_t)c->n;
  c->gids = calloc(nn * c->ngid + 1, sizeof *c->gids);
  c->lids = c->nlid ? calloc(nn * c->nlid + 1, sizeof *c->lids) : NULL;
  fw = calloc(nn * (size_t)(wd > 0 ? wd : 1) + 1, sizeof *fw);
  c->w = malloc((nn * c->wdim + 1) * sizeof *c->w);
  c->parts = malloc((nn + 1) * sizeof *c->parts);
  c->in_parts = malloc((nn + 1) * sizeof *c->in_parts);
  if (c->gids == NULL || (c->nlid && c->lids == NULL) || fw == NULL || c->w == NULL || c->parts == NULL ||
      c->in_parts == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto end;
  }
  if (c->n > 0) {
    Zoltan_Get_Fn(zz, ZOLTAN_OBJ_LIST_FN_TYPE, &fn, &data);
    if (fn != NULL) {
      ((ZOLTAN_OBJ_LIST_FN *)fn)(data, c->ngid, c->nlid, c->gids, c->lids, wd, fw, &ierr);
      if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) {
        zp_error(c->yo, "ZOLTAN_OBJ_LIST_FN returned error code %d", ierr);
        ierr = ZOLTAN_FATAL;
        goto end;
      }
    } else {
      ZOLTAN_VOID_FN *first = NULL, *next = NULL;
      void *fdata = NULL, *ndata = NULL;
      int found;
      Zoltan_Get_Fn(zz, ZOLTAN_FIRST_OBJ_FN_TYPE, &first, &fdata);
      Zoltan_Get_Fn(zz, ZOLTAN_NEXT_OBJ_FN_TYPE, &next, &ndata);
      if (first == NULL || next == NULL) {
        zp_error(c->yo, "Must register ZOLTAN_OBJ_LIST_FN or ZOLTAN_FIRST_OBJ_FN/ZOLTAN_NEXT_OBJ_FN.");
        ierr = ZOLTAN_FATAL;
        goto end;
      }
      found = ((ZOLTAN_FIRST_OBJ_FN *)first)(fdata, c->ngid, c->nlid, c->gids, c->lids, wd, fw, &ierr);
      for (i = 0; found && i < c->n; i++) {
        if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) break;
        if (i + 1 == c->n) break;
        found = ((ZOLTAN_NEXT_OBJ_FN *)next)(ndata, c->ngid, c->nlid, c->gids + (size_t)i * c->ngid,
                                             c->lids ? c->lids + (size_t)i * c->nlid : NULL,
                                             c->gids + (size_t)(i + 1) * c->ngid,
                                             c->lids ? c->lids + (size_t)(i + 1) * c->nlid : NULL, wd,
                                             fw + (size_t)(i + 1) * wd, &ierr);
      }
      if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) {
        zp_error(c->yo, "ZOLTAN_FIRST_OBJ_FN/ZOLTAN_NEXT_OBJ_FN returned error code %d", ierr);
        ierr = ZOLTAN_FATAL;
        goto end;
      }
      if (!found || i + 1 < c->n) {
        zp_error(c->yo, "ZOLTAN_NEXT_OBJ_FN ended after %d of the %d objects that ZOLTAN_NUM_OBJ_FN "
                        "announced", found ? i + 1 : i, c->n);
        ierr = ZOLTAN_FATAL;
        goto end;
      }
    }
    ierr = ZOLTAN_OK;
    /* Current parts: the part callbacks when registered, else the rank. */
    Zoltan_Get_Fn(zz, ZOLTAN_PART_MULTI_FN_TYPE, &fn, &data);
    if (fn != NULL) {
      ((ZOLTAN_PART_MULTI_FN *)fn)(data, c->ngid, c->nlid, c->n, c->gids, c->lids, c->parts, &ierr);
    } else {
      Zoltan_Get_Fn(zz, ZOLTAN_PART_FN_TYPE, &fn, &data);
      for (i = 0; i < c->n; i++) {
        if (fn == NULL) {
          c->parts[i] = c->r->rank;
        } else {
          c->parts[i] = ((ZOLTAN_PART_FN *)fn)(data, c->ngid, c->nlid, c->gids + (size_t)i * c->ngid,
                                               c->lids ? c->lids + (size_t)i * c->nlid : NULL, &ierr);
          if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) break;
        }
      }
    }
    if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) {
      zp_error(c->yo, "the part callback returned error code %d", ierr);
      ierr = ZOLTAN_FATAL;
      goto end;
    }
    ierr = ZOLTAN_OK;
  }
  for (i = 0; i < c->n; i++) {
    char g[96];
    c->in_parts[i] = c->parts[i];
    if (c->parts[i] < 0 || c->parts[i] >= c->nparts) {
      /* An object outside the known parts (no part callback and more ranks
       * than parts, or NUM_GLOBAL_PARTS shrank) is taken to be in the first
       * part its rank holds; on a rank that holds none it is in no part
       * (-1), and any assignment moves it. */
      c->parts[i] = zp_first_part_of(c, c->r->rank);
    }
    for (d = 0; d < c->wdim; d++) {
      double v = wd > 0 ? (double)fw[(size_t)i * wd + d] : 1.0;
      if (!isfinite(v) || v < 0.0) {
        if (nmsg++ < ZP_MAX_OBJ_MESSAGES) {
          zp_format_gid(c->gids + (size_t)i * c->ngid, c->ngid, g, sizeof g);
          zp_error(c->yo, "object GID %s has weight[%d] = %g; weights must be finite and >= 0", g, d, v);
        }
        ierr = ZOLTAN_FATAL;
      }
      c->w[(size_t)i * c->wdim + d] = v;
    }
  }
end:
  free(fw);
  return ierr;
}

static int zp_get_geometry(zp_context *c, int required)
{
  struct Zoltan_Struct *zz = c->r->zz;
  ZOLTAN_VOID_FN *fn = NULL, *gfn = NULL;
  void *data = NULL, *gdata = NULL;
  int ierr = ZOLTAN_OK, i, dim = 0, loc[3], glob[3];

  /* Every rank reaches the reduction below, whatever its callbacks say, so
   * that a failure on one rank cannot leave the others waiting. */
  Zoltan_Get_Fn(zz, ZOLTAN_NUM_GEOM_FN_TYPE, &fn, &data);
  if (fn != NULL) {
    dim = ((ZOLTAN_NUM_GEOM_FN *)fn)(data, &ierr);
    if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) {
      zp_error(c->yo, "ZOLTAN_NUM_GEOM_FN returned error code %d", ierr);
      dim = -1;
    }
  }
  loc[0] = dim;
  loc[1] = fn == NULL;
  loc[2] = dim < 0;
  MPI_Allreduce(loc, glob, 3, MPI_INT, MPI_MAX, c->r->comm);
  if (glob[2]) return ZOLTAN_FATAL;
  if (glob[1]) {
    if (required) {
      zp_error(c->yo, "LB_METHOD %s needs ZOLTAN_NUM_GEOM_FN and ZOLTAN_GEOM_MULTI_FN", c->r->method->name);
      return ZOLTAN_FATAL;
    }
    return ZOLTAN_OK;
  }
  {
    int gdim = glob[0];
    if (gdim <= 0) return ZOLTAN_OK;
    if (dim != gdim && c->n > 0) {
      zp_error(c->yo, "ZOLTAN_NUM_GEOM_FN returned %d here and %d elsewhere", dim, gdim);
      return ZOLTAN_FATAL;
    }
    c->gdim = gdim;
  }
  c->coords = malloc(((size_t)c->n * c->gdim + 1) * sizeof *c->coords);
  if (c->coords == NULL) return ZOLTAN_MEMERR;
  if (c->n == 0) return ZOLTAN_OK;
  Zoltan_Get_Fn(zz, ZOLTAN_GEOM_MULTI_FN_TYPE, &gfn, &gdata);
  ierr = ZOLTAN_OK;
  if (gfn != NULL) {
    ((ZOLTAN_GEOM_MULTI_FN *)gfn)(gdata, c->ngid, c->nlid, c->n, c->gids, c->lids, c->gdim, c->coords, &ierr);
  } else {
    Zoltan_Get_Fn(zz, ZOLTAN_GEOM_FN_TYPE, &gfn, &gdata);
    if (gfn == NULL) {
      zp_error(c->yo, "Register ZOLTAN_GEOM_MULTI_FN or ZOLTAN_GEOM_FN.");
      return ZOLTAN_FATAL;
    }
    for (i = 0; i < c->n && (ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN); i++)
      ((ZOLTAN_GEOM_FN *)gfn)(gdata, c->ngid, c->nlid, c->gids + (size_t)i * c->ngid,
                              c->lids ? c->lids + (size_t)i * c->nlid : NULL,
                              c->coords + (size_t)i * c->gdim, &ierr);
  }
  if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) {
    zp_error(c->yo, "the geometry callback returned error code %d", ierr);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

static int zp_get_graph(zp_context *c, int required)
{
  struct Zoltan_Struct *zz = c->r->zz;
  ZOLTAN_VOID_FN *nfn = NULL, *efn = NULL;
  void *ndata = NULL, *edata = NULL;
  int ierr = ZOLTAN_OK, i, multi_n = 1, multi_e = 1, ed = c->edge_wgt_dim, have, ghave;
  size_t total = 0, k;
  int *procs = NULL;
  float *fe = NULL;

  Zoltan_Get_Fn(zz, ZOLTAN_NUM_EDGES_MULTI_FN_TYPE, &nfn, &ndata);
  if (nfn == NULL) {
    multi_n = 0;
    Zoltan_Get_Fn(zz, ZOLTAN_NUM_EDGES_FN_TYPE, &nfn, &ndata);
  }
  Zoltan_Get_Fn(zz, ZOLTAN_EDGE_LIST_MULTI_FN_TYPE, &efn, &edata);
  if (efn == NULL) {
    multi_e = 0;
    Zoltan_Get_Fn(zz, ZOLTAN_EDGE_LIST_FN_TYPE, &efn, &edata);
  }
  have = nfn != NULL && efn != NULL;
  MPI_Allreduce(&have, &ghave, 1, MPI_INT, MPI_MIN, c->r->comm);
  if (!ghave) {
    if (required) {
      zp_error(c->yo, "LB_METHOD %s needs the graph callbacks (ZOLTAN_NUM_EDGES_MULTI_FN and "
                      "ZOLTAN_EDGE_LIST_MULTI_FN)", c->r->method->name);
      return ZOLTAN_FATAL;
    }
    return ZOLTAN_OK;
  }
  c->nedges = calloc((size_t)c->n + 1, sizeof *c->nedges);
  if (c->nedges == NULL) return ZOLTAN_MEMERR;
  if (c->n > 0) {
    if (multi_n) {
      ((ZOLTAN_NUM_EDGES_MULTI_FN *)nfn)(ndata, c->ngid, c->nlid, c->n, c->gids, c->lids, c->nedges, &ierr);
    } else {
      for (i = 0; i < c->n && (ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN); i++)
        c->nedges[i] = ((ZOLTAN_NUM_EDGES_FN *)nfn)(ndata, c->ngid, c->nlid, c->gids + (size_t)i * c->ngid,
                                                    c->lids ? c->lids + (size_t)i * c->nlid : NULL, &ierr);
    }
    if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) {
      zp_error(c->yo, "the edge-count callback returned error code %d", ierr);
      return ZOLTAN_FATAL;
    }
  }
  for (i = 0; i < c->n; i++) {
    if (c->nedges[i] < 0) {
      zp_error(c->yo, "the edge-count callback returned %d edges", c->nedges[i]);
      return ZOLTAN_FATAL;
    }
    total += (size_t)c->nedges[i];
  }
  c->nbr = malloc((total * c->ngid + 1) * sizeof *c->nbr);
  procs = malloc((total + 1) * sizeof *procs);
  fe = calloc(total * (size_t)(ed > 0 ? ed : 1) + 1, sizeof *fe);
  c->ewgts = malloc((total * (size_t)(ed > 0 ? ed : 1) + 1) * sizeof *c->ewgts);
  if (c->nbr == NULL || procs == NULL || fe == NULL || c->ewgts == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto end;
  }
  ierr = ZOLTAN_OK;
  if (c->n > 0 && total > 0) {
    if (multi_e) {
      ((ZOLTAN_EDGE_LIST_MULTI_FN *)efn)(edata, c->ngid, c->nlid, c->n, c->gids, c->lids, c->nedges, c->nbr,
                                         procs, ed, fe, &ierr);
    } else {
      size_t off = 0;
      for (i = 0; i < c->n && (ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN); i++) {
        ((ZOLTAN_EDGE_LIST_FN *)efn)(edata, c->ngid, c->nlid, c->gids + (size_t)i * c->ngid,
                                     c->lids ? c->lids + (size_t)i * c->nlid : NULL, c->nbr + off * c->ngid,
                                     procs + off, ed, fe + off * (size_t)ed, &ierr);
        off += (size_t)c->nedges[i];
      }
    }
    if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) {
      zp_error(c->yo, "the edge-list callback returned error code %d", ierr);
      ierr = ZOLTAN_FATAL;
      goto end;
    }
  }
  ierr = ZOLTAN_OK;
  for (k = 0; k < total * (size_t)ed; k++) {
    c->ewgts[k] = fe[k];
    if (!isfinite(c->ewgts[k]) || c->ewgts[k] < 0.0) {
      zp_error(c->yo, "an edge weight is %g; edge weights must be finite and >= 0", c->ewgts[k]);
      ierr = ZOLTAN_FATAL;
      break;
    }
  }
  c->has_graph = 1;
end:
  free(procs);
  free(fe);
  return ierr;
}

/* ---- the centralised path ---------------------------------------------- */

/* Lexicographic order of multi-entry global IDs. */
static int zp_gid_cmp(const ZOLTAN_ID_TYPE *a, const ZOLTAN_ID_TYPE *b, int ngid)
{
  int k;
  for (k = 0; k < ngid; k++) {
    if (a[k] < b[k]) return -1;
    if (a[k] > b[k]) return 1;
  }
  return 0;
}

/* Stable merge sort of indices by global ID; written out rather than qsort
 * so that no global comparison state is needed. */
static void zp_sort_by_gid(size_t *idx, size_t *tmp, size_t n, const ZOLTAN_ID_TYPE *g, int ngid)
{
  size_t width, i;
  for (width = 1; width < n; width *= 2) {
    for (i = 0; i < n; i += 2 * width) {
      size_t lo = i, mid = i + width < n ? i + width : n, hi = i + 2 * width < n ? i + 2 * width : n;
      size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi)
        tmp[k++] = zp_gid_cmp(g + idx[b] * ngid, g + idx[a] * ngid, ngid) < 0 ? idx[b++] : idx[a++];
      while (a < mid) tmp[k++] = idx[a++];
      while (b < hi) tmp[k++] = idx[b++];
    }
    memcpy(idx, tmp, n * sizeof *idx);
  }
}

/* Binary search of a global ID among the sorted ones; -1 when absent. */
static long zp_find_gid(const ZOLTAN_ID_TYPE *sorted, size_t n, const ZOLTAN_ID_TYPE *key, int ngid)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = zp_gid_cmp(sorted + mid * ngid, key, ngid);
    if (c == 0) return (long)mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/*
 * Relabel the parts of a new assignment so that as much weight as possible
 * stays in the part it is in now (Zoltan's REMAP).  Only done when parts are
 * interchangeable: uniform sizes and one part per rank or none spread.
 * Greedy maximum-weight matching on the (new, old) overlap: sort the pairs
 * by shared weight and take each whose labels are both still free.
 */
/* Shared weight of new part a and current part b. */
typedef struct zp_pair {
  double wt;
  int a, b;
} zp_pair;

static int zp_pair_cmp(const void *x, const void *y)
{
  const zp_pair *p = x, *q = y;
  if (p->wt != q->wt) return p->wt > q->wt ? -1 : 1;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return (p->b > q->b) - (p->b < q->b);
}

static int zp_remap(const zp_context *c, size_t N, const double *w, const int *cur, int *newp)
{
  typedef zp_pair pair;
  pair *pr = NULL;
  size_t np = 0, i, j;
  int *perm = NULL, *taken = NULL, P = c->nparts, p, ierr = ZOLTAN_MEMERR;
  size_t *idx = NULL, *tmp = NULL;

  for (p = 0; p < P * c->wdim; p++)
    if (fabs(c->part_sizes[p] - 1.0 / P) > 1e-12) return ZOLTAN_OK;
  /* Sort objects by (new, old) so that equal pairs are adjacent; the key is
   * bounded by P * (P + 1), so a counting pass over objects is enough. */
  idx = malloc((N + 1) * sizeof *idx);
  tmp = malloc((N + 1) * sizeof *tmp);
  pr = malloc((N + 1) * sizeof *pr);
  perm = malloc((size_t)P * sizeof *perm);
  taken = calloc((size_t)P, sizeof *taken);
  if (idx == NULL || tmp == NULL || pr == NULL || perm == NULL || taken == NULL) goto end;
  for (i = 0; i < N; i++) idx[i] = i;
  {
    /* Radix by old then new part keeps the sort linear and deterministic. */
    size_t *count = calloc((size_t)P + 2, sizeof *count);
    int pass;
    if (count == NULL) goto end;
    for (pass = 0; pass < 2; pass++) {
      memset(count, 0, ((size_t)P + 2) * sizeof *count);
      for (i = 0; i < N; i++) count[(pass ? newp[idx[i]] : cur[idx[i]] + 1) + 1]++;
      for (j = 1; j < (size_t)P + 2; j++) count[j] += count[j - 1];
      for (i = 0; i < N; i++) tmp[count[pass ? newp[idx[i]] : cur[idx[i]] + 1]++] = idx[i];
      memcpy(idx, tmp, N * sizeof *idx);
    }
    free(count);
  }
  for (i = 0; i < N;) {
    size_t k = i;
    double s = 0.0;
    while (k < N && newp[idx[k]] == newp[idx[i]] && cur[idx[k]] == cur[idx[i]]) s += w[idx[k++] * c->wdim];
    if (cur[idx[i]] >= 0) {
      pr[np].wt = s;
      pr[np].a = newp[idx[i]];
      pr[np].b = cur[idx[i]];
      np++;
    }
    i = k;
  }
  /* Heaviest shared weight first; labels break ties so the result does
   * not depend on the sort's stability. */
  qsort(pr, np, sizeof *pr, zp_pair_cmp);
  for (p = 0; p < P; p++) perm[p] = -1;
  for (i = 0; i < np; i++) {
    if (perm[pr[i].a] == -1 && !taken[pr[i].b]) {
      perm[pr[i].a] = pr[i].b;
      taken[pr[i].b] = 1;
    }
  }
  for (p = 0, j = 0; p < P; p++) {
    if (perm[p] != -1) continue;
    while (taken[j]) j++;
    perm[p] = (int)j;
    taken[j] = 1;
  }
  for (i = 0; i < N; i++) newp[i] = perm[newp[i]];
  ierr = ZOLTAN_OK;
end:
  free(idx);
  free(tmp);
  free(pr);
  free(perm);
  free(taken);
  return ierr;
}

/* Copy helpers for the packed records gathered on the root. */
static unsigned char *zp_put(unsigned char *p, const void *src, size_t n)
{
  memcpy(p, src, n);
  return p + n;
}

static const unsigned char *zp_get(const unsigned char *p, void *dst, size_t n)
{
  memcpy(dst, p, n);
  return p + n;
}

static int zp_run_serial(zp_context *c, int *new_part)
{
  zp_record *r = c->r;
  const zp_method *m = r->method;
  int P = r->size, root = 0, ierr = ZOLTAN_OK, i, tot_edges_local = 0, mine[2];
  int *per = NULL, *cnt = NULL, *dsp = NULL, *ecnt = NULL, *edsp = NULL, *scnt = NULL, *sdsp = NULL;
  int *recv = NULL;
  size_t N = 0, E = 0, k;
  ZOLTAN_ID_TYPE *ag = NULL, *sg = NULL, *anbr = NULL;
  double *aw = NULL, *sw = NULL, *ac = NULL, *sc = NULL, *aew = NULL, *sew = NULL;
  int *ap = NULL, *sp = NULL, *aproc = NULL, *sproc = NULL, *anedges = NULL, *snew = NULL, *sendbuf = NULL;
  size_t *order = NULL, *tmp = NULL, *adj_start = NULL, *adj = NULL, *pos = NULL;
  unsigned char *lob = NULL, *leb = NULL, *aob = NULL, *aeb = NULL;
  int gdim = c->gdim, has_graph = c->has_graph, ew = c->edge_wgt_dim > 0 ? c->edge_wgt_dim : 1;
  /* One record per object and one per edge, so that everything reaches the
   * root in one gather each: the number of collectives, not the bytes,
   * dominates at the sizes a centralised method is meant for. */
  size_t idsz = (size_t)c->ngid * sizeof(ZOLTAN_ID_TYPE);
  size_t orec = idsz + (size_t)c->wdim * sizeof(double) + 2 * sizeof(int) + (size_t)gdim * sizeof(double);
  size_t erec = idsz + (size_t)ew * sizeof(double);
  int gmeta[2];
  zp_problem pb;

  gmeta[0] = gdim;
  gmeta[1] = has_graph;
  for (i = 0; has_graph && i < c->n; i++) tot_edges_local += c->nedges[i];
  lob = malloc((size_t)c->n * orec + 1);
  leb = malloc((size_t)tot_edges_local * erec + 1);
  recv = malloc(((size_t)c->n + 1) * sizeof *recv);
  if (lob && leb && recv) {
    unsigned char *q = lob, *e = leb;
    size_t off = 0;
    for (i = 0; i < c->n; i++) {
      int ne = has_graph ? c->nedges[i] : 0, j;
      q = zp_put(q, c->gids + (size_t)i * c->ngid, idsz);
      q = zp_put(q, c->w + (size_t)i * c->wdim, (size_t)c->wdim * sizeof(double));
      q = zp_put(q, &c->parts[i], sizeof(int));
      q = zp_put(q, &ne, sizeof(int));
      if (gdim > 0) q = zp_put(q, c->coords + (size_t)i * gdim, (size_t)gdim * sizeof(double));
      for (j = 0; j < ne; j++, off++) {
        double one = 1.0;
        e = zp_put(e, c->nbr + off * c->ngid, idsz);
        if (c->edge_wgt_dim > 0) e = zp_put(e, c->ewgts + off * (size_t)ew, (size_t)ew * sizeof(double));
        else e = zp_put(e, &one, sizeof one);
      }
    }
  } else {
    ierr = ZOLTAN_MEMERR;
  }
  /* Counts travel with the local status so that a rank short of memory is
   * known before anybody waits in the gathers. */
  mine[0] = ierr < 0 ? -1 : c->n;
  mine[1] = tot_edges_local;
  if (r->rank == root) per = malloc(2 * (size_t)P * sizeof *per);
  MPI_Gather(mine, 2, MPI_INT, per, 2, MPI_INT, root, r->comm);
  if (r->rank == root) {
    if (per == NULL) ierr = ZOLTAN_MEMERR;
    cnt = malloc((size_t)P * sizeof *cnt);
    dsp = malloc((size_t)P * sizeof *dsp);
    ecnt = malloc((size_t)P * sizeof *ecnt);
    edsp = malloc((size_t)P * sizeof *edsp);
    scnt = malloc((size_t)P * sizeof *scnt);
    sdsp = malloc((size_t)P * sizeof *sdsp);
    if (!cnt || !dsp || !ecnt || !edsp || !scnt || !sdsp) ierr = ZOLTAN_MEMERR;
    for (i = 0; ierr >= 0 && i < P; i++) {
      if (per[2 * i] < 0) {
        ierr = ZOLTAN_MEMERR;
        break;
      }
      N += (size_t)per[2 * i];
      E += (size_t)per[2 * i + 1];
    }
    if (ierr >= 0) {
      long long o = 0, eo = 0, so = 0;
      for (i = 0; i < P; i++) {
        long long b = (long long)per[2 * i] * (long long)orec, eb = (long long)per[2 * i + 1] * (long long)erec;
        if (b > 2147483647LL || o > 2147483647LL || eb > 2147483647LL || eo > 2147483647LL) {
          zp_error(c->yo, "too much data to gather on one rank (%zu objects, %zu edges)", N, E);
          ierr = ZOLTAN_FATAL;
          break;
        }
        cnt[i] = (int)b;
        dsp[i] = (int)o;
        ecnt[i] = (int)eb;
        edsp[i] = (int)eo;
        scnt[i] = per[2 * i] + 1;
        sdsp[i] = (int)so;
        o += b;
        eo += eb;
        so += per[2 * i] + 1;
      }
    }
    if (ierr >= 0) {
      aob = malloc(N * orec + 1);
      aeb = malloc(E * erec + 1);
      ag = malloc((N * c->ngid + 1) * sizeof *ag);
      aw = malloc((N * c->wdim + 1) * sizeof *aw);
      ap = malloc((N + 1) * sizeof *ap);
      anedges = malloc((N + 1) * sizeof *anedges);
      sendbuf = malloc((N + (size_t)P) * sizeof *sendbuf);
      if (!aob || !aeb || !ag || !aw || !ap || !anedges || !sendbuf) ierr = ZOLTAN_MEMERR;
      if (gdim > 0 && (ac = malloc((N * gdim + 1) * sizeof *ac)) == NULL) ierr = ZOLTAN_MEMERR;
      if (has_graph) {
        anbr = malloc((E * c->ngid + 1) * sizeof *anbr);
        aew = malloc((E * (size_t)ew + 1) * sizeof *aew);
        if (!anbr || !aew) ierr = ZOLTAN_MEMERR;
      }
    }
  }
  MPI_Bcast(&ierr, 1, MPI_INT, root, r->comm);
  if (ierr < 0) goto end;
  MPI_Gatherv(lob, (int)((size_t)c->n * orec), MPI_BYTE, aob, cnt, dsp, MPI_BYTE, root, r->comm);
  if (has_graph)
    MPI_Gatherv(leb, (int)((size_t)tot_edges_local * erec), MPI_BYTE, aeb, ecnt, edsp, MPI_BYTE, root, r->comm);

  if (r->rank == root) {
    const unsigned char *q = aob, *e = aeb;
    for (k = 0; k < N; k++) {
      q = zp_get(q, ag + k * c->ngid, idsz);
      q = zp_get(q, aw + k * c->wdim, (size_t)c->wdim * sizeof(double));
      q = zp_get(q, &ap[k], sizeof(int));
      q = zp_get(q, &anedges[k], sizeof(int));
      if (gdim > 0) q = zp_get(q, ac + k * gdim, (size_t)gdim * sizeof(double));
    }
    for (k = 0; has_graph && k < E; k++) {
      e = zp_get(e, anbr + k * c->ngid, idsz);
      e = zp_get(e, aew + k * (size_t)ew, (size_t)ew * sizeof(double));
    }
  }

  if (r->rank == root) {
    char g1[96];
    int d;
    order = malloc((N + 1) * sizeof *order);
    tmp = malloc((N + 1) * sizeof *tmp);
    sg = malloc((N * c->ngid + 1) * sizeof *sg);
    sw = malloc((N * c->wdim + 1) * sizeof *sw);
    sp = malloc((N + 1) * sizeof *sp);
    sproc = malloc((N + 1) * sizeof *sproc);
    aproc = malloc((N + 1) * sizeof *aproc);
    snew = malloc((N + 1) * sizeof *snew);
    if (!order || !tmp || !sg || !sw || !sp || !sproc || !aproc || !snew) {
      ierr = ZOLTAN_MEMERR;
      goto root_done;
    }
    for (i = 0, k = 0; i < P; i++) {
      int j;
      for (j = 0; j < per[2 * i]; j++) aproc[k++] = i;
    }
    for (k = 0; k < N; k++) order[k] = k;
    /* Applications usually number their objects in rank order already;
     * checking costs one pass, sorting a merge sort. */
    for (k = 1; k < N; k++)
      if (zp_gid_cmp(ag + (k - 1) * c->ngid, ag + k * c->ngid, c->ngid) > 0) break;
    if (k < N) zp_sort_by_gid(order, tmp, N, ag, c->ngid);
    for (k = 0; k < N; k++) {
      size_t o = order[k];
      memcpy(sg + k * c->ngid, ag + o * c->ngid, (size_t)c->ngid * sizeof *sg);
      memcpy(sw + k * c->wdim, aw + o * c->wdim, (size_t)c->wdim * sizeof *sw);
      sp[k] = ap[o];
      sproc[k] = aproc[o];
      if (k > 0 && zp_gid_cmp(sg + (k - 1) * c->ngid, sg + k * c->ngid, c->ngid) == 0) {
        zp_format_gid(sg + k * c->ngid, c->ngid, g1, sizeof g1);
        zp_error(c->yo, "GID %s is given by rank %d and by rank %d; global IDs must be unique", g1,
                 sproc[k - 1], sproc[k]);
        ierr = ZOLTAN_FATAL;
        goto root_done;
      }
    }
    /* A weight dimension that is zero everywhere carries no information;
     * balancing it would pile every object into one part, so count objects
     * instead and say so. */
    for (d = 0; d < c->wdim; d++) {
      double s = 0.0;
      for (k = 0; k < N; k++) s += sw[k * c->wdim + d];
      if (N > 0 && s == 0.0) {
        zp_warn(c->yo, "total weight of dimension %d is zero; balancing object counts instead", d);
        for (k = 0; k < N; k++) sw[k * c->wdim + d] = 1.0;
        ierr = ZOLTAN_WARN;
      }
    }
    if (N > 0 && (size_t)c->nparts > N) {
      zp_warn(c->yo, "%d parts requested for %zu objects; %zu parts will be empty", c->nparts, N,
              (size_t)c->nparts - N);
      ierr = ZOLTAN_WARN;
    }
    if (gmeta[0] > 0) {
      sc = malloc((N * gmeta[0] + 1) * sizeof *sc);
      if (sc == NULL) {
        ierr = ZOLTAN_MEMERR;
        goto root_done;
      }
      for (k = 0; k < N; k++) memcpy(sc + k * gmeta[0], ac + order[k] * gmeta[0], (size_t)gmeta[0] * sizeof *sc);
    }
    if (gmeta[1]) {
      /* Rebuild the graph in sorted order with neighbour indices; edges to
       * objects that do not exist are dropped with a warning. */
      int ew = c->edge_wgt_dim;
      size_t dropped = 0, e = 0;
      pos = malloc((N + 1) * sizeof *pos);
      adj_start = malloc((N + 1) * sizeof *adj_start);
      adj = malloc((E + 1) * sizeof *adj);
      sew = malloc((E * (size_t)(ew > 0 ? ew : 1) + 1) * sizeof *sew);
      if (!pos || !adj_start || !adj || !sew) {
        ierr = ZOLTAN_MEMERR;
        goto root_done;
      }
      for (k = 0, e = 0; k < N; k++) {
        pos[k] = e;
        e += (size_t)anedges[k];
      }
      for (k = 0, e = 0; k < N; k++) {
        size_t o = order[k], q;
        adj_start[k] = e;
        for (q = 0; q < (size_t)anedges[o]; q++) {
          size_t src = pos[o] + q;
          long t = zp_find_gid(sg, N, anbr + src * c->ngid, c->ngid);
          if (t < 0) {
            dropped++;
            continue;
          }
          adj[e] = (size_t)t;
          if (ew > 0) memcpy(sew + e * ew, aew + src * ew, (size_t)ew * sizeof *sew);
          e++;
        }
      }
      adj_start[N] = e;
      if (dropped) zp_warn(c->yo, "%zu edges name objects that do not exist; ignored", dropped);
    }
    memset(&pb, 0, sizeof pb);
    pb.num_obj = N;
    pb.num_gid_entries = c->ngid;
    pb.gids = sg;
    pb.wgt_dim = c->wdim;
    pb.wgts = sw;
    pb.cur_part = sp;
    pb.cur_proc = sproc;
    pb.num_parts = c->nparts;
    pb.num_procs = P;
    pb.part_sizes = c->part_sizes;
    pb.imbalance_tol = c->tol;
    pb.geom_dim = gmeta[0];
    pb.coords = sc;
    pb.adj_start = gmeta[1] ? adj_start : NULL;
    pb.adj = gmeta[1] ? adj : NULL;
    pb.ewgt_dim = gmeta[1] ? c->edge_wgt_dim : 0;
    pb.ewgts = gmeta[1] && c->edge_wgt_dim > 0 ? sew : NULL;
    pb.params = r->params;
    pb.debug_level = c->debug_level;
    {
      int e2 = N > 0 ? m->partition_serial(&pb, r->state, snew) : ZOLTAN_OK;
      if (e2 < 0) {
        ierr = e2;
        goto root_done;
      }
      if (e2 == ZOLTAN_WARN) ierr = ZOLTAN_WARN;
    }
    for (k = 0; k < N; k++) {
      if (snew[k] < 0 || snew[k] >= c->nparts) {
        zp_error(c->yo, "method %s assigned an object to part %d, outside [0, %d)", m->name, snew[k],
                 c->nparts);
        ierr = ZOLTAN_FATAL;
        goto root_done;
      }
    }
    if (c->remap && !(c->needs & ZP_NO_REMAP) && c->pdist == NULL && N > 0) {
      int e2 = zp_remap(c, N, sw, sp, snew);
      if (e2 < 0) {
        ierr = e2;
        goto root_done;
      }
    }
    {
      /* Each rank's slice starts with the status, then its parts in the
       * order it gave its objects. */
      size_t o2 = 0;
      int rr;
      for (rr = 0, k = 0; rr < P; rr++) {
        sendbuf[o2] = ierr;
        o2 += (size_t)per[2 * rr] + 1;
      }
      for (k = 0; k < N; k++) {
        size_t o = order[k];
        /* Object o is the (o - first of its rank)-th of rank aproc[o]. */
        sendbuf[(size_t)sdsp[aproc[o]] + 1 + (o - (size_t)dsp[aproc[o]] / orec)] = snew[k];
      }
    }
  root_done:
    if (ierr < 0 && sendbuf != NULL) {
      int rr;
      for (rr = 0; rr < P; rr++) sendbuf[sdsp[rr]] = ierr;
    }
  }
  MPI_Scatterv(sendbuf, scnt, sdsp, MPI_INT, recv, c->n + 1, MPI_INT, root, r->comm);
  ierr = recv[0];
  if (ierr >= 0) memcpy(new_part, recv + 1, (size_t)c->n * sizeof *new_part);
end:
  free(per);
  free(cnt);
  free(dsp);
  free(ecnt);
  free(edsp);
  free(scnt);
  free(sdsp);
  free(recv);
  free(lob);
  free(leb);
  free(aob);
  free(aeb);
  free(sendbuf);
  free(ag);
  free(sg);
  free(anbr);
  free(aw);
  free(sw);
  free(ac);
  free(sc);
  free(aew);
  free(sew);
  free(ap);
  free(sp);
  free(aproc);
  free(sproc);
  free(anedges);
  free(snew);
  free(order);
  free(tmp);
  free(adj_start);
  free(adj);
  free(pos);
  return ierr;
}

/* ---- lists -------------------------------------------------------------- */

/* Build Zoltan-allocated export arrays of the chosen objects. */
static int zp_make_list(const zp_context *c, const int *sel, int count, const int *procs, const int *parts,
                        ZOLTAN_ID_PTR *g, ZOLTAN_ID_PTR *l, int **pr, int **pa)
{
  int i, k;
  *g = zp_zmalloc((size_t)count * c->ngid * sizeof **g);
  *l = c->nlid ? zp_zmalloc((size_t)count * c->nlid * sizeof **l) : NULL;
  *pr = zp_zmalloc((size_t)count * sizeof **pr);
  *pa = zp_zmalloc((size_t)count * sizeof **pa);
  if (*g == NULL || (c->nlid && *l == NULL) || *pr == NULL || *pa == NULL) return ZOLTAN_MEMERR;
  for (i = 0, k = 0; i < c->n; i++) {
    if (sel != NULL && !sel[i]) continue;
    memcpy(*g + (size_t)k * c->ngid, c->gids + (size_t)i * c->ngid, (size_t)c->ngid * sizeof **g);
    if (c->nlid) memcpy(*l + (size_t)k * c->nlid, c->lids + (size_t)i * c->nlid, (size_t)c->nlid * sizeof **l);
    (*pr)[k] = procs[i];
    (*pa)[k] = parts[i];
    k++;
  }
  return ZOLTAN_OK;
}

static void zp_free_list(ZOLTAN_ID_PTR *g, ZOLTAN_ID_PTR *l, int **pr, int **pa)
{
  zp_zfree(g);
  zp_zfree(l);
  zp_zfree(pr);
  zp_zfree(pa);
}

static void zp_print_stats(const zp_context *c, double t, const char *label)
{
  double mx, mn, sum;
  MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, c->r->comm);
  MPI_Allreduce(&t, &mn, 1, MPI_DOUBLE, MPI_MIN, c->r->comm);
  MPI_Allreduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, c->r->comm);
  if (c->r->rank == c->debug_proc) {
    double avg = sum / c->r->size;
    printf("%s Max: %g  Min: %g  Avg: %g  Imbal: %g\n", label, mx, mn, avg, avg > 0 ? mx / avg : 1.0);
    fflush(stdout);
  }
}

static void zp_print_lists(const zp_context *c, zp_lb_args *a)
{
  int i, r;
  char g[96];
  for (r = 0; r < c->r->size; r++) {
    MPI_Barrier(c->r->comm);
    if (r != c->r->rank) continue;
    printf("ZOLTAN: Objects to be imported to Proc %d\n", c->r->rank);
    for (i = 0; i < *a->num_import; i++) {
      zp_format_gid(*a->import_gids + (size_t)i * c->ngid, c->ngid, g, sizeof g);
      printf("    Obj: %s  To part: %4d  From processor: %4d\n", g, (*a->import_to_part)[i], (*a->import_procs)[i]);
    }
    printf("ZOLTAN: Objects to be exported from Proc %d\n", c->r->rank);
    for (i = 0; i < *a->num_export; i++) {
      zp_format_gid(*a->export_gids + (size_t)i * c->ngid, c->ngid, g, sizeof g);
      printf("    Obj: %s  To part: %4d  To processor: %4d\n", g, (*a->export_to_part)[i], (*a->export_procs)[i]);
    }
    fflush(stdout);
  }
  MPI_Barrier(c->r->comm);
}

/* ---- the whole call ----------------------------------------------------- */

int zp_partition(zp_record *r, int is_balance, zp_lb_args *a)
{
  zp_context ctx;
  zp_context *c = &ctx;
  const zp_method *m = r->method;
  int ierr = ZOLTAN_OK, warn = 0, i, nexp = 0, gmax = 0;
  int *new_part = NULL, *new_proc = NULL, *sel = NULL;
  ZOLTAN_ID_PTR eg = NULL, el = NULL, ig = NULL, il = NULL;
  int *epr = NULL, *epa = NULL, *ipr = NULL, *ipa = NULL, nimp = -1;
  double t0 = MPI_Wtime(), t_part = 0.0, t_mig = 0.0;

  memset(c, 0, sizeof *c);
  c->r = r;
  c->is_balance = is_balance;
  c->yo = is_balance ? "Zoltan_LB_Balance" : "Zoltan_LB_Partition";

  *a->changes = 0;
  *a->num_import = *a->num_export = 0;
  *a->import_gids = *a->import_lids = *a->export_gids = *a->export_lids = NULL;
  *a->import_procs = *a->import_to_part = *a->export_procs = *a->export_to_part = NULL;

#define ZP_STEP(call)                    \
  do {                                   \
    int e_ = zp_agree(r->comm, (call));  \
    if (e_ < 0) {                        \
      ierr = e_;                         \
      goto end;                          \
    }                                    \
    if (e_ == ZOLTAN_WARN) warn = 1;     \
  } while (0)

  ZP_STEP(zp_read_settings(c));
  *a->num_gid_entries = c->ngid;
  *a->num_lid_entries = c->nlid;
  if (c->debug_level >= ZP_DEBUG_PARAMS && r->rank == c->debug_proc) zp_params_print(r->params, m);
  ZP_STEP(zp_build_part_dist(c));
  ZP_STEP(zp_build_part_sizes(c));
  ZP_STEP(zp_get_objects(c));
  c->needs = m->needs_for ? m->needs_for(r->params) : m->needs;
  if (c->needs & (ZP_NEEDS_GEOM | ZP_WANTS_GEOM)) ZP_STEP(zp_get_geometry(c, (c->needs & ZP_NEEDS_GEOM) != 0));
  if (c->needs & (ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH)) ZP_STEP(zp_get_graph(c, (c->needs & ZP_NEEDS_GRAPH) != 0));

  if (m->create != NULL && r->state_owner != m) {
    int e = m->create(&r->state);
    if (e == ZOLTAN_OK) r->state_owner = m;
    ZP_STEP(e);
  }

  new_part = malloc(((size_t)c->n + 1) * sizeof *new_part);
  new_proc = malloc(((size_t)c->n + 1) * sizeof *new_proc);
  sel = calloc((size_t)c->n + 1, sizeof *sel);
  ZP_STEP((new_part && new_proc && sel) ? ZOLTAN_OK : ZOLTAN_MEMERR);

  if (m->partition_serial != NULL) {
    int e = zp_run_serial(c, new_part);
    /* zp_run_serial already agreed on errors; keep its warning. */
    if (e < 0) {
      ierr = e;
      goto end;
    }
    if (e == ZOLTAN_WARN) warn = 1;
  } else {
    int e = m->partition_parallel(c, r->state, new_part);
    for (i = 0; e >= 0 && i < c->n; i++) {
      if (new_part[i] < 0 || new_part[i] >= c->nparts) {
        zp_error(c->yo, "method %s assigned an object to part %d, outside [0, %d)", m->name, new_part[i],
                 c->nparts);
        e = ZOLTAN_FATAL;
      }
    }
    ZP_STEP(e);
  }
  t_part = MPI_Wtime() - t0;

  for (i = 0; i < c->n; i++) {
    new_proc[i] = zp_part_to_proc(c, new_part[i], c->gids + (size_t)i * c->ngid);
    /* Zoltan lists an object when its rank or its part changes. */
    sel[i] = new_proc[i] != r->rank || new_part[i] != c->in_parts[i];
    nexp += sel[i];
  }
  MPI_Allreduce(&nexp, &gmax, 1, MPI_INT, MPI_MAX, r->comm);

  if (gmax == 0) {
    if (c->return_lists == ZP_RL_PARTS) {
      /* A complete list even when nothing changes, as Zoltan gives. */
      ZP_STEP(zp_make_list(c, NULL, c->n, new_proc, new_part, a->export_gids, a->export_lids,
                           a->export_procs, a->export_to_part));
      *a->num_export = c->n;
    }
    goto end;
  }

  ZP_STEP(zp_make_list(c, sel, nexp, new_proc, new_part, &eg, &el, &epr, &epa));
  if (c->return_lists == ZP_RL_IMPORT || c->return_lists == ZP_RL_ALL || c->auto_migrate) {
    ZP_STEP(Zoltan_Invert_Lists(r->zz, nexp, eg, el, epr, epa, &nimp, &ig, &il, &ipr, &ipa));
  }
  if (c->auto_migrate) {
    double tm = MPI_Wtime();
    int e = Zoltan_Migrate(r->zz, nimp, ig, il, ipr, ipa, nexp, eg, el, epr, epa);
    if (e < 0) zp_error(c->yo, "Error in auto-migration; %d returned from Zoltan_Migrate", e);
    ZP_STEP(e);
    t_mig = MPI_Wtime() - tm;
  }

  switch (c->return_lists) {
  case ZP_RL_NONE:
    *a->num_import = *a->num_export = -1;
    break;
  case ZP_RL_IMPORT:
    *a->num_import = nimp;
    *a->import_gids = ig;
    *a->import_lids = il;
    *a->import_procs = ipr;
    *a->import_to_part = ipa;
    ig = il = NULL;
    ipr = ipa = NULL;
    *a->num_export = -1;
    break;
  case ZP_RL_EXPORT:
    *a->num_export = nexp;
    *a->export_gids = eg;
    *a->export_lids = el;
    *a->export_procs = epr;
    *a->export_to_part = epa;
    eg = el = NULL;
    epr = epa = NULL;
    *a->num_import = -1;
    break;
  case ZP_RL_PARTS:
    ZP_STEP(zp_make_list(c, NULL, c->n, new_proc, new_part, a->export_gids, a->export_lids, a->export_procs,
                         a->export_to_part));
    *a->num_export = c->n;
    *a->num_import = -1;
    break;
  default: /* ALL */
    *a->num_import = nimp;
    *a->import_gids = ig;
    *a->import_lids = il;
    *a->import_procs = ipr;
    *a->import_to_part = ipa;
    *a->num_export = nexp;
    *a->export_gids = eg;
    *a->export_lids = el;
    *a->export_procs = epr;
    *a->export_to_part = epa;
    ig = il = eg = el = NULL;
    ipr = ipa = epr = epa = NULL;
    break;
  }
  *a->changes = 1;
  if (c->debug_level >= ZP_DEBUG_LIST && *a->num_import >= 0 && *a->num_export >= 0) zp_print_lists(c, a);
  if (c->debug_level >= ZP_DEBUG_ZTIME) {
    if (r->rank == c->debug_proc) printf("ZOLTAN Times:  \n");
    zp_print_stats(c, t_part, "ZOLTAN     Partition:     ");
    if (c->auto_migrate) zp_print_stats(c, t_mig, "ZOLTAN     Migrate: ");
  }
#undef ZP_STEP

end:
  if (ierr < 0) {
    /* Nothing half-built reaches the application after an error. */
    Zoltan_LB_Free_Part(a->import_gids, a->import_lids, a->import_procs, a->import_to_part);
    Zoltan_LB_Free_Part(a->export_gids, a->export_lids, a->export_procs, a->export_to_part);
    *a->num_import = *a->num_export = 0;
    *a->changes = 0;
  }
  zp_free_list(&eg, &el, &epr, &epa);
  zp_free_list(&ig, &il, &ipr, &ipa);
  free(new_part);
  free(new_proc);
  free(sel);
  free(c->pdist);
  free(c->part_sizes);
  free(c->tol);
  free(c->gids);
  free(c->lids);
  free(c->w);
  free(c->parts);
  free(c->in_parts);
  free(c->coords);
  free(c->nedges);
  free(c->nbr);
  free(c->ewgts);
  if (ierr == ZOLTAN_OK && warn) ierr = ZOLTAN_WARN;
  return ierr;
}

/* ---- services for distributed methods ----------------------------------- */

int zp_ctx_num_local(const zp_context *c) { return c->n; }
int zp_ctx_num_gid_entries(const zp_context *c) { return c->ngid; }
const ZOLTAN_ID_TYPE *zp_ctx_local_gids(const zp_context *c) { return c->gids; }
int zp_ctx_wgt_dim(const zp_context *c) { return c->wdim; }
const double *zp_ctx_local_wgts(const zp_context *c) { return c->w; }
const int *zp_ctx_local_parts(const zp_context *c) { return c->parts; }
int zp_ctx_num_parts(const zp_context *c) { return c->nparts; }
const double *zp_ctx_part_sizes(const zp_context *c) { return c->part_sizes; }
const double *zp_ctx_imbalance_tol(const zp_context *c) { return c->tol; }
MPI_Comm zp_ctx_comm(const zp_context *c) { return c->r->comm; }
const zp_params *zp_ctx_params(const zp_context *c) { return c->r->params; }
struct Zoltan_Struct *zp_ctx_zz(const zp_context *c) { return c->r->zz; }
int zp_ctx_debug_level(const zp_context *c) { return c->debug_level; }
const char *zp_ctx_where(const zp_context *c) { return c->yo; }

/* Put a native parameter back to what the application had set, or to
 * Zoltan's default (Zoltan refuses DEFAULT for some key parameters). */
static void zp_restore_native(zp_record *r, const char *name, const char *zoltan_default)
{
  const char *v = zp_record_native_get(r, name, -1);
  zp_real_set_param_vec(r->zz, name, v ? v : zoltan_default, -1);
}

/* Geometric native methods crash inside Zoltan 13.2 when the application
 * registered no geometry; refuse them on every rank instead. */
static int zp_check_native_inputs(zp_context *c, const char *method)
{
  static const char *const geometric[] = {"RCB", "RIB", "HSFC", NULL};
  ZOLTAN_VOID_FN *num = NULL, *multi = NULL, *one = NULL;
  void *d = NULL;
  int i, have, all;
  for (i = 0; geometric[i] != NULL; i++)
    if (strcmp(method, geometric[i]) == 0) break;
  if (geometric[i] == NULL) return ZOLTAN_OK;
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_NUM_GEOM_FN_TYPE, &num, &d);
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_GEOM_MULTI_FN_TYPE, &multi, &d);
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_GEOM_FN_TYPE, &one, &d);
  have = num != NULL && (multi != NULL || one != NULL);
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, c->r->comm);
  if (!all) {
    zp_error(c->yo, "%s: base method %s needs ZOLTAN_NUM_GEOM_FN and ZOLTAN_GEOM_MULTI_FN (or "
                    "ZOLTAN_GEOM_FN) on every rank", c->r->method->name, method);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* Run a native Zoltan method on the struct with the given part sizes and
 * read the complete assignment back; every setting the application made is
 * restored afterwards, whatever happens. */
static int zp_run_native(zp_context *c, const char *method, const double *sizes, int *new_part)
{
  zp_record *r = c->r;
  int changes, ngid, nlid, nimp = 0, nexp = 0, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  zp_lb_args a = {&changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el, &ep, &epa};
  int ierr = ZOLTAN_OK, i, d, P = c->nparts, *ids = NULL, *idx = NULL, *seen = NULL;
  float *fs = NULL;
  size_t *order = NULL, *tmp = NULL;

  /* Trivial problems never reach Zoltan: its methods fail on some of them
   * (Zoltan 13.2's RCB returns ZOLTAN_MEMERR without a word when no rank
   * holds an object), and the answer is known anyway. */
  int zero_weights = 0;
  ierr = zp_check_native_inputs(c, method);
  if (ierr < 0) return ierr;
  {
    /* Object count and total weight in one reduction. */
    double loc2[2] = {(double)c->n, 0.0}, glob2[2];
    for (i = 0; c->obj_wgt_dim > 0 && i < c->n; i++) loc2[1] += c->w[(size_t)i * c->wdim];
    MPI_Allreduce(loc2, glob2, 2, MPI_DOUBLE, MPI_SUM, r->comm);
    if (P == 1 || glob2[0] == 0.0) {
      for (i = 0; i < c->n; i++) new_part[i] = 0;
      return ZOLTAN_OK;
    }
    /* Zoltan's methods fail when every weight is zero; balance counts then,
     * as the centralised path does, by hiding the weights from Zoltan. */
    zero_weights = c->obj_wgt_dim == 1 && glob2[1] == 0.0;
  }
  ids = malloc(((size_t)P * c->wdim + 1) * sizeof *ids);
  idx = malloc(((size_t)P * c->wdim + 1) * sizeof *idx);
  fs = malloc(((size_t)P * c->wdim + 1) * sizeof *fs);
  order = malloc(((size_t)c->n + 1) * sizeof *order);
  tmp = malloc(((size_t)c->n + 1) * sizeof *tmp);
  seen = calloc((size_t)c->n + 1, sizeof *seen);
  ierr = zp_agree(r->comm, (ids && idx && fs && order && tmp && seen) ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr < 0) goto end;
  for (i = 0; i < P; i++)
    for (d = 0; d < c->wdim; d++) {
      ids[i * c->wdim + d] = i;
      idx[i * c->wdim + d] = d;
      fs[i * c->wdim + d] = (float)sizes[(size_t)i * c->wdim + d];
    }
  ierr = zp_real_set_param_vec(r->zz, "LB_METHOD", method, -1);
  if (ierr != ZOLTAN_OK) {
    zp_error(c->yo, "base method %s is not known to Zoltan", method);
    ierr = ZOLTAN_FATAL;
  }
  ierr = zp_agree(r->comm, ierr);
  if (ierr < 0) goto restore;
  zp_real_set_param_vec(r->zz, "AUTO_MIGRATE", "FALSE", -1);
  zp_real_set_param_vec(r->zz, "RETURN_LISTS", "PARTS", -1);
  if (zero_weights) {
    if (r->rank == 0) zp_warn(c->yo, "every object weight is zero; %s balances object counts", method);
    zp_real_set_param_vec(r->zz, "OBJ_WEIGHT_DIM", "0", -1);
  }
  /* Native methods cut differently with explicit uniform sizes than with
   * none, so sizes equal to the application's unset ones are not set: the
   * base method then answers exactly as it would alone. */
  if (c->sizes_set || memcmp(sizes, c->part_sizes, (size_t)P * c->wdim * sizeof *sizes) != 0) {
    zp_real_set_part_sizes(r->zz, 1, -1, NULL, NULL, NULL);
    zp_real_set_part_sizes(r->zz, 1, P * c->wdim, ids, idx, fs);
  }
  ierr = zp_real_lb_partition(r->zz, &a);
  if (ierr < 0)
    zp_error(c->yo, "%s: base method %s returned error code %d on this rank", r->method->name, method, ierr);
  ierr = zp_agree(r->comm, ierr);
  if (ierr < 0) goto restore;
  /* The complete list names every local object once; match it by GID. */
  for (i = 0; i < c->n; i++) order[i] = (size_t)i;
  zp_sort_by_gid(order, tmp, (size_t)c->n, c->gids, c->ngid);
  {
    ZOLTAN_ID_TYPE *sg = malloc(((size_t)c->n * c->ngid + 1) * sizeof *sg);
    int bad = sg == NULL || nexp != c->n;
    for (i = 0; !bad && i < c->n; i++) memcpy(sg + (size_t)i * c->ngid, c->gids + order[i] * c->ngid, (size_t)c->ngid * sizeof *sg);
    for (i = 0; !bad && i < nexp; i++) {
      long k = zp_find_gid(sg, (size_t)c->n, eg + (size_t)i * c->ngid, c->ngid);
      if (k < 0 || seen[order[k]]) {
        bad = 1;
        break;
      }
      seen[order[k]] = 1;
      new_part[order[k]] = epa[i];
    }
    free(sg);
    if (bad) zp_error(c->yo, "base method %s returned an assignment that does not match the local objects", method);
    ierr = zp_agree(r->comm, bad ? ZOLTAN_FATAL : ierr);
  }
restore:
  zp_restore_native(r, "LB_METHOD", "RCB");
  zp_restore_native(r, "AUTO_MIGRATE", "FALSE");
  zp_restore_native(r, "RETURN_LISTS", "ALL");
  if (zero_weights) zp_restore_native(r, "OBJ_WEIGHT_DIM", "0");
  zp_real_set_part_sizes(r->zz, 1, -1, NULL, NULL, NULL);
  for (i = 0; i < (int)r->n_psizes; i++) {
    zp_part_size_entry *e = &r->psizes[i];
    float f = (float)e->size;
    zp_real_set_part_sizes(r->zz, e->global_num, 1, &e->part_id, &e->wgt_idx, &f);
  }
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
end:
  free(ids);
  free(idx);
  free(fs);
  free(order);
  free(tmp);
  free(seen);
  return ierr;
}

int zp_ctx_run_base(zp_context *c, const char *method, const double *part_sizes, int *new_part)
{
  char clean[ZP_NAME_MAX];
  const zp_method *m;
  int ierr;
  if (c == NULL || method == NULL || part_sizes == NULL || new_part == NULL ||
      zp_clean_string(method, clean, sizeof clean) != 0) {
    zp_error("zp_ctx_run_base", "invalid arguments");
    return ZOLTAN_FATAL;
  }
  m = zp_find_method(clean);
  if (m == NULL) return zp_run_native(c, clean, part_sizes, new_part);
  if (m == c->r->method || m->partition_serial == NULL) {
    zp_error(c->yo, "base method %s must be a native method or a centralised plugin method other than %s", clean,
             c->r->method->name);
    return ZOLTAN_FATAL;
  }
  {
    /* Run the centralised method as if it were selected, with our sizes. */
    const zp_method *saved_m = c->r->method;
    double *saved_sizes = c->part_sizes;
    void *saved_state = c->r->state;
    const zp_method *saved_owner = c->r->state_owner;
    void *state = NULL;
    if (m->create != NULL && m->create(&state) != ZOLTAN_OK) state = NULL;
    c->r->method = m;
    c->r->state = state;
    c->r->state_owner = m;
    c->part_sizes = (double *)part_sizes;
    ierr = zp_run_serial(c, new_part);
    c->part_sizes = saved_sizes;
    c->r->method = saved_m;
    c->r->state = saved_state;
    c->r->state_owner = saved_owner;
    if (state != NULL && m->destroy != NULL) m->destroy(state);
  }
  return ierr;
}
