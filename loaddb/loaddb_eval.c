/* SPDX-License-Identifier: BSD-3-Clause */
/* The figures of an assignment of a recorded problem (loaddb_eval.h). */
#include <stdlib.h>
#include <string.h>

#include "loaddb_eval.h"

size_t loaddb_find(const loaddb_dump *d, const unsigned long *key)
{
  size_t lo = 0, hi = d->nobj;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int k, c = 0;
    for (k = 0; k < d->ngid && c == 0; k++) {
      unsigned long a = d->gids[mid * (size_t)d->ngid + (size_t)k];
      c = a < key[k] ? -1 : a > key[k];
    }
    if (c == 0) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return d->nobj;
}

/* Whether the objects' IDs are one entry each and consecutive, so that an
 * ID's index is its distance from the first. */
static int consecutive_ids(const loaddb_dump *d)
{
  size_t i;
  if (d->ngid != 1 || d->nobj == 0) return 0;
  for (i = 1; i < d->nobj; i++)
    if (d->gids[i] != d->gids[0] + i) return 0;
  return 1;
}

size_t *loaddb_edge_index(const loaddb_dump *d)
{
  size_t *far = malloc((d->nedges + 1) * sizeof *far), q;
  if (far == NULL) return NULL;
  if (consecutive_ids(d)) {
    for (q = 0; q < d->nedges; q++) {
      unsigned long g = d->nbr[q];
      far[q] = g >= d->gids[0] && g - d->gids[0] < d->nobj ? (size_t)(g - d->gids[0]) : d->nobj;
    }
  } else {
    for (q = 0; q < d->nedges; q++) far[q] = loaddb_find(d, d->nbr + q * (size_t)d->ngid);
  }
  return far;
}

int loaddb_evaluate(const loaddb_dump *d, const int *new_part, int parts, double comm_cost,
                    loaddb_eval *out)
{
  /* The far ends found at once (arithmetic for consecutive IDs) rather than
   * searched per edge; without memory for them, searched per edge. */
  size_t *far = loaddb_edge_index(d);
  int rc = loaddb_evaluate_indexed(d, far, new_part, parts, comm_cost, out);
  free(far);
  return rc;
}

int loaddb_evaluate_indexed(const loaddb_dump *d, const size_t *far, const int *new_part, int parts,
                            double comm_cost, loaddb_eval *out)
{
  double *load, tot = 0.0;
  size_t i, q;
  int p;
  memset(out, 0, sizeof *out);
  if (parts < 1) return -1;
  for (i = 0; i < d->nobj; i++)
    if (new_part[i] < 0 || new_part[i] >= parts) return -1;
  /* Per part: its load, then the weight of its edges that leave it. */
  load = calloc((size_t)parts * 2, sizeof *load);
  if (load == NULL) return -1;
  for (i = 0; i < d->nobj; i++) {
    double w = d->wgts[i * (size_t)d->wdim];
    load[new_part[i]] += w;
    tot += w;
    if (new_part[i] != d->cur_part[i]) {
      out->moved_obj += 1.0;
      out->moved_w += w;
    }
    for (q = d->adj_start[i]; q < d->adj_start[i + 1]; q++) {
      size_t j = far != NULL ? far[q] : loaddb_find(d, d->nbr + q * (size_t)d->ngid);
      double ew = d->edim > 0 ? d->ewgts[q * (size_t)d->edim] : 1.0;
      if (j < d->nobj && new_part[j] != new_part[i]) {
        out->cut += ew / 2.0;
        load[parts + new_part[i]] += ew;
      }
    }
  }
  for (p = 0; p < parts; p++) {
    double share =
        (d->sizes_set && parts == d->parts) ? d->sizes[(size_t)p * (size_t)d->wdim] : 1.0 / parts;
    double step = load[p] + comm_cost * load[parts + p];
    if (share > 0.0 && tot > 0.0 && load[p] / (share * tot) > out->maxavg)
      out->maxavg = load[p] / (share * tot);
    if (step > out->step) out->step = step;
  }
  free(load);
  return 0;
}
