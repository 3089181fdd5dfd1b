/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hypergraph read as a graph, for centralised methods that take
 * ZP_GRAPH_FROM_HYPERGRAPH (zp_method.h): every rank lists the (net, pin)
 * pairs its hypergraph callbacks give, whatever their compressed format; the
 * root merges the pairs of all ranks by net, so that a net listed in pieces
 * by several ranks is one net, and turns each net into edges between its
 * pins.
 */
#include <stdlib.h>
#include <string.h>

#include "zp_internal.h"
#include "zp_partition_internal.h"

static int zp_hg_cb_ok(int ierr) { return ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN; }

/* Call the callbacks and turn their lists into pairs.  Local. */
static int zp_hg_call(zp_context *c, ZOLTAN_VOID_FN *size_fn, void *size_data,
                      ZOLTAN_VOID_FN *cs_fn, void *cs_data, const char *who)
{
  int ierr = ZOLTAN_OK, nlists = 0, npins = 0, format = 0, *starts = NULL, l, j;
  size_t G = (size_t)c->ngid;
  ZOLTAN_ID_TYPE *lists = NULL, *pins = NULL;
  ((ZOLTAN_HG_SIZE_CS_FN *)size_fn)(size_data, &nlists, &npins, &format, &ierr);
  if (!zp_hg_cb_ok(ierr) || nlists < 0 || npins < 0 ||
      (format != ZOLTAN_COMPRESSED_EDGE && format != ZOLTAN_COMPRESSED_VERTEX)) {
    zp_error(c->yo,
             "%s: ZOLTAN_HG_SIZE_CS_FN returned error code %d (%d lists, %d pins, format %d)", who,
             ierr, nlists, npins, format);
    return ZOLTAN_FATAL;
  }
  lists = malloc(((size_t)nlists * G + 1) * sizeof *lists);
  starts = malloc(((size_t)nlists + 1) * sizeof *starts);
  pins = malloc(((size_t)npins * G + 1) * sizeof *pins);
  c->hg_pairs = malloc(((size_t)npins * 2 * G + 1) * sizeof *c->hg_pairs);
  if (lists == NULL || starts == NULL || pins == NULL || c->hg_pairs == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  ierr = ZOLTAN_OK;
  ((ZOLTAN_HG_CS_FN *)cs_fn)(cs_data, c->ngid, nlists, npins, format, lists, starts, pins, &ierr);
  if (!zp_hg_cb_ok(ierr)) {
    zp_error(c->yo, "%s: ZOLTAN_HG_CS_FN returned error code %d", who, ierr);
    ierr = ZOLTAN_FATAL;
    goto End;
  }
  ierr = ZOLTAN_OK;
  starts[nlists] = npins;
  for (l = 0; l < nlists; l++) {
    if (starts[l] < 0 || starts[l] > starts[l + 1] || starts[l + 1] > npins) {
      zp_error(c->yo, "%s: ZOLTAN_HG_CS_FN gave list %d pins %d to %d of %d", who, l, starts[l],
               starts[l + 1], npins);
      ierr = ZOLTAN_FATAL;
      goto End;
    }
    for (j = starts[l]; j < starts[l + 1]; j++) {
      /* Edge format: the lists are nets and the pins vertices; vertex
       * format the other way round. */
      const ZOLTAN_ID_TYPE *net = format == ZOLTAN_COMPRESSED_EDGE ? lists + l * G : pins + j * G;
      const ZOLTAN_ID_TYPE *pin = format == ZOLTAN_COMPRESSED_EDGE ? pins + j * G : lists + l * G;
      memcpy(c->hg_pairs + (size_t)c->hg_npairs * 2 * G, net, G * sizeof *net);
      memcpy(c->hg_pairs + (size_t)c->hg_npairs * 2 * G + G, pin, G * sizeof *pin);
      c->hg_npairs++;
    }
  }
End:
  free(lists);
  free(starts);
  free(pins);
  return ierr;
}

int zp_hg_read_pairs(zp_context *c, const char *who)
{
  ZOLTAN_VOID_FN *size_fn = NULL, *cs_fn = NULL;
  void *size_data = NULL, *cs_data = NULL;
  int here, all = 0, ierr;
  if (c->hg_as_graph) return ZOLTAN_OK; /* read earlier in this call */
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_HG_SIZE_CS_FN_TYPE, &size_fn, &size_data);
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_HG_CS_FN_TYPE, &cs_fn, &cs_data);
  here = size_fn != NULL && cs_fn != NULL;
  MPI_Allreduce(&here, &all, 1, MPI_INT, MPI_MIN, c->r->comm);
  if (!all) return ZOLTAN_OK;
  ierr = zp_agree(c, zp_hg_call(c, size_fn, size_data, cs_fn, cs_data, who));
  if (ierr >= 0) c->hg_as_graph = 1;
  return ierr;
}

/* One directed edge of the graph being built. */
typedef struct zp_hg_edge {
  size_t u, v; /* object positions */
  double w;    /* weight */
} zp_hg_edge;

/* A growable list of edges. */
typedef struct zp_hg_edges {
  zp_hg_edge *e;
  size_t n, cap;
} zp_hg_edges;

static int zp_hg_add(zp_hg_edges *l, size_t u, size_t v, double w)
{
  size_t k;
  for (k = 0; k < 2; k++) {
    if (l->n == l->cap) {
      zp_hg_edge *g = zp_grow(l->e, &l->cap, l->n + 1, sizeof *l->e, 64);
      if (g == NULL) return ZOLTAN_MEMERR;
      l->e = g;
    }
    l->e[l->n].u = k ? v : u;
    l->e[l->n].v = k ? u : v;
    l->e[l->n].w = w;
    l->n++;
  }
  return ZOLTAN_OK;
}

