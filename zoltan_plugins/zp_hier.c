/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HIERARCHY: whether a centralised method's call runs on a tree of groups
 * instead of one root, and the tree's communicators (kept in the struct's
 * record from one call to the next, rebuilt when the shape changes).  The
 * run itself is in zp_hier_run.c, the decisions in hierarchy/hier_core.c;
 * docs/hierarchy.md describes the whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_hier_internal.h"

/* ---- the communicators ---------------------------------------------------- */

static void zp_hier_comms_free(zp_hier_comms *h)
{
  int j, fin = 0;
  if (h == NULL) return;
  MPI_Finalized(&fin);
  if (!fin) {
    if (h->group != MPI_COMM_NULL) MPI_Comm_free(&h->group);
    for (j = 1; j <= h->nup; j++)
      if (h->up[j] != MPI_COMM_NULL) MPI_Comm_free(&h->up[j]);
    if (h->bottom_roots != MPI_COMM_NULL) MPI_Comm_free(&h->bottom_roots);
  }
  for (j = 0; j <= HIER_MAX_LEVELS; j++) {
    free(h->roots[j]);
    free(h->recs[j]);
    free(h->cnt[j]);
    free(h->displ[j]);
  }
  free(h->members);
  free(h);
}

/* The group root's list of its members' ranks in the struct's
 * communicator, ascending (a part belongs to the group of its first rank). */
static int zp_hier_members(const zp_record *r, zp_hier_comms *h)
{
  MPI_Group whole, mine;
  int i, n, *local, ierr = ZOLTAN_OK;
  MPI_Comm_size(h->group, &n);
  h->nmembers = n;
  h->members = malloc((size_t)n * sizeof *h->members);
  local = malloc((size_t)n * sizeof *local);
  if (h->members == NULL || local == NULL) {
    ierr = ZOLTAN_MEMERR;
  } else {
    for (i = 0; i < n; i++) local[i] = i;
    MPI_Comm_group(h->group, &mine);
    MPI_Comm_group(r->comm, &whole);
    MPI_Group_translate_ranks(mine, n, local, whole, h->members);
    MPI_Group_free(&mine);
    MPI_Group_free(&whole);
  }
  free(local);
  return ierr;
}

/* Builds the tree for spec: the bottom groups (consecutive ranks, or the
 * ranks of one shared-memory node), then one communicator per upper level
 * joining the roots of the level below within one node of that level; the
 * last joins every remaining root.  Collective over r->comm. */
static int zp_hier_build(const zp_record *r, const hier_spec *spec, zp_hier_comms **out)
{
  zp_hier_comms *h = calloc(1, sizeof *h);
  int j, root, span, sub = 0, ierr = ZOLTAN_OK;
  if (h == NULL) return ZOLTAN_MEMERR;
  h->spec = *spec;
  h->group = MPI_COMM_NULL;
  h->bottom_roots = MPI_COMM_NULL;
  for (j = 0; j <= HIER_MAX_LEVELS; j++) h->up[j] = MPI_COMM_NULL;
  if (spec->kind == HIER_NODE) {
    MPI_Comm_split_type(r->comm, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &h->group);
    h->nup = 1;
  } else {
    MPI_Comm_split(r->comm, r->rank / spec->size[0], r->rank, &h->group);
    h->nup = spec->nlevels;
  }
  MPI_Comm_rank(h->group, &sub);
  root = sub == 0;
  /* Every bottom root, in group order, for the flows between groups
   * (zp_hier_flow.c): groups of consecutive ranks only. */
  if (spec->kind == HIER_SIZES)
    MPI_Comm_split(r->comm, root ? 0 : MPI_UNDEFINED, r->rank, &h->bottom_roots);
  span = spec->kind == HIER_NODE ? 1 : spec->size[0];
  for (j = 1; j <= h->nup; j++) {
    /* Level j joins size[j] nodes of level j - 1; the last level all. */
    int color = 0;
    if (j < h->nup) {
      span *= spec->size[j];
      color = r->rank / span;
    }
    MPI_Comm_split(r->comm, root ? color : MPI_UNDEFINED, r->rank, &h->up[j]);
    if (root) {
      int m;
      MPI_Comm_rank(h->up[j], &sub);
      MPI_Comm_size(h->up[j], &m);
      root = sub == 0;
      if (root) {
        h->m[j] = m;
        h->end[j] = j < h->nup && (color + 1) * span < r->size ? (color + 1) * span : r->size;
        h->roots[j] = malloc((size_t)m * sizeof *h->roots[j]);
        h->recs[j] = malloc(4 * (size_t)m * sizeof *h->recs[j]);
        h->cnt[j] = malloc((size_t)m * sizeof *h->cnt[j]);
        h->displ[j] = malloc((size_t)m * sizeof *h->displ[j]);
        if (!h->roots[j] || !h->recs[j] || !h->cnt[j] || !h->displ[j]) ierr = ZOLTAN_MEMERR;
      }
      MPI_Gather(&r->rank, 1, MPI_INT, root ? h->roots[j] : NULL, 1, MPI_INT, 0, h->up[j]);
    }
  }
  MPI_Comm_rank(h->group, &sub);
  if (sub == 0 && ierr == ZOLTAN_OK) ierr = zp_hier_members(r, h);
  *out = h;
  return ierr;
}

