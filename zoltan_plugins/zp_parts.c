/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parts for our methods, exactly as Zoltan computes them: which ranks hold
 * which parts (NUM_GLOBAL_PARTS, NUM_LOCAL_PARTS), where an object of a part
 * goes, and the target size of every part (Zoltan_LB_Set_Part_Sizes).
 */
#include <stdlib.h>

#include "zp_partition_internal.h"

/* Zoltan's hash of a global ID onto [0, n), exported by libzoltan but not
 * declared in its public headers.  Using it keeps our part-to-process map
 * identical to Zoltan_LB_Part_To_Proc when a part spans several ranks. */
extern unsigned int Zoltan_Hash(ZOLTAN_ID_PTR key, int num_id_entries, unsigned int n);

/* No NUM_LOCAL_PARTS anywhere: G parts spread evenly over P ranks (several
 * parts per rank), or P ranks evenly over G parts (parts spanning ranks). */
static void zp_dist_even(zp_context *c, int G, int P)
{
  int i, j, cnt;
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
}

/* NUM_LOCAL_PARTS on lset ranks (suml parts in all): those ranks get their
 * own count, the others share what is left of the G parts evenly.
 * Collective: a rank short of memory must not skip the Allgather alone. */
static int zp_dist_local(zp_context *c, int G, int P, int nlp, int lset, int suml)
{
  int remaining = P - lset, avail = G - suml, frac = 0, mod = 0, pcnt = 0, cnt = 0, i, j;
  int *nlps = malloc((size_t)P * sizeof *nlps);
  int ierr = zp_agree(c, nlps != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr < 0) goto End;
  MPI_Allgather(&nlp, 1, MPI_INT, nlps, 1, MPI_INT, c->r->comm);
  if (remaining > 0) {
    frac = avail / remaining;
    mod = avail % remaining;
  }
  for (i = 0; i < P; i++) {
    int k;
    if (nlps[i] != -1) {
      k = nlps[i];
    } else {
      k = frac + ((remaining - pcnt) <= mod);
      pcnt++;
    }
    for (j = 0; j < k && cnt < G; j++) c->pdist[cnt++] = i;
  }
End:
  free(nlps);
  return ierr;
}

/* Distribute parts to ranks exactly as Zoltan does from NUM_GLOBAL_PARTS and
 * NUM_LOCAL_PARTS, so that a part's rank is the one Zoltan would choose.
 * Every branch depends on reduced values only, so all ranks take it. */
