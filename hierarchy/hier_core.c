/* SPDX-License-Identifier: BSD-3-Clause */
#include "hier_core.h"

#include "diffusion_core.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* ---- the parameter ------------------------------------------------------- */

int hier_parse(const char *value, int top_down, hier_spec *spec, char *why, size_t cap)
{
  hier_spec s;
  const char *p = value;
  int i;
  memset(&s, 0, sizeof s);
  if (value == NULL || spec == NULL) {
    snprintf(why, cap, "no value");
    return -1;
  }
  if (!top_down) {
    static const struct {
      const char *word;
      hier_kind kind;
    } words[] = {{"NONE", HIER_NONE}, {"AUTO", HIER_AUTO}, {"NODE", HIER_NODE}};
    for (i = 0; i < 3; i++) {
      if (strcmp(value, words[i].word) == 0) {
        spec->kind = words[i].kind;
        spec->nlevels = 0;
        return 0;
      }
    }
  }
  s.kind = HIER_SIZES;
  for (;;) {
    char *end;
    long v;
    while (isspace((unsigned char)*p)) p++;
    if (!isdigit((unsigned char)*p)) {
      snprintf(why, cap, "expected %s, a comma-separated list of group sizes",
               top_down ? "the number of siblings at each level" : "NONE, NODE, AUTO or");
      return -1;
    }
    errno = 0;
    v = strtol(p, &end, 10);
    if (errno != 0 || v < 1 || v > 1000000) {
      snprintf(why, cap, "a group size must be an integer from 1 to 1000000");
      return -1;
    }
    if (s.nlevels == HIER_MAX_LEVELS) {
      snprintf(why, cap, "at most %d levels", HIER_MAX_LEVELS);
      return -1;
    }
    s.size[s.nlevels++] = (int)v;
    p = end;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '\0') break;
    if (*p != ',') {
      snprintf(why, cap, "unexpected '%c' in the list of group sizes", *p);
      return -1;
    }
    p++;
  }
  /* TOPOLOGY counts siblings from the top of a node down; the tree is built
   * from the bottom up. */
  for (i = 0; top_down && i < s.nlevels / 2; i++) {
    int t = s.size[i];
    s.size[i] = s.size[s.nlevels - 1 - i];
    s.size[s.nlevels - 1 - i] = t;
  }
  *spec = s;
  return 0;
}

int hier_check_fit(const hier_spec *spec, int nranks, char *why, size_t cap)
{
  double product = 1.0;
  int i;
  if (spec->kind != HIER_SIZES) return 0;
  if (spec->nlevels > nranks) {
    snprintf(why, cap, "%d levels for %d ranks", spec->nlevels, nranks);
    return -1;
  }
  for (i = 0; i < spec->nlevels; i++) product *= spec->size[i];
  if (product > nranks) {
    snprintf(why, cap, "the group sizes multiply to %.0f, more than the %d ranks", product, nranks);
    return -1;
  }
  return 0;
}

int hier_auto_sizes(int nranks, int fan, int *size)
{
  int n = 0;
  double span;
  if (fan < 2) fan = 2;
  if (nranks < 2) return 0;
  if (nranks < 2 * fan) {
    size[n++] = (nranks + 1) / 2;
    return n;
  }
  size[n++] = fan;
  span = fan;
  /* Another level while the top would have more than fan children: a
   * root never handles more than fan records and what they carry. */
  while (n < HIER_MAX_LEVELS && nranks / span > fan) {
    size[n++] = fan;
    span *= fan;
  }
  return n;
}

/* ---- which objects leave -------------------------------------------------- */

/* idx[0..n-1]: the indices of w by decreasing load, ties by increasing
 * index.  An LSD radix sort on the loads' bit patterns (for non-negative
 * doubles the pattern grows with the value), 8 bits a pass, stable so that
 * ties keep index order; a pass whose digit is the same for every key is
 * skipped (loads that came as floats leave the low half of the mantissa
 * zero).  Linear in n: it runs on every group's objects at every balance.
 * Returns -1 when memory is short (idx is then in index order). */