/* ---- the decision ---------------------------------------------------------- */

/* The shape AUTO takes: Zoltan's TOPOLOGY where the application set it
 * (with the meaning it has for Zoltan's HIER method), else groups of
 * HIERARCHY_FAN.  A TOPOLOGY that cannot be read or does not fit the ranks
 * is an error naming it.  Local; the same on every rank. */
static int zp_hier_auto_shape(const zp_context *c, hier_spec *spec)
{
  const char *topo = zp_record_native_get(c->r, "TOPOLOGY", -1);
  char why[160];
  int fan = 64;
  if (topo != NULL && topo[0] != '\0') {
    if (hier_parse(topo, 1, spec, why, sizeof why) != 0 ||
        hier_check_fit(spec, c->r->size, why, sizeof why) != 0) {
      zp_error(c->yo, "TOPOLOGY = %s (read by HIERARCHY = AUTO): %s", topo, why);
      return ZOLTAN_FATAL;
    }
    return ZOLTAN_OK;
  }
  (void)zp_param_int(c->r->params, "HIERARCHY_FAN", &fan, NULL);
  spec->kind = HIER_SIZES;
  spec->nlevels = hier_auto_sizes(c->r->size, fan, spec->size);
  if (spec->nlevels == 0) spec->kind = HIER_NONE;
  return ZOLTAN_OK;
}

/* The tree this call runs on (spec->kind == HIER_NONE for the flat path)
 * and, for a tree, the weight totals and the object count over every rank
 * (totals: wdim + 1 entries).  AUTO turns the tree on from
 * HIERARCHY_MIN_RANKS ranks, or when the root of the flat path would
 * receive more than HIERARCHY_MAX_BYTES (global ID, weights, part and rank
 * of every object).  A malformed HIERARCHY, sizes that do not fit the
 * ranks, or a malformed TOPOLOGY that AUTO reads, is an error naming the
 * value on every rank.  One allreduce carries the verdicts and the sums.
 * Collective. */
static int zp_hier_decide(const zp_context *c, hier_spec *spec, double *sums, int *auto_on)
{
  const char *value = "NONE";
  char why[160];
  int min_ranks = 1024, i, d, err = 0, nd = c->wdim <= ZP_HIER_SUM_DIMS ? c->wdim : 0;
  double max_bytes = 2e9, count;
  *auto_on = 0;
  memset(spec, 0, sizeof *spec);
  (void)zp_param_string(c->r->params, "HIERARCHY", &value);
  if (hier_parse(value, 0, spec, why, sizeof why) != 0 ||
      hier_check_fit(spec, c->r->size, why, sizeof why) != 0) {
    zp_error(c->yo, "HIERARCHY = %s: %s", value, why);
    err = 1;
  }
  sums[0] = err;
  sums[1] = (double)c->n;
  for (d = 0; d < nd; d++) {
    sums[2 + d] = 0.0;
    for (i = 0; !err && spec->kind != HIER_NONE && i < c->n; i++)
      sums[2 + d] += c->w[(size_t)i * c->wdim + d];
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, nd + 2, MPI_DOUBLE, MPI_SUM, c->r->comm);
  if (sums[0] > 0.0) return ZOLTAN_FATAL;
  /* In place, the totals as zp_run_hier takes them: weights, then the
   * count. */
  count = sums[1];
  for (d = 0; d < nd; d++) sums[d] = sums[2 + d];
  sums[nd] = count;
  if (spec->kind != HIER_AUTO) return ZOLTAN_OK;
  (void)zp_param_int(c->r->params, "HIERARCHY_MIN_RANKS", &min_ranks, NULL);
  (void)zp_param_double(c->r->params, "HIERARCHY_MAX_BYTES", &max_bytes, NULL);
  if (c->r->size >= 2 &&
      (c->r->size >= min_ranks || count * ((double)c->ngid * sizeof(ZOLTAN_ID_TYPE) +
                                           (double)c->wdim * sizeof(double) + 2.0 * sizeof(int)) >
                                      max_bytes)) {
    *auto_on = 1;
    return zp_hier_auto_shape(c, spec);
  }
  spec->kind = HIER_NONE;
  return ZOLTAN_OK;
}