static int zp_hg_edge_cmp(const void *a, const void *b)
{
  const zp_hg_edge *x = a, *y = b;
  if (x->u != y->u) return x->u < y->u ? -1 : 1;
  return x->v < y->v ? -1 : (x->v > y->v);
}

/* The edges of one net whose k distinct pins are at positions pos. */
static int zp_hg_net(zp_hg_edges *l, const size_t *pos, size_t k)
{
  size_t a, b;
  int ierr = ZOLTAN_OK;
  if (k <= ZP_HG_CLIQUE_MAX) {
    for (a = 0; a < k && ierr == ZOLTAN_OK; a++)
      for (b = a + 1; b < k && ierr == ZOLTAN_OK; b++)
        ierr = zp_hg_add(l, pos[a], pos[b], 1.0 / (double)(k - 1));
  } else {
    for (a = 0; a < k && ierr == ZOLTAN_OK; a++) ierr = zp_hg_add(l, pos[a], pos[(a + 1) % k], 0.5);
  }
  return ierr;
}

/* Walk the pairs in (net, pin) order (idx) and collect the nets' edges. */
static int zp_hg_walk(const zp_context *c, size_t N, const ZOLTAN_ID_TYPE *sorted_gids,
                      const ZOLTAN_ID_TYPE *P, const size_t *idx, size_t npairs, zp_hg_edges *l,
                      size_t *pos)
{
  size_t G = (size_t)c->ngid, i = 0, dropped = 0;
  int ierr = ZOLTAN_OK;
  while (i < npairs && ierr == ZOLTAN_OK) {
    const ZOLTAN_ID_TYPE *net = P + idx[i] * 2 * G;
    size_t k = 0, j = i;
    for (; j < npairs && memcmp(P + idx[j] * 2 * G, net, G * sizeof *net) == 0; j++) {
      const ZOLTAN_ID_TYPE *pin = P + idx[j] * 2 * G + G;
      long t;
      if (j > i && memcmp(P + idx[j - 1] * 2 * G + G, pin, G * sizeof *pin) == 0) continue;
      t = zp_find_gid(sorted_gids, N, pin, c->ngid);
      if (t < 0) {
        if (dropped++ == 0 && (c->needs & ZP_STRICT_GRAPH)) {
          char g[ZP_GID_TEXT], h[ZP_GID_TEXT];
          zp_format_gid(net, c->ngid, g, sizeof g);
          zp_format_gid(pin, c->ngid, h, sizeof h);
          zp_error(c->yo,
                   "method %s: net %s has pin %s, which is no object of any rank; fix the "
                   "hypergraph callbacks (ZOLTAN_HG_CS_FN)",
                   c->r->method->name, g, h);
        }
        continue;
      }
      pos[k++] = (size_t)t;
    }
    ierr = zp_hg_net(l, pos, k);
    i = j;
  }
  if (ierr == ZOLTAN_OK && dropped && (c->needs & ZP_STRICT_GRAPH)) ierr = ZOLTAN_FATAL;
  if (ierr == ZOLTAN_OK && dropped)
    zp_warn(c->yo, "%zu pins name objects that do not exist; ignored", dropped);
  return ierr;
}

int zp_hg_graph(const zp_context *c, size_t N, const ZOLTAN_ID_TYPE *sorted_gids,
                const unsigned char *pairs, size_t npairs, size_t **adj_start, size_t **adj,
                double **ew)
{
  size_t G = (size_t)c->ngid, k, m = 0, *idx = malloc((npairs + 1) * sizeof *idx);
  size_t *tmp = malloc((npairs + 1) * sizeof *tmp), *pos = malloc((npairs + 1) * sizeof *pos);
  ZOLTAN_ID_TYPE *P = malloc((npairs * 2 * G + 1) * sizeof *P);
  zp_hg_edges l = {NULL, 0, 0};
  int ierr = ZOLTAN_OK;
  *adj_start = malloc((N + 1) * sizeof **adj_start);
  if (!idx || !tmp || !pos || !P || !*adj_start) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  memcpy(P, pairs, npairs * 2 * G * sizeof *P);
  for (k = 0; k < npairs; k++) idx[k] = k;
  zp_sort_by_gid(idx, tmp, npairs, P, (int)(2 * G));
  if ((ierr = zp_hg_walk(c, N, sorted_gids, P, idx, npairs, &l, pos)) != ZOLTAN_OK) goto End;
  qsort(l.e, l.n, sizeof *l.e, zp_hg_edge_cmp);
  *adj = malloc((l.n + 1) * sizeof **adj);
  *ew = malloc((l.n + 1) * sizeof **ew);
  if (!*adj || !*ew) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  /* Rows in position order, an edge that several nets give summed. */
  for (k = 0; k < l.n; k++) {
    if (m > 0 && l.e[k].u == l.e[k - 1].u && l.e[k].v == l.e[k - 1].v) {
      (*ew)[m - 1] += l.e[k].w;
      continue;
    }
    (*adj)[m] = l.e[k].v;
    (*ew)[m++] = l.e[k].w;
  }
  for (k = 0; k <= N; k++) (*adj_start)[k] = 0;
  for (k = 0; k < l.n; k++)
    if (!(k > 0 && l.e[k].u == l.e[k - 1].u && l.e[k].v == l.e[k - 1].v))
      (*adj_start)[l.e[k].u + 1]++;
  for (k = 0; k < N; k++) (*adj_start)[k + 1] += (*adj_start)[k];
End:
  free(idx);
  free(tmp);
  free(pos);
  free(P);
  free(l.e);
  return ierr;
}