static int order_desc(const double *w, size_t n, size_t *idx)
{
  uint64_t *key = malloc((n + 1) * sizeof *key), *key2 = malloc((n + 1) * sizeof *key2);
  size_t *tmp = malloc((n + 1) * sizeof *tmp), i, count[256];
  int pass, ierr = 0;
  for (i = 0; i < n; i++) idx[i] = i;
  if (key == NULL || key2 == NULL || tmp == NULL) {
    ierr = -1;
    goto End;
  }
  for (i = 0; i < n; i++) {
    uint64_t b;
    memcpy(&b, &w[i], sizeof b);
    key[i] = ~b; /* ascending order of ~pattern = descending loads */
  }
  for (pass = 0; pass < 8; pass++) {
    int shift = 8 * pass, d;
    size_t sum = 0;
    uint64_t *ks;
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++) count[(key[i] >> shift) & 0xff]++;
    if (n > 0 && count[(key[0] >> shift) & 0xff] == n) continue; /* one digit: nothing moves */
    for (d = 0; d < 256; d++) {
      size_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (i = 0; i < n; i++) {
      size_t at = count[(key[i] >> shift) & 0xff]++;
      key2[at] = key[i];
      tmp[at] = idx[i];
    }
    ks = key;
    key = key2;
    key2 = ks;
    memcpy(idx, tmp, n * sizeof *idx);
  }
End:
  free(key);
  free(key2);
  free(tmp);
  return ierr;
}

size_t hier_select(const double *w, size_t n, double amount, hier_shed_mode mode, size_t *order,
                   unsigned char *take, double *shed)
{
  size_t i, count = 0;
  double left = amount, sum = 0.0;
  long lightest = -1;
  int all = mode == HIER_SHED_ALL;
  for (i = 0; i < n; i++) take[i] = (unsigned char)all;
  if (all) {
    for (i = 0; i < n; i++) sum += w[i];
    *shed = sum;
    return n;
  }
  *shed = 0.0;
  if (!(amount > 0.0) || n == 0) return 0;
  (void)order_desc(w, n, order);
  for (i = 0; i < n && left > 0.0; i++) {
    size_t o = order[i];
    if (!(w[o] > 0.0)) break; /* the rest weigh nothing */
    if (w[o] <= left) {
      take[o] = 1;
      left -= w[o];
      sum += w[o];
      count++;
    }
  }
  /* One more, the lightest left with a load, when it overshoots by less
   * than it would leave behind (or in any case, for at least the
   * amount). */
  for (i = n; i-- > 0;) {
    size_t o = order[i];
    if (!take[o] && w[o] > 0.0) {
      lightest = (long)o;
      break;
    }
  }
  if (lightest >= 0 && left > 0.0 && (mode == HIER_SHED_AT_LEAST || w[lightest] < 2.0 * left)) {
    take[lightest] = 1;
    sum += w[lightest];
    count++;
  }
  *shed = sum;
  return count;
}

size_t hier_select_refine(const double *w, const int *part, size_t n, const double *limit,
                          const double *target, int m, size_t *order, unsigned char *take,
                          double *shed)
{
  double *load = calloc((size_t)m + 1, sizeof *load), *sub = calloc(n + 1, sizeof *sub);
  size_t *first = calloc((size_t)m + 2, sizeof *first), *idx = malloc((n + 1) * sizeof *idx);
  unsigned char *t = malloc(n + 1);
  double room = 0.0, sum = 0.0, got;
  size_t i, count = 0;
  int q;
  if (!load || !sub || !first || !idx || !t) {
    count = (size_t)-1;
    goto End;
  }
  /* The objects part by part (counting sort, index order within a part). */
  for (i = 0; i < n; i++) {
    take[i] = part[i] < 0;
    if (part[i] >= 0) {
      load[part[i]] += w[i];
      first[part[i] + 1]++;
    }
  }
  for (q = 0; q < m; q++) first[q + 1] += first[q];
  for (i = 0; i < n; i++)
    if (part[i] >= 0) idx[first[part[i]]++] = i;
  for (q = m; q > 0; q--) first[q] = first[q - 1];
  first[0] = 0;
  for (q = 0; q < m; q++) {
    size_t a = first[q], b = first[q + 1], k;
    if (load[q] < target[q]) room += target[q] - load[q];
    if (!(load[q] > limit[q])) continue;
    for (k = a; k < b; k++) sub[k - a] = w[idx[k]];
    hier_select(sub, b - a, load[q] - limit[q], HIER_SHED_AT_LEAST, order, t, &got);
    for (k = a; k < b; k++) take[idx[k]] = t[k - a];
  }
  /* What the group's own room below target can hold stays, heaviest
   * first, as long as it fits (only the shed objects are ordered). */
  {
    size_t ns = 0, k;
    for (i = 0; i < n; i++)
      if (take[i] && part[i] >= 0) {
        idx[ns] = i;
        sub[ns++] = w[i];
      }
    (void)order_desc(sub, ns, order);
    for (k = 0; k < ns && room > 0.0; k++) {
      size_t o = idx[order[k]];
      if (w[o] > 0.0 && w[o] <= room) {
        take[o] = 0;
        room -= w[o];
      }
    }
  }
  for (i = 0; i < n; i++)
    if (take[i]) {
      count++;
      sum += w[i];
    }
End:
  *shed = sum;
  free(load);
  free(sub);
  free(first);
  free(idx);
  free(t);
  return count;
}