static int zp_hier_same(const hier_spec *a, const hier_spec *b)
{
  int i;
  if (a->kind != b->kind || a->nlevels != b->nlevels) return 0;
  for (i = 0; i < a->nlevels; i++)
    if (a->size[i] != b->size[i]) return 0;
  return 1;
}

/* ---- the entry -------------------------------------------------------------- */

int zp_run_central(zp_context *c, int *new_part)
{
  hier_spec spec;
  /* The decision's sums: errors, objects, then up to ZP_HIER_SUM_DIMS
   * weights (zp_run_hier sums more itself). */
  double sums[2 + ZP_HIER_SUM_DIMS], *totals = NULL;
  int warned = 0, auto_on = 0, ierr;
  /* The verdicts travel in the decision's allreduce; only the TOPOLOGY that
   * AUTO reads (local) needs an agreement, when AUTO turned on (which every
   * rank knows alike). */
  ierr = zp_hier_decide(c, &spec, sums, &auto_on);
  if (auto_on) ierr = zp_agree(c, ierr);
  if (ierr < 0) return ierr;
  if (c->wdim <= ZP_HIER_SUM_DIMS) totals = sums;
  /* Coordinates do not travel by groups, nor does a hypergraph read as a
   * graph (it exists as the root's clique model only). */
  if (spec.kind != HIER_NONE &&
      (!(c->needs & ZP_HIERARCHICAL) || (c->needs & ZP_NEEDS_GEOM) ||
       ((c->needs & (ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH)) && c->hg_as_graph))) {
    /* Asked for by name, not given: say so (a warning on every rank)
     * rather than gather in silence. */
    warned = zp_hier_explicit(c);
    if (warned && c->r->rank == ZP_ROOT)
      zp_warn(c->yo, "method %s cannot run by groups (HIERARCHY); gathered on one rank",
              c->r->method->name);
    spec.kind = HIER_NONE;
  }
  if (spec.kind == HIER_NONE) {
    int sorted = 0;
    /* A method of the weights in weight order runs without the gather when
     * the objects allow it (zp_sorted.c), with the same answer. */
    ierr = zp_run_sorted(c, new_part, &sorted);
    if (!sorted)
      ierr = (c->needs & ZP_GATHER_CANDIDATES) ? zp_run_serial_candidates(c, new_part)
                                               : zp_run_serial(c, new_part);
    return ierr == ZOLTAN_OK && warned ? ZOLTAN_WARN : ierr;
  }
  if (c->r->hier == NULL || !zp_hier_same(&c->r->hier->spec, &spec)) {
    zp_hier_release(c->r);
    ierr = zp_hier_build(c->r, &spec, &c->r->hier);
    c->r->hier_free = zp_hier_comms_free;
    ierr = zp_agree(c, ierr);
    if (ierr < 0) {
      zp_hier_release(c->r);
      return ierr;
    }
  }
  return zp_run_hier(c, c->r->hier, totals, new_part);
}

int zp_hier_explicit(const zp_context *c)
{
  const char *value = "NONE";
  (void)zp_param_string(c->r->params, "HIERARCHY", &value);
  return strcmp(value, "AUTO") != 0 && strcmp(value, "NONE") != 0;
}