int zp_build_part_dist(zp_context *c)
{
  zp_record *r = c->r;
  int P = r->size, ngp = zp_record_native_int(r, "NUM_GLOBAL_PARTS", -1);
  int nlp = zp_record_native_int(r, "NUM_LOCAL_PARTS", -1);
  int in[3], out[3], G = 0, gset, lset = 0, suml = 0, ierr;

  /* Whether some rank set each parameter and the largest NUM_GLOBAL_PARTS
   * in one reduction; the count of ranks that set NUM_LOCAL_PARTS and their
   * sum only when some rank did (every rank knows it from the first). */
  if (c->settings_read) {
    /* zp_read_settings' reduction carried them. */
    out[0] = c->ngp_set;
    out[1] = c->nlp_set;
    out[2] = c->ngp_max;
  } else {
    in[0] = ngp != -1;
    in[1] = nlp != -1;
    in[2] = ngp;
    MPI_Allreduce(in, out, 3, MPI_INT, MPI_MAX, r->comm);
  }
  gset = out[0];
  G = out[2];
  if (out[1]) {
    int local[2] = {nlp != -1, nlp == -1 ? 0 : nlp}, sum[2];
    MPI_Allreduce(local, sum, 2, MPI_INT, MPI_SUM, r->comm);
    lset = sum[0];
    suml = sum[1];
  }
  c->pdist = NULL;
  c->single_proc = 1;
  if ((!gset || G == P) && !lset) {
    c->nparts = P;
    return ZOLTAN_OK;
  }
  if (c->is_balance) {
    zp_error(c->yo,
             "Non-uniform distribution of parts over processors is specified "
             "(NUM_GLOBAL_PARTS=%d, NUM_LOCAL_PARTS=%d); use Zoltan_LB_Partition.",
             G, nlp);
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
  /* Every rank comes here or returned above alike (the figures are
   * reduced); what follows may fail on one rank only, so it is agreed, and
   * the function returns the same code on every rank. */
  c->pdist = malloc(((size_t)G + 1) * sizeof *c->pdist);
  if (c->pdist == NULL) return zp_agree(c, ZOLTAN_MEMERR);
  ierr = ZOLTAN_OK;
  if (!lset)
    zp_dist_even(c, G, P);
  else
    ierr = zp_dist_local(c, G, P, nlp, lset, suml);
  c->pdist[G] = P;
  c->nparts = G;
  return zp_agree(c, ierr);
}

int zp_first_part_of(const zp_context *c, int rank)
{
  int p;
  if (c->pdist == NULL) return rank;
  for (p = 0; p < c->nparts; p++) {
    if (c->single_proc ? c->pdist[p] == rank : (c->pdist[p] <= rank && rank < c->pdist[p + 1]))
      return p;
  }
  return -1;
}

int zp_part_to_proc(const zp_context *c, int part, ZOLTAN_ID_TYPE *gid)
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

/* This rank's recorded sizes into sizes (nparts * wdim, -1 where unset),
 * local part numbers translated.  Negative or NaN sizes are errors. */
static int zp_local_part_sizes(const zp_context *c, double *sizes)
{
  const zp_record *r = c->r;
  size_t n = (size_t)c->nparts * (size_t)c->wdim, i;
  int ierr = ZOLTAN_OK, fpart = zp_first_part_of(c, r->rank);
  for (i = 0; i < n; i++) sizes[i] = -1.0;
  for (i = 0; i < r->n_psizes; i++) {
    const zp_part_size_entry *e = &r->psizes[i];
    int part = e->part_id + (e->global_num ? 0 : fpart);
    if (e->wgt_idx < 0 || e->wgt_idx >= c->wdim) continue; /* Zoltan ignores them too */
    if (!(e->size >= 0.0)) {
      zp_error(c->yo, "part size %g for part %d (weight %d) is negative or NaN", e->size,
               e->part_id, e->wgt_idx);
      ierr = ZOLTAN_FATAL;
      continue;
    }
    if (part < 0 || part >= c->nparts || (!e->global_num && fpart < 0)) {
      zp_warn(c->yo, "part size given for part %d, but there are %d parts; ignored", part,
              c->nparts);
      if (ierr == ZOLTAN_OK) ierr = ZOLTAN_WARN;
      continue;
    }
    sizes[(size_t)part * (size_t)c->wdim + (size_t)e->wgt_idx] = e->size;
  }
  return ierr;
}

/* Unset sizes are 1; each column is normalised to sum 1. */
static int zp_normalise_part_sizes(zp_context *c)
{
  int d, p;
  for (d = 0; d < c->wdim; d++) {
    double s = 0.0;
    for (p = 0; p < c->nparts; p++) {
      double *v = &c->part_sizes[(size_t)p * c->wdim + d];
      if (*v < 0.0) *v = 1.0;
      s += *v;
    }
    if (!(s > 0.0)) {
      zp_error(c->yo, "sum of part sizes for weight %d is zero", d);
      return ZOLTAN_FATAL;
    }
    for (p = 0; p < c->nparts; p++) c->part_sizes[(size_t)p * c->wdim + d] /= s;
  }
  return ZOLTAN_OK;
}

/* Part sizes as Zoltan_LB_Get_Part_Sizes computes them: sizes set on any
 * rank win (largest if several), unset ones are 1, each column sums to 1.
 * Negative or NaN sizes are errors here, where Zoltan silently used 1. */
int zp_build_part_sizes(zp_context *c)
{
  zp_record *r = c->r;
  size_t n = (size_t)c->nparts * (size_t)c->wdim, i;
  double *mine = malloc(n * sizeof *mine);
  int ierr = ZOLTAN_OK, any = r->n_psizes > 0;

  c->part_sizes = malloc(n * sizeof *c->part_sizes);
  if (c->part_sizes == NULL || mine == NULL)
    ierr = ZOLTAN_MEMERR;
  else
    ierr = zp_local_part_sizes(c, mine);
  /* The agreed code is the one returned: a warning on one rank (a size
   * for a part that does not exist) is a warning everywhere. */
  ierr = zp_agree(c, ierr);
  if (ierr < 0) goto End;
  if (c->settings_read)
    any = c->psizes_set; /* zp_read_settings' reduction carried it */
  else
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, r->comm);
  c->sizes_set = any;
  if (!any) {
    for (i = 0; i < n; i++) c->part_sizes[i] = 1.0 / c->nparts;
    goto End;
  }
  MPI_Allreduce(mine, c->part_sizes, (int)n, MPI_DOUBLE, MPI_MAX, r->comm);
  if (zp_normalise_part_sizes(c) < 0) ierr = ZOLTAN_FATAL;
End:
  free(mine);
  return ierr;
}