/* The shed of a graph method: objects peeled from the group's border
 * inwards, so that what leaves is a layer next to another group and not
 * objects scattered through the group's interior, each of which would cut
 * every one of its edges. */
size_t hier_select_near(const double *w, size_t n, const size_t *adj_start, const size_t *adj,
                        int *near, double amount, hier_shed_mode mode, size_t *order,
                        unsigned char *take, double *shed)
{
  size_t i, head = 0, tail = 0, count = 0;
  double left = amount, sum = 0.0;
  long next = -1;
  /* Breadth first from the border (objects with near >= 0), in index
   * order; each object inherits the near rank of the border object it was
   * reached from.  take marks the visited objects meanwhile. */
  for (i = 0; i < n; i++) {
    take[i] = near[i] >= 0;
    if (take[i]) order[tail++] = i;
  }
  while (head < tail) {
    size_t o = order[head++], e;
    for (e = adj_start[o]; e < adj_start[o + 1]; e++) {
      size_t t = adj[e];
      if (t >= n || take[t]) continue;
      take[t] = 1;
      near[t] = near[o];
      order[tail++] = t;
    }
  }
  /* Objects no path joins to the border follow, in index order. */
  for (i = 0; i < n; i++) {
    if (!take[i]) order[tail++] = i;
    take[i] = (unsigned char)(mode == HIER_SHED_ALL);
  }
  if (mode == HIER_SHED_ALL) {
    for (i = 0; i < n; i++) sum += w[i];
    *shed = sum;
    return n;
  }
  *shed = 0.0;
  if (!(amount > 0.0) || n == 0) return 0;
  for (i = 0; i < n && left > 0.0; i++) {
    size_t o = order[i];
    if (w[o] > 0.0 && w[o] <= left) {
      take[o] = 1;
      left -= w[o];
      sum += w[o];
      count++;
    }
  }
  /* One more: the first left in the peel's order (nearest the border)
   * that brings the shed closer to the amount, or any with a load for at
   * least the amount. */
  for (i = 0; left > 0.0 && next < 0 && i < n; i++) {
    size_t o = order[i];
    if (!take[o] && w[o] > 0.0 && (mode == HIER_SHED_AT_LEAST || w[o] < 2.0 * left)) next = (long)o;
  }
  if (next >= 0) {
    take[next] = 1;
    sum += w[next];
    count++;
  }
  *shed = sum;
  return count;
}

/* ---- flows between groups (graph methods) ----------------------------------- */

size_t hier_peel(const double *w, size_t n, const size_t *adj_start, const size_t *adj,
                 const unsigned char *seed, double amount, size_t *queue, unsigned char *seen,
                 unsigned char *take, double *shed)
{
  size_t i, head = 0, tail = 0, count = 0;
  double left = amount;
  long next = -1;
  *shed = 0.0;
  if (!(amount > 0.0)) return 0;
  for (i = 0; i < n; i++) {
    seen[i] = take[i] || seed[i];
    if (!take[i] && seed[i]) queue[tail++] = i;
  }
  /* Breadth first from the seeds through objects not taken yet: the order
   * in which the border with the neighbour moves inwards. */
  while (head < tail) {
    size_t o = queue[head++], e;
    for (e = adj_start[o]; e < adj_start[o + 1]; e++) {
      size_t t = adj[e];
      if (t >= n || seen[t] || take[t]) continue;
      seen[t] = 1;
      queue[tail++] = t;
    }
  }
  for (i = 0; i < tail && left > 0.0; i++) {
    size_t o = queue[i];
    if (w[o] > 0.0 && w[o] <= left) {
      take[o] = 1;
      left -= w[o];
      *shed += w[o];
      count++;
    }
  }
  for (i = 0; left > 0.0 && next < 0 && i < tail; i++)
    if (!take[queue[i]] && w[queue[i]] > 0.0 && w[queue[i]] < 2.0 * left) next = (long)queue[i];
  if (next >= 0) {
    take[next] = 1;
    *shed += w[next];
    count++;
  }
  return count;
}

int hier_group_flows(int m, const double *load, const double *target, const size_t *start,
                     const int *adj, double efficiency, double *flow)
{
  diffusion_graph g;
  diffusion_options o;
  double *cap = malloc(((size_t)m + 1) * sizeof *cap), *l = malloc(((size_t)m + 1) * sizeof *l);
  size_t *s2 = malloc(((size_t)m + 1) * sizeof *s2), k, at = 0;
  int *a2 = malloc((start[m] + 1) * sizeof *a2), q, rc = -1;
  if (cap == NULL || l == NULL || s2 == NULL || a2 == NULL) goto End;
  /* A group without a target (no parts) or without load takes no part in
   * the diffusion: it keeps no link, and the tree moves its objects. */
  for (q = 0; q < m; q++) {
    int in = target[q] > 0.0 && load[q] > 0.0;
    cap[q] = in ? target[q] : 1.0;
    l[q] = in ? load[q] : 1.0;
  }
  for (q = 0; q < m; q++) {
    s2[q] = at;
    for (k = start[q]; k < start[q + 1]; k++) {
      int t = adj[k];
      if (target[q] > 0.0 && load[q] > 0.0 && target[t] > 0.0 && load[t] > 0.0) a2[at++] = t;
    }
  }
  s2[m] = at;
  g.nranks = m;
  g.start = s2;
  g.adj = a2;
  diffusion_default_options(&o);
  o.efficiency = efficiency;
  o.max_rounds = 1000;
  {
    double *f2 = malloc((at + 1) * sizeof *f2);
    if (f2 == NULL) goto End;
    rc = diffusion_simulate(&g, cap, l, &o, f2, NULL, NULL) < 0 ? -1 : 0;
    /* Back onto the caller's links (those left out carry nothing). */
    for (q = 0, at = 0; q < m; q++)
      for (k = start[q]; k < start[q + 1]; k++) {
        int t = adj[k];
        int kept = target[q] > 0.0 && load[q] > 0.0 && target[t] > 0.0 && load[t] > 0.0;
        flow[k] = kept && rc == 0 ? f2[at++] : 0.0;
      }
    free(f2);
  }
End:
  free(cap);
  free(l);
  free(s2);
  free(a2);
  return rc;
}

/* ---- where tokens go ------------------------------------------------------ */

/* Max-heap of children by room, ties by lower index. */
static int heap_before(const double *room, int a, int b)
{
  return room[a] > room[b] || (room[a] == room[b] && a < b);
}

static void heap_down(int *heap, int m, const double *room, int at)
{
  for (;;) {
    int l = 2 * at + 1, r = l + 1, best = at, t;
    if (l < m && heap_before(room, heap[l], heap[best])) best = l;
    if (r < m && heap_before(room, heap[r], heap[best])) best = r;
    if (best == at) return;
    t = heap[at];
    heap[at] = heap[best];
    heap[best] = t;
    at = best;
  }
}

size_t hier_place_near(const double *w, const int *near, size_t n, double *room,
                       const double *slack, const unsigned char *open, int m, int must,
                       size_t *order, int *heap, int *child)
{
  size_t k, placed = 0;
  int c, h = 0;
  for (k = 0; k < n; k++) child[k] = -1;
  if (n == 0) return 0;
  (void)order_desc(w, n, order);
  /* First each token that names a child goes there, heaviest first, when
   * it brings that child closer to its target: a graph method's token then
   * joins the group its edges lead to, and the cut the move makes stays
   * small. */
  for (k = 0; near != NULL && k < n; k++) {
    size_t o = order[k];
    int t = near[o];
    if (t < 0 || t >= m || !open[t] || !(w[o] < 2.0 * room[t]) ||
        (slack != NULL && w[o] > room[t] + slack[t]))
      continue;
    child[o] = t;
    room[t] -= w[o];
    placed++;
  }
  for (c = 0; c < m; c++)
    if (open[c]) heap[h++] = c;
  if (h == 0) return placed;
  for (c = h / 2; c-- > 0;) heap_down(heap, h, room, c);
  for (k = 0; k < n; k++) {
    size_t o = order[k];
    int top = heap[0];
    if (child[o] >= 0) continue;
    /* The child of most room: if the token does not bring it closer to
     * its target, no child's would. */
    if (!must && (!(w[o] < 2.0 * room[top]) || (slack != NULL && w[o] > room[top] + slack[top])))
      continue;
    child[o] = top;
    room[top] -= w[o];
    placed++;
    heap_down(heap, h, room, 0);
  }
  return placed;
}

size_t hier_place(const double *w, size_t n, double *room, const double *slack,
                  const unsigned char *open, int m, int must, size_t *order, int *heap, int *child)
{
  return hier_place_near(w, NULL, n, room, slack, open, m, must, order, heap, child);
}

double hier_room(const double *room, const unsigned char *open, int m)
{
  double sum = 0.0;
  int c;
  for (c = 0; c < m; c++)
    if (open[c] && room[c] > 0.0) sum += room[c];
  return sum;
}
